//! The readings of a witness and how their explorations combine (decisions 8, 38, 55, 67, 97, 98):
//! which explorations run, in which order, and what each may conclude.

use super::*;

/// Most product states of one free run (decision 95).
pub(super) const FREE_RUN_MAX_STATES: u64 = 100_000;

/// Longest time one free run may take (a run that depends on nondeterministic values explodes).
pub(super) const FREE_RUN_MAX_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// Explores the product and returns the verdict.
/// `source` is the program's text, from which `cfa` was built.
pub fn explore(
    cfa: &Cfa,
    source: &str,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
) -> Outcome {
    // Decision 95: a lasso's runs matter only while they can still enter the cycle head.
    let reach = match opts.target.termination().then(|| head_seeds(cfa, witness, anchors)).flatten() {
        Some(seeds) => ErrorReach::towards(cfa, &seeds),
        None => ErrorReach::for_target(cfa, &opts.target),
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
        return Outcome::without_run(
            Verdict::Rejected,
            if opts.target.termination() {
                "no step of the program can enter the witness's cycle head (its lines are never reached)".into()
            } else {
                "the program has no reachable call of an error function: no run violates the property, whatever the \
                 witness"
                    .into()
            },
            false,
        );
    }
    // No violation node is reachable in the witness graph: no run can be in a violation state
    // when the error is called (decision 8), whatever the program does.
    if !witness.graph[witness.entry].violation && !violation_distance(witness).contains_key(&witness.entry) {
        return Outcome::without_run(
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
        );
    }
    // Decision 38: transitions past the end of the program that cut every path to the
    // violation: no run can pass them (the exact reading rejects), unless the lines are off by
    // a constant. The shift is a guess: it may confirm, never reject (decision 97).
    if let Some(cut) = past_end_cut(cfa, witness) {
        let rejected = Outcome::without_run(Verdict::Rejected, cut.clone(), true);
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
            return Outcome::without_run(Verdict::Unknown { reason: why.clone() }, why, false);
        }
    }
    // Decision 55: offsets from an edited copy of the program, aligned line by line. The
    // alignment is a guess, so only a confirmation may rest on it (the gate sees to that);
    // otherwise the witness is validated as before, by lines only.
    let mut aligned_note = None;
    if !opts.permissive {
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
    if let Some(confirmed) = guessing_run(cfa, witness, anchors, opts, reach) {
        return confirmed;
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
    if matches!(outcome.verdict, Verdict::Rejected) && !opts.permissive && !witness.exact_locations {
        // Witness producers build CFAs of other granularity than ours; before claiming that
        // no allowed path reaches the error, make sure that holds under the most permissive
        // reading too. If that reading reaches the error, the witness is ambiguous: unknown.
        let lines_only = crate::offsets::unverified(cfa, source, witness);
        let permissive = ExploreOptions {
            permissive: true,
            lines_only,
            target: opts.target.clone(),
            vector: opts.vector.clone(),
            guess: None,
            ..*opts
        };
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
            false,
            disagree,
            "the strict reading rejects the witness, but the check under a permissive reading was inconclusive",
        );
    }
    outcome
}

/// Decision 97: a rejection found under one reading stands only if `second`, an exploration
/// under a reading that allows at least the same runs, finds no path either. If `second` finds
/// one, the readings `disagree` (unknown, with the line); if it decides nothing, the check was
/// `inconclusive` (unknown, with its reason). `adopt_warnings`: `second`'s warnings are reported.
pub(super) fn recheck_rejection(
    outcome: &mut Outcome,
    second: Outcome,
    adopt_warnings: bool,
    disagree: &str,
    inconclusive: &str,
) {
    outcome.states += second.states;
    outcome.solver_calls += second.solver_calls;
    if adopt_warnings {
        outcome.warnings.extend(second.warnings);
    }
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

/// Most explorations of decision 98's case split.
pub(super) const MAX_CASES: usize = 256;

/// The sets of `places` (spans of steps) that some range of offsets overlaps, as a GraphML
/// guard's offsets do (both ends inclusive); None on a line too long to try every range.
pub(super) fn overlap_sets(places: &[(usize, usize)]) -> Option<Vec<Vec<(usize, usize)>>> {
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
pub(super) fn case_split(
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

/// Decision 67: before the exploration proper, the same exploration with concrete guesses for
/// the nondet values (the witness's values where it gives them, else 0), bounded in states and
/// time. Each guess is one of the values the call may return, so a path it finds to the error
/// is a feasible path the witness allows: the confirmation stands. Anything else it finds
/// (no path, unknown) says nothing, and `None` lets the exploration proper decide. Most
/// confirmations need no solver this way, and so no Z3 context (milliseconds per process).
pub(super) fn guessing_run(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
) -> Option<Outcome> {
    if opts.permissive || opts.vector.is_some() {
        return None;
    }
    let vector = crate::testvec::extract(cfa, witness, anchors).unwrap_or_default();
    let now = Instant::now();
    let guess_opts = ExploreOptions {
        deadline: opts.deadline.min(now + opts.deadline.saturating_duration_since(now) / 4),
        target: opts.target.clone(),
        vector: None,
        guess: Some(Rc::new(vector)),
        ..*opts
    };
    let outcome = explore_once(cfa, witness, anchors, &guess_opts, reach, None, None);
    matches!(outcome.verdict, Verdict::Confirmed { .. }).then_some(outcome)
}

/// [`explore`] with every line of the witness shifted by `k` (decision 38), saying why.
#[allow(clippy::too_many_arguments)]
pub(super) fn explore_shifted(
    cfa: &Cfa,
    source: &str,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
    k: i64,
    why: &str,
) -> Outcome {
    let moved = shift_lines(witness, k);
    let mut shifted = explore_with(cfa, source, &moved, anchors, opts, reach);
    // Issue 19, cause 3: a shift may confirm only if every value claim lands on a statement that
    // can carry it (its line names the claim's variables; a `\result` claim, a call).
    if matches!(shifted.verdict, Verdict::Confirmed { .. }) {
        let names: HashSet<&str> = cfa.vars.iter().map(|v| v.name.as_str()).collect();
        if let Some(why) = misplaced_claim(source, &moved, &names) {
            let reason = format!(
                "a path to the violation was found with every line shifted by {k:+}, but the shift misplaces a value \
                 claim: {why}"
            );
            shifted.verdict = Verdict::Unknown { reason: reason.clone() };
            shifted.reason = reason;
        }
    }
    shifted.warnings.insert(
        0,
        format!(
            "{why}; with every line shifted by {k:+} each of its transitions on the way to the violation lies on a \
             statement (and with no other shift up to {MAX_LINE_SHIFT}): validated with the shift"
        ),
    );
    shifted
}

/// Issue 19, cause 3: the first transition on the way to the violation whose assumption names
/// a variable of the program (one of `names`) its line does not mention, or claims `\result` on
/// a line without a call. Names of no program variable (a producer's own) are left out.
pub(super) fn misplaced_claim(source: &str, w: &WitnessAutomaton, names: &HashSet<&str>) -> Option<String> {
    static WORD: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let word = WORD.get_or_init(|| regex::Regex::new(r"\\?[A-Za-z_][A-Za-z0-9_]*").expect("regex"));
    let lines: Vec<&str> = source.lines().collect();
    for t in relevant_transitions(w) {
        let tr = &w.graph[t];
        let (Some(a), Some(r)) = (&tr.assumption, tr.guard.lines) else { continue };
        let text: String = (r.start..=r.end)
            .filter_map(|l| lines.get((l as usize).wrapping_sub(1)).copied())
            .collect::<Vec<_>>()
            .join("\n");
        let mentions: HashSet<&str> = word.find_iter(&text).map(|m| m.as_str()).collect();
        for e in &a.expressions {
            for m in word.find_iter(e) {
                let name = m.as_str();
                // Suffixes and hex digits of numbers (`1.0f`, `80u`, `0x1F`), members (`s.f`, `p->f`).
                let before = &e.as_bytes()[..m.start()];
                if before.last().is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.') || before.ends_with(b"->") {
                    continue;
                }
                let keyword = matches!(
                    name,
                    "sizeof"
                        | "NAN"
                        | "INFINITY"
                        | "HUGE_VAL"
                        | "HUGE_VALF"
                        | "int"
                        | "char"
                        | "short"
                        | "long"
                        | "unsigned"
                        | "signed"
                        | "float"
                        | "double"
                        | "void"
                        | "struct"
                        | "union"
                        | "enum"
                        | "_Bool"
                        | "const"
                        | "volatile"
                ) || name.starts_with(|c: char| c.is_ascii_digit());
                if keyword || (name != "\\result" && !names.contains(name)) {
                    continue;
                }
                let missing = if name == "\\result" { !text.contains('(') } else { !mentions.contains(name) };
                if missing {
                    return Some(format!(
                        "the assumption `{e}` at {} lands on line {}, which {}",
                        tr.origin,
                        r.start,
                        if name == "\\result" {
                            "holds no call".to_string()
                        } else {
                            format!("does not mention `{name}`")
                        }
                    ));
                }
            }
        }
    }
    None
}

/// Decision 98: the transitions whose place on their line is lost — GraphML offsets that
/// cannot be used on this file (preprocessed, or fitting no reading), YAML columns of a
/// preprocessed program — while their line holds several places they could mean (conditions
/// for a `control`, steps otherwise). Matching such a transition by its line alone may pick
/// another place than the witness's: neither more nor fewer runs, so no conclusion may rest
/// on a run that fires one.
pub(super) type Places = HashMap<EdgeIndex, Vec<(usize, usize)>>;

pub(super) fn approximate_transitions(ex: &Explorer) -> (HashMap<EdgeIndex, String>, Places) {
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

/// The reading an exploration with these options follows (decision 97). A test-vector run
/// follows no automaton: it is exact for what it checks (its inputs alone).
pub(super) fn reading_of(opts: &ExploreOptions, aligned: bool) -> Reading {
    if opts.permissive {
        Reading::PERMISSIVE
    } else if opts.guess.is_some() {
        Reading::GUESSED_VALUES
    } else if aligned {
        Reading::ALIGNED
    } else {
        Reading::EXACT
    }
}

/// Decision 95: runs the program from `init` without the witness (every nondeterministic
/// value free, possible undefined behaviour unknown), dropping the states from which `reach`'s
/// locations are out of reach. `Ok(states)` when every run ends or leaves them for good; the
/// reason otherwise (a state repeats, a path is undecided, the budget).
pub(super) fn free_run(
    cfa: &Cfa,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
    init: &ProductState,
) -> Result<u64, String> {
    let mut graph = petgraph::graph::DiGraph::new();
    let entry = graph.add_node(crate::witness::WitnessState { id: "free".into(), entry: true, ..Default::default() });
    let trivial = WitnessAutomaton {
        graph,
        entry,
        metadata: Default::default(),
        warnings: Vec::new(),
        format: "free run".into(),
        exact_locations: true,
    };
    let now = Instant::now();
    let fopts = ExploreOptions {
        deadline: opts.deadline.min(now + FREE_RUN_MAX_TIME.min(opts.deadline.saturating_duration_since(now) / 4)),
        permissive: false,
        // No event is a violation: the free run only visits the program's states.
        target: ErrorTarget::Reach { functions: Vec::new(), label: false },
        undefined: UndefinedBehaviour::Unknown,
        vector: None,
        guess: None,
        budget_secs: FREE_RUN_MAX_TIME.as_secs(),
        ..*opts
    };
    let mut ex = Explorer::new(cfa, &trivial, anchors, &fopts, reach);
    ex.distance.insert(entry, 0);
    ex.max_states = Some(FREE_RUN_MAX_STATES);
    let mut s = init.clone();
    s.witness = entry;
    s.heads = None;
    s.arrival = false;
    s.data.guessing = false;
    match ex.run_from(s) {
        Verdict::Rejected if ex.repeats == 0 => Ok(ex.states),
        Verdict::Rejected => Err("from the cycle head a program state repeats: the program may run forever".into()),
        Verdict::Unknown { reason } => Err(format!("the program's run from the cycle head is undecided: {reason}")),
        Verdict::Confirmed { .. } => Err("the program's run from the cycle head is undecided".into()),
    }
}

/// Runs the program on the witness's input values alone (decision 52): the witness automaton is
/// not followed, the nondet calls take the vector's values in call order (a call without a
/// value, or whose value belongs to another step, ends its path as unknown: nothing is
/// guessed), possible undefined behaviour ends a path as unknown, and an error call of the
/// property confirms. Confirmed: the values reach the error (the trace shows how); rejected:
/// they do not; unknown: undecided.
pub fn run_test_vector(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    vector: Rc<TestVector>,
) -> Outcome {
    let opts = ExploreOptions {
        permissive: false,
        target: opts.target.clone(),
        vector: Some(vector),
        guess: None,
        undefined: UndefinedBehaviour::Unknown,
        ..*opts
    };
    explore_once(cfa, witness, anchors, &opts, &ErrorReach::for_target(cfa, &opts.target), None, None)
}

/// Transitions on some path from the entry to a violation state: the ones a confirming run
/// may have to pass.
pub(super) fn relevant_transitions(w: &WitnessAutomaton) -> Vec<EdgeIndex> {
    let to_violation = violation_distance(w);
    let mut reach = HashSet::new();
    let mut todo = vec![w.entry];
    while let Some(n) = todo.pop() {
        if reach.insert(n) {
            todo.extend(w.graph.neighbors_directed(n, Direction::Outgoing));
        }
    }
    w.graph
        .edge_references()
        .filter(|t| reach.contains(&t.source()) && to_violation.contains_key(&t.target()))
        .map(|t| t.id())
        .collect()
}

/// Source line ranges of the program's steps.
pub(super) fn step_lines(cfa: &Cfa) -> Vec<(u64, u64)> {
    cfa.graph.edge_weights().filter_map(|e| e.span.map(|s| (s.start_line as u64, s.end_line as u64))).collect()
}

/// Does a transition's line range, shifted by `k`, hold a program step?
pub(super) fn lines_fit(lines: Range, k: i64, steps: &[(u64, u64)]) -> bool {
    let (start, end) = (lines.start as i64 + k, lines.end as i64 + k);
    start >= 1 && steps.iter().any(|&(a, b)| Range { start: start as u64, end: end as u64 }.overlaps(a, b))
}

/// A transition on a path from the entry to a violation state whose source lines hold no
/// program step at all (a blank line, a comment, a lone brace, past the end): such a witness was
/// written for another version of the program text (decision 38).
pub(super) fn unmatched_transition(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
    let steps = step_lines(cfa);
    relevant_transitions(w).into_iter().find_map(|t| {
        let lines = w.graph[t].guard.lines?;
        if lines_fit(lines, 0, &steps) {
            return None;
        }
        Some(format!(
            "the witness's transition at {} expects a step on line {}, where this program has no statement: \
             the witness seems to be written for another version of the program",
            w.graph[t].origin, lines.start
        ))
    })
}

/// Every transition with lines on the way to a violation state lies on lines with no program
/// step (and there is at least one): the witness describes another program.
pub(super) fn nothing_matches(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
    let steps = step_lines(cfa);
    let with_lines: Vec<Range> = relevant_transitions(w).into_iter().filter_map(|t| w.graph[t].guard.lines).collect();
    if with_lines.is_empty() || with_lines.iter().any(|l| lines_fit(*l, 0, &steps)) {
        return None;
    }
    Some(format!(
        "none of the witness's {} transitions on the way to the violation names a line with a statement of this \
         program (they fall on blank lines, comments or braces): the witness seems to be written for another \
         program",
        with_lines.len()
    ))
}

/// Largest constant line shift searched for (decision 38).
pub(super) const MAX_LINE_SHIFT: i64 = 20;

/// The one nonzero shift `k` (|k| <= [`MAX_LINE_SHIFT`]) that puts every transition on the way
/// to a violation state on a line with a program step; `None` if no shift or several do.
pub(super) fn unique_line_shift(cfa: &Cfa, w: &WitnessAutomaton) -> Option<i64> {
    let steps = step_lines(cfa);
    let lines: Vec<Range> = relevant_transitions(w).into_iter().filter_map(|t| w.graph[t].guard.lines).collect();
    if lines.is_empty() {
        return None;
    }
    let mut fitting =
        (-MAX_LINE_SHIFT..=MAX_LINE_SHIFT).filter(|&k| k != 0 && lines.iter().all(|&r| lines_fit(r, k, &steps)));
    match (fitting.next(), fitting.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

/// The witness with every line moved by `k` and its offsets dropped (they belong to the
/// other text). A line moved below 1 never matches.
pub(super) fn shift_lines(w: &WitnessAutomaton, k: i64) -> WitnessAutomaton {
    let mut shifted = w.clone();
    for t in shifted.graph.edge_weights_mut() {
        t.guard.offsets = None;
        if let Some(r) = &mut t.guard.lines {
            let (start, end) = (r.start as i64 + k, r.end as i64 + k);
            *r = if start >= 1 { Range { start: start as u64, end: end as u64 } } else { Range { start: 1, end: 0 } };
        }
    }
    shifted
}

/// If every path from the entry to a violation state passes a transition on a line past the end
/// of the program, no run of this program can pass it, under any reading: the reason, naming
/// one such transition (decision 38).
pub(super) fn past_end_cut(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
    let lines = cfa.line_count();
    let past = |t: EdgeIndex| w.graph[t].guard.lines.is_some_and(|r| r.start > lines);
    let mut reach = HashSet::new();
    let mut todo = vec![w.entry];
    while let Some(n) = todo.pop() {
        if w.graph[n].violation {
            return None;
        }
        if reach.insert(n) {
            todo.extend(w.graph.edges_directed(n, Direction::Outgoing).filter(|t| !past(t.id())).map(|t| t.target()));
        }
    }
    let first = relevant_transitions(w).into_iter().find(|&t| past(t))?;
    let r = w.graph[first].guard.lines?;
    Some(format!(
        "the witness does not describe this program: its transition at {} expects a step on line {}, past the end of \
         the program ({lines} lines), and every path to its violation node passes such a transition, so no run can \
         reach it",
        w.graph[first].origin, r.start
    ))
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
