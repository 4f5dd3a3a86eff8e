//! Decision 213: a violation witness whose violation no run can reach because a branch on the
//! way is never taken (its condition is false for every value its variables' types allow, as
//! `s > 65025` for an `unsigned char s`) is rejected before the search, and the reason names the
//! branch. The search would reject it too, after unrolling every run up to that branch.

use super::*;
use crate::property::Shape;
use crate::reach::{never_taken, reachable_without, type_range};

/// Most never-taken branches the reason names.
const MAX_NAMED: usize = 3;
/// Most never-taken branches tried as the cause (one walk of the CFA each).
const MAX_WALKS: usize = 64;

impl<'a> Explorer<'a> {
    /// Why no run can fire a transition into a violation node of the witness, when the only
    /// cause is a never-taken branch; `None` otherwise (the search decides). Over-approximates
    /// the steps a transition may match (its lines, its anchor's construct, call or statement,
    /// however the reading matches), so it concludes only when none is reachable.
    pub(super) fn violation_out_of_reach(&self) -> Option<InfeasibleStep> {
        let (cfa, w) = (self.cfa, self.witness);
        // Under `--undefined-behaviour unknown`, possible undefined behaviour anywhere on an
        // allowed path forbids a rejection; a never-taken branch speaks of defined executions
        // only, so the search decides.
        if !matches!(self.opts.target.shape(), Shape::ErrorCall)
            || matches!(self.opts.undefined, UndefinedBehaviour::Unknown)
            || self.observer.is_some()
            || !self.opts.reading.follows_automaton()
            || w.graph[w.entry].violation
        {
            return None;
        }
        let never = never_taken(cfa);
        if never.is_empty() {
            return None;
        }
        let excluded: HashSet<EdgeIndex> = never.iter().map(|(e, _)| *e).collect();
        // The CFA locations from which a step may fire a transition into a violation node.
        let mut goals: HashSet<NodeIndex> = HashSet::new();
        let mut lines = Vec::new();
        let mut origin = None;
        for t in w.graph.edge_indices() {
            let (_, to) = w.graph.edge_endpoints(t)?;
            if !w.graph[to].violation {
                continue;
            }
            let tr = &w.graph[t];
            origin.get_or_insert_with(|| tr.origin.clone());
            let span_lines = lasso::transition_lines(tr);
            lines.extend(span_lines);
            let anchor = match (&tr.guard.anchor, self.anchors.get(&t)) {
                (Some(_), None) => return None, // not resolved: other stages say why
                (Some(_), Some(a)) => Some(a),
                (None, _) if span_lines.is_none() => return None, // may match any step
                (None, _) => None,
            };
            if let Some(ResolvedAnchor::Statement { nodes, .. }) = anchor {
                goals.extend(nodes.iter().copied());
            }
            for e in cfa.graph.edge_references() {
                let edge = e.weight();
                let on_line =
                    span_lines.zip(edge.span).is_some_and(|(r, s)| r.overlaps(s.start_line as u64, s.end_line as u64));
                let by_anchor = match anchor {
                    Some(ResolvedAnchor::Branching { construct }) => {
                        edge.decision.as_ref().is_some_and(|d| d.construct == *construct)
                    }
                    Some(ResolvedAnchor::FunctionEnter { parens } | ResolvedAnchor::FunctionReturn { parens }) => {
                        edge.call_paren.is_some_and(|p| parens.contains(&p))
                    }
                    Some(ResolvedAnchor::Target { offsets }) => {
                        edge.span.is_some_and(|s| offsets.contains(&s.start_offset))
                    }
                    _ => false,
                };
                if (on_line || by_anchor) && !excluded.contains(&e.id()) {
                    goals.insert(e.source());
                }
            }
        }
        let reached = reachable_without(cfa, cfa.start, &excluded)?;
        if goals.iter().any(|g| reached[g.index()]) {
            return None;
        }
        // The branches that stand in the way: from where they lead, a goal is reachable (each
        // a walk of the CFA, so a bounded number of them).
        let blockers: Vec<&(EdgeIndex, Vec<(crate::cfa::VarId, crate::cfa::IntTy)>)> = never
            .iter()
            .filter(|(e, _)| cfa.graph.edge_endpoints(*e).is_some_and(|(from, _)| reached[from.index()]))
            .take(MAX_WALKS)
            .filter(|(e, _)| {
                let to = cfa.graph.edge_endpoints(*e).map_or(cfa.start, |(_, to)| to);
                reachable_without(cfa, to, &excluded).is_some_and(|r| goals.iter().any(|g| r[g.index()]))
            })
            .take(MAX_NAMED)
            .collect();
        if blockers.is_empty() {
            return None; // unreachable whatever the branches: the search says so in its words
        }
        let named: Vec<String> = blockers
            .iter()
            .map(|(e, vars)| {
                let edge = cfa.edge(*e);
                let at = edge.span.map(|s| format!(" at line {}", s.start_line)).unwrap_or_default();
                let values: Vec<String> = vars
                    .iter()
                    .map(|(v, t)| {
                        let (lo, hi) = type_range(*t);
                        let kind = if t.is_bool {
                            "a `_Bool`".to_string()
                        } else {
                            format!(
                                "{} {}-bit {} integer",
                                if t.bits == 8 { "an" } else { "a" },
                                t.bits,
                                if t.signed { "signed" } else { "unsigned" }
                            )
                        };
                        format!("`{}` ({kind}: {lo} to {hi})", cfa.var(*v).name)
                    })
                    .collect();
                let of = if values.is_empty() { String::new() } else { format!(" of {}", values.join(", ")) };
                format!("the branch `{}`{at} is never taken: its condition is false for every value{of}", edge.text)
            })
            .collect();
        let line = lines.iter().map(|r| r.start).min().map(|l| format!(" (line {l})")).unwrap_or_default();
        Some(InfeasibleStep {
            line: blockers.first().and_then(|(e, _)| cfa.edge(*e).span).map(|s| s.start_line).unwrap_or(0),
            origin: origin.unwrap_or_default(),
            what: format!("no run of the program reaches the witness's violation{line}: {}", named.join("; ")),
            kind: "branch",
        })
    }
}

/// The source lines a thread can take steps on, or `None` when that is not known (a call
/// through a pointer, an unsupported statement in its code).
type CodeLines = Option<Vec<(u64, u64)>>;

impl<'a> Explorer<'a> {
    /// Decision 226: why no run can bring the witness to a violation node because each of its
    /// paths there has a transition that gives its thread a line that thread's code does not
    /// contain (a step of `thr2` attributed to the thread created as `thr1`); `None` otherwise.
    ///
    /// A transition with `threadId` w fires only on a step of the thread bound to w (a step of
    /// another thread does not match it; an id not bound yet matches no step, which the search
    /// treats as a narrowing: decision 97). So where w is bound on every path to the
    /// transition's source, it can fire only on a step of a thread the id was bound to: main,
    /// or a thread created by a step that a `createThread` w transition may match. Such a
    /// thread runs the functions reachable by calls from its start routine and from every
    /// `atexit` handler of the program, whoever registers it (decision 235), and takes its
    /// first step and its last return on its `pthread_create` line; a transition none of whose
    /// lines is among those lines never fires. Over-approximates the
    /// steps (any line of any function the thread could call, offsets ignored), so it concludes
    /// only when the violation nodes are out of reach whatever the program computes.
    pub(super) fn thread_out_of_reach(&self) -> Option<InfeasibleStep> {
        let (cfa, w) = (self.cfa, self.witness);
        if !cfa.threads
            || !matches!(self.opts.target.shape(), Shape::ErrorCall)
            || matches!(self.opts.undefined, UndefinedBehaviour::Unknown)
            || self.observer.is_some()
            || !self.opts.reading.follows_automaton()
            || w.graph[w.entry].violation
        {
            return None;
        }
        let bound = self.must_bound();
        let mut code: HashMap<&str, CodeLines> = HashMap::new();
        let mut dead: Vec<EdgeIndex> = Vec::new();
        for t in w.graph.edge_indices() {
            let tr = &w.graph[t];
            let (Some(id), Some(lines), None) = (tr.guard.thread_id.as_deref(), tr.guard.lines, &tr.guard.anchor)
            else {
                continue;
            };
            let (from, _) = w.graph.edge_endpoints(t)?;
            if !bound.get(&from).is_some_and(|b| b.contains(id)) {
                continue;
            }
            let Some(runs) = code.entry(id).or_insert_with(|| self.thread_lines(id)) else { continue };
            if !runs.iter().any(|(a, b)| lines.overlaps(*a, *b)) {
                dead.push(t);
            }
        }
        if dead.is_empty() {
            return None;
        }
        // The witness states the entry reaches without the dead transitions.
        let seen = witness_reach(w, w.entry, |t| dead.contains(&t));
        if seen.iter().any(|n| w.graph[*n].violation) {
            return None;
        }
        // The dead transitions that stand in the way: reachable, and leading on to a violation.
        let blockers: Vec<EdgeIndex> = dead
            .into_iter()
            .filter(|t| {
                w.graph
                    .edge_endpoints(*t)
                    .is_some_and(|(from, to)| seen.contains(&from) && self.distance.contains_key(&to))
            })
            .collect();
        let first = *blockers.first()?;
        let named: Vec<String> = blockers
            .iter()
            .take(MAX_NAMED)
            .map(|t| {
                let tr = &w.graph[*t];
                let id = tr.guard.thread_id.as_deref().unwrap_or_default();
                let lines = tr.guard.lines.map_or(String::new(), |r| {
                    if r.start == r.end {
                        format!("line {}", r.start)
                    } else {
                        format!("lines {}-{}", r.start, r.end)
                    }
                });
                let roots: Vec<String> = self
                    .code_roots(id)
                    .unwrap_or_default()
                    .iter()
                    .map(|f| format!("`{}`", cfa.function(*f).name))
                    .collect();
                format!(
                    "the transition at {} gives thread {id} a step on {lines}, but that thread runs {} and the \
                     functions they call, none of which has a statement there",
                    tr.origin,
                    roots.join(" or ")
                )
            })
            .collect();
        let tr = &w.graph[first];
        Some(InfeasibleStep {
            line: tr.guard.lines.map_or(0, |r| r.start as u32),
            origin: tr.origin.clone(),
            what: format!("no run of the program brings the witness to its violation node: {}", named.join("; ")),
            kind: "thread",
        })
    }

    /// For each witness state, the thread ids bound on every path from the entry to it.
    fn must_bound(&self) -> HashMap<NodeIndex, BTreeSet<String>> {
        let w = self.witness;
        let mut bound: HashMap<NodeIndex, BTreeSet<String>> = HashMap::new();
        // YAML 2.2 numbers threads: 0 is main from the start (decision 153).
        let start: BTreeSet<String> =
            if w.exact_locations { BTreeSet::from(["0".to_string()]) } else { BTreeSet::new() };
        bound.insert(w.entry, start);
        let mut todo = vec![w.entry];
        while let Some(n) = todo.pop() {
            let here = bound[&n].clone();
            for t in w.graph.edges_directed(n, Direction::Outgoing) {
                let g = &t.weight().guard;
                let mut out = here.clone();
                out.extend(g.thread_id.iter().cloned());
                out.extend(g.create_thread.as_ref().or(self.creates.get(&t.id())).cloned());
                let changed = match bound.get_mut(&t.target()) {
                    None => {
                        bound.insert(t.target(), out);
                        true
                    }
                    Some(old) => {
                        let meet: BTreeSet<String> = old.intersection(&out).cloned().collect();
                        let changed = meet.len() != old.len();
                        *old = meet;
                        changed
                    }
                };
                if changed {
                    todo.push(t.target());
                }
            }
        }
        bound
    }

    /// The functions a thread bound to witness id `id` may start in: main (an id may be bound
    /// to it), and the start routine of every `pthread_create` a `createThread` `id`
    /// transition may match (every creation when the transition has no line).
    /// `None` when such a creation starts a routine through a pointer (decision 248).
    fn thread_roots(&self, id: &str) -> Option<Vec<FuncId>> {
        let (cfa, w) = (self.cfa, self.witness);
        let mut roots = vec![cfa.main];
        for t in w.graph.edge_indices() {
            let g = &w.graph[t].guard;
            if g.create_thread.as_deref().or(self.creates.get(&t).map(|s| s.as_str())) != Some(id) {
                continue;
            }
            let lines = match (g.lines, &g.anchor) {
                (Some(r), None) => Some(r),
                _ => None,
            };
            for e in cfa.graph.edge_weights() {
                let EdgeOp::ThreadCreate { routine, .. } = &e.op else { continue };
                let on_line = match (lines, e.span) {
                    (Some(r), Some(s)) => r.overlaps(s.start_line as u64, s.end_line as u64),
                    (Some(_), None) => false,
                    (None, _) => true,
                };
                if !on_line {
                    continue;
                }
                let routine = routine.function()?;
                if !roots.contains(&routine) {
                    roots.push(routine);
                }
            }
        }
        Some(roots)
    }

    /// The functions whose code a thread bound to witness id `id` may run, with those they
    /// call: its possible start routines, and every `atexit` handler of the program (decision
    /// 235: a handler runs on whichever thread calls `exit`, or ends last after `main`'s
    /// `pthread_exit`, whoever registered it); `None` when the handlers are not known.
    fn code_roots(&self, id: &str) -> Option<Vec<FuncId>> {
        let mut roots = self.thread_roots(id)?;
        for h in atexit_handlers(self.cfa)? {
            if !roots.contains(&h) {
                roots.push(h);
            }
        }
        Some(roots)
    }

    /// The lines a thread bound to witness id `id` can take steps on (see
    /// [`Self::thread_out_of_reach`]).
    fn thread_lines(&self, id: &str) -> CodeLines {
        let cfa = self.cfa;
        let funcs = called_from(cfa, self.code_roots(id)?, |op| {
            matches!(op, EdgeOp::CallPtr { .. } | EdgeOp::Unsupported { .. })
        })?;
        let lines = cfa
            .graph
            .edge_weights()
            .filter(|e| {
                funcs.contains(&e.function)
                    || matches!(e.op, EdgeOp::ThreadCreate { .. } | EdgeOp::ProgramStart | EdgeOp::GlobalDeclaration)
            })
            .filter_map(|e| e.span)
            .map(|s| (s.start_line as u64, s.end_line as u64))
            .collect();
        Some(lines)
    }
}

/// Decision 235: the functions the program registers with `atexit` anywhere (in any thread's
/// code), or `None` when a statement anywhere is not understood: it may register a handler
/// (`atexit` with a handler that is not a function named directly, `on_exit`, `signal`,
/// `pthread_key_create`), and a handler may run on any thread. A call through a pointer needs
/// no such care: its callee is a function of the program, whose registrations are listed.
pub(super) fn atexit_handlers(cfa: &Cfa) -> Option<Vec<FuncId>> {
    let mut handlers = Vec::new();
    for e in cfa.graph.edge_weights() {
        match &e.op {
            EdgeOp::Unsupported { .. } => return None,
            EdgeOp::AtExit { handler, .. } if !handlers.contains(handler) => handlers.push(*handler),
            _ => {}
        }
    }
    Some(handlers)
}

/// The functions that `roots` may run: the roots and every function reachable from them by
/// calls and `atexit` registrations; `None` when one of them has a step `stops` holds of (a
/// call through a pointer: its callee is not known).
pub(super) fn called_from(cfa: &Cfa, roots: Vec<FuncId>, stops: impl Fn(&EdgeOp) -> bool) -> Option<Vec<FuncId>> {
    let mut funcs = roots;
    let mut i = 0;
    while i < funcs.len() {
        let f = funcs[i];
        i += 1;
        for e in cfa.graph.edge_weights().filter(|e| e.function == f) {
            if stops(&e.op) {
                return None;
            }
            if let EdgeOp::Call { callee: g, .. } | EdgeOp::AtExit { handler: g, .. } = &e.op {
                if !funcs.contains(g) {
                    funcs.push(*g);
                }
            }
        }
    }
    Some(funcs)
}

/// The witness states reachable from `from`, not through a transition `skip` holds of.
pub(super) fn witness_reach(
    w: &WitnessAutomaton,
    from: NodeIndex,
    skip: impl Fn(EdgeIndex) -> bool,
) -> HashSet<NodeIndex> {
    let mut seen = HashSet::from([from]);
    let mut todo = vec![from];
    while let Some(n) = todo.pop() {
        for t in w.graph.edges_directed(n, Direction::Outgoing) {
            if !skip(t.id()) && seen.insert(t.target()) {
                todo.push(t.target());
            }
        }
    }
    seen
}
