//! no-overflow (decision 72): no signed integer arithmetic overflows.

use super::check::{Classified, PropertyCheck, Shape};
use super::{ErrorTarget, Property, PropertyKind};
use crate::semantics::value::ViolationKind;

#[derive(Debug)]
pub struct NoOverflow;

pub(super) fn from_property(p: &Property) -> Option<ErrorTarget> {
    (p.kind == PropertyKind::NoOverflow).then(|| ErrorTarget::new(NoOverflow))
}

impl PropertyCheck for NoOverflow {
    fn name(&self) -> &'static str {
        "no-overflow"
    }

    fn shape(&self) -> Shape {
        Shape::Operation
    }

    fn on_condition(&self, kind: ViolationKind) -> Classified {
        match kind {
            ViolationKind::Overflow => Classified::Violation("no-overflow"),
            ViolationKind::ShiftOverflow => {
                Classified::Undecided("whether a shift's overflow violates no-overflow is not decided")
            }
            _ => Classified::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::ErrorKind;

    #[test]
    fn signed_overflow_only() {
        assert_eq!(NoOverflow.on_condition(ViolationKind::Overflow), Classified::Violation("no-overflow"));
        assert!(matches!(NoOverflow.on_condition(ViolationKind::ShiftOverflow), Classified::Undecided(_)));
        assert_eq!(NoOverflow.on_condition(ViolationKind::Deref), Classified::Other);
        assert!(!NoOverflow.on_error_call(&ErrorKind::ReachError, "reach_error"));
        assert_eq!(NoOverflow.on_end(), None);
    }
}
