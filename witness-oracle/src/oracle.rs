//! The differential oracle: for each generated program, find a violating native run, record
//! witnesses from it, mutate them, validate each in-process, and check every definite verdict
//! against gcc (see [`Mismatch`] for what counts as one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config as PtConfig, RngAlgorithm, TestRng, TestRunner};
use witness_core::cfa::DataModel;
use witness_core::resources::MemoryLimit;
use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::{Report, Verdict};

use crate::gen::{self, Features, LKind, LLine, Prog, Rendered, Style, Viol};
use crate::native::{self, Binary, Outcome, Run};
use crate::witness::{self, Witness, Wp};

/// What to run.
#[derive(Debug, Clone)]
pub struct Config {
    pub seed: u64,
    pub features: Features,
    /// Scratch space (compiled programs, witnesses).
    pub work_dir: PathBuf,
    /// Where minimised mismatches are written.
    pub findings_dir: PathBuf,
    /// Stop after this long (checked between programs)…
    pub budget: Duration,
    /// …or after this many programs per worker.
    pub max_programs: Option<u64>,
    pub workers: usize,
    /// Random input vectors tried to find a violating run.
    pub search_runs: usize,
    /// Per validation.
    pub timeout: Duration,
    /// Shrink a mismatching program (proptest simplification) before writing it.
    pub shrink: bool,
    /// Print progress lines every this often.
    pub progress: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    GraphMl,
    Yaml,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::GraphMl => "graphml",
            Format::Yaml => "yaml",
        }
    }
    fn file(self) -> &'static str {
        match self {
            Format::GraphMl => "witness.graphml",
            Format::Yaml => "witness.yml",
        }
    }
}

/// A wrong verdict, as the oracle defines it:
/// * **wrong confirmation**: the validator confirmed, and the native run on the nondet values
///   of its trace (`trace[].nondet`, in order) does not violate the property (it returns, or
///   stops on undefined behaviour or a violation of another property);
/// * **wrong rejection**: the validator rejected, and some native run of this program that the
///   witness allows under its strictest reading ([`witness::allows`]: every claim matched at
///   the first visit of its line, the violation on the target line) violates the property;
/// * **metamorphic flip**: the same witness for a program only reformatted (comments, blank
///   lines, renamed locals, other indentation and brace style) got `confirmed` on one text and
///   `rejected` on the other.
///
/// `unknown` and input errors are never mismatches (they are counted). A confirmation whose
/// replay violates another memory-safety subproperty than the one reported is counted apart.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub kind: &'static str,
    pub mutation: String,
    pub format: Format,
    pub detail: String,
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub programs: u64,
    pub compile_failures: u64,
    pub no_violation_found: u64,
    pub native_runs: u64,
    pub cases: u64,
    pub confirmed: u64,
    pub rejected: u64,
    pub unknown: u64,
    pub errors: u64,
    pub subproperty_differs: u64,
    /// Confirmations whose trace leaves some nondet value open (`?`) and whose replay with the
    /// recorded run's values there does not violate: not decidable, counted apart.
    pub unreplayable: u64,
    pub mismatches: Vec<Mismatch>,
    /// Per feature: programs that used it (with a violating run).
    pub features: BTreeMap<String, u64>,
    /// Per property: cases.
    pub properties: BTreeMap<String, u64>,
    /// Per mutation: confirmed, rejected, unknown, error.
    pub mutations: BTreeMap<String, [u64; 4]>,
    /// A few unknown reasons, with counts.
    pub unknown_reasons: BTreeMap<String, u64>,
    pub elapsed: Duration,
    /// Thread time in native runs and in validation.
    pub native_time: Duration,
    pub validate_time: Duration,
    pub compile_time: Duration,
    pub mutation_time: BTreeMap<String, Duration>,
    /// Each shortcut against the full search (issue 51, decision 238).
    pub shortcuts: crate::shortcuts::Tally,
}

impl Stats {
    fn merge(&mut self, o: &Stats) {
        self.programs += o.programs;
        self.compile_failures += o.compile_failures;
        self.no_violation_found += o.no_violation_found;
        self.native_runs += o.native_runs;
        self.cases += o.cases;
        self.confirmed += o.confirmed;
        self.rejected += o.rejected;
        self.unknown += o.unknown;
        self.errors += o.errors;
        self.subproperty_differs += o.subproperty_differs;
        self.unreplayable += o.unreplayable;
        self.native_time += o.native_time;
        self.validate_time += o.validate_time;
        self.compile_time += o.compile_time;
        for (k, v) in &o.mutation_time {
            *self.mutation_time.entry(k.clone()).or_default() += *v;
        }
        self.mismatches.extend(o.mismatches.iter().cloned());
        self.shortcuts.absorb(&o.shortcuts);
        for (k, v) in &o.features {
            *self.features.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.properties {
            *self.properties.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.mutations {
            let e = self.mutations.entry(k.clone()).or_default();
            for i in 0..4 {
                e[i] += v[i];
            }
        }
        for (k, v) in &o.unknown_reasons {
            *self.unknown_reasons.entry(k.clone()).or_default() += v;
        }
    }

    /// The summary `make soak` prints.
    pub fn summary(&self) -> String {
        let secs = self.elapsed.as_secs_f64().max(0.001);
        let mut s = format!(
            "programs: {} ({} without a violating run found, {} failed to compile), native runs: {}\ncases \
             (validations): {} in {:.0} s = {:.1} cases/s\nverdicts: {} confirmed, {} rejected, {} unknown, {} input \
             errors\nmismatches: {}\nconfirmations whose replay violated another memory-safety subproperty: {}\nconfirmations \
             not replayable (a trace value `?`, the recorded run's value did not violate): {}\n",
            self.programs,
            self.no_violation_found,
            self.compile_failures,
            self.native_runs,
            self.cases,
            secs,
            self.cases as f64 / secs,
            self.confirmed,
            self.rejected,
            self.unknown,
            self.errors,
            self.mismatches.len(),
            self.subproperty_differs,
            self.unreplayable,
        );
        // Shrinking often leads several programs to the same minimal case: one line per case.
        let mut seen: Vec<(String, usize)> = Vec::new();
        for m in &self.mismatches {
            let key = format!(
                "{} ({} {}): {}{}",
                m.kind,
                m.mutation,
                m.format.name(),
                m.detail,
                m.dir.as_ref().map(|d| format!("\n    written to {}", d.display())).unwrap_or_default()
            );
            match seen.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => seen.push((key, 1)),
            }
        }
        for (k, n) in seen {
            let times = if n > 1 { format!(" [{n} programs shrank to it]") } else { String::new() };
            s.push_str(&format!("  MISMATCH {k}{times}\n"));
        }
        s.push_str(&self.shortcuts.summary("violation"));
        s.push('\n');
        s.push_str(&format!(
            "worker time: gcc {:.0} s, native runs {:.0} s, validation {:.0} s\n",
            self.compile_time.as_secs_f64(),
            self.native_time.as_secs_f64(),
            self.validate_time.as_secs_f64()
        ));
        if std::env::var_os("SOAK_TIMES").is_some() {
            for (k, v) in &self.mutation_time {
                s.push_str(&format!("  time {k:<28} {:.1} s\n", v.as_secs_f64()));
            }
        }
        s.push_str("per mutation (confirmed/rejected/unknown/error):\n");
        for (k, v) in &self.mutations {
            s.push_str(&format!("  {k:<28} {:>6} {:>6} {:>6} {:>6}\n", v[0], v[1], v[2], v[3]));
        }
        s.push_str("properties (cases):");
        for (k, v) in &self.properties {
            s.push_str(&format!(" {k}={v}"));
        }
        s.push_str("\nfeatures (programs with a violating run):");
        for (k, v) in &self.features {
            s.push_str(&format!(" {k}={v}"));
        }
        s.push('\n');
        if !self.unknown_reasons.is_empty() {
            s.push_str("unknown reasons:\n");
            let mut v: Vec<_> = self.unknown_reasons.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1));
            for (k, n) in v.into_iter().take(8) {
                s.push_str(&format!("  {n:>6} {k}\n"));
            }
        }
        s
    }
}

/// A small deterministic generator for input vectors (seeded per program so that shrinking
/// replays the same search).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn input_value(prog: &Prog, k: usize, rng: &mut SplitMix, consts: &[i128]) -> i128 {
    let t = prog.inputs[k];
    let lp = prog.lp64;
    let v = match rng.below(10) {
        0..=3 => consts[rng.below(consts.len() as u64) as usize] + rng.below(3) as i128 - 1,
        4 => t.min(lp),
        5 => t.max(lp),
        6 => t.max(lp) - rng.below(3) as i128,
        7 => t.min(lp) + rng.below(3) as i128,
        8 => rng.below(41) as i128 - 20,
        _ => rng.next() as i64 as i128,
    };
    t.wrap(v, lp)
}

fn outcome_violates(viol: Viol, o: Outcome) -> bool {
    match viol {
        Viol::Reach => o == Outcome::Reach,
        Viol::Overflow => o == Outcome::Overflow,
        _ => matches!(o, Outcome::Deref | Outcome::Free | Outcome::Leak),
    }
}

fn subproperty(o: Outcome) -> Option<&'static str> {
    match o {
        Outcome::Deref => Some("valid-deref"),
        Outcome::Free => Some("valid-free"),
        Outcome::Leak => Some("valid-memtrack"),
        _ => None,
    }
}

/// One validation to do.
struct Case {
    mutation: String,
    format: Format,
    /// Index into the renderings.
    style: usize,
    witness: Witness,
    /// The witness text was written for this rendering (differs from `style` for stale-lines).
    witness_style: usize,
    /// Whether the rejection check applies (the witness's lines mean what `witness` says).
    check_rejection: bool,
}

struct Outcomes {
    report: Result<Report, Failure>,
    /// The full search answered otherwise (decision 238): the detail.
    shortcut: Option<String>,
}

/// Why a validation gave no report: an input error (counted), or a panic (a mismatch). A value,
/// so that the judgement never reads the message.
#[derive(Debug, Clone)]
enum Failure {
    Error(String),
    Panic(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Error(m) => f.write_str(m),
            Failure::Panic(m) => write!(f, "PANIC: {m}"),
        }
    }
}

/// The result of one program: stats and mismatches (with what is needed to write them).
struct ProgramResult {
    stats: Stats,
    /// (mismatch, files to write: name → content)
    found: Vec<(Mismatch, Vec<(String, String)>)>,
}

fn verdict_index<E>(r: &Result<Report, E>) -> usize {
    match r {
        Ok(rep) => match rep.verdict {
            Verdict::Confirmed { .. } => 0,
            Verdict::Rejected => 1,
            Verdict::Unknown { .. } => 2,
        },
        Err(_) => 3,
    }
}

/// The nondet values of a confirmation's trace, in order; a value the trace leaves open (`?`)
/// is taken from `fill` (the recorded run) and counted in the second result.
fn trace_values(rep: &Report, fill: &[i128]) -> Option<(Vec<i128>, usize)> {
    let Verdict::Confirmed { trace, .. } = &rep.verdict else { return None };
    let mut v = Vec::new();
    let mut open = 0;
    for st in trace {
        if let Some(nd) = &st.nondet {
            let s = nd.value.trim();
            let word = match s {
                "true" => Some(1),
                "false" => Some(0),
                _ => None,
            };
            let parsed = s.parse::<i128>().ok().or(word).or(nd.bits.map(|(b, _)| b as i128));
            match parsed {
                Some(x) => v.push(x),
                None => {
                    open += 1;
                    v.push(fill.get(v.len()).copied().unwrap_or(0));
                }
            }
        }
    }
    Some((v, open))
}

fn report_text(r: &Result<Report, Failure>) -> String {
    match r {
        Ok(rep) => {
            let mut s = format!(
                "verdict: {}\nproperty: {}\nreason: {}\nreading: {}\n",
                rep.verdict.name(),
                rep.property,
                rep.reason,
                rep.reading
            );
            for w in &rep.warnings {
                s.push_str(&format!("warning: {w}\n"));
            }
            if let Verdict::Confirmed { trace, .. } = &rep.verdict {
                s.push_str("trace:\n");
                for st in trace {
                    s.push_str(&format!(
                        "  line {} {} [{}]{}\n",
                        st.line,
                        st.action,
                        st.witness_node,
                        st.nondet.as_ref().map(|n| format!(" nondet {} = {}", n.function, n.value)).unwrap_or_default()
                    ));
                }
            }
            if let Verdict::Unknown { reason } = &rep.verdict {
                s.push_str(&format!("unknown: {reason}\n"));
            }
            s
        }
        Err(e) => format!("input error: {e}\n"),
    }
}

fn mutate_value(prog: &Prog, w: &Witness, rng: &mut SplitMix, consts: &[i128]) -> Option<Witness> {
    let idx: Vec<usize> = (0..w.wps.len()).filter(|&i| matches!(w.wps[i], Wp::Value { .. })).collect();
    if idx.is_empty() {
        return None;
    }
    let i = idx[rng.below(idx.len() as u64) as usize];
    let mut m = w.clone();
    if let Wp::Value { k, value } = &mut m.wps[i] {
        for _ in 0..8 {
            let v = input_value(prog, *k, rng, consts);
            if v != *value {
                *value = v;
                return Some(m);
            }
        }
    }
    None
}

fn branch_indices(w: &Witness) -> Vec<usize> {
    (0..w.wps.len()).filter(|&i| matches!(w.wps[i], Wp::Branch { .. })).collect()
}

fn mutations(prog: &Prog, lines: &[LLine], w0: &Witness, rng: &mut SplitMix) -> Vec<(String, Witness)> {
    let consts = prog.constants();
    let mut out = vec![("exact".to_string(), w0.clone())];
    out.push((
        "values-only".into(),
        Witness { wps: w0.wps.iter().filter(|p| matches!(p, Wp::Value { .. })).cloned().collect(), target: w0.target },
    ));
    out.push((
        "branches-only".into(),
        Witness { wps: w0.wps.iter().filter(|p| matches!(p, Wp::Branch { .. })).cloned().collect(), target: w0.target },
    ));
    out.push(("target-only".into(), Witness { wps: Vec::new(), target: w0.target }));
    for _ in 0..4 {
        if let Some(m) = mutate_value(prog, w0, rng, &consts) {
            out.push(("value-changed".into(), m));
        }
    }
    let br = branch_indices(w0);
    if !br.is_empty() {
        for _ in 0..3 {
            let i = br[rng.below(br.len() as u64) as usize];
            let mut m = w0.clone();
            if let Wp::Branch { taken, .. } = &mut m.wps[i] {
                *taken = !*taken;
            }
            out.push(("branch-flipped".into(), m));
        }
        let i = br[rng.below(br.len() as u64) as usize];
        let mut m = w0.clone();
        m.wps.remove(i);
        out.push(("branch-dropped".into(), m));
        // Moved to another branching line.
        let branch_lines: Vec<usize> =
            (0..lines.len()).filter(|&l| matches!(lines[l].kind, LKind::If(_) | LKind::For { .. })).collect();
        for _ in 0..3 {
            let i = br[rng.below(br.len() as u64) as usize];
            let mut m = w0.clone();
            if let Wp::Branch { line, .. } = &mut m.wps[i] {
                let others: Vec<usize> = branch_lines.iter().copied().filter(|l| l != line).collect();
                if !others.is_empty() {
                    *line = others[rng.below(others.len() as u64) as usize];
                    out.push(("branch-moved".into(), m));
                }
            }
        }
    }
    // Issue 51: the branches no run takes by range (`Item::Range`, whose body is the only
    // `acc = acc + 7;`) claimed taken; the value-range rejection (decision 213) decides these.
    let never = |l: usize| {
        matches!(lines[l].kind, LKind::If(_)) && lines.get(l + 1).is_some_and(|n| n.text == "acc = acc + 7;")
    };
    if w0.wps.iter().any(|p| matches!(p, Wp::Branch { line, .. } if never(*line))) {
        let mut m = w0.clone();
        for p in &mut m.wps {
            if let Wp::Branch { line, taken } = p {
                if never(*line) {
                    *taken = true;
                }
            }
        }
        out.push(("range-claimed".into(), m));
    }
    // The violation claimed inside such a branch: no run reaches the target line, which the
    // value-range rejection shows from the program's branches alone (decision 213).
    let bodies: Vec<usize> = (1..lines.len()).filter(|&l| never(l - 1)).collect();
    if !bodies.is_empty() {
        let mut m = w0.clone();
        m.target = bodies[rng.below(bodies.len() as u64) as usize];
        // And with the target alone (no claim on the way).
        out.push(("range-target-only".into(), Witness { wps: Vec::new(), target: m.target }));
        out.push(("range-target".into(), m));
    }
    // A branch claimed past the program's end: the witness graph alone rejects (decision 38).
    let mut m = w0.clone();
    m.wps.insert(rng.below(w0.wps.len() as u64 + 1) as usize, Wp::PastEnd { taken: rng.below(2) == 0 });
    out.push(("past-end".into(), m));
    let mut m = w0.clone();
    m.wps.insert(rng.below(w0.wps.len() as u64 + 1) as usize, Wp::Cut);
    out.push(("violation-cut".into(), m));
    // A branch the run takes made an avoid waypoint (YAML): rejected when no other run reaches
    // the target, and then the avoid-waypoint blame names it (decision 212).
    if !br.is_empty() {
        let i = br[rng.below(br.len() as u64) as usize];
        let mut m = w0.clone();
        if let Wp::Branch { line, taken } = m.wps[i] {
            m.wps[i] = Wp::Avoid { line, taken };
            out.push(("branch-avoided".into(), m));
        }
    }
    let stmts: Vec<usize> = (0..lines.len())
        .filter(|&l| lines[l].kind == LKind::Stmt && lines[l].func == "main" && l != w0.target)
        .collect();
    if !stmts.is_empty() {
        let mut m = w0.clone();
        m.target = stmts[rng.below(stmts.len() as u64) as usize];
        out.push(("target-moved".into(), m));
    }
    out
}

fn metamorphic_style(lines: &[LLine], rng: &mut SplitMix) -> Style {
    let mut st = Style {
        indent: [2usize, 3, 4, 8][rng.below(4) as usize],
        allman: rng.below(2) == 0,
        rename: rng.below(2) == 0,
        ..Style::default()
    };
    let n = lines.len();
    for _ in 0..1 + rng.below(4) {
        st.inserts.push((rng.below(n as u64) as usize, rng.below(2) == 0));
    }
    if rng.below(3) == 0 {
        let stmts: Vec<usize> = (0..n).filter(|&l| lines[l].kind == LKind::Stmt).collect();
        if !stmts.is_empty() {
            st.inline_comments.push(stmts[rng.below(stmts.len() as u64) as usize]);
        }
    }
    st
}

fn data_model(prog: &Prog) -> DataModel {
    if prog.lp64 {
        DataModel::Lp64
    } else {
        DataModel::Ilp32
    }
}

fn validate_case(
    dir: &Path,
    prog: &Prog,
    program_text: &str,
    witness_text: &str,
    fmt: Format,
    timeout: Duration,
    tally: &mut crate::shortcuts::Tally,
) -> (Result<Report, Failure>, Option<String>) {
    let program = dir.join("program.c");
    let wpath = dir.join(fmt.file());
    let prp = dir.join("property.prp");
    let written = std::fs::write(&program, program_text)
        .and_then(|_| std::fs::write(&wpath, witness_text))
        .and_then(|_| std::fs::write(&prp, prog.viol.property_file()));
    if let Err(e) = written {
        return (Err(Failure::Error(e.to_string())), None);
    }
    let mut opts =
        ValidateOptions::new(program, wpath).with_property(prp).with_data_model(data_model(prog)).with_timeout(timeout);
    opts.memory_limit = MemoryLimit::Off;
    let report = match std::panic::catch_unwind(|| validate(&opts)) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(Failure::Error(e.to_string())),
        Err(p) => Err(Failure::Panic(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        )),
    };
    // Decision 238: a definite answer is checked against the full search's (the finding is
    // written with the case's other files below).
    let shortcut = match &report {
        Ok(r) => match crate::shortcuts::compare(&opts, r, tally, false) {
            crate::shortcuts::Compared::Mismatch(d) => Some(d),
            _ => None,
        },
        Err(_) => None,
    };
    (report, shortcut)
}

fn program_seed(prog: &Prog) -> u64 {
    let t = gen::render(&prog.lines(), &Style::default()).sha256;
    u64::from_str_radix(&t[..16], 16).unwrap_or(0)
}

/// Checks one program. `None` when nothing could be checked (no violating run, compile error).
fn check_program(prog: &Prog, dir: &Path, cfg: &Config) -> ProgramResult {
    let mut stats = Stats { programs: 1, ..Stats::default() };
    let mut found = Vec::new();
    let lines = prog.lines();
    let instr = gen::instrument(&lines);
    let tc = Instant::now();
    let compiled = native::compile(dir, &instr, prog.lp64);
    stats.compile_time += tc.elapsed();
    let mut bin: Binary = match compiled {
        Ok(b) => b,
        Err(e) => {
            stats.compile_failures += 1;
            eprintln!("oracle: generated program does not compile (a generator bug):\n{e}\n{instr}");
            return ProgramResult { stats, found };
        }
    };
    let mut rng = SplitMix(program_seed(prog) ^ cfg.seed);
    let consts = prog.constants();
    let vectors: Vec<Vec<i128>> = (0..cfg.search_runs)
        .map(|_| (0..prog.inputs.len()).map(|k| input_value(prog, k, &mut rng, &consts)).collect())
        .collect();
    let leaks = !matches!(prog.viol, Viol::Reach | Viol::Overflow);
    let t0 = Instant::now();
    // Batches stop at the first run that does not return 0; one that stopped on something
    // other than a violation (undefined behaviour of another kind) goes on after it.
    let mut runs: Vec<Run> = Vec::new();
    while runs.len() < vectors.len() {
        match bin.run(&vectors[runs.len()..], true, leaks) {
            Ok(r) if !r.is_empty() => {
                let done = r.last().is_some_and(|l| outcome_violates(prog.viol, l.outcome));
                runs.extend(r);
                if done {
                    break;
                }
            }
            Ok(_) => break,
            Err(e) => {
                eprintln!("oracle: native run failed: {e}");
                stats.compile_failures += 1;
                return ProgramResult { stats, found };
            }
        }
    }
    stats.native_runs += runs.len() as u64;
    let Some(base) = runs.iter().find(|r| outcome_violates(prog.viol, r.outcome)).cloned() else {
        stats.no_violation_found += 1;
        let last = runs.last().map(|r| r.outcome.name()).unwrap_or("none");
        *stats
            .unknown_reasons
            .entry(format!("(no violating run: {}, last run {last})", prog.viol.name()))
            .or_default() += 1;
        return ProgramResult { stats, found };
    };
    let Some(w0) = witness::record(&base, &lines) else {
        stats.no_violation_found += 1;
        return ProgramResult { stats, found };
    };
    for f in prog.features() {
        *stats.features.entry(f).or_default() += 1;
    }
    let styles = [
        Style::default(),
        metamorphic_style(&lines, &mut rng),
        metamorphic_style(&lines, &mut rng),
        metamorphic_style(&lines, &mut rng),
    ];
    let rendered: Vec<Rendered> = styles.iter().map(|s| gen::render(&lines, s)).collect();
    let mut cases = Vec::new();
    for (name, w) in mutations(prog, &lines, &w0, &mut rng) {
        // The witness-graph mutations are GraphML's (a YAML waypoint past the end is an input
        // error; YAML has no graph to cut).
        let graph_only = w.wps.iter().any(|p| matches!(p, Wp::Cut | Wp::PastEnd { .. }));
        let yaml_only = w.wps.iter().any(|p| matches!(p, Wp::Avoid { .. }));
        for fmt in [Format::GraphMl, Format::Yaml] {
            if (graph_only && fmt == Format::Yaml) || (yaml_only && fmt == Format::GraphMl) {
                continue;
            }
            cases.push(Case {
                mutation: name.clone(),
                format: fmt,
                style: 0,
                witness: w.clone(),
                witness_style: 0,
                check_rejection: true,
            });
        }
    }
    for fmt in [Format::GraphMl, Format::Yaml] {
        for style in [1, 2, 3] {
            cases.push(Case {
                mutation: "metamorphic".into(),
                format: fmt,
                style,
                witness: w0.clone(),
                witness_style: style,
                check_rejection: true,
            });
        }
        // The witness written for the original text, validated against the reformatted one: its
        // lines may now point elsewhere, so only confirmations are checked.
        cases.push(Case {
            mutation: "stale-lines".into(),
            format: fmt,
            style: 1,
            witness: w0.clone(),
            witness_style: 0,
            check_rejection: false,
        });
    }
    // Runs on the values the mutated witnesses pin.
    let extra: Vec<Vec<i128>> = cases
        .iter()
        .filter(|c| c.mutation == "value-changed" && c.format == Format::GraphMl)
        .map(|c| witness::pinned_inputs(&c.witness, &base.inputs))
        .collect();
    if let Ok(r) = bin.run(&extra, false, leaks) {
        stats.native_runs += r.len() as u64;
        runs.extend(r);
    }
    // Validate.
    let t1 = Instant::now();
    stats.native_time += t1 - t0;
    let vdir = dir.join("case");
    let _ = std::fs::create_dir_all(&vdir);
    let mut results: Vec<Outcomes> = Vec::new();
    for c in &cases {
        let r = &rendered[c.witness_style];
        let text = match c.format {
            Format::GraphMl => witness::graphml(prog, &lines, r, &c.witness),
            Format::Yaml => witness::yaml(prog, &lines, r, &c.witness),
        };
        let tv = Instant::now();
        let (report, shortcut) =
            validate_case(&vdir, prog, &rendered[c.style].text, &text, c.format, cfg.timeout, &mut stats.shortcuts);
        *stats.mutation_time.entry(format!("{} {}", c.mutation, c.format.name())).or_default() += tv.elapsed();
        results.push(Outcomes { report, shortcut });
    }
    // Replay confirmations natively.
    let mut replay_vectors = Vec::new();
    let mut replay_of = vec![None; cases.len()];
    let mut open_values = vec![false; cases.len()];
    for (i, o) in results.iter().enumerate() {
        if let Ok(rep) = &o.report {
            if let Some((v, open)) = trace_values(rep, &base.nondets()) {
                open_values[i] = open > 0;
                replay_of[i] = Some(replay_vectors.len());
                replay_vectors.push(v);
            }
        }
    }
    let t2 = Instant::now();
    let replays = match bin.run(&replay_vectors, false, leaks) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("oracle: replay failed: {e}");
            Vec::new()
        }
    };
    stats.native_runs += replays.len() as u64;
    stats.native_time += t2.elapsed();
    stats.validate_time += t2 - t1;
    runs.extend(replays.iter().cloned());
    let violating: Vec<&Run> = runs.iter().filter(|r| outcome_violates(prog.viol, r.outcome)).collect();

    for (i, (c, o)) in cases.iter().zip(&results).enumerate() {
        stats.cases += 1;
        *stats.properties.entry(prog.viol.property_name().to_string()).or_default() += 1;
        let vi = verdict_index(&o.report);
        stats.mutations.entry(c.mutation.clone()).or_default()[vi] += 1;
        match vi {
            0 => stats.confirmed += 1,
            1 => stats.rejected += 1,
            2 => {
                stats.unknown += 1;
                if let Ok(Report { verdict: Verdict::Unknown { reason }, .. }) = &o.report {
                    let short: String = reason.chars().take(90).collect();
                    *stats.unknown_reasons.entry(short).or_default() += 1;
                }
            }
            _ => {
                stats.errors += 1;
                let e = o.report.as_ref().err().map(|e| e.to_string()).unwrap_or_default();
                // Without the scratch path, so that the same error groups across workers.
                let e = e.rsplit_once("/case/").map(|(_, tail)| tail.to_string()).unwrap_or(e);
                let short: String = format!("error: {e}").chars().take(90).collect();
                *stats.unknown_reasons.entry(short).or_default() += 1;
            }
        }
        let mut mismatch: Option<(&'static str, String, Option<&Run>)> = None;
        if let Err(e @ Failure::Panic(_)) = &o.report {
            mismatch = Some(("panic", e.to_string(), None));
        }
        if let Some(d) = &o.shortcut {
            mismatch = Some(("shortcut-mismatch", d.clone(), None));
        }
        if vi == 0 {
            let rep = o.report.as_ref().unwrap();
            match replay_of[i].and_then(|k| replays.get(k)) {
                Some(run) if outcome_violates(prog.viol, run.outcome) => {
                    if let Some(sp) = subproperty(run.outcome) {
                        if rep.property != sp {
                            stats.subproperty_differs += 1;
                        }
                    }
                }
                Some(_) if open_values[i] => stats.unreplayable += 1,
                Some(run) => {
                    mismatch = Some((
                        "wrong-confirmation",
                        format!(
                            "confirmed {}, but the native run on the trace's values {:?} ended {}",
                            rep.property,
                            run.inputs,
                            run.outcome.name()
                        ),
                        Some(run),
                    ))
                }
                None => {
                    mismatch = Some((
                        "wrong-confirmation",
                        "confirmed, but the trace has no usable nondet values".into(),
                        None,
                    ))
                }
            }
        }
        if vi == 1 && c.check_rejection {
            if let Some(run) = violating.iter().find(|r| witness::allows(&c.witness, r)) {
                mismatch = Some((
                    "wrong-rejection",
                    format!(
                        "rejected, but the native run on {:?} follows the witness and ends {} at logical line {:?}",
                        run.inputs,
                        run.outcome.name(),
                        run.last_line
                    ),
                    Some(run),
                ));
            }
        }
        if c.mutation == "metamorphic" {
            // The same witness on the original text.
            let orig = cases.iter().position(|o| o.mutation == "exact" && o.format == c.format);
            if let Some(j) = orig {
                let vj = verdict_index(&results[j].report);
                if (vi == 0 && vj == 1) || (vi == 1 && vj == 0) {
                    mismatch = Some((
                        "metamorphic-flip",
                        format!(
                            "the exact witness was {} on the original text and {} on the reformatted one",
                            ["confirmed", "rejected"][vj],
                            ["confirmed", "rejected"][vi]
                        ),
                        Some(&base),
                    ));
                }
            }
        }
        if let Some((kind, detail, run)) = mismatch {
            let r = &rendered[c.witness_style];
            let wtext = match c.format {
                Format::GraphMl => witness::graphml(prog, &lines, r, &c.witness),
                Format::Yaml => witness::yaml(prog, &lines, r, &c.witness),
            };
            let mut files = vec![
                ("program.c".to_string(), rendered[c.style].text.clone()),
                (c.format.file().to_string(), wtext),
                ("property.prp".to_string(), prog.viol.property_file().to_string()),
                ("validator.txt".to_string(), report_text(&o.report)),
                (
                    "native.log".to_string(),
                    run.map(|r| {
                        format!(
                            "$ gcc {} -O0 -fsanitize=address,undefined -fno-sanitize-recover=all instrumented.c harness.c\n\
                             inputs (in call order): {:?}\noutcome: {}\n--- log (A line-id, B line-id taken, N value) ---\n{}",
                            if prog.lp64 { "-m64" } else { "-m32" },
                            r.inputs,
                            r.outcome.name(),
                            r.log
                        )
                    })
                    .unwrap_or_default(),
                ),
                ("instrumented.c".to_string(), instr.clone()),
                ("harness.c".to_string(), native::HARNESS.to_string()),
            ];
            if c.mutation == "metamorphic" {
                files.push(("original-program.c".into(), rendered[0].text.clone()));
            }
            files.push((
                "README.md".into(),
                format!(
                    "# {kind}: {} {} ({})\n\n{detail}\n\nGenerated by witness-oracle (seed {}). Validate with\n`witness-check \
                     validate --witness {} --property property.prp --data-model {} program.c`.\n\nLogical line ids \
                     in native.log map to program.c lines: {:?}\n",
                    c.mutation,
                    c.format.name(),
                    prog.viol.name(),
                    cfg.seed,
                    c.format.file(),
                    if prog.lp64 { "LP64" } else { "ILP32" },
                    rendered[c.style].pos.iter().enumerate().map(|(i, p)| (i, p.0)).collect::<Vec<_>>()
                ),
            ));
            found.push((Mismatch { kind, mutation: c.mutation.clone(), format: c.format, detail, dir: None }, files));
        }
    }
    ProgramResult { stats, found }
}

fn same_mismatch(a: &Mismatch, b: &Mismatch) -> bool {
    a.kind == b.kind && a.mutation == b.mutation && a.format == b.format
}

/// Shrinks a failing program with proptest's simplification, keeping the first mismatch.
fn shrink(
    tree: &mut dyn ValueTree<Value = Prog>,
    target: &Mismatch,
    dir: &Path,
    cfg: &Config,
    deadline: Instant,
) -> Option<ProgramResult> {
    let mut best: Option<ProgramResult> = None;
    let mut steps = 0;
    if !tree.simplify() {
        return None;
    }
    loop {
        steps += 1;
        if steps > 64 || Instant::now() > deadline {
            break;
        }
        let r = check_program(&tree.current(), dir, cfg);
        let still = r.found.iter().any(|(m, _)| same_mismatch(m, target));
        if still {
            best = Some(r);
            if !tree.simplify() {
                break;
            }
        } else if !tree.complicate() {
            break;
        }
    }
    best
}

fn write_finding(cfg: &Config, m: &mut Mismatch, files: &[(String, String)]) {
    let prog = files.iter().find(|f| f.0 == "program.c").map(|f| f.1.as_str()).unwrap_or("");
    let h: String = {
        use sha2::{Digest, Sha256};
        Sha256::digest(format!("{prog}{}", m.detail).as_bytes()).iter().take(4).map(|b| format!("{b:02x}")).collect()
    };
    let dir = cfg.findings_dir.join(format!("{}-{}-{}-{h}", m.kind, m.mutation, m.format.name()));
    if std::fs::create_dir_all(&dir).is_ok() {
        for (name, content) in files {
            let _ = std::fs::write(dir.join(name), content);
        }
        m.dir = Some(dir);
    }
}

/// Runs the oracle with `cfg.workers` threads until the budget or program count is spent.
pub fn run(cfg: &Config) -> Stats {
    let started = Instant::now();
    let deadline = started + cfg.budget;
    let total = Arc::new(Mutex::new(Stats::default()));
    let cases_done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let shrunk: Arc<Mutex<BTreeMap<String, u32>>> = Arc::new(Mutex::new(BTreeMap::new()));
    let mut handles = Vec::new();
    for wi in 0..cfg.workers.max(1) {
        let cfg = cfg.clone();
        let total = Arc::clone(&total);
        let cases_done = Arc::clone(&cases_done);
        let stop = Arc::clone(&stop);
        let shrunk = Arc::clone(&shrunk);
        let h = std::thread::Builder::new()
            .name(format!("oracle-{wi}"))
            .stack_size(256 << 20)
            .spawn(move || {
                let dir = cfg.work_dir.join(format!("worker{wi}"));
                let mut seed = [0u8; 32];
                seed[..8].copy_from_slice(&cfg.seed.to_le_bytes());
                seed[8..16].copy_from_slice(&(wi as u64).to_le_bytes());
                let mut runner =
                    TestRunner::new_with_rng(PtConfig::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
                let strategy = gen::prog_strategy(&cfg.features);
                let mut n = 0u64;
                let mut local = Stats::default();
                while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
                    if cfg.max_programs.is_some_and(|m| n >= m) {
                        break;
                    }
                    n += 1;
                    let mut tree = match strategy.new_tree(&mut runner) {
                        Ok(t) => t,
                        Err(_) => continue,
                    };
                    let prog = tree.current();
                    let mut r = check_program(&prog, &dir, &cfg);
                    cases_done.fetch_add(r.stats.cases, Ordering::Relaxed);
                    let class = r.found.first().map(|(m, _)| format!("{} {} {}", m.kind, m.mutation, m.format.name()));
                    // Shrink the first two programs of each kind of mismatch only (shrinking costs
                    // up to 90 s; later ones are written as found).
                    let shrink_this = class.as_ref().is_some_and(|c| {
                        let mut done = shrunk.lock().unwrap();
                        let n = done.entry(c.clone()).or_insert(0u32);
                        *n += 1;
                        *n <= 2
                    });
                    if !r.found.is_empty() && cfg.shrink && shrink_this {
                        let target = r.found[0].0.clone();
                        let shrink_deadline = Instant::now() + Duration::from_secs(90);
                        if let Some(mut small) = shrink(&mut *tree, &target, &dir, &cfg, shrink_deadline) {
                            // Keep the original's figures, report the minimised mismatches.
                            r.found = std::mem::take(&mut small.found)
                                .into_iter()
                                .filter(|(m, _)| same_mismatch(m, &target))
                                .collect();
                        }
                    }
                    for (m, files) in &mut r.found {
                        write_finding(&cfg, m, files);
                        eprintln!(
                            "oracle: MISMATCH {} ({} {}): {}{}",
                            m.kind,
                            m.mutation,
                            m.format.name(),
                            m.detail,
                            m.dir.as_ref().map(|d| format!(" -> {}", d.display())).unwrap_or_default()
                        );
                        r.stats.mismatches.push(m.clone());
                    }
                    local.merge(&r.stats);
                    if n.is_multiple_of(8) {
                        total.lock().unwrap().merge(&local);
                        local = Stats::default();
                    }
                }
                total.lock().unwrap().merge(&local);
            })
            .expect("cannot start an oracle worker thread");
        handles.push(h);
    }
    if let Some(every) = cfg.progress {
        let mut next = Instant::now() + every;
        while handles.iter().any(|h| !h.is_finished()) {
            std::thread::sleep(Duration::from_millis(200));
            if Instant::now() >= next {
                next += every;
                let t = total.lock().unwrap();
                eprintln!(
                    "oracle: {:.0} s, {} cases, {} mismatches",
                    started.elapsed().as_secs_f64(),
                    cases_done.load(Ordering::Relaxed),
                    t.mismatches.len()
                );
            }
        }
    }
    for h in handles {
        let _ = h.join();
    }
    let mut s = total.lock().unwrap().clone();
    s.elapsed = started.elapsed();
    s
}
