//! `AWS::SNS::Topic`, `AWS::SNS::Subscription` and `AWS::SNS::TopicPolicy` over the SNS core
//! (the CloudFormation resource reference's "Return values"):
//!
//! - Topic: Ref and physical id are the TopicArn; GetAtt `TopicArn`, `TopicName`. A generated
//!   name is `<stack>-<LogicalId>-<RANDOM>` (≤ 256, `.fifo` kept for FIFO topics). TopicName and
//!   FifoTopic are createOnly; DisplayName, KmsMasterKeyId, SignatureVersion, TracingConfig,
//!   ContentBasedDeduplication, FifoThroughputScope, ArchivePolicy, DataProtectionPolicy,
//!   DeliveryStatusLogging, the `Subscription` list and Tags change in place (a removed
//!   property goes back to its default). Tags carry the stack's tags and the
//!   `aws:cloudformation:*` system tags. A topic whose name exists outside the stack is never
//!   adopted.
//! - Subscription: Ref and physical id are the subscription ARN; GetAtt `Arn`. TopicArn,
//!   Protocol and Endpoint are createOnly; RawMessageDelivery, FilterPolicy (object or JSON
//!   text), FilterPolicyScope, RedrivePolicy, DeliveryPolicy, SubscriptionRoleArn and
//!   ReplayPolicy change in place. `sqs` subscriptions deliver (the SNS core's fan-out).
//! - TopicPolicy: sets each topic's `Policy` attribute; removing a topic from `Topics`, or
//!   deleting the resource, puts the topic's default policy back. Ref is a generated id
//!   `<stack>-<LogicalId>-<RANDOM>`.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::sns::{self, model::default_policy, Sns, SubscribeInput};

use super::schema;
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

/// The topic properties the registry schema allows.
const TOPIC_PROPERTIES: &[&str] = &[
    "ArchivePolicy",
    "ContentBasedDeduplication",
    "DataProtectionPolicy",
    "DeliveryStatusLogging",
    "DisplayName",
    "FifoThroughputScope",
    "FifoTopic",
    "KmsMasterKeyId",
    "SignatureVersion",
    "Subscription",
    "Tags",
    "TopicName",
    "TracingConfig",
];

/// The subscription properties the registry schema allows.
const SUBSCRIPTION_PROPERTIES: &[&str] = &[
    "DeliveryPolicy",
    "Endpoint",
    "FilterPolicy",
    "FilterPolicyScope",
    "Protocol",
    "RawMessageDelivery",
    "RedrivePolicy",
    "Region",
    "ReplayPolicy",
    "SubscriptionRoleArn",
    "TopicArn",
];

/// The topic policy properties the registry schema allows.
const TOPIC_POLICY_PROPERTIES: &[&str] = &["PolicyDocument", "Topics"];

/// Longest topic name.
const MAX_TOPIC_NAME: usize = 256;

/// An SNS API error as a handler failure, keeping the API's message.
fn handler_error(err: sns::Error) -> ProviderError {
    let code = match &err {
        sns::Error::NotFound(_) | sns::Error::ResourceNotFound(_) => HandlerErrorCode::NotFound,
        sns::Error::TagLimitExceeded(_) => HandlerErrorCode::ServiceLimitExceeded,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.message())
}

/// A property value as SNS attribute text: booleans `true`/`false`, objects as JSON text.
fn attribute_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        other => Some(other.to_string()),
    }
}

/// Topic properties that are topic attributes, and the value each returns to when removed.
const TOPIC_ATTRIBUTES: &[(&str, &str)] = &[
    ("DisplayName", ""),
    ("KmsMasterKeyId", ""),
    ("SignatureVersion", "1"),
    ("TracingConfig", "PassThrough"),
    ("ContentBasedDeduplication", "false"),
    ("FifoThroughputScope", ""),
    ("ArchivePolicy", ""),
    ("DataProtectionPolicy", ""),
];

/// `DeliveryStatusLogging` entries as the topic attributes they stand for
/// (`<Prefix>SuccessFeedbackRoleArn`, ...).
fn delivery_status_attributes(
    cx: &ProviderContext<'_>,
    properties: &Value,
) -> Result<BTreeMap<String, String>, ProviderError> {
    let mut out = BTreeMap::new();
    let Some(items) = properties.get("DeliveryStatusLogging") else {
        return Ok(out);
    };
    let Some(items) = items.as_array() else {
        return Err(schema::wrong_type(
            cx,
            "DeliveryStatusLogging",
            "JSONArray",
            items,
        ));
    };
    for (i, item) in items.iter().enumerate() {
        let protocol = schema::string(cx, item, "Protocol")?.ok_or_else(|| {
            schema::failed(
                cx,
                &format!("#/DeliveryStatusLogging/{i}: required key [Protocol] not found"),
            )
        })?;
        let prefix = match protocol.as_str() {
            "http/s" => "HTTP",
            "sqs" => "SQS",
            "lambda" => "Lambda",
            "firehose" => "Firehose",
            "application" => "Application",
            _ => {
                return Err(schema::keyword(
                    cx,
                    &format!("DeliveryStatusLogging/{i}/Protocol"),
                    "enum",
                ))
            }
        };
        for (key, suffix) in [
            ("SuccessFeedbackRoleArn", "SuccessFeedbackRoleArn"),
            ("SuccessFeedbackSampleRate", "SuccessFeedbackSampleRate"),
            ("FailureFeedbackRoleArn", "FailureFeedbackRoleArn"),
        ] {
            if let Some(v) = schema::string(cx, item, key)? {
                out.insert(format!("{prefix}{suffix}"), v);
            }
        }
    }
    Ok(out)
}

/// The topic attributes `properties` ask for (FifoTopic aside).
fn topic_attributes(
    cx: &ProviderContext<'_>,
    properties: &Value,
) -> Result<IndexMap<String, String>, ProviderError> {
    let mut out = IndexMap::new();
    for (key, _) in TOPIC_ATTRIBUTES {
        if let Some(v) = properties.get(*key) {
            if *key == "ContentBasedDeduplication" {
                schema::boolean(cx, properties, key)?;
            }
            if let Some(text) = attribute_text(v) {
                out.insert(key.to_string(), text);
            }
        }
    }
    out.extend(delivery_status_attributes(cx, properties)?);
    Ok(out)
}

/// The `Subscription` list as (protocol, endpoint) pairs.
fn inline_subscriptions(
    cx: &ProviderContext<'_>,
    properties: &Value,
) -> Result<Vec<(String, String)>, ProviderError> {
    let Some(items) = properties.get("Subscription") else {
        return Ok(Vec::new());
    };
    let Some(items) = items.as_array() else {
        return Err(schema::wrong_type(cx, "Subscription", "JSONArray", items));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let field = |key: &str| -> Result<String, ProviderError> {
                schema::string(cx, s, key)?.ok_or_else(|| {
                    schema::failed(
                        cx,
                        &format!("#/Subscription/{i}: required key [{key}] not found"),
                    )
                })
            };
            Ok((field("Protocol")?, field("Endpoint")?))
        })
        .collect()
}

/// `AWS::SNS::Topic`.
#[derive(Clone, Debug)]
pub struct TopicProvider {
    sns: Sns,
}

impl TopicProvider {
    /// A provider over `sns`.
    pub fn new(sns: Sns) -> TopicProvider {
        TopicProvider { sns }
    }

    fn provisioned(topic: &sns::Topic) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("TopicArn".to_string(), Value::String(topic.arn.clone()));
        attributes.insert("TopicName".to_string(), Value::String(topic.name.clone()));
        Provisioned {
            physical_id: topic.arn.clone(),
            ref_value: Value::String(topic.arn.clone()),
            attributes,
        }
    }

    fn subscribe(
        &self,
        cx: &ProviderContext<'_>,
        arn: &str,
        protocol: &str,
        endpoint: &str,
    ) -> Result<(), ProviderError> {
        self.sns
            .subscribe(
                &cx.scope.account,
                SubscribeInput {
                    topic_arn: arn.to_string(),
                    protocol: protocol.to_string(),
                    endpoint: endpoint.to_string(),
                    attributes: IndexMap::new(),
                    return_subscription_arn: true,
                },
            )
            .map(|_| ())
            .map_err(handler_error)
    }

    /// Unsubscribes the topic's subscriptions to `(protocol, endpoint)`.
    fn unsubscribe(&self, arn: &str, protocol: &str, endpoint: &str) -> Result<(), ProviderError> {
        let mut token: Option<String> = None;
        let mut gone = Vec::new();
        loop {
            let (page, next) = self
                .sns
                .list_subscriptions_by_topic(arn, token.as_deref())
                .map_err(handler_error)?;
            gone.extend(
                page.into_iter()
                    .filter(|s| s.protocol == protocol && s.endpoint == endpoint)
                    .map(|s| s.subscription_arn),
            );
            match next {
                Some(t) => token = Some(t),
                None => break,
            }
        }
        for sub in gone.iter().filter(|a| a.starts_with("arn:")) {
            self.sns.unsubscribe(sub).map_err(handler_error)?;
        }
        Ok(())
    }
}

impl ResourceProvider for TopicProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, TOPIC_PROPERTIES)?;
        let fifo = schema::boolean(cx, properties, "FifoTopic")?.unwrap_or(false);
        let name = match schema::string(cx, properties, "TopicName")? {
            Some(n) => n,
            None => cx.generated_name(MAX_TOPIC_NAME, if fifo { ".fifo" } else { "" }),
        };
        let mut attributes = topic_attributes(cx, properties)?;
        if fifo {
            attributes.insert("FifoTopic".to_string(), "true".to_string());
        }
        let subscriptions = inline_subscriptions(cx, properties)?;
        let arn = cx.scope.arn("sns", &name);
        if self.sns.topic(&arn).is_ok() {
            return Err(schema::already_exists(cx, &arn));
        }
        let tags: Vec<(String, String)> = schema::tags_with_system(cx, properties)
            .into_iter()
            .collect();
        let arn = self
            .sns
            .create_topic(cx.scope, &name, &attributes, &tags)
            .map_err(handler_error)?;
        for (protocol, endpoint) in &subscriptions {
            if let Err(e) = self.subscribe(cx, &arn, protocol, endpoint) {
                let _ = self.sns.delete_topic(&arn);
                return Err(e);
            }
        }
        let topic = self.sns.topic(&arn).map_err(handler_error)?;
        Ok(Self::provisioned(&topic))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, TOPIC_PROPERTIES)?;
        let arn = current.physical_id;
        let topic = self
            .sns
            .topic(arn)
            .map_err(|_| schema::not_found(cx, arn))?;
        let wanted = topic_attributes(cx, properties)?;
        let before = topic_attributes(cx, current.properties).unwrap_or_default();
        for (key, default) in TOPIC_ATTRIBUTES {
            let value = match wanted.get(*key) {
                Some(v) => v.clone(),
                None if before.contains_key(*key) => {
                    if *key == "ContentBasedDeduplication" && !topic.fifo {
                        continue;
                    }
                    default.to_string()
                }
                None => continue,
            };
            if topic.attributes.get(*key) != Some(&value) {
                self.sns
                    .set_topic_attributes(arn, key, &value)
                    .map_err(handler_error)?;
            }
        }
        let status_old = delivery_status_attributes(cx, current.properties).unwrap_or_default();
        let status_new = delivery_status_attributes(cx, properties)?;
        for key in status_old.keys().filter(|k| !status_new.contains_key(*k)) {
            self.sns
                .set_topic_attributes(arn, key, "")
                .map_err(handler_error)?;
        }
        for (key, value) in &status_new {
            if status_old.get(key) != Some(value) {
                self.sns
                    .set_topic_attributes(arn, key, value)
                    .map_err(handler_error)?;
            }
        }
        let old_subs = inline_subscriptions(cx, current.properties).unwrap_or_default();
        let new_subs = inline_subscriptions(cx, properties)?;
        for (protocol, endpoint) in old_subs.iter().filter(|s| !new_subs.contains(s)) {
            self.unsubscribe(arn, protocol, endpoint)?;
        }
        for (protocol, endpoint) in new_subs.iter().filter(|s| !old_subs.contains(s)) {
            self.subscribe(cx, arn, protocol, endpoint)?;
        }
        let have: BTreeMap<String, String> = self
            .sns
            .list_tags_for_resource(arn)
            .map_err(handler_error)?
            .into_iter()
            .collect();
        let (gone, set) = schema::tag_diff(&have, &schema::tags_with_system(cx, properties));
        if !gone.is_empty() {
            self.sns.untag_resource(arn, &gone).map_err(handler_error)?;
        }
        if !set.is_empty() {
            let set: Vec<(String, String)> = set.into_iter().collect();
            self.sns.tag_resource(arn, &set).map_err(handler_error)?;
        }
        let topic = self.sns.topic(arn).map_err(handler_error)?;
        Ok(Self::provisioned(&topic))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        match self.sns.delete_topic(current.physical_id) {
            Ok(()) | Err(sns::Error::NotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

/// Subscription properties that are subscription attributes, the value each returns to when
/// removed (an empty policy removes it).
const SUBSCRIPTION_ATTRIBUTES: &[(&str, &str)] = &[
    ("RawMessageDelivery", "false"),
    ("FilterPolicy", ""),
    ("FilterPolicyScope", "MessageAttributes"),
    ("RedrivePolicy", ""),
    ("DeliveryPolicy", ""),
    ("SubscriptionRoleArn", ""),
    ("ReplayPolicy", ""),
];

fn subscription_attributes(
    cx: &ProviderContext<'_>,
    properties: &Value,
) -> Result<IndexMap<String, String>, ProviderError> {
    let mut out = IndexMap::new();
    if properties.get("RawMessageDelivery").is_some() {
        schema::boolean(cx, properties, "RawMessageDelivery")?;
    }
    for (key, _) in SUBSCRIPTION_ATTRIBUTES {
        if let Some(text) = properties.get(*key).and_then(attribute_text) {
            out.insert(key.to_string(), text);
        }
    }
    Ok(out)
}

/// `AWS::SNS::Subscription`.
#[derive(Clone, Debug)]
pub struct SubscriptionProvider {
    sns: Sns,
}

impl SubscriptionProvider {
    /// A provider over `sns`.
    pub fn new(sns: Sns) -> SubscriptionProvider {
        SubscriptionProvider { sns }
    }

    fn provisioned(arn: &str) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(arn.to_string()));
        Provisioned {
            physical_id: arn.to_string(),
            ref_value: Value::String(arn.to_string()),
            attributes,
        }
    }
}

impl ResourceProvider for SubscriptionProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, SUBSCRIPTION_PROPERTIES)?;
        schema::required(cx, properties, &["TopicArn", "Protocol"])?;
        let topic_arn = schema::string(cx, properties, "TopicArn")?.unwrap_or_default();
        let protocol = schema::string(cx, properties, "Protocol")?.unwrap_or_default();
        let endpoint = schema::string(cx, properties, "Endpoint")?.unwrap_or_default();
        let attributes = subscription_attributes(cx, properties)?;
        let arn = self
            .sns
            .subscribe(
                &cx.scope.account,
                SubscribeInput {
                    topic_arn,
                    protocol,
                    endpoint,
                    attributes,
                    return_subscription_arn: true,
                },
            )
            .map_err(handler_error)?;
        Ok(Self::provisioned(&arn))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        schema::known(cx, properties, SUBSCRIPTION_PROPERTIES)?;
        let arn = current.physical_id;
        let have = self
            .sns
            .get_subscription_attributes(arn)
            .map_err(|_| schema::not_found(cx, arn))?;
        let wanted = subscription_attributes(cx, properties)?;
        let before = subscription_attributes(cx, current.properties).unwrap_or_default();
        for (key, default) in SUBSCRIPTION_ATTRIBUTES {
            let value = match wanted.get(*key) {
                Some(v) => v.clone(),
                None if before.contains_key(*key) => default.to_string(),
                None => continue,
            };
            if have.get(*key) != Some(&value) {
                self.sns
                    .set_subscription_attributes(arn, key, &value)
                    .map_err(handler_error)?;
            }
        }
        Ok(Self::provisioned(arn))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        match self.sns.unsubscribe(current.physical_id) {
            Ok(()) | Err(sns::Error::NotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

/// `AWS::SNS::TopicPolicy`.
#[derive(Clone, Debug)]
pub struct TopicPolicyProvider {
    sns: Sns,
}

impl TopicPolicyProvider {
    /// A provider over `sns`.
    pub fn new(sns: Sns) -> TopicPolicyProvider {
        TopicPolicyProvider { sns }
    }

    fn inputs(
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<(String, Vec<String>), ProviderError> {
        schema::known(cx, properties, TOPIC_POLICY_PROPERTIES)?;
        schema::required(cx, properties, &["PolicyDocument", "Topics"])?;
        let document =
            schema::document(cx, properties, "PolicyDocument", true)?.unwrap_or_default();
        let topics = schema::strings(cx, properties, "Topics")?;
        Ok((document, topics))
    }

    fn apply(&self, topics: &[String], document: &str) -> Result<(), ProviderError> {
        for topic in topics {
            self.sns
                .set_topic_attributes(topic, "Policy", document)
                .map_err(handler_error)?;
        }
        Ok(())
    }

    /// Puts the default policy back on `topic` (a topic that is gone is left alone).
    fn restore(&self, topic: &str) -> Result<(), ProviderError> {
        match self.sns.topic(topic) {
            Ok(t) => self
                .sns
                .set_topic_attributes(topic, "Policy", &default_policy(&t.arn, &t.account))
                .map_err(handler_error),
            Err(_) => Ok(()),
        }
    }
}

impl ResourceProvider for TopicPolicyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (document, topics) = Self::inputs(cx, properties)?;
        if let Err(e) = self.apply(&topics, &document) {
            for t in &topics {
                let _ = self.restore(t);
            }
            return Err(e);
        }
        Ok(schema::identified(&cx.generated_name(128, "")))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let (document, topics) = Self::inputs(cx, properties)?;
        let before = schema::strings(cx, current.properties, "Topics").unwrap_or_default();
        for gone in before.iter().filter(|t| !topics.contains(t)) {
            self.restore(gone)?;
        }
        self.apply(&topics, &document)?;
        Ok(schema::identified(current.physical_id))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        for topic in schema::strings(cx, current.properties, "Topics").unwrap_or_default() {
            self.restore(&topic)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_become_attribute_text() {
        assert_eq!(attribute_text(&json!(true)).as_deref(), Some("true"));
        assert_eq!(
            attribute_text(&json!({"a": [1]})).as_deref(),
            Some(r#"{"a":[1]}"#)
        );
        assert_eq!(attribute_text(&json!("x")).as_deref(), Some("x"));
        assert_eq!(attribute_text(&Value::Null), None);
    }
}
