//! SQS: queues (standard and FIFO) and their messages. Target of scheduler deliveries and
//! dead-letter queues, backend of `AWS::SQS::Queue`.

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
}

impl Sqs {
    /// An empty SQS.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage) -> Sqs {
        Sqs {
            clock,
            ids,
            storage,
        }
    }

    /// Deletes every queue in every account and region.
    pub fn reset(&self) {}
}
