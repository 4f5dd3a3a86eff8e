//! Preparing the program text for lang-c: blanking comments (offset-preserving) or running
//! `gcc -E`, and mapping positions in the parsed text back to the original file.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::skip::Holes;
use crate::cfa::{DataModel, SourceSpan};
use crate::error::InputError;
use crate::lines::LineStarts;

/// The text lang-c parses, and how to map its offsets back to the given file.
///
/// Two steps: the *prepared* text (the file as given, or `gcc -E` output) and the *parsed* text,
/// which is the prepared text without the bodies of the functions `main` cannot reach
/// ([`super::skip`], decision 61), then with comments, pragmas and `__int128` blanked (offset
/// preserving). Offsets lang-c reports are offsets of the parsed text;
/// [`Prepared::to_prepared`] maps them back through the hole table first.
pub struct Prepared {
    /// Text handed to lang-c (the parsed text).
    pub text: String,
    /// Removed body interiors: parsed-text offsets → prepared-text offsets.
    holes: Holes,
    /// The functions whose bodies were removed, with the prepared-text range of the interior.
    pub skipped: Vec<(String, usize, usize)>,
    /// Offsets in `text` are offsets in the original file.
    pub exact: bool,
    /// For `gcc -E` output: per line of `text`, the original line (1-based) or `None` when the
    /// line comes from another file (header) or is a linemarker.
    line_map: Vec<Option<u32>>,
    /// Start offsets of the lines of the prepared text (`gcc -E` output; empty when `exact`).
    text_line_starts: LineStarts,
    /// Start offsets of the lines of the original file.
    orig_line_starts: LineStarts,
    /// `gcc -E` output: the original file with comments blanked, to map columns of aligned lines.
    orig_blanked: String,
    /// `gcc -E` output as gcc wrote it (before bodies were removed), for the same purpose.
    prepared: String,
    /// `gcc -E` output: per line of `text`, whether its non-blank characters are exactly those
    /// of its original line (no macro expanded, no line spliced): then columns map one to one
    /// by counting non-blank characters (issue 19, cause 2).
    aligned: Vec<bool>,
    /// `gcc -E` output: per original line (index line − 1), whether offsets on it are exact
    /// (every output line from it is aligned). Empty when `exact`.
    pub exact_lines: Vec<bool>,
    orig_len: usize,
    pub warnings: Vec<String>,
    /// Parsed-text offset of the first `#pragma pack` (blanked for lang-c; it changes struct
    /// layouts). A body holding a `#` line is never removed, so none is lost.
    pub pragma_pack: Option<usize>,
    /// Parsed-text offsets of the `__int128` / `__int128_t` / `__uint128_t` tokens rewritten
    /// to `_Complex` (see [`rewrite_int128`]).
    pub int128_at: Vec<usize>,
    /// Parsed-text offsets of the GNU storage class `__thread` (issue 22), blanked for lang-c
    /// (which parses only C11's `_Thread_local`); a declaration holding one declares
    /// thread-local variables.
    pub thread_at: Vec<usize>,
}

impl Prepared {
    /// A text parsed as it is (a witness expression in its wrapper): offsets are exact.
    pub fn verbatim(text: String) -> Prepared {
        let (starts, len) = (LineStarts::of(&text), text.len());
        Prepared::exact(text, starts, len)
    }

    /// The parsed text `text` of a file of `orig_len` bytes whose offsets it keeps (no `gcc -E`),
    /// with nothing removed or rewritten yet.
    fn exact(text: String, orig_line_starts: LineStarts, orig_len: usize) -> Prepared {
        Prepared {
            holes: Holes::default(),
            skipped: Vec::new(),
            text_line_starts: LineStarts::default(),
            line_map: Vec::new(),
            exact: true,
            orig_blanked: String::new(),
            prepared: String::new(),
            aligned: Vec::new(),
            exact_lines: Vec::new(),
            orig_line_starts,
            orig_len,
            text,
            warnings: Vec::new(),
            pragma_pack: None,
            int128_at: Vec::new(),
            thread_at: Vec::new(),
        }
    }

    /// The start offsets of the lines of the given file, taken (for the CFA, once lowering
    /// is done; nothing maps offsets afterwards).
    pub fn take_orig_line_starts(&mut self) -> LineStarts {
        std::mem::take(&mut self.orig_line_starts)
    }

    /// Start offsets of the prepared text's lines.
    fn prepared_line_starts(&self) -> &LineStarts {
        if self.exact {
            &self.orig_line_starts
        } else {
            &self.text_line_starts
        }
    }

    /// The prepared-text offset of an offset of the parsed text.
    pub fn to_prepared(&self, offset: usize) -> usize {
        if self.holes.is_empty() {
            return offset;
        }
        self.holes.map(offset, self.prepared_line_starts())
    }

    /// Maps a half-open byte range of the parsed text to a span of the original file.
    /// `None` when the range lies outside the original file (headers).
    pub fn span(&self, start: usize, end: usize) -> Option<SourceSpan> {
        if start == usize::MAX || end < start {
            return None;
        }
        let last = if end > start { end - 1 } else { start };
        let (start, last) = (self.to_prepared(start), self.to_prepared(last));
        if self.exact {
            if start >= self.orig_len.max(1) && self.orig_len > 0 {
                return None;
            }
            let last = last.min(self.orig_len.saturating_sub(1));
            let sl = self.orig_line_starts.index_of(start) as u32 + 1;
            let el = self.orig_line_starts.index_of(last) as u32 + 1;
            return Some(SourceSpan { start_line: sl, end_line: el, start_offset: start, end_offset: last });
        }
        let (sl, sc) = self.map_offset(start)?;
        let (el, ec) = match self.map_offset(last) {
            Some(x) if x.0 >= sl => x,
            _ => (sl, sc),
        };
        let so = self.orig_at(sl, sc);
        let eo = self.orig_at(el, ec).max(so);
        Some(SourceSpan { start_line: sl, end_line: el, start_offset: so, end_offset: eo })
    }

    /// Offset of the original file at a line (1-based) and column (0-based), within the line.
    fn orig_at(&self, line: u32, col: usize) -> usize {
        let i = (line as usize).saturating_sub(1);
        let ls = self.orig_line_starts.get(i).unwrap_or(self.orig_len);
        let le = self.orig_line_starts.get(i + 1).map(|x| x.saturating_sub(1)).unwrap_or(self.orig_len);
        (ls + col).min(le.max(ls))
    }

    /// Original-file byte ranges of the removed body interiors (decision 61), those of
    /// headers left out.
    pub fn skipped_bodies(&self) -> Vec<(usize, usize)> {
        let orig = |o: usize| -> Option<usize> {
            if self.exact {
                return Some(o);
            }
            let (l, c) = self.map_offset(o)?;
            Some(self.orig_at(l, c))
        };
        self.skipped.iter().filter_map(|(_, s, e)| Some((orig(*s)?, orig(e.saturating_sub(1))? + 1))).collect()
    }

    /// Original (line, 0-based column) of an offset of the prepared text (`gcc -E` output). On
    /// an aligned line the column is the original one (the same count of non-blank characters
    /// before it); elsewhere it is the output line's column, an approximation.
    fn map_offset(&self, offset: usize) -> Option<(u32, usize)> {
        let i = self.text_line_starts.index_of(offset);
        let line = (*self.line_map.get(i)?)?;
        let col = offset - self.text_line_starts.at(i);
        if self.aligned.get(i).copied().unwrap_or(false) {
            let out_line = &self.prepared.as_bytes()[self.text_line_starts.at(i)..offset.min(self.prepared.len())];
            let before = out_line.iter().filter(|b| !b.is_ascii_whitespace()).count();
            let l = line as usize - 1;
            let start = self.orig_line_starts.at(l);
            let end = self.orig_line_starts.get(l + 1).unwrap_or(self.orig_blanked.len());
            let orig = &self.orig_blanked.as_bytes()[start..end];
            let mut seen = 0;
            for (c, b) in orig.iter().enumerate() {
                if b.is_ascii_whitespace() {
                    continue;
                }
                if seen == before {
                    return Some((line, c));
                }
                seen += 1;
            }
        }
        Some((line, col))
    }

    /// Original 1-based (line, column) of an offset of the parsed text, for error messages; the
    /// column in characters (issue 33).
    pub fn error_position(&self, offset: usize) -> (u32, u32) {
        let offset = self.to_prepared(offset);
        if self.exact {
            return self.orig_line_starts.position(offset);
        }
        match self.map_offset(offset) {
            Some((l, c)) => (l, self.orig_line_starts.column(self.orig_at(l, c))),
            None => {
                let i = self.text_line_starts.index_of(offset);
                // Look backwards for the last mapped line (the #include that pulled in the header).
                let l = self.line_map[..=i.min(self.line_map.len().saturating_sub(1))]
                    .iter()
                    .rev()
                    .find_map(|x| *x)
                    .unwrap_or(1);
                (l, 1)
            }
        }
    }
}

/// Overwrites comments and a UTF-8 BOM with spaces, keeping newlines and every byte offset.
pub fn blank_comments(text: &str) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    let n = b.len();
    let mut i = 0;
    if b.starts_with(&[0xEF, 0xBB, 0xBF]) {
        b[0] = b' ';
        b[1] = b' ';
        b[2] = b' ';
        i = 3;
    }
    while i < n {
        match b[i] {
            b'"' | b'\'' => i = skip_literal(&b, i),
            b'/' if i + 1 < n && b[i + 1] == b'/' => {
                while i < n && b[i] != b'\n' {
                    if b[i] == b'\\' && i + 1 < n && b[i + 1] == b'\n' {
                        b[i] = b' ';
                        i += 2;
                        continue;
                    }
                    if b[i] == b'\\' && i + 2 < n && b[i + 1] == b'\r' && b[i + 2] == b'\n' {
                        b[i] = b' ';
                        b[i + 1] = b' ';
                        i += 3;
                        continue;
                    }
                    b[i] = b' ';
                    i += 1;
                }
            }
            b'/' if i + 1 < n && b[i + 1] == b'*' => {
                b[i] = b' ';
                b[i + 1] = b' ';
                i += 2;
                while i < n && !(b[i] == b'*' && i + 1 < n && b[i + 1] == b'/') {
                    if b[i] != b'\n' {
                        b[i] = b' ';
                    }
                    i += 1;
                }
                if i < n {
                    b[i] = b' ';
                    if i + 1 < n {
                        b[i + 1] = b' ';
                    }
                    i += 2;
                }
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes of comments were replaced by spaces and multi-byte sequences inside
    // comments were replaced entirely, so the result is still UTF-8; be defensive anyway.
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Whether a (comment-blanked) text has preprocessor directives that need `gcc -E`.
/// Linemarkers (`# 12 "file"`) and `#pragma` are not counted.
pub fn has_directives(blanked: &str) -> bool {
    blanked.lines().any(|l| {
        let t = l.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            return false;
        };
        let rest = rest.trim_start();
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        !word.is_empty() && word != "pragma" && word != "ident"
    })
}

/// Replaces `#pragma`/`#ident` lines (which lang-c cannot parse) by spaces. Returns the offset
/// of the first `#pragma pack`, which changes struct layouts (decision 57).
fn blank_pragmas(text: &mut String) -> Option<usize> {
    if !text.contains("#pragma") && !text.contains("#ident") && !text.contains("# pragma") {
        return None;
    }
    let mut pack = None;
    let mut out = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        let t = l.trim_start();
        let is_pragma = t.strip_prefix('#').map(|r| {
            let r = r.trim_start();
            if pack.is_none() && r.strip_prefix("pragma").is_some_and(|p| p.trim_start().starts_with("pack")) {
                pack = Some(out.len());
            }
            r.starts_with("pragma") || r.starts_with("ident")
        });
        if is_pragma == Some(true) {
            for c in l.chars() {
                if c == '\n' || c == '\r' {
                    out.push(c);
                } else {
                    for _ in 0..c.len_utf8() {
                        out.push(' ');
                    }
                }
            }
        } else {
            out.push_str(l);
        }
    }
    *text = out;
    pack
}

/// Offers each identifier-like token outside string and character literals to `f`, which may
/// overwrite its bytes with ASCII of the same length (so every offset stays exact) and says
/// whether it did; returns the offsets of the tokens it rewrote.
fn rewrite_tokens(text: &mut String, mut f: impl FnMut(&mut [u8]) -> bool) -> Vec<usize> {
    let mut b = std::mem::take(text).into_bytes();
    let mut at = Vec::new();
    let n = b.len();
    let is_id = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < n {
        match b[i] {
            b'"' | b'\'' => i = skip_literal(&b, i),
            c if is_id(c) => {
                let s = i;
                while i < n && is_id(b[i]) {
                    i += 1;
                }
                if f(&mut b[s..i]) {
                    at.push(s);
                }
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    *text = String::from_utf8(b).unwrap_or_default();
    at
}

/// GNU's 128-bit integer types, which lang-c does not parse: each token `__int128`,
/// `__int128_t`, `__uint128_t` outside literals is overwritten by `_Complex` and spaces (same
/// length, so every offset stays exact). `_Complex` is a type lang-c parses and the front end
/// does not model, so a use of either is an unsupported step naming both. Returns the offsets.
pub fn rewrite_int128(text: &mut String) -> Vec<usize> {
    if !text.contains("int128") {
        return Vec::new();
    }
    rewrite_tokens(text, |tok| {
        if !matches!(&*tok, b"__int128" | b"__int128_t" | b"__uint128_t") {
            return false;
        }
        tok[..8].copy_from_slice(b"_Complex");
        tok[8..].fill(b' ');
        true
    })
}

/// GNU's storage class `__thread` (issue 22): each token outside literals is overwritten by
/// spaces (same length, so every offset stays exact); the front end marks the variables of a
/// declaration holding one thread-local. Returns the offsets.
pub fn blank_thread_keyword(text: &mut String) -> Vec<usize> {
    if !text.contains("__thread") {
        return Vec::new();
    }
    rewrite_tokens(text, |tok| {
        if tok != b"__thread" {
            return false;
        }
        tok.fill(b' ');
        true
    })
}

/// Prepares `text` for parsing.
pub fn prepare(path: &Path, text: &str, dm: DataModel) -> Result<Prepared, InputError> {
    // Without a `#` there is no directive, and no full comment-blanked copy is made: the bodies
    // `main` cannot reach are removed from the file as given, and only the rest is blanked.
    let blanked = text.contains('#').then(|| blank_comments(text));
    if !blanked.as_deref().is_some_and(has_directives) {
        let (mut t, holes, skipped) = match super::skip::reduce(blanked.as_deref().unwrap_or(text)) {
            Some(r) => (blank_comments(&r.text), r.holes, r.skipped),
            None => (blanked.unwrap_or_else(|| blank_comments(text)), Holes::default(), Vec::new()),
        };
        // After `reduce`, whose tables are gone by now (a lower peak on large files).
        let orig_line_starts = LineStarts::of(text);
        let pragma_pack = blank_pragmas(&mut t);
        let int128_at = rewrite_int128(&mut t);
        let thread_at = blank_thread_keyword(&mut t);
        return Ok(Prepared {
            holes,
            skipped,
            pragma_pack,
            int128_at,
            thread_at,
            ..Prepared::exact(t, orig_line_starts, text.len())
        });
    }
    let orig_line_starts = LineStarts::of(text);
    let mut warnings = Vec::new();
    let out = match run_gcc(path, text, dm == DataModel::Ilp32) {
        Ok(o) => o,
        Err(GccError::Failed(msg)) if dm == DataModel::Ilp32 && looks_like_multilib(&msg) => {
            warnings.push(
                "gcc -m32 failed (32-bit headers missing?); preprocessed without -m32, header types may be LP64"
                    .to_string(),
            );
            run_gcc(path, text, false).map_err(|e| gcc_error(path, e))?
        }
        Err(e) => return Err(gcc_error(path, e)),
    };
    if out.len() > crate::lines::MAX_TEXT {
        let m = format!("`gcc -E` wrote {} bytes, more than the front end reads (4 GiB)", out.len());
        return Err(InputError::invalid(path, m));
    }
    let text_line_starts = LineStarts::of(&out);
    let line_map = build_line_map(&out);
    let orig_blanked = blanked.unwrap_or_else(|| blank_comments(text));
    let (aligned, exact_lines) = align_lines(&out, &text_line_starts, &line_map, &orig_blanked, &orig_line_starts);
    let prepared = out.clone();
    let (mut out, holes, skipped) = match super::skip::reduce(&out) {
        Some(r) => (r.text, r.holes, r.skipped),
        None => (out, Holes::default(), Vec::new()),
    };
    let pragma_pack = blank_pragmas(&mut out);
    let int128_at = rewrite_int128(&mut out);
    let thread_at = blank_thread_keyword(&mut out);
    Ok(Prepared {
        text: out,
        holes,
        skipped,
        exact: false,
        line_map,
        text_line_starts,
        orig_blanked,
        prepared,
        aligned,
        exact_lines,
        orig_line_starts,
        orig_len: text.len(),
        warnings,
        pragma_pack,
        int128_at,
        thread_at,
    })
}

/// Per output line of `gcc -E`, whether its non-blank characters are exactly those of the
/// original line it comes from; and per original line, whether every output line from it is.
fn align_lines(
    out: &str,
    out_starts: &LineStarts,
    line_map: &[Option<u32>],
    orig: &str,
    orig_starts: &LineStarts,
) -> (Vec<bool>, Vec<bool>) {
    let squeeze = |t: &str| -> Vec<u8> { t.bytes().filter(|b| !b.is_ascii_whitespace()).collect() };
    let line_text = |text: &'_ str, starts: &LineStarts, i: usize| -> (usize, usize) {
        let s = starts.at(i);
        let e = starts.get(i + 1).unwrap_or(text.len());
        (s, e)
    };
    let mut exact_lines = vec![true; orig_starts.len()];
    let mut seen = vec![0u32; orig_starts.len()];
    let mut aligned = vec![false; out_starts.len()];
    for (i, m) in line_map.iter().enumerate().take(out_starts.len()) {
        let Some(l) = m else { continue };
        let l = *l as usize;
        if l == 0 || l > orig_starts.len() {
            continue;
        }
        let (s, e) = line_text(out, out_starts, i);
        let (os, oe) = line_text(orig, orig_starts, l - 1);
        let ok = squeeze(&out[s..e]) == squeeze(&orig[os..oe]);
        aligned[i] = ok;
        seen[l - 1] += 1;
        if !ok || seen[l - 1] > 1 {
            exact_lines[l - 1] = false;
        }
    }
    (aligned, exact_lines)
}

fn looks_like_multilib(msg: &str) -> bool {
    msg.contains("No such file") || msg.contains("gnu/stubs-32") || msg.contains("fatal error")
}

enum GccError {
    Spawn(String),
    Failed(String),
}

fn gcc_error(path: &Path, e: GccError) -> InputError {
    match e {
        GccError::Spawn(m) => InputError::invalid(path, format!("cannot run gcc to preprocess the program: {m}")),
        GccError::Failed(msg) => {
            // First line like `<stdin>:3:10: fatal error: foo.h: No such file or directory`.
            for l in msg.lines() {
                if let Some(rest) = l.strip_prefix("<stdin>:") {
                    let mut it = rest.splitn(3, ':');
                    let line = it.next().and_then(|x| x.trim().parse::<u32>().ok());
                    let col = it.next().and_then(|x| x.trim().parse::<u32>().ok());
                    if let (Some(line), Some(col)) = (line, col) {
                        let m = it.next().unwrap_or("").trim().to_string();
                        return InputError::malformed(path, line, col, format!("preprocessor: {m}"));
                    }
                }
            }
            let first = msg.lines().next().unwrap_or("gcc -E failed").to_string();
            InputError::malformed(path, 1, 1, format!("preprocessor: {first}"))
        }
    }
}

fn run_gcc(path: &Path, text: &str, m32: bool) -> Result<String, GccError> {
    let mut cmd = Command::new("gcc");
    cmd.arg("-E").arg("-x").arg("c");
    if m32 {
        cmd.arg("-m32");
    }
    // glibc's 32-bit <stddef.h> declares a `__float128` member in `max_align_t`, a type lang-c
    // does not parse: read it as `long double` (not modelled either, so a use stays unknown).
    cmd.arg("-D__float128=long double");
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            cmd.arg("-iquote").arg(dir);
        }
    }
    cmd.arg("-");
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| GccError::Spawn(e.to_string()))?;
    let mut stdin = child.stdin.take().ok_or_else(|| GccError::Spawn("no stdin".into()))?;
    let input = text.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().map_err(|e| GccError::Spawn(e.to_string()))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(GccError::Failed(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    String::from_utf8(out.stdout).map_err(|_| GccError::Failed("gcc -E output is not UTF-8".into()))
}

/// Per line of gcc output: the line of `<stdin>` it comes from (None for headers/markers).
fn build_line_map(out: &str) -> Vec<Option<u32>> {
    let mut map = Vec::new();
    let mut in_main = true;
    let mut line: u32 = 1;
    for l in out.split('\n') {
        if let Some((n, file)) = parse_marker(l) {
            in_main = file == "<stdin>";
            line = n;
            map.push(None);
            continue;
        }
        map.push(if in_main { Some(line) } else { None });
        line = line.saturating_add(1);
    }
    map
}

fn parse_marker(l: &str) -> Option<(u32, &str)> {
    let r = l.strip_prefix('#')?;
    let r = r.trim_start();
    let r = r.strip_prefix("line").map(|x| x.trim_start()).unwrap_or(r);
    let end = r.find(|c: char| !c.is_ascii_digit())?;
    if end == 0 {
        return None;
    }
    let n: u32 = r[..end].parse().ok()?;
    let r = r[end..].trim_start().strip_prefix('"')?;
    let close = r.find('"')?;
    Some((n, &r[..close]))
}

/// The index just past the string or character literal that starts (with its quote) at `i`; a
/// literal ends at its closing quote or, unterminated, at the end of its line.
/// Offset of the second of two `++`/`--` operator tokens in a row (white space between them
/// allowed), as C's longest-match lexing splits the text: `y----x`, `a+++++b`, `-- --x`. No C
/// expression has them: an increment or decrement needs a modifiable lvalue and yields none, and
/// two of them are not otherwise adjacent. lang-c's scannerless parser tries every split of such
/// a run into `--` and `-` and backtracks exponentially on it (40 characters: minutes), so the
/// front end reports it as the syntax error it is, before parsing. Literals, comments and lines
/// starting with `#` are skipped.
pub fn adjacent_increments(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let n = b.len();
    let (mut i, mut last_incdec, mut line_start) = (0, false, true);
    while i < n {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'#' if line_start => {
                while i < n && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        line_start = false;
        let incdec = match c {
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                false
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < n && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(n, |k| i + 2 + k + 2);
                continue;
            }
            b'+' | b'-' if b.get(i + 1) == Some(&c) => {
                if last_incdec {
                    return Some(i);
                }
                i += 2;
                true
            }
            _ if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) => {
                // A preprocessing number, signs after an exponent included (`1e-5`, `0x1p+3`).
                i += 1;
                while i < n {
                    let d = b[i];
                    let sign = matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                    if !(sign || d.is_ascii_alphanumeric() || d == b'_' || d == b'.') {
                        break;
                    }
                    i += 1;
                }
                false
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                while i < n && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                false
            }
            _ => {
                i += 1;
                false
            }
        };
        last_incdec = incdec;
    }
    None
}

pub(super) fn skip_literal(b: &[u8], mut i: usize) -> usize {
    let (q, n) = (b[i], b.len());
    i += 1;
    while i < n && b[i] != q && b[i] != b'\n' {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_increment_operators_in_a_row_are_found() {
        assert_eq!(adjacent_increments("x = y----z;"), Some(7));
        assert_eq!(adjacent_increments("x = a+++++b;"), Some(7));
        assert_eq!(adjacent_increments("x = -- --y;"), Some(7));
        assert_eq!(adjacent_increments("x = y-- --\n z;"), Some(8));
        // Valid C: one operator at a time, other tokens between, literals, exponents, `#` lines.
        for ok in [
            "x = a---b; y = a-- - --b; z = - - - -c; p->q--; i += ++j; k = x++ + ++y;",
            "s = \"----\"; c = '-'; d = 1e-5 - -2.0e--3; /* ---- */ // ++++\n",
            "# 1 \"a----b.h\"\nint v = 0x1p-3;\n",
        ] {
            assert_eq!(adjacent_increments(ok), None, "{ok}");
        }
    }

    #[test]
    fn blanking_keeps_offsets() {
        let t = "int x; // c\n/* a\n b */ char *s = \"//no\"; char c = '/'; /**/\n";
        let b = blank_comments(t);
        assert_eq!(b.len(), t.len());
        assert_eq!(b.matches('\n').count(), t.matches('\n').count());
        assert!(b.contains("\"//no\""));
        assert!(!b.contains("/*"));
        assert!(!has_directives(&b));
        assert!(has_directives("  #  include <stdio.h>\n"));
        assert!(!has_directives("# 1 \"x.c\"\n"));
        assert!(!has_directives(&blank_comments("// #include <x>\n")));
    }

    #[test]
    fn lines_without_macros_keep_their_columns_after_gcc() {
        let orig = "#define ONE 1\nint a = ONE;\nint  b =  2; /* c */\n";
        let out = "# 1 \"<stdin>\"\n\nint a = 1;\nint b = 2;\n";
        let starts = LineStarts::of(out);
        let map = build_line_map(out);
        let blanked = blank_comments(orig);
        let (aligned, exact) = align_lines(out, &starts, &map, &blanked, &LineStarts::of(orig));
        // Line 2 expands `ONE`: not aligned; line 3 differs only in blanks and a comment.
        assert_eq!(aligned, vec![false, false, false, true, true]);
        assert_eq!(exact, vec![false, false, true, true]);
        let p = Prepared {
            text: out.to_string(),
            holes: Holes::default(),
            skipped: Vec::new(),
            exact: false,
            line_map: map,
            text_line_starts: starts.clone(),
            orig_line_starts: LineStarts::of(orig),
            orig_blanked: blanked,
            prepared: out.to_string(),
            aligned,
            exact_lines: exact,
            orig_len: orig.len(),
            warnings: Vec::new(),
            pragma_pack: None,
            int128_at: Vec::new(),
            thread_at: Vec::new(),
        };
        // `2` of line 3 is at output column 8, original column 10.
        let two = starts.at(3) + 8;
        assert_eq!(p.map_offset(two), Some((3, 10)));
    }

    #[test]
    fn markers() {
        assert_eq!(parse_marker("# 12 \"<stdin>\" 2"), Some((12, "<stdin>")));
        assert_eq!(parse_marker("#pragma x"), None);
    }
}

#[cfg(test)]
mod int128_tests {
    use super::*;

    #[test]
    fn int128_tokens_are_rewritten_in_place() {
        let mut t = "unsigned __int128 a; __uint128_t b; char *s = \"__int128\"; int my__int128;".to_string();
        let before = t.len();
        let at = rewrite_int128(&mut t);
        assert_eq!(t.len(), before);
        assert_eq!(at, vec![9, 21]);
        assert_eq!(t, "unsigned _Complex a; _Complex    b; char *s = \"__int128\"; int my__int128;");
    }

    #[test]
    fn pragma_pack_is_found() {
        let mut t = "int a;\n#pragma once\n #  pragma pack(1)\nint b;\n".to_string();
        assert_eq!(blank_pragmas(&mut t), Some(20));
        assert!(!t.contains("pragma"));
    }
}
