//! The outcome of a validation: verdict, trace, statistics. Plain data for reports; the binary
//! decides how to render it (text or JSON).

use serde::Serialize;

/// A value chosen for a nondeterministic call on the confirmed path.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NondetChoice {
    /// The function called, e.g. `__VERIFIER_nondet_int`.
    pub function: String,
    /// The value in C notation (decimal, signed per the type).
    pub value: String,
    /// The value's bits (an integer masked to its type, a float's IEEE pattern) and, for a
    /// float, its width; for harnesses (`--harness`). `None` when the solver gave no value.
    #[serde(skip)]
    pub bits: Option<(u64, Option<u32>)>,
}

/// A value a trace step shows: an object as C names it (`x`, `a[2][1]`, `*p`, `\result`) and
/// its value in C notation (`?` when the solver gave none).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StepValue {
    pub name: String,
    pub value: String,
}

/// One of the two accesses of a confirmed data race (issue 32 cause 18): the thread about to
/// take it (numbered as the trace numbers threads: main 0, created threads in creation order),
/// its step's place and function. A refined witness names both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceAccess {
    pub thread: u32,
    pub span: crate::cfa::SourceSpan,
    pub function: String,
}

/// One step of a confirmed path.
#[derive(Debug, Clone, Serialize)]
pub struct TraceStep {
    pub file: String,
    /// 1-based line of the step (0 when the step has no source location).
    pub line: u32,
    pub function: String,
    /// The program operation, as source text.
    pub action: String,
    /// Witness node the automaton is in after the step.
    pub witness_node: String,
    /// Set when the step called a `__VERIFIER_nondet_*` function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nondet: Option<NondetChoice>,
    /// The values the step assigns (an assignment, a declaration, a call's parameters,
    /// `\result` of a return) or tests (a branch's operands), of the same model as the nondet
    /// choices (decision 221).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<StepValue>,
    /// The step's place in the program text (byte offsets), for refined witnesses.
    #[serde(skip)]
    pub span: Option<crate::cfa::SourceSpan>,
    /// A call's `)` closing its argument list (byte offset): where a YAML `function_return`
    /// waypoint of its value points.
    #[serde(skip)]
    pub call_paren: Option<usize>,
    /// The thread that took the step (multi-threaded programs: 0 is `main`, created threads
    /// are numbered in creation order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
    /// What the step did in the CFA, for the schedule of a multi-threaded harness.
    #[serde(skip)]
    pub taken: Taken,
}

/// What a trace step did in the CFA (issue 22, decision 161).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// The CFA edge (a call edge enters its callee).
    Edge(petgraph::graph::EdgeIndex),
    /// Leaving a function back to its caller (the call edge's target).
    Return,
    /// A created thread enters its start routine, at this entry location.
    ThreadStart(petgraph::graph::NodeIndex),
    /// No step: the witness passed a waypoint while the thread waited at a statement (YAML 2.2).
    Wait,
}

/// A call of an error function that a confirmed run ends in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorCall {
    /// The error function (`reach_error`, `__VERIFIER_error`).
    pub function: String,
    /// The error code it was called with, when the call passes one whose value is known.
    pub code: Option<i128>,
}

/// A heap block a confirmed leak loses (valid-memtrack, valid-memcleanup): where it was
/// allocated and its size, what a native run's LeakSanitizer report must show to reproduce the
/// confirmation (issue 51 cause 7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LostBlock {
    /// The allocating function (`malloc`, `calloc`, `realloc`, …).
    pub function: String,
    /// The first and last line of the step that allocated it.
    pub line: u32,
    pub end_line: u32,
    /// Its size in bytes; `None` when the run leaves it symbolic.
    pub bytes: Option<u64>,
}

/// The blocks a confirmed leak loses, boxed in the verdict (which stays small).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct LostBlocks(pub Vec<LostBlock>);

/// The three answers a validator can give.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum Verdict {
    /// A feasible violating path exists that the witness allows.
    Confirmed {
        trace: Vec<TraceStep>,
        /// What was reached: the error function called (with its error code, RERS), or the
        /// violation of another property, in words.
        error_function: String,
        /// The call of an error function the run ends in (unreach-call), with the error code it
        /// passed when known (RERS `__VERIFIER_error(7)`): values, never read back from the text.
        #[serde(skip)]
        call: Option<ErrorCall>,
        /// The blocks a confirmed leak loses (issue 51 cause 7); empty for other violations.
        #[serde(skip_serializing_if = "Option::is_none")]
        lost_blocks: Option<Box<LostBlocks>>,
    },
    /// No path the witness allows reaches a violation.
    Rejected,
    /// Budget spent or a feature not supported; `reason` says which.
    Unknown { reason: String },
}

impl Verdict {
    /// SV-COMP's result for a violation witness of `property` (`unreach-call`, `no-overflow`,
    /// `valid-memsafety`, …): `false(property)` when confirmed, `true` when rejected.
    pub fn result_string(&self, property: &str) -> String {
        match self {
            Verdict::Confirmed { .. } => format!("false({property})"),
            Verdict::Rejected => "true".into(),
            Verdict::Unknown { .. } => "unknown".into(),
        }
    }
    /// `confirmed`, `rejected` or `unknown`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Confirmed { .. } => "confirmed",
            Verdict::Rejected => "rejected",
            Verdict::Unknown { .. } => "unknown",
        }
    }
}

/// Figures about one validation run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub wall_ms: u64,
    pub product_states: u64,
    pub solver_calls: u64,
}

/// Everything a report shows.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub verdict: Verdict,
    /// One line: why (unknown), what was shown (confirmed) or what was explored (rejected).
    pub reason: String,
    pub stats: Stats,
    /// Accepted oddities of the inputs and of matching (hash mismatch, dropped conjuncts, …).
    pub warnings: Vec<String>,
    /// `GraphML 1.0`, …
    pub witness_format: String,
    /// Which reading of the witness was used: `stutter strict|lenient` (GraphML) or
    /// `segments greedy (first occurrence)|existential` (YAML).
    pub reading: String,
    pub data_model: String,
    /// The test-vector check of a rejection (decision 52): set when the witness's path was
    /// found infeasible.
    pub test_vector: Option<TestVectorCheck>,
    /// The property a confirmation violates, as SV-COMP names it in results: `unreach-call`,
    /// `no-overflow`.
    pub property: String,
    /// The C harness of a confirmation, when asked for (decision 77).
    pub harness: Option<String>,
    /// When the confirmation rests on calling the nondet functions of a call's arguments left
    /// to right: the harness for gcc's right-to-left order (issue 19, cause 12).
    #[serde(skip)]
    pub harness_right_to_left: Option<String>,
    /// The witness automaton in Graphviz form, when asked for (decision 79).
    pub dot: Option<String>,
    /// RERS: the error code of the `__VERIFIER_error(N)` call a confirmation reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i128>,
    /// A confirmation's run as a witness with every nondet value pinned, when asked for
    /// (`--refine`, issue 21).
    #[serde(skip)]
    pub refined: Option<String>,
    /// Why a rejection (or the `unknown` that followed one) did not confirm: where the
    /// witness and the program part ways (decision 78).
    pub explanation: Option<Explanation>,
    /// A rejection's longest prefix (issue 35 item 8): the run the witness allowed that got
    /// nearest to a violation state, as far as it went; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prefix: Vec<TraceStep>,
    /// A correctness witness's answer (issue 23): `verdict` stays the program's (`rejected` =
    /// no violation = `true`), this says what became of the witness and each invariant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correctness: Option<CorrectnessSummary>,
    /// The shortcut that reached the verdict, when one did (decision 237): its key, e.g.
    /// `projection`, `native-run`; absent when the search decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<&'static str>,
    /// The shortcuts that removed states or runs from the search that decided (the soak counts
    /// them; decision 237).
    #[serde(skip)]
    pub shortcuts_used: Vec<&'static str>,
}

/// What became of a correctness witness (issue 23, decision 165).
#[derive(Debug, Clone, Serialize)]
pub struct CorrectnessSummary {
    /// `confirmed` (`true`: the invariants and the property are proved), `refuted`
    /// (`false(...)`: a real run falsifies an invariant or violates the property) or `unknown`.
    pub witness_verdict: String,
    /// How it was decided: `k-induction` (with `k`), `exhaustive exploration`, `run`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u8>,
    pub invariants: Vec<InvariantStatus>,
    /// The engines that ran, in order, with what each spent (decision 225).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageTime>,
}

/// One engine the validation of a correctness witness ran and what it spent.
#[derive(Debug, Clone, Serialize)]
pub struct StageTime {
    /// `search over every run`, `k-induction`, `bounded refutation`, `native run`, `search`.
    pub stage: String,
    /// Wall-clock milliseconds.
    pub ms: u64,
    pub product_states: u64,
    pub solver_calls: u64,
    /// What the engine concluded when it concluded nothing, in words (the native run: why it
    /// was not run, or what each run showed; issue 51 cause 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One invariant of a correctness witness and what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct InvariantStatus {
    /// `loop invariant`, `location invariant`, `precondition`, `postcondition`.
    pub kind: String,
    pub invariant: String,
    /// The program line of its location, and the function whose variables it speaks of.
    pub line: u32,
    pub function: String,
    /// Where it is in the witness (`line:column`, or `node N22`).
    pub witness_position: String,
    /// `proved`, `refuted`, `unproved`.
    pub status: String,
    /// Refuted: the values that falsify it; unproved: why (a counterexample to induction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Where the witness and the program part ways (decision 78).
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The file the line is in: the program, or (for a defect of the witness itself) the witness.
    pub file: String,
    pub line: u32,
    /// Position (`line:column`) of the witness transition or waypoint concerned, when there is one;
    /// in JSON an object `{"line": L, "column": C}` (issue 21).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "position_object")]
    pub witness_position: Option<String>,
    /// `assumption` (an assumption is false there), `sink` (the witness sends the step to a sink),
    /// `no-progress` (no allowed path passes the transition), `branch` (the branch goes the other
    /// way), `thread` (the transition's thread never runs code on its line, decision 226),
    /// `projection` (the thread cannot take the step whatever the others do, decision 227),
    /// `witness` (the witness cannot be followed at all), `program` (no run of the program
    /// violates the property).
    pub kind: String,
    pub message: String,
}

/// `"69:7"` as `{"line": 69, "column": 7}` (a position that is not `line:column` as the string).
fn position_object<S: serde::Serializer>(p: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let parsed = p.as_deref().and_then(|p| {
        let (l, c) = p.split_once(':')?;
        Some((l.parse::<u32>().ok()?, c.parse::<u32>().ok()?))
    });
    match (parsed, p) {
        (Some((line, column)), _) => {
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("line", &line)?;
            m.serialize_entry("column", &column)?;
            m.end()
        }
        (None, Some(text)) => s.serialize_str(text),
        (None, None) => s.serialize_none(),
    }
}

impl Report {
    /// The SV-COMP result string: `false(<property>)`, `true` or `unknown`.
    pub fn result_string(&self) -> String {
        self.verdict.result_string(&self.property)
    }

    /// What became of the witness: `confirmed`, `rejected` or `unknown`. For a violation
    /// witness the verdict's name; for a correctness witness the reverse of the program's
    /// answer (`true` confirms it, `false(...)` rejects it).
    pub fn witness_verdict(&self) -> &'static str {
        match (&self.correctness, &self.verdict) {
            (None, v) => v.name(),
            (Some(_), Verdict::Confirmed { .. }) => "rejected",
            (Some(_), Verdict::Rejected) => "confirmed",
            (Some(_), Verdict::Unknown { .. }) => "unknown",
        }
    }
}

/// Whether the witness's input values alone reach the error (decision 52).
#[derive(Debug, Clone, Serialize)]
pub struct TestVectorCheck {
    /// `true`: they reach it; `false`: they do not; `null`: undecided (see `detail`).
    pub reaches_error: Option<bool>,
    /// Line of the error call they reach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The input values as the witness writes them, in the order the program takes them.
    pub values: Vec<String>,
    /// What the run found, or why it is undecided.
    pub detail: String,
}
