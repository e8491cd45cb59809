//! SSM on the wire.

use axum::response::Response;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::AwsRequest;

/// How SSM errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Json {
    type_prefix: "",
    content_type: "application/x-amz-json-1.1",
};

/// Handles one SSM request.
pub async fn handle(_app: &App, req: AwsRequest) -> Response {
    WireError::not_implemented("SSM", "(any)", "UnsupportedOperation")
        .into_response(PROTOCOL, &req.request_id)
}
