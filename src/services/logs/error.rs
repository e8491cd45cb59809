//! `logs::Error`: the CloudWatch Logs error shapes (botocore `logs/2014-03-28`) with AWS's
//! messages. No HTTP here.

/// An error of a log group operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ResourceAlreadyExistsException`: "The specified log group already exists".
    #[error("{0}")]
    ResourceAlreadyExists(String),
    /// `ResourceNotFoundException`: "The specified log group does not exist."
    #[error("{0}")]
    ResourceNotFound(String),
    /// `InvalidParameterException`: a value the service refuses (tags, KMS key ARN).
    #[error("{0}")]
    InvalidParameter(String),
    /// `ValidationException`: a member outside its length, pattern or enum (Coral wording).
    #[error("{0}")]
    Validation(String),
}

impl Error {
    /// The AWS error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::ResourceAlreadyExists(_) => "ResourceAlreadyExistsException",
            Error::ResourceNotFound(_) => "ResourceNotFoundException",
            Error::InvalidParameter(_) => "InvalidParameterException",
            Error::Validation(_) => "ValidationException",
        }
    }

    /// `The specified log group does not exist.`
    pub fn log_group_not_found() -> Error {
        Error::ResourceNotFound("The specified log group does not exist.".to_string())
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
