//! Decision 227: one thread of a violation witness against every behaviour of the others.
//!
//! A program that creates threads in an unbounded loop has unboundedly many states, so the
//! search over every interleaving cannot reject a witness of it. But a witness often dies in
//! one thread's own steps: the thread blocks on its own thread-local variable, or takes a
//! branch its own values forbid. The projection explores that thread alone: it starts where
//! the witness creates it, and before each of its steps every shared variable takes any value
//! (what the other threads, however many, may have written); the witness's transitions of the
//! other threads fire at any moment, whatever their guards and assumptions. The projected runs
//! include the thread's part of every run of the program, so if none brings the witness to a
//! violation node, no run of the program does: the witness is rejected. The projection never
//! confirms (its runs include ones the program does not have); when it reaches a violation node
//! it says nothing, and the search decides as before.
//!
//! What the other threads cannot touch must stay the thread's own: the shared variables hold no
//! pointers, the thread forms no address of its own objects (so no other thread holds one into
//! its memory, by any route: decision 236) and makes no pointer of an integer (so it reaches no
//! other thread's memory), allocates no heap memory, creates, joins or names no thread, and
//! calls through no pointer; its argument is a constant. Process-wide state it would have to
//! share is not modelled: a program with `atexit` handlers (which `exit` runs on whichever
//! thread calls it) or with anything the front end did not understand (a destructor, a signal
//! handler) has no projection (decision 235). Otherwise the projection does not apply.

use super::unreached::witness_reach;
use super::*;
use crate::cfa::{Expr, VarId, VarScope};
use crate::property::Shape;
use crate::semantics::Slot;

/// Most time one projection may take: when it decides, its runs are few (one thread's), so it
/// decides quickly; a thread with a loop it cannot close takes this and says nothing.
const PROJECTION_TIME: Duration = Duration::from_millis(500);
/// Most product states one projection explores.
const PROJECTION_STATES: u64 = 50_000;
/// The id the projection gives the other threads' witness ids: no thread of the run has it.
const ELSEWHERE: u32 = u32::MAX;

/// The state of a projected exploration (see the module comment).
pub(super) struct Projection {
    /// The witness thread id whose steps are explored.
    thread: String,
    /// The shared (not thread-local) variables, made arbitrary before each step.
    shared: Vec<VarId>,
    /// The witness state nearest to a violation state the projected runs reached, with its
    /// distance.
    furthest: Option<(u32, NodeIndex)>,
}

/// Where and how the projected thread starts.
struct Plan {
    thread: String,
    /// The witness state after its creation.
    created: NodeIndex,
    start: Start,
    shared: Vec<VarId>,
}

impl<'a> Explorer<'a> {
    /// Decision 227: why no run brings the witness to a violation node, found by projecting it
    /// on one of the threads whose steps lead into a violation node; `None` when the projection
    /// does not apply or does not decide.
    pub(super) fn projection_rejects(&mut self) -> Option<InfeasibleStep> {
        let w = self.witness;
        if !self.cfa.threads
            || w.exact_locations
            || !matches!(self.opts.target.shape(), Shape::ErrorCall)
            || matches!(self.opts.undefined, UndefinedBehaviour::Unknown)
            || self.observer.is_some()
            || !matches!(self.opts.reading, SearchReading::AsWritten | SearchReading::Permissive { .. })
        {
            return None;
        }
        let mut ids: Vec<String> = Vec::new();
        for t in w.graph.edge_references() {
            if let Some(id) = &t.weight().guard.thread_id {
                if w.graph[t.target()].violation && !ids.contains(id) {
                    ids.push(id.clone());
                }
            }
        }
        for id in ids {
            let Some(plan) = self.projection_plan(&id) else { continue };
            if let Some(why) = self.project(plan) {
                return Some(why);
            }
        }
        None
    }

    /// How thread `id` of the witness starts, if the projection applies to it.
    fn projection_plan(&self, id: &str) -> Option<Plan> {
        let (cfa, w) = (self.cfa, self.witness);
        // One transition creates it, on lines of `pthread_create` calls only, and no
        // transition of the thread can fire before (its id would name no thread, or main).
        let creating: Vec<EdgeIndex> =
            w.graph.edge_indices().filter(|t| w.graph[*t].guard.create_thread.as_deref() == Some(id)).collect();
        let [c] = creating[..] else { return None };
        let g = &w.graph[c].guard;
        let lines = g.lines?;
        if g.anchor.is_some() || g.thread_id.as_deref() == Some(id) {
            return None;
        }
        let (_, created) = w.graph.edge_endpoints(c)?;
        // Every run to a violation node passes the creation (the projection starts there).
        let before = witness_reach(w, w.entry, |t| t == c);
        if before.iter().any(|n| w.graph[*n].violation) {
            return None;
        }
        let own = |t: EdgeIndex| w.graph[t].guard.thread_id.as_deref() == Some(id);
        if before.iter().any(|n| w.graph.edges_directed(*n, Direction::Outgoing).any(|t| own(t.id()))) {
            return None;
        }
        // Created once on every run: the creating transition is on no cycle.
        let (c_from, _) = w.graph.edge_endpoints(c)?;
        if witness_reach(w, created, |_| false).contains(&c_from) {
            return None;
        }
        let mut data = DataState::initial(cfa).ok()?;
        let on_lines =
            |s: Option<SourceSpan>| s.is_some_and(|s| lines.overlaps(s.start_line as u64, s.end_line as u64));
        let mut start: Option<Start> = None;
        for e in cfa.graph.edge_references() {
            match &e.weight().op {
                EdgeOp::ProgramStart if on_lines(e.weight().span) => return None,
                EdgeOp::ThreadCreate { routine, arg, .. } if on_lines(e.weight().span) => {
                    // A start routine through a pointer is known only in a run (decision 248).
                    let routine = &routine.function()?;
                    let arg = match arg.as_deref() {
                        None => None,
                        Some(x @ (Expr::Null | Expr::Const { .. })) => Some(x),
                        Some(_) => return None,
                    };
                    let value = match arg {
                        None => None,
                        Some(x) => Some(data.eval_any(cfa, x, None, &mut Vec::new()).ok()?),
                    };
                    match &start {
                        None => start = Some(Start { routine: *routine, arg: value, create_edge: e.id() }),
                        Some(s) if s.routine == *routine && s.arg == value => {}
                        Some(_) => return None,
                    }
                }
                _ => {}
            }
        }
        let start = start?;
        // Process-wide state the projection does not model (decision 235): the `atexit` list,
        // which `exit` runs on whichever thread calls it, and which runs when the last thread
        // ends after `main`'s `pthread_exit`; whatever the front end did not understand, in
        // any thread's code or at `main`'s entry (a destructor, an initializer not modelled,
        // a signal handler, `on_exit`, `errno`, `longjmp`).
        if !super::unreached::atexit_handlers(cfa).is_some_and(|h| h.is_empty()) {
            return None;
        }
        // Its code keeps to itself.
        let funcs = super::unreached::called_from(cfa, vec![start.routine], |op| {
            matches!(
                op,
                EdgeOp::CallPtr { .. }
                    | EdgeOp::Unsupported { .. }
                    | EdgeOp::ThreadCreate { .. }
                    | EdgeOp::ThreadJoin { .. }
                    | EdgeOp::ThreadSelf { .. }
                    | EdgeOp::Alloc { .. }
                    | EdgeOp::Realloc { .. }
                    | EdgeOp::Free { .. }
                    | EdgeOp::AtExit { .. }
            )
        })?;
        // Its objects stay its own and its pointers lead to no other thread's memory
        // (decision 236).
        if !confined(cfa, &funcs) {
            return None;
        }
        // The shared variables hold no pointers (nor anything the projection cannot make
        // arbitrary).
        let mut shared = Vec::new();
        for (v, slot) in data.globals.iter() {
            if cfa.thread_locals.contains(v) {
                continue;
            }
            match slot {
                Slot::Scalar(_) | Slot::Array { .. } | Slot::SymArray { .. } => shared.push(*v),
                Slot::Opaque | Slot::External => {}
                _ => return None,
            }
        }
        Some(Plan { thread: id.to_string(), created, start, shared })
    }

    /// Explores the projection of `plan`; the reason of the rejection if it decides one.
    fn project(&mut self, plan: Plan) -> Option<InfeasibleStep> {
        let (cfa, w) = (self.cfa, self.witness);
        let opts = ExploreOptions {
            deadline: self.opts.deadline.sooner(PROJECTION_TIME),
            target: self.opts.target.clone(),
            reading: self.opts.reading.clone(),
            ..*self.opts
        };
        let mut sub = Explorer::new(cfa, w, self.anchors, &opts, self.reach);
        sub.offsets = self.offsets.clone();
        sub.approximate = self.approximate.clone();
        sub.places = self.places.clone();
        sub.pins = self.pins.clone();
        sub.max_states = Some(PROJECTION_STATES);
        // Main has ended (its steps are the other threads'); the thread waits to start.
        let mut init = sub.initial_state().ok()?;
        let routine = plan.start.routine;
        let mut threads = Threads::new();
        threads.parked.push(Rc::new(Parked {
            id: 1,
            loc: cfa.function(routine).entry,
            stack: Rc::new(Vec::new()),
            returned: None,
            tls: Rc::new(sub.tls_init.clone()),
            next_frame: 1 << 40,
            start: Some(plan.start.clone()),
        }));
        threads.next_id = 2;
        threads.bindings.push((Rc::from(plan.thread.as_str()), 1));
        for t in w.graph.edge_weights() {
            for id in [&t.guard.thread_id, &t.guard.create_thread].into_iter().flatten() {
                if id != &plan.thread && threads.bound(id).is_none() {
                    threads.bindings.push((Rc::from(id.as_str()), ELSEWHERE));
                }
            }
        }
        init.loc = ended();
        init.witness = plan.created;
        init.threads = Some(Rc::new(threads));
        sub.projection = Some(Projection { thread: plan.thread.clone(), shared: plan.shared, furthest: None });
        let verdict = sub.run_from(init);
        if !matches!(verdict, Verdict::Rejected) {
            return None;
        }
        // The projection's own doubts bind the rejection as the search's would.
        if let Some(l) = sub.doubts.loosened.take() {
            if sub.doubts.loosened_by_program {
                self.doubts.assume_of_program(l);
            } else {
                self.doubts.loosen(l);
            }
        }
        if let Some(t) = sub.doubts.tightened.take() {
            self.doubts.tighten(t);
        }
        self.states += sub.states;
        let at = sub.projection.as_ref().and_then(|p| p.furthest).map(|(_, n)| n).unwrap_or(plan.created);
        let next = w
            .graph
            .edges_directed(at, Direction::Outgoing)
            .filter(|t| self.distance.contains_key(&t.target()))
            .find(|t| t.weight().guard.thread_id.as_deref() == Some(plan.thread.as_str()))
            .map(|t| t.id());
        let create = cfa.edge(plan.start.create_edge);
        let started = format!(
            "thread {} (`{}`, created at {})",
            plan.thread,
            cfa.function(routine).name,
            self.line_of(create.span)
        );
        let (line, origin, step) = match next {
            Some(t) => {
                let tr = &w.graph[t];
                let line = tr.guard.lines.map_or(0, |r| r.start as u32);
                (line, tr.origin.clone(), format!("its step at line {line} (the transition at {})", tr.origin))
            }
            None => (0, String::new(), format!("its next step after witness state `{}`", w.graph[at].id)),
        };
        Some(InfeasibleStep {
            line,
            origin,
            what: format!(
                "no run of the program brings the witness to its violation node: {started} cannot take {step}, \
                 whatever the other threads write to shared variables (each of its steps was explored with every \
                 shared variable arbitrary)"
            ),
            kind: "projection",
        })
    }

    /// A projected exploration: before a step of the thread, every shared variable takes any
    /// value; the witness's transitions of other threads fire at any moment. `None` to go on
    /// with the thread's steps, a verdict to stop (the projection reached a violation node).
    pub(super) fn project_step(&mut self, state: &mut ProductState, out: &mut Vec<ProductState>) -> Option<Verdict> {
        let w = self.witness;
        let p = self.projection.as_mut()?;
        if let Some(&d) = self.distance.get(&state.witness) {
            if p.furthest.is_none_or(|(f, _)| d < f) {
                p.furthest = Some((d, state.witness));
            }
        }
        for t in w.graph.edges_directed(state.witness, Direction::Outgoing) {
            let tr = t.weight();
            if tr.guard.thread_id.as_deref() == Some(p.thread.as_str()) || tr.avoid {
                continue;
            }
            let to = t.target();
            if w.graph[to].violation {
                return Some(Verdict::Unknown {
                    reason: format!("another thread may bring the witness to its violation node ({})", tr.origin),
                });
            }
            if w.graph[to].sink || !self.distance.contains_key(&to) {
                continue;
            }
            let mut s = state.clone();
            s.witness = to;
            out.push(s);
        }
        // The plan admitted only variables this can make arbitrary.
        let _ = super::havoc::havoc_globals(&mut state.data, &p.shared);
        None
    }
}

/// Decision 236: does the code of `funcs` (the projected thread's) keep its objects to itself
/// and its pointers out of other threads' memory? Only other threads' writes to shared
/// globals are modelled (each is made arbitrary before each step), so no other thread may reach
/// an object of the thread, nor the thread an object of another, by any route:
/// - no address of one of its objects is formed: `&x`, `&a[i]` or a decayed array `a` of a
///   local, a parameter or a thread-local (once formed, an address may reach shared memory
///   through an integer, `memcpy`, a union or a byte array, and another thread may write
///   through it);
/// - no pointer is made of anything but a pointer: an integer or a float converted to a
///   pointer, a pointer read through a pointer (from a global, which holds integers another
///   thread may have written: the address of its heap block or of its variable), a local
///   stored as bytes (a union whose pointer member may be read after an integer one was
///   written): made of an integer the projection made arbitrary, such a pointer is an
///   absolute address where the run of the program has another thread's object or heap block
///   (today the semantics ends every use of an absolute pointer that the memory layout decides
///   in `unknown`, so no run is lost yet; the rule keeps the projection sound whatever becomes
///   of that);
/// - no `pthread_mutex_trylock`: the projection knows no other holder of a mutex, so its
///   trylock would never fail.
///
/// Lexical and conservative: whether such an address or pointer is ever used does not matter.
fn confined(cfa: &Cfa, funcs: &[crate::cfa::FuncId]) -> bool {
    let own = |v: VarId| matches!(cfa.var(v).scope, VarScope::Local(_)) || cfa.thread_locals.contains(&v);
    let stored_as_bytes = cfa.vars.iter().any(|v| {
        matches!(v.scope, VarScope::Local(f) if funcs.contains(&f)) && matches!(v.ty, crate::cfa::CType::Bytes { .. })
    });
    if stored_as_bytes {
        return false;
    }
    let mut ok = true;
    for e in cfa.graph.edge_weights().filter(|e| funcs.contains(&e.function)) {
        if matches!(e.op, EdgeOp::Mutex { op: crate::cfa::MutexOp::TryLock, .. }) {
            return false;
        }
        e.op.for_each_expr(&mut |x| {
            ok &= match x {
                Expr::AddrOf { var, .. } => !own(*var),
                Expr::Cast { arg, to: ScalarTy::Ptr } => arg.ty() == ScalarTy::Ptr,
                Expr::Deref { ty: ScalarTy::Ptr, .. } => false,
                _ => true,
            }
        });
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::DataModel;

    /// Two `worker` threads (so that the search over every interleaving is exhaustive): each
    /// reads `flag` into its own `mine`, sets `flag`, and calls the error if `mine` is set.
    const PROGRAM: &str = "#include <pthread.h>
extern void reach_error(void);
int flag = 0;
void *worker(void *arg) {
  int mine = 0;
  if (flag) {
    mine = 1;
  }
  flag = 1;
  if (mine) {
    reach_error();
  }
  return 0;
}
int main(void) {
  pthread_t h1, h2;
  pthread_create(&h1, 0, worker, 0);
  pthread_create(&h2, 0, worker, 0);
  return 0;
}
";

    /// A GraphML witness: main creates both threads, then `steps` (thread, line, branch taken),
    /// then thread 1's error call (line 11) into the violation node.
    fn witness(steps: &[(u32, u32, Option<bool>)]) -> WitnessAutomaton {
        let mut edges = vec![
            "<data key=\"threadId\">0</data><data key=\"startline\">15</data><data key=\"enterFunction\">main</data>"
                .to_string(),
        ];
        for (id, line) in [(1, 17), (2, 18)] {
            edges.push(format!(
                "<data key=\"threadId\">0</data><data key=\"startline\">{line}</data><data key=\"createThread\">{id}</data>"
            ));
            edges.push(format!(
                "<data key=\"threadId\">{id}</data><data key=\"startline\">{line}</data><data key=\"enterFunction\">worker</data>"
            ));
        }
        for (id, line, branch) in steps {
            let control = branch
                .map(|b| format!("<data key=\"control\">condition-{}</data>", if b { "true" } else { "false" }))
                .unwrap_or_default();
            edges.push(format!("<data key=\"threadId\">{id}</data><data key=\"startline\">{line}</data>{control}"));
        }
        edges.push("<data key=\"threadId\">1</data><data key=\"startline\">11</data>".to_string());
        let mut xml = String::from(
            "<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\
             <key id=\"witness-type\" for=\"graph\" attr.name=\"witness-type\" attr.type=\"string\"/>\
             <key id=\"entry\" for=\"node\" attr.name=\"isEntryNode\" attr.type=\"boolean\"><default>false</default></key>\
             <key id=\"violation\" for=\"node\" attr.name=\"isViolationNode\" attr.type=\"boolean\"><default>false</default></key>\
             <key id=\"startline\" for=\"edge\" attr.name=\"startline\" attr.type=\"int\"/>\
             <key id=\"control\" for=\"edge\" attr.name=\"control\" attr.type=\"string\"/>\
             <key id=\"enterFunction\" for=\"edge\" attr.name=\"enterFunction\" attr.type=\"string\"/>\
             <key id=\"threadId\" for=\"edge\" attr.name=\"threadId\" attr.type=\"string\"/>\
             <key id=\"createThread\" for=\"edge\" attr.name=\"createThread\" attr.type=\"string\"/>\
             <graph edgedefault=\"directed\"><data key=\"witness-type\">violation_witness</data>\
             <node id=\"N0\"><data key=\"entry\">true</data></node>",
        );
        for (i, e) in edges.iter().enumerate() {
            let violation = if i + 1 == edges.len() { "<data key=\"violation\">true</data>" } else { "" };
            xml.push_str(&format!("<node id=\"N{}\">{violation}</node>", i + 1));
            xml.push_str(&format!("<edge source=\"N{i}\" target=\"N{}\">{e}</edge>", i + 1));
        }
        xml.push_str("</graph></graphml>");
        crate::witness::graphml::read_graphml(std::path::Path::new("w.graphml"), xml.as_bytes()).expect("graphml")
    }

    /// The projection's answer (`Some` = rejected) and the search's over every interleaving.
    fn both(cfa: &Cfa, w: &WitnessAutomaton) -> (Option<InfeasibleStep>, Verdict) {
        let opts = ExploreOptions {
            deadline: Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(60)),
            budget_secs: 60,
            stutter: StutterMode::Strict,
            target: crate::property::without_property_file(false),
            reading: SearchReading::AsWritten,
            segments: SegmentReading::Greedy,
            undefined: UndefinedBehaviour::Exclude,
            memory_limit: crate::resources::MemoryLimit::Off,
            memory_baseline: 0,
            leave_states: false,
            shortcuts: crate::shortcuts::Shortcuts::ALL.without(crate::shortcuts::Shortcut::PartialOrder),
        };
        let anchors = Anchors::new();
        let reach = ErrorReach::pruning(cfa, &opts.target, &[]);
        let projected = Explorer::new(cfa, w, &anchors, &opts, &reach).projection_rejects();
        let mut full = Explorer::new(cfa, w, &anchors, &opts, &reach);
        let init = full.initial_state().unwrap_or_else(|v| panic!("{v:?}"));
        (projected, full.run_from(init))
    }

    /// Soundness: on every witness of a family (thread 1's and thread 2's branch directions, in
    /// every interleaving of their steps), a projection that rejects agrees with the exhaustive
    /// search, which follows every run; and it does reject some.
    #[test]
    fn a_projection_rejects_only_what_the_search_over_every_interleaving_rejects() {
        let cfa = crate::cfront::build_program(std::path::Path::new("t.c"), PROGRAM, DataModel::Lp64)
            .unwrap_or_else(|e| panic!("{e}"))
            .cfa;
        let (mut rejected, mut confirmed) = (0, 0);
        for bits in 0..8u32 {
            let (c1, c2, d1) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            let one = [(1, 6, Some(c1)), (1, 9, None), (1, 10, Some(c2))];
            let two = [(2, 6, Some(d1)), (2, 9, None)];
            // Every interleaving: which of the five positions are thread 2's.
            for mask in 0..32u32 {
                if mask.count_ones() != 2 {
                    continue;
                }
                let (mut a, mut b) = (one.iter(), two.iter());
                let steps: Vec<(u32, u32, Option<bool>)> =
                    (0..5).filter_map(|i| if mask & (1 << i) != 0 { b.next() } else { a.next() }).copied().collect();
                let w = witness(&steps);
                let (projected, full) = both(&cfa, &w);
                match (&projected, &full) {
                    (Some(why), Verdict::Confirmed { .. }) => {
                        panic!("the projection rejects {steps:?} ({}), the search confirms it", why.what)
                    }
                    (Some(_), _) => rejected += 1,
                    (None, Verdict::Confirmed { .. }) => confirmed += 1,
                    _ => {}
                }
            }
        }
        assert!(rejected > 0 && confirmed > 0, "rejected {rejected}, confirmed {confirmed}");
    }

    /// What a step of a witness built by [`graphml`] says besides its thread and line.
    #[derive(Clone, Copy, Debug)]
    enum Mark {
        Plain,
        Enter(&'static str),
        Create(u32),
        Branch(bool),
    }

    /// A GraphML witness: one path of `steps` (thread, line, mark), the last into the
    /// violation node.
    fn graphml(steps: &[(u32, u32, Mark)]) -> WitnessAutomaton {
        let mut xml = String::from(
            "<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\
             <key id=\"witness-type\" for=\"graph\" attr.name=\"witness-type\" attr.type=\"string\"/>\
             <key id=\"entry\" for=\"node\" attr.name=\"isEntryNode\" attr.type=\"boolean\"><default>false</default></key>\
             <key id=\"violation\" for=\"node\" attr.name=\"isViolationNode\" attr.type=\"boolean\"><default>false</default></key>\
             <key id=\"startline\" for=\"edge\" attr.name=\"startline\" attr.type=\"int\"/>\
             <key id=\"control\" for=\"edge\" attr.name=\"control\" attr.type=\"string\"/>\
             <key id=\"enterFunction\" for=\"edge\" attr.name=\"enterFunction\" attr.type=\"string\"/>\
             <key id=\"threadId\" for=\"edge\" attr.name=\"threadId\" attr.type=\"string\"/>\
             <key id=\"createThread\" for=\"edge\" attr.name=\"createThread\" attr.type=\"string\"/>\
             <graph edgedefault=\"directed\"><data key=\"witness-type\">violation_witness</data>\
             <node id=\"N0\"><data key=\"entry\">true</data></node>",
        );
        for (i, (id, line, mark)) in steps.iter().enumerate() {
            let extra = match mark {
                Mark::Plain => String::new(),
                Mark::Enter(f) => format!("<data key=\"enterFunction\">{f}</data>"),
                Mark::Create(k) => format!("<data key=\"createThread\">{k}</data>"),
                Mark::Branch(b) => format!("<data key=\"control\">condition-{b}</data>"),
            };
            let violation = if i + 1 == steps.len() { "<data key=\"violation\">true</data>" } else { "" };
            xml.push_str(&format!("<node id=\"N{}\">{violation}</node>", i + 1));
            xml.push_str(&format!(
                "<edge source=\"N{i}\" target=\"N{}\"><data key=\"threadId\">{id}</data>\
                 <data key=\"startline\">{line}</data>{extra}</edge>",
                i + 1
            ));
        }
        xml.push_str("</graph></graphml>");
        crate::witness::graphml::read_graphml(std::path::Path::new("w.graphml"), xml.as_bytes()).expect("graphml")
    }

    /// Every interleaving of `a` and `b` (each in its order).
    fn interleavings<T: Copy>(a: &[T], b: &[T]) -> Vec<Vec<T>> {
        match (a.split_first(), b.split_first()) {
            (None, _) => vec![b.to_vec()],
            (_, None) => vec![a.to_vec()],
            (Some((x, ra)), Some((y, rb))) => {
                let mut out = Vec::new();
                for mut rest in interleavings(ra, b) {
                    rest.insert(0, *x);
                    out.push(rest);
                }
                for mut rest in interleavings(a, rb) {
                    rest.insert(0, *y);
                    out.push(rest);
                }
                out
            }
        }
    }

    /// Every run of a family: `prefix`, then `one`'s and `two`'s steps in each interleaving, then
    /// `last`.
    fn runs(
        prefix: &[(u32, u32, Mark)],
        one: &[(u32, u32, Mark)],
        two: &[(u32, u32, Mark)],
        last: (u32, u32, Mark),
    ) -> Vec<Vec<(u32, u32, Mark)>> {
        interleavings(one, two).into_iter().map(|mid| [prefix, &mid[..], &[last]].concat()).collect()
    }

    /// Soundness of both fast rejections (decisions 226 and 227) on `witnesses` of `program`:
    /// neither rejects a witness the search over every interleaving confirms. Returns how
    /// many the search confirms (a family none of which is confirmed tests nothing).
    fn fast_rejections_agree(program: &str, witnesses: &[Vec<(u32, u32, Mark)>]) -> usize {
        let cfa = crate::cfront::build_program(std::path::Path::new("t.c"), program, DataModel::Lp64)
            .unwrap_or_else(|e| panic!("{e}"))
            .cfa;
        let mut confirmed = 0;
        for steps in witnesses {
            let w = graphml(steps);
            let (projected, full) = both(&cfa, &w);
            let opts = ExploreOptions {
                deadline: Deadline::after(crate::budget::Clock::Wall, Duration::from_secs(60)),
                budget_secs: 60,
                stutter: StutterMode::Strict,
                target: crate::property::without_property_file(false),
                reading: SearchReading::AsWritten,
                segments: SegmentReading::Greedy,
                undefined: UndefinedBehaviour::Exclude,
                memory_limit: crate::resources::MemoryLimit::Off,
                memory_baseline: 0,
                leave_states: false,
                shortcuts: crate::shortcuts::Shortcuts::ALL.without(crate::shortcuts::Shortcut::PartialOrder),
            };
            let anchors = Anchors::new();
            let reach = ErrorReach::pruning(&cfa, &opts.target, &[]);
            let lines = Explorer::new(&cfa, &w, &anchors, &opts, &reach).thread_out_of_reach();
            if let Verdict::Confirmed { .. } = full {
                confirmed += 1;
                if let Some(why) = projected.or(lines) {
                    panic!("a fast rejection rejects {steps:?} ({}), the search confirms it", why.what);
                }
            }
        }
        confirmed
    }

    /// Decision 235: `main` registers an `atexit` handler, a thread calls `exit` and runs it.
    /// Thread 1 sets `flag` and exits; the handler (on thread 1) calls the error when `flag` is
    /// set. Thread 2 may set it too; the witnesses vary the handler's branch and the order.
    #[test]
    fn a_handler_registered_by_main_runs_on_the_thread_that_calls_exit() {
        const P: &str = "#include <pthread.h>
#include <stdlib.h>
extern void reach_error(void);
int flag = 0;
void handler(void) {
  if (flag) {
    reach_error();
  }
}
void *worker(void *arg) {
  flag = 1;
  exit(0);
  return 0;
}
int main(void) {
  pthread_t h1, h2;
  atexit(handler);
  pthread_create(&h1, 0, worker, 0);
  pthread_create(&h2, 0, worker, 0);
  return 0;
}
";
        let mut family = Vec::new();
        for c in [true, false] {
            let one = [(1, 11, Mark::Plain), (1, 12, Mark::Plain), (1, 6, Mark::Branch(c))];
            let two = [(2, 11, Mark::Plain)];
            family.extend(runs(
                &[
                    (0, 15, Mark::Enter("main")),
                    (0, 17, Mark::Plain),
                    (0, 18, Mark::Create(1)),
                    (1, 18, Mark::Enter("worker")),
                    (0, 19, Mark::Create(2)),
                    (2, 19, Mark::Enter("worker")),
                ],
                &one,
                &two,
                (1, 7, Mark::Plain),
            ));
        }
        assert!(fast_rejections_agree(P, &family) > 0);
    }

    /// Decision 235: thread 2 registers the handler, thread 1 calls `exit` and runs it (both
    /// fast rejections counted only `main`'s and the thread's own registrations). A
    /// registration after the `exit` is not run: those witnesses are rejected.
    #[test]
    fn a_handler_registered_by_another_thread_runs_on_the_thread_that_calls_exit() {
        const P: &str = "#include <pthread.h>
#include <stdlib.h>
extern void reach_error(void);
int flag = 0;
void handler(void) {
  if (flag) {
    reach_error();
  }
}
void *worker(void *arg) {
  flag = 1;
  exit(0);
  return 0;
}
void *registrar(void *arg) {
  atexit(handler);
  return 0;
}
int main(void) {
  pthread_t h1, h2;
  pthread_create(&h1, 0, worker, 0);
  pthread_create(&h2, 0, registrar, 0);
  return 0;
}
";
        let mut family = Vec::new();
        for c in [true, false] {
            let one = [(1, 11, Mark::Plain), (1, 12, Mark::Plain), (1, 6, Mark::Branch(c))];
            let two = [(2, 16, Mark::Plain)];
            family.extend(runs(
                &[
                    (0, 19, Mark::Enter("main")),
                    (0, 21, Mark::Create(1)),
                    (1, 21, Mark::Enter("worker")),
                    (0, 22, Mark::Create(2)),
                    (2, 22, Mark::Enter("registrar")),
                ],
                &one,
                &two,
                (1, 7, Mark::Plain),
            ));
        }
        assert!(fast_rejections_agree(P, &family) > 0);
    }

    /// Decision 236: thread 1 publishes the address of its local `mine` through an integer
    /// (`PUBLISH` stores `&mine` in shared memory), thread 2 writes 1 through it once `ready`
    /// is set; thread 1 calls the error if `mine` is set. Each shape of the route is explored
    /// with every interleaving of the two threads' steps and both directions of each branch.
    #[test]
    fn an_address_that_reaches_shared_memory_through_an_integer_escapes() {
        // (declarations, how thread 1 publishes `&mine`, how thread 2 reads it back)
        let routes = [
            ("long slot = 0;", "slot = (long)&mine;", "slot"),
            ("long slots[2];", "slots[1] = (long)&mine;", "slots[1]"),
            ("struct { int pad; long addr; } box;", "box.addr = (long)&mine;", "box.addr"),
            ("unsigned long slot = 0;", "slot = (unsigned long)(void *)&mine;", "slot"),
        ];
        let mut confirmed = 0;
        for (decl, publish, read) in routes {
            let program = format!(
                "#include <pthread.h>
extern void reach_error(void);
{decl}
int ready = 0;
void *worker(void *arg) {{
  int mine = 0;
  {publish}
  ready = 1;
  if (mine) {{
    reach_error();
  }}
  return 0;
}}
void *writer(void *arg) {{
  if (ready) {{
    *(int *){read} = 1;
  }}
  return 0;
}}
int main(void) {{
  pthread_t h1, h2;
  pthread_create(&h1, 0, worker, 0);
  pthread_create(&h2, 0, writer, 0);
  return 0;
}}
"
            );
            let mut family = Vec::new();
            for bits in 0..4u32 {
                let (c, d) = (bits & 1 != 0, bits & 2 != 0);
                let one = [(1, 7, Mark::Plain), (1, 8, Mark::Plain), (1, 9, Mark::Branch(c))];
                let two: Vec<(u32, u32, Mark)> = if d {
                    vec![(2, 15, Mark::Branch(true)), (2, 16, Mark::Plain)]
                } else {
                    vec![(2, 15, Mark::Branch(false))]
                };
                family.extend(runs(
                    &[
                        (0, 20, Mark::Enter("main")),
                        (0, 22, Mark::Create(1)),
                        (1, 22, Mark::Enter("worker")),
                        (0, 23, Mark::Create(2)),
                        (2, 23, Mark::Enter("writer")),
                    ],
                    &one,
                    &two,
                    (1, 10, Mark::Plain),
                ));
            }
            confirmed += fast_rejections_agree(&program, &family);
        }
        assert!(confirmed > 0);
    }

    /// Decision 236, the other way: thread 1 reads through an integer that holds an address
    /// another thread stored (a global's here). Made arbitrary by the projection, the integer
    /// converted to a pointer is no object's address but an absolute one. Today the semantics
    /// ends every use of such a pointer that the layout decides in `unknown` (a dereference, a
    /// comparison or a difference with an object's pointer), so the projection loses no run
    /// and this family passes without decision 236's rule too; the rule, and this test, keep
    /// it so if absolute addresses are ever modelled more precisely.
    #[test]
    fn a_pointer_made_of_a_shared_integer_may_point_at_another_threads_object() {
        const P: &str = "#include <pthread.h>
extern void reach_error(void);
long slot = 0;
int ready = 0;
int target = 0;
void *reader(void *arg) {
  if (ready) {
    if (*(int *)slot) {
      reach_error();
    }
  }
  return 0;
}
void *writer(void *arg) {
  target = 1;
  slot = (long)&target;
  ready = 1;
  return 0;
}
int main(void) {
  pthread_t h1, h2;
  pthread_create(&h1, 0, reader, 0);
  pthread_create(&h2, 0, writer, 0);
  return 0;
}
";
        let mut family = Vec::new();
        for bits in 0..4u32 {
            let (c, d) = (bits & 1 != 0, bits & 2 != 0);
            let one = [(1, 7, Mark::Branch(c)), (1, 8, Mark::Branch(d))];
            let two = [(2, 15, Mark::Plain), (2, 16, Mark::Plain), (2, 17, Mark::Plain)];
            family.extend(runs(
                &[
                    (0, 20, Mark::Enter("main")),
                    (0, 22, Mark::Create(1)),
                    (1, 22, Mark::Enter("reader")),
                    (0, 23, Mark::Create(2)),
                    (2, 23, Mark::Enter("writer")),
                ],
                &one,
                &two,
                (1, 9, Mark::Plain),
            ));
        }
        assert!(fast_rejections_agree(P, &family) > 0);
    }

    /// Decision 236: the projection knows no other holder of a mutex, so its
    /// `pthread_mutex_trylock` would always succeed; here `main` holds the mutex while thread
    /// 1 tries it, and the failing branch leads to the error.
    #[test]
    fn a_trylock_may_fail_on_a_mutex_another_thread_holds() {
        const P: &str = "#include <pthread.h>
extern void reach_error(void);
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *arg) {
  if (pthread_mutex_trylock(&m) != 0) {
    reach_error();
  }
  return 0;
}
int main(void) {
  pthread_t h1;
  pthread_mutex_lock(&m);
  pthread_create(&h1, 0, worker, 0);
  pthread_mutex_unlock(&m);
  return 0;
}
";
        let mut family = Vec::new();
        for c in [true, false] {
            family.extend(runs(
                &[
                    (0, 10, Mark::Enter("main")),
                    (0, 12, Mark::Plain),
                    (0, 13, Mark::Create(1)),
                    (1, 13, Mark::Enter("worker")),
                ],
                &[(1, 5, Mark::Branch(c))],
                &[(0, 14, Mark::Plain)],
                (1, 6, Mark::Plain),
            ));
        }
        assert!(fast_rejections_agree(P, &family) > 0);
    }
}
