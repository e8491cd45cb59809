//! The stack store: per (account, region), every stack by StackId (deleted ones kept, reachable
//! by id), the name → live stack index, change sets, exports, and each stack's resources and
//! event log. Plain synchronous data behind the CloudFormation handle's one `Mutex`.
//!
//! The store owns the stack lifecycle ([`lifecycle`]): a stack's, a resource's and a change
//! set's status change only through its methods (`set_status`, `set_resource_status`,
//! `set_execution_status`, ...), which go through the transition functions of `status` and
//! refuse an edge AWS never takes (nothing changes; the refusal is logged and counted, see
//! [`Sink::refused`]). Every change hands the changed entity to `crate::storage` (tables
//! [`STACKS`], [`RESOURCES`], [`EVENTS`], [`CHANGE_SETS`]) while the lock is held, and every
//! event gets a timestamp after the stack's previous one. No provider calls, no awaits, no wire
//! shapes.

mod lifecycle;
mod load;
pub mod records;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use indexmap::IndexMap;

use crate::ids::{IdGen, Scope};
use crate::storage::Storage;

use super::control::OperationControl;
use super::error::Error;
use super::id::StackId;
use super::model::{Export, Page, Plan};
use super::status::IllegalTransition;
use super::template::Template;

pub use lifecycle::{ChangeSetOutcome, ResourceEvent};
pub use records::{
    ChangeSetRecord, JournalEntry, ResourceRecord, StackEventRecord, StackRecord,
    StackResourceView, StepKind, UpdateJournal,
};

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

/// Where the store's changes go: the durable store, the id generator for event ids, and the
/// count of refused transitions. Cheap to clone (handles); every entry keeps one.
#[derive(Clone, Debug, Default)]
pub struct Sink {
    storage: Storage,
    ids: IdGen,
    refused: Arc<AtomicU64>,
}

impl Sink {
    /// A sink writing to `storage`, drawing event ids from `ids`.
    pub fn new(storage: Storage, ids: IdGen) -> Sink {
        Sink {
            storage,
            ids,
            refused: Arc::default(),
        }
    }

    /// How many status changes the store refused since it started (each one is an engine bug,
    /// also logged at error level).
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Logs and counts a refused transition; hands it back for the caller's `Err`.
    fn refuse(&self, err: IllegalTransition, subject: &str) -> IllegalTransition {
        self.refused.fetch_add(1, Ordering::Relaxed);
        tracing::error!(%err, subject, "refused status change");
        err
    }
}

/// Everything CloudFormation keeps.
#[derive(Default)]
pub struct State {
    regions: HashMap<Scope, Region>,
    sink: Sink,
}

/// One account and region. Its maps change only through the store's methods.
#[derive(Default)]
pub struct Region {
    /// Every stack by id, in creation order (deleted ones too).
    stacks: IndexMap<StackId, StackEntry>,
    /// Stack name → id of the stack that is not DELETE_COMPLETE.
    live: HashMap<String, StackId>,
    /// Change sets by id, in creation order.
    change_sets: IndexMap<String, ChangeSetEntry>,
    /// Exports by name.
    exports: IndexMap<String, Export>,
    sink: Sink,
}

/// One stack with its resources and events. The record's status, the resources and the
/// events change only through the lifecycle methods (`lifecycle.rs`).
pub struct StackEntry {
    /// The stack-level record (its status fields are the store's).
    pub record: StackRecord,
    /// The parsed current template (a cache of `record.template_body`).
    pub template: Option<Template>,
    /// Resources by logical id, in dependency (creation) order.
    resources: IndexMap<super::id::LogicalId, ResourceRecord>,
    /// The event log, oldest first.
    events: Vec<StackEventRecord>,
    /// Event ids used so far (EventIds must be unique).
    event_ids: std::collections::HashSet<String>,
    /// The operation running on this stack, if any.
    operation: Option<Arc<OperationControl>>,
    sink: Sink,
}

/// One change set with its parsed template and computed plan.
pub struct ChangeSetEntry {
    /// The record DescribeChangeSet shows (its status fields are the store's).
    pub record: ChangeSetRecord,
    /// The parsed template (a cache of `record.template_body`).
    pub template: Option<Template>,
    /// What executing it does.
    pub plan: Option<Arc<Plan>>,
    sink: Sink,
}

impl State {
    /// An empty store writing to `sink`.
    pub fn new(sink: Sink) -> State {
        State {
            regions: HashMap::new(),
            sink,
        }
    }

    /// The region of `scope`, created empty on first use.
    pub fn region(&mut self, scope: &Scope) -> &mut Region {
        let sink = &self.sink;
        self.regions.entry(scope.clone()).or_insert_with(|| Region {
            sink: sink.clone(),
            ..Region::default()
        })
    }

    /// The region of `scope`, if anything was ever stored there.
    pub fn region_ref(&self, scope: &Scope) -> Option<&Region> {
        self.regions.get(scope)
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.regions.clear();
    }

    /// How many status changes were refused (see [`Sink::refused`]).
    pub fn refused_transitions(&self) -> u64 {
        self.sink.refused()
    }
}

impl Region {
    /// Every stack by id, in creation order (deleted ones too).
    pub fn stacks(&self) -> &IndexMap<StackId, StackEntry> {
        &self.stacks
    }

    /// The stack `stack_id` (deleted ones too).
    pub fn stack(&self, stack_id: &str) -> Option<&StackEntry> {
        self.stacks.get(stack_id)
    }

    /// Change sets by id, in creation order.
    pub fn change_sets(&self) -> &IndexMap<String, ChangeSetEntry> {
        &self.change_sets
    }

    /// Exports by name.
    pub fn exports(&self) -> &IndexMap<String, Export> {
        &self.exports
    }

    /// The stack named by `name_or_id`: a StackId finds any stack (deleted too), a name only the
    /// live one.
    pub fn find(&self, name_or_id: &str) -> Option<&StackEntry> {
        self.find_id(name_or_id).and_then(|id| self.stacks.get(id))
    }

    /// The StackId `name_or_id` names (see [`Region::find`]).
    pub fn find_id(&self, name_or_id: &str) -> Option<&StackId> {
        if name_or_id.starts_with("arn:") {
            self.stacks.get_key_value(name_or_id).map(|(k, _)| k)
        } else {
            self.live.get(name_or_id)
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
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    }

    /// Replaces the exports of `stack_id` with those its `outputs` declare.
    pub fn publish_exports(&mut self, stack_id: &StackId, outputs: &[super::model::Output]) {
        self.exports
            .retain(|_, e| &e.exporting_stack_id != stack_id);
        for o in outputs {
            if let Some(name) = &o.export_name {
                self.exports.insert(
                    name.clone(),
                    Export {
                        exporting_stack_id: stack_id.clone(),
                        name: name.clone(),
                        value: o.value.clone(),
                    },
                );
            }
        }
    }

    /// Removes the exports of `stack_id` (its deletion, a rolled-back create).
    pub fn drop_exports(&mut self, stack_id: &StackId) {
        self.exports
            .retain(|_, e| &e.exporting_stack_id != stack_id);
    }
}

/// Decodes a `NextToken` this store issued (an offset); `None` when absent.
pub fn page_offset(token: Option<&str>) -> Result<usize, Error> {
    match token {
        None | Some("") => Ok(0),
        Some(t) => t
            .strip_prefix("cumulo-")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| Error::validation(format!("Invalid NextToken: {t}"))),
    }
}

/// One page of `items` from `offset`, `size` long, with the token of the next page.
pub fn paginate<T: Clone>(items: &[T], offset: usize, size: usize) -> Page<T> {
    let end = offset.saturating_add(size).min(items.len());
    let start = offset.min(items.len());
    Page {
        items: items[start..end].to_vec(),
        next_token: (end < items.len()).then(|| format!("cumulo-{end}")),
    }
}
