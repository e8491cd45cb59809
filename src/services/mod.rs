//! Plain AWS services: the targets schedules deliver to and the backends CloudFormation
//! providers create resources in. Each is a cheap `Clone` handle over `Arc<Mutex<State>>`
//! with one method per AWS operation; none knows HTTP. Each writes its changes to
//! [`crate::storage::Storage`] and reloads them when built over a durable store.

pub mod iam;
pub mod kms;
pub mod lambda;
pub mod logs;
pub mod s3;
pub mod sns;
pub mod sqs;
pub mod ssm;
pub mod states;

#[cfg(test)]
pub(crate) mod test_backend {
    //! A map-backed [`crate::storage::Backend`] for restart tests: what one service instance
    //! writes, a new instance over the same backend loads.

    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use crate::storage::{Backend, Storage, Table};

    /// Rows by `(table, key)`.
    #[derive(Default)]
    pub struct MapBackend {
        rows: Mutex<BTreeMap<(Table, String), String>>,
    }

    impl Backend for MapBackend {
        fn put(&self, table: Table, key: &str, json: String) {
            if let Ok(mut rows) = self.rows.lock() {
                rows.insert((table, key.to_string()), json);
            }
        }
        fn delete(&self, table: Table, key: &str) {
            if let Ok(mut rows) = self.rows.lock() {
                rows.remove(&(table, key.to_string()));
            }
        }
        fn wipe(&self) {
            if let Ok(mut rows) = self.rows.lock() {
                rows.clear();
            }
        }
        fn sync(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
            Box::pin(async {})
        }
        fn load(&self, table: Table) -> Vec<(String, String)> {
            self.rows
                .lock()
                .map(|rows| {
                    rows.iter()
                        .filter(|((t, _), _)| *t == table)
                        .map(|((_, k), v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default()
        }
    }

    /// A durable [`Storage`] over a fresh map.
    pub fn storage() -> Storage {
        Storage::with_backend(Arc::new(MapBackend::default()))
    }
}
