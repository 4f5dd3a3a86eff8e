//! The stages of [`super::run`], in the order the data flows through them: the witness, the
//! task's property, the data model, the program, the anchors, the exploration, the second check
//! of a rejection (the witness's input values alone), and the report. Each stage is a function
//! with its own inputs and outputs; one that decides the answer early (an `unknown` with its
//! reason) or finds an input at fault stops the run with a [`Halt`].

use std::path::Path;
use std::time::Instant;

use super::{
    check_fits_program, check_hash, correctness, explain, name_trace_file, parse_out_of_time, parse_witness,
    reading_name, test_vector_run, unknown_report, Source, ValidateOptions, WitnessSemantics,
};
use crate::anchors::Anchors;
use crate::budget::Deadline;
use crate::cfa::DataModel;
use crate::cfront::{self, Program};
use crate::error::InputError;
use crate::product::{self, ExploreOptions};
use crate::property::{self, ErrorTarget, PropertyKind};
use crate::verdict::{Report, Stats, TestVectorCheck, Verdict};
use crate::witness::{WitnessAutomaton, WitnessType};

/// Why a run stops before its last stage.
pub(super) enum Halt {
    /// The answer is decided (an `unknown` whose reason a stage gave, or a correctness report).
    Decided(Box<Report>),
    /// An input is at fault.
    Input(InputError),
}

impl From<InputError> for Halt {
    fn from(e: InputError) -> Self {
        Halt::Input(e)
    }
}

/// What every stage shares: the options, the clock and the warnings so far.
pub(super) struct Run<'a> {
    pub opts: &'a ValidateOptions,
    pub started: Instant,
    pub deadline: Deadline,
    /// Memory is bounded for this validation, whatever its caller holds (decision 68).
    pub memory_baseline: u64,
    pub warnings: Vec<String>,
    /// Why a correctness witness may be refuted but never confirmed here (its specification
    /// names another property than the task's, decision 201).
    pub never_confirm: Option<String>,
}

impl<'a> Run<'a> {
    pub fn new(opts: &'a ValidateOptions) -> Self {
        Run {
            opts,
            started: Instant::now(),
            deadline: Deadline::after(opts.clock, opts.timeout.saturating_sub(opts.finish_reserve)),
            memory_baseline: crate::resources::resident_bytes().unwrap_or(0),
            warnings: Vec::new(),
            never_confirm: None,
        }
    }

    /// Stops with an `unknown` report saying `why`.
    fn unknown(&mut self, why: &str, witness: &WitnessAutomaton, dm: DataModel) -> Halt {
        let warnings = std::mem::take(&mut self.warnings);
        Halt::Decided(Box::new(unknown_report(why, witness, warnings, self.started, self.opts, dm)))
    }

    /// Stops with an `unknown` report before the data model is decided (the task's, else LP64).
    fn unknown_early(&mut self, why: &str, witness: &WitnessAutomaton) -> Halt {
        let dm = self.opts.data_model.unwrap_or(DataModel::Lp64);
        self.unknown(why, witness, dm)
    }
}

/// Stage 1: the witness automaton, if its kind can be validated at all.
pub(super) fn witness(run: &mut Run, src: Source) -> Result<WitnessAutomaton, Halt> {
    let witness = parse_witness(&run.opts.witness, &src.bytes()?)?;
    run.warnings.extend(witness.warnings.iter().cloned());
    if let Some(why) = &witness.metadata.unsupported {
        return Err(run.unknown_early(why, &witness));
    }
    // Decision 92: a non-termination witness without a cycle head describes no lasso.
    if is_lasso(&witness) && !witness.graph.node_weights().any(|n| n.cycle_head) {
        return Err(run.unknown_early(
            "the non-termination witness has no cycle head (no node with `cyclehead`, no `cycle` segment): no lasso \
             to validate",
            &witness,
        ));
    }
    Ok(witness)
}

fn is_lasso(witness: &WitnessAutomaton) -> bool {
    witness.metadata.witness_type == Some(WitnessType::Termination)
}

/// The task's property: what counts as a violation, and the property file's text.
pub(super) struct TaskProperty {
    pub target: ErrorTarget,
    pub text: Option<String>,
}

/// Stage 2: the property the witness is validated against, if the witness claims something
/// about it (decisions 72, 92).
pub(super) fn property(run: &mut Run, witness: &WitnessAutomaton, src: Option<Source>) -> Result<TaskProperty, Halt> {
    let lasso = is_lasso(witness);
    // The property decides the error function; without one, both conventional ones count.
    let mut property_text = None;
    let target = match &src {
        Some(src) => {
            let p = run.opts.property.as_deref().unwrap_or(Path::new("property.prp"));
            let text = String::from_utf8_lossy(&src.bytes()?).into_owned();
            property_text = Some(text.clone());
            let prop = property::parse_property(p, &text)?;
            match property::check_for(&prop) {
                Some(check) => check,
                None => {
                    let what = match &prop.kind {
                        PropertyKind::Other(what) => what.as_str(),
                        _ => "?",
                    };
                    let why = format!("property `{what}` is not supported (supported: {})", property::supported());
                    return Err(run.unknown_early(&why, witness));
                }
            }
        }
        None => property::without_property_file(lasso),
    };
    let target = match run.opts.error_code {
        None => target,
        Some(code) => match property::with_error_code(&target, code) {
            Ok(t) => t,
            Err(why) => {
                return Err(run.unknown_early(&why, witness));
            }
        },
    };
    // Decision 72: a witness for one property never confirms another. A witness whose
    // specifications all name another kind of property (unreach-call, no-overflow, memory
    // safety) than the task's is not validated.
    let ours = target.name();
    let specs: Vec<&'static str> = witness
        .metadata
        .specifications
        .iter()
        .filter_map(|s| property::property_from_specification(s))
        .map(|p| property::category(&p).unwrap_or("another property"))
        .collect();
    // Decision 92: a lasso is validated only for termination, and termination only with a lasso.
    if lasso != target.lasso() {
        let why = if lasso {
            format!("the witness is a non-termination witness (a lasso), the task's property is {ours}: not validated")
        } else {
            "the task's property is termination, but the witness is no lasso (no cycle head): not validated".into()
        };
        return Err(run.unknown_early(&why, witness));
    }
    if !specs.is_empty() && specs.iter().all(|c| *c != ours) {
        // Decision 201: a correctness witness is still checked against the task's property, for
        // a refutation only (a run that violates the property, or falsifies an invariant, is
        // one whatever the witness claims); it is never confirmed for a property it does not name.
        if witness.metadata.witness_type == Some(WitnessType::Correctness) {
            run.warnings.push(format!(
                "the witness is for {} (its specification), the task's property is {ours}: it can be refuted, not \
                 confirmed",
                specs[0]
            ));
            run.never_confirm = Some(format!("the witness is for {} (its specification), not for {ours}", specs[0]));
        } else {
            let why = format!(
                "the witness is for {} (its specification), the task's property is {ours}: not validated",
                specs[0]
            );
            return Err(run.unknown_early(&why, witness));
        }
    }
    for spec in &witness.metadata.specifications {
        if let Some(p) = property::property_from_specification(spec) {
            if p.kind == PropertyKind::UnreachCall
                && !target.error_functions().is_empty()
                && !p.error_functions.iter().any(|f| target.error_functions().contains(f))
            {
                run.warnings.push(format!(
                    "the witness's specification names {} but the property file names {}",
                    p.error_functions.join(", "),
                    target.error_functions().join(", ")
                ));
            }
        }
    }
    Ok(TaskProperty { target, text: property_text })
}

/// Stage 3: the data model: the task's, else the witness's architecture, else LP64.
pub(super) fn data_model(run: &mut Run, witness: &WitnessAutomaton) -> DataModel {
    let arch = witness.metadata.architecture.as_deref().and_then(super::parse_data_model);
    match (run.opts.data_model, arch) {
        (Some(dm), Some(a)) if dm != a => {
            run.warnings.push(format!(
                "the witness says architecture {} but the task's data model is {}; following the task",
                witness.metadata.architecture.as_deref().unwrap_or(""),
                dm.name()
            ));
            dm
        }
        (Some(dm), _) => dm,
        (None, Some(a)) => a,
        (None, None) => DataModel::Lp64,
    }
}

/// The program as the validator understands it, and its bytes when a refined witness is asked
/// for (it names the file as it is: its hash, its columns).
pub(super) struct BuiltProgram {
    pub program: Program,
    pub original: Option<Vec<u8>>,
}

/// Stage 4: the program's CFA, checked against the witness's hash and lines.
pub(super) fn program(
    run: &mut Run,
    witness: &WitnessAutomaton,
    src: Source,
    data_model: DataModel,
) -> Result<BuiltProgram, Halt> {
    let opts = run.opts;
    let program_bytes = src.bytes()?.into_owned();
    check_hash(witness.metadata.program_hash.as_deref(), &program_bytes, &mut run.warnings);
    let original = opts.refine.is_some().then(|| program_bytes.clone());
    // The bytes become the text without a copy (a 1M-line file is 37 MB).
    let program_text = match String::from_utf8(program_bytes) {
        Ok(t) => t,
        Err(e) => {
            let (line, col) = crate::error::line_col(e.as_bytes(), e.utf8_error().valid_up_to());
            return Err(InputError::malformed(&opts.program, line, col, "expected UTF-8 C source text").into());
        }
    };
    let program = match cfront::build_program_within(&opts.program, program_text, data_model, Some(run.deadline)) {
        Ok(p) => p,
        Err(cfront::BuildFailure::Input(e)) => return Err(e.into()),
        Err(cfront::BuildFailure::Unsupported(reason)) => return Err(run.unknown(&reason, witness, data_model)),
        Err(cfront::BuildFailure::OutOfTime) => {
            return Err(run.unknown(&parse_out_of_time(opts.timeout), witness, data_model))
        }
    };
    run.warnings.extend(program.warnings.iter().cloned());
    check_fits_program(witness, &program.cfa, opts, &mut run.warnings);
    Ok(BuiltProgram { program, original })
}

/// Stage 5: how the product is explored (the exact reading; the portfolio tries the others).
pub(super) fn explore_options(run: &Run, target: ErrorTarget) -> ExploreOptions {
    let opts = run.opts;
    ExploreOptions {
        deadline: run.deadline,
        budget_secs: opts.timeout.as_secs(),
        stutter: opts.stutter,
        target,
        reading: product::SearchReading::AsWritten,
        segments: opts.segments,
        undefined: opts.undefined,
        memory_limit: opts.memory_limit,
        memory_baseline: run.memory_baseline,
        leave_states: opts.leave_states,
        shortcuts: opts.shortcuts,
    }
}

/// Stage 6: the witness's source anchors resolved to the program's CFA.
pub(super) fn anchors(
    run: &mut Run,
    program: &Program,
    witness: &WitnessAutomaton,
    explore: &ExploreOptions,
) -> Result<Anchors, Halt> {
    let operations = explore.target.operations() || explore.target.race();
    crate::anchors::resolve_anchors(&program.cfa, &program.source, witness, operations, &mut run.warnings)
        .map_err(|m| InputError::invalid(&run.opts.witness, m).into())
}

/// Stage 7 for a correctness witness: its own stage decides the report.
pub(super) fn correctness(
    run: &mut Run,
    program: &Program,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    explore: &ExploreOptions,
    data_model: DataModel,
) -> Halt {
    let stage = correctness::Stage {
        opts: run.opts,
        witness,
        anchors,
        explore,
        started: run.started,
        never_confirm: run.never_confirm.take(),
        native_tried: std::cell::Cell::new(false),
    };
    Halt::Decided(Box::new(stage.report(program, data_model, std::mem::take(&mut run.warnings))))
}

/// What the exploration of a violation witness found, with the second check of a rejection.
pub(super) struct Explored {
    pub verdict: Verdict,
    pub reason: String,
    pub states: u64,
    pub solver_calls: u64,
    /// The subproperty a memory violation violates.
    pub violated: Option<&'static str>,
    pub infeasible: Option<product::InfeasibleStep>,
    pub strict_rejected: bool,
    pub blame: Option<product::Blame>,
    pub race: Option<[crate::verdict::RaceAccess; 2]>,
    /// The second check's finding (decision 52).
    pub test_vector: Option<TestVectorCheck>,
    /// The harness of a rejected witness's input values, when they alone reach the error.
    pub vector_harness: Option<String>,
    /// A rejection's longest prefix (issue 35 item 8).
    pub prefix: Vec<crate::verdict::TraceStep>,
    /// The shortcut that decided, and those that removed states (decision 237).
    pub decided_by: Option<crate::shortcuts::Shortcut>,
    pub used: crate::shortcuts::Shortcuts,
}

/// Stage 7: the product of program and witness explored.
pub(super) fn explore(
    run: &mut Run,
    program: &Program,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    explore: &ExploreOptions,
) -> Explored {
    let outcome = product::explore(&program.cfa, &program.source, witness, anchors, explore);
    run.warnings.extend(outcome.warnings);
    Explored {
        verdict: outcome.verdict,
        reason: outcome.reason,
        states: outcome.states,
        solver_calls: outcome.solver_calls,
        violated: outcome.violated,
        infeasible: outcome.infeasible,
        strict_rejected: outcome.strict_rejected,
        blame: outcome.blame,
        race: outcome.race,
        test_vector: None,
        vector_harness: None,
        prefix: outcome.prefix,
        decided_by: outcome.decided_by,
        used: outcome.used,
    }
}

/// Stage 8 (decision 52): a second check of every rejection (and of every unknown that followed
/// one): do the witness's input values alone reach the error? Under the test-vector semantics
/// that confirms; under the automaton's it is said beside the rejection.
pub(super) fn second_check(
    run: &mut Run,
    program: &Program,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    explore: &ExploreOptions,
    found: &mut Explored,
) {
    if !found.strict_rejected
        || matches!(found.verdict, Verdict::Confirmed { .. })
        || explore.target.operations()
        || explore.target.lasso()
    {
        return;
    }
    let tv = test_vector_run(&program.cfa, witness, anchors, explore);
    found.states += tv.states;
    found.solver_calls += tv.solver_calls;
    if let (Some(line), Some(confirmed)) = (tv.check.line, tv.confirmed) {
        let Verdict::Confirmed { trace, .. } = &confirmed else { unreachable!("a test-vector run confirms") };
        let sentence = match &found.infeasible {
            // The reason already says where the path dies.
            Some(i) if found.reason.contains(&i.what) => {
                format!("its input values alone reach the error at line {line}")
            }
            Some(i) => format!(
                "the witness's path is infeasible at line {}: {} (at {} in the witness); its input values alone reach \
                 the error at line {line}",
                i.line, i.what, i.origin
            ),
            None => format!(
                "no path the witness allows reaches the error, but its input values alone reach the error at line \
                 {line}"
            ),
        };
        match run.opts.semantics {
            WitnessSemantics::Automaton => {
                found.reason = format!("{}; {sentence}", found.reason);
                // Issue 21: the harness of those input values reproduces the error natively.
                if run.opts.harness {
                    found.vector_harness = Some(crate::harness::harness(&program.cfa, trace));
                }
            }
            WitnessSemantics::TestVector => {
                run.warnings.push(format!(
                    "the automaton reading {} this witness ({}); it is confirmed only because \
                     --witness-semantics test-vector counts a witness whose input values alone reach the error",
                    if matches!(found.verdict, Verdict::Rejected) { "rejects" } else { "does not confirm" },
                    found.reason
                ));
                if tv.unspecified_read {
                    run.warnings.push(
                        "the test-vector run reads union bytes that C leaves unspecified (C11 6.2.6.1p7); it \
                         uses the bytes the machine keeps, as a compiled run does"
                            .into(),
                    );
                }
                found.reason = format!("witness confirmed under the test-vector semantics: {sentence}");
                found.verdict = confirmed;
            }
        }
    }
    found.test_vector = Some(tv.check);
}

/// The options of the extra explorations that only explain a verdict ([`blame_avoid`],
/// [`default_data_model`]): the exploration's, within one short slice of the budget (at most
/// 2 s and an eighth of the time left).
fn explanation_slice(explore: &ExploreOptions) -> ExploreOptions {
    let slice = (explore.deadline.remaining() / 8).min(std::time::Duration::from_secs(2));
    let deadline = explore.deadline.sooner(slice);
    ExploreOptions { deadline, target: explore.target.clone(), reading: explore.reading.clone(), ..*explore }
}

/// Most `avoid` waypoints [`blame_avoid`] tries one by one.
const MAX_BLAMED_AVOIDS: usize = 8;

/// Issue 35 item 3 (decision 212): a rejection of a witness with `avoid` waypoints names the one
/// that excludes every run reaching the target, when there is one: the witness without it (all
/// else kept) is explored, all of them within one short slice of the budget, and if that
/// confirms, the reason says so. An explanation only: the verdict is the witness's, with every waypoint.
pub(super) fn blame_avoid(
    program: &Program,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    explore: &ExploreOptions,
    found: &mut Explored,
) {
    if !matches!(found.verdict, Verdict::Rejected) {
        return;
    }
    let avoids: Vec<_> = witness.graph.edge_indices().filter(|e| witness.graph[*e].avoid).collect();
    if avoids.is_empty() || avoids.len() > MAX_BLAMED_AVOIDS {
        return;
    }
    // One slice for all of them.
    let opts = explanation_slice(explore);
    for e in avoids {
        if opts.deadline.passed() {
            return;
        }
        let mut without = witness.clone();
        without.graph.remove_edge(e);
        let outcome = product::explore(&program.cfa, &program.source, &without, anchors, &opts);
        found.states += outcome.states;
        found.solver_calls += outcome.solver_calls;
        if let Verdict::Confirmed { trace, .. } = &outcome.verdict {
            let t = &witness.graph[e];
            let what = match &t.assumption {
                Some(a) => format!("`{}`", a.expressions.join("; ")),
                None => "its location".into(),
            };
            let line = t
                .guard
                .anchor
                .as_ref()
                .map(|a| a.line as u64)
                .or(t.guard.lines.map(|l| l.start))
                .map(|l| format!(" at line {l}"))
                .unwrap_or_default();
            let reached = trace.last().map(|s| format!(" (at line {})", s.line)).unwrap_or_default();
            found.reason = format!(
                "{}; it is the avoid waypoint {what}{line} (witness {}) that excludes every such run: without it, a \
                 run the witness allows reaches the error{reached}",
                found.reason, t.origin
            );
            // Its words are in the reason (decision 237: named, as the soak counts it).
            found.used = found.used.with(crate::shortcuts::Shortcut::AvoidBlame);
            return;
        }
    }
}

/// Issue 35 item 3: a rejection under the default data model (the task gives none, the witness
/// names no architecture, so LP64 was read) says so when the data model decides it: the witness
/// read as ILP32, explored within one short slice of the budget (at most 2 s, an eighth of the
/// time left), is confirmed. An explanation only: the verdict is the one of the data model read.
pub(super) fn default_data_model(
    run: &Run,
    program: &Program,
    witness: &WitnessAutomaton,
    explore: &ExploreOptions,
    data_model: DataModel,
    found: &mut Explored,
) {
    let named = witness.metadata.architecture.as_deref().and_then(super::parse_data_model);
    if !matches!(found.verdict, Verdict::Rejected) || run.opts.data_model.is_some() || named.is_some() {
        return;
    }
    let other = match data_model {
        DataModel::Lp64 => DataModel::Ilp32,
        DataModel::Ilp32 => return,
    };
    let opts = explanation_slice(explore);
    let Ok(p) = cfront::build_program_within(&run.opts.program, program.source.clone(), other, Some(opts.deadline))
    else {
        return;
    };
    let operations = explore.target.operations() || explore.target.race();
    let Ok(anchors) = crate::anchors::resolve_anchors(&p.cfa, &p.source, witness, operations, &mut Vec::new()) else {
        return;
    };
    let outcome = product::explore(&p.cfa, &p.source, witness, &anchors, &opts);
    found.states += outcome.states;
    found.solver_calls += outcome.solver_calls;
    if matches!(outcome.verdict, Verdict::Confirmed { .. }) {
        found.reason = format!(
            "{}; the witness names no architecture and was read as {} (the default): read as {} (`--data-model {}`), \
             it is confirmed",
            found.reason,
            data_model.name(),
            other.name(),
            other.name()
        );
    }
}

/// Stage 9 (`--refine`): the confirmed run written as a witness of its own, or why not.
pub(super) fn refine(
    run: &mut Run,
    built: &BuiltProgram,
    witness: &WitnessAutomaton,
    property: &TaskProperty,
    data_model: DataModel,
    found: &Explored,
) -> Option<String> {
    let (Verdict::Confirmed { trace, error_function, call, .. }, Some(format), Some(source)) =
        (&found.verdict, run.opts.refine, &built.original)
    else {
        return None;
    };
    // The function the specification names: the error call's own, without the code a RERS
    // confirmation reached (`call(__VERIFIER_error())`, not `call(__VERIFIER_error(7)())`).
    let error_function = call.as_ref().map_or(error_function.as_str(), |c| c.function.as_str());
    let file_name = run.opts.program.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let task = crate::refine::Task {
        file_name: &file_name,
        source,
        property: property.text.as_deref(),
        error_function,
        data_model,
    };
    // A race is two accesses of two threads, which only a YAML 2.2 race segment states; a
    // refined witness of one target would validate to `true` (issue 32 cause 18).
    if property.target.race() {
        let written = match (format, &found.race) {
            (crate::refine::RefineFormat::Graphml, _) => {
                Err("no refined witness: a data race is refined only to YAML \
                                                              2.2 (a race segment of its two accesses); GraphML has \
                                                              no agreed form of a race"
                    .to_string())
            }
            (_, None) => Err("no refined witness: the race's accesses have no place in the program".to_string()),
            (_, Some(race)) => crate::refine::refine_race(&task, &built.program.cfa, trace, race),
        };
        return written.map_err(|why| run.warnings.push(why)).ok();
    }
    let format = match format {
        crate::refine::RefineFormat::AsWitness if witness.format.starts_with("YAML") => {
            crate::refine::RefineFormat::Yaml
        }
        crate::refine::RefineFormat::AsWitness => crate::refine::RefineFormat::Graphml,
        f => f,
    };
    crate::refine::refine(format, &task, trace).map_err(|why| run.warnings.push(why)).ok()
}

/// Stage 10: the report: the verdict and its reason, the explanation of a rejection, the
/// harnesses and the picture asked for.
pub(super) fn report(
    run: &mut Run,
    built: &BuiltProgram,
    witness: &WitnessAutomaton,
    property: &TaskProperty,
    data_model: DataModel,
    mut found: Explored,
    refined: Option<String>,
) -> Report {
    let (opts, program) = (run.opts, &built.program);
    // Issue 19, cause 12: a confirmation that rests on the order of the nondet calls in one
    // call's arguments says so.
    let unordered = match &found.verdict {
        Verdict::Confirmed { trace, .. } => crate::harness::unordered_groups(&program.cfa, trace),
        _ => Vec::new(),
    };
    for (line, _) in &unordered {
        run.warnings.push(format!(
            "the confirmation rests on calling the nondet functions in the arguments of the call at line {line} left \
             to right: C leaves their order unspecified, and gcc on x86 calls them right to left (with the \
             witness's values in call order, a native run takes other values there; `--replay` tells)"
        ));
    }
    // The confirmed trace, kept only for a harness or a picture.
    let confirmed_trace = match &found.verdict {
        Verdict::Confirmed { trace, .. } if opts.harness || opts.dot => Some(trace.clone()),
        _ => None,
    };
    // RERS: the error code a confirmation reached (`__VERIFIER_error(7)`).
    let error_code = match &found.verdict {
        Verdict::Confirmed { call, .. } => call.as_ref().and_then(|c| c.code),
        _ => None,
    };
    name_trace_file(opts, &mut found.verdict);
    let explanation = explain(
        &found.infeasible,
        found.blame.as_ref(),
        &found.verdict,
        &found.reason,
        found.strict_rejected,
        opts,
        &program.cfa,
    );
    // The prefix of a rejected witness's run, its steps named by the program's file as a trace's.
    let mut prefix = match &found.verdict {
        Verdict::Rejected => std::mem::take(&mut found.prefix),
        _ => Vec::new(),
    };
    super::name_steps(opts, &mut prefix);
    let dot = opts.dot.then(|| {
        // The states of the confirmed run, or of a rejected witness's longest prefix, filled.
        let run: Vec<String> =
            confirmed_trace.iter().flatten().chain(&prefix).map(|s| s.witness_node.clone()).collect();
        crate::witness::dot::to_dot(witness, &run, explanation.as_ref().and_then(|e| e.witness_position.as_deref()))
    });
    let decided_by = found.decided_by.filter(|_| !matches!(found.verdict, Verdict::Unknown { .. })).map(|s| s.key());
    Report {
        verdict: found.verdict,
        reason: found.reason,
        stats: Stats {
            wall_ms: run.started.elapsed().as_millis() as u64,
            product_states: found.states,
            solver_calls: found.solver_calls,
        },
        warnings: std::mem::take(&mut run.warnings),
        witness_format: witness.format.clone(),
        reading: reading_name(witness, opts),
        data_model: data_model.name().into(),
        test_vector: found.test_vector,
        // A memory violation names its subproperty (`violated`).
        property: found.violated.unwrap_or(property.target.name()).into(),
        explanation,
        prefix,
        dot,
        harness: match (&confirmed_trace, opts.harness) {
            (Some(trace), true) => Some(crate::harness::harness_for(&program.cfa, &program.source, trace, &[])),
            _ => found.vector_harness,
        },
        harness_right_to_left: match (&confirmed_trace, opts.harness, unordered.is_empty()) {
            (Some(trace), true, false) => {
                let groups: Vec<_> = unordered.iter().map(|(_, r)| r.clone()).collect();
                Some(crate::harness::harness_for(&program.cfa, &program.source, trace, &groups))
            }
            _ => None,
        },
        refined,
        error_code,
        correctness: None,
        decided_by,
        shortcuts_used: found.used.keys(),
    }
}
