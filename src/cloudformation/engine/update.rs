//! The update path of the engine: each resource of the new template in dependency order,
//! added, changed in place, replaced or moved, with the journal a rollback restores from; then
//! UPDATE_COMPLETE_CLEANUP_IN_PROGRESS deletes what the update displaced or removed.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use crate::faults::FaultOperation;

use super::super::id::{LogicalId, PhysicalId};
use super::super::providers::{Current, Provisioned, ResourceProvider, UpdateKind};
use super::super::status::{ExecutionStatus, ResourceStatus, StackStatus};
use super::super::store::{JournalEntry, ResourceEvent, ResourceRecord, StepKind};
use super::super::template::ResourceDecl;
use super::{
    join_reason, Exec, Failure, Runner, Values, CREATION_INITIATED, REPLACEMENT,
    STACK_UPDATE_CANCELLED,
};

/// An update to run (UpdateStack, ExecuteChangeSet UPDATE).
pub(crate) struct UpdateRun {
    /// The template context.
    pub(crate) exec: Exec,
    /// Resources the plan says change even when their properties evaluate the same
    /// (metadata, policies, dynamic values).
    pub(crate) planned: BTreeSet<LogicalId>,
    /// Stop in UPDATE_FAILED instead of rolling back.
    pub(crate) disable_rollback: bool,
    /// The change set being executed, if any.
    pub(crate) change_set_id: Option<String>,
}

/// Why an update stopped: a resource failed (created or updated), it was cancelled, or the
/// outputs or exports were refused.
enum Stop {
    Created(Failure),
    Updated(Failure),
    Cancelled,
}

/// One change of one existing resource, worked out before anything happens.
struct Change<'a> {
    old: &'a ResourceRecord,
    decl: &'a ResourceDecl,
    new_props: Value,
    provider: Arc<dyn ResourceProvider>,
}

impl Change<'_> {
    fn logical_id(&self) -> &str {
        self.old.logical_id.as_str()
    }

    /// Its policies and metadata as the new template declares them.
    fn set_declared(&self, res: &mut ResourceRecord) {
        res.deletion_policy = self.decl.deletion_policy.clone();
        res.update_replace_policy = self.decl.update_replace_policy.clone();
        res.metadata = self.decl.metadata.clone();
    }
}

/// The record after a provider made or changed the physical resource.
fn set_made(res: &mut ResourceRecord, made: &Provisioned) {
    res.physical_id = Some(PhysicalId::from(&made.physical_id));
    res.ref_value = Some(made.ref_value.clone());
    res.attributes = made.attributes.clone();
}

impl Runner {
    /// Applies the new template resource by resource, then commits (cleanup, UPDATE_COMPLETE)
    /// or stops (UPDATE_FAILED with rollback disabled, else the update rollback).
    pub(super) async fn update(self, run: UpdateRun) {
        let exec = &run.exec;
        let mut values = Values::new(self.shared.clone(), self.scope.clone());
        if let Some(current) = self.with_stack(|entry, _| entry.resources().clone()) {
            for res in current.values().filter(|r| r.exists) {
                values.set(
                    res.logical_id.as_str(),
                    res.ref_value.clone(),
                    res.attributes.clone(),
                );
            }
        }
        let stop = self.apply_resources(&run, &mut values).await;
        // The stack's reason: AWS's resource list (with its trailing ". "), the cancellation,
        // or an output/export problem.
        let reason = match stop {
            Some(_) if self.control.is_cancelled() => Some(STACK_UPDATE_CANCELLED.to_string()),
            Some(Stop::Cancelled) => Some(STACK_UPDATE_CANCELLED.to_string()),
            Some(Stop::Created(f)) => Some(failed_to("create", &f)),
            Some(Stop::Updated(f)) => Some(failed_to("update", &f)),
            None => self
                .outputs(exec, &values)
                .and_then(|o| self.commit_outputs(o, values.imports()))
                .err()
                .map(|r| join_reason(&r, "")),
        };
        let change_set_id = run.change_set_id.as_deref();
        if let Some(reason) = reason {
            self.set_execution_status(change_set_id, ExecutionStatus::ExecuteFailed);
            if run.disable_rollback {
                self.stack_status(StackStatus::UpdateFailed, Some(reason));
            } else {
                self.update_rollback(Some(reason), Vec::new()).await;
            }
            return;
        }
        self.stack_status(StackStatus::UpdateCompleteCleanupInProgress, None);
        self.cleanup_after_update(exec).await;
        self.with_stack(|entry, _| {
            entry.record.journal = None;
            entry.save();
        });
        self.stack_status(StackStatus::UpdateComplete, None);
        self.set_execution_status(change_set_id, ExecutionStatus::ExecuteComplete);
    }

    /// Adds or updates each resource of the new template in order; answers what stopped it.
    async fn apply_resources(&self, run: &UpdateRun, values: &mut Values) -> Option<Stop> {
        for logical_id in &run.exec.resolved.order {
            if self.control.is_cancelled() {
                return Some(Stop::Cancelled);
            }
            let Some(old) = self.resource(logical_id).filter(|r| r.exists) else {
                let step = self.create_resource(&run.exec, values, logical_id).await;
                let (created, succeeded) = match &step {
                    Ok(rec) => (Some(rec.clone()), true),
                    Err(_) => (None, false),
                };
                self.journal(JournalEntry {
                    logical_id: LogicalId::from(logical_id),
                    kind: StepKind::Add,
                    before: None,
                    created,
                    succeeded,
                    restored: false,
                });
                match step {
                    Ok(_) => continue,
                    Err(f) => return Some(Stop::Created(f)),
                }
            };
            let planned = run.planned.contains(logical_id.as_str());
            if let Err(f) = self.update_resource(&run.exec, values, &old, planned).await {
                return Some(Stop::Updated(f));
            }
        }
        None
    }

    /// Appends (or replaces) the journal entry of a resource.
    pub(super) fn journal(&self, item: JournalEntry) {
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

    /// A failed update step: UPDATE_FAILED, the record as it was (the physical resource is).
    fn update_failed(&self, old: &ResourceRecord, reason: String) -> Failure {
        self.resource_status(
            old.logical_id.as_str(),
            ResourceEvent::new(ResourceStatus::UpdateFailed)
                .reason(reason.clone())
                .with_properties(),
            |res| res.properties = old.properties.clone(),
        );
        Failure::of(old.logical_id.clone())
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
                return Err(self.update_failed(old, reason));
            }
        };
        let props_changed = new_props != old.properties;
        let attrs_changed = decl.deletion_policy != old.deletion_policy
            || decl.update_replace_policy != old.update_replace_policy
            || decl.metadata != old.metadata;
        if !props_changed && !attrs_changed && !planned {
            return Ok(());
        }
        let provider = self
            .provider(&old.type_name)
            .map_err(|reason| self.update_failed(old, reason))?;
        let kind = if props_changed {
            let create_only = super::super::plan::create_only_changed(
                &old.type_name,
                &old.properties,
                &new_props,
            );
            match provider.update_kind(&old.properties, &new_props, create_only) {
                UpdateKind::InPlace => StepKind::InPlace,
                UpdateKind::Replace => StepKind::Replace,
                UpdateKind::Move => StepKind::Move,
            }
        } else {
            StepKind::RecordOnly
        };
        let mut entry = JournalEntry {
            logical_id: old.logical_id.clone(),
            kind,
            before: Some(old.clone()),
            created: None,
            succeeded: false,
            restored: false,
        };
        self.journal(entry.clone());
        let change = Change {
            old,
            decl,
            new_props,
            provider,
        };
        entry.created = match kind {
            StepKind::RecordOnly => self.update_record_only(&change),
            StepKind::InPlace => self.update_in_place(&change, values).await?,
            StepKind::Replace => self.replace(&change, values).await?,
            StepKind::Move => self.move_resource(&change, values).await?,
            StepKind::Add => None,
        };
        entry.succeeded = true;
        self.journal(entry);
        Ok(())
    }

    /// Only the record changes (policies, metadata, a planned resource whose properties did
    /// not): UPDATE_IN_PROGRESS, UPDATE_COMPLETE.
    fn update_record_only(&self, change: &Change<'_>) -> Option<ResourceRecord> {
        let props = change.new_props.clone();
        self.resource_status(
            change.logical_id(),
            ResourceEvent::new(ResourceStatus::UpdateInProgress).with_properties(),
            |res| res.properties = props,
        );
        self.resource_status(
            change.logical_id(),
            ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
            |res| change.set_declared(res),
        );
        None
    }

    /// The provider's in-place update: UPDATE_IN_PROGRESS, UPDATE_COMPLETE or UPDATE_FAILED.
    async fn update_in_place(
        &self,
        change: &Change<'_>,
        values: &mut Values,
    ) -> Result<Option<ResourceRecord>, Failure> {
        let (logical_id, old) = (change.logical_id(), change.old);
        let props = change.new_props.clone();
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateInProgress).with_properties(),
            |res| res.properties = props,
        );
        self.fault(logical_id, &old.type_name, FaultOperation::Update)
            .await
            .map_err(|r| self.update_failed(old, r))?;
        let tags = self.stack_tags();
        let made = {
            let cx = self.context(logical_id, &old.type_name, &tags);
            let current = Current {
                physical_id: old.physical_text(),
                properties: &old.properties,
                attributes: &old.attributes,
            };
            change.provider.update(&cx, &current, &change.new_props)
        };
        let made = made.map_err(|e| self.update_failed(old, e.reason(&self.request_token())))?;
        values.set(
            logical_id,
            Some(made.ref_value.clone()),
            made.attributes.clone(),
        );
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
            |res| {
                set_made(res, &made);
                change.set_declared(res);
            },
        );
        Ok(None)
    }

    /// A replacement: the new physical resource is created (the old one goes at cleanup):
    /// UPDATE_IN_PROGRESS (the replacement reason), UPDATE_IN_PROGRESS (new physical id,
    /// `Resource creation Initiated`), UPDATE_COMPLETE. Answers the new record.
    async fn replace(
        &self,
        change: &Change<'_>,
        values: &mut Values,
    ) -> Result<Option<ResourceRecord>, Failure> {
        let (logical_id, old) = (change.logical_id(), change.old);
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateInProgress)
                .reason(REPLACEMENT)
                .with_properties(),
            |_| {},
        );
        self.fault(logical_id, &old.type_name, FaultOperation::Create)
            .await
            .map_err(|r| self.update_failed(old, r))?;
        let tags = self.stack_tags();
        let made = {
            let cx = self.context(logical_id, &old.type_name, &tags);
            change.provider.create(&cx, &change.new_props)
        };
        let made = made.map_err(|e| self.update_failed(old, e.reason(&self.request_token())))?;
        values.set(
            logical_id,
            Some(made.ref_value.clone()),
            made.attributes.clone(),
        );
        let props = change.new_props.clone();
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateInProgress)
                .reason(CREATION_INITIATED)
                .physical(&made.physical_id)
                .with_properties(),
            |res| {
                set_made(res, &made);
                res.properties = props;
                change.set_declared(res);
            },
        );
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
            |_| {},
        );
        Ok(self.resource(logical_id))
    }

    /// A move (a schedule's group change): the old schedule is disabled before the destination
    /// exists, so the two are never both enabled; a rule that only holds holds the move between
    /// the two. UPDATE_IN_PROGRESS, UPDATE_COMPLETE. Answers the destination's record.
    async fn move_resource(
        &self,
        change: &Change<'_>,
        values: &mut Values,
    ) -> Result<Option<ResourceRecord>, Failure> {
        let (logical_id, old) = (change.logical_id(), change.old);
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateInProgress).with_properties(),
            |_| {},
        );
        let half_way = self
            .split_fault(logical_id, &old.type_name, FaultOperation::Update)
            .await
            .map_err(|r| self.update_failed(old, r))?;
        let tags = self.stack_tags();
        let disabled = {
            let cx = self.context(logical_id, &old.type_name, &tags);
            let current = Current {
                physical_id: old.physical_text(),
                properties: &old.properties,
                attributes: &old.attributes,
            };
            change.provider.disable(&cx, &current)
        };
        disabled.map_err(|e| self.update_failed(old, e.reason(&self.request_token())))?;
        if let Some(hit) = &half_way {
            self.hold(hit, FaultOperation::Update)
                .await
                .map_err(|r| self.update_failed(old, r))?;
        }
        let made = {
            let cx = self.context(logical_id, &old.type_name, &tags);
            change.provider.create(&cx, &change.new_props)
        };
        let made = made.map_err(|e| self.update_failed(old, e.reason(&self.request_token())))?;
        values.set(
            logical_id,
            Some(made.ref_value.clone()),
            made.attributes.clone(),
        );
        let props = change.new_props.clone();
        self.resource_status(
            logical_id,
            ResourceEvent::new(ResourceStatus::UpdateComplete).with_properties(),
            |res| {
                set_made(res, &made);
                res.properties = props;
                change.set_declared(res);
            },
        );
        Ok(self.resource(logical_id))
    }

    /// UPDATE_COMPLETE_CLEANUP_IN_PROGRESS: deletes the old physical resources of replaced
    /// resources (unless UpdateReplacePolicy Retain), the sources of moves (always), and the
    /// resources removed from the template (unless DeletionPolicy Retain); then reorders the
    /// resources to the new template's order.
    pub(super) async fn cleanup_after_update(&self, exec: &Exec) {
        let journal = self
            .with_stack(|entry, _| entry.record.journal.clone())
            .flatten();
        let entries = journal.map(|j| j.entries).unwrap_or_default();
        for item in entries.iter().rev() {
            let Some(before) = &item.before else { continue };
            match item.kind {
                StepKind::Replace if item.succeeded => {
                    let retain = matches!(
                        before.update_replace_policy.as_deref(),
                        Some("Retain" | "Snapshot")
                    );
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
}

/// `The following resource(s) failed to <verb>: [X]. ` (AWS's form, trailing space included).
fn failed_to(verb: &str, failure: &Failure) -> String {
    join_reason(
        &format!(
            "The following resource(s) failed to {verb}: [{}]",
            failure.logical_id
        ),
        "",
    )
}
