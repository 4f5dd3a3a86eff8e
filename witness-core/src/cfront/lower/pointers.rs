//! Lowering of pointer expressions, places in memory (`*p`, `p[i]`, `p->f`, union members),
//! pointer assignments, heap functions and calls through function pointers.
//!
//! A pointer expression lowers to a [`Expr`] plus its pointee's C type ([`Ty`]), which the
//! front end needs for scaling `p + k`, for member offsets and for the type of `*p`; the IR
//! itself counts bytes and names the type of each load.

use super::*;

/// Heap allocation functions: (name, number of arguments, zero-filled).
/// String functions: name, number of pointer arguments, and whether a count follows.
const STRING_FUNCTIONS: &[(&str, usize, bool)] =
    &[("strlen", 1, false), ("strcmp", 2, false), ("strncmp", 2, true), ("memcmp", 2, true), ("strcpy", 2, false)];

const ALLOCATORS: &[(&str, usize, bool)] = &[
    ("malloc", 1, false),
    ("__builtin_malloc", 1, false),
    ("alloca", 1, false),
    ("__builtin_alloca", 1, false),
    ("calloc", 2, true),
    ("__builtin_calloc", 2, true),
];

pub(super) use types::llong;

pub(super) fn is_zero_constant(e: &Node<Expression>) -> bool {
    match &e.node {
        Expression::Constant(c) => {
            matches!(&c.node, Constant::Integer(i) if i.number.trim_start_matches('0').is_empty())
        }
        Expression::Cast(c) => is_zero_constant(&c.node.expression),
        _ => false,
    }
}

/// `e` with pointer casts removed (`(struct T *) f(x)` → `f(x)`).
pub(super) fn strip_casts(e: &Node<Expression>) -> &Node<Expression> {
    match &e.node {
        Expression::Cast(c) => strip_casts(&c.node.expression),
        _ => e,
    }
}

impl<'a> Builder<'a> {
    /// Size of a pointee for pointer arithmetic (`void`: 1, as GNU C).
    pub(super) fn pointee_size(&self, t: &Ty) -> R<u64> {
        match t {
            Ty::Void => Ok(1),
            t => self
                .size_of(t)
                .ok_or_else(|| format!("pointer arithmetic on {} (size not known)", t.describe(self.dm)).into()),
        }
    }

    /// The static C type of an expression, where the front end can tell (enough to know
    /// whether it is a pointer and what it points to).
    pub(super) fn expr_ty(&mut self, e: &Node<Expression>) -> Option<Ty> {
        match &e.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Sym::Var(_, t)) => Some(t.clone()),
                Some(Sym::Value(k)) => match k.ty() {
                    ScalarTy::Int(t) => Some(Ty::Int(t)),
                    ScalarTy::Float(f) => Some(Ty::Float(f.name())),
                    ScalarTy::Ptr => None,
                },
                Some(_) => Some(Ty::Int(IntTy::INT)),
                None => self.front.sigs.get(&i.node.name).map(|s| Ty::Func(Box::new(s.clone()))),
            },
            Expression::Constant(_) => Some(Ty::Int(IntTy::INT)),
            Expression::StringLiteral(_) => Some(Ty::Array(Box::new(Ty::Int(IntTy::CHAR)), None)),
            Expression::CompoundLiteral(cl) => Some(self.type_name(&cl.node.type_name.node)),
            Expression::Member(m) => {
                let base = self.expr_ty(&m.node.expression)?;
                let base = if m.node.operator.node == MemberOperator::Indirect { pointee(&base)? } else { base };
                let fields = self.front.structs.fields(&base)?;
                fields.iter().find(|f| f.name == m.node.identifier.node.name).map(|f| f.ty.clone())
            }
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::Indirection => pointee(&self.expr_ty(&u.node.operand)?),
                UnaryOperator::Address => Some(Ty::Pointer(Box::new(self.expr_ty(&u.node.operand)?))),
                UnaryOperator::Negate => Some(Ty::Int(IntTy::INT)),
                _ => self.expr_ty(&u.node.operand),
            },
            Expression::BinaryOperator(b) => match b.node.operator.node {
                BinaryOperator::Index => pointee(&self.expr_ty(&b.node.lhs)?),
                BinaryOperator::Plus | BinaryOperator::Minus => {
                    let l = self.expr_ty(&b.node.lhs);
                    if let Some(t) = l.as_ref().and_then(pointee) {
                        if b.node.operator.node == BinaryOperator::Minus
                            && self.expr_ty(&b.node.rhs).as_ref().and_then(pointee).is_some()
                        {
                            return Some(Ty::Int(IntTy::new(self.dm.long_bits(), true)));
                        }
                        return Some(Ty::Pointer(Box::new(t)));
                    }
                    if b.node.operator.node == BinaryOperator::Plus {
                        if let Some(t) = self.expr_ty(&b.node.rhs).as_ref().and_then(pointee) {
                            return Some(Ty::Pointer(Box::new(t)));
                        }
                    }
                    l
                }
                BinaryOperator::Assign => self.expr_ty(&b.node.lhs),
                _ => Some(Ty::Int(IntTy::INT)),
            },
            Expression::Cast(c) => Some(self.type_name(&c.node.type_name.node)),
            Expression::Call(c) => match self.expr_ty(&c.node.callee)? {
                Ty::Func(f) => Some(f.ret.clone()),
                Ty::Pointer(t) => match *t {
                    Ty::Func(f) => Some(f.ret.clone()),
                    _ => None,
                },
                _ => None,
            },
            Expression::Conditional(c) => self.expr_ty(&c.node.then_expression),
            Expression::Comma(v) => v.last().and_then(|x| self.expr_ty(x)),
            _ => None,
        }
    }

    /// Whether `e` has pointer type (arrays and functions decay to pointers).
    pub(super) fn is_ptr_expr(&mut self, e: &Node<Expression>) -> bool {
        matches!(self.expr_ty(e), Some(Ty::Pointer(_) | Ty::Array(..) | Ty::Func(_)))
    }

    /// `*p` as a place, by the pointee's type.
    pub(super) fn deref_place(&self, p: Expr, t: Ty) -> R<Either> {
        Ok(match t {
            Ty::Int(it) if it.is_bool || it.bits % 8 == 0 => {
                Either::Scalar(Expr::Deref { ptr: Box::new(p), ty: ScalarTy::Int(it) })
            }
            Ty::Float(_) => match t.float_ty() {
                Some(fty) => Either::Scalar(Expr::Deref { ptr: Box::new(p), ty: ScalarTy::Float(fty) }),
                None => {
                    return Err(
                        format!("access to {} through a pointer (not supported yet)", t.describe(self.dm)).into()
                    )
                }
            },
            Ty::Pointer(inner) => Either::Ptr(Expr::Deref { ptr: Box::new(p), ty: ScalarTy::Ptr }, *inner),
            Ty::Struct(_) | Ty::Array(..) => Either::Mem(p, t),
            Ty::Func(_) => Either::Ptr(p, t),
            Ty::Void => return Err("dereference of a `void *`".into()),
            other => {
                return Err(
                    format!("access to {} through a pointer (not supported yet)", other.describe(self.dm)).into()
                )
            }
        })
    }

    /// Member `name` of the aggregate of type `t` at `p`.
    pub(super) fn member_at(&self, p: Expr, t: &Ty, name: &str) -> R<Either> {
        let (off, fty) = self.front.structs.member(t, name, self.dm).ok_or_else(|| {
            format!("member `{name}` of {} (not found, or its layout is not modelled)", t.describe(self.dm))
        })?;
        self.deref_place(types::offset(p, llong(off as i128)), fty)
    }

    /// `a[i]` of an array in memory at `p` with element type `elem`, or `p[i]`.
    pub(super) fn index_at(&mut self, p: Expr, elem: Ty, index: &Node<Expression>) -> R<Either> {
        let size = self.pointee_size(&elem)?;
        let i = self.rv(index)?;
        let off = types::scaled(i, size);
        self.deref_place(types::offset(p, off), elem)
    }

    /// A member access that goes through memory (`p->f`, a union member, `(*p).f`); the
    /// caller tries members of flattened struct variables first. `None`: not in memory.
    pub(super) fn member_mem(&mut self, e: &Node<Expression>) -> R<Option<Either>> {
        let Expression::Member(m) = &e.node else { return Ok(None) };
        let name = &m.node.identifier.node.name;
        if m.node.operator.node == MemberOperator::Indirect {
            let (p, t) = self.ptr_expr(&m.node.expression)?;
            return self.member_at(p, &t, name).map(Some);
        }
        match self.place(&m.node.expression) {
            Ok(Either::Mem(p, t)) => self.member_at(p, &t, name).map(Some),
            _ => Ok(None),
        }
    }

    /// Lowers a pointer-valued expression; returns it with the pointee's type.
    pub(super) fn ptr_expr(&mut self, e: &Node<Expression>) -> R<(Expr, Ty)> {
        self.nested(e, |b| b.ptr_expr_unbounded(e))
    }

    fn ptr_expr_unbounded(&mut self, e: &Node<Expression>) -> R<(Expr, Ty)> {
        let text = self.text(sp(e.span));
        let what = || LowerError::from(format!("pointer expression `{text}` (not supported yet)"));
        if is_zero_constant(e) {
            let t = match self.expr_ty(e) {
                Some(Ty::Pointer(t)) => *t,
                _ => Ty::Void,
            };
            return Ok((Expr::Null, t));
        }
        match &e.node {
            Expression::StringLiteral(s) => {
                let bytes = string_bytes(&s.node)?;
                Ok((
                    Expr::AddrOf { var: self.string_object(bytes), offset: Box::new(Expr::int(0)) },
                    Ty::Int(IntTy::CHAR),
                ))
            }
            Expression::Identifier(i) => {
                if self.lookup(&i.node.name).is_none() {
                    if let Some(&id) = self.front.func_ids.get(&i.node.name) {
                        let sig = self.front.sigs.get(&i.node.name).cloned().ok_or_else(what)?;
                        return Ok((Expr::Func(id), Ty::Func(Box::new(sig))));
                    }
                }
                let place = self.place(e)?;
                self.decay(place).ok_or_else(what)
            }
            Expression::Cast(c) => {
                let t = self.type_name(&c.node.type_name.node);
                let Ty::Pointer(to) = t else { return Err(what()) };
                let inner = &c.node.expression;
                if !self.is_ptr_expr(inner) && matches!(self.expr_ty(inner), Some(Ty::Int(_))) {
                    // An integer converted to a pointer (decision 51).
                    let v = self.rv(inner)?;
                    return Ok((Expr::Cast { arg: Box::new(v), to: ScalarTy::Ptr }, *to));
                }
                let (p, _) = self.ptr_expr(inner)?;
                Ok((p, *to))
            }
            Expression::UnaryOperator(u)
                if matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement
                        | UnaryOperator::PostDecrement
                        | UnaryOperator::PreIncrement
                        | UnaryOperator::PreDecrement
                ) && matches!(self.expr_ty(&u.node.operand), Some(Ty::Pointer(_))) =>
            {
                // `p++` / `--p` as a pointer value (`*p++ = 0`): the increment is its own step;
                // a postfix one first copies the old value into a temporary.
                let operand = &u.node.operand;
                let op = u.node.operator.node.clone();
                let inc = matches!(op, UnaryOperator::PostIncrement | UnaryOperator::PreIncrement);
                let post = matches!(op, UnaryOperator::PostIncrement | UnaryOperator::PostDecrement);
                let t = self.expr_ty(operand).as_ref().and_then(pointee).ok_or("pointer type")?;
                Ok((self.incdec_value(operand, inc, post, text.clone())?, t))
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                let operand = &u.node.operand;
                match &operand.node {
                    // `&f` of a function, and `&*p` (which is `p`, also for function pointers).
                    Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => return self.ptr_expr(operand),
                    Expression::UnaryOperator(d) if d.node.operator.node == UnaryOperator::Indirection => {
                        return self.ptr_expr(&d.node.operand)
                    }
                    Expression::Identifier(i)
                        if matches!(self.lookup(&i.node.name), Some(Sym::Var(_, Ty::Array(_, None)))) =>
                    {
                        return Err(format!(
                            "address of the variable-length array `{}` (not supported yet)",
                            i.node.name
                        )
                        .into());
                    }
                    _ => {}
                }
                let Some(t) = self.expr_ty(operand) else {
                    return Err(self.names_nothing(operand).unwrap_or_else(what));
                };
                let p = match self.place(operand)? {
                    Either::Scalar(Expr::Var { var, ty: ScalarTy::Int(_), .. })
                    | Either::Scalar(Expr::Var { var, ty: ScalarTy::Float(_), .. }) => self.addr_of_var(var)?,
                    Either::Ptr(Expr::Var { var, ty: ScalarTy::Ptr }, _) => self.addr_of_var(var)?,
                    Either::Scalar(Expr::Elem { var, index, ty: ScalarTy::Int(ty), .. }) => {
                        let size = (if ty.is_bool { 8 } else { ty.bits }) as u64 / 8;
                        Expr::AddrOf { var, offset: Box::new(types::scaled(*index, size)) }
                    }
                    Either::Scalar(Expr::Elem { var, index, ty: ScalarTy::Float(fty), .. }) => {
                        Expr::AddrOf { var, offset: Box::new(types::scaled(*index, fty.bits() as u64 / 8)) }
                    }
                    Either::Scalar(Expr::Deref { ptr, ty: ScalarTy::Int(_), .. })
                    | Either::Scalar(Expr::Deref { ptr, ty: ScalarTy::Float(_), .. }) => *ptr,
                    Either::Ptr(Expr::Deref { ptr, ty: ScalarTy::Ptr }, _) => *ptr,
                    Either::Mem(p, _) => p,
                    Either::Arr(a) if a.acc.is_none() => self.addr_of_var(a.var)?,
                    _ => return Err(what()),
                };
                Ok((p, t))
            }
            Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, BinaryOperator::Plus | BinaryOperator::Minus) =>
            {
                let neg = b.node.operator.node == BinaryOperator::Minus;
                let (pe, ke) = if !neg && self.is_ptr_expr(&b.node.rhs) {
                    (&b.node.rhs, &b.node.lhs)
                } else {
                    (&b.node.lhs, &b.node.rhs)
                };
                let (p, t) = self.ptr_expr(pe)?;
                let size = self.pointee_size(&t)?;
                let k = self.rv(ke)?;
                let k = if neg { types::unary(UnOp::Neg, conv(types::promote(k), IntTy::LLONG)) } else { k };
                let off = types::scaled(k, size);
                Ok((types::offset(p, off), t))
            }
            Expression::UnaryOperator(_) | Expression::Member(_) | Expression::BinaryOperator(_) => {
                let place = self.place(e)?;
                self.decay(place).ok_or_else(what)
            }
            Expression::Call(c) => {
                // A pointer result used in an expression (`return alloc(n);`, `f(g(x))`, `*h()`):
                // the call stores it into a pointer temporary, as integer results do.
                let t = match self.expr_ty(e) {
                    Some(Ty::Pointer(t)) => *t,
                    // An undeclared allocator returns `void *`.
                    None if ALLOCATORS.iter().any(|(f, _, _)| self.call_name(c).is_ok_and(|n| n == *f)) => Ty::Void,
                    _ => return Err(what()),
                };
                if self.pure_mode {
                    return Err(format!("call `{text}` where a side-effect-free expression is needed").into());
                }
                let f = self.f.as_ref().map(|f| f.id).ok_or("temporary outside a function")?;
                self.tmp_counter += 1;
                let name = format!("__tmp_{}", self.tmp_counter);
                let tmp = self.new_var(&name, &Ty::Pointer(Box::new(t.clone())), VarScope::Local(f), (0, 0), true);
                self.call(c, Some(Target::Scalar(Place::Var { var: tmp, ty: ScalarTy::Ptr })), self.stmt_sp)?;
                Ok((Expr::Var { var: tmp, ty: ScalarTy::Ptr }, t))
            }
            Expression::CompoundLiteral(_) => {
                let id = self.compound_literal(e)?;
                self.ptr_expr(&id)
            }
            _ => Err(what()),
        }
    }

    /// The address of a variable's object (flattened struct leaves are objects of their own,
    /// so only the leaf itself may be addressed).
    fn addr_of_var(&self, var: VarId) -> R<Expr> {
        match self.cfa.var(var).ty {
            CType::Unsupported(ref w) => {
                Err(format!("address of `{}` of type {w} (not supported yet)", self.cfa.var(var).name).into())
            }
            _ => Ok(Expr::AddrOf { var, offset: Box::new(llong(0)) }),
        }
    }

    /// A place's value as a pointer: a pointer value, or an array / function that decays.
    fn decay(&self, place: Either) -> Option<(Expr, Ty)> {
        match place {
            Either::Ptr(p, t) => Some((p, t)),
            Either::Mem(p, Ty::Array(t, _)) => Some((p, *t)),
            Either::Arr(a) if a.acc.is_none() && a.rest.len() == 1 => {
                let t = match a.elem {
                    ScalarTy::Int(i) => Ty::Int(i),
                    ScalarTy::Float(f) => Ty::Float(f.name()),
                    ScalarTy::Ptr => return None,
                };
                Some((Expr::AddrOf { var: a.var, offset: Box::new(llong(0)) }, t))
            }
            _ => None,
        }
    }

    /// A pointer-valued place as an assignable pointer.
    pub(super) fn plvalue(&mut self, e: &Node<Expression>) -> R<Place> {
        match self.place(e)? {
            Either::Ptr(Expr::Var { var, ty: ScalarTy::Ptr }, _) => Ok(Place::Var { var, ty: ScalarTy::Ptr }),
            Either::Ptr(Expr::Deref { ptr, ty: ScalarTy::Ptr }, _) => Ok(Place::Deref { ptr: *ptr, ty: ScalarTy::Ptr }),
            _ => Err(format!("assignment to `{}` (not an assignable pointer)", self.text(sp(e.span))).into()),
        }
    }

    /// `lhs op= rhs` where `lhs` is a pointer.
    pub(super) fn ptr_assign(&mut self, b: &Node<BinaryOperatorExpression>) -> R<()> {
        let ssp = self.stmt_sp;
        let text = self.text(ssp);
        let lhs = self.plvalue(&b.node.lhs)?;
        match &b.node.operator.node {
            BinaryOperator::Assign => self.ptr_store(lhs, &b.node.rhs, ssp),
            op @ (BinaryOperator::AssignPlus | BinaryOperator::AssignMinus) => {
                let minus = *op == BinaryOperator::AssignMinus;
                let t = self.expr_ty(&b.node.lhs).as_ref().and_then(pointee).ok_or("pointer type")?;
                let size = self.pointee_size(&t)?;
                let k = self.rv(&b.node.rhs)?;
                let k = conv(types::promote(k), IntTy::LLONG);
                let k = if minus { types::unary(UnOp::Neg, k) } else { k };
                let rhs = types::offset(lhs.read(), types::scaled(k, size));
                self.emit(EdgeOp::Assign { lhs, rhs }, ssp, text)
            }
            _ => Err(format!("operator on a pointer in `{text}` (not supported)").into()),
        }
    }

    /// Stores the pointer value of `rhs` into `lhs` (one step; a call stores its result).
    pub(super) fn ptr_store(&mut self, lhs: Place, rhs: &Node<Expression>, ssp: Sp) -> R<()> {
        let text = self.text(ssp);
        if let Expression::Call(c) = &strip_casts(rhs).node {
            return self.call(c, Some(Target::Scalar(lhs)), ssp);
        }
        let (p, _) = self.ptr_expr(rhs)?;
        self.emit(EdgeOp::Assign { lhs, rhs: p }, ssp, text)
    }

    /// `T *v = e;` (a declaration step; a call stores its result in one step).
    pub(super) fn ptr_store_init(&mut self, v: VarId, e: &Node<Expression>, dsp: Sp) -> R<()> {
        if let Expression::Call(c) = &strip_casts(e).node {
            return self.call(c, Some(Target::Scalar(Place::Var { var: v, ty: ScalarTy::Ptr })), dsp);
        }
        let (p, _) = self.ptr_expr(e)?;
        let text = self.text(dsp);
        self.emit(EdgeOp::Declare { var: v, init: Some(Init::Scalar(p)) }, dsp, text)
    }

    /// Heap functions (`malloc`, `calloc`, `alloca`, `free`); `None` if `name` is not one (or
    /// the program defines it).
    pub(super) fn heap_call(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
        lhs: &Option<Target>,
        csp: Sp,
    ) -> Option<R<()>> {
        if self.front.func_ids.contains_key(name) {
            return None;
        }
        let args = &c.node.arguments;
        let text = self.text(csp);
        if name == "free" || name == "__builtin_free" {
            return Some((|| {
                let [a] = &args[..] else { return Err("free needs one argument".into()) };
                if lhs.is_some() {
                    return Err("value of `free` used".into());
                }
                let (ptr, _) = self.ptr_expr(a)?;
                self.note_call(c.span);
                self.emit(EdgeOp::Free { ptr }, csp, text)
            })());
        }
        let base = name.strip_prefix("__builtin_").unwrap_or(name);
        if let Some(&(_, nptrs, counted)) = STRING_FUNCTIONS.iter().find(|(f, _, _)| *f == base) {
            return Some((|| {
                if args.len() != nptrs + usize::from(counted) {
                    return Err(format!("`{name}` with {} argument(s)", args.len()).into());
                }
                let mut ptrs = Vec::new();
                for a in &args[..nptrs] {
                    ptrs.push(self.ptr_expr(a)?.0);
                }
                let ulong = IntTy::new(self.dm.long_bits(), false);
                let n = if counted { Some(conv(self.rv(&args[nptrs])?, ulong)) } else { None };
                self.note_call(c.span);
                let op = EdgeOp::StrFn { function: base.to_string(), args: ptrs, n, lhs: lhs.clone() };
                self.emit(op, csp, text)
            })());
        }
        if matches!(base, "realloc" | "memset" | "memcpy" | "memmove") {
            return Some((|| {
                if args.len() != if base == "realloc" { 2 } else { 3 } {
                    return Err(format!("`{name}` with {} argument(s)", args.len()).into());
                }
                let lhs = match lhs {
                    None => None,
                    Some(Target::Scalar(p)) if p.ty() == ScalarTy::Ptr => Some(p.clone()),
                    Some(_) => return Err(format!("result of `{name}` stored into a non-pointer").into()),
                };
                let ulong = IntTy::new(self.dm.long_bits(), false);
                let (dst, _) = self.ptr_expr(&args[0])?;
                let size = conv(self.rv(&args[args.len() - 1])?, ulong);
                let op = match base {
                    "realloc" => EdgeOp::Realloc { lhs, ptr: dst, size },
                    _ => {
                        let src = match base {
                            "memset" => MemSource::Byte(conv(conv(self.rv(&args[1])?, IntTy::INT), IntTy::UCHAR)),
                            _ => MemSource::Copy { src: self.ptr_expr(&args[1])?.0, overlap_ok: base == "memmove" },
                        };
                        EdgeOp::MemBytes { function: name.to_string(), lhs, dst, src: Box::new(src), n: size }
                    }
                };
                self.note_call(c.span);
                self.emit(op, csp, text)
            })());
        }
        let &(_, n, zeroed) = ALLOCATORS.iter().find(|(f, _, _)| *f == name)?;
        Some((|| {
            if args.len() != n {
                return Err(format!("`{name}` needs {n} argument(s)").into());
            }
            let ulong = IntTy::new(self.dm.long_bits(), false);
            let mut size = conv(self.rv(&args[0])?, ulong);
            let mut overflow = None;
            if n == 2 {
                let m = conv(self.rv(&args[1])?, ulong);
                // n·m overflows `size_t` iff m != 0 and n > SIZE_MAX / m (the divisor is never 0).
                let konst = |bits: u64| Expr::Const { bits: bits & ulong.mask(), ty: ScalarTy::Int(ulong) };
                let zero = types::binary(BinOp::Eq, m.clone(), konst(0));
                let divisor = Expr::Ite {
                    cond: Box::new(zero),
                    then: Box::new(konst(1)),
                    els: Box::new(m.clone()),
                    ty: ScalarTy::Int(ulong),
                };
                let limit = types::binary(BinOp::Div, konst(u64::MAX), divisor);
                overflow = Some(types::binary(BinOp::Gt, size.clone(), limit));
                size = types::binary(BinOp::Mul, size, m);
            }
            let lhs = match lhs {
                None => None,
                Some(Target::Scalar(p)) if p.ty() == ScalarTy::Ptr => Some(p.clone()),
                Some(_) => return Err(format!("result of `{name}` stored into a non-pointer").into()),
            };
            self.note_call(c.span);
            let stack = matches!(name, "alloca" | "__builtin_alloca");
            self.emit(EdgeOp::Alloc { function: name.to_string(), lhs, size, zeroed, overflow, stack }, csp, text)
        })())
    }

    /// Whether a call goes through a function pointer (the callee is not a function name).
    pub(super) fn is_indirect_call(&self, c: &Node<CallExpression>) -> bool {
        match &c.node.callee.node {
            Expression::Identifier(i) => matches!(self.lookup(&i.node.name), Some(Sym::Var(..))),
            _ => true,
        }
    }

    /// A call through a function pointer.
    pub(super) fn call_ptr(&mut self, c: &Node<CallExpression>, lhs: Option<Target>, csp: Sp) -> R<()> {
        let text = self.text(csp);
        if self.pure_mode {
            return Err(format!("call through `{}` where a side-effect-free expression is needed", text).into());
        }
        let (fptr, t) = self.ptr_expr(&c.node.callee)?;
        let Ty::Func(sig) = t else {
            return Err(format!(
                "call through `{}`, which is not a function pointer",
                self.text(sp(c.node.callee.span))
            )
            .into());
        };
        let Some(ptys) = &sig.params else {
            return Err("call through a function pointer without prototype (not supported yet)".into());
        };
        if sig.variadic {
            return Err("call through a pointer to a variadic function (not supported yet)".into());
        }
        if lhs.is_some() && sig.ret == Ty::Void {
            return Err("value of a void function used".into());
        }
        let args = self.lower_args("the function pointer", &c.node.arguments, ptys)?;
        self.note_call(c.span);
        self.emit(EdgeOp::CallPtr { fptr, args, lhs }, csp, text)
    }

    /// Does `e` call a `__VERIFIER_nondet_*` function?
    fn calls_nondet(&self, e: &Node<Expression>) -> bool {
        struct Calls<'b, 'a> {
            b: &'b Builder<'a>,
            found: bool,
        }
        impl<'ast> lang_c::visit::Visit<'ast> for Calls<'_, '_> {
            fn visit_call_expression(&mut self, c: &'ast CallExpression, span: &'ast lang_c::span::Span) {
                if self.found {
                    return;
                }
                if let Expression::Identifier(i) = &c.callee.node {
                    let name = i.node.name.as_str();
                    if name.starts_with("__VERIFIER_nondet_") && !self.b.front.func_ids.contains_key(name) {
                        self.found = true;
                    }
                }
                lang_c::visit::visit_call_expression(self, c, span);
            }
        }
        let mut v = Calls { b: self, found: false };
        lang_c::visit::Visit::visit_expression(&mut v, &e.node, &e.span);
        v.found
    }

    /// Call arguments converted to the parameter types.
    pub(super) fn lower_args(&mut self, name: &str, args: &[Node<Expression>], ptys: &[Ty]) -> R<Vec<Expr>> {
        if ptys.len() != args.len() {
            return Err(format!("call to `{name}` with {} arguments, expected {}", args.len(), ptys.len()).into());
        }
        // Issue 19, cause 12: several arguments that call a nondet function.
        if args.iter().filter(|a| self.calls_nondet(a)).count() >= 2 {
            if let Some(span) = args.first().and_then(|a| self.span_of(super::sp(a.span))) {
                self.cfa.unordered_nondet.insert(span.start_line);
            }
        }
        let mut vals = Vec::new();
        for (i, (a, t)) in args.iter().zip(ptys).enumerate() {
            let v = match t {
                Ty::Pointer(_) => self.ptr_expr(a)?.0,
                Ty::Int(t) => self.rv_any(a)?.into_int(*t),
                Ty::Float(_) if t.float_ty().is_some() => self.rv_any(a)?.into_float(t.float_ty().ok_or("float type")?),
                Ty::Struct(k) if k.starts_with("struct ") => {
                    vals.extend(self.struct_arg(name, a, t)?);
                    continue;
                }
                // (Not through a function pointer: the callee's parameters are not known here.)
                Ty::Struct(k) if self.front.transparent_unions.contains(k) && name != "the function pointer" => {
                    self.transparent_arg(name, i, a, t)?
                }
                // Other unions included (decision 107).
                _ => {
                    return Err(format!(
                        "call to `{name}` whose parameter {} has type {} (not supported yet)",
                        i + 1,
                        t.describe(self.dm)
                    )
                    .into())
                }
            };
            vals.push(v);
        }
        Ok(vals)
    }

    /// Decision 137: the argument `a` for parameter `i` (0-based) of transparent union type
    /// `t`: a value of one of its member types, which fills the union (the callee stores it in
    /// the parameter's first bytes, see `DataState::push_frame`).
    fn transparent_arg(&mut self, name: &str, i: usize, a: &Node<Expression>, t: &Ty) -> R<Expr> {
        let dm = self.dm;
        let why = |what: &str| {
            format!(
                "call to `{name}` whose parameter {} has the transparent union type {}, with {what} (not supported yet)",
                i + 1,
                t.describe(dm)
            )
        };
        let arg = match self.typeof_expr(a) {
            Ty::Array(e, _) => Ty::Pointer(e),
            f @ Ty::Func(_) => Ty::Pointer(Box::new(f)),
            other => other,
        };
        let fields = self.front.structs.fields(t).unwrap_or_default();
        let members: Vec<Ty> = fields.iter().filter(|f| f.bit_width.is_none()).map(|f| f.ty.clone()).collect();
        let size = self.front.structs.layout(t, self.dm).map(|(s, _)| s);
        let Some(m) = members.into_iter().find(|m| *m == arg) else {
            return Err(why("an argument of none of its member types").into());
        };
        if size.is_none() || self.front.structs.layout(&m, self.dm).map(|(s, _)| s) != size {
            return Err(why("an argument of a member type smaller than the union").into());
        }
        Ok(match &m {
            Ty::Pointer(_) => self.ptr_expr(a)?.0,
            Ty::Int(it) => self.rv_any(a)?.into_int(*it),
            _ => return Err(why("an argument of a member type that is not an integer or a pointer").into()),
        })
    }

    /// The scalar leaves of a struct argument, in the order of the parameter's leaves: from a
    /// flattened struct variable, or loaded from a struct in memory.
    pub(super) fn struct_arg(&mut self, name: &str, a: &Node<Expression>, t: &Ty) -> R<Vec<Expr>> {
        let unsupported = || format!("call to `{name}` with a struct argument of this kind (not supported yet)");
        let leaves = self.front.structs.leaves(t)?;
        let mut out = Vec::new();
        if self.is_struct_lvalue(a) {
            let (sv, spath, sty) = self.struct_path(a)?;
            if &sty != t {
                return Err(format!("call to `{name}` with a struct argument of another type").into());
            }
            let src = self.leaves_under(sv, &spath);
            for (path, lty) in &leaves {
                let (_, var, _) = src.iter().find(|(p, _, _)| p == path).ok_or_else(unsupported)?;
                out.push(leaf_value(*var, Self::scalar_ty(lty, self.dm).ok_or_else(unsupported)?));
            }
            return Ok(out);
        }
        let Either::Mem(p, sty) = self.place(a)? else { return Err(unsupported().into()) };
        if &sty != t {
            return Err(format!("call to `{name}` with a struct argument of another type").into());
        }
        for (path, lty) in &leaves {
            let st = Self::scalar_ty(lty, self.dm).ok_or_else(unsupported)?;
            out.push(load_value(self.leaf_address(&p, t, path)?, st));
        }
        Ok(out)
    }

    /// A pointer comparison `l op r` (either operand may be the null constant).
    pub(super) fn ptr_compare(&mut self, op: BinOp, l: &Node<Expression>, r: &Node<Expression>) -> R<Expr> {
        let (a, _) = self.ptr_expr(l)?;
        let (b, _) = self.ptr_expr(r)?;
        Ok(types::compare(op, a, b))
    }

    /// The read-only object of a string literal used as a pointer (one per distinct text): a
    /// hidden global `char` array holding its bytes and the terminating NUL (C11 6.4.5p6).
    fn string_object(&mut self, bytes: Vec<u8>) -> VarId {
        if let Some(&v) = self.strings.get(&bytes) {
            return v;
        }
        let name = format!("__string_literal_{}", self.strings.len());
        let whole = (0, self.cfa.source_len);
        let ty = Ty::Array(Box::new(Ty::Int(IntTy::CHAR)), Some(bytes.len() as u64 + 1));
        let v = self.new_var(&name, &ty, VarScope::Global, whole, true);
        let cells: Vec<(u64, Expr)> = bytes
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (i as u64, Expr::Const { bits: *b as u64 & IntTy::CHAR.mask(), ty: ScalarTy::Int(IntTy::CHAR) })
            })
            .collect();
        self.cfa.vars[v.0 as usize].read_only = true;
        self.cfa.global_inits.push((v, Init::Array(cells)));
        self.strings.insert(bytes, v);
        v
    }

    /// `l - r` of two pointers: their distance in elements, as `ptrdiff_t` (`long`).
    pub(super) fn ptr_diff(&mut self, l: &Node<Expression>, r: &Node<Expression>) -> R<Expr> {
        let (a, ta) = self.ptr_expr(l)?;
        let (b, tb) = self.ptr_expr(r)?;
        let size = match &ta {
            Ty::Void => 1, // GNU C: arithmetic on `void *` counts bytes
            t => self
                .front
                .structs
                .layout(t, self.dm)
                .map(|(s, _)| s)
                .ok_or("pointer difference of an incomplete type")?,
        };
        let size_b = match &tb {
            Ty::Void => 1,
            t => self.front.structs.layout(t, self.dm).map(|(s, _)| s).unwrap_or(0),
        };
        if size == 0 || size != size_b {
            return Err("pointer difference between pointers to different types".into());
        }
        let ty = IntTy::new(self.dm.long_bits(), true);
        // Issue 51 cause 3: undefined unless a whole number of elements apart, which no
        // sanitizer checks; the program's (a witness expression is checked by its own rules).
        if size > 1 && self.witness.is_none() {
            let line = self.span_of(super::sp(l.span)).map_or(0, |s| s.start_line);
            self.cfa.scaled_ptr_diffs.insert(line);
        }
        Ok(Expr::PtrDiff { lhs: Box::new(a), rhs: Box::new(b), size, ty })
    }

    /// `p` as a condition: `p != NULL`.
    pub(super) fn ptr_truth(&mut self, e: &Node<Expression>) -> R<Expr> {
        let (p, _) = self.ptr_expr(e)?;
        Ok(p.truth())
    }
}

/// What a pointer (or a decaying array or function) type points to.
pub(super) fn pointee(t: &Ty) -> Option<Ty> {
    match t {
        Ty::Pointer(t) | Ty::Array(t, _) => Some((**t).clone()),
        Ty::Func(_) => Some(t.clone()),
        _ => None,
    }
}
