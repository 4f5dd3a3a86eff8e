//! The layout rules of issue 20, checked on the source tree: no import cycle between the
//! library's top-level modules, and no source file (tests aside) over 1,500 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code: its unit tests and its comments dropped.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable source file");
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

fn is_test_file(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs"))
}

/// The top-level modules each module's code names through `crate::`.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let module_of = |p: &Path| -> Option<String> {
        let first = p.strip_prefix(src).ok()?.components().next()?.as_os_str().to_str()?.to_string();
        let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
        (name != "lib" && name != "main").then_some(name)
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|p| module_of(p)).collect();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| !is_test_file(f)) {
        let Some(m) = module_of(f) else { continue };
        let code = code(f);
        let mut names = Vec::new();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                names.extend(group.split(',').map(|p| ident(p.trim())));
            } else {
                names.push(ident(rest));
            }
        }
        for n in names {
            if n != m && modules.contains(&n) {
                graph.entry(m.clone()).or_default().insert(n);
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut c = path[at..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for d in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(d, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name).join("src")
}

#[test]
fn no_import_cycle_between_modules() {
    // The least number of modules that import another: the scan still sees the imports.
    for (krate, least) in [("witness-core", 10), ("witness-check", 1)] {
        let graph = module_graph(&crate_src(krate));
        assert!(graph.len() >= least, "{krate}: the module graph looks empty: {graph:?}");
        assert_eq!(cycle(&graph), None, "{krate} has an import cycle");
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert_eq!(cycle(&g), None);
    g.entry("c".into()).or_default().insert("b".into());
    assert_eq!(cycle(&g), Some(vec!["b".into(), "c".into(), "b".into()]));
}

#[test]
fn no_source_file_over_1500_lines() {
    let mut files = Vec::new();
    for krate in ["witness-core", "witness-check", "witness-oracle"] {
        rust_files(&crate_src(krate), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter(|f| !is_test_file(f))
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let code_lines = text.split("#[cfg(test)]").next().unwrap_or_default().lines().count();
            (code_lines > 1500).then(|| format!("{} ({code_lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 1,500 lines hold more than one concern: {long:?}");
}
