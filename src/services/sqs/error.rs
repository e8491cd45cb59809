//! `sqs::Error`: the SQS API's error shapes (botocore `sqs/2012-11-05`), each carrying the
//! message AWS sends. No HTTP here: `protocol::wire::sqs` maps every variant to its JSON
//! `__type` and its `x-amzn-query-error` code.
//!
//! Messages come from responses recorded against real AWS where one exists (LocalStack's
//! `tests/aws/services/sqs/test_sqs.snapshot.json`); the few that are not recorded are marked
//! "unrecorded" on their constructor.

/// An error of an SQS operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `QueueDoesNotExist` (query code `AWS.SimpleQueueService.NonExistentQueue`): "The
    /// specified queue does not exist." The dispatcher and SNS branch on this variant.
    #[error("The specified queue does not exist.")]
    QueueDoesNotExist,
    /// `QueueNameExists` (query code `QueueAlreadyExists`): CreateQueue of an existing name
    /// with a different attribute value.
    #[error("{0}")]
    QueueNameExists(String),
    /// `InvalidAttributeName`: an unknown or misplaced queue attribute.
    #[error("{0}")]
    InvalidAttributeName(String),
    /// `InvalidAttributeValue`: a queue attribute value out of range or malformed.
    #[error("{0}")]
    InvalidAttributeValue(String),
    /// `InvalidParameterValueException` (query code `InvalidParameterValue`).
    #[error("{0}")]
    InvalidParameterValue(String),
    /// `MissingRequiredParameterException` (query code `MissingParameter`).
    #[error("{0}")]
    MissingParameter(String),
    /// `ReceiptHandleIsInvalid`: a receipt handle this queue never issued.
    #[error("{0}")]
    ReceiptHandleIsInvalid(String),
    /// `InvalidAddress`: a QueueUrl that does not name an account and a queue.
    #[error("{0}")]
    InvalidAddress(String),
    /// `InvalidMessageContents`: characters outside the allowed set.
    #[error("{0}")]
    InvalidMessageContents(String),
    /// `EmptyBatchRequest`: a batch without entries.
    #[error("{0}")]
    EmptyBatchRequest(String),
    /// `TooManyEntriesInBatchRequest`: more than 10 entries.
    #[error("{0}")]
    TooManyEntriesInBatchRequest(String),
    /// `BatchEntryIdsNotDistinct`: two entries share an Id.
    #[error("{0}")]
    BatchEntryIdsNotDistinct(String),
    /// `InvalidBatchEntryId`: an entry Id outside `[A-Za-z0-9_-]{1,80}`.
    #[error("{0}")]
    InvalidBatchEntryId(String),
    /// `BatchRequestTooLong`: the entries together exceed 1 MiB.
    #[error("{0}")]
    BatchRequestTooLong(String),
    /// `PurgeQueueInProgress`: a second PurgeQueue within 60 seconds.
    #[error("{0}")]
    PurgeQueueInProgress(String),
}

impl Error {
    /// The message (also what `Display` prints).
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// `Value <value> for parameter <name> is invalid. Reason: <reason>` (InvalidParameterValue),
    /// the form AWS uses for every out-of-range request parameter.
    pub fn invalid_parameter(value: impl std::fmt::Display, name: &str, reason: &str) -> Error {
        Error::InvalidParameterValue(format!(
            "Value {value} for parameter {name} is invalid. Reason: {reason}"
        ))
    }

    /// `The request must contain the parameter <name>.` (MissingParameter).
    pub fn missing_parameter(name: &str) -> Error {
        Error::MissingParameter(format!("The request must contain the parameter {name}."))
    }

    /// `Unknown Attribute <name>.` (InvalidAttributeName).
    pub fn unknown_attribute(name: &str) -> Error {
        Error::InvalidAttributeName(format!("Unknown Attribute {name}."))
    }

    /// `Invalid value for the parameter <name>.` (InvalidAttributeValue; AWS's text for an
    /// out-of-range queue attribute and for a malformed Policy).
    pub fn invalid_attribute_value(name: &str) -> Error {
        Error::InvalidAttributeValue(format!("Invalid value for the parameter {name}."))
    }

    /// `The input receipt handle "<handle>" is not a valid receipt handle.`
    pub fn receipt_handle_invalid(handle: &str) -> Error {
        Error::ReceiptHandleIsInvalid(format!(
            "The input receipt handle \"{handle}\" is not a valid receipt handle."
        ))
    }
}
