//! Fuzz target: the YAML witness reader must never panic or hang, whatever the bytes.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use witness_core::witness::yaml::{looks_like_yaml, read_yaml};

fuzz_target!(|data: &[u8]| {
    let _ = looks_like_yaml(data);
    let _ = read_yaml(Path::new("fuzz.yml"), data);
});
