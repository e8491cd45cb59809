//! The invocation history behind `GET /_cumulo/scheduler/invocations`
//! (`../shared/spec/extensions.md`, "Scheduler"): every attempt the dispatcher makes, oldest
//! first, bounded by `CUMULO_INVOCATION_HISTORY` (the oldest entries are dropped).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

/// What became of one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The target accepted the request.
    Delivered,
    /// The attempt failed; a retry may follow.
    Failed,
    /// The attempt failed, retries are exhausted and the request went to the dead-letter queue.
    DeadLettered,
    /// The occurrence was never attempted (missed while Cumulo was down, older than the
    /// schedule's MaximumEventAgeInSeconds or superseded by a later missed occurrence).
    Dropped,
}

impl Outcome {
    /// The wire name (`delivered`, `failed`, `dead_lettered`, `dropped`).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered",
            Outcome::Failed => "failed",
            Outcome::DeadLettered => "dead_lettered",
            Outcome::Dropped => "dropped",
        }
    }
}

/// One attempt, as the control endpoint lists it. Instants are RFC 3339 UTC strings
/// (`crate::time::rfc3339`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvocationRecord {
    /// The schedule's ARN.
    pub schedule_arn: String,
    /// The target's ARN.
    pub target_arn: String,
    /// The occurrence's due instant (before any flexible-window offset).
    pub scheduled_time: String,
    /// 1-based attempt number (0 for a `dropped` record).
    pub attempt: u32,
    /// 16 lower-case hex characters, unique per attempt.
    pub execution_id: String,
    /// When the attempt was made (the clock at that moment).
    pub invoked_at: String,
    /// What became of it.
    pub outcome: Outcome,
    /// Error code of a failed attempt.
    pub error_code: Option<String>,
    /// Error message of a failed attempt.
    pub error_message: Option<String>,
    /// The materialised target request (what a dead-letter message body carries).
    pub request: serde_json::Value,
    /// `<schedule ARN>#<scheduled_time>`: the occurrence's idempotency key.
    pub occurrence_key: String,
    /// True only when a restart could not rule out an earlier delivery of this occurrence.
    pub possible_duplicate: bool,
}

/// The bounded history. Clone it freely; clones share it.
#[derive(Clone, Debug)]
pub struct Invocations {
    inner: Arc<Mutex<VecDeque<InvocationRecord>>>,
    capacity: usize,
}

impl Invocations {
    /// An empty history keeping at most `capacity` records (at least 1).
    pub fn new(capacity: usize) -> Invocations {
        Invocations {
            inner: Arc::new(Mutex::new(VecDeque::new())),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<InvocationRecord>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends a record, dropping the oldest beyond the capacity.
    pub fn record(&self, record: InvocationRecord) {
        let mut list = self.lock();
        if list.len() == self.capacity {
            list.pop_front();
        }
        list.push_back(record);
    }

    /// The records, oldest first, optionally only those of `schedule_arn`; with `limit`, the
    /// newest `limit` of them (still oldest first).
    pub fn list(&self, schedule_arn: Option<&str>, limit: Option<usize>) -> Vec<InvocationRecord> {
        let list = self.lock();
        let mut picked: Vec<InvocationRecord> = match limit {
            Some(n) => {
                let mut newest: Vec<InvocationRecord> = list
                    .iter()
                    .rev()
                    .filter(|r| schedule_arn.is_none_or(|a| r.schedule_arn == a))
                    .take(n)
                    .cloned()
                    .collect();
                newest.reverse();
                newest
            }
            None => list
                .iter()
                .filter(|r| schedule_arn.is_none_or(|a| r.schedule_arn == a))
                .cloned()
                .collect(),
        };
        picked.shrink_to_fit();
        picked
    }

    /// Every record, oldest first (persistence).
    pub fn snapshot(&self) -> Vec<InvocationRecord> {
        self.lock().iter().cloned().collect()
    }

    /// Forgets everything.
    pub fn clear(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(arn: &str, attempt: u32) -> InvocationRecord {
        InvocationRecord {
            schedule_arn: arn.into(),
            target_arn: "t".into(),
            scheduled_time: "2030-01-01T00:00:00Z".into(),
            attempt,
            execution_id: format!("{attempt:016x}"),
            invoked_at: "2030-01-01T00:00:00Z".into(),
            outcome: Outcome::Delivered,
            error_code: None,
            error_message: None,
            request: serde_json::json!({}),
            occurrence_key: format!("{arn}#2030-01-01T00:00:00Z"),
            possible_duplicate: false,
        }
    }

    #[test]
    fn bounded_history_drops_the_oldest_and_filters_by_schedule() {
        let h = Invocations::new(3);
        for (arn, n) in [("a", 1), ("b", 1), ("a", 2), ("a", 3)] {
            h.record(rec(arn, n));
        }
        let all = h.list(None, None);
        assert_eq!(
            all.iter()
                .map(|r| (r.schedule_arn.as_str(), r.attempt))
                .collect::<Vec<_>>(),
            [("b", 1), ("a", 2), ("a", 3)]
        );
        assert_eq!(h.list(Some("a"), None).len(), 2);
        assert_eq!(h.list(Some("a"), Some(1))[0].attempt, 3);
        assert!(h.list(Some("zzz"), None).is_empty());
        let json = serde_json::to_value(&all[0]).unwrap();
        assert_eq!(json["outcome"], "delivered");
        h.clear();
        assert!(h.list(None, None).is_empty());
    }
}
