//! `iam::Error`: the IAM API's error shapes (botocore `iam/2010-05-08`) with the messages AWS
//! sends. No HTTP here.

/// An error of an IAM operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `EntityAlreadyExists` (409), e.g. "Role with name X already exists."
    #[error("{0}")]
    EntityAlreadyExists(String),
    /// `NoSuchEntity` (404), e.g. "The role with name X cannot be found."
    #[error("{0}")]
    NoSuchEntity(String),
    /// `DeleteConflict` (409): the entity still has policies or attachments.
    #[error("{0}")]
    DeleteConflict(String),
    /// `MalformedPolicyDocument` (400): the document is not a JSON policy.
    #[error("{0}")]
    MalformedPolicyDocument(String),
    /// `InvalidInput` (400), e.g. a path that does not begin and end with `/`.
    #[error("{0}")]
    InvalidInput(String),
    /// `ValidationError` (400): a member outside its length, pattern or range (Coral wording).
    #[error("{0}")]
    Validation(String),
    /// `LimitExceeded` (409): too many tags or attachments.
    #[error("{0}")]
    LimitExceeded(String),
}

impl Error {
    /// The AWS error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::EntityAlreadyExists(_) => "EntityAlreadyExists",
            Error::NoSuchEntity(_) => "NoSuchEntity",
            Error::DeleteConflict(_) => "DeleteConflict",
            Error::MalformedPolicyDocument(_) => "MalformedPolicyDocument",
            Error::InvalidInput(_) => "InvalidInput",
            Error::Validation(_) => "ValidationError",
            Error::LimitExceeded(_) => "LimitExceeded",
        }
    }

    /// `The role with name <name> cannot be found.`
    pub fn no_such_role(name: &str) -> Error {
        Error::NoSuchEntity(format!("The role with name {name} cannot be found."))
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
