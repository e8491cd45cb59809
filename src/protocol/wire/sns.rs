//! SNS on the wire.

use axum::response::Response;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::AwsRequest;

/// How SNS errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Query {
    xmlns: "http://sns.amazonaws.com/doc/2010-03-31/",
};

/// Handles one SNS request.
pub async fn handle(_app: &App, req: AwsRequest) -> Response {
    WireError::not_implemented("SNS", "(any)", "InvalidAction")
        .into_response(PROTOCOL, &req.request_id)
}
