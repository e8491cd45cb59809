//! SQS on the wire.

use axum::response::Response;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::AwsRequest;

/// How SQS errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Json {
    type_prefix: "com.amazonaws.sqs#",
    content_type: "application/x-amz-json-1.0",
};

/// Handles one SQS request.
pub async fn handle(_app: &App, req: AwsRequest) -> Response {
    WireError::not_implemented("SQS", "(any)", "UnsupportedOperation")
        .into_response(PROTOCOL, &req.request_id)
}
