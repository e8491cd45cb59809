//! `WireError`: the only place that knows AWS error codes' HTTP statuses and how each protocol
//! encodes an error (`../shared/reference/aws-contract.md` §2.3 awsQuery, §4.3 restJson1, and
//! botocore's awsJson rules for SQS/SSM).
//!
//! Core modules return their own error enums; each has one `From` impl into `WireError`
//! (in the module's wire file), so the encoding never leaks into the cores.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;

use super::xml::escape;

/// How a service's errors are written on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// awsQuery: `<ErrorResponse xmlns=..><Error><Type/><Code/><Message/></Error><RequestId/>`
    /// (CloudFormation, SNS, IAM, STS).
    Query {
        /// The service's XML namespace.
        xmlns: &'static str,
    },
    /// awsJson 1.0/1.1: `{"__type": "<prefix><Code>", "message": ...}` (SQS, SSM).
    Json {
        /// Prefix of `__type`, e.g. `com.amazonaws.sqs#` (may be empty).
        type_prefix: &'static str,
        /// `application/x-amz-json-1.0` or `-1.1`.
        content_type: &'static str,
    },
    /// restJson1: `x-amzn-ErrorType: <Code>` and `{"Message": ...}` (Scheduler).
    RestJson,
    /// restXml (S3): `<Error><Code/><Message/><RequestId/></Error>`.
    RestXml,
}

/// An AWS error as the client sees it: code, message, HTTP status and fault side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// The wire code (`ValidationError`, `ResourceNotFoundException`, ...).
    pub code: String,
    /// The message, exactly as AWS words it where known.
    pub message: String,
    /// HTTP status.
    pub status: StatusCode,
    /// `Sender` (client fault) or `Receiver` (server fault).
    pub sender_fault: bool,
    /// awsQuery-compatible code for the `x-amzn-query-error` header (SQS's JSON protocol),
    /// e.g. `AWS.SimpleQueueService.NonExistentQueue`.
    pub query_error_code: Option<String>,
}

impl WireError {
    /// A client error with `code`, `message` and `status`.
    pub fn new(
        code: impl Into<String>,
        message: impl Into<String>,
        status: StatusCode,
    ) -> WireError {
        WireError {
            code: code.into(),
            message: message.into(),
            status,
            sender_fault: status.is_client_error(),
            query_error_code: None,
        }
    }

    /// HTTP 400 with `code`.
    pub fn bad_request(code: impl Into<String>, message: impl Into<String>) -> WireError {
        WireError::new(code, message, StatusCode::BAD_REQUEST)
    }

    /// awsQuery's generic `ValidationError` (HTTP 400).
    pub fn validation_error(message: impl Into<String>) -> WireError {
        WireError::bad_request("ValidationError", message)
    }

    /// The modeled `ValidationException` (HTTP 400) of JSON services.
    pub fn validation_exception(message: impl Into<String>) -> WireError {
        WireError::bad_request("ValidationException", message)
    }

    /// An operation Cumulo does not implement: HTTP 400 (never 500, which botocore retries)
    /// naming it (aws-contract.md §0 item 20).
    pub fn not_implemented(service: &str, operation: &str, code: &str) -> WireError {
        WireError::bad_request(
            code,
            format!("Cumulo does not implement the {service} operation {operation}"),
        )
    }

    /// An unexpected internal failure (HTTP 500, logged once by the protocol middleware).
    pub fn internal(message: impl Into<String>) -> WireError {
        let mut err = WireError::new(
            "InternalFailure",
            message,
            StatusCode::INTERNAL_SERVER_ERROR,
        );
        err.sender_fault = false;
        err
    }

    /// Sets the `x-amzn-query-error` code.
    pub fn with_query_error(mut self, code: impl Into<String>) -> WireError {
        self.query_error_code = Some(code.into());
        self
    }

    /// The error encoded for `protocol`, carrying `request_id`.
    pub fn into_response(self, protocol: Protocol, request_id: &str) -> Response {
        if self.status.is_server_error() {
            tracing::error!(code = %self.code, message = %self.message, "server error");
        } else {
            tracing::debug!(code = %self.code, message = %self.message, "client error");
        }
        let fault = if self.sender_fault {
            "Sender"
        } else {
            "Receiver"
        };
        let (content_type, body, extra): (&str, String, Vec<(&str, String)>) = match protocol {
            Protocol::Query { xmlns } => (
                "text/xml",
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ErrorResponse xmlns=\"{xmlns}\"><Error><Type>{fault}</Type><Code>{}</Code><Message>{}</Message></Error><RequestId>{request_id}</RequestId></ErrorResponse>",
                    escape(&self.code),
                    escape(&self.message)
                ),
                vec![],
            ),
            Protocol::Json { type_prefix, content_type } => {
                let body = serde_json::json!({
                    "__type": format!("{type_prefix}{}", self.code),
                    "message": self.message,
                });
                let mut extra = vec![];
                if let Some(q) = &self.query_error_code {
                    extra.push(("x-amzn-query-error", format!("{q};{fault}")));
                }
                (content_type, body.to_string(), extra)
            }
            Protocol::RestJson => (
                "application/json",
                serde_json::json!({ "Message": self.message }).to_string(),
                vec![("x-amzn-ErrorType", self.code.clone())],
            ),
            Protocol::RestXml => (
                "application/xml",
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message><RequestId>{request_id}</RequestId></Error>",
                    escape(&self.code),
                    escape(&self.message)
                ),
                vec![],
            ),
        };
        let mut response = Response::new(Body::from(body));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert("content-type", HeaderValue::from_static(content_type));
        if let Ok(v) = HeaderValue::from_str(request_id) {
            headers.insert("x-amzn-requestid", v.clone());
            headers.insert("x-amz-request-id", v);
        }
        for (name, value) in extra {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        }
        response
    }
}
