//! Runtime configuration (`Config`), built by `main.rs` from `--flags` and `CUMULO_*`
//! environment variables. Plain data: no parsing of the environment happens here.

use std::path::PathBuf;
use std::time::Duration;

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

/// The transport limits of every connection (`CUMULO_HEADER_READ_TIMEOUT`,
/// `CUMULO_BODY_READ_TIMEOUT`, `CUMULO_MAX_CONNECTIONS`; README, "Configuration").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The longest wait for a request's headers, idle keep-alive included (default 60 s).
    pub header_read_timeout: Duration,
    /// The longest wait for the next byte of a request body (default 60 s).
    pub body_read_timeout: Duration,
    /// Connections served at once (default 1,000; the start-up lowers it to fit the
    /// open-file limit, see `protocol::server::fit_to_open_files`).
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs(60),
            body_read_timeout: Duration::from_secs(60),
            max_connections: 1_000,
        }
    }
}

/// One access key the emulator accepts when it checks signatures (`CUMULO_AUTH=sigv4`).
#[derive(Clone, PartialEq, Eq)]
pub struct AccessKey {
    /// The secret access key requests are signed with.
    pub secret_access_key: String,
    /// The 12-digit account the key's requests act in.
    pub account_id: String,
}

impl std::fmt::Debug for AccessKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessKey")
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

/// Request authentication (`CUMULO_AUTH`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Auth {
    /// Any signature, or none, is accepted (the default); a 12-digit access key id selects
    /// the account.
    #[default]
    Off,
    /// AWS Signature Version 4 is verified against these keys (access key id → key), read
    /// from `CUMULO_AUTH_KEYS` (`protocol::auth`).
    SigV4(std::sync::Arc<std::collections::BTreeMap<String, AccessKey>>),
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
    /// Timeouts and the cap of every connection (`CUMULO_HEADER_READ_TIMEOUT`,
    /// `CUMULO_BODY_READ_TIMEOUT`, `CUMULO_MAX_CONNECTIONS`).
    pub connections: ConnectionLimits,
    /// Request authentication (`CUMULO_AUTH`, `CUMULO_AUTH_KEYS`; default off).
    pub auth: Auth,
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
            connections: ConnectionLimits::default(),
            auth: Auth::Off,
        }
    }
}
