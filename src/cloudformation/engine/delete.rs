//! The delete path of the engine: every resource deleted in reverse dependency order
//! (DELETE_IN_PROGRESS, DELETE_COMPLETE / DELETE_FAILED, or DELETE_SKIPPED when retained), the
//! second physical copies a failed update left, and the displaced copies cleanups delete.
//! DeletionMode FORCE_DELETE_STACK leaves what fails to delete (DELETE_SKIPPED) and deletes the
//! stack anyway.

use crate::faults::FaultOperation;

use super::super::id::LogicalId;
use super::super::providers::Current;
use super::super::status::{ResourceStatus, StackStatus};
use super::super::store::{ResourceEvent, ResourceRecord, StepKind, UpdateJournal};
use super::{join_ids, Failure, Runner};

/// Why the stack is being deleted (DeletionPolicy RetainExceptOnCreate keeps a resource only
/// on a requested delete).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DeleteCause {
    /// DeleteStack.
    Request,
    /// A failed create with OnFailure DELETE.
    FailedCreate,
}

/// How a stack is deleted.
pub(super) struct DeleteOptions {
    /// Logical ids to leave in place (RetainResources).
    pub(super) retain: Vec<LogicalId>,
    /// Why.
    pub(super) cause: DeleteCause,
    /// FORCE_DELETE_STACK: what fails to delete is left (DELETE_SKIPPED), the stack still goes.
    pub(super) force: bool,
}

impl DeleteOptions {
    /// Whether `record` stays (RetainResources, DeletionPolicy).
    fn keeps(&self, record: &ResourceRecord) -> bool {
        self.retain.contains(&record.logical_id)
            || match record.deletion_policy.as_deref() {
                Some("Retain") | Some("Snapshot") => true,
                Some("RetainExceptOnCreate") => self.cause == DeleteCause::Request,
                _ => false,
            }
    }
}

impl Runner {
    /// Deletes one resource (DELETE_IN_PROGRESS, DELETE_COMPLETE / DELETE_FAILED), or skips it
    /// (DELETE_SKIPPED) when `retain`.
    pub(super) async fn delete_resource(
        &self,
        record: &ResourceRecord,
        retain: bool,
    ) -> Result<(), Failure> {
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
            if let Err(reason) = self.delete_physical(record).await {
                self.resource_status(
                    logical_id,
                    ResourceEvent::new(ResourceStatus::DeleteFailed).reason(reason.clone()),
                    |_| {},
                );
                return Err(Failure::of(record.logical_id.clone()));
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
    pub(super) async fn delete_physical(&self, record: &ResourceRecord) -> Result<(), String> {
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

    /// Deletes every resource in reverse order, then the stack (DELETE_COMPLETE), or stops in
    /// DELETE_FAILED. The stack is already DELETE_IN_PROGRESS.
    pub(super) async fn delete_all(&self, options: DeleteOptions) {
        let (records, journal) = self
            .with_stack(|entry, _| {
                (
                    entry.resources().values().cloned().collect::<Vec<_>>(),
                    entry.record.journal.clone(),
                )
            })
            .unwrap_or_default();
        if let Some(journal) = &journal {
            self.delete_second_copies(journal, &records).await;
        }
        let mut failed = Vec::new();
        for record in records.iter().rev() {
            // FORCE_DELETE_STACK does not try again what failed to delete before.
            let skip = options.force && record.status() == ResourceStatus::DeleteFailed;
            if let Err(f) = self
                .delete_resource(record, options.keeps(record) || skip)
                .await
            {
                failed.push(f.logical_id);
            }
        }
        if options.force {
            for logical_id in &failed {
                self.resource_status(
                    logical_id.as_str(),
                    ResourceEvent::new(ResourceStatus::DeleteSkipped),
                    |_| {},
                );
            }
            failed.clear();
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

    /// A stack left by a failed update (UPDATE_FAILED, UPDATE_ROLLBACK_FAILED) may own a second
    /// physical resource for a replaced or moved resource: it is deleted too (UpdateReplacePolicy
    /// Retain keeps the old copy of a replacement, never of a move).
    async fn delete_second_copies(&self, journal: &UpdateJournal, records: &[ResourceRecord]) {
        for item in journal.entries.iter().rev() {
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
    }

    /// Deletes (or skips) a physical resource an update displaced, with events carrying its
    /// physical id; failures are events only (the update has committed).
    pub(super) async fn delete_displaced(&self, before: &ResourceRecord, retain: bool) {
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
}
