//! Resolution of exact source anchors (YAML waypoint locations, format 2.0 digest §3) against
//! the CFA: a (line, column) becomes the set of CFA locations, constructs or edges the
//! waypoint refers to. A missing column means "the leftmost suitable construct on the line".
//!
//! Knows the CFA and the witness automaton; never evaluates anything.

use std::collections::{HashMap, HashSet};

use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::cfa::{Cfa, CfaEdge, EdgeOp};
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

/// Resolves every anchored transition. `source` is the program's text (the places inside
/// bodies that were not parsed are found in it, decision 61). Errors name the waypoint and say
/// what was expected.
/// `warnings` receives notes on tolerated imprecision (no column, approximate offsets).
/// `overflow`: the property is no-overflow, whose `target` waypoints name the statement or
/// full expression that overflows (decision 72), not an error call.
pub fn resolve_anchors(
    cfa: &Cfa,
    source: &str,
    w: &WitnessAutomaton,
    overflow: bool,
    warnings: &mut Vec<String>,
) -> Result<Anchors, String> {
    let mut out = HashMap::new();
    for t in w.graph.edge_indices() {
        let Some(anchor) = &w.graph[t].guard.anchor else { continue };
        out.insert(t, resolve(cfa, source, anchor, overflow, warnings)?);
    }
    Ok(out)
}

fn kind_name(k: AnchorKind, operations: bool) -> &'static str {
    match k {
        AnchorKind::Target if operations => {
            "the first character of a statement or full expression that performs the violating operation"
        }
        AnchorKind::Statement => "the first character of a statement or declaration",
        AnchorKind::Branching => {
            "a branching keyword (`if`, `while`, `for`, `do`, `switch`) or the `?` of a conditional"
        }
        AnchorKind::FunctionEnter | AnchorKind::FunctionReturn => "the `)` that closes a call's argument list",
        AnchorKind::Target => "the first character of the statement that calls the error function",
    }
}

fn resolve(
    cfa: &Cfa,
    source: &str,
    a: &SourceAnchor,
    overflow: bool,
    warnings: &mut Vec<String>,
) -> Result<ResolvedAnchor, String> {
    let lines = cfa.line_count();
    if a.line == 0 || a.line as u64 > lines {
        return Err(format!("waypoint at {}: line {} is outside the program (it has {lines} lines)", a.origin, a.line));
    }
    let line_start = cfa.line_starts.at(a.line as usize - 1);
    let line_end = cfa.line_starts.get(a.line as usize).unwrap_or(cfa.source_len);
    let on_line = |o: usize| o >= line_start && o < line_end;
    let mut column = a.column;
    if column.is_some() && !cfa.line_exact(a.line) {
        warnings.push(format!(
            "waypoint at {}: the program was preprocessed with gcc, so columns are approximate; using the leftmost {} on line {}",
            a.origin,
            kind_name(a.kind, overflow),
            a.line
        ));
        column = None;
    }
    // Columns count characters (format 2.0 §3); the line table turns one into a byte offset.
    let wanted = match column {
        Some(c) => {
            let len = cfa.line_starts.line_chars(a.line as usize - 1).unwrap_or(0);
            let past_end = || {
                format!("waypoint at {}: column {c} is past the end of line {} ({len} characters)", a.origin, a.line)
            };
            Some(cfa.line_starts.offset_at(a.line, c).filter(|_| c as usize <= len.max(1)).ok_or_else(past_end)?)
        }
        None => None,
    };
    // Decision 255: a target or statement waypoint at the first character of a declaration's
    // only initializer means the declaration (the same steps, nothing between them), where
    // nothing else starts there.
    let starts_there = |o: usize| {
        cfa.statement_starts.iter().any(|(s, _)| *s == o)
            || cfa.graph.edge_weights().any(|e| e.span.is_some_and(|s| s.start_offset == o))
    };
    let wanted = match wanted {
        Some(o) if matches!(a.kind, AnchorKind::Target | AnchorKind::Statement) => {
            match cfa.initializer_starts.iter().find(|(i, _)| *i == o) {
                Some((_, d)) if !starts_there(o) => Some(*d),
                _ => Some(o),
            }
        }
        w => w,
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
            kind_name(a.kind, overflow)
        )
    };
    // Decision 61: a place inside the body of a function `main` cannot reach (not parsed) is
    // an anchor no run meets, as it was when that body was parsed.
    if let Some(never) = in_skipped_body(cfa, source, a.kind, wanted, line_start, line_end) {
        warnings.push(format!(
            "waypoint at {} ({}:{}): inside the body of a function `main` cannot reach (not parsed); no run passes there",
            a.origin,
            a.line,
            column.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
        ));
        return Ok(never);
    }
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
            let calls = calls(cfa);
            let p = match wanted {
                // The format's anchor: the call's `)`.
                Some(o) if calls.iter().any(|c| c.paren == o) => o,
                // ConcurrentWitness2Test's 2.2 examples: the `(` right after `pthread_create`.
                Some(o) if calls.iter().any(|c| c.callee == PTHREAD_CREATE && c.start + PTHREAD_CREATE.len() == o) => {
                    calls.iter().find(|c| c.start + PTHREAD_CREATE.len() == o).map_or(o, |c| c.paren)
                }
                // Approximate columns (gcc -E): the leftmost `)` on the line, as decision 19 says.
                None if a.column.is_some() => {
                    calls.iter().map(|c| c.paren).filter(|p| on_line(*p)).min().ok_or_else(nothing)?
                }
                // The start of a call or of its statement (ESBMC), or no column: one call of the
                // line must fit the waypoint (decision 54).
                _ => {
                    let on_this_line: Vec<&Call> = match wanted {
                        Some(o) => {
                            let stmt_end = cfa
                                .statement_starts
                                .iter()
                                .map(|(s, _)| *s)
                                .filter(|s| *s > o)
                                .min()
                                .unwrap_or(line_end)
                                .min(line_end);
                            let is_stmt = cfa.statement_starts.iter().any(|(s, _)| *s == o);
                            // A call starting right there is the one meant (`f(g(x));` at `f`).
                            let starting: Vec<&Call> = calls.iter().filter(|c| c.start == o).collect();
                            if starting.is_empty() {
                                calls.iter().filter(|c| is_stmt && c.start >= o && c.start < stmt_end).collect()
                            } else {
                                starting
                            }
                        }
                        None => calls.iter().filter(|c| on_line(c.start) || on_line(c.paren)).collect(),
                    };
                    let fitting: Vec<&Call> = on_this_line.iter().copied().filter(|c| c.fits(a.kind)).collect();
                    let chosen = if fitting.is_empty() { on_this_line } else { fitting };
                    let describe = |c: &Call| {
                        let (line, col) = cfa.line_starts.position(c.start);
                        format!("`{}(…)` at {line}:{col}", c.callee)
                    };
                    match chosen.as_slice() {
                        [] => return Err(nothing()),
                        [one] => {
                            let (line, col) = cfa.line_starts.position(one.paren);
                            warnings.push(format!(
                                "waypoint at {}: {} does not point at the `)` of a call; it is read as the call {} (its `)` is at {line}:{col})",
                                a.origin,
                                match a.column {
                                    Some(c) => format!("column {c} of line {}", a.line),
                                    None => format!("line {} without a column", a.line),
                                },
                                describe(one)
                            ));
                            one.paren
                        }
                        several => {
                            let list: Vec<String> = several.iter().map(|c| describe(c)).collect();
                            return Err(format!(
                                "waypoint at {} ({}:{}): expected {}; the location could mean any of the calls {}, so the waypoint is ambiguous",
                                a.origin,
                                a.line,
                                a.column.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
                                kind_name(a.kind, overflow),
                                list.join(", ")
                            ));
                        }
                    }
                }
            };
            let parens = HashSet::from([p]);
            Ok(if a.kind == AnchorKind::FunctionEnter {
                ResolvedAnchor::FunctionEnter { parens }
            } else {
                ResolvedAnchor::FunctionReturn { parens }
            })
        }
        AnchorKind::Target => {
            // No-overflow: the first character of any step (statement, declaration or full
            // expression such as a condition) may be where an overflow happens.
            let counts = |e: &CfaEdge| overflow || matches!(e.op, EdgeOp::Error { .. });
            let errors: Vec<usize> =
                cfa.graph.edge_weights().filter(|e| counts(e)).filter_map(|e| e.span.map(|s| s.start_offset)).collect();
            if let Some(o) = pick(errors) {
                return Ok(ResolvedAnchor::Target { offsets: HashSet::from([o]) });
            }
            // The first character of a statement where no such step starts (issue 32 cause 14:
            // a labelled statement, an `if` or `while` whose condition starts after the keyword):
            // the steps the statement begins with.
            let o = pick(cfa.statement_starts.iter().map(|(o, _)| *o).collect()).ok_or_else(nothing)?;
            let offsets: HashSet<usize> = first_steps(cfa, o)
                .into_iter()
                .filter(|e| counts(e))
                .filter_map(|e| e.span.map(|s| s.start_offset))
                .collect();
            if offsets.is_empty() {
                // A straight-line statement that calls nothing (Goblint's witness for a correct
                // program puts the target at `return 0;`): the violation cannot happen there, so
                // the target is an anchor no run meets and the witness is rejected (issue 34).
                if !overflow && calls_nothing(cfa, o) {
                    warnings.push(format!(
                        "waypoint at {} ({}:{}): the target is a statement that calls no function: the error function \
                         cannot be called there, so no run reaches the target",
                        a.origin,
                        a.line,
                        column.map(|c| c.to_string()).unwrap_or_else(|| "-".into())
                    ));
                    return Ok(ResolvedAnchor::Target { offsets: HashSet::new() });
                }
                return Err(nothing());
            }
            Ok(ResolvedAnchor::Target { offsets })
        }
    }
}

/// The statement starting at `offset` does not branch, and nothing from its first character to
/// the next statement's calls a function or is left unmodelled: no function, so no error
/// function, can be called there.
fn calls_nothing(cfa: &Cfa, offset: usize) -> bool {
    let branches = first_steps(cfa, offset).iter().any(|e| matches!(e.op, EdgeOp::Assume { .. }));
    let next = cfa.statement_starts.iter().map(|(o, _)| *o).filter(|o| *o > offset).min().unwrap_or(cfa.source_len);
    let calls = cfa.graph.edge_weights().any(|e| {
        e.span.is_some_and(|s| offset <= s.start_offset && s.start_offset < next)
            && matches!(
                e.op,
                EdgeOp::Call { .. }
                    | EdgeOp::CallPtr { .. }
                    | EdgeOp::ThreadCreate { .. }
                    | EdgeOp::AtExit { .. }
                    | EdgeOp::Error { .. }
                    | EdgeOp::Unsupported { .. }
            )
    });
    !branches && !calls
}

/// The steps a statement starting at `offset` begins with: from each of its start locations, the
/// first steps with a source span at or after `offset`, looking through steps without one.
fn first_steps(cfa: &Cfa, offset: usize) -> Vec<&CfaEdge> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut todo: Vec<NodeIndex> = cfa.statement_starts.iter().filter(|(o, _)| *o == offset).map(|(_, n)| *n).collect();
    while let Some(n) = todo.pop() {
        if !seen.insert(n) {
            continue;
        }
        for e in cfa.graph.edges_directed(n, Direction::Outgoing) {
            match e.weight().span {
                Some(s) if s.start_offset >= offset => out.push(e.weight()),
                Some(_) => {}
                None => todo.push(e.target()),
            }
        }
    }
    out
}

/// Decision 61: the anchor that matches no step, when the waypoint's place lies inside a
/// removed body: at its column, or (without a column) on its line before every candidate of its
/// kind, where the parsed body's first candidate would have been the leftmost.
fn in_skipped_body(
    cfa: &Cfa,
    source: &str,
    kind: AnchorKind,
    wanted: Option<usize>,
    line_start: usize,
    line_end: usize,
) -> Option<ResolvedAnchor> {
    if cfa.skipped_bodies.is_empty() {
        return None;
    }
    let hit = match wanted {
        Some(o) => cfa.skipped_bodies.iter().any(|(s, e)| *s <= o && o < *e),
        None => {
            let on_line = |o: &usize| *o >= line_start && *o < line_end;
            let leftmost = match kind {
                AnchorKind::Statement => cfa.statement_starts.iter().map(|(o, _)| *o).filter(on_line).min(),
                AnchorKind::Branching => cfa.branch_keywords.iter().map(|(k, _)| *k).filter(on_line).min(),
                AnchorKind::FunctionEnter | AnchorKind::FunctionReturn => {
                    calls(cfa).iter().flat_map(|c| [c.start, c.paren]).filter(on_line).min()
                }
                AnchorKind::Target => cfa
                    .graph
                    .edge_weights()
                    .filter(|e| matches!(e.op, EdgeOp::Error { .. }))
                    .filter_map(|e| e.span.map(|s| s.start_offset))
                    .filter(on_line)
                    .min(),
            };
            // Issue 19, cause 6: the leftmost place of the waypoint's kind on the line, among the
            // parsed ones and those a lexical scan finds in the removed bodies on the line
            // (scanned here, when a waypoint asks: decision 172).
            let bodies: Vec<(usize, usize)> =
                cfa.skipped_bodies.iter().copied().filter(|(s, e)| *s < line_end && *e > line_start).collect();
            if bodies.is_empty() {
                return None;
            }
            let p = &crate::cfront::skip::places_in(source, &bodies);
            let removed = match kind {
                AnchorKind::Statement => &p.statements,
                AnchorKind::Branching => &p.branches,
                AnchorKind::FunctionEnter | AnchorKind::FunctionReturn => &p.calls,
                AnchorKind::Target => &p.errors,
            };
            removed.iter().copied().filter(on_line).min().is_some_and(|r| leftmost.is_none_or(|l| r < l))
        }
    };
    hit.then(|| match kind {
        AnchorKind::Statement => {
            ResolvedAnchor::Statement { offset: wanted.unwrap_or(line_start), nodes: HashSet::new() }
        }
        AnchorKind::Branching => ResolvedAnchor::Branching { construct: usize::MAX },
        AnchorKind::FunctionEnter => ResolvedAnchor::FunctionEnter { parens: HashSet::new() },
        AnchorKind::FunctionReturn => ResolvedAnchor::FunctionReturn { parens: HashSet::new() },
        AnchorKind::Target => ResolvedAnchor::Target { offsets: HashSet::new() },
    })
}

/// A call step of the program, as a `function_enter`/`function_return` waypoint sees it.
/// The callee name a thread-creating call shows in anchors.
const PTHREAD_CREATE: &str = "pthread_create";

struct Call {
    start: usize,
    paren: usize,
    callee: String,
    /// The callee has a body in the program (a `function_enter` can enter it).
    defined: bool,
    /// The callee returns a value (a `function_return` can constrain `\result`).
    has_result: bool,
}

impl Call {
    fn fits(&self, kind: AnchorKind) -> bool {
        match kind {
            AnchorKind::FunctionEnter => self.defined,
            AnchorKind::FunctionReturn => self.has_result,
            _ => true,
        }
    }
}

/// How many distinct places of a waypoint's kind lie on `line` (1-based): more than one means
/// a waypoint whose column is lost could mean another of them (issue 19, cause 2).
pub fn candidates_on_line(cfa: &Cfa, kind: AnchorKind, line: u32) -> usize {
    let Some(start) = cfa.line_starts.get((line as usize).wrapping_sub(1)) else { return 0 };
    let end = cfa.line_starts.get(line as usize).unwrap_or(cfa.source_len);
    let on_line = |o: &usize| *o >= start && *o < end;
    let mut places: Vec<usize> = match kind {
        AnchorKind::Statement => cfa.statement_starts.iter().map(|(o, _)| *o).filter(on_line).collect(),
        AnchorKind::Branching => cfa.branch_keywords.iter().map(|(k, _)| *k).filter(on_line).collect(),
        AnchorKind::FunctionEnter | AnchorKind::FunctionReturn => {
            calls(cfa).iter().map(|c| c.paren).filter(on_line).collect()
        }
        AnchorKind::Target => cfa
            .graph
            .edge_weights()
            .filter(|e| matches!(e.op, EdgeOp::Error { .. }))
            .filter_map(|e| e.span.map(|s| s.start_offset))
            .filter(on_line)
            .collect(),
    };
    places.sort_unstable();
    places.dedup();
    places.len()
}

/// Every call step with a known `)` (one per call expression, sorted by `)`).
fn calls(cfa: &Cfa) -> Vec<Call> {
    let mut out: Vec<Call> = cfa
        .graph
        .edge_weights()
        .filter_map(|e| {
            let (callee, defined, has_result) = match &e.op {
                EdgeOp::Call { callee, .. } => {
                    let f = cfa.function(*callee);
                    (f.name.clone(), true, f.return_ty.is_some() || f.return_unsupported.is_some())
                }
                EdgeOp::NondetCall { function, .. } => {
                    let result = cfa.externs.iter().find(|x| &x.name == function).is_none_or(|x| x.return_ty.is_some());
                    (function.clone(), false, result)
                }
                EdgeOp::FloatNondetCall { function, .. } => (function.clone(), false, true),
                // A call through a pointer enters (and returns from) whichever function the
                // pointer holds (issue 19: a waypoint at its `)` is a call anchor).
                EdgeOp::CallPtr { lhs, .. } => ("(function pointer)".to_string(), true, lhs.is_some()),
                // A thread's creation (issue 22): the 2.2 draft's thread-creating `function_enter`.
                EdgeOp::ThreadCreate { .. } => (PTHREAD_CREATE.to_string(), true, false),
                _ => return None,
            };
            let paren = e.call_paren?;
            Some(Call { start: e.call_start.unwrap_or(paren), paren, callee, defined, has_result })
        })
        .collect();
    out.sort_by_key(|c| c.paren);
    out.dedup_by_key(|c| c.paren);
    out
}

/// Decision 93: the loop heads a loop statement starting at `starts` reaches through its own
/// header (blank edges, and steps on the statement's first line, e.g. a `for`'s
/// initialisation), or the blank closure of `starts` when no loop head is found.
pub(crate) fn loop_heads_of(cfa: &Cfa, starts: &HashSet<NodeIndex>, offset: usize) -> Vec<NodeIndex> {
    let mut out = Vec::new();
    // Issue 19, cause 7: only a loop statement has a loop head of its own; the statement at any
    // other place is the head itself (its header walk would reach a later loop's head).
    // A branching keyword whose statement reaches a loop head without deciding anything (an
    // `if` or `switch` decides first).
    let is_loop = cfa.branch_keywords.iter().any(|(k, _)| *k == offset)
        && starts.iter().any(|&s| {
            let mut seen = HashSet::new();
            let mut todo = vec![s];
            while let Some(n) = todo.pop() {
                if !seen.insert(n) || seen.len() > 64 {
                    continue;
                }
                if cfa.graph[n].loop_head {
                    return true;
                }
                todo.extend(
                    cfa.graph
                        .edges_directed(n, Direction::Outgoing)
                        .filter(|e| e.weight().decision.is_none())
                        .map(|e| e.target()),
                );
            }
            false
        });
    if !is_loop {
        for &start in starts {
            out.extend(cfa.blank_closure(start));
            out.push(start);
        }
        return out;
    }
    for &start in starts {
        let line = cfa
            .graph
            .edges_directed(start, Direction::Outgoing)
            .filter_map(|e| e.weight().span)
            .map(|sp| sp.start_line)
            .min();
        let mut seen = HashSet::new();
        let mut todo = vec![(start, 0u32)];
        let mut found = false;
        while let Some((n, depth)) = todo.pop() {
            if !seen.insert(n) || depth > 8 {
                continue;
            }
            if cfa.graph[n].loop_head {
                out.push(n);
                found = true;
                continue;
            }
            for e in cfa.graph.edges_directed(n, Direction::Outgoing) {
                let w = e.weight();
                let header = match w.span {
                    None => matches!(w.op, EdgeOp::Blank),
                    Some(sp) => Some(sp.start_line) == line && w.decision.is_none(),
                };
                if header {
                    todo.push((e.target(), depth + 1));
                }
            }
        }
        if !found {
            out.extend(cfa.blank_closure(start));
        }
        out.push(start);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::cfa::DataModel;
    use crate::cfront::build_program;

    const SRC: &str = "extern int __VERIFIER_nondet_int(void);\nint twice(int v) { return 2 * v; }\nvoid log_it(int v) { }\nint main() {\n  int y = twice(__VERIFIER_nondet_int());\n  log_it(y); y = twice(y) + twice(1);\n  twice(twice(1));\n  return 0;\n}\n";

    fn at(kind: AnchorKind, line: u32, column: Option<u32>) -> Result<(usize, Vec<String>), String> {
        let cfa = build_program(Path::new("t.c"), SRC, DataModel::Lp64).map_err(|e| e.to_string())?.cfa;
        let a = SourceAnchor { kind, line, column, file_name: None, origin: "w".into() };
        let mut warnings = Vec::new();
        match resolve(&cfa, SRC, &a, false, &mut warnings)? {
            ResolvedAnchor::FunctionEnter { parens } | ResolvedAnchor::FunctionReturn { parens } => {
                Ok((parens.into_iter().next().unwrap_or(0), warnings))
            }
            other => Err(format!("unexpected {other:?}")),
        }
    }

    /// Offset of the `nth` occurrence of `needle` in `SRC`.
    fn off(needle: &str, nth: usize) -> usize {
        SRC.match_indices(needle).nth(nth).map(|(i, _)| i).unwrap_or(usize::MAX)
    }

    #[test]
    fn call_paren_is_exact_and_silent() {
        // Line 5: `  int y = twice(__VERIFIER_nondet_int());` — the nondet call's `)` is column 39.
        let (p, w) = at(AnchorKind::FunctionReturn, 5, Some(39)).unwrap();
        assert_eq!(p, off("());", 0) + 1);
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn call_start_picks_the_call_starting_there_with_a_warning() {
        // Column 11 is the `t` of `twice`: the outer call, whose `)` is the last one of the line.
        let (p, w) = at(AnchorKind::FunctionReturn, 5, Some(11)).unwrap();
        assert_eq!(p, off("());", 0) + 2);
        assert!(w.iter().any(|m| m.contains("`twice(…)` at 5:11")), "{w:?}");
        // Column 17 is the start of the nondet call.
        let (p, _) = at(AnchorKind::FunctionReturn, 5, Some(17)).unwrap();
        assert_eq!(p, off("());", 0) + 1);
    }

    #[test]
    fn function_enter_without_column_fits_only_defined_functions() {
        // Two calls on line 5, but only `twice` has a body to enter.
        let (p, w) = at(AnchorKind::FunctionEnter, 5, None).unwrap();
        assert_eq!(p, off("());", 0) + 2);
        assert!(w.iter().any(|m| m.contains("twice")), "{w:?}");
        // Both have a result: ambiguous for function_return, and the message lists both.
        let e = at(AnchorKind::FunctionReturn, 5, None).unwrap_err();
        assert!(e.contains("`twice(…)` at 5:11") && e.contains("`__VERIFIER_nondet_int(…)` at 5:17"), "{e}");
    }

    #[test]
    fn statement_start_is_ambiguous_with_several_fitting_calls() {
        // Line 6 column 3: the statement `log_it(y);` holds one call; log_it returns nothing, so
        // for function_return no call fits and the one call of the statement is taken.
        let (p, _) = at(AnchorKind::FunctionEnter, 6, Some(3)).unwrap();
        assert_eq!(p, off("log_it(y)", 0) + 8);
        // Column 14: `y = twice(y) + twice(1);` holds two calls of `twice`.
        let e = at(AnchorKind::FunctionEnter, 6, Some(14)).unwrap_err();
        assert!(e.contains("6:18") && e.contains("6:29"), "{e}");
        // Column 3 of line 7: `twice(twice(1));` starts there, so the outer call is meant.
        let (p, _) = at(AnchorKind::FunctionReturn, 7, Some(3)).unwrap();
        assert_eq!(p, off("twice(twice(1));", 0) + 14);
        // A column inside neither a call's start nor a statement start stays an error.
        assert!(at(AnchorKind::FunctionEnter, 6, Some(5)).is_err());
    }

    /// 1-based (line, column in characters) of the `nth` occurrence of `needle` in `src`, counted
    /// here with `str::chars` (not with the line table under test).
    fn char_pos(src: &str, needle: &str, nth: usize) -> (u32, u32) {
        let i = src.match_indices(needle).nth(nth).map(|(i, _)| i).expect("needle");
        let before = &src[..i];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line as u32, col as u32)
    }

    /// Issue 33: a column counts characters (format 2.0 §3). A multi-byte character before the
    /// anchor on its line (in a comment, in a string literal) does not move it, and messages
    /// name columns in characters; a column past the end is measured in characters.
    #[test]
    fn columns_count_characters_not_bytes() {
        let src = "extern int __VERIFIER_nondet_int(void);\nint twice(int v) { return 2 * v; }\nint main() {\n  /* é */ int y = twice(__VERIFIER_nondet_int());\n  char *s = \"ü\"; y = twice(y);\n  return y + s[0];\n}\n";
        let cfa = build_program(Path::new("t.c"), src, DataModel::Lp64).expect("builds").cfa;
        let resolve_at = |kind, (line, column): (u32, u32)| {
            let a = SourceAnchor { kind, line, column: Some(column), file_name: None, origin: "w".into() };
            let mut warnings = Vec::new();
            resolve(&cfa, src, &a, false, &mut warnings).map(|r| (r, warnings))
        };
        let byte = |needle: &str| src.find(needle).expect("needle");
        // The `)` of the nondet call, after `é` (two bytes, one column); then the `)` of `twice`.
        let open = char_pos(src, "());", 0);
        assert_eq!(open, (4, 46));
        match resolve_at(AnchorKind::FunctionReturn, (4, 47)) {
            Ok((ResolvedAnchor::FunctionReturn { parens }, w)) => {
                assert_eq!(parens, HashSet::from([byte("());") + 1]));
                assert!(w.is_empty(), "{w:?}");
            }
            other => panic!("{other:?}"),
        }
        // The start of `twice(…)`: read as that call, the warning in character columns.
        let call = char_pos(src, "twice(__", 0);
        assert_eq!(call, (4, 19));
        match resolve_at(AnchorKind::FunctionReturn, call) {
            Ok((ResolvedAnchor::FunctionReturn { parens }, w)) => {
                assert_eq!(parens, HashSet::from([byte("());") + 2]));
                let said = "`twice(…)` at 4:19 (its `)` is at 4:48)";
                assert!(w.iter().any(|m| m.contains(said)), "{said} in {w:?}");
            }
            other => panic!("{other:?}"),
        }
        // A statement after a string literal holding `ü`.
        match resolve_at(AnchorKind::Statement, char_pos(src, "y = twice(y)", 0)) {
            Ok((ResolvedAnchor::Statement { offset, nodes }, _)) => {
                assert_eq!(offset, byte("y = twice(y)"));
                assert!(!nodes.is_empty());
            }
            other => panic!("{other:?}"),
        }
        // Line 5 is 30 characters (31 bytes): column 31 is past its end.
        let e = resolve_at(AnchorKind::Statement, (5, 31)).unwrap_err();
        assert!(e.contains("column 31 is past the end of line 5 (30 characters)"), "{e}");
    }

    /// Decision 61: a waypoint inside a body that was not parsed (its function is unreachable)
    /// resolves to an anchor no step matches, as before, instead of "found none"; one on a
    /// reached line still resolves.
    #[test]
    fn waypoints_in_removed_bodies_match_nothing() {
        let src = "int dead(int a) {\n  a = a + 1;\n  if (a) { return 1; }\n  return a;\n}\nint main() {\n  int x = 0;\n  return x;\n}\n";
        let cfa = build_program(Path::new("t.c"), src, DataModel::Lp64).expect("builds").cfa;
        assert_eq!(cfa.skipped_bodies.len(), 1);
        let resolve_at = |kind, line, column| {
            let a = SourceAnchor { kind, line, column, file_name: None, origin: "w".into() };
            let mut warnings = Vec::new();
            resolve(&cfa, src, &a, false, &mut warnings).map(|r| (r, warnings))
        };
        match resolve_at(AnchorKind::Statement, 2, Some(3)) {
            Ok((ResolvedAnchor::Statement { nodes, .. }, w)) => {
                assert!(nodes.is_empty());
                assert!(w[0].contains("cannot reach"), "{w:?}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            resolve_at(AnchorKind::Branching, 3, None),
            Ok((ResolvedAnchor::Branching { construct: usize::MAX }, _))
        ));
        match resolve_at(AnchorKind::Statement, 7, Some(3)) {
            Ok((ResolvedAnchor::Statement { nodes, .. }, w)) => assert!(!nodes.is_empty() && w.is_empty()),
            other => panic!("{other:?}"),
        }
        assert!(resolve_at(AnchorKind::Statement, 7, Some(4)).is_err());
    }
}
