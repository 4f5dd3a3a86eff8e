//! Each property's check through the library's in-memory entry point (issue 20: properties
//! behind one trait, `property/`): a confirmation names the (sub)property violated, and every
//! report names the task's property, whatever the verdict.

use witness_core::cfa::DataModel;
use witness_core::validate::{validate_text, ValidateOptions};

/// A fixture of `fixtures/graphml/`: its program, witness and property file.
macro_rules! fixture {
    ($name:literal) => {
        (
            include_str!(concat!("../../fixtures/graphml/", $name, "/program.c")),
            include_str!(concat!("../../fixtures/graphml/", $name, "/witness.graphml")),
            include_str!(concat!("../../fixtures/graphml/", $name, "/property.prp")),
        )
    };
}

fn check(case: (&str, &str, &str), data_model: DataModel, result: &str, property: &str) {
    let (program, witness, prp) = case;
    let opts = ValidateOptions::new("program.c", "witness.graphml").with_data_model(data_model);
    let report = validate_text(program, witness, Some(prp), &opts).expect("valid inputs");
    assert_eq!(report.result_string(), result, "{}", report.reason);
    assert_eq!(report.property, property, "{}", report.reason);
}

#[test]
fn no_overflow() {
    check(fixture!("overflow-confirm"), DataModel::Ilp32, "false(no-overflow)", "no-overflow");
    check(fixture!("overflow-reject"), DataModel::Lp64, "true", "no-overflow");
}

#[test]
fn valid_memsafety() {
    check(fixture!("array-loop-write-memsafety-confirm"), DataModel::Ilp32, "false(valid-deref)", "valid-deref");
    check(fixture!("array-loop-write-memsafety-reject"), DataModel::Ilp32, "true", "valid-memsafety");
}

#[test]
fn valid_memcleanup() {
    check(fixture!("memcleanup-confirm"), DataModel::Lp64, "false(valid-memcleanup)", "valid-memcleanup");
    check(fixture!("alloca-memcleanup-reject"), DataModel::Lp64, "true", "valid-memcleanup");
}

#[test]
fn termination() {
    check(fixture!("term-nested-confirm"), DataModel::Lp64, "false(termination)", "termination");
    check(fixture!("term-terminates-reject"), DataModel::Ilp32, "true", "termination");
}
