//! Issue 32 item 4: the oracle for correctness witnesses. A generated program has one or two
//! inputs of a small domain (`__VERIFIER_nondet_uchar() % D`, or a constant of it in a fifth of
//! the programs, which then read no input: decision 245), one loop of a random form
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
use proptest::test_runner::TestRng;

pub use crate::round::{Judgement, Round};
use witness_core::cfa::DataModel;
use witness_core::validate::ValidateOptions;

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
    /// The property is no-overflow (`x` starts near `INT_MAX`), not unreach-call.
    overflow: bool,
    /// The loop runs `n * scale` passes: 1, or for a long run 200 to 800 (decision 239: past the
    /// bounded refutations' 16 cut points, so that the native refutation decides).
    scale: i64,
    /// 1-based (line, column) of the `case` label in the loop body (observation site 1).
    case_site: Option<(usize, usize)>,
    /// The line before the loop and the body's last statement (the GraphML form's edges).
    before_line: usize,
    last_body_line: usize,
}

/// One correctness case: a program, one witness, and the truth.
#[derive(Debug, Clone)]
pub struct Case {
    pub program: Program,
    /// Where the invariant is claimed: 0 the loop head, 1 the `case` label.
    pub site: usize,
    /// GraphML 1.0 (an invariant on the node the loop head's transitions enter) or YAML 2.0.
    pub graphml: bool,
    pub invariant: String,
    /// No run reaches the error and every head visit keeps the invariant.
    pub valid: bool,
    pub mutation: &'static str,
    /// Validate with the search over every run first (the default) or the proof first.
    pub search_first: bool,
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
    let input_free = rng.random_bool(0.2);
    let parity_branch = rng.random_bool(0.5);
    let switch = rng.random_bool(0.35);
    // No-overflow: `x` starts a little below INT_MAX and may pass it in the loop or after it.
    let overflow = rng.random_bool(0.3);
    let x0 = if overflow { 2147483647 - rng.random_range(0..14i64) } else { i64::from(x0) };
    let after = rng.random_range(0..3i64);
    let scale = if !overflow && rng.random_bool(0.3) { rng.random_range(200..800i64) } else { 1 };
    let bound = if scale == 1 { "n".to_string() } else { format!("n * {scale}") };
    // The error: none, after the loop (reachable for some inputs, or guarded by `y < 0`,
    // which no run satisfies), or in an `atexit` handler.
    let (error, guard) = match if overflow { 0 } else { rng.random_range(0..4u32) } {
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
    // Decision 245: a fifth of the programs read no input (the inputs are constants of the
    // domain), so that the one run decides them when the proof goes first.
    let input = |rng: &mut TestRng| {
        if input_free {
            rng.random_range(0..d).to_string()
        } else {
            format!("__VERIFIER_nondet_uchar() % {d}")
        }
    };
    let _ = writeln!(s, "  int n = {};", input(rng));
    if two_inputs {
        let _ = writeln!(s, "  int m = {};", input(rng));
    } else {
        s.push_str("  int m = 1;\n");
    }
    if error == Some(true) {
        s.push_str("  atexit(handler);\n");
    }
    let _ = writeln!(s, "  int i = 0, x = {x0}, y = 0;");
    let before_line = s.lines().count();
    let head_line = before_line + 1;
    // The body: its `case` label is at line head_line + 3 when there is a switch.
    let body = {
        let mut bd = String::new();
        let _ = writeln!(bd, "    x = x + {a};");
        if switch {
            bd.push_str("    switch (i % 3) {\n    case 1:\n      y = y + 1;\n      break;\n    default:\n      break;\n    }\n");
        }
        if parity_branch {
            let _ = writeln!(bd, "    if (i % 2 == 0) y = y + {b} + m;");
        } else {
            let _ = writeln!(bd, "    y = y + {b};");
        }
        bd.push_str("    i++;\n");
        bd
    };
    let last_body_line = head_line + body.lines().count();
    let case_site = switch.then_some((head_line + 3, 5));
    let head_text = match form {
        Form::While => {
            let t = format!("  while (i < {bound}) {{\n");
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("  }\n");
            t
        }
        Form::For => {
            let t = format!("  for (; i < {bound}; ) {{\n");
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("  }\n");
            t
        }
        Form::DoWhile => {
            let t = "  do {\n".to_string();
            s.push_str(&t);
            s.push_str(&body);
            s.push_str(&format!("  }} while (i < {bound});\n"));
            t
        }
        Form::Goto => {
            let t = format!("  L: if (i < {bound}) {{\n");
            s.push_str(&t);
            s.push_str(&body);
            s.push_str("    goto L;\n  }\n");
            t
        }
    };
    let col = head_text.len() - head_text.trim_start().len() + 1;
    // The error: reachable for some inputs, or not at all, depending on the constant.
    let target = x0 + i64::from(a) * scale * rng.random_range(0..(d as i64 + 1));
    if overflow && after > 0 {
        let _ = writeln!(s, "  x = x + {after};");
    }
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
        x0,
        overflow,
        scale,
        case_site,
        before_line,
        last_body_line,
    }
}

impl Program {
    /// The property file's text.
    fn property(&self) -> &'static str {
        if self.overflow {
            "CHECK( init(main()), LTL(G ! overflow) )"
        } else {
            "CHECK( init(main()), LTL(G ! call(reach_error())) )"
        }
    }
}

/// The instrumented text: `__wc_h(i, x, y, n, m)` at every head visit.
fn instrumented(p: &Program) -> String {
    let call = format!("__wc_h(0, {})", p.vars.join(", "));
    let mut t = p.text.clone();
    let b = if p.scale == 1 { "n".to_string() } else { format!("n * {}", p.scale) };
    match p.form {
        Form::While => t = t.replacen(&format!("while (i < {b}) {{"), &format!("while (({call}, i < {b})) {{"), 1),
        Form::For => t = t.replacen(&format!("for (; i < {b}; ) {{"), &format!("for (; ({call}, i < {b}); ) {{"), 1),
        Form::DoWhile => t = t.replacen("  do {\n", &format!("  do {{ {call};\n"), 1),
        Form::Goto => t = t.replacen(&format!("L: if (i < {b}) {{"), &format!("L: {call}; if (i < {b}) {{"), 1),
    }
    if p.case_site.is_some() {
        t = t.replacen("    case 1:\n", &format!("    case 1: __wc_h(1, {});\n", p.vars.join(", ")), 1);
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
void __wc_h(int site, int i, int x, int y, int n, int m) { printf("H %d %d %d %d %d %d\n", site, i, x, y, n, m); }
void reach_error(void) { printf("R\n"); fflush(stdout); _Exit(0); }
int __wc_main(void);
int main(int argc, char **argv) {
  int d = atoi(argv[1]);
  for (int a = 0; a < d; a++) for (int b = 0; b < d; b++) {
    printf("RUN %d %d\n", a, b); fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { setvbuf(stdout, 0, _IOLBF, 0); wc_in[0] = a; wc_in[1] = b; wc_k = 0; int r = __wc_main(); fflush(stdout); exit(r); }
    int st; waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) printf("OVF\n");
    printf("END\n"); fflush(stdout);
  }
  return 0;
}
"#;

/// A state `[i, x, y, n, m]` observed at a site (0: the loop head, 1: the `case` label).
pub type Observed = (usize, [i64; 5]);

/// The states `[i, x, y, n, m]` observed at each site (0: the loop head, 1: the `case` label)
/// on every run, and whether some run violated the property (reached the error, or overflowed:
/// UBSan ends the run).
pub fn run_natively(p: &Program, dir: &Path) -> Result<(Vec<Observed>, bool), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let prog = dir.join("cw.c");
    let drv = dir.join("cw-driver.c");
    let exe = dir.join("cw");
    std::fs::write(&prog, instrumented(p).replacen("int main(void)", "int __wc_main(void)", 1))
        .map_err(|e| e.to_string())?;
    std::fs::write(&drv, DRIVER).map_err(|e| e.to_string())?;
    let out = Command::new("gcc")
        .args(["-m32", "-O0", "-w", "-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all", "-o"])
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
        if l == "R" || l == "OVF" {
            error = true;
        } else if let Some(rest) = l.strip_prefix("H ") {
            let v: Vec<i64> = rest.split_whitespace().filter_map(|x| x.parse().ok()).collect();
            if let [site, i, x, y, n, m] = v[..] {
                heads.push((site as usize, [i, x, y, n, m]));
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
        Atom::ILeN(scale) => v(0) <= v(3) * scale,
    }
}

/// An atom of a candidate invariant over `[i, x, y, n, m]`.
#[derive(Debug, Clone, Copy)]
enum Atom {
    Le(usize, i64),
    Ge(usize, i64),
    /// x - a * i == b (written so that it cannot overflow near INT_MAX)
    Lin(i64, i64),
    Parity(usize, i64),
    /// i <= n (times the long run's scale: `i <= n * S`, attained where the loop ends, on the
    /// run the native refutation takes too)
    ILeN(i64),
}

const NAMES: [&str; 5] = ["i", "x", "y", "n", "m"];

fn text(a: &Atom) -> String {
    match *a {
        Atom::Le(k, c) => format!("{} <= {c}", NAMES[k]),
        Atom::Ge(k, c) => format!("{} >= {c}", NAMES[k]),
        Atom::Lin(a, b) => format!("x - {a} * i == {b}"),
        Atom::Parity(k, r) => format!("{} % 2 == {r}", NAMES[k]),
        Atom::ILeN(1) => "i <= n".into(),
        Atom::ILeN(scale) => format!("i <= n * {scale}"),
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
    out.push(Atom::ILeN(p.scale));
    out.push(Atom::Lin(p.step, p.x0));
    out.push(Atom::Lin(p.step, p.x0 + p.step));
    out.retain(|a| heads.iter().all(|s| holds(a, s)));
    out
}

/// The cases of one program: true invariants at each site and their mutations, in YAML and,
/// for loop heads of `while` and `for` loops, GraphML; half of them validated proof first
/// (issue 51: the bounded refutations decide there, after a proof that fails).
pub fn cases(p: &Program, observed: &[Observed], error: bool, rng: &mut TestRng) -> Vec<Case> {
    let mut out = Vec::new();
    let sites: &[usize] = if p.case_site.is_some() { &[0, 1] } else { &[0] };
    for &site in sites {
        let states: Vec<[i64; 5]> = observed.iter().filter(|(k, _)| *k == site).map(|(_, v)| *v).collect();
        let atoms = true_atoms(p, &states);
        if atoms.is_empty() {
            continue;
        }
        let pick = |rng: &mut TestRng| atoms[rng.random_range(0..atoms.len())];
        // Several observed conjunctions per site, each with its mutations (a native build
        // costs more than a validation).
        for _ in 0..if site == 0 { 4 } else { 2 } {
            let conj: Vec<Atom> = (0..rng.random_range(1..4usize)).map(|_| pick(rng)).collect();
            let graphml = site == 0 && matches!(p.form, Form::While | Form::For) && rng.random_bool(0.35);
            out.extend(mutants(p, site, graphml, &states, error, conj));
        }
    }
    for c in &mut out {
        c.search_first = rng.random_bool(0.5);
    }
    out
}

/// A conjunction true on every visit, and its mutations.
fn mutants(p: &Program, site: usize, graphml: bool, heads: &[[i64; 5]], error: bool, conj: Vec<Atom>) -> Vec<Case> {
    let mut out = Vec::new();
    let judge = |c: &[Atom]| !error && heads.iter().all(|s| c.iter().all(|a| holds(a, s)));
    let render = |c: &[Atom]| c.iter().map(text).collect::<Vec<_>>().join(" && ");
    let case = |c: &[Atom], mutation: &'static str| Case {
        program: p.clone(),
        site,
        graphml,
        invariant: render(c),
        valid: judge(c),
        mutation,
        search_first: true,
    };
    out.push(case(&conj, "observed"));
    // Mutations: a bound moved by one (towards false), a conjunct replaced.
    let mut moved = conj.clone();
    if let Some(a) = moved.iter_mut().next() {
        *a = match *a {
            Atom::Le(k, c) => Atom::Le(k, c - 1),
            Atom::Ge(k, c) => Atom::Ge(k, c + 1),
            Atom::Lin(a, b) => Atom::Lin(a, b + 1),
            Atom::Parity(k, r) => Atom::Parity(k, 1 - r),
            Atom::ILeN(_) => Atom::Le(0, 0),
        };
    }
    out.push(case(&moved, "bound-moved"));
    let swapped: Vec<Atom> = conj
        .iter()
        .map(|a| match *a {
            Atom::Le(0, c) => Atom::Le(1, c),
            Atom::Le(1, c) => Atom::Le(0, c),
            other => other,
        })
        .collect();
    out.push(case(&swapped, "var-swapped"));
    // A bound of a long run one pass short: false only past the bounded refutations' depth, on
    // the run whose nondet calls all return 1 (n = m = 1), which the native refutation takes.
    if p.scale > 1 && site == 0 {
        let ones: Vec<&[i64; 5]> = heads.iter().filter(|s| s[3] == 1 && s[4] == 1).collect();
        for k in 0..3 {
            if let Some(max) = ones.iter().map(|s| s[k]).max() {
                let mut short = conj.clone();
                short.push(Atom::Le(k, max - 1));
                out.push(case(&short, "long-run-bound"));
            }
        }
    }
    out
}

/// The GraphML 1.0 witness of a loop-head case: the invariant on the node that the transition
/// into the loop head (from the statement before the loop) and the back edge (from the body's
/// last statement) enter, as CPAchecker writes it.
pub fn graphml(c: &Case) -> String {
    let p = &c.program;
    let (head, _) = p.head;
    let inv = c.invariant.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let prologue = crate::witness::graphml_prologue(
        "correctness_witness",
        &[
            ("invariant", "string", "node"),
            ("invariant.scope", "string", "node"),
            ("startline", "int", "edge"),
            ("control", "string", "edge"),
            ("enterLoopHead", "boolean", "edge"),
        ],
    );
    format!(
        r#"{prologue}  <data key="specification">{spec}</data>
  <data key="programfile">program.c</data>
  <data key="programhash">0000000000000000000000000000000000000000000000000000000000000000</data>
  <data key="architecture">32bit</data>
  <data key="creationtime">2026-11-27T00:00:00Z</data>
  <node id="N0"><data key="entry">true</data></node>
  <node id="H"><data key="invariant">{inv}</data><data key="invariant.scope">main</data></node>
  <node id="B"/>
  <node id="X"/>
  <edge source="N0" target="H"><data key="startline">{before}</data><data key="enterLoopHead">true</data></edge>
  <edge source="H" target="B"><data key="startline">{head}</data><data key="control">condition-true</data></edge>
  <edge source="H" target="X"><data key="startline">{head}</data><data key="control">condition-false</data></edge>
  <edge source="B" target="H"><data key="startline">{last}</data><data key="enterLoopHead">true</data></edge>
 </graph>
</graphml>
"#,
        spec = p.property(),
        before = p.before_line,
        last = p.last_body_line,
    )
}

/// The YAML 2.0 witness of a case.
pub fn witness(c: &Case) -> String {
    let (kind, (line, col)) = match (c.site, c.program.case_site) {
        (1, Some(at)) => ("location_invariant", at),
        _ if matches!(c.program.form, Form::Goto) => ("location_invariant", c.program.head),
        _ => ("loop_invariant", c.program.head),
    };
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
      specification: "{}"
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
        c.program.property(),
        c.invariant
    )
}

/// Validates a case in-process and judges the answer; a definite answer is compared with the
/// full search's (decision 238).
pub fn check(c: &Case, dir: &Path, timeout: Duration, tally: &mut crate::shortcuts::Tally) -> (Judgement, String) {
    let _ = std::fs::create_dir_all(dir);
    let ext = if c.graphml { "graphml" } else { "yml" };
    let (prog, wit, prp) = (dir.join("program.c"), dir.join(format!("witness.{ext}")), dir.join("property.prp"));
    let text = if c.graphml { graphml(c) } else { witness(c) };
    let written = std::fs::write(&prog, &c.program.text)
        .and_then(|_| std::fs::write(&wit, text))
        .and_then(|_| std::fs::write(&prp, format!("{}\n", c.program.property())));
    if let Err(e) = written {
        return (Judgement::Unknown, e.to_string());
    }
    // Native runs as the command line makes them (decision 239): the native refutation decides
    // long runs' cases.
    let runner = std::sync::Arc::new(witness_check::native_run::GccRunner::new(&prog));
    let mut opts = ValidateOptions::new(&prog, &wit)
        .with_property(&prp)
        .with_data_model(DataModel::Ilp32)
        .with_timeout(timeout)
        .with_native(runner);
    // Half of the cases try the proof first, so that both ways to `true` stay exercised.
    opts.shortcuts.set(witness_core::shortcuts::Shortcut::QuickSearch, c.search_first);
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
    let mut rng = crate::round::seeded(seed, 0);
    let mut r = Round::default();
    for k in 0..programs {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        let p = generate(&mut rng);
        let dir = work.join(format!("cw-{seed}-{k}"));
        let t0 = std::time::Instant::now();
        let native = run_natively(&p, &dir);
        r.native_secs += t0.elapsed().as_secs_f64();
        let Ok((heads, error)) = native else { continue };
        let t0 = std::time::Instant::now();
        r.programs += 1;
        for c in cases(&p, &heads, error, &mut rng) {
            // A long run's case takes seconds: the deadline is kept between cases too.
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                break;
            }
            r.cases += 1;
            r.valid += c.valid as usize;
            for k in [
                if c.graphml { "graphml" } else { "yaml" },
                if c.program.overflow { "no-overflow" } else { "unreach-call" },
                match (c.site, c.program.form) {
                    (1, _) => "at-case-label",
                    (_, Form::Goto) => "at-goto-label",
                    (_, Form::DoWhile) => "do-loop",
                    _ => "while-or-for-loop",
                },
                if c.search_first { "search-first" } else { "proof-first" },
                if c.program.scale > 1 { "long-run" } else { "short-run" },
            ] {
                *r.mix.entry(k).or_default() += 1;
            }
            let (j, reason) = check(&c, &dir, timeout, &mut r.shortcuts);
            r.judged(j, &reason, || {
                format!(
                    "{}, site {}, {}, {}, invariant `{}`, {reason}):\n{}",
                    c.mutation,
                    c.site,
                    if c.graphml { "GraphML" } else { "YAML" },
                    if c.search_first { "search first" } else { "proof first" },
                    c.invariant,
                    c.program.text
                )
            });
        }
        r.validate_secs += t0.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&dir);
    }
    r
}
