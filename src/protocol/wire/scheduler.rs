//! Scheduler on the wire.

use axum::response::Response;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::AwsRequest;

/// How Scheduler errors are encoded.
pub const PROTOCOL: Protocol = Protocol::RestJson;

/// Handles one Scheduler request.
pub async fn handle(_app: &App, req: AwsRequest) -> Response {
    WireError::not_implemented("Scheduler", "(any)", "UnknownOperationException")
        .into_response(PROTOCOL, &req.request_id)
}
