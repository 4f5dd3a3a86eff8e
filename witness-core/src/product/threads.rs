//! Threads (issue 22): the product state of a multi-threaded program holds every thread. The
//! running thread's location, call stack, frames and returned value are the state's own fields
//! (so that one step of one thread is exactly a sequential step); the other threads are parked
//! in [`Threads`], with their thread-local variables. A step of the product is a step of one
//! thread: [`Explorer::expand_threads`] switches each thread that may run in, lets it take its
//! steps, and the witness matches them with their thread (`threadId`, `createThread`).
//!
//! Interleaving is at statement (CFA edge) granularity under sequential consistency (digest
//! §1). `pthread_mutex_lock` on a held mutex and `pthread_join` of a live thread have no
//! successor (the thread waits); inside an atomic section (`__VERIFIER_atomic_begin`/`end`, a
//! function named `__VERIFIER_atomic_*`) only its thread runs.

use super::*;
use crate::semantics::{Obj, Slot};

/// The location of a thread that has ended, and the return location of a thread's start
/// routine (its return ends the thread).
pub(super) fn ended() -> NodeIndex {
    NodeIndex::end()
}

/// Most threads alive at once on a path: a run that would start one more ends in `unknown`
/// (a program that creates threads in an unbounded loop has unboundedly many states, and each
/// pending state holds every thread).
pub(super) const MAX_THREADS: usize = 8;

/// Most threads created on a path (ended ones included): beyond, `unknown` (a program creating
/// short-lived threads in an unbounded loop).
pub(super) const MAX_CREATED: u32 = 64;

/// The id of the main thread (created threads get 1, 2, … in creation order).
pub(super) const MAIN_THREAD: u32 = 0;

/// The threads of a run besides the running one's own place (see the module comment).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Threads {
    /// Id of the thread whose location, stack and frames the state's own fields hold.
    pub(super) running: u32,
    /// The other threads that have not ended, by id.
    /// Shared between states (each state's `Threads` is a copy of pointers).
    pub(super) parked: Vec<Rc<Parked>>,
    /// The ids of the threads that have ended (for `pthread_join`), ascending.
    pub(super) ended: Vec<u32>,
    /// Id of the next thread created.
    pub(super) next_id: u32,
    /// Witness thread ids bound to threads of this run (GraphML `createThread`, YAML thread
    /// numbering).
    pub(super) bindings: Vec<(Rc<str>, u32)>,
    /// An atomic section in progress: its thread, and for a `__VERIFIER_atomic_*` function the
    /// call depth at which it was called (the section ends when it returns).
    pub(super) atomic: Option<(u32, Option<usize>)>,
    /// Held mutexes (object and byte offset) with their holder.
    pub(super) locks: Vec<((Obj, u64), u32)>,
}

/// A thread that is not running.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Parked {
    pub(super) id: u32,
    pub(super) loc: NodeIndex,
    pub(super) stack: Rc<Vec<CallSite>>,
    pub(super) returned: Option<AnyValue>,
    /// Its copies of the thread-local variables (in the order of `Cfa::thread_locals`).
    pub(super) tls: Rc<Vec<Slot>>,
    /// The id of its next frame: each thread numbers its frames in its own range, so that the
    /// order in which threads call functions does not tell two states apart.
    pub(super) next_frame: u64,
    /// Created but not started: its start routine, argument and creating step.
    pub(super) start: Option<Start>,
}

/// How a created thread starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Start {
    pub(super) routine: FuncId,
    pub(super) arg: Option<AnyValue>,
    pub(super) create_edge: EdgeIndex,
}

/// The YAML 2.2 draft's thread numbering: the k-th thread-creating `function_enter` waypoint
/// (one whose location is a `pthread_create` call), counted in segment order over the whole
/// witness, registers thread k (digest §3). Transitions by their index = segment order.
pub(super) fn yaml_thread_numbers(cfa: &Cfa, w: &WitnessAutomaton, anchors: &Anchors) -> HashMap<EdgeIndex, String> {
    if !cfa.threads || !w.exact_locations {
        return HashMap::new();
    }
    let creating: HashSet<usize> = cfa
        .graph
        .edge_weights()
        .filter(|e| matches!(e.op, EdgeOp::ThreadCreate { .. }))
        .filter_map(|e| e.call_paren)
        .collect();
    let mut out = HashMap::new();
    if creating.is_empty() {
        return out;
    }
    let mut k = 0u32;
    for t in w.graph.edge_indices() {
        if w.graph[t].avoid {
            continue;
        }
        if let Some(ResolvedAnchor::FunctionEnter { parens }) = anchors.get(&t) {
            if parens.iter().any(|p| creating.contains(p)) {
                k += 1;
                out.insert(t, k.to_string());
            }
        }
    }
    out
}

impl Threads {
    pub(super) fn new() -> Threads {
        Threads {
            running: MAIN_THREAD,
            parked: Vec::new(),
            ended: Vec::new(),
            next_id: 1,
            bindings: Vec::new(),
            atomic: None,
            locks: Vec::new(),
        }
    }

    pub(super) fn bound(&self, witness_id: &str) -> Option<u32> {
        self.bindings.iter().find(|(w, _)| &**w == witness_id).map(|(_, t)| *t)
    }

    /// The thread a witness thread id names: the one bound to it, else main while main has no
    /// id yet (decision 153).
    pub(super) fn named(&self, witness_id: &str) -> Option<u32> {
        self.bound(witness_id)
            .or_else(|| (!self.bindings.iter().any(|(_, b)| *b == MAIN_THREAD)).then_some(MAIN_THREAD))
    }

    /// Where started thread `id` of `s` is: its location and call stack (`None` when it has
    /// ended or not started).
    pub(super) fn place_of<'s>(&'s self, s: &'s ProductState, id: u32) -> Option<(NodeIndex, &'s Rc<Vec<CallSite>>)> {
        if id == self.running {
            return (s.loc != ended()).then_some((s.loc, &s.stack));
        }
        self.parked.iter().find(|p| p.id == id && p.start.is_none()).map(|p| (p.loc, &p.stack))
    }

    /// Whether thread `id` exists and has ended.
    pub(super) fn has_ended(&self, id: u32, running_loc: NodeIndex) -> Option<bool> {
        if id == self.running {
            return Some(running_loc == ended());
        }
        if self.ended.binary_search(&id).is_ok() {
            return Some(true);
        }
        self.parked.iter().any(|p| p.id == id).then_some(false)
    }
}

impl<'a> Explorer<'a> {
    /// The values of the thread-local variables in the state's globals.
    fn take_tls(&self, s: &ProductState) -> Rc<Vec<Slot>> {
        Rc::new(self.cfa.thread_locals.iter().filter_map(|v| s.data.globals.get(v).cloned()).collect())
    }

    fn put_tls(&self, s: &mut ProductState, tls: &[Slot]) {
        if tls.is_empty() {
            return;
        }
        let globals = Rc::make_mut(&mut s.data.globals);
        for (v, slot) in self.cfa.thread_locals.iter().zip(tls) {
            globals.insert(*v, slot.clone());
        }
    }

    /// Makes thread `to` the running one; returns how it starts if it has not started yet (its
    /// location is then its start routine's entry, with no frame).
    pub(super) fn switch_to(&self, s: &mut ProductState, to: u32) -> Option<Start> {
        let running = s.threads.as_ref().map(|t| t.running)?;
        if running == to {
            return None;
        }
        let tls = self.take_tls(s);
        if !s.threads.as_ref()?.parked.iter().any(|p| p.id == to) {
            return None;
        }
        // The frames of the threads not running live in `data.others` (so that pointers into
        // them work); each thread's are the ones in its id range.
        let mine = |f: &crate::semantics::Frame| f.id >> 40 == u64::from(to);
        let incoming_frames: Vec<crate::semantics::Frame> = s.data.others.iter().filter(|f| mine(f)).cloned().collect();
        let others = Rc::make_mut(&mut s.data.others);
        others.retain(|f| !mine(f));
        others.extend(s.data.frames.iter().cloned());
        // In id order (a thread's stack order), whatever the order of the switches: states that
        // differ only in how they were reached are equal.
        others.sort_by_key(|f| f.id);
        let incoming_frames = Rc::new(incoming_frames);
        let th = Rc::make_mut(s.threads.as_mut()?);
        let at = th.parked.iter().position(|p| p.id == to)?;
        let incoming = Rc::try_unwrap(th.parked.remove(at)).unwrap_or_else(|p| (*p).clone());
        if s.loc == ended() {
            // An ended thread leaves only its id.
            let pos = th.ended.partition_point(|e| *e < running);
            th.ended.insert(pos, running);
            s.loc = incoming.loc;
            s.stack = incoming.stack;
            s.data.frames = incoming_frames;
            s.returned = incoming.returned;
            s.data.next_frame = incoming.next_frame;
            th.running = to;
            self.put_tls(s, &incoming.tls);
            return incoming.start;
        }
        s.data.frames = incoming_frames;
        let outgoing = Parked {
            id: running,
            loc: std::mem::replace(&mut s.loc, incoming.loc),
            stack: std::mem::replace(&mut s.stack, incoming.stack),
            returned: std::mem::replace(&mut s.returned, incoming.returned),
            next_frame: std::mem::replace(&mut s.data.next_frame, incoming.next_frame),
            tls,
            start: None,
        };
        let pos = th.parked.partition_point(|p| p.id < running);
        th.parked.insert(pos, Rc::new(outgoing));
        th.running = to;
        self.put_tls(s, &incoming.tls);
        incoming.start
    }

    /// A new thread (at `pthread_create`): parked, not started; returns its id, or `Err` with
    /// the reason when it cannot be created.
    pub(super) fn create_thread(&self, s: &mut ProductState, start: Start) -> Result<u32, String> {
        // Parked threads are alive (an ended one leaves only its id).
        let live = s.threads.as_ref().map_or(0, |t| t.parked.len());
        if live + 1 >= MAX_THREADS {
            return Err(format!("more than {MAX_THREADS} threads alive at once (not explored)"));
        }
        if s.threads.as_ref().is_some_and(|t| t.next_id > MAX_CREATED) {
            return Err(format!("more than {MAX_CREATED} threads created on one path (not explored)"));
        }
        let tls = Rc::new(self.tls_init.clone());
        let entry = self.cfa.function(start.routine).entry;
        let Some(th) = s.threads.as_mut() else { return Err("`pthread_create` outside a multi-threaded run".into()) };
        let th = Rc::make_mut(th);
        let id = th.next_id;
        th.next_id += 1;
        th.parked.push(Rc::new(Parked {
            id,
            loc: entry,
            stack: Rc::new(Vec::new()),
            returned: None,
            tls,
            next_frame: u64::from(id) << 40,
            start: Some(start),
        }));
        Ok(id)
    }

    /// The threads that may take the next step, the one to explore first last: a thread the
    /// witness state's transitions name, then the threads that ran most recently (the
    /// witness's own schedule is found first; the order changes nothing else).
    fn runnable(&self, s: &ProductState) -> Vec<u32> {
        let Some(th) = &s.threads else { return Vec::new() };
        if let Some((t, _)) = th.atomic {
            return vec![t];
        }
        let mut ids: Vec<u32> = th.parked.iter().map(|p| p.id).collect();
        if s.loc != ended() {
            ids.push(th.running);
        }
        let named: Vec<u32> = self
            .witness
            .graph
            .edges_directed(s.witness, Direction::Outgoing)
            .filter_map(|t| th.named(t.weight().guard.thread_id.as_deref()?))
            .collect();
        let recency = |i: &u32| s.recent.iter().position(|r| r == i).map_or(0, |p| p + 1);
        ids.sort_by_key(|i| (named.contains(i), recency(i)));
        ids
    }

    /// May some thread of the state (or one it may still create) reach an error call?
    pub(super) fn may_reach_any(&self, s: &ProductState) -> bool {
        // A start routine's return location is no location (`ended()`).
        fn returns(stack: &[CallSite]) -> impl DoubleEndedIterator<Item = NodeIndex> + '_ {
            stack.iter().map(|c| c.return_loc).filter(|l| *l != ended())
        }
        if s.loc != ended() && self.reach.may_reach(s.loc, returns(&s.stack)) {
            return true;
        }
        let Some(th) = &s.threads else { return false };
        th.parked.iter().any(|p| self.reach.may_reach(p.loc, returns(&p.stack)))
    }

    /// Expands a state of a multi-threaded program: each thread that may run takes its steps.
    pub(super) fn expand_threads(&mut self, state: ProductState, out: &mut Vec<ProductState>) -> Option<Verdict> {
        if self.opts.target.race() {
            if let Some(v) = self.race_at(&state) {
                return Some(v);
            }
        }
        let mut ids = self.runnable(&state);
        // Decision 155: a thread with only local, invisible steps goes alone.
        if let Some(t) = self.ample_thread(&state, &ids) {
            ids = vec![t];
        }
        for id in ids {
            let mut s = state.clone();
            let from = out.len();
            match self.switch_to(&mut s, id) {
                Some(start) => self.start_thread(s, start, out),
                None => {
                    self.arrivals(&s, out);
                    if let Some(v) = self.expand_running(s, out) {
                        return Some(v);
                    }
                }
            }
            if from < out.len() {
                let mut recent: Vec<u32> = state.recent.iter().copied().filter(|r| *r != id).collect();
                recent.push(id);
                let recent = Rc::new(recent);
                for n in &mut out[from..] {
                    n.recent = recent.clone();
                }
            }
        }
        None
    }

    /// YAML 2.2 (decision 152): the statement waypoints (`assumption` and the like, read "before
    /// the statement") of the running thread, passed while it is at the statement: at any
    /// moment between its arrival and its next step, in the global state of that moment, since
    /// other threads' steps may come in between (the draft's segment order is the cross-thread
    /// order). A waypoint whose constraint is false at one moment does not end the run: the
    /// thread may pass it at a later moment. The successors are the states with the witness
    /// advanced; the thread has not moved.
    fn arrivals(&mut self, s: &ProductState, out: &mut Vec<ProductState>) {
        if !self.witness.exact_locations || s.loc == ended() {
            return;
        }
        let w = self.witness;
        let any = w.graph.edges_directed(s.witness, Direction::Outgoing).any(|t| Self::is_arrival(t.weight()));
        if !any {
            return;
        }
        let function = s.stack.last().map(|c| c.callee).unwrap_or(self.cfa.main);
        let wait = CfaEdge {
            op: EdgeOp::Blank,
            span: None,
            function,
            text: String::new(),
            decision: None,
            call_paren: None,
            call_start: None,
        };
        let info = StepInfo::of_edge(&wait, s.loc);
        let mut passed = Vec::new();
        self.arriving = true;
        self.advance_witness(s.clone(), &info, Action::Arrive, None, &mut passed);
        self.arriving = false;
        out.extend(passed.into_iter().filter(|n| n.witness != s.witness));
    }

    /// The first step of a created thread: it enters its start routine (observable as
    /// `enterFunction` of the routine on the line of its `pthread_create`).
    fn start_thread(&mut self, mut s: ProductState, start: Start, out: &mut Vec<ProductState>) {
        let cfa = self.cfa;
        let args: Vec<AnyValue> = start.arg.iter().cloned().collect();
        if let Err(EvalError::Unsupported(w)) = s.data.push_frame(cfa, start.routine, &args) {
            let span = cfa.edge(start.create_edge).span;
            self.give_up(format!("{w} at {}", self.line_of(span)));
            return;
        }
        Rc::make_mut(&mut s.stack).push(CallSite {
            callee: start.routine,
            call_edge: start.create_edge,
            return_loc: ended(),
            lhs: None,
        });
        s.loc = cfa.function(start.routine).entry;
        let create = cfa.edge(start.create_edge);
        // A line-level step (GraphML `enterFunction`); no YAML anchor (its `function_enter`
        // names the creating thread's call) points at it.
        let enter = CfaEdge {
            op: EdgeOp::Call { callee: start.routine, args: Vec::new(), lhs: None },
            call_paren: None,
            call_start: None,
            ..create.clone()
        };
        let info = StepInfo {
            kind: StepKind::Edge(&enter),
            span: create.span,
            scope_function: start.routine,
            target: s.loc,
            result: None,
            closure: Default::default(),
        };
        self.advance_witness(s, &info, Action::ThreadStart(start.routine), None, out);
    }

    /// The running thread returns from its start routine or calls `pthread_exit`: it ends.
    pub(super) fn end_thread(&self, s: &mut ProductState) {
        while !s.data.frames.is_empty() {
            s.data.pop_frame();
        }
        s.stack = Rc::new(Vec::new());
        s.loc = ended();
        s.returned = None;
        if let Some(th) = s.threads.as_mut() {
            let th = Rc::make_mut(th);
            if th.atomic.is_some_and(|(t, _)| t == th.running) {
                th.atomic = None;
            }
        }
    }

    /// Decision 235: the running thread has just ended; was it the last thread, `main` having
    /// ended by `pthread_exit` (or being the one)? Then the process exits as by `exit(0)`
    /// (POSIX `pthread_exit`), and the `atexit` handlers run on that thread.
    pub(super) fn last_to_end(&self, s: &ProductState) -> bool {
        s.threads
            .as_ref()
            .is_some_and(|th| th.parked.is_empty() && (th.running == MAIN_THREAD || th.ended.contains(&MAIN_THREAD)))
    }

    /// Does transition `t`'s thread (GraphML `threadId`, YAML `thread_id`) allow a step of the
    /// running thread of `s` (the state after the step)? An id not bound yet names the main
    /// thread when the main thread has no id yet (producers give it `0`, or their own id);
    /// ids of other threads are bound only where they are created.
    pub(super) fn thread_matches(&self, t: &WitnessTransition, s: &ProductState) -> bool {
        let (Some(id), Some(th)) = (&t.guard.thread_id, &s.threads) else { return true };
        th.named(id) == Some(th.running)
    }

    /// Does transition `t` name a thread id that no thread of `s` has (and that the main
    /// thread cannot take)?
    pub(super) fn thread_unbound(&self, t: &WitnessTransition, s: &ProductState) -> bool {
        let (Some(id), Some(th)) = (&t.guard.thread_id, &s.threads) else { return false };
        th.named(id).is_none()
    }

    /// After transition `t` fired on a step of `s`'s running thread: binds the ids it names
    /// (its `threadId` to the running thread; its `createThread` to the thread the step
    /// created, or to the main thread at the program's start).
    pub(super) fn bind_threads(&self, ti: EdgeIndex, s: &mut ProductState, info: &StepInfo) {
        let t = &self.witness.graph[ti];
        let Some(th) = s.threads.as_mut() else { return };
        let th = Rc::make_mut(th);
        if let Some(id) = &t.guard.thread_id {
            if th.bound(id).is_none() {
                th.bindings.push((Rc::from(id.as_str()), th.running));
            }
        }
        if let Some(id) = t.guard.create_thread.as_ref().or(self.creates.get(&ti)) {
            let created = match info.kind {
                StepKind::Edge(CfaEdge { op: EdgeOp::ThreadCreate { .. }, .. }) => th.next_id - 1,
                _ => MAIN_THREAD,
            };
            // An id is reused only for a new thread: rebind it.
            th.bindings.retain(|(w, _)| &**w != id.as_str());
            th.bindings.push((Rc::from(id.as_str()), created));
        }
    }

    /// A step of the running thread of `s` cannot be taken now (a held mutex, a live thread to
    /// join): if the witness's next transition wants this step, that is where its schedule
    /// cannot continue (for explanations only).
    pub(super) fn note_blocked(&mut self, s: &ProductState, edge: &CfaEdge, target: NodeIndex, why: String) {
        if !self.explain.enabled() {
            return;
        }
        let info = StepInfo::of_edge(edge, target);
        let wanted: Vec<EdgeIndex> = self
            .witness
            .graph
            .edges_directed(s.witness, Direction::Outgoing)
            .filter(|t| self.thread_matches(t.weight(), s) && self.guard_matches(t.id(), &info))
            .map(|t| t.id())
            .collect();
        for t in wanted {
            self.note_dead_end(t, &info, "blocked", format!("`{}` {why}", edge.text));
        }
    }

    /// The mutex at `p` as a key (object and concrete offset), or why it cannot be one.
    pub(super) fn mutex_key(&mut self, s: &ProductState, p: &crate::semantics::PtrVal) -> Result<(Obj, u64), String> {
        let off = self.pin(s, p.offset.clone());
        match (&p.obj, &off.val) {
            (Obj::Null, _) => Err("a mutex operation on a null pointer".into()),
            (Obj::Func(_), _) => Err("a mutex operation on a function pointer".into()),
            (o, Val::Conc(k)) => Ok((*o, *k)),
            _ => Err("a mutex at an address that is not fixed".into()),
        }
    }
}
