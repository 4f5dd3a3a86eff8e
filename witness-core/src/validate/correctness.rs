//! Issue 23: the pipeline's stage for correctness witnesses (decisions 162–165): place the
//! invariants, try the proof (k-induction), else search for a run that falsifies one, and
//! report the witness's fate and each invariant's.

use std::rc::Rc;

use super::*;
use crate::invariants::{self, Obligation, Unchecked};
use crate::product::InvariantOutcome;
use crate::reading::Claim;
use crate::verdict::{InvariantStatus, StageTime};

pub(super) struct Stage<'a> {
    pub opts: &'a ValidateOptions,
    pub witness: &'a WitnessAutomaton,
    pub anchors: &'a crate::anchors::Anchors,
    pub explore: &'a ExploreOptions,
    pub started: Instant,
    /// Set when the witness may be refuted but not confirmed (decision 201).
    pub never_confirm: Option<String>,
    /// The native run has run already (decision 245: the one run before the proof).
    pub native_tried: std::cell::Cell<bool>,
}

/// The longest search over every run before the proof (decision 223): long enough for a small
/// program's runs, short against the proof's typical fraction of a second.
const QUICK_SEARCH: Duration = Duration::from_millis(250);

/// The properties a correctness witness is checked for.
const PROPERTIES: &[&str] = &["unreach-call", "no-overflow"];

impl Stage<'_> {
    pub(super) fn report(&self, program: &cfront::Program, dm: DataModel, warnings: Vec<String>) -> Report {
        let cfa = &program.cfa;
        let property = self.explore.target.name();
        let unknown = |why: String, warnings: Vec<String>| {
            let mut r = unknown_report(&why, self.witness, warnings, self.started, self.opts, dm);
            r.property = property.into();
            r
        };
        if !PROPERTIES.contains(&property) {
            return unknown(
                format!(
                    "correctness witnesses are checked for {} only; the task's property is {property}",
                    PROPERTIES.join(" and ")
                ),
                warnings,
            );
        }
        let obligations = match invariants::resolve(cfa, self.witness) {
            Ok(o) => o,
            Err(why) => return unknown(why, warnings),
        };
        // Decision 251: transition invariants that relate two visits are ordinary invariants of
        // the program with ghost copies; every engine but the native runs (which check none of
        // them) works on that program.
        let instrumented = match crate::transition::instrument(cfa, &obligations) {
            Ok(i) => i,
            Err(why) => return unknown(why, warnings),
        };
        let (cfa, obligations) = match instrumented.as_ref() {
            Some(i) => (&i.cfa, Rc::new(i.obligations.clone())),
            None => (cfa, Rc::new(obligations)),
        };
        // An invariant that cannot be checked leaves the others to refute the witness (decision 207).
        let unsupported = obligations.iter().find_map(|o| match &o.unchecked {
            Some(Unchecked::Unsupported(why)) => Some(why.clone()),
            _ => None,
        });
        let never_confirm = self.never_confirm.clone().or(unsupported);
        // A small program's runs are often explored completely in less time than a proof takes
        // (decision 188): a search over every run for a moment first. In a program with
        // recursion, short bounded refutations for a moment (decision 230): the search is depth
        // first and the proof's base cases end only at cut points, which a recursion passes
        // none of, so a violation a few calls deep lies behind an unbounded first branch for
        // both. Then the proof, with at most half of the time left: its base cases are the
        // shortest refutations of loops, and it decides most correct witnesses in a fraction of
        // a second (decision 223). Then bounded refutations, a long native run and the search
        // for a run with what is left.
        let mut stages = Vec::new();
        let slice = || (self.explore.deadline.remaining() / 10).min(QUICK_SEARCH);
        // Which shortcut decided, if one did (decision 237).
        let on = |s: Shortcut| self.opts.shortcuts.allows(s);
        let mut decider = None;
        let mut quick = on(Shortcut::QuickSearch).then(|| {
            let until = self.explore.deadline.sooner(slice());
            timed(&mut stages, "search over every run", || {
                product::refute_invariants(
                    cfa,
                    self.witness,
                    self.anchors,
                    &self.opts_until(until),
                    obligations.clone(),
                )
            })
        });
        if quick.as_ref().is_some_and(|q| !matches!(q.verdict, Verdict::Unknown { .. })) {
            decider = Some(Shortcut::QuickSearch);
        }
        let undecided = quick.as_ref().is_some_and(|q| matches!(q.verdict, Verdict::Unknown { .. }));
        if undecided && on(Shortcut::BoundedRefutation) && product::may_recurse(cfa) {
            let until = self.explore.deadline.sooner(slice());
            let short = timed(&mut stages, "bounded refutation", || {
                product::refute_short(cfa, self.witness, self.anchors, &self.opts_until(until), obligations.clone())
            });
            if matches!(short.verdict, Verdict::Confirmed { .. }) {
                quick = Some(short);
                decider = Some(Shortcut::BoundedRefutation);
            }
        }
        // Decision 245: a program that reads no input has one run; run natively before the
        // proof, it decides at once (or the program runs long and the proof goes on).
        if !quick.as_ref().is_some_and(|q| !matches!(q.verdict, Verdict::Unknown { .. })) && on(Shortcut::SingleRun) {
            if let Some((outcome, by)) = self.single_run(program, dm, &obligations, &mut stages) {
                quick = Some(outcome);
                decider = Some(by);
            }
        }
        let decided_quickly = quick.as_ref().is_some_and(|q| !matches!(q.verdict, Verdict::Unknown { .. }));
        let proof = if decided_quickly {
            InvariantOutcome::unknown("not tried: a search decided first".into(), None, 0, 0)
        } else if !on(Shortcut::Proof) {
            InvariantOutcome::unknown("not tried: the proof is off".into(), None, 0, 0)
        } else if cfa.threads {
            // Decision 246: the proof's windows check the running thread's invariants only (the
            // soak found a base case over no cut point that confirmed an invariant a parked
            // thread's location breaks); over several threads only the full search decides.
            InvariantOutcome::unknown("not tried: the proof does not cover the parked threads".into(), None, 0, 0)
        } else {
            let half = self.explore.deadline.remaining() / 2;
            timed(&mut stages, "k-induction", || {
                product::prove_invariants(
                    cfa,
                    self.anchors,
                    &self.opts_until(self.explore.deadline.sooner(half)),
                    obligations.clone(),
                )
            })
        };
        let run = if decided_quickly {
            quick
        } else if matches!(proof.verdict, Verdict::Unknown { .. }) {
            Some(self.search(cfa, program, dm, &obligations, &mut decider, &mut stages))
        } else {
            decider = Some(Shortcut::Proof);
            None
        };
        let by_native = decider == Some(Shortcut::NativeRun);
        let states = stages.iter().map(|s| s.product_states).sum();
        let calls = stages.iter().map(|s| s.solver_calls).sum();
        // What decides: the search when it ran, else the proof.
        let outcome = run.as_ref().unwrap_or(&proof);
        // A shortcut's conclusion passes its declared direction (decision 237).
        let refused = decider.and_then(|d| d.admit(Claim::Correctness, outcome.verdict.clone()).1);
        let method = match (&run, &outcome.verdict) {
            _ if by_native => "native run",
            _ if decider == Some(Shortcut::SingleRun) => "the program's one run",
            (None, Verdict::Rejected) => "k-induction",
            (Some(_), Verdict::Rejected) => "exhaustive exploration",
            _ => "run",
        };
        let statuses = statuses(&obligations, cfa, outcome, &proof);
        let (witness_verdict, reason) = match &outcome.verdict {
            _ if refused.is_some() => ("unknown", refused.clone().unwrap_or_default()),
            Verdict::Rejected => match &never_confirm {
                Some(why) => ("unknown", format!("not confirmed: {why} ({})", outcome.reason)),
                None => ("confirmed", format!("witness confirmed: {}", outcome.reason)),
            },
            Verdict::Confirmed { error_function, .. } if outcome.failed.is_some() => {
                ("refuted", format!("witness refuted: the {error_function}"))
            }
            Verdict::Confirmed { error_function, trace, .. } if trace.is_empty() => {
                ("refuted", format!("witness refuted: the program violates the property: {error_function}"))
            }
            Verdict::Confirmed { error_function, trace, .. } => {
                let line = trace.last().map(|s| s.line).unwrap_or(0);
                let call =
                    if error_function.ends_with(')') { error_function.clone() } else { format!("{error_function}()") };
                let what = if self.explore.target.operations() {
                    format!("{error_function} at line {line}")
                } else {
                    format!("{call} is reached at line {line}")
                };
                ("refuted", format!("witness refuted: the program violates the property: {what}"))
            }
            Verdict::Unknown { reason } => {
                let why = if matches!(proof.verdict, Verdict::Unknown { .. }) && proof.reason != *reason {
                    format!("the invariants are not proved ({}); no run falsifies one ({reason})", proof.reason)
                } else {
                    reason.clone()
                };
                ("unknown", why)
            }
        };
        let mut verdict = match &outcome.verdict {
            _ if witness_verdict == "unknown" => Verdict::Unknown { reason: reason.clone() },
            v => v.clone(),
        };
        name_trace_file(self.opts, &mut verdict);
        let harness = match (&verdict, self.opts.harness) {
            // A native run's refutation has no steps to replay (its reason names the values).
            (Verdict::Confirmed { trace, .. }, true) if !trace.is_empty() => {
                Some(crate::harness::harness_for(cfa, &program.source, trace, &[]))
            }
            _ => None,
        };
        Report {
            verdict,
            reason,
            stats: Stats {
                wall_ms: self.started.elapsed().as_millis() as u64,
                product_states: states,
                solver_calls: calls,
            },
            warnings,
            witness_format: self.witness.format.clone(),
            reading: "invariants at their locations".into(),
            data_model: dm.name().into(),
            test_vector: None,
            property: property.into(),
            harness,
            harness_right_to_left: None,
            dot: None,
            error_code: None,
            refined: None,
            explanation: None,
            prefix: Vec::new(),
            correctness: Some(CorrectnessSummary {
                witness_verdict: witness_verdict.into(),
                method: (witness_verdict != "unknown").then(|| method.to_string()),
                k: if method == "k-induction" { outcome.k } else { None },
                invariants: statuses,
                stages,
            }),
            decided_by: decider.filter(|_| witness_verdict != "unknown").map(Shortcut::key),
            shortcuts_used: outcome.used.keys(),
        }
    }
}

impl Stage<'_> {
    /// The options of one engine: the task's, until `deadline`, the invariants as written.
    fn opts_until(&self, deadline: crate::budget::Deadline) -> ExploreOptions {
        ExploreOptions {
            deadline,
            target: self.explore.target.clone(),
            reading: product::SearchReading::AsWritten,
            ..*self.explore
        }
    }

    /// After a proof that did not decide: short refutations (bounded, cheap), a long native run
    /// (decision 222), then the search for a run with the rest of the budget.
    fn search(
        &self,
        cfa: &crate::cfa::Cfa,
        program: &cfront::Program,
        dm: DataModel,
        obligations: &Rc<Vec<Obligation>>,
        decider: &mut Option<Shortcut>,
        stages: &mut Vec<StageTime>,
    ) -> InvariantOutcome {
        if self.opts.shortcuts.allows(Shortcut::BoundedRefutation) {
            let short = timed(stages, "bounded refutation", || {
                product::refute_short(cfa, self.witness, self.anchors, self.explore, obligations.clone())
            });
            if matches!(short.verdict, Verdict::Confirmed { .. }) {
                *decider = Some(Shortcut::BoundedRefutation);
                return short;
            }
        }
        if self.opts.native.is_some() && self.opts.shortcuts.allows(Shortcut::NativeRun) && !self.native_tried.get() {
            let started = Instant::now();
            let (native, detail) = match self.native_refutation(program, dm, obligations) {
                Ok((refuted, _)) => (Some(refuted), None),
                Err(why) => (None, Some(why)),
            };
            stages.push(StageTime {
                stage: "native run".into(),
                ms: started.elapsed().as_millis() as u64,
                product_states: 0,
                solver_calls: 0,
                detail,
            });
            if let Some(native) = native {
                *decider = Some(Shortcut::NativeRun);
                return native;
            }
        }
        // A margin for freeing the search's states before the budget ends.
        let left = self.explore.deadline.remaining();
        let margin = (left / 15).clamp(Duration::from_millis(500), Duration::from_secs(6));
        timed(stages, "search", || {
            product::refute_invariants(
                cfa,
                self.witness,
                self.anchors,
                &self.opts_until(self.explore.deadline.earlier_by(margin)),
                obligations.clone(),
            )
        })
    }

    /// Decision 222: the invariants checked in native runs of the program, every nondet call
    /// returning 0, then 1 (one run when the program calls none), within a third of the time
    /// left (at most 30 s). A refutation when a check finds its invariant false or the program
    /// reaches the property's error function with no sanitizer finding; else why not (the job
    /// left out, and why: issue 51 cause 3; what each run showed).
    fn native_refutation(
        &self,
        program: &cfront::Program,
        dm: DataModel,
        obligations: &[Obligation],
    ) -> Result<(InvariantOutcome, Shortcut), String> {
        let runner = self.opts.native.as_ref().ok_or("native runs are off")?;
        let job = crate::native::job(&program.cfa, &program.source, obligations, dm == DataModel::Ilp32)
            .map_err(|why| format!("not run: {why}"))?;
        let outcome = self.native_runs(runner.as_ref(), &job, obligations);
        runner.finish();
        outcome
    }

    /// Decision 245: when the program has one run and every invariant is checked natively at
    /// every visit of its place, that run, natively, before the proof. A run that ends with
    /// every check true and no error of the property proves the witness; one that breaks a
    /// check or reaches the error refutes it (as decision 222's runs). `None` (and the reason in
    /// the stage's detail) when the program does not qualify or the run concludes nothing.
    fn single_run(
        &self,
        program: &cfront::Program,
        dm: DataModel,
        obligations: &[Obligation],
        stages: &mut Vec<StageTime>,
    ) -> Option<(InvariantOutcome, Shortcut)> {
        let runner = self.opts.native.as_ref()?;
        let job = crate::native::job(&program.cfa, &program.source, obligations, dm == DataModel::Ilp32).ok()?;
        job.single.as_ref().ok()?;
        self.single_property().ok()?;
        self.native_tried.set(true);
        let started = Instant::now();
        // The job built here is the one run (not built again by `native_refutation`).
        let result = self.native_runs(runner.as_ref(), &job, obligations);
        runner.finish();
        let (outcome, detail) = match result {
            // A refutation is the native run's, which may be switched off on its own.
            Ok((_, Shortcut::NativeRun)) if !self.opts.shortcuts.allows(Shortcut::NativeRun) => {
                (None, Some("the run refutes the witness, but native refutations are off".to_string()))
            }
            Ok(decided) => (Some(decided), None),
            Err(why) => (None, Some(why)),
        };
        stages.push(StageTime {
            stage: "the one run".into(),
            ms: started.elapsed().as_millis() as u64,
            product_states: 0,
            solver_calls: 0,
            detail,
        });
        outcome
    }

    /// Decision 245: whether a native run that ends shows the task's property: no-overflow
    /// (every signed overflow is a sanitizer report), or unreach-call whose error functions
    /// are those the harness reports reaching (not the `ERROR:` label, not an error code).
    fn single_property(&self) -> Result<(), String> {
        let target = &self.explore.target;
        match target.name() {
            "no-overflow" => Ok(()),
            "unreach-call"
                if self.opts.error_code.is_none()
                    && !target.error_functions().is_empty()
                    && target
                        .error_functions()
                        .iter()
                        .all(|f| crate::harness::ERROR_FUNCTIONS.contains(&f.as_str())) =>
            {
                Ok(())
            }
            other => Err(format!("a native run does not show the property {other} with these error functions")),
        }
    }

    fn native_runs(
        &self,
        runner: &dyn crate::native::NativeRunner,
        job: &crate::native::NativeJob,
        obligations: &[Obligation],
    ) -> Result<(InvariantOutcome, Shortcut), String> {
        use crate::native::NativeOutcome;
        let until = self.explore.deadline.sooner((self.explore.deadline.remaining() / 3).min(Duration::from_secs(30)));
        let values: &[i64] = if job.nondet { &[0, 1] } else { &[0] };
        let mut shown = Vec::new();
        for (k, &value) in values.iter().enumerate() {
            let limit = until.remaining() / (values.len() - k) as u32;
            if limit < Duration::from_millis(200) {
                shown.push(format!("no time left for a run with every nondet call returning {value}"));
                break;
            }
            let policy = |calls: u64| {
                if job.nondet {
                    format!("every nondet call returns {value}; {calls} calls")
                } else {
                    "the program calls no nondet function".to_string()
                }
            };
            let (what, failed) = match runner.run(job, value, limit) {
                NativeOutcome::Broken { check, values, calls } => {
                    let Some(&i) = job.checks.get(check) else {
                        shown.push(format!("a report of check {check}, which the job does not have"));
                        continue;
                    };
                    let what = format!(
                        "{} is false ({values}) in a native run ({})",
                        obligations[i].describe(),
                        policy(calls)
                    );
                    (what, Some((i, values)))
                }
                // A call of an error function of the property (never a failed assertion).
                NativeOutcome::Reached { what, calls }
                    if self.explore.target.name() == "unreach-call"
                        && self.opts.error_code.is_none()
                        && self.explore.target.error_functions().iter().any(|f| what.split('(').next() == Some(f)) =>
                {
                    (format!("{what} is reached in a native run ({})", policy(calls)), None)
                }
                NativeOutcome::Reached { what, .. } => {
                    shown.push(format!("{}: {what} is reached, not an error of the property", policy_of(job, value)));
                    continue;
                }
                NativeOutcome::Ended { status, .. }
                    if !job.nondet
                        && job.single.is_ok()
                        && self.single_property().is_ok()
                        && self.opts.shortcuts.allows(Shortcut::SingleRun) =>
                {
                    let reason = format!(
                        "the program reads no input: its one run, compiled and run to its end (exit status {status}), \
                         keeps every invariant true at every visit and violates no property, with no sanitizer report \
                         (decision 245)"
                    );
                    let proved = InvariantOutcome {
                        verdict: Verdict::Rejected,
                        reason,
                        failed: None,
                        k: None,
                        states: 0,
                        solver_calls: 0,
                        used: crate::shortcuts::Shortcuts::NONE,
                    };
                    return Ok((proved, Shortcut::SingleRun));
                }
                NativeOutcome::Ended { status, .. } => {
                    let why = match (job.single.clone(), self.single_property()) {
                        (Err(why), _) | (Ok(()), Err(why)) => why,
                        _ if job.nondet => "the program reads input".into(),
                        _ => "the one-run shortcut is off".into(),
                    };
                    shown.push(format!(
                        "{}: the run ended (status {status}) with every checked invariant true, which shows nothing \
                         more: {why}",
                        policy_of(job, value)
                    ));
                    continue;
                }
                NativeOutcome::Nothing(why) => {
                    shown.push(format!("{}: {why}", policy_of(job, value)));
                    continue;
                }
            };
            return Ok((
                InvariantOutcome {
                    verdict: Verdict::Confirmed {
                        trace: Vec::new(),
                        error_function: what.clone(),
                        call: None,
                        lost_blocks: None,
                    },
                    reason: what,
                    failed,
                    k: None,
                    states: 0,
                    solver_calls: 0,
                    used: crate::shortcuts::Shortcuts::NONE,
                },
                Shortcut::NativeRun,
            ));
        }
        Err(shown.join("; "))
    }
}

/// Which run of `job` a message is about.
fn policy_of(job: &crate::native::NativeJob, value: i64) -> String {
    if job.nondet {
        format!("every nondet call returning {value}")
    } else {
        "the run".to_string()
    }
}

/// Runs one engine and records what it spent (decision 225).
fn timed(stages: &mut Vec<StageTime>, stage: &str, engine: impl FnOnce() -> InvariantOutcome) -> InvariantOutcome {
    let started = Instant::now();
    let outcome = engine();
    stages.push(StageTime {
        stage: stage.into(),
        ms: started.elapsed().as_millis() as u64,
        product_states: outcome.states,
        solver_calls: outcome.solver_calls,
        detail: None,
    });
    outcome
}

/// Each invariant's status after the proof and, if it ran, the search.
fn statuses(
    obligations: &[Obligation],
    cfa: &crate::cfa::Cfa,
    outcome: &InvariantOutcome,
    proof: &InvariantOutcome,
) -> Vec<InvariantStatus> {
    obligations
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let (status, detail) = match &outcome.verdict {
                Verdict::Rejected => ("proved", None),
                Verdict::Confirmed { .. } => match &outcome.failed {
                    Some((j, values)) if *j == i => ("refuted", Some(values.clone())),
                    _ => ("unproved", None),
                },
                Verdict::Unknown { .. } => match &proof.failed {
                    Some((j, values)) if *j == i => (
                        "unproved",
                        Some(format!(
                            "not inductive: a state that satisfies the invariants leaves it false ({values})"
                        )),
                    ),
                    _ => ("unproved", None),
                },
            };
            // An unchecked invariant's status does not depend on what the search found.
            let scope = || cfa.function(o.scope).name.clone();
            let (function, status, detail) = match &o.unchecked {
                Some(Unchecked::Vacuous { function, detail }) => {
                    let vacuous = matches!(outcome.verdict, Verdict::Rejected);
                    (function.clone(), if vacuous { "proved" } else { "unproved" }, Some(detail.clone()))
                }
                Some(Unchecked::Unsupported(why)) => (scope(), "unproved", Some(why.clone())),
                None => (scope(), status, detail),
            };
            InvariantStatus {
                kind: o.kind.name().into(),
                invariant: o.text.clone(),
                line: o.line,
                function,
                witness_position: o.origin.clone(),
                status: status.into(),
                detail,
            }
        })
        .collect()
}
