//! CloudFormation: templates, stacks, change sets and the stack engine that creates, updates,
//! replaces, moves and rolls back resources through providers over the other cores.
//!
//! [`CloudFormation`] is the handle (`Clone`, one `Arc<Shared>`) with one method per AWS
//! operation (aws-contract.md Appendix A). An `Err` from a method means the *request* was
//! refused (a synchronous ValidationError and the like, with AWS's message); a resource that
//! fails is not an `Err` but a `*_FAILED` event that drives the rollback. Operations that change
//! resources run as a task ([`engine`]); the call that starts one waits until the stack is
//! terminal or held by a fault, so `aws cloudformation deploy` sees a terminal status at its
//! first DescribeStacks. Knows nothing of HTTP (the wire is `protocol::wire::cloudformation`).
//!
//! Module map: [`status`] (state machines), [`model`] (records and operation shapes),
//! [`store`] (the per-region stack store), [`plan`] (change sets), [`engine`] (operation
//! tasks), [`providers`] (one per resource type), [`source`] (TemplateBody / TemplateURL),
//! `template` and `registry` (the template language, owned by the template engineer).

mod control;
pub mod engine;
mod error;
pub mod id;
pub mod model;
pub mod plan;
pub mod providers;
pub mod registry;
pub mod source;
pub mod status;
pub mod store;
pub mod template;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;
use serde_json::Value;

use crate::clock::Clock;
use crate::config::Config;
use crate::faults::Faults;
use crate::ids::{IdGen, Scope};
use crate::scheduler::Scheduler;
use crate::services::iam::Iam;
use crate::services::kms::Kms;
use crate::services::lambda::Lambda;
use crate::services::logs::Logs;
use crate::services::s3::S3;
use crate::services::sns::Sns;
use crate::services::sqs::Sqs;
use crate::services::ssm::Ssm;
use crate::services::states::States;
use crate::storage::Storage;

pub use control::{OperationControl, Phase};
pub use error::{messages, Error};
pub use id::{LogicalId, PhysicalId, StackId};
pub use status::{ChangeSetStatus, ExecutionStatus, ResourceStatus, StackStatus};
pub use store::{
    ChangeSetRecord, ResourceRecord, StackEventRecord, StackRecord, StackResourceView,
};

use engine::{Exec, Operation, Runner};
use error::messages::*;
use model::*;
use plan::Plan;
use providers::Providers;
use store::{ChangeSetOutcome, StackEntry, State};
use template::{BoundParameters, ParameterInput, Pseudo, Resolved, Template};

/// Page size of every paginated CloudFormation list.
pub const PAGE_SIZE: usize = 100;

/// What the CloudFormation core is built from.
#[derive(Clone, Debug)]
pub struct Deps {
    /// Configuration.
    pub config: Arc<Config>,
    /// The clock.
    pub clock: Clock,
    /// Id generator.
    pub ids: IdGen,
    /// Durable store.
    pub storage: Storage,
    /// Injected step failures.
    pub faults: Faults,
    /// SQS (queues).
    pub sqs: Sqs,
    /// SNS (topics, subscriptions).
    pub sns: Sns,
    /// SSM (parameters).
    pub ssm: Ssm,
    /// S3 (TemplateURL).
    pub s3: S3,
    /// IAM (roles, policies).
    pub iam: Iam,
    /// Lambda (functions, permissions).
    pub lambda: Lambda,
    /// Step Functions (state machines).
    pub states: States,
    /// CloudWatch Logs (log groups).
    pub logs: Logs,
    /// KMS (keys, aliases).
    pub kms: Kms,
    /// Scheduler (schedules, groups).
    pub scheduler: Scheduler,
}

/// State shared by every handle and operation task.
pub(crate) struct Shared {
    pub(crate) deps: Deps,
    pub(crate) providers: Providers,
    state: Mutex<State>,
}

impl Shared {
    /// The store, locked (poison is recovered: the store is always left consistent).
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Handle to the CloudFormation core.
#[derive(Clone)]
pub struct CloudFormation {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for CloudFormation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloudFormation")
            .field("providers", &self.shared.providers)
            .finish()
    }
}

/// Identifies the stack an operation runs on.
#[derive(Clone, Debug)]
pub(crate) struct StackRef {
    pub(crate) scope: Scope,
    pub(crate) stack_id: StackId,
    pub(crate) stack_name: String,
}

/// DescribeStackEvents output: one page of events (newest first) and the stack they belong to.
#[derive(Clone, Debug)]
pub struct StackEvents {
    /// Stack id.
    pub stack_id: StackId,
    /// Stack name.
    pub stack_name: String,
    /// The events, newest first.
    pub page: Page<StackEventRecord>,
}

/// A template checked against parameters and pseudo parameters, ready to plan or execute.
struct Prepared {
    template: Template,
    params: BoundParameters,
    shown: Vec<Parameter>,
    resolved: Arc<Resolved>,
    pseudo: Pseudo,
}

/// The `[a-zA-Z][-a-zA-Z0-9]*` pattern of stack and change-set names.
fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
}

impl CloudFormation {
    /// A CloudFormation with the stacks, change sets and exports `deps.storage` kept (none in
    /// memory mode).
    pub fn new(deps: Deps) -> CloudFormation {
        let providers = Providers::new(&deps);
        let sink = store::Sink::new(deps.storage.clone(), deps.ids.clone());
        let state = State::load(sink, deps.clock.now());
        CloudFormation {
            shared: Arc::new(Shared {
                deps,
                providers,
                state: Mutex::new(state),
            }),
        }
    }

    /// Deletes every stack, change set and export (not the resources: the other cores reset
    /// themselves).
    pub fn reset(&self) {
        self.shared.lock().clear();
    }

    /// How many status changes the stack store refused since start: each one is an engine bug
    /// (an edge AWS never takes), logged at error level and not applied. Not an AWS operation:
    /// the property tests assert it stays 0.
    pub fn refused_transitions(&self) -> u64 {
        self.shared.lock().refused_transitions()
    }

    fn deps(&self) -> &Deps {
        &self.shared.deps
    }

    // ------------------------------------------------------------------- shared steps

    /// CreateStack's StackName check (Coral wording, aws-contract.md §2.1).
    fn check_new_stack_name(name: &str) -> Result<(), Error> {
        if !is_plain_name(name) {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{name}' at 'stackName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*|arn:[-a-zA-Z0-9:/._+]*"
            )));
        }
        if name.len() > 128 {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{name}' at 'stackName' failed to satisfy constraint: Member must have length less than or equal to 128"
            )));
        }
        Ok(())
    }

    fn new_stack_id(&self, scope: &Scope, name: &str) -> StackId {
        StackId::from(scope.arn(
            "cloudformation",
            &format!("stack/{name}/{}", self.deps().ids.uuid()),
        ))
    }

    /// Template text from a request (body, URL, or the stack's current one).
    fn template_text(
        &self,
        source: &TemplateSource,
        previous: Option<&str>,
    ) -> Result<String, Error> {
        source::template_text(&self.deps().s3, source, previous)
    }

    fn parse(&self, body: &str) -> Result<Template, Error> {
        Template::parse(body).map_err(|e| Error::validation(e.to_string()))
    }

    /// Binds parameters, resolves the template and checks capabilities and ResourceTypes.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &self,
        scope: &Scope,
        template: Template,
        stack_name: &str,
        stack_id: &StackId,
        given: &[ParameterSpec],
        previous: Option<&BoundParameters>,
        capabilities: &[String],
        notification_arns: &[String],
        resource_types: Option<&[String]>,
    ) -> Result<Prepared, Error> {
        let inputs: Vec<ParameterInput> = given
            .iter()
            .map(|p| ParameterInput {
                key: p.key.clone(),
                value: p.value.clone(),
                use_previous_value: p.use_previous_value,
            })
            .collect();
        let env = source::SsmEnvironment::new(&self.deps().ssm, scope);
        let params = template
            .bind_parameters(&inputs, previous, &env)
            .map_err(|e| Error::validation(e.to_string()))?;
        let pseudo = Pseudo {
            account_id: scope.account.clone(),
            region: scope.region.clone(),
            stack_name: stack_name.to_string(),
            stack_id: stack_id.to_string(),
            notification_arns: notification_arns.to_vec(),
        };
        let resolved = template
            .resolve(&params, &pseudo)
            .map_err(|e| Error::validation(e.to_string()))?;
        let required = template.required_capabilities(&resolved);
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|cap| {
                let given = |c: &str| capabilities.iter().any(|g| g == c);
                match *cap {
                    "CAPABILITY_IAM" => !given("CAPABILITY_IAM") && !given("CAPABILITY_NAMED_IAM"),
                    other => !given(other),
                }
            })
            .collect();
        if !missing.is_empty() {
            return Err(Error::InsufficientCapabilities(format!(
                "Requires capabilities : [{}]",
                missing.join(", ")
            )));
        }
        if let Some(allowed) = resource_types {
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

    /// The parsed current template of a stack (cached on the entry).
    fn stack_template(&self, entry: &StackEntry) -> Result<Template, Error> {
        match &entry.template {
            Some(t) => Ok(t.clone()),
            None => self.parse(&entry.record.template_body),
        }
    }

    /// The UPDATE plan of `prepared` against the stack `stack_id`.
    fn plan_update(
        &self,
        scope: &Scope,
        stack_id: &StackId,
        prepared: &Prepared,
        tags: Option<&[Tag]>,
        notification_arns: Option<&[String]>,
    ) -> Result<Plan, Error> {
        let (current, exports, old_template, old_params, old_outputs, old_tags, old_arns) = {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            let exports: HashMap<String, String> = region
                .exports
                .values()
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect();
            let entry = region
                .stacks
                .get(stack_id)
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_id.as_str())))?;
            (
                entry.resources().clone(),
                exports,
                self.stack_template(entry).ok(),
                entry.record.parameters.clone(),
                entry.record.outputs.clone(),
                entry.record.tags.clone(),
                entry.record.notification_arns.clone(),
            )
        };
        let changed_parameters: HashSet<String> = prepared
            .shown
            .iter()
            .filter(|p| !old_params.contains(p))
            .map(|p| p.key.clone())
            .collect();
        let retyped: Vec<&str> = prepared
            .resolved
            .resources
            .values()
            .filter(|d| {
                current
                    .get(d.logical_id.as_str())
                    .is_some_and(|r| r.type_name != d.type_name)
            })
            .map(|d| d.logical_id.as_str())
            .collect();
        if !retyped.is_empty() {
            return Err(Error::validation(format!(
                "Update of resource type is not permitted. The new template modifies resource type of the following resources: [{}]",
                retyped.join(", ")
            )));
        }
        let old_declarations = old_template.as_ref().map(|t| t.resources());
        let providers = &self.shared.providers;
        let update_kind =
            |type_name: &str, old: &Value, new: &Value, create_only: bool| match providers
                .get(type_name)
            {
                Some(p) => p.update_kind(old, new, create_only),
                None if create_only => providers::UpdateKind::Replace,
                None => providers::UpdateKind::InPlace,
            };
        let inputs = plan::UpdateInputs {
            current: &current,
            old_declarations,
            resolved: &prepared.resolved,
            changed_parameters: &changed_parameters,
            update_kind: &update_kind,
        };
        let values = plan::PlanValues::new(&current, exports.clone());
        let evaluate = |logical_id: &str, values: &dyn template::ResourceValues| {
            template::Evaluator::new(
                &prepared.template,
                &prepared.params,
                &prepared.pseudo,
                &prepared.resolved,
                values,
            )
            .resource_properties(logical_id)
            .map_err(|e| e.to_string())
        };
        let mut plan = plan::plan_update(&inputs, values, &evaluate);
        let outputs_changed = {
            let values = plan::PlanValues::new(&current, exports);
            let evaluator = template::Evaluator::new(
                &prepared.template,
                &prepared.params,
                &prepared.pseudo,
                &prepared.resolved,
                &values,
            );
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
            new.len() != prepared.resolved.outputs.len() || new != old_outputs
        };
        let tags_changed = tags.is_some_and(|t| t != old_tags.as_slice());
        let arns_changed = notification_arns.is_some_and(|a| a != old_arns.as_slice());
        plan.other_changes = outputs_changed
            || !changed_parameters.is_empty()
            || prepared.shown.len() != old_params.len()
            || tags_changed
            || arns_changed;
        Ok(plan)
    }

    /// Registers an operation on the stack and starts its task; returns its control.
    fn start(&self, stack: StackRef, control: Arc<OperationControl>, op: Operation) {
        Runner::spawn(self.shared.clone(), stack, control, op);
    }

    // ------------------------------------------------------------------- CreateStack

    /// CreateStack: validates the request and template synchronously, then creates every
    /// resource; answers once the stack is terminal (or held by a fault) with its StackId.
    pub async fn create_stack(
        &self,
        scope: &Scope,
        input: CreateStackInput,
    ) -> Result<StackId, Error> {
        Self::check_new_stack_name(&input.stack_name)?;
        check_policy_source(&input.stack_policy_body, &input.stack_policy_url)?;
        let body = self.template_text(&input.template, None)?;
        let template = self.parse(&body)?;
        let existing = {
            let state = self.shared.lock();
            state
                .region_ref(scope)
                .and_then(|r| r.find(&input.stack_name))
                .map(|s| (s.stack_id().clone(), s.status()))
        };
        let stack_id = match existing {
            Some((id, StackStatus::ReviewInProgress)) => id,
            Some(_) => {
                return Err(Error::AlreadyExists(format!(
                    "Stack [{}] already exists",
                    input.stack_name
                )))
            }
            None => self.new_stack_id(scope, &input.stack_name),
        };
        let prepared = self.prepare(
            scope,
            template,
            &input.stack_name,
            &stack_id,
            &input.parameters,
            None,
            &input.capabilities,
            &input.notification_arns,
            input.resource_types.as_deref(),
        )?;
        let stack_policy_body = match &input.stack_policy_url {
            Some(url) => Some(source::fetch_url(&self.deps().s3, url)?),
            None => input.stack_policy_body.clone(),
        };
        let now = self.deps().clock.now();
        let on_failure = match (input.on_failure, input.disable_rollback) {
            (Some(_), Some(_)) => {
                return Err(Error::validation(
                    "You cannot specify both OnFailure and DisableRollback",
                ))
            }
            (Some(f), None) => f,
            (None, Some(true)) => OnFailure::DoNothing,
            (None, _) => OnFailure::Rollback,
        };
        let control = Arc::new(OperationControl::new());
        let stack = StackRef {
            scope: scope.clone(),
            stack_id: stack_id.clone(),
            stack_name: input.stack_name.clone(),
        };
        {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            match region.find(&input.stack_name) {
                Some(s)
                    if s.stack_id() != &stack_id || s.status() != StackStatus::ReviewInProgress =>
                {
                    return Err(Error::AlreadyExists(format!(
                        "Stack [{}] already exists",
                        input.stack_name
                    )))
                }
                _ => {}
            }
            let mut record = StackRecord::new(stack_id.clone(), &input.stack_name, now);
            record.template_body = body;
            record.description = prepared.template.description().map(str::to_string);
            record.bound_parameters = serde_json::to_value(&prepared.params).ok();
            record.parameters = prepared.shown.clone();
            record.capabilities = input.capabilities.clone();
            record.notification_arns = input.notification_arns.clone();
            record.tags = input.tags.clone();
            record.disable_rollback = on_failure == OnFailure::DoNothing;
            record.timeout_in_minutes = input.timeout_in_minutes;
            record.role_arn = input.role_arn.clone();
            record.enable_termination_protection = input.enable_termination_protection;
            record.stack_policy_body = stack_policy_body;
            record.rollback_configuration =
                input.rollback_configuration.clone().unwrap_or_default();
            record.retain_except_on_create = input.retain_except_on_create;
            let reason = Some(USER_INITIATED.to_string());
            // A stack waiting in REVIEW_IN_PROGRESS is taken over; its change sets go obsolete.
            let entry = match region.stack_mut(stack_id.as_str()) {
                Some(review) => {
                    review.replace_settings(record);
                    review.template = Some(prepared.template.clone());
                    review
                        .set_status(StackStatus::CreateInProgress, reason, now)
                        .map_err(internal)?;
                    review
                }
                None => region
                    .open_stack(
                        record,
                        Some(prepared.template.clone()),
                        StackStatus::CreateInProgress,
                        reason,
                        now,
                    )
                    .map_err(internal)?,
            };
            entry.begin_operation(control.clone());
            region.obsolete_change_sets(&stack_id, None);
        }
        let exec = Exec {
            template: prepared.template,
            params: prepared.params,
            pseudo: prepared.pseudo,
            resolved: prepared.resolved,
        };
        self.start(
            stack,
            control.clone(),
            Operation::Create {
                exec,
                on_failure,
                change_set_id: None,
            },
        );
        control.settled().await;
        Ok(stack_id)
    }

    // ------------------------------------------------------------------- UpdateStack

    /// UpdateStack: the same planning as an UPDATE change set, executed at once; `No updates
    /// are to be performed.` when nothing changes. Answers once the stack is terminal.
    pub async fn update_stack(
        &self,
        scope: &Scope,
        input: UpdateStackInput,
    ) -> Result<StackId, Error> {
        check_policy_source(&input.stack_policy_body, &input.stack_policy_url)?;
        let (stack_id, stack_name, previous_body, previous_params, old_tags, old_arns) =
            self.updatable(scope, &input.stack_name)?;
        let body = self.template_text(&input.template, Some(&previous_body))?;
        let template = self.parse(&body)?;
        let previous = previous_params
            .as_ref()
            .and_then(|v| serde_json::from_value::<BoundParameters>(v.clone()).ok());
        let arns = input.notification_arns.clone().unwrap_or(old_arns);
        let prepared = self.prepare(
            scope,
            template,
            &stack_name,
            &stack_id,
            &input.parameters,
            previous.as_ref(),
            &input.capabilities,
            &arns,
            input.resource_types.as_deref(),
        )?;
        let plan = self.plan_update(
            scope,
            &stack_id,
            &prepared,
            input.tags.as_deref(),
            input.notification_arns.as_deref(),
        )?;
        if plan.is_empty() {
            return Err(Error::validation(NO_UPDATES));
        }
        let stack_policy = match &input.stack_policy_url {
            Some(url) => Some(source::fetch_url(&self.deps().s3, url)?),
            None => input.stack_policy_body.clone(),
        };
        let tags = input.tags.clone().unwrap_or(old_tags);
        let update = PendingUpdate {
            body,
            prepared,
            plan,
            capabilities: input.capabilities.clone(),
            tags,
            notification_arns: arns,
            disable_rollback: input.disable_rollback.unwrap_or(false),
            change_set_id: None,
            stack_policy,
            rollback_configuration: input.rollback_configuration.clone(),
            role_arn: input.role_arn.clone(),
        };
        let control = self.begin_update(scope, &stack_id, update)?;
        control.settled().await;
        Ok(stack_id)
    }

    /// The stack `name_or_id` if it may be updated now: (id, name, template, bound parameters,
    /// tags, notification ARNs).
    #[allow(clippy::type_complexity)]
    fn updatable(
        &self,
        scope: &Scope,
        name_or_id: &str,
    ) -> Result<
        (
            StackId,
            String,
            String,
            Option<Value>,
            Vec<Tag>,
            Vec<String>,
        ),
        Error,
    > {
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
        Ok((
            r.stack_id.clone(),
            r.stack_name.clone(),
            r.template_body.clone(),
            r.bound_parameters.clone(),
            r.tags.clone(),
            r.notification_arns.clone(),
        ))
    }

    /// Moves the stack to UPDATE_IN_PROGRESS with a fresh journal and starts the update task.
    fn begin_update(
        &self,
        scope: &Scope,
        stack_id: &StackId,
        update: PendingUpdate,
    ) -> Result<Arc<OperationControl>, Error> {
        let now = self.deps().clock.now();
        let control = Arc::new(OperationControl::new());
        let stack_name = {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            let entry = region
                .stack_mut(stack_id.as_str())
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_id.as_str())))?;
            let status = entry.status();
            if !status.is_updatable() || entry.operation().is_some() {
                return Err(Error::validation(cannot_be_updated(
                    stack_id.as_str(),
                    status.as_str(),
                )));
            }
            let journal = engine::new_journal(entry);
            let r = &mut entry.record;
            r.journal = Some(Box::new(journal));
            r.template_body = update.body.clone();
            r.description = update.prepared.template.description().map(str::to_string);
            r.bound_parameters = serde_json::to_value(&update.prepared.params).ok();
            r.parameters = update.prepared.shown.clone();
            r.capabilities = update.capabilities.clone();
            r.tags = update.tags.clone();
            r.notification_arns = update.notification_arns.clone();
            r.disable_rollback = update.disable_rollback;
            if let Some(id) = &update.change_set_id {
                r.change_set_id = Some(id.clone());
            }
            if let Some(policy) = &update.stack_policy {
                r.stack_policy_body = Some(policy.clone());
            }
            if let Some(rc) = &update.rollback_configuration {
                r.rollback_configuration = rc.clone();
            }
            if update.role_arn.is_some() {
                r.role_arn = update.role_arn.clone();
            }
            let stack_name = r.stack_name.clone();
            entry.template = Some(update.prepared.template.clone());
            entry
                .set_status(
                    StackStatus::UpdateInProgress,
                    Some(USER_INITIATED.to_string()),
                    now,
                )
                .map_err(internal)?;
            entry.record.last_updated_time = entry.last_event_time();
            entry.save();
            entry.begin_operation(control.clone());
            // Other change sets of the stack can no longer be executed; one being executed
            // deletes them (ExecuteChangeSet documentation).
            region.obsolete_change_sets(stack_id, update.change_set_id.as_deref());
            if let Some(id) = &update.change_set_id {
                region
                    .set_execution_status(id, ExecutionStatus::ExecuteInProgress)
                    .map_err(internal)?;
                region.drop_change_sets(stack_id, Some(id));
            }
            stack_name
        };
        let exec = Exec {
            template: update.prepared.template,
            params: update.prepared.params,
            pseudo: update.prepared.pseudo,
            resolved: update.prepared.resolved,
        };
        self.start(
            StackRef {
                scope: scope.clone(),
                stack_id: stack_id.clone(),
                stack_name,
            },
            control.clone(),
            Operation::Update {
                exec,
                planned: update.plan.modified,
                disable_rollback: update.disable_rollback,
                change_set_id: update.change_set_id,
            },
        );
        Ok(control)
    }

    // ------------------------------------------------------------------- DeleteStack

    /// DeleteStack: unknown or deleted stacks succeed silently; a REVIEW_IN_PROGRESS stack goes
    /// straight to DELETE_COMPLETE; a stack whose exports are imported returns to its status
    /// with the reason (no API error); otherwise every resource is deleted in reverse order.
    pub async fn delete_stack(&self, scope: &Scope, input: DeleteStackInput) -> Result<(), Error> {
        let now = self.deps().clock.now();
        let control = Arc::new(OperationControl::new());
        let stack = {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            let Some(stack_id) = region.find_id(&input.stack_name).cloned() else {
                return Ok(());
            };
            let in_use = region.exports_in_use(stack_id.as_str());
            let Some(entry) = region.stack_mut(stack_id.as_str()) else {
                return Ok(());
            };
            let status = entry.status();
            let name = entry.record.stack_name.clone();
            if status == StackStatus::DeleteComplete {
                return Ok(());
            }
            if entry.record.enable_termination_protection {
                return Err(Error::validation(format!(
                    "Stack [{name}] cannot be deleted while TerminationProtection is enabled"
                )));
            }
            if entry.operation().is_some()
                || (status.is_in_progress() && status != StackStatus::ReviewInProgress)
            {
                return Err(Error::validation(format!(
                    "Stack [{name}] cannot be deleted while in status {status}"
                )));
            }
            if status == StackStatus::ReviewInProgress {
                entry
                    .set_status(StackStatus::DeleteComplete, None, now)
                    .map_err(internal)?;
                region.retire_stack(&stack_id);
                return Ok(());
            }
            entry
                .set_status(
                    StackStatus::DeleteInProgress,
                    Some(USER_INITIATED.to_string()),
                    now,
                )
                .map_err(internal)?;
            if let Some((export, users)) = in_use.first() {
                // AWS answers 200 and puts the stack back where it was, with the reason.
                let reason = format!(
                    "Export {export} cannot be deleted as it is in use by {}",
                    users.join(" and ")
                );
                entry
                    .set_status(status, Some(reason), now)
                    .map_err(internal)?;
                return Ok(());
            }
            entry.begin_operation(control.clone());
            StackRef {
                scope: scope.clone(),
                stack_id,
                stack_name: name,
            }
        };
        let retain = input
            .retain_resources
            .into_iter()
            .map(LogicalId::from)
            .collect();
        self.start(stack, control.clone(), Operation::Delete { retain });
        control.settled().await;
        Ok(())
    }

    // ------------------------------------------------------------------- reads

    /// DescribeStacks: one stack (by name: live only; by id: deleted too), or every live stack,
    /// newest first.
    pub fn describe_stacks(
        &self,
        scope: &Scope,
        stack_name: Option<&str>,
        next_token: Option<&str>,
    ) -> Result<Page<StackRecord>, Error> {
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        if let Some(name) = stack_name {
            let entry = region
                .and_then(|r| r.find(name))
                .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?;
            return Ok(Page {
                items: vec![entry.record.clone()],
                next_token: None,
            });
        }
        let offset = store::page_offset(next_token)?;
        let all: Vec<&StackEntry> = region
            .map(|r| {
                r.stacks
                    .values()
                    .rev()
                    .filter(|s| s.status() != StackStatus::DeleteComplete)
                    .collect()
            })
            .unwrap_or_default();
        let page = store::paginate(&all, offset, PAGE_SIZE);
        Ok(Page {
            items: page.items.iter().map(|s| s.record.clone()).collect(),
            next_token: page.next_token,
        })
    }

    /// DescribeStackEvents: the stack's events, newest first, 100 a page.
    pub fn describe_stack_events(
        &self,
        scope: &Scope,
        stack_name: &str,
        next_token: Option<&str>,
    ) -> Result<StackEvents, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
        let total = entry.events().len();
        let start = offset.min(total);
        let end = (offset + PAGE_SIZE).min(total);
        let items: Vec<StackEventRecord> = entry.events()[..total - start]
            .iter()
            .rev()
            .take(end - start)
            .cloned()
            .collect();
        Ok(StackEvents {
            stack_id: entry.record.stack_id.clone(),
            stack_name: entry.record.stack_name.clone(),
            page: Page {
                items,
                next_token: (end < total).then(|| format!("cumulo-{end}")),
            },
        })
    }

    /// DescribeStackResource: one resource of a stack.
    pub fn describe_stack_resource(
        &self,
        scope: &Scope,
        stack_name: &str,
        logical_id: &str,
    ) -> Result<StackResourceView, Error> {
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        let resource = entry.resources().get(logical_id).ok_or_else(|| {
            Error::validation(format!(
                "Resource {logical_id} does not exist for stack {}",
                entry.record.stack_name
            ))
        })?;
        Ok(StackResourceView {
            stack_name: entry.record.stack_name.clone(),
            stack_id: entry.record.stack_id.clone(),
            resource: resource.clone(),
        })
    }

    /// DescribeStackResources: a stack's resources (optionally one logical id), or the stack
    /// owning a physical id.
    pub fn describe_stack_resources(
        &self,
        scope: &Scope,
        stack_name: Option<&str>,
        logical_id: Option<&str>,
        physical_id: Option<&str>,
    ) -> Result<Vec<StackResourceView>, Error> {
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        let entry = match (stack_name, physical_id) {
            (Some(name), _) => region
                .and_then(|r| r.find(name))
                .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?,
            (None, Some(physical)) => region
                .and_then(|r| {
                    r.stacks.values().rev().find(|s| {
                        s.resources()
                            .values()
                            .any(|res| res.physical_id.as_ref().is_some_and(|p| p == physical))
                    })
                })
                .ok_or_else(|| Error::validation(format!("Stack for {physical} does not exist")))?,
            (None, None) => {
                return Err(Error::validation(
                    "Either StackName or PhysicalResourceId must be specified.",
                ))
            }
        };
        Ok(entry
            .resources()
            .values()
            .filter(|r| logical_id.is_none_or(|l| r.logical_id == l))
            .map(|r| StackResourceView {
                stack_name: entry.record.stack_name.clone(),
                stack_id: entry.record.stack_id.clone(),
                resource: r.clone(),
            })
            .collect())
    }

    /// ListStackResources: a stack's resources, 100 a page.
    pub fn list_stack_resources(
        &self,
        scope: &Scope,
        stack_name: &str,
        next_token: Option<&str>,
    ) -> Result<Page<ResourceRecord>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        let all: Vec<&ResourceRecord> = entry.resources().values().collect();
        let page = store::paginate(&all, offset, PAGE_SIZE);
        Ok(Page {
            items: page.items.into_iter().cloned().collect(),
            next_token: page.next_token,
        })
    }

    /// ListStacks: every stack (deleted ones too), newest first, filtered by status.
    pub fn list_stacks(
        &self,
        scope: &Scope,
        status_filter: &[String],
        next_token: Option<&str>,
    ) -> Result<Page<StackSummary>, Error> {
        let mut filter = Vec::new();
        for s in status_filter {
            let status = StackStatus::parse(s).ok_or_else(|| {
                Error::validation(format!(
                    "1 validation error detected: Value '[{s}]' at 'stackStatusFilter' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [{}]]",
                    StackStatus::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ))
            })?;
            filter.push(status);
        }
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let all: Vec<StackSummary> = state
            .region_ref(scope)
            .map(|r| {
                r.stacks
                    .values()
                    .rev()
                    .filter(|s| filter.is_empty() || filter.contains(&s.status()))
                    .map(|s| StackSummary {
                        stack_id: s.record.stack_id.clone(),
                        stack_name: s.record.stack_name.clone(),
                        template_description: s.record.description.clone(),
                        creation_time: s.record.creation_time,
                        last_updated_time: s.record.last_updated_time,
                        deletion_time: s.record.deletion_time,
                        status: s.status(),
                        status_reason: s.record.status_reason().map(str::to_string),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(store::paginate(&all, offset, PAGE_SIZE))
    }

    /// GetTemplate: a stack's (or change set's) template, Original (as sent: YAML stays YAML)
    /// or Processed (after AWS::LanguageExtensions, as JSON).
    pub fn get_template(
        &self,
        scope: &Scope,
        stack_name: Option<&str>,
        change_set_name: Option<&str>,
        stage: Option<&str>,
    ) -> Result<TemplateOutput, Error> {
        let processed = match stage {
            None | Some("Original") => false,
            Some("Processed") => true,
            Some(other) => {
                return Err(Error::validation(format!(
                    "1 validation error detected: Value '{other}' at 'templateStage' failed to satisfy constraint: Member must satisfy enum value set: [Original, Processed]"
                )))
            }
        };
        let body = {
            let state = self.shared.lock();
            let region = state.region_ref(scope);
            match change_set_name {
                Some(cs_name) => {
                    let stack_id = match stack_name {
                        Some(n) => Some(
                            region
                                .and_then(|r| r.find_id(n))
                                .ok_or_else(|| Error::validation(stack_does_not_exist(n)))?
                                .to_string(),
                        ),
                        None => None,
                    };
                    if stack_id.is_none() && !cs_name.starts_with("arn:") {
                        return Err(Error::validation(
                            "StackName must be specified if ChangeSetName is not specified as an ARN.",
                        ));
                    }
                    region
                        .and_then(|r| r.find_change_set(cs_name, stack_id.as_deref()))
                        .ok_or_else(|| {
                            Error::ChangeSetNotFound(change_set_does_not_exist(cs_name))
                        })?
                        .record
                        .template_body
                        .clone()
                }
                None => {
                    let name = stack_name.ok_or_else(|| {
                        Error::validation(
                            "StackName is required if ChangeSetName is not specified.",
                        )
                    })?;
                    region
                        .and_then(|r| r.find(name))
                        .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?
                        .record
                        .template_body
                        .clone()
                }
            }
        };
        let body = if processed && !body.is_empty() {
            let template = self.parse(&body)?;
            serde_json::to_string(&template.processed()).unwrap_or(body)
        } else {
            body
        };
        Ok(TemplateOutput {
            body,
            stages_available: vec!["Original".into(), "Processed".into()],
        })
    }

    /// GetTemplateSummary of a template (body or URL) or of a stack's template.
    pub fn get_template_summary(
        &self,
        scope: &Scope,
        source: TemplateSource,
        stack_name: Option<&str>,
        stack_set_name: Option<&str>,
    ) -> Result<TemplateSummary, Error> {
        if stack_set_name.is_some() {
            return Err(Error::NotImplemented(
                "Cumulo does not implement stack sets".to_string(),
            ));
        }
        let given = [
            source.body.is_some(),
            source.url.is_some(),
            stack_name.is_some(),
        ]
        .iter()
        .filter(|g| **g)
        .count();
        if given != 1 {
            return Err(Error::validation(
                "Exactly one of TemplateBody, TemplateUrl, StackName or StackSetName must be specified.",
            ));
        }
        let template = match stack_name {
            Some(name) => {
                let state = self.shared.lock();
                let entry = state
                    .region_ref(scope)
                    .and_then(|r| r.find(name))
                    .ok_or_else(|| Error::validation(stack_id_does_not_exist(name)))?;
                if entry.status() == StackStatus::ReviewInProgress {
                    return Err(Error::validation(
                        "GetTemplateSummary cannot be called on REVIEW_IN_PROGRESS stacks.",
                    ));
                }
                self.stack_template(entry)?
            }
            None => self.parse(&self.template_text(&source, None)?)?,
        };
        Ok(summarize(&template))
    }

    /// ValidateTemplate: parses and statically checks a template; answers its parameters,
    /// description, capabilities (with the reason) and declared transforms.
    pub fn validate_template(
        &self,
        scope: &Scope,
        source: TemplateSource,
    ) -> Result<TemplateSummary, Error> {
        let _ = scope;
        let body = self.template_text(&source, None)?;
        Ok(summarize(&self.parse(&body)?))
    }

    // ------------------------------------------------------------------- change sets

    /// CreateChangeSet: template errors, parameter errors and missing capabilities are
    /// synchronous errors; otherwise the change set is computed at once (CREATE_COMPLETE /
    /// AVAILABLE, or FAILED / UNAVAILABLE with "no changes"). A CREATE change set makes the stack
    /// (REVIEW_IN_PROGRESS). Answers (change-set id, stack id).
    pub async fn create_change_set(
        &self,
        scope: &Scope,
        input: CreateChangeSetInput,
    ) -> Result<(String, StackId), Error> {
        if !is_plain_name(&input.change_set_name) || input.change_set_name.len() > 128 {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{}' at 'changeSetName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*",
                input.change_set_name
            )));
        }
        let (stack_id, stack_name, previous_body, previous_params, new_stack, old_arns) =
            match input.change_set_type {
                // The same lookup and refusals as UpdateStack.
                ChangeSetType::Update => {
                    let (id, name, body, params, _tags, arns) =
                        self.updatable(scope, &input.stack_name)?;
                    (id, name, Some(body), params, false, arns)
                }
                ChangeSetType::Create => {
                    let existing = {
                        let state = self.shared.lock();
                        state
                            .region_ref(scope)
                            .and_then(|r| r.find(&input.stack_name))
                            .map(|s| {
                                (
                                    s.record.stack_id.clone(),
                                    s.record.stack_name.clone(),
                                    s.status(),
                                )
                            })
                    };
                    match existing {
                        Some((id, name, StackStatus::ReviewInProgress)) => {
                            (id, name, None, None, false, Vec::new())
                        }
                        Some(_) => {
                            return Err(Error::validation(format!(
                                "Stack [{}] already exists and cannot be created again with the changeSet [{}].",
                                input.stack_name, input.change_set_name
                            )))
                        }
                        None => {
                            if input.stack_name.starts_with("arn:") {
                                return Err(Error::validation(format!(
                                    "Stack [{}] already exists and cannot be created again with the changeSet [{}].",
                                    input.stack_name, input.change_set_name
                                )));
                            }
                            Self::check_new_stack_name(&input.stack_name)?;
                            (
                                self.new_stack_id(scope, &input.stack_name),
                                input.stack_name.clone(),
                                None,
                                None,
                                true,
                                Vec::new(),
                            )
                        }
                    }
                }
            };
        // A name is taken while a change set of that name can still be executed; the name of
        // an executed, failed or obsolete one may be used again (the CLI names its change sets
        // after the current second).
        {
            let state = self.shared.lock();
            let taken = state.region_ref(scope).is_some_and(|r| {
                r.change_sets.values().any(|cs| {
                    cs.record.stack_id == stack_id
                        && cs.record.change_set_name == input.change_set_name
                        && cs.record.execution_status() == ExecutionStatus::Available
                })
            });
            if taken {
                return Err(Error::AlreadyExists(format!(
                    "ChangeSet [{}] already exists",
                    input.change_set_name
                )));
            }
        }
        let body = self.template_text(&input.template, previous_body.as_deref())?;
        let template = self.parse(&body)?;
        let previous = previous_params
            .as_ref()
            .and_then(|v| serde_json::from_value::<BoundParameters>(v.clone()).ok());
        let arns = input.notification_arns.clone().unwrap_or(old_arns);
        let prepared = self.prepare(
            scope,
            template,
            &stack_name,
            &stack_id,
            &input.parameters,
            previous.as_ref(),
            &input.capabilities,
            &arns,
            input.resource_types.as_deref(),
        )?;
        let plan = match input.change_set_type {
            ChangeSetType::Create => plan::plan_create(&prepared.resolved),
            ChangeSetType::Update => self.plan_update(
                scope,
                &stack_id,
                &prepared,
                input.tags.as_deref(),
                input.notification_arns.as_deref(),
            )?,
        };
        let now = self.deps().clock.now();
        let change_set_id = scope.arn(
            "cloudformation",
            &format!(
                "changeSet/{}/{}",
                input.change_set_name,
                self.deps().ids.uuid()
            ),
        );
        let outcome = if plan.is_empty() {
            ChangeSetOutcome::Failed(NO_CHANGES.to_string())
        } else {
            ChangeSetOutcome::Computed
        };
        let mut record = ChangeSetRecord::new(
            change_set_id.clone(),
            &input.change_set_name,
            (&stack_id, &stack_name),
            input.change_set_type,
            now,
        );
        record.description = input.description.clone();
        record.template_body = body;
        record.bound_parameters = serde_json::to_value(&prepared.params).ok();
        record.parameters = prepared.shown.clone();
        record.capabilities = input.capabilities.clone();
        record.tags = input.tags.clone();
        record.notification_arns = input.notification_arns.clone();
        record.rollback_configuration = input.rollback_configuration.clone().unwrap_or_default();
        record.role_arn = input.role_arn.clone();
        record.on_stack_failure = input.on_stack_failure;
        record.include_nested_stacks = input.include_nested_stacks;
        record.changes = plan.changes.clone();
        let mut state = self.shared.lock();
        let region = state.region(scope);
        if new_stack {
            if region.find(&stack_name).is_some() {
                return Err(Error::validation(format!(
                    "Stack [{}] already exists and cannot be created again with the changeSet [{}].",
                    input.stack_name, input.change_set_name
                )));
            }
            let mut stack = StackRecord::new(stack_id.clone(), &stack_name, now);
            stack.tags = input.tags.clone().unwrap_or_default();
            region
                .open_stack(
                    stack,
                    None,
                    StackStatus::ReviewInProgress,
                    Some(USER_INITIATED.to_string()),
                    now,
                )
                .map_err(internal)?;
        }
        region
            .add_change_set(
                record,
                Some(prepared.template.clone()),
                Some(Arc::new(plan)),
                outcome,
            )
            .map_err(internal)?;
        Ok((change_set_id, stack_id))
    }

    /// Finds a change set as DescribeChangeSet / ExecuteChangeSet / DeleteChangeSet do.
    fn find_change_set<'a>(
        region: Option<&'a store::Region>,
        name: &str,
        stack_name: Option<&str>,
    ) -> Result<&'a store::ChangeSetEntry, Error> {
        let stack_id = match stack_name {
            Some(s) => Some(
                region
                    .and_then(|r| r.find_id(s))
                    .ok_or_else(|| Error::validation(stack_does_not_exist(s)))?,
            ),
            None => None,
        };
        if stack_id.is_none() && !name.starts_with("arn:") {
            return Err(Error::validation(
                "StackName must be specified if ChangeSetName is not specified as an ARN.",
            ));
        }
        region
            .and_then(|r| r.find_change_set(name, stack_id.map(StackId::as_str)))
            .ok_or_else(|| Error::ChangeSetNotFound(change_set_does_not_exist(name)))
    }

    /// DescribeChangeSet: the change set and one page of its changes.
    pub fn describe_change_set(
        &self,
        scope: &Scope,
        change_set_name: &str,
        stack_name: Option<&str>,
        next_token: Option<&str>,
    ) -> Result<(ChangeSetRecord, Page<ResourceChange>), Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let entry = Self::find_change_set(state.region_ref(scope), change_set_name, stack_name)?;
        let page = store::paginate(&entry.record.changes, offset, PAGE_SIZE);
        Ok((entry.record.clone(), page))
    }

    /// ExecuteChangeSet: runs a CREATE (the stack leaves REVIEW_IN_PROGRESS) or UPDATE change
    /// set; answers once the stack is terminal (or held by a fault).
    pub async fn execute_change_set(
        &self,
        scope: &Scope,
        input: ExecuteChangeSetInput,
    ) -> Result<(), Error> {
        let (record, template, plan, stack_status) = {
            let state = self.shared.lock();
            let region = state.region_ref(scope);
            let entry =
                Self::find_change_set(region, &input.change_set_name, input.stack_name.as_deref())?;
            let r = &entry.record;
            if r.status() != ChangeSetStatus::CreateComplete {
                return Err(Error::InvalidChangeSetStatus(format!(
                    "ChangeSet [{}] cannot be executed in its current status of [{}]",
                    r.change_set_id,
                    r.status()
                )));
            }
            if r.execution_status() != ExecutionStatus::Available {
                return Err(Error::InvalidChangeSetStatus(format!(
                    "ChangeSet [{}] cannot be executed in its current execution status of [{}]",
                    r.change_set_id,
                    r.execution_status()
                )));
            }
            let stack = region
                .and_then(|reg| reg.stacks.get(&r.stack_id))
                .ok_or_else(|| Error::validation(stack_does_not_exist(&r.stack_name)))?;
            (
                r.clone(),
                entry.template.clone(),
                entry.plan.clone(),
                (stack.status(), stack.operation().is_some()),
            )
        };
        let template = match template {
            Some(t) => t,
            None => self.parse(&record.template_body)?,
        };
        let params: BoundParameters = record
            .bound_parameters
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
            .ok_or_else(|| Error::validation("the change set's parameters cannot be read"))?;
        // A change set without NotificationARNs keeps the stack's (AWS::NotificationARNs too).
        let notification_arns = match &record.notification_arns {
            Some(a) => a.clone(),
            None => self.current_arns(scope, &record.stack_id),
        };
        let pseudo = Pseudo {
            account_id: scope.account.clone(),
            region: scope.region.clone(),
            stack_name: record.stack_name.clone(),
            stack_id: record.stack_id.to_string(),
            notification_arns: notification_arns.clone(),
        };
        let resolved = Arc::new(
            template
                .resolve(&params, &pseudo)
                .map_err(|e| Error::validation(e.to_string()))?,
        );
        let prepared = Prepared {
            template,
            shown: record.parameters.clone(),
            params,
            resolved,
            pseudo,
        };
        // The change set's own record says what it modifies (the cached plan is not durable).
        let plan = plan.map(|p| (*p).clone()).unwrap_or_else(|| Plan {
            changes: record.changes.clone(),
            modified: record
                .changes
                .iter()
                .filter(|c| c.action == ChangeAction::Modify)
                .map(|c| c.logical_id.clone())
                .collect(),
            other_changes: true,
        });
        match record.change_set_type {
            ChangeSetType::Create => {
                if stack_status.0 != StackStatus::ReviewInProgress || stack_status.1 {
                    return Err(Error::InvalidChangeSetStatus(format!(
                        "ChangeSet [{}] cannot be executed in its current execution status of [{}]",
                        record.change_set_id,
                        ExecutionStatus::Obsolete
                    )));
                }
                self.execute_create(scope, &record, prepared, input).await
            }
            ChangeSetType::Update => {
                let update = PendingUpdate {
                    body: record.template_body.clone(),
                    prepared,
                    plan,
                    capabilities: record.capabilities.clone(),
                    tags: match &record.tags {
                        Some(t) => t.clone(),
                        None => self.current_tags(scope, &record.stack_id),
                    },
                    notification_arns,
                    disable_rollback: input.disable_rollback.unwrap_or(false)
                        || record.on_stack_failure == Some(OnFailure::DoNothing),
                    change_set_id: Some(record.change_set_id.clone()),
                    stack_policy: None,
                    rollback_configuration: Some(record.rollback_configuration.clone()),
                    role_arn: record.role_arn.clone(),
                };
                let control = self.begin_update(scope, &record.stack_id, update)?;
                control.settled().await;
                Ok(())
            }
        }
    }

    fn current_tags(&self, scope: &Scope, stack_id: &StackId) -> Vec<Tag> {
        let state = self.shared.lock();
        state
            .region_ref(scope)
            .and_then(|r| r.stacks.get(stack_id))
            .map(|s| s.record.tags.clone())
            .unwrap_or_default()
    }

    fn current_arns(&self, scope: &Scope, stack_id: &StackId) -> Vec<String> {
        let state = self.shared.lock();
        state
            .region_ref(scope)
            .and_then(|r| r.stacks.get(stack_id))
            .map(|s| s.record.notification_arns.clone())
            .unwrap_or_default()
    }

    async fn execute_create(
        &self,
        scope: &Scope,
        record: &ChangeSetRecord,
        prepared: Prepared,
        input: ExecuteChangeSetInput,
    ) -> Result<(), Error> {
        let now = self.deps().clock.now();
        let on_failure = if input.disable_rollback == Some(true) {
            OnFailure::DoNothing
        } else {
            record.on_stack_failure.unwrap_or(OnFailure::Rollback)
        };
        let control = Arc::new(OperationControl::new());
        let tags = record.tags.clone().unwrap_or_default();
        {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            let Some(entry) = region.stack_mut(record.stack_id.as_str()) else {
                return Err(Error::validation(stack_does_not_exist(&record.stack_name)));
            };
            if entry.status() != StackStatus::ReviewInProgress || entry.operation().is_some() {
                return Err(Error::InvalidChangeSetStatus(format!(
                    "ChangeSet [{}] cannot be executed in its current execution status of [{}]",
                    record.change_set_id,
                    ExecutionStatus::Obsolete
                )));
            }
            let r = &mut entry.record;
            r.change_set_id = Some(record.change_set_id.clone());
            r.template_body = record.template_body.clone();
            r.description = prepared.template.description().map(str::to_string);
            r.bound_parameters = record.bound_parameters.clone();
            r.parameters = record.parameters.clone();
            r.capabilities = record.capabilities.clone();
            r.tags = tags.clone();
            r.notification_arns = record.notification_arns.clone().unwrap_or_default();
            r.disable_rollback = on_failure == OnFailure::DoNothing;
            r.rollback_configuration = record.rollback_configuration.clone();
            r.role_arn = record.role_arn.clone();
            r.retain_except_on_create = input.retain_except_on_create.unwrap_or(false);
            entry.template = Some(prepared.template.clone());
            entry
                .set_status(
                    StackStatus::CreateInProgress,
                    Some(USER_INITIATED.to_string()),
                    now,
                )
                .map_err(internal)?;
            entry.record.last_updated_time = entry.last_event_time();
            entry.save();
            entry.begin_operation(control.clone());
            region
                .set_execution_status(&record.change_set_id, ExecutionStatus::ExecuteInProgress)
                .map_err(internal)?;
            // The stack's other change sets are deleted (ExecuteChangeSet documentation).
            region.drop_change_sets(&record.stack_id, Some(&record.change_set_id));
        }
        let exec = Exec {
            template: prepared.template,
            params: prepared.params,
            pseudo: prepared.pseudo,
            resolved: prepared.resolved,
        };
        self.start(
            StackRef {
                scope: scope.clone(),
                stack_id: record.stack_id.clone(),
                stack_name: record.stack_name.clone(),
            },
            control.clone(),
            Operation::Create {
                exec,
                on_failure,
                change_set_id: Some(record.change_set_id.clone()),
            },
        );
        control.settled().await;
        Ok(())
    }

    /// DeleteChangeSet (also allowed after execution); a change set being executed is refused.
    pub fn delete_change_set(
        &self,
        scope: &Scope,
        change_set_name: &str,
        stack_name: Option<&str>,
    ) -> Result<(), Error> {
        let mut state = self.shared.lock();
        let id = {
            let entry =
                Self::find_change_set(state.region_ref(scope), change_set_name, stack_name)?;
            if entry.record.execution_status() == ExecutionStatus::ExecuteInProgress {
                return Err(Error::InvalidChangeSetStatus(
                    "An operation on this ChangeSet is currently in progress.  Please attempt this operation again later.".to_string(),
                ));
            }
            entry.record.change_set_id.clone()
        };
        state.region(scope).remove_change_set(&id);
        Ok(())
    }

    /// ListChangeSets: the stack's change sets that were not executed.
    pub fn list_change_sets(
        &self,
        scope: &Scope,
        stack_name: &str,
        next_token: Option<&str>,
    ) -> Result<Page<ChangeSetRecord>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        let stack_id = region
            .and_then(|r| r.find_id(stack_name))
            .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
        let all: Vec<ChangeSetRecord> = region
            .map(|r| {
                r.change_sets
                    .values()
                    .filter(|cs| {
                        &cs.record.stack_id == stack_id
                            && !matches!(
                                cs.record.execution_status(),
                                ExecutionStatus::ExecuteInProgress
                                    | ExecutionStatus::ExecuteComplete
                                    | ExecutionStatus::ExecuteFailed
                            )
                    })
                    .map(|cs| cs.record.clone())
                    .collect()
            })
            .unwrap_or_default();
        Ok(store::paginate(&all, offset, PAGE_SIZE))
    }

    // ------------------------------------------------------------------- exports and imports

    /// ListExports: every export of the region.
    pub fn list_exports(
        &self,
        scope: &Scope,
        next_token: Option<&str>,
    ) -> Result<Page<Export>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let all: Vec<Export> = state
            .region_ref(scope)
            .map(|r| r.exports.values().cloned().collect())
            .unwrap_or_default();
        Ok(store::paginate(&all, offset, PAGE_SIZE))
    }

    /// ListImports: names of the stacks importing an export.
    pub fn list_imports(
        &self,
        scope: &Scope,
        export_name: &str,
        next_token: Option<&str>,
    ) -> Result<Page<String>, Error> {
        let offset = store::page_offset(next_token)?;
        let state = self.shared.lock();
        let region = state.region_ref(scope);
        if region.is_none_or(|r| !r.exports.contains_key(export_name)) {
            return Err(Error::validation(format!(
                "Export '{export_name}' is not imported by any stack."
            )));
        }
        let importers = region
            .map(|r| r.importers(export_name, None))
            .unwrap_or_default();
        if importers.is_empty() {
            return Err(Error::validation(format!(
                "Export '{export_name}' is not imported by any stack."
            )));
        }
        Ok(store::paginate(&importers, offset, PAGE_SIZE))
    }

    // ------------------------------------------------------------------- rollback control

    /// ContinueUpdateRollback: from UPDATE_ROLLBACK_FAILED, retries the failed restores
    /// (ResourcesToSkip are left as they are and marked UPDATE_COMPLETE).
    pub async fn continue_update_rollback(
        &self,
        scope: &Scope,
        stack_name: &str,
        resources_to_skip: Vec<String>,
    ) -> Result<(), Error> {
        let control = Arc::new(OperationControl::new());
        let stack = {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            let id = region
                .find_id(stack_name)
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?
                .clone();
            let entry = region
                .stack_mut(id.as_str())
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
            if entry.status() != StackStatus::UpdateRollbackFailed || entry.operation().is_some() {
                return Err(Error::validation(
                    "ContinueUpdateRollback cannot be called from current stack status",
                ));
            }
            for skip in &resources_to_skip {
                let failed = entry
                    .resource(skip)
                    .is_some_and(|r| r.status() == ResourceStatus::UpdateFailed);
                if !failed {
                    return Err(Error::validation(format!(
                        "Resource [{skip}] is not in a failed state and cannot be skipped"
                    )));
                }
            }
            entry.begin_operation(control.clone());
            StackRef {
                scope: scope.clone(),
                stack_id: id,
                stack_name: entry.record.stack_name.clone(),
            }
        };
        self.start(
            stack,
            control.clone(),
            Operation::UpdateRollback {
                skip: resources_to_skip.into_iter().map(LogicalId::from).collect(),
            },
        );
        control.settled().await;
        Ok(())
    }

    /// CancelUpdateStack: only in UPDATE_IN_PROGRESS; the update stops at its next step and
    /// rolls back. Answers once the stack is terminal (or held again).
    pub async fn cancel_update_stack(&self, scope: &Scope, stack_name: &str) -> Result<(), Error> {
        let control = {
            let state = self.shared.lock();
            let entry = state
                .region_ref(scope)
                .and_then(|r| r.find(stack_name))
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
            match (entry.operation(), entry.status()) {
                (Some(op), StackStatus::UpdateInProgress) => op.clone(),
                _ => {
                    return Err(Error::validation(
                        "CancelUpdateStack cannot be called from current stack status",
                    ))
                }
            }
        };
        let seen = control.phase();
        control.cancel();
        control.settled_after(seen).await;
        Ok(())
    }

    /// Waits until the stack `stack_name` (name or id) has no operation running, held by a
    /// fault's `hold_seconds` included; at once when it has none or does not exist. Not an AWS
    /// operation: for embedders and tests that start an operation a fault holds and need its
    /// end.
    pub async fn operation_finished(&self, scope: &Scope, stack_name: &str) {
        let control = {
            let state = self.shared.lock();
            state
                .region_ref(scope)
                .and_then(|r| r.find(stack_name))
                .and_then(|entry| entry.operation().cloned())
        };
        if let Some(control) = control {
            control.done().await;
        }
    }

    /// RollbackStack: rolls back a stack left in UPDATE_FAILED or CREATE_FAILED (rollback was
    /// disabled).
    pub async fn rollback_stack(&self, scope: &Scope, stack_name: &str) -> Result<StackId, Error> {
        let control = Arc::new(OperationControl::new());
        let (stack, op) = {
            let mut state = self.shared.lock();
            let region = state.region(scope);
            let id = region
                .find_id(stack_name)
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?
                .clone();
            let entry = region
                .stack_mut(id.as_str())
                .ok_or_else(|| Error::validation(stack_does_not_exist(stack_name)))?;
            let op = match entry.status() {
                StackStatus::UpdateFailed => Operation::UpdateRollback { skip: Vec::new() },
                StackStatus::CreateFailed => Operation::CreateRollback,
                other => {
                    return Err(Error::validation(format!(
                        "Stack {} is in {other} state and can not be rolled back",
                        entry.record.stack_id
                    )))
                }
            };
            if entry.operation().is_some() {
                return Err(Error::validation(format!(
                    "Stack {} is in {} state and can not be rolled back",
                    entry.record.stack_id,
                    entry.status()
                )));
            }
            entry.begin_operation(control.clone());
            (
                StackRef {
                    scope: scope.clone(),
                    stack_id: id,
                    stack_name: entry.record.stack_name.clone(),
                },
                op,
            )
        };
        let stack_id = stack.stack_id.clone();
        self.start(stack, control.clone(), op);
        control.settled().await;
        Ok(stack_id)
    }

    // ------------------------------------------------------------------- settings

    /// UpdateTerminationProtection: answers the StackId.
    pub fn update_termination_protection(
        &self,
        scope: &Scope,
        stack_name: &str,
        enable: bool,
    ) -> Result<StackId, Error> {
        let mut state = self.shared.lock();
        let region = state.region(scope);
        let id = region
            .find_id(stack_name)
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?
            .clone();
        let entry = region
            .stack_mut(id.as_str())
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        if entry.status() == StackStatus::DeleteComplete {
            return Err(Error::validation(stack_id_does_not_exist(stack_name)));
        }
        entry.record.enable_termination_protection = enable;
        entry.save();
        Ok(id)
    }

    /// SetStackPolicy: stores the policy (Cumulo does not enforce stack policies).
    pub fn set_stack_policy(
        &self,
        scope: &Scope,
        stack_name: &str,
        body: Option<&str>,
        url: Option<&str>,
    ) -> Result<(), Error> {
        let body = match (body, url) {
            (Some(_), Some(_)) => {
                return Err(Error::validation(
                    "You cannot specify both StackPolicyURL and StackPolicyBody",
                ))
            }
            (Some(b), None) => b.to_string(),
            (None, Some(u)) => source::fetch_url(&self.deps().s3, u)?,
            (None, None) => {
                return Err(Error::validation(
                    "Either StackPolicyBody or StackPolicyURL must be specified.",
                ))
            }
        };
        if serde_json::from_str::<Value>(&body).is_err() {
            return Err(Error::validation(
                "Error validating stack policy: Invalid stack policy",
            ));
        }
        let mut state = self.shared.lock();
        let region = state.region(scope);
        let id = region
            .find_id(stack_name)
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?
            .clone();
        let entry = region
            .stack_mut(id.as_str())
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        entry.record.stack_policy_body = Some(body);
        entry.save();
        Ok(())
    }

    /// GetStackPolicy: the stored policy, if any.
    pub fn get_stack_policy(
        &self,
        scope: &Scope,
        stack_name: &str,
    ) -> Result<Option<String>, Error> {
        let state = self.shared.lock();
        let entry = state
            .region_ref(scope)
            .and_then(|r| r.find(stack_name))
            .ok_or_else(|| Error::validation(stack_id_does_not_exist(stack_name)))?;
        Ok(entry.record.stack_policy_body.clone())
    }
}

/// An update ready to start (from UpdateStack or an UPDATE change set).
struct PendingUpdate {
    body: String,
    prepared: Prepared,
    plan: Plan,
    capabilities: Vec<String>,
    tags: Vec<Tag>,
    notification_arns: Vec<String>,
    disable_rollback: bool,
    change_set_id: Option<String>,
    stack_policy: Option<String>,
    rollback_configuration: Option<RollbackConfiguration>,
    role_arn: Option<String>,
}

/// A transition the store refused: an engine bug, answered as a ValidationError naming it (the
/// store logged and counted it).
fn internal(err: status::IllegalTransition) -> Error {
    Error::validation(format!("Cumulo refused an internal status change: {err}"))
}

fn check_policy_source(body: &Option<String>, url: &Option<String>) -> Result<(), Error> {
    if body.is_some() && url.is_some() {
        return Err(Error::validation(
            "You cannot specify both StackPolicyURL and StackPolicyBody",
        ));
    }
    Ok(())
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

/// The IAM resource types that need a capability, and the property naming each (which makes
/// the capability CAPABILITY_NAMED_IAM).
const IAM_TYPES: &[(&str, &str)] = &[
    ("AWS::IAM::Role", "RoleName"),
    ("AWS::IAM::User", "UserName"),
    ("AWS::IAM::Group", "GroupName"),
    ("AWS::IAM::ManagedPolicy", "ManagedPolicyName"),
    ("AWS::IAM::InstanceProfile", "InstanceProfileName"),
    ("AWS::IAM::Policy", ""),
    ("AWS::IAM::AccessKey", ""),
    ("AWS::IAM::UserToGroupAddition", ""),
];

/// The capabilities a template needs whatever its parameters (ValidateTemplate,
/// GetTemplateSummary): CAPABILITY_IAM or CAPABILITY_NAMED_IAM for IAM resources,
/// CAPABILITY_AUTO_EXPAND for transforms; with the resource types (or transforms) that need
/// them, for `CapabilitiesReason`.
fn static_capabilities(template: &Template) -> (Vec<String>, Vec<String>) {
    let mut types: Vec<String> = Vec::new();
    let mut named = false;
    for decl in template.resources().values() {
        if let Some((t, name_property)) = IAM_TYPES.iter().find(|(t, _)| *t == decl.type_name) {
            if !types.iter().any(|x| x == t) {
                types.push(t.to_string());
            }
            named |= !name_property.is_empty() && decl.properties.get(*name_property).is_some();
        }
    }
    let mut caps = Vec::new();
    if !types.is_empty() {
        caps.push(
            if named {
                "CAPABILITY_NAMED_IAM"
            } else {
                "CAPABILITY_IAM"
            }
            .to_string(),
        );
    }
    if !template.transforms().is_empty() {
        caps.push("CAPABILITY_AUTO_EXPAND".to_string());
        if types.is_empty() {
            types = template.transforms().to_vec();
        }
    }
    (caps, types)
}

/// GetTemplateSummary / ValidateTemplate of a parsed template.
fn summarize(template: &Template) -> TemplateSummary {
    let mut types: Vec<String> = Vec::new();
    let mut by_type: IndexMap<String, Vec<String>> = IndexMap::new();
    for decl in template.resources().values() {
        if !types.contains(&decl.type_name) {
            types.push(decl.type_name.clone());
        }
        by_type
            .entry(decl.type_name.clone())
            .or_default()
            .push(decl.logical_id.clone());
    }
    let (capabilities, reasons) = static_capabilities(template);
    let capabilities_reason = (!capabilities.is_empty()).then(|| {
        format!(
            "The following resource(s) require capabilities: [{}]",
            reasons.join(", ")
        )
    });
    TemplateSummary {
        parameters: template
            .parameters()
            .iter()
            .map(|(key, p)| ParameterDeclaration {
                key: key.clone(),
                default_value: p.default.clone(),
                parameter_type: p.type_name.clone(),
                no_echo: p.no_echo,
                description: p.description.clone(),
                allowed_values: p.allowed_values.clone().unwrap_or_default(),
            })
            .collect(),
        description: template.description().map(str::to_string),
        capabilities,
        capabilities_reason,
        resource_types: types,
        version: template
            .document()
            .get("AWSTemplateFormatVersion")
            .and_then(Value::as_str)
            .map(str::to_string),
        metadata: template.metadata().map(|m| m.to_string()),
        declared_transforms: template.transforms().to_vec(),
        resource_identifier_summaries: by_type
            .into_iter()
            .filter_map(|(kind, ids)| {
                let info = registry::resource_type(&kind)?;
                let identifiers: Vec<String> = info
                    .primary_identifier
                    .iter()
                    .map(|p| p.strip_prefix("/properties/").unwrap_or(p).to_string())
                    .collect();
                Some((kind, ids, identifiers))
            })
            .collect(),
    }
}
