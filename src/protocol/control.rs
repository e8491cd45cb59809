//! Cumulo's own test-control endpoints under `/_cumulo/` (and `/_localstack/health`), exactly
//! as `../shared/spec/extensions.md` defines them: health, reset, clock, faults, scheduler
//! invocations and previews. Bodies are JSON; errors are
//! `{"error":"ValidationException","message":...}` (400) or `{"error":"ResourceNotFoundException",...}` (404).

use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, post};
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::App;
use crate::clock::ClockMode;
use crate::faults::FaultRuleInput;
use crate::ids::Scope;
use crate::time::{latest_instant, parse_rfc3339, rfc3339, LATEST_INSTANT};

/// The version reported by the health endpoints.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Routes of the control surface.
pub fn routes() -> Router<App> {
    Router::new()
        .route("/_cumulo/health", get(health))
        .route("/_localstack/health", get(localstack_health))
        .route("/_cumulo/reset", post(reset))
        .route("/_cumulo/clock", get(clock_get).post(clock_post))
        .route(
            "/_cumulo/faults",
            post(faults_add).get(faults_list).delete(faults_clear),
        )
        .route("/_cumulo/faults/{id}", delete(faults_delete))
        .route("/_cumulo/scheduler/invocations", get(invocations))
        .route("/_cumulo/scheduler/preview", get(preview))
        .route(
            "/_cumulo/scheduler/schedules/{group}/{name}/preview",
            get(stored_preview),
        )
        .route("/_cumulo", any(unknown_endpoint))
        .route("/_cumulo/{*rest}", any(unknown_endpoint))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(refuse_large_bodies))
        .layer(axum::middleware::from_fn(log_control_request))
}

/// One debug line per control request (method, path, status), as the AWS requests get.
async fn log_control_request(req: Request, next: axum::middleware::Next) -> Response {
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let response = next.run(req).await;
    tracing::debug!(%method, %path, status = response.status().as_u16(), "control request answered");
    response
}

/// A request declaring a body over [`MAX_CONTROL_BODY_BYTES`] is refused at once, before any
/// of it is read: 413 `{"error":"RequestEntityTooLarge",...}`.
async fn refuse_large_bodies(req: Request, next: axum::middleware::Next) -> Response {
    if declared_length(req.headers()).is_some_and(|n| n > MAX_CONTROL_BODY_BYTES as u64) {
        return too_large().into_response();
    }
    next.run(req).await
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

fn too_large() -> ControlError {
    ControlError {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        code: "RequestEntityTooLarge",
        message: format!("the body is larger than {MAX_CONTROL_BODY_BYTES} bytes"),
    }
}

/// axum's `Query`, refusing a query string it cannot read (a duplicate key, a value of the
/// wrong type) with the control surface's JSON 400 instead of axum's plain text.
struct ControlQuery<T>(T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ControlQuery<T> {
    type Rejection = ControlError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| ControlQuery(q.0))
            .map_err(|e| ControlError::validation(e.body_text()))
    }
}

/// axum's `Path`, refusing a segment it cannot read (not UTF-8 once percent-decoded) with the
/// control surface's JSON 400 instead of axum's plain text.
struct ControlPath<T>(T);

impl<T: serde::de::DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for ControlPath<T> {
    type Rejection = ControlError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| ControlPath(p.0))
            .map_err(|e| ControlError::validation(e.body_text()))
    }
}

/// A control-surface error: `{"error": code, "message": message}`.
#[derive(Debug)]
pub struct ControlError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ControlError {
    /// 400 ValidationException.
    pub fn validation(message: impl Into<String>) -> ControlError {
        ControlError {
            status: StatusCode::BAD_REQUEST,
            code: "ValidationException",
            message: message.into(),
        }
    }

    /// 404 ResourceNotFoundException.
    pub fn not_found(message: impl Into<String>) -> ControlError {
        ControlError {
            status: StatusCode::NOT_FOUND,
            code: "ResourceNotFoundException",
            message: message.into(),
        }
    }
}

impl From<crate::scheduler::Error> for ControlError {
    fn from(err: crate::scheduler::Error) -> Self {
        match err {
            crate::scheduler::Error::ResourceNotFound(m) => ControlError::not_found(m),
            other => ControlError::validation(other.message().to_string()),
        }
    }
}

impl IntoResponse for ControlError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({ "error": self.code, "message": self.message })),
        )
            .into_response()
    }
}

/// The largest control-surface body read, in bytes.
const MAX_CONTROL_BODY_BYTES: usize = 1024 * 1024;

/// A control request's JSON body, read whatever its `Content-Type` (so `curl -d '{...}'`
/// works): `None` when empty; invalid JSON or an unreadable body is a 400 ValidationException.
/// Handlers take the object with [`JsonBody::object`].
struct JsonBody(Option<Value>);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ControlError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let bytes = axum::body::to_bytes(req.into_body(), MAX_CONTROL_BODY_BYTES)
            .await
            .map_err(|_| {
                ControlError::validation(format!(
                    "the body could not be read or is larger than {MAX_CONTROL_BODY_BYTES} bytes"
                ))
            })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonBody(None));
        }
        serde_json::from_slice(&bytes)
            .map(|v| JsonBody(Some(v)))
            .map_err(|e| ControlError::validation(format!("the body is not valid JSON: {e}")))
    }
}

impl JsonBody {
    /// The body as a JSON object; absent or any other JSON value is a 400 whose message is
    /// `the body must be a JSON object <what>`.
    fn object(self, what: &str) -> Result<Value, ControlError> {
        match self.0 {
            Some(body) if body.is_object() => Ok(body),
            _ => Err(ControlError::validation(format!(
                "the body must be a JSON object {what}"
            ))),
        }
    }
}

/// `/_cumulo/...` paths that name no endpoint: 404 ResourceNotFoundException.
async fn unknown_endpoint(uri: Uri) -> ControlError {
    ControlError::not_found(format!("no control endpoint at {}", uri.path()))
}

/// A method an endpoint does not serve: 405 `{"error":"MethodNotAllowedException",...}`.
async fn method_not_allowed(method: Method, uri: Uri) -> ControlError {
    ControlError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        code: "MethodNotAllowedException",
        message: format!("{method} is not served at {}", uri.path()),
    }
}

fn services_map() -> Value {
    json!({
        "cloudformation": "running",
        "scheduler": "running",
        "sqs": "running",
        "sns": "running",
        "ssm": "running",
        "s3": "running",
        "iam": "running",
    })
}

async fn health() -> Json<Value> {
    Json(json!({ "status": "running", "version": VERSION, "services": services_map() }))
}

async fn localstack_health() -> Json<Value> {
    Json(json!({ "services": services_map(), "edition": "community", "version": VERSION }))
}

async fn reset(State(app): State<App>) -> Json<Value> {
    app.reset().await;
    Json(json!({}))
}

async fn clock_get(State(app): State<App>) -> Json<Value> {
    Json(json!({ "now": rfc3339(app.clock.now()), "mode": app.clock.mode().as_str() }))
}

/// Exactly one of `mode`, `set` or `advance_seconds`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockRequest {
    mode: Option<String>,
    set: Option<String>,
    advance_seconds: Option<f64>,
}

async fn clock_post(State(app): State<App>, body: JsonBody) -> Result<Json<Value>, ControlError> {
    let body = body.object("with mode, set or advance_seconds")?;
    let req: ClockRequest =
        serde_json::from_value(body).map_err(|e| ControlError::validation(e.to_string()))?;
    let given = [
        req.mode.is_some(),
        req.set.is_some(),
        req.advance_seconds.is_some(),
    ];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(ControlError::validation(
            "give exactly one of mode, set or advance_seconds",
        ));
    }
    if let Some(mode) = req.mode {
        let mode = ClockMode::parse(&mode).ok_or_else(|| {
            ControlError::validation(format!("mode '{mode}' is not one of system, manual"))
        })?;
        app.clock.set_mode(mode);
        app.scheduler.clock_mode_changed();
        return Ok(Json(
            json!({ "now": rfc3339(app.clock.now()), "mode": mode.as_str() }),
        ));
    }
    let to: DateTime<Utc> = if let Some(set) = req.set {
        parse_rfc3339(&set).ok_or_else(|| {
            ControlError::validation(format!("set '{set}' is not an RFC 3339 instant"))
        })?
    } else {
        let secs = req.advance_seconds.unwrap_or_default();
        if !secs.is_finite() || secs < 0.0 {
            return Err(ControlError::validation(format!(
                "advance_seconds must be a non-negative number, got {secs}"
            )));
        }
        advance(app.clock.now(), secs).ok_or_else(|| {
            ControlError::validation(format!(
                "advance_seconds {secs} moves the clock past {LATEST_INSTANT}"
            ))
        })?
    };
    if to > latest_instant() {
        return Err(ControlError::validation(format!(
            "the clock cannot move past {LATEST_INSTANT}"
        )));
    }
    app.clock
        .check_manual_move(to)
        .map_err(|e| ControlError::validation(e.to_string()))?;
    let moved = app
        .scheduler
        .advance_to(to)
        .await
        .map_err(|e| ControlError::validation(e.to_string()))?;
    // What those attempts delivered and recorded is acknowledged by this answer: commit it.
    app.storage.sync().await;
    Ok(Json(json!({
        "now": rfc3339(app.clock.now()),
        "fired": moved.fired,
        "complete": moved.complete,
    })))
}

/// `now` plus `secs` (finite, non-negative; nanosecond precision), or `None` past
/// [`LATEST_INSTANT`].
fn advance(now: DateTime<Utc>, secs: f64) -> Option<DateTime<Utc>> {
    // More seconds than lie between now and year 9999 never land inside it.
    if secs > 400_000_000_000.0 {
        return None;
    }
    let whole = secs.trunc() as i64;
    let nanos = ((secs - secs.trunc()) * 1e9).round() as i64;
    let to = now
        .checked_add_signed(chrono::Duration::try_seconds(whole)?)?
        .checked_add_signed(chrono::Duration::nanoseconds(nanos))?;
    (to <= latest_instant()).then_some(to)
}

async fn faults_add(State(app): State<App>, body: JsonBody) -> Result<Response, ControlError> {
    let body = body.object("describing the rule")?;
    let input: FaultRuleInput =
        serde_json::from_value(body).map_err(|e| ControlError::validation(e.to_string()))?;
    let id = app.ids.uuid();
    let rule = input
        .into_rule(id.clone())
        .map_err(|e| ControlError::validation(e.0))?;
    app.faults.add(rule);
    Ok((StatusCode::CREATED, Json(json!({ "id": id }))).into_response())
}

async fn faults_list(State(app): State<App>) -> Json<Value> {
    Json(json!({ "faults": app.faults.list() }))
}

async fn faults_clear(State(app): State<App>) -> Json<Value> {
    app.faults.clear();
    Json(json!({}))
}

async fn faults_delete(
    State(app): State<App>,
    ControlPath(id): ControlPath<String>,
) -> Result<Json<Value>, ControlError> {
    if app.faults.remove(&id) {
        Ok(Json(json!({})))
    } else {
        Err(ControlError::not_found(format!(
            "no fault rule has id '{id}'"
        )))
    }
}

#[derive(Debug, Deserialize)]
struct InvocationsQuery {
    schedule_arn: Option<String>,
    limit: Option<String>,
}

fn parse_count(
    name: &str,
    value: Option<&str>,
    default: usize,
    max: usize,
) -> Result<usize, ControlError> {
    match value {
        None | Some("") => Ok(default),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if n >= 1 && n <= max => Ok(n),
            _ if max == usize::MAX => Err(ControlError::validation(format!(
                "{name} must be a positive integer, got '{v}'"
            ))),
            _ => Err(ControlError::validation(format!(
                "{name} must be an integer from 1 to {max}, got '{v}'"
            ))),
        },
    }
}

async fn invocations(
    State(app): State<App>,
    ControlQuery(q): ControlQuery<InvocationsQuery>,
) -> Result<Json<Value>, ControlError> {
    let limit = match q.limit.as_deref() {
        None | Some("") => None,
        Some(v) => Some(parse_count("limit", Some(v), 0, usize::MAX)?),
    };
    let list = app.scheduler.invocations(q.schedule_arn.as_deref(), limit);
    Ok(Json(json!({ "invocations": list })))
}

#[derive(Debug, Deserialize)]
struct PreviewQuery {
    expression: Option<String>,
    timezone: Option<String>,
    after: Option<String>,
    count: Option<String>,
}

/// Most fires one preview answers.
pub const MAX_PREVIEW: usize = 100;

async fn preview(
    State(app): State<App>,
    ControlQuery(q): ControlQuery<PreviewQuery>,
) -> Result<Json<Value>, ControlError> {
    let expression = q
        .expression
        .ok_or_else(|| ControlError::validation("expression is required"))?;
    let after = match q.after.as_deref() {
        None | Some("") => app.clock.now(),
        Some(a) => parse_rfc3339(a).ok_or_else(|| {
            ControlError::validation(format!("after '{a}' is not an RFC 3339 instant"))
        })?,
    };
    let count = parse_count("count", q.count.as_deref(), 5, MAX_PREVIEW)?;
    let fires = app
        .scheduler
        .preview(&expression, q.timezone.as_deref(), after, count)?;
    Ok(Json(json!({ "fires": fires })))
}

#[derive(Debug, Deserialize)]
struct StoredPreviewQuery {
    count: Option<String>,
    account: Option<String>,
    region: Option<String>,
}

async fn stored_preview(
    State(app): State<App>,
    ControlPath((group, name)): ControlPath<(String, String)>,
    ControlQuery(q): ControlQuery<StoredPreviewQuery>,
) -> Result<Json<Value>, ControlError> {
    let count = parse_count("count", q.count.as_deref(), 5, MAX_PREVIEW)?;
    let default = Scope::default_scope();
    let scope = Scope::new(
        q.account.unwrap_or(default.account),
        q.region.unwrap_or(default.region),
    );
    let fires = app.scheduler.stored_preview(&scope, &group, &name, count)?;
    Ok(Json(json!({ "fires": fires })))
}
