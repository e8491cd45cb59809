//! EventBridge Scheduler: schedules and schedule groups per (account, region), their
//! validation, expression evaluation, and the dispatcher that fires them. Knows nothing of HTTP.

mod error;
pub mod expression;
pub mod invocations;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use error::Error;

use crate::clock::Clock;
use crate::config::Config;
use crate::faults::Faults;
use crate::ids::{IdGen, Scope};
use crate::services::sns::Sns;
use crate::services::sqs::Sqs;
use crate::storage::Storage;

/// What the scheduler core is built from.
#[derive(Clone, Debug)]
pub struct Deps {
    /// Configuration (invocation history bound, dispatch on/off).
    pub config: Arc<Config>,
    /// The clock.
    pub clock: Clock,
    /// Id generator.
    pub ids: IdGen,
    /// Durable store.
    pub storage: Storage,
    /// Injected delivery failures.
    pub faults: Faults,
    /// SQS target.
    pub sqs: Sqs,
    /// SNS target.
    pub sns: Sns,
}

/// Handle to the Scheduler core.
#[derive(Clone, Debug)]
pub struct Scheduler {
    #[allow(dead_code)]
    deps: Deps,
}

/// One delivery attempt made while the manual clock moved (`POST /_cumulo/clock` answer).
#[derive(Clone, Debug, Serialize)]
pub struct FiredAttempt {
    /// Schedule ARN.
    pub schedule_arn: String,
    /// The occurrence's due instant (RFC 3339).
    pub scheduled_time: String,
    /// 1-based attempt number.
    pub attempt: u32,
    /// `delivered` or `failed`.
    pub outcome: String,
    /// Error code of a failed attempt.
    pub error_code: Option<String>,
}

/// One previewed occurrence: `{"utc": "...Z", "local": "...±hh:mm"}`.
#[derive(Clone, Debug, Serialize)]
pub struct PreviewFire {
    /// The instant in UTC (RFC 3339 with `Z`).
    pub utc: String,
    /// The same instant in the schedule's zone (RFC 3339 with offset).
    pub local: String,
}

impl Scheduler {
    /// A scheduler with no schedules (the `default` group exists in every scope).
    pub fn new(deps: Deps) -> Scheduler {
        Scheduler { deps }
    }

    /// Starts the dispatcher task.
    pub fn start(&self) {}

    /// Deletes every schedule and group, pending retry and invocation record.
    pub fn reset(&self) {}

    /// The clock switched mode; the dispatcher re-evaluates its next wake-up.
    pub fn clock_mode_changed(&self) {}

    /// Moves the manual clock to `to`, firing in time order every occurrence and retry due at
    /// or before it, and answers once each attempt has finished.
    pub async fn advance_to(
        &self,
        to: DateTime<Utc>,
    ) -> Result<Vec<FiredAttempt>, crate::clock::ClockError> {
        self.deps.clock.step_manual(to)?;
        Ok(Vec::new())
    }

    /// Invocation history, oldest first, optionally for one schedule and capped at `limit`.
    pub fn invocations(
        &self,
        _schedule_arn: Option<&str>,
        _limit: Option<usize>,
    ) -> Vec<serde_json::Value> {
        Vec::new()
    }

    /// The next `count` occurrences of `expression` strictly after `after`.
    pub fn preview(
        &self,
        expression: &str,
        timezone: Option<&str>,
        after: DateTime<Utc>,
        count: usize,
    ) -> Result<Vec<PreviewFire>, Error> {
        let fires = expression::preview(expression, timezone, after, count)
            .map_err(|e| Error::Validation(e.to_string()))?;
        Ok(fires
            .iter()
            .map(|f| PreviewFire {
                utc: crate::time::rfc3339(f.utc),
                local: f.local_rfc3339(),
            })
            .collect())
    }

    /// The next `count` occurrences of a stored schedule.
    pub fn stored_preview(
        &self,
        _scope: &Scope,
        _group: &str,
        name: &str,
        _count: usize,
    ) -> Result<Vec<PreviewFire>, Error> {
        Err(Error::ResourceNotFound(format!(
            "Schedule {name} does not exist."
        )))
    }
}
