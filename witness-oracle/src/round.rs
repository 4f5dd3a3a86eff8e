//! What a round of the correctness or the thread oracle counted (issue 32 item 4), and the
//! seeded random source both draw their programs from.

use std::collections::BTreeMap;

use proptest::test_runner::{RngAlgorithm, TestRng};

/// What the validator answered against the truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    Agree,
    Unknown,
    /// A wrong `true` or a wrong `false` (or a panic), with what was expected.
    Mismatch(String),
}

/// Statistics of a round; rounds add up with [`Round::absorb`].
#[derive(Debug, Default, Clone)]
pub struct Round {
    pub programs: usize,
    /// Schedules run natively (the thread oracle).
    pub schedules: usize,
    pub cases: usize,
    pub valid: usize,
    pub agree: usize,
    pub unknown: usize,
    pub mismatches: Vec<String>,
    /// Unknown answers by the first line of their reason (the coverage the round lacks).
    pub unknown_reasons: BTreeMap<String, usize>,
    /// Cases by format, property, site, mutation or order of methods.
    pub mix: BTreeMap<&'static str, usize>,
    /// Seconds spent natively (builds and runs) and validating.
    pub native_secs: f64,
    pub validate_secs: f64,
    /// Each shortcut against the full search (issue 51, decision 238).
    pub shortcuts: crate::shortcuts::Tally,
}

impl Round {
    /// Adds another round's counts and mismatches.
    pub fn absorb(&mut self, r: Round) {
        self.programs += r.programs;
        self.schedules += r.schedules;
        self.cases += r.cases;
        self.valid += r.valid;
        self.agree += r.agree;
        self.unknown += r.unknown;
        self.mismatches.extend(r.mismatches);
        for (k, v) in r.unknown_reasons {
            *self.unknown_reasons.entry(k).or_default() += v;
        }
        for (k, v) in r.mix {
            *self.mix.entry(k).or_default() += v;
        }
        self.native_secs += r.native_secs;
        self.validate_secs += r.validate_secs;
        self.shortcuts.absorb(&r.shortcuts);
    }

    /// Counts one judged case; a mismatch is written as `what (` followed by `case()`.
    pub fn judged(&mut self, j: Judgement, reason: &str, case: impl FnOnce() -> String) {
        match j {
            Judgement::Agree => self.agree += 1,
            Judgement::Unknown => self.unknown_because(reason),
            Judgement::Mismatch(what) => self.mismatches.push(format!("{what} ({}", case())),
        }
    }

    /// Counts an unknown answer and its reason.
    fn unknown_because(&mut self, reason: &str) {
        self.unknown += 1;
        let key: String = reason.lines().next().unwrap_or("").chars().take(90).collect();
        *self.unknown_reasons.entry(key).or_default() += 1;
    }

    /// One line: the counts, the worker time, then the unknown reasons and the mix.
    pub fn summary(&self, what: &str) -> String {
        let mut s = format!(
            "{what}: {} witnesses of {} programs ({} valid{}): {} agree, {} unknown, {} mismatches; worker time: native {:.0} s, validation {:.0} s",
            self.cases,
            self.programs,
            self.valid,
            if self.schedules > 0 { format!(", {} schedules run natively", self.schedules) } else { String::new() },
            self.agree,
            self.unknown,
            self.mismatches.len(),
            self.native_secs,
            self.validate_secs
        );
        for (reason, n) in &self.unknown_reasons {
            s.push_str(&format!("\n  {what} unknown {n:>5}: {reason}"));
        }
        if !self.mix.is_empty() {
            s.push_str(&format!("\n  {what} mix: {:?}", self.mix));
        }
        s.push('\n');
        s.push_str(&self.shortcuts.summary(what));
        s
    }
}

/// The random source of a round: ChaCha from `seed`, with `salt` keeping the oracles' streams
/// apart.
pub fn seeded(seed: u64, salt: u8) -> TestRng {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    s[8] = salt;
    TestRng::from_seed(RngAlgorithm::ChaCha, &s)
}
