//! GraphML 1.0 lint: witnesslint 1.3's checks (digest §2–§5) with its triggers, and ours (§6.1)
//! that a witness witnesslint accepts can only fail when it is unusable.
//!
//! The document is parsed into a tree (roxmltree: strict XML, positions, namespaces) and its
//! elements are visited in the order witnesslint's `iterparse` handles them (end of element:
//! children before parents), so that order-dependent checks (keys declared after use, sink
//! nodes with edges before or after them) trigger alike.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use regex::Regex;
use roxmltree::{Document, Node, ParsingOptions};

use super::program::ProgramFacts;
use super::threads::ThreadEdge;
use super::{Severity, Sink};
use crate::cfa::DataModel;

const GRAPHML_NS: &str = "http://graphml.graphdrawing.org/xmlns";
const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
/// Most XML nodes read (a witness of 4 million elements is far beyond any real one).
const MAX_NODES: u32 = 20_000_000;

/// Standard keys and the element kind they belong to (witnesslint's `COMMON_KEYS`).
const COMMON_KEYS: &[(&str, &str)] = &[
    ("witness-type", "graph"),
    ("sourcecodelang", "graph"),
    ("producer", "graph"),
    ("specification", "graph"),
    ("programfile", "graph"),
    ("programhash", "graph"),
    ("architecture", "graph"),
    ("creationtime", "graph"),
    ("entry", "node"),
    ("sink", "node"),
    ("violation", "node"),
    ("invariant", "node"),
    ("invariant.scope", "node"),
    ("cyclehead", "node"),
    ("assumption", "edge"),
    ("assumption.scope", "edge"),
    ("assumption.resultfunction", "edge"),
    ("control", "edge"),
    ("startline", "edge"),
    ("endline", "edge"),
    ("startoffset", "edge"),
    ("endoffset", "edge"),
    ("enterLoopHead", "edge"),
    ("enterFunction", "edge"),
    ("returnFromFunction", "edge"),
    ("threadId", "edge"),
    ("createThread", "edge"),
];

/// Edge keys that hold one value: a second one on the same edge is contradictory (L3).
const SINGLE_VALUED: &[&str] = &[
    "startline",
    "endline",
    "startoffset",
    "endoffset",
    "control",
    "enterFunction",
    "returnFromFunction",
    "returnFrom",
    "assumption.scope",
    "assumption.resultfunction",
    "threadId",
    "createThread",
];

fn common_kind(key: &str) -> Option<&'static str> {
    COMMON_KEYS.iter().find(|(k, _)| *k == key).map(|&(_, d)| d)
}

/// One edge's function entry and exit, for the call-stack check (S4).
struct EdgeCalls {
    target: String,
    enter: Option<String>,
    ret: Option<String>,
}

/// An edge data item the program-aware checks look at.
struct EdgeItem {
    /// Line and column of its `<data>` element.
    at: (u32, u32),
    key: String,
    value: String,
    /// Of the same edge: `assumption.scope`, `assumption.resultfunction`, `startline`.
    scope: Option<String>,
    result_function: Option<String>,
    start_line: Option<u32>,
}

#[derive(Default)]
struct State {
    defined_keys: HashMap<String, String>,
    used_keys: HashSet<String>,
    node_ids: HashSet<String>,
    sink_nodes: HashSet<String>,
    edge_sources: HashSet<String>,
    check_existence: Vec<(String, (u32, u32))>,
    entry_node: Option<String>,
    cyclehead: Option<String>,
    violation_nodes: Vec<String>,
    violation_only: Vec<String>,
    correctness_only: Vec<String>,
    witness_type: Option<String>,
    sourcecodelang: Option<String>,
    producer: Option<String>,
    specifications: Vec<String>,
    programfile: Option<String>,
    programhash: Option<String>,
    architecture: Option<String>,
    creationtime: Option<String>,
    transitions: Vec<(String, EdgeCalls)>,
    /// Every edge's thread keys, for the thread checks (L18, L21, L22).
    thread_edges: Vec<ThreadEdge>,
    edge_items: Vec<EdgeItem>,
    /// Function names in data values, with their line, for the name check (S3/L9).
    function_names: Vec<(String, (u32, u32), &'static str)>,
    saw_graph: bool,
    saw_graphml: bool,
}

struct Linter<'a, 'i> {
    doc: &'a Document<'i>,
    /// The witness (for the validator's reader: the invariant checks, decision 166).
    path: &'a Path,
    bytes: &'a [u8],
    sink: &'a mut Sink,
    program: Option<&'a ProgramFacts>,
    /// The witness's line table: a finding's position in O(log n), where roxmltree's
    /// `text_pos_at` counts from the start of the text for each (quadratic lint, issue 35 item 5).
    lines: crate::lines::LineStarts,
    s: State,
}

/// Lints a GraphML witness; returns the overview (witnesslint's summary lines).
pub(super) fn lint(
    path: &Path,
    bytes: &[u8],
    program: Option<&ProgramFacts>,
    sink: &mut Sink,
) -> Vec<(String, String)> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let (line, col) = crate::error::line_col(bytes, e.valid_up_to());
            sink.at(Severity::Error, "X1", line, col, "malformed witness: not UTF-8".into());
            return Vec::new();
        }
    };
    let opts = ParsingOptions { allow_dtd: true, nodes_limit: MAX_NODES, ..ParsingOptions::default() };
    let doc = match Document::parse_with_options(text, opts) {
        Ok(d) => d,
        Err(e) => {
            let p = e.pos();
            sink.at(Severity::Error, "X1", p.row, p.col, format!("malformed witness: {e}"));
            return Vec::new();
        }
    };
    let lines = crate::lines::LineStarts::of_bytes(bytes);
    let mut l = Linter { doc: &doc, path, bytes, sink, program, lines, s: State::default() };
    l.walk();
    l.final_checks();
    let s = &l.s;
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "None".into());
    vec![
        ("Witness Type".into(), show(&s.witness_type)),
        ("Producer".into(), show(&s.producer)),
        ("Creation Time".into(), show(&s.creationtime)),
        ("Architecture".into(), show(&s.architecture)),
        ("Program File".into(), show(&s.programfile)),
        ("Program Hash".into(), show(&s.programhash)),
        ("Source-Code Language".into(), show(&s.sourcecodelang)),
    ]
}

fn local(n: Node) -> &'static str {
    // Interned names keep the borrow checker out of the match below.
    match n.tag_name().name() {
        "graphml" => "graphml",
        "graph" => "graph",
        "key" => "key",
        "default" => "default",
        "node" => "node",
        "edge" => "edge",
        "data" => "data",
        _ => "",
    }
}

/// Text of an element as lxml's `.text` gives it: the text before its first child node, `None`
/// when there is none.
fn elem_text<'a>(n: Node<'a, '_>) -> Option<&'a str> {
    n.first_child().filter(|c| c.is_text()).and_then(|c| c.text())
}

impl<'a, 'i> Linter<'a, 'i> {
    /// Line and column of a node's start (every finding at an element names both).
    fn pos(&self, n: Node) -> (u32, u32) {
        self.lines.position(n.range().start)
    }

    fn warn(&mut self, check: &'static str, n: Node, msg: String) {
        let (line, col) = self.pos(n);
        self.sink.at(Severity::Warning, check, line, col, msg);
    }

    /// Post-order walk (children before parents), iterative.
    fn walk(&mut self) {
        let root = self.doc.root_element();
        let mut stack: Vec<(Node, bool)> = vec![(root, false)];
        while let Some((n, expanded)) = stack.pop() {
            if !expanded {
                stack.push((n, true));
                for c in n.children().filter(|c| c.is_element()).collect::<Vec<_>>().into_iter().rev() {
                    stack.push((c, false));
                }
                continue;
            }
            self.element_end(n, stack.is_empty());
        }
    }

    fn element_end(&mut self, n: Node, is_root: bool) {
        let tag = local(n);
        if is_root && tag != "graphml" {
            let (line, col) = self.pos(n);
            self.sink.at(Severity::Error, "X2", line, col, "document root is not a GraphML element".into());
        }
        match tag {
            "data" | "default" => {}
            "key" => self.handle_key(n),
            "node" => self.handle_node(n),
            "edge" => self.handle_edge(n),
            "graph" => {
                if self.s.saw_graph {
                    self.warn("X7", n, "found multiple graph definitions".into());
                } else {
                    self.s.saw_graph = true;
                    self.handle_graph(n);
                }
            }
            "graphml" => {
                if self.s.saw_graphml {
                    self.warn("X7", n, "found multiple graphml elements".into());
                } else {
                    self.s.saw_graphml = true;
                    self.handle_graphml(n);
                }
            }
            _ => self.warn("X8", n, format!("unknown tag: {}", n.tag_name().name())),
        }
    }

    fn handle_graphml(&mut self, n: Node) {
        match n.lookup_namespace_uri(None) {
            None => self.warn("X3", n, "missing default namespace".into()),
            Some(ns) if ns != GRAPHML_NS => self.warn("X3", n, format!("unexpected default namespace: {ns}")),
            _ => {}
        }
        match n.lookup_namespace_uri(Some("xsi")) {
            None => self.warn("X4", n, "missing xml schema namespace or namespace prefix is not called 'xsi'".into()),
            Some(ns) if ns != XSI_NS => {
                self.warn("X4", n, format!("expected 'xsi' to be the namespace prefix for '{XSI_NS}'"))
            }
            _ => {}
        }
        for a in n.attributes() {
            if !(a.namespace() == Some(XSI_NS) && a.name() == "schemaLocation") {
                self.warn("X5", n, format!("unexpected attribute on graphml element: {}", a.name()));
            }
        }
        for c in n.children().filter(|c| c.is_element()) {
            if !matches!(local(c), "graph" | "key") {
                self.warn("X6", n, format!("graphml element has unexpected child of type '{}'", c.tag_name().name()));
            }
        }
    }

    fn handle_key(&mut self, k: Node) {
        let id = k.attribute("id");
        let domain = k.attribute("for");
        match (id, domain) {
            (Some(id), Some(domain)) if !id.is_empty() && !domain.is_empty() => {
                if self.s.defined_keys.contains_key(id) {
                    self.warn("K2", k, format!("found multiple key definitions with id '{id}'"));
                } else {
                    if let Some(kind) = common_kind(id).filter(|&kind| kind != domain) {
                        self.warn(
                            "K3",
                            k,
                            format!("key '{id}' should be used for '{kind}' elements but was defined for '{domain}' elements"),
                        );
                    }
                    self.s.defined_keys.insert(id.to_string(), domain.to_string());
                }
            }
            _ => {
                if id.is_none() {
                    self.warn("K1", k, "key is missing attribute 'id'".into());
                }
                if domain.is_none() {
                    self.warn("K1", k, "key is missing attribute 'for'".into());
                }
            }
        }
        let children: Vec<Node> = k.children().filter(|c| c.is_element()).collect();
        if children.len() > 1 {
            self.warn("K4", k, format!("expected key to have at most one child but has {}", children.len()));
        }
        for c in children {
            if local(c) == "default" {
                if c.attributes().len() != 0 {
                    self.warn("K5", k, "expected no attributes for 'default' element".into());
                }
                match elem_text(c) {
                    None => self.warn("K5", c, "paired tag 'default' used as single tag".into()),
                    Some(t) => {
                        let id = id.unwrap_or("");
                        if matches!(id, "entry" | "sink" | "violation" | "enterLoopHead") && t.trim() != "false" {
                            self.warn("K6", k, format!("default value for {id} should be 'false'"));
                        }
                    }
                }
            } else {
                self.warn("K4", c, format!("invalid child for key element: {}", c.tag_name().name()));
            }
        }
    }

    fn handle_node(&mut self, n: Node) {
        if n.attributes().len() > 1 {
            self.warn(
                "E1",
                n,
                format!("expected node element to have exactly one attribute but has {}", n.attributes().len()),
            );
        }
        match n.attribute("id") {
            None => self.warn("E1", n, "expected node element to have attribute 'id'".into()),
            Some(id) if self.s.node_ids.contains(id) => {
                self.warn("E1", n, format!("found multiple nodes with id '{id}'"))
            }
            Some(id) => {
                self.s.node_ids.insert(id.to_string());
            }
        }
        for c in n.children().filter(|c| c.is_element()) {
            if local(c) == "data" {
                self.handle_data(c, n, "node");
            } else {
                self.warn("E2", c, format!("node has unexpected child element of type '{}'", c.tag_name().name()));
            }
        }
    }

    fn handle_edge(&mut self, e: Node) {
        let source = e.attribute("source");
        let target = e.attribute("target");
        match source {
            None => self.warn("E3", e, "edge is missing attribute 'source'".into()),
            Some(s) => {
                if self.s.sink_nodes.contains(s) {
                    self.warn("E6", e, "sink node should have no leaving edges".into());
                }
                self.s.edge_sources.insert(s.to_string());
                if !self.s.node_ids.contains(s) {
                    let at = self.pos(e);
                    self.s.check_existence.push((s.to_string(), at));
                }
            }
        }
        match target {
            None => self.warn("E3", e, "edge is missing attribute 'target'".into()),
            Some(t) => {
                if source == Some(t) {
                    self.warn("E5", e, format!("node '{t}' has self-loop"));
                }
                if !self.s.node_ids.contains(t) {
                    let at = self.pos(e);
                    self.s.check_existence.push((t.to_string(), at));
                }
            }
        }
        let mut seen: HashMap<&str, u32> = HashMap::new();
        let (mut enter, mut ret) = (None, None);
        let (mut scope, mut result_function, mut start_line) = (None, None, None);
        let (mut thread, mut create) = (None, None);
        let first_item = self.s.edge_items.len();
        for c in e.children().filter(|c| c.is_element()) {
            if local(c) != "data" {
                self.warn("E2", c, format!("edge has unexpected child element of type '{}'", c.tag_name().name()));
                continue;
            }
            self.handle_data(c, e, "edge");
            if let Some(key @ ("threadId" | "createThread")) = c.attribute("key") {
                if elem_text(c).is_none_or(|t| t.trim().is_empty()) {
                    let (line, col) = self.pos(c);
                    self.sink.at(
                        Severity::Error,
                        "L23",
                        line,
                        col,
                        format!("`{key}` without a value: a thread id names a thread"),
                    );
                    continue;
                }
            }
            let (Some(key), Some(text)) = (c.attribute("key"), elem_text(c)) else { continue };
            let value = text.trim();
            let at = self.pos(c);
            let line = at.0;
            if SINGLE_VALUED.contains(&key) {
                if let Some(first) = seen.insert(key, line) {
                    self.sink.at(
                        Severity::Error,
                        "L3",
                        at.0,
                        at.1,
                        format!("second `{key}` on one edge (first at line {first}): the transition's guard is contradictory"),
                    );
                }
            }
            match key {
                "enterFunction" => enter = Some(value.to_string()),
                "returnFromFunction" | "returnFrom" => ret = Some(value.to_string()),
                "assumption.scope" => scope = Some(value.to_string()),
                "assumption.resultfunction" => result_function = Some(value.to_string()),
                "threadId" => thread = Some((value.to_string(), at)),
                "createThread" => create = Some((value.to_string(), at)),
                _ => {}
            }
            if matches!(key, "startline" | "endline" | "startoffset" | "endoffset") {
                match value.parse::<u64>() {
                    Ok(v) => {
                        if key == "startline" {
                            start_line = u32::try_from(v).ok();
                        }
                    }
                    Err(_) => self.sink.at(
                        Severity::Error,
                        "L4",
                        at.0,
                        at.1,
                        format!("`{key}` is `{value}`, not a non-negative integer"),
                    ),
                }
            }
            if matches!(key, "startline" | "endline" | "startoffset" | "endoffset" | "assumption") {
                self.s.edge_items.push(EdgeItem {
                    at,
                    key: key.to_string(),
                    value: value.to_string(),
                    scope: None,
                    result_function: None,
                    start_line: None,
                });
            }
            if matches!(
                key,
                "enterFunction"
                    | "returnFromFunction"
                    | "returnFrom"
                    | "assumption.scope"
                    | "assumption.resultfunction"
            ) {
                let what = match key {
                    "enterFunction" => "enterFunction",
                    "assumption.scope" => "assumption.scope",
                    "assumption.resultfunction" => "assumption.resultfunction",
                    _ => "returnFromFunction",
                };
                self.s.function_names.push((value.to_string(), at, what));
            }
        }
        for item in &mut self.s.edge_items[first_item..] {
            item.scope.clone_from(&scope);
            item.result_function.clone_from(&result_function);
            item.start_line = start_line;
        }
        if let (Some(s), Some(t)) = (source, target) {
            self.s.thread_edges.push(ThreadEdge {
                source: s.to_string(),
                target: t.to_string(),
                thread,
                create,
                enter: enter.clone(),
                ret: ret.clone(),
            });
            self.s.transitions.push((s.to_string(), EdgeCalls { target: t.to_string(), enter, ret }));
        }
    }

    fn handle_graph(&mut self, g: Node) {
        match g.attribute("edgedefault") {
            None => self.warn("X9", g, "graph definition is missing attribute 'edgedefault'".into()),
            Some(d) if d != "directed" => self.warn("X9", g, "edgedefault should be 'directed'".into()),
            _ => {}
        }
        for c in g.children().filter(|c| c.is_element()) {
            match local(c) {
                "data" => self.handle_data(c, g, "graph"),
                "node" | "edge" => {}
                _ => {
                    self.warn("X10", c, format!("graph element has unexpected child of type '{}'", c.tag_name().name()))
                }
            }
        }
    }

    fn handle_data(&mut self, d: Node, parent: Node, kind: &'static str) {
        let children = d.children().filter(|c| c.is_element()).count();
        if children > 0 {
            self.warn("D1", d, format!("expected data element to not have any children but has {children}"));
        }
        if d.attributes().len() > 1 {
            self.warn(
                "D1",
                d,
                format!("expected data element to have exactly one attribute but has {}", d.attributes().len()),
            );
        }
        let key = d.attribute("key");
        if key.is_none() {
            self.warn("D1", d, "expected data element to have attribute 'key'".into());
        }
        let text = elem_text(d);
        if text.is_none() {
            self.warn("D2", d, "paired tag 'data' used as single tag".into());
        }
        let (Some(key), Some(text)) = (key, text) else { return };
        let value = text.trim();
        self.s.used_keys.insert(key.to_string());
        match kind {
            "node" => self.node_data(d, key, value, parent),
            "edge" => self.edge_data(d, key, value, parent),
            _ => self.graph_data(d, key, value),
        }
    }

    fn defined_for(&self, key: &str, kind: &str) -> bool {
        self.s.defined_keys.get(key).is_some_and(|d| d == kind)
    }

    fn flag(&mut self, d: Node, key: &str, value: &str, check: &'static str) -> Option<bool> {
        match value {
            "true" => Some(true),
            "false" => Some(false),
            _ => {
                self.warn(check, d, format!("invalid value for key '{key}': {value}"));
                None
            }
        }
    }

    fn node_data(&mut self, d: Node, key: &str, value: &str, parent: Node) {
        let id = parent.attribute("id");
        match key {
            "entry" => {
                if self.flag(d, key, value, "N1") == Some(true) {
                    if self.s.entry_node.is_none() {
                        self.s.entry_node = Some(id.unwrap_or("").to_string());
                    } else {
                        self.warn("N1", d, "found multiple entry nodes".into());
                    }
                }
            }
            "sink" => {
                if self.flag(d, key, value, "N2") == Some(true) {
                    if let Some(id) = id {
                        if self.s.edge_sources.contains(id) {
                            self.warn("E6", d, "sink node should have no leaving edges".into());
                        }
                        self.s.sink_nodes.insert(id.to_string());
                    }
                }
                self.s.violation_only.push(key.to_string());
            }
            "violation" => {
                if self.flag(d, key, value, "N3") == Some(true) {
                    if let Some(id) = id {
                        self.s.violation_nodes.push(id.to_string());
                    }
                }
                self.s.violation_only.push(key.to_string());
            }
            "invariant" => self.s.correctness_only.push(key.to_string()),
            "invariant.scope" => {
                self.s.correctness_only.push(key.to_string());
                let at = self.pos(d);
                self.s.function_names.push((value.to_string(), at, "invariant.scope"));
            }
            "cyclehead" => {
                if self.flag(d, key, value, "N4") == Some(true) {
                    if self.s.cyclehead.is_none() {
                        self.s.cyclehead = Some(id.unwrap_or("").to_string());
                    } else {
                        self.warn("N4", d, "found multiple cycleheads".into());
                    }
                }
            }
            _ if self.defined_for(key, "node") => {}
            _ => self.warn("D3", d, format!("unknown key for node data element: {key}")),
        }
    }

    fn edge_data(&mut self, d: Node, key: &str, value: &str, parent: Node) {
        match key {
            "assumption" => {
                self.s.violation_only.push(key.to_string());
                let has_rf = parent.children().any(|c| {
                    c.is_element() && local(c) == "data" && c.attribute("key") == Some("assumption.resultfunction")
                });
                if value.contains("\\result") && !has_rf {
                    self.warn(
                        "T2",
                        d,
                        "found assumption containing '\\result' but no resultfunction was specified".into(),
                    );
                }
            }
            "assumption.scope" | "assumption.resultfunction" => self.s.violation_only.push(key.to_string()),
            "control" => {
                if !matches!(value, "condition-true" | "condition-false") {
                    self.warn("T3", d, format!("invalid value for key 'control': {value}"));
                }
            }
            "startline" | "endline" | "startoffset" | "endoffset" | "enterFunction" | "returnFromFunction"
            | "returnFrom" | "threadId" | "createThread" => {}
            "enterLoopHead" => {
                self.flag(d, key, value, "T4");
            }
            _ if self.defined_for(key, "edge") => {}
            _ => self.warn("D3", d, format!("unknown key for edge data element: {key}")),
        }
    }

    fn graph_data(&mut self, d: Node, key: &str, value: &str) {
        let dup = |l: &mut Self, what: &str| {
            let check = match what {
                "witness-type" => "G1",
                "sourcecodelang" => "G2",
                "producer" => "G3",
                "programfile" => "G5",
                "programhash" => "G6",
                "architecture" => "G7",
                _ => "G8",
            };
            l.warn(check, d, format!("found multiple definitions of {what}"))
        };
        match key {
            "witness-type" => {
                if !matches!(value, "correctness_witness" | "violation_witness") {
                    self.warn("G1", d, format!("invalid value for key 'witness-type': {value}"));
                } else if self.s.witness_type.is_none() {
                    self.s.witness_type = Some(value.to_string());
                } else {
                    dup(self, "witness-type");
                }
            }
            "sourcecodelang" => {
                if !matches!(value, "C" | "Java") {
                    self.warn("G2", d, format!("invalid value for key 'sourcecodelang': {value}"));
                } else if self.s.sourcecodelang.is_none() {
                    self.s.sourcecodelang = Some(value.to_string());
                } else {
                    dup(self, "sourcecodelang");
                }
            }
            "producer" => {
                if self.s.producer.is_none() {
                    self.s.producer = Some(value.to_string());
                } else {
                    dup(self, "producer");
                }
            }
            "specification" => self.s.specifications.push(value.to_string()),
            "programfile" => {
                if self.s.programfile.is_none() {
                    self.s.programfile = Some(value.to_string());
                } else {
                    dup(self, "programfile");
                }
            }
            "programhash" => {
                if let Some(p) = self.program {
                    let h = value.to_ascii_lowercase();
                    if h != p.sha256 {
                        let msg = if h == p.sha1 {
                            "programhash is the SHA-1 of the program; the format requires its SHA-256".to_string()
                        } else {
                            format!("programhash does not match the program (its SHA-256 is {})", p.sha256)
                        };
                        self.warn("G6", d, msg);
                    }
                }
                if self.s.programhash.is_none() {
                    self.s.programhash = Some(value.to_string());
                } else {
                    dup(self, "programhash");
                }
            }
            "architecture" => {
                if self.s.architecture.is_some() {
                    dup(self, "architecture");
                } else if matches!(value, "32bit" | "64bit") {
                    self.s.architecture = Some(value.to_string());
                } else {
                    self.warn("G7", d, format!("invalid architecture identifier: {value}"));
                }
            }
            "creationtime" => {
                if self.s.creationtime.is_some() {
                    dup(self, "creationtime");
                } else {
                    self.s.creationtime = Some(value.to_string());
                    if !creationtime_ok(value) {
                        self.warn("G8", d, format!("invalid format for creationtime: {value} (expected YYYY-MM-DDThh:mm:ss with Z or ±hh:mm)"));
                    }
                }
            }
            _ if self.defined_for(key, "graph") => {}
            _ => self.warn("D3", d, format!("unknown key for graph data element: {key}")),
        }
    }

    fn is_termination(&self) -> bool {
        if self.s.cyclehead.is_some() {
            return true;
        }
        let re = Regex::new(r"^CHECK[(]\s*init[(]\s*\w+[(][)]\s*[)]\s*,\s*LTL[(]\s*F\s+end\s*[)]\s*[)]")
            .expect("valid regex");
        self.s.specifications.iter().any(|s| re.is_match(s))
    }

    fn final_checks(&mut self) {
        let mut undefined: Vec<&String> = self
            .s
            .used_keys
            .iter()
            .filter(|k| !self.s.defined_keys.contains_key(*k) && common_kind(k).is_some())
            .collect();
        undefined.sort();
        let msgs: Vec<String> = undefined.iter().map(|k| format!("key '{k}' has been used but not defined")).collect();
        for m in msgs {
            self.sink.push(Severity::Warning, "K8", None, m);
        }
        let mut unused: Vec<&String> = self.s.defined_keys.keys().filter(|k| !self.s.used_keys.contains(*k)).collect();
        unused.sort();
        let msgs: Vec<String> =
            unused.iter().map(|k| format!("unnecessary definition of key '{k}', never used")).collect();
        for m in msgs {
            self.sink.push(Severity::Note, "K7", None, m);
        }
        let termination = self.is_termination();
        match self.s.witness_type.as_deref() {
            None => self.sink.push(Severity::Warning, "G1", None, "witness-type has not been specified".into()),
            Some("correctness_witness") => {
                let keys = dedup(&self.s.violation_only);
                for k in keys {
                    self.sink.push(
                        Severity::Warning,
                        "N6",
                        None,
                        format!("key '{k}' is not allowed in a correctness witness"),
                    );
                }
            }
            _ => {
                let keys = dedup(&self.s.correctness_only);
                for k in keys {
                    if k == "invariant" && termination {
                        continue;
                    }
                    self.sink.push(
                        Severity::Warning,
                        "N5",
                        None,
                        format!("key '{k}' is not allowed in a violation witness"),
                    );
                }
            }
        }
        let missing = [
            (self.s.sourcecodelang.is_none(), "G2", "sourcecodelang has not been specified"),
            (self.s.producer.is_none(), "G3", "producer has not been specified"),
            (self.s.specifications.is_empty(), "G4", "no specification has been specified"),
            (self.s.programfile.is_none(), "G5", "programfile has not been specified"),
            (self.s.programhash.is_none(), "G6", "programhash has not been specified"),
            (self.s.architecture.is_none(), "G7", "architecture has not been specified"),
            (self.s.creationtime.is_none(), "G8", "creationtime has not been specified"),
        ];
        for (bad, check, msg) in missing {
            if bad {
                self.sink.push(Severity::Warning, check, None, msg.into());
            }
        }
        // `validate` cannot follow a witness without an entry node (an input error there), so it
        // is malformed here too (issue 21: lint and validate agree on what is malformed).
        if self.s.entry_node.is_none() && !self.s.node_ids.is_empty() {
            self.sink.push(
                Severity::Error,
                "N1",
                None,
                "no entry node has been specified: the witness cannot be followed".into(),
            );
        }
        let mut reported = HashSet::new();
        let undeclared: Vec<(String, (u32, u32))> = self
            .s
            .check_existence
            .iter()
            .filter(|(id, _)| !self.s.node_ids.contains(id) && reported.insert(id.clone()))
            .cloned()
            .collect();
        for (id, (line, col)) in undeclared {
            self.sink.at(Severity::Warning, "E4", line, col, format!("node {id} has not been declared"));
        }
        self.reachability(termination);
        self.call_stack();
        if let Some(entry) = self.s.entry_node.clone() {
            let edges = std::mem::take(&mut self.s.thread_edges);
            super::threads::check_graphml(&edges, &entry, self.program, self.sink);
        }
        self.program_checks();
    }

    /// L14: a violation witness whose violation node cannot be reached from the entry can
    /// confirm nothing (an error of ours; witnesslint does not check it).
    fn reachability(&mut self, termination: bool) {
        if self.s.witness_type.as_deref() != Some("violation_witness") || termination {
            return;
        }
        let Some(entry) = self.s.entry_node.clone() else { return };
        if self.s.violation_nodes.is_empty() {
            self.sink.push(Severity::Error, "L14", None, "the violation witness has no violation node".into());
            return;
        }
        let mut succ: HashMap<&str, Vec<&str>> = HashMap::new();
        for (s, c) in &self.s.transitions {
            succ.entry(s.as_str()).or_default().push(c.target.as_str());
        }
        let mut seen = HashSet::from([entry.as_str()]);
        let mut todo = vec![entry.as_str()];
        while let Some(n) = todo.pop() {
            for &t in succ.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(t) {
                    todo.push(t);
                }
            }
        }
        if !self.s.violation_nodes.iter().any(|v| seen.contains(v.as_str())) {
            self.sink.push(
                Severity::Error,
                "L14",
                None,
                format!("no violation node is reachable from the entry node {entry}"),
            );
        }
    }

    /// S4: call-stack consistency along the paths from the entry (witnesslint's depth-first
    /// search, each node once); a program-aware detail (witnesslint: `--strictChecking`).
    fn call_stack(&mut self) {
        let Some(entry) = self.s.entry_node.clone() else { return };
        let mut succ: HashMap<&str, Vec<&EdgeCalls>> = HashMap::new();
        for (s, c) in &self.s.transitions {
            succ.entry(s.as_str()).or_default().push(c);
        }
        let mut msgs = Vec::new();
        let mut todo: Vec<(&str, Vec<&str>)> = vec![(entry.as_str(), Vec::new())];
        let mut visited = HashSet::new();
        while let Some((node, stack)) = todo.pop() {
            if !visited.insert(node) {
                continue;
            }
            let out = succ.get(node).map(Vec::as_slice).unwrap_or(&[]);
            if out.is_empty() && !stack.is_empty() {
                msgs.push(format!("no leaving transition for node {node} but not all functions have been left"));
            }
            for c in out {
                let mut st = stack.clone();
                if let Some(r) = c.ret.as_deref().filter(|r| c.enter.as_deref() != Some(*r)) {
                    match st.last() {
                        None => msgs.push(format!(
                            "return from function '{r}' in transition {node} -> {} but currently not in a function",
                            c.target
                        )),
                        Some(&top) if top == r => {
                            st.pop();
                        }
                        Some(top) => msgs.push(format!(
                            "return from function '{r}' in transition {node} -> {} but currently in function {top}",
                            c.target
                        )),
                    }
                }
                if let Some(e) = c.enter.as_deref().filter(|e| c.ret.as_deref() != Some(*e)) {
                    st.push(e);
                }
                todo.push((c.target.as_str(), st));
            }
        }
        for m in msgs {
            self.sink.detail("S4", None, m);
        }
    }

    /// S1–S3, L10, and L24, L25 for a correctness witness, with the program: lines and offsets in range, function names that exist,
    /// assumptions that lower in their scope.
    fn program_checks(&mut self) {
        let Some(p) = self.program else { return };
        let dm = match self.s.architecture.as_deref() {
            Some("32bit") => DataModel::Ilp32,
            _ => DataModel::Lp64,
        };
        let items = std::mem::take(&mut self.s.edge_items);
        let mut cfa_problem_reported = false;
        for it in &items {
            match it.key.as_str() {
                "startline" | "endline" => {
                    if let Ok(v) = it.value.parse::<u64>() {
                        if v < 1 || v > p.witnesslint_lines as u64 {
                            self.sink.detail_at(
                                "S1",
                                it.at.0,
                                it.at.1,
                                format!("{v} is not a valid line number (the program has {} lines)", p.lines()),
                            );
                        }
                    }
                }
                "startoffset" | "endoffset" => {
                    if let Ok(v) = it.value.parse::<u64>() {
                        if v >= p.chars as u64 {
                            self.sink.detail_at(
                                "S2",
                                it.at.0,
                                it.at.1,
                                format!("{v} is not a valid character offset (the program has {} characters)", p.chars),
                            );
                        }
                    }
                }
                _ => match p.assumption_problems(
                    dm,
                    &it.value,
                    it.scope.as_deref(),
                    it.result_function.as_deref(),
                    it.start_line,
                ) {
                    Ok(problems) => {
                        for (conjunct, why) in problems {
                            // A conjunct that is no C expression at all is malformed (`validate`
                            // drops it and cannot confirm); one unusable in its scope is a note.
                            let severity = if is_syntax_error(&why) { Severity::Error } else { Severity::Note };
                            self.sink.at(
                                severity,
                                "L10",
                                it.at.0,
                                it.at.1,
                                format!("assumption `{conjunct}` is not usable in its scope: {why}"),
                            );
                        }
                    }
                    Err(why) if !cfa_problem_reported => {
                        cfa_problem_reported = true;
                        self.sink.push(
                            Severity::Note,
                            "L10",
                            None,
                            format!("assumptions not checked: the program does not parse ({why})"),
                        );
                    }
                    Err(_) => {}
                },
            }
        }
        let names = std::mem::take(&mut self.s.function_names);
        for (name, (line, col), what) in names {
            if !p.mentions_function(&name) {
                self.sink.detail_at("S3", line, col, format!("{what} `{name}` is not a function of the program"));
            }
        }
        if self.s.witness_type.as_deref() == Some("correctness_witness") {
            self.invariant_checks(p, dm);
        }
    }

    /// L24, L25 (decision 166): each node invariant of a correctness witness placed and
    /// lowered as `validate` does, through the validator's reader.
    fn invariant_checks(&mut self, p: &ProgramFacts, dm: DataModel) {
        // What the reader refuses is reported by the checks above (N1, L3, L4, …).
        let Ok(w) = crate::witness::graphml::read_graphml(self.path, self.bytes) else { return };
        if w.graph.node_weights().all(|n| n.invariant.as_deref().is_none_or(|i| i.trim().is_empty())) {
            return;
        }
        let cfa = match p.cfa(dm) {
            Ok(c) => c,
            Err(why) => {
                let msg = format!("invariants not checked: the program does not parse ({why})");
                self.sink.push(Severity::Note, "L24", None, msg);
                return;
            }
        };
        // `resolve_each`'s order: the states with an invariant, in the reader's (document) order.
        let at: HashMap<&str, (u32, u32)> = self
            .doc
            .descendants()
            .filter(|n| n.is_element() && local(*n) == "node")
            .filter_map(|n| Some((n.attribute("id")?, self.pos(n))))
            .collect();
        let positions: Vec<Option<(u32, u32)>> = w
            .graph
            .node_weights()
            .filter(|n| n.invariant.as_deref().is_some_and(|i| !i.trim().is_empty()))
            .map(|n| at.get(n.id.as_str()).copied())
            .collect();
        let position = |i: usize| positions.get(i).copied().flatten();
        super::invariants::check(
            cfa,
            &w,
            &super::invariants::Codes { place: "L24", lower: "L25", unsupported: "L24" },
            &position,
            self.sink,
        );
    }
}

fn dedup(v: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in v {
        if !out.contains(k) {
            out.push(k.clone());
        }
    }
    out
}

/// `YYYY-MM-DDThh:mm:ss` followed by `Z` or `±hh:mm` (witnesslint's pattern).
fn creationtime_ok(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    let base = b.len() >= 19
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    base && (&b[19..] == b"Z"
        || (b.len() == 25 && matches!(b[19], b'+' | b'-') && digits(20..22) && b[22] == b':' && digits(23..25)))
}

/// The conjunct is unusable because it does not parse as an expression.
pub(super) fn is_syntax_error(why: &crate::cfront::ConjunctError) -> bool {
    matches!(why, crate::cfront::ConjunctError::Syntax { .. })
}

#[cfg(test)]
mod tests {
    use super::creationtime_ok;

    /// Issue 21: a finding at an element names its line and column (findings such as an
    /// undeclared node or a malformed integer had a line only, though the snippet showed one).
    #[test]
    fn findings_at_elements_have_line_and_column() {
        let text = "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n\
                    <key id=\"startline\" attr.name=\"startline\" attr.type=\"int\" for=\"edge\"/>\n\
                    <graph edgedefault=\"directed\">\n<node id=\"A\"/>\n  <edge source=\"A\" target=\"B\">\n\
                    <data key=\"startline\">x</data></edge>\n</graph>\n</graphml>\n";
        let report = crate::lint::lint(
            std::path::Path::new("w.graphml"),
            text.as_bytes(),
            None,
            crate::lint::LintOptions { strict: false },
        );
        let at = |check: &str| {
            report
                .findings
                .iter()
                .find(|f| f.check == check)
                .map(|f| (f.line, f.column))
                .unwrap_or_else(|| panic!("no {check} finding: {:?}", report.findings))
        };
        assert_eq!(at("E4"), (Some(6), Some(3)));
        assert_eq!(at("L4"), (Some(7), Some(1)));
    }

    #[test]
    fn creationtime_pattern() {
        assert!(creationtime_ok("2025-01-01T00:00:00Z"));
        assert!(creationtime_ok("2025-01-01T00:00:00+02:00"));
        assert!(!creationtime_ok("2025-01-01T00:00:00"));
        assert!(!creationtime_ok("2025-01-01T00:00:00.5Z"));
        assert!(!creationtime_ok("2025-01-01 00:00:00Z"));
    }
}
