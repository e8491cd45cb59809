//! `ssm::Error`: the Parameter Store error shapes (botocore `ssm/2014-11-06`) with AWS's
//! messages. No HTTP here.

/// An error of a Parameter Store operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ParameterNotFound`. AWS sends it without a message; the name is kept here for logs and
    /// for callers (CloudFormation's "Unable to fetch parameters [...]").
    #[error("")]
    ParameterNotFound(String),
    /// `ParameterVersionNotFound`: a `name:version` selector past the history.
    #[error("{0}")]
    ParameterVersionNotFound(String),
    /// `ParameterAlreadyExists`: PutParameter without Overwrite on an existing name.
    #[error("The parameter already exists. To overwrite this value, set the overwrite option in the request to true.")]
    ParameterAlreadyExists,
    /// `ParameterPatternMismatchException`: the value does not match AllowedPattern.
    #[error("{0}")]
    ParameterPatternMismatch(String),
    /// `HierarchyLevelLimitExceededException`: more than 15 path levels.
    #[error("{0}")]
    HierarchyLevelLimitExceeded(String),
    /// `InvalidNextToken`.
    #[error("{0}")]
    InvalidNextToken(String),
    /// `InvalidFilterKey`.
    #[error("{0}")]
    InvalidFilterKey(String),
    /// `ValidationException`: names, types, lengths (Coral wording where AWS uses it).
    #[error("{0}")]
    Validation(String),
}

impl Error {
    /// The AWS error code (`__type`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::ParameterNotFound(_) => "ParameterNotFound",
            Error::ParameterVersionNotFound(_) => "ParameterVersionNotFound",
            Error::ParameterAlreadyExists => "ParameterAlreadyExists",
            Error::ParameterPatternMismatch(_) => "ParameterPatternMismatchException",
            Error::HierarchyLevelLimitExceeded(_) => "HierarchyLevelLimitExceededException",
            Error::InvalidNextToken(_) => "InvalidNextToken",
            Error::InvalidFilterKey(_) => "InvalidFilterKey",
            Error::Validation(_) => "ValidationException",
        }
    }

    /// The message AWS sends (empty for ParameterNotFound).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
