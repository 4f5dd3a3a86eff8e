//! Lowering of the lang-c AST to the CFA.

use std::collections::{HashMap, HashSet};

use lang_c::ast::*;
use lang_c::span::{Node, Span};
use petgraph::graph::{DiGraph, NodeIndex};

use super::gnu::{self, AttrKind};
use super::preprocess::Prepared;
use super::structs::{Field, Registry};
use super::types::{self, conv, FuncTy, SpecCounter, Ty, Val};
use crate::cfa::{
    BinOp, BranchOutcome, CType, Cfa, CfaEdge, CfaNode, DataModel, Decision, EdgeOp, ErrorKind, Expr, ExternInfo,
    FClass, FCmp, FExpr, FLvalue, FMath, FloatTy, FuncId, FunctionInfo, Init, IntTy, Libm, Lvalue, Rvalue, ScalarTy,
    SourceSpan, Target, UnOp, VarId, VarInfo, VarScope, Write,
};
use crate::cfa::{MemSource, PExpr, PLvalue, Pointee};

mod ctors;
mod pointers;

type R<T> = Result<T, String>;

/// Byte range `[start, end)` in the parsed text.
pub type Sp = (usize, usize);

fn sp(s: Span) -> Sp {
    (s.start, s.end)
}

#[derive(Debug, Clone)]
enum Sym {
    Var(VarId, Ty),
    Typedef(Ty),
    /// An enumeration constant: its value and type (`int` when the value fits, else the
    /// enumeration's type, as with gcc; decision 100).
    EnumConst(Expr),
    /// A name whose meaning is not known (an enumerator whose value could not be computed).
    Unsupported(String),
}

struct FState {
    id: FuncId,
    exit: NodeIndex,
    ret: Ty,
    labels: HashMap<String, NodeIndex>,
    breaks: Vec<NodeIndex>,
    conts: Vec<NodeIndex>,
    cases: Vec<HashMap<usize, NodeIndex>>,
}

struct Snap {
    nodes: usize,
    edges: usize,
    vars: usize,
    global_inits: usize,
    cur: NodeIndex,
    statement_starts: usize,
    branch_keywords: usize,
}

/// Where a struct result goes.
enum StructDst {
    Leaves(Vec<(String, VarId, Ty)>, Ty),
    Mem(PExpr, Ty),
}

struct ArrRef {
    var: VarId,
    elem: ScalarTy,
    rest: Vec<u64>,
    acc: Option<Expr>,
    len: u64,
}

/// Names of the `__VERIFIER_nondet_*` functions and their result types.
pub fn nondet_type(name: &str, dm: DataModel) -> Option<R<IntTy>> {
    let suffix = name.strip_prefix("__VERIFIER_nondet_")?;
    let long = types::long_ty(dm, true);
    let ulong = types::long_ty(dm, false);
    Some(Ok(match suffix {
        "int" | "s32" | "int32" | "i32" => IntTy::INT,
        "uint" | "unsigned" | "unsigned_int" | "u32" | "uint32" => IntTy::UINT,
        "long" | "s64" => long,
        "ulong" | "unsigned_long" | "size_t" | "sector_t" => ulong,
        "longlong" | "long_long" | "int64" => IntTy::LLONG,
        "ulonglong" | "unsigned_long_long" | "u64" | "uint64" => IntTy::ULLONG,
        "char" | "s8" | "int8" => IntTy::CHAR,
        "uchar" | "unsigned_char" | "u8" | "uint8" => IntTy::UCHAR,
        "short" | "s16" | "int16" => IntTy::SHORT,
        "ushort" | "unsigned_short" | "u16" | "uint16" => IntTy::USHORT,
        "bool" | "_Bool" => IntTy::BOOL,
        // `typedef long long loff_t` in Linux and glibc: 64 bits in both data models.
        "loff_t" => IntTy::LLONG,
        "pointer" | "charp" | "pchar" | "longdouble" | "long_double" => {
            return Some(Err(format!("call of `{name}` (non-integer nondeterministic values are not supported yet)")))
        }
        _ => return None,
    }))
}

/// `__VERIFIER_nondet_float` / `_double`: the floating type of the result (the declared return
/// type wins when the program declares the function with a floating type).
fn float_nondet(name: &str, declared: Option<&Ty>) -> Option<FloatTy> {
    let suffix = name.strip_prefix("__VERIFIER_nondet_")?;
    if let Some(t) = declared {
        return t.float_ty();
    }
    match suffix {
        "float" => Some(FloatTy::F32),
        "double" => Some(FloatTy::F64),
        _ => None,
    }
}

/// Math library functions modelled exactly: name → (operation, type).
fn math_function(name: &str) -> Option<(FMath, FloatTy)> {
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    let (base, fty) = match name.strip_suffix('f') {
        Some(b) if b != "modf" && b != "erf" => (b, FloatTy::F32),
        _ => (name, FloatTy::F64),
    };
    let f = match base {
        "fabs" => FMath::Fabs,
        "sqrt" => FMath::Sqrt,
        "floor" => FMath::Floor,
        "ceil" => FMath::Ceil,
        "trunc" => FMath::Trunc,
        "round" => FMath::Round,
        _ => return None,
    };
    Some((f, fty))
}

/// Libm functions evaluated on constant arguments (decision 59): name → (function, type).
fn libm_function(name: &str) -> Option<(Libm, FloatTy)> {
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    if let Some(f) = Libm::from_name(name) {
        return Some((f, FloatTy::F64));
    }
    Libm::from_name(name.strip_suffix('f')?).map(|f| (f, FloatTy::F32))
}

/// Classification macros and the functions glibc's `<math.h>` expands them to.
fn class_function(name: &str) -> Option<(FClass, Option<FloatTy>)> {
    Some(match name {
        "isnan" | "__builtin_isnan" => (FClass::IsNan, None),
        "__isnan" => (FClass::IsNan, Some(FloatTy::F64)),
        "__isnanf" => (FClass::IsNan, Some(FloatTy::F32)),
        "isinf" | "__builtin_isinf" | "__builtin_isinf_sign" => (FClass::IsInf, None),
        "__isinf" => (FClass::IsInf, Some(FloatTy::F64)),
        "__isinff" => (FClass::IsInf, Some(FloatTy::F32)),
        "isfinite" | "finite" | "__builtin_isfinite" => (FClass::IsFinite, None),
        "__finite" => (FClass::IsFinite, Some(FloatTy::F64)),
        "__finitef" => (FClass::IsFinite, Some(FloatTy::F32)),
        "isnormal" | "__builtin_isnormal" => (FClass::IsNormal, None),
        "signbit" | "__builtin_signbit" => (FClass::SignBit, None),
        "__signbit" => (FClass::SignBit, Some(FloatTy::F64)),
        "__signbitf" => (FClass::SignBit, Some(FloatTy::F32)),
        _ => return None,
    })
}

/// The quiet comparison macros of `<math.h>` (C11 7.12.14) and the GCC builtins glibc expands
/// them to: false when an argument is a NaN, like the ordered comparison operators (their only
/// difference, the `FE_INVALID` flag, is not observable here; decision 103). `Some(Some(op))`
/// for a single comparison, `Some(None)` for `islessgreater` (`<` or `>`) and `isunordered`.
fn quiet_comparison(name: &str) -> Option<Option<FCmp>> {
    Some(match name.strip_prefix("__builtin_").unwrap_or(name) {
        "isgreater" => Some(FCmp::Gt),
        "isgreaterequal" => Some(FCmp::Ge),
        "isless" => Some(FCmp::Lt),
        "islessequal" => Some(FCmp::Le),
        "islessgreater" | "isunordered" => None,
        _ => return None,
    })
}

/// Names of `<math.h>` functions returning floating values that are not modelled.
fn is_math_name(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "pow",
        "cbrt",
        "hypot",
        "fmod",
        "remainder",
        "fmin",
        "fmax",
        "fma",
        "rint",
        "nearbyint",
        "lrint",
        "lround",
        "modf",
        "frexp",
        "ldexp",
        "scalbn",
        "copysign",
        "nextafter",
        "erf",
        "erfc",
        "tgamma",
        "lgamma",
        "fdim",
        "logb",
        "ilogb",
    ];
    let base = name.strip_suffix('f').filter(|b| NAMES.contains(b)).unwrap_or(name);
    NAMES.contains(&base) || NAMES.contains(&name.strip_suffix('l').unwrap_or(name))
}

/// The name of a `mode` attribute's argument (`__attribute__((__mode__(__DI__)))` → `__DI__`).
fn mode_attr(x: &Extension) -> Option<String> {
    let Extension::Attribute(a) = x else { return None };
    if gnu::bare_name(&a.name.node) != "mode" {
        return None;
    }
    match a.arguments.first().map(|e| &e.node) {
        Some(Expression::Identifier(i)) => Some(i.node.name.clone()),
        _ => Some(String::new()),
    }
}

/// `NAN`, `INFINITY`, `HUGE_VAL` as `gcc -E` expands them: `__builtin_nan("")`, `__builtin_inff()`…
fn float_builtin_constant(name: &str) -> Option<FExpr> {
    let (fty, v) = match name {
        "__builtin_nanf" => (FloatTy::F32, f64::NAN),
        "__builtin_nan" => (FloatTy::F64, f64::NAN),
        "__builtin_inff" | "__builtin_huge_valf" => (FloatTy::F32, f64::INFINITY),
        "__builtin_inf" | "__builtin_huge_val" => (FloatTy::F64, f64::INFINITY),
        _ => return None,
    };
    Some(FExpr::Const { bits: fty.bits_of(v), fty })
}

const OUTPUT_FUNCS: &[&str] = &["printf", "puts", "putchar", "fprintf", "fflush"];

pub struct Builder<'a> {
    pub cfa: Cfa,
    src: &'a Prepared,
    dm: DataModel,
    scopes: Vec<HashMap<String, Sym>>,
    func_ids: HashMap<String, FuncId>,
    func_param_tys: Vec<Vec<Ty>>,
    func_variadic: Vec<bool>,
    sigs: HashMap<String, FuncTy>,
    pub warnings: Vec<String>,
    f: Option<FState>,
    cur: NodeIndex,
    pure_mode: bool,
    /// Levels of expression recursion under way (bounded by `depth::MAX_EXPR_DEPTH`).
    depth: u32,
    /// Set when [`Self::nested`] refuses a level.
    depth_exceeded: bool,
    /// The result type of each `?:` lowered so far (by span), as a placeholder value.
    arm_types: HashMap<(usize, usize), Val>,
    /// Branching constructs being lowered, innermost last: (construct offset, true target,
    /// false target). An Assume edge into one of the targets decides that construct.
    decisions: Vec<(usize, NodeIndex, NodeIndex)>,
    /// `)` offset of the call the next edge performs.
    /// `(start, `)` offset)` of the call the next edge performs.
    pending_call: Option<(usize, usize)>,
    /// Explicit decision for the next edge (switch cases).
    pending_outcome: Option<Decision>,
    tmp_counter: u32,
    stmt_sp: Sp,
    global_failures: Vec<(Sp, String)>,
    global_init_index: HashMap<VarId, usize>,
    /// The object of each string literal used as a pointer, by its bytes.
    strings: HashMap<Vec<u8>, VarId>,
    /// The hidden result variable of each function that returns a struct.
    result_vars: HashMap<FuncId, VarId>,
    /// Names the program applies `&` to (`&s`, `&s.m.n`, by name, whatever the scope): a
    /// struct variable of such a name lives in memory as bytes (decision 49).
    addressed: HashSet<String>,
    /// Set while the parameters of a function are created (struct parameters stay flattened).
    in_params: bool,
    pending_params: Vec<Vec<(String, Sym)>>,
    /// Struct definitions (see `structs.rs`).
    structs: Registry,
    /// Leaf variables of each flattened struct variable: (path relative to it, variable, type).
    struct_vars: HashMap<VarId, Vec<(String, VarId, Ty)>>,
    /// Globals declared at file scope, and those of them with a definition (a declaration
    /// without `extern`, or with an initializer). The others are defined outside the program.
    globals_declared: Vec<VarId>,
    globals_defined: HashSet<VarId>,
    /// One observable step per file-scope variable declarator, in file order: the
    /// declaration's span and text (`EdgeOp::GlobalDeclaration`).
    global_steps: Vec<(SourceSpan, String)>,
    /// End (parsed-text offset) of the innermost block being lowered: the end of the scope of
    /// the objects it declares, compound literals included.
    block_end: usize,
    /// Names of the functions with `__attribute__((constructor))`, which gcc runs before
    /// `main` in the order of their keys (decisions 106 and 138).
    /// Each with the parsed-text spans of its definition's declarator and of the whole
    /// definition (`None`: not defined).
    constructors: HashMap<String, (ctors::CtorKey, Option<(Sp, Sp)>)>,
    /// Union types with `__attribute__((transparent_union))` (decision 137).
    transparent_unions: HashSet<String>,
}

/// An abstract declarator (of a type name) with its innermost abstract position named `ident`.
fn name_abstract_declarator(d: &Declarator, ident: &Node<Identifier>) -> Option<Declarator> {
    let kind = match &d.kind.node {
        DeclaratorKind::Abstract => DeclaratorKind::Identifier(ident.clone()),
        DeclaratorKind::Declarator(inner) => {
            DeclaratorKind::Declarator(Box::new(Node::new(name_abstract_declarator(&inner.node, ident)?, inner.span)))
        }
        DeclaratorKind::Identifier(_) => return None,
    };
    Some(Declarator {
        kind: Node::new(kind, d.kind.span),
        derived: d.derived.clone(),
        extensions: d.extensions.clone(),
    })
}

/// A value of `v`'s type standing for a temporary (`VarId(0)`), to type a `?:` before branching.
fn placeholder(v: &Val) -> Val {
    match v {
        Val::I(x) => Val::I(Expr::Var { var: VarId(0), ty: x.ty() }),
        Val::F(x) => Val::F(FExpr::Var { var: VarId(0), fty: x.fty() }),
    }
}

fn ident_of_declarator(d: &Declarator) -> Option<&str> {
    match &d.kind.node {
        DeclaratorKind::Identifier(i) => Some(&i.node.name),
        DeclaratorKind::Declarator(inner) => ident_of_declarator(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// Syntactic check: does evaluating `e` have side effects (assignments, `++`/`--`, calls)?
pub fn has_side_effects(e: &Expression) -> bool {
    match e {
        Expression::Identifier(_) | Expression::Constant(_) | Expression::StringLiteral(_) => false,
        Expression::Call(_) | Expression::Statement(_) => true,
        Expression::Member(m) => has_side_effects(&m.node.expression.node),
        Expression::SizeOfTy(_) | Expression::SizeOfVal(_) | Expression::AlignOf(_) | Expression::OffsetOf(_) => false,
        Expression::UnaryOperator(u) => {
            matches!(
                u.node.operator.node,
                UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement
                    | UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement
            ) || has_side_effects(&u.node.operand.node)
        }
        Expression::Cast(c) => has_side_effects(&c.node.expression.node),
        Expression::BinaryOperator(b) => {
            types::is_assign_op(&b.node.operator.node)
                || has_side_effects(&b.node.lhs.node)
                || has_side_effects(&b.node.rhs.node)
        }
        Expression::Conditional(c) => {
            has_side_effects(&c.node.condition.node)
                || has_side_effects(&c.node.then_expression.node)
                || has_side_effects(&c.node.else_expression.node)
        }
        Expression::Comma(v) => v.iter().any(|e| has_side_effects(&e.node)),
        Expression::CompoundLiteral(_) | Expression::GenericSelection(_) | Expression::VaArg(_) => true,
    }
}

impl<'a> Builder<'a> {
    pub fn new(src: &'a Prepared, original: &str, dm: DataModel) -> Self {
        let mut graph = DiGraph::new();
        let start = graph.add_node(CfaNode::default());
        let cfa = Cfa {
            graph,
            unordered_nondet: Default::default(),
            functions: Vec::new(),
            externs: Vec::new(),
            vars: Vec::new(),
            global_inits: Vec::new(),
            start,
            main: FuncId(0),
            data_model: dm,
            offsets_exact: src.exact,
            exact_lines: src.exact_lines.clone(),
            source_len: original.len(),
            line_starts: src.orig_line_starts().to_vec(),
            typedefs: Vec::new(),
            enum_constants: Vec::new(),
            enum_tags: Vec::new(),
            statement_starts: Vec::new(),
            branch_keywords: Vec::new(),
            external_globals: Vec::new(),
            skipped_places: super::skip::places_in(original, &src.skipped_bodies()),
            skipped_bodies: src.skipped_bodies(),
        };
        Builder {
            cfa,
            src,
            dm,
            scopes: vec![HashMap::new()],
            func_ids: HashMap::new(),
            func_param_tys: Vec::new(),
            func_variadic: Vec::new(),
            sigs: HashMap::new(),
            warnings: Vec::new(),
            f: None,
            cur: start,
            pure_mode: false,
            depth: 0,
            depth_exceeded: false,
            arm_types: HashMap::new(),
            decisions: Vec::new(),
            pending_call: None,
            pending_outcome: None,
            tmp_counter: 0,
            stmt_sp: (0, 0),
            global_failures: Vec::new(),
            global_init_index: HashMap::new(),
            strings: HashMap::new(),
            result_vars: HashMap::new(),
            addressed: HashSet::new(),
            in_params: false,
            pending_params: Vec::new(),
            structs: Registry::default(),
            struct_vars: HashMap::new(),
            globals_declared: Vec::new(),
            globals_defined: HashSet::new(),
            global_steps: Vec::new(),
            block_end: src.text.len(),
            constructors: HashMap::new(),
            transparent_unions: HashSet::new(),
        }
    }

    // ----------------------------------------------------------------- graph helpers

    fn span_of(&self, s: Sp) -> Option<SourceSpan> {
        self.src.span(s.0, s.1)
    }

    fn text(&self, s: Sp) -> String {
        let t = self.src.text.get(s.0..s.1.min(self.src.text.len())).unwrap_or("");
        let mut out = String::new();
        let mut ws = false;
        for c in t.chars() {
            if c.is_whitespace() {
                ws = true;
                continue;
            }
            if ws && !out.is_empty() {
                out.push(' ');
            }
            ws = false;
            out.push(c);
            if out.len() > 300 {
                out.push('…');
                break;
            }
        }
        out
    }

    /// Byte range of the original file for a range of the parsed text.
    fn orig_range(&self, s: Sp) -> (usize, usize) {
        if self.src.exact {
            // Through the hole table (decision 61); an exclusive end maps as its last byte.
            let a = self.src.to_prepared(s.0);
            let b = if s.1 > s.0 { self.src.to_prepared(s.1 - 1) + 1 } else { a };
            return (a.min(self.cfa.source_len), b.min(self.cfa.source_len));
        }
        match self.src.span(s.0, s.1) {
            Some(x) => (x.start_offset, x.end_offset + 1),
            None => (0, 0),
        }
    }

    fn new_node(&mut self) -> NodeIndex {
        let function = self.f.as_ref().map(|f| f.id);
        self.cfa.graph.add_node(CfaNode { function, loop_head: false })
    }

    fn add_edge(&mut self, from: NodeIndex, to: NodeIndex, op: EdgeOp, s: Option<Sp>, text: String) {
        let span = s.and_then(|s| self.span_of(s));
        let function = self.f.as_ref().map(|f| f.id).unwrap_or(FuncId(0));
        let decision = self.decision_for(to);
        let (call_start, call_paren) = self.pending_call.take().map_or((None, None), |(s, p)| (Some(s), Some(p)));
        self.cfa.graph.add_edge(from, to, CfaEdge { op, span, function, text, decision, call_paren, call_start });
    }

    /// Records the call expression `s` for the next edge: its first character and its `)`.
    fn note_call(&mut self, s: Span) {
        let paren = self.orig_range((s.end.saturating_sub(1), s.end)).0;
        let start = self.orig_range((s.start, s.start + 1)).0;
        self.pending_call = Some((start, paren));
    }

    fn blank(&mut self, from: NodeIndex, to: NodeIndex) {
        self.add_edge(from, to, EdgeOp::Blank, None, String::new());
    }

    fn decision_for(&mut self, _to: NodeIndex) -> Option<Decision> {
        self.pending_outcome.take()
    }

    /// The decision an Assume edge into `target` makes, if `target` is a successor of the
    /// innermost construct being lowered.
    fn outcome_into(&self, target: NodeIndex) -> Option<Decision> {
        let &(construct, t, f) = self.decisions.last()?;
        if target == t {
            Some(Decision { construct, outcome: BranchOutcome::Bool(true) })
        } else if target == f {
            Some(Decision { construct, outcome: BranchOutcome::Bool(false) })
        } else {
            None
        }
    }

    /// Registers a branching construct's keyword (parsed-text offset) and returns its original
    /// offset.
    fn register_construct(&mut self, kw: usize, alias: Option<usize>) -> usize {
        let k = self.orig_range((kw, kw + 1)).0;
        self.cfa.branch_keywords.push((k, k));
        if let Some(a) = alias {
            let a = self.orig_range((a, a + 1)).0;
            self.cfa.branch_keywords.push((a, k));
        }
        k
    }

    /// Branches on the controlling expression of the construct whose keyword is at `kw`.
    fn decide(&mut self, cond: &Node<Expression>, t: NodeIndex, f: NodeIndex, kw: usize, alias: Option<usize>) {
        let k = self.register_construct(kw, alias);
        self.decisions.push((k, t, f));
        self.branch_or_unsupported(cond, t, f);
        self.decisions.pop();
    }

    /// Offset (parsed text) of `needle` between `from` and `to`.
    fn find_between(&self, from: usize, to: usize, needle: &str) -> Option<usize> {
        let t = self.src.text.get(from..to.min(self.src.text.len()))?;
        t.find(needle).map(|i| from + i)
    }

    /// Adds an edge from `cur` to a new node and moves `cur` there.
    fn emit(&mut self, op: EdgeOp, s: Sp, text: String) -> R<()> {
        if self.pure_mode {
            self.pending_call = None;
            self.pending_outcome = None;
            return Err("expression with side effects where a constant or side-effect-free expression is needed".into());
        }
        let n = self.new_node();
        let c = self.cur;
        self.add_edge(c, n, op, Some(s), text);
        self.cur = n;
        Ok(())
    }

    fn emit_unsupported(&mut self, s: Sp, what: String) {
        let n = self.new_node();
        let c = self.cur;
        let text = self.text(s);
        self.add_edge(c, n, EdgeOp::Unsupported { what }, Some(s), text);
        self.cur = n;
    }

    // ----------------------------------------------------------------- GNU C (gnu.rs)

    /// Decision 57: every attribute in the text is looked at. Those without effect are
    /// ignored; `packed`/`aligned` make struct layouts unknown; `mode` is applied where
    /// declarators are lowered (any the AST does not show there makes every path unknown); any
    /// other makes every path unknown, naming it.
    fn attributes(&mut self, tu: &TranslationUnit) {
        use lang_c::visit::Visit;
        /// Mode attributes on declarators; struct definitions (key, span); spans of
        /// declarations that are not typedefs.
        #[derive(Default)]
        struct Seen {
            modes: usize,
            structs: Vec<(String, Sp)>,
            plain_decls: Vec<Sp>,
            typedef_unions: Vec<(String, Sp)>,
        }
        impl<'ast> Visit<'ast> for Seen {
            fn visit_declarator(&mut self, d: &'ast Declarator, span: &'ast Span) {
                self.modes += d.extensions.iter().filter(|x| mode_attr(&x.node).is_some()).count();
                lang_c::visit::visit_declarator(self, d, span);
            }
            fn visit_struct_type(&mut self, st: &'ast StructType, span: &'ast Span) {
                if st.declarations.is_some() {
                    let kind = match st.kind.node {
                        StructKind::Struct => "struct",
                        StructKind::Union => "union",
                    };
                    let key = match &st.identifier {
                        Some(i) => format!("{kind} {}", i.node.name),
                        None => format!("{kind} <anonymous@{}>", span.start),
                    };
                    self.structs.push((key, sp(*span)));
                }
                lang_c::visit::visit_struct_type(self, st, span);
            }
            fn visit_declaration(&mut self, d: &'ast Declaration, span: &'ast Span) {
                let typedef = d.specifiers.iter().any(|s| {
                    matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Typedef)
                });
                if !typedef {
                    self.plain_decls.push(sp(*span));
                }
                // `typedef union { … } name __attribute__((transparent_union));` (glibc's form).
                for s in d.specifiers.iter().filter(|_| typedef) {
                    if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                        if let TypeSpecifier::Struct(st) = &t.node {
                            if st.node.kind.node == StructKind::Union {
                                let key = match &st.node.identifier {
                                    Some(i) => format!("union {}", i.node.name),
                                    None => format!("union <anonymous@{}>", st.span.start),
                                };
                                self.typedef_unions.push((key, sp(*span)));
                            }
                        }
                    }
                }
                lang_c::visit::visit_declaration(self, d, span);
            }
        }
        let mut seen = Seen::default();
        seen.visit_translation_unit(tu);
        let text = &self.src.text;
        // A struct definition's attributes: inside it, or right after its closing brace.
        let struct_range = |(k, (a, b)): &(String, Sp)| {
            let mut end = *b;
            while let Some(rest) = text.get(end..) {
                let t = rest.trim_start();
                if !t.starts_with("__attribute") {
                    break;
                }
                let skip = rest.len() - t.len();
                let Some(close) = t.find("))") else { break };
                end += skip + close + 2;
            }
            (k.clone(), *a, end)
        };
        let structs: Vec<(String, usize, usize)> = seen.structs.iter().map(struct_range).collect();
        if self.src.pragma_pack.is_some() {
            let m = "`#pragma pack` changes gcc's struct layout, which is not modelled: sizes, member offsets and \
                     struct objects in memory are unknown"
                .to_string();
            self.warnings.push(m.clone());
            self.structs.layout_taint = Some(m);
        }
        if !self.src.int128_at.is_empty() {
            self.warnings.push(format!(
                "{} uses of `__int128`: 128-bit integers are not modelled (paths that use them are unknown)",
                self.src.int128_at.len()
            ));
        }
        let found = gnu::scan_attributes(&self.src.text);
        let ctor_attrs = found.iter().filter(|a| gnu::bare_name(&a.name) == "constructor").count();
        // Decisions 106 and 138: constructors are modelled when every `constructor` attribute
        // of the text is on a file-scope function in the AST and gcc's order is known.
        let ctors = ctors::constructors(tu, ctor_attrs, self.dm);
        match ctors {
            Ok(ctors) => {
                for (n, (key, def)) in ctors {
                    let def = def.and_then(|i| match &tu.0[i].node {
                        ExternalDeclaration::FunctionDefinition(fd) => Some((sp(fd.node.declarator.span), sp(fd.span))),
                        _ => None,
                    });
                    self.constructors.insert(n, (key, def));
                }
            }
            Err(m) => {
                if let Some(a) = found.iter().find(|a| gnu::bare_name(&a.name) == "constructor") {
                    self.global_failures.push(((a.offset, a.offset + a.len), m));
                }
            }
        }
        let mut modes = 0;
        for a in &found {
            let s = (a.offset, a.offset + a.len);
            if gnu::bare_name(&a.name) == "constructor" {
                // Modelled, or already reported with the reason.
                continue;
            }
            if gnu::bare_name(&a.name) == "transparent_union" {
                // Decision 137: on the union definition it is inside or follows (or between
                // `union` and its tag). Elsewhere it has no effect here: calls stay unsupported.
                let inner = structs
                    .iter()
                    .filter(|(_, x, y)| *x <= a.offset && a.offset < *y)
                    .min_by_key(|(_, x, y)| y - x)
                    .map(|(k, _, _)| k.clone())
                    .or_else(|| gnu::tag_after_attribute(text, a.offset))
                    .or_else(|| {
                        let on = seen.typedef_unions.iter().find(|(_, (x, y))| *x <= a.offset && a.offset < *y);
                        on.map(|(k, _)| k.clone())
                    });
                if let Some(k) = inner.filter(|k| k.starts_with("union ")) {
                    self.transparent_unions.insert(k);
                }
                continue;
            }
            match gnu::classify(&a.name) {
                AttrKind::Ignore => {}
                AttrKind::Layout => {
                    let m = format!(
                        "`__attribute__(({}))` changes gcc's layout, which is not modelled: sizes, member offsets \
                         and objects in memory of the struct types it applies to are unknown",
                        a.name
                    );
                    let inner = structs
                        .iter()
                        .filter(|(_, x, y)| *x <= a.offset && a.offset < *y)
                        .min_by_key(|(_, x, y)| y - x)
                        .map(|(k, _, _)| k.clone())
                        .or_else(|| gnu::tag_after_attribute(text, a.offset));
                    if let Some(key) = inner {
                        // Decision 57: that struct's layout (and that of every type containing it).
                        self.structs.tainted.entry(key.clone()).or_insert(m);
                    } else if seen.plain_decls.iter().any(|(x, y)| *x <= a.offset && a.offset < *y) {
                        // On a variable or function: addresses are abstract in the memory
                        // model, so its alignment has no visible effect.
                    } else if self.structs.layout_taint.is_none() {
                        // E.g. on a typedef, whose type may be a member somewhere: every layout.
                        self.warnings.push(m.clone());
                        self.structs.layout_taint = Some(m);
                    }
                }
                AttrKind::Mode => {
                    modes += 1;
                    if modes > seen.modes {
                        self.global_failures
                            .push((s, "`__attribute__((mode(...)))` in a position that is not modelled".into()));
                    }
                }
                AttrKind::Unmodelled => self
                    .global_failures
                    .push((s, format!("`__attribute__(({}))` (its effect is not modelled)", a.name))),
            }
        }
    }

    /// A declarator's `mode` attribute applied to its base type (an integer of that machine
    /// mode's width, same signedness).
    fn apply_mode(&mut self, base: Ty, d: &Declarator) -> Ty {
        let Some(mode) = d.extensions.iter().find_map(|x| mode_attr(&x.node)) else { return base };
        match (&base, gnu::mode_bits(&mode, self.dm.long_bits())) {
            (Ty::Int(t), Some(bits)) if d.derived.is_empty() && !t.is_bool => Ty::Int(IntTy::new(bits, t.signed)),
            _ => Ty::Other(format!("`mode({mode})` attribute (not modelled)")),
        }
    }

    /// Why a struct's layout is not known, if an attribute is the reason.
    fn layout_note(&self, ty: &Ty) -> String {
        match ty {
            Ty::Struct(k) => match self.structs.layout_taint.as_ref().or(self.structs.tainted.get(k)) {
                Some(m) => format!(": {m}"),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    /// `typeof(e)` / `__typeof__(e)`: the declared type of a variable, the type of a pointer
    /// expression, else the type of the expression's value (not evaluated).
    fn typeof_expr(&mut self, e: &Node<Expression>) -> Ty {
        if let Expression::Identifier(i) = &e.node {
            if let Some(Sym::Var(_, t)) = self.lookup(&i.node.name) {
                return t.clone();
            }
        }
        if self.is_ptr_expr(e) {
            if let Some(t) = self.expr_ty(e) {
                return t;
            }
        }
        match self.pure(|b| b.rv_any(e)) {
            Ok(Val::I(x)) => Ty::Int(x.ty()),
            Ok(Val::F(f)) => Ty::Float(f.fty().name()),
            // A struct member, or a call (not evaluated): the declared type.
            Err(_) => match self.expr_ty(e) {
                Some(t @ Ty::Struct(_)) if matches!(e.node, Expression::Member(_)) => t,
                Some(t @ (Ty::Int(_) | Ty::Float(_) | Ty::Struct(_))) if matches!(e.node, Expression::Call(_)) => t,
                _ => Ty::Other(format!("typeof({})", self.text(sp(e.span)))),
            },
        }
    }

    /// `offsetof(T, m.n[k])` with gcc's layout.
    fn offset_of(&mut self, o: &Node<OffsetOfExpression>) -> R<u64> {
        let mut ty = self.type_name(&o.node.type_name.node);
        let d = &o.node.designator.node;
        let mut off = 0u64;
        let why = || {
            "offsetof of a member whose offset is not known (bit-fields before it, or a layout changed by an attribute)"
                .to_string()
        };
        let (o1, t1) = self.structs.member(&ty, &d.base.node.name, self.dm).ok_or_else(why)?;
        off += o1;
        ty = t1;
        for m in &d.members {
            match &m.node {
                OffsetMember::Member(id) => {
                    let (o2, t2) = self.structs.member(&ty, &id.node.name, self.dm).ok_or_else(why)?;
                    off += o2;
                    ty = t2;
                }
                OffsetMember::Index(e) => {
                    let Ty::Array(elem, _) = &ty else { return Err("offsetof: index into a non-array".into()) };
                    let elem = (**elem).clone();
                    let k = self.const_eval(e)?;
                    let size = self.size_of(&elem).ok_or_else(why)?;
                    let k = u64::try_from(k).map_err(|_| "offsetof with a negative index".to_string())?;
                    off = k.checked_mul(size).and_then(|x| x.checked_add(off)).ok_or("offsetof overflows")?;
                    ty = elem;
                }
                OffsetMember::IndirectMember(_) => return Err("offsetof with `->` (not valid C)".into()),
            }
        }
        Ok(off)
    }

    /// `__builtin_expect(e, c)` (and `__builtin_expect_with_probability`): the value of `e` as a
    /// `long`; `c` (a constant hint) is evaluated for its side effects only.
    fn expect_builtin(&mut self, c: &Node<CallExpression>) -> R<Option<Val>> {
        let Expression::Identifier(i) = &c.node.callee.node else { return Ok(None) };
        let name = i.node.name.as_str();
        if !matches!(name, "__builtin_expect" | "__builtin_expect_with_probability") || self.func_ids.contains_key(name)
        {
            return Ok(None);
        }
        let args = &c.node.arguments;
        if args.len() != if name == "__builtin_expect" { 2 } else { 3 } {
            return Err(format!("`{name}` with {} arguments", args.len()));
        }
        if args[1..].iter().any(|a| has_side_effects(&a.node)) {
            return Err(format!("`{name}` with a hint that has side effects (not supported)"));
        }
        let v = if self.is_ptr_expr(&args[0]) {
            return Err(format!("`{name}` of a pointer (a pointer converted to a number is not supported)"));
        } else {
            self.rv_any(&args[0])?
        };
        Ok(Some(Val::I(v.into_int(IntTy::new(self.dm.long_bits(), true)))))
    }

    /// Decision 58: inline assembly. Without outputs, a no-op (unless it may write memory);
    /// the output operands get fresh values in one `EdgeOp::Havoc` step, which the product
    /// treats as approximate (a confirmation must hold for every value).
    fn asm(&mut self, a: &Node<AsmStatement>, ssp: Sp) -> R<()> {
        let text = self.text(ssp);
        let line_note = "inline assembly";
        let ext = match &a.node {
            AsmStatement::GnuBasic(t) => {
                let tmpl = string_bytes(&t.node)?;
                if tmpl.iter().all(|b| b.is_ascii_whitespace()) {
                    return Ok(());
                }
                return Err(format!(
                    "{line_note} `{text}` (basic asm with instructions may have any effect; not modelled)"
                ));
            }
            AsmStatement::GnuExtended(x) => x,
        };
        let tmpl = String::from_utf8_lossy(&string_bytes(&ext.template.node)?).into_owned();
        let mut clobbers = Vec::new();
        for c in &ext.clobbers {
            clobbers.push(String::from_utf8_lossy(&string_bytes(&c.node)?).into_owned());
        }
        if gnu::asm_writes_memory(&tmpl, &clobbers) {
            return Err(format!("{line_note} `{text}` with a \"memory\" clobber may write any memory (not modelled)"));
        }
        for o in ext.outputs.iter().chain(&ext.inputs) {
            if has_side_effects(&o.node.variable_name.node) {
                return Err(format!("{line_note} `{text}` with an operand that has side effects (not supported)"));
            }
        }
        if ext.outputs.is_empty() {
            return Ok(());
        }
        let mut lhs = Vec::new();
        for o in &ext.outputs {
            let e = &o.node.variable_name;
            if self.is_ptr_expr(e) || self.float_lvalue(e)?.is_some() {
                return Err(format!("{line_note} `{text}` with an output that is not an integer (not modelled)"));
            }
            lhs.push(self.lv(e)?);
        }
        self.emit(EdgeOp::Havoc { lhs, what: format!("{line_note} `{text}`") }, ssp, text.clone())?;
        self.warnings.push(format!(
            "inline assembly `{text}`: its outputs are havocked (any value); a confirmation must hold for every value"
        ));
        Ok(())
    }

    fn snap(&self) -> Snap {
        Snap {
            nodes: self.cfa.graph.node_count(),
            edges: self.cfa.graph.edge_count(),
            vars: self.cfa.vars.len(),
            global_inits: self.cfa.global_inits.len(),
            cur: self.cur,
            statement_starts: self.cfa.statement_starts.len(),
            branch_keywords: self.cfa.branch_keywords.len(),
        }
    }

    fn rollback(&mut self, s: &Snap) {
        while self.cfa.graph.node_count() > s.nodes {
            let last = NodeIndex::new(self.cfa.graph.node_count() - 1);
            self.cfa.graph.remove_node(last);
        }
        while self.cfa.graph.edge_count() > s.edges {
            let last = petgraph::graph::EdgeIndex::new(self.cfa.graph.edge_count() - 1);
            self.cfa.graph.remove_edge(last);
        }
        self.cfa.vars.truncate(s.vars);
        // String literal objects made inside the region go with their variables.
        self.cfa.global_inits.truncate(s.global_inits);
        let n = s.vars;
        self.strings.retain(|_, v| (v.0 as usize) < n);
        // Anchors recorded inside the rolled-back region would point at removed locations.
        self.cfa.statement_starts.truncate(s.statement_starts);
        self.cfa.branch_keywords.truncate(s.branch_keywords);
        self.pending_call = None;
        self.pending_outcome = None;
        self.cur = s.cur;
        if let Some(f) = &mut self.f {
            // Labels created inside a rolled-back region (none in expressions) would dangle.
            let n = s.nodes;
            f.labels.retain(|_, v| v.index() < n);
        }
    }

    fn emitted_since(&self, s: &Snap) -> bool {
        self.cfa.graph.edge_count() != s.edges || self.cfa.vars.len() != s.vars
    }

    // ----------------------------------------------------------------- scopes

    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn bind(&mut self, name: &str, sym: Sym) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), sym);
        }
    }

    fn new_var(&mut self, name: &str, ty: &Ty, scope: VarScope, visible: (usize, usize), temporary: bool) -> VarId {
        let id = VarId(self.cfa.vars.len() as u32);
        let cty = match ty {
            // Unions live in memory as bytes (their members overlap).
            Ty::Struct(k) if k.starts_with("union ") => {
                match (self.structs.layout(ty, self.dm), self.structs.union_member_sizes(ty, self.dm)) {
                    (Some((size, _)), Some(members)) => CType::Bytes { size, members },
                    _ => CType::Unsupported(ty.describe(self.dm)),
                }
            }
            // Arrays of structs, unions or pointers live in memory as bytes too: every access is
            // a typed load or store at its byte offset.
            _ if Self::bytes_array(ty) => match self.structs.layout(ty, self.dm) {
                Some((size, _)) if size > 0 => CType::Bytes { size, members: Vec::new() },
                _ => CType::Unsupported(ty.describe(self.dm)),
            },
            // So does a struct whose address is taken (decision 49).
            Ty::Struct(_) if !temporary && !self.in_params && self.addressed.contains(name) => {
                match self.structs.layout(ty, self.dm) {
                    Some((size, _)) if size > 0 && !self.structs.has_bitfields(ty) => {
                        CType::Bytes { size, members: vec![size] }
                    }
                    _ => ty.to_ctype(self.dm),
                }
            }
            _ => ty.to_ctype(self.dm),
        };
        let pointee = match (ty, &cty) {
            (Ty::Pointer(t), _) => self.pointee(t),
            (Ty::Array(t, _), CType::Bytes { .. }) => self.pointee(t),
            (Ty::Struct(_), CType::Bytes { .. }) => self.pointee_struct(ty),
            _ => None,
        };
        self.cfa.vars.push(VarInfo {
            name: name.to_string(),
            ty: cty,
            scope,
            visible,
            temporary,
            pointee,
            read_only: false,
        });
        id
    }

    /// What a pointer to `t` points to, for witness assumptions.
    fn pointee(&self, t: &Ty) -> Option<Pointee> {
        match t {
            Ty::Int(_) | Ty::Float(_) | Ty::Pointer(_) => {
                let ty = Self::scalar_ty(t, self.dm)?;
                Some(Pointee::Scalar { ty, size: self.structs.layout(t, self.dm)?.0 })
            }
            Ty::Struct(k) if k.starts_with("struct ") => self.pointee_struct(t),
            _ => None,
        }
    }

    /// The layout of a struct or union type, by scalar member.
    fn pointee_struct(&self, t: &Ty) -> Option<Pointee> {
        let mut members = Vec::new();
        self.scalar_members(t, "", 0, 0, &mut members);
        Some(Pointee::Struct { members, size: self.structs.layout(t, self.dm)?.0 })
    }

    fn scalar_ty(t: &Ty, dm: DataModel) -> Option<ScalarTy> {
        match t.to_ctype(dm) {
            CType::Int(i) => Some(ScalarTy::Int(i)),
            CType::Float(f) => Some(ScalarTy::Float(f)),
            CType::Ptr => Some(ScalarTy::Ptr),
            _ => None,
        }
    }

    /// The scalar members of a struct of type `t` at byte `base`, by access path (bit-fields
    /// and members of other types are left out).
    fn scalar_members(&self, t: &Ty, prefix: &str, base: u64, depth: u32, out: &mut Vec<(String, u64, ScalarTy)>) {
        let Some(fields) = self.structs.fields(t) else { return };
        if depth > 8 {
            return;
        }
        for f in fields.iter().filter(|f| !f.name.is_empty() && f.bit_width.is_none()) {
            let Some((off, fty)) = self.structs.member(t, &f.name, self.dm) else { continue };
            let path = if prefix.is_empty() { f.name.clone() } else { format!("{prefix}.{}", f.name) };
            self.scalar_object(&fty, path, base + off, depth, out);
        }
    }

    /// The scalars of an object of type `t` at byte `at`, by access path: itself, its members
    /// (`in.x`), or the elements of an array member (`i[0]`, `m[1][2].x`; at most
    /// `MAX_MEMBER_ELEMENTS` per array, for witnesses that name them with constant indices).
    fn scalar_object(&self, t: &Ty, path: String, at: u64, depth: u32, out: &mut Vec<(String, u64, ScalarTy)>) {
        const MAX_MEMBER_ELEMENTS: u64 = 256;
        match t {
            Ty::Struct(_) => self.scalar_members(t, &path, at, depth + 1, out),
            Ty::Array(inner, Some(n)) if depth <= 8 => {
                let Some((size, _)) = self.structs.layout(inner, self.dm) else { return };
                for k in 0..(*n).min(MAX_MEMBER_ELEMENTS) {
                    self.scalar_object(inner, format!("{path}[{k}]"), at + k * size, depth + 1, out);
                }
            }
            _ => {
                if let Some(st) = Self::scalar_ty(t, self.dm) {
                    out.push((path, at, st));
                }
            }
        }
    }

    /// A fixed-size array (of any dimensions) whose elements are structs, unions or pointers.
    fn bytes_array(ty: &Ty) -> bool {
        if !matches!(ty, Ty::Array(..)) {
            return false;
        }
        let mut t = ty;
        while let Ty::Array(inner, n) = t {
            if n.is_none() {
                return false;
            }
            t = inner;
        }
        matches!(t, Ty::Struct(_) | Ty::Pointer(_))
    }

    fn new_float_temp(&mut self, fty: FloatTy) -> R<VarId> {
        if self.pure_mode {
            return Err("expression with side effects where a side-effect-free expression is needed".into());
        }
        let f = self.f.as_ref().map(|f| f.id).ok_or("temporary outside a function")?;
        self.tmp_counter += 1;
        let name = format!("__tmp_{}", self.tmp_counter);
        Ok(self.new_var(&name, &Ty::Float(fty.name()), VarScope::Local(f), (0, 0), true))
    }

    fn new_temp(&mut self, ty: IntTy) -> R<VarId> {
        if self.pure_mode {
            return Err("expression with side effects where a side-effect-free expression is needed".into());
        }
        let f = self.f.as_ref().map(|f| f.id).ok_or("temporary outside a function")?;
        self.tmp_counter += 1;
        let name = format!("__tmp_{}", self.tmp_counter);
        Ok(self.new_var(&name, &Ty::Int(ty), VarScope::Local(f), (0, 0), true))
    }

    // ----------------------------------------------------------------- types

    fn base_type(&mut self, specs: &[&TypeSpecifier]) -> Ty {
        let mut c = SpecCounter::default();
        let mut other: Option<Ty> = None;
        for s in specs {
            if c.add(s) {
                continue;
            }
            other = Some(match s {
                TypeSpecifier::Struct(st) => {
                    let kind = match st.node.kind.node {
                        StructKind::Struct => "struct",
                        StructKind::Union => "union",
                    };
                    let key = match &st.node.identifier {
                        Some(i) => format!("{kind} {}", i.node.name),
                        None => format!("{kind} <anonymous@{}>", st.span.start),
                    };
                    if let Some(decls) = &st.node.declarations {
                        self.register_struct(&key, decls);
                    }
                    Ty::Struct(key)
                }
                TypeSpecifier::Enum(en) => self.enum_type(en),
                TypeSpecifier::TypedefName(id) => match self.lookup(&id.node.name) {
                    Some(Sym::Typedef(t)) => t.clone(),
                    _ => Ty::Other(format!("unknown type `{}`", id.node.name)),
                },
                TypeSpecifier::TypeOf(t) => match &t.node {
                    TypeOf::Type(tn) => self.type_name(&tn.node),
                    TypeOf::Expression(e) => self.typeof_expr(e),
                },
                TypeSpecifier::Atomic(_) => Ty::Other("_Atomic type".into()),
                TypeSpecifier::TS18661Float(_) => Ty::Float("_FloatN"),
                _ => Ty::Other("unknown type".into()),
            });
        }
        match other {
            Some(t) => t,
            None => {
                if c.any() {
                    c.resolve(self.dm)
                } else {
                    Ty::Int(IntTy::INT)
                }
            }
        }
    }

    /// Records a struct definition's fields (nested definitions are registered on the way).
    fn register_struct(&mut self, key: &str, decls: &[Node<StructDeclaration>]) {
        let mut fields = Vec::new();
        for d in decls {
            let StructDeclaration::Field(f) = &d.node else { continue };
            let specs: Vec<&TypeSpecifier> = f
                .node
                .specifiers
                .iter()
                .filter_map(|s| match &s.node {
                    SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
                    _ => None,
                })
                .collect();
            let base = self.base_type(&specs);
            if f.node.declarators.is_empty() {
                // C11 anonymous struct/union member: its members would be accessed directly.
                fields.push(Field {
                    name: format!("<anonymous@{}>", f.span.start),
                    ty: Ty::Other("anonymous struct or union member".into()),
                    bit_width: None,
                    declared: base,
                });
                continue;
            }
            for sd in &f.node.declarators {
                let (name, ty) = match &sd.node.declarator {
                    Some(d) => self.declarator_type(base.clone(), &d.node),
                    None => (None, base.clone()),
                };
                let width = match &sd.node.bit_width {
                    Some(w) => match self.const_eval(w) {
                        Ok(v) if (0..=64).contains(&v) => Some(v as u32),
                        _ => {
                            self.warnings.push(format!("bit-field width in {key} is not a valid constant"));
                            Some(u32::MAX)
                        }
                    },
                    None => None,
                };
                let Some(name) = name else {
                    // Unnamed bit-field: padding only (kept for the layout, never a leaf).
                    if width.is_some() {
                        fields.push(Field {
                            name: String::new(),
                            ty: Ty::Other("padding".into()),
                            bit_width: width,
                            declared: ty,
                        });
                    }
                    continue;
                };
                let fty = match (width, &ty) {
                    (None, _) => ty.clone(),
                    (Some(w), Ty::Int(t)) if w >= 1 && w <= t.bits => {
                        if t.is_bool {
                            Ty::Int(IntTy::BOOL)
                        } else {
                            // Plain `int` bit-fields are signed, as with gcc.
                            Ty::Int(IntTy::new(w, t.signed))
                        }
                    }
                    (Some(_), _) => Ty::Other(format!("bit-field `{name}` of unsupported type or width")),
                };
                fields.push(Field { name, ty: fty, bit_width: width, declared: ty });
            }
        }
        if self.structs.defs.insert(key.to_string(), fields).is_some() {
            self.warnings.push(format!("{key} is defined more than once; the last definition is used"));
        }
    }

    /// Creates the leaf variables of a struct variable `v` named `name` (nothing for a type
    /// that is not a complete struct).
    fn flatten_struct_var(&mut self, v: VarId, name: &str, ty: &Ty, scope: VarScope, visible: (usize, usize)) {
        if !matches!(ty, Ty::Struct(k) if k.starts_with("struct ")) || matches!(self.cfa.var(v).ty, CType::Bytes { .. })
        {
            return;
        }
        let Ok(leaves) = self.structs.leaves(ty) else {
            self.struct_vars.remove(&v);
            return;
        };
        let mut out = Vec::new();
        for (path, lty) in leaves {
            let id = self.new_var(&format!("{name}{path}"), &lty, scope.clone(), visible, false);
            out.push((path, id, lty));
        }
        self.struct_vars.insert(v, out);
    }

    /// The leaves of a flattened struct variable at `path` and below (`""`: all of them), with
    /// their paths relative to `path`.
    fn leaves_under(&self, v: VarId, path: &str) -> Vec<(String, VarId, Ty)> {
        let Some(all) = self.struct_vars.get(&v) else { return Vec::new() };
        all.iter()
            .filter_map(|(p, id, t)| {
                let rest = p.strip_prefix(path)?;
                (rest.is_empty() || rest.starts_with('.')).then(|| (rest.to_string(), *id, t.clone()))
            })
            .collect()
    }

    /// Resolves `s`, `s.a`, `s.in.x` to (struct variable, access path, type of the member).
    fn struct_path(&self, e: &Node<Expression>) -> R<(VarId, String, Ty)> {
        match &e.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Sym::Var(v, ty @ Ty::Struct(_))) => Ok((*v, String::new(), ty.clone())),
                _ => Err(format!("`{}` is not a struct variable", i.node.name)),
            },
            Expression::Member(m) => {
                if m.node.operator.node == MemberOperator::Indirect {
                    return Err(format!(
                        "member access `{}` through a pointer (pointers are not supported yet)",
                        self.text(sp(e.span))
                    ));
                }
                let (v, path, ty) = self.struct_path(&m.node.expression)?;
                let name = &m.node.identifier.node.name;
                let Some(fields) = self.structs.fields(&ty) else {
                    return Err(format!(
                        "member access `{}` of type {} (not supported yet)",
                        self.text(sp(e.span)),
                        ty.describe(self.dm)
                    ));
                };
                let f = fields
                    .iter()
                    .find(|f| &f.name == name)
                    .ok_or_else(|| format!("no member `{name}` in {}", ty.describe(self.dm)))?;
                if !self.struct_vars.contains_key(&v) {
                    return Err(format!("member access `{}` (struct not flattened)", self.text(sp(e.span))));
                }
                Ok((v, format!("{path}.{name}"), f.ty.clone()))
            }
            _ => Err(format!("member access on `{}` (only struct variables are supported yet)", self.text(sp(e.span)))),
        }
    }

    /// A member access `s.a` / `s.in.arr` as a value, element reference or array.
    fn member_place(&self, e: &Node<Expression>) -> R<Either> {
        let (v, path, ty) = self.struct_path(e)?;
        if matches!(ty, Ty::Struct(_)) {
            return Err(format!("struct value `{}` used as a value (not supported yet)", self.text(sp(e.span))));
        }
        // The leaf's own type (fixed when the variable was declared, even if a block-scope
        // definition of the same tag came later).
        let (_, leaf, lty) = self
            .struct_vars
            .get(&v)
            .and_then(|l| l.iter().find(|(p, _, _)| *p == path))
            .ok_or_else(|| format!("member `{}` not found", self.text(sp(e.span))))?;
        if *lty != ty {
            return Err(format!("member `{}` of a redefined struct type (not supported)", self.text(sp(e.span))));
        }
        self.var_either(*leaf, lty, &self.text(sp(e.span)))
    }

    /// Whole-struct assignment `dst = src` as one step (both struct lvalues of the same type).
    fn struct_copy_writes(&mut self, dst: &Node<Expression>, src: &Node<Expression>) -> R<Vec<Write>> {
        let (dv, dp, dty) = self.struct_path(dst)?;
        if let Expression::CompoundLiteral(_) = &src.node {
            let id = self.compound_literal(src)?;
            return self.struct_copy_writes(dst, &id);
        }
        if let Expression::Call(_) = &src.node {
            return Err("struct returned by a function (struct return values are not supported yet)".into());
        }
        let flat = self.struct_path(src).and_then(|x| {
            if self.struct_vars.contains_key(&x.0) {
                Ok(x)
            } else {
                Err("copy of a struct that could not be flattened (not supported yet)".to_string())
            }
        });
        let (sv, spath, sty) = match flat {
            Ok(x) => x,
            Err(m) => match self.place(src) {
                Ok(Either::Mem(p, sty)) if sty == dty && self.struct_vars.contains_key(&dv) => {
                    let d = self.leaves_under(dv, &dp);
                    return self.leaves_from_memory(d, &p, &dty);
                }
                _ => return Err(m),
            },
        };
        if !self.struct_vars.contains_key(&sv) || !self.struct_vars.contains_key(&dv) {
            return Err("copy of a struct that could not be flattened (not supported yet)".into());
        }
        if dty != sty {
            return Err(format!(
                "assignment of {} to {} (incompatible struct types)",
                sty.describe(self.dm),
                dty.describe(self.dm)
            ));
        }
        let d = self.leaves_under(dv, &dp);
        let s = self.leaves_under(sv, &spath);
        self.copy_into_leaves(d, s)
    }

    /// `dst = src` for a struct or union in memory (`a[i] = a[j]`, `*p = *q`, `p->s = u`): its
    /// bytes copied as by `memmove`. A copy between memory and a flattened struct variable is
    /// not supported yet.
    fn mem_struct_copy(&mut self, dst: &Node<Expression>, src: &Node<Expression>) -> R<()> {
        let Either::Mem(d, dty) = self.place(dst)? else {
            return Err(format!("assignment to `{}` (not supported yet)", self.text(sp(dst.span))));
        };
        if let Expression::Call(c) = &src.node {
            let target = self.struct_call_target(c, StructDst::Mem(d, dty))?;
            let ssp = self.stmt_sp;
            return self.call(c, Some(target), ssp);
        }
        if self.is_struct_lvalue(src) {
            let (sv, spath, sty) = self.struct_path(src)?;
            if sty != dty {
                return Err("assignment of another struct type".into());
            }
            let leaves = self.leaves_under(sv, &spath);
            let writes = self.leaves_into_memory(&d, &dty, leaves)?;
            let text = self.text(self.stmt_sp);
            return self.emit(EdgeOp::AssignAll { writes }, self.stmt_sp, text);
        }
        let Either::Mem(s, sty) = self.place(src)? else {
            return Err(format!(
                "assignment of `{}` to a struct in memory (not supported yet)",
                self.text(sp(src.span))
            ));
        };
        if dty != sty {
            return Err(format!(
                "assignment of {} to {} (incompatible struct types)",
                sty.describe(self.dm),
                dty.describe(self.dm)
            ));
        }
        let (size, _) =
            self.structs.layout(&dty, self.dm).ok_or_else(|| format!("copy of {}", dty.describe(self.dm)))?;
        let n = conv(Expr::Const { bits: size, ty: IntTy::ULLONG }, IntTy::new(self.dm.long_bits(), false));
        let src = MemSource::Copy { src: s, overlap_ok: true };
        let text = self.text(self.stmt_sp);
        self.emit(
            EdgeOp::MemBytes { function: "struct assignment".into(), lhs: None, dst: d, src, n },
            self.stmt_sp,
            text,
        )
    }

    /// Initial values of the leaves of a struct of type `ty` from a braced initializer (or a
    /// struct expression), by leaf path; leaves not listed are zero.
    fn struct_init(&mut self, ty: &Ty, init: &Initializer, prefix: &str, out: &mut Vec<(String, Init)>) -> R<()> {
        // Unnamed bit-fields take no part in initialization (C11 6.7.9p9).
        let fields: Vec<Field> = self
            .structs
            .fields(ty)
            .ok_or_else(|| format!("initializer of {}", ty.describe(self.dm)))?
            .iter()
            .filter(|f| !f.name.is_empty())
            .cloned()
            .collect();
        let Initializer::List(items) = init else {
            return Err("struct initialized from an expression (not supported yet)".into());
        };
        let mut pos = 0usize;
        for it in items {
            if let Some(d) = it.node.designation.first() {
                if it.node.designation.len() > 1 {
                    return Err("nested designators in a struct initializer (not supported yet)".into());
                }
                let Designator::Member(m) = &d.node else {
                    return Err("array designator in a struct initializer".into());
                };
                pos = fields
                    .iter()
                    .position(|f| f.name == m.node.name)
                    .ok_or_else(|| format!("no member `{}` in {}", m.node.name, ty.describe(self.dm)))?;
            }
            let Some(f) = fields.get(pos) else {
                self.warnings.push("excess elements in struct initializer ignored".into());
                continue;
            };
            let path = format!("{prefix}.{}", f.name);
            match (&f.ty, &it.node.initializer.node) {
                (Ty::Struct(_), Initializer::List(_)) => {
                    self.struct_init(&f.ty, &it.node.initializer.node, &path, out)?
                }
                (Ty::Struct(_), Initializer::Expression(e)) if items.len() == 1 && self.const_eval(e) == Ok(0) => {
                    // `{0}`: everything zero.
                }
                (Ty::Struct(_), _) => {
                    return Err("struct member initialized without braces (not supported yet)".into());
                }
                (fty, i) => {
                    let v = self.initializer(fty, i)?;
                    out.push((path, v));
                }
            }
            pos += 1;
        }
        Ok(())
    }

    /// The writes of a struct declaration `struct S s [= init];` (all leaves in one step).
    fn struct_decl_writes(&mut self, v: VarId, ty: &Ty, init: Option<&Initializer>) -> R<Vec<Write>> {
        let leaves = self.leaves_under(v, "");
        match init {
            None => Ok(leaves.into_iter().map(|(_, var, _)| Write::Declare { var, init: None }).collect()),
            Some(Initializer::Expression(e)) => {
                if let Expression::Call(_) = &e.node {
                    return Err("struct returned by a function (struct return values are not supported yet)".into());
                }
                if let Expression::CompoundLiteral(_) = &e.node {
                    let id = Initializer::Expression(Box::new(self.compound_literal(e)?));
                    return self.struct_decl_writes(v, ty, Some(&id));
                }
                let (sv, spath, sty) = match self.struct_path(e) {
                    Ok(x) => x,
                    Err(m) => match self.place(e) {
                        Ok(Either::Mem(p, sty)) if &sty == ty => return self.leaves_from_memory(leaves, &p, ty),
                        _ => return Err(m),
                    },
                };
                if &sty != ty {
                    return Err("initializer of another struct type".into());
                }
                let src = self.leaves_under(sv, &spath);
                self.copy_into_leaves(leaves, src)
            }
            Some(list) => {
                let mut vals = Vec::new();
                self.struct_init(ty, list, "", &mut vals)?;
                let mut writes = Vec::new();
                for (path, var, lty) in leaves {
                    let init = vals.iter().rev().find(|(p, _)| *p == path).map(|(_, i)| i.clone());
                    if init.is_some() && matches!(lty.to_ctype(self.dm), CType::Unsupported(_)) {
                        return Err(format!("initializer of member `{path}` of type {}", lty.describe(self.dm)));
                    }
                    writes.push(Write::Declare { var, init: Some(init.unwrap_or(Init::Zero)) });
                }
                Ok(writes)
            }
        }
    }

    fn copy_into_leaves(&self, dst: Vec<(String, VarId, Ty)>, src: Vec<(String, VarId, Ty)>) -> R<Vec<Write>> {
        if dst.len() != src.len() {
            return Err("struct copy between differently flattened structs".into());
        }
        let mut writes = Vec::new();
        for ((p, dvar, ty), (sp_, svar, sty)) in dst.into_iter().zip(src) {
            if p != sp_ || ty != sty {
                return Err("struct copy between differently defined struct types (not supported)".into());
            }
            writes.push(match (Self::scalar_ty(&ty, self.dm), ty.to_ctype(self.dm)) {
                (Some(st), _) => write_var(dvar, leaf_value(svar, st)),
                (None, CType::Array { .. } | CType::FloatArray { .. }) => Write::Array { dst: dvar, src: svar },
                _ => return Err(format!("copy of a struct with member `{p}` of type {}", ty.describe(self.dm))),
            });
        }
        Ok(writes)
    }

    /// The hidden global that holds the struct result of the current function (flattened; one
    /// per function, so a result is copied out when the call returns, before any other call).
    fn result_var(&mut self, f: FuncId, ty: &Ty) -> R<VarId> {
        if let Some(&v) = self.result_vars.get(&f) {
            return Ok(v);
        }
        let name = format!("__result_{}", self.cfa.function(f).name);
        let whole = (0, self.cfa.source_len);
        let v = self.new_var(&name, ty, VarScope::Global, whole, true);
        self.flatten_struct_var(v, &name, ty, VarScope::Global, whole);
        if !self.struct_vars.contains_key(&v) {
            return Err(format!("struct result of type {} (not supported yet)", ty.describe(self.dm)));
        }
        self.result_vars.insert(f, v);
        Ok(v)
    }

    /// `return e;` of a struct: the writes of `e`'s leaves into the function's result variable.
    fn struct_result_writes(&mut self, e: &Node<Expression>, ty: &Ty) -> R<Vec<Write>> {
        let f = self.f.as_ref().map(|f| f.id).ok_or("return outside a function")?;
        let rv = self.result_var(f, ty)?;
        let dst = self.leaves_under(rv, "");
        if let Expression::Call(_) = &e.node {
            return Err("return of a struct returned by a call (not supported yet)".into());
        }
        if self.is_struct_lvalue(e) {
            let (sv, spath, sty) = self.struct_path(e)?;
            if &sty != ty {
                return Err("return of another struct type".into());
            }
            let src = self.leaves_under(sv, &spath);
            return self.copy_into_leaves(dst, src);
        }
        match self.place(e)? {
            Either::Mem(p, sty) if &sty == ty => self.leaves_from_memory(dst, &p, ty),
            _ => Err("return of this struct expression (not supported yet)".into()),
        }
    }

    /// The target of a call whose struct result goes to `dst` (the leaves of a flattened
    /// struct, or a struct in memory): the writes from the callee's result variable.
    fn struct_call_target(&mut self, c: &Node<CallExpression>, dst: StructDst) -> R<Target> {
        let name = self.call_name(c)?.to_string();
        let f = *self.func_ids.get(&name).ok_or_else(|| format!("struct result of `{name}`, which has no body"))?;
        let ret = self.sigs.get(&name).map(|s| s.ret.clone()).unwrap_or(Ty::Void);
        let rv = self.result_var(f, &ret)?;
        let src = self.leaves_under(rv, "");
        let writes = match dst {
            StructDst::Leaves(leaves, ty) if ty == ret => self.copy_into_leaves(leaves, src)?,
            StructDst::Mem(p, ty) if ty == ret => self.leaves_into_memory(&p, &ty, src)?,
            _ => return Err(format!("struct result of `{name}` stored into another type")),
        };
        Ok(Target::Struct(writes))
    }

    /// Byte offset of the member at `path` (`.in.x`) in a struct of type `ty` (`None`: a
    /// bit-field, or a layout that is not known).
    fn member_offset(&self, ty: &Ty, path: &str) -> Option<u64> {
        let (mut off, mut cur) = (0u64, ty.clone());
        for name in path.split('.').filter(|n| !n.is_empty()) {
            let (o, t) = self.structs.member(&cur, name, self.dm)?;
            off += o;
            cur = t;
        }
        Some(off)
    }

    /// The leaf at `path` of a struct of type `ty` stored at `base`, as an address.
    fn leaf_address(&self, base: &PExpr, ty: &Ty, path: &str) -> R<PExpr> {
        let off = self.member_offset(ty, path).ok_or_else(|| {
            format!("copy of member `{path}` of {} through memory (not supported yet)", ty.describe(self.dm))
        })?;
        Ok(PExpr::Add { base: Box::new(base.clone()), k: Box::new(conv(Expr::int(off as i64), IntTy::LLONG)) })
    }

    /// Loads of a struct of type `ty` stored at `src` into the leaves of a flattened struct
    /// variable (scalar leaves).
    fn leaves_from_memory(&self, dst: Vec<(String, VarId, Ty)>, src: &PExpr, ty: &Ty) -> R<Vec<Write>> {
        let mut writes = Vec::new();
        for (path, var, lty) in dst {
            let Some(st) = Self::scalar_ty(&lty, self.dm) else {
                return Err(format!("copy of member `{path}` of type {} from memory", lty.describe(self.dm)));
            };
            writes.push(write_var(var, load_value(self.leaf_address(src, ty, &path)?, st)));
        }
        Ok(writes)
    }

    /// Stores of the leaves of a flattened struct variable into a struct of type `ty` stored at
    /// `dst` (scalar leaves).
    fn leaves_into_memory(&self, dst: &PExpr, ty: &Ty, src: Vec<(String, VarId, Ty)>) -> R<Vec<Write>> {
        let mut writes = Vec::new();
        for (path, var, lty) in src {
            let Some(st) = Self::scalar_ty(&lty, self.dm) else {
                return Err(format!("copy of member `{path}` of type {} into memory", lty.describe(self.dm)));
            };
            writes.push(write_at(self.leaf_address(dst, ty, &path)?, leaf_value(var, st)));
        }
        Ok(writes)
    }

    /// The type of an `enum` specifier (decision 100): a definition is registered (its
    /// constants and its tag, in the current scope); a reference finds its tag.
    fn enum_type(&mut self, en: &Node<EnumType>) -> Ty {
        let tag = en.node.identifier.as_ref().map(|i| format!("enum {}", i.node.name));
        if en.node.enumerators.is_empty() {
            return match tag.as_deref().map(|t| (t, self.lookup(t))) {
                Some((_, Some(Sym::Typedef(t)))) => t.clone(),
                Some((t, _)) => Ty::Other(format!("incomplete type `{t}`")),
                None => Ty::Other("enum without enumerators".into()),
            };
        }
        let ty = self.register_enum(en);
        if let Some(tag) = tag {
            if self.scopes.len() == 1 {
                if let Ty::Int(t) = &ty {
                    if !self.cfa.enum_tags.contains(&(tag.clone(), *t)) {
                        self.cfa.enum_tags.push((tag.clone(), *t));
                    }
                }
            }
            self.bind(&tag, Sym::Typedef(ty.clone()));
        }
        ty
    }

    /// Binds the constants of an enumeration definition and returns its type, as gcc (C17
    /// mode, no `-fshort-enums`) chooses it: `unsigned int` when no value is negative and all
    /// fit, `int` when some is negative and all fit, else the 64-bit type of that signedness.
    /// A constant has type `int` when its value fits, else the enumeration's type; inside the
    /// definition such a constant has the type of its expression (or of the previous constant,
    /// for an implicit value). An attribute on the definition (`packed` makes gcc choose a
    /// smaller type) or a value that cannot be computed gives a type that is not modelled.
    fn register_enum(&mut self, en: &Node<EnumType>) -> Ty {
        let mut why: Option<String> = self
            .enum_attribute(sp(en.span))
            .map(|a| format!("enum type with `__attribute__(({a}))` (gcc may choose a smaller type; not modelled)"));
        // (name, value, type inside the definition); `None`: not known.
        let mut consts: Vec<(String, Option<i128>)> = Vec::new();
        let mut prev: Option<(i128, IntTy)> = Some((-1, IntTy::INT));
        for e in &en.node.enumerators {
            let name = e.node.identifier.node.name.clone();
            let here: Result<(i128, IntTy), String> = match &e.node.expression {
                Some(x) => self
                    .pure(|b| b.rv(x))
                    .and_then(|x| types::fold(&x).ok_or_else(|| "not an integer constant expression".to_string()))
                    .map(|(bits, t)| (types::value_of(bits, t), t)),
                None => match prev {
                    Some((v, t)) if v < t.max_value() => Ok((v + 1, t)),
                    Some(_) => Err("overflow in enumeration values".into()),
                    None => Err("follows an enumerator whose value is not known".into()),
                },
            };
            match here {
                Ok((v, t)) => {
                    let t = if (i32::MIN as i128..=i32::MAX as i128).contains(&v) { IntTy::INT } else { t };
                    self.bind(&name, Sym::EnumConst(Expr::Const { bits: v as u64 & t.mask(), ty: t }));
                    consts.push((name, Some(v)));
                    prev = Some((v, t));
                }
                Err(m) => {
                    let m = format!("enumerator `{name}`: {m}");
                    self.warnings.push(m.clone());
                    self.bind(&name, Sym::Unsupported(m.clone()));
                    why.get_or_insert(m);
                    consts.push((name, None));
                    prev = None;
                }
            }
        }
        let known: Vec<i128> = consts.iter().filter_map(|(_, v)| *v).collect();
        let min = known.iter().copied().min().unwrap_or(0);
        let max = known.iter().copied().max().unwrap_or(0);
        let ety = if min >= 0 {
            if max <= u32::MAX as i128 {
                Some(IntTy::UINT)
            } else if max <= u64::MAX as i128 {
                Some(IntTy::ULLONG)
            } else {
                None
            }
        } else if min >= i32::MIN as i128 && max <= i32::MAX as i128 {
            Some(IntTy::INT)
        } else if min >= i64::MIN as i128 && max <= i64::MAX as i128 {
            Some(IntTy::LLONG)
        } else {
            None
        };
        let Some(ety) = ety else {
            let m = "enumeration values exceed the range of the largest integer type".to_string();
            for (name, _) in &consts {
                self.bind(name, Sym::Unsupported(m.clone()));
            }
            return Ty::Other(m);
        };
        // The constants' types once the enumeration is complete.
        for (name, v) in consts {
            let Some(v) = v else { continue };
            let t = if (i32::MIN as i128..=i32::MAX as i128).contains(&v) { IntTy::INT } else { ety };
            if self.scopes.len() == 1 {
                self.cfa.enum_constants.push((name.clone(), v as u64 & t.mask(), t));
            }
            self.bind(&name, Sym::EnumConst(Expr::Const { bits: v as u64 & t.mask(), ty: t }));
        }
        match why {
            Some(m) => Ty::Other(m),
            None => Ty::Int(ety),
        }
    }

    /// A `packed`, `aligned` or `mode` attribute inside an enumeration specifier's text or
    /// right after it (`enum __attribute__((packed)) E {…}`, `enum E {…} __attribute__((packed))`).
    fn enum_attribute(&self, s: Sp) -> Option<String> {
        let text = &self.src.text;
        let mut end = s.1.min(text.len());
        while let Some(rest) = text.get(end..) {
            let t = rest.trim_start();
            if !t.starts_with("__attribute") {
                break;
            }
            let skip = rest.len() - t.len();
            let Some(close) = t.find("))") else { break };
            end += skip + close + 2;
        }
        let slice = text.get(s.0..end)?;
        gnu::scan_attributes(slice)
            .into_iter()
            .find(|a| matches!(gnu::classify(&a.name), AttrKind::Layout | AttrKind::Mode))
            .map(|a| a.name)
    }

    /// Evaluates an integer constant expression.
    fn const_eval(&mut self, e: &Node<Expression>) -> R<i128> {
        let e = self.pure(|b| b.rv(e))?;
        types::fold_i128(&e).ok_or_else(|| "not an integer constant expression".to_string())
    }

    fn pure<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let old = self.pure_mode;
        self.pure_mode = true;
        let mut s = self.snap();
        let r = f(self);
        if r.is_ok() {
            // The only variables a pure expression makes are string literal objects, which
            // its value refers to: they stay.
            s.vars = self.cfa.vars.len();
            s.global_inits = self.cfa.global_inits.len();
        }
        self.rollback(&s);
        self.pure_mode = old;
        r
    }

    /// `T a[n];` with a size known only at run time: a pointer variable `a` to a fresh block of
    /// `n * sizeof(T)` bytes (as `alloca`), typed `T[]` so that it decays and indexes like the
    /// array while `sizeof a` and `&a` stay unsupported. Other shapes (several dimensions,
    /// arrays of arrays or pointers) are unsupported.
    fn vla_decl(&mut self, name: &str, base: &Ty, d: &Declarator, dsp: Sp, visible: (usize, usize), f: FuncId) {
        let elem_ty = Ty::Array(Box::new(base.clone()), None);
        let v = self.new_var(name, &Ty::Pointer(Box::new(base.clone())), VarScope::Local(f), visible, false);
        let s = self.snap();
        self.stmt_sp = dsp;
        let r = (|| -> R<()> {
            let [dd] = &d.derived[..] else {
                return Err("variable-length array of several dimensions (not supported yet)".into());
            };
            let DerivedDeclarator::Array(a) = &dd.node else { return Err("variable-length array".into()) };
            let ArraySize::VariableExpression(e) = &a.node.size else {
                return Err("variable-length array of unspecified size".into());
            };
            let esize = match base {
                Ty::Int(_) | Ty::Float(_) | Ty::Pointer(_) | Ty::Struct(_) => self.structs.layout(base, self.dm),
                _ => None,
            }
            .map(|(s, _)| s)
            .filter(|s| *s > 0)
            .ok_or_else(|| format!("variable-length array of {} (not supported yet)", base.describe(self.dm)))?;
            let ulong = IntTy::new(self.dm.long_bits(), false);
            let n = conv(self.rv(e)?, ulong);
            let size = types::binary(BinOp::Mul, n, Expr::Const { bits: esize, ty: ulong });
            let text = self.text(dsp);
            self.emit(
                EdgeOp::Alloc {
                    function: "alloca".into(),
                    lhs: Some(PLvalue::Var(v)),
                    size,
                    zeroed: false,
                    overflow: None,
                    stack: true,
                },
                dsp,
                text,
            )
        })();
        match r {
            Ok(()) => self.bind(name, Sym::Var(v, elem_ty)),
            Err(m) => {
                self.rollback(&s);
                self.emit_unsupported(dsp, m);
                self.bind(name, Sym::Var(v, Ty::Other("variable-length array".into())));
            }
        }
    }

    /// Applies a declarator to a base type; returns (name, type).
    fn declarator_type(&mut self, base: Ty, d: &Declarator) -> (Option<String>, Ty) {
        let mut ty = self.apply_mode(base, d);
        let mut suffixes = Vec::new();
        for dd in &d.derived {
            match &dd.node {
                DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_) => ty = Ty::Pointer(Box::new(ty)),
                other => suffixes.push(other),
            }
        }
        for dd in suffixes.into_iter().rev() {
            ty = match dd {
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        ArraySize::Unknown => None,
                        ArraySize::VariableUnknown => {
                            ty = Ty::Other("variable-length array".into());
                            continue;
                        }
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => match self.const_eval(e) {
                            Ok(v) if (0..(1i128 << 40)).contains(&v) => Some(v as u64),
                            Ok(_) => {
                                ty = Ty::Other("array of invalid size".into());
                                continue;
                            }
                            Err(_) => {
                                ty = Ty::Other("variable-length array".into());
                                continue;
                            }
                        },
                    };
                    Ty::Array(Box::new(ty), n)
                }
                DerivedDeclarator::Function(fd) => {
                    let (params, variadic) = self.param_types(&fd.node);
                    Ty::Func(Box::new(FuncTy { ret: ty, params: Some(params), variadic }))
                }
                DerivedDeclarator::KRFunction(ids) => {
                    let params = if ids.is_empty() { None } else { Some(vec![Ty::Int(IntTy::INT); ids.len()]) };
                    Ty::Func(Box::new(FuncTy { ret: ty, params, variadic: false }))
                }
                _ => ty,
            };
        }
        match &d.kind.node {
            DeclaratorKind::Identifier(i) => (Some(i.node.name.clone()), ty),
            DeclaratorKind::Abstract => (None, ty),
            DeclaratorKind::Declarator(inner) => self.declarator_type(ty, &inner.node),
        }
    }

    fn param_types(&mut self, fd: &FunctionDeclarator) -> (Vec<Ty>, bool) {
        let mut out = Vec::new();
        for p in &fd.parameters {
            let (_, t) = self.param_decl(&p.node);
            out.push(t);
        }
        if out.len() == 1 && out[0] == Ty::Void {
            out.clear();
        }
        (out, matches!(fd.ellipsis, Ellipsis::Some))
    }

    fn param_decl(&mut self, p: &ParameterDeclaration) -> (Option<String>, Ty) {
        let specs: Vec<&TypeSpecifier> = p
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        let base = self.base_type(&specs);
        let (name, t) = match &p.declarator {
            Some(d) => self.declarator_type(base, &d.node),
            None => (None, base),
        };
        (name, adjust_param(t))
    }

    pub fn type_name(&mut self, tn: &TypeName) -> Ty {
        let specs: Vec<&TypeSpecifier> = tn
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        let base = self.base_type(&specs);
        match &tn.declarator {
            Some(d) => self.declarator_type(base, &d.node).1,
            None => base,
        }
    }

    // ----------------------------------------------------------------- top level

    pub fn translation_unit(&mut self, tu: &'a TranslationUnit) -> R<()> {
        let mut names = AddressedNames::default();
        lang_c::visit::Visit::visit_translation_unit(&mut names, tu);
        self.addressed = names.0;
        self.attributes(tu);
        // Pass 1: file-scope declarations and function signatures.
        let mut bodies = Vec::new();
        for ed in &tu.0 {
            match &ed.node {
                ExternalDeclaration::Declaration(d) => self.declaration(d, true, self.src.text.len()),
                ExternalDeclaration::StaticAssert(_) => {}
                ExternalDeclaration::FunctionDefinition(fd) => {
                    if let Some(id) = self.function_header(fd) {
                        bodies.push((id, fd));
                    }
                }
            }
        }
        // `extern` globals never defined in this program live elsewhere: their initial value is
        // unknown (nondeterministic), not zero.
        for v in self.globals_declared.clone() {
            if !self.globals_defined.contains(&v) {
                self.cfa.external_globals.push(v);
                let fields: Vec<VarId> =
                    self.struct_vars.get(&v).map(|f| f.iter().map(|(_, id, _)| *id).collect()).unwrap_or_default();
                self.cfa.external_globals.extend(fields);
            }
        }
        let main = *self.func_ids.get("main").ok_or("no function `main` is defined")?;
        self.cfa.main = main;
        // Pass 2: bodies.
        for (id, fd) in bodies {
            self.function_body(id, fd);
        }
        // Program start: the global declarations in file order, then `main` is entered.
        let m = self.cfa.function(main);
        let (entry, span) = (m.entry, m.span);
        let mut start = self.cfa.start;
        for (decl, text) in std::mem::take(&mut self.global_steps) {
            let next = self.cfa.graph.add_node(CfaNode::default());
            self.cfa.graph.add_edge(
                start,
                next,
                CfaEdge {
                    op: EdgeOp::GlobalDeclaration,
                    span: Some(decl),
                    function: main,
                    text,
                    decision: None,
                    call_paren: None,
                    call_start: None,
                },
            );
            start = next;
        }
        self.cfa.graph.add_edge(
            start,
            entry,
            CfaEdge {
                op: EdgeOp::ProgramStart,
                span: Some(span),
                function: main,
                text: "main()".into(),
                decision: None,
                call_paren: None,
                call_start: None,
            },
        );
        Ok(())
    }

    fn function_header(&mut self, fd: &Node<FunctionDefinition>) -> Option<FuncId> {
        let d = &fd.node.declarator.node;
        let name = ident_of_declarator(d)?.to_string();
        if self.func_ids.contains_key(&name) {
            self.warnings.push(format!("function `{name}` defined more than once; using the first definition"));
            return None;
        }
        let specs: Vec<&TypeSpecifier> = fd
            .node
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        let base = self.base_type(&specs);
        // Return type: apply all derived declarators except the function one.
        let (_, fty) = self.declarator_type(base, d);
        let (ret, mut ptys, variadic) = match fty {
            Ty::Func(f) => (f.ret, f.params.unwrap_or_default(), f.variadic),
            _ => return None,
        };
        let id = FuncId(self.cfa.functions.len() as u32);
        // Parameter names.
        let mut names: Vec<Option<String>> = Vec::new();
        for dd in &d.derived {
            match &dd.node {
                DerivedDeclarator::Function(f) => {
                    names = f
                        .node
                        .parameters
                        .iter()
                        .map(|p| {
                            p.node.declarator.as_ref().and_then(|d| ident_of_declarator(&d.node)).map(String::from)
                        })
                        .collect();
                    if ptys.is_empty() {
                        names.clear();
                    }
                }
                DerivedDeclarator::KRFunction(ids) => {
                    names = ids.iter().map(|i| Some(i.node.name.clone())).collect();
                    ptys = vec![Ty::Int(IntTy::INT); ids.len()];
                    // K&R declarations.
                    for decl in &fd.node.declarations {
                        let specs: Vec<&TypeSpecifier> = decl
                            .node
                            .specifiers
                            .iter()
                            .filter_map(|s| match &s.node {
                                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                                _ => None,
                            })
                            .collect();
                        let base = self.base_type(&specs);
                        for id_ in &decl.node.declarators {
                            let (n, t) = self.declarator_type(base.clone(), &id_.node.declarator.node);
                            if let Some(pos) = names.iter().position(|x| x.is_some() && *x == n) {
                                ptys[pos] = adjust_param(t);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let visible = self.orig_range(sp(fd.span));
        let mut params = Vec::new();
        let mut param_syms = Vec::new();
        for (i, t) in ptys.iter().enumerate() {
            let n = names.get(i).cloned().flatten().unwrap_or_else(|| format!("__param_{i}"));
            self.in_params = true;
            let v = self.new_var(&n, t, VarScope::Local(id), visible, false);
            self.in_params = false;
            // A struct parameter is flattened like a local; its scalar leaves are the function's
            // parameters, in order (calls pass the argument's leaves, see `lower_args`).
            self.flatten_struct_var(v, &n, t, VarScope::Local(id), visible);
            match self.struct_vars.get(&v) {
                Some(leaves) if leaves.iter().all(|(_, _, lt)| Self::scalar_ty(lt, self.dm).is_some()) => {
                    params.extend(leaves.iter().map(|(_, leaf, _)| *leaf))
                }
                _ => params.push(v),
            }
            param_syms.push((n, Sym::Var(v, t.clone())));
        }
        let entry = self.cfa.graph.add_node(CfaNode { function: Some(id), loop_head: false });
        let exit = self.cfa.graph.add_node(CfaNode { function: Some(id), loop_head: false });
        let (return_ty, return_unsupported) = match ret_scalar(&ret) {
            Ok(t) => (t, None),
            // A struct result goes through the function's result variable (`result_var`).
            Err(()) if matches!(&ret, Ty::Struct(k) if k.starts_with("struct ")) => (None, None),
            Err(()) => (None, Some(ret.describe(self.dm))),
        };
        // Span: from the start of the definition to the end of the declarator.
        let hdr = (fd.span.start, fd.node.declarator.span.end);
        let span = self.span_of(hdr).unwrap_or_default();
        self.cfa.functions.push(FunctionInfo {
            name: name.clone(),
            params,
            return_ty,
            return_unsupported,
            entry,
            exit,
            span,
        });
        self.func_param_tys.push(ptys.clone());
        self.func_variadic.push(variadic);
        self.func_ids.insert(name.clone(), id);
        self.sigs.insert(name, FuncTy { ret, params: Some(ptys), variadic });
        self.pending_params.push(param_syms);
        Some(id)
    }

    fn function_body(&mut self, id: FuncId, fd: &Node<FunctionDefinition>) {
        let info = self.cfa.function(id).clone();
        let ret = self.sigs.get(&info.name).map(|s| s.ret.clone()).unwrap_or(Ty::Void);
        self.f = Some(FState {
            id,
            exit: info.exit,
            ret,
            labels: HashMap::new(),
            breaks: Vec::new(),
            conts: Vec::new(),
            cases: Vec::new(),
        });
        self.cur = info.entry;
        self.scopes.push(HashMap::new());
        let params = std::mem::take(&mut self.pending_params[id.0 as usize]);
        for (n, s) in params {
            self.bind(&n, s);
        }
        if id == self.cfa.main && !self.global_failures.is_empty() {
            let (s, m) = self.global_failures[0].clone();
            self.emit_unsupported(s, m);
        }
        if id == self.cfa.main {
            self.call_constructors(sp(fd.span));
        }
        let body = &fd.node.statement;
        self.stmt(body);
        // Implicit return at the closing brace.
        let end = body.span.end;
        let close = (end.saturating_sub(1), end);
        let exit = info.exit;
        let c = self.cur;
        self.add_edge(c, exit, EdgeOp::Return { value: None, writes: Vec::new() }, Some(close), "}".into());
        self.scopes.pop();
        self.f = None;
    }

    /// Decisions 106 and 138: the constructors run before `main`, in gcc's order (by priority,
    /// then in the order gcc creates their symbols), as calls at the entry of `main` (after
    /// static initialisation, before `main`'s first statement).
    fn call_constructors(&mut self, main_sp: Sp) {
        let mut ctors: Vec<(ctors::CtorKey, FuncId, String, Sp, Sp)> = self
            .func_ids
            .iter()
            .filter_map(|(n, id)| {
                let (key, def) = self.constructors.get(n)?;
                let (s, whole) = (*def)?;
                Some((*key, *id, n.clone(), s, whole))
            })
            .collect();
        ctors.sort();
        if ctors.len() != self.constructors.len() {
            let m = "`__attribute__((constructor))` on a function the program does not define".to_string();
            self.emit_unsupported(main_sp, m);
            return;
        }
        for (_, id, name, s, whole) in ctors {
            let (a, b) = self.orig_range(whole);
            if self.cfa.skipped_bodies.iter().any(|(x, y)| a <= *x && *y <= b) {
                // Decision 61 removed its body (it should have been kept as a root).
                self.emit_unsupported(s, format!("the body of constructor `{name}` was not parsed"));
                return;
            }
            if !self.func_param_tys[id.0 as usize].is_empty() || self.func_variadic[id.0 as usize] {
                self.emit_unsupported(s, format!("constructor `{name}` with parameters (not modelled)"));
                return;
            }
            if id == self.cfa.main {
                self.emit_unsupported(s, "`main` declared a constructor (not modelled)".into());
                return;
            }
            let text = format!("{name}() (constructor, before main)");
            if let Err(m) = self.emit(EdgeOp::Call { callee: id, args: Vec::new(), lhs: None }, s, text) {
                self.emit_unsupported(s, m);
                return;
            }
        }
    }

    // ----------------------------------------------------------------- declarations

    fn declaration(&mut self, d: &Node<Declaration>, global: bool, block_end: usize) {
        let mut is_typedef = false;
        let mut is_extern = false;
        let mut is_static = false;
        let mut specs = Vec::new();
        for s in &d.node.specifiers {
            match &s.node {
                DeclarationSpecifier::StorageClass(sc) => match sc.node {
                    StorageClassSpecifier::Typedef => is_typedef = true,
                    StorageClassSpecifier::Extern => is_extern = true,
                    StorageClassSpecifier::Static | StorageClassSpecifier::ThreadLocal => is_static = true,
                    _ => {}
                },
                DeclarationSpecifier::TypeSpecifier(t) => specs.push(&t.node),
                _ => {}
            }
        }
        let dsp = sp(d.span);
        let base = self.base_type(&specs);
        for idecl in &d.node.declarators {
            let (name, mut ty) = self.declarator_type(base.clone(), &idecl.node.declarator.node);
            let Some(name) = name else { continue };
            if is_typedef {
                if global {
                    self.cfa.typedefs.push((name.clone(), ty.to_ctype(self.dm)));
                }
                self.bind(&name, Sym::Typedef(ty));
                continue;
            }
            if let Ty::Func(f) = &ty {
                let ret_ty = match &f.ret {
                    Ty::Int(t) => Some(*t),
                    _ => None,
                };
                if !self.cfa.externs.iter().any(|e| e.name == name) {
                    self.cfa.externs.push(ExternInfo { name: name.clone(), return_ty: ret_ty });
                }
                if !self.func_ids.contains_key(&name) {
                    self.sigs.insert(name.clone(), (**f).clone());
                }
                continue;
            }
            // Array size from the initializer.
            if let (Ty::Array(elem, None), Some(init)) = (&ty, &idecl.node.initializer) {
                if let Some(n) = self.infer_len(elem, &init.node) {
                    ty = Ty::Array(elem.clone(), Some(n));
                }
            }
            if global || is_extern && self.scopes.len() > 1 {
                // Decision 45: each file-scope variable declarator is a step (declarations
                // that `gcc -E` brought in from headers have no span in the file: none).
                if global {
                    if let Some(span) = self.span_of(dsp) {
                        let text = self.text(dsp);
                        self.global_steps.push((span, text));
                    }
                }
                self.global_var(&name, ty, idecl, dsp, is_extern);
                continue;
            }
            let f = match &self.f {
                Some(f) => f.id,
                None => continue,
            };
            let visible = self.orig_range((d.span.start, block_end));
            if is_static {
                let v = self.new_var(&name, &ty, VarScope::Global, visible, false);
                self.flatten_struct_var(v, &name, &ty, VarScope::Global, visible);
                self.bind(&name, Sym::Var(v, ty.clone()));
                if self.struct_vars.contains_key(&v) {
                    let init = idecl.node.initializer.as_ref().map(|i| &i.node);
                    let r = self.pure(|b| b.struct_decl_writes(v, &ty, init)).and_then(|w| self.push_global_writes(w));
                    if let Err(m) = r {
                        self.emit_unsupported(dsp, format!("initializer of static `{name}`: {m}"));
                    }
                    continue;
                }
                let init = match &idecl.node.initializer {
                    Some(i) => match self.pure(|b| b.initializer(&ty, &i.node)) {
                        Ok(x) => x,
                        Err(m) => {
                            self.emit_unsupported(dsp, format!("initializer of static `{name}`: {m}"));
                            Init::Zero
                        }
                    },
                    None => Init::Zero,
                };
                self.cfa.global_inits.push((v, init));
                continue;
            }
            if matches!(&ty, Ty::Other(w) if w == "variable-length array") {
                self.vla_decl(&name, &base, &idecl.node.declarator.node, dsp, visible, f);
                continue;
            }
            let v = self.new_var(&name, &ty, VarScope::Local(f), visible, false);
            self.flatten_struct_var(v, &name, &ty, VarScope::Local(f), visible);
            let text = self.text(dsp);
            if self.struct_vars.contains_key(&v) {
                // All members are declared (and initialised) in one step.
                self.bind(&name, Sym::Var(v, ty.clone()));
                let s = self.snap();
                self.stmt_sp = dsp;
                let init = idecl.node.initializer.as_ref().map(|i| &i.node);
                let r = match init {
                    // `struct S s = f();`: the call's result goes to the leaves when it returns.
                    Some(Initializer::Expression(e)) if matches!(e.node, Expression::Call(_)) => {
                        let Expression::Call(c) = &e.node else { unreachable!() };
                        let leaves = self.leaves_under(v, "");
                        self.struct_call_target(c, StructDst::Leaves(leaves, ty.clone()))
                            .and_then(|target| self.call(c, Some(target), dsp))
                    }
                    _ => self
                        .struct_decl_writes(v, &ty, init)
                        .and_then(|writes| self.emit(EdgeOp::AssignAll { writes }, dsp, text.clone())),
                };
                if let Err(m) = r {
                    self.rollback(&s);
                    self.emit_unsupported(dsp, m);
                    self.bind(&name, Sym::Var(v, ty.clone()));
                }
                continue;
            }
            let Some(init) = &idecl.node.initializer else {
                self.bind(&name, Sym::Var(v, ty.clone()));
                let c = self.cur;
                let n = self.new_node();
                self.add_edge(c, n, EdgeOp::Declare { var: v, init: None }, Some(dsp), text);
                self.cur = n;
                continue;
            };
            // C11 6.2.1p7: the scope of the name begins just after its declarator, so the
            // initializer already sees it (`int z = ({ z = 3; });`; `int x = x;` reads the new,
            // indeterminate x, never an outer one).
            self.bind(&name, Sym::Var(v, ty.clone()));
            let s = self.snap();
            self.stmt_sp = dsp;
            let r = (|| -> R<()> {
                if let (Ty::Pointer(_), Initializer::Expression(e)) = (&ty, &init.node) {
                    return self.ptr_store_init(v, e, dsp);
                }
                if let (Ty::Int(t), Initializer::Expression(e)) = (&ty, &init.node) {
                    if let Expression::Call(c) = &e.node {
                        return self.call(c, Some(Target::Int(Lvalue::Var { var: v, ty: *t })), dsp);
                    }
                }
                if let (Some(fty), Initializer::Expression(e)) = (ty.float_ty(), &init.node) {
                    if let Expression::Call(c) = &e.node {
                        if self.float_nondet_call(c).is_some() {
                            return self.call_float(c, Some(FLvalue::Var { var: v, fty }), dsp);
                        }
                        if self.call_name(c).is_ok_and(|n| self.func_ids.contains_key(n)) {
                            return self.call(c, Some(Target::Float(FLvalue::Var { var: v, fty })), dsp);
                        }
                    }
                }
                if let CType::Unsupported(what) = &self.cfa.var(v).ty {
                    return Err(format!("declaration of `{name}` of type {what} (not supported yet)"));
                }
                let i = self.initializer(&ty, &init.node)?;
                self.emit(EdgeOp::Declare { var: v, init: Some(i) }, dsp, text.clone())
            })();
            if let Err(m) = r {
                self.rollback(&s);
                self.emit_unsupported(dsp, m);
                // The rollback may have dropped the binding's scope entry: bind again.
                self.bind(&name, Sym::Var(v, ty.clone()));
            }
        }
    }

    fn global_var(&mut self, name: &str, ty: Ty, idecl: &Node<InitDeclarator>, dsp: Sp, is_extern: bool) {
        let existing = match self.scopes[0].get(name) {
            Some(Sym::Var(v, _)) => Some(*v),
            _ => None,
        };
        let v = match existing {
            Some(v) => {
                // A later complete type (e.g. array size) wins.
                if idecl.node.initializer.is_some() && !matches!(self.cfa.var(v).ty, CType::Bytes { .. }) {
                    self.cfa.vars[v.0 as usize].ty = ty.to_ctype(self.dm);
                    self.scopes[0].insert(name.to_string(), Sym::Var(v, ty.clone()));
                }
                v
            }
            None => {
                let v = self.new_var(name, &ty, VarScope::Global, (0, self.cfa.source_len), false);
                self.flatten_struct_var(v, name, &ty, VarScope::Global, (0, self.cfa.source_len));
                self.scopes[0].insert(name.to_string(), Sym::Var(v, ty.clone()));
                let idx = self.cfa.global_inits.len();
                self.cfa.global_inits.push((v, Init::Zero));
                self.global_init_index.insert(v, idx);
                v
            }
        };
        if self.scopes.len() > 1 {
            self.bind(name, Sym::Var(v, ty.clone()));
        }
        if !self.globals_declared.contains(&v) {
            self.globals_declared.push(v);
        }
        if !is_extern || idecl.node.initializer.is_some() {
            self.globals_defined.insert(v);
        }
        if self.struct_vars.contains_key(&v) {
            if let Some(init) = &idecl.node.initializer {
                let r = self
                    .pure(|b| b.struct_decl_writes(v, &ty, Some(&init.node)))
                    .and_then(|w| self.push_global_writes(w));
                if let Err(m) = r {
                    self.global_failures.push((dsp, format!("initializer of global `{name}`: {m}")));
                }
            }
            return;
        }
        if let Some(init) = &idecl.node.initializer {
            // The variable's own type: unions and arrays of structs are bytes, usable even though
            // their C type has no scalar model.
            let opaque = matches!(self.cfa.var(v).ty, CType::Unsupported(_));
            let made = self.cfa.global_inits.len();
            let r = match (&self.cfa.var(v).ty, ty.to_ctype(self.dm)) {
                (CType::Bytes { .. }, _) => self.pure(|b| b.initializer(&ty, &init.node)),
                (_, CType::Unsupported(w)) => {
                    Err(format!("initializer of global `{name}` of type {w} (not supported yet)"))
                }
                _ => self.pure(|b| b.initializer(&ty, &init.node)),
            };
            match r {
                // Objects the initializer made (compound literals, decision 136; string
                // literals) are initialised first: the variable's value may be read from them.
                Ok(i) if self.cfa.global_inits.len() > made && self.global_init_index.contains_key(&v) => {
                    let idx = self.global_init_index[&v];
                    self.cfa.global_inits[idx].1 = Init::Zero;
                    self.global_init_index.insert(v, self.cfa.global_inits.len());
                    self.cfa.global_inits.push((v, i));
                }
                Ok(i) => {
                    if let Some(&idx) = self.global_init_index.get(&v) {
                        self.cfa.global_inits[idx].1 = i;
                    }
                }
                // A global that is never modelled only warns; one that is would start with
                // wrong values: every path that reaches `main` is unknown.
                Err(m) if opaque => self.warnings.push(m),
                Err(m) => self.global_failures.push((dsp, format!("initializer of global `{name}`: {m}"))),
            }
        }
    }

    /// Static-storage struct initialisation: each leaf's initial value.
    fn push_global_writes(&mut self, writes: Vec<Write>) -> R<()> {
        let mut inits = Vec::new();
        for w in writes {
            match w {
                Write::Declare { var, init } => inits.push((var, init.unwrap_or(Init::Zero))),
                _ => {
                    return Err(
                        "struct initializer of a static variable copies another struct (not supported yet)".into()
                    )
                }
            }
        }
        self.cfa.global_inits.extend(inits);
        Ok(())
    }

    fn infer_len(&mut self, elem: &Ty, init: &Initializer) -> Option<u64> {
        match init {
            Initializer::Expression(e) => match &e.node {
                Expression::StringLiteral(s) if matches!(elem, Ty::Int(t) if t.bits == 8) => {
                    Some(string_bytes(&s.node).ok()?.len() as u64 + 1)
                }
                _ => None,
            },
            Initializer::List(items) => {
                // Structs with elided braces take a number of items that depends on their
                // members: the length is not inferred (the array stays unsupported).
                let braced = items.iter().all(|i| matches!(i.node.initializer.node, Initializer::List(_)));
                if !braced
                    && !matches!(
                        elem.to_ctype(self.dm),
                        CType::Int(_) | CType::Float(_) | CType::Ptr | CType::Array { .. } | CType::FloatArray { .. }
                    )
                {
                    return None;
                }
                let sub = elem.to_ctype(self.dm).element_count().max(1);
                let mut pos: u64 = 0;
                let mut max: u64 = 0;
                for it in items {
                    if let Some(d) = it.node.designation.first() {
                        if let Designator::Index(e) = &d.node {
                            pos = self.const_eval(e).ok()? as u64;
                        } else {
                            return None;
                        }
                    }
                    pos += 1;
                    max = max.max(pos);
                }
                // With brace elision for nested arrays, items count scalars.
                let nested_braced = items.iter().all(|i| matches!(i.node.initializer.node, Initializer::List(_)));
                if sub > 1 && !nested_braced {
                    Some(max.div_ceil(sub))
                } else {
                    Some(max)
                }
            }
        }
    }

    /// Lowers an initializer for a variable of type `ty`.
    fn initializer(&mut self, ty: &Ty, init: &Initializer) -> R<Init> {
        if matches!(ty, Ty::Struct(_)) || Self::bytes_array(ty) {
            let mut out = Vec::new();
            self.bytes_init(ty, init, 0, &mut out)?;
            return Ok(Init::Bytes(out));
        }
        match ty {
            Ty::Pointer(_) => Ok(Init::Ptr(self.ptr_expr(scalar_init(init)?)?.0)),
            Ty::Int(t) => {
                let e = scalar_init(init)?;
                let v = self.rv_any(e)?;
                Ok(Init::Scalar(v.into_int(*t)))
            }
            Ty::Float(_) if ty.float_ty().is_some() => {
                let e = scalar_init(init)?;
                let fty = ty.float_ty().ok_or("float type")?;
                Ok(Init::Float(self.rv_any(e)?.into_float(fty)))
            }
            Ty::Array(..) => {
                let (elem, dims) = match ty.to_ctype(self.dm) {
                    CType::Array { elem, dims } => (ScalarTy::Int(elem), dims),
                    CType::FloatArray { elem, dims } => (ScalarTy::Float(elem), dims),
                    _ => return Err(format!("array of type {} (not supported yet)", ty.describe(self.dm))),
                };
                let mut out = Vec::new();
                self.fill(elem, &dims, init, 0, &mut out)?;
                out.sort_by_key(|x| x.0);
                // Later initializers of the same element win.
                let mut dedup: Vec<(u64, Rvalue)> = Vec::new();
                for (i, e) in out {
                    if let Some(last) = dedup.last_mut() {
                        if last.0 == i {
                            last.1 = e;
                            continue;
                        }
                    }
                    dedup.push((i, e));
                }
                let ints = dedup.iter().filter_map(|(i, e)| match e {
                    Rvalue::Int(e) => Some((*i, e.clone())),
                    Rvalue::Float(_) | Rvalue::Ptr(_) => None,
                });
                let floats = dedup.iter().filter_map(|(i, e)| match e {
                    Rvalue::Float(e) => Some((*i, e.clone())),
                    Rvalue::Int(_) | Rvalue::Ptr(_) => None,
                });
                Ok(match elem {
                    ScalarTy::Int(_) => Init::Array(ints.collect()),
                    ScalarTy::Float(_) => Init::FloatArray(floats.collect()),
                    ScalarTy::Ptr => return Err("array of pointers (not supported yet)".into()),
                })
            }
            other => Err(format!("initializer for type {} (not supported yet)", other.describe(self.dm))),
        }
    }

    /// An array element's initial value, converted to the element type.
    fn elem_init(&mut self, e: &Node<Expression>, elem: ScalarTy) -> R<Rvalue> {
        let v = self.rv_any(e)?;
        Ok(match elem {
            ScalarTy::Int(t) => Rvalue::Int(v.into_int(t)),
            ScalarTy::Float(f) => Rvalue::Float(v.into_float(f)),
            ScalarTy::Ptr => return Err("array of pointers (not supported yet)".into()),
        })
    }

    /// The scalars of an initializer of an object of type `ty` stored as bytes at offset
    /// `base`, with their byte offsets (C11 6.7.9: positional and one-level designated
    /// elements and members, a union's first or designated member, and brace elision, p20).
    /// Bit-fields and struct or union values are not supported yet.
    fn bytes_init(&mut self, ty: &Ty, init: &Initializer, base: u64, out: &mut Vec<(u64, Rvalue)>) -> R<()> {
        match init {
            Initializer::List(items) => {
                let mut pos = 0;
                self.bytes_fill(ty, items, &mut pos, base, out, true)?;
                if pos < items.len() {
                    return Err("excess elements in an initializer".into());
                }
                Ok(())
            }
            // `struct S t = s;`: the source's scalar leaves at their offsets (all read before
            // any is stored), from a flattened struct variable or a struct in memory.
            Initializer::Expression(e)
                if matches!(ty, Ty::Struct(k) if k.starts_with("struct "))
                    && !matches!(e.node, Expression::Call(_)) =>
            {
                let leaves = self.structs.leaves(ty)?;
                let values = self.struct_arg("the initializer", e, ty)?;
                for ((path, _), v) in leaves.iter().zip(values) {
                    let off = self.member_offset(ty, path).ok_or_else(|| format!("offset of member `{path}`"))?;
                    out.push((base + off, v));
                }
                Ok(())
            }
            Initializer::Expression(_) if Self::is_aggregate(ty) => {
                Err("struct, union or array initialized from an expression (not supported yet)".into())
            }
            Initializer::Expression(_) => {
                let v = match self.initializer(ty, init)? {
                    Init::Scalar(e) => Rvalue::Int(e),
                    Init::Float(f) => Rvalue::Float(f),
                    Init::Ptr(p) => Rvalue::Ptr(p),
                    _ => return Err(format!("initializer of {}", ty.describe(self.dm))),
                };
                out.push((base, v));
                Ok(())
            }
        }
    }

    fn is_aggregate(ty: &Ty) -> bool {
        matches!(ty, Ty::Array(..) | Ty::Struct(_))
    }

    /// Fills the aggregate `ty` at `base` from `items[*pos..]`. In its own braces (`braced`)
    /// it takes designators and every item; inside an elided brace it takes only as many items
    /// as its members need, and stops at a designator (which belongs to the enclosing list).
    fn bytes_fill(
        &mut self,
        ty: &Ty,
        items: &[Node<InitializerListItem>],
        pos: &mut usize,
        base: u64,
        out: &mut Vec<(u64, Rvalue)>,
        braced: bool,
    ) -> R<()> {
        fn designated(it: &Node<InitializerListItem>) -> R<Option<&Node<Designator>>> {
            match &it.node.designation[..] {
                [] => Ok(None),
                [d] => Ok(Some(d)),
                _ => Err("nested designators in an initializer (not supported yet)".into()),
            }
        }
        match ty {
            Ty::Array(elem, Some(n)) => {
                let (es, _) = self.structs.layout(elem, self.dm).ok_or("array element of unknown size")?;
                let mut i = 0u64;
                while *pos < items.len() {
                    if let Some(d) = designated(&items[*pos])? {
                        if !braced {
                            break;
                        }
                        let Designator::Index(e) = &d.node else {
                            return Err("member designator in an array initializer".into());
                        };
                        let k = self.const_eval(e)?;
                        if k < 0 || k as u64 >= *n {
                            return Err("array designator out of bounds".into());
                        }
                        i = k as u64;
                    } else if i >= *n {
                        if braced {
                            return Err("excess elements in an array initializer".into());
                        }
                        break;
                    }
                    self.bytes_member(elem, items, pos, base + i * es, out)?;
                    i += 1;
                }
                Ok(())
            }
            Ty::Struct(key) => {
                let fields: Vec<Field> = self
                    .structs
                    .fields(ty)
                    .ok_or_else(|| format!("initializer of {}", ty.describe(self.dm)))?
                    .iter()
                    .filter(|f| !f.name.is_empty())
                    .cloned()
                    .collect();
                let union = key.starts_with("union ");
                let mut k = 0usize;
                let mut done = 0usize;
                while *pos < items.len() {
                    if let Some(d) = designated(&items[*pos])? {
                        if !braced {
                            break;
                        }
                        let Designator::Member(m) = &d.node else {
                            return Err("array designator in a struct initializer".into());
                        };
                        k = fields
                            .iter()
                            .position(|f| f.name == m.node.name)
                            .ok_or_else(|| format!("no member `{}` in {}", m.node.name, ty.describe(self.dm)))?;
                    } else if k >= fields.len() || (union && done > 0) {
                        if braced {
                            return Err("excess elements in a struct or union initializer".into());
                        }
                        break;
                    }
                    if union && done > 0 {
                        return Err("union initializer with more than one value".into());
                    }
                    let f = &fields[k];
                    if f.bit_width.is_some() {
                        return Err(format!("initializer of bit-field `{}` in memory (not supported yet)", f.name));
                    }
                    let (off, fty) = self
                        .structs
                        .member(ty, &f.name, self.dm)
                        .ok_or_else(|| format!("layout of member `{}`", f.name))?;
                    self.bytes_member(&fty, items, pos, base + off, out)?;
                    k += 1;
                    done += 1;
                }
                Ok(())
            }
            _ => Err(format!("initializer of {} in memory (not supported yet)", ty.describe(self.dm))),
        }
    }

    /// Initializes one element or member of type `t` from `items[*pos]`: a braced list or a
    /// scalar takes one item; an aggregate without braces takes as many as it needs.
    fn bytes_member(
        &mut self,
        t: &Ty,
        items: &[Node<InitializerListItem>],
        pos: &mut usize,
        base: u64,
        out: &mut Vec<(u64, Rvalue)>,
    ) -> R<()> {
        let init = &items[*pos].node.initializer.node;
        // A `char` array member from a string literal: its bytes, then zeros (C11 6.7.9p14).
        if let (Initializer::Expression(e), Ty::Array(c, Some(n))) = (init, t) {
            if let (Expression::StringLiteral(lit), Ty::Int(ct)) = (&e.node, &**c) {
                if ct.bits == 8 {
                    let bytes = string_bytes(&lit.node)?;
                    if bytes.len() as u64 > *n {
                        return Err("string literal longer than its array".into());
                    }
                    for (i, b) in bytes.iter().enumerate() {
                        out.push((base + i as u64, Rvalue::Int(Expr::Const { bits: *b as u64 & ct.mask(), ty: *ct })));
                    }
                    *pos += 1;
                    return Ok(());
                }
            }
        }
        if matches!(init, Initializer::Expression(_)) && Self::is_aggregate(t) {
            let before = *pos;
            self.bytes_fill(t, items, pos, base, out, false)?;
            if *pos == before {
                return Err("initializer of an aggregate member (not supported yet)".into());
            }
            return Ok(());
        }
        self.bytes_init(t, init, base, out)?;
        *pos += 1;
        Ok(())
    }

    fn fill(
        &mut self,
        elem: ScalarTy,
        dims: &[u64],
        init: &Initializer,
        base: u64,
        out: &mut Vec<(u64, Rvalue)>,
    ) -> R<()> {
        let total: u64 = dims.iter().product();
        let sub: u64 = dims.iter().skip(1).product();
        let char_elem = match elem {
            ScalarTy::Int(t) if t.bits == 8 => Some(t),
            _ => None,
        };
        match init {
            Initializer::Expression(e) => {
                if let Expression::StringLiteral(s) = &e.node {
                    if let (Some(elem), 1) = (char_elem, dims.len()) {
                        let bytes = string_bytes(&s.node)?;
                        for (i, b) in bytes.iter().chain(std::iter::once(&0u8)).enumerate() {
                            if (i as u64) < total {
                                let c = Expr::Const { bits: (*b as u64) & elem.mask(), ty: elem };
                                out.push((base + i as u64, Rvalue::Int(c)));
                            }
                        }
                        return Ok(());
                    }
                }
                Err("array initialized from an expression (not supported)".into())
            }
            Initializer::List(items) => {
                let mut pos: u64 = 0; // in scalars, relative to base
                for it in items {
                    if !it.node.designation.is_empty() {
                        let mut off = 0u64;
                        let mut d_sub = total;
                        for (k, d) in it.node.designation.iter().enumerate() {
                            let Designator::Index(e) = &d.node else {
                                return Err("designated initializer with a member or range (not supported yet)".into());
                            };
                            let i = self.const_eval(e)?;
                            let dim = dims.get(k).copied().unwrap_or(1);
                            d_sub /= dim.max(1);
                            if i < 0 || i as u64 >= dim {
                                return Err("array designator out of bounds".into());
                            }
                            off += i as u64 * d_sub;
                        }
                        pos = off;
                        // A designator selecting a sub-array with a braced initializer.
                        if let Initializer::List(_) = &it.node.initializer.node {
                            let depth = it.node.designation.len();
                            if depth < dims.len() {
                                let s: u64 = dims[depth..].iter().product();
                                self.fill(elem, &dims[depth..], &it.node.initializer.node, base + pos, out)?;
                                pos += s;
                                continue;
                            }
                        }
                    }
                    match &it.node.initializer.node {
                        Initializer::List(_) if dims.len() > 1 => {
                            pos = pos.div_ceil(sub) * sub;
                            if pos >= total {
                                self.warnings.push("excess elements in array initializer ignored".into());
                                continue;
                            }
                            self.fill(elem, &dims[1..], &it.node.initializer.node, base + pos, out)?;
                            pos += sub;
                        }
                        Initializer::Expression(e)
                            if dims.len() > 1
                                && matches!(e.node, Expression::StringLiteral(_))
                                && char_elem.is_some() =>
                        {
                            pos = pos.div_ceil(sub) * sub;
                            self.fill(elem, &dims[1..], &it.node.initializer.node, base + pos, out)?;
                            pos += sub;
                        }
                        Initializer::List(inner) => {
                            // Scalar in braces: `{ {1}, 2 }` for a 1-D array.
                            if pos < total {
                                if let Some(Initializer::Expression(e)) =
                                    inner.first().map(|x| &x.node.initializer.node)
                                {
                                    let v = self.elem_init(e, elem)?;
                                    out.push((base + pos, v));
                                }
                            }
                            pos += 1;
                        }
                        Initializer::Expression(e) => {
                            if pos >= total {
                                self.warnings.push("excess elements in array initializer ignored".into());
                                pos += 1;
                                continue;
                            }
                            let v = self.elem_init(e, elem)?;
                            out.push((base + pos, v));
                            pos += 1;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    // ----------------------------------------------------------------- statements

    fn stmt(&mut self, s: &Node<Statement>) {
        let ssp = sp(s.span);
        if !matches!(s.node, Statement::Compound(_)) {
            let start = self.orig_range(ssp).0;
            self.cfa.statement_starts.push((start, self.cur));
        }
        match &s.node {
            Statement::Compound(items) => {
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
                match &l.node.label.node {
                    Label::Identifier(id) => {
                        let n = self.label_node(&id.node.name);
                        let c = self.cur;
                        self.blank(c, n);
                        self.cur = n;
                        if id.node.name == "ERROR" {
                            let lsp = (l.span.start, l.node.label.span.end + 1);
                            let _ = self.emit(
                                EdgeOp::Error { kind: ErrorKind::ErrorLabel, function: "ERROR".into() },
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
                            Some(Rvalue::Int(v.into_int(*t)))
                        }
                        (Some(e), Ty::Float(_)) if ret.float_ty().is_some() => {
                            let fty = ret.float_ty().ok_or("float type")?;
                            let v = self.rv_any(e)?;
                            Some(Rvalue::Float(v.into_float(fty)))
                        }
                        (Some(e), Ty::Void) => {
                            self.effect(e, ssp)?;
                            None
                        }
                        (Some(e), Ty::Pointer(_)) => Some(Rvalue::Ptr(self.ptr_expr(e)?.0)),
                        (Some(_), other) => {
                            return Err(format!(
                                "return of a value of type {} (not supported yet)",
                                other.describe(self.dm)
                            ))
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

    fn label_node(&mut self, name: &str) -> NodeIndex {
        if let Some(n) = self.f.as_ref().and_then(|f| f.labels.get(name)) {
            return *n;
        }
        let n = self.new_node();
        if let Some(f) = &mut self.f {
            f.labels.insert(name.to_string(), n);
        }
        n
    }

    fn loop_body(&mut self, body: &Node<Statement>, brk: NodeIndex, cont: NodeIndex) {
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
    fn branch_or_unsupported(&mut self, cond: &Node<Expression>, t: NodeIndex, f: NodeIndex) {
        let snap = self.snap();
        if let Err(m) = self.branch(cond, t, f, false) {
            self.rollback(&snap);
            self.emit_unsupported(sp(cond.span), m);
        }
    }

    /// Lowers a condition to Assume edges (short-circuit operators become several edges).
    fn branch(&mut self, e: &Node<Expression>, t: NodeIndex, f: NodeIndex, neg: bool) -> R<()> {
        self.nested(e, |b| b.branch_unbounded(e, t, f, neg))
    }

    fn branch_unbounded(&mut self, e: &Node<Expression>, t: NodeIndex, f: NodeIndex, neg: bool) -> R<()> {
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
                        if neg { format!("[!({src})]") } else { format!("[{src}]") },
                    );
                }
                if k.is_none() || k == Some(0) {
                    self.pending_outcome = self.outcome_into(f);
                    self.add_edge(
                        c,
                        f,
                        EdgeOp::Assume { cond: types::not(v), source_truth: neg },
                        Some(esp),
                        if neg { format!("[{src}]") } else { format!("[!({src})]") },
                    );
                }
                Ok(())
            }
        }
    }

    fn switch(&mut self, sw: &Node<SwitchStatement>, ssp: Sp) {
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
            let vt = v.ty();
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

    // ----------------------------------------------------------------- expressions

    fn var_either(&self, v: VarId, ty: &Ty, name: &str) -> R<Either> {
        match (&self.cfa.var(v).ty, ty) {
            // A pointer, or a variable-length array (a pointer to its block, see `vla_decl`).
            (CType::Ptr, Ty::Pointer(t) | Ty::Array(t, None)) => {
                return Ok(Either::Ptr(PExpr::Var { var: v }, (**t).clone()))
            }
            (CType::Bytes { .. }, _) => {
                return Ok(Either::Mem(PExpr::AddrOf { var: v, offset: Box::new(Expr::int(0)) }, ty.clone()))
            }
            _ => {}
        }
        match ty.to_ctype(self.dm) {
            CType::Int(t) => Ok(Either::Expr(Expr::Var { var: v, ty: t })),
            CType::Float(fty) => Ok(Either::F(FExpr::Var { var: v, fty })),
            CType::Array { elem, dims } => {
                let len = dims.iter().product();
                Ok(Either::Arr(ArrRef { var: v, elem: ScalarTy::Int(elem), rest: dims, acc: None, len }))
            }
            CType::FloatArray { elem, dims } => {
                let len = dims.iter().product();
                Ok(Either::Arr(ArrRef { var: v, elem: ScalarTy::Float(elem), rest: dims, acc: None, len }))
            }
            _ => Err(format!("use of `{name}` of type {} (not supported yet)", ty.describe(self.dm))),
        }
    }

    fn var_expr(&self, name: &str) -> R<Either> {
        match self.lookup(name) {
            Some(Sym::Var(v, ty)) => self.var_either(*v, ty, name),
            Some(Sym::EnumConst(k)) => Ok(Either::Expr(k.clone())),
            Some(Sym::Unsupported(m)) => Err(m.clone()),
            Some(Sym::Typedef(_)) => Err(format!("type name `{name}` used as a value")),
            None => {
                if self.func_ids.contains_key(name) || self.sigs.contains_key(name) {
                    Err(format!("function `{name}` used as a value (function pointers are not supported yet)"))
                } else {
                    Err(format!("unknown identifier `{name}`"))
                }
            }
        }
    }

    /// Lowers an array indexing / identifier to either a partially indexed array or a value.
    fn place(&mut self, e: &Node<Expression>) -> R<Either> {
        match &e.node {
            Expression::Identifier(i) => self.var_expr(&i.node.name),
            Expression::CompoundLiteral(_) => {
                let id = self.compound_literal(e)?;
                self.place(&id)
            }
            Expression::Member(_) => match self.member_place(e) {
                Ok(x) => Ok(x),
                Err(m) => self.member_mem(e)?.ok_or(m),
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                let (p, t) = self.ptr_expr(&u.node.operand)?;
                self.deref_place(p, t)
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let (arr, idx) = if self.is_ptr_expr(&b.node.lhs) || !self.is_ptr_expr(&b.node.rhs) {
                    (&b.node.lhs, &b.node.rhs)
                } else {
                    (&b.node.rhs, &b.node.lhs)
                };
                let is_place = match &arr.node {
                    Expression::Identifier(_) | Expression::Member(_) => true,
                    Expression::BinaryOperator(x) => x.node.operator.node == BinaryOperator::Index,
                    Expression::UnaryOperator(x) => x.node.operator.node == UnaryOperator::Indirection,
                    _ => false,
                };
                if !is_place {
                    let (p, t) = self.ptr_expr(arr)?;
                    return self.index_at(p, t, idx);
                }
                let base = self.place(arr)?;
                let base = match base {
                    Either::Ptr(p, t) => return self.index_at(p, t, idx),
                    Either::Mem(p, Ty::Array(t, _)) => return self.index_at(p, *t, idx),
                    other => other,
                };
                let Either::Arr(mut a) = base else {
                    return Err(format!(
                        "indexing `{}` which is not an array (pointers are not supported yet)",
                        self.text(sp(b.node.lhs.span))
                    ));
                };
                let i = self.rv(&b.node.rhs)?;
                let i = conv(types::promote(i), IntTy::LLONG);
                let d = a.rest.remove(0);
                let acc = match a.acc.take() {
                    None => i,
                    Some(prev) => {
                        let m = types::binary(BinOp::Mul, prev, Expr::Const { bits: d, ty: IntTy::LLONG });
                        types::binary(BinOp::Add, m, i)
                    }
                };
                if a.rest.is_empty() {
                    Ok(match a.elem {
                        ScalarTy::Int(ty) => {
                            Either::Expr(Expr::Elem { var: a.var, index: Box::new(acc), len: a.len, ty })
                        }
                        ScalarTy::Float(fty) => {
                            Either::F(FExpr::Elem { var: a.var, index: Box::new(acc), len: a.len, fty })
                        }
                        ScalarTy::Ptr => return Err("array of pointers (not supported yet)".into()),
                    })
                } else {
                    a.acc = Some(acc);
                    Ok(Either::Arr(a))
                }
            }
            _ => Ok(match self.rv_any(e)? {
                Val::I(x) => Either::Expr(x),
                Val::F(f) => Either::F(f),
            }),
        }
    }

    fn lv(&mut self, e: &Node<Expression>) -> R<Lvalue> {
        match &e.node {
            Expression::Identifier(_) | Expression::BinaryOperator(_) => {}
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {}
            Expression::Member(_) => {}
            _ => return Err(format!("assignment to `{}` (not supported)", self.text(sp(e.span)))),
        }
        if let Expression::BinaryOperator(b) = &e.node {
            if b.node.operator.node != BinaryOperator::Index {
                return Err(format!("assignment to `{}` (not supported)", self.text(sp(e.span))));
            }
        }
        match self.place(e)? {
            Either::Expr(Expr::Var { var, ty }) => Ok(Lvalue::Var { var, ty }),
            Either::Expr(Expr::Elem { var, index, len, ty }) => Ok(Lvalue::Elem { var, index: *index, len, ty }),
            Either::Expr(Expr::Deref { ptr, ty }) => Ok(Lvalue::Deref { ptr: *ptr, ty }),
            Either::Ptr(..) => {
                Err(format!("`{}` is a pointer where an integer lvalue is needed", self.text(sp(e.span))))
            }
            Either::Arr(_) | Either::Mem(..) => {
                Err(format!("assignment to the aggregate `{}` (not supported)", self.text(sp(e.span))))
            }
            Either::F(_) => Err(format!(
                "`{}` of floating type used where an integer lvalue is needed (not supported yet)",
                self.text(sp(e.span))
            )),
            Either::Expr(_) => Err(format!("`{}` is not assignable", self.text(sp(e.span)))),
        }
    }

    fn read(lv: &Lvalue) -> Expr {
        match lv {
            Lvalue::Var { var, ty } => Expr::Var { var: *var, ty: *ty },
            Lvalue::Elem { var, index, len, ty } => {
                Expr::Elem { var: *var, index: Box::new(index.clone()), len: *len, ty: *ty }
            }
            Lvalue::Deref { ptr, ty } => Expr::Deref { ptr: Box::new(ptr.clone()), ty: *ty },
        }
    }

    /// Lowers an expression whose value is unused.
    fn effect(&mut self, e: &Node<Expression>, ssp: Sp) -> R<()> {
        match &e.node {
            Expression::Call(c) => self.call(c, None, ssp),
            Expression::Comma(v) => {
                for x in v.iter() {
                    self.effect(x, ssp)?;
                }
                Ok(())
            }
            Expression::UnaryOperator(u)
                if matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement
                        | UnaryOperator::PreIncrement
                        | UnaryOperator::PostDecrement
                        | UnaryOperator::PreDecrement
                ) =>
            {
                let inc = matches!(u.node.operator.node, UnaryOperator::PostIncrement | UnaryOperator::PreIncrement);
                self.incdec(&u.node.operand, inc)
            }
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Assign && self.is_struct_lvalue(&b.node.lhs) =>
            {
                if let Expression::Call(c) = &b.node.rhs.node {
                    let (dv, dp, dty) = self.struct_path(&b.node.lhs)?;
                    let leaves = self.leaves_under(dv, &dp);
                    let target = self.struct_call_target(c, StructDst::Leaves(leaves, dty))?;
                    return self.call(c, Some(target), ssp);
                }
                let writes = self.struct_copy_writes(&b.node.lhs, &b.node.rhs)?;
                let text = self.text(self.stmt_sp);
                self.emit(EdgeOp::AssignAll { writes }, self.stmt_sp, text)
            }
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Assign
                    && matches!(self.expr_ty(&b.node.lhs), Some(Ty::Struct(_))) =>
            {
                self.mem_struct_copy(&b.node.lhs, &b.node.rhs)
            }
            Expression::BinaryOperator(b)
                if types::is_assign_op(&b.node.operator.node)
                    && matches!(self.expr_ty(&b.node.lhs), Some(Ty::Pointer(_))) =>
            {
                self.ptr_assign(b)
            }
            Expression::BinaryOperator(b) if types::is_assign_op(&b.node.operator.node) => {
                self.assign_any(e, b).map(|_| ())
            }
            Expression::Cast(c) => self.effect(&c.node.expression, ssp),
            Expression::Conditional(c) if has_side_effects(&e.node) => {
                let t = self.new_node();
                let f = self.new_node();
                let join = self.new_node();
                self.branch(&c.node.condition, t, f, false)?;
                self.cur = t;
                self.effect(&c.node.then_expression, ssp)?;
                let x = self.cur;
                self.blank(x, join);
                self.cur = f;
                self.effect(&c.node.else_expression, ssp)?;
                let x = self.cur;
                self.blank(x, join);
                self.cur = join;
                Ok(())
            }
            Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr)
                    && has_side_effects(&b.node.rhs.node) =>
            {
                let t = self.new_node();
                self.branch(e, t, t, false)?;
                self.cur = t;
                Ok(())
            }
            Expression::Statement(st) => {
                let r = match self.stmt_expr_prefix(st)? {
                    Some(last) => self.effect(last, ssp),
                    None => Ok(()),
                };
                self.scopes.pop();
                r
            }
            _ => {
                // Evaluate for side effects (hoisted calls); the value is dropped.
                match self.place(e)? {
                    Either::Expr(_) | Either::Arr(_) | Either::F(_) | Either::Ptr(..) | Either::Mem(..) => Ok(()),
                }
            }
        }
    }

    fn incdec(&mut self, operand: &Node<Expression>, inc: bool) -> R<()> {
        if matches!(self.expr_ty(operand), Some(Ty::Pointer(_))) {
            return self.ptr_incdec(operand, inc);
        }
        let lv = self.lv(operand)?;
        let t = lv.ty();
        let op = if inc { BinOp::Add } else { BinOp::Sub };
        let v = types::binary(op, Self::read(&lv), Expr::int(1));
        let text = self.text(self.stmt_sp);
        self.emit(EdgeOp::Assign { lhs: lv, rhs: conv(v, t) }, self.stmt_sp, text)
    }

    /// Assignment or compound assignment; returns the value of the lhs afterwards.
    /// The float variable an lvalue expression names, if it is one.
    fn float_target(&self, e: &Node<Expression>) -> Option<(VarId, FloatTy)> {
        if let Expression::Member(_) = &e.node {
            return match self.member_place(e) {
                Ok(Either::F(FExpr::Var { var, fty })) => Some((var, fty)),
                _ => None,
            };
        }
        let Expression::Identifier(i) = &e.node else { return None };
        match self.lookup(&i.node.name) {
            Some(Sym::Var(v, ty)) => ty.float_ty().map(|f| (*v, f)),
            _ => None,
        }
    }

    /// Whether `e` is an element `a[i]…[j]` of a floating-point array.
    fn is_float_elem(&self, e: &Node<Expression>) -> bool {
        let mut cur = e;
        let mut depth = 0usize;
        while let Expression::BinaryOperator(b) = &cur.node {
            if b.node.operator.node != BinaryOperator::Index {
                return false;
            }
            depth += 1;
            cur = &b.node.lhs;
        }
        let ty = match &cur.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Sym::Var(_, ty)) => ty.clone(),
                _ => return false,
            },
            Expression::Member(_) => match self.struct_path(cur) {
                Ok((_, _, ty)) => ty,
                Err(_) => return false,
            },
            _ => return false,
        };
        match ty.to_ctype(self.dm) {
            CType::FloatArray { dims, .. } => depth == dims.len(),
            _ => false,
        }
    }

    /// The floating-point place an lvalue expression designates (variable, member or array
    /// element), if it has floating type; emits the side effects of its indices.
    fn float_lvalue(&mut self, e: &Node<Expression>) -> R<Option<FLvalue>> {
        if let Some((var, fty)) = self.float_target(e) {
            return Ok(Some(FLvalue::Var { var, fty }));
        }
        if !self.is_float_elem(e) {
            let through_memory = match &e.node {
                Expression::UnaryOperator(u) => u.node.operator.node == UnaryOperator::Indirection,
                Expression::Member(_) | Expression::BinaryOperator(_) => true,
                _ => false,
            };
            if !(through_memory && matches!(self.expr_ty(e), Some(Ty::Float(_)))) {
                return Ok(None);
            }
            return match self.place(e)? {
                Either::F(FExpr::Deref { ptr, fty }) => Ok(Some(FLvalue::Deref { ptr: *ptr, fty })),
                Either::F(FExpr::Var { var, fty }) => Ok(Some(FLvalue::Var { var, fty })),
                Either::F(FExpr::Elem { var, index, len, fty }) => {
                    Ok(Some(FLvalue::Elem { var, index: *index, len, fty }))
                }
                _ => Ok(None),
            };
        }
        match self.place(e)? {
            Either::F(FExpr::Elem { var, index, len, fty }) => Ok(Some(FLvalue::Elem { var, index: *index, len, fty })),
            _ => Err(format!("assignment to `{}` (not supported)", self.text(sp(e.span)))),
        }
    }

    /// Assignment or compound assignment of any arithmetic type; returns the lhs afterwards.
    fn assign_any(&mut self, _e: &Node<Expression>, b: &Node<BinaryOperatorExpression>) -> R<Val> {
        if self.is_struct_lvalue(&b.node.lhs) {
            return Err(format!("value of a struct assignment in `{}` (not supported yet)", self.text(sp(b.span))));
        }
        let ssp = self.stmt_sp;
        let text = self.text(ssp);
        if let Some(flv) = self.float_lvalue(&b.node.lhs)? {
            let fty = flv.fty();
            let read = flv.read();
            if b.node.operator.node == BinaryOperator::Assign {
                if let Expression::Call(c) = &b.node.rhs.node {
                    if self.float_nondet_call(c).is_some() {
                        // One step, whatever the lvalue (`v[1] = __VERIFIER_nondet_float()`): a
                        // witness's claim about it holds after the step.
                        self.call_float(c, Some(flv), ssp)?;
                        return Ok(Val::F(read));
                    } else if self.call_name(c).is_ok_and(|n| self.func_ids.contains_key(n)) {
                        self.call(c, Some(Target::Float(flv)), ssp)?;
                        return Ok(Val::F(read));
                    }
                }
                let r = self.rv_any(&b.node.rhs)?.into_float(fty);
                self.emit(EdgeOp::FloatAssign { lhs: flv, rhs: r }, ssp, text)?;
                return Ok(Val::F(read));
            }
            let op = types::map_binop(&b.node.operator.node).ok_or("unknown assignment operator")?;
            let r = self.rv_any(&b.node.rhs)?;
            let v = types::binary_any(op, Val::F(read.clone()), r)?.into_float(fty);
            self.emit(EdgeOp::FloatAssign { lhs: flv, rhs: v }, ssp, text)?;
            return Ok(Val::F(read));
        }
        if b.node.operator.node == BinaryOperator::Assign {
            if let Expression::Call(c) = &b.node.rhs.node {
                let lv = self.lv(&b.node.lhs)?;
                self.call(c, Some(Target::Int(lv.clone())), ssp)?;
                return Ok(Val::I(Self::read(&lv)));
            }
            let r = self.rv_any(&b.node.rhs)?;
            let lv = self.lv(&b.node.lhs)?;
            let t = lv.ty();
            self.emit(EdgeOp::Assign { lhs: lv.clone(), rhs: r.into_int(t) }, ssp, text)?;
            return Ok(Val::I(Self::read(&lv)));
        }
        let op = types::map_binop(&b.node.operator.node).ok_or("unknown assignment operator")?;
        let r = self.rv_any(&b.node.rhs)?;
        let lv = self.lv(&b.node.lhs)?;
        let t = lv.ty();
        let v = types::binary_any(op, Val::I(Self::read(&lv)), r)?;
        self.emit(EdgeOp::Assign { lhs: lv.clone(), rhs: v.into_int(t) }, ssp, text)?;
        Ok(Val::I(Self::read(&lv)))
    }

    /// `s` or `s.in` of struct type.
    fn is_struct_lvalue(&self, e: &Node<Expression>) -> bool {
        matches!(&e.node, Expression::Identifier(_) | Expression::Member(_))
            && matches!(self.struct_path(e), Ok((v, _, Ty::Struct(k))) if k.starts_with("struct ") && self.struct_vars.contains_key(&v))
    }

    /// Lowers an integer-valued expression to a side-effect-free value, emitting edges for its
    /// side effects (a floating-point value is an error: callers that convert use `rv_any`).
    pub fn rv(&mut self, e: &Node<Expression>) -> R<Expr> {
        let v = self.rv_any(e)?;
        let what = format!("`{}`", self.text(sp(e.span)));
        v.int(&what)
    }

    /// The arithmetic value of a place.
    fn place_value(&mut self, e: &Node<Expression>) -> R<Val> {
        let esp = sp(e.span);
        match self.place(e)? {
            Either::Expr(x) => Ok(Val::I(x)),
            Either::F(f) => Ok(Val::F(f)),
            Either::Arr(_) | Either::Mem(..) => {
                Err(format!("aggregate `{}` used as a number (not supported)", self.text(esp)))
            }
            Either::Ptr(..) => Err(format!("pointer `{}` used as a number (not supported)", self.text(esp))),
        }
    }

    /// Lowers an expression of any arithmetic type to a side-effect-free value, emitting edges
    /// for its side effects.
    pub fn rv_any(&mut self, e: &Node<Expression>) -> R<Val> {
        self.nested(e, |b| b.rv_any_unbounded(e))
    }

    /// The type of an arm of `?:`, as a placeholder value: from the cache of conditional
    /// expressions lowered before, or lowered in pure mode, or else lowered (the caller rolls
    /// the emitted steps back).
    fn arm_type(&mut self, x: &Node<Expression>) -> R<Val> {
        if let Some(v) = self.arm_types.get(&(x.span.start, x.span.end)) {
            return Ok(v.clone());
        }
        self.depth_exceeded = false;
        match self.pure(|b| b.rv_any(x)) {
            Ok(v) => Ok(placeholder(&v)),
            // Too deep is too deep in either mode (retrying made deep chains quadratic).
            Err(e) if self.depth_exceeded => Err(e),
            Err(_) => self.rv_any(x).map(|v| placeholder(&v)),
        }
    }

    /// Runs one level of expression recursion, refusing more than `depth::MAX_EXPR_DEPTH`
    /// levels (a chain of 300,000 `+` overflowed the parsing thread's stack; decision 131).
    pub(super) fn nested<T>(&mut self, e: &Node<Expression>, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= super::depth::MAX_EXPR_DEPTH {
            self.depth_exceeded = true;
            let (line, col) = self.src.error_position(e.span.start);
            return Err(format!(
                "expression nested more than {} levels deep at line {line}, column {col} (not supported; decision 131)",
                super::depth::MAX_EXPR_DEPTH
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn rv_any_unbounded(&mut self, e: &Node<Expression>) -> R<Val> {
        let esp = sp(e.span);
        match &e.node {
            Expression::Identifier(_) | Expression::Member(_) => self.place_value(e),
            Expression::UnaryOperator(u)
                if u.node.operator.node == UnaryOperator::Negate && self.is_ptr_expr(&u.node.operand) =>
            {
                let (p, _) = self.ptr_expr(&u.node.operand)?;
                Ok(Val::I(Expr::PtrCmp { op: BinOp::Eq, lhs: Box::new(p), rhs: Box::new(PExpr::Null) }))
            }
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => types::integer_constant(i, self.dm).map(Val::I),
                Constant::Character(ch) => types::char_constant(ch).map(Val::I),
                Constant::Float(f) => types::float_constant(f).map(Val::F),
            },
            Expression::StringLiteral(_) => {
                Err("string literal outside a char array initializer (not supported yet)".into())
            }
            Expression::Call(c) => {
                if let Some(v) = self.expect_builtin(c)? {
                    return Ok(v);
                }
                if let Some(v) = self.float_builtin(c)? {
                    return Ok(v);
                }
                if let Some(fty) = self.float_nondet_call(c) {
                    let tmp = self.new_float_temp(fty)?;
                    self.call_float(c, Some(FLvalue::Var { var: tmp, fty }), esp)?;
                    return Ok(Val::F(FExpr::Var { var: tmp, fty }));
                }
                match self.call_result_type(c)? {
                    ScalarTy::Int(ty) => {
                        let tmp = self.new_temp(ty)?;
                        self.call(c, Some(Target::Int(Lvalue::Var { var: tmp, ty })), esp)?;
                        Ok(Val::I(Expr::Var { var: tmp, ty }))
                    }
                    ScalarTy::Float(fty) => {
                        let tmp = self.new_float_temp(fty)?;
                        self.call(c, Some(Target::Float(FLvalue::Var { var: tmp, fty })), esp)?;
                        Ok(Val::F(FExpr::Var { var: tmp, fty }))
                    }
                    ScalarTy::Ptr => Err(format!("pointer result of `{}` used as a number", self.text(esp))),
                }
            }
            Expression::SizeOfTy(t) => {
                let ty = self.type_name(&t.node.0.node);
                let n = self.size_of(&ty).ok_or_else(|| {
                    format!("sizeof of type {} (not supported yet){}", ty.describe(self.dm), self.layout_note(&ty))
                })?;
                Ok(Val::I(Expr::Const { bits: n, ty: types::size_t(self.dm) }))
            }
            Expression::SizeOfVal(v) => {
                let n = self.sizeof_expr(&v.node.0)?;
                Ok(Val::I(Expr::Const { bits: n, ty: types::size_t(self.dm) }))
            }
            Expression::AlignOf(t) => {
                let ty = self.type_name(&t.node.0.node);
                let n = self.align_of(&ty, esp)?;
                Ok(Val::I(Expr::Const { bits: n, ty: types::size_t(self.dm) }))
            }
            Expression::UnaryOperator(u) => {
                let operand = &u.node.operand;
                match u.node.operator.node {
                    UnaryOperator::PreIncrement | UnaryOperator::PreDecrement => {
                        let inc = u.node.operator.node == UnaryOperator::PreIncrement;
                        self.incdec(operand, inc)?;
                        let lv = self.lv(operand)?;
                        Ok(Val::I(Self::read(&lv)))
                    }
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement => {
                        let inc = u.node.operator.node == UnaryOperator::PostIncrement;
                        let lv = self.lv(operand)?;
                        let t = lv.ty();
                        let tmp = self.new_temp(t)?;
                        let text = self.text(esp);
                        self.emit(
                            EdgeOp::Assign { lhs: Lvalue::Var { var: tmp, ty: t }, rhs: Self::read(&lv) },
                            self.stmt_sp,
                            text,
                        )?;
                        self.incdec(operand, inc)?;
                        Ok(Val::I(Expr::Var { var: tmp, ty: t }))
                    }
                    UnaryOperator::Address => {
                        Err(format!("address `{}` used as a number (not supported)", self.text(esp)))
                    }
                    UnaryOperator::Indirection => self.place_value(e),
                    UnaryOperator::Plus => Ok(match self.rv_any(operand)? {
                        Val::I(x) => Val::I(types::promote(x)),
                        f => f,
                    }),
                    UnaryOperator::Minus => types::unary_any(UnOp::Neg, self.rv_any(operand)?),
                    UnaryOperator::Complement => types::unary_any(UnOp::BitNot, self.rv_any(operand)?),
                    UnaryOperator::Negate => types::unary_any(UnOp::LogNot, self.rv_any(operand)?),
                }
            }
            Expression::Cast(c) => {
                let ty = self.type_name(&c.node.type_name.node);
                if matches!(ty, Ty::Int(_) | Ty::Float(_)) && self.is_ptr_expr(&c.node.expression) {
                    let Ty::Int(t) = ty else {
                        return Err(format!("conversion of a pointer to a floating type in `{}`", self.text(esp)));
                    };
                    let (p, _) = self.ptr_expr(&c.node.expression)?;
                    return Ok(Val::I(Expr::PtrToInt { ptr: Box::new(p), ty: t }));
                }
                match ty {
                    Ty::Int(t) => Ok(Val::I(self.rv_any(&c.node.expression)?.into_int(t))),
                    Ty::Float(_) if ty.float_ty().is_some() => {
                        let fty = ty.float_ty().ok_or("float type")?;
                        Ok(Val::F(self.rv_any(&c.node.expression)?.into_float(fty)))
                    }
                    Ty::Void => Err("value of a cast to void used".into()),
                    other => {
                        Err(format!("cast to {} in `{}` (not supported yet)", other.describe(self.dm), self.text(esp)))
                    }
                }
            }
            Expression::BinaryOperator(b) => {
                let bop = &b.node.operator.node;
                if *bop == BinaryOperator::Index {
                    return self.place_value(e);
                }
                if types::is_assign_op(bop) {
                    return self.assign_any(e, b);
                }
                let cmp = matches!(
                    bop,
                    BinaryOperator::Equals
                        | BinaryOperator::NotEquals
                        | BinaryOperator::Less
                        | BinaryOperator::LessOrEqual
                        | BinaryOperator::Greater
                        | BinaryOperator::GreaterOrEqual
                );
                if cmp && (self.is_ptr_expr(&b.node.lhs) || self.is_ptr_expr(&b.node.rhs)) {
                    let op = types::map_binop(bop).ok_or("comparison")?;
                    return self.ptr_compare(op, &b.node.lhs, &b.node.rhs).map(Val::I);
                }
                if matches!(bop, BinaryOperator::Minus)
                    && self.is_ptr_expr(&b.node.lhs)
                    && self.is_ptr_expr(&b.node.rhs)
                {
                    return self.ptr_diff(&b.node.lhs, &b.node.rhs).map(Val::I);
                }
                match types::map_binop(bop) {
                    None => Err("unknown binary operator".into()),
                    Some(op @ (BinOp::LogAnd | BinOp::LogOr)) => {
                        if has_side_effects(&b.node.rhs.node) {
                            return self.bool_temp(e).map(Val::I);
                        }
                        if self.pure_mode || self.f.is_none() {
                            let l = self.rv_any(&b.node.lhs)?;
                            let r = self.rv_any(&b.node.rhs)?;
                            return types::binary_any(op, l, r);
                        }
                        // In a statement, `&&`/`||` branch as in CPAchecker's CFA, so that
                        // witnesses can refer to the decisions of its operands (constant
                        // expressions stay pure). The whole expression is tried once in pure
                        // mode: lowering the operands, folding and rolling back at every level
                        // made a chain of n `&&` quadratic (decision 130).
                        if let Ok(v) = self.pure(|b| b.rv_any(e)) {
                            if matches!(&v, Val::I(x) if types::fold_i128(x).is_some()) {
                                return Ok(v);
                            }
                        }
                        self.bool_temp(e).map(Val::I)
                    }
                    Some(op) => {
                        let l = self.rv_any(&b.node.lhs)?;
                        let r = self.rv_any(&b.node.rhs)?;
                        types::binary_any(op, l, r)
                    }
                }
            }
            Expression::Conditional(c) => {
                let snap = self.snap();
                let cond = self.rv_any(&c.node.condition)?;
                // Constant expressions stay pure; in statements `?:` is a branch (as in
                // CPAchecker's CFA), so that witnesses can refer to its decision.
                let cond_const = matches!(&cond, Val::I(x) if types::fold_i128(x).is_some());
                let target = if self.pure_mode || (!self.emitted_since(&snap) && cond_const) {
                    let t = self.rv_any(&c.node.then_expression)?;
                    let f = self.rv_any(&c.node.else_expression)?;
                    let v = types::ite_any(cond, t, f);
                    let target = placeholder(&v);
                    self.arm_types.insert((e.span.start, e.span.end), target.clone());
                    if self.pure_mode || !self.emitted_since(&snap) {
                        return Ok(v);
                    }
                    target
                } else {
                    // Only the arms' types are needed before branching: lowering them here
                    // and again below made a chain of n `?:` take 2^n steps (decision 130).
                    let t = self.arm_type(&c.node.then_expression)?;
                    let f = self.arm_type(&c.node.else_expression)?;
                    placeholder(&types::ite_any(cond, t, f))
                };
                self.rollback(&snap);
                let tmp = match &target {
                    Val::I(Expr::Var { ty, .. }) => self.new_temp(*ty)?,
                    Val::F(FExpr::Var { fty, .. }) => self.new_float_temp(*fty)?,
                    _ => return Err("conditional expression".into()),
                };
                let nt = self.new_node();
                let nf = self.new_node();
                let join = self.new_node();
                let q = self.find_between(c.node.condition.span.end, c.node.then_expression.span.start, "?");
                let k = self.register_construct(q.unwrap_or(c.node.condition.span.end), None);
                self.decisions.push((k, nt, nf));
                let r = self.branch(&c.node.condition, nt, nf, false);
                self.decisions.pop();
                r?;
                for (n, x) in [(nt, &c.node.then_expression), (nf, &c.node.else_expression)] {
                    self.cur = n;
                    let v = self.rv_any(x)?;
                    let text = self.text(sp(x.span));
                    let op = match &target {
                        Val::F(FExpr::Var { fty, .. }) => {
                            EdgeOp::FloatAssign { lhs: FLvalue::Var { var: tmp, fty: *fty }, rhs: v.into_float(*fty) }
                        }
                        Val::I(Expr::Var { ty, .. }) => {
                            EdgeOp::Assign { lhs: Lvalue::Var { var: tmp, ty: *ty }, rhs: v.into_int(*ty) }
                        }
                        _ => return Err("conditional expression".into()),
                    };
                    self.emit(op, self.stmt_sp, text)?;
                    let cur = self.cur;
                    self.blank(cur, join);
                }
                self.cur = join;
                Ok(match target {
                    Val::I(Expr::Var { ty, .. }) => Val::I(Expr::Var { var: tmp, ty }),
                    Val::F(FExpr::Var { fty, .. }) => Val::F(FExpr::Var { var: tmp, fty }),
                    _ => return Err("conditional expression".into()),
                })
            }
            Expression::Comma(v) => {
                let n = v.len();
                if n == 0 {
                    return Err("empty comma expression".into());
                }
                for x in &v[..n - 1] {
                    self.effect(x, self.stmt_sp)?;
                }
                self.rv_any(&v[n - 1])
            }
            Expression::CompoundLiteral(_) => {
                let id = self.compound_literal(e)?;
                self.rv_any(&id)
            }
            Expression::GenericSelection(_) => Err("_Generic (not supported yet)".into()),
            Expression::OffsetOf(o) => {
                self.offset_of(o).map(|n| Val::I(Expr::Const { bits: n, ty: types::size_t(self.dm) }))
            }
            Expression::VaArg(_) => Err("va_arg (not supported yet)".into()),
            Expression::Statement(st) => {
                if self.pure_mode {
                    return Err("GNU statement expression in a constant expression".into());
                }
                match self.stmt_expr_prefix(st)? {
                    Some(last) => {
                        let r = self.rv_any(last);
                        self.scopes.pop();
                        r
                    }
                    None => {
                        self.scopes.pop();
                        Err("GNU statement expression without a value, used as a value".into())
                    }
                }
            }
        }
    }

    /// Lowers the statements of a GNU statement expression `({ …; e; })` except a trailing
    /// expression statement, which it returns (its value is the expression's value). Leaves the
    /// block's scope open: the caller pops it after using the returned expression.
    fn stmt_expr_prefix<'b>(&mut self, st: &'b Node<Statement>) -> R<Option<&'b Node<Expression>>> {
        let Statement::Compound(items) = &st.node else {
            return Err("GNU statement expression without a block".into());
        };
        let saved = self.stmt_sp;
        self.scopes.push(HashMap::new());
        let mut last = None;
        for (i, it) in items.iter().enumerate() {
            match &it.node {
                BlockItem::Statement(s) if i + 1 == items.len() => match &s.node {
                    Statement::Expression(Some(e)) => last = Some(&**e),
                    _ => self.stmt(s),
                },
                BlockItem::Statement(s) => self.stmt(s),
                BlockItem::Declaration(d) => {
                    let start = self.orig_range(sp(d.span)).0;
                    self.cfa.statement_starts.push((start, self.cur));
                    self.stmt_sp = sp(d.span);
                    self.declaration(d, false, st.span.end)
                }
                BlockItem::StaticAssert(_) => {}
            }
        }
        self.stmt_sp = saved;
        Ok(last)
    }

    /// Math functions, classification macros and `NAN`/`INFINITY` builtins: side-effect-free
    /// expressions (no call step). `None` if `c` is none of them or the program defines it.
    fn float_builtin(&mut self, c: &Node<CallExpression>) -> R<Option<Val>> {
        let Expression::Identifier(i) = &c.node.callee.node else { return Ok(None) };
        let name = i.node.name.as_str();
        if self.func_ids.contains_key(name) {
            return Ok(None);
        }
        let args = &c.node.arguments;
        if let Some(k) = float_builtin_constant(name) {
            return Ok(Some(Val::F(k)));
        }
        if let Some((func, fty)) = math_function(name) {
            let [a] = &args[..] else {
                return Err(format!("`{name}` needs one argument"));
            };
            let a = self.rv_any(a)?.into_float(fty);
            return Ok(Some(Val::F(FExpr::Math { func, args: vec![a] })));
        }
        if let Some((func, fty)) = libm_function(name) {
            if args.len() != func.arity() {
                return Err(format!("`{name}` needs {} argument(s)", func.arity()));
            }
            let mut vals = Vec::new();
            for a in args {
                vals.push(self.rv_any(a)?.into_float(fty));
            }
            return Ok(Some(Val::F(FExpr::Libm { func, args: vals, fty })));
        }
        if let Some((class, fty)) = class_function(name) {
            let [a] = &args[..] else {
                return Err(format!("`{name}` needs one argument"));
            };
            let a = match (self.rv_any(a)?, fty) {
                (v, Some(t)) => v.into_float(t),
                (Val::F(f), None) => f,
                (Val::I(x), None) => Val::I(x).into_float(FloatTy::F64),
            };
            return Ok(Some(Val::I(Expr::FloatClass { class, arg: Box::new(a) })));
        }
        if let Some(op) = quiet_comparison(name) {
            let [a, b] = &args[..] else {
                return Err(format!("`{name}` needs two arguments"));
            };
            let (a, b) = (self.rv_any(a)?, self.rv_any(b)?);
            if matches!((&a, &b), (Val::I(_), Val::I(_))) {
                return Err(format!("`{name}` with integer arguments (invalid: gcc needs a floating argument)"));
            }
            let (a, b) = types::float_operands(a, b);
            let cmp = |op| Expr::FloatCmp { op, lhs: Box::new(a.clone()), rhs: Box::new(b.clone()) };
            let nan = |x: &FExpr| Expr::FloatClass { class: FClass::IsNan, arg: Box::new(x.clone()) };
            return Ok(Some(Val::I(match op {
                Some(op) => cmp(op),
                None if name.ends_with("lessgreater") => types::binary(BinOp::LogOr, cmp(FCmp::Lt), cmp(FCmp::Gt)),
                None => types::binary(BinOp::LogOr, nan(&a), nan(&b)),
            })));
        }
        if is_math_name(name) {
            return Err(format!("call to the math function `{name}` (not modelled)"));
        }
        Ok(None)
    }

    /// The floating type of a `__VERIFIER_nondet_float/double` call.
    fn float_nondet_call(&self, c: &Node<CallExpression>) -> Option<FloatTy> {
        let Expression::Identifier(i) = &c.node.callee.node else { return None };
        let name = i.node.name.as_str();
        if self.func_ids.contains_key(name) {
            return None;
        }
        float_nondet(name, self.sigs.get(name).map(|s| &s.ret))
    }

    /// A call of `__VERIFIER_nondet_float/double` storing into the float variable `var`.
    fn call_float(&mut self, c: &Node<CallExpression>, lhs: Option<FLvalue>, csp: Sp) -> R<()> {
        let name = self.call_name(c)?.to_string();
        let fty = self.float_nondet_call(c).ok_or_else(|| format!("call to `{name}` returning a float"))?;
        if self.pure_mode {
            return Err(format!("call to `{name}` where a side-effect-free expression is needed"));
        }
        let text = self.text(csp);
        self.note_call(c.span);
        self.emit(EdgeOp::FloatNondetCall { function: name, lhs, fty }, csp, text)
    }

    /// `a && b` / `a || b` with side effects as a value: branches and an `int` temporary.
    fn bool_temp(&mut self, e: &Node<Expression>) -> R<Expr> {
        let tmp = self.new_temp(IntTy::INT)?;
        let nt = self.new_node();
        let nf = self.new_node();
        let join = self.new_node();
        self.branch(e, nt, nf, false)?;
        let text = self.text(sp(e.span));
        for (n, k) in [(nt, 1), (nf, 0)] {
            self.cur = n;
            self.emit(
                EdgeOp::Assign { lhs: Lvalue::Var { var: tmp, ty: IntTy::INT }, rhs: Expr::int(k) },
                self.stmt_sp,
                text.clone(),
            )?;
            let c = self.cur;
            self.blank(c, join);
        }
        self.cur = join;
        Ok(Expr::Var { var: tmp, ty: IntTy::INT })
    }

    /// `_Alignof(T)` (the ABI alignment, as of a struct member) or GNU `__alignof__(T)` (gcc's
    /// preferred alignment, larger for `long long` and `double` under i386), by the keyword
    /// at the start of `esp` (decision 101). Structs and arrays with gcc's layout.
    fn align_of(&self, ty: &Ty, esp: Sp) -> R<u64> {
        let gnu = self.src.text.get(esp.0..esp.1).is_some_and(|t| t.trim_start().starts_with("__alignof"));
        let (_, abi) = self.structs.layout(ty, self.dm).ok_or_else(|| {
            format!("alignof of type {} (not supported yet){}", ty.describe(self.dm), self.layout_note(ty))
        })?;
        Ok(match ty.preferred_align(self.dm) {
            Some(p) if gnu => p,
            _ => abi,
        })
    }

    /// A compound literal `(T){ … }` in a function (C11 6.5.2.5: an unnamed object with
    /// automatic storage, initialised each time the expression is evaluated, living until the
    /// end of the enclosing block): declares a fresh variable `T __compound_literal_N = { … };`
    /// at this point of evaluation and returns that name, which then stands for the literal
    /// (decision 104). Outside a function the object has static storage (C11 6.5.2.5p5): see
    /// [`Self::static_compound_literal`] (decision 136). In a constant expression inside a
    /// function: not supported.
    fn compound_literal(&mut self, e: &Node<Expression>) -> R<Node<Expression>> {
        let Expression::CompoundLiteral(cl) = &e.node else { return Err("not a compound literal".into()) };
        if self.f.is_none() {
            return self.static_compound_literal(cl, e.span);
        }
        if self.pure_mode {
            return Err("compound literal in a constant expression (not supported yet)".into());
        }
        self.tmp_counter += 1;
        let name = format!("__compound_literal_{}", self.tmp_counter);
        let span = e.span;
        let tn = &cl.node.type_name.node;
        let specifiers = tn
            .specifiers
            .iter()
            .map(|q| {
                let d = match &q.node {
                    SpecifierQualifier::TypeSpecifier(t) => DeclarationSpecifier::TypeSpecifier(t.clone()),
                    SpecifierQualifier::TypeQualifier(t) => DeclarationSpecifier::TypeQualifier(t.clone()),
                    SpecifierQualifier::Extension(x) => DeclarationSpecifier::Extension(x.clone()),
                };
                Node::new(d, q.span)
            })
            .collect();
        let ident = Node::new(Identifier { name: name.clone() }, span);
        let declarator = match &tn.declarator {
            Some(d) => name_abstract_declarator(&d.node, &ident).ok_or("compound literal of a type not supported")?,
            None => Declarator {
                kind: Node::new(DeclaratorKind::Identifier(ident.clone()), span),
                derived: Vec::new(),
                extensions: Vec::new(),
            },
        };
        let init = Node::new(Initializer::List(cl.node.initializer_list.clone()), span);
        let decl = Declaration {
            specifiers,
            declarators: vec![Node::new(
                InitDeclarator { declarator: Node::new(declarator, span), initializer: Some(init) },
                span,
            )],
        };
        let saved = self.stmt_sp;
        self.declaration(&Node::new(decl, span), false, self.block_end);
        self.stmt_sp = saved;
        Ok(Node::new(Expression::Identifier(Box::new(ident)), span))
    }

    /// A compound literal at file scope (decision 136): an anonymous object of static storage
    /// duration, `static T __compound_literal_N = { … };`, initialised before `main` with the
    /// other globals (its initializer is constant, C11 6.5.2.5p3). A struct literal lives in
    /// memory, so that its address can be taken; one that cannot (bit-fields) is not supported.
    fn static_compound_literal(&mut self, cl: &Node<CompoundLiteral>, span: Span) -> R<Node<Expression>> {
        self.tmp_counter += 1;
        let name = format!("__compound_literal_{}", self.tmp_counter);
        let ident = Node::new(Identifier { name: name.clone() }, span);
        let tn = &cl.node.type_name.node;
        let mut ty = self.type_name(tn);
        let init = Initializer::List(cl.node.initializer_list.clone());
        if let Ty::Array(elem, None) = &ty {
            if let Some(n) = self.infer_len(elem, &init) {
                ty = Ty::Array(elem.clone(), Some(n));
            }
        }
        self.addressed.insert(name.clone());
        let v = self.new_var(&name, &ty, VarScope::Global, (0, self.cfa.source_len), false);
        match &self.cfa.var(v).ty {
            CType::Unsupported(w) => {
                return Err(format!("compound literal at file scope of type {w} (not supported yet)"))
            }
            CType::Bytes { .. } => {}
            _ if matches!(ty, Ty::Struct(_)) => {
                return Err(format!(
                    "compound literal at file scope of type {} (not supported yet)",
                    ty.describe(self.dm)
                ))
            }
            _ => {}
        }
        let i = self.initializer(&ty, &init)?;
        self.cfa.global_inits.push((v, i));
        self.bind(&name, Sym::Var(v, ty));
        Ok(Node::new(Expression::Identifier(Box::new(ident)), span))
    }

    /// `sizeof` of a type, structs included (gcc's layout).
    fn size_of(&self, ty: &Ty) -> Option<u64> {
        ty.size(self.dm).or_else(|| self.structs.layout(ty, self.dm).map(|(s, _)| s))
    }

    fn sizeof_expr(&mut self, e: &Node<Expression>) -> R<u64> {
        if let Expression::Identifier(i) = &e.node {
            if let Some(Sym::Var(_, ty)) = self.lookup(&i.node.name) {
                let ty = ty.clone();
                return self.size_of(&ty).ok_or_else(|| {
                    format!("sizeof of type {} (not supported yet){}", ty.describe(self.dm), self.layout_note(&ty))
                });
            }
        }
        if let Expression::StringLiteral(s) = &e.node {
            return Ok(string_bytes(&s.node)?.len() as u64 + 1);
        }
        let r = self.pure(|b| match b.place(e)? {
            Either::Expr(x) => Ok(x.ty().bits as u64 / 8),
            Either::F(f) => Ok(f.fty().bits() as u64 / 8),
            Either::Arr(a) => Ok(a.rest.iter().product::<u64>() * (a.elem.bits() as u64 / 8)),
            Either::Ptr(..) => Ok(b.dm.long_bits() as u64 / 8),
            Either::Mem(_, t) => b.size_of(&t).ok_or_else(|| "size not known".to_string()),
        });
        r.map_err(|m| format!("sizeof: {m}"))
    }

    fn call_name<'b>(&self, c: &'b Node<CallExpression>) -> R<&'b str> {
        match &c.node.callee.node {
            Expression::Identifier(i) => Ok(&i.node.name),
            _ => Err(format!(
                "call through the expression `{}` (function pointers are not supported yet)",
                self.text(sp(c.node.callee.span))
            )),
        }
    }

    /// The result type of a call of a `__VERIFIER_nondet_*` function: the integer type the
    /// program declares it with, else the built-in table by name (decision 105). `None`: not
    /// a nondet function (or one declared with a floating type, see `float_nondet`).
    fn nondet_result(&self, name: &str) -> Option<R<IntTy>> {
        if !name.starts_with("__VERIFIER_nondet_") || self.func_ids.contains_key(name) {
            return nondet_type(name, self.dm);
        }
        match self.sigs.get(name).map(|s| &s.ret) {
            Some(Ty::Int(t)) => Some(Ok(*t)),
            Some(f @ Ty::Float(_)) if f.float_ty().is_some() => None,
            _ => nondet_type(name, self.dm),
        }
    }

    fn call_result_type(&mut self, c: &Node<CallExpression>) -> R<ScalarTy> {
        if self.is_indirect_call(c) {
            let ret = match self.expr_ty(&c.node.callee) {
                Some(Ty::Func(f)) => f.ret.clone(),
                Some(Ty::Pointer(t)) => match *t {
                    Ty::Func(f) => f.ret.clone(),
                    _ => return Err("call through a pointer that is not a function pointer".into()),
                },
                _ => return Err("call through an expression of unknown type".into()),
            };
            return match ret_scalar(&ret) {
                Ok(Some(t)) => Ok(t),
                Ok(None) => Err("value of a void function used".into()),
                Err(()) => Err(format!("call returning {} (not supported yet)", ret.describe(self.dm))),
            };
        }
        let name = self.call_name(c)?;
        if let Some(r) = self.nondet_result(name) {
            return r.map(ScalarTy::Int);
        }
        match name {
            "reach_error" | "__VERIFIER_error" | "__assert_fail" | "abort" | "exit" | "__VERIFIER_assume" => {
                return Ok(ScalarTy::Int(IntTy::INT))
            }
            _ => {}
        }
        if OUTPUT_FUNCS.contains(&name) && !self.func_ids.contains_key(name) {
            return Ok(ScalarTy::Int(IntTy::INT));
        }
        match self.sigs.get(name).map(|s| &s.ret) {
            Some(Ty::Int(t)) => Ok(ScalarTy::Int(*t)),
            Some(f @ Ty::Float(_)) if f.float_ty().is_some() && self.func_ids.contains_key(name) => {
                Ok(ScalarTy::Float(f.float_ty().ok_or("float type")?))
            }
            Some(Ty::Void) => Err(format!("value of the void function `{name}` used")),
            Some(Ty::Pointer(_)) => Ok(ScalarTy::Ptr),
            Some(other) => Err(format!("call to `{name}` returning {} (not supported yet)", other.describe(self.dm))),
            None if self.func_ids.contains_key(name) => Ok(ScalarTy::Int(IntTy::INT)),
            None => Err(format!("call to undefined function `{name}`")),
        }
    }

    /// Stores an integer result computed by `op` (a call step storing into `Some(lhs)`) into a
    /// floating-point place: through an integer temporary, then a conversion step.
    fn int_call_into_float(&mut self, flv: FLvalue, ty: IntTy, csp: Sp, op: impl FnOnce(Lvalue) -> EdgeOp) -> R<()> {
        let text = self.text(csp);
        let tmp = self.new_temp(ty)?;
        self.emit(op(Lvalue::Var { var: tmp, ty }), csp, text.clone())?;
        let fty = flv.fty();
        let rhs = Val::I(Expr::Var { var: tmp, ty }).into_float(fty);
        self.emit(EdgeOp::FloatAssign { lhs: flv, rhs }, csp, text)
    }

    /// Lowers a call; `lhs` receives the result. `csp` is the span of the step.
    fn call(&mut self, c: &Node<CallExpression>, lhs: Option<Target>, csp: Sp) -> R<()> {
        if self.is_indirect_call(c) {
            return self.call_ptr(c, lhs, csp);
        }
        let name = self.call_name(c)?.to_string();
        if self.pure_mode {
            return Err(format!("call to `{name}` where a side-effect-free expression is needed"));
        }
        if let Some(r) = self.heap_call(&name, c, &lhs, csp) {
            return r;
        }
        let args = &c.node.arguments;
        let text = self.text(csp);
        if let Some(v) = self.expect_builtin(c)? {
            let op = match lhs {
                None => return Ok(()),
                Some(Target::Int(lv)) => EdgeOp::Assign { rhs: v.into_int(lv.ty()), lhs: lv },
                Some(Target::Float(flv)) => EdgeOp::FloatAssign { rhs: v.into_float(flv.fty()), lhs: flv },
                Some(_) => return Err(format!("result of `{name}` stored into a pointer or struct")),
            };
            return self.emit(op, csp, text);
        }
        match name.as_str() {
            "reach_error" | "__VERIFIER_error" => {
                let kind = if name == "reach_error" { ErrorKind::ReachError } else { ErrorKind::VerifierError };
                return self.emit(EdgeOp::Error { kind, function: name }, csp, text);
            }
            "__assert_fail" | "__assert_perror_fail" | "__assert" => {
                return self.emit(EdgeOp::Error { kind: ErrorKind::AssertFail, function: name }, csp, text);
            }
            "abort" | "exit" | "_exit" | "_Exit" | "__VERIFIER_abort" => {
                return self.emit(EdgeOp::Terminate { function: name }, csp, text);
            }
            "atexit" if !self.func_ids.contains_key("atexit") => {
                // Decision 76: a handler named directly (`f` or `&f`).
                let handler = match &args[..] {
                    [a] => match &pointers::strip_casts(a).node {
                        Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => {
                            self.func_ids.get(&i.node.name).copied()
                        }
                        Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                            match &u.node.operand.node {
                                Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => {
                                    self.func_ids.get(&i.node.name).copied()
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let handler = handler.ok_or_else(|| {
                    format!("`atexit` with a handler other than a function defined in the program: `{text}`")
                })?;
                let lhs = match lhs {
                    None => None,
                    Some(Target::Int(lv)) => Some(lv),
                    Some(_) => return Err(format!("result of `{name}` stored into a pointer or struct")),
                };
                return self.emit(EdgeOp::AtExit { handler, lhs }, csp, text);
            }
            "__VERIFIER_assume" => {
                let [a] = &args[..] else {
                    return Err("__VERIFIER_assume needs one argument".into());
                };
                let cond = self.rv_any(a)?.truth();
                return self.emit(EdgeOp::BuiltinAssume { cond }, csp, text);
            }
            "assert" if !self.func_ids.contains_key("assert") => {
                let [a] = &args[..] else {
                    return Err("assert needs one argument".into());
                };
                let ok = self.new_node();
                let fail = self.new_node();
                self.branch(a, ok, fail, false)?;
                self.add_edge(
                    fail,
                    ok,
                    EdgeOp::Error { kind: ErrorKind::AssertFail, function: "assert".into() },
                    Some(csp),
                    text,
                );
                self.cur = ok;
                return Ok(());
            }
            _ => {}
        }
        if let Some(fty) = self.float_nondet_call(c) {
            // A floating nondeterministic value stored into an integer (or dropped).
            if let Some(Target::Float(flv)) = lhs {
                return self.call_float(c, Some(flv), csp);
            }
            let tmp = self.new_float_temp(fty)?;
            self.call_float(c, Some(FLvalue::Var { var: tmp, fty }), csp)?;
            match lhs {
                Some(Target::Int(lv)) => {
                    let t = lv.ty();
                    let rhs = Val::F(FExpr::Var { var: tmp, fty }).into_int(t);
                    self.emit(EdgeOp::Assign { lhs: lv, rhs }, csp, text)?;
                }
                Some(Target::Float(flv)) => {
                    let rhs = Val::F(FExpr::Var { var: tmp, fty }).into_float(flv.fty());
                    self.emit(EdgeOp::FloatAssign { lhs: flv, rhs }, csp, text)?;
                }
                Some(Target::Ptr(_)) => return Err("a float stored into a pointer".into()),
                Some(Target::Struct(_)) => return Err("a float stored into a struct".into()),
                None => {}
            }
            return Ok(());
        }
        if let Some(r) = self.nondet_result(&name) {
            let ty = r?;
            for a in args {
                if has_side_effects(&a.node) {
                    return Err(format!("argument with side effects in a call to `{name}` (not supported)"));
                }
            }
            self.note_call(c.span);
            return match lhs {
                Some(Target::Float(flv)) => self.int_call_into_float(flv, ty, csp, |lv| EdgeOp::NondetCall {
                    function: name,
                    lhs: Some(lv),
                    ty,
                }),
                Some(Target::Int(lv)) => self.emit(EdgeOp::NondetCall { function: name, lhs: Some(lv), ty }, csp, text),
                None => self.emit(EdgeOp::NondetCall { function: name, lhs: None, ty }, csp, text),
                Some(Target::Ptr(_)) => Err(format!("pointer result of `{name}` (not modelled)")),
                Some(Target::Struct(_)) => Err(format!("struct result of `{name}` (not modelled)")),
            };
        }
        if let Some(&id) = self.func_ids.get(&name) {
            let ptys = self.func_param_tys[id.0 as usize].clone();
            let f = self.cfa.function(id).clone();
            if let Some(w) = &f.return_unsupported {
                return Err(format!("call to `{name}` returning {w} (not supported yet)"));
            }
            if self.func_variadic[id.0 as usize] {
                return Err(format!("call to the variadic function `{name}` (not supported yet)"));
            }
            let struct_result = self.result_vars.contains_key(&id);
            match &lhs {
                Some(Target::Struct(_)) if !struct_result => {
                    return Err(format!("`{name}` does not return a struct"));
                }
                Some(Target::Struct(_)) => {}
                Some(_) if f.return_ty.is_none() => return Err(format!("value of the void function `{name}` used")),
                _ => {}
            }
            let vals = self.lower_args(&name, args, &ptys)?;
            self.note_call(c.span);
            return self.emit(EdgeOp::Call { callee: id, args: vals, lhs }, csp, text);
        }
        if OUTPUT_FUNCS.contains(&name.as_str()) {
            for a in args {
                if has_side_effects(&a.node) {
                    return Err(format!("argument with side effects in a call to `{name}` (not supported)"));
                }
            }
            self.note_call(c.span);
            return match lhs {
                Some(Target::Float(flv)) => self.int_call_into_float(flv, IntTy::INT, csp, |lv| EdgeOp::NondetCall {
                    function: name,
                    lhs: Some(lv),
                    ty: IntTy::INT,
                }),
                Some(Target::Int(lv)) => {
                    self.emit(EdgeOp::NondetCall { function: name, lhs: Some(lv), ty: IntTy::INT }, csp, text)
                }
                None => self.emit(EdgeOp::NondetCall { function: name, lhs: None, ty: IntTy::INT }, csp, text),
                Some(Target::Ptr(_)) => Err(format!("pointer result of `{name}` (not modelled)")),
                Some(Target::Struct(_)) => Err(format!("struct result of `{name}` (not modelled)")),
            };
        }
        Err(format!("call to undefined function `{name}`"))
    }
}

enum Either {
    Expr(Expr),
    Arr(ArrRef),
    F(FExpr),
    /// A pointer value and its pointee's type (a function designator is the pointer to it).
    Ptr(PExpr, Ty),
    /// An aggregate (struct, union, array) in memory at the address, of the given type.
    Mem(PExpr, Ty),
}

/// The IR type of a function's result: `None` for `void`, `Err` for types without semantics.
fn ret_scalar(ret: &Ty) -> Result<Option<ScalarTy>, ()> {
    match ret {
        Ty::Void => Ok(None),
        Ty::Int(t) => Ok(Some(ScalarTy::Int(*t))),
        Ty::Float(_) => ret.float_ty().map(|f| Some(ScalarTy::Float(f))).ok_or(()),
        Ty::Pointer(_) => Ok(Some(ScalarTy::Ptr)),
        _ => Err(()),
    }
}

/// The expression of a scalar's initializer (`= e` or `= { e }`).
fn scalar_init(init: &Initializer) -> R<&Node<Expression>> {
    match init {
        Initializer::Expression(e) => Ok(e),
        Initializer::List(items) => match items.first().map(|i| &i.node.initializer.node) {
            Some(Initializer::Expression(e)) => Ok(e),
            _ => Err("unsupported scalar initializer".into()),
        },
    }
}

/// Array parameters are pointers; function parameters are function pointers.
fn adjust_param(t: Ty) -> Ty {
    match t {
        Ty::Array(e, _) => Ty::Pointer(e),
        Ty::Func(f) => Ty::Pointer(Box::new(Ty::Func(f))),
        t => t,
    }
}

fn collect_cases<'b>(s: &'b Node<Statement>, out: &mut Vec<&'b Node<LabeledStatement>>) {
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

/// The value of a scalar variable of type `st`.
fn leaf_value(var: VarId, st: ScalarTy) -> Rvalue {
    match st {
        ScalarTy::Int(ty) => Rvalue::Int(Expr::Var { var, ty }),
        ScalarTy::Float(fty) => Rvalue::Float(FExpr::Var { var, fty }),
        ScalarTy::Ptr => Rvalue::Ptr(PExpr::Var { var }),
    }
}

/// The scalar of type `st` stored at `ptr`.
fn load_value(ptr: PExpr, st: ScalarTy) -> Rvalue {
    let ptr = Box::new(ptr);
    match st {
        ScalarTy::Int(ty) => Rvalue::Int(Expr::Deref { ptr, ty }),
        ScalarTy::Float(fty) => Rvalue::Float(FExpr::Deref { ptr, fty }),
        ScalarTy::Ptr => Rvalue::Ptr(PExpr::Load { ptr }),
    }
}

/// The write of `rhs` into the variable `var` (of `rhs`'s type).
fn write_var(var: VarId, rhs: Rvalue) -> Write {
    match rhs {
        Rvalue::Int(rhs) => Write::Int { lhs: Lvalue::Var { var, ty: rhs.ty() }, rhs },
        Rvalue::Float(rhs) => Write::Float { lhs: FLvalue::Var { var, fty: rhs.fty() }, rhs },
        Rvalue::Ptr(rhs) => Write::Ptr { lhs: PLvalue::Var(var), rhs },
    }
}

/// The write of `rhs` at `ptr` (as `rhs`'s type).
fn write_at(ptr: PExpr, rhs: Rvalue) -> Write {
    match rhs {
        Rvalue::Int(rhs) => Write::Int { lhs: Lvalue::Deref { ptr, ty: rhs.ty() }, rhs },
        Rvalue::Float(rhs) => Write::Float { lhs: FLvalue::Deref { ptr, fty: rhs.fty() }, rhs },
        Rvalue::Ptr(rhs) => Write::Ptr { lhs: PLvalue::Deref(ptr), rhs },
    }
}

/// Bytes of a (possibly concatenated) string literal, without the terminating NUL.
pub fn string_bytes(parts: &[String]) -> R<Vec<u8>> {
    let mut out = Vec::new();
    for p in parts {
        let body = p
            .strip_prefix('"')
            .and_then(|x| x.strip_suffix('"'))
            .ok_or_else(|| format!("string literal {p} (wide strings are not supported)"))?;
        for v in types::unescape(body)? {
            out.push(v as u8);
        }
    }
    Ok(out)
}

/// The names `&` is applied to: `&s`, `&s.m`, `&s.m[i].n`, `&(s)` all name `s`.
#[derive(Default)]
struct AddressedNames(HashSet<String>);

impl<'ast> lang_c::visit::Visit<'ast> for AddressedNames {
    fn visit_unary_operator_expression(&mut self, u: &'ast UnaryOperatorExpression, span: &'ast Span) {
        if u.operator.node == UnaryOperator::Address {
            let mut e = &u.operand.node;
            loop {
                match e {
                    Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
                        e = &m.node.expression.node
                    }
                    Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                        e = &b.node.lhs.node
                    }
                    Expression::Identifier(i) => {
                        self.0.insert(i.node.name.clone());
                        break;
                    }
                    _ => break,
                }
            }
        }
        lang_c::visit::visit_unary_operator_expression(self, u, span);
    }
}
