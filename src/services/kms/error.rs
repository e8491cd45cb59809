//! `kms::Error`: the AWS KMS error shapes (botocore `kms/2014-11-01`) with AWS's messages.
//! No HTTP here.

/// An error of a KMS operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `NotFoundException`: "Key '<arn>' does not exist", "Invalid keyId '<id>'",
    /// "Alias <arn> is not found.".
    #[error("{0}")]
    NotFound(String),
    /// `AlreadyExistsException`: "An alias with the name <arn> already exists".
    #[error("{0}")]
    AlreadyExists(String),
    /// `KMSInvalidStateException`: "<key arn> is pending deletion.".
    #[error("{0}")]
    KmsInvalidState(String),
    /// `MalformedPolicyDocumentException`: the key policy is not a JSON object.
    #[error("{0}")]
    MalformedPolicyDocument(String),
    /// `UnsupportedOperationException`: rotation of an asymmetric or HMAC key.
    #[error("{0}")]
    UnsupportedOperation(String),
    /// `NotAuthorizedException`: an alias in the reserved `alias/aws/` namespace.
    #[error("{0}")]
    NotAuthorized(String),
    /// `TagException`: too many tags or a bad key or value.
    #[error("{0}")]
    Tag(String),
    /// `ValidationException`: a member outside its length, range or enum (Coral wording), or
    /// an alias name without `alias/`.
    #[error("{0}")]
    Validation(String),
}

impl Error {
    /// The AWS error code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotFound(_) => "NotFoundException",
            Error::AlreadyExists(_) => "AlreadyExistsException",
            Error::KmsInvalidState(_) => "KMSInvalidStateException",
            Error::MalformedPolicyDocument(_) => "MalformedPolicyDocumentException",
            Error::UnsupportedOperation(_) => "UnsupportedOperationException",
            Error::NotAuthorized(_) => "NotAuthorizedException",
            Error::Tag(_) => "TagException",
            Error::Validation(_) => "ValidationException",
        }
    }
}

impl From<crate::coral::Invalid> for Error {
    fn from(invalid: crate::coral::Invalid) -> Error {
        Error::Validation(invalid.0)
    }
}
