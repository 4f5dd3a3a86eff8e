//! C types as the front end sees them, C's integer conversion rules, and typed construction
//! of IR expressions (shared by program lowering and witness assumption lowering).

use lang_c::ast;

use crate::cfa::{BinOp, CType, DataModel, Expr, FloatTy, IntTy, ScalarTy, UnOp};

/// A C type (more than the IR models, so that messages can say what is unsupported).
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Void,
    Int(IntTy),
    Float(&'static str),
    Pointer(Box<Ty>),
    Array(Box<Ty>, Option<u64>),
    Struct(String),
    Func(Box<FuncTy>),
    /// Something not modelled; the text says what.
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FuncTy {
    pub ret: Ty,
    /// `None`: no prototype (`int f()`).
    pub params: Option<Vec<Ty>>,
    pub variadic: bool,
}

impl Ty {
    pub fn describe(&self, dm: DataModel) -> String {
        match self {
            Ty::Void => "void".into(),
            Ty::Int(t) => int_name(*t, dm),
            Ty::Float(n) => (*n).into(),
            Ty::Pointer(t) => format!("{}*", t.describe(dm)),
            Ty::Array(t, n) => match n {
                Some(n) => format!("{}[{n}]", t.describe(dm)),
                None => format!("{}[]", t.describe(dm)),
            },
            Ty::Struct(s) => s.clone(),
            Ty::Func(_) => "function".into(),
            Ty::Other(s) => s.clone(),
        }
    }

    /// The IR's view of this type.
    pub fn to_ctype(&self, dm: DataModel) -> CType {
        match self {
            Ty::Void => CType::Void,
            Ty::Int(t) => CType::Int(*t),
            Ty::Float(_) => match self.float_ty() {
                Some(f) => CType::Float(f),
                None => CType::Unsupported(self.describe(dm)),
            },
            Ty::Array(..) => {
                let mut dims = Vec::new();
                let mut t = self;
                while let Ty::Array(inner, n) = t {
                    match n {
                        Some(n) if *n > 0 => dims.push(*n),
                        _ => return CType::Unsupported(self.describe(dm)),
                    }
                    t = inner;
                }
                match t {
                    Ty::Int(e) => CType::Array { elem: *e, dims },
                    Ty::Float(_) => match t.float_ty() {
                        Some(elem) => CType::FloatArray { elem, dims },
                        None => CType::Unsupported(self.describe(dm)),
                    },
                    _ => CType::Unsupported(self.describe(dm)),
                }
            }
            Ty::Pointer(_) => CType::Ptr,
            _ => CType::Unsupported(self.describe(dm)),
        }
    }

    /// `float` / `double`; `None` for other types (`long double` is not modelled).
    pub fn float_ty(&self) -> Option<FloatTy> {
        match self {
            Ty::Float("float") => Some(FloatTy::F32),
            Ty::Float("double") => Some(FloatTy::F64),
            _ => None,
        }
    }

    /// `__alignof__` (gcc's preferred alignment) of a scalar or an array of scalars, where it
    /// differs from the ABI alignment `_Alignof` gives: `long long` and `double` (and arrays of
    /// them) under i386 are preferred at 8 bytes, though aligned to 4 in structs (decision 101).
    pub fn preferred_align(&self, dm: DataModel) -> Option<u64> {
        let mut t = self;
        while let Ty::Array(inner, _) = t {
            t = inner;
        }
        match t {
            Ty::Int(i) if dm.long_bits() == 32 && i.bits == 64 => Some(8),
            Ty::Float("double") if dm.long_bits() == 32 => Some(8),
            _ => None,
        }
    }

    /// `sizeof`, if known.
    pub fn size(&self, dm: DataModel) -> Option<u64> {
        match self {
            Ty::Int(t) => Some(t.bits as u64 / 8),
            Ty::Float(n) => match *n {
                "float" => Some(4),
                "double" => Some(8),
                // gcc: 80-bit x87 format in 12 bytes (i386) or 16 (x86-64) (decision 101).
                "long double" => Some(if dm.long_bits() == 64 { 16 } else { 12 }),
                // `_Complex`, `__int128`, `_FloatN`: not known here.
                _ => None,
            },
            Ty::Pointer(_) => Some(dm.long_bits() as u64 / 8),
            Ty::Array(t, Some(n)) => t.size(dm)?.checked_mul(*n),
            _ => None,
        }
    }
}

/// C spelling of an integer type in the data model.
pub fn int_name(t: IntTy, dm: DataModel) -> String {
    if t.is_bool {
        return "_Bool".into();
    }
    if !matches!(t.bits, 8 | 16 | 32 | 64) {
        // A bit-field's type.
        return format!("{}int : {}", if t.signed { "" } else { "unsigned " }, t.bits);
    }
    let base = match t.bits {
        8 => "char",
        16 => "short",
        32 => "int",
        _ => {
            if dm.long_bits() == 64 {
                "long"
            } else {
                "long long"
            }
        }
    };
    if t.signed {
        if t.bits == 8 {
            "signed char".into()
        } else {
            base.into()
        }
    } else {
        format!("unsigned {base}")
    }
}

pub fn long_ty(dm: DataModel, signed: bool) -> IntTy {
    IntTy::new(dm.long_bits(), signed)
}

/// Type `size_t` / result of `sizeof`.
pub fn size_t(dm: DataModel) -> IntTy {
    long_ty(dm, false)
}

/// Base type from the type-specifier keywords of a declaration (typedef names, structs and
/// enums are handled by the caller). `Err` for an invalid combination.
#[derive(Default, Debug)]
pub struct SpecCounter {
    pub void: bool,
    pub char: bool,
    pub short: bool,
    pub int: bool,
    pub long: u32,
    pub signed: bool,
    pub unsigned: bool,
    pub bool_: bool,
    pub float: bool,
    pub double: bool,
    pub complex: bool,
}

impl SpecCounter {
    pub fn add(&mut self, s: &ast::TypeSpecifier) -> bool {
        use ast::TypeSpecifier as T;
        match s {
            T::Void => self.void = true,
            T::Char => self.char = true,
            T::Short => self.short = true,
            T::Int => self.int = true,
            T::Long => self.long += 1,
            T::Float => self.float = true,
            T::Double => self.double = true,
            T::Signed => self.signed = true,
            T::Unsigned => self.unsigned = true,
            T::Bool => self.bool_ = true,
            T::Complex => self.complex = true,
            _ => return false,
        }
        true
    }
    pub fn any(&self) -> bool {
        self.void
            || self.char
            || self.short
            || self.int
            || self.long > 0
            || self.signed
            || self.unsigned
            || self.bool_
            || self.float
            || self.double
            || self.complex
    }
    pub fn resolve(&self, dm: DataModel) -> Ty {
        if self.complex {
            return Ty::Float("`_Complex` or `__int128` (not modelled)");
        }
        if self.float {
            return Ty::Float("float");
        }
        if self.double {
            return Ty::Float(if self.long > 0 { "long double" } else { "double" });
        }
        if self.void {
            return Ty::Void;
        }
        if self.bool_ {
            return Ty::Int(IntTy::BOOL);
        }
        let signed = !self.unsigned;
        let bits = if self.char {
            8
        } else if self.short {
            16
        } else if self.long >= 2 {
            64
        } else if self.long == 1 {
            dm.long_bits()
        } else {
            32
        };
        Ty::Int(IntTy::new(bits, signed))
    }
}

/// Integer promotion (C11 6.3.1.1).
pub fn promote_ty(t: IntTy) -> IntTy {
    if t.is_bool || t.bits < 32 {
        IntTy::INT
    } else {
        IntTy::new(t.bits, t.signed)
    }
}

/// Usual arithmetic conversions (C11 6.3.1.8) on promoted types.
pub fn common_ty(a: IntTy, b: IntTy) -> IntTy {
    let a = promote_ty(a);
    let b = promote_ty(b);
    if a == b {
        return a;
    }
    if a.signed == b.signed {
        return if a.bits >= b.bits { a } else { b };
    }
    let (u, s) = if a.signed { (b, a) } else { (a, b) };
    if u.bits >= s.bits {
        u
    } else {
        s
    }
}

/// Converts `e` to `to` (explicit cast; constants are folded).
pub fn conv(e: Expr, to: IntTy) -> Expr {
    if e.ity() == to {
        return e;
    }
    if let Some((bits, ty)) = e.as_int_const() {
        return Expr::int_const(convert_bits(bits, ty, to), to);
    }
    Expr::Cast { arg: Box::new(e), to: ScalarTy::Int(to) }
}

/// Value of `bits` (of type `from`) as a sign/zero-extended i128.
pub fn value_of(bits: u64, from: IntTy) -> i128 {
    let b = bits & from.mask();
    if from.signed && from.bits < 128 && (b >> (from.bits - 1)) & 1 == 1 {
        (b as i128) - (1i128 << from.bits)
    } else {
        b as i128
    }
}

pub fn convert_bits(bits: u64, from: IntTy, to: IntTy) -> u64 {
    if to.is_bool {
        return u64::from(bits & from.mask() != 0);
    }
    (value_of(bits, from) as u64) & to.mask()
}

pub fn promote(e: Expr) -> Expr {
    let t = promote_ty(e.ity());
    conv(e, t)
}

/// Folds a constant expression to (bits, type).
pub fn fold(e: &Expr) -> Option<(u64, IntTy)> {
    Some(match e {
        Expr::Const { bits, ty: ScalarTy::Int(ty) } => (*bits & ty.mask(), *ty),
        Expr::Cast { arg, to: ScalarTy::Int(to) } => {
            let (b, t) = fold(arg)?;
            (convert_bits(b, t, *to), *to)
        }
        Expr::Unary { op, arg, ty: ScalarTy::Int(ty) } => {
            let (b, t) = fold(arg)?;
            let v = value_of(b, t);
            let r: i128 = match op {
                UnOp::Neg => -v,
                UnOp::BitNot => !v,
                UnOp::LogNot => i128::from(v == 0),
            };
            ((r as u64) & ty.mask(), *ty)
        }
        Expr::Binary { op, lhs, rhs, ty: ScalarTy::Int(ty) } => {
            let (lb, lt) = fold(lhs)?;
            let (rb, rt) = fold(rhs)?;
            let l = value_of(lb, lt);
            let r = value_of(rb, rt);
            let r: i128 = match op {
                BinOp::Add => l.wrapping_add(r),
                BinOp::Sub => l.wrapping_sub(r),
                BinOp::Mul => {
                    let m = (lb as u128).wrapping_mul(rb as u128);
                    m as i128
                }
                BinOp::Div => {
                    if r == 0 {
                        return None;
                    }
                    l / r
                }
                BinOp::Rem => {
                    if r == 0 {
                        return None;
                    }
                    l % r
                }
                BinOp::Shl => {
                    if !(0..ty.bits as i128).contains(&r) {
                        return None;
                    }
                    ((lb as u128) << r) as i128
                }
                BinOp::Shr => {
                    if !(0..ty.bits as i128).contains(&r) {
                        return None;
                    }
                    l >> r
                }
                BinOp::BitAnd => l & r,
                BinOp::BitOr => l | r,
                BinOp::BitXor => l ^ r,
                BinOp::Eq => i128::from(l == r),
                BinOp::Ne => i128::from(l != r),
                BinOp::Lt => i128::from(l < r),
                BinOp::Le => i128::from(l <= r),
                BinOp::Gt => i128::from(l > r),
                BinOp::Ge => i128::from(l >= r),
                BinOp::LogAnd => i128::from(l != 0 && r != 0),
                BinOp::LogOr => i128::from(l != 0 || r != 0),
            };
            ((r as u64) & ty.mask(), *ty)
        }
        Expr::Ite { cond, then, els, ty: ScalarTy::Int(ty) } => {
            let (cb, _) = fold(cond)?;
            let (b, t) = if cb != 0 { fold(then)? } else { fold(els)? };
            (convert_bits(b, t, *ty), *ty)
        }
        _ => return None,
    })
}

pub fn fold_i128(e: &Expr) -> Option<i128> {
    fold(e).map(|(b, t)| value_of(b, t))
}

/// The conversions C applies to a value of arithmetic type (an integer or floating-point
/// [`Expr`]; its `ty()` tells which), as methods of the expression.
pub trait Arith: Sized {
    /// Conversion as by assignment to an integer type (C11 6.3.1.4 for floats).
    fn into_int(self, to: IntTy) -> Expr;
    /// Conversion as by assignment to a floating-point type.
    fn into_float(self, to: FloatTy) -> Expr;
    /// The value as a condition: an integer expression that is nonzero iff the value is
    /// (for floats `x != 0.0`, true for NaN; for pointers `p != NULL`).
    fn truth(self) -> Expr;
    /// The integer expression, or an error naming `what` for a floating-point value.
    fn int(self, what: &str) -> Result<Expr, String>;
}

impl Arith for Expr {
    fn into_int(self, to: IntTy) -> Expr {
        match self.ty() {
            ScalarTy::Float(_) => Expr::Cast { arg: Box::new(self), to: ScalarTy::Int(to) },
            _ => conv(self, to),
        }
    }
    fn into_float(self, to: FloatTy) -> Expr {
        match self.ty() {
            ScalarTy::Float(_) => fconv(self, to),
            _ => match fold(&self) {
                Some((bits, ty)) => Expr::float_const(crate::floatbits::conc_from_int(value_of(bits, ty), to), to),
                None => Expr::Cast { arg: Box::new(self), to: ScalarTy::Float(to) },
            },
        }
    }
    fn truth(self) -> Expr {
        match self.ty() {
            ScalarTy::Int(_) => self,
            ScalarTy::Float(f) => compare(BinOp::Ne, self, Expr::float_const(0, f)),
            ScalarTy::Ptr => compare(BinOp::Ne, self, Expr::Null),
        }
    }
    fn int(self, what: &str) -> Result<Expr, String> {
        match self.ty() {
            ScalarTy::Float(_) => Err(format!("floating-point value {what} where an integer is needed")),
            _ => Ok(self),
        }
    }
}

/// A `long long` constant (a byte count or offset).
pub fn llong(k: i128) -> Expr {
    Expr::Const { bits: k as u64, ty: ScalarTy::Int(IntTy::LLONG) }
}

/// `k * size` as a `long long` byte count (`k` an integer; no multiplication for size 1).
pub fn scaled(k: Expr, size: u64) -> Expr {
    let k = conv(promote(k), IntTy::LLONG);
    if size == 1 {
        k
    } else {
        binary(BinOp::Mul, k, llong(size as i128))
    }
}

/// The pointer `p` moved by `bytes` (a `long long`; no node when it is the constant 0).
pub fn offset(p: Expr, bytes: Expr) -> Expr {
    if matches!(bytes, Expr::Const { bits: 0, ty: ScalarTy::Int(_) }) {
        p
    } else {
        Expr::Offset { base: Box::new(p), bytes: Box::new(bytes) }
    }
}

/// Converts a floating-point expression to `to` (constants folded).
pub fn fconv(f: Expr, to: FloatTy) -> Expr {
    let from = f.fty();
    if from == to {
        return f;
    }
    if let Expr::Const { bits, .. } = f {
        return Expr::float_const(crate::floatbits::conc_cast(bits, from, to), to);
    }
    Expr::Cast { arg: Box::new(f), to: ScalarTy::Float(to) }
}

/// A comparison of two operands already of one type (floats of one width, or pointers, which
/// take no conversions); yields `int`.
pub fn compare(op: BinOp, l: Expr, r: Expr) -> Expr {
    debug_assert!(op.is_boolean() && !matches!(op, BinOp::LogAnd | BinOp::LogOr));
    Expr::Binary { op, lhs: Box::new(l), rhs: Box::new(r), ty: ScalarTy::Int(IntTy::INT) }
}

/// Usual arithmetic conversions when at least one operand is floating (C11 6.3.1.8): both
/// operands converted to the wider floating type (an integer operand to the floating one).
pub fn float_operands(l: Expr, r: Expr) -> (Expr, Expr) {
    let (fl, fr) = (l.float_ty(), r.float_ty());
    let t = fl.max(fr).unwrap_or(FloatTy::F64);
    (l.into_float(t), r.into_float(t))
}

/// Typed C binary operator on arithmetic values (integers or floats).
pub fn binary_any(op: BinOp, l: Expr, r: Expr) -> Result<Expr, String> {
    // By value: cloning the operands here made a chain of n `+` quadratic (20k terms: 18 s).
    let (l, r) = match (l, r) {
        (a, b) if a.int_ty().is_some() && b.int_ty().is_some() => return Ok(binary(op, a, b)),
        lr => lr,
    };
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {}
        BinOp::LogAnd | BinOp::LogOr => return Ok(binary(op, l.truth(), r.truth())),
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let (a, b) = float_operands(l, r);
            return Ok(compare(op, a, b));
        }
        _ => return Err(format!("operator {op:?} on a floating-point operand (invalid C)")),
    };
    let (a, b) = float_operands(l, r);
    let ty = a.ty();
    Ok(Expr::Binary { op, lhs: Box::new(a), rhs: Box::new(b), ty })
}

/// Typed C unary operator on arithmetic values.
pub fn unary_any(op: UnOp, a: Expr) -> Result<Expr, String> {
    match a {
        e if e.float_ty().is_none() => Ok(unary(op, e)),
        f => match op {
            UnOp::Neg => Ok(match f {
                Expr::Const { bits, ty: ScalarTy::Float(fty) } => {
                    Expr::float_const(bits ^ (1u64 << (fty.bits() - 1)), fty)
                }
                f => {
                    let ty = f.ty();
                    Expr::Unary { op: UnOp::Neg, arg: Box::new(f), ty }
                }
            }),
            UnOp::LogNot => {
                let z = Expr::float_const(0, f.fty());
                Ok(compare(BinOp::Eq, f, z))
            }
            UnOp::BitNot => Err("`~` on a floating-point operand (invalid C)".into()),
        },
    }
}

/// `c ? t : e` on arithmetic values (side-effect-free branches).
pub fn ite_any(c: Expr, t: Expr, e: Expr) -> Expr {
    match (t, e) {
        (t, e) if t.int_ty().is_some() && e.int_ty().is_some() => ite(c.truth(), t, e),
        (t, e) => {
            let (t, e) = float_operands(t, e);
            let ty = t.ty();
            Expr::Ite { cond: Box::new(c.truth()), then: Box::new(t), els: Box::new(e), ty }
        }
    }
}

/// A floating-point constant (C11 6.4.4.2), correctly rounded to its type (`f`: `float`, none:
/// `double`). `long double` constants and imaginary ones are not modelled.
pub fn float_constant(f: &ast::Float) -> Result<Expr, String> {
    if f.suffix.imaginary {
        return Err("imaginary constants are not supported".into());
    }
    let fty = match f.suffix.format {
        ast::FloatFormat::Float => FloatTy::F32,
        ast::FloatFormat::Double => FloatTy::F64,
        ast::FloatFormat::LongDouble => return Err("long double constant (long double is not supported yet)".into()),
        ast::FloatFormat::TS18661Format(_) => return Err("_FloatN constant (not supported)".into()),
    };
    let bits = match f.base {
        ast::FloatBase::Decimal => parse_decimal_float(&f.number, fty)?,
        ast::FloatBase::Hexadecimal => parse_hex_float(&f.number, fty)?,
    };
    Ok(Expr::float_const(bits, fty))
}

/// Decimal floating constant, correctly rounded (Rust's parser rounds to nearest even, directly
/// to the target type, so `0.1f` is not double-rounded).
pub fn parse_decimal_float(text: &str, fty: FloatTy) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("malformed floating constant `{t}`");
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')) {
        return Err(bad());
    }
    Ok(match fty {
        FloatTy::F32 => t.parse::<f32>().map_err(|_| bad())?.to_bits() as u64,
        FloatTy::F64 => t.parse::<f64>().map_err(|_| bad())?.to_bits(),
    })
}

/// Hexadecimal floating constant (`1.8p3`, with or without `0x`). Exact when the significand
/// fits the type and the result is normal; anything needing rounding is refused.
pub fn parse_hex_float(text: &str, fty: FloatTy) -> Result<u64, String> {
    let t = text.trim();
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    let bad = || format!("unsupported hexadecimal floating constant `{text}`");
    let (mant, exp) = t.split_once(['p', 'P']).ok_or_else(bad)?;
    let exp: i32 = exp.parse().map_err(|_| bad())?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 15 {
        return Err(bad());
    }
    let m = if digits.is_empty() { 0 } else { u64::from_str_radix(digits, 16).map_err(|_| bad())? };
    let e = exp - 4 * frac.len() as i32;
    let limit = match fty {
        FloatTy::F32 => 1u64 << 24,
        FloatTy::F64 => 1u64 << 53,
    };
    if m >= limit {
        return Err(bad());
    }
    let v = (m as f64) * 2f64.powi(e);
    let ok = match fty {
        FloatTy::F32 => (v as f32).is_normal() || m == 0,
        FloatTy::F64 => v.is_normal() || m == 0,
    };
    if !ok || e.abs() > 1000 {
        return Err(bad());
    }
    Ok(fty.bits_of(v))
}

/// Typed C binary operator (no assignments, no `&&`/`||` handling of side effects).
pub fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
    match op {
        BinOp::Shl | BinOp::Shr => {
            let l = promote(l);
            let r = promote(r);
            let ty = l.ty();
            Expr::Binary { op, lhs: Box::new(l), rhs: Box::new(r), ty }
        }
        BinOp::LogAnd | BinOp::LogOr => {
            Expr::Binary { op, lhs: Box::new(l), rhs: Box::new(r), ty: ScalarTy::Int(IntTy::INT) }
        }
        _ if op.is_boolean() => {
            let c = common_ty(l.ity(), r.ity());
            Expr::Binary { op, lhs: Box::new(conv(l, c)), rhs: Box::new(conv(r, c)), ty: ScalarTy::Int(IntTy::INT) }
        }
        _ => {
            let c = common_ty(l.ity(), r.ity());
            Expr::Binary { op, lhs: Box::new(conv(l, c)), rhs: Box::new(conv(r, c)), ty: ScalarTy::Int(c) }
        }
    }
}

pub fn unary(op: UnOp, a: Expr) -> Expr {
    match op {
        UnOp::LogNot => Expr::Unary { op, arg: Box::new(a), ty: ScalarTy::Int(IntTy::INT) },
        _ => {
            let a = promote(a);
            if let Some((bits, ty)) = a.as_int_const() {
                let v = value_of(bits, ty);
                let r = if op == UnOp::Neg { -v } else { !v };
                return Expr::int_const(r as u64, ty);
            }
            let ty = a.ty();
            Expr::Unary { op, arg: Box::new(a), ty }
        }
    }
}

/// Logical negation of a condition (`!c`).
pub fn not(c: Expr) -> Expr {
    Expr::Unary { op: UnOp::LogNot, arg: Box::new(c), ty: ScalarTy::Int(IntTy::INT) }
}

pub fn ite(c: Expr, t: Expr, e: Expr) -> Expr {
    let ty = common_ty(t.ity(), e.ity());
    Expr::Ite { cond: Box::new(c), then: Box::new(conv(t, ty)), els: Box::new(conv(e, ty)), ty: ScalarTy::Int(ty) }
}

/// `=` and the compound assignment operators.
pub fn is_assign_op(op: &ast::BinaryOperator) -> bool {
    use ast::BinaryOperator as B;
    matches!(
        op,
        B::Assign
            | B::AssignMultiply
            | B::AssignDivide
            | B::AssignModulo
            | B::AssignPlus
            | B::AssignMinus
            | B::AssignShiftLeft
            | B::AssignShiftRight
            | B::AssignBitwiseAnd
            | B::AssignBitwiseXor
            | B::AssignBitwiseOr
    )
}

pub fn map_binop(op: &ast::BinaryOperator) -> Option<BinOp> {
    use ast::BinaryOperator as B;
    Some(match op {
        B::Multiply | B::AssignMultiply => BinOp::Mul,
        B::Divide | B::AssignDivide => BinOp::Div,
        B::Modulo | B::AssignModulo => BinOp::Rem,
        B::Plus | B::AssignPlus => BinOp::Add,
        B::Minus | B::AssignMinus => BinOp::Sub,
        B::ShiftLeft | B::AssignShiftLeft => BinOp::Shl,
        B::ShiftRight | B::AssignShiftRight => BinOp::Shr,
        B::Less => BinOp::Lt,
        B::Greater => BinOp::Gt,
        B::LessOrEqual => BinOp::Le,
        B::GreaterOrEqual => BinOp::Ge,
        B::Equals => BinOp::Eq,
        B::NotEquals => BinOp::Ne,
        B::BitwiseAnd | B::AssignBitwiseAnd => BinOp::BitAnd,
        B::BitwiseXor | B::AssignBitwiseXor => BinOp::BitXor,
        B::BitwiseOr | B::AssignBitwiseOr => BinOp::BitOr,
        B::LogicalAnd => BinOp::LogAnd,
        B::LogicalOr => BinOp::LogOr,
        _ => return None,
    })
}

/// An integer constant with its C11 6.4.4.1 type.
pub fn integer_constant(i: &ast::Integer, dm: DataModel) -> Result<Expr, String> {
    if i.suffix.imaginary {
        return Err("imaginary constants are not supported".into());
    }
    let (radix, digits) = match i.base {
        ast::IntegerBase::Decimal => (10, &*i.number),
        ast::IntegerBase::Octal => (8, &*i.number),
        ast::IntegerBase::Hexadecimal => (16, &*i.number),
        ast::IntegerBase::Binary => (2, &*i.number),
    };
    let digits = if digits.is_empty() { "0" } else { digits };
    let v = u128::from_str_radix(digits, radix).map_err(|_| format!("integer constant `{digits}` is too large"))?;
    if v > u64::MAX as u128 {
        return Err(format!("integer constant `{digits}` is too large"));
    }
    let v = v as u64;
    let decimal = matches!(i.base, ast::IntegerBase::Decimal);
    let int = IntTy::INT;
    let uint = IntTy::UINT;
    let long = long_ty(dm, true);
    let ulong = long_ty(dm, false);
    let ll = IntTy::LLONG;
    let ull = IntTy::ULLONG;
    let cands: Vec<IntTy> = match (i.suffix.size, i.suffix.unsigned) {
        (ast::IntegerSize::Int, false) => {
            if decimal {
                vec![int, long, ll]
            } else {
                vec![int, uint, long, ulong, ll, ull]
            }
        }
        (ast::IntegerSize::Int, true) => vec![uint, ulong, ull],
        (ast::IntegerSize::Long, false) => {
            if decimal {
                vec![long, ll]
            } else {
                vec![long, ulong, ll, ull]
            }
        }
        (ast::IntegerSize::Long, true) => vec![ulong, ull],
        (ast::IntegerSize::LongLong, false) => {
            if decimal {
                vec![ll]
            } else {
                vec![ll, ull]
            }
        }
        (ast::IntegerSize::LongLong, true) => vec![ull],
    };
    let ty = cands.into_iter().find(|t| (v as i128) <= t.max_value()).unwrap_or(ull);
    Ok(Expr::int_const(v, ty))
}

/// Value of a C character constant (`'a'`, `'\n'`, `'\x41'`, `'\101'`), type `int` (plain
/// `char` is signed, so `'\xff'` is -1 as with gcc on x86).
pub fn char_constant(s: &str) -> Result<Expr, String> {
    let (prefix_wide, body) = if let Some(r) = s.strip_prefix('\'') {
        (false, r)
    } else if let Some(r) = s.strip_prefix("L'").or_else(|| s.strip_prefix("u'")).or_else(|| s.strip_prefix("U'")) {
        (true, r)
    } else {
        return Err(format!("character constant {s} not supported"));
    };
    let body = body.strip_suffix('\'').ok_or_else(|| format!("bad character constant {s}"))?;
    let vals = unescape(body)?;
    if vals.len() > 1 && !prefix_wide {
        // gcc: a multi-character constant is an `int` whose bytes are the characters, the
        // last one lowest (`'ab'` is 0x6162); of more than four, the last four count
        // (decision 102).
        if vals.iter().any(|&c| c > 0xff) {
            return Err(format!("character constant {s} not supported"));
        }
        let v = vals.iter().fold(0u32, |acc, &c| (acc << 8) | c);
        return Ok(Expr::int(v as i32 as i64));
    }
    if vals.len() != 1 {
        return Err(format!("multi-character constant {s} not supported"));
    }
    let v = vals[0];
    if prefix_wide {
        return Ok(Expr::int(v as i64));
    }
    if v > 0xff {
        return Err(format!("character constant {s} not supported"));
    }
    Ok(Expr::int(v as u8 as i8 as i64))
}

/// Decodes C escape sequences; non-escaped characters give their UTF-8 bytes.
pub fn unescape(body: &str) -> Result<Vec<u32>, String> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i] as u32);
            i += 1;
            continue;
        }
        i += 1;
        let c = *b.get(i).ok_or("bad escape")?;
        i += 1;
        let v = match c {
            b'n' => 10,
            b't' => 9,
            b'r' => 13,
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'e' => 27,
            b'\\' | b'\'' | b'"' | b'?' => c as u32,
            b'x' => {
                let mut v: u32 = 0;
                let mut n = 0;
                while i < b.len() && (b[i] as char).is_ascii_hexdigit() {
                    v = v.wrapping_mul(16).wrapping_add((b[i] as char).to_digit(16).unwrap_or(0));
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    return Err("bad \\x escape".into());
                }
                v
            }
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                v
            }
            _ => return Err(format!("unknown escape \\{}", c as char)),
        };
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_conversions() {
        assert_eq!(common_ty(IntTy::UCHAR, IntTy::UCHAR), IntTy::INT);
        assert_eq!(common_ty(IntTy::INT, IntTy::UINT), IntTy::UINT);
        assert_eq!(common_ty(IntTy::UINT, IntTy::LLONG), IntTy::LLONG);
        assert_eq!(common_ty(IntTy::ULLONG, IntTy::LLONG), IntTy::ULLONG);
        assert_eq!(common_ty(IntTy::BOOL, IntTy::SHORT), IntTy::INT);
        // Bit-fields narrower than int promote to int (C11 6.3.1.1p2), signed or not.
        assert_eq!(promote_ty(IntTy::new(1, true)), IntTy::INT);
        assert_eq!(promote_ty(IntTy::new(31, false)), IntTy::INT);
        assert_eq!(common_ty(IntTy::new(3, false), IntTy::UINT), IntTy::UINT);
        // Conversion to a bit-field wraps as gcc does: 9 in a signed 1-bit field is -1.
        assert_eq!(value_of(convert_bits(9, IntTy::INT, IntTy::new(1, true)), IntTy::new(1, true)), -1);
        assert_eq!(value_of(convert_bits(9, IntTy::INT, IntTy::new(4, true)), IntTy::new(4, true)), -7);
        assert_eq!(value_of(convert_bits(9, IntTy::INT, IntTy::new(2, false)), IntTy::new(2, false)), 1);
        assert_eq!(int_name(IntTy::new(4, true), DataModel::Lp64), "int : 4");
    }

    #[test]
    fn folding() {
        let e = binary(BinOp::Lt, unary(UnOp::Neg, Expr::int(1)), Expr::int_const(1, IntTy::UINT));
        assert_eq!(fold_i128(&e), Some(0)); // -1 < 1u is false
        assert_eq!(convert_bits(200, IntTy::UCHAR, IntTy::CHAR), (-56i64 as u64) & 0xff);
        assert_eq!(char_constant("'\\xff'").unwrap(), Expr::int(-1));
        assert_eq!(char_constant("'a'").unwrap(), Expr::int(97));
        assert_eq!(char_constant("'\\0'").unwrap(), Expr::int(0));
        // Multi-character constants as gcc computes them (checked with gcc -m32/-m64).
        assert_eq!(char_constant("'ab'").unwrap(), Expr::int(0x6162));
        assert_eq!(char_constant("'\\xff\\xff'").unwrap(), Expr::int(0xffff));
        assert_eq!(char_constant("'abcde'").unwrap(), Expr::int(0x62636465));
        assert_eq!(char_constant("'\\377\\377\\377\\377'").unwrap(), Expr::int(-1));
        assert!(char_constant("L'ab'").is_err());
    }
}
