//! Cumulo: a local AWS emulator whose heart is a CloudFormation stack engine for EventBridge
//! Scheduler, on a Scheduler core whose dispatcher really fires targets on time.
//!
//! Crate map (details in `docs/ARCHITECTURE.md`):
//! - [`protocol`]: the HTTP edge (axum), AWS wire protocols, Cumulo's `/_cumulo/` endpoints.
//! - [`scheduler`]: EventBridge Scheduler: schedules, groups, expressions, the dispatcher.
//! - [`cloudformation`]: templates, stacks, change sets, the stack engine and its providers.
//! - [`services`]: SQS, SNS, SSM, S3 and IAM: targets of schedules and backends of providers.
//! - [`clock`], [`ids`], [`storage`], [`faults`], [`time`], [`coral`], [`sync`]: cross-cutting
//!   pieces every core uses.
//!
//! Dependencies point one way: `main → lib → protocol → {cloudformation, scheduler, services}
//! → {clock, ids, storage, faults}`.

pub mod app;
pub mod clock;
pub mod cloudformation;
pub mod config;
pub mod coral;
pub mod faults;
#[doc(hidden)]
pub mod fuzzing;
pub mod ids;
pub mod protocol;
pub mod scheduler;
pub mod services;
pub mod storage;
pub mod sync;
pub mod time;

use std::future::Future;

pub use app::{App, Parts};
pub use config::Config;
pub use protocol::router;

/// Serves `app` on `listener` until `shutdown` resolves, with its background tasks started,
/// under `app.config.connections` (timeouts and the connection cap, `protocol::server`).
pub async fn serve(
    app: App,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let Ok(addr) = listener.local_addr() {
        app.endpoint.set(addr);
    }
    app.start();
    let limits = app.config.connections;
    protocol::server::serve(&app, router(app.clone()), listener, limits, shutdown).await
}

/// The store `config` asks for: SQLite in `config.data_dir`, or in memory without one.
/// Errors: the directory is locked by another Cumulo, unreadable, or from a newer Cumulo.
pub fn open_storage(config: &Config) -> Result<storage::Storage, storage::sqlite::OpenError> {
    match &config.data_dir {
        None => Ok(storage::Storage::memory()),
        Some(dir) => {
            let backend = storage::sqlite::SqliteBackend::open(dir, config.sync)?;
            Ok(storage::Storage::with_backend(std::sync::Arc::new(backend)))
        }
    }
}

/// Builds an [`App`] from `config` (opening its data directory, if any), raises the open-file
/// limit, and serves it on `listener` until `shutdown` resolves.
pub async fn run(
    config: Config,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let config = Config {
        connections: protocol::server::fit_to_open_files(config.connections),
        ..config
    };
    let storage = open_storage(&config).map_err(|e| std::io::Error::other(e.to_string()))?;
    let app = App::new(
        config,
        Parts {
            clock: None,
            storage: Some(storage),
        },
    );
    serve(app, listener, shutdown).await
}
