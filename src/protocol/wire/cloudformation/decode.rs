//! Decoding CloudFormation's awsQuery forms: [`route`] turns the `Action` and its members
//! (`Name.member.N`, `Name.member.N.Key`, empty lists as `Name=`) into one [`Operation`] with
//! its typed input, refusing a missing required member or a value outside an enum with
//! AWS's Coral text. One decode per operation; no core call, no encoding.

use crate::cloudformation::model::{
    ChangeSetType, CreateChangeSetInput, CreateStackInput, DeleteStackInput, DeletionMode,
    ExecuteChangeSetInput, OnFailure, ParameterSpec, RollbackConfiguration, Tag, TemplateSource,
    UpdateStackInput,
};
use crate::cloudformation::LogicalId;
use crate::protocol::error::WireError;
use crate::protocol::query::QueryInput;

use super::{Change, List, Operation, Read};

/// The operation `action` names, with its input decoded from `form`: `MissingAction` without an
/// action, `InvalidAction` for one Cumulo does not serve.
pub(super) fn route(action: &str, form: &QueryInput) -> Result<Operation, WireError> {
    let op: Operation = match action {
        "CreateStack" => Change::CreateStack(create_stack_input(form)?).into(),
        "UpdateStack" => Change::UpdateStack(update_stack_input(form)?).into(),
        "DeleteStack" => Change::DeleteStack(delete_stack_input(form)?).into(),
        "DescribeStacks" => Read::DescribeStacks {
            stack_name: non_empty(form, "StackName"),
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "DescribeStackEvents" => Read::DescribeStackEvents {
            stack_name: required(form, "StackName")?,
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "DescribeStackResource" => Read::DescribeStackResource {
            stack_name: required(form, "StackName")?,
            logical_id: required(form, "LogicalResourceId")?,
        }
        .into(),
        "DescribeStackResources" => Read::DescribeStackResources {
            stack_name: non_empty(form, "StackName"),
            logical_id: non_empty(form, "LogicalResourceId"),
            physical_id: non_empty(form, "PhysicalResourceId"),
        }
        .into(),
        "ListStackResources" => List::ListStackResources {
            stack_name: required(form, "StackName")?,
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "ListStacks" => List::ListStacks {
            status_filter: form.list("StackStatusFilter").unwrap_or_default(),
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "GetTemplate" => Read::GetTemplate {
            stack_name: non_empty(form, "StackName"),
            change_set_name: non_empty(form, "ChangeSetName"),
            stage: non_empty(form, "TemplateStage"),
        }
        .into(),
        "GetTemplateSummary" => Read::GetTemplateSummary {
            source: template_source(form)?,
            stack_name: non_empty(form, "StackName"),
            stack_set_name: non_empty(form, "StackSetName"),
        }
        .into(),
        "ValidateTemplate" => Read::ValidateTemplate(template_source(form)?).into(),
        other => return route_change_sets(other, form),
    };
    Ok(op)
}

/// The change-set, export and steering operations (see [`route`]).
fn route_change_sets(action: &str, form: &QueryInput) -> Result<Operation, WireError> {
    let op: Operation = match action {
        "CreateChangeSet" => Change::CreateChangeSet(create_change_set_input(form)?).into(),
        "DescribeChangeSet" => Read::DescribeChangeSet {
            change_set_name: required(form, "ChangeSetName")?,
            include_values: form.bool("IncludePropertyValues")?.unwrap_or(false),
            stack_name: non_empty(form, "StackName"),
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "ExecuteChangeSet" => Change::ExecuteChangeSet(ExecuteChangeSetInput {
            change_set_name: required(form, "ChangeSetName")?,
            stack_name: non_empty(form, "StackName"),
            disable_rollback: form.bool("DisableRollback")?,
            retain_except_on_create: form.bool("RetainExceptOnCreate")?,
            client_request_token: opt(form, "ClientRequestToken"),
        })
        .into(),
        "DeleteChangeSet" => Change::DeleteChangeSet {
            change_set_name: required(form, "ChangeSetName")?,
            stack_name: non_empty(form, "StackName"),
        }
        .into(),
        "ListChangeSets" => List::ListChangeSets {
            stack_name: required(form, "StackName")?,
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "ListExports" => List::ListExports {
            next_token: opt(form, "NextToken"),
        }
        .into(),
        "ListImports" => List::ListImports {
            export_name: required(form, "ExportName")?,
            next_token: opt(form, "NextToken"),
        }
        .into(),
        other => return route_steering(other, form),
    };
    Ok(op)
}

/// The operations that steer a stack or change its settings (see [`route`]).
fn route_steering(action: &str, form: &QueryInput) -> Result<Operation, WireError> {
    let op: Operation = match action {
        "ContinueUpdateRollback" => Change::ContinueUpdateRollback {
            stack_name: required(form, "StackName")?,
            resources_to_skip: form.list("ResourcesToSkip").unwrap_or_default(),
        }
        .into(),
        "CancelUpdateStack" => Change::CancelUpdateStack {
            stack_name: required(form, "StackName")?,
        }
        .into(),
        "RollbackStack" => Change::RollbackStack {
            stack_name: required(form, "StackName")?,
        }
        .into(),
        "UpdateTerminationProtection" => Change::UpdateTerminationProtection {
            stack_name: required(form, "StackName")?,
            enable: form
                .bool("EnableTerminationProtection")?
                .ok_or_else(|| missing("EnableTerminationProtection"))?,
        }
        .into(),
        "SetStackPolicy" => Change::SetStackPolicy {
            stack_name: required(form, "StackName")?,
            body: opt(form, "StackPolicyBody"),
            url: opt(form, "StackPolicyURL"),
        }
        .into(),
        "GetStackPolicy" => Read::GetStackPolicy {
            stack_name: required(form, "StackName")?,
        }
        .into(),
        "" => {
            return Err(WireError::bad_request(
                "MissingAction",
                "Missing Action parameter",
            ))
        }
        other => {
            return Err(WireError::not_implemented(
                "CloudFormation",
                other,
                "InvalidAction",
            ))
        }
    };
    Ok(op)
}

fn opt(form: &QueryInput, member: &str) -> Option<String> {
    form.str(member).map(str::to_string)
}

fn non_empty(form: &QueryInput, member: &str) -> Option<String> {
    form.non_empty(member).map(str::to_string)
}

fn missing(member: &str) -> WireError {
    WireError::validation_error(format!(
        "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
        crate::protocol::query::lower_camel(member)
    ))
}

fn required(form: &QueryInput, member: &str) -> Result<String, WireError> {
    form.str(member)
        .map(str::to_string)
        .ok_or_else(|| missing(member))
}

fn template_source(form: &QueryInput) -> Result<TemplateSource, WireError> {
    Ok(TemplateSource {
        body: form.str("TemplateBody").map(str::to_string),
        url: form.str("TemplateURL").map(str::to_string),
        use_previous: form.bool("UsePreviousTemplate")?.unwrap_or(false),
    })
}

fn parameters(form: &QueryInput) -> Result<Vec<ParameterSpec>, WireError> {
    let mut out = Vec::new();
    for p in form.struct_list("Parameters").unwrap_or_default() {
        out.push(ParameterSpec {
            key: p.str("ParameterKey").unwrap_or("").to_string(),
            value: p.str("ParameterValue").map(str::to_string),
            use_previous_value: p.bool("UsePreviousValue")?.unwrap_or(false),
        });
    }
    Ok(out)
}

fn tags(form: &QueryInput) -> Option<Vec<Tag>> {
    form.struct_list("Tags").map(|items| {
        items
            .into_iter()
            .map(|t| Tag {
                key: t.str("Key").unwrap_or("").to_string(),
                value: t.str("Value").unwrap_or("").to_string(),
            })
            .collect()
    })
}

fn rollback_configuration(form: &QueryInput) -> Result<Option<RollbackConfiguration>, WireError> {
    let Some(rc) = form.structure("RollbackConfiguration") else {
        return Ok(None);
    };
    let triggers = rc
        .struct_list("RollbackTriggers")
        .unwrap_or_default()
        .into_iter()
        .map(|t| {
            (
                t.str("Arn").unwrap_or("").to_string(),
                t.str("Type").unwrap_or("").to_string(),
            )
        })
        .collect();
    Ok(Some(RollbackConfiguration {
        triggers,
        monitoring_time_in_minutes: rc.int("MonitoringTimeInMinutes")?,
    }))
}

fn deletion_mode(form: &QueryInput) -> Result<DeletionMode, WireError> {
    match form.str("DeletionMode") {
        None => Ok(DeletionMode::Standard),
        Some(v) => DeletionMode::parse(v).ok_or_else(|| {
            WireError::validation_error(format!(
                "1 validation error detected: Value '{v}' at 'deletionMode' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, FORCE_DELETE_STACK]"
            ))
        }),
    }
}

fn on_failure(form: &QueryInput, member: &str) -> Result<Option<OnFailure>, WireError> {
    match form.str(member) {
        None => Ok(None),
        Some(v) => OnFailure::parse(v).map(Some).ok_or_else(|| {
            WireError::validation_error(format!(
                "1 validation error detected: Value '{v}' at '{}' failed to satisfy constraint: Member must satisfy enum value set: [DO_NOTHING, ROLLBACK, DELETE]",
                crate::protocol::query::lower_camel(member)
            ))
        }),
    }
}

/// `Capabilities` (CreateStack, UpdateStack, CreateChangeSet): every member must be one of the
/// model's enum values, else AWS's Coral error naming the whole list as given (reported AWS
/// text, enum in AWS's order).
fn capabilities(form: &QueryInput) -> Result<Vec<String>, WireError> {
    const ALLOWED: [&str; 3] = [
        "CAPABILITY_AUTO_EXPAND",
        "CAPABILITY_NAMED_IAM",
        "CAPABILITY_IAM",
    ];
    let given = form.list("Capabilities").unwrap_or_default();
    if given.iter().all(|c| ALLOWED.contains(&c.as_str())) {
        return Ok(given);
    }
    Err(WireError::validation_error(format!(
        "1 validation error detected: Value '[{}]' at 'capabilities' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [{}]]",
        given.join(", "),
        ALLOWED.join(", ")
    )))
}

fn delete_stack_input(form: &QueryInput) -> Result<DeleteStackInput, WireError> {
    Ok(DeleteStackInput {
        stack_name: required(form, "StackName")?,
        retain_resources: form
            .list("RetainResources")
            .unwrap_or_default()
            .into_iter()
            .map(LogicalId::from)
            .collect(),
        role_arn: opt(form, "RoleARN"),
        client_request_token: opt(form, "ClientRequestToken"),
        deletion_mode: deletion_mode(form)?,
    })
}

fn create_stack_input(form: &QueryInput) -> Result<CreateStackInput, WireError> {
    Ok(CreateStackInput {
        stack_name: required(form, "StackName")?,
        template: template_source(form)?,
        parameters: parameters(form)?,
        disable_rollback: form.bool("DisableRollback")?,
        rollback_configuration: rollback_configuration(form)?,
        timeout_in_minutes: form.int("TimeoutInMinutes")?,
        notification_arns: form.list("NotificationARNs").unwrap_or_default(),
        capabilities: capabilities(form)?,
        resource_types: form.list("ResourceTypes"),
        role_arn: form.str("RoleARN").map(str::to_string),
        on_failure: on_failure(form, "OnFailure")?,
        stack_policy_body: form.str("StackPolicyBody").map(str::to_string),
        stack_policy_url: form.str("StackPolicyURL").map(str::to_string),
        tags: tags(form).unwrap_or_default(),
        client_request_token: form.str("ClientRequestToken").map(str::to_string),
        enable_termination_protection: form.bool("EnableTerminationProtection")?.unwrap_or(false),
        retain_except_on_create: form.bool("RetainExceptOnCreate")?.unwrap_or(false),
    })
}

fn update_stack_input(form: &QueryInput) -> Result<UpdateStackInput, WireError> {
    Ok(UpdateStackInput {
        stack_name: required(form, "StackName")?,
        template: template_source(form)?,
        parameters: parameters(form)?,
        capabilities: capabilities(form)?,
        resource_types: form.list("ResourceTypes"),
        role_arn: form.str("RoleARN").map(str::to_string),
        rollback_configuration: rollback_configuration(form)?,
        stack_policy_body: form.str("StackPolicyBody").map(str::to_string),
        stack_policy_url: form.str("StackPolicyURL").map(str::to_string),
        notification_arns: form.list("NotificationARNs"),
        tags: tags(form),
        disable_rollback: form.bool("DisableRollback")?,
        client_request_token: form.str("ClientRequestToken").map(str::to_string),
        retain_except_on_create: form.bool("RetainExceptOnCreate")?,
    })
}

fn create_change_set_input(form: &QueryInput) -> Result<CreateChangeSetInput, WireError> {
    let change_set_type = match form.str("ChangeSetType") {
        None | Some("UPDATE") => ChangeSetType::Update,
        Some("CREATE") => ChangeSetType::Create,
        Some("IMPORT") => {
            return Err(WireError::validation_error(
                "Cumulo does not support ChangeSetType IMPORT (resource import)",
            ))
        }
        Some(other) => {
            return Err(WireError::validation_error(format!(
                "1 validation error detected: Value '{other}' at 'changeSetType' failed to satisfy constraint: Member must satisfy enum value set: [CREATE, UPDATE, IMPORT]"
            )))
        }
    };
    Ok(CreateChangeSetInput {
        stack_name: required(form, "StackName")?,
        change_set_name: required(form, "ChangeSetName")?,
        change_set_type,
        template: template_source(form)?,
        parameters: parameters(form)?,
        capabilities: capabilities(form)?,
        resource_types: form.list("ResourceTypes"),
        role_arn: form.str("RoleARN").map(str::to_string),
        rollback_configuration: rollback_configuration(form)?,
        notification_arns: form.list("NotificationARNs"),
        tags: tags(form),
        description: form.str("Description").map(str::to_string),
        include_nested_stacks: form.bool("IncludeNestedStacks")?.unwrap_or(false),
        on_stack_failure: on_failure(form, "OnStackFailure")?,
    })
}
