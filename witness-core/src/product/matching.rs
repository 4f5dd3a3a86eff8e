//! Witness matching: a step against the witness state's transitions (source-code guards,
//! branch decisions, avoid waypoints) and the assumptions of the transitions it passes.

use super::*;

impl<'a> Explorer<'a> {
    /// Existential segments: can a run at `loc` (with `s`'s calls to return from) still reach a
    /// step on the line of transition `t`'s waypoint? A run that cannot never passes it, so
    /// letting the present visit go by is of no use to it.
    pub(super) fn may_revisit(&mut self, t: EdgeIndex, loc: NodeIndex, s: &ProductState) -> bool {
        let reach = match self.revisit.get(&t) {
            Some(r) => r.clone(),
            None => {
                let Some(r) = transition_lines(&self.witness.graph[t]) else { return true };
                let reach =
                    Rc::new(ErrorReach::pruning(self.cfa, &ErrorTarget::nothing(), &line_seeds(self.cfa, &[r])));
                self.revisit.insert(t, reach.clone());
                reach
            }
        };
        reach.may_reach(loc, s.stack.iter().map(|c| c.return_loc))
    }

    /// Matches a step against the witness state's transitions and pushes the successors.
    pub(super) fn advance_witness(
        &mut self,
        next: ProductState,
        info: &StepInfo,
        action: Action,
        values: Option<Rc<Recorded>>,
        out: &mut Vec<ProductState>,
    ) {
        let w = self.witness;
        let q = next.witness;
        let mut next = next;
        next.arrival = false;
        let vector_run = !self.opts.reading.follows_automaton();
        // The permissive double check of a rejection: steps may be skipped, transitions chained.
        let permissive = self.opts.reading.loosens_matching();
        let push = |mut s: ProductState, node: NodeIndex, fired: bool, out: &mut Vec<ProductState>| {
            s.entered = fired;
            s.witness = node;
            let thread = s.threads.as_ref().map(|t| t.running);
            let parent = s.trace.take();
            s.trace = Some(Rc::new(TraceNode {
                thread,
                depth: parent.as_ref().map_or(1, |p| p.depth.saturating_add(1)),
                parent,
                span: info.span,
                function: (!Self::is_global_step(info)).then_some(info.scope_function),
                action,
                witness_node: node,
                values: values.clone(),
            }));
            out.push(s);
        };
        if w.graph[q].violation || vector_run {
            push(next, q, false, out); // absorbing; a test-vector run does not follow the automaton
            return;
        }
        // One step may pass several transitions: YAML segments whose waypoints are evaluated
        // at the same point (an event of the step, then arrival at the next statement); in
        // GraphML, state assertions followed by the transition they precede in a producer's
        // finer CFA (decision 40); in the permissive reading any chain. `frontier` holds
        // (state, node, chain length, whether the run was already pushed as ending there).
        let exact = w.exact_locations;
        if !permissive {
            self.note_wrong_branches(q, info);
        }
        // The fifth field: the chain may go on only by a bare loop-head entry (decision 206).
        let mut frontier = vec![(next, q, 0usize, false, false)];
        while let Some((mut cur, node, depth, pushed, head_only)) = frontier.pop() {
            // Decision 40: after a state assertion, only a transition that names the step's kind.
            let split = depth > 0 && !exact && !permissive;
            let candidates: Vec<EdgeIndex> = w
                .graph
                .edges_directed(node, Direction::Outgoing)
                .filter(|t| {
                    depth == 0
                        || permissive
                        || (split && head_only && Self::is_loop_entry(t.weight()))
                        || (split && !head_only && !Self::is_state_assertion(t.weight()))
                        || (exact && Self::is_arrival(t.weight()))
                })
                // YAML 2.2 (decision 152): in a multi-threaded run a statement waypoint is passed
                // while its thread waits at the statement, not on the step that arrives there.
                .filter(|t| !exact || cur.threads.is_none() || Self::is_arrival(t.weight()) == self.arriving)
                .filter(|t| self.guard_matches(t.id(), info))
                .map(|t| t.id())
                .collect();
            // Threads: a transition of another thread does not match this step. One whose thread
            // id names no thread yet matches no step: a reading that narrows the witness, so the
            // run may confirm but no longer reject (decision 97).
            let mut candidates = candidates;
            if cur.threads.is_some() {
                candidates.retain(|&t| {
                    let tr = &w.graph[t];
                    if self.thread_matches(tr, &cur) {
                        return true;
                    }
                    if self.thread_unbound(tr, &cur) {
                        self.doubts.tighten(format!(
                            "the thread id `{}` at {} names no thread created so far: no step matches it",
                            tr.guard.thread_id.as_deref().unwrap_or_default(),
                            tr.origin
                        ));
                    }
                    false
                });
            }
            // Avoid waypoints: a run that passes one dies; otherwise it learns that it did not.
            if !self.apply_avoids(&mut cur, &candidates, info) {
                continue;
            }
            let follows: Vec<EdgeIndex> = candidates.into_iter().filter(|t| !w.graph[*t].avoid).collect();
            if follows.is_empty() {
                if !pushed {
                    push(cur, node, false, out);
                }
                continue;
            }
            let mut stay = permissive && depth > 0 && !pushed;
            let mut live = 0usize;
            // A transition into a sink whose guard pins the step by validated offsets is a
            // deliberate "not this way" of the witness; even the permissive reading keeps it.
            let mut deliberate_sink = false;
            for t in follows {
                let Some((_, target)) = w.graph.edge_endpoints(t) else {
                    continue;
                };
                let tr = &w.graph[t];
                if depth == 0 {
                    if self.opts.stutter == StutterMode::Lenient && self.next_step_matches(info.target, t) {
                        stay = true;
                    }
                    // A transition whose place is lost may mean another step of its line.
                    if permissive && self.approximate.contains_key(&t) {
                        stay = true;
                    }
                    // Lassos: only the stem forks; the rejections of a lasso (decision 95) do not
                    // rest on the waypoints of its loop part (decision 97).
                    // A run that lets this visit go by must be able to come back to the
                    // waypoint's line; otherwise staying can never pass it.
                    if exact
                        && self.opts.segments == SegmentReading::Existential
                        && !self.lasso.cycle_nodes.contains(&node)
                        && self.may_revisit(t, info.target, &cur)
                    {
                        stay = true;
                    }
                }
                if w.graph[target].sink && self.offsets.offsets_of(w, t).is_some() {
                    deliberate_sink = true;
                }
                if w.graph[target].sink {
                    // Issue 21: which step, and for a branch which way it went.
                    let step = match info.kind {
                        StepKind::Edge(edge) => match &edge.op {
                            EdgeOp::Assume { source_truth, .. } => {
                                let value = self
                                    .branch_operand_value(&cur, &edge.text, info)
                                    .map(|v| format!(": {v}"))
                                    .unwrap_or_default();
                                format!(
                                    "the program's step `{}` (the {} branch of its condition{value})",
                                    edge.text,
                                    if *source_truth { "true" } else { "false" }
                                )
                            }
                            _ => format!("the program's step `{}`", edge.text),
                        },
                        StepKind::FunctionReturn { callee, .. } => {
                            format!("the return from `{}`", self.cfa.function(callee).name)
                        }
                    };
                    self.note_dead_end(
                        t,
                        info,
                        "sink",
                        format!("{step} is one the witness sends to its sink node {}", w.graph[target].id),
                    );
                    continue; // this run can never confirm
                }
                if !w.graph[target].violation && !self.distance.contains_key(&target) {
                    continue; // this run can never confirm
                }
                if !self.decision_matches(tr, info) {
                    continue; // wrong branch: the requirement is false
                }
                let mut s = cur.clone();
                self.bind_threads(t, &mut s, info);
                if let Some(a) = &tr.assumption {
                    if !self.apply_assumption(&mut s, t, a, info) {
                        continue;
                    }
                }
                if self.opts.target.lasso() && w.graph[target].cycle_head {
                    s.arrival = true;
                }
                if let Some(why) = self.approximate.get(&t) {
                    self.fired_approximate.insert(t);
                    // The permissive reading also lets the run stay (below): it allows the runs
                    // of every choice of the place, so firing is no guess there.
                    if !permissive {
                        let why = why.clone();
                        self.doubts.loosen(why.clone());
                        self.doubts.tighten(why);
                    }
                }
                live += 1;
                let open = !w.graph[target].violation && target != node;
                if (permissive || exact) && depth < 16 && open {
                    if permissive {
                        push(s.clone(), target, true, out);
                    }
                    frontier.push((s, target, depth + 1, permissive, false));
                } else if !exact && depth == 0 && open && Self::is_state_assertion(tr) {
                    // Decision 40: the run may end here, or the step may also pass the
                    // transition after it, the other half of the producer's split step.
                    push(s.clone(), target, true, out);
                    frontier.push((s, target, depth + 1, true, false));
                } else if !exact
                    && !permissive
                    && depth == 0
                    && open
                    && w.graph.edges(target).any(|t| Self::is_loop_entry(t.weight()))
                    && self
                        .target_closure(info)
                        .iter()
                        .any(|l| self.cfa.graph.node_weight(*l).is_some_and(|n| n.loop_head))
                {
                    // Decision 206: the step ends where blank edges lead to a loop head, which a
                    // producer's CFA enters by a step of its own (CPAchecker's `while` edge): a bare
                    // loop-head entry after this transition may pass on the same step; the run may
                    // also end here.
                    push(s.clone(), target, true, out);
                    frontier.push((s, target, depth + 1, true, true));
                } else {
                    push(s, target, true, out);
                }
            }
            // Permissive reading: a step whose every matching transition dies (sink, failed
            // assumption, no violation reachable) may be skipped, as if it were invisible.
            if stay || (permissive && live == 0 && !deliberate_sink && !pushed) {
                push(cur, node, false, out);
            }
        }
    }

    /// A GraphML transition that says nothing about the kind of step it matches (no branch,
    /// no function entry or return, no loop head, no `\result` of a call): only its lines and
    /// its assumption. In a producer's finer CFA it may be a step of its own before the one the
    /// next transition matches (decision 40).
    pub(super) fn is_state_assertion(t: &WitnessTransition) -> bool {
        let g = &t.guard;
        t.assumption.as_ref().is_none_or(|a| a.result_function.is_none())
            && g.control.is_none()
            && !g.enter_loop_head
            && g.enter_function.is_none()
            && g.return_from_function.is_none()
            && t.decision.is_none()
            && !t.avoid
    }

    /// A GraphML transition that says only that the step enters a loop head (`enterLoopHead`,
    /// perhaps with lines; no branch, call, return or assumption).
    pub(super) fn is_loop_entry(t: &WitnessTransition) -> bool {
        let g = &t.guard;
        g.enter_loop_head
            && t.assumption.is_none()
            && g.control.is_none()
            && g.enter_function.is_none()
            && g.return_from_function.is_none()
            && t.decision.is_none()
            && !t.avoid
    }

    /// A transition evaluated when control arrives at a statement (YAML `assumption`).
    pub(super) fn is_arrival(t: &WitnessTransition) -> bool {
        matches!(&t.guard.anchor, Some(a) if a.kind == AnchorKind::Statement)
    }

    /// Remembers the branch transitions out of `q` whose construct this step decides the other
    /// way (for explanations only).
    pub(super) fn note_wrong_branches(&mut self, q: NodeIndex, info: &StepInfo) {
        let StepKind::Edge(edge) = info.kind else { return };
        let source_truth = match &edge.op {
            EdgeOp::Assume { source_truth, .. } => Some(*source_truth),
            _ => None,
        };
        if edge.decision.is_none() && source_truth.is_none() {
            return;
        }
        let w = self.witness;
        for t in w.graph.edges_directed(q, Direction::Outgoing) {
            let tr = t.weight();
            if tr.avoid || self.explain.knows_other_branch(t.id()) {
                continue;
            }
            let wrong = if tr.decision.is_some() {
                self.guard_matches(t.id(), info) && !self.decision_matches(tr, info)
            } else if let (Some(c), Some(truth)) = (tr.guard.control, source_truth) {
                let on_line = match (tr.guard.lines, info.span) {
                    (Some(l), Some(sp)) => l.overlaps(sp.start_line as u64, sp.end_line as u64),
                    _ => false,
                };
                on_line && truth != (c == Control::ConditionTrue)
            } else {
                false
            };
            if wrong {
                self.explain.other_branch(t.id(), &edge.text);
            }
        }
    }

    /// Does the step take the branch decision a transition requires (if it requires one)?
    pub(super) fn decision_matches(&self, tr: &WitnessTransition, info: &StepInfo) -> bool {
        let Some(want) = &tr.decision else { return true };
        let StepKind::Edge(edge) = info.kind else { return false };
        let Some(d) = &edge.decision else { return false };
        outcome_matches(want, &d.outcome)
    }

    /// Applies the avoid transitions among `matched` to the state. Returns false if the run
    /// passes one of them (and dies).
    pub(super) fn apply_avoids(&mut self, s: &mut ProductState, matched: &[EdgeIndex], info: &StepInfo) -> bool {
        let w = self.witness;
        for &t in matched {
            let tr = &w.graph[t];
            if !tr.avoid || !self.decision_matches(tr, info) {
                continue;
            }
            let Some(a) = &tr.assumption else { return false };
            match self.assumption_truth(s, t, a, info) {
                Some(Truth::Known(true)) => return false,
                Some(Truth::Known(false)) => {}
                Some(Truth::Sym(c)) => {
                    if !self.assume(s, Truth::Sym(c.not()), info.span) {
                        return false;
                    }
                }
                None => {
                    // The constraint cannot be evaluated: neither passing nor avoiding is certain.
                    self.give_up(format!("the constraint of the avoid waypoint at {} cannot be evaluated", tr.origin));
                    return false;
                }
            }
        }
        true
    }

    /// Lenient stutter: does an observable edge right after `loc` (through blank edges) also
    /// match the guard?
    pub(super) fn next_step_matches(&self, loc: NodeIndex, t: EdgeIndex) -> bool {
        self.cfa.blank_closure(loc).into_iter().any(|l| {
            self.cfa.graph.edges_directed(l, Direction::Outgoing).any(|e| {
                let edge = e.weight();
                let info = StepInfo {
                    kind: StepKind::Edge(edge),
                    span: edge.span,
                    scope_function: edge.function,
                    target: e.target(),
                    result: None,
                    closure: Default::default(),
                };
                !matches!(edge.op, EdgeOp::Blank) && self.guard_matches(t, &info)
            })
        })
    }

    /// The blank closure of a step's target location, computed once per step.
    pub(super) fn target_closure<'s>(&self, info: &'s StepInfo) -> &'s [NodeIndex] {
        info.closure.get_or_init(|| self.cfa.blank_closure(info.target))
    }

    /// Source-code guard of a transition against one observable step (digest §5).
    pub(super) fn guard_matches(&self, t: EdgeIndex, info: &StepInfo) -> bool {
        let cfa = self.cfa;
        let tr: &WitnessTransition = &self.witness.graph[t];
        let g: &LocationGuard = &tr.guard;
        if g.anchor.is_some() {
            return self.anchor_matches(t, info);
        }
        // Decision 46: a global declaration is seen only by a transition that names its place.
        if Self::is_global_step(info) && g.lines.is_none() && self.offsets.offsets_of(self.witness, t).is_none() {
            return false;
        }
        if let Some(lines) = g.lines {
            match info.span {
                Some(s) if lines.overlaps(s.start_line as u64, s.end_line as u64) => {}
                _ => return false,
            }
        }
        if let Some(off) = self.offsets.offsets_of(self.witness, t) {
            match info.span {
                Some(s) if off.overlaps(s.start_offset as u64, s.end_offset as u64) => {}
                _ => return false,
            }
        }
        if let Some(allowed) = self.pins.get(&t) {
            match info.span {
                Some(s) if allowed.contains(&(s.start_offset, s.end_offset)) => {}
                _ => return false,
            }
        }
        if let Some(c) = g.control {
            match info.kind {
                StepKind::Edge(CfaEdge { op: EdgeOp::Assume { source_truth, .. }, .. }) => {
                    if *source_truth != (c == Control::ConditionTrue) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        if g.enter_loop_head
            && !self.target_closure(info).iter().any(|l| self.cfa.graph.node_weight(*l).is_some_and(|n| n.loop_head))
        {
            return false;
        }
        if let Some(f) = &g.enter_function {
            let ok = match info.kind {
                StepKind::Edge(CfaEdge { op: EdgeOp::Call { callee, .. }, .. }) => &cfa.function(*callee).name == f,
                StepKind::Edge(CfaEdge { op: EdgeOp::ProgramStart, .. }) => &cfa.function(cfa.main).name == f,
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        if let Some(f) = &g.return_from_function {
            if !self.step_returns_from(info, f) {
                return false;
            }
        }
        if g.create_thread.is_some() {
            // A step that creates a thread, or (Dartagnan: `createThread=0` on the first edge)
            // the start of the program, which creates the main thread.
            let creates = matches!(
                info.kind,
                StepKind::Edge(CfaEdge { op: EdgeOp::ThreadCreate { .. } | EdgeOp::ProgramStart, .. })
            );
            if !creates {
                return false;
            }
        }
        if let Some(a) = &tr.assumption {
            if let Some(rf) = &a.result_function {
                if !self.step_returns_from(info, rf) {
                    return false;
                }
            }
        }
        true
    }

    /// Is the step a file-scope declaration (before `main` is entered)?
    pub(super) fn is_global_step(info: &StepInfo) -> bool {
        matches!(info.kind, StepKind::Edge(CfaEdge { op: EdgeOp::GlobalDeclaration, .. }))
    }

    /// Exact anchors (YAML waypoints): which step passes the waypoint's location.
    pub(super) fn anchor_matches(&self, t: EdgeIndex, info: &StepInfo) -> bool {
        let Some(resolved) = self.anchors.get(&t) else { return false };
        match (resolved, info.kind) {
            (ResolvedAnchor::Statement { nodes, offset }, _) => {
                let closure = self.target_closure(info);
                closure.iter().any(|n| nodes.contains(n))
                    // Decision 93: the recurrence waypoint names the loop statement; every
                    // iteration arrives at its head.
                    || (self.opts.target.lasso()
                        && self.witness.graph.edge_endpoints(t).is_some_and(|(_, to)| self.witness.graph[to].cycle_head)
                        && loop_heads_of(self.cfa, nodes, *offset).iter().any(|m| closure.contains(m)))
            }
            (ResolvedAnchor::Branching { construct }, StepKind::Edge(e)) => {
                e.decision.as_ref().is_some_and(|d| d.construct == *construct)
            }
            (ResolvedAnchor::FunctionEnter { parens }, StepKind::Edge(e)) => {
                matches!(
                    e.op,
                    EdgeOp::Call { .. }
                        | EdgeOp::NondetCall { .. }
                        | EdgeOp::FloatNondetCall { .. }
                        | EdgeOp::ThreadCreate { .. }
                ) && e.call_paren.is_some_and(|p| parens.contains(&p))
            }
            (ResolvedAnchor::FunctionReturn { parens }, StepKind::Edge(e)) => {
                matches!(e.op, EdgeOp::NondetCall { .. } | EdgeOp::FloatNondetCall { .. })
                    && e.call_paren.is_some_and(|p| parens.contains(&p))
            }
            (ResolvedAnchor::FunctionReturn { parens }, StepKind::FunctionReturn { call_edge, .. }) => {
                self.cfa.edge(call_edge).call_paren.is_some_and(|p| parens.contains(&p))
            }
            (ResolvedAnchor::Target { offsets }, StepKind::Edge(e)) => {
                (self.opts.target.operations() || matches!(e.op, EdgeOp::Error { .. }))
                    && e.span.is_some_and(|s| offsets.contains(&s.start_offset))
            }
            _ => false,
        }
    }

    /// Does the step leave function `f` (return statement in it, return edge from it, or a call
    /// of `f` when it has no body)?
    pub(super) fn step_returns_from(&self, info: &StepInfo, f: &str) -> bool {
        let cfa = self.cfa;
        match info.kind {
            StepKind::FunctionReturn { callee, .. } => cfa.function(callee).name == f,
            StepKind::Edge(edge) => match &edge.op {
                EdgeOp::Return { .. } => cfa.function(edge.function).name == f,
                EdgeOp::NondetCall { function, .. } | EdgeOp::FloatNondetCall { function, .. } => function == f,
                _ => false,
            },
        }
    }

    /// Evaluates a transition's assumption on the post-state; false if it cannot hold.
    /// Lowers a transition's assumption for this step and evaluates each conjunct on the
    /// state: a truth value, or why the conjunct cannot be used.
    pub(super) fn eval_assumption(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        entry: Option<usize>,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Vec<Result<Truth, ConjunctError>> {
        let lowered = self.lowered_assumption(t, entry, a, info);
        lowered.conjuncts.iter().map(|conj| self.eval_conjunct(s, conj, lowered.scope, info)).collect()
    }

    /// A transition's assumption lowered for this step (in its scope), one entry per conjunct.
    pub(super) fn lowered_assumption(
        &mut self,
        t: EdgeIndex,
        entry: Option<usize>,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> LoweredAssumption {
        let cfa = self.cfa;
        let scope_function = match &a.scope {
            // At file scope no function's locals exist: globals only (decision 46).
            _ if Self::is_global_step(info) => None,
            Some(name) => match cfa.witness_function(name) {
                Some(f) => Some(f),
                None => {
                    let why = format!("assumption scope `{name}` names no function of the program; using globals only");
                    // The names may have meant another variable: neither more nor fewer runs.
                    self.doubts.loosen(why.clone());
                    self.doubts.tighten(why.clone());
                    self.warn(why);
                    None
                }
            },
            None => Some(info.scope_function),
        };
        let offset = match self.anchors.get(&t) {
            Some(ResolvedAnchor::Statement { offset, .. }) => Some(*offset),
            _ => info.span.map(|s| s.start_offset),
        };
        let result_ty = info.result.as_ref().map(|v| v.ty());
        let key = (t, scope_function, offset, result_ty, entry);
        let lowered = match self.assumption_cache.get(&key) {
            Some(l) => l.clone(),
            None => {
                let scope = AssumptionScope { function: scope_function, offset, result_ty, ..Default::default() };
                let mut all = Vec::new();
                for text in &a.expressions {
                    all.extend(lower_assumption(cfa, text, &scope));
                }
                // Producers (CBMC) write the parameters a call passes on the call's step, in the
                // caller's scope (`foo = 1` for `one(1)`). A conjunct that names no variable of
                // its scope is read in the callee's, where the step's post-state is: a guess of
                // the binding, so from now on this exploration may confirm but not reject.
                if let StepKind::Edge(CfaEdge { op: EdgeOp::Call { callee, .. }, .. }) = info.kind {
                    let texts: Vec<String> =
                        a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)).collect();
                    if texts.len() == all.len() && Some(*callee) != scope_function {
                        let in_callee =
                            AssumptionScope { function: Some(*callee), offset: None, result_ty, ..Default::default() };
                        for (conj, text) in all.iter_mut().zip(&texts) {
                            let unknown = matches!(conj, Err(ConjunctError::NoSuchObject(_)));
                            if !unknown {
                                continue;
                            }
                            if let Some(Ok(e)) = lower_assumption(cfa, text, &in_callee).into_iter().next() {
                                self.doubts.tighten(format!(
                                    "`{text}` at {} names no variable of its scope; read in the scope of `{}`, the \
                                     function the step calls",
                                    self.witness.graph[t].origin,
                                    cfa.function(*callee).name
                                ));
                                *conj = Ok(e);
                            }
                        }
                    }
                }
                let l = Rc::new(Lowered { scope: scope_function, conjuncts: all });
                self.assumption_cache.insert(key, l.clone());
                l
            }
        };
        lowered
    }

    /// Evaluates one lowered conjunct on the state, under its path condition: a truth value,
    /// or why it cannot be used. An operation of the conjunct whose definedness the path
    /// condition implies (`a[i]` after `i == 2`) is defined (issue 19, cause 1).
    pub(super) fn eval_conjunct(
        &mut self,
        s: &mut ProductState,
        conj: &Result<crate::cfa::Expr, ConjunctError>,
        scope: Option<FuncId>,
        info: &StepInfo,
    ) -> Result<Truth, ConjunctError> {
        let expr = conj.as_ref().map_err(|m| m.clone())?;
        let result = info.result.as_ref();
        // In the running frame (a conjunct read in a callee's scope is there); failing that, in
        // the innermost activation of the function the assumption's scope names.
        let ev = match s.data.eval(self.cfa, expr, result) {
            Ok(ev) => ev,
            Err(e) => match scope {
                Some(f) => s.data.eval_in_frame_of(self.cfa, expr, result, f).map_err(|_| ConjunctError::from(e))?,
                None => return Err(e.into()),
            },
        };
        for d in &ev.defined {
            match &d.holds {
                Truth::Known(true) => {}
                Truth::Known(false) => {
                    return Err(ConjunctError::Unsupported(format!("its evaluation is undefined ({})", d.what)))
                }
                Truth::Sym(c) => {
                    if self.smt.check(&s.data.path.conjuncts(), &[&c.not()]) != Feasibility::Infeasible {
                        return Err(ConjunctError::Unsupported(format!(
                            "its evaluation may be undefined ({})",
                            d.what
                        )));
                    }
                }
            }
        }
        Ok(ev.value.truth())
    }

    /// The conjunction of an assumption, or None if some conjunct cannot be evaluated.
    pub(super) fn assumption_truth(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> Option<Truth> {
        let mut all = Truth::Known(true);
        for c in self.eval_assumption(s, t, None, a, info) {
            all = all.and(&c.ok()?);
        }
        Some(all)
    }

    /// Evaluates a transition's assumption on the post-state and adds it to the path; false
    /// if it cannot hold. Conjuncts that cannot be used are dropped with a warning (this can
    /// only add runs).
    pub(super) fn apply_assumption(
        &mut self,
        s: &mut ProductState,
        t: EdgeIndex,
        a: &crate::witness::Assumption,
        info: &StepInfo,
    ) -> bool {
        let origin = self.witness.graph[t].origin.clone();
        let lowered = self.lowered_assumption(t, None, a, info);
        // In order, each under the path condition the earlier ones left (`i == 2 && a[i] == 7`).
        for (i, conj) in lowered.conjuncts.iter().enumerate() {
            match self.eval_conjunct(s, conj, lowered.scope, info) {
                Err(msg @ ConjunctError::Ambiguous(_)) => {
                    self.give_up(format!("assumption at {origin}: {msg}"));
                    return false;
                }
                Err(msg @ ConjunctError::NoSuchObject(_)) => {
                    // A claim about an object the program does not have at this step (a
                    // producer's own variable, another function's local): it constrains no
                    // program state, so every reading drops it (decision 97).
                    self.warn(format!("assumption at {origin} ignored in part: {msg}"))
                }
                Err(msg) => {
                    // Dropping a conjunct lets the witness allow more runs: from now on this
                    // exploration may reject but not confirm (decision 97).
                    let text = a.expressions.iter().flat_map(|e| crate::cfront::split_assumption(e)).nth(i);
                    let what = match text {
                        Some(c) => format!("assumption `{c}` at {origin} cannot be evaluated: {msg}"),
                        None => format!("a conjunct of the assumption at {origin} cannot be evaluated: {msg}"),
                    };
                    self.doubts.loosen(what);
                    self.warn(format!("assumption at {origin} ignored in part: {msg}"))
                }
                Ok(truth) => {
                    if !self.assume(s, truth, info.span) {
                        self.note_infeasible(s, t, i, a, info);
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// Does a branch step with this outcome take the decision a `branching` waypoint requires?
pub(super) fn outcome_matches(want: &DecisionValue, outcome: &BranchOutcome) -> bool {
    match (want, outcome) {
        (DecisionValue::Bool(a), BranchOutcome::Bool(b)) => a == b,
        (DecisionValue::Case(v), BranchOutcome::Case(k)) => v == k,
        (DecisionValue::Case(v), BranchOutcome::CaseRange(lo, hi)) => lo <= v && v <= hi,
        (DecisionValue::Default, BranchOutcome::Default) => true,
        _ => false,
    }
}
