//! Expressions: places, reads, assignments, side effects and values of every type.

use super::pointers::llong;
use super::*;

impl<'a> Builder<'a> {
    pub(super) fn var_either(&self, v: VarId, ty: &Ty, name: &str) -> R<Either> {
        match (&self.cfa.var(v).ty, ty) {
            // A pointer, or a variable-length array (a pointer to its block, see `vla_decl`).
            (CType::Ptr, Ty::Pointer(t) | Ty::Array(t, None)) => {
                return Ok(Either::Ptr(Expr::Var { var: v, ty: ScalarTy::Ptr }, (**t).clone()))
            }
            (CType::Bytes { .. }, _) => {
                return Ok(Either::Mem(Expr::AddrOf { var: v, offset: Box::new(Expr::int(0)) }, ty.clone()))
            }
            _ => {}
        }
        match ty.to_ctype(self.dm) {
            CType::Int(t) => Ok(Either::Scalar(Expr::Var { var: v, ty: ScalarTy::Int(t) })),
            CType::Float(fty) => Ok(Either::Scalar(Expr::Var { var: v, ty: ScalarTy::Float(fty) })),
            CType::Array { elem, dims } => {
                let len = dims.iter().product();
                Ok(Either::Arr(ArrRef { var: v, elem: ScalarTy::Int(elem), rest: dims, acc: None, len }))
            }
            CType::FloatArray { elem, dims } => {
                let len = dims.iter().product();
                Ok(Either::Arr(ArrRef { var: v, elem: ScalarTy::Float(elem), rest: dims, acc: None, len }))
            }
            _ => Err(format!("use of `{name}` of type {} (not supported yet)", ty.describe(self.dm)).into()),
        }
    }

    pub(super) fn var_expr(&self, name: &str) -> R<Either> {
        match self.lookup(name) {
            Some(Sym::Var(v, ty)) => self.var_either(*v, ty, name),
            Some(Sym::Value(k)) => Ok(Either::Scalar(k.clone())),
            Some(Sym::Unsupported(m)) => Err(m.clone().into()),
            Some(Sym::Typedef(_)) => Err(format!("type name `{name}` used as a value").into()),
            None => {
                let function = self.front.func_ids.contains_key(name) || self.front.sigs.contains_key(name);
                if function && self.witness.is_none() {
                    Err(format!("function `{name}` used as a value (function pointers are not supported yet)").into())
                } else {
                    Err(self.unknown_name(name))
                }
            }
        }
    }

    /// Lowers an array indexing / identifier to either a partially indexed array or a value.
    pub(super) fn place(&mut self, e: &Node<Expression>) -> R<Either> {
        match &e.node {
            Expression::Identifier(i) => self.var_expr(&i.node.name),
            Expression::CompoundLiteral(_) => {
                let id = self.compound_literal(e)?;
                self.place(&id)
            }
            Expression::Member(_) => match self.member_place(e) {
                Ok(x) => Ok(x),
                Err(m) => self.member_mem(e)?.ok_or(m),
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                let (p, t) = self.ptr_expr(&u.node.operand)?;
                self.deref_place(p, t)
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let (arr, idx) = if self.is_ptr_expr(&b.node.lhs) || !self.is_ptr_expr(&b.node.rhs) {
                    (&b.node.lhs, &b.node.rhs)
                } else {
                    (&b.node.rhs, &b.node.lhs)
                };
                let is_place = match &arr.node {
                    Expression::Identifier(_) | Expression::Member(_) => true,
                    Expression::BinaryOperator(x) => x.node.operator.node == BinaryOperator::Index,
                    Expression::UnaryOperator(x) => x.node.operator.node == UnaryOperator::Indirection,
                    _ => false,
                };
                if !is_place {
                    let (p, t) = self.ptr_expr(arr)?;
                    return self.index_at(p, t, idx);
                }
                let base = self.place(arr)?;
                let base = match base {
                    Either::Ptr(p, t) => return self.index_at(p, t, idx),
                    Either::Mem(p, Ty::Array(t, _)) => return self.index_at(p, *t, idx),
                    other => other,
                };
                let Either::Arr(mut a) = base else {
                    return Err(format!(
                        "indexing `{}` which is not an array (pointers are not supported yet)",
                        self.text(sp(b.node.lhs.span))
                    )
                    .into());
                };
                let i = self.rv(&b.node.rhs)?;
                let i = conv(types::promote(i), IntTy::LLONG);
                let d = a.rest.remove(0);
                let acc = match a.acc.take() {
                    None => i,
                    Some(prev) => {
                        let m =
                            types::binary(BinOp::Mul, prev, Expr::Const { bits: d, ty: ScalarTy::Int(IntTy::LLONG) });
                        types::binary(BinOp::Add, m, i)
                    }
                };
                if a.rest.is_empty() {
                    if a.elem == ScalarTy::Ptr {
                        return Err("array of pointers (not supported yet)".into());
                    }
                    Ok(Either::Scalar(Expr::Elem { var: a.var, index: Box::new(acc), len: a.len, ty: a.elem }))
                } else {
                    a.acc = Some(acc);
                    Ok(Either::Arr(a))
                }
            }
            _ => Ok(Either::Scalar(self.rv_any(e)?)),
        }
    }

    /// The integer place an lvalue expression designates.
    pub(super) fn lv(&mut self, e: &Node<Expression>) -> R<Place> {
        match &e.node {
            Expression::Identifier(_) | Expression::BinaryOperator(_) => {}
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {}
            Expression::Member(_) => {}
            _ => return Err(format!("assignment to `{}` (not supported)", self.text(sp(e.span))).into()),
        }
        if let Expression::BinaryOperator(b) = &e.node {
            if b.node.operator.node != BinaryOperator::Index {
                return Err(format!("assignment to `{}` (not supported)", self.text(sp(e.span))).into());
            }
        }
        match self.place(e)? {
            Either::Scalar(Expr::Var { var, ty: ScalarTy::Int(ty) }) => Ok(Place::Var { var, ty: ScalarTy::Int(ty) }),
            Either::Scalar(Expr::Elem { var, index, len, ty: ScalarTy::Int(ty) }) => {
                Ok(Place::Elem { var, index: *index, len, ty: ScalarTy::Int(ty) })
            }
            Either::Scalar(Expr::Deref { ptr, ty: ScalarTy::Int(ty) }) => {
                Ok(Place::Deref { ptr: *ptr, ty: ScalarTy::Int(ty) })
            }
            Either::Ptr(..) => {
                Err(format!("`{}` is a pointer where an integer lvalue is needed", self.text(sp(e.span))).into())
            }
            Either::Arr(_) | Either::Mem(..) => {
                Err(format!("assignment to the aggregate `{}` (not supported)", self.text(sp(e.span))).into())
            }
            Either::Scalar(f) if f.float_ty().is_some() => Err(format!(
                "`{}` of floating type used where an integer lvalue is needed (not supported yet)",
                self.text(sp(e.span))
            )
            .into()),
            Either::Scalar(_) => Err(format!("`{}` is not assignable", self.text(sp(e.span))).into()),
        }
    }

    /// The type of an integer place (as [`Self::lv`] builds).
    pub(super) fn int_ty(lv: &Place) -> IntTy {
        lv.int_ty().expect("an integer place")
    }

    /// The type of a floating-point place (as [`Self::float_lvalue`] builds).
    pub(super) fn float_ty(flv: &Place) -> FloatTy {
        flv.float_ty().expect("a floating-point place")
    }

    /// Lowers an expression whose value is unused.
    pub(super) fn effect(&mut self, e: &Node<Expression>, ssp: Sp) -> R<()> {
        match &e.node {
            Expression::Call(c) => self.call(c, None, ssp),
            Expression::Comma(v) => {
                for x in v.iter() {
                    self.effect(x, ssp)?;
                }
                Ok(())
            }
            Expression::UnaryOperator(u)
                if matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement
                        | UnaryOperator::PreIncrement
                        | UnaryOperator::PostDecrement
                        | UnaryOperator::PreDecrement
                ) =>
            {
                let inc = matches!(u.node.operator.node, UnaryOperator::PostIncrement | UnaryOperator::PreIncrement);
                self.incdec(&u.node.operand, inc)
            }
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Assign && self.is_struct_lvalue(&b.node.lhs) =>
            {
                if let Expression::Call(c) = &b.node.rhs.node {
                    let (dv, dp, dty) = self.struct_path(&b.node.lhs)?;
                    let leaves = self.leaves_under(dv, &dp);
                    let target = self.struct_call_target(c, StructDst::Leaves(leaves, dty))?;
                    return self.call(c, Some(target), ssp);
                }
                let writes = self.struct_copy_writes(&b.node.lhs, &b.node.rhs)?;
                let text = self.text(self.stmt_sp);
                self.emit(EdgeOp::AssignAll { writes }, self.stmt_sp, text)
            }
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Assign
                    && matches!(self.expr_ty(&b.node.lhs), Some(Ty::Struct(_))) =>
            {
                self.mem_struct_copy(&b.node.lhs, &b.node.rhs)
            }
            Expression::BinaryOperator(b)
                if types::is_assign_op(&b.node.operator.node)
                    && matches!(self.expr_ty(&b.node.lhs), Some(Ty::Pointer(_))) =>
            {
                self.ptr_assign(b)
            }
            Expression::BinaryOperator(b) if types::is_assign_op(&b.node.operator.node) => {
                self.assign_any(e, b).map(|_| ())
            }
            Expression::Cast(c) => self.effect(&c.node.expression, ssp),
            Expression::Conditional(c) if has_side_effects(&e.node) => {
                let t = self.new_node();
                let f = self.new_node();
                let join = self.new_node();
                self.branch(&c.node.condition, t, f, false)?;
                self.cur = t;
                self.effect(&c.node.then_expression, ssp)?;
                let x = self.cur;
                self.blank(x, join);
                self.cur = f;
                self.effect(&c.node.else_expression, ssp)?;
                let x = self.cur;
                self.blank(x, join);
                self.cur = join;
                Ok(())
            }
            Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr)
                    && has_side_effects(&b.node.rhs.node) =>
            {
                let t = self.new_node();
                self.branch(e, t, t, false)?;
                self.cur = t;
                Ok(())
            }
            Expression::Statement(st) => {
                let r = match self.stmt_expr_prefix(st)? {
                    Some(last) => self.effect(last, ssp),
                    None => Ok(()),
                };
                self.scopes.pop();
                r
            }
            _ => {
                // Evaluate for side effects (hoisted calls); the value is dropped.
                match self.place(e)? {
                    Either::Scalar(_) | Either::Arr(_) | Either::Ptr(..) | Either::Mem(..) => Ok(()),
                }
            }
        }
    }

    /// `x++`, `--x` as one step: an integer place gets `x ± 1` converted to its type, a pointer
    /// `p ± sizeof *p` (floats are refused by `lv`).
    pub(super) fn incdec(&mut self, operand: &Node<Expression>, inc: bool) -> R<()> {
        let (lhs, rhs) = match self.expr_ty(operand) {
            Some(Ty::Pointer(t)) => {
                let size = self.pointee_size(&t)? as i128;
                let lhs = self.plvalue(operand)?;
                let rhs = types::offset(lhs.read(), llong(if inc { size } else { -size }));
                (lhs, rhs)
            }
            _ => {
                let lhs = self.lv(operand)?;
                let t = Self::int_ty(&lhs);
                let op = if inc { BinOp::Add } else { BinOp::Sub };
                let rhs = conv(types::binary(op, lhs.read(), Expr::int(1)), t);
                (lhs, rhs)
            }
        };
        let text = self.text(self.stmt_sp);
        self.emit(EdgeOp::Assign { lhs, rhs }, self.stmt_sp, text)
    }

    /// The value of `++x`, `x--` and friends on an integer or a pointer: the increment is its own
    /// step; a postfix one first copies the old value into a temporary (`text` names the step).
    pub(super) fn incdec_value(&mut self, operand: &Node<Expression>, inc: bool, post: bool, text: String) -> R<Expr> {
        if !post {
            self.incdec(operand, inc)?;
            return Ok(match self.expr_ty(operand) {
                Some(Ty::Pointer(_)) => self.ptr_expr(operand)?.0,
                _ => self.lv(operand)?.read(),
            });
        }
        let (old, ty) = match self.expr_ty(operand) {
            Some(Ty::Pointer(_)) => {
                self.effects_allowed()?;
                let (old, t) = self.ptr_expr(operand)?;
                (old, Ty::Pointer(Box::new(t)))
            }
            _ => {
                let lv = self.lv(operand)?;
                (lv.read(), Ty::Int(Self::int_ty(&lv)))
            }
        };
        let st = old.ty();
        let tmp = self.temp(&ty)?;
        self.emit(EdgeOp::Assign { lhs: Place::Var { var: tmp, ty: st }, rhs: old }, self.stmt_sp, text)?;
        self.incdec(operand, inc)?;
        Ok(Expr::Var { var: tmp, ty: st })
    }

    /// Assignment or compound assignment; returns the value of the lhs afterwards.
    /// The float variable an lvalue expression names, if it is one.
    pub(super) fn float_target(&self, e: &Node<Expression>) -> Option<(VarId, FloatTy)> {
        if let Expression::Member(_) = &e.node {
            return match self.member_place(e) {
                Ok(Either::Scalar(Expr::Var { var, ty: ScalarTy::Float(fty) })) => Some((var, fty)),
                _ => None,
            };
        }
        let Expression::Identifier(i) = &e.node else { return None };
        match self.lookup(&i.node.name) {
            Some(Sym::Var(v, ty)) => ty.float_ty().map(|f| (*v, f)),
            _ => None,
        }
    }

    /// Whether `e` is an element `a[i]…[j]` of a floating-point array.
    pub(super) fn is_float_elem(&self, e: &Node<Expression>) -> bool {
        let mut cur = e;
        let mut depth = 0usize;
        while let Expression::BinaryOperator(b) = &cur.node {
            if b.node.operator.node != BinaryOperator::Index {
                return false;
            }
            depth += 1;
            cur = &b.node.lhs;
        }
        let ty = match &cur.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Sym::Var(_, ty)) => ty.clone(),
                _ => return false,
            },
            Expression::Member(_) => match self.struct_path(cur) {
                Ok((_, _, ty)) => ty,
                Err(_) => return false,
            },
            _ => return false,
        };
        match ty.to_ctype(self.dm) {
            CType::FloatArray { dims, .. } => depth == dims.len(),
            _ => false,
        }
    }

    /// The floating-point place an lvalue expression designates (variable, member or array
    /// element), if it has floating type; emits the side effects of its indices.
    pub(super) fn float_lvalue(&mut self, e: &Node<Expression>) -> R<Option<Place>> {
        if let Some((var, fty)) = self.float_target(e) {
            return Ok(Some(Place::Var { var, ty: ScalarTy::Float(fty) }));
        }
        if !self.is_float_elem(e) {
            let through_memory = match &e.node {
                Expression::UnaryOperator(u) => u.node.operator.node == UnaryOperator::Indirection,
                Expression::Member(_) | Expression::BinaryOperator(_) => true,
                _ => false,
            };
            if !(through_memory && matches!(self.expr_ty(e), Some(Ty::Float(_)))) {
                return Ok(None);
            }
            return match self.place(e)? {
                Either::Scalar(Expr::Deref { ptr, ty: ScalarTy::Float(fty) }) => {
                    Ok(Some(Place::Deref { ptr: *ptr, ty: ScalarTy::Float(fty) }))
                }
                Either::Scalar(Expr::Var { var, ty: ScalarTy::Float(fty) }) => {
                    Ok(Some(Place::Var { var, ty: ScalarTy::Float(fty) }))
                }
                Either::Scalar(Expr::Elem { var, index, len, ty: ScalarTy::Float(fty) }) => {
                    Ok(Some(Place::Elem { var, index: *index, len, ty: ScalarTy::Float(fty) }))
                }
                _ => Ok(None),
            };
        }
        match self.place(e)? {
            Either::Scalar(Expr::Elem { var, index, len, ty: ScalarTy::Float(fty) }) => {
                Ok(Some(Place::Elem { var, index: *index, len, ty: ScalarTy::Float(fty) }))
            }
            _ => Err(format!("assignment to `{}` (not supported)", self.text(sp(e.span))).into()),
        }
    }

    /// Assignment or compound assignment of any arithmetic type; returns the lhs afterwards.
    pub(super) fn assign_any(&mut self, _e: &Node<Expression>, b: &Node<BinaryOperatorExpression>) -> R<Expr> {
        if self.is_struct_lvalue(&b.node.lhs) {
            return Err(
                format!("value of a struct assignment in `{}` (not supported yet)", self.text(sp(b.span))).into()
            );
        }
        let ssp = self.stmt_sp;
        let text = self.text(ssp);
        if let Some(flv) = self.float_lvalue(&b.node.lhs)? {
            let fty = Self::float_ty(&flv);
            let read = flv.read();
            if b.node.operator.node == BinaryOperator::Assign {
                if let Expression::Call(c) = &b.node.rhs.node {
                    if self.float_nondet_call(c).is_some() {
                        // One step, whatever the lvalue (`v[1] = __VERIFIER_nondet_float()`): a
                        // witness's claim about it holds after the step.
                        self.call_float(c, Some(flv), ssp)?;
                        return Ok(read);
                    } else if self.call_name(c).is_ok_and(|n| self.front.func_ids.contains_key(n)) {
                        self.call(c, Some(Target::Scalar(flv)), ssp)?;
                        return Ok(read);
                    }
                }
                let r = self.rv_any(&b.node.rhs)?.into_float(fty);
                self.emit(EdgeOp::Assign { lhs: flv, rhs: r }, ssp, text)?;
                return Ok(read);
            }
            let op = types::map_binop(&b.node.operator.node).ok_or("unknown assignment operator")?;
            let r = self.rv_any(&b.node.rhs)?;
            let v = types::binary_any(op, read.clone(), r)?.into_float(fty);
            self.emit(EdgeOp::Assign { lhs: flv, rhs: v }, ssp, text)?;
            return Ok(read);
        }
        if b.node.operator.node == BinaryOperator::Assign {
            if let Expression::Call(c) = &b.node.rhs.node {
                let lv = self.lv(&b.node.lhs)?;
                self.call(c, Some(Target::Scalar(lv.clone())), ssp)?;
                return Ok(lv.read());
            }
            let r = self.rv_any(&b.node.rhs)?;
            let lv = self.lv(&b.node.lhs)?;
            let t = Self::int_ty(&lv);
            self.emit(EdgeOp::Assign { lhs: lv.clone(), rhs: r.into_int(t) }, ssp, text)?;
            return Ok(lv.read());
        }
        let op = types::map_binop(&b.node.operator.node).ok_or("unknown assignment operator")?;
        let r = self.rv_any(&b.node.rhs)?;
        let lv = self.lv(&b.node.lhs)?;
        let t = Self::int_ty(&lv);
        let v = types::binary_any(op, lv.read(), r)?;
        self.emit(EdgeOp::Assign { lhs: lv.clone(), rhs: v.into_int(t) }, ssp, text)?;
        Ok(lv.read())
    }

    /// `s` or `s.in` of struct type.
    pub(super) fn is_struct_lvalue(&self, e: &Node<Expression>) -> bool {
        matches!(&e.node, Expression::Identifier(_) | Expression::Member(_))
            && matches!(self.struct_path(e), Ok((v, _, Ty::Struct(k))) if k.starts_with("struct ") && self.front.struct_vars.contains_key(&v))
    }

    /// Lowers an integer-valued expression to a side-effect-free value, emitting edges for its
    /// side effects (a floating-point value is an error: callers that convert use `rv_any`).
    pub fn rv(&mut self, e: &Node<Expression>) -> R<Expr> {
        let v = self.rv_any(e)?;
        let what = format!("`{}`", self.text(sp(e.span)));
        Ok(v.int(&what)?)
    }

    /// The arithmetic value of a place.
    pub(super) fn place_value(&mut self, e: &Node<Expression>) -> R<Expr> {
        let esp = sp(e.span);
        match self.place(e)? {
            Either::Scalar(x) => Ok(x),
            Either::Arr(_) | Either::Mem(..) => {
                Err(format!("aggregate `{}` used as a number (not supported)", self.text(esp)).into())
            }
            Either::Ptr(..) => Err(format!("pointer `{}` used as a number (not supported)", self.text(esp)).into()),
        }
    }

    /// Lowers an expression of any arithmetic type to a side-effect-free value, emitting edges
    /// for its side effects.
    pub fn rv_any(&mut self, e: &Node<Expression>) -> R<Expr> {
        self.nested(e, |b| b.rv_any_unbounded(e))
    }

    /// The type of an arm of `?:`, as a placeholder value: from the cache of conditional
    /// expressions lowered before, or lowered in pure mode, or else lowered (the caller rolls
    /// the emitted steps back).
    pub(super) fn arm_type(&mut self, x: &Node<Expression>) -> R<Expr> {
        if let Some(v) = self.arm_types.get(&(x.span.start, x.span.end)) {
            return Ok(v.clone());
        }
        self.depth_exceeded = false;
        match self.pure(|b| b.rv_any(x)) {
            Ok(v) => Ok(placeholder(&v)),
            // Too deep is too deep in either mode (retrying made deep chains quadratic).
            Err(e) if self.depth_exceeded => Err(e),
            Err(_) => self.rv_any(x).map(|v| placeholder(&v)),
        }
    }

    pub(super) fn rv_any_unbounded(&mut self, e: &Node<Expression>) -> R<Expr> {
        let esp = sp(e.span);
        match &e.node {
            Expression::Identifier(_) | Expression::Member(_) => self.place_value(e),
            Expression::UnaryOperator(u)
                if u.node.operator.node == UnaryOperator::Negate && self.is_ptr_expr(&u.node.operand) =>
            {
                let (p, _) = self.ptr_expr(&u.node.operand)?;
                Ok(types::compare(BinOp::Eq, p, Expr::Null))
            }
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => Ok(types::integer_constant(i, self.dm)?),
                Constant::Character(ch) => Ok(types::char_constant(ch)?),
                Constant::Float(f) => Ok(types::float_constant(f)?),
            },
            Expression::StringLiteral(_) => {
                Err("string literal outside a char array initializer (not supported yet)".into())
            }
            Expression::Call(c) => {
                if let Some(v) = self.witness_builtin(c)? {
                    return Ok(v);
                }
                if let Some(v) = self.expect_builtin(c)? {
                    return Ok(v);
                }
                if let Some(v) = self.float_builtin(c)? {
                    return Ok(v);
                }
                if let Some(fty) = self.float_nondet_call(c) {
                    let tmp = self.new_float_temp(fty)?;
                    self.call_float(c, Some(Place::Var { var: tmp, ty: ScalarTy::Float(fty) }), esp)?;
                    return Ok(Expr::Var { var: tmp, ty: ScalarTy::Float(fty) });
                }
                match self.call_result_type(c)? {
                    ScalarTy::Int(ty) => {
                        let tmp = self.new_temp(ty)?;
                        self.call(c, Some(Target::Scalar(Place::Var { var: tmp, ty: ScalarTy::Int(ty) })), esp)?;
                        Ok(Expr::Var { var: tmp, ty: ScalarTy::Int(ty) })
                    }
                    ScalarTy::Float(fty) => {
                        let tmp = self.new_float_temp(fty)?;
                        self.call(c, Some(Target::Scalar(Place::Var { var: tmp, ty: ScalarTy::Float(fty) })), esp)?;
                        Ok(Expr::Var { var: tmp, ty: ScalarTy::Float(fty) })
                    }
                    ScalarTy::Ptr => Err(format!("pointer result of `{}` used as a number", self.text(esp)).into()),
                }
            }
            Expression::SizeOfTy(t) => {
                let ty = self.type_name(&t.node.0.node);
                let n = self.size_of(&ty).ok_or_else(|| {
                    format!("sizeof of type {} (not supported yet){}", ty.describe(self.dm), self.layout_note(&ty))
                })?;
                Ok(Expr::Const { bits: n, ty: ScalarTy::Int(types::size_t(self.dm)) })
            }
            Expression::SizeOfVal(v) => {
                let n = self.sizeof_expr(&v.node.0)?;
                Ok(Expr::Const { bits: n, ty: ScalarTy::Int(types::size_t(self.dm)) })
            }
            Expression::AlignOf(t) => {
                let ty = self.type_name(&t.node.0.node);
                let n = self.align_of(&ty, esp)?;
                Ok(Expr::Const { bits: n, ty: ScalarTy::Int(types::size_t(self.dm)) })
            }
            Expression::UnaryOperator(u) => {
                let operand = &u.node.operand;
                match u.node.operator.node {
                    UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement
                    | UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement => {
                        let op = &u.node.operator.node;
                        let inc = matches!(op, UnaryOperator::PreIncrement | UnaryOperator::PostIncrement);
                        let post = matches!(op, UnaryOperator::PostIncrement | UnaryOperator::PostDecrement);
                        let text = self.text(esp);
                        self.incdec_value(operand, inc, post, text)
                    }
                    UnaryOperator::Address => Err(self.names_nothing(operand).unwrap_or_else(|| {
                        format!("address `{}` used as a number (not supported)", self.text(esp)).into()
                    })),
                    UnaryOperator::Indirection => self.place_value(e),
                    UnaryOperator::Plus => Ok(match self.rv_any(operand)? {
                        x if x.int_ty().is_some() && self.acsl() => super::witness::acsl_integer(x),
                        x if x.int_ty().is_some() => types::promote(x),
                        f => f,
                    }),
                    // ACSL's integers are mathematical (decision 232).
                    UnaryOperator::Minus | UnaryOperator::Complement if self.acsl() => {
                        let op = if u.node.operator.node == UnaryOperator::Minus { UnOp::Neg } else { UnOp::BitNot };
                        let a = self.rv_any(operand)?;
                        self.acsl_unary(op, a)
                    }
                    UnaryOperator::Minus => Ok(types::unary_any(UnOp::Neg, self.rv_any(operand)?)?),
                    UnaryOperator::Complement => Ok(types::unary_any(UnOp::BitNot, self.rv_any(operand)?)?),
                    UnaryOperator::Negate => Ok(types::unary_any(UnOp::LogNot, self.rv_any(operand)?)?),
                }
            }
            Expression::Cast(c) => {
                let ty = self.type_name(&c.node.type_name.node);
                if matches!(ty, Ty::Int(_) | Ty::Float(_)) && self.is_ptr_expr(&c.node.expression) {
                    let Ty::Int(t) = ty else {
                        return Err(
                            format!("conversion of a pointer to a floating type in `{}`", self.text(esp)).into()
                        );
                    };
                    let (p, _) = self.ptr_expr(&c.node.expression)?;
                    return Ok(Expr::Cast { arg: Box::new(p), to: ScalarTy::Int(t) });
                }
                match ty {
                    Ty::Int(t) => Ok(self.rv_any(&c.node.expression)?.into_int(t)),
                    Ty::Float(_) if ty.float_ty().is_some() => {
                        let fty = ty.float_ty().ok_or("float type")?;
                        Ok(self.rv_any(&c.node.expression)?.into_float(fty))
                    }
                    Ty::Void => Err("value of a cast to void used".into()),
                    other => {
                        Err(format!("cast to {} in `{}` (not supported yet)", other.describe(self.dm), self.text(esp))
                            .into())
                    }
                }
            }
            Expression::BinaryOperator(b) => {
                let bop = &b.node.operator.node;
                if *bop == BinaryOperator::Index {
                    return self.place_value(e);
                }
                if types::is_assign_op(bop) {
                    return self.assign_any(e, b);
                }
                let cmp = matches!(
                    bop,
                    BinaryOperator::Equals
                        | BinaryOperator::NotEquals
                        | BinaryOperator::Less
                        | BinaryOperator::LessOrEqual
                        | BinaryOperator::Greater
                        | BinaryOperator::GreaterOrEqual
                );
                if cmp && (self.is_ptr_expr(&b.node.lhs) || self.is_ptr_expr(&b.node.rhs)) {
                    let op = types::map_binop(bop).ok_or("comparison")?;
                    return self.ptr_compare(op, &b.node.lhs, &b.node.rhs);
                }
                if matches!(bop, BinaryOperator::Minus)
                    && self.is_ptr_expr(&b.node.lhs)
                    && self.is_ptr_expr(&b.node.rhs)
                {
                    return self.ptr_diff(&b.node.lhs, &b.node.rhs);
                }
                match types::map_binop(bop) {
                    None => Err("unknown binary operator".into()),
                    Some(op @ (BinOp::LogAnd | BinOp::LogOr)) => {
                        // (A witness expression has no side effects: its calls are built-ins,
                        // pure, or refused where they are lowered.)
                        if has_side_effects(&b.node.rhs.node) && self.witness.is_none() {
                            return self.bool_temp(e);
                        }
                        if self.pure_mode || self.f.is_none() {
                            let l = self.rv_any(&b.node.lhs)?;
                            let r = self.rv_any(&b.node.rhs)?;
                            return Ok(types::binary_any(op, l, r)?);
                        }
                        // In a statement, `&&`/`||` branch as in CPAchecker's CFA, so that
                        // witnesses can refer to the decisions of its operands (constant
                        // expressions stay pure). The whole expression is tried once in pure
                        // mode: lowering the operands, folding and rolling back at every level
                        // made a chain of n `&&` quadratic (decision 130).
                        if let Ok(v) = self.pure(|b| b.rv_any(e)) {
                            if types::fold_i128(&v).is_some() {
                                return Ok(v);
                            }
                        }
                        self.bool_temp(e)
                    }
                    Some(op) => {
                        let l = self.rv_any(&b.node.lhs)?;
                        let r = self.rv_any(&b.node.rhs)?;
                        if let Some(read) = self.witness_comparison(op, &l, &r) {
                            return read;
                        }
                        if self.acsl() {
                            return self.acsl_binary(op, l, r);
                        }
                        Ok(types::binary_any(op, l, r)?)
                    }
                }
            }
            Expression::Conditional(c) => {
                let snap = self.snap();
                let cond = self.rv_any(&c.node.condition)?;
                // Constant expressions stay pure; in statements `?:` is a branch (as in
                // CPAchecker's CFA), so that witnesses can refer to its decision.
                let cond_const = types::fold_i128(&cond).is_some();
                let target = if self.pure_mode || (!self.emitted_since(&snap) && cond_const) {
                    let t = self.rv_any(&c.node.then_expression)?;
                    let f = self.rv_any(&c.node.else_expression)?;
                    let v = if self.acsl() { self.acsl_ite(cond, t, f)? } else { types::ite_any(cond, t, f) };
                    let target = placeholder(&v);
                    self.arm_types.insert((e.span.start, e.span.end), target.clone());
                    if self.pure_mode || !self.emitted_since(&snap) {
                        return Ok(v);
                    }
                    target
                } else {
                    // Only the arms' types are needed before branching: lowering them here
                    // and again below made a chain of n `?:` take 2^n steps (decision 130).
                    let t = self.arm_type(&c.node.then_expression)?;
                    let f = self.arm_type(&c.node.else_expression)?;
                    placeholder(&types::ite_any(cond, t, f))
                };
                self.rollback(&snap);
                let tmp = match &target {
                    Expr::Var { ty: ScalarTy::Int(ty), .. } => self.new_temp(*ty)?,
                    Expr::Var { ty: ScalarTy::Float(fty), .. } => self.new_float_temp(*fty)?,
                    _ => return Err("conditional expression".into()),
                };
                let nt = self.new_node();
                let nf = self.new_node();
                let join = self.new_node();
                let q = self.find_between(c.node.condition.span.end, c.node.then_expression.span.start, "?");
                let k = self.register_construct(q.unwrap_or(c.node.condition.span.end), None);
                self.decisions.push((k, nt, nf));
                let r = self.branch(&c.node.condition, nt, nf, false);
                self.decisions.pop();
                r?;
                for (n, x) in [(nt, &c.node.then_expression), (nf, &c.node.else_expression)] {
                    self.cur = n;
                    let v = self.rv_any(x)?;
                    let text = self.text(sp(x.span));
                    let op = match &target {
                        Expr::Var { ty: ScalarTy::Float(fty), .. } => EdgeOp::Assign {
                            lhs: Place::Var { var: tmp, ty: ScalarTy::Float(*fty) },
                            rhs: v.into_float(*fty),
                        },
                        Expr::Var { ty: ScalarTy::Int(ty), .. } => EdgeOp::Assign {
                            lhs: Place::Var { var: tmp, ty: ScalarTy::Int(*ty) },
                            rhs: v.into_int(*ty),
                        },
                        _ => return Err("conditional expression".into()),
                    };
                    self.emit(op, self.stmt_sp, text)?;
                    let cur = self.cur;
                    self.blank(cur, join);
                }
                self.cur = join;
                Ok(Expr::Var { var: tmp, ty: target.ty() })
            }
            Expression::Comma(v) => {
                let n = v.len();
                if n == 0 {
                    return Err("empty comma expression".into());
                }
                for x in &v[..n - 1] {
                    self.effect(x, self.stmt_sp)?;
                }
                self.rv_any(&v[n - 1])
            }
            Expression::CompoundLiteral(_) => {
                let id = self.compound_literal(e)?;
                self.rv_any(&id)
            }
            Expression::GenericSelection(_) => Err("_Generic (not supported yet)".into()),
            Expression::OffsetOf(o) => {
                self.offset_of(o).map(|n| Expr::Const { bits: n, ty: ScalarTy::Int(types::size_t(self.dm)) })
            }
            Expression::VaArg(_) => Err("va_arg (not supported yet)".into()),
            Expression::Statement(st) => {
                if self.pure_mode {
                    return Err("GNU statement expression in a constant expression".into());
                }
                match self.stmt_expr_prefix(st)? {
                    Some(last) => {
                        let r = self.rv_any(last);
                        self.scopes.pop();
                        r
                    }
                    None => {
                        self.scopes.pop();
                        Err("GNU statement expression without a value, used as a value".into())
                    }
                }
            }
        }
    }

    /// Lowers the statements of a GNU statement expression `({ …; e; })` except a trailing
    /// expression statement, which it returns (its value is the expression's value). Leaves the
    /// block's scope open: the caller pops it after using the returned expression.
    pub(super) fn stmt_expr_prefix<'b>(&mut self, st: &'b Node<Statement>) -> R<Option<&'b Node<Expression>>> {
        let Statement::Compound(items) = &st.node else {
            return Err("GNU statement expression without a block".into());
        };
        let saved = self.stmt_sp;
        self.scopes.push(HashMap::new());
        let mut last = None;
        for (i, it) in items.iter().enumerate() {
            match &it.node {
                BlockItem::Statement(s) if i + 1 == items.len() => match &s.node {
                    Statement::Expression(Some(e)) => last = Some(&**e),
                    _ => self.stmt(s),
                },
                BlockItem::Statement(s) => self.stmt(s),
                BlockItem::Declaration(d) => {
                    let start = self.orig_range(sp(d.span)).0;
                    self.cfa.statement_starts.push((start, self.cur));
                    self.stmt_sp = sp(d.span);
                    self.declaration(d, false, st.span.end)
                }
                BlockItem::StaticAssert(_) => {}
            }
        }
        self.stmt_sp = saved;
        Ok(last)
    }

    /// `a && b` / `a || b` with side effects as a value: branches and an `int` temporary.
    pub(super) fn bool_temp(&mut self, e: &Node<Expression>) -> R<Expr> {
        let tmp = self.new_temp(IntTy::INT)?;
        let nt = self.new_node();
        let nf = self.new_node();
        let join = self.new_node();
        self.branch(e, nt, nf, false)?;
        let text = self.text(sp(e.span));
        for (n, k) in [(nt, 1), (nf, 0)] {
            self.cur = n;
            self.emit(
                EdgeOp::Assign { lhs: Place::Var { var: tmp, ty: ScalarTy::Int(IntTy::INT) }, rhs: Expr::int(k) },
                self.stmt_sp,
                text.clone(),
            )?;
            let c = self.cur;
            self.blank(c, join);
        }
        self.cur = join;
        Ok(Expr::Var { var: tmp, ty: ScalarTy::Int(IntTy::INT) })
    }

    /// `_Alignof(T)` (the ABI alignment, as of a struct member) or GNU `__alignof__(T)` (gcc's
    /// preferred alignment, larger for `long long` and `double` under i386), by the keyword
    /// at the start of `esp` (decision 101). Structs and arrays with gcc's layout.
    pub(super) fn align_of(&self, ty: &Ty, esp: Sp) -> R<u64> {
        let gnu = self.src.text.get(esp.0..esp.1).is_some_and(|t| t.trim_start().starts_with("__alignof"));
        let (_, abi) = self.front.structs.layout(ty, self.dm).ok_or_else(|| {
            format!("alignof of type {} (not supported yet){}", ty.describe(self.dm), self.layout_note(ty))
        })?;
        Ok(match ty.preferred_align(self.dm) {
            Some(p) if gnu => p,
            _ => abi,
        })
    }

    /// A compound literal `(T){ … }` in a function (C11 6.5.2.5: an unnamed object with
    /// automatic storage, initialised each time the expression is evaluated, living until the
    /// end of the enclosing block): declares a fresh variable `T __compound_literal_N = { … };`
    /// at this point of evaluation and returns that name, which then stands for the literal
    /// (decision 104). Outside a function the object has static storage (C11 6.5.2.5p5): see
    /// [`Self::static_compound_literal`] (decision 136). In a constant expression inside a
    /// function: not supported.
    pub(super) fn compound_literal(&mut self, e: &Node<Expression>) -> R<Node<Expression>> {
        let Expression::CompoundLiteral(cl) = &e.node else { return Err("not a compound literal".into()) };
        if self.f.is_none() {
            return self.static_compound_literal(cl, e.span);
        }
        if self.pure_mode {
            return Err("compound literal in a constant expression (not supported yet)".into());
        }
        self.tmp_counter += 1;
        let name = format!("__compound_literal_{}", self.tmp_counter);
        let span = e.span;
        let tn = &cl.node.type_name.node;
        let specifiers = tn
            .specifiers
            .iter()
            .map(|q| {
                let d = match &q.node {
                    SpecifierQualifier::TypeSpecifier(t) => DeclarationSpecifier::TypeSpecifier(t.clone()),
                    SpecifierQualifier::TypeQualifier(t) => DeclarationSpecifier::TypeQualifier(t.clone()),
                    SpecifierQualifier::Extension(x) => DeclarationSpecifier::Extension(x.clone()),
                };
                Node::new(d, q.span)
            })
            .collect();
        let ident = Node::new(Identifier { name: name.clone() }, span);
        let declarator = match &tn.declarator {
            Some(d) => name_abstract_declarator(&d.node, &ident).ok_or("compound literal of a type not supported")?,
            None => Declarator {
                kind: Node::new(DeclaratorKind::Identifier(ident.clone()), span),
                derived: Vec::new(),
                extensions: Vec::new(),
            },
        };
        let init = Node::new(Initializer::List(cl.node.initializer_list.clone()), span);
        let decl = Declaration {
            specifiers,
            declarators: vec![Node::new(
                InitDeclarator { declarator: Node::new(declarator, span), initializer: Some(init) },
                span,
            )],
        };
        let saved = self.stmt_sp;
        self.declaration(&Node::new(decl, span), false, self.block_end);
        self.stmt_sp = saved;
        Ok(Node::new(Expression::Identifier(Box::new(ident)), span))
    }

    /// `sizeof` of a type, structs included (gcc's layout).
    pub(super) fn size_of(&self, ty: &Ty) -> Option<u64> {
        ty.size(self.dm).or_else(|| self.front.structs.layout(ty, self.dm).map(|(s, _)| s))
    }

    pub(super) fn sizeof_expr(&mut self, e: &Node<Expression>) -> R<u64> {
        if let Expression::Identifier(i) = &e.node {
            if let Some(Sym::Var(_, ty)) = self.lookup(&i.node.name) {
                let ty = ty.clone();
                return self.size_of(&ty).ok_or_else(|| {
                    format!("sizeof of type {} (not supported yet){}", ty.describe(self.dm), self.layout_note(&ty))
                        .into()
                });
            }
        }
        if let Expression::StringLiteral(s) = &e.node {
            return Ok(string_bytes(&s.node)?.len() as u64 + 1);
        }
        let r = self.pure(|b| match b.place(e)? {
            Either::Scalar(x) if x.int_ty().is_some() => Ok(x.ity().bits as u64 / 8),
            Either::Scalar(f) => Ok(f.fty().bits() as u64 / 8),
            Either::Arr(a) => Ok(a.rest.iter().product::<u64>() * (a.elem.bits() as u64 / 8)),
            Either::Ptr(..) => Ok(b.dm.long_bits() as u64 / 8),
            Either::Mem(_, t) => b.size_of(&t).ok_or_else(|| "size not known".into()),
        });
        r.map_err(|m| format!("sizeof: {m}").into())
    }
}
