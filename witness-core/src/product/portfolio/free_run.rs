//! Runs of the program without the witness: the free run behind a lasso's rejection
//! (decision 95) and the test-vector run (decision 52).

use super::*;

/// Most product states of one free run (decision 95).
pub(in crate::product) const FREE_RUN_MAX_STATES: u64 = 100_000;

/// Longest time one free run may take (a run that depends on nondeterministic values explodes).
pub(in crate::product) const FREE_RUN_MAX_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// Decision 95: runs the program from `init` without the witness (every nondeterministic
/// value free, possible undefined behaviour unknown), dropping the states from which `reach`'s
/// locations are out of reach. `Ok(states)` when every run ends or leaves them for good; the
/// reason otherwise (a state repeats, a path is undecided, the budget).
pub(in crate::product) fn free_run(
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
        invariants: Vec::new(),
    };
    let fopts = ExploreOptions {
        deadline: opts.deadline.sooner(FREE_RUN_MAX_TIME.min(opts.deadline.remaining() / 4)),
        reading: SearchReading::AsWritten,
        // No event is a violation: the free run only visits the program's states.
        target: ErrorTarget::nothing(),
        undefined: UndefinedBehaviour::Unknown,
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
        reading: SearchReading::TestVector(vector),
        target: opts.target.clone(),
        undefined: UndefinedBehaviour::Unknown,
        ..*opts
    };
    explore_once(cfa, witness, anchors, &opts, &search_reach(cfa, &opts, &[]), None, None)
}
