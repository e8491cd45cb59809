//! Durability of service state: the one interface every service writes its changes through.
//!
//! Each service keeps its state in memory and, after each mutation, hands the changed entity
//! to [`Storage::put`] / [`Storage::delete`] (while still holding its own lock, so writes reach
//! the store in the order they happened). The protocol layer calls [`Storage::sync`] before it
//! acknowledges a mutating request, so an acknowledged write is committed (group commit: one
//! transaction carries every write queued since the last one).
//!
//! Without `CUMULO_DATA_DIR` the store is [`Storage::memory`]: every call is a no-op and
//! `sync` returns at once. With it, [`sqlite::SqliteBackend`] keeps every entity as JSON
//! under `(table, key)` in `<data dir>/cumulo.db`.

pub mod sqlite;

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A table of the durable store. Keys are unique within a table.
pub type Table = &'static str;

/// A persistence backend (the SQLite store of the durable-state issue implements it).
pub trait Backend: Send + Sync + 'static {
    /// Queues an upsert of `json` under `(table, key)`.
    fn put(&self, table: Table, key: &str, json: String);
    /// Queues a delete of `(table, key)`.
    fn delete(&self, table: Table, key: &str);
    /// Queues the deletion of every row of every table.
    fn wipe(&self);
    /// Resolves once every write queued before the call is committed.
    fn sync(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>>;
    /// Every row of `table`, in key order.
    fn load(&self, table: Table) -> Vec<(String, String)>;
}

/// A cheap handle to the store; clones share it.
#[derive(Clone, Default)]
pub struct Storage {
    backend: Option<Arc<dyn Backend>>,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("durable", &self.is_durable())
            .finish()
    }
}

impl Storage {
    /// In-memory only: nothing is written anywhere.
    pub fn memory() -> Storage {
        Storage { backend: None }
    }

    /// A store over `backend`.
    pub fn with_backend(backend: Arc<dyn Backend>) -> Storage {
        Storage {
            backend: Some(backend),
        }
    }

    /// True when writes reach a durable backend.
    pub fn is_durable(&self) -> bool {
        self.backend.is_some()
    }

    /// Records the new value of `(table, key)`. Call it under the lock that guarded the change.
    pub fn put<T: Serialize + ?Sized>(&self, table: Table, key: &str, value: &T) {
        if let Some(backend) = &self.backend {
            match serde_json::to_string(value) {
                Ok(json) => backend.put(table, key, json),
                Err(err) => {
                    tracing::error!(table, key, %err, "cannot serialise an entity for the store")
                }
            }
        }
    }

    /// Records that `(table, key)` no longer exists.
    pub fn delete(&self, table: Table, key: &str) {
        if let Some(backend) = &self.backend {
            backend.delete(table, key);
        }
    }

    /// Records that everything was wiped (`POST /_cumulo/reset`).
    pub fn wipe(&self) {
        if let Some(backend) = &self.backend {
            backend.wipe();
        }
    }

    /// Waits until every write recorded so far is committed.
    pub async fn sync(&self) {
        if let Some(backend) = &self.backend {
            backend.sync().await;
        }
    }

    /// Every entity of `table` that deserialises as `T` (others are logged and skipped).
    pub fn load<T: DeserializeOwned>(&self, table: Table) -> Vec<(String, T)> {
        let Some(backend) = &self.backend else {
            return Vec::new();
        };
        backend
            .load(table)
            .into_iter()
            .filter_map(|(key, json)| match serde_json::from_str(&json) {
                Ok(v) => Some((key, v)),
                Err(err) => {
                    tracing::error!(table, key, %err, "skipping an unreadable stored entity");
                    None
                }
            })
            .collect()
    }
}
