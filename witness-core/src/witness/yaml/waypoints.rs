//! The linter's lenient views of a YAML witness: its metadata fields flattened, and the
//! waypoints of its violation sequence as the thread checks see them (issue 22, decision 160).
//! The reader itself reports what these views skip.

use super::*;

/// One field of an entry's metadata, flattened for the linter: `path` is dotted from the entry
/// (`metadata.task.input_files[0]`), `value` the scalar text (`None` for a collection).
#[derive(Debug, Clone)]
pub struct FlatField {
    pub entry: usize,
    pub path: String,
    pub value: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// The YAML tree of a witness for the linter's views (a BOM skipped; not UTF-8 is an error at 1:1).
fn linter_tree(path: &Path, bytes: &[u8]) -> Result<Tree, InputError> {
    let base = if bytes.starts_with(&UTF8_BOM) { UTF8_BOM.len() } else { 0 };
    let text = std::str::from_utf8(&bytes[base..])
        .map_err(|_| InputError::malformed(path, 1, 1, "invalid UTF-8 byte sequence"))?;
    Tree::parse(path, text)
}

/// The fields of every entry except `content`, flattened (for the linter's metadata checks;
/// the reader itself tolerates what the linter reports). Errors as [`read_yaml`]'s.
pub fn flatten_entries(path: &Path, bytes: &[u8]) -> Result<Vec<FlatField>, InputError> {
    let tree = linter_tree(path, bytes)?;
    let mut out = Vec::new();
    let Some(root) = tree.root else { return Ok(out) };
    let Kind::Seq(entries) = &tree.nodes[root].kind else { return Ok(out) };
    for (i, &e) in entries.iter().enumerate() {
        let Kind::Map(fields) = &tree.nodes[e].kind else { continue };
        let mut todo: Vec<(String, NodeId)> = Vec::new();
        for &(k, v) in fields.iter().rev() {
            if let Kind::Scalar(key, _) = &tree.nodes[k].kind {
                if key != "content" {
                    todo.push((key.clone(), v));
                }
            }
        }
        // Depth-first, in document order; the tree is acyclic (aliases point backwards) and at
        // most MAX_DEPTH deep, and each entry's metadata is small.
        let mut budget = 100_000usize;
        while let Some((p, id)) = todo.pop() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                break;
            }
            let node = &tree.nodes[id];
            let value = match &node.kind {
                Kind::Scalar(s, _) => Some(s.clone()),
                Kind::Seq(items) => {
                    for (j, &c) in items.iter().enumerate().rev() {
                        todo.push((format!("{p}[{j}]"), c));
                    }
                    None
                }
                Kind::Map(kv) => {
                    for &(k, v) in kv.iter().rev() {
                        if let Kind::Scalar(key, _) = &tree.nodes[k].kind {
                            todo.push((format!("{p}.{key}"), v));
                        }
                    }
                    None
                }
            };
            out.push(FlatField { entry: i, path: p, value, line: node.pos.line, col: node.pos.col });
        }
    }
    Ok(out)
}

/// A waypoint of the first `violation_sequence` entry as the linter's thread checks see it
/// (issue 22, decision 160): its segment, type, action, `thread_id` and location line.
#[derive(Debug, Clone)]
pub struct ThreadWaypoint {
    /// Index of its segment in `content`.
    pub segment: usize,
    pub wtype: Option<String>,
    pub action: Option<String>,
    /// The `thread_id` scalar's text and position (`None` for a collection value).
    pub thread_id: Option<(Option<String>, u32, u32)>,
    /// `location.line`, when it is an integer.
    pub line: Option<u32>,
    /// Position of the `waypoint` mapping.
    pub at: (u32, u32),
}

/// The waypoints of the first `violation_sequence` entry, in document order (for the linter;
/// what is not shaped as the format says is skipped, the reader reports it).
pub fn thread_waypoints(path: &Path, bytes: &[u8]) -> Result<Vec<ThreadWaypoint>, InputError> {
    let tree = linter_tree(path, bytes)?;
    let mut out = Vec::new();
    let Some(root) = tree.root else { return Ok(out) };
    let Kind::Seq(entries) = &tree.nodes[root].kind else { return Ok(out) };
    let get = |id: NodeId, key: &str| -> Option<NodeId> {
        let Kind::Map(kv) = &tree.nodes[id].kind else { return None };
        kv.iter().find(|(k, _)| matches!(&tree.nodes[*k].kind, Kind::Scalar(s, _) if s == key)).map(|&(_, v)| v)
    };
    let scalar = |id: NodeId| match &tree.nodes[id].kind {
        Kind::Scalar(s, _) => Some(s.clone()),
        _ => None,
    };
    let Some(entry) = entries
        .iter()
        .copied()
        .find(|&e| get(e, "entry_type").and_then(scalar).as_deref() == Some("violation_sequence"))
    else {
        return Ok(out);
    };
    let Some(Kind::Seq(segments)) = get(entry, "content").map(|c| &tree.nodes[c].kind) else { return Ok(out) };
    for (segment, &item) in segments.iter().enumerate() {
        let Some(Kind::Seq(waypoints)) = get(item, "segment").map(|s| &tree.nodes[s].kind) else { continue };
        for &wi in waypoints {
            let Some(w) = get(wi, "waypoint") else { continue };
            let pos = tree.nodes[w].pos;
            out.push(ThreadWaypoint {
                segment,
                wtype: get(w, "type").and_then(scalar),
                action: get(w, "action").and_then(scalar),
                thread_id: get(w, "thread_id").map(|t| {
                    let p = tree.nodes[t].pos;
                    (scalar(t), p.line, p.col)
                }),
                line: get(w, "location")
                    .and_then(|l| get(l, "line"))
                    .and_then(scalar)
                    .and_then(|s| parse_int(&s))
                    .and_then(|n| u32::try_from(n).ok()),
                at: (pos.line, pos.col),
            });
        }
    }
    Ok(out)
}
