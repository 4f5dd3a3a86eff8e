//! Witness assumptions (`x == 5; y < 3`) → IR expressions: the witness text's own syntax
//! (`;`-separated conjuncts, ACSL's `==>`, the legacy `x = 5`, `\result`), then the C expression
//! parsed and lowered by the program's lowering (`lower/witness.rs`; issue 33).

use lang_c::ast::*;
use lang_c::span::Node;

use super::lower::{self, witness::RANGE, witness::RESULT};
use super::types::Arith;
use super::AssumptionScope;
use crate::cfa::{Cfa, Expr};
use crate::error::ConjunctError;

type R<T> = Result<T, ConjunctError>;

/// Splits at top-level `;` (outside parentheses and quotes); drops empty pieces.
pub fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth: i32 = 0;
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut esc = false;
    for c in text.chars() {
        if let Some(q) = quote {
            cur.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                cur.push(c);
            }
            '(' | '[' | '{' => {
                depth += 1;
                cur.push(c);
            }
            ')' | ']' | '}' => {
                depth -= 1;
                cur.push(c);
            }
            ';' if depth <= 0 => {
                out.push(std::mem::take(&mut cur));
            }
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// Rewrites the legacy `x = 5` to `x == 5` (a single top-level `=`).
fn legacy_assign(s: &str) -> String {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut pos = Vec::new();
    for i in 0..b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { 0 };
                let next = b.get(i + 1).copied().unwrap_or(0);
                if next == b'=' || next == b'>' {
                    continue;
                }
                if matches!(prev, b'=' | b'<' | b'>' | b'!') {
                    continue;
                }
                // Compound assignment operators are not rewritten.
                if matches!(prev, b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^') {
                    return s.to_string();
                }
                pos.push(i);
            }
            _ => {}
        }
    }
    if pos.len() == 1 {
        let i = pos[0];
        format!("{}=={}", &s[..i], &s[i + 1..])
    } else {
        s.to_string()
    }
}

/// Rewrites ACSL `A ==> B` to `!(A) || (B)` (right-associative, top level only).
fn implication(s: &str) -> String {
    if let Some(i) = s.find("==>") {
        let a = &s[..i];
        let b = implication(&s[i + 3..]);
        format!("!({a}) || ({b})")
    } else {
        s.to_string()
    }
}

/// The witness language's names in C's syntax: `\result` and the built-ins as reserved names.
fn reserved_names(piece: &str) -> String {
    let mut t = piece.replace("\\result", RESULT);
    for (name, reserved) in lower::witness::BUILTINS {
        t = t.replace(name, reserved);
    }
    ranges(&t)
}

/// ACSL's ranges `(a .. b)` as a reserved call `__witness_range__((a), (b))` C can parse
/// (decision 250; `0..3` would lex as the float `0.` and `.3`); only a parenthesised range is
/// rewritten, and the lowering reads it only as the offset of a `\valid` argument.
fn ranges(s: &str) -> String {
    let b = s.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        let dots = b[i] == b'.' && b[i + 1] == b'.';
        let ellipsis = dots && (b.get(i + 2) == Some(&b'.') || (i > 0 && b[i - 1] == b'.'));
        if !dots || ellipsis {
            i += 1;
            continue;
        }
        // The parenthesis that opens the group holding the range, and the one that closes it
        // (a range in brackets, `a[0 .. 3]`, is left as it is: a syntax error).
        let (Some(open), Some(close)) = (group_edge(b, i, false), group_edge(b, i + 1, true)) else {
            return s.to_string();
        };
        let rewritten =
            format!("{}{RANGE}(({}), ({})){}", &s[..open], &s[open + 1..i], &s[i + 2..close], &s[close + 1..]);
        return ranges(&rewritten);
    }
    s.to_string()
}

/// The unmatched `(` before `from` (`forward`: the unmatched `)` after it), or `None` when an
/// unmatched bracket or no parenthesis comes first.
fn group_edge(b: &[u8], from: usize, forward: bool) -> Option<usize> {
    let (opens, closes) = if forward { ([b'(', b'['], [b')', b']']) } else { ([b')', b']'], [b'(', b'[']) };
    let mut depth = 0u32;
    let mut k = from;
    loop {
        k = if forward { k + 1 } else { k.checked_sub(1)? };
        let c = *b.get(k)?;
        if opens.contains(&c) {
            depth += 1;
        } else if closes.contains(&c) {
            if depth == 0 {
                return (c == closes[0]).then_some(k);
            }
            depth -= 1;
        }
    }
}

/// One piece with the witness syntax [`lower_one`] reads before C (ACSL's `==>`, the legacy
/// `x = 5`) written as C: an expression that may be put inside parentheses.
pub fn as_c(piece: &str) -> String {
    legacy_assign(&implication(piece))
}

pub fn lower_one(cfa: &Cfa, piece: &str, scope: &AssumptionScope) -> R<Expr> {
    let mut t = reserved_names(piece);
    t = implication(&t);
    t = legacy_assign(&t);
    let (e, text) =
        parse_expression(cfa, t.trim()).map_err(|why| ConjunctError::Syntax { piece: piece.to_string(), why })?;
    Ok(lower::witness::lower(cfa, &e, text, scope)?.truth())
}

/// Lowers an expression to its value (integer or float), for messages.
pub fn lower_value(cfa: &Cfa, piece: &str, scope: &AssumptionScope) -> R<crate::cfa::Expr> {
    let t = reserved_names(piece);
    let (e, text) =
        parse_expression(cfa, t.trim()).map_err(|why| ConjunctError::Syntax { piece: piece.to_string(), why })?;
    lower::witness::lower(cfa, &e, text, scope)
}

/// lang-c exposes only the translation-unit parser: wrap the expression in a function body,
/// after typedefs that make the program's type names known.
fn parse_expression(cfa: &Cfa, expr: &str) -> Result<(Box<Node<Expression>>, String), String> {
    if expr.contains(['{', '}', ';']) {
        return Err("unexpected `{`, `}` or `;`".into());
    }
    let mut src = String::new();
    for (name, _) in &cfa.typedefs {
        src.push_str(&format!("typedef int {name};\n"));
    }
    let prefix = src.len() + "void __witness_assumption__(void) { (".len();
    src.push_str("void __witness_assumption__(void) { (");
    src.push_str(expr);
    src.push_str("\n); }\n");
    let config = lang_c::driver::Config::with_gcc();
    let (unit, text) = match lang_c::driver::parse_preprocessed(&config, src) {
        Ok(p) => (p.unit, p.source),
        Err(e) => {
            // In characters of the expression (issue 33), the end of it when the parser stopped
            // after it.
            let col = crate::lines::LineStarts::of(expr).column(e.offset.saturating_sub(prefix));
            return Err(format!("syntax error at column {col}, expected {}", expected(&e.expected)));
        }
    };
    let Some(last) = unit.0.into_iter().last() else {
        return Err("empty".into());
    };
    let ExternalDeclaration::FunctionDefinition(fd) = last.node else {
        return Err("not an expression".into());
    };
    let Statement::Compound(items) = fd.node.statement.node else {
        return Err("not an expression".into());
    };
    match items.into_iter().next().map(|i| i.node) {
        Some(BlockItem::Statement(Node { node: Statement::Expression(Some(e)), .. })) => Ok((e, text)),
        _ => Err("not an expression".into()),
    }
}

fn expected(set: &std::collections::HashSet<&'static str>) -> String {
    let mut v: Vec<&str> = set.iter().copied().collect();
    v.sort_unstable();
    v.iter().take(8).map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_and_rewrites() {
        assert_eq!(split("a == 1; b == (2);;"), vec!["a == 1", "b == (2)"]);
        assert_eq!(split("f(a;b)"), vec!["f(a;b)"]);
        assert_eq!(legacy_assign("x = 5"), "x == 5");
        assert_eq!(legacy_assign("x == 5"), "x == 5");
        assert_eq!(legacy_assign("x <= 5"), "x <= 5");
        assert_eq!(legacy_assign("x != 5"), "x != 5");
        assert_eq!(implication("a ==> b"), "!(a ) || ( b)");
    }
}
