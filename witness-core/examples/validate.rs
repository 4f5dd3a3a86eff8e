//! What a verifier author's program needs to validate its own witness with witness-core:
//!
//! ```text
//! cargo run -p witness-core --example validate -- program.c witness.graphml [property.prp]
//! ```
//!
//! It prints SV-COMP's result line, the reason, and for a confirmation the path to the
//! violation with the input values the validator chose.

use std::process::ExitCode;
use std::time::Duration;

use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::Verdict;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (program, witness) = match (args.first(), args.get(1)) {
        (Some(p), Some(w)) => (p, w),
        _ => {
            eprintln!("usage: validate PROGRAM.c WITNESS [PROPERTY.prp]");
            return ExitCode::from(2);
        }
    };
    let mut opts = ValidateOptions::new(program, witness).with_timeout(Duration::from_secs(30));
    if let Some(property) = args.get(2) {
        opts = opts.with_property(property);
    }
    let report = match validate(&opts) {
        Ok(r) => r,
        Err(e) => {
            // A malformed witness or program, with file and position.
            eprintln!("{e}");
            return ExitCode::from(3);
        }
    };
    println!("RESULT: {}", report.result_string());
    println!("{}", report.reason);
    if let Verdict::Confirmed { trace, .. } = &report.verdict {
        for step in trace {
            let input = step.nondet.as_ref().map(|n| format!("   [{} returns {}]", n.function, n.value));
            println!("  line {:>4} {:<12} {}{}", step.line, step.function, step.action, input.unwrap_or_default());
        }
    }
    ExitCode::SUCCESS
}
