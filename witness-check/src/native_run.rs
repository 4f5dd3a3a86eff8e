//! The gcc runner of native jobs (decision 222): compiles the instrumented program with
//! UBSan and AddressSanitizer and the job's harness, the program's error functions weakened so
//! that the harness's report reaching them, and runs it with a time limit. A run concludes only
//! when no sanitizer reported anything (issue 51 cause 3, decision 233): every check gcc has
//! for the undefined behaviour the interpreter knows is on (`float-cast-overflow`,
//! `bounds-strict`, pointer comparison and subtraction across objects, stack use after return
//! or scope, `memcpy` overlap through the library's interceptors), the program is compiled
//! `-O0` (no optimisation that presumes the absence of undefined behaviour before a check sees
//! it), automatic variables are initialised to zero (an uninitialised local has some value, as
//! the interpreter reads it), and a program gcc warns about for unsequenced modifications or a
//! function falling off its end without a value is not run (the job itself leaves out what gcc
//! cannot see at all: `witness_core::native::job`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use witness_core::harness::{ERROR_FUNCTIONS, REACHED_STATUS, REACHED_TEXT};
use witness_core::native::{NativeJob, NativeOutcome, NativeRunner, BROKEN_STATUS, BROKEN_TEXT, CALLS_TEXT};

/// The compile and link options of a native run (the harness, this validator's own C, is
/// compiled with `-O2` instead: see `build`). `-O0`: no optimisation reads more into the
/// program than the checks see (at `-O2` gcc may use an undefined operation to drop or reorder
/// code before its check runs, and it uses `restrict` and type-based aliasing, which nothing
/// checks); `-fno-builtin`: `memcpy` and friends are the library's, whose AddressSanitizer
/// interceptors check overlaps and bounds. Every check of `-fsanitize=undefined`, and those of
/// its kind outside the group: a float converted to an integer it does not fit
/// (`float-cast-overflow`, undefined: C11 6.3.1.4), an index past an array member at the end of
/// a struct (`bounds-strict`), relational comparisons and differences of pointers into different
/// objects (`pointer-compare`, `pointer-subtract`, with `detect_invalid_pointer_pairs`). Not
/// `float-divide-by-zero`: IEEE division, defined in the interpreter (`semantics/float.rs`).
const FLAGS: &[&str] = &[
    "-O0",
    "-fno-builtin",
    "-fno-strict-aliasing",
    "-fno-finite-loops",
    "-ffp-contract=off",
    "-fsanitize=address,undefined,float-cast-overflow,bounds-strict,pointer-compare,pointer-subtract",
    "-fno-sanitize-recover=all",
    "-ftrivial-auto-var-init=zero",
];

/// The program's compile asks gcc for the warnings that name undefined behaviour no sanitizer
/// sees (the others are ignored): unsequenced modifications of an object (C11 6.5p2), and a
/// function that may fall off its end without a value (using that value is undefined, C11
/// 6.9.1p12).
const WARNINGS: &[&str] = &["-Wsequence-point", "-Wreturn-type"];

/// The runtime options of AddressSanitizer for a run: no leak check (not a property of
/// invariants), the pointer-pair checks on (also with a null pointer), a returned frame's
/// locals poisoned.
const ASAN_OPTIONS: &str =
    "detect_leaks=0:abort_on_error=0:detect_invalid_pointer_pairs=2:detect_stack_use_after_return=1";

/// Why a run of a program gcc warned about this way would show nothing: the warning, at the
/// line of the program file (`header` lines of the job's text precede it).
fn unchecked_warning(stderr: &str, header: u32) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains("[-Wsequence-point]") || l.contains("[-Wreturn-type]"))?;
    // `program.c:7:5: warning: operation on 'i' may be undefined [-Wsequence-point]`
    let (place, what) = line.split_once(": warning: ").unwrap_or(("", line));
    let at = match place.split(':').nth(1).and_then(|l| l.parse::<u32>().ok()) {
        Some(l) if l > header => format!(" at line {}", l - header),
        _ => String::new(),
    };
    Some(format!("gcc warns{at}: {} (undefined behaviour that no sanitizer checks)", what.trim()))
}

/// Runs native jobs in a temporary directory of its own (removed when dropped).
#[derive(Debug)]
pub struct GccRunner {
    dir: PathBuf,
    /// The program file's directory (quoted includes) and extension (`.i`: not preprocessed again).
    quote_dir: PathBuf,
    ext: String,
    /// The executable of the last job built, by the job's program and harness text.
    built: Mutex<Option<(String, Result<PathBuf, String>)>>,
}

impl GccRunner {
    pub fn new(program: &Path) -> GccRunner {
        let ext = program.extension().and_then(|e| e.to_str()).filter(|e| *e == "i").unwrap_or("c").to_string();
        let quote_dir = program.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        // A directory per runner: the soak validates on several threads of one process.
        static RUNNERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = RUNNERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        GccRunner {
            dir: std::env::temp_dir().join(format!("witness-check-native-{}-{n}", std::process::id())),
            quote_dir,
            ext,
            built: Mutex::new(None),
        }
    }

    fn build(&self, job: &NativeJob) -> Result<PathBuf, String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let source = self.dir.join(format!("program.{}", self.ext));
        let harness = self.dir.join("harness.c");
        let object = self.dir.join("program.o");
        let exe = self.dir.join("run");
        std::fs::write(&source, &job.program).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        std::fs::write(&harness, &job.harness).map_err(|e| format!("cannot write {}: {e}", harness.display()))?;
        // `-m32` with SSE arithmetic: IEEE `double`s without the x87's excess precision, as the
        // interpreter computes.
        let model: &[&str] = if job.ilp32 { &["-m32", "-msse2", "-mfpmath=sse"] } else { &["-m64"] };
        let mut compile = Command::new("gcc");
        compile
            .env("LC_ALL", "C")
            .args(model)
            .args(FLAGS)
            .args(WARNINGS)
            .arg("-iquote")
            .arg(&self.quote_dir)
            .arg("-c")
            .arg("-o")
            .arg(&object)
            .arg(&source);
        let mut weaken = Command::new("objcopy");
        for f in ERROR_FUNCTIONS {
            weaken.arg(format!("--weaken-symbol={f}"));
        }
        weaken.arg(&object);
        // The harness is this validator's own C (no undefined behaviour): `-O2`, so that its nondet
        // functions, called once a loop pass, do not slow the run (`cd-mod4-r1`: 12.5 s at `-O0`,
        // 6 s at `-O2`, about the time of decision 222's run).
        let harness_flags = FLAGS.iter().map(|f| if *f == "-O0" { "-O2" } else { f });
        let mut link = Command::new("gcc");
        link.args(model).args(harness_flags).arg("-w").arg("-o").arg(&exe).arg(&object).arg(&harness).arg("-lm");
        for (what, mut cmd) in [("compile", compile), ("objcopy", weaken), ("link", link)] {
            let out = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output().map_err(|e| format!("{what}: {e}"))?;
            let msg = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                let first = msg.lines().find(|l| l.contains("error")).unwrap_or("").trim().to_string();
                return Err(format!("{what} failed: {first}"));
            }
            if let Some(why) = unchecked_warning(&msg, job.header_lines) {
                return Err(why);
            }
        }
        Ok(exe)
    }

    fn executable(&self, job: &NativeJob) -> Result<PathBuf, String> {
        let key = format!("{}\u{0}{}", job.program, job.harness);
        let mut built = self.built.lock().map_err(|_| "the runner's lock is poisoned".to_string())?;
        if let Some((k, exe)) = built.as_ref() {
            if *k == key {
                return exe.clone();
            }
        }
        let exe = self.build(job);
        *built = Some((key, exe.clone()));
        exe
    }
}

impl Drop for GccRunner {
    fn drop(&mut self) {
        self.finish();
    }
}

impl NativeRunner for GccRunner {
    fn finish(&self) {
        if let Ok(mut built) = self.built.lock() {
            *built = None;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    fn run(&self, job: &NativeJob, value: i64, limit: Duration) -> NativeOutcome {
        let started = Instant::now();
        let exe = match self.executable(job) {
            Ok(e) => e,
            Err(why) => return NativeOutcome::Nothing(why),
        };
        let limit = limit.saturating_sub(started.elapsed());
        // A token the program cannot know, printed with a check's report.
        let token = format!("{:x}", started.elapsed().as_nanos() ^ u128::from(std::process::id()) << 32);
        let log = self.dir.join(format!("stderr-{value}.txt"));
        let Ok(file) = std::fs::File::create(&log) else {
            return NativeOutcome::Nothing(format!("cannot write {}", log.display()));
        };
        let child = Command::new(&exe)
            .env("WITNESS_CHECK_NONDET", value.to_string())
            .env("WITNESS_CHECK_TOKEN", &token)
            .env("ASAN_OPTIONS", ASAN_OPTIONS)
            .env("UBSAN_OPTIONS", "print_stacktrace=0:halt_on_error=1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => return NativeOutcome::Nothing(format!("cannot run the program: {e}")),
        };
        // A processor-time limit of its own: the run ends even if this process is ended first.
        // It is set from here, after the spawn, and not in a `pre_exec` closure: a closure makes
        // the standard library `fork` this (multi-threaded, Z3-allocating) process instead of
        // using `posix_spawn`, and the soak's heap was corrupted on that path (decision 242).
        // The processor time the child spent before the call counts against the limit too.
        let cpu_secs = limit.as_secs() + 2;
        let l = libc::rlimit { rlim_cur: cpu_secs, rlim_max: cpu_secs };
        // SAFETY: `prlimit` reads `l`, which lives across the call, and writes nothing (null).
        unsafe {
            libc::prlimit(child.id() as libc::pid_t, libc::RLIMIT_CPU, &l, std::ptr::null_mut());
        }
        let Some(status) = wait_within(&mut child, limit) else {
            return NativeOutcome::Nothing(format!("the run did not end within {:.1} s", limit.as_secs_f64()));
        };
        let err = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
        let _ = std::fs::remove_file(&log);
        outcome(&err, status.code(), &token, job.header_lines)
    }
}

/// What the run's standard error and status show (`header`: lines of the job's program text
/// before the program's first).
fn outcome(err: &str, code: Option<i32>, token: &str, header: u32) -> NativeOutcome {
    if err.contains("runtime error:") || err.contains("Sanitizer") {
        return NativeOutcome::Nothing(format!(
            "a sanitizer reports undefined behaviour: {}",
            sanitizer_report(err, header)
        ));
    }
    let calls =
        err.lines().rev().find_map(|l| l.strip_prefix(CALLS_TEXT)).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    if code == Some(BROKEN_STATUS) {
        let mut lines = err.lines().skip_while(|l| !l.starts_with(BROKEN_TEXT));
        let Some(head) = lines.next() else {
            return NativeOutcome::Nothing("a run ended with the checks' status".into());
        };
        let mut words = head[BROKEN_TEXT.len()..].split_whitespace();
        let (Some(check), Some(t)) = (words.next().and_then(|c| c.parse().ok()), words.next()) else {
            return NativeOutcome::Nothing("a check's report was not understood".into());
        };
        if t != token {
            return NativeOutcome::Nothing("a report without the run's token".into());
        }
        let values: Vec<String> = lines
            .take_while(|l| !l.starts_with(CALLS_TEXT))
            .filter_map(|l| l.split_once('='))
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        return NativeOutcome::Broken { check, values: values.join(", "), calls };
    }
    if code == Some(REACHED_STATUS) {
        if let Some(what) = err.lines().find_map(|l| l.strip_prefix(REACHED_TEXT)) {
            let what = what.trim().trim_start_matches('(').trim_end_matches(')').to_string();
            return NativeOutcome::Reached { what, calls };
        }
    }
    match code {
        Some(status) => NativeOutcome::Ended { status, calls },
        None => NativeOutcome::Nothing("the run was ended by a signal".into()),
    }
}

/// The sanitizer's report in a few words: UBSan's message at its line of the program file
/// (`program.c:9:7: runtime error: …`), or AddressSanitizer's error line.
fn sanitizer_report(err: &str, header: u32) -> String {
    if let Some((place, message)) = err.lines().find_map(|l| l.split_once(": runtime error: ")) {
        let line = place.rsplit(':').nth(1).and_then(|l| l.parse::<u32>().ok()).filter(|l| *l > header);
        return match line {
            Some(l) => format!("{} at line {}", message.trim(), l - header),
            None => message.trim().to_string(),
        };
    }
    let report = err.lines().find_map(|l| l.split_once("ERROR: ").map(|(_, r)| r));
    report.map(|r| r.split(" on address").next().unwrap_or(r).trim().to_string()).unwrap_or_default()
}

/// The child's exit status, or `None` (the child killed) when it does not end within `limit`.
pub fn wait_within(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_counts_only_with_the_runs_token_and_no_sanitizer_finding() {
        let report = format!("{BROKEN_TEXT} 2 abc\nx=4294967292\n{CALLS_TEXT} 7\n");
        assert_eq!(
            outcome(&report, Some(BROKEN_STATUS), "abc", 0),
            NativeOutcome::Broken { check: 2, values: "x = 4294967292".into(), calls: 7 }
        );
        assert!(matches!(outcome(&report, Some(BROKEN_STATUS), "other", 0), NativeOutcome::Nothing(_)));
        let with_ub = format!("p.c:3:5: runtime error: signed integer overflow\n{report}");
        assert!(matches!(outcome(&with_ub, Some(BROKEN_STATUS), "abc", 0), NativeOutcome::Nothing(_)));
        let reached = format!("{REACHED_TEXT} (reach_error)\n{CALLS_TEXT} 3\n");
        assert_eq!(
            outcome(&reached, Some(REACHED_STATUS), "abc", 0),
            NativeOutcome::Reached { what: "reach_error".into(), calls: 3 }
        );
    }

    #[test]
    fn undefined_behaviour_no_sanitizer_sees_leaves_the_run_out_with_its_line() {
        let warn = "program.c: In function 'main':\nprogram.c:9:7: warning: operation on 'i' may be undefined \
                    [-Wsequence-point]\n";
        assert_eq!(
            unchecked_warning(warn, 3).as_deref(),
            Some(
                "gcc warns at line 6: operation on 'i' may be undefined [-Wsequence-point] (undefined behaviour \
                 that no sanitizer checks)"
            )
        );
        let other = "program.c:9:7: warning: unused variable 'k' [-Wunused-variable]\n";
        assert_eq!(unchecked_warning(other, 3), None);
        let ubsan = "program.c:17:17: runtime error: 2.14748e+09 is outside the range of representable values of \
                     type 'int'\n";
        match outcome(ubsan, Some(1), "abc", 2) {
            NativeOutcome::Nothing(why) => assert_eq!(
                why,
                "a sanitizer reports undefined behaviour: 2.14748e+09 is outside the range of representable \
                 values of type 'int' at line 15"
            ),
            other => panic!("{other:?}"),
        }
    }
}
