//! SNS data: topics and subscriptions as stored, Publish input, attribute validation with AWS's
//! texts, and the JSON notification envelope SQS subscribers receive. Pure.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Error;

/// Largest message (body plus attributes), 256 KiB.
pub const MAX_MESSAGE_BYTES: usize = 262_144;
/// Most tags on a topic.
pub const MAX_TAGS: usize = 50;
/// Page size of the List* operations.
pub const PAGE_SIZE: usize = 100;

/// A message attribute of Publish (`MessageAttributeValue`): `DataType` is `String`,
/// `String.Array`, `Number` or `Binary` (optionally `.label`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishAttribute {
    /// The data type.
    pub data_type: String,
    /// String, String.Array and Number values.
    pub string_value: Option<String>,
    /// Binary values (raw bytes).
    pub binary_value: Option<Vec<u8>>,
}

impl PublishAttribute {
    /// A `String` attribute.
    pub fn string(value: impl Into<String>) -> PublishAttribute {
        PublishAttribute {
            data_type: "String".to_string(),
            string_value: Some(value.into()),
            binary_value: None,
        }
    }
}

/// Publish input (the topic aside).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublishInput {
    /// The message (1 byte to 256 KiB with its attributes).
    pub message: String,
    /// `Subject` (1–100 printable characters), shown in the envelope.
    pub subject: Option<String>,
    /// `MessageStructure`: `json` means `message` is a JSON object with a `default` entry and
    /// optional per-protocol entries (`sqs`).
    pub message_structure: Option<String>,
    /// Message attributes, in request order.
    pub message_attributes: Vec<(String, PublishAttribute)>,
    /// FIFO topics: the message group (required).
    pub message_group_id: Option<String>,
    /// FIFO topics: the deduplication id (else the body's SHA-256 with content-based
    /// deduplication).
    pub message_deduplication_id: Option<String>,
}

impl PublishInput {
    /// A plain message.
    pub fn new(message: impl Into<String>) -> PublishInput {
        PublishInput {
            message: message.into(),
            ..PublishInput::default()
        }
    }
}

/// What Publish answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// The message id (a UUID).
    pub message_id: String,
    /// FIFO topics only: the sequence number.
    pub sequence_number: Option<String>,
}

/// A topic as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topic {
    /// `arn:aws:sns:<region>:<account>:<name>`.
    pub arn: String,
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// Name (`.fifo` suffix for FIFO topics).
    pub name: String,
    /// FIFO topic.
    pub fifo: bool,
    /// Settable attributes as set (DisplayName, Policy, DeliveryPolicy, ...).
    pub attributes: BTreeMap<String, String>,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// Subscription ARNs of this topic.
    pub subscriptions: Vec<String>,
    /// Sequence counter (FIFO).
    pub next_sequence: u64,
}

/// A subscription as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    /// `<topic arn>:<uuid>`.
    pub arn: String,
    /// The topic.
    pub topic_arn: String,
    /// Owner account.
    pub owner: String,
    /// `sqs`, `http`, `https`, `email`, `email-json`, `lambda`, `sms`, `firehose`, `application`.
    pub protocol: String,
    /// The endpoint (a queue ARN for `sqs`).
    pub endpoint: String,
    /// Settable attributes as set (RawMessageDelivery, FilterPolicy, RedrivePolicy, ...).
    pub attributes: BTreeMap<String, String>,
    /// False until confirmed (http, https, email, email-json).
    pub confirmed: bool,
    /// The confirmation token of a pending subscription.
    pub token: Option<String>,
    /// When it was created.
    pub created: DateTime<Utc>,
}

impl Subscription {
    /// `RawMessageDelivery=true`.
    pub fn raw(&self) -> bool {
        self.attributes
            .get("RawMessageDelivery")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }
}

/// The protocols SNS accepts; whether a subscription needs confirmation.
pub fn protocol_needs_confirmation(protocol: &str) -> Option<bool> {
    match protocol {
        "http" | "https" | "email" | "email-json" => Some(true),
        "sqs" | "lambda" | "sms" | "firehose" | "application" => Some(false),
        _ => None,
    }
}

/// Topic attributes SetTopicAttributes / CreateTopic accept (besides FifoTopic).
pub const TOPIC_ATTRIBUTES: &[&str] = &[
    "DeliveryPolicy",
    "DisplayName",
    "Policy",
    "TracingConfig",
    "KmsMasterKeyId",
    "SignatureVersion",
    "ContentBasedDeduplication",
    "ArchivePolicy",
    "FifoThroughputScope",
    "DataProtectionPolicy",
    "ApplicationSuccessFeedbackRoleArn",
    "ApplicationSuccessFeedbackSampleRate",
    "ApplicationFailureFeedbackRoleArn",
    "HTTPSuccessFeedbackRoleArn",
    "HTTPSuccessFeedbackSampleRate",
    "HTTPFailureFeedbackRoleArn",
    "LambdaSuccessFeedbackRoleArn",
    "LambdaSuccessFeedbackSampleRate",
    "LambdaFailureFeedbackRoleArn",
    "SQSSuccessFeedbackRoleArn",
    "SQSSuccessFeedbackSampleRate",
    "SQSFailureFeedbackRoleArn",
    "FirehoseSuccessFeedbackRoleArn",
    "FirehoseSuccessFeedbackSampleRate",
    "FirehoseFailureFeedbackRoleArn",
];

/// Subscription attributes Subscribe / SetSubscriptionAttributes accept.
pub const SUBSCRIPTION_ATTRIBUTES: &[&str] = &[
    "DeliveryPolicy",
    "FilterPolicy",
    "FilterPolicyScope",
    "RawMessageDelivery",
    "RedrivePolicy",
    "SubscriptionRoleArn",
    "ReplayPolicy",
];

fn parse_json_attribute(name: &str, value: &str) -> Result<serde_json::Value, Error> {
    serde_json::from_str::<serde_json::Value>(value)
        .map_err(|e| Error::invalid(&format!("{name}: failed to parse JSON. {e}")))
}

/// Validates one topic attribute value (`fifo`: the topic's type).
pub fn check_topic_attribute(fifo: bool, name: &str, value: &str) -> Result<(), Error> {
    if !TOPIC_ATTRIBUTES.contains(&name) {
        return Err(Error::invalid("AttributeName"));
    }
    match name {
        "Policy" | "DeliveryPolicy" | "ArchivePolicy" | "DataProtectionPolicy"
            if !value.is_empty() =>
        {
            parse_json_attribute(name, value).map(|_| ())
        }
        "TracingConfig" if !matches!(value, "Active" | "PassThrough") => Err(Error::invalid(
            &format!("Attributes Reason: TracingConfig: Invalid value [{value}]. Must be Active or PassThrough."),
        )),
        "SignatureVersion" if !matches!(value, "1" | "2") => Err(Error::invalid(&format!(
            "Attributes Reason: SignatureVersion: Invalid value [{value}]. Must be 1 or 2."
        ))),
        "ContentBasedDeduplication" if !fifo => Err(Error::invalid(
            "Attributes Reason: ContentBasedDeduplication: Content based deduplication can only be set for FIFO topics",
        )),
        "ContentBasedDeduplication" if !matches!(value, "true" | "false") => Err(Error::invalid(
            &format!("Attributes Reason: ContentBasedDeduplication: Invalid value [{value}]. Must be true or false."),
        )),
        _ => Ok(()),
    }
}

/// Validates one subscription attribute value (recorded AWS texts for RawMessageDelivery,
/// FilterPolicy and RedrivePolicy). `prefix` is `"Attributes Reason: "` on Subscribe and empty
/// on SetSubscriptionAttributes, as AWS words them.
pub fn check_subscription_attribute(prefix: &str, name: &str, value: &str) -> Result<(), Error> {
    if !SUBSCRIPTION_ATTRIBUTES.contains(&name) {
        return Err(Error::invalid("AttributeName"));
    }
    match name {
        "RawMessageDelivery" if !matches!(value.to_ascii_lowercase().as_str(), "true" | "false") => {
            Err(Error::invalid(&format!(
                "{prefix}RawMessageDelivery: Invalid value [{value}]. Must be true or false."
            )))
        }
        "FilterPolicy" if !value.is_empty() => {
            let doc = serde_json::from_str::<serde_json::Value>(value).map_err(|e| {
                Error::invalid(&format!("{prefix}FilterPolicy: failed to parse JSON. {e}"))
            })?;
            if !doc.is_object() {
                return Err(Error::invalid(&format!(
                    "{prefix}FilterPolicy: Filter policy must be a JSON object"
                )));
            }
            Ok(())
        }
        "FilterPolicyScope" if !matches!(value, "MessageAttributes" | "MessageBody") => {
            Err(Error::invalid(&format!(
                "{prefix}FilterPolicyScope: Invalid value [{value}]. Please use either MessageBody or MessageAttributes"
            )))
        }
        "RedrivePolicy" if !value.is_empty() => {
            let doc = serde_json::from_str::<serde_json::Value>(value).map_err(|e| {
                Error::invalid(&format!("{prefix}RedrivePolicy: failed to parse JSON. {e}"))
            })?;
            let arn = doc.get("deadLetterTargetArn").and_then(|v| v.as_str());
            match arn {
                Some(a) if a.starts_with("arn:") && a.split(':').count() >= 6 => Ok(()),
                _ => Err(Error::invalid(&format!(
                    "{prefix}RedrivePolicy: deadLetterTargetArn is an invalid arn"
                ))),
            }
        }
        "DeliveryPolicy" | "ReplayPolicy" if !value.is_empty() => {
            parse_json_attribute(name, value).map(|_| ())
        }
        _ => Ok(()),
    }
}

/// Validates Publish message attributes (recorded AWS texts); returns their size in bytes.
pub fn check_attributes(attributes: &[(String, PublishAttribute)]) -> Result<usize, Error> {
    let bad = |m: String| Error::ParameterValueInvalid(m);
    let mut size = 0;
    for (name, a) in attributes {
        if name.len() >= 256 {
            return Err(bad(
                "Length of message attribute name must be less than 256 bytes.".to_string(),
            ));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(bad(format!(
                "Invalid non-alphanumeric character '#x{:X}' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.",
                u32::from(c)
            )));
        }
        if name.starts_with('.') {
            return Err(bad(
                "Invalid message attribute name starting with character '.' was found.".to_string(),
            ));
        }
        if name.ends_with('.') {
            return Err(bad(
                "Invalid message attribute name ending with character '.' was found.".to_string(),
            ));
        }
        if name.contains("..") {
            return Err(bad(
                "Message attribute name can not have successive '.' character.".to_string(),
            ));
        }
        let base = a.data_type.split('.').next().unwrap_or_default();
        match base {
            "String" | "Number" => {
                if a.string_value.is_none() && a.binary_value.is_some() {
                    return Err(bad(format!(
                        "The message attribute '{name}' with type '{base}' must use field 'String'."
                    )));
                }
                let text = a.string_value.as_deref().unwrap_or_default();
                if text.is_empty() {
                    return Err(bad(format!(
                        "The message attribute '{name}' must contain non-empty message attribute value for message attribute type '{base}'."
                    )));
                }
                if base == "Number" && text.trim().parse::<f64>().is_err() {
                    return Err(bad(format!(
                        "Could not cast message attribute '{name}' value to number."
                    )));
                }
                if a.data_type.starts_with("String.Array")
                    && !matches!(
                        serde_json::from_str::<serde_json::Value>(text),
                        Ok(serde_json::Value::Array(_))
                    )
                {
                    return Err(bad(format!(
                        "The message attribute '{name}' with type 'String.Array' has an invalid value: it must be a JSON array."
                    )));
                }
                size += text.len();
            }
            "Binary" => {
                if a.binary_value.is_none() && a.string_value.is_some() {
                    return Err(bad(format!(
                        "The message attribute '{name}' with type 'Binary' must use field 'Binary'."
                    )));
                }
                let bytes = a.binary_value.as_deref().unwrap_or_default();
                if bytes.is_empty() {
                    return Err(bad(format!(
                        "The message attribute '{name}' must contain non-empty message attribute value for message attribute type 'Binary'."
                    )));
                }
                size += bytes.len();
            }
            _ => {
                return Err(bad(format!(
                    "The message attribute '{name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."
                )))
            }
        }
        size += name.len() + a.data_type.len();
    }
    Ok(size)
}

/// Checks a topic name: 1–256 of `[A-Za-z0-9_-]`, plus `.fifo` for (and only for) FIFO topics.
pub fn check_topic_name(name: &str, fifo: bool) -> Result<(), Error> {
    let base = if fifo {
        name.strip_suffix(".fifo")
            .ok_or_else(|| Error::invalid("Topic Name"))?
    } else {
        name
    };
    let ok = !base.is_empty()
        && name.len() <= 256
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid("Topic Name"))
    }
}

/// Splits an SNS ARN; `what` names the parameter in AWS's message
/// ("Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not N").
pub fn check_arn(arn: &str, what: &str) -> Result<(), Error> {
    let n = arn.split(':').count();
    if n < 6 {
        return Err(Error::invalid(&format!(
            "{what} Reason: An ARN must have at least 6 elements, not {n}"
        )));
    }
    Ok(())
}

/// The default access policy AWS gives a new topic.
pub fn default_policy(topic_arn: &str, account: &str) -> String {
    serde_json::json!({
        "Version": "2008-10-17",
        "Id": "__default_policy_ID",
        "Statement": [{
            "Sid": "__default_statement_ID",
            "Effect": "Allow",
            "Principal": {"AWS": "*"},
            "Action": [
                "SNS:GetTopicAttributes",
                "SNS:SetTopicAttributes",
                "SNS:AddPermission",
                "SNS:RemovePermission",
                "SNS:DeleteTopic",
                "SNS:Subscribe",
                "SNS:ListSubscriptionsByTopic",
                "SNS:Publish"
            ],
            "Resource": topic_arn,
            "Condition": {"StringEquals": {"AWS:SourceOwner": account}}
        }]
    })
    .to_string()
}

/// The default EffectiveDeliveryPolicy.
pub const EFFECTIVE_DELIVERY_POLICY: &str = r#"{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}"#;

/// What the notification envelope carries.
pub struct Envelope<'a> {
    /// The message id.
    pub message_id: &'a str,
    /// FIFO sequence number.
    pub sequence_number: Option<&'a str>,
    /// The topic.
    pub topic_arn: &'a str,
    /// Subject, when given.
    pub subject: Option<&'a str>,
    /// The message for this protocol.
    pub message: &'a str,
    /// Publish time.
    pub timestamp: DateTime<Utc>,
    /// Base64 signature bytes.
    pub signature: &'a str,
    /// Signing certificate URL.
    pub signing_cert_url: &'a str,
    /// `{endpoint}/?Action=Unsubscribe&SubscriptionArn=...`.
    pub unsubscribe_url: &'a str,
    /// Message attributes.
    pub attributes: &'a [(String, PublishAttribute)],
}

fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

impl Envelope<'_> {
    /// The envelope as AWS writes it to an SQS subscriber: a JSON object, two-space indented,
    /// `"Key" : value` pairs in AWS's order; `MessageAttributes` values as
    /// `{"Type":"String","Value":"..."}` (Binary values base64).
    pub fn to_json(&self) -> String {
        use base64::Engine;
        let mut fields: Vec<(&str, String)> = vec![
            ("Type", quoted("Notification")),
            ("MessageId", quoted(self.message_id)),
        ];
        if let Some(s) = self.sequence_number {
            fields.push(("SequenceNumber", quoted(s)));
        }
        fields.push(("TopicArn", quoted(self.topic_arn)));
        if let Some(s) = self.subject {
            fields.push(("Subject", quoted(s)));
        }
        fields.push(("Message", quoted(self.message)));
        fields.push((
            "Timestamp",
            quoted(&crate::time::iso_millis(self.timestamp)),
        ));
        fields.push(("SignatureVersion", quoted("1")));
        fields.push(("Signature", quoted(self.signature)));
        fields.push(("SigningCertURL", quoted(self.signing_cert_url)));
        fields.push(("UnsubscribeURL", quoted(self.unsubscribe_url)));
        if !self.attributes.is_empty() {
            let items: Vec<String> = self
                .attributes
                .iter()
                .map(|(name, a)| {
                    let value = match &a.binary_value {
                        Some(b) => base64::engine::general_purpose::STANDARD.encode(b),
                        None => a.string_value.clone().unwrap_or_default(),
                    };
                    let kind = a.data_type.split('.').next().unwrap_or("String");
                    let kind = if a.data_type.starts_with("String.Array") {
                        "String.Array"
                    } else {
                        kind
                    };
                    format!(
                        "    {} : {{\"Type\":{},\"Value\":{}}}",
                        quoted(name),
                        quoted(kind),
                        quoted(&value)
                    )
                })
                .collect();
            fields.push((
                "MessageAttributes",
                format!("{{\n{}\n  }}", items.join(",\n")),
            ));
        }
        let body: Vec<String> = fields
            .into_iter()
            .map(|(k, v)| format!("  \"{k}\" : {v}"))
            .collect();
        format!("{{\n{}\n}}", body.join(",\n"))
    }
}
