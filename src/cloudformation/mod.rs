//! CloudFormation: templates, stacks, change sets and the stack engine that creates, updates,
//! replaces, moves and rolls back resources through providers over the other cores.

pub mod registry;
pub mod template;

use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::faults::Faults;
use crate::ids::IdGen;
use crate::scheduler::Scheduler;
use crate::services::iam::Iam;
use crate::services::s3::S3;
use crate::services::sns::Sns;
use crate::services::sqs::Sqs;
use crate::services::ssm::Ssm;
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
    /// Scheduler (schedules, groups).
    pub scheduler: Scheduler,
}

/// Handle to the CloudFormation core.
#[derive(Clone, Debug)]
pub struct CloudFormation {
    #[allow(dead_code)]
    deps: Deps,
}

impl CloudFormation {
    /// A CloudFormation with no stacks.
    pub fn new(deps: Deps) -> CloudFormation {
        CloudFormation { deps }
    }

    /// Deletes every stack, change set and export (not the resources: the other cores reset
    /// themselves).
    pub fn reset(&self) {}
}
