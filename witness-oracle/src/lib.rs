//! Differential oracle for witness-check (issue 19, item 3): generated C programs, violation
//! witnesses recorded from real native runs (gcc with ASan/UBSan) and mutated, each validated
//! in-process and checked against gcc. Not part of the validator; `make soak` and the seeded
//! round in `tests/oracle.rs` drive it.

pub mod gen;
pub mod native;
pub mod oracle;
pub mod witness;
