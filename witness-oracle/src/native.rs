//! Native runs: the instrumented program is compiled once with gcc and sanitizers, linked with
//! a fork-server harness that runs it once per input vector and logs what each run did.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The harness linked with every instrumented program. `main` reads one input vector per line
/// (comma-separated hexadecimal 64-bit patterns), forks, and runs the program's `main`
/// (`__wc_main`) in the child with stdout and stderr going to `<dir>/<k>.log`. The log holds
/// `A id` (a statement line reached), `B id 0|1` (a branch decided), `N value` (a nondet value
/// returned, converted to its type), `R` (reach_error called), and the sanitizers' reports.
pub const HARNESS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
static unsigned long long wc_vals[256];
static int wc_n, wc_i;
static unsigned long long wc_next(void) { unsigned long long v = wc_i < wc_n ? wc_vals[wc_i] : 0ULL; wc_i++; return v; }
#define WC_S(name, T) T __VERIFIER_nondet_##name(void) { T v = (T)wc_next(); fprintf(stderr, "N %lld\n", (long long)v); return v; }
#define WC_U(name, T) T __VERIFIER_nondet_##name(void) { T v = (T)wc_next(); fprintf(stderr, "N %llu\n", (unsigned long long)v); return v; }
WC_S(char, char) WC_U(uchar, unsigned char) WC_S(short, short) WC_U(ushort, unsigned short)
WC_S(int, int) WC_U(uint, unsigned int) WC_S(long, long) WC_U(ulong, unsigned long)
WC_S(longlong, long long) WC_U(ulonglong, unsigned long long) WC_U(bool, _Bool)
void __wc_at(int id) { fprintf(stderr, "A %d\n", id); }
int __wc_br(int id, int c) { fprintf(stderr, "B %d %d\n", id, c != 0); return c != 0; }
void reach_error(void) { fprintf(stderr, "R\n"); _Exit(99); }
int __wc_main(void);
/* Overwrites the stack below the caller, where the program's frames were, so that a pointer
   left in a dead frame or register does not hide a leak from LeakSanitizer at exit. */
static void __attribute__((noinline)) wc_scrub(void) {
  volatile char b[1 << 16];
  for (int i = 0; i < (int)sizeof b; i++) b[i] = 0;
}
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  /* Read all input first: a child's exit() would move the shared file offset of an open stream. */
  FILE *in = fopen(argv[1], "r");
  if (!in) return 2;
  static char buf[1 << 20];
  size_t len = fread(buf, 1, sizeof buf - 1, in);
  buf[len] = 0;
  fclose(in);
  int k = 0;
  char *s = buf;
  while (*s) {
    wc_n = 0; wc_i = 0;
    while (*s && *s != '\n' && wc_n < 256) {
      wc_vals[wc_n++] = strtoull(s, &s, 16);
      if (*s == ',') s++; else break;
    }
    while (*s && *s != '\n') s++;
    if (*s == '\n') s++;
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.log", argv[2], k);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1); dup2(fd, 2); close(fd);
      alarm(5);
      int r = __wc_main();
      wc_scrub();
      exit(r);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    printf("RUN %d %s %d\n", k, WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    k++;
    /* With a third argument `stop`: end the batch at the first run that did not return 0. */
    if (argc > 3 && strcmp(argv[3], "stop") == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) break;
  }
  return 0;
}
"#;

/// What ended a native run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Returned normally, nothing reported.
    Clean,
    /// `reach_error()` was called.
    Reach,
    /// UBSan: signed integer overflow.
    Overflow,
    /// Other undefined behaviour UBSan reported.
    OtherUb,
    /// ASan: invalid read/write (out of bounds, use after free, wild or null address); UBSan:
    /// array index out of bounds.
    Deref,
    /// ASan: double or invalid free.
    Free,
    /// LeakSanitizer at exit.
    Leak,
    /// Killed (timeout) or something the log does not explain.
    Other,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Clean => "clean",
            Outcome::Reach => "reach_error",
            Outcome::Overflow => "signed-overflow",
            Outcome::OtherUb => "other-UB",
            Outcome::Deref => "invalid-deref",
            Outcome::Free => "invalid-free",
            Outcome::Leak => "leak",
            Outcome::Other => "other",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A statement line (logical id) reached.
    At(usize),
    /// A branch (logical id) decided.
    Br(usize, bool),
    /// A nondet value returned, with the logical line it was called on.
    Nondet(usize, i128),
}

#[derive(Debug, Clone)]
pub struct Run {
    /// The input vector (values as given, before conversion).
    pub inputs: Vec<i128>,
    pub events: Vec<Event>,
    pub outcome: Outcome,
    /// The logical line of the last statement reached (where the violation happened).
    pub last_line: Option<usize>,
    pub log: String,
}

impl Run {
    pub fn nondets(&self) -> Vec<i128> {
        self.events.iter().filter_map(|e| if let Event::Nondet(_, v) = e { Some(*v) } else { None }).collect()
    }
}

/// A compiled program, ready to run on many input vectors.
pub struct Binary {
    pub exe: PathBuf,
    pub dir: PathBuf,
    batch: usize,
}

/// Whether gcc (and, for `m32`, its 32-bit libraries) can build sanitized programs here.
pub fn gcc_available(dir: &Path, m32: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let src = dir.join("probe.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").map_err(|e| e.to_string())?;
    let mut c = Command::new("gcc");
    c.arg(if m32 { "-m32" } else { "-m64" })
        .args(["-fsanitize=address,undefined", "-o"])
        .arg(dir.join("probe"))
        .arg(&src);
    match c.output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "gcc {} -fsanitize=address,undefined failed: {}",
            if m32 { "-m32" } else { "-m64" },
            String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("")
        )),
        Err(e) => Err(format!("cannot run gcc: {e}")),
    }
}

/// Compiles `instrumented` with the harness in `dir` (gcc -O0, ASan+UBSan, no recovery).
pub fn compile(dir: &Path, instrumented: &str, lp64: bool) -> Result<Binary, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let prog = dir.join("instrumented.c");
    let harness = dir.join("harness.c");
    std::fs::write(&prog, instrumented).map_err(|e| e.to_string())?;
    if std::fs::read_to_string(&harness).ok().as_deref() != Some(HARNESS) {
        std::fs::write(&harness, HARNESS).map_err(|e| e.to_string())?;
    }
    let exe = dir.join("native");
    let out = Command::new("gcc")
        .arg(if lp64 { "-m64" } else { "-m32" })
        .args(["-O0", "-w", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o"])
        .arg(&exe)
        .arg(&prog)
        .arg(&harness)
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!("gcc failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(Binary { exe, dir: dir.to_path_buf(), batch: 0 })
}

/// The 64-bit pattern of `v` (two's complement), as the harness reads it.
fn hex(v: i128) -> String {
    format!("{:x}", v as u64)
}

impl Binary {
    /// Runs the program once per input vector.
    /// With `stop_at_failure`, the batch ends at the first run that does not return 0 (the
    /// runs after it are not made). `leaks`: LeakSanitizer at exit (costly: only for
    /// memory-safety programs).
    pub fn run(&mut self, vectors: &[Vec<i128>], stop_at_failure: bool, leaks: bool) -> Result<Vec<Run>, String> {
        if vectors.is_empty() {
            return Ok(Vec::new());
        }
        self.batch += 1;
        let out_dir = self.dir.join(format!("runs{}", self.batch));
        let _ = std::fs::remove_dir_all(&out_dir);
        std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
        let input = self.dir.join(format!("inputs{}.txt", self.batch));
        let mut text = String::new();
        for v in vectors {
            text.push_str(&v.iter().map(|x| hex(*x)).collect::<Vec<_>>().join(","));
            text.push('\n');
        }
        std::fs::write(&input, text).map_err(|e| e.to_string())?;
        let out = Command::new(&self.exe)
            .arg(&input)
            .arg(&out_dir)
            .args(if stop_at_failure { &["stop"][..] } else { &[][..] })
            .env(
                "ASAN_OPTIONS",
                format!("detect_leaks={}:allocator_may_return_null=1:exitcode=66:symbolize=0", leaks as u8),
            )
            .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=0:exitcode=67:symbolize=0")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.exe.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut runs = Vec::with_capacity(vectors.len());
        for (k, v) in vectors.iter().enumerate() {
            let prefix = format!("RUN {k} ");
            let Some(status) = stdout.lines().find(|l| l.starts_with(&prefix)) else { break };
            let log = std::fs::read_to_string(out_dir.join(format!("{k}.log"))).unwrap_or_default();
            runs.push(parse_run(v.clone(), log, status));
        }
        let _ = std::fs::remove_dir_all(&out_dir);
        let _ = std::fs::remove_file(&input);
        Ok(runs)
    }
}

fn parse_run(inputs: Vec<i128>, log: String, status: &str) -> Run {
    let mut events = Vec::new();
    let mut last = None;
    let mut reach = false;
    for l in log.lines() {
        let mut it = l.split(' ');
        match (it.next(), it.next(), it.next(), it.next()) {
            (Some("A"), Some(id), None, None) => {
                if let Ok(id) = id.parse() {
                    last = Some(id);
                    events.push(Event::At(id));
                }
            }
            (Some("B"), Some(id), Some(c), None) => {
                if let Ok(id) = id.parse() {
                    events.push(Event::Br(id, c == "1"));
                }
            }
            (Some("N"), Some(v), None, None) => {
                if let Ok(v) = v.parse() {
                    events.push(Event::Nondet(last.unwrap_or(usize::MAX), v));
                }
            }
            (Some("R"), None, None, None) => reach = true,
            _ => {}
        }
    }
    let outcome = if reach {
        Outcome::Reach
    } else if log.contains("runtime error: signed integer overflow") || log.contains("runtime error: negation of") {
        Outcome::Overflow
    } else if log.contains("runtime error: index") && log.contains("out of bounds") {
        // UBSan's bounds check: an array indexed out of its bounds (an invalid access).
        Outcome::Deref
    } else if log.contains("runtime error:") {
        Outcome::OtherUb
    } else if log.contains("ERROR: LeakSanitizer") {
        Outcome::Leak
    } else if log.contains("attempting double-free") || log.contains("attempting free on address") {
        Outcome::Free
    } else if log.contains("ERROR: AddressSanitizer") {
        Outcome::Deref
    } else if status.ends_with("exit 0") {
        Outcome::Clean
    } else {
        Outcome::Other
    };
    Run { inputs, events, outcome, last_line: last, log }
}
