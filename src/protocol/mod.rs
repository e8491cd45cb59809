//! The edge: the only code that knows HTTP, AWS wire protocols and wire shapes.
//!
//! One axum [`router`] on one port serves Cumulo's own `/_cumulo/` endpoints ([`control`]) and,
//! as its fallback, every AWS request: [`route`] picks the service from the SigV4 scope,
//! `X-Amz-Target`, `Action=` or the REST path; `wire::<service>::handle` decodes the operation,
//! calls one core operation, and encodes the answer or the [`error::WireError`].
//! Nothing below this module (scheduler, cloudformation, services) names axum or wire shapes.

pub mod auth;
pub mod control;
pub mod error;
pub mod json;
pub mod query;
pub mod route;
pub mod server;
pub mod wire;
pub mod xml;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use tracing::Instrument;

use crate::app::App;
use crate::ids::Scope;
use error::{Protocol, WireError};
use query::QueryInput;
use route::Service;

/// Largest request body accepted (S3 template uploads are at most 1,000,000 bytes; SQS
/// messages 256 KiB).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The largest S3 request body Cumulo reads (1 GiB; AWS takes single PUTs up to 5 GB, but
/// Cumulo holds objects in memory).
pub const MAX_S3_BODY_BYTES: usize = 1024 * 1024 * 1024;

/// One AWS request, read whole, with the scope it acts in.
#[derive(Debug)]
pub struct AwsRequest {
    /// HTTP method.
    pub method: Method,
    /// Raw URI (path not percent-decoded: Scheduler's `/tags/{ResourceArn}` needs `%2F` kept).
    pub uri: Uri,
    /// Request headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
    /// Account and region the request acts in.
    pub scope: Scope,
    /// This request's id (echoed in responses and errors).
    pub request_id: String,
}

impl AwsRequest {
    /// The urlencoded form of an awsQuery request (body, plus the URL query for a GET).
    pub fn form(&self) -> QueryInput {
        QueryInput::parse(&self.body, self.uri.query())
    }

    /// The raw URL query string, or "".
    pub fn url_query(&self) -> &str {
        self.uri.query().unwrap_or("")
    }
}

/// The whole HTTP surface. Tests serve it on `127.0.0.1:0` and talk to it with the AWS SDKs.
pub fn router(app: App) -> Router {
    Router::new()
        .merge(control::routes())
        .fallback(aws)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app)
}

fn is_form(headers: &HeaderMap) -> bool {
    headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"))
}

async fn aws(State(app): State<App>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let request_id = app.ids.uuid();
    // Routed by what precedes the body: a SigV4 scope naming S3 is S3 whatever the body's type
    // (an object may be uploaded with a form Content-Type). An unsigned urlencoded form names
    // its service only in its `Action`, so the S3 path fallback is not taken for one before the
    // body is read.
    let by_headers = route::route(&parts.method, &parts.uri, &parts.headers, None)
        .filter(|r| r.signed || !(r.service == Service::S3 && is_form(&parts.headers)));
    let service = by_headers.as_ref().map(|r| &r.service);
    let limit = body_limit(service);
    let declared = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return unreadable_body(service, &parts.headers, true, &request_id);
    }
    let body = match axum::body::to_bytes(body, limit).await {
        Ok(b) => b,
        Err(err) if is_body_timeout(&err) => {
            return body_timed_out(service, &parts.headers, &err, &request_id)
        }
        Err(err) => {
            return unreadable_body(service, &parts.headers, is_length_limit(&err), &request_id)
        }
    };
    let signed_s3 = by_headers
        .as_ref()
        .is_some_and(|r| r.signed && r.service == Service::S3);
    let form_action = if !signed_s3 && (is_form(&parts.headers) || parts.method == Method::GET) {
        QueryInput::parse(&body, parts.uri.query())
            .action()
            .map(str::to_string)
    } else {
        None
    };
    // Without an Action the body adds no evidence: the routing above stands.
    let routed = match by_headers {
        Some(routed) if form_action.is_none() => Some(routed),
        _ => route::route(
            &parts.method,
            &parts.uri,
            &parts.headers,
            form_action.as_deref(),
        ),
    };
    let Some(mut routed) = routed else {
        return unknown_service(&parts.headers, "unknown", &request_id);
    };
    let signed = auth::sigv4::Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body: &body,
    };
    match auth::check(&app.config.auth, &app.clock, signed, &routed.service) {
        Ok(None) => {}
        Ok(Some(account)) => routed.scope.account = account,
        Err(err) => {
            let protocol = error_protocol(Some(&routed.service), &parts.headers);
            return err.into_response(protocol, &request_id);
        }
    }
    let req = AwsRequest {
        method: parts.method,
        uri: parts.uri,
        headers: parts.headers,
        body,
        scope: routed.scope,
        request_id,
    };
    let span = tracing::debug_span!(
        "aws",
        service = routed.service.name(),
        method = %req.method,
        path = req.uri.path(),
        target = req.headers.get("x-amz-target").and_then(|v| v.to_str().ok()),
        action = form_action.as_deref(),
        request_id = %req.request_id
    );
    let handled = async {
        match routed.service {
            Service::CloudFormation => wire::cloudformation::handle(&app, req).await,
            Service::Scheduler => wire::scheduler::handle(&app, req).await,
            Service::Sqs => wire::sqs::handle(&app, req).await,
            Service::Sns => wire::sns::handle(&app, req).await,
            Service::Ssm => wire::ssm::handle(&app, req).await,
            Service::S3 => wire::s3::handle(&app, req).await,
            Service::Other(name) => unknown_service(&req.headers, &name, &req.request_id),
        }
    };
    let response = handled.instrument(span.clone()).await;
    span.in_scope(|| tracing::debug!(status = response.status().as_u16(), "answered"));
    response
}

/// The largest request body Cumulo reads for `service`, in bytes: [`MAX_S3_BODY_BYTES`] for S3
/// (objects are single PUTs), [`MAX_BODY_BYTES`] for everything else.
fn body_limit(service: Option<&Service>) -> usize {
    match service {
        Some(Service::S3) => MAX_S3_BODY_BYTES,
        _ => MAX_BODY_BYTES,
    }
}

/// Whether reading a body failed on its length limit (rather than a broken connection).
fn is_length_limit(err: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if e.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = e.source();
    }
    false
}

/// A body over the limit (declared or read) or cut short, in the protocol of the service it
/// was meant for (awsQuery for an unsigned form): S3's
/// `EntityTooLarge` (400, its text for an upload over the maximum size); elsewhere 413
/// `RequestEntityTooLarge`, and 400 `IncompleteBody` for a body that could not be read.
fn unreadable_body(
    service: Option<&Service>,
    headers: &HeaderMap,
    too_large: bool,
    request_id: &str,
) -> Response {
    let limit = body_limit(service);
    let err = match (service, too_large) {
        (Some(Service::S3), true) => WireError::bad_request(
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
        ),
        (_, true) => WireError::new(
            "RequestEntityTooLarge",
            format!("The request body exceeds Cumulo's limit of {limit} bytes."),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (_, false) => WireError::bad_request(
            "IncompleteBody",
            "The request body could not be read to its end.",
        ),
    };
    err.into_response(error_protocol(service, headers), request_id)
}

/// The error shape of a request for `service` known before its body is read (awsQuery for an
/// unsigned form, whose Action is in the body; restJson when nothing names a service).
fn error_protocol(service: Option<&Service>, headers: &HeaderMap) -> Protocol {
    match service {
        Some(Service::CloudFormation) => wire::cloudformation::PROTOCOL,
        Some(Service::Sns) => wire::sns::PROTOCOL,
        Some(Service::Sqs) if is_form(headers) => wire::sqs::QUERY_PROTOCOL,
        Some(Service::Sqs) => wire::sqs::PROTOCOL,
        Some(Service::Ssm) => wire::ssm::PROTOCOL,
        Some(Service::S3) => wire::s3::PROTOCOL,
        // An unsigned form whose Action was never read: awsQuery, as `unknown_service` answers.
        None if is_form(headers) => Protocol::Query { xmlns: "" },
        Some(Service::Scheduler) | Some(Service::Other(_)) | None => Protocol::RestJson,
    }
}

/// Whether reading a body failed on the body-read timeout ([`server::BodyReadTimeout`]).
fn is_body_timeout(err: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if e.is::<server::BodyReadTimeout>() {
            return true;
        }
        source = e.source();
    }
    false
}

/// A body that stopped arriving (`CUMULO_BODY_READ_TIMEOUT`): S3's `RequestTimeout` (400, its
/// documented text); elsewhere 408 `RequestTimeout` in the service's error shape. The
/// connection closes after the answer (the rest of the body never came).
fn body_timed_out(
    service: Option<&Service>,
    headers: &HeaderMap,
    err: &axum::Error,
    request_id: &str,
) -> Response {
    let wire_error = match service {
        Some(Service::S3) => WireError::bad_request(
            "RequestTimeout",
            "Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.",
        ),
        _ => WireError::new(
            "RequestTimeout",
            format!("The request body stopped arriving: {err}."),
            StatusCode::REQUEST_TIMEOUT,
        ),
    };
    let mut response = wire_error.into_response(error_protocol(service, headers), request_id);
    response
        .headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The answer to a connection over `CUMULO_MAX_CONNECTIONS` ([`server`]): 503
/// `ServiceUnavailable` in the error shape of the service its headers name, or `/_cumulo/`'s
/// JSON error for Cumulo's own endpoints; the connection closes after it. SDKs retry a 503.
pub fn over_capacity(
    parts: &http::request::Parts,
    max_connections: usize,
    request_id: &str,
) -> Response {
    let message = format!(
        "Cumulo is serving its maximum of {max_connections} connections (CUMULO_MAX_CONNECTIONS); retry later."
    );
    let path = parts.uri.path();
    let mut response = if path.starts_with("/_cumulo/") || path.starts_with("/_localstack/") {
        tracing::warn!(path, "{message}");
        let mut r = Response::new(Body::from(
            serde_json::json!({ "error": "ServiceUnavailable", "message": message }).to_string(),
        ));
        *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        r.headers_mut()
            .insert("content-type", HeaderValue::from_static("application/json"));
        r
    } else {
        let routed = route::route(&parts.method, &parts.uri, &parts.headers, None)
            .filter(|r| !(r.service == Service::S3 && is_form(&parts.headers)));
        let service = routed.map(|r| r.service);
        WireError::new(
            "ServiceUnavailable",
            message,
            StatusCode::SERVICE_UNAVAILABLE,
        )
        .into_response(error_protocol(service.as_ref(), &parts.headers), request_id)
    };
    response
        .headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A service Cumulo does not emulate: HTTP 400 naming it (never a 500, which botocore retries).
fn unknown_service(headers: &HeaderMap, name: &str, request_id: &str) -> Response {
    let err = WireError::bad_request(
        "UnknownService",
        format!("Cumulo does not emulate the AWS service '{name}'"),
    );
    if is_form(headers) {
        err.into_response(Protocol::Query { xmlns: "" }, request_id)
    } else {
        err.into_response(
            Protocol::Json {
                type_prefix: "",
                content_type: "application/x-amz-json-1.1",
            },
            request_id,
        )
    }
}

/// A 200 response with `content_type` and `body`, carrying the request id headers.
pub fn ok_response(
    content_type: &'static str,
    body: impl Into<Body>,
    request_id: &str,
) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", v.clone());
        headers.insert("x-amz-request-id", v);
    }
    response
}
