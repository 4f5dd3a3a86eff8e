//! Thread keys of concurrent violation witnesses (issue 22, decision 160; concurrency digest
//! §2–§3): GraphML's `threadId`/`createThread` and the YAML 2.2 draft's `thread_id`.
//!
//! GraphML, on the witness graph alone (the program only softens one severity):
//! * L23 — a `threadId` or `createThread` without a value (error).
//! * L18 — a `threadId` naming an id that no path from the entry creates before the edge, other
//!   than main's (error). Main's id is the `threadId` of an edge leaving the entry or of an edge
//!   entering `main` (Dartagnan declares it with a `createThread` on the first edge); when the
//!   witness names it nowhere, the first uncreated id met is taken for main and the others are
//!   warnings (which one is main is a guess).
//! * L21 — a `createThread` naming an id that is live on that path: created and not yet ended by
//!   the return from its start routine (its call stack empty again), or main's, or the creating
//!   thread's own (error). A thread whose call stack the witness never follows (no
//!   `enterFunction` on it, Dartagnan's style) and programs that call `pthread_exit` (a thread
//!   may end without a return) make it a warning.
//! * L22 — a created thread's first step on a path that does not enter its start routine
//!   (`enterFunction`); the format says the routine must be entered by a later transition
//!   (warning: Dartagnan omits it).
//!
//! L21 and L22 follow each path from the entry with the live threads and their call depths
//! (states visited once; depths saturate, at most `MAX_STATES` states: a bounded walk, findings
//! on the paths it covered). L18 is a union over all paths (exact for "no path creates it").
//!
//! YAML: Y19 `thread_id` not a non-negative integer, Y20 `thread_id` in a witness that says it
//! is format 2.0 or 2.1, Y21 thread k named before k thread-creating `function_enter`
//! waypoints (errors).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::Path;

use super::program::ProgramFacts;
use super::{Severity, Sink};

/// Most (node, live threads) states the path walk visits.
const MAX_STATES: usize = 200_000;
/// Call depths saturate here (recursion in a witness loop would not end the walk otherwise).
const MAX_DEPTH: u32 = 1_000;
/// Above this many (node × thread id) pairs the union over paths is not computed.
const MAX_SET_WORK: usize = 20_000_000;

/// The thread-relevant part of one GraphML edge.
pub(super) struct ThreadEdge {
    pub source: String,
    pub target: String,
    /// `threadId`: its value and the position of its `<data>` element.
    pub thread: Option<(String, (u32, u32))>,
    /// `createThread`: likewise.
    pub create: Option<(String, (u32, u32))>,
    pub enter: Option<String>,
    pub ret: Option<String>,
}

/// A live thread on one path.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
struct Live {
    /// Main (never ends on a path, calls not followed).
    main: bool,
    /// An `enterFunction` on this thread was seen since its creation.
    entered: bool,
    depth: u32,
    /// The `createThread` edge that created it.
    created_at: Option<usize>,
}

/// L18, L21, L22 on the edges of a GraphML witness.
pub(super) fn check_graphml(edges: &[ThreadEdge], entry: &str, program: Option<&ProgramFacts>, sink: &mut Sink) {
    if edges.iter().all(|e| e.thread.is_none() && e.create.is_none()) {
        return;
    }
    // Interned thread ids and node names.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    for e in edges {
        for (v, _) in e.thread.iter().chain(e.create.iter()) {
            if !ids.contains_key(v.as_str()) {
                ids.insert(v.as_str(), names.len() as u32);
                names.push(v.as_str());
            }
        }
    }
    let id = |v: &Option<(String, (u32, u32))>| v.as_ref().map(|(s, _)| ids[s.as_str()]);
    let mut nodes: HashMap<&str, usize> = HashMap::new();
    nodes.insert(entry, 0);
    for e in edges {
        for n in [e.source.as_str(), e.target.as_str()] {
            let k = nodes.len();
            nodes.entry(n).or_insert(k);
        }
    }
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, e) in edges.iter().enumerate() {
        succ[nodes[e.source.as_str()]].push(i);
    }
    let target = |i: usize| nodes[edges[i].target.as_str()];

    // Main's ids: the thread of an edge leaving the entry or entering `main`, and an id a
    // `createThread` without `threadId` declares on an edge leaving the entry (Dartagnan).
    let mut main_ids: BTreeSet<u32> = BTreeSet::new();
    for e in edges {
        let from_entry = nodes[e.source.as_str()] == 0;
        if from_entry || e.enter.as_deref() == Some("main") {
            main_ids.extend(id(&e.thread));
        }
        if from_entry && e.thread.is_none() {
            main_ids.extend(id(&e.create));
        }
    }

    // L18: the ids some path creates before each node (union over paths, a fixpoint).
    if ids.len().saturating_mul(nodes.len()) > MAX_SET_WORK {
        sink.push(
            Severity::Note,
            "L18",
            None,
            format!("thread ids not checked: {} ids on {} nodes is beyond the linter's bound", ids.len(), nodes.len()),
        );
        return;
    }
    let mut created: Vec<Option<BTreeSet<u32>>> = vec![None; nodes.len()];
    created[0] = Some(BTreeSet::new());
    let mut todo: VecDeque<usize> = VecDeque::from([0]);
    while let Some(n) = todo.pop_front() {
        let here = created[n].clone().unwrap_or_default();
        for &i in &succ[n] {
            let mut out = here.clone();
            out.extend(id(&edges[i].create));
            let t = target(i);
            let grew = match &mut created[t] {
                Some(slot) => {
                    let before = slot.len();
                    slot.extend(out);
                    slot.len() != before
                }
                slot @ None => {
                    *slot = Some(out);
                    true
                }
            };
            if grew {
                todo.push_back(t);
            }
        }
    }
    // Report in breadth-first order from the entry, once per id.
    let mut guessed_main = None;
    let mut reported: HashSet<u32> = HashSet::new();
    let mut seen = vec![false; nodes.len()];
    seen[0] = true;
    let mut bfs = VecDeque::from([0usize]);
    while let Some(n) = bfs.pop_front() {
        for &i in &succ[n] {
            let e = &edges[i];
            if let Some((value, (line, col))) = &e.thread {
                let t = ids[value.as_str()];
                let made = created[n].as_ref().is_some_and(|s| s.contains(&t));
                if !made && !main_ids.contains(&t) && !reported.contains(&t) {
                    if main_ids.is_empty() && guessed_main.is_none() {
                        guessed_main = Some(t);
                    }
                    if guessed_main != Some(t) {
                        reported.insert(t);
                        let (sev, main) = match guessed_main {
                            Some(m) => (
                                Severity::Warning,
                                format!("main's id is not named; `{}` was taken for it", names[m as usize]),
                            ),
                            None => (
                                Severity::Error,
                                format!(
                                    "main is {}",
                                    main_ids
                                        .iter()
                                        .map(|m| format!("`{}`", names[*m as usize]))
                                        .collect::<Vec<_>>()
                                        .join(" or ")
                                ),
                            ),
                        };
                        sink.at(
                            sev,
                            "L18",
                            *line,
                            *col,
                            format!("`threadId` `{value}` names a thread that no path to this edge creates (no `createThread` `{value}` before it; {main})"),
                        );
                    }
                }
            }
            let t = target(i);
            if !seen[t] {
                seen[t] = true;
                bfs.push_back(t);
            }
        }
    }
    main_ids.extend(guessed_main);

    // L21 and L22: each path with its live threads.
    let pthread_exit = program.is_some_and(|p| p.mentions_function("pthread_exit"));
    let initial: BTreeMap<u32, Live> =
        main_ids.iter().map(|&m| (m, Live { main: true, entered: true, depth: 0, created_at: None })).collect();
    let mut visited: HashSet<(usize, BTreeMap<u32, Live>)> = HashSet::new();
    let mut stack = vec![(0usize, initial)];
    let mut reused: HashSet<usize> = HashSet::new();
    let mut not_entered: HashSet<usize> = HashSet::new();
    let mut findings: Vec<(Severity, &'static str, (u32, u32), String)> = Vec::new();
    let mut complete = true;
    while let Some((n, state)) = stack.pop() {
        if visited.len() >= MAX_STATES {
            complete = false;
            break;
        }
        if !visited.insert((n, state.clone())) {
            continue;
        }
        for &i in &succ[n] {
            let e = &edges[i];
            let mut st = state.clone();
            if let (Some(t), Some((value, at))) = (id(&e.thread), &e.thread) {
                if let Some(l) = st.get_mut(&t).filter(|l| !l.main) {
                    if !l.entered && e.enter.is_none() {
                        if let Some(c) = l.created_at.filter(|&c| not_entered.insert(c)) {
                            let created_line = edges[c].create.as_ref().map(|(_, (line, _))| *line).unwrap_or(0);
                            findings.push((
                                Severity::Warning,
                                "L22",
                                *at,
                                format!(
                                    "the first step of thread `{value}` (created at line {created_line}) does not enter its start routine: the format wants an `enterFunction` on it"
                                ),
                            ));
                        }
                    }
                    let mut ended = false;
                    if let Some(_r) = e.ret.as_deref().filter(|r| e.enter.as_deref() != Some(*r)) {
                        if l.depth > 0 {
                            l.depth -= 1;
                            ended = l.depth == 0 && l.entered;
                        }
                    }
                    if ended {
                        st.remove(&t);
                    } else if e.enter.as_deref().is_some_and(|f| e.ret.as_deref() != Some(f)) {
                        l.depth = (l.depth + 1).min(MAX_DEPTH);
                        l.entered = true;
                    }
                }
            }
            if let (Some(c), Some((value, at))) = (id(&e.create), &e.create) {
                let declares_main = e.thread.is_none() && main_ids.contains(&c);
                if !declares_main {
                    let own = id(&e.thread) == Some(c);
                    if let Some(l) = st.get(&c).cloned().or_else(|| own.then(Live::default)) {
                        if reused.insert(i) {
                            let (sev, what) = if own {
                                (Severity::Error, "the creating thread's own id".to_string())
                            } else if l.main {
                                (
                                    if pthread_exit { Severity::Warning } else { Severity::Error },
                                    "main's id".to_string(),
                                )
                            } else if !l.entered {
                                (
                                    Severity::Warning,
                                    "the id of a thread created before on this path whose start routine the witness never enters (its end is not visible)".to_string(),
                                )
                            } else {
                                let created_line = l
                                    .created_at
                                    .and_then(|c| edges[c].create.as_ref())
                                    .map(|(_, (line, _))| *line)
                                    .unwrap_or(0);
                                (
                                    if pthread_exit { Severity::Warning } else { Severity::Error },
                                    format!("the id of the thread created at line {created_line}, which has not returned from its start routine on this path"),
                                )
                            };
                            findings.push((
                                sev,
                                "L21",
                                *at,
                                format!("`createThread` `{value}` reuses {what}: an id names one live thread"),
                            ));
                        }
                    }
                    st.insert(c, Live { main: false, entered: false, depth: 0, created_at: Some(i) });
                }
            }
            stack.push((target(i), st));
        }
    }
    findings.sort_by_key(|f| f.2);
    for (sev, check, (line, col), msg) in findings {
        sink.at(sev, check, line, col, msg);
    }
    if !complete {
        sink.push(
            Severity::Note,
            "L21",
            None,
            format!("thread creation and start checked on the first {MAX_STATES} states of the witness's paths only"),
        );
    }
}

/// Y19–Y21 on a YAML witness's `thread_id`s. `version` is the witness's `format_version`.
pub(super) fn check_yaml(
    path: &Path,
    bytes: &[u8],
    version: Option<&str>,
    program: Option<&ProgramFacts>,
    sink: &mut Sink,
) {
    let Ok(waypoints) = crate::witness::yaml::thread_waypoints(path, bytes) else { return };
    let with_id: Vec<_> = waypoints.iter().filter_map(|w| w.thread_id.as_ref()).collect();
    let Some(&(_, line, col)) = with_id.first() else { return };
    if let Some(v @ ("2.0" | "2.1")) = version {
        sink.at(
            Severity::Error,
            "Y20",
            *line,
            *col,
            format!(
                "`thread_id` in a format_version {v} witness ({} waypoints): the key belongs to the format 2.2 draft",
                with_id.len()
            ),
        );
    }
    // Thread-creating `function_enter` waypoints before each waypoint, in document (segment)
    // order. Without the program every `function_enter` counts (an upper bound); with it, one on
    // a line that calls `pthread_create`. Waypoints of any action count (the lenient reading).
    let mut creators = 0u64;
    for w in &waypoints {
        if let Some((text, line, col)) = &w.thread_id {
            match text.as_deref().and_then(thread_number) {
                None => sink.at(
                    Severity::Error,
                    "Y19",
                    *line,
                    *col,
                    format!(
                        "`thread_id` is {}, not a non-negative integer",
                        text.as_deref().map(|t| format!("`{t}`")).unwrap_or_else(|| "a collection".into())
                    ),
                ),
                Some(k) if k > creators => {
                    let counted = if program.is_some() {
                        "thread-creating `function_enter` waypoints (at a `pthread_create` call)"
                    } else {
                        "`function_enter` waypoints"
                    };
                    sink.at(
                        Severity::Error,
                        "Y21",
                        *line,
                        *col,
                        format!(
                            "thread {k} is named before it is created: only {creators} {counted} precede this waypoint, and thread k is the one the k-th registers (0 is main)"
                        ),
                    );
                }
                Some(_) => {}
            }
        }
        let creates = w.wtype.as_deref() == Some("function_enter")
            && match (program, w.line) {
                (Some(p), Some(l)) => p.line_mentions_function(l, "pthread_create"),
                (Some(_), None) => false,
                (None, _) => true,
            };
        if creates {
            creators += 1;
        }
    }
}

/// A `thread_id` value: a non-negative integer (decimal, or YAML's `0x`/`0o` forms).
fn thread_number(text: &str) -> Option<u64> {
    let t = text.trim();
    let (radix, digits) = if let Some(d) = t.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = t.strip_prefix("0o") {
        (8, d)
    } else {
        (10, t.strip_prefix('+').unwrap_or(t))
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::thread_number;
    use crate::lint::{lint, LintOptions, ProgramFacts};
    use std::path::Path;

    /// `(source, target, [(key, value)])`.
    type Edge<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

    /// A GraphML violation witness: entry `N0`, the last edge's target the violation node;
    /// each edge `(source, target, [(key, value)])`.
    fn graphml(edges: &[Edge]) -> String {
        let keys = ["threadId", "createThread", "enterFunction", "returnFromFunction", "startline"]
            .iter()
            .map(|k| format!("<key id=\"{k}\" attr.name=\"{k}\" attr.type=\"string\" for=\"edge\"/>\n"))
            .collect::<String>();
        let mut nodes: Vec<&str> = vec!["N0"];
        for (s, t, _) in edges {
            for n in [*s, *t] {
                if !nodes.contains(&n) {
                    nodes.push(n);
                }
            }
        }
        let violation = edges.last().map(|e| e.1).unwrap_or("N0");
        let mut out = format!(
            "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n{keys}\
             <key id=\"entry\" attr.name=\"isEntryNode\" attr.type=\"boolean\" for=\"node\"><default>false</default></key>\n\
             <key id=\"violation\" attr.name=\"isViolationNode\" attr.type=\"boolean\" for=\"node\"><default>false</default></key>\n\
             <key id=\"witness-type\" attr.name=\"witness-type\" attr.type=\"string\" for=\"graph\"/>\n\
             <graph edgedefault=\"directed\">\n<data key=\"witness-type\">violation_witness</data>\n"
        );
        for n in nodes {
            let data = match n {
                "N0" => "<data key=\"entry\">true</data>",
                _ if n == violation => "<data key=\"violation\">true</data>",
                _ => "",
            };
            out += &format!("<node id=\"{n}\">{data}</node>\n");
        }
        for (s, t, data) in edges {
            out += &format!("<edge source=\"{s}\" target=\"{t}\">");
            for (k, v) in *data {
                out += &format!("<data key=\"{k}\">{v}</data>");
            }
            out += "</edge>\n";
        }
        out + "</graph>\n</graphml>\n"
    }

    /// The thread findings (L18, L21–L23, Y19–Y21) of a witness, as `severity check`.
    fn findings(name: &str, text: &str, program: Option<&str>) -> Vec<String> {
        let facts = program.map(|p| ProgramFacts::new(Path::new("p.c"), p.as_bytes()));
        let r = lint(Path::new(name), text.as_bytes(), facts.as_ref(), LintOptions { strict: false });
        r.findings
            .iter()
            .filter(|f| ["L18", "L21", "L22", "L23", "Y19", "Y20", "Y21"].contains(&f.check))
            .map(|f| format!("{} {}", f.severity.name(), f.check))
            .collect()
    }

    fn gml(edges: &[Edge]) -> Vec<String> {
        findings("w.graphml", &graphml(edges), None)
    }

    const MAIN: &[(&str, &str)] = &[("threadId", "0"), ("enterFunction", "main")];
    const CREATE1: &[(&str, &str)] = &[("threadId", "0"), ("createThread", "1")];
    const ENTER1: &[(&str, &str)] = &[("threadId", "1"), ("enterFunction", "t")];
    const RETURN1: &[(&str, &str)] = &[("threadId", "1"), ("returnFromFunction", "t")];
    const STEP1: &[(&str, &str)] = &[("threadId", "1"), ("startline", "3")];

    #[test]
    fn l23_thread_keys_have_values() {
        assert_eq!(gml(&[("N0", "N1", MAIN), ("N1", "N2", &[("threadId", " ")])]), ["error L23"]);
        assert_eq!(gml(&[("N0", "N1", MAIN), ("N1", "N2", &[("threadId", "0"), ("createThread", "")])]), ["error L23"]);
        assert!(gml(&[("N0", "N1", MAIN), ("N1", "N2", &[("threadId", "0")])]).is_empty());
    }

    #[test]
    fn l18_thread_ids_are_created_before_use() {
        assert_eq!(gml(&[("N0", "N1", MAIN), ("N1", "N2", STEP1)]), ["error L18"]);
        assert!(gml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", ENTER1), ("N3", "N4", STEP1)]).is_empty());
        // Created on one branch only: some path creates it (the union over paths).
        assert!(gml(&[
            ("N0", "N1", MAIN),
            ("N1", "N2", CREATE1),
            ("N1", "N2b", &[("threadId", "0")]),
            ("N2b", "N2", &[("threadId", "0")]),
            ("N2", "N3", ENTER1),
        ])
        .is_empty());
        // The creating edge's own id is no creation before it.
        assert_eq!(
            gml(&[("N0", "N1", MAIN), ("N1", "N2", &[("threadId", "2"), ("createThread", "2")])]),
            ["error L18", "error L21"]
        );
        // Main's id named nowhere: the first uncreated id is taken for main, a second is a warning.
        assert_eq!(
            gml(&[("N0", "N1", &[]), ("N1", "N2", &[("threadId", "7")]), ("N2", "N3", &[("threadId", "8")])]),
            ["warning L18"]
        );
        assert!(gml(&[("N0", "N1", &[]), ("N1", "N2", &[("threadId", "7")]), ("N2", "N3", &[("threadId", "7")])])
            .is_empty());
    }

    #[test]
    fn l21_created_ids_are_not_live() {
        let recreate = &[("threadId", "0"), ("createThread", "1")];
        // Entered and not returned: live.
        assert_eq!(
            gml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", ENTER1), ("N3", "N4", recreate)]),
            ["error L21"]
        );
        // Returned from its start routine: ended, the id may be reused.
        assert!(gml(&[
            ("N0", "N1", MAIN),
            ("N1", "N2", CREATE1),
            ("N2", "N3", ENTER1),
            ("N3", "N4", RETURN1),
            ("N4", "N5", recreate),
            ("N5", "N6", ENTER1),
        ])
        .is_empty());
        // A nested return does not end the thread.
        assert_eq!(
            gml(&[
                ("N0", "N1", MAIN),
                ("N1", "N2", CREATE1),
                ("N2", "N3", ENTER1),
                ("N3", "N4", &[("threadId", "1"), ("enterFunction", "g")]),
                ("N4", "N5", &[("threadId", "1"), ("returnFromFunction", "g")]),
                ("N5", "N6", recreate),
            ]),
            ["error L21"]
        );
        // On another branch: not live there.
        assert!(gml(&[
            ("N0", "N1", MAIN),
            ("N1", "N2", CREATE1),
            ("N2", "N3", ENTER1),
            ("N1", "N4", &[("threadId", "0"), ("createThread", "1")]),
            ("N4", "N3", ENTER1),
        ])
        .is_empty());
        // Main's id.
        assert_eq!(
            gml(&[("N0", "N1", MAIN), ("N1", "N2", &[("threadId", "0"), ("createThread", "0")])]),
            ["error L21"]
        );
        // Never entered (its end is not visible): a warning.
        assert_eq!(gml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", recreate)]), ["warning L21"]);
        // With a program that calls pthread_exit a thread may end without a return: a warning.
        let w = graphml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", ENTER1), ("N3", "N4", recreate)]);
        assert_eq!(findings("w.graphml", &w, Some("void t(void) { pthread_exit(0); }\n")), ["warning L21"]);
        // Dartagnan declares main with a `createThread` without `threadId` on the first edge.
        assert!(gml(&[
            ("N0", "N1", &[("createThread", "0")]),
            ("N1", "N2", MAIN),
            ("N2", "N3", CREATE1),
            ("N3", "N4", ENTER1)
        ])
        .is_empty());
    }

    #[test]
    fn l22_created_threads_enter_their_start_routine() {
        assert_eq!(gml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", STEP1)]), ["warning L22"]);
        assert!(gml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", ENTER1), ("N3", "N4", STEP1)]).is_empty());
        // A path that ends before the thread runs needs no entry.
        assert!(gml(&[("N0", "N1", MAIN), ("N1", "N2", CREATE1), ("N2", "N3", &[("threadId", "0")])]).is_empty());
    }

    /// A format `version` YAML violation witness whose waypoints are `(type, thread_id, line)`.
    fn yaml(version: &str, waypoints: &[(&str, &str, u32)]) -> String {
        let mut out = format!(
            "- entry_type: violation_sequence\n  metadata:\n    format_version: \"{version}\"\n\
             \x20   uuid: \"1b8c6c86-7f3a-4a2e-9d3e-0c2f4c9b7a11\"\n    creation_time: \"2026-01-01T00:00:00Z\"\n\
             \x20   producer: {{ name: x, version: \"1\" }}\n\
             \x20   task: {{ input_files: [p.c], input_file_hashes: {{ p.c: {} }}, specification: \"G ! call(reach_error())\", data_model: LP64, language: C }}\n\
             \x20 content:\n",
            "0".repeat(64)
        );
        for (t, id, line) in waypoints {
            let constraint =
                if *t == "assumption" { ", constraint: { value: \"1\", format: c_expression }" } else { "" };
            out += &format!(
                "  - segment:\n    - waypoint: {{ type: {t}, action: follow, thread_id: {id}{constraint}, location: {{ file_name: p.c, line: {line}, column: 1 }} }}\n"
            );
        }
        out
    }

    const PROGRAM: &str = "#include <pthread.h>\nvoid reach_error(void);\nvoid *t(void *a) { return a; }\n\
                           int main(void) {\n  pthread_t h; pthread_create(&h, 0, t, 0);\n  f(1);\n  reach_error();\n}\n";

    #[test]
    fn y19_to_y21_yaml_thread_ids() {
        let good = [("function_enter", "0", 5), ("assumption", "1", 3), ("target", "0", 7)];
        assert!(findings("w.yml", &yaml("2.2", &good), Some(PROGRAM)).is_empty());
        assert!(findings("w.yml", &yaml("2.2", &good), None).is_empty());
        // Y19 (not a non-negative integer) is the reader's error now (Y1, at the value), which
        // comes first.
        // Y20: the key in a 2.0/2.1 witness.
        assert_eq!(findings("w.yml", &yaml("2.1", &good), None), ["error Y20"]);
        assert_eq!(findings("w.yml", &yaml("2.0", &good), None), ["error Y20"]);
        // Y21: thread 1 before any thread-creating function_enter; with the program, a
        // function_enter at a call that is not pthread_create registers nothing.
        let early = [("assumption", "1", 3), ("function_enter", "0", 5), ("target", "0", 7)];
        assert_eq!(findings("w.yml", &yaml("2.2", &early), None), ["error Y21"]);
        let other_call = [("function_enter", "0", 6), ("assumption", "1", 3), ("target", "0", 7)];
        assert!(findings("w.yml", &yaml("2.2", &other_call), None).is_empty());
        assert_eq!(findings("w.yml", &yaml("2.2", &other_call), Some(PROGRAM)), ["error Y21"]);
    }

    #[test]
    fn thread_numbers() {
        assert_eq!(thread_number("0"), Some(0));
        assert_eq!(thread_number(" 12 "), Some(12));
        assert_eq!(thread_number("0x10"), Some(16));
        assert_eq!(thread_number("-1"), None);
        assert_eq!(thread_number("1.5"), None);
        assert_eq!(thread_number("main"), None);
        assert_eq!(thread_number(""), None);
    }
}
