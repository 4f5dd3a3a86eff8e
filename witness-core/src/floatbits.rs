//! Concrete `float`/`double` values as IEEE bit patterns (`Expr::Const` of a float type): conversions and
//! rendering shared by the front end's constant folding and the data domain. Pure Rust
//! arithmetic, round-to-nearest-even; no solver (a leaf module: it depends on the IR's
//! `FloatTy` only).

use crate::cfa::FloatTy;

/// A concrete value as `f64` (exact for both types).
pub fn to_f64(bits: u64, fty: FloatTy) -> f64 {
    match fty {
        FloatTy::F32 => f32::from_bits(bits as u32) as f64,
        FloatTy::F64 => f64::from_bits(bits),
    }
}

/// Decimal rendering for traces (`NAN`, `INFINITY`, shortest round-trip decimal otherwise).
pub fn render(bits: u64, fty: FloatTy) -> String {
    let v = to_f64(bits, fty);
    if v.is_nan() {
        return if v.is_sign_negative() { "-NAN".into() } else { "NAN".into() };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-INFINITY".into() } else { "INFINITY".into() };
    }
    match fty {
        FloatTy::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        FloatTy::F64 => format!("{v:?}"),
    }
}

/// Float to float conversion (exact when widening; rounds to nearest even when narrowing).
pub fn conc_cast(x: u64, from: FloatTy, to: FloatTy) -> u64 {
    match (from, to) {
        (FloatTy::F32, FloatTy::F64) => (f32::from_bits(x as u32) as f64).to_bits(),
        (FloatTy::F64, FloatTy::F32) => (f64::from_bits(x) as f32).to_bits() as u64,
        _ => x,
    }
}

/// Integer (its mathematical value) to float, rounded to nearest even (Rust's `as` does this).
pub fn conc_from_int(v: i128, fty: FloatTy) -> u64 {
    match fty {
        FloatTy::F32 => (v as f32).to_bits() as u64,
        FloatTy::F64 => (v as f64).to_bits(),
    }
}
