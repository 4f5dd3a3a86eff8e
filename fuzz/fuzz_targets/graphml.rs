//! Fuzz target: the GraphML witness reader must never panic, whatever the bytes.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use witness_core::witness::graphml::{looks_like_graphml, read_graphml};

fuzz_target!(|data: &[u8]| {
    let _ = looks_like_graphml(data);
    let _ = read_graphml(Path::new("fuzz.graphml"), data);
});
