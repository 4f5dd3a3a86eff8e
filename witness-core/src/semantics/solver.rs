//! The Z3 solver as the product uses it: feasibility of a path condition, models for traces,
//! a wall-clock deadline and a call counter.

use std::time::Instant;

use std::collections::HashSet;

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Params, SatResult, Solver};

/// Answer of a feasibility query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feasibility {
    Feasible,
    Infeasible,
    /// The solver gave up (time-out or incompleteness).
    Unknown,
}

/// Z3 solvers plus bookkeeping.
pub struct Smt {
    /// QF_BV solver (bit-blasting tactics): faster than the general one on the integer queries.
    /// Created on first use: creating Z3's context costs milliseconds, and a run whose values
    /// stay concrete never needs it.
    solver: Option<Solver>,
    /// QF_FPBV solver, for programs with floating-point values (created on first use).
    fp_solver: Option<Solver>,
    /// Use `fp_solver` for every query (the program has floating-point values).
    pub floats: bool,
    deadline: Instant,
    /// Number of `check` calls made.
    pub calls: u64,
}

impl Smt {
    pub fn new(deadline: Instant) -> Smt {
        Smt { solver: None, fp_solver: None, floats: false, deadline, calls: 0 }
    }

    fn active(&mut self) -> &Solver {
        if self.floats {
            self.fp_solver.get_or_insert_with(|| Solver::new_for_logic("QF_FPBV").unwrap_or_default())
        } else {
            self.solver.get_or_insert_with(|| Solver::new_for_logic("QF_BV").unwrap_or_default())
        }
    }

    /// Runs the check; a QF_BV solver that gives up before the deadline (a query with
    /// floating-point terms, e.g. from a witness literal) is retried once with the FP solver.
    fn run(&mut self, path: &[Bool], extra: &[&Bool]) -> SatResult {
        let r = self.active().check();
        if r != SatResult::Unknown || self.floats || Instant::now() >= self.deadline {
            return r;
        }
        self.floats = true;
        if !self.prepare(path, extra) {
            return SatResult::Unknown;
        }
        self.calls += 1;
        self.active().check()
    }

    fn prepare(&mut self, path: &[Bool], extra: &[&Bool]) -> bool {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return false;
        }
        let mut p = Params::new();
        p.set_u32("timeout", remaining.as_millis().clamp(1, u32::MAX as u128) as u32);
        let solver = self.active();
        solver.set_params(&p);
        solver.reset();
        for c in path {
            solver.assert(c);
        }
        for c in extra {
            solver.assert(*c);
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
        match self.run(path, extra) {
            SatResult::Sat => Feasibility::Feasible,
            SatResult::Unsat => Feasibility::Infeasible,
            SatResult::Unknown => Feasibility::Unknown,
        }
    }

    /// A model of `path` (None where it is unsatisfiable or the solver failed).
    fn model(&mut self, path: &[Bool]) -> Option<z3::Model> {
        if !self.prepare(path, &[]) {
            return None;
        }
        self.calls += 1;
        if self.run(path, &[]) != SatResult::Sat {
            return None;
        }
        self.active().get_model()
    }

    /// A model of `path`, evaluated on `terms` (None where the solver failed).
    pub fn model_values(&mut self, path: &[Bool], terms: &[BV]) -> Option<Vec<u64>> {
        let model = self.model(path)?;
        terms.iter().map(|t| model.eval(t, true).and_then(|v| v.as_u64())).collect()
    }

    /// Decisions 58/59: with every other symbol fixed to one model of `path`, does `path` hold
    /// for **every** value of the approximate symbols in their domains? `Some(true)`: yes (the
    /// path is real whatever those values are); `Some(false)`: no; `None`: the solver gave up.
    pub fn holds_for_all(&mut self, path: &[Bool], approx: &[(BV, Bool)]) -> Option<bool> {
        let model = self.model(path)?;
        let approx_syms: HashSet<Dynamic> = approx.iter().map(|(s, _)| Dynamic::from_ast(s)).collect();
        let mut consts = Vec::new();
        let mut seen = HashSet::new();
        let mut todo: Vec<Dynamic> = path.iter().map(|c| Dynamic::from_ast(c)).collect();
        while let Some(t) = todo.pop() {
            if !seen.insert(t.clone()) || !t.is_app() {
                continue;
            }
            if t.is_const() {
                if t.decl().kind() == z3::DeclKind::UNINTERPRETED && !approx_syms.contains(&t) {
                    consts.push(t);
                }
                continue;
            }
            todo.extend(t.children());
        }
        let mut values = Vec::new();
        for c in &consts {
            values.push(model.eval(c, true)?);
        }
        let pairs: Vec<(&Dynamic, &Dynamic)> = consts.iter().zip(values.iter()).collect();
        let all = Bool::and(path).substitute(&pairs);
        let domain = Bool::and(&approx.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>());
        match self.check(&[], &[&domain, &all.not()]) {
            Feasibility::Infeasible => Some(true),
            Feasibility::Feasible => Some(false),
            Feasibility::Unknown => None,
        }
    }
}
