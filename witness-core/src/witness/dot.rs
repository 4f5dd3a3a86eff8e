//! Graphviz rendering of a witness automaton (`--dot`, decision 79): the states a confirmed
//! run passed are filled, the state where an explanation locates the parting of ways is drawn
//! in red. Large witnesses are cut to the states within a few transitions of those.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

use super::WitnessAutomaton;

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
    for n in w.graph.node_indices().filter(|n| keep.contains(n)) {
        let s = &w.graph[n];
        let mut attrs = vec![format!("label={}", quote(&s.id))];
        if s.violation {
            attrs.push("shape=doublecircle".into());
        }
        if s.sink {
            attrs.push("shape=box".into());
        }
        if on_run.contains(&n) {
            attrs.push("style=filled, fillcolor=lightblue".into());
        }
        if Some(n) == parting_node {
            attrs.push("color=red, penwidth=3".into());
        }
        if n == w.entry {
            attrs.push("peripheries=2".into());
        }
        let _ = writeln!(out, "  n{} [{}];", n.index(), attrs.join(", "));
    }
    for e in w.graph.edge_references().filter(|e| keep.contains(&e.source()) && keep.contains(&e.target())) {
        let t = e.weight();
        let mut label = Vec::new();
        if let Some(l) = t.guard.lines {
            label.push(format!("line {}", l.start));
        }
        if let Some(a) = &t.guard.anchor {
            label.push(format!("{}:{}", a.line, a.column.map(|c| c.to_string()).unwrap_or_default()));
        }
        if let Some(a) = &t.assumption {
            label.push(a.expressions.join("; "));
        }
        let color = if parting == Some(t.origin.as_str()) { ", color=red, penwidth=2" } else { "" };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}{color}];",
            e.source().index(),
            e.target().index(),
            quote(&label.join("\n"))
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_labels_inside_their_string() {
        assert_eq!(quote("x == \"a\\\"]; n0 -> n1"), "\"x == \\\"a\\\\\\\"]; n0 -> n1\"");
        assert_eq!(quote("a\nb"), "\"a\\nb\"");
    }
}
