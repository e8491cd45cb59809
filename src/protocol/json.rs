//! awsJson 1.0/1.1 request decoding shared by the JSON services (SQS, SSM): the operation from
//! `X-Amz-Target: <Prefix>.<Operation>` and the body as the operation's input shape.

use serde::de::DeserializeOwned;

use super::error::WireError;
use super::AwsRequest;

/// The operation named by `X-Amz-Target` (`AmazonSQS.SendMessage` → `SendMessage`), with the
/// service `prefix` removed; the whole header value when it has another prefix; "" without one.
pub fn operation(req: &AwsRequest, prefix: &str) -> String {
    let target = req
        .headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    target
        .strip_prefix(prefix)
        .and_then(|t| t.strip_prefix('.'))
        .unwrap_or(target)
        .to_string()
}

/// The body as `T` (an empty body reads as `{}`); a body that is not the operation's JSON is a
/// `SerializationException` (HTTP 400), as AWS's JSON services answer it.
pub fn decode<T: DeserializeOwned>(req: &AwsRequest) -> Result<T, WireError> {
    let body: &[u8] = if req.body.is_empty() {
        b"{}"
    } else {
        &req.body
    };
    serde_json::from_slice(body).map_err(|e| {
        WireError::bad_request(
            "SerializationException",
            format!("The request body could not be read as the operation's JSON input: {e}"),
        )
    })
}
