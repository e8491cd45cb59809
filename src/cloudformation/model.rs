//! CloudFormation's plain shapes, named as in the API reference (aws-contract.md §2.5,
//! Appendix A): what each operation takes and answers, and the values records hold (tags,
//! parameters, outputs, changes, exports). The records that carry a status live in
//! `store::records`, which owns their lifecycle. Plain data: serde for the durable store, no
//! wire encoding (that is `protocol::wire::cloudformation`), no behaviour beyond small
//! accessors.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::id::{LogicalId, PhysicalId, StackId};
use super::status::StackStatus;

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
    pub logical_id: LogicalId,
    /// `PhysicalResourceId` (absent for Add).
    pub physical_id: Option<PhysicalId>,
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

/// What executing a change set does (`plan` computes it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// `Changes`, in template order (removals last).
    pub changes: Vec<ResourceChange>,
    /// Logical ids the plan modifies (executed even when their properties evaluate the same).
    pub modified: BTreeSet<LogicalId>,
    /// Whether anything besides resources changes (outputs, parameters, tags, ...).
    pub other_changes: bool,
}

impl Plan {
    /// True when the change set has nothing to do ("The submitted information didn't contain
    /// changes.").
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && !self.other_changes
    }
}

/// An export (`Export`) as ListExports shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    /// `ExportingStackId`.
    pub exporting_stack_id: StackId,
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
    /// `RetainResources` (only in DELETE_FAILED).
    pub retain_resources: Vec<LogicalId>,
    /// `RoleARN`.
    pub role_arn: Option<String>,
    /// `ClientRequestToken`.
    pub client_request_token: Option<String>,
    /// `DeletionMode` (absent: STANDARD).
    pub deletion_mode: DeletionMode,
}

/// DeleteStack's `DeletionMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeletionMode {
    /// `STANDARD`: a resource that fails to delete leaves the stack DELETE_FAILED.
    #[default]
    Standard,
    /// `FORCE_DELETE_STACK`, from DELETE_FAILED only: resources that fail to delete are left
    /// (DELETE_SKIPPED) and the stack is deleted.
    ForceDeleteStack,
}

impl DeletionMode {
    /// Parses `STANDARD` / `FORCE_DELETE_STACK`.
    pub fn parse(text: &str) -> Option<DeletionMode> {
        match text {
            "STANDARD" => Some(DeletionMode::Standard),
            "FORCE_DELETE_STACK" => Some(DeletionMode::ForceDeleteStack),
            _ => None,
        }
    }
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
    pub stack_id: StackId,
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
