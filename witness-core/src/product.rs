//! Exploration of the product of the program's CFA and the witness automaton (format digest
//! §6): a product state is (CFA location, call stack, witness state, data state). Each program
//! step is matched against the witness state's outgoing transitions by their source-code
//! guards; matched transitions' assumptions are evaluated on the step's post-state.
//!
//! The product knows witness formats only through [`LocationGuard`] and [`Assumption`]; it
//! knows C only through the CFA's IR and the [`semantics`](crate::semantics).
//!
//! Verdict rules: a violation (call of the property's error function) while the automaton is in
//! a violation state confirms; exhausting every path the witness allows without that rejects;
//! anything uncertain on some allowed path (unsupported feature, possible undefined behaviour,
//! solver gave up, budget) turns a would-be rejection into unknown.

use std::collections::{HashMap, HashSet, VecDeque};
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
use crate::reach::ErrorReach;
use crate::semantics::value::{as_i128, Definedness, Truth};
use crate::semantics::{pinned_symbol, AnyValue, DataState, EvalError, FVal, FValue, Feasibility, Smt, Val, Value};
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

/// Which program events are property violations.
#[derive(Debug, Clone)]
pub struct ErrorTarget {
    /// Error functions (`reach_error`, `__VERIFIER_error`).
    pub functions: Vec<String>,
    /// The historic `ERROR:` label counts.
    pub label: bool,
}

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
    /// waypoint's location, the waypoint must be passed, or the run dies.
    Greedy,
    /// The literal definition ("the execution can be divided into parts"): a run may also
    /// let a visit of the follow waypoint go by and pass it later.
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
}

/// Largest `memset`/`memcpy`/`memmove` modelled (bytes are stored one by one).
const MAX_MEM_BYTES: u64 = 1 << 16;

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

/// A step of a path, kept as a persistent list for traces.
struct TraceNode {
    parent: Option<Rc<TraceNode>>,
    span: Option<SourceSpan>,
    function: FuncId,
    action: String,
    witness_node: NodeIndex,
    nondet: Option<Nondet>,
}

/// A nondeterministic value chosen by a step: the function, the value (for floats: the
/// bit-vector of its IEEE pattern) and, for floats, their type.
type Nondet = (String, Value, Option<FloatTy>);

#[derive(Clone)]
struct ProductState {
    loc: NodeIndex,
    stack: Vec<CallSite>,
    witness: NodeIndex,
    data: DataState,
    /// Value returned by the function whose exit location `loc` is.
    returned: Option<AnyValue>,
    trace: Option<Rc<TraceNode>>,
}

type StateKey = (
    NodeIndex,
    NodeIndex,
    Vec<CallSite>,
    Vec<crate::semantics::Frame>,
    Rc<std::collections::BTreeMap<crate::cfa::VarId, crate::semantics::Slot>>,
    Rc<std::collections::BTreeMap<u32, crate::semantics::HeapBlock>>,
    Rc<Vec<Bool>>,
    Option<AnyValue>,
);

impl ProductState {
    fn key(&self) -> StateKey {
        (
            self.loc,
            self.witness,
            self.stack.clone(),
            self.data.frames.clone(),
            self.data.globals.clone(),
            self.data.heap.clone(),
            self.data.path.clone(),
            self.returned.clone(),
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

type AssumptionKey = (EdgeIndex, Option<FuncId>, Option<usize>, Option<ScalarTy>);
type LoweredAssumption = Rc<Vec<Result<crate::cfa::Expr, String>>>;

struct Explorer<'a> {
    cfa: &'a Cfa,
    witness: &'a WitnessAutomaton,
    anchors: &'a Anchors,
    opts: &'a ExploreOptions,
    smt: Smt,
    use_offsets: bool,
    /// Bytes to subtract from witness offsets (see `recover_offset_shift`).
    offset_shift: i64,
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
}

/// Explores the product and returns the verdict.
pub fn explore(cfa: &Cfa, witness: &WitnessAutomaton, anchors: &Anchors, opts: &ExploreOptions) -> Outcome {
    explore_with(cfa, witness, anchors, opts, &ErrorReach::new(cfa))
}

/// [`explore`] with the program's error reachability computed once for all its runs.
fn explore_with(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
) -> Outcome {
    // No run of the program calls an error function (or does anything that might hide one):
    // true, whatever the witness says.
    if !reach.may_reach(cfa.start, std::iter::empty()) {
        return Outcome {
            verdict: Verdict::Rejected,
            reason: "the program has no reachable call of an error function: no run violates the property, whatever \
                     the witness"
                .into(),
            states: 0,
            solver_calls: 0,
            warnings: Vec::new(),
            unspecified_read: false,
        };
    }
    // Decision 38: transitions past the end of the program that cut every path to the
    // violation: no run can pass them, unless the lines are off by a constant.
    if let Some(cut) = past_end_cut(cfa, witness) {
        if let Some(k) = unique_line_shift(cfa, witness) {
            return explore_shifted(cfa, witness, anchors, opts, reach, k, &cut);
        }
        return Outcome {
            verdict: Verdict::Rejected,
            reason: cut,
            states: 0,
            solver_calls: 0,
            warnings: Vec::new(),
            unspecified_read: false,
        };
    }
    let mut outcome = explore_once(cfa, witness, anchors, opts, reach);
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
                let mut shifted = explore_shifted(cfa, witness, anchors, opts, reach, k, &unmatched);
                shifted.states += outcome.states;
                shifted.solver_calls += outcome.solver_calls;
                if !matches!(shifted.verdict, Verdict::Rejected) {
                    return shifted;
                }
                // The shift is a guess: it may confirm (that needs a feasible violating path of
                // the program), but a rejection under it rests on the guess.
                outcome.states = shifted.states;
                outcome.solver_calls = shifted.solver_calls;
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
        let permissive = ExploreOptions { permissive: true, target: opts.target.clone(), ..*opts };
        let second = explore_once(cfa, witness, anchors, &permissive, reach);
        outcome.states += second.states;
        outcome.solver_calls += second.solver_calls;
        match second.verdict {
            Verdict::Rejected => {}
            Verdict::Confirmed { trace, .. } => {
                let line = trace.last().map(|s| s.line).unwrap_or(0);
                let reason = format!(
                    "the witness is ambiguous for this program: under the strict reading no allowed path reaches the error, \
                     but a permissive reading (steps whose matching transitions all die are skipped, several transitions per step) \
                     reaches it at line {line}"
                );
                outcome.verdict = Verdict::Unknown { reason: reason.clone() };
                outcome.reason = reason;
            }
            Verdict::Unknown { reason } => {
                let reason = format!(
                    "the strict reading rejects the witness, but the check under a permissive reading was inconclusive: {reason}"
                );
                outcome.verdict = Verdict::Unknown { reason: reason.clone() };
                outcome.reason = reason;
            }
        }
    }
    outcome
}

/// [`explore`] with every line of the witness shifted by `k` (decision 38), saying why.
fn explore_shifted(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
    k: i64,
    why: &str,
) -> Outcome {
    let mut shifted = explore_with(cfa, &shift_lines(witness, k), anchors, opts, reach);
    shifted.warnings.insert(
        0,
        format!(
            "{why}; with every line shifted by {k:+} each of its transitions on the way to the violation lies on a \
             statement (and with no other shift up to {MAX_LINE_SHIFT}): validated with the shift"
        ),
    );
    shifted
}

fn explore_once(
    cfa: &Cfa,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
) -> Outcome {
    let mut ex = Explorer {
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
        use_offsets: false,
        offset_shift: 0,
        distance: violation_distance(witness),
        reach,
        assumption_cache: HashMap::new(),
        warnings: Vec::new(),
        warned: HashSet::new(),
        unknown: Vec::new(),
        states: 0,
        unspecified_read: false,
    };
    // Offsets that were validated against this file make guards precise; the permissive
    // reading keeps them (it relaxes only what depends on the CFA's granularity).
    ex.use_offsets = ex.decide_offsets();
    let verdict = ex.run();
    let reason = match &verdict {
        Verdict::Confirmed { trace, error_function } => {
            let line = trace.last().map(|s| s.line).unwrap_or(0);
            format!("witness confirmed: {error_function}() is reached at line {line} after {} steps", trace.len())
        }
        Verdict::Rejected => {
            format!("no path allowed by the witness reaches the error ({} product states explored)", ex.states)
        }
        Verdict::Unknown { reason } => reason.clone(),
    };
    Outcome {
        verdict,
        reason,
        states: ex.states,
        solver_calls: ex.smt.calls,
        warnings: ex.warnings,
        unspecified_read: ex.unspecified_read,
    }
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
fn violation_distance(w: &WitnessAutomaton) -> HashMap<NodeIndex, u32> {
    let mut dist = HashMap::new();
    let mut queue = VecDeque::new();
    for n in w.graph.node_indices() {
        if w.graph[n].violation {
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

    /// Offsets are used only when the CFA's are exact and every witness offset is consistent
    /// with its own line numbers in this file (CPAchecker `-preprocess` witnesses carry offsets
    /// into another text).
    fn decide_offsets(&mut self) -> bool {
        let with_offsets: Vec<(String, Range, Option<Range>)> = self
            .witness
            .graph
            .edge_references()
            .filter_map(|e| e.weight().guard.offsets.map(|o| (e.weight().origin.clone(), o, e.weight().guard.lines)))
            .collect();
        if with_offsets.is_empty() {
            return false;
        }
        if !self.cfa.offsets_exact {
            self.warn(
                "the program was preprocessed with gcc, so offsets are approximate; matching by lines only".into(),
            );
            return false;
        }
        if self.offsets_fit(&with_offsets, 0) {
            return true;
        }
        if let Some(shift) = self.recover_offset_shift(&with_offsets) {
            self.warn(format!(
                "witness offsets are shifted by {shift} bytes against this file (a preprocessed copy?); matching with the shift"
            ));
            self.offset_shift = shift;
            return true;
        }
        let (origin, off, lines) = &with_offsets[0];
        self.warn(format!(
            "witness offsets do not match this file (e.g. transition at {origin}: offset {} vs. line {:?}); matching by lines only",
            off.start,
            lines.map(|l| l.start)
        ));
        false
    }

    /// Every offset (minus `shift`) lies in the file and on its transition's own line range.
    fn offsets_fit(&self, ts: &[(String, Range, Option<Range>)], shift: i64) -> bool {
        ts.iter().all(|(_, off, lines)| {
            let start = off.start as i64 - shift;
            if start < 0 || start as usize >= self.cfa.source_len {
                return false;
            }
            match lines {
                Some(lines) => {
                    let l = self.cfa.line_of_offset(start as usize) as u64;
                    lines.start <= l && l <= lines.end
                }
                None => true,
            }
        })
    }

    /// CPAchecker `-preprocess` witnesses carry offsets into the preprocessed text, which differs
    /// from the file by a constant prefix. Accept a shift only if, with it, every offset fits its
    /// lines and at least three quarters of the transitions start exactly where a CFA edge
    /// starts, and no other shift does as well.
    fn recover_offset_shift(&self, ts: &[(String, Range, Option<Range>)]) -> Option<i64> {
        let starts: HashSet<usize> =
            self.cfa.graph.edge_weights().filter_map(|e| e.span.map(|s| s.start_offset)).collect();
        let mut candidates: Vec<i64> =
            ts.iter().flat_map(|(_, off, _)| starts.iter().map(move |s| off.start as i64 - *s as i64)).collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut scored: Vec<(usize, i64)> = candidates
            .into_iter()
            .filter(|d| *d > 0 && self.offsets_fit(ts, *d))
            .map(|d| {
                let hits = ts.iter().filter(|(_, off, _)| starts.contains(&((off.start as i64 - d) as usize))).count();
                (hits, d)
            })
            .collect();
        scored.sort_unstable_by(|a, b| b.cmp(a));
        let (best, d) = *scored.first()?;
        let unique = scored.get(1).is_none_or(|(second, _)| *second < best);
        (best * 4 >= ts.len() * 3 && best >= 2 && unique).then_some(d)
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
            stack: Vec::new(),
            witness: self.witness.entry,
            data,
            returned: None,
            trace: None,
        };
        // `distance` holds every violation state (at 0) and every state that reaches one.
        if !self.distance.contains_key(&self.witness.entry) {
            self.warn("no violation node is reachable from the witness's entry node".into());
            return Verdict::Rejected;
        }
        self.run_from(init)
    }

    fn run_from(&mut self, init: ProductState) -> Verdict {
        let mut stack = vec![init];
        let mut visited: HashSet<StateKey> = HashSet::new();
        while let Some(state) = stack.pop() {
            if Instant::now() >= self.opts.deadline {
                return self.out_of_time();
            }
            // A state from which no error call is reachable can never confirm, and nothing on
            // its paths matters for a rejection.
            if !self.reach.may_reach(state.loc, state.stack.iter().map(|c| c.return_loc)) {
                continue;
            }
            if !visited.insert(state.key()) {
                continue;
            }
            self.states += 1;
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
                return None; // main returned: the program ends without violation
            };
            let mut next = state.clone();
            next.stack.pop();
            next.data.frames.pop();
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
            let action = format!("return from {}", cfa.function(site.callee).name);
            self.advance_witness(next, &info, action, None, out);
            return None;
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
            let step = self.execute(&state, e, edge, target);
            if let Step::Next(n, _) | Step::Violation(n, _) = &step {
                self.unspecified_read |= n.data.unspecified_read;
            }
            match step {
                Step::End => {}
                Step::Next(next, result) => {
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
                    self.advance_witness(next, &info, edge.text.clone(), nondet, out);
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
                    self.advance_witness(next, &info, edge.text.clone(), None, &mut after);
                    for s in after {
                        if self.witness.graph[s.witness].violation {
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
        match self.smt.check(&state.data.path, &[&ok.not()]) {
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
                match self.smt.check(&state.data.path, &[&ok]) {
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
            Truth::Sym(c) => match self.smt.check(&state.data.path, &[&c]) {
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
            EdgeOp::Blank => {}
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
            EdgeOp::FloatNondetCall { function, var, fty } => {
                let (v, bits) = next.data.nondet_float(function, *fty);
                if let Some((var, _)) = var {
                    settle!(next.data.assign_float(cfa, *var, &v).map(|()| Vec::new()));
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
                next.stack.push(CallSite { callee: *callee, call_edge: e, return_loc: target, lhs: lhs.clone() });
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
                let v = next.data.nondet(function, *ty);
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
            EdgeOp::Alloc { function, lhs, size, zeroed } => {
                let n = eval!(size);
                let n = self.pin(&next, n);
                let p = match next.data.allocate(function, &n, *zeroed) {
                    Ok(p) => p,
                    Err(EvalError::Unsupported(w)) => unsupported!(w),
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &p));
                }
            }
            EdgeOp::Realloc { lhs, ptr, size } => {
                let old = peval!(ptr);
                let n = eval!(size);
                let n = self.pin(&next, n);
                let mut defined = Vec::new();
                let p = match next.data.reallocate(cfa, &old, &n, &mut defined) {
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
                            let r = next.data.nondet(function, IntTy::INT);
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
            EdgeOp::Terminate { .. } => return Step::End,
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
    fn pin(&mut self, state: &ProductState, n: Value) -> Value {
        let Val::Sym(t) = &n.val else { return n };
        let unique = self.smt.model_values(&state.data.path, std::slice::from_ref(t)).and_then(|m| {
            let v = *m.first()?;
            let other = t.eq(z3::ast::BV::from_u64(v, n.ty.bits)).not();
            matches!(self.smt.check(&state.data.path, &[&other]), Feasibility::Infeasible).then_some(v)
        });
        match unique {
            Some(v) => Value::conc(v, n.ty),
            None => n,
        }
    }

    /// Matches a step against the witness state's transitions and pushes the successors.
    fn advance_witness(
        &mut self,
        next: ProductState,
        info: &StepInfo,
        action: String,
        nondet: Option<Nondet>,
        out: &mut Vec<ProductState>,
    ) {
        let w = self.witness;
        let q = next.witness;
        let push = |mut s: ProductState, node: NodeIndex, out: &mut Vec<ProductState>| {
            s.witness = node;
            s.trace = Some(Rc::new(TraceNode {
                parent: s.trace.take(),
                span: info.span,
                function: info.scope_function,
                action: action.clone(),
                witness_node: node,
                nondet: nondet.clone(),
            }));
            out.push(s);
        };
        if w.graph[q].violation {
            push(next, q, out); // absorbing
            return;
        }
        // One step may pass several transitions: YAML segments whose waypoints are evaluated
        // at the same point (an event of the step, then arrival at the next statement), and
        // in the permissive reading any chain. `frontier` holds (state, node, chain length).
        let exact = w.exact_locations;
        let mut frontier = vec![(next, q, 0usize)];
        while let Some((mut cur, node, depth)) = frontier.pop() {
            let candidates: Vec<EdgeIndex> = w
                .graph
                .edges_directed(node, Direction::Outgoing)
                .filter(|t| depth == 0 || self.opts.permissive || (exact && Self::is_arrival(t.weight())))
                .filter(|t| self.guard_matches(t.id(), info))
                .map(|t| t.id())
                .collect();
            // Avoid waypoints: a run that passes one dies; otherwise it learns that it did not.
            if !self.apply_avoids(&mut cur, &candidates, info) {
                continue;
            }
            let follows: Vec<EdgeIndex> = candidates.into_iter().filter(|t| !w.graph[*t].avoid).collect();
            if follows.is_empty() {
                push(cur, node, out);
                continue;
            }
            let mut stay = self.opts.permissive && depth > 0;
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
                    if exact && self.opts.segments == SegmentReading::Existential {
                        stay = true;
                    }
                }
                if w.graph[target].sink && self.use_offsets && tr.guard.offsets.is_some() {
                    deliberate_sink = true;
                }
                if w.graph[target].sink || (!w.graph[target].violation && !self.distance.contains_key(&target)) {
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
                live += 1;
                let chain =
                    (self.opts.permissive || exact) && depth < 16 && !w.graph[target].violation && target != node;
                if chain {
                    if self.opts.permissive {
                        push(s.clone(), target, out);
                    }
                    frontier.push((s, target, depth + 1));
                } else {
                    push(s, target, out);
                }
            }
            // Permissive reading: a step whose every matching transition dies (sink, failed
            // assumption, no violation reachable) may be skipped, as if it were invisible.
            if stay || (self.opts.permissive && live == 0 && !deliberate_sink) {
                push(cur, node, out);
            }
        }
    }

    /// A transition evaluated when control arrives at a statement (YAML `assumption`).
    fn is_arrival(t: &WitnessTransition) -> bool {
        matches!(&t.guard.anchor, Some(a) if a.kind == AnchorKind::Statement)
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

    /// Locations reachable from `loc` through blank (unobservable) edges, `loc` included.
    fn blank_closure(&self, loc: NodeIndex) -> Vec<NodeIndex> {
        let mut seen = HashSet::new();
        let mut todo = vec![loc];
        let mut out = Vec::new();
        while let Some(l) = todo.pop() {
            if !seen.insert(l) {
                continue;
            }
            out.push(l);
            for e in self.cfa.graph.edges_directed(l, Direction::Outgoing) {
                if matches!(e.weight().op, EdgeOp::Blank) {
                    todo.push(e.target());
                }
            }
        }
        out
    }

    /// Lenient stutter: does an observable edge right after `loc` (through blank edges) also
    /// match the guard?
    fn next_step_matches(&self, loc: NodeIndex, t: EdgeIndex) -> bool {
        self.blank_closure(loc).into_iter().any(|l| {
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
        info.closure.get_or_init(|| self.blank_closure(info.target))
    }

    /// Source-code guard of a transition against one observable step (digest §5).
    fn guard_matches(&self, t: EdgeIndex, info: &StepInfo) -> bool {
        let cfa = self.cfa;
        let tr: &WitnessTransition = &self.witness.graph[t];
        let g: &LocationGuard = &tr.guard;
        if g.anchor.is_some() {
            return self.anchor_matches(t, info);
        }
        if let Some(lines) = g.lines {
            match info.span {
                Some(s) if lines.overlaps(s.start_line as u64, s.end_line as u64) => {}
                _ => return false,
            }
        }
        if self.use_offsets {
            if let Some(off) = g.offsets {
                match info.span {
                    Some(s)
                        if Range {
                            start: (off.start as i64 - self.offset_shift).max(0) as u64,
                            end: (off.end as i64 - self.offset_shift).max(0) as u64,
                        }
                        .overlaps(s.start_offset as u64, s.end_offset as u64) => {}
                    _ => return false,
                }
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

    /// Exact anchors (YAML waypoints): which step passes the waypoint's location.
    fn anchor_matches(&self, t: EdgeIndex, info: &StepInfo) -> bool {
        let Some(resolved) = self.anchors.get(&t) else { return false };
        match (resolved, info.kind) {
            (ResolvedAnchor::Statement { nodes, .. }, _) => self.target_closure(info).iter().any(|n| nodes.contains(n)),
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
                matches!(e.op, EdgeOp::Error { .. }) && e.span.is_some_and(|s| offsets.contains(&s.start_offset))
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
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Vec<Result<Truth, String>> {
        let cfa = self.cfa;
        let scope_function = match &a.scope {
            Some(name) => match cfa.function_by_name(name) {
                Some(f) => Some(f),
                None => {
                    self.warn(format!(
                        "assumption scope `{name}` names no function of the program; using globals only"
                    ));
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
        let key = (t, scope_function, offset, result_ty);
        let lowered = match self.assumption_cache.get(&key) {
            Some(l) => l.clone(),
            None => {
                let scope = AssumptionScope { function: scope_function, offset, result_ty };
                let mut all = Vec::new();
                for text in &a.expressions {
                    all.extend(lower_assumption(cfa, text, &scope));
                }
                let l = Rc::new(all);
                self.assumption_cache.insert(key, l.clone());
                l
            }
        };
        lowered
            .iter()
            .map(|conj| {
                let expr = conj.as_ref().map_err(|m| m.clone())?;
                let ev = s.data.eval(cfa, expr, info.result.as_ref()).map_err(|EvalError::Unsupported(m)| m)?;
                if ev.defined.iter().any(|d| !matches!(d.holds, Truth::Known(true))) {
                    return Err("its evaluation may be undefined".to_string());
                }
                Ok(ev.value.truth())
            })
            .collect()
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
        for c in self.eval_assumption(s, t, a, info) {
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
        for conj in self.eval_assumption(s, t, a, info) {
            match conj {
                Err(msg) if msg.starts_with(crate::cfront::AMBIGUOUS) => {
                    self.give_up(format!("assumption at {origin}: {msg}"));
                    return false;
                }
                Err(msg) => self.warn(format!("assumption at {origin} ignored in part: {msg}")),
                Ok(truth) => {
                    if !self.assume(s, truth, info.span) {
                        return false;
                    }
                }
            }
        }
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
        match self.smt.holds_for_all(&s.data.path, &approx) {
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
        let model = if terms.is_empty() { Some(Vec::new()) } else { self.smt.model_values(&s.data.path, &terms) };
        let mut model_iter = model.unwrap_or_default().into_iter();
        let file = String::new();
        let trace = nodes
            .iter()
            .map(|n| TraceStep {
                file: file.clone(),
                line: n.span.map(|s| s.start_line).unwrap_or(0),
                function: cfa.function(n.function).name.clone(),
                action: n.action.clone(),
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
                    NondetChoice { function: f.clone(), value: bits.map(render).unwrap_or_else(|| "?".into()) }
                }),
            })
            .collect();
        Verdict::Confirmed { trace, error_function: function }
    }
}
