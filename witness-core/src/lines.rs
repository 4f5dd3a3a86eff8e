//! The line table of a text: the start offset of each line, four bytes a line (issue 24: a
//! 1M-line file's table is 4 MB, not 8). Texts are at most `u32::MAX` bytes; the front end
//! refuses larger programs ([`MAX_TEXT`]).

use serde::Serialize;

/// The largest text a line table holds (4 GiB − 1 bytes).
pub const MAX_TEXT: usize = u32::MAX as usize;

/// Start offsets of a text's lines: line `i` (0-based) starts at [`LineStarts::at`]`(i)`. The
/// first line starts at 0; a final newline starts one more (empty) line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LineStarts(Vec<u32>);

impl LineStarts {
    /// The table of `text` (whose length is at most [`MAX_TEXT`]; longer texts' later offsets
    /// saturate).
    pub fn of(text: &str) -> Self {
        let mut v = Vec::with_capacity(text.bytes().filter(|b| *b == b'\n').count() + 1);
        v.push(0);
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                v.push(u32::try_from(i + 1).unwrap_or(u32::MAX));
            }
        }
        LineStarts(v)
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Start offset of line `i` (0-based).
    pub fn get(&self, i: usize) -> Option<usize> {
        self.0.get(i).map(|s| *s as usize)
    }

    /// Start offset of line `i` (0-based); panics when there is no such line, as indexing does.
    pub fn at(&self, i: usize) -> usize {
        self.0[i] as usize
    }

    /// Number of lines starting at or before `offset`: the 1-based line holding it.
    pub fn count_to(&self, offset: usize) -> usize {
        self.0.partition_point(|s| (*s as usize) <= offset)
    }

    /// The 0-based line holding `offset` (the last line for offsets past the end).
    pub fn index_of(&self, offset: usize) -> usize {
        self.count_to(offset).saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_offsets() {
        let t = LineStarts::of("ab\n\ncd\n");
        assert_eq!(t.len(), 4);
        assert_eq!((t.at(0), t.at(1), t.at(2), t.get(3), t.get(4)), (0, 3, 4, Some(7), None));
        assert_eq!([0, 2, 3, 4, 6, 7, 99].map(|o| t.index_of(o)), [0, 0, 1, 2, 2, 3, 3]);
        assert_eq!([0, 2, 3, 7].map(|o| t.count_to(o)), [1, 1, 2, 4]);
        assert_eq!(LineStarts::of("").len(), 1);
    }
}
