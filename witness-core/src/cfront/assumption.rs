//! Witness assumptions (`x == 5; y < 3`) → IR expressions.

use lang_c::ast::*;
use lang_c::span::Node;

use super::types::{self, conv, Arith, SpecCounter, Ty};
use super::AssumptionScope;
use crate::cfa::{BinOp, CType, Cfa, Expr, FloatTy, IntTy, Pointee, ScalarTy, UnOp, VarId, VarScope};

use crate::error::ConjunctError;

type R<T> = Result<T, ConjunctError>;

/// Reserved identifier standing for `\result`.
const RESULT: &str = "__witness_result__";

/// Splits at top-level `;` (outside parentheses and quotes); drops empty pieces.
pub fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth: i32 = 0;
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut esc = false;
    for c in text.chars() {
        if let Some(q) = quote {
            cur.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                cur.push(c);
            }
            '(' | '[' | '{' => {
                depth += 1;
                cur.push(c);
            }
            ')' | ']' | '}' => {
                depth -= 1;
                cur.push(c);
            }
            ';' if depth <= 0 => {
                out.push(std::mem::take(&mut cur));
            }
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// Rewrites the legacy `x = 5` to `x == 5` (a single top-level `=`).
fn legacy_assign(s: &str) -> String {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut pos = Vec::new();
    for i in 0..b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { 0 };
                let next = b.get(i + 1).copied().unwrap_or(0);
                if next == b'=' || next == b'>' {
                    continue;
                }
                if matches!(prev, b'=' | b'<' | b'>' | b'!') {
                    continue;
                }
                // Compound assignment operators are not rewritten.
                if matches!(prev, b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^') {
                    return s.to_string();
                }
                pos.push(i);
            }
            _ => {}
        }
    }
    if pos.len() == 1 {
        let i = pos[0];
        format!("{}=={}", &s[..i], &s[i + 1..])
    } else {
        s.to_string()
    }
}

/// Rewrites ACSL `A ==> B` to `!(A) || (B)` (right-associative, top level only).
fn implication(s: &str) -> String {
    if let Some(i) = s.find("==>") {
        let a = &s[..i];
        let b = implication(&s[i + 3..]);
        format!("!({a}) || ({b})")
    } else {
        s.to_string()
    }
}

pub fn lower_one(cfa: &Cfa, piece: &str, scope: &AssumptionScope) -> R<Expr> {
    let mut t = piece.replace("\\result", RESULT);
    t = implication(&t);
    t = legacy_assign(&t);
    let e = parse_expression(cfa, t.trim()).map_err(|why| ConjunctError::Syntax { piece: piece.to_string(), why })?;
    let mut l = Lowerer { cfa, scope };
    Ok(l.val(&e)?.truth())
}

/// Lowers an expression to its value (integer or float), for messages.
pub fn lower_value(cfa: &Cfa, piece: &str, scope: &AssumptionScope) -> R<crate::cfa::Expr> {
    let t = piece.replace("\\result", RESULT);
    let e = parse_expression(cfa, t.trim()).map_err(|why| ConjunctError::Syntax { piece: piece.to_string(), why })?;
    let mut l = Lowerer { cfa, scope };
    l.val(&e)
}

/// lang-c exposes only the translation-unit parser: wrap the expression in a function body,
/// after typedefs that make the program's type names known.
fn parse_expression(cfa: &Cfa, expr: &str) -> Result<Box<Node<Expression>>, String> {
    if expr.contains(['{', '}', ';']) {
        return Err("unexpected `{`, `}` or `;`".into());
    }
    let mut src = String::new();
    for (name, _) in &cfa.typedefs {
        src.push_str(&format!("typedef int {name};\n"));
    }
    let prefix = src.len() + "void __witness_assumption__(void) { (".len();
    src.push_str("void __witness_assumption__(void) { (");
    src.push_str(expr);
    src.push_str("\n); }\n");
    let config = lang_c::driver::Config::with_gcc();
    let unit = match lang_c::driver::parse_preprocessed(&config, src) {
        Ok(p) => p.unit,
        Err(e) => {
            // In characters of the expression (issue 33), the end of it when the parser stopped
            // after it.
            let col = crate::lines::LineStarts::of(expr).column(e.offset.saturating_sub(prefix));
            return Err(format!("syntax error at column {col}, expected {}", expected(&e.expected)));
        }
    };
    let Some(last) = unit.0.into_iter().last() else {
        return Err("empty".into());
    };
    let ExternalDeclaration::FunctionDefinition(fd) = last.node else {
        return Err("not an expression".into());
    };
    let Statement::Compound(items) = fd.node.statement.node else {
        return Err("not an expression".into());
    };
    match items.into_iter().next().map(|i| i.node) {
        Some(BlockItem::Statement(Node { node: Statement::Expression(Some(e)), .. })) => Ok(e),
        _ => Err("not an expression".into()),
    }
}

fn expected(set: &std::collections::HashSet<&'static str>) -> String {
    let mut v: Vec<&str> = set.iter().copied().collect();
    v.sort_unstable();
    v.iter().take(8).map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ")
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
    let c = Expr::FloatClass { class: crate::cfa::FClass::IsNan, arg: Box::new(arg) };
    match op {
        BinOp::Eq => Some(c),
        BinOp::Ne => Some(types::not(c)),
        _ => None,
    }
}

/// `s.a.b` → `"s.a.b"`; `p->f` and members of other expressions are errors.
fn member_path(e: &Node<Expression>) -> R<String> {
    match &e.node {
        Expression::Identifier(i) => Ok(i.node.name.clone()),
        Expression::Member(m) => {
            if m.node.operator.node == MemberOperator::Indirect {
                return Err("member access through a pointer (pointers are not supported yet)".into());
            }
            Ok(format!("{}.{}", member_path(&m.node.expression)?, m.node.identifier.node.name))
        }
        _ => Err("member access on an expression other than a struct variable (not supported yet)".into()),
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
        return Some(Err(ConjunctError::Ambiguous(format!(
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

struct Lowerer<'a> {
    cfa: &'a Cfa,
    scope: &'a AssumptionScope,
}

enum Place {
    Expr(Expr),
    Arr {
        var: VarId,
        elem: ScalarTy,
        rest: Vec<u64>,
        acc: Option<Expr>,
        len: u64,
    },
    /// A pointer value, with what it points to if known.
    Ptr(Expr, Option<Pointee>),
    /// A struct or union in memory at the address, with its layout.
    Obj(Expr, Pointee),
}

/// The member at `path` of the struct or union at `p`.
fn member_of(p: Expr, layout: &Pointee, path: &str) -> R<Place> {
    let Pointee::Struct { members, .. } = layout else {
        return Err("member access on something that is not a struct".into());
    };
    let (_, off, ty) = members
        .iter()
        .find(|(m, _, _)| m == path)
        .ok_or_else(|| format!("member `{path}` (not a scalar member known to the validator)"))?;
    Ok(deref(types::offset(p, types::llong(*off as i128)), *ty))
}

/// `b.x.y` split into the base expression `b` (not a `.` member access) and the path `x.y`;
/// constant indices into array members are part of the path (`b.i[0]`: `i[0]`).
fn dot_path(e: &Node<Expression>) -> Option<(&Node<Expression>, String)> {
    if let Some((lhs, k)) = constant_index(e) {
        let (b, path) = dot_path(lhs)?;
        return Some((b, format!("{path}[{k}]")));
    }
    let Expression::Member(m) = &e.node else { return None };
    if m.node.operator.node != MemberOperator::Direct {
        return None;
    }
    let name = &m.node.identifier.node.name;
    match dot_path(&m.node.expression) {
        Some((b, path)) => Some((b, format!("{path}.{name}"))),
        None => Some((&m.node.expression, name.clone())),
    }
}

/// `a[k]` with `k` a decimal, octal or hexadecimal integer constant: `a` and `k`.
fn constant_index(e: &Node<Expression>) -> Option<(&Node<Expression>, u64)> {
    let Expression::BinaryOperator(b) = &e.node else { return None };
    if b.node.operator.node != BinaryOperator::Index {
        return None;
    }
    let Expression::Constant(c) = &b.node.rhs.node else { return None };
    let Constant::Integer(i) = &c.node else { return None };
    let digits = i.number.as_ref();
    let k = match i.base {
        IntegerBase::Decimal => digits.parse().ok()?,
        IntegerBase::Octal => u64::from_str_radix(digits, 8).ok()?,
        IntegerBase::Hexadecimal => u64::from_str_radix(digits, 16).ok()?,
        _ => return None,
    };
    Some((&b.node.lhs, k))
}

/// The object of type `ty` at `p`.
fn deref(p: Expr, ty: ScalarTy) -> Place {
    match ty {
        ScalarTy::Int(t) => Place::Expr(Expr::Deref { ptr: Box::new(p), ty: ScalarTy::Int(t) }),
        ScalarTy::Float(fty) => Place::Expr(Expr::Deref { ptr: Box::new(p), ty: ScalarTy::Float(fty) }),
        ScalarTy::Ptr => Place::Ptr(Expr::Deref { ptr: Box::new(p), ty: ScalarTy::Ptr }, None),
    }
}

/// `p->a.b` split into the pointer expression and the member path `a.b`.
fn arrow_path(e: &Node<Expression>) -> Option<(&Node<Expression>, String)> {
    if let Some((lhs, k)) = constant_index(e) {
        let (p, path) = arrow_path(lhs)?;
        return Some((p, format!("{path}[{k}]")));
    }
    let Expression::Member(m) = &e.node else { return None };
    let name = &m.node.identifier.node.name;
    if m.node.operator.node == MemberOperator::Indirect {
        return Some((&m.node.expression, name.clone()));
    }
    let (p, path) = arrow_path(&m.node.expression)?;
    Some((p, format!("{path}.{name}")))
}

impl Lowerer<'_> {
    fn resolve(&self, name: &str) -> R<Place> {
        if name == RESULT {
            let ty = self.scope.result_ty.ok_or("\\result without a known result function")?;
            return Ok(Place::Expr(match ty {
                ScalarTy::Int(ty) => Expr::WitnessResult { ty: ScalarTy::Int(ty) },
                ScalarTy::Float(fty) => Expr::WitnessResult { ty: ScalarTy::Float(fty) },
                ScalarTy::Ptr => return Err("\\result of pointer type (not supported in assumptions yet)".into()),
            }));
        }
        let cfa = self.cfa;
        let whole = (0, cfa.source_len);
        let mut found: Option<VarId> = None;
        if let Some(f) = self.scope.function {
            let cands: Vec<(usize, &crate::cfa::VarInfo)> = cfa
                .vars
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.temporary && v.name == name && v.scope == VarScope::Local(f))
                .collect();
            if let Some(off) = self.scope.offset {
                found = cands
                    .iter()
                    .filter(|(_, v)| v.visible.0 <= off && off < v.visible.1)
                    .max_by_key(|(_, v)| v.visible.0)
                    .map(|(i, _)| VarId(*i as u32));
            }
            if found.is_none() && cands.len() == 1 {
                found = Some(VarId(cands[0].0 as u32));
            }
            // Function-local statics (global storage, block visibility).
            if found.is_none() {
                if let Some(off) = self.scope.offset {
                    found = cfa
                        .vars
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| {
                            !v.temporary
                                && v.name == name
                                && v.scope == VarScope::Global
                                && v.visible != whole
                                && v.visible.0 <= off
                                && off < v.visible.1
                        })
                        .max_by_key(|(_, v)| v.visible.0)
                        .map(|(i, _)| VarId(i as u32));
                }
            }
        }
        if found.is_none() {
            found = cfa
                .vars
                .iter()
                .position(|v| !v.temporary && v.name == name && v.scope == VarScope::Global && v.visible == whole)
                .map(|i| VarId(i as u32));
        }
        if let Some(v) = found {
            let info = cfa.var(v);
            return match &info.ty {
                CType::Int(t) => Ok(Place::Expr(Expr::Var { var: v, ty: ScalarTy::Int(*t) })),
                CType::Array { elem, dims } => Ok(Place::Arr {
                    var: v,
                    elem: ScalarTy::Int(*elem),
                    rest: dims.clone(),
                    acc: None,
                    len: dims.iter().product(),
                }),
                CType::FloatArray { elem, dims } => Ok(Place::Arr {
                    var: v,
                    elem: ScalarTy::Float(*elem),
                    rest: dims.clone(),
                    acc: None,
                    len: dims.iter().product(),
                }),
                CType::Float(f) => Ok(Place::Expr(Expr::Var { var: v, ty: ScalarTy::Float(*f) })),
                CType::Unsupported(w) => Err(format!("`{name}` has type {w} (not supported yet)").into()),
                CType::Void => Err(format!("`{name}` has type void").into()),
                CType::Ptr => Ok(Place::Ptr(Expr::Var { var: v, ty: ScalarTy::Ptr }, info.pointee.clone())),
                // An array of structs or pointers decays to a pointer to its first element; a
                // union (it has members) is an object.
                CType::Bytes { members, .. } => {
                    let at = Expr::AddrOf { var: v, offset: Box::new(Expr::int(0)) };
                    match (&info.pointee, members.is_empty()) {
                        (Some(p), true) => Ok(Place::Ptr(at, Some(p.clone()))),
                        (Some(p), false) => Ok(Place::Obj(at, p.clone())),
                        (None, _) => Err(format!("`{name}` has a layout the validator does not know").into()),
                    }
                }
            };
        }
        if let Some((_, bits, ty)) = cfa.enum_constants.iter().rev().find(|(n, _, _)| n == name) {
            return Ok(Place::Expr(Expr::Const { bits: *bits, ty: ScalarTy::Int(*ty) }));
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
            return Ok(Place::Expr(Expr::Const { bits: fty.bits_of(v), ty: ScalarTy::Float(fty) }));
        }
        // The witness formats' boolean literals (GraphML's `invariant` key defaults to `true`, and
        // Ultimate's witnesses write that default): `<stdbool.h>`'s and C23's `true` and `false`,
        // the `int` values 1 and 0 as the macros expand; a program variable of the same name wins.
        if let Some(v) = match name {
            "true" => Some(1),
            "false" => Some(0),
            _ => None,
        } {
            return Ok(Place::Expr(Expr::int(v)));
        }
        let sc = match self.scope.function {
            Some(f) => cfa.function(f).name.clone(),
            None => "global".into(),
        };
        Err(ConjunctError::NoSuchObject(format!("unknown identifier `{name}` in scope {sc}")))
    }

    /// A pointer-valued expression: a pointer variable, `p + i`, `p - i`, `q->next`, `a[i]` of
    /// pointers.
    fn pointer(&mut self, e: &Node<Expression>) -> R<(Expr, Option<Pointee>)> {
        if let Expression::BinaryOperator(b) = &e.node {
            if matches!(b.node.operator.node, BinaryOperator::Plus | BinaryOperator::Minus) {
                let (p, pointee) = self.pointer(&b.node.lhs)?;
                let Some(Pointee::Scalar { size, .. } | Pointee::Struct { size, .. }) = &pointee else {
                    return Err("arithmetic on a pointer to an unknown type in an assumption".into());
                };
                let mut i = conv(types::promote(self.val(&b.node.rhs)?.int("as a pointer offset")?), IntTy::LLONG);
                if b.node.operator.node == BinaryOperator::Minus {
                    i = types::unary(UnOp::Neg, i);
                }
                return Ok((types::offset(p, types::scaled(i, *size)), pointee));
            }
        }
        if let Expression::UnaryOperator(u) = &e.node {
            if u.node.operator.node == UnaryOperator::Address {
                return Ok((self.address_of(&u.node.operand)?, None));
            }
        }
        match self.place(e)? {
            Place::Ptr(p, pointee) => Ok((p, pointee)),
            _ => Err("not a pointer".into()),
        }
    }

    /// `&x`: the address of a variable, or of an object in memory (`&u.i[0]`, `&p->m`).
    fn address_of(&mut self, e: &Node<Expression>) -> R<Expr> {
        let at = |var| Expr::AddrOf { var, offset: Box::new(Expr::int(0)) };
        match self.place(e)? {
            Place::Expr(Expr::Var { var, ty: ScalarTy::Int(_), .. })
            | Place::Expr(Expr::Var { var, ty: ScalarTy::Float(_), .. })
            | Place::Ptr(Expr::Var { var, ty: ScalarTy::Ptr }, _)
            | Place::Arr { var, acc: None, .. } => Ok(at(var)),
            Place::Expr(Expr::Deref { ptr, ty: ScalarTy::Int(_), .. })
            | Place::Expr(Expr::Deref { ptr, ty: ScalarTy::Float(_), .. })
            | Place::Ptr(Expr::Deref { ptr, ty: ScalarTy::Ptr }, _) => Ok(*ptr),
            Place::Obj(p, _) => Ok(p),
            _ => Err("address of something other than a variable or an object in memory (not supported yet)".into()),
        }
    }

    fn place(&mut self, e: &Node<Expression>) -> R<Place> {
        match &e.node {
            Expression::Identifier(i) => self.resolve(&i.node.name),
            // `p->a.b`: the member at its offset in the struct `p` points to.
            Expression::Member(_) if arrow_path(e).is_some() => {
                let Some((pe, path)) = arrow_path(e) else { return Err("member access".into()) };
                let (p, pointee) = self.pointer(pe)?;
                let Some(layout) = pointee else {
                    return Err("member access through a pointer to an unknown struct in an assumption".into());
                };
                member_of(p, &layout, &path)
            }
            // A struct member is the flattened variable named by its access path (`s.in.x`);
            // otherwise a member of a struct or union in memory (`a[i].x`, `u.i`).
            Expression::Member(_) => match member_path(e).and_then(|p| self.resolve(&p)) {
                Ok(place) => Ok(place),
                Err(m) => {
                    let Some((base, path)) = dot_path(e) else { return Err(m) };
                    match self.place(base) {
                        Ok(Place::Obj(p, layout)) => member_of(p, &layout, &path),
                        _ => Err(m),
                    }
                }
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                let (p, pointee) = self.pointer(&u.node.operand)?;
                match pointee {
                    Some(Pointee::Scalar { ty, .. }) => Ok(deref(p, ty)),
                    Some(layout) => Ok(Place::Obj(p, layout)),
                    None => Err("dereference of a pointer to an unknown type in an assumption".into()),
                }
            }
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Index
                    && matches!(self.place(&b.node.lhs), Ok(Place::Ptr(..))) =>
            {
                let (p, pointee) = self.pointer(&b.node.lhs)?;
                let size = match &pointee {
                    Some(Pointee::Scalar { size, .. } | Pointee::Struct { size, .. }) => *size,
                    None => return Err("indexing a pointer to an unknown type in an assumption".into()),
                };
                let i = conv(types::promote(self.val(&b.node.rhs)?.int("as an index")?), IntTy::LLONG);
                let k = types::scaled(i, size);
                match pointee {
                    Some(Pointee::Scalar { ty, .. }) => Ok(deref(types::offset(p, k), ty)),
                    Some(layout) => Ok(Place::Obj(types::offset(p, k), layout)),
                    None => Err("indexing a pointer to an unknown type in an assumption".into()),
                }
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let Place::Arr { var, elem, mut rest, acc, len } = (match self.place(&b.node.lhs) {
                    Ok(place) => place,
                    // `u.i[0]`, `p->m[1]`: an element of an array member of an object in memory.
                    Err(m) => return self.member_element(e).ok_or(m)?,
                }) else {
                    return Err("indexing something that is not an array".into());
                };
                let i = conv(types::promote(self.val(&b.node.rhs)?.int("as an index")?), IntTy::LLONG);
                let d = rest.remove(0);
                let acc = match acc {
                    None => i,
                    Some(p) => types::binary(
                        BinOp::Add,
                        types::binary(BinOp::Mul, p, Expr::Const { bits: d, ty: ScalarTy::Int(IntTy::LLONG) }),
                        i,
                    ),
                };
                if rest.is_empty() {
                    let index = Box::new(acc);
                    match elem {
                        ScalarTy::Int(ty) => Ok(Place::Expr(Expr::Elem { var, index, len, ty: ScalarTy::Int(ty) })),
                        ScalarTy::Float(fty) => {
                            Ok(Place::Expr(Expr::Elem { var, index, len, ty: ScalarTy::Float(fty) }))
                        }
                        ScalarTy::Ptr => Err("array of pointers in an assumption (not supported yet)".into()),
                    }
                } else {
                    Ok(Place::Arr { var, elem, rest, acc: Some(acc), len })
                }
            }
            _ => Ok(Place::Expr(self.val(e)?)),
        }
    }

    /// An element, named with constant indices, of an array member of a struct or union in
    /// memory (`u.i[0]`, `p->m[1][2]`), or None if `e` is not one.
    fn member_element(&mut self, e: &Node<Expression>) -> Option<R<Place>> {
        if let Some((pe, path)) = arrow_path(e) {
            let (p, layout) = match self.pointer(pe) {
                Ok((p, Some(layout))) => (p, layout),
                _ => return None,
            };
            return Some(member_of(p, &layout, &path));
        }
        let (base, path) = dot_path(e)?;
        match self.place(base) {
            Ok(Place::Obj(p, layout)) => Some(member_of(p, &layout, &path)),
            _ => None,
        }
    }

    fn type_name(&self, tn: &TypeName) -> R<Ty> {
        if tn.declarator.as_ref().is_some_and(|d| !d.node.derived.is_empty()) {
            return Err("cast to a pointer or array type (not supported yet)".into());
        }
        let mut c = SpecCounter::default();
        for s in &tn.specifiers {
            if let SpecifierQualifier::TypeSpecifier(t) = &s.node {
                if c.add(&t.node) {
                    continue;
                }
                match &t.node {
                    TypeSpecifier::TypedefName(id) => {
                        return match self.cfa.typedefs.iter().rev().find(|(n, _)| *n == id.node.name) {
                            Some((_, CType::Int(t))) => Ok(Ty::Int(*t)),
                            Some((_, CType::Float(FloatTy::F32))) => Ok(Ty::Float("float")),
                            Some((_, CType::Float(FloatTy::F64))) => Ok(Ty::Float("double")),
                            _ => Err(format!("cast to type `{}` (not supported yet)", id.node.name).into()),
                        };
                    }
                    TypeSpecifier::Enum(en) => {
                        // The type of a file-scope enumeration found by its tag (decision 100).
                        let tag = en.node.identifier.as_ref().map(|i| format!("enum {}", i.node.name));
                        let mut found = self.cfa.enum_tags.iter().filter(|(n, _)| Some(n) == tag.as_ref());
                        return match (en.node.enumerators.is_empty(), found.next(), found.next()) {
                            (true, Some((_, t)), None) => Ok(Ty::Int(*t)),
                            _ => Err("cast to an enumeration type that is not a unique file-scope tag".into()),
                        };
                    }
                    _ => return Err("cast to a non-integer type (not supported yet)".into()),
                }
            }
        }
        match c.resolve(self.cfa.data_model) {
            t @ Ty::Int(_) => Ok(t),
            t @ Ty::Float(_) if t.float_ty().is_some() => Ok(t),
            other => Err(format!("cast to {} (not supported yet)", other.describe(self.cfa.data_model)).into()),
        }
    }

    fn val(&mut self, e: &Node<Expression>) -> R<Expr> {
        match &e.node {
            Expression::Identifier(_) | Expression::Member(_) => match self.place(e)? {
                Place::Expr(v) => Ok(v),
                Place::Arr { .. } => Err("array used as a value (not supported yet)".into()),
                Place::Ptr(..) => Err("pointer used as a number in an assumption".into()),
                Place::Obj(..) => Err("struct used as a number in an assumption".into()),
            },
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => Ok(types::integer_constant(i, self.cfa.data_model)?),
                Constant::Character(ch) => Ok(types::char_constant(ch)?),
                Constant::Float(f) => Ok(types::float_constant(f)?),
            },
            Expression::StringLiteral(_) => Err("string literal (not supported)".into()),
            Expression::Call(_) => Err("function call in an assumption".into()),
            Expression::SizeOfTy(t) => {
                let ty = self.type_name(&t.node.0.node)?;
                let n = ty.size(self.cfa.data_model).ok_or("sizeof of an unsupported type")?;
                Ok(Expr::Const { bits: n, ty: ScalarTy::Int(types::size_t(self.cfa.data_model)) })
            }
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::Plus => Ok(match self.val(&u.node.operand)? {
                    x if x.int_ty().is_some() => types::promote(x),
                    f => f,
                }),
                UnaryOperator::Minus => Ok(types::unary_any(UnOp::Neg, self.val(&u.node.operand)?)?),
                UnaryOperator::Complement => Ok(types::unary_any(UnOp::BitNot, self.val(&u.node.operand)?)?),
                UnaryOperator::Negate => Ok(types::unary_any(UnOp::LogNot, self.val(&u.node.operand)?)?),
                UnaryOperator::Indirection => match self.place(e)? {
                    Place::Expr(v) => Ok(v),
                    _ => Err("pointer used as a number in an assumption".into()),
                },
                // `y = &dynamic_object2.a` (CBMC): the address of an object the program does not
                // have says nothing about it (decision 97).
                UnaryOperator::Address => match self.place(&u.node.operand) {
                    Err(m @ ConjunctError::NoSuchObject(_)) => Err(m),
                    _ => Err("address used as a number in an assumption".into()),
                },
                _ => Err("side effect (`++`/`--`) in an assumption".into()),
            },
            Expression::Cast(c) => {
                let t = self.type_name(&c.node.type_name.node)?;
                let v = self.val(&c.node.expression)?;
                match (t.float_ty(), t) {
                    (Some(f), _) => Ok(v.into_float(f)),
                    (None, Ty::Int(t)) => Ok(v.into_int(t)),
                    (None, other) => {
                        Err(format!("cast to {} (not supported yet)", other.describe(self.cfa.data_model)).into())
                    }
                }
            }
            Expression::BinaryOperator(b) => {
                if b.node.operator.node == BinaryOperator::Index {
                    return match self.place(e)? {
                        Place::Expr(v) => Ok(v),
                        Place::Arr { .. } => Err("sub-array used as a value (not supported yet)".into()),
                        Place::Ptr(..) => Err("pointer used as a number in an assumption".into()),
                        Place::Obj(..) => Err("struct used as a number in an assumption".into()),
                    };
                }
                // `p == q`, `p != 0`: pointer comparison (0 is the null pointer constant).
                if matches!(b.node.operator.node, BinaryOperator::Equals | BinaryOperator::NotEquals) {
                    let l = self.pointer(&b.node.lhs).ok();
                    let r = self.pointer(&b.node.rhs).ok();
                    if l.is_some() || r.is_some() {
                        let side = |me: &mut Self, p: Option<(Expr, Option<Pointee>)>, e: &Node<Expression>| match p {
                            Some((p, _)) => Ok::<_, ConjunctError>(p),
                            None => match me.val(e)? {
                                Expr::Const { bits: 0, ty: ScalarTy::Int(_), .. } => Ok(Expr::Null),
                                _ => Err("pointer compared with something other than a pointer or 0".into()),
                            },
                        };
                        let lp = side(self, l, &b.node.lhs)?;
                        let rp = side(self, r, &b.node.rhs)?;
                        let op = if b.node.operator.node == BinaryOperator::Equals { BinOp::Eq } else { BinOp::Ne };
                        return Ok(types::compare(op, lp, rp));
                    }
                }
                let op = types::map_binop(&b.node.operator.node).ok_or("assignment in an assumption")?;
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::AssignMultiply
                        | BinaryOperator::AssignDivide
                        | BinaryOperator::AssignModulo
                        | BinaryOperator::AssignPlus
                        | BinaryOperator::AssignMinus
                        | BinaryOperator::AssignShiftLeft
                        | BinaryOperator::AssignShiftRight
                        | BinaryOperator::AssignBitwiseAnd
                        | BinaryOperator::AssignBitwiseXor
                        | BinaryOperator::AssignBitwiseOr
                ) {
                    return Err("assignment in an assumption".into());
                }
                let l = self.val(&b.node.lhs)?;
                let r = self.val(&b.node.rhs)?;
                if let Some(c) = nan_equality(op, &l, &r) {
                    return Ok(c);
                }
                if let Some(read) = bit_pattern_comparison(self.cfa, op, &l, &r) {
                    return read;
                }
                Ok(types::binary_any(op, l, r)?)
            }
            Expression::Conditional(c) => {
                let cond = self.val(&c.node.condition)?;
                let t = self.val(&c.node.then_expression)?;
                let f = self.val(&c.node.else_expression)?;
                Ok(types::ite_any(cond, t, f))
            }
            Expression::Comma(_) => Err("comma operator in an assumption".into()),
            _ => Err("unsupported expression in an assumption".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_and_rewrites() {
        assert_eq!(split("a == 1; b == (2);;"), vec!["a == 1", "b == (2)"]);
        assert_eq!(split("f(a;b)"), vec!["f(a;b)"]);
        assert_eq!(legacy_assign("x = 5"), "x == 5");
        assert_eq!(legacy_assign("x == 5"), "x == 5");
        assert_eq!(legacy_assign("x <= 5"), "x <= 5");
        assert_eq!(legacy_assign("x != 5"), "x != 5");
        assert_eq!(implication("a ==> b"), "!(a ) || ( b)");
    }
}
