#![cfg_attr(not(test), no_main)]
//! `witness-check`: command-line front of witness-core. Parses arguments, runs the validation
//! on a large stack segment of the main thread under the budget's guard (`guard.rs`), renders
//! the report, picks the exit code.
//!
//! Exit codes of `validate`: 0 a verdict was reached (confirmed, rejected or unknown); 2 usage
//! error; 3 unreadable or malformed input; 4 internal error (a bug: please report it). `lint`
//! uses witnesslint's (see `lint_cmd`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::json;
use witness_core::budget::Clock;
use witness_core::cfa::DataModel;
use witness_core::harness::ExpectedError;
use witness_core::product::{SegmentReading, StutterMode, UndefinedBehaviour};
use witness_core::refine::RefineFormat;
use witness_core::resources::MemoryLimit;
use witness_core::validate::{validate, ValidateOptions, WitnessSemantics};
use witness_core::verdict::{Report, Verdict};

mod batch;
mod benchexec_xml;
mod guard;
mod lint_cmd;

mod plot;
mod replay;
mod snippet;
mod task;
use witness_check::native_run;
use witness_core::InputError;

#[derive(Parser)]
#[command(
    name = "witness-check",
    version,
    about = "Validates SV-COMP witnesses of C programs: violation witnesses (a path to a violation, a \
             non-termination lasso, a data race) and correctness witnesses (invariants), in GraphML 1.0 and \
             YAML 2.0-2.2"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum DataModelArg {
    #[value(name = "ILP32", alias = "ilp32", alias = "32bit")]
    Ilp32,
    #[value(name = "LP64", alias = "lp64", alias = "64bit")]
    Lp64,
}

#[derive(Clone, Copy, ValueEnum)]
enum RefineFormatArg {
    /// GraphML 1.0.
    Graphml,
    /// YAML 2.0.
    Yaml,
}

#[derive(Clone, Copy, ValueEnum)]
enum ClockArg {
    /// Wall-clock time from the process's start.
    Wall,
    /// The process's CPU time (user and system), as BenchExec's CPU-time limit counts it;
    /// waiting for a loaded processor does not spend it.
    Cpu,
}

#[derive(Clone, Copy, ValueEnum)]
enum StutterArg {
    /// No implicit self-loop when a transition's guard matched (SV-COMP 2023 reading).
    Strict,
    /// Also stay when the next step matches the same guard (CPAchecker's reading).
    Lenient,
}

#[derive(Clone, Copy, ValueEnum)]
enum SegmentsArg {
    /// First occurrence (CPAchecker): the first visit of a follow waypoint's location must pass it.
    Greedy,
    /// The literal definition: a visit may be let go by and the waypoint passed later.
    Existential,
}

#[derive(Clone, Copy, ValueEnum)]
enum UndefinedArg {
    /// Executions with undefined behaviour are not executions of the task (SV-COMP convention).
    Exclude,
    /// Possible undefined behaviour on an allowed path makes the answer unknown, never true.
    Unknown,
}

#[derive(Clone, Copy, ValueEnum)]
enum SemanticsArg {
    /// A witness is confirmed when a feasible path its automaton allows reaches the error.
    Automaton,
    /// Also confirmed: a witness whose path is infeasible but whose input values alone reach the
    /// error (as execution-based validators count it), with a warning.
    #[value(name = "test-vector")]
    TestVector,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a witness (violation or correctness) against a C program (or an SV-COMP task
    /// definition).
    #[command(after_help = "Exit status: 0 a result was printed (RESULT: false(...), true or unknown); \
        2 usage error; 3 input error (unreadable or malformed program, witness or property, with file and \
        position); 4 internal error. With --json an error is one object {\"result\": \"error\", \
        \"verdict\": \"error\", \"error_kind\", \"reason\", \"exit_code\"}, as lint's.")]
    Validate(ValidateArgs),
    /// Check a witness against its format (witnesslint's checks for GraphML, the schema for
    /// YAML), and against the program if given.
    #[command(after_help = "Exit status (witnesslint 1.3's, kept so that scripts written for witnesslint \
        work unchanged): 0 valid, 1 faulty, 2 usage error, 5 witness file missing, 6 program file \
        missing, 7 internal error. With --json an error is one object {\"result\": \"error\", \
        \"verdict\": \"error\", \"error_kind\", \"reason\", \"exit_code\", \"valid\": null}, as \
        validate's.")]
    Lint(lint_cmd::LintArgs),
    /// Run many validations on all cores: a corpus manifest (TSV) or a list of
    /// task-definition/witness pairs; prints a summary, optionally JSON lines and a plot.
    Batch(batch::BatchArgs),
    /// Print a shell completion script to standard output (e.g. `witness-check completions bash >
    /// ~/.local/share/bash-completion/completions/witness-check`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of witness-check or of one of its commands to standard output
    /// (`witness-check man validate | man -l -`).
    Man {
        /// `validate`, `lint`, `batch`, `completions` or `man`; none: the page of witness-check.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// The arguments of `validate`.
#[derive(Args)]
struct ValidateArgs {
    /// The witness file: GraphML 1.0 (optionally gzip-compressed) or YAML 2.0/2.1,
    /// recognised by content. Optional when PROGRAM is a task definition whose options name
    /// the witness (`witness_input_file`).
    #[arg(long, value_name = "W")]
    witness: Option<PathBuf>,
    /// The property file (.prp); decides the error function. Without it, both
    /// `reach_error()` and `__VERIFIER_error()` count. Default for a task definition: its
    /// property (of several, the one the witness's specification names).
    #[arg(long, value_name = "P")]
    property: Option<PathBuf>,
    /// Data model of the task; default: the task definition's `data_model`, else the
    /// witness's `architecture`, else LP64.
    #[arg(long, value_name = "MODEL", value_enum)]
    data_model: Option<DataModelArg>,
    /// Budget in seconds, from the process's start (counted on `--clock`); when it runs out the
    /// answer is unknown, and the process has ended (printing and releasing memory are kept back
    /// from it).
    #[arg(long, value_name = "SECS", default_value_t = 90)]
    timeout: u64,
    /// What `--timeout` counts: wall-clock time, or the process's CPU time (the same answer
    /// whatever else the machine runs, up to the speed of a processor shared with others).
    #[arg(long, value_enum, default_value = "wall")]
    clock: ClockArg,
    /// Resident memory in MiB the validation may add before the exploration stops with
    /// `unknown` (never an out-of-memory kill). Default: 85 % of the cgroup's memory limit, else half of
    /// physical memory; 0: no limit.
    #[arg(long = "memory-limit", value_name = "MIB")]
    memory_limit: Option<u64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// For a confirmation: write a C harness to this file; compiled with the program, its
    /// `__VERIFIER_nondet_*` functions return the trace's values in call order.
    #[arg(long, value_name = "OUT.c")]
    harness: Option<PathBuf>,
    /// For a confirmation: write the confirmed run as a witness to this file, every
    /// nondeterministic value pinned (`\result == v` of each call), in `--refine-format`.
    #[arg(long, value_name = "OUT")]
    refine: Option<PathBuf>,
    /// RERS: only a call `__VERIFIER_error(N)` with this error code is the violation; a call
    /// with another code ends its run (unreach-call only).
    #[arg(long = "error-code", value_name = "N", allow_hyphen_values = true)]
    error_code: Option<i128>,
    /// The refined witness's format; default: the validated witness's (so GraphML ↔ YAML is
    /// a conversion).
    #[arg(long = "refine-format", value_enum, requires = "refine")]
    refine_format: Option<RefineFormatArg>,
    /// Write the witness automaton in Graphviz form to this file: the states of a confirmed
    /// run filled, the transition an explanation names in red.
    #[arg(long, value_name = "FILE.dot")]
    dot: Option<PathBuf>,
    /// For a confirmation: compile the harness with the program (gcc; -m32 for ILP32), run it
    /// natively for at most 10 s, and report whether it shows the violation (JSON `replay`): the
    /// error call; a signed overflow under UBSan (no-overflow); an invalid access or free, or a
    /// leak, under AddressSanitizer (memory safety). Other properties: "not replayed".
    #[arg(long)]
    replay: bool,
    /// Correctness witnesses: never run the program natively. By default, when neither the
    /// proof nor a short search decides, the program runs natively (gcc with UBSan and
    /// AddressSanitizer) with the invariants checked where they must hold, every nondet call
    /// returning 0, then 1: a run that breaks one, with no sanitizer finding, refutes the
    /// witness (decision 222).
    #[arg(long)]
    no_native: bool,
    /// How a matched-but-failed transition affects the automaton.
    #[arg(long, value_enum, default_value = "strict")]
    stutter: StutterArg,
    /// How the segments of a YAML witness are matched.
    #[arg(long, value_enum, default_value = "greedy")]
    segments: SegmentsArg,
    /// What possible undefined behaviour (signed overflow, division by zero, out-of-bounds
    /// index) on a path the witness allows means. Definite undefined behaviour is always unknown.
    /// Steps after which no error call is reachable are not explored, so their undefined
    /// behaviour does not count.
    #[arg(long = "undefined-behaviour", value_enum, default_value = "exclude")]
    undefined: UndefinedArg,
    /// What confirms a witness. Every rejection is also checked by running the witness's
    /// input values alone; `test-vector` counts a witness whose input values reach the
    /// error as confirmed, even when the automaton reading rejects it.
    #[arg(long = "witness-semantics", value_enum, default_value = "automaton")]
    semantics: SemanticsArg,
    /// The C program, or an SV-COMP task-definition file (`.yml`/`.yaml`: its `input_files`,
    /// `properties` and `options.data_model`; paths relative to the file).
    #[arg(value_name = "PROGRAM")]
    program: PathBuf,
}

enum Answer {
    Done(Box<Result<Report, InputError>>),
    Panicked(String),
}

/// `--version`: ours, the commit built from, and the Z3 library this process runs with (results
/// tables tell builds apart by it).
pub(crate) fn version() -> String {
    format!(
        "{} (commit {}, Z3 {})",
        env!("CARGO_PKG_VERSION"),
        env!("WITNESS_CHECK_COMMIT"),
        witness_core::solver_version()
    )
}

/// Whether `options` are options `validate` accepts in a child command line as `batch` builds it
/// (with its own `--json`, `--timeout`, `--memory-limit`, `--witness`, `--property` and
/// `--data-model`, which may therefore not be forwarded): clap's message otherwise.
pub(crate) fn check_forwarded_options(options: &[String]) -> Result<(), String> {
    let mut argv: Vec<String> = ["witness-check", "validate", "--json", "--timeout", "1", "--memory-limit", "1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.extend(["--witness", "w", "--property", "p", "--data-model", "LP64"].iter().map(|s| s.to_string()));
    argv.extend(options.iter().cloned());
    argv.push("program.c".into());
    match <Cli as clap::Parser>::try_parse_from(argv) {
        Ok(_) => Ok(()),
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
            Err(first)
        }
    }
}

/// The process's entry, without std's runtime set-up (decision 174): that set-up reads
/// `/proc/self/maps` to place the main thread's stack guard and installs stack-overflow
/// handlers, 3–5 % of a small task, and nothing here needs them (arguments come from glibc as
/// before; every way out is `leave_now`, so no return to a runtime). What it does that matters
/// is done here: SIGPIPE is ignored (a write to a closed pipe, our standard output or `gcc -E`'s
/// input, is an error to handle, not the end of the process), and a panic outside the
/// validation ends the process with status 101, except a failed write to a closed standard
/// output, which ends it as it ends `cat` (issue 35 item 4: [`closed_output`]).
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_closed_output(info.payload()) {
            report(info)
        }
    }));
    match std::panic::catch_unwind(|| run_main()) {
        Ok(never) => never,
        Err(p) if is_closed_output(p.as_ref()) => closed_output(),
        Err(_) => leave_now(101),
    }
}

/// Is a panic's payload std's "failed printing to stdout: Broken pipe" (`println!` to a pipe
/// whose reader has gone, e.g. `| head -1`)?
fn is_closed_output(payload: &(dyn std::any::Any + Send)) -> bool {
    let msg = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    msg.contains("failed printing to stdout") && msg.contains("Broken pipe")
}

/// Ends the process as `cat` ends when its reader goes away: by SIGPIPE, quietly (status 141 in
/// a shell), not as an internal error.
fn closed_output() -> ! {
    // SAFETY: restoring a signal's default disposition and raising it have no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    leave_now(128 + libc::SIGPIPE)
}

/// What `main` runs (also the test harness's root, which has its own `main`).
#[cfg_attr(test, allow(dead_code))]
fn run_main() -> ! {
    // The budget counts from here (decision 173).
    let start_ns = guard::now_ns();
    // clap keeps the text for the process's life: leaked once, at start. Only `--version`
    // shows it, and asking Z3 for its version loads libz3 (decision 170): other runs leave Z3
    // out of it.
    let shows_version = std::env::args().skip(1).any(|a| a == "--version" || a == "-V");
    let version: &'static str =
        if shows_version { Box::leak(version().into_boxed_str()) } else { env!("CARGO_PKG_VERSION") };
    let matches = <Cli as clap::CommandFactory>::command().version(version).get_matches();
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.command {
        Command::Validate(args) => run_validate(args, start_ns),
        Command::Lint(args) => leave_now(lint_cmd::run(args)),
        Command::Batch(args) => batch::run(args),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "witness-check", &mut std::io::stdout());
            leave_now(0)
        }
        Command::Man { command } => leave_now(print_man(command.as_deref())),
    }
}

/// `man [COMMAND]`: the page of the binary or of one command (clap_mangen); 2 for an unknown one.
fn print_man(command: Option<&str>) -> i32 {
    let cmd = <Cli as clap::CommandFactory>::command().version(env!("CARGO_PKG_VERSION"));
    let page = match command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone().name(Box::leak(format!("witness-check-{name}").into_boxed_str()) as &str),
            None => {
                let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
                eprintln!("witness-check: no command `{name}` (one of: {})", names.join(", "));
                return 2;
            }
        },
    };
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        eprintln!("witness-check: cannot render the manual page: {e}");
        return 4;
    }
    use std::io::Write;
    match std::io::stdout().write_all(&out) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => closed_output(),
        _ => 0,
    }
}

/// `validate`: one validation under the budget's guard; never returns.
fn run_validate(args: ValidateArgs, start_ns: u64) -> ! {
    let ValidateArgs {
        witness,
        property,
        data_model,
        timeout,
        clock,
        memory_limit,
        json,
        harness,
        dot,
        refine,
        refine_format,
        error_code,
        replay,
        no_native,
        stutter,
        segments,
        undefined,
        semantics,
        program,
    } = args;
    let data_model = data_model.map(|d| match d {
        DataModelArg::Ilp32 => DataModel::Ilp32,
        DataModelArg::Lp64 => DataModel::Lp64,
    });
    let resolved = match task::resolve(&program, witness.as_deref(), property.as_deref(), data_model) {
        Ok(r) => r,
        Err(task::ResolveError::Usage(msg)) => {
            print_error(&msg, json, "usage", 2);
            leave_now(2)
        }
        Err(task::ResolveError::Input(e)) => {
            print_error(&e.to_string(), json, "input", 3);
            leave_now(3)
        }
    };
    // `ValidateOptions` is `#[non_exhaustive]` (issue 33 item 5): built from its defaults, then set.
    let mut opts = ValidateOptions::new(resolved.program, resolved.witness);
    opts.property = resolved.property;
    opts.data_model = resolved.data_model;
    opts.timeout = Duration::from_secs(timeout);
    opts.stutter = match stutter {
        StutterArg::Strict => StutterMode::Strict,
        StutterArg::Lenient => StutterMode::Lenient,
    };
    opts.segments = match segments {
        SegmentsArg::Greedy => SegmentReading::Greedy,
        SegmentsArg::Existential => SegmentReading::Existential,
    };
    opts.undefined = match undefined {
        UndefinedArg::Exclude => UndefinedBehaviour::Exclude,
        UndefinedArg::Unknown => UndefinedBehaviour::Unknown,
    };
    opts.semantics = match semantics {
        SemanticsArg::Automaton => WitnessSemantics::Automaton,
        SemanticsArg::TestVector => WitnessSemantics::TestVector,
    };
    opts.harness = harness.is_some() || replay;
    opts.dot = dot.is_some();
    opts.refine = refine.as_ref().map(|_| match refine_format {
        Some(RefineFormatArg::Graphml) => RefineFormat::Graphml,
        Some(RefineFormatArg::Yaml) => RefineFormat::Yaml,
        None => RefineFormat::AsWitness,
    });
    opts.error_code = error_code;
    opts.memory_limit = match memory_limit {
        Some(0) => MemoryLimit::Off,
        Some(mib) => MemoryLimit::Bytes(mib << 20),
        None => MemoryLimit::Default,
    };
    // The process ends right after the answer (`leave_now`): a search the budget ends is
    // not freed first (decision 168).
    opts.leave_states = true;
    opts.finish_reserve = FINISH_RESERVE;
    opts.clock = match clock {
        ClockArg::Wall => Clock::Wall,
        ClockArg::Cpu => Clock::Cpu,
    };
    if !no_native {
        opts.native = Some(std::sync::Arc::new(native_run::GccRunner::new(&opts.program)));
    }
    std::panic::set_hook(Box::new(|_| {}));
    // The guard answers alone when the budget is spent (decisions 173, 174).
    if let Err(e) = guard::install(start_ns, opts.timeout, opts.clock, json) {
        eprintln!("witness-check: cannot arm the budget's timer: {e}");
        leave_now(4);
    }
    // The validation runs on this thread, on a stack segment large enough for the C parser's
    // recursion: a small task starts no thread and hands nothing over (decision 174). The
    // library never panics on input by design; a panic is a bug, reported as such.
    let run = std::panic::AssertUnwindSafe(|| validate(&opts));
    let answer = match witness_core::stack::with_stack(VALIDATION_STACK, || std::panic::catch_unwind(run)) {
        Ok(r) => Answer::Done(Box::new(r)),
        Err(p) => Answer::Panicked(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    };
    if !guard::take_answer() {
        // The guard has answered and ends the process.
        loop {
            std::thread::park();
        }
    }
    // Every way out is `leave_now`: Z3's static destructors take about 1.5 ms at exit (a tenth
    // of a small task), and nothing of ours needs an exit handler once the output is flushed.
    match answer {
        Answer::Done(r) => match *r {
            Ok(report) => {
                if let Some(path) = &refine {
                    match &report.refined {
                        Some(text) => {
                            if let Err(e) = std::fs::write(path, text) {
                                eprintln!("witness-check: cannot write {}: {e}", path.display());
                            }
                        }
                        None if matches!(report.verdict, Verdict::Confirmed { .. }) => eprintln!(
                            "witness-check: no refined witness written to {}: this confirmation cannot be refined \
                             (see the warnings)",
                            path.display()
                        ),
                        None => eprintln!(
                            "witness-check: no refined witness written to {}: only a confirmation has a run to refine",
                            path.display()
                        ),
                    }
                }
                if let (Some(path), Some(text)) = (&dot, &report.dot) {
                    if let Err(e) = std::fs::write(path, text) {
                        eprintln!("witness-check: cannot write {}: {e}", path.display());
                    }
                }
                let replayed = harness_and_replay(&report, harness.as_deref(), replay, &opts);
                print_report(&report, json, replayed.as_ref(), (&opts.program, &opts.witness));
                leave_now(0)
            }
            Err(e) => {
                print_error(&e.to_string(), json, "input", 3);
                leave_now(3)
            }
        },
        Answer::Panicked(msg) => {
            print_error(&format!("internal error (please report): {msg}"), json, "internal", 4);
            leave_now(4)
        }
    }
}

/// Time `validate` keeps back from the budget for printing the answer and ending the process
/// (decision 173); the search also keeps back what unmapping its memory will take.
const FINISH_RESERVE: Duration = Duration::from_millis(250);

/// Stack of the validation (the C parser recurses deeply; mapped, not committed).
const VALIDATION_STACK: usize = 512 << 20;

/// Ends the process at once (`_exit`): no atexit handlers or static destructors run, so a
/// validation the guard left behind inside Z3 cannot corrupt the heap on the way out.
fn leave_now(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    extern "C" {
        fn _exit(code: i32) -> !;
    }
    // SAFETY: `_exit` (POSIX) takes any status and never returns; the output is flushed above.
    unsafe { _exit(code) }
}

/// An error, in the one scheme of `validate` and `lint` (issue 21).
fn print_error(msg: &str, json: bool, kind: &str, exit_code: i32) {
    if json {
        println!(
            "{}",
            json!({"result": "error", "verdict": "error", "reason": msg, "error_kind": kind, "exit_code": exit_code})
        );
    } else {
        eprintln!("witness-check: {msg}");
    }
}

/// Issue 19, cause 12: the harness did not reproduce the confirmation, which rests on calling
/// the nondet functions of a call's arguments left to right; tells whether gcc's order (right to
/// left) does.
fn right_to_left(r: &Report, harness: &str, first: replay::Replay, opts: &ValidateOptions) -> replay::Replay {
    let path = std::env::temp_dir().join(format!("witness-check-harness-rtl-{}.c", std::process::id()));
    if std::fs::write(&path, harness).is_err() {
        return first;
    }
    let threaded = witness_core::harness::is_threaded(harness);
    let second = replay::replay(&opts.program, &path, r.data_model == "ILP32", threaded, &expected(r));
    let _ = std::fs::remove_file(&path);
    let detail = if second.reproduced && r.property == "unreach-call" {
        format!(
            "{}; gcc calls the nondet functions of a call's arguments right to left, this validator left to right \
             (C leaves the order unspecified): with the values of those calls in gcc's order the native run reaches \
             the error",
            first.detail
        )
    } else if second.reproduced {
        format!(
            "{}; gcc calls the nondet functions of a call's arguments right to left, this validator left to right \
             (C leaves the order unspecified): with the values of those calls in gcc's order the native run shows \
             the confirmed violation ({})",
            first.detail, second.detail
        )
    } else {
        format!(
            "{}; with the values of the nondet calls in a call's arguments in gcc's order (right to left) it is not \
                 reproduced either: {}",
            first.detail, second.detail
        )
    };
    replay::Replay { reproduced: false, ran: true, detail }
}

/// The error a confirmation names (`reach_error`, `__VERIFIER_error(7)`) and the lines of its
/// call, the last step of the confirmed run (issue 32 cause 17); for a rejected witness whose
/// input values alone reach an error, any error function at the line that run reaches it.
fn expected(r: &Report) -> replay::Expected {
    match &r.verdict {
        Verdict::Confirmed { call, trace, error_function, lost_blocks } => replay::Expected {
            error: match call {
                Some(c) => ExpectedError::Call(c.clone()),
                None => ExpectedError::Other(error_function.clone()),
            },
            lines: trace.last().and_then(|s| {
                let span = s.span.filter(|sp| sp.start_line > 0 && sp.end_line >= sp.start_line);
                span.map(|sp| (sp.start_line, sp.end_line)).or((s.line > 0).then_some((s.line, s.line)))
            }),
            shows: replay::Shows::of(&r.property).unwrap_or(replay::Shows::ErrorCall),
            blocks: lost_blocks.as_ref().map(|b| b.0.clone()).unwrap_or_default(),
        },
        _ => replay::Expected {
            error: ExpectedError::AnyErrorFunction,
            lines: r.test_vector.as_ref().and_then(|tv| tv.line).map(|l| (l, l)),
            shows: replay::Shows::ErrorCall,
            blocks: Vec::new(),
        },
    }
}

/// Decision 77: writes the harness of a confirmation (to `out`, else a temporary file for
/// `--replay`) and replays it; `None` when nothing was replayed.
fn harness_and_replay(
    r: &Report,
    out: Option<&std::path::Path>,
    replay: bool,
    opts: &ValidateOptions,
) -> Option<replay::Replay> {
    let Some(text) = r.harness.as_ref() else {
        if let Some(path) = out {
            eprintln!(
                "witness-check: no harness written to {}: no run reaches the error (a harness is written for a \
                 confirmation, and for a rejected witness whose input values alone reach the error)",
                path.display()
            );
        }
        return None;
    };
    let temp = std::env::temp_dir().join(format!("witness-check-harness-{}.c", std::process::id()));
    let path = out.unwrap_or(&temp);
    if let Err(e) = std::fs::write(path, text) {
        return Some(replay::Replay::not_run(format!("cannot write {}: {e}", path.display())));
    }
    let result = replay.then(|| {
        if let Some(why) = witness_core::harness::unreplayable(text) {
            // Decision 161: a native run would take a schedule of its own.
            replay::Replay::not_run(format!("schedule not replayable: {why}"))
        } else if r.property == "unreach-call" || !matches!(r.verdict, Verdict::Confirmed { .. }) {
            let threaded = witness_core::harness::is_threaded(text);
            let first = replay::replay(&opts.program, path, r.data_model == "ILP32", threaded, &expected(r));
            match (&r.harness_right_to_left, first.reproduced) {
                (Some(other), false) => right_to_left(r, other, first, opts),
                _ => first,
            }
        } else if replay::Shows::of(&r.property).is_some() {
            // Issue 35 item 7: the sanitizer that shows the property's violation; in gcc's order
            // of a call's nondet arguments too (issue 51 cause 7).
            let threaded = witness_core::harness::is_threaded(text);
            let first = replay::replay(&opts.program, path, r.data_model == "ILP32", threaded, &expected(r));
            match (&r.harness_right_to_left, first.reproduced, first.ran) {
                (Some(other), false, true) => right_to_left(r, other, first, opts),
                _ => first,
            }
        } else {
            replay::Replay::not_run(format!("a native run does not show a violation of {}", r.property))
        }
    });
    if out.is_none() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// The steps of a trace (or a rejection's prefix), one a line: place, thread, function, the
/// step's text, the witness node after it, a nondet call's value and the values the step
/// assigns or tests (decision 221).
fn print_steps(steps: &[witness_core::verdict::TraceStep]) {
    for s in steps {
        let nondet = s.nondet.as_ref().map(|n| format!("   [{} returns {}]", n.function, n.value)).unwrap_or_default();
        let values = if s.values.is_empty() {
            String::new()
        } else {
            let shown: Vec<String> = s.values.iter().map(|v| format!("{} = {}", v.name, v.value)).collect();
            format!("   [{}]", shown.join(", "))
        };
        // Multi-threaded programs: the schedule, each step with its thread (issue 22).
        let thread = s.thread.map(|t| format!("[thread {t}] ")).unwrap_or_default();
        println!(
            "  {}:{} {thread}{} | {}  -> {}{nondet}{values}",
            s.file, s.line, s.function, s.action, s.witness_node
        );
    }
}

/// Decision 78: the explanation's line of the program (or witness) as an annotated snippet.
fn snippet(e: &witness_core::verdict::Explanation, files: (&std::path::Path, &std::path::Path)) -> Option<String> {
    use annotate_snippets::Level;
    let (program, witness) = files;
    let path = if program.file_name().is_some_and(|f| f.to_string_lossy() == e.file) { program } else { witness };
    let text = String::from_utf8_lossy(&std::fs::read(path).ok()?).into_owned();
    let line = text.lines().nth((e.line as usize).checked_sub(1)?)?;
    let start = line.len() - line.trim_start().len();
    let end = line.trim_end().len().max(start + 1).min(line.len());
    if start >= end {
        return None;
    }
    let label = match e.kind.as_str() {
        "assumption" => "the witness's assumption fails here",
        "sink" => "the witness sends this step to a sink",
        "no-progress" => "no allowed path passes the witness here",
        "branch" => "the branch goes the other way here",
        "thread" => "the witness's thread never runs this line",
        "projection" => "the witness's thread cannot take this step",
        _ => "here",
    };
    let title = format!("witness not confirmed ({})", e.kind);
    Some(crate::snippet::render(Level::Note, &title, line, e.line as usize, &e.file, start..end, label))
}

/// CPU time (user + system, ms) and peak resident size (MiB) of this process so far.
fn own_usage() -> Option<(u64, f64)> {
    // SAFETY: `usage` is a plain C struct the call fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to that struct.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let ms = |t: libc::timeval| t.tv_sec as u64 * 1000 + t.tv_usec as u64 / 1000;
    let cpu_ms = ms(usage.ru_utime) + ms(usage.ru_stime);
    Some((cpu_ms, (usage.ru_maxrss as f64 / 1024.0 * 10.0).round() / 10.0))
}

/// The program line of an invariant, numbered, for the text output.
fn invariant_snippet(program: &std::path::Path, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(program).ok()?;
    let l = text.lines().nth(line.checked_sub(1)? as usize)?;
    Some(format!("  {line:>5} | {}", l.replace('\t', "    ")))
}

fn print_report(
    r: &Report,
    json: bool,
    replayed: Option<&replay::Replay>,
    files: (&std::path::Path, &std::path::Path),
) {
    if json {
        let mut v = json!({
            "result": r.result_string(),
            "verdict": r.witness_verdict(),
            "reason": r.reason,
            "stats": r.stats,
            "warnings": r.warnings,
            "witness_format": r.witness_format,
            "reading": r.reading,
            "data_model": r.data_model,
        });
        // The process's own CPU time and peak memory (issue 21: a JSON line had wall time only).
        if let Some((cpu_ms, max_rss_mib)) = own_usage() {
            v["stats"]["cpu_ms"] = json!(cpu_ms);
            v["stats"]["max_rss_mib"] = json!(max_rss_mib);
        }
        if let Verdict::Confirmed { trace, error_function, lost_blocks, .. } = &r.verdict {
            v["trace"] = json!(trace);
            v["error_function"] = json!(error_function);
            // Issue 51 cause 7: the blocks a leak loses (allocation lines, size).
            if let Some(blocks) = lost_blocks {
                v["lost_blocks"] = json!(blocks);
            }
            if let Some(code) = r.error_code {
                v["error_code"] = json!(code);
            }
        }
        if let Some(tv) = &r.test_vector {
            v["test_vector"] = json!(tv);
        }
        if let Some(rp) = replayed {
            // `reproduced` is null when nothing ran (issue 35 item 7).
            let reproduced = if rp.ran { json!(rp.reproduced) } else { json!(null) };
            v["replay"] = json!({"reproduced": reproduced, "detail": rp.detail});
        }
        if let Some(e) = &r.explanation {
            v["explanation"] = json!(e);
        }
        if !r.prefix.is_empty() {
            // Issue 35 item 8: how far a rejected witness's run got.
            v["prefix"] = json!(r.prefix);
        }
        if let Some(c) = &r.correctness {
            v["witness_type"] = json!("correctness");
            v["correctness"] = json!(c);
        }
        if let Some(s) = r.decided_by {
            // Decision 237: the shortcut that reached the verdict without the full search.
            v["decided_by"] = json!(s);
        }
        println!("{v}");
        return;
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
    match &r.verdict {
        // A native run's refutation (decision 222) keeps no steps: its reason says what ran.
        Verdict::Confirmed { trace, .. } if trace.is_empty() => {}
        Verdict::Confirmed { trace, .. } => {
            println!("trace ({} steps):", trace.len());
            print_steps(trace);
        }
        _ => {}
    }
    if let Some(last) = r.prefix.last() {
        // Issue 35 item 8: the run the witness allowed that got nearest to a violation state.
        println!(
            "prefix ({} steps, the witness's run as far as it got; it ends in witness node {}):",
            r.prefix.len(),
            last.witness_node
        );
        print_steps(&r.prefix);
    }
    println!(
        "stats: {} ms, {} product states, {} solver calls; {} witness, reading: {}; data model {}",
        r.stats.wall_ms, r.stats.product_states, r.stats.solver_calls, r.witness_format, r.reading, r.data_model
    );
    if let Some(d) = r.decided_by.and_then(witness_core::shortcuts::Shortcut::by_key).map(|s| s.declaration()) {
        // Decision 237: the verdict came from a shortcut, not from the full search.
        println!("decided by: {} (`{}`, decision {}), not by the full search", d.name, d.key, d.decisions);
    }
    if let Some(tv) = &r.test_vector {
        println!("test vector [{}]: {}", tv.values.join(", "), tv.detail);
    }
    if let Some(e) = &r.explanation {
        let at = e.witness_position.as_ref().map(|p| format!(" (witness {p})")).unwrap_or_default();
        println!("explanation [{}]: {}:{}{at}: {}", e.kind, e.file, e.line, e.message);
        if let Some(snippet) = snippet(e, files) {
            println!("{snippet}");
        }
    }
    if let Some(rp) = replayed {
        let said = match (rp.ran, rp.reproduced) {
            (_, true) => "reproduced natively",
            (true, false) => "not reproduced",
            (false, false) => "not replayed",
        };
        println!("replay: {said} ({})", rp.detail);
    }
    if let Some(c) = &r.correctness {
        // Issue 23: each invariant with its location and what became of it.
        for i in &c.invariants {
            let detail = i.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
            println!(
                "invariant [{}]: {} `{}` at line {} ({}, witness {}){detail}",
                i.status, i.kind, i.invariant, i.line, i.function, i.witness_position
            );
            if let Some(s) = invariant_snippet(files.0, i.line) {
                println!("{s}");
            }
        }
        // Decision 225: where the time went.
        if !c.stages.is_empty() {
            let each: Vec<String> = c
                .stages
                .iter()
                .map(|s| {
                    let detail = s.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
                    format!(
                        "{} {} ms ({} states, {} solver calls){detail}",
                        s.stage, s.ms, s.product_states, s.solver_calls
                    )
                })
                .collect();
            println!("stages: {}", each.join("; "));
        }
    }
    println!("{}", r.reason);
    println!("RESULT: {}", r.result_string());
}
