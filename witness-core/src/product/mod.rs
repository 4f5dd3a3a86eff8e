//! Exploration of the product of the program's CFA and the witness automaton (format digest
//! §6): a product state is (CFA location, call stack, witness state, data state). Each program
//! step is matched against the witness state's outgoing transitions by their source-code
//! guards; matched transitions' assumptions are evaluated on the step's post-state.
//!
//! The product knows witness formats only through [`LocationGuard`] and [`Assumption`](crate::witness::Assumption); it
//! knows C only through the CFA's IR and the `semantics` module.
//!
//! Verdict rules: a violation (call of the property's error function) while the automaton is in
//! a violation state confirms; exhausting every path the witness allows without that rejects;
//! anything uncertain on some allowed path (unsupported feature, possible undefined behaviour,
//! solver gave up, budget) turns a would-be rejection into unknown.
//!
//! Layout: this file holds the state (`ProductState` and its visited-set key), the options, the
//! outcome, one exploration (`explore_once`: the worklist with its budgets, ending in the gate
//! of decision 97) and confirmation traces. Each concern beside it has its own file:
//! `portfolio` (which readings run and how their outcomes combine; the public entry points),
//! `transfer` (one CFA step on the data, property checks, undefined behaviour), `matching`
//! (a step against the witness automaton, assumptions), `lasso` (non-termination), `explain`
//! (where the witness's path died, for reports). Invariant: only `explore_once` turns an
//! exploration's verdict into a conclusion, through `reading::conclude`.

use crate::budget::Deadline;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::time::Duration;

use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use z3::ast::Bool;

use crate::anchors::{loop_heads_of, Anchors, ResolvedAnchor};
use crate::cfa::{
    BranchOutcome, Cfa, CfaEdge, EdgeOp, ErrorKind, FloatTy, FuncId, IntTy, MemSource, Place, Routine, ScalarTy,
    SourceSpan, Target, Write,
};
use crate::cfront::{lower_assumption, AssumptionScope, ConjunctError};
use crate::offsets::OffsetPlan;
use crate::reach::ErrorReach;
use crate::reading::{self, Claim, Doubts, Reading};
use crate::semantics::value::{as_i128, Definedness, Truth};
use crate::semantics::{pinned_symbol, AnyValue, DataState, EvalError, FVal, FValue, Feasibility, Smt, Val, Value};
use crate::shortcuts::{Shortcut, Shortcuts};
use crate::testvec::TestVector;
use crate::verdict::{ErrorCall, NondetChoice, Taken, TraceStep, Verdict};
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

mod explain;
mod havoc;
mod invariants;
use explain::Explanation;
mod lasso;
mod matching;
mod por;
mod portfolio;
mod projection;
mod race;
mod search_reading;
mod shown;
use shown::{Recorded, Subject};
mod threads;
mod transfer;
mod unreached;
use threads::*;

pub(crate) use invariants::may_recurse;
pub use invariants::{prove_invariants, refute_invariants, refute_short, InvariantOutcome};
use lasso::*;
pub use portfolio::explore;
pub use portfolio::run_test_vector;
use portfolio::*;
pub use search_reading::SearchReading;

/// Settings of one exploration.
pub struct ExploreOptions {
    pub deadline: Deadline,
    pub budget_secs: u64,
    pub stutter: StutterMode,
    pub target: ErrorTarget,
    /// How this exploration reads the witness: as written, permissively (to double-check a
    /// rejection), with guessed values, or as a test vector; its direction with it.
    pub reading: SearchReading,
    /// How YAML segments are matched.
    pub segments: SegmentReading,
    /// What possible undefined behaviour on an allowed path means.
    pub undefined: UndefinedBehaviour,
    /// Resident size in bytes at which the exploration stops with `unknown` (decision 68).
    pub memory_limit: crate::resources::MemoryLimit,
    /// Resident bytes of the process when the validation began: the limit bounds what the
    /// validation adds, not what its caller holds (issue 20).
    pub memory_baseline: u64,
    /// Leave a search's states to the process's end when the budget or the memory limit ends
    /// it (decision 168).
    pub leave_states: bool,
    /// The shortcuts that may run (decision 237); partial-order reduction among them
    /// (decisions 155, 176), off to check it against the full search (`tests/shortcuts.rs`).
    pub shortcuts: crate::shortcuts::Shortcuts,
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
    /// A confirmed data race: its two accesses, in the witness's order (issue 32 cause 18).
    pub race: Option<[crate::verdict::RaceAccess; 2]>,
    /// Transitions that fired on a guess of the place they mean, with the places they could
    /// mean (decision 98); empty when some guess has no case split.
    ambiguous: Vec<(EdgeIndex, Vec<(usize, usize)>)>,
    /// Whom a conclusion reached without a failed step blames (the explanation of a rejection
    /// reads it, never the reason's text).
    pub blame: Option<Blame>,
    /// A rejection's longest prefix: the run of the program the witness allowed that got
    /// nearest to a violation state (issue 35 item 8); empty otherwise.
    pub prefix: Vec<TraceStep>,
    /// The shortcut that reached the verdict, if one did (decision 237).
    pub decided_by: Option<Shortcut>,
    /// The shortcuts that removed states or runs from the exploration that decided.
    pub used: Shortcuts,
}

/// Whom a rejection without a failed step of the witness's path blames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blame {
    /// The program: no run of it can violate the property, whatever the witness says.
    Program,
    /// The witness: at a transition (its position `line:column` in the witness file), or as a
    /// whole.
    Witness { origin: Option<String> },
}

impl Outcome {
    /// `outcome`, reached by `shortcut` (decision 237): its conclusion passes the shortcut's
    /// declared direction.
    fn by_shortcut(shortcut: Shortcut, mut outcome: Outcome) -> Outcome {
        let verdict = std::mem::replace(&mut outcome.verdict, Verdict::Rejected);
        let (verdict, why) = shortcut.admit(Claim::Violation, verdict);
        outcome.verdict = verdict;
        if let Some(why) = why {
            outcome.reason = why;
        }
        outcome.decided_by = Some(shortcut);
        outcome
    }

    /// A conclusion reached without exploring (no states, no solver calls, no warnings).
    fn without_run(verdict: Verdict, reason: String, strict_rejected: bool, blame: Blame) -> Outcome {
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
            race: None,
            ambiguous: Vec::new(),
            blame: Some(blame),
            prefix: Vec::new(),
            decided_by: None,
            used: Shortcuts::NONE,
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
    /// The step's nondet choice and the values it shows (decision 221).
    values: Option<Rc<Recorded>>,
    /// The thread that took the step (multi-threaded programs).
    thread: Option<u32>,
    /// Steps from the start to this one (1 for the first): a rejection's longest prefix is
    /// the deepest run among those nearest to a violation state (issue 35 item 8).
    depth: u32,
}

/// A path of a million steps is a list a million nodes long: dropped recursively, it overflows
/// the stack (found by `tests/shortcuts.rs`, whose search without pruning follows a 10^8-pass
/// loop to the budget on a test thread's stack). The nodes no other path shares are dropped one
/// by one here instead.
impl Drop for TraceNode {
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(rc) = next {
            next = match Rc::try_unwrap(rc) {
                Ok(mut node) => node.parent.take(),
                Err(_) => None,
            };
        }
    }
}

/// What a trace step did, rendered only for a confirmation's trace (a string per product
/// state would be most of the product's memory).
#[derive(Clone, Copy)]
enum Action {
    /// The CFA edge's statement text.
    Edge(EdgeIndex),
    /// Leaving the function back to its caller.
    Return(FuncId),
    /// A created thread enters its start routine.
    ThreadStart(FuncId),
    /// YAML 2.2: a thread is at a statement when the witness passes a waypoint there (no step).
    Arrive,
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
    /// A multi-threaded program's other threads (issue 22); `None` for a sequential program.
    threads: Option<Rc<Threads>>,
    /// The threads in the order they last took a step (most recent last): the search tries
    /// recent threads first. Not part of the state's identity (it only orders the search).
    recent: Rc<Vec<u32>>,
    /// Correctness witnesses (issue 23): the cut points (loop heads) the path has passed since
    /// the start of an induction window.
    passes: u8,
    /// The step that made this state fired a witness transition (into `witness`); not part of
    /// the state's identity.
    entered: bool,
}

/// What identifies a product state in the visited set: its `LassoKey` (the state without the
/// path condition), the path condition, the test-vector position, the cycle-head visits so far,
/// and what makes a state approximate (issue 19, cause 12): the unspecified union bytes, whether
/// the path read some, and how many values and addresses it knows only approximately. A precise
/// state is never merged with an approximate one.
type StateKey = (LassoKey, crate::semantics::PathCond, usize, u32, Approximation, u8);

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
            self.threads.clone(),
            self.data.others.clone(),
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
            self.passes,
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
impl<'a> StepInfo<'a> {
    /// The step of `edge` into `target`, with no value (`\result`), in the edge's function.
    fn of_edge(edge: &'a CfaEdge, target: NodeIndex) -> StepInfo<'a> {
        StepInfo {
            kind: StepKind::Edge(edge),
            span: edge.span,
            scope_function: edge.function,
            target,
            result: None,
            closure: Default::default(),
        }
    }
}

type AssumptionKey = (EdgeIndex, Option<FuncId>, Option<usize>, Option<ScalarTy>, Option<usize>);
/// An assumption lowered for one step: its conjuncts, and the function whose scope it names.
struct Lowered {
    scope: Option<FuncId>,
    conjuncts: Vec<Result<crate::cfa::Expr, ConjunctError>>,
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
    /// The observer that explains a rejection (decision 78).
    explain: Explanation,
    /// Property no-overflow: a program step is being executed, so overflow conditions are
    /// violations to collect (not while assumptions are evaluated).
    collecting_violations: bool,
    /// The states in which the step being executed overflows, with what overflows (decision 72):
    /// one per operation of the step that may overflow.
    /// A leak's lost blocks ride along (issue 51 cause 7).
    pending_violations: Vec<(ProductState, String, &'static str, Vec<crate::verdict::LostBlock>)>,
    /// The values the step being executed shows in a trace (decision 221).
    recorded: Vec<(Subject, AnyValue)>,
    /// The property (SV-COMP name) the confirmation violates, for operations (decision 73).
    violated: Option<&'static str>,
    /// A confirmed data race's two accesses (`race.rs`).
    race: Option<[crate::verdict::RaceAccess; 2]>,
    /// States the visited set turned away (a cycle or a join of paths).
    repeats: u64,
    /// What unmapping the process's resident memory at exit takes, as last sampled: the search
    /// stops this much before its deadline (decision 173).
    exit_cost: Duration,
    /// Most product states explored (free runs of a non-termination check).
    max_states: Option<u64>,
    /// Non-termination witnesses: what the lasso search found so far (decisions 93–96).
    lasso: LassoSearch,
    /// Constraints of the witness this exploration dropped or added (decision 97).
    doubts: Doubts,
    /// What this search loses of the program's runs, or knows only approximately (decision 184).
    coverage: reading::Coverage,
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
    /// The initial values of the thread-local variables: a new thread's copies (issue 22).
    tls_init: Vec<crate::semantics::Slot>,
    /// YAML 2.2: the thread each thread-creating `function_enter` transition registers (the
    /// k-th registers thread k).
    creates: HashMap<EdgeIndex, String>,
    /// A waiting thread is being matched against the witness's statement waypoints (YAML 2.2,
    /// see `threads::Explorer::arrivals`).
    arriving: bool,
    /// Per witness state, the transitions that can still fire (partial-order reduction).
    live: HashMap<NodeIndex, Rc<Vec<EdgeIndex>>>,
    /// The CFA's cut points (every cycle of a function passes one), computed on first use.
    cuts: Option<Rc<HashSet<NodeIndex>>>,
    /// Correctness witnesses: the invariants as an observer of the search (issue 23).
    observer: Option<Box<invariants::Observer>>,
    /// Decision 213: why no run can reach the witness's violation, found before the search.
    out_of_reach: Option<InfeasibleStep>,
    /// Decision 227: this exploration follows one thread against any behaviour of the others.
    projection: Option<projection::Projection>,
    /// The shortcut that decided this exploration's verdict before its search (decision 237).
    decided_by: Option<Shortcut>,
    /// The shortcuts that removed states from it.
    used: Shortcuts,
}

/// The pruning of a search towards `opts`'s violations and `seeds` (decision 180), or none when
/// the shortcut is off (decision 237).
pub(crate) fn search_reach(cfa: &Cfa, opts: &ExploreOptions, seeds: &[NodeIndex]) -> ErrorReach {
    if opts.shortcuts.allows(Shortcut::Pruning) {
        ErrorReach::pruning(cfa, &opts.target, seeds)
    } else {
        ErrorReach::everywhere(cfa)
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
        None if opts.reading.lines_only() => OffsetPlan::LinesOnly,
        None => crate::offsets::plan(cfa, witness, &mut ex.warnings),
    };
    (ex.approximate, ex.places) = approximate_transitions(&ex);
    if let Some(pins) = pins {
        ex.approximate.retain(|t, _| !pins.contains_key(t));
        ex.pins = pins.clone();
    }
    let mut verdict = ex.run();
    let mut lasso_reason = None;
    if opts.target.lasso() && opts.reading.follows_automaton() {
        if let Verdict::Confirmed { error_function, .. } = &verdict {
            lasso_reason = Some(format!("witness confirmed (non-termination): {error_function}"));
        } else if !opts.reading.guesses() {
            let (v, r) = ex.lasso_verdict(verdict);
            verdict = v;
            lasso_reason = Some(r);
        }
    }
    let reason = match &verdict {
        _ if lasso_reason.is_some() => lasso_reason.unwrap_or_default(),
        Verdict::Confirmed { trace, error_function, .. } => {
            let line = trace.last().map(|s| s.line).unwrap_or(0);
            if opts.target.race() {
                format!("witness confirmed: {error_function} (after {} steps)", trace.len())
            } else if opts.target.operations() {
                format!("witness confirmed: {error_function} at line {line} after {} steps", trace.len())
            } else {
                // RERS: `__VERIFIER_error(7)` names the code it reached (issue 21).
                let call =
                    if error_function.ends_with(')') { error_function.clone() } else { format!("{error_function}()") };
                format!("witness confirmed: {call} is reached at line {line} after {} steps", trace.len())
            }
        }
        Verdict::Rejected => ex.out_of_reach.as_ref().map(|s| s.what.clone()).unwrap_or_else(|| {
            format!("no path allowed by the witness reaches the error ({} product states explored)", ex.states)
        }),
        Verdict::Unknown { reason } => reason.clone(),
    };
    // Decision 98: the fired transitions whose places were guessed, if each has a case split.
    let ambiguous = if ex.fired_approximate.iter().all(|t| ex.places.contains_key(t)) {
        ex.fired_approximate.iter().map(|t| (*t, ex.places[t].clone())).collect()
    } else {
        Vec::new()
    };
    let infeasible = ex.explanation();
    // Issue 35 item 8: how far the witness's run got, when it was followed as written.
    let prefix = match (&verdict, ex.explain.furthest_state()) {
        (Verdict::Rejected, Some(s)) if ex.explain.enabled() => {
            let s = s.clone();
            ex.trace_of(&s)
        }
        _ => Vec::new(),
    };
    let raw_rejected = matches!(verdict, Verdict::Rejected);
    let raw_confirmed = match &verdict {
        Verdict::Confirmed { trace, .. } => Some(trace.last().map(|s| s.line).unwrap_or(0)),
        _ => None,
    };
    // Decision 97: the one gate between an exploration and its conclusion.
    let (verdict, reason) = match reading::conclude(&opts.reading.declared(aligned.is_some()), &ex.doubts, verdict) {
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
        race: ex.race,
        ambiguous,
        blame: None,
        prefix,
        decided_by: ex.decided_by,
        used: ex.used,
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
            explain: Explanation::new(opts.reading.explains()),
            collecting_violations: false,
            pending_violations: Vec::new(),
            recorded: Vec::new(),
            violated: None,
            race: None,
            repeats: 0,
            exit_cost: Duration::ZERO,
            max_states: None,
            lasso: LassoSearch::new(witness),
            doubts: Doubts::default(),
            coverage: reading::Coverage::default(),
            revisit: HashMap::new(),
            approximate: HashMap::new(),
            places: HashMap::new(),
            pins: HashMap::new(),
            fired_approximate: BTreeSet::new(),
            tls_init: Vec::new(),
            creates: yaml_thread_numbers(cfa, witness, anchors),
            arriving: false,
            live: HashMap::new(),
            cuts: None,
            observer: None,
            out_of_reach: None,
            decided_by: None,
            used: Shortcuts::NONE,
            projection: None,
        }
    }
}

enum Step {
    /// Continue with this state (witness not yet advanced).
    Next(ProductState, Option<AnyValue>),
    /// The path ends here without violation.
    End,
    /// The step reached the property violation: the error function called, and the error
    /// code it passed when its value is known (RERS).
    Violation(ProductState, String, Option<i128>),
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
        let init = match self.initial_state() {
            Ok(s) => s,
            Err(v) => return v,
        };
        // `distance` holds every violation state (at 0) and every state that reaches one.
        if self.opts.reading.follows_automaton() && !self.distance.contains_key(&self.witness.entry) {
            self.warn("no violation node is reachable from the witness's entry node".into());
            return Verdict::Rejected;
        }
        // The static rejections before the search (decisions 213, 226, 227), each a shortcut
        // that may only reject (decision 237).
        let on = |s: Shortcut| self.opts.shortcuts.allows(s);
        let found = None
            .or_else(|| {
                on(Shortcut::ValueRange)
                    .then(|| self.violation_out_of_reach())
                    .flatten()
                    .map(|w| (Shortcut::ValueRange, w))
            })
            .or_else(|| {
                on(Shortcut::ThreadLines)
                    .then(|| self.thread_out_of_reach())
                    .flatten()
                    .map(|w| (Shortcut::ThreadLines, w))
            })
            .or_else(|| {
                on(Shortcut::Projection).then(|| self.projection_rejects()).flatten().map(|w| (Shortcut::Projection, w))
            });
        if let Some((shortcut, why)) = found {
            let (verdict, _) = shortcut.admit(Claim::Violation, Verdict::Rejected);
            self.out_of_reach = Some(why);
            self.decided_by = Some(shortcut);
            return verdict;
        }
        self.run_from(init)
    }

    /// The product's initial state: the program's start, the witness's entry.
    fn initial_state(&mut self) -> Result<ProductState, Verdict> {
        let cfa = self.cfa;
        let data = match DataState::initial(cfa) {
            Ok(d) => d,
            Err(e) => {
                let w = e.message();
                return Err(Verdict::Unknown { reason: format!("global initialisation: {w}") });
            }
        };
        let mut init = ProductState {
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
            threads: cfa.threads.then(|| Rc::new(Threads::new())),
            recent: Rc::new(Vec::new()),
            passes: 0,
            entered: false,
        };
        self.tls_init = cfa.thread_locals.iter().filter_map(|v| init.data.globals.get(v).cloned()).collect();
        // YAML 2.2 numbers threads: 0 is main (decision 153).
        if self.witness.exact_locations {
            if let Some(th) = init.threads.as_mut() {
                Rc::make_mut(th).bindings.push((Rc::from("0"), MAIN_THREAD));
            }
        }
        init.data.guessing = self.opts.reading.guesses();
        Ok(init)
    }

    fn run_from(&mut self, init: ProductState) -> Verdict {
        let mut stack = vec![init];
        // Boxed keys: the table holds a pointer per state, so its growth (which briefly holds
        // the old and the new table) costs little next to the keys themselves.
        let mut visited: HashSet<Box<StateKey>> = HashSet::new();
        while let Some(mut state) = stack.pop() {
            if self.opts.deadline.within(self.exit_cost) {
                if self.opts.leave_states {
                    // A large search takes a second or more to free: the process ends with the
                    // answer (decision 168).
                    std::mem::forget(visited);
                    std::mem::forget(stack);
                    std::mem::forget(state);
                }
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
            // A projection (decision 227) looks for the witness's violation node, which other
            // threads' steps may bring it to.
            let may_reach = match state.threads {
                _ if self.projection.is_some() => true,
                Some(_) => self.may_reach_any(&state),
                None => self.reach.may_reach(state.loc, state.stack.iter().map(|c| c.return_loc)),
            };
            if !may_reach {
                self.used = self.used.with(Shortcut::Pruning);
                continue;
            }
            if self.remembers(&state) && !visited.insert(Box::new(self.key_of(&state))) {
                self.repeats += 1;
                continue;
            }
            if self.max_states.is_some_and(|m| self.states >= m) {
                return Verdict::Unknown { reason: format!("stopped after {} product states", self.states) };
            }
            if let Some(&d) = self.distance.get(&state.witness) {
                self.explain.reached(d, &state);
            }
            self.states += 1;
            if self.states.is_multiple_of(MEMORY_CHECK_EVERY) {
                let resident = crate::resources::resident_bytes();
                self.exit_cost = crate::resources::exit_cost(resident.unwrap_or(0));
                if let Some(limit) = self.opts.memory_limit.bytes() {
                    let grown = |r: u64| r.saturating_sub(self.opts.memory_baseline) > limit;
                    if resident.is_some_and(grown) {
                        if self.opts.leave_states {
                            std::mem::forget(visited);
                            std::mem::forget(stack);
                        }
                        return self.out_of_memory(limit);
                    }
                }
            }
            if self.opts.reading.guesses() && self.states > GUESS_MAX_STATES {
                return Verdict::Unknown { reason: format!("guessing run stopped after {GUESS_MAX_STATES} states") };
            }
            if self.observer.is_some() {
                match self.observe(&mut state) {
                    invariants::Observed::Go => {}
                    invariants::Observed::Stop => continue,
                    invariants::Observed::Violated(v) => return v,
                }
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
        if self.opts.deadline.within(self.exit_cost) {
            if self.opts.leave_states {
                std::mem::forget(visited);
            }
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
    fn expand(&mut self, mut state: ProductState, out: &mut Vec<ProductState>) -> Option<Verdict> {
        if let Some(v) = self.project_step(&mut state, out) {
            return Some(v);
        }
        match state.threads {
            Some(_) => self.expand_threads(state, out),
            None => self.expand_running(state, out),
        }
    }

    /// The successors by steps of the running thread.
    fn expand_running(&mut self, state: ProductState, out: &mut Vec<ProductState>) -> Option<Verdict> {
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
            if site.return_loc == ended() {
                // A thread's start routine returns: the thread ends (its value is not kept). The
                // last thread's end is the process's `exit(0)` (decision 235).
                self.end_thread(&mut next);
                if self.last_to_end(&next) {
                    if let Some(h) = self.run_atexit_handler(&next) {
                        next = h;
                    }
                }
                let info = StepInfo {
                    kind: StepKind::FunctionReturn { callee: site.callee, call_edge: site.call_edge },
                    span: None,
                    scope_function: site.callee,
                    target: ended(),
                    result: None,
                    closure: Default::default(),
                };
                self.advance_witness(next, &info, Action::Return(site.callee), None, out);
                return None;
            }
            Rc::make_mut(&mut next.stack).pop();
            next.data.pop_frame();
            next.loc = site.return_loc;
            if let Some(th) = next.threads.as_mut() {
                // The end of a `__VERIFIER_atomic_*` function ends its atomic section.
                if th.atomic == Some((th.running, Some(next.stack.len()))) {
                    Rc::make_mut(th).atomic = None;
                }
            }
            let returned = next.returned.take();
            self.recorded.clear();
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
                    (Target::Scalar(lv), AnyValue::Ptr(p)) if lv.ty() == ScalarTy::Ptr => {
                        next.data.assign_ptr(cfa, lv, &p)
                    }
                    (Target::Scalar(lv), _) if lv.ty() == ScalarTy::Ptr => {
                        Err(EvalError::Unsupported("a non-pointer result stored into a pointer".into()))
                    }
                    (Target::Scalar(lv), v) => {
                        let mut defined = Vec::new();
                        let v = v.convert(lv.ty(), &mut defined);
                        self.record_write(&mut next.data, lv, &v);
                        match v {
                            AnyValue::Int(v) => next.data.assign(cfa, lv, &v, None),
                            AnyValue::Float(v) => next.data.assign_flv(cfa, lv, &v, None),
                            AnyValue::Ptr(_) => Err(EvalError::Unsupported("conversion of a result".into())),
                        }
                        .map(|mut d| {
                            defined.append(&mut d);
                            defined
                        })
                    }
                    (Target::Struct(_), _) => {
                        Err(EvalError::Unsupported("a scalar result stored into a struct".into()))
                    }
                };
                match stored {
                    Ok(defined) => {
                        if !self.settle_definedness(&mut next, defined, cfa.edge(site.call_edge).span) {
                            return None;
                        }
                    }
                    Err(e) => {
                        let w = e.message();
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
            let values = Recorded::shared(None, std::mem::take(&mut self.recorded));
            self.advance_witness(next, &info, Action::Return(site.callee), values, out);
            return self.lost_block_violation(&state, out, from, info.span);
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
                // Decision 248: a start routine through a pointer, resolved as a call through
                // one is (the same checks of the pointer and of the function's parameters).
                EdgeOp::ThreadCreate { handle, routine: Routine::Pointer(fptr), arg, lhs } => {
                    let args: Vec<_> = arg.iter().map(|a| (**a).clone()).collect();
                    match self.resolve_call(&state, fptr, &args, cfa.edge(e).span) {
                        Some(f) => {
                            resolved = CfaEdge {
                                op: EdgeOp::ThreadCreate {
                                    handle: handle.clone(),
                                    routine: Routine::Function(f),
                                    arg: arg.clone(),
                                    lhs: lhs.clone(),
                                },
                                ..cfa.edge(e).clone()
                            };
                            &resolved
                        }
                        None => continue,
                    }
                }
                _ => cfa.edge(e),
            };
            let target = cfa.graph.edge_endpoints(e).map(|(_, t)| t).unwrap_or(state.loc);
            self.collecting_violations = self.opts.target.operations();
            let step = self.execute(&state, e, edge, target);
            self.collecting_violations = false;
            for (v, what, property, blocks) in std::mem::take(&mut self.pending_violations) {
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
                    if (!self.opts.reading.follows_automaton()
                        || self.witness.graph[s.witness].violation
                        || self.observer.is_some())
                        && self.violation_counts(&s)
                        && self.approx_settled(&s, "the error is reached")
                    {
                        self.violated = Some(property);
                        return Some(self.confirm_leak(&s, what, blocks));
                    }
                }
            }
            if let Step::Next(n, _) | Step::Violation(n, _, _) = &step {
                self.unspecified_read |= n.data.unspecified_read;
            }
            match step {
                Step::End => {}
                Step::Next(mut next, result) => {
                    if !self.opts.reading.follows_automaton()
                        && !self.take_input(&mut next, edge, target, result.as_ref())
                    {
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
                        // The float's bits for the trace; `\result` is the float itself.
                        (EdgeOp::FloatNondetCall { function, fty, .. }, Some(AnyValue::Int(v))) => {
                            let value = AnyValue::Float(FValue::from_bits(&v, *fty));
                            (Some((function.clone(), v, Some(*fty))), Some(value))
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
                    if matches!(edge.op, EdgeOp::Assume { .. }) && self.explain.enabled() {
                        self.note_turn_away(&state, e, &next, &info);
                    }
                    let from = out.len();
                    let values = Recorded::shared(nondet, std::mem::take(&mut self.recorded));
                    self.advance_witness(next, &info, Action::Edge(e), values, out);
                    if let Some(v) = self.lost_block_violation(&state, out, from, edge.span) {
                        return Some(v);
                    }
                }
                Step::Violation(next, function, code) => {
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
                        if !self.opts.reading.follows_automaton()
                            || self.witness.graph[s.witness].violation
                            || self.observer.is_some()
                        {
                            if !self.violation_counts(&s) || !self.approx_settled(&s, "the error is reached") {
                                continue;
                            }
                            return Some(self.confirm_call(&s, function, code));
                        }
                    }
                    // Violation outside a violation state: does not count; the path ends.
                }
            }
        }
        None
    }

    /// Builds the confirmed verdict with a trace (nondeterministic values from a model); `what`
    /// says which violation was reached.
    fn confirm(&mut self, s: &ProductState, what: String) -> Verdict {
        self.confirm_reached(s, what, None)
    }

    /// [`Self::confirm`] of a leak, naming the blocks it loses (issue 51 cause 7).
    fn confirm_leak(&mut self, s: &ProductState, what: String, blocks: Vec<crate::verdict::LostBlock>) -> Verdict {
        let mut v = self.confirm(s, what);
        if let (Verdict::Confirmed { lost_blocks, .. }, false) = (&mut v, blocks.is_empty()) {
            *lost_blocks = Some(Box::new(crate::verdict::LostBlocks(blocks)));
        }
        v
    }

    /// [`Self::confirm`] for a call of an error function, with the error code it passed: the
    /// call is a value of the verdict, and the message names it (`__VERIFIER_error(7)`).
    fn confirm_call(&mut self, s: &ProductState, function: String, code: Option<i128>) -> Verdict {
        let what = match code {
            Some(n) => format!("{function}({n})"),
            None => function.clone(),
        };
        self.confirm_reached(s, what, Some(ErrorCall { function, code }))
    }

    fn confirm_reached(&mut self, s: &ProductState, what: String, call: Option<ErrorCall>) -> Verdict {
        if self.projection.is_some() {
            // Its runs include ones the program does not have (decision 227).
            return Verdict::Unknown { reason: format!("a projected run reaches {what}") };
        }
        let trace = self.trace_of(s);
        Verdict::Confirmed { trace, error_function: what, call, lost_blocks: None }
    }

    /// The run that led to `s`, step by step, each nondet call with a value of one model of
    /// `s`'s path (`?` where the solver gives none): a confirmation's trace, or the prefix of a
    /// rejected witness's run (issue 35 item 8).
    fn trace_of(&mut self, s: &ProductState) -> Vec<TraceStep> {
        let cfa = self.cfa;
        let mut nodes = Vec::new();
        let mut cur = s.trace.clone();
        while let Some(n) = cur {
            cur = n.parent.clone();
            nodes.push(n);
        }
        nodes.reverse();
        // One model for the nondet choices and the values shown: the nondet terms first.
        let mut terms: Vec<z3::ast::BV> = nodes
            .iter()
            .filter_map(|n| n.values.as_ref()?.nondet.as_ref())
            .filter_map(|(_, v, _)| match &v.val {
                Val::Sym(t) => Some(t.clone()),
                Val::Conc(_) => None,
            })
            .collect();
        let choices = terms.len();
        for r in nodes.iter().filter_map(|n| n.values.as_ref()) {
            shown::terms(r, &mut terms);
        }
        let model =
            if terms.is_empty() { Some(Vec::new()) } else { self.smt.model_each(&s.data.path.conjuncts(), &terms) };
        let model = model.unwrap_or_default();
        let (chosen, shown_values) = model.split_at(choices.min(model.len()));
        let (mut model_iter, mut model) = (chosen.iter().copied(), shown_values.iter().copied());
        let file = String::new();
        let trace = nodes
            .iter()
            .map(|n| TraceStep {
                file: file.clone(),
                line: n.span.map(|s| s.start_line).unwrap_or(0),
                // The function the step is in: a call's step is the caller's (its matching scope
                // is the callee's, issue 35 item 9).
                function: match (n.function, n.action) {
                    (None, _) => FILE_SCOPE.to_string(),
                    (Some(_), Action::Edge(e)) => cfa.function(cfa.edge(e).function).name.clone(),
                    (Some(f), _) => cfa.function(f).name.clone(),
                },
                action: match n.action {
                    Action::Edge(e) => cfa.edge(e).text.clone(),
                    Action::Return(f) => format!("return from {}", cfa.function(f).name),
                    Action::ThreadStart(f) => format!("thread starts in {}", cfa.function(f).name),
                    Action::Arrive => "(waypoint passed before this statement)".to_string(),
                },
                thread: n.thread,
                taken: match n.action {
                    Action::Edge(e) => Taken::Edge(e),
                    Action::Return(_) => Taken::Return,
                    Action::ThreadStart(f) => Taken::ThreadStart(cfa.function(f).entry),
                    Action::Arrive => Taken::Wait,
                },
                witness_node: self.witness.graph[n.witness_node].id.clone(),
                span: n.span,
                call_paren: match n.action {
                    Action::Edge(e) => cfa.edge(e).call_paren,
                    Action::Return(_) | Action::ThreadStart(_) | Action::Arrive => None,
                },
                values: n.values.as_ref().map(|r| shown::render(cfa, r, &mut model)).unwrap_or_default(),
                nondet: n.values.as_ref().and_then(|r| r.nondet.as_ref()).map(|(f, v, fty)| {
                    let bits = match &v.val {
                        Val::Conc(b) => Some(*b),
                        Val::Sym(_) => model_iter.next().flatten(),
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
        trace
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
