//! The Z3 solver as the product uses it: feasibility of a path condition, models for traces,
//! a wall-clock deadline and a call counter.

use std::time::Instant;

use z3::ast::{Bool, BV};
use z3::{Params, SatResult, Solver};

/// Answer of a feasibility query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feasibility {
    Feasible,
    Infeasible,
    /// The solver gave up (time-out or incompleteness).
    Unknown,
}

/// One Z3 solver plus bookkeeping.
pub struct Smt {
    solver: Solver,
    deadline: Instant,
    /// Number of `check` calls made.
    pub calls: u64,
}

impl Smt {
    pub fn new(deadline: Instant) -> Smt {
        // A QF_BV solver (bit-blasting tactics) answers these queries faster than the general one.
        let solver = Solver::new_for_logic("QF_BV").unwrap_or_default();
        Smt { solver, deadline, calls: 0 }
    }

    fn prepare(&mut self, path: &[Bool], extra: &[&Bool]) -> bool {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return false;
        }
        let mut p = Params::new();
        p.set_u32("timeout", remaining.as_millis().clamp(1, u32::MAX as u128) as u32);
        self.solver.set_params(&p);
        self.solver.reset();
        for c in path {
            self.solver.assert(c);
        }
        for c in extra {
            self.solver.assert(*c);
        }
        true
    }

    /// Is `path ∧ extra` satisfiable?
    pub fn check(&mut self, path: &[Bool], extra: &[&Bool]) -> Feasibility {
        if extra.iter().any(|c| c.as_bool() == Some(false)) {
            return Feasibility::Infeasible;
        }
        if path.is_empty() && extra.iter().all(|c| c.as_bool() == Some(true)) {
            return Feasibility::Feasible;
        }
        if !self.prepare(path, extra) {
            return Feasibility::Unknown;
        }
        self.calls += 1;
        match self.solver.check() {
            SatResult::Sat => Feasibility::Feasible,
            SatResult::Unsat => Feasibility::Infeasible,
            SatResult::Unknown => Feasibility::Unknown,
        }
    }

    /// A model of `path`, evaluated on `terms` (None where the solver failed).
    pub fn model_values(&mut self, path: &[Bool], terms: &[BV]) -> Option<Vec<u64>> {
        if !self.prepare(path, &[]) {
            return None;
        }
        self.calls += 1;
        if self.solver.check() != SatResult::Sat {
            return None;
        }
        let model = self.solver.get_model()?;
        terms.iter().map(|t| model.eval(t, true).and_then(|v| v.as_u64())).collect()
    }
}
