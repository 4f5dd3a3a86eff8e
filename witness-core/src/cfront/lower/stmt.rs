//! Statements and control flow: blocks, loops, `switch`, `goto`, and branch conditions.

use super::*;

pub(super) fn collect_cases<'b>(s: &'b Node<Statement>, out: &mut Vec<&'b Node<LabeledStatement>>) {
    match &s.node {
        Statement::Labeled(l) => {
            if !matches!(l.node.label.node, Label::Identifier(_)) {
                out.push(l);
            }
            collect_cases(&l.node.statement, out);
        }
        Statement::Compound(items) => {
            for it in items {
                if let BlockItem::Statement(st) = &it.node {
                    collect_cases(st, out);
                }
            }
        }
        Statement::If(i) => {
            collect_cases(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                collect_cases(e, out);
            }
        }
        Statement::While(w) => collect_cases(&w.node.statement, out),
        Statement::DoWhile(w) => collect_cases(&w.node.statement, out),
        Statement::For(f) => collect_cases(&f.node.statement, out),
        _ => {}
    }
}

impl<'a> Builder<'a> {
    pub(super) fn stmt(&mut self, s: &Node<Statement>) {
        let ssp = sp(s.span);
        // A labelled statement starts at its label's node (below): arrivals by `goto` and by a
        // `switch`'s dispatch come there, not through the step into the label (issue 32 cause 7).
        if !matches!(s.node, Statement::Compound(_) | Statement::Labeled(_)) {
            let start = self.orig_range(ssp).0;
            self.cfa.statement_starts.push((start, self.cur));
        }
        match &s.node {
            Statement::Compound(items) => {
                // A block is a statement: its `{` is where control enters it (issue 34 item 1:
                // Theta's cycles and loop-body invariants name it).
                let start = self.orig_range(ssp).0;
                self.cfa.statement_starts.push((start, self.cur));
                self.scopes.push(HashMap::new());
                let outer_block_end = std::mem::replace(&mut self.block_end, s.span.end);
                for it in items {
                    match &it.node {
                        BlockItem::Declaration(d) => {
                            let start = self.orig_range(sp(d.span)).0;
                            self.cfa.statement_starts.push((start, self.cur));
                            self.stmt_sp = sp(d.span);
                            self.declaration(d, false, s.span.end)
                        }
                        BlockItem::StaticAssert(_) => {}
                        BlockItem::Statement(st) => self.stmt(st),
                    }
                }
                self.block_end = outer_block_end;
                self.scopes.pop();
            }
            Statement::Expression(None) => {}
            Statement::Expression(Some(e)) => {
                self.stmt_sp = ssp;
                let snap = self.snap();
                if let Err(m) = self.effect(e, ssp) {
                    self.rollback(&snap);
                    self.emit_unsupported(ssp, m);
                }
            }
            Statement::If(i) => {
                let t = self.new_node();
                let f = self.new_node();
                let join = self.new_node();
                self.stmt_sp = ssp;
                self.decide(&i.node.condition, t, f, s.span.start, None);
                self.cur = t;
                self.stmt(&i.node.then_statement);
                let c = self.cur;
                self.blank(c, join);
                self.cur = f;
                if let Some(e) = &i.node.else_statement {
                    self.stmt(e);
                }
                let c = self.cur;
                self.blank(c, join);
                self.cur = join;
            }
            Statement::While(w) => {
                let head = self.new_node();
                self.cfa.graph[head].loop_head = true;
                let start = self.orig_range(ssp).0;
                self.cfa.loop_statements.push((start, head));
                let c = self.cur;
                self.blank(c, head);
                let body = self.new_node();
                let exit = self.new_node();
                self.cur = head;
                self.stmt_sp = ssp;
                self.decide(&w.node.expression, body, exit, s.span.start, None);
                self.cur = body;
                self.loop_body(&w.node.statement, exit, head);
                let c = self.cur;
                self.blank(c, head);
                self.cur = exit;
            }
            Statement::DoWhile(w) => {
                let body = self.new_node();
                self.cfa.graph[body].loop_head = true;
                let start = self.orig_range(ssp).0;
                self.cfa.loop_statements.push((start, body));
                let c = self.cur;
                self.blank(c, body);
                let cond = self.new_node();
                let exit = self.new_node();
                self.cur = body;
                self.loop_body(&w.node.statement, exit, cond);
                let c = self.cur;
                self.blank(c, cond);
                self.cur = cond;
                self.stmt_sp = ssp;
                let trailing = self.find_between(w.node.statement.span.end, w.node.expression.span.start, "while");
                self.decide(&w.node.expression, body, exit, s.span.start, trailing);
                self.cur = exit;
            }
            Statement::For(fs) => {
                self.scopes.push(HashMap::new());
                match &fs.node.initializer.node {
                    ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
                    ForInitializer::Expression(e) => {
                        let esp = sp(e.span);
                        self.stmt_sp = esp;
                        let snap = self.snap();
                        if let Err(m) = self.effect(e, esp) {
                            self.rollback(&snap);
                            self.emit_unsupported(esp, m);
                        }
                    }
                    ForInitializer::Declaration(d) => {
                        self.stmt_sp = sp(d.span);
                        self.declaration(d, false, s.span.end)
                    }
                }
                let head = self.new_node();
                self.cfa.graph[head].loop_head = true;
                let start = self.orig_range(ssp).0;
                self.cfa.loop_statements.push((start, head));
                let c = self.cur;
                self.blank(c, head);
                let body = self.new_node();
                let exit = self.new_node();
                let step = self.new_node();
                self.cur = head;
                match &fs.node.condition {
                    Some(cnd) => {
                        self.stmt_sp = ssp;
                        self.decide(cnd, body, exit, s.span.start, None)
                    }
                    None => {
                        let fsp = (s.span.start, s.span.start + 3);
                        let construct = self.register_construct(s.span.start, None);
                        self.pending_outcome = Some(Decision { construct, outcome: BranchOutcome::Bool(true) });
                        self.add_edge(
                            head,
                            body,
                            EdgeOp::Assume { cond: Expr::int(1), source_truth: true },
                            Some(fsp),
                            "[1]".into(),
                        );
                    }
                }
                self.cur = body;
                self.loop_body(&fs.node.statement, exit, step);
                let c = self.cur;
                self.blank(c, step);
                self.cur = step;
                if let Some(st) = &fs.node.step {
                    let esp = sp(st.span);
                    self.stmt_sp = esp;
                    let snap = self.snap();
                    if let Err(m) = self.effect(st, esp) {
                        self.rollback(&snap);
                        self.emit_unsupported(esp, m);
                    }
                }
                let c = self.cur;
                self.blank(c, head);
                self.cur = exit;
                self.scopes.pop();
            }
            Statement::Switch(sw) => self.switch(sw, ssp),
            Statement::Labeled(l) => {
                let start = self.orig_range(ssp).0;
                match &l.node.label.node {
                    Label::Identifier(id) => {
                        let n = self.label_node(&id.node.name);
                        let c = self.cur;
                        self.blank(c, n);
                        self.cur = n;
                        self.cfa.statement_starts.push((start, n));
                        if id.node.name == "ERROR" {
                            let lsp = (l.span.start, l.node.label.span.end + 1);
                            let _ = self.emit(
                                EdgeOp::Error { kind: ErrorKind::ErrorLabel, function: "ERROR".into(), code: None },
                                lsp,
                                "ERROR:".into(),
                            );
                        }
                    }
                    Label::Case(_) | Label::CaseRange(_) | Label::Default => {
                        let key = l.span.start;
                        let n = self.f.as_ref().and_then(|f| f.cases.last()).and_then(|m| m.get(&key)).copied();
                        if let Some(n) = n {
                            let c = self.cur;
                            self.blank(c, n);
                            self.cur = n;
                        }
                        self.cfa.statement_starts.push((start, self.cur));
                    }
                }
                self.stmt(&l.node.statement);
            }
            Statement::Goto(id) => {
                let n = self.label_node(&id.node.name);
                let c = self.cur;
                self.add_edge(c, n, EdgeOp::Blank, Some(ssp), self.text(ssp));
                self.cur = self.new_node();
            }
            Statement::Continue => {
                if let Some(&t) = self.f.as_ref().and_then(|f| f.conts.last()) {
                    let c = self.cur;
                    self.blank(c, t);
                    self.cur = self.new_node();
                }
            }
            Statement::Break => {
                if let Some(&t) = self.f.as_ref().and_then(|f| f.breaks.last()) {
                    let c = self.cur;
                    self.blank(c, t);
                    self.cur = self.new_node();
                }
            }
            Statement::Return(e) => {
                self.stmt_sp = ssp;
                let snap = self.snap();
                let r = (|| -> R<()> {
                    let (exit, ret) = {
                        let f = self.f.as_ref().ok_or("return outside a function")?;
                        (f.exit, f.ret.clone())
                    };
                    let mut writes = Vec::new();
                    let value = match (e, &ret) {
                        (None, _) => None,
                        (Some(e), Ty::Struct(k)) if k.starts_with("struct ") => {
                            writes = self.struct_result_writes(e, &ret)?;
                            None
                        }
                        (Some(e), Ty::Int(t)) => {
                            let v = self.rv_any(e)?;
                            Some(v.into_int(*t))
                        }
                        (Some(e), Ty::Float(_)) if ret.float_ty().is_some() => {
                            let fty = ret.float_ty().ok_or("float type")?;
                            let v = self.rv_any(e)?;
                            Some(v.into_float(fty))
                        }
                        (Some(e), Ty::Void) => {
                            self.effect(e, ssp)?;
                            None
                        }
                        (Some(e), Ty::Pointer(_)) => Some(self.ptr_expr(e)?.0),
                        (Some(_), other) => {
                            return Err(format!(
                                "return of a value of type {} (not supported yet)",
                                other.describe(self.dm)
                            )
                            .into())
                        }
                    };
                    let c = self.cur;
                    let text = self.text(ssp);
                    self.add_edge(c, exit, EdgeOp::Return { value, writes }, Some(ssp), text);
                    Ok(())
                })();
                if let Err(m) = r {
                    self.rollback(&snap);
                    self.emit_unsupported(ssp, m);
                }
                self.cur = self.new_node();
            }
            Statement::Asm(a) => {
                let snap = self.snap();
                if let Err(m) = self.asm(a, ssp) {
                    self.rollback(&snap);
                    self.emit_unsupported(ssp, m);
                }
            }
        }
    }

    pub(super) fn label_node(&mut self, name: &str) -> NodeIndex {
        if let Some(n) = self.f.as_ref().and_then(|f| f.labels.get(name)) {
            return *n;
        }
        let n = self.new_node();
        if let Some(f) = &mut self.f {
            f.labels.insert(name.to_string(), n);
        }
        n
    }

    pub(super) fn loop_body(&mut self, body: &Node<Statement>, brk: NodeIndex, cont: NodeIndex) {
        if let Some(f) = &mut self.f {
            f.breaks.push(brk);
            f.conts.push(cont);
        }
        self.stmt(body);
        if let Some(f) = &mut self.f {
            f.breaks.pop();
            f.conts.pop();
        }
    }

    /// Branches on `cond` from `cur` to `t`/`f`; an unsupported condition becomes one
    /// Unsupported edge to a dead-end location.
    pub(super) fn branch_or_unsupported(&mut self, cond: &Node<Expression>, t: NodeIndex, f: NodeIndex) {
        let snap = self.snap();
        if let Err(m) = self.branch(cond, t, f, false) {
            self.rollback(&snap);
            self.emit_unsupported(sp(cond.span), m);
        }
    }

    /// Lowers a condition to Assume edges (short-circuit operators become several edges).
    pub(super) fn branch(&mut self, e: &Node<Expression>, t: NodeIndex, f: NodeIndex, neg: bool) -> R<()> {
        self.nested(e, |b| b.branch_unbounded(e, t, f, neg))
    }

    pub(super) fn branch_unbounded(&mut self, e: &Node<Expression>, t: NodeIndex, f: NodeIndex, neg: bool) -> R<()> {
        match &e.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalAnd => {
                let mid = self.new_node();
                self.branch(&b.node.lhs, mid, f, neg)?;
                self.cur = mid;
                self.branch(&b.node.rhs, t, f, neg)
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::LogicalOr => {
                let mid = self.new_node();
                self.branch(&b.node.lhs, t, mid, neg)?;
                self.cur = mid;
                self.branch(&b.node.rhs, t, f, neg)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                self.branch(&u.node.operand, f, t, !neg)
            }
            Expression::Conditional(c) => {
                let m1 = self.new_node();
                let m2 = self.new_node();
                let q = self.find_between(c.node.condition.span.end, c.node.then_expression.span.start, "?");
                let k = self.register_construct(q.unwrap_or(c.node.condition.span.end), None);
                self.decisions.push((k, m1, m2));
                let r = self.branch(&c.node.condition, m1, m2, false);
                self.decisions.pop();
                r?;
                self.cur = m1;
                self.branch(&c.node.then_expression, t, f, neg)?;
                self.cur = m2;
                self.branch(&c.node.else_expression, t, f, neg)
            }
            Expression::Comma(v) if !v.is_empty() => {
                let n = v.len();
                for x in &v[..n - 1] {
                    self.effect(x, self.stmt_sp)?;
                }
                self.branch(&v[n - 1], t, f, neg)
            }
            _ => {
                let v = if self.is_ptr_expr(e) { self.ptr_truth(e)? } else { self.rv_any(e)?.truth() };
                let esp = sp(e.span);
                let src = self.text(esp);
                let c = self.cur;
                if self.pure_mode {
                    return Err("condition in a constant expression".into());
                }
                let k = types::fold_i128(&v);
                if k != Some(0) {
                    self.pending_outcome = self.outcome_into(t);
                    self.add_edge(
                        c,
                        t,
                        EdgeOp::Assume { cond: v.clone(), source_truth: !neg },
                        Some(esp),
                        format!("[{src}]"),
                    );
                }
                if k.is_none() || k == Some(0) {
                    self.pending_outcome = self.outcome_into(f);
                    self.add_edge(
                        c,
                        f,
                        EdgeOp::Assume { cond: types::not(v), source_truth: neg },
                        Some(esp),
                        negated_text(&src),
                    );
                }
                Ok(())
            }
        }
    }

    pub(super) fn switch(&mut self, sw: &Node<SwitchStatement>, ssp: Sp) {
        let exit = self.new_node();
        // Collect this switch's labels.
        let mut labels = Vec::new();
        collect_cases(&sw.node.statement, &mut labels);
        let mut map = HashMap::new();
        for l in &labels {
            let n = self.new_node();
            map.insert(l.span.start, n);
        }
        self.stmt_sp = ssp;
        let snap = self.snap();
        let r = (|| -> R<()> {
            let v = types::promote(self.rv(&sw.node.expression)?);
            let vt = v.ity();
            let vsrc = self.text(sp(sw.node.expression.span));
            let construct = self.register_construct(ssp.0, None);
            let mut last_false = None;
            let mut default = None;
            for l in &labels {
                let target = map[&l.span.start];
                let (cond, lsp, ltext, outcome) = match &l.node.label.node {
                    Label::Default => {
                        default = Some(target);
                        continue;
                    }
                    Label::Case(ce) => {
                        let k = conv(self.pure(|b| b.rv(ce))?, vt);
                        let outcome = types::fold_i128(&k).map(BranchOutcome::Case);
                        (types::binary(BinOp::Eq, v.clone(), k), sp(ce.span), self.text(sp(ce.span)), outcome)
                    }
                    Label::CaseRange(r) => {
                        let lo = conv(self.pure(|b| b.rv(&r.node.low))?, vt);
                        let hi = conv(self.pure(|b| b.rv(&r.node.high))?, vt);
                        let outcome = match (types::fold_i128(&lo), types::fold_i128(&hi)) {
                            (Some(a), Some(b)) => Some(BranchOutcome::CaseRange(a, b)),
                            _ => None,
                        };
                        let a = types::binary(BinOp::Ge, v.clone(), lo);
                        let b = types::binary(BinOp::Le, v.clone(), hi);
                        (types::binary(BinOp::LogAnd, a, b), sp(r.span), self.text(sp(r.span)), outcome)
                    }
                    Label::Identifier(_) => continue,
                };
                let c = self.cur;
                let next = self.new_node();
                self.pending_outcome = outcome.map(|outcome| Decision { construct, outcome });
                self.add_edge(
                    c,
                    target,
                    EdgeOp::Assume { cond: cond.clone(), source_truth: true },
                    Some(lsp),
                    format!("[{vsrc} == {ltext}]"),
                );
                self.add_edge(
                    c,
                    next,
                    EdgeOp::Assume { cond: types::not(cond), source_truth: false },
                    Some(lsp),
                    format!("[!({vsrc} == {ltext})]"),
                );
                last_false = self.cfa.graph.edge_indices().next_back();
                self.cur = next;
            }
            // The false edge of the last case test decides "no case matches".
            if let Some(e) = last_false {
                self.cfa.graph[e].decision = Some(Decision { construct, outcome: BranchOutcome::Default });
            }
            let c = self.cur;
            self.blank(c, default.unwrap_or(exit));
            Ok(())
        })();
        if let Err(m) = r {
            self.rollback(&snap);
            self.emit_unsupported(sp(sw.node.expression.span), m);
        }
        // Body: reached only through the case labels.
        self.cur = self.new_node();
        if let Some(f) = &mut self.f {
            f.cases.push(map);
            f.breaks.push(exit);
        }
        self.stmt(&sw.node.statement);
        if let Some(f) = &mut self.f {
            f.cases.pop();
            f.breaks.pop();
        }
        let c = self.cur;
        self.blank(c, exit);
        self.cur = exit;
    }
}

/// The text of a branch step on which the condition `src` (as written) is false: `!(x != 42)` for
/// `(x != 42)`, `!(x)` for `x`. Issue 35 item 2: a step's text states the condition that held on
/// it, whatever `!` the condition sits under (`if (!(x != 42))` taken with x = 42 showed
/// `[(x != 42)]`).
fn negated_text(src: &str) -> String {
    if crate::cfront::encloses(src.as_bytes()) {
        format!("[!{src}]")
    } else {
        format!("[!({src})]")
    }
}
