//! SQS: queues (standard and FIFO) and their messages. Target of scheduler deliveries and
//! dead-letter queues, backend of `AWS::SQS::Queue`.

use crate::app::Endpoint;
use crate::clock::Clock;
use crate::ids::IdGen;
use crate::storage::Storage;

/// Handle to the SQS core.
#[derive(Clone, Debug)]
pub struct Sqs {
    #[allow(dead_code)]
    clock: Clock,
    #[allow(dead_code)]
    ids: IdGen,
    #[allow(dead_code)]
    storage: Storage,
    #[allow(dead_code)]
    endpoint: Endpoint,
}

impl Sqs {
    /// An empty SQS.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage, endpoint: Endpoint) -> Sqs {
        Sqs {
            endpoint,
            clock,
            ids,
            storage,
        }
    }

    /// Deletes every queue in every account and region.
    pub fn reset(&self) {}
}
