//! Bit-precise semantics of the CFA's IR: the data state (globals and a stack of frames),
//! expression evaluation (concrete where values are known, Z3 bit-vectors where not), and the
//! solver that decides path feasibility.
//!
//! Semantics never reads files and never knows witness formats: the product hands it an
//! [`Expr`] and a [`DataState`]. Undefined behaviour is never guessed: evaluation returns the
//! conditions under which the expression is defined, and the caller decides (a path that may
//! hit UB ends in unknown).

pub mod bounds;
pub mod csd;
pub mod float;
pub mod memory;
pub mod solver;
pub mod value;

use std::collections::BTreeMap;
use std::rc::Rc;

use z3::ast::{Ast, Bool, BV};

use crate::cfa::{BinOp, CType, Cfa, Expr, FloatTy, FuncId, Init, IntTy, Libm, Place, ScalarTy, VarId, VarScope};
pub use float::{FVal, FValue};
pub use solver::{Feasibility, Smt};
pub use value::{Definedness, Truth, Val, Value, ViolationKind};

mod eval;
mod store;

/// Contents of one variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Slot {
    Scalar(Value),
    /// A floating-point scalar.
    Float(FValue),
    /// Array elements, flattened; `None` = not yet read or written (nondeterministic).
    Array {
        elem: IntTy,
        cells: Rc<Vec<Option<Val>>>,
    },
    /// An integer array whose contents are one SMT array term (index: 64-bit, element: the
    /// element's bits): the general state of a proof or a recurrence check (decision 204), where
    /// enumerating cells would cost memory in proportion to the array's size. Reads are
    /// `select`, writes `store`; a copy of the whole array is unsupported.
    SymArray {
        elem: IntTy,
        arr: z3::ast::Array,
    },
    /// Floating-point array elements, flattened; `None` = never read or written.
    FloatArray {
        elem: FloatTy,
        cells: Rc<Vec<Option<FVal>>>,
    },
    /// A pointer variable's value.
    Ptr(PtrVal),
    /// A pointer variable never assigned (its use is undefined behaviour).
    PtrUninit,
    /// An object stored as bytes (a union): `None` = uninitialised (nondeterministic).
    Bytes(Rc<Vec<Option<Cell>>>),
    /// A variable of a type without semantics: any access is unsupported.
    Opaque,
    /// A global declared `extern` and defined outside the program: its value is not known
    /// (neither zero nor "any value"), so any access is unsupported.
    External,
}

/// Variables of one activation of a function.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    /// Shared between the states of a path until one of them writes (copy on write): the
    /// product's visited set keeps every state's frames, so a copy per state would dominate
    /// its memory.
    pub locals: Rc<BTreeMap<VarId, Slot>>,
    /// Unique (per path) identity of this activation: pointers to its locals name it, so a
    /// pointer into a frame that has returned is recognised as dangling.
    pub id: u64,
    /// The function this is an activation of.
    pub func: FuncId,
    /// The locals at the function's entry (its formals' values then), kept when a
    /// postcondition of a correctness witness reads them (decision 231): a formal in `ensures`
    /// means its value at entry. `None` otherwise. Part of the state's identity.
    pub entry: Option<Rc<BTreeMap<VarId, Slot>>>,
}

/// The conjuncts of a path condition: a persistent list, newest first, whose tail every state
/// of the path shares (adding a conjunct to a shared vector copied it: quadratic memory on long
/// paths, most of the product's memory on a witness that never advances).
#[derive(Clone, Default)]
pub struct PathCond(Option<Rc<PathNode>>);

struct PathNode {
    conjunct: Bool,
    /// Number of conjuncts up to and including this one.
    len: usize,
    parent: Option<Rc<PathNode>>,
}

impl Drop for PathNode {
    // Iterative: the default recursive drop of a long list would overflow the stack.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(node) = next {
            match Rc::try_unwrap(node) {
                Ok(mut n) => next = n.parent.take(),
                Err(_) => break,
            }
        }
    }
}

impl PathCond {
    pub fn push(&mut self, conjunct: Bool) {
        let parent = self.0.take();
        let len = parent.as_ref().map_or(0, |p| p.len) + 1;
        self.0 = Some(Rc::new(PathNode { conjunct, len, parent }));
    }
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |n| n.len)
    }
    /// Newest first.
    pub fn iter(&self) -> impl Iterator<Item = &Bool> {
        let mut cur = self.0.as_deref();
        std::iter::from_fn(move || {
            let n = cur?;
            cur = n.parent.as_deref();
            Some(&n.conjunct)
        })
    }
    /// The conjuncts, oldest first (for the solver).
    pub fn conjuncts(&self) -> Vec<Bool> {
        let mut v: Vec<Bool> = self.iter().cloned().collect();
        v.reverse();
        v
    }
}

impl PartialEq for PathCond {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => true,
            _ => self.len() == other.len() && self.iter().eq(other.iter()),
        }
    }
}
impl Eq for PathCond {}

impl std::hash::Hash for PathCond {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for c in self.iter() {
            c.hash(state);
        }
    }
}

impl std::fmt::Debug for PathCond {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.conjuncts().iter()).finish()
    }
}

impl Frame {
    /// The locals for writing (copied first if another state shares them).
    pub fn locals_mut(&mut self) -> &mut BTreeMap<VarId, Slot> {
        Rc::make_mut(&mut self.locals)
    }
}

impl DataState {
    /// Decision 231: keeps the innermost frame's locals as they are now (at its function's
    /// entry: its formals) for a postcondition to read, unless they are kept already.
    pub fn keep_entry(&mut self) {
        if let Some(f) = self.frames.last().filter(|f| f.entry.is_none()) {
            let kept = f.locals.clone();
            if let Some(f) = self.frames_mut().last_mut() {
                f.entry = Some(kept);
            }
        }
    }

    /// Decision 231: this state as a postcondition reads it: the innermost frame's locals are
    /// those kept at its entry (every formal at its value then; a local declared in the body is
    /// not in scope), everything else as it is now. `None` when nothing was kept.
    pub fn at_entry_formals(&self) -> Option<DataState> {
        let kept = self.frames.last()?.entry.clone()?;
        let mut view = self.clone();
        if let Some(f) = view.frames_mut().last_mut() {
            f.locals = kept;
        }
        Some(view)
    }
}

/// What a pointer points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Obj {
    /// A global (`frame: None`) or a local of the activation with [`Frame::id`] `frame`.
    Var {
        var: VarId,
        frame: Option<u64>,
    },
    /// A heap block (key of [`DataState::heap`]).
    Heap(u32),
    /// A function (its address).
    Func(FuncId),
    Null,
}

/// A pointer value: an object and a byte offset (`long long`, may be symbolic).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PtrVal {
    pub obj: Obj,
    pub offset: Value,
}

/// Half-open byte ranges `[lo, hi)` of an object, disjoint and ascending.
pub type ByteRanges = Vec<(u64, u64)>;

/// One byte of a byte object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cell {
    /// An 8-bit value.
    Byte(Val),
    /// Byte `k` of a stored pointer (pointers have no integer representation here).
    Ptr { p: PtrVal, k: u8 },
}

/// The bytes of a block too large to keep cell by cell: one of a symbolic size the path bounds
/// above 4096 bytes (decision 135). Its [`HeapBlock::cells`] are empty.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ByteLog {
    /// The block's extent: the largest size the path allowed when it was made.
    pub len: u64,
    /// The bytes stored, oldest first: offset (`long long`) and 8-bit value. A read of a byte that
    /// may never have been stored appends the value it read, so that reading it again agrees.
    pub writes: Vec<(Value, Val)>,
    /// Bytes never stored are 0 (`calloc`), else nondeterministic.
    pub zeroed: bool,
}

/// A block from `malloc` and friends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HeapBlock {
    pub cells: Rc<Vec<Option<Cell>>>,
    /// The bytes of a large block of a symbolic size (decision 135) instead of `cells`.
    pub log: Option<Rc<ByteLog>>,
    /// False once freed.
    pub live: bool,
    /// The allocating function (for messages).
    pub function: String,
    /// A symbolic size (`long long`) bounded by `cells.len()` (or the log's `len`, decision 50);
    /// `None`: the size is `cells.len()`.
    pub size: Option<Value>,
    /// Storage duration (decision 110): the [`Frame::id`] of the activation that owns a stack
    /// block (`alloca`, a variable-length array), which dies when that frame returns, is never
    /// a leak and cannot be freed; `None` for a heap block (`malloc` and friends).
    pub frame: Option<u64>,
    /// The first and last line of the step that allocated it (0 until the step sets them), for
    /// a leak's report (issue 51 cause 7).
    pub site: (u32, u32),
}

impl HeapBlock {
    /// Its size in bytes, when known.
    pub fn known_size(&self) -> Option<u64> {
        match (&self.size, &self.log) {
            (Some(v), _) => v.known().and_then(|n| u64::try_from(n).ok()),
            // A log's extent is a bound, not the size.
            (None, Some(_)) => None,
            (None, None) => Some(self.cells.len() as u64),
        }
    }
}

/// Why an evaluation could not produce a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// The expression needs something the semantics does not model.
    Unsupported(String),
    /// The expression names a variable with no storage in the running frame (a witness's
    /// conjunct about a function not running): no object of the state (decision 97).
    NoSuchObject(String),
}

impl From<EvalError> for crate::error::ConjunctError {
    fn from(e: EvalError) -> Self {
        match e {
            EvalError::Unsupported(m) => crate::error::ConjunctError::Unsupported(m),
            EvalError::NoSuchObject(m) => crate::error::ConjunctError::NoSuchObject(m),
        }
    }
}

impl EvalError {
    /// The message, for reports.
    pub fn message(self) -> String {
        match self {
            EvalError::Unsupported(m) => m,
            EvalError::NoSuchObject(m) => crate::error::ConjunctError::NoSuchObject(m).to_string(),
        }
    }
}

/// Result of evaluating an expression: its value and the conditions for it to be defined.
pub struct Evaluated {
    pub value: Value,
    pub defined: Vec<Definedness>,
}

/// The program's data: globals, one frame per active call, and the path condition.
#[derive(Debug, Clone)]
pub struct DataState {
    pub globals: Rc<BTreeMap<VarId, Slot>>,
    /// Shared between states until a call, return or write to a local changes it.
    pub frames: Rc<Vec<Frame>>,
    /// Multi-threaded programs (issue 22): the frames of the threads that are not running, so
    /// that a pointer to another thread's local (`pthread_create(&h, 0, f, &v)`) reaches it.
    /// Each thread numbers its frames in its own range (bits 40 and up: the thread's id).
    pub others: Rc<Vec<Frame>>,
    /// Conjuncts of the path condition (each satisfiable together, checked by the product).
    pub path: PathCond,
    /// Counter for naming fresh symbols.
    pub fresh: u32,
    /// Identity of the next frame (larger than every frame id in the state).
    pub next_frame: u64,
    /// Heap blocks by allocation number (freed blocks stay, marked dead).
    pub heap: Rc<BTreeMap<u32, HeapBlock>>,
    /// Number of the next heap block.
    pub next_heap: u32,
    /// This path read union bytes that C leaves unspecified (C11 6.2.6.1p7): the product's
    /// doubt about producers' models (decision 37).
    pub unspecified_read: bool,
    /// Bytes of each union object that C leaves unspecified: those past the member of the
    /// last store through a member (C11 6.2.6.1p7), until stored again.
    pub unspecified: Rc<BTreeMap<Obj, ByteRanges>>,
    /// The address of each object converted to an integer so far: an opaque symbol
    /// (decision 51), constrained in the path only by what holds for every layout.
    pub layout: Rc<BTreeMap<Obj, BV>>,
    /// Symbols for values known only approximately (inline-asm outputs, decision 58; libm
    /// results, decision 59), each with the set of values it may take (also in `path`) and
    /// what produced it: a confirmation must hold for every value in those sets.
    pub approx: Rc<Vec<Approx>>,
    /// Guessing run (decision 67): a nondeterministic value is 0 instead of a fresh symbol
    /// (one of the values it may take, so every path of the run is a path of the program).
    /// Values known only approximately stay symbolic: a confirmation must hold for all of them.
    pub guessing: bool,
}

/// A value known only to lie in a set (see [`DataState::approx`]).
#[derive(Debug, Clone)]
pub struct Approx {
    pub sym: BV,
    pub domain: Bool,
    pub what: String,
    /// For a libm result: the call (function, type, argument bits), so that the same call
    /// gives the same value again on this path (libm functions are deterministic).
    pub call: Option<(Libm, FloatTy, Vec<u64>)>,
}

/// A value of any scalar type: call arguments, returned values, `\result`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AnyValue {
    Int(Value),
    Float(FValue),
    Ptr(PtrVal),
}

impl AnyValue {
    pub fn ty(&self) -> ScalarTy {
        match self {
            AnyValue::Int(v) => ScalarTy::Int(v.ty),
            AnyValue::Float(v) => ScalarTy::Float(v.fty),
            AnyValue::Ptr(_) => ScalarTy::Ptr,
        }
    }
    /// Conversion as by assignment to `ty` (float → integer may be undefined: the condition
    /// joins `defined`).
    pub fn convert(&self, ty: ScalarTy, defined: &mut Vec<Definedness>) -> AnyValue {
        match (self, ty) {
            (AnyValue::Int(v), ScalarTy::Int(t)) => AnyValue::Int(value::cast(v, t)),
            (AnyValue::Int(v), ScalarTy::Float(f)) => AnyValue::Float(float::from_int(v, f)),
            (AnyValue::Float(v), ScalarTy::Int(t)) => AnyValue::Int(float::to_int(v, t, defined)),
            (AnyValue::Float(v), ScalarTy::Float(f)) => AnyValue::Float(float::cast(v, f)),
            // Pointers convert only to pointers; a mismatch is left for the store to refuse.
            (v, _) => v.clone(),
        }
    }
}

/// Context for `\result` in witness assumptions.
pub type ResultValue<'a> = Option<&'a AnyValue>;

impl DataState {
    /// Initial state: globals initialised as the CFA says, no frames.
    pub fn initial(cfa: &Cfa) -> Result<DataState, EvalError> {
        let mut st = DataState {
            globals: Rc::new(BTreeMap::new()),
            frames: Rc::new(Vec::new()),
            others: Rc::new(Vec::new()),
            path: PathCond::default(),
            fresh: 0,
            next_frame: 0,
            heap: Rc::new(BTreeMap::new()),
            next_heap: 0,
            unspecified_read: false,
            unspecified: Rc::new(BTreeMap::new()),
            layout: Rc::new(BTreeMap::new()),
            approx: Rc::new(Vec::new()),
            guessing: false,
        };
        // Globals without an entry in global_inits are zero (static storage).
        for (i, v) in cfa.vars.iter().enumerate() {
            if v.scope == VarScope::Global {
                let slot = zero_slot(&v.ty);
                Rc::make_mut(&mut st.globals).insert(VarId(i as u32), slot);
            }
        }
        for (var, init) in &cfa.global_inits {
            st.initialise(cfa, *var, Some(init))?;
        }
        for var in &cfa.external_globals {
            Rc::make_mut(&mut st.globals).insert(*var, Slot::External);
        }
        Ok(st)
    }

    /// The frames for writing (the vector is copied first if another state shares it; the
    /// frames' locals stay shared until written).
    pub fn frames_mut(&mut self) -> &mut Vec<Frame> {
        Rc::make_mut(&mut self.frames)
    }

    fn slot_mut(&mut self, cfa: &Cfa, var: VarId) -> Option<&mut Slot> {
        match cfa.var(var).scope {
            VarScope::Global => Rc::make_mut(&mut self.globals).get_mut(&var),
            VarScope::Local(_) => self.frames_mut().last_mut()?.locals_mut().get_mut(&var),
        }
    }

    fn slot(&self, cfa: &Cfa, var: VarId) -> Option<&Slot> {
        match cfa.var(var).scope {
            VarScope::Global => self.globals.get(&var),
            VarScope::Local(_) => self.frames.last()?.locals.get(&var),
        }
    }

    fn fresh_name(&mut self, hint: &str) -> String {
        self.fresh += 1;
        format!("{hint}!{}", self.fresh)
    }

    /// A general array of `elem`: any contents, one fresh SMT array (decision 204).
    pub fn symbolic_array(&mut self, hint: &str, elem: IntTy) -> Slot {
        let name = self.fresh_name(hint);
        let arr = z3::ast::Array::new_const(name, &z3::Sort::bitvector(64), &z3::Sort::bitvector(elem.bits));
        Slot::SymArray { elem, arr }
    }

    /// Largest array whose cells a general state keeps one by one; a longer one becomes a
    /// [`Slot::SymArray`].
    pub const MAX_GENERAL_CELLS: usize = Self::MAX_SYMBOLIC_ARRAY as usize;

    /// A nondeterministic value of `ty`: a fresh symbol (its range constraint joins the path
    /// condition), or 0 in a guessing run.
    pub fn nondet(&mut self, hint: &str, ty: IntTy) -> Value {
        if self.guessing {
            return Value::conc(0, ty);
        }
        self.symbol(hint, ty)
    }

    /// Decision 74: the heap blocks still allocated at the end of the program; with
    /// `from_globals`, only those no global reaches through stored pointers (valid-memtrack after
    /// `main` returned, as LeakSanitizer's roots), else all (valid-memcleanup). `None` when that
    /// cannot be told: an address converted to an integer may hide a pointer (decision 51).
    pub fn leaked_blocks(&self, from_globals: bool) -> Option<Vec<u32>> {
        if !self.layout.is_empty() {
            return None;
        }
        if !from_globals {
            return Some(self.heap.iter().filter(|(_, b)| b.live && b.frame.is_none()).map(|(n, _)| *n).collect());
        }
        let mut roots = Vec::new();
        for slot in self.globals.values() {
            slot_blocks(slot, &mut roots);
        }
        // `main` has returned: its stack blocks hold nothing any more (decision 110).
        Some(self.unreached(roots, false).into_iter().collect())
    }

    /// Decision 74: the live heap blocks that nothing reaches: neither a global, nor a local of
    /// a live frame, nor `extra` (a value in flight, e.g. being returned), through stored
    /// pointers. `None` when that cannot be told (as in [`Self::leaked_blocks`]).
    pub fn lost_blocks(&self, extra: Option<&AnyValue>) -> Option<std::collections::BTreeSet<u32>> {
        if !self.layout.is_empty() {
            return None;
        }
        let mut roots = Vec::new();
        for slot in self.globals.values().chain(self.frames.iter().flat_map(|f| f.locals.values())) {
            slot_blocks(slot, &mut roots);
        }
        if let Some(AnyValue::Ptr(PtrVal { obj: Obj::Heap(n), .. })) = extra {
            roots.push(*n);
        }
        // The live frames' stack blocks are roots as their locals are (decision 110).
        roots.extend(self.heap.iter().filter(|(_, b)| b.live && b.frame.is_some()).map(|(n, _)| *n));
        Some(self.unreached(roots, true))
    }

    /// The live heap blocks not reachable from the `roots` blocks through pointers stored in
    /// live memory: a freed block is not scanned (LeakSanitizer scans allocated chunks only), nor
    /// is a stack block unless `stack_live` (its frame is still running). Stack blocks are never
    /// in the result: they are no leak (decision 110).
    fn unreached(&self, mut todo: Vec<u32>, stack_live: bool) -> std::collections::BTreeSet<u32> {
        let mut reached = std::collections::BTreeSet::new();
        while let Some(n) = todo.pop() {
            if reached.insert(n) {
                if let Some(b) = self.heap.get(&n).filter(|b| b.live && (stack_live || b.frame.is_none())) {
                    cell_blocks(&b.cells, &mut todo);
                }
            }
        }
        self.heap.iter().filter(|(n, b)| b.live && b.frame.is_none() && !reached.contains(n)).map(|(n, _)| *n).collect()
    }

    /// Returns from the current frame: its stack blocks (`alloca`, variable-length arrays) die
    /// with it (decision 110), so a pointer to them dangles as one to its locals does.
    pub fn pop_frame(&mut self) {
        let Some(f) = self.frames_mut().pop() else { return };
        if self.heap.values().any(|b| b.live && b.frame == Some(f.id)) {
            for b in Rc::make_mut(&mut self.heap).values_mut() {
                if b.frame == Some(f.id) {
                    b.live = false;
                }
            }
        }
    }

    /// A fresh symbol of `ty`, also in a guessing run (its range constraint joins the path
    /// condition).
    pub fn symbol(&mut self, hint: &str, ty: IntTy) -> Value {
        let name = self.fresh_name(hint);
        let v = Value { val: Val::Sym(BV::new_const(name, ty.bits)), ty };
        if let Some(c) = v.range_constraint() {
            self.path.push(c);
        }
        v
    }

    /// A fresh value of `ty` known only approximately: any value of the type (decision 58).
    pub fn havoc(&mut self, ty: IntTy, what: &str) -> Value {
        let v = self.symbol("havoc", ty);
        if let Val::Sym(sym) = &v.val {
            let domain = v.range_constraint().unwrap_or_else(|| Bool::from_bool(true));
            Rc::make_mut(&mut self.approx).push(Approx {
                sym: sym.clone(),
                domain,
                what: what.to_string(),
                call: None,
            });
        }
        v
    }

    /// Decision 59: a libm function of constant arguments. `fmod` is exact; the others are the
    /// platform libm's result give or take [`Libm::ULPS`] ulps: a fresh symbol in that interval,
    /// registered as approximate (the same call on this path gives the same symbol). A NaN
    /// result is exact (C11 Annex F's special cases, which glibc follows).
    pub fn libm_value(&mut self, func: Libm, fty: FloatTy, args: &[u64]) -> FValue {
        let r = float::conc_libm(func, fty, args);
        let nan = float::to_f64(r, fty).is_nan();
        if func.exact() || nan {
            return FValue::conc(r, fty);
        }
        let call = Some((func, fty, args.to_vec()));
        if let Some(a) = self.approx.iter().find(|a| a.call == call) {
            return FValue::from_bits(&Value { val: Val::Sym(a.sym.clone()), ty: IntTy::new(fty.bits(), false) }, fty);
        }
        let (mut lo, mut hi) = (r, r);
        for _ in 0..Libm::ULPS {
            lo = float::ulp_step(lo, fty, false);
            hi = float::ulp_step(hi, fty, true);
        }
        let bits = self.symbol(&func.name(), IntTy::new(fty.bits(), false));
        let v = FValue::from_bits(&bits, fty);
        let Val::Sym(sym) = bits.val else { return FValue::conc(r, fty) };
        let t = v.term();
        let domain = Bool::and(&[float::conc_term(lo, fty).le(&t), t.le(float::conc_term(hi, fty))]);
        self.constrain(domain.clone());
        let shown: Vec<String> = args.iter().map(|a| float::render(*a, fty)).collect();
        let what = format!(
            "`{}{}({})` (libm result known within {} ulps of {})",
            func.name(),
            if fty == FloatTy::F32 { "f" } else { "" },
            shown.join(", "),
            Libm::ULPS,
            float::render(r, fty)
        );
        Rc::make_mut(&mut self.approx).push(Approx { sym, domain, what, call });
        v
    }

    /// A fresh nondeterministic float: any IEEE bit pattern of `fty`. Returns the value and
    /// the bit-vector symbol of its pattern (for traces).
    pub fn nondet_float(&mut self, hint: &str, fty: FloatTy) -> (FValue, Value) {
        let bits = self.nondet(hint, IntTy::new(fty.bits(), false));
        (FValue::from_bits(&bits, fty), bits)
    }

    /// Declares (or re-declares, e.g. in a loop) a variable with an optional initialiser.
    /// `None` means indeterminate: a fresh nondeterministic value.
    pub fn initialise(&mut self, cfa: &Cfa, var: VarId, init: Option<&Init>) -> Result<Vec<Definedness>, EvalError> {
        let info = cfa.var(var);
        let mut defined = Vec::new();
        let slot = match (&info.ty, init) {
            (CType::Int(ty), None) => Slot::Scalar(self.nondet(&info.name, *ty)),
            (CType::Int(ty), Some(Init::Zero)) => Slot::Scalar(Value::conc(0, *ty)),
            (CType::Int(ty), Some(Init::Scalar(e))) if e.int_ty().is_some() => {
                let ev = self.eval(cfa, e, None)?;
                defined = ev.defined;
                Slot::Scalar(value::cast(&ev.value, *ty))
            }
            (CType::Array { elem, .. }, None) => {
                Slot::Array { elem: *elem, cells: Rc::new(vec![None; info.ty.element_count() as usize]) }
            }
            (CType::Array { elem, .. }, Some(Init::Zero)) => {
                Slot::Array { elem: *elem, cells: Rc::new(vec![Some(Val::Conc(0)); info.ty.element_count() as usize]) }
            }
            (CType::Array { elem, .. }, Some(Init::Array(items))) => {
                let mut cells = vec![Some(Val::Conc(0)); info.ty.element_count() as usize];
                for (i, e) in items {
                    let ev = self.eval(cfa, e, None)?;
                    defined.extend(ev.defined);
                    if let Some(c) = cells.get_mut(*i as usize) {
                        *c = Some(value::cast(&ev.value, *elem).val);
                    } else {
                        return Err(EvalError::Unsupported(format!(
                            "initializer index {i} out of bounds of `{}`",
                            info.name
                        )));
                    }
                }
                Slot::Array { elem: *elem, cells: Rc::new(cells) }
            }
            (CType::FloatArray { elem, .. }, None) => {
                Slot::FloatArray { elem: *elem, cells: Rc::new(vec![None; info.ty.element_count() as usize]) }
            }
            (CType::FloatArray { elem, .. }, Some(Init::Zero)) => Slot::FloatArray {
                elem: *elem,
                cells: Rc::new(vec![Some(FVal::Conc(0)); info.ty.element_count() as usize]),
            },
            (CType::FloatArray { elem, .. }, Some(Init::FloatArray(items))) => {
                let mut cells = vec![Some(FVal::Conc(0)); info.ty.element_count() as usize];
                for (i, e) in items {
                    let v = self.eval_float(cfa, e, None, &mut defined)?;
                    if let Some(c) = cells.get_mut(*i as usize) {
                        *c = Some(float::cast(&v, *elem).val);
                    } else {
                        return Err(EvalError::Unsupported(format!(
                            "initializer index {i} out of bounds of `{}`",
                            info.name
                        )));
                    }
                }
                Slot::FloatArray { elem: *elem, cells: Rc::new(cells) }
            }
            (CType::Float(fty), None) => Slot::Float(self.nondet_float(&info.name, *fty).0),
            (CType::Float(fty), Some(Init::Zero)) => Slot::Float(FValue::conc(0, *fty)),
            (CType::Float(fty), Some(Init::Scalar(e))) if e.float_ty().is_some() => {
                let v = self.eval_float(cfa, e, None, &mut defined)?;
                Slot::Float(float::cast(&v, *fty))
            }
            (CType::Ptr, Some(Init::Scalar(e))) if e.ty() == ScalarTy::Ptr => {
                Slot::Ptr(self.eval_ptr(cfa, e, None, &mut defined)?)
            }
            // A declaration of an object without semantics is opaque, whatever its
            // initializer (but a pointer one, as below).
            (CType::Void | CType::Unsupported(_), Some(Init::Scalar(e))) if e.ty() != ScalarTy::Ptr => Slot::Opaque,
            (CType::Int(_) | CType::Array { .. } | CType::Float(_), Some(Init::FloatArray(_)))
            | (CType::FloatArray { .. }, Some(Init::Scalar(_) | Init::Array(_)))
            | (CType::Float(_), Some(Init::Array(_)))
            | (CType::Int(_), Some(Init::Array(_)))
            | (CType::Int(_) | CType::Array { .. } | CType::Float(_), Some(Init::Scalar(_))) => {
                return Err(EvalError::Unsupported(format!(
                    "initializer shape does not match the type of `{}`",
                    info.name
                )))
            }
            (CType::Ptr, None) => Slot::PtrUninit,
            (CType::Ptr, Some(Init::Zero)) => Slot::Ptr(PtrVal::null()),
            (CType::Bytes { size, .. }, None) => Slot::Bytes(Rc::new(vec![None; *size as usize])),
            (CType::Bytes { size, .. }, Some(Init::Zero | Init::Bytes(_))) => {
                Slot::Bytes(Rc::new(vec![Some(Cell::Byte(Val::Conc(0))); *size as usize]))
            }
            (CType::Ptr | CType::Bytes { .. }, Some(_)) | (_, Some(Init::Scalar(_) | Init::Bytes(_))) => {
                return Err(EvalError::Unsupported(format!(
                    "initializer shape does not match the type of `{}`",
                    info.name
                )))
            }
            (CType::Void, _) | (CType::Unsupported(_), _) => Slot::Opaque,
        };
        match info.scope {
            VarScope::Global => {
                Rc::make_mut(&mut self.globals).insert(var, slot);
            }
            VarScope::Local(_) => {
                let frame = self
                    .frames_mut()
                    .last_mut()
                    .ok_or_else(|| EvalError::Unsupported("local declared outside a function".into()))?;
                frame.locals_mut().insert(var, slot);
            }
        }
        if let Some(Init::Bytes(items)) = init {
            self.init_bytes(cfa, var, items, &mut defined)?;
        }
        Ok(defined)
    }

    /// Largest array for which a symbolic index is expanded into an if-then-else chain.
    const MAX_SYMBOLIC_ARRAY: u64 = 4096;

    /// Pushes a frame for a call of `func` binding `params` to `args` (already evaluated).
    /// Arguments are converted to the parameter types (the front end already did; this is a
    /// safeguard that never adds undefined behaviour for well-typed IR).
    /// A parameter stored as bytes (a `transparent_union`, decision 137) holds the argument,
    /// a value of one of its member types, in its first bytes; any other parameter with a type
    /// the semantics does not model is unsupported.
    /// The frame of `main` at the program's start. `main(int argc, char **argv)`: `argc` is
    /// any value of at least 1 (the program may be run with any arguments); `argv`'s value is
    /// not modelled (a use of it is unsupported).
    pub fn push_main_frame(&mut self, cfa: &Cfa) -> Result<(), EvalError> {
        let params = cfa.function(cfa.main).params.clone();
        let [argc, argv] = params[..] else { return self.push_frame(cfa, cfa.main, &[]) };
        let (CType::Int(ty), CType::Ptr) = (&cfa.var(argc).ty, &cfa.var(argv).ty) else {
            return self.push_frame(cfa, cfa.main, &[]);
        };
        let n = self.symbol("argc", *ty);
        if let Val::Sym(t) = &n.val {
            let one = BV::from_u64(1, ty.bits);
            self.path.push(if ty.signed { t.bvsge(&one) } else { t.bvuge(&one) });
        }
        let argv_value = PtrVal::null();
        self.push_frame(cfa, cfa.main, &[AnyValue::Int(n), AnyValue::Ptr(argv_value)])?;
        if let Some(f) = self.frames_mut().last_mut() {
            f.locals_mut().insert(argv, Slot::External);
        }
        Ok(())
    }

    pub fn push_frame(&mut self, cfa: &Cfa, func: FuncId, args: &[AnyValue]) -> Result<(), EvalError> {
        let id = self.next_frame;
        self.next_frame += 1;
        self.frames_mut().push(Frame { locals: Rc::new(BTreeMap::new()), id, func, entry: None });
        let params = cfa.function(func).params.clone();
        if params.len() != args.len() {
            return Err(EvalError::Unsupported(format!(
                "call of `{}` with {} arguments, but it has {} parameters",
                cfa.function(func).name,
                args.len(),
                params.len()
            )));
        }
        for (p, a) in params.iter().zip(args) {
            let slot = match (&cfa.var(*p).ty, a) {
                (CType::Int(ty), AnyValue::Int(a)) => Slot::Scalar(value::cast(a, *ty)),
                (CType::Float(fty), AnyValue::Float(a)) => Slot::Float(float::cast(a, *fty)),
                (CType::Ptr, AnyValue::Ptr(p)) => Slot::Ptr(p.clone()),
                (CType::Int(_) | CType::Float(_) | CType::Ptr, _) => {
                    return Err(EvalError::Unsupported(format!(
                        "argument for parameter `{}` of another type",
                        cfa.var(*p).name
                    )))
                }
                (CType::Bytes { size, .. }, a) => {
                    if let Some(f) = self.frames_mut().last_mut() {
                        f.locals_mut().insert(*p, Slot::Bytes(Rc::new(vec![None; *size as usize])));
                    }
                    // The store into a fresh object of the argument's size always fits.
                    let defined = self.store_at_start(cfa, *p, a)?;
                    if defined.iter().any(|d| !matches!(d.holds, Truth::Known(true))) {
                        return Err(EvalError::Unsupported(format!(
                            "argument for the union parameter `{}` that does not fit it",
                            cfa.var(*p).name
                        )));
                    }
                    continue;
                }
                (other, _) => return Err(EvalError::Unsupported(format!("parameter of type {other:?}"))),
            };
            if let Some(f) = self.frames_mut().last_mut() {
                f.locals_mut().insert(*p, slot);
            }
        }
        Ok(())
    }

    /// Every value of the state is concrete (never-read cells count as concrete: they are
    /// the same in two states that both hold them), and no address was converted to an
    /// integer nor a value approximated: two equal such states behave the same.
    pub fn is_concrete(&self) -> bool {
        fn val(v: &Val) -> bool {
            matches!(v, Val::Conc(_))
        }
        fn ptr(p: &PtrVal) -> bool {
            val(&p.offset.val)
        }
        fn cell(c: &Cell) -> bool {
            match c {
                Cell::Byte(v) => val(v),
                Cell::Ptr { p, .. } => ptr(p),
            }
        }
        fn slot(s: &Slot) -> bool {
            match s {
                Slot::Scalar(v) => val(&v.val),
                Slot::Float(f) => matches!(f.val, FVal::Conc(_)),
                Slot::Array { cells, .. } => cells.iter().flatten().all(val),
                Slot::SymArray { .. } => false,
                Slot::FloatArray { cells, .. } => cells.iter().flatten().all(|f| matches!(f, FVal::Conc(_))),
                Slot::Ptr(p) => ptr(p),
                Slot::Bytes(cells) => cells.iter().flatten().all(cell),
                Slot::PtrUninit | Slot::Opaque | Slot::External => true,
            }
        }
        self.layout.is_empty()
            && self.approx.is_empty()
            && self.unspecified.is_empty()
            && self.globals.values().all(slot)
            && self.frames.iter().all(|f| f.locals.values().all(slot))
            && self.heap.values().all(|b| {
                b.cells.iter().flatten().all(cell)
                    && b.size.as_ref().is_none_or(|v| val(&v.val))
                    && b.log.as_ref().is_none_or(|l| l.writes.iter().all(|(o, v)| val(&o.val) && val(v)))
            })
    }

    /// Adds a conjunct to the path condition.
    pub fn constrain(&mut self, c: Bool) {
        self.path.push(c);
    }

    /// When the path learns `term == bits` for a fresh symbol `term`, replace the symbol by the
    /// constant in every stored value, so that later steps run concretely (the
    /// witness-pins-values fast path). The caller keeps the equation in the path condition.
    pub fn substitute(&mut self, from: &BV, to: &BV) {
        let sub = |v: &Val| -> Val {
            match v {
                Val::Sym(t) => {
                    let s = t.substitute(&[(from, to)]);
                    match s.simplify().as_u64() {
                        Some(b) => Val::Conc(b),
                        None => Val::Sym(s),
                    }
                }
                c => c.clone(),
            }
        };
        let sub_slot = |s: &mut Slot| match s {
            Slot::Scalar(v) => v.val = sub(&v.val),
            Slot::Float(v) => {
                if let FVal::Sym(t) = &v.val {
                    *v = FValue::sym(t.substitute(&[(from, to)]), v.fty);
                }
            }
            Slot::Array { cells, .. } => {
                if cells.iter().any(|c| matches!(c, Some(Val::Sym(_)))) {
                    for c in Rc::make_mut(cells).iter_mut().flatten() {
                        *c = sub(c);
                    }
                }
            }
            Slot::SymArray { arr, .. } => *arr = arr.substitute(&[(from, to)]),
            Slot::FloatArray { elem, cells } => {
                if cells.iter().any(|c| matches!(c, Some(FVal::Sym(_)))) {
                    for c in Rc::make_mut(cells).iter_mut().flatten() {
                        if let FVal::Sym(t) = c {
                            *c = FValue::sym(t.substitute(&[(from, to)]), *elem).val;
                        }
                    }
                }
            }
            Slot::Ptr(p) => p.offset.val = sub(&p.offset.val),
            Slot::Bytes(cells) => sub_cells(cells, &sub),
            Slot::PtrUninit | Slot::Opaque | Slot::External => {}
        };
        if self.heap.values().any(|b| cells_symbolic(&b.cells) || b.size.is_some() || b.log.is_some()) {
            for b in Rc::make_mut(&mut self.heap).values_mut() {
                sub_cells(&mut b.cells, &sub);
                if let Some(v) = &mut b.size {
                    v.val = sub(&v.val);
                }
                if let Some(log) = &mut b.log {
                    for (o, v) in Rc::make_mut(log).writes.iter_mut() {
                        o.val = sub(&o.val);
                        *v = sub(v);
                    }
                }
            }
        }
        if self.globals.values().any(slot_is_symbolic) {
            for s in Rc::make_mut(&mut self.globals).values_mut() {
                sub_slot(s);
            }
        }
        if !self.frames.iter().any(|f| f.locals.values().any(slot_is_symbolic)) {
            return;
        }
        for f in self.frames_mut() {
            if f.locals.values().any(slot_is_symbolic) {
                for s in f.locals_mut().values_mut() {
                    sub_slot(s);
                }
            }
        }
        // The path keeps `from == to` (and everything else it said about `from`): terms built
        // before the substitution may still mention the symbol and must stay tied to it.
    }
}

/// The heap blocks a slot points to (decision 74).
fn slot_blocks(slot: &Slot, out: &mut Vec<u32>) {
    match slot {
        Slot::Ptr(PtrVal { obj: Obj::Heap(n), .. }) => out.push(*n),
        Slot::Bytes(cells) => cell_blocks(cells, out),
        _ => {}
    }
}

/// The heap blocks stored pointers among `cells` point to (decision 74).
fn cell_blocks(cells: &[Option<Cell>], out: &mut Vec<u32>) {
    for c in cells.iter().flatten() {
        if let Cell::Ptr { p: PtrVal { obj: Obj::Heap(n), .. }, .. } = c {
            out.push(*n);
        }
    }
}

fn slot_is_symbolic(s: &Slot) -> bool {
    match s {
        Slot::Scalar(v) => matches!(v.val, Val::Sym(_)),
        Slot::Float(v) => matches!(v.val, FVal::Sym(_)),
        Slot::Array { cells, .. } => cells.iter().any(|c| matches!(c, Some(Val::Sym(_)))),
        Slot::SymArray { .. } => true,
        Slot::FloatArray { cells, .. } => cells.iter().any(|c| matches!(c, Some(FVal::Sym(_)))),
        Slot::Ptr(p) => matches!(p.offset.val, Val::Sym(_)),
        Slot::Bytes(cells) => cells_symbolic(cells),
        Slot::PtrUninit | Slot::Opaque | Slot::External => false,
    }
}

fn cells_symbolic(cells: &[Option<Cell>]) -> bool {
    cells.iter().flatten().any(|c| match c {
        Cell::Byte(v) => matches!(v, Val::Sym(_)),
        Cell::Ptr { p, .. } => matches!(p.offset.val, Val::Sym(_)),
    })
}

fn sub_cells(cells: &mut Rc<Vec<Option<Cell>>>, sub: &impl Fn(&Val) -> Val) {
    if !cells_symbolic(cells) {
        return;
    }
    for c in Rc::make_mut(cells).iter_mut().flatten() {
        match c {
            Cell::Byte(v) => *v = sub(v),
            Cell::Ptr { p, .. } => p.offset.val = sub(&p.offset.val),
        }
    }
}

fn external(cfa: &Cfa, var: VarId) -> EvalError {
    let v = cfa.var(var);
    EvalError::Unsupported(match v.scope {
        VarScope::Global => {
            format!("the value of `{}` is unknown: it is declared `extern` and defined outside the program", v.name)
        }
        // `main`'s `argv` (see `push_main_frame`).
        VarScope::Local(_) => format!("the value of `{}` is unknown: the program's arguments are not modelled", v.name),
    })
}

fn zero_slot(ty: &CType) -> Slot {
    match ty {
        CType::Int(t) => Slot::Scalar(Value::conc(0, *t)),
        CType::Float(f) => Slot::Float(FValue::conc(0, *f)),
        CType::Array { elem, .. } => {
            Slot::Array { elem: *elem, cells: Rc::new(vec![Some(Val::Conc(0)); ty.element_count() as usize]) }
        }
        CType::FloatArray { elem, .. } => {
            Slot::FloatArray { elem: *elem, cells: Rc::new(vec![Some(FVal::Conc(0)); ty.element_count() as usize]) }
        }
        CType::Ptr => Slot::Ptr(PtrVal::null()),
        CType::Bytes { size, .. } => Slot::Bytes(Rc::new(vec![Some(Cell::Byte(Val::Conc(0))); *size as usize])),
        _ => Slot::Opaque,
    }
}

/// If `c` has the shape `sym == constant` (or `constant == sym`) for a bare symbol, returns both.
pub fn pinned_symbol(c: &Bool) -> Option<(BV, BV)> {
    use z3::ast::Dynamic;
    let d = Dynamic::from_ast(c);
    let decl = c.decl();
    if decl.kind() != z3::DeclKind::EQ || c.num_children() != 2 {
        return None;
    }
    let a = d.nth_child(0)?.as_bv()?;
    let b = d.nth_child(1)?.as_bv()?;
    let is_sym = |x: &BV| x.is_const() && x.as_u64().is_none();
    if is_sym(&a) && b.as_u64().is_some() {
        Some((a, b))
    } else if is_sym(&b) && a.as_u64().is_some() {
        Some((b, a))
    } else {
        None
    }
}

#[cfg(test)]
mod float_tests;
#[cfg(test)]
mod tests;
