//! Reading: a witness whose lines are off by a constant (decision 38, cause 3), and witnesses
//! written for another program.

use super::*;

/// [`explore`] with every line of the witness shifted by `k` (decision 38), saying why.
#[allow(clippy::too_many_arguments)]
pub(in crate::product) fn explore_shifted(
    cfa: &Cfa,
    source: &str,
    witness: &WitnessAutomaton,
    anchors: &Anchors,
    opts: &ExploreOptions,
    reach: &ErrorReach,
    k: i64,
    why: &str,
) -> Outcome {
    let moved = shift_lines(witness, k);
    let mut shifted = explore_with(cfa, source, &moved, anchors, opts, reach);
    // Issue 19, cause 3: a shift may confirm only if every value claim lands on a statement that
    // can carry it (its line names the claim's variables; a `\result` claim, a call).
    if matches!(shifted.verdict, Verdict::Confirmed { .. }) {
        let names: HashSet<&str> = cfa.vars.iter().map(|v| v.name.as_str()).collect();
        if let Some(why) = misplaced_claim(source, &moved, &names) {
            let reason = format!(
                "a path to the violation was found with every line shifted by {k:+}, but the shift misplaces a value \
                 claim: {why}"
            );
            shifted.verdict = Verdict::Unknown { reason: reason.clone() };
            shifted.reason = reason;
        }
    }
    shifted.warnings.insert(
        0,
        format!(
            "{why}; with every line shifted by {k:+} each of its transitions on the way to the violation lies on a \
             statement (and with no other shift up to {MAX_LINE_SHIFT}): validated with the shift"
        ),
    );
    shifted
}

/// Issue 19, cause 3: the first transition on the way to the violation whose assumption names
/// a variable of the program (one of `names`) its line does not mention, or claims `\result` on
/// a line without a call. Names of no program variable (a producer's own) are left out.
pub(in crate::product) fn misplaced_claim(source: &str, w: &WitnessAutomaton, names: &HashSet<&str>) -> Option<String> {
    pub(super) static WORD: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let word = WORD.get_or_init(|| regex::Regex::new(r"\\?[A-Za-z_][A-Za-z0-9_]*").expect("regex"));
    let lines: Vec<&str> = source.lines().collect();
    for t in relevant_transitions(w) {
        let tr = &w.graph[t];
        let (Some(a), Some(r)) = (&tr.assumption, tr.guard.lines) else { continue };
        let text: String = (r.start..=r.end)
            .filter_map(|l| lines.get((l as usize).wrapping_sub(1)).copied())
            .collect::<Vec<_>>()
            .join("\n");
        let mentions: HashSet<&str> = word.find_iter(&text).map(|m| m.as_str()).collect();
        for e in &a.expressions {
            for m in word.find_iter(e) {
                let name = m.as_str();
                // Suffixes and hex digits of numbers (`1.0f`, `80u`, `0x1F`), members (`s.f`, `p->f`).
                let before = &e.as_bytes()[..m.start()];
                if before.last().is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.') || before.ends_with(b"->") {
                    continue;
                }
                let keyword = matches!(
                    name,
                    "sizeof"
                        | "NAN"
                        | "INFINITY"
                        | "HUGE_VAL"
                        | "HUGE_VALF"
                        | "int"
                        | "char"
                        | "short"
                        | "long"
                        | "unsigned"
                        | "signed"
                        | "float"
                        | "double"
                        | "void"
                        | "struct"
                        | "union"
                        | "enum"
                        | "_Bool"
                        | "const"
                        | "volatile"
                ) || name.starts_with(|c: char| c.is_ascii_digit());
                if keyword || (name != "\\result" && !names.contains(name)) {
                    continue;
                }
                let missing = if name == "\\result" { !text.contains('(') } else { !mentions.contains(name) };
                if missing {
                    return Some(format!(
                        "the assumption `{e}` at {} lands on line {}, which {}",
                        tr.origin,
                        r.start,
                        if name == "\\result" {
                            "holds no call".to_string()
                        } else {
                            format!("does not mention `{name}`")
                        }
                    ));
                }
            }
        }
    }
    None
}

/// Transitions on some path from the entry to a violation state: the ones a confirming run
/// may have to pass.
pub(in crate::product) fn relevant_transitions(w: &WitnessAutomaton) -> Vec<EdgeIndex> {
    let to_violation = violation_distance(w);
    let mut reach = HashSet::new();
    let mut todo = vec![w.entry];
    while let Some(n) = todo.pop() {
        if reach.insert(n) {
            todo.extend(w.graph.neighbors_directed(n, Direction::Outgoing));
        }
    }
    w.graph
        .edge_references()
        .filter(|t| reach.contains(&t.source()) && to_violation.contains_key(&t.target()))
        .map(|t| t.id())
        .collect()
}

/// Source line ranges of the program's steps.
pub(in crate::product) fn step_lines(cfa: &Cfa) -> Vec<(u64, u64)> {
    cfa.graph.edge_weights().filter_map(|e| e.span.map(|s| (s.start_line as u64, s.end_line as u64))).collect()
}

/// Does a transition's line range, shifted by `k`, hold a program step?
pub(in crate::product) fn lines_fit(lines: Range, k: i64, steps: &[(u64, u64)]) -> bool {
    let (start, end) = (lines.start as i64 + k, lines.end as i64 + k);
    start >= 1 && steps.iter().any(|&(a, b)| Range { start: start as u64, end: end as u64 }.overlaps(a, b))
}

/// A transition on a path from the entry to a violation state whose source lines hold no
/// program step at all (a blank line, a comment, a lone brace, past the end): such a witness was
/// written for another version of the program text (decision 38).
pub(in crate::product) fn unmatched_transition(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
    let steps = step_lines(cfa);
    relevant_transitions(w).into_iter().find_map(|t| {
        let lines = w.graph[t].guard.lines?;
        if lines_fit(lines, 0, &steps) {
            return None;
        }
        Some(format!(
            "the witness's transition at {} expects a step on line {}, where this program has no statement: \
             the witness seems to be written for another version of the program",
            w.graph[t].origin, lines.start
        ))
    })
}

/// Every transition with lines on the way to a violation state lies on lines with no program
/// step (and there is at least one): the witness describes another program.
pub(in crate::product) fn nothing_matches(cfa: &Cfa, w: &WitnessAutomaton) -> Option<String> {
    let steps = step_lines(cfa);
    let with_lines: Vec<Range> = relevant_transitions(w).into_iter().filter_map(|t| w.graph[t].guard.lines).collect();
    if with_lines.is_empty() || with_lines.iter().any(|l| lines_fit(*l, 0, &steps)) {
        return None;
    }
    Some(format!(
        "none of the witness's {} transitions on the way to the violation names a line with a statement of this \
         program (they fall on blank lines, comments or braces): the witness seems to be written for another \
         program",
        with_lines.len()
    ))
}

/// Largest constant line shift searched for (decision 38).
pub(in crate::product) const MAX_LINE_SHIFT: i64 = 20;

/// The one nonzero shift `k` (|k| <= [`MAX_LINE_SHIFT`]) that puts every transition on the way
/// to a violation state on a line with a program step; `None` if no shift or several do.
pub(in crate::product) fn unique_line_shift(cfa: &Cfa, w: &WitnessAutomaton) -> Option<i64> {
    let steps = step_lines(cfa);
    let lines: Vec<Range> = relevant_transitions(w).into_iter().filter_map(|t| w.graph[t].guard.lines).collect();
    if lines.is_empty() {
        return None;
    }
    let mut fitting =
        (-MAX_LINE_SHIFT..=MAX_LINE_SHIFT).filter(|&k| k != 0 && lines.iter().all(|&r| lines_fit(r, k, &steps)));
    match (fitting.next(), fitting.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

/// The witness with every line moved by `k` and its offsets dropped (they belong to the
/// other text). A line moved below 1 never matches.
pub(in crate::product) fn shift_lines(w: &WitnessAutomaton, k: i64) -> WitnessAutomaton {
    let mut shifted = w.clone();
    for t in shifted.graph.edge_weights_mut() {
        t.guard.offsets = None;
        if let Some(r) = &mut t.guard.lines {
            let (start, end) = (r.start as i64 + k, r.end as i64 + k);
            *r = if start >= 1 { Range { start: start as u64, end: end as u64 } } else { Range { start: 1, end: 0 } };
        }
    }
    shifted
}

/// If every path from the entry to a violation state passes a transition on a line past the end
/// of the program, no run of this program can pass it, under any reading: the reason, naming
/// one such transition (decision 38).
pub(in crate::product) fn past_end_cut(cfa: &Cfa, w: &WitnessAutomaton) -> Option<(String, String)> {
    let lines = cfa.line_count();
    let past = |t: EdgeIndex| w.graph[t].guard.lines.is_some_and(|r| r.start > lines);
    let mut reach = HashSet::new();
    let mut todo = vec![w.entry];
    while let Some(n) = todo.pop() {
        if w.graph[n].violation {
            return None;
        }
        if reach.insert(n) {
            todo.extend(w.graph.edges_directed(n, Direction::Outgoing).filter(|t| !past(t.id())).map(|t| t.target()));
        }
    }
    let first = relevant_transitions(w).into_iter().find(|&t| past(t))?;
    let r = w.graph[first].guard.lines?;
    let why = format!(
        "the witness does not describe this program: its transition at {} expects a step on line {}, past the end of \
         the program ({lines} lines), and every path to its violation node passes such a transition, so no run can \
         reach it",
        w.graph[first].origin, r.start
    );
    Some((why, w.graph[first].origin.clone()))
}
