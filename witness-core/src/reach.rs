//! Which control-flow locations can still lead to a call of an error function: the product
//! drops states from which no error call is reachable (they can never confirm, and nothing
//! that happens on them can matter for a rejection).
//!
//! Context-insensitive and over-approximating: a call edge is also a summary edge to its return
//! location; a call through a pointer may call any function; a function's exit leads to every
//! location its calls return to. Every `Unsupported` edge counts as an error call: it may hide
//! a call, and the CFA after it need not have the real control flow (an unsupported branch
//! condition loses its branches), so the unknown it causes is kept. So does every `Error`
//! edge, whatever its kind (a failing `assert` stays unknown, decision 13).

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::cfa::{Cfa, EdgeOp, FuncId};

/// For each CFA location: can an error call be reached from it (within its function, through
/// calls, or after its function returns)?
pub struct ErrorReach {
    /// From the location, within its activation (calls included, returns not).
    inside: Vec<bool>,
    /// The location can reach its function's exit.
    exits: Vec<bool>,
}

impl ErrorReach {
    /// The one pruning of product states (issue 32 cause 2, decision 180): the locations from
    /// which a violation of `target` or one of `seeds` (the locations an observer must still
    /// see: invariant locations, a lasso's cycle head) may be reached. A violation may happen at
    /// any step for no-overflow and memory safety (decision 72) and for races; at any location
    /// for an error call when the program registers `atexit` handlers (they run after `main`
    /// returns, decision 76); at the cycle head for non-termination (every location when no
    /// seed names it); else at error calls and unsupported steps.
    pub fn pruning(cfa: &Cfa, target: &crate::property::ErrorTarget, seeds: &[NodeIndex]) -> ErrorReach {
        use crate::property::Shape;
        let handlers = || cfa.graph.edge_weights().any(|e| matches!(e.op, EdgeOp::AtExit { .. }));
        let everywhere = match target.shape() {
            Shape::Operation | Shape::Race => true,
            Shape::Lasso => seeds.is_empty(),
            Shape::ErrorCall => handlers(),
        };
        if everywhere {
            let n = cfa.graph.node_count();
            return ErrorReach { inside: vec![true; n], exits: vec![true; n] };
        }
        ErrorReach::towards(cfa, seeds)
    }

    /// Which locations can still reach one of `seeds` (besides error calls and unsupported
    /// steps, which always count).
    fn towards(cfa: &Cfa, seeds: &[NodeIndex]) -> ErrorReach {
        let n = cfa.graph.node_count();
        // Call edges by callee, and calls through pointers (which may call any function).
        let mut callers: Vec<Vec<NodeIndex>> = vec![Vec::new(); cfa.functions.len()];
        let mut indirect = Vec::new();
        let mut todo: Vec<NodeIndex> = seeds.to_vec();
        for e in cfa.graph.edge_references() {
            match &e.weight().op {
                EdgeOp::Error { .. } | EdgeOp::Unsupported { .. } => todo.push(e.source()),
                EdgeOp::Call { callee, .. } => callers[callee.0 as usize].push(e.source()),
                // A created thread runs its start routine (issue 22).
                // One through a pointer may start any function, as a call through one may
                // call any (decision 248).
                EdgeOp::ThreadCreate { routine, .. } => match routine.function() {
                    Some(r) => callers[r.0 as usize].push(e.source()),
                    None => indirect.push(e.source()),
                },
                EdgeOp::CallPtr { .. } => indirect.push(e.source()),
                _ => {}
            }
        }
        let entries: std::collections::HashMap<NodeIndex, FuncId> =
            cfa.functions.iter().enumerate().map(|(i, f)| (f.entry, FuncId(i as u32))).collect();
        // Backward propagation from the error edges, through call sites of functions that can
        // reach one.
        let mut inside = vec![false; n];
        let mut any_function = false;
        while let Some(x) = todo.pop() {
            if inside[x.index()] {
                continue;
            }
            inside[x.index()] = true;
            todo.extend(cfa.graph.edges_directed(x, Direction::Incoming).map(|e| e.source()));
            if let Some(f) = entries.get(&x) {
                todo.extend(callers[f.0 as usize].iter().copied());
                if !any_function {
                    any_function = true;
                    todo.extend(indirect.iter().copied());
                }
            }
        }
        let mut exits = vec![false; n];
        for f in &cfa.functions {
            let mut todo = vec![f.exit];
            while let Some(x) = todo.pop() {
                if !exits[x.index()] {
                    exits[x.index()] = true;
                    todo.extend(cfa.graph.edges_directed(x, Direction::Incoming).map(|e| e.source()));
                }
            }
        }
        ErrorReach { inside, exits }
    }

    /// Can a state at `loc`, whose calls return to `returns` (innermost last), still reach an
    /// error call?
    /// No pruning at all (the shortcut off, decision 237): every location may reach a violation.
    pub fn everywhere(cfa: &Cfa) -> ErrorReach {
        let n = cfa.graph.node_count();
        ErrorReach { inside: vec![true; n], exits: vec![true; n] }
    }

    pub fn may_reach(&self, loc: NodeIndex, returns: impl DoubleEndedIterator<Item = NodeIndex>) -> bool {
        if self.inside[loc.index()] {
            return true;
        }
        let mut at = loc;
        for r in returns.rev() {
            if !self.exits[at.index()] {
                return false;
            }
            if self.inside[r.index()] {
                return true;
            }
            at = r;
        }
        false
    }
}

/// Decision 213: the branches no run takes, whatever the state: `Assume` (and
/// `__VERIFIER_assume`) edges whose condition is 0 for every value its variables' types allow
/// (`s > 65025` for an `unsigned char s`). Only conditions built of integer variables,
/// constants, conversions, comparisons, logical operators and arithmetic that cannot overflow
/// a signed type are judged: nothing in them is undefined, so the branch is never taken in any
/// run (a condition that may be undefined is never called false). Each with the variables the
/// condition reads, for the reason that names it.
pub fn never_taken(cfa: &Cfa) -> Vec<(petgraph::graph::EdgeIndex, Vec<(crate::cfa::VarId, crate::cfa::IntTy)>)> {
    let mut out = Vec::new();
    for e in cfa.graph.edge_references() {
        let (EdgeOp::Assume { cond, .. } | EdgeOp::BuiltinAssume { cond }) = &e.weight().op else { continue };
        if value_range(cond) == Some((0, 0)) {
            let mut vars = Vec::new();
            read_vars(cond, &mut vars);
            out.push((e.id(), vars));
        }
    }
    out
}

/// The integer variables an expression reads, with their types, in order of first appearance.
fn read_vars(e: &crate::cfa::Expr, out: &mut Vec<(crate::cfa::VarId, crate::cfa::IntTy)>) {
    use crate::cfa::Expr;
    match e {
        Expr::Var { var, ty } => {
            if let Some(t) = ty.int().filter(|_| !out.iter().any(|(v, _)| v == var)) {
                out.push((*var, t));
            }
        }
        Expr::Cast { arg, .. } | Expr::Unary { arg, .. } => read_vars(arg, out),
        Expr::Binary { lhs, rhs, .. } => {
            read_vars(lhs, out);
            read_vars(rhs, out);
        }
        Expr::Ite { cond, then, els, .. } => {
            read_vars(cond, out);
            read_vars(then, out);
            read_vars(els, out);
        }
        _ => {}
    }
}

/// The full range of an integer type's bits (a `_Bool` object may hold any of them).
pub(crate) fn type_range(t: crate::cfa::IntTy) -> (i128, i128) {
    if t.signed {
        (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
    } else {
        (0, (1i128 << t.bits) - 1)
    }
}

/// Every value `e` can take, whatever the state, as a closed range; `None` when `e` is not an
/// integer expression of the judged kind, or may be undefined (signed overflow, a division,
/// a shift, a memory access).
pub(crate) fn value_range(e: &crate::cfa::Expr) -> Option<(i128, i128)> {
    use crate::cfa::{BinOp, Expr, ScalarTy, UnOp};
    let truth = |r: (i128, i128)| match r {
        (0, 0) => Some(false),
        (lo, hi) if lo > 0 || hi < 0 => Some(true),
        _ => None,
    };
    let boolean = |b: Option<bool>| match b {
        Some(true) => (1, 1),
        Some(false) => (0, 0),
        None => (0, 1),
    };
    let int = |ty: &ScalarTy| ty.int();
    match e {
        Expr::Const { bits, ty } => {
            let v = crate::semantics::value::as_i128(*bits, int(ty)?);
            Some((v, v))
        }
        Expr::Var { ty, .. } => Some(type_range(int(ty)?)),
        Expr::Cast { arg, to } => {
            let t = int(to)?;
            let r = value_range(arg)?;
            if t.is_bool {
                return Some(boolean(truth(r)));
            }
            let full = type_range(t);
            Some(if r.0 >= full.0 && r.1 <= full.1 { r } else { full })
        }
        Expr::Unary { op, arg, ty } => {
            let t = int(ty)?;
            let r = value_range(arg)?;
            let full = type_range(t);
            match op {
                UnOp::LogNot => Some(boolean(truth(r).map(|b| !b))),
                UnOp::Neg if t.signed => (r.0 > full.0).then_some((-r.1, -r.0)),
                UnOp::Neg => Some(if r == (0, 0) { r } else { full }),
                UnOp::BitNot if t.signed => Some((-r.1 - 1, -r.0 - 1)),
                UnOp::BitNot => Some((full.1 - r.1, full.1 - r.0)),
            }
        }
        Expr::Binary { op, lhs, rhs, ty } => {
            let t = int(ty)?;
            let (a, b) = (value_range(lhs)?, value_range(rhs)?);
            let arith = |lo: i128, hi: i128| {
                let full = type_range(t);
                if lo >= full.0 && hi <= full.1 {
                    Some((lo, hi))
                } else if t.signed {
                    None // may overflow: undefined
                } else {
                    Some(full) // wraps
                }
            };
            match op {
                BinOp::Add => arith(a.0 + b.0, a.1 + b.1),
                BinOp::Sub => arith(a.0 - b.1, a.1 - b.0),
                BinOp::Mul => {
                    let p =
                        [a.0.checked_mul(b.0)?, a.0.checked_mul(b.1)?, a.1.checked_mul(b.0)?, a.1.checked_mul(b.1)?];
                    arith(*p.iter().min()?, *p.iter().max()?)
                }
                BinOp::BitAnd if a.0 >= 0 && b.0 >= 0 => Some((0, a.1.min(b.1))),
                BinOp::Eq if a.1 < b.0 || b.1 < a.0 => Some((0, 0)),
                BinOp::Eq if a.0 == a.1 && a == b => Some((1, 1)),
                BinOp::Ne if a.1 < b.0 || b.1 < a.0 => Some((1, 1)),
                BinOp::Ne if a.0 == a.1 && a == b => Some((0, 0)),
                BinOp::Eq | BinOp::Ne => Some((0, 1)),
                BinOp::Lt => Some(boolean(if a.1 < b.0 { Some(true) } else { (a.0 >= b.1).then_some(false) })),
                BinOp::Le => Some(boolean(if a.1 <= b.0 { Some(true) } else { (a.0 > b.1).then_some(false) })),
                BinOp::Gt => Some(boolean(if a.0 > b.1 { Some(true) } else { (a.1 <= b.0).then_some(false) })),
                BinOp::Ge => Some(boolean(if a.0 >= b.1 { Some(true) } else { (a.1 < b.0).then_some(false) })),
                BinOp::LogAnd => Some(boolean(match (truth(a), truth(b)) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                })),
                BinOp::LogOr => Some(boolean(match (truth(a), truth(b)) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                })),
                _ => None,
            }
        }
        Expr::Ite { cond, then, els, ty } => {
            int(ty)?;
            let (c, a, b) = (value_range(cond)?, value_range(then)?, value_range(els)?);
            Some(match truth(c) {
                Some(true) => a,
                Some(false) => b,
                None => (a.0.min(b.0), a.1.max(b.1)),
            })
        }
        _ => None,
    }
}

/// The locations a run may reach from `from` when the `excluded` edges are never taken: context-insensitive (a call leads to its callee's entry and, as a summary, to its
/// return location; a call through a pointer to every function; `atexit` to its handler).
/// `None` when a reachable step is unsupported or starts a thread (its effect on control is not
/// modelled here).
pub fn reachable_without(
    cfa: &Cfa,
    from: NodeIndex,
    excluded: &std::collections::HashSet<petgraph::graph::EdgeIndex>,
) -> Option<Vec<bool>> {
    let mut seen = vec![false; cfa.graph.node_count()];
    let mut todo = vec![from];
    let mut any_function = false;
    while let Some(x) = todo.pop() {
        if std::mem::replace(&mut seen[x.index()], true) {
            continue;
        }
        for e in cfa.graph.edges(x) {
            if excluded.contains(&e.id()) {
                continue;
            }
            match &e.weight().op {
                EdgeOp::Unsupported { .. } | EdgeOp::ThreadCreate { .. } => return None,
                EdgeOp::Call { callee, .. } => todo.push(cfa.function(*callee).entry),
                EdgeOp::AtExit { handler, .. } => todo.push(cfa.function(*handler).entry),
                EdgeOp::CallPtr { .. } if !any_function => {
                    any_function = true;
                    todo.extend(cfa.functions.iter().map(|f| f.entry));
                }
                _ => {}
            }
            todo.push(e.target());
        }
    }
    Some(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::DataModel;

    fn build(src: &str) -> Cfa {
        crate::cfront::build_program(std::path::Path::new("t.c"), src, DataModel::Ilp32)
            .map(|p| p.cfa)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The location where the statement with this text starts.
    fn at(cfa: &Cfa, text: &str) -> NodeIndex {
        cfa.graph
            .edge_references()
            .find(|e| e.weight().text.starts_with(text))
            .map(|e| e.source())
            .unwrap_or_else(|| panic!("no edge `{text}`"))
    }

    #[test]
    fn locations_after_the_last_error_call_cannot_reach_it() {
        let cfa = build(
            "void reach_error(void); int f(int x) { if (x) reach_error(); return x; }\n\
             int main() { int a = 1; f(a); int b = 2; return b; }",
        );
        let r = ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[]);
        assert!(r.may_reach(cfa.start, std::iter::empty()));
        assert!(r.may_reach(at(&cfa, "int a = 1"), std::iter::empty()));
        assert!(!r.may_reach(at(&cfa, "int b = 2"), std::iter::empty()));
        // Inside f after the test, the error is behind; but f's caller continues.
        let ret = at(&cfa, "return x");
        assert!(!r.may_reach(ret, std::iter::empty()));
        assert!(!r.may_reach(ret, std::iter::once(at(&cfa, "int b = 2"))));
        let f = cfa.function_by_name("f").expect("f");
        assert!(r.may_reach(cfa.function(f).entry, std::iter::empty()));
    }

    #[test]
    fn error_after_a_return_is_reachable_through_the_call_stack() {
        let cfa = build(
            "void reach_error(void); int g(int x) { return x + 1; }\n\
             int main() { int a = g(1); if (a == 2) reach_error(); return 0; }",
        );
        let r = ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[]);
        let ret = at(&cfa, "return x + 1");
        let site = cfa
            .graph
            .edge_references()
            .find(|e| matches!(e.weight().op, EdgeOp::Call { .. }))
            .map(|e| e.target())
            .expect("the call of g");
        assert!(!r.may_reach(ret, std::iter::empty()));
        assert!(r.may_reach(ret, std::iter::once(site)));
    }

    #[test]
    fn global_declaration_steps_lead_to_main() {
        let cfa = build("void reach_error(void); int g = 1; int h;\nint main() { if (g) reach_error(); return h; }");
        let r = ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[]);
        let globals: Vec<_> =
            cfa.graph.edge_references().filter(|e| matches!(e.weight().op, EdgeOp::GlobalDeclaration)).collect();
        assert_eq!(globals.len(), 2);
        assert_eq!(globals[0].source(), cfa.start);
        assert!(globals.iter().all(|e| r.may_reach(e.source(), std::iter::empty())));
        assert!(globals.iter().all(|e| r.may_reach(e.target(), std::iter::empty())));
        let safe = build("void reach_error(void); int g = 1;\nint main() { return g; }");
        assert!(!ErrorReach::pruning(&safe, &crate::property::ErrorTarget::default_reach(), &[])
            .may_reach(safe.start, std::iter::empty()));
    }

    #[test]
    fn no_error_call_at_all() {
        let cfa = build("void reach_error(void); int main() { int a = 1; return a; }");
        assert!(!ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[])
            .may_reach(cfa.start, std::iter::empty()));
    }

    #[test]
    fn calls_through_pointers_and_unsupported_steps_may_hide_an_error() {
        // `bad` is named in an initializer, so its body is parsed (decision 61).
        let cfa = build(
            "void reach_error(void); void bad(void) { reach_error(); } void ok(void) {}\n\
             void (*table[])(void) = { ok, bad };\n\
             int main() { void (*fp)(void) = ok; fp(); return 0; }",
        );
        assert!(ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[])
            .may_reach(cfa.start, std::iter::empty()));
        // An unsupported statement (here a struct return value) may be a call that errs.
        let cfa = build(
            "struct s { int a; }; struct s mk(void);\n\
             int main() { struct s v; v = mk(); return 0; }",
        );
        assert!(ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[])
            .may_reach(cfa.start, std::iter::empty()));
        // An unsupported branch condition loses its branches, and with them the error call.
        let cfa =
            build("void reach_error(void); int n; int main() { int a[n]; if (a[0] == 8) reach_error(); return 0; }");
        assert!(ErrorReach::pruning(&cfa, &crate::property::ErrorTarget::default_reach(), &[])
            .may_reach(cfa.start, std::iter::empty()));
    }

    /// The texts of the branches [`never_taken`] finds.
    fn never(src: &str) -> Vec<String> {
        let cfa = build(src);
        never_taken(&cfa).iter().map(|(e, _)| cfa.edge(*e).text.clone()).collect()
    }

    #[test]
    fn a_branch_false_for_every_value_of_its_types_is_never_taken() {
        let head = "void reach_error(void); unsigned char u(void); int i(void); int main() {";
        // Out of the type's range, after promotion to `int`.
        assert_eq!(
            never(&format!("{head} unsigned char s = u(); if (s > 65025) reach_error(); return 0; }}")),
            ["[s > 65025]"]
        );
        // Within the range: may be taken; its negation is taken always, never "never".
        assert!(never(&format!("{head} unsigned char s = u(); if (s > 200) reach_error(); return 0; }}")).is_empty());
        // Arithmetic that cannot overflow is judged; `s + 1 > 256` is false for every `s`.
        assert_eq!(
            never(&format!("{head} unsigned char s = u(); if (s + 1 > 256) reach_error(); return 0; }}")),
            ["[s + 1 > 256]"]
        );
        // Signed arithmetic that may overflow is undefined for some values: never judged.
        assert!(never(&format!("{head} int x = i(); if (x + 1 < x) reach_error(); return 0; }}")).is_empty());
        // Unsigned arithmetic wraps: any value of the type.
        assert!(never(&format!("{head} unsigned x = i(); if (x + 1u < x) reach_error(); return 0; }}")).is_empty());
        // A conversion that changes the value gives the whole target range: `(unsigned)-1` is large.
        assert!(never(&format!("{head} int x = i(); if ((unsigned)x > 4000000000u) reach_error(); return 0; }}"))
            .is_empty());
        // Both sides of `&&`: one false side makes the whole false.
        assert_eq!(
            never(&format!(
                "{head} int x = i(); unsigned char s = u(); if (x > 0 && s < 0) reach_error(); return 0; }}"
            ))
            .len(),
            1
        );
        // A memory access is never judged (it may be undefined).
        assert!(never(&format!("{head} unsigned char a[2]; int k = i(); if (a[k] > 300) reach_error(); return 0; }}"))
            .is_empty());
    }
}
