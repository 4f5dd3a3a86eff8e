//! Fuzz target: the linter must never panic or hang on any witness bytes, with or without a
//! program (the program is a fixed small C file, so the program-aware checks run too).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use witness_core::lint::{lint, LintOptions, ProgramFacts};

const PROGRAM: &str = "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main() {\n  int x = __VERIFIER_nondet_int();\n  if (x == 42) {\n    reach_error();\n  }\n  return 0;\n}\n";

fuzz_target!(|data: &[u8]| {
    let _ = lint(Path::new("fuzz.graphml"), data, None, LintOptions::default());
    let program = ProgramFacts::new(Path::new("minimal-example.c"), PROGRAM.as_bytes());
    let _ = lint(Path::new("fuzz.graphml"), data, Some(&program), LintOptions { strict: true });
});
