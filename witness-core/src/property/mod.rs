//! SV-COMP properties: the `.prp` file given to the validator and the `specification`
//! strings written inside witnesses (this file: text only, no file IO, never prints, never
//! panics on input), and what each property makes of a run's events ([`PropertyCheck`],
//! one file per property, registered in `CHECKS`).
//!
//! Both texts use lines of the form `CHECK( init(main()), LTL(G ! call(reach_error())) )`
//! (format digest §8).

use std::path::Path;

use crate::error::InputError;

mod check;
mod no_data_race;
mod no_overflow;
mod termination;
mod unreach_call;
mod valid_memcleanup;
mod valid_memsafety;

pub use check::{Classified, ErrorTarget, LeakRule, PropertyCheck, Shape};
pub use termination::is_termination;
pub use unreach_call::{with_error_code, UnreachCall};

/// A property file's constructor of its check: the check if the property is its own.
type FromProperty = fn(&Property) -> Option<ErrorTarget>;

/// The properties this validator checks, each in its own file, with its SV-COMP name: the first
/// whose formula the property is builds its check. A property is added by adding its file and
/// its line here.
const CHECKS: &[(&str, FromProperty)] = &[
    ("unreach-call", unreach_call::from_property),
    ("no-overflow", no_overflow::from_property),
    ("valid-memsafety", valid_memsafety::from_property),
    ("valid-memcleanup", valid_memcleanup::from_property),
    ("termination", termination::from_property),
    ("no-data-race", no_data_race::from_property),
];

/// The property names a confirmation may carry in its result `false(name)`: each check's own
/// name, and for valid-memsafety the line that is violated (decision 73).
const CONFIRMED_NAMES: &[&str] = &[
    "unreach-call",
    "no-overflow",
    "valid-deref",
    "valid-free",
    "valid-memtrack",
    "valid-memcleanup",
    "termination",
    "no-data-race",
];

/// Every result string `validate` can print after `RESULT:` (and in JSON's `result`): `true`,
/// `unknown`, `false(name)` for each name a confirmation may carry, and `error` (JSON only).
/// Issue 35 item 1: the BenchExec module must map each of them (`tests/benchexec.rs`).
pub fn result_strings() -> Vec<String> {
    let mut out: Vec<String> = vec!["true".into(), "unknown".into(), "error".into()];
    out.extend(CONFIRMED_NAMES.iter().map(|n| format!("false({n})")));
    out
}

/// The check of a parsed property; `None` if it is none this validator checks.
pub fn check_for(p: &Property) -> Option<ErrorTarget> {
    CHECKS.iter().find_map(|(_, from)| from(p))
}

/// The names of the properties this validator checks (for messages).
pub fn supported() -> String {
    CHECKS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}

/// The SV-COMP name of the property a formula is (as a witness's specification names it);
/// `None` if it is none this validator checks.
pub fn category(p: &Property) -> Option<&'static str> {
    check_for(p).map(|c| c.name())
}

/// The property a witness is validated against when no property file is given: termination
/// for a lasso, otherwise unreach-call with both conventional error functions.
pub fn without_property_file(lasso: bool) -> ErrorTarget {
    match lasso {
        true => ErrorTarget::new(termination::Termination),
        false => ErrorTarget::default_reach(),
    }
}

/// Which kind of property is to be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertyKind {
    /// `G ! call(f())`: no call of an error function (`reach_error`, `__VERIFIER_error`).
    UnreachCall,
    /// `G ! label(ERROR)` (historic): the label is never reached.
    UnreachLabel,
    /// `G ! overflow`: no signed integer arithmetic overflows (decision 72).
    NoOverflow,
    /// `G valid-free`, `G valid-deref`, `G valid-memtrack` (the lines of valid-memsafety.prp):
    /// memory safety (decision 73).
    MemSafety,
    /// `G valid-memcleanup`: every block is freed before the program ends (decision 74).
    MemCleanup,
    /// Any other formula (memory safety, overflow, termination, …), as written inside
    /// `LTL(…)`; several lines are joined with `\n`.
    Other(String),
}

/// A parsed property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    /// For [`PropertyKind::UnreachCall`]: the functions whose call is the violation, e.g.
    /// `["reach_error"]` (all unreach-call lines of the file, in order, without duplicates).
    /// For [`PropertyKind::UnreachLabel`]: the label names (normally `["ERROR"]`).
    /// Empty for [`PropertyKind::Other`].
    pub error_functions: Vec<String>,
    pub kind: PropertyKind,
}

/// One `CHECK( init(f()), LTL(formula) )` line, split up.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Formula {
    UnreachCall(String),
    UnreachLabel(String),
    Other(String),
}

/// Parses a `CHECK( init(<entry>()), LTL(<formula>) )` line. Returns the formula, or a
/// message and the byte column (0-based) of the problem.
fn parse_check_line(line: &str) -> Result<Formula, (usize, String)> {
    let trimmed_start = line.len() - line.trim_start().len();
    let rest = line.trim_start();
    let after_check = strip_token(rest, "CHECK")
        .and_then(|r| strip_token(r, "("))
        .ok_or((trimmed_start, "expected 'CHECK('".to_string()))?;
    let after_init = strip_token(after_check, "init")
        .and_then(|r| strip_token(r, "("))
        .ok_or((col_of(line, after_check), "expected 'init('".to_string()))?;
    // Entry function call inside init( … ): skip to the matching ')'.
    let close = matching_paren(after_init)
        .ok_or((col_of(line, after_init), "unbalanced parentheses in 'init(…)'".to_string()))?;
    let after_init_close = &after_init[close + 1..];
    let after_comma = strip_token(after_init_close, ",")
        .ok_or((col_of(line, after_init_close), "expected ',' after 'init(…)'".to_string()))?;
    let after_ltl = strip_token(after_comma, "LTL")
        .and_then(|r| strip_token(r, "("))
        .ok_or((col_of(line, after_comma), "expected 'LTL('".to_string()))?;
    let close =
        matching_paren(after_ltl).ok_or((col_of(line, after_ltl), "unbalanced parentheses in 'LTL(…)'".to_string()))?;
    let formula = after_ltl[..close].trim();
    let tail = &after_ltl[close + 1..];
    if strip_token(tail, ")").map(str::trim) != Some("") {
        return Err((col_of(line, tail), "expected ')' closing 'CHECK(' at the end of the line".to_string()));
    }
    Ok(classify(formula))
}

/// Byte column of a suffix `sub` of `line`.
fn col_of(line: &str, sub: &str) -> usize {
    line.len().saturating_sub(sub.len())
}

/// Skips white space, then `token`.
fn strip_token<'a>(s: &'a str, token: &str) -> Option<&'a str> {
    s.trim_start().strip_prefix(token)
}

/// Index of the `)` closing an already opened `(` at depth 1.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Classifies an LTL formula.
fn classify(formula: &str) -> Formula {
    let compact: String = formula.chars().filter(|c| !c.is_whitespace()).collect();
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    if let Some(f) = compact.strip_prefix("G!call(").and_then(|r| r.strip_suffix("())")) {
        if ident(f) {
            return Formula::UnreachCall(f.to_string());
        }
    }
    if let Some(l) = compact.strip_prefix("G!label(").and_then(|r| r.strip_suffix(')')) {
        if ident(l) {
            return Formula::UnreachLabel(l.to_string());
        }
    }
    Formula::Other(formula.to_string())
}

/// Combines the formulas of several lines: all unreach-call lines if there is one, else all
/// unreach-label lines, else the other formulas.
fn combine(formulas: Vec<Formula>) -> Option<Property> {
    let mut calls: Vec<String> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    for f in formulas {
        let (list, name) = match f {
            Formula::UnreachCall(n) => (&mut calls, n),
            Formula::UnreachLabel(n) => (&mut labels, n),
            Formula::Other(n) => (&mut others, n),
        };
        if !list.contains(&name) {
            list.push(name);
        }
    }
    if !calls.is_empty() {
        Some(Property { error_functions: calls, kind: PropertyKind::UnreachCall })
    } else if !labels.is_empty() {
        Some(Property { error_functions: labels, kind: PropertyKind::UnreachLabel })
    } else if !others.is_empty()
        && others.iter().all(|f| {
            matches!(
                f.split_whitespace().collect::<String>().as_str(),
                "Gvalid-free" | "Gvalid-deref" | "Gvalid-memtrack"
            )
        })
    {
        Some(Property { error_functions: Vec::new(), kind: PropertyKind::MemSafety })
    } else if !others.is_empty()
        && others.iter().all(|f| f.split_whitespace().collect::<String>() == "Gvalid-memcleanup")
    {
        Some(Property { error_functions: Vec::new(), kind: PropertyKind::MemCleanup })
    } else if !others.is_empty() && others.iter().all(|f| f.split_whitespace().collect::<String>() == "G!overflow") {
        Some(Property { error_functions: Vec::new(), kind: PropertyKind::NoOverflow })
    } else if !others.is_empty() {
        Some(Property { error_functions: Vec::new(), kind: PropertyKind::Other(others.join("\n")) })
    } else {
        None
    }
}

/// Is this line a comment or blank?
fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with("//") || t.starts_with('#')
}

/// Parses the text of a `.prp` property file. Blank lines and comment lines (`//`, `#`)
/// are skipped; every other line must be a `CHECK( init(…), LTL(…) )` line.
pub fn parse_property(path: &Path, text: &str) -> Result<Property, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut formulas = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if is_comment_or_blank(line) {
            continue;
        }
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        match parse_check_line(line) {
            Ok(f) => formulas.push(f),
            Err((at, msg)) => {
                // The byte column of the problem, as a column in characters (issue 33).
                let col = crate::lines::LineStarts::of(line).column(at);
                return Err(InputError::malformed(path, line_no, col, msg));
            }
        }
    }
    combine(formulas)
        .ok_or_else(|| InputError::invalid(path, "the property file contains no 'CHECK( init(…), LTL(…) )' line"))
}

/// Interprets the `specification` text of a witness. Returns `None` if it holds no
/// `CHECK(…)` line (e.g. CPAchecker writes its automaton specification text there).
/// Lines that are not `CHECK` lines are ignored.
pub fn property_from_specification(spec: &str) -> Option<Property> {
    let formulas: Vec<Formula> =
        spec.lines().filter(|l| !is_comment_or_blank(l)).filter_map(|l| parse_check_line(l).ok()).collect();
    combine(formulas)
}

#[cfg(test)]
mod result_tests {
    use super::*;

    /// Each property a check is registered for has its confirmations among the result strings
    /// (valid-memsafety through its three lines).
    #[test]
    fn every_checked_property_has_its_result_strings() {
        let results = result_strings();
        for (name, _) in CHECKS {
            let names: &[&str] =
                if *name == "valid-memsafety" { &["valid-deref", "valid-free", "valid-memtrack"] } else { &[name] };
            for n in names {
                assert!(results.contains(&format!("false({n})")), "{n}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_check_answers_to_its_name() {
        let memsafety = "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n\
                         CHECK( init(main()), LTL(G valid-memtrack) )\n";
        let cases = [
            ("CHECK( init(main()), LTL(G ! call(reach_error())) )", "unreach-call"),
            ("CHECK( init(main()), LTL(G ! overflow) )", "no-overflow"),
            (memsafety, "valid-memsafety"),
            ("CHECK( init(main()), LTL(G valid-memcleanup) )", "valid-memcleanup"),
            ("CHECK( init(main()), LTL(F end) )", "termination"),
            ("CHECK( init(main()), LTL(G ! data-race) )", "no-data-race"),
        ];
        for (text, name) in cases {
            let p = parse_property(Path::new("p.prp"), text).unwrap();
            assert_eq!(category(&p), Some(name), "{text}");
        }
        let names: Vec<&str> = cases.iter().map(|c| c.1).collect();
        assert_eq!(supported(), names.join(", "));
        assert_eq!(category(&parse_property(Path::new("p.prp"), "CHECK( init(main()), LTL(F G x) )").unwrap()), None);
    }

    fn p(text: &str) -> Result<Property, InputError> {
        parse_property(Path::new("test.prp"), text)
    }

    #[test]
    fn no_overflow() {
        let prop = p("CHECK( init(main()), LTL(G ! overflow) )\n").unwrap();
        assert_eq!(prop.kind, PropertyKind::NoOverflow);
        let both = p("CHECK( init(main()), LTL(G ! overflow) )\nCHECK( init(main()), LTL(G valid-free) )\n").unwrap();
        assert!(matches!(both.kind, PropertyKind::Other(_)));
    }

    #[test]
    fn unreach_call_reach_error() {
        let prop = p("CHECK( init(main()), LTL(G ! call(reach_error())) )\n").unwrap();
        assert_eq!(prop.kind, PropertyKind::UnreachCall);
        assert_eq!(prop.error_functions, vec!["reach_error"]);
    }

    #[test]
    fn unreach_call_verifier_error_compact_spacing() {
        let prop = p("CHECK(init(main()),LTL(G!call(__VERIFIER_error())))").unwrap();
        assert_eq!(prop.kind, PropertyKind::UnreachCall);
        assert_eq!(prop.error_functions, vec!["__VERIFIER_error"]);
    }

    #[test]
    fn several_lines_comments_and_blank_lines() {
        let text = "// a comment\n\n# another\nCHECK( init(main()), LTL(G ! call(reach_error())) )\r\n\
                    CHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )\n\
                    CHECK( init(main()), LTL(G ! call(reach_error())) )\n";
        let prop = p(text).unwrap();
        assert_eq!(prop.kind, PropertyKind::UnreachCall);
        assert_eq!(prop.error_functions, vec!["reach_error", "__VERIFIER_error"]);
    }

    #[test]
    fn unreach_call_wins_over_other_lines() {
        let text = "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G ! call(reach_error())) )";
        let prop = p(text).unwrap();
        assert_eq!(prop.kind, PropertyKind::UnreachCall);
        assert_eq!(prop.error_functions, vec!["reach_error"]);
    }

    #[test]
    fn unreach_label() {
        let prop = p("CHECK( init(main()), LTL(G ! label(ERROR)) )").unwrap();
        assert_eq!(prop.kind, PropertyKind::UnreachLabel);
        assert_eq!(prop.error_functions, vec!["ERROR"]);
    }

    #[test]
    fn other_properties() {
        let text = "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\n\
                    CHECK( init(main()), LTL(G valid-memtrack) )\n";
        let prop = p(text).unwrap();
        assert_eq!(prop.kind, PropertyKind::MemSafety);
        let prop = p("CHECK( init(main()), LTL(G valid-memcleanup) )").unwrap();
        assert_eq!(prop.kind, PropertyKind::MemCleanup);
        assert!(prop.error_functions.is_empty());
        let prop = p("CHECK( init(main()), LTL(F end) )").unwrap();
        assert_eq!(prop.kind, PropertyKind::Other("F end".into()));
        let prop = p("CHECK( init(main()), LTL(G ! overflow) )").unwrap();
        assert_eq!(prop.kind, PropertyKind::NoOverflow);
    }

    #[test]
    fn bom_is_skipped() {
        let prop = p("\u{feff}CHECK( init(main()), LTL(G ! call(reach_error())) )").unwrap();
        assert_eq!(prop.kind, PropertyKind::UnreachCall);
    }

    #[test]
    fn garbage_line_is_malformed_with_position() {
        let err = p("CHECK( init(main()), LTL(G ! call(reach_error())) )\n  hello\n").unwrap_err();
        match err {
            InputError::Malformed { line, col, .. } => assert_eq!((line, col), (2, 3)),
            other => panic!("unexpected {other:?}"),
        }
        let err = p("CHECK( init(main()), LTL(G ! call(reach_error())) ").unwrap_err();
        assert!(matches!(err, InputError::Malformed { line: 1, .. }), "{err}");
        let err = p("CHECK( init(main()), LTL(G ! call(reach_error()) )").unwrap_err();
        assert!(matches!(err, InputError::Malformed { line: 1, .. }), "{err}");
        // Issue 33: the column counts characters (`ä` is two bytes): the text after `LTL(…)`.
        let line = "CHECK( init(mäin()), LTL(G ! call(reach_error())) ) x";
        let col = line[..line.find(" ) x").unwrap()].chars().count() as u32 + 1;
        assert!(matches!(p(line).unwrap_err(), InputError::Malformed { line: 1, col: c, .. } if c == col));
    }

    #[test]
    fn empty_file_is_invalid() {
        assert!(matches!(p(""), Err(InputError::Invalid { .. })));
        assert!(matches!(p("// only a comment\n\n"), Err(InputError::Invalid { .. })));
    }

    #[test]
    fn specification_strings() {
        let prop = property_from_specification("CHECK( init(main()), LTL(G ! call(reach_error())) )\n\n").unwrap();
        assert_eq!(prop.error_functions, vec!["reach_error"]);
        // CPAchecker automaton text instead of LTL.
        let spc = "// This automaton contains the specification of the\n// Competition on Software Verification.\n\
                   CONTROL AUTOMATON SVCOMP\nINITIAL STATE Init;\nSTATE USEFIRST Init :\n  \
                   MATCH {__VERIFIER_error($?)} -> ERROR(\"unreach-call: $rawstatement called in $location\");\nEND AUTOMATON\n";
        assert_eq!(property_from_specification(spc), None);
        assert_eq!(property_from_specification(""), None);
    }

    #[test]
    fn weird_input_never_panics() {
        for s in [
            "CHECK(",
            "CHECK(init(",
            "CHECK(init(main()),LTL(",
            "CHECK(init())),LTL())))",
            ")))",
            "CHECK(init(main()),LTL(G!call(())))",
        ] {
            let _ = p(s);
            let _ = property_from_specification(s);
        }
    }
}
