//! Blocks: allocation of every storage duration, `realloc`, `free`, and byte-wise copies
//! and fills (decisions 50, 110, 135).

use super::*;

impl DataState {
    /// A fresh block of `size` bytes; returns the pointer to its start. A symbolic size
    /// needs `bound`, an upper bound the path guarantees (decision 50): the block has that
    /// many cells, and every access checks the symbolic size. With `stack` (`alloca`, a
    /// variable-length array) the block belongs to the current frame and dies when it returns
    /// (decision 110); otherwise it is a heap block, live until freed.
    pub fn allocate(
        &mut self,
        function: &str,
        size: &Value,
        bound: Option<u64>,
        zeroed: bool,
        stack: bool,
    ) -> Result<PtrVal, EvalError> {
        let frame = match (stack, self.frames.last()) {
            (false, _) => None,
            (true, Some(f)) => Some(f.id),
            (true, None) => return Err(EvalError::Unsupported(format!("`{function}` outside a function"))),
        };
        let (n, sym) = match (size.known(), bound) {
            (Some(n), _) => (n, None),
            (None, Some(b)) if b <= MAX_BLOCK => (b as i128, Some(value::cast(size, IntTy::ULLONG))),
            (None, Some(_)) => {
                return Err(EvalError::Unsupported(format!(
                    "`{function}` of a symbolic size that the path does not bound to at most {MAX_BLOCK} bytes"
                )))
            }
            (None, None) => return Err(EvalError::Unsupported(format!("`{function}` of a symbolic size"))),
        };
        if n < 0 || n as u64 > MAX_BLOCK {
            return Err(EvalError::Unsupported(format!("`{function}` of {n} bytes")));
        }
        let id = self.next_heap;
        self.next_heap += 1;
        // Decision 135: a block of a symbolic size larger than an if-then-else over its cells can
        // serve keeps the log of its stores instead.
        let log = (sym.is_some() && n as u64 > MAX_SYMBOLIC_BYTES)
            .then(|| Rc::new(ByteLog { len: n as u64, writes: Vec::new(), zeroed }));
        let cells = match (&log, zeroed) {
            (Some(_), _) => Vec::new(),
            (None, true) => vec![Some(Cell::Byte(Val::Conc(0))); n as usize],
            (None, false) => vec![None; n as usize],
        };
        // The size as a `long long` (it is at most `bound`, so the unsigned bits read the same).
        let size = sym.map(|v| Value { val: v.val, ty: IntTy::LLONG });
        let block = HeapBlock {
            cells: Rc::new(cells),
            log,
            live: true,
            function: function.to_string(),
            size,
            frame,
            site: (0, 0),
        };
        Rc::make_mut(&mut self.heap).insert(id, block);
        Ok(PtrVal { obj: Obj::Heap(id), offset: llong(0) })
    }

    /// Records where the block `p` points to was allocated: the lines of the step (issue 51
    /// cause 7).
    pub fn set_site(&mut self, p: &PtrVal, site: (u32, u32)) {
        if let Obj::Heap(id) = p.obj {
            if let Some(b) = Rc::make_mut(&mut self.heap).get_mut(&id) {
                b.site = site;
            }
        }
    }

    /// `realloc(p, size)`: a fresh block holding the first bytes of `p`'s block, which is freed
    /// (C11 7.22.3.5); a null `p` makes it `malloc`.
    pub fn reallocate(
        &mut self,
        cfa: &Cfa,
        p: &PtrVal,
        size: &Value,
        bound: Option<u64>,
        defined: &mut Vec<Definedness>,
    ) -> Result<PtrVal, EvalError> {
        if p.obj == Obj::Null {
            return self.allocate("realloc", size, bound, false, false);
        }
        match size.known() {
            Some(0) => return Err(EvalError::Unsupported("`realloc` to 0 bytes (implementation-defined)".into())),
            Some(_) => {}
            None => defined.push(Definedness {
                unmodelled: true,
                holds: size.equals(&Value::conc(0, size.ty)).not(),
                what: "`realloc` to 0 bytes (implementation-defined)".into(),
                kind: None,
            }),
        }
        let old = match &p.obj {
            Obj::Heap(id) => self.heap.get(id).filter(|b| b.live && b.frame.is_none()).map(|b| b.cells.clone()),
            _ => None,
        };
        if let Obj::Heap(id) = &p.obj {
            if self.heap.get(id).is_some_and(|b| b.live && b.log.is_some()) {
                return Err(EvalError::Unsupported(format!(
                    "`realloc` of a block of a symbolic size over {MAX_SYMBOLIC_BYTES} bytes"
                )));
            }
        }
        // `free` checks the pointer: the start of a live block.
        self.free(cfa, p, defined);
        let Some(old) = old else { return Ok(PtrVal::null()) };
        // Cells past the old block's (or the new block's) size were never written: copying them
        // keeps them uninitialised.
        let fresh = self.allocate("realloc", size, bound, false, false)?;
        if matches!(fresh.obj, Obj::Heap(id) if self.logged(Place::Heap(id)).is_some()) && !old.is_empty() {
            return Err(EvalError::Unsupported(format!(
                "`realloc` to a symbolic size over {MAX_SYMBOLIC_BYTES} bytes"
            )));
        }
        if let Obj::Heap(id) = fresh.obj {
            if let Some(b) = Rc::make_mut(&mut self.heap).get_mut(&id) {
                let cells = Rc::make_mut(&mut b.cells);
                let keep = cells.len().min(old.len());
                cells[..keep].clone_from_slice(&old[..keep]);
            }
        }
        Ok(fresh)
    }

    /// `memset(dst, c, n)`: `n` stores of the byte `c` (an `unsigned char`).
    pub fn set_bytes(
        &mut self,
        cfa: &Cfa,
        dst: &PtrVal,
        c: &Value,
        n: u64,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        for i in 0..n {
            self.store(cfa, &byte_at(cfa, dst, i), &AnyValue::Int(c.clone()), defined)?;
        }
        Ok(())
    }

    /// `memcpy`/`memmove(dst, src, n)`: the `n` bytes are all read, then stored (as `memmove`
    /// does); for `memcpy` (`overlap_ok` false) overlapping bytes of one object are undefined
    /// behaviour (C11 7.24.2.1p2). Bytes of a stored pointer cannot be copied yet.
    pub fn copy_bytes(
        &mut self,
        cfa: &Cfa,
        dst: &PtrVal,
        src: &PtrVal,
        n: u64,
        overlap_ok: bool,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        if !overlap_ok && dst.obj == src.obj && n > 0 {
            let (Some(d), Some(s)) = (dst.offset.known(), src.offset.known()) else {
                return Err(EvalError::Unsupported("`memcpy` within one object at a symbolic offset".into()));
            };
            if d < s + n as i128 && s < d + n as i128 {
                defined.push(ub("`memcpy` between overlapping bytes".into()));
            }
        }
        if let Some(done) = self.copy_cells(cfa, dst, src, n, defined)? {
            return Ok(done);
        }
        let mut bytes = Vec::with_capacity(n as usize);
        for i in 0..n {
            bytes.push(self.load(cfa, &byte_at(cfa, src, i), ScalarTy::Int(IntTy::UCHAR), defined)?);
        }
        for (i, b) in bytes.iter().enumerate() {
            self.store(cfa, &byte_at(cfa, dst, i as u64), b, defined)?;
        }
        Ok(())
    }

    /// The copy of [`DataState::copy_bytes`] between two byte objects (unions, heap blocks, arrays
    /// of structs or pointers) at constant offsets: cell by cell, so stored pointers are copied
    /// too. An uninitialised byte is fixed to one nondeterministic value first, so that source
    /// and copy agree. `None` if the objects or offsets do not allow it.
    pub(super) fn copy_cells(
        &mut self,
        cfa: &Cfa,
        dst: &PtrVal,
        src: &PtrVal,
        n: u64,
        defined: &mut Vec<Definedness>,
    ) -> Result<Option<()>, EvalError> {
        let (Some(d), Some(s)) = (dst.offset.known(), src.offset.known()) else { return Ok(None) };
        let bytes_obj = |p: &PtrVal| match p.obj {
            Obj::Heap(_) => true,
            Obj::Var { var, .. } => matches!(cfa.var(var).ty, CType::Bytes { .. }),
            _ => false,
        };
        let logged = |st: &Self, p: &PtrVal| matches!(p.obj, Obj::Heap(id) if st.logged(Place::Heap(id)).is_some());
        if n == 0 || !bytes_obj(dst) || !bytes_obj(src) || logged(self, dst) || logged(self, src) {
            return Ok(None);
        }
        let (Some(from), Some(to)) = (self.target(cfa, src, n, defined)?, self.target(cfa, dst, n, defined)?) else {
            return Ok(Some(()));
        };
        // Out-of-bounds copies are undefined behaviour, reported by `target`; copy what exists.
        let (Ok(s), Ok(d)) = (u64::try_from(s), u64::try_from(d)) else { return Ok(Some(())) };
        self.unspecified_read |= self.reads_unspecified(&src.obj, &src.offset, n);
        let mut cells = Vec::with_capacity(n as usize);
        for i in 0..n {
            let at = s.saturating_add(i);
            let cell = match self.cells(from).and_then(|cs| cs.get(at as usize).cloned()) {
                Some(Some(c @ Cell::Ptr { .. })) => c,
                Some(_) => Cell::Byte(self.byte(from, at)?.val),
                None => return Ok(Some(())),
            };
            cells.push(cell);
        }
        self.record_store(cfa, dst.obj, &dst.offset, n);
        if let Some(cs) = self.cells_mut(to) {
            for (i, c) in cells.into_iter().enumerate() {
                if let Some(slot) = cs.get_mut((d as usize).saturating_add(i)) {
                    *slot = Some(c);
                }
            }
        }
        Ok(Some(()))
    }

    /// The bytes at `p` up to the first NUL (`limit`: at most that many), each of which must
    /// be known; reading past the object is undefined behaviour (reported by the loads).
    pub fn known_bytes(
        &mut self,
        cfa: &Cfa,
        p: &PtrVal,
        limit: Option<u64>,
        stop_at_nul: bool,
        defined: &mut Vec<Definedness>,
    ) -> Result<Vec<u8>, EvalError> {
        let mut out = Vec::new();
        for i in 0.. {
            if limit.is_some_and(|l| i >= l) {
                break;
            }
            if i > MAX_BLOCK {
                return Err(EvalError::Unsupported("a string longer than the largest modelled object".into()));
            }
            let before = defined.len();
            let AnyValue::Int(v) = self.load(cfa, &byte_at(cfa, p, i), ScalarTy::Int(IntTy::UCHAR), defined)? else {
                return Err(EvalError::Unsupported("a string byte of another type".into()));
            };
            // Only this byte's checks: reading on past an access outside the object is pointless.
            if defined[before..].iter().any(|d| matches!(d.holds, Truth::Known(false))) {
                break;
            }
            let Some(b) = v.known() else {
                return Err(EvalError::Unsupported("a string function on a byte that is not known".into()));
            };
            if stop_at_nul && b == 0 {
                break;
            }
            out.push(b as u8);
        }
        Ok(out)
    }

    /// `free(p)`.
    pub fn free(&mut self, cfa: &Cfa, p: &PtrVal, defined: &mut Vec<Definedness>) {
        let invalid = |what: String| guard(ViolationKind::Free, Truth::Known(false), what);
        match &p.obj {
            Obj::Null => defined.push(guard(
                ViolationKind::Free,
                p.offset.equals(&llong(0)),
                "free of an address that was not allocated".into(),
            )),
            // A stack block (decision 110) is not `malloc`'s to take back, live or not.
            Obj::Heap(id) if self.heap.get(id).is_some_and(|b| b.frame.is_some()) => defined.push(invalid(format!(
                "free of {}, which is on the stack, not allocated by `malloc`",
                self.obj_name(cfa, &p.obj)
            ))),
            Obj::Heap(id) if self.heap.get(id).is_some_and(|b| b.live) => {
                defined.push(guard(
                    ViolationKind::Free,
                    p.offset.equals(&llong(0)),
                    "free of a pointer into the middle of a block".into(),
                ));
                if let Some(b) = Rc::make_mut(&mut self.heap).get_mut(id) {
                    b.live = false;
                }
            }
            Obj::Heap(_) => defined.push(invalid(format!("double free of {}", self.obj_name(cfa, &p.obj)))),
            obj => defined.push(invalid(format!("free of {}, which was not allocated", self.obj_name(cfa, obj)))),
        }
    }
}
