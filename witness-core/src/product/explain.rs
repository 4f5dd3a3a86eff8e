//! Explanations: where the witness's path died nearest to a violation, for reports.

use super::*;

impl<'a> Explorer<'a> {
    /// Remembers a false assumption if it is the nearest to a violation state so far.
    pub(super) fn note_infeasible(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        conjunct: usize,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) {
        if self.opts.permissive || self.opts.vector.is_some() || !self.nearer_dead_end(t) {
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

    /// Decision 78: where the witness's run got furthest, when no transition was seen to fail
    /// there: the first transition out of that state towards a violation state, which no step
    /// of an allowed path passed.
    pub(super) fn furthest_step(&self) -> Option<InfeasibleStep> {
        let (d, q) = self.furthest?;
        let w = self.witness;
        let t = w
            .graph
            .edges_directed(q, Direction::Outgoing)
            .filter(|t| self.distance.get(&t.target()).is_some_and(|x| *x < d))
            .min_by_key(|t| t.id())?;
        let tr = &w.graph[t.id()];
        let line = match &tr.guard.anchor {
            Some(a) => a.line,
            None => tr.guard.lines.map(|l| l.start as u32).unwrap_or(0),
        };
        if let Some(taken) = self.wrong_branch.get(&t.id()) {
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
        let what = format!(
            "the witness's run gets no further than node {} ({d} transition{} from {goal}): no step of a path it \
             allows passes this transition",
            w.graph[q].id,
            if d == 1 { "" } else { "s" }
        );
        Some(InfeasibleStep { line, origin: tr.origin.clone(), what, kind: "no-progress" })
    }

    /// Is transition `t` nearer to a violation state than the dead end noted so far?
    pub(super) fn nearer_dead_end(&self, t: EdgeIndex) -> bool {
        let Some((from, _)) = self.witness.graph.edge_endpoints(t) else { return false };
        let d = self.distance.get(&from).copied().unwrap_or(u32::MAX);
        self.infeasible.as_ref().is_none_or(|(best, _)| *best > d)
    }

    /// Notes where the witness's path ends if it got nearer to a violation state than before.
    pub(super) fn note_dead_end(&mut self, t: EdgeIndex, info: &StepInfo, kind: &'static str, what: String) {
        if self.opts.permissive || self.opts.vector.is_some() || !self.nearer_dead_end(t) {
            return;
        }
        let Some((from, _)) = self.witness.graph.edge_endpoints(t) else { return };
        let d = self.distance.get(&from).copied().unwrap_or(u32::MAX);
        // A YAML waypoint names its own line (an `assumption` is evaluated on arrival there).
        let line = match &self.witness.graph[t].guard.anchor {
            Some(a) => a.line,
            None => info.span.map(|s| s.start_line).unwrap_or(0),
        };
        let step = InfeasibleStep { line, origin: self.witness.graph[t].origin.clone(), what, kind };
        self.infeasible = Some((d, step));
    }

    /// `x is V`: the left operand of a comparison conjunct and its value in `s`, when known.
    pub(super) fn operand_value(
        &mut self,
        s: &mut ProductState,
        text: &str,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Option<String> {
        let cfa = self.cfa;
        let ops = ["==", "!=", "<=", ">=", "<", ">"];
        let at = ops.iter().filter_map(|op| text.find(op)).min()?;
        let lhs = text[..at].trim();
        if lhs.is_empty() {
            return None;
        }
        let function = match &a.scope {
            Some(name) => cfa.function_by_name(name),
            None => Some(info.scope_function),
        };
        let scope = AssumptionScope {
            function,
            offset: info.span.map(|s| s.start_offset),
            result_ty: info.result.as_ref().map(|v| v.ty()),
        };
        let rendered = match crate::cfront::lower_assumption_value(cfa, lhs, &scope).ok()? {
            Rvalue::Int(e) => {
                let v = s.data.eval(cfa, &e, info.result.as_ref()).ok()?.value;
                as_i128(v.known()? as u64, v.ty).to_string()
            }
            Rvalue::Float(f) => {
                let mut defined = Vec::new();
                let v = s.data.eval_float(cfa, &f, info.result.as_ref(), &mut defined).ok()?;
                match v.val {
                    FVal::Conc(bits) => crate::semantics::float::render(bits, v.fty),
                    FVal::Sym(_) => return None,
                }
            }
            Rvalue::Ptr(_) => return None,
        };
        Some(format!("{lhs} is {rendered} there"))
    }
}
