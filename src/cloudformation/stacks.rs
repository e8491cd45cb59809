//! The stack operations: CreateStack, UpdateStack, DeleteStack, and the ones that steer an
//! operation (ContinueUpdateRollback, CancelUpdateStack, RollbackStack). Each validates the
//! request synchronously (AWS's code and text), moves the stack through the store's lifecycle
//! methods, starts the operation task and answers once the stack is terminal or held by a
//! fault. The settings (termination protection, stack policy) are `settings.rs`.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::ids::Scope;

use super::control::OperationControl;
use super::engine::{Operation, UpdateRun};
use super::error::messages::*;
use super::error::Error;
use super::id::{LogicalId, StackId};
use super::model::{CreateStackInput, DeleteStackInput, DeletionMode, OnFailure, UpdateStackInput};
use super::prepare::{
    check_new_stack_name, check_policy_source, internal, PendingUpdate, PrepareInput, Prepared,
    Purpose, UpdateRequest,
};
use super::shared::StackRef;
use super::source;
use super::status::{ResourceStatus, StackStatus};
use super::store::{StackEntry, StackRecord};
use super::CloudFormation;

/// What a DeleteStack does to a stack that may be deleted.
enum Deletion {
    /// REVIEW_IN_PROGRESS: straight to DELETE_COMPLETE.
    Review,
    /// An operation deletes the resources.
    Resources,
}

/// `Invalid operation on stack [<id>]. <why>`: AWS's refusal of a DeleteStack option the
/// stack's status does not allow.
fn invalid_operation(stack_id: &StackId, why: &str) -> Error {
    Error::validation(format!("Invalid operation on stack [{stack_id}]. {why}"))
}

/// The DeleteStack checks that depend on the stack (AWS's texts; see `check_retained`).
fn check_deletable(entry: &StackEntry, input: &DeleteStackInput) -> Result<Deletion, Error> {
    let status = entry.status();
    let name = &entry.record.stack_name;
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
    let stack_id = entry.stack_id();
    if !input.retain_resources.is_empty() && status != StackStatus::DeleteFailed {
        return Err(invalid_operation(
            stack_id,
            "When you delete a stack, specify which resources to retain only when the stack is in the DELETE_FAILED state.",
        ));
    }
    // AWS's text, as users report it; the API reference (DeleteStack, DeletionMode) says
    // FORCE_DELETE_STACK "Delete[s] the stack if it's stuck in a DELETE_FAILED state due to
    // resource deletion failure."
    if input.deletion_mode == DeletionMode::ForceDeleteStack && status != StackStatus::DeleteFailed
    {
        return Err(invalid_operation(
            stack_id,
            "You can activate DeletionMode FORCE_DELETE_STACK in a delete stack operation only when the stack is in the DELETE_FAILED state.",
        ));
    }
    check_retained(entry, &input.retain_resources)?;
    Ok(if status == StackStatus::ReviewInProgress {
        Deletion::Review
    } else {
        Deletion::Resources
    })
}

/// RetainResources must name resources of the stack that are not deleted yet. A deleted one
/// gets AWS's reported text; an unknown logical id is Cumulo's text (AWS's is unrecorded).
fn check_retained(entry: &StackEntry, retain: &[LogicalId]) -> Result<(), Error> {
    let unknown: Vec<&str> = retain
        .iter()
        .filter(|id| entry.resource(id.as_str()).is_none())
        .map(LogicalId::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(Error::validation(format!(
            "The specified resources to retain must be resources of the stack: [{}] are not.",
            unknown.join(", ")
        )));
    }
    let deleted = retain.iter().any(|id| {
        entry
            .resource(id.as_str())
            .is_some_and(|r| r.status() == ResourceStatus::DeleteComplete)
    });
    if deleted {
        return Err(Error::validation(
            "The specified resources to retain must be in a valid state. Do not specify resources that are in the DELETE_COMPLETE state.",
        ));
    }
    Ok(())
}

/// What OnFailure / DisableRollback of a CreateStack ask for.
fn on_failure(input: &CreateStackInput) -> Result<OnFailure, Error> {
    match (input.on_failure, input.disable_rollback) {
        (Some(_), Some(_)) => Err(Error::validation(
            "You cannot specify both OnFailure and DisableRollback",
        )),
        (Some(f), None) => Ok(f),
        (None, Some(true)) => Ok(OnFailure::DoNothing),
        (None, _) => Ok(OnFailure::Rollback),
    }
}

/// The record a CreateStack makes.
struct NewStack<'a> {
    input: &'a CreateStackInput,
    stack_id: &'a StackId,
    body: String,
    prepared: &'a Prepared,
    on_failure: OnFailure,
    stack_policy_body: Option<String>,
}

impl NewStack<'_> {
    fn record(self, now: DateTime<Utc>) -> StackRecord {
        let input = self.input;
        let mut record = StackRecord::new(self.stack_id.clone(), &input.stack_name, now);
        record.template_body = self.body;
        record.description = self.prepared.template.description().map(str::to_string);
        record.bound_parameters = serde_json::to_value(&self.prepared.params).ok();
        record.parameters = self.prepared.shown.clone();
        record.capabilities = input.capabilities.clone();
        record.notification_arns = input.notification_arns.clone();
        record.tags = input.tags.clone();
        record.disable_rollback = self.on_failure == OnFailure::DoNothing;
        record.timeout_in_minutes = input.timeout_in_minutes;
        record.role_arn = input.role_arn.clone();
        record.enable_termination_protection = input.enable_termination_protection;
        record.stack_policy_body = self.stack_policy_body;
        record.rollback_configuration = input.rollback_configuration.clone().unwrap_or_default();
        record.retain_except_on_create = input.retain_except_on_create;
        record
    }
}

impl CloudFormation {
    // ------------------------------------------------------------------- CreateStack

    /// CreateStack: validates the request and template synchronously, then creates every
    /// resource; answers once the stack is terminal (or held by a fault) with its StackId.
    pub async fn create_stack(
        &self,
        scope: &Scope,
        input: CreateStackInput,
    ) -> Result<StackId, Error> {
        check_new_stack_name(&input.stack_name)?;
        check_policy_source(&input.stack_policy_body, &input.stack_policy_url)?;
        let body = self.template_text(&input.template, None)?;
        self.check_before_parse(&body, &input.capabilities, Purpose::Stack)?;
        let template = self.parse(&body)?;
        let stack_id = self.creatable(scope, &input.stack_name)?;
        let prepared = self.prepare(
            scope,
            template,
            PrepareInput {
                stack_name: &input.stack_name,
                stack_id: &stack_id,
                parameters: &input.parameters,
                previous: None,
                capabilities: &input.capabilities,
                notification_arns: &input.notification_arns,
                resource_types: input.resource_types.as_deref(),
            },
        )?;
        let stack_policy_body = match &input.stack_policy_url {
            Some(url) => Some(source::fetch_url(&self.deps().s3, url)?),
            None => input.stack_policy_body.clone(),
        };
        let on_failure = on_failure(&input)?;
        let record = NewStack {
            input: &input,
            stack_id: &stack_id,
            body,
            prepared: &prepared,
            on_failure,
            stack_policy_body,
        }
        .record(self.deps().clock.now());
        let control = self.open_created(scope, record, &prepared)?;
        let stack = StackRef {
            scope: scope.clone(),
            stack_id: stack_id.clone(),
            stack_name: input.stack_name.clone(),
        };
        let exec = prepared.into_exec();
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

    /// The id a CreateStack of `name` gets: a new one, or that of the REVIEW_IN_PROGRESS stack
    /// a CREATE change set made (which the create takes over).
    fn creatable(&self, scope: &Scope, name: &str) -> Result<StackId, Error> {
        let existing = {
            let state = self.shared.lock();
            state
                .region_ref(scope)
                .and_then(|r| r.find(name))
                .map(|s| (s.stack_id().clone(), s.status()))
        };
        match existing {
            Some((id, StackStatus::ReviewInProgress)) => Ok(id),
            Some(_) => Err(Error::AlreadyExists(format!(
                "Stack [{name}] already exists"
            ))),
            None => Ok(self.new_stack_id(scope, name)),
        }
    }

    /// Registers the created stack (CREATE_IN_PROGRESS) and its operation, unless the name was
    /// taken meanwhile. A stack waiting in REVIEW_IN_PROGRESS is taken over; its change sets go
    /// obsolete.
    fn open_created(
        &self,
        scope: &Scope,
        record: StackRecord,
        prepared: &Prepared,
    ) -> Result<Arc<OperationControl>, Error> {
        let now = self.deps().clock.now();
        let control = Arc::new(OperationControl::new());
        let stack_id = record.stack_id.clone();
        let mut state = self.shared.lock();
        let region = state.region(scope);
        if let Some(s) = region.find(&record.stack_name) {
            if s.stack_id() != &stack_id || s.status() != StackStatus::ReviewInProgress {
                return Err(Error::AlreadyExists(format!(
                    "Stack [{}] already exists",
                    record.stack_name
                )));
            }
        }
        let reason = Some(USER_INITIATED.to_string());
        let template = Some(prepared.template.clone());
        let entry = match region.stack_mut(stack_id.as_str()) {
            Some(review) => {
                review.replace_settings(record);
                review.template = template;
                review
                    .set_status(StackStatus::CreateInProgress, reason, now)
                    .map_err(internal)?;
                review
            }
            None => region
                .open_stack(record, template, StackStatus::CreateInProgress, reason, now)
                .map_err(internal)?,
        };
        entry.begin_operation(control.clone());
        region.obsolete_change_sets(&stack_id, None);
        Ok(control)
    }

    // ------------------------------------------------------------------- UpdateStack

    /// UpdateStack: the same preparation and planning as an UPDATE change set, executed at
    /// once; `No updates are to be performed.` when nothing changes. Answers once the stack is
    /// terminal.
    pub async fn update_stack(
        &self,
        scope: &Scope,
        input: UpdateStackInput,
    ) -> Result<StackId, Error> {
        check_policy_source(&input.stack_policy_body, &input.stack_policy_url)?;
        let target = self.updatable(scope, &input.stack_name)?;
        let update = self.prepare_update(
            scope,
            &target,
            UpdateRequest {
                template: &input.template,
                parameters: &input.parameters,
                capabilities: &input.capabilities,
                resource_types: input.resource_types.as_deref(),
                notification_arns: input.notification_arns.as_deref(),
                tags: input.tags.as_deref(),
                purpose: Purpose::Stack,
            },
        )?;
        if update.plan.is_empty() {
            return Err(Error::validation(NO_UPDATES));
        }
        let stack_policy = match &input.stack_policy_url {
            Some(url) => Some(source::fetch_url(&self.deps().s3, url)?),
            None => input.stack_policy_body.clone(),
        };
        let pending = PendingUpdate {
            body: update.body,
            prepared: update.prepared,
            plan: update.plan,
            capabilities: input.capabilities.clone(),
            tags: input.tags.clone().unwrap_or(target.tags),
            notification_arns: update.notification_arns,
            disable_rollback: input.disable_rollback.unwrap_or(false),
            change_set_id: None,
            stack_policy,
            rollback_configuration: input.rollback_configuration.clone(),
            role_arn: input.role_arn.clone(),
        };
        let control = self.begin_update(scope, &target.stack_id, pending)?;
        control.settled().await;
        Ok(target.stack_id)
    }

    /// Moves the stack to UPDATE_IN_PROGRESS with a fresh journal and starts the update task
    /// (an executed change set goes EXECUTE_IN_PROGRESS and the stack's others are deleted).
    pub(super) fn begin_update(
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
            apply_update(entry, &update);
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
            let stack_name = entry.record.stack_name.clone();
            // Other change sets of the stack can no longer be executed; one being executed
            // deletes them (ExecuteChangeSet documentation).
            region.obsolete_change_sets(stack_id, update.change_set_id.as_deref());
            if let Some(id) = &update.change_set_id {
                region
                    .set_execution_status(id, super::status::ExecutionStatus::ExecuteInProgress)
                    .map_err(internal)?;
                region.drop_change_sets(stack_id, Some(id));
            }
            stack_name
        };
        self.start(
            StackRef {
                scope: scope.clone(),
                stack_id: stack_id.clone(),
                stack_name,
            },
            control.clone(),
            Operation::Update(UpdateRun {
                planned: update.plan.modified,
                exec: update.prepared.into_exec(),
                disable_rollback: update.disable_rollback,
                change_set_id: update.change_set_id,
            }),
        );
        Ok(control)
    }

    // ------------------------------------------------------------------- DeleteStack

    /// DeleteStack: unknown or deleted stacks succeed silently; a REVIEW_IN_PROGRESS stack goes
    /// straight to DELETE_COMPLETE; a stack whose exports are imported returns to its status
    /// with the reason (no API error); otherwise every resource is deleted in reverse order.
    /// RetainResources and FORCE_DELETE_STACK are accepted only in DELETE_FAILED.
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
            if status == StackStatus::DeleteComplete {
                return Ok(());
            }
            if let Deletion::Review = check_deletable(entry, &input)? {
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
                stack_name: entry.record.stack_name.clone(),
                stack_id,
            }
        };
        let op = Operation::Delete {
            retain: input.retain_resources,
            force: input.deletion_mode == DeletionMode::ForceDeleteStack,
        };
        self.start(stack, control.clone(), op);
        control.settled().await;
        Ok(())
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
        let skip = resources_to_skip.into_iter().map(LogicalId::from).collect();
        self.start(stack, control.clone(), Operation::UpdateRollback { skip });
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
            let refused = || {
                Error::validation(format!(
                    "Stack {} is in {} state and can not be rolled back",
                    entry.record.stack_id,
                    entry.status()
                ))
            };
            let op = match entry.status() {
                StackStatus::UpdateFailed => Operation::UpdateRollback { skip: Vec::new() },
                StackStatus::CreateFailed => Operation::CreateRollback,
                _ => return Err(refused()),
            };
            if entry.operation().is_some() {
                return Err(refused());
            }
            entry.begin_operation(control.clone());
            let stack = StackRef {
                scope: scope.clone(),
                stack_id: id,
                stack_name: entry.record.stack_name.clone(),
            };
            (stack, op)
        };
        let stack_id = stack.stack_id.clone();
        self.start(stack, control.clone(), op);
        control.settled().await;
        Ok(stack_id)
    }
}

/// The stack as an update leaves it before any resource changes: a fresh journal (the stack as
/// it was) and the new template, parameters and settings.
fn apply_update(entry: &mut StackEntry, update: &PendingUpdate) {
    let journal = super::engine::new_journal(entry);
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
    entry.template = Some(update.prepared.template.clone());
}
