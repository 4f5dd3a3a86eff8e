//! witness-core: validation of violation witnesses for C programs.
//!
//! Data flows one way (see ARCHITECTURE.md):
//! witness file → [`witness`] reader → [`witness::WitnessAutomaton`];
//! program file → [`cfront`] → [`cfa::Cfa`];
//! both → [`product`] exploration (using `semantics`) → [`verdict::Verdict`].
//! [`validate`] wires the stages together. Nothing here prints or panics on input.
//!
//! # Validating a witness from a program of your own
//!
//! [`validate::validate`] reads the program, the witness and the property from files;
//! [`validate::validate_text`] takes them as text (its documentation has a runnable example).
//! Both take [`validate::ValidateOptions`], whose [`new`](validate::ValidateOptions::new) gives
//! the command line's defaults, and return a [`verdict::Report`]: its
//! [`result_string`](verdict::Report::result_string) is SV-COMP's result (`false(<property>)`,
//! `true` or `unknown`), its `reason` says why, and a confirmation's verdict holds the path with
//! the input values. `witness-core/examples/validate.rs` is a complete program to copy:
//!
//! ```text
//! cargo run -p witness-core --example validate -- program.c witness.graphml unreach-call.prp
//! ```

pub(crate) mod anchors;
pub mod budget;
pub mod cfa;
pub mod cfront;
pub mod error;
pub(crate) mod floatbits;
pub mod harness;
pub mod invariants;
pub mod lines;
pub mod lint;
pub mod native;
pub(crate) mod offsets;
pub mod product;
pub mod property;
pub(crate) mod reach;
pub(crate) mod reading;
pub mod refine;
pub mod resources;
pub(crate) mod semantics;
pub mod shortcuts;
pub mod stack;
pub mod taskdef;
pub(crate) mod testvec;
pub mod transition;
pub mod validate;
pub mod verdict;
pub mod witness;

pub use error::InputError;

/// The version of the Z3 library this process runs with (`4.8.12.0`): the library is
/// linked dynamically, so the build alone does not say which one answers.
pub fn solver_version() -> String {
    z3::full_version().to_string()
}
