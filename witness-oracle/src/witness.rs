//! Witnesses recorded from native runs, their mutations, their GraphML 1.0 and YAML 2.0 texts,
//! and the strict reading the oracle uses to decide whether a witness allows a native run.

use crate::gen::{LKind, LLine, Prog, Rendered};
use crate::native::{Event, Run};

/// One step a witness claims, in terms of logical lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wp {
    /// Input `k` has this value (GraphML: an assumption on its declaration; YAML: an
    /// assumption waypoint at the next statement).
    Value { k: usize, value: i128 },
    /// The branch on this logical line goes this way.
    Branch { line: usize, taken: bool },
    /// A branch claimed at a line past the program's last (no run passes it; the witness graph
    /// alone shows it: decision 38).
    PastEnd { taken: bool },
    /// YAML only: an `avoid` waypoint of the next claim's segment (issue 51: the avoid-waypoint
    /// blame of decision 212 explains rejections it causes).
    Avoid { line: usize, taken: bool },
    /// GraphML only: no transition here, so the violation node is not reachable from the entry
    /// node (the witness graph alone shows that no run is allowed: decision 8).
    Cut,
}

/// A violation witness: the chain of claims, then the target line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    pub wps: Vec<Wp>,
    pub target: usize,
}

/// The witness of a violating run: every value and every branch, in order, and the line of the
/// violation.
pub fn record(run: &Run, lines: &[LLine]) -> Option<Witness> {
    let mut wps = Vec::new();
    let mut k = 0;
    for e in &run.events {
        match e {
            Event::Nondet(line, v) => {
                if lines.get(*line).map(|l| &l.kind) == Some(&LKind::Nondet(k)) {
                    wps.push(Wp::Value { k, value: *v });
                }
                k += 1;
            }
            Event::Br(line, t) => wps.push(Wp::Branch { line: *line, taken: *t }),
            Event::At(_) => {}
        }
    }
    Some(Witness { wps, target: run.last_line? })
}

/// Whether the witness allows the run under the strictest reading: claims are matched in order,
/// each at the first visit of its line after the previous one (a value or branch that differs
/// there ends the run, as in CPAchecker), all claims are passed before the violation, and the
/// violation happens on the target line. A run allowed this way is allowed by every reading
/// of the witness the formats admit (stuttering, greedy or existential segments), so a
/// violating run allowed here makes a rejection wrong.
pub fn allows(w: &Witness, run: &Run) -> bool {
    let mut j = 0;
    let mut k = 0;
    // The avoid waypoints of the segment being matched: passing one drops the run.
    let mut avoids: Vec<(usize, bool)> = Vec::new();
    let take_avoids = |j: &mut usize, avoids: &mut Vec<(usize, bool)>| {
        avoids.clear();
        while let Some(Wp::Avoid { line, taken }) = w.wps.get(*j) {
            avoids.push((*line, *taken));
            *j += 1;
        }
    };
    take_avoids(&mut j, &mut avoids);
    for e in &run.events {
        if let Event::Br(line, t) = e {
            if avoids.contains(&(*line, *t)) {
                return false;
            }
        }
        if j == w.wps.len() {
            continue; // the target's segment: only its avoid waypoints are left
        }
        let before = j;
        match (e, &w.wps[j]) {
            (Event::Nondet(_, v), Wp::Value { k: wk, value }) if k == *wk => {
                if v != value {
                    return false;
                }
                j += 1;
            }
            (Event::Br(line, t), Wp::Branch { line: wl, taken }) if line == wl => {
                if t != taken {
                    return false;
                }
                j += 1;
            }
            _ => {}
        }
        if j > before {
            take_avoids(&mut j, &mut avoids);
        }
        if let Event::Nondet(..) = e {
            k += 1;
        }
    }
    j == w.wps.len() && run.last_line == Some(w.target)
}

/// Whether every input's value is pinned by the witness (then one native run decides).
pub fn pins_all(w: &Witness, n_inputs: usize) -> bool {
    (0..n_inputs).all(|k| w.wps.iter().any(|p| matches!(p, Wp::Value { k: wk, .. } if *wk == k)))
}

/// The inputs the witness pins, with `fill` for the others.
pub fn pinned_inputs(w: &Witness, fill: &[i128]) -> Vec<i128> {
    let mut v = fill.to_vec();
    for p in &w.wps {
        if let Wp::Value { k, value } = p {
            if *k < v.len() {
                v[*k] = *value;
            }
        }
    }
    v
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn value_claim(prog: &Prog, r: &Rendered, k: usize, value: i128) -> String {
    format!("{} == {}", r.name(&format!("x{k}")), prog.inputs[k].literal(value, prog.lp64))
}

/// The input declaration's logical line of input `k`.
fn nondet_line(lines: &[LLine], k: usize) -> usize {
    lines.iter().position(|l| l.kind == LKind::Nondet(k)).unwrap_or(0)
}

/// The start of a GraphML 1.0 witness of the oracles: the declaration, the graph keys, the
/// node keys `entry` and `violation`, the listed node and edge keys (id, type, domain), and the
/// graph's first data (witness type, language, producer).
pub fn graphml_prologue(witness_type: &str, keys: &[(&str, &str, &str)]) -> String {
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
"#,
    );
    for k in ["witness-type", "sourcecodelang", "producer", "specification", "programfile", "programhash"]
        .into_iter()
        .chain(["architecture", "creationtime"])
    {
        s.push_str(&format!(" <key id=\"{k}\" attr.name=\"{k}\" attr.type=\"string\" for=\"graph\"/>\n"));
    }
    for k in ["entry", "violation"] {
        s.push_str(&format!(
            " <key id=\"{k}\" attr.name=\"{k}\" attr.type=\"boolean\" for=\"node\"><default>false</default></key>\n"
        ));
    }
    for (id, ty, domain) in keys {
        s.push_str(&format!(" <key id=\"{id}\" attr.name=\"{id}\" attr.type=\"{ty}\" for=\"{domain}\"/>\n"));
    }
    s.push_str(&format!(
        " <graph edgedefault=\"directed\">\n  <data key=\"witness-type\">{witness_type}</data>\n  <data key=\"sourcecodelang\">C</data>\n  <data key=\"producer\">witness-oracle</data>\n"
    ));
    s
}

/// GraphML 1.0: a chain from the entry to the violation node.
pub fn graphml(prog: &Prog, lines: &[LLine], r: &Rendered, w: &Witness) -> String {
    let mut s = graphml_prologue(
        "violation_witness",
        &[
            ("startline", "int", "edge"),
            ("control", "string", "edge"),
            ("assumption", "string", "edge"),
            ("assumption.scope", "string", "edge"),
        ],
    );
    s.push_str(&format!("  <data key=\"specification\">{}</data>\n", xml_escape(prog.viol.property_file().trim_end())));
    s.push_str("  <data key=\"programfile\">program.c</data>\n");
    s.push_str(&format!("  <data key=\"programhash\">{}</data>\n", r.sha256));
    s.push_str(&format!("  <data key=\"architecture\">{}</data>\n", if prog.lp64 { "64bit" } else { "32bit" }));
    s.push_str("  <data key=\"creationtime\">2026-01-01T00:00:00Z</data>\n");
    let n = w.wps.len() + 1;
    for i in 0..=n {
        if i == 0 {
            s.push_str("  <node id=\"N0\"><data key=\"entry\">true</data></node>\n");
        } else if i == n {
            s.push_str(&format!("  <node id=\"N{i}\"><data key=\"violation\">true</data></node>\n"));
        } else {
            s.push_str(&format!("  <node id=\"N{i}\"/>\n"));
        }
    }
    for (i, p) in w.wps.iter().enumerate() {
        if matches!(p, Wp::Cut | Wp::Avoid { .. }) {
            continue; // Avoid: a YAML mutation (the oracle writes none in GraphML)
        }
        s.push_str(&format!("  <edge source=\"N{i}\" target=\"N{}\">\n", i + 1));
        match p {
            Wp::Value { k, value } => {
                let l = nondet_line(lines, *k);
                s.push_str(&format!("   <data key=\"startline\">{}</data>\n", r.pos[l].0));
                s.push_str(&format!(
                    "   <data key=\"assumption\">{};</data>\n",
                    xml_escape(&value_claim(prog, r, *k, *value))
                ));
                s.push_str("   <data key=\"assumption.scope\">main</data>\n");
            }
            Wp::Branch { .. } | Wp::PastEnd { .. } => {
                let (line, taken) = match *p {
                    Wp::Branch { line, taken } => (r.pos[line].0 as usize, taken),
                    _ => (past_end(r), matches!(p, Wp::PastEnd { taken: true })),
                };
                s.push_str(&format!("   <data key=\"startline\">{line}</data>\n"));
                s.push_str(&format!("   <data key=\"control\">condition-{taken}</data>\n"));
            }
            Wp::Cut | Wp::Avoid { .. } => {}
        }
        s.push_str("  </edge>\n");
    }
    s.push_str(&format!(
        "  <edge source=\"N{}\" target=\"N{n}\">\n   <data key=\"startline\">{}</data>\n  </edge>\n",
        n - 1,
        r.pos[w.target].0
    ));
    s.push_str(" </graph>\n</graphml>\n");
    s
}

/// A line a few past the program's last.
fn past_end(r: &Rendered) -> usize {
    r.text.lines().count() + 7
}

fn yaml_location(lines: &[LLine], r: &Rendered, l: usize) -> String {
    format!(
        "        location:\n          file_name: \"program.c\"\n          line: {}\n          column: {}\n          function: \"{}\"\n",
        r.pos[l].0, r.pos[l].1, lines[l].func
    )
}

/// YAML 2.0: one segment per claim (its follow waypoint), then the target.
pub fn yaml(prog: &Prog, lines: &[LLine], r: &Rendered, w: &Witness) -> String {
    let mut s = format!(
        "- entry_type: \"violation_sequence\"\n  metadata:\n    format_version: \"2.0\"\n    uuid: \
         \"00000000-0000-4000-8000-000000000000\"\n    creation_time: \"2026-01-01T00:00:00Z\"\n    producer:\n      \
         name: \"witness-oracle\"\n      version: \"1\"\n    task:\n      input_files:\n      - \"program.c\"\n      \
         input_file_hashes:\n        program.c: {}\n      specification: \"{}\"\n      data_model: \"{}\"\n      \
         language: \"C\"\n  content:\n",
        r.sha256,
        prog.viol.yaml_spec(),
        if prog.lp64 { "LP64" } else { "ILP32" }
    );
    // An avoid waypoint opens its segment; the follow waypoint after it joins that segment.
    let mut open = false;
    for p in &w.wps {
        if matches!(p, Wp::Cut | Wp::PastEnd { .. }) {
            continue; // GraphML mutations (the oracle writes none in YAML)
        }
        if !open {
            s.push_str("  - segment:\n");
        }
        open = matches!(p, Wp::Avoid { .. });
        s.push_str("    - waypoint:\n");
        match p {
            Wp::Value { k, value } => {
                // Before the statement after the declaration: the input still holds its value.
                let l = nondet_line(lines, *k) + 1;
                s.push_str("        type: \"assumption\"\n        action: \"follow\"\n");
                s.push_str(&format!(
                    "        constraint:\n          value: \"{}\"\n          format: \"c_expression\"\n",
                    value_claim(prog, r, *k, *value)
                ));
                s.push_str(&yaml_location(lines, r, l));
            }
            Wp::Branch { line, taken } => {
                s.push_str("        type: \"branching\"\n        action: \"follow\"\n");
                s.push_str(&format!("        constraint:\n          value: \"{taken}\"\n"));
                s.push_str(&yaml_location(lines, r, *line));
            }
            Wp::Avoid { line, taken } => {
                s.push_str("        type: \"branching\"\n        action: \"avoid\"\n");
                s.push_str(&format!("        constraint:\n          value: \"{taken}\"\n"));
                s.push_str(&yaml_location(lines, r, *line));
            }
            Wp::Cut | Wp::PastEnd { .. } => {}
        }
    }
    if !open {
        s.push_str("  - segment:\n");
    }
    s.push_str("    - waypoint:\n        type: \"target\"\n        action: \"follow\"\n");
    s.push_str(&yaml_location(lines, r, w.target));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::Outcome;

    fn run(events: Vec<Event>, last: usize) -> Run {
        Run { inputs: vec![], events, outcome: Outcome::Reach, last_line: Some(last), log: String::new() }
    }

    #[test]
    fn strict_reading_matches_claims_at_first_visit() {
        let r = run(
            vec![
                Event::At(1),
                Event::Nondet(1, 5),
                Event::Br(3, false),
                Event::Br(3, true),
                Event::Br(6, true),
                Event::At(7),
            ],
            7,
        );
        let exact = Witness {
            wps: vec![
                Wp::Value { k: 0, value: 5 },
                Wp::Branch { line: 3, taken: false },
                Wp::Branch { line: 3, taken: true },
                Wp::Branch { line: 6, taken: true },
            ],
            target: 7,
        };
        assert!(allows(&exact, &r));
        // A value that differs at its only visit ends the run.
        let mut w = exact.clone();
        w.wps[0] = Wp::Value { k: 0, value: 6 };
        assert!(!allows(&w, &r));
        // The first visit of line 3 went false: a claim `true` there ends the run (strict), even
        // though a later visit goes true.
        let w = Witness { wps: vec![Wp::Branch { line: 3, taken: true }], target: 7 };
        assert!(!allows(&w, &r));
        // Fewer claims: still allowed; another target line: not.
        assert!(allows(&Witness { wps: vec![], target: 7 }, &r));
        assert!(!allows(&Witness { wps: vec![], target: 6 }, &r));
        // A claim on a line the run never branches on is never passed.
        assert!(!allows(&Witness { wps: vec![Wp::Branch { line: 9, taken: true }], target: 7 }, &r));
    }
}
