//! SQS data: queue attributes with AWS's ranges and defaults, messages and their attributes,
//! and the MD5 digests SQS returns (`MD5OfMessageBody`, `MD5OfMessageAttributes`). Pure: no
//! clock, no locks; the queue state machine lives in `queue.rs`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use super::Error;

/// Largest `MaximumMessageSize` and default (1 MiB, since August 2025), also the cap of a
/// whole batch request.
pub const MAX_MESSAGE_SIZE: i64 = 1_048_576;
/// At most this many messages in one receive and entries in one batch.
pub const MAX_BATCH_ENTRIES: usize = 10;
/// At most this many user message attributes on a message.
pub const MAX_MESSAGE_ATTRIBUTES: usize = 10;
/// The FIFO deduplication interval (5 minutes).
pub const DEDUP_INTERVAL_SECONDS: i64 = 300;
/// Longest visibility timeout (12 hours).
pub const MAX_VISIBILITY_TIMEOUT: i64 = 43_200;

/// A user message attribute (`MessageAttributeValue`): `DataType` is `String`, `Number` or
/// `Binary`, optionally followed by `.<custom label>`; String and Number carry
/// `string_value`, Binary carries `binary_value` (raw bytes; base64 only on the wire).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageAttributeValue {
    /// `String`, `Number`, `Binary`, or one of them with a `.label` suffix.
    pub data_type: String,
    /// The value of a String or Number attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_value: Option<String>,
    /// The value of a Binary attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_value: Option<Vec<u8>>,
}

impl MessageAttributeValue {
    /// A `String` attribute.
    pub fn string(value: impl Into<String>) -> MessageAttributeValue {
        MessageAttributeValue {
            data_type: "String".to_string(),
            string_value: Some(value.into()),
            binary_value: None,
        }
    }

    fn is_binary(&self) -> bool {
        self.data_type.starts_with("Binary")
    }

    /// Bytes this attribute counts towards the message size (name + type + value).
    fn size(&self, name: &str) -> usize {
        name.len()
            + self.data_type.len()
            + self.string_value.as_ref().map_or(0, String::len)
            + self.binary_value.as_ref().map_or(0, Vec::len)
    }
}

/// Message attributes, sorted by name (the order the MD5 digest uses).
pub type MessageAttributes = BTreeMap<String, MessageAttributeValue>;

/// Bytes a message counts against `MaximumMessageSize` and the batch limit: the body plus each
/// attribute's name, type and value.
pub fn message_size(body: &str, attributes: &MessageAttributes) -> usize {
    body.len() + attributes.iter().map(|(k, v)| v.size(k)).sum::<usize>()
}

/// A message to send (SendMessage input without the queue).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// The body (1 byte up to the queue's `MaximumMessageSize`, counting attributes).
    pub body: String,
    /// User message attributes (at most 10).
    pub message_attributes: MessageAttributes,
    /// Per-message delay in seconds (0–900; standard queues only). `None` uses the queue's
    /// `DelaySeconds`.
    pub delay_seconds: Option<i64>,
    /// The message group (required on FIFO queues; optional on standard "fair" queues).
    pub message_group_id: Option<String>,
    /// FIFO deduplication id (else the SHA-256 of the body with ContentBasedDeduplication).
    pub message_deduplication_id: Option<String>,
    /// The `AWSTraceHeader` system attribute (X-Ray), if any.
    pub aws_trace_header: Option<String>,
}

impl OutgoingMessage {
    /// A message with only a body.
    pub fn new(body: impl Into<String>) -> OutgoingMessage {
        OutgoingMessage {
            body: body.into(),
            ..OutgoingMessage::default()
        }
    }

    /// Adds a `String` message attribute.
    pub fn with_string_attribute(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> OutgoingMessage {
        self.message_attributes
            .insert(name.into(), MessageAttributeValue::string(value));
        self
    }
}

/// What SendMessage answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentMessage {
    /// The message id (a UUID).
    pub message_id: String,
    /// Hex MD5 of the body's UTF-8 bytes.
    pub md5_of_message_body: String,
    /// Hex MD5 of the user attributes (AWS's algorithm), when there are any.
    pub md5_of_message_attributes: Option<String>,
    /// Hex MD5 of the system attributes (`AWSTraceHeader`), when there are any.
    pub md5_of_message_system_attributes: Option<String>,
    /// FIFO queues only: the 20-digit sequence number.
    pub sequence_number: Option<String>,
}

/// ReceiveMessage input (the queue aside).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiveMessageInput {
    /// 1–10 (default 1).
    pub max_number_of_messages: Option<i64>,
    /// Visibility timeout of the received messages, 0–43200 s (default: the queue's).
    pub visibility_timeout: Option<i64>,
    /// Long-poll wait, 0–20 s of wall time (default: the queue's
    /// `ReceiveMessageWaitTimeSeconds`).
    pub wait_time_seconds: Option<i64>,
    /// System attributes to return (`AttributeNames` ∪ `MessageSystemAttributeNames`):
    /// `All` or names such as `SentTimestamp`, `ApproximateReceiveCount`.
    pub attribute_names: Vec<String>,
    /// User attributes to return: `All`, `.*`, `*`, a `prefix.*`, or exact names.
    pub message_attribute_names: Vec<String>,
}

/// One received message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceivedMessage {
    /// The message id.
    pub message_id: String,
    /// The handle that deletes it or changes its visibility (new on every receive).
    pub receipt_handle: String,
    /// Hex MD5 of the body.
    pub md5_of_body: String,
    /// The body, byte-exact.
    pub body: String,
    /// The system attributes asked for (epoch-millisecond timestamps as decimal strings).
    pub attributes: BTreeMap<String, String>,
    /// Hex MD5 of the returned user attributes, when any are returned.
    pub md5_of_message_attributes: Option<String>,
    /// The user attributes asked for.
    pub message_attributes: MessageAttributes,
}

/// A queue's identity: what CreateQueue and GetQueueUrl lead to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queue {
    /// The queue name (`.fifo` suffix for FIFO queues).
    pub name: String,
    /// `{endpoint}/{account}/{name}`.
    pub url: String,
    /// `arn:aws:sqs:{region}:{account}:{name}`.
    pub arn: String,
}

/// The outcome of one entry of a batch operation.
pub type BatchResult<T> = Vec<(String, Result<T, Error>)>;

/// One SendMessageBatch entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchEntry<T> {
    /// The caller's entry id (`[A-Za-z0-9_-]{1,80}`, distinct within the batch).
    pub id: String,
    /// The entry itself.
    pub value: T,
}

/// The settable queue attributes, with AWS's defaults. Values are kept as AWS echoes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueAttributes {
    /// `DelaySeconds`, 0–900 (default 0).
    pub delay_seconds: i64,
    /// `MaximumMessageSize`, 1024–1048576 bytes (default 1048576).
    pub maximum_message_size: i64,
    /// `MessageRetentionPeriod`, 60–1209600 s (default 345600, 4 days).
    pub message_retention_period: i64,
    /// `ReceiveMessageWaitTimeSeconds`, 0–20 (default 0).
    pub receive_message_wait_time_seconds: i64,
    /// `VisibilityTimeout`, 0–43200 s (default 30).
    pub visibility_timeout: i64,
    /// `Policy` (IAM policy JSON), when set.
    pub policy: Option<String>,
    /// `RedrivePolicy` JSON as given, when set.
    pub redrive_policy: Option<String>,
    /// `RedriveAllowPolicy` JSON as given, when set.
    pub redrive_allow_policy: Option<String>,
    /// `KmsMasterKeyId`, when set.
    pub kms_master_key_id: Option<String>,
    /// `KmsDataKeyReusePeriodSeconds`, 60–86400 (default 300).
    pub kms_data_key_reuse_period_seconds: i64,
    /// `SqsManagedSseEnabled` (default true; false once a KMS key is set).
    pub sqs_managed_sse_enabled: bool,
    /// `ContentBasedDeduplication` (FIFO only, default false).
    pub content_based_deduplication: bool,
    /// `DeduplicationScope`: `queue` or `messageGroup` (FIFO only, default `queue`).
    pub deduplication_scope: String,
    /// `FifoThroughputLimit`: `perQueue` or `perMessageGroupId` (FIFO only, default `perQueue`).
    pub fifo_throughput_limit: String,
}

impl Default for QueueAttributes {
    fn default() -> Self {
        QueueAttributes {
            delay_seconds: 0,
            maximum_message_size: MAX_MESSAGE_SIZE,
            message_retention_period: 345_600,
            receive_message_wait_time_seconds: 0,
            visibility_timeout: 30,
            policy: None,
            redrive_policy: None,
            redrive_allow_policy: None,
            kms_master_key_id: None,
            kms_data_key_reuse_period_seconds: 300,
            sqs_managed_sse_enabled: true,
            content_based_deduplication: false,
            deduplication_scope: "queue".to_string(),
            fifo_throughput_limit: "perQueue".to_string(),
        }
    }
}

/// Attributes GetQueueAttributes computes rather than stores.
pub const COMPUTED_ATTRIBUTES: &[&str] = &[
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "QueueArn",
];

/// Every attribute name GetQueueAttributes knows (besides `All`).
pub const KNOWN_ATTRIBUTES: &[&str] = &[
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
    "CreatedTimestamp",
    "DelaySeconds",
    "LastModifiedTimestamp",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "Policy",
    "QueueArn",
    "ReceiveMessageWaitTimeSeconds",
    "RedrivePolicy",
    "RedriveAllowPolicy",
    "VisibilityTimeout",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "SqsManagedSseEnabled",
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
];

/// A parsed `RedrivePolicy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedrivePolicy {
    /// ARN of the dead-letter queue.
    pub dead_letter_target_arn: String,
    /// Receives after which a message moves there (1–1000).
    pub max_receive_count: u32,
}

impl RedrivePolicy {
    /// Parses a RedrivePolicy JSON document (`maxReceiveCount` as a number or a string).
    pub fn parse(text: &str) -> Result<RedrivePolicy, Error> {
        let bad = |reason: &str| Error::invalid_parameter(text, "RedrivePolicy", reason);
        let doc: serde_json::Value = serde_json::from_str(text)
            .map_err(|_| bad("Redrive policy is not a valid JSON map."))?;
        let map = doc
            .as_object()
            .ok_or_else(|| bad("Redrive policy is not a valid JSON map."))?;
        let arn = map
            .get("deadLetterTargetArn")
            .and_then(|v| v.as_str())
            .ok_or_else(|| {
                bad("Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
            })?;
        let count = map.get("maxReceiveCount").ok_or_else(|| {
            bad("Redrive policy does not contain mandatory attribute: maxReceiveCount.")
        })?;
        let shown = match count {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let n = match count {
            serde_json::Value::Number(n) => n.as_i64(),
            serde_json::Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        match n {
            Some(n @ 1..=1000) => Ok(RedrivePolicy {
                dead_letter_target_arn: arn.to_string(),
                max_receive_count: n as u32,
            }),
            _ => Err(bad(&format!(
                "Invalid value for maxReceiveCount: {shown}, valid values are from 1 to 1000 both inclusive."
            ))),
        }
    }

    /// The document as GetQueueAttributes shows it: `maxReceiveCount` as a number.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "deadLetterTargetArn": self.dead_letter_target_arn,
            "maxReceiveCount": self.max_receive_count,
        })
        .to_string()
    }
}

fn parse_int(name: &str, value: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, Error> {
    match value.trim().parse::<i64>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(Error::invalid_attribute_value(name)),
    }
}

/// `true`/`false`, any case (AWS accepts `True`).
pub fn parse_bool(value: &str) -> Option<bool> {
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

impl QueueAttributes {
    /// Applies one settable attribute (CreateQueue or SetQueueAttributes) to a queue whose type
    /// is `fifo`. `FifoQueue` itself is checked by the caller. Returns the parsed redrive
    /// policy when `name` is `RedrivePolicy` (the caller checks the dead-letter queue).
    pub fn apply(
        &mut self,
        fifo: bool,
        name: &str,
        value: &str,
    ) -> Result<Option<RedrivePolicy>, Error> {
        match name {
            "DelaySeconds" => self.delay_seconds = parse_int(name, value, 0..=900)?,
            "MaximumMessageSize" => {
                self.maximum_message_size = parse_int(name, value, 1024..=MAX_MESSAGE_SIZE)?
            }
            "MessageRetentionPeriod" => {
                self.message_retention_period = parse_int(name, value, 60..=1_209_600)?
            }
            "ReceiveMessageWaitTimeSeconds" => {
                self.receive_message_wait_time_seconds = parse_int(name, value, 0..=20)?
            }
            "VisibilityTimeout" => {
                self.visibility_timeout = parse_int(name, value, 0..=MAX_VISIBILITY_TIMEOUT)?
            }
            "KmsDataKeyReusePeriodSeconds" => {
                self.kms_data_key_reuse_period_seconds = parse_int(name, value, 60..=86_400)?
            }
            "SqsManagedSseEnabled" => {
                self.sqs_managed_sse_enabled =
                    parse_bool(value).ok_or_else(|| Error::invalid_attribute_value(name))?
            }
            "KmsMasterKeyId" => {
                if value.is_empty() {
                    self.kms_master_key_id = None;
                } else {
                    self.kms_master_key_id = Some(value.to_string());
                    self.sqs_managed_sse_enabled = false;
                }
            }
            "Policy" => {
                if value.is_empty() {
                    self.policy = None;
                } else {
                    let doc: serde_json::Value = serde_json::from_str(value)
                        .map_err(|_| Error::invalid_attribute_value(name))?;
                    if !doc.is_object() {
                        return Err(Error::invalid_attribute_value(name));
                    }
                    self.policy = Some(value.to_string());
                }
            }
            "RedrivePolicy" => {
                if value.is_empty() {
                    self.redrive_policy = None;
                } else {
                    let policy = RedrivePolicy::parse(value)?;
                    self.redrive_policy = Some(policy.to_json());
                    return Ok(Some(policy));
                }
            }
            "RedriveAllowPolicy" => {
                if value.is_empty() {
                    self.redrive_allow_policy = None;
                } else {
                    let doc: serde_json::Value = serde_json::from_str(value).map_err(|_| {
                        Error::invalid_parameter(
                            value,
                            "RedriveAllowPolicy",
                            "Amazon SQS can't create the redrive allow policy, as it’s in an unsupported format.",
                        )
                    })?;
                    if !doc.is_object() {
                        return Err(Error::invalid_attribute_value(name));
                    }
                    self.redrive_allow_policy = Some(value.to_string());
                }
            }
            "ContentBasedDeduplication" if fifo => {
                self.content_based_deduplication =
                    parse_bool(value).ok_or_else(|| Error::invalid_attribute_value(name))?
            }
            "DeduplicationScope" | "FifoThroughputLimit" if !fifo => {
                return Err(Error::InvalidAttributeName(format!(
                    "You can specify the {name} only when FifoQueue is set to true."
                )))
            }
            "DeduplicationScope" => match value {
                "queue" | "messageGroup" => self.deduplication_scope = value.to_string(),
                _ => return Err(Error::invalid_attribute_value(name)),
            },
            "FifoThroughputLimit" => match value {
                "perQueue" | "perMessageGroupId" => self.fifo_throughput_limit = value.to_string(),
                _ => return Err(Error::invalid_attribute_value(name)),
            },
            _ => return Err(Error::unknown_attribute(name)),
        }
        Ok(None)
    }

    /// The stored (non-computed) attributes as GetQueueAttributes shows them, in AWS's order.
    pub fn shown(&self, fifo: bool) -> Vec<(&'static str, String)> {
        let mut out = vec![
            ("DelaySeconds", self.delay_seconds.to_string()),
            ("MaximumMessageSize", self.maximum_message_size.to_string()),
            (
                "MessageRetentionPeriod",
                self.message_retention_period.to_string(),
            ),
            (
                "ReceiveMessageWaitTimeSeconds",
                self.receive_message_wait_time_seconds.to_string(),
            ),
            ("VisibilityTimeout", self.visibility_timeout.to_string()),
            (
                "SqsManagedSseEnabled",
                self.sqs_managed_sse_enabled.to_string(),
            ),
        ];
        if let Some(p) = &self.policy {
            out.push(("Policy", p.clone()));
        }
        if let Some(p) = &self.redrive_policy {
            out.push(("RedrivePolicy", p.clone()));
        }
        if let Some(p) = &self.redrive_allow_policy {
            out.push(("RedriveAllowPolicy", p.clone()));
        }
        if let Some(k) = &self.kms_master_key_id {
            out.push(("KmsMasterKeyId", k.clone()));
            out.push((
                "KmsDataKeyReusePeriodSeconds",
                self.kms_data_key_reuse_period_seconds.to_string(),
            ));
        }
        if fifo {
            out.push(("FifoQueue", "true".to_string()));
            out.push((
                "ContentBasedDeduplication",
                self.content_based_deduplication.to_string(),
            ));
            out.push(("DeduplicationScope", self.deduplication_scope.clone()));
            out.push(("FifoThroughputLimit", self.fifo_throughput_limit.clone()));
        }
        out
    }

    /// The parsed redrive policy, if one is set.
    pub fn redrive(&self) -> Option<RedrivePolicy> {
        self.redrive_policy
            .as_deref()
            .and_then(|p| RedrivePolicy::parse(p).ok())
    }
}

/// Hex MD5 of `bytes`.
pub fn md5_hex(bytes: &[u8]) -> String {
    hex::encode(Md5::digest(bytes))
}

/// `MD5OfMessageAttributes` exactly as SQS computes it (SQS developer guide, "Calculating the
/// MD5 message digest for message attributes"): for each attribute in name order, the name,
/// the data type and the value, each as a 4-byte big-endian length plus its bytes, with a
/// transport byte (1 = String/Number, 2 = Binary) before the value. `None` when empty.
pub fn md5_of_attributes(attributes: &MessageAttributes) -> Option<String> {
    if attributes.is_empty() {
        return None;
    }
    let mut buf = Vec::new();
    let push = |bytes: &[u8], buf: &mut Vec<u8>| {
        buf.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        buf.extend_from_slice(bytes);
    };
    for (name, value) in attributes {
        push(name.as_bytes(), &mut buf);
        push(value.data_type.as_bytes(), &mut buf);
        if value.is_binary() {
            buf.push(2);
            push(value.binary_value.as_deref().unwrap_or_default(), &mut buf);
        } else {
            buf.push(1);
            push(
                value.string_value.as_deref().unwrap_or_default().as_bytes(),
                &mut buf,
            );
        }
    }
    Some(md5_hex(&buf))
}

/// Checks message text against SQS's allowed characters (`#x9 | #xA | #xD | #x20 to #xD7FF |
/// #xE000 to #xFFFD | #x10000 to #x10FFFF`).
pub fn check_message_characters(body: &str) -> Result<(), Error> {
    let bad = body.chars().find(|c| {
        let c = u32::from(*c);
        !(c == 0x9
            || c == 0xA
            || c == 0xD
            || (0x20..=0xD7FF).contains(&c)
            || (0xE000..=0xFFFD).contains(&c)
            || (0x10000..=0x10FFFF).contains(&c))
    });
    match bad {
        None => Ok(()),
        Some(c) => Err(Error::InvalidMessageContents(format!(
            "Invalid binary character '#x{:X}' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF",
            u32::from(c)
        ))),
    }
}

/// Validates user message attributes; returns their size in bytes.
pub fn check_message_attributes(attributes: &MessageAttributes) -> Result<usize, Error> {
    if attributes.len() > MAX_MESSAGE_ATTRIBUTES {
        return Err(Error::InvalidParameterValue(format!(
            "Number of message attributes [{}] exceeds the allowed maximum [{MAX_MESSAGE_ATTRIBUTES}].",
            attributes.len()
        )));
    }
    for (name, value) in attributes {
        let lower = name.to_ascii_lowercase();
        if name.is_empty()
            || name.len() > 256
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(Error::InvalidParameterValue(
                "Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ".to_string(),
            ));
        }
        if lower.starts_with("aws.")
            || lower.starts_with("amazon.")
            || name.starts_with('.')
            || name.ends_with('.')
            || name.contains("..")
        {
            return Err(Error::InvalidParameterValue(
                "You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use. Additionally, they cannot start or end with '.'.".to_string(),
            ));
        }
        let base = value.data_type.split('.').next().unwrap_or_default();
        if value.data_type.is_empty() {
            return Err(Error::InvalidParameterValue(format!(
                "The message attribute '{name}' must contain non-empty message attribute type."
            )));
        }
        match base {
            "String" | "Number" => {
                let text = value.string_value.as_deref().unwrap_or_default();
                if text.is_empty() {
                    return Err(Error::InvalidParameterValue(format!(
                        "Message (user) attribute '{name}' must contain a non-empty value of type '{base}'."
                    )));
                }
                check_message_characters(text)
                    .map_err(|e| Error::InvalidParameterValue(e.message()))?;
                if base == "Number" && text.trim().parse::<f64>().is_err() {
                    return Err(Error::InvalidParameterValue(format!(
                        "Can't cast the value of message (user) attribute '{name}' to a number."
                    )));
                }
            }
            "Binary" => {
                if value.binary_value.as_ref().is_none_or(Vec::is_empty) {
                    return Err(Error::InvalidParameterValue(format!(
                        "Message (user) attribute '{name}' must contain a non-empty value of type 'Binary'."
                    )));
                }
            }
            _ => {
                return Err(Error::InvalidParameterValue(format!(
                    "The type of message (user) attribute '{name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String."
                )))
            }
        }
    }
    Ok(attributes.iter().map(|(k, v)| v.size(k)).sum())
}

/// Checks a MessageGroupId / MessageDeduplicationId: 1–128 characters of alphanumerics and
/// punctuation (recorded AWS message).
pub fn check_fifo_id(value: &str, parameter: &str) -> Result<(), Error> {
    let ok = (1..=128).contains(&value.chars().count())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_punctuation());
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            value,
            parameter,
            &format!(
                "{parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length."
            ),
        ))
    }
}

/// Milliseconds since the epoch as SQS writes message timestamps.
pub fn epoch_millis(t: DateTime<Utc>) -> String {
    t.timestamp_millis().to_string()
}
