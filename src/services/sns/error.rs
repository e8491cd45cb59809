//! `sns::Error`: the SNS API's error shapes (botocore `sns/2010-03-31`) with the messages AWS
//! sends (LocalStack's `tests/aws/services/sns/test_sns.snapshot.json`, recorded against AWS).
//! No HTTP here: `protocol::wire::sns` maps each variant to its code and status.

/// An error of an SNS operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `NotFound` (404): "Topic does not exist" / "Subscription does not exist". The dispatcher
    /// branches on this variant (a missing topic is a failed invocation).
    #[error("{0}")]
    NotFound(String),
    /// `InvalidParameter` (400): the message always starts with `Invalid parameter: ` except
    /// the few AWS words otherwise ("Invalid token").
    #[error("{0}")]
    InvalidParameter(String),
    /// `ParameterValueInvalid` (400, shape InvalidParameterValueException): message attributes.
    #[error("{0}")]
    ParameterValueInvalid(String),
    /// `ResourceNotFound` (404): tagging a resource that does not exist.
    #[error("{0}")]
    ResourceNotFound(String),
    /// `TagLimitExceeded` (400): more than 50 tags.
    #[error("{0}")]
    TagLimitExceeded(String),
    /// `EmptyBatchRequest` (400).
    #[error("{0}")]
    EmptyBatchRequest(String),
    /// `TooManyEntriesInBatchRequest` (400).
    #[error("{0}")]
    TooManyEntriesInBatchRequest(String),
    /// `BatchEntryIdsNotDistinct` (400).
    #[error("{0}")]
    BatchEntryIdsNotDistinct(String),
    /// `InvalidBatchEntryId` (400).
    #[error("{0}")]
    InvalidBatchEntryId(String),
    /// `BatchRequestTooLong` (400).
    #[error("{0}")]
    BatchRequestTooLong(String),
}

impl Error {
    /// The AWS error code (the `<Code>` on the wire).
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotFound(_) => "NotFound",
            Error::InvalidParameter(_) => "InvalidParameter",
            Error::ParameterValueInvalid(_) => "ParameterValueInvalid",
            Error::ResourceNotFound(_) => "ResourceNotFound",
            Error::TagLimitExceeded(_) => "TagLimitExceeded",
            Error::EmptyBatchRequest(_) => "EmptyBatchRequest",
            Error::TooManyEntriesInBatchRequest(_) => "TooManyEntriesInBatchRequest",
            Error::BatchEntryIdsNotDistinct(_) => "BatchEntryIdsNotDistinct",
            Error::InvalidBatchEntryId(_) => "InvalidBatchEntryId",
            Error::BatchRequestTooLong(_) => "BatchRequestTooLong",
        }
    }

    /// The message (also what `Display` prints).
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// `Invalid parameter: <what>`.
    pub fn invalid(what: &str) -> Error {
        Error::InvalidParameter(format!("Invalid parameter: {what}"))
    }

    /// `Topic does not exist` (NotFound).
    pub fn topic_not_found() -> Error {
        Error::NotFound("Topic does not exist".to_string())
    }

    /// `Subscription does not exist` (NotFound).
    pub fn subscription_not_found() -> Error {
        Error::NotFound("Subscription does not exist".to_string())
    }
}
