//! The line table of a text: the start offset of each line, four bytes a line (issue 24: a
//! 1M-line file's table is 4 MB, not 8). Texts are at most `u32::MAX` bytes; the front end
//! refuses larger programs ([`MAX_TEXT`]).
//!
//! It is also the one place where columns meet bytes (issue 33, decision 190). A column is a
//! 1-based count of *characters* (Unicode scalar values; a tab is one), as YAML witnesses count
//! them (format 2.0 §3); offsets are bytes. The table keeps the offsets of the bytes that
//! continue a multi-byte UTF-8 character (none in an ASCII text), so it converts both ways
//! without the text: [`LineStarts::column`] and [`LineStarts::position`] (offset → column),
//! [`LineStarts::offset_at`] (column → offset), [`LineStarts::line_chars`] (a line's length in
//! characters).

use serde::Serialize;

/// The largest text a line table holds (4 GiB − 1 bytes).
pub const MAX_TEXT: usize = u32::MAX as usize;

/// Start offsets of a text's lines: line `i` (0-based) starts at [`LineStarts::at`]`(i)`. The
/// first line starts at 0; a final newline starts one more (empty) line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LineStarts {
    starts: Vec<u32>,
    /// Offsets of the UTF-8 continuation bytes (`0b10xx_xxxx`), ascending: the bytes of a
    /// character after its first. Four bytes each, nothing for an ASCII text.
    continuations: Vec<u32>,
    /// Length of the text in bytes.
    text_len: u32,
}

/// Is `b` a byte that continues a UTF-8 character?
fn continues(b: u8) -> bool {
    b & 0xC0 == 0x80
}

impl LineStarts {
    /// The table of `text` (whose length is at most [`MAX_TEXT`]; longer texts' later offsets
    /// saturate).
    pub fn of(text: &str) -> Self {
        Self::of_bytes(text.as_bytes())
    }

    /// The table of a text given as bytes (a witness file, or the valid prefix of a file that is
    /// not UTF-8): a byte that is neither ASCII nor a continuation byte counts as one character.
    pub fn of_bytes(text: &[u8]) -> Self {
        let at = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        let mut starts = Vec::with_capacity(text.iter().filter(|b| **b == b'\n').count() + 1);
        starts.push(0);
        let mut continuations = Vec::new();
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' {
                starts.push(at(i + 1));
            } else if continues(b) {
                continuations.push(at(i));
            }
        }
        LineStarts { starts, continuations, text_len: at(text.len()) }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Start offset of line `i` (0-based).
    pub fn get(&self, i: usize) -> Option<usize> {
        self.starts.get(i).map(|s| *s as usize)
    }

    /// Start offset of line `i` (0-based); panics when there is no such line, as indexing does.
    pub fn at(&self, i: usize) -> usize {
        self.starts[i] as usize
    }

    /// Number of lines starting at or before `offset`: the 1-based line holding it.
    pub fn count_to(&self, offset: usize) -> usize {
        self.starts.partition_point(|s| (*s as usize) <= offset)
    }

    /// The 0-based line holding `offset` (the last line for offsets past the end).
    pub fn index_of(&self, offset: usize) -> usize {
        self.count_to(offset).saturating_sub(1)
    }

    /// Characters in the bytes `from..to`: the bytes less the continuation bytes among them.
    fn chars_between(&self, from: usize, to: usize) -> usize {
        if to <= from {
            return 0;
        }
        let first = |o: usize| self.continuations.partition_point(|c| (*c as usize) < o);
        (to - from) - (first(to) - first(from))
    }

    /// The end of line `i` (0-based): the offset of its newline, or the end of the text.
    fn line_end(&self, i: usize) -> Option<usize> {
        self.get(i)?;
        Some(self.get(i + 1).map_or(self.text_len as usize, |next| next - 1))
    }

    /// Length of line `i` (0-based) in characters, without its newline (a `\r` before it
    /// counts); `None` when there is no such line.
    pub fn line_chars(&self, i: usize) -> Option<usize> {
        Some(self.chars_between(self.get(i)?, self.line_end(i)?))
    }

    /// The 1-based column, in characters, of the byte at `offset` on its line (as in
    /// [`Self::position`]).
    pub fn column(&self, offset: usize) -> u32 {
        self.position(offset).1
    }

    /// The 1-based (line, column) of the byte at `offset`, the column in characters: one more
    /// than the characters before it on its line (a byte that continues a character, which no
    /// anchor is, counts as the next column, as a stray one in a text that is not UTF-8 does).
    /// Offsets past the end of the text are taken at its end.
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text_len as usize);
        let i = self.index_of(offset);
        let col = self.chars_between(self.get(i).unwrap_or(0), offset) + 1;
        (u32::try_from(i + 1).unwrap_or(u32::MAX), u32::try_from(col).unwrap_or(u32::MAX))
    }

    /// The byte offset of the character at 1-based `column` of 1-based `line`; the column just
    /// past the line's last character is its end (the newline). `None` when there is no such
    /// line, or the column is 0 or further right.
    pub fn offset_at(&self, line: u32, column: u32) -> Option<usize> {
        let i = (line as usize).checked_sub(1)?;
        let (start, end) = (self.get(i)?, self.line_end(i)?);
        let want = (column as usize).checked_sub(1)?;
        if want > self.chars_between(start, end) {
            return None;
        }
        // Each continuation byte at or before the candidate moves it one byte right.
        let mut o = start + want;
        let from = self.continuations.partition_point(|c| (*c as usize) < start);
        for &c in &self.continuations[from..] {
            if c as usize > o {
                break;
            }
            o += 1;
        }
        Some(o)
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

    /// Issue 33: columns count characters (a tab is one), offsets bytes; both directions agree.
    #[test]
    fn columns_are_characters() {
        let text = "int x;\n\t/* é */ y = \"ü€😀\"; z;\nlast";
        let t = LineStarts::of(text);
        let y = text.find('y').unwrap();
        // `\t/* é */ y`: the tab, `/* `, `é`, ` */ ` before `y`: 9 characters, 10 bytes.
        assert_eq!(t.position(y), (2, 10));
        assert_eq!(t.offset_at(2, 10), Some(y));
        let z = text.find('z').unwrap();
        assert_eq!(t.column(z), 10 + "y = \"ü€😀\"; ".chars().count() as u32);
        // Every character of the text round-trips, and its column is Rust's count of chars.
        for (o, _) in text.char_indices() {
            let (line, col) = t.position(o);
            let start = t.at(line as usize - 1);
            assert_eq!(col as usize, text[start..o].chars().count() + 1, "offset {o}");
            assert_eq!(t.offset_at(line, col), Some(o), "offset {o}");
        }
        // Line lengths in characters, without the newline; the column after the last character
        // is the line's end, one more is outside.
        let len = "\t/* é */ y = \"ü€😀\"; z;".chars().count();
        assert_eq!(
            (t.line_chars(0), t.line_chars(1), t.line_chars(2), t.line_chars(3)),
            (Some(6), Some(len), Some(4), None)
        );
        assert_eq!(t.offset_at(2, len as u32 + 1), Some(text.find("\nlast").unwrap()));
        assert_eq!(t.offset_at(2, len as u32 + 2), None);
        assert_eq!((t.offset_at(2, 0), t.offset_at(0, 1), t.offset_at(4, 1)), (None, None, None));
        assert_eq!(t.offset_at(3, 5), Some(text.len()));
        assert_eq!(t.position(text.len() + 10), (3, 5));
        // A byte inside a character counts as the next column.
        let e = text.find('é').unwrap();
        assert_eq!((t.column(e), t.column(e + 1), t.column(e + 2)), (5, 6, 6));
    }
}
