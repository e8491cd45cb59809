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

/// One write, for [`Storage::apply`] and [`Storage::with_rider`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredOp {
    /// Upsert of a JSON value under `(table, key)`.
    Put(Table, String, String),
    /// Delete of `(table, key)`.
    Delete(Table, String),
}

impl StoredOp {
    /// An upsert of `value` serialised as JSON (`None` when it cannot be serialised, logged).
    pub fn put<T: Serialize + ?Sized>(
        table: Table,
        key: impl Into<String>,
        value: &T,
    ) -> Option<StoredOp> {
        let key = key.into();
        match serde_json::to_string(value) {
            Ok(json) => Some(StoredOp::Put(table, key, json)),
            Err(err) => {
                tracing::error!(table, key, %err, "cannot serialise an entity for the store");
                None
            }
        }
    }

    /// A delete.
    pub fn delete(table: Table, key: impl Into<String>) -> StoredOp {
        StoredOp::Delete(table, key.into())
    }
}

thread_local! {
    /// Writes that ride on this thread's next `put` ([`Storage::with_rider`]).
    static RIDER: std::cell::RefCell<Option<Vec<StoredOp>>> = const { std::cell::RefCell::new(None) };
}

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
    /// Queues `ops` to be committed together, in one transaction. The default applies them
    /// one by one (backends without transactions).
    fn apply(&self, ops: Vec<StoredOp>) {
        for op in ops {
            match op {
                StoredOp::Put(table, key, json) => self.put(table, &key, json),
                StoredOp::Delete(table, key) => self.delete(table, &key),
            }
        }
    }
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
                Ok(json) => match RIDER.with(|r| r.borrow_mut().take()) {
                    Some(mut rider) => {
                        rider.insert(0, StoredOp::Put(table, key.to_string(), json));
                        backend.apply(rider);
                    }
                    None => backend.put(table, key, json),
                },
                Err(err) => {
                    tracing::error!(table, key, %err, "cannot serialise an entity for the store")
                }
            }
        }
    }

    /// Queues `ops` to be committed together in one transaction.
    pub fn apply(&self, ops: Vec<StoredOp>) {
        if let Some(backend) = &self.backend {
            if !ops.is_empty() {
                backend.apply(ops);
            }
        }
    }

    /// Runs `f` so that the first [`Storage::put`] it makes on this thread is committed in one
    /// transaction together with `ops` (so an effect and its bookkeeping land together: the
    /// dispatcher rides its "occurrence done" writes on the SQS message it delivers). Returns
    /// `f`'s result and the ops again if no put consumed them. `f` must not `.await`.
    pub fn with_rider<R>(
        &self,
        ops: Vec<StoredOp>,
        f: impl FnOnce() -> R,
    ) -> (R, Option<Vec<StoredOp>>) {
        if self.backend.is_none() {
            return (f(), None);
        }
        RIDER.with(|r| *r.borrow_mut() = Some(ops));
        let result = f();
        let unused = RIDER.with(|r| r.borrow_mut().take());
        (result, unused)
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
