//! The stack engine: each stack operation (create, update, delete, update rollback, continue
//! rollback, create rollback) runs as its own tokio task that moves the stack's state machine
//! forward, appends events and calls providers — never while holding the store lock
//! (style.md §9.3). Resources are created and updated one at a time in dependency order and
//! deleted in reverse, so event sequences are deterministic; a provider failure is a
//! `*_FAILED` event with the reason, which drives the rollback AWS runs
//! (aws-contract.md §3.2–§3.3). Before each provider step the fault injector is asked
//! (`crate::faults`, extensions.md "Faults"): a hold waits in wall time, a message fails the
//! step exactly like a provider error.

mod values;

use std::collections::BTreeSet;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use crate::faults::{FaultHit, FaultOperation, ResourceStep};
use crate::ids::Scope;

pub(crate) use values::Values;

use super::control::OperationControl;
use super::error::messages::USER_INITIATED;
use super::id::{LogicalId, PhysicalId, StackId};
use super::model::{OnFailure, Output, Tag};
use super::providers::{Current, HandlerErrorCode, ProviderContext, ResourceProvider, UpdateKind};
use super::status::{ExecutionStatus, ResourceStatus, StackStatus};
use super::store::{
    JournalEntry, ResourceEvent, ResourceRecord, StackEntry, StepKind, UpdateJournal,
};
use super::template::{BoundParameters, Evaluator, Pseudo, Resolved, Template};
use super::{Shared, StackRef};

/// Reason of the first CREATE_IN_PROGRESS/UPDATE_IN_PROGRESS event carrying a new physical id.
const CREATION_INITIATED: &str = "Resource creation Initiated";
/// Reason of a resource whose update CancelUpdateStack interrupted.
const RESOURCE_UPDATE_CANCELLED: &str = "Resource update cancelled";
/// Reason of a resource whose creation CancelUpdateStack interrupted (aws-contract.md §3.3).
const RESOURCE_CREATION_CANCELLED: &str = "Resource creation cancelled";
/// Stack reason of an update CancelUpdateStack interrupted.
const STACK_UPDATE_CANCELLED: &str = "Stack update cancelled";
/// Reason of the UPDATE_IN_PROGRESS event that starts a replacement.
const REPLACEMENT: &str =
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
    Update {
        /// The template context.
        exec: Exec,
        /// Resources the plan says change even when their properties evaluate the same
        /// (metadata, policies, dynamic values).
        planned: BTreeSet<LogicalId>,
        /// Stop in UPDATE_FAILED instead of rolling back.
        disable_rollback: bool,
        /// The change set being executed, if any.
        change_set_id: Option<String>,
    },
    /// Delete every resource (DeleteStack).
    Delete {
        /// Logical ids to leave in place (RetainResources).
        retain: Vec<LogicalId>,
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

/// A failed step: which resource and the reason shown on its event.
struct Failure {
    logical_id: LogicalId,
    reason: String,
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
                Operation::Update {
                    exec,
                    planned,
                    disable_rollback,
                    change_set_id,
                } => {
                    runner
                        .update(exec, planned, disable_rollback, change_set_id)
                        .await
                }
                Operation::Delete { retain } => runner.delete(retain).await,
                Operation::UpdateRollback { skip } => runner.update_rollback(None, skip).await,
                Operation::CreateRollback => {
                    runner.create_rollback(None, OnFailure::Rollback).await
                }
            }
        });
    }

    // ------------------------------------------------------------------- store access

    /// Runs `f` on the stack entry under the lock (short, synchronous).
    fn with_stack<R>(&self, f: impl FnOnce(&mut StackEntry, &Shared) -> R) -> Option<R> {
        let mut state = self.shared.lock();
        let entry = state
            .region(&self.scope)
            .stack_mut(self.stack_id.as_str())?;
        Some(f(entry, &self.shared))
    }

    /// Moves the stack to `to` through the store (which refuses, logs and counts an edge the
    /// state machine lacks) and appends its event.
    fn stack_status(&self, to: StackStatus, reason: Option<String>) {
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
    fn begin_create(&self, record: ResourceRecord) {
        let now = self.shared.deps.clock.now();
        self.with_stack(|entry, _| entry.begin_create_resource(record, now));
    }

    /// Moves a resource through the store: `edit` changes its record, then its status changes
    /// as `event` says and the event is appended (an illegal edge is refused, logged, counted).
    fn resource_status(
        &self,
        logical_id: &str,
        event: ResourceEvent<'_>,
        edit: impl FnOnce(&mut ResourceRecord),
    ) {
        let now = self.shared.deps.clock.now();
        self.with_stack(|entry, _| entry.set_resource_status(logical_id, event, now, edit));
    }

    /// A resource record, cloned.
    fn resource(&self, logical_id: &str) -> Option<ResourceRecord> {
        self.with_stack(|entry, _| entry.resource(logical_id).cloned())
            .flatten()
    }

    /// The stack's tags.
    fn stack_tags(&self) -> Vec<Tag> {
        self.with_stack(|entry, _| entry.record.tags.clone())
            .unwrap_or_default()
    }

    fn set_execution_status(&self, change_set_id: Option<&str>, to: ExecutionStatus) {
        let Some(id) = change_set_id else { return };
        let mut state = self.shared.lock();
        let _ = state.region(&self.scope).set_execution_status(id, to);
    }

    // ------------------------------------------------------------------- provider steps

    fn context<'a>(
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
    fn fault_hit(
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
    async fn hold(&self, hit: &FaultHit, operation: FaultOperation) -> Result<(), String> {
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
    async fn fault(
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
    async fn split_fault(
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

    fn provider(&self, type_name: &str) -> Result<Arc<dyn ResourceProvider>, String> {
        self.shared.providers.get(type_name).ok_or_else(|| {
            format!(
                "Cumulo does not emulate resource type {type_name} (start it with CUMULO_CFN_UNSUPPORTED=placeholder to store such resources without a physical resource)"
            )
        })
    }

    fn request_token(&self) -> String {
        self.shared.deps.ids.uuid()
    }

    /// Evaluates a resource's properties against the current values.
    fn properties(&self, exec: &Exec, values: &Values, logical_id: &str) -> Result<Value, String> {
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

    /// Creates one resource: CREATE_IN_PROGRESS ("" physical id), the provider call,
    /// CREATE_IN_PROGRESS ("Resource creation Initiated"), CREATE_COMPLETE; or CREATE_FAILED.
    async fn create_resource(
        &self,
        exec: &Exec,
        values: &mut Values,
        logical_id: &str,
    ) -> Result<ResourceRecord, Failure> {
        let Some(decl) = exec.resolved.resources.get(logical_id) else {
            return Err(Failure {
                logical_id: LogicalId::from(logical_id),
                reason: format!("Resource {logical_id} is not in the template"),
            });
        };
        let now = self.shared.deps.clock.now();
        let evaluated = self.properties(exec, values, logical_id);
        let mut record = ResourceRecord::new(LogicalId::from(logical_id), &decl.type_name, now);
        if let Ok(properties) = &evaluated {
            record.properties = properties.clone();
        }
        record.deletion_policy = decl.deletion_policy.clone();
        record.update_replace_policy = decl.update_replace_policy.clone();
        record.metadata = decl.metadata.clone();
        let fail = |reason: String| {
            self.resource_status(
                logical_id,
                ResourceEvent::new(ResourceStatus::CreateFailed)
                    .reason(reason.clone())
                    .physical("")
                    .with_properties(),
                |_| {},
            );
            Failure {
                logical_id: LogicalId::from(logical_id),
                reason,
            }
        };
        self.begin_create(record.clone());
        let properties = evaluated.map_err(&fail)?;
        let provider = self.provider(&decl.type_name).map_err(&fail)?;
        self.fault(logical_id, &decl.type_name, FaultOperation::Create)
            .await
            .map_err(&fail)?;
        let tags = self.stack_tags();
        let made = {
            let cx = self.context(logical_id, &decl.type_name, &tags);
            provider.create(&cx, &properties)
        };
        let made = made.map_err(|e| fail(e.reason(&self.request_token())))?;
        values.set(
            logical_id,
            Some(made.ref_value.clone()),
            made.attributes.clone(),
        );
        let physical = made.physical_id.clone();
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::CreateInProgress)
                .reason(CREATION_INITIATED.to_string())
                .physical(&physical)
                .with_properties(),
            |res| {
                res.physical_id = Some(PhysicalId::from(&made.physical_id));
                res.ref_value = Some(made.ref_value.clone());
                res.attributes = made.attributes.clone();
                res.exists = true;
            },
        );
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::CreateComplete).with_properties(),
            |_| {},
        );
        Ok(self.resource(logical_id).unwrap_or(record))
    }

    /// Deletes one resource (DELETE_IN_PROGRESS, DELETE_COMPLETE / DELETE_FAILED), or skips it
    /// (DELETE_SKIPPED) when `retain`.
    async fn delete_resource(&self, record: &ResourceRecord, retain: bool) -> Result<(), Failure> {
        let logical_id = record.logical_id.as_str();
        if matches!(
            record.status(),
            ResourceStatus::DeleteComplete | ResourceStatus::DeleteSkipped
        ) {
            return Ok(());
        }
        if retain && record.exists {
            self.resource_status(
                logical_id,
                ResourceEvent::new(ResourceStatus::DeleteSkipped),
                |_| {},
            );
            return Ok(());
        }
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::DeleteInProgress),
            |_| {},
        );
        if record.exists {
            let result = self.delete_physical(record).await;
            if let Err(reason) = result {
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::DeleteFailed).reason(reason.clone()),
                    |_| {},
                );
                return Err(Failure {
                    logical_id: record.logical_id.clone(),
                    reason,
                });
            }
        }
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::DeleteComplete),
            |res| res.exists = false,
        );
        Ok(())
    }

    /// The fault check and provider delete of one physical resource.
    async fn delete_physical(&self, record: &ResourceRecord) -> Result<(), String> {
        let provider = self.provider(&record.type_name)?;
        self.fault(
            record.logical_id.as_str(),
            &record.type_name,
            FaultOperation::Delete,
        )
        .await?;
        let tags = self.stack_tags();
        let cx = self.context(record.logical_id.as_str(), &record.type_name, &tags);
        let physical = record.physical_text().to_string();
        provider
            .delete(
                &cx,
                &Current {
                    physical_id: &physical,
                    properties: &record.properties,
                    attributes: &record.attributes,
                },
            )
            .map_err(|e| e.reason(&self.request_token()))
    }

    // ------------------------------------------------------------------- outputs and exports

    /// Evaluates the outputs and checks the exports they declare; the error is the stack's
    /// failure reason.
    fn outputs(&self, exec: &Exec, values: &Values) -> Result<Vec<Output>, String> {
        let evaluator = Evaluator::new(
            &exec.template,
            &exec.params,
            &exec.pseudo,
            &exec.resolved,
            values,
        );
        let mut out = Vec::with_capacity(exec.resolved.outputs.len());
        for key in exec.resolved.outputs.keys() {
            let o = evaluator.output(key).map_err(|e| e.to_string())?;
            out.push(Output {
                key: key.clone(),
                value: o.value,
                description: o.description,
                export_name: o.export_name,
            });
        }
        Ok(out)
    }

    /// Checks the new exports against the region (duplicates, exports in use that would
    /// disappear or change), then publishes them and the stack's imports.
    fn commit_outputs(&self, outputs: Vec<Output>, imports: Vec<String>) -> Result<(), String> {
        let mut state = self.shared.lock();
        let region = state.region(&self.scope);
        let old: Vec<(String, String)> = region
            .exports
            .values()
            .filter(|e| e.exporting_stack_id == self.stack_id)
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect();
        for o in &outputs {
            let Some(name) = &o.export_name else { continue };
            if let Some(existing) = region.exports.get(name) {
                if existing.exporting_stack_id != self.stack_id {
                    let by = region
                        .stacks
                        .get(existing.exporting_stack_id.as_str())
                        .map(|s| s.record.stack_name.clone())
                        .unwrap_or_default();
                    return Err(format!(
                        "Export with name {name} is already exported by stack {by}"
                    ));
                }
            }
        }
        for (name, value) in &old {
            let now = outputs
                .iter()
                .find(|o| o.export_name.as_deref() == Some(name));
            if now.is_some_and(|o| &o.value == value) {
                continue;
            }
            let users = region.importers(name, Some(self.stack_id.as_str()));
            if !users.is_empty() {
                // AWS's two texts: the export leaves the template, or its value changes.
                let verb = if now.is_none() { "deleted" } else { "updated" };
                return Err(format!(
                    "Export {name} cannot be {verb} as it is in use by {}",
                    users.join(" and ")
                ));
            }
        }
        region.publish_exports(&self.stack_id, &outputs);
        if let Some(entry) = region.stack_mut(self.stack_id.as_str()) {
            entry.record.outputs = outputs;
            entry.record.imports = imports;
            entry.save();
        }
        Ok(())
    }

    /// Removes this stack's exports (its deletion).
    fn drop_exports(&self) {
        let mut state = self.shared.lock();
        state.region(&self.scope).drop_exports(&self.stack_id);
    }

    // ------------------------------------------------------------------- create

    async fn create(self, exec: Exec, on_failure: OnFailure, change_set_id: Option<String>) {
        let mut values = Values::new(self.shared.clone(), self.scope.clone());
        let mut failure: Option<Failure> = None;
        for logical_id in exec.resolved.order.clone() {
            if let Err(f) = self.create_resource(&exec, &mut values, &logical_id).await {
                failure = Some(f);
                break;
            }
        }
        let reason = match failure {
            Some(f) => Some(format!(
                "The following resource(s) failed to create: [{}]",
                f.logical_id
            )),
            None => self
                .outputs(&exec, &values)
                .and_then(|o| self.commit_outputs(o, values.imports()))
                .err(),
        };
        let Some(reason) = reason else {
            self.stack_status(StackStatus::CreateComplete, None);
            self.set_execution_status(change_set_id.as_deref(), ExecutionStatus::ExecuteComplete);
            return;
        };
        self.set_execution_status(change_set_id.as_deref(), ExecutionStatus::ExecuteFailed);
        self.create_rollback(Some(reason), on_failure).await;
    }

    /// What follows a failed create: CREATE_FAILED (rollback disabled), the rollback to
    /// ROLLBACK_COMPLETE / ROLLBACK_FAILED, or deletion (OnFailure DELETE). `reason` is None for
    /// RollbackStack of a CREATE_FAILED stack.
    async fn create_rollback(&self, reason: Option<String>, on_failure: OnFailure) {
        let joined = |tail: &str| reason.as_ref().map(|r| join_reason(r, tail));
        match on_failure {
            OnFailure::DoNothing => {
                self.stack_status(StackStatus::CreateFailed, joined(""));
                return;
            }
            OnFailure::Delete => {
                self.stack_status(StackStatus::DeleteInProgress, joined(""));
                self.delete_all(Vec::new(), true).await;
                return;
            }
            OnFailure::Rollback => {}
        }
        self.stack_status(
            StackStatus::RollbackInProgress,
            Some(
                reason
                    .as_ref()
                    .map(|r| join_reason(r, "Rollback requested by user."))
                    .unwrap_or_else(|| USER_INITIATED.to_string()),
            ),
        );
        let records: Vec<ResourceRecord> = self
            .with_stack(|entry, _| entry.resources().values().cloned().collect())
            .unwrap_or_default();
        let mut failed = Vec::new();
        for record in records.iter().rev() {
            // RetainExceptOnCreate does not keep what a failed create made; Retain does.
            let retain = matches!(
                record.deletion_policy.as_deref(),
                Some("Retain" | "Snapshot")
            );
            if let Err(f) = self.delete_resource(record, retain).await {
                failed.push(f.logical_id);
            }
        }
        if failed.is_empty() {
            let now = self.shared.deps.clock.now();
            self.with_stack(|entry, _| {
                entry.record.deletion_time = Some(now);
                entry.save();
            });
            self.drop_exports();
            self.stack_status(StackStatus::RollbackComplete, None);
        } else {
            self.stack_status(
                StackStatus::RollbackFailed,
                Some(format!(
                    "The following resource(s) failed to delete: [{}]. ",
                    join_ids(&failed)
                )),
            );
        }
    }

    // ------------------------------------------------------------------- delete

    async fn delete(self, retain: Vec<LogicalId>) {
        self.delete_all(retain, false).await;
    }

    /// Deletes every resource in reverse order, then the stack (DELETE_COMPLETE), or stops in
    /// DELETE_FAILED. The stack is already DELETE_IN_PROGRESS.
    async fn delete_all(&self, retain: Vec<LogicalId>, after_failed_create: bool) {
        let (records, journal) = self
            .with_stack(|entry, _| {
                (
                    entry.resources().values().cloned().collect::<Vec<_>>(),
                    entry.record.journal.clone(),
                )
            })
            .unwrap_or_default();
        // A stack left by a failed update (UPDATE_FAILED, UPDATE_ROLLBACK_FAILED) may own a
        // second physical resource for a replaced or moved resource: delete it too.
        for item in journal.iter().flat_map(|j| j.entries.iter()).rev() {
            let Some(current) = records.iter().find(|r| r.logical_id == item.logical_id) else {
                continue;
            };
            for other in [&item.before, &item.created].into_iter().flatten() {
                let same = other.physical_id == current.physical_id
                    && other.properties == current.properties;
                if matches!(item.kind, StepKind::Replace | StepKind::Move) && other.exists && !same
                {
                    let keep = item.kind == StepKind::Replace
                        && matches!(
                            other.update_replace_policy.as_deref(),
                            Some("Retain" | "Snapshot")
                        );
                    self.delete_displaced(other, keep).await;
                }
            }
        }
        let mut failed = Vec::new();
        for record in records.iter().rev() {
            let keep = retain.contains(&record.logical_id)
                || match record.deletion_policy.as_deref() {
                    Some("Retain") | Some("Snapshot") => true,
                    Some("RetainExceptOnCreate") => !after_failed_create,
                    _ => false,
                };
            if let Err(f) = self.delete_resource(record, keep).await {
                failed.push(f.logical_id);
            }
        }
        if !failed.is_empty() {
            self.stack_status(
                StackStatus::DeleteFailed,
                Some(format!(
                    "The following resource(s) failed to delete: [{}]. ",
                    join_ids(&failed)
                )),
            );
            return;
        }
        self.drop_exports();
        self.stack_status(StackStatus::DeleteComplete, None);
        let mut state = self.shared.lock();
        state.region(&self.scope).retire_stack(&self.stack_id);
    }

    // ------------------------------------------------------------------- update

    async fn update(
        self,
        exec: Exec,
        planned: BTreeSet<LogicalId>,
        disable_rollback: bool,
        change_set_id: Option<String>,
    ) {
        let mut values = Values::new(self.shared.clone(), self.scope.clone());
        let current: IndexMap<LogicalId, ResourceRecord> = self
            .with_stack(|entry, _| entry.resources().clone())
            .unwrap_or_default();
        for res in current.values() {
            if res.exists {
                values.set(
                    res.logical_id.as_str(),
                    res.ref_value.clone(),
                    res.attributes.clone(),
                );
            }
        }
        let mut failure: Option<(Failure, bool)> = None;
        for logical_id in exec.resolved.order.clone() {
            if self.control.is_cancelled() {
                failure = Some((
                    Failure {
                        logical_id: LogicalId::default(),
                        reason: STACK_UPDATE_CANCELLED.to_string(),
                    },
                    false,
                ));
                break;
            }
            let old = self.resource(&logical_id).filter(|r| r.exists);
            let result = match old {
                None => {
                    let step = self.create_resource(&exec, &mut values, &logical_id).await;
                    let (created, succeeded) = match &step {
                        Ok(rec) => (Some(rec.clone()), true),
                        Err(_) => (None, false),
                    };
                    self.journal(JournalEntry {
                        logical_id: LogicalId::from(&logical_id),
                        kind: StepKind::Add,
                        before: None,
                        created,
                        succeeded,
                        restored: false,
                    });
                    step.map(|_| ()).map_err(|f| (f, true))
                }
                Some(old) => self
                    .update_resource(
                        &exec,
                        &mut values,
                        &old,
                        planned.contains(logical_id.as_str()),
                    )
                    .await
                    .map_err(|f| (f, false)),
            };
            if let Err(f) = result {
                failure = Some(f);
                break;
            }
        }
        // The stack's reason: AWS's resource list (with its trailing ". "), the cancellation,
        // or an output/export problem.
        let reason = match failure {
            Some(_) if self.control.is_cancelled() => Some(STACK_UPDATE_CANCELLED.to_string()),
            Some((f, _)) if f.logical_id.as_str().is_empty() => Some(f.reason),
            Some((f, created)) => Some(join_reason(
                &format!(
                    "The following resource(s) failed to {}: [{}]",
                    if created { "create" } else { "update" },
                    f.logical_id
                ),
                "",
            )),
            None => self
                .outputs(&exec, &values)
                .and_then(|o| self.commit_outputs(o, values.imports()))
                .err()
                .map(|r| join_reason(&r, "")),
        };
        if let Some(reason) = reason {
            self.set_execution_status(change_set_id.as_deref(), ExecutionStatus::ExecuteFailed);
            if disable_rollback {
                self.stack_status(StackStatus::UpdateFailed, Some(reason));
            } else {
                self.update_rollback(Some(reason), Vec::new()).await;
            }
            return;
        }
        self.stack_status(StackStatus::UpdateCompleteCleanupInProgress, None);
        self.cleanup_after_update(&exec).await;
        self.with_stack(|entry, _| {
            entry.record.journal = None;
            entry.save();
        });
        self.stack_status(StackStatus::UpdateComplete, None);
        self.set_execution_status(change_set_id.as_deref(), ExecutionStatus::ExecuteComplete);
    }

    /// Appends (or replaces) the journal entry of a resource.
    fn journal(&self, item: JournalEntry) {
        self.with_stack(|entry, _| {
            if let Some(journal) = entry.record.journal.as_mut() {
                match journal
                    .entries
                    .iter_mut()
                    .find(|e| e.logical_id == item.logical_id)
                {
                    Some(existing) => *existing = item,
                    None => journal.entries.push(item),
                }
                entry.save();
            }
        });
    }

    /// Updates one existing resource: in place, by replacement, by a move, or in its record
    /// only; or nothing when nothing changed.
    async fn update_resource(
        &self,
        exec: &Exec,
        values: &mut Values,
        old: &ResourceRecord,
        planned: bool,
    ) -> Result<(), Failure> {
        let logical_id = old.logical_id.as_str();
        let Some(decl) = exec.resolved.resources.get(logical_id) else {
            return Ok(());
        };
        // A failed step left the physical resource as it was: so is its record.
        let fail_event = |reason: String, physical: Option<&str>| {
            self.resource_status(
                logical_id,
                ResourceEvent::new(ResourceStatus::UpdateFailed)
                    .reason(reason.clone())
                    .maybe_physical(physical)
                    .with_properties(),
                |res| res.properties = old.properties.clone(),
            );
            Failure {
                logical_id: LogicalId::from(logical_id),
                reason,
            }
        };
        let new_props = match self.properties(exec, values, logical_id) {
            Ok(p) => p,
            Err(reason) => {
                self.journal(JournalEntry {
                    logical_id: old.logical_id.clone(),
                    kind: StepKind::RecordOnly,
                    before: Some(old.clone()),
                    created: None,
                    succeeded: false,
                    restored: false,
                });
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress),
                    |_| {},
                );
                return Err(fail_event(reason, None));
            }
        };
        let props_changed = new_props != old.properties;
        let attrs_changed = decl.deletion_policy != old.deletion_policy
            || decl.update_replace_policy != old.update_replace_policy
            || decl.metadata != old.metadata;
        if !props_changed && !attrs_changed && !planned {
            return Ok(());
        }
        let provider = match self.provider(&old.type_name) {
            Ok(p) => p,
            Err(reason) => return Err(fail_event(reason, None)),
        };
        let kind = if !props_changed {
            None
        } else {
            let create_only =
                super::plan::create_only_changed(&old.type_name, &old.properties, &new_props);
            Some(provider.update_kind(&old.properties, &new_props, create_only))
        };
        let step_kind = match kind {
            None => StepKind::RecordOnly,
            Some(UpdateKind::InPlace) => StepKind::InPlace,
            Some(UpdateKind::Replace) => StepKind::Replace,
            Some(UpdateKind::Move) => StepKind::Move,
        };
        let mut entry = JournalEntry {
            logical_id: old.logical_id.clone(),
            kind: step_kind,
            before: Some(old.clone()),
            created: None,
            succeeded: false,
            restored: false,
        };
        self.journal(entry.clone());
        let set_attrs = |res: &mut ResourceRecord| {
            res.deletion_policy = decl.deletion_policy.clone();
            res.update_replace_policy = decl.update_replace_policy.clone();
            res.metadata = decl.metadata.clone();
        };
        let tags = self.stack_tags();
        let old_physical = old.physical_text().to_string();
        let current = Current {
            physical_id: &old_physical,
            properties: &old.properties,
            attributes: &old.attributes,
        };
        match step_kind {
            StepKind::RecordOnly | StepKind::InPlace => {
                let in_progress_props = new_props.clone();
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress).with_properties(),
                    |res| res.properties = in_progress_props,
                );
                if step_kind == StepKind::InPlace {
                    self.fault(logical_id, &old.type_name, FaultOperation::Update)
                        .await
                        .map_err(|r| fail_event(r, None))?;
                    let made = {
                        let cx = self.context(logical_id, &old.type_name, &tags);
                        provider.update(&cx, &current, &new_props)
                    };
                    let made =
                        made.map_err(|e| fail_event(e.reason(&self.request_token()), None))?;
                    values.set(
                        logical_id,
                        Some(made.ref_value.clone()),
                        made.attributes.clone(),
                    );
                    self.resource_status(
                        logical_id,
                        ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
                        |res| {
                            res.physical_id = Some(PhysicalId::from(&made.physical_id));
                            res.ref_value = Some(made.ref_value.clone());
                            res.attributes = made.attributes.clone();
                            set_attrs(res);
                        },
                    );
                } else {
                    self.resource_status(
                        logical_id,
                        ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
                        set_attrs,
                    );
                }
            }
            StepKind::Replace => {
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress)
                        .reason(REPLACEMENT.to_string())
                        .with_properties(),
                    |_| {},
                );
                self.fault(logical_id, &old.type_name, FaultOperation::Create)
                    .await
                    .map_err(|r| fail_event(r, None))?;
                let made = {
                    let cx = self.context(logical_id, &old.type_name, &tags);
                    provider.create(&cx, &new_props)
                };
                let made = made.map_err(|e| fail_event(e.reason(&self.request_token()), None))?;
                values.set(
                    logical_id,
                    Some(made.ref_value.clone()),
                    made.attributes.clone(),
                );
                let physical = made.physical_id.clone();
                let replaced_props = new_props.clone();
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress)
                        .reason(CREATION_INITIATED.to_string())
                        .physical(&physical)
                        .with_properties(),
                    |res| {
                        res.physical_id = Some(PhysicalId::from(&made.physical_id));
                        res.ref_value = Some(made.ref_value.clone());
                        res.attributes = made.attributes.clone();
                        res.properties = replaced_props;
                        set_attrs(res);
                    },
                );
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
                    |_| {},
                );
                entry.created = self.resource(logical_id);
            }
            StepKind::Move => {
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress).with_properties(),
                    |_| {},
                );
                // The old schedule is disabled before the destination exists, so the two are
                // never both enabled; a rule that only holds holds the move between the two.
                let half_way = self
                    .split_fault(logical_id, &old.type_name, FaultOperation::Update)
                    .await
                    .map_err(|r| fail_event(r, None))?;
                let disabled = {
                    let cx = self.context(logical_id, &old.type_name, &tags);
                    provider.disable(&cx, &current)
                };
                disabled.map_err(|e| fail_event(e.reason(&self.request_token()), None))?;
                if let Some(hit) = &half_way {
                    self.hold(hit, FaultOperation::Update)
                        .await
                        .map_err(|r| fail_event(r, None))?;
                }
                let made = {
                    let cx = self.context(logical_id, &old.type_name, &tags);
                    provider.create(&cx, &new_props)
                };
                let made = made.map_err(|e| fail_event(e.reason(&self.request_token()), None))?;
                values.set(
                    logical_id,
                    Some(made.ref_value.clone()),
                    made.attributes.clone(),
                );
                let moved_props = new_props.clone();
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
                    |res| {
                        res.physical_id = Some(PhysicalId::from(&made.physical_id));
                        res.ref_value = Some(made.ref_value.clone());
                        res.attributes = made.attributes.clone();
                        res.properties = moved_props;
                        set_attrs(res);
                    },
                );
                entry.created = self.resource(logical_id);
            }
            StepKind::Add => {}
        }
        entry.succeeded = true;
        self.journal(entry);
        Ok(())
    }

    /// UPDATE_COMPLETE_CLEANUP_IN_PROGRESS: deletes the old physical resources of replaced
    /// resources (unless UpdateReplacePolicy Retain), the sources of moves (always), and the
    /// resources removed from the template (unless DeletionPolicy Retain); then reorders the
    /// resources to the new template's order.
    async fn cleanup_after_update(&self, exec: &Exec) {
        let journal = self
            .with_stack(|entry, _| entry.record.journal.clone())
            .flatten();
        let entries = journal.map(|j| j.entries).unwrap_or_default();
        for item in entries.iter().rev() {
            let Some(before) = &item.before else { continue };
            match item.kind {
                StepKind::Replace if item.succeeded => {
                    let retain = before.update_replace_policy.as_deref() == Some("Retain")
                        || before.update_replace_policy.as_deref() == Some("Snapshot");
                    self.delete_displaced(before, retain).await;
                }
                StepKind::Move if item.succeeded => {
                    self.delete_displaced(before, false).await;
                }
                _ => {}
            }
        }
        let removed: Vec<ResourceRecord> = self
            .with_stack(|entry, _| {
                entry
                    .resources()
                    .values()
                    .filter(|r| !exec.resolved.resources.contains_key(r.logical_id.as_str()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        for record in removed.iter().rev() {
            let _ = self
                .delete_resource(record, record.retained_on_delete())
                .await;
            self.forget(record.logical_id.as_str());
        }
        self.with_stack(|entry, _| entry.order_resources(&exec.resolved.order));
    }

    /// Deletes (or skips) a physical resource an update displaced, with events carrying its
    /// physical id; failures are events only (the update has committed).
    async fn delete_displaced(&self, before: &ResourceRecord, retain: bool) {
        let event = |status: ResourceStatus, reason: Option<String>| {
            let now = self.shared.deps.clock.now();
            self.with_stack(|entry, _| entry.displaced_event(before, status, reason, now));
        };
        if retain {
            event(ResourceStatus::DeleteSkipped, None);
            return;
        }
        event(ResourceStatus::DeleteInProgress, None);
        match self.delete_physical(before).await {
            Ok(()) => event(ResourceStatus::DeleteComplete, None),
            Err(reason) => event(ResourceStatus::DeleteFailed, Some(reason)),
        }
    }

    // ------------------------------------------------------------------- update rollback

    /// UPDATE_ROLLBACK_IN_PROGRESS → restore each touched resource from the journal (newest
    /// first) → UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS (delete what the update created)
    /// → UPDATE_ROLLBACK_COMPLETE; or UPDATE_ROLLBACK_FAILED with the journal kept when a
    /// restore fails.
    async fn update_rollback(&self, reason: Option<String>, skip: Vec<LogicalId>) {
        self.stack_status(StackStatus::UpdateRollbackInProgress, reason);
        let journal = self
            .with_stack(|entry, _| entry.record.journal.clone())
            .flatten();
        let Some(journal) = journal else {
            self.stack_status(StackStatus::UpdateRollbackCompleteCleanupInProgress, None);
            self.stack_status(StackStatus::UpdateRollbackComplete, None);
            return;
        };
        let mut failed = Vec::new();
        for item in journal.entries.iter().rev() {
            if item.restored {
                continue;
            }
            if skip.contains(&item.logical_id) {
                self.resource_status(
                    item.logical_id.as_str(),
                    ResourceEvent::new(ResourceStatus::UpdateComplete),
                    |_| {},
                );
                self.mark_restored(item.logical_id.as_str());
                continue;
            }
            match self.restore(item).await {
                Ok(()) => self.mark_restored(item.logical_id.as_str()),
                Err(f) => failed.push(f.logical_id),
            }
        }
        if !failed.is_empty() {
            self.stack_status(
                StackStatus::UpdateRollbackFailed,
                Some(format!(
                    "The following resource(s) failed to update: [{}]. ",
                    join_ids(&failed)
                )),
            );
            return;
        }
        self.stack_status(StackStatus::UpdateRollbackCompleteCleanupInProgress, None);
        for item in journal.entries.iter().rev() {
            match (item.kind, &item.created) {
                // An added resource goes, also one whose creation failed (its events say so,
                // as a create rollback's do); DeletionPolicy Retain keeps one that exists.
                (StepKind::Add, created) => {
                    let current = self
                        .resource(item.logical_id.as_str())
                        .or_else(|| created.clone());
                    if let Some(current) = current {
                        let retain = matches!(
                            current.deletion_policy.as_deref(),
                            Some("Retain" | "Snapshot")
                        );
                        let _ = self.delete_resource(&current, retain).await;
                    }
                    self.forget(item.logical_id.as_str());
                }
                (StepKind::Replace | StepKind::Move, Some(created)) => {
                    self.delete_displaced(created, false).await;
                }
                _ => {}
            }
        }
        self.restore_stack(&journal);
        self.stack_status(StackStatus::UpdateRollbackComplete, None);
    }

    fn mark_restored(&self, logical_id: &str) {
        self.with_stack(|entry, _| {
            if let Some(journal) = entry.record.journal.as_mut() {
                for e in journal
                    .entries
                    .iter_mut()
                    .filter(|e| e.logical_id == logical_id)
                {
                    e.restored = true;
                }
                entry.save();
            }
        });
    }

    fn forget(&self, logical_id: &str) {
        self.with_stack(|entry, _| entry.remove_resource(logical_id));
    }

    /// Puts one resource back as the journal recorded it before the update.
    async fn restore(&self, item: &JournalEntry) -> Result<(), Failure> {
        let Some(before) = &item.before else {
            return Ok(());
        };
        let logical_id = item.logical_id.as_str();
        let restore_record = |res: &mut ResourceRecord| {
            res.physical_id = before.physical_id.clone();
            res.properties = before.properties.clone();
            res.ref_value = before.ref_value.clone();
            res.attributes = before.attributes.clone();
            res.deletion_policy = before.deletion_policy.clone();
            res.update_replace_policy = before.update_replace_policy.clone();
            res.metadata = before.metadata.clone();
            res.exists = before.exists;
        };
        let fail = |reason: String| {
            self.resource_status(
                logical_id,
                ResourceEvent::new(ResourceStatus::UpdateFailed).reason(reason.clone()),
                |_| {},
            );
            Failure {
                logical_id: LogicalId::from(logical_id),
                reason,
            }
        };
        let before_physical = before.physical_id.clone();
        match item.kind {
            StepKind::Add => Ok(()),
            StepKind::RecordOnly | StepKind::Replace => {
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress)
                        .maybe_physical(before_physical.as_ref().map(PhysicalId::as_str)),
                    |_| {},
                );
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateComplete)
                        .maybe_physical(before_physical.as_ref().map(PhysicalId::as_str))
                        .with_properties(),
                    restore_record,
                );
                Ok(())
            }
            StepKind::InPlace | StepKind::Move => {
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateInProgress)
                        .maybe_physical(before_physical.as_ref().map(PhysicalId::as_str)),
                    |_| {},
                );
                let half_way = self
                    .split_fault(logical_id, &before.type_name, FaultOperation::Restore)
                    .await
                    .map_err(&fail)?;
                let provider = self.provider(&before.type_name).map_err(&fail)?;
                let tags = self.stack_tags();
                let cx = self.context(logical_id, &before.type_name, &tags);
                // A moved schedule: the destination is disabled before the original is
                // enabled again (a destination already gone has nothing to disable).
                if let (StepKind::Move, Some(created)) = (item.kind, &item.created) {
                    let physical = created.physical_text().to_string();
                    let disabled = provider.disable(
                        &cx,
                        &Current {
                            physical_id: &physical,
                            properties: &created.properties,
                            attributes: &created.attributes,
                        },
                    );
                    match disabled {
                        Ok(()) => {}
                        Err(e) if e.code == HandlerErrorCode::NotFound => {}
                        Err(e) => return Err(fail(e.reason(&self.request_token()))),
                    }
                }
                if let Some(hit) = &half_way {
                    self.hold(hit, FaultOperation::Restore)
                        .await
                        .map_err(&fail)?;
                }
                let physical = before.physical_text().to_string();
                let made = provider
                    .update(
                        &cx,
                        &Current {
                            physical_id: &physical,
                            properties: &before.properties,
                            attributes: &before.attributes,
                        },
                        &before.properties,
                    )
                    .map_err(|e| fail(e.reason(&self.request_token())))?;
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::UpdateComplete)
                        .maybe_physical(before_physical.as_ref().map(PhysicalId::as_str))
                        .with_properties(),
                    |res| {
                        restore_record(res);
                        res.attributes = made.attributes.clone();
                        res.ref_value = Some(made.ref_value.clone());
                    },
                );
                Ok(())
            }
        }
    }

    /// Puts the stack-level state (template, parameters, outputs, tags, exports, order) back
    /// as it was before the update, and drops the journal.
    fn restore_stack(&self, journal: &UpdateJournal) {
        let mut state = self.shared.lock();
        let region = state.region(&self.scope);
        region.publish_exports(&self.stack_id, &journal.outputs);
        let Some(entry) = region.stack_mut(self.stack_id.as_str()) else {
            return;
        };
        let r = &mut entry.record;
        r.template_body = journal.template_body.clone();
        r.description = journal.description.clone();
        r.bound_parameters = journal.bound_parameters.clone();
        r.parameters = journal.parameters.clone();
        r.outputs = journal.outputs.clone();
        r.capabilities = journal.capabilities.clone();
        r.tags = journal.tags.clone();
        r.notification_arns = journal.notification_arns.clone();
        r.imports = journal.imports.clone();
        r.journal = None;
        entry.template = None;
        entry.save();
        entry.order_resources(&journal.resource_order);
    }
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
