//! Every shortcut checked against the search it replaces (issue 51 item 2, decision 238).
//!
//! Each generated case that the validator decides as users run it (every shortcut on) is
//! validated a second time with every shortcut off (`Shortcuts::NONE`: the full search alone).
//! Two different definite answers are a mismatch, whatever the native truth says: a shortcut
//! decided what the full search would not. An `unknown` of either run is no mismatch (a
//! shortcut exists to decide more, and the full search may run out of time). The tally counts,
//! per shortcut, the cases it decided (the report's `decided_by`), the cases whose deciding
//! search it took part in (removed states from), and the cases on which the comparison ran.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use witness_core::shortcuts::{Shortcut, Shortcuts};
use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::{Report, Verdict};

/// Where the soak writes a shortcut mismatch (`None`: not written, as in tests).
static FINDINGS: OnceLock<PathBuf> = OnceLock::new();

/// Sets the directory shortcut mismatches are written to (once per process).
pub fn write_findings_to(dir: PathBuf) {
    let _ = FINDINGS.set(dir);
}

/// Per shortcut: cases decided, cases taken part in, cases compared with the full search.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub per: BTreeMap<&'static str, [u64; 3]>,
    /// Cases validated twice, and those whose second run was definite too.
    pub compared: u64,
    pub both_definite: u64,
}

impl Tally {
    pub fn absorb(&mut self, o: &Tally) {
        for (k, v) in &o.per {
            let e = self.per.entry(k).or_default();
            for i in 0..3 {
                e[i] += v[i];
            }
        }
        self.compared += o.compared;
        self.both_definite += o.both_definite;
    }

    /// One line per shortcut, every declared one listed (a zero shows a generator that does
    /// not reach its preconditions).
    pub fn summary(&self, what: &str) -> String {
        let mut s = format!(
            "{what} shortcuts: {} cases compared with the full search ({} with both answers definite); per shortcut: \
             decided / took part / compared",
            self.compared, self.both_definite
        );
        for sc in Shortcut::ALL {
            let [d, t, c] = self.per.get(sc.key()).copied().unwrap_or_default();
            s.push_str(&format!("\n  {what} shortcut {:<20} {d:>6} / {t:>6} / {c:>6}", sc.key()));
        }
        s
    }

    fn count(&mut self, report: &Report, second_definite: bool) {
        let definite = !matches!(report.verdict, Verdict::Unknown { .. });
        for sc in Shortcut::ALL {
            // An explanation-only shortcut (avoid-waypoint blame) decided the cases it explained.
            let explained = sc.explains_only() && report.shortcuts_used.contains(&sc.key());
            let decided = definite && (report.decided_by == Some(sc.key()) || explained);
            let took_part = definite && (decided || report.shortcuts_used.contains(&sc.key()));
            let e = self.per.entry(sc.key()).or_default();
            e[0] += decided as u64;
            e[1] += took_part as u64;
            e[2] += (took_part && second_definite) as u64;
        }
    }
}

/// What the full search said of a case the shortcuts decided.
pub enum Compared {
    /// Not compared (the first answer was unknown or an input error).
    Skipped,
    Agree,
    /// Two different definite answers (or a panic of the second run), with the detail.
    Mismatch(String),
}

fn word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Confirmed { .. } => "confirmed",
        Verdict::Rejected => "rejected",
        Verdict::Unknown { .. } => "unknown",
    }
}

/// Validates `opts` again with every shortcut off when `first` (its answer with `opts`'s
/// shortcuts) is definite, counts the case in `tally` and compares the two answers. With
/// `write`, a mismatch is written under the findings directory with the program, witness and
/// property files (the violation phase writes its findings itself).
pub fn compare(opts: &ValidateOptions, first: &Report, tally: &mut Tally, write: bool) -> Compared {
    if matches!(first.verdict, Verdict::Unknown { .. }) {
        tally.count(first, false);
        return Compared::Skipped;
    }
    let full = opts.clone().with_shortcuts(Shortcuts::NONE);
    tally.compared += 1;
    let second = match std::panic::catch_unwind(|| validate(&full)) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => {
            tally.count(first, false);
            return Compared::Agree;
        }
        Err(_) => {
            tally.count(first, false);
            return Compared::Mismatch("PANIC with every shortcut off".into());
        }
    };
    let definite = !matches!(second.verdict, Verdict::Unknown { .. });
    tally.both_definite += definite as u64;
    tally.count(first, definite);
    if !definite || word(&first.verdict) == word(&second.verdict) {
        return Compared::Agree;
    }
    let detail = format!(
        "shortcut mismatch: {} with the shortcuts ({}; decided by {}), {} by the full search ({})",
        word(&first.verdict),
        first.reason,
        first.decided_by.unwrap_or("the search"),
        word(&second.verdict),
        second.reason
    );
    let files: Vec<&Path> =
        [&opts.program, &opts.witness].into_iter().chain(&opts.property).map(|p| p.as_path()).collect();
    let written = FINDINGS.get().filter(|_| write).and_then(|dir| write_finding(dir, &files, &detail, first, &second));
    Compared::Mismatch(match written {
        Some(d) => format!("{detail}\n    written to {}", d.display()),
        None => detail,
    })
}

/// Writes a mismatch's inputs and both answers to a new directory under `dir`.
fn write_finding(dir: &Path, files: &[&Path], detail: &str, first: &Report, second: &Report) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut copies = Vec::new();
    for path in files {
        let text = std::fs::read(path).ok()?;
        h.update(&text);
        copies.push((path.file_name()?.to_owned(), text));
    }
    let hex: String = h.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect();
    let out = dir.join(format!("shortcut-{hex}"));
    std::fs::create_dir_all(&out).ok()?;
    for (name, text) in copies {
        std::fs::write(out.join(name), text).ok()?;
    }
    let readme = format!(
        "# Shortcut mismatch (issue 51, decision 238)\n\n{detail}\n\n- with every shortcut (as users run it): {}, \
         decided by {}, shortcuts that removed states: {:?}\n  reason: {}\n- with every shortcut off (the full \
         search): {}\n  reason: {}\n\nReproduce: `witness-check validate --json --witness <witness> --property \
         property.prp program.c` (the shortcut named in `decided_by`); the full search's answer needs \
         `ValidateOptions::shortcuts = Shortcuts::NONE` (no command-line flag).\n",
        word(&first.verdict),
        first.decided_by.unwrap_or("the search"),
        first.shortcuts_used,
        first.reason,
        word(&second.verdict),
        second.reason
    );
    std::fs::write(out.join("README.md"), readme).ok()?;
    Some(out)
}

/// Validates a correctness witness (or contract) in-process, judges the answer against the truth
/// `valid` (`false` on a valid witness or `true` on an invalid one is a mismatch), and compares a
/// definite answer with the full search's (decision 238; a wrong answer is compared too, so that
/// a shortcut's mismatch is written under the findings directory when found).
pub fn judge_correctness(opts: &ValidateOptions, valid: bool, tally: &mut Tally) -> (crate::round::Judgement, String) {
    use crate::round::Judgement;
    let report = match std::panic::catch_unwind(|| validate(opts)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return (Judgement::Unknown, e.to_string()),
        Err(_) => return (Judgement::Mismatch("PANIC".into()), "panic".into()),
    };
    let j = match (&report.verdict, valid) {
        (Verdict::Rejected, false) => Judgement::Mismatch("`true` on an invalid witness".into()),
        (Verdict::Confirmed { .. }, true) => Judgement::Mismatch("`false` on a valid witness".into()),
        (Verdict::Unknown { .. }, _) => Judgement::Unknown,
        _ => Judgement::Agree,
    };
    let compared = compare(opts, &report, tally, true);
    if j != Judgement::Agree {
        return (j, report.reason);
    }
    match compared {
        Compared::Mismatch(d) => (Judgement::Mismatch(d), report.reason),
        _ => (j, report.reason),
    }
}
