//! Pathological programs, generated here (megabytes each, so not committed; see
//! `fixtures/pathological/README.md`): every input ends with a verdict within a bounded time,
//! never with a crash (decisions 130-131). A chain of 300,000 `+` overflowed the front end's
//! stack (SIGABRT, exit status 134, no answer); 20,000 took 25 s (the operands were cloned at
//! every level); a chain of 30 `?:` took minutes (each level lowered its arms twice).
//!
//! Each program has `reach_error()` behind a condition that some input satisfies, and a YAML
//! witness with only the target waypoint: a program the front end takes is confirmed, a
//! program nested too deeply is `unknown` with the position and the bound.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_witness-check");

/// Writes the program (`main` reads `y`, then `body`, then reaches the error) and its
/// witness into a fresh directory; returns the program's path.
fn write_case(name: &str, prelude: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("witness-check-pathological-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let program = format!(
        "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\n{prelude}int main(void) {{\n  int y = \
         __VERIFIER_nondet_int();\n{body}  reach_error();\n  return 0;\n}}\n"
    );
    let line = program[..program.find("  reach_error();").unwrap()].matches('\n').count() + 1;
    let witness = format!(
        "- entry_type: \"violation_sequence\"\n  metadata:\n    format_version: \"2.0\"\n    uuid: \
         \"00000000-0000-4000-8000-000000000000\"\n    creation_time: \"2026-01-01T00:00:00Z\"\n    producer:\n      \
         name: \"generated\"\n      version: \"1\"\n    task:\n      input_files:\n      - \"program.c\"\n      \
         input_file_hashes:\n        program.c: \"0\"\n      specification: \"G ! call(reach_error())\"\n      \
         data_model: \"ILP32\"\n      language: \"C\"\n  content:\n  - segment:\n    - waypoint:\n        type: \
         \"target\"\n        action: \"follow\"\n        location:\n          file_name: \"program.c\"\n          \
         line: {line}\n          column: 3\n          function: \"main\"\n"
    );
    std::fs::write(dir.join("program.c"), program).expect("write program");
    std::fs::write(dir.join("witness.yml"), witness).expect("write witness");
    dir.join("program.c")
}

/// Runs `validate --json` on the case; returns (exit status, verdict, reason, seconds).
fn validate(program: &Path) -> (Option<i32>, String, String, Duration) {
    let witness = program.with_file_name("witness.yml");
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(["validate", "--json", "--timeout", "60", "--data-model", "ILP32", "--witness"])
        .arg(&witness)
        .arg(program)
        .output()
        .expect("binary runs");
    let elapsed = started.elapsed();
    let _ = std::fs::remove_dir_all(program.parent().unwrap());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON answer (exit status {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).chars().take(400).collect::<String>()
        )
    });
    let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
    (out.status.code(), s("verdict"), s("reason"), elapsed)
}

fn repeat(s: &str, n: usize) -> String {
    s.repeat(n)
}

/// (name, prelude, body) of programs nested far past every bound.
fn too_deep_cases() -> Vec<(&'static str, String, String)> {
    let n = 100_000;
    let cond = "  if (x != 0) return 0;\n";
    vec![
        ("plus-chain", String::new(), format!("  int x = y{};\n{cond}", repeat(" + y", 300_000))),
        ("parentheses", String::new(), format!("  int x = {}y{};\n{cond}", repeat("(", n), repeat(")", n))),
        ("negations", String::new(), format!("  int x = {}y{};\n{cond}", repeat("-(", n), repeat(")", n))),
        (
            "indices",
            String::new(),
            format!("  int a[1] = {{0}};\n  int x = {}0{};\n{cond}", repeat("a[", n), repeat("]", n)),
        ),
        (
            "calls",
            "int f(int a) { return a; }\n".into(),
            format!("  int x = {}y{};\n{cond}", repeat("f(", n), repeat(")", n)),
        ),
        ("casts", String::new(), format!("  int x = {}y;\n{cond}", repeat("(int)", n))),
        ("logical-nots", String::new(), format!("  int x = {}y;\n{cond}", repeat("!!", n))),
        ("blocks", String::new(), format!("  {}y = 1;{}\n", repeat("{", n), repeat("}", n))),
        (
            "else-if-chain",
            String::new(),
            (0..n).map(|i| format!("  if (y == {i}) y = 0;\n  else\n")).collect::<String>() + "  ;\n",
        ),
        ("and-chain", String::new(), format!("  int x = y{};\n  if (!x) return 0;\n", repeat(" && y", 300_000))),
        (
            "conditional-chain",
            String::new(),
            format!("  int x = {}0;\n{cond}", (0..n).map(|i| format!("y == {i} ? {i} : ")).collect::<String>()),
        ),
        ("assignment-chain", String::new(), format!("  int x;\n  x = {}y;\n{cond}", repeat("x = ", 300_000))),
        (
            "pointer-chain",
            String::new(),
            format!("  int a[2]; int *p = a;\n  int *q = p{};\n  if (q != p) return 0;\n", repeat(" + 0", 300_000)),
        ),
    ]
}

#[test]
fn programs_nested_too_deeply_are_unknown_with_their_position_at_once() {
    let mut failures = Vec::new();
    for (name, prelude, body) in too_deep_cases() {
        let program = write_case(name, &prelude, &body);
        let (code, verdict, reason, took) = validate(&program);
        let positioned = reason.contains("program.c:") || reason.contains(", column ");
        if code != Some(0) || verdict != "unknown" || !reason.contains("nest") || !positioned {
            failures.push(format!("{name}: exit {code:?}, {verdict}: {reason}"));
        }
        if took > Duration::from_secs(20) {
            failures.push(format!("{name}: took {took:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Deep but within the bounds (and those of a debug build): confirmed, quickly. Each of these
/// took minutes, or crashed, before decision 130.
#[test]
fn deep_programs_within_the_bounds_are_validated_quickly() {
    let cond = "  if (x != 0) return 0;\n";
    let cases: Vec<(&str, String, String)> = vec![
        ("plus-chain-3000", String::new(), format!("  int x = y{};\n{cond}", repeat(" + y", 3000))),
        (
            "constant-chain-3000",
            String::new(),
            format!("  int x = 1{};\n  if (x != 3001) return 0;\n", repeat(" + 1", 3000)),
        ),
        ("parentheses-900", String::new(), format!("  int x = {}y{};\n{cond}", repeat("(", 900), repeat(")", 900))),
        (
            "else-if-chain-1500",
            String::new(),
            (0..1500).map(|i| format!("  if (y == {i}) y = 0;\n  else\n")).collect::<String>() + "  ;\n",
        ),
        (
            "conditional-chain-1000",
            String::new(),
            format!("  int x = {}0;\n{cond}", (0..1000).map(|i| format!("y == {i} ? {i} : ")).collect::<String>()),
        ),
        ("and-chain-1500", String::new(), format!("  int x = y{};\n  if (!x) return 0;\n", repeat(" && y", 1500))),
        // A 1 MB single line: 90,000 statements.
        (
            "one-megabyte-line",
            String::new(),
            format!("  int x = 0; {}\n  if (x != 90000) return 0;\n", repeat("x = x + 1; ", 90_000)),
        ),
    ];
    let mut failures = Vec::new();
    for (name, prelude, body) in cases {
        let program = write_case(name, &prelude, &body);
        let (code, verdict, reason, took) = validate(&program);
        if code != Some(0) || verdict != "confirmed" {
            failures.push(format!("{name}: exit {code:?}, {verdict}: {reason}"));
        }
        if took > Duration::from_secs(20) {
            failures.push(format!("{name}: took {took:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
