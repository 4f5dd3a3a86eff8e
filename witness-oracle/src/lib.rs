//! Differential oracle for witness-check (issue 19, item 3): generated C programs, violation
//! witnesses recorded from real native runs (gcc with ASan/UBSan) and mutated, each validated
//! in-process and checked against gcc. Not part of the validator; `make soak` and the seeded
//! round in `tests/oracle.rs` drive it. `correctness.rs` (issue 32) does the same for
//! correctness witnesses: small input domains enumerated natively, invariants observed and
//! mutated.

pub mod contracts;
pub mod correctness;
pub mod gen;
pub mod native;
pub mod oracle;
pub mod round;
pub mod shortcuts;
pub mod threads;
pub mod witness;
