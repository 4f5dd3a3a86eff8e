//! Data races (issue 22, property no-data-race). The YAML 2.2 draft writes a race as a last
//! segment of two `target` waypoints of different threads, the racing accesses. The reader
//! turns it into two transitions in a row into the violation node; here they are read together:
//! the witness confirms at a state its run reaches before them in which the thread of each
//! waypoint is about to take a step at its location, the two steps access one global variable
//! and at least one of them writes it. Both steps are enabled at once, so no synchronisation
//! (program order, create, join, a mutex, an atomic section) orders them: under sequential
//! consistency that is a data race. Accesses are read from the steps' text: integer globals
//! by name; a step that accesses memory otherwise (through a pointer, an array element, a
//! float) makes the claim undecided (`unknown`), never a guess.

use super::*;
use crate::cfa::{Init, Place, VarId, VarScope};

/// The integer globals a step reads and writes (thread-local ones are no shared memory), or
/// `None` when it accesses memory in a way this check does not read.
fn accesses(cfa: &Cfa, op: &EdgeOp) -> Option<(Vec<VarId>, Vec<VarId>)> {
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    let shared = |v: &VarId| cfa.var(*v).scope == VarScope::Global && !cfa.thread_locals.contains(v);
    fn expr(e: &crate::cfa::Expr, out: &mut Vec<VarId>, shared: &dyn Fn(&VarId) -> bool) -> Option<()> {
        use crate::cfa::Expr as E;
        match e {
            E::Const { ty: ScalarTy::Int(_), .. } | E::WitnessResult { ty: ScalarTy::Int(_) } => Some(()),
            E::Var { var, ty: ScalarTy::Int(_) } => {
                if shared(var) {
                    out.push(*var);
                }
                Some(())
            }
            E::Unary { arg, ty: ScalarTy::Int(_), .. } | E::Cast { arg, to: ScalarTy::Int(_) } => {
                expr(arg, out, shared)
            }
            E::Binary { lhs, rhs, ty: ScalarTy::Int(_), .. } => {
                expr(lhs, out, shared)?;
                expr(rhs, out, shared)
            }
            E::Ite { cond, then, els, ty: ScalarTy::Int(_) } => {
                expr(cond, out, shared)?;
                expr(then, out, shared)?;
                expr(els, out, shared)
            }
            _ => None,
        }
    }
    let write = |lv: &Place, writes: &mut Vec<VarId>| -> Option<()> {
        match lv {
            Place::Var { var, .. } => {
                if shared(var) {
                    writes.push(*var);
                }
                Some(())
            }
            _ => None,
        }
    };
    match op {
        EdgeOp::Blank
        | EdgeOp::GlobalDeclaration
        | EdgeOp::ProgramStart
        | EdgeOp::Error { .. }
        | EdgeOp::ThreadJoin { .. }
        | EdgeOp::ThreadExit
        | EdgeOp::Atomic { .. } => {}
        EdgeOp::Assign { lhs, rhs } if rhs.int_ty().is_some() => {
            write(lhs, &mut writes)?;
            expr(rhs, &mut reads, &shared)?;
        }
        EdgeOp::Assume { cond, .. } | EdgeOp::BuiltinAssume { cond } => expr(cond, &mut reads, &shared)?,
        EdgeOp::Declare { init, .. } => match init {
            None | Some(Init::Zero) => {}
            Some(Init::Scalar(e)) if e.int_ty().is_some() => expr(e, &mut reads, &shared)?,
            Some(_) => return None,
        },
        EdgeOp::NondetCall { lhs, .. } | EdgeOp::ThreadSelf { lhs } | EdgeOp::Mutex { lhs, .. } => {
            if let Some(lv) = lhs {
                write(lv, &mut writes)?;
            }
        }
        EdgeOp::Return { value, writes: w } if w.is_empty() => match value {
            None => {}
            Some(e) if e.int_ty().is_some() => expr(e, &mut reads, &shared)?,
            Some(_) => return None,
        },
        EdgeOp::Call { args, .. } => {
            for a in args {
                a.int_ty()?;
                expr(a, &mut reads, &shared)?;
            }
        }
        _ => return None,
    }
    Some((reads, writes))
}

impl<'a> Explorer<'a> {
    /// The race the witness names from state `q`: the transitions of its two accesses.
    fn race_pair(&self, q: NodeIndex) -> Option<(EdgeIndex, EdgeIndex)> {
        let w = self.witness;
        let is_target = |t: EdgeIndex| matches!(self.anchors.get(&t), Some(ResolvedAnchor::Target { .. }));
        w.graph.edges_directed(q, Direction::Outgoing).find_map(|t1| {
            if !is_target(t1.id()) || w.graph[t1.target()].violation {
                return None;
            }
            w.graph
                .edges_directed(t1.target(), Direction::Outgoing)
                .find(|t2| is_target(t2.id()) && w.graph[t2.target()].violation)
                .map(|t2| (t1.id(), t2.id()))
        })
    }

    /// The thread a transition's thread id names in `th`, if any.
    fn named_thread(&self, t: EdgeIndex, th: &Threads) -> Option<u32> {
        th.named(self.witness.graph[t].guard.thread_id.as_deref()?)
    }

    /// The steps a thread at `loc` may take next at the place of target transition `t` (the
    /// statement's first character), looking through blank edges.
    fn steps_at(&self, loc: NodeIndex, t: EdgeIndex) -> Vec<EdgeIndex> {
        let Some(ResolvedAnchor::Target { offsets }) = self.anchors.get(&t) else { return Vec::new() };
        let cfa = self.cfa;
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut todo = vec![loc];
        while let Some(n) = todo.pop() {
            if !seen.insert(n) || seen.len() > 64 {
                continue;
            }
            for e in cfa.graph.edges_directed(n, Direction::Outgoing) {
                let edge = e.weight();
                match edge.span {
                    Some(sp) if offsets.contains(&sp.start_offset) => out.push(e.id()),
                    None if matches!(edge.op, EdgeOp::Blank) => todo.push(e.target()),
                    _ => {}
                }
            }
        }
        out
    }

    /// Decides the race the witness names at `state` (its automaton at the state before the two
    /// accesses): a confirmation, or `None` (the run goes on; undecided claims are noted).
    pub(super) fn race_at(&mut self, state: &ProductState) -> Option<Verdict> {
        let (t1, t2) = self.race_pair(state.witness)?;
        let th = state.threads.as_ref()?;
        // An access inside an atomic section races with an unprotected one (the digest: "not
        // both atomic"; issue 32 cause 15). Two threads are never both inside atomic sections,
        // so two accesses about to happen at one state are never both atomic.
        let (a, b) = (self.named_thread(t1, th)?, self.named_thread(t2, th)?);
        if a == b {
            return None;
        }
        let (la, lb) = (th.place_of(state, a)?.0, th.place_of(state, b)?.0);
        let cfa = self.cfa;
        for ea in self.steps_at(la, t1) {
            for eb in self.steps_at(lb, t2) {
                let (Some((ra, wa)), Some((rb, wb))) =
                    (accesses(cfa, &cfa.edge(ea).op), accesses(cfa, &cfa.edge(eb).op))
                else {
                    self.give_up(format!(
                        "the race the witness names between `{}` and `{}` accesses memory this validator does not \
                         check for races (a pointer, an array element or a float)",
                        cfa.edge(ea).text,
                        cfa.edge(eb).text
                    ));
                    continue;
                };
                // One memory location: the same variable, or bit-fields of one run (cause 13).
                let same = |x: &VarId, y: &VarId| {
                    x == y || cfa.var(*x).bitfield_unit.is_some_and(|u| cfa.var(*y).bitfield_unit == Some(u))
                };
                let meets = |v: &VarId, list: &[VarId]| list.iter().any(|w| same(v, w));
                let conflict = wa.iter().find(|v| meets(v, &rb) || meets(v, &wb)).or(wb.iter().find(|v| meets(v, &ra)));
                if let Some(v) = conflict {
                    let line = |e: EdgeIndex| cfa.edge(e).span.map_or(0, |s| s.start_line);
                    let what = format!(
                        "data race on `{}`: thread {a} at line {} (`{}`) and thread {b} at line {} (`{}`) are both about \
                         to access it, at least one writing",
                        cfa.var(*v).name,
                        line(ea),
                        cfa.edge(ea).text,
                        line(eb),
                        cfa.edge(eb).text
                    );
                    self.violated = Some("no-data-race");
                    // The accesses, for a refined witness (issue 32 cause 18).
                    let access = |thread: u32, e: EdgeIndex| {
                        let edge = cfa.edge(e);
                        Some(crate::verdict::RaceAccess {
                            thread,
                            span: edge.span?,
                            function: cfa.function(edge.function).name.clone(),
                        })
                    };
                    self.race = access(a, ea).zip(access(b, eb)).map(|(x, y)| [x, y]);
                    let mut s = state.clone();
                    s.witness = self.witness.graph.edge_endpoints(t2).map_or(s.witness, |(_, v)| v);
                    return Some(self.confirm(&s, what));
                }
            }
        }
        None
    }
}
