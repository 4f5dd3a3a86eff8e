//! Native runs of a correctness witness's program (issue 36 item 2, decision 222): the program
//! with the witness's invariants checked where they must hold, and a harness whose
//! `__VERIFIER_nondet_*` calls all return one value. A run of it is one execution of the program
//! at native speed (gcc's semantics are the reference): where an invariant it checks is false,
//! or an error function of the property is reached, with no sanitizer finding on the way, the
//! witness is refuted. A run that ends otherwise, or does not end in time, shows nothing.
//!
//! Pure text generation, as `harness.rs`: the caller (the binary) compiles and runs the job
//! through a [`NativeRunner`]. Nothing from the witness becomes C text: each check is written
//! from the invariant as the front end lowered it (the same expression the interpreter
//! evaluates), with every operation in its own type, so that the native check and the
//! interpreter's agree; what has no faithful C rendering here (pointers, floats, memory) is not
//! checked natively.

use std::fmt::Write;
use std::time::Duration;

use crate::cfa::{BinOp, Cfa, EdgeOp, Expr, Place, ScalarTy, UnOp, VarId};
use crate::cfront::lower_assumption;
use crate::harness::{c_int_type, error_functions, nondet_functions, Ret};
use crate::invariants::Obligation;
use crate::witness::InvariantKind;

/// What a check prints (to standard error) when its invariant is false: this, the check's
/// number, then `name=value` of each variable it reads, one a line.
pub const BROKEN_TEXT: &str = "witness-check native: invariant broken";
/// What the harness prints with the number of nondet calls made, before it ends a run.
pub const CALLS_TEXT: &str = "witness-check native: nondet calls";
/// Exit status of a run whose check found an invariant false.
pub const BROKEN_STATUS: i32 = 89;

/// An instrumented program and its harness, to be compiled together (`-m32` when `ilp32`).
#[derive(Debug, Clone)]
pub struct NativeJob {
    pub program: String,
    pub harness: String,
    pub ilp32: bool,
    /// The obligation each check number stands for.
    pub checks: Vec<usize>,
    /// The program calls nondet functions: runs with different values differ.
    pub nondet: bool,
    /// The invariants not checked natively, and why.
    pub skipped: Vec<String>,
    /// The lines `program` has before the program's first (declarations of the checks).
    pub header_lines: u32,
    /// Decision 245: `Ok` when a run that ends with every check true proves the witness: the
    /// program has one run ([`one_run`]) and every invariant is checked at every visit of its
    /// place; else why not.
    pub single: Result<(), String>,
}

/// What a native run showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NativeOutcome {
    /// A check found its invariant false: the check's number, its variables' values
    /// (`x = 5, y = 3`), the number of nondet calls made before.
    Broken { check: usize, values: String, calls: u64 },
    /// The program reached an error function of the property (`reach_error`, …).
    Reached { what: String, calls: u64 },
    /// The program ended by itself (a return from `main`, `exit`, a failed `__VERIFIER_assume`)
    /// with exit status `status`, every check true, no error function reached and no sanitizer
    /// report (decision 245: with [`NativeJob::single`], the witness holds).
    Ended { status: i32, calls: u64 },
    /// Nothing concluded, and why (a sanitizer reported, a signal, the time limit, a compile
    /// error).
    Nothing(String),
}

/// Compiles and runs native jobs (the binary's; the library does no I/O).
pub trait NativeRunner: std::fmt::Debug + Send + Sync + std::panic::RefUnwindSafe + std::panic::UnwindSafe {
    /// Runs `job` with every nondet call returning `value` (converted to the call's type), for
    /// at most `limit`.
    fn run(&self, job: &NativeJob, value: i64, limit: Duration) -> NativeOutcome;
    /// Releases what the runs left (files); called once the validation needs no more runs.
    fn finish(&self) {}
}

/// The job checking those of `obligations` that can be checked natively, or why none can.
pub fn job(cfa: &Cfa, source: &str, obligations: &[Obligation], ilp32: bool) -> Result<NativeJob, String> {
    if !cfa.offsets_exact {
        return Err("the program was preprocessed: its offsets are not the file's".into());
    }
    if cfa.threads {
        return Err("a multi-threaded program".into());
    }
    // Issue 51 cause 3: a run refutes only if it has no undefined behaviour; what the sanitizers
    // cannot see is left out here (the runner's flags and warnings cover the rest).
    if let Some(line) = cfa.scaled_ptr_diffs.iter().next() {
        return Err(format!(
            "the pointer difference at line {line} is undefined unless its pointers are a whole number of elements \
             apart, which no sanitizer checks"
        ));
    }
    if let Some((line, var)) = uninitialised_pointer(cfa) {
        return Err(format!(
            "the pointer `{}` declared at line {line} without a value: using it is undefined, which no sanitizer \
             checks (natively it reads as a null pointer)",
            cfa.var(var).name
        ));
    }
    if let Some(e) = cfa.graph.edge_weights().find(|e| matches!(e.op, EdgeOp::CallPtr { .. })) {
        let line = e.span.map_or(0, |s| s.start_line);
        return Err(format!(
            "the call through a pointer at line {line} is undefined if the function's type is not the pointer's, \
             which no sanitizer checks"
        ));
    }
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut checks = Vec::new();
    let mut why_not = Vec::new();
    for (i, o) in obligations.iter().enumerate() {
        if o.unchecked.is_some() {
            continue;
        }
        let number = checks.len();
        match place_check(cfa, source, o, number) {
            Ok(mut e) => {
                checks.push(i);
                edits.append(&mut e);
            }
            Err(why) => why_not.push(format!("{}: {why}", o.describe())),
        }
    }
    if checks.is_empty() {
        return Err(why_not.into_iter().next().unwrap_or_else(|| "no invariant to check".into()));
    }
    edits.sort_by_key(|e| (e.0, e.1));
    if edits.windows(2).any(|w| w[1].0 < w[0].1) {
        return Err("two checks at one place".into());
    }
    let mut program = String::with_capacity(source.len() + 4096);
    program.push_str("void __wc_broken(int check, ...);\n");
    // The program's own error functions stay calls (no inlining, no removal of a call to an
    // empty one), so that the harness's definitions, which report reaching them, replace them.
    for f in crate::harness::ERROR_FUNCTIONS {
        if cfa.defines(f) {
            let _ = writeln!(program, "void {f}() __attribute__((noipa));");
        }
    }
    let header_lines = program.lines().count() as u32;
    let mut at = 0;
    for (start, end, text) in &edits {
        program.push_str(&source[at..*start]);
        program.push_str(text);
        at = *end;
    }
    program.push_str(&source[at..]);
    let nondet = !nondet_functions(cfa).is_empty();
    let single = match (obligations.iter().find_map(|o| o.unchecked.as_ref().map(|_| o)), why_not.first()) {
        (Some(o), _) => Err(format!("{} is not checked", o.describe())),
        (None, Some(why)) => Err(format!("not checked natively: {why}")),
        (None, None) => one_run(cfa),
    };
    Ok(NativeJob { program, harness: harness(cfa), ilp32, checks, nondet, skipped: why_not, header_lines, single })
}

/// Decision 245: `Ok` when the program has exactly one run in the interpreter's semantics and a
/// native run of it is that run: it reads no nondeterministic value (no nondet call, no inline
/// assembly output, no extern global, no `main` parameters, no uninitialised local, heap block
/// or union), takes no result the semantics leaves open (a string comparison's magnitude, an
/// address converted to an integer) and executes nothing the semantics does not model. Else the
/// first reason (with its line) it may have others. Undefined behaviour is the runner's: a
/// sanitizer report ends a run with nothing concluded.
pub fn one_run(cfa: &Cfa) -> Result<(), String> {
    use crate::cfa::{CType, VarScope, Write};
    if cfa.threads {
        return Err("a multi-threaded program has one run per schedule".into());
    }
    if let Some(v) = cfa.external_globals.first() {
        return Err(format!("the extern global `{}` has an unknown value", cfa.var(*v).name));
    }
    if !cfa.function(cfa.main).params.is_empty() {
        return Err("`main` takes parameters, which a run is given from outside".into());
    }
    if let Some(v) = cfa.vars.iter().find(|v| matches!(&v.ty, CType::Bytes { members, .. } if members.len() > 1)) {
        return Err(format!("the union `{}` may hold unspecified bytes", v.name));
    }
    if let Some(v) = cfa.vars.iter().find(|v| matches!(v.ty, CType::Unsupported(_))) {
        return Err(format!("the type of `{}` is not modelled", v.name));
    }
    if let Some(f) = cfa.functions.iter().find(|f| f.return_unsupported.is_some()) {
        return Err(format!("the return type of `{}` is not modelled", f.name));
    }
    let line = |e: &crate::cfa::CfaEdge| e.span.map_or(0, |s| s.start_line);
    let aggregate = |v: VarId| !matches!(cfa.var(v).ty, CType::Int(_) | CType::Float(_) | CType::Ptr);
    let local = |v: VarId| matches!(cfa.var(v).scope, VarScope::Local(_));
    for e in cfa.graph.edge_weights() {
        let why = match &e.op {
            EdgeOp::NondetCall { function, .. } | EdgeOp::FloatNondetCall { function, .. } => {
                Some(format!("`{function}` returns a nondeterministic value"))
            }
            EdgeOp::Havoc { what, .. } => Some(format!("{what} gives its outputs unknown values")),
            EdgeOp::Alloc { function, zeroed: false, .. } => {
                Some(format!("the block of `{function}` holds uninitialised bytes"))
            }
            EdgeOp::Realloc { .. } => Some("the block of `realloc` holds uninitialised bytes".into()),
            EdgeOp::StrFn { function, .. } if function != "strlen" && function != "strcpy" => {
                Some(format!("`{function}` gives only the sign of its result"))
            }
            EdgeOp::Unsupported { what } => Some(format!("{what} is not modelled")),
            EdgeOp::Declare { var, init: None } if local(*var) && aggregate(*var) => {
                Some(format!("`{}` is declared without a value", cfa.var(*var).name))
            }
            EdgeOp::AssignAll { writes } => writes.iter().find_map(|w| match w {
                Write::Declare { var, init: None } if local(*var) && aggregate(*var) => {
                    Some(format!("`{}` is declared without a value", cfa.var(*var).name))
                }
                _ => None,
            }),
            _ => None,
        };
        let why = why.or_else(|| {
            let mut cast = None;
            e.op.for_each_expr(&mut |x| {
                if let Expr::Cast { arg, to: ScalarTy::Int(t) } = x {
                    if matches!(arg.ty(), ScalarTy::Ptr) && !t.is_bool {
                        cast = Some("an address converted to an integer has no one value".to_string());
                    }
                }
            });
            cast
        });
        if let Some(why) = why {
            return Err(format!("{why} (line {})", line(e)));
        }
    }
    definitely_assigned(cfa)
}

/// Every local read (or whose address is taken) is assigned on every path to the read: a
/// forward must-analysis per function over the CFA, joined by intersection. A `Declare`
/// without a value makes its variable unassigned again (a loop body's local each pass).
fn definitely_assigned(cfa: &Cfa) -> Result<(), String> {
    use crate::cfa::{Target, VarScope, Write};
    use petgraph::visit::EdgeRef;
    use std::collections::BTreeSet;
    let n = cfa.graph.node_count();
    let mut state: Vec<Option<BTreeSet<VarId>>> = vec![None; n];
    let mut work = Vec::new();
    for f in &cfa.functions {
        state[f.entry.index()] = Some(f.params.iter().copied().collect());
        work.push(f.entry);
    }
    let local = |v: &VarId| matches!(cfa.var(*v).scope, VarScope::Local(_));
    let assign_place = |p: &Place, set: &mut BTreeSet<VarId>| {
        if let Place::Var { var, .. } = p {
            set.insert(*var);
        }
    };
    let apply = |op: &EdgeOp, set: &mut BTreeSet<VarId>| match op {
        EdgeOp::Declare { var, init } => {
            if init.is_some() {
                set.insert(*var);
            } else {
                set.remove(var);
            }
        }
        EdgeOp::Assign { lhs, .. } => assign_place(lhs, set),
        EdgeOp::AssignAll { writes } => {
            for w in writes {
                match w {
                    Write::Declare { var, init: Some(_) } => {
                        set.insert(*var);
                    }
                    Write::Declare { var, init: None } => {
                        set.remove(var);
                    }
                    Write::Scalar { lhs, .. } => assign_place(lhs, set),
                    Write::Array { dst, .. } => {
                        set.insert(*dst);
                    }
                }
            }
        }
        EdgeOp::Call { lhs: Some(Target::Scalar(p)), .. } | EdgeOp::CallPtr { lhs: Some(Target::Scalar(p)), .. } => {
            assign_place(p, set)
        }
        EdgeOp::Call { lhs: Some(Target::Struct(ws)), .. } | EdgeOp::CallPtr { lhs: Some(Target::Struct(ws)), .. } => {
            for w in ws {
                if let Write::Scalar { lhs, .. } = w {
                    assign_place(lhs, set);
                }
            }
        }
        EdgeOp::NondetCall { lhs: Some(p), .. }
        | EdgeOp::FloatNondetCall { lhs: Some(p), .. }
        | EdgeOp::Alloc { lhs: Some(p), .. }
        | EdgeOp::Realloc { lhs: Some(p), .. }
        | EdgeOp::MemBytes { lhs: Some(p), .. }
        | EdgeOp::AtExit { lhs: Some(p), .. }
        | EdgeOp::ThreadSelf { lhs: Some(p) }
        | EdgeOp::ThreadCreate { lhs: Some(p), .. }
        | EdgeOp::ThreadJoin { lhs: Some(p), .. }
        | EdgeOp::Mutex { lhs: Some(p), .. } => assign_place(p, set),
        EdgeOp::StrFn { lhs: Some(Target::Scalar(p)), .. } => assign_place(p, set),
        EdgeOp::Havoc { lhs, .. } => lhs.iter().for_each(|p| assign_place(p, set)),
        _ => {}
    };
    while let Some(node) = work.pop() {
        let Some(here) = state[node.index()].clone() else { continue };
        for edge in cfa.graph.edges(node) {
            let e = edge.weight();
            let mut unread = None;
            e.op.for_each_expr(&mut |x| {
                let v = match x {
                    Expr::Var { var, .. } | Expr::Elem { var, .. } | Expr::AddrOf { var, .. } => var,
                    _ => return,
                };
                if unread.is_none() && local(v) && !here.contains(v) {
                    unread = Some(*v);
                }
            });
            if let Some(v) = unread {
                return Err(format!(
                    "`{}` may be read before it is assigned (line {})",
                    cfa.var(v).name,
                    e.span.map_or(0, |s| s.start_line)
                ));
            }
            let mut after = here.clone();
            apply(&e.op, &mut after);
            let target = edge.target().index();
            let joined = match &state[target] {
                None => after,
                Some(old) => old.intersection(&after).copied().collect(),
            };
            if state[target].as_ref() != Some(&joined) {
                state[target] = Some(joined);
                work.push(edge.target());
            }
        }
    }
    Ok(())
}

/// A local pointer variable declared without an initializer (its line and variable): the
/// interpreter makes any use of its value undefined; natively (`-ftrivial-auto-var-init=zero`) it
/// is a null pointer that comparisons and arithmetic use silently.
fn uninitialised_pointer(cfa: &Cfa) -> Option<(u32, VarId)> {
    let uninit = |var: &VarId, init: &Option<crate::cfa::Init>| {
        let info = cfa.var(*var);
        init.is_none()
            && matches!(info.ty, crate::cfa::CType::Ptr)
            && matches!(info.scope, crate::cfa::VarScope::Local(_))
    };
    cfa.graph.edge_weights().find_map(|e| {
        let var = match &e.op {
            EdgeOp::Declare { var, init } if uninit(var, init) => Some(*var),
            EdgeOp::AssignAll { writes } => writes.iter().find_map(|w| match w {
                crate::cfa::Write::Declare { var, init } if uninit(var, init) => Some(*var),
                _ => None,
            }),
            _ => None,
        }?;
        Some((e.span.map_or(0, |s| s.start_line), var))
    })
}

/// The edits that check `o` (check number `number`) where it must hold.
fn place_check(cfa: &Cfa, source: &str, o: &Obligation, number: usize) -> Result<Vec<(usize, usize, String)>, String> {
    if o.witness_node.is_some() {
        return Err("an invariant of a witness automaton's state holds only while the automaton is in it".into());
    }
    let scope = o.lowering_scope(cfa);
    let mut conjuncts = Vec::new();
    for c in lower_assumption(cfa, &o.text, &scope) {
        conjuncts.push(c.map_err(|_| "it cannot be evaluated in its scope".to_string())?);
    }
    if conjuncts.is_empty() {
        return Err("it is empty".into());
    }
    let mut vars = Vec::new();
    for c in &conjuncts {
        vars_of(c, &mut vars);
    }
    // Decision 231: a postcondition's formals are their values at entry, copies the function
    // makes when it starts.
    let at_entry = AtEntry {
        number,
        vars: match o.kind {
            InvariantKind::Ensures => {
                vars.iter().copied().filter(|v| cfa.function(o.scope).params.contains(v)).collect()
            }
            _ => Vec::new(),
        },
    };
    let cond = conjuncts.iter().map(|c| c_expr(cfa, c, &at_entry)).collect::<Result<Vec<_>, _>>()?.join(" && ");
    let mut report = format!("__wc_broken({number}");
    for v in &vars {
        let info = cfa.var(*v);
        let crate::cfa::CType::Int(t) = info.ty else { continue };
        let kind = if t.signed { 's' } else { 'u' };
        let read = if at_entry.vars.contains(v) { at_entry.copy(&info.name) } else { info.name.clone() };
        let _ = write!(report, ", \"{}\", '{kind}', (unsigned long long)({read})", info.name);
    }
    if let (true, Some(ScalarTy::Int(t))) = (conjuncts.iter().any(mentions_result), scope.result_ty) {
        let kind = if t.signed { 's' } else { 'u' };
        let _ = write!(report, ", \"\\\\result\", '{kind}', (unsigned long long)(__wc_result)");
    }
    report.push_str(", (const char *)0)");
    let check = format!("(({cond}) ? (void)0 : {report})");
    let mut edits = place(cfa, source, o, &check)?;
    // C resolves each name where the check is inserted: it must be the variable the invariant
    // was lowered to (a `for` header's declaration, a block's local may shadow it there).
    for (at, _, _) in &edits {
        if let Some(v) = vars.iter().filter(|v| !at_entry.vars.contains(v)).find(|v| !names_at(cfa, **v, o.scope, *at))
        {
            return Err(format!("`{}` names another variable where the check would go", cfa.var(*v).name));
        }
    }
    if !at_entry.vars.is_empty() {
        // At the body's start, where only the formals are in scope.
        let open = body_start(source, cfa.function(o.scope).span.end_offset + 1)?;
        let mut copies = String::new();
        for v in &at_entry.vars {
            let info = cfa.var(*v);
            let crate::cfa::CType::Int(t) = info.ty else { return Err("a formal that is no integer".into()) };
            let _ = write!(copies, " {} {} = {};", c_int_type(t), at_entry.copy(&info.name), info.name);
        }
        edits.push((open + 1, open + 1, copies));
    }
    Ok(edits)
}

/// Whether `var`'s name, written at byte `at` in function `f`, names `var`: of the variables
/// of that name whose scope holds `at` (bounds included), it is the innermost.
fn names_at(cfa: &Cfa, var: VarId, f: crate::cfa::FuncId, at: usize) -> bool {
    let name = &cfa.var(var).name;
    let innermost = cfa
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| &v.name == name && !v.temporary && v.visible.0 <= at && at <= v.visible.1)
        .filter(|(_, v)| match v.scope {
            crate::cfa::VarScope::Global => true,
            crate::cfa::VarScope::Local(g) => g == f,
        })
        .max_by_key(|(_, v)| v.visible.0);
    innermost.map(|(i, _)| i) == Some(var.0 as usize)
}

/// The edits that insert `check` (of obligation `o`, reading `vars`) where `o` must hold.
fn place(cfa: &Cfa, source: &str, o: &Obligation, check: &str) -> Result<Vec<(usize, usize, String)>, String> {
    let func = cfa.function(o.scope);
    match o.kind {
        InvariantKind::Loop => {
            let mut edits = Vec::new();
            for node in &o.nodes {
                let Some(&(start, _)) = cfa.loop_statements.iter().find(|(_, h)| h == node) else {
                    return Err("its location is no `while` or `for` loop".into());
                };
                edits.append(&mut loop_condition(source, start, check)?);
            }
            Ok(edits)
        }
        InvariantKind::Requires => {
            // The declarator's span ends at its last character.
            let open = body_start(source, func.span.end_offset + 1)?;
            Ok(vec![(open + 1, open + 1, format!(" {check};"))])
        }
        InvariantKind::Ensures => {
            let Some(ScalarTy::Int(t)) = func.return_ty else {
                return Err("a function that does not return an integer".into());
            };
            let mut edits = Vec::new();
            for e in cfa.graph.edge_weights().filter(|e| e.function == o.scope) {
                let EdgeOp::Return { value: Some(_), .. } = &e.op else { continue };
                // A span's end is its last character: the statement's `;`.
                let span = e.span.ok_or("a return without a place")?;
                let text = source.get(span.start_offset..=span.end_offset).ok_or("a return outside the file")?;
                let value = text
                    .strip_prefix("return")
                    .and_then(|v| v.strip_suffix(';'))
                    .filter(|v| v.starts_with(|c: char| c.is_whitespace() || c == '('))
                    .ok_or("a return statement whose text is not `return …;`")?;
                let ty = c_int_type(t);
                edits.push((
                    span.start_offset,
                    span.end_offset + 1,
                    format!("{{ {ty} __wc_result = ({ty})({value}); {check}; return __wc_result; }}"),
                ));
            }
            if edits.is_empty() {
                return Err("its function has no `return` of a value".into());
            }
            Ok(edits)
        }
        _ => Err("not a loop invariant or a function contract".into()),
    }
}

/// The check inserted at the condition of the `while` or `for` statement at `start` (evaluated
/// each time the loop head is reached, before the condition), or at the start of a `do` loop's
/// body.
fn loop_condition(source: &str, start: usize, check: &str) -> Result<Vec<(usize, usize, String)>, String> {
    let rest = source.get(start..).ok_or("a loop outside the file")?;
    let keyword = if rest.starts_with("while") && !ident_char(rest.as_bytes().get(5)) {
        "while"
    } else if rest.starts_with("for") && !ident_char(rest.as_bytes().get(3)) {
        "for"
    } else if rest.starts_with("do") && !ident_char(rest.as_bytes().get(2)) {
        // A `do` loop's head is the start of its body (every pass begins there; `continue`
        // goes to the condition, which starts the next pass there): the check opens the body.
        let open = skip_blank(source, start + 2).filter(|&p| source.as_bytes()[p] == b'{');
        let open = open.ok_or("a `do` loop whose body is not a block")?;
        return Ok(vec![(open + 1, open + 1, format!(" {check};"))]);
    } else {
        return Err("its loop is no `while`, `for` or `do` statement (a macro?)".into());
    };
    let open = skip_blank(source, start + keyword.len()).filter(|&p| source.as_bytes()[p] == b'(');
    let open = open.ok_or("a loop whose `(` was not found")?;
    let (close, semis) = matching_paren(source, open)?;
    if keyword == "while" {
        return Ok(vec![(open + 1, open + 1, format!("({check}), (")), (close, close, ")".into())]);
    }
    let [first, second] = semis[..] else { return Err("a `for` whose header was not understood".into()) };
    let cond = &source[first + 1..second];
    if cond.trim().is_empty() {
        Ok(vec![(first + 1, second, format!(" ({check}, 1)"))])
    } else {
        Ok(vec![(first + 1, first + 1, format!(" ({check}), (")), (second, second, ")".into())])
    }
}

fn ident_char(b: Option<&u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// The first position at or after `at` that is not white space or a comment.
fn skip_blank(source: &str, mut at: usize) -> Option<usize> {
    let b = source.as_bytes();
    loop {
        match b.get(at)? {
            c if c.is_ascii_whitespace() => at += 1,
            b'/' if b.get(at + 1) == Some(&b'*') => at = at + 2 + source.get(at + 2..)?.find("*/")? + 2,
            b'/' if b.get(at + 1) == Some(&b'/') => at += source.get(at..)?.find('\n')?,
            _ => return Some(at),
        }
    }
}

/// The `)` matching the `(` at `open`, and the `;` directly inside the pair (a `for` header's),
/// past string and character literals and comments.
fn matching_paren(source: &str, open: usize) -> Result<(usize, Vec<usize>), String> {
    let b = source.as_bytes();
    let mut depth = 0usize;
    let mut semis = Vec::new();
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((i, semis));
                }
            }
            b';' if depth == 1 => semis.push(i),
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2 + source[i + 2..].find("*/").ok_or("an unclosed comment")? + 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => i += source[i..].find('\n').ok_or("a comment at the end")?,
            _ => {}
        }
        i += 1;
    }
    Err("a loop header without its `)`".into())
}

/// The `{` opening the body of the function whose declarator ends at `end`.
fn body_start(source: &str, end: usize) -> Result<usize, String> {
    skip_blank(source, end)
        .filter(|&p| source.as_bytes()[p] == b'{')
        .ok_or_else(|| "a function definition whose body does not follow its declarator".to_string())
}

/// The formals a postcondition reads (decision 231): copies the function makes when it
/// starts, named for the check (two contracts of one function make their own).
struct AtEntry {
    number: usize,
    vars: Vec<VarId>,
}

impl AtEntry {
    fn copy(&self, name: &str) -> String {
        format!("__wc_entry{}_{name}", self.number)
    }
}

fn vars_of(e: &Expr, out: &mut Vec<VarId>) {
    match e {
        Expr::Var { var, .. } if !out.contains(var) => out.push(*var),
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => vars_of(arg, out),
        Expr::Binary { lhs, rhs, .. } => {
            vars_of(lhs, out);
            vars_of(rhs, out);
        }
        Expr::Ite { cond, then, els, .. } => {
            vars_of(cond, out);
            vars_of(then, out);
            vars_of(els, out);
        }
        _ => {}
    }
}

fn mentions_result(e: &Expr) -> bool {
    match e {
        Expr::WitnessResult { .. } => true,
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => mentions_result(arg),
        Expr::Binary { lhs, rhs, .. } => mentions_result(lhs) || mentions_result(rhs),
        Expr::Ite { cond, then, els, .. } => mentions_result(cond) || mentions_result(then) || mentions_result(els),
        _ => false,
    }
}

/// `e` as C text with the same value: every operation in its own type (a cast around it), on
/// integers only.
fn c_expr(cfa: &Cfa, e: &Expr, at_entry: &AtEntry) -> Result<String, String> {
    let int = |ty: &ScalarTy| match ty {
        ScalarTy::Int(t) if t.bits >= 8 && t.bits.is_power_of_two() => Ok(*t),
        _ => Err("an operation on other values than integers".to_string()),
    };
    Ok(match e {
        Expr::Const { bits, ty } => {
            let t = int(ty)?;
            format!("(({})0x{bits:x}ULL)", c_int_type(t))
        }
        Expr::Var { var, ty } => {
            int(ty)?;
            let info = cfa.var(*var);
            let plain = info.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if info.temporary || info.bitfield_unit.is_some() || !plain {
                return Err(format!("the variable `{}`, which has no plain C name", info.name));
            }
            if at_entry.vars.contains(var) {
                at_entry.copy(&info.name)
            } else {
                info.name.clone()
            }
        }
        Expr::WitnessResult { ty } => {
            int(ty)?;
            "__wc_result".into()
        }
        Expr::Unary { op, arg, ty } => {
            let t = int(ty)?;
            let op = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::LogNot => "!",
            };
            format!("(({})({op}{}))", c_int_type(t), c_expr(cfa, arg, at_entry)?)
        }
        Expr::Binary { op, lhs, rhs, ty } => {
            let t = int(ty)?;
            // Below `int`, C would compute in `int`: the front end never writes such an
            // operation; none is rendered.
            if !op.is_boolean() && t.bits < 32 {
                return Err("an arithmetic operation below `int`".into());
            }
            let text = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Rem => "%",
                BinOp::Shl => "<<",
                BinOp::Shr => ">>",
                BinOp::BitAnd => "&",
                BinOp::BitOr => "|",
                BinOp::BitXor => "^",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                BinOp::Ge => ">=",
                BinOp::LogAnd => "&&",
                BinOp::LogOr => "||",
            };
            format!("(({})({} {text} {}))", c_int_type(t), c_expr(cfa, lhs, at_entry)?, c_expr(cfa, rhs, at_entry)?)
        }
        Expr::Cast { arg, to } => {
            let t = int(to)?;
            int(&arg.ty())?;
            format!("(({})({}))", c_int_type(t), c_expr(cfa, arg, at_entry)?)
        }
        Expr::Ite { cond, then, els, ty } => {
            let t = int(ty)?;
            format!(
                "(({})(({}) ? ({}) : ({})))",
                c_int_type(t),
                c_expr(cfa, cond, at_entry)?,
                c_expr(cfa, then, at_entry)?,
                c_expr(cfa, els, at_entry)?
            )
        }
        _ => return Err("an expression that is not checked natively (memory, pointers or floats)".into()),
    })
}

/// The harness of a native run: every nondet call returns the value of the environment
/// variable `WITNESS_CHECK_NONDET` (converted to its type) and is counted; the checks' report;
/// the error functions of a replay harness.
fn harness(cfa: &Cfa) -> String {
    let mut out = String::new();
    out.push_str("/* Native run of witness-check (decision 222). */\n");
    out.push_str("#include <stdarg.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n\n");
    out.push_str("#define HARNESS_ERROR_FUNCTION\n");
    out.push_str("static long long wc_value;\nstatic unsigned long long wc_calls;\nstatic int wc_ready;\n");
    out.push_str(
        "static long long wc_next(void) {\n  if (!wc_ready) {\n    const char *v = getenv(\"WITNESS_CHECK_NONDET\");\n    \
         wc_value = v ? strtoll(v, 0, 10) : 0;\n    wc_ready = 1;\n  }\n  wc_calls++;\n  return wc_value;\n}\n\n",
    );
    let _ = writeln!(
        out,
        "static void wc_calls_report(void) {{\n  fprintf(stderr, \"{CALLS_TEXT} %llu\\n\", wc_calls);\n}}\n"
    );
    for (name, ret) in nondet_functions(cfa) {
        match ret {
            Ret::Int(t) => {
                let ty = c_int_type(t);
                let _ = writeln!(out, "{ty} {name}(void) {{ return ({ty}) wc_next(); }}");
            }
            Ret::Float(bits) => {
                let ty = if bits == 32 { "float" } else { "double" };
                let _ = writeln!(out, "{ty} {name}(void) {{ return ({ty}) wc_next(); }}");
            }
        }
    }
    if !cfa.defines("__VERIFIER_assume") {
        out.push_str("void __VERIFIER_assume(int c) {\n  if (!c) {\n    wc_calls_report();\n    exit(0);\n  }\n}\n");
    }
    let _ = writeln!(
        out,
        "void __wc_broken(int check, ...) {{\n  va_list ap;\n  va_start(ap, check);\n  \
         fprintf(stderr, \"{BROKEN_TEXT} %d %s\\n\", check, getenv(\"WITNESS_CHECK_TOKEN\") ? getenv(\"WITNESS_CHECK_TOKEN\") : \"-\");\n  \
         for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {{\n    \
         int kind = va_arg(ap, int);\n    unsigned long long v = va_arg(ap, unsigned long long);\n    \
         if (kind == 's') fprintf(stderr, \"%s=%lld\\n\", name, (long long)v);\n    \
         else fprintf(stderr, \"%s=%llu\\n\", name, v);\n  }}\n  va_end(ap);\n  wc_calls_report();\n  \
         fflush(NULL);\n  _exit({BROKEN_STATUS});\n}}\n"
    );
    out.push_str(&error_functions(cfa, "  wc_calls_report();\n"));
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::cfa::DataModel;

    fn job_of(src: &str, witness: &str) -> Result<NativeJob, String> {
        let program = crate::cfront::build_program(Path::new("p.c"), src, DataModel::Ilp32).expect("builds");
        let w = crate::witness::yaml::read_yaml(Path::new("w.yml"), witness.as_bytes()).expect("witness");
        let obligations = crate::invariants::resolve(&program.cfa, &w).expect("resolves");
        job(&program.cfa, &program.source, &obligations, true)
    }

    const HEADER: &str = "- entry_type: invariant_set\n  metadata:\n    format_version: \"2.1\"\n    uuid: \"0\"\n    \
        creation_time: \"2026-01-01T00:00:00Z\"\n    producer: {name: t, version: \"1\"}\n    task:\n      \
        input_files: [p.c]\n      input_file_hashes: {}\n      specification: \"G ! call(reach_error())\"\n      \
        data_model: ILP32\n      language: C\n  content:\n";

    #[test]
    fn a_loop_invariant_is_checked_before_each_evaluation_of_the_condition() {
        let src = "unsigned f(unsigned z) {\n  return z + 2;\n}\nint main(void) {\n  unsigned x = 0;\n  while (x < 10) {\n    x = f(x);\n  }\n  for (;;) { break; }\n  return 0;\n}\n";
        let inv = format!(
            "{HEADER}  - invariant:\n      type: loop_invariant\n      location: {{file_name: p.c, line: 6, column: 3, function: main}}\n      value: \"x % 2 == 0\"\n      format: c_expression\n  - contract:\n      type: function_contract\n      location: {{file_name: p.c, line: 1, column: 1, function: f}}\n      requires: \"z < 10\"\n      ensures: \"\\\\result <= 11\"\n      format: acsl_expression\n"
        );
        let job = job_of(src, &inv).expect("a job");
        assert_eq!(job.checks.len(), 3, "{:?}", job.skipped);
        assert!(job.program.contains("while ((((("), "{}", job.program);
        assert!(job.program.contains("), (x < 10))"), "{}", job.program);
        assert!(job.program.contains("unsigned int __wc_result = (unsigned int)( z + 2);"), "{}", job.program);
        assert!(!job.nondet);
    }

    #[test]
    fn a_check_is_not_inserted_where_its_name_means_another_variable() {
        // At the `return`, C reads the block's `g`; the contract speaks of the global.
        let src = "unsigned g;\nunsigned f(unsigned z) {\n  {\n    unsigned g = 7;\n    return g + z;\n  }\n}\nint main(void) {\n  return (int)f(3);\n}\n";
        let inv = format!(
            "{HEADER}  - contract:\n      type: function_contract\n      location: {{file_name: p.c, line: 2, column: 1, function: f}}\n      requires: \"z < 10\"\n      ensures: \"\\\\result >= g\"\n      format: acsl_expression\n"
        );
        let job = job_of(src, &inv).expect("a job");
        assert_eq!(job.checks.len(), 1, "{:?}", job.skipped);
        assert!(job.skipped.iter().any(|s| s.contains("`g` names another variable")), "{:?}", job.skipped);
        // A formal is read from its copy at entry (decision 231), which no block shadows.
        let src = "unsigned f(unsigned z) {\n  {\n    unsigned z = 7;\n    return z;\n  }\n}\nint main(void) {\n  return (int)f(3);\n}\n";
        let inv = inv.replace("line: 2", "line: 1").replace("result >= g", "result >= z");
        let job = job_of(src, &inv).expect("a job");
        assert_eq!(job.checks.len(), 2, "{:?}", job.skipped);
    }

    #[test]
    fn a_do_loop_is_checked_where_its_body_starts() {
        let src = "int main(void) {\n  unsigned x = 0;\n  do {\n    x += 2;\n    if (x == 4) continue;\n  } while (x < 10);\n  return 0;\n}\n";
        let inv = format!(
            "{HEADER}  - invariant:\n      type: loop_invariant\n      location: {{file_name: p.c, line: 3, column: 3, function: main}}\n      value: \"x % 2 == 0\"\n      format: c_expression\n"
        );
        let job = job_of(src, &inv).expect("a job");
        assert_eq!(job.checks.len(), 1, "{:?}", job.skipped);
        let body = job.program.find("do {").expect("the loop") + 4;
        assert!(job.program[body..].trim_start().starts_with("((("), "{}", job.program);
        assert!(job.program.contains("} while (x < 10);"), "{}", job.program);
    }

    /// Decision 231: a postcondition's formals are their values at entry: a function that
    /// assigns its parameter (`x++`, `x += 2`, through a call's result) copies it when it
    /// starts, and the check at each return reads the copy.
    #[test]
    fn a_postcondition_reads_the_formals_at_entry() {
        let src = "int inc(int x) {\n  x++;\n  x += 2;\n  return x - 2;\n}\nint main(void) {\n  return inc(1);\n}\n";
        let inv = format!(
            "{HEADER}  - contract:\n      type: function_contract\n      location: {{file_name: p.c, line: 1, column: 1, function: inc}}\n      requires: \"x < 10\"\n      ensures: \"\\\\result == x + 1\"\n      format: acsl_expression\n"
        );
        let job = job_of(src, &inv).expect("a job");
        assert_eq!(job.checks.len(), 2, "{:?}", job.skipped);
        let copy = job.program.find(" int __wc_entry1_x = x;").expect("the copy");
        assert!(job.program.find("int inc(int x) {") < Some(copy) && Some(copy) < job.program.find("x++"));
        let ret = job.program.find("__wc_result = ").expect("the return's check");
        assert!(job.program[ret..].contains("__wc_entry1_x"), "{}", job.program);
        assert!(!job.program[ret..].contains("(x)"), "{}", job.program);
    }

    #[test]
    fn a_program_with_undefined_behaviour_no_sanitizer_checks_is_not_run() {
        let inv = |line: u32| {
            format!(
                "{HEADER}  - invariant:\n      type: loop_invariant\n      location: {{file_name: p.c, line: {line}, column: 3, function: main}}\n      value: \"x < 10\"\n      format: c_expression\n"
            )
        };
        // A difference of `int` pointers: undefined unless a whole number of elements apart.
        let diff = "int a[4];\nint main(void) {\n  unsigned x = 0;\n  long d = &a[3] - &a[0];\n  while (x < 3) {\n    x++;\n  }\n  return (int)d;\n}\n";
        let why = job_of(diff, &inv(5)).expect_err("left out");
        assert!(why.contains("pointer difference at line 4"), "{why}");
        // Of `char` pointers every difference is a whole number of elements.
        let chars = diff.replace("int a[4]", "char a[4]");
        assert!(job_of(&chars, &inv(5)).is_ok());
        // A call through a pointer: undefined if the function's type is not the pointer's.
        let call = "int g(int v) { return v; }\nint main(void) {\n  int (*f)(int) = g;\n  unsigned x = (unsigned)f(0);\n  while (x < 3) {\n    x++;\n  }\n  return 0;\n}\n";
        let why = job_of(call, &inv(5)).expect_err("left out");
        assert!(why.contains("call through a pointer at line 4"), "{why}");
        // A pointer declared without a value: using it is undefined (natively: a null pointer).
        let uninit = "int main(void) {\n  int *p;\n  unsigned x = 0;\n  if (p == 0) x = 1;\n  while (x < 3) {\n    x++;\n  }\n  return 0;\n}\n";
        let why = job_of(uninit, &inv(5)).expect_err("left out");
        assert!(why.contains("pointer `p` declared at line 2 without a value"), "{why}");
        let init = uninit.replace("int *p;", "int *p = 0;");
        assert!(job_of(&init, &inv(5)).is_ok());
    }

    fn one_run_of(src: &str) -> Result<(), String> {
        let program = crate::cfront::build_program(Path::new("p.c"), src, DataModel::Ilp32).expect("builds");
        one_run(&program.cfa)
    }

    /// Decision 245: a program has one run when it reads no nondeterministic value; every local
    /// it reads is assigned on every path before (a `for`'s init clause, both branches).
    #[test]
    fn a_program_has_one_run_only_without_input_and_uninitialised_reads() {
        let plain = "int main(void) {\n  unsigned x = 1;\n  int i;\n  int d;\n  if (x) d = 1; else d = 2;\n  for (i = 0; i < 5; i++) x = x * 3u + (unsigned)d;\n  return (int)x;\n}\n";
        assert_eq!(one_run_of(plain), Ok(()));
        // A nondet call.
        let input = "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int n = __VERIFIER_nondet_int();\n  return n;\n}\n";
        assert!(one_run_of(input).unwrap_err().contains("`__VERIFIER_nondet_int` returns a nondeterministic value"));
        // Assigned on one branch only.
        let branch = plain.replace("if (x) d = 1; else d = 2;", "if (x) d = 1;");
        assert!(one_run_of(&branch).unwrap_err().contains("`d` may be read before it is assigned (line 6)"));
        // A loop body's local is unassigned again each pass.
        let body = "int main(void) {\n  int s = 0;\n  for (int i = 0; i < 3; i++) {\n    int t;\n    if (i == 0) t = 1;\n    s += t;\n  }\n  return s;\n}\n";
        assert!(one_run_of(body).unwrap_err().contains("`t` may be read"));
        // A `goto` past a declaration's initializer.
        let jump = "int main(void) {\n  goto L;\n  int v = 3;\n L:\n  return v;\n}\n";
        assert!(one_run_of(jump).unwrap_err().contains("`v` may be read"));
        // The address of an unassigned local; an array, a union, a heap block without values.
        let addr = "int main(void) {\n  int v;\n  int *p = &v;\n  *p = 1;\n  return v;\n}\n";
        assert!(one_run_of(addr).unwrap_err().contains("`v` may be read"));
        let array = "int main(void) {\n  int a[3];\n  a[0] = 1;\n  return a[0];\n}\n";
        assert!(one_run_of(array).unwrap_err().contains("`a` is declared without a value"));
        let union_ =
            "union U { int i; char c; };\nint main(void) {\n  union U u = {0};\n  u.c = 1;\n  return u.i;\n}\n";
        assert!(one_run_of(union_).unwrap_err().contains("union"));
        let heap = "extern void *malloc(unsigned long);\nint main(void) {\n  int *p = malloc(4);\n  if (!p) return 0;\n  *p = 1;\n  return *p;\n}\n";
        assert!(one_run_of(heap).unwrap_err().contains("uninitialised bytes"));
        // An address as an integer, `main`'s parameters.
        let cast = "int g;\nint main(void) {\n  unsigned long a = (unsigned long)&g;\n  return (int)(a % 8);\n}\n";
        assert!(one_run_of(cast).unwrap_err().contains("address converted to an integer"));
        let args = "int main(int argc, char **argv) {\n  return argc;\n}\n";
        assert!(one_run_of(args).unwrap_err().contains("`main` takes parameters"));
    }

    /// Decision 245: a job proves the witness by one run only if every invariant is checked.
    #[test]
    fn a_job_is_a_proof_only_when_every_invariant_is_checked() {
        let src = "int main(void) {\n  unsigned x = 0;\n  while (x < 10) {\n    x += 2;\n  }\n  return 0;\n}\n";
        let loop_inv = format!(
            "{HEADER}  - invariant:\n      type: loop_invariant\n      location: {{file_name: p.c, line: 3, column: 3, function: main}}\n      value: \"x % 2 == 0\"\n      format: c_expression\n"
        );
        assert_eq!(job_of(src, &loop_inv).expect("a job").single, Ok(()));
        let both = format!(
            "{loop_inv}  - invariant:\n      type: location_invariant\n      location: {{file_name: p.c, line: 4, column: 5, function: main}}\n      value: \"x < 10\"\n      format: c_expression\n"
        );
        let job = job_of(src, &both).expect("a job");
        assert_eq!(job.checks.len(), 1);
        assert!(job.single.unwrap_err().contains("not checked natively"));
    }
}
