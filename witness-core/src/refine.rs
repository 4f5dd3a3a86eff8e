//! Refined witnesses (issue 21): a confirmed run written back as a violation witness in which
//! every nondeterministic value the run took is pinned, in GraphML 1.0 or YAML 2.0 (whatever
//! the witness it came from was written in, so this also converts between formats). Pure text
//! generation from the program text and the confirmed trace: reads and writes nothing.
//!
//! GraphML: a chain entry → one node per pinned value → violation node; a value's edge carries
//! the call's line and offsets, `assumption.resultfunction` and `\result == v;`, and the last
//! edge the violating step's line and offsets. YAML: one segment per pinned value, a
//! `function_return` waypoint at the call's `)` with `\result == v`, and a final `target`
//! waypoint at the violating step. Values are integers in decimal and finite floats as hex
//! literals (exact); a value the solver did not give, or a NaN or infinity, is not pinned.
//! A data race is written as YAML 2.2 ([`refine_race`]): thread creations and values with their
//! threads, and a last segment of the two racing accesses.

use std::fmt::Write as _;

use sha2::Digest;

use crate::cfa::{Cfa, DataModel, EdgeOp};
use crate::lines::LineStarts;
use crate::verdict::{RaceAccess, Taken, TraceStep};

/// The format of a refined witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefineFormat {
    Graphml,
    Yaml,
    /// The format of the witness validated.
    AsWitness,
}

/// What a refined witness says besides the run.
pub struct Task<'a> {
    /// The program's file name as the witness names it (`program.c`).
    pub file_name: &'a str,
    /// The program's text (offsets of the trace point into it).
    pub source: &'a [u8],
    /// The property file's text; `None`: unreach-call of `error_function`.
    pub property: Option<&'a str>,
    pub error_function: &'a str,
    pub data_model: DataModel,
}

/// One pinned value or the target: (line, column, offsets) of its place.
struct Place {
    line: u32,
    /// In characters, as YAML counts columns (issue 33).
    column: u32,
    start: usize,
    end: usize,
}

/// `\result == v` of a pinned value, if it can be pinned exactly.
fn pinned(step: &TraceStep) -> Option<(String, &str)> {
    let n = step.nondet.as_ref()?;
    let (bits, width) = n.bits?;
    let value = match width {
        None => n.value.clone(),
        Some(32) => hex_float(f32::from_bits(bits as u32) as f64)?,
        Some(_) => hex_float(f64::from_bits(bits))?,
    };
    Some((value, n.function.as_str()))
}

/// A finite double as a C hexadecimal floating constant (exact).
fn hex_float(v: f64) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    if v == 0.0 {
        return Some(if v.is_sign_negative() { "-0x0p+0".into() } else { "0x0p+0".into() });
    }
    let bits = v.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1u64 << 52) - 1);
    let (lead, exp) = if exp == 0 { (0, -1022) } else { (1, exp - 1023) };
    Some(format!("{sign}0x{lead}.{mant:013x}p{exp:+}"))
}

/// The specification text (the property file's `CHECK` lines).
fn specification(task: &Task) -> String {
    match task.property {
        Some(p) => p.lines().map(str::trim).filter(|l| l.starts_with("CHECK")).collect::<Vec<_>>().join("\n"),
        None => format!("CHECK( init(main()), LTL(G ! call({}())) )", task.error_function),
    }
}

/// A UUID (RFC 4122 form, version 4 bits) derived from the witness's content: the same run
/// refines to the same witness.
fn uuid(seed: &[u8]) -> String {
    let h = sha2::Sha256::digest(seed);
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// The refined witness of a confirmed `trace`, or why there is none (a run without a located
/// violating step).
pub fn refine(format: RefineFormat, task: &Task, trace: &[TraceStep]) -> Result<String, String> {
    let format = match format {
        RefineFormat::AsWitness => return Err("refine: the witness's format was not resolved".into()),
        f => f,
    };
    let lines = LineStarts::of_bytes(task.source);
    let place = |s: &TraceStep, at: Option<usize>| {
        let span = s.span?;
        let (line, column) = lines.position(at.unwrap_or(span.start_offset));
        Some(Place { line, column, start: span.start_offset, end: span.end_offset })
    };
    let values: Vec<(Place, String, &str)> = trace
        .iter()
        .filter_map(|s| {
            let (value, function) = pinned(s)?;
            let at = match format {
                RefineFormat::Yaml => Some(s.call_paren?),
                _ => None,
            };
            Some((place(s, at)?, value, function))
        })
        .collect();
    let target = trace
        .last()
        .and_then(|s| place(s, None))
        .ok_or("the confirmed run's last step has no place in the program: no refined witness")?;
    let hash = format!("{:x}", sha2::Sha256::digest(task.source));
    let time = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let spec = specification(task);
    let producer = format!("witness-check {}", env!("CARGO_PKG_VERSION"));
    Ok(match format {
        RefineFormat::Graphml => graphml(task, &values, &target, &hash, &time, &spec, &producer),
        _ => yaml(task, &values, &target, &hash, &time, &spec),
    })
}

fn xml(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

fn graphml(
    task: &Task,
    values: &[(Place, String, &str)],
    target: &Place,
    hash: &str,
    time: &str,
    spec: &str,
    producer: &str,
) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    s.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n");
    for (id, ty, domain) in [
        ("witness-type", "string", "graph"),
        ("sourcecodelang", "string", "graph"),
        ("producer", "string", "graph"),
        ("specification", "string", "graph"),
        ("programfile", "string", "graph"),
        ("programhash", "string", "graph"),
        ("architecture", "string", "graph"),
        ("creationtime", "string", "graph"),
    ] {
        let _ = writeln!(s, " <key id=\"{id}\" attr.name=\"{id}\" attr.type=\"{ty}\" for=\"{domain}\"/>");
    }
    for id in ["entry", "violation"] {
        let _ = writeln!(
            s,
            " <key id=\"{id}\" attr.name=\"{id}\" attr.type=\"boolean\" for=\"node\">\n  <default>false</default>\n </key>"
        );
    }
    for (id, ty) in [
        ("startline", "int"),
        ("startoffset", "int"),
        ("endoffset", "int"),
        ("assumption", "string"),
        ("assumption.resultfunction", "string"),
    ] {
        let _ = writeln!(s, " <key id=\"{id}\" attr.name=\"{id}\" attr.type=\"{ty}\" for=\"edge\"/>");
    }
    s.push_str(" <graph edgedefault=\"directed\">\n");
    let architecture = match task.data_model {
        DataModel::Ilp32 => "32bit",
        DataModel::Lp64 => "64bit",
    };
    for (key, value) in [
        ("witness-type", "violation_witness"),
        ("sourcecodelang", "C"),
        ("producer", producer),
        ("specification", spec),
        ("programfile", task.file_name),
        ("programhash", hash),
        ("architecture", architecture),
        ("creationtime", time),
    ] {
        let _ = writeln!(s, "  <data key=\"{key}\">{}</data>", xml(value));
    }
    s.push_str("  <node id=\"N0\">\n   <data key=\"entry\">true</data>\n  </node>\n");
    for i in 1..=values.len() {
        let _ = writeln!(s, "  <node id=\"N{i}\"/>");
    }
    s.push_str("  <node id=\"V\">\n   <data key=\"violation\">true</data>\n  </node>\n");
    let edge = |s: &mut String, from: String, to: String, p: &Place, pin: Option<(&str, &str)>| {
        let _ = writeln!(s, "  <edge source=\"{from}\" target=\"{to}\">");
        let _ = writeln!(s, "   <data key=\"startline\">{}</data>", p.line);
        let _ = writeln!(s, "   <data key=\"startoffset\">{}</data>", p.start);
        let _ = writeln!(s, "   <data key=\"endoffset\">{}</data>", p.end);
        if let Some((value, function)) = pin {
            let _ = writeln!(s, "   <data key=\"assumption\">{}</data>", xml(&format!("\\result == {value};")));
            let _ = writeln!(s, "   <data key=\"assumption.resultfunction\">{}</data>", xml(function));
        }
        s.push_str("  </edge>\n");
    };
    for (i, (p, value, function)) in values.iter().enumerate() {
        edge(&mut s, format!("N{i}"), format!("N{}", i + 1), p, Some((value, function)));
    }
    edge(&mut s, format!("N{}", values.len()), "V".into(), target, None);
    s.push_str(" </graph>\n</graphml>\n");
    s
}

/// A YAML double-quoted scalar (JSON's string syntax is YAML's).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn yaml(task: &Task, values: &[(Place, String, &str)], target: &Place, hash: &str, time: &str, spec: &str) -> String {
    let seed = format!("{hash}{spec}{}", values.iter().map(|v| v.1.as_str()).collect::<Vec<_>>().join(","));
    let mut s = yaml_header(task, "2.0", &seed, hash, time, spec);
    let file = quoted(task.file_name);
    let location = |s: &mut String, p: &Place| {
        let _ = writeln!(
            s,
            "        location:\n          file_name: {file}\n          line: {}\n          column: {}",
            p.line, p.column
        );
    };
    for (p, value, _) in values {
        s.push_str("  - segment:\n    - waypoint:\n        type: \"function_return\"\n        action: \"follow\"\n");
        let _ = writeln!(
            s,
            "        constraint:\n          value: {}\n          format: \"c_expression\"",
            quoted(&format!("\\result == {value}"))
        );
        location(&mut s, p);
    }
    s.push_str("  - segment:\n    - waypoint:\n        type: \"target\"\n        action: \"follow\"\n");
    location(&mut s, target);
    s
}

/// A YAML violation witness's first lines, up to `content:`.
fn yaml_header(task: &Task, version: &str, seed: &str, hash: &str, time: &str, spec: &str) -> String {
    let mut s = format!("- entry_type: \"violation_sequence\"\n  metadata:\n    format_version: \"{version}\"\n");
    let _ = writeln!(s, "    uuid: \"{}\"", uuid(seed.as_bytes()));
    let _ = writeln!(s, "    creation_time: {}", quoted(time));
    let _ = writeln!(
        s,
        "    producer:\n      name: \"witness-check\"\n      version: {}",
        quoted(env!("CARGO_PKG_VERSION"))
    );
    let file = quoted(task.file_name);
    let _ =
        writeln!(s, "    task:\n      input_files:\n      - {file}\n      input_file_hashes:\n        {file}: {hash}");
    let _ = writeln!(s, "      specification: {}", quoted(spec));
    let data_model = match task.data_model {
        DataModel::Ilp32 => "ILP32",
        DataModel::Lp64 => "LP64",
    };
    let _ = writeln!(s, "      data_model: \"{data_model}\"\n      language: \"C\"\n  content:");
    s
}

/// The refined witness of a confirmed data race (issue 32 cause 18): YAML 2.2, whose segments
/// follow the confirmed run and whose last segment holds the race's two accesses as `target`
/// waypoints of their threads. In run order, each thread creation is a `function_enter`
/// waypoint at the `pthread_create` call's `)` by the creating thread (the 2.2 draft numbers
/// thread k by the k-th such waypoint, as the trace numbers threads by creation, so the ids
/// agree) and each pinned nondet value a `function_return` waypoint with its thread; the two
/// `target`s sit at the first character of their steps. A run whose creation or access has no
/// place in the program gives no witness (the caller warns).
pub fn refine_race(task: &Task, cfa: &Cfa, trace: &[TraceStep], race: &[RaceAccess; 2]) -> Result<String, String> {
    let lines = LineStarts::of_bytes(task.source);
    let at = |offset: usize| {
        let (line, column) = lines.position(offset);
        Place { line, column, start: offset, end: offset }
    };
    // (kind, thread, function, place, constraint)
    let mut waypoints: Vec<(&str, u32, String, Place, Option<String>)> = Vec::new();
    for s in trace {
        let thread = s.thread.unwrap_or(0);
        let creates = match s.taken {
            Taken::Edge(e) => matches!(cfa.edge(e).op, EdgeOp::ThreadCreate { .. }).then(|| cfa.edge(e).call_paren),
            _ => None,
        };
        match creates {
            Some(Some(paren)) => waypoints.push(("function_enter", thread, s.function.clone(), at(paren), None)),
            Some(None) => return Err(format!("no refined witness: the thread creation at line {} has no `)`", s.line)),
            None => {}
        }
        if let (Some((value, _)), Some(paren)) = (pinned(s), s.call_paren) {
            let constraint = format!("\\result == {value}");
            waypoints.push(("function_return", thread, s.function.clone(), at(paren), Some(constraint)));
        }
    }
    let hash = format!("{:x}", sha2::Sha256::digest(task.source));
    let time = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let spec = specification(task);
    let seed = format!(
        "{hash}{spec}{}{}",
        waypoints.iter().map(|w| format!("{}@{}", w.4.as_deref().unwrap_or(w.0), w.3.start)).collect::<String>(),
        race.iter().map(|r| format!("{}@{}", r.thread, r.span.start_offset)).collect::<String>()
    );
    let mut s = yaml_header(task, "2.2", &seed, &hash, &time, &spec);
    let file = quoted(task.file_name);
    let waypoint = |s: &mut String, kind: &str, thread: u32, function: &str, p: &Place, constraint: Option<&str>| {
        let _ = writeln!(
            s,
            "    - waypoint:\n        type: \"{kind}\"\n        action: \"follow\"\n        thread_id: {thread}"
        );
        if let Some(c) = constraint {
            let _ =
                writeln!(s, "        constraint:\n          value: {}\n          format: \"c_expression\"", quoted(c));
        }
        let _ = writeln!(
            s,
            "        location:\n          file_name: {file}\n          line: {}\n          column: {}\n          function: {}",
            p.line,
            p.column,
            quoted(function)
        );
    };
    for (kind, thread, function, p, constraint) in &waypoints {
        s.push_str("  - segment:\n");
        waypoint(&mut s, kind, *thread, function, p, constraint.as_deref());
    }
    s.push_str("  - segment:\n");
    for r in race {
        waypoint(&mut s, "target", r.thread, &r.function, &at(r.span.start_offset), None);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_exact_hex_constants() {
        assert_eq!(hex_float(1.0).as_deref(), Some("0x1.0000000000000p+0"));
        assert_eq!(hex_float(-0.5).as_deref(), Some("-0x1.0000000000000p-1"));
        assert_eq!(hex_float(0.1).map(|h| h.starts_with("0x1.999999999999a")), Some(true));
        assert_eq!(hex_float(f64::NAN), None);
        assert_eq!(hex_float(f64::MIN_POSITIVE / 4.0).as_deref(), Some("0x0.4000000000000p-1022"));
    }

    #[test]
    fn uuids_are_rfc_4122_version_4() {
        let u = uuid(b"x");
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
    }
}
