//! The stack store: per (account, region), every stack by StackId (deleted ones kept, reachable
//! by id), the name → live stack index, change sets, exports, and each stack's resources and
//! event log. Plain synchronous data behind the CloudFormation handle's one `Mutex`; every
//! mutation goes through a method here that also hands the changed entity to
//! `crate::storage` (tables [`STACKS`], [`RESOURCES`], [`EVENTS`], [`CHANGE_SETS`]) while the
//! lock is held. No provider calls, no awaits, no wire shapes.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use indexmap::IndexMap;

use crate::ids::{IdGen, Scope};
use crate::storage::Storage;

use serde::{Deserialize, Serialize};

use super::engine::OperationControl;

use super::model::{ChangeSetRecord, Export, ResourceRecord, StackEventRecord, StackRecord};
use super::plan::Plan;
use super::status::StackStatus;
use super::template::Template;

/// Durable table of stack records, keyed by StackId.
pub const STACKS: &str = "cloudformation_stacks";
/// Durable table of resources, keyed by `<StackId>|<LogicalId>`.
pub const RESOURCES: &str = "cloudformation_resources";
/// Durable table of stack events, keyed by `<StackId>|<seq, 12 digits>`.
pub const EVENTS: &str = "cloudformation_events";
/// Durable table of change sets, keyed by change-set id.
pub const CHANGE_SETS: &str = "cloudformation_change_sets";

/// The resource type of stack-level events.
pub const STACK_TYPE: &str = "AWS::CloudFormation::Stack";

/// The status reason of a stack, and of its resources, whose operation a restart cut short.
const INTERRUPTED: &str = "The operation was interrupted by a restart of Cumulo.";

/// Everything CloudFormation keeps.
#[derive(Default)]
pub struct State {
    regions: HashMap<Scope, Region>,
}

/// One account and region.
#[derive(Default)]
pub struct Region {
    /// Every stack by id, in creation order (deleted ones too).
    pub stacks: IndexMap<String, StackEntry>,
    /// Stack name → id of the stack that is not DELETE_COMPLETE.
    pub live: HashMap<String, String>,
    /// Change sets by id, in creation order.
    pub change_sets: IndexMap<String, ChangeSetEntry>,
    /// Exports by name.
    pub exports: IndexMap<String, Export>,
}

/// One stack with its resources and events.
pub struct StackEntry {
    /// The stack-level record.
    pub record: StackRecord,
    /// Resources by logical id, in dependency (creation) order.
    pub resources: IndexMap<String, ResourceRecord>,
    /// The event log, oldest first.
    pub events: Vec<StackEventRecord>,
    /// Event ids used so far (EventIds must be unique even when timestamps are equal).
    pub event_ids: HashSet<String>,
    /// The parsed current template (a cache of `record.template_body`).
    pub template: Option<Template>,
    /// The operation running on this stack, if any.
    pub operation: Option<Arc<OperationControl>>,
}

/// One change set with its parsed template and computed plan.
pub struct ChangeSetEntry {
    /// The record DescribeChangeSet shows.
    pub record: ChangeSetRecord,
    /// The parsed template (a cache of `record.template_body`).
    pub template: Option<Template>,
    /// What executing it does.
    pub plan: Option<Arc<Plan>>,
}

impl State {
    /// The region of `scope`, created empty on first use.
    pub fn region(&mut self, scope: &Scope) -> &mut Region {
        self.regions.entry(scope.clone()).or_default()
    }

    /// The region of `scope`, if anything was ever stored there.
    pub fn region_ref(&self, scope: &Scope) -> Option<&Region> {
        self.regions.get(scope)
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.regions.clear();
    }
}

impl Region {
    /// The stack named by `name_or_id`: a StackId finds any stack (deleted too), a name only the
    /// live one.
    pub fn find(&self, name_or_id: &str) -> Option<&StackEntry> {
        self.find_id(name_or_id).and_then(|id| self.stacks.get(id))
    }

    /// The StackId `name_or_id` names (see [`Region::find`]).
    pub fn find_id<'a>(&'a self, name_or_id: &'a str) -> Option<&'a str> {
        if name_or_id.starts_with("arn:") {
            self.stacks
                .get_key_value(name_or_id)
                .map(|(k, _)| k.as_str())
        } else {
            self.live.get(name_or_id).map(String::as_str)
        }
    }

    /// Mutable access to a stack by id.
    pub fn stack_mut(&mut self, stack_id: &str) -> Option<&mut StackEntry> {
        self.stacks.get_mut(stack_id)
    }

    /// The change set named by `name_or_arn` (an ARN finds it alone; a name needs the stack).
    pub fn find_change_set(
        &self,
        name_or_arn: &str,
        stack_id: Option<&str>,
    ) -> Option<&ChangeSetEntry> {
        if name_or_arn.starts_with("arn:") {
            return self.change_sets.get(name_or_arn);
        }
        let stack_id = stack_id?;
        // The newest of that name (an executed one's name may be used again).
        self.change_sets
            .values()
            .rev()
            .find(|cs| cs.record.stack_id == stack_id && cs.record.change_set_name == name_or_arn)
    }

    /// Export names of `stack_id` that other live stacks import, each with the importing stack
    /// names (for the "in use" refusals).
    pub fn exports_in_use(&self, stack_id: &str) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for export in self
            .exports
            .values()
            .filter(|e| e.exporting_stack_id == stack_id)
        {
            let importers = self.importers(&export.name, Some(stack_id));
            if !importers.is_empty() {
                out.push((export.name.clone(), importers));
            }
        }
        out
    }

    /// Names of the live stacks importing `export_name`, in creation order, except `except`.
    pub fn importers(&self, export_name: &str, except: Option<&str>) -> Vec<String> {
        self.live
            .values()
            .filter(|id| Some(id.as_str()) != except)
            .filter_map(|id| self.stacks.get(id))
            .filter(|s| s.record.imports.iter().any(|i| i == export_name))
            .map(|s| (s.record.creation_time, s.record.stack_name.clone()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    }
}

impl StackEntry {
    /// A new stack entry for `record`.
    pub fn new(record: StackRecord, template: Option<Template>) -> StackEntry {
        StackEntry {
            record,
            resources: IndexMap::new(),
            events: Vec::new(),
            event_ids: HashSet::new(),
            template,
            operation: None,
        }
    }

    /// Persists the stack record.
    pub fn save(&self, storage: &Storage) {
        storage.put(STACKS, &self.record.stack_id, &self.record);
    }

    /// Persists one resource (with its position in the stack's dependency order).
    pub fn save_resource(&self, storage: &Storage, logical_id: &str) {
        let key = format!("{}|{logical_id}", self.record.stack_id);
        match self.resources.get_full(logical_id) {
            Some((position, _, record)) => storage.put(
                RESOURCES,
                &key,
                &StoredResourceRef {
                    stack_id: &self.record.stack_id,
                    position,
                    record,
                },
            ),
            None => storage.delete(RESOURCES, &key),
        }
    }

    /// Persists every resource (after the order changed).
    pub fn save_all_resources(&self, storage: &Storage) {
        if storage.is_durable() {
            for logical_id in self.resources.keys() {
                self.save_resource(storage, logical_id);
            }
        }
    }

    /// Appends an event (the timestamp is `now`; the EventId follows AWS's forms) and persists it.
    #[allow(clippy::too_many_arguments)]
    pub fn push_event(
        &mut self,
        storage: &Storage,
        ids: &IdGen,
        now: DateTime<Utc>,
        logical_id: &str,
        physical_id: &str,
        resource_type: &str,
        status: &str,
        reason: Option<String>,
        properties: Option<String>,
    ) {
        let event_id = if resource_type == STACK_TYPE && logical_id == self.record.stack_name {
            ids.uuid()
        } else {
            let natural = format!("{logical_id}-{status}-{}", crate::time::iso_millis(now));
            if status.starts_with("DELETE_") || self.event_ids.contains(&natural) {
                format!("{logical_id}-{}", ids.uuid())
            } else {
                natural
            }
        };
        self.event_ids.insert(event_id.clone());
        let seq = self.events.len() as u64;
        let event = StackEventRecord {
            seq,
            event_id,
            logical_id: logical_id.to_string(),
            physical_id: physical_id.to_string(),
            resource_type: resource_type.to_string(),
            timestamp: now,
            status: status.to_string(),
            reason,
            properties,
        };
        let stored = StoredEvent {
            stack_id: self.record.stack_id.clone(),
            event,
        };
        storage.put(
            EVENTS,
            &format!("{}|{seq:012}", self.record.stack_id),
            &stored,
        );
        self.events.push(stored.event);
    }
}

/// A resource as the durable store keeps it (written).
#[derive(Serialize)]
struct StoredResourceRef<'a> {
    stack_id: &'a str,
    position: usize,
    record: &'a ResourceRecord,
}

/// A resource as the durable store keeps it (read back).
#[derive(Deserialize)]
struct StoredResource {
    stack_id: String,
    position: usize,
    record: ResourceRecord,
}

/// An event as the durable store keeps it: the event and its stack.
#[derive(Serialize, Deserialize)]
struct StoredEvent {
    stack_id: String,
    event: StackEventRecord,
}

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

impl State {
    /// Everything `storage` kept: stacks (an operation cut short by a restart leaves its stack
    /// in the matching failed status, from which DeleteStack, RollbackStack or
    /// ContinueUpdateRollback recover), their resources in dependency order and events, change
    /// sets, and the exports of live stacks. A resource left `*_IN_PROGRESS` by the cut-short
    /// operation loads in the matching `*_FAILED` status with the stack's reason; each such
    /// change, and the stack's, gets an event stamped `now` (UTC) with ids from `ids`.
    pub fn load(storage: &Storage, ids: &IdGen, now: DateTime<Utc>) -> State {
        let mut state = State::default();
        if !storage.is_durable() {
            return state;
        }
        // Stacks whose operation a restart cut short: (scope, stack id, status reached).
        let mut cut_short: Vec<(Scope, String, StackStatus)> = Vec::new();
        for (_, mut record) in storage.load::<StackRecord>(STACKS) {
            let Some(scope) = scope_of(&record.stack_id) else {
                continue;
            };
            let interrupted = match record.status {
                StackStatus::CreateInProgress => Some(StackStatus::CreateFailed),
                StackStatus::UpdateInProgress => Some(StackStatus::UpdateFailed),
                StackStatus::DeleteInProgress => Some(StackStatus::DeleteFailed),
                StackStatus::RollbackInProgress => Some(StackStatus::RollbackFailed),
                StackStatus::UpdateRollbackInProgress => Some(StackStatus::UpdateRollbackFailed),
                StackStatus::UpdateCompleteCleanupInProgress => Some(StackStatus::UpdateComplete),
                StackStatus::UpdateRollbackCompleteCleanupInProgress => {
                    Some(StackStatus::UpdateRollbackComplete)
                }
                _ => None,
            };
            if let Some(status) = interrupted {
                record.status = status;
                record.status_reason = Some(INTERRUPTED.to_string());
                cut_short.push((scope.clone(), record.stack_id.clone(), status));
                if matches!(
                    status,
                    StackStatus::UpdateComplete | StackStatus::UpdateRollbackComplete
                ) {
                    record.journal = None;
                }
                storage.put(STACKS, &record.stack_id, &record);
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
            region
                .stacks
                .insert(record.stack_id.clone(), StackEntry::new(record, None));
        }
        let mut resources = storage.load::<StoredResource>(RESOURCES);
        resources.sort_by_key(|(_, r)| r.position);
        // Resources a restart cut short: (scope, stack id, logical id), in load order.
        let mut failed_resources: Vec<(Scope, String, String)> = Vec::new();
        for (_, mut stored) in resources {
            let Some(scope) = scope_of(&stored.stack_id) else {
                continue;
            };
            let Some(entry) = state
                .regions
                .get_mut(&scope)
                .and_then(|r| r.stacks.get_mut(&stored.stack_id))
            else {
                continue;
            };
            if let Some(failed) = stored.record.status.interrupted() {
                stored.record.status = failed;
                stored.record.status_reason = Some(INTERRUPTED.to_string());
                stored.record.last_updated = now;
                failed_resources.push((
                    scope,
                    stored.stack_id.clone(),
                    stored.record.logical_id.clone(),
                ));
            }
            entry
                .resources
                .insert(stored.record.logical_id.clone(), stored.record);
        }
        let mut events = storage.load::<StoredEvent>(EVENTS);
        events.sort_by_key(|(_, e)| e.event.seq);
        for (_, stored) in events {
            if let Some(entry) = scope_of(&stored.stack_id)
                .and_then(|scope| state.regions.get_mut(&scope))
                .and_then(|r| r.stacks.get_mut(&stored.stack_id))
            {
                entry.event_ids.insert(stored.event.event_id.clone());
                entry.events.push(stored.event);
            }
        }
        for (scope, stack_id, logical_id) in failed_resources {
            let Some(entry) = state.region(&scope).stack_mut(&stack_id) else {
                continue;
            };
            entry.save_resource(storage, &logical_id);
            let Some(r) = entry.resources.get(&logical_id) else {
                continue;
            };
            let (physical, type_name, status) = (
                r.physical_id.clone().unwrap_or_default(),
                r.type_name.clone(),
                r.status.as_str(),
            );
            entry.push_event(
                storage,
                ids,
                now,
                &logical_id,
                &physical,
                &type_name,
                status,
                Some(INTERRUPTED.to_string()),
                None,
            );
        }
        for (scope, stack_id, status) in cut_short {
            let Some(entry) = state.region(&scope).stack_mut(&stack_id) else {
                continue;
            };
            let name = entry.record.stack_name.clone();
            entry.push_event(
                storage,
                ids,
                now,
                &name,
                &stack_id,
                STACK_TYPE,
                status.as_str(),
                Some(INTERRUPTED.to_string()),
                None,
            );
        }
        let mut change_sets = storage.load::<ChangeSetRecord>(CHANGE_SETS);
        change_sets.sort_by_key(|(_, cs)| cs.creation_time);
        for (_, record) in change_sets {
            if let Some(scope) = scope_of(&record.change_set_id) {
                state.region(&scope).change_sets.insert(
                    record.change_set_id.clone(),
                    ChangeSetEntry {
                        record,
                        template: None,
                        plan: None,
                    },
                );
            }
        }
        state
    }
}

impl ChangeSetEntry {
    /// Persists the change set.
    pub fn save(&self, storage: &Storage) {
        storage.put(CHANGE_SETS, &self.record.change_set_id, &self.record);
    }
}

/// Decodes a `NextToken` this store issued (an offset); `None` when absent.
pub fn page_offset(token: Option<&str>) -> Result<usize, super::Error> {
    match token {
        None | Some("") => Ok(0),
        Some(t) => t
            .strip_prefix("cumulo-")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| super::Error::validation(format!("Invalid NextToken: {t}"))),
    }
}

/// One page of `items` from `offset`, `size` long, with the token of the next page.
pub fn paginate<T: Clone>(items: &[T], offset: usize, size: usize) -> super::model::Page<T> {
    let end = offset.saturating_add(size).min(items.len());
    let start = offset.min(items.len());
    super::model::Page {
        items: items[start..end].to_vec(),
        next_token: (end < items.len()).then(|| format!("cumulo-{end}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_cut_short_by_a_restart_loads_failed() {
        use crate::cloudformation::model::RollbackConfiguration;
        let storage = crate::services::test_backend::storage();
        let record = |name: &str, status: StackStatus| StackRecord {
            stack_id: format!("arn:aws:cloudformation:eu-west-1:123456789012:stack/{name}/1"),
            stack_name: name.into(),
            status,
            status_reason: None,
            creation_time: chrono::DateTime::UNIX_EPOCH,
            last_updated_time: None,
            deletion_time: None,
            change_set_id: None,
            template_body: String::new(),
            description: None,
            bound_parameters: None,
            parameters: Vec::new(),
            capabilities: Vec::new(),
            notification_arns: Vec::new(),
            tags: Vec::new(),
            outputs: Vec::new(),
            disable_rollback: false,
            timeout_in_minutes: None,
            role_arn: None,
            enable_termination_protection: false,
            stack_policy_body: None,
            rollback_configuration: RollbackConfiguration::default(),
            retain_except_on_create: false,
            imports: Vec::new(),
            journal: None,
        };
        for (name, status) in [
            ("a", StackStatus::UpdateInProgress),
            ("b", StackStatus::CreateComplete),
            ("c", StackStatus::DeleteComplete),
        ] {
            let r = record(name, status);
            storage.put(STACKS, &r.stack_id, &r);
        }
        let mut state = State::load(&storage, &IdGen::default(), chrono::DateTime::UNIX_EPOCH);
        let region = state.region(&Scope::new("123456789012", "eu-west-1"));
        let a = region.find("a").unwrap();
        assert_eq!(a.record.status, StackStatus::UpdateFailed);
        assert!(a.record.status_reason.is_some());
        assert_eq!(
            region.find("b").unwrap().record.status,
            StackStatus::CreateComplete
        );
        assert!(
            region.find("c").is_none(),
            "deleted stacks are found by id only"
        );
        assert!(region
            .find("arn:aws:cloudformation:eu-west-1:123456789012:stack/c/1")
            .is_some());
    }

    #[test]
    fn pages_carry_a_token_until_the_end() {
        let items: Vec<u32> = (0..250).collect();
        let first = paginate(&items, page_offset(None).unwrap(), 100);
        assert_eq!(first.items.len(), 100);
        let second = paginate(
            &items,
            page_offset(first.next_token.as_deref()).unwrap(),
            100,
        );
        assert_eq!(second.items[0], 100);
        let third = paginate(
            &items,
            page_offset(second.next_token.as_deref()).unwrap(),
            100,
        );
        assert_eq!(third.items.len(), 50);
        assert_eq!(third.next_token, None);
        assert!(page_offset(Some("garbage")).is_err());
        assert!(paginate(&items, 999, 100).items.is_empty());
    }
}
