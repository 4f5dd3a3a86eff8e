//! IEEE 754 floating-point values (`float`, `double`), concrete or symbolic (Z3 `FloatingPoint`
//! terms), and C's operations on them, all rounding to nearest, ties to even.
//!
//! As for integers, every operation has a concrete fast path (Rust's `f32`/`f64` arithmetic,
//! which is IEEE 754 with round-to-nearest-even for `+ - * /`, `sqrt` and conversions) and a
//! symbolic path (Z3's floating-point theory) with the same semantics; a property test checks
//! that they agree bit for bit (modulo NaN payloads, which Z3 does not model: it has one NaN).
//!
//! Nondeterministic floats are built from a fresh bit-vector of the type's width read as an
//! IEEE bit pattern, so every pattern (NaNs, infinities, signed zeros, subnormals) is possible
//! and the model gives the bits back for traces.

use z3::ast::{Ast, Bool, Float, RoundingMode, BV};
use z3::{Context, Sort};
use z3_sys::Z3_ast;

use super::value::{Definedness, Truth, Val, Value};
use crate::cfa::{BinOp, FClass, FMath, FloatTy, IntTy, Libm};
pub use crate::floatbits::{conc_cast, conc_from_int, render, to_f64};

/// The value of a floating-point expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FVal {
    /// IEEE bit pattern (low `bits()` bits).
    Conc(u64),
    Sym(Float),
}

/// A typed floating-point value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FValue {
    pub val: FVal,
    pub fty: FloatTy,
}

fn sort(fty: FloatTy) -> Sort {
    let (e, s) = fty.ebits_sbits();
    Sort::float(e, s)
}

fn rne() -> RoundingMode {
    RoundingMode::round_nearest_ties_to_even()
}

/// Wraps a raw Z3 float term made by `z3_sys`.
fn wrap(ast: Option<Z3_ast>) -> Float {
    let ctx = Context::thread_local();
    let ast = ast.expect("Z3 returned no term for a floating-point conversion");
    // SAFETY: `ast` was just created in the thread-local context by a Z3 API call that returns
    // a floating-point term; `wrap` takes its own reference.
    unsafe { Float::wrap(&ctx, ast) }
}

/// The float whose IEEE bit pattern is the bit-vector `bv` (of the type's width).
pub fn from_bits_term(bv: &BV, fty: FloatTy) -> Float {
    let ctx = Context::thread_local();
    // SAFETY: valid context, a bit-vector term of matching width and a floating-point sort.
    wrap(unsafe { z3_sys::Z3_mk_fpa_to_fp_bv(ctx.get_z3_context(), bv.get_z3_ast(), sort(fty).get_z3_sort()) })
}

/// Integer (signed or unsigned bit-vector) to float, rounded to nearest even.
fn int_term_to_float(bv: &BV, signed: bool, fty: FloatTy) -> Float {
    let ctx = Context::thread_local();
    let rm = rne();
    let (c, r, t, s) = (ctx.get_z3_context(), rm.get_z3_ast(), bv.get_z3_ast(), sort(fty).get_z3_sort());
    // SAFETY: valid context, rounding-mode term, bit-vector term and floating-point sort.
    wrap(unsafe {
        if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed(c, r, t, s)
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned(c, r, t, s)
        }
    })
}

fn mask(fty: FloatTy) -> u64 {
    if fty.bits() == 64 {
        u64::MAX
    } else {
        (1u64 << fty.bits()) - 1
    }
}

impl FValue {
    pub fn conc(bits: u64, fty: FloatTy) -> FValue {
        FValue { val: FVal::Conc(bits & mask(fty)), fty }
    }
    /// A symbolic value; folded to a constant when Z3 simplifies it to a numeral.
    pub fn sym(t: Float, fty: FloatTy) -> FValue {
        match numeral_bits(&t, fty) {
            Some(b) => FValue::conc(b, fty),
            None => FValue { val: FVal::Sym(t), fty },
        }
    }
    /// The float whose bits are the integer value `bits` (a nondeterministic pattern, or bits from a model).
    pub fn from_bits(bits: &Value, fty: FloatTy) -> FValue {
        match &bits.val {
            Val::Conc(b) => FValue::conc(*b, fty),
            Val::Sym(t) => FValue { val: FVal::Sym(from_bits_term(t, fty)), fty },
        }
    }
    /// The value as a Z3 term.
    pub fn term(&self) -> Float {
        match &self.val {
            FVal::Conc(b) => conc_term(*b, self.fty),
            FVal::Sym(t) => t.clone(),
        }
    }
    #[cfg(test)]
    pub fn is_conc(&self) -> Option<u64> {
        match self.val {
            FVal::Conc(b) => Some(b),
            FVal::Sym(_) => None,
        }
    }
}

/// The IEEE bits of a term Z3 simplifies to a numeral (a NaN gives the default quiet NaN:
/// Z3 has a single NaN, and its bit pattern is unspecified).
pub fn numeral_bits(t: &Float, fty: FloatTy) -> Option<u64> {
    let s = t.simplify();
    if !(s.is_const() && is_numeral(&s)) {
        return None;
    }
    if s.decl().kind() == z3::DeclKind::FPA_NAN {
        return Some(fty.bits_of(f64::NAN));
    }
    s.to_ieee_bv().simplify().as_u64()
}

fn is_numeral(f: &Float) -> bool {
    let d = f.decl();
    matches!(
        d.kind(),
        z3::DeclKind::FPA_NUM
            | z3::DeclKind::FPA_PLUS_INF
            | z3::DeclKind::FPA_MINUS_INF
            | z3::DeclKind::FPA_NAN
            | z3::DeclKind::FPA_PLUS_ZERO
            | z3::DeclKind::FPA_MINUS_ZERO
    )
}

/// A constant as a Z3 term (exact for every bit pattern).
pub fn conc_term(bits: u64, fty: FloatTy) -> Float {
    from_bits_term(&BV::from_u64(bits & mask(fty), fty.bits()), fty)
}

fn select_f(c: &Truth, a: &FValue, b: &FValue) -> FValue {
    match c {
        Truth::Known(true) => a.clone(),
        Truth::Known(false) => b.clone(),
        Truth::Sym(c) => {
            if a == b {
                a.clone()
            } else {
                FValue::sym(c.ite(&a.term(), &b.term()), a.fty)
            }
        }
    }
}

/// `c ? a : b` on values of the same type.
pub fn select(c: &Truth, a: &FValue, b: &FValue) -> FValue {
    select_f(c, a, b)
}

// ----------------------------------------------------------------- concrete operations

fn conc_unop(fty: FloatTy, x: u64, f32op: impl Fn(f32) -> f32, f64op: impl Fn(f64) -> f64) -> u64 {
    match fty {
        FloatTy::F32 => f32op(f32::from_bits(x as u32)).to_bits() as u64,
        FloatTy::F64 => f64op(f64::from_bits(x)).to_bits(),
    }
}

fn conc_binop(fty: FloatTy, x: u64, y: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match fty {
        FloatTy::F32 => f32op(f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits() as u64,
        FloatTy::F64 => f64op(f64::from_bits(x), f64::from_bits(y)).to_bits(),
    }
}

/// C's `round`: to nearest, ties away from zero (Rust's `round` does exactly this).
pub fn conc_math(func: FMath, fty: FloatTy, x: u64) -> u64 {
    match func {
        FMath::Fabs => x & (mask(fty) >> 1),
        FMath::Sqrt => conc_unop(fty, x, f32::sqrt, f64::sqrt),
        FMath::Floor => conc_unop(fty, x, f32::floor, f64::floor),
        FMath::Ceil => conc_unop(fty, x, f32::ceil, f64::ceil),
        FMath::Trunc => conc_unop(fty, x, f32::trunc, f64::trunc),
        FMath::Round => conc_unop(fty, x, f32::round, f64::round),
    }
}

/// A libm function on constant arguments, computed by the platform's libm (Rust's `f64::sin`
/// and friends call it; on Linux that is glibc, as for the programs). `Fmod` is exact.
pub fn conc_libm(func: Libm, fty: FloatTy, args: &[u64]) -> u64 {
    fn go<F: num_like::Fl>(func: Libm, a: &[F]) -> F {
        let x = a[0];
        let y = a.get(1).copied().unwrap_or(x);
        match func {
            Libm::Fmod => x.fmod(y),
            Libm::Sin => x.sin(),
            Libm::Cos => x.cos(),
            Libm::Tan => x.tan(),
            Libm::Asin => x.asin(),
            Libm::Acos => x.acos(),
            Libm::Atan => x.atan(),
            Libm::Atan2 => x.atan2(y),
            Libm::Sinh => x.sinh(),
            Libm::Cosh => x.cosh(),
            Libm::Tanh => x.tanh(),
            Libm::Exp => x.exp(),
            Libm::Exp2 => x.exp2(),
            Libm::Expm1 => x.exp_m1(),
            Libm::Log => x.ln(),
            Libm::Log2 => x.log2(),
            Libm::Log10 => x.log10(),
            Libm::Log1p => x.ln_1p(),
            Libm::Pow => x.powf(y),
            Libm::Hypot => x.hypot(y),
        }
    }
    match fty {
        FloatTy::F32 => {
            let a: Vec<f32> = args.iter().map(|b| f32::from_bits(*b as u32)).collect();
            go(func, &a).to_bits() as u64
        }
        FloatTy::F64 => {
            let a: Vec<f64> = args.iter().map(|b| f64::from_bits(*b)).collect();
            go(func, &a).to_bits()
        }
    }
}

/// The neighbour of `x` toward +infinity (`up`) or -infinity in `fty` (NaN and the infinity in
/// that direction stay; both zeros step to the smallest subnormal).
pub fn ulp_step(x: u64, fty: FloatTy, up: bool) -> u64 {
    let (e, sb) = fty.ebits_sbits();
    let frac = sb - 1;
    let sign = 1u64 << (e + frac);
    let exp_mask = ((1u64 << e) - 1) << frac; // the bits of +infinity
    let mag = x & !sign;
    if mag > exp_mask {
        return x; // NaN
    }
    let neg = x & sign != 0;
    if mag == 0 {
        return if up { 1 } else { sign | 1 };
    }
    if mag == exp_mask && neg != up {
        return x; // +inf upward, -inf downward
    }
    // Away from zero when the direction matches the sign, else toward zero.
    if neg != up {
        x + 1
    } else {
        x - 1
    }
}

mod num_like {
    /// The operations of `f32` and `f64` that [`super::conc_libm`] needs.
    pub trait Fl: Copy {
        fn fmod(self, y: Self) -> Self;
        fn sin(self) -> Self;
        fn cos(self) -> Self;
        fn tan(self) -> Self;
        fn asin(self) -> Self;
        fn acos(self) -> Self;
        fn atan(self) -> Self;
        fn atan2(self, y: Self) -> Self;
        fn sinh(self) -> Self;
        fn cosh(self) -> Self;
        fn tanh(self) -> Self;
        fn exp(self) -> Self;
        fn exp2(self) -> Self;
        fn exp_m1(self) -> Self;
        fn ln(self) -> Self;
        fn log2(self) -> Self;
        fn log10(self) -> Self;
        fn ln_1p(self) -> Self;
        fn powf(self, y: Self) -> Self;
        fn hypot(self, y: Self) -> Self;
    }
    macro_rules! imp {
        ($t:ty) => {
            impl Fl for $t {
                fn fmod(self, y: Self) -> Self {
                    self % y
                }
                fn sin(self) -> Self {
                    <$t>::sin(self)
                }
                fn cos(self) -> Self {
                    <$t>::cos(self)
                }
                fn tan(self) -> Self {
                    <$t>::tan(self)
                }
                fn asin(self) -> Self {
                    <$t>::asin(self)
                }
                fn acos(self) -> Self {
                    <$t>::acos(self)
                }
                fn atan(self) -> Self {
                    <$t>::atan(self)
                }
                fn atan2(self, y: Self) -> Self {
                    <$t>::atan2(self, y)
                }
                fn sinh(self) -> Self {
                    <$t>::sinh(self)
                }
                fn cosh(self) -> Self {
                    <$t>::cosh(self)
                }
                fn tanh(self) -> Self {
                    <$t>::tanh(self)
                }
                fn exp(self) -> Self {
                    <$t>::exp(self)
                }
                fn exp2(self) -> Self {
                    <$t>::exp2(self)
                }
                fn exp_m1(self) -> Self {
                    <$t>::exp_m1(self)
                }
                fn ln(self) -> Self {
                    <$t>::ln(self)
                }
                fn log2(self) -> Self {
                    <$t>::log2(self)
                }
                fn log10(self) -> Self {
                    <$t>::log10(self)
                }
                fn ln_1p(self) -> Self {
                    <$t>::ln_1p(self)
                }
                fn powf(self, y: Self) -> Self {
                    <$t>::powf(self, y)
                }
                fn hypot(self, y: Self) -> Self {
                    <$t>::hypot(self, y)
                }
            }
        };
    }
    imp!(f32);
    imp!(f64);
}

/// Symbolic counterpart of [`conc_math`].
pub fn sym_math(func: FMath, x: &Float) -> Float {
    match func {
        FMath::Fabs => x.unary_abs(),
        FMath::Sqrt => x.sqrt_with_rounding_mode(&rne()),
        FMath::Floor => x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_negative()),
        FMath::Ceil => x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_positive()),
        FMath::Trunc => x.round_to_integral_with_rounding_mode(&RoundingMode::round_towards_zero()),
        FMath::Round => x.round_to_integral_with_rounding_mode(&RoundingMode::round_nearest_ties_to_away()),
    }
}

/// Floating-point comparisons (the comparison operators of [`BinOp`] on floating-point
/// operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl FCmp {
    /// The comparison a [`BinOp`] makes on floating-point operands.
    pub fn of(op: BinOp) -> Option<FCmp> {
        Some(match op {
            BinOp::Eq => FCmp::Eq,
            BinOp::Ne => FCmp::Ne,
            BinOp::Lt => FCmp::Lt,
            BinOp::Le => FCmp::Le,
            BinOp::Gt => FCmp::Gt,
            BinOp::Ge => FCmp::Ge,
            _ => return None,
        })
    }
}

/// Binary floating-point arithmetic (rounded to nearest, ties to even): the arithmetic
/// operators of [`BinOp`] on floating-point operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FBinOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl FBinOp {
    /// The operation a [`BinOp`] makes on floating-point operands.
    pub fn of(op: BinOp) -> Option<FBinOp> {
        Some(match op {
            BinOp::Add => FBinOp::Add,
            BinOp::Sub => FBinOp::Sub,
            BinOp::Mul => FBinOp::Mul,
            BinOp::Div => FBinOp::Div,
            _ => return None,
        })
    }
}

pub fn conc_binary(op: FBinOp, fty: FloatTy, x: u64, y: u64) -> u64 {
    match op {
        FBinOp::Add => conc_binop(fty, x, y, |a, b| a + b, |a, b| a + b),
        FBinOp::Sub => conc_binop(fty, x, y, |a, b| a - b, |a, b| a - b),
        FBinOp::Mul => conc_binop(fty, x, y, |a, b| a * b, |a, b| a * b),
        FBinOp::Div => conc_binop(fty, x, y, |a, b| a / b, |a, b| a / b),
    }
}

pub fn sym_binary(op: FBinOp, a: &Float, b: &Float) -> Float {
    let r = rne();
    match op {
        FBinOp::Add => a.add_with_rounding_mode(b, &r),
        FBinOp::Sub => a.sub_with_rounding_mode(b, &r),
        FBinOp::Mul => a.mul_with_rounding_mode(b, &r),
        FBinOp::Div => a.div_with_rounding_mode(b, &r),
    }
}

pub fn conc_cmp(op: FCmp, fty: FloatTy, x: u64, y: u64) -> bool {
    let (a, b) = (to_f64(x, fty), to_f64(y, fty));
    match op {
        FCmp::Eq => a == b,
        FCmp::Ne => a != b,
        FCmp::Lt => a < b,
        FCmp::Le => a <= b,
        FCmp::Gt => a > b,
        FCmp::Ge => a >= b,
    }
}

pub fn sym_cmp(op: FCmp, a: &Float, b: &Float) -> Bool {
    match op {
        FCmp::Eq => a.eq_fpa(b),
        FCmp::Ne => a.eq_fpa(b).not(),
        FCmp::Lt => a.lt(b),
        FCmp::Le => a.le(b),
        FCmp::Gt => a.gt(b),
        FCmp::Ge => a.ge(b),
    }
}

pub fn sym_cast(a: &Float, to: FloatTy) -> Float {
    a.to_fp_with_rounding_mode(&rne(), &sort(to))
}

pub fn sym_from_int(t: &BV, ty: IntTy, fty: FloatTy) -> Float {
    int_term_to_float(t, ty.signed && !ty.is_bool, fty)
}

// ----------------------------------------------------------------- operations on values

pub fn neg(a: &FValue) -> FValue {
    match a.val {
        FVal::Conc(b) => FValue::conc(b ^ (1u64 << (a.fty.bits() - 1)), a.fty),
        FVal::Sym(ref t) => FValue { val: FVal::Sym(t.unary_neg()), fty: a.fty },
    }
}

pub fn binary(op: FBinOp, a: &FValue, b: &FValue) -> FValue {
    match (&a.val, &b.val) {
        (FVal::Conc(x), FVal::Conc(y)) => FValue::conc(conc_binary(op, a.fty, *x, *y), a.fty),
        _ => FValue::sym(sym_binary(op, &a.term(), &b.term()), a.fty),
    }
}

pub fn math(func: FMath, a: &FValue) -> FValue {
    match a.val {
        FVal::Conc(x) => FValue::conc(conc_math(func, a.fty, x), a.fty),
        FVal::Sym(ref t) => FValue::sym(sym_math(func, t), a.fty),
    }
}

pub fn cast(a: &FValue, to: FloatTy) -> FValue {
    if a.fty == to {
        return a.clone();
    }
    match a.val {
        FVal::Conc(x) => FValue::conc(conc_cast(x, a.fty, to), to),
        FVal::Sym(ref t) => FValue::sym(sym_cast(t, to), to),
    }
}

pub fn from_int(v: &Value, fty: FloatTy) -> FValue {
    match v.known() {
        Some(i) => FValue::conc(conc_from_int(i, fty), fty),
        None => FValue::sym(sym_from_int(&v.term(), v.ty, fty), fty),
    }
}

pub fn compare(op: FCmp, a: &FValue, b: &FValue) -> Truth {
    match (&a.val, &b.val) {
        (FVal::Conc(x), FVal::Conc(y)) => Truth::Known(conc_cmp(op, a.fty, *x, *y)),
        _ => Truth::Sym(sym_cmp(op, &a.term(), &b.term())),
    }
}

/// Classification predicates. `signbit` is exact on constants; on symbolic values it needs the
/// sign of a NaN, which Z3's theory does not model, so it is refused (the caller says unknown).
pub fn classify(class: FClass, a: &FValue) -> Result<Truth, String> {
    match a.val {
        FVal::Conc(x) => {
            let v = to_f64(x, a.fty);
            Ok(Truth::Known(match class {
                FClass::IsNan => v.is_nan(),
                FClass::IsInf => v.is_infinite(),
                FClass::IsFinite => v.is_finite(),
                FClass::IsNormal => match a.fty {
                    FloatTy::F32 => f32::from_bits(x as u32).is_normal(),
                    FloatTy::F64 => v.is_normal(),
                },
                FClass::SignBit => x >> (a.fty.bits() - 1) & 1 == 1,
            }))
        }
        FVal::Sym(ref t) => Ok(Truth::Sym(match class {
            FClass::IsNan => t.is_nan(),
            FClass::IsInf => t.is_infinite(),
            FClass::IsFinite => Bool::or(&[&t.is_nan(), &t.is_infinite()]).not(),
            FClass::IsNormal => t.is_normal(),
            FClass::SignBit => {
                return Err("signbit of a symbolic floating-point value (NaN signs are not modelled)".into())
            }
        })),
    }
}

/// `2^k` as a float constant term of type `fty` (exact for k ≤ 64).
fn pow2(k: u32, fty: FloatTy, negative: bool) -> u64 {
    let v = 2f64.powi(k as i32);
    fty.bits_of(if negative { -v } else { v })
}

/// Float to integer (C11 6.3.1.4): truncation toward zero; undefined unless the truncated
/// value is representable. To `_Bool`: `a != 0`.
pub fn to_int(a: &FValue, to: IntTy, defined: &mut Vec<Definedness>) -> Value {
    if to.is_bool {
        let nz = compare(FCmp::Ne, a, &FValue::conc(0, a.fty));
        return match nz {
            Truth::Known(b) => Value::conc(b as u64, to),
            Truth::Sym(b) => Value::sym(b.ite(&BV::from_u64(1, 8), &BV::from_u64(0, 8)), to),
        };
    }
    // In range iff lo <= trunc(a) < hi, with lo and hi powers of two (exact in both types).
    let (lo, hi) = if to.signed {
        (pow2(to.bits - 1, a.fty, true), pow2(to.bits - 1, a.fty, false))
    } else {
        (0, pow2(to.bits, a.fty, false))
    };
    let what = format!("conversion of a floating-point value out of the range of {} (C11 6.3.1.4)", to.describe());
    match a.val {
        FVal::Conc(x) => {
            let t = to_f64(conc_math(FMath::Trunc, a.fty, x), a.fty);
            let ok = t >= to_f64(lo, a.fty) && t < to_f64(hi, a.fty);
            if !ok {
                defined.push(Definedness {
                    unmodelled: false,
                    holds: Truth::Known(false),
                    what: format!("{what}: {}", render(x, a.fty)),
                    kind: None,
                });
                return Value::conc(0, to);
            }
            let i = t as i128;
            Value::from_i128(i, to)
        }
        FVal::Sym(ref t) => {
            let tr = sym_math(FMath::Trunc, t);
            let ok = Bool::and(&[&tr.ge(conc_term(lo, a.fty)), &tr.lt(conc_term(hi, a.fty))]);
            defined.push(Definedness { unmodelled: false, holds: Truth::Sym(ok), what, kind: None });
            let rtz = RoundingMode::round_towards_zero();
            let bv = if to.signed {
                t.to_sbv_with_rounding_mode(&rtz, to.bits)
            } else {
                t.to_ubv_with_rounding_mode(&rtz, to.bits)
            };
            Value::sym(bv, to)
        }
    }
}

/// The IEEE bit pattern of a value, as an unsigned integer of the type's width, and the
/// condition under which it is exact. Constants and values read from bits (nondeterministic
/// floats, type punning) give their bits exactly. Otherwise Z3's `fp.to_ieee_bv` is exact
/// except for NaN, whose payload and sign Z3 does not model (and the machine's depends on the
/// operation), so the second component is "not NaN" (a modelling gap, not undefined behaviour).
pub fn to_bits(a: &FValue) -> (Value, Option<Bool>) {
    let ty = IntTy::new(a.fty.bits(), false);
    match &a.val {
        FVal::Conc(b) => (Value::conc(*b, ty), None),
        FVal::Sym(t) => {
            use z3::ast::Dynamic;
            if t.decl().kind() == z3::DeclKind::FPA_TO_FP && t.num_children() == 1 {
                if let Some(bv) = Dynamic::from_ast(t).nth_child(0).and_then(|c| c.as_bv()) {
                    if bv.get_size() == a.fty.bits() {
                        return (Value::sym(bv, ty), None);
                    }
                }
            }
            let ctx = Context::thread_local();
            // SAFETY: valid context and a floating-point term of this context.
            let raw = unsafe { z3_sys::Z3_mk_fpa_to_ieee_bv(ctx.get_z3_context(), t.get_z3_ast()) };
            let raw = raw.expect("Z3 returned no term for fp.to_ieee_bv");
            // SAFETY: `raw` is a bit-vector term just created in the thread-local context.
            let bv = unsafe { BV::wrap(&ctx, raw) };
            (Value::sym(bv, ty), Some(t.is_nan().not()))
        }
    }
}
