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
//!
//! # Decisions where AWS is silent or unrecorded
//!
//! Recorded against AWS (`../shared/reference/aws-recorded/`) and followed exactly: the
//! expression message, `Schedule <name> does not exist.`, `Schedule group <name> does not
//! exist.`, GetSchedule's defaults and omissions, UpdateSchedule as a full replace, the summary
//! shapes, `default` listed first without dates. Chosen by Cumulo, each marked where it is
//! written:
//! - Model constraints (Coral form) are checked before any service rule, as Coral validates
//!   before service code runs; among the service rules the expression comes first.
//! - StartDate more than 5 minutes in the past is refused for recurring schedules with the
//!   text AWS users quote (`validate::START_DATE_TOO_EARLY`); an EndDate in the past is
//!   accepted (like a past `at()`, it simply never fires), but it must be after StartDate.
//!   Both are ignored for `at()`.
//! - The texts of the other service rules (flexible window, Input JSON, EventBridge
//!   parameters, FIFO MessageGroupId, reserved `aws:` tag keys, 200 tags, the `default` group,
//!   an invalid NextToken, quotas, a reused client token) are Cumulo's; see `validate` and
//!   `store`.
//! - The `default` group cannot be deleted: ValidationException.
//! - ListSchedules is ordered by group then name; ListScheduleGroups puts `default` first, then
//!   the others by name. MaxResults defaults to 100. NextToken is the last key returned.
//! - ClientToken: the same token with an identical request (per account, region and
//!   operation) replays the first result for 24 hours; with a different request it is a
//!   ConflictException. Only successful requests are remembered; tokens are not persisted.
//! - Get/Update/Delete of a schedule in a group that does not exist answer
//!   `Schedule <name> does not exist.` (the group only locates the schedule).
//! - A tag ARN of another account or region is `Schedule group <name> does not exist.`.
//! - Groups are deleted synchronously, so `DELETING` is never observed.

mod dispatcher;
pub use dispatcher::{flexible_offset, retry_delay};
mod error;
pub mod expression;
pub mod invocations;
pub mod model;
mod paging;
mod store;
pub mod targets;
pub mod validate;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::mpsc;

pub use error::Error;
pub use model::*;
use validate::Violations;

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
    /// Where clients reach Cumulo (queue URLs in materialised requests).
    pub endpoint: crate::ids::Endpoint,
}

/// Handle to the Scheduler core. Clones share one store.
#[derive(Clone, Debug)]
pub struct Scheduler {
    deps: Deps,
    store: Arc<store::Store>,
    dispatch: Arc<Dispatch>,
}

/// The dispatcher's side of the handle: its command channel (the task is started by
/// [`Scheduler::start`]) and the invocation history.
#[derive(Debug)]
struct Dispatch {
    commands: mpsc::UnboundedSender<dispatcher::Command>,
    receiver: std::sync::Mutex<Option<mpsc::UnboundedReceiver<dispatcher::Command>>>,
    started: std::sync::atomic::AtomicBool,
    invocations: invocations::Invocations,
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
    /// `delivered`, `failed` or `dead_lettered`, as the invocation history records it.
    pub outcome: String,
    /// Error code of a failed attempt.
    pub error_code: Option<String>,
}

/// The most attempts one clock move runs (`POST /_cumulo/clock`). A move that finds more due
/// stops at the instant of the last one it ran and says so ([`ClockMove::complete`] false), so a
/// far jump over frequent schedules costs bounded time and memory; the next move goes on.
pub const MAX_ATTEMPTS_PER_MOVE: usize = 10_000;

/// What one manual clock move did (`POST /_cumulo/clock` answer).
#[derive(Clone, Debug, Default)]
pub struct ClockMove {
    /// The attempts run, in time order (at most [`MAX_ATTEMPTS_PER_MOVE`]).
    pub fired: Vec<FiredAttempt>,
    /// False when the move stopped early at [`MAX_ATTEMPTS_PER_MOVE`] attempts, before the
    /// requested instant; the clock then reads the instant of the last attempt run.
    pub complete: bool,
}

impl ClockMove {
    /// A complete move that ran nothing.
    fn done() -> ClockMove {
        ClockMove {
            fired: Vec::new(),
            complete: true,
        }
    }
}

/// One previewed occurrence: `{"utc": "...Z", "local": "...±hh:mm"}`.
#[derive(Clone, Debug, Serialize)]
pub struct PreviewFire {
    /// The instant in UTC (RFC 3339 with `Z`).
    pub utc: String,
    /// The same instant in the schedule's zone (RFC 3339 with offset).
    pub local: String,
}

/// A request's fingerprint: a hash of everything but its client token.
fn fingerprint(request: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    request.hash(&mut h);
    h.finish()
}

/// The fingerprint of a CreateSchedule / UpdateSchedule request (every member but the token).
fn schedule_fingerprint(input: &ScheduleInput) -> u64 {
    let ScheduleInput {
        name,
        group_name,
        schedule_expression,
        schedule_expression_timezone,
        description,
        start_date,
        end_date,
        state,
        action_after_completion,
        flexible_time_window,
        kms_key_arn,
        target,
        client_token: _,
    } = input;
    fingerprint(&(
        (
            name,
            group_name,
            schedule_expression,
            schedule_expression_timezone,
        ),
        (
            description,
            start_date,
            end_date,
            state,
            action_after_completion,
        ),
        (flexible_time_window, kms_key_arn, target),
    ))
}

/// Which remembered token a mutation uses, if it carries one.
fn token_use<'a>(
    scope: &Scope,
    operation: &str,
    token: Option<&'a str>,
    fingerprint: u64,
) -> Option<store::TokenUse<'a>> {
    let token = token?;
    Some(store::TokenUse {
        token,
        key: self::fingerprint(&(&scope.account, &scope.region, operation, token)),
        fingerprint,
    })
}

/// The ARN a replayed CreateSchedule / UpdateSchedule answers (the request is identical).
fn replayed_schedule_arn(scope: &Scope, input: &ScheduleInput) -> String {
    schedule_arn(
        scope,
        input.group_name.as_deref().unwrap_or(DEFAULT_GROUP),
        &input.name,
    )
}

/// MaxResults, defaulting to 100 (validated to 1–100 before).
fn page_size(max_results: Option<i64>) -> usize {
    max_results
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(100)
        .clamp(1, 100)
}

/// The group a tag ARN names, when it is in the caller's account and region.
fn own_group(scope: &Scope, target: Option<(String, String, String)>) -> Result<String, Error> {
    let Some((region, account, group)) = target else {
        return Err(Error::Internal("a validated ARN did not parse".into()));
    };
    if region != scope.region || account != scope.account {
        return Err(Error::ResourceNotFound(format!(
            "Schedule group {group} does not exist."
        )));
    }
    Ok(group)
}

impl Scheduler {
    /// A scheduler with no schedules (the `default` group exists in every scope).
    pub fn new(deps: Deps) -> Scheduler {
        let store = Arc::new(store::Store::new(deps.storage.clone()));
        let (commands, receiver) = mpsc::unbounded_channel();
        let dispatch = Arc::new(Dispatch {
            commands,
            receiver: std::sync::Mutex::new(Some(receiver)),
            started: std::sync::atomic::AtomicBool::new(false),
            invocations: invocations::Invocations::new(deps.config.invocation_history),
        });
        Scheduler {
            deps,
            store,
            dispatch,
        }
    }

    /// Starts the dispatcher task (once; not at all with
    /// `CUMULO_SCHEDULER_INVOCATION_ENABLED=false`, which gives CRUD only).
    pub fn start(&self) {
        if !self.deps.config.scheduler_invocation_enabled {
            return;
        }
        let Some(receiver) = crate::sync::lock(&self.dispatch.receiver).take() else {
            return;
        };
        let attempter = Arc::new(dispatcher::Attempter {
            storage: self.deps.storage.clone(),
            clock: self.deps.clock.clone(),
            ids: self.deps.ids.clone(),
            faults: self.deps.faults.clone(),
            targets: targets::Targets {
                sqs: self.deps.sqs.clone(),
                sns: self.deps.sns.clone(),
                endpoint: self.deps.endpoint.clone(),
            },
            invocations: self.dispatch.invocations.clone(),
        });
        let changes = self.subscribe_changes();
        let task = dispatcher::Dispatcher::new(
            self.clone(),
            attempter,
            changes,
            receiver,
            self.dispatch.commands.clone(),
        );
        self.dispatch
            .started
            .store(true, std::sync::atomic::Ordering::SeqCst);
        tokio::spawn(task.run());
    }

    /// Deletes every schedule and group, pending retry and invocation record (and remembered
    /// client tokens); the `default` group exists again in every scope. Subscribers get
    /// [`ScheduleChange::Reset`].
    pub fn reset(&self) {
        self.store.reset();
        self.dispatch.invocations.clear();
    }

    // --------------------------------------------------------------------------------------
    // API operations (EventBridge Scheduler API Reference, "Actions")
    // --------------------------------------------------------------------------------------

    /// CreateSchedule: validates `input` (ValidationException with AWS's message), then creates
    /// the schedule in `input.group_name` (default `default`). Returns the schedule ARN.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule group <g> does not exist.`;
    /// `Conflict` `Schedule <name> already exists.`; `ServiceQuotaExceeded`. A repeated
    /// `client_token` with an identical request answers the first result again; with a
    /// different request it is a `Conflict`.
    pub fn create_schedule(&self, scope: &Scope, input: ScheduleInput) -> Result<String, Error> {
        let now = self.deps.clock.now();
        let token = token_use(
            scope,
            "CreateSchedule",
            input.client_token.as_deref(),
            schedule_fingerprint(&input),
        );
        if self.store.check_token(token, now)? {
            return Ok(replayed_schedule_arn(scope, &input));
        }
        let schedule = validate::schedule(&input, now)?;
        self.store.create_schedule(scope, schedule, token, now)
    }

    /// UpdateSchedule: a full replace of the schedule `input.name` in `input.group_name`
    /// (default `default`; the group only locates it). Omitted optional members revert to
    /// their defaults; CreationDate is kept, LastModificationDate moves. Returns the ARN.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule <name> does not exist.`; `Conflict`
    /// for a client token reused with a different request.
    pub fn update_schedule(&self, scope: &Scope, input: ScheduleInput) -> Result<String, Error> {
        let now = self.deps.clock.now();
        let token = token_use(
            scope,
            "UpdateSchedule",
            input.client_token.as_deref(),
            schedule_fingerprint(&input),
        );
        if self.store.check_token(token, now)? {
            return Ok(replayed_schedule_arn(scope, &input));
        }
        let schedule = validate::schedule(&input, now)?;
        self.store.update_schedule(scope, schedule, token, now)
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
        let mut v = Violations::default();
        validate::client_token(&mut v, "clientToken", client_token);
        validate::group_name(&mut v, "groupName", group);
        validate::name(&mut v, "name", name);
        v.finish()?;
        let now = self.deps.clock.now();
        let group = group.unwrap_or(DEFAULT_GROUP);
        let token = token_use(
            scope,
            "DeleteSchedule",
            client_token,
            fingerprint(&(group, name)),
        );
        self.store.delete_schedule(scope, group, name, token, now)
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
        let mut v = Violations::default();
        validate::group_name(&mut v, "groupName", group);
        validate::name(&mut v, "name", name);
        v.finish()?;
        self.store
            .get_schedule(scope, group.unwrap_or(DEFAULT_GROUP), name)
    }

    /// ListSchedules: one page (MaxResults 1–100, default 100), ordered by group then name;
    /// `next_token` continues strictly after the last schedule returned, so inserts and
    /// deletes between pages never repeat or skip another schedule.
    ///
    /// Errors: `Validation` (also for a NextToken Cumulo did not issue); `ResourceNotFound`
    /// `Schedule group <g> does not exist.` for a `ScheduleGroup` filter naming a missing group.
    pub fn list_schedules(
        &self,
        scope: &Scope,
        input: ListSchedulesInput,
    ) -> Result<ListSchedulesOutput, Error> {
        let mut v = Violations::default();
        validate::group_name(&mut v, "groupName", input.group_name.as_deref());
        validate::list_paging(
            &mut v,
            input.max_results,
            input.name_prefix.as_deref(),
            input.next_token.as_deref(),
        );
        let state = validate::list_state(&mut v, input.state.as_deref());
        v.finish()?;
        let after = match input.next_token.as_deref() {
            None => None,
            Some(t) => Some(paging::decode_schedule_token(t)?),
        };
        let filter = store::ScheduleFilter {
            group: input.group_name.as_deref(),
            name_prefix: input.name_prefix.as_deref(),
            state,
            max_results: page_size(input.max_results),
            after,
        };
        let (schedules, next) = self.store.list_schedules(scope, &filter)?;
        Ok(ListSchedulesOutput {
            schedules,
            next_token: next.map(|c| paging::encode_schedule_token(&c)),
        })
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
        self.create_group_tagged(scope, input, Vec::new())
    }

    /// CreateScheduleGroup as CloudFormation makes a group: `input` is validated exactly as
    /// [`Scheduler::create_schedule_group`] validates it (its own tags may not use the reserved
    /// `aws:` prefix), then `system_tags`, the `aws:cloudformation:stack-name`, `stack-id` and
    /// `logical-id` tags AWS puts on groups a stack creates (aws-contract.md §5.2), are added
    /// after them. ListTagsForResource shows them; TagResource and UntagResource still refuse
    /// `aws:` keys from API callers. Only the `AWS::Scheduler::ScheduleGroup` provider calls
    /// this; system tags do not count toward the 200-tag limit.
    ///
    /// Errors: as [`Scheduler::create_schedule_group`].
    pub fn create_schedule_group_with_system_tags(
        &self,
        scope: &Scope,
        input: CreateScheduleGroupInput,
        system_tags: Vec<Tag>,
    ) -> Result<String, Error> {
        self.create_group_tagged(scope, input, system_tags)
    }

    fn create_group_tagged(
        &self,
        scope: &Scope,
        input: CreateScheduleGroupInput,
        system_tags: Vec<Tag>,
    ) -> Result<String, Error> {
        let mut v = Violations::default();
        validate::client_token(&mut v, "clientToken", input.client_token.as_deref());
        validate::name(&mut v, "name", &input.name);
        let mut tags = validate::tags(&mut v, "tags", input.tags.as_deref().unwrap_or(&[]));
        v.finish()?;
        validate::reserved_keys(tags.iter().map(|t| t.key.as_str()))?;
        for tag in system_tags {
            validate::merge_tag(&mut tags, tag);
        }
        let now = self.deps.clock.now();
        let token = token_use(
            scope,
            "CreateScheduleGroup",
            input.client_token.as_deref(),
            fingerprint(&(&input.name, &input.tags)),
        );
        self.store
            .create_group(scope, &input.name, tags, token, now)
    }

    /// GetScheduleGroup.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule group <name> does not exist.`.
    pub fn get_schedule_group(&self, scope: &Scope, name: &str) -> Result<ScheduleGroup, Error> {
        let mut v = Violations::default();
        validate::name(&mut v, "name", name);
        v.finish()?;
        self.store.get_group(scope, name)
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
        let mut v = Violations::default();
        validate::client_token(&mut v, "clientToken", client_token);
        validate::name(&mut v, "name", name);
        v.finish()?;
        if name == DEFAULT_GROUP {
            return Err(Error::Validation(
                validate::DEFAULT_GROUP_UNDELETABLE.into(),
            ));
        }
        let now = self.deps.clock.now();
        let token = token_use(
            scope,
            "DeleteScheduleGroup",
            client_token,
            fingerprint(&name),
        );
        self.store.delete_group(scope, name, token, now)
    }

    /// ListScheduleGroups: one page (MaxResults 1–100, default 100), `default` first, then the
    /// other groups by name.
    ///
    /// Errors: `Validation` (also for a NextToken Cumulo did not issue).
    pub fn list_schedule_groups(
        &self,
        scope: &Scope,
        input: ListScheduleGroupsInput,
    ) -> Result<ListScheduleGroupsOutput, Error> {
        let mut v = Violations::default();
        validate::list_paging(
            &mut v,
            input.max_results,
            input.name_prefix.as_deref(),
            input.next_token.as_deref(),
        );
        v.finish()?;
        let after = match input.next_token.as_deref() {
            None => None,
            Some(t) => Some(paging::decode_group_token(t)?),
        };
        let (schedule_groups, next) = self.store.list_groups(
            scope,
            input.name_prefix.as_deref(),
            page_size(input.max_results),
            after.as_deref(),
        );
        Ok(ListScheduleGroupsOutput {
            schedule_groups,
            next_token: next.map(|n| paging::encode_group_token(&n)),
        })
    }

    /// TagResource: adds `tags` to the group named by `resource_arn` (a schedule-group ARN;
    /// schedules cannot be tagged: their ARN fails the pattern). An existing key gets the new
    /// value; at most 200 tags in all.
    ///
    /// Errors: `Validation`; `ResourceNotFound` `Schedule group <g> does not exist.` (also for
    /// a group ARN of another account or region).
    pub fn tag_resource(
        &self,
        scope: &Scope,
        resource_arn: &str,
        tags: Option<Vec<TagInput>>,
    ) -> Result<(), Error> {
        let mut v = Violations::default();
        let target = validate::resource_arn(&mut v, resource_arn);
        let tags = match v.required("tags", tags.as_ref()) {
            Some(t) => validate::tags(&mut v, "tags", t),
            None => Vec::new(),
        };
        v.finish()?;
        validate::reserved_keys(tags.iter().map(|t| t.key.as_str()))?;
        let group = own_group(scope, target)?;
        self.store.tag_group(scope, &group, resource_arn, tags)
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
        let mut v = Violations::default();
        let target = validate::resource_arn(&mut v, resource_arn);
        if let Some(keys) = v.required("tagKeys", tag_keys.as_ref()) {
            validate::tag_keys(&mut v, "tagKeys", keys);
        }
        v.finish()?;
        let keys = tag_keys.unwrap_or_default();
        validate::reserved_keys(keys.iter().map(String::as_str))?;
        let group = own_group(scope, target)?;
        self.store.untag_group(scope, &group, &keys)
    }

    /// ListTagsForResource: the group's tags in the order they were first set.
    ///
    /// Errors: `Validation`; `ResourceNotFound`.
    pub fn list_tags_for_resource(
        &self,
        scope: &Scope,
        resource_arn: &str,
    ) -> Result<Vec<Tag>, Error> {
        let mut v = Violations::default();
        let target = validate::resource_arn(&mut v, resource_arn);
        v.finish()?;
        let group = own_group(scope, target)?;
        self.store.group_tags(scope, &group)
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
    pub fn clock_mode_changed(&self) {
        let _ = self
            .dispatch
            .commands
            .send(dispatcher::Command::ClockChanged);
    }

    /// Moves the manual clock to `to`, firing in time order every occurrence and retry due at
    /// or before it, and answers once each attempt has finished.
    pub async fn advance_to(
        &self,
        to: DateTime<Utc>,
    ) -> Result<ClockMove, crate::clock::ClockError> {
        if !self
            .dispatch
            .started
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            self.deps.clock.step_manual(to)?;
            return Ok(ClockMove::done());
        }
        let (reply, answer) = tokio::sync::oneshot::channel();
        if self
            .dispatch
            .commands
            .send(dispatcher::Command::AdvanceTo { to, reply })
            .is_err()
        {
            self.deps.clock.step_manual(to)?;
            return Ok(ClockMove::done());
        }
        match answer.await {
            Ok(result) => result,
            Err(_) => {
                self.deps.clock.step_manual(to)?;
                Ok(ClockMove::done())
            }
        }
    }

    /// Invocation history, oldest first, optionally for one schedule and capped at `limit`.
    pub fn invocations(
        &self,
        schedule_arn: Option<&str>,
        limit: Option<usize>,
    ) -> Vec<invocations::InvocationRecord> {
        self.dispatch.invocations.list(schedule_arn, limit)
    }

    /// The next `count` occurrences of `expression` strictly after `after`, none past
    /// [`crate::time::LATEST_INSTANT`].
    pub fn preview(
        &self,
        expression: &str,
        timezone: Option<&str>,
        after: DateTime<Utc>,
        count: usize,
    ) -> Result<Vec<PreviewFire>, Error> {
        let fires = expression::preview(expression, timezone, after, count)
            .map_err(|e| Error::Validation(e.to_string()))?;
        let latest = crate::time::latest_instant();
        Ok(fires
            .iter()
            .take_while(|f| f.utc <= latest)
            .map(|f| PreviewFire {
                utc: crate::time::rfc3339(f.utc),
                local: f.local_rfc3339(),
            })
            .collect())
    }

    /// The next `count` occurrences of a stored schedule strictly after the clock's now,
    /// honouring its StartDate, EndDate (exclusive) and zone; `rate` counts from StartDate, or
    /// from the schedule's creation without one. A DISABLED schedule has none.
    ///
    /// Errors: `Validation` for a malformed name; `ResourceNotFound`
    /// `Schedule <name> does not exist.`.
    pub fn stored_preview(
        &self,
        scope: &Scope,
        group: &str,
        name: &str,
        count: usize,
    ) -> Result<Vec<PreviewFire>, Error> {
        let key = ScheduleKey::new(scope.clone(), group, name);
        let Some(schedule) = self.store.schedule(&key) else {
            return Err(Error::ResourceNotFound(format!(
                "Schedule {name} does not exist."
            )));
        };
        if schedule.state != ScheduleState::Enabled {
            return Ok(Vec::new());
        }
        let fires = expression::fires(
            &schedule.expression,
            schedule.timezone,
            &dispatcher::window_of(&schedule),
            self.deps.clock.now(),
            count,
        );
        let latest = crate::time::latest_instant();
        Ok(fires
            .iter()
            .take_while(|f| f.utc <= latest)
            .map(|f| PreviewFire {
                utc: crate::time::rfc3339(f.utc),
                local: f.local_rfc3339(),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests;
