//! C harnesses for confirmed witnesses (issue 12, decision 77): a translation unit that, linked
//! with the program, makes its `__VERIFIER_nondet_*` calls return the confirmed trace's values
//! in call order, and reports reaching the error. Pure text generation: knows the CFA and the
//! trace, reads and writes nothing.
//!
//! Safety of the generated code: the only names written are `__VERIFIER_nondet_*` functions of
//! the program whose names are C identifiers, and the only values are integers written in
//! hexadecimal (floats as their IEEE bit patterns, copied with `memcpy`): nothing from the
//! witness becomes C text.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::cfa::{Cfa, EdgeOp, IntTy};
use crate::verdict::TraceStep;

mod threads;
pub use threads::{BLOCKED_STATUS, BLOCKED_TEXT, NOT_FOLLOWED_STATUS, NOT_FOLLOWED_TEXT};

/// The harness's first lines: what it is and how to build it.
const HEADER: &str = "/* Harness written by witness-check: the program's __VERIFIER_nondet_* calls return the run's
   values in call order. Build and run it with the program (add -m32 for ILP32 tasks):
       gcc -o replay program.c harness.c -lm && ./replay
   It defines nothing the program defines. Its error functions (reach_error, __VERIFIER_error,
   __assert_fail) are weak: where the program defines its own, the program's run (an assertion
   failure, an abort); where it does not, the harness prints \"harness: error reached\" and the
   address it was called from, flushes the program's output and exits with status 86.
   witness-check --replay compiles it with -DWITNESS_CHECK_REPLAY (the harness's error functions
   strong) and weakens the program's with objcopy --weaken-symbol, so that reaching any of them
   is reported the same way. */
";

/// Exit status of a harness run that reached the error.
pub const REACHED_STATUS: i32 = 86;
/// The error functions the harness defines; a replay weakens the program's own definitions of
/// them, so that the harness's report reaching them.
pub const ERROR_FUNCTIONS: [&str; 2] = ["reach_error", "__VERIFIER_error"];
/// What a harness prints (to standard error) when the error is reached, followed by the error
/// function in parentheses (`(reach_error)`, `(__assert_fail)`, `(__VERIFIER_error(7))`).
pub const REACHED_TEXT: &str = "harness: error reached";

/// What a harness prints (to standard error) after [`REACHED_TEXT`]: the address the error
/// function returns to (`0x…`, inside the call that reached it). `--replay` links without PIE
/// and resolves it with `addr2line` to the program's line (issue 32 cause 17: a replay
/// reproduces a confirmation only at the confirmed error's place).
pub const CALLED_FROM_TEXT: &str = "harness: error called from";

/// The error a replay must reach to reproduce a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectedError {
    /// The confirmation's call of an error function, with its error code when known.
    Call(crate::verdict::ErrorCall),
    /// Any of the property's error functions, never a failing assertion (a rejected witness
    /// whose input values alone reach an error).
    AnyErrorFunction,
    /// A violation that is no call of an error function (an overflow, a leak), in words: no
    /// native error call reproduces it.
    Other(String),
}

impl std::fmt::Display for ExpectedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpectedError::Call(crate::verdict::ErrorCall { function, code: Some(n) }) => write!(f, "{function}({n})"),
            ExpectedError::Call(crate::verdict::ErrorCall { function, code: None }) => f.write_str(function),
            ExpectedError::AnyErrorFunction => f.write_str("the property's error function"),
            ExpectedError::Other(what) => f.write_str(what),
        }
    }
}

/// Is the error a native run reached (`what`, as the harness prints it in parentheses:
/// `reach_error`, `__VERIFIER_error(7)`) the one a verdict names (issue 32 cause 17)? The
/// native text is read here, at the edge; the expectation is a value. A call whose code was not
/// known matches the function with any code.
pub fn same_error(expected: &ExpectedError, what: &str) -> bool {
    let (name, code) = match what.split_once('(') {
        Some((name, rest)) => (name.trim(), rest.strip_suffix(')').and_then(|n| n.trim().parse::<i128>().ok())),
        None => (what.trim(), None),
    };
    match expected {
        ExpectedError::Call(call) => name == call.function && (call.code.is_none() || code == call.code),
        ExpectedError::AnyErrorFunction => ERROR_FUNCTIONS.contains(&name),
        ExpectedError::Other(_) => false,
    }
}

/// The C return type of a nondet function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ret {
    Int(IntTy),
    Float(u32),
}

pub(crate) fn c_int_type(t: IntTy) -> &'static str {
    if t.is_bool {
        return "_Bool";
    }
    match (t.bits, t.signed) {
        (8, true) => "signed char",
        (8, false) => "unsigned char",
        (16, true) => "short",
        (16, false) => "unsigned short",
        (32, true) => "int",
        (32, false) => "unsigned int",
        (_, true) => "long long",
        (_, false) => "unsigned long long",
    }
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Issue 19, cause 12: the places where a confirmation rests on calling the nondet functions of
/// one call's arguments left to right (C leaves the order unspecified; gcc on x86 goes right
/// to left): a line, and the positions of its values in the harness's sequence. Only groups
/// whose values differ (otherwise the order changes nothing).
pub fn unordered_groups(cfa: &Cfa, trace: &[TraceStep]) -> Vec<(u32, std::ops::Range<usize>)> {
    let names = nondet_functions(cfa);
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut run: Option<(u32, usize, Vec<u64>)> = None;
    let close = |run: &mut Option<(u32, usize, Vec<u64>)>, out: &mut Vec<(u32, std::ops::Range<usize>)>| {
        if let Some((line, start, bits)) = run.take() {
            if bits.len() >= 2 && bits.iter().any(|b| *b != bits[0]) {
                out.push((line, start..start + bits.len()));
            }
        }
    };
    for s in trace {
        if run.as_ref().is_some_and(|r| r.0 != s.line) {
            close(&mut run, &mut out);
        }
        let value = s.nondet.as_ref().filter(|n| names.contains_key(&n.function)).and_then(|n| n.bits.map(|b| b.0));
        if let Some(bits) = value {
            if cfa.unordered_nondet.contains(&s.line) {
                run.get_or_insert((s.line, pos, Vec::new())).2.push(bits);
            }
            pos += 1;
        }
    }
    close(&mut run, &mut out);
    out
}

/// Every nondet function the program calls, with its return type.
pub(crate) fn nondet_functions(cfa: &Cfa) -> BTreeMap<String, Ret> {
    let mut functions: BTreeMap<String, Ret> = BTreeMap::new();
    for e in cfa.graph.edge_weights() {
        match &e.op {
            EdgeOp::NondetCall { function, ty, .. } => {
                functions.entry(function.clone()).or_insert(Ret::Int(*ty));
            }
            EdgeOp::FloatNondetCall { function, fty, .. } => {
                functions.entry(function.clone()).or_insert(Ret::Float(fty.bits()));
            }
            _ => {}
        }
    }
    functions.retain(|name, _| name.starts_with("__VERIFIER_nondet_") && is_identifier(name));
    functions
}

/// The harness for `trace` (a confirmation's trace) of the program `cfa`.
pub fn harness(cfa: &Cfa, trace: &[TraceStep]) -> String {
    harness_in_order(cfa, trace, &[])
}

/// Decision 161: the first line of the harness of a multi-threaded run whose schedule the
/// program's text cannot be instrumented to follow; the reason follows it, then ` */`.
pub const UNREPLAYABLE: &str = "/* witness-check: schedule not replayable: ";
/// The first line of the harness of a multi-threaded run that replays its schedule.
pub const THREADED: &str = "/* Harness written by witness-check for a multi-threaded run:";

/// The header of a multi-threaded harness (decision 161).
const THREADED_HEADER: &str =
    "/* Harness written by witness-check for a multi-threaded run: it holds a copy of the program
   with schedule points (calls of __wc_turn) inserted before the statements where the run's
   threads stop and resume, and a scheduler that grants the points one thread at a time in the
   run's order (threads numbered in creation order, main 0, as in the trace); the program's
   __VERIFIER_nondet_* calls return the run's values in call order. Build and run it (add -m32
   for ILP32 tasks):
       gcc -pthread -w -DWITNESS_CHECK_PROGRAM -c -o program.o harness.c
       gcc -pthread -w -o replay program.o harness.c -lm && ./replay
   Its error functions are weak as in a harness of one thread (the program's own run where it
   defines them; else \"harness: error reached\", status 86, once the run has taken the whole
   schedule). A run that leaves the schedule prints \"harness: schedule not followed\" (status
   87), one whose next step cannot be taken within 5 s \"harness: schedule blocked\" (status 88).
   witness-check --replay builds it so, with -DWITNESS_CHECK_REPLAY in the second command and
   the program object's error functions weakened with objcopy --weaken-symbol. */
";

/// The harness of a confirmation's `trace` of the program `cfa` (whose text is `source`): for a
/// run of several threads, one that replays its schedule (decision 161), else [`harness_in_order`].
pub fn harness_for(cfa: &Cfa, source: &str, trace: &[TraceStep], reversed: &[std::ops::Range<usize>]) -> String {
    if !threads::is_threaded(cfa, trace) {
        return harness_in_order(cfa, trace, reversed);
    }
    let schedule = match threads::schedule(cfa, source, trace) {
        Ok(s) => s,
        Err(why) => {
            // Only the values: a native run takes any schedule, so it proves nothing.
            return format!(
                "{UNREPLAYABLE}{why} */\n/* A native run of the harness below takes a schedule of its own, not the \
                 witness's: it shows nothing about the witness. */\n{}",
                harness_in_order(cfa, trace, reversed)
            );
        }
    };
    let mut out = String::new();
    out.push_str(THREADED_HEADER);
    out.push_str("#ifdef WITNESS_CHECK_PROGRAM\n/* The program, with the schedule points. */\n");
    out.push_str("void __wc_turn(int point);\n#define pthread_create __wc_pthread_create\n");
    out.push_str("#define pthread_exit __wc_pthread_exit\n#line 1\n");
    // Without line markers, so that gcc's debug lines are the file's lines (see
    // [`without_line_markers`]).
    let copy = threads::instrumented(source, &schedule);
    out.push_str(&without_line_markers(&copy).unwrap_or(copy));
    out.push_str("#else\n");
    out.push_str(&definitions(cfa, trace, reversed, Some(&threads::scheduler(&schedule))));
    out.push_str("#endif\n");
    out
}

/// The text with its line markers (`# 12 "file.c"`, `#line 12`) blanked, or `None` when it has
/// none. A replay compiles this text with `-g` and resolves where the error was called to a line
/// (issue 32 cause 17): gcc numbers lines as the markers say, the validator (and every witness)
/// by the file's own lines, so the markers go; the line count stays. Markers only name the places
/// of lines (`__LINE__`, diagnostics, debug information); nothing else of the program changes.
pub fn without_line_markers(text: &str) -> Option<String> {
    let is_marker = |l: &str| {
        let Some(rest) = l.trim_start().strip_prefix('#') else { return false };
        let rest = rest.trim_start();
        rest.starts_with(|c: char| c.is_ascii_digit())
            || rest.strip_prefix("line").is_some_and(|r| r.starts_with([' ', '\t']))
    };
    if !text.split('\n').any(is_marker) {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').map(|l| if is_marker(l) { "" } else { l }).collect();
    Some(lines.join("\n"))
}

/// The reason the schedule of a multi-threaded harness cannot be replayed, if it says one.
pub fn unreplayable(harness: &str) -> Option<&str> {
    let rest = harness.strip_prefix(UNREPLAYABLE)?;
    rest.split_once(" */").map(|(why, _)| why)
}

/// Whether the harness replays the schedule of a multi-threaded run.
pub fn is_threaded(harness: &str) -> bool {
    harness.starts_with(THREADED)
}

/// The harness with the values of each of `reversed` (positions in the value sequence) in
/// the opposite order: the run gcc makes when it calls those nondet functions right to left.
pub fn harness_in_order(cfa: &Cfa, trace: &[TraceStep], reversed: &[std::ops::Range<usize>]) -> String {
    let mut out = String::new();
    out.push_str(HEADER);
    out.push_str(&definitions(cfa, trace, reversed, None));
    out
}

/// The harness's definitions: the nondet functions returning the run's values, and the error
/// functions; with `scheduler`, its text goes before the error functions, which check first that
/// the run followed the schedule (decision 161).
fn definitions(cfa: &Cfa, trace: &[TraceStep], reversed: &[std::ops::Range<usize>], scheduler: Option<&str>) -> String {
    let functions = nondet_functions(cfa);
    let names: Vec<&String> = functions.keys().collect();
    // Each value with what it is, for the comment beside its bits (issue 35 item 9).
    let mut values: Vec<(usize, u64, String)> = trace
        .iter()
        .filter_map(|s| Some((s, s.nondet.as_ref()?)))
        .filter_map(|(s, n)| {
            let at = if s.line > 0 { format!(" at line {}", s.line) } else { String::new() };
            let what = format!("{}: {}{at}", n.value, n.function);
            Some((names.iter().position(|f| **f == n.function)?, n.bits?.0, what))
        })
        .collect();
    for r in reversed {
        if let Some(group) = values.get_mut(r.clone()) {
            group.reverse();
        }
    }

    let mut out = String::new();
    out.push_str("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\n");
    out.push_str(
        "/* The error functions below are weak unless WITNESS_CHECK_REPLAY is defined: the program's own\n   \
         definitions win. */\n#ifdef WITNESS_CHECK_REPLAY\n#define HARNESS_ERROR_FUNCTION\n#else\n\
         #define HARNESS_ERROR_FUNCTION __attribute__((weak))\n#endif\n\n",
    );
    let _ =
        writeln!(out, "static const int harness_function[] = {{{}}};", join(values.iter().map(|v| v.0.to_string())));
    // One value a line: its bits, then the value in C notation, the function and the line of the call.
    out.push_str("static const unsigned long long harness_bits[] = {");
    for (i, v) in values.iter().enumerate() {
        let comma = if i + 1 < values.len() { "," } else { "" };
        let _ = write!(out, "\n  0x{:x}ULL{comma} /* {} */", v.1, v.2.replace("*/", "* /"));
    }
    out.push_str(if values.is_empty() { "};\n" } else { "\n};\n" });
    let _ = writeln!(out, "static const unsigned long harness_count = {};", values.len());
    out.push_str("static unsigned long harness_pos;\n\n");
    out.push_str(
        "static unsigned long long harness_next(int function, const char *name) {\n  \
         if (harness_pos < harness_count && harness_function[harness_pos] == function)\n    \
         return harness_bits[harness_pos++];\n  \
         fprintf(stderr, \"harness: no value for call %lu (%s): 0\\n\", harness_pos, name);\n  \
         return 0;\n}\n\n",
    );
    for (i, (name, ret)) in functions.iter().enumerate() {
        match ret {
            Ret::Int(t) => {
                let ty = c_int_type(*t);
                let _ = writeln!(out, "{ty} {name}(void) {{ return ({ty}) harness_next({i}, \"{name}\"); }}");
            }
            Ret::Float(bits) => {
                let (ty, word) = if *bits == 32 { ("float", "unsigned int") } else { ("double", "unsigned long long") };
                let _ = writeln!(
                    out,
                    "{ty} {name}(void) {{ {word} b = ({word}) harness_next({i}, \"{name}\"); {ty} v; memcpy(&v, &b, sizeof v); return v; }}"
                );
            }
        }
    }
    // Nothing the program defines is defined again (the two link as they are).
    if !cfa.defines("__VERIFIER_assume") {
        out.push_str(
            "\nvoid __VERIFIER_assume(int c) {\n  if (!c) {\n    \
             fprintf(stderr, \"harness: an assumption is false: the run is not the witness's\\n\");\n    \
             exit(0);\n  }\n}\n\n",
        );
    }
    if let Some(text) = scheduler {
        out.push('\n');
        out.push_str(text);
        for f in ["__VERIFIER_atomic_begin", "__VERIFIER_atomic_end"] {
            if !cfa.defines(f) {
                let _ = writeln!(out, "void {f}(void) {{}}");
            }
        }
    }
    let check = if scheduler.is_some() { "  wc_at_error();\n" } else { "" };
    out.push_str(&error_functions(cfa, check));
    out
}

/// The harness's error functions (`__assert_fail` unless the program defines it, `reach_error`,
/// `__VERIFIER_error`): each reports reaching it, with the address it was called from, flushes
/// the program's output and exits with [`REACHED_STATUS`]; `check` runs first.
pub(crate) fn error_functions(cfa: &Cfa, check: &str) -> String {
    let mut out = String::new();
    // Where the error function was called from: the address it returns to (issue 32 cause 17).
    let from =
        format!("  fprintf(stderr, \"{CALLED_FROM_TEXT} 0x%lx\\n\", (unsigned long) __builtin_return_address(0));\n");
    let reached = |what: &str| {
        format!(
            "{check}  fprintf(stderr, \"{REACHED_TEXT} ({what})\\n\");\n{from}  fflush(NULL);\n  _exit({REACHED_STATUS});\n"
        )
    };
    // `__VERIFIER_error(code)` reports the code it received (RERS, issue 32 cause 17): a replay
    // reproduces a confirmation only when the native run reaches the same error.
    let reached_code = format!(
        "{check}  fprintf(stderr, \"{REACHED_TEXT} (__VERIFIER_error(%d))\\n\", code);\n{from}  fflush(NULL);\n  _exit({REACHED_STATUS});\n"
    );
    if !cfa.defines("__assert_fail") {
        out.push_str(
            "HARNESS_ERROR_FUNCTION void __assert_fail(const char *assertion, const char *file, unsigned int line, \
             const char *function) {\n",
        );
        out.push_str("  (void) assertion; (void) file; (void) line; (void) function;\n");
        out.push_str(&reached("__assert_fail"));
        out.push_str("}\n");
    }
    // Weak, so that they link with a program that defines them (every SV-COMP program defines
    // `reach_error`); the replay makes them strong and weakens the program's, so these win.
    for error in ERROR_FUNCTIONS {
        if error == "__VERIFIER_error" {
            let _ = writeln!(out, "HARNESS_ERROR_FUNCTION void {error}(int code) {{");
            out.push_str(&reached_code);
        } else {
            let _ = writeln!(out, "HARNESS_ERROR_FUNCTION void {error}(void) {{");
            out.push_str(&reached(error));
        }
        out.push_str("}\n");
    }
    out
}

fn join(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "0".into()
    } else {
        v.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expectation is a value (function and code); only the native run's text is read.
    #[test]
    fn the_same_error_is_the_same_function_and_code() {
        let call = |code| ExpectedError::Call(crate::verdict::ErrorCall { function: "__VERIFIER_error".into(), code });
        assert!(same_error(&call(Some(7)), "__VERIFIER_error(7)"));
        assert!(!same_error(&call(Some(7)), "__VERIFIER_error(17)"));
        assert!(!same_error(&call(Some(-1)), "__VERIFIER_error"));
        assert!(same_error(&call(None), "__VERIFIER_error(3)"));
        assert!(!same_error(&call(None), "reach_error"));
        assert!(same_error(&ExpectedError::AnyErrorFunction, "reach_error"));
        assert!(!same_error(&ExpectedError::AnyErrorFunction, "__assert_fail"));
        assert!(!same_error(&ExpectedError::Other("overflow at line 3".into()), "reach_error"));
    }

    #[test]
    fn line_markers_are_blanked_and_lines_kept() {
        let text = "# 1 \"a.c\"\nint x;\n  #  12 \"b.h\" 2\n#line 7\n#include <x.h>\n#lineno\nint y;";
        let out = without_line_markers(text).expect("markers");
        assert_eq!(out, "\nint x;\n\n\n#include <x.h>\n#lineno\nint y;");
        assert_eq!(without_line_markers("#include <x.h>\nint x; # 1\n"), None);
    }

    #[test]
    fn error_functions_say_where_they_were_called_from() {
        let src = "extern void reach_error(void);\nint main(void) { reach_error(); return 0; }\n";
        let program = crate::cfront::build_program(std::path::Path::new("p.c"), src, crate::cfa::DataModel::Lp64)
            .expect("the program builds");
        let text = harness(&program.cfa, &[]);
        let from = format!("{CALLED_FROM_TEXT} 0x%lx\\n\", (unsigned long) __builtin_return_address(0));");
        // `__assert_fail`, `reach_error` and `__VERIFIER_error`.
        assert_eq!(text.matches(&from).count(), 3, "{text}");
    }
}
