//! Tests of the C front end.

use std::path::{Path, PathBuf};

use super::*;
use crate::cfa::*;

fn build(src: &str) -> Cfa {
    build_dm(src, DataModel::Lp64)
}

fn build_dm(src: &str, dm: DataModel) -> Cfa {
    match build_program(Path::new("test.c"), src, dm) {
        Ok(p) => p.cfa,
        Err(e) => panic!("build failed: {e}"),
    }
}

fn fixture(name: &str) -> String {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/c")).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn ty(t: IntTy) -> String {
    t.describe()
}

/// Compact rendering of an expression of any type: `x:int32`, `(int32)e`, `(a + b)`, `&x+0`,
/// `1.5:double`.
fn pe(cfa: &Cfa, e: &Expr) -> String {
    let tn = |t: ScalarTy| match t {
        ScalarTy::Int(t) => ty(t),
        ScalarTy::Float(f) => f.name().to_string(),
        ScalarTy::Ptr => "ptr".to_string(),
    };
    match e {
        Expr::Const { bits, ty: ScalarTy::Int(t) } => {
            format!("{}:{}", crate::cfront::types::value_of(*bits, *t), ty(*t))
        }
        Expr::Const { bits, ty: t } => format!("{}:{}", crate::floatbits::render(*bits, e.fty()), tn(*t)),
        Expr::Var { var, .. } => cfa.var(*var).name.clone(),
        Expr::Elem { var, index, len, .. } => format!("{}[{}]/{len}", cfa.var(*var).name, pe(cfa, index)),
        Expr::Unary { op: UnOp::Neg, arg, ty: ScalarTy::Float(_) } => format!("-({})", pe(cfa, arg)),
        Expr::Unary { op, arg, .. } => format!("{op:?}({})", pe(cfa, arg)),
        Expr::Binary { op, lhs, rhs, ty: t } if lhs.ty() == *t || !op.is_boolean() => {
            format!("({} {op:?} {}):{}", pe(cfa, lhs), pe(cfa, rhs), tn(*t))
        }
        Expr::Binary { op, lhs, rhs, ty: ScalarTy::Int(t) } if lhs.int_ty().is_some() => {
            format!("({} {op:?} {}):{}", pe(cfa, lhs), pe(cfa, rhs), ty(*t))
        }
        Expr::Binary { op, lhs, rhs, .. } => format!("({} {op:?} {})", pe(cfa, lhs), pe(cfa, rhs)),
        Expr::Cast { arg, to } => format!("({}){}", tn(*to), pe(cfa, arg)),
        Expr::Ite { cond, then, els, .. } => format!("({} ? {} : {})", pe(cfa, cond), pe(cfa, then), pe(cfa, els)),
        Expr::WitnessResult { ty: t } => format!("\\result:{}", tn(*t)),
        Expr::PtrDiff { lhs, rhs, size, .. } => format!("(({} - {}) / {size})", pe(cfa, lhs), pe(cfa, rhs)),
        Expr::FloatClass { class, arg } => format!("{class:?}({})", pe(cfa, arg)),
        Expr::Valid { ptr, bytes, write } => {
            format!("valid{}({}, {bytes})", if *write { "" } else { "_read" }, pe(cfa, ptr))
        }
        Expr::Deref { ptr, .. } => format!("*{}", pe(cfa, ptr)),
        Expr::AddrOf { var, offset } => format!("&{}+{}", cfa.var(*var).name, pe(cfa, offset)),
        Expr::Offset { base, bytes } => format!("({} + {})", pe(cfa, base), pe(cfa, bytes)),
        Expr::Null => "NULL".into(),
        Expr::Func(f) => format!("&{}", cfa.function(*f).name),
        Expr::Math { func, args } => {
            format!("{func:?}({})", args.iter().map(|a| pe(cfa, a)).collect::<Vec<_>>().join(", "))
        }
        Expr::Libm { func, args, .. } => {
            format!("{}({})", func.name(), args.iter().map(|a| pe(cfa, a)).collect::<Vec<_>>().join(", "))
        }
    }
}

fn prv(cfa: &Cfa, v: &Expr) -> String {
    pe(cfa, v)
}

fn ptarget(cfa: &Cfa, t: &Target) -> String {
    match t {
        Target::Scalar(l) => plv(cfa, l),
        Target::Struct(w) => format!("struct({} writes)", w.len()),
    }
}

fn plv(cfa: &Cfa, l: &Place) -> String {
    match (l, l.ty()) {
        (_, ScalarTy::Float(_)) => prv(cfa, &l.read()),
        (Place::Var { var, .. }, _) => cfa.var(*var).name.clone(),
        (Place::Elem { var, index, .. }, _) => format!("{}[{}]", cfa.var(*var).name, pe(cfa, index)),
        (Place::Deref { ptr, .. }, _) => format!("*{}", pe(cfa, ptr)),
    }
}

fn pinit(cfa: &Cfa, init: &Option<Init>) -> String {
    match init {
        None => String::new(),
        Some(Init::Scalar(e)) => format!(" = {}", pe(cfa, e)),
        Some(Init::Zero) => " = 0".into(),
        Some(Init::Array(v)) => {
            format!(" = {{{}}}", v.iter().map(|(i, e)| format!("{i}:{}", pe(cfa, e))).collect::<Vec<_>>().join(","))
        }
        Some(Init::FloatArray(v)) => {
            format!(" = {{{}}}", v.iter().map(|(i, e)| format!("{i}:{}", pe(cfa, e))).collect::<Vec<_>>().join(","))
        }
        Some(Init::Bytes(v)) => format!(
            " = bytes{{{}}}",
            v.iter().map(|(o, r)| format!("{o}:{}", pe(cfa, r))).collect::<Vec<_>>().join(",")
        ),
    }
}

fn pop(cfa: &Cfa, op: &EdgeOp) -> String {
    match op {
        EdgeOp::AssignAll { writes } => format!(
            "all{{{}}}",
            writes
                .iter()
                .map(|w| match w {
                    Write::Declare { var, init } => format!("decl {}{}", cfa.var(*var).name, pinit(cfa, init)),
                    Write::Scalar { lhs, rhs } if rhs.int_ty().is_some() => {
                        format!("{} := {}", plv(cfa, lhs), pe(cfa, rhs))
                    }
                    Write::Scalar { lhs: Place::Var { var, .. }, rhs } if rhs.float_ty().is_some() => {
                        format!("{} := {}", cfa.var(*var).name, pe(cfa, rhs))
                    }
                    Write::Scalar { rhs, .. } if rhs.float_ty().is_some() => format!("*float := {}", pe(cfa, rhs)),
                    Write::Scalar { rhs, .. } => format!("ptr := {}", pe(cfa, rhs)),
                    Write::Array { dst, src } => format!("{} := {}", cfa.var(*dst).name, cfa.var(*src).name),
                })
                .collect::<Vec<_>>()
                .join("; ")
        ),
        EdgeOp::Declare { var, init } => format!("decl {}{}", cfa.var(*var).name, pinit(cfa, init)),
        EdgeOp::Assign { lhs, rhs } => format!("{} := {}", plv(cfa, lhs), prv(cfa, rhs)),
        EdgeOp::FloatNondetCall { function, lhs, fty } => format!(
            "{}nondet {function}:{}",
            lhs.as_ref().map(|l| format!("{} := ", plv(cfa, l))).unwrap_or_default(),
            fty.name()
        ),
        EdgeOp::Assume { cond, source_truth } => {
            format!("assume {} {}", pe(cfa, cond), source_truth)
        }
        EdgeOp::BuiltinAssume { cond } => format!("builtin_assume {}", pe(cfa, cond)),
        EdgeOp::Call { callee, args, lhs } => format!(
            "{}call {}({})",
            lhs.as_ref().map(|l| format!("{} := ", ptarget(cfa, l))).unwrap_or_default(),
            cfa.function(*callee).name,
            args.iter().map(|a| prv(cfa, a)).collect::<Vec<_>>().join(", ")
        ),
        EdgeOp::NondetCall { function, lhs, ty: t } => format!(
            "{}nondet {function}:{}",
            lhs.as_ref().map(|l| format!("{} := ", plv(cfa, l))).unwrap_or_default(),
            ty(*t)
        ),
        EdgeOp::Return { value, .. } => format!("return {}", value.as_ref().map(|v| prv(cfa, v)).unwrap_or_default()),
        other => format!("{other:?}"),
    }
}

/// Non-blank edges of the CFA in insertion order: `from->to L1-L2@o1-o2 op | text`.
fn compact(cfa: &Cfa) -> Vec<String> {
    let mut out = Vec::new();
    for e in cfa.graph.edge_indices() {
        let (a, b) = cfa.graph.edge_endpoints(e).unwrap();
        let ed = &cfa.graph[e];
        if matches!(ed.op, EdgeOp::Blank) {
            continue;
        }
        let sp = ed.span.map(|s| format!("{}-{}@{}-{}", s.start_line, s.end_line, s.start_offset, s.end_offset));
        out.push(format!("{}->{} {} {} | {}", a.index(), b.index(), sp.unwrap_or_default(), pop(cfa, &ed.op), ed.text));
    }
    out
}

fn edges(cfa: &Cfa) -> Vec<&CfaEdge> {
    cfa.graph.edge_indices().map(|e| &cfa.graph[e]).collect()
}

fn var_named(cfa: &Cfa, name: &str) -> VarId {
    VarId(cfa.vars.iter().position(|v| v.name == name).unwrap_or_else(|| panic!("no var {name}")) as u32)
}

#[test]
fn dump_fixtures() {
    for f in ["basic.c", "control.c", "exprs.c", "arrays.c", "unsupported.c", "shadow.c"] {
        let cfa = build(&fixture(f));
        if std::env::var("CFRONT_DUMP").is_ok() {
            eprintln!("== {f}\n{}", compact(&cfa).join("\n"));
        }
    }
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for d in rd.flatten() {
        let p = d.path();
        if p.is_dir() {
            if let Ok(rd2) = std::fs::read_dir(&p) {
                for f in rd2.flatten() {
                    let fp = f.path();
                    if matches!(fp.extension().and_then(|x| x.to_str()), Some("c" | "i")) {
                        out.push(fp);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn whole_corpus_builds() {
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus-scale"),
    ] {
        for f in corpus_files(Path::new(dir)) {
            let text = match std::fs::read(&f) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(_) => continue,
            };
            for dm in [DataModel::Ilp32, DataModel::Lp64] {
                n += 1;
                match build_program(&f, &text, dm) {
                    Ok(p) => {
                        if std::env::var("CFRONT_DUMP").is_ok() {
                            let uns: Vec<String> = edges(&p.cfa)
                                .iter()
                                .filter_map(|e| match &e.op {
                                    EdgeOp::Unsupported { what } => Some(what.clone()),
                                    _ => None,
                                })
                                .collect();
                            if dm == DataModel::Lp64 && !uns.is_empty() {
                                eprintln!("{}: {} unsupported: {:?}", f.display(), uns.len(), &uns[..uns.len().min(4)]);
                            }
                        }
                    }
                    Err(e) => failures.push(format!("{} ({}): {e}", f.display(), dm.name())),
                }
            }
        }
    }
    eprintln!("built {n} program/data-model pairs");
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

fn find(cfa: &Cfa, pred: impl Fn(&CfaEdge) -> bool) -> Vec<&CfaEdge> {
    edges(cfa).into_iter().filter(|e| pred(e)).collect()
}

fn by_text<'c>(cfa: &'c Cfa, text: &str) -> Vec<&'c CfaEdge> {
    find(cfa, |e| e.text == text)
}

fn span(e: &CfaEdge) -> (u32, u32, usize, usize) {
    let s = e.span.expect("edge has a span");
    (s.start_line, s.end_line, s.start_offset, s.end_offset)
}

#[test]
fn basic_edges_and_spans() {
    let src = fixture("basic.c");
    let cfa = build(&src);
    assert!(cfa.offsets_exact);
    // One edge for `int x = __VERIFIER_nondet_int();` with the whole declaration as span.
    let e = by_text(&cfa, "int x = __VERIFIER_nondet_int();");
    assert_eq!(e.len(), 1);
    let (l1, l2, o1, o2) = span(e[0]);
    assert_eq!((l1, l2), (7, 7));
    assert_eq!(&src[o1..=o2], "int x = __VERIFIER_nondet_int();");
    let EdgeOp::NondetCall { lhs: Some(Place::Var { var, .. }), ty, .. } = &e[0].op else { panic!() };
    assert_eq!(cfa.var(*var).name, "x");
    assert_eq!(*ty, IntTy::INT);
    // Branch edges: condition only, both polarities.
    let t = by_text(&cfa, "[x == 42]");
    let f = by_text(&cfa, "[!(x == 42)]");
    assert_eq!((t.len(), f.len()), (2, 2));
    let (_, _, o1, o2) = span(t[0]);
    assert_eq!(&src[o1..=o2], "x == 42");
    assert!(matches!(t[0].op, EdgeOp::Assume { source_truth: true, .. }));
    assert!(matches!(
        &f[0].op,
        EdgeOp::Assume { source_truth: false, cond: Expr::Unary { op: UnOp::LogNot, ty: ScalarTy::Int(_), .. } }
    ));
    // Statement spans include the `;`.
    let a = by_text(&cfa, "y = 0;");
    let (_, _, o1, o2) = span(a[0]);
    assert_eq!(&src[o1..=o2], "y = 0;");
    // Call of a defined function: one Call edge with lhs.
    let c = by_text(&cfa, "y = inc(x);");
    assert!(matches!(&c[0].op, EdgeOp::Call { lhs: Some(_), args, .. } if args.len() == 1));
    // The while condition location is a loop head.
    let w = by_text(&cfa, "[y > 0]");
    let src_node = cfa
        .graph
        .edge_endpoints(cfa.graph.edge_indices().find(|&i| cfa.graph[i].text == "[y > 0]").unwrap())
        .unwrap()
        .0;
    assert!(cfa.graph[src_node].loop_head);
    assert_eq!(w.len(), 1);
    // Error edge and implicit return at `}`.
    assert_eq!(find(&cfa, |e| matches!(e.op, EdgeOp::Error { kind: ErrorKind::ReachError, .. })).len(), 1);
    let rets = find(&cfa, |e| e.text == "}");
    assert!(rets.iter().all(|e| matches!(e.op, EdgeOp::Return { value: None, .. })));
    // Program start: the global declaration `int g = 3;` (line 4), then the span of main's
    // header, leading into main's entry.
    let global = cfa.graph.edges(cfa.start).next().unwrap();
    assert!(matches!(global.weight().op, EdgeOp::GlobalDeclaration));
    assert_eq!(global.weight().text, "int g = 3;");
    assert_eq!(span(global.weight()).0, 4);
    let start = cfa.graph.edges(petgraph::visit::EdgeRef::target(&global)).next().unwrap();
    assert!(matches!(start.weight().op, EdgeOp::ProgramStart));
    let (_, _, o1, o2) = span(start.weight());
    assert_eq!(&src[o1..=o2], "int main()");
    assert_eq!(petgraph::visit::EdgeRef::target(&start), cfa.function(cfa.main).entry);
    // Globals.
    assert_eq!(cfa.global_inits.len(), 1);
    assert!(matches!(&cfa.global_inits[0].1, Init::Scalar(Expr::Const { bits: 3, ty: ScalarTy::Int(_), .. })));
    // Parameter and block visibility.
    let x = var_named(&cfa, "x");
    assert_eq!(&src[cfa.var(x).visible.0..cfa.var(x).visible.0 + 3], "int");
    assert_eq!(cfa.var(x).visible.1, src.rfind('}').unwrap() + 1);
}

#[test]
fn switch_goto_loops() {
    let src = fixture("control.c");
    let cfa = build(&src);
    let c1 = by_text(&cfa, "[a == 1]");
    assert_eq!(c1.len(), 1);
    let (_, _, o1, o2) = span(c1[0]);
    assert_eq!(&src[o1..=o2], "1");
    assert_eq!(by_text(&cfa, "[!(a == 2)]").len(), 1);
    // Fall-through from case 1's body into case 2's body: `s = 1;` reaches `s += 2;`.
    let g = &cfa.graph;
    let idx = |t: &str| g.edge_indices().find(|&i| g[i].text == t).unwrap_or_else(|| panic!("{t}"));
    let after_s1 = g.edge_endpoints(idx("s = 1;")).unwrap().1;
    let s2_src = g.edge_endpoints(idx("s += 2;")).unwrap().0;
    assert!(petgraph::algo::has_path_connecting(g, after_s1, s2_src, None));
    // default reached when no case matches.
    let not2 = g.edge_endpoints(idx("[!(a == 2)]")).unwrap().1;
    let s9 = g.edge_endpoints(idx("s = 9;")).unwrap().0;
    assert!(petgraph::algo::has_path_connecting(g, not2, s9, None));
    // for: init, head (loop head), step.
    assert_eq!(by_text(&cfa, "int i = 0;").len(), 1);
    let head = g.edge_endpoints(idx("[i < 10]")).unwrap().0;
    assert!(g[head].loop_head);
    assert_eq!(by_text(&cfa, "i++").len(), 1);
    // while(1): a single Assume edge into the body.
    assert!(matches!(by_text(&cfa, "[1]")[0].op, EdgeOp::Assume { source_truth: true, .. }));
    // goto backward: `goto again;` leads back to the test of `s < 0`.
    let goto = g.edge_endpoints(idx("goto again;")).unwrap().1;
    let test = g.edge_endpoints(idx("[s < 0]")).unwrap().0;
    assert!(petgraph::algo::has_path_connecting(g, goto, test, None));
    // ERROR label.
    let el = find(&cfa, |e| matches!(e.op, EdgeOp::Error { kind: ErrorKind::ErrorLabel, .. }));
    assert_eq!(el.len(), 1);
    let (l1, _, _, _) = span(el[0]);
    assert_eq!(l1, 31);
    let goto_err = g.edge_endpoints(idx("goto ERROR;")).unwrap().1;
    let err_src = g
        .edge_endpoints(
            g.edge_indices().find(|&i| matches!(g[i].op, EdgeOp::Error { kind: ErrorKind::ErrorLabel, .. })).unwrap(),
        )
        .unwrap()
        .0;
    assert!(petgraph::algo::has_path_connecting(g, goto_err, err_src, None));
    // do-while: the body start is a loop head and the condition jumps back there.
    let body = g.edge_endpoints(idx("s--;")).unwrap().0;
    assert!(g.node_weight(body).is_some());
}

#[test]
fn expressions_and_conversions() {
    let cfa = build(&fixture("exprs.c"));
    let lines = compact(&cfa);
    let has = |s: &str| lines.iter().any(|l| l.contains(s));
    assert!(has("decl x = ((int32)c Add (int32)c):int32"), "{lines:#?}");
    // -1 < 1u compares as unsigned.
    assert!(has("decl cmp = (4294967295:uint32 Lt 1:uint32):int32"));
    assert!(has("decl l = 1:int64"));
    // Nested calls are hoisted innermost first, each with the call expression's span.
    let n = by_text(&cfa, "__VERIFIER_nondet_int()");
    assert!(n.len() >= 2);
    assert!(n.iter().all(
        |e| matches!(&e.op, EdgeOp::NondetCall { lhs: Some(Place::Var { var, .. }), .. } if cfa.var(*var).temporary)
    ));
    assert!(has("__tmp_1 := call f(__tmp_2) | f(__VERIFIER_nondet_int())"));
    assert!(has("decl y = (__tmp_1 Add 1:int32):int32"));
    // Post-increment in an expression: temporary, increment, then the assignment.
    let i = lines.iter().position(|l| l.contains(":= y | y++")).expect("post-inc temp");
    assert!(lines[i + 1].contains("y := (y Add 1:int32):int32"));
    assert!(lines[i + 2].contains("x := (x Sub 1:int32):int32"));
    assert!(lines[i + 3].contains("x := (__tmp_4 Add x):int32"));
    assert!(has("x := (x Add 3:int32):int32 | x += 3;"));
    // Short-circuit with a call in the right operand: branches, the call only on the true path.
    assert!(has("assume (x Gt 0:int32):int32 true | [x > 0]"));
    assert!(has("call f(x) | f(x)"));
    // unsigned u = nondet_int(): one edge, lhs unsigned.
    let u = by_text(&cfa, "unsigned u = __VERIFIER_nondet_int();");
    assert!(
        matches!(&u[0].op, EdgeOp::NondetCall { lhs: Some(Place::Var { ty, .. }), .. } if *ty == ScalarTy::Int(IntTy::UINT))
    );
    assert!(has("decl b = (_Bool)x"));
    // `!` flips: the edge into the then-branch carries the negated condition and source_truth true.
    assert!(has("assume LogNot((x Eq 42:int32):int32) true"));
    assert!(has("assume (x Eq 42:int32):int32 false"));
    // `?:` in a statement is a branch (as in CPAchecker), and its edges decide the construct
    // at the `?` (YAML branching waypoints point there).
    assert!(!has("return (x ? y : z)"));
    let src = fixture("exprs.c");
    let q = src.find("x ? y").unwrap() + 2;
    let deciding: Vec<_> =
        cfa.graph.edge_weights().filter(|e| e.decision.as_ref().map(|d| d.construct) == Some(q)).collect();
    assert_eq!(deciding.len(), 2, "both outcomes of `x ? y : z` decide it");
    assert!(cfa.branch_keywords.contains(&(q, q)));
}

#[test]
fn arrays_flattening_and_initializers() {
    let cfa = build(&fixture("arrays.c"));
    let lines = compact(&cfa);
    let has = |s: &str| lines.iter().any(|l| l.contains(s));
    let g = var_named(&cfa, "g");
    assert_eq!(cfa.var(g).ty, CType::Array { elem: IntTy::INT, dims: vec![2, 3] });
    let gi = cfa.global_inits.iter().find(|(v, _)| *v == g).unwrap();
    let Init::Array(items) = &gi.1 else { panic!() };
    let idx: Vec<u64> = items.iter().map(|(i, _)| *i).collect();
    assert_eq!(idx, vec![0, 1, 2, 3]);
    let h = var_named(&cfa, "h");
    assert_eq!(cfa.var(h).ty, CType::Array { elem: IntTy::INT, dims: vec![3] });
    assert!(has("decl s = {0:97:int8,1:98:int8,2:115:int8}"), "{lines:#?}");
    assert!(has("decl t = {0:104:int8,1:105:int8,2:0:int8}"));
    assert!(has("decl d = {2:7:int32,3:8:int32}"));
    assert!(has("decl m = {0:1:int32,1:2:int32,2:3:int32}"));
    assert!(has("g[(((int64)i Mul 3:int64):int64 Add (int64)j):int64] := (h[2:int64]/3 Add m["));
}

#[test]
fn unsupported_statements_keep_the_cfa() {
    let cfa = build(&fixture("unsupported.c"));
    let uns: Vec<String> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Unsupported { what } => Some(what.clone()),
            _ => None,
        })
        .collect();
    // Pointers are modelled (decision 36): only the two `long double` steps are unsupported.
    assert_eq!(uns.len(), 2, "{uns:#?}");
    assert!(uns.iter().all(|m| m.contains("long double")), "{uns:#?}");
    assert!(
        matches!(&by_text(&cfa, "int *p = &x;")[0].op, EdgeOp::Declare { init: Some(Init::Scalar(p)), .. } if p.ty() == ScalarTy::Ptr)
    );
    assert!(matches!(
        &by_text(&cfa, "*p = 2;")[0].op,
        EdgeOp::Assign { lhs: Place::Deref { .. }, rhs } if rhs.int_ty().is_some()
    ));
    // Structs are flattened: `s.a = 3` is an assignment to the member variable.
    assert!(!uns.iter().any(|m| m.contains("struct")), "{uns:#?}");
    assert!(matches!(&by_text(&cfa, "s.a = 3;")[0].op, EdgeOp::Assign { rhs, .. } if rhs.int_ty().is_some()));
    // The statement after the unsupported ones is still there.
    assert_eq!(by_text(&cfa, "x = x + 1;").len(), 1);
    let s = var_named(&cfa, "s");
    assert_eq!(cfa.var(s).ty, CType::Unsupported("struct S".into()));
}

#[test]
fn data_model_long() {
    let src = "int main() { long l = 0; unsigned long s = sizeof(long); return 0; }";
    for (dm, bits) in [(DataModel::Ilp32, 32), (DataModel::Lp64, 64)] {
        let cfa = build_dm(src, dm);
        let l = var_named(&cfa, "l");
        assert_eq!(cfa.var(l).ty, CType::Int(IntTy::new(bits, true)));
        let lines = compact(&cfa);
        assert!(lines.iter().any(|x| x.contains(&format!("decl s = {}:uint{bits}", bits / 8))), "{lines:?}");
    }
}

#[test]
fn gcc_preprocessed_program() {
    let src = fixture("include.c");
    let p = build_program(Path::new("include.c"), &src, DataModel::Lp64).expect("builds");
    let cfa = &p.cfa;
    assert!(!cfa.offsets_exact);
    let e = find(cfa, |e| e.text.starts_with("int x = __VERIFIER_nondet_int"));
    assert_eq!(e.len(), 1);
    let s = e[0].span.unwrap();
    assert_eq!((s.start_line, s.end_line), (8, 8));
    let b = find(cfa, |e| e.text == "[x > 10]");
    assert_eq!(b[0].span.unwrap().start_line, 9);
    let pr = find(cfa, |e| matches!(&e.op, EdgeOp::NondetCall { function, .. } if function == "printf"));
    assert_eq!(pr.len(), 1);
    assert_eq!(pr[0].span.unwrap().start_line, 10);
    // reach_error() is an Error edge even though the program defines it.
    let er = find(cfa, |e| matches!(e.op, EdgeOp::Error { kind: ErrorKind::ReachError, .. }));
    assert_eq!(er.len(), 1);
    assert_eq!(er[0].span.unwrap().start_line, 11);
    let m = cfa.function(cfa.main);
    assert_eq!(m.span.start_line, 7);
    assert!(build_program(Path::new("include.c"), &src, DataModel::Ilp32).is_ok());
}

#[test]
fn malformed_and_garbage() {
    let err = build_program(Path::new("bad.c"), "int main() {\n  int x = ;\n}\n", DataModel::Lp64).unwrap_err();
    match err {
        InputError::Malformed { line, col, message, .. } => {
            assert_eq!((line, col), (2, 11), "{message}");
            assert!(message.contains("expected"));
        }
        other => panic!("{other}"),
    }
    // Comment before the error keeps columns exact.
    let err = build_program(Path::new("bad.c"), "/* c */ int main() { return 0 }\n", DataModel::Lp64).unwrap_err();
    assert!(matches!(err, InputError::Malformed { line: 1, col: 31, .. }), "{err}");
    let err = build_program(Path::new("nomain.c"), "int f() { return 0; }\n", DataModel::Lp64).unwrap_err();
    assert!(matches!(err, InputError::Invalid { .. }));
    let garbage: String = (0..2000u32).map(|i| char::from_u32((i * 7919) % 0x2FF + 1).unwrap_or('x')).collect();
    assert!(matches!(build_program(Path::new("g.c"), &garbage, DataModel::Lp64), Err(InputError::Malformed { .. })));
    let bytes: Vec<u8> = (0..3000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let text = String::from_utf8_lossy(&bytes);
    assert!(build_program(Path::new("g.c"), &text, DataModel::Lp64).is_err());
    // Deep else-if chains (RERS) do not overflow the stack.
    let mut deep = String::from("int main() { int x = 0;\n");
    for i in 0..3000 {
        deep.push_str(&format!("if (x == {i}) x = 1; else\n"));
    }
    deep.push_str("x = 2; return x; }\n");
    assert!(build_program(Path::new("deep.c"), &deep, DataModel::Lp64).is_ok());
}

fn scope_at(cfa: &Cfa, src: &str, needle: &str) -> AssumptionScope {
    AssumptionScope {
        function: Some(cfa.main),
        offset: Some(src.find(needle).unwrap()),
        result_ty: None,
        ..Default::default()
    }
}

#[test]
fn assumptions() {
    let src = fixture("shadow.c");
    let cfa = build(&src);
    let one = |text: &str, sc: &AssumptionScope| -> Result<Expr, crate::cfront::ConjunctError> {
        let mut v = lower_assumption(&cfa, text, sc);
        assert_eq!(v.len(), 1, "{text}");
        v.remove(0)
    };
    let var_of = |e: &Expr| -> VarId {
        let Expr::Binary { lhs, ty: ScalarTy::Int(_), .. } = e else { panic!("{e:?}") };
        match &**lhs {
            Expr::Var { var, ty: ScalarTy::Int(_), .. } => *var,
            Expr::Cast { arg, to: ScalarTy::Int(_), .. } => match &**arg {
                Expr::Var { var, ty: ScalarTy::Int(_), .. } => *var,
                _ => panic!(),
            },
            other => panic!("{other:?}"),
        }
    };
    // Innermost visible declaration.
    let inner = one("x == 3", &scope_at(&cfa, &src, "x++")).unwrap();
    let inner_v = var_of(&inner);
    assert_eq!(cfa.var(inner_v).visible.0, src.find("int x = 3").unwrap());
    let outer = one("x == 2", &scope_at(&cfa, &src, "return x")).unwrap();
    assert_eq!(cfa.var(var_of(&outer)).visible.0, src.find("int x = 2").unwrap());
    // Globals only without a function.
    let g = one("x == 1", &AssumptionScope::default()).unwrap();
    assert_eq!(cfa.var(var_of(&g)).scope, VarScope::Global);
    // Several conjuncts, legacy `=`, suffixes, casts, negative numbers, char literals.
    let sc = scope_at(&cfa, &src, "return x");
    let v = lower_assumption(&cfa, "x = 5; x == (2); ;x != -1;", &sc);
    assert_eq!(v.len(), 3);
    assert!(matches!(&v[0], Ok(Expr::Binary { op: BinOp::Eq, ty: ScalarTy::Int(_), .. })));
    let u = one("x == 4294967295U", &sc).unwrap();
    assert!(matches!(&u, Expr::Binary { lhs, ty: ScalarTy::Int(_), .. } if lhs.int_ty() == Some(IntTy::UINT)));
    assert!(one("x == 1LL", &sc).is_ok());
    let c = one("(unsigned char)200 == x", &sc).unwrap();
    assert!(
        matches!(&c, Expr::Binary { lhs, ty: ScalarTy::Int(_), .. } if crate::cfront::types::fold_i128(lhs) == Some(200))
    );
    assert!(one("x == 'a'", &sc).is_ok());
    assert!(one("x > 0 ==> x < 10", &sc).is_ok());
    // \result.
    let r =
        one("\\result == 42", &AssumptionScope { result_ty: Some(ScalarTy::Int(IntTy::UINT)), ..sc.clone() }).unwrap();
    assert!(
        matches!(&r, Expr::Binary { lhs, ty: ScalarTy::Int(_), .. } if matches!(**lhs, Expr::WitnessResult { ty: ScalarTy::Int(ty) } if ty == IntTy::UINT))
    );
    assert!(one("\\result == 42", &sc).unwrap_err().to_string().contains("\\result"));
    // Errors.
    let e = one("y == 1", &sc).unwrap_err();
    assert!(
        matches!(&e, crate::cfront::ConjunctError::NoSuchObject(m) if m.contains("unknown identifier `y` in scope main")),
        "{e}"
    );
    assert!(one("x == 1.5", &sc).is_ok());
    assert!(one("x == 1.5L", &sc).unwrap_err().to_string().contains("not supported"));
    assert!(one("x == f(1)", &sc).is_err());
    assert!(matches!(one("x == (", &sc), Err(crate::cfront::ConjunctError::Syntax { .. })));
    assert!(matches!(one("x == f(1)", &sc), Err(crate::cfront::ConjunctError::Unsupported(_))));
    assert!(one("x++ == 1", &sc).is_err());
    // Temporaries are never visible.
    let e =
        build("extern int __VERIFIER_nondet_int(); int main() { if (__VERIFIER_nondet_int()) return 1; return 0; }");
    let r = lower_assumption(
        &e,
        "__tmp_1 == 0",
        &AssumptionScope { function: Some(e.main), offset: None, result_ty: None, ..Default::default() },
    );
    assert!(r[0].is_err());
}

/// Decision 249: a local declared later in the block (or in a block that has ended) hides no
/// global before its declaration; without a global of the name, the only local is still taken.
#[test]
fn later_local_hides_no_global_before_its_declaration() {
    let src =
        "int n = 7;\nint main(void) {\n  int i = 0;\n  while (i < 3) {\n    { int k = 1; i += k; }\n    i++;\n  }\n  \
               int n = 5;\n  return n + i;\n}\n";
    let cfa = build(src);
    let var_of = |text: &str, needle: &str| -> VarId {
        let mut v = lower_assumption(&cfa, text, &scope_at(&cfa, src, needle));
        let Ok(Expr::Binary { lhs, .. }) = v.remove(0) else { panic!("{text}") };
        let Expr::Var { var, .. } = *lhs else { panic!("{lhs:?}") };
        var
    };
    // At the loop, before `int n = 5;`: the global.
    assert_eq!(cfa.var(var_of("n == 7", "while")).scope, VarScope::Global);
    // After it: the local.
    assert_eq!(cfa.var(var_of("n == 5", "return")).scope, VarScope::Local(cfa.main));
    // `k`'s block has ended at `i++`, and no global `k` exists: the only local of the name.
    assert_eq!(cfa.var(var_of("k == 1", "i++")).scope, VarScope::Local(cfa.main));
}

#[test]
fn result_types() {
    let cfa = build(&fixture("exprs.c"));
    assert_eq!(function_result_type(&cfa, "f"), Some(ScalarTy::Int(IntTy::INT)));
    assert_eq!(function_result_type(&cfa, "__VERIFIER_nondet_uchar"), Some(ScalarTy::Int(IntTy::UCHAR)));
    assert_eq!(function_result_type(&cfa, "__VERIFIER_nondet_ulong"), Some(ScalarTy::Int(IntTy::new(64, false))));
    assert_eq!(function_result_type(&cfa, "reach_error"), None);
}

#[test]
fn special_calls() {
    let cfa = build(
        "extern int __VERIFIER_nondet_int(void); void __VERIFIER_assume(int); void abort(void); void exit(int);\n\
         void __assert_fail(const char *, const char *, unsigned, const char *);\n\
         int main() { int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 0); assert(x != 3);\n\
         if (x == 7) abort(); if (x == 8) exit(0); if (x == 9) __assert_fail(\"0\", \"f\", 1, \"g\");\n\
         double *p = __VERIFIER_nondet_pointer(); foo(); return 0; }",
    );
    assert_eq!(find(&cfa, |e| matches!(e.op, EdgeOp::BuiltinAssume { .. })).len(), 1);
    assert_eq!(find(&cfa, |e| matches!(e.op, EdgeOp::Terminate { .. })).len(), 2);
    let af = find(&cfa, |e| matches!(e.op, EdgeOp::Error { kind: ErrorKind::AssertFail, .. }));
    assert_eq!(af.len(), 2);
    assert_eq!(by_text(&cfa, "[!(x != 3)]").len(), 1);
    let uns: Vec<String> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Unsupported { what } => Some(what.clone()),
            _ => None,
        })
        .collect();
    assert!(uns.iter().any(|u| u.contains("call to undefined function `foo`")), "{uns:?}");
}

/// Decision 254: gcc's atomic builtins are one step each (the object's new value and the
/// result written together); what is not modelled is a named unsupported step.
#[test]
fn atomic_builtins_are_one_step() {
    let cfa = build(
        "int g; unsigned char c;\n\
         int main() { int e = 0, r;\n\
         r = __sync_fetch_and_add(&g, 1);\n\
         if (__sync_bool_compare_and_swap(&c, 1, 2)) r = 1;\n\
         __atomic_compare_exchange_n(&g, &e, 3, 0, 5, 5);\n\
         __atomic_compare_exchange_n(&g, &e, 3, 1, 5, 5);\n\
         __sync_fetch_and_add(&g, r++);\n\
         __sync_fetch_and_add(&g);\n\
         __sync_synchronize();\n\
         return r; }",
    );
    let one = |text: &str| -> Vec<usize> {
        by_text(&cfa, text)
            .iter()
            .map(|e| match &e.op {
                EdgeOp::AssignAll { writes } => writes.len(),
                other => panic!("{text}: {other:?}"),
            })
            .collect()
    };
    // The object and `r`, in one step.
    assert_eq!(one("r = __sync_fetch_and_add(&g, 1);"), vec![2]);
    // `*expected`, then the object.
    assert_eq!(one("__atomic_compare_exchange_n(&g, &e, 3, 0, 5, 5);"), vec![2]);
    assert_eq!(one("__sync_synchronize();"), vec![0]);
    let uns: Vec<String> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Unsupported { what } => Some(what.clone()),
            _ => None,
        })
        .collect();
    assert!(uns.iter().any(|u| u.contains("weak `__atomic_compare_exchange_n`")), "{uns:?}");
    assert!(uns.iter().any(|u| u.contains("argument `r++` with side effects")), "{uns:?}");
    assert!(uns.iter().any(|u| u.contains("with 1 arguments (2 expected)")), "{uns:?}");
    assert!(!uns.iter().any(|u| u.contains("undefined function")), "{uns:?}");
    // A program's own function of that name is called as written.
    let own = build("int __sync_fetch_and_add(int *p, int v) { return v; }\nint g;\nint main() { return __sync_fetch_and_add(&g, 1); }");
    assert!(find(&own, |e| matches!(e.op, EdgeOp::AssignAll { .. })).is_empty());
}

#[test]
fn statics_and_global_failures() {
    let src = "int g = 1;\nint f() { static int n = 5; n++; return n; }\nint main() { return f(); }\n";
    let cfa = build(src);
    let n = var_named(&cfa, "n");
    assert_eq!(cfa.var(n).scope, VarScope::Global);
    assert!(cfa
        .global_inits
        .iter()
        .any(|(v, i)| *v == n && matches!(i, Init::Scalar(Expr::Const { bits: 5, ty: ScalarTy::Int(_), .. }))));
    assert!(find(&cfa, |e| matches!(&e.op, EdgeOp::Declare { var, .. } if *var == n)).is_empty());
    // The static is found by assumptions inside f.
    let f = cfa.function_by_name("f").unwrap();
    let sc = AssumptionScope {
        function: Some(f),
        offset: Some(src.find("n++").unwrap()),
        result_ty: None,
        ..Default::default()
    };
    assert!(lower_assumption(&cfa, "n == 6", &sc)[0].is_ok());
    // A global initializer that cannot be lowered makes main start with an Unsupported edge.
    let cfa = build("int a = 1;\nint b = a + (long double)1;\nint main() { return b; }\n");
    let entry = cfa.function(cfa.main).entry;
    let first = cfa.graph.edges(entry).next().unwrap();
    assert!(matches!(first.weight().op, EdgeOp::Unsupported { .. }));
}

#[test]
fn declared_nondet_with_unknown_suffix() {
    let cfa = build("typedef unsigned short myu16; myu16 __VERIFIER_nondet_myu16(void);\nint main() { myu16 v = __VERIFIER_nondet_myu16(); return v; }\n");
    let e = find(&cfa, |e| matches!(&e.op, EdgeOp::NondetCall { ty, .. } if *ty == IntTy::USHORT));
    assert_eq!(e.len(), 1);
    assert_eq!(cfa.typedefs, vec![("myu16".to_string(), CType::Int(IntTy::USHORT))]);
    let sc = AssumptionScope { function: Some(cfa.main), offset: None, result_ty: None, ..Default::default() };
    assert!(lower_assumption(&cfa, "v == (myu16)3", &sc)[0].is_ok());
}

/// YAML anchors: statement starts, branch decisions of every construct, call parentheses.
#[test]
fn source_anchors_for_yaml_waypoints() {
    let src = "int f(int a) { return a; }\nint main() {\n  int a = __VERIFIER_nondet_int();\n  if (a > 1 || a < -1) a = 0;\n  switch (a) { case 1: a = 2; case 3: break; default: a = 4; }\n  do { a--; } while (a > 0);\n  int r = f(a);\n  return 0;\n}\n";
    let cfa = build(src);
    let at = |needle: &str| src.find(needle).unwrap();
    // Statement and declaration starts are anchors.
    for s in ["int a = __VERIFIER", "if (a > 1", "switch (a)", "do {", "int r = f(a);", "return 0;", "a = 0;"] {
        assert!(cfa.statement_starts.iter().any(|(o, _)| *o == at(s)), "statement start of `{s}`");
    }
    let decisions = |construct: usize| -> Vec<BranchOutcome> {
        let mut v: Vec<_> = cfa
            .graph
            .edge_weights()
            .filter_map(|e| e.decision.as_ref())
            .filter(|d| d.construct == construct)
            .map(|d| d.outcome.clone())
            .collect();
        v.sort_by_key(|o| format!("{o:?}"));
        v
    };
    // `a > 1 || a < -1`: true from either operand, false only from the last one.
    assert_eq!(
        decisions(at("if (a")),
        vec![BranchOutcome::Bool(false), BranchOutcome::Bool(true), BranchOutcome::Bool(true)]
    );
    // switch: one decision per case label, and "no case matches" on the last test's false edge.
    assert_eq!(decisions(at("switch")), vec![BranchOutcome::Case(1), BranchOutcome::Case(3), BranchOutcome::Default]);
    // do … while: listed under both keywords.
    let do_kw = at("do {");
    let while_kw = at("while (a > 0)");
    assert!(cfa.branch_keywords.contains(&(while_kw, do_kw)));
    assert_eq!(decisions(do_kw).len(), 2);
    // Calls know the offset of their closing parenthesis.
    let paren_nondet = at("__VERIFIER_nondet_int()") + "__VERIFIER_nondet_int(".len();
    let paren_f = at("f(a);") + 3;
    let parens: Vec<usize> = cfa.graph.edge_weights().filter_map(|e| e.call_paren).collect();
    assert!(parens.contains(&paren_nondet) && parens.contains(&paren_f), "{parens:?}");
}

// ----------------------------------------------------------------- floating point

fn ops(cfa: &Cfa) -> Vec<String> {
    edges(cfa).iter().filter(|e| !matches!(e.op, EdgeOp::Blank)).map(|e| pop(cfa, &e.op)).collect()
}

#[test]
fn float_types_constants_and_conversions() {
    let cfa = build(
        "int main() { float f = 1; double d = 0.1; float g = 0.1f; long double ld; int i = f; \
         double h = 0x1.8p1; d = f + i; i = d; _Bool b = d; return 0; }",
    );
    assert_eq!(cfa.var(var_named(&cfa, "f")).ty, CType::Float(FloatTy::F32));
    assert_eq!(cfa.var(var_named(&cfa, "d")).ty, CType::Float(FloatTy::F64));
    assert!(matches!(cfa.var(var_named(&cfa, "ld")).ty, CType::Unsupported(_)));
    let o = ops(&cfa);
    assert!(o.contains(&"decl f = 1.0:float".to_string()), "{o:?}");
    assert!(o.contains(&"decl d = 0.1:double".to_string()), "{o:?}");
    assert!(o.contains(&"decl g = 0.1:float".to_string()), "{o:?}");
    assert!(o.contains(&"decl i = (int32)f".to_string()), "{o:?}");
    assert!(o.contains(&"decl h = 3.0:double".to_string()), "{o:?}");
    // Usual arithmetic conversions: float + int is float; the sum converts to double.
    assert!(o.contains(&"d := (double)(f Add (float)i):float".to_string()), "{o:?}");
    assert!(o.contains(&"i := (int32)d".to_string()), "{o:?}");
    assert!(o.contains(&"decl b = (_Bool)d".to_string()), "{o:?}");
}

#[test]
fn float_comparisons_conditions_and_nondet() {
    let cfa = build(
        "extern float __VERIFIER_nondet_float(void); extern double __VERIFIER_nondet_double(void);\n\
         int main() { float x = __VERIFIER_nondet_float(); double y; y = __VERIFIER_nondet_double(); \
         if (x != x) return 1; if (y) return 2; if (!x) return 3; int i = x < 2.5; return 0; }",
    );
    let o = ops(&cfa);
    assert!(o.contains(&"x := nondet __VERIFIER_nondet_float:float".to_string()), "{o:?}");
    assert!(o.contains(&"y := nondet __VERIFIER_nondet_double:double".to_string()), "{o:?}");
    assert!(o.contains(&"assume (x Ne x) true".to_string()), "{o:?}");
    assert!(o.contains(&"assume (y Ne 0.0:double) true".to_string()), "{o:?}");
    assert!(o.contains(&"assume (x Ne 0.0:float) false".to_string()), "{o:?}");
    // `x < 2.5` compares as double (C11 6.3.1.8).
    assert!(o.contains(&"decl i = ((double)x Lt 2.5:double)".to_string()), "{o:?}");
}

#[test]
fn float_math_functions_and_builtins() {
    let cfa = build(
        "double fabs(double); double sqrt(double); double cbrt(double);\n\
         int main() { double a = 2.0; double b = fabs(a) + sqrt(a); float n = __builtin_nanf(\"\"); \
         float inf = __builtin_inff(); int k = __builtin_isnan(n) + __isinff(inf); double s = cbrt(a); \
         float t = sinf(n) + fmodf(n, 2); return 0; }",
    );
    let o = ops(&cfa);
    assert!(o.contains(&"decl b = (Fabs(a) Add Sqrt(a)):double".to_string()), "{o:?}");
    assert!(o.contains(&"decl n = NAN:float".to_string()), "{o:?}");
    assert!(o.contains(&"decl inf = INFINITY:float".to_string()), "{o:?}");
    assert!(o.contains(&"decl k = (IsNan(n) Add IsInf(inf)):int32".to_string()), "{o:?}");
    assert!(o.contains(&"decl t = (sin(n) Add fmod(n, 2.0:float)):float".to_string()), "{o:?}");
    // Math functions that are not modelled are unsupported steps naming the function.
    assert!(
        edges(&cfa).iter().any(|e| matches!(&e.op, EdgeOp::Unsupported { what } if what.contains("`cbrt`"))),
        "{o:?}"
    );
}

#[test]
fn float_constant_parsing() {
    use crate::cfront::types::{parse_decimal_float, parse_hex_float};
    assert_eq!(parse_decimal_float("0.1", FloatTy::F32).unwrap(), 0.1f32.to_bits() as u64);
    assert_eq!(parse_decimal_float("1e-10", FloatTy::F64).unwrap(), 1e-10f64.to_bits());
    assert_eq!(parse_decimal_float("1.", FloatTy::F64).unwrap(), 1f64.to_bits());
    assert_eq!(parse_decimal_float(".5e1", FloatTy::F64).unwrap(), 5f64.to_bits());
    // Decimal to float rounds once (not via double): 16777217 is a tie → even.
    assert_eq!(parse_decimal_float("16777217", FloatTy::F32).unwrap(), 16777216f32.to_bits() as u64);
    assert_eq!(parse_hex_float("1.8p1", FloatTy::F64).unwrap(), 3f64.to_bits());
    assert_eq!(parse_hex_float("0x1p-2", FloatTy::F32).unwrap(), 0.25f32.to_bits() as u64);
    assert!(parse_hex_float("1.ffffffffffffffp0", FloatTy::F64).is_err());
}

#[test]
fn float_witness_assumptions() {
    let cfa = build("int main() { float f = 1.0f; double d = 2.0; int i = 1; return 0; }");
    let scope = AssumptionScope { function: Some(cfa.main), offset: None, result_ty: None, ..Default::default() };
    let l = |s: &str| super::lower_assumption(&cfa, s, &scope);
    let p = |s: &str| {
        let r = l(s);
        pe(&cfa, r[0].as_ref().unwrap_or_else(|m| panic!("{s}: {m}")))
    };
    // A double literal compared with a float variable: f converts to double (C11 6.3.1.8).
    assert_eq!(p("f == 27.0"), "((double)f Eq 27.0:double)");
    assert_eq!(p("f == 0.1f"), "(f Eq 0.1:float)");
    assert_eq!(p("d == 1.0"), "(d Eq 1.0:double)");
    assert_eq!(p("d == INFINITY"), "(d Eq INFINITY:double)");
    assert_eq!(p("d == -INFINITY"), "(d Eq -INFINITY:double)");
    assert_eq!(p("f == +INFINITY"), "(f Eq INFINITY:float)");
    assert_eq!(p("i == (int)1.9"), "(i Eq (int32)1.9:double):int32");
    // `x == NAN` (old CBMC: `x = +NAN`) reads as isnan(x); `!=` as its negation.
    assert_eq!(p("f = +NAN"), "IsNan(f)");
    assert_eq!(p("d != NAN"), "LogNot(IsNan(d))");
}

/// GNU statement expressions: value context (the last expression is the value) and statement
/// context (glibc's `assert` expands to one); the declared name is visible in its initializer.
#[test]
fn statement_expressions_and_initializer_scope() {
    let src = "int main() {\n  int z = ({ int y = 2; z = 3 * y; });\n  ({ if (z) ; else __assert_fail(\"0\", \"f.c\", 3, \"main\"); });\n  return z;\n}\n";
    let cfa = build(src);
    let unsupported: Vec<_> = cfa.graph.edge_weights().filter(|e| matches!(e.op, EdgeOp::Unsupported { .. })).collect();
    assert!(unsupported.is_empty(), "{unsupported:?}");
    // `z = 3 * y` inside the initializer assigns the z being declared, not some other variable.
    let z: Vec<_> = cfa.vars.iter().enumerate().filter(|(_, v)| v.name == "z").collect();
    assert_eq!(z.len(), 1);
    let zid = VarId(z[0].0 as u32);
    assert!(cfa
        .graph
        .edge_weights()
        .any(|e| matches!(&e.op, EdgeOp::Assign { lhs: Place::Var { var, .. }, rhs } if *var == zid && rhs.int_ty().is_some())));
    assert!(cfa.graph.edge_weights().any(|e| matches!(&e.op, EdgeOp::Declare { var, init: Some(_) } if *var == zid)));
    assert!(cfa.graph.edge_weights().any(|e| matches!(&e.op, EdgeOp::Error { kind: ErrorKind::AssertFail, .. })));
    // An inner declaration's initializer reads the inner (new) variable, never the outer one.
    let src2 = "int main() {\n  int x = 5;\n  { int x = x + 1; return x; }\n}\n";
    let cfa2 = build(src2);
    let xs: Vec<VarId> =
        cfa2.vars.iter().enumerate().filter(|(_, v)| v.name == "x").map(|(i, _)| VarId(i as u32)).collect();
    let inner = xs[1];
    let reads_inner = cfa2.graph.edge_weights().any(|e| {
        matches!(&e.op, EdgeOp::Declare { var, init: Some(Init::Scalar(init)) } if *var == inner && format!("{init:?}").contains(&format!("VarId({})", inner.0)))
    });
    assert!(reads_inner, "the inner initializer must read the inner x");
}

fn ops_of(cfa: &Cfa) -> Vec<String> {
    edges(cfa).iter().filter(|e| !matches!(e.op, EdgeOp::Blank)).map(|e| pop(cfa, &e.op)).collect()
}

#[test]
fn structs_are_flattened() {
    let src = "struct in { int x; double f; };\n\
               typedef struct { char c; struct in in; int arr[3]; unsigned u : 3; int a : 1; _Bool b : 1; } T;\n\
               struct in g = { 5 };\n\
               int main() { T s; T s2 = { 'a', { 1, 2.0 }, { 7 }, .a = 9 }; s.in.x = 4; s.arr[1] = s.in.x;\n\
               s.u += 9; s2 = s; s.in = s2.in; return s2.arr[1] + s.a + g.x; }";
    let cfa = build(src);
    // Leaf variables named by access path, with bit-field widths and signedness.
    let t = |n: &str| cfa.var(var_named(&cfa, n)).ty.clone();
    assert_eq!(t("s.c"), CType::Int(IntTy::CHAR));
    assert_eq!(t("s.in.x"), CType::Int(IntTy::INT));
    assert_eq!(t("s.in.f"), CType::Float(FloatTy::F64));
    assert_eq!(t("s.arr"), CType::Array { elem: IntTy::INT, dims: vec![3] });
    assert_eq!(t("s.u"), CType::Int(IntTy::new(3, false)));
    assert_eq!(t("s.a"), CType::Int(IntTy::new(1, true)));
    assert_eq!(t("s.b"), CType::Int(IntTy::BOOL));
    assert!(matches!(t("s"), CType::Unsupported(_)));
    assert!(!cfa.var(var_named(&cfa, "s.a")).temporary);
    let ops = ops_of(&cfa);
    let o = ops.join("\n");
    // Declarations: all leaves in one step; initializers with missing members zero.
    assert!(o.contains("all{decl s.c; decl s.in.x; decl s.in.f; decl s.arr; decl s.u; decl s.a; decl s.b}"), "{o}");
    assert!(
        o.contains("all{decl s2.c = 97:int8; decl s2.in.x = 1:int32; decl s2.in.f = 2.0:double; decl s2.arr = {0:7:int32}; decl s2.u = 0; decl s2.a = -1:int1; decl s2.b = 0}"),
        "{o}"
    );
    // Member accesses; bit-fields promote to int and convert back on assignment.
    assert!(o.contains("s.in.x := 4:int32"), "{o}");
    assert!(o.contains("s.arr[1:int64] := s.in.x"), "{o}");
    assert!(o.contains("s.u := (uint3)((int32)s.u Add 9:int32):int32"), "{o}");
    // Whole-struct copies are one step.
    assert!(o.contains("all{s2.c := s.c; s2.in.x := s.in.x; s2.in.f := s.in.f; s2.arr := s.arr; s2.u := s.u; s2.a := s.a; s2.b := s.b}"), "{o}");
    assert!(o.contains("all{s.in.x := s2.in.x; s.in.f := s2.in.f}"), "{o}");
    assert!(o.contains("return ((s2.arr[1:int64]/3 Add (int32)s.a):int32 Add g.x):int32"), "{o}");
    // Global struct initializer.
    assert!(cfa.global_inits.iter().any(|(v, i)| cfa.var(*v).name == "g.x" && *i == Init::Scalar(Expr::int(5))));
    assert!(!o.contains("Unsupported"), "{o}");
}

#[test]
fn struct_limits_are_unsupported_with_reasons() {
    let uns = |src: &str| -> Vec<String> {
        let cfa = build(src);
        edges(&cfa)
            .iter()
            .filter_map(|e| match &e.op {
                EdgeOp::Unsupported { what } => Some(what.clone()),
                _ => None,
            })
            .collect()
    };
    let u =
        uns("struct s { int a; }; struct s f(); int main() { struct s x; struct s *p; x = f(); p->a = 1; return 0; }");
    // A struct result of a function without a body is not modelled.
    assert!(u.iter().any(|m| m.contains("struct result of `f`, which has no body")), "{u:?}");
    // `p->a = 1` is a store through the pointer (memory model, decision 36).
    assert!(!u.iter().any(|m| m.contains("pointer")), "{u:?}");
    // Union members are loads and stores at their offsets in the union's bytes.
    let cfa = build("union u { int a; char c; }; int main() { union u x; x.a = 1; return x.c; }");
    assert!(uns("union u { int a; char c; }; int main() { union u x; x.a = 1; return x.c; }").is_empty());
    let x = cfa.vars.iter().position(|v| v.name == "x").expect("x");
    assert_eq!(cfa.vars[x].ty, CType::Bytes { size: 4, members: vec![1, 4] });
    assert!(edges(&cfa)
        .iter()
        .any(|e| matches!(&e.op, EdgeOp::Assign { lhs: Place::Deref { .. }, rhs } if rhs.int_ty().is_some())));
    // Empty struct (GNU): declaring it is a step with no writes.
    assert!(uns("struct g {}; int main() { struct g t; return 0; }").is_empty());
}

#[test]
fn struct_sizeof_follows_gcc_layout() {
    let size = |src: &str, dm: DataModel| -> i128 {
        let cfa = build_dm(&format!("{src} int main() {{ return sizeof(struct s); }}"), dm);
        let r = edges(&cfa)
            .iter()
            .find_map(|e| match &e.op {
                EdgeOp::Return { value: Some(v), .. } if v.int_ty().is_some() => crate::cfront::types::fold_i128(v),
                _ => None,
            })
            .expect("constant return");
        r
    };
    assert_eq!(size("struct s { int a : 1; int b : 2; int c : 3; int d : 4, e : 4; };", DataModel::Ilp32), 4);
    assert_eq!(size("struct s { char c; int i; };", DataModel::Lp64), 8);
    assert_eq!(size("struct s { char c; long long l; };", DataModel::Ilp32), 12);
    assert_eq!(size("struct s { char c; long long l; };", DataModel::Lp64), 16);
    assert_eq!(size("struct s { int a : 30; int b : 4; char c; };", DataModel::Lp64), 8);
    assert_eq!(size("struct s { char a; struct { short x; char y[3]; } in; };", DataModel::Lp64), 8);
    assert_eq!(size("struct s { unsigned a : 3; unsigned : 0; unsigned b : 1; };", DataModel::Lp64), 8);
}

#[test]
fn member_assumptions() {
    let src = "struct in { int x; }; struct s { int a : 4; struct in in; int arr[3]; };\n\
               struct s g;\n\
               int main() { struct s l; l.a = 1; struct s *p; return 0; }";
    let cfa = build(src);
    let sc = AssumptionScope {
        function: Some(cfa.main),
        offset: Some(src.find("return").unwrap()),
        result_ty: None,
        ..Default::default()
    };
    let p = |s: &str| -> Result<String, crate::cfront::ConjunctError> {
        let r = lower_assumption(&cfa, s, &sc);
        r.into_iter().next().unwrap().map(|e| pe(&cfa, &e))
    };
    assert_eq!(p("l.a == 5").unwrap(), "((int32)l.a Eq 5:int32):int32");
    // 9 is the 4-bit pattern of -7 (decision 31).
    assert_eq!(p("l.a == 9").unwrap(), "((int32)l.a Eq -7:int32):int32");
    assert_eq!(p("(signed int)(l.a) == (1)").unwrap(), "((int32)l.a Eq 1:int32):int32");
    assert_eq!(p("l.in.x == 1").unwrap(), "(l.in.x Eq 1:int32):int32");
    assert_eq!(p("l.arr[2] == 1").unwrap(), "(l.arr[2:int64]/3 Eq 1:int32):int32");
    assert_eq!(p("g.in.x == 0").unwrap(), "(g.in.x Eq 0:int32):int32");
    // A bit-field through a pointer is not supported (not a scalar member in memory).
    assert!(p("p->a == 1").unwrap_err().to_string().contains("member `a`"));
    // A signed bit-field compared with a constant that is one of its unsigned bit patterns: the
    // union of the literal and the pattern reading (decision 31).
    assert_eq!(p("12 == l.a").unwrap(), "(-4:int32 Eq (int32)l.a):int32");
    assert_eq!(p("(signed int)(l.a) != 15").unwrap(), "1:int32");
    assert_eq!(p("l.a < 9").unwrap(), "1:int32");
    assert_eq!(p("l.a >= 9").unwrap(), "((int32)l.a Ge -7:int32):int32");
    // Unclear readings stay ambiguous: a cast that changes the value, an unsigned constant.
    assert!(matches!(p("(unsigned char)(l.a) == 12"), Err(crate::cfront::ConjunctError::Ambiguous(_))));
    assert!(matches!(p("l.a == 12u"), Err(crate::cfront::ConjunctError::Ambiguous(_))));
    assert!(p("l.a == 16").is_ok()); // no 4-bit pattern: plainly false
    assert!(p("l.a == -8").is_ok());
    assert!(p("l.zz == 1").is_err());
    assert!(p("l == 1").is_err());
}

/// Globals declared only `extern` are defined outside the program: listed as external, so that
/// their value is never taken as zero.
#[test]
fn extern_globals_without_definition_are_external() {
    let cfa = build("extern int g;\nextern int h;\nint h = 2;\nint k;\nint main() { return g + h + k; }\n");
    let id = |n: &str| VarId(cfa.vars.iter().position(|v| v.name == n).unwrap() as u32);
    assert_eq!(cfa.external_globals, vec![id("g")]);
}

#[test]
fn float_parameters_and_return_values() {
    let cfa = build(
        "double half(double x) { return x / 2; }\n\
         float tof(int i) { return i; }\n\
         int trunc_int(double d) { return d; }\n\
         int take(int k) { return k; }\n\
         int main() { double d = half(3); float f; f = half(1.5f); int i = half(7.0); \
         double s = half(2.0) + tof(1); int t = take(2.5); double a[2]; a[1] = half(d); return trunc_int(d); }",
    );
    let half = cfa.function_by_name("half").unwrap();
    assert_eq!(cfa.function(half).return_ty, Some(ScalarTy::Float(FloatTy::F64)));
    assert_eq!(cfa.var(cfa.function(half).params[0]).ty, CType::Float(FloatTy::F64));
    assert_eq!(function_result_type(&cfa, "tof"), Some(ScalarTy::Float(FloatTy::F32)));
    let o = ops_of(&cfa);
    // Returns convert to the return type; arguments to the parameter types.
    assert!(o.contains(&"return (x Div 2.0:double):double".to_string()), "{o:?}");
    assert!(o.contains(&"return (float)i".to_string()), "{o:?}");
    assert!(o.contains(&"return (int32)d".to_string()), "{o:?}");
    assert!(o.contains(&"d := call half(3.0:double)".to_string()), "{o:?}");
    assert!(o.contains(&"f := call half(1.5:double)".to_string()), "{o:?}");
    // An integer lhs receives the float result directly (converted by the call's return).
    assert!(o.contains(&"i := call half(7.0:double)".to_string()), "{o:?}");
    // Calls nested in expressions go through float temporaries.
    assert!(o.iter().any(|s| s.starts_with("__tmp_") && s.contains(":= call tof(1:int32)")), "{o:?}");
    assert!(o.iter().any(|s| s.starts_with("decl s = (__tmp_") && s.contains("Add (double)__tmp_")), "{o:?}");
    assert!(o.contains(&"t := call take((int32)2.5:double)".to_string()), "{o:?}");
    assert!(o.contains(&"a[1:int64]/2 := call half(d)".to_string()), "{o:?}");
}

#[test]
fn float_arrays() {
    let cfa = build(
        "const double T[4] = {0.5, 1.5};\n float G[2][3] = {{1, 2}, {3}};\n\
         int main() { int i = 1; float L[3] = {1.0f}; double x = T[i] + T[i + 1]; L[i] = x; L[2] += 1; G[1][i] = 2; \
         unsigned long n = sizeof(T) / sizeof(T[0]); unsigned long m = sizeof(G[1]); return 0; }",
    );
    assert_eq!(cfa.var(var_named(&cfa, "T")).ty, CType::FloatArray { elem: FloatTy::F64, dims: vec![4] });
    assert_eq!(cfa.var(var_named(&cfa, "G")).ty, CType::FloatArray { elem: FloatTy::F32, dims: vec![2, 3] });
    let t = cfa.global_inits.iter().find(|(v, _)| *v == var_named(&cfa, "T")).unwrap();
    assert_eq!(
        t.1,
        Init::FloatArray(vec![
            (0, Expr::Const { bits: 0.5f64.to_bits(), ty: ScalarTy::Float(FloatTy::F64) }),
            (1, Expr::Const { bits: 1.5f64.to_bits(), ty: ScalarTy::Float(FloatTy::F64) })
        ])
    );
    let g = cfa.global_inits.iter().find(|(v, _)| *v == var_named(&cfa, "G")).unwrap();
    let Init::FloatArray(items) = &g.1 else { panic!("{:?}", g.1) };
    assert_eq!(items.iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![0, 1, 3]);
    let o = ops_of(&cfa);
    assert!(o.contains(&"decl L = {0:1.0:float}".to_string()), "{o:?}");
    assert!(o.contains(&"L[(int64)i]/3 := (float)x".to_string()), "{o:?}");
    assert!(o.contains(&"decl n = (32:uint64 Div 8:uint64):uint64".to_string()), "{o:?}");
    assert!(o.contains(&"decl m = 12:uint64".to_string()), "{o:?}");
    assert!(o.iter().any(|s| s.starts_with("decl x = (T[(int64)i]/4 Add T[")), "{o:?}");
    assert!(o.contains(&"L[2:int64]/3 := (L[2:int64]/3 Add 1.0:float):float".to_string()), "{o:?}");
    assert!(o.iter().any(|s| s.starts_with("G[") && s.ends_with(":= 2.0:float")), "{o:?}");
}

#[test]
fn logical_operators_in_statements_branch() {
    let cfa = build("void f(int c) {} int main() { int a = 1, b = 2; f(a && b); int k = 1 && 2; return 0; }");
    let o = ops_of(&cfa);
    // As in CPAchecker's CFA: the argument `a && b` is computed by branches.
    let want = ["assume a true", "assume b true", "__tmp_1 := 1:int32", "__tmp_1 := 0:int32", "call f(__tmp_1)"];
    for w in want {
        assert!(o.contains(&w.to_string()), "{w}: {o:?}");
    }
    // Constant expressions stay pure.
    assert!(o.contains(&"decl k = (1:int32 LogAnd 2:int32):int32".to_string()), "{o:?}");
}

#[test]
fn pointer_parameters_lower_to_dereferences() {
    let cfa = build(
        "void swap(int *a, int *b) { int t = *a; *a = *b; b[0] = t; }\n\
         int main() { int x = 1; int y[2]; swap(&x, y + 1); return 0; }",
    );
    let ops: Vec<String> = edges(&cfa).iter().map(|e| format!("{:?}", e.op)).collect();
    assert!(ops.iter().any(|o| o.contains("Deref")), "{ops:#?}");
    let address_argument = |e: &&CfaEdge| matches!(&e.op, EdgeOp::Call { args, .. } if args.iter().any(|a| matches!(a, Expr::AddrOf { .. })));
    assert!(edges(&cfa).iter().any(address_argument), "{ops:#?}");
    assert!(!edges(&cfa).iter().any(|e| matches!(e.op, EdgeOp::Unsupported { .. })));
}

#[test]
fn line_count_ignores_a_final_newline() {
    assert_eq!(build("int main() { return 0; }\n").line_count(), 1);
    assert_eq!(build("int main() {\n  return 0;\n}").line_count(), 3);
    assert_eq!(build("int main() {\n  return 0;\n}\n\n").line_count(), 4);
}

#[test]
fn initializers_of_byte_objects_are_scalars_at_offsets() {
    let src = "struct pt { int x; short y; }; union u { char c; int i; };\n\
               int main() { struct pt a[2] = {{1, 2}, [1] = {.y = 4}}; union u v = {.i = 7}; return 0; }";
    let cfa = build_dm(src, DataModel::Ilp32);
    let decls: Vec<String> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Declare { var, init } => Some(format!("{}{}", cfa.var(*var).name, pinit(&cfa, init))),
            _ => None,
        })
        .collect();
    assert!(
        decls.iter().any(|d| d.starts_with("a = bytes{0:") && d.contains(",4:") && d.contains(",12:")),
        "{decls:?}"
    );
    assert!(decls.iter().any(|d| d.starts_with("v = bytes{0:")), "{decls:?}");
    // Brace elision (C11 6.7.9p20): `{1, 2, 3, 4}` fills a[0] and a[1].
    let init = |src: &str| -> Vec<String> {
        let cfa = build_dm(src, DataModel::Ilp32);
        edges(&cfa)
            .iter()
            .filter_map(|e| match &e.op {
                EdgeOp::Declare { var, init } => Some(format!("{}{}", cfa.var(*var).name, pinit(&cfa, init))),
                EdgeOp::Unsupported { what } => Some(format!("unsupported: {what}")),
                _ => None,
            })
            .collect()
    };
    let d = init("struct pt { int x; int y; }; int main() { struct pt a[2] = {1, 2, 3, 4}; return 0; }");
    assert!(d.iter().any(|d| d.starts_with("a = bytes{0:") && d.contains(",12:")), "{d:?}");
    // Too many values, or nested designators: unsupported, never a zero default.
    let d = init("struct pt { int x; int y; }; int main() { struct pt a[2] = {1, 2, 3, 4, 5}; return 0; }");
    assert!(d.iter().any(|d| d.contains("excess elements")), "{d:?}");
    let d = init("struct pt { int x; int y; }; int main() { struct pt a[2] = {[1].x = 3}; return 0; }");
    assert!(d.iter().any(|d| d.contains("nested designators")), "{d:?}");
    // A `char` array member from a string literal, braced or not.
    let d = init("struct s { char n[4]; int v; }; int main() { struct s a[2] = {{\"ab\", 1}, \"c\", 2}; return 0; }");
    assert!(d.iter().any(|d| d.starts_with("a = bytes{0:97") && d.contains("1:98") && d.contains("8:99")), "{d:?}");
    let d = init("struct s { char n[2]; }; int main() { struct s a[1] = {{\"abc\"}}; return 0; }");
    assert!(d.iter().any(|d| d.contains("longer than its array")), "{d:?}");
}

#[test]
fn assumptions_over_pointers() {
    let src = "struct in { short a; int b; }; struct node { int v; struct in in; struct node *next; };\n\
               int main() { struct node *n = 0; int *p = 0; double *d = 0; return 0; }";
    let cfa = build_dm(src, DataModel::Ilp32);
    let sc = scope_at(&cfa, src, "return 0");
    let one = |t: &str| {
        let mut v = lower_assumption(&cfa, t, &sc);
        assert_eq!(v.len(), 1, "{t}");
        v.remove(0)
    };
    assert!(matches!(one("p == 0"), Ok(Expr::Binary { op: BinOp::Eq, .. })));
    assert!(matches!(one("n != p"), Ok(Expr::Binary { op: BinOp::Ne, .. })));
    assert!(matches!(one("n->next == 0"), Ok(Expr::Binary { .. })));
    // `n->in.b` is at byte 8 (int v; short a, 2 bytes of padding, int b).
    let b = format!("{:?}", one("n->in.b == 3").expect("member through a pointer"));
    // (as the program builds it: the member's offset in `in` added to that of `in`).
    assert!(b.contains("Deref") && b.matches("bits: 4, ty: Int(IntTy { bits: 64").count() == 2, "{b}");
    assert!(one("p[2] == 1").is_ok() && one("*(p + 1) == 1").is_ok() && one("*p == 1").is_ok());
    assert!(one("*d == 1.5").is_ok());
    // A pointer is not a number, and unknown members are reported.
    assert!(one("p == 1").is_err());
    assert!(one("p + 1 == 0").is_ok());
    assert!(one("n->w == 0").unwrap_err().to_string().contains("member `w`"));
}

#[test]
fn assumptions_over_byte_objects() {
    let src = "struct pt { int x; short y; }; union u { int i; char c; };\n\
               int main() { struct pt a[3]; union u v; struct pt *p = a; return 0; }";
    let cfa = build_dm(src, DataModel::Ilp32);
    let sc = scope_at(&cfa, src, "return 0");
    let one = |t: &str| {
        let mut v = lower_assumption(&cfa, t, &sc);
        assert_eq!(v.len(), 1, "{t}");
        v.remove(0)
    };
    // `a[2].y` is 2 * 8 + 4 bytes into `a`.
    let e = format!("{:?}", one("a[2].y == 1").expect("array of structs"));
    assert!(e.contains("Deref") && e.contains("bits: 8") && e.contains("bits: 4"), "{e}");
    assert!(one("v.i == 7").is_ok() && one("v.c == 7").is_ok());
    assert!(one("(*p).x == 1").is_ok() && one("(p + 1)->y == 1").is_ok() && one("p[1].x == 0").is_ok());
    assert!(one("a[0].z == 1").unwrap_err().to_string().contains("member `z`"));
    assert!(one("a[0] == 1").is_err());
}

/// The steps from the program start to `main`'s entry: (op, first line, text).
fn start_chain(cfa: &Cfa) -> Vec<(String, u32, String)> {
    let mut out = Vec::new();
    let mut at = cfa.start;
    while at != cfa.function(cfa.main).entry {
        let mut next = cfa.graph.edges(at);
        let e = next.next().expect("the start chain continues");
        assert!(next.next().is_none(), "the start chain does not branch");
        let w = e.weight();
        let op = if matches!(w.op, EdgeOp::GlobalDeclaration) { "global" } else { "start" };
        out.push((op.to_string(), w.span.map_or(0, |s| s.start_line), w.text.clone()));
        at = petgraph::visit::EdgeRef::target(&e);
    }
    out
}

#[test]
fn global_declarations_are_steps_in_file_order() {
    // Decision 45: one step per file-scope variable declarator (with or without initializer,
    // `extern`, arrays, structs, unions, pointers), spanning its declaration; no step for
    // prototypes, typedefs, tag-only declarations or static locals.
    let src = "extern void reach_error(void);\n\
               typedef int T;\n\
               struct P { int a; };\n\
               int x = 5, y;\n\
               extern int e;\n\
               int a[2] = {1,\n  2};\n\
               struct P p;\n\
               union U { int i; char c; } u = {3};\n\
               int f(int);\n\
               int *q = &x;\n\
               int f(int k) { static int s = 1; return k + s; }\n\
               int main(void) { return f(x); }\n";
    let cfa = build(src);
    let chain = start_chain(&cfa);
    let lines: Vec<(&str, u32)> = chain.iter().map(|(op, l, _)| (op.as_str(), *l)).collect();
    assert_eq!(
        lines,
        vec![
            ("global", 4),
            ("global", 4),
            ("global", 5),
            ("global", 6),
            ("global", 8),
            ("global", 9),
            ("global", 11),
            ("start", 13)
        ]
    );
    assert_eq!(chain[0].2, "int x = 5, y;");
    assert_eq!(chain[3].2, "int a[2] = {1, 2};");
    let a = cfa.graph.edge_weights().find(|e| e.text == "int a[2] = {1, 2};").expect("the array's step");
    assert_eq!(span(a).1, 7, "a declaration over two lines spans both");
    // The initial values do not move: static storage is initialised before the first step.
    assert!(cfa.global_inits.iter().any(|(v, i)| cfa.var(*v).name == "x" && matches!(i, Init::Scalar(_))));
}

#[test]
fn struct_whose_address_is_taken_is_stored_as_bytes_and_offsetof_follows_the_layout() {
    let src = "struct L { struct L *next; }; struct I { char c; struct L link; int b : 3; };\n\
               struct J { char c; long l[2]; struct L link; };\n\
               struct L head = {&head}; struct L other; struct I bits;\n\
               int main(void) { struct J j; struct L *p = &j.link; struct I *q = &bits;\n\
               return __builtin_offsetof(struct J, link) + __builtin_offsetof(struct J, l[1]); }";
    let cfa = build_dm(src, DataModel::Ilp32);
    // `&head`, `&j.link` put them in memory; `other` is never addressed; `bits` has a bit-field.
    assert!(matches!(cfa.var(var_named(&cfa, "head")).ty, CType::Bytes { size: 4, .. }));
    assert!(matches!(cfa.var(var_named(&cfa, "j")).ty, CType::Bytes { size: 16, .. }));
    assert!(!matches!(cfa.var(var_named(&cfa, "other")).ty, CType::Bytes { .. }));
    assert!(!matches!(cfa.var(var_named(&cfa, "bits")).ty, CType::Bytes { .. }));
    let ret: Vec<String> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Return { value: Some(v), .. } if v.int_ty().is_some() => Some(pe(&cfa, v)),
            _ => None,
        })
        .collect();
    // ILP32: `l` at 4 (long is 4 bytes), `l[1]` at 8, `link` at 12.
    assert!(ret.iter().any(|r| r.contains("12:") && r.contains("8:")), "{ret:?}");
}

#[test]
fn gnu_typeof_offsetof_expect_mode_asm() {
    let cfa = build(
        "struct h { char c; int i; short k; };\ntypedef int s8 __attribute__((__mode__(__QI__)));\nlong f(void);\n\
         int main() { int x = 1; typeof(x) a = 2; __typeof__(f()) b = 3; s8 c = 200; \
         unsigned long o = __builtin_offsetof(struct h, k); long e = __builtin_expect(x == 1, 0); int y; \
         __asm__ volatile(\"\" ::: \"memory\"); __asm__(\"mov %1, %0\" : \"=r\"(y) : \"r\"(x)); return 0; }",
    );
    let o = ops(&cfa);
    for want in [
        "decl a = 2:int32",
        "decl b = 3:int64",
        "decl c = -56:int8",
        "decl o = 8:uint64",
        "e := (int64)(x Eq 1:int32):int32",
    ] {
        assert!(o.contains(&want.to_string()), "{want} not in {o:#?}");
    }
    // The barrier is a no-op; the asm with an output is one havoc of `y`.
    let havocs: Vec<_> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Havoc { lhs, .. } => Some(lhs.len()),
            _ => None,
        })
        .collect();
    assert_eq!(havocs, vec![1], "{o:#?}");
    assert!(!edges(&cfa).iter().any(|e| matches!(e.op, EdgeOp::Unsupported { .. })), "{o:#?}");
}

#[test]
fn gnu_unmodelled_attributes_and_asm_are_unsupported() {
    let cfa = build(
        "void g(int *p) {}
int main() { int x __attribute__((cleanup(g))) = 1; int y;          __asm__ volatile(\"mfence\" ::: \"memory\"); return x; }",
    );
    let what: Vec<String> = edges(&cfa)
        .iter()
        .filter_map(|e| match &e.op {
            EdgeOp::Unsupported { what } => Some(what.clone()),
            _ => None,
        })
        .collect();
    assert!(what.iter().any(|w| w.contains("cleanup")), "{what:?}");
    assert!(what.iter().any(|w| w.contains("memory")), "{what:?}");
}

/// Decision 61: a body `main` cannot reach is not parsed; offsets and lines after it are the
/// file's, in exact mode and through `gcc -E`, and so are syntax error positions.
#[test]
fn removed_bodies_keep_offsets_lines_and_error_positions() {
    let src = "int dead(void) {\n  int q = 1; return q;\n}\nint main(void) { int y = 2; return y; }\n";
    let cfa = build(src);
    let y = src.find("int y = 2;").expect("y");
    assert!(cfa.statement_starts.iter().any(|(o, _)| *o == y), "{:?}", cfa.statement_starts);
    assert!(!cfa.statement_starts.iter().any(|(o, _)| *o == src.find("int q").expect("q")));
    assert_eq!(cfa.skipped_bodies, vec![(src.find("{\n").expect("{") + 1, src.find("\n}").expect("}") + 1)]);
    // Decision 172: no empty shell; the program still defines `dead`.
    assert_eq!(cfa.functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), vec!["main"]);
    assert!(cfa.defines("dead") && cfa.defines("main") && !cfa.defines("alive"));
    let ret = cfa.graph.edge_weights().find(|e| e.text == "return y;").expect("return");
    let s = ret.span.expect("span");
    assert_eq!(
        (s.start_line, s.start_offset, s.end_offset),
        (4, src.find("return y").expect("r"), src.find("y; }").expect("e") + 1)
    );
    // A syntax error after a removed body on the same line: the file's column.
    let bad = "int dead(void) { return 1; } int main(void) { int y = ; }\n";
    let err = build_program(Path::new("bad.c"), bad, DataModel::Lp64).unwrap_err();
    assert!(matches!(err, InputError::Malformed { line: 1, col: 55, .. }), "{err}");
    // Through gcc -E (a directive): lines after the removed body are the file's.
    let pre = "#define TWO 2\nint dead(void) {\n  return TWO;\n}\nint main(void) {\n  int y = TWO;\n  return y;\n}\n";
    let cfa = build(pre);
    assert!(!cfa.offsets_exact);
    assert_eq!(cfa.skipped_bodies.len(), 1);
    let ret = cfa.graph.edge_weights().find(|e| e.text == "return y;").expect("return");
    assert_eq!(ret.span.expect("span").start_line, 7);
}

/// Decision 100: gcc's enumeration types (unsigned when no value is negative, 64 bits when the
/// values need them, not modelled with a `packed` attribute) and the types of their constants.
#[test]
fn enumeration_types_follow_gcc() {
    let src = "enum U { UA = 1, UB };\nenum S { SA = -1, SB };\nenum W { WA = 1, WB = 0x100000000 };\n\
               enum N { NA = -1, NB = 0x80000000 };\ntypedef enum { PA } __attribute__((packed)) P;\n\
               enum Q { QA } __attribute__((__packed__));\nenum X { XA = 0x7fffffff, XB };\n\
               int main(void) { enum U u; enum S s; enum W w; enum N n; P p; enum Q q; enum U u2;\n\
               { enum U { IA = -5 } inner; u2 = 0; }\n  enum U after; return 0; }\n";
    let cfa = build_dm(src, DataModel::Ilp32);
    let var_ty = |name: &str| cfa.var(var_named(&cfa, name)).ty.clone();
    assert_eq!(var_ty("u"), CType::Int(IntTy::UINT));
    assert_eq!(var_ty("s"), CType::Int(IntTy::INT));
    assert_eq!(var_ty("w"), CType::Int(IntTy::ULLONG));
    assert_eq!(var_ty("n"), CType::Int(IntTy::LLONG));
    assert!(matches!(var_ty("p"), CType::Unsupported(_)), "{:?}", var_ty("p"));
    assert!(matches!(var_ty("q"), CType::Unsupported(_)), "{:?}", var_ty("q"));
    // A block-scope tag shadows the file-scope one only in its block.
    assert_eq!(var_ty("inner"), CType::Int(IntTy::INT));
    assert_eq!(var_ty("after"), CType::Int(IntTy::UINT));
    let k = |name: &str| cfa.enum_constants.iter().rev().find(|(n, _, _)| n == name).map(|(_, b, t)| (*b, *t));
    assert_eq!(k("UB"), Some((2, IntTy::INT)));
    assert_eq!(k("WB"), Some((0x100000000, IntTy::ULLONG)));
    assert_eq!(k("NB"), Some((0x80000000, IntTy::LLONG)));
    assert_eq!(k("SA"), Some((u32::MAX as u64, IntTy::INT)));
    // gcc: "overflow in enumeration values" for `XB`; its value is not guessed.
    assert_eq!(k("XA"), Some((0x7fffffff, IntTy::INT)));
    assert_eq!(k("XB"), None);
    assert!(cfa.enum_tags.contains(&("enum U".to_string(), IntTy::UINT)));
}

#[test]
fn transparent_union_arguments() {
    // Decision 137: an argument of a member type is passed; anything else stays unsupported.
    let head = "typedef union { int *ip; long *lp; } __attribute__((__transparent_union__)) arg_t;\n\
                int get(arg_t a) { return *a.ip; }\n";
    let uns = |body: &str| -> Vec<String> {
        let cfa = build_dm(&format!("{head}int main(void) {{ {body} return 0; }}\n"), DataModel::Ilp32);
        edges(&cfa)
            .iter()
            .filter_map(|e| match &e.op {
                EdgeOp::Unsupported { what } => Some(what.clone()),
                _ => None,
            })
            .collect()
    };
    assert!(uns("int x = 1; long y = 2; get(&x); get(&y);").is_empty());
    let w = uns("short s = 1; get(&s);");
    assert!(w.iter().any(|m| m.contains("none of its member types")), "{w:?}");
    let w = uns("arg_t u; int x; u.ip = &x; get(u);");
    assert!(w.iter().any(|m| m.contains("none of its member types")), "{w:?}");
    // Without the attribute the union parameter is not modelled (decision 107).
    let cfa = build(
        "typedef union { int *ip; long *lp; } arg_t;\nint get(arg_t a) { return *a.ip; }\n\
                     int main(void) { int x = 1; return get(&x); }\n",
    );
    assert!(edges(&cfa)
        .iter()
        .any(|e| matches!(&e.op, EdgeOp::Unsupported { what } if what.contains("not supported"))));
}

/// Decision 136: a compound literal at file scope is a static object initialised before the
/// global whose initializer made it (which may read it, a GNU extension).
#[test]
fn file_scope_compound_literals_are_static_objects_initialised_first() {
    let cfa = build("int *gp = (int[]){1, 2, 3};\nint x = (int){4};\nint main(void) { return gp[2] + x; }\n");
    let pos = |name: &str| {
        let v = var_named(&cfa, name);
        assert_eq!(cfa.var(v).scope, VarScope::Global);
        cfa.global_inits.iter().rposition(|(w, i)| *w == v && *i != Init::Zero).unwrap_or_else(|| panic!("{name}"))
    };
    let lits: Vec<usize> = ["__compound_literal_1", "__compound_literal_2"].iter().map(|n| pos(n)).collect();
    assert!(lits[0] < pos("gp") && lits[1] < pos("x"), "{:?}", cfa.global_inits);
    assert!(matches!(cfa.var(var_named(&cfa, "__compound_literal_1")).ty, CType::Array { .. }));
}

#[test]
fn thread_local_variables_are_marked() {
    // Issue 22: GNU `__thread` (blanked before parsing) and C11 `_Thread_local`.
    let cfa = build("__thread int a = 1; int b; static _Thread_local int c; int main() { return a + b + c; }");
    let names: Vec<&str> = cfa.thread_locals.iter().map(|v| cfa.var(*v).name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
}

/// Decision 174: a long assumption is lowered on a large stack segment of the calling thread
/// (it had a thread of its own): 3000 nested parentheses lower on a test thread's small stack.
#[test]
fn deeply_nested_assumptions_lower_on_a_stack_segment() {
    let cfa = build("int x; int main(void) { return x; }\n");
    let deep = format!("x == {}1{}", "(".repeat(3000), ")".repeat(3000));
    let v = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            lower_assumption(&cfa, &deep, &AssumptionScope::default())
                .into_iter()
                .map(|r| r.is_ok())
                .collect::<Vec<_>>()
        })
        .expect("thread")
        .join()
        .expect("no overflow");
    assert_eq!(v, vec![true]);
}

/// Issue 33: columns in messages count characters: a syntax error of the program after `é` on its
/// line, and one of an assumption after `é` in a string literal.
#[test]
fn syntax_error_columns_count_characters() {
    let bad = "int main(void) { /* é */ int y = ; }\n";
    let err = build_program(Path::new("bad.c"), bad, DataModel::Lp64).unwrap_err();
    // The `;` is character 34 of the line, byte 35.
    assert!(matches!(err, InputError::Malformed { line: 1, col: 34, .. }), "{err}");
    let cfa = build("int x; int main(void) { return x; }\n");
    let first = lower_assumption(&cfa, "x == \"é\" + )", &AssumptionScope::default()).into_iter().next();
    let why = first.expect("one conjunct").map_err(|e| e.to_string()).expect_err("a syntax error");
    // The `)` is character 12, byte 13.
    assert!(why.contains("syntax error at column 12,"), "{why}");
}

/// An assumption about `p[i]` and the statement reading `p[i]` build the same pointer
/// expression: one builder of offsets (`types::scaled`, `types::offset`), so no `* 1` for a
/// byte pointer and no `+ 0` for a member at offset 0 (issue 33).
#[test]
fn assumptions_and_statements_build_pointer_offsets_alike() {
    let src = "struct S { int a; int b; };\n\
               int main() { int a[4] = {0}; int *p = a; char *c = (char *)a; struct S s = {1, 2};\n\
               struct S *q = &s; int k = 1;\n\
               int x = p[k]; char y = c[k]; int z = q->a; int w = q->b; return x + y + z + w; }";
    let cfa = build(src);
    let sc = scope_at(&cfa, src, "return x");
    let init = |text: &str| match &by_text(&cfa, text)[0].op {
        EdgeOp::Declare { init: Some(Init::Scalar(e)), .. } => pe(&cfa, e),
        o => panic!("{o:?}"),
    };
    let claimed = |text: &str| match lower_assumption(&cfa, text, &sc).remove(0) {
        Ok(Expr::Binary { lhs, .. }) => pe(&cfa, strip_casts_ir(&lhs)),
        other => panic!("{text}: {other:?}"),
    };
    for (stmt, claim) in [
        ("int x = p[k];", "p[k] == 0"),
        ("char y = c[k];", "c[k] == 0"),
        ("int z = q->a;", "q->a == 1"),
        ("int w = q->b;", "q->b == 2"),
    ] {
        assert_eq!(strip_text_casts(&init(stmt)), claimed(claim), "{stmt} / {claim}");
    }
    assert!(!claimed("c[k] == 0").contains("Mul"), "no multiplication by 1 for a byte pointer");
    assert!(!claimed("q->a == 1").contains(" + "), "no offset node for a member at offset 0");
}

/// The operand under integer promotions of a comparison (`(int)c[k]`): the object read.
fn strip_casts_ir(e: &Expr) -> &Expr {
    match e {
        Expr::Cast { arg, to: ScalarTy::Int(_) } if arg.int_ty().is_some() => strip_casts_ir(arg),
        e => e,
    }
}

/// An initializer converted to the declared type prints as `(type)e`; the object read is `e`.
fn strip_text_casts(s: &str) -> String {
    let mut s = s;
    while let Some(rest) = s
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
        .filter(|(t, _)| t.starts_with("int") || t.starts_with("uint"))
        .map(|(_, r)| r)
    {
        s = rest;
    }
    s.to_string()
}

/// `true` and `false` in an assumption or invariant are the witness formats' boolean literals
/// (GraphML's `invariant` key defaults to `true`), 1 and 0 as `<stdbool.h>` expands them; a
/// program variable of that name wins (issue 34).
#[test]
fn boolean_literals_of_the_witness_formats() {
    let src = "int main() { int x = 0; return x; }";
    let cfa = build(src);
    let sc = scope_at(&cfa, src, "return x");
    let value =
        |t: &str| lower_assumption(&cfa, t, &sc).remove(0).ok().and_then(|e| crate::cfront::types::fold_i128(&e));
    assert_eq!(value("true"), Some(1));
    assert_eq!(value("false"), Some(0));
    assert_eq!(value("true && !false"), Some(1));
    let src = "int main() { int true = 5; return true; }";
    let cfa = build(src);
    let sc = scope_at(&cfa, src, "return true");
    let e = lower_assumption(&cfa, "true", &sc).remove(0).unwrap();
    assert!(matches!(e, Expr::Var { .. }), "a program variable named `true` wins: {e:?}");
}

/// Witness expressions are lowered by the program's lowering (issue 33): what a statement of the
/// program can say, an assumption can say too, with the same types, and the witness language's
/// own readings stay (unknown names, `\result`, NaN equality).
#[test]
fn assumptions_are_lowered_as_the_program_is() {
    let src = "#include <math.h>\nstruct node { int v; struct node *next; };\n\
               int main() { struct node *n = 0; int **pp = 0; double d = 0; int a[4]; int *q = 0;\n\
               q = &a[2]; if (**pp == 1 && n->next->v == 2 && isnan(d) && ((unsigned *)&d)[1] == 3) {} return 0; }";
    let cfa = build_dm(src, DataModel::Ilp32);
    let sc = scope_at(&cfa, src, "return 0");
    let one = |t: &str| lower_assumption(&cfa, t, &sc).remove(0);
    // Each of these the program lowers in its `if`; the assumption lowerer of before refused them.
    for t in
        ["**pp == 1", "n->next->v == 2", "isnan(d)", "((unsigned *)&d)[1] == 3", "q == &a[2]", "!q", "q - &a[0] == 2"]
    {
        assert!(one(t).is_ok(), "{t}: {:?}", one(t));
    }
    // The witness language: a name no scope declares, also under `&` or `.`, is no object.
    for t in ["nosuch == 1", "y == &dynamic_object2.a", "dynamic_object1.b == 0"] {
        assert!(matches!(one(t), Err(crate::cfront::ConjunctError::NoSuchObject(_))), "{t}: {:?}", one(t));
    }
    assert!(matches!(one("d == NAN"), Ok(Expr::FloatClass { .. })));
    // ACSL's `\valid(p)`: the `sizeof(*p)` bytes at `p` (issue 34).
    let valid = format!("{:?}", one("!\\valid(q) && \\valid_read(pp)"));
    assert!(valid.contains("Valid { ptr: Var") && valid.contains("bytes: 4, write: true"), "{valid}");
    assert!(valid.contains("bytes: 4, write: false"), "{valid}");
    assert!(one("\\valid(d)").is_err());
    // Decision 250: an ACSL range `p + (a .. b)`: the `b - a + 1` elements from `p + a`.
    for t in ["\\valid(q + (0 .. 3))", "\\valid(q+(0..3))", "\\valid(q + ((1 - 1) .. (6 / 2)))"] {
        let v = format!("{:?}", one(t));
        assert!(v.contains("Valid {") && v.contains("bytes: 16, write: true"), "{t}: {v}");
    }
    let v = format!("{:?}", one("\\valid_read(q + (2 .. 3))"));
    assert!(v.contains("bytes: 8, write: false") && v.contains("Const"), "{v}");
    // An empty range is valid.
    assert_eq!(one("\\valid(q + (3 .. 1))").ok().and_then(|e| crate::cfront::types::fold_i128(&e)), Some(1));
    // Bounds that are not constants, and ranges elsewhere, are not modelled; a range in brackets
    // does not parse.
    let int_q = "int main() { int a[4]; int *q = a; int n = 3; return 0; }";
    let cfa2 = build_dm(int_q, DataModel::Ilp32);
    let sc2 = scope_at(&cfa2, int_q, "return 0");
    let two = |t: &str| lower_assumption(&cfa2, t, &sc2).remove(0);
    for t in ["\\valid(q + (0 .. n))", "(0 .. 3) == 1", "\\valid((0 .. 3) + q)"] {
        assert!(matches!(two(t), Err(crate::cfront::ConjunctError::Unsupported(_))), "{t}: {:?}", two(t));
    }
    assert!(matches!(two("\\valid(&a[0 .. 3])"), Err(crate::cfront::ConjunctError::Syntax { .. })));
    // An expression that would need an object the program does not have is refused.
    assert!(
        matches!(one("q == \"ab\""), Err(crate::cfront::ConjunctError::Unsupported(_))),
        "{:?}",
        one("q == \"ab\"")
    );
}

/// Decision 232: an ACSL expression's integers are mathematical: its operations are computed at
/// `long long` on the operands' exact values (no usual arithmetic conversion to unsigned, no
/// wrap at a type's limit); explicit casts keep C's conversions; floating-point operations
/// (reals in ACSL) are not modelled. The same text as C keeps C's rules.
#[test]
fn acsl_expressions_compute_over_the_integers() {
    let cfa = build("int main() { unsigned u = 1; unsigned long ul = 2; double d = 1.0; int i = 3; return 0; }");
    let c = AssumptionScope { function: Some(cfa.main), offset: None, result_ty: None, ..Default::default() };
    let acsl = AssumptionScope { acsl: true, ..c.clone() };
    let folded = |s: &str, sc: &AssumptionScope| {
        let e = lower_assumption(&cfa, s, sc).remove(0).unwrap_or_else(|m| panic!("{s}: {m}"));
        crate::cfront::types::fold_i128(&e).unwrap_or_else(|| panic!("{s}: not constant"))
    };
    for (text, in_c, in_acsl) in [
        ("-1 < 0u", 0, 1),
        ("4294967295U + 1U > 4294967295U", 0, 1),
        ("(unsigned)(4294967295U + 1U) == 0", 1, 1),
        ("~0u < 0", 0, 1),
        ("-(1u) == -1", 1, 1),
        ("(0 ? -1 : 1u) > 0", 1, 1),
        ("(1 ? -1 : 1u) > 0", 1, 0),
        ("-7 % 2 == -1", 1, 1),
        ("-7 / 2u == 0", 0, 0),
        ("-7 / 2u == -3", 0, 1),
        ("4294967295U / 2 == 2147483647", 1, 1),
    ] {
        assert_eq!(folded(text, &c), in_c, "{text} as C");
        assert_eq!(folded(text, &acsl), in_acsl, "{text} as ACSL");
    }
    // Variables are read at their exact values: both operands of `u + 1` are `long long`.
    let e = lower_assumption(&cfa, "u + 1 > u", &acsl).remove(0).expect("lowers");
    assert!(matches!(&e, Expr::Binary { lhs, .. } if lhs.int_ty() == Some(IntTy::LLONG)), "{}", pe(&cfa, &e));
    // `/` and `%` keep C's operation where C's common type holds both operands (`u % 2` in
    // `unsigned int`: no 64-bit division to bit-blast).
    let e = lower_assumption(&cfa, "u % 2 == 0", &acsl).remove(0).expect("lowers");
    assert!(pe(&cfa, &e).contains("(u Rem 2:uint32):uint32"), "{}", pe(&cfa, &e));
    // A 64-bit unsigned value is exact below 2^63 and an overflow (not modelled) above.
    let e = lower_assumption(&cfa, "ul + 1 > ul", &acsl).remove(0).expect("lowers");
    assert!(pe(&cfa, &e).contains("Mul"), "{}", pe(&cfa, &e));
    assert!(lower_assumption(&cfa, "d + 1.0 > d", &acsl)[0].is_err());
    assert!(lower_assumption(&cfa, "d + 1.0 > d", &c)[0].is_ok());
    assert!(lower_assumption(&cfa, "i == 3", &acsl)[0].is_ok());
}
