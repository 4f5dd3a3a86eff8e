//! The competition archive (`make dist`, `scripts/dist`; issue 21): packed from this test's
//! build of the binary, unpacked into a clean directory, it must run the bundled example with
//! its own Z3 library. Where the machine allows a user and mount namespace (`unshare`), the
//! system's Z3 library is hidden for the run, and the test checks the hiding took effect (the
//! unpackaged binary no longer loads it); elsewhere the loader's log must show Z3 loaded from the archive.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_witness-check");

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).canonicalize().expect("repository root")
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// The Z3 library a binary loads: (file name, path). The binary loads it at its first Z3 call
/// (decision 170), which `--version` makes; the dynamic loader's log names the file.
fn z3_of(binary: &Path) -> Option<(String, String)> {
    let (_, text) = run(Command::new(binary).arg("--version").env("LD_DEBUG", "libs"));
    text.lines().find_map(|l| {
        let path = l.split("calling init: ").nth(1)?.trim();
        let name = Path::new(path).file_name()?.to_str()?;
        name.starts_with("libz3.so").then(|| (name.to_string(), path.to_string()))
    })
}

/// The example of the archive's README, run in the unpacked directory `dir`.
fn example(dir: &Path, program: &str) -> String {
    format!(
        "cd '{}' && {program} validate --witness example/minimal-example.graphml --property \
         example/unreach-call.prp example/minimal-example.c",
        dir.display()
    )
}

#[test]
fn the_archive_runs_its_example_with_its_own_z3() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dist-test");
    let _ = std::fs::remove_dir_all(&tmp);
    let out = tmp.join("out");
    let (ok, text) = run(Command::new(repo().join("scripts/dist")).env("DIST_BIN", BIN).env("DIST_OUT", &out));
    assert!(ok, "scripts/dist failed:\n{text}");
    let zip = out.join("witness-check.zip");
    assert!(zip.is_file(), "no archive: {text}");

    // Unpack into a clean directory, keeping the executable bits.
    let unpacked = tmp.join("unpacked");
    let unzip = "import os, sys, zipfile\n\
                 z = zipfile.ZipFile(sys.argv[1])\n\
                 for i in z.infolist():\n\
                 \x20   p = z.extract(i, sys.argv[2])\n\
                 \x20   mode = i.external_attr >> 16\n\
                 \x20   if mode: os.chmod(p, mode & 0o7777)\n";
    let (ok, text) = run(Command::new("python3").args(["-c", unzip]).arg(&zip).arg(&unpacked));
    assert!(ok, "cannot unpack the archive: {text}");
    let dir = unpacked.join("witness-check");
    for f in [
        "witness-check",
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "witness_check_benchexec/witness_check.py",
        "example/minimal-example.c",
        "man/witness-check.1",
        "man/witness-check-validate.1",
        "completions/witness-check.bash",
    ] {
        assert!(dir.join(f).is_file(), "the archive lacks {f}");
    }
    // The tar.gz holds the same, the binary executable (issue 35 item 11: Python's zipfile
    // drops the execute bit of a zip's files).
    let untarred = tmp.join("untarred");
    std::fs::create_dir_all(&untarred).unwrap();
    let (ok, text) =
        run(Command::new("tar").arg("-xzf").arg(out.join("witness-check.tar.gz")).arg("-C").arg(&untarred));
    assert!(ok, "cannot unpack the tar.gz: {text}");
    let (ok, text) = run(Command::new(untarred.join("witness-check/witness-check")).arg("--version"));
    assert!(ok && text.contains("witness-check"), "the tar.gz's binary does not run: {text}");
    let packed = dir.join("witness-check");

    // The archive's binary finds the archive's Z3 first.
    let (soname, system) = z3_of(Path::new(BIN)).expect("the test binary loads Z3");
    assert!(dir.join("lib").join(&soname).is_file(), "the archive lacks lib/{soname}");
    let (_, resolved) = z3_of(&packed).expect("the archive's binary loads Z3");
    assert_eq!(Path::new(&resolved).canonicalize().unwrap(), dir.join("lib").join(&soname).canonicalize().unwrap());

    let (ok, text) = run(Command::new("sh").args(["-c", &example(&dir, "./witness-check")]));
    assert!(ok && text.contains("RESULT: false(unreach-call)"), "the example did not confirm:\n{text}");

    // With the system's Z3 hidden, where the machine lets us hide it.
    let hide = format!("mount --bind /dev/null '{system}'");
    let probe = format!("{hide} && echo hidden");
    let namespace =
        |script: &str| run(Command::new("unshare").args(["--user", "--map-root-user", "--mount", "sh", "-c", script]));
    if Command::new("unshare").arg("--version").output().is_err() || !namespace(&probe).1.contains("hidden") {
        eprintln!("note: no user and mount namespace here; the archive's Z3 was checked with ldd only");
        return;
    }
    let (ok, text) = namespace(&format!("{hide} && {}", example(&dir, "./witness-check")));
    assert!(ok && text.contains("RESULT: false(unreach-call)"), "without the system's Z3:\n{text}");
    // `--version` asks Z3: the archive's binary answers with its own library, the test build
    // (which would load the system's) cannot.
    let version = |program: &str| format!("{hide} && cd '{}' && {program} --version", dir.display());
    let (ok, text) = namespace(&version("./witness-check"));
    assert!(ok && text.contains("Z3 "), "--version without the system's Z3:\n{text}");
    let (ok, text) = namespace(&version(BIN));
    assert!(!ok, "the system's Z3 was not hidden (the test build still ran):\n{text}");
}
