//! Stores into variables, array elements and float cells of a data state.

use super::*;

impl DataState {
    /// Stores a floating-point value into a scalar float variable (converted to its type).
    pub fn assign_float(&mut self, cfa: &Cfa, var: VarId, v: &FValue) -> Result<(), EvalError> {
        let CType::Float(fty) = cfa.var(var).ty else {
            return Err(EvalError::Unsupported(format!("`{}` is not a floating-point variable", cfa.var(var).name)));
        };
        let v = float::cast(v, fty);
        match self.slot_mut(cfa, var) {
            Some(slot @ Slot::Float(_)) => *slot = Slot::Float(v),
            None if matches!(cfa.var(var).scope, VarScope::Local(_)) => match self.frames_mut().last_mut() {
                Some(f) => {
                    f.locals_mut().insert(var, Slot::Float(v));
                }
                None => return Err(EvalError::Unsupported("assignment outside a function".into())),
            },
            _ => return Err(EvalError::Unsupported(format!("assignment to `{}`", cfa.var(var).name))),
        }
        Ok(())
    }

    /// Stores a floating-point value into a float variable or array element (converted to its
    /// type); returns the definedness conditions of the index.
    pub fn assign_flv(
        &mut self,
        cfa: &Cfa,
        lhs: &Place,
        v: &FValue,
        result: ResultValue,
    ) -> Result<Vec<Definedness>, EvalError> {
        let Some(fty) = lhs.float_ty() else { return Err(not_of_type("floating-point")) };
        let (var, index, len) = match lhs {
            Place::Var { var, .. } => return self.assign_float(cfa, *var, v).map(|()| Vec::new()),
            Place::Elem { var, index, len, .. } => (*var, index, *len),
            Place::Deref { ptr, .. } => {
                let mut defined = Vec::new();
                let p = self.eval_ptr(cfa, ptr, result, &mut defined)?;
                self.store(cfa, &p, &AnyValue::Float(float::cast(v, fty)), &mut defined)?;
                return Ok(defined);
            }
        };
        let mut defined = Vec::new();
        let idx = self.eval_into(cfa, index, result, &mut defined)?;
        let v = float::cast(v, fty);
        self.set_felem(cfa, var, &idx, len, &v, &mut defined)?;
        Ok(defined)
    }

    /// Stores `v` into element `idx` of float array `var` (current frame or global).
    pub(super) fn set_felem(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        idx: &Value,
        len: u64,
        v: &FValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let name = cfa.var(var).name.clone();
        defined.push(Definedness {
            unmodelled: false,
            kind: Some(ViolationKind::Deref),
            holds: Self::index_in_bounds(idx, len),
            what: format!("array index out of bounds in `{name}[…] = …` (length {len})"),
        });
        let v = v.clone();
        match idx.known() {
            Some(i) if i >= 0 && (i as u128) < len as u128 => self.set_fcell(cfa, var, i as usize, &v)?,
            Some(_) => {}
            None => {
                if len > Self::MAX_SYMBOLIC_ARRAY {
                    return Err(EvalError::Unsupported(format!("symbolic index into `{name}` with {len} elements")));
                }
                let wide = value::cast(idx, IntTy::new(64, false)).term();
                for i in 0..len {
                    let old = self.fcell(cfa, var, i as usize)?;
                    let new = float::select(&Truth::Sym(wide.eq(BV::from_u64(i, 64))), &float::cast(&v, old.fty), &old);
                    self.set_fcell(cfa, var, i as usize, &new)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn set_fcell(&mut self, cfa: &Cfa, var: VarId, i: usize, v: &FValue) -> Result<(), EvalError> {
        match self.slot_mut(cfa, var) {
            Some(Slot::FloatArray { elem, cells }) => {
                let v = float::cast(v, *elem);
                if let Some(c) = Rc::make_mut(cells).get_mut(i) {
                    *c = Some(v.val);
                }
                Ok(())
            }
            _ => Err(EvalError::Unsupported(format!("`{}` is not a floating-point array", cfa.var(var).name))),
        }
    }

    /// Assigns to an lvalue (the value is converted to the lvalue's type).
    pub fn assign(
        &mut self,
        cfa: &Cfa,
        lhs: &Place,
        v: &Value,
        result: ResultValue,
    ) -> Result<Vec<Definedness>, EvalError> {
        let Some(ty) = lhs.int_ty() else { return Err(not_of_type("integer")) };
        let mut defined = Vec::new();
        match lhs {
            Place::Var { var, .. } => {
                let v = value::cast(v, ty);
                match self.slot_mut(cfa, *var) {
                    Some(slot @ Slot::Scalar(_)) => *slot = Slot::Scalar(v),
                    // `int x = f();` is one edge that declares and assigns a local.
                    None if matches!(cfa.var(*var).scope, VarScope::Local(_))
                        && matches!(cfa.var(*var).ty, CType::Int(_)) =>
                    {
                        match self.frames_mut().last_mut() {
                            Some(f) => {
                                f.locals_mut().insert(*var, Slot::Scalar(v));
                            }
                            None => return Err(EvalError::Unsupported("assignment outside a function".into())),
                        }
                    }
                    _ => return Err(EvalError::Unsupported(format!("assignment to `{}`", cfa.var(*var).name))),
                }
            }
            Place::Deref { ptr, .. } => {
                let p = self.eval_ptr(cfa, ptr, result, &mut defined)?;
                self.store(cfa, &p, &AnyValue::Int(value::cast(v, ty)), &mut defined)?;
            }
            Place::Elem { var, index, len, .. } => {
                let idx = self.eval_into(cfa, index, result, &mut defined)?;
                self.set_elem(cfa, *var, &idx, *len, &value::cast(v, ty), &mut defined)?;
            }
        }
        Ok(defined)
    }

    /// Stores `v` into element `idx` of integer array `var` (current frame or global).
    pub(super) fn set_elem(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        idx: &Value,
        len: u64,
        v: &Value,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let (var, len) = (&var, &len);
        {
            {
                let name = cfa.var(*var).name.clone();
                defined.push(Definedness {
                    unmodelled: false,
                    kind: Some(ViolationKind::Deref),
                    holds: Self::index_in_bounds(idx, *len),
                    what: format!("array index out of bounds in `{name}[…] = …` (length {len})"),
                });
                let v = v.clone();
                let general = matches!(self.slot(cfa, *var), Some(Slot::SymArray { .. }));
                match idx.known() {
                    Some(i) if i >= 0 && (i as u128) < *len as u128 => self.set_cell(cfa, *var, i as usize, &v)?,
                    Some(_) => {}
                    None if general => {
                        let i = value::cast(idx, IntTy::new(64, false)).term();
                        if let Some(Slot::SymArray { elem, arr }) = self.slot_mut(cfa, *var) {
                            *arr = arr.store(&i, &value::cast(&v, *elem).term());
                        }
                    }
                    None => {
                        if *len > Self::MAX_SYMBOLIC_ARRAY {
                            return Err(EvalError::Unsupported(format!(
                                "symbolic index into `{name}` with {len} elements"
                            )));
                        }
                        let wide = value::cast(idx, IntTy::new(64, false)).term();
                        for i in 0..*len {
                            let old = self.cell(cfa, *var, i as usize)?;
                            let new = Value::select(
                                &Truth::Sym(wide.eq(BV::from_u64(i, 64))),
                                &value::cast(&v, old.ty),
                                &old,
                            );
                            self.set_cell(cfa, *var, i as usize, &new)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// All elements of array `var`, materialising never-read cells as nondeterministic values
    /// (so that a copy and its source agree).
    pub fn read_array(&mut self, cfa: &Cfa, var: VarId) -> Result<Slot, EvalError> {
        let n = cfa.var(var).ty.element_count();
        if n > Self::MAX_SYMBOLIC_ARRAY {
            return Err(EvalError::Unsupported(format!("copy of array `{}` with {n} elements", cfa.var(var).name)));
        }
        let is_float = matches!(cfa.var(var).ty, CType::FloatArray { .. });
        for i in 0..n {
            if is_float {
                self.fcell(cfa, var, i as usize)?;
            } else {
                self.cell(cfa, var, i as usize)?;
            }
        }
        match self.slot(cfa, var) {
            Some(s @ (Slot::Array { .. } | Slot::FloatArray { .. })) => Ok(s.clone()),
            _ => Err(EvalError::Unsupported(format!("`{}` is not an array", cfa.var(var).name))),
        }
    }

    /// Stores a whole array value (from [`DataState::read_array`]) into array `var` (declaring
    /// it in the current frame if needed).
    pub fn write_array(&mut self, cfa: &Cfa, var: VarId, slot: &Slot) -> Result<(), EvalError> {
        let same = match (slot, &cfa.var(var).ty) {
            (Slot::Array { elem: se, cells }, CType::Array { elem, .. }) => {
                se == elem && cells.len() as u64 == cfa.var(var).ty.element_count()
            }
            (Slot::FloatArray { elem: se, cells }, CType::FloatArray { elem, .. }) => {
                se == elem && cells.len() as u64 == cfa.var(var).ty.element_count()
            }
            _ => return Err(EvalError::Unsupported(format!("`{}` is not an array", cfa.var(var).name))),
        };
        if !same {
            return Err(EvalError::Unsupported(format!("array copy into `{}` of another shape", cfa.var(var).name)));
        }
        match self.slot_mut(cfa, var) {
            Some(s) => *s = slot.clone(),
            None => match (cfa.var(var).scope.clone(), self.frames_mut().last_mut()) {
                (VarScope::Local(_), Some(f)) => {
                    f.locals_mut().insert(var, slot.clone());
                }
                _ => return Err(EvalError::Unsupported(format!("assignment to `{}`", cfa.var(var).name))),
            },
        }
        Ok(())
    }

    pub(super) fn set_cell(&mut self, cfa: &Cfa, var: VarId, i: usize, v: &Value) -> Result<(), EvalError> {
        match self.slot_mut(cfa, var) {
            Some(Slot::Array { elem, cells }) => {
                let v = value::cast(v, *elem);
                if let Some(c) = Rc::make_mut(cells).get_mut(i) {
                    *c = Some(v.val);
                }
                Ok(())
            }
            Some(Slot::SymArray { elem, arr }) => {
                *arr = arr.store(&BV::from_u64(i as u64, 64), &value::cast(v, *elem).term());
                Ok(())
            }
            _ => Err(EvalError::Unsupported(format!("`{}` is not an array", cfa.var(var).name))),
        }
    }
}

/// A store of a value into a place of another kind (the front end never builds one).
pub(super) fn not_of_type(kind: &str) -> EvalError {
    EvalError::Unsupported(format!("malformed assignment: the place is not of {kind} type"))
}
