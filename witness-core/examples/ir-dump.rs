//! Prints the control-flow automaton of C programs as JSON lines, one per program and data
//! model, for comparing the front end's output across a change of the IR (issue 33):
//!
//! ```text
//! cargo run --release -p witness-core --example ir-dump -- a.c b.i … > dump.jsonl
//! ```
//!
//! A program that does not build prints its error instead.

use std::path::Path;

use witness_core::cfa::DataModel;
use witness_core::cfront::build_program;

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            println!("{path}\tunreadable");
            continue;
        };
        for dm in [DataModel::Ilp32, DataModel::Lp64] {
            match build_program(Path::new(&path), &text, dm) {
                Ok(p) => println!("{path}\t{dm:?}\t{}", serde_json::to_string(&p.cfa).unwrap_or_default()),
                Err(e) => println!("{path}\t{dm:?}\terror: {e}"),
            }
        }
    }
}
