//! `make soak`: the differential oracle for `SOAK_SECONDS` (default 600).
//!
//! Options: `--seconds N`, `--seed N`, `--jobs N`, `--all-features` (also the features known to
//! mismatch today), `--out DIR` (findings; default `target/soak/findings`), `--no-shrink`.

use std::path::PathBuf;
use std::time::Duration;

use witness_oracle::correctness::{self, Round};
use witness_oracle::gen::Features;
use witness_oracle::oracle::{run, Config};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut seconds: u64 = std::env::var("SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let mut seed: u64 = std::env::var("SOAK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(1)
    });
    let mut jobs: usize = std::env::var("SOAK_JOBS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2));
    let mut features = Features::sound();
    let mut out = PathBuf::from("target/soak");
    let mut shrink = true;
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> u64 {
            args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
                eprintln!("soak: {name} needs a number");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--seconds" => seconds = num("--seconds"),
            "--seed" => seed = num("--seed"),
            "--jobs" => jobs = num("--jobs") as usize,
            "--all-features" => features = Features::all(),
            "--no-shrink" => shrink = false,
            "--out" => {
                out = args.next().map(PathBuf::from).unwrap_or_else(|| {
                    eprintln!("soak: --out needs a directory");
                    std::process::exit(2)
                })
            }
            _ => {
                eprintln!("usage: soak [--seconds N] [--seed N] [--jobs N] [--all-features] [--no-shrink] [--out DIR]");
                std::process::exit(2)
            }
        }
    }
    let work = out.join("work");
    for m32 in [false, true] {
        if let Err(e) = witness_oracle::native::gcc_available(&work, m32) {
            eprintln!("soak: gcc cannot build sanitized programs here ({e}); install gcc and gcc-multilib");
            std::process::exit(2);
        }
    }
    // Issue 32 item 4: a third of the time goes to correctness witnesses (their own rounds, one
    // per worker, seeds from `seed`), the rest to violation witnesses.
    let correctness_secs = seconds / 3;
    let correctness = {
        let work = work.clone();
        std::thread::spawn(move || correctness_rounds(seed, correctness_secs, jobs, &work))
    };
    let seconds = seconds - correctness_secs;
    let cfg = Config {
        seed,
        features,
        work_dir: work,
        findings_dir: out.join("findings"),
        budget: Duration::from_secs(seconds),
        max_programs: None,
        workers: jobs,
        search_runs: 48,
        timeout: Duration::from_secs(10),
        shrink,
        progress: Some(Duration::from_secs(30)),
    };
    eprintln!(
        "soak: seed {seed}, {seconds} s for violation witnesses and, beside them, {correctness_secs} s for correctness \
         witnesses, {jobs} workers each, findings in {}",
        cfg.findings_dir.display()
    );
    let stats = run(&cfg);
    println!("{}", stats.summary());
    let c = correctness.join().unwrap_or_default();
    println!(
        "mix by claim: violation {} cases; correctness {} witnesses of {} programs ({} valid): {} agree, {} unknown, {} mismatches; threads 0 (not generated yet)",
        stats.cases,
        c.cases,
        c.programs,
        c.valid,
        c.agree,
        c.unknown,
        c.mismatches.len()
    );
    for m in &c.mismatches {
        println!("CORRECTNESS MISMATCH: {m}");
    }
    if !stats.mismatches.is_empty() || !c.mismatches.is_empty() {
        std::process::exit(1);
    }
}

/// Correctness rounds on `jobs` threads for `seconds`, merged.
fn correctness_rounds(seed: u64, seconds: u64, jobs: usize, work: &std::path::Path) -> Round {
    let deadline = std::time::Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..jobs.max(1))
        .map(|w| {
            let work = work.join(format!("correctness-{w}"));
            std::thread::spawn(move || {
                let mut total = Round::default();
                let mut k = 0u64;
                while std::time::Instant::now() < deadline {
                    let s = seed.wrapping_mul(1_000_003).wrapping_add(w as u64 * 1_000_000 + k);
                    total.absorb(correctness::round(s, 5, &work, Duration::from_secs(10), Some(deadline)));
                    k += 1;
                }
                total
            })
        })
        .collect();
    let mut all = Round::default();
    for w in workers {
        if let Ok(r) = w.join() {
            all.absorb(r);
        }
    }
    all
}
