//! unreach-call: no call of an error function (`reach_error`, `__VERIFIER_error`), or, in the
//! historic form, the `ERROR:` label is never reached.

use super::check::{PropertyCheck, Shape};
use super::{ErrorTarget, Property, PropertyKind};
use crate::cfa::ErrorKind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreachCall {
    /// The functions whose call is the violation.
    pub functions: Vec<String>,
    /// The historic `ERROR:` label counts.
    pub label: bool,
    /// RERS: only `__VERIFIER_error(N)` with this code is the violation (`--error-code`).
    pub error_code: Option<i128>,
}

impl UnreachCall {
    /// Both conventional error functions (no property file).
    pub fn conventional() -> UnreachCall {
        UnreachCall { functions: vec!["reach_error".into(), "__VERIFIER_error".into()], label: false, error_code: None }
    }
}

/// The task's unreach-call property with only error code `code` a violation (`--error-code`,
/// RERS); an error for any other property.
pub fn with_error_code(target: &ErrorTarget, code: i128) -> Result<ErrorTarget, String> {
    if target.name() != "unreach-call" {
        return Err(format!("--error-code applies to unreach-call, not to {}", target.name()));
    }
    Ok(ErrorTarget::new(UnreachCall {
        functions: target.error_functions().to_vec(),
        label: false,
        error_code: Some(code),
    }))
}

pub(super) fn from_property(p: &Property) -> Option<ErrorTarget> {
    match p.kind {
        PropertyKind::UnreachCall => {
            Some(ErrorTarget::new(UnreachCall { functions: p.error_functions.clone(), label: false, error_code: None }))
        }
        PropertyKind::UnreachLabel => {
            Some(ErrorTarget::new(UnreachCall { functions: Vec::new(), label: true, error_code: None }))
        }
        _ => None,
    }
}

impl PropertyCheck for UnreachCall {
    fn name(&self) -> &'static str {
        "unreach-call"
    }

    fn shape(&self) -> Shape {
        Shape::ErrorCall
    }

    fn error_functions(&self) -> &[String] {
        &self.functions
    }

    fn error_code(&self) -> Option<i128> {
        self.error_code
    }

    fn on_error_call(&self, kind: &ErrorKind, function: &str) -> bool {
        match kind {
            ErrorKind::ReachError | ErrorKind::VerifierError => self.functions.iter().any(|f| f == function),
            ErrorKind::ErrorLabel => self.label,
            ErrorKind::AssertFail => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::Classified;
    use crate::semantics::value::ViolationKind as K;

    #[test]
    fn counts_its_error_functions_only() {
        let reach = UnreachCall::conventional();
        assert!(reach.on_error_call(&ErrorKind::ReachError, "reach_error"));
        assert!(!reach.on_error_call(&ErrorKind::ReachError, "other"));
        assert!(!reach.on_error_call(&ErrorKind::ErrorLabel, "ERROR"));
        assert!(!reach.on_error_call(&ErrorKind::AssertFail, "__assert_fail"));
        assert!(UnreachCall { functions: Vec::new(), label: true, error_code: None }
            .on_error_call(&ErrorKind::ErrorLabel, "ERROR"));
        assert_eq!(reach.on_condition(K::Overflow), Classified::Other);
        assert_eq!(reach.on_end(), None);
    }
}
