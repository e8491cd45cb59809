//! S3 (path style): buckets and objects, enough for `aws cloudformation deploy --s3-bucket`
//! and `TemplateURL`s.

use crate::clock::Clock;
use crate::storage::Storage;

/// Handle to the S3 core.
#[derive(Clone, Debug)]
pub struct S3 {
    #[allow(dead_code)]
    clock: Clock,
    #[allow(dead_code)]
    storage: Storage,
}

impl S3 {
    /// An empty S3.
    pub fn new(clock: Clock, storage: Storage) -> S3 {
        S3 { clock, storage }
    }

    /// Deletes every bucket.
    pub fn reset(&self) {}
}
