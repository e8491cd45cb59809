//! The dispatcher: the one task that owns the due-queue and fires schedules on time
//! (`../shared/spec/000_*.txt` "Schedule Invocation" and "Retries and dead-letter queues", where
//! that text admits a gap against AWS doing what AWS does; spec 003 for the timing rules).
//!
//! - The queue is a `BTreeMap` ordered by due instant. Each entry is one attempt of one
//!   occurrence: attempt 1 is the occurrence itself, later ones are retries. An entry carries
//!   the schedule's generation; a create, update, disable or delete changes the generation, so
//!   stale entries (and the pending retries of the old configuration) are dropped when popped.
//! - The task sleeps until the earliest due instant through the [`Clock`] (no periodic scan) and
//!   wakes on schedule changes (`Scheduler::subscribe_changes`), on clock changes and on
//!   commands. In `system` mode due attempts run as their own tasks, so a slow target never
//!   delays another schedule. In `manual` mode nothing fires by itself: `POST /_cumulo/clock`
//!   sends [`Command::AdvanceTo`], and the task steps the clock through every due instant up to
//!   the target time in order, running each attempt before the next, and answers with what it
//!   fired.
//! - Occurrence k of a `rate` is anchor + k × interval (anchor = StartDate, else creation), not
//!   measured from the previous dispatch. With `FlexibleTimeWindow` FLEXIBLE an occurrence fires
//!   [`flexible_offset`] after its scheduled instant: deterministic, unlike AWS's random pick.
//! - A failed attempt is retried after 60 s, 120 s, 240 s, … doubling, capped at 86,400 s, no
//!   jitter (AWS adds jitter), within MaximumRetryAttempts and MaximumEventAgeInSeconds; an
//!   exhausted occurrence goes to its standard-SQS dead-letter queue with the nine attributes.
//! - Durability (with `CUMULO_DATA_DIR`): when an occurrence is taken off the queue the task
//!   records it as the schedule's last fired occurrence and as in flight ([`DISPATCH_TABLE`],
//!   [`PENDING_TABLE`]), in one transaction; the attempt's outcome (in flight row deleted or
//!   turned into a queued retry, invocation record) commits in one transaction with the SQS
//!   message it delivered. After a restart ([`Dispatcher::run`]): rows still in flight are
//!   attempted again (`possible_duplicate` only where the delivery is not atomic with its
//!   record: SNS), queued retries resume at their due times, and occurrences missed while
//!   Cumulo was down follow one rule: the most recent is delivered if younger than
//!   MaximumEventAgeInSeconds, every other one is recorded as `dropped` (the first
//!   [`MAX_MISSED_RECORDS`] one record each, any beyond them one compact record with their
//!   count and first and last instants).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

use super::expression::{self, Window};
use serde::{Deserialize, Serialize};

use super::invocations::{seq_key, InvocationRecord, Invocations, Outcome, INVOCATIONS_TABLE};
use super::model::{
    ActionAfterCompletion, FlexibleTimeWindowMode, Schedule, ScheduleChange, ScheduleKey,
    ScheduleState,
};
use super::targets::{self, AttemptContext, InvocationError, Targets};
use super::{ClockMove, FiredAttempt, Scheduler, MAX_ATTEMPTS_PER_MOVE};
use crate::clock::{Clock, ClockError, ClockMode};
use crate::faults::Faults;
use crate::ids::{IdGen, Scope};
use crate::storage::{Storage, StoredOp};
use crate::time::rfc3339;

/// Store table of each schedule's last fired occurrence ([`DispatchRow`]), keyed by [`key_text`].
pub const DISPATCH_TABLE: &str = "scheduler_dispatch";
/// Store table of occurrences in flight or waiting for a retry ([`PendingRow`]), keyed by
/// [`pending_key`].
pub const PENDING_TABLE: &str = "scheduler_pending";
/// At most this many missed occurrences of one schedule get a `dropped` record each after a
/// restart; those between them and the most recent one are counted into one compact record.
pub const MAX_MISSED_RECORDS: usize = 100;

/// `account/region/group/name`: a schedule's key in the dispatcher's tables.
pub fn key_text(key: &ScheduleKey) -> String {
    format!(
        "{}/{}/{}/{}",
        key.scope.account, key.scope.region, key.group, key.name
    )
}

/// `<key_text>#<scheduled time>`: an occurrence's key in [`PENDING_TABLE`].
pub fn pending_key(key: &ScheduleKey, scheduled: DateTime<Utc>) -> String {
    format!("{}#{}", key_text(key), rfc3339(scheduled))
}

/// What the store keeps of a schedule's dispatch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DispatchRow {
    /// The schedule generation this was written for.
    pub generation: u64,
    /// The last occurrence taken off the queue (scheduled instant, UTC).
    pub last_scheduled: Option<DateTime<Utc>>,
}

/// An occurrence in flight, or waiting for its next attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingRow {
    /// Account of the schedule.
    pub account: String,
    /// Region of the schedule.
    pub region: String,
    /// Group of the schedule.
    pub group: String,
    /// Name of the schedule.
    pub name: String,
    /// Schedule generation the occurrence belongs to.
    pub generation: u64,
    /// The occurrence's scheduled instant.
    pub scheduled: DateTime<Utc>,
    /// The attempt in flight, or the next one to make.
    pub attempt: u32,
    /// When that attempt is due.
    pub due: DateTime<Utc>,
    /// True while an attempt is being made (a restart cannot be sure it did not deliver).
    pub in_flight: bool,
}

impl PendingRow {
    fn key(&self) -> ScheduleKey {
        ScheduleKey::new(
            Scope::new(&self.account, &self.region),
            &self.group,
            &self.name,
        )
    }
}

/// The first retry delay, in seconds.
pub const FIRST_RETRY_DELAY_SECONDS: i64 = 60;
/// The longest retry delay, in seconds.
pub const MAX_RETRY_DELAY_SECONDS: i64 = 86_400;
/// Largest dead-letter body sent whole; a longer one is cut and flagged `IS_PAYLOAD_TRUNCATED`.
pub const MAX_DEAD_LETTER_BODY: usize = 256 * 1024;

/// The delay before the retry that follows failed attempt `attempt` (1-based): 60 s × 2^(attempt−1),
/// capped at 86,400 s.
pub fn retry_delay(attempt: u32) -> Duration {
    let doublings = attempt.saturating_sub(1).min(20);
    Duration::seconds((FIRST_RETRY_DELAY_SECONDS << doublings).min(MAX_RETRY_DELAY_SECONDS))
}

/// The offset at which an occurrence of a FLEXIBLE schedule fires: the first 8 bytes of
/// SHA-256(`<schedule ARN>#<scheduled time, RFC 3339>`) as a big-endian integer, modulo the
/// window in seconds (`MaximumWindowInMinutes` × 60). Whole seconds in [0, window).
pub fn flexible_offset(
    schedule_arn: &str,
    scheduled: DateTime<Utc>,
    window_minutes: u32,
) -> Duration {
    let window = u64::from(window_minutes.max(1)) * 60;
    let digest = Sha256::digest(format!("{schedule_arn}#{}", rfc3339(scheduled)).as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    Duration::seconds((u64::from_be_bytes(first) % window) as i64)
}

/// A schedule's occurrence window: StartDate/EndDate, `rate` anchored at StartDate or, without
/// one, at the creation instant rounded up to the whole second (scheduled times are whole
/// seconds, as `<aws.scheduler.scheduled-time>` writes them).
pub fn window_of(schedule: &Schedule) -> Window {
    let created = schedule.creation_date;
    let created = if created.timestamp_subsec_nanos() == 0 {
        created
    } else {
        DateTime::from_timestamp(created.timestamp() + 1, 0).unwrap_or(created)
    };
    Window {
        start: schedule.start_date,
        end: schedule.end_date,
        anchor: schedule.start_date.unwrap_or(created),
    }
}

/// Where the search for a changed schedule's next occurrence starts (exclusive): just before
/// the change itself (its LastModificationDate), not the instant the dispatcher gets to it, so
/// an occurrence due at the change (a `rate` fires first at its creation) is kept however busy
/// the dispatcher is; never after `now` (a system clock may read earlier than a manual clock
/// did when the change was made) and never at or before the last occurrence already fired.
fn first_search_start(
    last_scheduled: Option<DateTime<Utc>>,
    changed_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> DateTime<Utc> {
    let start = changed_at.min(now) - Duration::nanoseconds(1);
    match last_scheduled {
        Some(last) => last.max(start),
        None => start,
    }
}

/// Commands to the dispatcher task.
#[derive(Debug)]
pub(crate) enum Command {
    /// Step the manual clock to `to`, firing everything due on the way.
    AdvanceTo {
        to: DateTime<Utc>,
        reply: oneshot::Sender<Result<ClockMove, ClockError>>,
    },
    /// The clock's mode changed: re-evaluate the next wake-up.
    ClockChanged,
    /// A retry decided by an attempt that ran as its own task.
    Retry { due: DateTime<Utc>, job: Job },
}

/// One queued attempt.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    key: Arc<ScheduleKey>,
    generation: u64,
    scheduled: DateTime<Utc>,
    attempt: u32,
    /// Set on an attempt repeated after a restart that could not rule out its delivery.
    possible_duplicate: bool,
    /// Set on an attempt put back by a restart: the occurrence was already taken off the queue
    /// once (its following occurrence is queued separately).
    recovered: bool,
}

impl Job {
    fn pending_row(&self, due: DateTime<Utc>, in_flight: bool) -> PendingRow {
        PendingRow {
            account: self.key.scope.account.clone(),
            region: self.key.scope.region.clone(),
            group: self.key.group.clone(),
            name: self.key.name.clone(),
            generation: self.generation,
            scheduled: self.scheduled,
            attempt: self.attempt,
            due,
            in_flight,
        }
    }
}

/// What the dispatcher remembers of each schedule.
#[derive(Debug)]
struct Tracked {
    generation: u64,
    /// The last occurrence that fired (its scheduled instant): nothing at or before it fires
    /// again, whatever the clock does.
    last_scheduled: Option<DateTime<Utc>>,
}

/// Everything one attempt needs, shared by the dispatcher and the attempt tasks.
#[derive(Debug)]
pub(crate) struct Attempter {
    pub(crate) storage: Storage,
    pub(crate) clock: Clock,
    pub(crate) ids: IdGen,
    pub(crate) faults: Faults,
    pub(crate) targets: Targets,
    pub(crate) invocations: Invocations,
}

/// What an attempt came to.
struct Attempted {
    fired: FiredAttempt,
    retry: Option<(DateTime<Utc>, Job)>,
    /// The occurrence is over (delivered, or exhausted).
    finished: bool,
}

impl Attempter {
    /// Makes attempt `job.attempt` of one occurrence: delivers, records, and decides what
    /// follows. The bookkeeping of the outcome (pending row, invocation record) is committed
    /// with the delivered SQS message where there is one.
    async fn attempt(&self, schedule: &Schedule, job: &Job) -> Attempted {
        let arn = job.key.arn();
        let invoked_at = self.clock.now();
        let execution_id = self.ids.hex(16);
        let ctx = AttemptContext {
            scope: &job.key.scope,
            schedule_arn: &arn,
            scheduled_time: job.scheduled,
            execution_id: &execution_id,
            attempt: job.attempt,
        };
        let materialised =
            targets::materialise(schedule, &ctx, &self.targets.endpoint, &self.targets.sqs);
        let request = match &materialised {
            Ok(d) => d.request.clone(),
            Err(_) => serde_json::Value::String(targets::payload(schedule, &ctx)),
        };
        let scheduled_time = rfc3339(job.scheduled);
        let seq = self.invocations.reserve();
        let durable = self.storage.is_durable();
        let record = |outcome: Outcome, error: Option<&InvocationError>| InvocationRecord {
            occurrence_key: format!("{arn}#{scheduled_time}"),
            schedule_arn: arn.clone(),
            target_arn: schedule.target.arn.clone(),
            scheduled_time: scheduled_time.clone(),
            attempt: job.attempt,
            execution_id: execution_id.clone(),
            invoked_at: rfc3339(invoked_at),
            outcome,
            error_code: error.map(|e| e.code.clone()),
            error_message: error.map(|e| e.message.clone()),
            request: request.clone(),
            possible_duplicate: job.possible_duplicate,
            occurrence_count: None,
            last_scheduled_time: None,
        };
        // What a delivered attempt leaves behind: no pending row, one invocation record.
        let finished_ops = |record: &InvocationRecord| -> Vec<StoredOp> {
            if !durable {
                return Vec::new();
            }
            let mut ops = vec![StoredOp::delete(
                PENDING_TABLE,
                pending_key(&job.key, job.scheduled),
            )];
            ops.extend(StoredOp::put(INVOCATIONS_TABLE, seq_key(seq), record));
            ops
        };

        let mut result: Result<(), InvocationError> = Ok(());
        if let Some(hit) = self.faults.match_delivery(&schedule.target.arn) {
            if let Some(hold) = hit.hold {
                self.clock.sleep_wall(hold).await;
            }
            if let Some(message) = hit.message {
                result = Err(InvocationError {
                    code: "InjectedFault".into(),
                    message,
                });
            }
        }
        let delivered_record = record(Outcome::Delivered, None);
        let mut leftover = None;
        if result.is_ok() {
            match materialised {
                Ok(delivery) => {
                    let (sent, unused) = self
                        .targets
                        .deliver(&delivery, finished_ops(&delivered_record));
                    result = sent;
                    leftover = unused;
                }
                Err(e) => result = Err(e),
            }
        }

        let mut retry = None;
        let mut finished = true;
        let final_record = match &result {
            Ok(()) => {
                if let Some(ops) = leftover {
                    self.storage.apply(ops);
                }
                delivered_record
            }
            Err(err) => {
                let policy = schedule.target.retry_policy;
                let retries_made = job.attempt - 1;
                let next_at = invoked_at + retry_delay(job.attempt);
                let max_age = Duration::seconds(i64::from(policy.maximum_event_age_in_seconds));
                let exhausted = if retries_made >= policy.maximum_retry_attempts {
                    Some("MaximumRetryAttempts")
                } else if next_at - job.scheduled > max_age {
                    Some("MaximumEventAgeInSeconds")
                } else {
                    None
                };
                match exhausted {
                    None => {
                        finished = false;
                        let next = Job {
                            attempt: job.attempt + 1,
                            possible_duplicate: false,
                            recovered: true,
                            ..job.clone()
                        };
                        let failed = record(Outcome::Failed, Some(err));
                        if durable {
                            let mut ops: Vec<StoredOp> = StoredOp::put(
                                PENDING_TABLE,
                                pending_key(&job.key, job.scheduled),
                                &next.pending_row(next_at, false),
                            )
                            .into_iter()
                            .collect();
                            ops.extend(StoredOp::put(INVOCATIONS_TABLE, seq_key(seq), &failed));
                            self.storage.apply(ops);
                        }
                        retry = Some((next_at, next));
                        failed
                    }
                    Some(condition) => self.dead_letter(
                        schedule,
                        job,
                        err,
                        condition,
                        &execution_id,
                        &request,
                        &record,
                        &finished_ops,
                    ),
                }
            }
        };
        for dropped in self.invocations.insert(seq, final_record.clone()) {
            self.storage.delete(INVOCATIONS_TABLE, &seq_key(dropped));
        }
        Attempted {
            fired: FiredAttempt {
                schedule_arn: arn,
                scheduled_time,
                attempt: job.attempt,
                outcome: final_record.outcome.as_str().to_string(),
                error_code: final_record.error_code.clone(),
            },
            retry,
            finished,
        }
    }

    /// An exhausted occurrence: its request goes to the dead-letter queue, if it has one,
    /// together with the occurrence's final bookkeeping. Returns the attempt's record.
    #[allow(clippy::too_many_arguments)]
    fn dead_letter(
        &self,
        schedule: &Schedule,
        job: &Job,
        err: &InvocationError,
        condition: &str,
        execution_id: &str,
        request: &serde_json::Value,
        record: &dyn Fn(Outcome, Option<&InvocationError>) -> InvocationRecord,
        finished_ops: &dyn Fn(&InvocationRecord) -> Vec<StoredOp>,
    ) -> InvocationRecord {
        let arn = job.key.arn();
        let dlq_arn = schedule
            .target
            .dead_letter_config
            .as_ref()
            .and_then(|d| d.arn.clone());
        let Some(dlq_arn) = dlq_arn else {
            let failed = record(Outcome::Failed, Some(err));
            self.storage.apply(finished_ops(&failed));
            return failed;
        };
        let mut body = request.to_string();
        let truncated = body.len() > MAX_DEAD_LETTER_BODY;
        if truncated {
            let mut cut = MAX_DEAD_LETTER_BODY;
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            body.truncate(cut);
        }
        let attributes = vec![
            ("ERROR_CODE", err.code.clone()),
            ("ERROR_MESSAGE", err.message.clone()),
            ("EXECUTION_ID", execution_id.to_string()),
            ("EXHAUSTED_RETRY_CONDITION", condition.to_string()),
            ("IS_PAYLOAD_TRUNCATED", truncated.to_string()),
            ("RETRY_ATTEMPTS", (job.attempt - 1).to_string()),
            (
                "SCHEDULED_TIME",
                targets::scheduled_time_text(job.scheduled),
            ),
            ("SCHEDULE_ARN", arn),
            ("TARGET_ARN", schedule.target.arn.clone()),
        ];
        let dead = record(Outcome::DeadLettered, Some(err));
        let (sent, unused) =
            self.targets
                .dead_letter(&dlq_arn, body, attributes, finished_ops(&dead));
        match sent {
            Ok(true) => {
                if let Some(ops) = unused {
                    self.storage.apply(ops);
                }
                dead
            }
            other => {
                if let Err(e) = other {
                    tracing::warn!(dlq_arn, code = %e.code, message = %e.message, "dead-letter delivery failed");
                }
                let failed = record(Outcome::Failed, Some(err));
                self.storage.apply(finished_ops(&failed));
                failed
            }
        }
    }
}

/// The dispatcher task's state.
pub(crate) struct Dispatcher {
    scheduler: Scheduler,
    clock: Clock,
    attempter: Arc<Attempter>,
    changes: mpsc::UnboundedReceiver<ScheduleChange>,
    changes_open: bool,
    commands: mpsc::UnboundedReceiver<Command>,
    commands_tx: mpsc::UnboundedSender<Command>,
    queue: BTreeMap<(DateTime<Utc>, u64), Job>,
    seq: u64,
    tracked: HashMap<Arc<ScheduleKey>, Tracked>,
}

impl Dispatcher {
    pub(crate) fn new(
        scheduler: Scheduler,
        attempter: Arc<Attempter>,
        changes: mpsc::UnboundedReceiver<ScheduleChange>,
        commands: mpsc::UnboundedReceiver<Command>,
        commands_tx: mpsc::UnboundedSender<Command>,
    ) -> Dispatcher {
        Dispatcher {
            clock: attempter.clock.clone(),
            scheduler,
            attempter,
            changes,
            changes_open: true,
            commands,
            commands_tx,
            queue: BTreeMap::new(),
            seq: 0,
            tracked: HashMap::new(),
        }
    }

    /// Runs until the command channel closes. With a durable store it first recovers what the
    /// last run left: each schedule's last fired occurrence, attempts in flight, queued
    /// retries, and the occurrences missed while Cumulo was down.
    pub(crate) async fn run(mut self) {
        if self.attempter.storage.is_durable() {
            self.recover();
        } else {
            for (key, schedule) in self.scheduler.schedules_snapshot() {
                self.upserted(key, schedule.generation);
            }
        }
        loop {
            let next = self.queue.keys().next().map(|(due, _)| *due);
            let system = self.clock.mode() == ClockMode::System;
            if system && next.is_some_and(|due| due <= self.clock.now()) {
                self.fire_due_now();
                continue;
            }
            let clock = self.clock.clone();
            let sleep = async move {
                match next {
                    Some(due) if system => clock.sleep_until(due).await,
                    _ => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                biased;
                change = self.changes.recv(), if self.changes_open => match change {
                    Some(change) => self.on_change(change),
                    None => self.changes_open = false,
                },
                command = self.commands.recv() => match command {
                    Some(command) => self.on_command(command).await,
                    None => return,
                },
                _ = sleep => {}
            }
        }
    }

    fn drain_changes(&mut self) {
        while let Ok(change) = self.changes.try_recv() {
            self.on_change(change);
        }
    }

    fn push(&mut self, due: DateTime<Utc>, job: Job) {
        self.seq += 1;
        self.queue.insert((due, self.seq), job);
    }

    fn on_change(&mut self, change: ScheduleChange) {
        match change {
            ScheduleChange::Upserted { key, generation } => self.upserted(key, generation),
            ScheduleChange::Deleted { key, generation } => {
                if self
                    .tracked
                    .get(&key)
                    .is_some_and(|t| t.generation == generation)
                {
                    self.tracked.remove(&key);
                    self.attempter
                        .storage
                        .delete(DISPATCH_TABLE, &key_text(&key));
                }
            }
            ScheduleChange::Reset => {
                self.queue.clear();
                self.tracked.clear();
            }
        }
    }

    /// A schedule was created or changed: forget its queued attempts (they carry the old
    /// generation) and queue its next occurrence.
    fn upserted(&mut self, key: ScheduleKey, generation: u64) {
        let Some(schedule) = self.scheduler.schedule(&key) else {
            return;
        };
        if schedule.generation != generation {
            return;
        }
        let key = Arc::new(key);
        let tracked = self.tracked.entry(key.clone()).or_insert(Tracked {
            generation: 0,
            last_scheduled: None,
        });
        if tracked.generation == generation {
            return;
        }
        tracked.generation = generation;
        let after = first_search_start(
            tracked.last_scheduled,
            schedule.last_modification_date,
            self.clock.now(),
        );
        self.queue_next(&key, &schedule, after);
    }

    /// Queues the first occurrence of `schedule` strictly after `after`, if it is enabled.
    fn queue_next(&mut self, key: &Arc<ScheduleKey>, schedule: &Schedule, after: DateTime<Utc>) {
        if schedule.state != ScheduleState::Enabled {
            return;
        }
        let Some(scheduled) =
            schedule
                .expression
                .next_after(after, schedule.timezone, &window_of(schedule))
        else {
            return;
        };
        let due = match (
            schedule.flexible_time_window.mode,
            schedule.flexible_time_window.maximum_window_in_minutes,
        ) {
            (FlexibleTimeWindowMode::Flexible, Some(minutes)) => {
                scheduled + flexible_offset(&key.arn(), scheduled, minutes)
            }
            _ => scheduled,
        };
        self.push(
            due,
            Job {
                key: key.clone(),
                generation: schedule.generation,
                scheduled,
                attempt: 1,
                possible_duplicate: false,
                recovered: false,
            },
        );
    }

    /// The schedule a popped job belongs to, if the job is still current.
    fn current(&self, job: &Job) -> Option<Arc<Schedule>> {
        let tracked = self.tracked.get(&job.key)?;
        if tracked.generation != job.generation {
            return None;
        }
        let schedule = self.scheduler.schedule(&job.key)?;
        (schedule.generation == job.generation && schedule.state == ScheduleState::Enabled)
            .then_some(schedule)
    }

    /// Pops the earliest job due at or before `limit` and, for an occurrence, queues the
    /// schedule's following occurrence. `None` when nothing (current) is due.
    fn pop_due(&mut self, limit: DateTime<Utc>) -> Option<(DateTime<Utc>, Job, Arc<Schedule>)> {
        loop {
            let (&(due, seq), _) = self.queue.iter().next()?;
            if due > limit {
                return None;
            }
            let job = self.queue.remove(&(due, seq))?;
            let Some(schedule) = self.current(&job) else {
                if job.attempt > 1 {
                    let pending = pending_key(&job.key, job.scheduled);
                    self.attempter.storage.delete(PENDING_TABLE, &pending);
                }
                continue;
            };
            let storage = &self.attempter.storage;
            if job.attempt == 1 && !job.recovered {
                if let Some(t) = self.tracked.get_mut(&job.key) {
                    if t.last_scheduled.is_some_and(|last| last >= job.scheduled) {
                        continue;
                    }
                    t.last_scheduled = Some(job.scheduled);
                }
                if storage.is_durable() {
                    let row = DispatchRow {
                        generation: job.generation,
                        last_scheduled: Some(job.scheduled),
                    };
                    let mut ops: Vec<StoredOp> =
                        StoredOp::put(DISPATCH_TABLE, key_text(&job.key), &row)
                            .into_iter()
                            .collect();
                    ops.extend(StoredOp::put(
                        PENDING_TABLE,
                        pending_key(&job.key, job.scheduled),
                        &job.pending_row(due, true),
                    ));
                    storage.apply(ops);
                }
                let key = job.key.clone();
                self.queue_next(&key, &schedule, job.scheduled);
            } else if storage.is_durable() {
                storage.put(
                    PENDING_TABLE,
                    &pending_key(&job.key, job.scheduled),
                    &job.pending_row(due, true),
                );
            }
            return Some((due, job, schedule));
        }
    }

    /// Rebuilds the queue from the store after a restart (see the module doc).
    fn recover(&mut self) {
        let storage = self.attempter.storage.clone();
        let now = self.clock.now();
        let last: HashMap<String, DispatchRow> = storage.load(DISPATCH_TABLE).into_iter().collect();
        let pending: Vec<(String, PendingRow)> = storage.load(PENDING_TABLE);
        let invocations: Vec<(String, InvocationRecord)> = storage.load(INVOCATIONS_TABLE);
        let restored = invocations
            .into_iter()
            .filter_map(|(k, r)| k.parse::<u64>().ok().map(|s| (s, r)))
            .collect();
        for dropped in self.attempter.invocations.restore(restored) {
            storage.delete(INVOCATIONS_TABLE, &seq_key(dropped));
        }
        let (mut n_schedules, mut n_missed, mut n_resumed) = (0usize, 0u64, 0usize);
        for (key, schedule) in self.scheduler.schedules_snapshot() {
            n_schedules += 1;
            let key = Arc::new(key);
            let last_scheduled = last.get(&key_text(&key)).and_then(|r| r.last_scheduled);
            self.tracked.insert(
                key.clone(),
                Tracked {
                    generation: schedule.generation,
                    last_scheduled,
                },
            );
            if schedule.state != ScheduleState::Enabled {
                continue;
            }
            n_missed += self.recover_missed(&key, &schedule, last_scheduled, now);
        }
        for (row_key, row) in pending {
            let key = row.key();
            let current = self
                .scheduler
                .schedule(&key)
                .filter(|s| s.generation == row.generation && s.state == ScheduleState::Enabled);
            let (Some(schedule), Some((tracked_key, _))) =
                (current, self.tracked.get_key_value(&key))
            else {
                storage.delete(PENDING_TABLE, &row_key);
                continue;
            };
            n_resumed += 1;
            let job = Job {
                key: tracked_key.clone(),
                generation: row.generation,
                scheduled: row.scheduled,
                attempt: row.attempt,
                possible_duplicate: row.in_flight
                    && !targets::delivery_is_atomic(&schedule.target.arn),
                recovered: true,
            };
            // An attempt that was in flight runs again now; a queued retry keeps its due time.
            let due = if row.in_flight { now } else { row.due };
            self.push(due, job);
        }
        tracing::info!(
            schedules = n_schedules,
            missed = n_missed,
            resumed = n_resumed,
            "dispatcher recovered its state"
        );
    }

    /// Handles the occurrences of one schedule that fell due while Cumulo was down, then
    /// queues its next one. Returns how many were missed. Every missed occurrence is accounted
    /// for in the history: the first [`MAX_MISSED_RECORDS`] one record each, those between them
    /// and the most recent one compact record (their count and first and last instants), and
    /// the most recent one is delivered if younger than MaximumEventAgeInSeconds, else dropped.
    fn recover_missed(
        &mut self,
        key: &Arc<ScheduleKey>,
        schedule: &Schedule,
        last_scheduled: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> u64 {
        let window = window_of(schedule);
        let start = last_scheduled.unwrap_or(schedule.creation_date - Duration::nanoseconds(1));
        let missed = missed_occurrences(schedule, &window, start, now);
        let count = missed.early.len() as u64
            + missed.skipped.as_ref().map_or(0, |s| s.count)
            + u64::from(missed.latest.is_some());
        if let Some(skipped) = &missed.skipped {
            tracing::warn!(schedule = %key.arn(), missed = count, "more than {MAX_MISSED_RECORDS} occurrences were missed while Cumulo was down; {} of them are recorded as one compact dropped record", skipped.count);
        }
        let max_age = Duration::seconds(i64::from(
            schedule.target.retry_policy.maximum_event_age_in_seconds,
        ));
        let mut dropped: Vec<(DateTime<Utc>, Option<Compact>)> =
            missed.early.iter().map(|t| (*t, None)).collect();
        if let Some(s) = &missed.skipped {
            dropped.push((s.first, Some((s.count, s.last))));
        }
        let mut delivering = None;
        if let Some(latest) = missed.latest {
            if now - latest <= max_age {
                delivering = Some(latest);
            } else {
                dropped.push((latest, None));
            }
        }
        // The records and the schedule's "fired through" mark commit in one transaction: a
        // restart before the latest is delivered must not record the same occurrences again.
        let through = dropped
            .iter()
            .map(|(t, compact)| compact.map_or(*t, |(_, last)| last))
            .max();
        let mut ops = Vec::new();
        for (scheduled, compact) in dropped {
            ops.extend(self.record_dropped(key, schedule, scheduled, compact, now));
        }
        if let (Some(t), Some(through)) = (self.tracked.get_mut(key), through) {
            t.last_scheduled = Some(through);
            ops.extend(StoredOp::put(
                DISPATCH_TABLE,
                key_text(key),
                &DispatchRow {
                    generation: schedule.generation,
                    last_scheduled: Some(through),
                },
            ));
        }
        self.attempter.storage.apply(ops);
        match delivering {
            // Taken off the queue like any occurrence: `pop_due` records it and queues the next.
            Some(latest) => self.push(
                now,
                Job {
                    key: key.clone(),
                    generation: schedule.generation,
                    scheduled: latest,
                    attempt: 1,
                    possible_duplicate: false,
                    recovered: false,
                },
            ),
            None => self.queue_next(key, schedule, now.max(start)),
        }
        count
    }

    /// Records one missed occurrence as `dropped` (error code `MissedWhileStopped`), or with
    /// `compact = Some((count, last))` the `count` occurrences from `scheduled` to `last`, in the
    /// history; returns the store writes, for the caller to commit with its own.
    fn record_dropped(
        &mut self,
        key: &ScheduleKey,
        schedule: &Schedule,
        scheduled: DateTime<Utc>,
        compact: Option<Compact>,
        now: DateTime<Utc>,
    ) -> Vec<StoredOp> {
        let arn = key.arn();
        let scheduled_time = rfc3339(scheduled);
        let message = match compact {
            None => "Cumulo was not running at this occurrence; only the most recent missed occurrence is delivered, and only if younger than MaximumEventAgeInSeconds.".to_string(),
            Some((n, last)) => format!("Cumulo was not running at these {n} occurrences ({scheduled_time} to {}); only the most recent missed occurrence is delivered, and only if younger than MaximumEventAgeInSeconds.", rfc3339(last)),
        };
        let record = InvocationRecord {
            occurrence_key: format!("{arn}#{scheduled_time}"),
            schedule_arn: arn.clone(),
            target_arn: schedule.target.arn.clone(),
            scheduled_time,
            attempt: 0,
            execution_id: self.attempter.ids.hex(16),
            invoked_at: rfc3339(now),
            outcome: Outcome::Dropped,
            error_code: Some("MissedWhileStopped".into()),
            error_message: Some(message),
            request: serde_json::Value::Null,
            possible_duplicate: false,
            occurrence_count: compact.map(|(n, _)| n),
            last_scheduled_time: compact.map(|(_, last)| rfc3339(last)),
        };
        let seq = self.attempter.invocations.reserve();
        let mut ops: Vec<StoredOp> = StoredOp::put(INVOCATIONS_TABLE, seq_key(seq), &record)
            .into_iter()
            .collect();
        for gone in self.attempter.invocations.insert(seq, record) {
            ops.push(StoredOp::delete(INVOCATIONS_TABLE, seq_key(gone)));
        }
        ops
    }

    /// System mode: every due attempt runs as its own task.
    fn fire_due_now(&mut self) {
        let now = self.clock.now();
        while let Some((_, job, schedule)) = self.pop_due(now) {
            let attempter = self.attempter.clone();
            let scheduler = self.scheduler.clone();
            let tx = self.commands_tx.clone();
            tokio::spawn(async move {
                let done = attempter.attempt(&schedule, &job).await;
                finish(&scheduler, &schedule, &job, done.finished);
                if let Some((due, job)) = done.retry {
                    let _ = tx.send(Command::Retry { due, job });
                }
            });
        }
    }

    async fn on_command(&mut self, command: Command) {
        match command {
            Command::ClockChanged => {}
            Command::Retry { due, job } => self.push(due, job),
            Command::AdvanceTo { to, reply } => {
                let result = self.advance_to(to).await;
                let _ = reply.send(result);
            }
        }
    }

    /// Manual mode: steps the clock through every due instant up to `to`, in order, running
    /// each attempt before the next.
    /// Stops after [`MAX_ATTEMPTS_PER_MOVE`] attempts when more are due (`complete: false`).
    async fn advance_to(&mut self, to: DateTime<Utc>) -> Result<ClockMove, ClockError> {
        self.clock.check_manual_move(to)?;
        self.drain_changes();
        let mut fired = Vec::new();
        loop {
            if fired.len() >= MAX_ATTEMPTS_PER_MOVE
                && self.queue.keys().next().is_some_and(|&(due, _)| due <= to)
            {
                return Ok(ClockMove {
                    fired,
                    complete: false,
                });
            }
            let Some((due, job, schedule)) = self.pop_due(to) else {
                break;
            };
            let at = due.max(self.clock.now());
            self.clock.step_manual(at)?;
            let done = self.attempter.attempt(&schedule, &job).await;
            finish(&self.scheduler, &schedule, &job, done.finished);
            fired.push(done.fired);
            if let Some((due, job)) = done.retry {
                self.push(due, job);
            }
            self.drain_changes();
        }
        self.clock.step_manual(to)?;
        Ok(ClockMove {
            fired,
            complete: true,
        })
    }
}

/// Occurrences of a schedule strictly after `after` and at or before `now`.
struct Missed {
    /// The first ones, oldest first (at most [`MAX_MISSED_RECORDS`]), without the latest.
    early: Vec<DateTime<Utc>>,
    /// Those between `early` and `latest`, when there are any: one compact record.
    skipped: Option<Skipped>,
    /// The most recent one.
    latest: Option<DateTime<Utc>>,
}

/// A compact `dropped` record: how many occurrences, and the last of them.
type Compact = (u64, DateTime<Utc>);

/// Missed occurrences counted, not listed: `count` of them from `first` to `last`.
struct Skipped {
    first: DateTime<Utc>,
    last: DateTime<Utc>,
    count: u64,
}

/// Bounded work whatever the gap: at most `MAX_MISSED_RECORDS + 1` steps, two bisections
/// (`expression::last_through`) and one count (`expression::count_through`).
fn missed_occurrences(
    schedule: &Schedule,
    window: &Window,
    after: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Missed {
    let (expr, tz) = (&schedule.expression, schedule.timezone);
    let next = |t: DateTime<Utc>| expr.next_after(t, tz, window).filter(|n| *n <= now);
    let mut early = Vec::new();
    let mut cursor = after;
    while early.len() <= MAX_MISSED_RECORDS {
        let Some(t) = next(cursor) else {
            break;
        };
        early.push(t);
        cursor = t;
        if expr.is_one_time() {
            break;
        }
    }
    if early.len() <= MAX_MISSED_RECORDS || next(cursor).is_none() {
        let latest = early.pop();
        return Missed {
            early,
            skipped: None,
            latest,
        };
    }
    // More than can be listed: the one after the listed ones starts the compact range, which
    // ends just before the most recent one.
    let first = early.pop().unwrap_or(cursor);
    let latest = expression::last_through(expr, tz, window, cursor, now);
    let last = latest
        .and_then(|l| {
            expression::last_through(expr, tz, window, first, l - Duration::nanoseconds(1))
        })
        .unwrap_or(first);
    Missed {
        early,
        skipped: Some(Skipped {
            first,
            last,
            count: expression::count_through(expr, tz, window, first, last),
        }),
        latest,
    }
}

/// After an occurrence is over: a schedule with ActionAfterCompletion DELETE that has no
/// later occurrence (an `at`, or a recurring schedule past its EndDate) is deleted.
fn finish(scheduler: &Scheduler, schedule: &Schedule, job: &Job, finished: bool) {
    if !finished || schedule.action_after_completion != ActionAfterCompletion::Delete {
        return;
    }
    let more = !schedule.expression.is_one_time()
        && schedule
            .expression
            .next_after(job.scheduled, schedule.timezone, &window_of(schedule))
            .is_some();
    if !more {
        scheduler.delete_after_completion(&job.key, job.generation);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_change_is_searched_from_its_own_instant_not_from_when_the_dispatcher_sees_it() {
        use super::first_search_start;
        let t = |s: &str| crate::time::parse_rfc3339(s).unwrap();
        let ns = chrono::Duration::nanoseconds(1);
        // (last fired, changed at, now) -> search strictly after
        let cases = [
            // created at 14.999, seen at 15.2: the occurrence at 15.000 is still found
            (
                None,
                "2030-01-01T00:00:14.999Z",
                "2030-01-01T00:00:15.2Z",
                t("2030-01-01T00:00:14.999Z") - ns,
            ),
            // seen at once
            (
                None,
                "2030-01-01T00:00:15Z",
                "2030-01-01T00:00:15Z",
                t("2030-01-01T00:00:15Z") - ns,
            ),
            // changed under a manual clock later than the system clock now reads
            (
                None,
                "2031-01-01T00:00:00Z",
                "2030-01-01T00:00:00Z",
                t("2030-01-01T00:00:00Z") - ns,
            ),
            // an occurrence after the change already fired: never again
            (
                Some("2030-01-01T00:01:00Z"),
                "2030-01-01T00:00:30Z",
                "2030-01-01T00:02:00Z",
                t("2030-01-01T00:01:00Z"),
            ),
            // an older fire does not hold the search back
            (
                Some("2030-01-01T00:00:00Z"),
                "2030-01-01T00:00:30Z",
                "2030-01-01T00:02:00Z",
                t("2030-01-01T00:00:30Z") - ns,
            ),
        ];
        for (last, changed, now, want) in cases {
            assert_eq!(
                first_search_start(last.map(t), t(changed), t(now)),
                want,
                "{last:?} {changed} {now}"
            );
        }
    }

    use super::*;
    use chrono::TimeZone;

    #[test]
    fn retry_delays_double_from_60_seconds_and_cap_at_a_day() {
        let secs: Vec<i64> = (1..=13).map(|n| retry_delay(n).num_seconds()).collect();
        assert_eq!(
            secs,
            [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 30720, 61440, 86400, 86400]
        );
        assert_eq!(retry_delay(185).num_seconds(), 86400);
    }

    #[test]
    fn flexible_offsets_are_deterministic_and_inside_the_window() {
        let t = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
        let arn = "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s";
        let a = flexible_offset(arn, t, 15);
        assert_eq!(a, flexible_offset(arn, t, 15));
        for m in 0..200 {
            let o = flexible_offset(arn, t + Duration::minutes(m), 15);
            assert!(o >= Duration::zero() && o < Duration::minutes(15), "{o}");
        }
        assert!(flexible_offset(arn, t, 1) < Duration::minutes(1));
    }
}
