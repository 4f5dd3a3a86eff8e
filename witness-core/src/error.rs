//! Errors about the *input* (files the user gave us). Each carries the file and, where the
//! input is at fault at a specific place, the 1-based line and column.

use std::path::PathBuf;

/// A problem with an input file that prevents validation (exit code 3 in the binary).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be read.
    #[error("{}: cannot read file: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not well-formed at a position.
    #[error("{}:{line}:{col}: {message}", path.display())]
    Malformed { path: PathBuf, line: u32, col: u32, message: String },
    /// The file is well-formed but unusable as a whole (wrong witness type, witness for
    /// another program, no `main`, …).
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

impl InputError {
    pub fn malformed(path: impl Into<PathBuf>, line: u32, col: u32, message: impl Into<String>) -> Self {
        InputError::Malformed { path: path.into(), line, col, message: message.into() }
    }
    pub fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        InputError::Invalid { path: path.into(), message: message.into() }
    }
}

/// 1-based (line, column) of a byte offset in a text, the column in characters (issue 33: the
/// one unit of columns, [`crate::lines::LineStarts`]); offsets past the end are taken at the end.
pub fn line_col(text: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    crate::lines::LineStarts::of_bytes(&text[..offset]).position(offset)
}

/// Why one conjunct of a witness expression (an assumption, an invariant) cannot be used. A
/// typed fact: what the search does with the conjunct depends on the variant, never on the
/// text, which is rendered only for messages (issue 33).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConjunctError {
    /// Not a C expression: the conjunct as written and the parser's complaint (lint tells a
    /// syntax error from a scope problem by this variant).
    Syntax { piece: String, why: String },
    /// Its meaning is ambiguous: a run that meets it ends in unknown (neither dropping the
    /// conjunct nor reading it one way is safe).
    Ambiguous(String),
    /// It names no object of the program state at its step (an identifier no scope declares,
    /// a variable of a function not running): a claim about nothing the program has (decision
    /// 97), not a constraint the validator fails to evaluate.
    NoSuchObject(String),
    /// Anything else the validator cannot evaluate (an unsupported type or construct, an
    /// undefined evaluation): dropping it loosens the witness.
    Unsupported(String),
}

impl std::fmt::Display for ConjunctError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConjunctError::Syntax { piece, why } => write!(f, "cannot parse assumption `{piece}`: {why}"),
            ConjunctError::Ambiguous(m) => write!(f, "ambiguous: {m}"),
            ConjunctError::NoSuchObject(m) => write!(f, "names no object of the program here: {m}"),
            ConjunctError::Unsupported(m) => f.write_str(m),
        }
    }
}

impl From<String> for ConjunctError {
    fn from(m: String) -> Self {
        ConjunctError::Unsupported(m)
    }
}

impl From<&str> for ConjunctError {
    fn from(m: &str) -> Self {
        ConjunctError::Unsupported(m.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn line_col_counts_from_one() {
        let t = b"ab\ncd\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 1), (1, 2));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 4), (2, 2));
        assert_eq!(line_col(t, 100), (3, 1));
        // Columns count characters: the invalid byte after `é` (where UTF-8 decoding stops) is
        // in column 2 of line 2, though at byte 2 of the line.
        assert_eq!(line_col(b"x\n\xc3\xa9\xff", 4), (2, 2));
    }
}
