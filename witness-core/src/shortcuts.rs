//! Every shortcut in one place (issue 51, decision 237): whatever decides a verdict, or removes
//! states or runs, without the full search.
//!
//! The full search of a violation witness is the product of program and witness explored over
//! every interleaving, every branch and every value the witness allows; of a correctness witness
//! it is the search over every run of the program with each invariant checked where it must hold.
//! A shortcut is faster and answers only where it can: a static argument before the search, an
//! engine that runs instead of it, a reduction that explores fewer states in it. Each one is
//! declared here with its *direction*, per claim, as the gate of decision 184 reads it
//! (`reading::Direction`, over the verdict's own words: `Confirmed` = a run violates
//! the claim, `Rejected` = none does):
//! - `Over` may only reject: for a violation witness "no allowed run reaches the violation", for
//!   a correctness witness "every invariant holds" (the witness confirmed);
//! - `Under` may only confirm: for a violation witness a run it allows, for a correctness witness
//!   a run that falsifies an invariant (the witness refuted);
//! - `Exact` claims the full search's answer either way (a reduction that keeps every verdict);
//! - `Neither` decides nothing (an explanation only).
//!
//! Every conclusion a shortcut reaches passes [`Shortcut::admit`], which turns a conclusion
//! outside its declaration into `unknown`. Each shortcut has a switch ([`Shortcuts`] in
//! `ValidateOptions`, not a command-line flag): the soak validates every generated case as users
//! run it and with every shortcut off, and two different definite answers are a mismatch
//! (`witness-oracle`). Adding a shortcut means adding a variant here: the declaration table is
//! an exhaustive `match`, and the unit tests check that each variant is declared, documented in
//! ARCHITECTURE.md's table and counted by the soak.

use crate::reading::{Claim, Direction, Reading};
use crate::verdict::Verdict;

/// One shortcut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shortcut {
    /// Facts of the witness graph alone: no violation node reachable from the entry, or every
    /// path to one cut by transitions past the program's last line (decisions 8, 38).
    WitnessGraph,
    /// Product states from which no violation can be reached are dropped; a program with no
    /// reachable error call is correct at once (decision 180).
    Pruning,
    /// The exploration with concrete guesses of the nondet values before the exploration
    /// proper (decision 67).
    GuessingRun,
    /// A branch no run takes, by the value ranges of its operands, cuts every path to the
    /// violation (decision 213).
    ValueRange,
    /// A thread given a line its code cannot reach (decision 226).
    ThreadLines,
    /// One thread explored against any behaviour of the others (decision 227).
    Projection,
    /// Partial-order reduction of interleavings (decisions 155, 176).
    PartialOrder,
    /// The search over every run for a moment before the proof (decisions 188, 223).
    QuickSearch,
    /// The k-induction proof of a correctness witness's invariants (decisions 163, 223).
    Proof,
    /// Searches bounded in cut points or calls for a run that falsifies an invariant
    /// (decisions 163, 230).
    BoundedRefutation,
    /// A correctness witness refuted by a long native run (decision 222).
    NativeRun,
    /// A correctness witness confirmed by the one run of a program that reads no input, run
    /// natively to its end with every invariant checked (decision 245).
    SingleRun,
    /// The avoid waypoint that excludes every violating run, named in a rejection's reason
    /// (decision 212).
    AvoidBlame,
}

/// A shortcut's declaration.
#[derive(Debug, Clone, Copy)]
pub struct Declaration {
    /// Short name, used in reports and by the soak (`decided_by`).
    pub key: &'static str,
    /// What it does, in a few words.
    pub name: &'static str,
    /// The decisions of ARCHITECTURE.md that describe it.
    pub decisions: &'static str,
    /// What it may conclude of a violation witness; `None`: it does not run for one.
    pub violation: Option<Direction>,
    /// What it may conclude of a correctness witness; `None`: it does not run for one.
    pub correctness: Option<Direction>,
    /// What it leaves out that the full search would examine.
    pub skips: &'static str,
}

impl Shortcut {
    /// Every shortcut, in the order they run.
    pub const ALL: [Shortcut; 13] = [
        Shortcut::WitnessGraph,
        Shortcut::Pruning,
        Shortcut::GuessingRun,
        Shortcut::ValueRange,
        Shortcut::ThreadLines,
        Shortcut::Projection,
        Shortcut::PartialOrder,
        Shortcut::QuickSearch,
        Shortcut::Proof,
        Shortcut::BoundedRefutation,
        Shortcut::NativeRun,
        Shortcut::SingleRun,
        Shortcut::AvoidBlame,
    ];

    /// Its declaration (an exhaustive match: a new shortcut cannot be added without one).
    pub const fn declaration(self) -> Declaration {
        use Direction::*;
        match self {
            Shortcut::WitnessGraph => Declaration {
                key: "witness-graph",
                name: "rejection by the witness graph alone",
                decisions: "8, 38",
                violation: Some(Over),
                correctness: None,
                skips: "the search, when no violation node is reachable or every path to one passes a transition \
                        past the program's last line",
            },
            Shortcut::Pruning => Declaration {
                key: "pruning",
                name: "property-aware pruning",
                decisions: "180",
                violation: Some(Exact),
                correctness: Some(Exact),
                skips: "product states from which no violation (or invariant location) can be reached",
            },
            Shortcut::GuessingRun => Declaration {
                key: "guessing-run",
                name: "the guessing run",
                decisions: "67",
                violation: Some(Under),
                correctness: None,
                skips: "the symbolic search, when concrete guesses of the nondet values reach the violation",
            },
            Shortcut::ValueRange => Declaration {
                key: "value-range",
                name: "the value-range rejection",
                decisions: "213",
                violation: Some(Over),
                correctness: None,
                skips: "the search, when branches no run takes cut every path to the violation",
            },
            Shortcut::ThreadLines => Declaration {
                key: "thread-lines",
                name: "the thread-line check",
                decisions: "226",
                violation: Some(Over),
                correctness: None,
                skips: "the interleaving search, when a thread is given lines its code cannot reach",
            },
            Shortcut::Projection => Declaration {
                key: "projection",
                name: "the thread projection",
                decisions: "227",
                violation: Some(Over),
                correctness: None,
                skips: "the interleaving search, exploring one thread against any behaviour of the others",
            },
            Shortcut::PartialOrder => Declaration {
                key: "partial-order",
                name: "partial-order reduction",
                decisions: "155, 176",
                violation: Some(Exact),
                correctness: None,
                skips: "interleavings that differ only in the order of independent local steps",
            },
            Shortcut::QuickSearch => Declaration {
                key: "quick-search",
                name: "the quick search over every run",
                decisions: "188, 223",
                violation: None,
                correctness: Some(Exact),
                skips: "nothing: the full search, cut at 250 ms (it concludes only when it finished)",
            },
            Shortcut::Proof => Declaration {
                key: "proof",
                name: "the k-induction proof",
                decisions: "163, 223",
                violation: None,
                correctness: Some(Exact),
                skips: "the search over every run: the invariants are shown inductive instead",
            },
            Shortcut::BoundedRefutation => Declaration {
                key: "bounded-refutation",
                name: "bounded refutations",
                decisions: "163, 230",
                violation: None,
                correctness: Some(Under),
                skips: "runs past a few cut points or calls",
            },
            Shortcut::NativeRun => Declaration {
                key: "native-run",
                name: "the native refutation",
                decisions: "222",
                violation: None,
                correctness: Some(Under),
                skips: "the interpreter: one compiled run per policy of nondet values",
            },
            Shortcut::SingleRun => Declaration {
                key: "single-run",
                name: "the one run of an input-free program",
                decisions: "245",
                violation: None,
                correctness: Some(Over),
                skips: "the interpreter and the proof: the program's only run, compiled and run to its end with every \
                        invariant checked at each visit",
            },
            Shortcut::AvoidBlame => Declaration {
                key: "avoid-blame",
                name: "avoid-waypoint blame",
                decisions: "212",
                violation: Some(Neither),
                correctness: None,
                skips: "nothing: it only adds words to a rejection's reason",
            },
        }
    }

    pub const fn key(self) -> &'static str {
        self.declaration().key
    }

    /// Whether it only explains (it may conclude nothing for either claim): it "decides" the
    /// cases whose report carries its words.
    pub const fn explains_only(self) -> bool {
        let d = self.declaration();
        matches!(d.violation, None | Some(Direction::Neither))
            && matches!(d.correctness, None | Some(Direction::Neither))
    }

    /// The shortcut named `key`.
    pub fn by_key(key: &str) -> Option<Shortcut> {
        Shortcut::ALL.into_iter().find(|s| s.key() == key)
    }

    /// What it may conclude of `claim` (`Neither` where it does not apply).
    pub fn direction(self, claim: Claim) -> Direction {
        let d = self.declaration();
        match claim {
            Claim::Violation => d.violation,
            Claim::Correctness => d.correctness,
        }
        .unwrap_or(Direction::Neither)
    }

    /// The gate for a conclusion this shortcut reached about `claim`: a verdict outside its
    /// declared direction becomes `unknown` with the reason (and fails debug builds: it is a bug
    /// of the shortcut's code, not of the input).
    pub fn admit(self, claim: Claim, verdict: Verdict) -> (Verdict, Option<String>) {
        let reading = Reading { name: self.declaration().name, direction: self.direction(claim) };
        let (verdict, why) = crate::reading::conclude(&reading, &Default::default(), verdict);
        debug_assert!(why.is_none(), "{} concluded outside its declaration: {why:?}", self.key());
        (verdict, why)
    }
}

/// Which shortcuts may run (all by default; none to obtain the full search's answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shortcuts(u32);

impl Default for Shortcuts {
    fn default() -> Self {
        Shortcuts::ALL
    }
}

impl Shortcuts {
    pub const ALL: Shortcuts = Shortcuts((1 << Shortcut::ALL.len()) - 1);
    pub const NONE: Shortcuts = Shortcuts(0);

    const fn bit(s: Shortcut) -> u32 {
        1 << s as u32
    }

    pub const fn allows(self, s: Shortcut) -> bool {
        self.0 & Self::bit(s) != 0
    }

    pub const fn with(self, s: Shortcut) -> Shortcuts {
        Shortcuts(self.0 | Self::bit(s))
    }

    pub const fn without(self, s: Shortcut) -> Shortcuts {
        Shortcuts(self.0 & !Self::bit(s))
    }

    /// Only `s`.
    pub const fn only(s: Shortcut) -> Shortcuts {
        Shortcuts(Self::bit(s))
    }

    pub fn set(&mut self, s: Shortcut, on: bool) {
        *self = if on { self.with(s) } else { self.without(s) };
    }

    pub fn union(self, other: Shortcuts) -> Shortcuts {
        Shortcuts(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Shortcut> {
        Shortcut::ALL.into_iter().filter(move |s| self.allows(*s))
    }

    /// The keys of the shortcuts in the set, in order.
    pub fn keys(self) -> Vec<&'static str> {
        self.iter().map(Shortcut::key).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shortcut_is_declared_once_with_a_direction_per_claim_it_runs_for() {
        let mut keys = std::collections::HashSet::new();
        for (i, s) in Shortcut::ALL.into_iter().enumerate() {
            assert_eq!(s as usize, i, "ALL lists the variants in declaration order");
            let d = s.declaration();
            assert!(keys.insert(d.key), "{} declared twice", d.key);
            assert!(d.violation.is_some() || d.correctness.is_some(), "{} runs for no claim", d.key);
            assert_eq!(Shortcut::by_key(d.key), Some(s));
        }
        assert_eq!(Shortcuts::ALL.iter().count(), Shortcut::ALL.len());
        assert_eq!(Shortcuts::NONE.iter().count(), 0);
    }

    #[test]
    fn the_set_switches_one_shortcut_at_a_time() {
        let s = Shortcuts::ALL.without(Shortcut::Projection);
        assert!(!s.allows(Shortcut::Projection) && s.allows(Shortcut::ThreadLines));
        assert_eq!(s.with(Shortcut::Projection), Shortcuts::ALL);
        assert_eq!(Shortcuts::only(Shortcut::NativeRun).keys(), vec!["native-run"]);
    }

    /// Every shortcut appears in ARCHITECTURE.md's table of shortcuts, by its key.
    #[test]
    fn the_architecture_map_lists_every_shortcut() {
        let map = include_str!("../../ARCHITECTURE.md");
        for s in Shortcut::ALL {
            assert!(map.contains(&format!("`{}`", s.key())), "ARCHITECTURE.md does not list `{}`", s.key());
        }
    }

    #[test]
    fn a_conclusion_outside_the_declaration_is_not_admitted() {
        // A rejecting shortcut's rejection passes; a confirmation it reached would not (checked
        // through the gate directly: `admit` also fails debug builds, as a bug).
        let (v, why) = Shortcut::Projection.admit(Claim::Violation, Verdict::Rejected);
        assert!(matches!(v, Verdict::Rejected) && why.is_none());
        let reading = Reading {
            name: Shortcut::Projection.declaration().name,
            direction: Shortcut::Projection.direction(Claim::Violation),
        };
        let confirmed = Verdict::Confirmed {
            trace: Vec::new(),
            error_function: "reach_error".into(),
            call: None,
            lost_blocks: None,
        };
        let (v, why) = crate::reading::conclude(&reading, &Default::default(), confirmed.clone());
        assert!(matches!(v, Verdict::Unknown { .. }) && why.unwrap().contains("thread projection"));
        // For a correctness witness, the native run may refute (a run violates a claim), never confirm.
        let (v, _) = Shortcut::NativeRun.admit(Claim::Correctness, confirmed);
        assert!(matches!(v, Verdict::Confirmed { .. }));
        let native = Reading { name: "n", direction: Shortcut::NativeRun.direction(Claim::Correctness) };
        assert!(matches!(
            crate::reading::conclude(&native, &Default::default(), Verdict::Rejected).0,
            Verdict::Unknown { .. }
        ));
    }
}
