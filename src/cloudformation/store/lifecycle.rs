//! The stack lifecycle, owned by the store: every change of a stack's, a resource's or a
//! change set's status is one of these methods. Each goes through the transition function of
//! `status` and refuses an edge AWS never takes (nothing changes, the refusal is logged and
//! counted: an engine bug, never a client error); each appends the event AWS shows and persists
//! what changed. Events of a stack get distinct, increasing timestamps: each at least 1 ms after
//! the stack's previous event, never before the clock's `now`. No provider calls, no awaits.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::super::control::OperationControl;
use super::super::id::{LogicalId, StackId};
use super::super::model::Plan;
use super::super::status::{
    ChangeSetStatus, ExecutionStatus, IllegalTransition, ResourceStatus, StackStatus,
};
use super::super::template::Template;
use super::records::{ChangeSetRecord, ResourceRecord, StackEventRecord, StackRecord};
use super::{
    ChangeSetEntry, Region, Sink, StackEntry, CHANGE_SETS, EVENTS, RESOURCES, STACKS, STACK_TYPE,
};

/// How a resource's status changes: the new status and what its event shows.
#[derive(Clone, Debug)]
pub struct ResourceEvent<'a> {
    /// The new status.
    pub status: ResourceStatus,
    /// `ResourceStatusReason` (also the record's reason).
    pub reason: Option<String>,
    /// The event's `PhysicalResourceId` when it is not the record's (`""` before creation, the
    /// physical id a restore puts back).
    pub physical_id: Option<&'a str>,
    /// Whether the event carries `ResourceProperties` (the record's properties after the change).
    pub with_properties: bool,
}

impl<'a> ResourceEvent<'a> {
    /// A change to `status` whose event has no reason, the record's physical id and no
    /// properties.
    pub fn new(status: ResourceStatus) -> ResourceEvent<'a> {
        ResourceEvent {
            status,
            reason: None,
            physical_id: None,
            with_properties: false,
        }
    }

    /// With `reason`.
    pub fn reason(self, reason: impl Into<String>) -> ResourceEvent<'a> {
        ResourceEvent {
            reason: Some(reason.into()),
            ..self
        }
    }

    /// With an optional reason.
    pub fn maybe_reason(self, reason: Option<String>) -> ResourceEvent<'a> {
        ResourceEvent { reason, ..self }
    }

    /// Showing `physical_id` on the event instead of the record's.
    pub fn physical(self, physical_id: &'a str) -> ResourceEvent<'a> {
        ResourceEvent {
            physical_id: Some(physical_id),
            ..self
        }
    }

    /// Showing `physical_id`, when given, instead of the record's.
    pub fn maybe_physical(self, physical_id: Option<&'a str>) -> ResourceEvent<'a> {
        ResourceEvent {
            physical_id,
            ..self
        }
    }

    /// Carrying the record's properties.
    pub fn with_properties(self) -> ResourceEvent<'a> {
        ResourceEvent {
            with_properties: true,
            ..self
        }
    }
}

/// The status an event shows: a stack's or a resource's.
#[derive(Clone, Copy, Debug)]
enum EventStatus {
    Stack(StackStatus),
    Resource(ResourceStatus),
}

impl EventStatus {
    fn as_str(self) -> &'static str {
        match self {
            EventStatus::Stack(s) => s.as_str(),
            EventStatus::Resource(s) => s.as_str(),
        }
    }
}

/// One event to append.
struct EventSpec<'a> {
    logical_id: &'a str,
    physical_id: &'a str,
    resource_type: &'a str,
    status: EventStatus,
    reason: Option<String>,
    properties: Option<String>,
}

/// What computing a change set gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeSetOutcome {
    /// Computed with changes: CREATE_COMPLETE, AVAILABLE.
    Computed,
    /// Not executable, with the reason (e.g. no changes): FAILED, UNAVAILABLE.
    Failed(String),
}

/// A resource as the durable store keeps it (written).
#[derive(Serialize)]
pub(super) struct StoredResourceRef<'a> {
    pub(super) stack_id: &'a StackId,
    pub(super) position: usize,
    pub(super) record: &'a ResourceRecord,
}

/// A resource as the durable store keeps it (read back).
#[derive(Deserialize)]
pub(super) struct StoredResource {
    pub(super) stack_id: StackId,
    pub(super) position: usize,
    pub(super) record: ResourceRecord,
}

/// An event as the durable store keeps it: the event and its stack.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredEvent {
    pub(super) stack_id: StackId,
    pub(super) event: StackEventRecord,
}

fn transition_error(kind: &'static str, to: &'static str) -> IllegalTransition {
    IllegalTransition {
        kind,
        from: "(absent)",
        to,
    }
}

impl Region {
    /// Adds a new stack whose first status is `initial` (`CREATE_IN_PROGRESS` for CreateStack,
    /// `REVIEW_IN_PROGRESS` for a CREATE change set) with its event, and makes it the live stack
    /// of its name. Refused when `initial` is not a status a stack starts in.
    pub fn open_stack(
        &mut self,
        record: StackRecord,
        template: Option<Template>,
        initial: StackStatus,
        reason: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<&mut StackEntry, IllegalTransition> {
        if !initial.is_initial() {
            let err = transition_error("stack", initial.as_str());
            return Err(self.sink.refuse(err, &record.stack_name));
        }
        let stack_id = record.stack_id.clone();
        let mut entry = StackEntry::new(record, template, self.sink.clone());
        entry.record.status = initial;
        entry.record.status_reason = reason.clone();
        entry.push_event(
            EventSpec {
                logical_id: &entry.record.stack_name.clone(),
                physical_id: stack_id.as_str(),
                resource_type: STACK_TYPE,
                status: EventStatus::Stack(initial),
                reason,
                properties: None,
            },
            now,
        );
        entry.save();
        self.live
            .insert(entry.record.stack_name.clone(), stack_id.clone());
        Ok(match self.stacks.entry(stack_id) {
            indexmap::map::Entry::Occupied(mut old) => {
                old.insert(entry);
                old.into_mut()
            }
            indexmap::map::Entry::Vacant(free) => free.insert(entry),
        })
    }

    /// A DELETE_COMPLETE stack leaves the name index and loses its change sets.
    pub fn retire_stack(&mut self, stack_id: &StackId) {
        let Some(entry) = self.stacks.get(stack_id) else {
            return;
        };
        let name = entry.record.stack_name.clone();
        if self.live.get(&name) == Some(stack_id) {
            self.live.remove(&name);
        }
        self.drop_change_sets(stack_id, None);
    }

    /// Adds a computed change set: CREATE_PENDING → CREATE_IN_PROGRESS → CREATE_COMPLETE
    /// (UNAVAILABLE → AVAILABLE), or → FAILED with the reason, staying UNAVAILABLE.
    pub fn add_change_set(
        &mut self,
        mut record: ChangeSetRecord,
        template: Option<Template>,
        plan: Option<Arc<Plan>>,
        outcome: ChangeSetOutcome,
    ) -> Result<(), IllegalTransition> {
        let steps: &[ChangeSetStatus] = match outcome {
            ChangeSetOutcome::Computed => &[
                ChangeSetStatus::CreateInProgress,
                ChangeSetStatus::CreateComplete,
            ],
            ChangeSetOutcome::Failed(_) => {
                &[ChangeSetStatus::CreateInProgress, ChangeSetStatus::Failed]
            }
        };
        for to in steps {
            record.status = record
                .status
                .transition(*to)
                .map_err(|e| self.sink.refuse(e, &record.change_set_name))?;
        }
        match outcome {
            ChangeSetOutcome::Computed => {
                record.execution_status = record
                    .execution_status
                    .transition(ExecutionStatus::Available)
                    .map_err(|e| self.sink.refuse(e, &record.change_set_name))?;
            }
            ChangeSetOutcome::Failed(reason) => record.status_reason = Some(reason),
        }
        let entry = ChangeSetEntry {
            record,
            template,
            plan,
            sink: self.sink.clone(),
        };
        entry.save();
        self.change_sets
            .insert(entry.record.change_set_id.clone(), entry);
        Ok(())
    }

    /// Moves the change set `change_set_id` to `to` (see [`ChangeSetEntry::set_execution_status`]);
    /// nothing when it is gone.
    pub fn set_execution_status(
        &mut self,
        change_set_id: &str,
        to: ExecutionStatus,
    ) -> Result<(), IllegalTransition> {
        match self.change_sets.get_mut(change_set_id) {
            Some(cs) => cs.set_execution_status(to),
            None => Ok(()),
        }
    }

    /// The executable change sets of `stack_id` (but `except`) become OBSOLETE: the stack
    /// changed underneath them.
    pub fn obsolete_change_sets(&mut self, stack_id: &StackId, except: Option<&str>) {
        for cs in self.change_sets.values_mut() {
            if &cs.record.stack_id == stack_id
                && cs.record.execution_status == ExecutionStatus::Available
                && Some(cs.record.change_set_id.as_str()) != except
            {
                let _ = cs.set_execution_status(ExecutionStatus::Obsolete);
            }
        }
    }

    /// Deletes the change sets of `stack_id` but `except` (after one is executed; with the
    /// stack).
    pub fn drop_change_sets(&mut self, stack_id: &StackId, except: Option<&str>) {
        let storage = &self.sink.storage;
        self.change_sets.retain(|id, cs| {
            let keep = &cs.record.stack_id != stack_id || Some(id.as_str()) == except;
            if !keep {
                storage.delete(CHANGE_SETS, id);
            }
            keep
        });
    }

    /// Deletes one change set (DeleteChangeSet).
    pub fn remove_change_set(&mut self, change_set_id: &str) {
        self.change_sets.shift_remove(change_set_id);
        self.sink.storage.delete(CHANGE_SETS, change_set_id);
    }
}

impl StackEntry {
    /// An entry for `record`, without resources or events.
    pub(super) fn new(record: StackRecord, template: Option<Template>, sink: Sink) -> StackEntry {
        StackEntry {
            record,
            template,
            resources: Default::default(),
            events: Vec::new(),
            event_ids: Default::default(),
            operation: None,
            sink,
        }
    }

    // ------------------------------------------------------------------- reads

    /// The stack's status.
    pub fn status(&self) -> StackStatus {
        self.record.status
    }

    /// The stack's id.
    pub fn stack_id(&self) -> &StackId {
        &self.record.stack_id
    }

    /// Resources by logical id, in dependency (creation) order.
    pub fn resources(&self) -> &indexmap::IndexMap<LogicalId, ResourceRecord> {
        &self.resources
    }

    /// One resource.
    pub fn resource(&self, logical_id: &str) -> Option<&ResourceRecord> {
        self.resources.get(logical_id)
    }

    /// The event log, oldest first.
    pub fn events(&self) -> &[StackEventRecord] {
        &self.events
    }

    /// The timestamp of the stack's latest event.
    pub fn last_event_time(&self) -> Option<DateTime<Utc>> {
        self.events.last().map(|e| e.timestamp)
    }

    /// The operation running on the stack, if any.
    pub fn operation(&self) -> Option<&Arc<OperationControl>> {
        self.operation.as_ref()
    }

    // ------------------------------------------------------------------- operations

    /// Registers the operation now running on the stack (one at a time: the callers refuse a
    /// second with AWS's message first).
    pub fn begin_operation(&mut self, control: Arc<OperationControl>) {
        debug_assert!(self.operation.is_none(), "one operation per stack");
        self.operation = Some(control);
    }

    /// The operation `control` ended (a later one is left alone).
    pub fn end_operation(&mut self, control: &Arc<OperationControl>) {
        if self
            .operation
            .as_ref()
            .is_some_and(|op| Arc::ptr_eq(op, control))
        {
            self.operation = None;
        }
    }

    // ------------------------------------------------------------------- stack status

    /// Moves the stack to `to` with `reason` through the state machine, appends the stack
    /// event and persists the record. DELETE_COMPLETE also sets the DeletionTime (the event's
    /// time). Refused, changing nothing, when the machine has no such edge.
    pub fn set_status(
        &mut self,
        to: StackStatus,
        reason: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<(), IllegalTransition> {
        let from = self.record.status;
        if let Err(err) = from.transition(to) {
            return Err(self.sink.refuse(err, &self.record.stack_name));
        }
        self.record.status = to;
        self.record.status_reason = reason.clone();
        let name = self.record.stack_name.clone();
        let id = self.record.stack_id.clone();
        let at = self.push_event(
            EventSpec {
                logical_id: &name,
                physical_id: id.as_str(),
                resource_type: STACK_TYPE,
                status: EventStatus::Stack(to),
                reason,
                properties: None,
            },
            now,
        );
        if to == StackStatus::DeleteComplete {
            self.record.deletion_time = Some(at);
        }
        self.save();
        Ok(())
    }

    /// Replaces the stack's settings with `record`'s (a CreateStack taking over a
    /// REVIEW_IN_PROGRESS stack), keeping its status, resources and events.
    pub fn replace_settings(&mut self, mut record: StackRecord) {
        record.status = self.record.status;
        record.status_reason = self.record.status_reason.take();
        record.stack_id = self.record.stack_id.clone();
        self.record = record;
        self.save();
    }

    // ------------------------------------------------------------------- resources

    /// Starts creating `record` (CREATE_IN_PROGRESS, its event with PhysicalResourceId `""` and
    /// the properties): a new resource, or a new attempt over one whose creation failed.
    pub fn begin_create_resource(
        &mut self,
        mut record: ResourceRecord,
        now: DateTime<Utc>,
    ) -> Result<(), IllegalTransition> {
        let to = ResourceStatus::CreateInProgress;
        if let Some(old) = self.resources.get(&record.logical_id) {
            if old.status != to {
                if let Err(err) = old.status.transition(to) {
                    return Err(self.sink.refuse(err, record.logical_id.as_str()));
                }
            }
        }
        record.status = to;
        record.status_reason = None;
        let logical_id = record.logical_id.clone();
        let properties = Some(record.properties.to_string());
        let type_name = record.type_name.clone();
        let at = self.push_event(
            EventSpec {
                logical_id: logical_id.as_str(),
                physical_id: "",
                resource_type: &type_name,
                status: EventStatus::Resource(to),
                reason: None,
                properties,
            },
            now,
        );
        record.last_updated = at;
        self.resources.insert(logical_id.clone(), record);
        self.save_resource(logical_id.as_str());
        Ok(())
    }

    /// Moves the resource `logical_id` to `event.status` through the state machine after `edit`
    /// changed its record, appends its event and persists it. Repeating the current status (the
    /// second CREATE_IN_PROGRESS of a creation, the UPDATE_IN_PROGRESS steps of a replacement)
    /// is an event, not an edge. Refused, changing nothing, for an edge the machine lacks or an
    /// unknown resource.
    pub fn set_resource_status(
        &mut self,
        logical_id: &str,
        event: ResourceEvent<'_>,
        now: DateTime<Utc>,
        edit: impl FnOnce(&mut ResourceRecord),
    ) -> Result<(), IllegalTransition> {
        let to = event.status;
        let Some(res) = self.resources.get_mut(logical_id) else {
            let err = transition_error("resource", to.as_str());
            return Err(self.sink.refuse(err, logical_id));
        };
        if res.status != to {
            if let Err(err) = res.status.transition(to) {
                return Err(self.sink.refuse(err, logical_id));
            }
        }
        edit(res);
        res.status = to;
        res.status_reason = event.reason.clone();
        let physical = event
            .physical_id
            .map(str::to_string)
            .unwrap_or_else(|| res.physical_text().to_string());
        let type_name = res.type_name.clone();
        let properties = event.with_properties.then(|| res.properties.to_string());
        let at = self.push_event(
            EventSpec {
                logical_id,
                physical_id: &physical,
                resource_type: &type_name,
                status: EventStatus::Resource(to),
                reason: event.reason,
                properties,
            },
            now,
        );
        if let Some(res) = self.resources.get_mut(logical_id) {
            res.last_updated = at;
        }
        self.save_resource(logical_id);
        Ok(())
    }

    /// An event about a physical resource the stack no longer points at (the old copy of a
    /// replaced or moved resource, deleted at cleanup): its record is `displaced`, not in the
    /// stack's resources, so no status changes.
    pub fn displaced_event(
        &mut self,
        displaced: &ResourceRecord,
        status: ResourceStatus,
        reason: Option<String>,
        now: DateTime<Utc>,
    ) {
        self.push_event(
            EventSpec {
                logical_id: displaced.logical_id.as_str(),
                physical_id: displaced.physical_text(),
                resource_type: &displaced.type_name,
                status: EventStatus::Resource(status),
                reason,
                properties: None,
            },
            now,
        );
    }

    /// Forgets a resource (deleted at cleanup, or an addition a rollback removed).
    pub fn remove_resource(&mut self, logical_id: &str) {
        self.resources.shift_remove(logical_id);
        self.save_resource(logical_id);
    }

    /// Puts the resources in `order` (ids not in it last) and persists the new positions.
    pub fn order_resources<S: AsRef<str>>(&mut self, order: &[S]) {
        let position: std::collections::HashMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_ref(), i))
            .collect();
        self.resources
            .sort_by_cached_key(|k, _| position.get(k.as_str()).copied().unwrap_or(usize::MAX));
        self.save_all_resources();
    }

    // ------------------------------------------------------------------- persistence

    /// Persists the stack record.
    pub fn save(&self) {
        self.sink
            .storage
            .put(STACKS, self.record.stack_id.as_str(), &self.record);
    }

    /// Persists one resource (with its position in the stack's dependency order).
    pub(super) fn save_resource(&self, logical_id: &str) {
        let key = format!("{}|{logical_id}", self.record.stack_id);
        match self.resources.get_full(logical_id) {
            Some((position, _, record)) => self.sink.storage.put(
                RESOURCES,
                &key,
                &StoredResourceRef {
                    stack_id: &self.record.stack_id,
                    position,
                    record,
                },
            ),
            None => self.sink.storage.delete(RESOURCES, &key),
        }
    }

    /// Persists every resource (after the order changed).
    fn save_all_resources(&self) {
        if self.sink.storage.is_durable() {
            for logical_id in self.resources.keys() {
                self.save_resource(logical_id.as_str());
            }
        }
    }

    /// When the next event happens: `now`, or 1 ms after the stack's latest event when that is
    /// not earlier (a manual clock that does not move, or several events in one millisecond).
    fn event_time(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        match self.events.last() {
            Some(last) if last.timestamp + TimeDelta::milliseconds(1) > now => {
                last.timestamp + TimeDelta::milliseconds(1)
            }
            _ => now,
        }
    }

    /// Appends an event (the EventId follows AWS's forms) and persists it; answers its time.
    fn push_event(&mut self, spec: EventSpec<'_>, now: DateTime<Utc>) -> DateTime<Utc> {
        let at = self.event_time(now);
        let status = spec.status.as_str();
        let stack_event = matches!(spec.status, EventStatus::Stack(_))
            && spec.resource_type == STACK_TYPE
            && spec.logical_id == self.record.stack_name;
        let event_id = if stack_event {
            self.sink.ids.uuid()
        } else {
            let natural = format!(
                "{}-{status}-{}",
                spec.logical_id,
                crate::time::iso_millis(at)
            );
            if status.starts_with("DELETE_") || self.event_ids.contains(&natural) {
                format!("{}-{}", spec.logical_id, self.sink.ids.uuid())
            } else {
                natural
            }
        };
        self.event_ids.insert(event_id.clone());
        let seq = self.events.len() as u64;
        let stored = StoredEvent {
            stack_id: self.record.stack_id.clone(),
            event: StackEventRecord {
                seq,
                event_id,
                logical_id: spec.logical_id.to_string(),
                physical_id: spec.physical_id.to_string(),
                resource_type: spec.resource_type.to_string(),
                timestamp: at,
                status: status.to_string(),
                reason: spec.reason,
                properties: spec.properties,
            },
        };
        self.sink.storage.put(
            EVENTS,
            &format!("{}|{seq:012}", self.record.stack_id),
            &stored,
        );
        self.events.push(stored.event);
        at
    }

    /// Adds an event read back from the durable store.
    pub(super) fn load_event(&mut self, event: StackEventRecord) {
        self.event_ids.insert(event.event_id.clone());
        self.events.push(event);
    }

    /// Adds a resource read back from the durable store.
    pub(super) fn load_resource(&mut self, record: ResourceRecord) {
        self.resources.insert(record.logical_id.clone(), record);
    }

    /// A status a restart left in progress is over: the stack to `to` with `reason`.
    pub(super) fn interrupt(
        &mut self,
        to: StackStatus,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<(), IllegalTransition> {
        self.set_status(to, Some(reason.to_string()), now)
    }

    /// A resource a restart left in progress is over: to its `*_FAILED` status with `reason`.
    pub(super) fn interrupt_resource(
        &mut self,
        logical_id: &str,
        to: ResourceStatus,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<(), IllegalTransition> {
        self.set_resource_status(
            logical_id,
            ResourceEvent::new(to).reason(reason),
            now,
            |_| {},
        )
    }
}

impl ChangeSetEntry {
    /// Moves the change set's ExecutionStatus to `to` through its state machine and persists
    /// it. Refused, changing nothing, for an edge the machine lacks.
    pub fn set_execution_status(&mut self, to: ExecutionStatus) -> Result<(), IllegalTransition> {
        let from = self.record.execution_status;
        if let Err(err) = from.transition(to) {
            return Err(self.sink.refuse(err, &self.record.change_set_name));
        }
        self.record.execution_status = to;
        self.save();
        Ok(())
    }

    /// Persists the change set.
    pub fn save(&self) {
        self.sink
            .storage
            .put(CHANGE_SETS, &self.record.change_set_id, &self.record);
    }

    /// An entry read back from the durable store.
    pub(super) fn loaded(record: ChangeSetRecord, sink: Sink) -> ChangeSetEntry {
        ChangeSetEntry {
            record,
            template: None,
            plan: None,
            sink,
        }
    }
}
