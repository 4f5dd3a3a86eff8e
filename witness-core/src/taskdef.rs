//! SV-COMP task-definition files (`*.yml`, format 2.0 of sv-benchmarks, decision 85):
//!
//! ```yaml
//! format_version: '2.0'
//! input_files: 'program.c'          # a string or a list of strings
//! properties:
//!   - property_file: ../properties/unreach-call.prp
//!     expected_verdict: false
//!     subproperty: valid-deref        # optional
//! options:
//!   language: C
//!   data_model: ILP32                 # or LP64
//!   witness_input_file: witness.yml   # validation tasks: which input file is the witness
//! ```
//!
//! Paths are relative to the task definition's directory. This module only parses text (the
//! YAML tree of [`crate::witness::yaml`], so positions are exact); it reads no files, and the
//! binary decides which property to use (decision 86).

use std::path::{Path, PathBuf};

use crate::cfa::DataModel;
use crate::error::InputError;
use crate::validate::parse_data_model;
use crate::witness::yaml::{Kind, NodeId, Pos, Tree};

/// One entry of `properties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskProperty {
    /// Resolved against the task definition's directory.
    pub property_file: PathBuf,
    /// `expected_verdict`: `true` (the program satisfies the property) or `false`.
    pub expected_verdict: Option<bool>,
    /// `subproperty`, e.g. `valid-deref` for valid-memsafety.
    pub subproperty: Option<String>,
}

impl TaskProperty {
    /// BenchExec's form of the expected result: `true`, `false`, `false(valid-deref)`.
    pub fn expected_result(&self) -> Option<String> {
        match (self.expected_verdict?, &self.subproperty) {
            (true, _) => Some("true".into()),
            (false, Some(sub)) => Some(format!("false({sub})")),
            (false, None) => Some("false".into()),
        }
    }
}

/// A parsed task definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskDefinition {
    /// The input files that are not the witness, resolved against the file's directory.
    pub input_files: Vec<PathBuf>,
    pub properties: Vec<TaskProperty>,
    /// `options.data_model`.
    pub data_model: Option<DataModel>,
    /// `options.language`, as written.
    pub language: Option<String>,
    /// `options.witness_input_file`: the input file that is the witness (validation tasks).
    pub witness: Option<PathBuf>,
}

impl TaskDefinition {
    /// The one C program of the task; an input error for none or several.
    pub fn program(&self, path: &Path) -> Result<&Path, InputError> {
        match self.input_files.as_slice() {
            [one] => Ok(one),
            [] => Err(InputError::invalid(path, "the task definition lists no program in `input_files`")),
            many => Err(InputError::invalid(
                path,
                format!(
                    "the task definition lists {} programs in `input_files` ({}); witness-check validates one C file",
                    many.len(),
                    many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }
}

/// Is this file a task definition rather than a C program? By its extension (`.yml`, `.yaml`):
/// a C program never has one, and a C program is never read as YAML (decision 85).
pub fn is_task_definition(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("yml") || e.eq_ignore_ascii_case("yaml"))
}

/// Parses a task definition; `path` is the file's path (for messages and to resolve the
/// relative paths inside it).
pub fn parse_task_definition(path: &Path, text: &str) -> Result<TaskDefinition, InputError> {
    let tree = Tree::parse(path, text)?;
    let r = Reader { path, tree: &tree };
    let Some(root) = tree.root else {
        return Err(InputError::malformed(
            path,
            1,
            1,
            "empty task definition: expected a mapping with `format_version`",
        ));
    };
    let top = r.map(root, "the task definition")?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = if base.as_os_str().is_empty() { PathBuf::from(".") } else { base };

    match r.get(top, "format_version")? {
        Some(v) => {
            let version = r.scalar(v, "`format_version`")?;
            if !version.starts_with("2.") {
                return Err(r.err(v, format!("unsupported `format_version` `{version}`: expected 2.0")));
            }
        }
        None => return Err(r.err(root, "missing `format_version` (expected `format_version: '2.0'`)")),
    }

    let mut names: Vec<(String, NodeId)> = Vec::new();
    match r.get(top, "input_files")? {
        None => return Err(r.err(root, "missing `input_files`")),
        Some(v) => match &r.node(v).kind {
            Kind::Scalar(s, _) => names.push((s.clone(), v)),
            Kind::Seq(items) => {
                for &i in items {
                    names.push((r.scalar(i, "an entry of `input_files`")?.to_string(), i));
                }
            }
            Kind::Map(_) => return Err(r.err(v, "expected `input_files` to be a file name or a list of them")),
        },
    }
    for (name, id) in &names {
        if name.contains(['*', '?', '[']) {
            return Err(r.err(*id, format!("`{name}`: patterns in `input_files` are not supported; name the file")));
        }
    }

    let mut properties = Vec::new();
    if let Some(v) = r.get(top, "properties")? {
        let items = match &r.node(v).kind {
            Kind::Seq(items) => items.as_slice(),
            _ => return Err(r.err(v, "expected `properties` to be a list of `- property_file: …` entries")),
        };
        for &item in items {
            let entries = r.map(item, "an entry of `properties`")?;
            let file = match r.get(entries, "property_file")? {
                Some(f) => r.scalar(f, "`property_file`")?,
                None => return Err(r.err(item, "a property without `property_file`")),
            };
            let expected_verdict = match r.get(entries, "expected_verdict")? {
                None => None,
                Some(e) => match r.scalar(e, "`expected_verdict`")? {
                    "true" | "True" | "TRUE" => Some(true),
                    "false" | "False" | "FALSE" => Some(false),
                    other => return Err(r.err(e, format!("`expected_verdict` must be true or false, found `{other}`"))),
                },
            };
            let subproperty = match r.get(entries, "subproperty")? {
                Some(s) => Some(r.scalar(s, "`subproperty`")?.to_string()),
                None => None,
            };
            properties.push(TaskProperty { property_file: base.join(file), expected_verdict, subproperty });
        }
    }

    let (mut data_model, mut language, mut witness_name) = (None, None, None);
    if let Some(v) = r.get(top, "options")? {
        let entries = r.map(v, "`options`")?;
        if let Some(l) = r.get(entries, "language")? {
            language = Some(r.scalar(l, "`language`")?.to_string());
        }
        if let Some(d) = r.get(entries, "data_model")? {
            let text = r.scalar(d, "`data_model`")?;
            data_model = Some(
                parse_data_model(text)
                    .ok_or_else(|| r.err(d, format!("unknown `data_model` `{text}`: expected ILP32 or LP64")))?,
            );
        }
        if let Some(w) = r.get(entries, "witness_input_file")? {
            witness_name = Some((r.scalar(w, "`witness_input_file`")?.to_string(), w));
        }
    }
    if let Some(lang) = &language {
        if !lang.eq_ignore_ascii_case("C") {
            return Err(InputError::invalid(
                path,
                format!("the task's language is {lang}; witness-check validates C programs"),
            ));
        }
    }

    // BenchExec's convention (sv_benchmarks_util): the witness is the input file whose base
    // name equals `witness_input_file`.
    let mut witness = None;
    let mut input_files = Vec::new();
    for (name, _) in names {
        let is_witness = witness_name.as_ref().is_some_and(|(w, _)| Path::new(&name).file_name() == Some(w.as_ref()));
        if is_witness && witness.is_none() {
            witness = Some(base.join(&name));
        } else {
            input_files.push(base.join(&name));
        }
    }
    if let (Some((w, id)), None) = (&witness_name, &witness) {
        return Err(r.err(*id, format!("`witness_input_file` `{w}` is not one of the `input_files`")));
    }
    Ok(TaskDefinition { input_files, properties, data_model, language, witness })
}

struct Reader<'a> {
    path: &'a Path,
    tree: &'a Tree,
}

impl<'a> Reader<'a> {
    fn node(&self, id: NodeId) -> &'a crate::witness::yaml::Node {
        &self.tree.nodes[id]
    }

    fn err(&self, id: NodeId, msg: impl Into<String>) -> InputError {
        let Pos { line, col } = self.node(id).pos;
        InputError::malformed(self.path, line, col, msg)
    }

    fn describe(&self, id: NodeId) -> &'static str {
        match &self.node(id).kind {
            Kind::Map(_) => "a mapping",
            Kind::Seq(_) => "a sequence",
            Kind::Scalar(..) => "a scalar",
        }
    }

    fn map(&self, id: NodeId, what: &str) -> Result<&'a [(NodeId, NodeId)], InputError> {
        match &self.node(id).kind {
            Kind::Map(entries) => Ok(entries),
            _ => Err(self.err(id, format!("expected {what} to be a mapping, found {}", self.describe(id)))),
        }
    }

    fn scalar(&self, id: NodeId, what: &str) -> Result<&'a str, InputError> {
        match &self.node(id).kind {
            Kind::Scalar(s, _) => Ok(s),
            _ => Err(self.err(id, format!("expected {what} to be a scalar, found {}", self.describe(id)))),
        }
    }

    /// The value of `key`; a null value counts as absent; a duplicate key is an error.
    fn get(&self, entries: &[(NodeId, NodeId)], key: &str) -> Result<Option<NodeId>, InputError> {
        let mut found = None;
        for &(k, v) in entries {
            if matches!(&self.node(k).kind, Kind::Scalar(s, _) if s == key) {
                if found.is_some() {
                    return Err(self.err(k, format!("duplicate key `{key}`")));
                }
                found = Some(v);
            }
        }
        Ok(found.filter(
            |&v| !matches!(&self.node(v).kind, Kind::Scalar(s, true) if s.is_empty() || s == "~" || s == "null"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TaskDefinition, InputError> {
        parse_task_definition(Path::new("tasks/t.yml"), text)
    }

    #[test]
    fn svcomp_task_definition() {
        let t = parse(
            "format_version: '2.0'\ninput_files: 'a.i'\nproperties:\n  - property_file: ../p/unreach-call.prp\n    expected_verdict: false\n  - property_file: ../p/valid-memsafety.prp\n    expected_verdict: false\n    subproperty: valid-deref\noptions:\n  language: C\n  data_model: ILP32\n",
        )
        .unwrap();
        assert_eq!(t.input_files, vec![PathBuf::from("tasks/a.i")]);
        assert_eq!(t.properties.len(), 2);
        assert_eq!(t.properties[0].property_file, PathBuf::from("tasks/../p/unreach-call.prp"));
        assert_eq!(t.properties[1].expected_result().as_deref(), Some("false(valid-deref)"));
        assert_eq!(t.data_model, Some(DataModel::Ilp32));
        assert_eq!(t.witness, None);
    }

    #[test]
    fn validation_task_names_its_witness() {
        let t = parse(
            "format_version: '2.0'\ninput_files: [a.c, w/witness.yml]\noptions:\n  witness_input_file: witness.yml\n",
        )
        .unwrap();
        assert_eq!(t.input_files, vec![PathBuf::from("tasks/a.c")]);
        assert_eq!(t.witness, Some(PathBuf::from("tasks/w/witness.yml")));
        let e =
            parse("format_version: '2.0'\ninput_files: [a.c]\noptions:\n  witness_input_file: w.yml\n").unwrap_err();
        assert!(e.to_string().contains("tasks/t.yml:4:23"), "{e}");
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("format_version: '2.0'\ninput_files: a.c\noptions:\n  data_model: ILP64\n").unwrap_err();
        assert!(e.to_string().starts_with("tasks/t.yml:4:15: unknown `data_model`"), "{e}");
        let e = parse("input_files: a.c\n").unwrap_err();
        assert!(e.to_string().contains("missing `format_version`"), "{e}");
        let e = parse("format_version: '2.0'\ninput_files: '*.c'\n").unwrap_err();
        assert!(e.to_string().contains("patterns"), "{e}");
        let e = parse(
            "format_version: '2.0'\ninput_files: a.c\nproperties: [{expected_verdict: maybe, property_file: p}]\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("must be true or false"), "{e}");
        let e =
            parse("format_version: '2.0'\ninput_files: [a.c, b.c]\n").unwrap().program(Path::new("t.yml")).unwrap_err();
        assert!(e.to_string().contains("2 programs"), "{e}");
        let e = parse("format_version: '2.0'\ninput_files: a.java\noptions: {language: Java}\n").unwrap_err();
        assert!(e.to_string().contains("language is Java"), "{e}");
    }
}
