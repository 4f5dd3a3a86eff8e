//! Fuzz target: the C front end (parse + lowering to the CFA) and witness assumption lowering
//! on arbitrary text. Any panic, stack overflow or hang is a bug. Inputs with `#` are skipped
//! so that the target does not spawn `gcc -E` (the preprocessing path is tested elsewhere).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use witness_core::cfa::DataModel;
use witness_core::cfront::{build_program, lower_assumption, AssumptionScope};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.contains('#') {
        return;
    }
    // Split the input: program text, then (after a NUL) an assumption to lower against it.
    let (program, assumption) = text.split_once('\0').unwrap_or((text, "x == 1"));
    if let Ok(p) = build_program(Path::new("fuzz.c"), program, DataModel::Ilp32) {
        let scope = AssumptionScope {
            function: Some(p.cfa.main),
            offset: None,
            result_ty: None,
            ..Default::default()
        };
        let _ = lower_assumption(&p.cfa, assumption, &scope);
    }
});
