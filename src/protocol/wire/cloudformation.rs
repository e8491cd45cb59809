//! CloudFormation on the wire.

use axum::response::Response;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::AwsRequest;

/// How CloudFormation errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Query {
    xmlns: "http://cloudformation.amazonaws.com/doc/2010-05-15/",
};

/// Handles one CloudFormation request.
pub async fn handle(_app: &App, req: AwsRequest) -> Response {
    WireError::not_implemented("CloudFormation", "(any)", "InvalidAction")
        .into_response(PROTOCOL, &req.request_id)
}
