//! The witness linter (`witness-check lint`, decision 80): format checks of a witness on its
//! own, and program-aware checks when the program is given.
//!
//! * `graphml`: the checks of witnesslint 1.3 (sv-witnesses `lint/`, digest
//!   `shared/spec/witnesslint-checks.md` §2–§5) with the same triggers, on an XML tree
//!   (roxmltree), plus ours (§6.1) where they do not contradict witnesslint's verdict.
//! * `yaml`: the schema and consistency checks of format 2.x (§6.2), through the YAML reader
//!   of the validator (one reading of the format) plus metadata checks the reader tolerates.
//! * `program`: facts about the program (hashes, line lengths, functions, the CFA) and the
//!   checks that need them: lines and columns past the end, unknown functions, assumptions
//!   that do not lower in their scope.
//! * `invariants`: a correctness witness's invariants placed and lowered as `validate` does
//!   (decision 166).
//!
//! Verdict (decision 80): a witness is *faulty* when a finding of severity warning or error
//! exists — witnesslint's rule (exit code 1). Findings beyond witnesslint's that a valid
//! witness may have (program-aware details) are notes unless `strict` is set, as witnesslint's
//! own program checks run only under `--strictChecking`. Nothing here prints or panics.

use std::path::Path;

use serde::Serialize;

mod graphml;
mod invariants;
mod program;
mod threads;
mod yaml;

pub use program::ProgramFacts;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the witness is still valid.
    Note,
    /// A violation of the format (witnesslint's WARNING): the witness is faulty.
    Warning,
    /// The witness cannot be read or cannot mean anything: faulty.
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding, at a position of the witness (or of the program, `in_program`).
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// Check id of the digest (`X3`, `G6`, `Y9`, `L10`, …).
    pub check: &'static str,
    /// The position is in the program, not in the witness.
    pub in_program: bool,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub message: String,
}

/// Options of a lint run.
#[derive(Debug, Clone, Copy, Default)]
pub struct LintOptions {
    /// Program-aware findings (lines, offsets, function names, call stack, assumptions) count
    /// as warnings, like witnesslint's `--strictChecking`.
    pub strict: bool,
}

/// What the linter found.
#[derive(Debug, Clone, Serialize)]
pub struct LintReport {
    /// `GraphML 1.0`, `YAML 2.0`, … (`unknown` when neither).
    pub format: String,
    pub findings: Vec<Finding>,
    /// Metadata shown after the findings (witness type, producer, …), in order.
    pub overview: Vec<(String, String)>,
}

impl LintReport {
    /// witnesslint's rule: any warning or error makes the witness faulty.
    pub fn faulty(&self) -> bool {
        self.findings.iter().any(|f| f.severity >= Severity::Warning)
    }

    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

/// Collects findings; program-aware ones are notes unless strict.
pub(crate) struct Sink {
    findings: Vec<Finding>,
    strict: bool,
}

impl Sink {
    fn new(strict: bool) -> Self {
        Sink { findings: Vec::new(), strict }
    }

    pub(crate) fn push(&mut self, severity: Severity, check: &'static str, line: Option<u32>, message: String) {
        self.findings.push(Finding { severity, check, in_program: false, line, column: None, message });
    }

    pub(crate) fn at(&mut self, severity: Severity, check: &'static str, line: u32, column: u32, message: String) {
        self.findings.push(Finding {
            severity,
            check,
            in_program: false,
            line: Some(line),
            column: Some(column),
            message,
        });
    }

    /// A program-aware finding: warning under `strict`, else a note.
    pub(crate) fn detail(&mut self, check: &'static str, line: Option<u32>, message: String) {
        let severity = if self.strict { Severity::Warning } else { Severity::Note };
        self.push(severity, check, line, message);
    }

    /// [`Self::detail`] at a line and column.
    pub(crate) fn detail_at(&mut self, check: &'static str, line: u32, column: u32, message: String) {
        let severity = if self.strict { Severity::Warning } else { Severity::Note };
        self.at(severity, check, line, column, message);
    }
}

/// Lints a witness (raw bytes, possibly gzip-compressed GraphML), with the program if given.
pub fn lint(witness_path: &Path, bytes: &[u8], program: Option<&ProgramFacts>, opts: LintOptions) -> LintReport {
    let mut sink = Sink::new(opts.strict);
    let unzipped;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        match crate::witness::graphml::gunzip(witness_path, bytes) {
            Ok(b) => {
                unzipped = b;
                &unzipped[..]
            }
            Err(e) => {
                let message = match e {
                    crate::InputError::Malformed { message, .. } | crate::InputError::Invalid { message, .. } => {
                        message
                    }
                    crate::InputError::Io { source, .. } => source.to_string(),
                };
                sink.push(Severity::Error, "X1", None, message);
                return LintReport { format: "unknown".into(), findings: sink.findings, overview: Vec::new() };
            }
        }
    } else {
        bytes
    };
    let (format, overview) = if crate::witness::graphml::looks_like_graphml(bytes) {
        ("GraphML 1.0".to_string(), graphml::lint(witness_path, bytes, program, &mut sink))
    } else if crate::witness::yaml::looks_like_yaml(bytes) {
        yaml::lint(witness_path, bytes, program, &mut sink)
    } else {
        sink.push(
            Severity::Error,
            "X1",
            Some(1),
            "neither a GraphML document (<graphml> root) nor a YAML sequence of witness entries".into(),
        );
        ("unknown".to_string(), Vec::new())
    };
    LintReport { format, findings: sink.findings, overview }
}
