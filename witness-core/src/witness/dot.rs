//! Graphviz rendering of a witness automaton (`--dot`, decisions 79 and 147): the entry is
//! marked by an arrow from a point, violation states are double octagons and sinks boxes; the
//! states a confirmed run passed (or a rejected witness's longest prefix) are filled; where an explanation says the run stopped, that
//! state is drawn in red and the transition it did not pass red and dashed. Edge labels give
//! the location, the branch direction, function entry and return, avoid/follow and the
//! assumption; a legend says all this. Large witnesses are cut to the states within a few
//! transitions of the marked ones.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::{Control, DecisionValue, WitnessAutomaton};

/// Beyond this many states, only the neighbourhood of the highlighted ones is drawn.
const MAX_STATES: usize = 200;
/// How far (in transitions, either direction) the neighbourhood reaches.
const RADIUS: usize = 3;

/// A DOT string literal: every character that could end or escape it is escaped.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The automaton in DOT. `run`: ids of the states a confirmed run passed; `parting`: the
/// position (`line:col`) of the transition an explanation names.
pub fn to_dot(w: &WitnessAutomaton, run: &[String], parting: Option<&str>) -> String {
    let on_run: HashSet<NodeIndex> = w.graph.node_indices().filter(|n| run.contains(&w.graph[*n].id)).collect();
    let parting_node =
        parting.and_then(|p| w.graph.edge_references().find(|e| e.weight().origin == p)).map(|e| e.source());
    let mut keep: HashSet<NodeIndex> = w.graph.node_indices().collect();
    if keep.len() > MAX_STATES {
        let mut todo: VecDeque<(NodeIndex, usize)> =
            on_run.iter().copied().chain(parting_node).chain([w.entry]).map(|n| (n, 0)).collect();
        keep.clear();
        while let Some((n, d)) = todo.pop_front() {
            if !keep.insert(n) || d >= RADIUS {
                continue;
            }
            for m in w.graph.neighbors_undirected(n) {
                todo.push_back((m, d + 1));
            }
        }
    }
    let mut out = String::from("digraph witness {\n  rankdir=TB;\n  node [shape=circle, fontsize=10];\n");
    out.push_str("  edge [fontsize=9];\n");
    for n in w.graph.node_indices().filter(|n| keep.contains(n)) {
        let s = &w.graph[n];
        let mut attrs = vec![format!("label={}", quote(&s.id))];
        if s.violation {
            attrs.push("shape=doubleoctagon".into());
        } else if s.sink {
            attrs.push("shape=box".into());
        }
        if on_run.contains(&n) {
            attrs.push("style=filled, fillcolor=lightblue".into());
        }
        if Some(n) == parting_node {
            attrs.push("color=red, penwidth=3".into());
        }
        let _ = writeln!(out, "  n{} [{}];", n.index(), attrs.join(", "));
    }
    // The entry: an arrow from a point, as automata are drawn.
    let _ = writeln!(out, "  entry [shape=point, label=\"\"];\n  entry -> n{};", w.entry.index());
    for e in w.graph.edge_references().filter(|e| keep.contains(&e.source()) && keep.contains(&e.target())) {
        let t = e.weight();
        let mut label = Vec::new();
        if t.avoid {
            label.push("avoid".to_string());
        }
        if let Some(l) = t.guard.lines {
            label.push(format!("line {}", l.start));
        }
        if let Some(a) = &t.guard.anchor {
            label.push(format!("{}:{}", a.line, a.column.map(|c| c.to_string()).unwrap_or_default()));
        }
        match (&t.decision, t.guard.control) {
            (Some(DecisionValue::Bool(b)), _) => label.push(format!("branch {b}")),
            (Some(DecisionValue::Case(v)), _) => label.push(format!("case {v}")),
            (Some(DecisionValue::Default), _) => label.push("default".into()),
            (None, Some(Control::ConditionTrue)) => label.push("condition-true".into()),
            (None, Some(Control::ConditionFalse)) => label.push("condition-false".into()),
            (None, None) => {}
        }
        if let Some(f) = &t.guard.enter_function {
            label.push(format!("enter {f}"));
        }
        if let Some(f) = &t.guard.return_from_function {
            label.push(format!("return from {f}"));
        }
        if let Some(a) = &t.assumption {
            label.push(a.expressions.join("; "));
        }
        let mut style = String::new();
        if parting == Some(t.origin.as_str()) {
            style.push_str(", color=red, fontcolor=red, style=dashed, penwidth=2");
        } else if t.avoid {
            style.push_str(", style=dotted");
        }
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}{style}];",
            e.source().index(),
            e.target().index(),
            quote(&label.join("\n"))
        );
    }
    out.push_str(LEGEND);
    out.push_str("}\n");
    out
}

/// What the picture's marks mean.
const LEGEND: &str = "  legend [shape=note, fontsize=9, label=\"legend\\l\\
• arrow from a point: the entry state\\l\\
• double octagon: a violation state; box: a sink\\l\\
• filled: passed by the confirmed run (rejected: by the run that got furthest)\\l\\
• red state: where the run stopped; red dashed: the transition it did not pass\\l\\
• dotted: an avoid waypoint (the run must not pass it)\\l\\
• edge labels: lines, location, branch, function entry/return, assumption\\l\"];\n";

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21: entry and violation states look different, labels say the branch and avoid,
    /// the transition not passed is red and dashed, and a legend explains the marks.
    #[test]
    fn marks_and_labels_say_what_they_are() {
        let mut graph = petgraph::graph::DiGraph::new();
        let a = graph.add_node(crate::witness::WitnessState { id: "A".into(), entry: true, ..Default::default() });
        let v = graph.add_node(crate::witness::WitnessState { id: "V".into(), violation: true, ..Default::default() });
        let mut t = crate::witness::WitnessTransition { origin: "7:3".into(), ..Default::default() };
        t.guard.control = Some(Control::ConditionFalse);
        t.guard.lines = Some(crate::witness::Range { start: 5, end: 5 });
        graph.add_edge(a, v, t);
        let w = WitnessAutomaton {
            graph,
            entry: a,
            metadata: Default::default(),
            warnings: Vec::new(),
            format: String::new(),
            exact_locations: true,
            invariants: Vec::new(),
        };
        let dot = to_dot(&w, &[], Some("7:3"));
        assert!(dot.contains("entry -> n0;"), "{dot}");
        assert!(dot.contains("label=\"V\", shape=doubleoctagon"), "{dot}");
        assert!(dot.contains("label=\"line 5\\ncondition-false\", color=red, fontcolor=red, style=dashed"), "{dot}");
        assert!(dot.contains("n0 [label=\"A\", color=red"), "{dot}");
        assert!(dot.contains("legend [shape=note"), "{dot}");
    }

    #[test]
    fn quoting_keeps_labels_inside_their_string() {
        assert_eq!(quote("x == \"a\\\"]; n0 -> n1"), "\"x == \\\"a\\\\\\\"]; n0 -> n1\"");
        assert_eq!(quote("a\nb"), "\"a\\nb\"");
    }
}
