//! Runtime configuration (`Config`), built by `main.rs` from `--flags` and `CUMULO_*`
//! environment variables. Plain data: no parsing of the environment happens here.

use std::path::PathBuf;

use crate::clock::ClockMode;

/// What a registry resource type without a Cumulo provider does at execution
/// (`CUMULO_CFN_UNSUPPORTED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsupportedResources {
    /// CREATE_FAILED naming the type (the default).
    Fail,
    /// A placeholder resource is stored, and its event says so.
    Placeholder,
}

/// Everything the emulator needs to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// Listen address (`CUMULO_HOST`, default `127.0.0.1`).
    pub host: String,
    /// Listen port (`CUMULO_PORT`, default 4566; 0 picks a free port).
    pub port: u16,
    /// Initial clock mode (`CUMULO_CLOCK`, default `system`).
    pub clock: ClockMode,
    /// Where a `manual` clock starts (`CUMULO_CLOCK_START`, RFC 3339); default: wall time.
    pub clock_start: Option<chrono::DateTime<chrono::Utc>>,
    /// Directory of the durable store (`CUMULO_DATA_DIR`); `None` keeps state in memory.
    pub data_dir: Option<PathBuf>,
    /// Bound of `/_cumulo/scheduler/invocations` (`CUMULO_INVOCATION_HISTORY`, default 10,000;
    /// the oldest entries are dropped).
    pub invocation_history: usize,
    /// Whether the dispatcher fires schedules (`CUMULO_SCHEDULER_INVOCATION_ENABLED`, default
    /// true; false gives CRUD only).
    pub scheduler_invocation_enabled: bool,
    /// Registry types without a provider (`CUMULO_CFN_UNSUPPORTED`, default `fail`).
    pub cfn_unsupported: UnsupportedResources,
    /// Seed for generated ids (`CUMULO_SEED`); `None` seeds from the OS.
    pub seed: Option<u64>,
    /// How hard the durable store pushes commits to disk (`CUMULO_SYNC`, default `normal`).
    pub sync: crate::storage::sqlite::SyncMode,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            host: "127.0.0.1".to_string(),
            port: 4566,
            clock: ClockMode::System,
            clock_start: None,
            data_dir: None,
            invocation_history: 10_000,
            scheduler_invocation_enabled: true,
            cfn_unsupported: UnsupportedResources::Fail,
            seed: None,
            sync: crate::storage::sqlite::SyncMode::Normal,
        }
    }
}
