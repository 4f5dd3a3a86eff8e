//! YAML 2.x lint (digest §6.2): the structure rules through the validator's own reader (one
//! reading of the format: what the reader refuses is an error, what it tolerates with a warning
//! is a warning), the metadata fields the reader does not need, and with the program: hashes,
//! locations inside the file, anchors on a suitable construct, assumptions that lower.

use std::path::Path;

use super::program::ProgramFacts;
use super::{Severity, Sink};
use crate::anchors::ResolvedAnchor;
use crate::cfa::DataModel;
use crate::cfa::EdgeOp;
use crate::error::InputError;
use crate::witness::yaml::{flatten_entries, read_yaml_with_checks, FlatField};
use crate::witness::{AnchorKind, WitnessAutomaton, WitnessType};

pub(super) fn lint(
    path: &Path,
    bytes: &[u8],
    program: Option<&ProgramFacts>,
    sink: &mut Sink,
) -> (String, Vec<(String, String)>) {
    let (w, checks) = match read_yaml_with_checks(path, bytes) {
        Ok(w) => w,
        Err(e) => {
            push_error(sink, &e);
            return ("YAML 2.x".into(), Vec::new());
        }
    };
    // Each warning of the reader under its own check (issue 21: they all were `Y`). The
    // reader names the file; the finding names it anyway.
    let file = format!("{}:", path.display());
    for (msg, check) in w.warnings.iter().zip(checks) {
        let msg = msg.strip_prefix(&file).unwrap_or(msg);
        let (line, col, text) = split_position(msg);
        match (line, col) {
            (Some(l), Some(c)) => sink.at(Severity::Warning, check, l, c, text.to_string()),
            _ => sink.push(Severity::Warning, check, None, text.to_string()),
        }
    }
    if let Ok(fields) = flatten_entries(path, bytes) {
        metadata_checks(&fields, program, sink);
    }
    super::threads::check_yaml(path, bytes, w.metadata.format_version.as_deref(), program, sink);
    if w.metadata.witness_type == Some(WitnessType::Correctness) {
        if let Some(why) = &w.metadata.unsupported {
            unsupported_note(why.strip_prefix(&file).unwrap_or(why), sink);
        }
    }
    if let Some(p) = program {
        program_checks(&w, p, sink);
    }
    let m = &w.metadata;
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "None".into());
    let kind = match m.witness_type {
        Some(WitnessType::Violation) => "violation_sequence",
        Some(WitnessType::Termination) => "violation_sequence (non-termination)",
        Some(WitnessType::Correctness) => "correctness witness",
        None => "None",
    };
    let overview = vec![
        ("Witness Type".into(), kind.into()),
        ("Format Version".into(), show(&m.format_version)),
        ("Producer".into(), show(&m.producer)),
        ("Data Model".into(), show(&m.architecture)),
        ("Program File".into(), show(&m.program_file)),
        ("Program Hash".into(), show(&m.program_hash)),
    ];
    (w.format.clone(), overview)
}

fn push_error(sink: &mut Sink, e: &InputError) {
    match e {
        InputError::Malformed { line, col, message, .. } => {
            sink.at(Severity::Error, "Y1", *line, *col, message.clone())
        }
        InputError::Invalid { message, .. } => sink.push(Severity::Error, "Y1", None, message.clone()),
        InputError::Io { source, .. } => sink.push(Severity::Error, "Y1", None, source.to_string()),
    }
}

/// `line:col: text` → its parts.
fn split_position(msg: &str) -> (Option<u32>, Option<u32>, &str) {
    let mut it = msg.splitn(3, ':');
    let (Some(a), Some(b), Some(rest)) = (it.next(), it.next(), it.next()) else { return (None, None, msg) };
    match (a.parse(), b.parse()) {
        (Ok(l), Ok(c)) => (Some(l), Some(c), rest.trim_start()),
        _ => (None, None, msg),
    }
}

fn field<'a>(fields: &'a [FlatField], entry: usize, path: &str) -> Option<&'a FlatField> {
    fields.iter().find(|f| f.entry == entry && f.path == path)
}

/// Y4–Y7 on each violation entry's metadata.
fn metadata_checks(fields: &[FlatField], program: Option<&ProgramFacts>, sink: &mut Sink) {
    let mut entries: Vec<usize> = fields.iter().map(|f| f.entry).collect();
    entries.dedup();
    for e in entries {
        if field(fields, e, "entry_type").and_then(|f| f.value.as_deref()) != Some("violation_sequence") {
            continue;
        }
        let Some(meta) = field(fields, e, "metadata") else { continue };
        let need = |path: &str, check: &'static str, sev: Severity, sink: &mut Sink| -> Option<FlatField> {
            let f = field(fields, e, path).cloned();
            if f.is_none() {
                sink.at(sev, check, meta.line, meta.col, format!("`{path}` is missing"));
            }
            f
        };
        if let Some(u) = need("metadata.uuid", "Y4", Severity::Warning, sink) {
            if !u.value.as_deref().is_some_and(is_uuid) {
                sink.at(Severity::Warning, "Y4", u.line, u.col, "`uuid` is not an RFC 4122 UUID".into());
            }
        }
        if let Some(t) = need("metadata.creation_time", "Y4", Severity::Warning, sink) {
            if !t.value.as_deref().is_some_and(is_iso_time) {
                sink.at(
                    Severity::Warning,
                    "Y4",
                    t.line,
                    t.col,
                    "`creation_time` is not an ISO 8601 date and time with a time zone".into(),
                );
            }
        }
        need("metadata.producer.name", "Y5", Severity::Warning, sink);
        need("metadata.producer.version", "Y5", Severity::Warning, sink);
        if field(fields, e, "metadata.task").is_none() {
            continue;
        }
        need("metadata.task.input_files[0]", "Y6", Severity::Error, sink);
        need("metadata.task.specification", "Y6", Severity::Error, sink);
        need("metadata.task.data_model", "Y6", Severity::Error, sink);
        need("metadata.task.language", "Y6", Severity::Error, sink);
        if need("metadata.task.input_file_hashes", "Y6", Severity::Error, sink).is_none() {
            continue;
        }
        let prefix = "metadata.task.input_file_hashes.";
        for h in fields.iter().filter(|f| f.entry == e && f.path.starts_with(prefix)) {
            let file = &h.path[prefix.len()..];
            let value = h.value.as_deref().unwrap_or("").trim().to_ascii_lowercase();
            if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
                sink.at(
                    Severity::Warning,
                    "Y6",
                    h.line,
                    h.col,
                    format!("the hash of `{file}` is not 64 hex digits (SHA-256)"),
                );
            } else if let Some(p) = program {
                let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
                let given = p.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                if base(file) == given && value != p.sha256 {
                    sink.at(
                        Severity::Warning,
                        "Y7",
                        h.line,
                        h.col,
                        format!("the hash of `{file}` does not match the program (its SHA-256 is {})", p.sha256),
                    );
                }
            }
        }
    }
}

/// Y13, Y14, Y16, and Y22, Y23 for a correctness witness, with the program.
fn program_checks(w: &WitnessAutomaton, p: &ProgramFacts, sink: &mut Sink) {
    let dm = w.metadata.architecture.as_deref().and_then(crate::validate::parse_data_model).unwrap_or(DataModel::Lp64);
    let mut in_file = true;
    for t in w.graph.edge_weights() {
        let Some(a) = &t.guard.anchor else { continue };
        match p.line_len(a.line) {
            Some(len) if a.line as usize <= p.lines() => {
                if let Some(c) = a.column.filter(|&c| c as usize > len + 1) {
                    in_file = false;
                    at_origin(
                        sink,
                        &a.origin,
                        Severity::Error,
                        "Y13",
                        format!("column {c} is past the end of line {} ({len} characters)", a.line),
                    );
                }
            }
            _ => {
                in_file = false;
                at_origin(
                    sink,
                    &a.origin,
                    Severity::Error,
                    "Y13",
                    format!("line {} is past the end of the program ({} lines)", a.line, p.lines()),
                );
            }
        }
    }
    if !in_file {
        return;
    }
    let cfa = match p.cfa(dm) {
        Ok(c) => c,
        Err(why) => {
            sink.push(
                Severity::Note,
                "Y14",
                None,
                format!("locations and constraints not checked: the program does not parse ({why})"),
            );
            return;
        }
    };
    if w.metadata.witness_type == Some(WitnessType::Correctness) {
        // Y22/Y23 (decision 166): each invariant placed and lowered as `validate` does.
        let position = |i: usize| w.invariants.get(i).and_then(|inv| origin_position(&inv.origin));
        super::invariants::check(
            cfa,
            w,
            &super::invariants::Codes { place: "Y22", lower: "Y23", unsupported: "Y24" },
            &position,
            sink,
        );
    }
    let operations = w.metadata.specifications.iter().any(|s| {
        s.contains("overflow")
            || s.contains("valid-")
            || s.contains("memtrack")
            || s.contains("memcleanup")
            || s.contains("data-race")
    });
    let mut warnings = Vec::new();
    let anchors = match crate::anchors::resolve_anchors(cfa, &p.text, w, operations, &mut warnings) {
        Ok(a) => Some(a),
        Err(msg) => {
            // A target on a statement that is not a violation is a wrong witness, not a
            // malformed one: read the targets as statements to tell the two apart.
            let mut as_statements = w.clone();
            for t in as_statements.graph.edge_weights_mut() {
                if let Some(a) = t.guard.anchor.as_mut().filter(|a| a.kind == AnchorKind::Target) {
                    a.kind = AnchorKind::Statement;
                }
            }
            let on_statements =
                crate::anchors::resolve_anchors(cfa, &p.text, &as_statements, operations, &mut Vec::new()).is_ok();
            let (sev, msg) = if on_statements {
                (Severity::Note, format!("{msg} (the target is on a statement: the witness can only be rejected)"))
            } else {
                (Severity::Error, msg)
            };
            match waypoint_position(&msg) {
                Some((l, c)) => sink.at(sev, "Y14", l, c, msg),
                None => sink.push(sev, "Y14", None, msg),
            }
            None
        }
    };
    for m in warnings {
        sink.push(Severity::Note, "Y14", None, m);
    }
    for e in w.graph.edge_indices() {
        let t = &w.graph[e];
        let (Some(a), Some(asm)) = (&t.guard.anchor, &t.assumption) else { continue };
        // `\result` of a function_return waypoint: the callee of the call its anchor names.
        let callee = match anchors.as_ref().and_then(|m| m.get(&e)) {
            Some(ResolvedAnchor::FunctionReturn { parens }) => cfa.graph.edge_weights().find_map(|c| {
                c.call_paren.filter(|o| parens.contains(o))?;
                match &c.op {
                    EdgeOp::Call { callee, .. } => Some(cfa.function(*callee).name.clone()),
                    EdgeOp::NondetCall { function, .. } => Some(function.clone()),
                    _ => None,
                }
            }),
            _ => None,
        };
        if a.kind == AnchorKind::FunctionReturn && callee.is_none() {
            continue;
        }
        let function = asm.result_function.clone().or(callee);
        for text in &asm.expressions {
            let Ok(problems) = p.assumption_problems(dm, text, asm.scope.as_deref(), function.as_deref(), Some(a.line))
            else {
                return;
            };
            for (conjunct, why) in problems {
                let sev = if super::graphml::is_syntax_error(&why) {
                    Severity::Error
                } else if sink.strict {
                    Severity::Warning
                } else {
                    Severity::Note
                };
                at_origin(
                    sink,
                    &a.origin,
                    sev,
                    "Y16",
                    format!("constraint `{conjunct}` is not usable in its scope: {why}"),
                );
            }
        }
    }
}

/// Y24 (decision 166): content of a correctness witness the validator does not support (the
/// reader's `metadata.unsupported`, `line:col: what … is not supported; …`). Not a defect of
/// the witness (the format allows it), so a note even under `--strict`.
fn unsupported_note(why: &str, sink: &mut Sink) {
    let (line, col, text) = split_position(why);
    let msg = format!("{text} (`validate` answers unknown)");
    match (line, col) {
        (Some(l), Some(c)) => sink.at(Severity::Note, "Y24", l, c, msg),
        _ => sink.push(Severity::Note, "Y24", None, msg),
    }
}

/// The witness position in an anchor message (`waypoint at L:C …`).
fn waypoint_position(msg: &str) -> Option<(u32, u32)> {
    let rest = &msg[msg.find("waypoint at ")? + "waypoint at ".len()..];
    let end = rest.find(|c: char| !c.is_ascii_digit() && c != ':').unwrap_or(rest.len());
    let (l, c) = rest[..end].split_once(':')?;
    Some((l.parse().ok()?, c.parse().ok()?))
}

/// A finding at a waypoint's position in the witness (`origin` is `line:col`).
fn at_origin(sink: &mut Sink, origin: &str, sev: Severity, check: &'static str, msg: String) {
    match origin_position(origin) {
        Some((l, c)) => sink.at(sev, check, l, c, msg),
        None => sink.push(sev, check, None, msg),
    }
}

/// `line:col` → its parts.
fn origin_position(origin: &str) -> Option<(u32, u32)> {
    match split_position(&format!("{origin}: ")) {
        (Some(l), Some(c), _) => Some((l, c)),
        _ => None,
    }
}

/// 8-4-4-4-12 hex digits.
fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.trim().split('-').collect();
    parts.len() == 5
        && parts.iter().zip([8, 4, 4, 4, 12]).all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `YYYY-MM-DDThh:mm:ss[.fraction]` with `Z` or `±hh:mm`.
fn is_iso_time(s: &str) -> bool {
    let s = s.trim();
    let b = s.as_bytes();
    if b.len() < 20 {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    let base = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    let zone = &b[i..];
    base && (zone == b"Z" || zone == b"z" || (zone.len() == 6 && matches!(zone[0], b'+' | b'-') && zone[3] == b':'))
}

#[cfg(test)]
mod tests {
    use super::{is_iso_time, is_uuid, split_position};

    /// Issue 21: a reader warning is a finding under its own check (they all were `Y`), at its
    /// line and column, its message without the file name the reader puts first.
    #[test]
    fn reader_warnings_have_their_check_and_position() {
        let text = "- entry_type: violation_sequence\n  metadata:\n    format_version: \"2.3\"\n    uuid: \"1b8c6c86-7f3a-4a2e-9d3e-0c2f4c9b7a11\"\n\
                    \x20   creation_time: \"2026-01-01T00:00:00Z\"\n    producer: { name: x, version: \"1\" }\n\
                    \x20   task: { input_files: [a.c], input_file_hashes: { a.c: x }, specification: s, data_model: ILP32, language: C }\n\
                    \x20 content:\n  - segment:\n    - waypoint: { type: target, action: follow, location: { file_name: a.c, line: 3, column: 0 } }\n";
        let r = crate::lint::lint(
            std::path::Path::new("w.yml"),
            text.as_bytes(),
            None,
            crate::lint::LintOptions { strict: false },
        );
        let f = |check: &str| {
            r.findings.iter().find(|f| f.check == check).unwrap_or_else(|| panic!("no {check}: {:?}", r.findings))
        };
        assert_eq!((f("Y3").line, f("Y3").column), (Some(3), Some(21)));
        assert!(f("Y3").message.starts_with("format_version `2.3` is newer than 2.2"), "{:?}", f("Y3"));
        assert!(f("Y13").message.contains("column: 0"), "{:?}", f("Y13"));
        assert!(r.findings.iter().all(|f| f.check != "Y"), "{:?}", r.findings);
    }

    #[test]
    fn formats() {
        assert!(is_uuid("1b8c6c86-7f3a-4a2e-9d3e-0c2f4c9b7a11"));
        assert!(!is_uuid("1b8c6c86-7f3a-4a2e-9d3e"));
        assert!(is_iso_time("2024-01-01T12:00:00Z"));
        assert!(is_iso_time("2024-01-01T12:00:00.123+02:00"));
        assert!(!is_iso_time("2024-01-01T12:00:00"));
        assert_eq!(split_position("3:5: bad"), (Some(3), Some(5), "bad"));
        assert_eq!(split_position("no position"), (None, None, "no position"));
    }
}
