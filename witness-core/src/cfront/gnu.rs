//! GNU C extensions of the front end that need a policy rather than a translation (decisions
//! 57–58): which `__attribute__`s have no effect on the semantics we model, which change struct
//! layouts, which are not modelled; and what an inline `asm` statement does.
//!
//! Attributes are found by scanning the parsed text, not the AST: lang-c drops some of them
//! (e.g. between `struct` and its tag), and an attribute it drops must not be ignored silently.

/// What an attribute means for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrKind {
    /// No effect on values, control flow or layout as modelled (optimisation hints,
    /// diagnostics, linkage, calling conventions).
    Ignore,
    /// Changes the layout of a struct or union (`packed`, `aligned`).
    Layout,
    /// `mode(...)`: changes an integer type's width; handled where typedefs and variables are
    /// declared.
    Mode,
    /// Has an effect that is not modelled (`cleanup`, `constructor`, `vector_size`, …) or is
    /// not known.
    Unmodelled,
}

/// An attribute found in the text: offset of its name, the name without `__` decoration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundAttr {
    pub offset: usize,
    pub len: usize,
    pub name: String,
}

/// `__noreturn__` → `noreturn`.
pub fn bare_name(name: &str) -> &str {
    name.strip_prefix("__").and_then(|n| n.strip_suffix("__")).unwrap_or(name)
}

pub fn classify(name: &str) -> AttrKind {
    const IGNORE: &[&str] = &[
        "noreturn",
        "nothrow",
        "malloc",
        "const",
        "pure",
        "unused",
        "used",
        "always_inline",
        "noinline",
        "gnu_inline",
        "artificial",
        "cold",
        "hot",
        "leaf",
        "nonnull",
        "returns_nonnull",
        "warn_unused_result",
        "format",
        "format_arg",
        "deprecated",
        "unavailable",
        "visibility",
        "weak",
        "may_alias",
        "sentinel",
        "alloc_size",
        "alloc_align",
        "assume_aligned",
        "noclone",
        "noipa",
        "no_instrument_function",
        "no_reorder",
        "externally_visible",
        "optimize",
        "target",
        "access",
        "fallthrough",
        "regparm",
        "stdcall",
        "cdecl",
        "fastcall",
        "nocommon",
        "common",
        "warning",
        "error",
        "tls_model",
        "designated_init",
        "returns_twice",
        "no_split_stack",
        "no_stack_protector",
        "no_sanitize",
        "no_sanitize_address",
        "no_sanitize_thread",
        "no_sanitize_undefined",
        "no_address_safety_analysis",
        "noplt",
        "flatten",
        "nonstring",
        "section",
        "aligned_alloc",
        "copy",
        "retain",
        "no_profile_instrument_function",
        "randomize_layout_disabled",
        "latent_entropy",
        "noinit",
        "persistent",
        "fd_arg",
        "fd_arg_read",
        "fd_arg_write",
        "null_terminated_string_arg",
        "transaction_safe",
        "force_align_arg_pointer",
        "indirect_branch",
        "function_return",
        "no_caller_saved_registers",
        "ms_abi",
        "sysv_abi",
        "zero_call_used_regs",
        "nocf_check",
        "patchable_function_entry",
        "target_clones",
        "warn_if_not_aligned",
        "naked",
        "noderef",
        "nodiscard",
        "maybe_unused",
        // A declaration that names another symbol: the declared name has no body in the
        // program, so a call of it is already an unsupported call of an undefined function
        // (LDV drivers: `int init_module(void) __attribute__((alias("drv_init")))`).
        "alias",
        "weakref",
        "ifunc",
    ];
    let n = bare_name(name);
    if IGNORE.contains(&n) {
        AttrKind::Ignore
    } else if n == "transparent_union" {
        // Decision 107: it changes neither the union's layout nor any value; it only lets a
        // call pass a member's type to a parameter of the union type. Every call to a function
        // with a union parameter is unsupported (`lower_args`), so ignoring it is sound (glibc's
        // `<sys/socket.h>` puts it on `__SOCKADDR_ARG`).
        AttrKind::Ignore
    } else if n == "packed" || n == "aligned" {
        AttrKind::Layout
    } else if n == "mode" {
        AttrKind::Mode
    } else {
        AttrKind::Unmodelled
    }
}

/// Every attribute of every `__attribute__((…))` / `__attribute((…))` in `text`, in order.
/// Nested parentheses (arguments) are skipped; names are the identifiers at the list level.
pub fn scan_attributes(text: &str) -> Vec<FoundAttr> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let is_id = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while let Some(k) = text[i..].find("__attribute") {
        let start = i + k;
        i = start + "__attribute".len();
        if start > 0 && is_id(b[start - 1]) {
            continue;
        }
        if text[i..].starts_with("__") {
            i += 2;
        }
        if i < b.len() && is_id(b[i]) {
            continue;
        }
        // Expect `((`, possibly with white space.
        let mut j = i;
        let mut opened = 0;
        while j < b.len() && opened < 2 {
            match b[j] {
                b'(' => opened += 1,
                c if c.is_ascii_whitespace() => {}
                _ => break,
            }
            j += 1;
        }
        if opened < 2 {
            continue;
        }
        // Inside the attribute list (depth 2): names are identifiers at depth 2.
        let mut depth = 2;
        let mut in_str = false;
        while j < b.len() && depth >= 2 {
            let c = b[j];
            if in_str {
                if c == b'\\' {
                    j += 1;
                } else if c == b'"' {
                    in_str = false;
                }
                j += 1;
                continue;
            }
            match c {
                b'"' => in_str = true,
                b'(' => depth += 1,
                b')' => depth -= 1,
                c if depth == 2 && (c.is_ascii_alphabetic() || c == b'_') => {
                    let s = j;
                    while j < b.len() && is_id(b[j]) {
                        j += 1;
                    }
                    out.push(FoundAttr { offset: s, len: j - s, name: text[s..j].to_string() });
                    continue;
                }
                _ => {}
            }
            j += 1;
        }
        i = j.max(i);
    }
    // C11 `_Alignas(...)`: an alignment like `aligned` (decision 57).
    let mut k = 0;
    while let Some(p) = text[k..].find("_Alignas") {
        let s = k + p;
        k = s + "_Alignas".len();
        let before_ok = s == 0 || !is_id(b[s - 1]);
        let after_ok = k >= b.len() || !is_id(b[k]);
        if before_ok && after_ok {
            out.push(FoundAttr { offset: s, len: k - s, name: "aligned".into() });
        }
    }
    out.sort_by_key(|a| a.offset);
    out
}

/// For an attribute between `struct`/`union` and a tag (`struct __attribute__((packed)) S {`,
/// a place where lang-c drops it): the struct's key (`struct S`). `offset` is the attribute
/// name's offset.
pub fn tag_after_attribute(text: &str, offset: usize) -> Option<String> {
    let kw = text.get(..offset)?.rfind("__attribute")?;
    let before = text[..kw].trim_end();
    let kind = ["struct", "union"].into_iter().find(|k| {
        before.ends_with(k)
            && !before[..before.len() - k.len()].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })?;
    let open = kw + text[kw..].find('(')?;
    let mut depth = 0;
    let mut close = None;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i + 1);
                    break;
                }
            }
            _ => {}
        }
    }
    // The attribute group found must be the one holding `offset` (not an earlier one).
    let close = close.filter(|c| *c > offset)?;
    let rest = text[close..].trim_start();
    let tag: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if tag.is_empty() || tag.starts_with(|c: char| c.is_ascii_digit()) || tag.starts_with("__attribute") {
        return None;
    }
    Some(format!("{kind} {tag}"))
}

/// Width in bits of a `mode` attribute's machine mode for integers (`QI`, `HI`, `SI`, `DI`,
/// `word`, `pointer`, with or without `__` decoration); `None` for other modes (`TI`, float
/// and vector modes), which are not modelled.
pub fn mode_bits(mode: &str, long_bits: u32) -> Option<u32> {
    match bare_name(mode) {
        "QI" | "byte" => Some(8),
        "HI" => Some(16),
        "SI" => Some(32),
        "DI" => Some(64),
        "word" | "pointer" => Some(long_bits),
        _ => None,
    }
}

/// The inline `asm` policy (decision 58) for an extended asm's clobbers and template: a
/// statement with a `"memory"` clobber and a non-empty template may write any memory, which is
/// not modelled; an empty template with a `"memory"` clobber is a compiler barrier.
pub fn asm_writes_memory(template: &str, clobbers: &[String]) -> bool {
    let empty = template.trim().is_empty();
    !empty && clobbers.iter().any(|c| c == "memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_attribute_names_with_arguments_and_strings() {
        let t = "struct __attribute__((packed, aligned(4))) S { int a; } x __attribute((__unused__));\n\
                 void f(void) __attribute__ ((__format__ (__printf__, 1, 2), section(\"a)b\")));\n\
                 int my__attribute__x;";
        let names: Vec<String> = scan_attributes(t).iter().map(|a| a.name.clone()).collect();
        assert_eq!(names, ["packed", "aligned", "__unused__", "__format__", "section"]);
        let t2 = "struct S { _Alignas(8) char c; int my_Alignas; };";
        let a = scan_attributes(t2);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].offset, a[0].name.as_str()), (11, "aligned"));
        let a = &scan_attributes(t)[0];
        assert_eq!(&t[a.offset..a.offset + a.len], "packed");
    }

    #[test]
    fn finds_the_tag_after_an_attribute() {
        let t = "struct __attribute__((packed)) S { int a; }; union __attribute__((aligned(8))) U {}; \
                 struct __attribute__((packed)) { int b; } x; mystruct __attribute__((packed)) T;";
        let at = |n: usize| scan_attributes(t)[n].offset;
        assert_eq!(tag_after_attribute(t, at(0)).as_deref(), Some("struct S"));
        assert_eq!(tag_after_attribute(t, at(1)).as_deref(), Some("union U"));
        assert_eq!(tag_after_attribute(t, at(2)), None);
        assert_eq!(tag_after_attribute(t, at(3)), None);
        let t2 = "struct __attribute__((packed)) S { int a; }; int _Alignas(8) v;";
        assert_eq!(tag_after_attribute(t2, t2.find("_Alignas").unwrap()), None);
    }

    #[test]
    fn classifies() {
        assert_eq!(classify("__noreturn__"), AttrKind::Ignore);
        assert_eq!(classify("__packed__"), AttrKind::Layout);
        assert_eq!(classify("aligned"), AttrKind::Layout);
        assert_eq!(classify("__mode__"), AttrKind::Mode);
        assert_eq!(classify("cleanup"), AttrKind::Unmodelled);
        assert_eq!(classify("__constructor__"), AttrKind::Unmodelled);
        assert_eq!(classify("__transparent_union__"), AttrKind::Ignore);
        assert_eq!(classify("__alias__"), AttrKind::Ignore);
        assert_eq!(classify("vector_size"), AttrKind::Unmodelled);
        assert_eq!(classify("something_new"), AttrKind::Unmodelled);
    }

    #[test]
    fn modes_and_asm_memory() {
        assert_eq!(mode_bits("__QI__", 64), Some(8));
        assert_eq!(mode_bits("DI", 32), Some(64));
        assert_eq!(mode_bits("__word__", 32), Some(32));
        assert_eq!(mode_bits("TI", 64), None);
        assert!(!asm_writes_memory("", &["memory".into()]));
        assert!(asm_writes_memory("mfence", &["memory".into()]));
        assert!(!asm_writes_memory("nop", &[]));
    }
}
