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
                EdgeOp::ThreadCreate { routine, .. } => callers[routine.0 as usize].push(e.source()),
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
}
