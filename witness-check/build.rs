//! Build facts the binary reports: the commit it was built from (`--version`), and a run path
//! `$ORIGIN/lib` so that the competition archive's own copy of the Z3 library is found before
//! the system's (`make dist`; where the directory is absent the system's library is used).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    // An archive built outside a checkout names its commit through the environment.
    println!("cargo:rerun-if-env-changed=WITNESS_CHECK_COMMIT");
    let commit = std::env::var("WITNESS_CHECK_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=WITNESS_CHECK_COMMIT={commit}");
    // Rebuild the fact when HEAD moves (a commit, a checkout).
    for path in ["HEAD", "refs/heads", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            let p = std::path::Path::new(&p);
            let p = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/lib");
}
