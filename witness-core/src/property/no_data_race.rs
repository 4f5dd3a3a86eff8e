//! no-data-race (issue 22): no two threads access one memory location at once, at least one of
//! them writing, unordered by synchronisation. Its violation is a state, not a step: two threads
//! each about to take a step that accesses the location. The explorer's race check
//! (`product/race.rs`) decides it at the state the witness names; this check only names it.

use super::check::{PropertyCheck, Shape};
use super::{ErrorTarget, Property, PropertyKind};

#[derive(Debug)]
pub struct NoDataRace;

/// `LTL(G ! data-race)`, spaces aside.
fn is_no_data_race(formula: &str) -> bool {
    formula.split_whitespace().collect::<String>() == "G!data-race"
}

pub(super) fn from_property(p: &Property) -> Option<ErrorTarget> {
    matches!(&p.kind, PropertyKind::Other(f) if is_no_data_race(f)).then(|| ErrorTarget::new(NoDataRace))
}

impl PropertyCheck for NoDataRace {
    fn name(&self) -> &'static str {
        "no-data-race"
    }

    fn shape(&self) -> Shape {
        Shape::Race
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formula_is_read_spaces_aside() {
        assert!(is_no_data_race("G ! data-race"));
        assert!(is_no_data_race("G!data-race"));
        assert!(!is_no_data_race("G ! overflow"));
    }
}
