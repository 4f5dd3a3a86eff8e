//! Partial-order reduction for multi-threaded runs (issue 22, decision 155; issue 32 causes
//! 10-12, decision 176). A thread whose every next step is *local* — it reads and writes only
//! its own frame's variables whose address the program never takes (an object whose address
//! escaped may be read or written by any thread), takes no lock, creates or joins no thread,
//! calls and returns from nothing, enters no cut point — and *invisible* — no witness transition
//! that can still fire may match it, nor be disabled by it (a statement waypoint at the location
//! the step leaves) — commutes with every step of every other thread and leaves the witness
//! automaton where it is. Exploring only that thread's steps at such a state (an ample set) then
//! reaches the same states, up to the order of independent steps, as exploring every thread:
//! rejections stay sound. Local steps never enter a cut point (a loop head or the target of any
//! other back edge, such as a `goto` loop's), and every cycle of a function passes one, so no
//! cycle of the product consists of reduced steps only (the proviso that keeps other threads
//! from being postponed forever).

use super::*;
use crate::cfa::{Expr, Init, Place, VarScope};

/// Is `v` a variable of the running frame that no other thread can reach?
fn private_var(cfa: &Cfa, v: crate::cfa::VarId) -> bool {
    let info = cfa.var(v);
    matches!(info.scope, VarScope::Local(_)) && !info.address_taken
}

/// Does `e` read only private locals (of the function the step runs in) and constants?
fn local_expr(cfa: &Cfa, e: &Expr) -> bool {
    match e {
        Expr::Const { ty: ScalarTy::Int(_), .. } => true,
        Expr::Var { var, ty: ScalarTy::Int(_), .. } => private_var(cfa, *var),
        Expr::Unary { arg, ty: ScalarTy::Int(_), .. } | Expr::Cast { arg, to: ScalarTy::Int(_), .. } => {
            local_expr(cfa, arg)
        }
        Expr::Binary { lhs, rhs, ty: ScalarTy::Int(_), .. } => local_expr(cfa, lhs) && local_expr(cfa, rhs),
        Expr::Ite { cond, then, els, ty: ScalarTy::Int(_), .. } => {
            local_expr(cfa, cond) && local_expr(cfa, then) && local_expr(cfa, els)
        }
        _ => false,
    }
}

/// Is the step local to its thread (see the module comment)?
fn local_step(cfa: &Cfa, e: &CfaEdge) -> bool {
    let local_var = |v: &crate::cfa::VarId| private_var(cfa, *v);
    match &e.op {
        EdgeOp::Blank => true,
        EdgeOp::Assign { lhs: Place::Var { var, .. }, rhs } if rhs.int_ty().is_some() => {
            local_var(var) && local_expr(cfa, rhs)
        }
        EdgeOp::Assume { cond, .. } => local_expr(cfa, cond),
        EdgeOp::Declare { var, init } => {
            local_var(var)
                && match init {
                    None | Some(Init::Zero) => true,
                    Some(Init::Scalar(x)) => local_expr(cfa, x),
                    Some(_) => false,
                }
        }
        _ => false,
    }
}

impl<'a> Explorer<'a> {
    /// The CFA's cut points (cached): loop heads and the targets of other back edges.
    fn cut_points(&mut self) -> Rc<HashSet<NodeIndex>> {
        let cfa = self.cfa;
        self.cuts.get_or_insert_with(|| Rc::new(super::invariants::cut_points(cfa))).clone()
    }

    /// The transitions that can still fire from witness state `q` (cached per state).
    fn live_transitions(&mut self, q: NodeIndex) -> Rc<Vec<EdgeIndex>> {
        if let Some(t) = self.live.get(&q) {
            return t.clone();
        }
        let w = self.witness;
        let mut seen = HashSet::new();
        let mut todo = vec![q];
        let mut out = Vec::new();
        while let Some(n) = todo.pop() {
            if !seen.insert(n) {
                continue;
            }
            for t in w.graph.edges_directed(n, Direction::Outgoing) {
                out.push(t.id());
                todo.push(t.target());
            }
        }
        let out = Rc::new(out);
        self.live.insert(q, out.clone());
        out
    }

    /// May transition `t` match the local step `e` from `source` to `target`, or may the step
    /// disable it (conservatively: yes when unsure)?
    /// `left` and `entered` are the blank closures of the step's source and target.
    fn may_match(&self, t: EdgeIndex, e: &CfaEdge, left: &[NodeIndex], entered: &[NodeIndex]) -> bool {
        // Leaving the location of a statement waypoint passes it by (cause 12), whatever the
        // step is: the waypoint cannot be matched at this visit any more.
        if let Some(ResolvedAnchor::Statement { nodes, .. }) = self.anchors.get(&t) {
            if left.iter().any(|n| nodes.contains(n)) {
                return true;
            }
        }
        // A blank edge without a place is matched against nothing (`expand_running`).
        if matches!(e.op, EdgeOp::Blank) && e.span.is_none() {
            return false;
        }
        let tr = &self.witness.graph[t];
        match self.anchors.get(&t) {
            Some(ResolvedAnchor::Statement { nodes, .. }) => entered.iter().any(|n| nodes.contains(n)),
            Some(ResolvedAnchor::Branching { construct }) => {
                e.decision.as_ref().is_some_and(|d| d.construct == *construct)
            }
            // Calls, returns and error calls: a local step is none of them.
            Some(_) => false,
            None if tr.guard.anchor.is_some() => true,
            None => match (tr.guard.lines, e.span) {
                // A GraphML transition with lines matches only steps on them; a blank edge
                // without a place matches no transition with lines.
                (Some(l), Some(sp)) => l.overlaps(sp.start_line as u64, sp.end_line as u64),
                (Some(_), None) => false,
                // Without lines (only a thread id, or nothing): it may match anything.
                (None, _) => true,
            },
        }
    }

    /// The thread whose steps alone may be explored at `s` (see the module comment), if any.
    pub(super) fn ample_thread(&mut self, s: &ProductState, runnable: &[u32]) -> Option<u32> {
        // Decision 246: not in a search that checks invariants (a correctness witness): its
        // declaration has no direction for one, and no reduction may lose a run of it.
        if !self.opts.shortcuts.allows(crate::shortcuts::Shortcut::PartialOrder)
            || self.observer.is_some()
            || runnable.len() < 2
            || self.opts.target.race()
            || self.opts.reading.loosens_matching()
            || !self.opts.reading.follows_automaton()
        {
            return None;
        }
        let th = s.threads.as_ref()?;
        let cfa = self.cfa;
        let cuts = self.cut_points();
        let live = self.live_transitions(s.witness);
        // The most recently run thread first (it is the one explored first anyway).
        'threads: for &id in runnable.iter().rev() {
            let Some((loc, stack)) = th.place_of(s, id) else { continue };
            let function = stack.last().map(|c| c.callee).unwrap_or(cfa.main);
            if loc == cfa.function(function).exit {
                continue;
            }
            let mut any = false;
            // Blank closures matter only to statement waypoints; GraphML witnesses have none.
            let statements = live.iter().any(|t| matches!(self.anchors.get(t), Some(ResolvedAnchor::Statement { .. })));
            let closure = |n: NodeIndex| if statements { cfa.blank_closure(n) } else { Vec::new() };
            let left = closure(loc);
            for e in cfa.graph.edges_directed(loc, Direction::Outgoing) {
                any = true;
                let target = e.target();
                if !local_step(cfa, e.weight()) || cuts.contains(&target) {
                    continue 'threads;
                }
                let entered = closure(target);
                if live.iter().any(|&t| self.may_match(t, e.weight(), &left, &entered)) {
                    continue 'threads;
                }
            }
            if any {
                self.used = self.used.with(crate::shortcuts::Shortcut::PartialOrder);
                return Some(id);
            }
        }
        None
    }
}
