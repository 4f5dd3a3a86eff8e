//! How GraphML `startoffset`/`endoffset` guards are matched against this file (decisions 5
//! and 55): as given, after a constant shift, aligned line by line, or not at all.
//!
//! Knows the CFA and the witness automaton; never evaluates anything.

use std::collections::{BTreeMap, HashMap, HashSet};

use petgraph::graph::EdgeIndex;
use petgraph::visit::EdgeRef;

use crate::cfa::{Cfa, EdgeOp};
use crate::cfront::encloses;
use crate::witness::{Range, WitnessAutomaton};

/// The way witness offsets take part in guard matching.
#[derive(Debug, Clone)]
pub enum OffsetPlan {
    /// Lines only: the witness has no offsets, or this CFA's are approximate (`gcc -E`).
    LinesOnly,
    /// Witness offsets minus this many bytes (0: as given).
    Shift(i64),
    /// Offsets that fit neither as given nor after a constant shift: ignored (see [`align`]).
    Ignored,
    /// The aligned offsets in this file; transitions not listed are matched by lines only.
    Aligned(HashMap<EdgeIndex, Range>),
}

impl OffsetPlan {
    /// The offset range (in this file) a transition's step must overlap, if any.
    pub fn offsets_of(&self, w: &WitnessAutomaton, t: EdgeIndex) -> Option<Range> {
        match self {
            OffsetPlan::LinesOnly | OffsetPlan::Ignored => None,
            OffsetPlan::Shift(k) => w.graph[t]
                .guard
                .offsets
                .map(|o| Range { start: (o.start as i64 - k).max(0) as u64, end: (o.end as i64 - k).max(0) as u64 }),
            OffsetPlan::Aligned(m) => m.get(&t).copied(),
        }
    }
}

/// A witness transition with offsets: its id, its position in the witness (for messages), its
/// offsets and lines.
type WithOffsets = (EdgeIndex, String, Range, Option<Range>);

/// The witness's transitions that carry offsets.
fn with_offsets(w: &WitnessAutomaton) -> Vec<WithOffsets> {
    w.graph
        .edge_references()
        .filter_map(|e| {
            e.weight().guard.offsets.map(|o| (e.id(), e.weight().origin.clone(), o, e.weight().guard.lines))
        })
        .collect()
}

/// Decides how offsets are used; `warnings` receives what the user should know.
pub fn plan(cfa: &Cfa, w: &WitnessAutomaton, warnings: &mut Vec<String>) -> OffsetPlan {
    let ts = with_offsets(w);
    if ts.is_empty() {
        return OffsetPlan::LinesOnly;
    }
    // Issue 19, cause 2: after `gcc -E`, offsets are exact on the lines no macro touched.
    let on_exact_lines = ts.iter().all(|(_, _, _, lines)| {
        lines.is_some_and(|r| (r.start..=r.end).all(|l| u32::try_from(l).is_ok_and(|l| cfa.line_exact(l))))
    });
    if !cfa.offsets_exact && !on_exact_lines {
        warnings
            .push("the program was preprocessed with gcc, so offsets are approximate; matching by lines only".into());
        return OffsetPlan::LinesOnly;
    }
    if offsets_fit(cfa, &ts, 0) {
        return OffsetPlan::Shift(0);
    }
    if let Some(shift) = recover_offset_shift(cfa, &ts) {
        warnings.push(format!(
            "witness offsets are shifted by {shift} bytes against this file (a preprocessed copy?); matching with the shift"
        ));
        return OffsetPlan::Shift(shift);
    }
    let (_, origin, off, lines) = &ts[0];
    let line = match lines {
        Some(l) => format!("is not on its line {}", l.start),
        None => "is not in this file".to_string(),
    };
    warnings.push(format!(
        "witness offsets do not match this file (e.g. the transition at {origin}: its offset {} {line}, with or \
         without a constant shift); matching by lines only",
        off.start
    ));
    OffsetPlan::Ignored
}

/// Every offset (minus `shift`) lies in the file and on its transition's own line range.
fn offsets_fit(cfa: &Cfa, ts: &[WithOffsets], shift: i64) -> bool {
    ts.iter().all(|(_, _, off, lines)| {
        let start = off.start as i64 - shift;
        if start < 0 || start as usize >= cfa.source_len {
            return false;
        }
        match lines {
            Some(lines) => {
                let l = cfa.line_of_offset(start as usize) as u64;
                lines.start <= l && l <= lines.end
            }
            None => true,
        }
    })
}

/// Issue 19, cause 4: offsets used as exact (as given or shifted) that neither all start where
/// a step of this file starts nor come with this file's hash may have been written for a copy
/// that differs inside a line (a comment inserted before a statement): they land on their lines
/// but not on the steps they meant.
pub fn unverified(cfa: &Cfa, source: &str, w: &WitnessAutomaton) -> bool {
    let OffsetPlan::Shift(k) = plan(cfa, w, &mut Vec::new()) else { return false };
    let starts = step_starts(cfa);
    let hit = with_offsets(w).iter().all(|(_, _, off, _)| starts.contains(&((off.start as i64 - k).max(0) as usize)));
    if hit {
        return false;
    }
    let Some(h) = w.metadata.program_hash.as_deref() else { return true };
    crate::witness::check_program_hash(h, source.as_bytes()).is_err()
}

/// The offsets where a step of this file starts.
fn step_starts(cfa: &Cfa) -> HashSet<usize> {
    cfa.graph.edge_weights().filter_map(|e| e.span.map(|s| s.start_offset)).collect()
}

/// CPAchecker `-preprocess` witnesses carry offsets into the preprocessed text, which differs
/// from the file by a constant prefix. Accept a shift only if, with it, every offset fits its
/// lines and at least three quarters of the transitions start exactly where a CFA edge
/// starts, and no other shift does as well.
fn recover_offset_shift(cfa: &Cfa, ts: &[WithOffsets]) -> Option<i64> {
    let starts = step_starts(cfa);
    let mut candidates: Vec<i64> =
        ts.iter().flat_map(|(_, _, off, _)| starts.iter().map(move |s| off.start as i64 - *s as i64)).collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut scored: Vec<(usize, i64)> = candidates
        .into_iter()
        .filter(|d| *d > 0 && offsets_fit(cfa, ts, *d))
        .map(|d| {
            let hits = ts.iter().filter(|(_, _, off, _)| starts.contains(&((off.start as i64 - d) as usize))).count();
            (hits, d)
        })
        .collect();
    scored.sort_unstable_by(|a, b| b.cmp(a));
    let (best, d) = *scored.first()?;
    let unique = scored.get(1).is_none_or(|(second, _)| *second < best);
    (best * 4 >= ts.len() * 3 && best >= 2 && unique).then_some(d)
}

/// Decision 55: a witness for a copy of the program whose comments or white space differ has the
/// right lines but offsets no single shift fixes ([`plan`] gives [`OffsetPlan::Ignored`]). On
/// each line, the distinct offset ranges of the witness's `control` transitions, in order, are
/// taken to be the line's branch conditions of this file (`source`) in order, provided there are
/// as many and each has the same length (the same text, as far as the witness tells; a condition
/// is measured without the parentheses around it, as producers give an operand's offsets
/// without them). Lines where that fails, and transitions without `control` or spanning several
/// lines, keep no offsets. `None` if no line aligned.
pub fn align(cfa: &Cfa, source: &str, w: &WitnessAutomaton) -> Option<HashMap<EdgeIndex, Range>> {
    let ts = with_offsets(w);
    let text = source.as_bytes();
    // This file's branch conditions per line: distinct (start, end) offsets, sorted.
    let mut ours: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for e in cfa.graph.edge_weights() {
        if let (EdgeOp::Assume { .. }, Some(s)) = (&e.op, e.span) {
            if s.start_line == s.end_line {
                let (start, end) = strip_parens(text, s.start_offset, s.end_offset);
                ours.entry(s.start_line as u64).or_default().push((start as u64, end as u64));
            }
        }
    }
    // The witness's control transitions per line.
    let mut theirs: BTreeMap<u64, Vec<(EdgeIndex, Range)>> = BTreeMap::new();
    for (t, _, off, lines) in ts {
        if let (Some(_), Some(l)) = (w.graph[t].guard.control, lines) {
            if l.start == l.end && off.start <= off.end {
                theirs.entry(l.start).or_default().push((t, off));
            }
        }
    }
    let mut out = HashMap::new();
    for (line, trs) in theirs {
        let Some(mine) = ours.get_mut(&line) else { continue };
        mine.sort_unstable();
        mine.dedup();
        let mut spans: Vec<(u64, u64)> = trs.iter().map(|(_, o)| (o.start, o.end)).collect();
        spans.sort_unstable();
        spans.dedup();
        let same_shape =
            spans.len() == mine.len() && spans.iter().zip(mine.iter()).all(|(a, b)| a.1 - a.0 == b.1 - b.0);
        if !same_shape {
            continue;
        }
        for (t, o) in trs {
            if let Some(i) = spans.iter().position(|s| *s == (o.start, o.end)) {
                let (start, end) = mine[i];
                out.insert(t, Range { start, end });
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The inclusive range `start..=end` of `text` without white space at either end and without
/// parentheses that enclose all of it (`(a != 2)` → `a != 2`).
fn strip_parens(text: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    if end >= text.len() || start > end {
        return (start, end);
    }
    loop {
        while start < end && text[start].is_ascii_whitespace() {
            start += 1;
        }
        while end > start && text[end].is_ascii_whitespace() {
            end -= 1;
        }
        if end > start && encloses(&text[start..=end]) {
            start += 1;
            end -= 1;
        } else {
            return (start, end);
        }
    }
}

/// Does the `(` at the start of `t` close at its end (not `(a) && (b)`)?
#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::cfa::DataModel;
    use crate::cfront::build_program;
    use crate::witness::graphml::read_graphml;

    const PROG: &str =
        "int main() {\n  int a = 0;\n  if ((a != 2) && (a != 3)) {\n    return 0;\n  }\n  return 1;\n}\n";

    /// A witness with one `control` transition per (line, startoffset, endoffset).
    fn witness(edges: &[(u32, u64, u64)]) -> WitnessAutomaton {
        let mut x = String::from(
            r#"<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="startline" attr.name="startline" for="edge"/><key id="endline" attr.name="endline" for="edge"/>
<key id="startoffset" attr.name="startoffset" for="edge"/><key id="endoffset" attr.name="endoffset" for="edge"/>
<key id="control" attr.name="control" for="edge"/><key id="entry" attr.name="entry" for="node"/>
<key id="violation" attr.name="violation" for="node"/>
<graph edgedefault="directed"><node id="N0"><data key="entry">true</data></node>
<node id="V"><data key="violation">true</data></node>"#,
        );
        for (l, s, e) in edges {
            x.push_str(&format!(
                r#"<edge source="N0" target="V"><data key="startline">{l}</data><data key="endline">{l}</data><data key="startoffset">{s}</data><data key="endoffset">{e}</data><data key="control">condition-true</data></edge>"#
            ));
        }
        x.push_str("</graph></graphml>");
        read_graphml(Path::new("w.graphml"), x.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn aligned(edges: &[(u32, u64, u64)]) -> Option<Vec<(u64, u64)>> {
        let cfa = build_program(Path::new("t.c"), PROG, DataModel::Ilp32).unwrap_or_else(|e| panic!("{e}")).cfa;
        let w = witness(edges);
        let map = align(&cfa, PROG, &w)?;
        let mut v: Vec<(u64, u64)> =
            w.graph.edge_indices().filter_map(|t| map.get(&t)).map(|r| (r.start, r.end)).collect();
        v.sort_unstable();
        Some(v)
    }

    fn at(needle: &str) -> u64 {
        PROG.find(needle).map(|i| i as u64).unwrap_or(u64::MAX)
    }

    #[test]
    fn conditions_align_in_order_when_count_and_lengths_agree() {
        // The copy's conditions lie 40 and 47 bytes later (other white space), six characters each.
        let (c1, c2) = (at("a != 2"), at("a != 3"));
        let got = aligned(&[(3, c1 + 40, c1 + 45), (3, c2 + 47, c2 + 52)]);
        assert_eq!(got, Some(vec![(c1, c1 + 5), (c2, c2 + 5)]));
    }

    #[test]
    fn lines_whose_shape_differs_keep_no_offsets() {
        let (c1, c2) = (at("a != 2"), at("a != 3"));
        // One condition range for a line with two conditions.
        assert_eq!(aligned(&[(3, c2 + 47, c2 + 52)]), None);
        // A four-character range (`a!=3`) against six.
        assert_eq!(aligned(&[(3, c1 + 40, c1 + 45), (3, c2 + 47, c2 + 50)]), None);
        // The right ranges on a line without those conditions.
        assert_eq!(aligned(&[(2, c1 + 40, c1 + 45), (2, c2 + 47, c2 + 52)]), None);
    }

    #[test]
    fn parentheses_around_a_whole_range_are_not_counted() {
        let t = b"x ( (a) && (b) ) y";
        assert_eq!(strip_parens(t, 2, 15), (4, 13)); // `(a) && (b)` keeps its parentheses
        let t = b"((a != 2))";
        assert_eq!(strip_parens(t, 0, 9), (2, 7));
        assert!(!encloses(b"(a) && (b)"));
        assert!(encloses(b"((a) && (b))"));
    }
}
