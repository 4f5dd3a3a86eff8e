//! Reading: places lost on a line with several candidates, and the case split over what
//! they mean (decision 98).

use super::*;

/// Most explorations of decision 98's case split.
pub(in crate::product) const MAX_CASES: usize = 256;

/// The sets of `places` (spans of steps) that some range of offsets overlaps, as a GraphML
/// guard's offsets do (both ends inclusive); None on a line too long to try every range.
pub(in crate::product) fn overlap_sets(places: &[(usize, usize)]) -> Option<Vec<Vec<(usize, usize)>>> {
    let lo = places.iter().map(|p| p.0).min()?;
    let hi = places.iter().map(|p| p.1).max()?;
    if hi - lo > 400 {
        return None;
    }
    // A range reaching past the places overlaps what its part in [lo, hi] overlaps.
    let mut sets = BTreeSet::new();
    for x in lo..=hi {
        for y in x..=hi {
            let set: Vec<(usize, usize)> = places.iter().copied().filter(|p| p.0 <= y && x <= p.1).collect();
            if !set.is_empty() {
                sets.insert(set);
            }
        }
    }
    Some(sets.into_iter().collect())
}

/// Decision 98: an exploration that fired transitions on a guess of the place each means
/// (`unknown`) is repeated once for every choice of those places, each transition pinned to
/// one set of the steps its line holds that a range of offsets can overlap. One of the choices
/// is what the witness's offsets meant, so when every choice confirms the witness is
/// confirmed, and when every choice rejects it is rejected; otherwise None.
pub(in crate::product) fn case_split(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
    aligned: Option<&HashMap<EdgeIndex, Range>>,
    guessed: &Outcome,
) -> Option<Outcome> {
    let mut choices = Vec::new();
    for (t, places) in &guessed.ambiguous {
        choices.push((*t, overlap_sets(places)?));
    }
    let total = choices.iter().try_fold(1usize, |n, (_, c)| n.checked_mul(c.len()).filter(|n| *n <= MAX_CASES))?;
    let mut first: Option<Outcome> = None;
    let (mut states, mut calls, mut confirmed, mut rejected) = (guessed.states, guessed.solver_calls, 0, 0);
    for k in 0..total {
        let mut rest = k;
        let mut pins = HashMap::new();
        for (t, c) in &choices {
            pins.insert(*t, c[rest % c.len()].clone());
            rest /= c.len();
        }
        let run = explore_once(cfa, witness, anchors, opts, reach, aligned, Some(&pins));
        states += run.states;
        calls += run.solver_calls;
        match run.verdict {
            Verdict::Confirmed { .. } => confirmed += 1,
            Verdict::Rejected => rejected += 1,
            Verdict::Unknown { .. } => return None,
        }
        if confirmed > 0 && rejected > 0 {
            return None;
        }
        if first.is_none() {
            first = Some(run);
        }
    }
    let mut out = first?;
    let what = if confirmed > 0 { "confirms" } else { "rejects" };
    out.warnings.push(format!(
        "{}; the witness {what} under each of the {total} choices of the places its transitions with unusable \
         offsets could mean",
        guessed.reason
    ));
    out.states = states;
    out.solver_calls = calls;
    Some(out)
}

/// Decision 98: the transitions whose place on their line is lost — GraphML offsets that
/// cannot be used on this file (preprocessed, or fitting no reading), YAML columns of a
/// preprocessed program — while their line holds several places they could mean (conditions
/// for a `control`, steps otherwise). Matching such a transition by its line alone may pick
/// another place than the witness's: neither more nor fewer runs, so no conclusion may rest
/// on a run that fires one.
pub(in crate::product) type Places = HashMap<EdgeIndex, Vec<(usize, usize)>>;

pub(in crate::product) fn approximate_transitions(ex: &Explorer) -> (HashMap<EdgeIndex, String>, Places) {
    let (cfa, w, plan) = (ex.cfa, ex.witness, &ex.offsets);
    let mut out = HashMap::new();
    let mut spans: Places = HashMap::new();
    // GraphML transitions with offsets this exploration cannot use, by their lines.
    let mut lost = Vec::new();
    for t in w.graph.edge_indices() {
        let tr = &w.graph[t];
        if let Some(a) = &tr.guard.anchor {
            if a.column.is_none() || cfa.line_exact(a.line) {
                continue;
            }
            let n = crate::anchors::candidates_on_line(cfa, a.kind, a.line);
            if n > 1 {
                out.insert(
                    t,
                    format!(
                        "the waypoint at {} could mean any of {n} places on line {} (its column is lost after \
                         preprocessing)",
                        tr.origin, a.line
                    ),
                );
            }
        } else if let (Some(_), Some(lines)) = (tr.guard.offsets, tr.guard.lines) {
            if plan.offsets_of(w, t).is_none() {
                lost.push((t, lines));
            }
        }
    }
    if lost.is_empty() {
        return (out, spans);
    }
    // The program's steps with their lines, read once for all such transitions.
    let steps: Vec<_> = cfa
        .graph
        .edge_references()
        .filter(|e| !matches!(e.weight().op, EdgeOp::Blank))
        .filter_map(|e| e.weight().span.map(|sp| (e, sp)))
        .collect();
    for (t, lines) in lost {
        // The steps of its lines the transition's guard (without offsets) matches.
        let mut places: Vec<(usize, usize)> = steps
            .iter()
            .filter(|(_, sp)| lines.overlaps(sp.start_line as u64, sp.end_line as u64))
            .filter(|(e, sp)| {
                let edge = e.weight();
                let info = StepInfo {
                    kind: StepKind::Edge(edge),
                    span: Some(*sp),
                    scope_function: edge.function,
                    target: e.target(),
                    result: None,
                    closure: Default::default(),
                };
                ex.guard_matches(t, &info)
            })
            .map(|(_, sp)| (sp.start_offset, sp.end_offset))
            .collect();
        places.sort_unstable();
        places.dedup();
        if places.len() > 1 {
            spans.insert(t, places.clone());
            let tr = &w.graph[t];
            out.insert(
                t,
                format!(
                    "the transition at {} could mean any of {} {} on line {} (its offsets cannot be used on this file)",
                    tr.origin,
                    places.len(),
                    if tr.guard.control.is_some() { "conditions" } else { "steps" },
                    lines.start
                ),
            );
        }
    }
    (out, spans)
}
