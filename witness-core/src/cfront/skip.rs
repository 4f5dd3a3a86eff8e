//! Decisions 61 and 172: only the function definitions reachable from `main` are parsed.
//!
//! A cheap C lexer splits the prepared text (comments blanked, or `gcc -E` output) into
//! top-level chunks. A chunk is a *recognised* function definition only when that is certain
//! (see [`analyse`]); everything else is kept as it is. The names a kept chunk or a reached
//! body mentions are followed, by name, to recognised definitions; every definition never
//! reached this way is removed from the text lang-c parses, head and body, except its newlines
//! (lines keep their numbers). No empty shell is left (decision 172): nothing names the
//! function, so no declaration of it is needed. [`Holes`] maps offsets of the reduced text back
//! to the prepared text.
//!
//! When the lexer meets anything it does not understand (unterminated literal, unbalanced
//! brackets, a backslash or `#` inside a line, digraphs), nothing is removed.

use crate::cfa::SkippedPlaces;
use std::collections::HashMap;

/// One removed definition: `parsed_open..parsed_close` in the reduced text holds only its
/// newlines; `shift` is added to reduced offsets at or after `parsed_close`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hole {
    parsed_open: usize,
    parsed_close: usize,
    /// The removed definition in the prepared text (from its first token to its `}`).
    orig_open: usize,
    orig_close: usize,
    shift: usize,
}

/// Sorted table of removed definitions, mapping offsets of the reduced text to offsets of
/// the prepared text. Empty: the identity.
#[derive(Debug, Clone, Default)]
pub struct Holes {
    holes: Vec<Hole>,
}

impl Holes {
    /// The prepared-text offset of reduced-text offset `p`. `line_starts` are the start offsets
    /// of the prepared text's lines (needed for the newlines kept for a removed definition: the
    /// k-th of them is the k-th newline of the original definition).
    pub fn map(&self, p: usize, line_starts: &crate::lines::LineStarts) -> usize {
        let i = self.holes.partition_point(|h| h.parsed_open <= p);
        if i == 0 {
            return p;
        }
        let h = self.holes[i - 1];
        if p >= h.parsed_close {
            return p + h.shift;
        }
        let k = p - h.parsed_open;
        let line = line_starts.count_to(h.orig_open);
        // `line` is the index of the line after the one holding `orig_open`; the k-th newline
        // (from 0) after `orig_open` ends line `line - 1 + k`.
        match line_starts.get(line + k) {
            Some(s) => s - 1,
            None => h.orig_open,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.holes.is_empty()
    }
}

/// What [`reduce`] did.
#[derive(Debug)]
pub struct Reduced {
    /// The text lang-c parses.
    pub text: String,
    pub holes: Holes,
    /// Names of the functions whose definitions were removed, with the prepared-text range of
    /// the body's interior (after `{`, up to `}`).
    pub skipped: Vec<(String, usize, usize)>,
}

/// Removes the recognised function definitions not reachable from `main`, head and body.
/// `None` when nothing is removed (nothing unreachable, or the lexer found the text odd).
pub fn reduce(text: &str) -> Option<Reduced> {
    let a = analyse(text)?;
    let reached = a.reached();
    let mut cut: Vec<(usize, usize, &Def)> = a
        .defs
        .iter()
        .zip(&reached)
        .filter(|(d, r)| !**r && !d.pinned)
        .map(|(d, _)| (d.start, d.close + 1, d))
        .collect();
    if cut.is_empty() {
        return None;
    }
    cut.sort_unstable_by_key(|c| c.0);
    let b = text.as_bytes();
    let kept: usize = cut.iter().map(|(s, e, _)| b[*s..*e].iter().filter(|c| **c == b'\n').count()).sum();
    let removed: usize = cut.iter().map(|(s, e, _)| e - s).sum();
    let mut out = Vec::with_capacity(text.len() - removed + kept);
    let mut holes = Vec::with_capacity(cut.len());
    let mut at = 0;
    let mut skipped = Vec::with_capacity(cut.len());
    for &(s, e, d) in &cut {
        out.extend_from_slice(&b[at..s]);
        let parsed_open = out.len();
        out.extend(b[s..e].iter().filter(|c| **c == b'\n'));
        let parsed_close = out.len();
        holes.push(Hole { parsed_open, parsed_close, orig_open: s, orig_close: e, shift: e - parsed_close });
        skipped.push((a.names[d.name as usize].to_string(), d.open + 1, d.close));
        at = e;
    }
    out.extend_from_slice(&b[at..]);
    // Only whole tokens were removed (from an identifier's start to a `}`), so this is UTF-8.
    let text = String::from_utf8(out).ok()?;
    Some(Reduced { text, holes: Holes { holes }, skipped })
}

/// A recognised function definition.
#[derive(Debug)]
struct Def {
    name: u32,
    /// Offset of its first token.
    start: usize,
    /// Offsets of its body's `{` and matching `}`.
    open: usize,
    close: usize,
    /// Names its head (attribute groups) and body mention.
    uses: Vec<u32>,
    /// A `#` line (pragma, line marker) inside, head or body: the definition stays (`#pragma
    /// pack` is textual, a line marker places what follows).
    pinned: bool,
}

/// The chunker's findings.
#[derive(Debug, Default)]
struct Analysis<'t> {
    names: Vec<&'t str>,
    defs: Vec<Def>,
    /// Names mentioned where they may be used without a call from `main` (kept chunks, heads
    /// with attributes) and `main` itself.
    roots: Vec<u32>,
}

impl Analysis<'_> {
    /// Per definition: reachable from the roots, by name.
    fn reached(&self) -> Vec<bool> {
        let mut by_name: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, d) in self.defs.iter().enumerate() {
            by_name.entry(d.name).or_default().push(i);
        }
        let mut reached = vec![false; self.defs.len()];
        let mut seen = vec![false; self.names.len()];
        let mut todo: Vec<u32> = self.roots.clone();
        while let Some(n) = todo.pop() {
            if std::mem::replace(&mut seen[n as usize], true) {
                continue;
            }
            for &i in by_name.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                reached[i] = true;
                todo.extend(self.defs[i].uses.iter().copied());
            }
        }
        reached
    }
}

/// Identifiers that can precede a parenthesised group without being a function name.
fn not_a_function_name(s: &str) -> bool {
    s.starts_with("__builtin_")
        || matches!(
            s,
            "__attribute__"
                | "__attribute"
                | "__asm__"
                | "__asm"
                | "asm"
                | "__declspec"
                | "typeof"
                | "__typeof__"
                | "__typeof"
                | "typeof_unqual"
                | "sizeof"
                | "_Alignof"
                | "alignof"
                | "__alignof__"
                | "__alignof"
                | "_Alignas"
                | "alignas"
                | "_Generic"
                | "_Static_assert"
                | "static_assert"
                | "__extension__"
                | "_Atomic"
                | "if"
                | "while"
                | "for"
                | "switch"
                | "return"
                | "do"
                | "else"
                | "case"
                | "default"
                | "goto"
                | "break"
                | "continue"
                | "int"
                | "char"
                | "void"
                | "short"
                | "long"
                | "float"
                | "double"
                | "signed"
                | "unsigned"
                | "_Bool"
                | "struct"
                | "union"
                | "enum"
                | "const"
                | "volatile"
                | "restrict"
                | "static"
                | "extern"
                | "register"
                | "auto"
                | "inline"
                | "typedef"
                | "_Noreturn"
                | "_Thread_local"
        )
}

/// Groups whose contents (including string literals: `alias("f")`, `asm("f")`) are uses.
fn is_attribute_keyword(s: &str) -> bool {
    matches!(s, "__attribute__" | "__attribute" | "__asm__" | "__asm" | "asm" | "__declspec")
}

/// A token of a chunk's head at bracket depth 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Head {
    Ident(u32),
    /// A parenthesised group, with the identifier right before its `(`.
    Group(Option<u32>),
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Open {
    ch: u8,
    /// Inside an attribute or asm group.
    attr: bool,
    /// The identifier right before a `(`.
    before: Option<u32>,
}

/// The current top-level chunk.
#[derive(Debug, Default)]
struct Chunk {
    head: Vec<Head>,
    typedef: bool,
    assign: bool,
    brace: bool,
    /// A depth-0 `{` that is neither a struct/union/enum body nor an initialiser.
    unclear: bool,
    /// That `{` looks like a function body.
    body_like: bool,
    all: Vec<u32>,
    uses: Vec<u32>,
    attr_in_head: bool,
    /// A `constructor` or `destructor` attribute in the chunk (outside a body): on a
    /// prototype, it makes the function run without a call (decision 106).
    ctor_attr: bool,
    /// Offset of the chunk's first token (not a `#` line).
    start: Option<usize>,
    /// A recognised definition: name and offset of `{`.
    def: Option<(u32, usize)>,
    body: Vec<u32>,
    /// A `#` line after the chunk's first token.
    pinned: bool,
}

struct Lexer<'t> {
    names: Vec<&'t str>,
    ids: HashMap<&'t str, u32>,
    /// Per name: the index of the last chunk it was added to (de-duplicates `uses`).
    stamp: Vec<u32>,
    /// The same for `Chunk::all`.
    stamp_all: Vec<u32>,
}

impl<'t> Lexer<'t> {
    fn intern(&mut self, s: &'t str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s);
        self.ids.insert(s, i);
        self.stamp.push(u32::MAX);
        self.stamp_all.push(u32::MAX);
        i
    }
}

/// Issue 19, cause 6: the places a column-less waypoint could mean inside the removed bodies
/// `bodies` (byte ranges of `text`, the given file), found lexically: statement starts (after
/// `{`, `;` or `}`), branching keywords and `?`, calls, and calls of the error functions.
pub fn places_in(text: &str, bodies: &[(usize, usize)]) -> SkippedPlaces {
    let mut out = SkippedPlaces::default();
    let b = text.as_bytes();
    for &(s, e) in bodies {
        let e = e.min(b.len());
        let mut i = s;
        let mut stmt_next = true;
        while i < e {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            if c == b'/' && b.get(i + 1) == Some(&b'/') {
                while i < e && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            if c == b'/' && b.get(i + 1) == Some(&b'*') {
                i += 2;
                while i + 1 < e && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            if c == b'}' {
                stmt_next = true;
                i += 1;
                continue;
            }
            if stmt_next {
                out.statements.push(i);
                stmt_next = false;
            }
            match c {
                b'"' | b'\'' => {
                    // An unterminated literal ends with its line.
                    i = literal_end(&b[..e], i)
                        .unwrap_or_else(|| b[i..e].iter().position(|&x| x == b'\n').map_or(e, |p| i + p))
                }
                b';' | b'{' => {
                    stmt_next = true;
                    i += 1;
                }
                b'?' => {
                    out.branches.push(i);
                    i += 1;
                }
                c if is_id_byte(c) && !c.is_ascii_digit() => {
                    let start = i;
                    while i < e && is_id_byte(b[i]) {
                        i += 1;
                    }
                    let word = &text[start..i];
                    let mut j = i;
                    while j < e && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if matches!(word, "if" | "while" | "for" | "do" | "switch") {
                        out.branches.push(start);
                    } else if j < e && b[j] == b'(' && !matches!(word, "sizeof" | "return" | "_Alignof") {
                        out.calls.push(start);
                        if matches!(word, "reach_error" | "__VERIFIER_error") {
                            out.errors.push(start);
                        }
                    }
                }
                _ => i += 1,
            }
        }
    }
    out
}

fn is_id_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The end of the string or character literal starting at `i` (its quote); `None` if it is
/// not terminated on its line.
fn literal_end(b: &[u8], mut i: usize) -> Option<usize> {
    let q = b[i];
    i += 1;
    while i < b.len() {
        match b[i] {
            c if c == q => return Some(i + 1),
            b'\n' => return None,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Whether the head ends like the start of a struct, union or enum body:
/// `struct`, optional attribute groups, an optional tag.
fn ends_like_struct(head: &[Head], names: &[&str]) -> bool {
    let mut tags = 0;
    let mut i = head.len();
    while i > 0 {
        match head[i - 1] {
            Head::Ident(n) if matches!(names[n as usize], "struct" | "union" | "enum") => return true,
            Head::Ident(n) if is_attribute_keyword(names[n as usize]) => {}
            Head::Group(Some(n)) if is_attribute_keyword(names[n as usize]) => {}
            Head::Ident(_) if tags == 0 => tags += 1,
            _ => return false,
        }
        i -= 1;
    }
    false
}

/// Splits `text` into top-level chunks and finds the recognised function definitions and the
/// roots. A chunk is a recognised definition only when, at bracket depth 0, a `{` follows a
/// `)` whose `(` follows an identifier that can be a function name, and the chunk has no
/// earlier depth-0 `{`, no depth-0 `=` and no `typedef`. `None` if the text is odd.
fn analyse(text: &str) -> Option<Analysis<'_>> {
    let b = text.as_bytes();
    let n = b.len();
    let mut lx = Lexer { names: Vec::new(), ids: HashMap::new(), stamp: Vec::new(), stamp_all: Vec::new() };
    let main = lx.intern("main");
    let mut defs = Vec::new();
    let mut roots = vec![main];
    let mut stack: Vec<Open> = Vec::new();
    let mut braces = 0usize;
    let mut c = Chunk::default();
    let mut chunk_no: u32 = 0;
    // The identifier just lexed (for `(` after it).
    let mut last_ident: Option<u32> = None;
    let mut line_start = true;
    // A UTF-8 byte order mark is white space (`blank_comments`).
    let mut i = if b.starts_with(&[0xEF, 0xBB, 0xBF]) { 3 } else { 0 };
    // Adds a name to a list once per chunk.
    macro_rules! add_use {
        ($list:expr, $id:expr) => {{
            let id = $id;
            if lx.stamp[id as usize] != chunk_no {
                lx.stamp[id as usize] = chunk_no;
                $list.push(id);
            }
        }};
    }
    let finish_kept = |c: &mut Chunk, roots: &mut Vec<u32>| {
        let mut c = std::mem::take(c);
        // A prototype with a constructor attribute: the function it declares is a root.
        roots.append(if c.unclear || c.ctor_attr { &mut c.all } else { &mut c.uses });
        if c.unclear || c.ctor_attr {
            roots.append(&mut c.uses);
        }
    };
    while i < n {
        let ch = b[i];
        if ch == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if ch.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Comments are white space (the text may be the file as given).
        if ch == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = text[i + 2..].find("*/")? + i + 2;
            line_start |= b[i..end].contains(&b'\n');
            i = end + 2;
            continue;
        }
        if ch == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < n && b[i] != b'\n' {
                // A backslash before the newline continues the comment on the next line.
                if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'\n' | b'\r')) {
                    i += 1;
                    if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                }
                i += 1;
            }
            continue;
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        if !(ch == b'#' && at_line_start) && c.start.is_none() {
            c.start = Some(i);
        }
        let attr = stack.last().is_some_and(|o| o.attr);
        let depth = stack.len();
        if is_id_byte(ch) && !ch.is_ascii_digit() {
            let s = i;
            while i < n && is_id_byte(b[i]) {
                i += 1;
            }
            let id = lx.intern(&text[s..i]);
            last_ident = Some(id);
            if depth == 0 {
                c.head.push(Head::Ident(id));
                if lx.names[id as usize] == "typedef" {
                    c.typedef = true;
                }
            }
            if c.def.is_some() {
                add_use!(c.body, id);
            } else {
                if lx.stamp_all[id as usize] != chunk_no {
                    lx.stamp_all[id as usize] = chunk_no;
                    c.all.push(id);
                }
                if c.assign || braces > 0 || attr {
                    add_use!(c.uses, id);
                }
            }
            if attr && depth > 0 && c.def.is_none() {
                c.attr_in_head = true;
                let bare = lx.names[id as usize].trim_start_matches("__").trim_end_matches("__");
                c.ctor_attr |= bare == "constructor" || bare == "destructor";
            }
            continue;
        }
        let prev_ident = last_ident.take();
        match ch {
            b'0'..=b'9' => {
                // pp-number: digits, letters, `.`, and signs after an exponent letter.
                i += 1;
                while i < n {
                    let d = b[i];
                    let sign = matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                    if sign || is_id_byte(d) || d == b'.' {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            b'"' | b'\'' => {
                let e = literal_end(b, i)?;
                if attr && ch == b'"' {
                    // `alias("f")`, `asm("f")`: the string may name a function.
                    let inner = &text[i + 1..e - 1];
                    for w in inner.split(|x: char| !(x.is_ascii_alphanumeric() || x == '_' || x == '$')) {
                        if !w.is_empty() && !w.as_bytes()[0].is_ascii_digit() {
                            let id = lx.intern(w);
                            if c.def.is_some() {
                                add_use!(c.body, id);
                            } else {
                                add_use!(c.uses, id);
                                c.attr_in_head = true;
                            }
                        }
                    }
                }
                i = e;
            }
            b'#' if at_line_start => {
                // A line marker or a directive gcc left: to the end of the line.
                c.pinned |= c.start.is_some();
                while i < n && b[i] != b'\n' {
                    if b[i] == b'\\' && i + 1 < n && b[i + 1] == b'\n' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' => {
                let attr_here =
                    attr || (ch == b'(' && prev_ident.is_some_and(|p| is_attribute_keyword(lx.names[p as usize])));
                stack.push(Open { ch, attr: attr_here, before: if ch == b'(' { prev_ident } else { None } });
                i += 1;
            }
            b')' | b']' => {
                let o = stack.pop()?;
                if o.ch != if ch == b')' { b'(' } else { b'[' } {
                    return None;
                }
                if stack.is_empty() {
                    c.head.push(if ch == b')' { Head::Group(o.before) } else { Head::Other });
                }
                i += 1;
            }
            b'{' => {
                if depth == 0 {
                    let head_fn = match c.head.last() {
                        Some(Head::Group(Some(f))) if !not_a_function_name(lx.names[*f as usize]) => Some(*f),
                        _ => None,
                    };
                    match head_fn {
                        Some(f) if !c.brace && !c.assign && !c.typedef => {
                            c.def = Some((f, i));
                            // Names of the head's attribute groups are the body's uses too.
                            c.body = std::mem::take(&mut c.uses);
                        }
                        _ => {
                            if !c.assign && !ends_like_struct(&c.head, &lx.names) {
                                c.unclear = true;
                                // A body after `)` (attributes before it, a function returning
                                // a struct it defines) or starting the chunk (K&R, after the
                                // parameter declarations): the chunk ends with it.
                                c.body_like = matches!(c.head.last(), None | Some(Head::Group(_)));
                            }
                        }
                    }
                    c.brace = true;
                }
                stack.push(Open { ch, attr: false, before: None });
                braces += 1;
                i += 1;
            }
            b'}' => {
                let o = stack.pop()?;
                if o.ch != b'{' {
                    return None;
                }
                braces -= 1;
                if stack.is_empty() {
                    if let Some((name, open)) = c.def {
                        let mut uses = std::mem::take(&mut c.body);
                        if c.attr_in_head {
                            // E.g. `constructor`, `used`: it may run without a call.
                            roots.push(name);
                        }
                        uses.shrink_to_fit();
                        let start = c.start.unwrap_or(open);
                        defs.push(Def { name, start, open, close: i, uses, pinned: c.pinned });
                        c = Chunk::default();
                        chunk_no += 1;
                    } else if c.body_like {
                        finish_kept(&mut c, &mut roots);
                        chunk_no += 1;
                    } else {
                        c.head.push(Head::Other);
                    }
                }
                i += 1;
            }
            b';' => {
                if depth == 0 {
                    finish_kept(&mut c, &mut roots);
                    chunk_no += 1;
                }
                i += 1;
            }
            b'=' => {
                let prev = if i > 0 { b[i - 1] } else { b' ' };
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                let plain = next != b'='
                    && !matches!(
                        prev,
                        b'=' | b'!' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^'
                    );
                if depth == 0 {
                    if plain {
                        c.assign = true;
                    }
                    c.head.push(Head::Other);
                }
                i += 1;
            }
            // Digraphs would hide brackets from this lexer.
            b'<' if matches!(b.get(i + 1), Some(b'%' | b':')) => return None,
            b'%' if matches!(b.get(i + 1), Some(b'>' | b':')) => return None,
            b':' if b.get(i + 1) == Some(&b'>') => return None,
            b'\\' | b'#' | b'@' | b'`' => return None,
            b'?' if b.get(i + 1) == Some(&b'?') => return None,
            _ => {
                if depth == 0 {
                    c.head.push(Head::Other);
                }
                i += 1;
            }
        }
    }
    if !stack.is_empty() {
        return None;
    }
    finish_kept(&mut c, &mut roots);
    Some(Analysis { names: lx.names, defs, roots })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names of the functions whose definitions `reduce` removes.
    fn skipped(src: &str) -> Vec<String> {
        let mut v: Vec<String> = reduce(src).map(|r| r.skipped.into_iter().map(|s| s.0).collect()).unwrap_or_default();
        v.sort();
        v
    }

    #[test]
    fn unreached_definitions_are_removed_keeping_newlines() {
        let src = "int g;\nint dead(int a) {\n  return a + 1;\n}\nint used(void) { return g; }\nint main(void) {\n  return used();\n}\n";
        let r = reduce(src).expect("something removed");
        // Decision 172: head and body go, no empty shell stays.
        assert_eq!(r.text, "int g;\n\n\n\nint used(void) { return g; }\nint main(void) {\n  return used();\n}\n");
        // The interior of the body is what anchors see as removed.
        assert_eq!(
            r.skipped,
            vec![("dead".to_string(), src.find("{\n").expect("{") + 1, src.find("\n}").expect("}") + 1)]
        );
        assert_eq!(r.text.matches('\n').count(), src.matches('\n').count());
        assert_eq!(skipped(src), vec!["dead"]);
    }

    #[test]
    fn calls_are_followed_transitively_and_all_definitions_of_a_name_kept() {
        let src = "int c(void) { return 3; }\nint b(void) { return c(); }\nint a(void) { return b(); }\nint x(void) { return 1; }\nint main(void) { return a(); }\n";
        assert_eq!(skipped(src), vec!["x"]);
        let two =
            "static int f(void) { return 1; }\nstatic int f(void) { return 2; }\nint main(void) { return f(); }\n";
        assert!(reduce(two).is_none());
    }

    #[test]
    fn uses_outside_bodies_are_roots() {
        // Function pointer in a global initialiser, in a struct initialiser, an alias target
        // named by a string, an asm label.
        let src = "int h1(void) { return 1; }\nint h2(void) { return 2; }\nint h3(void) { return 3; }\nint h4(void) { return 4; }\nint h5(void) { return 5; }\n\
                   int (*fp)(void) = h1;\nstruct S { int (*f)(void); } s = { h2 };\n\
                   int h3a(void) __attribute__((alias(\"h3\")));\nint h4b(void) __asm__(\"h4\");\nint main(void) { return 0; }\n";
        assert_eq!(skipped(src), vec!["h5"]);
    }

    #[test]
    fn an_address_taken_in_a_reached_body_is_a_use() {
        let src = "int t(void) { return 1; }\nint u(void) { return 2; }\nint main(void) { int (*p)(void) = &t; return p(); }\n";
        assert_eq!(skipped(src), vec!["u"]);
    }

    #[test]
    fn unclear_chunks_are_kept_and_their_names_are_roots() {
        // K&R definition: its body is not a recognised definition and names `k2`.
        let knr = "int k2(void) { return 2; }\nint k3(void) { return 3; }\nint k(a) int a; { return k2(); }\nint z;\nint main(void) { return k(1); }\n";
        assert_eq!(skipped(knr), vec!["k3"]);
        // A function returning a struct defined in its head: kept, and what it names too.
        let st = "int q(void) { return 1; }\nstruct R { int a; } r(void) { struct R x; x.a = q(); return x; }\nint main(void) { return 0; }\n";
        assert!(reduce(st).is_none());
        // Prototypes and typedefs are kept and name nothing; the definition is removed.
        let proto = "int p(int);\ntypedef int (*pf)(int);\nint p(int x) { return x; }\nint main(void) { return 0; }\n";
        assert_eq!(skipped(proto), vec!["p"]);
    }

    #[test]
    fn attributes_and_struct_bodies() {
        // `struct __attribute__((packed)) {` is a struct body; a definition with an attribute in
        // its head is a root (`constructor` runs without a call).
        let src = "struct __attribute__((packed)) P { int a; } pv;\nstruct __attribute__((packed)) { int b; } anon;\n\
                   __attribute__((constructor)) void init(void) { }\nvoid init2(void) { int y = 1; }\nvoid w(void) { }\nint main(void) { return 0; }\n";
        assert_eq!(skipped(src), vec!["init2", "w"]);
        // `__attribute__((x))` right before `{` is not a function's parameter list: kept, and
        // what it names is a root.
        // A constructor attribute on a prototype makes the later definition a root too.
        let proto = "void init(void) __attribute__((__constructor__));\nvoid helper(void) { int y = 2; }\nvoid init(void) { int z = 1; }\n\
                     int main(void) { return 0; }\n";
        assert_eq!(skipped(proto), vec!["helper"]);
        let odd = "void g(void) __attribute__((unused)) { h(); }\nvoid h(void) { int a = 1; }\nvoid k(void) { int b = 2; }\nint main(void) { return 0; }\n";
        assert_eq!(skipped(odd), vec!["k"]);
    }

    #[test]
    fn strings_and_characters_with_brackets() {
        let src = "char *s = \"{ not a body }\";\nint f(void) { char c = '}'; return \"}{\"[0] + c; }\nint main(void) { return 0; }\n";
        let r = reduce(src).expect("f removed");
        assert_eq!(skipped(src), vec!["f"]);
        assert!(!r.text.contains("f(void)") && r.text.contains("char *s = \"{ not a body }\";\n\nint main"));
    }

    #[test]
    fn comments_are_white_space_and_pragmas_pin_bodies() {
        let src = "/* { */ int f(void) { // }\n return 1; /* } */ }\nint g(void) {\n#pragma pack(1)\n return 2; }\nint main(void) { return 0; } // \\\n }\n";
        assert_eq!(skipped(src), vec!["f"]);
        // A `#` line in a head pins the definition; one before the chunk stays in the text.
        let head = "int h(void)\n#pragma x\n{ return 3; }\n# 7 \"f.c\"\nint k(void) { return 4; }\nint main(void) { return 0; }\n";
        assert_eq!(skipped(head), vec!["k"]);
        assert!(reduce(head).expect("k").text.contains("# 7 \"f.c\"\n\nint main"));
        let bom = "\u{feff}f(void) { return 1; }\nint g(void) { return 2; }\nint main(void) { return f(); }\n";
        assert_eq!(skipped(bom), vec!["g"]);
        assert!(reduce("int f(void) { return 1; } /* unterminated\nint main(void) { return 0; }\n").is_none());
    }

    #[test]
    fn odd_text_removes_nothing() {
        for src in [
            "int f(void) { return 1; }\nint main(void) { return 0; \n",
            "int f(void) { return 1; } }\nint main(void) { return 0; }\n",
            "int f(void) { char *s = \"abc\n\"; }\nint main(void) { return 0; }\n",
            "int f(void) <% return 1; %>\nint main(void) { return 0; }\n",
            "int f(void) { return 1; }\nint m\\\nain(void) { return f(); }\n",
            "int f(void) { return (1]; }\nint main(void) { return 0; }\n",
        ] {
            assert!(reduce(src).is_none(), "{src}");
        }
    }

    #[test]
    fn holes_map_offsets_and_lines_back() {
        let src = "int dead(void) {\n  return 1;\n  return 2;\n}\nint x; int dead2(void) { return 7; } int y;\nint main(void) { return x; }\n";
        let r = reduce(src).expect("removed");
        let ls = crate::lines::LineStarts::of(src);
        // Every byte of the reduced text except the kept newlines is the same byte of the source.
        for (p, ch) in r.text.char_indices() {
            let o = r.holes.map(p, &ls);
            assert_eq!(src.as_bytes()[o], ch as u8, "offset {p} maps to {o}");
        }
        // The kept newlines map to the source's newlines in order, on the same lines.
        assert!(r.text.starts_with("\n\n\n\nint x;  int y;"), "{:?}", r.text);
        assert_eq!(r.holes.map(0, &ls), src.find("{\n").expect("line") + 1);
        assert_eq!(r.holes.map(1, &ls), src.find("1;\n").expect("line") + 2);
        assert_eq!(r.holes.map(2, &ls), src.find("2;\n").expect("line") + 2);
        let y = r.text.find("int y").expect("y");
        assert_eq!(r.holes.map(y, &ls), src.find("int y").expect("y"));
    }
}
