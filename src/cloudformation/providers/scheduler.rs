//! Providers for `AWS::Scheduler::Schedule` and `AWS::Scheduler::ScheduleGroup` over the
//! Scheduler core (aws-contract.md §5.1–§5.2): CloudFormation properties become the API's
//! inputs (ISO dates → instants, numbers given as strings, the ECS members' API casing), and
//! the API validates them, so a stack is refused for exactly the reasons CreateSchedule would
//! refuse it, with the same message in the event's reason.
//!
//! Ref of both is the Name (generated `<stack>-<LogicalId>-<RANDOM>` ≤ 64 when absent);
//! `Fn::GetAtt` is `Arn` for a schedule and `Arn`, `CreationDate`, `LastModificationDate`,
//! `State` for a group. A schedule's Name change is a replacement; its GroupName change is a
//! move ([`UpdateKind::Move`], seed 000: the old schedule is disabled, the destination created
//! with the same name, the old one deleted at cleanup) — Cumulo's deliberate difference from
//! AWS (bug-reports.md B19).

use indexmap::IndexMap;
use serde_json::Value;

use crate::scheduler::{
    self, AwsVpcConfiguration, CapacityProviderStrategyItem, CreateScheduleGroupInput,
    DeadLetterConfig, EcsParameters, EventBridgeParametersInput, FlexibleTimeWindowInput,
    KinesisParametersInput, NetworkConfiguration, PlacementConstraint, PlacementStrategy,
    RetryPolicyInput, SageMakerPipelineParameter, SageMakerPipelineParameters, ScheduleInput,
    Scheduler, SqsParameters, TagInput, TargetInput, DEFAULT_GROUP,
};

use super::props::{boolean, int, string};
use super::{
    Current, HandlerErrorCode, ProviderContext, ProviderError, Provisioned, ResourceProvider,
    UpdateKind,
};

/// Longest schedule and group name.
const MAX_NAME: usize = 64;

/// The schedule properties the registry schema allows (`additionalProperties: false`).
const SCHEDULE_PROPERTIES: &[&str] = &[
    "Description",
    "EndDate",
    "FlexibleTimeWindow",
    "GroupName",
    "KmsKeyArn",
    "Name",
    "ScheduleExpression",
    "ScheduleExpressionTimezone",
    "StartDate",
    "State",
    "Target",
];

/// The schedule group properties the registry schema allows.
const GROUP_PROPERTIES: &[&str] = &["Name", "Tags"];

/// A Scheduler API error as a handler failure, keeping the API's message.
fn handler_error(err: scheduler::Error) -> ProviderError {
    let code = match &err {
        scheduler::Error::Validation(_) => HandlerErrorCode::InvalidRequest,
        scheduler::Error::Conflict(_) => HandlerErrorCode::AlreadyExists,
        scheduler::Error::ResourceNotFound(_) => HandlerErrorCode::NotFound,
        scheduler::Error::ServiceQuotaExceeded(_) => HandlerErrorCode::ServiceLimitExceeded,
        scheduler::Error::Internal(_) => HandlerErrorCode::InternalFailure,
    };
    ProviderError::new(code, err.message())
}

/// Refuses properties the schema does not have, as CloudFormation's validation words it.
fn check_known(
    cx: &ProviderContext<'_>,
    props: &Value,
    known: &[&str],
) -> Result<(), ProviderError> {
    if let Some(map) = props.as_object() {
        let extra: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
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

fn group_of(props: &Value) -> String {
    string(props, "GroupName").unwrap_or_else(|| DEFAULT_GROUP.to_string())
}

fn date(props: &Value, key: &str) -> Result<Option<chrono::DateTime<chrono::Utc>>, ProviderError> {
    match string(props, key) {
        None => Ok(None),
        Some(text) => crate::time::parse_rfc3339(&text)
            .or_else(|| {
                // CloudFormation also accepts a date-time without a zone, read as UTC.
                chrono::NaiveDateTime::parse_from_str(&text, "%Y-%m-%dT%H:%M:%S%.f")
                    .ok()
                    .map(|n| n.and_utc())
            })
            .map(Some)
            .ok_or_else(|| {
                ProviderError::invalid(format!(
                    "Properties validation failed for resource with message: #/{key}: [{text}] is not a valid date-time"
                ))
            }),
    }
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value.and_then(Value::as_array).map(|items| {
        items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect()
    })
}

fn objects(value: Option<&Value>) -> Vec<&Value> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().collect())
        .unwrap_or_default()
}

/// CloudFormation's `EcsParameters` (PascalCase members) as the API's.
fn ecs_parameters(ecs: &Value) -> Result<EcsParameters, ProviderError> {
    let network = ecs
        .get("NetworkConfiguration")
        .map(|n| NetworkConfiguration {
            awsvpc_configuration: n.get("AwsvpcConfiguration").map(|a| AwsVpcConfiguration {
                subnets: strings(a.get("Subnets")),
                security_groups: strings(a.get("SecurityGroups")),
                assign_public_ip: string(a, "AssignPublicIp"),
            }),
        });
    let mut capacity = Vec::new();
    for item in objects(ecs.get("CapacityProviderStrategy")) {
        capacity.push(CapacityProviderStrategyItem {
            capacity_provider: string(item, "CapacityProvider"),
            base: int(item, "Base")?,
            weight: int(item, "Weight")?,
        });
    }
    let constraints = objects(ecs.get("PlacementConstraints"))
        .into_iter()
        .map(|c| PlacementConstraint {
            r#type: string(c, "Type"),
            expression: string(c, "Expression"),
        })
        .collect::<Vec<_>>();
    let strategy = objects(ecs.get("PlacementStrategy"))
        .into_iter()
        .map(|s| PlacementStrategy {
            r#type: string(s, "Type"),
            field: string(s, "Field"),
        })
        .collect::<Vec<_>>();
    let tags = ecs.get("Tags").map(|t| match t {
        // The schema's TagMap is one object; lists of maps are accepted too.
        Value::Object(map) => vec![map
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect()],
        Value::Array(maps) => maps
            .iter()
            .filter_map(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .collect(),
        _ => Vec::new(),
    });
    Ok(EcsParameters {
        task_definition_arn: string(ecs, "TaskDefinitionArn"),
        task_count: int(ecs, "TaskCount")?,
        launch_type: string(ecs, "LaunchType"),
        network_configuration: network,
        platform_version: string(ecs, "PlatformVersion"),
        group: string(ecs, "Group"),
        capacity_provider_strategy: ecs.get("CapacityProviderStrategy").map(|_| capacity),
        enable_ecs_managed_tags: boolean(ecs, "EnableECSManagedTags")?,
        enable_execute_command: boolean(ecs, "EnableExecuteCommand")?,
        placement_constraints: ecs.get("PlacementConstraints").map(|_| constraints),
        placement_strategy: ecs.get("PlacementStrategy").map(|_| strategy),
        propagate_tags: string(ecs, "PropagateTags"),
        reference_id: string(ecs, "ReferenceId"),
        tags,
    })
}

/// `Target` properties as the API's TargetInput.
fn target(t: &Value) -> Result<TargetInput, ProviderError> {
    let retry_policy = match t.get("RetryPolicy") {
        Some(r) => Some(RetryPolicyInput {
            maximum_event_age_in_seconds: int(r, "MaximumEventAgeInSeconds")?,
            maximum_retry_attempts: int(r, "MaximumRetryAttempts")?,
        }),
        None => None,
    };
    let sage_maker = t
        .get("SageMakerPipelineParameters")
        .map(|s| SageMakerPipelineParameters {
            pipeline_parameter_list: s.get("PipelineParameterList").map(|_| {
                objects(s.get("PipelineParameterList"))
                    .into_iter()
                    .map(|p| SageMakerPipelineParameter {
                        name: string(p, "Name"),
                        value: string(p, "Value"),
                    })
                    .collect()
            }),
        });
    Ok(TargetInput {
        arn: string(t, "Arn"),
        role_arn: string(t, "RoleArn"),
        input: string(t, "Input"),
        retry_policy,
        dead_letter_config: t.get("DeadLetterConfig").map(|d| DeadLetterConfig {
            arn: string(d, "Arn"),
        }),
        sqs_parameters: t.get("SqsParameters").map(|s| SqsParameters {
            message_group_id: string(s, "MessageGroupId"),
        }),
        event_bridge_parameters: t.get("EventBridgeParameters").map(|e| {
            EventBridgeParametersInput {
                detail_type: string(e, "DetailType"),
                source: string(e, "Source"),
            }
        }),
        kinesis_parameters: t.get("KinesisParameters").map(|k| KinesisParametersInput {
            partition_key: string(k, "PartitionKey"),
        }),
        sage_maker_pipeline_parameters: sage_maker,
        ecs_parameters: match t.get("EcsParameters") {
            Some(e) => Some(ecs_parameters(e)?),
            None => None,
        },
    })
}

/// A schedule's properties as the API's input for the schedule `name`.
pub(crate) fn schedule_input(props: &Value, name: String) -> Result<ScheduleInput, ProviderError> {
    let window = match props.get("FlexibleTimeWindow") {
        Some(w) => Some(FlexibleTimeWindowInput {
            mode: string(w, "Mode"),
            maximum_window_in_minutes: int(w, "MaximumWindowInMinutes")?,
        }),
        None => None,
    };
    Ok(ScheduleInput {
        name,
        group_name: string(props, "GroupName"),
        schedule_expression: string(props, "ScheduleExpression"),
        schedule_expression_timezone: string(props, "ScheduleExpressionTimezone"),
        description: string(props, "Description"),
        start_date: date(props, "StartDate")?,
        end_date: date(props, "EndDate")?,
        state: string(props, "State"),
        action_after_completion: None,
        flexible_time_window: window,
        kms_key_arn: string(props, "KmsKeyArn"),
        target: match props.get("Target") {
            Some(t) => Some(target(t)?),
            None => None,
        },
        client_token: None,
    })
}

/// How a schedule goes from `old` to `new`: a Name change replaces it, a GroupName change
/// (an absent one is `default`) moves it, anything else is in place.
pub(crate) fn schedule_update_kind(
    old: &Value,
    new: &Value,
    create_only_changed: bool,
) -> UpdateKind {
    if create_only_changed || old.get("Name") != new.get("Name") {
        UpdateKind::Replace
    } else if group_of(old) != group_of(new) {
        UpdateKind::Move
    } else {
        UpdateKind::InPlace
    }
}

/// The attribute under which a schedule's record keeps the CreationDate of the schedule the
/// stack made (RFC 3339 with nanoseconds). No template can name it (`Fn::GetAtt` names are
/// checked against the registry, which allows only `Arn`); the provider compares it before
/// changing or deleting a schedule, so a same-named schedule made outside the stack after
/// the stack's own was deleted is never clobbered.
const OWNER_MARK: &str = "Cumulo::CreationDate";

/// What a stack's schedule record says about the schedule now stored under its name.
enum Ownership {
    /// No schedule of that name in that group.
    Missing,
    /// The schedule the stack made (or a record without a mark, from before marks existed).
    Ours,
    /// A schedule of that name made outside the stack.
    Theirs,
}

/// `Resource of type 'AWS::Scheduler::Schedule' with identifier '<name>' was not found.`
/// (`NotFound`), the handler's words for a schedule that is gone (bug-reports.md B19).
fn not_found(name: &str) -> ProviderError {
    ProviderError::new(
        HandlerErrorCode::NotFound,
        format!(
            "Resource of type 'AWS::Scheduler::Schedule' with identifier '{name}' was not found."
        ),
    )
}

/// `AWS::Scheduler::Schedule`. Ownership: the record of a schedule the stack made carries its
/// CreationDate ([`OWNER_MARK`]); an update, disable or restore of a schedule that is gone or
/// was re-made outside the stack fails with `NotFound` instead of changing it, and a delete
/// leaves such a schedule alone (the stack's own is already gone).
#[derive(Clone, Debug)]
pub struct ScheduleProvider {
    scheduler: Scheduler,
}

impl ScheduleProvider {
    /// A provider over `scheduler`.
    pub fn new(scheduler: Scheduler) -> ScheduleProvider {
        ScheduleProvider { scheduler }
    }

    /// The physical id, Ref (the name), `Arn` and the owner mark of the schedule `group`/`name`.
    fn provisioned(
        &self,
        cx: &ProviderContext<'_>,
        group: &str,
        name: String,
        arn: String,
    ) -> Provisioned {
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(arn));
        if let Ok(schedule) = self.scheduler.get_schedule(cx.scope, Some(group), &name) {
            attributes.insert(
                OWNER_MARK.to_string(),
                Value::String(mark(schedule.creation_date)),
            );
        }
        Provisioned {
            physical_id: name.clone(),
            ref_value: Value::String(name),
            attributes,
        }
    }

    /// Whether the schedule stored under `current`'s name and group is the one the stack made.
    fn ownership(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Ownership {
        let group = group_of(current.properties);
        match self
            .scheduler
            .get_schedule(cx.scope, Some(&group), current.physical_id)
        {
            Err(_) => Ownership::Missing,
            Ok(schedule) => match current.attributes.get(OWNER_MARK).and_then(Value::as_str) {
                Some(m) if m != mark(schedule.creation_date) => Ownership::Theirs,
                _ => Ownership::Ours,
            },
        }
    }

    /// Fails with `NotFound` unless the schedule of `current` is the stack's own.
    fn check_ours(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        match self.ownership(cx, current) {
            Ownership::Ours => Ok(()),
            Ownership::Missing | Ownership::Theirs => Err(not_found(current.physical_id)),
        }
    }
}

/// A CreationDate as the owner mark keeps it.
fn mark(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}

impl ResourceProvider for ScheduleProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties, SCHEDULE_PROPERTIES)?;
        let name = string(properties, "Name").unwrap_or_else(|| cx.generated_name(MAX_NAME, ""));
        let input = schedule_input(properties, name.clone())?;
        let arn = self
            .scheduler
            .create_schedule(cx.scope, input)
            .map_err(handler_error)?;
        Ok(self.provisioned(cx, &group_of(properties), name, arn))
    }

    /// Changes the schedule in place (also a restore): the group only locates it, so
    /// `properties` name the same group as `current` (a group change is a move).
    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties, SCHEDULE_PROPERTIES)?;
        let name = current.physical_id.to_string();
        let input = schedule_input(properties, name.clone())?;
        self.check_ours(cx, current)?;
        let arn = match self.scheduler.update_schedule(cx.scope, input) {
            Ok(arn) => arn,
            Err(scheduler::Error::ResourceNotFound(_)) => return Err(not_found(&name)),
            Err(e) => return Err(handler_error(e)),
        };
        Ok(self.provisioned(cx, &group_of(properties), name, arn))
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self.ownership(cx, current) {
            Ownership::Ours => {}
            Ownership::Missing => return Ok(()),
            Ownership::Theirs => {
                tracing::info!(
                    name = current.physical_id,
                    "a same-named schedule made outside the stack replaced the stack's own: left in place"
                );
                return Ok(());
            }
        }
        let group = group_of(current.properties);
        match self
            .scheduler
            .delete_schedule(cx.scope, Some(&group), current.physical_id, None)
        {
            Ok(()) | Err(scheduler::Error::ResourceNotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }

    fn update_kind(&self, old: &Value, new: &Value, create_only_changed: bool) -> UpdateKind {
        schedule_update_kind(old, new, create_only_changed)
    }

    /// Disables the schedule of `current`, keeping everything else; `NotFound` when it is gone
    /// or not the stack's own.
    fn disable(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
    ) -> Result<(), ProviderError> {
        let mut props = current.properties.clone();
        if let Some(map) = props.as_object_mut() {
            map.insert("State".to_string(), Value::String("DISABLED".into()));
        }
        let input = schedule_input(&props, current.physical_id.to_string())?;
        self.check_ours(cx, current)?;
        match self.scheduler.update_schedule(cx.scope, input) {
            Ok(_) => Ok(()),
            Err(scheduler::Error::ResourceNotFound(_)) => Err(not_found(current.physical_id)),
            Err(e) => Err(handler_error(e)),
        }
    }
}

/// `AWS::Scheduler::ScheduleGroup`: the group gets the template's Tags, the stack's tags and
/// the `aws:cloudformation:*` system tags (through the Scheduler's CloudFormation-only entry
/// point: API callers may not set `aws:` keys).
#[derive(Clone, Debug)]
pub struct ScheduleGroupProvider {
    scheduler: Scheduler,
}

impl ScheduleGroupProvider {
    /// A provider over `scheduler`.
    pub fn new(scheduler: Scheduler) -> ScheduleGroupProvider {
        ScheduleGroupProvider { scheduler }
    }

    fn provisioned(
        &self,
        cx: &ProviderContext<'_>,
        name: &str,
    ) -> Result<Provisioned, ProviderError> {
        let group = self
            .scheduler
            .get_schedule_group(cx.scope, name)
            .map_err(handler_error)?;
        let mut attributes = IndexMap::new();
        attributes.insert("Arn".to_string(), Value::String(group.arn(cx.scope)));
        if let Some(t) = group.creation_date {
            attributes.insert(
                "CreationDate".to_string(),
                Value::String(crate::time::iso_millis(t)),
            );
        }
        if let Some(t) = group.last_modification_date {
            attributes.insert(
                "LastModificationDate".to_string(),
                Value::String(crate::time::iso_millis(t)),
            );
        }
        attributes.insert(
            "State".to_string(),
            Value::String(group.state.as_str().into()),
        );
        Ok(Provisioned {
            physical_id: name.to_string(),
            ref_value: Value::String(name.to_string()),
            attributes,
        })
    }

    /// The template's tags followed by the stack's (template tags win on a shared key).
    fn user_tags(cx: &ProviderContext<'_>, props: &Value) -> Vec<TagInput> {
        let mut tags: Vec<TagInput> = super::props::tags(props)
            .into_iter()
            .map(|(k, v)| TagInput::new(k, v))
            .collect();
        for t in cx.stack_tags {
            if !tags
                .iter()
                .any(|x| x.key.as_deref() == Some(t.key.as_str()))
            {
                tags.push(TagInput::new(t.key.clone(), t.value.clone()));
            }
        }
        tags
    }

    /// The `aws:cloudformation:stack-name`, `stack-id` and `logical-id` system tags.
    fn system_tags(cx: &ProviderContext<'_>) -> Vec<scheduler::Tag> {
        cx.system_and_stack_tags()
            .into_iter()
            .filter(|t| t.key.starts_with("aws:cloudformation:"))
            .map(|t| scheduler::Tag {
                key: t.key,
                value: t.value,
            })
            .collect()
    }
}

impl ResourceProvider for ScheduleGroupProvider {
    fn create(
        &self,
        cx: &ProviderContext<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties, GROUP_PROPERTIES)?;
        let name = string(properties, "Name").unwrap_or_else(|| cx.generated_name(MAX_NAME, ""));
        let tags = Self::user_tags(cx, properties);
        self.scheduler
            .create_schedule_group_with_system_tags(
                cx.scope,
                CreateScheduleGroupInput {
                    name: name.clone(),
                    tags: (!tags.is_empty()).then_some(tags),
                    client_token: None,
                },
                Self::system_tags(cx),
            )
            .map_err(handler_error)?;
        self.provisioned(cx, &name)
    }

    /// Only Tags can change in place (Name is createOnly).
    fn update(
        &self,
        cx: &ProviderContext<'_>,
        current: &Current<'_>,
        properties: &Value,
    ) -> Result<Provisioned, ProviderError> {
        check_known(cx, properties, GROUP_PROPERTIES)?;
        let name = current.physical_id;
        let arn = scheduler::schedule_group_arn(cx.scope, name);
        let new_tags = Self::user_tags(cx, properties);
        let old_keys: Vec<String> = super::props::tags(current.properties)
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| {
                !new_tags
                    .iter()
                    .any(|t| t.key.as_deref() == Some(k.as_str()))
            })
            .collect();
        if !old_keys.is_empty() {
            self.scheduler
                .untag_resource(cx.scope, &arn, Some(old_keys))
                .map_err(handler_error)?;
        }
        if !new_tags.is_empty() {
            self.scheduler
                .tag_resource(cx.scope, &arn, Some(new_tags))
                .map_err(handler_error)?;
        }
        self.provisioned(cx, name)
    }

    fn delete(&self, cx: &ProviderContext<'_>, current: &Current<'_>) -> Result<(), ProviderError> {
        match self
            .scheduler
            .delete_schedule_group(cx.scope, current.physical_id, None)
        {
            Ok(()) | Err(scheduler::Error::ResourceNotFound(_)) => Ok(()),
            Err(e) => Err(handler_error(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cloudformation_properties_become_the_apis_input() {
        let props = json!({
            "Name": "n",
            "GroupName": "g",
            "ScheduleExpression": "rate(1 hour)",
            "StartDate": "2030-01-01T00:00:00Z",
            "EndDate": "2030-02-01T00:00:00",
            "FlexibleTimeWindow": {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": "15"},
            "Target": {
                "Arn": "arn:aws:ecs:us-east-1:000000000000:cluster/c",
                "RoleArn": "arn:aws:iam::000000000000:role/r",
                "RetryPolicy": {"MaximumEventAgeInSeconds": "3600", "MaximumRetryAttempts": 3},
                "EcsParameters": {
                    "TaskDefinitionArn": "arn:td",
                    "TaskCount": "2",
                    "NetworkConfiguration": {"AwsvpcConfiguration": {"Subnets": ["s1"], "AssignPublicIp": "ENABLED"}},
                    "CapacityProviderStrategy": [{"CapacityProvider": "cp", "Base": 1, "Weight": "2"}],
                    "PlacementConstraints": [{"Type": "memberOf", "Expression": "x"}],
                    "EnableECSManagedTags": "true",
                    "Tags": {"k": "v"}
                }
            }
        });
        let input = schedule_input(&props, "n".into()).unwrap();
        assert_eq!(input.group_name.as_deref(), Some("g"));
        assert_eq!(
            input.start_date,
            crate::time::parse_rfc3339("2030-01-01T00:00:00Z")
        );
        assert_eq!(
            input.end_date,
            crate::time::parse_rfc3339("2030-02-01T00:00:00Z")
        );
        let window = input.flexible_time_window.unwrap();
        assert_eq!(window.maximum_window_in_minutes, Some(15));
        let target = input.target.unwrap();
        let retry = target.retry_policy.unwrap();
        assert_eq!(retry.maximum_event_age_in_seconds, Some(3600));
        let ecs = target.ecs_parameters.unwrap();
        assert_eq!(ecs.task_count, Some(2));
        assert_eq!(ecs.enable_ecs_managed_tags, Some(true));
        let subnets = ecs
            .network_configuration
            .unwrap()
            .awsvpc_configuration
            .unwrap()
            .subnets;
        assert_eq!(subnets, Some(vec!["s1".to_string()]));
        assert_eq!(ecs.capacity_provider_strategy.unwrap()[0].weight, Some(2));
        assert_eq!(
            ecs.tags,
            Some(vec![vec![("k".to_string(), "v".to_string())]])
        );
    }

    #[test]
    fn bad_dates_and_numbers_are_invalid_requests() {
        let err = schedule_input(&json!({"StartDate": "yesterday"}), "n".into()).unwrap_err();
        assert_eq!(err.code, HandlerErrorCode::InvalidRequest);
        assert!(err.message.contains("StartDate"), "{}", err.message);
        let err = schedule_input(
            &json!({"FlexibleTimeWindow": {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": "soon"}}),
            "n".into(),
        )
        .unwrap_err();
        assert!(
            err.message.contains("MaximumWindowInMinutes"),
            "{}",
            err.message
        );
    }

    #[test]
    fn name_changes_replace_and_group_changes_move() {
        let a = json!({"Name": "a", "ScheduleExpression": "rate(1 hour)"});
        let renamed = json!({"Name": "b", "ScheduleExpression": "rate(1 hour)"});
        let moved = json!({"Name": "a", "GroupName": "g", "ScheduleExpression": "rate(1 hour)"});
        let default_named =
            json!({"Name": "a", "GroupName": "default", "ScheduleExpression": "rate(2 hours)"});
        assert_eq!(
            schedule_update_kind(&a, &renamed, false),
            UpdateKind::Replace
        );
        assert_eq!(schedule_update_kind(&a, &moved, false), UpdateKind::Move);
        assert_eq!(
            schedule_update_kind(&a, &default_named, false),
            UpdateKind::InPlace
        );
        assert_eq!(schedule_update_kind(&a, &a, true), UpdateKind::Replace);
    }
}
