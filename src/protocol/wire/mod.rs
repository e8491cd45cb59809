//! Per-service wire modules: decode an operation's input, call one core operation, encode
//! its output or error. Each exposes `handle(&App, AwsRequest) -> Response`.

pub mod cloudformation;
pub mod s3;
pub mod scheduler;
pub mod sns;
pub mod sqs;
pub mod ssm;
