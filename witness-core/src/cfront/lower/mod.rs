//! Lowering of the lang-c AST to the CFA.
//!
//! This file holds the `Builder` (scopes, variables, temporaries, emitting edges, spans and
//! snapshots for rollback); each concern beside it has its own file: `decl` (declarators,
//! attributes, enums, functions, globals), `structs` (layouts, flattening, copies), `init`
//! (initializers), `stmt` (statements and control flow), `expr` (expressions and places),
//! `calls` (calls, nondet functions, library models, builtins), `pointers` (pointer
//! expressions and arguments), `ctors` (constructors). Invariant: every edge is emitted through
//! `emit`/`add_edge`, with the span of the original file (offsets map back exactly).

use std::collections::{HashMap, HashSet};

use lang_c::ast::*;
use lang_c::span::{Node, Span};
use petgraph::graph::{DiGraph, NodeIndex};

use super::gnu::{self, AttrKind};
use super::preprocess::Prepared;
use super::structs::{Field, Registry};
use super::types::{self, conv, Arith, FuncTy, SpecCounter, Ty};
use crate::cfa::MemSource;
use crate::cfa::{
    BinOp, BranchOutcome, CType, Cfa, CfaEdge, CfaNode, DataModel, Decision, EdgeOp, ErrorKind, Expr, ExternInfo,
    FClass, FMath, FloatTy, FuncId, FunctionInfo, Init, IntTy, Libm, Place, ScalarTy, SourceSpan, Target, UnOp, VarId,
    VarInfo, VarScope, Write,
};

mod atomics;
mod calls;
mod decl;
mod expr;
mod init;
mod stmt;
mod structs;

pub use calls::nondet_type;
use decl::*;
pub use init::string_bytes;
use structs::*;

mod ctors;
mod pointers;
mod threads;
pub(crate) mod witness;

type R<T> = Result<T, LowerError>;

/// Why an expression or declaration cannot be lowered: a typed fact (issue 33). The program
/// renders it as its message (`Display` is the message alone); a witness expression keeps the
/// kind ([`crate::error::ConjunctError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LowerError {
    /// Anything the front end cannot lower (an unsupported type or construct).
    Unsupported(String),
    /// A name that no scope declares.
    NoSuchObject(String),
    /// A witness expression whose reading is ambiguous (a bit-field's pattern).
    Ambiguous(String),
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LowerError::Unsupported(m) | LowerError::NoSuchObject(m) | LowerError::Ambiguous(m) => f.write_str(m),
        }
    }
}

impl From<String> for LowerError {
    fn from(m: String) -> Self {
        LowerError::Unsupported(m)
    }
}

impl From<&str> for LowerError {
    fn from(m: &str) -> Self {
        LowerError::Unsupported(m.to_string())
    }
}

impl From<LowerError> for crate::error::ConjunctError {
    fn from(e: LowerError) -> Self {
        match e {
            LowerError::Unsupported(m) => crate::error::ConjunctError::Unsupported(m),
            LowerError::NoSuchObject(m) => crate::error::ConjunctError::NoSuchObject(m),
            LowerError::Ambiguous(m) => crate::error::ConjunctError::Ambiguous(m),
        }
    }
}

/// Byte range `[start, end)` in the parsed text.
pub type Sp = (usize, usize);

fn sp(s: Span) -> Sp {
    (s.start, s.end)
}

#[derive(Debug, Clone)]
enum Sym {
    Var(VarId, Ty),
    Typedef(Ty),
    /// A name that stands for a value: an enumeration constant (its value and type: `int` when
    /// the value fits, else the enumeration's type, as with gcc; decision 100), or in a witness
    /// expression `\result`, `NAN`, `INFINITY`, `true`, `false` (see `witness.rs`).
    Value(Expr),
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
    Mem(Expr, Ty),
}

struct ArrRef {
    var: VarId,
    elem: ScalarTy,
    rest: Vec<u64>,
    acc: Option<Expr>,
    len: u64,
}

const OUTPUT_FUNCS: &[&str] = &["printf", "puts", "putchar", "fprintf", "fflush"];

/// State that the `Builder` owns while it lowers a program, and borrows from the finished
/// program while it lowers a witness expression (issue 33). Reading it costs nothing; a write to
/// a borrowed one makes a private copy ([`Shared::copied`]) that the program never sees.
pub(crate) struct Shared<'a, T: Clone>(std::borrow::Cow<'a, T>);

impl<'a, T: Clone> Shared<'a, T> {
    fn owned(t: T) -> Self {
        Shared(std::borrow::Cow::Owned(t))
    }

    pub(crate) fn borrowed(t: &'a T) -> Self {
        Shared(std::borrow::Cow::Borrowed(t))
    }

    fn into_owned(self) -> T {
        self.0.into_owned()
    }

    /// A borrowed value was written to (for an owned one: always).
    pub(crate) fn copied(&self) -> bool {
        matches!(self.0, std::borrow::Cow::Owned(_))
    }
}

impl<T: Clone> std::ops::Deref for Shared<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> std::ops::DerefMut for Shared<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.to_mut()
    }
}

/// The front end's view of the program beyond the CFA: the C type of each variable, the
/// file-scope typedefs, struct definitions, the leaves of flattened structs and the functions'
/// signatures. Kept in the finished CFA ([`crate::cfa::FrontEnd`]) so that a witness expression
/// is lowered by the code that lowered the program, with the same types (issue 33).
#[derive(Debug, Clone, Default)]
pub(crate) struct FrontTypes {
    /// The C type of each variable, by `VarId`.
    pub(crate) var_tys: Vec<Ty>,
    /// File-scope typedefs, in the order of their declarations.
    pub(crate) typedefs: Vec<(String, Ty)>,
    /// Struct definitions (see `structs.rs`).
    structs: Registry,
    /// Leaf variables of each flattened struct variable: (path relative to it, variable, type).
    struct_vars: HashMap<VarId, Vec<(String, VarId, Ty)>>,
    func_ids: HashMap<String, FuncId>,
    func_param_tys: Vec<Vec<Ty>>,
    func_variadic: Vec<bool>,
    sigs: HashMap<String, FuncTy>,
    /// The hidden result variable of each function that returns a struct.
    result_vars: HashMap<FuncId, VarId>,
    /// Union types with `__attribute__((transparent_union))` (decision 137).
    transparent_unions: HashSet<String>,
}

pub struct Builder<'a> {
    pub(crate) cfa: Shared<'a, Cfa>,
    /// The C types of the program (a witness expression's lowering borrows the program's).
    front: Shared<'a, FrontTypes>,
    /// Set while a witness expression is lowered (see `witness.rs`): its readings and names.
    witness: Option<witness::Witness>,
    src: &'a Prepared,
    dm: DataModel,
    scopes: Vec<HashMap<String, Sym>>,
    pub warnings: Vec<String>,
    f: Option<FState>,
    cur: NodeIndex,
    pure_mode: bool,
    /// Levels of expression recursion under way (bounded by `depth::MAX_EXPR_DEPTH`).
    depth: u32,
    /// Set when [`Self::nested`] refuses a level.
    depth_exceeded: bool,
    /// The result type of each `?:` lowered so far (by span), as a placeholder value.
    arm_types: HashMap<(usize, usize), Expr>,
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
    /// Names the program applies `&` to (`&s`, `&s.m.n`, by name, whatever the scope): a
    /// struct variable of such a name lives in memory as bytes (decision 49).
    addressed: HashSet<String>,
    /// Set while the parameters of a function are created (struct parameters stay flattened).
    in_params: bool,
    pending_params: Vec<Vec<(String, Sym)>>,
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
            moved_steps: Vec::new(),
            unordered_nondet: Default::default(),
            scaled_ptr_diffs: Default::default(),
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
            // Moved in from the prepared text when lowering is done (`build_inner`).
            line_starts: Default::default(),
            typedefs: Vec::new(),
            enum_constants: Vec::new(),
            enum_tags: Vec::new(),
            statement_starts: Vec::new(),
            initializer_starts: Vec::new(),
            branch_keywords: Vec::new(),
            loop_statements: Vec::new(),
            external_globals: Vec::new(),
            thread_locals: Default::default(),
            threads: false,
            skipped_bodies: src.skipped_bodies(),
            // Moved in with the line table (`build_inner`).
            skipped_functions: Vec::new(),
            front: Default::default(),
        };
        Builder::over(Shared::owned(cfa), Shared::owned(FrontTypes::default()), src)
    }

    /// A builder that adds to `cfa`, reading `src`.
    fn over(cfa: Shared<'a, Cfa>, front: Shared<'a, FrontTypes>, src: &'a Prepared) -> Self {
        let (start, dm) = (cfa.start, cfa.data_model);
        Builder {
            cfa,
            front,
            witness: None,
            src,
            dm,
            scopes: vec![HashMap::new()],
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
            addressed: HashSet::new(),
            in_params: false,
            pending_params: Vec::new(),
            globals_declared: Vec::new(),
            globals_defined: HashSet::new(),
            global_steps: Vec::new(),
            block_end: src.text.len(),
            constructors: HashMap::new(),
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

    fn emit_unsupported(&mut self, s: Sp, what: impl std::fmt::Display) {
        let n = self.new_node();
        let c = self.cur;
        let text = self.text(s);
        self.add_edge(c, n, EdgeOp::Unsupported { what: what.to_string() }, Some(s), text);
        self.cur = n;
    }

    // ----------------------------------------------------------------- GNU C (gnu.rs)

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
        // Only what grew is cut (a write to the borrowed CFA of a witness expression copies it).
        if self.cfa.vars.len() > s.vars {
            self.cfa.vars.truncate(s.vars);
            self.front.var_tys.truncate(s.vars);
        }
        // String literal objects made inside the region go with their variables.
        if self.cfa.global_inits.len() > s.global_inits {
            self.cfa.global_inits.truncate(s.global_inits);
        }
        let n = s.vars;
        self.strings.retain(|_, v| (v.0 as usize) < n);
        // Anchors recorded inside the rolled-back region would point at removed locations.
        if self.cfa.statement_starts.len() > s.statement_starts {
            self.cfa.statement_starts.truncate(s.statement_starts);
        }
        if self.cfa.branch_keywords.len() > s.branch_keywords {
            self.cfa.branch_keywords.truncate(s.branch_keywords);
        }
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

    /// The finished program (its CFA keeps the front end's types for witness expressions).
    pub fn finish(self) -> Cfa {
        let mut cfa = self.cfa.into_owned();
        cfa.front = crate::cfa::FrontEnd::new(self.front.into_owned());
        cfa
    }

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
                match (self.front.structs.layout(ty, self.dm), self.front.structs.union_member_sizes(ty, self.dm)) {
                    (Some((size, _)), Some(members)) => CType::Bytes { size, members },
                    _ => CType::Unsupported(ty.describe(self.dm)),
                }
            }
            // Arrays of structs, unions or pointers live in memory as bytes too: every access is
            // a typed load or store at its byte offset.
            _ if Self::bytes_array(ty) => match self.front.structs.layout(ty, self.dm) {
                Some((size, _)) if size > 0 => CType::Bytes { size, members: Vec::new() },
                _ => CType::Unsupported(ty.describe(self.dm)),
            },
            // So does a struct whose address is taken (decision 49).
            Ty::Struct(_) if !temporary && !self.in_params && self.addressed.contains(name) => {
                match self.front.structs.layout(ty, self.dm) {
                    Some((size, _)) if size > 0 && !self.front.structs.has_bitfields(ty) => {
                        CType::Bytes { size, members: vec![size] }
                    }
                    _ => ty.to_ctype(self.dm),
                }
            }
            _ => ty.to_ctype(self.dm),
        };
        self.front.var_tys.push(ty.clone());
        self.cfa.vars.push(VarInfo {
            name: name.to_string(),
            ty: cty,
            scope,
            visible,
            temporary,
            read_only: false,
            address_taken: !temporary && self.addressed.contains(name),
            bitfield_unit: None,
        });
        id
    }

    /// Refuses a side effect where a side-effect-free expression is needed (pure mode).
    fn effects_allowed(&self) -> R<()> {
        if self.pure_mode {
            return Err("expression with side effects where a side-effect-free expression is needed".into());
        }
        Ok(())
    }

    /// A fresh temporary of type `ty` in the running function.
    fn temp(&mut self, ty: &Ty) -> R<VarId> {
        self.effects_allowed()?;
        let f = self.f.as_ref().map(|f| f.id).ok_or("temporary outside a function")?;
        self.tmp_counter += 1;
        let name = format!("__tmp_{}", self.tmp_counter);
        Ok(self.new_var(&name, ty, VarScope::Local(f), (0, 0), true))
    }

    fn new_float_temp(&mut self, fty: FloatTy) -> R<VarId> {
        self.temp(&Ty::Float(fty.name()))
    }

    fn new_temp(&mut self, ty: IntTy) -> R<VarId> {
        self.temp(&Ty::Int(ty))
    }

    // ----------------------------------------------------------------- types

    // ----------------------------------------------------------------- top level

    // ----------------------------------------------------------------- declarations

    // ----------------------------------------------------------------- statements

    // ----------------------------------------------------------------- expressions

    /// Runs one level of expression recursion, refusing more than `depth::MAX_EXPR_DEPTH`
    /// levels (a chain of 300,000 `+` overflowed the parsing thread's stack; decision 131).
    pub(super) fn nested<T>(&mut self, e: &Node<Expression>, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= super::depth::MAX_EXPR_DEPTH {
            self.depth_exceeded = true;
            let (line, col) = self.src.error_position(e.span.start);
            return Err(format!(
                "expression nested more than {} levels deep at line {line}, column {col} (not supported; decision 131)",
                super::depth::MAX_EXPR_DEPTH
            )
            .into());
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
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
                return Err(format!("compound literal at file scope of type {w} (not supported yet)").into())
            }
            CType::Bytes { .. } => {}
            _ if matches!(ty, Ty::Struct(_)) => {
                return Err(format!(
                    "compound literal at file scope of type {} (not supported yet)",
                    ty.describe(self.dm)
                )
                .into())
            }
            _ => {}
        }
        let i = self.initializer(&ty, &init)?;
        self.cfa.global_inits.push((v, i));
        self.bind(&name, Sym::Var(v, ty));
        Ok(Node::new(Expression::Identifier(Box::new(ident)), span))
    }
}

enum Either {
    /// An integer or floating-point value (a place of scalar type reads as its value).
    Scalar(Expr),
    Arr(ArrRef),
    /// A pointer value and its pointee's type (a function designator is the pointer to it).
    Ptr(Expr, Ty),
    /// An aggregate (struct, union, array) in memory at the address, of the given type.
    Mem(Expr, Ty),
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
