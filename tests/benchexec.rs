//! The BenchExec tool-info module (`contrib/benchexec`, decision 91) under the real BenchExec:
//! `python3 -m benchexec.test_tool_info` with the module's dotted name must report the binary's
//! version, build command lines from task definitions and map recorded outputs to BenchExec's
//! results; the module's own unit test (`contrib/benchexec/test_witness_check.py`) must pass.
//!
//! Python with BenchExec: `WITNESS_CHECK_PYTHON`, else the venv `./scripts/setup` makes
//! (`target/benchexec-venv`), else `python3` if it imports benchexec. Skipped with a note only
//! when there is no python3 at all; python3 without BenchExec is a failure (run ./scripts/setup).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_witness-check");

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).canonicalize().expect("repository root")
}

fn imports_benchexec(python: &Path) -> bool {
    Command::new(python).args(["-c", "import benchexec"]).output().is_ok_and(|o| o.status.success())
}

/// A Python that imports benchexec; `None` when there is no python3 at all.
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WITNESS_CHECK_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = repo().join("target/benchexec-venv/bin/python");
    if venv.exists() && imports_benchexec(&venv) {
        return Some(venv);
    }
    let system = PathBuf::from("python3");
    if Command::new(&system).arg("--version").output().is_err() {
        eprintln!("note: no python3 on this machine: the BenchExec tool-info tests are skipped");
        return None;
    }
    assert!(
        imports_benchexec(&system),
        "python3 cannot import benchexec and there is no target/benchexec-venv: run ./scripts/setup"
    );
    Some(system)
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn benchexec_test_tool_info_accepts_the_module() {
    let Some(python) = python() else { return };
    let root = repo();
    // Relative paths, so that BenchExec does not warn about an absolute executable.
    let bin_dir = Path::new(BIN).parent().expect("binary's directory").canonicalize().unwrap();
    let tool_dir = bin_dir.strip_prefix(&root).map(Path::to_path_buf).unwrap_or(bin_dir);
    let recorded = root.join("contrib/benchexec/recorded");
    let mut outputs: Vec<String> = std::fs::read_dir(&recorded)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".exit0.log"))
        .map(|n| format!("contrib/benchexec/recorded/{n}"))
        .collect();
    outputs.sort();
    let out = Command::new(&python)
        .current_dir(&root)
        .env("PYTHONPATH", root.join("contrib/benchexec"))
        .args(["-m", "benchexec.test_tool_info", "witness_check_benchexec.witness_check", "--no-container"])
        .arg("--tool-directory")
        .arg(&tool_dir)
        .args(["--task-definition", "fixtures/taskdef/validation-task.yml", "fixtures/taskdef/long-is-32.yml"])
        .arg("--tool-output")
        .args(&outputs)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    // The version names the commit and the Z3 library (issue 21: results tables tell builds apart).
    let version = format!("Version: “{} (commit ", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version) && text.contains(", Z3 "), "{}", describe(&out));
    // The validation task's witness comes from its options; the data model from the task.
    assert!(
        text.contains("'validate', '--witness', 'fixtures/taskdef/witness.graphml', '--property', 'fixtures/taskdef/unreach-call.prp', '--data-model', 'ILP32', 'fixtures/taskdef/long-is-32.c'"),
        "{text}"
    );
    for (file, want) in [
        ("minimal-confirm.exit0.log", "false(unreach-call)"),
        ("minimal-confirm-json.exit0.log", "false(unreach-call)"),
        ("overflow-confirm.exit0.log", "false(no-overflow)"),
        ("memsafety-deref-confirm.exit0.log", "false(valid-deref)"),
        ("memsafety-free-confirm.exit0.log", "false(valid-free)"),
        ("memsafety-memtrack-confirm.exit0.log", "false(valid-memtrack)"),
        ("memcleanup-confirm.exit0.log", "false(valid-memcleanup)"),
        ("bitfield-pattern-reject.exit0.log", "true"),
        ("array-out-of-bounds-unknown.exit0.log", "unknown"),
    ] {
        let line = format!("Result of analyzing tool output in “contrib/benchexec/recorded/{file}”:\n\t“{want}”");
        assert!(text.contains(&line), "missing `{line}` in\n{text}");
    }
    // The only warning: several input files are refused (one C program per task).
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("WARNING") || l.contains("Traceback")).collect();
    assert!(
        warnings.iter().all(|w| w.contains("multiple input files")) && warnings.len() == 1,
        "unexpected warnings: {warnings:?}\n{text}"
    );
}

#[test]
fn tool_info_module_unit_test_passes() {
    let Some(python) = python() else { return };
    let out = Command::new(&python)
        .current_dir(repo())
        .env("WITNESS_CHECK_BIN", BIN)
        .arg("contrib/benchexec/test_witness_check.py")
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stderr);
    // The version test ran against this build's binary (other tests may skip without a
    // release build).
    let version_line = text.lines().find(|l| l.starts_with("test_version_of_the_binary"));
    assert!(version_line.is_some_and(|l| l.ends_with("... ok")), "{}", describe(&out));
}

/// Issue 35 item 1: every result string the binary can print (`witness_core::property::
/// result_strings`), in text and in JSON, maps to one of BenchExec's result constants (was:
/// `false(no-data-race)` gave `ERROR (unexpected result …)`); `error` maps to an ERROR status.
#[test]
fn tool_info_module_maps_every_result_string() {
    let Some(python) = python() else { return };
    let results = witness_core::property::result_strings();
    let script = r#"
import sys, json
sys.path.insert(0, "contrib/benchexec")
import benchexec.result as result
from benchexec.tools.template import BaseTool2
from benchexec.util import ProcessExitCode
from witness_check_benchexec.witness_check import Tool
tool = Tool()
bad = []
for answer in sys.argv[1:]:
    code = ProcessExitCode.create(value=3 if answer == "error" else 0)
    for line in ("RESULT: " + answer, json.dumps({"result": answer, "reason": "r", "error_kind": "input"})):
        got = tool.determine_result(BaseTool2.Run(["witness-check"], code, BaseTool2.RunOutput([line]), None))
        ok = got.startswith(result.RESULT_ERROR) if answer == "error" else (
            got in result.RESULT_LIST_OTHER or result.get_result_classification(got) in
            (result.RESULT_CLASS_TRUE, result.RESULT_CLASS_FALSE))
        if answer.startswith("false("):
            ok = ok and got == answer
        if not ok:
            bad.append(f"{line!r} -> {got!r}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
"#;
    let out =
        Command::new(&python).current_dir(repo()).args(["-c", script]).args(&results).output().expect("python runs");
    assert!(out.status.success(), "unmapped result strings:\n{}", describe(&out));
}

/// Issue 21: `batch --benchexec-xml` writes a result file BenchExec's `table-generator` reads:
/// the table lists every task with its status, and the wrong confirmation of the batch's
/// mislabelled task is counted as wrong (its `category`).
#[test]
fn table_generator_renders_a_batch_result_file() {
    let Some(python) = python() else { return };
    let dir = std::env::temp_dir().join(format!("witness-check-benchexec-xml-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixtures = repo().join("fixtures/graphml");
    // Two tasks from the fixtures, one labelled wrongly, and one whose program is missing.
    let mut manifest = String::from("id\tprogram\twitness\tproperty\tdata_model\texpected\n");
    for (id, case, label) in [
        ("confirmed-ok", "overflow-confirm", "confirm"),
        ("mislabelled", "overflow-confirm", "reject"),
        ("rejected-ok", "overflow-reject", "reject"),
        ("gone", "no-such-case", "confirm"),
    ] {
        let from = fixtures.join(case);
        let to = dir.join(id);
        std::fs::create_dir_all(&to).unwrap();
        for f in ["program.c", "witness.graphml", "property.prp"] {
            let _ = std::fs::copy(from.join(f), to.join(f));
        }
        let dm =
            std::fs::read_to_string(from.join("expected.txt")).ok().and_then(|t| t.lines().nth(1).map(String::from));
        manifest.push_str(&format!(
            "{id}\tprogram.c\twitness.graphml\tproperty.prp\t{}\t{label}\n",
            dm.unwrap_or_else(|| "LP64".into())
        ));
    }
    std::fs::write(dir.join("manifest.tsv"), manifest).unwrap();
    let xml = dir.join("results.xml");
    let batch = Command::new(BIN)
        .args(["batch", "--jobs", "1", "--timeout", "30", "--benchexec-xml"])
        .arg(&xml)
        .arg(dir.join("manifest.tsv"))
        .output()
        .expect("batch runs");
    assert!(batch.status.success(), "{}", describe(&batch));
    // `table-generator` as its console script runs it.
    const TABLE_GENERATOR: &str = "import sys, benchexec.tablegenerator as t; sys.exit(t.main())";
    let out = Command::new(&python)
        .env("PYTHONPATH", repo().join("contrib/benchexec"))
        .args(["-c", TABLE_GENERATOR, "--quiet", "--outputpath"])
        .arg(dir.join("table"))
        .args(["--name", "batch"])
        .arg(&xml)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", describe(&out));
    let table = |ext: &str| {
        let path = dir.join("table").join(format!("batch.{ext}"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}; {}", path.display(), describe(&out)))
    };
    let (csv, html) = (table("csv"), table("html"));
    let _ = std::fs::remove_dir_all(&dir);
    for (id, status) in [
        ("confirmed-ok", "false(no-overflow)"),
        ("mislabelled", "false(no-overflow)"),
        ("rejected-ok", "true"),
        ("gone", "ERROR (exit code 3)"),
    ] {
        let row = csv.lines().find(|l| l.contains(id)).unwrap_or_else(|| panic!("no row for {id} in\n{csv}"));
        assert!(row.contains(status), "{id}: `{status}` expected in `{row}`");
    }
    // The HTML table's data carries each row's category, as the result file gives it.
    let category = |id: &str| {
        let at = html.find(&format!("\"id\": [\"{id}\"]")).unwrap_or_else(|| panic!("no row {id} in the HTML"));
        let rest = &html[at..];
        let from = rest.find("\"category\": \"").expect("a category") + "\"category\": \"".len();
        rest[from..].split('"').next().unwrap_or_default().to_string()
    };
    assert_eq!(category("confirmed-ok"), "correct");
    assert_eq!(category("mislabelled"), "wrong");
    assert_eq!(category("rejected-ok"), "correct");
    assert_eq!(category("gone"), "error");
}

/// Issue 35 item 6: `batch` scores the validation tasks of the example benchmark
/// (`contrib/benchexec/example/tasks.list`) as a BenchExec run of `witness-check.xml` does (per
/// task the same status and category, so the same score), and `table-generator` puts the two
/// results of each task on one row (`contrib/benchexec/compare_with_batch.py`). BenchExec runs
/// without containers; where it cannot run at all here (no cgroups), the test says so and stops.
#[test]
fn batch_scores_validation_tasks_as_benchexec_does_and_joins_its_table() {
    let Some(python) = python() else { return };
    let root = repo();
    let tmp = std::env::temp_dir().join(format!("witness-check-benchexec-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("batch")).unwrap();
    let bin_dir = Path::new(BIN).parent().expect("binary's directory").canonicalize().unwrap();
    let out = Command::new(&python)
        .current_dir(&root)
        .env("PYTHONPATH", root.join("contrib/benchexec"))
        .args(["-m", "benchexec.benchexec", "--no-container", "--tool-directory"])
        .arg(&bin_dir)
        .arg("-o")
        .arg(format!("{}/", tmp.join("benchexec").display()))
        .arg("contrib/benchexec/example/witness-check.xml")
        .output()
        .expect("benchexec runs");
    if !out.status.success() {
        let text = describe(&out);
        if text.contains("cgroup") {
            eprintln!("note: BenchExec cannot run here (cgroups), the comparison with batch is skipped:\n{text}");
            let _ = std::fs::remove_dir_all(&tmp);
            return;
        }
        panic!("benchexec failed: {text}");
    }
    let mut theirs: Vec<PathBuf> = std::fs::read_dir(tmp.join("benchexec"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.ends_with(".xml.bz2") && (n.contains(".validation.fixtures.") || n.contains(".validation.no-overflow."))
        })
        .collect();
    theirs.sort();
    assert_eq!(theirs.len(), 2, "BenchExec's result files of the two task sets: {theirs:?}");
    let batch_xml = tmp.join("batch").join("results.xml");
    let out = Command::new(BIN)
        .current_dir(&root)
        .args(["batch", "-j", "2", "--benchexec-xml"])
        .arg(&batch_xml)
        .arg("contrib/benchexec/example/tasks.list")
        .output()
        .expect("batch runs");
    assert!(out.status.success(), "{}", describe(&out));
    let out = Command::new(&python)
        .current_dir(&root)
        .arg("contrib/benchexec/compare_with_batch.py")
        .args(&theirs)
        .arg("--")
        .arg(&batch_xml)
        .arg(tmp.join("table"))
        .output()
        .expect("the comparison runs");
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("table-generator: 8 tasks on joined rows"), "{text}");
}
