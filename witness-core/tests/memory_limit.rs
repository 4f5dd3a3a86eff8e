//! The memory limit bounds what a validation adds, not what its caller holds (decision 68,
//! issue 20). Its own test binary, so that no other test's memory is in the process.

use witness_core::resources::MemoryLimit;
use witness_core::validate::{validate_text, ValidateOptions};

/// 3,000 iterations before the error: the exploration samples its memory every 1,024 states.
const PROGRAM: &str = "extern void reach_error(void);\n\
int main(void) {\n\
  int s = 0;\n\
  for (int i = 0; i < 3000; i++) s += i;\n\
  if (s > 0) reach_error();\n\
  return 0;\n\
}\n";

const WITNESS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
 <key id="witness-type" attr.name="witness-type" attr.type="string" for="graph"/>
 <key id="entry" attr.name="entry" attr.type="boolean" for="node"><default>false</default></key>
 <key id="violation" attr.name="violation" attr.type="boolean" for="node"><default>false</default></key>
 <key id="startline" attr.name="startline" attr.type="int" for="edge"/>
 <graph edgedefault="directed">
  <data key="witness-type">violation_witness</data>
  <node id="N0"><data key="entry">true</data></node>
  <node id="V"><data key="violation">true</data></node>
  <edge source="N0" target="V"><data key="startline">5</data></edge>
 </graph>
</graphml>
"#;

#[test]
fn the_memory_limit_bounds_what_the_validation_adds() {
    // The caller holds 256 MiB, resident (every byte written).
    let held = vec![1u8; 256 << 20];
    let mut opts = ValidateOptions::new("program.c", "witness.graphml");
    opts.memory_limit = MemoryLimit::Bytes(128 << 20);
    let report = validate_text(PROGRAM, WITNESS, None, &opts).expect("valid inputs");
    assert_eq!(report.result_string(), "false(unreach-call)", "{}", report.reason);
    assert!(report.stats.product_states > 1024, "the memory was never sampled: {}", report.stats.product_states);
    assert_eq!(held.iter().step_by(1 << 16).map(|&b| b as usize).sum::<usize>(), 4096);
}
