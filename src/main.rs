//! The `cumulo` binary: flags and `CUMULO_*` variables → `Config`, logging, then
//! `cumulo::run` until Ctrl-C or SIGTERM. Nothing else lives here.

use std::path::PathBuf;

use clap::Parser;
use cumulo::clock::ClockMode;
use cumulo::config::{Config, UnsupportedResources};

/// Cumulo: a local AWS emulator (CloudFormation + EventBridge Scheduler + SQS/SNS/SSM/S3) on one port.
#[derive(Debug, Parser)]
#[command(name = "cumulo", version, about)]
struct Cli {
    /// Address to listen on.
    #[arg(long, env = "CUMULO_HOST", default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on (0 picks a free one and prints it).
    #[arg(long, env = "CUMULO_PORT", default_value_t = 4566)]
    port: u16,
    /// Clock mode: `system` (wall time) or `manual` (frozen until POST /_cumulo/clock moves it).
    #[arg(long, env = "CUMULO_CLOCK", default_value = "system", value_parser = ["system", "manual"])]
    clock: String,
    /// Where a manual clock starts (RFC 3339, e.g. 2030-01-01T00:00:00Z); default: wall time.
    #[arg(long, env = "CUMULO_CLOCK_START", value_parser = parse_instant)]
    clock_start: Option<chrono::DateTime<chrono::Utc>>,
    /// Log filter (tracing EnvFilter syntax), e.g. `info`, `debug`, `cumulo=trace`.
    #[arg(long, env = "CUMULO_LOG", default_value = "info", value_parser = parse_log_filter)]
    log: String,
    /// Keep state in this directory across restarts (in memory when absent).
    #[arg(long, env = "CUMULO_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Entries kept by /_cumulo/scheduler/invocations (oldest dropped first).
    #[arg(long, env = "CUMULO_INVOCATION_HISTORY", default_value_t = 10_000)]
    invocation_history: usize,
    /// Whether the dispatcher fires schedules (`false` gives CRUD only).
    #[arg(long, env = "CUMULO_SCHEDULER_INVOCATION_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    scheduler_invocation_enabled: bool,
    /// What a registry resource type without a Cumulo provider does: `fail` or `placeholder`.
    #[arg(long, env = "CUMULO_CFN_UNSUPPORTED", default_value = "fail", value_parser = ["fail", "placeholder"])]
    cfn_unsupported: String,
    /// Seed for generated ids (repeatable runs).
    #[arg(long, env = "CUMULO_SEED")]
    seed: Option<u64>,
    /// Durable store commits: `normal` (survive a process kill) or `full` (fsync every commit).
    #[arg(long, env = "CUMULO_SYNC", default_value = "normal", value_parser = ["normal", "full"])]
    sync: String,
    /// Seconds a request's headers may take to arrive, counted from the connection's opening or
    /// the previous response (so also the idle keep-alive timeout).
    #[arg(long, env = "CUMULO_HEADER_READ_TIMEOUT", default_value = "60", value_parser = parse_seconds)]
    header_read_timeout: std::time::Duration,
    /// Seconds a request body may go without a byte before it is answered RequestTimeout.
    #[arg(long, env = "CUMULO_BODY_READ_TIMEOUT", default_value = "60", value_parser = parse_seconds)]
    body_read_timeout: std::time::Duration,
    /// Connections served at once; more are answered 503 ServiceUnavailable and closed.
    #[arg(long, env = "CUMULO_MAX_CONNECTIONS", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Request authentication: `off` (any signature or none) or `sigv4` (AWS Signature
    /// Version 4 with a key of --auth-keys).
    #[arg(long, env = "CUMULO_AUTH", default_value = "off", value_parser = ["off", "sigv4"])]
    auth: String,
    /// The access-key file `sigv4` checks against: one `ACCESS_KEY_ID SECRET ACCOUNT_ID` a line.
    #[arg(long, env = "CUMULO_AUTH_KEYS")]
    auth_keys: Option<PathBuf>,
}

/// mimalloc instead of the system allocator: deliveries are allocation-heavy and glibc's
/// malloc took half the dispatcher's CPU under load (docs/benchmarks.md, "Dispatch").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn parse_log_filter(s: &str) -> Result<String, String> {
    tracing_subscriber::EnvFilter::try_new(s)
        .map(|_| s.to_string())
        .map_err(|e| format!("'{s}' is not a log filter: {e}"))
}

fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n > 0.0 && *n <= 86_400.0)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("'{s}' is not a number of seconds between 0 (excluded) and 86400"))
}

fn parse_instant(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    let at = cumulo::time::parse_rfc3339(s)
        .ok_or_else(|| format!("'{s}' is not an RFC 3339 instant"))?;
    if at > cumulo::time::latest_instant() {
        return Err(format!(
            "'{s}' is past {}, the latest instant the clock can show",
            cumulo::time::LATEST_INSTANT
        ));
    }
    Ok(at)
}

impl Cli {
    fn config(&self) -> Config {
        Config {
            host: self.host.clone(),
            port: self.port,
            clock: ClockMode::parse(&self.clock).unwrap_or(ClockMode::System),
            clock_start: self.clock_start,
            data_dir: self.data_dir.clone(),
            invocation_history: self.invocation_history,
            scheduler_invocation_enabled: self.scheduler_invocation_enabled,
            cfn_unsupported: if self.cfn_unsupported == "placeholder" {
                UnsupportedResources::Placeholder
            } else {
                UnsupportedResources::Fail
            },
            seed: self.seed,
            sync: if self.sync == "full" {
                cumulo::storage::sqlite::SyncMode::Full
            } else {
                cumulo::storage::sqlite::SyncMode::Normal
            },
            connections: cumulo::config::ConnectionLimits {
                header_read_timeout: self.header_read_timeout,
                body_read_timeout: self.body_read_timeout,
                max_connections: self.max_connections as usize,
            },
            auth: cumulo::config::Auth::Off,
        }
    }
}

/// `CUMULO_AUTH` and `CUMULO_AUTH_KEYS` → the configured authentication, or why not.
fn auth_config(cli: &Cli) -> Result<cumulo::config::Auth, String> {
    match (cli.auth.as_str(), &cli.auth_keys) {
        ("sigv4", Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read CUMULO_AUTH_KEYS {}: {e}", path.display()))?;
            cumulo::protocol::auth::keys::parse(&text)
                .map_err(|e| format!("CUMULO_AUTH_KEYS {}: {e}", path.display()))
        }
        ("sigv4", None) => Err("--auth sigv4 (CUMULO_AUTH=sigv4) needs --auth-keys (CUMULO_AUTH_KEYS): the file of access keys to accept".into()),
        (_, Some(_)) => Err("--auth-keys (CUMULO_AUTH_KEYS) is read only with --auth sigv4 (CUMULO_AUTH=sigv4)".into()),
        _ => Ok(cumulo::config::Auth::Off),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if cli.clock_start.is_some() && cli.clock != "manual" {
        use clap::CommandFactory;
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--clock-start (CUMULO_CLOCK_START) needs --clock manual (CUMULO_CLOCK=manual): a system clock follows wall time",
            )
            .exit();
    }
    let filter = tracing_subscriber::EnvFilter::try_new(&cli.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let mut config = cli.config();
    match auth_config(&cli) {
        Ok(auth) => config.auth = auth,
        Err(message) => {
            use clap::CommandFactory;
            Cli::command()
                .error(clap::error::ErrorKind::ValueValidation, message)
                .exit();
        }
    }
    config.connections = cumulo::protocol::server::fit_to_open_files(config.connections);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("cumulo: cannot start the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let storage = match cumulo::open_storage(&config) {
        Ok(s) => s,
        Err(err) => {
            eprintln!("cumulo: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let addr = format!("{}:{}", config.host, config.port);
        let listener = match tokio::net::TcpListener::bind(&addr).await {
            Ok(l) => l,
            Err(err) => {
                eprintln!("cumulo: cannot listen on {addr}: {err}");
                return std::process::ExitCode::FAILURE;
            }
        };
        let local = listener.local_addr().map(|a| a.to_string()).unwrap_or(addr);
        // One line on stdout, whatever the log level: scripts and tests read the port here.
        println!("cumulo listening on http://{local}");
        tracing::info!(
            address = %local,
            clock = config.clock.as_str(),
            data_dir = ?config.data_dir,
            "Cumulo listening"
        );
        let app = cumulo::App::new(
            config,
            cumulo::Parts {
                clock: None,
                storage: Some(storage),
            },
        );
        match cumulo::serve(app, listener, shutdown_signal()).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("cumulo: server error: {err}");
                std::process::ExitCode::FAILURE
            }
        }
    })
}
