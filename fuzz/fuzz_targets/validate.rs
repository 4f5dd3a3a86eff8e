//! Fuzz target: `validate` itself, on a fixed set of small programs (from `fixtures/`) with
//! arbitrary witness bytes (GraphML or YAML, chosen by content as the CLI does). The first byte
//! picks the program and its property; the rest is the witness. Any panic is a bug, and so is
//! an answer later than the budget (1 s) plus a grace of 4 s: the library must keep its own
//! deadline (the CLI's hard guard is not there to hide it). Runs on a thread with the CLI's
//! stack (512 MB). Needs Z3, like the binary.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use witness_core::cfa::DataModel;
use witness_core::product::{SegmentReading, StutterMode, UndefinedBehaviour};
use witness_core::refine::RefineFormat;
use witness_core::resources::MemoryLimit;
use witness_core::validate::{validate, ValidateOptions, WitnessSemantics};

/// (file name, program, property) of each fixed task.
const TASKS: [(&str, &str, &str); 4] = [
    (
        "minimal-example.c",
        include_str!("../../fixtures/minimal/minimal-example.c"),
        include_str!("../../fixtures/minimal/unreach-call.prp"),
    ),
    (
        "program.c",
        include_str!("../../fixtures/yaml/cases/branching-loop-iterations-confirm/program.c"),
        include_str!("../../fixtures/yaml/cases/branching-loop-iterations-confirm/unreach-call.prp"),
    ),
    (
        "program.c",
        include_str!("../../fixtures/graphml/heap-array-confirm/program.c"),
        include_str!("../../fixtures/graphml/heap-array-confirm/unreach-call.prp"),
    ),
    (
        "program.c",
        include_str!("../../fixtures/graphml/memsafety-deref-confirm/program.c"),
        include_str!("../../fixtures/graphml/memsafety-deref-confirm/property.prp"),
    ),
];

const BUDGET: Duration = Duration::from_secs(1);
const GRACE: Duration = Duration::from_secs(4);

/// One directory per task under a per-process temporary directory, written once.
fn task_dirs() -> &'static Vec<PathBuf> {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("witness-fuzz-validate-{}", std::process::id()));
        TASKS
            .iter()
            .enumerate()
            .map(|(i, (name, program, property))| {
                let dir = root.join(i.to_string());
                std::fs::create_dir_all(&dir).expect("temp dir");
                std::fs::write(dir.join(name), program).expect("program");
                std::fs::write(dir.join("property.prp"), property).expect("property");
                dir
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, witness)) = data.split_first() else { return };
    let i = pick as usize % TASKS.len();
    let dir = &task_dirs()[i];
    let witness_path = dir.join("witness");
    std::fs::write(&witness_path, witness).expect("witness file");
    // Built from `new` and the fields a fuzz input varies, so that an option added later does
    // not break this target (it did: issue 21's `refine` and `error_code`).
    let mut opts = ValidateOptions::new(dir.join(TASKS[i].0), witness_path).with_property(dir.join("property.prp"));
    opts.data_model = if pick & 0x80 == 0 { None } else { Some(DataModel::Ilp32) };
    opts.timeout = BUDGET;
    opts.stutter = StutterMode::Strict;
    opts.segments = SegmentReading::Greedy;
    opts.undefined = UndefinedBehaviour::Exclude;
    opts.semantics = WitnessSemantics::Automaton;
    opts.memory_limit = MemoryLimit::Default;
    opts.harness = pick & 0x40 != 0;
    opts.dot = pick & 0x20 != 0;
    // Refined witnesses of whatever confirms, in either format.
    opts.refine = match pick & 0x18 {
        0x08 => Some(RefineFormat::Graphml),
        0x10 => Some(RefineFormat::Yaml),
        _ => None,
    };
    let started = Instant::now();
    let worker = std::thread::Builder::new().stack_size(512 << 20).spawn(move || {
        let _ = validate(&opts);
    });
    worker.expect("worker thread").join().expect("validate panicked");
    let took = started.elapsed();
    assert!(took <= BUDGET + GRACE, "validate took {took:?} with a budget of {BUDGET:?}");
});
