//! Benchmark: validates every case of a corpus manifest several times in-process and prints the
//! median and 90th percentile wall time per case, plus the overall figures.
//!
//! Usage: `corpus-bench [MANIFEST.tsv] [--runs N] [--timeout SECS] [--format graphml|yaml]`
//! (default manifest `../shared/corpus/manifest.tsv`, 5 runs, 90 s budget).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use witness_core::validate::{parse_data_model, validate, ValidateOptions};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut manifest = PathBuf::from("../shared/corpus/manifest.tsv");
    let (mut runs, mut timeout, mut format) = (5usize, 90u64, String::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).unwrap_or(runs),
            "--timeout" => timeout = args.next().and_then(|v| v.parse().ok()).unwrap_or(timeout),
            "--format" => format = args.next().unwrap_or_default(),
            other => manifest = PathBuf::from(other),
        }
    }
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        eprintln!("corpus-bench: cannot read {}", manifest.display());
        std::process::exit(2);
    };
    let base = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |n: &str| header.iter().position(|h| *h == n);
    let (Some(id), Some(prog), Some(wit), Some(prp), Some(dm), Some(fmt)) =
        (col("id"), col("program"), col("witness"), col("property"), col("data_model"), col("witness_format"))
    else {
        eprintln!("corpus-bench: manifest lacks the expected columns");
        std::process::exit(2);
    };
    let mut medians = Vec::new();
    let mut all = Vec::new();
    println!("{:40} {:>10} {:>10}  verdict", "case", "median ms", "p90 ms");
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        if !format.is_empty() && !f[fmt].starts_with(&format) {
            continue;
        }
        let case = base.join(f[id]);
        let mut opts = ValidateOptions::new(case.join(f[prog]), case.join(f[wit]))
            .with_property(case.join(f[prp]))
            .with_timeout(Duration::from_secs(timeout));
        opts.data_model = parse_data_model(f[dm]);
        let mut times = Vec::new();
        let mut verdict = String::new();
        for _ in 0..runs {
            let t = Instant::now();
            let r = validate(&opts);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            verdict = match r {
                Ok(rep) => rep.verdict.name().to_string(),
                Err(_) => "error".into(),
            };
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let (med, p90) = (percentile(&times, 0.5), percentile(&times, 0.9));
        println!("{:40} {:>10.1} {:>10.1}  {verdict}", f[id], med, p90);
        medians.push(med);
        all.extend(times);
    }
    medians.sort_by(|a, b| a.total_cmp(b));
    all.sort_by(|a, b| a.total_cmp(b));
    println!(
        "overall: {} cases, median of medians {:.1} ms, p90 of medians {:.1} ms, p90 of all runs {:.1} ms",
        medians.len(),
        percentile(&medians, 0.5),
        percentile(&medians, 0.9),
        percentile(&all, 0.9)
    );
}
