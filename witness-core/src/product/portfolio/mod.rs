//! The readings of a witness and how their explorations combine (decisions 8, 38, 55, 67, 97, 98):
//! which explorations run, in which order, and what each may conclude.
//!
//! This file holds the entry points and the order of the readings; each reading that can be
//! told apart lives beside it: `guessing` (decision 67), `shift` (38), `case_split` (98),
//! `free_run` (runs without the witness). Invariant: every reading's outcome passes the gate
//! (`explore_once`, or `gate` for a portfolio run under one guess) before it is combined here.

use super::*;

mod case_split;
mod free_run;
mod guessing;
mod shift;

pub(in crate::product) use case_split::*;
pub use free_run::run_test_vector;
pub(in crate::product) use free_run::*;
pub(in crate::product) use guessing::*;
pub(in crate::product) use shift::*;

/// Explores the product and returns the verdict.
/// `source` is the program's text, from which `cfa` was built.
pub fn explore(
    cfa: &Cfa,
    source: &str,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
) -> Outcome {
    // Issue 22 (decision 153): what the thread model does not cover.
    let unsupported = if opts.target.race() && !witness.exact_locations {
        Some("a data race in a GraphML witness: the format has no agreed form for it (SV-COMP excludes no-data-race from \
              GraphML validation)"
            .to_string())
    } else if cfa.threads && !(opts.target.race() || opts.target.shape() == crate::property::Shape::ErrorCall) {
        Some(format!("property {} on a multi-threaded program is not supported yet", opts.target.name()))
    } else {
        None
    };
    if let Some(reason) = unsupported {
        return Outcome::without_run(
            Verdict::Unknown { reason: reason.clone() },
            reason,
            false,
            Blame::Witness { origin: None },
        );
    }
    // Decision 95: a lasso's runs matter only while they can still enter the cycle head.
    let reach = match opts.target.lasso().then(|| head_seeds(cfa, witness, anchors)).flatten() {
        Some(seeds) => search_reach(cfa, opts, &seeds),
        None => search_reach(cfa, opts, &[]),
    };
    explore_with(cfa, source, witness, anchors, opts, &reach)
}

/// [`explore`] with the program's error reachability computed once for all its runs.
pub(super) fn explore_with(
    cfa: &Cfa,
    source: &str,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
) -> Outcome {
    // No run of the program calls an error function (or does anything that might hide one):
    // true, whatever the witness says.
    if !reach.may_reach(cfa.start, std::iter::empty()) {
        return Outcome::by_shortcut(
            Shortcut::Pruning,
            Outcome::without_run(
                Verdict::Rejected,
                if opts.target.lasso() {
                    "no step of the program can enter the witness's cycle head (its lines are never reached)".into()
                } else {
                    "the program has no reachable call of an error function: no run violates the property, whatever the \
                 witness"
                    .into()
                },
                false,
                Blame::Program,
            ),
        );
    }
    // No violation node is reachable in the witness graph: no run can be in a violation state
    // when the error is called (decision 8), whatever the program does.
    let graph_facts = opts.shortcuts.allows(Shortcut::WitnessGraph);
    if graph_facts
        && !witness.graph[witness.entry].violation
        && !violation_distance(witness).contains_key(&witness.entry)
    {
        return Outcome::by_shortcut(
            Shortcut::WitnessGraph,
            Outcome::without_run(
                Verdict::Rejected,
                if is_lasso(witness) {
                    "the witness's cycle head is not reachable from its entry node: no run allowed by the witness can \
                 visit it"
                        .into()
                } else {
                    "no violation node of the witness is reachable from its entry node: no run allowed by the witness \
                 can be in a violation state when the error happens"
                        .into()
                },
                false,
                Blame::Witness { origin: None },
            ),
        );
    }
    // Decision 38: transitions past the end of the program that cut every path to the
    // violation: no run can pass them (the exact reading rejects), unless the lines are off by
    // a constant. The shift is a guess: it may confirm, never reject (decision 97).
    if let Some((cut, origin)) = past_end_cut(cfa, witness).filter(|_| graph_facts) {
        let rejected = Outcome::by_shortcut(
            Shortcut::WitnessGraph,
            Outcome::without_run(Verdict::Rejected, cut.clone(), true, Blame::Witness { origin: Some(origin) }),
        );
        let Some(k) = unique_line_shift(cfa, witness) else { return rejected };
        let shifted = gate(&Reading::SHIFTED, explore_shifted(cfa, source, witness, anchors, opts, reach, k, &cut));
        if !shifted.raw_rejected {
            return shifted;
        }
        return Outcome {
            reason: format!("{cut}; with every line shifted by {k:+} no allowed path reaches the error either"),
            states: shifted.states,
            solver_calls: shifted.solver_calls,
            warnings: shifted.warnings,
            ..rejected
        };
    }
    // Issue 19: a witness none of whose transitions (with lines, on the way to the violation)
    // can match any step of the program was written for another program; no exploration can
    // tell anything about it, and one would spend the whole budget. Unknown at once.
    if let Some(why) = nothing_matches(cfa, witness) {
        if unique_line_shift(cfa, witness).is_none() {
            return Outcome::without_run(
                Verdict::Unknown { reason: why.clone() },
                why,
                false,
                Blame::Witness { origin: None },
            );
        }
    }
    // Decision 55: offsets from an edited copy of the program, aligned line by line. The
    // alignment is a guess, so only a confirmation may rest on it (the gate sees to that);
    // otherwise the witness is validated as before, by lines only.
    let mut aligned_note = None;
    if !opts.reading.loosens_matching() {
        let ignored = matches!(crate::offsets::plan(cfa, witness, &mut Vec::new()), OffsetPlan::Ignored);
        if let Some(map) = ignored.then(|| crate::offsets::align(cfa, source, witness)).flatten() {
            let note = format!(
                "no constant shift fits the witness's offsets (written for an edited copy of the program?); the \
                 `control` offsets of {} transition(s) were aligned line by line with this file's branch conditions",
                map.len()
            );
            let mut aligned = explore_once(cfa, witness, anchors, opts, reach, Some(&map), None);
            if matches!(aligned.verdict, Verdict::Unknown { .. }) && !aligned.ambiguous.is_empty() {
                if let Some(split) = case_split(cfa, witness, anchors, opts, reach, Some(&map), &aligned) {
                    aligned = split;
                }
            }
            if matches!(aligned.verdict, Verdict::Confirmed { .. }) {
                let mut aligned = aligned;
                aligned.warnings.insert(0, format!("{note}: confirmed with the aligned offsets"));
                return aligned;
            }
            aligned_note = Some((
                format!("{note}, but that reading does not confirm it ({}); validated by lines only", aligned.reason),
                aligned.states,
                aligned.solver_calls,
            ));
        }
    }
    if let Some(confirmed) =
        opts.shortcuts.allows(Shortcut::GuessingRun).then(|| guessing_run(cfa, witness, anchors, opts, reach)).flatten()
    {
        return Outcome::by_shortcut(Shortcut::GuessingRun, confirmed);
    }
    let mut outcome = explore_once(cfa, witness, anchors, opts, reach, None, None);
    // A rejection after reading unspecified union bytes ends `unknown` below whatever the split
    // finds (decision 37), so only a confirmation is worth splitting for then.
    let split_useful = !(outcome.raw_rejected && outcome.unspecified_read);
    if matches!(outcome.verdict, Verdict::Unknown { .. }) && !outcome.ambiguous.is_empty() && split_useful {
        if let Some(split) = case_split(cfa, witness, anchors, opts, reach, None, &outcome) {
            outcome = split;
        }
    }
    outcome.strict_rejected = outcome.raw_rejected;
    if let Some((note, states, calls)) = aligned_note {
        outcome.warnings.push(note);
        outcome.states += states;
        outcome.solver_calls += calls;
    }
    if matches!(outcome.verdict, Verdict::Rejected) {
        let doubt = if outcome.unspecified_read {
            // Decision 37: C leaves these bytes unspecified and producers model them
            // differently; a witness's values after such a read may describe the producer's model.
            Some(
                "the program reads union bytes that C leaves unspecified (a store through a smaller member, C11 \
                 6.2.6.1p7), and witness producers model such reads differently: no allowed path reaches the error \
                 with the bytes the machine keeps, but the witness's values may describe the producer's model"
                    .to_string(),
            )
        } else if let Some(unmatched) = unmatched_transition(cfa, witness) {
            // Decision 38: the witness needs steps on lines without a statement. Written for a
            // text with a few lines more or less, it fits this one after a constant shift.
            if let Some(k) = unique_line_shift(cfa, witness) {
                let shifted =
                    gate(&Reading::SHIFTED, explore_shifted(cfa, source, witness, anchors, opts, reach, k, &unmatched));
                outcome.states += shifted.states;
                outcome.solver_calls += shifted.solver_calls;
                if !shifted.raw_rejected {
                    let mut shifted = shifted;
                    shifted.states = outcome.states;
                    shifted.solver_calls = outcome.solver_calls;
                    shifted.strict_rejected = true;
                    shifted.infeasible = shifted.infeasible.or(outcome.infeasible);
                    return shifted;
                }
                outcome.warnings.extend(shifted.warnings);
                Some(format!("{unmatched}; with every line shifted by {k:+} no allowed path reaches the error either"))
            } else {
                Some(unmatched)
            }
        } else {
            None
        };
        if let Some(reason) = doubt {
            outcome.verdict = Verdict::Unknown { reason: reason.clone() };
            outcome.reason = reason;
            return outcome;
        }
    }
    // Exact source anchors (YAML) do not depend on the CFA's granularity: no double-check.
    if matches!(outcome.verdict, Verdict::Rejected) && !opts.reading.loosens_matching() && !witness.exact_locations {
        // Witness producers build CFAs of other granularity than ours; before claiming that
        // no allowed path reaches the error, make sure that holds under the most permissive
        // reading too. If that reading reaches the error, the witness is ambiguous: unknown.
        let lines_only = crate::offsets::unverified(cfa, source, witness);
        let permissive =
            ExploreOptions { reading: SearchReading::Permissive { lines_only }, target: opts.target.clone(), ..*opts };
        let second = explore_once(cfa, witness, anchors, &permissive, reach, None, None);
        let disagree = if lines_only {
            "the witness's offsets land on their lines but not all where steps of this file start, and the program \
             hash differs (written for a copy edited inside a line?): under them no allowed path reaches the error, \
             but by lines alone, read permissively, a path reaches it"
        } else {
            "the witness is ambiguous for this program: under the strict reading no allowed path reaches the error, \
             but a permissive reading (steps whose matching transitions all die are skipped, several transitions per \
             step) reaches it"
        };
        recheck_rejection(
            &mut outcome,
            second,
            disagree,
            "the strict reading rejects the witness, but the check under a permissive reading was inconclusive",
        );
    }
    outcome
}

/// Decision 97: a rejection found under one reading stands only if `second`, an exploration
/// under a reading that allows at least the same runs, finds no path either. If `second` finds
/// one, the readings `disagree` (unknown, with the line); if it decides nothing, the check was
/// `inconclusive` (unknown, with its reason). `second`'s warnings are not reported.
pub(super) fn recheck_rejection(outcome: &mut Outcome, second: Outcome, disagree: &str, inconclusive: &str) {
    outcome.states += second.states;
    outcome.solver_calls += second.solver_calls;
    // The second reading's own conclusion, after its gate (a doubt it met may forbid it).
    let reason = if matches!(second.verdict, Verdict::Rejected) {
        if !matches!(outcome.verdict, Verdict::Rejected) {
            outcome.verdict = Verdict::Rejected;
            outcome.reason = second.reason;
        }
        return;
    } else if let Some(line) = second.raw_confirmed {
        format!("{disagree} at line {line}")
    } else {
        format!("{inconclusive}: {}", second.reason)
    };
    outcome.verdict = Verdict::Unknown { reason: reason.clone() };
    outcome.reason = reason;
}

/// Decision 97: `outcome` of an exploration under `reading`, gated: a conclusion the reading
/// does not support becomes `unknown` (used where a whole portfolio ran under one guess).
pub(super) fn gate(reading: &Reading, mut outcome: Outcome) -> Outcome {
    let verdict = std::mem::replace(&mut outcome.verdict, Verdict::Rejected);
    let (verdict, why) = reading::conclude(reading, &Doubts::default(), verdict);
    outcome.verdict = verdict;
    if let Some(why) = why {
        outcome.reason = why;
    }
    outcome
}

/// BFS distance (in transitions) from each witness state to the nearest violation state.
/// A non-termination witness (a lasso with a cycle head).
pub(super) fn is_lasso(w: &WitnessAutomaton) -> bool {
    w.metadata.witness_type == Some(crate::witness::WitnessType::Termination)
}

pub(super) fn violation_distance(w: &WitnessAutomaton) -> HashMap<NodeIndex, u32> {
    let mut dist = HashMap::new();
    let mut queue = VecDeque::new();
    // A non-termination witness's target is its cycle head (decision 93).
    let lasso = is_lasso(w);
    for n in w.graph.node_indices() {
        if w.graph[n].violation || (lasso && w.graph[n].cycle_head) {
            dist.insert(n, 0);
            queue.push_back(n);
        }
    }
    while let Some(n) = queue.pop_front() {
        let d = dist[&n];
        for e in w.graph.edges_directed(n, Direction::Incoming) {
            let src = e.source();
            if w.graph[src].sink || w.graph[src].violation || dist.contains_key(&src) {
                continue;
            }
            dist.insert(src, d + 1);
            queue.push_back(src);
        }
    }
    dist
}
