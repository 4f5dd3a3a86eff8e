//! The format-neutral witness automaton and the readers that build it.
//!
//! Every witness format (GraphML 1.0 in [`graphml`], YAML 2.x later) compiles into one
//! [`WitnessAutomaton`]: states with entry/violation/sink flags, and transitions carrying a
//! source-code guard ([`LocationGuard`]) and an optional state-space guard ([`Assumption`]).
//! The product exploration knows formats only through these types.
//!
//! Readers never touch Z3 and never print: problems in the input are `InputError`s with a
//! position, unusual-but-accepted content becomes a warning string in [`WitnessAutomaton::warnings`].

pub mod dot;
pub mod graphml;
pub mod yaml;

#[cfg(test)]
pub(crate) mod test_support;

use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;

/// Kind of witness, from the metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum WitnessType {
    Violation,
    Correctness,
    /// Violation witness of a non-termination property (lasso with a cycle head).
    Termination,
}

/// Compares a witness's program hash (hex, any case) with the program's bytes, as SHA-256 or, for
/// 40 hex digits, SHA-1 (digest §9.2). `Err` holds the file's SHA-256 for the message.
pub fn check_program_hash(hash: &str, bytes: &[u8]) -> Result<(), String> {
    use sha1::Digest;
    let h = hash.trim().to_ascii_lowercase();
    // Only a 40-digit hash can be SHA-1 (each digest of a large file costs milliseconds).
    if h.len() == 40 && format!("{:x}", sha1::Sha1::digest(bytes)) == h {
        return Ok(());
    }
    let sha256 = format!("{:x}", sha2::Sha256::digest(bytes));
    if h == sha256 {
        Ok(())
    } else {
        Err(sha256)
    }
}

/// Graph-level metadata, as far as the validator uses it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WitnessMetadata {
    pub witness_type: Option<WitnessType>,
    pub format_version: Option<String>,
    pub producer: Option<String>,
    /// Property texts (`specification` elements), raw.
    pub specifications: Vec<String>,
    pub program_file: Option<String>,
    /// Program hash as written (lower-cased, trimmed).
    pub program_hash: Option<String>,
    /// `32bit` / `64bit` as written.
    pub architecture: Option<String>,
    pub source_code_lang: Option<String>,
    /// A feature of the witness this validator does not model yet (a concurrent YAML 2.2
    /// witness): validating it answers `unknown` with this reason, it is not malformed.
    pub unsupported: Option<String>,
}

/// A state of the witness automaton.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WitnessState {
    /// Identifier in the witness file (GraphML node id), for traces and messages.
    pub id: String,
    pub entry: bool,
    pub violation: bool,
    pub sink: bool,
    /// Termination witnesses: the cycle head.
    pub cycle_head: bool,
    /// Node invariant, if any (correctness / termination witnesses).
    pub invariant: Option<String>,
    /// GraphML `invariant.scope`: the function whose variables the invariant speaks of.
    pub invariant_scope: Option<String>,
}

/// Branch direction required by a transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Control {
    /// The branch where the condition as written in the source holds.
    ConditionTrue,
    ConditionFalse,
}

/// An inclusive range (lines, or byte offsets). `start > end` never matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

impl Range {
    /// Overlap test with another inclusive range.
    pub fn overlaps(&self, start: u64, end: u64) -> bool {
        self.start <= self.end && self.start <= end && start <= self.end
    }
}

/// Which kind of program construct a source anchor points at (YAML waypoint types, format
/// 2.0 digest §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AnchorKind {
    /// First character of a statement or block-item declaration; matched when control arrives
    /// at it (the constraint is evaluated in the state right before the statement).
    Statement,
    /// Keyword of an `if`/`while`/`for`/`do`/`switch` or the `?` of a conditional; matched by
    /// the step that decides the branch.
    Branching,
    /// Closing `)` of a call's argument list; matched when the callee is entered.
    FunctionEnter,
    /// Closing `)` of a call's argument list; matched when the call returns (`\result` set).
    FunctionReturn,
    /// First character of the statement whose evaluation is the violation.
    Target,
}

/// An exact source position of a YAML waypoint. The product resolves it against the CFA
/// (a missing column means "the leftmost suitable construct on the line").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceAnchor {
    pub kind: AnchorKind,
    pub line: u32,
    /// 1-based column in characters.
    pub column: Option<u32>,
    pub file_name: Option<String>,
    /// Position of the waypoint in the witness file (`line:col`), for messages.
    pub origin: String,
}

/// The outcome of a branch decision a YAML `branching` waypoint requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum DecisionValue {
    /// Two-way branch: the controlling expression is true / false.
    Bool(bool),
    /// `switch`: the controlling expression has this value (a `case` label is taken).
    Case(i128),
    /// `switch`: no `case` label matches.
    Default,
}

/// The source-code guard of a transition: all present parts are conjoined; an absent part
/// does not restrict. A guard with no part at all matches every observable step.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LocationGuard {
    /// Line range (already normalised: a lone start or end line is copied to the other).
    pub lines: Option<Range>,
    /// Byte-offset range, inclusive.
    pub offsets: Option<Range>,
    /// Base name of the origin file, if given.
    pub origin_file: Option<String>,
    pub control: Option<Control>,
    /// `enterLoopHead=true`.
    pub enter_loop_head: bool,
    /// `enterFunction=F`.
    pub enter_function: Option<String>,
    /// `returnFromFunction=F` (alias `returnFrom`).
    pub return_from_function: Option<String>,
    /// `threadId`, kept so that concurrent witnesses are recognised (not supported yet).
    pub thread_id: Option<String>,
    /// `createThread`.
    pub create_thread: Option<String>,
    /// YAML: an exact anchor in the source (replaces lines/offsets for matching).
    pub anchor: Option<SourceAnchor>,
}

/// The state-space guard of a transition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Assumption {
    /// C expressions as written (one per `assumption` element; each may hold several
    /// `;`-separated expressions). Conjoined.
    pub expressions: Vec<String>,
    /// `assumption.scope`: function whose locals the identifiers refer to.
    pub scope: Option<String>,
    /// `assumption.resultfunction`: function whose return value `\result` denotes.
    pub result_function: Option<String>,
}

/// A transition of the witness automaton.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WitnessTransition {
    pub guard: LocationGuard,
    pub assumption: Option<Assumption>,
    /// Position of the transition in the witness file (`line:col`), for messages.
    pub origin: String,
    /// YAML `avoid` waypoint: a run that passes it (guard matches and assumption and decision
    /// hold) dies; a run that reaches its location without passing it stays where it is.
    /// Avoid transitions do not count as matches for the stutter rule.
    pub avoid: bool,
    /// YAML `branching`: the decision the matched step must take (otherwise the transition's
    /// requirement is false, like a false assumption).
    pub decision: Option<DecisionValue>,
}

/// Where a correctness witness's invariant is evaluated (issue 23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InvariantKind {
    /// YAML `loop_invariant`: at the loop head, before each evaluation of the condition.
    Loop,
    /// YAML `location_invariant`: just before the statement at the location executes.
    Location,
    /// A function contract's `requires`: at every entry of the function.
    Requires,
    /// A function contract's `ensures`: at every return of the function (`\result`).
    Ensures,
    /// YAML 2.1/2.2 `loop_transition_invariant`: a relation between the state at any earlier
    /// visit of the loop head (`\at(e, AnyPrev)`) and the current one (decision 207).
    LoopTransition,
    /// YAML 2.1/2.2 `location_transition_invariant`: the same at a statement's location.
    LocationTransition,
}

impl InvariantKind {
    pub fn name(self) -> &'static str {
        match self {
            InvariantKind::Loop => "loop invariant",
            InvariantKind::Location => "location invariant",
            InvariantKind::Requires => "precondition",
            InvariantKind::Ensures => "postcondition",
            InvariantKind::LoopTransition => "loop transition invariant",
            InvariantKind::LocationTransition => "location transition invariant",
        }
    }
}

/// The language of a correctness witness's expression (its YAML `format`; decision 232): which
/// rules its integer operations follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExprFormat {
    /// `c_expression` (and `ext_c_expression`, GraphML): C's rules, the usual arithmetic
    /// conversions, wrapping unsigned arithmetic, undefined signed overflow.
    #[default]
    C,
    /// `acsl_expression`: integer arithmetic and comparisons over the mathematical integers
    /// (explicit casts keep C's conversions).
    Acsl,
}

/// One invariant of a YAML correctness witness (`invariant_set`), as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessInvariant {
    pub kind: InvariantKind,
    /// The expression (ACSL for contracts: `\result`).
    pub value: String,
    /// Its language (the entry's `format`).
    pub format: ExprFormat,
    pub line: u32,
    pub column: Option<u32>,
    pub function: Option<String>,
    pub file_name: Option<String>,
    /// Where the entry is in the witness file (`line:column`).
    pub origin: String,
}

/// The witness automaton (format-neutral).
#[derive(Debug, Clone, Serialize)]
pub struct WitnessAutomaton {
    pub graph: DiGraph<WitnessState, WitnessTransition>,
    pub entry: NodeIndex,
    pub metadata: WitnessMetadata,
    /// Accepted oddities (unknown keys, duplicate flags, …), for the report.
    pub warnings: Vec<String>,
    /// Which format the automaton was read from (`GraphML 1.0`, `YAML 2.0`, …).
    pub format: String,
    /// Locations are exact source anchors (YAML): matching does not depend on the CFA's
    /// granularity, so rejections need no double-check under a permissive reading.
    pub exact_locations: bool,
    /// A YAML correctness witness's invariants (GraphML ones sit on the states).
    pub invariants: Vec<WitnessInvariant>,
}
