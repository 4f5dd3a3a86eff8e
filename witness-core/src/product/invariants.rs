//! Issue 23: correctness witnesses in the product (decisions 162–165). An invariant is an
//! observer of the search: at its locations it is checked (is a state that falsifies it
//! feasible?) and then assumed. Two searches use it:
//! - **Refutation** ([`refute_invariants`]): from the program's start, every path, with every
//!   invariant checked on every visit. A falsified invariant or an error call is a real run:
//!   the witness is refuted with that run. A search that ends without one has looked at every
//!   reachable state: the witness is confirmed.
//! - **Proof** ([`prove_invariants`], k-induction over cut points): the cut points are the loop
//!   heads (a loop without an invariant has `true`). Base: from the start through the first k
//!   cut-point visits, everything checked (a failure there is a real run). Step: from every cut
//!   point reached, in a general state (every value a fresh symbol, [`super::havoc`]) that
//!   satisfies its invariants, through k cut-point visits with every invariant on the way
//!   assumed, and the invariants, error calls and overflows after the (k−1)-th visit checked.
//!   Every cut point the windows reach is started from in turn. No failure: every invariant
//!   holds on every visit and the property holds.

use super::*;
use crate::cfa::Expr;
use crate::invariants::{line_of, Obligation};
use crate::witness::{ExprFormat, InvariantKind, WitnessState};

/// Largest k tried by the proof.
pub const MAX_K: u8 = 4;

/// Most values a general state of the induction step may hold.
const MAX_GENERAL_CELLS: usize = 4096;

/// The invariant observer of one exploration.
pub(super) struct Observer {
    obligations: Rc<Vec<Obligation>>,
    /// Program location → the obligations checked there (the location reading).
    at: HashMap<NodeIndex, Vec<usize>>,
    /// Functions with a postcondition: their activations keep their formals' values at entry
    /// (decision 231).
    keep_entry: HashSet<crate::cfa::FuncId>,
    /// GraphML refutation: an obligation is checked when the step enters its automaton state
    /// (the witness's own claim), not by location.
    by_witness: bool,
    /// Cut points (loop heads).
    cuts: Rc<HashSet<NodeIndex>>,
    /// Obligations (and violations) on a path that has passed fewer cut points are assumed.
    check_from: u8,
    /// A path ends at its `stop_at`-th cut point.
    stop_at: Option<u8>,
    lowered: HashMap<usize, Result<Rc<Vec<Expr>>, String>>,
    /// Cut points reached (one state per location and call stack).
    reached: Vec<ProductState>,
    seen: HashSet<(NodeIndex, Vec<EdgeIndex>)>,
    /// The obligation found false, with the values that falsify it.
    failed: Option<(usize, String)>,
    /// The visited set keeps only states at cut points and function entries (every cycle of
    /// the product passes one): a long concrete loop costs a state per pass, not per step.
    sparse: bool,
    /// No state has been observed yet: the next one is where the exploration starts (an
    /// induction window's general state assumes its invariants). Not "a state without a
    /// trace": steps without a place add none (issue 32 cause 9).
    fresh: bool,
    /// A search for short refutations: a path ends once it has passed more cut points, or holds
    /// more calls, than this (its `Rejected` proves nothing; only a refutation counts).
    bound: Option<u8>,
}

impl Observer {
    fn new(
        obligations: Rc<Vec<Obligation>>,
        cuts: Rc<HashSet<NodeIndex>>,
        check_from: u8,
        stop_at: Option<u8>,
    ) -> Self {
        let mut at: HashMap<NodeIndex, Vec<usize>> = HashMap::new();
        for (i, o) in obligations.iter().enumerate() {
            for n in &o.nodes {
                at.entry(*n).or_default().push(i);
            }
        }
        let keep_entry = obligations
            .iter()
            .filter(|o| o.kind == InvariantKind::Ensures && !o.nodes.is_empty())
            .map(|o| o.scope)
            .collect();
        Observer {
            obligations,
            at,
            keep_entry,
            by_witness: false,
            cuts,
            check_from,
            stop_at,
            lowered: HashMap::new(),
            reached: Vec::new(),
            seen: HashSet::new(),
            failed: None,
            sparse: false,
            fresh: true,
            bound: None,
        }
    }
}

/// What the observer makes of a state.
pub(super) enum Observed {
    Go,
    Stop,
    Violated(Verdict),
}

/// The loop heads, and the targets of the back edges of any other cycle (`goto`): every cycle
/// of a function passes a cut point.
pub(crate) fn cut_points(cfa: &Cfa) -> HashSet<NodeIndex> {
    let mut cuts: HashSet<NodeIndex> = cfa.graph.node_indices().filter(|n| cfa.graph[*n].loop_head).collect();
    // Iterative depth-first search from each function's entry: an edge to a node on the
    // current path closes a cycle.
    for f in &cfa.functions {
        let mut on_path: HashSet<NodeIndex> = HashSet::new();
        let mut done: HashSet<NodeIndex> = HashSet::new();
        let mut stack: Vec<(NodeIndex, Vec<NodeIndex>)> = Vec::new();
        let succ = |n: NodeIndex| -> Vec<NodeIndex> { cfa.graph.neighbors_directed(n, Direction::Outgoing).collect() };
        stack.push((f.entry, succ(f.entry)));
        on_path.insert(f.entry);
        while let Some((n, rest)) = stack.last_mut() {
            match rest.pop() {
                Some(m) => {
                    if on_path.contains(&m) {
                        if !cuts.contains(&m) && !cfa.graph[m].loop_head {
                            cuts.insert(m);
                        }
                    } else if !done.contains(&m) {
                        on_path.insert(m);
                        let s = succ(m);
                        stack.push((m, s));
                    }
                }
                None => {
                    let n = *n;
                    on_path.remove(&n);
                    done.insert(n);
                    stack.pop();
                }
            }
        }
    }
    cuts
}

/// Decision 230: may a function call itself, directly or through others (a call through a
/// pointer may)? Such a cycle of the program passes no cut point: the proof's base cases are not
/// bounded by them.
pub(crate) fn may_recurse(cfa: &Cfa) -> bool {
    let mut calls: petgraph::graphmap::DiGraphMap<u32, ()> = petgraph::graphmap::DiGraphMap::new();
    for e in cfa.graph.edge_weights() {
        match &e.op {
            EdgeOp::CallPtr { .. } => return true,
            EdgeOp::Call { callee, .. } | EdgeOp::AtExit { handler: callee, .. } => {
                calls.add_edge(e.function.0, callee.0, ());
            }
            _ => {}
        }
    }
    petgraph::algo::is_cyclic_directed(&calls)
}

/// Does step `op` register an `atexit` handler, directly or through a call of one of the
/// `registrars` (a call through a pointer may call any)?
fn registers(op: &EdgeOp, registrars: &HashSet<crate::cfa::FuncId>) -> bool {
    match op {
        EdgeOp::AtExit { .. } | EdgeOp::CallPtr { .. } => true,
        EdgeOp::Call { callee, .. } => registrars.contains(callee),
        EdgeOp::ThreadCreate { routine, .. } => routine.function().is_none_or(|r| registrars.contains(&r)),
        _ => false,
    }
}

/// The functions that may register an `atexit` handler, directly or through their calls (empty
/// when the program registers none).
fn atexit_registrars(cfa: &Cfa) -> HashSet<crate::cfa::FuncId> {
    let func_of = |n: NodeIndex| cfa.graph[n].function;
    let mut may: HashSet<_> = cfa
        .graph
        .edge_references()
        .filter(|e| matches!(e.weight().op, EdgeOp::AtExit { .. }))
        .filter_map(|e| func_of(e.source()))
        .collect();
    if may.is_empty() {
        return may;
    }
    loop {
        let before = may.len();
        let more: Vec<_> = cfa
            .graph
            .edge_references()
            .filter(|e| registers(&e.weight().op, &may))
            .filter_map(|e| func_of(e.source()))
            .collect();
        may.extend(more);
        if may.len() == before {
            return may;
        }
    }
}

/// Can handlers be registered with `atexit` between two visits of the cut point `loc`: on a
/// cycle through it, directly or in a call of one of the `registrars`? Then the list of handlers
/// is no invariant of the loop, and an induction step that starts from the first visit's list
/// misses handlers of later iterations (issue 32 cause 1).
fn registers_on_cycle(cfa: &Cfa, registrars: &HashSet<crate::cfa::FuncId>, loc: NodeIndex) -> bool {
    if registrars.is_empty() {
        return false;
    }
    let reach = |dir: Direction| -> HashSet<NodeIndex> {
        let mut seen = HashSet::new();
        let mut todo = vec![loc];
        while let Some(n) = todo.pop() {
            if seen.insert(n) {
                todo.extend(cfa.graph.neighbors_directed(n, dir));
            }
        }
        seen
    };
    let (ahead, behind) = (reach(Direction::Outgoing), reach(Direction::Incoming));
    cfa.graph
        .edge_references()
        .any(|e| ahead.contains(&e.source()) && behind.contains(&e.target()) && registers(&e.weight().op, registrars))
}

fn trivial_automaton() -> WitnessAutomaton {
    let mut graph = petgraph::graph::DiGraph::new();
    let entry =
        graph.add_node(WitnessState { id: "invariants".into(), entry: true, violation: true, ..Default::default() });
    WitnessAutomaton {
        graph,
        entry,
        metadata: Default::default(),
        warnings: Vec::new(),
        format: "invariants".into(),
        exact_locations: true,
        invariants: Vec::new(),
    }
}

impl<'a> Explorer<'a> {
    /// Does a violation (error call, overflow) in state `s` count? Not while an induction
    /// window still assumes.
    pub(super) fn violation_counts(&self, s: &ProductState) -> bool {
        self.observer.as_ref().is_none_or(|o| s.passes >= o.check_from)
    }

    /// `s`'s identity in the visited set. Where invariants are checked when a step enters their
    /// automaton state (GraphML refutation), whether the step entered it is part of it: a
    /// stuttering run that reached the same state first must not turn the entering one away
    /// (issue 32 cause 4).
    pub(super) fn key_of(&self, s: &ProductState) -> StateKey {
        let mut k = s.key();
        if self.observer.as_ref().is_some_and(|o| o.by_witness) && self.enters_here(s) {
            k.5 |= 0x80;
        }
        k
    }

    /// Does the automaton enter `s`'s state at `s` (GraphML refutation)? When a step fired a
    /// transition into it, and for the entry state when the run enters `main` (its invariant
    /// holds from the program's start; before `main` the names it uses need not exist; cause 5).
    fn enters_here(&self, s: &ProductState) -> bool {
        s.entered
            || (s.witness == self.witness.entry
                && s.stack.is_empty()
                && s.loc == self.cfa.function(self.cfa.main).entry)
    }

    /// Does the visited set keep `s`?
    pub(super) fn remembers(&self, s: &ProductState) -> bool {
        match &self.observer {
            Some(o) if o.sparse => {
                // A thread that has ended is at no location (decision 246).
                s.loc == super::threads::ended()
                    || o.cuts.contains(&s.loc)
                    || self.cfa.graph[s.loc].function.is_some_and(|f| self.cfa.function(f).entry == s.loc)
            }
            _ => true,
        }
    }

    /// The observer's look at a state before it is expanded.
    pub(super) fn observe(&mut self, state: &mut ProductState) -> Observed {
        let Some(mut obs) = self.observer.take() else { return Observed::Go };
        let result = self.observe_with(&mut obs, state);
        self.observer = Some(obs);
        result
    }

    fn observe_with(&mut self, obs: &mut Observer, state: &mut ProductState) -> Observed {
        // Only an induction window counts its passes (the count is part of a state's identity);
        // the refutation checks everything, its first state too (a real one).
        let window = obs.stop_at.is_some();
        // The start of a window (the first state observed) assumes its invariants.
        let start = std::mem::replace(&mut obs.fresh, false) && window;
        let at_cut = !start && obs.cuts.contains(&state.loc);
        if at_cut && (window || obs.bound.is_some()) {
            state.passes = state.passes.saturating_add(1);
        }
        if obs.bound.is_some_and(|b| state.passes > b || state.stack.len() > usize::from(b)) {
            return Observed::Stop;
        }
        // Decision 231: a postcondition reads its function's formals at entry; an activation
        // keeps them when it starts (before anything below clones the state).
        if let Some(f) = state.data.frames.last().filter(|f| f.entry.is_none()).map(|f| f.func) {
            if obs.keep_entry.contains(&f) && state.loc == self.cfa.function(f).entry {
                state.data.keep_entry();
            }
        }
        let checking =
            !start && (!window || if at_cut { state.passes > obs.check_from } else { state.passes >= obs.check_from });
        let here: Vec<usize> = if obs.by_witness {
            if self.enters_here(state) {
                (0..obs.obligations.len()).filter(|i| obs.obligations[*i].witness_node == Some(state.witness)).collect()
            } else {
                Vec::new()
            }
        } else {
            obs.at.get(&state.loc).cloned().unwrap_or_default()
        };
        for i in here {
            match self.observe_one(obs, state, i, checking) {
                Observed::Go => {}
                other => return other,
            }
        }
        // Decision 246: an invariant of a multi-threaded program holds whenever any thread is
        // at its location, so in this global state at the parked threads' locations too (over
        // the shared state and that thread's own frames). Checked on a copy switched to the
        // thread; nothing is assumed (a check that passes makes the assumption redundant).
        if !obs.by_witness && !window && checking {
            let parked: Vec<(u32, NodeIndex)> = state
                .threads
                .as_ref()
                .map(|t| {
                    t.parked
                        .iter()
                        .filter(|p| p.start.is_none() && p.loc != super::threads::ended())
                        .filter(|p| obs.at.contains_key(&p.loc))
                        .map(|p| (p.id, p.loc))
                        .collect()
                })
                .unwrap_or_default();
            for (id, loc) in parked {
                let mut other = state.clone();
                if self.switch_to(&mut other, id).is_some() || other.loc != loc {
                    continue;
                }
                for i in obs.at.get(&loc).cloned().unwrap_or_default() {
                    match self.observe_one(obs, &mut other, i, true) {
                        Observed::Go => {}
                        other => return other,
                    }
                }
            }
        }
        if at_cut {
            let key = (state.loc, state.stack.iter().map(|c| c.call_edge).collect::<Vec<_>>());
            if obs.seen.insert(key) {
                obs.reached.push(state.clone());
            }
            if obs.stop_at == Some(state.passes) {
                return Observed::Stop;
            }
        }
        Observed::Go
    }

    fn lowered(&mut self, obs: &mut Observer, i: usize) -> Result<Rc<Vec<Expr>>, String> {
        if let Some(l) = obs.lowered.get(&i) {
            return l.clone();
        }
        let o = &obs.obligations[i];
        let scope = o.lowering_scope(self.cfa);
        let mut exprs = Vec::new();
        let mut err = None;
        for c in lower_assumption(self.cfa, o.checked(), &scope) {
            match c {
                Ok(e) => exprs.push(e),
                Err(m) => {
                    err = Some(format!("the {} cannot be evaluated in its scope: {m}", o.describe()));
                    break;
                }
            }
        }
        if exprs.is_empty() && err.is_none() {
            err = Some(format!("the {} is empty", o.describe()));
        }
        let l = match err {
            Some(e) => Err(e),
            None => Ok(Rc::new(exprs)),
        };
        obs.lowered.insert(i, l.clone());
        l
    }

    /// Checks (when `checking`) and then assumes obligation `i` in `state`.
    fn observe_one(&mut self, obs: &mut Observer, state: &mut ProductState, i: usize, checking: bool) -> Observed {
        let exprs = match self.lowered(obs, i) {
            Ok(e) => e,
            Err(m) => {
                self.give_up(m);
                return Observed::Stop;
            }
        };
        let what = obs.obligations[i].describe();
        let result = state.returned.clone();
        // Decision 231: a postcondition reads the formals at their values at entry.
        let mut entry_view = None;
        if obs.obligations[i].kind == InvariantKind::Ensures {
            match state.data.at_entry_formals() {
                Some(v) => entry_view = Some(v),
                None => {
                    self.give_up(format!("the {what} reads the formals at entry, which are not known here"));
                    return Observed::Stop;
                }
            }
        }
        let mut truth = Truth::Known(true);
        let mut defined: Vec<Bool> = Vec::new();
        // A search of real runs from the start (not an induction window): an invariant C leaves
        // undefined on a reachable state is no true claim there, so it refutes the witness.
        let mut real = obs.stop_at.is_none() && checking;
        // Decision 232: an ACSL expression is lowered at `long long` with its integers exact; a
        // condition of its evaluation (an overflow there, a division by zero, an invalid access)
        // is where that reading is not modelled, never C's undefinedness: it never refutes.
        let acsl = obs.obligations[i].format == ExprFormat::Acsl;
        if acsl {
            real = false;
        }
        let mut undefined_what: Option<String> = None;
        for e in exprs.iter() {
            let data = match entry_view.as_mut() {
                Some(v) => v,
                None => &mut state.data,
            };
            let ev = match data.eval(self.cfa, e, result.as_ref()) {
                Ok(ev) => ev,
                Err(e) => {
                    let m = e.message();
                    self.give_up(format!("the {what} cannot be evaluated: {m}"));
                    return Observed::Stop;
                }
            };
            // A condition the validator does not model (not C's undefinedness) never refutes.
            if ev.defined.iter().any(|d| d.unmodelled) {
                real = false;
            }
            for d in &ev.defined {
                match &d.holds {
                    Truth::Known(true) => {}
                    Truth::Known(false) if real => return self.undefined(obs, state, i, None, &d.what),
                    Truth::Known(false) if acsl => {
                        self.give_up(format!("the {what} has no value the validator models here ({})", d.what));
                        return Observed::Stop;
                    }
                    Truth::Known(false) => {
                        self.give_up(format!("the {what} is undefined here ({})", d.what));
                        return Observed::Stop;
                    }
                    Truth::Sym(c) => {
                        undefined_what.get_or_insert_with(|| d.what.clone());
                        defined.push(c.clone())
                    }
                }
            }
            truth = truth.and(&ev.value.truth());
        }
        if let Some(mut v) = entry_view {
            // What the evaluation changed (fresh symbols, the path) is kept; the innermost
            // frame's locals are again the current ones.
            if let (Some(now), Some(f)) = (state.data.frames.last(), v.frames_mut().last_mut()) {
                f.locals = now.locals.clone();
            }
            state.data = v;
        }
        let path = state.data.path.conjuncts();
        if checking && !defined.is_empty() {
            let all = Bool::and(&defined);
            match self.smt.check(&path, &[&all.not()]) {
                Feasibility::Infeasible => {}
                Feasibility::Feasible if real => {
                    let why = undefined_what.unwrap_or_default();
                    return self.undefined(obs, state, i, Some(all.not()), &why);
                }
                _ if acsl => {
                    let why = undefined_what.unwrap_or_default();
                    self.give_up(format!(
                        "the {what} may have no value the validator models here ({why}; an ACSL integer is \
                         computed exactly only within 64 bits)"
                    ));
                    return Observed::Stop;
                }
                _ => {
                    self.give_up(format!("the {what} may be undefined here (C leaves it undefined)"));
                    return Observed::Stop;
                }
            }
        }
        for d in defined {
            state.data.constrain(d);
        }
        match truth {
            Truth::Known(true) => Observed::Go,
            Truth::Known(false) if !checking => Observed::Stop,
            Truth::Known(false) => self.falsified(obs, state, i, None),
            Truth::Sym(c) => {
                if checking {
                    let path = state.data.path.conjuncts();
                    match self.smt.check(&path, &[&c.not()]) {
                        Feasibility::Infeasible => {}
                        Feasibility::Feasible => return self.falsified(obs, state, i, Some(c)),
                        Feasibility::Unknown => {
                            self.give_up(format!("the solver could not decide the {what}"));
                            return Observed::Stop;
                        }
                    }
                }
                state.data.constrain(c);
                Observed::Go
            }
        }
    }

    /// Obligation `i` is undefined (C gives it no value: `why`) in some state of `state`'s (those
    /// where `c` holds), reached by a real run: no true claim, so the run refutes the witness.
    fn undefined(
        &mut self,
        obs: &mut Observer,
        state: &ProductState,
        i: usize,
        c: Option<Bool>,
        why: &str,
    ) -> Observed {
        self.refuting_run(obs, state, i, c, "undefined", |values| {
            format!(
                "undefined here ({why}){}",
                if values.is_empty() { String::new() } else { format!(" when {values}") }
            )
        })
    }

    /// Obligation `i` is false in some state of `state`'s: the exploration ends with that run.
    fn falsified(&mut self, obs: &mut Observer, state: &ProductState, i: usize, c: Option<Bool>) -> Observed {
        self.refuting_run(obs, state, i, c.map(|c| c.not()), "false", |values| {
            format!("false{}", if values.is_empty() { String::new() } else { format!(" ({values})") })
        })
    }

    /// The run of `state` (constrained by `c`) on which obligation `i` is `how` (`false`,
    /// `undefined`): the exploration ends with it. A refutation is a run with exact values:
    /// where the path goes through values known only approximately (libm, inline asm), it must
    /// refute for every value they may take, as a violation's confirmation must (cause 6).
    fn refuting_run(
        &mut self,
        obs: &mut Observer,
        state: &ProductState,
        i: usize,
        c: Option<Bool>,
        how: &str,
        tell: impl FnOnce(&str) -> String,
    ) -> Observed {
        let mut s = state.clone();
        if let Some(c) = c {
            s.data.constrain(c);
        }
        let claim = format!("the {} is {how}", obs.obligations[i].describe());
        if !self.approx_settled(&s, &claim) {
            return Observed::Stop;
        }
        let o = &obs.obligations[i];
        let values = self.values_of(&s, o);
        obs.failed = Some((i, values.clone()));
        let what = format!("{} is {}", o.describe(), tell(&values));
        Observed::Violated(self.confirm(&s, what))
    }

    /// `x = 5, y = 3`: values of the invariant's names in a model of `s`'s path.
    fn values_of(&mut self, s: &ProductState, o: &Obligation) -> String {
        let scope =
            AssumptionScope { function: Some(o.scope), offset: o.offset, result_ty: None, ..Default::default() };
        // A postcondition's formals are shown at their values at entry (decision 231).
        let mut data = match o.kind {
            InvariantKind::Ensures => s.data.at_entry_formals().unwrap_or_else(|| s.data.clone()),
            _ => s.data.clone(),
        };
        let mut shown = Vec::new();
        for name in names_in(o.checked()) {
            let Some(Ok(expr)) = lower_assumption(self.cfa, name, &scope).into_iter().next() else { continue };
            // A floating-point name lowers to a comparison or a conversion: its integer value
            // would misstate it (cause 6).
            let on_float = |e: &Expr| e.float_ty().is_some();
            if matches!(&expr, Expr::Binary { lhs: x, .. } | Expr::Cast { arg: x, .. } if on_float(x))
                || matches!(expr, Expr::FloatClass { .. })
            {
                continue;
            }
            let Ok(ev) = data.eval(self.cfa, &expr, None) else { continue };
            shown.push((name, ev.value));
        }
        let terms: Vec<z3::ast::BV> = shown.iter().map(|(_, v)| v.term()).collect();
        let Some(vals) = self.smt.model_values(&s.data.path.conjuncts(), &terms) else { return String::new() };
        shown.iter().zip(vals).map(|((n, v), b)| format!("{n} = {}", as_i128(b, v.ty))).collect::<Vec<_>>().join(", ")
    }
}

/// What a search of the invariants found.
pub struct InvariantOutcome {
    /// `Confirmed`: a real run falsifies an invariant or reaches the violation (the witness is
    /// refuted); `Rejected`: every invariant holds and the property too (confirmed);
    /// `Unknown`: neither is shown.
    pub verdict: Verdict,
    pub reason: String,
    /// The obligation found false (refutation) or not inductive (proof), with values.
    pub failed: Option<(usize, String)>,
    /// The proof's k, when it succeeded.
    pub k: Option<u8>,
    pub states: u64,
    pub solver_calls: u64,
    /// The shortcuts that removed states from the search that decided (decision 237).
    pub used: crate::shortcuts::Shortcuts,
}

impl InvariantOutcome {
    /// Neither shown, for the reason `why`.
    pub(crate) fn unknown(
        why: String,
        failed: Option<(usize, String)>,
        states: u64,
        solver_calls: u64,
    ) -> InvariantOutcome {
        InvariantOutcome {
            verdict: Verdict::Unknown { reason: why.clone() },
            reason: why,
            failed,
            k: None,
            states,
            solver_calls,
            used: crate::shortcuts::Shortcuts::NONE,
        }
    }
}

/// The refutation search: every path from the program's start, every invariant checked.
/// GraphML invariants are checked when the automaton enters their state (the witness's claim);
/// YAML ones at their locations.
pub fn refute_invariants(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    obligations: Rc<Vec<Obligation>>,
) -> InvariantOutcome {
    refute_once(cfa, witness, anchors, opts, obligations, None)
}

/// Short refutations (issue 32): the refutation search is depth first, and a violation a few
/// loop passes or calls deep can lie behind an unbounded first branch. Searches bounded to 2,
/// 4, 8 and 16 cut-point passes and calls, each exhaustive up to its bound, each within an
/// eighth of the time left; a refutation one finds is the answer (a real run), anything else
/// proves nothing and is `Unknown` (with the states and solver calls spent).
pub fn refute_short(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    obligations: Rc<Vec<Obligation>>,
) -> InvariantOutcome {
    let mut spent = (0u64, 0u64);
    for bound in [2u8, 4, 8, 16] {
        let share = opts.deadline.sooner(opts.deadline.remaining() / 8);
        let bopts =
            ExploreOptions { deadline: share, target: opts.target.clone(), reading: SearchReading::AsWritten, ..*opts };
        let o = refute_once(cfa, witness, anchors, &bopts, obligations.clone(), Some(bound));
        spent.0 += o.states;
        spent.1 += o.solver_calls;
        if matches!(o.verdict, Verdict::Confirmed { .. }) {
            return InvariantOutcome { states: spent.0, solver_calls: spent.1, ..o };
        }
        if opts.deadline.passed() {
            break;
        }
    }
    InvariantOutcome::unknown("no short run refutes the witness".into(), None, spent.0, spent.1)
}

/// One refutation search; with a `bound`, paths end past that many cut points or calls, and
/// only a refutation is an answer.
fn refute_once(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    obligations: Rc<Vec<Obligation>>,
    bound: Option<u8>,
) -> InvariantOutcome {
    let graphml = obligations.iter().any(|o| o.witness_node.is_some());
    let trivial = trivial_automaton();
    let automaton = if graphml { witness } else { &trivial };
    let seeds: Vec<NodeIndex> = obligations.iter().flat_map(|o| o.nodes.iter().copied()).collect();
    let reach = super::search_reach(cfa, opts, &seeds);
    let mut ex = Explorer::new(cfa, automaton, anchors, opts, &reach);
    if graphml {
        ex.offsets = crate::offsets::plan(cfa, automaton, &mut ex.warnings);
        (ex.approximate, ex.places) = approximate_transitions(&ex);
        ex.distance = automaton.graph.node_indices().map(|n| (n, 0)).collect();
    }
    // Explanations are of violation witnesses' rejections.
    ex.explain = Explanation::new(false);
    let mut obs = Observer::new(obligations, Rc::new(cut_points(cfa)), 0, None);
    obs.by_witness = graphml;
    obs.sparse = true;
    obs.bound = bound;
    ex.observer = Some(Box::new(obs));
    // What this search loses of the program's runs (decision 184): the runs the witness
    // automaton does not let through (a sink, a restricting assumption, a missing transition),
    // and the paths a bound cuts.
    if graphml {
        ex.coverage
            .lose_runs("the search follows the witness automaton, which need not let every run of the program through");
    }
    if let Some(b) = bound {
        ex.coverage.lose_runs(format!("paths were cut after {b} cut points or calls"));
    }
    let verdict = ex.run();
    let mut used = ex.used;
    let failed = ex.observer.as_mut().and_then(|o| o.failed.take());
    let (mut states, mut calls) = (ex.states, ex.smt.calls);
    let raw = |verdict: &Verdict, states: u64| match verdict {
        Verdict::Confirmed { error_function, .. } => error_function.clone(),
        Verdict::Rejected => format!(
            "every reachable state was explored ({states} product states): every invariant holds and the property too"
        ),
        Verdict::Unknown { reason } => reason.clone(),
    };
    let reading = opts.reading.declared(false);
    let (mut verdict, mut why) =
        reading::conclude_claim(Claim::Correctness, &reading, &ex.doubts, &ex.coverage, verdict.clone());
    // The automaton's runs keep the invariants, which the witness claims only while the
    // automaton is in their states; "the property holds" needs every run of the program
    // (issue 32 cause 3): a search over all of them, with the trivial automaton, decides.
    let automaton_clean = graphml && bound.is_none() && failed.is_none() && ex.coverage.lost_runs.is_some() && {
        matches!(reading::conclude(&reading, &ex.doubts, Verdict::Rejected).0, Verdict::Rejected)
    };
    if automaton_clean && matches!(verdict, Verdict::Unknown { .. }) && why.is_some() {
        let mut all = Explorer::new(cfa, &trivial, anchors, opts, &reach);
        all.explain = Explanation::new(false);
        let mut obs = Observer::new(Rc::new(Vec::new()), Rc::new(cut_points(cfa)), 0, None);
        obs.sparse = true;
        all.observer = Some(Box::new(obs));
        let v = all.run();
        used = used.union(all.used);
        states += all.states;
        calls += all.smt.calls;
        let v = match v {
            Verdict::Unknown { reason } => Verdict::Unknown {
                reason: format!(
                    "every run the witness automaton allows keeps the invariants, but whether every run of the program keeps the property is undecided: {reason}"
                ),
            },
            v => v,
        };
        (verdict, why) = reading::conclude_claim(Claim::Correctness, &Reading::EXACT, &all.doubts, &all.coverage, v);
    }
    let reason = why.unwrap_or_else(|| raw(&verdict, states));
    InvariantOutcome { verdict, reason, failed, k: None, states, solver_calls: calls, used }
}

/// The proof by k-induction over the cut points, k = 1 to `MAX_K` (4; module comment). When it
/// fails on a counterexample to induction, it is tried again with equalities inferred at the cut
/// points (decision 167): each variable's value at the first visit, `x == 7`, as a candidate
/// invariant that must itself be proved; a candidate found false is dropped and the proof
/// restarts (Houdini), so only proved candidates ever help.
pub fn prove_invariants(
    cfa: &Cfa,
    anchors: &Anchors,
    opts: &ExploreOptions,
    obligations: Rc<Vec<Obligation>>,
) -> InvariantOutcome {
    let given = obligations.len();
    let mut first = None;
    let plain = match prove_once(cfa, anchors, opts, obligations.clone(), given, &mut first) {
        Ok(o) => o,
        Err(_) => unreachable_candidate(),
    };
    let not_inductive = matches!(plain.verdict, Verdict::Unknown { .. }) && plain.failed.is_some();
    let Some(templates) = first.filter(|_| not_inductive) else { return plain };
    let mut list: Vec<Obligation> = (*obligations).clone();
    list.extend(inferred_equalities(cfa, &templates));
    let (mut states, mut calls) = (plain.states, plain.solver_calls);
    for _ in 0..MAX_CANDIDATE_DROPS {
        if list.len() == given || opts.deadline.passed() {
            break;
        }
        match prove_once(cfa, anchors, opts, Rc::new(list.clone()), given, &mut None) {
            Err((drop, st, ca)) => {
                states += st;
                calls += ca;
                list.remove(drop);
            }
            Ok(mut o) => {
                states += o.states;
                calls += o.solver_calls;
                if matches!(o.verdict, Verdict::Rejected) {
                    let n = list.len() - given;
                    o.reason = o.reason.replace(
                        ") and the property holds",
                        &format!(
                            ", with {n} inferred invariant{} at the cut points) and the property holds",
                            if n == 1 { "" } else { "s" }
                        ),
                    );
                    o.states = states;
                    o.solver_calls = calls;
                    return o;
                }
                break;
            }
        }
    }
    InvariantOutcome { states, solver_calls: calls, ..plain }
}

/// Most candidate equalities dropped before the inference gives up.
const MAX_CANDIDATE_DROPS: usize = 64;

/// Most equalities inferred per cut point.
const MAX_EQUALITIES: usize = 32;

/// A proof without candidates never names one.
fn unreachable_candidate() -> InvariantOutcome {
    InvariantOutcome::unknown("internal: a candidate equality without candidates".into(), None, 0, 0)
}

/// Candidate invariants `x == c` and `x % 2 == c % 2` at each cut point: every integer variable
/// in scope (the function's locals, the globals) whose value is the same concrete `c` at the
/// first visit of every run; each must lower in the cut point's scope.
fn inferred_equalities(cfa: &Cfa, templates: &[ProductState]) -> Vec<Obligation> {
    use crate::semantics::Slot;
    let mut out = Vec::new();
    for t in templates {
        let Some(frame) = t.data.frames.last() else { continue };
        let scope = frame.func;
        let offset = cfa
            .graph
            .edges_directed(cfa.own_steps(t.loc), Direction::Outgoing)
            .filter_map(|e| e.weight().span.map(|s| s.start_offset))
            .min();
        let line = line_of(cfa, t.loc);
        let mut n = 0;
        for (var, slot) in frame.locals.iter().chain(t.data.globals.iter()) {
            if n >= MAX_EQUALITIES {
                break;
            }
            let Slot::Scalar(Value { val: Val::Conc(b), ty }) = slot else { continue };
            let name = &cfa.var(*var).name;
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || name.starts_with(|c: char| c.is_ascii_digit())
            {
                continue;
            }
            let v = as_i128(*b, *ty);
            if v.unsigned_abs() >= 1 << 62 {
                continue;
            }
            // The value itself, and its parity (a counter stepping by 2 keeps it: `x % 2 == 0`),
            // which C's `%` gives the sign of the dividend, as Rust's does.
            let texts = if ty.signed {
                [format!("{name} == {v}"), format!("{name} % 2 == {}", v % 2)]
            } else {
                [format!("{name} == {v}U"), format!("{name} % 2U == {}U", v % 2)]
            };
            for text in texts {
                let lowered = lower_assumption(
                    cfa,
                    &text,
                    &AssumptionScope { function: Some(scope), offset, result_ty: None, ..Default::default() },
                );
                if lowered.is_empty() || lowered.iter().any(|c| c.is_err()) {
                    continue;
                }
                n += 1;
                out.push(Obligation {
                    kind: InvariantKind::Loop,
                    text,
                    format: ExprFormat::C,
                    scope,
                    offset,
                    nodes: vec![t.loc],
                    witness_node: None,
                    line,
                    origin: "inferred".into(),
                    unchecked: None,
                    check: None,
                });
            }
        }
    }
    out
}

/// One proof attempt over `obligations`, of which those from `given` on are candidates: a
/// candidate found false (in the base case or a step) is `Err((its index, states, solver calls))`.
/// `first`: where to keep the first visits of the cut points (the base case's, k = 1).
fn prove_once(
    cfa: &Cfa,
    anchors: &Anchors,
    opts: &ExploreOptions,
    obligations: Rc<Vec<Obligation>>,
    given: usize,
    first: &mut Option<Vec<ProductState>>,
) -> Result<InvariantOutcome, (usize, u64, u64)> {
    let trivial = trivial_automaton();
    let seeds: Vec<NodeIndex> = obligations.iter().flat_map(|o| o.nodes.iter().copied()).collect();
    let reach = super::search_reach(cfa, opts, &seeds);
    let cuts = Rc::new(cut_points(cfa));
    let registrars = atexit_registrars(cfa);
    let (mut states, mut calls) = (0u64, 0u64);
    // What the base cases and windows lost of the program's runs (decision 184): a window ends
    // at its k-th cut point by design (induction covers what follows), nothing else may.
    let mut coverage = reading::Coverage::default();
    let mut not_inductive = String::from("no cut point");
    let mut failed = None;
    let done = |verdict: Verdict, reason: String, failed, k, states, calls| InvariantOutcome {
        verdict,
        reason,
        failed,
        k,
        states,
        solver_calls: calls,
        used: crate::shortcuts::Shortcuts::NONE,
    };
    for k in 1..=MAX_K {
        // Base: real runs from the start through the first k cut-point visits.
        let mut ex = Explorer::new(cfa, &trivial, anchors, opts, &reach);
        ex.observer = Some(Box::new(Observer::new(obligations.clone(), cuts.clone(), 0, Some(k))));
        // The gate (decision 97): a run resting on a dropped constraint (decision 228: a call of
        // a function the program only declares, taken to return) refutes nothing.
        let ran = ex.run();
        let (verdict, _) = reading::conclude(&Reading::EXACT, &ex.doubts, ran);
        states += ex.states;
        calls += ex.smt.calls;
        if let Some(l) = ex.coverage.lost_runs.take() {
            coverage.lose_runs(l);
        }
        let mut obs = ex.observer.take().expect("observer");
        if let Some((i, _)) = obs.failed.as_ref().filter(|(i, _)| *i >= given) {
            return Err((*i, states, calls));
        }
        if k == 1 && first.is_none() && matches!(verdict, Verdict::Rejected) {
            *first = Some(obs.reached.clone());
        }
        match verdict {
            // A GraphML invariant is placed at every visit of its locations, more than the
            // witness claims (decision 162): its failure here is no refutation; the search that
            // follows the automaton decides.
            Verdict::Confirmed { error_function, .. }
                if obs.failed.as_ref().is_some_and(|(i, _)| obligations[*i].witness_node.is_some()) =>
            {
                let why = format!("the invariants are not proved: at some visit of its location the {error_function}");
                return Ok(InvariantOutcome::unknown(why, obs.failed, states, calls));
            }
            Verdict::Confirmed { error_function, trace, call, lost_blocks } => {
                return Ok(done(
                    Verdict::Confirmed { error_function: error_function.clone(), trace, call, lost_blocks },
                    error_function,
                    obs.failed,
                    None,
                    states,
                    calls,
                ))
            }
            Verdict::Unknown { reason } => return Ok(InvariantOutcome::unknown(reason, None, states, calls)),
            Verdict::Rejected => {}
        }
        let mut todo = std::mem::take(&mut obs.reached);
        let mut seen = std::mem::take(&mut obs.seen);
        let mut i = 0;
        let mut cti = None;
        while i < todo.len() {
            if opts.deadline.passed() {
                let why = format!("time budget of {} s exhausted in the induction step (k = {k})", opts.budget_secs);
                return Ok(InvariantOutcome::unknown(why, None, states, calls));
            }
            let t = todo[i].clone();
            i += 1;
            let place = format!("at the loop head of line {}", line_of(cfa, t.loc));
            if t.threads.is_some() {
                let why = "induction over the states of several threads is not supported".to_string();
                return Ok(InvariantOutcome::unknown(why, None, states, calls));
            }
            // Every component of the general state is generalised (`havoc`) or invariant over
            // the loop: the `atexit` handlers are kept, so none may be registered on the loop.
            if registers_on_cycle(cfa, &registrars, t.loc) {
                let why = format!(
                    "the invariants are not proved: handlers may be registered with `atexit` in the loop {place}, which the induction does not generalise"
                );
                return Ok(InvariantOutcome::unknown(why, None, states, calls));
            }
            let (mut g, _) = match havoc::generalise(&t, MAX_GENERAL_CELLS, &place) {
                Ok(x) => x,
                Err(what) => {
                    let why = format!("the invariants are not proved: the induction cannot hold {what}");
                    return Ok(InvariantOutcome::unknown(why, None, states, calls));
                }
            };
            g.trace = None;
            g.passes = 0;
            g.entered = false;
            let mut ex = Explorer::new(cfa, &trivial, anchors, opts, &reach);
            let mut o = Observer::new(obligations.clone(), cuts.clone(), k - 1, Some(k));
            o.seen = std::mem::take(&mut seen);
            ex.observer = Some(Box::new(o));
            let verdict = ex.run_from(g);
            states += ex.states;
            calls += ex.smt.calls;
            if let Some(l) = ex.coverage.lost_runs.take() {
                coverage.lose_runs(l);
            }
            let mut o = ex.observer.take().expect("observer");
            seen = std::mem::take(&mut o.seen);
            todo.append(&mut o.reached);
            match verdict {
                Verdict::Rejected => {}
                Verdict::Confirmed { .. } if o.failed.as_ref().is_some_and(|(i, _)| *i >= given) => {
                    let i = o.failed.as_ref().map_or(0, |(i, _)| *i);
                    return Err((i, states, calls));
                }
                Verdict::Confirmed { error_function, trace, .. } => {
                    // The path of the counterexample to induction, by its lines.
                    let mut lines: Vec<u32> = trace.iter().map(|t| t.line).filter(|l| *l > 0).collect();
                    lines.dedup();
                    let path = lines.iter().map(u32::to_string).collect::<Vec<_>>().join(" → ");
                    let what =
                        if path.is_empty() { error_function } else { format!("{error_function} (along lines {path})") };
                    cti = Some((what, o.failed.take(), place));
                    break;
                }
                Verdict::Unknown { reason } => {
                    let why = format!("the induction step from the loop head {place} is undecided: {reason}");
                    return Ok(InvariantOutcome::unknown(why, None, states, calls));
                }
            }
        }
        match cti {
            None => {
                let reason = format!(
                    "every invariant is proved ({}-induction over {} cut point{}) and the property holds",
                    k,
                    seen.len(),
                    if seen.len() == 1 { "" } else { "s" }
                );
                let gate = reading::conclude_claim(
                    Claim::Correctness,
                    &Reading::EXACT,
                    &Doubts::default(),
                    &coverage,
                    Verdict::Rejected,
                );
                return Ok(match gate {
                    (Verdict::Rejected, _) => done(Verdict::Rejected, reason, None, Some(k), states, calls),
                    (_, why) => InvariantOutcome::unknown(why.unwrap_or_default(), None, states, calls),
                });
            }
            Some((what, f, place)) => {
                not_inductive = format!(
                    "not inductive for k up to {k}: from a state {place} that satisfies the invariants, {what}"
                );
                failed = f;
            }
        }
    }
    Ok(InvariantOutcome::unknown(not_inductive, failed, states, calls))
}
