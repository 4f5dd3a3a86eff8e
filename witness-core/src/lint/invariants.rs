//! Issue 23: program-aware checks of a correctness witness's invariants (decision 166), shared
//! by both formats. Each invariant is placed exactly as `validate` places it
//! ([`crate::invariants::resolve_each`]) and lowered exactly as `validate` lowers it (in the
//! scope of its obligation, `\result` typed by the function for a postcondition), so a finding
//! here is a reason `validate` answers unknown, and no finding means both steps succeed.
//!
//! Severities follow the assumption checks (Y16/L10): an invariant that is no C expression at
//! all is an error; a location that matches nothing and an invariant unusable in its scope are
//! program-aware details (notes, warnings under `--strict`).

use super::{Severity, Sink};
use crate::cfa::Cfa;
use crate::cfront::lower_assumption;
use crate::invariants::{current_state_reading, resolve_each, Unchecked};
use crate::witness::{InvariantKind, WitnessAutomaton};

/// The check ids of one format.
pub(super) struct Codes {
    /// The invariant's location matches nothing in the program.
    pub place: &'static str,
    /// The invariant does not lower in its scope.
    pub lower: &'static str,
    /// The invariant is placed but `validate` cannot check it (a note: not a defect).
    pub unsupported: &'static str,
}

/// Checks every invariant of `w`. `position(i)` is the witness position (line, column) of the
/// `i`-th result of `resolve_each` (YAML invariants in order, then GraphML states with an
/// invariant in order).
pub(super) fn check(
    cfa: &Cfa,
    w: &WitnessAutomaton,
    codes: &Codes,
    position: &dyn Fn(usize) -> Option<(u32, u32)>,
    sink: &mut Sink,
) {
    for (i, placed) in resolve_each(cfa, w).into_iter().enumerate() {
        let at = position(i);
        let o = match placed {
            Ok(o) => o,
            Err(why) => {
                let sev = detail(sink);
                emit(sink, sev, codes.place, at, format!("{why}: `validate` cannot check it and answers unknown"));
                continue;
            }
        };
        if let Some(Unchecked::Unsupported(why)) = &o.unchecked {
            let msg = format!("{why} (`validate` never confirms the witness)");
            emit(sink, Severity::Note, codes.unsupported, at, msg);
        }
        let scope = o.lowering_scope(cfa);
        // A transition invariant was lowered when it was placed (`\at(e, AnyPrev)` read as `e`).
        let text = match o.kind {
            InvariantKind::LoopTransition | InvariantKind::LocationTransition => {
                current_state_reading(&o.text).unwrap_or_else(|_| o.text.clone())
            }
            _ => o.text.clone(),
        };
        let conjuncts = lower_assumption(cfa, &text, &scope);
        if conjuncts.is_empty() {
            let sev = detail(sink);
            emit(sink, sev, codes.lower, at, format!("the {} is empty", o.describe()));
        }
        let function = &cfa.function(o.scope).name;
        for why in conjuncts.into_iter().filter_map(Result::err) {
            // No C expression at all: malformed, as an assumption that does not parse.
            let sev = if super::graphml::is_syntax_error(&why) { Severity::Error } else { detail(sink) };
            emit(
                sink,
                sev,
                codes.lower,
                at,
                format!("the {} is not usable in the scope of `{function}`: {why}", o.describe()),
            );
        }
    }
}

/// A program-aware detail's severity: a warning under `--strict`, else a note.
fn detail(sink: &Sink) -> Severity {
    if sink.strict {
        Severity::Warning
    } else {
        Severity::Note
    }
}

fn emit(sink: &mut Sink, sev: Severity, check: &'static str, at: Option<(u32, u32)>, msg: String) {
    match at {
        Some((l, c)) => sink.at(sev, check, l, c, msg),
        None => sink.push(sev, check, None, msg),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::lint::{lint, LintOptions, ProgramFacts, Severity};

    const PROGRAM: &str =
        "unsigned int clamp(unsigned int v, unsigned int hi) {\n  if (v > hi) {\n    return hi;\n  }\n  \
                           return v;\n}\nint main(void) {\n  unsigned int y = clamp(7U, 5U);\n  return y > 5U;\n}\n";

    fn contract(requires: &str, ensures: &str, function: &str) -> String {
        format!(
            "- entry_type: invariant_set\n  metadata:\n    format_version: \"2.1\"\n    \
             uuid: \"5d0f3c2a-8e1b-4c7d-a6f9-3b2e1d0c9a87\"\n    creation_time: \"2025-01-01T00:00:00Z\"\n    \
             producer: {{ name: x, version: \"1\" }}\n    task: {{ input_files: [p.c], input_file_hashes: {{ p.c: x }}, \
             specification: s, data_model: LP64, language: C }}\n  content:\n  - contract:\n      type: function_contract\n      \
             location: {{ file_name: p.c, line: 1, column: 1, function: {function} }}\n      \
             requires: \"{requires}\"\n      ensures: \"{ensures}\"\n      format: acsl_expression\n"
        )
    }

    fn findings(witness: &str, strict: bool) -> Vec<(Severity, &'static str, Option<u32>, String)> {
        let p = ProgramFacts::new(Path::new("p.c"), PROGRAM.as_bytes());
        let r = lint(Path::new("w.yml"), witness.as_bytes(), Some(&p), LintOptions { strict });
        r.findings
            .into_iter()
            .filter(|f| f.check.starts_with("Y2"))
            .map(|f| (f.severity, f.check, f.line, f.message))
            .collect()
    }

    /// Decision 166: a contract is lowered as `validate` lowers it: `\result` typed by the
    /// function in `ensures` (no finding), the parameters in scope; `\result` in `requires` and
    /// an unknown name are findings at the item (Y23), notes unless `--strict`.
    #[test]
    fn contracts_are_lowered_in_their_function() {
        assert_eq!(findings(&contract("hi <= 50U", "\\\\result <= hi && \\\\result <= v", "clamp"), true), vec![]);
        let f = findings(&contract("\\\\result <= hi", "\\\\result <= lo", "clamp"), false);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().all(|(s, c, l, _)| (*s, *c, *l) == (Severity::Note, "Y23", Some(9))), "{f:?}");
        assert!(f[0].3.contains("precondition `\\result <= hi`"), "{f:?}");
        assert!(f[1].3.contains("postcondition `\\result <= lo`") && f[1].3.contains("`lo`"), "{f:?}");
        let strict = findings(&contract("\\\\result <= hi", "\\\\result <= lo", "clamp"), true);
        assert!(strict.iter().all(|(s, ..)| *s == Severity::Warning), "{strict:?}");
        // A contract of a function the program does not define cannot be placed (Y22).
        let f = findings(&contract("hi <= 50U", "1", "clump"), false);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().all(|(s, c, ..)| (*s, *c) == (Severity::Note, "Y22")), "{f:?}");
        assert!(f[0].3.contains("`clump`"), "{f:?}");
    }
}
