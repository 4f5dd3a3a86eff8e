use std::time::Duration;

use proptest::prelude::*;
use z3::ast::{Ast, BV};

use super::value::{binary, cast, unary, Definedness, Truth, Val, Value};
use super::*;
use crate::cfa::{BinOp, IntTy, UnOp};

const TYPES: [IntTy; 9] = [
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

/// Evaluates the symbolic version by substituting constants for fresh symbols and simplifying.
fn symbolic_then_ground(
    f: impl Fn(&Value, &Value, &mut Vec<Definedness>) -> Value,
    a: &Value,
    b: &Value,
) -> (Value, bool) {
    let sa = BV::fresh_const("a", a.ty.bits);
    let sb = BV::fresh_const("b", b.ty.bits);
    let va = Value { val: Val::Sym(sa.clone()), ty: a.ty };
    let vb = Value { val: Val::Sym(sb.clone()), ty: b.ty };
    let mut defined = Vec::new();
    let r = f(&va, &vb, &mut defined);
    let subs = [(&sa, &a.term()), (&sb, &b.term())];
    let ground = |t: &BV| t.substitute(&subs).simplify();
    let value = match &r.val {
        Val::Sym(t) => Value::conc(ground(t).as_u64().expect("ground term is a numeral"), r.ty),
        Val::Conc(c) => Value::conc(*c, r.ty),
    };
    let ok = defined.iter().all(|d| match &d.holds {
        Truth::Known(b) => *b,
        Truth::Sym(c) => c.substitute(&[(&sa, &a.term()), (&sb, &b.term())]).simplify().as_bool().expect("ground"),
    });
    (value, ok)
}

fn concrete(f: impl Fn(&Value, &Value, &mut Vec<Definedness>) -> Value, a: &Value, b: &Value) -> (Value, bool) {
    let mut defined = Vec::new();
    let r = f(a, b, &mut defined);
    let ok = defined.iter().all(|d| matches!(d.holds, Truth::Known(true)));
    (r, ok)
}

fn ops() -> impl Strategy<Value = BinOp> {
    prop_oneof![
        Just(BinOp::Add),
        Just(BinOp::Sub),
        Just(BinOp::Mul),
        Just(BinOp::Div),
        Just(BinOp::Rem),
        Just(BinOp::Shl),
        Just(BinOp::Shr),
        Just(BinOp::BitAnd),
        Just(BinOp::BitOr),
        Just(BinOp::BitXor),
        Just(BinOp::Eq),
        Just(BinOp::Ne),
        Just(BinOp::Lt),
        Just(BinOp::Le),
        Just(BinOp::Gt),
        Just(BinOp::Ge),
        Just(BinOp::LogAnd),
        Just(BinOp::LogOr),
    ]
}

fn interesting_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        0u64..70,
        Just(u64::MAX),
        Just(0x7fff_ffff),
        Just(0x8000_0000),
        Just(i64::MAX as u64),
        Just(1u64 << 63)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Law: the concrete fast path and the Z3 bit-vector semantics agree on value and on
    /// definedness, for every binary operator and operand type.
    #[test]
    fn concrete_and_symbolic_binary_agree(op in ops(), ta in 0usize..9, tb in 0usize..9, x in interesting_u64(), y in interesting_u64()) {
        let (tya, tyb) = (TYPES[ta], TYPES[tb]);
        // Arithmetic operands share the result type, as the front end guarantees.
        let (tya, tyb, ty) = match op {
            BinOp::Shl | BinOp::Shr => (tya, tyb, tya),
            BinOp::LogAnd | BinOp::LogOr => (tya, tyb, IntTy::INT),
            o if o.is_boolean() => (tya, tya, IntTy::INT),
            _ => (tya, tya, tya),
        };
        let a = if tya.is_bool { Value::conc(x & 1, tya) } else { Value::conc(x, tya) };
        let b = if tyb.is_bool { Value::conc(y & 1, tyb) } else { Value::conc(y, tyb) };
        let f = |a: &Value, b: &Value, d: &mut Vec<Definedness>| binary(op, a, b, ty, d);
        let (cv, cok) = concrete(f, &a, &b);
        let (sv, sok) = symbolic_then_ground(f, &a, &b);
        prop_assert_eq!(cok, sok, "definedness differs for {:?} {:?} {:?}", a, op, b);
        if cok {
            prop_assert_eq!(cv, sv, "value differs for {:?} {:?} {:?}", a, op, b);
        }
    }

    /// The same law for bit-field widths (1..=63 bits, signed and unsigned): casts to and from
    /// them, and operators on them.
    #[test]
    fn concrete_and_symbolic_agree_for_odd_widths(wa in 1u32..=63, sa in any::<bool>(), wb in 1u32..=63, sb in any::<bool>(), x in interesting_u64(), y in interesting_u64(), op in ops()) {
        let (from, to) = (IntTy::new(wa, sa), IntTy::new(wb, sb));
        let a = Value::conc(x, from);
        prop_assert_eq!(a.known().map(|v| v >= from.min_value() && v <= from.max_value()), Some(true));
        let c = |a: &Value, _: &Value, _: &mut Vec<Definedness>| cast(a, to);
        prop_assert_eq!(concrete(c, &a, &a), symbolic_then_ground(c, &a, &a));
        let cb = |a: &Value, _: &Value, _: &mut Vec<Definedness>| cast(a, IntTy::BOOL);
        prop_assert_eq!(concrete(cb, &a, &a), symbolic_then_ground(cb, &a, &a));
        let b = Value::conc(y, from);
        let ty = if op.is_boolean() { IntTy::INT } else { from };
        let f = |a: &Value, b: &Value, d: &mut Vec<Definedness>| binary(op, a, b, ty, d);
        let (cv, cok) = concrete(f, &a, &b);
        let (sv, sok) = symbolic_then_ground(f, &a, &b);
        prop_assert_eq!(cok, sok, "definedness differs for {:?} {:?} {:?}", a, op, b);
        if cok {
            prop_assert_eq!(cv, sv, "value differs for {:?} {:?} {:?}", a, op, b);
        }
        for u in [UnOp::Neg, UnOp::BitNot, UnOp::LogNot] {
            let ty = if u == UnOp::LogNot { IntTy::INT } else { from };
            let g = |a: &Value, _: &Value, d: &mut Vec<Definedness>| unary(u, a, ty, d);
            let (cv, cok) = concrete(g, &a, &a);
            let (sv, sok) = symbolic_then_ground(g, &a, &a);
            prop_assert_eq!(cok, sok);
            if cok { prop_assert_eq!(cv, sv); }
        }
    }

    #[test]
    fn concrete_and_symbolic_casts_and_unary_agree(ta in 0usize..9, tb in 0usize..9, x in interesting_u64(), op in prop_oneof![Just(UnOp::Neg), Just(UnOp::BitNot), Just(UnOp::LogNot)]) {
        let (from, to) = (TYPES[ta], TYPES[tb]);
        let a = if from.is_bool { Value::conc(x & 1, from) } else { Value::conc(x, from) };
        let c = |a: &Value, _: &Value, _: &mut Vec<Definedness>| cast(a, to);
        prop_assert_eq!(concrete(c, &a, &a), symbolic_then_ground(c, &a, &a));
        let ty = if op == UnOp::LogNot { IntTy::INT } else { from };
        let u = |a: &Value, _: &Value, d: &mut Vec<Definedness>| unary(op, a, ty, d);
        let (cv, cok) = concrete(u, &a, &a);
        let (sv, sok) = symbolic_then_ground(u, &a, &a);
        prop_assert_eq!(cok, sok);
        if cok { prop_assert_eq!(cv, sv); }
    }
}

#[test]
fn c_division_truncates_toward_zero() {
    let mut d = Vec::new();
    let r = binary(BinOp::Div, &Value::from_i128(-7, IntTy::INT), &Value::from_i128(2, IntTy::INT), IntTy::INT, &mut d);
    assert_eq!(r.known(), Some(-3));
    let r = binary(BinOp::Rem, &Value::from_i128(-7, IntTy::INT), &Value::from_i128(2, IntTy::INT), IntTy::INT, &mut d);
    assert_eq!(r.known(), Some(-1));
    assert!(d.is_empty());
}

#[test]
fn signed_overflow_is_reported_not_wrapped_silently() {
    let mut d = Vec::new();
    binary(
        BinOp::Add,
        &Value::from_i128(i32::MAX as i128, IntTy::INT),
        &Value::from_i128(1, IntTy::INT),
        IntTy::INT,
        &mut d,
    );
    assert!(matches!(d[0].holds, Truth::Known(false)));
    let mut d = Vec::new();
    let r = binary(
        BinOp::Add,
        &Value::from_i128(u32::MAX as i128, IntTy::UINT),
        &Value::from_i128(1, IntTy::UINT),
        IntTy::UINT,
        &mut d,
    );
    assert!(d.is_empty(), "unsigned arithmetic wraps");
    assert_eq!(r.known(), Some(0));
}

#[test]
fn conversion_to_bool_tests_against_zero() {
    assert_eq!(cast(&Value::from_i128(256, IntTy::INT), IntTy::BOOL).known(), Some(1));
    assert_eq!(cast(&Value::from_i128(256, IntTy::INT), IntTy::UCHAR).known(), Some(0));
    assert_eq!(cast(&Value::from_i128(-1, IntTy::CHAR), IntTy::UINT).known(), Some(u32::MAX as i128));
}

#[test]
fn solver_decides_feasibility_and_models() {
    let mut smt = Smt::new(crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(10)));
    let x = BV::new_const("x", 32);
    let c1 = x.bvsgt(BV::from_i64(5, 32));
    let c2 = x.bvslt(BV::from_i64(7, 32));
    assert_eq!(smt.check(std::slice::from_ref(&c1), &[&c2]), Feasibility::Feasible);
    let c3 = x.eq(BV::from_i64(9, 32));
    assert_eq!(smt.check(&[c1.clone(), c2.clone()], &[&c3]), Feasibility::Infeasible);
    let vals = smt.model_values(&[c1, c2], &[x]).expect("model");
    assert_eq!(vals, vec![6]);
}

#[test]
fn pinned_symbols_are_recognised() {
    let x = BV::new_const("pin", 32);
    let c = x.eq(BV::from_u64(42, 32));
    let (s, v) = pinned_symbol(&c).expect("pattern");
    assert_eq!(s, x);
    assert_eq!(v.as_u64(), Some(42));
    assert!(pinned_symbol(&x.bvsgt(BV::from_u64(1, 32))).is_none());
    // A witness assumption `x == 42` is the int value `x == 42 ? 1 : 0` tested `!= 0`: its
    // truth is the equation again, so the product can substitute the symbol.
    let v = Value::from_truth(&Truth::Sym(x.eq(BV::from_u64(42, 32))));
    let Truth::Sym(t) = v.truth() else { panic!("symbolic") };
    assert!(pinned_symbol(&t).is_some(), "{t}");
    // `!(x == 42)` is `ite(c, 0, 1)`-shaped after `LogNot`: its truth is `not c`, no equation.
    let mut d = Vec::new();
    let n = unary(UnOp::LogNot, &v, IntTy::INT, &mut d);
    let Truth::Sym(n) = n.truth() else { panic!("symbolic") };
    assert!(pinned_symbol(&n).is_none());
}

/// Decisions 72, 73, 112: which undefined-behaviour conditions are property violations is set
/// where each condition is made, not read from its wording.
#[test]
fn violation_kinds_are_set_where_the_conditions_are_made() {
    use super::value::ViolationKind;
    let kinds = |op: BinOp, x: i128, y: i128| {
        let mut d = Vec::new();
        binary(op, &Value::from_i128(x, IntTy::INT), &Value::from_i128(y, IntTy::INT), IntTy::INT, &mut d);
        d.iter().map(|d| d.violation_kind()).collect::<Vec<_>>()
    };
    assert_eq!(kinds(BinOp::Add, i32::MAX as i128, 1), vec![Some(ViolationKind::Overflow)]);
    assert_eq!(kinds(BinOp::Div, i32::MIN as i128, -1), vec![Some(ViolationKind::Overflow)]);
    assert_eq!(kinds(BinOp::Shl, 4096, 20), vec![Some(ViolationKind::ShiftOverflow)]);
    assert_eq!(kinds(BinOp::Div, 1, 0), vec![None]);
    assert_eq!(kinds(BinOp::Shl, 1, 40), vec![None]);
    // The wording plays no part: a reworded violation stays one, and a modelling gap is none.
    let d = |kind, unmodelled| Definedness { holds: Truth::Known(false), what: "reworded".into(), unmodelled, kind };
    assert_eq!(d(Some(ViolationKind::Deref), false).violation_kind(), Some(ViolationKind::Deref));
    assert_eq!(d(Some(ViolationKind::Deref), true).violation_kind(), None);
    assert_eq!(d(None, false).violation_kind(), None);
}
