//! The memory model (decision 36): objects are variables (of one activation, or globals), heap
//! blocks and functions; a pointer is an object and a byte offset (or null). Loads and stores
//! name the type they access.
//!
//! Variables keep their typed slots (the fast path). A load or store of the slot's element type
//! at an aligned offset is an element access; any other access at a constant offset goes
//! through the bytes of the elements it covers (little endian), so type punning through a
//! pointer cast is exact (the effective-type rule of C11 6.5p7 is not applied: SV-COMP programs
//! pun as `gcc -fno-strict-aliasing` compiles them, decision 37). Unions ([`CType::Bytes`]) and heap blocks are stored as bytes; a
//! pointer stored in them is kept as pointer fragments (it has no integer value), so reading
//! them back as a pointer gives the pointer, and reading them as an integer is unsupported.
//!
//! Addresses are flat (decision 48): any offset may be formed (it wraps at the pointer width),
//! and comparisons are of addresses; where their result depends on where objects lie, which is
//! not modelled, the path is unknown. Undefined behaviour (C11 6.5.3.2p4, 7.22.3.3):
//! dereferencing null, a dangling pointer (its function returned, or its block was freed) or
//! outside the object; freeing anything but a live block's start. Uninitialised bytes are
//! nondeterministic. A heap block may have a symbolic size bounded by its cells (decision 50);
//! an object's address converted to an integer is an opaque symbol (decision 51).

use super::*;

mod blocks;
mod pointers;

/// Where a variable's slot lives.
#[derive(Clone, Copy)]
enum Loc {
    Global,
    /// Index into [`DataState::frames`].
    Frame(usize),
    /// Index into [`DataState::others`] (another thread's frame).
    Other(usize),
}

/// `ranges` without the bytes `[lo, hi)`.
fn remove_range(ranges: &ByteRanges, lo: u64, hi: u64) -> ByteRanges {
    let mut out = Vec::new();
    for &(a, b) in ranges {
        if a < lo {
            out.push((a, b.min(lo)));
        }
        if b > hi {
            out.push((a.max(hi), b));
        }
    }
    out
}

/// Largest object whose bytes are expanded into an if-then-else chain for a symbolic offset.
const MAX_SYMBOLIC_BYTES: u64 = 4096;

/// How far outside its object a pointer may lie and still be ordered by its offset: the
/// address of an object plus or minus this many bytes never wraps around the address space
/// (x86 Linux keeps the first page, `mmap_min_addr` >= 4096, and in a 32-bit process the last
/// 8 KiB unmapped; decision 48).
const ADDRESS_SLACK: i128 = 4096;

/// Name prefix of the symbols that stand for objects' addresses (decision 51).
pub const LAYOUT_PREFIX: &str = "__layout_address";

/// Whether a term involves the address of an object (decision 51).
pub fn mentions_layout(t: &(impl Ast + std::fmt::Display)) -> bool {
    t.to_string().contains(LAYOUT_PREFIX)
}

/// Largest heap block (bytes); also the largest bound of a symbolic size (decision 135).
pub(crate) const MAX_BLOCK: u64 = 1 << 20;

/// Why a logged block (decision 135) cannot hold a pointer.
const LOGGED_PTR: &str = "a pointer stored in a block of a symbolic size over 4096 bytes";

/// `offset + k` of a `long long` offset (`k` < 8; an in-bounds offset does not overflow).
fn byte_offset(offset: &Value, k: u64) -> Value {
    if k == 0 {
        return offset.clone();
    }
    value::binary(BinOp::Add, offset, &llong(k as i128), IntTy::LLONG, &mut Vec::new())
}

fn llong(v: i128) -> Value {
    Value::from_i128(v, IntTy::LLONG)
}

fn byte_ty() -> IntTy {
    IntTy::new(8, false)
}

/// Bytes `lo..lo+n` (little endian) of an unsigned value of `bits` width.
fn extract(v: &Value, lo: u32, n: u32) -> Value {
    let ty = IntTy::new(8 * n, false);
    match &v.val {
        Val::Conc(b) => Value::conc(b >> (8 * lo), ty),
        Val::Sym(t) => Value::sym(t.extract(8 * (lo + n) - 1, 8 * lo), ty),
    }
}

/// Concatenation of bytes, least significant first.
fn concat(bytes: &[Value]) -> Value {
    let ty = IntTy::new(8 * bytes.len() as u32, false);
    if let Some(all) = bytes.iter().map(|b| b.known()).collect::<Option<Vec<i128>>>() {
        let v = all.iter().rev().fold(0u64, |acc, b| (acc << 8) | (*b as u64 & 0xff));
        return Value::conc(v, ty);
    }
    let mut acc = bytes[bytes.len() - 1].term();
    for b in bytes[..bytes.len() - 1].iter().rev() {
        acc = acc.concat(b.term());
    }
    Value::sym(acc, ty)
}

/// The size in bytes of a value of type `t` (`None`: a bit-field width).
fn access_size(cfa: &Cfa, t: ScalarTy) -> Option<u64> {
    match t {
        ScalarTy::Int(i) if i.is_bool => Some(1),
        ScalarTy::Int(i) => (i.bits % 8 == 0).then_some(i.bits as u64 / 8),
        ScalarTy::Float(f) => Some(f.bits() as u64 / 8),
        ScalarTy::Ptr => Some(cfa.data_model.long_bits() as u64 / 8),
    }
}

/// The element type and count of a typed variable.
fn elements(ty: &CType) -> Option<(ScalarTy, u64)> {
    match ty {
        CType::Int(t) => Some((ScalarTy::Int(*t), 1)),
        CType::Float(f) => Some((ScalarTy::Float(*f), 1)),
        CType::Ptr => Some((ScalarTy::Ptr, 1)),
        CType::Array { elem, .. } => Some((ScalarTy::Int(*elem), ty.element_count())),
        CType::FloatArray { elem, .. } => Some((ScalarTy::Float(*elem), ty.element_count())),
        _ => None,
    }
}

/// Size in bytes of a variable's object.
pub fn var_size(cfa: &Cfa, var: VarId) -> Option<u64> {
    match &cfa.var(var).ty {
        CType::Bytes { size, .. } => Some(*size),
        ty => {
            let (e, n) = elements(ty)?;
            Some(access_size(cfa, e)? * n)
        }
    }
}

/// Whether a value of `want` may be read from / written to an element of type `have` as an
/// element access (same representation; integer signedness may differ).
fn same_repr(have: ScalarTy, want: ScalarTy) -> bool {
    match (have, want) {
        (ScalarTy::Int(a), ScalarTy::Int(b)) => a.bits == b.bits && a.is_bool == b.is_bool,
        (a, b) => a == b,
    }
}

fn dummy(want: ScalarTy) -> AnyValue {
    match want {
        ScalarTy::Int(t) => AnyValue::Int(Value::conc(0, t)),
        ScalarTy::Float(f) => AnyValue::Float(FValue::conc(0, f)),
        ScalarTy::Ptr => AnyValue::Ptr(PtrVal::null()),
    }
}

fn ub(what: String) -> Definedness {
    Definedness { unmodelled: false, holds: Truth::Known(false), what, kind: None }
}

/// The condition `holds` guarding against a violation of `kind` (decision 112).
fn guard(kind: ViolationKind, holds: Truth, what: String) -> Definedness {
    Definedness { unmodelled: false, holds, what, kind: Some(kind) }
}

/// A result that is decided only where `holds`: elsewhere it depends on where objects lie in
/// memory, which is not modelled (decision 48).
fn layout(what: String, holds: Truth) -> Definedness {
    Definedness {
        unmodelled: true,
        holds,
        what: format!("{what} (the result depends on the memory layout)"),
        kind: None,
    }
}

/// `lo <= off && off <= hi` for a `long long` offset.
fn within(off: &Value, lo: i128, hi: i128) -> Truth {
    match off.known() {
        Some(o) => Truth::Known(lo <= o && o <= hi),
        None => {
            if hi < lo {
                return Truth::Known(false);
            }
            let t = off.term();
            let l = BV::from_i64(lo as i64, 64);
            let h = BV::from_i64(hi as i64, 64);
            Truth::Sym(Bool::and(&[&t.bvsge(&l), &t.bvsle(&h)]))
        }
    }
}

/// The offset `off` as the machine sees it: addresses wrap at the pointer width, so an offset
/// is kept as the sign extension of its low `long` bits (decision 48). Within an object no
/// address wraps, so accesses are exact, and so are orderings of offsets in
/// `[-ADDRESS_SLACK, size + ADDRESS_SLACK]`.
pub(super) fn wrap_offset(cfa: &Cfa, off: &Value) -> Value {
    let bits = cfa.data_model.long_bits();
    if bits >= 64 {
        return value::cast(off, IntTy::LLONG);
    }
    value::cast(&value::cast(off, IntTy::new(bits, true)), IntTy::LLONG)
}

/// `a + b` of two offsets, wrapping as addresses do (no undefined behaviour, decision 48).
pub(super) fn offset_add(cfa: &Cfa, a: &Value, b: &Value) -> Value {
    let mut none = Vec::new();
    let sum = value::binary(
        BinOp::Add,
        &value::cast(a, IntTy::ULLONG),
        &value::cast(b, IntTy::ULLONG),
        IntTy::ULLONG,
        &mut none,
    );
    wrap_offset(cfa, &sum)
}

/// `lo <= off && off <= size + d` for a `long long` offset and a size that may be symbolic
/// (at most `MAX_BLOCK`, so `size + d` does not overflow for the `d` used here).
fn within_v(off: &Value, lo: i128, size: &Value, d: i128) -> Truth {
    match size.known() {
        Some(n) => within(off, lo, n + d),
        None => {
            let t = off.term();
            let hi = size.term().bvadd(BV::from_i64(d as i64, 64));
            Truth::Sym(Bool::and(&[&t.bvsge(BV::from_i64(lo as i64, 64)), &t.bvsle(&hi)]))
        }
    }
}

impl PtrVal {
    pub fn null() -> PtrVal {
        PtrVal { obj: Obj::Null, offset: llong(0) }
    }
}

impl DataState {
    fn slot_at(&self, loc: Loc, var: VarId) -> Option<&Slot> {
        match loc {
            Loc::Global => self.globals.get(&var),
            Loc::Frame(k) => self.frames.get(k)?.locals.get(&var),
            Loc::Other(k) => self.others.get(k)?.locals.get(&var),
        }
    }

    fn slot_at_mut(&mut self, loc: Loc, var: VarId) -> Option<&mut Slot> {
        match loc {
            Loc::Global => Rc::make_mut(&mut self.globals).get_mut(&var),
            Loc::Frame(k) => self.frames_mut().get_mut(k)?.locals_mut().get_mut(&var),
            Loc::Other(k) => Rc::make_mut(&mut self.others).get_mut(k)?.locals_mut().get_mut(&var),
        }
    }

    /// The object of variable `var` as seen from the current frame.
    fn obj_of(&self, cfa: &Cfa, var: VarId) -> Result<Obj, EvalError> {
        match cfa.var(var).scope {
            VarScope::Global => Ok(Obj::Var { var, frame: None }),
            VarScope::Local(_) => match self.frames.last() {
                Some(f) => Ok(Obj::Var { var, frame: Some(f.id) }),
                None => Err(EvalError::Unsupported("address of a local outside a function".into())),
            },
        }
    }

    /// `None`: the object's frame has returned (dangling pointer).
    fn locate(&self, frame: Option<u64>) -> Option<Loc> {
        match frame {
            None => Some(Loc::Global),
            Some(id) => self
                .frames
                .iter()
                .position(|f| f.id == id)
                .map(Loc::Frame)
                .or_else(|| self.others.iter().position(|f| f.id == id).map(Loc::Other)),
        }
    }

    fn obj_name(&self, cfa: &Cfa, obj: &Obj) -> String {
        match obj {
            Obj::Var { var, .. } => format!("`{}`", cfa.var(*var).name),
            Obj::Heap(id) => match self.heap.get(id) {
                Some(b) => format!("the block from {} #{id}", b.function),
                None => format!("heap block #{id}"),
            },
            Obj::Func(f) => format!("function `{}`", cfa.function(*f).name),
            Obj::Null => "null".into(),
        }
    }

    /// Size in bytes of a data object (`None` for functions and null).
    fn obj_size(&self, cfa: &Cfa, obj: &Obj) -> Result<Option<u64>, EvalError> {
        Ok(match obj {
            Obj::Var { var, .. } => Some(var_size(cfa, *var).ok_or_else(|| {
                EvalError::Unsupported(format!("address of `{}` (its layout is not modelled)", cfa.var(*var).name))
            })?),
            Obj::Heap(id) => self.heap.get(id).map(|b| b.log.as_ref().map_or(b.cells.len() as u64, |l| l.len)),
            Obj::Func(_) | Obj::Null => None,
        })
    }

    /// The size of a data object as a `long long` value: symbolic for a block allocated with
    /// a size the path does not pin (decision 50), else the constant [`Self::obj_size`].
    fn obj_size_value(&self, cfa: &Cfa, obj: &Obj) -> Result<Value, EvalError> {
        if let Obj::Heap(id) = obj {
            if let Some(v) = self.heap.get(id).and_then(|b| b.size.clone()) {
                return Ok(v);
            }
        }
        Ok(llong(self.obj_size(cfa, obj)?.unwrap_or(0) as i128))
    }

    /// Whether `width` bytes at `p` lie inside a live data object, which may be written if
    /// `write` (ACSL's `\valid` and `\valid_read`): what [`Self::target`] checks before an
    /// access, as a truth value. A use the model does not judge (a stack block after its
    /// function returned) is not decided.
    pub fn valid(&self, cfa: &Cfa, p: &PtrVal, width: u64, write: bool) -> Result<Truth, EvalError> {
        if let Obj::Var { var, .. } = p.obj {
            if write && cfa.var(var).read_only {
                return Ok(Truth::Known(false));
            }
        }
        let mut conditions = Vec::new();
        self.target(cfa, p, width, &mut conditions)?;
        if let Some(c) = conditions.iter().find(|c| c.unmodelled) {
            return Err(EvalError::Unsupported(format!("whether the pointer is valid: {}", c.what)));
        }
        Ok(conditions.iter().fold(Truth::Known(true), |all, c| all.and(&c.holds)))
    }

    /// Checks that `width` bytes at `p` lie inside a live data object; returns where they are
    /// (`None` when the access is certainly undefined, recorded in `defined`).
    fn target(
        &self,
        cfa: &Cfa,
        p: &PtrVal,
        width: u64,
        defined: &mut Vec<Definedness>,
    ) -> Result<Option<Place>, EvalError> {
        let t = match &p.obj {
            Obj::Null => {
                defined.push(guard(ViolationKind::Deref, Truth::Known(false), "dereference of a null pointer".into()));
                return Ok(None);
            }
            Obj::Func(f) => {
                return Err(EvalError::Unsupported(format!(
                    "data access through a pointer to function `{}`",
                    cfa.function(*f).name
                )))
            }
            Obj::Heap(id) => match self.heap.get(id) {
                Some(b) if b.live => Place::Heap(*id),
                // A stack block (decision 110) dies with its frame; it is never freed. Using it
                // then is undefined, but gcc's sanitizers do not see it (the bytes stay
                // readable, ASan does not poison them), so whether it is the valid-deref
                // violation is not decided: a modelling gap (decision 111).
                Some(b) if b.frame.is_some() => {
                    defined.push(Definedness {
                        unmodelled: true,
                        holds: Truth::Known(false),
                        what: format!(
                            "use of {} after its function returned (undefined, but not detected by gcc's \
                             sanitizers)",
                            self.obj_name(cfa, &p.obj)
                        ),
                        kind: Some(ViolationKind::Deref),
                    });
                    return Ok(None);
                }
                _ => {
                    let what = format!("use of {} after it was freed", self.obj_name(cfa, &p.obj));
                    defined.push(guard(ViolationKind::Deref, Truth::Known(false), what));
                    return Ok(None);
                }
            },
            Obj::Var { var, frame } => match self.locate(*frame) {
                Some(loc) => Place::Var(*var, loc),
                // Issue 22: each thread numbers its frames in its own range (bits 40 and up); a
                // frame of another range that is gone belonged to a thread that has ended (its
                // frames are not kept): left unknown rather than judged.
                None if cfa.threads && frame.is_some_and(|f| f >> 40 != self.next_frame >> 40) => {
                    return Err(EvalError::Unsupported(format!(
                        "an access to `{}`, a local variable of a thread that has ended",
                        cfa.var(*var).name
                    )));
                }
                None => {
                    // A dangling pointer: an invalid dereference (decision 111).
                    let what = format!(
                        "dereference of a dangling pointer to `{}` (its function has returned)",
                        cfa.var(*var).name
                    );
                    defined.push(guard(ViolationKind::Deref, Truth::Known(false), what));
                    return Ok(None);
                }
            },
        };
        let size = self.obj_size_value(cfa, &p.obj)?;
        let holds = within_v(&p.offset, 0, &size, -(width as i128));
        let outside = matches!(holds, Truth::Known(false));
        let bytes = size.known().map_or("a symbolic number of".to_string(), |n| n.to_string());
        let what = format!("access of {width} bytes outside {} ({bytes} bytes)", self.obj_name(cfa, &p.obj));
        defined.push(guard(ViolationKind::Deref, holds, what));
        // Certainly outside: nothing to read or write (the path ends as undefined).
        Ok((!outside).then_some(t))
    }

    /// The stores of an [`Init::Bytes`] into the (zeroed) object of `var`, in order.
    pub(super) fn init_bytes(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        items: &[(u64, crate::cfa::Expr)],
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let obj = self.obj_of(cfa, var)?;
        for (off, rv) in items {
            let v = self.eval_any(cfa, rv, None, defined)?;
            self.store(cfa, &PtrVal { obj, offset: llong(*off as i128) }, &v, defined)?;
        }
        Ok(())
    }

    /// `v` stored in the first bytes of variable `var` (a union parameter, decision 137).
    pub(super) fn store_at_start(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        v: &AnyValue,
    ) -> Result<Vec<Definedness>, EvalError> {
        let mut defined = Vec::new();
        let at = PtrVal { obj: self.obj_of(cfa, var)?, offset: llong(0) };
        self.store(cfa, &at, v, &mut defined)?;
        Ok(defined)
    }

    /// `*p` read as a value of type `want`.
    pub fn load(
        &mut self,
        cfa: &Cfa,
        p: &PtrVal,
        want: ScalarTy,
        defined: &mut Vec<Definedness>,
    ) -> Result<AnyValue, EvalError> {
        let width = access_size(cfa, want)
            .ok_or_else(|| EvalError::Unsupported("access of a bit-field through a pointer".into()))?;
        let Some(t) = self.target(cfa, p, width, defined)? else { return Ok(dummy(want)) };
        let (offset, size) = (p.offset.clone(), self.obj_size(cfa, &p.obj)?.unwrap_or(0));
        match t {
            Place::Var(var, loc) if !matches!(self.slot_at(loc, var), Some(Slot::Bytes(_))) => {
                self.load_typed(cfa, var, loc, &offset, want, defined)
            }
            _ => {
                self.unspecified_read |= self.reads_unspecified(&p.obj, &offset, width);
                self.load_bytes(t, &offset, size, width, want, defined)
            }
        }
    }

    /// `*p = v` (`v` already has the type of the access).
    pub fn store(
        &mut self,
        cfa: &Cfa,
        p: &PtrVal,
        v: &AnyValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let width = access_size(cfa, v.ty())
            .ok_or_else(|| EvalError::Unsupported("access of a bit-field through a pointer".into()))?;
        if let Obj::Var { var, .. } = p.obj {
            if cfa.var(var).read_only {
                defined.push(ub("write into a string literal (C11 6.4.5p7)".into()));
                return Ok(());
            }
        }
        let Some(t) = self.target(cfa, p, width, defined)? else { return Ok(()) };
        let (offset, size) = (p.offset.clone(), self.obj_size(cfa, &p.obj)?.unwrap_or(0));
        match t {
            Place::Var(var, loc) if !matches!(self.slot_at(loc, var), Some(Slot::Bytes(_))) => {
                self.store_typed(cfa, var, loc, &offset, v, defined)
            }
            _ => {
                self.record_store(cfa, p.obj, &offset, width);
                self.store_bytes(cfa, t, &offset, size, v, defined)
            }
        }
    }

    // ------------------------------------------------------------------ typed slots

    fn load_typed(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        loc: Loc,
        offset: &Value,
        want: ScalarTy,
        defined: &mut Vec<Definedness>,
    ) -> Result<AnyValue, EvalError> {
        let (elem, n) = elements(&cfa.var(var).ty)
            .ok_or_else(|| EvalError::Unsupported(format!("access to `{}` through a pointer", cfa.var(var).name)))?;
        let es = access_size(cfa, elem).unwrap_or(1);
        if same_repr(elem, want) {
            if let Some(idx) = self.element_index(offset, es, defined) {
                let v = self.read_element(cfa, var, loc, &idx, n, defined)?;
                return Ok(match (v, want) {
                    (AnyValue::Int(v), ScalarTy::Int(t)) => AnyValue::Int(value::cast(&v, t)),
                    (v, _) => v,
                });
            }
        }
        let Some(o) = offset.known() else {
            return Err(EvalError::Unsupported(format!(
                "access to `{}` through a pointer of another type at a symbolic offset",
                cfa.var(var).name
            )));
        };
        let width = access_size(cfa, want).unwrap_or(1);
        let mut bytes = Vec::new();
        for b in o as u64..o as u64 + width {
            let v = self.element_bits(cfa, var, loc, b / es, n, defined)?;
            bytes.push(extract(&v, (b % es) as u32, 1));
        }
        from_bits(concat(&bytes), want)
    }

    fn store_typed(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        loc: Loc,
        offset: &Value,
        v: &AnyValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let (elem, n) = elements(&cfa.var(var).ty)
            .ok_or_else(|| EvalError::Unsupported(format!("access to `{}` through a pointer", cfa.var(var).name)))?;
        let es = access_size(cfa, elem).unwrap_or(1);
        if same_repr(elem, v.ty()) {
            if let Some(idx) = self.element_index(offset, es, defined) {
                let v = match (v, elem) {
                    (AnyValue::Int(x), ScalarTy::Int(t)) => AnyValue::Int(value::cast(x, t)),
                    (v, _) => v.clone(),
                };
                return self.write_element(cfa, (var, loc), &idx, &v, defined);
            }
        }
        let Some(o) = offset.known() else {
            return Err(EvalError::Unsupported(format!(
                "store into `{}` through a pointer of another type at a symbolic offset",
                cfa.var(var).name
            )));
        };
        let (bits, gap) = to_bits(v)?;
        if let Some(g) = gap {
            defined.push(g);
        }
        let width = access_size(cfa, v.ty()).unwrap_or(1);
        let (first, last) = (o as u64 / es, (o as u64 + width - 1) / es);
        for e in first..=last {
            let old = self.element_bits(cfa, var, loc, e, n, defined)?;
            let mut bytes: Vec<Value> = (0..es as u32).map(|j| extract(&old, j, 1)).collect();
            for (j, byte) in bytes.iter_mut().enumerate() {
                let b = e * es + j as u64;
                if b >= o as u64 && b < o as u64 + width {
                    *byte = extract(&bits, (b - o as u64) as u32, 1);
                }
            }
            let new = from_bits(concat(&bytes), elem)?;
            self.write_element(cfa, (var, loc), &llong(e as i128), &new, defined)?;
        }
        Ok(())
    }

    /// The element index of an aligned offset; `None` for a constant misaligned offset (an
    /// access across elements). A symbolic offset must be aligned (recorded in `defined`).
    fn element_index(&self, offset: &Value, es: u64, defined: &mut Vec<Definedness>) -> Option<Value> {
        match offset.known() {
            Some(o) => (o % es as i128 == 0).then(|| llong(o / es as i128)),
            None => {
                let mut d = Vec::new();
                let esv = llong(es as i128);
                let rem = value::binary(BinOp::Rem, offset, &esv, IntTy::LLONG, &mut d);
                defined.push(Definedness {
                    unmodelled: false,
                    holds: rem.equals(&llong(0)),
                    what: "misaligned access through a pointer".into(),
                    kind: None,
                });
                Some(value::binary(BinOp::Div, offset, &esv, IntTy::LLONG, &mut d))
            }
        }
    }

    fn read_element(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        loc: Loc,
        idx: &Value,
        n: u64,
        defined: &mut Vec<Definedness>,
    ) -> Result<AnyValue, EvalError> {
        match self.slot_at(loc, var).cloned() {
            Some(Slot::Scalar(v)) => Ok(AnyValue::Int(v)),
            Some(Slot::Float(v)) => Ok(AnyValue::Float(v)),
            Some(Slot::Ptr(v)) => Ok(AnyValue::Ptr(v)),
            Some(Slot::PtrUninit) => {
                defined.push(ub(format!("use of the uninitialised pointer `{}`", cfa.var(var).name)));
                Ok(AnyValue::Ptr(PtrVal::null()))
            }
            Some(Slot::Array { elem, .. } | Slot::SymArray { elem, .. }) => {
                Ok(AnyValue::Int(self.in_frame(loc, |st| st.read_elem(cfa, var, idx, n, elem, defined))?))
            }
            Some(Slot::FloatArray { .. }) => {
                Ok(AnyValue::Float(self.in_frame(loc, |st| st.read_felem(cfa, var, idx, n, defined))?))
            }
            Some(Slot::External) => Err(external(cfa, var)),
            _ => Err(EvalError::Unsupported(format!("access to `{}` through a pointer", cfa.var(var).name))),
        }
    }

    fn write_element(
        &mut self,
        cfa: &Cfa,
        (var, loc): (VarId, Loc),
        idx: &Value,
        v: &AnyValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let n = cfa.var(var).ty.element_count();
        let slot = self
            .slot_at_mut(loc, var)
            .ok_or_else(|| EvalError::Unsupported(format!("`{}` is not in memory here", cfa.var(var).name)))?;
        match (&*slot, v) {
            (Slot::Scalar(_), AnyValue::Int(x)) => *slot = Slot::Scalar(x.clone()),
            (Slot::Float(_), AnyValue::Float(x)) => *slot = Slot::Float(x.clone()),
            (Slot::Ptr(_) | Slot::PtrUninit, AnyValue::Ptr(x)) => *slot = Slot::Ptr(x.clone()),
            (Slot::Array { .. } | Slot::SymArray { .. }, AnyValue::Int(x)) => {
                let x = x.clone();
                self.in_frame(loc, |st| st.set_elem(cfa, var, idx, n, &x, defined))?
            }
            (Slot::FloatArray { .. }, AnyValue::Float(x)) => {
                let x = x.clone();
                self.in_frame(loc, |st| st.set_felem(cfa, var, idx, n, &x, defined))?
            }
            _ => return Err(EvalError::Unsupported(format!("store into `{}` of another type", cfa.var(var).name))),
        }
        Ok(())
    }

    /// The bits of element `e` (constant index) of a typed variable.
    fn element_bits(
        &mut self,
        cfa: &Cfa,
        var: VarId,
        loc: Loc,
        e: u64,
        n: u64,
        defined: &mut Vec<Definedness>,
    ) -> Result<Value, EvalError> {
        if e >= n {
            return Err(EvalError::Unsupported("access across the end of an object".into()));
        }
        let v = self.read_element(cfa, var, loc, &llong(e as i128), n, defined)?;
        let (bits, gap) = to_bits(&v)?;
        if let Some(g) = gap {
            defined.push(g);
        }
        Ok(bits)
    }

    /// Runs `f` with the array helpers (which work on the current frame) pointed at `loc`.
    fn in_frame<T>(&mut self, loc: Loc, f: impl FnOnce(&mut Self) -> Result<T, EvalError>) -> Result<T, EvalError> {
        match loc {
            Loc::Global => f(self),
            Loc::Frame(k) => {
                // Hide the frames above `k` while `f` runs; they are restored unchanged.
                let above = self.frames_mut().split_off(k + 1);
                let r = f(self);
                self.frames_mut().extend(above);
                r
            }
            Loc::Other(k) => {
                // Another thread's frame runs on top while `f` runs, then goes back.
                let Some(frame) = self.others.get(k).cloned() else {
                    return Err(EvalError::Unsupported("a frame of another thread that is gone".into()));
                };
                self.frames_mut().push(frame);
                let r = f(self);
                if let Some(frame) = self.frames_mut().pop() {
                    if let Some(slot) = Rc::make_mut(&mut self.others).get_mut(k) {
                        *slot = frame;
                    }
                }
                r
            }
        }
    }

    // ------------------------------------------------------------------ byte objects

    /// The block of `c` if its bytes are a [`ByteLog`] (decision 135).
    fn logged(&self, c: Place) -> Option<u32> {
        match c {
            Place::Heap(id) => self.heap.get(&id).filter(|b| b.log.is_some()).map(|_| id),
            Place::Var(..) => None,
        }
    }

    /// The byte at `offset` (`long long`) of a logged block (decision 135): the newest store to
    /// that offset, as an if-then-else over the stores whose offsets may equal it; where none
    /// must, the byte's initial value (0 for `calloc`, else a fresh nondeterministic byte, which
    /// joins the log so that the same byte reads the same later).
    fn logged_byte(&mut self, id: u32, offset: &Value) -> Value {
        let Some(log) = self.heap.get(&id).and_then(|b| b.log.clone()) else { return Value::conc(0, byte_ty()) };
        let byte = |v: &Val| Value { val: v.clone(), ty: byte_ty() };
        let (mut maybe, mut base) = (Vec::new(), None);
        for (o, v) in log.writes.iter().rev() {
            match if o == offset { Truth::Known(true) } else { offset.equals(o) } {
                Truth::Known(true) => {
                    base = Some(byte(v));
                    break;
                }
                Truth::Known(false) => {}
                c @ Truth::Sym(_) => maybe.push((c, v)),
            }
        }
        let initial = base.is_none();
        let mut acc = match base {
            Some(b) => b,
            None if log.zeroed => Value::conc(0, byte_ty()),
            None => self.nondet("byte", byte_ty()),
        };
        // `maybe` is newest first: the newest store is the outermost test.
        for (c, v) in maybe.into_iter().rev() {
            acc = Value::select(&c, &byte(v), &acc);
        }
        if initial && !log.zeroed {
            if let Some(l) = Rc::make_mut(&mut self.heap).get_mut(&id).and_then(|b| b.log.as_mut()) {
                Rc::make_mut(l).writes.push((offset.clone(), acc.val.clone()));
            }
        }
        acc
    }

    fn cells(&self, c: Place) -> Option<&Rc<Vec<Option<Cell>>>> {
        match c {
            Place::Heap(id) => self.heap.get(&id).map(|b| &b.cells),
            Place::Var(var, loc) => match self.slot_at(loc, var) {
                Some(Slot::Bytes(cells)) => Some(cells),
                _ => None,
            },
        }
    }

    fn cells_mut(&mut self, c: Place) -> Option<&mut Vec<Option<Cell>>> {
        match c {
            Place::Heap(id) => Rc::make_mut(&mut self.heap).get_mut(&id).map(|b| Rc::make_mut(&mut b.cells)),
            Place::Var(var, loc) => match self.slot_at_mut(loc, var) {
                Some(Slot::Bytes(cells)) => Some(Rc::make_mut(cells)),
                _ => None,
            },
        }
    }

    /// Whether a load of `width` bytes at `offset` reads bytes that C leaves unspecified
    /// (decision 37; a symbolic offset may read any of them).
    fn reads_unspecified(&self, obj: &Obj, offset: &Value, width: u64) -> bool {
        let Some(ranges) = self.unspecified.get(obj) else { return false };
        match offset.known() {
            // A negative offset is undefined behaviour, reported by the access itself.
            Some(o) => {
                u64::try_from(o).is_ok_and(|o| ranges.iter().any(|&(lo, hi)| lo < o.saturating_add(width) && o < hi))
            }
            None => !ranges.is_empty(),
        }
    }

    /// C11 6.2.6.1p7 for a store of `width` bytes at `offset` into a union object: the stored
    /// bytes are specified again, the bytes past the member stored through are unspecified.
    /// The member is the smallest that covers the store (more unspecified bytes, so fewer
    /// rejections); at a symbolic offset nothing becomes specified.
    fn record_store(&mut self, cfa: &Cfa, obj: Obj, offset: &Value, width: u64) {
        let Obj::Var { var, .. } = obj else { return };
        let CType::Bytes { size, members } = &cfa.var(var).ty else { return };
        let known = offset.known().map(|o| u64::try_from(o).unwrap_or(u64::MAX));
        let end = known.map_or(width, |o| o.saturating_add(width));
        let member = members.iter().copied().find(|&m| m >= end).unwrap_or(*size);
        let mut ranges = self.unspecified.get(&obj).cloned().unwrap_or_default();
        if let Some(o) = known {
            ranges = remove_range(&ranges, o, o.saturating_add(width));
        }
        if member < *size {
            ranges = remove_range(&ranges, member, *size);
            ranges.push((member, *size));
            ranges.sort_unstable();
        }
        let map = Rc::make_mut(&mut self.unspecified);
        if ranges.is_empty() {
            map.remove(&obj);
        } else {
            map.insert(obj, ranges);
        }
    }

    /// Byte `i` as an integer (a fresh nondeterministic byte if uninitialised).
    fn byte(&mut self, c: Place, i: u64) -> Result<Value, EvalError> {
        if let Some(id) = self.logged(c) {
            return Ok(self.logged_byte(id, &llong(i as i128)));
        }
        let cell = self.cells(c).and_then(|cs| cs.get(i as usize).cloned());
        match cell {
            Some(Some(Cell::Byte(v))) => Ok(Value { val: v, ty: byte_ty() }),
            Some(Some(Cell::Ptr { .. })) => {
                Err(EvalError::Unsupported("the bytes of a stored pointer read as data".into()))
            }
            Some(None) => {
                let v = self.nondet("byte", byte_ty());
                if let Some(cs) = self.cells_mut(c) {
                    cs[i as usize] = Some(Cell::Byte(v.val.clone()));
                }
                Ok(v)
            }
            None => Err(EvalError::Unsupported("byte outside its object".into())),
        }
    }

    fn load_bytes(
        &mut self,
        c: Place,
        offset: &Value,
        size: u64,
        width: u64,
        want: ScalarTy,
        defined: &mut Vec<Definedness>,
    ) -> Result<AnyValue, EvalError> {
        if let Some(id) = self.logged(c) {
            if want == ScalarTy::Ptr {
                return Err(EvalError::Unsupported(LOGGED_PTR.into()));
            }
            let bytes: Vec<Value> = (0..width).map(|k| self.logged_byte(id, &byte_offset(offset, k))).collect();
            return from_bits(concat(&bytes), want);
        }
        let Some(o) = offset.known() else {
            if want == ScalarTy::Ptr {
                return Err(EvalError::Unsupported("pointer load at a symbolic offset".into()));
            }
            if size > MAX_SYMBOLIC_BYTES || size < width {
                return Err(EvalError::Unsupported(format!("symbolic offset into an object of {size} bytes")));
            }
            let mut acc: Option<AnyValue> = None;
            for o in (0..=size - width).rev() {
                let v = self.load_bytes(c, &llong(o as i128), size, width, want, defined)?;
                acc = Some(match acc {
                    None => v,
                    Some(rest) => select_any(&offset.equals(&llong(o as i128)), &v, &rest)?,
                });
            }
            return acc.ok_or_else(|| EvalError::Unsupported("empty object".into()));
        };
        let o = o as u64;
        if want == ScalarTy::Ptr {
            let cs = self.cells(c).ok_or_else(|| EvalError::Unsupported("object not in memory".into()))?;
            let first = cs.get(o as usize).cloned().flatten();
            if let Some(Cell::Ptr { p, .. }) = &first {
                let whole = (0..width).all(|k| {
                    matches!(cs.get((o + k) as usize), Some(Some(Cell::Ptr { p: q, k: j })) if q == p && *j as u64 == k)
                });
                if whole {
                    return Ok(AnyValue::Ptr(p.clone()));
                }
            }
            if (0..width).all(|k| matches!(cs.get((o + k) as usize), Some(None))) {
                defined.push(ub("use of an uninitialised pointer".into()));
                return Ok(AnyValue::Ptr(PtrVal::null()));
            }
            // All-zero bits are the null pointer on the platforms of both data models (static
            // zero initialisation, `calloc`, `memset(p, 0, n)`).
            if (0..width).all(|k| matches!(cs.get((o + k) as usize), Some(Some(Cell::Byte(Val::Conc(0)))))) {
                return Ok(AnyValue::Ptr(PtrVal::null()));
            }
            return Err(EvalError::Unsupported("bytes read as a pointer (integer-to-pointer is not modelled)".into()));
        }
        let mut bytes = Vec::new();
        for k in 0..width {
            bytes.push(self.byte(c, o + k)?);
        }
        from_bits(concat(&bytes), want)
    }

    fn store_bytes(
        &mut self,
        cfa: &Cfa,
        c: Place,
        offset: &Value,
        size: u64,
        v: &AnyValue,
        defined: &mut Vec<Definedness>,
    ) -> Result<(), EvalError> {
        let width = access_size(cfa, v.ty()).unwrap_or(1);
        let new: Vec<Cell> = match v {
            AnyValue::Ptr(p) => (0..width).map(|k| Cell::Ptr { p: p.clone(), k: k as u8 }).collect(),
            _ => {
                let (bits, gap) = to_bits(v)?;
                if let Some(g) = gap {
                    defined.push(g);
                }
                (0..width as u32).map(|k| Cell::Byte(extract(&bits, k, 1).val)).collect()
            }
        };
        if let Some(id) = self.logged(c) {
            if let Some(log) = Rc::make_mut(&mut self.heap).get_mut(&id).and_then(|b| b.log.as_mut()) {
                let log = Rc::make_mut(log);
                for (k, cell) in new.into_iter().enumerate() {
                    let Cell::Byte(b) = cell else { return Err(EvalError::Unsupported(LOGGED_PTR.into())) };
                    log.writes.push((byte_offset(offset, k as u64), b));
                }
            }
            return Ok(());
        }
        let Some(o) = offset.known() else {
            if matches!(v, AnyValue::Ptr(_)) {
                return Err(EvalError::Unsupported("pointer store at a symbolic offset".into()));
            }
            if size > MAX_SYMBOLIC_BYTES || size < width {
                return Err(EvalError::Unsupported(format!("symbolic offset into an object of {size} bytes")));
            }
            // Byte b becomes new[b - offset] where offset <= b < offset + width.
            for b in 0..size {
                let old = self.byte(c, b)?;
                let mut acc = old;
                for (k, cell) in new.iter().enumerate() {
                    if (k as u64) > b {
                        break;
                    }
                    let Cell::Byte(nb) = cell else { continue };
                    let here = offset.equals(&llong(b as i128 - k as i128));
                    acc = Value::select(&here, &Value { val: nb.clone(), ty: byte_ty() }, &acc);
                }
                if let Some(cs) = self.cells_mut(c) {
                    cs[b as usize] = Some(Cell::Byte(acc.val));
                }
            }
            return Ok(());
        };
        let cs = self.cells_mut(c).ok_or_else(|| EvalError::Unsupported("object not in memory".into()))?;
        for (k, cell) in new.into_iter().enumerate() {
            if let Some(slot) = cs.get_mut(o as usize + k) {
                *slot = Some(cell);
            }
        }
        Ok(())
    }

    /// `lhs = v` for a pointer place.
    pub fn assign_ptr(
        &mut self,
        cfa: &Cfa,
        lhs: &crate::cfa::Place,
        v: &PtrVal,
    ) -> Result<Vec<Definedness>, EvalError> {
        if lhs.ty() != ScalarTy::Ptr {
            return Err(super::store::not_of_type("pointer"));
        }
        match lhs {
            crate::cfa::Place::Var { var, .. } => {
                let local = matches!(cfa.var(*var).scope, VarScope::Local(_));
                match self.slot_mut(cfa, *var) {
                    Some(slot @ (Slot::Ptr(_) | Slot::PtrUninit)) => *slot = Slot::Ptr(v.clone()),
                    // `T *p = f();` is one edge that declares and assigns a local.
                    None if local && cfa.var(*var).ty == CType::Ptr => match self.frames_mut().last_mut() {
                        Some(f) => {
                            f.locals_mut().insert(*var, Slot::Ptr(v.clone()));
                        }
                        None => return Err(EvalError::Unsupported("assignment outside a function".into())),
                    },
                    Some(Slot::External) => return Err(external(cfa, *var)),
                    _ => return Err(EvalError::Unsupported(format!("pointer assignment to `{}`", cfa.var(*var).name))),
                }
                Ok(Vec::new())
            }
            crate::cfa::Place::Deref { ptr, .. } => {
                let mut defined = Vec::new();
                let at = self.eval_ptr(cfa, ptr, None, &mut defined)?;
                self.store(cfa, &at, &AnyValue::Ptr(v.clone()), &mut defined)?;
                Ok(defined)
            }
            crate::cfa::Place::Elem { .. } => {
                Err(EvalError::Unsupported("malformed assignment: a pointer array element".into()))
            }
        }
    }

    // ------------------------------------------------------------------ heap
}

/// The pointer `i` bytes past `p`.
fn byte_at(cfa: &Cfa, p: &PtrVal, i: u64) -> PtrVal {
    PtrVal { obj: p.obj, offset: offset_add(cfa, &p.offset, &llong(i as i128)) }
}

/// Where a load or store lands: a variable's slot (typed, or bytes for a union) or a heap block.
#[derive(Clone, Copy)]
enum Place {
    Var(VarId, Loc),
    Heap(u32),
}

/// The bits of a value (unsigned, of its width) and, for a float, the condition under which
/// they are exact (see [`float::to_bits`]).
fn to_bits(v: &AnyValue) -> Result<(Value, Option<Definedness>), EvalError> {
    match v {
        AnyValue::Int(x) => {
            let bits = if x.ty.is_bool { 8 } else { x.ty.bits };
            let t = IntTy::new(bits, false);
            Ok((Value { val: value::cast(x, IntTy::new(bits, x.ty.signed)).val, ty: t }, None))
        }
        AnyValue::Float(f) => {
            let (bits, exact) = float::to_bits(f);
            Ok((
                bits,
                exact.map(|c| Definedness {
                    unmodelled: true,
                    holds: Truth::Sym(c),
                    what: "the bit pattern of a NaN computed by the program (NaN payloads are not modelled)".into(),
                    kind: None,
                }),
            ))
        }
        AnyValue::Ptr(_) => Err(EvalError::Unsupported("the bytes of a pointer (pointer-to-integer)".into())),
    }
}

/// The value of type `want` whose representation is `bits`.
fn from_bits(bits: Value, want: ScalarTy) -> Result<AnyValue, EvalError> {
    Ok(match want {
        ScalarTy::Int(t) if t.is_bool => {
            // A `_Bool` object holding anything but 0 or 1 is a trap representation.
            return Err(EvalError::Unsupported("a `_Bool` read from raw bytes".into()));
        }
        ScalarTy::Int(t) => AnyValue::Int(Value { val: bits.val, ty: t }),
        ScalarTy::Float(f) => AnyValue::Float(FValue::from_bits(&bits, f)),
        ScalarTy::Ptr => return Err(EvalError::Unsupported("bytes read as a pointer".into())),
    })
}

fn select_any(c: &Truth, a: &AnyValue, b: &AnyValue) -> Result<AnyValue, EvalError> {
    Ok(match (a, b) {
        (AnyValue::Int(x), AnyValue::Int(y)) => AnyValue::Int(Value::select(c, x, y)),
        (AnyValue::Float(x), AnyValue::Float(y)) => AnyValue::Float(float::select(c, x, y)),
        _ => return Err(EvalError::Unsupported("pointer load at a symbolic offset".into())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::DataModel;
    use z3::ast::{Ast, BV};

    fn heap_state() -> (Cfa, DataState, PtrVal) {
        let cfa =
            crate::cfront::build_program(std::path::Path::new("t.c"), "int main() { return 0; }", DataModel::Ilp32)
                .map(|p| p.cfa)
                .unwrap_or_else(|e| panic!("{e}"));
        let mut st = DataState::initial(&cfa).unwrap_or_else(|e| panic!("{e:?}"));
        let p =
            st.allocate("malloc", &Value::conc(8, IntTy::UINT), None, false, false).unwrap_or_else(|e| panic!("{e:?}"));
        (cfa, st, p)
    }

    fn at(p: &PtrVal, k: i128) -> PtrVal {
        PtrVal { obj: p.obj, offset: llong(k) }
    }

    /// Decision 110: a stack block dies with its frame, is never a leak, is a root while its
    /// frame runs, and cannot be freed; using it after the return is a modelling gap.
    #[test]
    fn a_stack_block_dies_with_its_frame_and_is_never_a_leak() {
        let (cfa, mut st, heap) = heap_state();
        st.push_frame(&cfa, cfa.main, &[]).unwrap_or_else(|e| panic!("{e:?}"));
        let four = Value::conc(4, IntTy::UINT);
        let stack = st.allocate("alloca", &four, None, false, true).unwrap_or_else(|e| panic!("{e:?}"));
        let mut d = Vec::new();
        // The heap block's only pointer is stored in the stack block: reachable while it lives.
        st.store(&cfa, &stack, &AnyValue::Ptr(heap.clone()), &mut d).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(d.iter().all(|d| matches!(d.holds, Truth::Known(true))), "{d:?}");
        assert_eq!(st.lost_blocks(None).map(|b| b.into_iter().collect::<Vec<_>>()), Some(vec![]));
        assert_eq!(st.leaked_blocks(false), Some(vec![0]), "memcleanup counts the heap block only");
        let mut d = Vec::new();
        st.free(&cfa, &stack, &mut d);
        assert_eq!(d.iter().map(|d| d.violation_kind()).collect::<Vec<_>>(), vec![Some(ViolationKind::Free)]);
        st.pop_frame();
        assert_eq!(st.lost_blocks(None).map(|b| b.into_iter().collect::<Vec<_>>()), Some(vec![0]));
        let mut d = Vec::new();
        st.load(&cfa, &stack, ScalarTy::Ptr, &mut d).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(d.len() == 1 && d[0].unmodelled && d[0].violation_kind().is_none(), "{d:?}");
    }

    /// A state with the global `union u { int i[2]; double d; char c; } g;` and a pointer to it.
    fn union_state() -> (Cfa, DataState, PtrVal) {
        let src = "union u { int i[2]; double d; char c; } g; int main() { return 0; }";
        let cfa = crate::cfront::build_program(std::path::Path::new("t.c"), src, DataModel::Ilp32)
            .map(|p| p.cfa)
            .unwrap_or_else(|e| panic!("{e}"));
        let st = DataState::initial(&cfa).unwrap_or_else(|e| panic!("{e:?}"));
        let var = VarId(cfa.vars.iter().position(|v| v.name == "g").expect("g") as u32);
        (cfa, st, PtrVal { obj: Obj::Var { var, frame: None }, offset: llong(0) })
    }

    fn int(v: u64) -> AnyValue {
        AnyValue::Int(Value::conc(v, IntTy::INT))
    }

    #[test]
    fn offsets_wrap_at_the_pointer_width_without_undefined_behaviour() {
        let (cfa, st, p) = heap_state(); // ILP32
        let mut d = Vec::new();
        let far = PtrVal { obj: p.obj, offset: offset_add(&cfa, &llong(i32::MAX as i128), &llong(1)) };
        assert_eq!(far.offset.known(), Some(i32::MIN as i128));
        let back = PtrVal { obj: p.obj, offset: offset_add(&cfa, &far.offset, &llong(-(i32::MIN as i128))) };
        assert_eq!(back.offset.known(), Some(0));
        let huge = offset_add(&cfa, &llong(i64::MAX as i128), &llong(i64::MAX as i128));
        assert_eq!(huge.known(), Some(-2));
        // Within one object, 4096 bytes past the end still orders by offset; further is a gap.
        let near = at(&p, 8 + 4096);
        assert!(matches!(st.compare_ptr(&cfa, BinOp::Lt, &p, &near, &mut d).unwrap(), Truth::Known(true)));
        assert!(d.iter().all(|c| matches!(c.holds, Truth::Known(true))));
        st.compare_ptr(&cfa, BinOp::Lt, &p, &at(&p, 8 + 4097), &mut d).unwrap();
        assert!(d.iter().any(|c| c.unmodelled && matches!(c.holds, Truth::Known(false))));
    }

    #[test]
    fn pointers_into_different_objects_compare_only_where_the_layout_does_not_matter() {
        let (cfa, mut st, p) = heap_state();
        let q = st.allocate("malloc", &Value::conc(4, IntTy::UINT), None, false, false).unwrap();
        let decided = |st: &DataState, op, a: &PtrVal, b: &PtrVal| {
            let mut d = Vec::new();
            let t = st.compare_ptr(&cfa, op, a, b, &mut d).unwrap();
            let ok = d.iter().all(|c| matches!(c.holds, Truth::Known(true)));
            (ok, matches!(t, Truth::Known(true)))
        };
        assert_eq!(decided(&st, BinOp::Eq, &p, &q), (true, false));
        // One past the end of one block may be the start of the other.
        assert!(!decided(&st, BinOp::Eq, &at(&p, 8), &q).0);
        assert!(!decided(&st, BinOp::Lt, &p, &q).0);
        // Null is below every pointer in [0, size], also one past the end.
        assert_eq!(decided(&st, BinOp::Lt, &PtrVal::null(), &at(&p, 8)), (true, true));
        assert_eq!(decided(&st, BinOp::Ne, &at(&p, 8), &PtrVal::null()), (true, true));
        assert!(!decided(&st, BinOp::Ne, &at(&p, 9), &PtrVal::null()).0);
    }

    #[test]
    fn a_block_of_symbolic_size_checks_accesses_against_that_size() {
        let (cfa, mut st, _) = heap_state();
        let n = Value::fresh("n", IntTy::UINT);
        let p = st.allocate("malloc", &n, Some(8), false, false).unwrap();
        let mut d = Vec::new();
        st.store(&cfa, &at(&p, 4), &int(7), &mut d).unwrap();
        let Some(Truth::Sym(c)) = d.last().map(|x| x.holds.clone()) else { panic!("{d:?}") };
        let with = |k: u64| {
            let s = [(&n.term(), &BV::from_u64(k, 32))];
            c.substitute(&s).simplify().as_bool()
        };
        // 4 bytes at offset 4 fit a block of 8 bytes, not one of 7.
        assert_eq!((with(8), with(7)), (Some(true), Some(false)));
        assert!(st.allocate("malloc", &n, Some(MAX_BLOCK + 1), false, false).is_err());
        assert!(st.allocate("malloc", &n, None, false, false).is_err());
    }

    /// Decision 135: a block of a symbolic size over 4096 bytes keeps the log of its stores;
    /// loads at symbolic offsets see the newest store that may alias, and an unstored byte
    /// reads the same twice.
    #[test]
    fn a_large_block_of_symbolic_size_logs_its_stores() {
        let (cfa, mut st, _) = heap_state();
        let n = Value::fresh("n", IntTy::UINT);
        let p = st.allocate("malloc", &n, Some(100_000), false, false).unwrap();
        let Obj::Heap(id) = p.obj else { panic!("{p:?}") };
        assert!(st.heap[&id].cells.is_empty() && st.heap[&id].log.is_some());
        let k = Value::fresh("k", IntTy::UINT);
        let last = PtrVal { obj: p.obj, offset: value::cast(&k, IntTy::LLONG) };
        let byte = |v: u64| AnyValue::Int(Value::conc(v, IntTy::UCHAR));
        let mut d = Vec::new();
        st.store(&cfa, &last, &byte(7), &mut d).unwrap();
        st.store(&cfa, &at(&p, 0), &byte(3), &mut d).unwrap();
        let AnyValue::Int(v) = st.load(&cfa, &last, ScalarTy::Int(IntTy::UCHAR), &mut d).unwrap() else { panic!() };
        let with = |x: u64| {
            let s = [(&k.term(), &BV::from_u64(x, 32))];
            v.term().substitute(&s).simplify().as_u64()
        };
        // The store at 0 hides the one at k exactly when k == 0.
        assert_eq!((with(0), with(5)), (Some(3), Some(7)));
        // An unstored byte reads the same value twice.
        let a = st.load(&cfa, &at(&p, 9), ScalarTy::Int(IntTy::UCHAR), &mut d).unwrap();
        let b = st.load(&cfa, &at(&p, 9), ScalarTy::Int(IntTy::UCHAR), &mut d).unwrap();
        assert_eq!(a, b);
        // A pointer cannot be stored in it.
        assert!(st.store(&cfa, &at(&p, 0), &AnyValue::Ptr(p.clone()), &mut d).is_err());
    }

    #[test]
    fn heap_bytes_read_as_another_type_are_exact() {
        let (cfa, mut st, p) = heap_state();
        let mut d = Vec::new();
        // 2.5 as a double is 0x4004000000000000 (little endian: the high word at offset 4).
        st.store(&cfa, &p, &AnyValue::Float(FValue::conc(2.5f64.to_bits(), FloatTy::F64)), &mut d).unwrap();
        let hi = st.load(&cfa, &at(&p, 4), ScalarTy::Int(IntTy::UINT), &mut d).unwrap();
        assert_eq!(hi, AnyValue::Int(Value::conc(0x4004_0000, IntTy::UINT)));
        assert!(!st.unspecified_read);
    }

    #[test]
    fn union_member_covering_the_union_leaves_nothing_unspecified() {
        let (cfa, mut st, p) = union_state();
        let mut d = Vec::new();
        // `g.i[0] = 0; g.i[1] = 0x40040000;` then `g.d`: the int array covers the double.
        st.store(&cfa, &p, &int(0), &mut d).unwrap();
        st.store(&cfa, &at(&p, 4), &int(0x4004_0000), &mut d).unwrap();
        let v = st.load(&cfa, &p, ScalarTy::Float(FloatTy::F64), &mut d).unwrap();
        assert_eq!(v, AnyValue::Float(FValue::conc(2.5f64.to_bits(), FloatTy::F64)));
        assert!(!st.unspecified_read);
    }

    #[test]
    fn union_store_through_a_smaller_member_leaves_the_rest_unspecified() {
        let (cfa, mut st, p) = union_state();
        let mut d = Vec::new();
        st.store(&cfa, &p, &AnyValue::Float(FValue::conc(2.5f64.to_bits(), FloatTy::F64)), &mut d).unwrap();
        // `g.c = 1` stores through the 1-byte member: bytes 1..8 become unspecified (C11
        // 6.2.6.1p7); reading the char back is fine, reading the double is not.
        st.store(&cfa, &p, &AnyValue::Int(Value::conc(1, IntTy::CHAR)), &mut d).unwrap();
        st.load(&cfa, &p, ScalarTy::Int(IntTy::CHAR), &mut d).unwrap();
        assert!(!st.unspecified_read);
        // The machine keeps the old bytes: 2.5's bits with the low byte 1.
        let v = st.load(&cfa, &p, ScalarTy::Float(FloatTy::F64), &mut d).unwrap();
        assert_eq!(v, AnyValue::Float(FValue::conc(2.5f64.to_bits() | 1, FloatTy::F64)));
        assert!(st.unspecified_read);
        // Storing the whole double again makes every byte specified.
        let mut st2 = st.clone();
        st2.unspecified_read = false;
        st2.store(&cfa, &p, &AnyValue::Float(FValue::conc(1.0f64.to_bits(), FloatTy::F64)), &mut d).unwrap();
        st2.load(&cfa, &at(&p, 4), ScalarTy::Int(IntTy::INT), &mut d).unwrap();
        assert!(!st2.unspecified_read);
    }
}

/// Property tests: loads and stores through memory agree with the little-endian bytes of the
/// machine (x86, as gcc lays them out), for concrete and symbolic values and offsets.
#[cfg(test)]
mod byte_tests {
    use proptest::prelude::*;
    use z3::ast::{Ast, BV};

    use super::*;
    use crate::cfa::DataModel;

    /// An 8-byte heap block.
    fn block() -> (Cfa, DataState, PtrVal) {
        let cfa =
            crate::cfront::build_program(std::path::Path::new("t.c"), "int main() { return 0; }", DataModel::Ilp32)
                .map(|p| p.cfa)
                .unwrap_or_else(|e| panic!("{e}"));
        let mut st = DataState::initial(&cfa).unwrap_or_else(|e| panic!("{e:?}"));
        let p =
            st.allocate("malloc", &Value::conc(8, IntTy::UINT), None, false, false).unwrap_or_else(|e| panic!("{e:?}"));
        (cfa, st, p)
    }

    const WIDTHS: [IntTy; 4] = [IntTy::UCHAR, IntTy::USHORT, IntTy::UINT, IntTy::ULLONG];

    /// `v` with its symbols replaced, as a number.
    fn ground(v: &AnyValue, subs: &[(&BV, &BV)]) -> u64 {
        let AnyValue::Int(v) = v else { panic!("not an integer: {v:?}") };
        match &v.val {
            Val::Conc(c) => *c,
            Val::Sym(t) => t.substitute(subs).simplify().as_u64().expect("ground term is a numeral"),
        }
    }

    fn mask(bytes: u64) -> u64 {
        if bytes >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * bytes)) - 1
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Store 8 bytes, load `w` bytes at `o`: the little-endian slice, whether the stored
        /// value and the offset are concrete or symbolic.
        #[test]
        fn wide_store_narrow_load(x in any::<u64>(), o in 0u64..8, w in 0usize..4, sym_x in any::<bool>(), sym_o in any::<bool>()) {
            let ty = WIDTHS[w];
            let bytes = (ty.bits / 8) as u64;
            prop_assume!(o + bytes <= 8);
            let (cfa, mut st, p) = block();
            let xs = BV::fresh_const("x", 64);
            let os = BV::fresh_const("o", 64);
            let stored = if sym_x { Value { val: Val::Sym(xs.clone()), ty: IntTy::ULLONG } } else { Value::conc(x, IntTy::ULLONG) };
            let offset = if sym_o { Value { val: Val::Sym(os.clone()), ty: IntTy::LLONG } } else { llong(o as i128) };
            let mut d = Vec::new();
            st.store(&cfa, &p, &AnyValue::Int(stored), &mut d).unwrap();
            let v = st.load(&cfa, &PtrVal { obj: p.obj, offset }, ScalarTy::Int(ty), &mut d).unwrap();
            let subs = [(&xs, &BV::from_u64(x, 64)), (&os, &BV::from_u64(o, 64))];
            prop_assert_eq!(ground(&v, &subs), (x >> (8 * o)) & mask(bytes));
        }

        /// Store `w` bytes at `o` over 8 known bytes, load all 8: the bytes replaced in place.
        #[test]
        fn narrow_store_wide_load(x in any::<u64>(), y in any::<u64>(), o in 0u64..8, w in 0usize..3, sym_y in any::<bool>()) {
            let ty = WIDTHS[w];
            let bytes = (ty.bits / 8) as u64;
            prop_assume!(o + bytes <= 8);
            let (cfa, mut st, p) = block();
            let ys = BV::fresh_const("y", ty.bits);
            let y = y & mask(bytes);
            let narrow = if sym_y { Value { val: Val::Sym(ys.clone()), ty } } else { Value::conc(y, ty) };
            let mut d = Vec::new();
            st.store(&cfa, &p, &AnyValue::Int(Value::conc(x, IntTy::ULLONG)), &mut d).unwrap();
            st.store(&cfa, &PtrVal { obj: p.obj, offset: llong(o as i128) }, &AnyValue::Int(narrow), &mut d).unwrap();
            let v = st.load(&cfa, &p, ScalarTy::Int(IntTy::ULLONG), &mut d).unwrap();
            let subs = [(&ys, &BV::from_u64(y, ty.bits))];
            let m = mask(bytes) << (8 * o);
            prop_assert_eq!(ground(&v, &subs), (x & !m) | (y << (8 * o)));
            prop_assert!(d.iter().all(|c| matches!(c.holds, Truth::Known(true))));
        }

        /// `a - b` within one object: the byte distance in elements of `size` bytes, defined
        /// only for a whole number of elements; symbolic offsets agree with concrete ones.
        #[test]
        fn pointer_difference(x in 0i128..=64, y in 0i128..=64, size in prop_oneof![Just(1u64), Just(4), Just(8), Just(12)], sym in any::<bool>()) {
            let (_, st, p) = block();
            let xs = BV::fresh_const("x", 64);
            let off = |v: i128, s: &BV| if sym { Value { val: Val::Sym(s.clone()), ty: IntTy::LLONG } } else { llong(v) };
            let a = PtrVal { obj: p.obj, offset: off(x, &xs) };
            let b = PtrVal { obj: p.obj, offset: llong(y) };
            let mut d = Vec::new();
            let v = st.ptr_diff(&a, &b, size, IntTy::INT, &mut d);
            let subs = [(&xs, &BV::from_u64(x as u64, 64))];
            let holds = d.iter().all(|c| match &c.holds {
                Truth::Known(t) => *t,
                Truth::Sym(t) => t.substitute(&subs).simplify().as_bool().expect("ground"),
            });
            prop_assert_eq!(holds, (x - y) % size as i128 == 0);
            if holds {
                prop_assert_eq!(ground(&AnyValue::Int(v), &subs) as u32 as i32 as i128, (x - y) / size as i128);
            }
        }

        /// A double's bits read back as two words are its little-endian halves (the punning of
        /// `union { double d; unsigned u[2]; }` and of `((unsigned *)&d)[i]`).
        #[test]
        fn double_bits_as_words(bits in any::<u64>()) {
            let (cfa, mut st, p) = block();
            let mut d = Vec::new();
            st.store(&cfa, &p, &AnyValue::Float(FValue::conc(bits, FloatTy::F64)), &mut d).unwrap();
            let lo = st.load(&cfa, &p, ScalarTy::Int(IntTy::UINT), &mut d).unwrap();
            let hi = st.load(&cfa, &PtrVal { obj: p.obj, offset: llong(4) }, ScalarTy::Int(IntTy::UINT), &mut d).unwrap();
            prop_assert_eq!(ground(&lo, &[]), bits & 0xffff_ffff);
            prop_assert_eq!(ground(&hi, &[]), bits >> 32);
        }
    }
}
