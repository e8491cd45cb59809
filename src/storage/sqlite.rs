//! The durable backend: SQLite (rusqlite, bundled) in WAL mode, one writer thread, group commit.
//!
//! Layout: `<data dir>/cumulo.db` with `meta(key, value)` (holding `schema_version`) and
//! `entities(tbl, key, json)`; `<data dir>/cumulo.lock` is held with an exclusive OS file lock
//! for the life of the process, so a second Cumulo on the same directory is refused.
//!
//! Writes are queued on a channel (never blocking the caller) and applied by the writer thread:
//! it takes every operation queued so far, applies them in one transaction, commits, and only
//! then answers the [`Backend::sync`] calls that were queued among them (group commit).
//!
//! Durability: `synchronous=NORMAL` in WAL mode: a committed transaction is in the WAL file
//! before the commit returns, so it survives the process being killed (`kill -9`); a power loss
//! or OS crash can lose the transactions committed since the last WAL checkpoint sync, never
//! corrupting the database. `CUMULO_SYNC=full` (see [`SyncMode`]) fsyncs every commit instead.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

use super::{Backend, StoredOp, Table};

/// The schema version this build writes. Older databases are migrated by [`MIGRATIONS`].
pub const SCHEMA_VERSION: i64 = 1;

/// Migration `i` takes a database from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 0 → 1: the entity table.
    "CREATE TABLE IF NOT EXISTS entities (
         tbl  TEXT NOT NULL,
         key  TEXT NOT NULL,
         json TEXT NOT NULL,
         PRIMARY KEY (tbl, key)
     ) WITHOUT ROWID;",
];

/// How hard a commit is pushed to disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// WAL + `synchronous=NORMAL`: survives a process kill; a power loss may lose the last commits.
    Normal,
    /// WAL + `synchronous=FULL`: every commit is fsynced.
    Full,
}

/// Why the store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Another process holds the directory's lock.
    #[error("another Cumulo process is already using the data directory {0} (its cumulo.lock is held); stop it or choose another --data-dir")]
    Locked(PathBuf),
    /// The directory or a file in it could not be created or opened.
    #[error("cannot open the data directory {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// SQLite refused.
    #[error("cannot open the database in {path}: {source}")]
    Sqlite {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// The database was written by a newer Cumulo.
    #[error("the database in {path} has schema version {found}, newer than this Cumulo's {SCHEMA_VERSION}")]
    TooNew {
        /// The path.
        path: PathBuf,
        /// The version found.
        found: i64,
    },
}

enum Op {
    Put(Table, String, String),
    Delete(Table, String),
    Wipe,
    Sync(oneshot::Sender<()>),
    /// Writes that must commit in one transaction (never split across batches).
    Batch(Vec<StoredOp>),
}

/// The SQLite store of one data directory.
pub struct SqliteBackend {
    tx: Mutex<mpsc::Sender<Op>>,
    path: PathBuf,
    /// Held for the life of the backend: the directory's exclusive lock.
    _lock: File,
}

impl std::fmt::Debug for SqliteBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteBackend")
            .field("path", &self.path)
            .finish()
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> OpenError + '_ {
    move |source| OpenError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn open_connection(db: &Path, mode: SyncMode) -> Result<Connection, OpenError> {
    let sql_err = |source| OpenError::Sqlite {
        path: db.to_path_buf(),
        source,
    };
    let conn = Connection::open(db).map_err(sql_err)?;
    let sync = match mode {
        SyncMode::Normal => "NORMAL",
        SyncMode::Full => "FULL",
    };
    conn.execute_batch(&format!(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous={sync}; PRAGMA foreign_keys=OFF;"
    ))
    .map_err(sql_err)?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    )
    .map_err(sql_err)?;
    let version: i64 = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get::<_, String>(0),
        )
        .optional()
        .map_err(sql_err)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if version > SCHEMA_VERSION {
        return Err(OpenError::TooNew {
            path: db.to_path_buf(),
            found: version,
        });
    }
    for (step, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let next = step as i64 + 1;
        let apply = || -> rusqlite::Result<()> {
            let tx = conn.unchecked_transaction()?;
            tx.execute_batch(sql)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![next.to_string()],
            )?;
            tx.commit()
        };
        apply().map_err(sql_err)?;
        tracing::info!(from = step, to = next, "migrated the durable store");
    }
    Ok(conn)
}

impl SqliteBackend {
    /// Opens (creating if needed) the store in `dir`, takes its lock, migrates the schema and
    /// starts the writer thread.
    pub fn open(dir: &Path, mode: SyncMode) -> Result<SqliteBackend, OpenError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let lock_path = dir.join("cumulo.lock");
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(OpenError::Locked(dir.to_path_buf()))
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(OpenError::Io {
                    path: lock_path,
                    source: e,
                })
            }
        }
        let db = dir.join("cumulo.db");
        let conn = open_connection(&db, mode)?;
        let (tx, rx) = mpsc::channel::<Op>();
        std::thread::Builder::new()
            .name("cumulo-store".into())
            .spawn(move || writer(conn, rx))
            .map_err(io_err(dir))?;
        Ok(SqliteBackend {
            tx: Mutex::new(tx),
            path: db,
            _lock: lock,
        })
    }

    fn send(&self, op: Op) {
        let tx = crate::sync::lock(&self.tx);
        if tx.send(op).is_err() {
            tracing::error!("the durable store's writer has stopped; a write was lost");
        }
    }
}

/// Most operations applied in one transaction.
const MAX_BATCH: usize = 10_000;

fn writer(mut conn: Connection, rx: mpsc::Receiver<Op>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        let mut waiters = Vec::new();
        let result = (|| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            {
                let mut put = tx.prepare_cached(
                    "INSERT INTO entities (tbl, key, json) VALUES (?1, ?2, ?3)
                     ON CONFLICT(tbl, key) DO UPDATE SET json = excluded.json",
                )?;
                let mut del =
                    tx.prepare_cached("DELETE FROM entities WHERE tbl = ?1 AND key = ?2")?;
                for op in batch {
                    match op {
                        Op::Put(table, key, json) => {
                            put.execute(params![table, key, json])?;
                        }
                        Op::Delete(table, key) => {
                            del.execute(params![table, key])?;
                        }
                        Op::Wipe => {
                            tx.execute("DELETE FROM entities", [])?;
                        }
                        Op::Sync(done) => waiters.push(done),
                        Op::Batch(ops) => {
                            for op in ops {
                                match op {
                                    StoredOp::Put(table, key, json) => {
                                        put.execute(params![table, key, json])?;
                                    }
                                    StoredOp::Delete(table, key) => {
                                        del.execute(params![table, key])?;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            tx.commit()
        })();
        if let Err(err) = result {
            tracing::error!(%err, "the durable store failed to commit a batch");
        }
        for done in waiters {
            let _ = done.send(());
        }
    }
}

impl Backend for SqliteBackend {
    fn put(&self, table: Table, key: &str, json: String) {
        self.send(Op::Put(table, key.to_string(), json));
    }

    fn delete(&self, table: Table, key: &str) {
        self.send(Op::Delete(table, key.to_string()));
    }

    fn wipe(&self) {
        self.send(Op::Wipe);
    }

    fn sync(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        let (done, wait) = oneshot::channel();
        self.send(Op::Sync(done));
        Box::pin(async move {
            let _ = wait.await;
        })
    }

    fn apply(&self, ops: Vec<StoredOp>) {
        self.send(Op::Batch(ops));
    }

    fn load(&self, table: Table) -> Vec<(String, String)> {
        // A separate read connection: WAL readers see every committed transaction.
        let read = || -> rusqlite::Result<Vec<(String, String)>> {
            let conn = Connection::open(&self.path)?;
            let mut stmt =
                conn.prepare("SELECT key, json FROM entities WHERE tbl = ?1 ORDER BY key")?;
            let rows = stmt.query_map(params![table], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        };
        match read() {
            Ok(rows) => rows,
            Err(err) => {
                tracing::error!(%err, table, "cannot read the durable store");
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Storage;
    use std::sync::Arc;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cumulo-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[tokio::test]
    async fn writes_survive_reopening_and_wipe_clears_them() {
        let dir = temp_dir("reopen");
        {
            let store = Storage::with_backend(Arc::new(
                SqliteBackend::open(&dir, SyncMode::Normal).unwrap(),
            ));
            store.put("t", "a", &serde_json::json!({"n": 1}));
            store.put("t", "b", &serde_json::json!({"n": 2}));
            store.put("t", "a", &serde_json::json!({"n": 3}));
            store.delete("t", "b");
            store.sync().await;
        }
        // The writer thread owns the lock file handle through the backend; give the drop a moment.
        let store = loop {
            match SqliteBackend::open(&dir, SyncMode::Normal) {
                Ok(b) => break Storage::with_backend(Arc::new(b)),
                Err(OpenError::Locked(_)) => std::thread::yield_now(),
                Err(e) => panic!("{e}"),
            }
        };
        let rows: Vec<(String, serde_json::Value)> = store.load("t");
        assert_eq!(rows, vec![("a".to_string(), serde_json::json!({"n": 3}))]);
        store.wipe();
        store.sync().await;
        assert!(store.load::<serde_json::Value>("t").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_second_open_of_the_same_directory_is_refused() {
        let dir = temp_dir("lock");
        let _first = SqliteBackend::open(&dir, SyncMode::Normal).unwrap();
        let second = SqliteBackend::open(&dir, SyncMode::Normal).unwrap_err();
        assert!(matches!(second, OpenError::Locked(_)), "{second}");
        assert!(second.to_string().contains("another Cumulo process"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let dir = temp_dir("newer");
        std::fs::create_dir_all(&dir).unwrap();
        let conn = Connection::open(dir.join("cumulo.db")).unwrap();
        conn.execute_batch("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '99');").unwrap();
        drop(conn);
        let err = SqliteBackend::open(&dir, SyncMode::Normal).unwrap_err();
        assert!(matches!(err, OpenError::TooNew { found: 99, .. }), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
