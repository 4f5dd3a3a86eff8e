//! Placeholder for the C front end (being written on branch `cfront`).
use std::path::Path;

use crate::cfa::{Cfa, DataModel, Expr, FuncId, IntTy};
use crate::error::InputError;

pub struct Program {
    pub cfa: Cfa,
    pub source: String,
    pub warnings: Vec<String>,
}
pub fn build_program(
    path: &Path,
    _text: &str,
    _data_model: DataModel,
) -> Result<Program, InputError> {
    Err(InputError::invalid(path, "C front end not built yet"))
}
pub struct AssumptionScope {
    pub function: Option<FuncId>,
    pub offset: Option<usize>,
    pub result_ty: Option<IntTy>,
}
pub fn lower_assumption(
    _cfa: &Cfa,
    _text: &str,
    _scope: &AssumptionScope,
) -> Vec<Result<Expr, String>> {
    Vec::new()
}
