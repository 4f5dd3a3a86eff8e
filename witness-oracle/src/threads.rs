//! Issue 32 item 4: the oracle for multi-threaded programs. A generated program has a `main`
//! and one or two created threads (possibly running the same start routine), shared globals,
//! adjacent bit-fields, a mutex, a local of `main` whose address is passed to the threads (an
//! escaped local), `goto` loops, and checks `if (x == K) { reach_error(); }` in any thread.
//! Issue 51 added what the shortcuts' preconditions ask for: a helper function with a check of
//! its own, called by threads and `main` (the thread-line check), inputs in 0..2 (so that the
//! guessing run may miss and the search with its shortcuts decides), private locals copied from
//! shared variables and checked (partial-order reduction), stores checked at once (a value
//! only another thread's step between the two gives), and `main`'s local reaching the threads
//! through an integer, `memcpy` or a union instead of the start routine's argument.
//!
//! **Every schedule is enumerated natively.** One gcc build runs the program under a baton
//! scheduler (the driver below): before every statement that may touch shared state (every
//! statement but the loop's local counter and branch) the running thread stops at a scheduling
//! point, and exactly one thread runs at a time; the scheduler picks the next thread among
//! those whose pending statement is enabled (a lock only on a free mutex, a join only on an
//! ended thread). A depth-first search over the choices (one forked process per schedule)
//! visits every interleaving at statement granularity, the unit of interleaving of the
//! witnesses' execution model (concurrency digest §1); statements of one thread that touch
//! only its own locals run at once after its previous step, which changes no outcome (they
//! commute with every other step). A thread that calls `reach_error` stops there and the others
//! go on, so the trace shows every later moment at which the error call may still be taken.
//!
//! Witnesses (YAML 2.2 and GraphML 1.0) are recorded from a violating schedule: the thread
//! creations and the target (every schedule of the program is allowed), or every step of the
//! schedule as an assumption waypoint on a global's value, in segment order. Mutations: a value
//! moved by one, two adjacent segments swapped, the target's thread changed. The truth is
//! computed over every native trace with the reading of decision 153: a statement waypoint of
//! thread T is passed at any moment between T's arrival at the statement and T's step there, in
//! the global state of that moment; a creation is passed on its step; the target on the error
//! call, which the thread may take at any moment after it arrived. A witness is valid iff some
//! trace passes its waypoints in order and reaches the target: `true` on a valid witness and
//! `false` on an invalid one are mismatches. Each case is also validated without the
//! partial-order reduction where the first answer was definite (item 2's property test): a
//! different definite answer is a mismatch.
//!
//! Issue 52: correctness witnesses too. At a statement some thread reaches, a
//! `location_invariant` bounding the recorded shared variables by what every moment of every
//! schedule at which a thread is there shows (from its arrival to its step: decision 246's
//! reading), and the same with one bound moved in by one (false where that bound is observed).
//! A third of the programs get check constants no observed schedule takes, so that some hold.
//! The truth: valid iff no schedule reaches an error and every such moment keeps the invariant.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use proptest::prelude::RngExt;
use proptest::test_runner::TestRng;

pub use crate::round::{Judgement, Round};
use sha2::{Digest, Sha256};
use witness_core::validate::{validate, ValidateOptions};
use witness_core::verdict::Verdict;

/// Variables whose values the traces record (the assumption waypoints' subjects).
const SNAP: [&str; 4] = ["g0", "g1", "s.a", "s.b"];

/// A statement with a scheduling point: its line, its column, its function, whether it is a
/// `pthread_create` (the k-th creates thread k).
#[derive(Debug, Clone)]
struct Point {
    line: usize,
    col: usize,
    func: &'static str,
    create: bool,
}

/// A generated program and where its statements are.
#[derive(Debug, Clone)]
pub struct Program {
    pub text: String,
    native: String,
    /// The checks' constants (`__wc_k` natively).
    ks: Vec<i64>,
    points: Vec<Point>,
    /// The column of the `)` of each `pthread_create` call, by created thread (index tid-1).
    create_cols: Vec<usize>,
    /// The start routine of each thread (index 0: `main`).
    routines: Vec<&'static str>,
    /// Error calls: function, line, column.
    errors: Vec<(&'static str, usize, usize)>,
    /// Which function calls the helper (caller, helper).
    calls: Vec<(&'static str, &'static str)>,
    main_line: usize,
    sha256: String,
}

/// One step of a native trace: the thread, the line, the recorded values before the step.
#[derive(Debug, Clone)]
pub struct Step {
    tid: usize,
    line: usize,
    snap: [i64; 4],
}

/// One schedule: its steps, the arrivals at scheduling points (thread, line, moment), the
/// recorded values after the last step, and the error calls reached (thread, line).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    steps: Vec<Step>,
    arrivals: Vec<(usize, usize, usize)>,
    last: [i64; 4],
    errors: Vec<(usize, usize)>,
}

impl Trace {
    /// The recorded values at moment `m` (before step `m`; after the last step at the end).
    fn snap(&self, m: usize) -> [i64; 4] {
        self.steps.get(m).map(|s| s.snap).unwrap_or(self.last)
    }
}

/// A waypoint of a generated witness.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Wp {
    /// Thread `tid`'s creation, passed on its `pthread_create` step.
    Create { tid: usize, line: usize },
    /// Thread `tid` at the statement on `line`, with `SNAP[var] == value`.
    Assume { tid: usize, line: usize, var: usize, value: i64 },
}

/// A witness: waypoints in segment order, then the target (thread, error line).
#[derive(Debug, Clone)]
pub struct Witness {
    wps: Vec<Wp>,
    target: (usize, usize),
    graphml: bool,
}

/// One case: a program, a witness, and the truth.
#[derive(Debug, Clone)]
pub struct Case {
    pub program: Program,
    pub witness: Witness,
    pub valid: bool,
    pub mutation: &'static str,
    /// Issue 52: a correctness witness instead of `witness` (valid: every invariant holds and
    /// no schedule reaches an error).
    pub claim: Option<Claim>,
}

/// Issue 52: a correctness witness of a generated program: a `location_invariant` at a
/// scheduling point's statement, a conjunction of bounds on the recorded shared variables.
#[derive(Debug, Clone)]
pub struct Claim {
    line: usize,
    /// (index into `SNAP`, `<=` (true) or `>=` (false), bound).
    atoms: Vec<(usize, bool, i64)>,
}

impl Claim {
    fn text(&self) -> String {
        let atom = |&(v, le, k): &(usize, bool, i64)| format!("{} {} {k}", SNAP[v], if le { "<=" } else { ">=" });
        self.atoms.iter().map(atom).collect::<Vec<_>>().join(" && ")
    }

    fn holds(&self, snap: &[i64; 4]) -> bool {
        self.atoms.iter().all(|&(v, le, k)| if le { snap[v] <= k } else { snap[v] >= k })
    }
}

/// Issue 52: the recorded values of every moment at which some thread is at the statement on
/// `line`, over every schedule: from the thread's arrival there to its step there (or the end
/// of the schedule), as the validator reads a location invariant of a multi-threaded program
/// (decision 246: whenever any thread is at its location).
fn moments_at(traces: &[Trace], line: usize) -> Vec<[i64; 4]> {
    let mut out = Vec::new();
    for t in traces {
        for &(tid, l, a) in &t.arrivals {
            if l != line {
                continue;
            }
            let until = (a..t.steps.len()).find(|&m| t.steps[m].tid == tid && t.steps[m].line == line);
            for m in a..=until.unwrap_or(t.steps.len()) {
                out.push(t.snap(m));
            }
        }
    }
    out
}

/// Issue 52: correctness witnesses of the program: at up to two statements some thread
/// reaches, bounds observed on every schedule (true) and each moved by one inwards (false
/// where the bound is observed); valid iff no schedule reaches an error and every moment at
/// the statement keeps the invariant.
pub fn correctness_cases(p: &Program, traces: &[Trace], rng: &mut TestRng) -> Vec<Case> {
    let safe = traces.iter().all(|t| t.errors.is_empty());
    let mut lines: Vec<usize> = traces.iter().flat_map(|t| t.arrivals.iter().map(|a| a.1)).collect();
    lines.sort_unstable();
    lines.dedup();
    let mut out = Vec::new();
    for _ in 0..2.min(lines.len()) {
        let line = lines[rng.random_range(0..lines.len())];
        let states = moments_at(traces, line);
        if states.is_empty() {
            continue;
        }
        let mut atoms = Vec::new();
        for v in 0..SNAP.len() {
            if !rng.random_bool(0.5) {
                continue;
            }
            let lo = states.iter().map(|s| s[v]).min().unwrap_or(0);
            let hi = states.iter().map(|s| s[v]).max().unwrap_or(0);
            atoms.push((v, true, hi));
            atoms.push((v, false, lo));
        }
        if atoms.is_empty() {
            let v = rng.random_range(0..SNAP.len());
            atoms.push((v, true, states.iter().map(|s| s[v]).max().unwrap_or(0)));
        }
        let claim = Claim { line, atoms };
        let mut push = |claim: Claim, mutation: &'static str| {
            let valid = safe && states.iter().all(|s| claim.holds(s));
            let witness = Witness { wps: Vec::new(), target: (0, line), graphml: false };
            out.push(Case { program: p.clone(), witness, valid, mutation, claim: Some(claim) });
        };
        push(claim.clone(), "observed-bounds");
        let mut moved = claim.clone();
        let i = rng.random_range(0..moved.atoms.len());
        moved.atoms[i].2 += if moved.atoms[i].1 { -1 } else { 1 };
        push(moved, "bound-moved-in");
    }
    out
}

/// The YAML 2.0 text of a correctness witness.
pub fn invariant_yaml(p: &Program, c: &Claim) -> String {
    format!(
        r#"- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    uuid: "00000000-0000-4000-8000-000000000052"
    creation_time: "2026-12-07T00:00:00Z"
    producer:
      name: "witness-oracle"
      version: "1"
    task:
      input_files:
      - "program.c"
      input_file_hashes:
        program.c: {}
      specification: "G ! call(reach_error())"
      data_model: "LP64"
      language: "C"
  content:
  - invariant:
      type: location_invariant
      location: {{file_name: "program.c", line: {}, column: {}, function: "{}"}}
      value: "{}"
      format: c_expression
"#,
        p.sha256,
        c.line,
        col_of(p, c.line),
        func_of(p, c.line),
        c.text()
    )
}

struct Builder {
    v: String,
    n: String,
    line: usize,
    points: Vec<Point>,
    errors: Vec<(&'static str, usize, usize)>,
    create_cols: Vec<usize>,
    checks: usize,
    /// Calls of the helper: (caller, helper).
    calls: Vec<(&'static str, &'static str)>,
}

impl Builder {
    /// A line of both texts without a scheduling point.
    fn plain(&mut self, text: &str) {
        self.line += 1;
        let _ = writeln!(self.v, "{text}");
        let _ = writeln!(self.n, "{text}");
    }
    /// A statement with a scheduling point (`native` replaces it in the native text).
    fn point(&mut self, func: &'static str, indent: usize, stmt: &str, native: Option<String>, create: bool) {
        self.line += 1;
        let pad = " ".repeat(indent);
        let _ = writeln!(self.v, "{pad}{stmt}");
        let line = self.line;
        match native {
            Some(n) => {
                let _ = writeln!(self.n, "{pad}{n}");
            }
            None => {
                let _ = writeln!(self.n, "{pad}__wc_pt({line}); {stmt}");
            }
        }
        self.points.push(Point { line, col: indent + 1, func, create });
    }
    /// `if (x op K) {` / `reach_error();` / `}`: the condition is a scheduled step. The
    /// constant is chosen after a first native enumeration has shown the values `x` takes there
    /// (`@Kj@` in the text, `__wc_k[j]` natively).
    fn check(&mut self, func: &'static str, indent: usize, x: &str, op: &str) {
        let j = self.checks;
        self.checks += 1;
        let line = self.line + 1;
        let native = format!("__wc_pt({line}); __wc_obs({j}, {x}); if ({x} {op} __wc_k[{j}]) {{");
        self.point(func, indent, &format!("if ({x} {op} @K{j}@) {{"), Some(native), false);
        self.line += 1;
        let pad = " ".repeat(indent + 2);
        let _ = writeln!(self.v, "{pad}reach_error();");
        let _ = writeln!(self.n, "{pad}__wc_err({});", self.line);
        self.errors.push((func, self.line, indent + 3));
        self.plain(&format!("{}}}", " ".repeat(indent)));
    }
}

/// An assignment over the shared state (`escaped`: `p` points to `main`'s `v`, which `main`
/// names directly).
fn assignment(rng: &mut TestRng, escaped: bool, func: &str) -> String {
    let c = rng.random_range(1..4i32);
    let pool: &[&str] = if escaped {
        &[
            "g0 = g0 + C;",
            "g1 = g0 + C;",
            "g0 = g1;",
            "s.a = s.a + C;",
            "s.b = g0;",
            "g1 = s.a;",
            "g0 = C;",
            "*p = *p + C;",
            "g0 = *p;",
        ]
    } else {
        &["g0 = g0 + C;", "g1 = g0 + C;", "g0 = g1;", "s.a = s.a + C;", "s.b = g0;", "g1 = s.a;", "g0 = C;", "g1 = C;"]
    };
    // An escaped local is accessed half of the time it can be.
    let pick = if escaped && rng.random_bool(0.5) {
        pool.len() - 2 + rng.random_range(0..2usize)
    } else {
        rng.random_range(0..pool.len())
    };
    let a = pool[pick].replace('C', &c.to_string());
    if func == "main" {
        a.replace("*p", "v")
    } else {
        a
    }
}

/// A checked variable and a comparison.
fn condition<'a>(rng: &mut TestRng, vars: &[&'a str]) -> (&'a str, &'static str) {
    let x = vars[rng.random_range(0..vars.len())];
    let op = if rng.random_bool(0.8) { "==" } else { ">=" };
    (x, op)
}

/// The body of a start routine, of the helper, or of `main` between its creations (`helper`: a
/// function this body may call).
#[allow(clippy::too_many_arguments)]
fn items(
    b: &mut Builder,
    rng: &mut TestRng,
    func: &'static str,
    escaped: bool,
    n: usize,
    allow_loop: bool,
    helper: Option<&'static str>,
) {
    let mut looped = false;
    let shared: &[&str] = if escaped { &["g0", "g1", "s.a", "s.b", "*p"] } else { &["g0", "g1", "s.a", "s.b"] };
    for _ in 0..n {
        match rng.random_range(0..10u32) {
            0 | 1 => {
                let a = assignment(rng, escaped, func);
                b.point(func, 2, &a, None, false);
            }
            2 => {
                b.point(func, 2, "pthread_mutex_lock(&m);", Some(format!("__wc_lock({}, &m);", b.line + 1)), false);
                let a = assignment(rng, escaped, func);
                b.point(func, 2, &a, None, false);
                b.point(func, 2, "pthread_mutex_unlock(&m);", Some(format!("__wc_unlock({}, &m);", b.line + 1)), false);
            }
            3 if allow_loop && !looped => {
                looped = true;
                b.plain("  L: if (i < 2) {");
                let a = assignment(rng, escaped, func);
                b.point(func, 4, &a, None, false);
                b.plain("    i++;");
                b.plain("    goto L;");
                b.plain("  }");
            }
            4 if func != "main" => {
                let (x, op) = condition(rng, shared);
                b.check(func, 2, x, op);
            }
            // A check on the thread's own local (issue 51): only the thread's own steps decide
            // it, which the projection (decision 227) explores alone.
            5 if func != "main" && rng.random_bool(0.5) => {
                let (x, op) = condition(rng, &["i", "t"]);
                b.check(func, 2, x, op);
            }
            // An input in 0..2 (issue 51): the guessing run's guess may miss the one value that
            // reaches a check, and the search with its shortcuts decides. Natively the scheduler
            // tries each value as one more choice.
            6 => {
                let x = ["g0", "g1", "t"][rng.random_range(0..3usize)];
                let line = b.line + 1;
                b.point(
                    func,
                    2,
                    &format!("{x} = __VERIFIER_nondet_uchar() % 3;"),
                    Some(format!("__wc_pt({line}); {x} = __wc_choose(3);")),
                    false,
                );
                if func != "main" && rng.random_bool(0.6) {
                    let (_, op) = condition(rng, &[x]);
                    // The input and a shared variable together: the guess must be right and
                    // the other threads' stores must be seen (the projection, decision 227,
                    // makes shared variables arbitrary before each step).
                    let e = if x == "t" && rng.random_bool(0.6) {
                        format!("{} + t", ["g0", "g1"][rng.random_range(0..2usize)])
                    } else {
                        x.to_string()
                    };
                    b.check(func, 2, &e, op);
                }
            }
            // A private local copied from the shared state, then (mostly) checked: the copy's
            // step reads what other threads write (partial-order reduction, decision 176).
            7 => {
                let x = shared[rng.random_range(0..shared.len())];
                let x = if func == "main" && x == "*p" { "v" } else { x };
                b.point(func, 2, &format!("t = {x};"), None, false);
                if func != "main" && rng.random_bool(0.7) {
                    let (_, op) = condition(rng, &["t"]);
                    b.check(func, 2, "t", op);
                }
            }
            // The helper (its checks are lines of every thread that calls it: the thread-line
            // check, decision 226).
            8 if helper.is_some() => {
                let h = helper.unwrap_or_default();
                b.plain(&format!("  {h}();"));
                if !b.calls.contains(&(func, h)) {
                    b.calls.push((func, h));
                }
            }
            // A store and a check of the same variable at once: only a step of another thread
            // between the two reaches some values.
            9 if func != "main" => {
                let a = assignment(rng, escaped, func);
                b.point(func, 2, &a, None, false);
                let x = a.split(" = ").next().unwrap_or("g0").to_string();
                let x: &str = shared.iter().find(|v| **v == x).copied().unwrap_or("g0");
                let (_, op) = condition(rng, &[x]);
                b.check(func, 2, x, op);
            }
            _ => {
                let a = assignment(rng, escaped, func);
                b.point(func, 2, &a, None, false);
            }
        }
    }
}

/// A random program of the family (see the module comment).
pub fn generate(rng: &mut TestRng) -> Program {
    let two = rng.random_bool(0.6);
    let same = two && rng.random_bool(0.4);
    let escaped = rng.random_bool(0.5);
    // How `main`'s `v` reaches the threads (issue 51): as the start routine's argument, or with
    // a constant argument through an integer, `memcpy` or a union (the projection, decision
    // 236, must see that the thread's pointer leads into another thread's memory).
    // The other routes are rare: the validator does not follow an address through an integer's
    // bytes or a union member yet, and ends such cases `unknown`; they check that no shortcut
    // decides them first (a rejection there would be a projection that missed the route).
    let route = if !escaped {
        0
    } else {
        match rng.random_range(0..20u32) {
            0..=14 => 0,
            15 | 16 => 1,
            17 | 18 => 2,
            _ => 3,
        }
    };
    let mut b = Builder {
        v: String::new(),
        n: String::new(),
        line: 0,
        points: Vec::new(),
        errors: Vec::new(),
        create_cols: Vec::new(),
        checks: 0,
        calls: Vec::new(),
    };
    b.plain("extern void reach_error(void);");
    b.plain("extern unsigned char __VERIFIER_nondet_uchar(void);");
    b.plain("#include <pthread.h>");
    match route {
        1 => b.plain("long ga;"),
        2 => {
            b.plain("#include <string.h>");
            b.plain("long ga;");
        }
        3 => b.plain("union { long l; int *p; } gu;"),
        _ => {}
    }
    b.plain("int g0 = 0;");
    b.plain("int g1 = 0;");
    b.plain("struct { unsigned a : 3; unsigned b : 5; } s;");
    b.plain("pthread_mutex_t m;");
    let routines: Vec<&'static str> = if !two {
        vec!["main", "w1"]
    } else if same {
        vec!["main", "w1", "w1"]
    } else {
        vec!["main", "w1", "w2"]
    };
    let defined: Vec<&'static str> = if two && !same { vec!["w1", "w2"] } else { vec!["w1"] };
    // Issue 51: a helper the threads (and `main`) may call, with a check of its own.
    let helper = rng.random_bool(0.4).then_some("helper");
    if let Some(h) = helper {
        b.plain(&format!("void {h}(void) {{"));
        b.plain("  int i = 0;");
        b.plain("  int t = 0;");
        let n = rng.random_range(0..3usize);
        items(&mut b, rng, h, false, n, false, None);
        let (x, op) = condition(rng, &["g0", "g1", "s.a", "s.b"]);
        b.check(h, 2, x, op);
        b.plain("  (void)i; (void)t;");
        b.plain("}");
    }
    for f in &defined {
        b.plain(&format!("void *{f}(void *arg) {{"));
        match route {
            1 => b.plain("  int *p = (int *)ga;"),
            2 => {
                b.plain("  int *p;");
                b.plain("  memcpy(&p, &ga, sizeof p);");
            }
            3 => b.plain("  int *p = gu.p;"),
            _ => b.plain("  int *p = arg;"),
        }
        b.plain("  (void)arg;");
        b.plain("  int i = 0;");
        b.plain("  int t = 0;");
        let n = rng.random_range(1..4usize);
        items(&mut b, rng, f, escaped, n, true, helper);
        // The last routine calls the helper if nothing did (an uncalled function has no steps).
        let last = Some(f) == defined.last();
        if let Some(h) = helper.filter(|_| rng.random_bool(0.5) || (last && b.calls.is_empty())) {
            b.plain(&format!("  {h}();"));
            if !b.calls.contains(&(*f, h)) {
                b.calls.push((*f, h));
            }
        }
        b.plain("  (void)p; (void)i; (void)t;");
        b.plain("  return 0;");
        b.plain("}");
    }
    b.plain("int main(void) {");
    let main_line = b.line;
    b.plain("  pthread_t h1, h2;");
    b.plain("  int v = 0;");
    b.plain("  int t = 0;");
    match route {
        1 => b.plain("  ga = (long)&v;"),
        2 => {
            b.plain("  int *pv = &v;");
            b.plain("  memcpy(&ga, &pv, sizeof ga);");
        }
        3 => b.plain("  gu.l = (long)&v;"),
        _ => {}
    }
    let arg = if escaped && route == 0 { "&v" } else { "0" };
    for (k, f) in routines.iter().enumerate().skip(1) {
        let call = format!("pthread_create(&h{k}, 0, {f}, {arg});");
        let native = format!("__wc_create({}, &h{k}, {f}, {arg});", b.line + 1);
        b.point("main", 2, &call, Some(native), true);
        b.create_cols.push(2 + call.len() - 1);
        if rng.random_bool(0.5) {
            items(&mut b, rng, "main", escaped, 1, false, helper);
        }
    }
    let mut joins: Vec<usize> = (1..routines.len()).collect();
    if rng.random_bool(0.5) {
        joins.reverse();
    }
    for k in joins {
        b.point(
            "main",
            2,
            &format!("pthread_join(h{k}, 0);"),
            Some(format!("__wc_join({}, h{k});", b.line + 1)),
            false,
        );
    }
    if rng.random_bool(0.8) || b.errors.is_empty() {
        let (x, op) = condition(rng, &["g0", "g1", "s.a", "s.b", "v"]);
        b.check("main", 2, x, op);
    }
    b.plain("  (void)t;");
    b.plain("  return 0;");
    b.plain("}");
    let mut native = b.n.replacen("extern void reach_error(void);\n", NATIVE_DECLS, 1);
    native = native.replacen("int main(void) {", "int __wc_main(void) {", 1);
    native.push_str("void __wc_snap(long *o) { o[0] = g0; o[1] = g1; o[2] = s.a; o[3] = s.b; }\n");
    Program {
        text: b.v,
        ks: vec![0; b.checks],
        native,
        points: b.points,
        create_cols: b.create_cols,
        routines,
        errors: b.errors,
        calls: b.calls,
        main_line,
        sha256: String::new(),
    }
}

impl Program {
    /// Does a thread whose routine is `routine` run the code of `f`?
    fn runs(&self, routine: &str, f: &str) -> bool {
        routine == f || self.calls.iter().any(|&(c, h)| c == routine && h == f)
    }

    /// Fixes the checks' constants (the text and its hash).
    fn fix(&mut self, ks: Vec<i64>) {
        for (j, k) in ks.iter().enumerate() {
            self.text = self.text.replace(&format!("@K{j}@"), &k.to_string());
        }
        self.ks = ks;
        self.sha256 = Sha256::digest(self.text.as_bytes()).iter().map(|x| format!("{x:02x}")).collect();
    }
}

const NATIVE_DECLS: &str = "void __wc_pt(int);
void __wc_lock(int, void *);
void __wc_unlock(int, void *);
void __wc_create(int, void *, void *(*)(void *), void *);
void __wc_join(int, unsigned long);
void __wc_err(int);
void __wc_obs(int, long);
int __wc_choose(int);
extern long __wc_k[];
";

/// The baton scheduler and the depth-first search over its choices (see the module comment).
const DRIVER: &str = r#"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#define MAXT 4
#define MAXD 512
enum { NEW, RUNNING, WAITING, DONE, PARKED };
enum { K_PLAIN, K_LOCK, K_JOIN };
static pthread_mutex_t S = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t C = PTHREAD_COND_INITIALIZER;
static int nthreads = 1, turn = 0, creating = -1, creator = 0;
static int state[MAXT], kind[MAXT]; static void *obj[MAXT]; static long jt[MAXT];
static pthread_t handle[MAXT];
long __wc_k[16]; static int observe;
void __wc_obs(int j, long x) { if (observe) printf("O %d %ld\n", j, x); }
static void *held[8]; static int nheld;
static __thread int me;
static int *prefix; static int plen;
struct shared { int n; int overflow; int opts[MAXD]; int chose[MAXD]; };
static struct shared *sh;
void __wc_snap(long *o);
int __wc_main(void);

static int is_held(void *m) { for (int i = 0; i < nheld; i++) if (held[i] == m) return 1; return 0; }
static int enabled(int t) {
  if (state[t] != WAITING) return 0;
  if (kind[t] == K_LOCK) return !is_held(obj[t]);
  if (kind[t] == K_JOIN) return state[jt[t]] == DONE;
  return 1;
}
static void finish(void) {
  long v[4]; __wc_snap(v);
  printf("Z %ld %ld %ld %ld\nEND\n", v[0], v[1], v[2], v[3]); fflush(stdout); _exit(0);
}
static void decide(void) {
  int en[MAXT], n = 0;
  for (int t = 0; t < nthreads; t++) if (enabled(t)) en[n++] = t;
  if (n == 0) finish();
  int c = 0;
  if (n > 1) {
    int k = sh->n;
    if (k >= MAXD) sh->overflow = 1;
    else { c = k < plen ? prefix[k] : 0; if (c >= n) c = 0; sh->opts[k] = n; sh->chose[k] = c; sh->n = k + 1; }
  }
  turn = en[c];
  pthread_cond_broadcast(&C);
}
static void point(int line, int k, void *o, long j) {
  pthread_mutex_lock(&S);
  state[me] = WAITING; kind[me] = k; obj[me] = o; jt[me] = j;
  printf("A %d %d\n", me, line);
  if (me == creating) { creating = -1; turn = creator; pthread_cond_broadcast(&C); }
  else decide();
  while (turn != me) pthread_cond_wait(&C, &S);
  state[me] = RUNNING;
  long v[4]; __wc_snap(v);
  printf("S %d %d %ld %ld %ld %ld\n", me, line, v[0], v[1], v[2], v[3]);
  if (k == K_LOCK) held[nheld++] = o;
  pthread_mutex_unlock(&S);
}
void __wc_pt(int line) { point(line, K_PLAIN, 0, 0); }
int __wc_choose(int n) {
  int c = 0;
  pthread_mutex_lock(&S);
  int k = sh->n;
  if (k >= MAXD) sh->overflow = 1;
  else { c = k < plen ? prefix[k] : 0; if (c >= n) c = 0; sh->opts[k] = n; sh->chose[k] = c; sh->n = k + 1; }
  pthread_mutex_unlock(&S);
  return c;
}
void __wc_lock(int line, void *m) { point(line, K_LOCK, m, 0); }
void __wc_unlock(int line, void *m) {
  point(line, K_PLAIN, 0, 0);
  pthread_mutex_lock(&S);
  for (int i = 0; i < nheld; i++) if (held[i] == m) { held[i] = held[--nheld]; break; }
  pthread_mutex_unlock(&S);
}
struct start { void *(*f)(void *); void *arg; int tid; };
static void *tramp(void *p) {
  struct start st = *(struct start *)p; free(p);
  me = st.tid;
  pthread_mutex_lock(&S);
  while (turn != me) pthread_cond_wait(&C, &S);
  pthread_mutex_unlock(&S);
  st.f(st.arg);
  pthread_mutex_lock(&S);
  state[me] = DONE;
  printf("F %d\n", me);
  if (me == creating) { creating = -1; turn = creator; pthread_cond_broadcast(&C); }
  else decide();
  pthread_mutex_unlock(&S);
  return 0;
}
void __wc_create(int line, void *h, void *(*f)(void *), void *arg) {
  point(line, K_PLAIN, 0, 0);
  pthread_mutex_lock(&S);
  if (nthreads >= MAXT) { printf("TOO-MANY\n"); finish(); }
  int tid = nthreads++;
  state[tid] = NEW;
  *(unsigned long *)h = (unsigned long)tid;
  struct start *st = malloc(sizeof *st); st->f = f; st->arg = arg; st->tid = tid;
  creating = tid; creator = me; turn = tid;
  pthread_create(&handle[tid], 0, tramp, st);
  pthread_cond_broadcast(&C);
  while (turn != me) pthread_cond_wait(&C, &S);
  pthread_mutex_unlock(&S);
}
void __wc_join(int line, unsigned long h) { point(line, K_JOIN, 0, (long)h); pthread_join(handle[h], 0); }
void __wc_err(int line) {
  pthread_mutex_lock(&S);
  printf("R %d %d\n", me, line);
  state[me] = PARKED;
  decide();
  for (;;) pthread_cond_wait(&C, &S);
}
int main(int argc, char **argv) {
  int cap = atoi(argv[1]);
  observe = argc > 2 && argv[2][0] == 'o';
  for (int j = 0; j + 3 < argc && j < 16; j++) __wc_k[j] = atol(argv[j + 3]);
  sh = mmap(0, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int cap_stack = 1 << 16, top = 0;
  int *stack = malloc(sizeof(int) * MAXD * (size_t)cap_stack), *lens = malloc(sizeof(int) * (size_t)cap_stack);
  lens[top++] = 0;
  int runs = 0;
  while (top > 0 && runs < cap) {
    top--;
    int *p = stack + (size_t)top * MAXD; int pl = lens[top];
    int mine[MAXD]; memcpy(mine, p, sizeof(int) * (size_t)pl);
    printf("RUN\n"); fflush(stdout);
    sh->n = 0; sh->overflow = 0;
    pid_t pid = fork();
    if (pid == 0) {
      alarm(5);
      prefix = mine; plen = pl; me = 0; state[0] = RUNNING;
      __wc_main();
      finish();
    }
    int st; waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) printf("CRASH\n");
    if (sh->overflow) printf("OVERFLOW\n");
    printf("DONE\n"); fflush(stdout);
    runs++;
    for (int j = sh->n - 1; j >= pl; j--)
      for (int c = sh->opts[j] - 1; c >= 1; c--) {
        if (top >= cap_stack) { printf("CAPPED\n"); return 0; }
        int *q = stack + (size_t)top * MAXD;
        for (int i = 0; i < j; i++) q[i] = sh->chose[i];
        q[j] = c; lens[top++] = j + 1;
      }
  }
  if (top > 0) printf("CAPPED\n");
  return 0;
}
"#;

/// Builds `p` natively, enumerates up to 400 schedules to see the values the checks compare,
/// fixes each check's constant (mostly one of those values), then enumerates every schedule
/// (at most `cap`) of the fixed program.
pub fn run_natively(
    p: &mut Program,
    dir: &Path,
    cap: usize,
    avoid: bool,
    rng: &mut TestRng,
) -> Result<Vec<Trace>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let prog = dir.join("th.c");
    let drv = dir.join("th-driver.c");
    let exe = dir.join("th");
    std::fs::write(&prog, &p.native).map_err(|e| e.to_string())?;
    std::fs::write(&drv, DRIVER).map_err(|e| e.to_string())?;
    let out = Command::new("gcc")
        .args(["-O0", "-w", "-pthread", "-o"])
        .arg(&exe)
        .arg(&drv)
        .arg(&prog)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("gcc: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")));
    }
    let sentinel = vec![1i64 << 40; p.ks.len()];
    let obs = Command::new(&exe)
        .arg("400")
        .arg("observe")
        .args(sentinel.iter().map(|k| k.to_string()))
        .output()
        .map_err(|e| e.to_string())?;
    let mut seen: Vec<Vec<i64>> = vec![Vec::new(); p.ks.len()];
    for l in String::from_utf8_lossy(&obs.stdout).lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let ["O", j, x] = w[..] {
            if let (Ok(j), Ok(x)) = (j.parse::<usize>(), x.parse::<i64>()) {
                if let Some(v) = seen.get_mut(j) {
                    if !v.contains(&x) {
                        v.push(x);
                    }
                }
            }
        }
    }
    let ks: Vec<i64> = seen
        .iter()
        .map(|v| {
            if avoid {
                // A value the observed schedules never show (the truth still comes from every
                // schedule below).
                let mut k = rng.random_range(0..7i64);
                while v.contains(&k) {
                    k += 1;
                }
                k
            } else if !v.is_empty() && rng.random_bool(0.85) {
                v[rng.random_range(0..v.len())]
            } else {
                rng.random_range(0..7i64)
            }
        })
        .collect();
    p.fix(ks);
    let run = Command::new(&exe)
        .arg(cap.to_string())
        .arg("run")
        .args(p.ks.iter().map(|k| k.to_string()))
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&run.stdout);
    let mut traces = Vec::new();
    let mut cur = Trace::default();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.first().copied() {
            Some("RUN") => cur = Trace::default(),
            Some("S") if w.len() == 7 => {
                let n: Vec<i64> = w[1..].iter().filter_map(|x| x.parse().ok()).collect();
                if n.len() == 6 {
                    cur.steps.push(Step { tid: n[0] as usize, line: n[1] as usize, snap: [n[2], n[3], n[4], n[5]] });
                }
            }
            Some("A") if w.len() == 3 => {
                let (t, line) = (w[1].parse().unwrap_or(usize::MAX), w[2].parse().unwrap_or(0));
                cur.arrivals.push((t, line, cur.steps.len()));
            }
            Some("Z") if w.len() == 5 => {
                let n: Vec<i64> = w[1..].iter().filter_map(|x| x.parse().ok()).collect();
                if n.len() == 4 {
                    cur.last = [n[0], n[1], n[2], n[3]];
                }
            }
            Some("R") if w.len() == 3 => {
                let (t, line) = (w[1].parse().unwrap_or(usize::MAX), w[2].parse().unwrap_or(0));
                cur.errors.push((t, line));
            }
            Some("CRASH" | "OVERFLOW" | "CAPPED" | "TOO-MANY") => return Err(format!("native: {l}")),
            Some("DONE") => traces.push(std::mem::take(&mut cur)),
            _ => {}
        }
    }
    if traces.is_empty() {
        return Err("native: no schedule ran".into());
    }
    Ok(traces)
}

/// The line of each created thread's `pthread_create`.
fn create_lines(p: &Program) -> Vec<usize> {
    p.points.iter().filter(|pt| pt.create).map(|pt| pt.line).collect()
}

/// Whether the trace passes the witness (the reading in the module comment).
fn passes(creates: &[usize], w: &Witness, t: &Trace) -> bool {
    // Each arrival's window: from the arrival to the thread's step there, or to the end of the
    // trace when the thread never takes it (it waits for a join that never comes, or the
    // schedule ends).
    let windows: Vec<(usize, usize, usize, usize)> = t
        .arrivals
        .iter()
        .map(|&(tid, line, a)| {
            let e = t.steps.iter().enumerate().skip(a).find(|(_, s)| s.tid == tid).map(|(i, _)| i);
            (tid, line, a, e.unwrap_or(t.steps.len()))
        })
        .collect();
    let mut cur = 0usize;
    for wp in &w.wps {
        let found = match *wp {
            Wp::Create { tid, line } => t
                .steps
                .iter()
                .enumerate()
                .skip(cur)
                .find(|(_, s)| s.tid == 0 && s.line == line && creates.iter().position(|&l| l == line) == Some(tid - 1))
                .map(|(i, _)| i + 1),
            Wp::Assume { tid, line, var, value } => windows
                .iter()
                .filter(|&&(t2, l2, _, e)| t2 == tid && l2 == line && e >= cur)
                .find_map(|&(_, _, a, e)| (a.max(cur)..=e).find(|&m| t.snap(m)[var] == value)),
        };
        match found {
            Some(m) => cur = m,
            None => return false,
        }
    }
    // The error call may be taken at any moment after the thread arrived at it.
    t.errors.contains(&w.target)
}

/// Two waypoints of one thread at one statement with no waypoint of that thread between them:
/// whether both may be passed while the thread waits there once is not settled by the draft,
/// so such witnesses are not generated.
fn ambiguous(w: &Witness) -> bool {
    let mut last: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for wp in &w.wps {
        if let Wp::Assume { tid, line, .. } = *wp {
            if last.insert(tid, line) == Some(line) {
                return true;
            }
        }
    }
    false
}

/// The truth of a witness over every trace.
fn valid(p: &Program, w: &Witness, traces: &[Trace]) -> bool {
    let creates = create_lines(p);
    traces.iter().any(|t| passes(&creates, w, t))
}

/// The witnesses of one program and their truth.
pub fn cases(p: &Program, traces: &[Trace], rng: &mut TestRng) -> Vec<Case> {
    let creates = create_lines(p);
    let create_wps: Vec<Wp> = creates.iter().enumerate().map(|(k, &line)| Wp::Create { tid: k + 1, line }).collect();
    let mut out = Vec::new();
    let push = |w: Witness, mutation: &'static str, out: &mut Vec<Case>| {
        if ambiguous(&w) {
            return;
        }
        let v = valid(p, &w, traces);
        out.push(Case { program: p.clone(), witness: w, valid: v, mutation, claim: None });
    };
    // Every error call of every thread that runs its function: the creations and the target.
    let mut targets = Vec::new();
    for (tid, f) in p.routines.iter().enumerate() {
        for &(ef, line, _) in &p.errors {
            if p.runs(f, ef) {
                targets.push((tid, line));
            }
        }
    }
    for &target in &targets {
        for graphml in [false, true] {
            push(Witness { wps: create_wps.clone(), target, graphml }, "creations-and-target", &mut out);
        }
    }
    // Issue 51: an error line given to another thread (one whose routine may not contain it:
    // the thread-line check, decision 226, decides those).
    for &(ef, line, _) in &p.errors {
        let others: Vec<usize> = (0..p.routines.len()).filter(|&t| !p.runs(p.routines[t], ef)).collect();
        if others.is_empty() {
            continue;
        }
        let tid = others[rng.random_range(0..others.len())];
        for graphml in [false, true] {
            push(Witness { wps: create_wps.clone(), target: (tid, line), graphml }, "target-elsewhere", &mut out);
        }
    }
    // Violating schedules (up to three), each with a random subset of its steps as
    // waypoints, and their mutations.
    let violating: Vec<&Trace> = traces.iter().filter(|t| !t.errors.is_empty()).collect();
    for _ in 0..violating.len().min(3) {
        let t = violating[rng.random_range(0..violating.len())];
        recorded_cases(p, t, &creates, rng, &mut |w, m| push(w, m, &mut out));
    }
    out
}

/// The witness of one violating schedule and its mutations.
fn recorded_cases(
    p: &Program,
    t: &Trace,
    creates: &[usize],
    rng: &mut TestRng,
    push: &mut dyn FnMut(Witness, &'static str),
) {
    let (etid, eline) = t.errors[0];
    let keep = rng.random_range(0.3..1.0f64);
    let mut wps = Vec::new();
    let mut made = 0;
    for s in &t.steps {
        if s.tid == 0 && creates.get(made) == Some(&s.line) {
            made += 1;
            wps.push(Wp::Create { tid: made, line: s.line });
        } else if rng.random_bool(keep) {
            let var = rng.random_range(0..SNAP.len());
            wps.push(Wp::Assume { tid: s.tid, line: s.line, var, value: s.snap[var] });
        }
    }
    let recorded = Witness { wps, target: (etid, eline), graphml: false };
    push(recorded.clone(), "recorded-schedule");
    let assumes: Vec<usize> =
        recorded.wps.iter().enumerate().filter(|(_, w)| matches!(w, Wp::Assume { .. })).map(|(i, _)| i).collect();
    if !assumes.is_empty() {
        let mut m = recorded.clone();
        let i = assumes[rng.random_range(0..assumes.len())];
        if let Wp::Assume { value, .. } = &mut m.wps[i] {
            *value += if rng.random_bool(0.5) { 1 } else { -1 };
        }
        push(m, "value-moved");
    }
    let tid = |w: &Wp| match *w {
        Wp::Create { .. } => 0,
        Wp::Assume { tid, .. } => tid,
    };
    let swappable: Vec<usize> = (0..recorded.wps.len().saturating_sub(1))
        .filter(|&i| {
            let both_creates =
                matches!(recorded.wps[i], Wp::Create { .. }) && matches!(recorded.wps[i + 1], Wp::Create { .. });
            !both_creates && tid(&recorded.wps[i]) != tid(&recorded.wps[i + 1])
        })
        .collect();
    for _ in 0..2.min(swappable.len()) {
        let mut m = recorded.clone();
        let i = swappable[rng.random_range(0..swappable.len())];
        m.wps.swap(i, i + 1);
        push(m, "segments-swapped");
    }
    let others: Vec<usize> = (0..p.routines.len()).filter(|&k| k != etid).collect();
    if !others.is_empty() {
        let mut m = recorded.clone();
        m.target.0 = others[rng.random_range(0..others.len())];
        push(m, "target-thread-changed");
    }
}

fn func_of(p: &Program, line: usize) -> &'static str {
    p.points.iter().find(|pt| pt.line == line).map(|pt| pt.func).unwrap_or("main")
}

fn col_of(p: &Program, line: usize) -> usize {
    p.points.iter().find(|pt| pt.line == line).map(|pt| pt.col).unwrap_or(1)
}

/// The YAML 2.2 text of a witness.
pub fn yaml(p: &Program, w: &Witness) -> String {
    let mut s = format!(
        r#"- entry_type: violation_sequence
  metadata:
    format_version: "2.2"
    uuid: "00000000-0000-4000-8000-000000000032"
    creation_time: "2026-11-27T00:00:00Z"
    producer:
      name: "witness-oracle"
      version: "1"
    task:
      input_files:
      - "program.c"
      input_file_hashes:
        program.c: {}
      specification: "G ! call(reach_error())"
      data_model: "LP64"
      language: "C"
  content:
"#,
        p.sha256
    );
    let loc = |line: usize, col: usize, func: &str| {
        format!("location: {{file_name: \"program.c\", line: {line}, column: {col}, function: \"{func}\"}}")
    };
    for wp in &w.wps {
        match *wp {
            Wp::Create { tid, line } => {
                let col = p.create_cols[tid - 1];
                let _ = writeln!(
                    s,
                    "  - segment:\n    - waypoint: {{type: function_enter, action: follow, thread_id: 0, {}}}",
                    loc(line, col, "main")
                );
            }
            Wp::Assume { tid, line, var, value } => {
                let _ = writeln!(
                    s,
                    "  - segment:\n    - waypoint: {{type: assumption, action: follow, thread_id: {tid}, constraint: {{value: \"{} == {value}\", format: c_expression}}, {}}}",
                    SNAP[var],
                    loc(line, col_of(p, line), func_of(p, line))
                );
            }
        }
    }
    let (tid, line) = w.target;
    let (func, _, col) = p.errors.iter().find(|e| e.1 == line).copied().unwrap_or(("main", line, 1));
    let _ = writeln!(
        s,
        "  - segment:\n    - waypoint: {{type: target, action: follow, thread_id: {tid}, {}}}",
        loc(line, col, func)
    );
    s
}

/// The GraphML text of a witness of creations and a target (the only GraphML form generated).
pub fn graphml(p: &Program, w: &Witness) -> String {
    let mut s = crate::witness::graphml_prologue(
        "violation_witness",
        &[
            ("startline", "int", "edge"),
            ("enterFunction", "string", "edge"),
            ("threadId", "string", "edge"),
            ("createThread", "string", "edge"),
        ],
    );
    s.push_str(
        r#"  <data key="specification">CHECK( init(main()), LTL(G ! call(reach_error())) )</data>
  <data key="programfile">program.c</data>
"#,
    );
    let _ = writeln!(s, "  <data key=\"programhash\">{}</data>", p.sha256);
    s.push_str("  <data key=\"architecture\">64bit</data>\n  <data key=\"creationtime\">2026-11-27T00:00:00Z</data>\n");
    let n = w.wps.len() + 2;
    s.push_str("  <node id=\"N0\"><data key=\"entry\">true</data></node>\n");
    for i in 1..n {
        let _ = writeln!(s, "  <node id=\"N{i}\"/>");
    }
    let _ = writeln!(s, "  <node id=\"N{n}\"><data key=\"violation\">true</data></node>");
    let _ = writeln!(
        s,
        "  <edge source=\"N0\" target=\"N1\"><data key=\"threadId\">0</data><data key=\"startline\">{}</data><data key=\"enterFunction\">main</data></edge>",
        p.main_line
    );
    for (i, wp) in w.wps.iter().enumerate() {
        if let Wp::Create { tid, line } = *wp {
            let _ = writeln!(
                s,
                "  <edge source=\"N{}\" target=\"N{}\"><data key=\"threadId\">0</data><data key=\"createThread\">{tid}</data><data key=\"startline\">{line}</data></edge>",
                i + 1,
                i + 2
            );
        }
    }
    let (tid, line) = w.target;
    let _ = writeln!(
        s,
        "  <edge source=\"N{}\" target=\"N{n}\"><data key=\"threadId\">{tid}</data><data key=\"startline\">{line}</data></edge>",
        n - 1
    );
    s.push_str(" </graph>\n</graphml>\n");
    s
}

/// Validates a case in-process (as users run it, and with every shortcut off where the first
/// answer was definite: decision 238; partial-order reduction among them) and judges the answers.
pub fn check(c: &Case, dir: &Path, timeout: Duration, tally: &mut crate::shortcuts::Tally) -> (Judgement, String) {
    let _ = std::fs::create_dir_all(dir);
    let ext = if c.witness.graphml { "graphml" } else { "yml" };
    let (prog, wit, prp) = (dir.join("program.c"), dir.join(format!("witness.{ext}")), dir.join("property.prp"));
    let text = case_text(c);
    let written = std::fs::write(&prog, &c.program.text)
        .and_then(|_| std::fs::write(&wit, text))
        .and_then(|_| std::fs::write(&prp, "CHECK( init(main()), LTL(G ! call(reach_error())) )\n"));
    if let Err(e) = written {
        return (Judgement::Unknown, e.to_string());
    }
    let opts = ValidateOptions::new(&prog, &wit).with_property(&prp).with_timeout(timeout);
    let report = match std::panic::catch_unwind(|| validate(&opts)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return (Judgement::Unknown, e.to_string()),
        Err(_) => return (Judgement::Mismatch("PANIC".into()), "panic".into()),
    };
    // A correctness witness: `true` (Rejected) confirms it.
    let j = match (&report.verdict, c.valid) {
        (Verdict::Rejected, false) if c.claim.is_some() => {
            Judgement::Mismatch("`true` on a correctness witness a native schedule refutes".into())
        }
        (Verdict::Confirmed { .. }, true) if c.claim.is_some() => {
            Judgement::Mismatch("`false` on a correctness witness every native schedule keeps".into())
        }
        _ if c.claim.is_some() => match report.verdict {
            Verdict::Unknown { .. } => Judgement::Unknown,
            _ => Judgement::Agree,
        },
        (Verdict::Rejected, true) => Judgement::Mismatch("`true` on a witness a native schedule passes".into()),
        (Verdict::Confirmed { .. }, false) => {
            Judgement::Mismatch("`false` on a witness no native schedule passes".into())
        }
        (Verdict::Unknown { .. }, _) => Judgement::Unknown,
        _ => Judgement::Agree,
    };
    // The full search's answer is asked for a wrong answer too: a shortcut's mismatch is written
    // under the findings directory when found (the truth's mismatches are printed at the end).
    let compared = crate::shortcuts::compare(&opts, &report, tally, true);
    if j != Judgement::Agree {
        return (j, report.reason);
    }
    // Issue 32 item 2, issue 51 item 2: the full search (no reduction, no shortcut) must not
    // answer otherwise.
    match compared {
        crate::shortcuts::Compared::Mismatch(d) => (Judgement::Mismatch(d), report.reason),
        _ => (Judgement::Agree, report.reason),
    }
}

/// The witness text of a case.
fn case_text(c: &Case) -> String {
    match &c.claim {
        Some(claim) => invariant_yaml(&c.program, claim),
        None if c.witness.graphml => graphml(&c.program, &c.witness),
        None => yaml(&c.program, &c.witness),
    }
}

/// `programs` programs from `seed` (each with its cases), in `work`.
pub fn round(
    seed: u64,
    programs: usize,
    work: &Path,
    timeout: Duration,
    deadline: Option<std::time::Instant>,
) -> Round {
    let mut rng = crate::round::seeded(seed, 0x7d);
    let mut r = Round::default();
    for k in 0..programs {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        let mut p = generate(&mut rng);
        let dir = work.join(format!("th-{seed}-{k}"));
        let t0 = std::time::Instant::now();
        // Issue 52: a third of the programs get checks no schedule takes, for correctness
        // witnesses that hold.
        let avoid = rng.random_bool(0.35);
        let native = run_natively(&mut p, &dir, 20_000, avoid, &mut rng);
        r.native_secs += t0.elapsed().as_secs_f64();
        let Ok(traces) = native else { continue };
        let t0 = std::time::Instant::now();
        r.programs += 1;
        r.schedules += traces.len();
        let mut all = cases(&p, &traces, &mut rng);
        all.extend(correctness_cases(&p, &traces, &mut rng));
        for c in all {
            r.cases += 1;
            r.valid += c.valid as usize;
            let format = match (&c.claim, c.witness.graphml) {
                (Some(_), _) => "correctness",
                (None, true) => "graphml",
                (None, false) => "yaml-2.2",
            };
            for k in [format, c.mutation] {
                *r.mix.entry(k).or_default() += 1;
            }
            let (j, reason) = check(&c, &dir, timeout, &mut r.shortcuts);
            r.judged(j, &reason, || format!("{}, {reason}):\n{}\n{}", c.mutation, c.program.text, case_text(&c)));
        }
        r.validate_secs += t0.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&dir);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 51: the generator reaches the thread shortcuts' preconditions. Among 60 programs
    /// some have a check in the helper that a created thread runs (the thread-line check), an
    /// input checked in a thread (the guessing run may miss it), a private local copied from a
    /// shared variable and checked (partial-order reduction), and every helper is called.
    #[test]
    fn programs_reach_the_thread_shortcuts_preconditions() {
        let mut rng = crate::round::seeded(51, 0x7d);
        let (mut helper_in_thread, mut input_checked, mut copy_checked) = (0, 0, 0);
        let mut routes = [0; 3];
        for _ in 0..60 {
            let p = generate(&mut rng);
            let helper_errors = p.errors.iter().filter(|e| e.0 == "helper").count();
            if helper_errors > 0 {
                assert!(!p.calls.is_empty(), "an uncalled helper:\n{}", p.text);
                if p.routines.iter().skip(1).any(|r| p.runs(r, "helper")) {
                    helper_in_thread += 1;
                }
            }
            let lines: Vec<&str> = p.text.lines().collect();
            for (k, l) in lines.iter().enumerate() {
                let next = lines.get(k + 1).copied().unwrap_or_default();
                if let Some((x, _)) = l.trim().split_once(" = __VERIFIER_nondet_uchar()") {
                    input_checked += (next.trim_start().starts_with("if (") && next.contains(x)) as usize;
                }
                if l.trim().starts_with("t = ") {
                    copy_checked += next.contains("if (t ") as usize;
                }
            }
            for (k, r) in ["int *p = (int *)ga;", "memcpy(&p, &ga, sizeof p);", "int *p = gu.p;"].iter().enumerate() {
                routes[k] += p.text.contains(r) as usize;
            }
            assert!(p.native.contains("__wc_choose(3)") == p.text.contains("__VERIFIER_nondet_uchar() % 3"));
        }
        assert!(helper_in_thread >= 5, "{helper_in_thread} programs with a helper's check in a thread");
        assert!(input_checked >= 5, "{input_checked} inputs checked");
        assert!(copy_checked >= 5, "{copy_checked} copies checked");
        assert!(routes[0] >= 1 && routes[1] >= 1, "routes of main's local: {routes:?}");
    }
}
