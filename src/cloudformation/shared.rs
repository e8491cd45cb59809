//! The state every `CloudFormation` handle and every operation task shares: the dependencies,
//! the providers and the stack store behind its one `Mutex`, and the identity of the stack an
//! operation runs on. No behaviour beyond locking.

use std::sync::{Mutex, MutexGuard};

use crate::ids::Scope;

use super::deps::Deps;
use super::id::StackId;
use super::providers::Providers;
use super::store::State;

/// State shared by every handle and operation task.
pub(crate) struct Shared {
    pub(crate) deps: Deps,
    pub(crate) providers: Providers,
    state: Mutex<State>,
}

impl Shared {
    /// Shared state over `deps`, its providers and the store `state`.
    pub(crate) fn new(deps: Deps, providers: Providers, state: State) -> Shared {
        Shared {
            deps,
            providers,
            state: Mutex::new(state),
        }
    }

    /// The store, locked (poison is recovered: the store is always left consistent).
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }
}

/// Identifies the stack an operation runs on.
#[derive(Clone, Debug)]
pub(crate) struct StackRef {
    pub(crate) scope: Scope,
    pub(crate) stack_id: StackId,
    pub(crate) stack_name: String,
}
