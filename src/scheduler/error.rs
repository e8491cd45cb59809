//! `scheduler::Error`: the Scheduler API's error shapes, carrying the message AWS sends
//! (aws-contract.md §4.3; `../shared/reference/aws-recorded/README.md`, errors table).

/// An error of a Scheduler operation. No HTTP status here: `protocol::wire::scheduler` maps
/// each variant to its code and status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ValidationException` (400).
    #[error("{0}")]
    Validation(String),
    /// `ResourceNotFoundException` (404), e.g. `Schedule <name> does not exist.`
    #[error("{0}")]
    ResourceNotFound(String),
    /// `ConflictException` (409), e.g. `Schedule <name> already exists.`
    #[error("{0}")]
    Conflict(String),
    /// `ServiceQuotaExceededException` (402).
    #[error("{0}")]
    ServiceQuotaExceeded(String),
    /// `InternalServerException` (500).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The AWS error code (shape name).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Validation(_) => "ValidationException",
            Error::ResourceNotFound(_) => "ResourceNotFoundException",
            Error::Conflict(_) => "ConflictException",
            Error::ServiceQuotaExceeded(_) => "ServiceQuotaExceededException",
            Error::Internal(_) => "InternalServerException",
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Error::Validation(m)
            | Error::ResourceNotFound(m)
            | Error::Conflict(m)
            | Error::ServiceQuotaExceeded(m)
            | Error::Internal(m) => m,
        }
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
