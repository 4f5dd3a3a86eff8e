//! What to validate: a C program with `--witness`/`--property`/`--data-model`, or an SV-COMP
//! task-definition file in place of the program (decisions 85 and 86). Shared by `validate` and
//! `batch`.

use std::path::{Path, PathBuf};

use witness_core::cfa::DataModel;
use witness_core::property::{self, PropertyKind};
use witness_core::taskdef::{self, TaskProperty};
use witness_core::validate::read_witness;
use witness_core::InputError;

/// A validation with every input named.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub program: PathBuf,
    pub witness: PathBuf,
    pub property: Option<PathBuf>,
    pub data_model: Option<DataModel>,
    /// The task definition's entry for the property used, when there was a task definition.
    pub task_property: Option<TaskProperty>,
}

/// Why the inputs could not be named: a usage error (exit 2) or an input error (exit 3).
#[derive(Debug)]
pub enum ResolveError {
    Usage(String),
    Input(InputError),
}

impl From<InputError> for ResolveError {
    fn from(e: InputError) -> Self {
        ResolveError::Input(e)
    }
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResolveError::Usage(m) => f.write_str(m),
            ResolveError::Input(e) => write!(f, "{e}"),
        }
    }
}

/// Names the program, witness, property and data model. Command-line values win over the
/// task definition's.
pub fn resolve(
    program: &Path,
    witness: Option<&Path>,
    property: Option<&Path>,
    data_model: Option<DataModel>,
) -> Result<Resolved, ResolveError> {
    if !taskdef::is_task_definition(program) {
        let Some(witness) = witness else {
            return Err(ResolveError::Usage(
                "--witness W is required (unless PROGRAM is a task definition whose options name its witness)".into(),
            ));
        };
        return Ok(Resolved {
            program: program.to_path_buf(),
            witness: witness.to_path_buf(),
            property: property.map(Path::to_path_buf),
            data_model,
            task_property: None,
        });
    }
    let bytes = std::fs::read(program).map_err(|source| InputError::Io { path: program.to_path_buf(), source })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        InputError::malformed(program, 1, 1, format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
    })?;
    let task = taskdef::parse_task_definition(program, &text)?;
    let c_file = task.program(program)?.to_path_buf();
    let witness = match (witness, &task.witness) {
        (Some(w), _) => w.to_path_buf(),
        (None, Some(w)) => w.clone(),
        (None, None) => {
            return Err(ResolveError::Usage(format!(
                "--witness W is required: the task definition {} names no `witness_input_file`",
                program.display()
            )))
        }
    };
    let (property, task_property) = match property {
        Some(p) => {
            // The task's entry for this file, if any (for its expected verdict).
            let same = |t: &&TaskProperty| same_file(&t.property_file, p);
            (Some(p.to_path_buf()), task.properties.iter().find(same).cloned())
        }
        None => {
            let chosen = choose_property(program, &task.properties, &witness)?;
            (chosen.map(|t| t.property_file.clone()), chosen.cloned())
        }
    };
    Ok(Resolved { program: c_file, witness, property, data_model: data_model.or(task.data_model), task_property })
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// The kind of property a `.prp` file or a witness's specification names (as in decision 72).
fn category(p: &property::Property) -> String {
    match (property::category(p), &p.kind) {
        (Some(name), _) => name.into(),
        (None, PropertyKind::Other(f)) => f.clone(),
        (None, other) => format!("{other:?}"),
    }
}

/// Decision 86: one property is used as is; of several, the one whose kind the witness's
/// specification names; otherwise a usage error that lists them.
fn choose_property<'a>(
    task_file: &Path,
    props: &'a [TaskProperty],
    witness: &Path,
) -> Result<Option<&'a TaskProperty>, ResolveError> {
    match props {
        [] => return Ok(None),
        [one] => return Ok(Some(one)),
        _ => {}
    }
    let mut kinds = Vec::new();
    for p in props {
        let f = &p.property_file;
        let bytes = std::fs::read(f).map_err(|source| InputError::Io { path: f.clone(), source })?;
        kinds.push(category(&property::parse_property(f, &String::from_utf8_lossy(&bytes))?));
    }
    let automaton = read_witness(witness)?;
    let named: Vec<String> = automaton
        .metadata
        .specifications
        .iter()
        .filter_map(|s| property::property_from_specification(s))
        .map(|p| category(&p))
        .collect();
    let matching: Vec<usize> = (0..props.len()).filter(|&i| named.contains(&kinds[i])).collect();
    if let [one] = matching.as_slice() {
        return Ok(Some(&props[*one]));
    }
    let list = props
        .iter()
        .zip(&kinds)
        .map(|(p, k)| format!("  {} ({k})", p.property_file.display()))
        .collect::<Vec<_>>()
        .join("\n");
    let why = if named.is_empty() {
        "the witness names no property".to_string()
    } else {
        format!("the witness's specification ({}) does not single one out", named.join(", "))
    };
    Err(ResolveError::Usage(format!(
        "the task definition {} has {} properties and {why}; choose one with --property:\n{list}",
        task_file.display(),
        props.len()
    )))
}
