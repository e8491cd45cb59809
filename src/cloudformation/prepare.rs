//! Template preparation, shared by every operation that takes a template: the cheap checks that
//! need no evaluation (the template's size, capabilities a `Transform` needs), then parse →
//! bind parameters → resolve → capabilities and ResourceTypes ([`CloudFormation::prepare`]);
//! and the one update preparation UpdateStack and CreateChangeSet (UPDATE) share: the stack as
//! it is ([`UpdateTarget`]), the request ([`UpdateRequest`]), the plan against the stack
//! ([`CloudFormation::prepare_update`]). Refusals are `Err`s with AWS's text; nothing here
//! changes the store.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use crate::ids::Scope;

use super::engine::Exec;
use super::error::messages::*;
use super::error::Error;
use super::id::{LogicalId, StackId};
use super::model::{Output, Parameter, ParameterSpec, RollbackConfiguration, Tag, TemplateSource};
use super::plan::{self, Plan, PlanValues};
use super::providers::UpdateKind;
use super::source;
use super::status::IllegalTransition;
use super::store::{ResourceRecord, StackEntry};
use super::template::{
    BoundParameters, Evaluator, ParameterInput, Pseudo, Resolved, ResourceValues, Template,
};
use super::CloudFormation;

/// The capability a template with a `Transform` needs on CreateStack and UpdateStack.
const AUTO_EXPAND: &str = "CAPABILITY_AUTO_EXPAND";

/// A template checked against parameters and pseudo parameters, ready to plan or execute.
pub(super) struct Prepared {
    pub(super) template: Template,
    pub(super) params: BoundParameters,
    pub(super) shown: Vec<Parameter>,
    pub(super) resolved: Arc<Resolved>,
    pub(super) pseudo: Pseudo,
}

impl Prepared {
    /// The template context an operation task evaluates against.
    pub(super) fn into_exec(self) -> Exec {
        Exec {
            template: self.template,
            params: self.params,
            pseudo: self.pseudo,
            resolved: self.resolved,
        }
    }
}

/// Which operation a template is prepared for: capabilities differ (AWS's API reference,
/// `Capabilities`: CAPABILITY_AUTO_EXPAND "doesn't apply to creating change sets, and
/// specifying it when creating change sets has no effect").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// CreateStack or UpdateStack: a `Transform` needs CAPABILITY_AUTO_EXPAND.
    Stack,
    /// CreateChangeSet: transforms need no capability.
    ChangeSet,
}

/// What a template is prepared with.
pub(super) struct PrepareInput<'a> {
    /// The stack's name (`AWS::StackName`).
    pub(super) stack_name: &'a str,
    /// The stack's id (`AWS::StackId`).
    pub(super) stack_id: &'a StackId,
    /// `Parameters` as given.
    pub(super) parameters: &'a [ParameterSpec],
    /// The stack's current parameters (UsePreviousValue), for an update.
    pub(super) previous: Option<&'a BoundParameters>,
    /// `Capabilities` given.
    pub(super) capabilities: &'a [String],
    /// The notification ARNs the stack will have (`AWS::NotificationARNs`).
    pub(super) notification_arns: &'a [String],
    /// `ResourceTypes`, when given.
    pub(super) resource_types: Option<&'a [String]>,
}

/// The stack an update (UpdateStack, an UPDATE change set) applies to, as it is now.
pub(super) struct UpdateTarget {
    /// Its id.
    pub(super) stack_id: StackId,
    /// Its name.
    pub(super) stack_name: String,
    /// Its current template (UsePreviousTemplate).
    pub(super) template_body: String,
    /// Its current parameters (UsePreviousValue).
    pub(super) previous: Option<BoundParameters>,
    /// Its tags (absent `Tags` keep them).
    pub(super) tags: Vec<Tag>,
    /// Its notification ARNs (absent `NotificationARNs` keep them).
    pub(super) notification_arns: Vec<String>,
}

/// What an update asks for: the members UpdateStack and CreateChangeSet share.
pub(super) struct UpdateRequest<'a> {
    /// TemplateBody / TemplateURL / UsePreviousTemplate.
    pub(super) template: &'a TemplateSource,
    /// `Parameters`.
    pub(super) parameters: &'a [ParameterSpec],
    /// `Capabilities`.
    pub(super) capabilities: &'a [String],
    /// `ResourceTypes`.
    pub(super) resource_types: Option<&'a [String]>,
    /// `NotificationARNs` (None: keep the stack's).
    pub(super) notification_arns: Option<&'a [String]>,
    /// `Tags` (None: keep the stack's; empty: remove them).
    pub(super) tags: Option<&'a [Tag]>,
    /// The operation.
    pub(super) purpose: Purpose,
}

/// An update prepared and planned.
pub(super) struct PreparedUpdate {
    /// The new template's text.
    pub(super) body: String,
    /// The new template, bound and resolved.
    pub(super) prepared: Prepared,
    /// What it changes.
    pub(super) plan: Plan,
    /// The notification ARNs the stack will have.
    pub(super) notification_arns: Vec<String>,
}

/// An update ready to start (from UpdateStack or an UPDATE change set).
pub(super) struct PendingUpdate {
    pub(super) body: String,
    pub(super) prepared: Prepared,
    pub(super) plan: Plan,
    pub(super) capabilities: Vec<String>,
    pub(super) tags: Vec<Tag>,
    pub(super) notification_arns: Vec<String>,
    pub(super) disable_rollback: bool,
    pub(super) change_set_id: Option<String>,
    pub(super) stack_policy: Option<String>,
    pub(super) rollback_configuration: Option<RollbackConfiguration>,
    pub(super) role_arn: Option<String>,
}

/// The stack as the planner sees it: its resources, the region's exports, and what an update
/// compares against.
struct Snapshot {
    current: IndexMap<LogicalId, ResourceRecord>,
    exports: HashMap<String, String>,
    template: Option<Template>,
    parameters: Vec<Parameter>,
    outputs: Vec<Output>,
    tags: Vec<Tag>,
    notification_arns: Vec<String>,
}

/// The `[a-zA-Z][-a-zA-Z0-9]*` pattern of stack and change-set names.
pub(super) fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// CreateStack's StackName check (Coral wording, aws-contract.md §2.1).
pub(super) fn check_new_stack_name(name: &str) -> Result<(), Error> {
    let mut v = crate::coral::Violations::default();
    let pattern = "[a-zA-Z][-a-zA-Z0-9]*|arn:[-a-zA-Z0-9:/._+]*";
    v.pattern("stackName", name, is_plain_name(name), pattern);
    v.length("stackName", name, 1, Some(128));
    v.finish().map_err(|e| Error::validation(e.0))
}

/// A transition the store refused: an engine bug, answered as a ValidationError naming it (the
/// store logged and counted it).
pub(super) fn internal(err: IllegalTransition) -> Error {
    Error::validation(format!("Cumulo refused an internal status change: {err}"))
}

/// StackPolicyBody and StackPolicyURL together are refused (AWS's text).
pub(super) fn check_policy_source(
    body: &Option<String>,
    url: &Option<String>,
) -> Result<(), Error> {
    if body.is_some() && url.is_some() {
        return Err(Error::validation(
            "You cannot specify both StackPolicyURL and StackPolicyBody",
        ));
    }
    Ok(())
}

/// UsePreviousValue with a value for the same key is refused (AWS's text, reported).
fn check_parameter_specs(given: &[ParameterSpec]) -> Result<(), Error> {
    for p in given {
        if p.use_previous_value && p.value.as_deref().is_some_and(|v| !v.is_empty()) {
            return Err(Error::validation(format!(
                "Invalid input for parameter key {}. Cannot specify usePreviousValue as true and non empty value for a parameter",
                p.key
            )));
        }
    }
    Ok(())
}

/// `Requires capabilities : [...]` for the capabilities of `required` that `given` lacks
/// (CAPABILITY_NAMED_IAM covers CAPABILITY_IAM).
fn check_capabilities(required: &[&str], given: &[String]) -> Result<(), Error> {
    let has = |c: &str| given.iter().any(|g| g == c);
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|cap| match *cap {
            "CAPABILITY_IAM" => !has("CAPABILITY_IAM") && !has("CAPABILITY_NAMED_IAM"),
            other => !has(other),
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::InsufficientCapabilities(format!(
        "Requires capabilities : [{}]",
        missing.join(", ")
    )))
}

/// True when `type_name` matches one of the ResourceTypes patterns (`AWS::*`,
/// `AWS::SQS::*`, `AWS::SQS::Queue`, `Custom::*`).
fn resource_type_allowed(type_name: &str, allowed: &[String]) -> bool {
    allowed
        .iter()
        .any(|pattern| match pattern.strip_suffix('*') {
            Some(prefix) => type_name.starts_with(prefix),
            None => pattern == type_name,
        })
}

/// What DescribeStacks shows of bound parameters.
fn shown_parameters(params: &BoundParameters) -> Vec<Parameter> {
    params
        .shown()
        .into_iter()
        .map(|p| Parameter {
            key: p.key,
            value: p.value,
            resolved_value: p.resolved_value,
        })
        .collect()
}

impl CloudFormation {
    /// A new stack id for `name`.
    pub(super) fn new_stack_id(&self, scope: &Scope, name: &str) -> StackId {
        StackId::from(scope.arn(
            "cloudformation",
            &format!("stack/{name}/{}", self.deps().ids.uuid()),
        ))
    }

    /// Template text from a request (body, URL, or the stack's current one), within AWS's
    /// size limits (`source`).
    pub(super) fn template_text(
        &self,
        source: &TemplateSource,
        previous: Option<&str>,
    ) -> Result<String, Error> {
        source::template_text(&self.deps().s3, source, previous)
    }

    /// The checks that need no evaluation, run before the template is parsed (parsing an
    /// `AWS::LanguageExtensions` template already evaluates intrinsics): on CreateStack and
    /// UpdateStack a `Transform` needs CAPABILITY_AUTO_EXPAND. The size limits were checked
    /// when the text was read; section names are checked by the parser before any evaluation.
    pub(super) fn check_before_parse(
        &self,
        body: &str,
        capabilities: &[String],
        purpose: Purpose,
    ) -> Result<(), Error> {
        if purpose == Purpose::ChangeSet {
            return Ok(());
        }
        let outline = Template::outline(body).map_err(|e| Error::validation(e.to_string()))?;
        if !outline.requires_auto_expand() {
            return Ok(());
        }
        check_capabilities(&[AUTO_EXPAND], capabilities)
    }

    /// Parses a template body (a template error is a ValidationError with AWS's text).
    pub(super) fn parse(&self, body: &str) -> Result<Template, Error> {
        Template::parse(body).map_err(|e| Error::validation(e.to_string()))
    }

    /// The parsed current template of a stack (cached on the entry).
    pub(super) fn stack_template(&self, entry: &StackEntry) -> Result<Template, Error> {
        match &entry.template {
            Some(t) => Ok(t.clone()),
            None => self.parse(&entry.record.template_body),
        }
    }

    /// Binds parameters, resolves the template and checks capabilities and ResourceTypes.
    pub(super) fn prepare(
        &self,
        scope: &Scope,
        template: Template,
        input: PrepareInput<'_>,
    ) -> Result<Prepared, Error> {
        check_parameter_specs(input.parameters)?;
        let inputs: Vec<ParameterInput> = input
            .parameters
            .iter()
            .map(|p| ParameterInput {
                key: p.key.clone(),
                value: p.value.clone(),
                use_previous_value: p.use_previous_value,
            })
            .collect();
        let env = source::SsmEnvironment::new(&self.deps().ssm, scope);
        let params = template
            .bind_parameters(&inputs, input.previous, &env)
            .map_err(|e| Error::validation(e.to_string()))?;
        let pseudo = Pseudo {
            account_id: scope.account.clone(),
            region: scope.region.clone(),
            stack_name: input.stack_name.to_string(),
            stack_id: input.stack_id.to_string(),
            notification_arns: input.notification_arns.to_vec(),
        };
        let resolved = template
            .resolve(&params, &pseudo)
            .map_err(|e| Error::validation(e.to_string()))?;
        // CAPABILITY_AUTO_EXPAND was checked before parsing, where it applies.
        let required: Vec<&str> = template
            .required_capabilities(&resolved)
            .into_iter()
            .filter(|c| *c != AUTO_EXPAND)
            .collect();
        check_capabilities(&required, input.capabilities)?;
        if let Some(allowed) = input.resource_types {
            for decl in resolved.resources.values() {
                if !resource_type_allowed(&decl.type_name, allowed) {
                    return Err(Error::validation(format!(
                        "Resource type {} is not allowed by parameter ResourceTypes [{}]",
                        decl.type_name,
                        allowed.join(", ")
                    )));
                }
            }
        }
        let shown = shown_parameters(&params);
        Ok(Prepared {
            template,
            params,
            shown,
            resolved: Arc::new(resolved),
            pseudo,
        })
    }

    /// The stack `name_or_id` if it may be updated now (UpdateStack, CreateChangeSet UPDATE
    /// refuse the same states with the same text).
    pub(super) fn updatable(&self, scope: &Scope, name_or_id: &str) -> Result<UpdateTarget, Error> {
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(name_or_id))
            .ok_or_else(|| Error::validation(stack_does_not_exist(name_or_id)))?;
        let r = &entry.record;
        if !entry.status().is_updatable() || entry.operation().is_some() {
            return Err(Error::validation(cannot_be_updated(
                r.stack_id.as_str(),
                entry.status().as_str(),
            )));
        }
        Ok(UpdateTarget {
            stack_id: r.stack_id.clone(),
            stack_name: r.stack_name.clone(),
            template_body: r.template_body.clone(),
            previous: r
                .bound_parameters
                .clone()
                .and_then(|v| serde_json::from_value(v).ok()),
            tags: r.tags.clone(),
            notification_arns: r.notification_arns.clone(),
        })
    }

    /// The one update preparation of UpdateStack and CreateChangeSet (UPDATE): the template
    /// (or the stack's, UsePreviousTemplate), the cheap checks, parse, parameters (with
    /// UsePreviousValue), resolve, capabilities, then the plan against the stack.
    pub(super) fn prepare_update(
        &self,
        scope: &Scope,
        target: &UpdateTarget,
        request: UpdateRequest<'_>,
    ) -> Result<PreparedUpdate, Error> {
        let body = self.template_text(request.template, Some(&target.template_body))?;
        self.check_before_parse(&body, request.capabilities, request.purpose)?;
        let template = self.parse(&body)?;
        let notification_arns = request
            .notification_arns
            .map(<[String]>::to_vec)
            .unwrap_or_else(|| target.notification_arns.clone());
        let prepared = self.prepare(
            scope,
            template,
            PrepareInput {
                stack_name: &target.stack_name,
                stack_id: &target.stack_id,
                parameters: request.parameters,
                previous: target.previous.as_ref(),
                capabilities: request.capabilities,
                notification_arns: &notification_arns,
                resource_types: request.resource_types,
            },
        )?;
        let plan = self.plan_update(scope, &target.stack_id, &prepared, &request)?;
        Ok(PreparedUpdate {
            body,
            prepared,
            plan,
            notification_arns,
        })
    }

    /// What the planner needs of the stack `stack_id`, read under the lock.
    fn snapshot(&self, scope: &Scope, stack_id: &StackId) -> Result<Snapshot, Error> {
        let mut state = self.shared.lock();
        let region = state.region(scope);
        let exports: HashMap<String, String> = region
            .exports()
            .values()
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect();
        let entry = region
            .stack(stack_id.as_str())
            .ok_or_else(|| Error::validation(stack_does_not_exist(stack_id.as_str())))?;
        Ok(Snapshot {
            current: entry.resources().clone(),
            exports,
            template: self.stack_template(entry).ok(),
            parameters: entry.record.parameters.clone(),
            outputs: entry.record.outputs.clone(),
            tags: entry.record.tags.clone(),
            notification_arns: entry.record.notification_arns.clone(),
        })
    }

    /// The UPDATE plan of `prepared` against the stack `stack_id`.
    fn plan_update(
        &self,
        scope: &Scope,
        stack_id: &StackId,
        prepared: &Prepared,
        request: &UpdateRequest<'_>,
    ) -> Result<Plan, Error> {
        let old = self.snapshot(scope, stack_id)?;
        let changed_parameters: HashSet<String> = prepared
            .shown
            .iter()
            .filter(|p| !old.parameters.contains(p))
            .map(|p| p.key.clone())
            .collect();
        check_types_kept(&old.current, &prepared.resolved)?;
        let providers = &self.shared.providers;
        let update_kind =
            |type_name: &str, old: &Value, new: &Value, create_only: bool| match providers
                .get(type_name)
            {
                Some(p) => p.update_kind(old, new, create_only),
                None if create_only => UpdateKind::Replace,
                None => UpdateKind::InPlace,
            };
        let inputs = plan::UpdateInputs {
            current: &old.current,
            old_declarations: old.template.as_ref().map(|t| t.resources()),
            resolved: &prepared.resolved,
            changed_parameters: &changed_parameters,
            update_kind: &update_kind,
        };
        let values = PlanValues::new(&old.current, old.exports.clone());
        let evaluate = |logical_id: &str, values: &dyn ResourceValues| {
            evaluator(prepared, values)
                .resource_properties(logical_id)
                .map_err(|e| e.to_string())
        };
        let mut plan = plan::plan_update(&inputs, values, &evaluate);
        let tags_changed = request.tags.is_some_and(|t| t != old.tags.as_slice());
        let arns_changed = request
            .notification_arns
            .is_some_and(|a| a != old.notification_arns.as_slice());
        plan.other_changes = outputs_changed(prepared, &old)
            || !changed_parameters.is_empty()
            || prepared.shown.len() != old.parameters.len()
            || tags_changed
            || arns_changed;
        Ok(plan)
    }
}

/// An evaluator of `prepared` over `values`.
fn evaluator<'a>(prepared: &'a Prepared, values: &'a dyn ResourceValues) -> Evaluator<'a> {
    Evaluator::new(
        &prepared.template,
        &prepared.params,
        &prepared.pseudo,
        &prepared.resolved,
        values,
    )
}

/// An update may not change a resource's type (AWS's text).
fn check_types_kept(
    current: &IndexMap<LogicalId, ResourceRecord>,
    resolved: &Resolved,
) -> Result<(), Error> {
    let retyped: Vec<&str> = resolved
        .resources
        .values()
        .filter(|d| {
            current
                .get(d.logical_id.as_str())
                .is_some_and(|r| r.type_name != d.type_name)
        })
        .map(|d| d.logical_id.as_str())
        .collect();
    if retyped.is_empty() {
        return Ok(());
    }
    Err(Error::validation(format!(
        "Update of resource type is not permitted. The new template modifies resource type of the following resources: [{}]",
        retyped.join(", ")
    )))
}

/// Whether the new outputs (as far as they evaluate before apply) differ from the stack's.
fn outputs_changed(prepared: &Prepared, old: &Snapshot) -> bool {
    let values = PlanValues::new(&old.current, old.exports.clone());
    let evaluator = evaluator(prepared, &values);
    let new: Vec<Output> = prepared
        .resolved
        .outputs
        .keys()
        .filter_map(|k| {
            evaluator.output(k).ok().map(|o| Output {
                key: k.clone(),
                value: o.value,
                description: o.description,
                export_name: o.export_name,
            })
        })
        .collect();
    new.len() != prepared.resolved.outputs.len() || new != old.outputs
}
