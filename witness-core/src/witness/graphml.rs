//! Reader for GraphML 1.0 witnesses (SV-COMP "witness format 1.0").
//!
//! [`read_graphml`] turns the bytes of a (possibly gzip-compressed) GraphML witness into a
//! format-neutral [`WitnessAutomaton`]; [`looks_like_graphml`] is a cheap format sniffer.
//! The rules followed (key resolution by id, then by `attr.name`, with aliases; `<default>`
//! values; multiplicity of keys; normalisation of line/offset ranges) are those of the
//! format digest `shared/spec/witness-format-1.0.md`, sections 1–4.
//!
//! This module must not do file IO (the caller passes the bytes; the path is only used in
//! messages), must not print, and must not panic on any input. Parsing is streaming and
//! iterative (an explicit element stack), so deeply nested input cannot overflow the stack.
//! Problems that make the witness unusable are [`InputError`]s with a `line:col` position;
//! accepted oddities become strings in [`WitnessAutomaton::warnings`].

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

use petgraph::graph::{DiGraph, NodeIndex};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use quick_xml::XmlVersion;

use super::{
    Assumption, Control, LocationGuard, Range, WitnessAutomaton, WitnessMetadata, WitnessState, WitnessTransition,
    WitnessType,
};
use crate::error::InputError;
use crate::lines::LineStarts;

/// Name of the format, as stored in [`WitnessAutomaton::format`].
pub const FORMAT_NAME: &str = "GraphML 1.0";

/// Upper bound on the size of a decompressed gzip witness.
pub const MAX_DECOMPRESSED_SIZE: u64 = 512 << 20;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const UTF8_BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// Cheap check whether `bytes` look like a GraphML document (optionally gzip-compressed,
/// optionally with a UTF-8 BOM): the first element of the document is a `graphml`
/// element (with or without a namespace prefix) — looked for in the first 64 KiB.
pub fn looks_like_graphml(bytes: &[u8]) -> bool {
    const WINDOW: usize = 64 * 1024;
    let head: Cow<'_, [u8]> = if bytes.starts_with(&GZIP_MAGIC) {
        let mut out = Vec::new();
        let mut dec = flate2::read::MultiGzDecoder::new(bytes).take(WINDOW as u64);
        // A truncated or corrupt stream still leaves what was decoded in `out`.
        let _ = dec.read_to_end(&mut out);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(&bytes[..bytes.len().min(WINDOW)])
    };
    let mut head: &[u8] = &head;
    if head.starts_with(&UTF8_BOM) {
        head = &head[UTF8_BOM.len()..];
    }
    let text = String::from_utf8_lossy(head);
    let mut rest = text.trim_start();
    // Skip the XML declaration, processing instructions, comments and a DOCTYPE.
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            match r.find("?>") {
                Some(i) => rest = r[i + 2..].trim_start(),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix("<!--") {
            match r.find("-->") {
                Some(i) => rest = r[i + 3..].trim_start(),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix("<!") {
            match r.find('>') {
                Some(i) => rest = r[i + 1..].trim_start(),
                None => return false,
            }
        } else {
            break;
        }
    }
    let Some(r) = rest.strip_prefix('<') else {
        return false;
    };
    let name_end = r.find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(r.len());
    let name = &r[..name_end];
    let local = name.rsplit(':').next().unwrap_or(name);
    local == "graphml"
}

/// Reads a GraphML 1.0 witness.
///
/// `bytes` is the file content (plain or gzip-compressed); `path` is used in messages only.
/// Errors: [`InputError::Malformed`] (with line and column) for input that is not well-formed
/// XML or breaks the structure of a GraphML witness (duplicate single-valued keys, bad
/// integers, …); [`InputError::Invalid`] for a well-formed witness without an entry node.
pub fn read_graphml(path: &Path, bytes: &[u8]) -> Result<WitnessAutomaton, InputError> {
    let err_at = |pos: (u32, u32), msg: String| InputError::malformed(path, pos.0, pos.1, msg);
    if bytes.is_empty() {
        return Err(err_at((1, 1), "empty file: expected a GraphML document".into()));
    }
    let data: Cow<'_, [u8]> =
        if bytes.starts_with(&GZIP_MAGIC) { Cow::Owned(gunzip(path, bytes)?) } else { Cow::Borrowed(bytes) };
    if data.is_empty() {
        return Err(err_at((1, 1), "empty file after gzip decompression: expected a GraphML document".into()));
    }
    let base = if data.starts_with(&UTF8_BOM) { UTF8_BOM.len() } else { 0 };
    // Positions in the witness: lines and columns in characters (issue 33).
    let index = LineStarts::of_bytes(&data);
    let text = match std::str::from_utf8(&data[base..]) {
        Ok(t) => t,
        Err(e) => {
            return Err(err_at(
                index.position(base + e.valid_up_to()),
                "invalid UTF-8 byte sequence (the witness must be UTF-8 encoded XML)".into(),
            ))
        }
    };
    let mut parser = Parser {
        ctx: Ctx { path, text, base, index: &index },
        keys: Vec::new(),
        graph_data: Vec::new(),
        nodes: Vec::new(),
        edges: Vec::new(),
        graph_count: 0,
        warnings: Warnings::default(),
    };
    parser.parse_xml()?;
    build(parser)
}

/// Decompresses a gzip-compressed witness (at most [`MAX_DECOMPRESSED_SIZE`] bytes).
pub(crate) fn gunzip(path: &Path, bytes: &[u8]) -> Result<Vec<u8>, InputError> {
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(bytes).take(MAX_DECOMPRESSED_SIZE + 1);
    if let Err(e) = dec.read_to_end(&mut out) {
        return Err(InputError::malformed(path, 1, 1, format!("corrupt gzip data: {e}")));
    }
    if out.len() as u64 > MAX_DECOMPRESSED_SIZE {
        return Err(InputError::invalid(
            path,
            format!(
                "gzip-compressed witness expands to more than {} MiB; refusing to read it",
                MAX_DECOMPRESSED_SIZE >> 20
            ),
        ));
    }
    Ok(out)
}

/// Warnings, each text at most once.
#[derive(Default)]
struct Warnings {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl Warnings {
    fn push(&mut self, msg: String) {
        if self.seen.insert(msg.clone()) {
            self.list.push(msg);
        }
    }
}

/// Which kind of element a key applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Domain {
    Graph,
    Node,
    Edge,
}

impl Domain {
    fn name(self) -> &'static str {
        match self {
            Domain::Graph => "graph",
            Domain::Node => "node",
            Domain::Edge => "edge",
        }
    }
}

/// Canonical keys understood by the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    // graph
    WitnessType,
    LegacyType,
    FormatVersion,
    Producer,
    Specification,
    ProgramFile,
    ProgramHash,
    Architecture,
    SourceCodeLang,
    CreationTime,
    InputWitnessHash,
    MemoryModel,
    // node
    Entry,
    Sink,
    Violation,
    CycleHead,
    Invariant,
    InvariantScope,
    IgnoredNode,
    // edge
    StartLine,
    LegacyStartLine,
    EndLine,
    StartOffset,
    LegacyOffset,
    EndOffset,
    OriginFile,
    Control,
    EnterLoopHead,
    EnterFunction,
    ReturnFromFunction,
    Assumption,
    AssumptionScope,
    AssumptionResultFunction,
    ThreadId,
    CreateThread,
    SourceCode,
    Negated,
    IgnoredEdge,
}

impl Key {
    /// The canonical key for a key id or `attr.name`, including aliases.
    fn from_name(name: &str) -> Option<Key> {
        Some(match name {
            "witness-type" => Key::WitnessType,
            "type" => Key::LegacyType,
            "witness-format-version" => Key::FormatVersion,
            "producer" => Key::Producer,
            "specification" => Key::Specification,
            "programfile" | "programFile" => Key::ProgramFile,
            "programhash" | "programHash" => Key::ProgramHash,
            "architecture" => Key::Architecture,
            "sourcecodelang" | "sourcecodeLanguage" => Key::SourceCodeLang,
            "creationtime" | "creationTime" => Key::CreationTime,
            "inputwitnesshash" | "inputWitnessHash" => Key::InputWitnessHash,
            "memorymodel" | "memoryModel" => Key::MemoryModel,
            "entry" | "isEntryNode" => Key::Entry,
            "sink" | "isSinkNode" => Key::Sink,
            "violation" | "isViolationNode" => Key::Violation,
            "cyclehead" | "isCycleHead" => Key::CycleHead,
            "invariant" => Key::Invariant,
            "invariant.scope" => Key::InvariantScope,
            "violatedProperty" | "nodetype" | "nodeType" | "frontier" | "isFrontierNode" | "named" | "namedValue"
            | "label" | "thread" => Key::IgnoredNode,
            "startline" => Key::StartLine,
            "originline" | "lineNumberInOrigin" => Key::LegacyStartLine,
            "endline" => Key::EndLine,
            "startoffset" => Key::StartOffset,
            "offset" => Key::LegacyOffset,
            "endoffset" => Key::EndOffset,
            "originfile" | "originFileName" => Key::OriginFile,
            "control" => Key::Control,
            "enterLoopHead" => Key::EnterLoopHead,
            "enterFunction" => Key::EnterFunction,
            "returnFromFunction" | "returnFrom" => Key::ReturnFromFunction,
            "assumption" => Key::Assumption,
            "assumption.scope" => Key::AssumptionScope,
            "assumption.resultfunction" => Key::AssumptionResultFunction,
            "threadId" => Key::ThreadId,
            "createThread" => Key::CreateThread,
            "sourcecode" => Key::SourceCode,
            "negated" | "negativeCase" => Key::Negated,
            "tokens" | "tokenSet" | "lineCols" | "lineColSet" | "predecessor" | "successor" | "threadName" | "note"
            | "warning" | "declaration" => Key::IgnoredEdge,
            _ => return None,
        })
    }

    fn domain(self) -> Domain {
        use Key::*;
        match self {
            WitnessType | LegacyType | FormatVersion | Producer | Specification | ProgramFile | ProgramHash
            | Architecture | SourceCodeLang | CreationTime | InputWitnessHash | MemoryModel => Domain::Graph,
            Entry | Sink | Violation | CycleHead | Invariant | InvariantScope | IgnoredNode => Domain::Node,
            _ => Domain::Edge,
        }
    }

    /// Keys that may appear at most once per edge (a duplicate is an error).
    fn single_valued_on_edge(self) -> bool {
        use Key::*;
        matches!(
            self,
            StartLine
                | LegacyStartLine
                | EndLine
                | StartOffset
                | LegacyOffset
                | EndOffset
                | OriginFile
                | Control
                | EnterLoopHead
                | EnterFunction
                | ReturnFromFunction
                | AssumptionScope
                | AssumptionResultFunction
                | ThreadId
                | CreateThread
        )
    }
}

/// `for` attribute of a `<key>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyFor {
    Graph,
    Node,
    Edge,
    All,
    Other,
}

struct KeyDecl {
    id: String,
    for_: KeyFor,
    attr_name: Option<String>,
    default: Option<String>,
    /// Offset of the `<default>` element (or of the `<key>` if there is none).
    default_pos: usize,
}

/// A `<data>` element as read.
struct RawData {
    key: String,
    value: String,
    pos: usize,
}

struct RawNode {
    /// `None`: a `<node>` without `id` (linter E1), which no edge can name.
    id: Option<String>,
    data: Vec<RawData>,
    pos: usize,
}

struct RawEdge {
    /// `None`: an `<edge>` without `source` or `target` (linter E3).
    source: Option<String>,
    target: Option<String>,
    data: Vec<RawData>,
    pos: usize,
}

#[derive(Debug, Clone, Copy)]
enum Owner {
    Graph,
    Node(usize),
    Edge(usize),
    Nothing,
}

/// An open element.
enum Frame {
    Root,
    Key(usize),
    Default { key: usize, text: String },
    Graph,
    Node(usize),
    Edge(usize),
    Data { owner: Owner, key: String, text: String },
    Other,
}

/// A resolved data item of one element.
struct Item<'a> {
    key: Key,
    value: &'a str,
    pos: usize,
    /// Came from a `<default>`, not from a `<data>` element.
    default: bool,
}

/// Positions and messages: everything a pass needs to report an error.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    path: &'a Path,
    text: &'a str,
    /// Offset of `text` in the decompressed input (length of a skipped BOM).
    base: usize,
    index: &'a LineStarts,
}

impl<'a> Ctx<'a> {
    /// Position of an offset into `text`.
    fn pos(&self, offset: usize) -> (u32, u32) {
        self.index.position(self.base.saturating_add(offset))
    }

    fn pos_str(&self, offset: usize) -> String {
        let (l, c) = self.pos(offset);
        format!("{l}:{c}")
    }

    fn malformed(&self, offset: usize, msg: impl Into<String>) -> InputError {
        let (l, c) = self.pos(offset);
        InputError::malformed(self.path, l, c, msg)
    }

    /// Element name at an offset pointing at `<`, for messages.
    fn name_at(&self, offset: usize) -> &'a str {
        let rest = self.text.get(offset.saturating_add(1)..).unwrap_or("");
        let end = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(rest.len());
        &rest[..end]
    }
}

struct Parser<'a> {
    ctx: Ctx<'a>,
    keys: Vec<KeyDecl>,
    graph_data: Vec<RawData>,
    nodes: Vec<RawNode>,
    edges: Vec<RawEdge>,
    graph_count: usize,
    warnings: Warnings,
}

impl<'a> Parser<'a> {
    fn malformed(&self, offset: usize, msg: impl Into<String>) -> InputError {
        self.ctx.malformed(offset, msg)
    }

    /// First pass: read the XML into raw keys, nodes, edges and graph data.
    fn parse_xml(&mut self) -> Result<(), InputError> {
        let mut reader = Reader::from_str(self.ctx.text);
        reader.config_mut().trim_text(false);
        reader.config_mut().check_end_names = true;
        // (frame, offset of its start tag)
        let mut stack: Vec<(Frame, usize)> = Vec::new();
        let mut root_seen = false;
        loop {
            let start = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let event = match reader.read_event() {
                Ok(ev) => ev,
                Err(e) => {
                    let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                    return Err(self.malformed(at, format!("malformed XML: {e}")));
                }
            };
            match event {
                Event::Start(e) => {
                    let frame = self.open(&e, start, &stack, &mut root_seen)?;
                    stack.push((frame, start));
                }
                Event::Empty(e) => {
                    let frame = self.open(&e, start, &stack, &mut root_seen)?;
                    self.close(frame, start);
                }
                Event::End(_) => {
                    if let Some((frame, at)) = stack.pop() {
                        self.close(frame, at);
                    }
                }
                Event::Text(t) => {
                    let content = t.xml10_content();
                    match stack.last_mut() {
                        Some((Frame::Data { text, .. }, _)) | Some((Frame::Default { text, .. }, _)) => {
                            text.push_str(&content)
                        }
                        Some(_) => {}
                        None => {
                            if let Some(i) = content.find(|c: char| !c.is_whitespace()) {
                                let what = if root_seen { "after" } else { "before" };
                                return Err(self.malformed(
                                    start + i,
                                    format!("unexpected text {what} the root element; expected markup"),
                                ));
                            }
                        }
                    }
                }
                Event::CData(t) => match stack.last_mut() {
                    Some((Frame::Data { text, .. }, _)) | Some((Frame::Default { text, .. }, _)) => {
                        text.push_str(&t.xml10_content())
                    }
                    Some(_) => {}
                    None => return Err(self.malformed(start, "unexpected CDATA section outside the root element")),
                },
                Event::GeneralRef(r) => {
                    let ch = match r.resolve_char_ref() {
                        Ok(Some(c)) => Some(c),
                        Ok(None) => match &*r {
                            "lt" => Some('<'),
                            "gt" => Some('>'),
                            "amp" => Some('&'),
                            "quot" => Some('"'),
                            "apos" => Some('\''),
                            _ => None,
                        },
                        Err(e) => {
                            return Err(self.malformed(start, format!("invalid character reference '&{};': {e}", &*r)))
                        }
                    };
                    let Some(ch) = ch else {
                        return Err(self.malformed(
                            start,
                            format!(
                                "undefined entity '&{};' (only &lt; &gt; &amp; &quot; &apos; and character references are allowed)",
                                &*r
                            ),
                        ));
                    };
                    match stack.last_mut() {
                        Some((Frame::Data { text, .. }, _)) | Some((Frame::Default { text, .. }, _)) => text.push(ch),
                        Some(_) => {}
                        None => {
                            return Err(self.malformed(start, "unexpected entity reference outside the root element"))
                        }
                    }
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
                Event::Eof => {
                    if let Some((_, at)) = stack.last() {
                        let name = self.ctx.name_at(*at);
                        let msg = format!(
                            "unexpected end of file: expected </{name}> closing the element opened at {}",
                            self.ctx.pos_str(*at)
                        );
                        return Err(self.malformed(self.ctx.text.len(), msg));
                    }
                    if !root_seen {
                        return Err(self.malformed(
                            self.ctx.text.len(),
                            "unexpected end of file: expected a <graphml> root element",
                        ));
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Reads the attributes of an element: `(local name, value)` pairs.
    fn attributes(&self, e: &BytesStart<'_>, at: usize) -> Result<Vec<(String, String)>, InputError> {
        let mut out = Vec::new();
        for a in e.attributes() {
            let a = a.map_err(|err| self.malformed(at, format!("malformed attribute: {err}")))?;
            let value = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|err| self.malformed(at, format!("malformed attribute value: {err}")))?;
            out.push((a.key.local_name().as_ref().to_string(), value.into_owned()));
        }
        Ok(out)
    }

    /// Handles a start tag; returns the frame to push.
    fn open(
        &mut self,
        e: &BytesStart<'_>,
        at: usize,
        stack: &[(Frame, usize)],
        root_seen: &mut bool,
    ) -> Result<Frame, InputError> {
        let qname = e.name();
        let local = qname.local_name();
        let local: &str = local.as_ref();
        let Some((parent, _)) = stack.last() else {
            if *root_seen {
                return Err(
                    self.malformed(at, format!("unexpected element <{}> after the root element", qname.as_ref()))
                );
            }
            *root_seen = true;
            if local != "graphml" {
                return Err(
                    self.malformed(at, format!("expected a <graphml> root element, found <{}>", qname.as_ref()))
                );
            }
            return Ok(Frame::Root);
        };
        let get = |attrs: &[(String, String)], name: &str| -> Option<String> {
            attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        };
        Ok(match (parent, local) {
            (Frame::Root | Frame::Graph, "key") => {
                let attrs = self.attributes(e, at)?;
                let Some(id) = get(&attrs, "id") else {
                    return Err(self.malformed(at, "<key> without the required 'id' attribute"));
                };
                let for_ = match get(&attrs, "for").as_deref() {
                    None | Some("all") => KeyFor::All,
                    Some("graph") => KeyFor::Graph,
                    Some("node") => KeyFor::Node,
                    Some("edge") => KeyFor::Edge,
                    Some(other) => {
                        self.warnings.push(format!("key '{id}' declared for unknown element kind '{other}'"));
                        KeyFor::Other
                    }
                };
                self.keys.push(KeyDecl {
                    id,
                    for_,
                    attr_name: get(&attrs, "attr.name"),
                    default: None,
                    default_pos: at,
                });
                Frame::Key(self.keys.len() - 1)
            }
            (Frame::Key(k), "default") => Frame::Default { key: *k, text: String::new() },
            (Frame::Root, "graph") => {
                self.graph_count += 1;
                if self.graph_count > 1 {
                    return Err(self.malformed(at, "more than one <graph> element (a witness holds exactly one graph)"));
                }
                let attrs = self.attributes(e, at)?;
                if let Some(d) = get(&attrs, "edgedefault") {
                    if d != "directed" {
                        self.warnings.push(format!("graph has edgedefault=\"{d}\"; witnesses are always directed"));
                    }
                }
                Frame::Graph
            }
            (_, "graph") if !matches!(parent, Frame::Other | Frame::Data { .. } | Frame::Default { .. }) => {
                return Err(self.malformed(at, "nested <graph> element (a witness holds exactly one graph)"));
            }
            (Frame::Graph, "node") => {
                let attrs = self.attributes(e, at)?;
                let id = get(&attrs, "id");
                self.nodes.push(RawNode { id, data: Vec::new(), pos: at });
                Frame::Node(self.nodes.len() - 1)
            }
            (Frame::Graph, "edge") => {
                let attrs = self.attributes(e, at)?;
                let source = get(&attrs, "source");
                let target = get(&attrs, "target");
                self.edges.push(RawEdge { source, target, data: Vec::new(), pos: at });
                Frame::Edge(self.edges.len() - 1)
            }
            (Frame::Graph | Frame::Node(_) | Frame::Edge(_) | Frame::Root, "data") => {
                let attrs = self.attributes(e, at)?;
                let Some(key) = get(&attrs, "key") else {
                    return Err(self.malformed(at, "<data> without the required 'key' attribute"));
                };
                let owner = match parent {
                    Frame::Graph => Owner::Graph,
                    Frame::Node(n) => Owner::Node(*n),
                    Frame::Edge(n) => Owner::Edge(*n),
                    _ => Owner::Nothing,
                };
                Frame::Data { owner, key, text: String::new() }
            }
            _ => Frame::Other,
        })
    }

    /// Handles the end of an element.
    fn close(&mut self, frame: Frame, at: usize) {
        match frame {
            Frame::Default { key, text } => {
                if let Some(k) = self.keys.get_mut(key) {
                    k.default = Some(text.trim().to_string());
                    k.default_pos = at;
                }
            }
            Frame::Data { owner, key, text } => {
                let d = RawData { key, value: text.trim().to_string(), pos: at };
                match owner {
                    Owner::Graph => self.graph_data.push(d),
                    Owner::Node(n) => {
                        if let Some(node) = self.nodes.get_mut(n) {
                            node.data.push(d)
                        }
                    }
                    Owner::Edge(n) => {
                        if let Some(edge) = self.edges.get_mut(n) {
                            edge.data.push(d)
                        }
                    }
                    Owner::Nothing => {
                        self.warnings.push(format!("<data key=\"{}\"> directly under <graphml> ignored", d.key));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Resolves the `<data>` elements of one element to canonical keys and adds the defaults of
/// keys that the element does not give explicitly.
fn resolve_items<'d>(
    data: &'d [RawData],
    domain: Domain,
    resolve: &dyn Fn(&str) -> Option<Key>,
    declared_for: &dyn Fn(&str) -> Option<KeyFor>,
    defaults: &[(Key, &'d str, usize)],
    warnings: &mut Warnings,
) -> Vec<Item<'d>> {
    let mut items: Vec<Item<'d>> = Vec::with_capacity(data.len() + defaults.len());
    for d in data {
        let declared = declared_for(&d.key);
        let mismatch = match declared {
            Some(KeyFor::Graph) => domain != Domain::Graph,
            Some(KeyFor::Node) => domain != Domain::Node,
            Some(KeyFor::Edge) => domain != Domain::Edge,
            Some(KeyFor::All) | Some(KeyFor::Other) | None => false,
        };
        if mismatch {
            warnings.push(format!(
                "key '{}' is declared for another kind of element but used on a {}",
                d.key,
                domain.name()
            ));
        }
        match resolve(&d.key) {
            Some(key) if key.domain() == domain => {
                items.push(Item { key, value: &d.value, pos: d.pos, default: false })
            }
            Some(key) => warnings.push(format!(
                "key '{}' is a {} key but is used on a {}; ignored",
                d.key,
                key.domain().name(),
                domain.name()
            )),
            None => warnings.push(format!("unknown key '{}' ignored", d.key)),
        }
    }
    for &(key, value, pos) in defaults {
        if key.domain() == domain && !items.iter().any(|it| it.key == key && !it.default) {
            items.push(Item { key, value, pos, default: true });
        }
    }
    items
}

/// Second pass: resolve keys, apply defaults and build the automaton.
fn build(parser: Parser<'_>) -> Result<WitnessAutomaton, InputError> {
    let Parser { ctx, keys, graph_data, nodes, edges, graph_count, mut warnings } = parser;
    if graph_count == 0 {
        return Err(ctx.malformed(ctx.text.len(), "no <graph> element in the GraphML document"));
    }
    // Key declarations by id; the first declaration wins.
    let mut decls: HashMap<&str, &KeyDecl> = HashMap::new();
    for k in &keys {
        if decls.contains_key(k.id.as_str()) {
            warnings.push(format!("key '{}' declared more than once; the first declaration is used", k.id));
        } else {
            decls.insert(k.id.as_str(), k);
        }
    }
    let declared_for = |name: &str| decls.get(name).map(|k| k.for_);
    let resolve = |name: &str| -> Option<Key> {
        Key::from_name(name).or_else(|| decls.get(name).and_then(|k| k.attr_name.as_deref()).and_then(Key::from_name))
    };

    // Defaults that apply to elements of their key's domain.
    let mut defaults: Vec<(Key, &str, usize)> = Vec::new();
    for k in decls.values() {
        let (Some(def), Some(key)) = (k.default.as_deref(), resolve(&k.id)) else {
            continue;
        };
        let applies = match k.for_ {
            KeyFor::Graph => key.domain() == Domain::Graph,
            KeyFor::Node => key.domain() == Domain::Node,
            KeyFor::Edge => key.domain() == Domain::Edge,
            KeyFor::All => true,
            KeyFor::Other => false,
        };
        if applies {
            defaults.push((key, def, k.default_pos));
        }
    }
    // Deterministic order (HashMap iteration order is not).
    defaults.sort_by_key(|&(_, _, pos)| pos);

    // ---- graph metadata
    let mut metadata = WitnessMetadata::default();
    let mut legacy_type: Option<&str> = None;
    let mut witness_type_text: Option<&str> = None;
    let mut seen_graph: HashSet<Key> = HashSet::new();
    let graph_items = resolve_items(&graph_data, Domain::Graph, &resolve, &declared_for, &defaults, &mut warnings);
    for it in &graph_items {
        if it.key != Key::Specification && !it.default && !seen_graph.insert(it.key) {
            warnings.push(format!(
                "graph key '{}' given more than once (again at {}); the first value is used",
                key_label(it.key),
                ctx.pos_str(it.pos)
            ));
            continue;
        }
        let v = || Some(it.value.to_string());
        match it.key {
            Key::WitnessType => witness_type_text = Some(it.value),
            Key::LegacyType => legacy_type = Some(it.value),
            Key::FormatVersion => {
                if it.value != "1.0" {
                    warnings
                        .push(format!("witness-format-version '{}' is not 1.0; reading the witness as 1.0", it.value));
                }
                metadata.format_version = v();
            }
            Key::Producer => metadata.producer = v(),
            Key::Specification if !it.value.is_empty() => metadata.specifications.push(it.value.to_string()),
            Key::ProgramFile => metadata.program_file = v(),
            Key::ProgramHash => metadata.program_hash = Some(it.value.to_lowercase()),
            Key::Architecture => metadata.architecture = v(),
            Key::SourceCodeLang => metadata.source_code_lang = v(),
            _ => {}
        }
    }

    // ---- nodes
    let mut graph: DiGraph<WitnessState, WitnessTransition> = DiGraph::new();
    let mut ids: HashMap<&str, (NodeIndex, usize)> = HashMap::new();
    let mut entries: Vec<NodeIndex> = Vec::new();
    let mut any_cycle_head = false;
    // Structural defects (linter E1, E3): a node without id, an edge without an endpoint.
    // They are an input error unless no reading of them can matter (`tolerate_defects`).
    let mut defects: Vec<(usize, &str)> = Vec::new();
    // Whether a node without id is a violation node: an edge without target may enter it.
    let mut idless_violation = false;
    for node in &nodes {
        let Some(node_id) = node.id.as_deref() else {
            defects.push((node.pos, "<node> without the required 'id' attribute"));
            let mut scratch = Warnings::default();
            let items = resolve_items(&node.data, Domain::Node, &resolve, &declared_for, &defaults, &mut scratch);
            idless_violation |= items.iter().any(|it| it.key == Key::Violation && parse_bool(it.value) == Some(true));
            continue;
        };
        if let Some(&(_, first)) = ids.get(node_id) {
            return Err(ctx.malformed(
                node.pos,
                format!("duplicate node id '{node_id}' (first declared at {})", ctx.pos_str(first)),
            ));
        }
        let mut state = WitnessState { id: node_id.to_string(), ..Default::default() };
        let mut invariants: Vec<&str> = Vec::new();
        let items = resolve_items(&node.data, Domain::Node, &resolve, &declared_for, &defaults, &mut warnings);
        let mut seen: HashSet<Key> = HashSet::new();
        for it in &items {
            if !it.default && !matches!(it.key, Key::Invariant | Key::IgnoredNode) && !seen.insert(it.key) {
                warnings.push(format!(
                    "node '{}': key '{}' given more than once (again at {})",
                    node_id,
                    key_label(it.key),
                    ctx.pos_str(it.pos)
                ));
            }
            let flag = |warnings: &mut Warnings| -> bool {
                parse_bool(it.value).unwrap_or_else(|| {
                    warnings.push(format!(
                        "node '{}' at {}: value '{}' of boolean key '{}' is neither true nor false; read as false",
                        node_id,
                        ctx.pos_str(it.pos),
                        it.value,
                        key_label(it.key)
                    ));
                    false
                })
            };
            match it.key {
                Key::Entry => state.entry |= flag(&mut warnings),
                Key::Sink => state.sink |= flag(&mut warnings),
                Key::Violation => state.violation |= flag(&mut warnings),
                Key::CycleHead => state.cycle_head |= flag(&mut warnings),
                Key::Invariant if !it.value.is_empty() => invariants.push(it.value),
                Key::InvariantScope if !it.value.trim().is_empty() => {
                    state.invariant_scope = Some(it.value.trim().to_string())
                }
                _ => {}
            }
        }
        state.invariant = match invariants.as_slice() {
            [] => None,
            [one] => Some(one.to_string()),
            many => Some(many.iter().map(|i| format!("({i})")).collect::<Vec<_>>().join(" && ")),
        };
        any_cycle_head |= state.cycle_head;
        let is_entry = state.entry;
        let ix = graph.add_node(state);
        if is_entry {
            entries.push(ix);
        }
        ids.insert(node_id, (ix, node.pos));
    }

    // ---- edges
    // Edges with a missing endpoint: (source, target), `None` for the missing one.
    let mut dangling: Vec<(Option<NodeIndex>, Option<NodeIndex>)> = Vec::new();
    for edge in &edges {
        let (Some(source), Some(target)) = (edge.source.as_deref(), edge.target.as_deref()) else {
            defects.push((edge.pos, "<edge> without the required 'source' or 'target' attribute"));
            let end = |id: Option<&str>| id.and_then(|id| ids.get(id).map(|&(ix, _)| ix));
            dangling.push((end(edge.source.as_deref()), end(edge.target.as_deref())));
            continue;
        };
        let mut endpoints = [NodeIndex::end(); 2];
        for (slot, id) in endpoints.iter_mut().zip([source, target]) {
            *slot = match ids.get(id) {
                Some(&(ix, _)) => ix,
                None => {
                    warnings.push(format!(
                        "node '{id}' is used by the edge at {} but never declared; created implicitly",
                        ctx.pos_str(edge.pos)
                    ));
                    let ix = graph.add_node(WitnessState { id: id.to_string(), ..Default::default() });
                    ids.insert(id, (ix, edge.pos));
                    ix
                }
            };
        }
        let items = resolve_items(&edge.data, Domain::Edge, &resolve, &declared_for, &defaults, &mut warnings);
        let transition = transition(ctx, edge, &items, &mut warnings)?;
        graph.add_edge(endpoints[0], endpoints[1], transition);
    }

    // ---- entry
    let Some(&entry) = entries.first() else {
        return Err(InputError::invalid(ctx.path, "the witness has no entry node (no node has entry=true)"));
    };
    if entries.len() > 1 {
        let others: Vec<&str> = entries[1..].iter().map(|&ix| graph[ix].id.as_str()).collect();
        let msg = format!(
            "several entry nodes; using the first ('{}') and ignoring the entry flag of {}",
            graph[entry].id,
            others.join(", ")
        );
        warnings.push(msg);
        for &ix in &entries[1..] {
            graph[ix].entry = false;
        }
    }

    if !defects.is_empty() {
        tolerate_defects(ctx, &graph, entry, &defects, &dangling, idless_violation, &mut warnings)?;
    }

    // ---- witness type
    let type_text = witness_type_text.or(legacy_type);
    metadata.witness_type = match type_text {
        None => None,
        Some("violation_witness") | Some("false_witness") => {
            let termination = any_cycle_head
                || metadata.specifications.iter().any(|s| {
                    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
                    compact.contains("LTL(Fend)")
                });
            Some(if termination { WitnessType::Termination } else { WitnessType::Violation })
        }
        Some("correctness_witness") | Some("true_witness") => Some(WitnessType::Correctness),
        Some(other) => {
            warnings.push(format!("unknown witness type '{other}'"));
            None
        }
    };

    Ok(WitnessAutomaton {
        graph,
        entry,
        metadata,
        // A warning names its file, as an error does (positions inside it are `line:col`).
        warnings: warnings.list.into_iter().map(|w| format!("{}: {w}", ctx.path.display())).collect(),
        format: FORMAT_NAME.to_string(),
        exact_locations: false,
        invariants: Vec::new(),
    })
}

/// Structural defects (a node without id, an edge without an endpoint) leave the witness's
/// meaning open. They are tolerated, with a warning each, only if whatever they mean no
/// violation node is reachable from the entry: a node without id is unreachable (no edge can
/// name it), an edge without a source may leave any node reached, and one without a target may
/// enter any node (decision 41). Then no reading can confirm, and the product rejects the witness
/// for that reason. Otherwise the first defect is an input error.
fn tolerate_defects(
    ctx: Ctx<'_>,
    graph: &DiGraph<WitnessState, WitnessTransition>,
    entry: NodeIndex,
    defects: &[(usize, &str)],
    dangling: &[(Option<NodeIndex>, Option<NodeIndex>)],
    idless_violation: bool,
    warnings: &mut Warnings,
) -> Result<(), InputError> {
    let mut reached = vec![false; graph.node_count()];
    let mut stack = vec![entry];
    let mut anywhere = false;
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut reached[n.index()], true) {
            continue;
        }
        stack.extend(graph.neighbors_directed(n, petgraph::Direction::Outgoing));
        for &(source, target) in dangling {
            if source.is_none() || source == Some(n) {
                match target {
                    Some(t) => stack.push(t),
                    None => anywhere = true,
                }
            }
        }
    }
    // An edge without target may enter any node, also one without id (the two defects may be
    // one missing name), so a violation node without id counts then.
    let violation_reached = (anywhere && idless_violation)
        || graph.node_indices().any(|n| graph[n].violation && (anywhere || reached[n.index()]));
    let (first_pos, first_msg) = defects[0];
    if violation_reached {
        return Err(ctx.malformed(first_pos, first_msg));
    }
    for &(pos, msg) in defects {
        warnings.push(format!(
            "malformed witness at {}: {msg}; ignored, because whatever it means no violation node is reachable from \
             the entry node",
            ctx.pos_str(pos)
        ));
    }
    Ok(())
}

/// Builds the transition of one edge from its resolved data items.
fn transition(
    ctx: Ctx<'_>,
    edge: &RawEdge,
    items: &[Item<'_>],
    warnings: &mut Warnings,
) -> Result<WitnessTransition, InputError> {
    let mut seen: HashMap<Key, usize> = HashMap::new();
    let mut guard = LocationGuard::default();
    let (mut start_line, mut end_line, mut legacy_line) = (None, None, None);
    let (mut start_off, mut end_off, mut legacy_off) = (None, None, None);
    let mut negated = false;
    let mut assumption = Assumption::default();
    let mut has_assumption = false;
    for it in items {
        if !it.default && it.key.single_valued_on_edge() {
            if let Some(first) = seen.insert(it.key, it.pos) {
                return Err(ctx.malformed(
                    it.pos,
                    format!(
                        "duplicate <data key=\"{}\"> on the edge at {} (first at {}); this key may appear at most once per edge",
                        key_label(it.key),
                        ctx.pos_str(edge.pos),
                        ctx.pos_str(first)
                    ),
                ));
            }
        }
        let int = || -> Result<u64, InputError> {
            it.value.parse::<u64>().map_err(|_| {
                ctx.malformed(
                    it.pos,
                    format!("{}: expected a non-negative integer, found '{}'", key_label(it.key), it.value),
                )
            })
        };
        let text = || (!it.value.is_empty()).then(|| it.value.to_string());
        let boolean = |warnings: &mut Warnings| -> bool {
            parse_bool(it.value).unwrap_or_else(|| {
                warnings.push(format!(
                    "edge data at {}: value '{}' of boolean key '{}' is neither true nor false; read as false",
                    ctx.pos_str(it.pos),
                    it.value,
                    key_label(it.key)
                ));
                false
            })
        };
        match it.key {
            Key::StartLine => start_line = Some(int()?),
            Key::EndLine => end_line = Some(int()?),
            Key::LegacyStartLine => legacy_line = Some(int()?),
            Key::StartOffset => start_off = Some(int()?),
            Key::EndOffset => end_off = Some(int()?),
            Key::LegacyOffset => legacy_off = Some(int()?),
            Key::OriginFile => guard.origin_file = text().map(|f| base_name(&f).to_string()),
            Key::Control => {
                guard.control = match it.value {
                    "condition-true" => Some(Control::ConditionTrue),
                    "condition-false" => Some(Control::ConditionFalse),
                    other => {
                        return Err(ctx.malformed(
                            it.pos,
                            format!("control: expected 'condition-true' or 'condition-false', found '{other}'"),
                        ))
                    }
                }
            }
            Key::EnterLoopHead => guard.enter_loop_head = boolean(warnings),
            Key::Negated => negated = boolean(warnings),
            Key::EnterFunction => guard.enter_function = text(),
            Key::ReturnFromFunction => guard.return_from_function = text(),
            Key::ThreadId => guard.thread_id = text(),
            Key::CreateThread => guard.create_thread = text(),
            Key::Assumption => {
                has_assumption = true;
                if !it.value.is_empty() {
                    assumption.expressions.push(it.value.to_string());
                }
            }
            Key::AssumptionScope => {
                has_assumption = true;
                assumption.scope = text();
            }
            Key::AssumptionResultFunction => {
                has_assumption = true;
                assumption.result_function = text();
            }
            _ => {}
        }
    }
    guard.lines = range(start_line.or(legacy_line), end_line);
    guard.offsets = range(start_off.or(legacy_off), end_off);
    if guard.control.is_none() && negated {
        guard.control = Some(Control::ConditionFalse);
    }
    let assumption = (has_assumption
        && (!assumption.expressions.is_empty() || assumption.scope.is_some() || assumption.result_function.is_some()))
    .then_some(assumption);
    Ok(WitnessTransition { guard, assumption, origin: ctx.pos_str(edge.pos), avoid: false, decision: None })
}

/// A range from optional start and end; a lone value is copied to the other end.
fn range(start: Option<u64>, end: Option<u64>) -> Option<Range> {
    match (start, end) {
        (Some(start), Some(end)) => Some(Range { start, end }),
        (Some(v), None) | (None, Some(v)) => Some(Range { start: v, end: v }),
        (None, None) => None,
    }
}

/// `true`/`false`, case-insensitive; anything else is `None`.
fn parse_bool(value: &str) -> Option<bool> {
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// The last component of a path written with `/` or `\` separators.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The canonical spelling of a key, for messages.
fn key_label(key: Key) -> &'static str {
    use Key::*;
    match key {
        WitnessType => "witness-type",
        LegacyType => "type",
        FormatVersion => "witness-format-version",
        Producer => "producer",
        Specification => "specification",
        ProgramFile => "programfile",
        ProgramHash => "programhash",
        Architecture => "architecture",
        SourceCodeLang => "sourcecodelang",
        CreationTime => "creationtime",
        InputWitnessHash => "inputwitnesshash",
        MemoryModel => "memorymodel",
        Entry => "entry",
        Sink => "sink",
        Violation => "violation",
        CycleHead => "cyclehead",
        Invariant => "invariant",
        InvariantScope => "invariant.scope",
        IgnoredNode => "(tool-specific node key)",
        StartLine => "startline",
        LegacyStartLine => "originline",
        EndLine => "endline",
        StartOffset => "startoffset",
        LegacyOffset => "offset",
        EndOffset => "endoffset",
        OriginFile => "originfile",
        Control => "control",
        EnterLoopHead => "enterLoopHead",
        EnterFunction => "enterFunction",
        ReturnFromFunction => "returnFromFunction",
        Assumption => "assumption",
        AssumptionScope => "assumption.scope",
        AssumptionResultFunction => "assumption.resultfunction",
        ThreadId => "threadId",
        CreateThread => "createThread",
        SourceCode => "sourcecode",
        Negated => "negativeCase",
        IgnoredEdge => "(tool-specific edge key)",
    }
}

#[cfg(test)]
mod tests;
