//! `witness-check lint`: runs [`witness_core::lint`] and prints its findings the way an
//! explanation is printed (file:line:column, then the annotated line), then witnesslint's
//! overview and exit code.
//!
//! Exit codes follow witnesslint 1.3: 0 valid, 1 faulty, 5 witness file missing, 6 program file
//! missing, 7 internal error; 2 is a usage error (clap).

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;
use witness_core::lint::{lint, Finding, LintOptions, LintReport, ProgramFacts, Severity};

/// The arguments of `lint`.
#[derive(Args)]
pub struct LintArgs {
    /// The witness file: GraphML 1.0 (optionally gzip-compressed) or YAML 2.0/2.1.
    #[arg(value_name = "WITNESS", required_unless_present = "witness_option", conflicts_with = "witness_option")]
    witness: Option<PathBuf>,
    /// The witness file, named as `validate` names it (`--witness W`; the same as `WITNESS`).
    #[arg(long = "witness", value_name = "W", id = "witness_option")]
    witness_option: Option<PathBuf>,
    /// The program the witness is for: adds the program-aware checks (hash, lines and columns
    /// inside the file, anchors on a suitable construct, function names, assumptions that
    /// parse in their scope; a correctness witness's invariants placed at program locations
    /// and parsed in their scope).
    #[arg(long, value_name = "P")]
    program: Option<PathBuf>,
    /// Program-aware details (line and offset ranges, function names, call stack, assumptions,
    /// invariants) make the witness faulty, like witnesslint's `--strictChecking`; otherwise
    /// they are notes.
    #[arg(long)]
    strict: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// The least severe findings printed (as witnesslint's `--loglevel`): `note` (all),
    /// `warning` (errors and warnings), `error`. The counts and the exit code are the same at
    /// every level.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "note")]
    loglevel: LogLevel,
}

/// `--loglevel`: the least severe findings shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogLevel {
    Error,
    Warning,
    Note,
}

impl LogLevel {
    /// Is a finding of this severity shown?
    fn shows(self, severity: Severity) -> bool {
        let least = match self {
            LogLevel::Error => Severity::Error,
            LogLevel::Warning => Severity::Warning,
            LogLevel::Note => Severity::Note,
        };
        severity >= least // Severity orders Note < Warning < Error
    }
}

impl LintArgs {
    /// The witness file (`WITNESS` or `--witness`; `run` makes them one).
    fn witness_path(&self) -> &Path {
        self.witness.as_deref().unwrap_or(Path::new(""))
    }
}

/// Runs the linter; returns the exit code.
pub fn run(mut args: LintArgs) -> i32 {
    // `--witness W` and `WITNESS` are one (clap requires exactly one of them).
    if let Some(w) = args.witness_option.take() {
        args.witness = Some(w);
    }
    let witness = match std::fs::read(args.witness_path()) {
        Ok(b) => b,
        Err(e) => return missing(&args, args.witness_path(), &e, 5),
    };
    let program = match &args.program {
        Some(p) => match std::fs::read(p) {
            Ok(b) => Some(b),
            Err(e) => return missing(&args, p, &e, 6),
        },
        None => None,
    };
    // The C front end and the tree walk run on a big stack; a panic is an internal error (7).
    let outcome = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lint_and_print(&args, &witness, program.as_deref())
                }))
            })
            .map(|h| h.join())
    });
    match outcome {
        Ok(Ok(Ok(code))) => code,
        Ok(Ok(Err(p))) if crate::is_closed_output(p.as_ref()) => crate::closed_output(),
        _ => {
            let msg = "internal error in the linter (please report)";
            if args.json {
                println!("{}", error_json(msg, "internal", 7));
            } else {
                eprintln!("witness-check: {msg}");
                println!("witness-check lint finished with exit code 7");
            }
            7
        }
    }
}

fn lint_and_print(args: &LintArgs, witness: &[u8], program: Option<&[u8]>) -> i32 {
    let program = args.program.as_deref().zip(program).map(|(p, b)| ProgramFacts::new(p, b));
    let report = lint(args.witness_path(), witness, program.as_ref(), LintOptions { strict: args.strict });
    let code = if report.faulty() { 1 } else { 0 };
    if args.json {
        println!(
            "{}",
            json!({
                "valid": code == 0,
                "exit_code": code,
                "format": report.format,
                "findings": report
                    .findings
                    .iter()
                    .filter(|f| args.loglevel.shows(f.severity))
                    .map(|f| finding_json(f, args))
                    .collect::<Vec<_>>(),
                "overview": report.overview.iter().map(|(k, v)| json!({"field": k, "value": v})).collect::<Vec<_>>(),
            })
        );
    } else {
        print_text(&report, args, witness, program.as_ref());
        println!("witness-check lint finished with exit code {code}");
    }
    code
}

fn missing(args: &LintArgs, path: &Path, e: &std::io::Error, code: i32) -> i32 {
    let msg = format!("{}: cannot read file: {e}", path.display());
    if args.json {
        println!("{}", error_json(&msg, "input", code));
    } else {
        eprintln!("witness-check: {msg}");
        println!("witness-check lint finished with exit code {code}");
    }
    code
}

/// An error in the scheme `validate` uses too (issue 21), with witnesslint's `valid`.
fn error_json(msg: &str, kind: &str, code: i32) -> serde_json::Value {
    json!({"result": "error", "verdict": "error", "error_kind": kind, "reason": msg, "exit_code": code, "valid": null})
}

fn file_of<'a>(f: &Finding, args: &'a LintArgs) -> &'a Path {
    match (&args.program, f.in_program) {
        (Some(p), true) => p,
        _ => args.witness_path(),
    }
}

fn finding_json(f: &Finding, args: &LintArgs) -> serde_json::Value {
    json!({
        "severity": f.severity.name(),
        "check": f.check,
        "file": file_of(f, args).display().to_string(),
        "line": f.line,
        "column": f.column,
        "message": f.message,
    })
}

fn print_text(report: &LintReport, args: &LintArgs, witness: &[u8], program: Option<&ProgramFacts>) {
    let witness_text = String::from_utf8_lossy(witness);
    // A huge faulty witness can have millions of findings of one check: the text shows the
    // first ones of each check and counts the rest (JSON has them all).
    const PER_CHECK: usize = 50;
    let mut shown: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for f in report.findings.iter().filter(|f| args.loglevel.shows(f.severity)) {
        let n = shown.entry(f.check).or_default();
        *n += 1;
        if *n > PER_CHECK {
            continue;
        }
        let file = file_of(f, args);
        let pos = match (f.line, f.column) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            (Some(l), None) => format!(":{l}"),
            _ => String::new(),
        };
        println!("{}{pos}: {}[{}]: {}", file.display(), f.severity.name(), f.check, f.message);
        let text = if f.in_program { program.map(|p| p.text.as_str()) } else { Some(&*witness_text) };
        if let (Some(text), Some(line)) = (text, f.line) {
            if let Some(s) = snippet(text, line, f.column, &file.display().to_string(), f.severity) {
                println!("{s}");
            }
        }
    }
    let mut more: Vec<_> = shown.into_iter().filter(|&(_, n)| n > PER_CHECK).collect();
    more.sort();
    for (check, n) in more {
        println!("… and {} more [{check}] findings", n - PER_CHECK);
    }
    println!();
    println!("Overview of checked witness ({}):", report.format);
    println!("Witness File: {}", args.witness_path().display());
    for (k, v) in &report.overview {
        println!("{k}: {v}");
    }
    println!();
    let (e, w, n) = (report.count(Severity::Error), report.count(Severity::Warning), report.count(Severity::Note));
    println!(
        "{e} error(s), {w} warning(s), {n} note(s): the witness is {}",
        if report.faulty() { "faulty" } else { "valid" }
    );
}

/// The finding's line as an annotated snippet (annotate-snippets, as the explanations).
fn snippet(text: &str, line: u32, column: Option<u32>, origin: &str, sev: Severity) -> Option<String> {
    use annotate_snippets::Level;
    let src = text.lines().nth((line as usize).checked_sub(1)?)?;
    let src = src.trim_end_matches('\r');
    if src.trim().is_empty() || src.len() > 400 {
        return None;
    }
    let indent = src.len() - src.trim_start().len();
    let start = match column {
        Some(c) => src.char_indices().nth((c as usize).saturating_sub(1)).map(|(i, _)| i).unwrap_or(indent),
        None => indent,
    };
    // At least the character at the column (which may take several bytes).
    let next = src[start..].chars().next().map_or(start, |c| start + c.len_utf8());
    let end = src.trim_end().len().max(next).min(src.len());
    if start >= end {
        return None;
    }
    let level = match sev {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
        Severity::Note => Level::Note,
    };
    let rendered = crate::snippet::render(level, "", src, line as usize, origin, start..end, "");
    // The title line is empty (the finding was printed above it).
    Some(rendered.lines().skip(1).collect::<Vec<_>>().join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21: on a line indented with tabs the underline starts under the column's character.
    #[test]
    fn the_underline_sits_under_the_column_on_a_tab_indented_line() {
        let s = snippet("\t\tif (x == 42) reach_error();", 1, Some(3), "p.c", Severity::Error).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        let code = lines.iter().find(|l| l.contains("if (x")).expect("the source line");
        let marks = lines.iter().find(|l| l.contains('^')).expect("the underline");
        assert_eq!(marks.find('^'), code.find("if"), "\n{s}");
        // Without tabs nothing moves.
        let s = snippet("  if (x == 42) reach_error();", 1, Some(3), "p.c", Severity::Error).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        let code = lines.iter().find(|l| l.contains("if (x")).unwrap();
        let marks = lines.iter().find(|l| l.contains('^')).unwrap();
        assert_eq!(marks.find('^'), code.find("if"), "\n{s}");
    }
}
