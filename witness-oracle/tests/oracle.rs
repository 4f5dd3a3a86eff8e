//! The differential oracle's seeded round (issue 19): a fixed seed, a fixed number of
//! generated programs, every verdict checked against gcc. Fails when any verdict mismatches
//! the native runs, and fails loudly when gcc cannot build sanitized 32- and 64-bit programs
//! (CI installs gcc and gcc-multilib with scripts/setup). Set `WITNESS_ORACLE_SKIP=1` to skip
//! it on a machine without them; the skip is printed.

use std::path::PathBuf;
use std::time::Duration;

use witness_oracle::gen::Features;
use witness_oracle::oracle::{run, Config};

#[test]
fn seeded_round_has_no_mismatch() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-seeded");
    let _ = std::fs::remove_dir_all(&work);
    for m32 in [false, true] {
        if let Err(e) = witness_oracle::native::gcc_available(&work, m32) {
            if std::env::var_os("WITNESS_ORACLE_SKIP").is_some() {
                eprintln!("SKIPPED: the differential oracle needs gcc with sanitizers and -m32 ({e})");
                return;
            }
            panic!(
                "the differential oracle needs gcc with sanitizers and -m32 ({e}); run scripts/setup (gcc, \
                 gcc-multilib) or set WITNESS_ORACLE_SKIP=1 to skip this test"
            );
        }
    }
    let cfg = Config {
        seed: 19,
        features: Features::sound(),
        work_dir: work.join("work"),
        findings_dir: work.join("findings"),
        budget: Duration::from_secs(900),
        max_programs: Some(10),
        workers: 2,
        search_runs: 48,
        timeout: Duration::from_secs(20),
        shrink: false,
        progress: None,
    };
    let stats = run(&cfg);
    eprintln!("{}", stats.summary());
    assert!(stats.mismatches.is_empty(), "the oracle found mismatches:\n{}", stats.summary());
    assert!(stats.programs >= 20, "too few programs generated: {}", stats.programs);
    assert!(stats.confirmed >= 80 && stats.rejected >= 40, "too few definite verdicts:\n{}", stats.summary());
}

/// Issue 32 item 4: the seeded round of the correctness-witness oracle (seed 32, 12 programs,
/// about 36 witnesses): no mismatch, and enough definite verdicts of both kinds.
#[test]
fn seeded_correctness_round_has_no_mismatch() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-correctness");
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = witness_oracle::native::gcc_available(&work, true) {
        if std::env::var_os("WITNESS_ORACLE_SKIP").is_some() {
            eprintln!("SKIPPED: the correctness oracle needs gcc with -m32 ({e})");
            return;
        }
        panic!("the correctness oracle needs gcc with -m32 ({e}); run scripts/setup");
    }
    // 6 s a case: a long run (decision 239) that no engine decides costs its timeout twice.
    let r = witness_oracle::correctness::round(32, 12, &work, Duration::from_secs(6), None);
    eprintln!(
        "correctness round: {} programs, {} witnesses ({} valid), {} agree, {} unknown, {} mismatches",
        r.programs,
        r.cases,
        r.valid,
        r.agree,
        r.unknown,
        r.mismatches.len()
    );
    assert!(r.mismatches.is_empty(), "mismatches:\n{}", r.mismatches.join("\n\n"));
    assert!(r.programs >= 10, "only {} programs ran natively", r.programs);
    assert!(r.agree >= r.cases / 2, "too few definite verdicts: {} of {}", r.agree, r.cases);
    assert!(r.valid > 0 && r.valid < r.cases, "the round needs valid and invalid witnesses");
}

/// Issue 32 item 4: the seeded round of the thread oracle (seed 32, 12 programs): every
/// schedule enumerated natively, no mismatch (reduced or unreduced), enough definite verdicts.
#[test]
fn seeded_thread_round_has_no_mismatch() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-threads");
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = witness_oracle::native::gcc_available(&work, false) {
        if std::env::var_os("WITNESS_ORACLE_SKIP").is_some() {
            eprintln!("SKIPPED: the thread oracle needs gcc ({e})");
            return;
        }
        panic!("the thread oracle needs gcc ({e}); run scripts/setup");
    }
    let r = witness_oracle::threads::round(32, 12, &work, Duration::from_secs(20), None);
    eprintln!(
        "thread round: {} programs, {} schedules, {} witnesses ({} valid), {} agree, {} unknown, {} mismatches; native {:.1} s, validation {:.1} s; unknown: {:?}",
        r.programs,
        r.schedules,
        r.cases,
        r.valid,
        r.agree,
        r.unknown,
        r.mismatches.len(),
        r.native_secs,
        r.validate_secs,
        r.unknown_reasons
    );
    assert!(r.mismatches.is_empty(), "mismatches:\n{}", r.mismatches.join("\n\n"));
    assert!(r.programs >= 10, "only {} programs ran natively", r.programs);
    assert!(r.agree >= r.cases / 2, "too few definite verdicts: {} of {}", r.agree, r.cases);
    assert!(r.valid > 0 && r.valid < r.cases, "the round needs valid and invalid witnesses");
}

/// Issue 51: the seeded round of the function-contract oracle (seed 51, 8 programs): formals
/// assigned before the return, arguments near `UINT_MAX`, long runs; no mismatch with the
/// truth read in ACSL's unbounded integers, nor with the full search.
#[test]
fn seeded_contract_round_has_no_mismatch() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-contracts");
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = witness_oracle::native::gcc_available(&work, true) {
        if std::env::var_os("WITNESS_ORACLE_SKIP").is_some() {
            eprintln!("SKIPPED: the contract oracle needs gcc with -m32 ({e})");
            return;
        }
        panic!("the contract oracle needs gcc with -m32 ({e}); run scripts/setup");
    }
    let r = witness_oracle::contracts::round(51, 8, &work, Duration::from_secs(6), None);
    eprintln!(
        "contract round: {} programs, {} witnesses ({} valid), {} agree, {} unknown, {} mismatches; unknown: {:?}; mix: {:?}",
        r.programs,
        r.cases,
        r.valid,
        r.agree,
        r.unknown,
        r.mismatches.len(),
        r.unknown_reasons,
        r.mix
    );
    assert!(r.mismatches.is_empty(), "mismatches:\n{}", r.mismatches.join("\n\n"));
    assert!(r.programs >= 6, "only {} programs ran natively", r.programs);
    assert!(r.agree >= r.cases / 2, "too few definite verdicts: {} of {}", r.agree, r.cases);
    assert!(r.valid > 0 && r.valid < r.cases, "the round needs valid and invalid contracts");
}
