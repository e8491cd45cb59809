//! The stack engine: each stack operation (create, update, delete, update rollback, continue
//! rollback, create rollback) runs as its own tokio task that moves the stack forward through
//! the store's lifecycle methods (which own every status change and event) and calls providers
//! — never while holding the store lock (style.md §9.3). The paths live in `create.rs`,
//! `update.rs`, `rollback.rs` and `delete.rs`; this file has the runner and the steps they
//! share (fault checks, holds, provider calls). Resources are created and updated one at a time in dependency order and
//! deleted in reverse, so event sequences are deterministic; a provider failure is a
//! `*_FAILED` event with the reason, which drives the rollback AWS runs
//! (aws-contract.md §3.2–§3.3). Before each provider step the fault injector is asked
//! (`crate::faults`, extensions.md "Faults"): a hold waits in wall time, a message fails the
//! step exactly like a provider error.

mod create;
mod delete;
mod rollback;
mod update;
mod values;

use std::sync::Arc;

use serde_json::Value;

use crate::faults::{FaultHit, FaultOperation, ResourceStep};
use crate::ids::Scope;

pub(crate) use values::Values;

use super::control::OperationControl;
use super::id::{LogicalId, StackId};
use super::model::{OnFailure, Tag};
use super::providers::{ProviderContext, ResourceProvider};
use super::shared::{Shared, StackRef};
use super::status::{ExecutionStatus, StackStatus};
use super::store::{ResourceEvent, ResourceRecord, StackEntry, UpdateJournal};
use super::template::{BoundParameters, Evaluator, Pseudo, Resolved, Template};

use delete::{DeleteCause, DeleteOptions};

pub(crate) use update::UpdateRun;

/// Reason of the first CREATE_IN_PROGRESS/UPDATE_IN_PROGRESS event carrying a new physical id.
pub(super) const CREATION_INITIATED: &str = "Resource creation Initiated";
/// Reason of a resource whose update CancelUpdateStack interrupted.
pub(super) const RESOURCE_UPDATE_CANCELLED: &str = "Resource update cancelled";
/// Reason of a resource whose creation CancelUpdateStack interrupted (aws-contract.md §3.3).
pub(super) const RESOURCE_CREATION_CANCELLED: &str = "Resource creation cancelled";
/// Stack reason of an update CancelUpdateStack interrupted.
pub(super) const STACK_UPDATE_CANCELLED: &str = "Stack update cancelled";
/// Reason of the UPDATE_IN_PROGRESS event that starts a replacement.
pub(super) const REPLACEMENT: &str =
    "Requested update requires the creation of a new physical resource; hence creating one.";

/// The template context of a create or update: what resource properties and outputs are
/// evaluated against.
#[derive(Clone)]
pub(crate) struct Exec {
    /// The template being applied.
    pub template: Template,
    /// Its bound parameters.
    pub params: BoundParameters,
    /// Pseudo parameters.
    pub pseudo: Pseudo,
    /// Conditions, resources after conditions, order, outputs.
    pub resolved: Arc<Resolved>,
}

/// What an operation task does.
pub(crate) enum Operation {
    /// Create every resource (CreateStack, ExecuteChangeSet CREATE).
    Create {
        /// The template context.
        exec: Exec,
        /// What to do when a resource fails.
        on_failure: OnFailure,
        /// The change set being executed, if any.
        change_set_id: Option<String>,
    },
    /// Apply a new template (UpdateStack, ExecuteChangeSet UPDATE).
    Update(UpdateRun),
    /// Delete every resource (DeleteStack).
    Delete {
        /// Logical ids to leave in place (RetainResources).
        retain: Vec<LogicalId>,
        /// DeletionMode FORCE_DELETE_STACK: a resource that fails to delete is left
        /// (DELETE_SKIPPED) and the stack is deleted.
        force: bool,
    },
    /// Roll a failed update back from its journal (automatic, RollbackStack,
    /// ContinueUpdateRollback).
    UpdateRollback {
        /// Logical ids to leave as they are (ContinueUpdateRollback ResourcesToSkip).
        skip: Vec<LogicalId>,
    },
    /// Delete what a create with rollback disabled made (RollbackStack from CREATE_FAILED).
    CreateRollback,
}

/// Runs one operation on one stack.
pub(crate) struct Runner {
    shared: Arc<Shared>,
    scope: Scope,
    stack_id: StackId,
    stack_name: String,
    control: Arc<OperationControl>,
}

/// Marks the operation finished when the task ends, however it ends.
struct Finish {
    shared: Arc<Shared>,
    scope: Scope,
    stack_id: StackId,
    control: Arc<OperationControl>,
}

impl Drop for Finish {
    fn drop(&mut self) {
        {
            let mut state = self.shared.lock();
            if let Some(entry) = state.region(&self.scope).stack_mut(self.stack_id.as_str()) {
                entry.end_operation(&self.control);
            }
        }
        self.control.finished();
    }
}

/// A failed step: the resource whose `*_FAILED` event (with the reason) was appended.
struct Failure {
    logical_id: LogicalId,
}

impl Failure {
    /// A failure of `logical_id`.
    fn of(logical_id: impl Into<LogicalId>) -> Failure {
        Failure {
            logical_id: logical_id.into(),
        }
    }
}

impl Runner {
    /// Spawns `op` on the stack `stack` as a task; returns its control (already registered on
    /// the stack entry by the caller).
    pub(crate) fn spawn(
        shared: Arc<Shared>,
        stack: StackRef,
        control: Arc<OperationControl>,
        op: Operation,
    ) {
        let runner = Runner {
            shared: shared.clone(),
            scope: stack.scope.clone(),
            stack_id: stack.stack_id.clone(),
            stack_name: stack.stack_name.clone(),
            control: control.clone(),
        };
        let finish = Finish {
            shared,
            scope: stack.scope,
            stack_id: stack.stack_id,
            control,
        };
        tokio::spawn(async move {
            let _finish = finish;
            match op {
                Operation::Create {
                    exec,
                    on_failure,
                    change_set_id,
                } => runner.create(exec, on_failure, change_set_id).await,
                Operation::Update(run) => runner.update(run).await,
                Operation::Delete { retain, force } => {
                    let options = DeleteOptions {
                        retain,
                        cause: DeleteCause::Request,
                        force,
                    };
                    runner.delete_all(options).await
                }
                Operation::UpdateRollback { skip } => runner.update_rollback(None, skip).await,
                Operation::CreateRollback => {
                    runner.create_rollback(None, OnFailure::Rollback).await
                }
            }
        });
    }

    // ------------------------------------------------------------------- store access

    /// Runs `f` on the stack entry under the lock (short, synchronous).
    pub(super) fn with_stack<R>(&self, f: impl FnOnce(&mut StackEntry, &Shared) -> R) -> Option<R> {
        let mut state = self.shared.lock();
        let entry = state
            .region(&self.scope)
            .stack_mut(self.stack_id.as_str())?;
        Some(f(entry, &self.shared))
    }

    /// Moves the stack to `to` through the store (which refuses, logs and counts an edge the
    /// state machine lacks) and appends its event.
    pub(super) fn stack_status(&self, to: StackStatus, reason: Option<String>) {
        let now = self.shared.deps.clock.now();
        self.with_stack(|entry, _| {
            if entry.set_status(to, reason, now).is_err() {
                return;
            }
            if matches!(to, StackStatus::CreateComplete | StackStatus::RollbackComplete) {
                // Read by docs/benchmarks.md: CreateStack / CREATE change set to terminal status.
                let elapsed_us = (now - entry.record.creation_time).num_microseconds();
                let elapsed_ms = elapsed_us.unwrap_or(i64::MAX) as f64 / 1000.0;
                tracing::info!(stack = %entry.record.stack_name, status = to.as_str(), elapsed_ms, "stack create finished");
            }
        });
    }

    /// Starts creating `record` (CREATE_IN_PROGRESS) through the store.
    pub(super) fn begin_create(&self, record: ResourceRecord) {
        let now = self.shared.deps.clock.now();
        self.with_stack(|entry, _| entry.begin_create_resource(record, now));
    }

    /// Moves a resource through the store: `edit` changes its record, then its status changes
    /// as `event` says and the event is appended (an illegal edge is refused, logged, counted).
    pub(super) fn resource_status(
        &self,
        logical_id: &str,
        event: ResourceEvent<'_>,
        edit: impl FnOnce(&mut ResourceRecord),
    ) {
        let now = self.shared.deps.clock.now();
        self.with_stack(|entry, _| entry.set_resource_status(logical_id, event, now, edit));
    }

    /// A resource record, cloned.
    pub(super) fn resource(&self, logical_id: &str) -> Option<ResourceRecord> {
        self.with_stack(|entry, _| entry.resource(logical_id).cloned())
            .flatten()
    }

    /// The stack's tags.
    pub(super) fn stack_tags(&self) -> Vec<Tag> {
        self.with_stack(|entry, _| entry.record.tags.clone())
            .unwrap_or_default()
    }

    pub(super) fn set_execution_status(&self, change_set_id: Option<&str>, to: ExecutionStatus) {
        let Some(id) = change_set_id else { return };
        let mut state = self.shared.lock();
        let _ = state.region(&self.scope).set_execution_status(id, to);
    }

    // ------------------------------------------------------------------- provider steps

    pub(super) fn context<'a>(
        &'a self,
        logical_id: &'a str,
        type_name: &'a str,
        tags: &'a [Tag],
    ) -> ProviderContext<'a> {
        ProviderContext {
            scope: &self.scope,
            stack_name: &self.stack_name,
            stack_id: self.stack_id.as_str(),
            logical_id,
            type_name,
            stack_tags: tags,
            ids: &self.shared.deps.ids,
            clock: &self.shared.deps.clock,
        }
    }

    /// Asks the fault injector about a step, using up one match of the first rule that fits.
    pub(super) fn fault_hit(
        &self,
        logical_id: &str,
        type_name: &str,
        operation: FaultOperation,
    ) -> Option<FaultHit> {
        self.shared.deps.faults.match_resource_step(&ResourceStep {
            stack_name: &self.stack_name,
            logical_id,
            resource_type: type_name,
            operation,
        })
    }

    /// Waits out a rule's hold in wall time; CancelUpdateStack ends it at once, and a
    /// cancelled forward step then fails with `Resource creation cancelled` (create) or
    /// `Resource update cancelled` (update).
    pub(super) async fn hold(
        &self,
        hit: &FaultHit,
        operation: FaultOperation,
    ) -> Result<(), String> {
        let Some(hold) = hit.hold else { return Ok(()) };
        self.control.hold_started();
        tokio::select! {
            _ = self.shared.deps.clock.sleep_wall(hold) => {}
            _ = self.control.cancelled() => {}
        }
        self.control.resumed();
        if !self.control.is_cancelled() {
            return Ok(());
        }
        match operation {
            FaultOperation::Create => Err(RESOURCE_CREATION_CANCELLED.to_string()),
            FaultOperation::Update => Err(RESOURCE_UPDATE_CANCELLED.to_string()),
            FaultOperation::Delete | FaultOperation::Restore => Ok(()),
        }
    }

    /// Asks the fault injector about a step; waits out a hold; fails with the rule's message.
    pub(super) async fn fault(
        &self,
        logical_id: &str,
        type_name: &str,
        operation: FaultOperation,
    ) -> Result<(), String> {
        let Some(hit) = self.fault_hit(logical_id, type_name, operation) else {
            return Ok(());
        };
        self.hold(&hit, operation).await?;
        match hit.message {
            Some(message) => Err(message),
            None => Ok(()),
        }
    }

    /// The fault check of a two-part step (a group move, the restore of a moved schedule):
    /// a rule with a message fails it here, before anything changes (after its hold); a rule
    /// that only holds is returned, to hold the step half-way (see [`Runner::hold`]).
    pub(super) async fn split_fault(
        &self,
        logical_id: &str,
        type_name: &str,
        operation: FaultOperation,
    ) -> Result<Option<FaultHit>, String> {
        let Some(hit) = self.fault_hit(logical_id, type_name, operation) else {
            return Ok(None);
        };
        match &hit.message {
            Some(message) => {
                self.hold(&hit, operation).await?;
                Err(message.clone())
            }
            None => Ok(Some(hit)),
        }
    }

    pub(super) fn provider(&self, type_name: &str) -> Result<Arc<dyn ResourceProvider>, String> {
        self.shared.providers.get(type_name).ok_or_else(|| {
            format!(
                "Cumulo does not emulate resource type {type_name} (start it with CUMULO_CFN_UNSUPPORTED=placeholder to store such resources without a physical resource)"
            )
        })
    }

    pub(super) fn request_token(&self) -> String {
        self.shared.deps.ids.uuid()
    }

    /// Evaluates a resource's properties against the current values.
    pub(super) fn properties(
        &self,
        exec: &Exec,
        values: &Values,
        logical_id: &str,
    ) -> Result<Value, String> {
        let evaluator = Evaluator::new(
            &exec.template,
            &exec.params,
            &exec.pseudo,
            &exec.resolved,
            values,
        );
        evaluator
            .resource_properties(logical_id)
            .map_err(|e| e.to_string())
    }

    // ------------------------------------------------------------------- outputs and exports

    // ------------------------------------------------------------------- create

    // ------------------------------------------------------------------- delete

    // ------------------------------------------------------------------- update

    // ------------------------------------------------------------------- update rollback
}

/// `A, B` of logical ids, as AWS lists them in reasons.
fn join_ids(ids: &[LogicalId]) -> String {
    ids.iter()
        .map(LogicalId::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `<reason>. <tail>` (or `<reason> <tail>` when the reason already ends with a period), the
/// form of AWS's stack reasons: `The following resource(s) failed to create: [X]. Rollback
/// requested by user.` and, without a tail, `... [X]. ` with its trailing space.
pub(crate) fn join_reason(reason: &str, tail: &str) -> String {
    if reason.ends_with('.') {
        format!("{reason} {tail}")
    } else {
        format!("{reason}. {tail}")
    }
}

/// The journal an update starts with: the stack as it is before the update.
pub(crate) fn new_journal(entry: &StackEntry) -> UpdateJournal {
    let r = &entry.record;
    UpdateJournal {
        template_body: r.template_body.clone(),
        description: r.description.clone(),
        bound_parameters: r.bound_parameters.clone(),
        parameters: r.parameters.clone(),
        outputs: r.outputs.clone(),
        capabilities: r.capabilities.clone(),
        tags: r.tags.clone(),
        notification_arns: r.notification_arns.clone(),
        imports: r.imports.clone(),
        resource_order: entry.resources().keys().cloned().collect(),
        entries: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_reasons_read_as_aws_writes_them() {
        assert_eq!(
            join_reason(
                "The following resource(s) failed to create: [Schedule]",
                "Rollback requested by user."
            ),
            "The following resource(s) failed to create: [Schedule]. Rollback requested by user."
        );
        assert_eq!(
            join_reason("The following resource(s) failed to create: [X]", ""),
            "The following resource(s) failed to create: [X]. "
        );
        assert_eq!(
            join_reason("No export named E found.", "Rollback requested by user."),
            "No export named E found. Rollback requested by user."
        );
    }
}
