use super::*;
use std::io::Write;
use std::path::PathBuf;

const NS: &str =
    r#"xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#;

fn read(text: &str) -> Result<WitnessAutomaton, InputError> {
    read_graphml(Path::new("w.graphml"), text.as_bytes())
}

/// A witness with the given key declarations, graph data and body (nodes/edges).
fn doc(keys: &str, body: &str) -> String {
    format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml {NS}>\n{keys}\n<graph edgedefault=\"directed\">\n{body}\n</graph>\n</graphml>\n"
        )
}

/// Entry node N0, violation node N1, and one edge N0→N1 with the given data.
fn one_edge(keys: &str, edge_data: &str) -> String {
    doc(
            keys,
            &format!(
                "<node id=\"N0\"><data key=\"entry\">true</data></node>\n<node id=\"N1\"><data key=\"violation\">true</data></node>\n<edge source=\"N0\" target=\"N1\">{edge_data}</edge>"
            ),
        )
}

fn only_edge(w: &WitnessAutomaton) -> &WitnessTransition {
    assert_eq!(w.graph.edge_count(), 1);
    w.graph.edge_weights().next().unwrap()
}

fn pos_of(err: &InputError) -> (u32, u32) {
    match err {
        InputError::Malformed { line, col, .. } => (*line, *col),
        other => panic!("expected Malformed, got {other:?}"),
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/malformed").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn minimal_example() {
    let text = doc(
        "",
        r#"<data key="witness-type">violation_witness</data>
<data key="sourcecodelang">C</data>
<data key="producer">hand-written example</data>
<data key="specification">CHECK( init(main()), LTL(G ! call(reach_error())) )

</data>
<data key="programfile">minimal-example.c</data>
<data key="programhash"> 6221229FC183DC669C346D6D56E419D33C558A6E8275996C8A1560B587D2224E </data>
<data key="architecture">32bit</data>
<data key="creationtime">2025-01-01T00:00:00Z</data>
<node id="N0"><data key="entry">true</data></node>
<node id="N1"/> <node id="N2"/>
<node id="N3"><data key="violation">true</data></node>
<node id="S"><data key="sink">true</data></node>
<edge source="N0" target="N1">
  <data key="startline">4</data>
  <data key="assumption">\result == 42</data>
  <data key="assumption.resultfunction">__VERIFIER_nondet_int</data>
</edge>
<edge source="N1" target="N2"><data key="startline">5</data><data key="control">condition-true</data></edge>
<edge source="N1" target="S"><data key="startline">5</data><data key="control">condition-false</data></edge>
<edge source="N2" target="N3"><data key="startline">6</data></edge>"#,
    );
    let w = read(&text).unwrap();
    assert_eq!(w.format, "GraphML 1.0");
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    assert_eq!(w.graph.node_count(), 5);
    assert_eq!(w.graph[w.entry].id, "N0");
    assert!(w.graph[w.entry].entry);
    let m = &w.metadata;
    assert_eq!(m.witness_type, Some(WitnessType::Violation));
    assert_eq!(m.producer.as_deref(), Some("hand-written example"));
    assert_eq!(m.specifications, vec!["CHECK( init(main()), LTL(G ! call(reach_error())) )"]);
    assert_eq!(m.program_file.as_deref(), Some("minimal-example.c"));
    assert_eq!(m.program_hash.as_deref(), Some("6221229fc183dc669c346d6d56e419d33c558a6e8275996c8a1560b587d2224e"));
    assert_eq!(m.architecture.as_deref(), Some("32bit"));
    assert_eq!(m.source_code_lang.as_deref(), Some("C"));
    let by_id = |id: &str| w.graph.node_indices().find(|&ix| w.graph[ix].id == id).unwrap();
    assert!(w.graph[by_id("N3")].violation);
    assert!(w.graph[by_id("S")].sink);
    let first = w.graph.edges(w.entry).next().unwrap().weight();
    assert_eq!(first.guard.lines, Some(Range { start: 4, end: 4 }));
    let a = first.assumption.as_ref().unwrap();
    assert_eq!(a.expressions, vec!["\\result == 42"]);
    assert_eq!(a.result_function.as_deref(), Some("__VERIFIER_nondet_int"));
    assert_eq!(a.scope, None);
    assert_eq!(first.origin, "19:1");
    let controls: Vec<_> = w
        .graph
        .edges(by_id("N1"))
        .map(|e| (w.graph[petgraph::visit::EdgeRef::target(&e)].id.clone(), e.weight().guard.control))
        .collect();
    assert!(controls.contains(&("N2".into(), Some(Control::ConditionTrue))));
    assert!(controls.contains(&("S".into(), Some(Control::ConditionFalse))));
}

#[test]
fn return_from_aliases() {
    for key in ["returnFrom", "returnFromFunction"] {
        let w = read(&one_edge("", &format!("<data key=\"{key}\">f</data>"))).unwrap();
        assert_eq!(only_edge(&w).guard.return_from_function.as_deref(), Some("f"), "{key}");
    }
    // Resolution through attr.name of a key with an unknown id.
    let keys = r#"<key id="rf" for="edge" attr.name="returnFromFunction" attr.type="string"/>"#;
    let w = read(&one_edge(keys, "<data key=\"rf\">g</data>")).unwrap();
    assert_eq!(only_edge(&w).guard.return_from_function.as_deref(), Some("g"));
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    // Both aliases on one edge are a duplicate.
    let err =
        read(&one_edge("", "<data key=\"returnFrom\">f</data><data key=\"returnFromFunction\">f</data>")).unwrap_err();
    assert!(err.to_string().contains("duplicate"), "{err}");
}

#[test]
fn origin_file_aliases_and_base_name() {
    let w = read(&one_edge("", "<data key=\"originfile\">/tmp/dir/prog.c</data>")).unwrap();
    assert_eq!(only_edge(&w).guard.origin_file.as_deref(), Some("prog.c"));
    let w = read(&one_edge("", "<data key=\"originFileName\">C:\\x\\prog.i</data>")).unwrap();
    assert_eq!(only_edge(&w).guard.origin_file.as_deref(), Some("prog.i"));
    let keys = r#"<key id="of" for="edge" attr.name="originFileName"/>"#;
    let w = read(&one_edge(keys, "<data key=\"of\">a/b.c</data>")).unwrap();
    assert_eq!(only_edge(&w).guard.origin_file.as_deref(), Some("b.c"));
}

#[test]
fn type_is_legacy_witness_type() {
    let w = read(&doc(
        "",
        "<data key=\"type\">violation_witness</data><node id=\"A\"><data key=\"entry\">true</data></node>",
    ))
    .unwrap();
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Violation));
    // witness-type wins over type.
    let w = read(&doc(
            "",
            "<data key=\"type\">violation_witness</data><data key=\"witness-type\">correctness_witness</data><node id=\"A\"><data key=\"entry\">true</data></node>",
        ))
        .unwrap();
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Correctness));
    let w = read(&doc(
            "",
            "<data key=\"witness-type\">correctness_witness</data><data key=\"type\">violation_witness</data><node id=\"A\"><data key=\"entry\">true</data></node>",
        ))
        .unwrap();
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Correctness));
}

#[test]
fn termination_witness_type() {
    let w = read(&doc(
            "",
            "<data key=\"witness-type\">violation_witness</data><data key=\"specification\">CHECK( init(main()), LTL(F end) )</data><node id=\"A\"><data key=\"entry\">true</data></node>",
        ))
        .unwrap();
    assert_eq!(w.metadata.witness_type, Some(WitnessType::Termination));
}

#[test]
fn node_flag_aliases() {
    let body = r#"<node id="A"><data key="isEntryNode">true</data></node>
<node id="B"><data key="isViolationNode">true</data></node>
<node id="C"><data key="isSinkNode">true</data></node>
<node id="D"><data key="isCycleHead">true</data><data key="invariant">x &gt; 0</data><data key="invariant">y == 1</data></node>"#;
    let w = read(&doc("", body)).unwrap();
    let n = |i: usize| &w.graph[NodeIndex::new(i)];
    assert!(n(0).entry && !n(0).violation);
    assert!(n(1).violation && !n(1).entry);
    assert!(n(2).sink);
    assert!(n(3).cycle_head);
    assert_eq!(n(3).invariant.as_deref(), Some("(x > 0) && (y == 1)"));
    // Through attr.name of keys with other ids.
    let keys = r#"<key id="e" for="node" attr.name="isEntryNode"/><key id="v" for="node" attr.name="isViolationNode"/>
<key id="s" for="node" attr.name="isSinkNode"/><key id="c" for="node" attr.name="isCycleHead"/>"#;
    let body = r#"<node id="A"><data key="e">true</data></node><node id="B"><data key="v">true</data></node>
<node id="C"><data key="s">true</data></node><node id="D"><data key="c">true</data></node>"#;
    let w = read(&doc(keys, body)).unwrap();
    let n = |i: usize| &w.graph[NodeIndex::new(i)];
    assert!(n(0).entry && n(1).violation && n(2).sink && n(3).cycle_head);
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn legacy_line_and_offset_aliases() {
    for key in ["originline", "lineNumberInOrigin"] {
        let w = read(&one_edge("", &format!("<data key=\"{key}\">7</data>"))).unwrap();
        assert_eq!(only_edge(&w).guard.lines, Some(Range { start: 7, end: 7 }), "{key}");
    }
    let w = read(&one_edge("", "<data key=\"offset\">70</data>")).unwrap();
    assert_eq!(only_edge(&w).guard.offsets, Some(Range { start: 70, end: 70 }));
    // The current key wins over the legacy one (no duplicate error).
    let w = read(&one_edge("", "<data key=\"startline\">8</data><data key=\"originline\">7</data>")).unwrap();
    assert_eq!(only_edge(&w).guard.lines, Some(Range { start: 8, end: 8 }));
}

#[test]
fn camel_case_graph_attr_names() {
    let keys = r#"<key id="g1" for="graph" attr.name="sourcecodeLanguage"/>
<key id="g2" for="graph" attr.name="programFile"/>
<key id="g3" for="graph" attr.name="programHash"/>
<key id="g4" for="graph" attr.name="creationTime"/>
<key id="g5" for="graph" attr.name="inputWitnessHash"/>"#;
    let body = r#"<data key="g1">C</data><data key="g2">p.c</data><data key="g3">ABC</data>
<data key="g4">2020-01-01T00:00:00Z</data><data key="g5">00</data>
<data key="programFile">ignored-duplicate.c</data>
<node id="A"><data key="entry">true</data></node>"#;
    let w = read(&doc(keys, body)).unwrap();
    assert_eq!(w.metadata.source_code_lang.as_deref(), Some("C"));
    assert_eq!(w.metadata.program_file.as_deref(), Some("p.c"));
    assert_eq!(w.metadata.program_hash.as_deref(), Some("abc"));
    assert_eq!(w.warnings.len(), 1, "{:?}", w.warnings);
    assert!(w.warnings[0].contains("more than once"), "{:?}", w.warnings);
}

#[test]
fn defaults_are_honoured() {
    let keys = r#"<key attr.name="originFileName" attr.type="string" for="edge" id="originfile"><default>/home/x/prog.i</default></key>
<key attr.name="isEntryNode" attr.type="boolean" for="node" id="entry"><default>false</default></key>
<key attr.name="isViolationNode" attr.type="boolean" for="node" id="violation"><default>false</default></key>
<key attr.name="enterLoopHead" attr.type="boolean" for="edge" id="enterLoopHead"><default>false</default></key>
<key attr.name="threadId" attr.type="string" for="edge" id="threadId"><default>0</default></key>"#;
    let body = r#"<node id="N0"><data key="entry">true</data></node><node id="N1"/><node id="N2"><data key="violation">true</data></node>
<edge source="N0" target="N1"><data key="startline">3</data></edge>
<edge source="N1" target="N2"><data key="originfile">other.c</data><data key="enterLoopHead">true</data><data key="threadId">1</data></edge>"#;
    let w = read(&doc(keys, body)).unwrap();
    let edges: Vec<&WitnessTransition> = w.graph.edge_weights().collect();
    assert_eq!(edges[0].guard.origin_file.as_deref(), Some("prog.i"));
    assert!(!edges[0].guard.enter_loop_head);
    assert_eq!(edges[0].guard.thread_id.as_deref(), Some("0"));
    assert_eq!(edges[1].guard.origin_file.as_deref(), Some("other.c"));
    assert!(edges[1].guard.enter_loop_head);
    assert_eq!(edges[1].guard.thread_id.as_deref(), Some("1"));
    assert!(!w.graph[NodeIndex::new(1)].entry && !w.graph[NodeIndex::new(1)].violation);
    // A default of true applies to every node without the key, keys declared after use.
    let body = r#"<node id="N0"/><node id="N1"><data key="entry">false</data></node>"#;
    let keys_after = r#"<key id="entry" for="node" attr.name="isEntryNode"><default>true</default></key>"#;
    let text = format!("<graphml><graph>{body}</graph>{keys_after}</graphml>");
    let w = read(&text).unwrap();
    assert_eq!(w.graph[w.entry].id, "N0");
    assert!(!w.graph[NodeIndex::new(1)].entry);
}

#[test]
fn bom_no_declaration_no_namespace() {
    let mut bytes = UTF8_BOM.to_vec();
    bytes.extend_from_slice(
            b"<graphml><key id=\"entry\" for=\"node\"/><graph><node id=\"q\"><data key=\"entry\">true</data></node></graph></graphml>",
        );
    let w = read_graphml(Path::new("w"), &bytes).unwrap();
    assert_eq!(w.graph[w.entry].id, "q");
    assert!(looks_like_graphml(&bytes));
}

#[test]
fn prefixed_namespace() {
    let text = r#"<?xml version="1.0"?>
<g:graphml xmlns:g="http://graphml.graphdrawing.org/xmlns">
 <g:key id="entry" for="node" attr.name="isEntryNode"/>
 <g:graph edgedefault="directed">
  <g:node id="a"><g:data key="entry">true</g:data></g:node>
  <g:node id="b"/>
  <g:edge source="a" target="b"><g:data key="startline">3</g:data></g:edge>
 </g:graph>
</g:graphml>"#;
    let w = read(text).unwrap();
    assert_eq!(w.graph[w.entry].id, "a");
    assert_eq!(only_edge(&w).guard.lines, Some(Range { start: 3, end: 3 }));
    assert!(looks_like_graphml(text.as_bytes()));
}

#[test]
fn cdata_and_entities() {
    let w = read(&one_edge(
        "",
        "<data key=\"assumption\">x &lt; 3;</data><data key=\"assumption\"><![CDATA[y < 4 && z > 5;]]></data>\
             <data key=\"assumption\">a &amp;&amp; b &#62; &#x3C; &quot;&apos;</data>\
             <data key=\"assumption.scope\"> main </data>",
    ))
    .unwrap();
    let a = only_edge(&w).assumption.as_ref().unwrap();
    assert_eq!(a.expressions, vec!["x < 3;", "y < 4 && z > 5;", "a && b > < \"'"]);
    assert_eq!(a.scope.as_deref(), Some("main"));
    // Undefined entity.
    let err = read(&one_edge("", "<data key=\"assumption\">x &foo; 3</data>")).unwrap_err();
    assert!(err.to_string().contains("undefined entity"), "{err}");
    // Unescaped ampersand (fixture).
    let err = read_graphml(Path::new("f"), &fixture("unescaped-ampersand.graphml")).unwrap_err();
    assert_eq!(pos_of(&err).0, 10, "{err}");
}

#[test]
fn structural_defects_tolerated_only_when_no_violation_is_reachable() {
    let keys =
        r#"<key id="entry" for="node" attr.name="entry"/><key id="violation" for="node" attr.name="violation"/>"#;
    let entry = r#"<node id="A"><data key="entry">true</data></node>"#;
    let violation = r#"<node id="V"><data key="violation">true</data></node>"#;
    // The violation node has no incoming edge; a node without id and an edge without
    // source cannot change that: read, with a warning each.
    let body = format!(r#"{entry}{violation}<node/><node id="B"/><edge target="B"/><edge source="B" target="C"/>"#);
    let w = read(&doc(keys, &body)).unwrap();
    assert_eq!(w.warnings.iter().filter(|m| m.contains(": malformed witness at")).count(), 2, "{:?}", w.warnings);
    // Issue 21: every warning names the file, as an error does.
    assert!(w.warnings.iter().all(|m| m.starts_with("w.graphml: ")), "{:?}", w.warnings);
    assert_eq!(w.graph.edge_count(), 1);
    // An edge without target may enter the violation node: an input error at its position.
    let body = format!("{entry}{violation}\n<edge source=\"A\"/>");
    let err = read(&doc(keys, &body)).unwrap_err();
    assert!(err.to_string().contains("without the required 'source' or 'target'"), "{err}");
    assert_eq!(pos_of(&err).0, 6, "{err}");
    // An edge without source may leave the entry towards a path into the violation node.
    let body = format!(r#"{entry}{violation}<node id="B"/><edge target="B"/><edge source="B" target="V"/>"#);
    assert!(matches!(read(&doc(keys, &body)), Err(InputError::Malformed { .. })));
    // A node without id that is marked as the violation node cannot be entered.
    let body = format!(r#"{entry}<node><data key="violation">true</data></node>"#);
    assert!(read(&doc(keys, &body)).is_ok());
}

#[test]
fn gzip_input() {
    let text = one_edge("", "<data key=\"startline\">12</data>");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    assert!(looks_like_graphml(&gz));
    let w = read_graphml(Path::new("w.graphml.gz"), &gz).unwrap();
    assert_eq!(only_edge(&w).guard.lines, Some(Range { start: 12, end: 12 }));
    // Truncated gzip stream.
    let err = read_graphml(Path::new("w.gz"), &gz[..gz.len() / 2]).unwrap_err();
    assert!(matches!(err, InputError::Malformed { .. }), "{err}");
}

#[test]
fn duplicate_single_valued_key_is_error_with_position() {
    let err = read_graphml(Path::new("f"), &fixture("duplicate-startline.graphml")).unwrap_err();
    assert_eq!(pos_of(&err), (15, 4), "{err}");
    for key in [
        "startline",
        "endline",
        "startoffset",
        "endoffset",
        "originfile",
        "enterFunction",
        "returnFromFunction",
        "assumption.scope",
        "assumption.resultfunction",
        "threadId",
        "createThread",
        "enterLoopHead",
    ] {
        let v = if key.ends_with("line") || key.ends_with("offset") {
            "1"
        } else if key == "enterLoopHead" {
            "true"
        } else {
            "f"
        };
        let text = one_edge("", &format!("\n<data key=\"{key}\">{v}</data>\n <data key=\"{key}\">{v}</data>"));
        let err = read(&text).unwrap_err();
        assert_eq!(pos_of(&err), (9, 2), "{key}: {err}");
    }
    let text = one_edge("", "<data key=\"control\">condition-true</data><data key=\"control\">condition-true</data>");
    assert!(read(&text).is_err());
    // assumption may repeat.
    let text = one_edge("", "<data key=\"assumption\">a == 1;</data><data key=\"assumption\">b == 2;</data>");
    let w = read(&text).unwrap();
    assert_eq!(only_edge(&w).assumption.as_ref().unwrap().expressions.len(), 2);
}

#[test]
fn non_integer_is_error_at_data_element() {
    let err = read_graphml(Path::new("f"), &fixture("bad-integer.graphml")).unwrap_err();
    assert_eq!(pos_of(&err), (11, 33), "{err}");
    let err = read(&one_edge("", "<data key=\"endoffset\">-1</data>")).unwrap_err();
    assert!(err.to_string().contains("endoffset"), "{err}");
}

#[test]
fn bad_control_value_is_error() {
    let err = read(&one_edge("", "<data key=\"control\">maybe</data>")).unwrap_err();
    assert!(err.to_string().contains("condition-true"), "{err}");
}

#[test]
fn line_and_offset_normalisation() {
    let w = read(&one_edge("", "<data key=\"endline\">9</data><data key=\"endoffset\">100</data>")).unwrap();
    let g = &only_edge(&w).guard;
    assert_eq!(g.lines, Some(Range { start: 9, end: 9 }));
    assert_eq!(g.offsets, Some(Range { start: 100, end: 100 }));
    let w = read(&one_edge(
            "",
            "<data key=\"startline\">3</data><data key=\"endline\">5</data><data key=\"startoffset\">10</data><data key=\"endoffset\">20</data>",
        ))
        .unwrap();
    let g = &only_edge(&w).guard;
    assert_eq!(g.lines, Some(Range { start: 3, end: 5 }));
    assert_eq!(g.offsets, Some(Range { start: 10, end: 20 }));
    let w = read(&one_edge("", "")).unwrap();
    assert_eq!(only_edge(&w).guard, LocationGuard::default());
    assert!(only_edge(&w).assumption.is_none());
}

#[test]
fn other_edge_keys() {
    let w = read(&one_edge(
        "",
        "<data key=\"enterFunction\">main</data><data key=\"threadId\">0</data><data key=\"createThread\">1</data>\
             <data key=\"enterLoopHead\">TRUE</data><data key=\"sourcecode\">x = 1;</data>",
    ))
    .unwrap();
    let g = &only_edge(&w).guard;
    assert_eq!(g.enter_function.as_deref(), Some("main"));
    assert_eq!(g.thread_id.as_deref(), Some("0"));
    assert_eq!(g.create_thread.as_deref(), Some("1"));
    assert!(g.enter_loop_head);
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn legacy_negative_case() {
    for key in ["negated", "negativeCase"] {
        let w = read(&one_edge("", &format!("<data key=\"{key}\">true</data>"))).unwrap();
        assert_eq!(only_edge(&w).guard.control, Some(Control::ConditionFalse), "{key}");
        let w = read(&one_edge("", &format!("<data key=\"{key}\">false</data>"))).unwrap();
        assert_eq!(only_edge(&w).guard.control, None, "{key}");
    }
    // control wins.
    let w = read(&one_edge("", "<data key=\"negativeCase\">true</data><data key=\"control\">condition-true</data>"))
        .unwrap();
    assert_eq!(only_edge(&w).guard.control, Some(Control::ConditionTrue));
}

#[test]
fn unknown_key_warns_once() {
    let w = read(&doc(
        "",
        r#"<node id="A"><data key="entry">true</data><data key="frobnicate">1</data></node>
<node id="B"><data key="frobnicate">2</data></node>
<edge source="A" target="B"><data key="starline">3</data></edge>"#,
    ))
    .unwrap();
    let unknown: Vec<_> = w.warnings.iter().filter(|m| m.contains("unknown key")).collect();
    assert_eq!(unknown.len(), 2, "{:?}", w.warnings);
    assert!(unknown.iter().any(|m| m.contains("frobnicate")));
    assert!(unknown.iter().any(|m| m.contains("starline")));
}

#[test]
fn booleans() {
    let w = read(&doc(
        "",
        r#"<node id="A"><data key="entry">True</data></node><node id="B"><data key="sink">maybe</data></node>"#,
    ))
    .unwrap();
    assert_eq!(w.graph[w.entry].id, "A");
    assert!(!w.graph[NodeIndex::new(1)].sink);
    assert!(w.warnings.iter().any(|m| m.contains("maybe")), "{:?}", w.warnings);
}

#[test]
fn missing_entry_is_invalid() {
    let err = read_graphml(Path::new("f"), &fixture("no-entry.graphml")).unwrap_err();
    assert!(matches!(err, InputError::Invalid { .. }), "{err}");
    let err = read("<graphml><graph/></graphml>").unwrap_err();
    assert!(matches!(err, InputError::Invalid { .. }), "{err}");
}

#[test]
fn several_entries_use_first_and_warn() {
    let w = read(&doc(
            "",
            r#"<node id="A"/><node id="B"><data key="entry">true</data></node><node id="C"><data key="entry">true</data></node>"#,
        ))
        .unwrap();
    assert_eq!(w.graph[w.entry].id, "B");
    assert!(!w.graph[NodeIndex::new(2)].entry);
    assert!(w.warnings.iter().any(|m| m.contains("several entry nodes")), "{:?}", w.warnings);
}

#[test]
fn node_references() {
    // Declared after use: fine, no warning.
    let w = read(&doc(
        "",
        r#"<edge source="A" target="B"/><node id="A"><data key="entry">true</data></node><node id="B"/>"#,
    ))
    .unwrap();
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    assert_eq!(w.graph.node_count(), 2);
    // Never declared: created with a warning.
    let w =
        read(&doc("", r#"<node id="A"><data key="entry">true</data></node><edge source="A" target="Z"/>"#)).unwrap();
    assert_eq!(w.graph.node_count(), 2);
    assert!(w.warnings.iter().any(|m| m.contains("'Z'")), "{:?}", w.warnings);
    // Duplicate id.
    let err = read(&doc("", "<node id=\"A\"/>\n<node id=\"A\"/>")).unwrap_err();
    assert_eq!(pos_of(&err), (6, 1), "{err}");
    // Missing attributes.
    assert!(read(&doc("", "<node/>")).is_err());
    assert!(read(&doc("", "<node id=\"A\"/><edge target=\"A\"/>")).is_err());
    assert!(read(&doc("", "<node id=\"A\"/><edge source=\"A\"/>")).is_err());
}

#[test]
fn exactly_one_graph() {
    let err = read("<graphml><graph><node id=\"a\"/></graph>\n<graph/></graphml>").unwrap_err();
    assert_eq!(pos_of(&err), (2, 1), "{err}");
    let err = read("<graphml><key id=\"entry\"/></graphml>").unwrap_err();
    assert!(err.to_string().contains("no <graph>"), "{err}");
}

#[test]
fn malformed_xml_has_position() {
    let err = read_graphml(Path::new("f"), &fixture("unclosed-tag.graphml")).unwrap_err();
    // </graph> on line 11 does not match <edge> opened on line 9.
    assert_eq!(pos_of(&err).0, 11, "{err}");
    let err = read("<graphml>\n<graph>\n<node id=\"a\">").unwrap_err();
    assert_eq!(pos_of(&err), (3, 14), "{err}");
    assert!(err.to_string().contains("</node>"), "{err}");
    let err = read("<graphml>\n  <graph x=>").unwrap_err();
    assert_eq!(pos_of(&err).0, 2, "{err}");
    let err = read("<graphml><graph></graph></graphml>\n<graphml/>").unwrap_err();
    assert_eq!(pos_of(&err), (2, 1), "{err}");
    let err = read("hello <graphml/>").unwrap_err();
    assert_eq!(pos_of(&err), (1, 1), "{err}");
    let err = read("<svg></svg>").unwrap_err();
    assert!(err.to_string().contains("graphml"), "{err}");
}

#[test]
fn binary_garbage_and_empty_input() {
    let err = read_graphml(Path::new("f"), &fixture("binary-garbage.graphml")).unwrap_err();
    assert_eq!(pos_of(&err), (1, 1), "{err}");
    let err = read_graphml(Path::new("f"), b"").unwrap_err();
    assert_eq!(pos_of(&err), (1, 1), "{err}");
    assert!(err.to_string().contains("empty"), "{err}");
    let err = read_graphml(Path::new("f"), b"  \n ").unwrap_err();
    assert_eq!(pos_of(&err), (2, 2), "{err}");
    let err = read_graphml(Path::new("f"), b"<graphml>\n<graph>\xff</graph>").unwrap_err();
    assert_eq!(pos_of(&err), (2, 8), "{err}");
    assert!(!looks_like_graphml(&fixture("binary-garbage.graphml")));
    assert!(!looks_like_graphml(b""));
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 200_000;
    let mut text = String::from("<graphml><graph><node id=\"a\"><data key=\"entry\">true</data>");
    text.push_str(&"<x>".repeat(depth));
    text.push_str(&"</x>".repeat(depth));
    text.push_str("</node></graph></graphml>");
    let w = read(&text).unwrap();
    assert_eq!(w.graph.node_count(), 1);
    let unclosed = "<graphml>".to_string() + &"<x>".repeat(depth);
    assert!(read(&unclosed).is_err());
}

#[test]
fn large_witness() {
    // Positions are computed with a line index, so this stays linear.
    let n = 20_000;
    let mut body = String::from("<node id=\"n0\"><data key=\"entry\">true</data></node>\n");
    for i in 1..=n {
        body.push_str(&format!(
                "<node id=\"n{i}\"/>\n<edge source=\"n{}\" target=\"n{i}\"><data key=\"startline\">{i}</data><data key=\"assumption\">x == {i};</data></edge>\n",
                i - 1
            ));
    }
    let w = read(&doc("", &body)).unwrap();
    assert_eq!(w.graph.edge_count(), n);
    let last = w.graph.edge_weights().last().unwrap();
    assert_eq!(last.origin, format!("{}:1", 5 + 2 * n));
}

#[test]
fn looks_like() {
    assert!(looks_like_graphml(b"<?xml version=\"1.0\"?>\n<!-- c -->\n<graphml xmlns=\"x\">"));
    assert!(!looks_like_graphml(b"entry_type: violation_sequence\n"));
    assert!(!looks_like_graphml(b"<?xml version=\"1.0\"?><svg/>"));
}

#[test]
fn line_index_agrees_with_line_col() {
    let text = "ab\ncd\n\nxyé z".as_bytes();
    let index = LineStarts::of_bytes(text);
    for off in 0..=text.len() + 2 {
        assert_eq!(index.position(off), crate::error::line_col(text, off), "offset {off}");
    }
    // Issue 33: positions in a witness count characters.
    assert_eq!(index.position(text.len() - 1), (4, 5));
}

// ---- real witnesses

/// Files that must NOT be accepted, with the reason.
const EXPECTED_FAILURES: &[(&str, &str)] = &[(
    "nit-11fptr-cbmc/11.func.ptrs.cbmc.c.graphml",
    "manifest 'disputed': not well-formed XML (unescaped '&my_int_func' in an assumption)",
)];

/// Malformed witnesses whose defects cannot matter (decision 41): read, with a warning.
const TOLERATED_DEFECTS: &[&str] = &["faulty-witness-2.graphml"];

fn collect_witnesses(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_witnesses(&p, out);
        } else if p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(".graphml")) {
            out.push(p);
        }
    }
}

fn real_witnesses() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
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

#[test]
fn all_real_witnesses_parse() {
    let files = real_witnesses();
    if files.is_empty() {
        eprintln!("no real witnesses found; test skipped");
        return;
    }
    let mut failures = Vec::new();
    let mut warned = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let expected_failure = EXPECTED_FAILURES.iter().find(|(suffix, _)| f.ends_with(suffix));
        assert!(looks_like_graphml(&bytes), "{} not recognised as GraphML", f.display());
        match (read_graphml(f, &bytes), expected_failure) {
            (Ok(w), None) => {
                if TOLERATED_DEFECTS.iter().any(|suffix| f.ends_with(suffix)) {
                    let defects = w.warnings.iter().filter(|m| m.contains(": malformed witness at")).count();
                    assert!(defects >= 2, "{}: {:?}", f.display(), w.warnings);
                }
                assert!(w.graph.node_count() > 0, "{}", f.display());
                assert!(w.graph[w.entry].entry, "{}", f.display());
                if !w.warnings.is_empty() {
                    warned += 1;
                    eprintln!("{}: {:?}", f.display(), w.warnings);
                }
            }
            (Err(e), None) => failures.push(format!("{e}")),
            (Ok(_), Some((_, why))) => failures.push(format!("{}: expected to fail ({why})", f.display())),
            (Err(e), Some(_)) => assert!(matches!(e, InputError::Malformed { .. }), "{e}"),
        }
    }
    eprintln!("{} witnesses read, {warned} with warnings", files.len());
    assert!(failures.is_empty(), "{} of {} files:\n{}", failures.len(), files.len(), failures.join("\n"));
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        let mut files = real_witnesses();
        files.retain(|f| !EXPECTED_FAILURES.iter().any(|(s, _)| f.ends_with(s)));
        files.sort_by_key(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(u64::MAX));
        match files.first() {
            Some(f) => std::fs::read(f).unwrap(),
            None => {
                one_edge("", "<data key=\"startline\">3</data><data key=\"assumption\">x &lt; 1</data>").into_bytes()
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = read_graphml(Path::new("p"), &bytes);
            let _ = looks_like_graphml(&bytes);
        }

        #[test]
        fn mutated_witness_never_panics(
            edits in proptest::collection::vec((any::<proptest::sample::Index>(), 0u8..4, any::<u8>()), 1..12)
        ) {
            let bytes = crate::witness::test_support::mutate(sample(), &edits, b"<>&\"/");
            let _ = read_graphml(Path::new("p"), &bytes);
            let _ = looks_like_graphml(&bytes);
        }
    }
}
