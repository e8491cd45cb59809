//! `App`: the composition root. It builds every core once, wires their collaborators
//! (clock, ids, storage, faults, and the service handles the scheduler's targets and the
//! CloudFormation providers call), and is the axum state every handler receives.

use std::sync::Arc;

use crate::clock::Clock;
use crate::cloudformation::CloudFormation;
use crate::config::Config;
use crate::faults::Faults;
/// The listener's base URL; defined in `ids` so the services below `app` import it from there.
pub use crate::ids::Endpoint;
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

/// Handles to every part of a running emulator. Cloning is cheap (all handles are `Arc`s).
#[derive(Clone, Debug)]
pub struct App {
    /// The configuration it was started with.
    pub config: Arc<Config>,
    /// The one clock.
    pub clock: Clock,
    /// The id generator.
    pub ids: IdGen,
    /// Where clients reach this emulator.
    pub endpoint: Endpoint,
    /// The durable store (a no-op without `CUMULO_DATA_DIR`).
    pub storage: Storage,
    /// Injected failures.
    pub faults: Faults,
    /// SQS.
    pub sqs: Sqs,
    /// SNS.
    pub sns: Sns,
    /// SSM Parameter Store.
    pub ssm: Ssm,
    /// S3 (templates for CloudFormation).
    pub s3: S3,
    /// IAM roles and policies (stored for CloudFormation).
    pub iam: Iam,
    /// Lambda functions and permissions (stored for CloudFormation).
    pub lambda: Lambda,
    /// Step Functions state machines (stored for CloudFormation).
    pub states: States,
    /// CloudWatch Logs log groups (stored for CloudFormation).
    pub logs: Logs,
    /// KMS keys and aliases (stored for CloudFormation).
    pub kms: Kms,
    /// EventBridge Scheduler, with its dispatcher.
    pub scheduler: Scheduler,
    /// CloudFormation.
    pub cloudformation: CloudFormation,
}

/// What `App::new` needs besides the configuration (tests inject a manual clock and a seed).
#[derive(Clone, Debug, Default)]
pub struct Parts {
    /// The clock to use; `None` builds one in the configured mode.
    pub clock: Option<Clock>,
    /// The storage to use; `None` is in-memory.
    pub storage: Option<Storage>,
}

impl App {
    /// Builds every core. Background tasks (the dispatcher) start with [`App::start`].
    pub fn new(config: Config, parts: Parts) -> App {
        let config = Arc::new(config);
        let clock = parts
            .clock
            .unwrap_or_else(|| match (config.clock, config.clock_start) {
                (crate::clock::ClockMode::Manual, Some(start)) => Clock::manual_at(start),
                (mode, _) => Clock::new(mode),
            });
        let ids = config.seed.map(IdGen::seeded).unwrap_or_default();
        let endpoint = Endpoint::default();
        let storage = parts.storage.unwrap_or_else(Storage::memory);
        let faults = Faults::default();
        let sqs = Sqs::new(
            clock.clone(),
            ids.clone(),
            storage.clone(),
            endpoint.clone(),
        );
        let sns = Sns::new(clock.clone(), ids.clone(), storage.clone(), sqs.clone());
        let ssm = Ssm::new(clock.clone(), storage.clone());
        let s3 = S3::new(clock.clone(), storage.clone());
        let iam = Iam::new(clock.clone(), ids.clone(), storage.clone());
        let lambda = Lambda::new(clock.clone(), ids.clone(), storage.clone(), iam.clone());
        let states = States::new(clock.clone(), ids.clone(), storage.clone());
        let logs = Logs::new(clock.clone(), storage.clone());
        let kms = Kms::new(clock.clone(), ids.clone(), storage.clone());
        let scheduler = Scheduler::new(crate::scheduler::Deps {
            config: config.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
            storage: storage.clone(),
            faults: faults.clone(),
            sqs: sqs.clone(),
            sns: sns.clone(),
            endpoint: endpoint.clone(),
        });
        let cloudformation = CloudFormation::new(crate::cloudformation::Deps {
            config: config.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
            storage: storage.clone(),
            faults: faults.clone(),
            sqs: sqs.clone(),
            sns: sns.clone(),
            ssm: ssm.clone(),
            s3: s3.clone(),
            iam: iam.clone(),
            lambda: lambda.clone(),
            states: states.clone(),
            logs: logs.clone(),
            kms: kms.clone(),
            scheduler: scheduler.clone(),
        });
        App {
            config,
            clock,
            ids,
            endpoint,
            storage,
            faults,
            sqs,
            sns,
            ssm,
            s3,
            iam,
            lambda,
            states,
            logs,
            kms,
            scheduler,
            cloudformation,
        }
    }

    /// Starts the background tasks (the scheduler's dispatcher).
    pub fn start(&self) {
        self.scheduler.start();
    }

    /// `POST /_cumulo/reset`: wipes every account's and region's state, the faults and the
    /// invocation history; the clock keeps its mode and time.
    pub async fn reset(&self) {
        self.faults.clear();
        self.cloudformation.reset();
        self.scheduler.reset();
        self.sqs.reset();
        self.sns.reset();
        self.ssm.reset();
        self.s3.reset();
        self.iam.reset();
        self.lambda.reset();
        self.states.reset();
        self.logs.reset();
        self.kms.reset();
        self.storage.wipe();
        self.storage.sync().await;
    }
}
