//! Tests of `witness-check lint`: the fixtures in `fixtures/lint/<case>/` (written by
//! `fixtures/lint/make_cases.py`; `expected.txt` = exit code, then `severity check` lines that
//! must be among the JSON findings, `!severity check` lines that must not), witnesslint's exit codes on missing files, and agreement
//! with witnesslint 1.3's recorded verdicts (`tests/witnesslint-verdicts.tsv`) on every GraphML
//! witness of `../shared` (skipped where the shared data is absent).

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_witness-check");

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn lint(witness: &Path, program: Option<&Path>, extra: &[String]) -> (i32, serde_json::Value) {
    let mut cmd = Command::new(BIN);
    cmd.arg("lint").arg(witness).arg("--json").args(extra);
    if let Some(p) = program {
        cmd.arg("--program").arg(p);
    }
    let out = cmd.output().expect("binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("JSON from {}: {e}: {stdout}", witness.display()));
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn lint_fixtures() {
    let dir = root().join("fixtures/lint");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&dir).expect("fixtures/lint").flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 15, "only {} lint fixtures", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let witness =
            ["witness.graphml", "witness.yml"].iter().map(|f| case.join(f)).find(|p| p.is_file()).expect("witness");
        let program = Some(case.join("program.c")).filter(|p| p.is_file());
        let extra: Vec<String> = std::fs::read_to_string(case.join("args.txt"))
            .map(|t| t.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let expected = std::fs::read_to_string(case.join("expected.txt")).expect("expected.txt");
        let mut lines = expected.lines().filter(|l| !l.trim().is_empty());
        let code: i32 = lines.next().and_then(|l| l.trim().parse().ok()).expect("exit code");
        let (got, json) = lint(&witness, program.as_deref(), &extra);
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        if got != code {
            failures.push(format!("{name}: exit code {got}, expected {code}: {json}"));
        }
        let findings = json["findings"].as_array().cloned().unwrap_or_default();
        for want in lines {
            let (absent, want) = match want.trim().strip_prefix('!') {
                Some(w) => (true, w),
                None => (false, want.trim()),
            };
            let (sev, check) = want.split_once(' ').expect("`severity check`");
            let found = findings.iter().any(|f| f["severity"] == sev && f["check"] == check);
            if found == absent {
                let what = if absent { "unexpected" } else { "no" };
                failures.push(format!("{name}: {what} {sev} {check} among {findings:?}"));
            }
        }
        // Every finding of the witness with a line names a line of it.
        let lines_in_witness = std::fs::read_to_string(&witness).map(|t| t.lines().count()).unwrap_or(0) as u64;
        for f in &findings {
            if let Some(l) = f["line"].as_u64() {
                if l == 0 || l > lines_in_witness {
                    failures.push(format!("{name}: finding at line {l} outside the witness: {f}"));
                }
            }
        }
        if code == 0 && findings.iter().any(|f| f["severity"] != "note") {
            failures.push(format!("{name}: a valid witness with a warning or error: {findings:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn lint_missing_files_use_witnesslint_exit_codes() {
    let fixture = root().join("fixtures/lint/graphml-valid");
    let (code, json) = lint(&fixture.join("nope.graphml"), None, &[]);
    assert_eq!(code, 5, "{json}");
    let (code, json) = lint(&fixture.join("witness.graphml"), Some(&fixture.join("nope.c")), &[]);
    assert_eq!(code, 6, "{json}");
}

/// Issue 21: one scheme for both commands. `lint --witness W` as `validate --witness W`; an
/// error is the same JSON object from both (with their own exit codes, lint's witnesslint's);
/// what `validate` cannot follow or use is malformed for `lint` too (no entry node; an
/// assumption that is no C expression, which `validate` drops and cannot confirm with).
#[test]
fn lint_and_validate_speak_one_scheme() {
    let minimal = root().join("fixtures/minimal");
    let program = minimal.join("minimal-example.c");
    let out = Command::new(BIN)
        .args(["lint", "--json", "--witness"])
        .arg(minimal.join("minimal-example.graphml"))
        .arg("--program")
        .arg(&program)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let error_of = |cmd: &mut Command| -> (i32, serde_json::Value) {
        let out = cmd.output().unwrap();
        (out.status.code().unwrap_or(-1), serde_json::from_slice(&out.stdout).unwrap())
    };
    let nope = minimal.join("nope.graphml");
    let (lint_code, lint_json) = error_of(Command::new(BIN).args(["lint", "--json"]).arg(&nope));
    let (validate_code, validate_json) =
        error_of(Command::new(BIN).args(["validate", "--json", "--witness"]).arg(&nope).arg(&program));
    assert_eq!((lint_code, validate_code), (5, 3));
    for key in ["result", "verdict", "error_kind", "reason"] {
        assert_eq!(lint_json[key], validate_json[key], "{key}: {lint_json} / {validate_json}");
    }
    assert_eq!(lint_json["exit_code"], 5);
    assert_eq!(validate_json["exit_code"], 3);

    let tmp = std::env::temp_dir().join(format!("witness-check-lint-scheme-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let text = std::fs::read_to_string(minimal.join("minimal-example.graphml")).unwrap();
    let bad_assumption = tmp.join("bad-assumption.graphml");
    std::fs::write(&bad_assumption, text.replace("\\result == 42", "\\result === 42")).unwrap();
    let no_entry = tmp.join("no-entry.graphml");
    std::fs::write(&no_entry, text.replace("<data key=\"entry\">true</data>", "")).unwrap();
    let (code, json) = lint(&bad_assumption, Some(&program), &[]);
    let (entry_code, entry_json) = lint(&no_entry, Some(&program), &[]);
    let validated = Command::new(BIN).args(["validate", "--witness"]).arg(&no_entry).arg(&program).output().unwrap();
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(code, 1, "{json}");
    assert!(json.to_string().contains("cannot parse assumption"), "{json}");
    assert_eq!(entry_code, 1, "{entry_json}");
    assert!(entry_json.to_string().contains("no entry node"), "{entry_json}");
    assert_eq!(validated.status.code(), Some(3), "validate refuses it too");
}

/// Issue 23 (decision 166): a correctness witness's invariants are placed and lowered as
/// `validate` does; each finding names the invariant, its position in the witness and the reason.
#[test]
fn lint_checks_correctness_witness_invariants() {
    let dir = root().join("fixtures/lint");
    let run = |case: &str, strict: bool| {
        let case = dir.join(case);
        let witness =
            ["witness.graphml", "witness.yml"].iter().map(|f| case.join(f)).find(|p| p.is_file()).expect("witness");
        let extra = if strict { vec!["--strict".to_string()] } else { Vec::new() };
        let (code, json) = lint(&witness, Some(&case.join("program.c")), &extra);
        (code, json["findings"].as_array().cloned().unwrap_or_default())
    };
    // The valid twins: no finding at all, even under `--strict`.
    for case in ["yaml-correctness-valid", "graphml-correctness-valid"] {
        let (code, findings) = run(case, true);
        assert_eq!((code, findings.len()), (0, 0), "{case}: {findings:?}");
    }
    let one = |case: &str, check: &str| -> serde_json::Value {
        let (_, findings) = run(case, false);
        let mine: Vec<_> = findings.iter().filter(|f| f["check"] == check).cloned().collect();
        assert_eq!(mine.len(), 1, "{case}: {findings:?}");
        mine[0].clone()
    };
    let f = one("yaml-correctness-no-loop", "Y22");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(18), Some(7)), "{f}");
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains("loop invariant `i <= n`") && msg.contains("line 12") && msg.contains("matches no loop"),
        "{f}"
    );
    let f = one("yaml-correctness-unknown-variable", "Y23");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(27), Some(7)), "{f}");
    let msg = f["message"].as_str().unwrap();
    assert!(msg.contains("location invariant `i == m`") && msg.contains("unknown identifier `m`"), "{f}");
    // Decisions 207, 251: placed at its loop, but what it reads under `\at` is memory, of
    // which no ghost copy is taken.
    let f = one("yaml-correctness-unsupported", "Y24");
    assert_eq!(f["line"].as_u64(), Some(27), "{f}");
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains("loop transition invariant `\\at(*p, AnyPrev) <= *p`") && msg.contains("never confirms"),
        "{f}"
    );
    let f = one("graphml-correctness-unknown-scope", "L24");
    assert_eq!(f["line"].as_u64(), Some(33), "the `<node id=\"H\">`: {f}");
    let msg = f["message"].as_str().unwrap();
    assert!(msg.contains("node H") && msg.contains("`mian`"), "{f}");
    let f = one("graphml-correctness-unknown-variable", "L25");
    let msg = f["message"].as_str().unwrap();
    assert!(msg.contains("`i <= m`") && msg.contains("node H") && msg.contains("unknown identifier `m`"), "{f}");
}

#[test]
fn lint_text_output_shows_position_and_snippet() {
    let case = root().join("fixtures/lint/graphml-no-namespaces");
    let out = Command::new(BIN).arg("lint").arg(case.join("witness.graphml")).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("witness.graphml:2:1: warning[X3]: missing default namespace"), "{text}");
    assert!(text.contains("2 | <graphml>"), "{text}");
    assert!(text.contains("witness-check lint finished with exit code 1"), "{text}");
}

#[test]
fn lint_agrees_with_witnesslint_on_shared_graphml_witnesses() {
    let shared = root().join("../shared");
    if !shared.join("corpus/manifest.tsv").is_file() {
        eprintln!("skipped: {} not present", shared.display());
        return;
    }
    let table = std::fs::read_to_string(root().join("tests/witnesslint-verdicts.tsv")).expect("verdict table");
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (witness, program, theirs) = (shared.join(f[0]), f[1], f[2]);
        if !witness.is_file() {
            continue;
        }
        let ours_expected = f.get(3).filter(|s| !s.is_empty()).copied().unwrap_or(theirs);
        let program = (!program.is_empty()).then(|| shared.join(program));
        let (code, json) = lint(&witness, program.as_deref(), &[]);
        checked += 1;
        if code.to_string() != ours_expected {
            failures.push(format!("{}: ours {code}, witnesslint {theirs}: {json}", f[0]));
        }
    }
    eprintln!("lint agrees with witnesslint on {} of {checked} GraphML witnesses", checked - failures.len());
    assert!(checked >= 90, "only {checked} witnesses checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 35 item 11: `--loglevel` hides the findings below a severity (witnesslint's option);
/// counts and exit code stay.
#[test]
fn lint_loglevel_hides_less_severe_findings() {
    let w = root().join("fixtures/lint/graphml-thread-not-entered/witness.graphml");
    let text = |level: &str| {
        let out = Command::new(BIN).args(["lint", "--loglevel", level]).arg(&w).output().expect("lint runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (all_code, all) = text("note");
    let (warn_code, warnings) = text("warning");
    assert!(all.contains("note["), "{all}");
    assert!(warnings.contains("warning[") && !warnings.contains("note["), "{warnings}");
    assert_eq!(all_code, warn_code);
    let summary = |t: &str| t.lines().find(|l| l.contains("error(s),")).map(str::to_string);
    assert_eq!(summary(&all), summary(&warnings));
    let (_, json) = lint(&w, None, &["--loglevel".into(), "error".into()]);
    assert_eq!(json["findings"].as_array().map(Vec::len), Some(0), "{json}");
}
