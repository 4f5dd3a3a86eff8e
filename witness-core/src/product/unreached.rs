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
