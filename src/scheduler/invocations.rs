//! The invocation history behind `GET /_cumulo/scheduler/invocations`
//! (`../shared/spec/extensions.md`, "Scheduler"): every attempt the dispatcher makes, oldest
//! first, bounded by `CUMULO_INVOCATION_HISTORY` (the oldest entries are dropped).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::sync::lock;
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
    /// A compact `dropped` record stands for this many occurrences, from `scheduled_time` to
    /// [`InvocationRecord::last_scheduled_time`] (both included); absent on every other record
    /// (which is one occurrence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurrence_count: Option<u64>,
    /// The last occurrence a compact `dropped` record stands for; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_scheduled_time: Option<String>,
}

/// Store table of the history (`InvocationRecord`), keyed by [`seq_key`].
pub const INVOCATIONS_TABLE: &str = "scheduler_invocations";

/// The store key of the record with sequence number `seq` (zero-padded, so key order is
/// history order).
pub fn seq_key(seq: u64) -> String {
    format!("{seq:020}")
}

#[derive(Debug, Default)]
struct History {
    records: VecDeque<(u64, InvocationRecord)>,
    next_seq: u64,
}

/// The bounded history. Clone it freely; clones share it.
#[derive(Clone, Debug)]
pub struct Invocations {
    inner: Arc<Mutex<History>>,
    capacity: usize,
}

impl Invocations {
    /// An empty history keeping at most `capacity` records (at least 1).
    pub fn new(capacity: usize) -> Invocations {
        Invocations {
            inner: Arc::new(Mutex::new(History::default())),
            capacity: capacity.max(1),
        }
    }

    /// Reserves the sequence number of a record about to be made (its store key).
    pub fn reserve(&self) -> u64 {
        let mut h = lock(&self.inner);
        h.next_seq += 1;
        h.next_seq
    }

    /// Appends a record under a reserved sequence number, dropping the oldest beyond the
    /// capacity; returns the sequence numbers dropped (their store rows are the caller's).
    pub fn insert(&self, seq: u64, record: InvocationRecord) -> Vec<u64> {
        let mut h = lock(&self.inner);
        let at = h.records.partition_point(|(s, _)| *s < seq);
        h.records.insert(at, (seq, record));
        let mut dropped = Vec::new();
        while h.records.len() > self.capacity {
            if let Some((s, _)) = h.records.pop_front() {
                dropped.push(s);
            }
        }
        dropped
    }

    /// Appends a record (reserving its number); returns the dropped sequence numbers.
    pub fn record(&self, record: InvocationRecord) -> Vec<u64> {
        let seq = self.reserve();
        self.insert(seq, record)
    }

    /// Puts back records read from the store (`(seq, record)`, any order); returns the
    /// sequence numbers that no longer fit.
    pub fn restore(&self, mut rows: Vec<(u64, InvocationRecord)>) -> Vec<u64> {
        rows.sort_by_key(|(s, _)| *s);
        let mut dropped = Vec::new();
        for (seq, record) in rows {
            {
                let mut h = lock(&self.inner);
                h.next_seq = h.next_seq.max(seq);
            }
            dropped.extend(self.insert(seq, record));
        }
        dropped
    }

    /// The records, oldest first, optionally only those of `schedule_arn`; with `limit`, the
    /// newest `limit` of them (still oldest first).
    pub fn list(&self, schedule_arn: Option<&str>, limit: Option<usize>) -> Vec<InvocationRecord> {
        let h = lock(&self.inner);
        let mine = |r: &&InvocationRecord| schedule_arn.is_none_or(|a| r.schedule_arn == a);
        match limit {
            Some(n) => {
                let mut newest: Vec<InvocationRecord> = h
                    .records
                    .iter()
                    .rev()
                    .map(|(_, r)| r)
                    .filter(mine)
                    .take(n)
                    .cloned()
                    .collect();
                newest.reverse();
                newest
            }
            None => h
                .records
                .iter()
                .map(|(_, r)| r)
                .filter(mine)
                .cloned()
                .collect(),
        }
    }

    /// Every record, oldest first (persistence).
    pub fn snapshot(&self) -> Vec<InvocationRecord> {
        lock(&self.inner)
            .records
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }

    /// Forgets everything.
    pub fn clear(&self) {
        lock(&self.inner).records.clear();
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
            occurrence_count: None,
            last_scheduled_time: None,
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
