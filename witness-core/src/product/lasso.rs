//! Non-termination witnesses (decisions 93-96): cycle heads, repeated states and symbolic
//! recurrent sets.

use super::*;

/// What identifies a product state at the cycle head, for the repetition check: the state key
/// without the path condition (decision 94).
pub(super) type LassoKey = (
    NodeIndex,
    NodeIndex,
    Rc<Vec<CallSite>>,
    Rc<Vec<crate::semantics::Frame>>,
    Rc<std::collections::BTreeMap<crate::cfa::VarId, crate::semantics::Slot>>,
    Rc<std::collections::BTreeMap<u32, crate::semantics::HeapBlock>>,
    Option<AnyValue>,
    Rc<Vec<(FuncId, EdgeIndex)>>,
    bool,
    Option<Rc<super::threads::Threads>>,
    Rc<Vec<crate::semantics::Frame>>,
);

/// A visit of the cycle head in the recurrent set on a path (persistent list).
pub(super) struct HeadVisit {
    pub(super) parent: Option<Rc<HeadVisit>>,
    /// The state's key; `None` when some value is symbolic (no repetition check).
    pub(super) key: Option<LassoKey>,
    /// Visits in the set so far on this path (1 for the first).
    pub(super) count: u32,
    /// The path's last step at the visit, to mark it in a confirmation's trace.
    pub(super) trace: Option<Rc<TraceNode>>,
}

/// The explorer's state for a non-termination witness (decisions 93–96).
pub(super) struct LassoSearch {
    /// The first visits of the cycle head in the recurrent set (decision 94), for the checks of
    /// a rejection (decision 95).
    pub(super) firsts: Vec<ProductState>,
    /// Why a path that reached the cycle head in the recurrent set does not show an infinite
    /// run (the set is not closed, a symbolic state, …).
    pub(super) open: Vec<String>,
    /// A symbolic pass of the loop part is being explored (decision 96).
    pub(super) recurrence: Option<RecurrencePass>,
    /// The witness states reachable from a cycle head (its loop part).
    pub(super) cycle_nodes: HashSet<NodeIndex>,
    /// Symbolic closure checks tried on concrete runs that did not repeat (issue 19).
    pub(super) checks: usize,
}

impl LassoSearch {
    pub(super) fn new(witness: &WitnessAutomaton) -> LassoSearch {
        let mut cycle_nodes = HashSet::new();
        let mut todo: Vec<NodeIndex> = witness.graph.node_indices().filter(|n| witness.graph[*n].cycle_head).collect();
        while let Some(n) = todo.pop() {
            if cycle_nodes.insert(n) {
                todo.extend(witness.graph.neighbors_directed(n, Direction::Outgoing));
            }
        }
        LassoSearch { firsts: Vec::new(), open: Vec::new(), recurrence: None, cycle_nodes, checks: 0 }
    }
}

/// What one symbolic pass of the loop part found so far (decision 96).
pub(super) struct RecurrencePass {
    /// The path conditions of the paths that came back to the cycle head.
    pub(super) returns: Vec<Vec<Bool>>,
    /// The first few states that came back, for a confirmation's trace (stem and one pass).
    pub(super) examples: Vec<ProductState>,
    /// Why the set is not closed, if a path came back outside it.
    pub(super) failure: Option<String>,
}

/// Returning states of a symbolic pass kept to show one pass in a confirmation's trace.
pub(super) const MAX_PASS_EXAMPLES: usize = 16;

/// Most first visits whose recurrent set is checked over a symbolic pass (decision 96).
pub(super) const MAX_RECURRENCE_CHECKS: usize = 4;

/// Most integer variables and array cells made symbolic for a symbolic pass (decision 96).
pub(super) const MAX_RECURRENCE_CELLS: usize = 4096;

/// Most product states of one symbolic pass (decision 96).
pub(super) const RECURRENCE_MAX_STATES: u64 = 20_000;

/// What the visit of the cycle head does to a path (decision 94).
pub(super) enum Arrival {
    Drop,
    Go(ProductState),
    Confirm(Verdict),
}

/// Most visits of the cycle head in the recurrent set on one path before it is given up.
pub(super) const MAX_HEAD_VISITS: u32 = 10_000;

/// Visits of the cycle head in the set without a repeated state after which the symbolic
/// closure check (decision 96) is tried on a concrete run (issue 19).
pub(super) const SYMBOLIC_AFTER_VISITS: u32 = 64;

/// Most first visits of the cycle head kept for the checks of a rejection.
pub(super) const MAX_LASSO_FIRSTS: usize = 16;

/// The names a C expression mentions, each once, in order (numbers and their suffixes skipped):
/// what a message shows the values of.
pub(super) fn names_in(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let name = &text[start..i];
            if !names.contains(&name) {
                names.push(name);
            }
        } else if bytes[i].is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    names
}

/// Decision 95: the program locations where a step that enters a cycle head starts (every
/// step on a line of a transition into it; for a call, also the callee's exit, where its
/// return starts), or `None` if some such transition names no line.
pub(super) fn head_seeds(cfa: &Cfa, w: &WitnessAutomaton, anchors: &Anchors) -> Option<Vec<NodeIndex>> {
    let mut lines = Vec::new();
    let mut seeds = Vec::new();
    for h in w.graph.node_indices().filter(|n| w.graph[*n].cycle_head) {
        for t in w.graph.edges_directed(h, Direction::Incoming) {
            // A statement is entered where control arrives at it (decision 93: or at the head
            // its start reaches by blank edges).
            if let Some(ResolvedAnchor::Statement { nodes, offset }) = anchors.get(&t.id()) {
                seeds.extend(loop_heads_of(cfa, nodes, *offset));
                for n in nodes {
                    seeds.extend(cfa.blank_closure(*n));
                }
            }
            lines.push(transition_lines(t.weight())?);
        }
    }
    seeds.extend(line_seeds(cfa, &lines));
    Some(seeds)
}

/// A waypoint every pass of the cycle must match whose matching steps all lead where no step
/// into the cycle head can start (a `branching` waypoint of the cycle that takes the `break`
/// out of the loop): its line and witness position. Such a witness allows no run that passes
/// its cycle twice, whatever reading of the segments and whatever values: the rejection needs
/// no exploration. Only steps in a `main` that nothing calls are judged (their activation has
/// no caller to return to); the head's locations over-approximate as in decision 95.
pub(super) fn leaving_waypoint(cfa: &Cfa, w: &WitnessAutomaton, anchors: &Anchors) -> Option<(u32, String)> {
    let head = the_cycle_head(w)?;
    let seeds = head_seeds(cfa, w, anchors)?;
    let reach = ErrorReach::pruning(cfa, &ErrorTarget::nothing(), &seeds);
    let main_called = cfa
        .graph
        .edge_references()
        .any(|e| matches!(&e.weight().op, EdgeOp::Call { callee, .. } if *callee == cfa.main));
    if main_called || cfa.threads {
        return None;
    }
    for t in w.graph.edge_references() {
        let tr = t.weight();
        let Some(ResolvedAnchor::Branching { construct }) = anchors.get(&t.id()) else { continue };
        if tr.avoid || !on_every_cycle(w, head, t.id()) {
            continue;
        }
        let mut steps = cfa.graph.edge_references().filter(|e| {
            e.weight().decision.as_ref().is_some_and(|d| {
                d.construct == *construct
                    && tr.decision.as_ref().is_none_or(|want| super::matching::outcome_matches(want, &d.outcome))
            })
        });
        let mut any = false;
        let leaves = steps.all(|e| {
            any = true;
            cfa.graph[e.source()].function == Some(cfa.main) && !reach.may_reach(e.target(), std::iter::empty())
        });
        if any && leaves {
            let line = tr.guard.anchor.as_ref().map(|a| a.line).unwrap_or(0);
            return Some((line, tr.origin.clone()));
        }
    }
    None
}

/// The witness's cycle head, when it has exactly one.
fn the_cycle_head(w: &WitnessAutomaton) -> Option<NodeIndex> {
    let mut heads = w.graph.node_indices().filter(|n| w.graph[*n].cycle_head);
    let head = heads.next()?;
    heads.next().is_none().then_some(head)
}

/// Does every cycle of the witness automaton through `head` use transition `t`?
fn on_every_cycle(w: &WitnessAutomaton, head: NodeIndex, t: EdgeIndex) -> bool {
    let mut seen = vec![false; w.graph.node_count()];
    let mut todo: Vec<NodeIndex> = w.graph.edges(head).filter(|e| e.id() != t).map(|e| e.target()).collect();
    while let Some(n) = todo.pop() {
        if n == head {
            return false;
        }
        if std::mem::replace(&mut seen[n.index()], true) {
            continue;
        }
        todo.extend(w.graph.edges(n).filter(|e| e.id() != t).map(|e| e.target()));
    }
    true
}

/// The lines a transition names: its `startline`/`endline`, or its waypoint's line.
pub(super) fn transition_lines(t: &WitnessTransition) -> Option<Range> {
    let g = &t.guard;
    g.lines.or_else(|| g.anchor.as_ref().map(|a| Range { start: a.line as u64, end: a.line as u64 }))
}

/// The locations where a step on one of `lines` starts (for a call, also the callee's exit,
/// where its return starts): the seeds of an [`ErrorReach::pruning`] towards those lines.
pub(super) fn line_seeds(cfa: &Cfa, lines: &[Range]) -> Vec<NodeIndex> {
    let mut seeds = Vec::new();
    for e in cfa.graph.edge_references() {
        let Some(sp) = e.weight().span else { continue };
        if lines.iter().any(|r| r.overlaps(sp.start_line as u64, sp.end_line as u64)) {
            seeds.push(e.source());
            if let EdgeOp::Call { callee, .. } = &e.weight().op {
                seeds.push(cfa.function(*callee).exit);
            }
        }
    }
    seeds
}

impl<'a> Explorer<'a> {
    /// Decision 95: what an exploration of a non-termination witness that confirmed nothing
    /// means. Rejected only when no run the witness allows can pass the cycle head infinitely
    /// often in the recurrent set: its stem never reaches the head in the set, or from every
    /// first visit in the set every run of the program (whatever the witness says) passes the
    /// locations where the head is entered a bounded number of times.
    pub(super) fn lasso_verdict(&mut self, verdict: Verdict) -> (Verdict, String) {
        let text = self
            .witness
            .graph
            .node_indices()
            .find(|n| self.witness.graph[*n].cycle_head)
            .and_then(|n| self.witness.graph[n].invariant.clone())
            .unwrap_or_else(|| "1".into());
        let open = self.lasso.open.first().cloned();
        if let Verdict::Unknown { reason } = verdict {
            let reason = match open {
                Some(o) => format!("{reason}; also: {o}"),
                None => reason,
            };
            return (Verdict::Unknown { reason: reason.clone() }, reason);
        }
        if self.lasso.firsts.is_empty() {
            if self.repeats > 0 {
                let r = format!(
                    "no run allowed by the witness reaches the cycle head in a state of the recurrent set `{text}`, but a program state repeats on the way: the program may run forever outside the claimed set"
                );
                return (Verdict::Unknown { reason: r.clone() }, r);
            }
            let msg = format!(
                "the witness's stem is infeasible: no run it allows reaches the cycle head in a state of the recurrent set `{text}` ({} product states explored)",
                self.states
            );
            // Without a dead end or a furthest transition on the way, the explanation names the
            // transition into the head.
            if !self.explain.has_dead_end() && self.explain.furthest_step(self.witness, &self.distance).is_none() {
                let w = self.witness;
                let into_head = w
                    .graph
                    .edge_indices()
                    .find(|&e| w.graph.edge_endpoints(e).is_some_and(|(_, h)| w.graph[h].cycle_head));
                if let Some(t) = into_head {
                    let tr = &w.graph[t];
                    let line = tr
                        .guard
                        .anchor
                        .as_ref()
                        .map(|a| a.line)
                        .or(tr.guard.lines.map(|l| l.start as u32))
                        .unwrap_or(0);
                    let step = InfeasibleStep { line, origin: tr.origin.clone(), what: msg.clone(), kind: "stem" };
                    self.explain.conclude(step);
                }
            }
            return (Verdict::Rejected, msg);
        }
        if let Some(what) = leaving_waypoint(self.cfa, self.witness, self.anchors) {
            let (line, origin) = what.clone();
            let what = format!(
                "the cycle's waypoint at line {line} ({origin}) takes a branch after which no step can enter the \
                 cycle head again: no run the witness allows passes its cycle twice"
            );
            self.explain.conclude(InfeasibleStep { line, origin, what: what.clone(), kind: "terminates" });
            return (Verdict::Rejected, format!("witness rejected: {what}"));
        }
        let not_rejected = |why: String, open: &Option<String>| {
            let r = match open {
                Some(o) => format!("{o}; and no rejection: {why}"),
                None => {
                    format!("no pass of the witness's loop part returns to the cycle head; and no rejection: {why}")
                }
            };
            (Verdict::Unknown { reason: r.clone() }, r)
        };
        if self.repeats > 0 {
            // Some run the witness allows may go round forever without visiting the head in the
            // set: the set is wrong for it, but the run may be infinite.
            return not_rejected("a program state repeats on some run the witness allows".into(), &open);
        }
        if self.lasso.firsts.len() >= MAX_LASSO_FIRSTS {
            return not_rejected(format!("more than {MAX_LASSO_FIRSTS} runs reach the cycle head"), &open);
        }
        let Some(seeds) = head_seeds(self.cfa, self.witness, self.anchors) else {
            return not_rejected("a transition into the cycle head names no line".into(), &open);
        };
        let reach = ErrorReach::pruning(self.cfa, &ErrorTarget::nothing(), &seeds);
        let firsts = std::mem::take(&mut self.lasso.firsts);
        let mut shown = None;
        for f in &firsts {
            let mut f = f.clone();
            match free_run(self.cfa, self.anchors, self.opts, &reach, &f) {
                Ok(states) => self.states += states,
                Err(why) => return not_rejected(why, &open),
            }
            if shown.is_none() {
                let line = f.trace.as_ref().and_then(|t| t.span).map(|sp| sp.start_line).unwrap_or(0);
                shown = Some((line, self.describe(&mut f, &text)));
            }
        }
        let (line, values) = shown.unwrap_or_default();
        let what = format!(
            "the stem's values end the cycle: from the first visit of the cycle head (entered at line {line}: {values}), every run of the program passes the cycle head's lines a bounded number of times{}",
            open.map(|o| format!(" ({o})")).unwrap_or_default()
        );
        self.explain.conclude(InfeasibleStep { line, origin: String::new(), what: what.clone(), kind: "terminates" });
        (Verdict::Rejected, format!("witness rejected: {what}"))
    }

    /// The scope of the recurrent set at a state: the function whose frame is on top, and the
    /// offset of the step that arrived (for shadowed names).
    pub(super) fn invariant_scope(&self, s: &ProductState) -> AssumptionScope {
        AssumptionScope {
            function: Some(s.stack.last().map(|c| c.callee).unwrap_or(self.cfa.main)),
            offset: s.trace.as_ref().and_then(|t| t.span).map(|sp| sp.start_offset),
            result_ty: None,
            ..Default::default()
        }
    }

    /// Evaluates the recurrent set (a C expression) in a state: its truth, or why it cannot be
    /// used (parse error, unknown name, possibly undefined evaluation).
    pub(super) fn eval_invariant(&mut self, s: &mut ProductState, text: &str) -> Result<Truth, String> {
        let scope = self.invariant_scope(s);
        let mut all = Truth::Known(true);
        for conj in lower_assumption(self.cfa, text, &scope) {
            let expr = conj.map_err(|e| e.to_string())?;
            let ev = s.data.eval(self.cfa, &expr, None).map_err(EvalError::message)?;
            if ev.defined.iter().any(|d| !matches!(d.holds, Truth::Known(true))) {
                return Err("its evaluation may be undefined".to_string());
            }
            all = all.and(&ev.value.truth());
        }
        Ok(all)
    }

    /// The concrete values of the names the recurrent set mentions, e.g. `x = 5, y = 0`.
    pub(super) fn describe(&mut self, s: &mut ProductState, text: &str) -> String {
        let scope = self.invariant_scope(s);
        let mut parts = Vec::new();
        for name in names_in(text) {
            let Some(Ok(expr)) = lower_assumption(self.cfa, name, &scope).into_iter().next() else { continue };
            let Ok(ev) = s.data.eval(self.cfa, &expr, None) else { continue };
            if let Val::Conc(b) = ev.value.val {
                parts.push(format!("{name} = {}", as_i128(b, ev.value.ty)));
            }
        }
        if parts.is_empty() {
            "symbolic values".into()
        } else {
            parts.join(", ")
        }
    }

    /// Decision 96: is the recurrent set closed? From `s` (a visit of the cycle head), every
    /// variable becomes a fresh symbol constrained by the set only; one pass of the loop part is
    /// explored; every path that comes back must be inside the set, and the paths that come back
    /// must together cover the whole set (with values the witness pins for the nondeterministic
    /// calls of the pass; any other nondeterministic value makes the check fail).
    pub(super) fn recurrence_check(&mut self, s: &ProductState, text: &str) -> Result<Option<ProductState>, String> {
        if self.lasso.recurrence.is_some() {
            return Err("nested recurrence check".into());
        }
        let not_modelled = |what: &str| Err(format!("the recurrent set `{text}` is not proven closed: {what}"));
        let (mut g, links) = match super::havoc::generalise(s, MAX_RECURRENCE_CELLS, "at the cycle head") {
            Ok(x) => x,
            Err(what) => return not_modelled(&what),
        };
        g.heads = Some(Rc::new(HeadVisit { parent: None, key: None, count: 1, trace: None }));
        g.arrival = false;
        match self.eval_invariant(&mut g, text) {
            Ok(Truth::Known(true)) => {}
            Ok(Truth::Known(false)) => return not_modelled("the set is empty for a general state"),
            Ok(Truth::Sym(c)) => g.data.constrain(c),
            Err(m) => return not_modelled(&m),
        }
        let base = g.data.path.conjuncts();
        let fresh = g.data.fresh;
        let unknown_before = self.unknown.len();
        let max_before = self.max_states;
        self.max_states = Some(self.states + RECURRENCE_MAX_STATES);
        self.lasso.recurrence = Some(RecurrencePass { returns: Vec::new(), examples: Vec::new(), failure: None });
        let repeats_before = self.repeats;
        let verdict = self.run_from(g);
        // The pass's own joins of paths say nothing about the runs the witness allows.
        self.repeats = repeats_before;
        self.max_states = max_before;
        let rec = self.lasso.recurrence.take();
        let doubts = self.unknown.split_off(unknown_before.min(self.unknown.len()));
        let Some(rec) = rec else { return not_modelled("internal") };
        if let Verdict::Unknown { reason } = verdict {
            return not_modelled(&format!("one pass is undecided: {reason}"));
        }
        if let Some(d) = doubts.first() {
            return not_modelled(&format!("one pass is undecided: {d}"));
        }
        if let Some(f) = rec.failure {
            return Err(f);
        }
        if rec.returns.is_empty() {
            return Err(format!(
                "the recurrent set `{text}` is not closed: no pass of the loop part from a general state in it comes \
                 back to the cycle head"
            ));
        }
        // Values the witness pins for the pass's nondeterministic calls are substituted; any
        // other symbol of the pass is a choice the check cannot quantify.
        let is_fresh =
            |name: &str| name.rsplit('!').next().and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n > fresh);
        let mut covers = Vec::new();
        for pc in &rec.returns {
            let pins: Vec<(z3::ast::BV, z3::ast::BV)> = pc
                .iter()
                .filter_map(pinned_symbol)
                .filter(|(sym, _)| is_fresh(&z3::ast::Ast::decl(sym).name()))
                .collect();
            let pairs: Vec<(&z3::ast::BV, &z3::ast::BV)> = pins.iter().map(|(a, b)| (a, b)).collect();
            let all = z3::ast::Ast::substitute(&Bool::and(pc), &pairs);
            if crate::semantics::solver::symbols(std::slice::from_ref(&all)).iter().any(|(n, _)| is_fresh(n)) {
                return not_modelled("a nondeterministic value in the loop that the witness does not pin");
            }
            covers.push(all);
        }
        let any = Bool::or(&covers);
        match self.smt.check(&base, &[&any.not()]) {
            Feasibility::Infeasible => {
                // The trace shows the stem and the pass that `s` itself takes: a returning path
                // whose condition holds together with the stem's and with the general state
                // equal to `s`'s (some does, as the passes cover the set).
                let stem = s.data.path.conjuncts();
                let example = rec.examples.into_iter().find_map(|mut r| {
                    let mut all = stem.clone();
                    all.extend(links.iter().cloned());
                    all.extend(r.data.path.conjuncts());
                    if self.smt.check(&all, &[]) != Feasibility::Feasible {
                        return None;
                    }
                    for c in stem.iter().chain(links.iter()) {
                        r.data.constrain(c.clone());
                    }
                    Some(r)
                });
                Ok(example)
            }
            Feasibility::Feasible => Err(format!(
                "the recurrent set `{text}` is not closed: from some states in it no pass the loop part allows comes \
                 back to the cycle head (the loop is left, a sink or a false assumption is met, or undefined \
                 behaviour is possible)"
            )),
            Feasibility::Unknown => not_modelled("the solver could not decide whether the passes cover the set"),
        }
    }

    /// Decision 94: marks the visits of the cycle head from visit `from` on (the repeated cycle)
    /// in a confirmation's trace, with the values of the names in the recurrent set.
    pub(super) fn mark_visits(
        &mut self,
        verdict: &mut Verdict,
        s: &mut ProductState,
        prev: &Rc<HeadVisit>,
        from: u32,
        text: &str,
    ) {
        let Verdict::Confirmed { trace, .. } = verdict else { return };
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        let mut cur = s.trace.clone();
        while let Some(n) = cur {
            nodes.push(Rc::as_ptr(&n));
            cur = n.parent.clone();
        }
        let len = nodes.len();
        for (i, p) in nodes.into_iter().enumerate() {
            index.insert(p, len - 1 - i);
        }
        let count = prev.count + 1;
        let mut marks = vec![(count, s.trace.clone(), self.describe(s, text))];
        let mut cur = Some(prev.clone());
        while let Some(v) = cur {
            if v.count < from {
                break;
            }
            let mut t = s.clone();
            if let Some(k) = &v.key {
                t.stack = k.2.clone();
                t.data.frames = k.3.clone();
                t.data.globals = k.4.clone();
                t.data.heap = k.5.clone();
            }
            marks.push((v.count, v.trace.clone(), self.describe(&mut t, text)));
            cur = v.parent.clone();
        }
        for (c, node, desc) in marks {
            let Some(i) = node.and_then(|n| index.get(&Rc::as_ptr(&n)).copied()) else { continue };
            if let Some(step) = trace.get_mut(i) {
                step.action = format!("{}   [cycle head, visit {c}: {desc}]", step.action);
            }
        }
    }

    /// Decision 94: a step fired a transition into the cycle head. The first visit in the
    /// recurrent set starts the lasso (a visit outside it does not: the stem goes on); each
    /// later visit must be in the set, and a concrete state that repeats an earlier visit's
    /// closes the lasso: the run between them repeats forever.
    pub(super) fn lasso_arrival(&mut self, mut s: ProductState) -> Arrival {
        // The step entered the cycle head; it may also have passed on at once to the waypoints
        // after it that the same step meets (Theta puts the head at the loop body's `{`, the
        // next waypoint at the body's first statement: one arrival). The visit is the head's
        // all the same, in the state after the step, with those waypoints' constraints.
        let head =
            if self.witness.graph[s.witness].cycle_head { Some(s.witness) } else { the_cycle_head(self.witness) };
        let Some(head) = head else {
            self.give_up("a step passes one of several cycle heads and leaves it at once (not modelled)".into());
            return Arrival::Drop;
        };
        let span = s.trace.as_ref().and_then(|t| t.span);
        let line = span.map(|sp| sp.start_line).unwrap_or(0);
        let text = self.witness.graph[head].invariant.clone().unwrap_or_else(|| "1".into());
        let truth = match self.eval_invariant(&mut s, &text) {
            Ok(t) => t,
            Err(m) => {
                self.give_up(format!(
                    "the recurrent set `{text}` at the cycle head (entered at line {line}) cannot be used: {m}"
                ));
                return Arrival::Drop;
            }
        };
        if self.lasso.recurrence.is_some() {
            // Decision 96: the end of a symbolic pass.
            let closed = match &truth {
                Truth::Known(b) => Some(*b),
                Truth::Sym(c) => match self.smt.check(&s.data.path.conjuncts(), &[&c.not()]) {
                    Feasibility::Infeasible => Some(true),
                    Feasibility::Feasible => Some(false),
                    Feasibility::Unknown => None,
                },
            };
            let conjuncts = s.data.path.conjuncts();
            if let Some(rec) = self.lasso.recurrence.as_mut() {
                match closed {
                    Some(true) => {
                        rec.returns.push(conjuncts);
                        if rec.examples.len() < MAX_PASS_EXAMPLES {
                            rec.examples.push(s.clone());
                        }
                    }
                    Some(false) => {
                        rec.failure.get_or_insert_with(|| {
                            format!(
                                "the recurrent set `{text}` is not closed: a pass from some state in it comes back to \
                                 the cycle head (entered at line {line}) outside it"
                            )
                        });
                    }
                    None => {
                        rec.failure.get_or_insert_with(|| "the solver could not decide the closure".to_string());
                    }
                }
            }
            return Arrival::Drop;
        }
        let Some(prev) = s.heads.clone() else {
            let in_set = match truth {
                Truth::Known(b) => b,
                c @ Truth::Sym(_) => self.assume(&mut s, c, span),
            };
            if !in_set {
                return Arrival::Go(s); // not in the set: the stem goes on
            }
            if self.lasso.firsts.len() < MAX_LASSO_FIRSTS {
                self.lasso.firsts.push(s.clone());
            } else if self.lasso.open.is_empty() {
                self.lasso.open.push(format!("more than {MAX_LASSO_FIRSTS} runs reach the cycle head"));
            }
            let key = (s.data.is_concrete() && s.returned.is_none()).then(|| s.lasso_key());
            if key.is_none() && !self.opts.reading.guesses() && self.lasso.firsts.len() <= MAX_RECURRENCE_CHECKS {
                // Decision 96: a symbolic state in the set; one symbolic pass from every state
                // of the set may show that the set is closed.
                match self.recurrence_check(&s, &text) {
                    Ok(example) => {
                        let values = self.describe(&mut s, &text);
                        self.violated = Some(self.opts.target.name());
                        let what = format!(
                            "the recurrent set `{text}` is reached at the cycle head (entered at line {line}: {values}) and is \
                             closed: from every state in it, each pass the loop part allows comes back to the head \
                             inside it (one symbolic pass, bit-precise)"
                        );
                        // The stem and one pass when a returning path of `s` was found.
                        let shown = example.unwrap_or_else(|| s.clone());
                        return Arrival::Confirm(self.confirm(&shown, what));
                    }
                    Err(why) => self.lasso.open.push(why),
                }
            }
            s.heads = Some(Rc::new(HeadVisit { parent: None, key, count: 1, trace: s.trace.clone() }));
            return Arrival::Go(s);
        };
        let count = prev.count + 1;
        let closed = match &truth {
            Truth::Known(b) => *b,
            Truth::Sym(c) => self.smt.check(&s.data.path.conjuncts(), &[&c.not()]) == Feasibility::Infeasible,
        };
        if !closed {
            let values = self.describe(&mut s, &text);
            self.lasso.open.push(format!(
                "the recurrent set is not closed: at visit {count} of the cycle head (entered at line {line}), {values} is not in `{text}`"
            ));
            return Arrival::Drop;
        }
        if !s.data.is_concrete() || s.returned.is_some() {
            self.lasso.open.push(format!(
                "at visit {count} of the cycle head (entered at line {line}) the state is symbolic: the recurrent set `{text}` is not proven closed"
            ));
            return Arrival::Drop;
        }
        let key = s.lasso_key();
        let mut cur = Some(prev.clone());
        while let Some(v) = cur {
            if v.key.as_ref() == Some(&key) {
                let passes = count - v.count;
                let values = self.describe(&mut s, &text);
                self.violated = Some(self.opts.target.name());
                let what = format!(
                    "the state at the cycle head (entered at line {line}: {values}) repeats after {passes} pass{} of the loop, every visit in the recurrent set `{text}`",
                    if passes == 1 { "" } else { "es" }
                );
                let mut verdict = self.confirm(&s, what);
                self.mark_visits(&mut verdict, &mut s, &prev, v.count, &text);
                return Arrival::Confirm(verdict);
            }
            cur = v.parent.clone();
        }
        // Issue 19: a concrete run that has not repeated yet (a counter that wraps only after 2^32
        // passes) may still be shown endless by one symbolic pass from every state of the set
        // (decision 96), tried once per path.
        if count == SYMBOLIC_AFTER_VISITS && !self.opts.reading.guesses() && self.lasso.checks < MAX_RECURRENCE_CHECKS {
            self.lasso.checks += 1;
            match self.recurrence_check(&s, &text) {
                Ok(example) => {
                    let values = self.describe(&mut s, &text);
                    self.violated = Some(self.opts.target.name());
                    let what = format!(
                        "the recurrent set `{text}` is reached at the cycle head (entered at line {line}: {values}, visit \
                         {count} of a run whose state had not repeated) and is closed: from every state in it, each pass \
                         the loop part allows comes back to the head inside it (one symbolic pass, bit-precise)"
                    );
                    let shown = example.unwrap_or_else(|| s.clone());
                    return Arrival::Confirm(self.confirm(&shown, what));
                }
                Err(why) => self.lasso.open.push(why),
            }
        }
        if count >= MAX_HEAD_VISITS {
            self.lasso.open.push(format!(
                "the state at the cycle head (entered at line {line}) did not repeat within {MAX_HEAD_VISITS} visits"
            ));
            return Arrival::Drop;
        }
        s.heads = Some(Rc::new(HeadVisit { parent: Some(prev), key: Some(key), count, trace: s.trace.clone() }));
        Arrival::Go(s)
    }
}
