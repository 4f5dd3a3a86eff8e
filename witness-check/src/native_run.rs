//! The gcc runner of native jobs (decision 222): compiles the instrumented program with
//! UBSan and AddressSanitizer (`-O2`, automatic variables initialised to zero: an uninitialised
//! local has some value, as the interpreter reads it) and the job's harness, the program's
//! error functions weakened so that the harness's report reaching them, and runs it with a
//! time limit. A run concludes only when no sanitizer reported anything.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use witness_core::harness::{ERROR_FUNCTIONS, REACHED_STATUS, REACHED_TEXT};
use witness_core::native::{NativeJob, NativeOutcome, NativeRunner, BROKEN_STATUS, BROKEN_TEXT, CALLS_TEXT};

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
        GccRunner {
            dir: std::env::temp_dir().join(format!("witness-check-native-{}", std::process::id())),
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
        // interpreter computes; no optimisation that reads more into the program than C says
        // (type-based aliasing; loops assumed to end are C++'s rule, off for C anyway).
        let model: &[&str] = if job.ilp32 { &["-m32", "-msse2", "-mfpmath=sse"] } else { &["-m64"] };
        let flags = [
            "-w",
            "-O2",
            "-fno-strict-aliasing",
            "-fno-finite-loops",
            "-ffp-contract=off",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-ftrivial-auto-var-init=zero",
        ];
        let mut compile = Command::new("gcc");
        compile
            .args(model)
            .args(flags)
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
        let mut link = Command::new("gcc");
        link.args(model).args(flags).arg("-o").arg(&exe).arg(&object).arg(&harness).arg("-lm");
        for (what, mut cmd) in [("compile", compile), ("objcopy", weaken), ("link", link)] {
            let out = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output().map_err(|e| format!("{what}: {e}"))?;
            if !out.status.success() {
                let msg = String::from_utf8_lossy(&out.stderr);
                let first = msg.lines().find(|l| l.contains("error")).unwrap_or("").trim().to_string();
                return Err(format!("{what} failed: {first}"));
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
        let mut cmd = Command::new(&exe);
        // A processor-time limit of its own: the run ends even if this process is ended first.
        let cpu_secs = limit.as_secs() + 2;
        // SAFETY: between fork and exec the closure only calls `setrlimit`, which is
        // async-signal-safe, on a value it owns.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                let l = libc::rlimit { rlim_cur: cpu_secs, rlim_max: cpu_secs };
                libc::setrlimit(libc::RLIMIT_CPU, &l);
                Ok(())
            });
        }
        let child = cmd
            .env("WITNESS_CHECK_NONDET", value.to_string())
            .env("WITNESS_CHECK_TOKEN", &token)
            .env("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
            .env("UBSAN_OPTIONS", "print_stacktrace=0:halt_on_error=1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => return NativeOutcome::Nothing(format!("cannot run the program: {e}")),
        };
        let Some(status) = crate::replay::wait_within(&mut child, limit) else {
            return NativeOutcome::Nothing(format!("the run did not end within {:.1} s", limit.as_secs_f64()));
        };
        let err = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
        let _ = std::fs::remove_file(&log);
        outcome(&err, status.code(), &token)
    }
}

/// What the run's standard error and status show.
fn outcome(err: &str, code: Option<i32>, token: &str) -> NativeOutcome {
    if err.contains("runtime error:") || err.contains("Sanitizer") {
        return NativeOutcome::Nothing("a sanitizer reported undefined behaviour".into());
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
    NativeOutcome::Nothing(format!("the run ended (status {code:?}) with every checked invariant true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_counts_only_with_the_runs_token_and_no_sanitizer_finding() {
        let report = format!("{BROKEN_TEXT} 2 abc\nx=4294967292\n{CALLS_TEXT} 7\n");
        assert_eq!(
            outcome(&report, Some(BROKEN_STATUS), "abc"),
            NativeOutcome::Broken { check: 2, values: "x = 4294967292".into(), calls: 7 }
        );
        assert!(matches!(outcome(&report, Some(BROKEN_STATUS), "other"), NativeOutcome::Nothing(_)));
        let with_ub = format!("p.c:3:5: runtime error: signed integer overflow\n{report}");
        assert!(matches!(outcome(&with_ub, Some(BROKEN_STATUS), "abc"), NativeOutcome::Nothing(_)));
        let reached = format!("{REACHED_TEXT} (reach_error)\n{CALLS_TEXT} 3\n");
        assert_eq!(
            outcome(&reached, Some(REACHED_STATUS), "abc"),
            NativeOutcome::Reached { what: "reach_error".into(), calls: 3 }
        );
    }
}
