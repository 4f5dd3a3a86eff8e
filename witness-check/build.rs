//! How the binary is built and what it reports: the commit it was built from (`--version`);
//! libz3 loaded at the first Z3 call (decision 170; linked at start, with a run path
//! `$ORIGIN/lib` for the competition archive's copy, only where that cannot be done); a
//! position-dependent executable with gcc's unwinder linked in (decision 174).

use std::path::{Path, PathBuf};
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
    // The lazy loader looks in `lib/` next to the binary itself; a run path is only needed when
    // libz3 is linked at start. Without one, the dynamic loader does not search `lib/` (a dozen
    // `glibc-hwcaps` directories) for libc, libm and libgcc_s at every start (decision 174).
    if !lazy_z3() {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/lib");
    }
    // A position-dependent executable: no relative relocations to apply at start (10k with
    // fat LTO, and a copy of every page of `.data.rel.ro` they write; decision 174).
    if std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default() == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        static_unwinder();
    }
}

/// Decision 174: gcc's unwinder linked in (`libgcc_eh.a`, ahead of std's `-lgcc_s`), so that
/// `--as-needed` drops libgcc_s: one shared library less to load at every start, and no run of
/// its constructor (`__cpu_indicator_init`, a dozen `cpuid`s, 3.6 µs each in a VM). libz3, when
/// loaded, brings libgcc_s for its own C++ exceptions, which never cross into Rust frames.
/// Where gcc has no `libgcc_eh.a`, std's shared unwinder stays.
fn static_unwinder() {
    let Ok(out) = Command::new("gcc").arg("-print-file-name=libgcc_eh.a").output() else { return };
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !out.status.success() || !path.is_absolute() || !path.exists() {
        return;
    }
    if let Some(dir) = path.parent() {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static=gcc_eh");
    }
}

/// Decision 170: on x86-64 Linux the binary defines every Z3 function itself, as a trampoline
/// that loads libz3 on the first call (`lazy/`), so that `-lz3` (z3-sys) is left out under
/// `--as-needed` and a run that never calls the solver never loads it. `WITNESS_Z3_EAGER=1`, or a
/// Z3 header that cannot be read, links libz3 as before.
fn lazy_z3() -> bool {
    println!("cargo:rerun-if-env-changed=WITNESS_Z3_EAGER");
    println!("cargo:rerun-if-env-changed=Z3_SYS_Z3_HEADER");
    println!("cargo:rerun-if-changed=lazy/common.S");
    println!("cargo:rerun-if-changed=lazy/resolve.c");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_ARCH") != "x86_64" || var("CARGO_CFG_TARGET_OS") != "linux" {
        return false;
    }
    if !var("WITNESS_Z3_EAGER").is_empty() && var("WITNESS_Z3_EAGER") != "0" {
        return false;
    }
    let header = std::env::var("Z3_SYS_Z3_HEADER").map(PathBuf::from).unwrap_or_else(|_| "/usr/include/z3.h".into());
    let dir = header.parent().map(Path::to_path_buf).unwrap_or_default();
    let names = z3_functions(&dir);
    if names.len() < 100 {
        println!("cargo:warning=Z3 headers not found in {}: libz3 is linked at start", dir.display());
        return false;
    }
    let out = PathBuf::from(var("OUT_DIR"));
    let mut asm = String::from("    .section .note.GNU-stack,\"\",@progbits\n    .text\n");
    let mut table = String::from("#include <stddef.h>\n");
    for (i, n) in names.iter().enumerate() {
        asm.push_str(&format!(
            "    .globl {n}\n    .type {n}, @function\n{n}:\n    jmp *z3lazy_table+{}(%rip)\n",
            8 * i
        ));
        asm.push_str(&format!("z3lazy_stub_{i}:\n    movl ${i}, %r11d\n    jmp z3lazy_common\n"));
        table.push_str(&format!("extern char z3lazy_stub_{i}[];\n"));
    }
    // The stubs are local to the assembly file: the table names them through global aliases.
    for i in 0..names.len() {
        asm.push_str(&format!("    .globl z3lazy_stub_{i}\n    .hidden z3lazy_stub_{i}\n"));
    }
    table.push_str("void *z3lazy_table[] = {\n");
    for i in 0..names.len() {
        table.push_str(&format!("    z3lazy_stub_{i},\n"));
    }
    table.push_str("};\nconst char *const z3lazy_names[] = {\n");
    for n in &names {
        table.push_str(&format!("    \"{n}\",\n"));
    }
    table.push_str(&format!("}};\nconst char z3lazy_soname[] = \"{}\";\n", z3_soname()));
    let (asm_path, table_path) = (out.join("trampolines.S"), out.join("table.c"));
    if std::fs::write(&asm_path, asm).is_err() || std::fs::write(&table_path, table).is_err() {
        println!("cargo:warning=cannot write the Z3 trampolines: libz3 is linked at start");
        return false;
    }
    cc::Build::new()
        .file(&asm_path)
        .file(&table_path)
        .file("lazy/common.S")
        .file("lazy/resolve.c")
        .cargo_metadata(false)
        .compile("z3lazy");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static:+whole-archive=z3lazy");
    println!("cargo:rustc-link-lib=dylib=dl");
    true
}

/// Every function a Z3 header declares (`Z3_API Z3_name(`), in order, without repeats.
fn z3_functions(dir: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    files.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("z3") && n.ends_with(".h") && !n.contains("++"))
    });
    files.sort();
    let mut names = Vec::new();
    for f in files {
        println!("cargo:rerun-if-changed={}", f.display());
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let mut rest = text.as_str();
        while let Some(at) = rest.find("Z3_API") {
            rest = &rest[at + "Z3_API".len()..];
            let name: String =
                rest.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let after = rest.trim_start()[name.len()..].trim_start();
            if name.starts_with("Z3_") && after.starts_with('(') && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// The file name the system's libz3 is loaded by (its `libz3.so` link's target, e.g.
/// `libz3.so.4`), else `libz3.so`.
fn z3_soname() -> String {
    let dirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"];
    for d in dirs {
        let link = Path::new(d).join("libz3.so");
        if let Ok(target) = std::fs::read_link(&link) {
            if let Some(name) = target.file_name().and_then(|n| n.to_str()) {
                return name.to_string();
            }
        }
        if link.exists() {
            return "libz3.so".into();
        }
    }
    "libz3.so".into()
}
