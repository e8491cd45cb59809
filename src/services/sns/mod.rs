//! SNS: topics and subscriptions; delivers to SQS subscribers. Target of scheduler
//! deliveries, backend of `AWS::SNS::*`.

use crate::clock::Clock;
use crate::ids::IdGen;
use crate::services::sqs::Sqs;
use crate::storage::Storage;

/// Handle to the SNS core.
#[derive(Clone, Debug)]
pub struct Sns {
    #[allow(dead_code)]
    clock: Clock,
    #[allow(dead_code)]
    ids: IdGen,
    #[allow(dead_code)]
    storage: Storage,
    #[allow(dead_code)]
    sqs: Sqs,
}

impl Sns {
    /// An empty SNS that delivers to `sqs`.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage, sqs: Sqs) -> Sns {
        Sns {
            clock,
            ids,
            storage,
            sqs,
        }
    }

    /// Deletes every topic and subscription.
    pub fn reset(&self) {}
}
