//! Nesting bounds of the C front end (decision 131).
//!
//! lang-c's PEG parser and our lowering recurse once per nesting level of the program (brackets,
//! prefix operators and casts, statements nested without braces such as `else if` chains, and,
//! in the lowering, chains of binary operators). A deep enough program overflows the stack of
//! the parsing thread, and Rust aborts the whole process on a stack overflow (SIGABRT, exit
//! status 134, no answer). Before parsing, [`too_deep`] estimates the nesting from the tokens
//! (an over-estimate: every bracket, every run of prefix operators and casts, and every control
//! keyword of an unbraced chain counts one level) and refuses programs past [`MAX_NESTING`];
//! the lowering counts its own recursion against [`MAX_EXPR_DEPTH`]. Either way the answer is
//! `unknown` with the position, never a crash. Clang refuses more than 256 nested brackets by
//! default, so real programs stay far below both bounds.

/// Most nesting levels (estimated from the tokens) the parser is given. Measured on the
/// release build: lang-c needs at most about 2.7 KB of stack per level (`-(` pairs), so 20,000
/// levels take about 55 MB of the parsing thread's 256 MB; our lowering recurses once per level
/// too, with frames about ten times larger in a debug build (hence its lower bound).
pub const MAX_NESTING: u32 = if cfg!(debug_assertions) { 4_000 } else { 20_000 };

/// Most `(` and `[` open at once. Past its stack, lang-c's memoisation copies every nested
/// subexpression at every level around an operator, a call or an index: memory and time grow
/// with the square of this depth (3,000 nested calls `f(f(...))`: 1.5 GB and 4.7 s; 9,000
/// `-(-(...))`: 4.5 GB). 1,000 keeps that under about 200 MB (clang refuses more than 256).
pub const MAX_PARENS: u32 = 1_000;

/// Most levels of expression recursion in the lowering (chains of binary operators are not
/// bracketed, so [`too_deep`] does not see them). On the release build a chain of 100,000 `+`
/// lowers, evaluates and solves within the workers' stacks; the bound keeps a margin of two.
pub const MAX_EXPR_DEPTH: u32 = if cfg!(debug_assertions) { 4_000 } else { 50_000 };

/// Is a C token a prefix operator (or `sizeof`), that may nest the next operand one level?
fn prefix(tok: &[u8]) -> bool {
    matches!(tok, b"-" | b"+" | b"!" | b"~" | b"*" | b"&" | b"++" | b"--" | b"sizeof" | b"_Alignof" | b"__alignof__")
}

/// Keywords that open a statement nested in another without braces.
fn control(tok: &[u8]) -> bool {
    matches!(tok, b"if" | b"else" | b"while" | b"for" | b"do" | b"switch" | b"case" | b"default")
}

/// The byte offset of the first token at which the estimated nesting of `text` (comments
/// already blanked, preprocessor lines skipped) exceeds `limit`, or its `(`/`[` depth exceeds
/// `parens`, with what was exceeded.
pub fn too_deep(text: &str, limit: u32, parens: u32) -> Option<(usize, String)> {
    let b = text.as_bytes();
    let n = b.len();
    // Per open bracket: the control keywords of the unbraced statement chain at that level.
    let mut chains: Vec<u32> = vec![0];
    // The sum of `chains`, kept as it changes (summing per token would be quadratic).
    let mut chain = 0u32;
    let (mut i, mut line_start) = (0usize, true);
    let (mut prefix_run, mut cast_run) = (0u32, 0u32);
    // The last token closed a statement (`;` or `}`): a chain continues only with `else`.
    let mut statement_end = false;
    let mut after_close_paren = false;
    let mut last_else = false;
    // `(` and `[` among the open brackets.
    let mut open_parens = 0u32;
    while i < n {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' && line_start {
            while i < n && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        let start = i;
        if c == b'"' || c == b'\'' {
            i = super::preprocess::skip_literal(b, i).min(n);
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            while i < n && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
        } else {
            let three = b.get(i..i + 3);
            let two = b.get(i..i + 2);
            i += if matches!(three, Some(b"<<=" | b">>=" | b"...")) {
                3
            } else if matches!(
                two,
                Some(
                    b"++"
                        | b"--"
                        | b"->"
                        | b"&&"
                        | b"||"
                        | b"<="
                        | b">="
                        | b"=="
                        | b"!="
                        | b"<<"
                        | b">>"
                        | b"+="
                        | b"-="
                        | b"*="
                        | b"/="
                        | b"%="
                        | b"&="
                        | b"|="
                        | b"^="
                )
            ) {
                2
            } else {
                1
            };
        }
        let tok = &b[start..i];
        if statement_end && tok != b"else" {
            if let Some(k) = chains.last_mut() {
                chain -= *k;
                *k = 0;
            }
        }
        statement_end = false;
        // Casts and calls in a row: `(T)(T)x`, `f(a)(b)`.
        if after_close_paren && tok != b"(" && !prefix(tok) {
            cast_run = 0;
        }
        if tok == b"(" && after_close_paren {
            cast_run += 1;
        }
        after_close_paren = tok == b")";
        let after_else = std::mem::replace(&mut last_else, tok == b"else");
        prefix_run = if prefix(tok) { prefix_run + 1 } else { 0 };
        match tok {
            b"(" | b"[" | b"{" => {
                chains.push(0);
                if tok != b"{" {
                    open_parens += 1;
                    if open_parens > parens {
                        return Some((start, format!("{open_parens} parentheses and brackets open at once")));
                    }
                }
            }
            b")" | b"]" | b"}" => {
                if tok != b"}" {
                    open_parens = open_parens.saturating_sub(1);
                }
                if chains.len() > 1 {
                    chain -= chains.pop().unwrap_or(0);
                }
                statement_end = tok == b"}";
            }
            b";" => statement_end = true,
            // `else if` nests one statement, not two.
            b"if" if after_else => {}
            t if control(t) => {
                if let Some(k) = chains.last_mut() {
                    *k += 1;
                    chain += 1;
                }
            }
            _ => {}
        }
        let estimate =
            (chains.len() as u32 - 1).saturating_add(chain).saturating_add(prefix_run).saturating_add(cast_run);
        if estimate > limit {
            return Some((
                start,
                format!(
                    "nesting of about {estimate} levels (brackets, prefix operators, casts or statements without braces)"
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::too_deep;

    #[test]
    fn ordinary_code_is_shallow() {
        let text =
            "int f(int x) { if (x) { return -(x + 1); } else if (x > 2) return !x; else return (int)(char)x; }\n\
                    int main(void) { int a[2][3]; for (int i = 0; i < 2; i++) a[i][0] = f(i); return 0; }";
        assert_eq!(too_deep(text, 12, 12), None);
    }

    #[test]
    fn brackets_prefix_runs_casts_and_else_if_chains_count() {
        let parens = format!("int x = {}1{};", "(".repeat(30), ")".repeat(30));
        assert!(too_deep(&parens, 20, 100).is_some());
        assert!(too_deep(&parens, 100, 20).is_some());
        assert_eq!(too_deep(&parens, 40, 40), None);
        let negs = format!("int x = {}1;", "- ".repeat(30));
        assert!(too_deep(&negs, 20, 20).is_some());
        let casts = format!("int x = {}1;", "(int)".repeat(30));
        assert!(too_deep(&casts, 20, 20).is_some());
        let chain: String = (0..30).map(|i| format!("if (y == {i}) y = 0; else ")).collect();
        let chain = format!("void f(int y) {{ {chain} ; }}");
        assert!(too_deep(&chain, 20, 20).is_some());
        // `else if` counts once (RERS programs have chains of thousands).
        assert_eq!(too_deep(&chain, 40, 20), None);
        // A chain ends at a statement not followed by `else`: separate statements do not add up.
        let separate: String = (0..30).map(|i| format!("if (y == {i}) y = 0; else y = 1;\n")).collect();
        assert_eq!(too_deep(&format!("void f(int y) {{ {separate} }}"), 20, 20), None);
    }

    #[test]
    fn literals_and_preprocessor_lines_do_not_count() {
        let text = format!("#define P {}\nchar *s = \"{}\"; char c = '(';", "(".repeat(50), "(".repeat(50));
        assert_eq!(too_deep(&text, 10, 10), None);
    }
}
