//! Concrete (Rust `f32`/`f64`) and symbolic (Z3 floating-point theory) float semantics agree.
//! The symbolic side is built from fresh symbols, grounded by substitution and simplified by
//! Z3's own IEEE implementation; results are compared bit for bit, any NaN equal to any NaN.

use proptest::prelude::*;
use z3::ast::{Ast, Float, BV};

use super::float::{self, FVal, FValue};
use super::float::{FBinOp, FCmp};
use super::value::{Definedness, Truth, Value};
use crate::cfa::{FClass, FMath, FloatTy, IntTy};

fn is_nan(bits: u64, fty: FloatTy) -> bool {
    float::to_f64(bits, fty).is_nan()
}

/// Grounds a float term: substitutes constants for symbols and reads back the IEEE bits.
fn ground_bits(t: &Float, subs: &[(&Float, &Float)], fty: FloatTy) -> u64 {
    float::numeral_bits(&t.substitute(subs), fty).expect("ground float term is a numeral")
}

fn same(a: u64, b: u64, fty: FloatTy) -> bool {
    (is_nan(a, fty) && is_nan(b, fty)) || a == b
}

/// Bit patterns with many special values: zeros, infinities, NaNs, subnormals, extremes,
/// values near integer-type bounds, and random ones.
fn interesting(fty: FloatTy) -> impl Strategy<Value = u64> {
    let specials: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.1,
        1e-10,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::MAX,
        2147483647.0,
        2147483648.0,
        -2147483648.0,
        -2147483649.0,
        4294967295.0,
        4294967296.0,
        9.223_372_036_854_776e18,
        -9.223_372_036_854_776e18,
        1.8446744073709552e19,
        255.9,
        -128.7,
        65535.5,
        16777217.0,
    ];
    let sp: Vec<u64> = specials.into_iter().map(|v| fty.bits_of(v)).collect();
    let mask = if fty == FloatTy::F32 { 0xffff_ffffu64 } else { u64::MAX };
    let subnormal = 1u64;
    prop_oneof![
        proptest::sample::select(sp),
        any::<u64>().prop_map(move |x| x & mask),
        Just(subnormal),
        Just(subnormal | (1u64 << (fty.bits() - 1))),
    ]
}

fn ftys() -> impl Strategy<Value = FloatTy> {
    prop_oneof![Just(FloatTy::F32), Just(FloatTy::F64)]
}

fn truth_known(t: &Truth) -> bool {
    match t {
        Truth::Known(b) => *b,
        Truth::Sym(b) => b.simplify().as_bool().expect("ground truth"),
    }
}

fn ground_truth(t: &Truth, subs: &[(&Float, &Float)]) -> bool {
    match t {
        Truth::Known(b) => *b,
        Truth::Sym(b) => b.substitute(subs).simplify().as_bool().expect("ground truth"),
    }
}

fn defined_all(d: &[Definedness], subs: &[(&Float, &Float)]) -> bool {
    d.iter().all(|d| ground_truth(&d.holds, subs))
}

const INT_TYPES: [IntTy; 9] = [
    IntTy::BOOL,
    IntTy::CHAR,
    IntTy::UCHAR,
    IntTy::SHORT,
    IntTy::USHORT,
    IntTy::INT,
    IntTy::UINT,
    IntTy::LLONG,
    IntTy::ULLONG,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Law: + - * / agree bit for bit (round to nearest even), including NaN, infinities,
    /// signed zeros and subnormals.
    #[test]
    fn binary_agrees(fty in ftys(), op in prop_oneof![Just(FBinOp::Add), Just(FBinOp::Sub), Just(FBinOp::Mul), Just(FBinOp::Div)], x in interesting(FloatTy::F64), y in interesting(FloatTy::F64)) {
        let (x, y) = if fty == FloatTy::F32 { (float::conc_cast(x, FloatTy::F64, FloatTy::F32), float::conc_cast(y, FloatTy::F64, FloatTy::F32)) } else { (x, y) };
        let c = float::conc_binary(op, fty, x, y);
        let (e, s) = fty.ebits_sbits();
        let (sa, sb) = (Float::fresh_const("a", e, s), Float::fresh_const("b", e, s));
        let t = float::sym_binary(op, &sa, &sb);
        let (ka, kb) = (float::conc_term(x, fty), float::conc_term(y, fty));
        let g = ground_bits(&t, &[(&sa, &ka), (&sb, &kb)], fty);
        prop_assert!(same(c, g, fty), "{:?} {:?}: {:#x} {:#x} -> conc {:#x} sym {:#x}", fty, op, x, y, c, g);
    }

    /// Law: comparisons agree (any comparison with NaN is false, except `!=`; -0 == +0).
    #[test]
    fn comparisons_agree(fty in ftys(), x in interesting(FloatTy::F32), y in interesting(FloatTy::F32), op in prop_oneof![Just(FCmp::Eq), Just(FCmp::Ne), Just(FCmp::Lt), Just(FCmp::Le), Just(FCmp::Gt), Just(FCmp::Ge)]) {
        let (x, y) = if fty == FloatTy::F64 { (float::conc_cast(x, FloatTy::F32, FloatTy::F64), float::conc_cast(y, FloatTy::F32, FloatTy::F64)) } else { (x, y) };
        let c = float::conc_cmp(op, fty, x, y);
        let (e, s) = fty.ebits_sbits();
        let (sa, sb) = (Float::fresh_const("a", e, s), Float::fresh_const("b", e, s));
        let (ka, kb) = (float::conc_term(x, fty), float::conc_term(y, fty));
        let g = float::sym_cmp(op, &sa, &sb).substitute(&[(&sa, &ka), (&sb, &kb)]).simplify().as_bool();
        prop_assert_eq!(Some(c), g, "{:?} {:?} {:#x} {:#x}", fty, op, x, y);
    }

    /// Law: unary math functions, float↔float casts and classification agree.
    #[test]
    fn unary_and_casts_agree(fty in ftys(), x in interesting(FloatTy::F64), func in prop_oneof![Just(FMath::Fabs), Just(FMath::Sqrt), Just(FMath::Floor), Just(FMath::Ceil), Just(FMath::Trunc), Just(FMath::Round)]) {
        let x = if fty == FloatTy::F32 { float::conc_cast(x, FloatTy::F64, FloatTy::F32) } else { x };
        let (e, s) = fty.ebits_sbits();
        let sa = Float::fresh_const("a", e, s);
        let ka = float::conc_term(x, fty);
        let subs = [(&sa, &ka)];
        let c = float::conc_math(func, fty, x);
        let g = ground_bits(&float::sym_math(func, &sa), &subs, fty);
        prop_assert!(same(c, g, fty), "{:?} {:?} {:#x}: conc {:#x} sym {:#x}", fty, func, x, c, g);
        let other = if fty == FloatTy::F32 { FloatTy::F64 } else { FloatTy::F32 };
        let c = float::conc_cast(x, fty, other);
        let g = ground_bits(&float::sym_cast(&sa, other), &subs, other);
        prop_assert!(same(c, g, other), "cast {:?}->{:?} {:#x}", fty, other, x);
        let neg_c = float::neg(&FValue::conc(x, fty)).is_conc().unwrap();
        let neg_s = ground_bits(&sa.unary_neg(), &subs, fty);
        prop_assert!(same(neg_c, neg_s, fty));
        for class in [FClass::IsNan, FClass::IsInf, FClass::IsFinite, FClass::IsNormal] {
            let c = truth_known(&float::classify(class, &FValue::conc(x, fty)).unwrap());
            let s = ground_truth(&float::classify(class, &FValue { val: FVal::Sym(sa.clone()), fty }).unwrap(), &subs);
            prop_assert_eq!(c, s, "{:?} {:#x}", class, x);
        }
    }

    /// Law: float → integer conversions agree on definedness (C11 6.3.1.4: the truncated value
    /// must be representable) and, where defined, on the value; integer → float agrees.
    #[test]
    fn int_conversions_agree(fty in ftys(), x in interesting(FloatTy::F64), ti in 0usize..9, i in any::<u64>()) {
        let x = if fty == FloatTy::F32 { float::conc_cast(x, FloatTy::F64, FloatTy::F32) } else { x };
        let to = INT_TYPES[ti];
        let (e, s) = fty.ebits_sbits();
        let sa = Float::fresh_const("a", e, s);
        let ka = float::conc_term(x, fty);
        let subs = [(&sa, &ka)];
        let mut dc = Vec::new();
        let vc = float::to_int(&FValue::conc(x, fty), to, &mut dc);
        let mut ds = Vec::new();
        let vs = float::to_int(&FValue { val: FVal::Sym(sa.clone()), fty }, to, &mut ds);
        let okc = defined_all(&dc, &[]);
        let oks = defined_all(&ds, &subs);
        prop_assert_eq!(okc, oks, "definedness {:?} -> {:?} of {:#x}", fty, to, x);
        if okc {
            let g = vs.term().substitute(&subs).simplify().as_u64();
            prop_assert_eq!(vc.known().map(|v| (v as u64) & to.mask()), g, "{:?} -> {:?} of {}", fty, to, float::render(x, fty));
        }
        // Integer to float, from every integer type.
        let iv = Value::conc(if to.is_bool { i & 1 } else { i }, to);
        let c = float::from_int(&iv, fty).is_conc().unwrap();
        let sb = BV::fresh_const("i", to.bits);
        let t = float::sym_from_int(&sb, to, fty);
        let g = float::numeral_bits(&t.substitute(&[(&sb, &iv.term())]), fty).unwrap();
        prop_assert!(same(c, g, fty), "{:?} {:?} -> {:?}", iv, to, fty);
    }
}

#[test]
fn nan_and_signed_zero_facts() {
    let nan = FValue::conc(FloatTy::F32.bits_of(f64::NAN), FloatTy::F32);
    let pz = FValue::conc(0, FloatTy::F64);
    let nz = FValue::conc((-0.0f64).to_bits(), FloatTy::F64);
    assert!(matches!(float::compare(FCmp::Eq, &nan, &nan), Truth::Known(false)));
    assert!(matches!(float::compare(FCmp::Ne, &nan, &nan), Truth::Known(true)));
    assert!(matches!(float::compare(FCmp::Lt, &nan, &nan), Truth::Known(false)));
    assert!(matches!(float::compare(FCmp::Eq, &pz, &nz), Truth::Known(true)));
    assert!(matches!(float::classify(FClass::SignBit, &nz), Ok(Truth::Known(true))));
    // 1/-0 = -inf.
    let one = FValue::conc(1f64.to_bits(), FloatTy::F64);
    let r = float::binary(FBinOp::Div, &one, &nz);
    assert_eq!(r.is_conc(), Some(f64::NEG_INFINITY.to_bits()));
    // 0.1f + 0.2f == 0.3f holds in binary32 (both sides round to 0x3e99999a)…
    let f = |v: f32| FValue::conc(v.to_bits() as u64, FloatTy::F32);
    let s = float::binary(FBinOp::Add, &f(0.1), &f(0.2));
    assert!(matches!(float::compare(FCmp::Eq, &s, &f(0.3)), Truth::Known(true)));
    // …but 0.1 + 0.2 == 0.3 does not in binary64.
    let d = |v: f64| FValue::conc(v.to_bits(), FloatTy::F64);
    let s = float::binary(FBinOp::Add, &d(0.1), &d(0.2));
    assert!(matches!(float::compare(FCmp::Eq, &s, &d(0.3)), Truth::Known(false)));
    // Float → int out of range, NaN and infinity are undefined; -0.9 → 0 is defined.
    for v in [f64::NAN, f64::INFINITY, 2147483648.0, -2147483649.0] {
        let mut d = Vec::new();
        float::to_int(&FValue::conc(v.to_bits(), FloatTy::F64), IntTy::INT, &mut d);
        assert!(d.iter().any(|d| matches!(d.holds, Truth::Known(false))), "{v}");
    }
    let mut d = Vec::new();
    let v = float::to_int(&FValue::conc((-0.9f64).to_bits(), FloatTy::F64), IntTy::UINT, &mut d);
    assert!(d.is_empty());
    assert_eq!(v.known(), Some(0));
}

#[test]
fn nondet_float_can_be_nan_and_solver_decides() {
    use std::time::Duration;
    let bits = Value::fresh("x", IntTy::UINT);
    let x = FValue::from_bits(&bits, FloatTy::F32);
    let Truth::Sym(ne) = float::compare(FCmp::Ne, &x, &x) else { panic!("symbolic") };
    let mut smt = super::Smt::new(crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(10)));
    smt.floats = true;
    assert_eq!(smt.check(&[], &[&ne]), super::Feasibility::Feasible);
    let m = smt.model_values(std::slice::from_ref(&ne), &[bits.term()]).unwrap();
    assert!(float::to_f64(m[0], FloatTy::F32).is_nan());
    // The QF_BV solver falls back to the FP solver on a float query.
    let mut smt = super::Smt::new(crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(10)));
    let Truth::Sym(eq) = float::compare(FCmp::Eq, &x, &x) else { panic!("symbolic") };
    assert_eq!(smt.check(&[], &[&eq.not(), &ne.not()]), super::Feasibility::Infeasible);
}

fn state_of(src: &str) -> (crate::cfa::Cfa, super::DataState) {
    let p = crate::cfront::build_program(std::path::Path::new("t.c"), src, crate::cfa::DataModel::Lp64)
        .unwrap_or_else(|e| panic!("{e}"));
    let st = super::DataState::initial(&p.cfa).unwrap_or_else(|e| panic!("{e:?}"));
    (p.cfa, st)
}

fn var(cfa: &crate::cfa::Cfa, name: &str) -> crate::cfa::VarId {
    crate::cfa::VarId(cfa.vars.iter().position(|v| v.name == name).unwrap() as u32)
}

#[test]
fn float_array_initializer_and_symbolic_index() {
    use crate::cfa::{Expr, Place, ScalarTy};
    use std::time::Duration;
    let (cfa, mut st) = state_of("const double T[4] = {0.5, 1.5, 2.5}; int main() { return 0; }");
    let t = var(&cfa, "T");
    let elem = |index: Expr| Expr::Elem { var: t, index: Box::new(index), len: 4, ty: ScalarTy::Float(FloatTy::F64) };
    let mut d = Vec::new();
    // Listed elements and a zero rest.
    let v = st.eval_float(&cfa, &elem(Expr::int(1)), None, &mut d).unwrap();
    assert_eq!(v.is_conc(), Some(1.5f64.to_bits()));
    let v = st.eval_float(&cfa, &elem(Expr::int(3)), None, &mut d).unwrap();
    assert_eq!(v.is_conc(), Some(0));
    assert!(d.iter().all(|x| matches!(x.holds, Truth::Known(true))));
    // Out of bounds: definitely undefined.
    let mut d = Vec::new();
    st.eval_float(&cfa, &elem(Expr::int(4)), None, &mut d).unwrap();
    assert!(d.iter().any(|x| matches!(x.holds, Truth::Known(false))));
    // A symbolic index (a nondeterministic global `k`): T[k] == 2.5 forces k == 2.
    let mut d = Vec::new();
    let r = {
        let (cfa2, mut st2) = state_of("const double T[4] = {0.5, 1.5, 2.5}; int k; int main() { return 0; }");
        let k = var(&cfa2, "k");
        let ix = st2.nondet("k", IntTy::INT);
        st2.assign(&cfa2, &Place::Var { var: k, ty: ScalarTy::Int(IntTy::INT) }, &ix, None).unwrap();
        let t2 = var(&cfa2, "T");
        let e = Expr::Elem {
            var: t2,
            index: Box::new(Expr::Var { var: k, ty: ScalarTy::Int(IntTy::INT) }),
            len: 4,
            ty: ScalarTy::Float(FloatTy::F64),
        };
        let v = st2.eval_float(&cfa2, &e, None, &mut d).unwrap();
        let Truth::Sym(eq) = float::compare(FCmp::Eq, &v, &FValue::conc(2.5f64.to_bits(), FloatTy::F64)) else {
            panic!("symbolic")
        };
        let Truth::Sym(inb) = d[0].holds.clone() else { panic!("symbolic bounds") };
        let mut smt =
            super::Smt::new(crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(10)));
        smt.floats = true;
        assert_eq!(smt.check(&st2.path.conjuncts(), &[&eq, &inb]), super::Feasibility::Feasible);
        let m = smt.model_values(&[eq.clone(), inb.clone()], &[ix.term()]).unwrap();
        assert_eq!(m[0], 2);
        // A symbolic write then a read at the same index gives the written value.
        let w = Place::Elem {
            var: t2,
            index: Expr::Var { var: k, ty: ScalarTy::Int(IntTy::INT) },
            len: 4,
            ty: ScalarTy::Float(FloatTy::F64),
        };
        st2.assign_flv(&cfa2, &w, &FValue::conc(7.0f64.to_bits(), FloatTy::F64), None).unwrap();
        let mut d2 = Vec::new();
        let back = st2.eval_float(&cfa2, &e, None, &mut d2).unwrap();
        let Truth::Sym(ne) = float::compare(FCmp::Ne, &back, &FValue::conc(7.0f64.to_bits(), FloatTy::F64)) else {
            panic!("symbolic")
        };
        let mut smt =
            super::Smt::new(crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(10)));
        smt.floats = true;
        smt.check(&st2.path.conjuncts(), &[&ne, &inb])
    };
    assert_eq!(r, super::Feasibility::Infeasible);
}

#[test]
fn float_parameters_and_result_conversions() {
    use super::AnyValue;
    use crate::cfa::ScalarTy;
    let (cfa, mut st) = state_of("double f(double x, int n) { return x; } int main() { f(1.0, 2); return 0; }");
    let f = cfa.function_by_name("f").unwrap();
    let args =
        [AnyValue::Float(FValue::conc(2.5f64.to_bits(), FloatTy::F64)), AnyValue::Int(Value::conc(3, IntTy::INT))];
    st.push_frame(&cfa, f, &args).unwrap();
    let x = var(&cfa, "x");
    let mut d = Vec::new();
    let v = st
        .eval_float(&cfa, &crate::cfa::Expr::Var { var: x, ty: ScalarTy::Float(FloatTy::F64) }, None, &mut d)
        .unwrap();
    assert_eq!(v.is_conc(), Some(2.5f64.to_bits()));
    // An argument of the wrong kind is refused (the front end always converts).
    let (cfa, mut st) = state_of("double f(double x) { return x; } int main() { f(1.0); return 0; }");
    let f = cfa.function_by_name("f").unwrap();
    assert!(st.push_frame(&cfa, f, &[AnyValue::Int(Value::conc(1, IntTy::INT))]).is_err());
    // Conversions as by assignment: float → int truncates; out of range is undefined.
    let mut d = Vec::new();
    let r =
        AnyValue::Float(FValue::conc((-2.75f64).to_bits(), FloatTy::F64)).convert(ScalarTy::Int(IntTy::INT), &mut d);
    assert_eq!(r, AnyValue::Int(Value::conc((-2i64) as u64 & 0xffff_ffff, IntTy::INT)));
    assert!(d.is_empty() || d.iter().all(|x| matches!(x.holds, Truth::Known(true))));
    let mut d = Vec::new();
    AnyValue::Float(FValue::conc(3e9f64.to_bits(), FloatTy::F64)).convert(ScalarTy::Int(IntTy::INT), &mut d);
    assert!(d.iter().any(|x| matches!(x.holds, Truth::Known(false))));
    let mut d = Vec::new();
    let r = AnyValue::Int(Value::conc(16777217, IntTy::INT)).convert(ScalarTy::Float(FloatTy::F32), &mut d);
    assert_eq!(r, AnyValue::Float(FValue::conc(16777216f32.to_bits() as u64, FloatTy::F32)));
    let r =
        AnyValue::Float(FValue::conc(0.1f64.to_bits(), FloatTy::F64)).convert(ScalarTy::Float(FloatTy::F32), &mut d);
    assert_eq!(r, AnyValue::Float(FValue::conc(0.1f32.to_bits() as u64, FloatTy::F32)));
}

#[test]
fn ulp_steps_cross_zero_and_stop_at_infinity() {
    use crate::semantics::float::ulp_step;
    let f = FloatTy::F64;
    assert_eq!(ulp_step(1.0f64.to_bits(), f, true), f64::from_bits(1.0f64.to_bits() + 1).to_bits());
    assert_eq!(ulp_step(1.0f64.to_bits(), f, false), 1.0f64.to_bits() - 1);
    assert_eq!(ulp_step((-1.0f64).to_bits(), f, true), (-1.0f64).to_bits() - 1);
    assert_eq!(ulp_step(0, f, false), (-f64::from_bits(1)).to_bits());
    assert_eq!(ulp_step((-0.0f64).to_bits(), f, true), 1);
    assert_eq!(ulp_step(f64::MAX.to_bits(), f, true), f64::INFINITY.to_bits());
    assert_eq!(ulp_step(f64::INFINITY.to_bits(), f, true), f64::INFINITY.to_bits());
    assert_eq!(ulp_step(f64::INFINITY.to_bits(), f, false), f64::MAX.to_bits());
    let g = FloatTy::F32;
    assert_eq!(ulp_step(1.0f32.to_bits() as u64, g, true), (1.0f32.to_bits() + 1) as u64);
    assert_eq!(ulp_step(f32::NAN.to_bits() as u64, g, true), f32::NAN.to_bits() as u64);
}

#[test]
fn libm_fmod_is_exact_and_transcendentals_are_close() {
    use crate::cfa::Libm;
    use crate::semantics::float::conc_libm;
    let d = |v: f64| v.to_bits();
    assert_eq!(f64::from_bits(conc_libm(Libm::Fmod, FloatTy::F64, &[d(3.1), d(1.0)])), 0.10000000000000009);
    assert_eq!(f64::from_bits(conc_libm(Libm::Fmod, FloatTy::F64, &[d(-7.0), d(2.0)])), -1.0);
    assert!(f64::from_bits(conc_libm(Libm::Fmod, FloatTy::F64, &[d(1.0), d(0.0)])).is_nan());
    let s = f64::from_bits(conc_libm(Libm::Sin, FloatTy::F64, &[d(1.0)]));
    assert!((s - 0.8414709848078965).abs() < 1e-15);
    let p =
        f32::from_bits(conc_libm(Libm::Pow, FloatTy::F32, &[2.0f32.to_bits() as u64, 10.0f32.to_bits() as u64]) as u32);
    assert_eq!(p, 1024.0);
    assert_eq!(Libm::from_name("atan2").map(|f| f.arity()), Some(2));
    assert_eq!(Libm::from_name("cbrt"), None);
}
