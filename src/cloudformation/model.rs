//! CloudFormation records and operation shapes, named as in the API reference
//! (aws-contract.md §2.5, Appendix A): what the store keeps (stacks, resources, events, change
//! sets, exports) and what each operation takes and answers. Plain data: serde for the durable
//! store, no wire encoding (that is `protocol::wire::cloudformation`), no behaviour beyond
//! small accessors.

use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::status::{ChangeSetStatus, ExecutionStatus, ResourceStatus, StackStatus};

/// A stack tag (`Tag`): Key 1–128, Value 1–256 characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tag {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
}

/// A parameter as DescribeStacks / DescribeChangeSet show it (`Parameter`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameter {
    /// `ParameterKey`.
    pub key: String,
    /// `ParameterValue` (`****` for NoEcho; the SSM name for SSM parameter types).
    pub value: String,
    /// `ResolvedValue`: the fetched value of an `AWS::SSM::Parameter::Value<...>` parameter.
    pub resolved_value: Option<String>,
}

/// A parameter as a request gives it (`Parameter` in CreateStack, UpdateStack, CreateChangeSet).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParameterSpec {
    /// `ParameterKey`.
    pub key: String,
    /// `ParameterValue`, absent with `UsePreviousValue`.
    pub value: Option<String>,
    /// `UsePreviousValue`.
    pub use_previous_value: bool,
}

/// A stack output (`Output`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Output {
    /// `OutputKey`.
    pub key: String,
    /// `OutputValue` (lists joined with commas, as AWS shows them).
    pub value: String,
    /// `Description`.
    pub description: Option<String>,
    /// `ExportName`.
    pub export_name: Option<String>,
}

/// `RollbackConfiguration`: stored and echoed; Cumulo has no alarms to monitor.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollbackConfiguration {
    /// `RollbackTriggers[]` as (Arn, Type).
    pub triggers: Vec<(String, String)>,
    /// `MonitoringTimeInMinutes`.
    pub monitoring_time_in_minutes: Option<i64>,
}

/// What a stack does when its create fails (`OnFailure` / `OnStackFailure`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnFailure {
    /// Stop in CREATE_FAILED (same as DisableRollback).
    DoNothing,
    /// Delete what was created: ROLLBACK_COMPLETE (the default).
    #[default]
    Rollback,
    /// Delete the stack: DELETE_COMPLETE.
    Delete,
}

impl OnFailure {
    /// Parses `DO_NOTHING` / `ROLLBACK` / `DELETE`.
    pub fn parse(text: &str) -> Option<OnFailure> {
        match text {
            "DO_NOTHING" => Some(OnFailure::DoNothing),
            "ROLLBACK" => Some(OnFailure::Rollback),
            "DELETE" => Some(OnFailure::Delete),
            _ => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            OnFailure::DoNothing => "DO_NOTHING",
            OnFailure::Rollback => "ROLLBACK",
            OnFailure::Delete => "DELETE",
        }
    }
}

/// One resource of a stack as the store keeps it (DescribeStackResource(s),
/// ListStackResources), with what the engine needs to update, restore and delete it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceRecord {
    /// Logical id.
    pub logical_id: String,
    /// Resource type, e.g. `AWS::Scheduler::Schedule`.
    pub type_name: String,
    /// Physical id; `None` before the provider made one.
    pub physical_id: Option<String>,
    /// Status.
    pub status: ResourceStatus,
    /// Status reason.
    pub status_reason: Option<String>,
    /// When the status last changed (UTC).
    pub last_updated: DateTime<Utc>,
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
    pub stack_id: String,
    /// Name.
    pub stack_name: String,
    /// Status.
    pub status: StackStatus,
    /// `StackStatusReason`.
    pub status_reason: Option<String>,
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
    pub resource_order: Vec<String>,
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
    pub logical_id: String,
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

/// `CREATE`, `UPDATE` or `IMPORT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChangeSetType {
    /// Creates the stack (which waits in REVIEW_IN_PROGRESS).
    Create,
    /// Updates an existing stack.
    Update,
}

/// `Add`, `Modify`, `Remove` (`ChangeAction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChangeAction {
    /// A new resource.
    Add,
    /// A changed resource.
    Modify,
    /// A resource leaving the template.
    Remove,
}

impl ChangeAction {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeAction::Add => "Add",
            ChangeAction::Modify => "Modify",
            ChangeAction::Remove => "Remove",
        }
    }
}

/// `ResourceChangeDetail`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeDetail {
    /// `Target.Attribute`: `Properties`, `Metadata`, `DeletionPolicy`, `UpdateReplacePolicy`, `Tags`, ...
    pub attribute: String,
    /// `Target.Name`: the property name (Properties only).
    pub name: Option<String>,
    /// `Target.RequiresRecreation`: `Never`, `Conditionally`, `Always`.
    pub requires_recreation: Option<String>,
    /// `Evaluation`: `Static` or `Dynamic`.
    pub evaluation: String,
    /// `ChangeSource`: `DirectModification`, `ParameterReference`, `ResourceReference`,
    /// `ResourceAttribute`.
    pub change_source: String,
    /// `CausingEntity`: the parameter, `LogicalId` or `LogicalId.Attribute`.
    pub causing_entity: Option<String>,
}

/// `ResourceChange`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceChange {
    /// `Action`.
    pub action: ChangeAction,
    /// `LogicalResourceId`.
    pub logical_id: String,
    /// `PhysicalResourceId` (absent for Add).
    pub physical_id: Option<String>,
    /// `ResourceType`.
    pub resource_type: String,
    /// `Replacement` (Modify only): `True`, `False`, `Conditional`.
    pub replacement: Option<String>,
    /// `PolicyAction`: `Delete`, `Retain`, `ReplaceAndDelete`, `ReplaceAndRetain`, ...
    pub policy_action: Option<String>,
    /// `Scope`.
    pub scope: Vec<String>,
    /// `Details`.
    pub details: Vec<ChangeDetail>,
    /// `BeforeContext` (JSON text, IncludePropertyValues only).
    pub before_context: Option<String>,
    /// `AfterContext` (JSON text, IncludePropertyValues only).
    pub after_context: Option<String>,
}

/// A change set as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeSetRecord {
    /// `arn:aws:cloudformation:<region>:<account>:changeSet/<name>/<uuid>`.
    pub change_set_id: String,
    /// Name.
    pub change_set_name: String,
    /// Stack id.
    pub stack_id: String,
    /// Stack name.
    pub stack_name: String,
    /// `Description`.
    pub description: Option<String>,
    /// `Status`.
    pub status: ChangeSetStatus,
    /// `ExecutionStatus`.
    pub execution_status: ExecutionStatus,
    /// `StatusReason`.
    pub status_reason: Option<String>,
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

/// An export (`Export`) as ListExports shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    /// `ExportingStackId`.
    pub exporting_stack_id: String,
    /// `Name`.
    pub name: String,
    /// `Value`.
    pub value: String,
}

/// One page of a paginated list.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<T> {
    /// The items.
    pub items: Vec<T>,
    /// `NextToken` when more remain.
    pub next_token: Option<String>,
}

/// Where a template comes from: `TemplateBody`, `TemplateURL`, `UsePreviousTemplate`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateSource {
    /// `TemplateBody`.
    pub body: Option<String>,
    /// `TemplateURL`.
    pub url: Option<String>,
    /// `UsePreviousTemplate`.
    pub use_previous: bool,
}

/// CreateStack input (`CreateStackInput`).
#[derive(Clone, Debug, Default)]
pub struct CreateStackInput {
    /// `StackName`.
    pub stack_name: String,
    /// The template.
    pub template: TemplateSource,
    /// `Parameters`.
    pub parameters: Vec<ParameterSpec>,
    /// `DisableRollback`.
    pub disable_rollback: Option<bool>,
    /// `RollbackConfiguration`.
    pub rollback_configuration: Option<RollbackConfiguration>,
    /// `TimeoutInMinutes`.
    pub timeout_in_minutes: Option<i64>,
    /// `NotificationARNs`.
    pub notification_arns: Vec<String>,
    /// `Capabilities`.
    pub capabilities: Vec<String>,
    /// `ResourceTypes`.
    pub resource_types: Option<Vec<String>>,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `OnFailure`.
    pub on_failure: Option<OnFailure>,
    /// `StackPolicyBody`.
    pub stack_policy_body: Option<String>,
    /// `StackPolicyURL`.
    pub stack_policy_url: Option<String>,
    /// `Tags`.
    pub tags: Vec<Tag>,
    /// `ClientRequestToken`.
    pub client_request_token: Option<String>,
    /// `EnableTerminationProtection`.
    pub enable_termination_protection: bool,
    /// `RetainExceptOnCreate`.
    pub retain_except_on_create: bool,
}

/// UpdateStack input (`UpdateStackInput`).
#[derive(Clone, Debug, Default)]
pub struct UpdateStackInput {
    /// `StackName` (name or id).
    pub stack_name: String,
    /// The template.
    pub template: TemplateSource,
    /// `Parameters`.
    pub parameters: Vec<ParameterSpec>,
    /// `Capabilities`.
    pub capabilities: Vec<String>,
    /// `ResourceTypes`.
    pub resource_types: Option<Vec<String>>,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `RollbackConfiguration`.
    pub rollback_configuration: Option<RollbackConfiguration>,
    /// `StackPolicyBody`.
    pub stack_policy_body: Option<String>,
    /// `StackPolicyURL`.
    pub stack_policy_url: Option<String>,
    /// `NotificationARNs` (None: keep).
    pub notification_arns: Option<Vec<String>>,
    /// `Tags` (None: keep; empty: remove all).
    pub tags: Option<Vec<Tag>>,
    /// `DisableRollback`.
    pub disable_rollback: Option<bool>,
    /// `ClientRequestToken`.
    pub client_request_token: Option<String>,
    /// `RetainExceptOnCreate`.
    pub retain_except_on_create: Option<bool>,
}

/// CreateChangeSet input (`CreateChangeSetInput`).
#[derive(Clone, Debug)]
pub struct CreateChangeSetInput {
    /// `StackName` (name or id).
    pub stack_name: String,
    /// `ChangeSetName`.
    pub change_set_name: String,
    /// `ChangeSetType` (default UPDATE).
    pub change_set_type: ChangeSetType,
    /// The template.
    pub template: TemplateSource,
    /// `Parameters`.
    pub parameters: Vec<ParameterSpec>,
    /// `Capabilities`.
    pub capabilities: Vec<String>,
    /// `ResourceTypes`.
    pub resource_types: Option<Vec<String>>,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `RollbackConfiguration`.
    pub rollback_configuration: Option<RollbackConfiguration>,
    /// `NotificationARNs` (None: keep).
    pub notification_arns: Option<Vec<String>>,
    /// `Tags` (None: keep; empty: remove all).
    pub tags: Option<Vec<Tag>>,
    /// `Description`.
    pub description: Option<String>,
    /// `IncludeNestedStacks`.
    pub include_nested_stacks: bool,
    /// `OnStackFailure`.
    pub on_stack_failure: Option<OnFailure>,
}

/// ExecuteChangeSet input.
#[derive(Clone, Debug, Default)]
pub struct ExecuteChangeSetInput {
    /// `ChangeSetName` (name or ARN).
    pub change_set_name: String,
    /// `StackName` (needed when the change set is given by name).
    pub stack_name: Option<String>,
    /// `DisableRollback`.
    pub disable_rollback: Option<bool>,
    /// `RetainExceptOnCreate`.
    pub retain_except_on_create: Option<bool>,
    /// `ClientRequestToken`.
    pub client_request_token: Option<String>,
}

/// DeleteStack input.
#[derive(Clone, Debug, Default)]
pub struct DeleteStackInput {
    /// `StackName` (name or id).
    pub stack_name: String,
    /// `RetainResources`.
    pub retain_resources: Vec<String>,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `ClientRequestToken`.
    pub client_request_token: Option<String>,
    /// `DeletionMode`: `STANDARD` or `FORCE_DELETE_STACK`.
    pub deletion_mode: Option<String>,
}

/// A template parameter as GetTemplateSummary (`ParameterDeclaration`) and ValidateTemplate
/// (`TemplateParameter`) show it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParameterDeclaration {
    /// `ParameterKey`.
    pub key: String,
    /// `DefaultValue`.
    pub default_value: Option<String>,
    /// `ParameterType`.
    pub parameter_type: String,
    /// `NoEcho`.
    pub no_echo: bool,
    /// `Description`.
    pub description: Option<String>,
    /// `ParameterConstraints.AllowedValues`.
    pub allowed_values: Vec<String>,
}

/// GetTemplateSummary / ValidateTemplate output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateSummary {
    /// `Parameters`.
    pub parameters: Vec<ParameterDeclaration>,
    /// `Description`.
    pub description: Option<String>,
    /// `Capabilities`.
    pub capabilities: Vec<String>,
    /// `CapabilitiesReason`.
    pub capabilities_reason: Option<String>,
    /// `ResourceTypes` (distinct, template order).
    pub resource_types: Vec<String>,
    /// `Version` (`AWSTemplateFormatVersion`).
    pub version: Option<String>,
    /// `Metadata` as JSON text.
    pub metadata: Option<String>,
    /// `DeclaredTransforms`.
    pub declared_transforms: Vec<String>,
    /// `ResourceIdentifierSummaries`: (type, logical ids, identifiers).
    pub resource_identifier_summaries: Vec<(String, Vec<String>, Vec<String>)>,
}

/// GetTemplate output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateOutput {
    /// `TemplateBody`.
    pub body: String,
    /// `StagesAvailable`.
    pub stages_available: Vec<String>,
}

/// A stack summary (ListStacks `StackSummary`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackSummary {
    /// `StackId`.
    pub stack_id: String,
    /// `StackName`.
    pub stack_name: String,
    /// `TemplateDescription`.
    pub template_description: Option<String>,
    /// `CreationTime`.
    pub creation_time: DateTime<Utc>,
    /// `LastUpdatedTime`.
    pub last_updated_time: Option<DateTime<Utc>>,
    /// `DeletionTime`.
    pub deletion_time: Option<DateTime<Utc>>,
    /// `StackStatus`.
    pub status: StackStatus,
    /// `StackStatusReason`.
    pub status_reason: Option<String>,
}

/// One resource of a stack with its stack's identity (DescribeStackResource(s)).
#[derive(Clone, Debug, PartialEq)]
pub struct StackResourceView {
    /// Stack name.
    pub stack_name: String,
    /// Stack id.
    pub stack_id: String,
    /// The resource.
    pub resource: ResourceRecord,
}
