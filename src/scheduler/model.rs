//! The Scheduler's domain shapes, named as in the EventBridge Scheduler API reference
//! (`../shared/reference/aws-contract.md` §4 and Appendix B), in Rust casing.
//!
//! Two layers, following "parse raw, then resolve":
//! - `*Input` types mirror a request exactly as sent, every member optional, enums as the
//!   strings the caller gave and integers as `i64`, so that validation
//!   (`crate::scheduler::validate`) can report what was wrong in AWS's words. The wire layer and
//!   the CloudFormation provider build these.
//! - Resolved types ([`Schedule`], [`Target`], [`ScheduleGroup`], ...) hold only validated values
//!   with AWS's defaults filled in. The store hands them out as `Arc<Schedule>` and never changes
//!   one in place: a change replaces it (with a new [`Schedule::generation`]).
//!
//! This module holds data only: no clock, no store, no HTTP.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::expression::ScheduleExpression;
use crate::ids::Scope;

/// The group every account and region has, which cannot be deleted.
pub const DEFAULT_GROUP: &str = "default";

/// `arn:aws:scheduler:<region>:<account>:schedule/<group>/<name>`.
pub fn schedule_arn(scope: &Scope, group: &str, name: &str) -> String {
    scope.arn("scheduler", &format!("schedule/{group}/{name}"))
}

/// `arn:aws:scheduler:<region>:<account>:schedule-group/<name>`.
pub fn schedule_group_arn(scope: &Scope, name: &str) -> String {
    scope.arn("scheduler", &format!("schedule-group/{name}"))
}

// ------------------------------------------------------------------------------------------
// Enums (resolved)
// ------------------------------------------------------------------------------------------

/// `ScheduleState`: whether a schedule fires. Default `ENABLED`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScheduleState {
    /// `ENABLED`.
    #[default]
    #[serde(rename = "ENABLED")]
    Enabled,
    /// `DISABLED`.
    #[serde(rename = "DISABLED")]
    Disabled,
}

impl ScheduleState {
    /// The model's enum values, in model order (Coral lists them in this order).
    pub const VALUES: &'static [&'static str] = &["ENABLED", "DISABLED"];

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleState::Enabled => "ENABLED",
            ScheduleState::Disabled => "DISABLED",
        }
    }

    /// Parses a wire value (exact, case-sensitive as AWS).
    pub fn parse(s: &str) -> Option<ScheduleState> {
        match s {
            "ENABLED" => Some(ScheduleState::Enabled),
            "DISABLED" => Some(ScheduleState::Disabled),
            _ => None,
        }
    }
}

/// `ActionAfterCompletion`: what happens to a one-time schedule once it has fired. Default `NONE`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ActionAfterCompletion {
    /// `NONE`: the schedule stays.
    #[default]
    #[serde(rename = "NONE")]
    None,
    /// `DELETE`: the schedule is deleted after its last invocation.
    #[serde(rename = "DELETE")]
    Delete,
}

impl ActionAfterCompletion {
    /// The model's enum values, in model order.
    pub const VALUES: &'static [&'static str] = &["NONE", "DELETE"];

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionAfterCompletion::None => "NONE",
            ActionAfterCompletion::Delete => "DELETE",
        }
    }

    /// Parses a wire value.
    pub fn parse(s: &str) -> Option<ActionAfterCompletion> {
        match s {
            "NONE" => Some(ActionAfterCompletion::None),
            "DELETE" => Some(ActionAfterCompletion::Delete),
            _ => None,
        }
    }
}

/// `FlexibleTimeWindowMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FlexibleTimeWindowMode {
    /// `OFF`: fire at the scheduled instant.
    #[serde(rename = "OFF")]
    Off,
    /// `FLEXIBLE`: fire within `MaximumWindowInMinutes` after it.
    #[serde(rename = "FLEXIBLE")]
    Flexible,
}

impl FlexibleTimeWindowMode {
    /// The model's enum values, in model order.
    pub const VALUES: &'static [&'static str] = &["OFF", "FLEXIBLE"];

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            FlexibleTimeWindowMode::Off => "OFF",
            FlexibleTimeWindowMode::Flexible => "FLEXIBLE",
        }
    }

    /// Parses a wire value.
    pub fn parse(s: &str) -> Option<FlexibleTimeWindowMode> {
        match s {
            "OFF" => Some(FlexibleTimeWindowMode::Off),
            "FLEXIBLE" => Some(FlexibleTimeWindowMode::Flexible),
            _ => None,
        }
    }
}

/// `ScheduleGroupState`. Cumulo deletes groups synchronously, so a group is never seen
/// `DELETING` (AWS shows it while the deletion runs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScheduleGroupState {
    /// `ACTIVE`.
    #[default]
    #[serde(rename = "ACTIVE")]
    Active,
    /// `DELETING`.
    #[serde(rename = "DELETING")]
    Deleting,
}

impl ScheduleGroupState {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleGroupState::Active => "ACTIVE",
            ScheduleGroupState::Deleting => "DELETING",
        }
    }
}

// ------------------------------------------------------------------------------------------
// Raw inputs (as sent)
// ------------------------------------------------------------------------------------------

/// `CreateScheduleInput` / `UpdateScheduleInput` as sent. Every member the model requires is
/// still an `Option` here: a missing one is reported as AWS reports it
/// (`Value null at 'target' failed to satisfy constraint: Member must not be null`).
/// Dates are instants (UTC); the wire sends epoch seconds, CloudFormation ISO strings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScheduleInput {
    /// `Name` (URI label): 1–64, `^[0-9a-zA-Z-_.]+$`.
    pub name: String,
    /// `GroupName`: the group to create in, or to look the schedule up in (`default` when
    /// omitted). UpdateSchedule cannot move a schedule between groups.
    pub group_name: Option<String>,
    /// `ScheduleExpression`: `at(...)`, `rate(...)` or `cron(...)`, 1–256 characters.
    pub schedule_expression: Option<String>,
    /// `ScheduleExpressionTimezone`: an IANA zone, 1–50 characters; default `UTC`.
    pub schedule_expression_timezone: Option<String>,
    /// `Description`: 0–512 characters.
    pub description: Option<String>,
    /// `StartDate` (recurring schedules only).
    pub start_date: Option<DateTime<Utc>>,
    /// `EndDate` (recurring schedules only).
    pub end_date: Option<DateTime<Utc>>,
    /// `State`: `ENABLED` | `DISABLED`; default `ENABLED`.
    pub state: Option<String>,
    /// `ActionAfterCompletion`: `NONE` | `DELETE`; default `NONE`.
    pub action_after_completion: Option<String>,
    /// `FlexibleTimeWindow` (required).
    pub flexible_time_window: Option<FlexibleTimeWindowInput>,
    /// `KmsKeyArn`.
    pub kms_key_arn: Option<String>,
    /// `Target` (required).
    pub target: Option<TargetInput>,
    /// `ClientToken`: idempotency token, 1–64 `^[a-zA-Z0-9-_]+$`.
    pub client_token: Option<String>,
}

/// `FlexibleTimeWindow` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlexibleTimeWindowInput {
    /// `Mode` (required): `OFF` | `FLEXIBLE`.
    pub mode: Option<String>,
    /// `MaximumWindowInMinutes`: 1–1440; required with `FLEXIBLE`, refused with `OFF`.
    pub maximum_window_in_minutes: Option<i64>,
}

/// `Target` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TargetInput {
    /// `Arn` (required): 1–1600; a templated target's resource or a universal target
    /// `arn:aws:scheduler:::aws-sdk:<service>:<action>`.
    pub arn: Option<String>,
    /// `RoleArn` (required): an IAM role ARN.
    pub role_arn: Option<String>,
    /// `Input`: at least 1 character; JSON for Lambda, Step Functions and EventBridge targets.
    pub input: Option<String>,
    /// `RetryPolicy`.
    pub retry_policy: Option<RetryPolicyInput>,
    /// `DeadLetterConfig`.
    pub dead_letter_config: Option<DeadLetterConfig>,
    /// `SqsParameters`.
    pub sqs_parameters: Option<SqsParameters>,
    /// `EventBridgeParameters`.
    pub event_bridge_parameters: Option<EventBridgeParametersInput>,
    /// `KinesisParameters`.
    pub kinesis_parameters: Option<KinesisParametersInput>,
    /// `SageMakerPipelineParameters`.
    pub sage_maker_pipeline_parameters: Option<SageMakerPipelineParameters>,
    /// `EcsParameters`.
    pub ecs_parameters: Option<EcsParameters>,
}

/// `RetryPolicy` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RetryPolicyInput {
    /// `MaximumEventAgeInSeconds`: 60–86400; default 86400.
    pub maximum_event_age_in_seconds: Option<i64>,
    /// `MaximumRetryAttempts`: 0–185; default 185.
    pub maximum_retry_attempts: Option<i64>,
}

/// `EventBridgeParameters` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EventBridgeParametersInput {
    /// `DetailType` (required): 1–128.
    pub detail_type: Option<String>,
    /// `Source` (required): 1–256, not starting with `aws.`.
    pub source: Option<String>,
}

/// `KinesisParameters` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KinesisParametersInput {
    /// `PartitionKey` (required): 1–256.
    pub partition_key: Option<String>,
}

/// `Tag` as sent (schedule groups only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TagInput {
    /// `Key` (required): 1–128; keys starting with `aws:` are reserved.
    pub key: Option<String>,
    /// `Value` (required): 1–256.
    pub value: Option<String>,
}

impl TagInput {
    /// A tag with both members set.
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> TagInput {
        TagInput {
            key: Some(key.into()),
            value: Some(value.into()),
        }
    }
}

/// `CreateScheduleGroupInput` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CreateScheduleGroupInput {
    /// `Name` (URI label): 1–64, `^[0-9a-zA-Z-_.]+$`.
    pub name: String,
    /// `Tags`: 0–200.
    pub tags: Option<Vec<TagInput>>,
    /// `ClientToken`.
    pub client_token: Option<String>,
}

/// `ListSchedulesInput` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListSchedulesInput {
    /// `ScheduleGroup` query parameter (member `GroupName`): only this group; it must exist.
    pub group_name: Option<String>,
    /// `NamePrefix`: 1–64, same pattern as names.
    pub name_prefix: Option<String>,
    /// `State`: `ENABLED` | `DISABLED`.
    pub state: Option<String>,
    /// `MaxResults`: 1–100; default 100.
    pub max_results: Option<i64>,
    /// `NextToken` from the previous page.
    pub next_token: Option<String>,
}

/// `ListScheduleGroupsInput` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListScheduleGroupsInput {
    /// `NamePrefix`: 1–64.
    pub name_prefix: Option<String>,
    /// `MaxResults`: 1–100; default 100.
    pub max_results: Option<i64>,
    /// `NextToken` from the previous page.
    pub next_token: Option<String>,
}

// ------------------------------------------------------------------------------------------
// Shapes that are the same raw and resolved (no required member, or kept as sent)
// ------------------------------------------------------------------------------------------

/// `DeadLetterConfig`: `Arn` is an SQS queue ARN.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DeadLetterConfig {
    /// `Arn`: `^arn:aws(-[a-z]+)?:sqs:[a-z0-9\-]+:\d{12}:[a-zA-Z0-9\-_]+$`.
    pub arn: Option<String>,
}

/// `SqsParameters`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SqsParameters {
    /// `MessageGroupId`: 1–128; required for a FIFO queue target.
    pub message_group_id: Option<String>,
}

/// `SageMakerPipelineParameters`, stored as sent once valid.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SageMakerPipelineParameters {
    /// `PipelineParameterList`: 0–200 items.
    pub pipeline_parameter_list: Option<Vec<SageMakerPipelineParameter>>,
}

/// `SageMakerPipelineParameter`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SageMakerPipelineParameter {
    /// `Name` (required): 1–256, `^[A-Za-z0-9\-_]*$`.
    pub name: Option<String>,
    /// `Value` (required): 1–1024.
    pub value: Option<String>,
}

/// `EcsParameters`, stored as sent once valid (a stored one always has `TaskDefinitionArn`).
/// Member names follow the model; its lower-case members (`awsvpcConfiguration`,
/// `capacityProvider`, ...) keep that casing on the wire.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EcsParameters {
    /// `TaskDefinitionArn` (required): 1–1600.
    pub task_definition_arn: Option<String>,
    /// `TaskCount`: 1–10.
    pub task_count: Option<i64>,
    /// `LaunchType`: `EC2` | `FARGATE` | `EXTERNAL`.
    pub launch_type: Option<String>,
    /// `NetworkConfiguration`.
    pub network_configuration: Option<NetworkConfiguration>,
    /// `PlatformVersion`: 1–64.
    pub platform_version: Option<String>,
    /// `Group`: 1–255.
    pub group: Option<String>,
    /// `CapacityProviderStrategy`: 0–6 items.
    pub capacity_provider_strategy: Option<Vec<CapacityProviderStrategyItem>>,
    /// `EnableECSManagedTags`.
    pub enable_ecs_managed_tags: Option<bool>,
    /// `EnableExecuteCommand`.
    pub enable_execute_command: Option<bool>,
    /// `PlacementConstraints`: 0–10 items.
    pub placement_constraints: Option<Vec<PlacementConstraint>>,
    /// `PlacementStrategy`: 0–5 items.
    pub placement_strategy: Option<Vec<PlacementStrategy>>,
    /// `PropagateTags`: `TASK_DEFINITION`.
    pub propagate_tags: Option<String>,
    /// `ReferenceId`: 0–1024.
    pub reference_id: Option<String>,
    /// `Tags`: 0–50 maps of key (1–128) to value (1–256), each map's entries in the order sent.
    pub tags: Option<Vec<Vec<(String, String)>>>,
}

/// `NetworkConfiguration`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetworkConfiguration {
    /// `awsvpcConfiguration`.
    pub awsvpc_configuration: Option<AwsVpcConfiguration>,
}

/// `AwsVpcConfiguration`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AwsVpcConfiguration {
    /// `Subnets` (required): 1–16 ids of 1–1000 characters.
    pub subnets: Option<Vec<String>>,
    /// `SecurityGroups`: 1–5 ids of 1–1000 characters.
    pub security_groups: Option<Vec<String>>,
    /// `AssignPublicIp`: `ENABLED` | `DISABLED`.
    pub assign_public_ip: Option<String>,
}

/// `CapacityProviderStrategyItem`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CapacityProviderStrategyItem {
    /// `capacityProvider` (required): 1–255.
    pub capacity_provider: Option<String>,
    /// `base`: 0–100000.
    pub base: Option<i64>,
    /// `weight`: 0–1000.
    pub weight: Option<i64>,
}

/// `PlacementConstraint`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlacementConstraint {
    /// `type`: `distinctInstance` | `memberOf`.
    pub r#type: Option<String>,
    /// `expression`: 0–2000.
    pub expression: Option<String>,
}

/// `PlacementStrategy`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlacementStrategy {
    /// `type`: `random` | `spread` | `binpack`.
    pub r#type: Option<String>,
    /// `field`: 0–255.
    pub field: Option<String>,
}

// ------------------------------------------------------------------------------------------
// Resolved shapes
// ------------------------------------------------------------------------------------------

/// A stored schedule (GetSchedule's shape), with AWS's defaults filled in.
///
/// Immutable once stored: the store replaces the whole value on UpdateSchedule, with a new
/// `generation`. Its ARN needs the scope it lives in: [`Schedule::arn`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "ScheduleRecord", try_from = "ScheduleRecord")]
pub struct Schedule {
    /// `Name`.
    pub name: String,
    /// `GroupName`.
    pub group_name: String,
    /// `ScheduleExpression`, exactly as sent (`rate(2 minute)` stays as is).
    pub schedule_expression: String,
    /// The parsed expression.
    pub expression: ScheduleExpression,
    /// `ScheduleExpressionTimezone` (default `UTC`); its name is `timezone.name()`.
    pub timezone: Tz,
    /// `Description`, omitted when not set.
    pub description: Option<String>,
    /// `StartDate`, omitted when not set.
    pub start_date: Option<DateTime<Utc>>,
    /// `EndDate`, omitted when not set.
    pub end_date: Option<DateTime<Utc>>,
    /// `State` (default `ENABLED`).
    pub state: ScheduleState,
    /// `ActionAfterCompletion` (default `NONE`).
    pub action_after_completion: ActionAfterCompletion,
    /// `FlexibleTimeWindow`.
    pub flexible_time_window: FlexibleTimeWindow,
    /// `KmsKeyArn`, omitted when not set.
    pub kms_key_arn: Option<String>,
    /// `Target`.
    pub target: Target,
    /// `CreationDate` (the clock's time at CreateSchedule; kept by updates).
    pub creation_date: DateTime<Utc>,
    /// `LastModificationDate` (the clock's time at the last create or update).
    pub last_modification_date: DateTime<Utc>,
    /// Changes with every create and update of this name (never reused, also across
    /// deletion and re-creation), so a dispatcher can tell a stale queue entry.
    pub generation: u64,
}

impl Schedule {
    /// `arn:aws:scheduler:<region>:<account>:schedule/<group>/<name>` in `scope`.
    pub fn arn(&self, scope: &Scope) -> String {
        schedule_arn(scope, &self.group_name, &self.name)
    }

    /// `ScheduleExpressionTimezone` as returned by GetSchedule.
    pub fn schedule_expression_timezone(&self) -> &'static str {
        self.timezone.name()
    }
}

/// `FlexibleTimeWindow` (resolved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FlexibleTimeWindow {
    /// `Mode`.
    pub mode: FlexibleTimeWindowMode,
    /// `MaximumWindowInMinutes` (1–1440), set exactly when `mode` is `FLEXIBLE`.
    pub maximum_window_in_minutes: Option<u32>,
}

/// `Target` (resolved).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Target {
    /// `Arn`.
    pub arn: String,
    /// `RoleArn`.
    pub role_arn: String,
    /// `Input`, omitted when not set.
    pub input: Option<String>,
    /// `RetryPolicy`, defaults filled in (always returned by GetSchedule).
    pub retry_policy: RetryPolicy,
    /// `DeadLetterConfig`.
    pub dead_letter_config: Option<Box<DeadLetterConfig>>,
    /// `SqsParameters`.
    pub sqs_parameters: Option<Box<SqsParameters>>,
    /// `EventBridgeParameters`.
    pub event_bridge_parameters: Option<Box<EventBridgeParameters>>,
    /// `KinesisParameters`.
    pub kinesis_parameters: Option<Box<KinesisParameters>>,
    /// `SageMakerPipelineParameters`.
    pub sage_maker_pipeline_parameters: Option<Box<SageMakerPipelineParameters>>,
    /// `EcsParameters`.
    pub ecs_parameters: Option<Box<EcsParameters>>,
}

/// `RetryPolicy` (resolved): how long and how often a failed invocation is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// `MaximumEventAgeInSeconds` (60–86400; default 86400), in seconds.
    pub maximum_event_age_in_seconds: u32,
    /// `MaximumRetryAttempts` (0–185; default 185).
    pub maximum_retry_attempts: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            maximum_event_age_in_seconds: 86_400,
            maximum_retry_attempts: 185,
        }
    }
}

/// `EventBridgeParameters` (resolved).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EventBridgeParameters {
    /// `DetailType`.
    pub detail_type: String,
    /// `Source`.
    pub source: String,
}

/// `KinesisParameters` (resolved).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KinesisParameters {
    /// `PartitionKey`.
    pub partition_key: String,
}

/// A schedule group (GetScheduleGroup's shape; tags are read with ListTagsForResource).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleGroup {
    /// `Name`.
    pub name: String,
    /// `State`.
    pub state: ScheduleGroupState,
    /// `CreationDate`; `None` for the `default` group, which AWS lists without dates.
    pub creation_date: Option<DateTime<Utc>>,
    /// `LastModificationDate`; `None` for the `default` group.
    pub last_modification_date: Option<DateTime<Utc>>,
}

impl ScheduleGroup {
    /// `arn:aws:scheduler:<region>:<account>:schedule-group/<name>` in `scope`.
    pub fn arn(&self, scope: &Scope) -> String {
        schedule_group_arn(scope, &self.name)
    }
}

/// A group's tag (resolved).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tag {
    /// `Key`.
    pub key: String,
    /// `Value`.
    pub value: String,
}

/// One page of ListSchedules: summaries are read from the schedules themselves
/// (`Arn, CreationDate, GroupName, LastModificationDate, Name, State, Target.Arn`).
#[derive(Clone, Debug, Default)]
pub struct ListSchedulesOutput {
    /// The page, ordered by group name then schedule name.
    pub schedules: Vec<std::sync::Arc<Schedule>>,
    /// Present when more schedules may follow.
    pub next_token: Option<String>,
}

/// One page of ListScheduleGroups.
#[derive(Clone, Debug, Default)]
pub struct ListScheduleGroupsOutput {
    /// The page: `default` first, then the other groups by name.
    pub schedule_groups: Vec<ScheduleGroup>,
    /// Present when more groups may follow.
    pub next_token: Option<String>,
}

// ------------------------------------------------------------------------------------------
// Dispatcher hooks
// ------------------------------------------------------------------------------------------

/// Where a schedule lives: its scope, group and name. The store's key, and the dispatcher's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScheduleKey {
    /// Account and region.
    pub scope: Scope,
    /// Group name.
    pub group: String,
    /// Schedule name.
    pub name: String,
}

impl ScheduleKey {
    /// A key from its parts.
    pub fn new(scope: Scope, group: impl Into<String>, name: impl Into<String>) -> ScheduleKey {
        ScheduleKey {
            scope,
            group: group.into(),
            name: name.into(),
        }
    }

    /// The schedule's ARN.
    pub fn arn(&self) -> String {
        schedule_arn(&self.scope, &self.group, &self.name)
    }
}

/// A change to the set of schedules, sent to the subscriber of
/// [`Scheduler::subscribe_changes`](super::Scheduler::subscribe_changes) in the order the
/// changes happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleChange {
    /// The schedule was created or updated (this includes enabling and disabling); read it
    /// with [`Scheduler::schedule`](super::Scheduler::schedule). Its generation is `generation`.
    Upserted {
        /// Which schedule.
        key: ScheduleKey,
        /// The new generation.
        generation: u64,
    },
    /// The schedule (of that generation) was deleted, directly, with its group, or after
    /// completion.
    Deleted {
        /// Which schedule.
        key: ScheduleKey,
        /// The generation that was deleted.
        generation: u64,
    },
    /// Every schedule of every scope was deleted (`POST /_cumulo/reset`).
    Reset,
}

// ------------------------------------------------------------------------------------------
// Stored form
// ------------------------------------------------------------------------------------------

/// How a [`Schedule`] is written to the durable store: plain data, the expression and zone as
/// text (parsed again when read back).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ScheduleRecord {
    name: String,
    group_name: String,
    schedule_expression: String,
    schedule_expression_timezone: String,
    description: Option<String>,
    start_date: Option<DateTime<Utc>>,
    end_date: Option<DateTime<Utc>>,
    state: ScheduleState,
    action_after_completion: ActionAfterCompletion,
    flexible_time_window: FlexibleTimeWindow,
    kms_key_arn: Option<String>,
    target: Target,
    creation_date: DateTime<Utc>,
    last_modification_date: DateTime<Utc>,
    generation: u64,
}

impl From<Schedule> for ScheduleRecord {
    fn from(s: Schedule) -> Self {
        ScheduleRecord {
            schedule_expression_timezone: s.timezone.name().to_string(),
            name: s.name,
            group_name: s.group_name,
            schedule_expression: s.schedule_expression,
            description: s.description,
            start_date: s.start_date,
            end_date: s.end_date,
            state: s.state,
            action_after_completion: s.action_after_completion,
            flexible_time_window: s.flexible_time_window,
            kms_key_arn: s.kms_key_arn,
            target: s.target,
            creation_date: s.creation_date,
            last_modification_date: s.last_modification_date,
            generation: s.generation,
        }
    }
}

impl TryFrom<ScheduleRecord> for Schedule {
    type Error = String;

    fn try_from(r: ScheduleRecord) -> Result<Self, Self::Error> {
        let expression =
            ScheduleExpression::parse(&r.schedule_expression).map_err(|e| e.to_string())?;
        let timezone = super::expression::parse_timezone(&r.schedule_expression_timezone)
            .map_err(|e| e.to_string())?;
        Ok(Schedule {
            name: r.name,
            group_name: r.group_name,
            schedule_expression: r.schedule_expression,
            expression,
            timezone,
            description: r.description,
            start_date: r.start_date,
            end_date: r.end_date,
            state: r.state,
            action_after_completion: r.action_after_completion,
            flexible_time_window: r.flexible_time_window,
            kms_key_arn: r.kms_key_arn,
            target: r.target,
            creation_date: r.creation_date,
            last_modification_date: r.last_modification_date,
            generation: r.generation,
        })
    }
}
