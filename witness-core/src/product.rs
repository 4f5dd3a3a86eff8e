//! Exploration of the product of the program's CFA and the witness automaton (format digest
//! §6): a product state is (CFA location, call stack, witness state, data state). Each program
//! step is matched against the witness state's outgoing transitions by their source-code
//! guards; matched transitions' assumptions are evaluated on the step's post-state.
//!
//! The product knows witness formats only through [`LocationGuard`] and [`Assumption`](crate::witness::Assumption); it
//! knows C only through the CFA's IR and the [`semantics`](crate::semantics).
//!
//! Verdict rules: a violation (call of the property's error function) while the automaton is in
//! a violation state confirms; exhausting every path the witness allows without that rejects;
//! anything uncertain on some allowed path (unsupported feature, possible undefined behaviour,
//! solver gave up, budget) turns a would-be rejection into unknown.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::time::Instant;

use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use z3::ast::Bool;

use crate::anchors::{Anchors, ResolvedAnchor};
use crate::cfa::{
    BranchOutcome, Cfa, CfaEdge, EdgeOp, ErrorKind, FloatTy, FuncId, IntTy, MemSource, Rvalue, ScalarTy, SourceSpan,
    Target, Write,
};
use crate::cfront::{lower_assumption, AssumptionScope};
use crate::offsets::OffsetPlan;
use crate::reach::ErrorReach;
use crate::reading::{self, Doubts, Reading};
use crate::semantics::value::{as_i128, Definedness, Truth};
use crate::semantics::{pinned_symbol, AnyValue, DataState, EvalError, FVal, FValue, Feasibility, Smt, Val, Value};
use crate::testvec::TestVector;
use crate::verdict::{NondetChoice, TraceStep, Verdict};
use crate::witness::{AnchorKind, Control, DecisionValue, LocationGuard, Range, WitnessAutomaton, WitnessTransition};

/// How the automaton treats a program step that some transition matches but whose
/// assumption fails (digest §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StutterMode {
    /// Official reading since SV-COMP 2023: no implicit self-loop when any guard matched.
    Strict,
    /// CPAchecker's reading: additionally stay when the next observable step matches the
    /// same guard.
    Lenient,
}

use crate::property::ErrorTarget;

/// Settings of one exploration.
pub struct ExploreOptions {
    pub deadline: Instant,
    pub budget_secs: u64,
    pub stutter: StutterMode,
    pub target: ErrorTarget,
    /// A permissive reading of the witness, used only to double-check a rejection: a step
    /// whose matching transitions all die may be skipped, one step may fire a chain of
    /// transitions. Never used to confirm.
    pub permissive: bool,
    /// How YAML segments are matched.
    pub segments: SegmentReading,
    /// What possible undefined behaviour on an allowed path means.
    pub undefined: UndefinedBehaviour,
    /// Test-vector run (decision 52): the witness automaton is not followed; the program's
    /// nondet calls take these values in call order, and any error call confirms.
    pub vector: Option<Rc<TestVector>>,
    /// Guessing run (decision 67): the automaton is followed as usual, but each nondet value
    /// is a concrete guess (the witness's value for that call where it gives one, else 0), so
    /// the run needs no solver; used only to confirm, before the exploration proper.
    pub guess: Option<Rc<TestVector>>,
    /// Resident size in bytes at which the exploration stops with `unknown` (decision 68).
    pub memory_limit: crate::resources::MemoryLimit,
    /// GraphML offsets are not used (issue 19, cause 4: the permissive double check of a
    /// rejection when the offsets could not be verified against this file).
    pub lines_only: bool,
}

/// Policy for *possible* undefined behaviour (signed overflow, division by zero, out-of-bounds
/// index, bad shift) on a path the witness allows. Definite undefined behaviour — every
/// execution of the path has it — always makes the path unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndefinedBehaviour {
    /// SV-COMP convention: reachability tasks are free of undefined behaviour, so executions
    /// that would have it are not executions of the task. They are excluded (with a warning),
    /// and the answer speaks about the remaining executions.
    Exclude,
    /// Any possible undefined behaviour on an allowed path makes a rejection impossible.
    Unknown,
}

/// How a YAML witness's segments are matched (format 2.0 digest §5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentReading {
    /// First occurrence, as CPAchecker does: the first time the run reaches a follow
    /// waypoint's location, the waypoint must be passed, or the run dies. The format's meaning
    /// as SV-COMP's own witness tasks encode it (decision 100).
    Greedy,
    /// A wider reading of the text ("the execution can be divided into parts"), for users who
    /// want it: a run may also let a visit of the follow waypoint go by and pass it later.
    Existential,
}

/// Result of an exploration.
pub struct Outcome {
    pub verdict: Verdict,
    pub reason: String,
    pub states: u64,
    pub solver_calls: u64,
    pub warnings: Vec<String>,
    /// Some explored step read union bytes that C leaves unspecified (decision 37).
    pub unspecified_read: bool,
    /// The strict reading of the witness found no path to the error (the verdict may still be
    /// unknown, when a doubt about that rejection remains): the witness's path is infeasible.
    pub strict_rejected: bool,
    /// Where the witness's path died, as far as it got (the failed assumption nearest to a
    /// violation state).
    pub infeasible: Option<InfeasibleStep>,
    /// For a confirmed violation of an operation (decisions 72, 73): the property, e.g.
    /// `valid-deref`.
    pub violated: Option<&'static str>,
    /// The exploration found no allowed path to the violation, whether or not its reading
    /// supports a rejection (decision 97: the gate may have turned it into `unknown`).
    pub raw_rejected: bool,
    /// The exploration found an allowed path to the violation, whether or not its reading
    /// supports a confirmation: the last step's line.
    pub raw_confirmed: Option<u32>,
    /// Transitions that fired on a guess of the place they mean, with the places they could
    /// mean (decision 98); empty when some guess has no case split.
    ambiguous: Vec<(EdgeIndex, Vec<(usize, usize)>)>,
}

impl Outcome {
    /// A conclusion reached without exploring (no states, no solver calls, no warnings).
    fn without_run(verdict: Verdict, reason: String, strict_rejected: bool) -> Outcome {
        let raw_rejected = matches!(verdict, Verdict::Rejected);
        Outcome {
            verdict,
            reason,
            states: 0,
            solver_calls: 0,
            warnings: Vec::new(),
            unspecified_read: false,
            strict_rejected,
            infeasible: None,
            violated: None,
            raw_rejected,
            raw_confirmed: None,
            ambiguous: Vec::new(),
        }
    }
}

/// Where the witness's path ends: a transition the program's step cannot pass.
#[derive(Debug, Clone)]
pub struct InfeasibleStep {
    /// Line of the step the transition matched.
    pub line: u32,
    /// Position of the transition in the witness file.
    pub origin: String,
    /// What fails, e.g. "assumption `y == 11` is false (y is 10 there)".
    pub what: String,
    /// `assumption`, `sink` or `no-progress` (decision 78).
    pub kind: &'static str,
}

/// Largest `memset`/`memcpy`/`memmove` modelled (bytes are stored one by one).
const MAX_MEM_BYTES: u64 = 1 << 16;

/// How many test-vector entries past its position a guessing run looks at for a call's value
/// (the witness may give no value for some calls).
const GUESS_LOOKAHEAD: usize = 8;

/// How often (in product states) the exploration samples its resident size.
const MEMORY_CHECK_EVERY: u64 = 1024;

/// Most product states a guessing run explores before the exploration proper takes over.
const GUESS_MAX_STATES: u64 = 20_000;

/// Maximum call depth before a path is given up as unknown (unbounded recursion).
const MAX_CALL_DEPTH: usize = 2000;

/// A call in progress.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CallSite {
    callee: FuncId,
    call_edge: EdgeIndex,
    return_loc: NodeIndex,
    lhs: Option<Target>,
}

/// What a trace shows as the function of a step at file scope (a global declaration).
pub const FILE_SCOPE: &str = "(file scope)";

/// A step of a path, kept as a persistent list for traces.
struct TraceNode {
    parent: Option<Rc<TraceNode>>,
    span: Option<SourceSpan>,
    /// `None` for a step at file scope (a global declaration).
    function: Option<FuncId>,
    action: Action,
    witness_node: NodeIndex,
    nondet: Option<Nondet>,
}

/// What a trace step did, rendered only for a confirmation's trace (a string per product
/// state would be most of the product's memory).
#[derive(Clone, Copy)]
enum Action {
    /// The CFA edge's statement text.
    Edge(EdgeIndex),
    /// Leaving the function back to its caller.
    Return(FuncId),
}

/// A nondeterministic value chosen by a step: the function, the value (for floats: the
/// bit-vector of its IEEE pattern) and, for floats, their type.
type Nondet = (String, Value, Option<FloatTy>);

#[derive(Clone)]
struct ProductState {
    loc: NodeIndex,
    /// Shared until a call or return changes it (the visited set keeps one per state).
    stack: Rc<Vec<CallSite>>,
    witness: NodeIndex,
    data: DataState,
    /// Value returned by the function whose exit location `loc` is.
    returned: Option<AnyValue>,
    trace: Option<Rc<TraceNode>>,
    /// Test-vector run: how many input values the path has taken.
    vec_pos: usize,
    /// Handlers registered with `atexit`, with their registration step (decision 76).
    atexit: Rc<Vec<(FuncId, EdgeIndex)>>,
    /// The program is ending by `exit` (its handlers run; the frames' locals still reach
    /// blocks).
    exiting: bool,
    /// Non-termination witnesses: the step that made this state fired a transition into the
    /// cycle head (decision 93).
    arrival: bool,
    /// Non-termination witnesses: the path's visits of the cycle head in the recurrent set,
    /// newest first (decision 94).
    heads: Option<Rc<HeadVisit>>,
}

/// What identifies a product state at the cycle head, for the repetition check: the state key
/// without the path condition (decision 94).
type LassoKey = (
    NodeIndex,
    NodeIndex,
    Rc<Vec<CallSite>>,
    Rc<Vec<crate::semantics::Frame>>,
    Rc<std::collections::BTreeMap<crate::cfa::VarId, crate::semantics::Slot>>,
    Rc<std::collections::BTreeMap<u32, crate::semantics::HeapBlock>>,
    Option<AnyValue>,
    Rc<Vec<(FuncId, EdgeIndex)>>,
    bool,
);

/// A visit of the cycle head in the recurrent set on a path (persistent list).
struct HeadVisit {
    parent: Option<Rc<HeadVisit>>,
    /// The state's key; `None` when some value is symbolic (no repetition check).
    key: Option<LassoKey>,
    /// Visits in the set so far on this path (1 for the first).
    count: u32,
    /// The path's last step at the visit, to mark it in a confirmation's trace.
    trace: Option<Rc<TraceNode>>,
}

/// What identifies a product state in the visited set: its `LassoKey` (the state without the
/// path condition), the path condition, the test-vector position, the cycle-head visits so far,
/// and what makes a state approximate (issue 19, cause 12): the unspecified union bytes, whether
/// the path read some, and how many values and addresses it knows only approximately. A precise
/// state is never merged with an approximate one.
type StateKey = (LassoKey, crate::semantics::PathCond, usize, u32, Approximation);

/// What makes a state approximate (see [`StateKey`]).
type Approximation =
    (Rc<std::collections::BTreeMap<crate::semantics::Obj, crate::semantics::ByteRanges>>, bool, usize, usize);

impl ProductState {
    fn lasso_key(&self) -> LassoKey {
        (
            self.loc,
            self.witness,
            self.stack.clone(),
            self.data.frames.clone(),
            self.data.globals.clone(),
            self.data.heap.clone(),
            self.returned.clone(),
            self.atexit.clone(),
            self.exiting,
        )
    }

    fn key(&self) -> StateKey {
        (
            self.lasso_key(),
            self.data.path.clone(),
            self.vec_pos,
            // Passes of a lasso are told apart, so that the repetition is seen at the cycle
            // head (decision 94), not turned away earlier by the visited set.
            self.heads.as_ref().map_or(0, |h| h.count),
            (self.data.unspecified.clone(), self.data.unspecified_read, self.data.approx.len(), self.data.layout.len()),
        )
    }
}

/// An observable program step, as the witness sees it.
#[derive(Clone, Copy)]
enum StepKind<'a> {
    /// A CFA edge.
    Edge(&'a CfaEdge),
    /// Leaving `callee` back to the call site (CPAchecker's function-return edge).
    FunctionReturn { callee: FuncId, call_edge: EdgeIndex },
}

/// What a step produced, for guards and assumptions.
struct StepInfo<'a> {
    kind: StepKind<'a>,
    span: Option<SourceSpan>,
    /// Function whose variables the post-state's top frame holds.
    scope_function: FuncId,
    /// Location after the step (for `enterLoopHead`).
    target: NodeIndex,
    /// The value the step returned (`\result`).
    result: Option<AnyValue>,
    /// Locations reachable from `target` through blank edges (computed on first use: several
    /// guards of one step may need it).
    closure: std::cell::OnceCell<Vec<NodeIndex>>,
}

/// (transition, scope function, offset, type of `\result`, test-vector entry).
type AssumptionKey = (EdgeIndex, Option<FuncId>, Option<usize>, Option<ScalarTy>, Option<usize>);
/// An assumption lowered for one step: its conjuncts, and the function whose scope it names.
struct Lowered {
    scope: Option<FuncId>,
    conjuncts: Vec<Result<crate::cfa::Expr, String>>,
}

type LoweredAssumption = Rc<Lowered>;

struct Explorer<'a> {
    cfa: &'a Cfa,
    witness: &'a WitnessAutomaton,
    anchors: &'a Anchors,
    opts: &'a ExploreOptions,
    smt: Smt,
    /// How witness offsets take part in matching (decisions 5 and 55).
    offsets: OffsetPlan,
    /// Witness states from which a violation state is reachable, with BFS distance.
    distance: HashMap<NodeIndex, u32>,
    /// Program locations from which an error call is reachable.
    reach: &'a ErrorReach,
    /// Lowered assumptions per (transition, scope function, offset).
    assumption_cache: HashMap<AssumptionKey, LoweredAssumption>,
    warnings: Vec<String>,
    warned: HashSet<String>,
    /// Reasons some allowed path could not be decided (first few kept).
    unknown: Vec<String>,
    states: u64,
    /// Some executed step read union bytes that C leaves unspecified (decision 37).
    unspecified_read: bool,
    /// The failed assumption nearest to a violation state (its source state's distance).
    infeasible: Option<(u32, InfeasibleStep)>,
    /// The witness state nearest to a violation state that an explored state was in (its
    /// distance): where the witness's run got furthest, for explanations (decision 78).
    furthest: Option<(u32, NodeIndex)>,
    /// Branch transitions (YAML `branching`, GraphML `control`) whose location a step of an
    /// allowed path reached while taking the other branch: the step's text, first seen. Turns a
    /// `no-progress` explanation at such a transition into `branch` (decision 78).
    wrong_branch: HashMap<EdgeIndex, String>,
    /// Property no-overflow: a program step is being executed, so overflow conditions are
    /// violations to collect (not while assumptions are evaluated).
    collecting_violations: bool,
    /// The states in which the step being executed overflows, with what overflows (decision 72):
    /// one per operation of the step that may overflow.
    pending_violations: Vec<(ProductState, String, &'static str)>,
    /// The property (SV-COMP name) the confirmation violates, for operations (decision 73).
    violated: Option<&'static str>,
    /// States the visited set turned away (a cycle or a join of paths).
    repeats: u64,
    /// Most product states explored (free runs of a non-termination check).
    max_states: Option<u64>,
    /// Non-termination witnesses: the first visits of the cycle head in the recurrent set
    /// (decision 94), for the checks of a rejection (decision 95).
    lasso_firsts: Vec<ProductState>,
    /// Non-termination witnesses: why a path that reached the cycle head in the recurrent set
    /// does not show an infinite run (the set is not closed, a symbolic state, …).
    lasso_open: Vec<String>,
    /// A symbolic pass of the loop part is being explored (decision 96).
    recurrence: Option<RecurrencePass>,
    /// Constraints of the witness this exploration dropped or added (decision 97).
    doubts: Doubts,
    /// Lassos: the witness states reachable from a cycle head (its loop part).
    cycle_nodes: HashSet<NodeIndex>,
    /// Symbolic closure checks tried on concrete runs that did not repeat (issue 19).
    recurrence_checks: usize,
    /// Transitions whose offsets or column could not be used and whose line holds several
    /// places they could mean (issue 19, cause 2): firing one is a guess of which (decision 98).
    approximate: HashMap<EdgeIndex, String>,
    /// The places (spans of steps) each GraphML transition of `approximate` could mean
    /// (decision 98's case split).
    places: HashMap<EdgeIndex, Vec<(usize, usize)>>,
    /// Decision 98's case split: transitions pinned to one choice of the places they could mean
    /// (the spans of the steps they match).
    pins: HashMap<EdgeIndex, Vec<(usize, usize)>>,
    /// Transitions of `approximate` that fired in this exploration.
    fired_approximate: BTreeSet<EdgeIndex>,
    /// Existential segments: per transition, the program locations from which a step on its
    /// waypoint's line is still reachable.
    revisit: HashMap<EdgeIndex, Rc<ErrorReach>>,
}

/// What one symbolic pass of the loop part found so far (decision 96).
struct RecurrencePass {
    /// The path conditions of the paths that came back to the cycle head.
    returns: Vec<Vec<Bool>>,
    /// The first few states that came back, for a confirmation's trace (stem and one pass).
    examples: Vec<ProductState>,
    /// Why the set is not closed, if a path came back outside it.
    failure: Option<String>,
}

/// Returning states of a symbolic pass kept to show one pass in a confirmation's trace.
const MAX_PASS_EXAMPLES: usize = 16;

/// Most first visits whose recurrent set is checked over a symbolic pass (decision 96).
const MAX_RECURRENCE_CHECKS: usize = 4;

/// Most integer variables and array cells made symbolic for a symbolic pass (decision 96).
const MAX_RECURRENCE_CELLS: usize = 4096;

/// Most product states of one symbolic pass (decision 96).
const RECURRENCE_MAX_STATES: u64 = 20_000;

/// What the visit of the cycle head does to a path (decision 94).
enum Arrival {
    Drop,
    Go(ProductState),
    Confirm(Verdict),
}

/// Most visits of the cycle head in the recurrent set on one path before it is given up.
const MAX_HEAD_VISITS: u32 = 10_000;

/// Visits of the cycle head in the set without a repeated state after which the symbolic
/// closure check (decision 96) is tried on a concrete run (issue 19).
const SYMBOLIC_AFTER_VISITS: u32 = 64;

/// Most first visits of the cycle head kept for the checks of a rejection.
const MAX_LASSO_FIRSTS: usize = 16;

/// Most product states of one free run (decision 95).
const FREE_RUN_MAX_STATES: u64 = 100_000;

/// Longest time one free run may take (a run that depends on nondeterministic values explodes).
const FREE_RUN_MAX_TIME: std::time::Duration = std::time::Duration::from_secs(2);

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
    let reach = match opts.target.termination.then(|| head_seeds(cfa, witness, anchors)).flatten() {
        Some(seeds) => ErrorReach::towards(cfa, &seeds),
        None => ErrorReach::for_target(cfa, &opts.target),
    };
    explore_with(cfa, source, witness, anchors, opts, &reach)
}

/// [`explore`] with the program's error reachability computed once for all its runs.
fn explore_with(
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
            if opts.target.termination {
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
fn recheck_rejection(outcome: &mut Outcome, second: Outcome, adopt_warnings: bool, disagree: &str, inconclusive: &str) {
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
const MAX_CASES: usize = 256;

/// The sets of `places` (spans of steps) that some range of offsets overlaps, as a GraphML
/// guard's offsets do (both ends inclusive); None on a line too long to try every range.
fn overlap_sets(places: &[(usize, usize)]) -> Option<Vec<Vec<(usize, usize)>>> {
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
fn case_split(
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
fn gate(reading: &Reading, mut outcome: Outcome) -> Outcome {
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
fn guessing_run(
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
fn explore_shifted(
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
fn misplaced_claim(source: &str, w: &WitnessAutomaton, names: &HashSet<&str>) -> Option<String> {
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
type Places = HashMap<EdgeIndex, Vec<(usize, usize)>>;

fn approximate_transitions(ex: &Explorer) -> (HashMap<EdgeIndex, String>, Places) {
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
fn reading_of(opts: &ExploreOptions, aligned: bool) -> Reading {
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

/// One exploration; `aligned` replaces the offset plan by line-by-line aligned offsets; `pins`
/// fixes the places some transitions mean (decision 98's case split).
fn explore_once(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
    aligned: Option<&HashMap<EdgeIndex, Range>>,
    pins: Option<&HashMap<EdgeIndex, Vec<(usize, usize)>>>,
) -> Outcome {
    let mut ex = Explorer::new(cfa, witness, anchors, opts, reach);
    // Offsets that were validated against this file make guards precise; the permissive
    // reading keeps them (it relaxes only what depends on the CFA's granularity).
    ex.offsets = match aligned {
        Some(m) => OffsetPlan::Aligned(m.clone()),
        None if opts.lines_only => OffsetPlan::LinesOnly,
        None => crate::offsets::plan(cfa, witness, &mut ex.warnings),
    };
    (ex.approximate, ex.places) = approximate_transitions(&ex);
    if let Some(pins) = pins {
        ex.approximate.retain(|t, _| !pins.contains_key(t));
        ex.pins = pins.clone();
    }
    let mut verdict = ex.run();
    let mut lasso_reason = None;
    if opts.target.termination && opts.vector.is_none() {
        if let Verdict::Confirmed { error_function, .. } = &verdict {
            lasso_reason = Some(format!("witness confirmed (non-termination): {error_function}"));
        } else if opts.guess.is_none() {
            let (v, r) = ex.lasso_verdict(verdict);
            verdict = v;
            lasso_reason = Some(r);
        }
    }
    let reason = match &verdict {
        _ if lasso_reason.is_some() => lasso_reason.unwrap_or_default(),
        Verdict::Confirmed { trace, error_function } => {
            let line = trace.last().map(|s| s.line).unwrap_or(0);
            if opts.target.operations() {
                format!("witness confirmed: {error_function} at line {line} after {} steps", trace.len())
            } else {
                format!("witness confirmed: {error_function}() is reached at line {line} after {} steps", trace.len())
            }
        }
        Verdict::Rejected => {
            format!("no path allowed by the witness reaches the error ({} product states explored)", ex.states)
        }
        Verdict::Unknown { reason } => reason.clone(),
    };
    // Decision 98: the fired transitions whose places were guessed, if each has a case split.
    let ambiguous = if ex.fired_approximate.iter().all(|t| ex.places.contains_key(t)) {
        ex.fired_approximate.iter().map(|t| (*t, ex.places[t].clone())).collect()
    } else {
        Vec::new()
    };
    let infeasible = ex.infeasible.clone().map(|(_, i)| i).or_else(|| ex.furthest_step());
    let raw_rejected = matches!(verdict, Verdict::Rejected);
    let raw_confirmed = match &verdict {
        Verdict::Confirmed { trace, .. } => Some(trace.last().map(|s| s.line).unwrap_or(0)),
        _ => None,
    };
    // Decision 97: the one gate between an exploration and its conclusion.
    let (verdict, reason) = match reading::conclude(&reading_of(opts, aligned.is_some()), &ex.doubts, verdict) {
        (v, Some(why)) => (v, why),
        (v, None) => (v, reason),
    };
    Outcome {
        verdict,
        reason,
        states: ex.states,
        solver_calls: ex.smt.calls,
        warnings: ex.warnings,
        unspecified_read: ex.unspecified_read,
        strict_rejected: false,
        infeasible,
        violated: ex.violated,
        raw_rejected,
        raw_confirmed,
        ambiguous,
    }
}

impl<'a> Explorer<'a> {
    fn new(
        cfa: &'a Cfa,
        witness: &'a WitnessAutomaton,
        anchors: &'a Anchors,
        opts: &'a ExploreOptions,
        reach: &'a ErrorReach,
    ) -> Explorer<'a> {
        Explorer {
            cfa,
            witness,
            anchors,
            opts,
            smt: {
                let mut smt = Smt::new(opts.deadline);
                smt.floats = cfa
                    .vars
                    .iter()
                    .any(|v| matches!(v.ty, crate::cfa::CType::Float(_) | crate::cfa::CType::FloatArray { .. }));
                smt
            },
            offsets: OffsetPlan::LinesOnly,
            distance: violation_distance(witness),
            reach,
            assumption_cache: HashMap::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
            unknown: Vec::new(),
            states: 0,
            unspecified_read: false,
            infeasible: None,
            furthest: None,
            wrong_branch: HashMap::new(),
            collecting_violations: false,
            pending_violations: Vec::new(),
            violated: None,
            repeats: 0,
            max_states: None,
            lasso_firsts: Vec::new(),
            lasso_open: Vec::new(),
            recurrence: None,
            doubts: Doubts::default(),
            revisit: HashMap::new(),
            approximate: HashMap::new(),
            places: HashMap::new(),
            pins: HashMap::new(),
            fired_approximate: BTreeSet::new(),
            recurrence_checks: 0,
            cycle_nodes: {
                let mut seen = HashSet::new();
                let mut todo: Vec<NodeIndex> =
                    witness.graph.node_indices().filter(|n| witness.graph[*n].cycle_head).collect();
                while let Some(n) = todo.pop() {
                    if seen.insert(n) {
                        todo.extend(witness.graph.neighbors_directed(n, Direction::Outgoing));
                    }
                }
                seen
            },
        }
    }

    /// Decision 95: what an exploration of a non-termination witness that confirmed nothing
    /// means. Rejected only when no run the witness allows can pass the cycle head infinitely
    /// often in the recurrent set: its stem never reaches the head in the set, or from every
    /// first visit in the set every run of the program (whatever the witness says) passes the
    /// locations where the head is entered a bounded number of times.
    fn lasso_verdict(&mut self, verdict: Verdict) -> (Verdict, String) {
        let text = self
            .witness
            .graph
            .node_indices()
            .find(|n| self.witness.graph[*n].cycle_head)
            .and_then(|n| self.witness.graph[n].invariant.clone())
            .unwrap_or_else(|| "1".into());
        let open = self.lasso_open.first().cloned();
        if let Verdict::Unknown { reason } = verdict {
            let reason = match open {
                Some(o) => format!("{reason}; also: {o}"),
                None => reason,
            };
            return (Verdict::Unknown { reason: reason.clone() }, reason);
        }
        if self.lasso_firsts.is_empty() {
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
            if self.infeasible.is_none() && self.furthest_step().is_none() {
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
                    self.infeasible = Some((0, step));
                }
            }
            return (Verdict::Rejected, msg);
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
        if self.lasso_firsts.len() >= MAX_LASSO_FIRSTS {
            return not_rejected(format!("more than {MAX_LASSO_FIRSTS} runs reach the cycle head"), &open);
        }
        let Some(seeds) = head_seeds(self.cfa, self.witness, self.anchors) else {
            return not_rejected("a transition into the cycle head names no line".into(), &open);
        };
        let reach = ErrorReach::towards(self.cfa, &seeds);
        let firsts = std::mem::take(&mut self.lasso_firsts);
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
        self.infeasible =
            Some((0, InfeasibleStep { line, origin: String::new(), what: what.clone(), kind: "terminates" }));
        (Verdict::Rejected, format!("witness rejected: {what}"))
    }
}

/// Decision 93: the loop heads a loop statement starting at `starts` reaches through its own
/// header (blank edges, and steps on the statement's first line, e.g. a `for`'s
/// initialisation), or the blank closure of `starts` when no loop head is found.
fn loop_heads_of(cfa: &Cfa, starts: &HashSet<NodeIndex>, offset: usize) -> Vec<NodeIndex> {
    let mut out = Vec::new();
    // Issue 19, cause 7: only a loop statement has a loop head of its own; the statement at any
    // other place is the head itself (its header walk would reach a later loop's head).
    // A branching keyword whose statement reaches a loop head without deciding anything (an
    // `if` or `switch` decides first).
    let is_loop = cfa.branch_keywords.iter().any(|(k, _)| *k == offset)
        && starts.iter().any(|&s| {
            let mut seen = HashSet::new();
            let mut todo = vec![s];
            while let Some(n) = todo.pop() {
                if !seen.insert(n) || seen.len() > 64 {
                    continue;
                }
                if cfa.graph[n].loop_head {
                    return true;
                }
                todo.extend(
                    cfa.graph
                        .edges_directed(n, Direction::Outgoing)
                        .filter(|e| e.weight().decision.is_none())
                        .map(|e| e.target()),
                );
            }
            false
        });
    if !is_loop {
        for &start in starts {
            out.extend(cfa.blank_closure(start));
            out.push(start);
        }
        return out;
    }
    for &start in starts {
        let line = cfa
            .graph
            .edges_directed(start, Direction::Outgoing)
            .filter_map(|e| e.weight().span)
            .map(|sp| sp.start_line)
            .min();
        let mut seen = HashSet::new();
        let mut todo = vec![(start, 0u32)];
        let mut found = false;
        while let Some((n, depth)) = todo.pop() {
            if !seen.insert(n) || depth > 8 {
                continue;
            }
            if cfa.graph[n].loop_head {
                out.push(n);
                found = true;
                continue;
            }
            for e in cfa.graph.edges_directed(n, Direction::Outgoing) {
                let w = e.weight();
                let header = match w.span {
                    None => matches!(w.op, EdgeOp::Blank),
                    Some(sp) => Some(sp.start_line) == line && w.decision.is_none(),
                };
                if header {
                    todo.push((e.target(), depth + 1));
                }
            }
        }
        if !found {
            out.extend(cfa.blank_closure(start));
        }
        out.push(start);
    }
    out
}

/// Decision 95: the program locations where a step that enters a cycle head starts (every
/// step on a line of a transition into it; for a call, also the callee's exit, where its
/// return starts), or `None` if some such transition names no line.
fn head_seeds(cfa: &Cfa, w: &WitnessAutomaton, anchors: &Anchors) -> Option<Vec<NodeIndex>> {
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

/// The lines a transition names: its `startline`/`endline`, or its waypoint's line.
fn transition_lines(t: &WitnessTransition) -> Option<Range> {
    let g = &t.guard;
    g.lines.or_else(|| g.anchor.as_ref().map(|a| Range { start: a.line as u64, end: a.line as u64 }))
}

/// The locations where a step on one of `lines` starts (for a call, also the callee's exit,
/// where its return starts): the seeds of an [`ErrorReach::towards`] those lines.
fn line_seeds(cfa: &Cfa, lines: &[Range]) -> Vec<NodeIndex> {
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

/// Decision 95: runs the program from `init` without the witness (every nondeterministic
/// value free, possible undefined behaviour unknown), dropping the states from which `reach`'s
/// locations are out of reach. `Ok(states)` when every run ends or leaves them for good; the
/// reason otherwise (a state repeats, a path is undecided, the budget).
fn free_run(
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
        target: ErrorTarget {
            functions: Vec::new(),
            label: false,
            overflow: false,
            memsafety: false,
            memcleanup: false,
            termination: false,
        },
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
fn relevant_transitions(w: &WitnessAutomaton) -> Vec<EdgeIndex> {
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
fn step_lines(cfa: &Cfa) -> Vec<(u64, u64)> {
    cfa.graph.edge_weights().filter_map(|e| e.span.map(|s| (s.start_line as u64, s.end_line as u64))).collect()
}

/// Does a transition's line range, shifted by `k`, hold a program step?
fn lines_fit(lines: Range, k: i64, steps: &[(u64, u64)]) -> bool {
    let (start, end) = (lines.start as i64 + k, lines.end as i64 + k);
    start >= 1 && steps.iter().any(|&(a, b)| Range { start: start as u64, end: end as u64 }.overlaps(a, b))
}

/// A transition on a path from the entry to a violation state whose source lines hold no
/// program step at all (a blank line, a comment, a lone brace, past the end): such a witness was
/// written for another version of the program text (decision 38).
fn unmatched_transition(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
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
fn nothing_matches(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
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
const MAX_LINE_SHIFT: i64 = 20;

/// The one nonzero shift `k` (|k| <= [`MAX_LINE_SHIFT`]) that puts every transition on the way
/// to a violation state on a line with a program step; `None` if no shift or several do.
fn unique_line_shift(cfa: &Cfa, w: &WitnessAutomaton) -> Option<i64> {
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
fn shift_lines(w: &WitnessAutomaton, k: i64) -> WitnessAutomaton {
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
fn past_end_cut(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
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
fn is_lasso(w: &WitnessAutomaton) -> bool {
    w.metadata.witness_type == Some(crate::witness::WitnessType::Termination)
}

fn violation_distance(w: &WitnessAutomaton) -> HashMap<NodeIndex, u32> {
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

enum Step {
    /// Continue with this state (witness not yet advanced).
    Next(ProductState, Option<AnyValue>),
    /// The path ends here without violation.
    End,
    /// The step reached the property violation.
    Violation(ProductState, String),
}

impl<'a> Explorer<'a> {
    fn warn(&mut self, w: String) {
        if self.warned.insert(w.clone()) {
            self.warnings.push(w);
        }
    }

    fn give_up(&mut self, reason: String) {
        if !self.unknown.contains(&reason) {
            self.unknown.push(reason);
        }
    }

    fn run(&mut self) -> Verdict {
        let cfa = self.cfa;
        let data = match DataState::initial(cfa) {
            Ok(d) => d,
            Err(EvalError::Unsupported(w)) => {
                return Verdict::Unknown { reason: format!("global initialisation: {w}") }
            }
        };
        let init = ProductState {
            loc: cfa.start,
            stack: Rc::new(Vec::new()),
            witness: self.witness.entry,
            data,
            returned: None,
            trace: None,
            vec_pos: 0,
            atexit: Rc::new(Vec::new()),
            exiting: false,
            arrival: false,
            heads: None,
        };
        let mut init = init;
        init.data.guessing = self.opts.guess.is_some();
        // `distance` holds every violation state (at 0) and every state that reaches one.
        if self.opts.vector.is_none() && !self.distance.contains_key(&self.witness.entry) {
            self.warn("no violation node is reachable from the witness's entry node".into());
            return Verdict::Rejected;
        }
        self.run_from(init)
    }

    fn run_from(&mut self, init: ProductState) -> Verdict {
        let mut stack = vec![init];
        // Boxed keys: the table holds a pointer per state, so its growth (which briefly holds
        // the old and the new table) costs little next to the keys themselves.
        let mut visited: HashSet<Box<StateKey>> = HashSet::new();
        while let Some(mut state) = stack.pop() {
            if Instant::now() >= self.opts.deadline {
                return self.out_of_time();
            }
            if state.arrival {
                state.arrival = false;
                match self.lasso_arrival(state) {
                    Arrival::Drop => continue,
                    Arrival::Go(s) => state = s,
                    Arrival::Confirm(v) => return v,
                }
            }
            // A state from which no error call is reachable can never confirm, and nothing on
            // its paths matters for a rejection.
            if !self.reach.may_reach(state.loc, state.stack.iter().map(|c| c.return_loc)) {
                continue;
            }
            if !visited.insert(Box::new(state.key())) {
                self.repeats += 1;
                continue;
            }
            if self.max_states.is_some_and(|m| self.states >= m) {
                return Verdict::Unknown { reason: format!("stopped after {} product states", self.states) };
            }
            if let Some(&d) = self.distance.get(&state.witness) {
                if self.furthest.is_none_or(|(best, _)| d < best) {
                    self.furthest = Some((d, state.witness));
                }
            }
            self.states += 1;
            if self.states.is_multiple_of(MEMORY_CHECK_EVERY) {
                if let Some(limit) = self.opts.memory_limit.bytes() {
                    if crate::resources::resident_bytes().is_some_and(|r| r > limit) {
                        return self.out_of_memory(limit);
                    }
                }
            }
            if self.opts.guess.is_some() && self.states > GUESS_MAX_STATES {
                return Verdict::Unknown { reason: format!("guessing run stopped after {GUESS_MAX_STATES} states") };
            }
            let mut succs = Vec::new();
            if let Some(v) = self.expand(state, &mut succs) {
                return v;
            }
            // Depth-first, nearest-to-violation first: push the farthest first.
            succs
                .sort_by_key(|s: &ProductState| std::cmp::Reverse(self.distance.get(&s.witness).copied().unwrap_or(0)));
            stack.extend(succs);
        }
        if Instant::now() >= self.opts.deadline {
            return self.out_of_time();
        }
        if self.unknown.is_empty() {
            Verdict::Rejected
        } else {
            let n = self.unknown.len();
            let mut reason = self.unknown[0].clone();
            if n > 1 {
                reason.push_str(&format!(" (and {} other reason{})", n - 1, if n > 2 { "s" } else { "" }));
            }
            Verdict::Unknown { reason }
        }
    }

    fn out_of_memory(&self, limit: u64) -> Verdict {
        Verdict::Unknown {
            reason: format!(
                "memory limit of {} MiB reached after {} product states (see --memory-limit){}",
                limit >> 20,
                self.states,
                self.unknown.first().map(|u| format!("; also: {u}")).unwrap_or_default()
            ),
        }
    }

    fn out_of_time(&self) -> Verdict {
        Verdict::Unknown {
            reason: format!(
                "time budget of {} s exhausted after {} product states{}",
                self.opts.budget_secs,
                self.states,
                self.unknown.first().map(|u| format!("; also: {u}")).unwrap_or_default()
            ),
        }
    }

    fn line_of(&self, span: Option<SourceSpan>) -> String {
        match span {
            Some(s) => format!("line {}", s.start_line),
            None => "an unknown line".into(),
        }
    }

    /// Expands one product state into its successors; returns a verdict on confirmation.
    fn expand(&mut self, state: ProductState, out: &mut Vec<ProductState>) -> Option<Verdict> {
        let cfa = self.cfa;
        // At a function's exit: return to the caller (or the program ends).
        let current = state.stack.last().map(|c| c.callee).unwrap_or(cfa.main);
        if state.loc != cfa.start && state.loc == cfa.function(current).exit {
            let Some(site) = state.stack.last().cloned() else {
                // main returned (or an `exit` handler did): the next `atexit` handler runs
                // (decision 76); then the program ends (a leak may be the violation, decision 74).
                if let Some(next) = self.run_atexit_handler(&state) {
                    out.push(next);
                    return None;
                }
                return self.leak_at_end(&state);
            };
            let mut next = state.clone();
            Rc::make_mut(&mut next.stack).pop();
            next.data.pop_frame();
            next.loc = site.return_loc;
            let returned = next.returned.take();
            if let Some(Target::Struct(writes)) = &site.lhs {
                if !self.write_all(&mut next, writes, cfa.edge(site.call_edge).span) {
                    return None;
                }
            } else if let Some(lhs) = &site.lhs {
                let Some(v) = returned.clone() else {
                    self.give_up(format!("the value of a void function `{}` is used", cfa.function(site.callee).name));
                    return None;
                };
                let stored = match (lhs, v) {
                    (Target::Int(lv), v) => {
                        let mut defined = Vec::new();
                        match v.convert(ScalarTy::Int(lv.ty()), &mut defined) {
                            AnyValue::Int(v) => next.data.assign(cfa, lv, &v, None).map(|mut d| {
                                defined.append(&mut d);
                                defined
                            }),
                            _ => Err(EvalError::Unsupported("conversion of a result".into())),
                        }
                    }
                    (Target::Ptr(plv), AnyValue::Ptr(p)) => next.data.assign_ptr(cfa, plv, &p),
                    (Target::Ptr(_), _) => {
                        Err(EvalError::Unsupported("a non-pointer result stored into a pointer".into()))
                    }
                    (Target::Struct(_), _) => {
                        Err(EvalError::Unsupported("a scalar result stored into a struct".into()))
                    }
                    (Target::Float(flv), v) => {
                        let mut defined = Vec::new();
                        match v.convert(ScalarTy::Float(flv.fty()), &mut defined) {
                            AnyValue::Float(v) => next.data.assign_flv(cfa, flv, &v, None).map(|mut d| {
                                defined.append(&mut d);
                                defined
                            }),
                            _ => Err(EvalError::Unsupported("conversion of a result".into())),
                        }
                    }
                };
                match stored {
                    Ok(defined) => {
                        if !self.settle_definedness(&mut next, defined, cfa.edge(site.call_edge).span) {
                            return None;
                        }
                    }
                    Err(EvalError::Unsupported(w)) => {
                        self.give_up(format!("{w} at {}", self.line_of(cfa.edge(site.call_edge).span)));
                        return None;
                    }
                }
            }
            let caller = next.stack.last().map(|c| c.callee).unwrap_or(cfa.main);
            let info = StepInfo {
                kind: StepKind::FunctionReturn { callee: site.callee, call_edge: site.call_edge },
                span: cfa.edge(site.call_edge).span,
                scope_function: caller,
                target: site.return_loc,
                result: returned,
                closure: Default::default(),
            };
            let from = out.len();
            self.advance_witness(next, &info, Action::Return(site.callee), None, out);
            return self.memtrack_loss(&state, out, from, info.span);
        }
        let edges: Vec<EdgeIndex> = cfa.graph.edges_directed(state.loc, Direction::Outgoing).map(|e| e.id()).collect();
        for e in edges {
            let resolved;
            let edge = match &cfa.edge(e).op {
                EdgeOp::CallPtr { fptr, args, lhs } => match self.resolve_call(&state, fptr, args, cfa.edge(e).span) {
                    Some(callee) => {
                        resolved = CfaEdge {
                            op: EdgeOp::Call { callee, args: args.clone(), lhs: lhs.clone() },
                            ..cfa.edge(e).clone()
                        };
                        &resolved
                    }
                    None => continue,
                },
                _ => cfa.edge(e),
            };
            let target = cfa.graph.edge_endpoints(e).map(|(_, t)| t).unwrap_or(state.loc);
            self.collecting_violations = self.opts.target.operations();
            let step = self.execute(&state, e, edge, target);
            self.collecting_violations = false;
            for (v, what, property) in std::mem::take(&mut self.pending_violations) {
                // The step violates the property (decisions 72, 73): like an error call, a
                // step the witness may match into its violation node.
                let info = StepInfo {
                    kind: StepKind::Edge(edge),
                    span: edge.span,
                    scope_function: v.stack.last().map(|c| c.callee).unwrap_or(cfa.main),
                    target,
                    result: None,
                    closure: Default::default(),
                };
                let mut after = Vec::new();
                self.advance_witness(v, &info, Action::Edge(e), None, &mut after);
                for s in after {
                    if (self.opts.vector.is_some() || self.witness.graph[s.witness].violation)
                        && self.approx_settled(&s)
                    {
                        self.violated = Some(property);
                        return Some(self.confirm(&s, what));
                    }
                }
            }
            if let Step::Next(n, _) | Step::Violation(n, _) = &step {
                self.unspecified_read |= n.data.unspecified_read;
            }
            match step {
                Step::End => {}
                Step::Next(mut next, result) => {
                    if self.opts.vector.is_some() && !self.take_input(&mut next, edge, target, result.as_ref()) {
                        continue;
                    }
                    // A blank edge with a source span is a `goto` statement: an edge of the
                    // producers' CFAs too (CPAchecker's "Goto: L", CBMC's GOTO), so observable.
                    if matches!(edge.op, EdgeOp::Blank) && edge.span.is_none() {
                        out.push(next);
                        continue;
                    }
                    let scope_function = match &edge.op {
                        EdgeOp::Call { callee, .. } => *callee,
                        _ => next.stack.last().map(|c| c.callee).unwrap_or(cfa.main),
                    };
                    let (nondet, result) = match (&edge.op, result) {
                        (EdgeOp::NondetCall { function, .. }, Some(AnyValue::Int(v))) => {
                            (Some((function.clone(), v.clone(), None)), Some(AnyValue::Int(v)))
                        }
                        // The float's bits are for the trace only, never `\result`.
                        (EdgeOp::FloatNondetCall { function, fty, .. }, Some(AnyValue::Int(v))) => {
                            (Some((function.clone(), v, Some(*fty))), None)
                        }
                        (_, r) => (None, r),
                    };
                    let info = StepInfo {
                        kind: StepKind::Edge(edge),
                        span: edge.span,
                        scope_function,
                        target,
                        result,
                        closure: Default::default(),
                    };
                    let from = out.len();
                    self.advance_witness(next, &info, Action::Edge(e), nondet, out);
                    if let Some(v) = self.memtrack_loss(&state, out, from, edge.span) {
                        return Some(v);
                    }
                }
                Step::Violation(next, function) => {
                    // The error call is itself a step the witness may match (into the violation node).
                    let info = StepInfo {
                        kind: StepKind::Edge(edge),
                        span: edge.span,
                        scope_function: next.stack.last().map(|c| c.callee).unwrap_or(cfa.main),
                        target,
                        result: None,
                        closure: Default::default(),
                    };
                    let mut after = Vec::new();
                    self.advance_witness(next, &info, Action::Edge(e), None, &mut after);
                    for s in after {
                        if self.opts.vector.is_some() || self.witness.graph[s.witness].violation {
                            if !self.approx_settled(&s) {
                                continue;
                            }
                            return Some(self.confirm(&s, function));
                        }
                    }
                    // Violation outside a violation state: does not count; the path ends.
                }
            }
        }
        None
    }

    /// Decisions 72 and 73: the conditions that guard against the property's violations
    /// (signed overflow; invalid dereference or free) are the property, not undefined behaviour
    /// to exclude. Where one may fail, the state in which it does becomes a pending violation
    /// (the caller matches the step against the witness) and the path goes on where none
    /// happens; `None` if it does not go on. A possible overflow of a signed `<<` is left unknown
    /// (a modelling gap): the definitions disagree on whether it is an overflow. The other
    /// conditions are returned.
    fn property_violations(
        &mut self,
        state: &mut ProductState,
        defined: Vec<Definedness>,
        span: Option<SourceSpan>,
    ) -> Option<Vec<Definedness>> {
        use crate::semantics::value::ViolationKind;
        let mut rest = Vec::new();
        // Per property: the conjunction of its conditions and what they guard against.
        let mut groups: Vec<(&'static str, Truth, Vec<String>)> = Vec::new();
        for d in defined {
            let property = match d.violation_kind() {
                Some(ViolationKind::Overflow) if self.opts.target.overflow => "no-overflow",
                Some(ViolationKind::Deref) if self.opts.target.memsafety => "valid-deref",
                Some(ViolationKind::Free) if self.opts.target.memsafety => "valid-free",
                Some(ViolationKind::ShiftOverflow) if self.opts.target.overflow => {
                    rest.push(Definedness {
                        unmodelled: true,
                        what: format!("{} (whether a shift's overflow violates no-overflow is not decided)", d.what),
                        ..d
                    });
                    continue;
                }
                _ => {
                    rest.push(d);
                    continue;
                }
            };
            if matches!(d.holds, Truth::Known(true)) {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == property) {
                Some(g) => {
                    g.1 = g.1.and(&d.holds);
                    g.2.push(d.what);
                }
                None => groups.push((property, d.holds.clone(), vec![d.what])),
            }
        }
        let mut ok = Truth::Known(true);
        for (property, holds, what) in groups {
            match &holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    self.pending_violations.push((state.clone(), what.join(", "), property));
                    return None;
                }
                Truth::Sym(c) => match self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) {
                    Feasibility::Feasible => {
                        let mut v = state.clone();
                        self.add_constraint(&mut v, c.not());
                        self.pending_violations.push((v, what.join(", "), property));
                    }
                    Feasibility::Infeasible => {}
                    Feasibility::Unknown => self.give_up(format!(
                        "solver could not decide whether {} is possible at {}",
                        what.join(", "),
                        self.line_of(span)
                    )),
                },
            }
            ok = ok.and(&holds);
        }
        self.assume(state, ok, span).then_some(rest)
    }

    /// Decision 74, valid-memtrack during the run: the successors `out[from..]` of `before` that
    /// are in a violation state and in which a live block became unreachable by this step
    /// (nothing reaches it any more: an overwritten pointer, a returning function's locals, a
    /// freed block that held the last pointer) confirm `false(valid-memtrack)`.
    fn memtrack_loss(
        &mut self,
        before: &ProductState,
        out: &[ProductState],
        from: usize,
        span: Option<SourceSpan>,
    ) -> Option<Verdict> {
        if !self.opts.target.memsafety {
            return None;
        }
        let candidates: Vec<usize> =
            (from..out.len()).filter(|&i| self.witness.graph[out[i].witness].violation).collect();
        if candidates.is_empty() {
            return None;
        }
        let Some(lost_before) = before.data.lost_blocks(before.returned.as_ref()) else {
            self.give_up(format!(
                "not modelled: whether memory is lost at {} (an address was converted to an integer)",
                self.line_of(span)
            ));
            return None;
        };
        for i in candidates {
            let s = &out[i];
            let Some(lost) = s.data.lost_blocks(s.returned.as_ref()) else { continue };
            if let Some(n) = lost.iter().find(|n| !lost_before.contains(n)) {
                let by = s.data.heap.get(n).map(|b| b.function.clone()).unwrap_or_default();
                let s = s.clone();
                if !self.approx_settled(&s) {
                    continue;
                }
                self.violated = Some("valid-memtrack");
                return Some(self.confirm(&s, format!("the last pointer to a block from `{by}` is lost")));
            }
        }
        None
    }

    /// Decision 74: the leak the property counts when the program ends in `s` (the property and
    /// what is lost), if any.
    /// `frames_live`: the program ends inside its functions (`exit`, `abort`), whose locals
    /// still reach blocks, as LeakSanitizer scans the stack at exit; after `main` returned only
    /// the globals do.
    fn leak(&mut self, s: &ProductState, frames_live: bool) -> Option<(&'static str, String)> {
        let (property, from_globals) = if self.opts.target.memcleanup {
            ("valid-memcleanup", false)
        } else if self.opts.target.memsafety {
            ("valid-memtrack", true)
        } else {
            return None;
        };
        let blocks = if from_globals && frames_live {
            s.data.lost_blocks(None).map(|b| b.into_iter().collect::<Vec<u32>>())
        } else {
            s.data.leaked_blocks(from_globals)
        };
        let Some(blocks) = blocks else {
            self.give_up(
                "not modelled: whether memory is lost at the end of the program (an address was converted to an \
                 integer)"
                    .into(),
            );
            return None;
        };
        let n = *blocks.first()?;
        let by = s.data.heap.get(&n).map(|b| b.function.clone()).unwrap_or_default();
        let how = if from_globals { "unreachable" } else { "still allocated" };
        Some((property, format!("a block from `{by}` {how} at the end of the program ({} such blocks)", blocks.len())))
    }

    /// Decision 76: at the end of the program, the state that runs the last registered `atexit`
    /// handler not run yet (its return leads back to the end, `main`'s exit), if there is one.
    fn run_atexit_handler(&mut self, s: &ProductState) -> Option<ProductState> {
        let cfa = self.cfa;
        let (handler, registered) = *s.atexit.last()?;
        let mut next = s.clone();
        Rc::make_mut(&mut next.atexit).pop();
        next.stack = Rc::new(vec![CallSite {
            callee: handler,
            call_edge: registered,
            return_loc: cfa.function(cfa.main).exit,
            lhs: None,
        }]);
        if let Err(EvalError::Unsupported(w)) = next.data.push_frame(cfa, handler, &[]) {
            self.give_up(format!("{w} (the `atexit` handler `{}`)", cfa.function(handler).name));
            return None;
        }
        next.loc = cfa.function(handler).entry;
        Some(next)
    }

    /// The program ends in `s` by returning from `main` (or after `exit`'s handlers): confirmed
    /// if the automaton is in a violation state and the property counts a leak here
    /// (decision 74).
    fn leak_at_end(&mut self, s: &ProductState) -> Option<Verdict> {
        if !self.witness.graph[s.witness].violation {
            return None;
        }
        let (property, what) = self.leak(s, s.exiting)?;
        if !self.approx_settled(s) {
            return None;
        }
        self.violated = Some(property);
        Some(self.confirm(s, what))
    }

    /// Applies the UB side conditions of a step: definite UB ends the path (unknown); possible
    /// UB is excluded with a warning, or recorded as a reason for unknown, as the policy says
    /// (decision 22), and the path continues under the condition that it does not happen.
    /// Returns false if the path ends.
    fn settle_definedness(
        &mut self,
        state: &mut ProductState,
        defined: Vec<Definedness>,
        span: Option<SourceSpan>,
    ) -> bool {
        let mut all = Truth::Known(true);
        let mut what = Vec::new();
        let defined = if self.collecting_violations {
            let Some(rest) = self.property_violations(state, defined, span) else { return false };
            rest
        } else {
            defined
        };
        let (gaps, defined): (Vec<_>, Vec<_>) = defined.into_iter().partition(|d| d.unmodelled);
        for g in gaps {
            // A modelling gap: where it may fail, the path is unknown whatever the policy; the
            // path goes on where it holds.
            match &g.holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    self.give_up(format!("not modelled: {} at {}", g.what, self.line_of(span)));
                    return false;
                }
                Truth::Sym(c) => {
                    match self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) {
                        Feasibility::Infeasible => continue,
                        Feasibility::Feasible => {
                            self.give_up(format!("not modelled: {} at {}", g.what, self.line_of(span)))
                        }
                        Feasibility::Unknown => self.give_up(format!(
                            "solver could not decide whether {} at {}",
                            g.what,
                            self.line_of(span)
                        )),
                    }
                    if !self.assume(state, g.holds.clone(), span) {
                        return false;
                    }
                }
            }
        }
        for d in defined {
            match &d.holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    self.give_up(format!("undefined behaviour ({}) at {}", d.what, self.line_of(span)));
                    return false;
                }
                Truth::Sym(_) => {
                    what.push(d.what.clone());
                    all = all.and(&d.holds);
                }
            }
        }
        let Truth::Sym(ok) = all else { return true };
        let may_fail = self.smt.check(&state.data.path.conjuncts(), &[&ok.not()]);
        if may_fail != Feasibility::Infeasible && self.layout_dependent(state, &ok) {
            self.give_up(format!(
                "not modelled: whether {} happens depends on where objects lie in memory at {}",
                what.join(", "),
                self.line_of(span)
            ));
            return false;
        }
        match may_fail {
            Feasibility::Infeasible => true,
            Feasibility::Unknown => {
                self.give_up(format!(
                    "solver could not decide whether {} is possible at {}",
                    what.join(", "),
                    self.line_of(span)
                ));
                false
            }
            Feasibility::Feasible => {
                let line = self.line_of(span);
                if self.opts.vector.is_some() {
                    // A test-vector run must be exact: no execution of it may have undefined behaviour.
                    self.give_up(format!("possible undefined behaviour ({}) at {line}", what.join(", ")));
                    return false;
                }
                match self.opts.undefined {
                    UndefinedBehaviour::Unknown => {
                        self.give_up(format!("possible undefined behaviour ({}) at {line}", what.join(", ")));
                    }
                    UndefinedBehaviour::Exclude => self.warn(format!(
                        "possible undefined behaviour ({}) at {line}: executions that have it are excluded \
                         (the task is assumed free of undefined behaviour; --undefined-behaviour unknown \
                         answers unknown instead)",
                        what.join(", ")
                    )),
                }
                match self.smt.check(&state.data.path.conjuncts(), &[&ok]) {
                    Feasibility::Feasible => {
                        state.data.constrain(ok);
                        true
                    }
                    Feasibility::Infeasible => {
                        // Every execution of this path has undefined behaviour here.
                        self.give_up(format!("undefined behaviour ({}) at {line}", what.join(", ")));
                        false
                    }
                    Feasibility::Unknown => {
                        self.give_up(format!("solver could not decide a path condition at {line}"));
                        false
                    }
                }
            }
        }
    }

    /// Adds a branch condition; false if the path becomes infeasible.
    fn assume(&mut self, state: &mut ProductState, t: Truth, span: Option<SourceSpan>) -> bool {
        match t {
            Truth::Known(b) => b,
            Truth::Sym(c) if self.layout_dependent(state, &c) => {
                // Decided only if it holds, or fails, for every layout the path allows.
                if self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) == Feasibility::Infeasible {
                    return true;
                }
                if self.smt.check(&state.data.path.conjuncts(), &[&c]) == Feasibility::Infeasible {
                    return false;
                }
                self.give_up(format!(
                    "not modelled: a condition that depends on where objects lie in memory (an address \
                     converted to an integer) at {}",
                    self.line_of(span)
                ));
                false
            }
            Truth::Sym(c) => match self.smt.check(&state.data.path.conjuncts(), &[&c]) {
                Feasibility::Feasible if self.opts.vector.is_some() => {
                    // A test-vector run must be exact: its inputs decide every branch. A
                    // condition that can go both ways depends on something they leave open
                    // (an uninitialised variable, a value not pinned): the run is not followed.
                    match self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) {
                        Feasibility::Infeasible => true,
                        _ => {
                            self.give_up(format!(
                                "the test-vector run's condition at {} depends on a value the witness's inputs leave \
                                 open (e.g. an uninitialised variable)",
                                self.line_of(span)
                            ));
                            false
                        }
                    }
                }
                Feasibility::Feasible => {
                    self.add_constraint(state, c);
                    true
                }
                Feasibility::Infeasible => false,
                Feasibility::Unknown => {
                    self.give_up(format!("solver could not decide a branch at {}", self.line_of(span)));
                    false
                }
            },
        }
    }

    /// Whether a condition involves the address of an object converted to an integer
    /// (decision 51).
    fn layout_dependent(&self, state: &ProductState, c: &Bool) -> bool {
        !state.data.layout.is_empty() && crate::semantics::memory::mentions_layout(c)
    }

    /// Adds a constraint to the path; a constraint pinning a symbol to a constant is applied
    /// as a substitution so that the rest of the path runs concretely.
    fn add_constraint(&mut self, state: &mut ProductState, c: Bool) {
        // Z3 normalises `(x == 5 ? 1 : 0) != 0` to `x == 5`.
        let c = if pinned_symbol(&c).is_none() { z3::ast::Ast::simplify(&c) } else { c };
        if let Some((sym, val)) = pinned_symbol(&c) {
            state.data.constrain(c);
            state.data.substitute(&sym, &val);
            match &mut state.returned {
                Some(AnyValue::Int(v)) => {
                    if let Val::Sym(t) = &v.val {
                        let t = z3::ast::Ast::substitute(t, &[(&sym, &val)]);
                        *v = Value::sym(t, v.ty);
                    }
                }
                Some(AnyValue::Float(v)) => {
                    if let FVal::Sym(t) = &v.val {
                        let t = z3::ast::Ast::substitute(t, &[(&sym, &val)]);
                        *v = FValue::sym(t, v.fty);
                    }
                }
                Some(AnyValue::Ptr(p)) => {
                    if let Val::Sym(t) = &p.offset.val {
                        let t = z3::ast::Ast::substitute(t, &[(&sym, &val)]);
                        p.offset = Value::sym(t, p.offset.ty);
                    }
                }
                None => {}
            }
        } else {
            state.data.constrain(c);
        }
    }

    /// The function a call through `fptr` calls in `state`; `None` (with the reason recorded)
    /// when the pointer is not certainly a function with a body whose parameters take `args`.
    fn resolve_call(
        &mut self,
        state: &ProductState,
        fptr: &crate::cfa::PExpr,
        args: &[Rvalue],
        span: Option<SourceSpan>,
    ) -> Option<crate::cfa::FuncId> {
        let cfa = self.cfa;
        let mut data = state.data.clone();
        let mut defined = Vec::new();
        let p = match data.eval_ptr(cfa, fptr, None, &mut defined) {
            Ok(p) => p,
            Err(EvalError::Unsupported(w)) => {
                self.give_up(format!("{w} at {}", self.line_of(span)));
                return None;
            }
        };
        if let Some(d) = defined.iter().find(|d| !matches!(d.holds, Truth::Known(true))) {
            self.give_up(format!("call through a function pointer: possible {} at {}", d.what, self.line_of(span)));
            return None;
        }
        let callee = match (p.obj, p.offset.known()) {
            (crate::semantics::Obj::Func(f), Some(0)) => f,
            (crate::semantics::Obj::Null, _) => {
                self.give_up(format!("undefined behaviour (call through a null pointer) at {}", self.line_of(span)));
                return None;
            }
            _ => {
                self.give_up(format!(
                    "undefined behaviour (call through a pointer that is not a function) at {}",
                    self.line_of(span)
                ));
                return None;
            }
        };
        let f = cfa.function(callee);
        let fits = f.params.len() == args.len()
            && f.params.iter().zip(args).all(|(p, a)| match (&cfa.var(*p).ty, a) {
                (crate::cfa::CType::Int(t), Rvalue::Int(e)) => *t == e.ty(),
                (crate::cfa::CType::Float(t), Rvalue::Float(e)) => *t == e.fty(),
                (crate::cfa::CType::Ptr, Rvalue::Ptr(_)) => true,
                _ => false,
            });
        if !fits {
            self.give_up(format!(
                "call of `{}` through a pointer of another function type at {}",
                f.name,
                self.line_of(span)
            ));
            return None;
        }
        Some(callee)
    }

    /// Executes one CFA edge on the data state.
    fn execute(&mut self, state: &ProductState, e: EdgeIndex, edge: &CfaEdge, target: NodeIndex) -> Step {
        let cfa = self.cfa;
        let mut next = state.clone();
        next.loc = target;
        let span = edge.span;
        macro_rules! unsupported {
            ($w:expr) => {{
                let w = $w;
                self.give_up(format!("{w} at {}", self.line_of(span)));
                return Step::End;
            }};
        }
        macro_rules! settle {
            ($r:expr) => {
                match $r {
                    Ok(defined) => {
                        if !self.settle_definedness(&mut next, defined, span) {
                            return Step::End;
                        }
                    }
                    Err(EvalError::Unsupported(w)) => unsupported!(w),
                }
            };
        }
        macro_rules! eval {
            ($e:expr) => {
                match next.data.eval(cfa, $e, None) {
                    Ok(ev) => {
                        if !self.settle_definedness(&mut next, ev.defined, span) {
                            return Step::End;
                        }
                        ev.value
                    }
                    Err(EvalError::Unsupported(w)) => unsupported!(w),
                }
            };
        }
        macro_rules! feval {
            ($e:expr) => {{
                let mut defined = Vec::new();
                let v = match next.data.eval_float(cfa, $e, None, &mut defined) {
                    Ok(v) => v,
                    Err(EvalError::Unsupported(w)) => unsupported!(w),
                };
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                v
            }};
        }
        macro_rules! peval {
            ($e:expr) => {{
                let mut defined = Vec::new();
                let v = match next.data.eval_ptr(cfa, $e, None, &mut defined) {
                    Ok(v) => v,
                    Err(EvalError::Unsupported(w)) => unsupported!(w),
                };
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                v
            }};
        }
        let mut result = None;
        match &edge.op {
            // Static storage is initialised before the program starts (`global_inits`).
            EdgeOp::Blank | EdgeOp::GlobalDeclaration => {}
            EdgeOp::ProgramStart => {
                if let Err(EvalError::Unsupported(w)) = next.data.push_frame(cfa, cfa.main, &[]) {
                    unsupported!(w)
                }
            }
            EdgeOp::Declare { var, init } => {
                settle!(next.data.initialise(cfa, *var, init.as_ref()))
            }
            EdgeOp::Assign { lhs, rhs } => {
                let v = eval!(rhs);
                settle!(next.data.assign(cfa, lhs, &v, None));
            }
            EdgeOp::AssignAll { writes } => {
                if !self.write_all(&mut next, writes, span) {
                    return Step::End;
                }
            }
            EdgeOp::FloatAssign { lhs, rhs } => {
                let v = feval!(rhs);
                settle!(next.data.assign_flv(cfa, lhs, &v, None));
            }
            EdgeOp::FloatNondetCall { function, lhs, fty } => {
                let (v, bits) = match self.guess_input(&mut next, edge, target) {
                    Some(text) => {
                        let b = crate::testvec::float_bits(&text, *fty).unwrap_or(0);
                        let bits = Value::conc(b, IntTy::new(fty.bits(), false));
                        (FValue::from_bits(&bits, *fty), bits)
                    }
                    None => next.data.nondet_float(function, *fty),
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_flv(cfa, lhs, &v, None));
                }
                result = Some(AnyValue::Int(bits));
            }
            EdgeOp::Assume { cond, .. } | EdgeOp::BuiltinAssume { cond } => {
                let v = eval!(cond);
                if !self.assume(&mut next, v.truth(), span) {
                    return Step::End;
                }
            }
            EdgeOp::Call { callee, args, lhs } => {
                if next.stack.len() >= MAX_CALL_DEPTH {
                    unsupported!(format!("call depth above {MAX_CALL_DEPTH} (unbounded recursion?)"))
                }
                let mut vals = Vec::new();
                for a in args {
                    vals.push(match a {
                        Rvalue::Int(e) => AnyValue::Int(eval!(e)),
                        Rvalue::Float(e) => AnyValue::Float(feval!(e)),
                        Rvalue::Ptr(p) => AnyValue::Ptr(peval!(p)),
                    });
                }
                Rc::make_mut(&mut next.stack).push(CallSite {
                    callee: *callee,
                    call_edge: e,
                    return_loc: target,
                    lhs: lhs.clone(),
                });
                if let Err(EvalError::Unsupported(w)) = next.data.push_frame(cfa, *callee, &vals) {
                    unsupported!(w)
                }
                next.loc = cfa.function(*callee).entry;
            }
            EdgeOp::Havoc { lhs, what } => {
                let what = format!("{what} at {}", self.line_of(span));
                for lv in lhs {
                    let v = next.data.havoc(lv.ty(), &what);
                    settle!(next.data.assign(cfa, lv, &v, None));
                }
                self.warn(format!("{what}: its outputs get any value (the assembly is not modelled)"));
            }
            EdgeOp::NondetCall { function, lhs, ty } => {
                let v = match self.guess_input(&mut next, edge, target) {
                    // A value outside a `_Bool`'s range is no value the call can return: 0 then.
                    Some(text) => match crate::testvec::integer_value(&text) {
                        Some(v) if !ty.is_bool || v == 0 || v == 1 => Value::from_i128(v, *ty),
                        _ => Value::conc(0, *ty),
                    },
                    None => next.data.nondet(function, *ty),
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign(cfa, lhs, &v, None));
                }
                result = Some(AnyValue::Int(v));
            }
            EdgeOp::Return { value, writes } => {
                let func = cfa.function(next.stack.last().map(|c| c.callee).unwrap_or(cfa.main));
                if !writes.is_empty() && !self.write_all(&mut next, writes, span) {
                    return Step::End;
                }
                if let Some(e) = value {
                    let v = match e {
                        Rvalue::Int(e) => AnyValue::Int(eval!(e)),
                        Rvalue::Float(e) => AnyValue::Float(feval!(e)),
                        Rvalue::Ptr(p) => AnyValue::Ptr(peval!(p)),
                    };
                    match (func.return_ty, &func.return_unsupported) {
                        (_, Some(w)) => unsupported!(format!("return value of type {w}")),
                        (Some(ty), None) => {
                            let mut defined = Vec::new();
                            let v = v.convert(ty, &mut defined);
                            if !self.settle_definedness(&mut next, defined, span) {
                                return Step::End;
                            }
                            next.returned = Some(v.clone());
                            result = Some(v);
                        }
                        (None, None) => {}
                    }
                }
                next.loc = func.exit;
            }
            EdgeOp::Error { kind, function } => {
                let counts = match kind {
                    ErrorKind::ReachError | ErrorKind::VerifierError => {
                        self.opts.target.functions.iter().any(|f| f == function)
                    }
                    ErrorKind::ErrorLabel => self.opts.target.label,
                    ErrorKind::AssertFail => false,
                };
                if counts {
                    return Step::Violation(next, function.clone());
                }
                match kind {
                    ErrorKind::ErrorLabel => {}
                    ErrorKind::AssertFail => unsupported!(
                        "a failing assert() aborts the program, which is not the property's error function".to_string()
                    ),
                    _ => unsupported!(format!("call to `{function}`, which is not the error function of the property")),
                }
            }
            EdgeOp::PtrAssign { lhs, rhs } => {
                let v = peval!(rhs);
                settle!(next.data.assign_ptr(cfa, lhs, &v));
            }
            EdgeOp::Alloc { function, lhs, size, zeroed, overflow, stack } => {
                let mut null_result = false;
                if let Some(o) = overflow {
                    let o = eval!(o);
                    match self.pin(&next, o).truth() {
                        // `calloc(n, m)` with n·m past `SIZE_MAX` returns a null pointer.
                        Truth::Known(true) => null_result = true,
                        Truth::Known(false) => {}
                        holds @ Truth::Sym(_) => {
                            // The null result of an overflowing request would be another
                            // execution; not modelled: unknown where the request may overflow.
                            let gap = Definedness {
                                holds: holds.not(),
                                what: format!("`{function}` of a number of bytes that may overflow `size_t`"),
                                unmodelled: true,
                                kind: None,
                            };
                            if !self.settle_definedness(&mut next, vec![gap], span) {
                                return Step::End;
                            }
                        }
                    }
                }
                let p = if null_result {
                    crate::semantics::PtrVal::null()
                } else {
                    let n = eval!(size);
                    let n = self.pin(&next, n);
                    let bound = self.size_bound(&next, &n);
                    match next.data.allocate(function, &n, bound, *zeroed, *stack) {
                        Ok(p) => p,
                        Err(EvalError::Unsupported(w)) => unsupported!(w),
                    }
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &p));
                }
            }
            EdgeOp::Realloc { lhs, ptr, size } => {
                let old = peval!(ptr);
                let n = eval!(size);
                let n = self.pin(&next, n);
                let bound = self.size_bound(&next, &n);
                let mut defined = Vec::new();
                let p = match next.data.reallocate(cfa, &old, &n, bound, &mut defined) {
                    Ok(p) => p,
                    Err(EvalError::Unsupported(w)) => unsupported!(w),
                };
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &p));
                }
            }
            EdgeOp::StrFn { function, args, n, lhs } => {
                let mut ptrs = Vec::new();
                for a in args {
                    ptrs.push(peval!(a));
                }
                let limit = match n {
                    Some(n) => {
                        let n = eval!(n);
                        match self.pin(&next, n).known() {
                            Some(k) => Some(k as u64),
                            None => unsupported!(format!("`{function}` of a symbolic number of bytes")),
                        }
                    }
                    None => None,
                };
                let mut defined = Vec::new();
                let mut strings = Vec::new();
                // `strcpy` reads only its source; its destination holds anything.
                let read = if function == "strcpy" { &ptrs[1..] } else { &ptrs[..] };
                for p in read {
                    match next.data.known_bytes(cfa, p, limit, function != "memcmp", &mut defined) {
                        Ok(b) => strings.push(b),
                        Err(EvalError::Unsupported(w)) => unsupported!(format!("`{function}`: {w}")),
                    }
                }
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                let int_result = |v: Value, next: &mut ProductState| match lhs {
                    Some(Target::Int(lv)) => {
                        Some(next.data.assign(cfa, lv, &crate::semantics::value::cast(&v, lv.ty()), None))
                    }
                    _ => None,
                };
                match function.as_str() {
                    "strlen" => {
                        let v = Value::conc(strings[0].len() as u64, IntTy::new(cfa.data_model.long_bits(), false));
                        if let Some(r) = int_result(v, &mut next) {
                            settle!(r);
                        }
                    }
                    "strcpy" => {
                        let mut defined = Vec::new();
                        let len = strings[0].len() as u64 + 1;
                        if let Err(EvalError::Unsupported(w)) =
                            next.data.copy_bytes(cfa, &ptrs[0], &ptrs[1], len, false, &mut defined)
                        {
                            unsupported!(w)
                        }
                        if !self.settle_definedness(&mut next, defined, span) {
                            return Step::End;
                        }
                        if let Some(Target::Ptr(lv)) = lhs {
                            settle!(next.data.assign_ptr(cfa, lv, &ptrs[0]));
                        }
                    }
                    _ => {
                        // memcmp compares all bytes; the string functions stop after a NUL.
                        let (a, b) = (&strings[0], &strings[1]);
                        let order = a.cmp(b);
                        let v = if order == std::cmp::Ordering::Equal {
                            Value::conc(0, IntTy::INT)
                        } else {
                            let r = next.data.symbol(function, IntTy::INT);
                            let zero = z3::ast::BV::from_u64(0, 32);
                            let sign = if order == std::cmp::Ordering::Less {
                                r.term().bvslt(&zero)
                            } else {
                                r.term().bvsgt(&zero)
                            };
                            self.add_constraint(&mut next, sign);
                            r
                        };
                        if let Some(r) = int_result(v, &mut next) {
                            settle!(r);
                        }
                    }
                }
            }
            EdgeOp::MemBytes { function, lhs, dst, src, n } => {
                let to = peval!(dst);
                let count = eval!(n);
                let Some(count) = self.pin(&next, count).known() else {
                    unsupported!(format!("`{function}` of a symbolic number of bytes"))
                };
                if count as u64 > MAX_MEM_BYTES {
                    unsupported!(format!("`{function}` of {count} bytes"))
                }
                let mut defined = Vec::new();
                let done = match src {
                    MemSource::Byte(c) => {
                        let c = eval!(c);
                        next.data.set_bytes(cfa, &to, &c, count as u64, &mut defined)
                    }
                    MemSource::Copy { src, overlap_ok } => {
                        let from = peval!(src);
                        next.data.copy_bytes(cfa, &to, &from, count as u64, *overlap_ok, &mut defined)
                    }
                };
                if let Err(EvalError::Unsupported(w)) = done {
                    unsupported!(w)
                }
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &to));
                }
            }
            EdgeOp::Free { ptr } => {
                let p = peval!(ptr);
                let mut defined = Vec::new();
                next.data.free(cfa, &p, &mut defined);
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
            }
            EdgeOp::CallPtr { .. } => unsupported!("unresolved call through a function pointer".to_string()),
            EdgeOp::AtExit { handler, lhs } => {
                Rc::make_mut(&mut next.atexit).push((*handler, e));
                if let Some(lv) = lhs {
                    settle!(next.data.assign(cfa, lv, &Value::conc(0, lv.ty()), None));
                }
            }
            EdgeOp::Terminate { function } => {
                // exit() runs the `atexit` handlers first (decision 76).
                if function == "exit" {
                    next.exiting = true;
                    if let Some(h) = self.run_atexit_handler(&next) {
                        return Step::Next(h, None);
                    }
                }
                // exit()/abort(): the program ends here (decision 74); the leak, if any, is the
                // violation of this step.
                if let Some((property, what)) = self.leak(&next, true) {
                    self.pending_violations.push((next, what, property));
                }
                return Step::End;
            }
            EdgeOp::Unsupported { what } => unsupported!(what.clone()),
        }
        Step::Next(next, result)
    }

    /// Several writes as one step ([`EdgeOp::AssignAll`], struct results): every right-hand
    /// side is read in the state before the step, then the writes happen in order. False if
    /// the path ends (undefined behaviour, or something unsupported: given up).
    fn write_all(&mut self, next: &mut ProductState, writes: &[Write], span: Option<SourceSpan>) -> bool {
        let cfa = self.cfa;
        enum Read {
            Int(Value),
            Float(FValue),
            Ptr(crate::semantics::PtrVal),
            Array(crate::semantics::Slot),
            Declare,
        }
        let mut defined = Vec::new();
        let mut reads = Vec::with_capacity(writes.len());
        for w in writes {
            let r = match w {
                Write::Int { rhs, .. } => next.data.eval(cfa, rhs, None).map(|ev| {
                    defined.extend(ev.defined);
                    Read::Int(ev.value)
                }),
                Write::Float { rhs, .. } => next.data.eval_float(cfa, rhs, None, &mut defined).map(Read::Float),
                Write::Ptr { rhs, .. } => next.data.eval_ptr(cfa, rhs, None, &mut defined).map(Read::Ptr),
                Write::Array { src, .. } => next.data.read_array(cfa, *src).map(Read::Array),
                Write::Declare { .. } => Ok(Read::Declare),
            };
            match r {
                Ok(r) => reads.push(r),
                Err(EvalError::Unsupported(w)) => {
                    self.give_up(format!("{w} at {}", self.line_of(span)));
                    return false;
                }
            }
        }
        if !self.settle_definedness(next, defined, span) {
            return false;
        }
        for (w, r) in writes.iter().zip(reads) {
            let done = match (w, r) {
                (Write::Declare { var, init }, _) => next.data.initialise(cfa, *var, init.as_ref()),
                (Write::Int { lhs, .. }, Read::Int(v)) => next.data.assign(cfa, lhs, &v, None),
                (Write::Float { lhs, .. }, Read::Float(v)) => next.data.assign_flv(cfa, lhs, &v, None),
                (Write::Ptr { lhs, .. }, Read::Ptr(v)) => next.data.assign_ptr(cfa, lhs, &v),
                (Write::Array { dst, .. }, Read::Array(s)) => next.data.write_array(cfa, *dst, &s).map(|()| Vec::new()),
                _ => Err(EvalError::Unsupported("malformed multiple assignment".into())),
            };
            match done {
                Ok(defined) => {
                    if !self.settle_definedness(next, defined, span) {
                        return false;
                    }
                }
                Err(EvalError::Unsupported(w)) => {
                    self.give_up(format!("{w} at {}", self.line_of(span)));
                    return false;
                }
            }
        }
        true
    }

    /// `n` as a constant if the path pins it to one value (e.g. by a witness assumption).
    /// The largest value a symbolic allocation size can have on this path, if it is at most
    /// the largest block (1 MiB, decisions 50 and 135; else `u64::MAX`: not modelled); found
    /// by bisection with the solver.
    fn size_bound(&mut self, state: &ProductState, n: &Value) -> Option<u64> {
        const LIMIT: u64 = crate::semantics::memory::MAX_BLOCK;
        if !matches!(n.val, Val::Sym(_)) {
            return None;
        }
        let unsigned = crate::semantics::value::cast(n, IntTy::ULLONG).term();
        let above = |k: u64| unsigned.bvugt(z3::ast::BV::from_u64(k, 64));
        if !matches!(self.smt.check(&state.data.path.conjuncts(), &[&above(LIMIT)]), Feasibility::Infeasible) {
            return Some(u64::MAX); // too large (or undecided): the allocation says so
        }
        let (mut lo, mut hi) = (0u64, LIMIT); // the maximum lies in [lo, hi]
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.smt.check(&state.data.path.conjuncts(), &[&above(mid)]) {
                Feasibility::Feasible => lo = mid + 1,
                Feasibility::Infeasible => hi = mid,
                Feasibility::Unknown => return Some(u64::MAX),
            }
        }
        Some(hi)
    }

    fn pin(&mut self, state: &ProductState, n: Value) -> Value {
        let Val::Sym(t) = &n.val else { return n };
        let unique = self.smt.model_values(&state.data.path.conjuncts(), std::slice::from_ref(t)).and_then(|m| {
            let v = *m.first()?;
            let other = t.eq(z3::ast::BV::from_u64(v, n.ty.bits)).not();
            matches!(self.smt.check(&state.data.path.conjuncts(), &[&other]), Feasibility::Infeasible).then_some(v)
        });
        match unique {
            Some(v) => Value::conc(v, n.ty),
            None => n,
        }
    }

    /// Existential segments: can a run at `loc` (with `s`'s calls to return from) still reach a
    /// step on the line of transition `t`'s waypoint? A run that cannot never passes it, so
    /// letting the present visit go by is of no use to it.
    fn may_revisit(&mut self, t: EdgeIndex, loc: NodeIndex, s: &ProductState) -> bool {
        let reach = match self.revisit.get(&t) {
            Some(r) => r.clone(),
            None => {
                let Some(r) = transition_lines(&self.witness.graph[t]) else { return true };
                let reach = Rc::new(ErrorReach::towards(self.cfa, &line_seeds(self.cfa, &[r])));
                self.revisit.insert(t, reach.clone());
                reach
            }
        };
        reach.may_reach(loc, s.stack.iter().map(|c| c.return_loc))
    }

    /// Matches a step against the witness state's transitions and pushes the successors.
    fn advance_witness(
        &mut self,
        next: ProductState,
        info: &StepInfo,
        action: Action,
        nondet: Option<Nondet>,
        out: &mut Vec<ProductState>,
    ) {
        let w = self.witness;
        let q = next.witness;
        let mut next = next;
        next.arrival = false;
        let vector_run = self.opts.vector.is_some();
        let push = |mut s: ProductState, node: NodeIndex, out: &mut Vec<ProductState>| {
            s.witness = node;
            s.trace = Some(Rc::new(TraceNode {
                parent: s.trace.take(),
                span: info.span,
                function: (!Self::is_global_step(info)).then_some(info.scope_function),
                action,
                witness_node: node,
                nondet: nondet.clone(),
            }));
            out.push(s);
        };
        if w.graph[q].violation || vector_run {
            push(next, q, out); // absorbing; a test-vector run does not follow the automaton
            return;
        }
        // One step may pass several transitions: YAML segments whose waypoints are evaluated
        // at the same point (an event of the step, then arrival at the next statement); in
        // GraphML, state assertions followed by the transition they precede in a producer's
        // finer CFA (decision 40); in the permissive reading any chain. `frontier` holds
        // (state, node, chain length, whether the run was already pushed as ending there).
        let exact = w.exact_locations;
        if !self.opts.permissive {
            self.note_wrong_branches(q, info);
        }
        let mut frontier = vec![(next, q, 0usize, false)];
        while let Some((mut cur, node, depth, pushed)) = frontier.pop() {
            // Decision 40: after a state assertion, only a transition that names the step's kind.
            let split = depth > 0 && !exact && !self.opts.permissive;
            let candidates: Vec<EdgeIndex> = w
                .graph
                .edges_directed(node, Direction::Outgoing)
                .filter(|t| {
                    depth == 0
                        || self.opts.permissive
                        || (split && !Self::is_state_assertion(t.weight()))
                        || (exact && Self::is_arrival(t.weight()))
                })
                .filter(|t| self.guard_matches(t.id(), info))
                .map(|t| t.id())
                .collect();
            // Avoid waypoints: a run that passes one dies; otherwise it learns that it did not.
            if !self.apply_avoids(&mut cur, &candidates, info) {
                continue;
            }
            let follows: Vec<EdgeIndex> = candidates.into_iter().filter(|t| !w.graph[*t].avoid).collect();
            if follows.is_empty() {
                if !pushed {
                    push(cur, node, out);
                }
                continue;
            }
            let mut stay = self.opts.permissive && depth > 0 && !pushed;
            let mut live = 0usize;
            // A transition into a sink whose guard pins the step by validated offsets is a
            // deliberate "not this way" of the witness; even the permissive reading keeps it.
            let mut deliberate_sink = false;
            for t in follows {
                let Some((_, target)) = w.graph.edge_endpoints(t) else {
                    continue;
                };
                let tr = &w.graph[t];
                if depth == 0 {
                    if self.opts.stutter == StutterMode::Lenient && self.next_step_matches(info.target, t) {
                        stay = true;
                    }
                    // A transition whose place is lost may mean another step of its line.
                    if self.opts.permissive && self.approximate.contains_key(&t) {
                        stay = true;
                    }
                    // Lassos: only the stem forks; the rejections of a lasso (decision 95) do not
                    // rest on the waypoints of its loop part (decision 97).
                    // A run that lets this visit go by must be able to come back to the
                    // waypoint's line; otherwise staying can never pass it.
                    if exact
                        && self.opts.segments == SegmentReading::Existential
                        && !self.cycle_nodes.contains(&node)
                        && self.may_revisit(t, info.target, &cur)
                    {
                        stay = true;
                    }
                }
                if w.graph[target].sink && self.offsets.offsets_of(w, t).is_some() {
                    deliberate_sink = true;
                }
                if w.graph[target].sink {
                    self.note_dead_end(
                        t,
                        info,
                        "sink",
                        "the program's step is one the witness sends to a sink node".into(),
                    );
                    continue; // this run can never confirm
                }
                if !w.graph[target].violation && !self.distance.contains_key(&target) {
                    continue; // this run can never confirm
                }
                if !self.decision_matches(tr, info) {
                    continue; // wrong branch: the requirement is false
                }
                let mut s = cur.clone();
                if let Some(a) = &tr.assumption {
                    if !self.apply_assumption(&mut s, t, a, info) {
                        continue;
                    }
                }
                if self.opts.target.termination && w.graph[target].cycle_head {
                    s.arrival = true;
                }
                if let Some(why) = self.approximate.get(&t) {
                    self.fired_approximate.insert(t);
                    // The permissive reading also lets the run stay (below): it allows the runs
                    // of every choice of the place, so firing is no guess there.
                    if !self.opts.permissive {
                        let why = why.clone();
                        self.doubts.loosen(why.clone());
                        self.doubts.tighten(why);
                    }
                }
                live += 1;
                let open = !w.graph[target].violation && target != node;
                if (self.opts.permissive || exact) && depth < 16 && open {
                    if self.opts.permissive {
                        push(s.clone(), target, out);
                    }
                    frontier.push((s, target, depth + 1, self.opts.permissive));
                } else if !exact && depth == 0 && open && Self::is_state_assertion(tr) {
                    // Decision 40: the run may end here, or the step may also pass the
                    // transition after it, the other half of the producer's split step.
                    push(s.clone(), target, out);
                    frontier.push((s, target, depth + 1, true));
                } else {
                    push(s, target, out);
                }
            }
            // Permissive reading: a step whose every matching transition dies (sink, failed
            // assumption, no violation reachable) may be skipped, as if it were invisible.
            if stay || (self.opts.permissive && live == 0 && !deliberate_sink && !pushed) {
                push(cur, node, out);
            }
        }
    }

    /// A GraphML transition that says nothing about the kind of step it matches (no branch,
    /// no function entry or return, no loop head, no `\result` of a call): only its lines and
    /// its assumption. In a producer's finer CFA it may be a step of its own before the one the
    /// next transition matches (decision 40).
    fn is_state_assertion(t: &WitnessTransition) -> bool {
        let g = &t.guard;
        t.assumption.as_ref().is_none_or(|a| a.result_function.is_none())
            && g.control.is_none()
            && !g.enter_loop_head
            && g.enter_function.is_none()
            && g.return_from_function.is_none()
            && t.decision.is_none()
            && !t.avoid
    }

    /// A transition evaluated when control arrives at a statement (YAML `assumption`).
    fn is_arrival(t: &WitnessTransition) -> bool {
        matches!(&t.guard.anchor, Some(a) if a.kind == AnchorKind::Statement)
    }

    /// Remembers the branch transitions out of `q` whose construct this step decides the other
    /// way (for explanations only).
    fn note_wrong_branches(&mut self, q: NodeIndex, info: &StepInfo) {
        let StepKind::Edge(edge) = info.kind else { return };
        let source_truth = match &edge.op {
            EdgeOp::Assume { source_truth, .. } => Some(*source_truth),
            _ => None,
        };
        if edge.decision.is_none() && source_truth.is_none() {
            return;
        }
        let w = self.witness;
        for t in w.graph.edges_directed(q, Direction::Outgoing) {
            let tr = t.weight();
            if tr.avoid || self.wrong_branch.contains_key(&t.id()) {
                continue;
            }
            let wrong = if tr.decision.is_some() {
                self.guard_matches(t.id(), info) && !self.decision_matches(tr, info)
            } else if let (Some(c), Some(truth)) = (tr.guard.control, source_truth) {
                let on_line = match (tr.guard.lines, info.span) {
                    (Some(l), Some(sp)) => l.overlaps(sp.start_line as u64, sp.end_line as u64),
                    _ => false,
                };
                on_line && truth != (c == Control::ConditionTrue)
            } else {
                false
            };
            if wrong {
                self.wrong_branch.insert(t.id(), edge.text.clone());
            }
        }
    }

    /// Does the step take the branch decision a transition requires (if it requires one)?
    fn decision_matches(&self, tr: &WitnessTransition, info: &StepInfo) -> bool {
        let Some(want) = &tr.decision else { return true };
        let StepKind::Edge(edge) = info.kind else { return false };
        let Some(d) = &edge.decision else { return false };
        match (want, &d.outcome) {
            (DecisionValue::Bool(a), BranchOutcome::Bool(b)) => a == b,
            (DecisionValue::Case(v), BranchOutcome::Case(k)) => v == k,
            (DecisionValue::Case(v), BranchOutcome::CaseRange(lo, hi)) => lo <= v && v <= hi,
            (DecisionValue::Default, BranchOutcome::Default) => true,
            _ => false,
        }
    }

    /// Applies the avoid transitions among `matched` to the state. Returns false if the run
    /// passes one of them (and dies).
    fn apply_avoids(&mut self, s: &mut ProductState, matched: &[EdgeIndex], info: &StepInfo) -> bool {
        let w = self.witness;
        for &t in matched {
            let tr = &w.graph[t];
            if !tr.avoid || !self.decision_matches(tr, info) {
                continue;
            }
            let Some(a) = &tr.assumption else { return false };
            match self.assumption_truth(s, t, a, info) {
                Some(Truth::Known(true)) => return false,
                Some(Truth::Known(false)) => {}
                Some(Truth::Sym(c)) => {
                    if !self.assume(s, Truth::Sym(c.not()), info.span) {
                        return false;
                    }
                }
                None => {
                    // The constraint cannot be evaluated: neither passing nor avoiding is certain.
                    self.give_up(format!("the constraint of the avoid waypoint at {} cannot be evaluated", tr.origin));
                    return false;
                }
            }
        }
        true
    }

    /// Lenient stutter: does an observable edge right after `loc` (through blank edges) also
    /// match the guard?
    fn next_step_matches(&self, loc: NodeIndex, t: EdgeIndex) -> bool {
        self.cfa.blank_closure(loc).into_iter().any(|l| {
            self.cfa.graph.edges_directed(l, Direction::Outgoing).any(|e| {
                let edge = e.weight();
                let info = StepInfo {
                    kind: StepKind::Edge(edge),
                    span: edge.span,
                    scope_function: edge.function,
                    target: e.target(),
                    result: None,
                    closure: Default::default(),
                };
                !matches!(edge.op, EdgeOp::Blank) && self.guard_matches(t, &info)
            })
        })
    }

    /// The blank closure of a step's target location, computed once per step.
    fn target_closure<'s>(&self, info: &'s StepInfo) -> &'s [NodeIndex] {
        info.closure.get_or_init(|| self.cfa.blank_closure(info.target))
    }

    /// Source-code guard of a transition against one observable step (digest §5).
    fn guard_matches(&self, t: EdgeIndex, info: &StepInfo) -> bool {
        let cfa = self.cfa;
        let tr: &WitnessTransition = &self.witness.graph[t];
        let g: &LocationGuard = &tr.guard;
        if g.anchor.is_some() {
            return self.anchor_matches(t, info);
        }
        // Decision 46: a global declaration is seen only by a transition that names its place.
        if Self::is_global_step(info) && g.lines.is_none() && self.offsets.offsets_of(self.witness, t).is_none() {
            return false;
        }
        if let Some(lines) = g.lines {
            match info.span {
                Some(s) if lines.overlaps(s.start_line as u64, s.end_line as u64) => {}
                _ => return false,
            }
        }
        if let Some(off) = self.offsets.offsets_of(self.witness, t) {
            match info.span {
                Some(s) if off.overlaps(s.start_offset as u64, s.end_offset as u64) => {}
                _ => return false,
            }
        }
        if let Some(allowed) = self.pins.get(&t) {
            match info.span {
                Some(s) if allowed.contains(&(s.start_offset, s.end_offset)) => {}
                _ => return false,
            }
        }
        if let Some(c) = g.control {
            match info.kind {
                StepKind::Edge(CfaEdge { op: EdgeOp::Assume { source_truth, .. }, .. }) => {
                    if *source_truth != (c == Control::ConditionTrue) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        if g.enter_loop_head && !self.target_closure(info).iter().any(|l| self.cfa.graph[*l].loop_head) {
            return false;
        }
        if let Some(f) = &g.enter_function {
            let ok = match info.kind {
                StepKind::Edge(CfaEdge { op: EdgeOp::Call { callee, .. }, .. }) => &cfa.function(*callee).name == f,
                StepKind::Edge(CfaEdge { op: EdgeOp::ProgramStart, .. }) => &cfa.function(cfa.main).name == f,
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        if let Some(f) = &g.return_from_function {
            if !self.step_returns_from(info, f) {
                return false;
            }
        }
        if g.create_thread.is_some() {
            return false; // threads are not modelled: no step creates one
        }
        if let Some(a) = &tr.assumption {
            if let Some(rf) = &a.result_function {
                if !self.step_returns_from(info, rf) {
                    return false;
                }
            }
        }
        true
    }

    /// Is the step a file-scope declaration (before `main` is entered)?
    fn is_global_step(info: &StepInfo) -> bool {
        matches!(info.kind, StepKind::Edge(CfaEdge { op: EdgeOp::GlobalDeclaration, .. }))
    }

    /// Exact anchors (YAML waypoints): which step passes the waypoint's location.
    fn anchor_matches(&self, t: EdgeIndex, info: &StepInfo) -> bool {
        let Some(resolved) = self.anchors.get(&t) else { return false };
        match (resolved, info.kind) {
            (ResolvedAnchor::Statement { nodes, offset }, _) => {
                let closure = self.target_closure(info);
                closure.iter().any(|n| nodes.contains(n))
                    // Decision 93: the recurrence waypoint names the loop statement; every
                    // iteration arrives at its head.
                    || (self.opts.target.termination
                        && self.witness.graph.edge_endpoints(t).is_some_and(|(_, to)| self.witness.graph[to].cycle_head)
                        && loop_heads_of(self.cfa, nodes, *offset).iter().any(|m| closure.contains(m)))
            }
            (ResolvedAnchor::Branching { construct }, StepKind::Edge(e)) => {
                e.decision.as_ref().is_some_and(|d| d.construct == *construct)
            }
            (ResolvedAnchor::FunctionEnter { parens }, StepKind::Edge(e)) => {
                matches!(e.op, EdgeOp::Call { .. } | EdgeOp::NondetCall { .. } | EdgeOp::FloatNondetCall { .. })
                    && e.call_paren.is_some_and(|p| parens.contains(&p))
            }
            (ResolvedAnchor::FunctionReturn { parens }, StepKind::Edge(e)) => {
                matches!(e.op, EdgeOp::NondetCall { .. } | EdgeOp::FloatNondetCall { .. })
                    && e.call_paren.is_some_and(|p| parens.contains(&p))
            }
            (ResolvedAnchor::FunctionReturn { parens }, StepKind::FunctionReturn { call_edge, .. }) => {
                self.cfa.edge(call_edge).call_paren.is_some_and(|p| parens.contains(&p))
            }
            (ResolvedAnchor::Target { offsets }, StepKind::Edge(e)) => {
                (self.opts.target.operations() || matches!(e.op, EdgeOp::Error { .. }))
                    && e.span.is_some_and(|s| offsets.contains(&s.start_offset))
            }
            _ => false,
        }
    }

    /// Does the step leave function `f` (return statement in it, return edge from it, or a call
    /// of `f` when it has no body)?
    fn step_returns_from(&self, info: &StepInfo, f: &str) -> bool {
        let cfa = self.cfa;
        match info.kind {
            StepKind::FunctionReturn { callee, .. } => cfa.function(callee).name == f,
            StepKind::Edge(edge) => match &edge.op {
                EdgeOp::Return { .. } => cfa.function(edge.function).name == f,
                EdgeOp::NondetCall { function, .. } | EdgeOp::FloatNondetCall { function, .. } => function == f,
                _ => false,
            },
        }
    }

    /// Evaluates a transition's assumption on the post-state; false if it cannot hold.
    /// Lowers a transition's assumption for this step and evaluates each conjunct on the
    /// state: a truth value, or why the conjunct cannot be used.
    fn eval_assumption(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        entry: Option<usize>,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Vec<Result<Truth, String>> {
        let lowered = self.lowered_assumption(t, entry, a, info);
        lowered.conjuncts.iter().map(|conj| self.eval_conjunct(s, conj, lowered.scope, info)).collect()
    }

    /// A transition's assumption lowered for this step (in its scope), one entry per conjunct.
    fn lowered_assumption(
        &mut self,
        t: EdgeIndex,
        entry: Option<usize>,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> LoweredAssumption {
        let cfa = self.cfa;
        let scope_function = match &a.scope {
            // At file scope no function's locals exist: globals only (decision 46).
            _ if Self::is_global_step(info) => None,
            Some(name) => match cfa.function_by_name(name) {
                Some(f) => Some(f),
                None => {
                    let why = format!("assumption scope `{name}` names no function of the program; using globals only");
                    // The names may have meant another variable: neither more nor fewer runs.
                    self.doubts.loosen(why.clone());
                    self.doubts.tighten(why.clone());
                    self.warn(why);
                    None
                }
            },
            None => Some(info.scope_function),
        };
        let offset = match self.anchors.get(&t) {
            Some(ResolvedAnchor::Statement { offset, .. }) => Some(*offset),
            _ => info.span.map(|s| s.start_offset),
        };
        let result_ty = info.result.as_ref().map(|v| v.ty());
        let key = (t, scope_function, offset, result_ty, entry);
        let lowered = match self.assumption_cache.get(&key) {
            Some(l) => l.clone(),
            None => {
                let scope = AssumptionScope { function: scope_function, offset, result_ty };
                let mut all = Vec::new();
                for text in &a.expressions {
                    all.extend(lower_assumption(cfa, text, &scope));
                }
                // Producers (CBMC) write the parameters a call passes on the call's step, in the
                // caller's scope (`foo = 1` for `one(1)`). A conjunct that names no variable of
                // its scope is read in the callee's, where the step's post-state is: a guess of
                // the binding, so from now on this exploration may confirm but not reject.
                if let StepKind::Edge(CfaEdge { op: EdgeOp::Call { callee, .. }, .. }) = info.kind {
                    let texts: Vec<String> =
                        a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)).collect();
                    if texts.len() == all.len() && Some(*callee) != scope_function {
                        let in_callee = AssumptionScope { function: Some(*callee), offset: None, result_ty };
                        for (conj, text) in all.iter_mut().zip(&texts) {
                            let unknown = matches!(conj, Err(m) if m.starts_with(crate::cfront::NO_SUCH_OBJECT));
                            if !unknown {
                                continue;
                            }
                            if let Some(Ok(e)) = lower_assumption(cfa, text, &in_callee).into_iter().next() {
                                self.doubts.tighten(format!(
                                    "`{text}` at {} names no variable of its scope; read in the scope of `{}`, the \
                                     function the step calls",
                                    self.witness.graph[t].origin,
                                    cfa.function(*callee).name
                                ));
                                *conj = Ok(e);
                            }
                        }
                    }
                }
                let l = Rc::new(Lowered { scope: scope_function, conjuncts: all });
                self.assumption_cache.insert(key, l.clone());
                l
            }
        };
        lowered
    }

    /// Evaluates one lowered conjunct on the state, under its path condition: a truth value,
    /// or why it cannot be used. An operation of the conjunct whose definedness the path
    /// condition implies (`a[i]` after `i == 2`) is defined (issue 19, cause 1).
    fn eval_conjunct(
        &mut self,
        s: &mut ProductState,
        conj: &Result<crate::cfa::Expr, String>,
        scope: Option<FuncId>,
        info: &StepInfo,
    ) -> Result<Truth, String> {
        let expr = conj.as_ref().map_err(|m| m.clone())?;
        let result = info.result.as_ref();
        // In the running frame (a conjunct read in a callee's scope is there); failing that, in
        // the innermost activation of the function the assumption's scope names.
        let ev = match s.data.eval(self.cfa, expr, result) {
            Ok(ev) => ev,
            Err(EvalError::Unsupported(m)) => match scope {
                Some(f) => s.data.eval_in_frame_of(self.cfa, expr, result, f).map_err(|_| m)?,
                None => return Err(m),
            },
        };
        for d in &ev.defined {
            match &d.holds {
                Truth::Known(true) => {}
                Truth::Known(false) => return Err(format!("its evaluation is undefined ({})", d.what)),
                Truth::Sym(c) => {
                    if self.smt.check(&s.data.path.conjuncts(), &[&c.not()]) != Feasibility::Infeasible {
                        return Err(format!("its evaluation may be undefined ({})", d.what));
                    }
                }
            }
        }
        Ok(ev.value.truth())
    }

    /// The conjunction of an assumption, or None if some conjunct cannot be evaluated.
    fn assumption_truth(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Option<Truth> {
        let mut all = Truth::Known(true);
        for c in self.eval_assumption(s, t, None, a, info) {
            all = all.and(&c.ok()?);
        }
        Some(all)
    }

    /// Evaluates a transition's assumption on the post-state and adds it to the path; false
    /// if it cannot hold. Conjuncts that cannot be used are dropped with a warning (this can
    /// only add runs).
    fn apply_assumption(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> bool {
        let origin = self.witness.graph[t].origin.clone();
        let lowered = self.lowered_assumption(t, None, a, info);
        // In order, each under the path condition the earlier ones left (`i == 2 && a[i] == 7`).
        for (i, conj) in lowered.conjuncts.iter().enumerate() {
            match self.eval_conjunct(s, conj, lowered.scope, info) {
                Err(msg) if msg.starts_with(crate::cfront::AMBIGUOUS) => {
                    self.give_up(format!("assumption at {origin}: {msg}"));
                    return false;
                }
                Err(msg) if msg.starts_with(crate::cfront::NO_SUCH_OBJECT) => {
                    // A claim about an object the program does not have at this step (a
                    // producer's own variable, another function's local): it constrains no
                    // program state, so every reading drops it (decision 97).
                    self.warn(format!("assumption at {origin} ignored in part: {msg}"))
                }
                Err(msg) => {
                    // Dropping a conjunct lets the witness allow more runs: from now on this
                    // exploration may reject but not confirm (decision 97).
                    let text = a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)).nth(i);
                    let what = match text {
                        Some(c) => format!("assumption `{c}` at {origin} cannot be evaluated: {msg}"),
                        None => format!("a conjunct of the assumption at {origin} cannot be evaluated: {msg}"),
                    };
                    self.doubts.loosen(what);
                    self.warn(format!("assumption at {origin} ignored in part: {msg}"))
                }
                Ok(truth) => {
                    if !self.assume(s, truth, info.span) {
                        self.note_infeasible(s, t, i, a, info);
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Remembers a false assumption if it is the nearest to a violation state so far.
    fn note_infeasible(
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
    fn furthest_step(&self) -> Option<InfeasibleStep> {
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
    fn nearer_dead_end(&self, t: EdgeIndex) -> bool {
        let Some((from, _)) = self.witness.graph.edge_endpoints(t) else { return false };
        let d = self.distance.get(&from).copied().unwrap_or(u32::MAX);
        self.infeasible.as_ref().is_none_or(|(best, _)| *best > d)
    }

    /// Notes where the witness's path ends if it got nearer to a violation state than before.
    fn note_dead_end(&mut self, t: EdgeIndex, info: &StepInfo, kind: &'static str, what: String) {
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
    fn operand_value(
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

    /// Guessing run (decision 67): the value the witness gives for the nondet call `edge` (the
    /// first of the next few test-vector entries whose transition matches the step and whose
    /// variable is the call's), advancing the run's position past it. `None` outside a guessing
    /// run and when the witness gives none (the value is then 0: see [`DataState::nondet`]).
    fn guess_input(&self, s: &mut ProductState, edge: &CfaEdge, target: NodeIndex) -> Option<String> {
        let guess = self.opts.guess.as_ref()?;
        let var = match &edge.op {
            EdgeOp::NondetCall { lhs: Some(crate::cfa::Lvalue::Var { var, .. }), .. } => Some(*var),
            EdgeOp::FloatNondetCall { lhs: Some(crate::cfa::FLvalue::Var { var, .. }), .. } => Some(*var),
            _ => None,
        };
        let info = StepInfo {
            kind: StepKind::Edge(edge),
            span: edge.span,
            scope_function: edge.function,
            target,
            result: None,
            closure: Default::default(),
        };
        let (i, entry) =
            guess.entries.iter().enumerate().skip(s.vec_pos).take(GUESS_LOOKAHEAD).find(|(_, entry)| {
                let var_fits = match &entry.variable {
                    Some(x) => var.is_some_and(|v| &self.cfa.var(v).name == x),
                    None => true,
                };
                var_fits && self.guard_matches(entry.transition, &info)
            })?;
        s.vec_pos = i + 1;
        Some(entry.value.clone())
    }

    /// Test-vector run: the nondet call `edge` takes the vector's next value. False (with the
    /// reason recorded) when the witness gives no value for it, the next value belongs to
    /// another step, or the value is impossible for it: nothing is guessed.
    fn take_input(
        &mut self,
        s: &mut ProductState,
        edge: &CfaEdge,
        target: NodeIndex,
        result: Option<&AnyValue>,
    ) -> bool {
        let Some(vector) = self.opts.vector.clone() else { return true };
        let cfa = self.cfa;
        let raw = result;
        let (function, var, result) = match (&edge.op, result) {
            (EdgeOp::NondetCall { function, lhs, .. }, r) => {
                let var = match lhs {
                    Some(crate::cfa::Lvalue::Var { var, .. }) => Some(*var),
                    _ => None,
                };
                (function, var, r.cloned())
            }
            (EdgeOp::FloatNondetCall { function, lhs, fty }, Some(AnyValue::Int(bits))) => {
                let var = match lhs {
                    Some(crate::cfa::FLvalue::Var { var, .. }) => Some(*var),
                    _ => None,
                };
                (function, var, Some(AnyValue::Float(FValue::from_bits(bits, *fty))))
            }
            _ => return true,
        };
        let line = self.line_of(edge.span);
        let pos = s.vec_pos;
        let Some(entry) = vector.entries.get(pos) else {
            self.give_up(format!(
                "the witness gives no value for input {} (the call of `{function}` at {line}), and none is guessed",
                pos + 1
            ));
            return false;
        };
        let info = StepInfo {
            kind: StepKind::Edge(edge),
            span: edge.span,
            scope_function: edge.function,
            target,
            result,
            closure: Default::default(),
        };
        let var_fits = match &entry.variable {
            Some(x) => var.is_some_and(|v| &cfa.var(v).name == x),
            None => true,
        };
        if !var_fits || !self.guard_matches(entry.transition, &info) {
            self.give_up(format!(
                "the witness gives no value for input {} (the call of `{function}` at {line}; its next value, `{}` at \
                 {}, belongs to another step), and none is guessed",
                pos + 1,
                entry.text,
                entry.origin
            ));
            return false;
        }
        let a = crate::witness::Assumption {
            expressions: vec![entry.text.clone()],
            scope: entry.scope.clone(),
            result_function: None,
        };
        for conj in self.eval_assumption(s, entry.transition, Some(pos), &a, &info) {
            let holds = match conj {
                // The input value itself narrows the call's fresh value: not a branch of the run.
                Ok(Truth::Sym(c)) => match self.smt.check(&s.data.path.conjuncts(), &[&c]) {
                    Feasibility::Feasible => {
                        self.add_constraint(s, c);
                        true
                    }
                    Feasibility::Infeasible => false,
                    Feasibility::Unknown => {
                        self.give_up(format!("solver could not decide an input value at {line}"));
                        return false;
                    }
                },
                Ok(Truth::Known(b)) => b,
                Err(msg) => {
                    self.give_up(format!(
                        "the witness's input value `{}` at {} cannot be used: {msg}",
                        entry.text, entry.origin
                    ));
                    return false;
                }
            };
            if !holds {
                self.give_up(format!(
                    "the witness's input value `{}` at {} is impossible for the call of `{function}` at {line}",
                    entry.text, entry.origin
                ));
                return false;
            }
        }
        // The value must be one bit pattern: a float equality does not pin the bits
        // syntactically (`x == 22.8` holds for one pattern, `x == 0.0` for two, `x == NAN` for
        // many), and a run on a value the witness leaves open would be a guess.
        if let Some(AnyValue::Int(raw)) = raw {
            if let Val::Sym(t) = &raw.val {
                let Val::Conc(bits) = self.pin(s, raw.clone()).val else {
                    self.give_up(format!(
                        "the witness's input value `{}` at {} leaves more than one value (bit pattern) for the call \
                         of `{function}` at {line}, and none is guessed",
                        entry.text, entry.origin
                    ));
                    return false;
                };
                let eq = t.eq(z3::ast::BV::from_u64(bits, raw.ty.bits));
                self.add_constraint(s, eq);
            }
        }
        s.vec_pos += 1;
        true
    }

    /// Decisions 58/59: a violating path through values known only approximately (inline-asm
    /// outputs, libm results) confirms only if it holds for every value they may take (the
    /// other inputs fixed to one model); otherwise the path ends in unknown, naming them.
    fn approx_settled(&mut self, s: &ProductState) -> bool {
        if s.data.approx.is_empty() {
            return true;
        }
        let approx: Vec<_> = s.data.approx.iter().map(|a| (a.sym.clone(), a.domain.clone())).collect();
        match self.smt.holds_for_all(&s.data.path.conjuncts(), &approx) {
            Some(true) => true,
            r => {
                let mut what: Vec<&str> = s.data.approx.iter().map(|a| a.what.as_str()).collect();
                what.dedup();
                let why = if r.is_none() { "the solver could not decide whether" } else { "not" };
                self.give_up(format!(
                    "the error is reached only for some of the values that {} may produce, and {why} every value \
                     leads there: which value the real program gets is not modelled exactly",
                    what.join(", ")
                ));
                false
            }
        }
    }

    /// Builds the confirmed verdict with a trace (nondeterministic values from a model).
    fn confirm(&mut self, s: &ProductState, function: String) -> Verdict {
        let cfa = self.cfa;
        let mut nodes = Vec::new();
        let mut cur = s.trace.clone();
        while let Some(n) = cur {
            cur = n.parent.clone();
            nodes.push(n);
        }
        nodes.reverse();
        let terms: Vec<z3::ast::BV> = nodes
            .iter()
            .filter_map(|n| n.nondet.as_ref())
            .filter_map(|(_, v, _)| match &v.val {
                Val::Sym(t) => Some(t.clone()),
                Val::Conc(_) => None,
            })
            .collect();
        let model =
            if terms.is_empty() { Some(Vec::new()) } else { self.smt.model_values(&s.data.path.conjuncts(), &terms) };
        let mut model_iter = model.unwrap_or_default().into_iter();
        let file = String::new();
        let trace = nodes
            .iter()
            .map(|n| TraceStep {
                file: file.clone(),
                line: n.span.map(|s| s.start_line).unwrap_or(0),
                function: n.function.map_or_else(|| FILE_SCOPE.to_string(), |f| cfa.function(f).name.clone()),
                action: match n.action {
                    Action::Edge(e) => cfa.edge(e).text.clone(),
                    Action::Return(f) => format!("return from {}", cfa.function(f).name),
                },
                witness_node: self.witness.graph[n.witness_node].id.clone(),
                nondet: n.nondet.as_ref().map(|(f, v, fty)| {
                    let bits = match &v.val {
                        Val::Conc(b) => Some(*b),
                        Val::Sym(_) => model_iter.next(),
                    };
                    let render = |b: u64| match fty {
                        Some(fty) => crate::semantics::float::render(b, *fty),
                        None => as_i128(b, v.ty).to_string(),
                    };
                    NondetChoice {
                        function: f.clone(),
                        value: bits.map(render).unwrap_or_else(|| "?".into()),
                        bits: bits.map(|b| (b, fty.map(|t| t.bits()))),
                    }
                }),
            })
            .collect();
        Verdict::Confirmed { trace, error_function: function }
    }

    /// The scope of the recurrent set at a state: the function whose frame is on top, and the
    /// offset of the step that arrived (for shadowed names).
    fn invariant_scope(&self, s: &ProductState) -> AssumptionScope {
        AssumptionScope {
            function: Some(s.stack.last().map(|c| c.callee).unwrap_or(self.cfa.main)),
            offset: s.trace.as_ref().and_then(|t| t.span).map(|sp| sp.start_offset),
            result_ty: None,
        }
    }

    /// Evaluates the recurrent set (a C expression) in a state: its truth, or why it cannot be
    /// used (parse error, unknown name, possibly undefined evaluation).
    fn eval_invariant(&mut self, s: &mut ProductState, text: &str) -> Result<Truth, String> {
        let scope = self.invariant_scope(s);
        let mut all = Truth::Known(true);
        for conj in lower_assumption(self.cfa, text, &scope) {
            let expr = conj?;
            let ev = s.data.eval(self.cfa, &expr, None).map_err(|EvalError::Unsupported(m)| m)?;
            if ev.defined.iter().any(|d| !matches!(d.holds, Truth::Known(true))) {
                return Err("its evaluation may be undefined".to_string());
            }
            all = all.and(&ev.value.truth());
        }
        Ok(all)
    }

    /// The concrete values of the names the recurrent set mentions, e.g. `x = 5, y = 0`.
    fn describe(&mut self, s: &mut ProductState, text: &str) -> String {
        let scope = self.invariant_scope(s);
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
        let mut parts = Vec::new();
        for name in names {
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
    fn recurrence_check(&mut self, s: &ProductState, text: &str) -> Result<Option<ProductState>, String> {
        if self.recurrence.is_some() {
            return Err("nested recurrence check".into());
        }
        let not_modelled = |what: &str| Err(format!("the recurrent set `{text}` is not proven closed: {what}"));
        let mut g = s.clone();
        if !g.data.approx.is_empty() || !g.data.layout.is_empty() || !g.data.unspecified.is_empty() {
            return not_modelled("approximated values or addresses as integers");
        }
        if g.returned.is_some() || !g.data.heap.is_empty() {
            return not_modelled("a returned value or heap memory at the cycle head");
        }
        g.data.path = Default::default();
        let cells = |slots: &std::collections::BTreeMap<crate::cfa::VarId, crate::semantics::Slot>| -> usize {
            slots
                .values()
                .map(|s| match s {
                    crate::semantics::Slot::Array { cells, .. } => cells.len(),
                    _ => 1,
                })
                .sum()
        };
        let total = cells(&g.data.globals) + g.data.frames.iter().map(|f| cells(&f.locals)).sum::<usize>();
        if total > MAX_RECURRENCE_CELLS {
            return not_modelled(&format!("more than {MAX_RECURRENCE_CELLS} variables and array cells"));
        }
        let mut ok = true;
        // `links`: each new symbol equals the value it replaces in `s` (only for the trace).
        let mut links: Vec<Bool> = Vec::new();
        let mut general = |slots: &mut std::collections::BTreeMap<crate::cfa::VarId, crate::semantics::Slot>,
                           data: &mut DataState| {
            for slot in slots.values_mut() {
                match slot {
                    crate::semantics::Slot::Scalar(v) => {
                        let new = data.symbol("rec", v.ty);
                        links.push(v.term().eq(new.term()));
                        *v = new;
                    }
                    crate::semantics::Slot::Array { elem, cells } => {
                        let elem = *elem;
                        let new: Vec<Option<Val>> = cells
                            .iter()
                            .map(|c| {
                                c.as_ref().map(|old| {
                                    let new = data.symbol("rec", elem);
                                    let old = crate::semantics::Value { val: old.clone(), ty: elem };
                                    links.push(old.term().eq(new.term()));
                                    new.val
                                })
                            })
                            .collect();
                        *cells = Rc::new(new);
                    }
                    crate::semantics::Slot::PtrUninit
                    | crate::semantics::Slot::Opaque
                    | crate::semantics::Slot::External => {}
                    _ => ok = false,
                }
            }
        };
        let mut data = g.data.clone();
        let mut globals = (*g.data.globals).clone();
        general(&mut globals, &mut data);
        let mut frames = (*g.data.frames).clone();
        for f in frames.iter_mut() {
            let mut locals = (*f.locals).clone();
            general(&mut locals, &mut data);
            f.locals = Rc::new(locals);
        }
        if !ok {
            return not_modelled("floats, pointers or memory objects at the cycle head");
        }
        data.globals = Rc::new(globals);
        data.frames = Rc::new(frames);
        g.data = data;
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
        self.recurrence = Some(RecurrencePass { returns: Vec::new(), examples: Vec::new(), failure: None });
        let repeats_before = self.repeats;
        let verdict = self.run_from(g);
        // The pass's own joins of paths say nothing about the runs the witness allows.
        self.repeats = repeats_before;
        self.max_states = max_before;
        let rec = self.recurrence.take();
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
    fn mark_visits(
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
    fn lasso_arrival(&mut self, mut s: ProductState) -> Arrival {
        let head = s.witness;
        if !self.witness.graph[head].cycle_head {
            self.give_up("a step passes the cycle head and leaves it at once (not modelled)".into());
            return Arrival::Drop;
        }
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
        if self.recurrence.is_some() {
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
            if let Some(rec) = self.recurrence.as_mut() {
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
            if self.lasso_firsts.len() < MAX_LASSO_FIRSTS {
                self.lasso_firsts.push(s.clone());
            } else if self.lasso_open.is_empty() {
                self.lasso_open.push(format!("more than {MAX_LASSO_FIRSTS} runs reach the cycle head"));
            }
            let key = (s.data.is_concrete() && s.returned.is_none()).then(|| s.lasso_key());
            if key.is_none() && self.opts.guess.is_none() && self.lasso_firsts.len() <= MAX_RECURRENCE_CHECKS {
                // Decision 96: a symbolic state in the set; one symbolic pass from every state
                // of the set may show that the set is closed.
                match self.recurrence_check(&s, &text) {
                    Ok(example) => {
                        let values = self.describe(&mut s, &text);
                        self.violated = Some("termination");
                        let what = format!(
                            "the recurrent set `{text}` is reached at the cycle head (entered at line {line}: {values}) and is \
                             closed: from every state in it, each pass the loop part allows comes back to the head \
                             inside it (one symbolic pass, bit-precise)"
                        );
                        // The stem and one pass when a returning path of `s` was found.
                        let shown = example.unwrap_or_else(|| s.clone());
                        return Arrival::Confirm(self.confirm(&shown, what));
                    }
                    Err(why) => self.lasso_open.push(why),
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
            self.lasso_open.push(format!(
                "the recurrent set is not closed: at visit {count} of the cycle head (entered at line {line}), {values} is not in `{text}`"
            ));
            return Arrival::Drop;
        }
        if !s.data.is_concrete() || s.returned.is_some() {
            self.lasso_open.push(format!(
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
                self.violated = Some("termination");
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
        if count == SYMBOLIC_AFTER_VISITS && self.opts.guess.is_none() && self.recurrence_checks < MAX_RECURRENCE_CHECKS
        {
            self.recurrence_checks += 1;
            match self.recurrence_check(&s, &text) {
                Ok(example) => {
                    let values = self.describe(&mut s, &text);
                    self.violated = Some("termination");
                    let what = format!(
                        "the recurrent set `{text}` is reached at the cycle head (entered at line {line}: {values}, visit \
                         {count} of a run whose state had not repeated) and is closed: from every state in it, each pass \
                         the loop part allows comes back to the head inside it (one symbolic pass, bit-precise)"
                    );
                    let shown = example.unwrap_or_else(|| s.clone());
                    return Arrival::Confirm(self.confirm(&shown, what));
                }
                Err(why) => self.lasso_open.push(why),
            }
        }
        if count >= MAX_HEAD_VISITS {
            self.lasso_open.push(format!(
                "the state at the cycle head (entered at line {line}) did not repeat within {MAX_HEAD_VISITS} visits"
            ));
            return Arrival::Drop;
        }
        s.heads = Some(Rc::new(HeadVisit { parent: Some(prev), key: Some(key), count, trace: s.trace.clone() }));
        Arrival::Go(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> (String, WitnessAutomaton) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/graphml").join(name);
        let src = std::fs::read_to_string(dir.join("program.c")).expect("program");
        let path = dir.join("witness.graphml");
        let bytes = std::fs::read(&path).expect("witness");
        (src, crate::witness::graphml::read_graphml(&path, &bytes).expect("graphml"))
    }

    #[test]
    fn the_choices_of_a_lost_place_are_the_sets_a_range_can_overlap() {
        // Two disjoint conditions: either, or both.
        let two = overlap_sets(&[(10, 14), (20, 25)]).expect("short line");
        assert_eq!(two, vec![vec![(10, 14)], vec![(10, 14), (20, 25)], vec![(20, 25)]]);
        // A call around two conditions: every range that meets a condition meets the call.
        let nested = overlap_sets(&[(0, 40), (10, 14), (20, 25)]).expect("short line");
        assert_eq!(nested.len(), 4);
        assert!(nested.iter().all(|set| set.contains(&(0, 40))));
        assert!(nested.contains(&vec![(0, 40)]));
        // A line too long to try every range: no case split.
        assert!(overlap_sets(&[(0, 10), (900, 910)]).is_none());
    }

    #[test]
    fn a_shift_that_moves_a_value_claim_off_its_variables_is_found() {
        // `k == 1 && b[k] == 4` sits on `b[k] = __VERIFIER_nondet_int();` (line 7).
        let (src, w) = fixture("conjuncts-in-order-reject");
        let names = HashSet::from(["b", "k"]);
        assert_eq!(misplaced_claim(&src, &w, &names), None);
        // One line up it lands on `if (k < 0 || k > 2) return 0;`, which does not mention `b`.
        let up = misplaced_claim(&src, &shift_lines(&w, -1), &names).expect("misplaced");
        // A name of no program variable (a producer's own) is not held against the shift.
        assert_eq!(misplaced_claim(&src, &shift_lines(&w, -1), &HashSet::from(["k"])), None);
        assert!(up.contains("does not mention `b`"), "{up}");
    }
}
