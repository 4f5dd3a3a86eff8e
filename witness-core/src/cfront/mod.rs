//! C front end: parses a C program with lang-c and builds its [`Cfa`]; lowers witness
//! assumption expressions into the same IR.
//!
//! * `preprocess`: comment blanking (exact offsets) or `gcc -E` with line mapping.
//! * `skip`: removes the bodies of functions `main` cannot reach before parsing.
//! * `types`: C types, integer conversions, typed IR construction.
//! * `lower`: AST → CFA.
//! * `assumption`: witness assumptions → [`Expr`].

use std::path::Path;

use crate::cfa::{Cfa, DataModel, Expr, FuncId, ScalarTy};
use crate::error::InputError;

mod assumption;
mod depth;
mod gnu;
pub use crate::error::ConjunctError;
mod lower;
mod preprocess;
pub(crate) mod skip;
mod structs;
mod types;

#[cfg(test)]
mod tests;

/// A parsed program.
#[derive(Debug)]
pub struct Program {
    pub cfa: Cfa,
    /// The file as given.
    pub source: String,
    /// Non-fatal problems (e.g. preprocessing without `-m32`).
    pub warnings: Vec<String>,
}

/// Stack size for parsing and lowering (lang-c's PEG parser recurses deeply).
const STACK: usize = 256 << 20;

/// Texts up to this size are parsed on the calling thread, on a stack segment of [`STACK`]
/// bytes (`crate::stack::with_stack`): they parse in milliseconds, so no deadline can pass unnoticed for long,
/// and a small task pays for no thread and no hand-over between threads (decision 174). Larger
/// ones are parsed on a thread of their own, which the caller leaves behind at the deadline.
const INLINE_TEXT: usize = 256 << 10;

/// Builds the CFA of a C program. Reads nothing itself: `text` is the file content, `path` is
/// used for messages and for `gcc -E` (include directory).
pub fn build_program(path: &Path, text: &str, data_model: DataModel) -> Result<Program, InputError> {
    match build_program_within(path, text.to_string(), data_model, None) {
        Ok(p) => Ok(p),
        Err(BuildFailure::Input(e)) => Err(e),
        Err(BuildFailure::OutOfTime) => Err(InputError::invalid(path, "the C parser did not finish")),
        Err(BuildFailure::Unsupported(m)) => Err(InputError::invalid(path, m)),
    }
}

/// Why a program could not be built.
#[derive(Debug)]
pub enum BuildFailure {
    /// The program is unreadable or malformed.
    Input(InputError),
    /// Parsing did not finish before the deadline (lang-c's parser backtracks exponentially on
    /// some token sequences). The parsing thread is left behind; the caller should finish soon.
    OutOfTime,
    /// The program is C the front end cannot take (nested too deeply to parse without
    /// overflowing the stack, decision 131): the answer is `unknown` with this reason.
    Unsupported(String),
}

/// [`build_program`] with a deadline for parsing and lowering. Takes the text (it becomes
/// [`Program::source`]; large files are not copied).
pub fn build_program_within(
    path: &Path,
    text: String,
    data_model: DataModel,
    deadline: Option<crate::budget::Deadline>,
) -> Result<Program, BuildFailure> {
    if text.len() <= INLINE_TEXT {
        if deadline.is_some_and(|d| d.passed()) {
            return Err(BuildFailure::OutOfTime);
        }
        let run = std::panic::AssertUnwindSafe(|| build_inner(path, text, data_model));
        return match crate::stack::with_stack(STACK, || std::panic::catch_unwind(run)) {
            Ok(r) => r,
            Err(_) => Err(BuildFailure::Input(InputError::invalid(path, "internal error in the C front end"))),
        };
    }
    let path_buf = path.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("cfront".into()).stack_size(STACK).spawn(move || {
        let r = std::panic::catch_unwind(move || build_inner(&path_buf, text, data_model));
        let _ = tx.send(r);
    });
    if let Err(e) = spawned {
        return Err(BuildFailure::Input(InputError::invalid(path, format!("cannot start parser thread: {e}"))));
    }
    let answer = match deadline {
        // On the CPU clock the parser's thread spends the budget while this one waits: the
        // wait is repeated until the deadline has passed on its own clock.
        Some(d) => loop {
            match rx.recv_timeout(d.remaining()) {
                Ok(r) => break Ok(r),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !d.passed() => continue,
                Err(_) => break Err(()),
            }
        },
        None => rx.recv().map_err(|_| ()),
    };
    match answer {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err(BuildFailure::Input(InputError::invalid(path, "internal error in the C front end"))),
        Err(()) => Err(BuildFailure::OutOfTime),
    }
}

fn build_inner(path: &Path, text: String, dm: DataModel) -> Result<Program, BuildFailure> {
    if text.len() > crate::lines::MAX_TEXT {
        let m = format!("the program has {} bytes, more than the front end reads (4 GiB)", text.len());
        return Err(BuildFailure::Input(InputError::invalid(path, m)));
    }
    let mut prepared = preprocess::prepare(path, &text, dm).map_err(BuildFailure::Input)?;
    if let Some(at) = preprocess::adjacent_increments(&prepared.text) {
        let (line, col) = prepared.error_position(at);
        return Err(BuildFailure::Input(InputError::malformed(
            path,
            line,
            col,
            "C syntax error: two increment/decrement operators in a row (`++`/`--` after `++`/`--`), which no C \
             expression has",
        )));
    }
    if let Some((at, what)) = depth::too_deep(&prepared.text, depth::MAX_NESTING, depth::MAX_PARENS) {
        let (line, col) = prepared.error_position(at);
        return Err(BuildFailure::Unsupported(format!(
            "the program is nested too deeply for the C front end at {}:{line}:{col}: {what}, more than it supports \
             ({} levels, {} parentheses; decision 131)",
            path.display(),
            depth::MAX_NESTING,
            depth::MAX_PARENS
        )));
    }
    let config = lang_c::driver::Config::with_gcc();
    // lang-c takes the text and gives it back.
    let unit = match lang_c::driver::parse_preprocessed(&config, std::mem::take(&mut prepared.text)) {
        Ok(u) => {
            prepared.text = u.source;
            u.unit
        }
        Err(e) => {
            prepared.text = e.source;
            let (line, col) = prepared.error_position(e.offset);
            let mut exp: Vec<&str> = e.expected.iter().copied().collect();
            exp.sort_unstable();
            let found = prepared.text.get(e.offset..).and_then(|r| r.chars().next());
            let found = match found {
                Some(c) => format!("unexpected `{}`", c.escape_default()),
                None => "unexpected end of file".into(),
            };
            let list = exp.iter().take(12).map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ");
            let more = if exp.len() > 12 { ", …" } else { "" };
            return Err(BuildFailure::Input(InputError::malformed(
                path,
                line,
                col,
                format!("C syntax error: {found}, expected {list}{more}"),
            )));
        }
    };
    let mut b = lower::Builder::new(&prepared, &text, dm);
    if let Err(m) = b.translation_unit(&unit) {
        return Err(BuildFailure::Input(InputError::invalid(path, m.to_string())));
    }
    let mut warnings = prepared.warnings.clone();
    warnings.append(&mut b.warnings);
    let mut cfa = b.finish();
    // One copy of the line table (4 bytes a line): the CFA's, from here on.
    cfa.line_starts = prepared.take_orig_line_starts();
    let mut names: Vec<String> = std::mem::take(&mut prepared.skipped).into_iter().map(|(n, ..)| n).collect();
    names.sort_unstable();
    names.dedup();
    cfa.skipped_functions = names;
    Ok(Program { cfa, source: text, warnings })
}

/// Where a witness assumption is evaluated.
#[derive(Debug, Clone, Default)]
pub struct AssumptionScope {
    /// Function whose locals are visible (`None`: globals only).
    pub function: Option<FuncId>,
    /// Byte offset of the matched step, to choose among shadowing declarations.
    pub offset: Option<usize>,
    /// Type of `\result`.
    pub result_ty: Option<ScalarTy>,
    /// The expression is ACSL (`format: acsl_expression`, decision 232): integer arithmetic and
    /// comparisons are over the mathematical integers, not C's types.
    pub acsl: bool,
    /// A name means only a variable visible at `offset` (or a global): a contract's names are
    /// its function's formals and the globals, never a local of the body (decision 231).
    pub visible_only: bool,
}

/// Lowers one witness assumption string (may hold several `;`-separated expressions) to one
/// boolean-ish Expr per conjunct (evaluate `!= 0`), or per conjunct that cannot be used why
/// (a typed [`ConjunctError`]: syntax, ambiguity, no such object, unsupported).
pub fn lower_assumption(cfa: &Cfa, text: &str, scope: &AssumptionScope) -> Vec<Result<Expr, ConjunctError>> {
    let pieces = assumption::split(text);
    if pieces.is_empty() {
        return Vec::new();
    }
    let work = || pieces.iter().map(|p| assumption::lower_one(cfa, p, scope)).collect::<Vec<_>>();
    // Small inputs run as they are; deep nesting needs a big stack (a segment of this thread,
    // decision 174).
    if text.len() < 2000 {
        return work();
    }
    let run = std::panic::AssertUnwindSafe(work);
    crate::stack::with_stack(64 << 20, || std::panic::catch_unwind(run))
        .unwrap_or_else(|_| vec![Err(ConjunctError::Unsupported("internal error lowering the assumption".into()))])
}

/// The `;`-separated pieces of a witness assumption, in the order [`lower_assumption`] lowers them.
pub fn split_assumption(text: &str) -> Vec<String> {
    assumption::split(text)
}

/// The pieces of [`split_assumption`], each with the witness syntax [`lower_assumption`] reads
/// before C (ACSL's `==>`, the legacy `x = 5`) written as C, so that it may be put inside
/// parentheses (decision 251's instrumented transition invariants).
pub(crate) fn assumption_pieces_as_c(text: &str) -> Vec<String> {
    assumption::split(text).iter().map(|p| assumption::as_c(p)).collect()
}

/// Adds file-scope variables to a finished program (decision 251's ghost copies): each with its
/// name and the C type of the variable given (`int` for `None`), zero when the program starts
/// (static storage), visible everywhere to witness expressions. `Err` when a name is taken.
pub(crate) fn add_ghost_globals(
    cfa: &mut Cfa,
    ghosts: &[(String, Option<crate::cfa::VarId>)],
) -> Result<Vec<crate::cfa::VarId>, String> {
    let mut front = cfa.front.get::<lower::FrontTypes>().ok_or("the program's C types are not known")?.clone();
    let mut ids = Vec::new();
    for (name, like) in ghosts {
        if cfa.vars.iter().any(|v| &v.name == name) {
            return Err(format!("the program already has a variable named `{name}`"));
        }
        let (ty, front_ty) = match like {
            Some(v) => {
                (cfa.var(*v).ty.clone(), front.var_tys.get(v.0 as usize).cloned().ok_or("a variable without a C type")?)
            }
            None => (crate::cfa::CType::Int(crate::cfa::IntTy::INT), types::Ty::Int(crate::cfa::IntTy::INT)),
        };
        let id = crate::cfa::VarId(cfa.vars.len() as u32);
        if front.var_tys.len() != cfa.vars.len() {
            return Err("the program's C types do not match its variables".into());
        }
        cfa.vars.push(crate::cfa::VarInfo {
            name: name.clone(),
            ty,
            scope: crate::cfa::VarScope::Global,
            visible: (0, cfa.source_len),
            temporary: false,
            read_only: false,
            address_taken: false,
            bitfield_unit: None,
        });
        front.var_tys.push(front_ty);
        ids.push(id);
    }
    cfa.front = crate::cfa::FrontEnd::new(front);
    Ok(ids)
}

/// Lowers a C expression of a witness (e.g. the left operand of an assumption conjunct) to its
/// value: an integer or float expression; `Err` if it cannot be used.
pub fn lower_assumption_value(
    cfa: &Cfa,
    text: &str,
    scope: &AssumptionScope,
) -> Result<crate::cfa::Expr, ConjunctError> {
    assumption::lower_value(cfa, text, scope)
}

/// Is `t` one parenthesised expression: does its first `(` close at its last byte (`(a != 2)`
/// yes, `(a) && (b)` no)?
pub(crate) fn encloses(t: &[u8]) -> bool {
    if t.first() != Some(&b'(') {
        return false;
    }
    let mut depth = 0i64;
    for (i, c) in t.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i == t.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// Result type of a function by name (defined functions, declared externs, and the
/// `__VERIFIER_nondet_*` table), for `\result`.
pub fn function_result_type(cfa: &Cfa, name: &str) -> Option<ScalarTy> {
    if let Some(f) = cfa.function_by_name(name) {
        return cfa.function(f).return_ty;
    }
    // A declared integer result type wins over the built-in table (decision 105).
    let declared = cfa.externs.iter().find(|e| e.name == name).and_then(|e| e.return_ty).map(ScalarTy::Int);
    if declared.is_some() {
        return declared;
    }
    match lower::nondet_type(name, cfa.data_model) {
        Some(Ok(t)) => Some(ScalarTy::Int(t)),
        _ => None,
    }
}
