//! Issue 51 (decisions 237-238; issue 32 item 2 before it): every shortcut against the full
//! search on real inputs. Every fixture and, where `../shared` is present, every case of the
//! concurrency, correctness and adversarial corpora is validated in process as users run it;
//! where that answer is definite, it is validated again with every shortcut off
//! (`Shortcuts::NONE`: no pruning, no reduction, no static rejection, no guess, no proof, no
//! native run; a short budget). Two different definite answers fail the test. The test also fails when the
//! inputs stop reaching the shortcuts it is meant to check (the thread shortcuts, the value-range
//! rejection, the guessing run, the proof, the partial-order reduction).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use witness_core::cfa::DataModel;
use witness_core::shortcuts::{Shortcut, Shortcuts};
use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::Verdict;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One validation task: program, witness, property, data model.
type Task = (PathBuf, PathBuf, PathBuf, DataModel);

/// The fixtures: one directory per case with `program.c`, a witness, a property and
/// `expected.txt` (its second line the data model).
fn fixture_tasks() -> Vec<Task> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for base in ["fixtures/graphml", "fixtures/yaml/cases", "fixtures/trust", "fixtures/correctness"] {
        if let Ok(rd) = std::fs::read_dir(root().join(base)) {
            dirs.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let program = d.join("program.c");
        let witness = ["witness.yml", "witness.graphml"].iter().map(|w| d.join(w)).find(|p| p.is_file());
        let property = ["property.prp", "unreach-call.prp"].iter().map(|w| d.join(w)).find(|p| p.is_file());
        let expected = std::fs::read_to_string(d.join("expected.txt")).unwrap_or_default();
        let (Some(witness), Some(property)) = (witness, property) else { continue };
        // Input errors and options the library call does not pass are the e2e test's business.
        if !program.is_file() || expected.starts_with("error") || d.join("args.txt").is_file() {
            continue;
        }
        let dm = if expected.contains("ILP32") { DataModel::Ilp32 } else { DataModel::Lp64 };
        out.push((program, witness, property, dm));
    }
    out
}

/// The cases of a shared manifest (columns `id`, `program`, `witness`, `property`,
/// `data_model`), without those that need options.
fn manifest_tasks(set: &str) -> Vec<Task> {
    let dir = root().join("../shared").join(set);
    let Ok(text) = std::fs::read_to_string(dir.join("manifest.tsv")) else { return Vec::new() };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(id), Some(p), Some(w), Some(prp), Some(dm)) =
        (col("id"), col("program"), col("witness"), col("property"), col("data_model"))
    else {
        return Vec::new();
    };
    let options = col("validate_options");
    let mut out = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() <= dm.max(p).max(w).max(prp) || options.is_some_and(|o| f.get(o).is_some_and(|v| !v.is_empty())) {
            continue;
        }
        let case = dir.join(f[id]);
        let model = if f[dm] == "ILP32" { DataModel::Ilp32 } else { DataModel::Lp64 };
        out.push((case.join(f[p]), case.join(f[w]), case.join(f[prp]), model));
    }
    out
}

fn kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::Confirmed { .. } => "confirmed",
        Verdict::Rejected => "rejected",
        Verdict::Unknown { .. } => "unknown",
    }
}

#[test]
fn no_shortcut_answers_otherwise_than_the_full_search() {
    let mut tasks = fixture_tasks();
    assert!(tasks.len() >= 150, "only {} fixtures found", tasks.len());
    for set in ["corpus-concurrency", "corpus-correctness", "corpus-adversarial-2", "corpus-adversarial-3"] {
        tasks.extend(manifest_tasks(set));
    }
    let mut decided: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut took_part: BTreeMap<&'static str, u32> = BTreeMap::new();
    let (mut compared, mut problems) = (0, Vec::new());
    for (program, witness, property, dm) in &tasks {
        let opts = ValidateOptions::new(program, witness)
            .with_property(property)
            .with_data_model(*dm)
            .with_timeout(Duration::from_secs(10));
        let Ok(first) = validate(&opts) else { continue };
        if matches!(first.verdict, Verdict::Unknown { .. }) {
            continue;
        }
        if let Some(s) = first.decided_by {
            *decided.entry(s).or_default() += 1;
        }
        for s in &first.shortcuts_used {
            *took_part.entry(s).or_default() += 1;
        }
        // Where no shortcut decided or removed states, the full search is the search that ran.
        if first.decided_by.is_none() && first.shortcuts_used.is_empty() {
            continue;
        }
        // The full search gets a short budget: most of what it cannot decide quickly (a loop a
        // proof covers) it cannot decide at all.
        let full = opts.clone().with_shortcuts(Shortcuts::NONE).with_timeout(Duration::from_secs(3));
        let Ok(full) = validate(&full) else { continue };
        let (a, b) = (kind(&first.verdict), kind(&full.verdict));
        if b != "unknown" {
            compared += 1;
            if a != b {
                problems.push(format!(
                    "{}: {a} (decided by {}), {b} by the full search ({})",
                    witness.display(),
                    first.decided_by.unwrap_or("the search"),
                    full.reason
                ));
            }
        }
    }
    eprintln!("{compared} of {} tasks decided by shortcuts were decided alike by the full search", tasks.len());
    eprintln!("decided by a shortcut: {decided:?}; shortcuts that removed states: {took_part:?}");
    assert!(problems.is_empty(), "a shortcut answers otherwise than the full search:\n{}", problems.join("\n"));
    assert!(compared >= 60, "only {compared} tasks were decided with and without shortcuts");
    // The inputs reach what the test is for (the fixtures alone reach each of these).
    for s in [Shortcut::ThreadLines, Shortcut::Projection, Shortcut::GuessingRun, Shortcut::Proof] {
        assert!(decided.contains_key(s.key()), "no task was decided by {}", s.key());
    }
    assert!(took_part.contains_key(Shortcut::PartialOrder.key()), "no task was reduced by partial-order reduction");
}
