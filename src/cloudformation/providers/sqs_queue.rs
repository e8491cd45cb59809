//! `AWS::SQS::Queue` over the SQS core (aws-contract.md §5.3): properties become queue
//! attributes (numbers given as strings, RedrivePolicy as an object or JSON text); Ref is the
//! queue URL; GetAtt `Arn`, `QueueName`, `QueueUrl`. A generated name is
//! `<stack>-<LogicalId>-<RANDOM>` of at most 80 characters, `.fifo` kept for FIFO queues.
//! QueueName and FifoQueue are createOnly (a change replaces the queue); an in-place update
//! sets every mutable attribute, a property left out going back to its default (as AWS does).
//! A queue whose name already exists outside the stack is never adopted.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::sqs::{self, Sqs};

use super::props::{self, string};
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// Mutable queue attributes and the value each goes back to when its property is removed.
const MUTABLE: &[(&str, Option<&str>)] = &[
    ("DelaySeconds", Some("0")),
    ("MaximumMessageSize", Some("262144")),
    ("MessageRetentionPeriod", Some("345600")),
    ("ReceiveMessageWaitTimeSeconds", Some("0")),
    ("VisibilityTimeout", Some("30")),
    ("RedrivePolicy", Some("")),
    ("RedriveAllowPolicy", None),
    ("KmsMasterKeyId", None),
    ("KmsDataKeyReusePeriodSeconds", None),
    ("SqsManagedSseEnabled", None),
    ("ContentBasedDeduplication", None),
    ("DeduplicationScope", None),
    ("FifoThroughputLimit", None),
];

/// The properties the registry schema allows.
const KNOWN: &[&str] = &[
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "DelaySeconds",
    "FifoQueue",
    "FifoThroughputLimit",
    "KmsDataKeyReusePeriodSeconds",
    "KmsMasterKeyId",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "QueueName",
    "ReceiveMessageWaitTimeSeconds",
    "RedriveAllowPolicy",
    "RedrivePolicy",
    "SqsManagedSseEnabled",
    "Tags",
    "VisibilityTimeout",
];

fn handler_error(err: sqs::Error) -> ProviderError {
    let code = match &err {
        sqs::Error::QueueDoesNotExist => HandlerErrorCode::NotFound,
        sqs::Error::QueueNameExists(_) => HandlerErrorCode::AlreadyExists,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// A property's value as SQS attribute text (objects as JSON text).
fn attribute_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    }
}

fn is_fifo(properties: &Value) -> Result<bool, ProviderError> {
    Ok(props::boolean(properties, "FifoQueue")?.unwrap_or(false))
}

/// `AWS::SQS::Queue`.
#[derive(Clone, Debug)]
pub struct QueueProvider {
    sqs: Sqs,
}

impl QueueProvider {
    /// A provider over `sqs`.
    pub fn new(sqs: Sqs) -> QueueProvider {
        QueueProvider { sqs }
    }

    fn provisioned(queue: sqs::Queue) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(queue.arn.clone()));
        attributes.insert("QueueName".to_string(), Value::String(queue.name.clone()));
        attributes.insert("QueueUrl".to_string(), Value::String(queue.url.clone()));
        Provisioned {
            physical_id: queue.url.clone(),
            ref_value: Value::String(queue.url),
            attributes,
        }
    }

    /// The template's tags, then the stack's (template tags win on a shared key).
    fn tags(cx: &ProviderContext<'_>, properties: &Value) -> BTreeMap<String, String> {
        let mut tags: BTreeMap<String, String> = cx
            .stack_tags
            .iter()
            .map(|t| (t.key.clone(), t.value.clone()))
            .collect();
        tags.extend(props::tags(properties));
        tags
    }

    fn arn_of(current: &Current<'_>) -> String {
        current
            .attributes
            .get("Arn")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }
}

impl ResourceProvider for QueueProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties)?;
        let fifo = is_fifo(properties)?;
        let name = string(properties, "QueueName")
            .unwrap_or_else(|| cx.generated_name(80, if fifo { ".fifo" } else { "" }));
        if self.sqs.get_queue_url(cx.scope, &name).is_ok() {
            return Err(ProviderError::new(
                HandlerErrorCode::AlreadyExists,
                format!(
                    "Resource of type 'AWS::SQS::Queue' with identifier '{name}' already exists."
                ),
            ));
        }
        let mut attributes = IndexMap::new();
        if fifo {
            attributes.insert("FifoQueue".to_string(), "true".to_string());
        }
        for (key, _) in MUTABLE {
            if let Some(text) = properties.get(*key).and_then(attribute_text) {
                attributes.insert(key.to_string(), text);
            }
        }
        let queue = self
            .sqs
            .create_queue(cx.scope, &name, &attributes, &Self::tags(cx, properties))
            .map_err(handler_error)?;
        Ok(Self::provisioned(queue))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties)?;
        let arn = Self::arn_of(current);
        let fifo = is_fifo(properties)?;
        let mut attributes = IndexMap::new();
        for (key, default) in MUTABLE {
            let fifo_only = matches!(
                *key,
                "ContentBasedDeduplication" | "DeduplicationScope" | "FifoThroughputLimit"
            );
            match properties.get(*key).and_then(attribute_text) {
                Some(text) => {
                    attributes.insert(key.to_string(), text);
                }
                None if fifo_only && !fifo => {}
                None => {
                    if let Some(d) = default {
                        if current.properties.get(*key).is_some() {
                            attributes.insert(key.to_string(), d.to_string());
                        }
                    }
                }
            }
        }
        self.sqs
            .set_queue_attributes(&arn, &attributes)
            .map_err(handler_error)?;
        let new_tags = Self::tags(cx, properties);
        let old: Vec<String> = self
            .sqs
            .list_queue_tags(&arn)
            .map_err(handler_error)?
            .into_keys()
            .filter(|k| !new_tags.contains_key(k))
            .collect();
        if !old.is_empty() {
            self.sqs.untag_queue(&arn, &old).map_err(handler_error)?;
        }
        if !new_tags.is_empty() {
            self.sqs.tag_queue(&arn, &new_tags).map_err(handler_error)?;
        }
        let queue = self.sqs.queue_by_arn(&arn).map_err(handler_error)?;
        Ok(Self::provisioned(queue))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        match self.sqs.delete_queue(&Self::arn_of(current)) {
            Ok(()) | Err(sqs::Error::QueueDoesNotExist) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

fn check_known(cx: &ProviderContext<'_>, properties: &Value) -> Result<(), ProviderError> {
    if let Some(map) = properties.as_object() {
        let extra: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !KNOWN.contains(k))
            .collect();
        if !extra.is_empty() {
            return Err(ProviderError::invalid(format!(
                "Properties validation failed for resource {} with message: #: extraneous key [{}] is not permitted",
                cx.logical_id,
                extra.join(", ")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_become_attribute_text() {
        assert_eq!(attribute_text(&json!(30)).as_deref(), Some("30"));
        assert_eq!(attribute_text(&json!("30")).as_deref(), Some("30"));
        assert_eq!(attribute_text(&json!(true)).as_deref(), Some("true"));
        assert_eq!(
            attribute_text(&json!({"deadLetterTargetArn": "a", "maxReceiveCount": 3})).as_deref(),
            Some(r#"{"deadLetterTargetArn":"a","maxReceiveCount":3}"#)
        );
        assert_eq!(attribute_text(&Value::Null), None);
        assert!(is_fifo(&json!({"FifoQueue": "true"})).unwrap());
        assert!(!is_fifo(&json!({})).unwrap());
    }
}
