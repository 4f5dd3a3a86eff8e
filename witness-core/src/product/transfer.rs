//! The transfer function: one CFA step on a product state's data (every `EdgeOp`), the
//! property checks of each step, and the undefined-behaviour policy.

use super::*;
use crate::cfa::MutexOp;

impl<'a> Explorer<'a> {
    /// Decisions 72 and 73: the conditions that guard against the property's violations
    /// (signed overflow; invalid dereference or free) are the property, not undefined behaviour
    /// to exclude. Where one may fail, the state in which it does becomes a pending violation
    /// (the caller matches the step against the witness) and the path goes on where none
    /// happens; `None` if it does not go on. A possible overflow of a signed `<<` is left unknown
    /// (a modelling gap): the definitions disagree on whether it is an overflow. The other
    /// conditions are returned.
    pub(super) fn property_violations(
        &mut self,
        state: &mut ProductState,
        defined: Vec<Definedness>,
        span: Option<SourceSpan>,
    ) -> Option<Vec<Definedness>> {
        use crate::property::Classified;
        let mut rest = Vec::new();
        // Per property: the conjunction of its conditions and what they guard against.
        let mut groups: Vec<(&'static str, Truth, Vec<String>)> = Vec::new();
        for d in defined {
            let property = match d.violation_kind().map(|k| self.opts.target.on_condition(k)) {
                Some(Classified::Violation(property)) => property,
                Some(Classified::Undecided(why)) => {
                    rest.push(Definedness { unmodelled: true, what: format!("{} ({why})", d.what), ..d });
                    continue;
                }
                _ => {
                    rest.push(d);
                    continue;
                }
            };
            if matches!(d.holds, Truth::Known(true)) {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == property) {
                Some(g) => {
                    g.1 = g.1.and(&d.holds);
                    g.2.push(d.what);
                }
                None => groups.push((property, d.holds.clone(), vec![d.what])),
            }
        }
        let mut ok = Truth::Known(true);
        for (property, holds, what) in groups {
            match &holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    self.pending_violations.push((state.clone(), what.join(", "), property, Vec::new()));
                    return None;
                }
                Truth::Sym(c) => match self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) {
                    Feasibility::Feasible => {
                        let mut v = state.clone();
                        self.add_constraint(&mut v, c.not());
                        self.pending_violations.push((v, what.join(", "), property, Vec::new()));
                    }
                    Feasibility::Infeasible => {}
                    Feasibility::Unknown => self.give_up(format!(
                        "solver could not decide whether {} is possible at {}",
                        what.join(", "),
                        self.line_of(span)
                    )),
                },
            }
            ok = ok.and(&holds);
        }
        self.assume(state, ok, span).then_some(rest)
    }

    /// Decision 74, a block lost during the run (valid-memtrack): the successors `out[from..]` of `before` that
    /// are in a violation state and in which a live block became unreachable by this step
    /// (nothing reaches it any more: an overwritten pointer, a returning function's locals, a
    /// freed block that held the last pointer) confirm the property's violation, if it counts
    /// lost blocks.
    pub(super) fn lost_block_violation(
        &mut self,
        before: &ProductState,
        out: &[ProductState],
        from: usize,
        span: Option<SourceSpan>,
    ) -> Option<Verdict> {
        let property = self.opts.target.on_lost_block()?;
        let candidates: Vec<usize> =
            (from..out.len()).filter(|&i| self.witness.graph[out[i].witness].violation).collect();
        if candidates.is_empty() {
            return None;
        }
        let Some(lost_before) = before.data.lost_blocks(before.returned.as_ref()) else {
            self.give_up(format!(
                "not modelled: whether memory is lost at {} (an address was converted to an integer)",
                self.line_of(span)
            ));
            return None;
        };
        for i in candidates {
            let s = &out[i];
            let Some(lost) = s.data.lost_blocks(s.returned.as_ref()) else { continue };
            if let Some(n) = lost.iter().find(|n| !lost_before.contains(n)) {
                let by = s.data.heap.get(n).map(|b| b.function.clone()).unwrap_or_default();
                let blocks = named_blocks(s, &[*n]);
                let s = s.clone();
                if !self.approx_settled(&s, "the error is reached") {
                    continue;
                }
                self.violated = Some(property);
                return Some(self.confirm_leak(&s, format!("the last pointer to a block from `{by}` is lost"), blocks));
            }
        }
        None
    }

    /// Decision 74: the leak the property counts when the program ends in `s` (the property and
    /// what is lost), if any.
    /// `frames_live`: the program ends inside its functions (`exit`, `abort`), whose locals
    /// still reach blocks, as LeakSanitizer scans the stack at exit; after `main` returned only
    /// the globals do.
    pub(super) fn leak(
        &mut self,
        s: &ProductState,
        frames_live: bool,
    ) -> Option<(&'static str, String, Vec<crate::verdict::LostBlock>)> {
        let crate::property::LeakRule { property, from_globals } = self.opts.target.on_end()?;
        let blocks = if from_globals && frames_live {
            s.data.lost_blocks(None).map(|b| b.into_iter().collect::<Vec<u32>>())
        } else {
            s.data.leaked_blocks(from_globals)
        };
        let Some(blocks) = blocks else {
            self.give_up(
                "not modelled: whether memory is lost at the end of the program (an address was converted to an \
                 integer)"
                    .into(),
            );
            return None;
        };
        let n = *blocks.first()?;
        let by = s.data.heap.get(&n).map(|b| b.function.clone()).unwrap_or_default();
        let how = if from_globals { "unreachable" } else { "still allocated" };
        let what = format!("a block from `{by}` {how} at the end of the program ({} such blocks)", blocks.len());
        Some((property, what, named_blocks(s, &blocks)))
    }

    /// Decision 76: at the end of the program, the state that runs the last registered `atexit`
    /// handler not run yet (its return leads back to the end, `main`'s exit), if there is one.
    pub(super) fn run_atexit_handler(&mut self, s: &ProductState) -> Option<ProductState> {
        let cfa = self.cfa;
        let (handler, registered) = *s.atexit.last()?;
        let mut next = s.clone();
        Rc::make_mut(&mut next.atexit).pop();
        next.stack = Rc::new(vec![CallSite {
            callee: handler,
            call_edge: registered,
            return_loc: cfa.function(cfa.main).exit,
            lhs: None,
        }]);
        if let Err(EvalError::Unsupported(w)) = next.data.push_frame(cfa, handler, &[]) {
            self.give_up(format!("{w} (the `atexit` handler `{}`)", cfa.function(handler).name));
            return None;
        }
        next.loc = cfa.function(handler).entry;
        Some(next)
    }

    /// The program ends in `s` by returning from `main` (or after `exit`'s handlers): confirmed
    /// if the automaton is in a violation state and the property counts a leak here
    /// (decision 74).
    pub(super) fn leak_at_end(&mut self, s: &ProductState) -> Option<Verdict> {
        if !self.witness.graph[s.witness].violation {
            return None;
        }
        let (property, what, blocks) = self.leak(s, s.exiting)?;
        if !self.approx_settled(s, "the error is reached") {
            return None;
        }
        self.violated = Some(property);
        Some(self.confirm_leak(s, what, blocks))
    }

    /// Applies the UB side conditions of a step: definite UB ends the path (unknown); possible
    /// UB is excluded with a warning, or recorded as a reason for unknown, as the policy says
    /// (decision 22), and the path continues under the condition that it does not happen.
    /// Returns false if the path ends.
    pub(super) fn settle_definedness(
        &mut self,
        state: &mut ProductState,
        defined: Vec<Definedness>,
        span: Option<SourceSpan>,
    ) -> bool {
        let mut all = Truth::Known(true);
        let mut what = Vec::new();
        let defined = if self.collecting_violations {
            let Some(rest) = self.property_violations(state, defined, span) else { return false };
            rest
        } else {
            defined
        };
        let (gaps, defined): (Vec<_>, Vec<_>) = defined.into_iter().partition(|d| d.unmodelled);
        for g in gaps {
            // A modelling gap: where it may fail, the path is unknown whatever the policy; the
            // path goes on where it holds.
            match &g.holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    self.give_up(format!("not modelled: {} at {}", g.what, self.line_of(span)));
                    return false;
                }
                Truth::Sym(c) => {
                    match self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) {
                        Feasibility::Infeasible => continue,
                        Feasibility::Feasible => {
                            self.give_up(format!("not modelled: {} at {}", g.what, self.line_of(span)))
                        }
                        Feasibility::Unknown => self.give_up(format!(
                            "solver could not decide whether {} at {}",
                            g.what,
                            self.line_of(span)
                        )),
                    }
                    if !self.assume(state, g.holds.clone(), span) {
                        return false;
                    }
                }
            }
        }
        for d in defined {
            match &d.holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    self.give_up(format!("undefined behaviour ({}) at {}", d.what, self.line_of(span)));
                    return false;
                }
                Truth::Sym(_) => {
                    what.push(d.what.clone());
                    all = all.and(&d.holds);
                }
            }
        }
        let Truth::Sym(ok) = all else { return true };
        let may_fail = self.smt.check(&state.data.path.conjuncts(), &[&ok.not()]);
        if may_fail != Feasibility::Infeasible && self.layout_dependent(state, &ok) {
            self.give_up(format!(
                "not modelled: whether {} happens depends on where objects lie in memory at {}",
                what.join(", "),
                self.line_of(span)
            ));
            return false;
        }
        match may_fail {
            Feasibility::Infeasible => true,
            Feasibility::Unknown => {
                self.give_up(format!(
                    "solver could not decide whether {} is possible at {}",
                    what.join(", "),
                    self.line_of(span)
                ));
                false
            }
            Feasibility::Feasible => {
                let line = self.line_of(span);
                if !self.opts.reading.follows_automaton() {
                    // A test-vector run must be exact: no execution of it may have undefined behaviour.
                    self.give_up(format!("possible undefined behaviour ({}) at {line}", what.join(", ")));
                    return false;
                }
                match self.opts.undefined {
                    UndefinedBehaviour::Unknown => {
                        self.give_up(format!("possible undefined behaviour ({}) at {line}", what.join(", ")));
                    }
                    UndefinedBehaviour::Exclude => self.warn(format!(
                        "possible undefined behaviour ({}) at {line}: executions that have it are excluded \
                         (the task is assumed free of undefined behaviour; --undefined-behaviour unknown \
                         answers unknown instead)",
                        what.join(", ")
                    )),
                }
                match self.smt.check(&state.data.path.conjuncts(), &[&ok]) {
                    Feasibility::Feasible => {
                        state.data.constrain(ok);
                        true
                    }
                    Feasibility::Infeasible => {
                        // Every execution of this path has undefined behaviour here.
                        self.give_up(format!("undefined behaviour ({}) at {line}", what.join(", ")));
                        false
                    }
                    Feasibility::Unknown => {
                        self.give_up(format!("solver could not decide a path condition at {line}"));
                        false
                    }
                }
            }
        }
    }

    /// Adds a branch condition; false if the path becomes infeasible.
    pub(super) fn assume(&mut self, state: &mut ProductState, t: Truth, span: Option<SourceSpan>) -> bool {
        match t {
            Truth::Known(b) => b,
            Truth::Sym(c) if self.layout_dependent(state, &c) => {
                // Decided only if it holds, or fails, for every layout the path allows.
                if self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) == Feasibility::Infeasible {
                    return true;
                }
                if self.smt.check(&state.data.path.conjuncts(), &[&c]) == Feasibility::Infeasible {
                    return false;
                }
                self.give_up(format!(
                    "not modelled: a condition that depends on where objects lie in memory (an address \
                     converted to an integer) at {}",
                    self.line_of(span)
                ));
                false
            }
            Truth::Sym(c) => match self.smt.check(&state.data.path.conjuncts(), &[&c]) {
                Feasibility::Feasible if !self.opts.reading.follows_automaton() => {
                    // A test-vector run must be exact: its inputs decide every branch. A
                    // condition that can go both ways depends on something they leave open
                    // (an uninitialised variable, a value not pinned): the run is not followed.
                    match self.smt.check(&state.data.path.conjuncts(), &[&c.not()]) {
                        Feasibility::Infeasible => true,
                        _ => {
                            self.give_up(format!(
                                "the test-vector run's condition at {} depends on a value the witness's inputs leave \
                                 open (e.g. an uninitialised variable)",
                                self.line_of(span)
                            ));
                            false
                        }
                    }
                }
                Feasibility::Feasible => {
                    self.add_constraint(state, c);
                    true
                }
                Feasibility::Infeasible => false,
                Feasibility::Unknown => {
                    self.give_up(format!("solver could not decide a branch at {}", self.line_of(span)));
                    false
                }
            },
        }
    }

    /// Whether a condition involves the address of an object converted to an integer
    /// (decision 51).
    pub(super) fn layout_dependent(&self, state: &ProductState, c: &Bool) -> bool {
        !state.data.layout.is_empty() && crate::semantics::memory::mentions_layout(c)
    }

    /// Adds a constraint to the path; a constraint pinning a symbol to a constant is applied
    /// as a substitution so that the rest of the path runs concretely.
    pub(super) fn add_constraint(&mut self, state: &mut ProductState, c: Bool) {
        // Z3 normalises `(x == 5 ? 1 : 0) != 0` to `x == 5`.
        let c = if pinned_symbol(&c).is_none() { z3::ast::Ast::simplify(&c) } else { c };
        if let Some((sym, val)) = pinned_symbol(&c) {
            state.data.constrain(c);
            state.data.substitute(&sym, &val);
            match &mut state.returned {
                Some(AnyValue::Int(v)) => {
                    if let Val::Sym(t) = &v.val {
                        let t = z3::ast::Ast::substitute(t, &[(&sym, &val)]);
                        *v = Value::sym(t, v.ty);
                    }
                }
                Some(AnyValue::Float(v)) => {
                    if let FVal::Sym(t) = &v.val {
                        let t = z3::ast::Ast::substitute(t, &[(&sym, &val)]);
                        *v = FValue::sym(t, v.fty);
                    }
                }
                Some(AnyValue::Ptr(p)) => {
                    if let Val::Sym(t) = &p.offset.val {
                        let t = z3::ast::Ast::substitute(t, &[(&sym, &val)]);
                        p.offset = Value::sym(t, p.offset.ty);
                    }
                }
                None => {}
            }
        } else {
            state.data.constrain(c);
        }
    }

    /// The function a call through `fptr` calls in `state`; `None` (with the reason recorded)
    /// when the pointer is not certainly a function with a body whose parameters take `args`.
    pub(super) fn resolve_call(
        &mut self,
        state: &ProductState,
        fptr: &crate::cfa::Expr,
        args: &[crate::cfa::Expr],
        span: Option<SourceSpan>,
    ) -> Option<crate::cfa::FuncId> {
        let cfa = self.cfa;
        let mut data = state.data.clone();
        let mut defined = Vec::new();
        let p = match data.eval_ptr(cfa, fptr, None, &mut defined) {
            Ok(p) => p,
            Err(e) => {
                let w = e.message();
                self.give_up(format!("{w} at {}", self.line_of(span)));
                return None;
            }
        };
        if let Some(d) = defined.iter().find(|d| !matches!(d.holds, Truth::Known(true))) {
            self.give_up(format!("call through a function pointer: possible {} at {}", d.what, self.line_of(span)));
            return None;
        }
        let callee = match (p.obj, p.offset.known()) {
            (crate::semantics::Obj::Func(f), Some(0)) => f,
            (crate::semantics::Obj::Null, _) => {
                self.give_up(format!("undefined behaviour (call through a null pointer) at {}", self.line_of(span)));
                return None;
            }
            _ => {
                self.give_up(format!(
                    "undefined behaviour (call through a pointer that is not a function) at {}",
                    self.line_of(span)
                ));
                return None;
            }
        };
        let f = cfa.function(callee);
        let fits = f.params.len() == args.len()
            && f.params.iter().zip(args).all(|(p, a)| match (&cfa.var(*p).ty, a) {
                (crate::cfa::CType::Int(t), e) => Some(*t) == e.int_ty(),
                (crate::cfa::CType::Float(t), e) => Some(*t) == e.float_ty(),
                (crate::cfa::CType::Ptr, e) => e.ty() == ScalarTy::Ptr,
                _ => false,
            });
        if !fits {
            self.give_up(format!(
                "call of `{}` through a pointer of another function type at {}",
                f.name,
                self.line_of(span)
            ));
            return None;
        }
        Some(callee)
    }

    /// Executes one CFA edge on the data state.
    pub(super) fn execute(&mut self, state: &ProductState, e: EdgeIndex, edge: &CfaEdge, target: NodeIndex) -> Step {
        let cfa = self.cfa;
        let mut next = state.clone();
        next.loc = target;
        let span = edge.span;
        self.recorded.clear();
        macro_rules! unsupported {
            ($w:expr) => {{
                let w = $w;
                self.give_up(format!("{w} at {}", self.line_of(span)));
                return Step::End;
            }};
        }
        macro_rules! settle {
            ($r:expr) => {
                match $r {
                    Ok(defined) => {
                        if !self.settle_definedness(&mut next, defined, span) {
                            return Step::End;
                        }
                    }
                    Err(e) => unsupported!(e.message()),
                }
            };
        }
        macro_rules! eval {
            ($e:expr) => {
                match next.data.eval(cfa, $e, None) {
                    Ok(ev) => {
                        if !self.settle_definedness(&mut next, ev.defined, span) {
                            return Step::End;
                        }
                        ev.value
                    }
                    Err(e) => unsupported!(e.message()),
                }
            };
        }
        macro_rules! aeval {
            ($e:expr) => {{
                let mut defined = Vec::new();
                let v = match next.data.eval_any(cfa, $e, None, &mut defined) {
                    Ok(v) => v,
                    Err(e) => unsupported!(e.message()),
                };
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                v
            }};
        }
        macro_rules! peval {
            ($e:expr) => {{
                let mut defined = Vec::new();
                let v = match next.data.eval_ptr(cfa, $e, None, &mut defined) {
                    Ok(v) => v,
                    Err(e) => unsupported!(e.message()),
                };
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                v
            }};
        }
        let mut result = None;
        match &edge.op {
            // Static storage is initialised before the program starts (`global_inits`).
            EdgeOp::Blank | EdgeOp::GlobalDeclaration => {}
            EdgeOp::ProgramStart => {
                if let Err(EvalError::Unsupported(w)) = next.data.push_main_frame(cfa) {
                    unsupported!(w)
                }
            }
            EdgeOp::Declare { var, init } => {
                settle!(next.data.initialise(cfa, *var, init.as_ref()));
                if init.is_some() {
                    self.record_declared(&mut next.data, *var);
                }
            }
            EdgeOp::Assign { lhs, rhs } => {
                let v = aeval!(rhs);
                self.record_write(&mut next.data, lhs, &v);
                match v {
                    AnyValue::Int(v) => settle!(next.data.assign(cfa, lhs, &v, None)),
                    AnyValue::Float(v) => settle!(next.data.assign_flv(cfa, lhs, &v, None)),
                    AnyValue::Ptr(v) => settle!(next.data.assign_ptr(cfa, lhs, &v)),
                }
            }
            EdgeOp::AssignAll { writes } => {
                if !self.write_all(&mut next, writes, span) {
                    return Step::End;
                }
            }
            EdgeOp::FloatNondetCall { function, lhs, fty } => {
                let (v, bits) = match self.guess_input(&mut next, edge, target) {
                    Some(text) => {
                        let b = crate::testvec::float_bits(&text, *fty).unwrap_or(0);
                        let bits = Value::conc(b, IntTy::new(fty.bits(), false));
                        (FValue::from_bits(&bits, *fty), bits)
                    }
                    None => next.data.nondet_float(function, *fty),
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_flv(cfa, lhs, &v, None));
                }
                result = Some(AnyValue::Int(bits));
            }
            EdgeOp::Assume { cond, .. } | EdgeOp::BuiltinAssume { cond } => {
                let v = eval!(cond);
                if !self.assume(&mut next, v.truth(), span) {
                    return Step::End;
                }
                self.record_operands(&mut next.data, cond);
            }
            EdgeOp::Call { callee, args, lhs } => {
                // Before the arguments are evaluated (`enter` checks it again).
                if next.stack.len() >= MAX_CALL_DEPTH {
                    unsupported!(format!("call depth above {MAX_CALL_DEPTH} (unbounded recursion?)"))
                }
                let mut vals = Vec::new();
                for a in args {
                    vals.push(aeval!(a));
                }
                self.record_params(*callee, &vals);
                if let Some(th) = next.threads.as_mut() {
                    // A `__VERIFIER_atomic_*` function runs as one atomic section.
                    if th.atomic.is_none() && cfa.function(*callee).name.starts_with("__VERIFIER_atomic_") {
                        let depth = next.stack.len();
                        let th = Rc::make_mut(th);
                        th.atomic = Some((th.running, Some(depth)));
                    }
                }
                let site = CallSite { callee: *callee, call_edge: e, return_loc: target, lhs: lhs.clone() };
                if let Err(w) = enter(cfa, &mut next, site, &vals) {
                    unsupported!(w)
                }
            }
            EdgeOp::Havoc { lhs, what } => {
                let what = format!("{what} at {}", self.line_of(span));
                for lv in lhs {
                    let Some(ty) = lv.int_ty() else {
                        unsupported!(format!("{what}: an output that is not an integer"))
                    };
                    let v = next.data.havoc(ty, &what);
                    settle!(next.data.assign(cfa, lv, &v, None));
                }
                self.warn(format!("{what}: its outputs get any value (the assembly is not modelled)"));
            }
            EdgeOp::NondetCall { function, lhs, ty } => {
                let v = match self.guess_input(&mut next, edge, target) {
                    // A value outside a `_Bool`'s range is no value the call can return: 0 then.
                    Some(text) => match crate::testvec::integer_value(&text) {
                        Some(v) if !ty.is_bool || v == 0 || v == 1 => Value::from_i128(v, *ty),
                        _ => Value::conc(0, *ty),
                    },
                    None => next.data.nondet(function, *ty),
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign(cfa, lhs, &v, None));
                }
                result = Some(AnyValue::Int(v));
            }
            EdgeOp::Return { value, writes } => {
                let func = cfa.function(next.stack.last().map(|c| c.callee).unwrap_or(cfa.main));
                if !writes.is_empty() && !self.write_all(&mut next, writes, span) {
                    return Step::End;
                }
                if let Some(e) = value {
                    let v = aeval!(e);
                    match (func.return_ty, &func.return_unsupported) {
                        (_, Some(w)) => unsupported!(format!("return value of type {w}")),
                        (Some(ty), None) => {
                            let mut defined = Vec::new();
                            let v = v.convert(ty, &mut defined);
                            if !self.settle_definedness(&mut next, defined, span) {
                                return Step::End;
                            }
                            next.returned = Some(v.clone());
                            self.record_result(&v);
                            result = Some(v);
                        }
                        (None, None) => {}
                    }
                }
                next.loc = func.exit;
            }
            EdgeOp::Error { kind, function, code } => {
                let counts = self.opts.target.on_error_call(kind, function);
                if counts {
                    // RERS (issue 21): only the error code asked for is the violation; a call
                    // with another ends its run. The code reached is named in the report.
                    if let Some(want) = self.opts.target.error_code() {
                        let Some(c) = code else {
                            unsupported!(format!(
                                "`{function}` is called without an error code, and only error code {want} counts"
                            ))
                        };
                        let Some(ty) = c.int_ty() else { unsupported!("an error code that is not an integer") };
                        let wanted = crate::cfa::Expr::int_const(want as u64, ty);
                        let same = crate::cfa::Expr::Binary {
                            op: crate::cfa::BinOp::Eq,
                            lhs: Box::new(c.clone()),
                            rhs: Box::new(wanted),
                            ty: ScalarTy::Int(crate::cfa::IntTy::INT),
                        };
                        let same = eval!(&same);
                        if !self.assume(&mut next, same.truth(), span) {
                            return Step::End;
                        }
                    }
                    let code = match code {
                        Some(c) => eval!(c).known(),
                        None => None,
                    };
                    return Step::Violation(next, function.clone(), code);
                }
                // Decision 205: under another property the call is what gcc runs. A failed
                // assertion (`__assert_fail`, `assert`) prints and calls `abort()`: the program
                // ends, as at `abort()`; an error function the program defines without
                // parameters runs its body; one it only declares is not modelled.
                match kind {
                    ErrorKind::ErrorLabel => {}
                    ErrorKind::AssertFail => {
                        if let Some((property, what, blocks)) = self.leak(&next, true) {
                            self.pending_violations.push((next, what, property, blocks));
                        }
                        return Step::End;
                    }
                    _ => {
                        let body = cfa.function_by_name(function).filter(|f| cfa.function(*f).params.is_empty());
                        let declared_only = code.is_none() && cfa.function_by_name(function).is_none();
                        if declared_only && self.opts.target.name() == "no-overflow" {
                            // Decision 228: under no-overflow a declared-only error function
                            // either ends the run (no overflow there) or returns having changed
                            // any global: that covers every run, so it may show no overflow, but
                            // a run through it shows nothing (the function may never return).
                            if !next.data.layout.is_empty() {
                                // An address kept as an integer could reach any object.
                                unsupported!(format!(
                                    "call to `{function}`, which the program only declares, after an address was \
                                     converted to an integer"
                                ))
                            }
                            let globals: Vec<_> = next.data.globals.keys().copied().collect();
                            if let Err(v) = super::havoc::havoc_globals(&mut next.data, &globals) {
                                unsupported!(format!(
                                    "call to `{function}`, which the program only declares: the global `{}` it may \
                                     change is not an integer",
                                    cfa.var(v).name
                                ))
                            }
                            self.doubts.assume_of_program(format!(
                                "the program only declares `{function}`; a run through its call at {} assumes it \
                                 returns, with any global changed",
                                self.line_of(span)
                            ));
                            return Step::Next(next, result);
                        }
                        let Some(callee) = body.filter(|_| code.is_none()) else {
                            unsupported!(format!(
                                "call to `{function}`, which is not the error function of the property and has no \
                                 body in the program"
                            ))
                        };
                        let site = CallSite { callee, call_edge: e, return_loc: target, lhs: None };
                        if let Err(w) = enter(cfa, &mut next, site, &[]) {
                            unsupported!(w)
                        }
                    }
                }
            }
            EdgeOp::Alloc { function, lhs, size, zeroed, overflow, stack } => {
                let mut null_result = false;
                if let Some(o) = overflow {
                    let o = eval!(o);
                    match self.pin(&next, o).truth() {
                        // `calloc(n, m)` with n·m past `SIZE_MAX` returns a null pointer.
                        Truth::Known(true) => null_result = true,
                        Truth::Known(false) => {}
                        holds @ Truth::Sym(_) => {
                            // The null result of an overflowing request would be another
                            // execution; not modelled: unknown where the request may overflow.
                            let gap = Definedness {
                                holds: holds.not(),
                                what: format!("`{function}` of a number of bytes that may overflow `size_t`"),
                                unmodelled: true,
                                kind: None,
                            };
                            if !self.settle_definedness(&mut next, vec![gap], span) {
                                return Step::End;
                            }
                        }
                    }
                }
                let p = if null_result {
                    crate::semantics::PtrVal::null()
                } else {
                    let n = eval!(size);
                    let n = self.pin(&next, n);
                    let bound = self.size_bound(&next, &n);
                    match next.data.allocate(function, &n, bound, *zeroed, *stack) {
                        Ok(p) => {
                            next.data.set_site(&p, span.map_or((0, 0), |s| (s.start_line, s.end_line)));
                            p
                        }
                        Err(e) => unsupported!(e.message()),
                    }
                };
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &p));
                }
            }
            EdgeOp::Realloc { lhs, ptr, size } => {
                let old = peval!(ptr);
                let n = eval!(size);
                let n = self.pin(&next, n);
                let bound = self.size_bound(&next, &n);
                let mut defined = Vec::new();
                let p = match next.data.reallocate(cfa, &old, &n, bound, &mut defined) {
                    Ok(p) => {
                        next.data.set_site(&p, span.map_or((0, 0), |s| (s.start_line, s.end_line)));
                        p
                    }
                    Err(e) => unsupported!(e.message()),
                };
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &p));
                }
            }
            EdgeOp::StrFn { function, args, n, lhs } => {
                let mut ptrs = Vec::new();
                for a in args {
                    ptrs.push(peval!(a));
                }
                let limit = match n {
                    Some(n) => {
                        let n = eval!(n);
                        match self.pin(&next, n).known() {
                            Some(k) => Some(k as u64),
                            None => unsupported!(format!("`{function}` of a symbolic number of bytes")),
                        }
                    }
                    None => None,
                };
                let mut defined = Vec::new();
                let mut strings = Vec::new();
                // `strcpy` reads only its source; its destination holds anything.
                let read = if function == "strcpy" { &ptrs[1..] } else { &ptrs[..] };
                for p in read {
                    match next.data.known_bytes(cfa, p, limit, function != "memcmp", &mut defined) {
                        Ok(b) => strings.push(b),
                        Err(e) => unsupported!(format!("`{function}`: {}", e.message())),
                    }
                }
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                let int_result = |v: Value, next: &mut ProductState| match lhs {
                    Some(Target::Scalar(lv)) => {
                        let ty = lv.int_ty()?;
                        Some(next.data.assign(cfa, lv, &crate::semantics::value::cast(&v, ty), None))
                    }
                    _ => None,
                };
                match function.as_str() {
                    "strlen" => {
                        let v = Value::conc(strings[0].len() as u64, IntTy::new(cfa.data_model.long_bits(), false));
                        if let Some(r) = int_result(v, &mut next) {
                            settle!(r);
                        }
                    }
                    "strcpy" => {
                        let mut defined = Vec::new();
                        let len = strings[0].len() as u64 + 1;
                        if let Err(EvalError::Unsupported(w)) =
                            next.data.copy_bytes(cfa, &ptrs[0], &ptrs[1], len, false, &mut defined)
                        {
                            unsupported!(w)
                        }
                        if !self.settle_definedness(&mut next, defined, span) {
                            return Step::End;
                        }
                        if let Some(Target::Scalar(lv)) = lhs {
                            if lv.ty() == ScalarTy::Ptr {
                                settle!(next.data.assign_ptr(cfa, lv, &ptrs[0]));
                            }
                        }
                    }
                    _ => {
                        // memcmp compares all bytes; the string functions stop after a NUL.
                        let (a, b) = (&strings[0], &strings[1]);
                        let order = a.cmp(b);
                        let v = if order == std::cmp::Ordering::Equal {
                            Value::conc(0, IntTy::INT)
                        } else {
                            let r = next.data.symbol(function, IntTy::INT);
                            let zero = z3::ast::BV::from_u64(0, 32);
                            let sign = if order == std::cmp::Ordering::Less {
                                r.term().bvslt(&zero)
                            } else {
                                r.term().bvsgt(&zero)
                            };
                            self.add_constraint(&mut next, sign);
                            r
                        };
                        if let Some(r) = int_result(v, &mut next) {
                            settle!(r);
                        }
                    }
                }
            }
            EdgeOp::MemBytes { function, lhs, dst, src, n } => {
                let to = peval!(dst);
                let count = eval!(n);
                let Some(count) = self.pin(&next, count).known() else {
                    unsupported!(format!("`{function}` of a symbolic number of bytes"))
                };
                if count as u64 > MAX_MEM_BYTES {
                    unsupported!(format!("`{function}` of {count} bytes"))
                }
                let mut defined = Vec::new();
                let done = match &**src {
                    MemSource::Byte(c) => {
                        let c = eval!(c);
                        next.data.set_bytes(cfa, &to, &c, count as u64, &mut defined)
                    }
                    MemSource::Copy { src, overlap_ok } => {
                        let from = peval!(src);
                        next.data.copy_bytes(cfa, &to, &from, count as u64, *overlap_ok, &mut defined)
                    }
                };
                if let Err(EvalError::Unsupported(w)) = done {
                    unsupported!(w)
                }
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
                if let Some(lhs) = lhs {
                    settle!(next.data.assign_ptr(cfa, lhs, &to));
                }
            }
            EdgeOp::Free { ptr } => {
                let p = peval!(ptr);
                let mut defined = Vec::new();
                next.data.free(cfa, &p, &mut defined);
                if !self.settle_definedness(&mut next, defined, span) {
                    return Step::End;
                }
            }
            EdgeOp::CallPtr { .. } => unsupported!("unresolved call through a function pointer".to_string()),
            EdgeOp::AtExit { handler, lhs } => {
                Rc::make_mut(&mut next.atexit).push((*handler, e));
                if let Some(lv) = lhs {
                    settle!(next.data.assign(cfa, lv, &Value::conc(0, place_int_ty(lv)), None));
                }
            }
            EdgeOp::Terminate { function } => {
                // exit() runs the `atexit` handlers first (decision 76).
                if function == "exit" {
                    next.exiting = true;
                    if let Some(h) = self.run_atexit_handler(&next) {
                        return Step::Next(h, None);
                    }
                }
                // exit()/abort(): the program ends here (decision 74); the leak, if any, is the
                // violation of this step.
                if let Some((property, what, blocks)) = self.leak(&next, true) {
                    self.pending_violations.push((next, what, property, blocks));
                }
                return Step::End;
            }
            EdgeOp::Unsupported { what } => unsupported!(what.clone()),
            EdgeOp::ThreadCreate { handle, routine, arg, lhs } => {
                let arg = match arg.as_deref() {
                    Some(e) => Some(aeval!(e)),
                    None => None,
                };
                // The explorer resolves a start routine through a pointer before the step.
                let Some(routine) = routine.function() else {
                    unsupported!("unresolved start routine through a function pointer".to_string())
                };
                let start = Start { routine, arg, create_edge: e };
                let id = match self.create_thread(&mut next, start) {
                    Ok(id) => id,
                    Err(w) => unsupported!(w),
                };
                if let Some(h) = handle {
                    settle!(next.data.assign(cfa, h, &Value::conc(u64::from(id), place_int_ty(h)), None));
                }
                if let Some(lv) = lhs {
                    settle!(next.data.assign(cfa, lv, &Value::conc(0, place_int_ty(lv)), None));
                }
            }
            EdgeOp::ThreadJoin { thread, lhs } => {
                let v = eval!(thread);
                let v = self.pin(&next, v);
                let Val::Conc(id) = v.val else {
                    unsupported!("`pthread_join` of a thread whose id is not fixed".to_string())
                };
                let Some(th) = &next.threads else { unsupported!("`pthread_join` without threads".to_string()) };
                if u64::from(th.running) == id {
                    unsupported!("`pthread_join` of the joining thread itself".to_string())
                }
                match u32::try_from(id).ok().and_then(|id| th.has_ended(id, next.loc)) {
                    Some(true) => {}
                    Some(false) => {
                        // It waits until the thread ends.
                        self.note_blocked(state, edge, target, format!("waits: thread {id} has not ended"));
                        return Step::End;
                    }
                    None => unsupported!(format!("`pthread_join` of {id}, which is no thread's id")),
                }
                if let Some(lv) = lhs {
                    settle!(next.data.assign(cfa, lv, &Value::conc(0, place_int_ty(lv)), None));
                }
            }
            EdgeOp::ThreadExit => {
                self.end_thread(&mut next);
                // The last thread's end is the process's `exit(0)` (decision 235).
                if self.last_to_end(&next) {
                    if let Some(h) = self.run_atexit_handler(&next) {
                        return Step::Next(h, None);
                    }
                }
            }
            EdgeOp::ThreadSelf { lhs } => {
                let id = next.threads.as_ref().map_or(0, |t| t.running);
                if let Some(lv) = lhs {
                    settle!(next.data.assign(cfa, lv, &Value::conc(u64::from(id), place_int_ty(lv)), None));
                }
            }
            EdgeOp::Mutex { op, mutex, lhs } => {
                let p = peval!(mutex);
                let key = match self.mutex_key(&next, &p) {
                    Ok(k) => k,
                    Err(w) => unsupported!(w),
                };
                let Some(th) = next.threads.as_mut() else { unsupported!("a mutex without threads".to_string()) };
                let th = Rc::make_mut(th);
                let held = th.locks.iter().position(|(k, _)| *k == key);
                let me = th.running;
                let mut ret = 0;
                match (op, held) {
                    (MutexOp::Destroy, _) => {}
                    (MutexOp::Init, None) => {}
                    (MutexOp::Init, Some(_)) => {
                        unsupported!("`pthread_mutex_init` of a held mutex (undefined)".to_string())
                    }
                    (MutexOp::Lock, None) | (MutexOp::TryLock, None) => th.locks.push((key, me)),
                    (MutexOp::Lock, Some(i)) if th.locks[i].1 == me => {
                        unsupported!("`pthread_mutex_lock` of a mutex the thread holds (undefined for a default mutex)"
                            .to_string())
                    }
                    (MutexOp::Lock, Some(i)) => {
                        // It waits until the mutex is free.
                        let why = format!("waits: thread {} holds the mutex", th.locks[i].1);
                        self.note_blocked(state, edge, target, why);
                        return Step::End;
                    }
                    (MutexOp::TryLock, Some(_)) => ret = 16, // EBUSY
                    (MutexOp::Unlock, Some(i)) if th.locks[i].1 == me => {
                        th.locks.remove(i);
                    }
                    (MutexOp::Unlock, _) => unsupported!(
                        "`pthread_mutex_unlock` of a mutex the thread does not hold (undefined for a default mutex)"
                            .to_string()
                    ),
                }
                if let Some(lv) = lhs {
                    settle!(next.data.assign(cfa, lv, &Value::conc(ret, place_int_ty(lv)), None));
                }
            }
            EdgeOp::Atomic { begin } => {
                let Some(th) = next.threads.as_mut() else {
                    unsupported!("an atomic section without threads".to_string())
                };
                let th = Rc::make_mut(th);
                match (begin, th.atomic) {
                    (true, None) => th.atomic = Some((th.running, None)),
                    (false, Some((t, None))) if t == th.running => th.atomic = None,
                    (true, Some(_)) => unsupported!("nested atomic sections".to_string()),
                    (false, _) => unsupported!("`__VERIFIER_atomic_end` outside an atomic section".to_string()),
                }
            }
        }
        Step::Next(next, result)
    }

    /// Several writes as one step ([`EdgeOp::AssignAll`], struct results): every right-hand
    /// side is read in the state before the step, then the writes happen in order. False if
    /// the path ends (undefined behaviour, or something unsupported: given up).
    pub(super) fn write_all(&mut self, next: &mut ProductState, writes: &[Write], span: Option<SourceSpan>) -> bool {
        let cfa = self.cfa;
        enum Read {
            Scalar(AnyValue),
            Array(crate::semantics::Slot),
            Declare,
        }
        let mut defined = Vec::new();
        let mut reads = Vec::with_capacity(writes.len());
        for w in writes {
            let r = match w {
                Write::Scalar { rhs, .. } => next.data.eval_any(cfa, rhs, None, &mut defined).map(Read::Scalar),
                Write::Array { src, .. } => next.data.read_array(cfa, *src).map(Read::Array),
                Write::Declare { .. } => Ok(Read::Declare),
            };
            match r {
                Ok(r) => reads.push(r),
                Err(e) => {
                    let w = e.message();
                    self.give_up(format!("{w} at {}", self.line_of(span)));
                    return false;
                }
            }
        }
        if !self.settle_definedness(next, defined, span) {
            return false;
        }
        for (w, r) in writes.iter().zip(reads) {
            let done = match (w, r) {
                (Write::Declare { var, init }, _) => next.data.initialise(cfa, *var, init.as_ref()),
                (Write::Scalar { lhs, .. }, Read::Scalar(AnyValue::Int(v))) => next.data.assign(cfa, lhs, &v, None),
                (Write::Scalar { lhs, .. }, Read::Scalar(AnyValue::Float(v))) => {
                    next.data.assign_flv(cfa, lhs, &v, None)
                }
                (Write::Scalar { lhs, .. }, Read::Scalar(AnyValue::Ptr(v))) => next.data.assign_ptr(cfa, lhs, &v),
                (Write::Array { dst, .. }, Read::Array(s)) => next.data.write_array(cfa, *dst, &s).map(|()| Vec::new()),
                _ => Err(EvalError::Unsupported("malformed multiple assignment".into())),
            };
            match done {
                Ok(defined) => {
                    if !self.settle_definedness(next, defined, span) {
                        return false;
                    }
                }
                Err(e) => {
                    let w = e.message();
                    self.give_up(format!("{w} at {}", self.line_of(span)));
                    return false;
                }
            }
        }
        true
    }

    /// `n` as a constant if the path pins it to one value (e.g. by a witness assumption).
    /// The largest value a symbolic allocation size can have on this path, if it is at most
    /// the largest block (1 MiB, decisions 50 and 135; else `u64::MAX`: not modelled); found
    /// by bisection with the solver.
    pub(super) fn size_bound(&mut self, state: &ProductState, n: &Value) -> Option<u64> {
        const LIMIT: u64 = crate::semantics::memory::MAX_BLOCK;
        if !matches!(n.val, Val::Sym(_)) {
            return None;
        }
        let unsigned = crate::semantics::value::cast(n, IntTy::ULLONG).term();
        let above = |k: u64| unsigned.bvugt(z3::ast::BV::from_u64(k, 64));
        if !matches!(self.smt.check(&state.data.path.conjuncts(), &[&above(LIMIT)]), Feasibility::Infeasible) {
            return Some(u64::MAX); // too large (or undecided): the allocation says so
        }
        let (mut lo, mut hi) = (0u64, LIMIT); // the maximum lies in [lo, hi]
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.smt.check(&state.data.path.conjuncts(), &[&above(mid)]) {
                Feasibility::Feasible => lo = mid + 1,
                Feasibility::Infeasible => hi = mid,
                Feasibility::Unknown => return Some(u64::MAX),
            }
        }
        Some(hi)
    }

    pub(super) fn pin(&mut self, state: &ProductState, n: Value) -> Value {
        let Val::Sym(t) = &n.val else { return n };
        let unique = self.smt.model_values(&state.data.path.conjuncts(), std::slice::from_ref(t)).and_then(|m| {
            let v = *m.first()?;
            let other = t.eq(z3::ast::BV::from_u64(v, n.ty.bits)).not();
            matches!(self.smt.check(&state.data.path.conjuncts(), &[&other]), Feasibility::Infeasible).then_some(v)
        });
        match unique {
            Some(v) => Value::conc(v, n.ty),
            None => n,
        }
    }

    /// Guessing run (decision 67): the value the witness gives for the nondet call `edge` (the
    /// first of the next few test-vector entries whose transition matches the step and whose
    /// variable is the call's), advancing the run's position past it. `None` outside a guessing
    /// run and when the witness gives none (the value is then 0: see [`DataState::nondet`]).
    pub(super) fn guess_input(&self, s: &mut ProductState, edge: &CfaEdge, target: NodeIndex) -> Option<String> {
        let guess = self.opts.reading.guessed_values()?;
        let var = match &edge.op {
            EdgeOp::NondetCall { lhs: Some(Place::Var { var, .. }), .. }
            | EdgeOp::FloatNondetCall { lhs: Some(Place::Var { var, .. }), .. } => Some(*var),
            _ => None,
        };
        let info = StepInfo::of_edge(edge, target);
        let (i, entry) =
            guess.entries.iter().enumerate().skip(s.vec_pos).take(GUESS_LOOKAHEAD).find(|(_, entry)| {
                let var_fits = match &entry.variable {
                    Some(x) => var.is_some_and(|v| &self.cfa.var(v).name == x),
                    None => true,
                };
                var_fits && self.guard_matches(entry.transition, &info)
            })?;
        s.vec_pos = i + 1;
        Some(entry.value.clone())
    }

    /// Test-vector run: the nondet call `edge` takes the vector's next value. False (with the
    /// reason recorded) when the witness gives no value for it, the next value belongs to
    /// another step, or the value is impossible for it: nothing is guessed.
    pub(super) fn take_input(
        &mut self,
        s: &mut ProductState,
        edge: &CfaEdge,
        target: NodeIndex,
        result: Option<&AnyValue>,
    ) -> bool {
        let Some(vector) = self.opts.reading.input_vector().cloned() else { return true };
        let cfa = self.cfa;
        let raw = result;
        let (function, var, result) = match (&edge.op, result) {
            (EdgeOp::NondetCall { function, lhs, .. }, r) => {
                let var = match lhs {
                    Some(Place::Var { var, .. }) => Some(*var),
                    _ => None,
                };
                (function, var, r.cloned())
            }
            (EdgeOp::FloatNondetCall { function, lhs, fty }, Some(AnyValue::Int(bits))) => {
                let var = match lhs {
                    Some(Place::Var { var, .. }) => Some(*var),
                    _ => None,
                };
                (function, var, Some(AnyValue::Float(FValue::from_bits(bits, *fty))))
            }
            _ => return true,
        };
        let line = self.line_of(edge.span);
        let pos = s.vec_pos;
        let Some(entry) = vector.entries.get(pos) else {
            self.give_up(format!(
                "the witness gives no value for input {} (the call of `{function}` at {line}), and none is guessed",
                pos + 1
            ));
            return false;
        };
        let info = StepInfo {
            kind: StepKind::Edge(edge),
            span: edge.span,
            scope_function: edge.function,
            target,
            result,
            closure: Default::default(),
        };
        let var_fits = match &entry.variable {
            Some(x) => var.is_some_and(|v| &cfa.var(v).name == x),
            None => true,
        };
        if !var_fits || !self.guard_matches(entry.transition, &info) {
            self.give_up(format!(
                "the witness gives no value for input {} (the call of `{function}` at {line}; its next value, `{}` at \
                 {}, belongs to another step), and none is guessed",
                pos + 1,
                entry.text,
                entry.origin
            ));
            return false;
        }
        let a = crate::witness::Assumption {
            expressions: vec![entry.text.clone()],
            scope: entry.scope.clone(),
            result_function: None,
        };
        for conj in self.eval_assumption(s, entry.transition, Some(pos), &a, &info) {
            let holds = match conj {
                // The input value itself narrows the call's fresh value: not a branch of the run.
                Ok(Truth::Sym(c)) => match self.smt.check(&s.data.path.conjuncts(), &[&c]) {
                    Feasibility::Feasible => {
                        self.add_constraint(s, c);
                        true
                    }
                    Feasibility::Infeasible => false,
                    Feasibility::Unknown => {
                        self.give_up(format!("solver could not decide an input value at {line}"));
                        return false;
                    }
                },
                Ok(Truth::Known(b)) => b,
                Err(msg) => {
                    self.give_up(format!(
                        "the witness's input value `{}` at {} cannot be used: {msg}",
                        entry.text, entry.origin
                    ));
                    return false;
                }
            };
            if !holds {
                self.give_up(format!(
                    "the witness's input value `{}` at {} is impossible for the call of `{function}` at {line}",
                    entry.text, entry.origin
                ));
                return false;
            }
        }
        // The value must be one bit pattern: a float equality does not pin the bits
        // syntactically (`x == 22.8` holds for one pattern, `x == 0.0` for two, `x == NAN` for
        // many), and a run on a value the witness leaves open would be a guess.
        if let Some(AnyValue::Int(raw)) = raw {
            if let Val::Sym(t) = &raw.val {
                let Val::Conc(bits) = self.pin(s, raw.clone()).val else {
                    self.give_up(format!(
                        "the witness's input value `{}` at {} leaves more than one value (bit pattern) for the call \
                         of `{function}` at {line}, and none is guessed",
                        entry.text, entry.origin
                    ));
                    return false;
                };
                let eq = t.eq(z3::ast::BV::from_u64(bits, raw.ty.bits));
                self.add_constraint(s, eq);
            }
        }
        s.vec_pos += 1;
        true
    }

    /// Decisions 58/59: a violating path through values known only approximately (inline-asm
    /// outputs, libm results) confirms only if it holds for every value they may take (the
    /// other inputs fixed to one model); otherwise the path ends in unknown, naming them. `claim`
    /// says what the path shows (`the error is reached`, `the loop invariant … is false`).
    pub(super) fn approx_settled(&mut self, s: &ProductState, claim: &str) -> bool {
        if s.data.approx.is_empty() {
            return true;
        }
        let approx: Vec<_> = s.data.approx.iter().map(|a| (a.sym.clone(), a.domain.clone())).collect();
        match self.smt.holds_for_all(&s.data.path.conjuncts(), &approx) {
            Some(true) => true,
            r => {
                let mut what: Vec<&str> = s.data.approx.iter().map(|a| a.what.as_str()).collect();
                what.dedup();
                let why = if r.is_none() { "the solver could not decide whether" } else { "not" };
                self.give_up(format!(
                    "{claim} only for some of the values that {} may produce, and {why} every value leads there: \
                     which value the real program gets is not modelled exactly",
                    what.join(", ")
                ));
                false
            }
        }
    }
}

/// The integer type of the place a call result of an integer type is stored into (`int` for
/// a place of another type, which the store then refuses: the front end builds none).
fn place_int_ty(lv: &Place) -> IntTy {
    lv.int_ty().unwrap_or(IntTy::INT)
}

/// Enters the function a call site calls: its frame with the arguments bound, control at its
/// entry; why not, when the calls are nested too deep or a parameter cannot hold its argument.
fn enter(cfa: &Cfa, next: &mut ProductState, site: CallSite, args: &[AnyValue]) -> Result<(), String> {
    if next.stack.len() >= MAX_CALL_DEPTH {
        return Err(format!("call depth above {MAX_CALL_DEPTH} (unbounded recursion?)"));
    }
    let callee = site.callee;
    Rc::make_mut(&mut next.stack).push(site);
    if let Err(EvalError::Unsupported(w)) = next.data.push_frame(cfa, callee, args) {
        return Err(w);
    }
    next.loc = cfa.function(callee).entry;
    Ok(())
}

/// The heap blocks `ids` of `s` as a confirmation names them: allocating function, the lines of
/// the allocating step, the size when it is known (issue 51 cause 7).
fn named_blocks(s: &ProductState, ids: &[u32]) -> Vec<crate::verdict::LostBlock> {
    ids.iter()
        .filter_map(|n| s.data.heap.get(n))
        .map(|b| crate::verdict::LostBlock {
            function: b.function.clone(),
            line: b.site.0,
            end_line: b.site.1,
            bytes: b.known_size(),
        })
        .collect()
}
