//! The seam between the explorer and the properties (issue 20): the explorer reports the
//! events of a run to a [`PropertyCheck`] and asks it what they mean; it knows no property by
//! name. Invariant: a check only judges events, it never reads or changes a state, so adding a
//! property cannot change how any other property's runs are explored.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::cfa::ErrorKind;
use crate::semantics::value::ViolationKind;

/// How a property's violations show on a run. The explorer's algorithm depends on it (which
/// steps may violate, whether a confirmation needs an infinite run), not on the property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A call of an error function (or the historic `ERROR:` label).
    ErrorCall,
    /// An operation of an ordinary step (its side conditions), or memory lost during or at
    /// the end of the run: any step may violate.
    Operation,
    /// An infinite run: the witness is a lasso, its cycle head the target (decisions 92–95).
    Lasso,
    /// A state in which two threads are about to access one location, one of them writing
    /// (issue 22): the witness names the two accesses.
    Race,
}

/// What an operation's violation is under a property ([`PropertyCheck::on_condition`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classified {
    /// The property's violation, named by its (sub)property (`valid-deref`, `no-overflow`).
    Violation(&'static str),
    /// The property says nothing certain about it: unknown where it may happen.
    Undecided(&'static str),
    /// Not this property's concern.
    Other,
}

/// Decision 74: the leak a property counts when the program ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeakRule {
    /// The (sub)property a leak violates.
    pub property: &'static str,
    /// Only blocks no global reaches count (valid-memtrack, as LeakSanitizer); otherwise every
    /// block still allocated (valid-memcleanup).
    pub from_globals: bool,
}

/// One property: what the events of a run mean for it. Each property is one file of
/// `property/` implementing this trait and one entry of `property::CHECKS`; every method but
/// the first two has the answer "not this property's concern" as its default.
pub trait PropertyCheck: fmt::Debug + Send + Sync {
    /// The property's SV-COMP name (`unreach-call`, `no-overflow`, `valid-memsafety`, …).
    fn name(&self) -> &'static str;

    /// How its violations show on a run.
    fn shape(&self) -> Shape;

    /// The error functions whose call violates it (none outside unreach-call).
    fn error_functions(&self) -> &[String] {
        &[]
    }

    /// A step calls an error function (or reaches the `ERROR:` label): whether that is the
    /// violation.
    fn on_error_call(&self, _kind: &ErrorKind, _function: &str) -> bool {
        false
    }

    /// RERS: only a call of the error function with this error code (`__VERIFIER_error(N)`)
    /// is the violation; a call with another code ends its run (issue 21).
    fn error_code(&self) -> Option<i128> {
        None
    }

    /// A step's operation has a side condition guarding against `kind` (decisions 72, 73):
    /// whether its failure is the property's violation, undecided, or not its concern (then
    /// it is undefined behaviour of the task, which the undefined-behaviour policy decides).
    fn on_condition(&self, _kind: ViolationKind) -> Classified {
        Classified::Other
    }

    /// A step made a live block unreachable (decision 74): the (sub)property this violates.
    fn on_lost_block(&self) -> Option<&'static str> {
        None
    }

    /// The program ends: the leak it counts then (decision 74).
    fn on_end(&self) -> Option<LeakRule> {
        None
    }
}

/// The task's property as the explorer holds it: a shared [`PropertyCheck`].
#[derive(Clone)]
pub struct ErrorTarget(Arc<dyn PropertyCheck>);

impl ErrorTarget {
    pub fn new(check: impl PropertyCheck + 'static) -> ErrorTarget {
        ErrorTarget(Arc::new(check))
    }

    /// unreach-call with both conventional error functions (no property file).
    pub fn default_reach() -> ErrorTarget {
        ErrorTarget::new(super::unreach_call::UnreachCall::conventional())
    }

    /// No event is a violation: a run that only visits the program's states.
    pub fn nothing() -> ErrorTarget {
        ErrorTarget::new(Nothing)
    }

    /// The violations are operations of ordinary steps (not calls of an error function).
    pub fn operations(&self) -> bool {
        self.shape() == Shape::Operation
    }

    /// A confirmation needs an infinite run (the witness is a lasso).
    pub fn lasso(&self) -> bool {
        self.shape() == Shape::Lasso
    }

    /// The violation is a data race between two threads.
    pub fn race(&self) -> bool {
        self.shape() == Shape::Race
    }
}

impl Deref for ErrorTarget {
    type Target = dyn PropertyCheck;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl fmt::Debug for ErrorTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// [`ErrorTarget::nothing`].
#[derive(Debug)]
struct Nothing;

impl PropertyCheck for Nothing {
    fn name(&self) -> &'static str {
        "no property"
    }
    fn shape(&self) -> Shape {
        Shape::ErrorCall
    }
}
