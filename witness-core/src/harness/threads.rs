//! Harnesses of multi-threaded confirmations (issue 22, decision 161): a copy of the program
//! with schedule points (`__wc_turn(k);`) inserted before the statements where the run's
//! threads stop and resume, and a scheduler that grants the points one thread at a time in the
//! run's order, so that the native run interleaves exactly as the trace does.
//!
//! A thread runs from the point it is granted to its next point (or its end) while every other
//! thread waits at a point; so the points are needed where a thread resumes after another ran,
//! and where a thread that never runs again must be held. Every arrival of a thread at a point's
//! location on the trace is one step of the schedule (also a thread's arrival that is no switch:
//! the native run passes the point there too), and a created thread's start is one (point 0,
//! in the wrapper of `pthread_create`). The native run checks each grant against the trace's
//! (thread, point), and at the error that the whole schedule was taken: a run that leaves the
//! schedule is reported as such, never as a reproduction.
//!
//! A point is placed only where passing it and arriving at its location are the same event:
//! before a statement that starts a block item (after `;`, `{` or `}`), on a line whose offsets
//! are the file's, at a location that is no loop head and no jump target (`label:`, `case`,
//! `default`). A switch anywhere else (inside a statement, at a loop head, on a return) makes
//! the schedule not replayable, and the harness says why.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use petgraph::graph::NodeIndex;

use crate::cfa::{Cfa, EdgeOp};
use crate::verdict::{Taken, TraceStep};

/// The run's schedule: the points to insert and the steps in order.
pub(super) struct Schedule {
    /// Per point (index k − 1 for point k): the byte offset of its statement and its line.
    pub points: Vec<(usize, u32)>,
    /// Per step: the thread granted and the point it is granted at (0: the thread's start).
    pub steps: Vec<(u32, usize)>,
    /// The thread that reaches the error.
    pub last_thread: u32,
}

/// Whether `trace` runs more than one thread (a harness then replays its schedule).
pub(super) fn is_threaded(cfa: &Cfa, trace: &[TraceStep]) -> bool {
    cfa.threads && trace.iter().any(|s| s.thread.is_some_and(|t| t > 0))
}

fn line_of(cfa: &Cfa, offset: usize) -> u32 {
    cfa.line_starts.count_to(offset) as u32
}

/// Where a thread is before each step, and after its last one (`None`: it has ended); and
/// which steps change nothing another thread can see: a thread's start, and a return that
/// stores no result (in particular a start routine's, which ends the thread). The native run
/// cannot stop a thread before them, and need not: they commute with other threads' steps.
struct Places {
    before: Vec<Option<NodeIndex>>,
    unseen: Vec<bool>,
    after_last: BTreeMap<u32, Option<NodeIndex>>,
}

fn places(cfa: &Cfa, trace: &[TraceStep]) -> Places {
    let mut loc: HashMap<u32, Option<NodeIndex>> = HashMap::new();
    // Per thread, the calls it is in: the call's return location and whether it stores a result.
    let mut stacks: HashMap<u32, Vec<(NodeIndex, bool)>> = HashMap::new();
    let mut before = Vec::with_capacity(trace.len());
    let mut unseen = Vec::with_capacity(trace.len());
    for s in trace {
        let t = s.thread.unwrap_or(0);
        let stack = stacks.entry(t).or_default();
        let here = match s.taken {
            Taken::Edge(e) => cfa.graph.edge_endpoints(e).map(|(from, _)| from),
            Taken::Return | Taken::ThreadStart(_) | Taken::Wait => None,
        };
        before.push(here);
        let (next, quiet) = match s.taken {
            Taken::Edge(e) => {
                let target = cfa.graph.edge_endpoints(e).map(|(_, to)| to);
                match &cfa.edge(e).op {
                    EdgeOp::Call { callee, lhs, .. } => {
                        stack.extend(target.map(|to| (to, lhs.is_some())));
                        (Some(cfa.function(*callee).entry), false)
                    }
                    EdgeOp::ThreadExit => (None, false),
                    _ => (target, false),
                }
            }
            Taken::Return => match stack.pop() {
                Some((to, stores)) => (Some(to), !stores),
                None => (None, true),
            },
            Taken::ThreadStart(entry) => {
                stack.clear();
                (Some(entry), true)
            }
            // The thread does not move.
            Taken::Wait => (loc.get(&t).copied().flatten(), true),
        };
        unseen.push(quiet);
        loc.insert(t, next);
    }
    // A thread held at the end of a function goes on natively through the returns no other
    // thread sees (a start routine's ends the thread).
    for (t, at) in loc.iter_mut() {
        let stack = stacks.entry(*t).or_default();
        while let Some(n) = *at {
            if !cfa.functions.iter().any(|f| f.exit == n) {
                break;
            }
            match stack.last() {
                None => *at = None,
                Some((to, false)) => {
                    *at = Some(*to);
                    stack.pop();
                }
                Some((_, true)) => break,
            }
        }
    }
    Places { before, unseen, after_last: loc.into_iter().collect() }
}

/// The character before `offset`, skipping white space and comments (conservatively: a `//`
/// anywhere on an earlier line is taken as a comment's start).
fn previous_char(source: &str, offset: usize) -> Option<char> {
    let mut text = &source[..offset];
    let mut first_line = true;
    loop {
        let (rest, line) = match text.rfind('\n') {
            Some(i) => (&text[..i], &text[i + 1..]),
            None => ("", text),
        };
        let mut line = if first_line { line } else { line.find("//").map_or(line, |i| &line[..i]) };
        loop {
            let trimmed = line.trim_end();
            match trimmed.strip_suffix("*/") {
                Some(inner) => line = inner.rfind("/*").map_or("", |i| &inner[..i]),
                None => {
                    line = trimmed;
                    break;
                }
            }
        }
        if let Some(c) = line.chars().next_back() {
            return Some(c);
        }
        if rest.is_empty() && text.rfind('\n').is_none() {
            return None;
        }
        text = rest;
        first_line = false;
    }
}

/// Whether the statement at `offset` is a labelled one (`name:`, `case`, `default`): control
/// can arrive at it without passing a point placed before it.
fn labelled(source: &str, offset: usize) -> bool {
    let rest = &source[offset..];
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if word == "case" || word == "default" {
        return true;
    }
    !word.is_empty() && rest[word.len()..].trim_start().starts_with(':')
}

/// The statement before which a point for arriving at `node` goes, or why there is none.
fn point_at(cfa: &Cfa, source: &str, node: NodeIndex, step_line: u32) -> Result<usize, String> {
    let starts: Vec<usize> = cfa.statement_starts.iter().filter(|(_, n)| *n == node).map(|(o, _)| *o).collect();
    let where_ = || {
        cfa.graph
            .edges(node)
            .find_map(|e| e.weight().span.map(|s| format!("line {}", s.start_line)))
            .unwrap_or_else(|| format!("the step after line {step_line}"))
    };
    if starts.is_empty() {
        return Err(format!("at {} the run switches threads inside a statement", where_()));
    }
    if cfa.graph[node].loop_head {
        return Err(format!("at {} the run switches threads at a loop head", where_()));
    }
    if starts.iter().any(|o| !source.is_char_boundary(*o) || labelled(source, *o)) {
        return Err(format!("at {} the run switches threads at a labelled statement", where_()));
    }
    let exact = |o: usize| {
        let line = line_of(cfa, o);
        cfa.offsets_exact || cfa.exact_lines.get(line as usize - 1).copied().unwrap_or(false)
    };
    starts
        .iter()
        .rev()
        .copied()
        .find(|o| exact(*o) && matches!(previous_char(source, *o), Some(';' | '{' | '}')))
        .ok_or_else(|| {
            format!("at {} the statement where the run switches threads cannot take a call before it", where_())
        })
}

/// The schedule of `trace`, or why the program text cannot be instrumented to follow it.
pub(super) fn schedule(cfa: &Cfa, source: &str, trace: &[TraceStep]) -> Result<Schedule, String> {
    let places = places(cfa, trace);
    let thread = |i: usize| trace[i].thread.unwrap_or(0);
    let last_thread = trace.last().map_or(0, |s| s.thread.unwrap_or(0));
    // Where points are needed: each resumption, and where each thread but the last is held.
    // A resumption: a step of a thread after a step of another, not counting the steps no
    // other thread sees (the native run takes those early).
    let mut needed: BTreeMap<NodeIndex, u32> = BTreeMap::new();
    let mut previous: Option<u32> = None;
    for (i, s) in trace.iter().enumerate() {
        if places.unseen[i] {
            continue;
        }
        let switch = previous.is_some_and(|p| p != thread(i));
        previous = Some(thread(i));
        if !switch {
            continue;
        }
        match places.before[i] {
            Some(n) => {
                needed.entry(n).or_insert(s.line);
            }
            None => {
                return Err(format!(
                    "thread {} resumes by storing the result of {} (line {})",
                    thread(i),
                    s.function,
                    s.line
                ))
            }
        }
    }
    for (t, at) in &places.after_last {
        if *t != last_thread {
            if let Some(n) = at {
                let line = trace.iter().rev().find(|s| s.thread.unwrap_or(0) == *t).map_or(0, |s| s.line);
                needed.entry(*n).or_insert(line);
            }
        }
    }
    let mut offsets: BTreeMap<NodeIndex, usize> = BTreeMap::new();
    for (n, line) in &needed {
        offsets.insert(*n, point_at(cfa, source, *n, *line)?);
    }
    let mut sorted: Vec<usize> = offsets.values().copied().collect();
    sorted.sort_unstable();
    sorted.dedup();
    let number = |o: usize| sorted.iter().position(|x| *x == o).map_or(0, |i| i + 1);
    let mut steps = Vec::new();
    for (i, s) in trace.iter().enumerate() {
        if matches!(s.taken, Taken::ThreadStart(_)) {
            steps.push((thread(i), 0));
        } else if let Some(o) = places.before[i].and_then(|n| offsets.get(&n)) {
            steps.push((thread(i), number(*o)));
        }
    }
    let points = sorted.iter().map(|o| (*o, line_of(cfa, *o))).collect();
    Ok(Schedule { points, steps, last_thread })
}

/// The program's text with the schedule's points inserted (each on its statement's line).
pub(super) fn instrumented(source: &str, schedule: &Schedule) -> String {
    let mut out = String::with_capacity(source.len() + 32 * schedule.points.len());
    let mut done = 0;
    for (k, (offset, _)) in schedule.points.iter().enumerate() {
        out.push_str(&source[done..*offset]);
        let _ = write!(out, "__wc_turn({}); ", k + 1);
        done = *offset;
    }
    out.push_str(&source[done..]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The scheduler: the schedule's tables, the turn, the wrappers of `pthread_create` and
/// `pthread_exit`, and the check at the error.
pub(super) fn scheduler(schedule: &Schedule) -> String {
    let mut out = String::new();
    out.push_str("#include <pthread.h>\n#include <signal.h>\n\n");
    let lines = std::iter::once(0).chain(schedule.points.iter().map(|p| p.1));
    let _ = writeln!(
        out,
        "/* The line of each schedule point (point 0: a thread's start). */\nstatic const int wc_line[] = {{{}}};",
        super::join(lines.map(|l| l.to_string()))
    );
    let _ = writeln!(
        out,
        "/* Per step: the thread granted and the point it is granted at. */\nstatic const int wc_thread[] = {{{}}};",
        super::join(schedule.steps.iter().map(|s| s.0.to_string()))
    );
    let _ = writeln!(
        out,
        "static const int wc_point[] = {{{}}};",
        super::join(schedule.steps.iter().map(|s| s.1.to_string()))
    );
    let _ = writeln!(out, "static const unsigned long wc_steps = {};", schedule.steps.len());
    let _ = writeln!(out, "static const int wc_last_thread = {};", schedule.last_thread);
    out.push_str(SCHEDULER);
    out
}

/// What a run that leaves the schedule prints (to standard error) first, and its status.
pub const NOT_FOLLOWED_TEXT: &str = "harness: schedule not followed";
pub const NOT_FOLLOWED_STATUS: i32 = 87;
/// What a run whose schedule cannot go on prints, and its status.
pub const BLOCKED_TEXT: &str = "harness: schedule blocked";
pub const BLOCKED_STATUS: i32 = 88;

const SCHEDULER: &str = r#"static unsigned long wc_pos;         /* the next step to grant */
static int wc_running = 0;          /* the thread that runs (-1: none); main runs first */
static int wc_created;              /* threads created so far */
static __thread int wc_me;          /* this thread's number: main 0, then creation order */
static pthread_mutex_t wc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wc_cond = PTHREAD_COND_INITIALIZER;

static void wc_blocked(int sig) {
  char text[160];
  int n;
  (void) sig;
  n = snprintf(text, sizeof text, "harness: schedule blocked: step %lu of %lu (thread %d) was not taken within 5 s\n",
               wc_pos, wc_steps, wc_pos < wc_steps ? wc_thread[wc_pos] : -1);
  if (n > 0) write(2, text, (size_t) n);
  _exit(88);
}

__attribute__((constructor)) static void wc_start_clock(void) {
  signal(SIGALRM, wc_blocked);
  alarm(5);
}

/* Threads that have ended (their routine returned, or they called pthread_exit). */
static char wc_gone[256];

/* This thread ends: the next step may be granted. */
static void wc_release(void) {
  pthread_mutex_lock(&wc_lock);
  if (wc_me >= 0 && wc_me < 256) wc_gone[wc_me] = 1;
  if (wc_running == wc_me) {
    wc_running = -1;
    pthread_cond_broadcast(&wc_cond);
  }
  pthread_mutex_unlock(&wc_lock);
}

/* A schedule point: stop, and go on when the schedule grants this thread its next step. */
void __wc_turn(int point) {
  pthread_mutex_lock(&wc_lock);
  if (wc_running == wc_me) {
    wc_running = -1;
    pthread_cond_broadcast(&wc_cond);
  }
  while (wc_running != -1 || wc_pos >= wc_steps || wc_thread[wc_pos] != wc_me)
    pthread_cond_wait(&wc_cond, &wc_lock);
  if (wc_point[wc_pos] != point) {
    fprintf(stderr, "harness: schedule not followed: step %lu is thread %d at line %d, but it is at line %d\n",
            wc_pos, wc_me, wc_line[wc_point[wc_pos]], wc_line[point]);
    fflush(stderr);
    _exit(87);
  }
  wc_pos++;
  wc_running = wc_me;
  pthread_mutex_unlock(&wc_lock);
}

struct wc_start { void *(*routine)(void *); void *arg; int id; };

static void *wc_thread_start(void *p) {
  struct wc_start start = *(struct wc_start *) p;
  void *result;
  free(p);
  wc_me = start.id;
  __wc_turn(0);
  result = start.routine(start.arg);
  wc_release();
  return result;
}

int __wc_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *), void *arg) {
  struct wc_start *start = malloc(sizeof *start);
  if (!start) return 11;
  start->routine = routine;
  start->arg = arg;
  pthread_mutex_lock(&wc_lock);
  start->id = ++wc_created;
  pthread_mutex_unlock(&wc_lock);
  return pthread_create(thread, attr, wc_thread_start, start);
}

__attribute__((noreturn)) void __wc_pthread_exit(void *result) {
  wc_release();
  pthread_exit(result);
}

/* At the error: the run followed the schedule to its end, on the schedule's last thread; or,
   once that thread has ended, on whichever thread runs the exit handlers (after main's
   pthread_exit, the last thread to end does, which the schedule does not choose natively). */
static void wc_at_error(void) {
  pthread_mutex_lock(&wc_lock);
  int last_gone = wc_last_thread >= 0 && wc_last_thread < 256 && wc_gone[wc_last_thread];
  if (wc_pos != wc_steps || (wc_me != wc_last_thread && !last_gone)) {
    fprintf(stderr, "harness: schedule not followed: thread %d reaches the error after step %lu of %lu\n",
            wc_me, wc_pos, wc_steps);
    fflush(stderr);
    _exit(87);
  }
  pthread_mutex_unlock(&wc_lock);
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_goes_only_after_a_block_item() {
        let src = "int f(void) {\n  x = 1; /* c */ y = 2;\n  if (c)\n    z = 3;\n  // done;\n  w = 4;\n}\n";
        let at = |s: &str| src.find(s).expect("in the text");
        assert_eq!(previous_char(src, at("x = 1")), Some('{'));
        assert_eq!(previous_char(src, at("y = 2")), Some(';'));
        // The body of an `if` without braces: a call before it would leave the `if`.
        assert_eq!(previous_char(src, at("z = 3")), Some(')'));
        // A line comment is skipped, with what it says.
        assert_eq!(previous_char(src, at("w = 4")), Some(';'));
        assert_eq!(previous_char(src, 0), None);
    }

    #[test]
    fn labelled_statements_take_no_point() {
        let src = "again: x = 1; case 2: y; default: z; a ? b : c; done_1 :w;";
        let at = |s: &str| src.find(s).expect("in the text");
        assert!(labelled(src, at("again")));
        assert!(labelled(src, at("case")));
        assert!(labelled(src, at("default")));
        assert!(labelled(src, at("done_1")));
        assert!(!labelled(src, at("x = 1")));
        assert!(!labelled(src, at("a ? b")));
    }
}
