//! Test vectors of violation witnesses (decision 52): the values a witness gives to the
//! program's nondeterministic inputs, read the way execution-based validators (FShell-w2t,
//! CPA-w2t) read them, so that a rejection can say whether those values alone reach the error.
//!
//! An input value is a conjunct `\result == C` of a transition whose step returns from a
//! `__VERIFIER_nondet_*` call (GraphML `assumption.resultfunction`, YAML `function_return` at
//! the call's `)`), or `x == C` on a step that assigns `x = __VERIFIER_nondet_*()` (GraphML: a
//! nondet call assigning `x` on the transition's lines; YAML: an `assumption` waypoint at the
//! statement right after such a call). `C` is a constant. Every other claim of the witness is
//! ignored. The values are listed in witness-path order; the product
//! ([`crate::product::run_test_vector`]) hands them to the program's nondet calls in call
//! order, checking that each value's transition matches the call that takes it.
//!
//! Knows the witness automaton, the CFA and the resolved anchors; never evaluates anything.

use std::collections::HashSet;

use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::anchors::{Anchors, ResolvedAnchor};
use crate::cfa::{Cfa, EdgeOp, Place, VarId};
use crate::witness::{AnchorKind, WitnessAutomaton};

/// One input value of the witness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorEntry {
    /// The witness transition that carries it (its guard must match the call that takes it).
    pub transition: EdgeIndex,
    /// The conjunct as written, e.g. `\result == 5` or `x == 5`.
    pub text: String,
    /// For the `x == C` form: the variable the nondet call must assign.
    pub variable: Option<String>,
    /// The constant as written.
    pub value: String,
    /// The transition's `assumption.scope`.
    pub scope: Option<String>,
    /// Position of the transition in the witness file.
    pub origin: String,
}

/// The witness's input values in witness-path order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestVector {
    pub entries: Vec<VectorEntry>,
}

impl TestVector {
    /// The values as written, in order.
    pub fn values(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.value.clone()).collect()
    }
}

/// Most paths from the entry to a violation state looked at.
const MAX_PATHS: usize = 64;

/// Reads the witness's test vector. `Err` says why there is no single one: the witness's
/// paths to a violation state give different values (or are too many to compare).
pub fn extract(cfa: &Cfa, w: &WitnessAutomaton, anchors: &Anchors) -> Result<TestVector, String> {
    let paths = violation_paths(w).ok_or_else(|| {
        format!("the witness has more than {MAX_PATHS} paths to a violation node: no single test vector is read")
    })?;
    let mut vectors: Vec<TestVector> = Vec::new();
    for path in &paths {
        let v = TestVector { entries: path.iter().flat_map(|&t| entries_of(cfa, w, anchors, t)).collect() };
        if !vectors.iter().any(|o| same_values(o, &v)) {
            vectors.push(v);
        }
    }
    match vectors.len() {
        0 => Ok(TestVector::default()),
        1 => Ok(vectors.pop().unwrap_or_default()),
        n => Err(format!(
            "the witness branches: its {n} paths to a violation node give different input values ({} / {}), so it \
             has no single test vector",
            vectors[0].values().join(", "),
            vectors[1].values().join(", ")
        )),
    }
}

/// Two vectors that give the same values at the same places.
fn same_values(a: &TestVector, b: &TestVector) -> bool {
    a.entries.len() == b.entries.len()
        && a.entries.iter().zip(&b.entries).all(|(x, y)| {
            x.transition == y.transition || (x.text == y.text && x.variable == y.variable && x.origin == y.origin)
        })
}

/// Simple paths (as transition lists) from the entry to a violation state, avoiding sinks and
/// YAML avoid waypoints; `None` if there are more than [`MAX_PATHS`].
fn violation_paths(w: &WitnessAutomaton) -> Option<Vec<Vec<EdgeIndex>>> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    let mut on_path = HashSet::new();
    if dfs(w, w.entry, &mut path, &mut on_path, &mut out) {
        Some(out)
    } else {
        None
    }
}

fn dfs(
    w: &WitnessAutomaton,
    n: NodeIndex,
    path: &mut Vec<EdgeIndex>,
    on_path: &mut HashSet<NodeIndex>,
    out: &mut Vec<Vec<EdgeIndex>>,
) -> bool {
    if w.graph[n].violation {
        out.push(path.clone());
        return out.len() <= MAX_PATHS;
    }
    if w.graph[n].sink || !on_path.insert(n) {
        return true;
    }
    for t in w.graph.edges_directed(n, Direction::Outgoing) {
        if t.weight().avoid {
            continue;
        }
        path.push(t.id());
        let ok = dfs(w, t.target(), path, on_path, out);
        path.pop();
        if !ok {
            return false;
        }
    }
    on_path.remove(&n);
    true
}

/// The input values a transition gives.
fn entries_of(cfa: &Cfa, w: &WitnessAutomaton, anchors: &Anchors, t: EdgeIndex) -> Vec<VectorEntry> {
    let tr = &w.graph[t];
    let Some(a) = &tr.assumption else { return Vec::new() };
    let mut out = Vec::new();
    for piece in a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)) {
        let Some((lhs, value)) = equality_with_constant(&piece) else { continue };
        let entry = |variable: Option<String>| VectorEntry {
            transition: t,
            text: piece.clone(),
            variable,
            value: value.clone(),
            scope: a.scope.clone(),
            origin: tr.origin.clone(),
        };
        if lhs == "\\result" {
            let nondet_result = match (&a.result_function, anchors.get(&t)) {
                (Some(f), _) => f.starts_with("__VERIFIER_nondet_"),
                (None, Some(ResolvedAnchor::FunctionReturn { parens })) => {
                    nondet_edges(cfa).any(|e| cfa.edge(e).call_paren.is_some_and(|p| parens.contains(&p)))
                }
                _ => false,
            };
            if nondet_result {
                out.push(entry(None));
            }
            continue;
        }
        // `x == C` is an input value only if every step the transition can match is a call
        // assigning `x = __VERIFIER_nondet_*()` (or a declaration): on a line that also holds
        // other steps (`while ((x = f()) > 0)`), a producer may repeat the claim on a step that
        // is not an input, and the values would then go to the wrong calls.
        let can_match = |e: EdgeIndex| -> bool {
            let edge = cfa.edge(e);
            match (&tr.guard.anchor, anchors.get(&t)) {
                (Some(an), Some(ResolvedAnchor::Statement { nodes, .. })) if an.kind == AnchorKind::Statement => cfa
                    .graph
                    .edge_endpoints(e)
                    .is_some_and(|(_, to)| cfa.blank_closure(to).iter().any(|n| nodes.contains(n))),
                (Some(_), _) => false,
                (None, _) => match (tr.guard.lines, edge.span) {
                    (Some(lines), Some(s)) => lines.overlaps(s.start_line as u64, s.end_line as u64),
                    _ => false,
                },
            }
        };
        let assigns_lhs = |e: EdgeIndex| nondet_var(cfa, e).is_some_and(|v| v.is_some_and(|v| cfa.var(v).name == lhs));
        let mut matched = cfa
            .graph
            .edge_references()
            .filter(|e| !matches!(e.weight().op, EdgeOp::Blank | EdgeOp::Declare { .. }) && can_match(e.id()))
            .peekable();
        if matched.peek().is_some() && matched.all(|e| assigns_lhs(e.id())) {
            out.push(entry(Some(lhs)));
        }
    }
    out
}

/// The program's nondet call edges.
fn nondet_edges(cfa: &Cfa) -> impl Iterator<Item = EdgeIndex> + '_ {
    cfa.graph.edge_indices().filter(|&e| nondet_var(cfa, e).is_some())
}

/// For a nondet call edge: the variable it assigns, if a plain variable; `None` for other edges.
fn nondet_var(cfa: &Cfa, e: EdgeIndex) -> Option<Option<VarId>> {
    match &cfa.edge(e).op {
        EdgeOp::NondetCall { lhs, .. } | EdgeOp::FloatNondetCall { lhs, .. } => Some(lhs.as_ref().and_then(Place::var)),
        _ => None,
    }
}

/// `lhs == C` (also `C == lhs`, the legacy `lhs = C`, outer parentheses) where `lhs` is
/// `\result` or an identifier and `C` a numeric constant: `(lhs, C)`.
pub fn equality_with_constant(piece: &str) -> Option<(String, String)> {
    let s = strip_parens(piece.trim());
    let (a, b) = split_equality(s)?;
    let (a, b) = (strip_parens(a.trim()), strip_parens(b.trim()));
    if is_operand(a) && is_constant(b) {
        Some((a.to_string(), b.to_string()))
    } else if is_operand(b) && is_constant(a) {
        Some((b.to_string(), a.to_string()))
    } else {
        None
    }
}

/// Splits at the single top-level `==` (or a single legacy `=`).
fn split_equality(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut eq = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { 0 };
                if b.get(i + 1) == Some(&b'=') {
                    eq.push((i, 2));
                    i += 2;
                    continue;
                }
                if !b"<>!=+-*/%&|^".contains(&prev) {
                    eq.push((i, 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    match eq.as_slice() {
        [(i, n)] => Some((&s[..*i], &s[i + n..])),
        _ => None,
    }
}

/// Removes parentheses around the whole text.
fn strip_parens(mut s: &str) -> &str {
    loop {
        let t = s.trim();
        if !(t.starts_with('(') && t.ends_with(')')) {
            return t;
        }
        // The first `(` must close at the end.
        let mut depth = 0;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && i + 1 != t.len() {
                        return t;
                    }
                }
                _ => {}
            }
        }
        s = &t[1..t.len() - 1];
    }
}

fn is_operand(s: &str) -> bool {
    s == "\\result"
        || (s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// A numeric literal, possibly signed and parenthesised (`-151`, `(22.8)`, `0x1p-3`, `1e5f`,
/// `10U`), `NAN` or `INFINITY`.
fn is_constant(s: &str) -> bool {
    let s = strip_parens(s);
    let s = s.trim_start_matches(['+', '-', ' ']);
    let s = strip_parens(s);
    if matches!(s, "NAN" | "INFINITY" | "HUGE_VAL") {
        return true;
    }
    s.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
}

/// Sign and magnitude of a constant as [`is_constant`] accepts it (parentheses and signs
/// stripped): `(true, "151")` for `(-151)`.
fn sign_and_magnitude(text: &str) -> (bool, &str) {
    let mut s = strip_parens(text.trim());
    let mut negative = false;
    loop {
        let t = s.trim_start();
        if let Some(rest) = t.strip_prefix('-') {
            negative = !negative;
            s = strip_parens(rest.trim_start());
        } else if let Some(rest) = t.strip_prefix('+') {
            s = strip_parens(rest.trim_start());
        } else {
            return (negative, t.trim_end());
        }
    }
}

/// The value of an integer constant as written in a witness (`-151`, `7U`, `0x1fL`, `017`),
/// before conversion to the receiving type. `None` for anything else (floats, out of range).
pub fn integer_value(text: &str) -> Option<i128> {
    let (negative, s) = sign_and_magnitude(text);
    let digits = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let magnitude = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u128::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u128::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<u128>().ok()?
    };
    let v = i128::try_from(magnitude).ok()?;
    Some(if negative { -v } else { v })
}

/// The IEEE bit pattern of a decimal floating constant as written in a witness (`22.5`, `-1e-5`,
/// `2.5f`, `INFINITY`) in `fty`, rounded to nearest. `None` for what Rust's parser does not read
/// (hexadecimal floats, `NAN`: a NaN has many patterns).
pub fn float_bits(text: &str, fty: crate::cfa::FloatTy) -> Option<u64> {
    let (negative, s) = sign_and_magnitude(text);
    let v: f64 = match s {
        "INFINITY" | "HUGE_VAL" => f64::INFINITY,
        _ if s.starts_with("0x") || s.starts_with("0X") => return None,
        _ => s.trim_end_matches(['f', 'F', 'l', 'L']).parse().ok()?,
    };
    let v = if negative { -v } else { v };
    if v.is_nan() {
        return None;
    }
    Some(match fty {
        // Decimal to binary32 directly (not through binary64: double rounding).
        crate::cfa::FloatTy::F32 => {
            let f: f32 = format!("{}{}", if negative { "-" } else { "" }, s.trim_end_matches(['f', 'F', 'l', 'L']))
                .parse()
                .unwrap_or(v as f32);
            f.to_bits() as u64
        }
        _ => v.to_bits(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::DataModel;
    use std::path::Path;

    /// The test vector of a GraphML witness whose chain of transitions is `edges`
    /// (line, assumption, result function), the last one into the violation node.
    fn vector_of(program: &str, edges: &[(u32, &str, Option<&str>)]) -> Result<TestVector, String> {
        let p = crate::cfront::build_program(Path::new("t.c"), program, DataModel::Lp64).expect("program");
        let mut g = String::from(
            r#"<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="entry" attr.name="entry" for="node"/><key id="violation" attr.name="violation" for="node"/>
<key id="startline" attr.name="startline" for="edge"/><key id="assumption" attr.name="assumption" for="edge"/>
<key id="assumption.resultfunction" attr.name="assumption.resultfunction" for="edge"/>
<graph edgedefault="directed"><data key="witness-type">violation_witness</data>
<node id="N0"><data key="entry">true</data></node><node id="V"><data key="violation">true</data></node>"#,
        );
        for (i, (line, a, rf)) in edges.iter().enumerate() {
            let to = if i + 1 == edges.len() { "V".to_string() } else { format!("N{}", i + 1) };
            if i + 1 < edges.len() {
                g.push_str(&format!("<node id=\"N{}\"/>", i + 1));
            }
            g.push_str(&format!("<edge source=\"N{i}\" target=\"{to}\"><data key=\"startline\">{line}</data>"));
            if !a.is_empty() {
                g.push_str(&format!("<data key=\"assumption\">{a}</data>"));
            }
            if let Some(f) = rf {
                g.push_str(&format!("<data key=\"assumption.resultfunction\">{f}</data>"));
            }
            g.push_str("</edge>");
        }
        g.push_str("</graph></graphml>");
        let w = crate::witness::graphml::read_graphml(Path::new("w.graphml"), g.as_bytes()).expect("witness");
        extract(&p.cfa, &w, &Anchors::new())
    }

    const PROGRAM: &str =
        "extern void reach_error(void);\nextern int __VERIFIER_nondet_int(void);\nint main(void) {\n  \
                           int x;\n  x = __VERIFIER_nondet_int();\n  while ((x = __VERIFIER_nondet_int()) > 0) x--;\n  \
                           if (x == -7) reach_error();\n  return 0;\n}\n";

    #[test]
    fn input_values_in_witness_path_order() {
        let v = vector_of(
            PROGRAM,
            &[
                (5, "x == 3", None),
                (6, "\\result == -7", Some("__VERIFIER_nondet_int")),
                (6, "x > 0", None),
                (7, "", None),
            ],
        )
        .expect("one vector");
        assert_eq!(v.values(), vec!["3".to_string(), "-7".to_string()]);
        assert_eq!(v.entries[0].variable.as_deref(), Some("x"));
        assert_eq!(v.entries[1].variable, None);
    }

    #[test]
    fn a_claim_on_a_line_with_other_steps_is_no_input_value() {
        // Line 6 also holds the loop condition and `x--`: `x == 5` there may describe any of them.
        let v = vector_of(PROGRAM, &[(6, "x == 5", None), (7, "", None)]).expect("one vector");
        assert!(v.entries.is_empty(), "{v:?}");
        // Not a nondet result: `\result` of another function, and a range.
        let v = vector_of(
            PROGRAM,
            &[(5, "\\result == 5", Some("f")), (5, "\\result &lt; 5", Some("__VERIFIER_nondet_int")), (7, "", None)],
        )
        .expect("one vector");
        assert!(v.entries.is_empty(), "{v:?}");
    }

    #[test]
    fn constants_as_values() {
        assert_eq!(integer_value("-151"), Some(-151));
        assert_eq!(integer_value("(-151)"), Some(-151));
        assert_eq!(integer_value("7U"), Some(7));
        assert_eq!(integer_value("0x1fL"), Some(31));
        assert_eq!(integer_value("017"), Some(15));
        assert_eq!(integer_value("0"), Some(0));
        assert_eq!(integer_value("4294967295UL"), Some(4294967295));
        assert_eq!(integer_value("- (3)"), Some(-3));
        assert_eq!(integer_value("2.5"), None);
        assert_eq!(integer_value("1e5"), None);
        use crate::cfa::FloatTy;
        assert_eq!(float_bits("2.5", FloatTy::F64), Some(2.5f64.to_bits()));
        assert_eq!(float_bits("-1e-5", FloatTy::F64), Some((-1e-5f64).to_bits()));
        assert_eq!(float_bits("(0.1f)", FloatTy::F32), Some(0.1f32.to_bits() as u64));
        assert_eq!(float_bits("-0.0", FloatTy::F32), Some((-0.0f32).to_bits() as u64));
        assert_eq!(float_bits("INFINITY", FloatTy::F64), Some(f64::INFINITY.to_bits()));
        assert_eq!(float_bits("NAN", FloatTy::F64), None);
        assert_eq!(float_bits("0x1p-3", FloatTy::F64), None);
    }

    #[test]
    fn equalities_with_constants() {
        assert_eq!(equality_with_constant("\\result == 5"), Some(("\\result".into(), "5".into())));
        assert_eq!(
            equality_with_constant("a == (22.822146805041292)"),
            Some(("a".into(), "22.822146805041292".into()))
        );
        assert_eq!(equality_with_constant("(x == -151)"), Some(("x".into(), "-151".into())));
        assert_eq!(equality_with_constant("x = 7U"), Some(("x".into(), "7U".into())));
        assert_eq!(equality_with_constant("3 == y"), Some(("y".into(), "3".into())));
        assert_eq!(equality_with_constant("x == 1e-5"), Some(("x".into(), "1e-5".into())));
        // Not single values: ranges, other variables, expressions.
        assert_eq!(equality_with_constant("\\result < 5"), None);
        assert_eq!(equality_with_constant("x == y"), None);
        assert_eq!(equality_with_constant("x + 1 == 5"), None);
        assert_eq!(equality_with_constant("(A_u.d) == (1.0)"), None);
        assert_eq!(equality_with_constant("x >= 5"), None);
        assert_eq!(equality_with_constant("x == 1 && y == 2"), None);
    }
}
