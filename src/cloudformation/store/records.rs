//! The records the stack store keeps, as the API shows them (aws-contract.md §2.5): stacks,
//! their resources and events, change sets, and the journal an update keeps for its rollback.
//! Plain data with serde for the durable store; the fields that carry a status (and its reason
//! and time) are private to `store`, whose lifecycle methods are the only code that moves them,
//! through the transition functions of `status`. Everything else is public data.

use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::id::{LogicalId, PhysicalId, StackId};
use super::super::model::{
    ChangeSetType, OnFailure, Output, Parameter, ResourceChange, RollbackConfiguration, Tag,
};
use super::super::status::{ChangeSetStatus, ExecutionStatus, ResourceStatus, StackStatus};

/// One resource of a stack as the store keeps it (DescribeStackResource(s),
/// ListStackResources), with what the engine needs to update, restore and delete it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceRecord {
    /// Logical id.
    pub logical_id: LogicalId,
    /// Resource type, e.g. `AWS::Scheduler::Schedule`.
    pub type_name: String,
    /// Physical id; `None` before the provider made one.
    pub physical_id: Option<PhysicalId>,
    /// Status: changed only by the store's lifecycle methods.
    pub(super) status: ResourceStatus,
    /// Status reason.
    pub(super) status_reason: Option<String>,
    /// When the status last changed (UTC): the timestamp of its latest event.
    pub(super) last_updated: DateTime<Utc>,
    /// The resolved properties the physical resource was last made or updated with.
    pub properties: Value,
    /// Its `Ref` value.
    pub ref_value: Option<Value>,
    /// Its `Fn::GetAtt` values.
    pub attributes: IndexMap<String, Value>,
    /// `DeletionPolicy` (`Delete` when absent).
    pub deletion_policy: Option<String>,
    /// `UpdateReplacePolicy` (`Delete` when absent).
    pub update_replace_policy: Option<String>,
    /// `Metadata` (DescribeStackResource shows it as JSON text, `{}` when absent).
    pub metadata: Option<Value>,
    /// Whether the physical resource exists (false for a CREATE_FAILED resource the provider
    /// never made).
    pub exists: bool,
}

impl ResourceRecord {
    /// A resource about to be created (CREATE_IN_PROGRESS once the store adds it), with no
    /// properties, physical id or values yet.
    pub fn new(logical_id: LogicalId, type_name: &str, now: DateTime<Utc>) -> ResourceRecord {
        ResourceRecord {
            logical_id,
            type_name: type_name.to_string(),
            physical_id: None,
            status: ResourceStatus::CreateInProgress,
            status_reason: None,
            last_updated: now,
            properties: Value::Object(Default::default()),
            ref_value: None,
            attributes: IndexMap::new(),
            deletion_policy: None,
            update_replace_policy: None,
            metadata: None,
            exists: false,
        }
    }

    /// Status.
    pub fn status(&self) -> ResourceStatus {
        self.status
    }

    /// Status reason.
    pub fn status_reason(&self) -> Option<&str> {
        self.status_reason.as_deref()
    }

    /// When the status last changed (UTC).
    pub fn last_updated(&self) -> DateTime<Utc> {
        self.last_updated
    }

    /// The physical id as text (`""` before the provider made one).
    pub fn physical_text(&self) -> &str {
        self.physical_id.as_ref().map_or("", PhysicalId::as_str)
    }

    /// True when `DeletionPolicy` keeps the physical resource on delete or removal.
    pub fn retained_on_delete(&self) -> bool {
        matches!(
            self.deletion_policy.as_deref(),
            Some("Retain") | Some("RetainExceptOnCreate") | Some("Snapshot")
        )
    }
}

/// A stack event (`StackEvent`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackEventRecord {
    /// Position in the stack's event log (0 = oldest); orders events whose timestamps are equal.
    pub seq: u64,
    /// `EventId`: a UUID for stack events, `<LogicalId>-<STATUS>-<timestamp>` or
    /// `<LogicalId>-<uuid>` for resource events.
    pub event_id: String,
    /// `LogicalResourceId` (the stack name for stack events).
    pub logical_id: String,
    /// `PhysicalResourceId` (`""` before a resource has one; the StackId for stack events).
    pub physical_id: String,
    /// `ResourceType` (`AWS::CloudFormation::Stack` for stack events).
    pub resource_type: String,
    /// `Timestamp` (UTC).
    pub timestamp: DateTime<Utc>,
    /// `ResourceStatus` (a StackStatus or ResourceStatus name).
    pub status: String,
    /// `ResourceStatusReason`.
    pub reason: Option<String>,
    /// `ResourceProperties`: the resolved properties as JSON text.
    pub properties: Option<String>,
}

/// The stack-level record: everything DescribeStacks shows plus what later operations need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StackRecord {
    /// `arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>`.
    pub stack_id: StackId,
    /// Name.
    pub stack_name: String,
    /// Status: changed only by the store's lifecycle methods.
    pub(super) status: StackStatus,
    /// `StackStatusReason`.
    pub(super) status_reason: Option<String>,
    /// `CreationTime` (UTC).
    pub creation_time: DateTime<Utc>,
    /// `LastUpdatedTime`: set by change-set executions and updates.
    pub last_updated_time: Option<DateTime<Utc>>,
    /// `DeletionTime`.
    pub deletion_time: Option<DateTime<Utc>>,
    /// `ChangeSetId` of the last executed change set.
    pub change_set_id: Option<String>,
    /// The current template's text ("" for a REVIEW_IN_PROGRESS stack).
    pub template_body: String,
    /// The template `Description`.
    pub description: Option<String>,
    /// Parameters as bound for the current template (template module's form, for
    /// UsePreviousValue and re-evaluation).
    pub bound_parameters: Option<Value>,
    /// Parameters as DescribeStacks shows them.
    pub parameters: Vec<Parameter>,
    /// `Capabilities` given.
    pub capabilities: Vec<String>,
    /// `NotificationARNs`.
    pub notification_arns: Vec<String>,
    /// `Tags`.
    pub tags: Vec<Tag>,
    /// `Outputs` (None when the template has none).
    pub outputs: Vec<Output>,
    /// `DisableRollback`.
    pub disable_rollback: bool,
    /// `TimeoutInMinutes`.
    pub timeout_in_minutes: Option<i64>,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `EnableTerminationProtection`.
    pub enable_termination_protection: bool,
    /// The stack policy (SetStackPolicy / StackPolicyBody), stored, not enforced.
    pub stack_policy_body: Option<String>,
    /// `RollbackConfiguration`.
    pub rollback_configuration: RollbackConfiguration,
    /// `RetainExceptOnCreate`.
    pub retain_except_on_create: bool,
    /// Export names this stack's resources and outputs import (ListImports).
    pub imports: Vec<String>,
    /// The journal of the update in flight, failed, or being rolled back.
    pub journal: Option<Box<UpdateJournal>>,
}

impl StackRecord {
    /// A stack named `stack_name` made at `creation_time`, with nothing else set yet; its
    /// status is given when the store opens it ([`super::Region::open_stack`]).
    pub fn new(stack_id: StackId, stack_name: &str, creation_time: DateTime<Utc>) -> StackRecord {
        StackRecord {
            stack_id,
            stack_name: stack_name.to_string(),
            status: StackStatus::ReviewInProgress,
            status_reason: None,
            creation_time,
            last_updated_time: None,
            deletion_time: None,
            change_set_id: None,
            template_body: String::new(),
            description: None,
            bound_parameters: None,
            parameters: Vec::new(),
            capabilities: Vec::new(),
            notification_arns: Vec::new(),
            tags: Vec::new(),
            outputs: Vec::new(),
            disable_rollback: false,
            timeout_in_minutes: None,
            role_arn: None,
            enable_termination_protection: false,
            stack_policy_body: None,
            rollback_configuration: RollbackConfiguration::default(),
            retain_except_on_create: false,
            imports: Vec::new(),
            journal: None,
        }
    }

    /// Status.
    pub fn status(&self) -> StackStatus {
        self.status
    }

    /// `StackStatusReason`.
    pub fn status_reason(&self) -> Option<&str> {
        self.status_reason.as_deref()
    }
}

/// What an update did, kept until it commits or is rolled back: the stack as it was before
/// (template, parameters, outputs, ...) and, per resource the update touched, the record before
/// the change (the snapshot a rollback restores) and what the update created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UpdateJournal {
    /// Template text before the update.
    pub template_body: String,
    /// Description before the update.
    pub description: Option<String>,
    /// Bound parameters before the update.
    pub bound_parameters: Option<Value>,
    /// Shown parameters before the update.
    pub parameters: Vec<Parameter>,
    /// Outputs before the update.
    pub outputs: Vec<Output>,
    /// Capabilities before the update.
    pub capabilities: Vec<String>,
    /// Tags before the update.
    pub tags: Vec<Tag>,
    /// Notification ARNs before the update.
    pub notification_arns: Vec<String>,
    /// Imports before the update.
    pub imports: Vec<String>,
    /// Resource order before the update.
    pub resource_order: Vec<LogicalId>,
    /// The resources the update touched, in the order it touched them.
    pub entries: Vec<JournalEntry>,
}

/// How an update step changed a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepKind {
    /// Created by the update.
    Add,
    /// Changed in place.
    InPlace,
    /// Replaced by a new physical resource.
    Replace,
    /// Moved (a schedule's group change).
    Move,
    /// Only the record changed (metadata, policies).
    RecordOnly,
}

/// One resource an update touched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Logical id.
    pub logical_id: LogicalId,
    /// What the step did.
    pub kind: StepKind,
    /// The record before the step (None for Add): the snapshot a rollback restores.
    pub before: Option<ResourceRecord>,
    /// What the step created (Add, Replace, Move destination): deleted by the rollback's cleanup.
    pub created: Option<ResourceRecord>,
    /// Whether the step finished (false: it failed).
    pub succeeded: bool,
    /// Whether a rollback has put the resource back.
    pub restored: bool,
}

/// A change set as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeSetRecord {
    /// `arn:aws:cloudformation:<region>:<account>:changeSet/<name>/<uuid>`.
    pub change_set_id: String,
    /// Name.
    pub change_set_name: String,
    /// Stack id.
    pub stack_id: StackId,
    /// Stack name.
    pub stack_name: String,
    /// `Description`.
    pub description: Option<String>,
    /// `Status`: changed only by the store's lifecycle methods.
    pub(super) status: ChangeSetStatus,
    /// `ExecutionStatus`: changed only by the store's lifecycle methods.
    pub(super) execution_status: ExecutionStatus,
    /// `StatusReason`.
    pub(super) status_reason: Option<String>,
    /// `CreationTime`.
    pub creation_time: DateTime<Utc>,
    /// CREATE or UPDATE.
    pub change_set_type: ChangeSetType,
    /// Template text.
    pub template_body: String,
    /// Bound parameters (template module's form).
    pub bound_parameters: Option<Value>,
    /// Parameters as shown.
    pub parameters: Vec<Parameter>,
    /// `Capabilities` given.
    pub capabilities: Vec<String>,
    /// `Tags` for the stack (None: keep the stack's tags).
    pub tags: Option<Vec<Tag>>,
    /// `NotificationARNs` (None: keep the stack's).
    pub notification_arns: Option<Vec<String>>,
    /// `RollbackConfiguration`.
    pub rollback_configuration: RollbackConfiguration,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `OnStackFailure` given.
    pub on_stack_failure: Option<OnFailure>,
    /// `IncludeNestedStacks`.
    pub include_nested_stacks: bool,
    /// `Changes`.
    pub changes: Vec<ResourceChange>,
}

impl ChangeSetRecord {
    /// A change set about to be computed (CREATE_PENDING, UNAVAILABLE until the store adds it
    /// with its outcome, [`super::Region::add_change_set`]), with no changes yet.
    pub fn new(
        change_set_id: String,
        change_set_name: &str,
        stack: (&StackId, &str),
        change_set_type: ChangeSetType,
        creation_time: DateTime<Utc>,
    ) -> ChangeSetRecord {
        ChangeSetRecord {
            change_set_id,
            change_set_name: change_set_name.to_string(),
            stack_id: stack.0.clone(),
            stack_name: stack.1.to_string(),
            description: None,
            status: ChangeSetStatus::CreatePending,
            execution_status: ExecutionStatus::Unavailable,
            status_reason: None,
            creation_time,
            change_set_type,
            template_body: String::new(),
            bound_parameters: None,
            parameters: Vec::new(),
            capabilities: Vec::new(),
            tags: None,
            notification_arns: None,
            rollback_configuration: RollbackConfiguration::default(),
            role_arn: None,
            on_stack_failure: None,
            include_nested_stacks: false,
            changes: Vec::new(),
        }
    }

    /// `Status`.
    pub fn status(&self) -> ChangeSetStatus {
        self.status
    }

    /// `ExecutionStatus`.
    pub fn execution_status(&self) -> ExecutionStatus {
        self.execution_status
    }

    /// `StatusReason`.
    pub fn status_reason(&self) -> Option<&str> {
        self.status_reason.as_deref()
    }
}

/// One resource of a stack with its stack's identity (DescribeStackResource(s)).
#[derive(Clone, Debug, PartialEq)]
pub struct StackResourceView {
    /// Stack name.
    pub stack_name: String,
    /// Stack id.
    pub stack_id: StackId,
    /// The resource.
    pub resource: ResourceRecord,
}
