//! Cumulo: a local AWS emulator whose heart is a CloudFormation stack engine for EventBridge
//! Scheduler, on a Scheduler core whose dispatcher really fires targets on time.
//!
//! Crate map (details in `docs/ARCHITECTURE.md`):
//! - [`protocol`]: the HTTP edge (axum), AWS wire protocols, Cumulo's `/_cumulo/` endpoints.
//! - [`scheduler`]: EventBridge Scheduler: schedules, groups, expressions, the dispatcher.
//! - [`cloudformation`]: templates, stacks, change sets, the stack engine and its providers.
//! - [`services`]: SQS, SNS, SSM, S3 and IAM: targets of schedules and backends of providers.
//! - [`clock`], [`ids`], [`storage`], [`faults`], [`time`]: cross-cutting pieces every core uses.
//!
//! Dependencies point one way: `main → lib → protocol → {cloudformation, scheduler, services}
//! → {clock, ids, storage, faults}`.

pub mod app;
pub mod clock;
pub mod cloudformation;
pub mod config;
pub mod faults;
pub mod ids;
pub mod protocol;
pub mod scheduler;
pub mod services;
pub mod storage;
pub mod time;

use std::future::Future;

pub use app::{App, Parts};
pub use config::Config;
pub use protocol::router;

/// Serves `app` on `listener` until `shutdown` resolves, with its background tasks started.
pub async fn serve(
    app: App,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let Ok(addr) = listener.local_addr() {
        app.endpoint.set(addr);
    }
    app.start();
    axum::serve(listener, router(app))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Builds an [`App`] from `config` and serves it on `listener` until `shutdown` resolves.
pub async fn run(
    config: Config,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = App::new(config, Parts::default());
    serve(app, listener, shutdown).await
}
