//! Reading: concrete guesses for the nondet values before the exploration proper
//! (decision 67; confirmations only).

use super::*;

/// Decision 67: before the exploration proper, the same exploration with concrete guesses for
/// the nondet values (the witness's values where it gives them, else 0), bounded in states and
/// time. Each guess is one of the values the call may return, so a path it finds to the error
/// is a feasible path the witness allows: the confirmation stands. Anything else it finds
/// (no path, unknown) says nothing, and `None` lets the exploration proper decide. Most
/// confirmations need no solver this way, and so no Z3 context (milliseconds per process).
pub(in crate::product) fn guessing_run(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
) -> Option<Outcome> {
    if opts.reading.loosens_matching() || !opts.reading.follows_automaton() {
        return None;
    }
    let vector = crate::testvec::extract(cfa, witness, anchors).unwrap_or_default();
    let guess_opts = ExploreOptions {
        deadline: opts.deadline.sooner(opts.deadline.remaining() / 4),
        target: opts.target.clone(),
        reading: SearchReading::Guessed(Rc::new(vector)),
        ..*opts
    };
    let outcome = explore_once(cfa, witness, anchors, &guess_opts, reach, None, None);
    matches!(outcome.verdict, Verdict::Confirmed { .. }).then_some(outcome)
}
