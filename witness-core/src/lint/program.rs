//! Facts about the program that program-aware lint checks need, computed once: hashes, line
//! and character counts (witnesslint's way and ours), and the CFA (built lazily, only when an
//! assumption is checked).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use sha1::Sha1;
use sha2::{Digest, Sha256};

use crate::cfa::{Cfa, DataModel};
use crate::cfront::{self, AssumptionScope};

/// The program a witness is linted against.
pub struct ProgramFacts {
    pub path: PathBuf,
    pub text: String,
    pub sha256: String,
    pub sha1: String,
    /// Characters per line (without the line break), lines numbered from 1 at index 0.
    line_chars: Vec<usize>,
    /// witnesslint's line count: the number of pieces of the text split at `\n` (a final
    /// newline counts one more line).
    pub witnesslint_lines: usize,
    /// Characters of the text (witnesslint's offset bound).
    pub chars: usize,
    cfa: OnceCell<Result<Cfa, String>>,
}

impl ProgramFacts {
    pub fn new(path: &Path, bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let line_chars = text.split('\n').map(|l| l.trim_end_matches('\r').chars().count()).collect::<Vec<_>>();
        ProgramFacts {
            path: path.to_path_buf(),
            sha256: format!("{:x}", Sha256::digest(bytes)),
            sha1: format!("{:x}", Sha1::digest(bytes)),
            witnesslint_lines: line_chars.len(),
            chars: text.chars().count(),
            line_chars,
            text,
            cfa: OnceCell::new(),
        }
    }

    /// Number of lines (a final newline does not start another line).
    pub fn lines(&self) -> usize {
        match self.line_chars.last() {
            Some(0) if self.line_chars.len() > 1 => self.line_chars.len() - 1,
            _ => self.line_chars.len(),
        }
    }

    /// Characters of a 1-based line, if it exists.
    pub fn line_len(&self, line: u32) -> Option<usize> {
        (line >= 1).then(|| self.line_chars.get(line as usize - 1).copied()).flatten()
    }

    /// Does the program mention a function of this name (defined, declared or called)? A
    /// textual check — the CFA leaves out functions `main` cannot reach (decision 61).
    pub fn mentions_function(&self, name: &str) -> bool {
        names_function(&self.text, name)
    }

    /// Does this 1-based line name the function `name` followed by `(` (a call, textually)?
    pub fn line_mentions_function(&self, line: u32, name: &str) -> bool {
        let Some(i) = (line as usize).checked_sub(1) else { return false };
        self.text.lines().nth(i).is_some_and(|l| names_function(l, name))
    }

    /// The CFA (built on first use with this data model); `Err` says why it cannot be built.
    pub fn cfa(&self, dm: DataModel) -> Result<&Cfa, &str> {
        self.cfa
            .get_or_init(|| cfront::build_program(&self.path, &self.text, dm).map(|p| p.cfa).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Why the conjuncts of an assumption do not lower, in the scope the witness names (else in
    /// the functions with a step on `line`, else globally): `(conjunct, reason)` for each
    /// conjunct that lowers in none of them. `Err` when the program has no CFA.
    pub fn assumption_problems(
        &self,
        dm: DataModel,
        text: &str,
        scope: Option<&str>,
        result_function: Option<&str>,
        line: Option<u32>,
    ) -> Result<Vec<(String, cfront::ConjunctError)>, String> {
        let cfa = self.cfa(dm).map_err(str::to_string)?;
        let result_ty = result_function.and_then(|f| cfront::function_result_type(cfa, f));
        let mut scopes: Vec<Option<crate::cfa::FuncId>> = Vec::new();
        match scope {
            Some(name) => match cfa.witness_function(name) {
                Some(f) => scopes.push(Some(f)),
                // Unknown or unreachable function: reported by the function-name check.
                None => return Ok(Vec::new()),
            },
            None => {
                if let Some(l) = line {
                    for e in cfa.graph.edge_weights() {
                        if e.span.is_some_and(|s| s.start_line <= l && l <= s.end_line)
                            && !scopes.contains(&Some(e.function))
                        {
                            scopes.push(Some(e.function));
                        }
                    }
                }
                if scopes.is_empty() {
                    scopes.push(Some(cfa.main));
                }
                scopes.push(None);
            }
        }
        let mut problems = Vec::new();
        let pieces = cfront::split_assumption(text);
        for piece in pieces {
            let mut last = None;
            let ok = scopes.iter().any(|&function| {
                let scope = AssumptionScope { function, offset: None, result_ty, ..Default::default() };
                match cfront::lower_assumption(cfa, &piece, &scope).into_iter().next() {
                    Some(Err(e)) => {
                        last = Some(e);
                        false
                    }
                    _ => true,
                }
            });
            if let (false, Some(why)) = (ok, last) {
                problems.push((piece, why));
            }
        }
        Ok(problems)
    }
}

/// `name` as a whole identifier followed (after blanks) by `(`, somewhere in `text`.
fn names_function(text: &str, name: &str) -> bool {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| i + from) {
        let before_ok = i == 0 || !is_ident(bytes[i - 1]);
        let mut j = i + name.len();
        let after_ident = j < bytes.len() && is_ident(bytes[j]);
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if before_ok && !after_ident && bytes.get(j) == Some(&b'(') {
            return true;
        }
        from = i + name.len();
    }
    false
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
