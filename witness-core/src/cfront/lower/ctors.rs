//! Constructors (decisions 106 and 138): which functions gcc runs before `main`, and in which
//! order, from the `constructor` attributes of the translation unit.

use std::collections::{HashMap, HashSet};

use lang_c::ast::*;
use lang_c::span::Node;

use super::super::gnu;
use super::super::types;
use super::ident_of_declarator;
use crate::cfa::DataModel;

/// gcc's default priority (a constructor without one, or with 65535, runs with these).
const DEFAULT_PRIORITY: u64 = 65535;

/// Where a constructor runs among the others: its priority, then the position (external
/// declaration, declarator) at which gcc creates its symbol (the order of `.init_array`
/// entries of one priority, at -O0).
pub(super) type CtorKey = (u64, (usize, usize));

/// One file-scope declaration (or the definition) of a function.
struct Decl {
    name: String,
    at: (usize, usize),
    is_def: bool,
    /// Its attributes: bare name and arguments.
    attrs: Vec<(String, Vec<Node<Expression>>)>,
}

fn attrs_of<'b>(exts: impl Iterator<Item = &'b Node<Extension>>) -> Vec<(String, Vec<Node<Expression>>)> {
    exts.filter_map(|x| match &x.node {
        Extension::Attribute(a) => Some((gnu::bare_name(&a.name.node).to_string(), a.arguments.clone())),
        _ => None,
    })
    .collect()
}

fn spec_exts(specs: &[Node<DeclarationSpecifier>]) -> impl Iterator<Item = &Node<Extension>> {
    specs.iter().flat_map(|s| match &s.node {
        DeclarationSpecifier::Extension(v) => v.iter(),
        _ => [].iter(),
    })
}

/// Every identifier in a piece of the AST (names of variables, functions, members, labels).
fn identifiers<'a>(visit: impl FnOnce(&mut Names<'a>)) -> HashSet<&'a str> {
    let mut v = Names(HashSet::new());
    visit(&mut v);
    v.0
}

struct Names<'a>(HashSet<&'a str>);

impl<'a> lang_c::visit::Visit<'a> for Names<'a> {
    fn visit_identifier(&mut self, i: &'a Identifier, _: &'a lang_c::span::Span) {
        self.0.insert(i.name.as_str());
    }
}

/// The constructors of the program with their keys (`None`: declared but not defined), in
/// gcc's order once sorted by key; or why that order is not modelled. `in_text` is the number
/// of `constructor` attributes in the text: one the AST does not show on a file-scope function
/// makes the whole set unknown.
pub(super) fn constructors(
    tu: &TranslationUnit,
    in_text: usize,
    dm: DataModel,
) -> Result<HashMap<String, (CtorKey, Option<usize>)>, String> {
    let mut decls = Vec::new();
    let mut in_ast = 0;
    let mut elsewhere = false;
    for (i, ed) in tu.0.iter().enumerate() {
        match &ed.node {
            ExternalDeclaration::FunctionDefinition(fd) => {
                let attrs: Vec<_> =
                    attrs_of(spec_exts(&fd.node.specifiers).chain(fd.node.declarator.node.extensions.iter()));
                in_ast += attrs.iter().filter(|(n, _)| n == "constructor").count();
                if let Some(n) = ident_of_declarator(&fd.node.declarator.node) {
                    decls.push(Decl { name: n.to_string(), at: (i, 0), is_def: true, attrs });
                }
            }
            ExternalDeclaration::Declaration(d) => {
                let shared = attrs_of(spec_exts(&d.node.specifiers));
                in_ast += shared.iter().filter(|(n, _)| n == "constructor").count();
                for (j, idecl) in d.node.declarators.iter().enumerate() {
                    let dcl = &idecl.node.declarator.node;
                    let own = attrs_of(dcl.extensions.iter());
                    let is_func = dcl.derived.iter().any(|x| matches!(x.node, DerivedDeclarator::Function(_)));
                    match (ident_of_declarator(dcl), is_func) {
                        (Some(n), true) => {
                            in_ast += own.iter().filter(|(n, _)| n == "constructor").count();
                            let attrs = shared.iter().cloned().chain(own).collect();
                            decls.push(Decl { name: n.to_string(), at: (i, j), is_def: false, attrs });
                        }
                        // Not a function: the attribute is not where gcc honours it.
                        _ if shared.iter().any(|(n, _)| n == "constructor") => elsewhere = true,
                        _ => {}
                    }
                }
            }
            ExternalDeclaration::StaticAssert(_) => {}
        }
    }
    let is_ctor = |d: &Decl| d.attrs.iter().any(|(n, _)| n == "constructor");
    let mut names: Vec<&str> = Vec::new();
    for d in decls.iter().filter(|d| is_ctor(d)) {
        if !names.contains(&d.name.as_str()) {
            names.push(&d.name);
        }
    }
    if in_ast != in_text || elsewhere {
        return Err("`__attribute__((constructor))` in a position that is not modelled".into());
    }
    let mut out = HashMap::new();
    for &name in &names {
        let mine: Vec<&Decl> = decls.iter().filter(|d| d.name == name).collect();
        let mut prios = Vec::new();
        for d in &mine {
            for (n, args) in &d.attrs {
                if n != "constructor" {
                    continue;
                }
                let p = match args.as_slice() {
                    [] => DEFAULT_PRIORITY,
                    [e] => priority(e, dm).ok_or_else(|| {
                        format!("priority of constructor `{name}` that is not an integer constant (not modelled)")
                    })?,
                    _ => return Err(format!("`constructor` attribute of `{name}` with several arguments")),
                };
                if !(101..=DEFAULT_PRIORITY).contains(&p) {
                    return Err(format!("constructor `{name}` with priority {p} (reserved or invalid: not modelled)"));
                }
                prios.push((p, d.at));
            }
        }
        let def = mine.iter().find(|d| d.is_def).map(|d| d.at.0);
        let key = match prios.iter().find(|(p, _)| *p != DEFAULT_PRIORITY) {
            // gcc creates the symbol when it reads a priority other than the default; one on
            // a later declaration is dropped when the declarations merge (gcc 12, checked).
            Some(&(p, at)) => {
                if prios.len() != 1 || mine.first().map(|d| d.at) != Some(at) {
                    return Err(format!(
                        "priority of constructor `{name}` on a declaration other than its first, or with another \
                         `constructor` attribute (gcc drops or merges it: not modelled)"
                    ));
                }
                (p, at)
            }
            None => (DEFAULT_PRIORITY, (def.unwrap_or(usize::MAX), 0)),
        };
        out.insert(name.to_string(), (key, def));
    }
    if names.len() >= 2 {
        order_is_fixed(tu, &decls, &names)?;
    }
    Ok(out)
}

/// An integer literal priority (macros are already expanded).
fn priority(e: &Node<Expression>, dm: DataModel) -> Option<u64> {
    let Expression::Constant(c) = &e.node else { return None };
    let Constant::Integer(i) = &c.node else { return None };
    let v = types::fold_i128(&types::integer_constant(i, dm).ok()?)?;
    u64::try_from(v).ok()
}

/// At -O1 and above gcc emits functions in an order that depends on the call graph and on
/// addresses taken, and with it the `.init_array` entries of one priority (checked: a
/// constructor that calls a function of the program, or one that is called or whose address
/// is taken, can move). With several constructors, those programs are not modelled; nor are
/// other attributes on a constructor's declarations (`section` on a prototype creates the
/// symbol early, `no_reorder` changes the order).
fn order_is_fixed(tu: &TranslationUnit, decls: &[Decl], names: &[&str]) -> Result<(), String> {
    let defined: HashSet<&str> = decls.iter().filter(|d| d.is_def).map(|d| d.name.as_str()).collect();
    let why = "gcc's order of several constructors then depends on the optimisation level (not modelled)";
    for d in decls.iter().filter(|d| names.contains(&d.name.as_str())) {
        if let Some((a, _)) = d.attrs.iter().find(|(n, _)| n != "constructor") {
            return Err(format!("constructor `{}` with the attribute `{a}`: {why}", d.name));
        }
    }
    for ed in &tu.0 {
        let (used, own) = match &ed.node {
            ExternalDeclaration::FunctionDefinition(fd) => (
                identifiers(|v| {
                    lang_c::visit::Visit::visit_statement(v, &fd.node.statement.node, &fd.node.statement.span)
                }),
                ident_of_declarator(&fd.node.declarator.node),
            ),
            ExternalDeclaration::Declaration(d) => (
                identifiers(|v| {
                    for idecl in &d.node.declarators {
                        if let Some(init) = &idecl.node.initializer {
                            lang_c::visit::Visit::visit_initializer(v, &init.node, &init.span);
                        }
                    }
                }),
                None,
            ),
            ExternalDeclaration::StaticAssert(_) => continue,
        };
        if let Some(n) = names.iter().find(|n| used.contains(**n)) {
            // (Block-scope declarations of it count too: gcc would see them first.)
            return Err(format!("constructor `{n}` is named in the program (called or its address taken): {why}"));
        }
        if let Some(c) = own.filter(|o| names.contains(o)) {
            if let Some(f) = used.iter().filter(|u| defined.contains(**u)).min() {
                return Err(format!("constructor `{c}` names `{f}`, a function of the program: {why}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::cfa::{DataModel, EdgeOp};
    use crate::cfront::build_program;

    /// The constructors called before `main` in order, or the unsupported steps' reasons.
    fn order(src: &str) -> Result<Vec<String>, Vec<String>> {
        let cfa = build_program(Path::new("test.c"), src, DataModel::Ilp32).expect("builds").cfa;
        let why: Vec<String> = cfa
            .graph
            .edge_indices()
            .map(|e| &cfa.graph[e])
            .filter_map(|e| match &e.op {
                EdgeOp::Unsupported { what } => Some(what.clone()),
                _ => None,
            })
            .collect();
        if !why.is_empty() {
            return Err(why);
        }
        // Calls are chained from `main`'s entry: follow them.
        let mut out = Vec::new();
        let mut at = cfa.function(cfa.main).entry;
        while let Some(e) = cfa.graph.edges(at).find(|e| e.weight().text.ends_with("(constructor, before main)")) {
            out.push(e.weight().text.split('(').next().unwrap_or_default().to_string());
            at = petgraph::visit::EdgeRef::target(&e);
        }
        Ok(out)
    }

    const MAIN: &str = "int main(void) { return 0; }\n";

    #[test]
    fn priorities_then_symbol_creation_order() {
        let src = format!(
            "int g;\nvoid late(void) __attribute__((constructor(150)));\n\
             __attribute__((constructor)) void plain(void) {{ g = 3; }}\n\
             __attribute__((constructor(150))) void early(void) {{ g = 2; }}\n\
             __attribute__((constructor(101))) void first(void) {{ g = 1; }}\n\
             void late(void) {{ g = 4; }}\n{MAIN}"
        );
        assert_eq!(order(&src), Ok(vec!["first".into(), "late".into(), "early".into(), "plain".into()]));
        // 65535 is the default priority: definition order with the others.
        let src = format!(
            "int g;\n__attribute__((constructor(65535))) void a(void) {{ g = 1; }}\n\
             __attribute__((constructor)) void b(void) {{ g = 2; }}\n{MAIN}"
        );
        assert_eq!(order(&src), Ok(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn orders_gcc_does_not_fix_are_unknown() {
        let unknown = |src: String, why: &str| match order(&src) {
            Err(w) => assert!(w.iter().any(|m| m.contains(why)), "{w:?}"),
            Ok(o) => panic!("modelled as {o:?}: {src}"),
        };
        let two = "__attribute__((constructor)) void other(void) { }\n";
        // A priority on a later declaration is dropped by gcc.
        unknown(format!("void d(void);\n{two}__attribute__((constructor(101))) void d(void) {{ }}\n{MAIN}"), "first");
        unknown(format!("{two}__attribute__((constructor(50))) void d(void) {{ }}\n{MAIN}"), "reserved");
        unknown(format!("{two}__attribute__((constructor(1 + 100))) void d(void) {{ }}\n{MAIN}"), "integer constant");
        // Optimisation-dependent orders.
        unknown(
            format!("{two}__attribute__((constructor)) void d(void) {{ other(); }}\n{MAIN}"),
            "named in the program",
        );
        unknown(
            format!("void h(void) {{ }}\n{two}__attribute__((constructor)) void d(void) {{ h(); }}\n{MAIN}"),
            "names `h`",
        );
        unknown(format!("void d(void) __attribute__((section(\".text.d\")));\n{two}__attribute__((constructor)) void d(void) {{ }}\n{MAIN}"), "section");
        // One constructor: its priority does not matter.
        let one = format!("void h(void) {{ }}\n__attribute__((constructor(50 + 60))) void d(void) {{ h(); }}\n{MAIN}");
        assert!(order(&one).is_err(), "a priority that is no literal is still not read");
        let one = format!("void h(void) {{ }}\n__attribute__((constructor(200))) void d(void) {{ h(); }}\n{MAIN}");
        assert_eq!(order(&one), Ok(vec!["d".into()]));
    }
}
