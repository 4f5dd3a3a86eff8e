//! Issue 52 (decisions 251–255): transition invariants that relate two visits of their location,
//! checked by the ghost-copy reduction.
//!
//! A `loop_transition_invariant` / `location_transition_invariant` relates the state at any
//! earlier visit of its location in the run, `\at(e, AnyPrev)`, to the state at each later visit
//! (decision 207). The program is instrumented so that this becomes an ordinary invariant:
//! - each variable the relation reads under `\at(…, AnyPrev)` gets a ghost copy, a file-scope
//!   variable of the same type, and the invariant gets a ghost flag `__wc_anyprevN`, zero at the
//!   start;
//! - right after each visit of the location (after the invariants there are checked), the run
//!   either goes on, or sets the flag and copies the variables into their ghosts: two steps out
//!   of the location, both always enabled, so no run of the program is lost and the visit whose
//!   state the ghosts hold may be any visit of the run (a later copy replaces an earlier one,
//!   which changes nothing: the run that copies only at visit i relates visit i to every later
//!   one);
//! - the invariant checked at the location is `__wc_anyprevN == 0 || R'`, one conjunct per
//!   conjunct of `R`, where `R'` is `R` with each `\at(e, AnyPrev)` replaced by `(e')`, `e` with
//!   each variable renamed to its ghost copy.
//!
//! The relation holds at every pair of visits of every run exactly when the instrumented
//! invariant holds at every visit of every run of the instrumented program, and the engines
//! (search, k-induction, bounded refutation) decide that as for any invariant; the ghosts are
//! globals, so an induction window's general state makes them fresh symbols too.
//!
//! Only what a copy of values reproduces is read this way: `e` may read integer and
//! floating-point scalar variables with any operators on them, no memory (`*p`, `a[i]`, a
//! member of a struct) and no pointer. A visit in any call counts (the ghosts are globals): an
//! earlier visit may be in an earlier call of the function (decision 252). In a function that may
//! call itself, a local read under `\at` is not checked (decision 253).

use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::cfa::{CType, Cfa, CfaEdge, CfaNode, EdgeOp, Expr, FuncId, Place, ScalarTy, VarId, Write};
use crate::cfront::{add_ghost_globals, assumption_pieces_as_c, lower_assumption_value, AssumptionScope};
use crate::invariants::earlier::{earlier_reads, pieces, Piece};
use crate::invariants::Obligation;
use crate::witness::InvariantKind;

/// Is `o` a transition invariant the engines check through the instrumentation?
pub(crate) fn instrumented(o: &Obligation) -> bool {
    matches!(o.kind, InvariantKind::LoopTransition | InvariantKind::LocationTransition) && o.unchecked.is_none()
}

/// The program instrumented for the transition invariants among `obligations`, and the
/// obligations with each of those replaced by its instrumented reading (its `check`).
pub struct Instrumented {
    pub cfa: Cfa,
    pub obligations: Vec<Obligation>,
}

/// The ghost-copy instrumentation of every transition invariant the engines check (`None` when
/// there is none), or why it cannot be built.
pub fn instrument(cfa: &Cfa, obligations: &[Obligation]) -> Result<Option<Instrumented>, String> {
    if !obligations.iter().any(instrumented) {
        return Ok(None);
    }
    let mut out = cfa.clone();
    let mut obligations = obligations.to_vec();
    // Per location, the snapshots taken after its visits, in order: (flag, [(ghost, variable)]).
    let mut hops: Vec<(NodeIndex, FuncId, Snapshot)> = Vec::new();
    for (k, o) in obligations.iter_mut().enumerate() {
        if !instrumented(o) {
            continue;
        }
        let vars = earlier_reads(cfa, o).map_err(|why| format!("the {} is not checked: {why}", o.describe()))?;
        let flag = format!("__wc_anyprev{k}");
        let mut wanted: Vec<(String, Option<VarId>)> = vec![(flag.clone(), None)];
        wanted.extend(vars.iter().map(|v| (format!("{flag}_{}", cfa.var(*v).name), Some(*v))));
        let ids = add_ghost_globals(&mut out, &wanted)?;
        let copies: Vec<(VarId, VarId)> = ids[1..].iter().copied().zip(vars.iter().copied()).collect();
        let names: Vec<(VarId, String)> = wanted[1..].iter().map(|(n, v)| (v.unwrap_or(VarId(0)), n.clone())).collect();
        o.check = Some(checked_text(cfa, o, &flag, &names)?);
        for n in &o.nodes {
            let f = cfa.graph[*n].function.ok_or("a location outside every function")?;
            hops.push((*n, f, Snapshot { flag: ids[0], copies: copies.clone() }));
        }
    }
    split_locations(&mut out, &hops);
    Ok(Some(Instrumented { cfa: out, obligations }))
}

/// The snapshot one transition invariant takes after a visit of its location.
#[derive(Clone)]
struct Snapshot {
    flag: VarId,
    /// (ghost, variable).
    copies: Vec<(VarId, VarId)>,
}

/// `flag == 0 || (R')` per conjunct of `R`, with each `\at(e, AnyPrev)` read on the copies.
/// `names`: each copied variable with its ghost's name.
fn checked_text(cfa: &Cfa, o: &Obligation, flag: &str, names: &[(VarId, String)]) -> Result<String, String> {
    let scope = AssumptionScope { result_ty: None, ..o.lowering_scope(cfa) };
    let mut text = String::new();
    for piece in pieces(&o.text)? {
        match piece {
            Piece::Text(t) => text.push_str(t),
            Piece::Prev(arg) => {
                text.push('(');
                text.push_str(&renamed(cfa, arg, &scope, names));
                text.push(')');
            }
        }
    }
    let conjuncts = assumption_pieces_as_c(&text);
    if conjuncts.is_empty() {
        return Err(format!("the {} is empty", o.describe()));
    }
    Ok(conjuncts.iter().map(|c| format!("{flag} == 0 || ({c})")).collect::<Vec<_>>().join("; "))
}

/// `arg` with each name that means one of the copied variables at `scope` replaced by its
/// ghost's name. Names after `.` or `->` were refused before; a name that means something else
/// (a type, an enumeration constant) is left.
fn renamed(cfa: &Cfa, arg: &str, scope: &AssumptionScope, names: &[(VarId, String)]) -> String {
    let mut out = String::with_capacity(arg.len() + 32);
    let b = arg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let starts_name = (c.is_ascii_alphabetic() || c == b'_') && (i == 0 || !is_name_byte(b[i - 1]));
        if !starts_name {
            // A number's letters (`1e5`, `10U`) stay as they are.
            out.push(c as char);
            i += 1;
            if c.is_ascii_digit() {
                while i < b.len() && (is_name_byte(b[i]) || b[i] == b'.') {
                    out.push(b[i] as char);
                    i += 1;
                }
            }
            continue;
        }
        let start = i;
        while i < b.len() && is_name_byte(b[i]) {
            i += 1;
        }
        let name = &arg[start..i];
        let ghost = match lower_assumption_value(cfa, name, scope) {
            Ok(Expr::Var { var, .. }) => names.iter().find(|(v, _)| *v == var).map(|(_, g)| g.clone()),
            _ => None,
        };
        out.push_str(ghost.as_deref().unwrap_or(name));
    }
    out
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Moves the steps out of each location with snapshots to a new location after them, and puts
/// the snapshots in between: per snapshot, a blank step and the copying step, both to the next
/// location of the chain. The program's own edges keep their indices (the anchors and the
/// statements point at them), its locations too.
fn split_locations(cfa: &mut Cfa, hops: &[(NodeIndex, FuncId, Snapshot)]) {
    let old = std::mem::take(&mut cfa.graph);
    let mut graph: DiGraph<CfaNode, CfaEdge> = DiGraph::with_capacity(old.node_count() + hops.len(), old.edge_count());
    for n in old.node_indices() {
        graph.add_node(old[n].clone());
    }
    // Per location, the chain of its snapshots' locations: the last one holds its old steps.
    let mut chains: std::collections::BTreeMap<NodeIndex, Vec<(FuncId, Snapshot)>> = Default::default();
    for (n, f, s) in hops {
        chains.entry(*n).or_default().push((*f, s.clone()));
    }
    let mut last: std::collections::HashMap<NodeIndex, NodeIndex> = Default::default();
    let mut ghost_edges: Vec<(NodeIndex, NodeIndex, CfaEdge)> = Vec::new();
    for (n, snaps) in &chains {
        let mut at = *n;
        for (f, s) in snaps {
            let next = graph.add_node(CfaNode { function: Some(*f), loop_head: false });
            ghost_edges.push((at, next, ghost_edge(EdgeOp::Blank, *f, String::new())));
            let mut writes = vec![Write::Scalar {
                lhs: Place::Var { var: s.flag, ty: ScalarTy::Int(crate::cfa::IntTy::INT) },
                rhs: Expr::int(1),
            }];
            let mut names = Vec::new();
            for (g, v) in &s.copies {
                let ty = match cfa.var(*v).ty {
                    CType::Int(t) => ScalarTy::Int(t),
                    CType::Float(t) => ScalarTy::Float(t),
                    _ => continue,
                };
                writes.push(Write::Scalar { lhs: Place::Var { var: *g, ty }, rhs: Expr::Var { var: *v, ty } });
                names.push(cfa.var(*v).name.clone());
            }
            let text = format!("snapshot of the visit for \\at(…, AnyPrev) [{}]", names.join(", "));
            ghost_edges.push((at, next, ghost_edge(EdgeOp::AssignAll { writes }, *f, text)));
            at = next;
        }
        last.insert(*n, at);
        cfa.moved_steps.push((*n, at));
    }
    for e in old.edge_references() {
        let from = last.get(&e.source()).copied().unwrap_or(e.source());
        let i: EdgeIndex = graph.add_edge(from, e.target(), e.weight().clone());
        debug_assert_eq!(i, e.id());
    }
    for (a, b, w) in ghost_edges {
        graph.add_edge(a, b, w);
    }
    cfa.graph = graph;
}

fn ghost_edge(op: EdgeOp, function: FuncId, text: String) -> CfaEdge {
    CfaEdge { op, span: None, function, text, decision: None, call_paren: None, call_start: None }
}

#[cfg(test)]
mod tests {
    use crate::invariants::earlier::member_dot;
    use std::path::Path;

    use super::*;
    use crate::cfa::DataModel;
    use crate::invariants::Unchecked;

    const HEADER: &str = "- entry_type: invariant_set\n  metadata:\n    format_version: \"2.2\"\n    uuid: \"0\"\n    \
        creation_time: \"2026-01-01T00:00:00Z\"\n    producer: {name: t, version: \"1\"}\n    task:\n      \
        input_files: [p.c]\n      input_file_hashes: {}\n      specification: \"G ! call(reach_error())\"\n      \
        data_model: ILP32\n      language: C\n  content:\n";

    fn placed(src: &str, line: u32, column: u32, function: &str, value: &str) -> (crate::cfront::Program, Obligation) {
        let program = crate::cfront::build_program(Path::new("p.c"), src, DataModel::Ilp32).expect("builds");
        let w = format!(
            "{HEADER}  - invariant:\n      type: location_transition_invariant\n      location: {{file_name: p.c, \
             line: {line}, column: {column}, function: {function}}}\n      value: '{value}'\n      format: ext_c_expression\n"
        );
        let w = crate::witness::yaml::read_yaml(Path::new("w.yml"), w.as_bytes()).expect("witness");
        let mut o = crate::invariants::resolve(&program.cfa, &w).expect("resolves");
        (program, o.remove(0))
    }

    const CALLEE: &str = "int g;\nstruct S { int m; } s;\nvoid f(int v) {\n  g = v + s.m;\n}\nint main(void) {\n  f(2);\n  f(1);\n  return 0;\n}\n";

    #[test]
    fn the_text_is_cut_at_each_at_anyprev() {
        assert_eq!(
            pieces("\\at(x, AnyPrev) < x && \\at(f(a, b), AnyPrev)").unwrap(),
            vec![Piece::Text(""), Piece::Prev("x"), Piece::Text(" < x && "), Piece::Prev("f(a, b)"), Piece::Text("")]
        );
        assert!(pieces("\\at(x, Pre) < x").unwrap_err().contains("`Pre`"));
        assert!(member_dot("s.m + 1") && member_dot("(t).x") && !member_dot("1.5 + x") && !member_dot(".5e3"));
    }

    #[test]
    fn a_location_of_a_function_called_twice_is_checked_on_ghost_copies() {
        let (program, o) = placed(CALLEE, 4, 3, "f", "\\at(v, AnyPrev) < v && \\at(g + 1, AnyPrev) <= g");
        assert!(o.unchecked.is_none(), "{:?}", o.unchecked);
        let cfa = &program.cfa;
        let at = o.nodes.clone();
        let out = instrument(cfa, &[o]).expect("instruments").expect("something to instrument");
        // The program's own locations and steps keep their indices; each location with a
        // snapshot has two steps out (go on, or copy), both to one new location that holds its
        // old steps.
        assert_eq!(out.cfa.graph.node_count(), cfa.graph.node_count() + at.len());
        for e in cfa.graph.edge_indices() {
            assert_eq!(out.cfa.graph[e].text, cfa.graph[e].text);
            assert_eq!(out.cfa.graph.edge_endpoints(e).map(|(_, b)| b), cfa.graph.edge_endpoints(e).map(|(_, b)| b));
        }
        for n in &at {
            let outs: Vec<_> = out.cfa.graph.edges_directed(*n, petgraph::Direction::Outgoing).collect();
            assert_eq!(outs.len(), 2);
            assert!(outs.iter().any(|e| matches!(e.weight().op, EdgeOp::Blank)));
            let copy = outs.iter().find_map(|e| match &e.weight().op {
                EdgeOp::AssignAll { writes } => Some(writes.len()),
                _ => None,
            });
            assert_eq!(copy, Some(3), "the flag, v and g");
        }
        assert_eq!(
            out.obligations[0].check.as_deref(),
            Some("__wc_anyprev0 == 0 || ((__wc_anyprev0_v) < v && (__wc_anyprev0_g + 1) <= g)")
        );
        // The instrumented reading lowers in the instrumented program.
        let o = &out.obligations[0];
        let lowered = crate::cfront::lower_assumption(&out.cfa, o.checked(), &o.lowering_scope(&out.cfa));
        assert!(lowered.iter().all(Result::is_ok), "{lowered:?}");
    }

    #[test]
    fn what_copies_cannot_reproduce_is_not_checked() {
        for (value, why) in
            [("\\at(s.m, AnyPrev) <= s.m", "a member of a struct"), ("\\at(&g, AnyPrev) == &g", "not supported")]
        {
            let (_, o) = placed(CALLEE, 4, 3, "f", value);
            match &o.unchecked {
                Some(Unchecked::Unsupported(m)) => assert!(m.contains(why), "{value}: {m}"),
                other => panic!("{value}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_local_of_a_function_that_may_recurse_is_not_read_at_an_earlier_visit() {
        let src = "int g;\nint r(int n) {\n  g = g + 1;\n  if (n > 0) return r(n - 1);\n  return 0;\n}\nint main(void) {\n  return r(3);\n}\n";
        let (_, o) = placed(src, 3, 3, "r", "\\at(n, AnyPrev) > n");
        match &o.unchecked {
            Some(Unchecked::Unsupported(m)) => assert!(m.contains("still running"), "{m}"),
            other => panic!("{other:?}"),
        }
        // A global's value at the earlier visit is one whichever activation made it.
        let (_, o) = placed(src, 3, 3, "r", "\\at(g, AnyPrev) < g");
        assert!(o.unchecked.is_none(), "{:?}", o.unchecked);
    }
}
