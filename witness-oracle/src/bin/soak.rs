//! `make soak`: the differential oracle for `SOAK_SECONDS` (default 600).
//!
//! Options: `--seconds N`, `--seed N`, `--jobs N`, `--all-features` (also the features known to
//! mismatch today), `--out DIR` (findings; default `target/soak/findings`), `--no-shrink`,
//! `--claims violation,correctness,threads` (the phases to run; the time is shared among them:
//! violation 25 %, correctness 50 %, threads 25 % of it when all three run).

use std::path::PathBuf;
use std::time::Duration;

use witness_oracle::gen::Features;
use witness_oracle::oracle::{run, Config};
use witness_oracle::round::Round;
use witness_oracle::{contracts, correctness, threads};

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
    let mut claims = vec!["violation".to_string(), "correctness".into(), "threads".into()];
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
            "--claims" => {
                claims = args.next().map(|v| v.split(',').map(str::to_string).collect()).unwrap_or_default();
                if claims.is_empty()
                    || claims.iter().any(|c| !["violation", "correctness", "threads"].contains(&c.as_str()))
                {
                    eprintln!("soak: --claims takes a comma-separated list of violation, correctness, threads");
                    std::process::exit(2)
                }
            }
            "--out" => {
                out = args.next().map(PathBuf::from).unwrap_or_else(|| {
                    eprintln!("soak: --out needs a directory");
                    std::process::exit(2)
                })
            }
            _ => {
                eprintln!("usage: soak [--seconds N] [--seed N] [--jobs N] [--claims LIST] [--all-features] [--no-shrink] [--out DIR]");
                std::process::exit(2)
            }
        }
    }
    let work = out.join("work");
    witness_oracle::shortcuts::write_findings_to(out.join("findings"));
    for m32 in [false, true] {
        if let Err(e) = witness_oracle::native::gcc_available(&work, m32) {
            eprintln!("soak: gcc cannot build sanitized programs here ({e}); install gcc and gcc-multilib");
            std::process::exit(2);
        }
    }
    // Issue 32 item 4: the time is split in phases, one per claim, each on every core, in
    // proportion to what a case costs (a correctness witness needs a proof; a thread case is
    // cheap): violation 25 %, correctness 50 %, threads 25 % (issue 51: each shortcut decides
    // at least 50 cases in 1800 s; the correctness phase's native and bounded refutations need
    // its long runs, the violation phase's shortcuts decide many more).
    let weight = |c: &str| match c {
        "violation" => 25,
        "correctness" => 50,
        _ => 25,
    };
    let total: u64 = claims.iter().map(|c| weight(c)).sum();
    let share = |c: &str| if claims.iter().any(|x| x == c) { seconds * weight(c) / total } else { 0 };
    let cfg = Config {
        seed,
        features,
        work_dir: work.clone(),
        findings_dir: out.join("findings"),
        budget: Duration::from_secs(share("violation")),
        max_programs: None,
        workers: jobs,
        search_runs: 48,
        timeout: Duration::from_secs(10),
        shrink,
        progress: Some(Duration::from_secs(30)),
    };
    eprintln!(
        "soak: seed {seed}, {} s for violation witnesses, {} s for correctness witnesses, {} s for threads, {jobs} \
         workers, findings in {}",
        share("violation"),
        share("correctness"),
        share("threads"),
        cfg.findings_dir.display()
    );
    let stats = if share("violation") > 0 {
        let stats = run(&cfg);
        println!("{}", stats.summary());
        stats
    } else {
        Default::default()
    };
    // One round in six is of function contracts (issue 51: formals assigned, ACSL's integers).
    let c = rounds(seed, share("correctness"), jobs, &work, "correctness", |s, w, d| {
        if s % 6 == 5 {
            contracts::round(s, 3, w, Duration::from_secs(5), Some(d))
        } else {
            correctness::round(s, 5, w, Duration::from_secs(5), Some(d))
        }
    });
    println!("{}", c.summary("correctness"));
    let t = rounds(seed, share("threads"), jobs, &work, "threads", |s, w, d| {
        threads::round(s, 5, w, Duration::from_secs(5), Some(d))
    });
    println!("{}", t.summary("threads"));
    println!(
        "mix by claim: violation {} cases, {} mismatches; correctness {} cases, {} mismatches; threads {} cases, {} mismatches",
        stats.cases,
        stats.mismatches.len(),
        c.cases,
        c.mismatches.len(),
        t.cases,
        t.mismatches.len()
    );
    // Issue 51: each shortcut over every claim, against the full search.
    let mut all = stats.shortcuts.clone();
    all.absorb(&c.shortcuts);
    all.absorb(&t.shortcuts);
    println!("{}", all.summary("all"));
    for m in &c.mismatches {
        println!("CORRECTNESS MISMATCH: {m}");
    }
    for m in &t.mismatches {
        println!("THREAD MISMATCH: {m}");
    }
    if !stats.mismatches.is_empty() || !c.mismatches.is_empty() || !t.mismatches.is_empty() {
        std::process::exit(1);
    }
}

/// Rounds of one claim's oracle on `jobs` threads for `seconds` (seeds from `seed`), merged.
fn rounds(
    seed: u64,
    seconds: u64,
    jobs: usize,
    work: &std::path::Path,
    name: &'static str,
    round: fn(u64, &std::path::Path, std::time::Instant) -> Round,
) -> Round {
    let deadline = std::time::Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..jobs.max(1))
        .map(|w| {
            let work = work.join(format!("{name}-{w}"));
            std::thread::spawn(move || {
                let mut total = Round::default();
                let mut k = 0u64;
                let started = std::time::Instant::now();
                while std::time::Instant::now() < deadline {
                    let s = seed.wrapping_mul(1_000_003).wrapping_add(w as u64 * 1_000_000 + k);
                    let r = round(s, &work, deadline);
                    if !r.mismatches.is_empty() && total.mismatches.is_empty() {
                        eprintln!(
                            "soak: {name}: worker {w}'s first mismatch after {:.0} s of this phase",
                            started.elapsed().as_secs_f64()
                        );
                    }
                    total.absorb(r);
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
