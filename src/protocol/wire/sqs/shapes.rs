//! SQS's operations and shapes, shared by both protocols: the `Operation` enum, each
//! operation's input (deserialised from awsJson by serde, built from awsQuery forms by
//! `query.rs`), the protocol-neutral `Output`, and the two codes of each error. Data only: no
//! decoding or encoding here, so `mod.rs` (awsJson, the core calls) and `query.rs` (awsQuery)
//! both depend on it and not on each other's files.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Deserialize;

use crate::services::sqs::{self, BatchResult, ReceivedMessage, SentMessage};

crate::protocol::wire::operations! {
    /// The SQS operations of the model (the permission and message-move ones are refused as
    /// unsupported).
    CreateQueue,
    GetQueueUrl,
    DeleteQueue,
    GetQueueAttributes,
    SetQueueAttributes,
    SendMessage,
    SendMessageBatch,
    ReceiveMessage,
    DeleteMessage,
    DeleteMessageBatch,
    ChangeMessageVisibility,
    ChangeMessageVisibilityBatch,
    PurgeQueue,
    ListQueues,
    ListDeadLetterSourceQueues,
    TagQueue,
    UntagQueue,
    ListQueueTags,
    AddPermission,
    RemovePermission,
    StartMessageMoveTask,
    CancelMessageMoveTask,
    ListMessageMoveTasks,
}

impl Operation {
    /// Whether the operation reads only (its answer needs no storage commit).
    pub(super) fn is_read(self) -> bool {
        matches!(
            self,
            Operation::GetQueueUrl
                | Operation::GetQueueAttributes
                | Operation::ListQueues
                | Operation::ListDeadLetterSourceQueues
                | Operation::ListQueueTags
        )
    }
}

/// `(shape name for __type, query code for x-amzn-query-error)` of an SQS error, as AWS sends
/// them (LocalStack's snapshots of real AWS, `QueryErrorCode` vs `Code`).
pub(super) fn codes(err: &sqs::Error) -> (&'static str, &'static str) {
    use sqs::Error as E;
    match err {
        E::QueueDoesNotExist => (
            "QueueDoesNotExist",
            "AWS.SimpleQueueService.NonExistentQueue",
        ),
        E::QueueNameExists(_) => ("QueueNameExists", "QueueAlreadyExists"),
        E::InvalidAttributeName(_) => ("InvalidAttributeName", "InvalidAttributeName"),
        E::InvalidAttributeValue(_) => ("InvalidAttributeValue", "InvalidAttributeValue"),
        E::InvalidParameterValue(_) => ("InvalidParameterValueException", "InvalidParameterValue"),
        E::MissingParameter(_) => ("MissingRequiredParameterException", "MissingParameter"),
        E::ReceiptHandleIsInvalid(_) => ("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid"),
        E::InvalidAddress(_) => ("InvalidAddress", "InvalidAddress"),
        E::InvalidMessageContents(_) => ("InvalidMessageContents", "InvalidMessageContents"),
        E::EmptyBatchRequest(_) => (
            "EmptyBatchRequest",
            "AWS.SimpleQueueService.EmptyBatchRequest",
        ),
        E::TooManyEntriesInBatchRequest(_) => (
            "TooManyEntriesInBatchRequest",
            "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
        ),
        E::BatchEntryIdsNotDistinct(_) => (
            "BatchEntryIdsNotDistinct",
            "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
        ),
        E::InvalidBatchEntryId(_) => (
            "InvalidBatchEntryId",
            "AWS.SimpleQueueService.InvalidBatchEntryId",
        ),
        E::BatchRequestTooLong(_) => (
            "BatchRequestTooLong",
            "AWS.SimpleQueueService.BatchRequestTooLong",
        ),
        E::PurgeQueueInProgress(_) => (
            "PurgeQueueInProgress",
            "AWS.SimpleQueueService.PurgeQueueInProgress",
        ),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct WireAttributeValue {
    pub(super) data_type: Option<String>,
    pub(super) string_value: Option<String>,
    pub(super) binary_value: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct WireMessage {
    pub(super) id: Option<String>,
    pub(super) message_body: Option<String>,
    pub(super) delay_seconds: Option<i64>,
    pub(super) message_attributes: Option<BTreeMap<String, WireAttributeValue>>,
    pub(super) message_system_attributes: Option<BTreeMap<String, WireAttributeValue>>,
    pub(super) message_deduplication_id: Option<String>,
    pub(super) message_group_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreateQueueInput {
    pub(super) queue_name: Option<String>,
    pub(super) attributes: Option<IndexMap<String, String>>,
    pub(super) tags: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct GetQueueUrlInput {
    pub(super) queue_name: Option<String>,
    #[serde(rename = "QueueOwnerAWSAccountId")]
    pub(super) queue_owner_aws_account_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct QueueInput {
    pub(super) queue_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct GetQueueAttributesInput {
    pub(super) queue_url: Option<String>,
    pub(super) attribute_names: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SetQueueAttributesInput {
    pub(super) queue_url: Option<String>,
    pub(super) attributes: Option<IndexMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SendMessageInput {
    pub(super) queue_url: Option<String>,
    #[serde(flatten)]
    pub(super) message: WireMessage,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SendMessageBatchInput {
    pub(super) queue_url: Option<String>,
    pub(super) entries: Option<Vec<WireMessage>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct WireReceiveInput {
    pub(super) queue_url: Option<String>,
    pub(super) attribute_names: Option<Vec<String>>,
    pub(super) message_system_attribute_names: Option<Vec<String>>,
    pub(super) message_attribute_names: Option<Vec<String>>,
    pub(super) max_number_of_messages: Option<i64>,
    pub(super) visibility_timeout: Option<i64>,
    pub(super) wait_time_seconds: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DeleteMessageInput {
    pub(super) queue_url: Option<String>,
    pub(super) receipt_handle: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct WireHandleEntry {
    pub(super) id: Option<String>,
    pub(super) receipt_handle: Option<String>,
    pub(super) visibility_timeout: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct HandleBatchInput {
    pub(super) queue_url: Option<String>,
    pub(super) entries: Option<Vec<WireHandleEntry>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ChangeVisibilityInput {
    pub(super) queue_url: Option<String>,
    pub(super) receipt_handle: Option<String>,
    pub(super) visibility_timeout: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListQueuesInput {
    pub(super) queue_name_prefix: Option<String>,
    pub(super) next_token: Option<String>,
    pub(super) max_results: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct TagQueueInput {
    pub(super) queue_url: Option<String>,
    pub(super) tags: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct UntagQueueInput {
    pub(super) queue_url: Option<String>,
    pub(super) tag_keys: Option<Vec<String>>,
}

/// What an operation answers, before it is written in the request's protocol.
pub(super) enum Output {
    /// Operations without output members.
    Empty,
    /// CreateQueue, GetQueueUrl.
    QueueUrl(String),
    /// GetQueueAttributes.
    Attributes(IndexMap<String, String>),
    /// SendMessage.
    Sent(SentMessage),
    /// SendMessageBatch.
    SentBatch(BatchResult<SentMessage>),
    /// ReceiveMessage.
    Received(Vec<ReceivedMessage>),
    /// DeleteMessageBatch, ChangeMessageVisibilityBatch: the entry ids.
    Ids(BatchResult<()>),
    /// ListQueues.
    QueueUrls(Vec<String>, Option<String>),
    /// ListDeadLetterSourceQueues.
    DeadLetterSourceQueues(Vec<String>),
    /// ListQueueTags.
    Tags(BTreeMap<String, String>),
}
