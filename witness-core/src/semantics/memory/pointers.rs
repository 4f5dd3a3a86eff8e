//! Pointer values: evaluation, conversions to and from integers, differences and
//! comparisons (decisions 48-51).

use super::*;

impl DataState {
    /// Evaluates a pointer expression.
    pub fn eval_ptr(
        &mut self,
        cfa: &Cfa,
        p: &Expr,
        result: ResultValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<PtrVal, EvalError> {
        match p {
            Expr::Var { var, ty: ScalarTy::Ptr } => match self.slot(cfa, *var) {
                Some(Slot::Ptr(v)) => Ok(v.clone()),
                Some(Slot::PtrUninit) => {
                    defined.push(ub(format!("use of the uninitialised pointer `{}`", cfa.var(*var).name)));
                    Ok(PtrVal::null())
                }
                Some(Slot::External) => Err(external(cfa, *var)),
                _ => Err(EvalError::Unsupported(format!("pointer `{}` has no value here", cfa.var(*var).name))),
            },
            Expr::Null => Ok(PtrVal::null()),
            Expr::Func(f) => Ok(PtrVal { obj: Obj::Func(*f), offset: llong(0) }),
            Expr::AddrOf { var, offset } => {
                // Issue 22: a thread-local variable's copies are swapped in and out with the
                // running thread, so its address would name whichever copy runs (unsound).
                if cfa.threads && cfa.thread_locals.contains(var) {
                    return Err(EvalError::Unsupported(format!(
                        "the address of the thread-local variable `{}` (not modelled)",
                        cfa.var(*var).name
                    )));
                }
                let obj = self.obj_of(cfa, *var)?;
                let off = value::cast(&self.eval_into(cfa, offset, result, defined)?, IntTy::LLONG);
                Ok(PtrVal { obj, offset: wrap_offset(cfa, &off) })
            }
            Expr::Offset { base, bytes } => {
                let b = self.eval_ptr(cfa, base, result, defined)?;
                let k = value::cast(&self.eval_into(cfa, bytes, result, defined)?, IntTy::LLONG);
                if let Obj::Func(_) = b.obj {
                    return Err(EvalError::Unsupported("arithmetic on a function pointer".into()));
                }
                // Address arithmetic (decision 48): any offset may be formed, only accesses
                // are checked.
                Ok(PtrVal { obj: b.obj, offset: offset_add(cfa, &b.offset, &k) })
            }
            Expr::Cast { arg, to: ScalarTy::Ptr } if matches!(arg.ty(), ScalarTy::Int(_)) => {
                let v = self.eval_into(cfa, arg, result, defined)?;
                self.int_to_ptr(cfa, &v)
            }
            Expr::Deref { ptr, ty: ScalarTy::Ptr } => {
                let at = self.eval_ptr(cfa, ptr, result, defined)?;
                match self.load(cfa, &at, ScalarTy::Ptr, defined)? {
                    AnyValue::Ptr(v) => Ok(v),
                    _ => Err(EvalError::Unsupported("a pointer load gave another type".into())),
                }
            }
            _ => Err(EvalError::Unsupported(format!(
                "malformed IR: a {:?} expression where a pointer is needed",
                p.ty()
            ))),
        }
    }

    /// The address of `obj` as a pointer-width unsigned symbol (decision 51), created on first
    /// use with what every layout guarantees: above the first page, aligned to 8 for a heap
    /// block (malloc's minimum on both data models), the object and `ADDRESS_SLACK` bytes past
    /// it below the top of user space, and apart from every other live object so converted.
    pub(super) fn layout_base(&mut self, cfa: &Cfa, obj: &Obj) -> Result<BV, EvalError> {
        if let Some(b) = self.layout.get(obj) {
            return Ok(b.clone());
        }
        let bits = cfa.data_model.long_bits();
        let top: u64 = if bits == 32 { (1u64 << 32) - 8192 } else { 1u64 << 47 };
        let base = BV::fresh_const(LAYOUT_PREFIX, bits);
        let wide = |b: &BV| if bits == 64 { b.clone() } else { b.zero_ext(64 - bits) };
        let size_of = |st: &Self, o: &Obj| -> Result<BV, EvalError> {
            Ok(match o {
                Obj::Func(_) => BV::from_u64(1, 64),
                _ => st.obj_size_value(cfa, o)?.term(),
            })
        };
        let k = |v: u64| BV::from_u64(v, 64);
        let (b, size) = (wide(&base), size_of(self, obj)?);
        let mut facts = vec![
            b.bvuge(k(4096)),
            size.bvule(k(MAX_BLOCK)),
            b.bvadd(&size).bvadd(k(ADDRESS_SLACK as u64)).bvule(k(top)),
        ];
        // Alignment: malloc's minimum for a heap block; a scalar or scalar array's element
        // size (at most 4 in ILP32, where i386 aligns `long long` and `double` to 4).
        let align = match obj {
            Obj::Heap(_) => 8,
            Obj::Var { var, .. } => match elements(&cfa.var(*var).ty).and_then(|(e, _)| access_size(cfa, e)) {
                Some(s) if bits == 32 => s.min(4),
                Some(s) => s,
                None => 1,
            },
            _ => 1,
        };
        if align > 1 {
            facts.push(b.bvurem(k(align)).eq(k(0)));
        }
        let others: Vec<(Obj, BV)> = self.layout.iter().map(|(o, b)| (*o, b.clone())).collect();
        for (o, ob) in others {
            let live = match &o {
                Obj::Var { frame, .. } => self.locate(*frame).is_some(),
                Obj::Heap(id) => self.heap.get(id).is_some_and(|h| h.live),
                _ => true,
            };
            if live {
                let (ob, os) = (wide(&ob), size_of(self, &o)?);
                facts.push(Bool::or(&[&b.bvadd(&size).bvule(&ob), &ob.bvadd(&os).bvule(&b)]));
            }
        }
        for f in facts {
            self.constrain(f);
        }
        Rc::make_mut(&mut self.layout).insert(*obj, base.clone());
        Ok(base)
    }

    /// `(ty) p`: the address of `p`'s object plus its offset (decision 51); a null pointer's
    /// address is its offset (0, or the integer it was made from).
    pub fn ptr_to_int(&mut self, cfa: &Cfa, p: &PtrVal, ty: IntTy) -> Result<Value, EvalError> {
        let bits = cfa.data_model.long_bits();
        let uptr = IntTy::new(bits, false);
        let off = value::cast(&p.offset, uptr);
        let addr = match &p.obj {
            Obj::Null => off,
            obj => {
                let base = self.layout_base(cfa, obj)?;
                let mut none = Vec::new();
                value::binary(BinOp::Add, &Value::sym(base, uptr), &off, uptr, &mut none)
            }
        };
        // gcc: a pointer converted to a wider integer type is sign-extended (ILP32
        // `(long long)p` of an address at or above 2^31 is negative), a narrower one truncated.
        let addr = if ty.bits > bits { value::cast(&addr, IntTy::new(bits, true)) } else { addr };
        Ok(value::cast(&addr, ty))
    }

    /// `(T *) v`: the pointer whose address `v` is, if `v` is the address of an object converted
    /// before plus a constant; an integer that involves no object's address is an absolute
    /// address (a null-object pointer with that offset: dereferencing it is undefined).
    pub fn int_to_ptr(&mut self, cfa: &Cfa, v: &Value) -> Result<PtrVal, EvalError> {
        let bits = cfa.data_model.long_bits();
        // gcc: a narrower integer is extended by its signedness, a wider one truncated.
        let addr = value::cast(&value::cast(v, IntTy::new(bits, v.ty.signed)), IntTy::new(bits, false));
        let Val::Sym(t) = &addr.val else {
            return Ok(PtrVal { obj: Obj::Null, offset: wrap_offset(cfa, &addr) });
        };
        if !mentions_layout(t) {
            return Ok(PtrVal { obj: Obj::Null, offset: wrap_offset(cfa, &addr) });
        }
        for (obj, base) in self.layout.iter() {
            // `v - base` free of addresses: `v` is `base` plus that offset, exactly.
            let d = t.bvsub(base).simplify();
            if !mentions_layout(&d) {
                let off = Value { val: Value::sym(d, IntTy::new(bits, false)).val, ty: IntTy::new(bits, true) };
                return Ok(PtrVal { obj: *obj, offset: wrap_offset(cfa, &off) });
            }
        }
        Err(EvalError::Unsupported(
            "an integer converted to a pointer that is not an object's address plus a constant".into(),
        ))
    }

    /// Pointer difference `a - b` in elements of `size` bytes (C11 6.5.6p9). Addresses are flat
    /// (decision 48), but the distance between two objects depends on the memory layout, which
    /// is not modelled; a byte distance that is not a whole number of elements is undefined
    /// behaviour.
    pub fn ptr_diff(&self, a: &PtrVal, b: &PtrVal, size: u64, ty: IntTy, defined: &mut Vec<Definedness>) -> Value {
        if a.obj != b.obj || matches!(a.obj, Obj::Func(_)) {
            defined.push(layout("difference of pointers to different objects".into(), Truth::Known(false)));
            return Value::conc(0, ty);
        }
        let bytes = value::binary(BinOp::Sub, &a.offset, &b.offset, IntTy::LLONG, defined);
        let k = llong(size as i128);
        let rest = value::binary(BinOp::Rem, &bytes, &k, IntTy::LLONG, defined);
        defined.push(Definedness {
            unmodelled: false,
            holds: rest.equals(&llong(0)),
            what: "difference of pointers that are not a whole number of elements apart".into(),
            kind: None,
        });
        value::cast(&value::binary(BinOp::Div, &bytes, &k, IntTy::LLONG, defined), ty)
    }

    /// Where a pointer into a data object or function certainly lies, for comparisons across
    /// objects: `(inside, valid)`, whether its address is one of the object's bytes, and whether
    /// it is in `[0, size]` (one past the end included). A pointer into a freed block or a
    /// returned frame is never `inside` (its address may have been reused), but its address
    /// is still not null.
    pub(super) fn extent(&self, cfa: &Cfa, p: &PtrVal) -> Result<(Truth, Truth), EvalError> {
        let live = match &p.obj {
            Obj::Var { frame, .. } => self.locate(*frame).is_some(),
            Obj::Heap(id) => self.heap.get(id).is_some_and(|b| b.live),
            Obj::Func(_) => return Ok((Truth::Known(true), Truth::Known(true))),
            Obj::Null => return Ok((Truth::Known(false), Truth::Known(false))),
        };
        let size = self.obj_size_value(cfa, &p.obj)?;
        let inside = if live { within_v(&p.offset, 0, &size, -1) } else { Truth::Known(false) };
        Ok((inside, within_v(&p.offset, 0, &size, 0)))
    }

    /// Pointer comparison `lhs op rhs` (C11 6.5.8, 6.5.9) on flat addresses (decision 48): an
    /// object's address is unknown, so a result that depends on the layout of memory is a
    /// modelling gap (unknown), never a guess. Pointers into one object compare by offset;
    /// distinct objects are unequal while both pointers are inside them (a null pointer: while
    /// the other is in `[0, size]`); a null pointer is below every pointer in `[0, size]` of
    /// an object; other orderings across objects are not decided.
    pub fn compare_ptr(
        &self,
        cfa: &Cfa,
        op: BinOp,
        a: &PtrVal,
        b: &PtrVal,
        defined: &mut Vec<Definedness>,
    ) -> Result<Truth, EvalError> {
        let ordering = matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
        if !ordering && !matches!(op, BinOp::Eq | BinOp::Ne) {
            return Err(EvalError::Unsupported(format!("pointer operation {op:?}")));
        }
        let mut d = Vec::new();
        if a.obj == b.obj {
            if a.obj == Obj::Null {
                // Absolute addresses: unsigned, of the pointer's width.
                let t = IntTy::new(cfa.data_model.long_bits(), false);
                return Ok(value::binary(op, &value::cast(&a.offset, t), &value::cast(&b.offset, t), t, &mut d).truth());
            }
            if ordering {
                // base + offset does not wrap within `ADDRESS_SLACK` bytes of the object.
                let size = self.obj_size_value(cfa, &a.obj)?;
                let exact = within_v(&a.offset, -ADDRESS_SLACK, &size, ADDRESS_SLACK).and(&within_v(
                    &b.offset,
                    -ADDRESS_SLACK,
                    &size,
                    ADDRESS_SLACK,
                ));
                defined.push(layout(
                    format!("ordering of pointers more than {ADDRESS_SLACK} bytes outside their object"),
                    exact,
                ));
            }
            return Ok(value::binary(op, &a.offset, &b.offset, IntTy::LLONG, &mut d).truth());
        }
        // Distinct objects: `a` below `b` when `a` is null and `b` valid.
        let (lo, hi, swapped) = if a.obj == Obj::Null || b.obj != Obj::Null { (a, b, false) } else { (b, a, true) };
        let (inside_hi, valid_hi) = self.extent(cfa, hi)?;
        let decided = if lo.obj == Obj::Null {
            lo.offset.equals(&llong(0)).and(&valid_hi)
        } else if ordering {
            Truth::Known(false)
        } else {
            self.extent(cfa, lo)?.0.and(&inside_hi)
        };
        let what = if ordering {
            "ordering of pointers into different objects"
        } else {
            "equality of pointers into different objects, one of them outside its object"
        };
        defined.push(layout(what.into(), decided));
        Ok(Truth::Known(match op {
            BinOp::Eq => false,
            BinOp::Ne => true,
            // `lo` (null) < `hi`.
            BinOp::Lt | BinOp::Le => !swapped,
            _ => swapped,
        }))
    }
}
