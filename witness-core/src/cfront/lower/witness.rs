//! Witness expressions (assumptions and invariants) are lowered by the program's own lowering
//! (issue 33): a `Builder` in pure mode over the finished program, which it borrows, with the
//! names the expression uses bound as the program's scopes at the witness's location declare
//! them, and the readings only the witness language has: `\result`, `NAN`/`INFINITY`/`HUGE_VAL`,
//! `true`/`false`, NaN equality and bit-field patterns. The witness text's own syntax (`;`
//! conjuncts, `==>`, the legacy `x = 5`) is read before, in `assumption.rs`.

use std::collections::BTreeSet;

use super::*;
use crate::cfront::preprocess::Prepared;
use crate::cfront::AssumptionScope;
use crate::error::ConjunctError;

/// Reserved identifier standing for `\result` in the parsed text.
pub(crate) const RESULT: &str = "__witness_result__";

/// Reserved name of an ACSL range `(a .. b)` in the parsed text (decision 250).
pub(crate) const RANGE: &str = "__witness_range__";

/// The built-ins of the witness language (ACSL's, as CPAchecker writes them in memory-safety
/// witnesses) by their reserved names in the parsed text: `\valid(p)`, `\valid_read(p)`.
pub(crate) const BUILTINS: [(&str, &str); 2] =
    [("\\valid_read(", "__witness_valid_read__("), ("\\valid(", "__witness_valid__(")];

/// What a `Builder` lowering a witness expression knows beyond the program.
pub(crate) struct Witness {
    /// The function whose scope the expression is read in (`global` at file scope), for messages.
    scope: String,
    /// ACSL (decision 232): integer operations over the mathematical integers.
    acsl: bool,
}

/// Lowers the witness expression `e`, parsed from `text`, read at `scope` of the program `cfa`,
/// to its value (an integer or floating-point expression).
pub(crate) fn lower(
    cfa: &Cfa,
    e: &Node<Expression>,
    text: String,
    scope: &AssumptionScope,
) -> Result<Expr, ConjunctError> {
    let Some(front) = cfa.front.get::<FrontTypes>() else {
        return Err(ConjunctError::Unsupported("the program's C types are not known".into()));
    };
    let src = Prepared::verbatim(text);
    let names = bindings(cfa, front, scope, e);
    let acsl = scope.acsl;
    let scope = match scope.function {
        Some(f) => cfa.function(f).name.clone(),
        None => "global".into(),
    };
    let mut b = Builder::over(Shared::borrowed(cfa), Shared::borrowed(front), &src);
    b.pure_mode = true;
    b.scopes = vec![names];
    b.witness = Some(Witness { scope, acsl });
    let v = b.rv_any(e);
    // A pure expression makes an object only for a string literal: one the program does not have.
    if b.cfa.copied() || b.front.copied() {
        return Err(ConjunctError::Unsupported("an object the program does not have (a string literal)".into()));
    }
    Ok(v?)
}

/// The names used in an expression: as values, and as type names.
#[derive(Default)]
struct Used {
    values: BTreeSet<String>,
    types: BTreeSet<String>,
}

impl<'ast> lang_c::visit::Visit<'ast> for Used {
    fn visit_identifier(&mut self, i: &'ast Identifier, _: &'ast Span) {
        self.values.insert(i.name.clone());
    }

    fn visit_type_specifier(&mut self, t: &'ast TypeSpecifier, span: &'ast Span) {
        if let TypeSpecifier::TypedefName(id) = t {
            self.types.insert(id.node.name.clone());
        }
        lang_c::visit::visit_type_specifier(self, t, span);
    }
}

/// The meaning of each name `e` uses, at `scope` of the finished program: a variable (the
/// innermost one whose scope holds the location), an enumeration constant, a typedef, or a
/// name of the witness language. A name that means nothing is left out (the lowering says so).
fn bindings(cfa: &Cfa, front: &FrontTypes, scope: &AssumptionScope, e: &Node<Expression>) -> HashMap<String, Sym> {
    let mut used = Used::default();
    lang_c::visit::Visit::visit_expression(&mut used, &e.node, &e.span);
    let mut names = HashMap::new();
    for name in &used.types {
        if let Some((_, ty)) = front.typedefs.iter().rev().find(|(n, _)| n == name) {
            names.insert(name.clone(), Sym::Typedef(ty.clone()));
        }
    }
    for name in used.values.iter().filter(|n| !used.types.contains(*n)) {
        if let Some(sym) = meaning(cfa, front, scope, name) {
            names.insert(name.clone(), sym);
        }
    }
    names
}

fn meaning(cfa: &Cfa, front: &FrontTypes, scope: &AssumptionScope, name: &str) -> Option<Sym> {
    if name == RESULT {
        return Some(match scope.result_ty {
            Some(ty @ (ScalarTy::Int(_) | ScalarTy::Float(_))) => Sym::Value(Expr::WitnessResult { ty }),
            Some(ScalarTy::Ptr) => {
                Sym::Unsupported("\\result of pointer type (not supported in assumptions yet)".into())
            }
            None => Sym::Unsupported("\\result without a known result function".into()),
        });
    }
    if let Some(v) = variable(cfa, scope, name) {
        let ty = front.var_tys.get(v.0 as usize)?;
        return Some(Sym::Var(v, ty.clone()));
    }
    if let Some((_, bits, ty)) = cfa.enum_constants.iter().rev().find(|(n, _, _)| n == name) {
        return Some(Sym::Value(Expr::Const { bits: *bits, ty: ScalarTy::Int(*ty) }));
    }
    // <math.h> macros as witnesses print them (C11 7.12: `NAN` and `INFINITY` are `float`,
    // `HUGE_VAL` is `double`); a program variable of the same name wins.
    let special = match name {
        "NAN" => Some((FloatTy::F32, f64::NAN)),
        "INFINITY" | "HUGE_VALF" => Some((FloatTy::F32, f64::INFINITY)),
        "HUGE_VAL" => Some((FloatTy::F64, f64::INFINITY)),
        _ => None,
    };
    if let Some((fty, v)) = special {
        return Some(Sym::Value(Expr::Const { bits: fty.bits_of(v), ty: ScalarTy::Float(fty) }));
    }
    // The witness formats' boolean literals (GraphML's `invariant` key defaults to `true`, and
    // Ultimate's witnesses write that default): `<stdbool.h>`'s and C23's `true` and `false`,
    // the `int` values 1 and 0 as the macros expand; a program variable of the same name wins
    // (decision 196).
    match name {
        "true" => Some(Sym::Value(Expr::int(1))),
        "false" => Some(Sym::Value(Expr::int(0))),
        _ => None,
    }
}

/// The variable `name` at `scope`: a local of the scope's function whose visibility holds the
/// location (the innermost), else a function-local static whose visibility holds the location,
/// else, at a known location, a file-scope variable (decision 249), else the only local of that
/// name, else a file-scope variable. Temporaries have no name.
fn variable(cfa: &Cfa, scope: &AssumptionScope, name: &str) -> Option<VarId> {
    let whole = (0, cfa.source_len);
    let id = |i: usize| VarId(i as u32);
    let named = || cfa.vars.iter().enumerate().filter(|(_, v)| !v.temporary && v.name == name);
    let holds = |v: &VarInfo, off: usize| v.visible.0 <= off && off < v.visible.1;
    let file_scope = || named().find(|(_, v)| v.scope == VarScope::Global && v.visible == whole).map(|(i, _)| id(i));
    if let Some(f) = scope.function {
        let locals: Vec<(usize, &VarInfo)> = named().filter(|(_, v)| v.scope == VarScope::Local(f)).collect();
        if let Some(off) = scope.offset {
            let inner = locals.iter().filter(|(_, v)| holds(v, off)).max_by_key(|(_, v)| v.visible.0);
            if let Some((i, _)) = inner {
                return Some(id(*i));
            }
        }
        if let Some(off) = scope.offset {
            let statics = named().filter(|(_, v)| v.scope == VarScope::Global && v.visible != whole && holds(v, off));
            if let Some((i, _)) = statics.max_by_key(|(_, v)| v.visible.0) {
                return Some(id(i));
            }
            // Decision 249: at a known location no local's scope holds, C's scope is the file's
            // (a local declared later in the block, or in a block that has ended, hides nothing
            // there), so a file-scope variable of the name is the one meant.
            if let Some(g) = file_scope() {
                return Some(g);
            }
        }
        if let [(i, _)] = locals.as_slice() {
            if !scope.visible_only {
                return Some(id(*i));
            }
        }
    }
    file_scope()
}

impl Builder<'_> {
    /// Why a name means nothing here: in a witness expression, a claim about no object of the
    /// program (decision 97); in the program, an unknown identifier.
    pub(super) fn unknown_name(&self, name: &str) -> LowerError {
        match &self.witness {
            Some(w) => LowerError::NoSuchObject(format!("unknown identifier `{name}` in scope {}", w.scope)),
            None => LowerError::NoSuchObject(format!("unknown identifier `{name}`")),
        }
    }

    /// In a witness expression, that the object `e` designates is no object of the program
    /// (`&dynamic_object2.a` of CBMC: the address of an object the program does not have says
    /// nothing about it; decision 97).
    pub(super) fn names_nothing(&mut self, e: &Node<Expression>) -> Option<LowerError> {
        self.witness.as_ref()?;
        match self.place(e) {
            Err(m @ LowerError::NoSuchObject(_)) => Some(m),
            _ => None,
        }
    }

    /// A call of a built-in of the witness language (`BUILTINS`), or `None`.
    pub(super) fn witness_builtin(&mut self, c: &Node<CallExpression>) -> R<Option<Expr>> {
        let Expression::Identifier(i) = &c.node.callee.node else { return Ok(None) };
        if self.witness.is_none() {
            return Ok(None);
        }
        let write = match i.node.name.as_str() {
            "__witness_valid__" => true,
            "__witness_valid_read__" => false,
            RANGE => {
                return Err(
                    "an ACSL range `(a .. b)` other than the offset in `\\valid(p + (a .. b))` (not modelled)".into()
                )
            }
            _ => return Ok(None),
        };
        let name = if write { "\\valid" } else { "\\valid_read" };
        let [arg] = c.node.arguments.as_slice() else {
            return Err(format!("`{name}` with {} arguments (one pointer expected)", c.node.arguments.len()).into());
        };
        // Decision 250: `\valid(p + (a .. b))`, every element from `p + a` to `p + b`, is the
        // one block of their bytes (an object is contiguous): `\valid` of `p + a` over
        // `b - a + 1` elements; an empty range is valid.
        let (arg, count) = match self.range_offset(arg)? {
            Some((start, count)) => (start, count),
            None => (arg.clone(), 1),
        };
        if !self.is_ptr_expr(&arg) {
            return Err(format!("`{name}` of something that is not a pointer").into());
        }
        let (p, t) = self.ptr_expr(&arg)?;
        let bytes = match t {
            Ty::Void | Ty::Func(_) => None,
            t => self.size_of(&t).filter(|n| *n > 0),
        };
        let Some(bytes) = bytes else {
            return Err(format!("`{name}` of a pointer to a type of unknown size").into());
        };
        if count == 0 {
            return Ok(Some(Expr::int(1)));
        }
        let Some(bytes) = bytes.checked_mul(count).filter(|n| *n <= u64::from(u32::MAX)) else {
            return Err(format!("`{name}` of a range of {count} elements (too large; not modelled)").into());
        };
        Ok(Some(Expr::Valid { ptr: Box::new(p), bytes, write }))
    }

    /// `p + (a .. b)` (after [`RANGE`]'s rewriting) as `p + a` and the number of elements
    /// (0 when `a > b`), or `None` for any other expression. The bounds must be integer
    /// constants.
    fn range_offset(&mut self, arg: &Node<Expression>) -> R<Option<(Node<Expression>, u64)>> {
        let Expression::BinaryOperator(b) = &arg.node else { return Ok(None) };
        if b.node.operator.node != BinaryOperator::Plus {
            return Ok(None);
        }
        let Expression::Call(r) = &b.node.rhs.node else { return Ok(None) };
        if !matches!(&r.node.callee.node, Expression::Identifier(i) if i.node.name == RANGE) {
            return Ok(None);
        }
        let [lo, hi] = r.node.arguments.as_slice() else { return Ok(None) };
        let bound = |b: &mut Self, e: &Node<Expression>| -> R<i128> {
            let v = b.rv_any(e)?;
            match (v.int_ty(), types::fold_i128(&v)) {
                (Some(_), Some(n)) => Ok(n),
                _ => Err("an ACSL range whose bounds are not integer constants (not modelled)".into()),
            }
        };
        let (a, z) = (bound(self, lo)?, bound(self, hi)?);
        let count = if a > z { 0 } else { u64::try_from(z - a + 1).unwrap_or(u64::MAX) };
        let start = Node::new(
            Expression::BinaryOperator(Box::new(Node::new(
                BinaryOperatorExpression {
                    operator: b.node.operator.clone(),
                    lhs: b.node.lhs.clone(),
                    rhs: Box::new(lo.clone()),
                },
                b.span,
            ))),
            arg.span,
        );
        Ok(Some((start, count)))
    }

    /// Is this an ACSL expression (decision 232)?
    pub(super) fn acsl(&self) -> bool {
        self.witness.as_ref().is_some_and(|w| w.acsl)
    }

    /// ACSL's reading of the integer or floating-point binary operation `l op r` (decision 232):
    /// integers are mathematical, so both operands are taken at their exact values as `long long`
    /// ([`acsl_integer`]) and the operation is computed there. Where `long long` cannot hold a
    /// value (an operand of `unsigned long long` at or above 2^63, a result beyond 64 bits), the
    /// operation is a signed overflow, which an ACSL obligation reads as a value the validator
    /// does not model (unknown), never as C's undefined behaviour. Floating-point operands are
    /// reals in ACSL: not modelled.
    pub(super) fn acsl_binary(&self, op: BinOp, l: Expr, r: Expr) -> R<Expr> {
        if matches!(op, BinOp::LogAnd | BinOp::LogOr) {
            return Ok(types::binary_any(op, l, r)?);
        }
        if l.int_ty().is_none() || r.int_ty().is_none() {
            return Err(LowerError::Unsupported(
                "a floating-point operation in an ACSL expression (ACSL computes over the reals; not modelled)".into(),
            ));
        }
        // `/` and `%` never leave the range of their operands (but for MIN / -1, undefined in C,
        // so not modelled here): where C's common type keeps both operands' values, C's own
        // operation is the integers' one, and a 64-bit division is costly to bit-blast.
        if matches!(op, BinOp::Div | BinOp::Rem) {
            let common = types::common_ty(types::promote_ty(l.ity()), types::promote_ty(r.ity()));
            if keeps_value(&l, common) && keeps_value(&r, common) {
                return Ok(types::binary(op, l, r));
            }
        }
        let (l, r) = (acsl_integer(l), acsl_integer(r));
        Ok(match op {
            // C's shifts take the left operand's type; at `long long` a negative left operand
            // or a count outside 0..64 is undefined, read as not modelled.
            BinOp::Shl | BinOp::Shr => {
                Expr::Binary { op, lhs: Box::new(l), rhs: Box::new(r), ty: ScalarTy::Int(IntTy::LLONG) }
            }
            _ => types::binary(op, l, r),
        })
    }

    /// ACSL's unary `-` and `~` on an integer (decision 232): at its exact value as `long long`.
    pub(super) fn acsl_unary(&self, op: UnOp, a: Expr) -> R<Expr> {
        match (op, a.int_ty()) {
            (UnOp::Neg | UnOp::BitNot, Some(_)) => {
                Ok(Expr::Unary { op, arg: Box::new(acsl_integer(a)), ty: ScalarTy::Int(IntTy::LLONG) })
            }
            _ => Ok(types::unary_any(op, a)?),
        }
    }

    /// ACSL's `c ? t : e` (decision 232): integer arms at their exact values, floating-point
    /// ones only of one type (no conversion between the reals' representations).
    pub(super) fn acsl_ite(&self, c: Expr, t: Expr, e: Expr) -> R<Expr> {
        match (t.int_ty(), e.int_ty()) {
            (Some(_), Some(_)) => Ok(types::ite_any(c, acsl_integer(t), acsl_integer(e))),
            _ if t.ty() == e.ty() => Ok(types::ite_any(c, t, e)),
            _ => Err(LowerError::Unsupported(
                "a conditional expression mixing floating-point types in an ACSL expression (not modelled)".into(),
            )),
        }
    }

    /// The readings of a comparison that only witness expressions have (NaN equality, a
    /// bit-field's pattern), or `None` to read it as C does.
    pub(super) fn witness_comparison(&self, op: BinOp, l: &Expr, r: &Expr) -> Option<R<Expr>> {
        self.witness.as_ref()?;
        if let Some(c) = nan_equality(op, l, r) {
            return Some(Ok(c));
        }
        bit_pattern_comparison(&self.cfa, op, l, r)
    }
}

/// The integer `e` at its exact (mathematical) value as `long long` (decision 232): every
/// integer type up to 64 bits converts exactly, except `unsigned long long` (and a 64-bit
/// unsigned `long`), which is written `(long long)(e >> 1) * 2 + (long long)(e & 1)`: exact
/// below 2^63, a signed overflow (not modelled in an ACSL obligation) at or above it. No
/// operation wraps and no value is guessed.
pub(crate) fn acsl_integer(e: Expr) -> Expr {
    let Some(t) = e.int_ty() else { return e };
    if t.bits < 64 || t.signed {
        return types::conv(e, IntTy::LLONG);
    }
    let one = Expr::Const { bits: 1, ty: ScalarTy::Int(t) };
    let half =
        Expr::Binary { op: BinOp::Shr, lhs: Box::new(e.clone()), rhs: Box::new(one.clone()), ty: ScalarTy::Int(t) };
    let low = Expr::Binary { op: BinOp::BitAnd, lhs: Box::new(e), rhs: Box::new(one), ty: ScalarTy::Int(t) };
    let ll = ScalarTy::Int(IntTy::LLONG);
    let doubled = Expr::Binary {
        op: BinOp::Mul,
        lhs: Box::new(types::conv(half, IntTy::LLONG)),
        rhs: Box::new(Expr::Const { bits: 2, ty: ll }),
        ty: ll,
    };
    Expr::Binary { op: BinOp::Add, lhs: Box::new(doubled), rhs: Box::new(types::conv(low, IntTy::LLONG)), ty: ll }
}

/// Does the integer `e` keep its value when converted to `to`: a constant in `to`'s range, or
/// any value of its type?
fn keeps_value(e: &Expr, to: IntTy) -> bool {
    let range = |lo: i128, hi: i128| to.min_value() <= lo && hi <= to.max_value();
    match types::fold(e) {
        Some((bits, ty)) => {
            let v = types::value_of(bits, ty);
            range(v, v)
        }
        None => e.int_ty().is_some_and(|t| range(t.min_value(), t.max_value())),
    }
}

/// `x == NAN` (old CBMC witnesses print `x = +NAN;`, meaning "x is a NaN") is false for every
/// `x` in C, so read literally it would kill every run and could only produce a rejection from
/// a notation. It is read as `isnan(x)` (`!=`: `!isnan(x)`), which allows fewer runs than
/// dropping the conjunct as unusable would, so it can only lose confirmations. (The sign of a
/// NaN is not modelled, so `-NAN` is read the same way.)
fn nan_equality(op: BinOp, l: &Expr, r: &Expr) -> Option<Expr> {
    let is_nan = |v: &Expr| match v {
        Expr::Const { bits, ty: ScalarTy::Float(fty) } => crate::floatbits::to_f64(*bits, *fty).is_nan(),
        _ => false,
    };
    let other = match (is_nan(l), is_nan(r)) {
        (true, _) => r,
        (_, true) => l,
        _ => return None,
    };
    let arg = match other {
        f if f.float_ty().is_some() => f.clone(),
        e => e.clone().into_float(FloatTy::F64),
    };
    let c = Expr::FloatClass { class: FClass::IsNan, arg: Box::new(arg) };
    match op {
        BinOp::Eq => Some(c),
        BinOp::Ne => Some(types::not(c)),
        _ => None,
    }
}

/// A comparison of a signed bit-field with a constant above its range that is a bit pattern of
/// its width (`s.d == 9` for the -7 in a signed 4-bit field): CPAchecker and CBMC witnesses print
/// bit-fields' unsigned bit patterns (decision 31). The comparison is read as the union of both
/// readings, the literal one and the pattern one, so that it can only add runs: where the literal
/// reading is true for every value of the field (`!=`, `<`, ...), it is true; otherwise (`==`,
/// `>`, ...) the constant is read as the pattern's signed value. `None`: not such a comparison.
/// `Some(Err)`: such a comparison whose reading is unclear (a cast that changes the field's value,
/// an unsigned constant): the run ends in unknown.
fn bit_pattern_comparison(cfa: &Cfa, op: BinOp, l: &Expr, r: &Expr) -> Option<R<Expr>> {
    if !matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
        return None;
    }
    let (field_left, field, constant) = match (bit_field(cfa, l), bit_field(cfa, r)) {
        (Some(f), _) => (true, f, r),
        (None, Some(f)) => (false, f, l),
        (None, None) => return None,
    };
    let c = constant;
    c.int_ty()?;
    let (c_bits, c_ty) = types::fold(c)?;
    let k = types::value_of(c_bits, c_ty);
    let (ty, value_preserving, name) = field;
    if !(k > ty.max_value() && k < (1i128 << ty.bits)) {
        return None;
    }
    if !value_preserving || !c_ty.signed {
        return Some(Err(LowerError::Ambiguous(format!(
            "`{name}` is a signed {}-bit bit-field; {k} is outside its range and may be its unsigned bit pattern",
            ty.bits
        ))));
    }
    // The literal reading compares a value below `k` with `k`: its truth does not depend on the field.
    let literal =
        matches!((op, field_left), (BinOp::Ne, _) | (BinOp::Lt | BinOp::Le, true) | (BinOp::Gt | BinOp::Ge, false));
    if literal {
        return Some(Ok(Expr::Const { bits: 1, ty: ScalarTy::Int(IntTy::INT) }));
    }
    let pattern = k - (1i128 << ty.bits);
    let pc = Expr::Const { bits: (pattern as u64) & c_ty.mask(), ty: ScalarTy::Int(c_ty) };
    let (a, b) = if field_left { (l.clone(), pc) } else { (pc, r.clone()) };
    Some(types::binary_any(op, a, b).map_err(Into::into))
}

/// A signed bit-field variable under casts: its type, whether every cast keeps its value (a
/// signed type at least as wide), and its name.
fn bit_field(cfa: &Cfa, v: &Expr) -> Option<(IntTy, bool, String)> {
    v.int_ty()?;
    let mut f = v;
    let mut casts = Vec::new();
    while let Expr::Cast { arg, to: ScalarTy::Int(to) } = f {
        casts.push(*to);
        f = arg;
    }
    let Expr::Var { var, ty: ScalarTy::Int(ty) } = f else { return None };
    if !ty.signed || matches!(ty.bits, 8 | 16 | 32 | 64) {
        return None;
    }
    let preserving = casts.iter().all(|t| t.signed && !t.is_bool && t.bits >= ty.bits);
    Some((*ty, preserving, cfa.var(*var).name.clone()))
}
