//! What a transition invariant reads under `\at(…, AnyPrev)` (decisions 251–253): the text cut
//! at each `\at`, and the variables the ghost copies of [`crate::transition`] must take (or why
//! they cannot). Here, below the instrumentation, so that placing an invariant
//! (`invariants::resolve`) can say it is not checked without importing the instrumentation.

use crate::cfa::{CType, Cfa, EdgeOp, Expr, FuncId, ScalarTy, VarId, VarScope};
use crate::cfront::{lower_assumption_value, AssumptionScope};

use super::Obligation;

/// A piece of a transition invariant's text: as written, or the argument of `\at(…, AnyPrev)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    Text(&'a str),
    Prev(&'a str),
}

/// The text cut at each `\at(e, AnyPrev)`. Another label of `\at` is not understood.
pub(crate) fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("\\at") {
        out.push(Piece::Text(&rest[..i]));
        let after = rest[i + 3..].trim_start();
        let Some(args) = after.strip_prefix('(') else { return Err("`\\at` without `(`".into()) };
        // The argument list up to its closing parenthesis.
        let mut depth = 0usize;
        let mut end = None;
        let mut comma = None;
        for (j, c) in args.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' if depth > 0 => depth -= 1,
                ')' => {
                    end = Some(j);
                    break;
                }
                ',' if depth == 0 => comma = Some(j),
                _ => {}
            }
        }
        let (Some(end), Some(comma)) = (end, comma) else {
            return Err("`\\at(e, label)` is not closed or has no label".into());
        };
        let label = args[comma + 1..end].trim();
        if label != "AnyPrev" {
            return Err(format!("the label `{label}` of `\\at` (only `AnyPrev` is read)"));
        }
        out.push(Piece::Prev(&args[..comma]));
        rest = &args[end + 1..];
    }
    out.push(Piece::Text(rest));
    Ok(out)
}

/// The variables `o` reads under `\at(…, AnyPrev)` (in order of first use), or why the ghost
/// copies cannot reproduce what it reads there.
pub(crate) fn earlier_reads(cfa: &Cfa, o: &Obligation) -> Result<Vec<VarId>, String> {
    let scope = AssumptionScope { result_ty: None, ..o.lowering_scope(cfa) };
    let mut vars = Vec::new();
    for piece in pieces(&o.text)? {
        let Piece::Prev(arg) = piece else { continue };
        let arg = arg.trim();
        // A member of a struct is a variable of its own (flattened), which the renaming of
        // names would not reach.
        if arg.contains("->") || member_dot(arg) {
            return Err(format!("`\\at({arg}, AnyPrev)` reads a member of a struct"));
        }
        let e = lower_assumption_value(cfa, arg, &scope).map_err(|why| format!("`\\at({arg}, AnyPrev)`: {why}"))?;
        plain_reads(cfa, &e, &mut vars).map_err(|what| format!("`\\at({arg}, AnyPrev)` reads {what}"))?;
    }
    // Decision 253: which activation's local an earlier visit in a still running activation
    // means is not said by the format.
    if let Some(v) = vars.iter().find(|v| matches!(cfa.var(**v).scope, VarScope::Local(_))) {
        if may_reenter(cfa, o.scope) {
            return Err(format!(
                "`{}` may be called while it runs (recursion, or a call through a pointer), and `\\at({}, \
                 AnyPrev)` reads its local: an earlier visit may belong to an activation that is still running, \
                 and the format does not say whether that activation's `{}` is meant",
                cfa.function(o.scope).name,
                cfa.var(*v).name,
                cfa.var(*v).name
            ));
        }
    }
    Ok(vars)
}

/// A `.` that selects a member (not one of a number such as `1.5` or `.5`).
pub(crate) fn member_dot(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, c)| {
        *c == b'.' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_') && {
            // The digits, letters and dots before it: a number if its token starts with a digit.
            let start = b[..i].iter().rposition(|p| !(p.is_ascii_alphanumeric() || *p == b'_' || *p == b'.'));
            let first = start.map_or(0, |s| s + 1);
            !b.get(first).is_some_and(|f| f.is_ascii_digit())
        }
    })
}

/// Collects the variables of `e`, which may only read integer or floating-point scalar variables
/// by value; else what else it reads.
fn plain_reads(cfa: &Cfa, e: &Expr, vars: &mut Vec<VarId>) -> Result<(), String> {
    match e {
        Expr::Const { .. } => Ok(()),
        Expr::Var { var, ty } => {
            let info = cfa.var(*var);
            let plain =
                matches!((ty, &info.ty), (ScalarTy::Int(_), CType::Int(_)) | (ScalarTy::Float(_), CType::Float(_)));
            if !plain || info.temporary || info.bitfield_unit.is_some() {
                return Err(format!("`{}`, which is no integer or floating-point variable", info.name));
            }
            if !vars.contains(var) {
                vars.push(*var);
            }
            Ok(())
        }
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::FloatClass { arg, .. } => {
            if arg.ty() == ScalarTy::Ptr {
                return Err("a pointer".into());
            }
            plain_reads(cfa, arg, vars)
        }
        Expr::Binary { lhs, rhs, .. } => {
            if lhs.ty() == ScalarTy::Ptr || rhs.ty() == ScalarTy::Ptr {
                return Err("a pointer".into());
            }
            plain_reads(cfa, lhs, vars)?;
            plain_reads(cfa, rhs, vars)
        }
        Expr::Ite { cond, then, els, .. } => {
            plain_reads(cfa, cond, vars)?;
            plain_reads(cfa, then, vars)?;
            plain_reads(cfa, els, vars)
        }
        Expr::Math { args, .. } => args.iter().try_for_each(|a| plain_reads(cfa, a, vars)),
        Expr::Elem { .. } | Expr::Deref { .. } | Expr::Valid { .. } => Err("memory (an array or a pointer)".into()),
        Expr::WitnessResult { .. } => Err("`\\result`".into()),
        Expr::Libm { .. } => Err("a libm function, whose values are known only approximately".into()),
        Expr::Null | Expr::Func(_) | Expr::AddrOf { .. } | Expr::Offset { .. } | Expr::PtrDiff { .. } => {
            Err("a pointer".into())
        }
    }
}

/// May `f` be called while an activation of it runs: is it on a cycle of the call graph, in
/// which a call through a pointer may call any function and an `atexit` registration calls its
/// handler?
fn may_reenter(cfa: &Cfa, f: FuncId) -> bool {
    let any_pointer = cfa.graph.edge_weights().any(|e| match &e.op {
        EdgeOp::CallPtr { .. } => true,
        EdgeOp::ThreadCreate { routine, .. } => routine.function().is_none(),
        _ => false,
    });
    let callees = |g: FuncId| -> Vec<FuncId> {
        let mut out = Vec::new();
        for e in cfa.graph.edge_weights().filter(|e| e.function == g) {
            match &e.op {
                EdgeOp::Call { callee, .. } | EdgeOp::AtExit { handler: callee, .. } => out.push(*callee),
                EdgeOp::ThreadCreate { routine, .. } => match routine.function() {
                    Some(f) => out.push(f),
                    // A start routine through a pointer may be any function (decision 248).
                    None => out.extend((0..cfa.functions.len()).map(|i| FuncId(i as u32))),
                },
                EdgeOp::CallPtr { .. } => out.extend((0..cfa.functions.len()).map(|i| FuncId(i as u32))),
                _ => {}
            }
        }
        out
    };
    if any_pointer {
        // Conservative: any function may be called through the pointer, from anywhere.
        return true;
    }
    let mut seen = std::collections::HashSet::new();
    let mut todo = callees(f);
    while let Some(g) = todo.pop() {
        if g == f {
            return true;
        }
        if seen.insert(g) {
            todo.extend(callees(g));
        }
    }
    false
}
