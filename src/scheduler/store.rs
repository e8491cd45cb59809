//! The Scheduler's state (filled in next).

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::model::{Schedule, ScheduleChange, ScheduleKey};
use crate::storage::Storage;

#[derive(Debug, Default)]
struct State {
    changes: Option<mpsc::UnboundedSender<ScheduleChange>>,
}

/// The store.
#[derive(Debug)]
pub(crate) struct Store {
    #[allow(dead_code)]
    storage: Storage,
    state: Mutex<State>,
}

impl Store {
    pub(crate) fn new(storage: Storage) -> Store {
        Store {
            storage,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn reset(&self) {
        let state = self.lock();
        if let Some(tx) = &state.changes {
            let _ = tx.send(ScheduleChange::Reset);
        }
    }

    pub(crate) fn subscribe(&self) -> mpsc::UnboundedReceiver<ScheduleChange> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.lock().changes = Some(tx);
        rx
    }

    pub(crate) fn schedule(&self, _key: &ScheduleKey) -> Option<Arc<Schedule>> {
        None
    }

    pub(crate) fn snapshot(&self) -> Vec<(ScheduleKey, Arc<Schedule>)> {
        Vec::new()
    }

    pub(crate) fn delete_if_generation(&self, _key: &ScheduleKey, _generation: u64) -> bool {
        false
    }
}
