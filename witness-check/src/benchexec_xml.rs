//! `batch --benchexec-xml`: the batch's results as a BenchExec result file (the XML that
//! `benchexec` writes and `table-generator` reads), so that a batch can be put into one table
//! beside other validators' BenchExec runs. Statuses and categories follow BenchExec: the
//! result string; `TIMEOUT` for a child killed after its budget and `ERROR (…)` for a failure,
//! both category `error`; a verdict on a labelled task is `correct` or `wrong`, on an unlabelled
//! one `missing`. The SV-COMP validation score of each run is its `score` column.

use std::io::Write;
use std::path::Path;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use serde_json::Value;

/// What the result file says about the whole batch.
pub struct RunSet<'a> {
    /// `--version`'s text after the name.
    pub version: &'a str,
    /// Unknown (`None`) for a merge of shards.
    pub timelimit_s: Option<u64>,
    pub memlimit_mib: Option<u64>,
    pub jobs: Option<usize>,
    /// The options forwarded to every validation.
    pub options: &'a [String],
}

/// BenchExec's status and category of one batch record.
fn status_and_category(r: &Value) -> (String, &'static str) {
    if r["timeout"] == Value::Bool(true) {
        return ("TIMEOUT".into(), "error");
    }
    let status = r["result"].as_str().map(str::to_string);
    match (r["class"].as_str(), status) {
        (Some("confirmed" | "rejected"), Some(s)) => {
            let category = match r["correct"].as_bool() {
                Some(true) => "correct",
                Some(false) => "wrong",
                None => "missing",
            };
            (s, category)
        }
        (Some("unknown"), Some(s)) => (s, "unknown"),
        _ => {
            let why = match (r["exit_code"].as_i64(), r["signal"].as_i64()) {
                (_, Some(sig)) => format!("signal {sig}"),
                (Some(code), _) => format!("exit code {code}"),
                _ => "not run".into(),
            };
            (format!("ERROR ({why})"), "error")
        }
    }
}

fn column<W: Write>(w: &mut quick_xml::Writer<W>, title: &str, value: &str, hidden: bool) -> std::io::Result<()> {
    let mut c = BytesStart::new("column");
    if hidden {
        c.push_attribute(("hidden", "true"));
    }
    c.push_attribute(("title", title));
    c.push_attribute(("value", value));
    w.write_event(Event::Empty(c))
}

/// `path` relative to the directory `base` (both made absolute against the working directory),
/// as BenchExec writes a run's files: relative to the result file.
fn relative_to(path: &Path, base: &Path) -> String {
    use std::path::Component;
    let (Ok(path), Ok(base)) = (std::path::absolute(path), std::path::absolute(base)) else {
        return path.display().to_string();
    };
    let normal = |p: &Path| {
        let mut out: Vec<Component> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out.into_iter().map(|c| c.as_os_str().to_os_string()).collect::<Vec<_>>()
    };
    let (p, b) = (normal(&path), normal(&base));
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel = std::path::PathBuf::new();
    for _ in common..b.len() {
        rel.push("..");
    }
    for c in &p[common..] {
        rel.push(c);
    }
    rel.display().to_string()
}

/// A property file's name as BenchExec gives it (`unreach-call.prp` → `unreach-call`).
fn property_name(file: &str) -> String {
    let base = Path::new(file).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    base.strip_suffix(".prp").unwrap_or(&base).to_string()
}

/// Writes the result file of `records` (batch's JSON records, in task order). A run of a task
/// definition is named as BenchExec names it, by the task file's path relative to the result
/// file, with the task's `properties`, `propertyFile` and `expectedVerdict`, so that
/// `table-generator` puts it on the row of the same task of a BenchExec run (issue 35 item 6);
/// a manifest row (no task file) by its id.
pub fn write(path: &Path, set: &RunSet, records: &[&Value]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut w = quick_xml::Writer::new_with_indent(file, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.get_mut().write_all(
        b"\n<!DOCTYPE result PUBLIC \"+//IDN sosy-lab.org//DTD BenchExec result 3.0//EN\" \
          \"https://www.sosy-lab.org/benchexec/result-3.0.dtd\">",
    )?;
    let mut result = BytesStart::new("result");
    let timelimit = set.timelimit_s.map(|t| format!("{t} s"));
    let memlimit = set.memlimit_mib.map(|m| format!("{} B", m << 20));
    let jobs = set.jobs.map(|j| j.to_string());
    let options = set.options.join(" ");
    result.push_attribute(("benchmarkname", "witness-check-batch"));
    result.push_attribute(("generator", "witness-check batch"));
    result.push_attribute(("tool", "witness-check"));
    result.push_attribute(("toolmodule", "witness_check_benchexec.witness_check"));
    result.push_attribute(("version", set.version));
    for (name, value) in [("timelimit", &timelimit), ("memlimit", &memlimit), ("cpuCores", &jobs)] {
        if let Some(v) = value {
            result.push_attribute((name, v.as_str()));
        }
    }
    result.push_attribute(("options", options.as_str()));
    w.write_event(Event::Start(result))?;
    for r in records {
        let (status, category) = status_and_category(r);
        let task_file = r["property_file"].as_str().is_some();
        let files: Vec<String> = [&r["program"], &r["witness"]]
            .iter()
            .filter_map(|v| v.as_str())
            .map(|f| relative_to(Path::new(f), dir))
            .collect();
        let files = format!("[{}]", files.join(", "));
        let name = match r["program"].as_str() {
            Some(program) if task_file => relative_to(Path::new(program), dir),
            _ => r["id"].as_str().unwrap_or_default().to_string(),
        };
        let mut run = BytesStart::new("run");
        run.push_attribute(("name", name.as_str()));
        run.push_attribute(("files", files.as_str()));
        if let Some(prp) = r["property_file"].as_str() {
            run.push_attribute(("properties", property_name(prp).as_str()));
            run.push_attribute(("propertyFile", relative_to(Path::new(prp), dir).as_str()));
        }
        if let Some(verdict) = r["expected_verdict"].as_str() {
            run.push_attribute(("expectedVerdict", verdict));
        }
        w.write_event(Event::Start(run))?;
        column(&mut w, "status", &status, false)?;
        column(&mut w, "category", category, true)?;
        column(&mut w, "cputime", &format!("{}s", r["cpu_s"].as_f64().unwrap_or(0.0)), false)?;
        column(&mut w, "walltime", &format!("{}s", r["wall_s"].as_f64().unwrap_or(0.0)), false)?;
        let bytes = (r["max_rss_mib"].as_f64().unwrap_or(0.0) * 1024.0 * 1024.0).round() as u64;
        column(&mut w, "memory", &format!("{bytes}B"), false)?;
        if let Some(score) = r["score"].as_i64() {
            column(&mut w, "score", &score.to_string(), false)?;
        }
        w.write_event(Event::End(BytesEnd::new("run")))?;
    }
    w.write_event(Event::End(BytesEnd::new("result")))?;
    w.into_inner().flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_and_categories_as_benchexec() {
        let r = |class: &str, result: Option<&str>, correct: Option<bool>| json!({"class": class, "result": result, "correct": correct, "timeout": false, "exit_code": 3});
        assert_eq!(
            status_and_category(&r("confirmed", Some("false(unreach-call)"), Some(true))),
            ("false(unreach-call)".into(), "correct")
        );
        assert_eq!(status_and_category(&r("rejected", Some("true"), Some(false))), ("true".into(), "wrong"));
        assert_eq!(status_and_category(&r("rejected", Some("true"), None)), ("true".into(), "missing"));
        assert_eq!(status_and_category(&r("unknown", Some("unknown"), None)), ("unknown".into(), "unknown"));
        assert_eq!(status_and_category(&r("error", None, None)), ("ERROR (exit code 3)".into(), "error"));
        let timeout = json!({"class": "unknown", "result": "unknown", "timeout": true});
        assert_eq!(status_and_category(&timeout), ("TIMEOUT".into(), "error"));
    }

    #[test]
    fn paths_relative_to_the_result_file_as_benchexec_writes_them() {
        assert_eq!(relative_to(Path::new("/a/b/tasks/t.yml"), Path::new("/a/results")), "../b/tasks/t.yml");
        assert_eq!(relative_to(Path::new("/a/results/x/../t.yml"), Path::new("/a/results/")), "t.yml");
        assert_eq!(property_name("../p/unreach-call.prp"), "unreach-call");
    }
}
