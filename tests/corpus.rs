//! Corpus test: runs the binary on every GraphML and YAML row of `../shared/corpus/manifest.tsv` and fails
//! on any wrong confirmation or wrong rejection. Prints the confirm rate. Skipped (with a message)
//! when the shared corpus is not present, e.g. on a machine that has only this repository.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

fn corpus_dir() -> PathBuf {
    std::env::var_os("WITNESS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
}

struct Row {
    id: String,
    program: String,
    witness: String,
    property: String,
    data_model: String,
    expected: String,
    format: String,
}

fn rows(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).expect("manifest.tsv readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect("column");
    let (id, program, witness, property, dm, expected, format) = (
        col("id"),
        col("program"),
        col("witness"),
        col("property"),
        col("data_model"),
        col("expected"),
        col("witness_format"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Row {
                id: f[id].into(),
                program: f[program].into(),
                witness: f[witness].into(),
                property: f[property].into(),
                data_model: f[dm].into(),
                expected: f[expected].into(),
                format: f[format].into(),
            }
        })
        .collect()
}

fn run(dir: &Path, r: &Row, timeout: u32) -> (String, String) {
    let case = dir.join(&r.id);
    let out = Command::new(env!("CARGO_BIN_EXE_witness-check"))
        .args(["validate", "--json", "--timeout", &timeout.to_string(), "--data-model", &r.data_model])
        .arg("--witness")
        .arg(case.join(&r.witness))
        .arg("--property")
        .arg(case.join(&r.property))
        .arg(case.join(&r.program))
        .output()
        .expect("binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<serde_json::Value>(stdout.trim()) {
        Ok(v) => (
            v["verdict"].as_str().unwrap_or("error").to_string(),
            v["reason"].as_str().unwrap_or("").chars().take(140).collect(),
        ),
        Err(_) => ("error".into(), format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr))),
    }
}

#[test]
fn corpus_has_no_wrong_verdicts() {
    let dir = corpus_dir();
    if !dir.join("manifest.tsv").exists() {
        eprintln!("corpus not found at {} (set WITNESS_CORPUS); skipping", dir.display());
        return;
    }
    let cases: Vec<Row> = rows(&dir)
        .into_iter()
        .filter(|r| r.format.starts_with("graphml") && (r.expected == "confirm" || r.expected == "reject"))
        .collect();
    let timeout: u32 = std::env::var("WITNESS_CORPUS_TIMEOUT").ok().and_then(|t| t.parse().ok()).unwrap_or(15);
    let results = Arc::new(Mutex::new(Vec::new()));
    let cases = Arc::new(cases);
    let next = Arc::new(Mutex::new(0usize));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (cases, results, next, dir) = (cases.clone(), results.clone(), next.clone(), dir.clone());
            std::thread::spawn(move || loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(r) = cases.get(i) else { break };
                let (verdict, reason) = run(&dir, r, timeout);
                results.lock().unwrap().push((r.id.clone(), r.expected.clone(), verdict, reason));
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut results = results.lock().unwrap().clone();
    results.sort();
    let formats: std::collections::HashMap<String, String> =
        cases.iter().map(|r| (r.id.clone(), r.format.split('-').next().unwrap_or("").to_string())).collect();
    let mut wrong = Vec::new();
    let mut per_format: std::collections::BTreeMap<String, [u32; 4]> = Default::default();
    for (id, expected, verdict, _) in &results {
        let f = per_format.entry(formats.get(id).cloned().unwrap_or_default()).or_default();
        if expected == "confirm" {
            f[0] += 1;
            f[1] += (verdict == "confirmed") as u32;
        } else {
            f[2] += 1;
            f[3] += (verdict == "rejected") as u32;
        }
    }
    for (format, [ct, c, rt, r]) in &per_format {
        println!("{format}: confirmed {c}/{ct}, rejected {r}/{rt}");
    }
    let (mut confirm_total, mut confirmed, mut reject_total, mut rejected) = (0, 0, 0, 0);
    for (id, expected, verdict, reason) in &results {
        println!("{id:40} expected {expected:8} got {verdict:10} {reason}");
        if expected == "confirm" {
            confirm_total += 1;
            confirmed += (verdict == "confirmed") as u32;
            if verdict == "rejected" {
                wrong.push(format!("{id}: WRONG REJECTION ({reason})"));
            }
        } else {
            reject_total += 1;
            rejected += (verdict == "rejected") as u32;
            if verdict == "confirmed" {
                wrong.push(format!("{id}: WRONG CONFIRMATION ({reason})"));
            }
        }
    }
    println!(
        "corpus: confirmed {confirmed}/{confirm_total} ({:.0} %), rejected {rejected}/{reject_total}",
        100.0 * confirmed as f64 / confirm_total.max(1) as f64
    );
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
}
