//! Test support: an emulator served on `127.0.0.1:0` (real HTTP) with a manual clock, the
//! official AWS SDK for Rust clients pointed at it, and a small client for `/_cumulo/`.

#![allow(dead_code)]

use std::process::Command;
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use cumulo::clock::Clock;
use cumulo::{App, Config, Parts};
use serde_json::Value;
use tokio::sync::oneshot;

/// The instant every test's manual clock starts at unless it asks for another.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap()
}

/// A running emulator. Dropping it shuts the server down.
pub struct Emulator {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    /// The emulator's handles, for assertions that need no wire call.
    pub app: App,
    shutdown: Option<oneshot::Sender<()>>,
    http: reqwest::Client,
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

impl Emulator {
    /// An emulator with default configuration and a manual clock frozen at [`t0`].
    pub async fn start() -> Emulator {
        Emulator::start_with(Config::default(), Clock::manual_at(t0())).await
    }

    /// An emulator with `config` and `clock`.
    pub async fn start_with(config: Config, clock: Clock) -> Emulator {
        let config = Config {
            seed: config.seed.or(Some(42)),
            ..config
        };
        let app = App::new(
            config,
            Parts {
                clock: Some(clock),
                storage: None,
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let endpoint = format!("http://{}", listener.local_addr().expect("local addr"));
        let (tx, rx) = oneshot::channel::<()>();
        let served = app.clone();
        tokio::spawn(async move {
            let _ = cumulo::serve(served, listener, async move {
                let _ = rx.await;
            })
            .await;
        });
        Emulator {
            endpoint,
            app,
            shutdown: Some(tx),
            http: reqwest::Client::new(),
        }
    }

    /// SDK configuration: test credentials, us-east-1, this endpoint, no retries.
    pub async fn sdk_config(&self) -> aws_config::SdkConfig {
        self.sdk_config_for("test").await
    }

    /// SDK configuration signing with `access_key` (a 12-digit key selects that account).
    pub async fn sdk_config_for(&self, access_key: &str) -> aws_config::SdkConfig {
        sdk_config_at(&self.endpoint, access_key).await
    }
    /// An EventBridge Scheduler client.
    pub async fn scheduler(&self) -> aws_sdk_scheduler::Client {
        aws_sdk_scheduler::Client::new(&self.sdk_config().await)
    }

    /// An SQS client.
    pub async fn sqs(&self) -> aws_sdk_sqs::Client {
        aws_sdk_sqs::Client::new(&self.sdk_config().await)
    }

    /// A CloudFormation client.
    pub async fn cloudformation(&self) -> aws_sdk_cloudformation::Client {
        aws_sdk_cloudformation::Client::new(&self.sdk_config().await)
    }

    /// Calls a `/_cumulo/` endpoint; returns the HTTP status and the JSON body (Null if none).
    pub async fn control(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}{}", self.endpoint, path);
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.http.request(method, url);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("control request");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("control body");
        let json = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, json)
    }

    /// Sends a raw HTTP request (for protocol-level tests); returns status, headers and body.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let url = format!("{}{}", self.endpoint, path);
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.http.request(method, url).body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.expect("raw request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        (status, headers, resp.text().await.expect("raw body"))
    }

    /// Moves the manual clock to `to` through `POST /_cumulo/clock`; returns the answer.
    pub async fn set_clock(&self, to: DateTime<Utc>) -> Value {
        let (status, body) = self
            .control(
                "POST",
                "/_cumulo/clock",
                Some(serde_json::json!({ "set": cumulo::time::rfc3339(to) })),
            )
            .await;
        assert_eq!(status, 200, "clock set: {body}");
        body
    }
}

/// SDK configuration for an emulator at `endpoint`: us-east-1, no retries, credentials
/// `access_key`/`test` (a 12-digit key selects that account).
pub async fn sdk_config_at(endpoint: &str, access_key: &str) -> aws_config::SdkConfig {
    let creds =
        aws_credential_types::Credentials::new(access_key, "test", None, None, "cumulo-tests");
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(creds)
        .endpoint_url(endpoint)
        .retry_config(aws_config::retry::RetryConfig::disabled())
        .load()
        .await
}

/// The aws CLI the README's test command installs (`CUMULO_AWS_CLI`, else `.venv/bin/aws`
/// in the repository). Panics with instructions when neither exists.
pub fn aws_cli() -> Arc<std::path::PathBuf> {
    let path = std::env::var_os("CUMULO_AWS_CLI")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/aws"));
    assert!(
        path.is_file(),
        "the aws CLI was not found at {}: run ./scripts/test (it installs awscli into .venv) or set CUMULO_AWS_CLI",
        path.display()
    );
    Arc::new(path)
}

/// Runs the aws CLI against `endpoint` with test credentials; returns (exit code, stdout, stderr).
pub fn run_aws_cli(endpoint: &str, args: &[&str]) -> (i32, String, String) {
    let cli = aws_cli();
    let out = Command::new(cli.as_path())
        .args(args)
        .args(["--endpoint-url", endpoint, "--region", "us-east-1"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_CONFIG_FILE", "/dev/null")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
        .env("AWS_MAX_ATTEMPTS", "1")
        .env("AWS_PAGER", "")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("PYTHONWARNINGS", "ignore")
        .output()
        .expect("run the aws CLI");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The shared corpus of real public templates (`../shared/corpus/`, beside the repository),
/// or `None` when this checkout has none (a fresh clone): the tests that read it then say so
/// and pass without it. `CUMULO_REQUIRE_CORPUS=1` (set by `.ci/run`) makes its absence a
/// failure, so CI always runs them.
pub fn corpus_dir() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CUMULO_REQUIRE_CORPUS").is_none(),
        "CUMULO_REQUIRE_CORPUS is set but {} is absent",
        dir.display()
    );
    eprintln!("skipping: the template corpus {} is absent", dir.display());
    None
}

/// Runs `script` with the `.venv` python (boto3, installed by `scripts/test`) against
/// `endpoint` (`AWS_ENDPOINT_URL`, test credentials, us-east-1, no retries); returns (exit
/// code, stdout, stderr). Blocking: call it from `spawn_blocking` in async tests.
pub fn run_python(endpoint: &str, script: &str) -> (i32, String, String) {
    let python = aws_cli()
        .parent()
        .expect("the aws CLI lives in a directory")
        .join("python");
    let out = Command::new(&python)
        .arg("-c")
        .arg(script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_CONFIG_FILE", "/dev/null")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
        .env("AWS_MAX_ATTEMPTS", "1")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("PYTHONWARNINGS", "ignore")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", python.display()));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs a boto3 `script` against the emulator off the async runtime; panics with its output
/// unless it exits 0. Returns its stdout.
pub async fn boto3(emu: &Emulator, script: &str) -> String {
    let endpoint = emu.endpoint.clone();
    let script = script.to_string();
    let (rc, out, err) = tokio::task::spawn_blocking(move || run_python(&endpoint, &script))
        .await
        .expect("python ran");
    assert_eq!(
        rc, 0,
        "the boto3 script failed:\nstdout:\n{out}\nstderr:\n{err}"
    );
    out
}
