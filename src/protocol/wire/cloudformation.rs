//! CloudFormation on the wire (awsQuery, aws-contract.md §2): decodes each operation's form
//! (`Name.member.N`, empty lists as `Name=`), calls one `CloudFormation` operation, and encodes
//! its `<{Op}Response><{Op}Result>` document exactly as the fixtures in
//! `../shared/reference/fixtures/cfn_xml/` (every operation with an output shape emits its
//! Result element even when empty; absent members are no element; `<member>` lists; booleans
//! `true`/`false`; timestamps ISO 8601 with milliseconds and `Z`). No stack logic lives here.

use axum::response::Response;
use chrono::{DateTime, Utc};

use crate::app::App;
use crate::cloudformation::model::{
    ChangeSetType, CreateChangeSetInput, CreateStackInput, DeleteStackInput, DeletionMode,
    ExecuteChangeSetInput, OnFailure, Output, Parameter, ParameterDeclaration, ParameterSpec,
    ResourceChange, RollbackConfiguration, Tag, TemplateSource, TemplateSummary, UpdateStackInput,
};
use crate::cloudformation::{
    self, ChangeSetRecord, LogicalId, StackEventRecord, StackRecord, StackResourceView,
};
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::query::QueryInput;
use crate::protocol::xml::XmlWriter;
use crate::protocol::{ok_response, AwsRequest};
use crate::time::iso_millis;

/// The service's XML namespace.
pub const XMLNS: &str = "http://cloudformation.amazonaws.com/doc/2010-05-15/";

/// How CloudFormation errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Query { xmlns: XMLNS };

impl From<cloudformation::Error> for WireError {
    fn from(err: cloudformation::Error) -> Self {
        use axum::http::StatusCode;
        let status = match err {
            cloudformation::Error::ChangeSetNotFound(_) => StatusCode::NOT_FOUND,
            _ => StatusCode::BAD_REQUEST,
        };
        WireError::new(err.code(), err.message(), status)
    }
}

/// Handles one CloudFormation request.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    let form = req.form();
    let action = form.action().unwrap_or("").to_string();
    let result = dispatch(app, &req, &form, &action).await;
    let reads = ["Describe", "List", "Get", "Validate"];
    if !reads.iter().any(|r| action.starts_with(r)) {
        // What a mutating operation stored is durable before it is answered.
        app.storage.sync().await;
    }
    match result {
        Ok(body) => ok_response("text/xml", body, &req.request_id),
        Err(err) => err.into_response(PROTOCOL, &req.request_id),
    }
}

type Answer = Result<String, WireError>;

async fn dispatch(app: &App, req: &AwsRequest, form: &QueryInput, action: &str) -> Answer {
    let cfn = &app.cloudformation;
    let scope = &req.scope;
    let rid = req.request_id.as_str();
    match action {
        "CreateStack" => {
            let input = create_stack_input(form)?;
            let stack_id = cfn.create_stack(scope, input).await?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("StackId", stack_id.as_str());
            Ok(w.finish(rid))
        }
        "UpdateStack" => {
            let input = update_stack_input(form)?;
            let stack_id = cfn.update_stack(scope, input).await?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("StackId", stack_id.as_str());
            Ok(w.finish(rid))
        }
        "DeleteStack" => {
            let input = DeleteStackInput {
                stack_name: required(form, "StackName")?.to_string(),
                retain_resources: form
                    .list("RetainResources")
                    .unwrap_or_default()
                    .into_iter()
                    .map(LogicalId::from)
                    .collect(),
                role_arn: form.str("RoleARN").map(str::to_string),
                client_request_token: form.str("ClientRequestToken").map(str::to_string),
                deletion_mode: deletion_mode(form)?,
            };
            cfn.delete_stack(scope, input).await?;
            Ok(XmlWriter::bare(action, XMLNS).finish(rid))
        }
        "DescribeStacks" => {
            let page =
                cfn.describe_stacks(scope, form.non_empty("StackName"), form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("Stacks");
            for stack in &page.items {
                w.open("member");
                write_stack(&mut w, stack);
                w.close("member");
            }
            w.close("Stacks");
            w.opt_elem("NextToken", page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "DescribeStackEvents" => {
            let name = required(form, "StackName")?;
            let events = cfn.describe_stack_events(scope, name, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("StackEvents");
            for event in &events.page.items {
                w.open("member");
                write_event(&mut w, events.stack_id.as_str(), &events.stack_name, event);
                w.close("member");
            }
            w.close("StackEvents");
            w.opt_elem("NextToken", events.page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "DescribeStackResource" => {
            let name = required(form, "StackName")?;
            let logical = required(form, "LogicalResourceId")?;
            let view = cfn.describe_stack_resource(scope, name, logical)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("StackResourceDetail");
            write_resource_head(&mut w, &view);
            w.elem(
                "LastUpdatedTimestamp",
                &iso_millis(view.resource.last_updated()),
            );
            w.elem("ResourceStatus", view.resource.status().as_str());
            w.opt_elem("ResourceStatusReason", view.resource.status_reason());
            let metadata = view
                .resource
                .metadata
                .as_ref()
                .map(|m| m.to_string())
                .unwrap_or_else(|| "{}".to_string());
            w.elem("Metadata", &metadata);
            drift(&mut w, "StackResourceDriftStatus");
            w.close("StackResourceDetail");
            Ok(w.finish(rid))
        }
        "DescribeStackResources" => {
            let views = cfn.describe_stack_resources(
                scope,
                form.non_empty("StackName"),
                form.non_empty("LogicalResourceId"),
                form.non_empty("PhysicalResourceId"),
            )?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("StackResources");
            for view in &views {
                w.open("member");
                write_resource_head(&mut w, view);
                w.elem("Timestamp", &iso_millis(view.resource.last_updated()));
                w.elem("ResourceStatus", view.resource.status().as_str());
                w.opt_elem("ResourceStatusReason", view.resource.status_reason());
                drift(&mut w, "StackResourceDriftStatus");
                w.close("member");
            }
            w.close("StackResources");
            Ok(w.finish(rid))
        }
        "ListStackResources" => {
            let name = required(form, "StackName")?;
            let page = cfn.list_stack_resources(scope, name, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("StackResourceSummaries");
            for res in &page.items {
                w.open("member");
                w.elem("LogicalResourceId", res.logical_id.as_str());
                w.opt_elem(
                    "PhysicalResourceId",
                    res.physical_id.as_ref().map(|p| p.as_str()),
                );
                w.elem("ResourceType", &res.type_name);
                w.elem("LastUpdatedTimestamp", &iso_millis(res.last_updated()));
                w.elem("ResourceStatus", res.status().as_str());
                w.opt_elem("ResourceStatusReason", res.status_reason());
                drift(&mut w, "StackResourceDriftStatus");
                w.close("member");
            }
            w.close("StackResourceSummaries");
            w.opt_elem("NextToken", page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "ListStacks" => {
            let filter = form.list("StackStatusFilter").unwrap_or_default();
            let page = cfn.list_stacks(scope, &filter, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("StackSummaries");
            for s in &page.items {
                w.open("member");
                w.elem("StackId", s.stack_id.as_str());
                w.elem("StackName", &s.stack_name);
                w.opt_elem("TemplateDescription", s.template_description.as_deref());
                w.elem("CreationTime", &iso_millis(s.creation_time));
                opt_time(&mut w, "LastUpdatedTime", s.last_updated_time);
                opt_time(&mut w, "DeletionTime", s.deletion_time);
                w.elem("StackStatus", s.status.as_str());
                w.opt_elem("StackStatusReason", s.status_reason.as_deref());
                drift(&mut w, "StackDriftStatus");
                w.close("member");
            }
            w.close("StackSummaries");
            w.opt_elem("NextToken", page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "GetTemplate" => {
            let out = cfn.get_template(
                scope,
                form.non_empty("StackName"),
                form.non_empty("ChangeSetName"),
                form.non_empty("TemplateStage"),
            )?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("TemplateBody", &out.body);
            w.string_list(
                "StagesAvailable",
                out.stages_available.iter().map(String::as_str),
            );
            Ok(w.finish(rid))
        }
        "GetTemplateSummary" => {
            let summary = cfn.get_template_summary(
                scope,
                template_source(form)?,
                form.non_empty("StackName"),
                form.non_empty("StackSetName"),
            )?;
            let mut w = XmlWriter::response(action, XMLNS);
            write_summary(&mut w, &summary, true);
            Ok(w.finish(rid))
        }
        "ValidateTemplate" => {
            let summary = cfn.validate_template(scope, template_source(form)?)?;
            let mut w = XmlWriter::response(action, XMLNS);
            write_summary(&mut w, &summary, false);
            Ok(w.finish(rid))
        }
        "CreateChangeSet" => {
            let input = create_change_set_input(form)?;
            let (id, stack_id) = cfn.create_change_set(scope, input).await?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("Id", &id);
            w.elem("StackId", stack_id.as_str());
            Ok(w.finish(rid))
        }
        "DescribeChangeSet" => {
            let name = required(form, "ChangeSetName")?;
            let include_values = form.bool("IncludePropertyValues")?.unwrap_or(false);
            let (cs, changes) = cfn.describe_change_set(
                scope,
                name,
                form.non_empty("StackName"),
                form.str("NextToken"),
            )?;
            let mut w = XmlWriter::response(action, XMLNS);
            write_change_set(&mut w, &cs, &changes.items, include_values);
            w.opt_elem("NextToken", changes.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "ExecuteChangeSet" => {
            let input = ExecuteChangeSetInput {
                change_set_name: required(form, "ChangeSetName")?.to_string(),
                stack_name: form.non_empty("StackName").map(str::to_string),
                disable_rollback: form.bool("DisableRollback")?,
                retain_except_on_create: form.bool("RetainExceptOnCreate")?,
                client_request_token: form.str("ClientRequestToken").map(str::to_string),
            };
            cfn.execute_change_set(scope, input).await?;
            Ok(XmlWriter::response(action, XMLNS).finish(rid))
        }
        "DeleteChangeSet" => {
            let name = required(form, "ChangeSetName")?;
            cfn.delete_change_set(scope, name, form.non_empty("StackName"))?;
            Ok(XmlWriter::response(action, XMLNS).finish(rid))
        }
        "ListChangeSets" => {
            let name = required(form, "StackName")?;
            let page = cfn.list_change_sets(scope, name, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("Summaries");
            for cs in &page.items {
                w.open("member");
                w.elem("StackId", cs.stack_id.as_str());
                w.elem("StackName", &cs.stack_name);
                w.elem("ChangeSetId", &cs.change_set_id);
                w.elem("ChangeSetName", &cs.change_set_name);
                w.elem("ExecutionStatus", cs.execution_status().as_str());
                w.elem("Status", cs.status().as_str());
                w.opt_elem("StatusReason", cs.status_reason());
                w.elem("CreationTime", &iso_millis(cs.creation_time));
                w.opt_elem("Description", cs.description.as_deref());
                w.bool_elem("IncludeNestedStacks", cs.include_nested_stacks);
                w.close("member");
            }
            w.close("Summaries");
            w.opt_elem("NextToken", page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "ListExports" => {
            let page = cfn.list_exports(scope, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("Exports");
            for e in &page.items {
                w.open("member");
                w.elem("ExportingStackId", e.exporting_stack_id.as_str());
                w.elem("Name", &e.name);
                w.elem("Value", &e.value);
                w.close("member");
            }
            w.close("Exports");
            w.opt_elem("NextToken", page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "ListImports" => {
            let name = required(form, "ExportName")?;
            let page = cfn.list_imports(scope, name, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.string_list("Imports", page.items.iter().map(String::as_str));
            w.opt_elem("NextToken", page.next_token.as_deref());
            Ok(w.finish(rid))
        }
        "ContinueUpdateRollback" => {
            let name = required(form, "StackName")?;
            let skip = form.list("ResourcesToSkip").unwrap_or_default();
            cfn.continue_update_rollback(scope, name, skip).await?;
            Ok(XmlWriter::response(action, XMLNS).finish(rid))
        }
        "CancelUpdateStack" => {
            let name = required(form, "StackName")?;
            cfn.cancel_update_stack(scope, name).await?;
            Ok(XmlWriter::bare(action, XMLNS).finish(rid))
        }
        "RollbackStack" => {
            let name = required(form, "StackName")?;
            let stack_id = cfn.rollback_stack(scope, name).await?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("StackId", stack_id.as_str());
            Ok(w.finish(rid))
        }
        "UpdateTerminationProtection" => {
            let name = required(form, "StackName")?;
            let enable = form
                .bool("EnableTerminationProtection")?
                .ok_or_else(|| missing("EnableTerminationProtection"))?;
            let stack_id = cfn.update_termination_protection(scope, name, enable)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("StackId", stack_id.as_str());
            Ok(w.finish(rid))
        }
        "SetStackPolicy" => {
            let name = required(form, "StackName")?;
            cfn.set_stack_policy(
                scope,
                name,
                form.str("StackPolicyBody"),
                form.str("StackPolicyURL"),
            )?;
            Ok(XmlWriter::bare(action, XMLNS).finish(rid))
        }
        "GetStackPolicy" => {
            let name = required(form, "StackName")?;
            let body = cfn.get_stack_policy(scope, name)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.opt_elem("StackPolicyBody", body.as_deref());
            Ok(w.finish(rid))
        }
        "" => Err(WireError::bad_request(
            "MissingAction",
            "Missing Action parameter",
        )),
        other => Err(WireError::not_implemented(
            "CloudFormation",
            other,
            "InvalidAction",
        )),
    }
}

// --------------------------------------------------------------------------- decoding

fn missing(member: &str) -> WireError {
    WireError::validation_error(format!(
        "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
        crate::protocol::query::lower_camel(member)
    ))
}

fn required<'a>(form: &'a QueryInput, member: &str) -> Result<&'a str, WireError> {
    form.str(member).ok_or_else(|| missing(member))
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

fn create_stack_input(form: &QueryInput) -> Result<CreateStackInput, WireError> {
    Ok(CreateStackInput {
        stack_name: required(form, "StackName")?.to_string(),
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
        stack_name: required(form, "StackName")?.to_string(),
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
        stack_name: required(form, "StackName")?.to_string(),
        change_set_name: required(form, "ChangeSetName")?.to_string(),
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

// --------------------------------------------------------------------------- encoding

fn opt_time(w: &mut XmlWriter, name: &str, t: Option<DateTime<Utc>>) {
    if let Some(t) = t {
        w.elem(name, &iso_millis(t));
    }
}

fn drift(w: &mut XmlWriter, member: &str) {
    w.open("DriftInformation");
    w.elem(member, "NOT_CHECKED");
    w.close("DriftInformation");
}

fn write_parameters(w: &mut XmlWriter, params: &[Parameter]) {
    w.open("Parameters");
    for p in params {
        w.open("member");
        w.elem("ParameterKey", &p.key);
        w.elem("ParameterValue", &p.value);
        w.opt_elem("ResolvedValue", p.resolved_value.as_deref());
        w.close("member");
    }
    w.close("Parameters");
}

fn write_tags(w: &mut XmlWriter, tags: &[Tag]) {
    w.open("Tags");
    for t in tags {
        w.open("member");
        w.elem("Key", &t.key);
        w.elem("Value", &t.value);
        w.close("member");
    }
    w.close("Tags");
}

fn write_rollback_configuration(w: &mut XmlWriter, rc: &RollbackConfiguration) {
    if rc.triggers.is_empty() && rc.monitoring_time_in_minutes.is_none() {
        w.empty("RollbackConfiguration");
        return;
    }
    w.open("RollbackConfiguration");
    w.open("RollbackTriggers");
    for (arn, kind) in &rc.triggers {
        w.open("member");
        w.elem("Arn", arn);
        w.elem("Type", kind);
        w.close("member");
    }
    w.close("RollbackTriggers");
    if let Some(m) = rc.monitoring_time_in_minutes {
        w.elem("MonitoringTimeInMinutes", &m.to_string());
    }
    w.close("RollbackConfiguration");
}

fn write_outputs(w: &mut XmlWriter, outputs: &[Output]) {
    w.open("Outputs");
    for o in outputs {
        w.open("member");
        w.elem("OutputKey", &o.key);
        w.elem("OutputValue", &o.value);
        w.opt_elem("Description", o.description.as_deref());
        w.opt_elem("ExportName", o.export_name.as_deref());
        w.close("member");
    }
    w.close("Outputs");
}

/// One `Stack` (DescribeStacks): members in the order of the fixture; optional ones only when
/// AWS shows them (aws-contract.md §2.2 "Field presence").
fn write_stack(w: &mut XmlWriter, s: &StackRecord) {
    w.elem("StackId", s.stack_id.as_str());
    w.elem("StackName", &s.stack_name);
    w.opt_elem("ChangeSetId", s.change_set_id.as_deref());
    w.opt_elem("Description", s.description.as_deref());
    if !s.parameters.is_empty() {
        write_parameters(w, &s.parameters);
    }
    w.elem("CreationTime", &iso_millis(s.creation_time));
    opt_time(w, "DeletionTime", s.deletion_time);
    opt_time(w, "LastUpdatedTime", s.last_updated_time);
    write_rollback_configuration(w, &s.rollback_configuration);
    w.elem("StackStatus", s.status().as_str());
    w.opt_elem("StackStatusReason", s.status_reason());
    w.bool_elem("DisableRollback", s.disable_rollback);
    w.string_list(
        "NotificationARNs",
        s.notification_arns.iter().map(String::as_str),
    );
    if let Some(t) = s.timeout_in_minutes {
        w.elem("TimeoutInMinutes", &t.to_string());
    }
    if !s.capabilities.is_empty() {
        w.string_list("Capabilities", s.capabilities.iter().map(String::as_str));
    }
    if !s.outputs.is_empty() {
        write_outputs(w, &s.outputs);
    }
    w.opt_elem("RoleARN", s.role_arn.as_deref());
    write_tags(w, &s.tags);
    if s.status() != cloudformation::StackStatus::DeleteComplete {
        w.bool_elem(
            "EnableTerminationProtection",
            s.enable_termination_protection,
        );
    }
    drift(w, "StackDriftStatus");
    if s.retain_except_on_create {
        w.bool_elem("RetainExceptOnCreate", true);
    }
}

fn write_event(w: &mut XmlWriter, stack_id: &str, stack_name: &str, e: &StackEventRecord) {
    w.elem("StackId", stack_id);
    w.elem("EventId", &e.event_id);
    w.elem("StackName", stack_name);
    w.elem("LogicalResourceId", e.logical_id.as_str());
    w.elem("PhysicalResourceId", &e.physical_id);
    w.elem("ResourceType", &e.resource_type);
    w.elem("Timestamp", &iso_millis(e.timestamp));
    w.elem("ResourceStatus", &e.status);
    w.opt_elem("ResourceStatusReason", e.reason.as_deref());
    w.opt_elem("ResourceProperties", e.properties.as_deref());
}

fn write_resource_head(w: &mut XmlWriter, view: &StackResourceView) {
    w.elem("StackName", &view.stack_name);
    w.elem("StackId", view.stack_id.as_str());
    w.elem("LogicalResourceId", view.resource.logical_id.as_str());
    w.opt_elem(
        "PhysicalResourceId",
        view.resource.physical_id.as_ref().map(|p| p.as_str()),
    );
    w.elem("ResourceType", &view.resource.type_name);
}

fn write_summary(w: &mut XmlWriter, s: &TemplateSummary, full: bool) {
    w.open("Parameters");
    for p in &s.parameters {
        write_parameter_declaration(w, p, full);
    }
    w.close("Parameters");
    w.opt_elem("Description", s.description.as_deref());
    if !s.capabilities.is_empty() {
        w.string_list("Capabilities", s.capabilities.iter().map(String::as_str));
    }
    w.opt_elem("CapabilitiesReason", s.capabilities_reason.as_deref());
    if full {
        w.string_list("ResourceTypes", s.resource_types.iter().map(String::as_str));
        w.opt_elem("Version", s.version.as_deref());
        w.opt_elem("Metadata", s.metadata.as_deref());
    }
    w.string_list(
        "DeclaredTransforms",
        s.declared_transforms.iter().map(String::as_str),
    );
    if full {
        w.open("ResourceIdentifierSummaries");
        for (kind, logical_ids, identifiers) in &s.resource_identifier_summaries {
            w.open("member");
            w.elem("ResourceType", kind);
            w.string_list("LogicalResourceIds", logical_ids.iter().map(String::as_str));
            w.string_list(
                "ResourceIdentifiers",
                identifiers.iter().map(String::as_str),
            );
            w.close("member");
        }
        w.close("ResourceIdentifierSummaries");
    }
}

fn write_parameter_declaration(w: &mut XmlWriter, p: &ParameterDeclaration, full: bool) {
    w.open("member");
    w.elem("ParameterKey", &p.key);
    w.opt_elem("DefaultValue", p.default_value.as_deref());
    if full {
        w.elem("ParameterType", &p.parameter_type);
    }
    w.bool_elem("NoEcho", p.no_echo);
    w.opt_elem("Description", p.description.as_deref());
    if full {
        w.open("ParameterConstraints");
        if !p.allowed_values.is_empty() {
            w.string_list("AllowedValues", p.allowed_values.iter().map(String::as_str));
        }
        w.close("ParameterConstraints");
    }
    w.close("member");
}

fn write_change_set(
    w: &mut XmlWriter,
    cs: &ChangeSetRecord,
    changes: &[ResourceChange],
    include_values: bool,
) {
    w.elem("ChangeSetName", &cs.change_set_name);
    w.elem("ChangeSetId", &cs.change_set_id);
    w.elem("StackId", cs.stack_id.as_str());
    w.elem("StackName", &cs.stack_name);
    w.opt_elem("Description", cs.description.as_deref());
    if !cs.parameters.is_empty() {
        write_parameters(w, &cs.parameters);
    }
    w.elem("CreationTime", &iso_millis(cs.creation_time));
    w.elem("ExecutionStatus", cs.execution_status().as_str());
    w.elem("Status", cs.status().as_str());
    w.opt_elem("StatusReason", cs.status_reason());
    w.string_list(
        "NotificationARNs",
        cs.notification_arns.iter().flatten().map(String::as_str),
    );
    write_rollback_configuration(w, &cs.rollback_configuration);
    w.string_list("Capabilities", cs.capabilities.iter().map(String::as_str));
    if let Some(tags) = cs.tags.as_ref().filter(|t| !t.is_empty()) {
        write_tags(w, tags);
    }
    w.open("Changes");
    for c in changes {
        w.open("member");
        w.elem("Type", "Resource");
        w.open("ResourceChange");
        w.opt_elem("PolicyAction", c.policy_action.as_deref());
        w.elem("Action", c.action.as_str());
        w.elem("LogicalResourceId", c.logical_id.as_str());
        w.opt_elem(
            "PhysicalResourceId",
            c.physical_id.as_ref().map(|p| p.as_str()),
        );
        w.elem("ResourceType", &c.resource_type);
        w.opt_elem("Replacement", c.replacement.as_deref());
        w.string_list("Scope", c.scope.iter().map(String::as_str));
        w.open("Details");
        for d in &c.details {
            w.open("member");
            w.open("Target");
            w.elem("Attribute", &d.attribute);
            w.opt_elem("Name", d.name.as_deref());
            w.opt_elem("RequiresRecreation", d.requires_recreation.as_deref());
            w.close("Target");
            w.elem("Evaluation", &d.evaluation);
            w.elem("ChangeSource", &d.change_source);
            w.opt_elem("CausingEntity", d.causing_entity.as_deref());
            w.close("member");
        }
        w.close("Details");
        if include_values {
            w.opt_elem("BeforeContext", c.before_context.as_deref());
            w.opt_elem("AfterContext", c.after_context.as_deref());
        }
        w.close("ResourceChange");
        w.close("member");
    }
    w.close("Changes");
    w.bool_elem("IncludeNestedStacks", cs.include_nested_stacks);
    if let Some(f) = cs.on_stack_failure {
        w.elem("OnStackFailure", f.as_str());
    }
}
