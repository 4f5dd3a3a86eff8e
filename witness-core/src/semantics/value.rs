//! Integer values, concrete or symbolic (Z3 bit-vectors), and C's operations on them.
//!
//! Every operation has a concrete fast path (both operands known: plain machine arithmetic, no
//! solver) and a symbolic path (Z3 bit-vector terms) with *identical* semantics; a property
//! test checks that they agree. Operations report undefined behaviour (signed overflow,
//! division by zero, shift out of range, …) as [`Definedness`] conditions instead of guessing.

use z3::ast::{Ast, Bool, BV};

use crate::cfa::{BinOp, IntTy, UnOp};

/// The bits of a value: known, or a Z3 term of the type's width.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Val {
    /// Value masked to the type's width.
    Conc(u64),
    Sym(BV),
}

/// A typed integer value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Value {
    pub val: Val,
    pub ty: IntTy,
}

/// A truth value, concrete or symbolic.
#[derive(Debug, Clone)]
pub enum Truth {
    Known(bool),
    Sym(Bool),
}

impl Truth {
    pub fn not(&self) -> Truth {
        match self {
            Truth::Known(b) => Truth::Known(!b),
            Truth::Sym(b) => Truth::Sym(b.not()),
        }
    }
    pub fn and(&self, other: &Truth) -> Truth {
        match (self, other) {
            (Truth::Known(false), _) | (_, Truth::Known(false)) => Truth::Known(false),
            (Truth::Known(true), x) | (x, Truth::Known(true)) => x.clone(),
            (Truth::Sym(a), Truth::Sym(b)) => Truth::Sym(Bool::and(&[a, b])),
        }
    }
    pub fn or(&self, other: &Truth) -> Truth {
        self.not().and(&other.not()).not()
    }
    /// `self → other`.
    pub fn implies(&self, other: &Truth) -> Truth {
        self.not().or(other)
    }
}

/// A condition under which an operation is defined, with what would go wrong otherwise.
#[derive(Debug, Clone)]
pub struct Definedness {
    pub holds: Truth,
    pub what: String,
    /// The condition marks a modelling gap (e.g. the bits of a NaN), not undefined behaviour:
    /// if it may fail, the path is unknown whatever the undefined-behaviour policy.
    pub unmodelled: bool,
    /// The property violation the condition guards against (decisions 72, 73, 112), if any;
    /// `None`: undefined behaviour that is no property's violation.
    pub kind: Option<ViolationKind>,
}

/// Which property violation a condition guards against (decisions 72, 73), if it is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViolationKind {
    /// A signed `+`, `-`, `*`, `/`, `%` or negation whose result does not fit its type.
    Overflow,
    /// A signed `<<` whose result does not fit its type.
    ShiftOverflow,
    /// An access through a null, dangling (freed) pointer or outside its object.
    Deref,
    /// A `free` of something that is not the start of a live heap block.
    Free,
}

impl Definedness {
    /// The violation this condition guards against: its [`Definedness::kind`], set where the
    /// condition is made (decision 112: never read from the wording of `what`).
    pub fn violation_kind(&self) -> Option<ViolationKind> {
        // A modelling gap is never a violation, whatever it says.
        if self.unmodelled {
            return None;
        }
        self.kind
    }
}

/// Sign-extends the low `bits` of `v` to i128 (or zero-extends for unsigned types).
pub fn as_i128(bits: u64, ty: IntTy) -> i128 {
    if ty.signed && ty.bits < 128 {
        let shift = 64 - ty.bits;
        (((bits << shift) as i64) >> shift) as i128
    } else {
        bits as i128
    }
}

fn mask(v: i128, ty: IntTy) -> u64 {
    (v as u64) & ty.mask()
}

impl Value {
    pub fn conc(bits: u64, ty: IntTy) -> Value {
        Value { val: Val::Conc(bits & ty.mask()), ty }
    }
    pub fn from_i128(v: i128, ty: IntTy) -> Value {
        Value { val: Val::Conc(mask(v, ty)), ty }
    }
    pub fn sym(term: BV, ty: IntTy) -> Value {
        // Constant folding keeps the concrete fast path available after substitutions.
        // The unsimplified term is kept otherwise: its structure (extensions, sums) is what
        // `bounds` reads, and the solver simplifies on its own.
        match term.simplify().as_u64() {
            Some(bits) => Value::conc(bits, ty),
            None => Value { val: Val::Sym(term), ty },
        }
    }
    /// A fresh unconstrained value (`_Bool` callers must add `v <= 1` themselves: see
    /// [`Value::range_constraint`]).
    #[cfg(test)]
    pub fn fresh(prefix: &str, ty: IntTy) -> Value {
        Value { val: Val::Sym(BV::fresh_const(prefix, ty.bits)), ty }
    }
    /// The constraint a fresh value of this type must satisfy (only `_Bool` has one).
    pub fn range_constraint(&self) -> Option<Bool> {
        match (&self.val, self.ty.is_bool) {
            (Val::Sym(t), true) => Some(t.bvule(BV::from_u64(1, self.ty.bits))),
            _ => None,
        }
    }
    /// The value as a Z3 term.
    pub fn term(&self) -> BV {
        match &self.val {
            Val::Conc(b) => BV::from_u64(*b, self.ty.bits),
            Val::Sym(t) => t.clone(),
        }
    }
    /// Known value as a mathematical integer.
    pub fn known(&self) -> Option<i128> {
        match self.val {
            Val::Conc(b) => Some(as_i128(b, self.ty)),
            Val::Sym(_) => None,
        }
    }
    /// `self != 0`. A comparison's value `c ? 1 : 0` gives back `c` itself, so that a witness
    /// assumption `x == 5` stays the equation the product substitutes (`pinned_symbol`).
    pub fn truth(&self) -> Truth {
        match &self.val {
            Val::Conc(b) => Truth::Known(*b != 0),
            Val::Sym(t) => {
                if let Some(c) = ite_condition(t) {
                    return Truth::Sym(c);
                }
                Truth::Sym(t.eq(BV::from_u64(0, self.ty.bits)).not())
            }
        }
    }
    /// An `int` 0 or 1 from a truth value.
    pub fn from_truth(t: &Truth) -> Value {
        match t {
            Truth::Known(b) => Value::conc(*b as u64, IntTy::INT),
            Truth::Sym(b) => Value::sym(b.ite(&BV::from_u64(1, 32), &BV::from_u64(0, 32)), IntTy::INT),
        }
    }
    /// `c ? a : b` on values of the same type.
    pub fn select(c: &Truth, a: &Value, b: &Value) -> Value {
        match c {
            Truth::Known(true) => a.clone(),
            Truth::Known(false) => b.clone(),
            Truth::Sym(c) => {
                if a == b {
                    a.clone()
                } else {
                    // Not `Value::sym`: the condition is symbolic, so the if-then-else cannot fold
                    // to a constant, and simplifying it at every cell of a symbolic-offset load
                    // made such loads quadratic (seconds inside `Z3_simplify`, past the deadline).
                    Value { val: Val::Sym(c.ite(&a.term(), &b.term())), ty: a.ty }
                }
            }
        }
    }
    /// Equality of two values of the same type.
    pub fn equals(&self, other: &Value) -> Truth {
        match (&self.val, &other.val) {
            (Val::Conc(a), Val::Conc(b)) => Truth::Known(a == b),
            _ => Truth::Sym(self.term().eq(other.term())),
        }
    }
}

/// Conversion to another integer type (C11 6.3.1.2/6.3.1.3; signed narrowing wraps, as gcc does).
pub fn cast(v: &Value, to: IntTy) -> Value {
    if to.is_bool {
        let t = v.truth();
        return match t {
            Truth::Known(b) => Value::conc(b as u64, to),
            Truth::Sym(b) => Value::sym(b.ite(&BV::from_u64(1, 8), &BV::from_u64(0, 8)), to),
        };
    }
    match &v.val {
        Val::Conc(b) => Value::from_i128(as_i128(*b, v.ty), to),
        Val::Sym(t) => {
            let from = v.ty.bits;
            let term = if to.bits == from {
                t.clone()
            } else if to.bits < from {
                t.extract(to.bits - 1, 0)
            } else if v.ty.signed {
                t.sign_ext(to.bits - from)
            } else {
                t.zero_ext(to.bits - from)
            };
            Value::sym(term, to)
        }
    }
}

fn ub(what: String) -> Definedness {
    Definedness { unmodelled: false, holds: Truth::Known(false), what, kind: None }
}

/// A definite violation of `kind` (decision 112).
fn definite(kind: ViolationKind, what: String) -> Definedness {
    Definedness { unmodelled: false, holds: Truth::Known(false), what, kind: Some(kind) }
}

/// Unary operation; the operand already has the result type (except `LogNot`).
pub fn unary(op: UnOp, a: &Value, ty: IntTy, defined: &mut Vec<Definedness>) -> Value {
    match op {
        UnOp::LogNot => Value::from_truth(&a.truth().not()),
        UnOp::BitNot => match &a.val {
            Val::Conc(b) => Value::conc(!b, ty),
            Val::Sym(t) => Value::sym(t.bvnot(), ty),
        },
        UnOp::Neg => match &a.val {
            Val::Conc(b) => {
                let x = as_i128(*b, ty);
                if ty.signed && -x > ty.max_value() {
                    defined.push(definite(ViolationKind::Overflow, format!("signed overflow in -({x})")));
                }
                Value::from_i128(-x, ty)
            }
            Val::Sym(t) => {
                if ty.signed {
                    let min = BV::from_u64(mask(ty.min_value(), ty), ty.bits);
                    defined.push(Definedness {
                        unmodelled: false,
                        kind: Some(ViolationKind::Overflow),
                        holds: Truth::Sym(t.eq(&min).not()),
                        what: "signed overflow in negation".into(),
                    });
                }
                Value::sym(t.bvneg(), ty)
            }
        },
    }
}

/// Binary operation. For arithmetic/bitwise operators both operands have type `ty`; for
/// comparisons both have a common type and the result is `int`; for shifts the right operand
/// keeps its own type; `LogAnd`/`LogOr` take any operand types (the caller evaluates the right
/// operand only where needed and guards its definedness).
pub fn binary(op: BinOp, a: &Value, b: &Value, ty: IntTy, defined: &mut Vec<Definedness>) -> Value {
    if let (Val::Conc(x), Val::Conc(y)) = (&a.val, &b.val) {
        return binary_conc(op, *x, a.ty, *y, b.ty, ty, defined);
    }
    binary_sym(op, a, b, ty, defined)
}

fn binary_conc(op: BinOp, xb: u64, xt: IntTy, yb: u64, yt: IntTy, ty: IntTy, defined: &mut Vec<Definedness>) -> Value {
    let x = as_i128(xb, xt);
    let y = as_i128(yb, yt);
    let in_range = |v: i128| v >= ty.min_value() && v <= ty.max_value();
    let arith = |v: i128, sym: &str, defined: &mut Vec<Definedness>| {
        if ty.signed && !in_range(v) {
            defined.push(definite(
                ViolationKind::Overflow,
                format!("signed overflow in {x} {sym} {y} ({})", ty.describe()),
            ));
        }
        Value::from_i128(v, ty)
    };
    let cmp = |b: bool| Value::conc(b as u64, IntTy::INT);
    match op {
        BinOp::Add => arith(x + y, "+", defined),
        BinOp::Sub => arith(x - y, "-", defined),
        BinOp::Mul => arith(x.wrapping_mul(y), "*", defined),
        BinOp::Div | BinOp::Rem => {
            if y == 0 {
                defined.push(ub(format!("division by zero ({x} {} 0)", if op == BinOp::Div { "/" } else { "%" })));
                return Value::conc(0, ty);
            }
            let q = x / y; // Rust truncates toward zero, as C does
            if ty.signed && !in_range(q) {
                // `INT_MIN % -1` overflows too (C11 6.5.5p6: its quotient is not representable);
                // the message names the program's operator (issue 51 cause 7).
                let sym = if op == BinOp::Div { "/" } else { "%" };
                defined.push(definite(ViolationKind::Overflow, format!("signed overflow in {x} {sym} {y}")));
                return Value::conc(0, ty);
            }
            if op == BinOp::Div {
                Value::from_i128(q, ty)
            } else {
                Value::from_i128(x % y, ty)
            }
        }
        BinOp::Shl | BinOp::Shr => {
            if y < 0 || y >= ty.bits as i128 {
                defined.push(ub(format!("shift by {y} in a {}-bit type", ty.bits)));
                return Value::conc(0, ty);
            }
            if op == BinOp::Shr {
                return Value::from_i128(x >> y, ty); // arithmetic for signed (gcc), logical for unsigned
            }
            if ty.signed {
                let r = x << y;
                if x < 0 || !in_range(r) {
                    defined.push(definite(ViolationKind::ShiftOverflow, format!("signed overflow in {x} << {y}")));
                }
                return Value::from_i128(r, ty);
            }
            Value::conc(((x as u128) << y) as u64, ty)
        }
        BinOp::BitAnd => Value::conc(xb & yb, ty),
        BinOp::BitOr => Value::conc(xb | yb, ty),
        BinOp::BitXor => Value::conc(xb ^ yb, ty),
        BinOp::Eq => cmp(x == y),
        BinOp::Ne => cmp(x != y),
        BinOp::Lt => cmp(x < y),
        BinOp::Le => cmp(x <= y),
        BinOp::Gt => cmp(x > y),
        BinOp::Ge => cmp(x >= y),
        BinOp::LogAnd => cmp(x != 0 && y != 0),
        BinOp::LogOr => cmp(x != 0 || y != 0),
    }
}

fn binary_sym(op: BinOp, a: &Value, b: &Value, ty: IntTy, defined: &mut Vec<Definedness>) -> Value {
    let bool_val = |t: Bool| Value::from_truth(&Truth::Sym(t));
    match op {
        BinOp::LogAnd => return Value::from_truth(&a.truth().and(&b.truth())),
        BinOp::LogOr => return Value::from_truth(&a.truth().or(&b.truth())),
        _ => {}
    }
    let x = a.term();
    let signed = a.ty.signed;
    let zero = BV::from_u64(0, ty.bits);
    if op.is_boolean() {
        if let Some(k) = compare_by_bounds(op, a, b) {
            return Value::conc(k as u64, IntTy::INT);
        }
    }
    match op {
        BinOp::Eq => return bool_val(x.eq(b.term())),
        BinOp::Ne => return bool_val(x.eq(b.term()).not()),
        BinOp::Lt => return bool_val(if signed { x.bvslt(b.term()) } else { x.bvult(b.term()) }),
        BinOp::Le => return bool_val(if signed { x.bvsle(b.term()) } else { x.bvule(b.term()) }),
        BinOp::Gt => return bool_val(if signed { x.bvsgt(b.term()) } else { x.bvugt(b.term()) }),
        BinOp::Ge => return bool_val(if signed { x.bvsge(b.term()) } else { x.bvuge(b.term()) }),
        _ => {}
    }
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        // Right operand: any type. Defined iff 0 <= y < width.
        let width = ty.bits as u64;
        let in_range = match &b.val {
            Val::Conc(yb) => {
                let y = as_i128(*yb, b.ty);
                Truth::Known(y >= 0 && y < width as i128)
            }
            Val::Sym(yt) => {
                let w = BV::from_u64(width, b.ty.bits);
                let lt = yt.bvult(&w); // unsigned < width also excludes negative values
                Truth::Sym(lt)
            }
        };
        // Under the definedness condition y < width <= 64, so its low bits are exact.
        let y = cast(b, IntTy::new(ty.bits, false)).term();
        let y = match (&in_range, &b.val) {
            (Truth::Known(false), _) => BV::from_u64(0, ty.bits),
            _ => y,
        };
        defined.push(Definedness {
            unmodelled: false,
            kind: None,
            holds: in_range,
            what: format!("shift amount out of range for a {}-bit type", ty.bits),
        });
        if op == BinOp::Shr {
            return Value::sym(if ty.signed { x.bvashr(&y) } else { x.bvlshr(&y) }, ty);
        }
        let r = x.bvshl(&y);
        if ty.signed {
            // Defined iff x >= 0 and no bit is shifted into or past the sign bit: (r >> y) == x and r >= 0.
            let ok = Bool::and(&[&x.bvsge(&zero), &r.bvashr(&y).eq(&x), &r.bvsge(&zero)]);
            defined.push(Definedness {
                unmodelled: false,
                kind: Some(ViolationKind::ShiftOverflow),
                holds: Truth::Sym(ok),
                what: "signed overflow in left shift".into(),
            });
        }
        return Value::sym(r, ty);
    }
    let y = b.term();
    let r = match op {
        BinOp::Add => {
            if ty.signed && !fits_by_bounds(op, a, b, ty) {
                let ok = fits_signed(&x.sign_ext(1).bvadd(y.sign_ext(1)), ty.bits);
                defined.push(Definedness {
                    unmodelled: false,
                    kind: Some(ViolationKind::Overflow),
                    holds: Truth::Sym(ok),
                    what: "signed overflow in +".into(),
                });
            }
            x.bvadd(&y)
        }
        BinOp::Sub => {
            if ty.signed && !fits_by_bounds(op, a, b, ty) {
                let ok = fits_signed(&x.sign_ext(1).bvsub(y.sign_ext(1)), ty.bits);
                defined.push(Definedness {
                    unmodelled: false,
                    kind: Some(ViolationKind::Overflow),
                    holds: Truth::Sym(ok),
                    what: "signed overflow in -".into(),
                });
            }
            x.bvsub(&y)
        }
        BinOp::Mul => {
            if ty.signed && !fits_by_bounds(op, a, b, ty) {
                let ok = fits_signed(&x.sign_ext(ty.bits).bvmul(y.sign_ext(ty.bits)), ty.bits);
                defined.push(Definedness {
                    unmodelled: false,
                    kind: Some(ViolationKind::Overflow),
                    holds: Truth::Sym(ok),
                    what: "signed overflow in *".into(),
                });
            }
            x.bvmul(&y)
        }
        BinOp::Div | BinOp::Rem => {
            let yb = sbounds(b);
            if yb.0 <= 0 && 0 <= yb.1 {
                let nonzero = y.eq(&zero).not();
                defined.push(Definedness {
                    unmodelled: false,
                    kind: None,
                    holds: Truth::Sym(nonzero),
                    what: "possible division by zero".into(),
                });
            }
            if ty.signed && sbounds(a).0 <= ty.min_value() && yb.0 <= -1 && -1 <= yb.1 {
                let min = BV::from_u64(mask(ty.min_value(), ty), ty.bits);
                let minus_one = BV::from_u64(ty.mask(), ty.bits);
                defined.push(Definedness {
                    unmodelled: false,
                    kind: Some(ViolationKind::Overflow),
                    holds: Truth::Sym(Bool::and(&[&x.eq(&min), &y.eq(&minus_one)]).not()),
                    what: if op == BinOp::Div { "signed overflow in /" } else { "signed overflow in %" }.into(),
                });
            }
            match (op, ty.signed) {
                (BinOp::Div, true) => x.bvsdiv(&y),
                (BinOp::Div, false) => x.bvudiv(&y),
                (_, true) => x.bvsrem(&y),
                (_, false) => x.bvurem(&y),
            }
        }
        BinOp::BitAnd => x.bvand(&y),
        BinOp::BitOr => x.bvor(&y),
        BinOp::BitXor => x.bvxor(&y),
        _ => unreachable!("handled above"),
    };
    Value::sym(r, ty)
}

/// Does the (wider) two's complement term `wide` fit in `bits` signed bits?
fn fits_signed(wide: &BV, bits: u32) -> Bool {
    let extra = wide.get_size() - bits;
    wide.extract(bits - 1, 0).sign_ext(extra).eq(wide)
}

/// Signed (or, for unsigned types, unsigned) range of a value as mathematical integers.
fn sbounds(v: &Value) -> (i128, i128) {
    match &v.val {
        Val::Conc(b) => {
            let x = as_i128(*b, v.ty);
            (x, x)
        }
        Val::Sym(t) => {
            let b = super::bounds::bounds(t);
            if v.ty.signed {
                b.signed
            } else {
                (b.unsigned.0 as i128, b.unsigned.1 as i128)
            }
        }
    }
}

/// Does the exact result of `a op b` certainly fit in `ty` (judging by the operands' ranges)?
fn fits_by_bounds(op: BinOp, a: &Value, b: &Value, ty: IntTy) -> bool {
    let (al, ah) = sbounds(a);
    let (bl, bh) = sbounds(b);
    let (lo, hi) = match op {
        BinOp::Add => (al + bl, ah + bh),
        BinOp::Sub => (al - bh, ah - bl),
        BinOp::Mul => {
            let p = [al * bl, al * bh, ah * bl, ah * bh];
            (*p.iter().min().unwrap_or(&0), *p.iter().max().unwrap_or(&0))
        }
        _ => return false,
    };
    lo >= ty.min_value() && hi <= ty.max_value()
}

/// Decides a comparison from the operands' ranges, if they do not overlap in the relevant way.
fn compare_by_bounds(op: BinOp, a: &Value, b: &Value) -> Option<bool> {
    if matches!(op, BinOp::LogAnd | BinOp::LogOr) || a.ty.signed != b.ty.signed {
        return None;
    }
    let (al, ah) = sbounds(a);
    let (bl, bh) = sbounds(b);
    match op {
        BinOp::Lt if ah < bl => Some(true),
        BinOp::Lt if al >= bh => Some(false),
        BinOp::Le if ah <= bl => Some(true),
        BinOp::Le if al > bh => Some(false),
        BinOp::Gt if al > bh => Some(true),
        BinOp::Gt if ah <= bl => Some(false),
        BinOp::Ge if al >= bh => Some(true),
        BinOp::Ge if ah < bl => Some(false),
        BinOp::Eq | BinOp::Ne if ah < bl || bh < al => Some(op == BinOp::Ne),
        _ => None,
    }
}

/// `c` if `t` is `ite(c, 1, 0)`, `not c` if it is `ite(c, 0, 1)` (the value of a comparison).
fn ite_condition(t: &BV) -> Option<z3::ast::Bool> {
    use z3::ast::{Ast, Dynamic};
    if t.decl().kind() != z3::DeclKind::ITE || t.num_children() != 3 {
        return None;
    }
    let d = Dynamic::from_ast(t);
    let c = d.nth_child(0)?.as_bool()?;
    let (a, b) = (d.nth_child(1)?.as_bv()?.as_u64()?, d.nth_child(2)?.as_bv()?.as_u64()?);
    match (a, b) {
        (1, 0) => Some(c),
        (0, 1) => Some(c.not()),
        _ => None,
    }
}
