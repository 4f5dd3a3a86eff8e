//! valid-memcleanup (decision 74): every block is freed before the program ends.

use super::check::{LeakRule, PropertyCheck, Shape};
use super::{ErrorTarget, Property, PropertyKind};

#[derive(Debug)]
pub struct ValidMemcleanup;

pub(super) fn from_property(p: &Property) -> Option<ErrorTarget> {
    (p.kind == PropertyKind::MemCleanup).then(|| ErrorTarget::new(ValidMemcleanup))
}

impl PropertyCheck for ValidMemcleanup {
    fn name(&self) -> &'static str {
        "valid-memcleanup"
    }

    fn shape(&self) -> Shape {
        Shape::Operation
    }

    fn on_end(&self) -> Option<LeakRule> {
        Some(LeakRule { property: "valid-memcleanup", from_globals: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::value::ViolationKind;

    #[test]
    fn every_block_still_allocated_at_the_end() {
        assert_eq!(ValidMemcleanup.on_end(), Some(LeakRule { property: "valid-memcleanup", from_globals: false }));
        assert_eq!(ValidMemcleanup.on_lost_block(), None);
        assert_eq!(ValidMemcleanup.on_condition(ViolationKind::Deref), super::super::Classified::Other);
    }
}
