//! SSM Parameter Store: parameters read by `AWS::SSM::Parameter::Value<...>` template
//! parameters, backend of `AWS::SSM::Parameter`.

use crate::clock::Clock;
use crate::storage::Storage;

/// Handle to the SSM core.
#[derive(Clone, Debug)]
pub struct Ssm {
    #[allow(dead_code)]
    clock: Clock,
    #[allow(dead_code)]
    storage: Storage,
}

impl Ssm {
    /// An empty parameter store.
    pub fn new(clock: Clock, storage: Storage) -> Ssm {
        Ssm { clock, storage }
    }

    /// Deletes every parameter.
    pub fn reset(&self) {}
}
