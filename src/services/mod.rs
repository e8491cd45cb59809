//! Plain AWS services: the targets schedules deliver to and the backends CloudFormation
//! providers create resources in. Each is a cheap `Clone` handle over `Arc<Mutex<State>>`
//! with one method per AWS operation; none knows HTTP.

pub mod iam;
pub mod s3;
pub mod sns;
pub mod sqs;
pub mod ssm;
