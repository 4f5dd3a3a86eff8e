//! The Z3 solver as the product uses it: feasibility of a path condition, models for traces,
//! a wall-clock deadline and a call counter.

use crate::budget::{Clock, Deadline};

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::mem::ManuallyDrop;

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Params, SatResult, Solver, Tactic};

/// Answer of a feasibility query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feasibility {
    Feasible,
    Infeasible,
    /// The solver gave up (time-out or incompleteness).
    Unknown,
}

/// Resource units (Z3's deterministic `rlimit`) the quick solver may spend on one query. Easy
/// queries (most of a witness's) need far fewer; a query that needs more goes to the tactic
/// solver, which is stronger on hard bit-vector arithmetic.
const QUICK_RLIMIT: u32 = 20_000;

/// Give-ups of the quick solver after which a run's queries go to the tactic solver only: on a
/// program whose queries are hard, every attempt would cost its resource limit for nothing.
const QUICK_MAX_GIVE_UPS: u32 = 4;

/// Time-outs of the bit-blasting solver after which a run's queries skip it.
const BLAST_MAX_GIVE_UPS: u32 = 3;

/// Most conjuncts the queries [`ANSWERS`] keeps may hold together (a few tens of MiB at most);
/// past it, it starts again empty.
const MAX_ANSWER_TERMS: usize = 1 << 20;

thread_local! {
    /// The answers Z3 gave in this thread, by query (its conjuncts in order). The searches of one
    /// validation ask many queries again: the bounded refutations from 2, 4, 8 and 16 cut points
    /// repeat each other's paths, the base cases of k = 1..4 repeat the first k's, and fresh
    /// symbols are named by their path, so a path explored again builds the same terms (Z3's terms
    /// are shared within a thread: equal terms are one term). A query is a formula, its answer
    /// holds whatever the program and the search that asks it; only Sat and Unsat are kept, never
    /// a give-up. `ManuallyDrop`: the terms are never released at the thread's end, when Z3's
    /// context of the thread may already be gone.
    static ANSWERS: RefCell<ManuallyDrop<Answers>> = RefCell::new(ManuallyDrop::new(Answers::default()));
}

/// See [`ANSWERS`].
#[derive(Default)]
struct Answers {
    known: HashMap<Vec<Bool>, Feasibility>,
    /// The conjuncts of the queries in `known`.
    terms: usize,
}

/// Decision 240: one Z3 check with a time limit at a time in the process. Z3 4.8.12 (the
/// version the setup installs) runs every time limit, a solver's `timeout` and a tactic's
/// `try_for`, on a pool of timer threads shared by the process, whose hand-back of a worker
/// races with the worker still running (fixed after 4.8.12, Z3 pull request 5371): two threads
/// checking with time limits corrupted the heap (the soak's two workers on long runs, within
/// minutes; one worker ran 810 s clean). A validation checks on one thread, so the command line
/// never waits here; threads in one process (the soak's workers, parallel tests) take turns.
fn timed_check<R>(check: impl FnOnce() -> R) -> R {
    static TIMERS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = TIMERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    check()
}

/// Z3 solvers plus bookkeeping.
pub struct Smt {
    /// QF_BV solver (bit-blasting tactics): faster than the general one on the integer queries.
    /// Created on first use: creating Z3's context costs milliseconds, and a run whose values
    /// stay concrete never needs it.
    solver: Option<Solver>,
    /// QF_FPBV solver, for programs with floating-point values (created on first use).
    fp_solver: Option<Solver>,
    /// Decision 71: an incremental solver tried first on every integer query, each in a scope of
    /// its own and within [`QUICK_RLIMIT`] resource units; when it gives up, `solver` decides.
    quick: Option<Solver>,
    /// `quick` holds the scope of the last query (popped by the next one).
    quick_scoped: bool,
    /// Queries the quick solver gave up on; after [`QUICK_MAX_GIVE_UPS`] it is not asked again.
    quick_give_ups: u32,
    /// Queries the bit-blasting solver ran out of time on (after [`BLAST_MAX_GIVE_UPS`], skipped).
    blast_give_ups: u32,
    /// Use `fp_solver` for every query (the program has floating-point values).
    pub floats: bool,
    deadline: Deadline,
    /// Number of `check` calls made.
    pub calls: u64,
}

impl Smt {
    pub fn new(deadline: Deadline) -> Smt {
        Smt {
            solver: None,
            fp_solver: None,
            quick: None,
            quick_scoped: false,
            quick_give_ups: 0,
            blast_give_ups: 0,
            floats: false,
            deadline,
            calls: 0,
        }
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
    fn run(&mut self, query: &[Bool]) -> SatResult {
        let r = self.check_within();
        if r != SatResult::Unknown || self.floats || self.deadline.passed() {
            return r;
        }
        self.floats = true;
        if !self.prepare(query) {
            return SatResult::Unknown;
        }
        self.calls += 1;
        self.check_within()
    }

    /// The active solver's check within the deadline. Z3's `timeout` counts wall-clock time: on
    /// the CPU clock (decision 175) a query it stopped before the process spent its CPU budget
    /// goes on with the budget left.
    fn check_within(&mut self) -> SatResult {
        loop {
            let r = timed_check(|| self.active().check());
            if r != SatResult::Unknown || self.deadline.clock() != Clock::Cpu || self.deadline.passed() {
                return r;
            }
            let why = self.active().get_reason_unknown().unwrap_or_default();
            if !(why.contains("timeout") || why.contains("canceled")) {
                return r;
            }
            let Some(p) = self.params() else { return r };
            self.active().set_params(&p);
        }
    }

    fn prepare(&mut self, query: &[Bool]) -> bool {
        let Some(p) = self.params() else { return false };
        let solver = self.active();
        solver.set_params(&p);
        solver.reset();
        query.iter().for_each(|c| solver.assert(c));
        true
    }

    /// Solver parameters for a query: the time left until the deadline (`None`: none left).
    fn params(&self) -> Option<Params> {
        let remaining = self.deadline.remaining();
        if remaining.is_zero() {
            return None;
        }
        let mut p = Params::new();
        p.set_u32("timeout", remaining.as_millis().clamp(1, u32::MAX as u128) as u32);
        Some(p)
    }

    /// Decision 71: the quick solver's answer to `path ∧ extra` (with a model if `model` and
    /// satisfiable), or `None` when it gives up (resource limit) or floats are involved.
    fn quick(&mut self, path: &[Bool], extra: &[&Bool], model: bool) -> Option<(SatResult, Option<z3::Model>)> {
        if self.floats || self.quick_give_ups >= QUICK_MAX_GIVE_UPS {
            return None;
        }
        let mut p = self.params()?;
        p.set_u32("rlimit", QUICK_RLIMIT);
        let scoped = std::mem::replace(&mut self.quick_scoped, true);
        let solver = self.quick.get_or_insert_with(|| Solver::new_for_logic("QF_BV").unwrap_or_default());
        if scoped {
            solver.pop(1);
        }
        solver.set_params(&p);
        solver.push();
        assert_all(solver, path, extra);
        self.calls += 1;
        match timed_check(|| solver.check()) {
            SatResult::Unknown => {
                self.quick_give_ups += 1;
                None
            }
            SatResult::Sat if model => Some((SatResult::Sat, Some(solver.get_model()?))),
            r => Some((r, None)),
        }
    }

    /// Decision 208: a query the quick solver gave up on goes to a solver made of Z3's
    /// preprocessing tactics, `bit-blast` and `sat` (Z3's `qfbv` without its `aig` step) for at
    /// most half of the time left, before the general QF_BV solver: Z3 4.8.12's QF_BV solver does
    /// not decide 64-bit linear bounds with a constant factor (`s + v <= (i + 1) * 4294967295`, the
    /// induction step of SV-COMP's `linear-inequality-inv-d`) in 40 s, which this one decides in
    /// about a second. `None`: it gave up (time, or a term it cannot blast: arrays), or floats are
    /// involved.
    fn blast(&mut self, query: &[Bool], model: bool) -> Option<(SatResult, Option<z3::Model>)> {
        if self.floats || self.blast_give_ups >= BLAST_MAX_GIVE_UPS {
            return None;
        }
        let slice = self.deadline.remaining() / 2;
        if slice.is_zero() {
            return None;
        }
        let tactic = ["propagate-values", "solve-eqs", "elim-uncnstr", "max-bv-sharing", "bit-blast", "sat"]
            .iter()
            .fold(Tactic::new("simplify"), |t, next| t.and_then(&Tactic::new(next)))
            .try_for(slice);
        let solver = tactic.solver();
        let mut p = Params::new();
        p.set_u32("timeout", slice.as_millis().clamp(1, u32::MAX as u128) as u32);
        solver.set_params(&p);
        query.iter().for_each(|c| solver.assert(c));
        self.calls += 1;
        match timed_check(|| solver.check()) {
            SatResult::Unknown => {
                let why = solver.get_reason_unknown().unwrap_or_default();
                if why.contains("timeout") || why.contains("canceled") {
                    self.blast_give_ups += 1;
                }
                None
            }
            SatResult::Sat if model => Some((SatResult::Sat, Some(solver.get_model()?))),
            r => Some((r, None)),
        }
    }

    /// Is `path ∧ extra` satisfiable? An answer given before in this thread is not asked again.
    pub fn check(&mut self, path: &[Bool], extra: &[&Bool]) -> Feasibility {
        if extra.iter().any(|c| c.as_bool() == Some(false)) {
            return Feasibility::Infeasible;
        }
        if path.is_empty() && extra.iter().all(|c| c.as_bool() == Some(true)) {
            return Feasibility::Feasible;
        }
        let query: Vec<Bool> = path.iter().cloned().chain(extra.iter().map(|c| (*c).clone())).collect();
        if let Some(known) = ANSWERS.with(|a| a.borrow().known.get(&query).copied()) {
            return known;
        }
        let answer = self.decide(path, extra);
        if answer != Feasibility::Unknown {
            ANSWERS.with(|a| {
                let mut a = a.borrow_mut();
                if a.terms + query.len() > MAX_ANSWER_TERMS {
                    a.known.clear();
                    a.terms = 0;
                }
                a.terms += query.len();
                a.known.insert(query, answer);
            });
        }
        answer
    }

    /// Z3's answer to `path ∧ extra`: the quick solver, the bit-blasting one, the general one.
    fn decide(&mut self, path: &[Bool], extra: &[&Bool]) -> Feasibility {
        let query = match self.quick(path, extra, false) {
            Some((SatResult::Sat, _)) => return Feasibility::Feasible,
            Some((SatResult::Unsat, _)) => return Feasibility::Infeasible,
            _ => blasting_form(path, extra),
        };
        match self.blast(&query, false) {
            Some((SatResult::Sat, _)) => return Feasibility::Feasible,
            Some((SatResult::Unsat, _)) => return Feasibility::Infeasible,
            _ => {}
        }
        if !self.prepare(&query) {
            return Feasibility::Unknown;
        }
        self.calls += 1;
        match self.run(&query) {
            SatResult::Sat => Feasibility::Feasible,
            SatResult::Unsat => Feasibility::Infeasible,
            SatResult::Unknown => Feasibility::Unknown,
        }
    }

    /// A model of `path` (None where it is unsatisfiable or the solver failed).
    fn model(&mut self, path: &[Bool]) -> Option<z3::Model> {
        let query = match self.quick(path, &[], true) {
            Some((SatResult::Sat, m)) => return m,
            Some((SatResult::Unsat, _)) => return None,
            _ => blasting_form(path, &[]),
        };
        match self.blast(&query, true) {
            Some((SatResult::Sat, m)) => return m,
            Some((SatResult::Unsat, _)) => return None,
            _ => {}
        }
        if !self.prepare(&query) {
            return None;
        }
        self.calls += 1;
        if self.run(&query) != SatResult::Sat {
            return None;
        }
        self.active().get_model()
    }

    /// A model of `path`, evaluated on `terms` (None where the solver failed).
    pub fn model_values(&mut self, path: &[Bool], terms: &[BV]) -> Option<Vec<u64>> {
        self.model_each(path, terms)?.into_iter().collect()
    }

    /// A model of `path`, evaluated on each of `terms` (None for a term the model gives no
    /// 64-bit value; the whole None when the solver gave no model).
    pub fn model_each(&mut self, path: &[Bool], terms: &[BV]) -> Option<Vec<Option<u64>>> {
        let model = self.model(path)?;
        Some(terms.iter().map(|t| model.eval(t, true).and_then(|v| v.as_u64())).collect())
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

/// The uninterpreted constants (symbols) of some formulas, with their names.
pub fn symbols(terms: &[Bool]) -> Vec<(String, Dynamic)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut todo: Vec<Dynamic> = terms.iter().map(|c| Dynamic::from_ast(c)).collect();
    while let Some(t) = todo.pop() {
        if !seen.insert(t.clone()) || !t.is_app() {
            continue;
        }
        if t.is_const() {
            if t.decl().kind() == z3::DeclKind::UNINTERPRETED {
                out.push((t.decl().name(), t));
            }
            continue;
        }
        todo.extend(t.children());
    }
    out
}

/// The query as the solvers that bit-blast it whole get it (once per query): its products by
/// constants as shifted sums (decision 229). The quick solver gets it as built.
fn blasting_form(path: &[Bool], extra: &[&Bool]) -> Vec<Bool> {
    let query: Vec<Bool> = path.iter().cloned().chain(extra.iter().map(|c| (*c).clone())).collect();
    super::csd::rewrite(&query).unwrap_or(query)
}

fn assert_all(solver: &Solver, path: &[Bool], extra: &[&Bool]) {
    for c in path {
        solver.assert(c);
    }
    for c in extra {
        solver.assert(*c);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use z3::ast::{Bool, BV};

    use super::{Feasibility, Smt};

    /// Decision 71: one query after another in scopes of the quick solver; each answer and
    /// model must be that of its own query (a scope left over would add its constraints).
    #[test]
    fn queries_in_turn_are_independent_and_models_fit() {
        let mut smt = Smt::new(crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(30)));
        let a = BV::new_const("a", 32);
        let b = BV::new_const("b", 32);
        let hundred = BV::from_u64(100, 32);
        let path: Vec<Bool> = vec![a.bvsgt(&b), a.bvsle(&hundred)];
        let overflow = a.bvadd(&b).bvslt(&a);
        assert_eq!(smt.check(&path, &[&overflow]), Feasibility::Feasible);
        let both = [a.eq(BV::from_u64(7, 32)), a.eq(BV::from_u64(8, 32))];
        assert_eq!(smt.check(&path, &[&both[0], &both[1]]), Feasibility::Infeasible);
        // The previous query's `a == 7 ∧ a == 8` must not linger.
        assert_eq!(smt.check(&path, &[&both[0]]), Feasibility::Feasible);
        let m = smt.model_values(&path, &[a.clone(), b.clone()]).expect("satisfiable");
        let (va, vb) = (m[0] as u32 as i32, m[1] as u32 as i32);
        assert!(va > vb && va <= 100, "a = {va}, b = {vb}");
        assert_eq!(smt.check(&[], &[&a.bvsgt(&hundred), &a.bvslt(&hundred)]), Feasibility::Infeasible);
        assert!(smt.calls >= 4);
    }

    /// A query asked again in the same thread is answered without Z3, by a solver of another
    /// search too; a query that differs in one conjunct is asked.
    #[test]
    fn a_query_asked_again_is_not_asked_of_z3() {
        let deadline = || crate::budget::Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(30));
        let a = BV::new_const("answers_a", 32);
        let path = vec![a.bvugt(BV::from_u64(7, 32))];
        let below = |n| a.bvult(BV::from_u64(n, 32));
        let mut first = Smt::new(deadline());
        assert_eq!(first.check(&path, &[&below(9)]), Feasibility::Feasible);
        assert!(first.calls >= 1);
        let mut second = Smt::new(deadline());
        assert_eq!(second.check(&path, &[&below(9)]), Feasibility::Feasible);
        assert_eq!(second.calls, 0);
        assert_eq!(second.check(&path, &[&below(8)]), Feasibility::Infeasible);
        assert!(second.calls >= 1);
    }
}
