//! Resolution of exact source anchors (YAML waypoint locations, format 2.0 digest §3) against
//! the CFA: a (line, column) becomes the set of CFA locations, constructs or edges the
//! waypoint refers to. A missing column means "the leftmost suitable construct on the line".
//!
//! Knows the CFA and the witness automaton; never evaluates anything.

use std::collections::{HashMap, HashSet};

use petgraph::graph::{EdgeIndex, NodeIndex};

use crate::cfa::{Cfa, EdgeOp};
use crate::witness::{AnchorKind, SourceAnchor, WitnessAutomaton};

/// What a waypoint's location resolved to.
#[derive(Debug, Clone)]
pub enum ResolvedAnchor {
    /// Arrival at a statement: the locations at which control reaches it, and its offset.
    Statement { offset: usize, nodes: HashSet<NodeIndex> },
    /// Decision of the branching construct with this canonical keyword offset.
    Branching { construct: usize },
    /// Entering a call (the `)` offsets of the calls meant).
    FunctionEnter { parens: HashSet<usize> },
    /// Returning from a call.
    FunctionReturn { parens: HashSet<usize> },
    /// The violation at the error call(s) whose statement starts at these offsets.
    Target { offsets: HashSet<usize> },
}

/// Resolved anchors per witness transition.
pub type Anchors = HashMap<EdgeIndex, ResolvedAnchor>;

/// Resolves every anchored transition. Errors name the waypoint and say what was expected.
/// `warnings` receives notes on tolerated imprecision (no column, approximate offsets).
pub fn resolve_anchors(cfa: &Cfa, w: &WitnessAutomaton, warnings: &mut Vec<String>) -> Result<Anchors, String> {
    let mut out = HashMap::new();
    for t in w.graph.edge_indices() {
        let Some(anchor) = &w.graph[t].guard.anchor else { continue };
        out.insert(t, resolve(cfa, anchor, warnings)?);
    }
    Ok(out)
}

fn kind_name(k: AnchorKind) -> &'static str {
    match k {
        AnchorKind::Statement => "the first character of a statement or declaration",
        AnchorKind::Branching => {
            "a branching keyword (`if`, `while`, `for`, `do`, `switch`) or the `?` of a conditional"
        }
        AnchorKind::FunctionEnter | AnchorKind::FunctionReturn => "the `)` that closes a call's argument list",
        AnchorKind::Target => "the first character of the statement that calls the error function",
    }
}

fn resolve(cfa: &Cfa, a: &SourceAnchor, warnings: &mut Vec<String>) -> Result<ResolvedAnchor, String> {
    let lines = cfa.line_count();
    if a.line == 0 || a.line as u64 > lines {
        return Err(format!("waypoint at {}: line {} is outside the program (it has {lines} lines)", a.origin, a.line));
    }
    let line_start = cfa.line_starts[a.line as usize - 1];
    let line_end = cfa.line_starts.get(a.line as usize).copied().unwrap_or(cfa.source_len);
    let on_line = |o: usize| o >= line_start && o < line_end;
    let mut column = a.column;
    if column.is_some() && !cfa.offsets_exact {
        warnings.push(format!(
            "waypoint at {}: the program was preprocessed with gcc, so columns are approximate; using the leftmost {} on line {}",
            a.origin,
            kind_name(a.kind),
            a.line
        ));
        column = None;
    }
    let wanted = match column {
        Some(c) => {
            let len = line_end - line_start;
            let len_no_nl = len.saturating_sub(1);
            if c == 0 || c as usize > len_no_nl.max(1) {
                return Err(format!(
                    "waypoint at {}: column {c} is past the end of line {} ({len_no_nl} characters)",
                    a.origin, a.line
                ));
            }
            Some(line_start + c as usize - 1)
        }
        None => None,
    };
    // Picks the candidates at the wanted offset, or the leftmost ones on the line.
    let pick = |cands: Vec<usize>| -> Option<usize> {
        match wanted {
            Some(o) => cands.into_iter().find(|c| *c == o),
            None => cands.into_iter().filter(|c| on_line(*c)).min(),
        }
    };
    let nothing = || {
        format!(
            "waypoint at {} ({}:{}): expected {} there, found none",
            a.origin,
            a.line,
            column.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
            kind_name(a.kind)
        )
    };
    match a.kind {
        AnchorKind::Statement => {
            let offset = pick(cfa.statement_starts.iter().map(|(o, _)| *o).collect()).ok_or_else(nothing)?;
            let nodes = cfa.statement_starts.iter().filter(|(o, _)| *o == offset).map(|(_, n)| *n).collect();
            Ok(ResolvedAnchor::Statement { offset, nodes })
        }
        AnchorKind::Branching => {
            let kw = pick(cfa.branch_keywords.iter().map(|(k, _)| *k).collect()).ok_or_else(nothing)?;
            let construct = cfa.branch_keywords.iter().find(|(k, _)| *k == kw).map(|(_, c)| *c).unwrap_or(kw);
            Ok(ResolvedAnchor::Branching { construct })
        }
        AnchorKind::FunctionEnter | AnchorKind::FunctionReturn => {
            let parens: Vec<usize> = cfa
                .graph
                .edge_weights()
                .filter(|e| {
                    matches!(e.op, EdgeOp::Call { .. } | EdgeOp::NondetCall { .. } | EdgeOp::FloatNondetCall { .. })
                })
                .filter_map(|e| e.call_paren)
                .collect();
            let p = pick(parens).ok_or_else(nothing)?;
            let parens = HashSet::from([p]);
            Ok(if a.kind == AnchorKind::FunctionEnter {
                ResolvedAnchor::FunctionEnter { parens }
            } else {
                ResolvedAnchor::FunctionReturn { parens }
            })
        }
        AnchorKind::Target => {
            let errors: Vec<usize> = cfa
                .graph
                .edge_weights()
                .filter(|e| matches!(e.op, EdgeOp::Error { .. }))
                .filter_map(|e| e.span.map(|s| s.start_offset))
                .collect();
            let o = pick(errors).ok_or_else(nothing)?;
            Ok(ResolvedAnchor::Target { offsets: HashSet::from([o]) })
        }
    }
}
