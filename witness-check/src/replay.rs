//! `--harness` / `--replay` (decision 77): writes the C harness of a confirmation and runs it
//! natively with the program (gcc, `-m32` for ILP32) under a time limit, as an independent
//! check of the confirmation.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use witness_check::native_run::wait_within;
use witness_core::harness::{
    same_error, without_line_markers, BLOCKED_TEXT, CALLED_FROM_TEXT, ERROR_FUNCTIONS, NOT_FOLLOWED_TEXT,
    REACHED_STATUS, REACHED_TEXT,
};

/// What the native run showed.
pub struct Replay {
    pub reproduced: bool,
    /// The harness ran (false: it was not built, or the property is one no native run shows):
    /// then the report says "not replayed", never "not reproduced".
    pub ran: bool,
    pub detail: String,
}

impl Replay {
    /// Nothing ran: why.
    pub fn not_run(detail: String) -> Replay {
        Replay { reproduced: false, ran: false, detail }
    }
}

/// What a native run must show to reproduce a confirmation (issue 35 item 7): the error call,
/// or the sanitizer's report of the property's violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shows {
    /// `unreach-call`: the harness's error function is called.
    ErrorCall,
    /// `no-overflow`: UBSan (`-fsanitize=signed-integer-overflow`) reports a signed overflow.
    SignedOverflow,
    /// `valid-deref`: AddressSanitizer reports an invalid access (or a SEGV).
    InvalidDeref,
    /// `valid-free`: AddressSanitizer reports an invalid or double free.
    InvalidFree,
    /// `valid-memtrack`, `valid-memcleanup`: LeakSanitizer reports a leak at exit (it reports
    /// only unreachable blocks; a block still reachable at exit is not shown).
    Leak,
}

impl Shows {
    /// For a property's name as results give it; `None` for properties no native run shows
    /// (termination, data races).
    pub fn of(property: &str) -> Option<Shows> {
        Some(match property {
            "unreach-call" => Shows::ErrorCall,
            "no-overflow" => Shows::SignedOverflow,
            "valid-deref" => Shows::InvalidDeref,
            "valid-free" => Shows::InvalidFree,
            "valid-memtrack" | "valid-memcleanup" => Shows::Leak,
            _ => return None,
        })
    }

    /// The sanitizer's compile and link options.
    fn flags(self) -> &'static [&'static str] {
        match self {
            Shows::ErrorCall => &[],
            Shows::SignedOverflow => &["-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all"],
            Shows::InvalidDeref | Shows::InvalidFree | Shows::Leak => {
                &["-fsanitize=address", "-fno-omit-frame-pointer"]
            }
        }
    }
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
    /// What the native run must show.
    pub shows: Shows,
    /// For a leak: the blocks the confirmed run loses (allocation lines and size); a native
    /// leak of another block is no reproduction (issue 51 cause 7).
    pub blocks: Vec<witness_core::verdict::LostBlock>,
}

impl Expected {
    /// The confirmed run's place, for messages: `line 8`, `lines 8-9`, `no line`.
    fn wanted(&self) -> String {
        match self.lines {
            Some((a, b)) if a == b => format!("line {a}"),
            Some((a, b)) => format!("lines {a}-{b}"),
            None => "no line".to_string(),
        }
    }
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
        return Replay::not_run(format!("cannot create {}: {e}", dir.display()));
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
                return Replay::not_run(format!("cannot write {}: {e}", copy.display()));
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
            c.args([model, "-g", "-w", "-O0"]).args(expected.shows.flags()).arg("-iquote").arg(quote_dir);
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
            c.args([model, "-no-pie", "-w", "-O0", "-DWITNESS_CHECK_REPLAY"])
                .args(expected.shows.flags())
                .arg("-o")
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
                return Replay::not_run(format!("{what}: {e}"));
            }
        };
        if !done.status.success() {
            let msg = String::from_utf8_lossy(&done.stderr);
            let first = msg.lines().find(|l| l.contains("error")).unwrap_or("").trim().to_string();
            let _ = std::fs::remove_dir_all(&dir);
            return Replay::not_run(format!("{what}: {first}"));
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
    let mut cmd = Command::new(exe);
    // Leaks are looked for at exit; a report ends the run with the sanitizers' usual status.
    // LeakSanitizer lists each leaked object with its size (`report_objects`).
    cmd.env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:symbolize=1")
        .env("LSAN_OPTIONS", "report_objects=1")
        .env("UBSAN_OPTIONS", "print_stacktrace=0:halt_on_error=1");
    let mut child = match cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => return Replay::not_run(format!("cannot run the harness: {e}")),
    };
    let Some(status) = wait_within(&mut child, RUN_LIMIT) else {
        return Replay {
            reproduced: false,
            ran: true,
            detail: format!("the native run did not end within {} s", RUN_LIMIT.as_secs()),
        };
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    if expected.shows != Shows::ErrorCall {
        return sanitized(&err, status.code(), source, expected);
    }
    let reached = err.lines().find(|l| l.starts_with(REACHED_TEXT));
    let (reproduced, detail) = error_call(&err, status.code(), reached, exe, source, expected);
    Replay { reproduced, ran: true, detail }
}

/// An `unreach-call` replay: the harness's report of the error function it reached, and where.
fn error_call(
    err: &str,
    code: Option<i32>,
    reached: Option<&str>,
    exe: &Path,
    source: &Path,
    expected: &Expected,
) -> (bool, String) {
    match (code, reached) {
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
            let wanted = expected.wanted();
            if !same_error(&expected.error, what) {
                let named = &expected.error;
                return (false, format!("the native run reaches another error: {what}{at}, not {named} ({line})"));
            }
            match (place, expected.lines) {
                (Ok(l), Some((a, b))) if (a..=b).contains(&l) => {
                    (true, format!("the native run reaches the error at line {l}: {line}"))
                }
                (Ok(l), _) => (
                    false,
                    format!(
                        "the native run reaches {what} at line {l}, another place than the confirmed run's error \
                         ({wanted}) ({line})"
                    ),
                ),
                (Err(why), _) => (
                    false,
                    format!(
                        "the native run reaches {what}, but not at a place that can be compared with the confirmed \
                         run's error ({wanted}): {why} ({line})"
                    ),
                ),
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
            (false, format!("the native run ends with {how} without the error{note}"))
        }
    }
}

/// `path:line[:column]` as a sanitizer prints a place: the line, when the file is `file`.
fn place_line(place: &str, file: &str) -> Option<u32> {
    let mut parts = place.trim().split(':');
    let path = parts.next()?;
    let line = parts.next()?.parse::<u32>().ok()?;
    (Path::new(path).file_name().is_some_and(|f| f.to_string_lossy() == file)).then_some(line)
}

/// A sanitizer replay (issue 35 item 7): the sanitizer's report, its kind against the property's,
/// and its place in the program against the confirmed run's step (for a leak, the report alone:
/// LeakSanitizer names where a block was allocated, not where it was lost).
fn sanitized(err: &str, code: Option<i32>, source: &Path, expected: &Expected) -> Replay {
    let file = source.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let ran = |reproduced: bool, detail: String| Replay { reproduced, ran: true, detail };
    let wanted = expected.wanted();
    let at_wanted =
        |line: Option<u32>| matches!((line, expected.lines), (Some(l), Some((a, b))) if (a..=b).contains(&l));
    let how = match code {
        Some(c) => format!("exit status {c}"),
        None => "a signal".to_string(),
    };
    match expected.shows {
        Shows::SignedOverflow => {
            // `program.c:19:9: runtime error: signed integer overflow: 5 - -2147483647 cannot be …`
            let Some((place, message)) = err.lines().find_map(|l| l.split_once(": runtime error: ")) else {
                return ran(false, format!("the native run ends with {how} and no report of UBSan (signed overflow)"));
            };
            let line = place_line(place, &file);
            let at = line.map(|l| format!(" at line {l}")).unwrap_or_default();
            // `INT_MIN / -1` and `INT_MIN % -1` are UBSan's `division of -2147483648 by -1 cannot be
            // represented in type 'int'`: the same overflow (issue 51 cause 7).
            let division = message.starts_with("division of ") && message.contains(" by -1 cannot be represented");
            if !(message.starts_with("signed integer overflow") || message.starts_with("negation of") || division) {
                return ran(false, format!("UBSan reports another error{at}: {message}"));
            }
            if at_wanted(line) {
                ran(true, format!("UBSan reports the overflow{at}: {message}"))
            } else {
                ran(false, format!("UBSan reports an overflow{at}, not at the confirmed run's ({wanted}): {message}"))
            }
        }
        Shows::InvalidDeref | Shows::InvalidFree => {
            let mut lines = err.lines().skip_while(|l| !l.contains("ERROR: AddressSanitizer: "));
            let Some(report) = lines.next() else {
                return ran(false, format!("the native run ends with {how} and no report of AddressSanitizer"));
            };
            // `heap-buffer-overflow on address 0x…`, `attempting double-free on 0x…`,
            // `attempting free on address which was not malloc()-ed: 0x…`, `SEGV on unknown address 0x…`.
            let kind = report.split_once("AddressSanitizer: ").map_or("", |(_, k)| k);
            let mut kind = kind.split("0x").next().unwrap_or(kind).trim();
            for suffix in [":", " on unknown address", " on address", " on"] {
                kind = kind.strip_suffix(suffix).unwrap_or(kind).trim_end();
            }
            let is_free = ["double-free", "not malloc()-ed", "bad-free", "alloc-dealloc-mismatch"]
                .iter()
                .any(|k| kind.contains(k));
            // The first frame in the program: `#1 0x… in main /tmp/…/program.c:34`.
            let line = lines
                .take_while(|l| !l.trim().is_empty() || l.is_empty())
                .filter(|l| l.trim_start().starts_with('#'))
                .find_map(|l| l.split_whitespace().find_map(|w| place_line(w, &file)));
            let at = line.map(|l| format!(" at line {l}")).unwrap_or_default();
            if is_free != (expected.shows == Shows::InvalidFree) {
                return ran(false, format!("AddressSanitizer reports another kind of error{at}: {kind}"));
            }
            if at_wanted(line) {
                ran(true, format!("AddressSanitizer reports {kind}{at}"))
            } else {
                ran(false, format!("AddressSanitizer reports {kind}{at}, not at the confirmed run's ({wanted})"))
            }
        }
        Shows::Leak => {
            if !err.contains("ERROR: LeakSanitizer: detected memory leaks") {
                return ran(
                    false,
                    format!(
                        "the native run ends with {how} and no leak report (LeakSanitizer reports blocks unreachable \
                         at exit; one still reachable from a global is not reported)"
                    ),
                );
            }
            leak(&leaks(err, &file), &expected.blocks, ran)
        }
        Shows::ErrorCall => ran(false, "not a sanitizer replay".into()),
    }
}

/// One leaked object in LeakSanitizer's report: the line of its allocation's first frame in the
/// program's file (`None`: no such frame), its size.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Leaked {
    line: Option<u32>,
    bytes: u64,
}

/// The objects LeakSanitizer reports (run with `report_objects=1`): each record
/// `Direct leak of 16 byte(s) in 1 object(s) allocated from:`, its frames
/// (`#1 0x… in main /tmp/…/program.c:7`), and `Objects leaked above:` with one
/// `0x… (16 bytes)` a line. A record without the object list is one object of its size when it
/// counts one, otherwise objects of unknown sizes (none is listed).
fn leaks(err: &str, file: &str) -> Vec<Leaked> {
    let mut out = Vec::new();
    let mut lines = err.lines().peekable();
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix("Direct leak of ").or_else(|| l.strip_prefix("Indirect leak of ")) else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let total = words.next().and_then(|n| n.parse::<u64>().ok());
        let count = words.nth(2).and_then(|n| n.parse::<u64>().ok());
        let mut line = None;
        while let Some(f) = lines.next_if(|f| f.trim_start().starts_with('#')) {
            if line.is_none() {
                line = f.split_whitespace().find_map(|w| place_line(w, file));
            }
        }
        while lines.next_if(|f| f.trim().is_empty()).is_some() {}
        let mut sizes = Vec::new();
        if lines.next_if(|f| f.starts_with("Objects leaked above:")).is_some() {
            while let Some(o) = lines.next_if(|o| o.starts_with("0x")) {
                if let Some(n) = o.split_once('(').and_then(|(_, r)| r.split_whitespace().next()?.parse().ok()) {
                    sizes.push(n);
                }
            }
        } else if let (Some(t), Some(1)) = (total, count) {
            sizes.push(t);
        }
        out.extend(sizes.into_iter().map(|bytes| Leaked { line, bytes }));
    }
    out
}

/// A leak replay (issue 51 cause 7): reproduced only when a leaked object is one of the blocks
/// the confirmed run loses, allocated on its step's lines with its size.
fn leak(found: &[Leaked], blocks: &[witness_core::verdict::LostBlock], ran: impl Fn(bool, String) -> Replay) -> Replay {
    let shown: Vec<String> = found
        .iter()
        .map(|l| match l.line {
            Some(n) => format!("{} bytes allocated at line {n}", l.bytes),
            None => format!("{} bytes allocated outside the program's file", l.bytes),
        })
        .collect();
    let wanted: Vec<String> = blocks
        .iter()
        .map(|b| {
            let lines = if b.line == b.end_line {
                format!("line {}", b.line)
            } else {
                format!("lines {}-{}", b.line, b.end_line)
            };
            match b.bytes {
                Some(n) => format!("{n} bytes from `{}` at {lines}", b.function),
                None => format!("a block of a symbolic size from `{}` at {lines}", b.function),
            }
        })
        .collect();
    let same = |l: &Leaked, b: &witness_core::verdict::LostBlock| {
        b.line > 0 && b.bytes == Some(l.bytes) && l.line.is_some_and(|n| (b.line..=b.end_line).contains(&n))
    };
    match found.iter().find(|l| blocks.iter().any(|b| same(l, b))) {
        Some(l) => ran(true, format!("LeakSanitizer reports the lost block at exit: {}", shown_one(l))),
        None if shown.is_empty() => {
            ran(false, "LeakSanitizer reports a leak, but no leaked object with its size and place".into())
        }
        None if wanted.is_empty() => ran(
            false,
            format!("LeakSanitizer reports {}; the confirmation names no lost block to compare", shown.join(", ")),
        ),
        None => ran(
            false,
            format!(
                "LeakSanitizer reports another leak: {}, not the block the confirmed run loses ({})",
                shown.join(", "),
                wanted.join(", ")
            ),
        ),
    }
}

fn shown_one(l: &Leaked) -> String {
    match l.line {
        Some(n) => format!("{} bytes allocated at line {n}", l.bytes),
        None => format!("{} bytes", l.bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use witness_core::verdict::LostBlock;

    const REPORT: &str = "==1==ERROR: LeakSanitizer: detected memory leaks\n\n\
        Direct leak of 4 byte(s) in 1 object(s) allocated from:\n    \
        #0 0x7f in __interceptor_malloc ../asan_malloc_linux.cpp:69\n    \
        #1 0x40 in main /tmp/x/program.c:6\n    #2 0x7f in __libc_start_call_main libc.h:58\n\n\
        Objects leaked above:\n0x602000000010 (4 bytes)\n\n\
        Indirect leak of 24 byte(s) in 2 object(s) allocated from:\n    \
        #0 0x7f in __interceptor_malloc ../asan_malloc_linux.cpp:69\n    #1 0x41 in mk /tmp/x/program.c:3\n\n\
        Objects leaked above:\n0x602000000030 (16 bytes)\n0x602000000050 (8 bytes)\n\n\
        SUMMARY: AddressSanitizer: 28 byte(s) leaked in 3 allocation(s).\n";

    fn block(line: u32, bytes: Option<u64>) -> LostBlock {
        LostBlock { function: "malloc".into(), line, end_line: line, bytes }
    }

    #[test]
    fn each_leaked_object_has_its_allocation_line_and_size() {
        let found = leaks(REPORT, "program.c");
        let want = [(6, 4), (3, 16), (3, 8)].map(|(l, b)| Leaked { line: Some(l), bytes: b });
        assert_eq!(found, want);
        assert!(leaks(REPORT, "other.c").iter().all(|l| l.line.is_none()));
    }

    #[test]
    fn a_leak_reproduces_only_the_block_of_the_confirmed_line_and_size() {
        let found = leaks(REPORT, "program.c");
        let ran = |reproduced: bool, detail: String| Replay { reproduced, ran: true, detail };
        assert!(leak(&found, &[block(3, Some(8))], ran).reproduced);
        assert!(leak(&found, &[block(9, Some(1)), block(6, Some(4))], ran).reproduced);
        // Another line, another size, a symbolic size, no block named.
        assert!(!leak(&found, &[block(7, Some(4))], ran).reproduced);
        assert!(!leak(&found, &[block(6, Some(16))], ran).reproduced);
        assert!(!leak(&found, &[block(6, None)], ran).reproduced);
        let none = leak(&found, &[], ran);
        assert!(!none.reproduced && none.detail.contains("names no lost block"), "{}", none.detail);
    }
}
