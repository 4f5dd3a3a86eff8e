//! Pointers to variables (no heap): evaluation of [`PExpr`], reads and writes through a
//! pointer. A pointer is an object (a global, or a local of one frame, named by the frame's
//! unique id) and an element offset. Forming a pointer outside `[0, len]` of its object,
//! dereferencing a dangling pointer (its frame has returned) or an offset outside `[0, len)`
//! is undefined behaviour (C11 6.5.6p8, 6.5.3.2p4); an object of another type than the
//! pointer's element type is unsupported (type punning needs a byte-level memory model).

use super::*;

/// Where a pointer's object lives.
#[derive(Clone, Copy)]
enum Loc {
    Global,
    /// Index into [`DataState::frames`].
    Frame(usize),
}

impl DataState {
    /// The object of variable `var` as seen from the current frame.
    fn obj_of(&self, cfa: &Cfa, var: VarId) -> Result<Obj, EvalError> {
        match cfa.var(var).scope {
            VarScope::Global => Ok(Obj { var, frame: None }),
            VarScope::Local(_) => match self.frames.last() {
                Some(f) => Ok(Obj { var, frame: Some(f.id) }),
                None => Err(EvalError::Unsupported("address of a local outside a function".into())),
            },
        }
    }

    /// `None`: the object's frame has returned (dangling pointer).
    fn locate(&self, obj: Obj) -> Option<Loc> {
        match obj.frame {
            None => Some(Loc::Global),
            Some(id) => self.frames.iter().position(|f| f.id == id).map(Loc::Frame),
        }
    }

    /// Runs `f` with the frame at `loc` as the current one.
    fn with_loc<T>(&mut self, loc: Loc, f: impl FnOnce(&mut Self) -> T) -> T {
        match loc {
            Loc::Global => f(self),
            Loc::Frame(k) => {
                let last = self.frames.len() - 1;
                self.frames.swap(k, last);
                let r = f(self);
                self.frames.swap(k, last);
                r
            }
        }
    }

    /// Evaluates a pointer expression.
    pub fn eval_ptr(
        &mut self,
        cfa: &Cfa,
        p: &PExpr,
        result: ResultValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<PtrVal, EvalError> {
        match p {
            PExpr::Var { var, .. } => match self.slot(cfa, *var) {
                Some(Slot::Ptr(v)) => Ok(v.clone()),
                _ => Err(EvalError::Unsupported(format!("pointer `{}` has no value here", cfa.var(*var).name))),
            },
            PExpr::AddrOf { var, index, .. } => {
                let obj = self.obj_of(cfa, *var)?;
                let idx = value::cast(&self.eval_into(cfa, index, result, defined)?, IntTy::LLONG);
                let len = cfa.var(*var).ty.element_count();
                defined.push(Definedness {
                    holds: Self::index_in_bounds(&idx, len + 1),
                    what: format!("address `&{}[…]` outside the array (length {len})", cfa.var(*var).name),
                });
                Ok(PtrVal { obj, offset: idx })
            }
            PExpr::Add { base, k } => {
                let b = self.eval_ptr(cfa, base, result, defined)?;
                let k = value::cast(&self.eval_into(cfa, k, result, defined)?, IntTy::LLONG);
                let off = value::binary(BinOp::Add, &b.offset, &k, IntTy::LLONG, defined);
                let len = cfa.var(b.obj.var).ty.element_count();
                defined.push(Definedness {
                    holds: Self::index_in_bounds(&off, len + 1),
                    what: format!(
                        "pointer arithmetic leaves the object `{}` (C11 6.5.6p8, {len} elements)",
                        cfa.var(b.obj.var).name
                    ),
                });
                Ok(PtrVal { obj: b.obj, offset: off })
            }
        }
    }

    /// Checks that `p` may be dereferenced as `want`: `Ok(None)` when it is dangling (the
    /// undefined behaviour is recorded in `defined`).
    fn deref_target(
        &self,
        cfa: &Cfa,
        p: &PtrVal,
        want: ScalarTy,
        defined: &mut Vec<Definedness>,
    ) -> Result<Option<Loc>, EvalError> {
        let info = cfa.var(p.obj.var);
        let same = match (&info.ty, want) {
            (CType::Int(t) | CType::Array { elem: t, .. }, ScalarTy::Int(w)) => *t == w,
            (CType::Float(t) | CType::FloatArray { elem: t, .. }, ScalarTy::Float(w)) => *t == w,
            _ => false,
        };
        if !same {
            return Err(EvalError::Unsupported(format!(
                "access to `{}` through a pointer to another type (type punning is not supported yet)",
                info.name
            )));
        }
        let Some(loc) = self.locate(p.obj) else {
            defined.push(Definedness {
                holds: Truth::Known(false),
                what: format!("dereference of a dangling pointer to `{}` (its function has returned)", info.name),
            });
            return Ok(None);
        };
        if matches!(info.ty, CType::Int(_) | CType::Float(_)) {
            defined.push(Definedness {
                holds: Self::index_in_bounds(&p.offset, 1),
                what: format!("dereference of a pointer past the object `{}`", info.name),
            });
        }
        Ok(Some(loc))
    }

    /// `*p` read as a value of type `want`.
    pub fn deref_read(
        &mut self,
        cfa: &Cfa,
        p: &PtrVal,
        want: ScalarTy,
        defined: &mut Vec<Definedness>,
    ) -> Result<AnyValue, EvalError> {
        let Some(loc) = self.deref_target(cfa, p, want, defined)? else {
            return Ok(match want {
                ScalarTy::Int(t) => AnyValue::Int(Value::conc(0, t)),
                ScalarTy::Float(f) => AnyValue::Float(FValue::conc(0, f)),
            });
        };
        let var = p.obj.var;
        let len = cfa.var(var).ty.element_count();
        let ty = cfa.var(var).ty.clone();
        self.with_loc(loc, |st| {
            Ok(match (ty, want) {
                (CType::Int(_), ScalarTy::Int(t)) => {
                    AnyValue::Int(st.eval_into(cfa, &Expr::Var { var, ty: t }, None, defined)?)
                }
                (CType::Float(_), ScalarTy::Float(fty)) => {
                    AnyValue::Float(st.eval_float(cfa, &FExpr::Var { var, fty }, None, defined)?)
                }
                (CType::Array { .. }, ScalarTy::Int(t)) => {
                    AnyValue::Int(st.read_elem(cfa, var, &p.offset, len, t, defined)?)
                }
                (CType::FloatArray { .. }, ScalarTy::Float(_)) => {
                    AnyValue::Float(st.read_felem(cfa, var, &p.offset, len, defined)?)
                }
                _ => return Err(EvalError::Unsupported("dereference of another type".into())),
            })
        })
    }

    /// `*p = v` (`v` already has the pointer's element type).
    pub fn deref_write(
        &mut self,
        cfa: &Cfa,
        p: &PtrVal,
        v: &AnyValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let Some(loc) = self.deref_target(cfa, p, v.ty(), defined)? else {
            return Ok(());
        };
        let var = p.obj.var;
        let len = cfa.var(var).ty.element_count();
        let ty = cfa.var(var).ty.clone();
        self.with_loc(loc, |st| {
            match (ty, v) {
                (CType::Int(_), AnyValue::Int(x)) => {
                    defined.extend(st.assign(cfa, &Lvalue::Var { var, ty: x.ty }, x, None)?);
                }
                (CType::Float(_), AnyValue::Float(x)) => st.assign_float(cfa, var, x)?,
                (CType::Array { .. }, AnyValue::Int(x)) => st.set_elem(cfa, var, &p.offset, len, x, defined)?,
                (CType::FloatArray { .. }, AnyValue::Float(x)) => st.set_felem(cfa, var, &p.offset, len, x, defined)?,
                _ => return Err(EvalError::Unsupported("store through a pointer to another type".into())),
            }
            Ok(())
        })
    }
}
