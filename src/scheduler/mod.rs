//! EventBridge Scheduler: schedules and schedule groups per (account, region), their
//! validation, expression evaluation, and the dispatcher that fires them. Knows nothing of HTTP.
//!
//! [`Scheduler`] has one method per API operation (CreateSchedule, GetSchedule, ...). Each takes
//! the caller's [`Scope`] and a raw input from [`model`], validates it exactly as AWS does
//! ([`validate`]) and applies it to the store ([`store`]). The wire layer
//! (`crate::protocol::wire::scheduler`) and the CloudFormation providers call the same methods,
//! so a template is refused for exactly the reasons the API would refuse it.
//!
//! Hooks for the dispatcher: [`Scheduler::subscribe_changes`] (every create, update, enable,
//! disable and delete, in order, with the schedule's generation), [`Scheduler::schedule`]
//! (a cheap read by key), [`Scheduler::schedules_snapshot`] and
//! [`Scheduler::delete_after_completion`].

mod error;
pub mod expression;
pub mod model;
mod store;
pub mod validate;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::mpsc;

pub use error::Error;
pub use model::*;

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

/// Handle to the Scheduler core. Clones share one store.
#[derive(Clone, Debug)]
pub struct Scheduler {
    #[allow(dead_code)]
    deps: Deps,
    store: Arc<store::Store>,
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
        let store = Arc::new(store::Store::new(deps.storage.clone()));
        Scheduler { deps, store }
    }

    /// Starts the dispatcher task.
    pub fn start(&self) {}

    /// Deletes every schedule and group, pending retry and invocation record (and remembered
    /// client tokens); the `default` group exists again in every scope. Subscribers get
    /// [`ScheduleChange::Reset`].
    pub fn reset(&self) {
        self.store.reset();
    }

    // --------------------------------------------------------------------------------------
    // API operations (EventBridge Scheduler API Reference, "Actions")
    // --------------------------------------------------------------------------------------

    /// CreateSchedule: validates `input` (ValidationException with AWS's message), then creates
    /// the schedule in `input.group_name` (default `default`). Returns the schedule ARN.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule group <g> does not exist.`;
    /// `Conflict` `Schedule <name> already exists.`; `ServiceQuotaExceeded`. A repeated
    /// `client_token` with an identical request answers the first result again.
    pub fn create_schedule(&self, scope: &Scope, input: ScheduleInput) -> Result<String, Error> {
        let _ = (scope, input);
        Err(Error::Internal(
            "CreateSchedule is not implemented yet".into(),
        ))
    }

    /// UpdateSchedule: a full replace of the schedule `input.name` in `input.group_name`
    /// (default `default`; the group only locates it). Omitted optional members revert to
    /// their defaults; CreationDate is kept, LastModificationDate moves. Returns the ARN.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule <name> does not exist.`; `Conflict`
    /// for a client token reused with a different request.
    pub fn update_schedule(&self, scope: &Scope, input: ScheduleInput) -> Result<String, Error> {
        let _ = (scope, input);
        Err(Error::Internal(
            "UpdateSchedule is not implemented yet".into(),
        ))
    }

    /// DeleteSchedule: deletes `name` from `group` (default `default`).
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule <name> does not exist.`.
    pub fn delete_schedule(
        &self,
        scope: &Scope,
        group: Option<&str>,
        name: &str,
        client_token: Option<&str>,
    ) -> Result<(), Error> {
        let _ = (scope, group, name, client_token);
        Err(Error::Internal(
            "DeleteSchedule is not implemented yet".into(),
        ))
    }

    /// GetSchedule: the schedule `name` in `group` (default `default` only: a schedule in
    /// another group is not found without its group).
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule <name> does not exist.`.
    pub fn get_schedule(
        &self,
        scope: &Scope,
        group: Option<&str>,
        name: &str,
    ) -> Result<Arc<Schedule>, Error> {
        let _ = (scope, group, name);
        Err(Error::Internal("GetSchedule is not implemented yet".into()))
    }

    /// ListSchedules: one page, ordered by group then name; `next_token` continues after the
    /// last schedule returned, so inserts and deletes between pages never repeat or skip
    /// another schedule.
    ///
    /// Errors: `Validation` (also for a NextToken Cumulo did not issue); `ResourceNotFound`
    /// for a `ScheduleGroup` filter naming a missing group.
    pub fn list_schedules(
        &self,
        scope: &Scope,
        input: ListSchedulesInput,
    ) -> Result<ListSchedulesOutput, Error> {
        let _ = (scope, input);
        Err(Error::Internal(
            "ListSchedules is not implemented yet".into(),
        ))
    }

    /// CreateScheduleGroup: creates a group with `input.tags`. Returns the group ARN.
    ///
    /// Errors: `Validation`; `Conflict` `Schedule group <name> already exists.` (nothing in
    /// the existing group changes); `ServiceQuotaExceeded` past 500 groups.
    pub fn create_schedule_group(
        &self,
        scope: &Scope,
        input: CreateScheduleGroupInput,
    ) -> Result<String, Error> {
        let _ = (scope, input);
        Err(Error::Internal(
            "CreateScheduleGroup is not implemented yet".into(),
        ))
    }

    /// GetScheduleGroup.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule group <name> does not exist.`.
    pub fn get_schedule_group(&self, scope: &Scope, name: &str) -> Result<ScheduleGroup, Error> {
        let _ = (scope, name);
        Err(Error::Internal(
            "GetScheduleGroup is not implemented yet".into(),
        ))
    }

    /// DeleteScheduleGroup: deletes the group and every schedule in it, in one step (AWS
    /// shows the group `DELETING` meanwhile; Cumulo never leaves a half-deleted group).
    ///
    /// Errors: `Validation` (also for `default`, which cannot be deleted); `ResourceNotFound`.
    pub fn delete_schedule_group(
        &self,
        scope: &Scope,
        name: &str,
        client_token: Option<&str>,
    ) -> Result<(), Error> {
        let _ = (scope, name, client_token);
        Err(Error::Internal(
            "DeleteScheduleGroup is not implemented yet".into(),
        ))
    }

    /// ListScheduleGroups: one page, `default` first, then the other groups by name.
    ///
    /// Errors: `Validation`.
    pub fn list_schedule_groups(
        &self,
        scope: &Scope,
        input: ListScheduleGroupsInput,
    ) -> Result<ListScheduleGroupsOutput, Error> {
        let _ = (scope, input);
        Err(Error::Internal(
            "ListScheduleGroups is not implemented yet".into(),
        ))
    }

    /// TagResource: adds `tags` to the group named by `resource_arn` (a schedule-group ARN;
    /// schedules cannot be tagged). An existing key gets the new value.
    ///
    /// Errors: `Validation`; `ResourceNotFound` for a group that does not exist.
    pub fn tag_resource(
        &self,
        scope: &Scope,
        resource_arn: &str,
        tags: Option<Vec<TagInput>>,
    ) -> Result<(), Error> {
        let _ = (scope, resource_arn, tags);
        Err(Error::Internal("TagResource is not implemented yet".into()))
    }

    /// UntagResource: removes `tag_keys` (absent keys are ignored).
    ///
    /// Errors: `Validation`; `ResourceNotFound`.
    pub fn untag_resource(
        &self,
        scope: &Scope,
        resource_arn: &str,
        tag_keys: Option<Vec<String>>,
    ) -> Result<(), Error> {
        let _ = (scope, resource_arn, tag_keys);
        Err(Error::Internal(
            "UntagResource is not implemented yet".into(),
        ))
    }

    /// ListTagsForResource: the group's tags in the order they were first set.
    ///
    /// Errors: `Validation`; `ResourceNotFound`.
    pub fn list_tags_for_resource(
        &self,
        scope: &Scope,
        resource_arn: &str,
    ) -> Result<Vec<Tag>, Error> {
        let _ = (scope, resource_arn);
        Err(Error::Internal(
            "ListTagsForResource is not implemented yet".into(),
        ))
    }

    // --------------------------------------------------------------------------------------
    // Dispatcher hooks
    // --------------------------------------------------------------------------------------

    /// Every later change to the set of schedules, in order. One subscriber at a time: a new
    /// subscription replaces the previous one (whose receiver then ends). Read the schedules
    /// that exist already with [`Scheduler::schedules_snapshot`] after subscribing.
    pub fn subscribe_changes(&self) -> mpsc::UnboundedReceiver<ScheduleChange> {
        self.store.subscribe()
    }

    /// The schedule at `key`, if any (an `Arc` clone under a short lock).
    pub fn schedule(&self, key: &ScheduleKey) -> Option<Arc<Schedule>> {
        self.store.schedule(key)
    }

    /// Every schedule of every scope, in key order.
    pub fn schedules_snapshot(&self) -> Vec<(ScheduleKey, Arc<Schedule>)> {
        self.store.snapshot()
    }

    /// Deletes the schedule at `key` if it still has `generation` (ActionAfterCompletion
    /// DELETE after its last invocation); false when it was changed or deleted meanwhile.
    pub fn delete_after_completion(&self, key: &ScheduleKey, generation: u64) -> bool {
        self.store.delete_if_generation(key, generation)
    }

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
        _timezone: Option<&str>,
        _after: DateTime<Utc>,
        _count: usize,
    ) -> Result<Vec<PreviewFire>, Error> {
        Err(Error::Validation(format!(
            "Invalid Schedule Expression {expression}."
        )))
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
