//! The create path of the engine: each resource created in dependency order
//! (CREATE_IN_PROGRESS, the provider call, CREATE_COMPLETE or CREATE_FAILED), the outputs and
//! exports published at the end, and what follows a failed create (CREATE_FAILED, the rollback
//! to ROLLBACK_COMPLETE / ROLLBACK_FAILED, or deletion with OnFailure DELETE).

use crate::faults::FaultOperation;

use super::super::error::messages::USER_INITIATED;
use super::super::id::{LogicalId, PhysicalId};
use super::super::model::{OnFailure, Output};
use super::super::status::{ExecutionStatus, ResourceStatus, StackStatus};
use super::super::store::{ResourceEvent, ResourceRecord};
use super::super::template::Evaluator;
use super::delete::{DeleteCause, DeleteOptions};
use super::{join_ids, join_reason, Exec, Failure, Runner, Values, CREATION_INITIATED};

impl Runner {
    /// Creates one resource: CREATE_IN_PROGRESS ("" physical id), the provider call,
    /// CREATE_IN_PROGRESS ("Resource creation Initiated"), CREATE_COMPLETE; or CREATE_FAILED.
    pub(super) async fn create_resource(
        &self,
        exec: &Exec,
        values: &mut Values,
        logical_id: &str,
    ) -> Result<ResourceRecord, Failure> {
        let Some(decl) = exec.resolved.resources.get(logical_id) else {
            return Err(Failure::of(logical_id));
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
            Failure::of(logical_id)
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

    pub(super) async fn create(
        self,
        exec: Exec,
        on_failure: OnFailure,
        change_set_id: Option<String>,
    ) {
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
    pub(super) async fn create_rollback(&self, reason: Option<String>, on_failure: OnFailure) {
        let joined = |tail: &str| reason.as_ref().map(|r| join_reason(r, tail));
        match on_failure {
            OnFailure::DoNothing => {
                self.stack_status(StackStatus::CreateFailed, joined(""));
                return;
            }
            OnFailure::Delete => {
                self.stack_status(StackStatus::DeleteInProgress, joined(""));
                let options = DeleteOptions {
                    retain: Vec::new(),
                    cause: DeleteCause::FailedCreate,
                    force: false,
                };
                self.delete_all(options).await;
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

    /// Evaluates the outputs and checks the exports they declare; the error is the stack's
    /// failure reason.
    pub(super) fn outputs(&self, exec: &Exec, values: &Values) -> Result<Vec<Output>, String> {
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
    pub(super) fn commit_outputs(
        &self,
        outputs: Vec<Output>,
        imports: Vec<String>,
    ) -> Result<(), String> {
        let mut state = self.shared.lock();
        let region = state.region(&self.scope);
        let old: Vec<(String, String)> = region
            .exports()
            .values()
            .filter(|e| e.exporting_stack_id == self.stack_id)
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect();
        for o in &outputs {
            let Some(name) = &o.export_name else { continue };
            if let Some(existing) = region.exports().get(name) {
                if existing.exporting_stack_id != self.stack_id {
                    let by = region
                        .stack(existing.exporting_stack_id.as_str())
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
    pub(super) fn drop_exports(&self) {
        let mut state = self.shared.lock();
        state.region(&self.scope).drop_exports(&self.stack_id);
    }
}
