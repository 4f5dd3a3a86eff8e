//! valid-memsafety (decisions 73, 74): every dereference and `free` is valid (valid-deref,
//! valid-free) and no block is lost (valid-memtrack: during the run when its last pointer
//! goes; at the end when no global reaches it, as LeakSanitizer).

use super::check::{Classified, LeakRule, PropertyCheck, Shape};
use super::{ErrorTarget, Property, PropertyKind};
use crate::semantics::value::ViolationKind;

#[derive(Debug)]
pub struct ValidMemsafety;

pub(super) fn from_property(p: &Property) -> Option<ErrorTarget> {
    (p.kind == PropertyKind::MemSafety).then(|| ErrorTarget::new(ValidMemsafety))
}

impl PropertyCheck for ValidMemsafety {
    fn name(&self) -> &'static str {
        "valid-memsafety"
    }

    fn shape(&self) -> Shape {
        Shape::Operation
    }

    fn on_condition(&self, kind: ViolationKind) -> Classified {
        match kind {
            ViolationKind::Deref => Classified::Violation("valid-deref"),
            ViolationKind::Free => Classified::Violation("valid-free"),
            _ => Classified::Other,
        }
    }

    fn on_lost_block(&self) -> Option<&'static str> {
        Some("valid-memtrack")
    }

    fn on_end(&self) -> Option<LeakRule> {
        Some(LeakRule { property: "valid-memtrack", from_globals: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deref_free_and_lost_blocks() {
        assert_eq!(ValidMemsafety.on_condition(ViolationKind::Free), Classified::Violation("valid-free"));
        assert_eq!(ValidMemsafety.on_condition(ViolationKind::Deref), Classified::Violation("valid-deref"));
        assert_eq!(ValidMemsafety.on_condition(ViolationKind::Overflow), Classified::Other);
        assert_eq!(ValidMemsafety.on_lost_block(), Some("valid-memtrack"));
        assert_eq!(ValidMemsafety.on_end(), Some(LeakRule { property: "valid-memtrack", from_globals: true }));
    }
}
