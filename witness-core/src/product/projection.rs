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
//! pointers (so no other thread holds one into this thread's memory), the thread allocates no
//! heap memory, creates, joins or names no thread, and calls through no pointer; its argument is
//! a constant. Otherwise the projection does not apply.

use super::unreached::witness_reach;
use super::*;
use crate::cfa::{Expr, VarId};
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
        // Its code keeps to itself.
        super::unreached::called_from(cfa, vec![start.routine], |op| {
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
}
