//! CloudFormation: templates, stacks, change sets and the stack engine that creates, updates,
//! replaces, moves and rolls back resources through providers over the other cores.
//!
//! [`CloudFormation`] is the handle (`Clone`, one `Arc<Shared>`) with one method per AWS
//! operation (aws-contract.md Appendix A). An `Err` from a method means the *request* was
//! refused (a synchronous ValidationError and the like, with AWS's message); a resource that
//! fails is not an `Err` but a `*_FAILED` event that drives the rollback. Operations that change
//! resources run as a task ([`engine`]); the call that starts one waits until the stack is
//! terminal or held by a fault, so `aws cloudformation deploy` sees a terminal status at its
//! first DescribeStacks. Knows nothing of HTTP (the wire is `protocol::wire::cloudformation`).
//!
//! Module map, by what each part serves:
//! - the operations: `stacks` (CreateStack, UpdateStack, DeleteStack, rollback control),
//!   `change_sets` (Create/Describe/Execute/Delete/ListChangeSets), `describe` (the reads:
//!   Describe*, List*, GetTemplate*, ValidateTemplate), `settings` (termination protection,
//!   stack policies), all over `prepare` (the template preparation they share, the one update
//!   preparation of UpdateStack and CreateChangeSet);
//! - the state: [`store`] (the per-region stack store, which owns the lifecycle: every status
//!   change goes through it and the [`status`] machines), [`model`] (operation shapes), [`id`]
//!   (StackId, LogicalId, PhysicalId);
//! - the work: [`plan`] (pure change-set planning), [`engine`] (the operation tasks),
//!   [`providers`] (one per resource type), `control` (an operation's link to the calls that
//!   wait on it or cancel it), [`source`] (TemplateBody / TemplateURL);
//! - `template` and `registry`: the template language (owned by the template engineer).

mod change_sets;
mod control;
mod deps;
mod describe;
pub mod engine;
mod error;
pub mod id;
pub mod model;
pub mod plan;
mod prepare;
pub mod providers;
pub mod registry;
mod settings;
mod shared;
pub mod source;
mod stacks;
pub mod status;
pub mod store;
pub mod template;

use std::sync::Arc;

pub use control::{OperationControl, Phase};
pub use deps::Deps;
pub use describe::StackEvents;
pub use error::{messages, Error};
pub use id::{LogicalId, PhysicalId, StackId};
pub use status::{ChangeSetStatus, ExecutionStatus, ResourceStatus, StackStatus};
pub use store::{
    ChangeSetRecord, ResourceRecord, StackEventRecord, StackRecord, StackResourceView,
};

use engine::{Operation, Runner};
use providers::Providers;
use shared::{Shared, StackRef};
use store::State;

/// Page size of every paginated CloudFormation list.
pub const PAGE_SIZE: usize = 100;

/// Handle to the CloudFormation core.
#[derive(Clone)]
pub struct CloudFormation {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for CloudFormation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloudFormation")
            .field("providers", &self.shared.providers)
            .finish()
    }
}

impl CloudFormation {
    /// A CloudFormation with the stacks, change sets and exports `deps.storage` kept (none in
    /// memory mode).
    pub fn new(deps: Deps) -> CloudFormation {
        let providers = Providers::new(&deps);
        let sink = store::Sink::new(deps.storage.clone(), deps.ids.clone());
        let state = State::load(sink, deps.clock.now());
        CloudFormation {
            shared: Arc::new(Shared::new(deps, providers, state)),
        }
    }

    /// Deletes every stack, change set and export (not the resources: the other cores reset
    /// themselves).
    pub fn reset(&self) {
        self.shared.lock().clear();
    }

    /// How many status changes the stack store refused since start: each one is an engine bug
    /// (an edge AWS never takes), logged at error level and not applied. Not an AWS operation:
    /// the property tests assert it stays 0.
    pub fn refused_transitions(&self) -> u64 {
        self.shared.lock().refused_transitions()
    }

    fn deps(&self) -> &Deps {
        &self.shared.deps
    }

    /// Starts the task of an operation already registered on the stack entry.
    fn start(&self, stack: StackRef, control: Arc<OperationControl>, op: Operation) {
        Runner::spawn(self.shared.clone(), stack, control, op);
    }
}
