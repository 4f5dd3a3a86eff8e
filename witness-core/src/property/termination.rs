//! termination (decisions 92–95): every run ends. Its violation is an infinite run, so the
//! witness is a lasso whose cycle head is the target; the explorer's lasso search
//! (`product/lasso.rs`) decides it, this check only names it.

use super::check::{PropertyCheck, Shape};
use super::{ErrorTarget, Property, PropertyKind};

#[derive(Debug)]
pub struct Termination;

/// `LTL(F end)`, spaces aside.
pub fn is_termination(formula: &str) -> bool {
    formula.split_whitespace().collect::<String>() == "Fend"
}

pub(super) fn from_property(p: &Property) -> Option<ErrorTarget> {
    matches!(&p.kind, PropertyKind::Other(f) if is_termination(f)).then(|| ErrorTarget::new(Termination))
}

impl PropertyCheck for Termination {
    fn name(&self) -> &'static str {
        "termination"
    }

    fn shape(&self) -> Shape {
        Shape::Lasso
    }
}
