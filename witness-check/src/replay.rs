//! `--harness` / `--replay` (decision 77): writes the C harness of a confirmation and runs it
//! natively with the program (gcc, `-m32` for ILP32) under a time limit, as an independent
//! check of the confirmation.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use witness_core::harness::{
    same_error, without_line_markers, BLOCKED_TEXT, CALLED_FROM_TEXT, ERROR_FUNCTIONS, NOT_FOLLOWED_TEXT,
    REACHED_STATUS, REACHED_TEXT,
};

/// What the native run showed.
pub struct Replay {
    pub reproduced: bool,
    pub detail: String,
}

/// Longest native run.
const RUN_LIMIT: Duration = Duration::from_secs(10);

/// The error a replay must reach to reproduce a confirmation: the same error function (and
/// code) at the same place (issue 32 cause 17).
pub struct Expected {
    /// The error the verdict names (`harness::same_error`).
    pub error: witness_core::harness::ExpectedError,
    /// The lines of the error call the confirmed run reaches (first and last line of the call);
    /// `None` when the run names no line, and then no native run reproduces it.
    pub lines: Option<(u32, u32)>,
}

/// Compiles `harness` with `program` and runs the result. A `threaded` harness (decision 161)
/// holds the program's instrumented copy: it is compiled twice, as the program
/// (`-DWITNESS_CHECK_PROGRAM`) and as the harness, with `-pthread`.
/// `expected` is the error the confirmation names and its place: a native run that reaches
/// another error (an assertion, another error code) or the same error on another line does not
/// reproduce it. The place: the program object is compiled with `-g` (from a copy without line
/// markers, whose lines are the file's, as the validator counts them), the executable linked
/// without PIE, the harness prints the address its error function returns to, and `addr2line`
/// names its line. This asks gcc itself where the call is (macros, wrappers such as
/// `__VERIFIER_assert`, several calls on one line), where rewriting the program's calls would
/// need the program parsed again.
pub fn replay(program: &Path, harness: &Path, ilp32: bool, threaded: bool, expected: &Expected) -> Replay {
    let dir = std::env::temp_dir().join(format!("witness-check-replay-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Replay { reproduced: false, detail: format!("cannot create {}: {e}", dir.display()) };
    }
    let exe: PathBuf = dir.join("replay");
    let object = dir.join("program.o");
    let model = if ilp32 { "-m32" } else { "-m64" };
    // The file gcc compiles the program from (its debug lines name it): the harness for a
    // threaded run (the program's copy is in it), else the program, or its copy without line
    // markers (same extension, so a `.i` stays preprocessed; quoted includes still found).
    let mut source = if threaded { harness.to_path_buf() } else { program.to_path_buf() };
    if !threaded {
        if let Some(text) = std::fs::read(program).ok().and_then(|b| without_line_markers(&String::from_utf8_lossy(&b)))
        {
            let ext = program.extension().and_then(|e| e.to_str()).filter(|e| *e == "i").unwrap_or("c");
            let copy = dir.join(format!("program.{ext}"));
            if let Err(e) = std::fs::write(&copy, text) {
                let _ = std::fs::remove_dir_all(&dir);
                return Replay { reproduced: false, detail: format!("cannot write {}: {e}", copy.display()) };
            }
            source = copy;
        }
    }
    let quote_dir = program.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
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
            c.args([model, "-g", "-w", "-O0"]).arg("-iquote").arg(quote_dir);
            if threaded {
                c.args(["-pthread", "-DWITNESS_CHECK_PROGRAM"]);
            }
            c.arg("-c").arg("-o").arg(&object).arg(&source);
            c
        }),
        ("objcopy failed", weaken),
        ("the harness does not compile or link with the program", {
            let mut c = Command::new("gcc");
            // The harness's error functions strong (see its header), the program's weakened.
            // Without PIE: the addresses the harness prints are the executable's own.
            c.args([model, "-no-pie", "-w", "-O0", "-DWITNESS_CHECK_REPLAY", "-o"])
                .arg(&exe)
                .arg(&object)
                .arg(harness)
                .arg("-lm");
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
    let result = run(&exe, &source, expected);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Where in `source` the code at `address` (in `exe`) is: its line, or why it cannot be told.
fn line_of(exe: &Path, source: &Path, address: u64) -> Result<u32, String> {
    // The return address follows the call: the byte before it is the call's.
    let at = format!("0x{:x}", address.saturating_sub(1));
    let out = Command::new("addr2line")
        .arg("-e")
        .arg(exe)
        .arg(&at)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("addr2line cannot run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // `file:line`, possibly followed by ` (discriminator n)`.
    let first = text.split_whitespace().next().unwrap_or("");
    let (file, line) = first.rsplit_once(':').ok_or_else(|| format!("addr2line gives no place for {at}"))?;
    let line: u32 = line.parse().ok().filter(|l| *l > 0).ok_or_else(|| format!("addr2line gives no line for {at}"))?;
    let name = |p: &Path| p.file_name().map(|f| f.to_os_string());
    if name(Path::new(file)) != name(source) {
        return Err(format!("the call is at {file}:{line}, not in the program's file"));
    }
    Ok(line)
}

fn run(exe: &Path, source: &Path, expected: &Expected) -> Replay {
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
            // Where: the line of the call the error function returns to.
            let place = err
                .lines()
                .find_map(|l| l.strip_prefix(CALLED_FROM_TEXT))
                .and_then(|a| u64::from_str_radix(a.trim().trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| "the harness did not say where the error was called".to_string())
                .and_then(|a| line_of(exe, source, a));
            let at = match &place {
                Ok(l) => format!(" at line {l}"),
                Err(_) => String::new(),
            };
            let wanted = match expected.lines {
                Some((a, b)) if a == b => format!("line {a}"),
                Some((a, b)) => format!("lines {a}-{b}"),
                None => "no line".to_string(),
            };
            if !same_error(&expected.error, what) {
                let named = &expected.error;
                return Replay {
                    reproduced: false,
                    detail: format!("the native run reaches another error: {what}{at}, not {named} ({line})"),
                };
            }
            match (place, expected.lines) {
                (Ok(l), Some((a, b))) if (a..=b).contains(&l) => {
                    Replay { reproduced: true, detail: format!("the native run reaches the error at line {l}: {line}") }
                }
                (Ok(l), _) => Replay {
                    reproduced: false,
                    detail: format!(
                        "the native run reaches {what} at line {l}, another place than the confirmed run's error \
                         ({wanted}) ({line})"
                    ),
                },
                (Err(why), _) => Replay {
                    reproduced: false,
                    detail: format!(
                        "the native run reaches {what}, but not at a place that can be compared with the confirmed \
                         run's error ({wanted}): {why} ({line})"
                    ),
                },
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
