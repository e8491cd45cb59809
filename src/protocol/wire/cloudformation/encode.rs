//! Encoding CloudFormation's answers as awsQuery XML: one encoder per [`Answer`], each writing
//! the `<{Op}Response><{Op}Result>` document exactly as the fixtures in
//! `../shared/reference/fixtures/cfn_xml/` (every operation with an output shape emits its
//! Result element even when empty; absent members are no element; `<member>` lists; booleans
//! `true`/`false`; timestamps ISO 8601 with milliseconds and `Z`). No decoding, no core call.

use chrono::{DateTime, Utc};

use crate::cloudformation::model::{
    Export, Output, Page, Parameter, ParameterDeclaration, ResourceChange, RollbackConfiguration,
    StackSummary, Tag, TemplateOutput, TemplateSummary,
};
use crate::cloudformation::{
    self, ChangeSetRecord, ResourceRecord, StackEventRecord, StackEvents, StackRecord,
    StackResourceView,
};
use crate::protocol::xml::XmlWriter;
use crate::time::iso_millis;

use super::{Answer, XMLNS};

/// The document answering `action` with `answer`, for the request `request_id`.
pub(super) fn encode(action: &str, answer: &Answer, request_id: &str) -> String {
    let mut w = match answer {
        Answer::Bare => return XmlWriter::bare(action, XMLNS).finish(request_id),
        _ => XmlWriter::response(action, XMLNS),
    };
    match answer {
        Answer::Bare | Answer::Empty => {}
        Answer::StackId(id) => {
            w.elem("StackId", id.as_str());
        }
        Answer::Stacks(page) => stacks(&mut w, page),
        Answer::Events(events) => stack_events(&mut w, events),
        Answer::ResourceDetail(view) => resource_detail(&mut w, view),
        Answer::Resources(views) => resources(&mut w, views),
        Answer::ResourceSummaries(page) => resource_summaries(&mut w, page),
        Answer::StackSummaries(page) => stack_summaries(&mut w, page),
        Answer::Template(out) => template(&mut w, out),
        Answer::Summary { summary, full } => write_summary(&mut w, summary, *full),
        Answer::ChangeSetCreated { id, stack_id } => {
            w.elem("Id", id);
            w.elem("StackId", stack_id.as_str());
        }
        Answer::ChangeSet {
            record,
            changes,
            include_values,
        } => {
            write_change_set(&mut w, record, &changes.items, *include_values);
            w.opt_elem("NextToken", changes.next_token.as_deref());
        }
        Answer::ChangeSets(page) => change_sets(&mut w, page),
        Answer::Exports(page) => exports(&mut w, page),
        Answer::Imports(page) => {
            w.string_list("Imports", page.items.iter().map(String::as_str));
            w.opt_elem("NextToken", page.next_token.as_deref());
        }
        Answer::StackPolicy(body) => {
            w.opt_elem("StackPolicyBody", body.as_deref());
        }
    }
    w.finish(request_id)
}

/// DescribeStacks.
fn stacks(w: &mut XmlWriter, page: &Page<StackRecord>) {
    w.open("Stacks");
    for stack in &page.items {
        w.open("member");
        write_stack(w, stack);
        w.close("member");
    }
    w.close("Stacks");
    w.opt_elem("NextToken", page.next_token.as_deref());
}

/// DescribeStackEvents.
fn stack_events(w: &mut XmlWriter, events: &StackEvents) {
    w.open("StackEvents");
    for event in &events.page.items {
        w.open("member");
        write_event(w, events.stack_id.as_str(), &events.stack_name, event);
        w.close("member");
    }
    w.close("StackEvents");
    w.opt_elem("NextToken", events.page.next_token.as_deref());
}

/// DescribeStackResource.
fn resource_detail(w: &mut XmlWriter, view: &StackResourceView) {
    w.open("StackResourceDetail");
    write_resource_head(w, view);
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
    drift(w, "StackResourceDriftStatus");
    w.close("StackResourceDetail");
}

/// DescribeStackResources.
fn resources(w: &mut XmlWriter, views: &[StackResourceView]) {
    w.open("StackResources");
    for view in views {
        w.open("member");
        write_resource_head(w, view);
        w.elem("Timestamp", &iso_millis(view.resource.last_updated()));
        w.elem("ResourceStatus", view.resource.status().as_str());
        w.opt_elem("ResourceStatusReason", view.resource.status_reason());
        drift(w, "StackResourceDriftStatus");
        w.close("member");
    }
    w.close("StackResources");
}

/// ListStackResources.
fn resource_summaries(w: &mut XmlWriter, page: &Page<ResourceRecord>) {
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
        drift(w, "StackResourceDriftStatus");
        w.close("member");
    }
    w.close("StackResourceSummaries");
    w.opt_elem("NextToken", page.next_token.as_deref());
}

/// ListStacks.
fn stack_summaries(w: &mut XmlWriter, page: &Page<StackSummary>) {
    w.open("StackSummaries");
    for s in &page.items {
        w.open("member");
        w.elem("StackId", s.stack_id.as_str());
        w.elem("StackName", &s.stack_name);
        w.opt_elem("TemplateDescription", s.template_description.as_deref());
        w.elem("CreationTime", &iso_millis(s.creation_time));
        opt_time(w, "LastUpdatedTime", s.last_updated_time);
        opt_time(w, "DeletionTime", s.deletion_time);
        w.elem("StackStatus", s.status.as_str());
        w.opt_elem("StackStatusReason", s.status_reason.as_deref());
        drift(w, "StackDriftStatus");
        w.close("member");
    }
    w.close("StackSummaries");
    w.opt_elem("NextToken", page.next_token.as_deref());
}

/// GetTemplate.
fn template(w: &mut XmlWriter, out: &TemplateOutput) {
    w.elem("TemplateBody", &out.body);
    w.string_list(
        "StagesAvailable",
        out.stages_available.iter().map(String::as_str),
    );
}

/// ListChangeSets.
fn change_sets(w: &mut XmlWriter, page: &Page<ChangeSetRecord>) {
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
}

/// ListExports.
fn exports(w: &mut XmlWriter, page: &Page<Export>) {
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
}

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
