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

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

use super::expression::Window;
use super::invocations::{InvocationRecord, Invocations, Outcome};
use super::model::{
    ActionAfterCompletion, FlexibleTimeWindowMode, Schedule, ScheduleChange, ScheduleKey,
    ScheduleState,
};
use super::targets::{self, AttemptContext, InvocationError, Targets};
use super::{FiredAttempt, Scheduler};
use crate::clock::{Clock, ClockError, ClockMode};
use crate::faults::Faults;
use crate::ids::IdGen;
use crate::time::rfc3339;

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

/// Commands to the dispatcher task.
#[derive(Debug)]
pub(crate) enum Command {
    /// Step the manual clock to `to`, firing everything due on the way.
    AdvanceTo {
        to: DateTime<Utc>,
        reply: oneshot::Sender<Result<Vec<FiredAttempt>, ClockError>>,
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
    /// Makes attempt `job.attempt` of one occurrence: delivers, records, and decides what follows.
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
        if result.is_ok() {
            result = materialised.and_then(|delivery| self.targets.deliver(&delivery));
        }

        let mut outcome = Outcome::Delivered;
        let mut retry = None;
        let mut finished = true;
        if let Err(err) = &result {
            outcome = Outcome::Failed;
            let policy = schedule.target.retry_policy;
            let retries_made = job.attempt - 1;
            let next_at = invoked_at + retry_delay(job.attempt);
            let exhausted = if retries_made >= policy.maximum_retry_attempts {
                Some("MaximumRetryAttempts")
            } else if next_at - job.scheduled
                > Duration::seconds(i64::from(policy.maximum_event_age_in_seconds))
            {
                Some("MaximumEventAgeInSeconds")
            } else {
                None
            };
            match exhausted {
                None => {
                    finished = false;
                    retry = Some((
                        next_at,
                        Job {
                            attempt: job.attempt + 1,
                            ..job.clone()
                        },
                    ));
                }
                Some(condition) => {
                    if let Some(dlq) = &schedule.target.dead_letter_config {
                        if let Some(dlq_arn) = &dlq.arn {
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
                                ("EXECUTION_ID", execution_id.clone()),
                                ("EXHAUSTED_RETRY_CONDITION", condition.to_string()),
                                ("IS_PAYLOAD_TRUNCATED", truncated.to_string()),
                                ("RETRY_ATTEMPTS", retries_made.to_string()),
                                (
                                    "SCHEDULED_TIME",
                                    targets::scheduled_time_text(job.scheduled),
                                ),
                                ("SCHEDULE_ARN", arn.clone()),
                                ("TARGET_ARN", schedule.target.arn.clone()),
                            ];
                            match self.targets.dead_letter(dlq_arn, body, attributes) {
                                Ok(true) => outcome = Outcome::DeadLettered,
                                Ok(false) => {}
                                Err(e) => {
                                    tracing::warn!(dlq_arn, code = %e.code, message = %e.message, "dead-letter delivery failed")
                                }
                            }
                        }
                    }
                }
            }
        }
        let (error_code, error_message) = match &result {
            Ok(()) => (None, None),
            Err(e) => (Some(e.code.clone()), Some(e.message.clone())),
        };
        let scheduled_time = rfc3339(job.scheduled);
        self.invocations.record(InvocationRecord {
            occurrence_key: format!("{arn}#{scheduled_time}"),
            schedule_arn: arn.clone(),
            target_arn: schedule.target.arn.clone(),
            scheduled_time: scheduled_time.clone(),
            attempt: job.attempt,
            execution_id,
            invoked_at: rfc3339(invoked_at),
            outcome,
            error_code: error_code.clone(),
            error_message,
            request,
            possible_duplicate: false,
        });
        Attempted {
            fired: FiredAttempt {
                schedule_arn: arn,
                scheduled_time,
                attempt: job.attempt,
                outcome: if outcome == Outcome::Delivered {
                    "delivered"
                } else {
                    "failed"
                }
                .to_string(),
                error_code,
            },
            retry,
            finished,
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

    /// Runs until the command channel closes.
    pub(crate) async fn run(mut self) {
        for (key, schedule) in self.scheduler.schedules_snapshot() {
            self.upserted(key, schedule.generation);
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
        let after = match tracked.last_scheduled {
            Some(last) => last.max(self.clock.now() - Duration::nanoseconds(1)),
            None => self.clock.now() - Duration::nanoseconds(1),
        };
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
                continue;
            };
            if job.attempt == 1 {
                if let Some(t) = self.tracked.get_mut(&job.key) {
                    if t.last_scheduled.is_some_and(|last| last >= job.scheduled) {
                        continue;
                    }
                    t.last_scheduled = Some(job.scheduled);
                }
                let key = job.key.clone();
                self.queue_next(&key, &schedule, job.scheduled);
            }
            return Some((due, job, schedule));
        }
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
    async fn advance_to(&mut self, to: DateTime<Utc>) -> Result<Vec<FiredAttempt>, ClockError> {
        self.clock.check_manual_move(to)?;
        self.drain_changes();
        let mut fired = Vec::new();
        while let Some((due, job, schedule)) = self.pop_due(to) {
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
        Ok(fired)
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
