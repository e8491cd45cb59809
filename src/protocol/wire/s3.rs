//! S3 on the wire.

use axum::response::Response;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::AwsRequest;

/// How S3 errors are encoded.
pub const PROTOCOL: Protocol = Protocol::RestXml;

/// Handles one S3 request.
pub async fn handle(_app: &App, req: AwsRequest) -> Response {
    WireError::not_implemented("S3", "(any)", "NotImplemented")
        .into_response(PROTOCOL, &req.request_id)
}
