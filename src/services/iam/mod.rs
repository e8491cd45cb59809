//! IAM: roles and policies created by stacks (stored; nothing is enforced), so that ARNs,
//! role ids and `Ref`/`GetAtt` answers are what AWS gives.

use crate::clock::Clock;
use crate::ids::IdGen;
use crate::storage::Storage;

/// Handle to the IAM store.
#[derive(Clone, Debug)]
pub struct Iam {
    #[allow(dead_code)]
    clock: Clock,
    #[allow(dead_code)]
    ids: IdGen,
    #[allow(dead_code)]
    storage: Storage,
}

impl Iam {
    /// An empty IAM.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage) -> Iam {
        Iam {
            clock,
            ids,
            storage,
        }
    }

    /// Deletes every role and policy.
    pub fn reset(&self) {}
}
