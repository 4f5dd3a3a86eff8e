//! What a trace shows of a step's values (issue 35 item 9, decision 221): the value a step
//! assigns (an assignment, an initialised declaration, a call's parameters, a return), and the
//! operands of a branch's condition, as CBMC and CPAchecker show them. Each is recorded as the
//! step runs, as a value of the path (symbolic or concrete), and named and rendered only for a
//! trace, from the same model as the trace's nondeterministic values.
//!
//! A value is recorded only where it is the program's: a condition's operands are those C
//! evaluates whatever the outcome (the left operand of `&&`, `||`, the condition of `?:`), and
//! only objects a reader can name (a variable, an array element, `*p`), never a front-end
//! temporary or a pointer.

use super::*;
use crate::cfa::{BinOp, CType, Expr, Place, VarId};
use crate::verdict::StepValue;

/// The object a recorded value belongs to, named when a trace is rendered.
#[derive(Clone)]
pub(super) enum Subject {
    Var(VarId),
    /// An array element: the array and its flattened index.
    Elem(VarId, Value),
    /// `*p` for a pointer variable `p`.
    Deref(VarId),
    /// The value a `return` statement returns.
    Result,
}

/// The values a step records for its trace line: the nondeterministic call's choice, and the
/// values it assigns or tests. Shared by every product state the step leads to.
#[derive(Default)]
pub(super) struct Recorded {
    pub nondet: Option<Nondet>,
    pub shown: Vec<(Subject, AnyValue)>,
}

impl Recorded {
    /// The recorded values (with the step's nondet choice), shared; `None` when there are none.
    pub fn shared(nondet: Option<Nondet>, shown: Vec<(Subject, AnyValue)>) -> Option<Rc<Recorded>> {
        (nondet.is_some() || !shown.is_empty()).then(|| Rc::new(Recorded { nondet, shown }))
    }
}

/// The value as a bit-vector of at most 64 bits (a float's IEEE pattern), `None` for a pointer.
fn bits_of(v: &AnyValue) -> Option<Value> {
    match v {
        AnyValue::Int(v) => Some(v.clone()),
        AnyValue::Float(f) => Some(crate::semantics::float::to_bits(f).0),
        AnyValue::Ptr(_) => None,
    }
}

/// Symbolic terms of the recorded values, in the order [`render`] reads their model values.
pub(super) fn terms(r: &Recorded, out: &mut Vec<z3::ast::BV>) {
    for (subject, v) in &r.shown {
        if let Subject::Elem(_, Value { val: Val::Sym(t), .. }) = subject {
            out.push(t.clone());
        }
        if let Some(Value { val: Val::Sym(t), .. }) = bits_of(v) {
            out.push(t);
        }
    }
}

/// The recorded values named and rendered, each symbolic one by the next of `model` (`?` where
/// the model gives none).
pub(super) fn render(cfa: &Cfa, r: &Recorded, model: &mut impl Iterator<Item = Option<u64>>) -> Vec<StepValue> {
    let mut bits = |v: &Value| match &v.val {
        Val::Conc(b) => Some(*b),
        Val::Sym(_) => model.next().flatten(),
    };
    let mut out = Vec::new();
    for (subject, v) in &r.shown {
        let name = match subject {
            Subject::Var(var) => cfa.var(*var).name.clone(),
            Subject::Elem(var, index) => {
                let index = bits(index).map(|b| as_i128(b, index.ty));
                element_name(cfa, *var, index)
            }
            Subject::Deref(var) => format!("*{}", cfa.var(*var).name),
            Subject::Result => "\\result".to_string(),
        };
        let value = match (v, bits_of(v)) {
            (AnyValue::Float(f), Some(b)) => bits(&b).map(|b| crate::semantics::float::render(b, f.fty)),
            (AnyValue::Int(i), Some(b)) => bits(&b).map(|b| as_i128(b, i.ty).to_string()),
            _ => continue,
        };
        out.push(StepValue { name, value: value.unwrap_or_else(|| "?".into()) });
    }
    out
}

/// `a[i][j]` for the flattened index of an element of array `var` (`a[?]` when unknown).
fn element_name(cfa: &Cfa, var: VarId, index: Option<i128>) -> String {
    let info = cfa.var(var);
    let dims: &[u64] = match &info.ty {
        CType::Array { dims, .. } | CType::FloatArray { dims, .. } => dims,
        _ => &[],
    };
    let Some(mut flat) = index.filter(|i| *i >= 0 && !dims.is_empty()) else {
        return format!("{}[{}]", info.name, index.map_or("?".to_string(), |i| i.to_string()));
    };
    let mut parts = Vec::with_capacity(dims.len());
    for d in dims.iter().rev() {
        let d = (*d).max(1) as i128;
        parts.push(flat % d);
        flat /= d;
    }
    parts.reverse();
    let mut name = info.name.clone();
    for p in parts {
        name.push_str(&format!("[{p}]"));
    }
    name
}

/// Whether a trace may show the value of variable `var` by its name.
fn nameable(cfa: &Cfa, var: VarId) -> bool {
    let v = cfa.var(var);
    !v.temporary && v.bitfield_unit.is_none() && !v.name.is_empty()
}

/// The objects of a condition whose values a trace shows, each once, in the order they occur.
fn operands<'e>(cfa: &Cfa, e: &'e Expr, out: &mut Vec<&'e Expr>) {
    let push = |e: &'e Expr, out: &mut Vec<&'e Expr>| {
        if !out.contains(&e) {
            out.push(e);
        }
    };
    match e {
        Expr::Var { var, ty } if *ty != ScalarTy::Ptr && nameable(cfa, *var) => push(e, out),
        Expr::Elem { var, index, .. } => {
            if nameable(cfa, *var) {
                push(e, out);
            }
            operands(cfa, index, out);
        }
        Expr::Deref { ptr, ty } => match &**ptr {
            Expr::Var { var, .. } if *ty != ScalarTy::Ptr && nameable(cfa, *var) => push(e, out),
            other => operands(cfa, other, out),
        },
        // C evaluates the right operand of `&&` and `||` only for one outcome of the left.
        Expr::Binary { op: BinOp::LogAnd | BinOp::LogOr, lhs, .. } => operands(cfa, lhs, out),
        Expr::Binary { lhs, rhs, .. } | Expr::PtrDiff { lhs, rhs, .. } => {
            operands(cfa, lhs, out);
            operands(cfa, rhs, out);
        }
        Expr::Offset { base, bytes } => {
            operands(cfa, base, out);
            operands(cfa, bytes, out);
        }
        Expr::AddrOf { offset, .. } => operands(cfa, offset, out),
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::FloatClass { arg, .. } => operands(cfa, arg, out),
        Expr::Ite { cond, .. } => operands(cfa, cond, out),
        Expr::Math { args, .. } | Expr::Libm { args, .. } => {
            for a in args {
                operands(cfa, a, out);
            }
        }
        _ => {}
    }
}

/// The object of an assignment's place, with its index evaluated before the store.
fn subject_of_place(cfa: &Cfa, data: &mut DataState, lhs: &Place) -> Option<Subject> {
    match lhs {
        Place::Var { var, ty } if *ty != ScalarTy::Ptr && nameable(cfa, *var) => Some(Subject::Var(*var)),
        Place::Elem { var, index, ty, .. } if *ty != ScalarTy::Ptr && nameable(cfa, *var) => {
            Some(Subject::Elem(*var, data.eval(cfa, index, None).ok()?.value))
        }
        Place::Deref { ptr: Expr::Var { var, .. }, ty } if *ty != ScalarTy::Ptr && nameable(cfa, *var) => {
            Some(Subject::Deref(*var))
        }
        _ => None,
    }
}

/// The value of `v` as stored into `lhs` (converted to its type, as by assignment).
fn as_stored(lhs: &Place, v: &AnyValue) -> Option<AnyValue> {
    match v {
        AnyValue::Int(i) => Some(AnyValue::Int(crate::semantics::value::cast(i, lhs.int_ty()?))),
        AnyValue::Float(f) => Some(AnyValue::Float(crate::semantics::float::cast(f, lhs.float_ty()?))),
        AnyValue::Ptr(_) => None,
    }
}

impl<'a> Explorer<'a> {
    /// Before `v` is assigned to `lhs` in `data`: what the trace shows of the assignment.
    pub(super) fn record_write(&mut self, data: &mut DataState, lhs: &Place, v: &AnyValue) {
        let cfa = self.cfa;
        if let (Some(subject), Some(v)) = (subject_of_place(cfa, data, lhs), as_stored(lhs, v)) {
            self.recorded.push((subject, v));
        }
    }

    /// After a declaration with an initializer: the variable's value, when it is a scalar.
    pub(super) fn record_declared(&mut self, data: &mut DataState, var: VarId) {
        let cfa = self.cfa;
        let ty = match cfa.var(var).ty {
            CType::Int(t) => ScalarTy::Int(t),
            CType::Float(t) => ScalarTy::Float(t),
            _ => return,
        };
        if !nameable(cfa, var) {
            return;
        }
        if let Ok(v) = data.eval_any(cfa, &Expr::Var { var, ty }, None, &mut Vec::new()) {
            self.recorded.push((Subject::Var(var), v));
        }
    }

    /// A call's parameters with the values of its arguments.
    pub(super) fn record_params(&mut self, callee: crate::cfa::FuncId, args: &[AnyValue]) {
        let cfa = self.cfa;
        for (p, a) in cfa.function(callee).params.iter().zip(args) {
            let v = match (&cfa.var(*p).ty, a) {
                (CType::Int(t), AnyValue::Int(a)) => AnyValue::Int(crate::semantics::value::cast(a, *t)),
                (CType::Float(t), AnyValue::Float(a)) => AnyValue::Float(crate::semantics::float::cast(a, *t)),
                _ => continue,
            };
            if nameable(cfa, *p) {
                self.recorded.push((Subject::Var(*p), v));
            }
        }
    }

    /// A `return`'s value.
    pub(super) fn record_result(&mut self, v: &AnyValue) {
        if !matches!(v, AnyValue::Ptr(_)) {
            self.recorded.push((Subject::Result, v.clone()));
        }
    }

    /// A branch's operands, read in `data` (the condition has no side effects: the values
    /// before and after the step are the same).
    pub(super) fn record_operands(&mut self, data: &mut DataState, cond: &Expr) {
        let cfa = self.cfa;
        let mut found = Vec::new();
        operands(cfa, cond, &mut found);
        for e in found {
            let subject = match e {
                Expr::Var { var, .. } => Subject::Var(*var),
                Expr::Elem { var, index, .. } => match data.eval(cfa, index, None) {
                    Ok(i) => Subject::Elem(*var, i.value),
                    Err(_) => continue,
                },
                Expr::Deref { ptr, .. } => match &**ptr {
                    Expr::Var { var, .. } => Subject::Deref(*var),
                    _ => continue,
                },
                _ => continue,
            };
            if let Ok(v) = data.eval_any(cfa, e, None, &mut Vec::new()) {
                self.recorded.push((subject, v));
            }
        }
    }
}
