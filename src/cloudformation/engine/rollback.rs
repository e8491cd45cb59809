//! The update rollback of the engine: every journal entry undone in reverse order (restore the
//! snapshot, put a moved schedule back, skip ContinueUpdateRollback's ResourcesToSkip), then
//! UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS deletes what the update created; or
//! UPDATE_ROLLBACK_FAILED with the journal kept when a restore fails.

use crate::faults::FaultOperation;

use super::super::id::{LogicalId, PhysicalId};
use super::super::providers::{Current, HandlerErrorCode};
use super::super::status::{ResourceStatus, StackStatus};
use super::super::store::{JournalEntry, ResourceEvent, ResourceRecord, StepKind, UpdateJournal};
use super::{join_ids, Failure, Runner};

impl Runner {
    /// UPDATE_ROLLBACK_IN_PROGRESS → restore each touched resource from the journal (newest
    /// first) → UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS (delete what the update created)
    /// → UPDATE_ROLLBACK_COMPLETE; or UPDATE_ROLLBACK_FAILED with the journal kept when a
    /// restore fails.
    pub(super) async fn update_rollback(&self, reason: Option<String>, skip: Vec<LogicalId>) {
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

    pub(super) fn mark_restored(&self, logical_id: &str) {
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

    pub(super) fn forget(&self, logical_id: &str) {
        self.with_stack(|entry, _| entry.remove_resource(logical_id));
    }

    /// Puts one resource back as the journal recorded it before the update.
    pub(super) async fn restore(&self, item: &JournalEntry) -> Result<(), Failure> {
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
            Failure::of(logical_id)
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
    pub(super) fn restore_stack(&self, journal: &UpdateJournal) {
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
