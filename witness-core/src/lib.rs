//! witness-core: validation of violation witnesses for C programs.
//!
//! Data flows one way (see ARCHITECTURE.md):
//! witness file → [`witness`] reader → [`witness::WitnessAutomaton`];
//! program file → [`cfront`] → [`cfa::Cfa`];
//! both → [`product`] exploration (using [`semantics`]) → [`verdict::Verdict`].
//! [`validate`] wires the stages together. Nothing here prints or panics on input.

pub mod anchors;
pub mod cfa;
pub mod cfront;
pub mod error;
pub mod harness;
pub mod lint;
pub mod offsets;
pub mod product;
pub mod property;
pub mod reach;
pub mod reading;
pub mod resources;
pub mod semantics;
pub mod taskdef;
pub mod testvec;
pub mod validate;
pub mod verdict;
pub mod witness;

pub use error::InputError;
