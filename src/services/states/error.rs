//! `states::Error`: the AWS Step Functions error shapes (botocore `stepfunctions/2016-11-23`)
//! with AWS's messages. No HTTP here.

/// An error of a state machine operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `StateMachineAlreadyExists`: "State Machine Already Exists: '<arn>'".
    #[error("{0}")]
    StateMachineAlreadyExists(String),
    /// `StateMachineDoesNotExist`: "State Machine Does Not Exist: '<arn>'".
    #[error("{0}")]
    StateMachineDoesNotExist(String),
    /// `InvalidDefinition`: "Invalid State Machine Definition: '<CODE>: <detail>'".
    #[error("{0}")]
    InvalidDefinition(String),
    /// `InvalidName`: "Invalid Name: '<name>'".
    #[error("{0}")]
    InvalidName(String),
    /// `InvalidArn`: "Invalid Arn: '<why>'".
    #[error("{0}")]
    InvalidArn(String),
    /// `TooManyTags`.
    #[error("{0}")]
    TooManyTags(String),
    /// `ValidationException`: a member outside its length or enum (Coral wording).
    #[error("{0}")]
    Validation(String),
}

impl Error {
    /// The AWS error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::StateMachineAlreadyExists(_) => "StateMachineAlreadyExists",
            Error::StateMachineDoesNotExist(_) => "StateMachineDoesNotExist",
            Error::InvalidDefinition(_) => "InvalidDefinition",
            Error::InvalidName(_) => "InvalidName",
            Error::InvalidArn(_) => "InvalidArn",
            Error::TooManyTags(_) => "TooManyTags",
            Error::Validation(_) => "ValidationException",
        }
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
