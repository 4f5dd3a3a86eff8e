//! Explanations (decision 78): an observer of the search. The explorer reports what it sees
//! (the witness states its paths reach, the transitions where they die, the branches they take
//! the other way) and [`Explanation`] keeps what explains a rejection best: the dead end
//! nearest to a violation state, else where the run got furthest. Invariant: nothing here
//! changes which states are explored or the verdict.

use super::*;

/// First and last line of a CFA step.
type LineSpan = (u32, u32);

/// What the search showed about where the witness's run stops.
pub(super) struct Explanation {
    /// Dead ends are noted (not in permissive or test-vector runs, which explain nothing).
    enabled: bool,
    /// The dead end nearest to a violation state (its source state's distance).
    dead_end: Option<(u32, InfeasibleStep)>,
    /// The witness state nearest to a violation state that an explored state was in (its
    /// distance), and that state: where the witness's run got furthest.
    furthest: Option<(u32, NodeIndex, ProductState)>,
    /// Branch transitions (YAML `branching`, GraphML `control`) whose location a step of an
    /// allowed path reached while taking the other branch: the step's text, first seen. Turns a
    /// `no-progress` explanation at such a transition into `branch`.
    wrong_branch: HashMap<EdgeIndex, String>,
    /// Transitions towards a violation state that a run turned away from: a branch it took
    /// whose other side leads to the transition's line, with the condition's value, first seen
    /// (issue 21: the earliest point where the witness and the runs part ways).
    turned_away: HashMap<EdgeIndex, String>,
    /// Per (CFA branch edge, witness transition): whether taking the branch turns away from the
    /// transition's lines (the CFA walk is done once per pair, not once per step).
    turns: HashMap<(EdgeIndex, EdgeIndex), bool>,
}

impl Explanation {
    pub(super) fn new(enabled: bool) -> Explanation {
        Explanation {
            enabled,
            dead_end: None,
            furthest: None,
            wrong_branch: HashMap::new(),
            turned_away: HashMap::new(),
            turns: HashMap::new(),
        }
    }

    /// The explored state nearest to a violation state (issue 35 item 8: a rejection shows its run).
    pub(super) fn furthest_state(&self) -> Option<&ProductState> {
        self.furthest.as_ref().map(|(_, _, s)| s)
    }

    /// An explored state is in a witness state `d` transitions from a violation state.
    pub(super) fn reached(&mut self, d: u32, state: &ProductState) {
        // Nearest to a violation state first; of those, the run that went on longest (the
        // longest prefix the program and the witness share, issue 35 item 8).
        let depth = |s: &ProductState| s.trace.as_ref().map_or(0, |t| t.depth);
        let better = match &self.furthest {
            None => true,
            Some((best, _, s)) => d < *best || (d == *best && depth(state) > depth(s)),
        };
        if better {
            self.furthest = Some((d, state.witness, state.clone()));
        }
    }

    /// The transition out of the furthest witness state towards a violation state that no
    /// step passed, and the product state that got there.
    pub(super) fn furthest_transition(
        &self,
        w: &WitnessAutomaton,
        distance: &HashMap<NodeIndex, u32>,
    ) -> Option<(EdgeIndex, ProductState)> {
        let (_, _, s) = self.furthest.as_ref()?;
        Some((self.next_from_furthest(w, distance)?, s.clone()))
    }

    /// The first transition out of the furthest witness state towards a violation state (the
    /// one no step passed).
    fn next_from_furthest(&self, w: &WitnessAutomaton, distance: &HashMap<NodeIndex, u32>) -> Option<EdgeIndex> {
        let (d, q, _) = self.furthest.as_ref()?;
        w.graph
            .edges_directed(*q, Direction::Outgoing)
            .filter(|t| distance.get(&t.target()).is_some_and(|x| x < d))
            .min_by_key(|t| t.id())
            .map(|t| t.id())
    }

    /// Would a dead end at a transition out of a state `d` transitions from a violation state
    /// be kept (it is nearer than the one noted so far)?
    pub(super) fn wants_dead_end(&self, d: u32) -> bool {
        self.enabled && self.dead_end.as_ref().is_none_or(|(best, _)| *best > d)
    }

    /// A path dies at a transition out of a state `d` transitions from a violation state.
    pub(super) fn dead_end(&mut self, d: u32, step: InfeasibleStep) {
        if self.wants_dead_end(d) {
            self.dead_end = Some((d, step));
        }
    }

    /// The search's own conclusion (a lasso's stem, decision 95) replaces any dead end.
    pub(super) fn conclude(&mut self, step: InfeasibleStep) {
        self.dead_end = Some((0, step));
    }

    pub(super) fn has_dead_end(&self) -> bool {
        self.dead_end.is_some()
    }

    /// Dead ends are noted at all (not in permissive or test-vector runs).
    pub(super) fn enabled(&self) -> bool {
        self.enabled
    }

    /// A run in `t`'s source state took a branch away from `t`'s line (`how`: the branch and
    /// the condition's value).
    pub(super) fn turned_away(&mut self, t: EdgeIndex, how: String) {
        self.turned_away.entry(t).or_insert(how);
    }

    /// Whether a turn away from `t` is known already.
    pub(super) fn knows_turn_away(&self, t: EdgeIndex) -> bool {
        self.turned_away.contains_key(&t)
    }

    /// A step of an allowed path decided branch transition `t`'s construct the other way.
    pub(super) fn other_branch(&mut self, t: EdgeIndex, taken: &str) {
        self.wrong_branch.entry(t).or_insert_with(|| taken.to_string());
    }

    /// Whether `t`'s branch was seen taken the other way already.
    pub(super) fn knows_other_branch(&self, t: EdgeIndex) -> bool {
        self.wrong_branch.contains_key(&t)
    }

    /// The explanation: the nearest dead end, else where the run got furthest.
    pub(super) fn best(&self, w: &WitnessAutomaton, distance: &HashMap<NodeIndex, u32>) -> Option<InfeasibleStep> {
        self.dead_end.clone().map(|(_, i)| i).or_else(|| self.furthest_step(w, distance))
    }

    /// Decision 78: where the witness's run got furthest, when no transition was seen to fail
    /// there: the first transition out of that state towards a violation state, which no step
    /// of an allowed path passed.
    pub(super) fn furthest_step(
        &self,
        w: &WitnessAutomaton,
        distance: &HashMap<NodeIndex, u32>,
    ) -> Option<InfeasibleStep> {
        let (d, q) = self.furthest.as_ref().map(|(d, q, _)| (*d, *q))?;
        let t = self.next_from_furthest(w, distance)?;
        let tr = &w.graph[t];
        let line = match &tr.guard.anchor {
            Some(a) => a.line,
            None => tr.guard.lines.map(|l| l.start as u32).unwrap_or(0),
        };
        if let Some(taken) = self.wrong_branch.get(&t) {
            let required = match (&tr.decision, tr.guard.control) {
                (Some(DecisionValue::Bool(b)), _) => format!("the condition to be {b}"),
                (Some(DecisionValue::Case(v)), _) => format!("`case {v}`"),
                (Some(DecisionValue::Default), _) => "`default`".to_string(),
                (None, Some(Control::ConditionTrue)) => "the condition to be true".to_string(),
                (None, _) => "the condition to be false".to_string(),
            };
            let what = format!(
                "the branch goes the other way: the witness requires {required}, but the paths it allows reach this \
                 branch only taking `{taken}` (the required way is infeasible there or cannot reach the error)"
            );
            return Some(InfeasibleStep { line, origin: tr.origin.clone(), what, kind: "branch" });
        }
        let goal = if is_lasso(w) { "its cycle head" } else { "a violation node" };
        let turned = self.turned_away.get(&t).map(|how| format!("; the runs turn away {how}")).unwrap_or_default();
        let what = format!(
            "the witness's run gets no further than node {} ({d} transition{} from {goal}): no step of a path it \
             allows passes this transition{turned}",
            w.graph[q].id,
            if d == 1 { "" } else { "s" }
        );
        Some(InfeasibleStep { line, origin: tr.origin.clone(), what, kind: "no-progress" })
    }
}

/// The explorer's reports to its [`Explanation`].
impl<'a> Explorer<'a> {
    /// The distance to a violation state of transition `t`'s source.
    fn dead_end_distance(&self, t: EdgeIndex) -> Option<u32> {
        let (from, _) = self.witness.graph.edge_endpoints(t)?;
        Some(self.distance.get(&from).copied().unwrap_or(u32::MAX))
    }

    /// Notes where the witness's path ends if it got nearer to a violation state than before.
    pub(super) fn note_dead_end(&mut self, t: EdgeIndex, info: &StepInfo, kind: &'static str, what: String) {
        let Some(d) = self.dead_end_distance(t) else { return };
        if !self.explain.wants_dead_end(d) {
            return;
        }
        // A YAML waypoint names its own line (an `assumption` is evaluated on arrival there).
        let line = match &self.witness.graph[t].guard.anchor {
            Some(a) => a.line,
            None => info.span.map(|s| s.start_line).unwrap_or(0),
        };
        let step = InfeasibleStep { line, origin: self.witness.graph[t].origin.clone(), what, kind };
        self.explain.dead_end(d, step);
    }

    /// Remembers a false assumption if it is the nearest to a violation state so far.
    pub(super) fn note_infeasible(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        conjunct: usize,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) {
        if !self.dead_end_distance(t).is_some_and(|d| self.explain.wants_dead_end(d)) {
            return;
        }
        let pieces: Vec<String> = a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)).collect();
        let Some(text) = pieces.get(conjunct).cloned() else { return };
        let what = match self.operand_value(s, &text, a, info) {
            Some(v) => format!("assumption `{text}` is false ({v})"),
            None => format!("assumption `{text}` is false"),
        };
        self.note_dead_end(t, info, "assumption", what);
    }

    /// `x is V`: the left operand of a comparison conjunct and its value in `s`, when known.
    pub(super) fn operand_value(
        &mut self,
        s: &mut ProductState,
        text: &str,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Option<String> {
        let function = match &a.scope {
            Some(name) => self.cfa.witness_function(name),
            None => Some(info.scope_function),
        };
        self.left_operand_value(s, text, function, info.span.map(|s| s.start_offset), info.result.as_ref())
    }

    /// Issue 21: the value of a branch condition's left operand in the state after the branch
    /// (`x is 3 there`), for a `sink` explanation; `text` is the step's text (`[!(x > 10)]`).
    pub(super) fn branch_operand_value(&mut self, s: &ProductState, text: &str, info: &StepInfo) -> Option<String> {
        let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
        let inner = inner.strip_prefix("!(").and_then(|i| i.strip_suffix(')')).unwrap_or(inner);
        let mut s = s.clone();
        let offset = info.span.map(|s| s.start_offset);
        self.left_operand_value(&mut s, inner, Some(info.scope_function), offset, info.result.as_ref())
    }

    /// Issue 21: the run in `before` took the branch `e` (reaching `after`); for each
    /// transition out of its witness state towards a violation state that names lines, if the
    /// branch's other side reaches a step on those lines within a few steps and this side does
    /// not, that is where the run turned away from the witness: noted with the condition's value.
    pub(super) fn note_turn_away(
        &mut self,
        before: &ProductState,
        e: EdgeIndex,
        after: &ProductState,
        info: &StepInfo,
    ) {
        const LOOKAHEAD: usize = 24;
        let (cfa, w) = (self.cfa, self.witness);
        let Some(d) = self.distance.get(&before.witness).copied() else { return };
        let towards: Vec<(EdgeIndex, crate::witness::Range)> = w
            .graph
            .edges_directed(before.witness, Direction::Outgoing)
            .filter(|t| self.distance.get(&t.target()).is_some_and(|x| *x < d))
            .filter(|t| !self.explain.knows_turn_away(t.id()))
            .filter_map(|t| t.weight().guard.lines.map(|l| (t.id(), l)))
            .collect();
        if towards.is_empty() {
            return;
        }
        // Which lines a few steps from `from` reach, within the function.
        let near = |from: NodeIndex| -> Vec<LineSpan> {
            let mut seen = HashSet::new();
            let mut todo = vec![from];
            let mut lines = Vec::new();
            while let Some(n) = todo.pop() {
                if seen.len() >= LOOKAHEAD || !seen.insert(n) {
                    continue;
                }
                for x in cfa.graph.edges_directed(n, Direction::Outgoing) {
                    if let Some(sp) = x.weight().span {
                        lines.push((sp.start_line, sp.end_line));
                    }
                    todo.push(x.target());
                }
            }
            lines
        };
        let Some((source, this_side)) = cfa.graph.edge_endpoints(e) else { return };
        // The lines near this side and near the other sides, walked once for all transitions.
        let mut walked: Option<(Vec<LineSpan>, Vec<LineSpan>)> = None;
        for (t, l) in towards {
            let turns = match self.explain.turns.get(&(e, t)) {
                Some(&known) => known,
                None => {
                    let (here, there) = walked.get_or_insert_with(|| {
                        let here = near(this_side);
                        let there = cfa
                            .graph
                            .edges_directed(source, Direction::Outgoing)
                            .filter(|x| x.id() != e)
                            .flat_map(|x| near(x.target()))
                            .collect();
                        (here, there)
                    });
                    let on = |v: &[LineSpan]| v.iter().any(|(a, b)| l.overlaps(*a as u64, *b as u64));
                    let turns = on(there) && !on(here);
                    self.explain.turns.insert((e, t), turns);
                    turns
                }
            };
            if turns {
                let text = cfa.edge(e).text.clone();
                let line = cfa.edge(e).span.map(|s| s.start_line).unwrap_or(0);
                let value = self.branch_operand_value(after, &text, info).map(|v| format!(": {v}")).unwrap_or_default();
                self.explain.turned_away(t, format!("at line {line}, taking `{text}`{value}"));
            }
        }
    }

    /// The explanation of this exploration (decision 78). Issue 21: where the run got no
    /// further and the transition it did not pass has an assumption, the value its left operand
    /// had on the run that got furthest (`x is 3 on the run that got furthest`).
    pub(super) fn explanation(&mut self) -> Option<InfeasibleStep> {
        if let Some(step) = &self.out_of_reach {
            return Some(step.clone());
        }
        let mut step = self.explain.best(self.witness, &self.distance)?;
        if step.kind != "no-progress" {
            return Some(step);
        }
        let Some((t, mut state)) = self.explain.furthest_transition(self.witness, &self.distance) else {
            return Some(step);
        };
        let Some(a) = self.witness.graph[t].assumption.clone() else { return Some(step) };
        let first = a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)).next();
        let function = match &a.scope {
            Some(name) => self.cfa.witness_function(name),
            None => Some(state.stack.last().map(|c| c.callee).unwrap_or(self.cfa.main)),
        };
        if let Some(value) = first.and_then(|text| self.left_operand_value(&mut state, &text, function, None, None)) {
            let value = value.strip_suffix(" there").unwrap_or(&value).to_string();
            step.what = format!("{} ({value} on the run that got furthest)", step.what);
        }
        Some(step)
    }

    /// `x is V`: the left operand of a comparison and its value in `s`, when known.
    fn left_operand_value(
        &mut self,
        s: &mut ProductState,
        text: &str,
        function: Option<crate::cfa::FuncId>,
        offset: Option<usize>,
        result: Option<&AnyValue>,
    ) -> Option<String> {
        let cfa = self.cfa;
        // A lone `=` is the equality of older witnesses (`castToLong = -1;`); it comes after the
        // operators it is part of, so `<=` and `==` still find their own left operand.
        let ops = ["==", "!=", "<=", ">=", "<", ">", "="];
        let at = ops.iter().filter_map(|op| text.find(op)).min()?;
        let lhs = text[..at].trim();
        if lhs.is_empty() {
            return None;
        }
        let scope = AssumptionScope { function, offset, result_ty: result.map(|v| v.ty()), ..Default::default() };
        let rendered = match crate::cfront::lower_assumption_value(cfa, lhs, &scope).ok()? {
            e if e.int_ty().is_some() => {
                let v = s.data.eval(cfa, &e, result).ok()?.value;
                as_i128(v.known()? as u64, v.ty).to_string()
            }
            f if f.float_ty().is_some() => {
                let mut defined = Vec::new();
                let v = s.data.eval_float(cfa, &f, result, &mut defined).ok()?;
                match v.val {
                    FVal::Conc(bits) => crate::semantics::float::render(bits, v.fty),
                    FVal::Sym(_) => return None,
                }
            }
            _ => return None,
        };
        Some(format!("{lhs} is {rendered} there"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(line: u32) -> InfeasibleStep {
        InfeasibleStep { line, origin: String::new(), what: format!("dies at {line}"), kind: "assumption" }
    }

    #[test]
    fn the_dead_end_nearest_to_a_violation_is_kept() {
        let mut graph = petgraph::graph::DiGraph::new();
        let entry = graph.add_node(crate::witness::WitnessState::default());
        let w = WitnessAutomaton {
            graph,
            entry,
            metadata: Default::default(),
            warnings: Vec::new(),
            format: String::new(),
            exact_locations: true,
            invariants: Vec::new(),
        };
        let mut e = Explanation::new(true);
        e.dead_end(3, step(10));
        e.dead_end(1, step(20));
        e.dead_end(2, step(30));
        assert_eq!(e.best(&w, &HashMap::new()).map(|s| s.line), Some(20));
        // A conclusion of the search replaces every dead end.
        e.conclude(step(40));
        assert_eq!(e.best(&w, &HashMap::new()).map(|s| s.line), Some(40));
    }

    #[test]
    fn a_run_that_explains_nothing_notes_no_dead_end() {
        let mut e = Explanation::new(false);
        assert!(!e.wants_dead_end(0));
        e.dead_end(0, step(10));
        assert!(!e.has_dead_end());
        e.other_branch(EdgeIndex::new(0), "x > 0");
        e.other_branch(EdgeIndex::new(0), "x <= 0");
        assert_eq!(e.wrong_branch.get(&EdgeIndex::new(0)).map(String::as_str), Some("x > 0"));
    }
}
