//! The real `cumulo` binary on a data directory, for tests that restart it: a temporary
//! directory ([`DataDir`]), one process ([`Proc`]) started with a manual clock on a free port,
//! stopped gracefully or killed with SIGKILL, its log (stderr) kept in a file beside the data.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::support::sdk_config_at;

/// A temporary data directory, removed when dropped.
pub struct DataDir(pub PathBuf);

impl DataDir {
    /// A fresh directory named after `name` and this test process.
    pub fn new(name: &str) -> DataDir {
        let dir = std::env::temp_dir().join(format!("cumulo-it-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create data dir");
        DataDir(dir)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One `cumulo` process.
pub struct Proc {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    http: reqwest::Client,
    log: PathBuf,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `cumulo` on `dir` with a manual clock at `clock_start`; its log goes to
/// `<dir>.log` (appended, so one file covers every start). The error is the log when it does
/// not start.
pub fn spawn(dir: &Path, clock_start: &str) -> Result<Proc, String> {
    let log = dir.with_extension("log");
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .expect("open log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cumulo"))
        .env_clear()
        .env("CUMULO_PORT", "0")
        .env("CUMULO_CLOCK", "manual")
        .env("CUMULO_CLOCK_START", clock_start)
        .env("CUMULO_DATA_DIR", dir)
        .env("CUMULO_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .spawn()
        .expect("spawn cumulo");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read stdout");
    match line.trim().strip_prefix("cumulo listening on ") {
        Some(endpoint) => Ok(Proc {
            endpoint: endpoint.to_string(),
            child,
            http: reqwest::Client::new(),
            log,
        }),
        None => {
            let _ = child.wait();
            Err(std::fs::read_to_string(&log).unwrap_or_default())
        }
    }
}

impl Proc {
    /// Starts `cumulo` on `dir` (see [`spawn`]); panics with its log when it does not start.
    pub fn start(dir: &Path, clock_start: &str) -> Proc {
        spawn(dir, clock_start).unwrap_or_else(|e| panic!("cumulo did not start: {e}"))
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill9(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("wait");
    }

    /// SIGTERM, then wait for the graceful exit.
    pub fn terminate(mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        let exit = self.child.wait().expect("wait");
        assert!(exit.success(), "graceful stop exited with {exit}");
    }

    /// Everything the process (and the earlier ones on the same directory) logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Calls a `/_cumulo/` endpoint; returns the HTTP status and the JSON body.
    pub async fn control(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.endpoint));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("control request");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        (
            status,
            if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&text).expect("json")
            },
        )
    }

    /// Moves the manual clock to `to` (RFC 3339).
    pub async fn set_clock(&self, to: &str) -> Value {
        let (status, body) = self
            .control("POST", "/_cumulo/clock", Some(json!({ "set": to })))
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The invocation history.
    pub async fn invocations(&self) -> Vec<Value> {
        let (status, body) = self
            .control("GET", "/_cumulo/scheduler/invocations", None)
            .await;
        assert_eq!(status, 200);
        body["invocations"].as_array().expect("list").clone()
    }

    /// The history once the dispatcher's recovery (its own task, after the server answers)
    /// has restored at least `at_least` records; then a few more reads, so that records made
    /// twice would show.
    pub async fn invocations_once_recovered(&self, at_least: usize) -> Vec<Value> {
        let mut seen = Vec::new();
        for _ in 0..2_000 {
            seen = self.invocations().await;
            if seen.len() >= at_least {
                break;
            }
            tokio::task::yield_now().await;
        }
        for _ in 0..20 {
            seen = self.invocations().await;
        }
        seen
    }

    /// An EventBridge Scheduler client.
    pub async fn scheduler(&self) -> aws_sdk_scheduler::Client {
        aws_sdk_scheduler::Client::new(&sdk_config_at(&self.endpoint, "test").await)
    }

    /// An SQS client.
    pub async fn sqs(&self) -> aws_sdk_sqs::Client {
        aws_sdk_sqs::Client::new(&sdk_config_at(&self.endpoint, "test").await)
    }

    /// A CloudFormation client.
    pub async fn cloudformation(&self) -> aws_sdk_cloudformation::Client {
        aws_sdk_cloudformation::Client::new(&sdk_config_at(&self.endpoint, "test").await)
    }
}
