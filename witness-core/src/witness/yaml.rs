//! Reader for YAML witnesses (SV-COMP witness format 2.0 / 2.1), violation witnesses in
//! particular (`entry_type: violation_sequence`).
//!
//! [`read_yaml`] turns the bytes of a YAML witness into a format-neutral [`WitnessAutomaton`];
//! [`looks_like_yaml`] is a cheap content sniffer. The rules followed are those of the format
//! digest `shared/spec/witness-format-2.0.md` (structure §2, locations §3, constraints §4,
//! 2.1 additions §6, tolerated deviations §9).
//!
//! # The automaton
//!
//! A witness with segments `0 … n-1` becomes a chain of states `S0` (entry) … `S(n-1)`, a
//! violation state `V` and a sink `avoided`. The follow waypoint of segment `i` is a transition
//! `Si → S(i+1)` (the target of the last segment: `S(n-1) → V`); each avoid waypoint of
//! segment `i` is a transition `Si → avoided` with `avoid = true`. Every transition carries a
//! [`SourceAnchor`] (kind by waypoint type, exact line and 1-based column) and, depending on
//! the type, an [`Assumption`] (assumption, function_return) or a [`DecisionValue`]
//! (branching). Files with correctness entries (`invariant_set`, `ghost_instrumentation`,
//! legacy 0.1 entries) yield an automaton with just an entry state and
//! `witness_type = Correctness`; 2.1 non-termination witnesses (`action: cycle`, waypoint type
//! `recurrence_condition`) yield `witness_type = Termination` (a lasso back to the first cycle
//! segment's state, which is marked `cycle_head`).
//!
//! # Choice of YAML crate: `saphyr-parser`
//!
//! `serde_yaml` is archived. The candidates were `serde_norway` / `serde_yaml_ng` (forks of
//! serde_yaml on top of a C-to-Rust translation of libyaml) and `saphyr-parser` (the pure-Rust
//! YAML 1.2 event parser of the saphyr project, successor of `yaml-rust`/`yaml-rust2` by the
//! same maintainers). We use `saphyr-parser` 0.3 because:
//! * every event carries a [`Span`] (line and column), so each waypoint, each offending value
//!   and each syntax error is reported at its exact `line:col` in the witness; the serde forks
//!   only give positions for their own deserialisation errors, not for values we reject later
//!   (unknown waypoint type, `target` not last, …) nor for the `origin` of transitions;
//! * it is a pull parser driven by an explicit state stack (no recursion per nesting level):
//!   we build our own arena tree iteratively, with caps on depth, node count and input size,
//!   and aliases share nodes instead of being copied ("billion laughs" stays linear);
//! * scalars arrive as text plus their quoting style, so we apply the witness format's own
//!   typing (booleans/integers/strings for constraint values, `format_version: 2.0` as a
//!   number) instead of a generic YAML 1.1/1.2 schema;
//! * it is small (dependencies `arraydeque` and `thiserror`, the latter already ours), has no
//!   unsafe C translation, and is maintained.
//!
//! It parses every YAML witness in `shared/corpus` and `shared/spec/examples` (see the test
//! `all_real_witnesses_parse`). Its MSRV (1.85) is above the workspace's declared 1.80.
//!
//! This module does no file IO, does not print and must not panic on any input. Problems that
//! make the witness unusable are [`InputError`]s (`Malformed` with the `line:col` of the
//! offending node, columns in characters); accepted oddities become strings in
//! [`WitnessAutomaton::warnings`].

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use petgraph::graph::{DiGraph, NodeIndex};
use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use super::{
    AnchorKind, Assumption, DecisionValue, LocationGuard, SourceAnchor, WitnessAutomaton, WitnessMetadata,
    WitnessState, WitnessTransition, WitnessType,
};
use crate::error::{line_col, InputError};

/// Largest witness accepted, in bytes.
pub const MAX_INPUT_SIZE: usize = 64 << 20;
/// Deepest nesting of YAML collections accepted (real witnesses need 7).
pub const MAX_DEPTH: usize = 64;
/// Most YAML nodes accepted in one witness.
pub const MAX_NODES: usize = 4_000_000;
/// Most waypoints accepted (aliases can repeat segments without growing the input).
pub const MAX_WAYPOINTS: usize = 1_000_000;

const UTF8_BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// Entry types of correctness witnesses (2.0/2.1) and of legacy 0.1 "verification entries".
const CORRECTNESS_ENTRY_TYPES: &[&str] = &[
    "invariant_set",
    "ghost_instrumentation",
    "loop_invariant",
    "location_invariant",
    "loop_invariant_certificate",
    "location_invariant_certificate",
    "flow_insensitive_invariant",
    "precondition_loop_invariant",
    "precondition_loop_invariant_certificate",
];

const WAYPOINT_TYPES: &str =
    "assumption, branching, function_enter, function_return, target (format 2.1 also: recurrence_condition)";
const WAYPOINT_ACTIONS: &str = "follow, avoid (format 2.1 also: cycle)";
const CONSTRAINT_FORMATS: &[&str] = &["c_expression", "acsl_expression", "ext_c_expression"];

/// Does the content look like a YAML witness? After an optional BOM, blank lines, comments,
/// directives and a `---` marker, the first significant line starts a sequence item (`- …`)
/// or a flow sequence (`[`), and `entry_type` occurs in the first 4 KiB. False for XML.
pub fn looks_like_yaml(bytes: &[u8]) -> bool {
    const WINDOW: usize = 4096;
    let mut head = &bytes[..bytes.len().min(WINDOW)];
    if head.starts_with(&UTF8_BOM) {
        head = &head[UTF8_BOM.len()..];
    }
    let text = String::from_utf8_lossy(head);
    if !text.contains("entry_type") {
        return false;
    }
    for line in text.lines() {
        let mut t = line.trim_start_matches([' ', '\t']).trim_end_matches(['\r', ' ', '\t']);
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') || t == "---" {
            continue;
        }
        if let Some(rest) = t.strip_prefix("--- ") {
            t = rest.trim_start_matches([' ', '\t']);
        }
        return t == "-" || t.starts_with("- ") || t.starts_with("-\t") || t.starts_with('[');
    }
    false
}

/// Reads a YAML witness (format 2.0/2.1).
///
/// `bytes` is the file content; `path` is used in messages only. Errors:
/// [`InputError::Malformed`] (with line and column) for input that is not well-formed YAML,
/// has the wrong shape, or breaks the structure rules of a violation witness (unknown waypoint
/// type or action, no `target`, `target` not last, …); [`InputError::Invalid`] for a file
/// without any usable entry.
pub fn read_yaml(path: &Path, bytes: &[u8]) -> Result<WitnessAutomaton, InputError> {
    read_yaml_with_checks(path, bytes).map(|(w, _)| w)
}

/// [`read_yaml`], and for each of the automaton's warnings the witnesslint-digest check it
/// belongs to (`Y3`, `Y11`, …), for `lint`'s findings.
pub fn read_yaml_with_checks(path: &Path, bytes: &[u8]) -> Result<(WitnessAutomaton, Vec<&'static str>), InputError> {
    if bytes.len() > MAX_INPUT_SIZE {
        return Err(InputError::malformed(
            path,
            1,
            1,
            format!(
                "the witness has {} bytes; YAML witnesses larger than {} MiB are refused",
                bytes.len(),
                MAX_INPUT_SIZE >> 20
            ),
        ));
    }
    let base = if bytes.starts_with(&UTF8_BOM) { UTF8_BOM.len() } else { 0 };
    let text = match std::str::from_utf8(&bytes[base..]) {
        Ok(t) => t,
        Err(e) => {
            let (line, col) = line_col(bytes, base + e.valid_up_to());
            return Err(InputError::malformed(
                path,
                line,
                col,
                "invalid UTF-8 byte sequence (a YAML witness must be UTF-8 text)",
            ));
        }
    };
    let tree = Tree::parse(path, text)?;
    let Some(root) = tree.root else {
        return Err(InputError::malformed(
            path,
            1,
            1,
            "empty YAML document: expected a sequence of witness entries (`- entry_type: violation_sequence`, \
             or `- entry_type: invariant_set` for a correctness witness)",
        ));
    };
    let mut reader = Reader { path, tree: &tree, warnings: Warnings::default() };
    let w = reader.read(root)?;
    let mut codes = std::mem::take(&mut reader.warnings.last_codes);
    codes.resize(w.warnings.len(), "Y1");
    Ok((w, codes))
}

mod invariants;
mod waypoints;
pub use waypoints::{flatten_entries, thread_waypoints, FlatField, ThreadWaypoint};

// ---------------------------------------------------------------------------------------------
// Position-aware YAML tree
// ---------------------------------------------------------------------------------------------

/// 1-based line and column (in characters) of a node in the witness file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) line: u32,
    pub(crate) col: u32,
}

impl Pos {
    fn of(span: &Span) -> Pos {
        Pos::from_marker(span.start.line(), span.start.col())
    }

    fn from_marker(line: usize, col0: usize) -> Pos {
        Pos {
            line: u32::try_from(line.max(1)).unwrap_or(u32::MAX),
            col: u32::try_from(col0.saturating_add(1)).unwrap_or(u32::MAX),
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

pub(crate) type NodeId = usize;

#[derive(Debug)]
pub(crate) enum Kind {
    /// Text and whether it was written as a plain (unquoted) scalar.
    Scalar(String, bool),
    Seq(Vec<NodeId>),
    Map(Vec<(NodeId, NodeId)>),
}

#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) pos: Pos,
}

/// All nodes of the (single) YAML document in an arena; aliases reuse the anchored node.
/// Also read by `crate::taskdef` (task-definition files).
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: Option<NodeId>,
}

/// An open collection while building the tree.
struct Frame {
    id: NodeId,
    anchor: usize,
    /// Mapping: the key waiting for its value.
    pending_key: Option<NodeId>,
}

impl Tree {
    /// Builds the tree from the parser's event stream, iteratively.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Tree, InputError> {
        let err = |pos: Pos, msg: String| InputError::malformed(path, pos.line, pos.col, msg);
        let mut parser = Parser::new_from_str(text);
        let mut tree = Tree { nodes: Vec::new(), root: None };
        let mut stack: Vec<Frame> = Vec::new();
        let mut anchors: HashMap<usize, NodeId> = HashMap::new();
        let mut documents = 0usize;
        while let Some(next) = parser.next_event() {
            let (event, span) = match next {
                Ok(x) => x,
                Err(e) => {
                    let m = e.marker();
                    return Err(err(Pos::from_marker(m.line(), m.col()), format!("YAML syntax error: {}", e.info())));
                }
            };
            let pos = Pos::of(&span);
            let completed = match event {
                Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => None,
                Event::DocumentStart(_) => {
                    documents += 1;
                    if documents > 1 {
                        return Err(err(
                            pos,
                            "a second YAML document: a witness is a single document (a sequence of entries)".into(),
                        ));
                    }
                    None
                }
                Event::Alias(id) => match anchors.get(&id) {
                    Some(&node) => Some(node),
                    None => return Err(err(pos, "alias to an unknown or unfinished anchor".into())),
                },
                Event::Scalar(value, style, anchor, _tag) => {
                    let id = tree.push(path, Kind::Scalar(value.into_owned(), style == ScalarStyle::Plain), pos)?;
                    if anchor != 0 {
                        anchors.insert(anchor, id);
                    }
                    Some(id)
                }
                Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(err(
                            pos,
                            format!(
                                "YAML collections nested more than {MAX_DEPTH} levels deep; a witness needs about 7"
                            ),
                        ));
                    }
                    let kind = if matches!(event, Event::SequenceStart(..)) {
                        Kind::Seq(Vec::new())
                    } else {
                        Kind::Map(Vec::new())
                    };
                    let id = tree.push(path, kind, pos)?;
                    stack.push(Frame { id, anchor, pending_key: None });
                    None
                }
                Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                    Some(frame) => {
                        if frame.anchor != 0 {
                            // Registered only now: an alias inside its own anchored node would
                            // make the tree cyclic.
                            anchors.insert(frame.anchor, frame.id);
                        }
                        Some(frame.id)
                    }
                    None => return Err(err(pos, "unbalanced end of a YAML collection".into())),
                },
            };
            if let Some(child) = completed {
                match stack.last_mut() {
                    None => {
                        if tree.root.is_some() {
                            return Err(err(pos, "more than one top-level YAML node".into()));
                        }
                        tree.root = Some(child);
                    }
                    Some(frame) => match &mut tree.nodes[frame.id].kind {
                        Kind::Seq(items) => items.push(child),
                        Kind::Map(entries) => match frame.pending_key.take() {
                            None => frame.pending_key = Some(child),
                            Some(key) => entries.push((key, child)),
                        },
                        Kind::Scalar(..) => {}
                    },
                }
            }
        }
        Ok(tree)
    }

    fn push(&mut self, path: &Path, kind: Kind, pos: Pos) -> Result<NodeId, InputError> {
        if self.nodes.len() >= MAX_NODES {
            return Err(InputError::malformed(
                path,
                pos.line,
                pos.col,
                format!("more than {MAX_NODES} YAML nodes; refusing to read such a large witness"),
            ));
        }
        self.nodes.push(Node { kind, pos });
        Ok(self.nodes.len() - 1)
    }
}

// ---------------------------------------------------------------------------------------------
// Interpretation
// ---------------------------------------------------------------------------------------------

/// Warnings, each text at most once. Warnings that differ only in their `line:col: ` prefix
/// (the same oddity at many waypoints) are listed [`Warnings::REPEAT`] times and then counted.
#[derive(Default)]
struct Warnings {
    list: Vec<String>,
    /// The witnesslint-digest check each warning of `list` belongs to (`Y3`, `Y11`, …).
    codes: Vec<&'static str>,
    seen: HashSet<String>,
    /// The checks of the warnings `finish` returned last, in their order.
    last_codes: Vec<&'static str>,
    /// Per text without position: how often it occurred, and its check.
    repeats: Vec<(String, usize, &'static str)>,
}

impl Warnings {
    const REPEAT: usize = 3;

    fn push(&mut self, code: &'static str, msg: String) {
        if !self.seen.insert(msg.clone()) {
            return;
        }
        let rest = strip_position(&msg);
        if rest.len() == msg.len() {
            self.list.push(msg);
            self.codes.push(code);
            return;
        }
        match self.repeats.iter_mut().find(|(r, _, _)| r == rest) {
            Some((_, n, _)) => {
                *n += 1;
                if *n <= Self::REPEAT {
                    self.list.push(msg);
                    self.codes.push(code);
                }
            }
            None => {
                self.repeats.push((rest.to_string(), 1, code));
                self.list.push(msg);
                self.codes.push(code);
            }
        }
    }

    /// The warnings, each that starts with a position prefixed by the file's name (a warning
    /// names its file as an error does).
    fn finish(&mut self, path: &Path) -> Vec<String> {
        for (rest, n, code) in std::mem::take(&mut self.repeats) {
            if n > Self::REPEAT {
                self.list.push(format!("… and {} more times: {rest}", n - Self::REPEAT));
                self.codes.push(code);
            }
        }
        self.last_codes = std::mem::take(&mut self.codes);
        std::mem::take(&mut self.list)
            .into_iter()
            .map(|m| if strip_position(&m).len() < m.len() { format!("{}:{m}", path.display()) } else { m })
            .collect()
    }
}

/// The message without a leading `line:col: `.
fn strip_position(msg: &str) -> &str {
    let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).filter(|&i| i > 0);
    let Some(i) = digits(msg) else { return msg };
    let Some(after) = msg[i..].strip_prefix(':') else { return msg };
    let Some(j) = digits(after) else { return msg };
    after[j..].strip_prefix(": ").unwrap_or(msg)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaypointType {
    Assumption,
    Branching,
    FunctionEnter,
    FunctionReturn,
    Target,
    RecurrenceCondition,
}

impl WaypointType {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "assumption" => WaypointType::Assumption,
            "branching" => WaypointType::Branching,
            "function_enter" => WaypointType::FunctionEnter,
            "function_return" => WaypointType::FunctionReturn,
            "target" => WaypointType::Target,
            "recurrence_condition" => WaypointType::RecurrenceCondition,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            WaypointType::Assumption => "assumption",
            WaypointType::Branching => "branching",
            WaypointType::FunctionEnter => "function_enter",
            WaypointType::FunctionReturn => "function_return",
            WaypointType::Target => "target",
            WaypointType::RecurrenceCondition => "recurrence_condition",
        }
    }

    fn anchor_kind(self) -> AnchorKind {
        match self {
            WaypointType::Assumption | WaypointType::RecurrenceCondition => AnchorKind::Statement,
            WaypointType::Branching => AnchorKind::Branching,
            WaypointType::FunctionEnter => AnchorKind::FunctionEnter,
            WaypointType::FunctionReturn => AnchorKind::FunctionReturn,
            WaypointType::Target => AnchorKind::Target,
        }
    }

    fn needs_constraint(self) -> bool {
        !matches!(self, WaypointType::Target | WaypointType::FunctionEnter)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Follow,
    Avoid,
    Cycle,
}

/// The requirement of a waypoint, already interpreted.
#[derive(Debug)]
enum Requirement {
    None,
    Expression(String),
    Decision(DecisionValue),
}

#[derive(Debug)]
struct Waypoint {
    /// Position of the `waypoint` key.
    pos: Pos,
    wtype: WaypointType,
    action: Action,
    line: u32,
    column: Option<u32>,
    file_name: Option<String>,
    function: Option<String>,
    requirement: Requirement,
    /// The format 2.2 draft's `thread_id` (issue 22): the thread executing the waypoint.
    thread: Option<u32>,
}

/// A `location` as read (see `Reader::read_location`).
struct Location {
    line: u32,
    column: Option<u32>,
    file_name: Option<String>,
    function: Option<String>,
}

struct Reader<'a> {
    path: &'a Path,
    tree: &'a Tree,
    warnings: Warnings,
}

impl<'a> Reader<'a> {
    fn node(&self, id: NodeId) -> &'a Node {
        &self.tree.nodes[id]
    }

    fn pos(&self, id: NodeId) -> Pos {
        self.node(id).pos
    }

    fn err(&self, pos: Pos, msg: impl Into<String>) -> InputError {
        InputError::malformed(self.path, pos.line, pos.col, msg)
    }

    /// A warning of the digest's check `code` (`Y1`–`Y18`, shared with `lint`).
    fn warn(&mut self, code: &'static str, msg: String) {
        self.warnings.push(code, msg);
    }

    /// `a mapping`, `a sequence`, `` the scalar `x` ``, for messages.
    fn describe(&self, id: NodeId) -> String {
        match &self.node(id).kind {
            Kind::Map(_) => "a mapping".into(),
            Kind::Seq(_) => "a sequence".into(),
            Kind::Scalar(s, plain) if *plain && is_null(s) => "an empty value".into(),
            Kind::Scalar(s, _) => {
                let short: String = s.chars().take(40).collect();
                let dots = if short.len() < s.len() { "…" } else { "" };
                format!("the scalar `{short}{dots}`")
            }
        }
    }

    fn is_null(&self, id: NodeId) -> bool {
        matches!(&self.node(id).kind, Kind::Scalar(s, true) if is_null(s))
    }

    fn map(&self, id: NodeId, what: &str) -> Result<&'a [(NodeId, NodeId)], InputError> {
        match &self.node(id).kind {
            Kind::Map(entries) => Ok(entries),
            _ => Err(self.err(self.pos(id), format!("expected {what} (a mapping), found {}", self.describe(id)))),
        }
    }

    fn seq(&self, id: NodeId, what: &str) -> Result<&'a [NodeId], InputError> {
        match &self.node(id).kind {
            Kind::Seq(items) => Ok(items),
            _ => Err(self.err(self.pos(id), format!("expected {what} (a sequence), found {}", self.describe(id)))),
        }
    }

    fn scalar(&self, id: NodeId, what: &str) -> Result<&'a str, InputError> {
        match &self.node(id).kind {
            Kind::Scalar(s, _) => Ok(s),
            _ => Err(self.err(self.pos(id), format!("expected {what} (a scalar), found {}", self.describe(id)))),
        }
    }

    /// The text of a scalar key, if it is one.
    fn key_text(&self, id: NodeId) -> Option<&'a str> {
        match &self.node(id).kind {
            Kind::Scalar(s, _) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a mapping; a null value counts as absent. Duplicate keys are errors.
    fn get(&self, entries: &[(NodeId, NodeId)], key: &str, context: &str) -> Result<Option<NodeId>, InputError> {
        let mut found = None;
        for &(k, v) in entries {
            if self.key_text(k) == Some(key) {
                if found.is_some() {
                    return Err(self.err(self.pos(k), format!("duplicate key `{key}` in {context}")));
                }
                found = Some(v);
            }
        }
        Ok(found.filter(|&v| !self.is_null(v)))
    }

    /// Warns (under lint check `code`) about keys not in `known`.
    fn check_keys(&mut self, code: &'static str, entries: &[(NodeId, NodeId)], known: &[&str], context: &str) {
        for &(k, _) in entries {
            let pos = self.pos(k);
            match self.key_text(k) {
                Some(name) if known.contains(&name) => {}
                Some(name) => self.warn(code, format!("{pos}: unknown key `{name}` in {context} ignored")),
                None => self.warn(code, format!("{pos}: non-scalar key in {context} ignored")),
            }
        }
    }

    /// A scalar value that may be written as a string, number or boolean, as text.
    fn text(&self, id: NodeId, what: &str) -> Result<String, InputError> {
        Ok(self.scalar(id, what)?.to_string())
    }

    fn optional_text(
        &self,
        entries: &[(NodeId, NodeId)],
        key: &str,
        context: &str,
    ) -> Result<Option<String>, InputError> {
        match self.get(entries, key, context)? {
            Some(v) => Ok(Some(self.text(v, &format!("`{key}` in {context}"))?)),
            None => Ok(None),
        }
    }

    /// A non-negative integer (plain or quoted decimal).
    fn uint(&self, id: NodeId, what: &str) -> Result<u32, InputError> {
        let s = self.scalar(id, what)?;
        match parse_int(s) {
            Some(n) if (0..=i128::from(u32::MAX)).contains(&n) => Ok(n as u32),
            _ => Err(self.err(self.pos(id), format!("expected {what} (a non-negative integer), found `{s}`"))),
        }
    }

    // -----------------------------------------------------------------------------------------

    fn read(&mut self, root: NodeId) -> Result<WitnessAutomaton, InputError> {
        let entries = match &self.node(root).kind {
            Kind::Seq(items) => items,
            Kind::Map(_) => {
                return Err(self.err(
                    self.pos(root),
                    "expected a sequence of witness entries (`- entry_type: …`) at the top level, found a mapping \
                     (format 2.0 wraps even a single entry in a list)",
                ))
            }
            Kind::Scalar(..) => {
                return Err(self.err(
                    self.pos(root),
                    format!(
                        "expected a sequence of witness entries (`- entry_type: …`) at the top level, found {}",
                        self.describe(root)
                    ),
                ))
            }
        };
        if entries.is_empty() {
            return Err(self.err(self.pos(root), "empty list of witness entries"));
        }
        // Classify the entries.
        let mut violations = Vec::new();
        let mut correctness = Vec::new();
        let mut unknown = None;
        for &entry in entries {
            let map = self.map(entry, "a witness entry with `entry_type`, `metadata` and `content`")?;
            let Some(t) = self.get(map, "entry_type", "a witness entry")? else {
                return Err(self.err(self.pos(entry), "witness entry without `entry_type`"));
            };
            let name = self.scalar(t, "`entry_type`")?;
            if name == "violation_sequence" {
                violations.push((entry, map));
            } else if CORRECTNESS_ENTRY_TYPES.contains(&name) {
                correctness.push((map, name, self.pos(entry)));
            } else {
                let pos = self.pos(t);
                self.warn("Y2", format!("{pos}: entry of unknown type `{name}` ignored"));
                unknown.get_or_insert((pos, name));
            }
        }
        if !correctness.is_empty() {
            return self.read_invariant_sets(&correctness);
        }
        let Some(&(entry, map)) = violations.first() else {
            let (pos, name) = unknown.unwrap_or((self.pos(root), ""));
            return Err(self.err(
                pos,
                format!("unknown entry_type `{name}`, expected violation_sequence (or invariant_set for correctness)"),
            ));
        };
        if violations.len() > 1 {
            let others: Vec<String> = violations[1..].iter().map(|&(e, _)| self.pos(e).to_string()).collect();
            self.warn(
                "Y2",
                format!(
                    "{} violation_sequence entries: only the first one ({}) is used; ignored the others at {}",
                    violations.len(),
                    self.pos(entry),
                    others.join(", ")
                ),
            );
        }
        self.check_keys("Y1", map, &["entry_type", "metadata", "content"], "a violation_sequence entry");
        let mut metadata = WitnessMetadata { witness_type: Some(WitnessType::Violation), ..Default::default() };
        let mut input_files = Vec::new();
        match self.get(map, "metadata", "a violation_sequence entry")? {
            Some(m) => input_files = self.read_metadata(m, &mut metadata)?,
            None => self.warn("Y1", format!("{}: violation_sequence entry without `metadata`", self.pos(entry))),
        }
        let version = metadata.format_version.clone().unwrap_or_else(|| "2.0".into());
        let Some(content) = self.get(map, "content", "a violation_sequence entry")? else {
            return Err(self.err(self.pos(entry), "violation_sequence entry without `content` (the list of segments)"));
        };
        let segments = self.read_content(content, &input_files)?;
        // `thread_id` belongs to the 2.2 draft: in an older witness its meaning is not the
        // format's, and reading it either way would add or drop a constraint.
        if version == "2.0" || version == "2.1" {
            if let Some(w) = segments.iter().flatten().find(|w| w.thread.is_some()) {
                metadata.unsupported = Some(format!(
                    "{}:{}: `thread_id` in a format {version} witness (the key belongs to the format 2.2 draft)",
                    self.path.display(),
                    w.pos
                ));
            }
        }
        let termination = segments
            .iter()
            .flatten()
            .any(|w| w.action == Action::Cycle || w.wtype == WaypointType::RecurrenceCondition);
        if termination {
            metadata.witness_type = Some(WitnessType::Termination);
            if version == "2.0" {
                self.warn(
                    "Y3",
                    format!(
                        "format_version {version} with non-termination waypoints (a format 2.1 feature); read as 2.1"
                    ),
                );
            }
        }
        self.check_structure(content, &segments, termination)?;
        // Decision 93: the first cycle segment's waypoint gives the recurrent set.
        if let Some(c) = segments.iter().position(|s| s.iter().any(|w| w.action == Action::Cycle)) {
            if let Some(w) = segments[c].iter().find(|w| w.action != Action::Avoid) {
                if !matches!(w.requirement, Requirement::Expression(_)) {
                    self.warn(
                        "Y12",
                        format!(
                        "{}: the first cycle waypoint has no constraint expression: the recurrent set is every state",
                        w.pos
                    ),
                    );
                } else if w.wtype != WaypointType::RecurrenceCondition {
                    self.warn(
                        "Y12",
                        format!(
                        "{}: the first cycle waypoint is of type {}, not recurrence_condition; its constraint is read \
                         as the recurrent set",
                        w.pos,
                        w.wtype.name()
                    ),
                    );
                }
            }
        }
        let graph = build_chain(&segments);
        Ok(WitnessAutomaton {
            graph,
            entry: NodeIndex::new(0),
            metadata,
            warnings: self.warnings.finish(self.path),
            format: match version.as_str() {
                "2.0" if !termination => "YAML 2.0".into(),
                "2.0" | "2.1" => "YAML 2.1".into(),
                other => format!("YAML {other}"),
            },
            exact_locations: true,
            invariants: Vec::new(),
        })
    }

    /// An automaton of one entry state carrying the entry's metadata: for witnesses the pipeline
    /// only routes (correctness witnesses, concurrent ones), whose content is not read.
    fn metadata_only_automaton(&mut self, map: &[(NodeId, NodeId)], name: &str, kind: WitnessType) -> WitnessAutomaton {
        let mut metadata = WitnessMetadata::default();
        if let Ok(Some(m)) = self.get(map, "metadata", "a witness entry") {
            // Best effort: the pipeline only needs to know this is not a violation witness.
            let _ = self.read_metadata(m, &mut metadata);
        }
        metadata.witness_type = Some(kind);
        let version = metadata.format_version.clone().unwrap_or_default();
        let mut graph = DiGraph::new();
        let entry = graph.add_node(WitnessState { id: "S0".into(), entry: true, ..Default::default() });
        WitnessAutomaton {
            graph,
            entry,
            metadata,
            warnings: self.warnings.finish(self.path),
            format: if version.starts_with("0.") {
                format!("YAML {version} ({name})")
            } else if version.is_empty() {
                "YAML 2.0".into()
            } else {
                format!("YAML {version}")
            },
            exact_locations: true,
            invariants: Vec::new(),
        }
    }

    /// Reads `metadata` into `out`; returns `task.input_files`.
    fn read_metadata(&mut self, id: NodeId, out: &mut WitnessMetadata) -> Result<Vec<String>, InputError> {
        let m = self.map(id, "`metadata`")?;
        self.check_keys("Y1", m, &["format_version", "uuid", "creation_time", "producer", "task"], "`metadata`");
        match self.get(m, "format_version", "`metadata`")? {
            Some(v) => {
                let raw = self.scalar(v, "`format_version`")?;
                let version = match raw.trim() {
                    "2" | "2.00" => "2.0".to_string(),
                    "2.10" => "2.1".to_string(),
                    other => other.to_string(),
                };
                let major = version.split('.').next().unwrap_or_default();
                if major != "2" && major != "0" {
                    // Another major version may mean anything: reading it as 2.x could drop or
                    // change constraints, so it is not read at all.
                    return Err(self.err(
                        self.pos(v),
                        format!("format_version `{raw}` is not supported (this validator reads 2.0 and 2.1)"),
                    ));
                }
                // 2.2: the concurrency draft (issue 22), read as such.
                if major == "2" && version != "2.0" && version != "2.1" && version != "2.2" {
                    let pos = self.pos(v);
                    self.warn(
                        "Y3",
                        format!(
                        "{pos}: format_version `{raw}` is newer than 2.2; read as 2.2 (what 2.2 does not define is \
                         refused where it occurs)"
                    ),
                    );
                }
                out.format_version = Some(version);
            }
            None => self.warn("Y3", format!("{}: `metadata` without `format_version`; assuming 2.0", self.pos(id))),
        }
        if let Some(p) = self.get(m, "producer", "`metadata`")? {
            match &self.node(p).kind {
                Kind::Map(pm) => {
                    let name = self.optional_text(pm, "name", "`producer`")?;
                    let version = self.optional_text(pm, "version", "`producer`")?;
                    out.producer = match (name, version) {
                        (Some(n), Some(v)) => Some(format!("{n} {v}")),
                        (Some(n), None) => Some(n),
                        (None, v) => v,
                    };
                }
                Kind::Scalar(s, _) => {
                    self.warn("Y5", format!("{}: `producer` is a scalar, expected a mapping with `name`", self.pos(p)));
                    out.producer = Some(s.clone());
                }
                Kind::Seq(_) => return Err(self.err(self.pos(p), "expected `producer` (a mapping), found a sequence")),
            }
        }
        let mut input_files = Vec::new();
        let Some(t) = self.get(m, "task", "`metadata`")? else {
            self.warn("Y6", format!("{}: `metadata` without `task`", self.pos(id)));
            return Ok(input_files);
        };
        let task = self.map(t, "`task`")?;
        self.check_keys(
            "Y1",
            task,
            &["input_files", "input_file_hashes", "specification", "data_model", "language"],
            "`task`",
        );
        if let Some(f) = self.get(task, "input_files", "`task`")? {
            match &self.node(f).kind {
                Kind::Seq(items) => {
                    for &i in items {
                        input_files.push(self.text(i, "an entry of `input_files`")?);
                    }
                }
                Kind::Scalar(s, _) => input_files.push(s.clone()),
                Kind::Map(_) => {
                    return Err(self.err(self.pos(f), "expected `input_files` (a sequence), found a mapping"))
                }
            }
        }
        if let Some(h) = self.get(task, "input_file_hashes", "`task`")? {
            let hashes = self.map(h, "`input_file_hashes` (file name → SHA-256)")?;
            let mut pairs = Vec::new();
            for &(k, v) in hashes {
                let file = self.text(k, "a file name in `input_file_hashes`")?;
                let hash = self.text(v, "a SHA-256 hash in `input_file_hashes`")?;
                pairs.push((file, hash));
            }
            let chosen = match input_files.first() {
                Some(first) => pairs
                    .iter()
                    .find(|(f, _)| f == first)
                    .or_else(|| pairs.iter().find(|(f, _)| base_name(f) == base_name(first))),
                None => pairs.first(),
            };
            match chosen {
                Some((file, hash)) => {
                    out.program_file = Some(input_files.first().unwrap_or(file).clone());
                    out.program_hash = Some(hash.trim().to_ascii_lowercase());
                }
                None => self.warn(
                    "Y6",
                    format!(
                        "{}: no hash for the input file `{}` in `input_file_hashes`",
                        self.pos(h),
                        input_files.first().map(String::as_str).unwrap_or("")
                    ),
                ),
            }
        }
        if out.program_file.is_none() {
            out.program_file = input_files.first().cloned();
        }
        if let Some(s) = self.get(task, "specification", "`task`")? {
            match &self.node(s).kind {
                Kind::Seq(items) => {
                    for &i in items {
                        out.specifications.push(self.text(i, "a `specification`")?);
                    }
                }
                _ => out.specifications.push(self.text(s, "`specification`")?.trim().to_string()),
            }
        }
        out.architecture = self.optional_text(task, "data_model", "`task`")?.map(|s| s.trim().to_string());
        if let Some(arch) = &out.architecture {
            if !["ILP32", "LP64", "32bit", "64bit"].contains(&arch.as_str()) {
                let pos = self.get(task, "data_model", "`task`")?.map(|d| self.pos(d)).unwrap_or(self.pos(t));
                self.warn("Y6", format!("{pos}: unknown data_model `{arch}` (expected ILP32 or LP64)"));
            }
        }
        if let Some(l) = self.get(task, "language", "`task`")? {
            let lang = self.text(l, "`language`")?;
            if !lang.trim().eq_ignore_ascii_case("C") {
                let pos = self.pos(l);
                self.warn("Y6", format!("{pos}: language `{lang}` is not C"));
            }
            out.source_code_lang = Some(lang);
        }
        Ok(input_files)
    }

    /// Reads `content` into a list of segments (each a list of waypoints). Checks shapes and
    /// each waypoint on its own; the order rules are checked by [`Self::check_structure`].
    fn read_content(&mut self, content: NodeId, input_files: &[String]) -> Result<Vec<Vec<Waypoint>>, InputError> {
        let items = self.seq(content, "`content`: the list of segments (`- segment: …`)")?;
        if items.is_empty() {
            return Err(self.err(self.pos(content), "empty `content`: a violation witness needs at least one segment"));
        }
        let mut segments = Vec::with_capacity(items.len());
        let mut total = 0usize;
        for (si, &item) in items.iter().enumerate() {
            let what = format!("segment {} (`- segment: [waypoints]`)", si + 1);
            let map = self.map(item, &what)?;
            self.check_keys("Y1", map, &["segment"], "a content item");
            let Some(seg) = self.get(map, "segment", "a content item")? else {
                return Err(self.err(self.pos(item), format!("content item {} without `segment`", si + 1)));
            };
            let wps = self.seq(seg, &format!("the waypoints of segment {}", si + 1))?;
            if wps.is_empty() {
                return Err(self.err(self.pos(seg), format!("segment {} is empty: it needs a follow waypoint", si + 1)));
            }
            total = total.saturating_add(wps.len());
            if total > MAX_WAYPOINTS {
                return Err(self.err(self.pos(seg), format!("more than {MAX_WAYPOINTS} waypoints")));
            }
            let mut out = Vec::with_capacity(wps.len());
            for (wi, &w) in wps.iter().enumerate() {
                out.push(self.read_waypoint(w, si, wi, input_files)?);
            }
            segments.push(out);
        }
        Ok(segments)
    }

    fn read_waypoint(
        &mut self,
        item: NodeId,
        si: usize,
        wi: usize,
        input_files: &[String],
    ) -> Result<Waypoint, InputError> {
        let ctx = format!("waypoint {} of segment {}", wi + 1, si + 1);
        let map = self.map(item, &format!("{ctx} (`- waypoint: {{…}}`)"))?;
        self.check_keys("Y1", map, &["waypoint"], "a segment item");
        let Some(&(key, _)) = map.iter().find(|&&(k, _)| self.key_text(k) == Some("waypoint")) else {
            return Err(self.err(self.pos(item), format!("{ctx}: expected an item `waypoint:`")));
        };
        let pos = self.pos(key);
        let Some(w) = self.get(map, "waypoint", "a segment item")? else {
            return Err(self.err(pos, format!("{ctx} is empty")));
        };
        let wm = self.map(w, &ctx)?;
        self.check_keys("Y11", wm, &["type", "action", "location", "constraint", "thread_id"], "a waypoint");
        // Issue 22: the format 2.2 draft names the thread of each waypoint of a concurrent witness.
        let thread = match self.get(wm, "thread_id", "a waypoint")? {
            None => None,
            Some(t) => Some(self.uint(t, "`thread_id` (a thread number: 0 is main)")?),
        };

        let Some(t) = self.get(wm, "type", "a waypoint")? else {
            return Err(self.err(pos, format!("{ctx} without `type` (one of {WAYPOINT_TYPES})")));
        };
        let tname = self.scalar(t, "the waypoint `type`")?;
        let Some(wtype) = WaypointType::parse(tname) else {
            return Err(
                self.err(self.pos(t), format!("unknown waypoint type `{tname}`, expected one of {WAYPOINT_TYPES}"))
            );
        };
        let Some(a) = self.get(wm, "action", "a waypoint")? else {
            return Err(self.err(pos, format!("{ctx} without `action` (one of {WAYPOINT_ACTIONS})")));
        };
        let aname = self.scalar(a, "the waypoint `action`")?;
        let action = match aname {
            "follow" => Action::Follow,
            "avoid" => Action::Avoid,
            "cycle" => Action::Cycle,
            _ => {
                return Err(self.err(
                    self.pos(a),
                    format!("unknown waypoint action `{aname}`, expected one of {WAYPOINT_ACTIONS}"),
                ))
            }
        };

        // Location.
        let Some(l) = self.get(wm, "location", "a waypoint")? else {
            return Err(self.err(pos, format!("{ctx} without `location`")));
        };
        let Location { line, column, file_name, function } = self.read_location(l, &ctx, input_files)?;

        // Constraint.
        let constraint = self.get(wm, "constraint", "a waypoint")?;
        let requirement = match (constraint, wtype.needs_constraint()) {
            (None, false) => Requirement::None,
            (Some(c), false) => {
                let cpos = self.pos(c);
                self.warn(
                    "Y11",
                    format!("{cpos}: a `{}` waypoint must not have a `constraint`; ignored", wtype.name()),
                );
                Requirement::None
            }
            (None, true) => {
                return Err(self.err(pos, format!("{ctx}: a `{}` waypoint needs a `constraint`", wtype.name())))
            }
            (Some(c), true) => self.read_constraint(c, wtype, &ctx)?,
        };
        Ok(Waypoint { pos, wtype, action, line, column, file_name, function, requirement, thread })
    }

    /// A `location` mapping (of a waypoint or an invariant; `ctx` names it for messages):
    /// a 1-based line, an optional 1-based column (`0`, the legacy 0-based start, reads as
    /// absent), the file (warned about when it is not among the task's files) and the function.
    fn read_location(&mut self, l: NodeId, ctx: &str, input_files: &[String]) -> Result<Location, InputError> {
        let lm = self.map(l, &format!("the `location` of {ctx}"))?;
        self.check_keys("Y1", lm, &["file_name", "line", "column", "function", "file_hash"], "a location");
        let Some(line_node) = self.get(lm, "line", "a location")? else {
            return Err(self.err(self.pos(l), format!("the location of {ctx} has no `line`")));
        };
        let line = self.uint(line_node, "`location.line`")?;
        if line == 0 {
            return Err(self.err(self.pos(line_node), "`location.line` must be at least 1 (lines are 1-based)"));
        }
        let column = match self.get(lm, "column", "a location")? {
            None => None,
            Some(c) => match self.uint(c, "`location.column`")? {
                0 => {
                    let cpos = self.pos(c);
                    self.warn(
                        "Y13",
                        format!(
                            "{cpos}: `column: 0` (0-based legacy column); columns are 1-based, treating it as absent"
                        ),
                    );
                    None
                }
                n => Some(n),
            },
        };
        let file_name = self.optional_text(lm, "file_name", "a location")?;
        match &file_name {
            Some(f) => {
                if !input_files.is_empty() && !input_files.iter().any(|i| base_name(i) == base_name(f)) {
                    let fpos = self.pos(l);
                    self.warn("Y13", format!("{fpos}: location file `{f}` is not among the task's input_files"));
                }
            }
            None => self.warn("Y13", format!("{}: location without `file_name`", self.pos(l))),
        }
        let function = self.optional_text(lm, "function", "a location")?;
        Ok(Location { line, column, file_name, function })
    }

    fn read_constraint(&mut self, c: NodeId, wtype: WaypointType, ctx: &str) -> Result<Requirement, InputError> {
        let cm = self.map(c, "the waypoint `constraint` (`value`, `format`)")?;
        self.check_keys("Y1", cm, &["value", "format"], "a constraint");
        if let Some(f) = self.get(cm, "format", "a constraint")? {
            let format = self.scalar(f, "the constraint `format`")?;
            if !CONSTRAINT_FORMATS.contains(&format) {
                return Err(self.err(
                    self.pos(f),
                    format!(
                        "unknown constraint format `{format}` in {ctx}, expected one of {}",
                        CONSTRAINT_FORMATS.join(", ")
                    ),
                ));
            }
        }
        let Some(v) = self.get(cm, "value", "a constraint")? else {
            return Err(self.err(self.pos(c), format!("the constraint of {ctx} has no `value`")));
        };
        let text = self.scalar(v, "the constraint `value`")?.trim();
        if wtype == WaypointType::Branching {
            return match parse_decision(text) {
                Some(d) => Ok(Requirement::Decision(d)),
                None => Err(self.err(
                    self.pos(v),
                    format!(
                        "branching constraint value `{text}`: expected true, false, an integer (switch case) or default"
                    ),
                )),
            };
        }
        if text.is_empty() {
            return Err(self.err(self.pos(v), format!("the constraint of {ctx} has an empty `value`")));
        }
        let mut expr = text.to_string();
        if wtype == WaypointType::FunctionReturn && expr.contains("\\return") {
            expr = expr.replace("\\return", "\\result");
            let vpos = self.pos(v);
            self.warn("Y12", format!("{vpos}: `\\return` in a function_return constraint read as `\\result`"));
        }
        Ok(Requirement::Expression(expr))
    }

    /// The order rules of segments (digest §2; 2.1 cycle rules §6.1).
    fn check_structure(
        &self,
        content: NodeId,
        segments: &[Vec<Waypoint>],
        termination: bool,
    ) -> Result<(), InputError> {
        let n = segments.len();
        let mut cycle_seen = false;
        let mut target_seen = false;
        for (si, seg) in segments.iter().enumerate() {
            let last = seg.len() - 1;
            for (wi, w) in seg.iter().enumerate() {
                let here = format!("waypoint {} of segment {}", wi + 1, si + 1);
                if wi + 1 == last && si + 1 == n && is_race_pair(seg) {
                    // Issue 22: the 2.2 draft's data race, two targets of different threads.
                    continue;
                }
                if wi < last && w.action != Action::Avoid {
                    return Err(self.err(
                        w.pos,
                        format!(
                            "{here} has action `{}` but is not the last waypoint of its segment: a segment is zero or \
                             more `avoid` waypoints followed by exactly one `follow` waypoint",
                            action_name(w.action)
                        ),
                    ));
                }
                if wi == last && w.action == Action::Avoid {
                    return Err(self.err(
                        w.pos,
                        format!(
                            "segment {} ends with an `avoid` waypoint: every segment ends with one `follow` waypoint",
                            si + 1
                        ),
                    ));
                }
                if w.wtype == WaypointType::Target {
                    if w.action != Action::Follow {
                        return Err(self.err(
                            w.pos,
                            format!(
                                "{here}: a `target` waypoint must have action `follow`, not `{}`",
                                action_name(w.action)
                            ),
                        ));
                    }
                    if termination {
                        return Err(self.err(
                            w.pos,
                            format!(
                                "{here}: a `target` waypoint in a non-termination witness (with `cycle` waypoints)"
                            ),
                        ));
                    }
                    if si + 1 != n {
                        return Err(self.err(
                            w.pos,
                            format!(
                                "{here}: `target` in segment {} of {n}; the target must be the follow waypoint of the \
                                 last segment",
                                si + 1
                            ),
                        ));
                    }
                    target_seen = true;
                }
                if w.action == Action::Cycle {
                    cycle_seen = true;
                } else if w.action == Action::Follow && cycle_seen {
                    return Err(self.err(
                        w.pos,
                        format!("{here}: a `follow` waypoint after a `cycle` waypoint (only avoid/cycle may follow)"),
                    ));
                }
            }
        }
        if !termination && !target_seen {
            let pos = segments.last().and_then(|s| s.last()).map(|w| w.pos).unwrap_or(self.pos(content));
            return Err(
                self.err(pos, "no `target` waypoint: the follow waypoint of the last segment must have type `target`")
            );
        }
        Ok(())
    }
}

fn action_name(a: Action) -> &'static str {
    match a {
        Action::Follow => "follow",
        Action::Avoid => "avoid",
        Action::Cycle => "cycle",
    }
}

/// The transition of one waypoint (its constraint as an assumption, or its branch decision).
fn waypoint_transition(w: &Waypoint) -> WitnessTransition {
    let origin = w.pos.to_string();
    let anchor = SourceAnchor {
        kind: w.wtype.anchor_kind(),
        line: w.line,
        column: w.column,
        file_name: w.file_name.clone(),
        origin: origin.clone(),
    };
    let (assumption, decision) = match &w.requirement {
        Requirement::None => (None, None),
        Requirement::Expression(e) => {
            (Some(Assumption { expressions: vec![e.clone()], scope: w.function.clone(), result_function: None }), None)
        }
        Requirement::Decision(d) => (None, Some(d.clone())),
    };
    WitnessTransition {
        guard: LocationGuard { anchor: Some(anchor), thread_id: w.thread.map(|t| t.to_string()), ..Default::default() },
        assumption,
        origin,
        avoid: w.action == Action::Avoid,
        decision,
    }
}

/// Decision 93: a non-termination witness as a lasso. The stem's segments form a chain
/// `S0 … Sc` as in a violation witness; passing the first cycle segment's waypoint (the
/// recurrence condition, at the loop head) enters the cycle head `H`, which carries the
/// waypoint's constraint as its invariant (the recurrent set, checked by the product at every
/// visit, not an assumption that would end a run). The other cycle segments lead from `H`
/// through `P…` back to `Sc`, so that each pass ends by passing the recurrence waypoint again;
/// with no other cycle segment, `H` has that waypoint as a loop of its own.
fn build_lasso(segments: &[Vec<Waypoint>], c: usize) -> DiGraph<WitnessState, WitnessTransition> {
    let n = segments.len();
    let mut graph = DiGraph::with_capacity(n + 3, segments.iter().map(Vec::len).sum::<usize>() * 2);
    let stem: Vec<NodeIndex> = (0..=c)
        .map(|i| graph.add_node(WitnessState { id: format!("S{i}"), entry: i == 0, ..Default::default() }))
        .collect();
    let recurrence = segments[c].iter().find(|w| w.action != Action::Avoid);
    let invariant = match recurrence.map(|w| &w.requirement) {
        Some(Requirement::Expression(e)) => Some(e.clone()),
        _ => None,
    };
    let head = graph.add_node(WitnessState {
        id: "H".into(),
        cycle_head: true,
        invariant: invariant.clone(),
        ..Default::default()
    });
    let avoided = graph.add_node(WitnessState { id: "avoided".into(), sink: true, ..Default::default() });
    // X_j for j in c+1..n: the state from which segment j's waypoints leave.
    let mut from: Vec<NodeIndex> = Vec::new();
    for j in c + 1..n {
        from.push(if j == c + 1 {
            head
        } else {
            graph.add_node(WitnessState { id: format!("P{j}"), ..Default::default() })
        });
    }
    let add = |graph: &mut DiGraph<WitnessState, WitnessTransition>, src: NodeIndex, to: NodeIndex, w: &Waypoint| {
        let mut t = waypoint_transition(w);
        let to = if w.action == Action::Avoid { avoided } else { to };
        // The recurrence waypoint's constraint is the head's invariant, not an assumption.
        if invariant.is_some() && std::ptr::eq(w, recurrence.unwrap_or(w)) && w.action != Action::Avoid {
            t.assumption = None;
        }
        graph.add_edge(src, to, t);
    };
    for (i, seg) in segments.iter().enumerate().take(c) {
        for w in seg {
            add(&mut graph, stem[i], stem[i + 1], w);
        }
    }
    for w in &segments[c] {
        add(&mut graph, stem[c], head, w);
        if c + 1 == n {
            add(&mut graph, head, head, w);
        }
    }
    for j in c + 1..n {
        let to = if j + 1 < n { from[j + 1 - (c + 1)] } else { stem[c] };
        for w in &segments[j] {
            add(&mut graph, from[j - (c + 1)], to, w);
        }
    }
    graph
}

/// Builds the chain `S0 … S(n-1)`, `V`, `avoided` (see the module documentation); a witness
/// with a `cycle` segment is a lasso instead ([`build_lasso`]).
/// The 2.2 draft's data race (issue 22): a segment ending in two `follow` `target` waypoints of
/// different threads, the racing accesses.
fn is_race_pair(seg: &[Waypoint]) -> bool {
    let [.., a, b] = seg else { return false };
    [a, b].iter().all(|w| w.wtype == WaypointType::Target && w.action == Action::Follow && w.thread.is_some())
        && a.thread != b.thread
}

fn build_chain(segments: &[Vec<Waypoint>]) -> DiGraph<WitnessState, WitnessTransition> {
    if let Some(c) = segments.iter().position(|s| s.iter().any(|w| w.action == Action::Cycle)) {
        return build_lasso(segments, c);
    }
    let n = segments.len();
    let mut graph = DiGraph::with_capacity(n + 2, segments.iter().map(Vec::len).sum());
    let states: Vec<NodeIndex> = (0..n)
        .map(|i| graph.add_node(WitnessState { id: format!("S{i}"), entry: i == 0, ..Default::default() }))
        .collect();
    let violation = graph.add_node(WitnessState { id: "V".into(), violation: true, ..Default::default() });
    let avoided = graph.add_node(WitnessState { id: "avoided".into(), sink: true, ..Default::default() });
    for (si, seg) in segments.iter().enumerate() {
        if si + 1 == n && is_race_pair(seg) {
            // The race: the first access's transition, then the second's into the violation
            // node (the product reads the pair together, as two accesses both about to happen).
            let mid = graph.add_node(WitnessState { id: "R".into(), ..Default::default() });
            let [rest @ .., a, b] = &seg[..] else { continue };
            for w in rest {
                graph.add_edge(states[si], avoided, waypoint_transition(w));
            }
            graph.add_edge(states[si], mid, waypoint_transition(a));
            graph.add_edge(mid, violation, waypoint_transition(b));
            continue;
        }
        for w in seg {
            let to = if w.action == Action::Avoid {
                avoided
            } else if si + 1 < n {
                states[si + 1]
            } else {
                violation
            };
            graph.add_edge(states[si], to, waypoint_transition(w));
        }
    }
    graph
}

/// YAML core-schema null (plain scalars only).
fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

fn base_name(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

/// An integer: optional sign, decimal / `0x` hex / `0o` octal / `0b` binary digits, optional
/// C suffix (`u`, `l`, `ll` in any case and order).
fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim();
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let body = body.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (2, d)
    } else {
        (10, body)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = i128::from_str_radix(digits, radix).ok()?;
    Some(if neg { -v } else { v })
}

/// A C character constant such as `'a'`, `'\n'`, `'\x41'`, `'\0'`, as its code.
fn parse_char_literal(s: &str) -> Option<i128> {
    let inner = s.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let first = chars.next()?;
    if first != '\\' {
        return if chars.next().is_none() { Some(i128::from(u32::from(first))) } else { None };
    }
    let rest: String = chars.collect();
    let simple = match rest.as_str() {
        "n" => Some(10),
        "t" => Some(9),
        "r" => Some(13),
        "a" => Some(7),
        "b" => Some(8),
        "f" => Some(12),
        "v" => Some(11),
        "\\" => Some(92),
        "'" => Some(39),
        "\"" => Some(34),
        "?" => Some(63),
        _ => None,
    };
    if simple.is_some() {
        return simple;
    }
    if let Some(hex) = rest.strip_prefix('x') {
        return if !hex.is_empty() && hex.len() <= 8 { i128::from_str_radix(hex, 16).ok() } else { None };
    }
    if !rest.is_empty() && rest.len() <= 3 && rest.chars().all(|c| c.is_digit(8)) {
        return i128::from_str_radix(&rest, 8).ok();
    }
    None
}

/// The decision of a branching waypoint: `true`/`false` (any case), `default`, an integer or a
/// C character constant.
fn parse_decision(text: &str) -> Option<DecisionValue> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "true" => return Some(DecisionValue::Bool(true)),
        "false" => return Some(DecisionValue::Bool(false)),
        "default" => return Some(DecisionValue::Default),
        _ => {}
    }
    parse_int(text).or_else(|| parse_char_literal(text)).map(DecisionValue::Case)
}

#[cfg(test)]
mod tests;
