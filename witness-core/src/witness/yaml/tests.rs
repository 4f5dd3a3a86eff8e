use std::path::{Path, PathBuf};

use petgraph::visit::EdgeRef;

use super::*;

const HEADER: &str = r#"- entry_type: violation_sequence
  metadata:
    format_version: "2.0"
    uuid: "0c1d7a3e-5b2f-4e8a-9d61-2f4b8c7e9a10"
    creation_time: "2025-01-01T00:00:00Z"
    producer: { name: "hand", version: "1" }
    task:
      input_files: ["dir/a.c"]
      input_file_hashes: { "dir/a.c": "ABCDEF0123" }
      specification: "G ! call(reach_error())"
      data_model: "ILP32"
      language: "C"
  content:
"#;

const TARGET: &str = "    - segment:\n        - waypoint: { type: target, action: follow, location: { file_name: a.c, line: 9, column: 5 } }\n";

/// A witness with the standard header and the given content lines (indented by 4).
fn witness(content: &str) -> String {
    format!("{HEADER}{content}")
}

fn read(text: &str) -> Result<WitnessAutomaton, InputError> {
    read_yaml(Path::new("w.yml"), text.as_bytes())
}

fn ok(text: &str) -> WitnessAutomaton {
    match read(text) {
        Ok(w) => w,
        Err(e) => panic!("unexpected error: {e}\n{text}"),
    }
}

/// (line, col, message) of a Malformed error.
fn malformed(text: &str) -> (u32, u32, String) {
    match read(text) {
        Err(InputError::Malformed { line, col, message, .. }) => (line, col, message),
        Err(e) => panic!("expected Malformed, got {e}"),
        Ok(w) => panic!("expected an error, got {:?}", w.metadata),
    }
}

fn state(w: &WitnessAutomaton, id: &str) -> NodeIndex {
    w.graph.node_indices().find(|&n| w.graph[n].id == id).unwrap_or_else(|| panic!("no state {id}"))
}

/// Transitions leaving state `from`, in insertion order: (target id, transition).
fn out(w: &WitnessAutomaton, from: &str) -> Vec<(String, WitnessTransition)> {
    let mut edges: Vec<_> = w.graph.edges(state(w, from)).collect();
    edges.sort_by_key(|e| e.id());
    edges.into_iter().map(|e| (w.graph[e.target()].id.clone(), e.weight().clone())).collect()
}

fn anchor(t: &WitnessTransition) -> &SourceAnchor {
    t.guard.anchor.as_ref().expect("anchor")
}

fn one_segment(wp: &str) -> String {
    witness(&format!("    - segment:\n        - waypoint: {wp}\n{TARGET}"))
}

#[test]
fn assumption_waypoint() {
    let w = ok(&one_segment(
        r#"{ type: assumption, action: follow, location: { file_name: a.c, line: 5, column: 3, function: main }, constraint: { value: "x == 42", format: c_expression } }"#,
    ));
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Violation));
    assert_eq!(w.format, "YAML 2.0");
    assert!(w.exact_locations);
    let ids: Vec<_> = w.graph.node_indices().map(|n| w.graph[n].id.clone()).collect();
    assert_eq!(ids, ["S0", "S1", "V", "avoided"]);
    assert!(w.graph[w.entry].entry && w.graph[w.entry].id == "S0");
    assert!(w.graph[state(&w, "V")].violation);
    assert!(w.graph[state(&w, "avoided")].sink);
    let t = out(&w, "S0");
    assert_eq!(t.len(), 1);
    let (to, t) = &t[0];
    assert_eq!(to, "S1");
    assert!(!t.avoid);
    assert_eq!(t.decision, None);
    let a = anchor(t);
    assert_eq!(
        (a.kind, a.line, a.column, a.file_name.as_deref(), a.origin.as_str()),
        (AnchorKind::Statement, 5, Some(3), Some("a.c"), "15:11")
    );
    assert_eq!(t.origin, "15:11");
    assert_eq!(t.guard.lines, None);
    assert_eq!(
        t.assumption,
        Some(Assumption { expressions: vec!["x == 42".into()], scope: Some("main".into()), result_function: None })
    );
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn assumption_without_constraint_is_an_error() {
    let (line, col, msg) =
        malformed(&one_segment("{ type: assumption, action: follow, location: { file_name: a.c, line: 5 } }"));
    assert_eq!((line, col), (15, 11));
    assert!(msg.contains("needs a `constraint`"), "{msg}");
}

#[test]
fn target_waypoint() {
    let w = ok(&witness(TARGET));
    let t = out(&w, "S0");
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].0, "V");
    let a = anchor(&t[0].1);
    assert_eq!((a.kind, a.line, a.column), (AnchorKind::Target, 9, Some(5)));
    assert_eq!(t[0].1.assumption, None);
    assert_eq!(t[0].1.decision, None);
}

#[test]
fn target_with_constraint_is_a_warning() {
    let w = ok(&witness(
            "    - segment:\n        - waypoint: { type: target, action: follow, location: { line: 9 }, constraint: { value: \"1\" } }\n",
        ));
    assert!(w.warnings.iter().any(|m| m.contains("must not have a `constraint`")), "{:?}", w.warnings);
    assert_eq!(out(&w, "S0")[0].1.assumption, None);
}

#[test]
fn branching_waypoint_decisions() {
    let cases: &[(&str, DecisionValue)] = &[
        ("true", DecisionValue::Bool(true)),
        ("false", DecisionValue::Bool(false)),
        ("\"TRUE\"", DecisionValue::Bool(true)),
        ("'False'", DecisionValue::Bool(false)),
        ("3", DecisionValue::Case(3)),
        ("\"-7\"", DecisionValue::Case(-7)),
        ("-12", DecisionValue::Case(-12)),
        ("0x1F", DecisionValue::Case(31)),
        ("\"'a'\"", DecisionValue::Case(97)),
        ("default", DecisionValue::Default),
        ("\"Default\"", DecisionValue::Default),
    ];
    for (value, expected) in cases {
        let w = ok(&one_segment(&format!(
                "{{ type: branching, action: follow, location: {{ file_name: a.c, line: 5, column: 3 }}, constraint: {{ value: {value} }} }}"
            )));
        let t = out(&w, "S0");
        assert_eq!(t[0].1.decision.as_ref(), Some(expected), "value {value}");
        assert_eq!(t[0].1.assumption, None);
        assert_eq!(anchor(&t[0].1).kind, AnchorKind::Branching);
    }
    let (line, col, msg) = malformed(&one_segment(
        "{ type: branching, action: follow, location: { line: 5 }, constraint: { value: maybe } }",
    ));
    assert_eq!(line, 15);
    assert!(col > 11, "{col}");
    assert!(msg.contains("`maybe`"), "{msg}");
}

#[test]
fn function_enter_waypoint() {
    let w =
        ok(&one_segment("{ type: function_enter, action: follow, location: { file_name: a.c, line: 4, column: 33 } }"));
    let t = &out(&w, "S0")[0];
    assert_eq!(t.0, "S1");
    let a = anchor(&t.1);
    assert_eq!((a.kind, a.line, a.column), (AnchorKind::FunctionEnter, 4, Some(33)));
    assert_eq!(t.1.assumption, None);
    assert_eq!(t.1.decision, None);
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn function_return_waypoint() {
    let w = ok(&one_segment(
        r#"{ type: function_return, action: follow, location: { file_name: a.c, line: 4, column: 33, function: main }, constraint: { value: "\\result == 42", format: acsl_expression } }"#,
    ));
    let t = &out(&w, "S0")[0];
    assert_eq!(anchor(&t.1).kind, AnchorKind::FunctionReturn);
    assert_eq!(
        t.1.assumption,
        Some(Assumption {
            expressions: vec!["\\result == 42".into()],
            scope: Some("main".into()),
            result_function: None
        })
    );
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn function_return_accepts_return_alias_with_warning() {
    let w = ok(&one_segment(
        r"{ type: function_return, action: follow, location: { line: 4 }, constraint: { value: \return == 4, format: c_expression } }",
    ));
    let t = &out(&w, "S0")[0];
    assert_eq!(t.1.assumption.as_ref().unwrap().expressions, vec!["\\result == 4".to_string()]);
    assert!(w.warnings.iter().any(|m| m.contains("\\return")), "{:?}", w.warnings);
}

#[test]
fn avoid_action() {
    let w = ok(&witness(&format!(
            "    - segment:\n        - waypoint: {{ type: assumption, action: avoid, location: {{ line: 3 }}, constraint: {{ value: \"x > 2\" }} }}\n        - waypoint: {{ type: branching, action: avoid, location: {{ line: 4 }}, constraint: {{ value: false }} }}\n        - waypoint: {{ type: function_enter, action: follow, location: {{ line: 5, column: 9 }} }}\n{TARGET}"
        )));
    let t = out(&w, "S0");
    assert_eq!(t.len(), 3);
    assert_eq!((t[0].0.as_str(), t[0].1.avoid), ("avoided", true));
    assert_eq!(t[0].1.assumption.as_ref().unwrap().expressions, vec!["x > 2".to_string()]);
    assert_eq!((t[1].0.as_str(), t[1].1.avoid), ("avoided", true));
    assert_eq!(t[1].1.decision, Some(DecisionValue::Bool(false)));
    assert_eq!((t[2].0.as_str(), t[2].1.avoid), ("S1", false));
    assert_eq!(t[0].1.origin, "15:11");
    assert_eq!(t[1].1.origin, "16:11");
    // Avoid waypoints in the final segment.
    let w = ok(&witness(
            "    - segment:\n        - waypoint: { type: function_return, action: avoid, location: { line: 3 }, constraint: { value: \"\\\\result < 0\", format: ext_c_expression } }\n        - waypoint: { type: target, action: follow, location: { line: 4 } }\n",
        ));
    let t = out(&w, "S0");
    assert_eq!((t[0].0.as_str(), t[0].1.avoid), ("avoided", true));
    assert_eq!((t[1].0.as_str(), t[1].1.avoid), ("V", false));
}

#[test]
fn follow_action_chain() {
    let w = ok(&witness(&format!(
            "    - segment:\n        - waypoint: {{ type: function_enter, action: follow, location: {{ line: 2 }} }}\n    - segment:\n        - waypoint: {{ type: branching, action: follow, location: {{ line: 3 }}, constraint: {{ value: true }} }}\n{TARGET}"
        )));
    assert_eq!(out(&w, "S0")[0].0, "S1");
    assert_eq!(out(&w, "S1")[0].0, "S2");
    assert_eq!(out(&w, "S2")[0].0, "V");
    assert!(out(&w, "V").is_empty());
    assert!(out(&w, "avoided").is_empty());
}

#[test]
fn cycle_action_is_termination() {
    let mut text = witness(
            "    - segment:\n        - waypoint: { type: branching, action: follow, location: { line: 3 }, constraint: { value: true } }\n    - segment:\n        - waypoint: { type: assumption, action: cycle, location: { line: 4 }, constraint: { value: \"x > 0\" } }\n    - segment:\n        - waypoint: { type: branching, action: cycle, location: { line: 5 }, constraint: { value: true } }\n",
        );
    text = text.replace("format_version: \"2.0\"", "format_version: \"2.1\"");
    let w = ok(&text);
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Termination));
    assert_eq!(w.format, "YAML 2.1");
    // Decision 93: passing the first cycle waypoint enters the cycle head `H`, whose
    // invariant is that waypoint's constraint; the pass ends by passing it again.
    let h = state(&w, "H");
    assert!(w.graph[h].cycle_head);
    assert_eq!(w.graph[h].invariant.as_deref(), Some("x > 0"));
    assert_eq!(out(&w, "S0")[0].0, "S1");
    assert_eq!(out(&w, "S1")[0].0, "H");
    assert_eq!(out(&w, "H")[0].0, "S1");
    // The recurrent set is the head's invariant, not an assumption that would end a run.
    let into_head = w.graph.edges_directed(h, petgraph::Direction::Incoming).next().map(|e| e.id());
    assert!(w.graph[into_head.expect("a transition into H")].assumption.is_none());
    assert!(!w.warnings.iter().any(|m| m.contains("2.1")), "{:?}", w.warnings);
    assert!(w.warnings.iter().any(|m| m.contains("not recurrence_condition")), "{:?}", w.warnings);
    // follow after cycle
    let (_, _, msg) = malformed(&witness(
            "    - segment:\n        - waypoint: { type: assumption, action: cycle, location: { line: 4 }, constraint: { value: \"x > 0\" } }\n    - segment:\n        - waypoint: { type: branching, action: follow, location: { line: 5 }, constraint: { value: true } }\n",
        ));
    assert!(msg.contains("after a `cycle`"), "{msg}");
}

#[test]
fn recurrence_condition_is_termination() {
    let w = ok(&witness(
            "    - segment:\n        - waypoint: { type: recurrence_condition, action: cycle, location: { line: 4 }, constraint: { value: \"x > 0\" } }\n",
        ));
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Termination));
    assert!(w.warnings.iter().any(|m| m.contains("2.1")), "{:?}", w.warnings);
    // A single cycle segment: it enters the head `H` and is a loop of `H` (decision 93).
    let t = out(&w, "S0");
    assert_eq!(t[0].0, "H");
    assert_eq!(anchor(&t[0].1).kind, AnchorKind::Statement);
    assert_eq!(out(&w, "H")[0].0, "H");
}

#[test]
fn syntax_error_has_position() {
    let text = witness("    - segment:\n        - waypoint: { type: target, action: follow, location: { line: 9 }\n");
    let (line, _col, msg) = malformed(&text);
    assert!(line >= 15, "{line}: {msg}");
    assert!(msg.starts_with("YAML syntax error"), "{msg}");
    let (line, col, msg) = malformed("- a: b\n  c: [1, 2\n");
    assert!(line >= 2 && col >= 1, "{line}:{col} {msg}");
    let (line, col, msg) = malformed("- entry_type: x\n   bad: indentation\n");
    assert_eq!(line, 2, "{line}:{col} {msg}");
}

#[test]
fn unknown_waypoint_type() {
    let (line, col, msg) =
        malformed(&one_segment("{ type: identifier_evaluation, action: follow, location: { line: 5 } }"));
    assert_eq!((line, col), (15, 29));
    assert!(msg.contains("unknown waypoint type `identifier_evaluation`, expected one of assumption"), "{msg}");
}

#[test]
fn unknown_action() {
    let (line, col, msg) = malformed(&one_segment("{ type: function_enter, action: skip, location: { line: 5 } }"));
    assert_eq!((line, col), (15, 53));
    assert!(msg.contains("unknown waypoint action `skip`"), "{msg}");
}

#[test]
fn unknown_constraint_format() {
    let (line, _, msg) = malformed(&one_segment(
        "{ type: assumption, action: follow, location: { line: 5 }, constraint: { value: x, format: python } }",
    ));
    assert_eq!(line, 15);
    assert!(msg.contains("unknown constraint format `python`"), "{msg}");
}

#[test]
fn missing_target() {
    let (line, col, msg) = malformed(&witness(
        "    - segment:\n        - waypoint: { type: function_enter, action: follow, location: { line: 2 } }\n",
    ));
    assert_eq!((line, col), (15, 11));
    assert!(msg.contains("no `target` waypoint"), "{msg}");
}

#[test]
fn target_not_last() {
    let (line, col, msg) = malformed(&witness(&format!(
            "{TARGET}    - segment:\n        - waypoint: {{ type: function_enter, action: follow, location: {{ line: 2 }} }}\n"
        )));
    assert_eq!((line, col), (15, 11));
    assert!(msg.contains("segment 1 of 2"), "{msg}");
}

#[test]
fn target_with_avoid_is_an_error() {
    let (_, _, msg) = malformed(&witness(
            "    - segment:\n        - waypoint: { type: target, action: avoid, location: { line: 2 } }\n        - waypoint: { type: target, action: follow, location: { line: 3 } }\n",
        ));
    assert!(msg.contains("must have action `follow`"), "{msg}");
}

#[test]
fn segment_order_rules() {
    let (line, _, msg) = malformed(&witness(&format!(
            "    - segment:\n        - waypoint: {{ type: function_enter, action: follow, location: {{ line: 2 }} }}\n        - waypoint: {{ type: function_enter, action: follow, location: {{ line: 3 }} }}\n{TARGET}"
        )));
    assert_eq!(line, 15);
    assert!(msg.contains("not the last waypoint"), "{msg}");
    let (line, _, msg) = malformed(&witness(&format!(
            "    - segment:\n        - waypoint: {{ type: function_enter, action: avoid, location: {{ line: 2 }} }}\n{TARGET}"
        )));
    assert_eq!(line, 15);
    assert!(msg.contains("ends with an `avoid`"), "{msg}");
    let (line, _, msg) = malformed(&witness("    - segment: []\n"));
    assert_eq!(line, 14);
    assert!(msg.contains("empty"), "{msg}");
    let (line, _, msg) = malformed(&witness("    []\n"));
    assert_eq!(line, 14);
    assert!(msg.contains("empty `content`"), "{msg}");
}

#[test]
fn wrong_shapes_are_malformed() {
    let (line, col, msg) = malformed("entry_type: violation_sequence\ncontent: []\n");
    assert_eq!((line, col), (1, 1));
    assert!(msg.contains("found a mapping"), "{msg}");
    let (line, _, msg) = malformed(&witness("    segment: {}\n"));
    assert_eq!(line, 14);
    assert!(msg.contains("list of segments") && msg.contains("found a mapping"), "{msg}");
    let (_, _, msg) = malformed(&witness("    - segment:\n        - waypoint: [1, 2]\n"));
    assert!(msg.contains("found a sequence"), "{msg}");
    let (line, _, msg) = malformed(&one_segment("{ type: target, action: follow, location: { line: 0 } }"));
    assert_eq!(line, 15);
    assert!(msg.contains("at least 1"), "{msg}");
    let (_, _, msg) = malformed(&one_segment("{ type: target, action: follow, location: { line: -3 } }"));
    assert!(msg.contains("non-negative integer"), "{msg}");
    let (_, _, msg) = malformed(&one_segment("{ type: target, action: follow, location: { line: 3, line: 4 } }"));
    assert!(msg.contains("duplicate key `line`"), "{msg}");
    let (_, _, msg) = malformed(&one_segment("{ type: target, action: follow }"));
    assert!(msg.contains("without `location`"), "{msg}");
    let (_, _, msg) = malformed("- metadata: {}\n");
    assert!(msg.contains("without `entry_type`"), "{msg}");
    let (_, _, msg) = malformed("- entry_type: something_else\n  content: []\n");
    assert!(msg.contains("unknown entry_type `something_else`"), "{msg}");
    let (_, _, msg) = malformed("# only a comment\n");
    assert!(msg.contains("empty YAML document"), "{msg}");
    let (_, _, msg) = malformed("");
    assert!(msg.contains("empty YAML document"), "{msg}");
    let (line, _, msg) = malformed(&format!("{}---\n- x\n", witness(TARGET)));
    assert_eq!(line, 16);
    assert!(msg.contains("second YAML document"), "{msg}");
}

#[test]
fn invariant_set_is_correctness() {
    let text = r#"- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    producer: { name: CPAchecker, version: "3.0" }
    task: { input_files: [a.c], input_file_hashes: { a.c: "AB" }, specification: "G ! call(reach_error())", data_model: LP64, language: C }
  content:
    - invariant: { type: loop_invariant, location: { file_name: a.c, line: 3, column: 3 }, value: "x >= 0", format: c_expression }
"#;
    let w = ok(text);
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Correctness));
    assert_eq!(w.graph.node_count(), 1);
    assert!(w.graph[w.entry].entry);
    assert_eq!(w.metadata.producer.as_deref(), Some("CPAchecker 3.0"));
    // Mixed with a violation entry: still a correctness witness.
    let mixed = format!("{}{text}", witness(TARGET));
    assert_eq!(ok(&mixed).metadata.witness_type, Some(WitnessType::Correctness));
    let ghost = "- entry_type: ghost_instrumentation\n  metadata: {format_version: '2.1'}\n  content: {}\n";
    assert_eq!(ok(ghost).metadata.witness_type, Some(WitnessType::Correctness));
    let legacy = "- entry_type: loop_invariant\n  metadata: {format_version: 0.1}\n  loop_invariant: {string: x}\n";
    let w = ok(legacy);
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Correctness));
    assert_eq!(w.format, "YAML 0.1 (loop_invariant)");
}

#[test]
fn metadata_is_read() {
    let w = ok(&witness(TARGET));
    let m = &w.metadata;
    assert_eq!(m.format_version.as_deref(), Some("2.0"));
    assert_eq!(m.producer.as_deref(), Some("hand 1"));
    assert_eq!(m.specifications, vec!["G ! call(reach_error())".to_string()]);
    assert_eq!(m.architecture.as_deref(), Some("ILP32"));
    assert_eq!(m.program_file.as_deref(), Some("dir/a.c"));
    assert_eq!(m.program_hash.as_deref(), Some("abcdef0123"));
    assert_eq!(m.source_code_lang.as_deref(), Some("C"));
    let w = ok(&witness(TARGET).replace("language: \"C\"", "language: \"Java\""));
    assert!(w.warnings.iter().any(|m| m.contains("not C")), "{:?}", w.warnings);
    let w = ok(&witness(TARGET).replace("\"ILP32\"", "32bit"));
    assert_eq!(w.metadata.architecture.as_deref(), Some("32bit"));
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn format_version_as_number() {
    let w = ok(&witness(TARGET).replace("format_version: \"2.0\"", "format_version: 2.0"));
    assert_eq!(w.metadata.format_version.as_deref(), Some("2.0"));
    assert_eq!(w.format, "YAML 2.0");
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    let w = ok(&witness(TARGET).replace("format_version: \"2.0\"", "format_version: 2.1"));
    assert_eq!(w.format, "YAML 2.1");
    // Issue 21: a later 2.x is read as the latest known (2.2 since issue 22) and named as it is; another major version is refused
    // (it was read as 2.x and reported as "YAML 2.0").
    let w = ok(&witness(TARGET).replace("format_version: \"2.0\"", "format_version: 2.3"));
    assert_eq!(w.format, "YAML 2.3");
    assert!(
        w.warnings.iter().any(|m| m.starts_with("w.yml:3:21: format_version `2.3` is newer than 2.2")),
        "{:?}",
        w.warnings
    );
    assert_eq!(
        malformed(&witness(TARGET).replace("format_version: \"2.0\"", "format_version: 3.0")),
        (3, 21, "format_version `3.0` is not supported (this validator reads 2.0 and 2.1)".to_string())
    );
}

#[test]
fn column_zero_is_absent_with_warning() {
    let w = ok(&witness(
        "    - segment:\n        - waypoint: { type: target, action: follow, location: { line: 9, column: 0 } }\n",
    ));
    assert_eq!(anchor(&out(&w, "S0")[0].1).column, None);
    assert!(w.warnings.iter().any(|m| m.contains("column: 0")), "{:?}", w.warnings);
    let w =
        ok(&witness("    - segment:\n        - waypoint: { type: target, action: follow, location: { line: 9 } }\n"));
    assert_eq!(anchor(&out(&w, "S0")[0].1).column, None);
}

#[test]
fn several_violation_sequences() {
    let text = format!("{}{}", witness(TARGET), witness(TARGET));
    let w = ok(&text);
    assert!(w.warnings.iter().any(|m| m.contains("only the first one")), "{:?}", w.warnings);
    assert_eq!(w.graph.edge_count(), 1);
}

#[test]
fn repeated_warnings_are_counted() {
    let mut content = String::new();
    for i in 0..10 {
        content.push_str(&format!(
                "    - segment:\n        - waypoint: {{ type: function_enter, action: follow, location: {{ line: {} }} }}\n",
                i + 1
            ));
    }
    content.push_str(TARGET);
    let w = ok(&witness(&content));
    let about: Vec<_> = w.warnings.iter().filter(|m| m.contains("without `file_name`")).collect();
    assert_eq!(about.len(), 4, "{about:?}");
    assert!(about[3].starts_with("… and 7 more times"), "{about:?}");
    assert_eq!(strip_position("12:3: x"), "x");
    assert_eq!(strip_position("12: x"), "12: x");
}

#[test]
fn bom_is_skipped() {
    let mut bytes = UTF8_BOM.to_vec();
    bytes.extend_from_slice(witness(TARGET).as_bytes());
    assert!(looks_like_yaml(&bytes));
    let w = read_yaml(Path::new("w.yml"), &bytes).unwrap();
    assert_eq!(out(&w, "S0")[0].1.origin, "15:11");
}

#[test]
fn binary_garbage_and_bad_utf8() {
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    assert!(!looks_like_yaml(&garbage));
    assert!(matches!(read_yaml(Path::new("g"), &garbage), Err(InputError::Malformed { .. })));
    let mut bytes = witness(TARGET).into_bytes();
    bytes.insert(20, 0xff);
    match read_yaml(Path::new("g"), &bytes) {
        Err(InputError::Malformed { line, col, message, .. }) => {
            assert_eq!((line, col), (1, 21));
            assert!(message.contains("UTF-8"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let (_, _, msg) = malformed("- entry_type: \u{0}\u{1}\u{2}\n");
    assert!(!msg.is_empty());
}

#[test]
fn deep_nesting_and_aliases_are_bounded() {
    let deep = format!("- {}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (_, _, msg) = malformed(&deep);
    assert!(msg.contains("nested") || msg.contains("recursion limit"), "{msg}");
    let mut block = String::from("- entry_type: x\n");
    for i in 0..200 {
        block.push_str(&" ".repeat(2 * i + 2));
        block.push_str("a:\n");
    }
    assert!(read(&block).is_err());
    // "Billion laughs": aliases share nodes; the waypoint count is capped.
    let mut wps = String::from("    - segment: &s\n");
    for i in 0..2000 {
        wps.push_str(&format!(
            "        - waypoint: {{ type: function_enter, action: avoid, location: {{ line: {} }} }}\n",
            i + 1
        ));
    }
    wps.push_str("        - waypoint: { type: function_enter, action: follow, location: { line: 1 } }\n");
    for _ in 0..600 {
        wps.push_str("    - segment: *s\n");
    }
    wps.push_str(TARGET);
    let (_, _, msg) = malformed(&witness(&wps));
    assert!(msg.contains("more than 1000000 waypoints"), "{msg}");
    // A long flat list of aliased segments is fine.
    let mut content = String::from(
        "    - &s { segment: [ { waypoint: { type: function_enter, action: follow, location: { line: 2 } } } ] }\n",
    );
    for _ in 0..10_000 {
        content.push_str("    - *s\n");
    }
    content.push_str(TARGET);
    let w = ok(&witness(&content));
    assert_eq!(w.graph.node_count(), 10_002 + 2);
    assert_eq!(w.graph.edge_count(), 10_002);
    // An alias inside its own anchor is refused, not a cycle.
    let (_, _, msg) = malformed("- &a [*a]\n");
    assert!(msg.contains("alias"), "{msg}");
}

#[test]
fn huge_input_is_refused() {
    let big = vec![b' '; MAX_INPUT_SIZE + 1];
    let (line, col, msg) = match read_yaml(Path::new("big"), &big) {
        Err(InputError::Malformed { line, col, message, .. }) => (line, col, message),
        other => panic!("{other:?}"),
    };
    assert_eq!((line, col), (1, 1));
    assert!(msg.contains("MiB"), "{msg}");
}

#[test]
fn sniffing() {
    assert!(looks_like_yaml(witness(TARGET).as_bytes()));
    assert!(looks_like_yaml(b"# comment\n\n%YAML 1.2\n---\n- entry_type: violation_sequence\n"));
    assert!(looks_like_yaml(b"-\n  entry_type: invariant_set\n"));
    assert!(looks_like_yaml(b"[{\"entry_type\": \"violation_sequence\"}]"));
    assert!(!looks_like_yaml(b"<?xml version=\"1.0\"?>\n<graphml><!-- - entry_type --></graphml>"));
    assert!(!looks_like_yaml(b"- just: a list\n"));
    assert!(!looks_like_yaml(b"entry_type: violation_sequence\n"));
    assert!(!looks_like_yaml(b""));
    assert!(!looks_like_yaml(&[0xff, 0xfe, 0x00]));
}

#[test]
fn decision_and_integer_parsing() {
    assert_eq!(parse_int("42"), Some(42));
    assert_eq!(parse_int("-0x10"), Some(-16));
    assert_eq!(parse_int("7u"), Some(7));
    assert_eq!(parse_int("0o17"), Some(15));
    assert_eq!(parse_int("x"), None);
    assert_eq!(parse_int("-"), None);
    assert_eq!(parse_int("99999999999999999999999999999999999999999999"), None);
    assert_eq!(parse_char_literal("'\\n'"), Some(10));
    assert_eq!(parse_char_literal("'\\x41'"), Some(65));
    assert_eq!(parse_char_literal("'\\0'"), Some(0));
    assert_eq!(parse_char_literal("'ab'"), None);
    assert_eq!(parse_decision("TrUe"), Some(DecisionValue::Bool(true)));
}

// ---- fixtures and real witnesses -------------------------------------------------------

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/yaml/malformed")
}

#[test]
fn malformed_fixtures() {
    // (file, Some(message part) for an expected Malformed error, None for a tolerated case)
    let expected: &[(&str, Option<&str>)] = &[
        ("syntax-error.yml", Some("YAML syntax error")),
        ("unknown-waypoint-type.yml", Some("unknown waypoint type `identifier_evaluation`")),
        ("unknown-action.yml", Some("unknown waypoint action `skip`")),
        ("no-target.yml", Some("no `target` waypoint")),
        ("target-not-last.yml", Some("the target must be the follow waypoint of the last segment")),
        ("top-level-mapping.yml", Some("found a mapping")),
        ("column-zero.yml", None),
    ];
    let dir = fixture_dir();
    for (file, want) in expected {
        let p = dir.join(file);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(bytes.starts_with(b"#"), "{file}: first line must be a comment");
        match (read_yaml(&p, &bytes), want) {
            (Err(InputError::Malformed { line, message, .. }), Some(part)) => {
                assert!(message.contains(part), "{file}: {message}");
                assert!(line > 1, "{file}: {line}");
            }
            (Ok(w), None) => {
                assert_eq!(w.metadata.witness_type, Some(WitnessType::Violation), "{file}");
                assert!(!w.warnings.is_empty(), "{file}: expected warnings");
            }
            (r, _) => panic!("{file}: unexpected outcome {:?}", r.map(|w| w.warnings)),
        }
    }
}

fn collect_witnesses(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_witnesses(&p, out);
        } else if p.extension().is_some_and(|e| e == "yml" || e == "yaml") {
            out.push(p);
        }
    }
}

fn real_witnesses() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"));
    let mut files = Vec::new();
    for sub in ["corpus", "spec/examples"] {
        let dir = root.join(sub);
        if dir.is_dir() {
            collect_witnesses(&dir, &mut files);
        } else {
            eprintln!("skipping {}: directory absent", dir.display());
        }
    }
    files
}

/// Real files that are not violation witnesses (expected: Correctness), with the reason.
const CORRECTNESS_FILES: &[(&str, &str)] = &[
    ("multivar_1-1.c.invariant_witness.yaml", "legacy 0.1 loop_invariant / loop_invariant_certificate entries"),
    ("simple-valid-witness-v2--1.yml", "2.0 invariant_set (correctness witness)"),
];

#[test]
fn all_real_witnesses_parse() {
    let files = real_witnesses();
    if files.is_empty() {
        eprintln!("no real YAML witnesses found; test skipped");
        return;
    }
    let mut failures = Vec::new();
    let mut warned = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let expect_correctness = CORRECTNESS_FILES.iter().any(|(s, _)| f.ends_with(s));
        if !looks_like_yaml(&bytes) {
            failures.push(format!("{}: not recognised as YAML", f.display()));
        }
        match read_yaml(f, &bytes) {
            Ok(w) => {
                let want = if expect_correctness { WitnessType::Correctness } else { WitnessType::Violation };
                if w.metadata.witness_type != Some(want) {
                    failures.push(format!("{}: {:?}, expected {want:?}", f.display(), w.metadata.witness_type));
                }
                if want == WitnessType::Violation {
                    assert!(w.graph.node_count() >= 3, "{}", f.display());
                    assert!(w.graph.edge_references().all(|e| e.weight().guard.anchor.is_some()));
                }
                if !w.warnings.is_empty() {
                    warned += 1;
                    eprintln!("{}: {:?}", f.display(), w.warnings);
                }
            }
            Err(e) => failures.push(format!("{e}")),
        }
    }
    eprintln!("{} YAML witnesses read, {warned} with warnings", files.len());
    assert!(failures.is_empty(), "{} of {} files:\n{}", failures.len(), files.len(), failures.join("\n"));
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        witness(&format!(
                "    - segment:\n        - waypoint: {{ type: assumption, action: avoid, location: {{ line: 3 }}, constraint: {{ value: \"x > 2\" }} }}\n        - waypoint:\n            type: branching\n            action: follow\n            location: {{ file_name: a.c, line: 5, column: 3 }}\n            constraint: {{ value: \"true\" }}\n{TARGET}"
            ))
            .into_bytes()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = read_yaml(Path::new("p"), &bytes);
            let _ = looks_like_yaml(&bytes);
        }

        #[test]
        fn mutated_witness_never_panics(
            edits in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..4, any::<u8>()), 1..12)
        ) {
            let bytes = crate::witness::test_support::mutate(sample(), &edits, b"-:[{ \n&*\"");
            let _ = read_yaml(Path::new("p"), &bytes);
            let _ = looks_like_yaml(&bytes);
        }
    }
}

/// Issue 22: `thread_id` is read in a format 2.2 witness (the concurrency draft) and makes an
/// older witness unsupported (its meaning there is not the format's), never malformed.
#[test]
fn thread_ids_are_read_in_2_2_and_unsupported_before() {
    let content = "    - segment:\n        - waypoint: { type: assumption, action: follow, thread_id: 0, \
                   constraint: { value: \"x == 1\" }, location: { file_name: program.c, line: 5, column: 3 } }\n\
                   \x20   - segment:\n        - waypoint: { type: target, action: follow, thread_id: 1, \
                   location: { file_name: program.c, line: 9, column: 5 } }\n";
    let w = ok(&witness(content));
    let why = w.metadata.unsupported.expect("a thread_id in a 2.0 witness is unsupported");
    assert!(why.starts_with("w.yml:") && why.contains("belongs to the format 2.2 draft"), "{why}");
    let w = ok(&witness(content).replace("format_version: \"2.0\"", "format_version: \"2.2\""));
    assert!(w.metadata.unsupported.is_none());
    let ids: Vec<Option<String>> = w.graph.edge_weights().map(|t| t.guard.thread_id.clone()).collect();
    assert_eq!(ids, [Some("0".to_string()), Some("1".to_string())]);
    // A sequential witness is not.
    assert!(ok(&witness(TARGET)).metadata.unsupported.is_none());
}
