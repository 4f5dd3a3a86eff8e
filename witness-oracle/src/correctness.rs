//! Issue 32 item 4: the oracle for correctness witnesses. A generated program has one or two
//! inputs of a small domain (`__VERIFIER_nondet_uchar() % D`), one loop of a random form
//! (`while`, `for`, `do … while`, a `goto` loop), counters updated in its body, and possibly an
//! error call after the loop or in an `atexit` handler. Every input vector is run natively (gcc,
//! the whole domain), printing the variables at each visit of the loop head (where the format
//! places a loop invariant: before each evaluation of the condition; for `do`, before the body;
//! for the `goto` loop, at the label's statement, a location invariant) and whether
//! `reach_error` was called. Candidate invariants are built from what the runs show (bounds,
//! parity, linear relations with the counter) and mutated (a bound moved by one, a conjunct
//! dropped or swapped). The truth is exact: the domain is enumerated. A `true` on a witness
//! with an invariant some run violates, or on a program some run takes to the error, is a
//! mismatch; so is a `false` when every run keeps every invariant and none reaches the error.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use witness_core::cfa::DataModel;
use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::Verdict;

/// The loop's form.
#[derive(Debug, Clone, Copy)]
enum Form {
    While,
    For,
    DoWhile,
    Goto,
}

/// A generated program and what its native runs showed.
#[derive(Debug, Clone)]
pub struct Program {
    pub text: String,
    form: Form,
    /// 1-based (line, column) of the loop statement (or of the label's statement).
    head: (usize, usize),
    /// Names of the variables printed at the head.
    vars: Vec<&'static str>,
    /// The inputs' domain (`% domain`), x's step per pass and x's initial value.
    domain: u32,
    step: i64,
    x0: i64,
}

/// One correctness case: a program, one witness, and the truth.
#[derive(Debug, Clone)]
pub struct Case {
    pub program: Program,
    pub invariant: String,
    /// No run reaches the error and every head visit keeps the invariant.
    pub valid: bool,
    pub mutation: &'static str,
}

/// What the validator answered against the truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    Agree,
    Unknown,
    /// A wrong `true` or a wrong `false`, with what was expected.
    Mismatch(String),
}

/// A random program of the family (see the module comment).
pub fn generate(rng: &mut TestRng) -> Program {
    let form = match rng.random_range(0..4u32) {
        0 => Form::While,
        1 => Form::For,
        2 => Form::DoWhile,
        _ => Form::Goto,
    };
    let d = rng.random_range(3..7u32);
    let a = rng.random_range(1..4i32);
    let b = rng.random_range(0..3i32);
    let x0 = rng.random_range(0..3i32);
    let two_inputs = rng.random_bool(0.5);
    let parity_branch = rng.random_bool(0.5);
    // The error: none, after the loop (reachable for some inputs, or guarded by `y < 0`,
    // which no run satisfies), or in an `atexit` handler.
    let (error, guard) = match rng.random_range(0..4u32) {
        0 => (None, ">="),
        1 => (Some(false), ">="),
        2 => (Some(true), ">="),
        _ => (Some(false), "<"),
    };
    let mut s = String::new();
    s.push_str("extern void reach_error(void);\nextern unsigned char __VERIFIER_nondet_uchar(void);\n");
    s.push_str("extern int atexit(void (*f)(void));\nint g = 0;\n");
    s.push_str("void handler(void) {\n  if (g) reach_error();\n}\n");
    s.push_str("int main(void) {\n");
    let _ = writeln!(s, "  int n = __VERIFIER_nondet_uchar() % {d};");
    if two_inputs {
        let _ = writeln!(s, "  int m = __VERIFIER_nondet_uchar() % {d};");
    } else {
        s.push_str("  int m = 1;\n");
    }
    if error == Some(true) {
        s.push_str("  atexit(handler);\n");
    }
    let _ = writeln!(s, "  int i = 0, x = {x0}, y = 0;");
    let body = {
        let mut bd = String::new();
        let _ = writeln!(bd, "    x = x + {a};");
        if parity_branch {
            let _ = writeln!(bd, "    if (i % 2 == 0) y = y + {b} + m;");
        } else {
            let _ = writeln!(bd, "    y = y + {b};");
        }
        bd.push_str("    i++;\n");
        bd
    };
    let head_line = s.lines().count() + 1;
    let head_text = match form {
        Form::While => {
            let t = "  while (i < n) {\n".to_string();
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("  }\n");
            t
        }
        Form::For => {
            let t = "  for (; i < n; ) {\n".to_string();
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("  }\n");
            t
        }
        Form::DoWhile => {
            let t = "  do {\n".to_string();
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("  } while (i < n);\n");
            t
        }
        Form::Goto => {
            let t = "  L: if (i < n) {\n".to_string();
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("    goto L;\n  }\n");
            t
        }
    };
    let col = head_text.len() - head_text.trim_start().len() + 1;
    // The error: reachable for some inputs, or not at all, depending on the constant.
    let target = x0 + a * rng.random_range(0..(d as i32 + 1));
    match error {
        Some(false) => {
            let _ = writeln!(s, "  if (x == {target} && y {guard} 0) reach_error();");
        }
        Some(true) => {
            let _ = writeln!(s, "  g = (x == {target});");
        }
        None => {}
    }
    s.push_str("  return 0;\n}\n");
    Program {
        text: s,
        form,
        head: (head_line, col),
        vars: vec!["i", "x", "y", "n", "m"],
        domain: d,
        step: i64::from(a),
        x0: i64::from(x0),
    }
}

/// The instrumented text: `__wc_h(i, x, y, n, m)` at every head visit.
fn instrumented(p: &Program) -> String {
    let call = format!("__wc_h({})", p.vars.join(", "));
    let mut t = p.text.clone();
    match p.form {
        Form::While => t = t.replacen("while (i < n) {", &format!("while (({call}, i < n)) {{"), 1),
        Form::For => t = t.replacen("for (; i < n; ) {", &format!("for (; ({call}, i < n); ) {{"), 1),
        Form::DoWhile => t = t.replacen("  do {\n", &format!("  do {{ {call};\n"), 1),
        Form::Goto => t = t.replacen("L: if (i < n) {", &format!("L: {call}; if (i < n) {{"), 1),
    }
    t.replace("extern void reach_error(void);\n", "")
}

const DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
static unsigned char wc_in[2]; static int wc_k;
unsigned char __VERIFIER_nondet_uchar(void) { return wc_k < 2 ? wc_in[wc_k++] : 0; }
void __wc_h(int i, int x, int y, int n, int m) { printf("H %d %d %d %d %d\n", i, x, y, n, m); }
void reach_error(void) { printf("R\n"); fflush(stdout); _Exit(0); }
int __wc_main(void);
int main(int argc, char **argv) {
  int d = atoi(argv[1]);
  for (int a = 0; a < d; a++) for (int b = 0; b < d; b++) {
    printf("RUN %d %d\n", a, b); fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { wc_in[0] = a; wc_in[1] = b; wc_k = 0; int r = __wc_main(); fflush(stdout); exit(r); }
    int st; waitpid(pid, &st, 0);
    printf("END\n"); fflush(stdout);
  }
  return 0;
}
"#;

/// Head states `[i, x, y, n, m]` of every run, and whether some run reached the error.
pub fn run_natively(p: &Program, dir: &Path) -> Result<(Vec<[i64; 5]>, bool), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let prog = dir.join("cw.c");
    let drv = dir.join("cw-driver.c");
    let exe = dir.join("cw");
    std::fs::write(&prog, instrumented(p).replacen("int main(void)", "int __wc_main(void)", 1))
        .map_err(|e| e.to_string())?;
    std::fs::write(&drv, DRIVER).map_err(|e| e.to_string())?;
    let out = Command::new("gcc")
        .args(["-m32", "-O0", "-w", "-o"])
        .arg(&exe)
        .arg(&drv)
        .arg(&prog)
        .arg("-Wl,--unresolved-symbols=report-all")
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("gcc: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")));
    }
    // Enumerating the residues of `% domain` covers every input.
    let run = Command::new(&exe).arg(p.domain.to_string()).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&run.stdout);
    let mut heads = Vec::new();
    let mut error = false;
    for l in text.lines() {
        if l == "R" {
            error = true;
        } else if let Some(rest) = l.strip_prefix("H ") {
            let v: Vec<i64> = rest.split_whitespace().filter_map(|x| x.parse().ok()).collect();
            if let [i, x, y, n, m] = v[..] {
                heads.push([i, x, y, n, m]);
            }
        }
    }
    Ok((heads, error))
}

/// Does `inv` (one of [`candidates`]) hold in head state `s`?
fn holds(inv: &Atom, s: &[i64; 5]) -> bool {
    let v = |k: usize| s[k];
    match *inv {
        Atom::Le(k, c) => v(k) <= c,
        Atom::Ge(k, c) => v(k) >= c,
        Atom::Lin(a, b) => v(1) == a * v(0) + b,
        Atom::Parity(k, r) => v(k).rem_euclid(2) == r,
        Atom::ILeN => v(0) <= v(3),
    }
}

/// An atom of a candidate invariant over `[i, x, y, n, m]`.
#[derive(Debug, Clone, Copy)]
enum Atom {
    Le(usize, i64),
    Ge(usize, i64),
    /// x == a * i + b
    Lin(i64, i64),
    Parity(usize, i64),
    /// i <= n
    ILeN,
}

const NAMES: [&str; 5] = ["i", "x", "y", "n", "m"];

fn text(a: &Atom) -> String {
    match *a {
        Atom::Le(k, c) => format!("{} <= {c}", NAMES[k]),
        Atom::Ge(k, c) => format!("{} >= {c}", NAMES[k]),
        Atom::Lin(a, b) => format!("x == {a} * i + {b}"),
        Atom::Parity(k, r) => format!("{} % 2 == {r}", NAMES[k]),
        Atom::ILeN => "i <= n".into(),
    }
}

/// Atoms true on every observed head state (a selection), from the program's constants.
fn true_atoms(p: &Program, heads: &[[i64; 5]]) -> Vec<Atom> {
    let mut out = Vec::new();
    for k in 0..3 {
        let max = heads.iter().map(|s| s[k]).max().unwrap_or(0);
        let min = heads.iter().map(|s| s[k]).min().unwrap_or(0);
        out.push(Atom::Le(k, max));
        out.push(Atom::Ge(k, min));
        if heads.iter().all(|s| s[k].rem_euclid(2) == min.rem_euclid(2)) {
            out.push(Atom::Parity(k, min.rem_euclid(2)));
        }
    }
    out.push(Atom::ILeN);
    out.push(Atom::Lin(p.step, p.x0));
    out.retain(|a| heads.iter().all(|s| holds(a, s)));
    out
}

/// The cases of one program: a true invariant and its mutations.
pub fn cases(p: &Program, heads: &[[i64; 5]], error: bool, rng: &mut TestRng) -> Vec<Case> {
    let atoms = true_atoms(p, heads);
    if atoms.is_empty() {
        return Vec::new();
    }
    let pick = |rng: &mut TestRng| atoms[rng.random_range(0..atoms.len())];
    let mut out = Vec::new();
    // Three observed conjunctions per program, each with its mutations (a native build costs
    // more than a validation).
    for _ in 0..3 {
        let conj: Vec<Atom> = (0..rng.random_range(1..4usize)).map(|_| pick(rng)).collect();
        out.extend(mutants(p, heads, error, conj));
    }
    out
}

/// A conjunction true on every visit, and its mutations.
fn mutants(p: &Program, heads: &[[i64; 5]], error: bool, conj: Vec<Atom>) -> Vec<Case> {
    let mut out = Vec::new();
    let judge = |c: &[Atom]| !error && heads.iter().all(|s| c.iter().all(|a| holds(a, s)));
    let render = |c: &[Atom]| c.iter().map(text).collect::<Vec<_>>().join(" && ");
    out.push(Case { program: p.clone(), invariant: render(&conj), valid: judge(&conj), mutation: "observed" });
    // Mutations: a bound moved by one (towards false), a conjunct replaced.
    let mut moved = conj.clone();
    if let Some(a) = moved.iter_mut().next() {
        *a = match *a {
            Atom::Le(k, c) => Atom::Le(k, c - 1),
            Atom::Ge(k, c) => Atom::Ge(k, c + 1),
            Atom::Lin(a, b) => Atom::Lin(a, b + 1),
            Atom::Parity(k, r) => Atom::Parity(k, 1 - r),
            Atom::ILeN => Atom::Le(0, 0),
        };
    }
    out.push(Case { program: p.clone(), invariant: render(&moved), valid: judge(&moved), mutation: "bound-moved" });
    let swapped: Vec<Atom> = conj
        .iter()
        .map(|a| match *a {
            Atom::Le(0, c) => Atom::Le(1, c),
            Atom::Le(1, c) => Atom::Le(0, c),
            other => other,
        })
        .collect();
    out.push(Case { program: p.clone(), invariant: render(&swapped), valid: judge(&swapped), mutation: "var-swapped" });
    out
}

/// The YAML 2.0 witness of a case.
pub fn witness(c: &Case) -> String {
    let kind = if matches!(c.program.form, Form::Goto) { "location_invariant" } else { "loop_invariant" };
    let (line, col) = c.program.head;
    format!(
        r#"- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    uuid: "00000000-0000-4000-8000-000000000032"
    creation_time: "2026-11-27T00:00:00Z"
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
  - invariant:
      type: {kind}
      location:
        file_name: "program.c"
        line: {line}
        column: {col}
        function: "main"
      value: "{}"
      format: c_expression
"#,
        c.invariant
    )
}

/// Validates a case in-process and judges the answer.
pub fn check(c: &Case, dir: &Path, timeout: Duration) -> (Judgement, String) {
    let _ = std::fs::create_dir_all(dir);
    let (prog, wit, prp) = (dir.join("program.c"), dir.join("witness.yml"), dir.join("property.prp"));
    let written = std::fs::write(&prog, &c.program.text)
        .and_then(|_| std::fs::write(&wit, witness(c)))
        .and_then(|_| std::fs::write(&prp, "CHECK( init(main()), LTL(G ! call(reach_error())) )\n"));
    if let Err(e) = written {
        return (Judgement::Unknown, e.to_string());
    }
    let opts =
        ValidateOptions::new(&prog, &wit).with_property(&prp).with_data_model(DataModel::Ilp32).with_timeout(timeout);
    let report = match std::panic::catch_unwind(|| validate(&opts)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return (Judgement::Unknown, e.to_string()),
        Err(_) => return (Judgement::Mismatch("PANIC".into()), "panic".into()),
    };
    let j = match (&report.verdict, c.valid) {
        (Verdict::Rejected, false) => Judgement::Mismatch("`true` on an invalid witness".into()),
        (Verdict::Confirmed { .. }, true) => Judgement::Mismatch("`false` on a valid witness".into()),
        (Verdict::Unknown { .. }, _) => Judgement::Unknown,
        _ => Judgement::Agree,
    };
    (j, report.reason)
}

/// Statistics of a correctness round.
#[derive(Debug, Default, Clone)]
pub struct Round {
    pub programs: usize,
    pub cases: usize,
    pub agree: usize,
    pub unknown: usize,
    pub valid: usize,
    pub mismatches: Vec<String>,
}

impl Round {
    /// Adds another round's counts and mismatches.
    pub fn absorb(&mut self, r: Round) {
        self.programs += r.programs;
        self.cases += r.cases;
        self.agree += r.agree;
        self.unknown += r.unknown;
        self.valid += r.valid;
        self.mismatches.extend(r.mismatches);
    }
}

/// `programs` programs from `seed` (each with its cases), in `work`.
pub fn round(
    seed: u64,
    programs: usize,
    work: &Path,
    timeout: Duration,
    deadline: Option<std::time::Instant>,
) -> Round {
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &{
        let mut s = [0u8; 32];
        s[..8].copy_from_slice(&seed.to_le_bytes());
        s
    });
    let mut r = Round::default();
    for k in 0..programs {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        let p = generate(&mut rng);
        let dir = work.join(format!("cw-{seed}-{k}"));
        let Ok((heads, error)) = run_natively(&p, &dir) else { continue };
        r.programs += 1;
        for c in cases(&p, &heads, error, &mut rng) {
            r.cases += 1;
            r.valid += c.valid as usize;
            let (j, reason) = check(&c, &dir, timeout);
            match j {
                Judgement::Agree => r.agree += 1,
                Judgement::Unknown => r.unknown += 1,
                Judgement::Mismatch(what) => r.mismatches.push(format!(
                    "{what} ({}, invariant `{}`, {reason}):\n{}",
                    c.mutation, c.invariant, c.program.text
                )),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    r
}
