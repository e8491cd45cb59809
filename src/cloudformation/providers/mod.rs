//! Resource providers: how the stack engine makes, changes and removes the physical resource
//! behind each logical resource (aws-contract.md §5). One [`ResourceProvider`] per resource
//! type, kept in a [`Providers`] registry keyed by type name; each is built on the same core the
//! AWS API uses (a schedule made by a stack is validated exactly like one made by
//! CreateSchedule, and its errors read the same). Providers are synchronous, take resolved
//! properties (plain JSON, no intrinsics) and never see the stack store: the engine calls them
//! outside its lock, after asking the fault injector.

mod generic;
mod iam_policy;
mod iam_role;
mod kms;
mod lambda;
mod logs;
mod scheduler;
mod schema;
mod sns;
mod sqs_queue;
mod sqs_queue_policy;
mod ssm_parameter;
mod step_functions;
mod wait_condition;

#[cfg(test)]
pub(crate) use scheduler::schedule_update_kind;

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use crate::clock::Clock;
use crate::config::UnsupportedResources;
use crate::ids::{IdGen, Scope};

use super::deps::Deps;
use super::model::Tag;

pub use generic::Placeholder;

/// What a provider is told about the resource it acts on.
#[derive(Clone, Copy, Debug)]
pub struct ProviderContext<'a> {
    /// Account and region of the stack.
    pub scope: &'a Scope,
    /// Stack name.
    pub stack_name: &'a str,
    /// Stack id (ARN).
    pub stack_id: &'a str,
    /// Logical id of the resource.
    pub logical_id: &'a str,
    /// Resource type.
    pub type_name: &'a str,
    /// Stack-level tags (propagated to taggable resources).
    pub stack_tags: &'a [Tag],
    /// Id generator (generated names).
    pub ids: &'a IdGen,
    /// The clock.
    pub clock: &'a Clock,
}

impl ProviderContext<'_> {
    /// CloudFormation's generated physical name `<stack>-<LogicalId>-<RANDOM>`, at most
    /// `max_len` characters with `suffix` (e.g. `.fifo`) kept at the end: the stack name and
    /// logical id are shortened, never the random part (aws-contract.md §5.1, §5.3).
    pub fn generated_name(&self, max_len: usize, suffix: &str) -> String {
        let random = self.ids.upper_alnum(12);
        let room = max_len.saturating_sub(random.len() + suffix.len() + 2);
        // Half the room each; a short part gives what it does not use to the other.
        let logical_room = self.logical_id.len().min(room / 2);
        let stack_room = self.stack_name.len().min(room - logical_room);
        let logical_room = self.logical_id.len().min(room - stack_room);
        let stack: String = self.stack_name.chars().take(stack_room).collect();
        let logical: String = self.logical_id.chars().take(logical_room).collect();
        format!("{stack}-{logical}-{random}{suffix}")
    }

    /// The `aws:cloudformation:*` system tags followed by the stack's tags, for resources whose
    /// schema has `cloudFormationSystemTags` (aws-contract.md §5.2).
    pub fn system_and_stack_tags(&self) -> Vec<Tag> {
        let mut tags = vec![
            Tag {
                key: "aws:cloudformation:stack-name".into(),
                value: self.stack_name.into(),
            },
            Tag {
                key: "aws:cloudformation:stack-id".into(),
                value: self.stack_id.into(),
            },
            Tag {
                key: "aws:cloudformation:logical-id".into(),
                value: self.logical_id.into(),
            },
        ];
        tags.extend(self.stack_tags.iter().cloned());
        tags
    }
}

/// A physical resource as a provider made it: its id, its `Ref` value, its `Fn::GetAtt` values.
#[derive(Clone, Debug, PartialEq)]
pub struct Provisioned {
    /// `PhysicalResourceId`.
    pub physical_id: String,
    /// The `Ref` value.
    pub ref_value: Value,
    /// `Fn::GetAtt` values by attribute name.
    pub attributes: IndexMap<String, Value>,
}

/// The physical resource a provider is asked to change or remove.
#[derive(Clone, Copy, Debug)]
pub struct Current<'a> {
    /// `PhysicalResourceId`.
    pub physical_id: &'a str,
    /// The resolved properties it was last made or updated with.
    pub properties: &'a Value,
    /// Its `Fn::GetAtt` values.
    pub attributes: &'a IndexMap<String, Value>,
}

/// The `HandlerErrorCode` of a failed provider call (CloudFormation resource handler contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerErrorCode {
    /// The request was invalid (a ValidationException of the API).
    InvalidRequest,
    /// The resource already exists (a ConflictException / EntityAlreadyExists).
    AlreadyExists,
    /// The resource was not found.
    NotFound,
    /// A quota was hit.
    ServiceLimitExceeded,
    /// Anything else.
    InternalFailure,
    /// The type is not emulated.
    NotImplemented,
}

impl HandlerErrorCode {
    /// The name AWS prints.
    pub fn as_str(self) -> &'static str {
        match self {
            HandlerErrorCode::InvalidRequest => "InvalidRequest",
            HandlerErrorCode::AlreadyExists => "AlreadyExists",
            HandlerErrorCode::NotFound => "NotFound",
            HandlerErrorCode::ServiceLimitExceeded => "ServiceLimitExceeded",
            HandlerErrorCode::InternalFailure => "InternalFailure",
            HandlerErrorCode::NotImplemented => "NotImplemented",
        }
    }
}

/// Why a provider call failed: the API's message and the handler code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderError {
    /// The message of the underlying API error (e.g. `Invalid Schedule Expression cron(...).`).
    pub message: String,
    /// The handler error code.
    pub code: HandlerErrorCode,
}

impl ProviderError {
    /// A failure with `code` and `message`.
    pub fn new(code: HandlerErrorCode, message: impl Into<String>) -> ProviderError {
        ProviderError {
            message: message.into(),
            code,
        }
    }

    /// `InvalidRequest` with `message` (bad property values).
    pub fn invalid(message: impl Into<String>) -> ProviderError {
        ProviderError::new(HandlerErrorCode::InvalidRequest, message)
    }

    /// The ResourceStatusReason AWS shows for a failed handler call:
    /// `Resource handler returned message: "<message>" (RequestToken: <uuid>, HandlerErrorCode: <code>)`.
    pub fn reason(&self, request_token: &str) -> String {
        format!(
            "Resource handler returned message: \"{}\" (RequestToken: {request_token}, HandlerErrorCode: {})",
            self.message,
            self.code.as_str()
        )
    }
}

/// How an update of one resource is carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateKind {
    /// The same physical resource is changed.
    InPlace,
    /// A new physical resource is made; the old one is deleted at cleanup (a createOnly
    /// property changed).
    Replace,
    /// The physical resource moves (a schedule's GroupName): the old one is disabled, a copy
    /// is made at the destination with the same physical id and Ref, and the old one is deleted
    /// at cleanup whatever the UpdateReplacePolicy. Cumulo's deliberate difference from AWS
    /// (bug-reports.md B19).
    Move,
}

/// Makes, changes and removes one resource type's physical resources.
pub trait ResourceProvider: Send + Sync {
    /// Creates the physical resource for `properties`.
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError>;

    /// Changes `current` in place to `properties` (also used to restore a snapshot).
    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError>;

    /// Deletes `current`. A resource that is already gone is not an error.
    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError>;

    /// How to go from `old` to `new` properties; `create_only_changed` is the registry's
    /// verdict (a createOnly property differs). Providers with moves override this.
    fn update_kind(&self, _old: &Value, _new: &Value, create_only_changed: bool) -> UpdateKind {
        if create_only_changed {
            UpdateKind::Replace
        } else {
            UpdateKind::InPlace
        }
    }

    /// Stops `current` from acting without deleting it (the source of a move). Default: nothing.
    fn disable(
        &self,
        _cx: &ProviderContext<'_>,
        _current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        Ok(())
    }
}

/// The registry of providers, keyed by resource type name.
#[derive(Clone)]
pub struct Providers {
    by_type: HashMap<&'static str, Arc<dyn ResourceProvider>>,
    placeholder: Option<Arc<dyn ResourceProvider>>,
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut types: Vec<&&str> = self.by_type.keys().collect();
        types.sort();
        f.debug_struct("Providers").field("types", &types).finish()
    }
}

impl Providers {
    /// Every provider Cumulo has, over the cores in `deps`.
    pub fn new(deps: &Deps) -> Providers {
        let mut by_type: HashMap<&'static str, Arc<dyn ResourceProvider>> = HashMap::new();
        by_type.insert(
            "AWS::SQS::Queue",
            Arc::new(sqs_queue::QueueProvider::new(deps.sqs.clone())),
        );
        by_type.insert(
            "AWS::IAM::Role",
            Arc::new(iam_role::RoleProvider::new(deps.iam.clone())),
        );
        by_type.insert(
            "AWS::Scheduler::Schedule",
            Arc::new(scheduler::ScheduleProvider::new(deps.scheduler.clone())),
        );
        by_type.insert(
            "AWS::Scheduler::ScheduleGroup",
            Arc::new(scheduler::ScheduleGroupProvider::new(
                deps.scheduler.clone(),
            )),
        );
        by_type.insert(
            "AWS::CloudFormation::WaitConditionHandle",
            Arc::new(wait_condition::WaitConditionHandleProvider),
        );
        by_type.insert(
            "AWS::CloudFormation::WaitCondition",
            Arc::new(wait_condition::WaitConditionProvider),
        );
        by_type.insert(
            "AWS::SNS::Topic",
            Arc::new(sns::TopicProvider::new(deps.sns.clone())),
        );
        by_type.insert(
            "AWS::SNS::Subscription",
            Arc::new(sns::SubscriptionProvider::new(deps.sns.clone())),
        );
        by_type.insert(
            "AWS::SNS::TopicPolicy",
            Arc::new(sns::TopicPolicyProvider::new(deps.sns.clone())),
        );
        by_type.insert(
            "AWS::SQS::QueuePolicy",
            Arc::new(sqs_queue_policy::QueuePolicyProvider::new(deps.sqs.clone())),
        );
        by_type.insert(
            "AWS::IAM::Policy",
            Arc::new(iam_policy::PolicyProvider::new(deps.iam.clone())),
        );
        by_type.insert(
            "AWS::IAM::ManagedPolicy",
            Arc::new(iam_policy::ManagedPolicyProvider::new(deps.iam.clone())),
        );
        by_type.insert(
            "AWS::Lambda::Function",
            Arc::new(lambda::FunctionProvider::new(deps.lambda.clone())),
        );
        by_type.insert(
            "AWS::Lambda::Permission",
            Arc::new(lambda::PermissionProvider::new(deps.lambda.clone())),
        );
        by_type.insert(
            "AWS::StepFunctions::StateMachine",
            Arc::new(step_functions::StateMachineProvider::new(
                deps.states.clone(),
            )),
        );
        by_type.insert(
            "AWS::SSM::Parameter",
            Arc::new(ssm_parameter::ParameterProvider::new(deps.ssm.clone())),
        );
        by_type.insert(
            "AWS::KMS::Key",
            Arc::new(kms::KeyProvider::new(deps.kms.clone())),
        );
        by_type.insert(
            "AWS::KMS::Alias",
            Arc::new(kms::AliasProvider::new(deps.kms.clone())),
        );
        by_type.insert(
            "AWS::Logs::LogGroup",
            Arc::new(logs::LogGroupProvider::new(deps.logs.clone())),
        );
        by_type.insert("AWS::CDK::Metadata", Arc::new(Placeholder));
        let placeholder: Option<Arc<dyn ResourceProvider>> = match deps.config.cfn_unsupported {
            UnsupportedResources::Placeholder => Some(Arc::new(Placeholder)),
            UnsupportedResources::Fail => None,
        };
        Providers {
            by_type,
            placeholder,
        }
    }

    /// The provider of `type_name`: its own, or the placeholder when
    /// `CUMULO_CFN_UNSUPPORTED=placeholder`; `None` when Cumulo does not emulate the type.
    pub fn get(&self, type_name: &str) -> Option<Arc<dyn ResourceProvider>> {
        self.by_type
            .get(type_name)
            .cloned()
            .or_else(|| self.placeholder.clone())
    }

    /// True when `type_name` has a provider of its own (not the placeholder).
    pub fn emulates(&self, type_name: &str) -> bool {
        self.by_type.contains_key(type_name)
    }
}

/// Property access helpers shared by the providers: CloudFormation gives numbers as numbers or
/// strings and booleans as booleans or strings (aws-contract.md §5.1).
pub(crate) mod props {
    use serde_json::Value;

    use super::ProviderError;

    /// A string property (numbers and booleans are turned into their text).
    pub fn string(props: &Value, key: &str) -> Option<String> {
        match props.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// An integer property given as a number or a numeric string.
    pub fn int(props: &Value, key: &str) -> Result<Option<i64>, ProviderError> {
        match props.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| invalid_type(key, "integer")),
            Some(Value::String(s)) => s
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| invalid_type(key, "integer")),
            Some(_) => Err(invalid_type(key, "integer")),
        }
    }

    /// A boolean property given as a boolean or `"true"`/`"false"`.
    pub fn boolean(props: &Value, key: &str) -> Result<Option<bool>, ProviderError> {
        match props.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(Some(false)),
            Some(_) => Err(invalid_type(key, "boolean")),
        }
    }

    /// The properties' `Tags` list of `{Key, Value}`.
    pub fn tags(props: &Value) -> Vec<(String, String)> {
        props
            .get("Tags")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|t| {
                        Some((string(t, "Key")?, string(t, "Value").unwrap_or_default()))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `Properties validation failed for resource <id> with message: #/<key>: expected type: <kind>`
    /// in the handler's words.
    pub fn invalid_type(key: &str, kind: &str) -> ProviderError {
        ProviderError::invalid(format!(
            "Properties validation failed for resource with message: #/{key}: expected type: {kind}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx<'a>(
        scope: &'a Scope,
        ids: &'a IdGen,
        clock: &'a Clock,
        stack: &'a str,
        logical: &'a str,
    ) -> ProviderContext<'a> {
        ProviderContext {
            scope,
            stack_name: stack,
            stack_id: "arn:aws:cloudformation:us-east-1:000000000000:stack/s/1",
            logical_id: logical,
            type_name: "AWS::SQS::Queue",
            stack_tags: &[],
            ids,
            clock,
        }
    }

    #[test]
    fn generated_names_fit_the_limit_and_keep_the_suffix() {
        let scope = Scope::default_scope();
        let ids = IdGen::seeded(1);
        let clock = Clock::new(crate::clock::ClockMode::Manual);
        let short = cx(&scope, &ids, &clock, "demo", "Queue").generated_name(80, "");
        assert!(short.starts_with("demo-Queue-"), "{short}");
        assert_eq!(short.len(), "demo-Queue-".len() + 12);
        let long_stack = "s".repeat(120);
        let long_logical = "L".repeat(100);
        for (max, suffix) in [(64, ""), (80, ".fifo"), (80, "")] {
            let name =
                cx(&scope, &ids, &clock, &long_stack, &long_logical).generated_name(max, suffix);
            assert!(name.len() <= max, "{name} longer than {max}");
            assert!(name.ends_with(suffix));
            assert!(name.starts_with("sss"));
            assert!(name.contains("-LLL"));
        }
    }

    #[test]
    fn numbers_and_booleans_given_as_strings_are_accepted() {
        let p = serde_json::json!({"A": "60", "B": 7, "C": "true", "D": false, "E": "x", "F": 2.0});
        assert_eq!(props::int(&p, "A").unwrap(), Some(60));
        assert_eq!(props::int(&p, "B").unwrap(), Some(7));
        assert_eq!(props::int(&p, "F").unwrap(), Some(2));
        assert!(props::int(&p, "E").is_err());
        assert_eq!(props::int(&p, "Z").unwrap(), None);
        assert_eq!(props::boolean(&p, "C").unwrap(), Some(true));
        assert_eq!(props::boolean(&p, "D").unwrap(), Some(false));
        assert!(props::boolean(&p, "E").is_err());
        assert_eq!(props::string(&p, "B").as_deref(), Some("7"));
    }
}
