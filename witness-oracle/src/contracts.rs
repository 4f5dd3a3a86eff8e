//! Issue 51 item 2: the oracle for function contracts (YAML 2.1 `function_contract`,
//! `format: acsl_expression`). A generated program calls one function `f(x)` from `main`,
//! once or, on a long run, `n * S` times (`S` 200 to 800: past the bounded refutations, so that
//! the native refutation decides). `f` may assign its formal parameter before it returns
//! (`x = x + A; return x + B;`), and its argument may lie near `UINT_MAX`, where C's unsigned
//! arithmetic wraps and ACSL's does not. Every input of the small domain is run natively (gcc,
//! `-m32`), printing each call's argument at entry and its result.
//!
//! The truth is computed over those calls by ACSL's rules, in unbounded integers (decision 232's
//! reading of `acsl_expression`): `requires` must hold at every entry, `ensures` at every
//! return from an entry that satisfied it, a formal parameter in `ensures` meaning its value
//! at entry (decision 231). Mutations: a bound moved by one, the formal read at exit
//! (`\result == x + B`, true only if `x` meant its value at return), an `ensures` that holds in
//! C's wrapping arithmetic but not in unbounded integers. A `true` on a contract some call
//! breaks, or a `false` on one every call keeps, is a mismatch; a definite answer is compared
//! with the full search's (decision 238).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use proptest::prelude::RngExt;
use proptest::test_runner::TestRng;

pub use crate::round::{Judgement, Round};
use witness_core::cfa::DataModel;
use witness_core::validate::ValidateOptions;

const UINT_MAX: i128 = 4_294_967_295;

/// A generated program.
#[derive(Debug, Clone)]
pub struct Program {
    pub text: String,
    /// The native text: `f` renamed, a wrapper that prints each call.
    native: String,
    /// `unsigned int` (wrapping) or `int` (kept far from its limits).
    unsigned: bool,
    /// `x = x + A;` in `f` (0: the formal is not assigned), and `return x + B;`.
    a: i128,
    b: i128,
    /// The line of `f`'s definition.
    f_line: usize,
    domain: u32,
    /// The long run's factor (1: one call).
    scale: i64,
}

/// A contract's `requires`: `lo <= x && x <= hi`.
#[derive(Debug, Clone, Copy)]
struct Requires {
    lo: i128,
    hi: i128,
}

/// A contract's `ensures`.
#[derive(Debug, Clone, Copy)]
enum Ensures {
    /// `\result == x + c` (x at entry)
    EqX(i128),
    /// `\result == \old(x) + c`
    EqOld(i128),
    /// `\result >= x`
    GeX,
    /// `\result <= c`
    Le(i128),
}

/// One case: a program, its contract, the truth.
#[derive(Debug, Clone)]
pub struct Case {
    pub program: Program,
    requires: Requires,
    ensures: Ensures,
    pub valid: bool,
    pub mutation: &'static str,
}

fn requires_text(r: &Requires) -> String {
    format!("{} <= x && x <= {}", r.lo, r.hi)
}

fn ensures_text(e: &Ensures) -> String {
    match *e {
        Ensures::EqX(c) => format!("\\\\result == x + {c}"),
        Ensures::EqOld(c) => format!("\\\\result == \\\\old(x) + {c}"),
        Ensures::GeX => "\\\\result >= x".into(),
        Ensures::Le(c) => format!("\\\\result <= {c}"),
    }
}

/// Does the call `(x at entry, result)` keep the contract, in unbounded integers?
fn keeps(r: &Requires, e: &Ensures, x: i128, res: i128) -> bool {
    if !(r.lo <= x && x <= r.hi) {
        return false;
    }
    match *e {
        Ensures::EqX(c) | Ensures::EqOld(c) => res == x + c,
        Ensures::GeX => res >= x,
        Ensures::Le(c) => res <= c,
    }
}

/// A random program of the family (see the module comment).
pub fn generate(rng: &mut TestRng) -> Program {
    let unsigned = rng.random_bool(0.6);
    let a = if rng.random_bool(0.6) { rng.random_range(1..4i64) as i128 } else { 0 };
    let b = rng.random_range(0..3i64) as i128;
    let domain = rng.random_range(2..5u32);
    let scale = if rng.random_bool(0.25) { rng.random_range(200..800i64) } else { 1 };
    let ty = if unsigned { "unsigned int" } else { "int" };
    // Near UINT_MAX half of the time an unsigned argument is: the additions may wrap.
    let base: i128 = if unsigned && rng.random_bool(0.5) {
        UINT_MAX - rng.random_range(0..8i64) as i128
    } else {
        rng.random_range(0..20i64) as i128
    };
    let suffix = if unsigned { "U" } else { "" };
    let mut head = String::new();
    head.push_str("extern unsigned char __VERIFIER_nondet_uchar(void);\n");
    let f_line = head.lines().count() + 1;
    let mut f = format!("{ty} f({ty} x) {{\n");
    if a > 0 {
        let _ = writeln!(f, "  x = x + {a}{suffix};");
    }
    let _ = writeln!(f, "  return x + {b}{suffix};\n}}");
    let mut main = String::from("int main(void) {\n");
    let _ = writeln!(main, "  {ty} n = __VERIFIER_nondet_uchar() % {domain};");
    let _ = writeln!(main, "  {ty} base = {base}{suffix};");
    if scale == 1 {
        main.push_str("  (void)f(base + n);\n");
    } else {
        let _ = writeln!(main, "  for ({ty} i = 0; i < n * {scale}; i++) {{\n    (void)f(base + i % 3{suffix});\n  }}");
    }
    main.push_str("  return 0;\n}\n");
    let text = format!("{head}{f}{main}");
    let wrapper = format!(
        "{ty} __wc_f({ty} x);\n{ty} f({ty} x) {{ {ty} r = __wc_f(x); __wc_call((long long)x, (long long)r); return r; }}\n"
    );
    let native = format!(
        "{head}void __wc_call(long long, long long);\n{}{wrapper}{}",
        f.replacen(&format!("{ty} f("), &format!("{ty} __wc_f("), 1),
        main.replacen("int main(void)", "int __wc_main(void)", 1)
    );
    Program { text, native, unsigned, a, b, f_line, domain, scale }
}

const DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
static unsigned char wc_in; static int wc_k;
unsigned char __VERIFIER_nondet_uchar(void) { return wc_k++ == 0 ? wc_in : 0; }
void __wc_call(long long x, long long r) { printf("C %lld %lld\n", x, r); }
int __wc_main(void);
int main(int argc, char **argv) {
  int d = atoi(argv[1]);
  for (int a = 0; a < d; a++) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { setvbuf(stdout, 0, _IOFBF, 1 << 20); wc_in = a; wc_k = 0; int r = __wc_main(); fflush(stdout); exit(r); }
    int st; waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) printf("BAD\n");
  }
  return 0;
}
"#;

/// Every call `(x at entry, result)` of every run (the whole input domain).
pub fn run_natively(p: &Program, dir: &Path) -> Result<Vec<(i128, i128)>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let (prog, drv, exe) = (dir.join("ct.c"), dir.join("ct-driver.c"), dir.join("ct"));
    std::fs::write(&prog, &p.native).map_err(|e| e.to_string())?;
    std::fs::write(&drv, DRIVER).map_err(|e| e.to_string())?;
    let out = Command::new("gcc")
        .args(["-m32", "-O0", "-w", "-fsanitize=undefined", "-fno-sanitize-recover=all", "-o"])
        .arg(&exe)
        .arg(&drv)
        .arg(&prog)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("gcc: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")));
    }
    let run = Command::new(&exe).arg(p.domain.to_string()).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&run.stdout);
    let mut calls = Vec::new();
    for l in text.lines() {
        if l == "BAD" {
            return Err("a native run failed".into());
        }
        if let Some((x, r)) = l.strip_prefix("C ").and_then(|r| r.split_once(' ')) {
            let (Ok(x), Ok(r)) = (x.parse::<i128>(), r.parse::<i128>()) else { continue };
            // `long long` of an `unsigned int` keeps its value; of an `int`, its sign.
            calls.push((x, r));
        }
    }
    Ok(calls)
}

/// The contracts of one program and their truth.
pub fn cases(p: &Program, calls: &[(i128, i128)], rng: &mut TestRng) -> Vec<Case> {
    let mut out = Vec::new();
    if calls.is_empty() {
        return out;
    }
    let lo = calls.iter().map(|c| c.0).min().unwrap_or(0);
    let hi = calls.iter().map(|c| c.0).max().unwrap_or(0);
    let rmax = calls.iter().map(|c| c.1).max().unwrap_or(0);
    let req = Requires { lo, hi };
    let mut push = |requires: Requires, ensures: Ensures, mutation: &'static str| {
        let valid = calls.iter().all(|&(x, r)| keeps(&requires, &ensures, x, r));
        out.push(Case { program: p.clone(), requires, ensures, valid, mutation });
    };
    // The exact relation at entry, in unbounded integers (false where C's addition wrapped).
    let exact = if rng.random_bool(0.3) { Ensures::EqOld(p.a + p.b) } else { Ensures::EqX(p.a + p.b) };
    push(req, exact, "entry-relation");
    push(req, Ensures::Le(rmax), "result-bound");
    push(req, Ensures::Le(rmax - 1), "result-bound-moved");
    push(req, Ensures::GeX, "result-at-least-x");
    if p.a > 0 {
        // The formal read at exit: true only if `x` meant its value at return.
        push(req, Ensures::EqX(p.b), "formal-at-exit");
    }
    let moved = if rng.random_bool(0.5) { Requires { lo: lo + 1, hi } } else { Requires { lo, hi: hi - 1 } };
    push(moved, Ensures::Le(rmax), "requires-moved");
    out
}

/// The YAML 2.1 witness of a case.
pub fn witness(c: &Case) -> String {
    format!(
        r#"- entry_type: invariant_set
  metadata:
    format_version: "2.1"
    uuid: "00000000-0000-4000-8000-000000000051"
    creation_time: "2026-12-07T00:00:00Z"
    producer:
      name: "witness-oracle"
      version: "1"
    task:
      input_files:
      - "program.c"
      input_file_hashes:
        program.c: 0000000000000000000000000000000000000000000000000000000000000000
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: "ILP32"
      language: "C"
  content:
  - contract:
      type: function_contract
      location:
        file_name: "program.c"
        line: {}
        column: 1
        function: "f"
      requires: "{}"
      ensures: "{}"
      format: acsl_expression
"#,
        c.program.f_line,
        requires_text(&c.requires),
        ensures_text(&c.ensures)
    )
}

/// Validates a case in-process (native runs as the command line makes them) and judges the
/// answer; a definite answer is compared with the full search's.
pub fn check(c: &Case, dir: &Path, timeout: Duration, tally: &mut crate::shortcuts::Tally) -> (Judgement, String) {
    let _ = std::fs::create_dir_all(dir);
    let (prog, wit, prp) = (dir.join("program.c"), dir.join("witness.yml"), dir.join("property.prp"));
    let written = std::fs::write(&prog, &c.program.text)
        .and_then(|_| std::fs::write(&wit, witness(c)))
        .and_then(|_| std::fs::write(&prp, "CHECK( init(main()), LTL(G ! call(reach_error())) )\n"));
    if let Err(e) = written {
        return (Judgement::Unknown, e.to_string());
    }
    let runner = std::sync::Arc::new(witness_check::native_run::GccRunner::new(&prog));
    let opts = ValidateOptions::new(&prog, &wit)
        .with_property(&prp)
        .with_data_model(DataModel::Ilp32)
        .with_timeout(timeout)
        .with_native(runner);
    crate::shortcuts::judge_correctness(&opts, c.valid, tally)
}

/// `programs` programs from `seed` (each with its cases), in `work`.
pub fn round(
    seed: u64,
    programs: usize,
    work: &Path,
    timeout: Duration,
    deadline: Option<std::time::Instant>,
) -> Round {
    let mut rng = crate::round::seeded(seed, 0x51);
    let mut r = Round::default();
    for k in 0..programs {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        let p = generate(&mut rng);
        let dir = work.join(format!("ct-{seed}-{k}"));
        let t0 = std::time::Instant::now();
        let native = run_natively(&p, &dir);
        r.native_secs += t0.elapsed().as_secs_f64();
        let Ok(calls) = native else { continue };
        let t0 = std::time::Instant::now();
        r.programs += 1;
        for c in cases(&p, &calls, &mut rng) {
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                break;
            }
            r.cases += 1;
            r.valid += c.valid as usize;
            for k in [
                "contract",
                c.mutation,
                if c.program.unsigned { "unsigned" } else { "signed" },
                if c.program.scale > 1 { "long-run" } else { "short-run" },
            ] {
                *r.mix.entry(k).or_default() += 1;
            }
            let (j, reason) = check(&c, &dir, timeout, &mut r.shortcuts);
            r.judged(j, &reason, || {
                format!(
                    "{}, requires `{}`, ensures `{}`, {reason}):\n{}",
                    c.mutation,
                    requires_text(&c.requires),
                    ensures_text(&c.ensures),
                    c.program.text
                )
            });
        }
        r.validate_secs += t0.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&dir);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ACSL's unbounded integers: `\result == x + 1` is broken by a call whose C addition
    /// wrapped, and a formal means its value at entry.
    #[test]
    fn the_truth_reads_acsl() {
        let req = Requires { lo: 0, hi: UINT_MAX };
        assert!(keeps(&req, &Ensures::EqX(1), 5, 6));
        assert!(!keeps(&req, &Ensures::EqX(1), UINT_MAX, 0));
        assert!(!keeps(&req, &Ensures::GeX, UINT_MAX, 0));
        assert!(!keeps(&Requires { lo: 1, hi: 3 }, &Ensures::Le(100), 0, 1));
    }
}
