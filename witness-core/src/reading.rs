//! What a reading of the witness may conclude (decision 97).
//!
//! A *reading* is one way of turning the witness into a set of allowed runs: exactly as the
//! format says, or with a constraint dropped (lines without offsets, a conjunct that cannot be
//! evaluated, a permissive stutter), or with one added or guessed (guessed nondet values, a
//! line shift, aligned offsets). Dropping a constraint lets the witness allow *more* runs: if
//! none of them reaches the violation, none of the witness's does, so such a reading may
//! reject, never confirm. Adding one lets it allow *fewer*: a
//! violating run among them is one the witness allows, so such a reading may confirm, never
//! reject.
//!
//! Every exploration declares its reading's [`Direction`] and records, while it runs, each
//! constraint it had to drop or add ([`Doubts`]). [`conclude`] is the one gate every outcome of
//! an exploration passes: a confirmation under a reading that may not confirm, or a rejection
//! under one that may not reject, becomes `unknown` with the reason. No other code decides this.

use crate::verdict::Verdict;

/// Which conclusions a reading supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The witness's runs exactly: both conclusions.
    Exact,
    /// A superset of the witness's runs (a constraint dropped): rejections only.
    Over,
    /// A subset of the witness's runs (a constraint added or guessed): confirmations only.
    Under,
    /// Neither a superset nor a subset: no conclusion.
    Neither,
}

impl Direction {
    pub fn may_confirm(self) -> bool {
        matches!(self, Direction::Exact | Direction::Under)
    }

    pub fn may_reject(self) -> bool {
        matches!(self, Direction::Exact | Direction::Over)
    }

    /// The direction after a constraint of the witness was dropped.
    pub fn loosened(self) -> Direction {
        match self {
            Direction::Exact | Direction::Over => Direction::Over,
            Direction::Under | Direction::Neither => Direction::Neither,
        }
    }

    /// The direction after a constraint was added or guessed.
    pub fn tightened(self) -> Direction {
        match self {
            Direction::Exact | Direction::Under => Direction::Under,
            Direction::Over | Direction::Neither => Direction::Neither,
        }
    }
}

/// A named reading with its declared direction.
#[derive(Debug, Clone)]
pub struct Reading {
    pub name: &'static str,
    pub direction: Direction,
}

impl Reading {
    pub const EXACT: Reading = Reading { name: "the witness as written", direction: Direction::Exact };
    /// GraphML: steps whose matching transitions all die may be skipped, several transitions
    /// may fire per step (decision 8's double check).
    pub const PERMISSIVE: Reading = Reading { name: "a permissive stutter reading", direction: Direction::Over };
    /// Concrete guesses for the nondet values the witness leaves open (decision 67).
    pub const GUESSED_VALUES: Reading = Reading { name: "guessed input values", direction: Direction::Under };
    /// Every line moved by a constant (decision 38).
    pub const SHIFTED: Reading = Reading { name: "a constant line shift", direction: Direction::Under };
    /// Offsets aligned line by line with this file's conditions (decision 55).
    pub const ALIGNED: Reading = Reading { name: "offsets aligned line by line", direction: Direction::Under };
}

/// Constraints an exploration dropped or added while it ran (the first reason of each kind).
#[derive(Debug, Clone, Default)]
pub struct Doubts {
    /// A constraint of the witness was dropped (e.g. a conjunct that cannot be evaluated).
    pub loosened: Option<String>,
    /// A constraint was added or guessed (e.g. an assumption scope that names no function).
    pub tightened: Option<String>,
    /// `loosened` is an assumption about the program, not a constraint of the witness
    /// (decision 228: a function it only declares returns).
    pub loosened_by_program: bool,
}

impl Doubts {
    pub fn loosen(&mut self, why: impl Into<String>) {
        if self.loosened.is_none() {
            self.loosened = Some(why.into());
        }
    }

    /// Like [`Doubts::loosen`], for what the exploration assumes of the program itself (what a
    /// function the program only declares does): the same direction, its own words.
    pub fn assume_of_program(&mut self, why: impl Into<String>) {
        if self.loosened.is_none() {
            self.loosened = Some(why.into());
            self.loosened_by_program = true;
        }
    }

    pub fn tighten(&mut self, why: impl Into<String>) {
        if self.tightened.is_none() {
            self.tightened = Some(why.into());
        }
    }

    /// The direction of a reading declared `declared` after these doubts.
    pub fn direction(&self, declared: Direction) -> Direction {
        let mut d = declared;
        if self.loosened.is_some() {
            d = d.loosened();
        }
        if self.tightened.is_some() {
            d = d.tightened();
        }
        d
    }
}

/// What a conclusion is about (issue 32, decision 184). The verdict's words stay the program's
/// (`Confirmed`: a run violates a claim; `Rejected`: none does), but what may justify each
/// depends on the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// A violation witness (or a lasso): `Confirmed` = a run the witness allows violates the
    /// property; `Rejected` = no run the witness allows does. Following the witness automaton
    /// is the point; the readings' directions (decision 97) decide.
    Violation,
    /// A correctness witness: `Rejected` = the program is correct and every invariant holds
    /// (the witness confirmed), which needs *every run of the program* examined or an inductive
    /// proof; `Confirmed` = a run falsifies an invariant or the property (the witness refuted),
    /// which needs exact values.
    Correctness,
}

/// What a search covered, recorded while it ran (the first reason of each kind). Every source
/// of incompleteness declares here what it costs: runs of the program the search did not
/// examine (it followed the witness automaton, cut paths at a bound, pruned, merged), or values
/// it knew only approximately.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// Runs of the program were not examined: no "correct" for a correctness witness.
    pub lost_runs: Option<String>,
    /// A conclusion rests on values known only approximately: no refutation.
    pub inexact: Option<String>,
}

impl Coverage {
    pub fn lose_runs(&mut self, why: impl Into<String>) {
        if self.lost_runs.is_none() {
            self.lost_runs = Some(why.into());
        }
    }
}

/// The gate for every claim: [`conclude`] (the reading's direction) and then what the search
/// covered. A correctness witness's confirmation (`Rejected`) needs a search that lost no run of
/// the program; its refutation (`Confirmed`) needs exact values. Nothing else decides this.
pub fn conclude_claim(
    claim: Claim,
    reading: &Reading,
    doubts: &Doubts,
    coverage: &Coverage,
    verdict: Verdict,
) -> (Verdict, Option<String>) {
    let (verdict, why) = conclude(reading, doubts, verdict);
    if claim == Claim::Violation {
        return (verdict, why);
    }
    match (&verdict, &coverage.lost_runs, &coverage.inexact) {
        (Verdict::Rejected, Some(lost), _) => {
            let reason = format!("no run the search examined violates the witness's claims, but {lost}");
            (Verdict::Unknown { reason: reason.clone() }, Some(reason))
        }
        (Verdict::Confirmed { .. }, _, Some(inexact)) => {
            let reason = format!("a run falsifies a claim of the witness, but {inexact}");
            (Verdict::Unknown { reason: reason.clone() }, Some(reason))
        }
        _ => (verdict, why),
    }
}

/// The gate: what `verdict`, found under `reading` with `doubts`, may say. A conclusion the
/// reading does not support becomes `unknown`, and the returned reason says why.
pub fn conclude(reading: &Reading, doubts: &Doubts, verdict: Verdict) -> (Verdict, Option<String>) {
    let direction = doubts.direction(reading.direction);
    let why = |what: &str| -> String {
        let mut parts = Vec::new();
        if reading.direction != Direction::Exact {
            parts.push(format!("it rests on {}", reading.name));
        }
        match (&doubts.loosened, &doubts.tightened) {
            (Some(l), Some(t)) if l == t => parts.push(format!("the witness's reading is ambiguous: {l}")),
            (l, t) => {
                match l {
                    Some(l) if doubts.loosened_by_program => parts.push(format!("it rests on an assumption ({l})")),
                    Some(l) => parts.push(format!("a constraint of the witness was dropped ({l})")),
                    None => {}
                }
                if let Some(t) = t {
                    parts.push(format!("a constraint was added to the witness ({t})"));
                }
            }
        }
        format!("{what}, but {}", parts.join(" and "))
    };
    match verdict {
        Verdict::Confirmed { .. } if !direction.may_confirm() => {
            let reason = why("a path to the violation was found");
            (Verdict::Unknown { reason: reason.clone() }, Some(reason))
        }
        Verdict::Rejected if !direction.may_reject() => {
            let reason = why("no allowed path reaches the violation");
            (Verdict::Unknown { reason: reason.clone() }, Some(reason))
        }
        v => (v, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confirmed() -> Verdict {
        Verdict::Confirmed { trace: Vec::new(), error_function: "reach_error".into(), call: None, lost_blocks: None }
    }

    #[test]
    fn a_correctness_claim_needs_every_run_and_exact_values() {
        let none = Doubts::default();
        let full = Coverage::default();
        let mut partial = Coverage::default();
        partial.lose_runs("the search follows the witness automaton");
        let inexact = Coverage { lost_runs: None, inexact: Some("sin(0.5) is known within 4 ulps".into()) };
        let c = Claim::Correctness;
        assert!(matches!(conclude_claim(c, &Reading::EXACT, &none, &full, Verdict::Rejected).0, Verdict::Rejected));
        let (v, why) = conclude_claim(c, &Reading::EXACT, &none, &partial, Verdict::Rejected);
        assert!(matches!(v, Verdict::Unknown { .. }) && why.unwrap().contains("witness automaton"));
        // Losing runs does not stop a refutation; approximate values do.
        assert!(matches!(
            conclude_claim(c, &Reading::EXACT, &none, &partial, confirmed()).0,
            Verdict::Confirmed { .. }
        ));
        assert!(matches!(conclude_claim(c, &Reading::EXACT, &none, &inexact, confirmed()).0, Verdict::Unknown { .. }));
        // A violation witness's rejection follows the automaton by design.
        let v = Claim::Violation;
        assert!(matches!(conclude_claim(v, &Reading::EXACT, &none, &partial, Verdict::Rejected).0, Verdict::Rejected));
    }

    #[test]
    fn directions_compose() {
        use Direction::*;
        assert_eq!(Exact.loosened(), Over);
        assert_eq!(Exact.tightened(), Under);
        assert_eq!(Over.tightened(), Neither);
        assert_eq!(Under.loosened(), Neither);
        assert!(Exact.may_confirm() && Exact.may_reject());
        assert!(!Over.may_confirm() && Over.may_reject());
        assert!(Under.may_confirm() && !Under.may_reject());
        assert!(!Neither.may_confirm() && !Neither.may_reject());
    }

    #[test]
    fn the_gate_turns_unsupported_conclusions_into_unknown() {
        let none = Doubts::default();
        let mut dropped = Doubts::default();
        dropped.loosen("conjunct `a[i] == 7` cannot be evaluated");
        // Exact: both.
        assert!(matches!(conclude(&Reading::EXACT, &none, confirmed()).0, Verdict::Confirmed { .. }));
        assert!(matches!(conclude(&Reading::EXACT, &none, Verdict::Rejected).0, Verdict::Rejected));
        // A dropped conjunct: a rejection stands, a confirmation does not.
        assert!(matches!(conclude(&Reading::EXACT, &dropped, Verdict::Rejected).0, Verdict::Rejected));
        let (v, why) = conclude(&Reading::EXACT, &dropped, confirmed());
        assert!(matches!(v, Verdict::Unknown { .. }));
        assert!(why.unwrap().contains("a[i] == 7"));
        // Under-approximations never reject, over-approximations never confirm.
        assert!(matches!(conclude(&Reading::SHIFTED, &none, Verdict::Rejected).0, Verdict::Unknown { .. }));
        assert!(matches!(conclude(&Reading::SHIFTED, &none, confirmed()).0, Verdict::Confirmed { .. }));
        assert!(matches!(conclude(&Reading::PERMISSIVE, &none, confirmed()).0, Verdict::Unknown { .. }));
        // Guessed values with a dropped conjunct: nothing.
        assert!(matches!(conclude(&Reading::GUESSED_VALUES, &dropped, confirmed()).0, Verdict::Unknown { .. }));
        // Unknown stays unknown.
        let u = Verdict::Unknown { reason: "x".into() };
        assert!(matches!(conclude(&Reading::EXACT, &none, u).0, Verdict::Unknown { .. }));
    }
}
