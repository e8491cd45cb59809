//! What the CloudFormation core is built from: the configuration, the clock, ids, storage,
//! faults and the handles of the cores its providers act on. Plain data the composition root
//! (`app`) fills; no behaviour.

use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::faults::Faults;
use crate::ids::IdGen;
use crate::scheduler::Scheduler;
use crate::services::iam::Iam;
use crate::services::kms::Kms;
use crate::services::lambda::Lambda;
use crate::services::logs::Logs;
use crate::services::s3::S3;
use crate::services::sns::Sns;
use crate::services::sqs::Sqs;
use crate::services::ssm::Ssm;
use crate::services::states::States;
use crate::storage::Storage;

/// What the CloudFormation core is built from.
#[derive(Clone, Debug)]
pub struct Deps {
    /// Configuration.
    pub config: Arc<Config>,
    /// The clock.
    pub clock: Clock,
    /// Id generator.
    pub ids: IdGen,
    /// Durable store.
    pub storage: Storage,
    /// Injected step failures.
    pub faults: Faults,
    /// SQS (queues).
    pub sqs: Sqs,
    /// SNS (topics, subscriptions).
    pub sns: Sns,
    /// SSM (parameters).
    pub ssm: Ssm,
    /// S3 (TemplateURL).
    pub s3: S3,
    /// IAM (roles, policies).
    pub iam: Iam,
    /// Lambda (functions, permissions).
    pub lambda: Lambda,
    /// Step Functions (state machines).
    pub states: States,
    /// CloudWatch Logs (log groups).
    pub logs: Logs,
    /// KMS (keys, aliases).
    pub kms: Kms,
    /// Scheduler (schedules, groups).
    pub scheduler: Scheduler,
}
