//! `--harness` / `--replay` (decision 77): writes the C harness of a confirmation and runs it
//! natively with the program (gcc, `-m32` for ILP32) under a time limit, as an independent
//! check of the confirmation.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use witness_core::harness::{
    same_error, BLOCKED_TEXT, ERROR_FUNCTIONS, NOT_FOLLOWED_TEXT, REACHED_STATUS, REACHED_TEXT,
};

/// What the native run showed.
pub struct Replay {
    pub reproduced: bool,
    pub detail: String,
}

/// Longest native run.
const RUN_LIMIT: Duration = Duration::from_secs(10);

/// Compiles `harness` with `program` and runs the result. A `threaded` harness (decision 161)
/// holds the program's instrumented copy: it is compiled twice, as the program
/// (`-DWITNESS_CHECK_PROGRAM`) and as the harness, with `-pthread`.
/// `expected` is the error the confirmation names (`harness::same_error`): a native run that
/// reaches another error (an assertion, another error code) does not reproduce it.
pub fn replay(program: &Path, harness: &Path, ilp32: bool, threaded: bool, expected: &str) -> Replay {
    let dir = std::env::temp_dir().join(format!("witness-check-replay-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Replay { reproduced: false, detail: format!("cannot create {}: {e}", dir.display()) };
    }
    let exe: PathBuf = dir.join("replay");
    let object = dir.join("program.o");
    let model = if ilp32 { "-m32" } else { "-m64" };
    // The program is compiled on its own and its error functions weakened, so that the
    // harness's definitions (which report reaching them) win at link time.
    let mut weaken = Command::new("objcopy");
    for f in ERROR_FUNCTIONS {
        weaken.arg(format!("--weaken-symbol={f}"));
    }
    weaken.arg(&object);
    let steps: [(&str, Command); 3] = [
        ("the program does not compile", {
            let mut c = Command::new("gcc");
            if threaded {
                c.args([model, "-pthread", "-w", "-O0", "-DWITNESS_CHECK_PROGRAM", "-c", "-o"])
                    .arg(&object)
                    .arg(harness);
            } else {
                c.args([model, "-w", "-O0", "-c", "-o"]).arg(&object).arg(program);
            }
            c
        }),
        ("objcopy failed", weaken),
        ("the harness does not compile or link with the program", {
            let mut c = Command::new("gcc");
            // The harness's error functions strong (see its header), the program's weakened.
            c.args([model, "-w", "-O0", "-DWITNESS_CHECK_REPLAY", "-o"]).arg(&exe).arg(&object).arg(harness).arg("-lm");
            if threaded {
                c.arg("-pthread");
            }
            c
        }),
    ];
    for (what, mut cmd) in steps {
        let done = match cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output() {
            Ok(o) => o,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Replay { reproduced: false, detail: format!("{what}: {e}") };
            }
        };
        if !done.status.success() {
            let msg = String::from_utf8_lossy(&done.stderr);
            let first = msg.lines().find(|l| l.contains("error")).unwrap_or("").trim().to_string();
            let _ = std::fs::remove_dir_all(&dir);
            return Replay { reproduced: false, detail: format!("{what}: {first}") };
        }
    }
    let result = run(&exe, expected);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run(exe: &Path, expected: &str) -> Replay {
    let mut child = match Command::new(exe).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => return Replay { reproduced: false, detail: format!("cannot run the harness: {e}") },
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() < RUN_LIMIT => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Replay {
                    reproduced: false,
                    detail: format!("the native run did not end within {} s", RUN_LIMIT.as_secs()),
                };
            }
        }
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    let reached = err.lines().find(|l| l.starts_with(REACHED_TEXT));
    match (status.code(), reached) {
        (Some(REACHED_STATUS), Some(line)) => {
            let what = line[REACHED_TEXT.len()..].trim();
            let what = what.strip_prefix('(').and_then(|w| w.strip_suffix(')')).unwrap_or(what);
            if same_error(expected, what) {
                Replay { reproduced: true, detail: format!("the native run reaches the error: {line}") }
            } else {
                let named = if expected.is_empty() { "the property's error function" } else { expected };
                Replay {
                    reproduced: false,
                    detail: format!("the native run reaches another error: {what}, not {named} ({line})"),
                }
            }
        }
        (code, _) => {
            let how = match code {
                Some(c) => format!("exit status {c}"),
                None => "a signal".to_string(),
            };
            // A threaded harness's report on its schedule, else the first line.
            let note = err
                .lines()
                .find(|l| l.starts_with(NOT_FOLLOWED_TEXT) || l.starts_with(BLOCKED_TEXT))
                .or_else(|| err.lines().next())
                .map(|l| format!(" ({})", l.trim()))
                .unwrap_or_default();
            Replay { reproduced: false, detail: format!("the native run ends with {how} without the error{note}") }
        }
    }
}
