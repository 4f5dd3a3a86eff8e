//! `witness-check batch`: many validations on all cores (decisions 87–90).
//!
//! Every task runs as a child process of this binary (`validate --json …`), so a crash, a
//! memory blow-up or a hang of one task never touches the others; the parent reads the child's
//! JSON answer, its exit status and its resource usage (`wait4`), prints progress, streams one
//! JSON line per task, and ends with a summary (and, with `--plot`, a quantile plot).

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};

use crate::task;

/// Seconds after its budget at which a child that has not answered is killed (as corpus-score).
const KILL_GRACE_S: u64 = 15;

/// The arguments of `batch`.
#[derive(Args)]
pub struct BatchArgs {
    /// Task lists: corpus manifests (TSV with a header naming `id`, `program`, `witness`,
    /// `property`, optionally `data_model`, `expected`, `expected_result`, `witness_format`;
    /// the files of a row in the folder `<id>` beside the manifest) or pair lists (one task per line: `TASK.yml WITNESS [confirm|reject]`,
    /// paths relative to the list; `#` starts a comment).
    #[arg(required = true, value_name = "LIST")]
    inputs: Vec<PathBuf>,
    /// Validations run at the same time; default: the number of cores.
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Wall-clock budget of each validation in seconds (as `validate --timeout`). A child that
    /// has not answered 15 s after its budget is killed and counted as a timeout (unknown).
    #[arg(long, value_name = "SECS", default_value_t = 90)]
    timeout: u64,
    /// Memory limit of each validation in MiB (as `validate --memory-limit`). Default: the
    /// default limit of `validate` divided by the number of jobs; 0: no limit.
    #[arg(long = "memory-limit", value_name = "MIB")]
    memory_limit: Option<u64>,
    /// Write one JSON object per task (one line each, in completion order) to FILE; `-`:
    /// standard output (the summary then goes to standard error).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Draw the quantile plot (CPU time of each result against the number of results, as in
    /// SV-COMP reports) into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Write the results as a BenchExec result file (XML, as `benchexec` writes it), which
    /// BenchExec's `table-generator` renders beside other tools' runs.
    #[arg(long = "benchexec-xml", value_name = "FILE.xml")]
    benchexec_xml: Option<PathBuf>,
    /// Only manifest rows whose `witness_format` starts with this (e.g. `graphml`, `yaml`).
    #[arg(long, value_name = "PREFIX")]
    format: Option<String>,
    /// Run only shard K of N (1 ≤ K ≤ N): the tasks at positions K, K+N, K+2N, … of the whole
    /// task list, so that N jobs of a cluster scheduler (a Slurm job array) split a batch
    /// deterministically; `--merge` joins their `--results` files.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// The inputs are `--results` files of earlier batches (the shards of one batch): print
    /// their joint summary and write the plot and BenchExec file of all of them; nothing runs.
    #[arg(long, conflicts_with_all = ["shard", "results", "format", "jobs", "memory_limit"])]
    merge: bool,
    /// Exit with status 1 when a labelled task got a wrong verdict (a confirmation of a witness
    /// expected to be rejected, or of another violation, or a rejection of one expected to be
    /// confirmed), for CI pipelines; without it a finished batch exits 0.
    #[arg(long = "fail-on-wrong")]
    fail_on_wrong: bool,
    /// Further options for every validation, after `--` (e.g. `-- --stutter lenient`).
    #[arg(last = true, value_name = "VALIDATE-OPTIONS")]
    validate_options: Vec<String>,
}

/// `K/N` of `--shard`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 3/16")?;
    let (k, n): (usize, usize) =
        (k.trim().parse().map_err(|_| "K is not a number")?, n.trim().parse().map_err(|_| "N is not a number")?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k} of {n}: expected 1 ≤ K ≤ N"));
    }
    Ok((k, n))
}

/// What the task's witness is expected to get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expected {
    Confirm,
    Reject,
}

/// One validation to run.
#[derive(Clone, Debug)]
struct Task {
    id: String,
    /// C program or task definition.
    program: PathBuf,
    witness: Option<PathBuf>,
    property: Option<PathBuf>,
    data_model: Option<String>,
    expected: Option<Expected>,
    /// The label as written (`confirm`, `reject`, `disputed`, …), if any.
    label: Option<String>,
    /// For a confirmation: the result string it must have (`false(valid-deref)`).
    expected_result: Option<String>,
    /// A correctness witness (issue 23): `true` confirms it, `false(...)` rejects it.
    correctness: bool,
    /// The property file a task definition names for this task, and its expected verdict as
    /// BenchExec writes it (`true`, `false`, `false(valid-deref)`): the run's `properties`,
    /// `propertyFile` and `expectedVerdict` in a BenchExec result file, by which
    /// `table-generator` joins runs of the same task (issue 35 item 6).
    property_file: Option<PathBuf>,
    expected_verdict: Option<String>,
}

/// How a validation ended, in corpus-score's classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Confirmed,
    Rejected,
    Unknown,
    Error,
}

impl Class {
    /// The class of a result for a violation witness, or (`correctness`) for a correctness
    /// witness, where `true` confirms (decision 165).
    fn of(result: &str, correctness: bool) -> Class {
        let r = result.trim().to_ascii_lowercase();
        if r.starts_with("false") {
            if correctness {
                Class::Rejected
            } else {
                Class::Confirmed
            }
        } else if r.starts_with("true") {
            if correctness {
                Class::Confirmed
            } else {
                Class::Rejected
            }
        } else if r.starts_with("unknown") {
            Class::Unknown
        } else {
            Class::Error
        }
    }

    /// The class of its name (`name`'s inverse; anything else is an error).
    fn named(name: &str) -> Class {
        [Class::Confirmed, Class::Rejected, Class::Unknown]
            .into_iter()
            .find(|c| c.name() == name)
            .unwrap_or(Class::Error)
    }

    fn name(self) -> &'static str {
        match self {
            Class::Confirmed => "confirmed",
            Class::Rejected => "rejected",
            Class::Unknown => "unknown",
            Class::Error => "error",
        }
    }
}

/// The outcome of one task.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub class: Class,
    pub cpu_s: f64,
    /// Agreement with the expected answer: `Some(true)` correct, `Some(false)` wrong,
    /// `None` no verdict or no label.
    pub correct: Option<bool>,
}

pub fn run(args: BatchArgs) -> ! {
    let code = match run_batch(&args) {
        Ok(wrong) if wrong > 0 && args.fail_on_wrong => {
            eprintln!("witness-check batch: {wrong} wrong verdict(s) (named in the summary)");
            1
        }
        Ok(_) => 0,
        Err(BatchError::Usage(m)) => {
            eprintln!("witness-check batch: {m}");
            2
        }
        Err(BatchError::Input(m)) => {
            eprintln!("witness-check batch: {m}");
            3
        }
        Err(BatchError::Internal(m)) => {
            eprintln!("witness-check batch: {m}");
            4
        }
    };
    let _ = std::io::stdout().flush();
    std::process::exit(code)
}

enum BatchError {
    Usage(String),
    Input(String),
    Internal(String),
}

/// Runs the batch; returns the number of wrong verdicts among the labelled tasks.
fn run_batch(args: &BatchArgs) -> Result<usize, BatchError> {
    if args.merge {
        return merge(args);
    }
    // A mistyped forwarded option would make every task an error: refused before any runs.
    crate::check_forwarded_options(&args.validate_options).map_err(|e| {
        BatchError::Usage(format!(
            "the options after `--` ({}) are not what `validate` takes in a batch: {e}",
            args.validate_options.join(" ")
        ))
    })?;
    let mut tasks = Vec::new();
    for input in &args.inputs {
        tasks.extend(load_list(input, args.format.as_deref())?);
    }
    if tasks.is_empty() {
        return Err(BatchError::Usage("the task lists name no task".into()));
    }
    unique_ids(&mut tasks);
    // Positions in the whole list (results keep them, so shards merge in list order).
    let total = tasks.len();
    let mut tasks: Vec<(usize, Task)> = tasks.into_iter().enumerate().collect();
    if let Some((k, n)) = args.shard {
        tasks.retain(|(i, _)| i % n == k - 1);
        if tasks.is_empty() {
            return Err(BatchError::Usage(format!("shard {k}/{n} holds no task (the lists name fewer than {k})")));
        }
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    // Workers actually started (the memory limit is shared among them).
    let jobs = jobs.min(tasks.len());
    let memory_limit = args
        .memory_limit
        .or_else(|| witness_core::resources::default_memory_limit().map(|b| ((b / jobs as u64) >> 20).max(64)));
    let exe = std::env::current_exe().map_err(|e| BatchError::Internal(format!("cannot find own executable: {e}")))?;
    let to_stdout = args.results.as_deref() == Some(Path::new("-"));
    let sink: Option<Mutex<Box<dyn Write + Send>>> = match &args.results {
        None => None,
        Some(_) if to_stdout => Some(Mutex::new(Box::new(std::io::stdout()))),
        Some(p) => Some(Mutex::new(Box::new(std::io::LineWriter::new(
            std::fs::File::create(p).map_err(|e| BatchError::Input(format!("{}: cannot create: {e}", p.display())))?,
        )))),
    };
    // A plot or result file that cannot be written is reported before the tasks run, not after.
    for path in args.plot.iter().chain(&args.benchexec_xml) {
        std::fs::File::create(path)
            .map_err(|e| BatchError::Input(format!("{}: cannot create: {e}", path.display())))?;
    }
    let runner = Runner { total, exe, timeout: args.timeout, memory_limit, extra: args.validate_options.clone() };

    let started = Instant::now();
    let progress = Progress::new(tasks.len());
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<(Outcome, Value)>>> = Mutex::new(vec![None; tasks.len()]);
    let write_failed = Mutex::new(None::<String>);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((position, t)) = tasks.get(i) else { break };
                let (outcome, record) = runner.run(*position, t);
                progress.done(t, &outcome);
                if let Some(sink) = &sink {
                    let mut w = sink.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(e) = writeln!(w, "{record}") {
                        *write_failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                    }
                }
                outcomes.lock().unwrap_or_else(|e| e.into_inner())[i] = Some((outcome, record));
            });
        }
    });
    progress.finish();
    if let Some(sink) = &sink {
        let _ = sink.lock().unwrap_or_else(|e| e.into_inner()).flush();
    }
    let wall = started.elapsed();
    let done: Vec<(Outcome, Value)> =
        outcomes.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect();
    let summary = summary_text(&done, &format!("{jobs} jobs, {:.1} s wall", wall.as_secs_f64()));
    if to_stdout {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    let wrong = finish(args, &done, jobs, memory_limit)?;
    if let Some(e) = write_failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(BatchError::Input(format!("cannot write the results: {e}")));
    }
    Ok(wrong)
}

/// The plot and the BenchExec file of finished tasks; the number of wrong verdicts.
fn finish(
    args: &BatchArgs,
    done: &[(Outcome, Value)],
    jobs: usize,
    memory_limit: Option<u64>,
) -> Result<usize, BatchError> {
    if let Some(path) = &args.plot {
        let points: Vec<crate::plot::Point> = done
            .iter()
            .map(|(o, _)| crate::plot::Point {
                cpu_s: o.cpu_s,
                verdict: matches!(o.class, Class::Confirmed | Class::Rejected),
                correct: o.correct == Some(true),
            })
            .collect();
        crate::plot::quantile_plot(path, &points)
            .map_err(|e| BatchError::Input(format!("{}: cannot write the plot: {e}", path.display())))?;
    }
    if let Some(path) = &args.benchexec_xml {
        let mut records: Vec<&Value> = done.iter().map(|(_, r)| r).collect();
        records.sort_by_key(|r| r["index"].as_u64());
        let version = crate::version();
        let set = crate::benchexec_xml::RunSet {
            version: &version,
            // A merge does not know the shards' limits.
            timelimit_s: (!args.merge).then_some(args.timeout),
            memlimit_mib: memory_limit,
            jobs: (!args.merge).then_some(jobs),
            options: &args.validate_options,
        };
        crate::benchexec_xml::write(path, &set, &records)
            .map_err(|e| BatchError::Input(format!("{}: cannot write the results: {e}", path.display())))?;
    }
    Ok(done.iter().filter(|(o, _)| o.correct == Some(false)).count())
}

/// `--merge`: the joint summary, plot and BenchExec file of `--results` files.
fn merge(args: &BatchArgs) -> Result<usize, BatchError> {
    let mut done: Vec<(Outcome, Value)> = Vec::new();
    let mut seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for path in &args.inputs {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BatchError::Input(format!("{}: cannot read: {e}", path.display())))?;
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let at = format!("{}:{}", path.display(), n + 1);
            let record: Value = serde_json::from_str(line)
                .map_err(|e| BatchError::Input(format!("{at}: not a JSON line of `batch --results`: {e}")))?;
            let (Some(id), Some(class)) = (record["id"].as_str(), record["class"].as_str()) else {
                return Err(BatchError::Input(format!("{at}: a record without `id` or `class`")));
            };
            if let Some(first) = seen.insert(id.to_string(), at.clone()) {
                return Err(BatchError::Input(format!("{at}: task `{id}` was already in {first}")));
            }
            let outcome = Outcome {
                class: Class::named(class),
                cpu_s: record["cpu_s"].as_f64().unwrap_or(0.0),
                correct: record["correct"].as_bool(),
            };
            done.push((outcome, record));
        }
    }
    if done.is_empty() {
        return Err(BatchError::Usage("the results files hold no task".into()));
    }
    done.sort_by_key(|(_, r)| r["index"].as_u64());
    // Issue 35 item 6: the shards' records say how many tasks the whole list had; a merge that
    // lacks some says so (a summary of part of a batch is not the batch's).
    let total = done.iter().filter_map(|(_, r)| r["tasks_total"].as_u64()).max();
    if let Some(total) = total.filter(|t| *t > done.len() as u64) {
        let have: std::collections::HashSet<u64> = done.iter().filter_map(|(_, r)| r["index"].as_u64()).collect();
        let missing: Vec<String> =
            (0..total).filter(|i| !have.contains(i)).take(5).map(|i| (i + 1).to_string()).collect();
        eprintln!(
            "witness-check: warning: the results files hold {} of the batch's {total} tasks (a shard is missing?); \
             missing tasks at positions {}{}",
            done.len(),
            missing.join(", "),
            if total - (done.len() as u64) > 5 { ", …" } else { "" }
        );
    }
    print!("{}", summary_text(&done, &format!("merged from {} results files", args.inputs.len())));
    finish(args, &done, 0, None)
}

// ---------------------------------------------------------------------------------------------
// Task lists
// ---------------------------------------------------------------------------------------------

fn load_list(path: &Path, format: Option<&str>) -> Result<Vec<Task>, BatchError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BatchError::Input(format!("{}: cannot read: {e}", path.display())))?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let first = text.lines().next().unwrap_or("");
    let header: Vec<&str> = first.split('\t').collect();
    if header.contains(&"id") && header.contains(&"program") && header.contains(&"witness") {
        load_manifest(path, dir, &text, format)
    } else {
        load_pairs(path, dir, &text)
    }
}

/// Makes every task's id unique (results and summaries name tasks by it): an id that several
/// tasks share gets its witness's file name (`task.yml@witness.graphml`), and one still shared
/// a counter (`#2`, `#3`, in list order).
fn unique_ids(tasks: &mut [Task]) {
    let count = |tasks: &[Task]| {
        let mut n: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for t in tasks {
            *n.entry(t.id.clone()).or_default() += 1;
        }
        n
    };
    let n = count(tasks);
    for t in tasks.iter_mut() {
        if n[&t.id] > 1 {
            if let Some(w) = t.witness.as_ref().and_then(|w| w.file_name()) {
                t.id = format!("{}@{}", t.id, w.to_string_lossy());
            }
        }
    }
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for t in tasks.iter_mut() {
        let k = seen.entry(t.id.clone()).or_default();
        *k += 1;
        if *k > 1 {
            t.id = format!("{}#{k}", t.id);
        }
    }
}

/// A corpus manifest (the format `../shared/tools/corpus-score` reads: TSV with double-quoted
/// fields, `""` inside quotes).
fn load_manifest(path: &Path, dir: &Path, text: &str, format: Option<&str>) -> Result<Vec<Task>, BatchError> {
    let mut reader = csv::ReaderBuilder::new().delimiter(b'\t').flexible(true).from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| BatchError::Input(format!("{}: {e}", path.display())))?.clone();
    let col = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| BatchError::Input(format!("{}:1: the manifest has no column `{name}`", path.display())))
    };
    let (id, program, witness, property) = (need("id")?, need("program")?, need("witness")?, need("property")?);
    let (dm, expected, expected_result, wformat) =
        (col("data_model"), col("expected"), col("expected_result"), col("witness_format"));
    let wtype = col("witness_type");
    let mut tasks = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let line = record.as_ref().ok().and_then(|r| r.position()).map_or(n + 2, |p| p.line() as usize);
        let record = record.map_err(|e| BatchError::Input(format!("{}:{line}: {e}", path.display())))?;
        let field = |c: Option<usize>| c.and_then(|c| record.get(c)).map(str::trim).filter(|s| !s.is_empty());
        let Some(case) = field(Some(id)) else {
            return Err(BatchError::Input(format!("{}:{line}: a row without `id`", path.display())));
        };
        if let (Some(want), Some(have)) = (format, field(wformat)) {
            if !have.starts_with(want) {
                continue;
            }
        }
        let file = |c: usize, what: &str| {
            field(Some(c))
                .map(|f| dir.join(case).join(f))
                .ok_or_else(|| BatchError::Input(format!("{}:{line}: row `{case}` has no `{what}`", path.display())))
        };
        let label = field(expected).map(str::to_string);
        tasks.push(Task {
            id: case.to_string(),
            program: file(program, "program")?,
            witness: Some(file(witness, "witness")?),
            property: Some(file(property, "property")?),
            data_model: Some(field(dm).unwrap_or("LP64").to_string()),
            expected: match label.as_deref() {
                Some("confirm") => Some(Expected::Confirm),
                Some("reject") => Some(Expected::Reject),
                _ => None,
            },
            label,
            expected_result: field(expected_result).map(str::to_ascii_lowercase),
            correctness: field(wtype) == Some("correctness"),
            property_file: None,
            expected_verdict: None,
        });
    }
    Ok(tasks)
}

/// Is the witness a correctness witness (a YAML `invariant_set` or a GraphML
/// `correctness_witness`)? Read from its first 64 KiB; an unreadable file is not.
fn is_correctness_witness(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(64 << 10).read_to_end(&mut head));
    let text = String::from_utf8_lossy(&head);
    read.is_ok() && (text.contains("invariant_set") || text.contains("correctness_witness"))
}

/// A list of task-definition/witness pairs (decision 88).
fn load_pairs(path: &Path, dir: &Path, text: &str) -> Result<Vec<Task>, BatchError> {
    let mut tasks = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = format!("{}:{}", path.display(), n + 1);
        let (task_file, witness, label) = match words.as_slice() {
            [t] => (*t, None, None),
            [t, w] => (*t, Some(*w), None),
            [t, w, l] => (*t, Some(*w), Some(*l)),
            _ => return Err(BatchError::Input(format!("{at}: expected `TASK.yml WITNESS [confirm|reject]`"))),
        };
        let explicit = match label {
            None => None,
            Some("confirm") => Some(Expected::Confirm),
            Some("reject") => Some(Expected::Reject),
            Some(other) => return Err(BatchError::Input(format!("{at}: `{other}`: expected confirm or reject"))),
        };
        let program = dir.join(task_file);
        let witness = witness.map(|w| dir.join(w));
        // The task's expected verdict, when it can be read now (otherwise the child reports
        // the problem as this task's error).
        let resolved = task::resolve(&program, witness.as_deref(), None, None).ok();
        let task_property = resolved.as_ref().and_then(|r| r.task_property.clone());
        let verdict = task_property.as_ref().and_then(|p| p.expected_verdict);
        // A correctness witness (issue 23), the one the line names or the task's own.
        let correctness = resolved.as_ref().map(|r| r.witness.as_path()).is_some_and(is_correctness_witness);
        // Issue 35 item 6: a validation task (its witness is one of its input files, named by
        // `witness_input_file`) is labelled as BenchExec scores it: the expected verdict is the
        // answer, so `false` confirms a violation witness and `true` a correctness witness.
        // Decision 88 for a witness given beside a task: a violation witness for a correct
        // program is wrong (expected: reject); for an incorrect program the witness may or may
        // not be valid (no label); a correctness witness has no such default.
        let validation = witness.is_none();
        let derived = match verdict {
            Some(v) if validation => Some(if v == correctness { Expected::Confirm } else { Expected::Reject }),
            Some(true) if !correctness => Some(Expected::Reject),
            _ => None,
        };
        let expected = explicit.or(derived);
        let expected_verdict = task_property.as_ref().and_then(|p| p.expected_result());
        let property_file = task_property.as_ref().map(|p| p.property_file.clone());
        let expected_result = match (&expected_verdict, correctness) {
            (Some(r), false) if r.starts_with("false(") => Some(r.clone()),
            _ => None,
        };
        tasks.push(Task {
            id: task_file.to_string(),
            program,
            witness,
            property: None,
            data_model: None,
            expected,
            label: expected.map(|e| if e == Expected::Confirm { "confirm" } else { "reject" }.to_string()),
            expected_result,
            correctness,
            property_file,
            expected_verdict,
        });
    }
    Ok(tasks)
}

// ---------------------------------------------------------------------------------------------
// Running one task
// ---------------------------------------------------------------------------------------------

struct Runner {
    /// Tasks in the whole list (all shards): a merge tells a missing shard by it.
    total: usize,
    exe: PathBuf,
    timeout: u64,
    memory_limit: Option<u64>,
    extra: Vec<String>,
}

/// How a child process ended.
struct Ended {
    exit_code: Option<i32>,
    signal: Option<i32>,
    killed_by_us: bool,
    cpu_s: f64,
    max_rss_kib: i64,
    wall_s: f64,
    stdout: String,
    stderr: String,
}

impl Runner {
    fn run(&self, index: usize, t: &Task) -> (Outcome, Value) {
        let mut cmd = Command::new(&self.exe);
        cmd.arg("validate").arg("--json").arg("--timeout").arg(self.timeout.to_string());
        if let Some(m) = self.memory_limit {
            cmd.arg("--memory-limit").arg(m.to_string());
        }
        if let Some(w) = &t.witness {
            cmd.arg("--witness").arg(w);
        }
        if let Some(p) = &t.property {
            cmd.arg("--property").arg(p);
        }
        if let Some(d) = &t.data_model {
            cmd.arg("--data-model").arg(d);
        }
        cmd.args(&self.extra).arg(&t.program);
        let ended = run_child(cmd, Duration::from_secs(self.timeout + KILL_GRACE_S));
        let (result, reason) = match &ended {
            Err(e) => (None, format!("cannot run the validation: {e}")),
            Ok(e) => read_answer(e),
        };
        let mut class = result.as_deref().map_or(Class::Error, |r| Class::of(r, t.correctness));
        let timeout = ended.as_ref().is_ok_and(|e| e.killed_by_us);
        if timeout {
            class = Class::Unknown;
        }
        let result_lc = result.as_deref().map(|r| r.trim().to_ascii_lowercase());
        let other_violation = class == Class::Confirmed
            && t.expected_result.as_ref().is_some_and(|want| result_lc.as_deref() != Some(want.as_str()));
        let correct = match (t.expected, class) {
            (Some(Expected::Confirm), Class::Confirmed) => Some(!other_violation),
            (Some(Expected::Reject), Class::Rejected) => Some(true),
            (Some(Expected::Confirm), Class::Rejected) | (Some(Expected::Reject), Class::Confirmed) => Some(false),
            _ => None,
        };
        let score = t.expected.map(|e| score(e, class, other_violation));
        let (cpu_s, wall_s) = ended.as_ref().map_or((0.0, 0.0), |e| (e.cpu_s, e.wall_s));
        let record = json!({
            "index": index,
            "id": t.id,
            "program": t.program,
            "witness": t.witness,
            "property": t.property,
            "expected": t.label,
            "expected_result": t.expected_result,
            "property_file": t.property_file,
            "expected_verdict": t.expected_verdict,
            "tasks_total": self.total,
            "result": if timeout { Some("unknown".to_string()) } else { result },
            "class": class.name(),
            "correct": correct,
            "other_violation": other_violation,
            "score": score,
            "reason": reason,
            "cpu_s": round3(cpu_s),
            "wall_s": round3(wall_s),
            "max_rss_mib": ended.as_ref().map_or(0.0, |e| round3(e.max_rss_kib as f64 / 1024.0)),
            "exit_code": ended.as_ref().ok().and_then(|e| e.exit_code),
            "signal": ended.as_ref().ok().and_then(|e| e.signal),
            "timeout": timeout,
        });
        (Outcome { class, cpu_s, correct }, record)
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Decision 89: the SV-COMP score of a validation result, as BenchExec's table-generator
/// computes it since SV-COMP 2024. A violation-witness validation task expects `false` for a
/// valid witness and `true` for a wrong one; the validator's answer is scored like a verifier's
/// (correct `true` +2, correct `false` +1, wrong `false` −16, wrong `true` −32, otherwise 0), with
/// factor 1 for wrong witnesses. A confirmation of another violation than the expected one does
/// not answer the task's property: 0.
fn score(expected: Expected, class: Class, other_violation: bool) -> i64 {
    match (expected, class) {
        (Expected::Confirm, Class::Confirmed) if other_violation => 0,
        (Expected::Confirm, Class::Confirmed) => 1,
        (Expected::Confirm, Class::Rejected) => -32,
        (Expected::Reject, Class::Rejected) => 2,
        (Expected::Reject, Class::Confirmed) => -16,
        _ => 0,
    }
}

/// The result string and a reason from the child's output, as corpus-score reads them: the
/// JSON field `result`, else a `RESULT:` line; without either, the exit status and the last line
/// of standard error.
fn read_answer(e: &Ended) -> (Option<String>, String) {
    if e.killed_by_us {
        return (None, format!("no answer {KILL_GRACE_S} s after the budget: killed"));
    }
    if let Ok(v) = serde_json::from_str::<Value>(e.stdout.trim()) {
        let result = v.get("result").and_then(Value::as_str).map(str::to_string);
        let reason = v.get("reason").and_then(Value::as_str).unwrap_or("").to_string();
        if result.is_some() {
            return (result, reason);
        }
    }
    let from_line = e.stdout.lines().find_map(|l| l.strip_prefix("RESULT:").map(|r| r.trim().to_string()));
    if from_line.is_some() {
        return (from_line, String::new());
    }
    let status = match (e.exit_code, e.signal) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "no exit status".into(),
    };
    let last = e.stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    (None, format!("{status}; {last}"))
}

/// Runs the child, killing it `kill_after` after the start if it has not ended; its CPU time
/// and peak memory come from `wait4`.
fn run_child(mut cmd: Command, kill_after: Duration) -> std::io::Result<Ended> {
    let started = Instant::now();
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let pid = child.id() as libc::pid_t;
    let out = child.stdout.take();
    let err = child.stderr.take();
    let read = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = p {
                let _ = p.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = read(out.map(|o| Box::new(o) as Box<dyn Read + Send>));
    let err = read(err.map(|e| Box::new(e) as Box<dyn Read + Send>));
    let (tx, rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || match rx.recv_timeout(kill_after) {
        Err(mpsc::RecvTimeoutError::Timeout) => {
            // SAFETY: plain system call. The child is not reaped before the watchdog has ended
            // (waitid with WNOWAIT below), so `pid` still names it, at worst as a zombie.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            true
        }
        _ => false,
    });
    // Wait for the end without reaping, so that the watchdog cannot hit a reused pid.
    loop {
        // SAFETY: `info` is a plain C struct the call fills in.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    let _ = tx.send(());
    let killed_by_us = watchdog.join().unwrap_or(false);
    let mut status: libc::c_int = 0;
    // SAFETY: `usage` is a plain C struct the call fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
    let wall_s = started.elapsed().as_secs_f64();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let (exit_code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    Ok(Ended {
        exit_code,
        signal,
        killed_by_us,
        cpu_s: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss,
        wall_s,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

// ---------------------------------------------------------------------------------------------
// Progress and summary
// ---------------------------------------------------------------------------------------------

/// A progress bar on a terminal, one plain line per finished task otherwise (on standard error).
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    finished: AtomicUsize,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} eta {eta} {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Progress { bar, total, finished: AtomicUsize::new(0) }
    }

    fn done(&self, t: &Task, o: &Outcome) {
        let n = self.finished.fetch_add(1, Ordering::Relaxed) + 1;
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{}: {}", t.id, o.class.name()));
                bar.inc(1);
            }
            None => {
                let width = self.total.to_string().len();
                eprintln!("[{n:>width$}/{}] {}: {} ({:.3} s CPU)", self.total, t.id, o.class.name(), o.cpu_s);
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The value below which a share `q` of the sorted values lie (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The expected answer a record names (`expected`: the label as `batch` read it).
fn expected_of(r: &Value) -> Option<Expected> {
    match r["expected"].as_str() {
        Some("confirm") => Some(Expected::Confirm),
        Some("reject") => Some(Expected::Reject),
        _ => None,
    }
}

/// The summary of finished tasks (their records alone: a merge of shards has no task list).
fn summary_text(done: &[(Outcome, Value)], how: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let count = |c: Class| done.iter().filter(|(o, _)| o.class == c).count();
    let mut cpu: Vec<f64> = done.iter().map(|(o, _)| o.cpu_s).collect();
    cpu.sort_by(f64::total_cmp);
    let _ = writeln!(s, "witness-check batch: {} tasks, {how}", done.len());
    let _ = writeln!(s, "{:<10} {:>6}", "result", "tasks");
    for c in [Class::Confirmed, Class::Rejected, Class::Unknown, Class::Error] {
        let _ = writeln!(s, "{:<10} {:>6}", c.name(), count(c));
    }
    let timeouts = done.iter().filter(|(_, r)| r["timeout"] == json!(true)).count();
    if timeouts > 0 {
        let _ = writeln!(s, "  (of the unknown: {timeouts} killed after budget + 15 s)");
    }
    let _ = writeln!(
        s,
        "CPU time (s): min {:.3}  median {:.3}  p90 {:.3}  p99 {:.3}  max {:.3}  total {:.1}",
        quantile(&cpu, 0.0),
        quantile(&cpu, 0.5),
        quantile(&cpu, 0.9),
        quantile(&cpu, 0.99),
        cpu.last().copied().unwrap_or(0.0),
        cpu.iter().sum::<f64>()
    );
    let labelled: Vec<(Expected, &(Outcome, Value))> =
        done.iter().filter_map(|d| expected_of(&d.1).map(|e| (e, d))).collect();
    let unlabelled = done.len() - labelled.len();
    if labelled.is_empty() {
        let _ = writeln!(s, "no expected verdicts: no agreement or score");
        s.push_str(&named_tasks(done));
        return s;
    }
    let of = |e: Expected, c: Class| labelled.iter().filter(|(x, (o, _))| *x == e && o.class == c).count();
    let n = |e: Expected| labelled.iter().filter(|(x, _)| *x == e).count();
    let other =
        labelled.iter().filter(|(x, (_, r))| *x == Expected::Confirm && r["other_violation"] == json!(true)).count();
    let _ = writeln!(
        s,
        "agreement with the expected verdicts ({} labelled tasks{}):",
        labelled.len(),
        if unlabelled > 0 { format!("; {unlabelled} without a label are not scored") } else { String::new() }
    );
    let _ = writeln!(
        s,
        "{:<16} {:>6} {:>10} {:>9} {:>8} {:>6}",
        "expected", "tasks", "confirmed", "rejected", "unknown", "error"
    );
    for (e, name) in [(Expected::Confirm, "confirm"), (Expected::Reject, "reject")] {
        let _ = writeln!(
            s,
            "{name:<16} {:>6} {:>10} {:>9} {:>8} {:>6}",
            n(e),
            of(e, Class::Confirmed),
            of(e, Class::Rejected),
            of(e, Class::Unknown),
            of(e, Class::Error)
        );
    }
    let confirmed_ok = of(Expected::Confirm, Class::Confirmed) - other;
    let wrong_confirm = of(Expected::Reject, Class::Confirmed) + other;
    let wrong_reject = of(Expected::Confirm, Class::Rejected);
    let unknown = of(Expected::Confirm, Class::Unknown) + of(Expected::Reject, Class::Unknown);
    let error = of(Expected::Confirm, Class::Error) + of(Expected::Reject, Class::Error);
    // The same figures in corpus-score's line, for comparison.
    let _ = writeln!(
        s,
        "confirmed {confirmed_ok}/{}  rejected {}/{}  WRONG-confirm {wrong_confirm}  wrong-reject {wrong_reject}  unknown {unknown}  error {error}",
        n(Expected::Confirm),
        of(Expected::Reject, Class::Rejected),
        n(Expected::Reject)
    );
    if other > 0 {
        let _ = writeln!(s, "  ({other} confirmation(s) of another violation than the expected one count as wrong)");
    }
    let score: i64 = labelled.iter().filter_map(|(_, (_, r))| r["score"].as_i64()).sum();
    let max: i64 = labelled.iter().map(|(x, _)| if *x == Expected::Confirm { 1 } else { 2 }).sum();
    let _ = writeln!(s, "SV-COMP validation score: {score} of {max} possible");
    s.push_str(&named_tasks(done));
    s
}

/// Every wrong verdict and every failed task, by id, with what happened (the summary's counts
/// alone do not say which task to look at).
fn named_tasks(done: &[(Outcome, Value)]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut sorted: Vec<&(Outcome, Value)> = done.iter().collect();
    sorted.sort_by_key(|(_, r)| r["index"].as_u64());
    let reason = |r: &Value| {
        let text = r["reason"].as_str().unwrap_or_default().lines().next().unwrap_or_default().to_string();
        if text.chars().count() > 160 {
            format!("{}…", text.chars().take(160).collect::<String>())
        } else {
            text
        }
    };
    for (o, r) in &sorted {
        if o.correct == Some(false) {
            let _ = writeln!(
                s,
                "wrong: {} (expected {}, got {}): {}",
                r["id"].as_str().unwrap_or_default(),
                r["expected_result"].as_str().or(r["expected"].as_str()).unwrap_or_default(),
                r["result"].as_str().unwrap_or("no result"),
                reason(r)
            );
        }
    }
    for (o, r) in &sorted {
        if o.class == Class::Error {
            let _ = writeln!(s, "error: {}: {}", r["id"].as_str().unwrap_or_default(), reason(r));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert_eq!(quantile(&v, 0.9), 10.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn scores_follow_svcomp() {
        assert_eq!(score(Expected::Confirm, Class::Confirmed, false), 1);
        assert_eq!(score(Expected::Confirm, Class::Confirmed, true), 0);
        assert_eq!(score(Expected::Confirm, Class::Rejected, false), -32);
        assert_eq!(score(Expected::Reject, Class::Rejected, false), 2);
        assert_eq!(score(Expected::Reject, Class::Confirmed, false), -16);
        assert_eq!(score(Expected::Reject, Class::Unknown, false), 0);
        assert_eq!(score(Expected::Confirm, Class::Error, false), 0);
    }

    #[test]
    fn a_hanging_child_is_killed_and_its_usage_measured() {
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let started = Instant::now();
        let e = run_child(sleep, Duration::from_millis(300)).expect("sleep runs");
        assert!(e.killed_by_us && e.signal == Some(libc::SIGKILL) && e.exit_code.is_none());
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut busy = Command::new("sh");
        busy.args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo done; exit 7"]);
        let e = run_child(busy, Duration::from_secs(60)).expect("sh runs");
        assert!(!e.killed_by_us);
        assert_eq!((e.exit_code, e.stdout.as_str()), (Some(7), "done\n"));
        assert!(e.cpu_s > 0.05 && e.cpu_s <= e.wall_s + 0.05, "cpu {} wall {}", e.cpu_s, e.wall_s);
        assert!(e.max_rss_kib > 0);
    }

    #[test]
    fn classes_as_corpus_score() {
        assert_eq!(Class::of("false(unreach-call)", false), Class::Confirmed);
        assert_eq!(Class::of(" true", false), Class::Rejected);
        assert_eq!(Class::of("unknown", false), Class::Unknown);
        assert_eq!(Class::of("error", false), Class::Error);
        // A correctness witness (issue 23): `true` confirms it, `false(...)` rejects it.
        assert_eq!(Class::of("true", true), Class::Confirmed);
        assert_eq!(Class::of("false(no-overflow)", true), Class::Rejected);
        assert_eq!(Class::of("unknown", true), Class::Unknown);
    }
}
