//! Issue 23: a correctness witness's invariants attached to program locations (decision 162).
//!
//! Both formats resolve into [`Obligation`]s: a C expression, the function whose variables it
//! speaks of, and the CFA locations at which it must hold on every visit.
//! - YAML `loop_invariant`: the loop head of the loop statement whose keyword is at the
//!   location (after a `for`'s initialisation, before each evaluation of the condition; the
//!   `do` keyword's head is before the body).
//! - YAML `location_invariant`: the location at which control arrives at the statement.
//! - 2.1 contracts: `requires` at the function's entry, `ensures` at its exit (`\result`).
//! - GraphML: a state's invariant at the locations the steps that enter it reach (for an
//!   `enterLoopHead` transition, the loop head the step leads to; for `enterFunction`, the
//!   callee's entry). This claims the invariant at every visit of those locations, more than
//!   the witness does (only while the automaton is in that state): proving it confirms the
//!   witness, but a refutation must follow the automaton (`witness_node`).
//!
//! A location that matches nothing is an error the validation reports as unknown, never a
//! skipped invariant.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;
use petgraph::visit::{Dfs, EdgeRef};
use petgraph::Direction;

pub(crate) mod earlier;

use crate::anchors::loop_heads_of;
use crate::cfa::{BranchOutcome, Cfa, EdgeOp, FuncId};
use crate::cfront::{lower_assumption, AssumptionScope};
use crate::witness::{Control, ExprFormat, InvariantKind, WitnessAutomaton, WitnessInvariant, WitnessTransition};

/// One invariant to establish.
#[derive(Debug, Clone)]
pub struct Obligation {
    /// How the witness places it (GraphML node invariants count as location invariants).
    pub kind: InvariantKind,
    /// The expression.
    pub text: String,
    /// Its language: C's rules or ACSL's unbounded integers (decision 232).
    pub format: ExprFormat,
    /// The function whose variables it speaks of.
    pub scope: FuncId,
    /// A byte offset at the location, to choose among shadowing declarations.
    pub offset: Option<usize>,
    /// The program locations at which it must hold.
    pub nodes: Vec<NodeIndex>,
    /// GraphML: the automaton state that carries it.
    pub witness_node: Option<NodeIndex>,
    /// The program line of the location (for reports).
    pub line: u32,
    /// Where it is in the witness (`line:column`, or `node N22`).
    pub origin: String,
    /// It is never checked (`nodes` is empty), and why.
    pub unchecked: Option<Unchecked>,
    /// What the engines evaluate, when it is not `text`: a transition invariant's reading on the
    /// ghost copies of the instrumented program (decision 251).
    pub check: Option<String>,
}

/// Why an obligation is not checked.
#[derive(Debug, Clone)]
pub enum Unchecked {
    /// It holds: it lies in a function no run executes (decision 61 removed its definition,
    /// following names from `main` and the constructors), or it relates two visits of a location
    /// no run passes twice (decision 207).
    Vacuous {
        /// The function it speaks of (by name: an unparsed one has no id).
        function: String,
        /// `holds vacuously: …`.
        detail: String,
    },
    /// It cannot be checked: the others may refute the witness, nothing confirms it.
    Unsupported(String),
}

impl Obligation {
    /// Where and how its expression is lowered: its function's scope at its offset, `\result`
    /// typed for a postcondition, by its format's rules.
    pub fn lowering_scope(&self, cfa: &Cfa) -> AssumptionScope {
        AssumptionScope {
            function: Some(self.scope),
            offset: self.offset,
            result_ty: if self.kind == InvariantKind::Ensures { cfa.function(self.scope).return_ty } else { None },
            acsl: self.format == ExprFormat::Acsl,
            visible_only: matches!(self.kind, InvariantKind::Requires | InvariantKind::Ensures),
        }
    }

    /// The expression the engines evaluate at its locations.
    pub fn checked(&self) -> &str {
        self.check.as_deref().unwrap_or(&self.text)
    }

    /// `loop invariant `x <= 10` at line 12 (witness 23:7)`.
    pub fn describe(&self) -> String {
        format!("{} `{}` at line {} (witness {})", self.kind.name(), self.text, self.line, self.origin)
    }
}

/// The invariant `true` (GraphML's default of the `invariant` key, which Ultimate declares, so that
/// every state without invariant data has it; decision 196): it holds wherever the state is, so it
/// places no obligation (a program variable named `true` would make it a claim).
fn claims_nothing(cfa: &Cfa, text: &str) -> bool {
    let mut t = text.trim();
    while let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        t = inner.trim();
    }
    t == "true" && !cfa.vars.iter().any(|v| v.name == "true")
}

/// The obligations of a correctness witness, or why one cannot be placed.
pub fn resolve(cfa: &Cfa, w: &WitnessAutomaton) -> Result<Vec<Obligation>, String> {
    resolve_each(cfa, w).into_iter().collect()
}

/// Each invariant of a correctness witness placed, or why it cannot be (YAML entries in order,
/// then GraphML states with an invariant in order).
pub fn resolve_each(cfa: &Cfa, w: &WitnessAutomaton) -> Vec<Result<Obligation, String>> {
    let mut out: Vec<Result<Obligation, String>> = w.invariants.iter().map(|inv| resolve_yaml(cfa, inv)).collect();
    for n in w.graph.node_indices() {
        let state = &w.graph[n];
        let Some(text) = &state.invariant else { continue };
        if text.trim().is_empty() || claims_nothing(cfa, text) {
            continue;
        }
        out.push(resolve_graphml(cfa, w, n, text));
    }
    out
}

fn function_named(cfa: &Cfa, name: Option<&str>, origin: &str) -> Result<Option<FuncId>, String> {
    match name {
        None => Ok(None),
        Some(f) => cfa.witness_function(f).map(Some).ok_or_else(|| match cfa.defines(f) {
            // Decision 172: no run enters it, so no location of it can be placed.
            true => format!(
                "the invariant at {origin} names the function `{f}`, which `main` never calls (its definition was not parsed)"
            ),
            false => format!("the invariant at {origin} names the function `{f}`, which the program does not define"),
        }),
    }
}

fn resolve_yaml(cfa: &Cfa, inv: &WitnessInvariant) -> Result<Obligation, String> {
    let placed = place_yaml(cfa, inv)?;
    match inv.kind {
        InvariantKind::LoopTransition | InvariantKind::LocationTransition if placed.unchecked.is_none() => {
            transition(cfa, placed)
        }
        _ => Ok(placed),
    }
}

/// Where a YAML invariant must hold.
fn place_yaml(cfa: &Cfa, inv: &WitnessInvariant) -> Result<Obligation, String> {
    let origin = inv.origin.clone();
    // A location inside the body of a function no run executes (not parsed, decision 61): the
    // invariant claims nothing about any run (issue 32).
    if let Some(f) = inv.function.as_deref().filter(|f| cfa.function_by_name(f).is_none() && cfa.defines(f)) {
        let line_start = cfa.line_starts.get((inv.line as usize).wrapping_sub(1));
        let line_end = cfa.line_starts.get(inv.line as usize).unwrap_or(cfa.source_len);
        let inside = line_start.is_some_and(|s| cfa.skipped_bodies.iter().any(|(b, e)| *b <= s && line_end <= *e + 1));
        if inside && !matches!(inv.kind, InvariantKind::Requires | InvariantKind::Ensures) {
            return Ok(Obligation {
                kind: inv.kind,
                text: inv.value.clone(),
                format: inv.format,
                scope: cfa.main,
                offset: None,
                nodes: Vec::new(),
                witness_node: None,
                line: inv.line,
                origin,
                unchecked: Some(Unchecked::Vacuous {
                    function: f.to_string(),
                    detail: format!("holds vacuously: no run executes `{f}`"),
                }),
                check: None,
            });
        }
    }
    let named = function_named(cfa, inv.function.as_deref(), &origin)?;
    let unplaced = |what: &str| {
        format!(
            "the {} `{}` at {} (line {}{}) matches no {what} of the program",
            inv.kind.name(),
            inv.value,
            origin,
            inv.line,
            inv.column.map(|c| format!(", column {c}")).unwrap_or_default()
        )
    };
    let mk = |nodes: Vec<NodeIndex>, scope: FuncId, offset: Option<usize>| Obligation {
        kind: inv.kind,
        text: inv.value.clone(),
        format: inv.format,
        scope,
        offset,
        nodes,
        witness_node: None,
        line: inv.line,
        origin: origin.clone(),
        unchecked: None,
        check: None,
    };
    match inv.kind {
        InvariantKind::Requires | InvariantKind::Ensures => {
            let Some(f) = named else { return Err(unplaced("function")) };
            let info = cfa.function(f);
            let node = if inv.kind == InvariantKind::Requires { info.entry } else { info.exit };
            // Decision 231: a postcondition reads the formals at entry, memory at the return. A
            // formal whose address the function takes is both: not checked.
            let addressed = info.params.iter().find(|p| cfa.var(**p).address_taken);
            if let (InvariantKind::Ensures, Some(p)) = (inv.kind, addressed) {
                let mut o = mk(Vec::new(), f, Some(info.span.start_offset));
                o.unchecked = Some(Unchecked::Unsupported(format!(
                    "the {} is not checked: `{}` takes the address of its parameter `{}`, which a \
                     postcondition reads at its value at entry while memory is read at the return",
                    o.describe(),
                    info.name,
                    cfa.var(*p).name
                )));
                return Ok(o);
            }
            Ok(mk(vec![node], f, Some(info.span.start_offset)))
        }
        InvariantKind::Loop
        | InvariantKind::Location
        | InvariantKind::LoopTransition
        | InvariantKind::LocationTransition => {
            let line_start = cfa.line_starts.get(inv.line as usize - 1).ok_or_else(|| unplaced("line"))?;
            let line_end = cfa.line_starts.get(inv.line as usize).unwrap_or(cfa.source_len);
            // Statements starting at the column, or on the line (the leftmost suitable one).
            let mut starts: Vec<(usize, NodeIndex)> = match inv.column {
                Some(c) => {
                    // A column counts characters (format 2.0 §3).
                    let o = cfa.line_starts.offset_at(inv.line, c).ok_or_else(|| unplaced("column"))?;
                    cfa.statement_starts.iter().filter(|(s, _)| *s == o).copied().collect()
                }
                None => {
                    cfa.statement_starts.iter().filter(|(s, _)| (line_start..line_end).contains(s)).copied().collect()
                }
            };
            starts.sort();
            let in_function = |n: NodeIndex| named.is_none_or(|f| cfa.graph[n].function == Some(f));
            starts.retain(|(_, n)| in_function(*n));
            if matches!(inv.kind, InvariantKind::Loop | InvariantKind::LoopTransition) {
                for &(o, n) in &starts {
                    // The loop statement starting there has its own head (cause 8); a statement
                    // that is no loop reaches one through its header (decision 93).
                    let own: Vec<NodeIndex> =
                        cfa.loop_statements.iter().filter(|(s, _)| *s == o).map(|(_, h)| *h).collect();
                    let heads: Vec<NodeIndex> = if own.is_empty() {
                        loop_heads_of(cfa, &[n].into_iter().collect(), o)
                            .into_iter()
                            .filter(|h| cfa.graph[*h].loop_head)
                            .collect::<BTreeSet<_>>()
                            .into_iter()
                            .collect()
                    } else {
                        own
                    };
                    if let [head] = heads[..] {
                        let Some(scope) = cfa.graph[head].function else { continue };
                        // The condition's offset: a `for`'s own declarations are in scope.
                        let offset = cfa
                            .graph
                            .edges_directed(head, Direction::Outgoing)
                            .filter_map(|e| e.weight().span.map(|s| s.start_offset))
                            .min()
                            .unwrap_or(o);
                        return Ok(mk(vec![head], scope, Some(offset)));
                    }
                }
                return Err(unplaced("loop (`while`, `for`, `do`)"));
            }
            let Some(&(o, _)) = starts.first() else { return Err(unplaced("statement")) };
            let nodes: Vec<NodeIndex> = starts.iter().filter(|(s, _)| *s == o).map(|(_, n)| *n).collect();
            let Some(scope) = cfa.graph[nodes[0]].function else { return Err(unplaced("statement in a function")) };
            Ok(mk(nodes, scope, Some(o)))
        }
    }
}

/// Decision 207: a transition invariant relates the state at any earlier visit of its location
/// in the run (`\at(e, AnyPrev)`: Goblint's and CPAchecker's loop iterations; the
/// Podelski–Rybalchenko transition invariant restricted to one location) to the state at each
/// later visit. Where no run passes the location twice there is no pair of visits: it holds
/// vacuously, once it is a well-formed expression in its scope. Elsewhere the engines check it
/// on the program instrumented with ghost copies of what it reads under `\at` (decisions
/// 251–253, [`crate::transition`]); where the copies cannot reproduce that, it is not checked:
/// the other invariants may refute the witness, nothing confirms it.
fn transition(cfa: &Cfa, mut o: Obligation) -> Result<Obligation, String> {
    let now = current_state_reading(&o.text).map_err(|why| format!("the {} is not understood: {why}", o.describe()))?;
    let scope = AssumptionScope { result_ty: None, ..o.lowering_scope(cfa) };
    let lowered = lower_assumption(cfa, &now, &scope);
    if lowered.is_empty() {
        return Err(format!("the {} is empty", o.describe()));
    }
    if let Some(Err(why)) = lowered.into_iter().find(Result::is_err) {
        return Err(format!("the {} cannot be evaluated in its scope: {why}", o.describe()));
    }
    let why = match passed_at_most_once(cfa, o.scope, &o.nodes) {
        Ok(why) => {
            o.unchecked = Some(Unchecked::Vacuous {
                function: cfa.function(o.scope).name.clone(),
                detail: format!("holds vacuously: {why}, so no earlier visit is related to a later one"),
            });
            o.nodes.clear();
            return Ok(o);
        }
        Err(why) => why,
    };
    if let Err(reads) = earlier::earlier_reads(cfa, &o) {
        o.unchecked = Some(Unchecked::Unsupported(format!(
            "the {} is not checked: {why}, and {reads}; a transition invariant is checked on ghost copies of \
             integer and floating-point variables only",
            o.describe()
        )));
        o.nodes.clear();
    }
    Ok(o)
}

/// The expression with each `\at(e, AnyPrev)` read as `(e)`: what must be well-formed in the
/// invariant's scope. Another label of `\at` is not understood.
pub(crate) fn current_state_reading(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for piece in earlier::pieces(text)? {
        match piece {
            earlier::Piece::Text(t) => out.push_str(t),
            earlier::Piece::Prev(e) => {
                out.push('(');
                out.push_str(e);
                out.push(')');
            }
        }
    }
    Ok(out)
}

/// Why no run passes any of `nodes` (locations of `f`) twice, or why one may: `f` is `main`, which
/// nothing calls, registers or starts (no call through a pointer in the program), and no step
/// leads from one of the locations back to one of them.
fn passed_at_most_once(cfa: &Cfa, f: FuncId, nodes: &[NodeIndex]) -> Result<String, String> {
    if f != cfa.main {
        return Err(format!("`{}` is not `main` and may be entered more than once", cfa.function(f).name));
    }
    let enters_main = cfa.graph.edge_references().any(|e| match &e.weight().op {
        EdgeOp::Call { callee, .. } => *callee == f,
        EdgeOp::AtExit { handler, .. } => *handler == f,
        // A start routine through a pointer may be any function (decision 248).
        EdgeOp::ThreadCreate { routine, .. } => routine.function().is_none_or(|r| r == f),
        EdgeOp::CallPtr { .. } => true,
        _ => false,
    });
    if enters_main {
        return Err("the program may call `main` (or calls through a function pointer)".into());
    }
    // A walk from the locations' successors: meeting one of them again closes a cycle.
    let mut walk = Dfs::empty(&cfa.graph);
    walk.stack = nodes.iter().flat_map(|n| cfa.graph.neighbors_directed(*n, Direction::Outgoing)).collect();
    while let Some(m) = walk.next(&cfa.graph) {
        if nodes.contains(&m) {
            return Err(format!("a step leads from the location at line {} back to it", line_of(cfa, m)));
        }
    }
    Ok("no run passes the location twice (it is in `main` and on no cycle)".into())
}

/// The line of the first step out of a location (for messages).
pub(crate) fn line_of(cfa: &Cfa, n: NodeIndex) -> u32 {
    cfa.graph
        .edges_directed(cfa.own_steps(n), Direction::Outgoing)
        .filter_map(|e| e.weight().span.map(|s| s.start_line))
        .min()
        .unwrap_or(0)
}

/// The CFA locations a GraphML transition's step leads to, or `None` when it cannot tell.
fn targets_of(cfa: &Cfa, t: &WitnessTransition) -> Option<BTreeSet<NodeIndex>> {
    let g = &t.guard;
    if let Some(f) = &g.enter_function {
        return Some([cfa.function(cfa.function_by_name(f)?).entry].into_iter().collect());
    }
    let lines = g.lines?;
    let on_lines =
        |e: &crate::cfa::CfaEdge| e.span.is_some_and(|s| lines.overlaps(s.start_line.into(), s.end_line.into()));
    let mut out = BTreeSet::new();
    if g.enter_loop_head {
        // The loop heads the line's steps lead to; a branch (`if (…) return 0;` before the
        // loop) only when no other step of the line leads to one.
        let heads = |decisions: bool| -> BTreeSet<NodeIndex> {
            cfa.graph
                .edge_references()
                .filter(|e| on_lines(e.weight()) && e.weight().decision.is_some() == decisions)
                .flat_map(|e| cfa.blank_closure(e.target()).into_iter().chain([e.target()]))
                .filter(|n| cfa.graph[*n].loop_head)
                .collect()
        };
        let plain = heads(false);
        return Some(if plain.is_empty() { heads(true) } else { plain });
    }
    for e in cfa.graph.edge_references() {
        let w = e.weight();
        if !on_lines(w) {
            continue;
        }
        if let Some(f) = &g.return_from_function {
            if matches!(&w.op, EdgeOp::Call { callee, .. } if cfa.function(*callee).name == *f) {
                out.insert(e.target());
            }
            continue;
        }
        if let Some(c) = g.control {
            let want = c == Control::ConditionTrue;
            match &w.decision {
                Some(d) if d.outcome == BranchOutcome::Bool(want) => {
                    out.insert(e.target());
                }
                _ => {}
            }
            continue;
        }
        // A blank step with a place is a statement too (`goto L;`, which leads to `L`).
        out.insert(e.target());
    }
    Some(out)
}

fn resolve_graphml(cfa: &Cfa, w: &WitnessAutomaton, n: NodeIndex, text: &str) -> Result<Obligation, String> {
    let state = &w.graph[n];
    let origin = format!("node {}", state.id);
    let named = function_named(cfa, state.invariant_scope.as_deref(), &origin)?;
    let mut nodes = BTreeSet::new();
    if state.entry {
        nodes.insert(cfa.function(cfa.main).entry);
    }
    for t in w.graph.edges_directed(n, Direction::Incoming) {
        match targets_of(cfa, t.weight()) {
            Some(found) if !found.is_empty() => nodes.extend(found),
            _ => {
                return Err(format!(
                    "the invariant `{text}` of {origin} is entered by the transition at {} whose step this program \
                     does not have (no location to check the invariant at)",
                    t.weight().origin
                ))
            }
        }
    }
    let nodes: Vec<NodeIndex> = nodes.into_iter().collect();
    let Some(&first) = nodes.first() else {
        return Err(format!("the invariant `{text}` of {origin} is on a state no transition enters"));
    };
    let scope = match named {
        Some(f) => f,
        None => cfa.graph[first].function.unwrap_or(cfa.main),
    };
    if nodes.iter().any(|m| cfa.graph[*m].function != Some(scope)) {
        return Err(format!(
            "the invariant `{text}` of {origin} (scope `{}`) is entered at a location outside that function",
            cfa.function(scope).name
        ));
    }
    let offset = cfa
        .graph
        .edges_directed(first, Direction::Outgoing)
        .filter_map(|e| e.weight().span.map(|s| s.start_offset))
        .min();
    // The line of the first step from there, through steps without a place (a label's node).
    let line = cfa
        .blank_closure(first)
        .into_iter()
        .flat_map(|m| cfa.graph.edges_directed(m, Direction::Outgoing).filter_map(|e| e.weight().span))
        .map(|s| s.start_line)
        .min()
        .unwrap_or(0);
    let kind =
        if nodes.iter().all(|m| cfa.graph[*m].loop_head) { InvariantKind::Loop } else { InvariantKind::Location };
    Ok(Obligation {
        kind,
        text: text.to_string(),
        format: ExprFormat::C,
        scope,
        offset,
        nodes,
        witness_node: Some(n),
        line,
        origin,
        unchecked: None,
        check: None,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::cfa::DataModel;
    use crate::cfront::build_program;

    /// Issue 33: an invariant's column counts characters: after `ü` (two bytes) on its line,
    /// the loop and the statement are found at their character columns.
    #[test]
    fn invariant_columns_count_characters() {
        let src = "int main() {\n  int i = 0; /* ü */ while (i < 3) { i++; }\n  return i;\n}\n";
        let cfa = build_program(Path::new("t.c"), src, DataModel::Lp64).expect("builds").cfa;
        let at = |kind, needle: &str| {
            let line2 = &src[src.find("  int i").expect("line 2")..];
            let column = line2[..line2.find(needle).expect("needle")].chars().count() as u32 + 1;
            let inv = WitnessInvariant {
                kind,
                value: "0 <= i".into(),
                format: ExprFormat::C,
                line: 2,
                column: Some(column),
                function: Some("main".into()),
                file_name: None,
                origin: "w".into(),
            };
            resolve_yaml(&cfa, &inv)
        };
        let head = at(InvariantKind::Loop, "while").expect("the loop at its character column");
        assert!(head.nodes.iter().all(|n| cfa.graph[*n].loop_head) && !head.nodes.is_empty());
        let inside = at(InvariantKind::Location, "i++").expect("the statement at its character column");
        assert_eq!(inside.offset, src.find("i++"));
    }
}
