//! Evaluation of IR expressions on a data state: values with the definedness conditions
//! of every operation (integer, float and array element reads).

use super::*;

impl DataState {
    /// Evaluates an expression in the current frame. `result` is the witness's `\result`.
    pub fn eval(&mut self, cfa: &Cfa, e: &Expr, result: ResultValue) -> Result<Evaluated, EvalError> {
        let mut defined = Vec::new();
        let value = self.eval_into(cfa, e, result, &mut defined)?;
        Ok(Evaluated { value, defined })
    }

    /// `eval` of a witness's claim about the variables of `func`, in its innermost activation
    /// when the running one is another function's (the caller's locals on a call's post-state,
    /// CBMC's `x = 180.0` in the scope of the function that makes the call).
    pub fn eval_in_frame_of(
        &mut self,
        cfa: &Cfa,
        e: &Expr,
        result: ResultValue,
        func: FuncId,
    ) -> Result<Evaluated, EvalError> {
        let n = self.frames.len();
        let moved = match self.frames.last() {
            Some(top) if top.func != func => self.frames.iter().rposition(|f| f.func == func),
            _ => None,
        };
        let Some(i) = moved else { return self.eval(cfa, e, result) };
        let frame = self.frames_mut().remove(i);
        self.frames_mut().push(frame);
        let r = self.eval(cfa, e, result);
        let frame = self.frames_mut().pop().expect("the frame moved to the top");
        self.frames_mut().insert(i, frame);
        debug_assert_eq!(self.frames.len(), n);
        r
    }

    /// An expression of the wrong kind for the evaluator it reached: a bug of the front end,
    /// reported as unsupported (the path ends in unknown).
    fn malformed(e: &Expr, wanted: &str) -> EvalError {
        EvalError::Unsupported(format!("malformed IR: a {:?} expression where {wanted} is needed", e.ty()))
    }

    /// Evaluates an expression of any type.
    pub(crate) fn eval_any(
        &mut self,
        cfa: &Cfa,
        e: &Expr,
        result: ResultValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<AnyValue, EvalError> {
        Ok(match e.ty() {
            ScalarTy::Int(_) => AnyValue::Int(self.eval_into(cfa, e, result, defined)?),
            ScalarTy::Float(_) => AnyValue::Float(self.eval_float(cfa, e, result, defined)?),
            ScalarTy::Ptr => AnyValue::Ptr(self.eval_ptr(cfa, e, result, defined)?),
        })
    }

    /// Evaluates an integer expression.
    pub(super) fn eval_into(
        &mut self,
        cfa: &Cfa,
        e: &Expr,
        result: ResultValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<Value, EvalError> {
        Ok(match e {
            Expr::Const { bits, ty: ScalarTy::Int(ty) } => Value::conc(*bits, *ty),
            Expr::Var { var, ty: ScalarTy::Int(ty) } => match self.slot(cfa, *var) {
                Some(Slot::Scalar(v)) => {
                    if v.ty == *ty {
                        v.clone()
                    } else {
                        value::cast(v, *ty)
                    }
                }
                Some(Slot::Opaque) => {
                    return Err(EvalError::Unsupported(format!(
                        "variable `{}` has a type without semantics",
                        cfa.var(*var).name
                    )))
                }
                Some(Slot::External) => return Err(external(cfa, *var)),
                Some(
                    Slot::Array { .. }
                    | Slot::SymArray { .. }
                    | Slot::Float(_)
                    | Slot::FloatArray { .. }
                    | Slot::Ptr(_)
                    | Slot::PtrUninit
                    | Slot::Bytes(_),
                ) => {
                    return Err(EvalError::Unsupported(format!(
                        "variable `{}` used with another type",
                        cfa.var(*var).name
                    )))
                }
                None => {
                    return Err(EvalError::NoSuchObject(format!(
                        "variable `{}` is not in scope here",
                        cfa.var(*var).name
                    )))
                }
            },
            Expr::Cast { arg, to: ScalarTy::Int(to) } => match arg.ty() {
                ScalarTy::Int(_) => value::cast(&self.eval_into(cfa, arg, result, defined)?, *to),
                ScalarTy::Float(_) => {
                    let a = self.eval_float(cfa, arg, result, defined)?;
                    float::to_int(&a, *to, defined)
                }
                ScalarTy::Ptr => {
                    let p = self.eval_ptr(cfa, arg, result, defined)?;
                    self.ptr_to_int(cfa, &p, *to)?
                }
            },
            Expr::FloatClass { class, arg } => {
                let a = self.eval_float(cfa, arg, result, defined)?;
                Value::from_truth(&float::classify(*class, &a).map_err(EvalError::Unsupported)?)
            }
            Expr::Elem { var, index, len, ty: ScalarTy::Int(ty) } => {
                let idx = self.eval_into(cfa, index, result, defined)?;
                self.read_elem(cfa, *var, &idx, *len, *ty, defined)?
            }
            Expr::Unary { op, arg, ty: ScalarTy::Int(ty) } => {
                let a = self.eval_into(cfa, arg, result, defined)?;
                value::unary(*op, &a, *ty, defined)
            }
            Expr::Binary { op, lhs, rhs, ty: ScalarTy::Int(ty) } => match lhs.ty() {
                ScalarTy::Float(_) => {
                    let cmp = float::FCmp::of(*op).ok_or_else(|| Self::malformed(e, "a float comparison"))?;
                    let a = self.eval_float(cfa, lhs, result, defined)?;
                    let b = self.eval_float(cfa, rhs, result, defined)?;
                    Value::from_truth(&float::compare(cmp, &a, &b))
                }
                ScalarTy::Ptr => {
                    let a = self.eval_ptr(cfa, lhs, result, defined)?;
                    let b = self.eval_ptr(cfa, rhs, result, defined)?;
                    Value::from_truth(&self.compare_ptr(cfa, *op, &a, &b, defined)?)
                }
                ScalarTy::Int(_) => {
                    let a = self.eval_into(cfa, lhs, result, defined)?;
                    if matches!(op, crate::cfa::BinOp::LogAnd | crate::cfa::BinOp::LogOr) {
                        // Short circuit: the right operand is evaluated (and must be defined)
                        // only when the left one does not decide.
                        let decides = if *op == crate::cfa::BinOp::LogAnd { a.truth().not() } else { a.truth() };
                        if let Truth::Known(true) = decides {
                            return Ok(Value::from_truth(&Truth::Known(*op == crate::cfa::BinOp::LogOr)));
                        }
                        let mut inner = Vec::new();
                        let b = self.eval_into(cfa, rhs, result, &mut inner)?;
                        let needed = decides.not();
                        defined.extend(inner.into_iter().map(|d| Definedness { holds: needed.implies(&d.holds), ..d }));
                        value::binary(*op, &a, &b, *ty, defined)
                    } else {
                        let b = self.eval_into(cfa, rhs, result, defined)?;
                        value::binary(*op, &a, &b, *ty, defined)
                    }
                }
            },
            Expr::Ite { cond, then, els, ty: ScalarTy::Int(ty) } => {
                let c = self.eval_into(cfa, cond, result, defined)?.truth();
                match c {
                    Truth::Known(true) => self.eval_into(cfa, then, result, defined)?,
                    Truth::Known(false) => self.eval_into(cfa, els, result, defined)?,
                    Truth::Sym(_) => {
                        let (mut d1, mut d2) = (Vec::new(), Vec::new());
                        let a = self.eval_into(cfa, then, result, &mut d1)?;
                        let b = self.eval_into(cfa, els, result, &mut d2)?;
                        defined.extend(d1.into_iter().map(|d| Definedness { holds: c.implies(&d.holds), ..d }));
                        let nc = c.not();
                        defined.extend(d2.into_iter().map(|d| Definedness { holds: nc.implies(&d.holds), ..d }));
                        Value::select(&c, &value::cast(&a, *ty), &value::cast(&b, *ty))
                    }
                }
            }
            Expr::Deref { ptr, ty: ScalarTy::Int(ty) } => {
                let p = self.eval_ptr(cfa, ptr, result, defined)?;
                match self.load(cfa, &p, ScalarTy::Int(*ty), defined)? {
                    AnyValue::Int(v) => v,
                    _ => return Err(EvalError::Unsupported("dereference of another type".into())),
                }
            }
            Expr::Valid { ptr, bytes, write } => {
                let p = self.eval_ptr(cfa, ptr, result, defined)?;
                Value::from_truth(&self.valid(cfa, &p, *bytes, *write)?)
            }
            Expr::PtrDiff { lhs, rhs, size, ty } => {
                let a = self.eval_ptr(cfa, lhs, result, defined)?;
                let b = self.eval_ptr(cfa, rhs, result, defined)?;
                self.ptr_diff(&a, &b, *size, *ty, defined)
            }
            Expr::WitnessResult { ty: ScalarTy::Int(ty) } => match result {
                Some(AnyValue::Int(v)) => value::cast(v, *ty),
                Some(AnyValue::Float(_)) => {
                    return Err(EvalError::Unsupported("`\\result` of floating type used as an integer".into()))
                }
                Some(AnyValue::Ptr(_)) => {
                    return Err(EvalError::Unsupported("`\\result` of pointer type in an assumption".into()))
                }
                None => return Err(EvalError::Unsupported("`\\result` used where the step returns no value".into())),
            },
            _ => return Err(Self::malformed(e, "an integer")),
        })
    }

    /// Evaluates a floating-point expression in the current frame.
    pub fn eval_float(
        &mut self,
        cfa: &Cfa,
        e: &Expr,
        result: ResultValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<FValue, EvalError> {
        Ok(match e {
            Expr::Const { bits, ty: ScalarTy::Float(fty) } => FValue::conc(*bits, *fty),
            Expr::Var { var, ty: ScalarTy::Float(fty) } => match self.slot(cfa, *var) {
                Some(Slot::Float(v)) => float::cast(v, *fty),
                Some(Slot::Opaque) => {
                    return Err(EvalError::Unsupported(format!(
                        "variable `{}` has a type without semantics",
                        cfa.var(*var).name
                    )))
                }
                Some(Slot::External) => return Err(external(cfa, *var)),
                _ => {
                    return Err(EvalError::Unsupported(format!(
                        "variable `{}` is not a floating-point variable in scope here",
                        cfa.var(*var).name
                    )))
                }
            },
            Expr::Unary { op: crate::cfa::UnOp::Neg, arg, ty: ScalarTy::Float(_) } => {
                float::neg(&self.eval_float(cfa, arg, result, defined)?)
            }
            Expr::Binary { op, lhs, rhs, ty: ScalarTy::Float(_) } => {
                let fop = float::FBinOp::of(*op).ok_or_else(|| Self::malformed(e, "float arithmetic"))?;
                let a = self.eval_float(cfa, lhs, result, defined)?;
                let b = self.eval_float(cfa, rhs, result, defined)?;
                float::binary(fop, &a, &b)
            }
            Expr::Cast { arg, to: ScalarTy::Float(to) } => match arg.ty() {
                ScalarTy::Int(_) => float::from_int(&self.eval_into(cfa, arg, result, defined)?, *to),
                ScalarTy::Float(_) => float::cast(&self.eval_float(cfa, arg, result, defined)?, *to),
                ScalarTy::Ptr => return Err(Self::malformed(e, "a float")),
            },
            Expr::Ite { cond, then, els, ty: ScalarTy::Float(_) } => {
                let c = self.eval_into(cfa, cond, result, defined)?.truth();
                match c {
                    Truth::Known(true) => self.eval_float(cfa, then, result, defined)?,
                    Truth::Known(false) => self.eval_float(cfa, els, result, defined)?,
                    Truth::Sym(_) => {
                        let (mut d1, mut d2) = (Vec::new(), Vec::new());
                        let a = self.eval_float(cfa, then, result, &mut d1)?;
                        let b = self.eval_float(cfa, els, result, &mut d2)?;
                        defined.extend(d1.into_iter().map(|d| Definedness { holds: c.implies(&d.holds), ..d }));
                        let nc = c.not();
                        defined.extend(d2.into_iter().map(|d| Definedness { holds: nc.implies(&d.holds), ..d }));
                        float::select(&c, &a, &b)
                    }
                }
            }
            Expr::Math { func, args } => match &args[..] {
                [a] => float::math(*func, &self.eval_float(cfa, a, result, defined)?),
                _ => return Err(EvalError::Unsupported(format!("{func:?} with {} arguments", args.len()))),
            },
            Expr::Libm { func, args, fty } => {
                let mut bits = Vec::new();
                for a in args {
                    match self.eval_float(cfa, a, result, defined)?.val {
                        FVal::Conc(b) => bits.push(b),
                        FVal::Sym(_) => {
                            return Err(EvalError::Unsupported(format!(
                                "`{}` of a value that is not known exactly (libm functions are evaluated on \
                                 constant arguments only)",
                                func.name()
                            )))
                        }
                    }
                }
                self.libm_value(*func, *fty, &bits)
            }
            Expr::Elem { var, index, len, ty: ScalarTy::Float(fty) } => {
                let idx = self.eval_into(cfa, index, result, defined)?;
                let v = self.read_felem(cfa, *var, &idx, *len, defined)?;
                float::cast(&v, *fty)
            }
            Expr::Deref { ptr, ty: ScalarTy::Float(fty) } => {
                let p = self.eval_ptr(cfa, ptr, result, defined)?;
                match self.load(cfa, &p, ScalarTy::Float(*fty), defined)? {
                    AnyValue::Float(v) => v,
                    _ => return Err(EvalError::Unsupported("dereference of another type".into())),
                }
            }
            Expr::WitnessResult { ty: ScalarTy::Float(fty) } => match result {
                Some(AnyValue::Float(v)) => float::cast(v, *fty),
                Some(AnyValue::Int(v)) => float::from_int(v, *fty),
                Some(AnyValue::Ptr(_)) => {
                    return Err(EvalError::Unsupported("`\\result` of pointer type in an assumption".into()))
                }
                None => return Err(EvalError::Unsupported("`\\result` used where the step returns no value".into())),
            },
            _ => return Err(Self::malformed(e, "a float")),
        })
    }

    /// Materialises cell `i` of a float array (a nondeterministic value if it was never set).
    pub(super) fn fcell(&mut self, cfa: &Cfa, var: VarId, i: usize) -> Result<FValue, EvalError> {
        let name = cfa.var(var).name.clone();
        let (elem, existing) = match self.slot(cfa, var) {
            Some(Slot::FloatArray { elem, cells }) => (*elem, cells.get(i).cloned().flatten()),
            _ => return Err(EvalError::Unsupported(format!("`{name}` is not a floating-point array"))),
        };
        if let Some(v) = existing {
            return Ok(FValue { val: v, fty: elem });
        }
        let v = self.nondet_float(&format!("{name}[{i}]"), elem).0;
        self.set_fcell(cfa, var, i, &v)?;
        Ok(v)
    }

    pub(super) fn read_felem(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        idx: &Value,
        len: u64,
        defined: &mut Vec<Definedness>,
    ) -> Result<FValue, EvalError> {
        let name = cfa.var(var).name.clone();
        let inb = Self::index_in_bounds(idx, len);
        defined.push(Definedness {
            unmodelled: false,
            kind: Some(ViolationKind::Deref),
            holds: inb,
            what: format!("array index out of bounds in `{name}[…]` (length {len})"),
        });
        Ok(match idx.known() {
            Some(i) if i >= 0 && (i as u128) < len as u128 => self.fcell(cfa, var, i as usize)?,
            Some(_) => match &cfa.var(var).ty {
                CType::FloatArray { elem, .. } => FValue::conc(0, *elem),
                _ => return Err(EvalError::Unsupported(format!("`{name}` is not a floating-point array"))),
            },
            None => {
                if len > Self::MAX_SYMBOLIC_ARRAY {
                    return Err(EvalError::Unsupported(format!("symbolic index into `{name}` with {len} elements")));
                }
                let wide = value::cast(idx, IntTy::new(64, false)).term();
                let mut acc = self.fcell(cfa, var, (len - 1) as usize)?;
                for i in (0..len.saturating_sub(1)).rev() {
                    let c = self.fcell(cfa, var, i as usize)?;
                    acc = float::select(&Truth::Sym(wide.eq(BV::from_u64(i, 64))), &c, &acc);
                }
                acc
            }
        })
    }

    /// Materialises cell `i` of an array (creating a nondeterministic value if it was never set).
    pub(super) fn cell(&mut self, cfa: &Cfa, var: VarId, i: usize) -> Result<Value, EvalError> {
        let name = cfa.var(var).name.clone();
        let (elem, existing) = match self.slot(cfa, var) {
            Some(Slot::Array { elem, cells }) => (*elem, cells.get(i).cloned().flatten()),
            Some(Slot::SymArray { elem, arr }) => return select(arr, &BV::from_u64(i as u64, 64), *elem),
            _ => return Err(EvalError::Unsupported(format!("`{name}` is not an array"))),
        };
        if let Some(v) = existing {
            return Ok(Value { val: v, ty: elem });
        }
        let v = self.nondet(&format!("{name}[{i}]"), elem);
        if let Some(Slot::Array { cells, .. }) = self.slot_mut(cfa, var) {
            if let Some(c) = Rc::make_mut(cells).get_mut(i) {
                *c = Some(v.val.clone());
            }
        }
        Ok(v)
    }

    pub(super) fn index_in_bounds(idx: &Value, len: u64) -> Truth {
        match idx.known() {
            Some(i) => Truth::Known(i >= 0 && (i as u128) < len as u128),
            None => {
                if let Val::Sym(t) = &idx.val {
                    let b = bounds::bounds(t);
                    let (lo, hi) = if idx.ty.signed { b.signed } else { (b.unsigned.0 as i128, b.unsigned.1 as i128) };
                    if lo >= 0 && hi < len as i128 {
                        return Truth::Known(true);
                    }
                }
                let wide = value::cast(idx, IntTy::new(64, idx.ty.signed)).term();
                let lenv = BV::from_u64(len, 64);
                if idx.ty.signed {
                    Truth::Sym(Bool::and(&[&wide.bvsge(BV::from_u64(0, 64)), &wide.bvslt(&lenv)]))
                } else {
                    Truth::Sym(wide.bvult(&lenv))
                }
            }
        }
    }

    pub(super) fn read_elem(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        idx: &Value,
        len: u64,
        ty: IntTy,
        defined: &mut Vec<Definedness>,
    ) -> Result<Value, EvalError> {
        let name = cfa.var(var).name.clone();
        let inb = Self::index_in_bounds(idx, len);
        defined.push(Definedness {
            unmodelled: false,
            kind: Some(ViolationKind::Deref),
            holds: inb.clone(),
            what: format!("array index out of bounds in `{name}[…]` (length {len})"),
        });
        let v = match (idx.known(), self.slot(cfa, var)) {
            (Some(i), _) if i >= 0 && (i as u128) < len as u128 => self.cell(cfa, var, i as usize)?,
            (Some(_), _) => Value::conc(0, ty),
            (None, Some(Slot::SymArray { elem, arr })) => {
                select(arr, &value::cast(idx, IntTy::new(64, false)).term(), *elem)?
            }
            (None, _) => {
                if len > Self::MAX_SYMBOLIC_ARRAY {
                    return Err(EvalError::Unsupported(format!("symbolic index into `{name}` with {len} elements")));
                }
                let wide = value::cast(idx, IntTy::new(64, false)).term();
                let mut acc = self.cell(cfa, var, (len - 1) as usize)?;
                for i in (0..len.saturating_sub(1)).rev() {
                    let c = self.cell(cfa, var, i as usize)?;
                    acc = Value::select(&Truth::Sym(wide.eq(BV::from_u64(i, 64))), &c, &acc);
                }
                acc
            }
        };
        Ok(if v.ty == ty { v } else { value::cast(&v, ty) })
    }
}

/// Element `i` (a 64-bit index) of an array held as one SMT term (decision 204).
pub(super) fn select(arr: &z3::ast::Array, i: &BV, elem: IntTy) -> Result<Value, EvalError> {
    // The array's range is the element's bit-vector sort by construction.
    match arr.select(i).as_bv() {
        Some(t) => Ok(Value { val: Val::Sym(t), ty: elem }),
        None => Err(EvalError::Unsupported("an array term of another sort".into())),
    }
}
