//! Providers for the supporting types Scheduler templates reference beside queues and roles
//! (aws-contract.md §5.3; the corpus in `../shared/corpus/`): `AWS::SNS::Topic` (Ref TopicArn;
//! GetAtt TopicArn, TopicName; inline Subscription list), `AWS::SNS::Subscription` (Ref the
//! subscription ARN), `AWS::SQS::QueuePolicy` (sets each queue's Policy attribute),
//! `AWS::IAM::Policy` (an inline policy put on each role), and `AWS::SSM::Parameter` (Ref the
//! Name, generated `CFN-<LogicalId>-<RANDOM>` as AWS does; GetAtt Type, Value). Each is built
//! on the service core the API uses, with its messages.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::services::iam::{self, Iam};
use crate::services::sns::{self, Sns, SubscribeInput};
use crate::services::sqs::{self, Sqs};
use crate::services::ssm::{self, PutParameterInput, Ssm};

use super::props::{self, string};
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
};

fn sns_error(err: sns::Error) -> ProviderError {
    let code = match &err {
        sns::Error::NotFound(_) | sns::Error::ResourceNotFound(_) => HandlerErrorCode::NotFound,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

fn sqs_error(err: sqs::Error) -> ProviderError {
    let code = match &err {
        sqs::Error::QueueDoesNotExist => HandlerErrorCode::NotFound,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

fn iam_error(err: iam::Error) -> ProviderError {
    let code = match &err {
        iam::Error::NoSuchEntity(_) => HandlerErrorCode::NotFound,
        iam::Error::EntityAlreadyExists(_) => HandlerErrorCode::AlreadyExists,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

fn ssm_error(err: ssm::Error) -> ProviderError {
    let code = match &err {
        ssm::Error::ParameterNotFound(_) => HandlerErrorCode::NotFound,
        ssm::Error::ParameterAlreadyExists => HandlerErrorCode::AlreadyExists,
        _ => HandlerErrorCode::InvalidRequest,
    };
    ProviderError::new(code, err.to_string())
}

/// A JSON document given as an object or as text, as text.
fn document(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The template's tags, then the stack's (template tags win on a shared key).
fn merged_tags(cx: &ProviderContext<'_>, properties: &Value) -> BTreeMap<String, String> {
    let mut tags: BTreeMap<String, String> = cx
        .stack_tags
        .iter()
        .map(|t| (t.key.clone(), t.value.clone()))
        .collect();
    tags.extend(props::tags(properties));
    tags
}

// ------------------------------------------------------------------------------------------
// AWS::SNS::Topic
// ------------------------------------------------------------------------------------------

/// Topic properties that are SNS attributes (text values).
const TOPIC_ATTRIBUTES: &[&str] = &[
    "DisplayName",
    "KmsMasterKeyId",
    "ContentBasedDeduplication",
    "SignatureVersion",
    "TracingConfig",
];

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

    fn provisioned(arn: &str) -> Provisioned {
        let name = arn.rsplit(':').next().unwrap_or_default().to_string();
        let mut attributes = IndexMap::new();
        attributes.insert("TopicArn".to_string(), Value::String(arn.to_string()));
        attributes.insert("TopicName".to_string(), Value::String(name));
        Provisioned {
            physical_id: arn.to_string(),
            ref_value: Value::String(arn.to_string()),
            attributes,
        }
    }

    /// `Subscription` as (protocol, endpoint) pairs.
    fn subscriptions(properties: &Value) -> Vec<(String, String)> {
        properties
            .get("Subscription")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|s| Some((string(s, "Protocol")?, string(s, "Endpoint")?)))
                    .collect()
            })
            .unwrap_or_default()
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
            .map_err(sns_error)
    }
}

impl ResourceProvider for TopicProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let fifo = props::boolean(properties, "FifoTopic")?.unwrap_or(false);
        let name = string(properties, "TopicName")
            .unwrap_or_else(|| cx.generated_name(256, if fifo { ".fifo" } else { "" }));
        let arn = cx.scope.arn("sns", &name);
        if self.sns.topic(&arn).is_ok() {
            return Err(ProviderError::new(
                HandlerErrorCode::AlreadyExists,
                format!(
                    "Resource of type 'AWS::SNS::Topic' with identifier '{arn}' already exists."
                ),
            ));
        }
        let mut attributes = IndexMap::new();
        if fifo {
            attributes.insert("FifoTopic".to_string(), "true".to_string());
        }
        for key in TOPIC_ATTRIBUTES {
            if let Some(v) = string(properties, key) {
                attributes.insert(key.to_string(), v);
            }
        }
        let tags: Vec<(String, String)> = merged_tags(cx, properties).into_iter().collect();
        let arn = self
            .sns
            .create_topic(cx.scope, &name, &attributes, &tags)
            .map_err(sns_error)?;
        for (protocol, endpoint) in Self::subscriptions(properties) {
            if let Err(e) = self.subscribe(cx, &arn, &protocol, &endpoint) {
                let _ = self.sns.delete_topic(&arn);
                return Err(e);
            }
        }
        Ok(Self::provisioned(&arn))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let arn = current.physical_id;
        for key in TOPIC_ATTRIBUTES {
            let new = string(properties, key);
            if new != string(current.properties, key) {
                self.sns
                    .set_topic_attributes(arn, key, new.as_deref().unwrap_or(""))
                    .map_err(sns_error)?;
            }
        }
        let old = Self::subscriptions(current.properties);
        let new = Self::subscriptions(properties);
        if old != new {
            let mut existing = Vec::new();
            let mut token: Option<String> = None;
            loop {
                let (page, next) = self
                    .sns
                    .list_subscriptions_by_topic(arn, token.as_deref())
                    .map_err(sns_error)?;
                existing.extend(page);
                match next {
                    Some(t) => token = Some(t),
                    None => break,
                }
            }
            for sub in &existing {
                let pair = (sub.protocol.clone(), sub.endpoint.clone());
                if old.contains(&pair) && !new.contains(&pair) {
                    self.sns
                        .unsubscribe(&sub.subscription_arn)
                        .map_err(sns_error)?;
                }
            }
            for (protocol, endpoint) in new.iter().filter(|p| !old.contains(p)) {
                self.subscribe(cx, arn, protocol, endpoint)?;
            }
        }
        let tags = merged_tags(cx, properties);
        let gone: Vec<String> = self
            .sns
            .list_tags_for_resource(arn)
            .map_err(sns_error)?
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| !tags.contains_key(k))
            .collect();
        if !gone.is_empty() {
            self.sns.untag_resource(arn, &gone).map_err(sns_error)?;
        }
        if !tags.is_empty() {
            let tags: Vec<(String, String)> = tags.into_iter().collect();
            self.sns.tag_resource(arn, &tags).map_err(sns_error)?;
        }
        Ok(Self::provisioned(arn))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        self.sns
            .delete_topic(current.physical_id)
            .map_err(sns_error)
    }
}

// ------------------------------------------------------------------------------------------
// AWS::SNS::Subscription
// ------------------------------------------------------------------------------------------

/// Subscription properties that are SNS subscription attributes.
const SUBSCRIPTION_ATTRIBUTES: &[&str] = &[
    "RawMessageDelivery",
    "FilterPolicy",
    "FilterPolicyScope",
    "RedrivePolicy",
    "DeliveryPolicy",
    "SubscriptionRoleArn",
];

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

    fn attributes(properties: &Value) -> IndexMap<String, String> {
        SUBSCRIPTION_ATTRIBUTES
            .iter()
            .filter_map(|k| {
                let v = properties.get(*k)?;
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Null => return None,
                    other => other.to_string(),
                };
                Some((k.to_string(), text))
            })
            .collect()
    }

    fn provisioned(arn: String) -> Provisioned {
        Provisioned {
            physical_id: arn.clone(),
            ref_value: Value::String(arn),
            attributes: IndexMap::new(),
        }
    }
}

impl ResourceProvider for SubscriptionProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let required = |key: &str| {
            string(properties, key).ok_or_else(|| {
                ProviderError::invalid(format!(
                    "Properties validation failed for resource {} with message: #: required key [{key}] not found",
                    cx.logical_id
                ))
            })
        };
        let arn = self
            .sns
            .subscribe(
                &cx.scope.account,
                SubscribeInput {
                    topic_arn: required("TopicArn")?,
                    protocol: required("Protocol")?,
                    endpoint: required("Endpoint")?,
                    attributes: Self::attributes(properties),
                    return_subscription_arn: true,
                },
            )
            .map_err(sns_error)?;
        Ok(Self::provisioned(arn))
    }

    fn update(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let old = Self::attributes(current.properties);
        let new = Self::attributes(properties);
        for key in SUBSCRIPTION_ATTRIBUTES {
            let value = new.get(*key);
            if value != old.get(*key) {
                let text = value.map(String::as_str).unwrap_or(match *key {
                    "RawMessageDelivery" => "false",
                    _ => "",
                });
                self.sns
                    .set_subscription_attributes(current.physical_id, key, text)
                    .map_err(sns_error)?;
            }
        }
        Ok(Self::provisioned(current.physical_id.to_string()))
    }

    fn delete(
        &self,
        _cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        match self.sns.unsubscribe(current.physical_id) {
            Ok(()) | Err(sns::Error::NotFound(_)) => Ok(()),
            Err(e) => Err(sns_error(e)),
        }
    }
}

// ------------------------------------------------------------------------------------------
// AWS::SQS::QueuePolicy
// ------------------------------------------------------------------------------------------

/// `AWS::SQS::QueuePolicy`: sets `Policy` on every queue of `Queues` (URLs).
#[derive(Clone, Debug)]
pub struct QueuePolicyProvider {
    sqs: Sqs,
}

impl QueuePolicyProvider {
    /// A provider over `sqs`.
    pub fn new(sqs: Sqs) -> QueuePolicyProvider {
        QueuePolicyProvider { sqs }
    }

    fn set(
        &self,
        cx: &ProviderContext<'_>,
        queues: &[String],
        policy: &str,
    ) -> Result<(), ProviderError> {
        for url in queues {
            let arn = self.sqs.resolve_url(cx.scope, url).map_err(sqs_error)?;
            let attributes = IndexMap::from([("Policy".to_string(), policy.to_string())]);
            match self.sqs.set_queue_attributes(&arn, &attributes) {
                Ok(()) => {}
                Err(sqs::Error::QueueDoesNotExist) if policy.is_empty() => {}
                Err(e) => return Err(sqs_error(e)),
            }
        }
        Ok(())
    }
}

impl ResourceProvider for QueuePolicyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let policy = document(properties.get("PolicyDocument")).unwrap_or_default();
        self.set(cx, &strings(properties.get("Queues")), &policy)?;
        let id = cx.generated_name(128, "");
        Ok(Provisioned {
            physical_id: id.clone(),
            ref_value: Value::String(id),
            attributes: IndexMap::from([("Id".to_string(), Value::Null)]),
        })
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let queues = strings(properties.get("Queues"));
        let dropped: Vec<String> = strings(current.properties.get("Queues"))
            .into_iter()
            .filter(|q| !queues.contains(q))
            .collect();
        self.set(cx, &dropped, "")?;
        let policy = document(properties.get("PolicyDocument")).unwrap_or_default();
        self.set(cx, &queues, &policy)?;
        Ok(Provisioned {
            physical_id: current.physical_id.to_string(),
            ref_value: Value::String(current.physical_id.to_string()),
            attributes: current.attributes.clone(),
        })
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        self.set(cx, &strings(current.properties.get("Queues")), "")
    }
}

// ------------------------------------------------------------------------------------------
// AWS::IAM::Policy
// ------------------------------------------------------------------------------------------

/// `AWS::IAM::Policy`: an inline policy put on each role of `Roles` (Users and Groups are not
/// emulated and are refused).
#[derive(Clone, Debug)]
pub struct IamPolicyProvider {
    iam: Iam,
}

impl IamPolicyProvider {
    /// A provider over `iam`.
    pub fn new(iam: Iam) -> IamPolicyProvider {
        IamPolicyProvider { iam }
    }

    fn put(&self, account: &str, properties: &Value) -> Result<(), ProviderError> {
        let name = string(properties, "PolicyName").unwrap_or_default();
        let doc = document(properties.get("PolicyDocument")).unwrap_or_default();
        for role in strings(properties.get("Roles")) {
            self.iam
                .put_role_policy(account, &role, &name, &doc)
                .map_err(iam_error)?;
        }
        Ok(())
    }

    fn remove(
        &self,
        account: &str,
        properties: &Value,
        keep: &[String],
    ) -> Result<(), ProviderError> {
        let name = string(properties, "PolicyName").unwrap_or_default();
        for role in strings(properties.get("Roles")) {
            if keep.contains(&role) {
                continue;
            }
            match self.iam.delete_role_policy(account, &role, &name) {
                Ok(()) | Err(iam::Error::NoSuchEntity(_)) => {}
                Err(e) => return Err(iam_error(e)),
            }
        }
        Ok(())
    }
}

impl ResourceProvider for IamPolicyProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        if !strings(properties.get("Users")).is_empty()
            || !strings(properties.get("Groups")).is_empty()
        {
            return Err(ProviderError::new(
                HandlerErrorCode::NotImplemented,
                "Cumulo attaches AWS::IAM::Policy to Roles only (IAM users and groups are not emulated)",
            ));
        }
        self.put(&cx.scope.account, properties)?;
        let id = cx.generated_name(128, "");
        Ok(Provisioned {
            physical_id: id.clone(),
            ref_value: Value::String(id),
            attributes: IndexMap::from([("Id".to_string(), Value::Null)]),
        })
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let same_name =
            string(properties, "PolicyName") == string(current.properties, "PolicyName");
        let keep = if same_name {
            strings(properties.get("Roles"))
        } else {
            Vec::new()
        };
        self.remove(&cx.scope.account, current.properties, &keep)?;
        self.put(&cx.scope.account, properties)?;
        Ok(Provisioned {
            physical_id: current.physical_id.to_string(),
            ref_value: Value::String(current.physical_id.to_string()),
            attributes: current.attributes.clone(),
        })
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        self.remove(&cx.scope.account, current.properties, &[])
    }
}

// ------------------------------------------------------------------------------------------
// AWS::SSM::Parameter
// ------------------------------------------------------------------------------------------

/// `AWS::SSM::Parameter`.
#[derive(Clone, Debug)]
pub struct ParameterProvider {
    ssm: Ssm,
}

impl ParameterProvider {
    /// A provider over `ssm`.
    pub fn new(ssm: Ssm) -> ParameterProvider {
        ParameterProvider { ssm }
    }

    fn input(name: &str, properties: &Value, overwrite: bool) -> PutParameterInput {
        PutParameterInput {
            name: name.to_string(),
            value: string(properties, "Value").unwrap_or_default(),
            parameter_type: string(properties, "Type"),
            overwrite,
            description: string(properties, "Description"),
            allowed_pattern: string(properties, "AllowedPattern"),
            tier: string(properties, "Tier"),
            data_type: string(properties, "DataType"),
            tags: if overwrite {
                BTreeMap::new()
            } else {
                properties
                    .get("Tags")
                    .and_then(Value::as_object)
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                            .collect()
                    })
                    .unwrap_or_default()
            },
            ..Default::default()
        }
    }

    fn provisioned(name: &str, properties: &Value) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert(
            "Type".to_string(),
            Value::String(string(properties, "Type").unwrap_or_else(|| "String".into())),
        );
        attributes.insert(
            "Value".to_string(),
            Value::String(string(properties, "Value").unwrap_or_default()),
        );
        Provisioned {
            physical_id: name.to_string(),
            ref_value: Value::String(name.to_string()),
            attributes,
        }
    }
}

impl ResourceProvider for ParameterProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        let name = string(properties, "Name")
            .unwrap_or_else(|| format!("CFN-{}-{}", cx.logical_id, cx.ids.alnum(12)));
        self.ssm
            .put_parameter(cx.scope, Self::input(&name, properties, false))
            .map_err(ssm_error)?;
        Ok(Self::provisioned(&name, properties))
    }

    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        self.ssm
            .put_parameter(cx.scope, Self::input(current.physical_id, properties, true))
            .map_err(ssm_error)?;
        Ok(Self::provisioned(current.physical_id, properties))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self.ssm.delete_parameter(cx.scope, current.physical_id) {
            Ok(()) | Err(ssm::Error::ParameterNotFound(_)) => Ok(()),
            Err(e) => Err(ssm_error(e)),
        }
    }
}
