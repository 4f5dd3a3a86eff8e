//! Issue 32 item 2: the partial-order reduction against the unreduced search. Every
//! multi-threaded case among the fixtures (and, where `../shared` is present, the concurrency
//! and second adversarial corpora) is validated twice in-process, with the reduction and with
//! every interleaving; the two verdicts must agree wherever both are definite, and the reduced
//! search may never decide where the unreduced one decides the other way. The reduction claims to
//! lose no violating run and no witness transition (decision 176): this is what that claim says
//! on real inputs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use witness_core::cfa::DataModel;
use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::Verdict;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (program, witness, property, data model) of every case whose program uses threads.
fn threaded_cases() -> Vec<(PathBuf, PathBuf, PathBuf, DataModel)> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for base in ["fixtures/yaml/cases", "fixtures/trust", "fixtures/graphml/cases"] {
        if let Ok(rd) = std::fs::read_dir(root().join(base)) {
            dirs.extend(rd.flatten().map(|e| e.path()));
        }
    }
    let shared = root().join("../shared");
    for set in ["corpus-concurrency", "corpus-adversarial-2"] {
        if let Ok(rd) = std::fs::read_dir(shared.join(set)) {
            dirs.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let Some(program) =
            std::fs::read_dir(&d).ok().into_iter().flatten().flatten().map(|e| e.path()).find(|p| {
                matches!(p.extension().and_then(|x| x.to_str()), Some("c" | "i")) && !p.ends_with("replay.c")
            })
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&program) else { continue };
        if !text.contains("pthread_create") {
            continue;
        }
        let witness =
            ["witness.yml", "witness.graphml", "witness.yaml"].iter().map(|w| d.join(w)).find(|p| p.is_file());
        let property = std::fs::read_dir(&d)
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "prp"));
        let (Some(witness), Some(property)) = (witness, property) else { continue };
        let expected = std::fs::read_to_string(d.join("expected.txt")).unwrap_or_default();
        let dm = if expected.contains("LP64") || text.contains("__x86_64__") {
            DataModel::Lp64
        } else if expected.contains("ILP32") {
            DataModel::Ilp32
        } else {
            // Corpus cases: the witness's `architecture` or `data_model` decides.
            let w = std::fs::read_to_string(&witness).unwrap_or_default();
            if w.contains("32bit") || w.contains("ILP32") {
                DataModel::Ilp32
            } else {
                DataModel::Lp64
            }
        };
        out.push((program, witness, property, dm));
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
fn reduced_and_unreduced_searches_agree() {
    let cases = threaded_cases();
    assert!(cases.len() >= 20, "only {} multi-threaded cases found", cases.len());
    let mut compared = 0;
    let mut problems = Vec::new();
    for (program, witness, property, dm) in &cases {
        let run = |reduce: bool| {
            let mut o = ValidateOptions::new(program, witness)
                .with_property(property)
                .with_data_model(*dm)
                .with_timeout(Duration::from_secs(10));
            o.shortcuts.set(witness_core::shortcuts::Shortcut::PartialOrder, reduce);
            validate(&o).map(|r| r.verdict)
        };
        let (Ok(reduced), Ok(full)) = (run(true), run(false)) else { continue };
        let (a, b) = (kind(&reduced), kind(&full));
        if a != "unknown" && b != "unknown" {
            compared += 1;
            if a != b {
                problems.push(format!("{}: reduced {a}, unreduced {b}", witness.display()));
            }
        }
    }
    assert!(problems.is_empty(), "the reduction changes verdicts:\n{}", problems.join("\n"));
    assert!(compared >= 15, "only {compared} cases were decided by both searches");
    eprintln!("partial-order reduction: {compared} of {} multi-threaded cases decided alike", cases.len());
}
