//! Placeholder: the YAML (format 2.0/2.1) violation-witness reader is being written.
use std::path::Path;

use super::WitnessAutomaton;
use crate::error::InputError;

/// Does the content look like a YAML witness (a top-level sequence of entries)?
pub fn looks_like_yaml(_bytes: &[u8]) -> bool {
    false
}

/// Reads a YAML violation witness.
pub fn read_yaml(path: &Path, _bytes: &[u8]) -> Result<WitnessAutomaton, InputError> {
    Err(InputError::invalid(path, "YAML witnesses are not supported yet"))
}
