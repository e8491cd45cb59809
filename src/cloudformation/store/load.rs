//! Reading the store back from `crate::storage` at start: stacks, their resources in
//! dependency order and events, change sets, and the exports of live stacks. An operation a
//! restart cut short is over: its stack and each resource it left `*_IN_PROGRESS` move to the
//! matching failed status through the lifecycle methods (so with their events), from which
//! DeleteStack, RollbackStack or ContinueUpdateRollback recover.

use chrono::{DateTime, Utc};

use crate::ids::Scope;

use super::super::id::{LogicalId, StackId};
use super::super::model::Export;
use super::super::status::StackStatus;
use super::lifecycle::{StoredEvent, StoredResource};
use super::records::{ChangeSetRecord, StackRecord};
use super::{ChangeSetEntry, Sink, StackEntry, State, CHANGE_SETS, EVENTS, RESOURCES, STACKS};

/// The status reason of a stack, and of its resources, whose operation a restart cut short.
pub(super) const INTERRUPTED: &str = "The operation was interrupted by a restart of Cumulo.";

/// The scope a CloudFormation ARN lives in (`arn:aws:cloudformation:<region>:<account>:...`).
fn scope_of(arn: &str) -> Option<Scope> {
    let mut parts = arn.splitn(6, ':');
    let (_, _, _, region, account) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    Some(Scope::new(account, region))
}

/// The status an operation a restart cut short ends in, from the status it was in.
fn interrupted(status: StackStatus) -> Option<StackStatus> {
    Some(match status {
        StackStatus::CreateInProgress => StackStatus::CreateFailed,
        StackStatus::UpdateInProgress => StackStatus::UpdateFailed,
        StackStatus::DeleteInProgress => StackStatus::DeleteFailed,
        StackStatus::RollbackInProgress => StackStatus::RollbackFailed,
        StackStatus::UpdateRollbackInProgress => StackStatus::UpdateRollbackFailed,
        StackStatus::UpdateCompleteCleanupInProgress => StackStatus::UpdateComplete,
        StackStatus::UpdateRollbackCompleteCleanupInProgress => StackStatus::UpdateRollbackComplete,
        _ => return None,
    })
}

impl State {
    /// Everything `sink`'s storage kept (nothing in memory mode). A stack whose operation a
    /// restart cut short loads in the matching failed status (a cleanup phase as its COMPLETE
    /// status, its journal dropped); a resource it left `*_IN_PROGRESS` in the matching
    /// `*_FAILED` status; each with the reason [`INTERRUPTED`] and an event at `now` (UTC).
    pub fn load(sink: Sink, now: DateTime<Utc>) -> State {
        let mut state = State::new(sink.clone());
        let storage = sink.storage.clone();
        if !storage.is_durable() {
            return state;
        }
        // Stacks whose operation a restart cut short: (scope, stack id, status to end in).
        let mut cut_short: Vec<(Scope, StackId, StackStatus)> = Vec::new();
        for (_, record) in storage.load::<StackRecord>(STACKS) {
            let Some(scope) = scope_of(record.stack_id.as_str()) else {
                continue;
            };
            if let Some(status) = interrupted(record.status) {
                cut_short.push((scope.clone(), record.stack_id.clone(), status));
            }
            let region = state.region(&scope);
            if record.status != StackStatus::DeleteComplete {
                region
                    .live
                    .insert(record.stack_name.clone(), record.stack_id.clone());
                for o in &record.outputs {
                    if let Some(name) = &o.export_name {
                        region.exports.insert(
                            name.clone(),
                            Export {
                                exporting_stack_id: record.stack_id.clone(),
                                name: name.clone(),
                                value: o.value.clone(),
                            },
                        );
                    }
                }
            }
            region.stacks.insert(
                record.stack_id.clone(),
                StackEntry::new(record, None, sink.clone()),
            );
        }
        let failed_resources = load_resources(&mut state);
        let mut events = storage.load::<StoredEvent>(EVENTS);
        events.sort_by_key(|(_, e)| e.event.seq);
        for (_, stored) in events {
            if let Some(entry) = state.stack(&stored.stack_id) {
                entry.load_event(stored.event);
            }
        }
        for (stack_id, logical_id, status) in failed_resources {
            if let Some(entry) = state.stack(&stack_id) {
                let _ = entry.interrupt_resource(logical_id.as_str(), status, INTERRUPTED, now);
            }
        }
        for (_, stack_id, status) in cut_short {
            if let Some(entry) = state.stack(&stack_id) {
                if matches!(
                    status,
                    StackStatus::UpdateComplete | StackStatus::UpdateRollbackComplete
                ) {
                    entry.record.journal = None;
                }
                let _ = entry.interrupt(status, INTERRUPTED, now);
            }
        }
        let mut change_sets = storage.load::<ChangeSetRecord>(CHANGE_SETS);
        change_sets.sort_by_key(|(_, cs)| cs.creation_time);
        for (_, record) in change_sets {
            if let Some(scope) = scope_of(&record.change_set_id) {
                state.region(&scope).change_sets.insert(
                    record.change_set_id.clone(),
                    ChangeSetEntry::loaded(record, sink.clone()),
                );
            }
        }
        state
    }

    /// The stack `stack_id` (its scope is in the ARN), mutable.
    fn stack(&mut self, stack_id: &StackId) -> Option<&mut StackEntry> {
        let scope = scope_of(stack_id.as_str())?;
        self.regions.get_mut(&scope)?.stacks.get_mut(stack_id)
    }
}

/// Loads every resource into its stack in dependency order; answers those a restart left in
/// progress with the failed status each moves to.
fn load_resources(
    state: &mut State,
) -> Vec<(StackId, LogicalId, super::super::status::ResourceStatus)> {
    let mut resources = state.sink.storage.load::<StoredResource>(RESOURCES);
    resources.sort_by_key(|(_, r)| r.position);
    let mut failed = Vec::new();
    for (_, stored) in resources {
        let Some(entry) = state.stack(&stored.stack_id) else {
            continue;
        };
        if let Some(to) = stored.record.status.interrupted() {
            failed.push((
                stored.stack_id.clone(),
                stored.record.logical_id.clone(),
                to,
            ));
        }
        entry.load_resource(stored.record);
    }
    failed
}
