//! `lambda::Error`: the AWS Lambda error shapes (botocore `lambda/2015-03-31`) with AWS's
//! messages. No HTTP here.

/// An error of a Lambda operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ResourceNotFoundException`: "Function not found: <arn>", "Statement <sid> is not
    /// found in resource policy.", "The resource you requested does not exist.".
    #[error("{0}")]
    ResourceNotFound(String),
    /// `ResourceConflictException`: "Function already exist: <name>", a statement id in use.
    #[error("{0}")]
    ResourceConflict(String),
    /// `InvalidParameterValueException`: a value the service refuses after the model's checks
    /// (missing Runtime/Handler, a role Lambda cannot assume, too many tags).
    #[error("{0}")]
    InvalidParameterValue(String),
    /// `ValidationException`: a member outside its length, range, pattern or enum (Coral
    /// wording).
    #[error("{0}")]
    Validation(String),
}

impl Error {
    /// The AWS error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::ResourceNotFound(_) => "ResourceNotFoundException",
            Error::ResourceConflict(_) => "ResourceConflictException",
            Error::InvalidParameterValue(_) => "InvalidParameterValueException",
            Error::Validation(_) => "ValidationException",
        }
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
