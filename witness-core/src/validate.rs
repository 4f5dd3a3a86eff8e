//! The validation pipeline: read the inputs, build the witness automaton and the CFA, check
//! that they belong together, explore the product, and assemble a [`Report`].
//!
//! This is the only module that reads files. It never prints.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::budget::Clock;
use crate::cfa::DataModel;
use crate::cfront;
use crate::error::InputError;
use crate::product::{self, ExploreOptions, SegmentReading, StutterMode, UndefinedBehaviour};
use crate::shortcuts::{Shortcut, Shortcuts};
use crate::verdict::{CorrectnessSummary, Report, Stats, TestVectorCheck, Verdict};
use crate::witness::{graphml, yaml, WitnessAutomaton, WitnessType};

mod correctness;
mod stages;

/// What the user asked for. [`ValidateOptions::new`] gives the defaults of the command line;
/// the `with_*` methods and the public fields change them. Not constructible by a struct
/// literal outside this crate (`#[non_exhaustive]`), so that a new option breaks no caller.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ValidateOptions {
    pub program: PathBuf,
    pub witness: PathBuf,
    pub property: Option<PathBuf>,
    /// `None`: from the witness's `architecture`, else LP64.
    pub data_model: Option<DataModel>,
    pub timeout: Duration,
    pub stutter: StutterMode,
    /// How YAML segments are matched.
    pub segments: SegmentReading,
    /// What possible undefined behaviour on an allowed path means.
    pub undefined: UndefinedBehaviour,
    /// Which witnesses count as confirmed (decision 53).
    pub semantics: WitnessSemantics,
    /// Resident bytes the validation may add before its exploration stops with `unknown`
    /// (decision 68).
    pub memory_limit: crate::resources::MemoryLimit,
    /// Write the C harness of a confirmation into the report (decision 77).
    pub harness: bool,
    /// Write the witness automaton in Graphviz form into the report (decision 79).
    pub dot: bool,
    /// Write a confirmation's run as a witness in this format into the report (issue 21).
    pub refine: Option<crate::refine::RefineFormat>,
    /// RERS: only `__VERIFIER_error(N)` with this code is the violation (issue 21).
    pub error_code: Option<i128>,
    /// When the budget or the memory limit ends an exploration, leave its states to the
    /// process's end instead of freeing them (issue 24, decision 168): for a process that ends
    /// right after the answer, as the command line does; freeing a large search takes seconds.
    pub leave_states: bool,
    /// The shortcuts that may run (all by default; decision 237): whatever decides a verdict,
    /// or removes states or runs, without the full search. [`Shortcuts::NONE`] gives the full
    /// search's answer, which the soak compares with the default's; without
    /// [`Shortcut::PartialOrder`] every interleaving is explored, without
    /// [`Shortcut::QuickSearch`] a correctness witness's proof comes first (as before decision
    /// 188).
    pub shortcuts: Shortcuts,
    /// Time kept back from `timeout` for what follows the answer (printing it, and the
    /// process's exit): the validation's own deadline is `timeout` minus this (decision 173).
    /// The exploration also keeps back the time its resident memory takes to unmap at exit.
    pub finish_reserve: Duration,
    /// What `timeout` counts: wall-clock time (the default) or the process's CPU time
    /// (decision 175).
    pub clock: Clock,
    /// Runs the program natively (the binary's gcc runner; decision 222): a correctness
    /// witness's invariants checked in a long native run. `None`: no native runs.
    pub native: Option<std::sync::Arc<dyn crate::native::NativeRunner>>,
}

/// The command line's defaults, for texts named `program.c` and `witness` (see
/// [`validate_text`]).
impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions::new("program.c", "witness")
    }
}

impl ValidateOptions {
    /// Validation of `witness` against `program` with the defaults of the command line: the
    /// task's or the witness's data model (else LP64), 90 s, strict stutter, greedy segments,
    /// undefined behaviour excluded, the witness automaton's semantics, the default memory
    /// limit, no harness, no picture, and reachability of `reach_error()` or
    /// `__VERIFIER_error()` unless [`with_property`](Self::with_property) names a `.prp` file.
    pub fn new(program: impl Into<PathBuf>, witness: impl Into<PathBuf>) -> Self {
        ValidateOptions {
            program: program.into(),
            witness: witness.into(),
            property: None,
            data_model: None,
            timeout: Duration::from_secs(90),
            stutter: StutterMode::Strict,
            segments: SegmentReading::Greedy,
            undefined: UndefinedBehaviour::Exclude,
            semantics: WitnessSemantics::Automaton,
            memory_limit: crate::resources::MemoryLimit::Default,
            harness: false,
            dot: false,
            refine: None,
            error_code: None,
            leave_states: false,
            shortcuts: Shortcuts::ALL,
            finish_reserve: Duration::ZERO,
            clock: Clock::Wall,
            native: None,
        }
    }

    /// Only these shortcuts may run (decision 237).
    pub fn with_shortcuts(mut self, shortcuts: Shortcuts) -> Self {
        self.shortcuts = shortcuts;
        self
    }

    /// The property file (`.prp`).
    pub fn with_property(mut self, property: impl Into<PathBuf>) -> Self {
        self.property = Some(property.into());
        self
    }

    /// The task's data model.
    pub fn with_data_model(mut self, data_model: DataModel) -> Self {
        self.data_model = Some(data_model);
        self
    }

    /// The budget (wall-clock time unless [`with_clock`](Self::with_clock) says otherwise).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// What the budget counts: wall-clock time (default) or the process's CPU time.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Also write the C harness of a confirmation into the report.
    pub fn with_harness(mut self) -> Self {
        self.harness = true;
        self
    }

    /// Native runs through `runner` (decision 222).
    pub fn with_native(mut self, runner: std::sync::Arc<dyn crate::native::NativeRunner>) -> Self {
        self.native = Some(runner);
        self
    }

    /// Also write a confirmation's run as a witness (every nondet value pinned) into the report.
    pub fn with_refine(mut self, format: crate::refine::RefineFormat) -> Self {
        self.refine = Some(format);
        self
    }
}

/// What a witness must show to be confirmed (decision 53).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WitnessSemantics {
    /// The witness automaton: a feasible path it allows reaches the error (default).
    Automaton,
    /// Also confirmed: a witness whose path is infeasible but whose input values alone reach
    /// the error, as execution-based validators (FShell-w2t, CPA-w2t, NITWIT) count it.
    TestVector,
}

fn read(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|source| InputError::Io { path: path.to_path_buf(), source })
}

/// Reads a witness in any supported format (chosen by content, not by file extension).
pub fn read_witness(path: &Path) -> Result<WitnessAutomaton, InputError> {
    parse_witness(path, &read(path)?)
}

/// Parses a witness in any supported format (chosen by content); `path` names it in messages.
pub fn parse_witness(path: &Path, bytes: &[u8]) -> Result<WitnessAutomaton, InputError> {
    if graphml::looks_like_graphml(bytes) {
        return graphml::read_graphml(path, bytes);
    }
    if yaml::looks_like_yaml(bytes) {
        return yaml::read_yaml(path, bytes);
    }
    Err(InputError::malformed(
        path,
        1,
        1,
        "expected a violation witness: a GraphML document (<graphml> root) or a YAML sequence of entries with `entry_type`",
    ))
}

/// Parses `32bit`/`64bit`/`ILP32`/`LP64` (case-insensitive).
pub fn parse_data_model(s: &str) -> Option<DataModel> {
    match s.trim().to_ascii_lowercase().as_str() {
        "32bit" | "ilp32" => Some(DataModel::Ilp32),
        "64bit" | "lp64" => Some(DataModel::Lp64),
        _ => None,
    }
}

/// Runs the whole validation.
pub fn validate(opts: &ValidateOptions) -> Result<Report, InputError> {
    let property = opts.property.as_deref().map(Source::File);
    run(opts, Source::File(&opts.program), Source::File(&opts.witness), property)
}

/// Validates a witness given as text against a program given as text, without touching the
/// file system (the paths in `opts` only name them in messages and traces; `property`: the
/// text of a `.prp` file, `None` for reachability of `reach_error()` or `__VERIFIER_error()`).
///
/// ```
/// use witness_core::validate::{validate_text, ValidateOptions};
///
/// let program = "extern void reach_error(void);\n\
///                extern int __VERIFIER_nondet_int(void);\n\
///                int main(void) {\n\
///                  int x = __VERIFIER_nondet_int();\n\
///                  if (x == 42) reach_error();\n\
///                  return 0;\n\
///                }\n";
/// // A YAML 2.0 witness: x is 42 before line 5, then the error there.
/// let witness = r#"
/// - entry_type: violation_sequence
///   metadata:
///     format_version: "2.0"
///     uuid: 1b7a5d4e-3c1f-4f6e-9d2b-0c5e8a7f6b31
///     creation_time: 2026-11-24T12:00:00Z
///     producer: { name: example, version: "1" }
///     task:
///       input_files: [program.c]
///       input_file_hashes: {}
///       specification: G ! call(reach_error())
///       data_model: LP64
///       language: C
///   content:
///     - segment:
///         - waypoint:
///             type: assumption
///             action: follow
///             constraint: { value: x == 42 }
///             location: { file_name: program.c, line: 5, column: 1, function: main }
///     - segment:
///         - waypoint:
///             type: target
///             action: follow
///             location: { file_name: program.c, line: 5, column: 14, function: main }
/// "#;
/// let report = validate_text(program, witness, None, &ValidateOptions::new("program.c", "witness.yml")).unwrap();
/// assert_eq!(report.result_string(), "false(unreach-call)");
/// ```
pub fn validate_text(
    program: &str,
    witness: &str,
    property: Option<&str>,
    opts: &ValidateOptions,
) -> Result<Report, InputError> {
    run(
        opts,
        Source::Text(program.as_bytes()),
        Source::Text(witness.as_bytes()),
        property.map(|p| Source::Text(p.as_bytes())),
    )
}

/// Where an input's bytes come from.
enum Source<'a> {
    File(&'a Path),
    Text(&'a [u8]),
}

impl Source<'_> {
    fn bytes(&self) -> Result<std::borrow::Cow<'_, [u8]>, InputError> {
        match self {
            Source::File(p) => read(p).map(std::borrow::Cow::Owned),
            Source::Text(t) => Ok(std::borrow::Cow::Borrowed(t)),
        }
    }
}

/// [`validate`] on inputs read in this order (witness, property, program), so that the first
/// faulty one is the one reported: the pipeline of [`stages`], each stage a function with its
/// own inputs and outputs, any of which may stop it with a decided report or an input fault.
fn run(
    opts: &ValidateOptions,
    program_src: Source,
    witness_src: Source,
    property_src: Option<Source>,
) -> Result<Report, InputError> {
    let mut run = stages::Run::new(opts);
    match pipeline(&mut run, program_src, witness_src, property_src) {
        Ok(report) => Ok(report),
        Err(stages::Halt::Decided(report)) => Ok(*report),
        Err(stages::Halt::Input(e)) => Err(e),
    }
}

fn pipeline(
    run: &mut stages::Run,
    program_src: Source,
    witness_src: Source,
    property_src: Option<Source>,
) -> Result<Report, stages::Halt> {
    let witness = stages::witness(run, witness_src)?;
    let property = stages::property(run, &witness, property_src)?;
    let data_model = stages::data_model(run, &witness);
    let built = stages::program(run, &witness, program_src, data_model)?;
    let explore = stages::explore_options(run, property.target.clone());
    let anchors = stages::anchors(run, &built.program, &witness, &explore)?;
    if witness.metadata.witness_type == Some(WitnessType::Correctness) {
        return Err(stages::correctness(run, &built.program, &witness, &anchors, &explore, data_model));
    }
    let mut found = stages::explore(run, &built.program, &witness, &anchors, &explore);
    stages::second_check(run, &built.program, &witness, &anchors, &explore, &mut found);
    if run.opts.shortcuts.allows(Shortcut::AvoidBlame) {
        stages::blame_avoid(&built.program, &witness, &anchors, &explore, &mut found);
    }
    stages::default_data_model(run, &built.program, &witness, &explore, data_model, &mut found);
    let refined = stages::refine(run, &built, &witness, &property, data_model, &found);
    Ok(stages::report(run, &built, &witness, &property, data_model, found, refined))
}

/// A confirmation's trace names the program file (its base name) at every step.
fn name_trace_file(opts: &ValidateOptions, verdict: &mut Verdict) {
    if let Verdict::Confirmed { trace, .. } = verdict {
        name_steps(opts, trace);
    }
}

/// Steps of a run (a trace, a rejection's prefix) name the program file (its base name).
fn name_steps(opts: &ValidateOptions, steps: &mut [crate::verdict::TraceStep]) {
    let file = opts.program.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    for step in steps {
        step.file.clone_from(&file);
    }
}

/// Why parsing did not finish: a budget that leaves parsing no real time says so; only a generous
/// one points at lang-c's exponential backtracking (decision 131).
fn parse_out_of_time(budget: Duration) -> String {
    if budget < Duration::from_secs(5) {
        format!(
            "the time budget of {:.1} s ran out before the program was parsed (give more time with --timeout)",
            budget.as_secs_f64()
        )
    } else {
        format!(
            "the time budget of {} s ran out while parsing the program (the C parser backtracks exponentially on some \
             token sequences)",
            budget.as_secs()
        )
    }
}

/// Decision 78: the explanation of a rejection, or of an `unknown` that followed one: where the
/// witness's run died (a false assumption, a sink), or how far it got; for a rejection without a
/// run (the witness cannot be followed, or no run of the program violates the property), the
/// witness position or the program line its [`product::Blame`] names.
fn explain(
    infeasible: &Option<product::InfeasibleStep>,
    blame: Option<&product::Blame>,
    verdict: &Verdict,
    reason: &str,
    strict_rejected: bool,
    opts: &ValidateOptions,
    cfa: &crate::cfa::Cfa,
) -> Option<crate::verdict::Explanation> {
    use crate::verdict::Explanation;
    let name = |p: &Path| p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let after_rejection = strict_rejected && matches!(verdict, Verdict::Unknown { .. });
    if !matches!(verdict, Verdict::Rejected) && !after_rejection {
        return None;
    }
    if let Some(i) = infeasible {
        let line = if i.line > 0 { i.line } else { cfa.function(cfa.main).span.start_line };
        return Some(Explanation {
            file: name(&opts.program),
            line,
            witness_position: (!i.origin.is_empty()).then(|| i.origin.clone()),
            kind: i.kind.into(),
            message: i.what.clone(),
        });
    }
    // No failed step: whom the conclusion blames, a value of the outcome (never its text).
    let program = || Explanation {
        file: name(&opts.program),
        line: cfa.function(cfa.main).span.start_line,
        witness_position: None,
        kind: "program".into(),
        message: reason.to_string(),
    };
    let witness = |origin: Option<&String>| Explanation {
        file: name(&opts.witness),
        line: origin.and_then(|o| o.split_once(':')).and_then(|(l, _)| l.parse().ok()).unwrap_or(1),
        witness_position: origin.cloned(),
        kind: "witness".into(),
        message: reason.to_string(),
    };
    Some(match blame {
        Some(product::Blame::Program) => program(),
        Some(product::Blame::Witness { origin }) => witness(origin.as_ref()),
        None => witness(None),
    })
}

/// What the test-vector run found.
struct TestVectorRun {
    check: TestVectorCheck,
    /// The run's confirmation (trace, error function, error code) when the values reach the error.
    confirmed: Option<Verdict>,
    states: u64,
    solver_calls: u64,
    unspecified_read: bool,
}

/// Reads the witness's test vector and runs the program on it (decision 52).
fn test_vector_run(
    cfa: &crate::cfa::Cfa,
    witness: &WitnessAutomaton,
    anchors: &crate::anchors::Anchors,
    opts: &ExploreOptions,
) -> TestVectorRun {
    let vector = match crate::testvec::extract(cfa, witness, anchors) {
        Ok(v) => v,
        Err(why) => {
            return TestVectorRun {
                check: TestVectorCheck { reaches_error: None, line: None, values: Vec::new(), detail: why },
                confirmed: None,
                states: 0,
                solver_calls: 0,
                unspecified_read: false,
            }
        }
    };
    let values = vector.values();
    let run = product::run_test_vector(cfa, witness, anchors, opts, std::rc::Rc::new(vector));
    let (reaches_error, line, confirmed, detail) = match run.verdict {
        Verdict::Confirmed { ref trace, ref error_function, .. } => {
            let line = trace.last().map(|s| s.line).unwrap_or(0);
            let detail = format!("the witness's input values alone reach {error_function}() at line {line}");
            (Some(true), Some(line), Some(run.verdict), detail)
        }
        Verdict::Rejected => {
            (Some(false), None, None, "the witness's input values alone do not reach the error".to_string())
        }
        Verdict::Unknown { reason } => (
            None,
            None,
            None,
            format!("whether the witness's input values alone reach the error is undecided: {reason}"),
        ),
    };
    TestVectorRun {
        check: TestVectorCheck { reaches_error, line, values, detail },
        confirmed,
        states: run.states,
        solver_calls: run.solver_calls,
        unspecified_read: run.unspecified_read,
    }
}

/// Which reading of the witness was used, for the report.
fn reading_name(w: &WitnessAutomaton, opts: &ValidateOptions) -> String {
    if w.exact_locations {
        match opts.segments {
            SegmentReading::Greedy => "segments greedy (first occurrence)".into(),
            SegmentReading::Existential => "segments existential".into(),
        }
    } else {
        format!("stutter {}", stutter_name(opts.stutter))
    }
}

fn stutter_name(s: StutterMode) -> &'static str {
    match s {
        StutterMode::Strict => "strict",
        StutterMode::Lenient => "lenient",
    }
}

fn unknown_report(
    reason: &str,
    w: &WitnessAutomaton,
    warnings: Vec<String>,
    started: Instant,
    opts: &ValidateOptions,
    dm: DataModel,
) -> Report {
    Report {
        verdict: Verdict::Unknown { reason: reason.into() },
        reason: reason.into(),
        stats: Stats { wall_ms: started.elapsed().as_millis() as u64, ..Stats::default() },
        warnings,
        witness_format: w.format.clone(),
        reading: reading_name(w, opts),
        data_model: dm.name().into(),
        test_vector: None,
        property: "unreach-call".into(),
        harness: None,
        harness_right_to_left: None,
        explanation: None,
        prefix: Vec::new(),
        dot: None,
        refined: None,
        error_code: None,
        correctness: (w.metadata.witness_type == Some(WitnessType::Correctness)).then(|| CorrectnessSummary {
            witness_verdict: "unknown".into(),
            method: None,
            k: None,
            invariants: Vec::new(),
            stages: Vec::new(),
        }),
        decided_by: None,
        shortcuts_used: Vec::new(),
    }
}

/// Compares the witness's program hash with SHA-256 and SHA-1 of the file (digest §9.2:
/// a mismatch is a loud warning, not a rejection).
fn check_hash(hash: Option<&str>, bytes: &[u8], warnings: &mut Vec<String>) {
    let Some(h) = hash else {
        warnings.push("the witness has no program hash".into());
        return;
    };
    if let Err(sha256) = crate::witness::check_program_hash(h, bytes) {
        let h = h.trim().to_ascii_lowercase();
        warnings.push(format!("program hash mismatch: the witness says {h}, the file's SHA-256 is {sha256}"));
    }
}

/// Transitions past the end of the program (digest L5: a warning; decision 38 decides what they
/// mean for the verdict).
fn check_fits_program(w: &WitnessAutomaton, cfa: &crate::cfa::Cfa, opts: &ValidateOptions, warnings: &mut Vec<String>) {
    let lines = cfa.line_count();
    let past = w.graph.edge_weights().find_map(|t| t.guard.lines.filter(|r| r.start > lines).map(|r| (t, r)));
    if let Some((t, r)) = past {
        warnings.push(format!(
            "the witness's transition at {} refers to line {}, but {} has {} lines: the witness may be written for another program",
            t.origin,
            r.start,
            opts.program.display(),
            lines
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::check_hash;

    #[test]
    fn program_hash_as_sha256_or_sha1() {
        let text = b"int main(void) { return 0; }\n";
        let sha256 = "e1f4e5c1e4b4d3a8b1c9ee0c2e1e2c0a0b5f7b0d9a1e0f3c6d2b8a7c4e5f6a7b";
        let mut w = Vec::new();
        check_hash(Some(sha256), text, &mut w);
        assert!(w.iter().any(|m| m.contains("program hash mismatch")), "{w:?}");
        use sha1::Sha1;
        use sha2::{Digest, Sha256};
        for good in [format!("{:x}", Sha256::digest(text)), format!("{:X}", Sha1::digest(text))] {
            let mut w = Vec::new();
            check_hash(Some(&good), text, &mut w);
            assert!(w.is_empty(), "{good}: {w:?}");
        }
        let mut w = Vec::new();
        check_hash(Some(&format!("{:x}", Sha1::digest(b"other"))), text, &mut w);
        assert_eq!(w.len(), 1);
        let mut w = Vec::new();
        check_hash(None, text, &mut w);
        assert!(w[0].contains("no program hash"));
    }
}
