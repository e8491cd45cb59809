//! One queue's messages: the state machine Ready → InFlight → (deleted | Ready again), Delayed
//! → Ready, FIFO ordering with group blocking and deduplication, retention, redrive counts.
//!
//! Pure and synchronous: every method takes `now` (domain time from `crate::clock::Clock`,
//! read by the caller) and runs under the caller's lock; it writes each changed message to the
//! store it is given. Indexes keep receives cheap on deep queues: `ready` holds the visible
//! messages in arrival order and `hidden` the invisible ones by the instant they reappear.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use super::model::{
    check_fifo_id, check_message_attributes, check_message_characters, epoch_millis, md5_hex,
    md5_of_attributes, MessageAttributes, OutgoingMessage, QueueAttributes, ReceivedMessage,
    SentMessage, DEDUP_INTERVAL_SECONDS,
};
use super::{Error, QueueKey};
use crate::ids::IdGen;
use crate::storage::Storage;

/// Store table of queue records (`QueueRecord`), keyed `account/region/name`.
pub const QUEUES_TABLE: &str = "sqs_queues";
/// Store table of messages (`StoredMessage`), keyed `account/region/name/seq`.
pub const MESSAGES_TABLE: &str = "sqs_messages";

/// Where a message is in its life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MessageState {
    /// Visible: the next receive may take it.
    Ready,
    /// Sent with a delay; visible from `until`.
    Delayed {
        /// When it becomes visible (UTC).
        until: DateTime<Utc>,
    },
    /// Received and not yet deleted; visible again from `until`.
    InFlight {
        /// When the visibility timeout ends (UTC).
        until: DateTime<Utc>,
    },
}

/// A message as the queue keeps it (and as the store persists it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredMessage {
    /// Arrival order within this queue.
    pub seq: u64,
    /// The message id (kept when redriven to a dead-letter queue).
    pub message_id: String,
    /// The body.
    pub body: String,
    /// Hex MD5 of the body.
    pub md5_of_body: String,
    /// User attributes.
    pub attributes: MessageAttributes,
    /// `AWSTraceHeader` system attribute.
    pub aws_trace_header: Option<String>,
    /// `SenderId` (the sending account).
    pub sender_id: String,
    /// When it was first sent (UTC; kept across a redrive).
    pub sent: DateTime<Utc>,
    /// How many times it was received.
    pub receive_count: u32,
    /// When it was first received.
    pub first_receive: Option<DateTime<Utc>>,
    /// `MessageGroupId`.
    pub group_id: Option<String>,
    /// `MessageDeduplicationId` (FIFO; the body's SHA-256 with content-based deduplication).
    pub dedup_id: Option<String>,
    /// FIFO `SequenceNumber`.
    pub sequence_number: Option<String>,
    /// `DeadLetterQueueSourceArn` once redriven.
    pub dead_letter_source_arn: Option<String>,
    /// Visibility.
    pub state: MessageState,
}

/// A queue's persisted identity and configuration (messages are stored one by one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueRecord {
    /// Owner account.
    pub account: String,
    /// Region.
    pub region: String,
    /// Name.
    pub name: String,
    /// FIFO queue (name ends in `.fifo`).
    pub fifo: bool,
    /// Settable attributes.
    pub attributes: QueueAttributes,
    /// Tags.
    pub tags: BTreeMap<String, String>,
    /// `CreatedTimestamp`.
    pub created: DateTime<Utc>,
    /// `LastModifiedTimestamp`.
    pub last_modified: DateTime<Utc>,
    /// Instant of the last PurgeQueue (one purge per 60 s).
    pub last_purge: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug)]
struct DedupEntry {
    expires: DateTime<Utc>,
    message_id: String,
    sequence_number: Option<String>,
}

/// One queue with its messages.
#[derive(Debug)]
pub struct QueueState {
    /// Identity and configuration.
    pub record: QueueRecord,
    /// Woken when a message is added, so long polls return at once.
    pub notify: Arc<Notify>,
    messages: BTreeMap<u64, StoredMessage>,
    ready: BTreeSet<u64>,
    hidden: BTreeSet<(DateTime<Utc>, u64)>,
    next_seq: u64,
    n_delayed: usize,
    n_in_flight: usize,
    dedup: HashMap<String, DedupEntry>,
    dedup_order: VecDeque<(DateTime<Utc>, String)>,
    in_flight_groups: HashMap<String, usize>,
    next_sequence_number: u128,
}

/// The outcome of one receive: what goes to the caller and what goes to the dead-letter queue.
pub struct Received {
    /// Messages returned to the caller.
    pub messages: Vec<ReceivedMessage>,
    /// Messages that exceeded `maxReceiveCount`, removed here, for the dead-letter queue.
    pub dead_letters: Vec<StoredMessage>,
}

/// Receive parameters, validated by the caller.
pub struct ReceiveSpec<'a> {
    /// 1–10.
    pub max: usize,
    /// Visibility timeout in seconds.
    pub visibility_timeout: i64,
    /// System attribute names asked for.
    pub attribute_names: &'a [String],
    /// User attribute names or prefixes asked for.
    pub message_attribute_names: &'a [String],
    /// `maxReceiveCount` when a dead-letter queue exists to move messages to.
    pub max_receive_count: Option<u32>,
}

const SEQUENCE_BASE: u128 = 10_000_000_000_000_000_000;

impl QueueState {
    /// An empty queue.
    pub fn new(record: QueueRecord) -> QueueState {
        QueueState {
            record,
            notify: Arc::new(Notify::new()),
            messages: BTreeMap::new(),
            ready: BTreeSet::new(),
            hidden: BTreeSet::new(),
            next_seq: 0,
            n_delayed: 0,
            n_in_flight: 0,
            dedup: HashMap::new(),
            dedup_order: VecDeque::new(),
            in_flight_groups: HashMap::new(),
            next_sequence_number: 0,
        }
    }

    /// Puts back a message loaded from the store (after a restart); deduplication ids are
    /// not kept across restarts.
    pub fn restore(&mut self, m: StoredMessage) {
        self.next_seq = self.next_seq.max(m.seq + 1);
        if let Some(n) = m
            .sequence_number
            .as_deref()
            .and_then(|s| s.parse::<u128>().ok())
        {
            self.next_sequence_number = self
                .next_sequence_number
                .max(n.saturating_sub(SEQUENCE_BASE));
        }
        self.insert(m);
    }

    /// The queue's key.
    pub fn key(&self) -> QueueKey {
        QueueKey::new(&self.record.account, &self.record.region, &self.record.name)
    }

    /// True for a FIFO queue.
    pub fn fifo(&self) -> bool {
        self.record.fifo
    }

    fn store_key(&self, seq: u64) -> String {
        format!(
            "{}/{}/{}/{seq:020}",
            self.record.account, self.record.region, self.record.name
        )
    }

    fn persist(&self, storage: &Storage, seq: u64) {
        if let Some(m) = self.messages.get(&seq) {
            storage.put(MESSAGES_TABLE, &self.store_key(seq), m);
        }
    }

    /// Moves time forward to `now`: delayed and timed-out messages become visible, messages
    /// past the retention period and deduplication ids past their interval are dropped.
    pub fn tick(&mut self, now: DateTime<Utc>, storage: &Storage) {
        while let Some(&(until, seq)) = self.hidden.first() {
            if until > now {
                break;
            }
            self.hidden.pop_first();
            if let Some(m) = self.messages.get_mut(&seq) {
                match m.state {
                    MessageState::Delayed { .. } => self.n_delayed -= 1,
                    MessageState::InFlight { .. } => {
                        self.n_in_flight -= 1;
                        if let Some(g) = &m.group_id {
                            release_group(&mut self.in_flight_groups, g);
                        }
                    }
                    MessageState::Ready => {}
                }
                m.state = MessageState::Ready;
                self.ready.insert(seq);
            }
        }
        let retention = Duration::seconds(self.record.attributes.message_retention_period);
        let expired: Vec<u64> = self
            .messages
            .iter()
            .take_while(|(_, m)| m.sent + retention <= now)
            .map(|(seq, _)| *seq)
            .collect();
        for seq in expired {
            self.remove(seq, storage);
        }
        while let Some((expires, _)) = self.dedup_order.front() {
            if *expires > now {
                break;
            }
            if let Some((expires, id)) = self.dedup_order.pop_front() {
                if self.dedup.get(&id).is_some_and(|e| e.expires == expires) {
                    self.dedup.remove(&id);
                }
            }
        }
    }

    /// Takes a message out of the indexes (the store is the caller's concern).
    fn unindex(&mut self, seq: u64) -> Option<StoredMessage> {
        let m = self.messages.remove(&seq)?;
        match &m.state {
            MessageState::Ready => {
                self.ready.remove(&seq);
            }
            MessageState::Delayed { until } => {
                self.hidden.remove(&(*until, seq));
                self.n_delayed -= 1;
            }
            MessageState::InFlight { until } => {
                self.hidden.remove(&(*until, seq));
                self.n_in_flight -= 1;
                if let Some(g) = &m.group_id {
                    release_group(&mut self.in_flight_groups, g);
                }
            }
        }
        Some(m)
    }

    /// Deletes a message wherever it is, from the indexes and the store.
    fn remove(&mut self, seq: u64, storage: &Storage) -> Option<StoredMessage> {
        let m = self.unindex(seq)?;
        storage.delete(MESSAGES_TABLE, &self.store_key(seq));
        Some(m)
    }

    /// `(visible, in flight, delayed)` after [`QueueState::tick`].
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.ready.len(), self.n_in_flight, self.n_delayed)
    }

    /// The next instant a hidden message becomes visible, if any (long polls wait for it).
    pub fn next_wake(&self) -> Option<DateTime<Utc>> {
        self.hidden.first().map(|(t, _)| *t)
    }

    /// SendMessage on this queue. `max_size` checks are the caller's batch concern; this
    /// validates the message against the queue and enqueues it.
    pub fn send(
        &mut self,
        now: DateTime<Utc>,
        message: OutgoingMessage,
        sender_id: &str,
        ids: &IdGen,
        storage: &Storage,
    ) -> Result<SentMessage, Error> {
        self.tick(now, storage);
        let attrs = &self.record.attributes;
        if message.body.is_empty() {
            return Err(Error::missing_parameter("MessageBody"));
        }
        check_message_characters(&message.body)?;
        let attr_size = check_message_attributes(&message.message_attributes)?;
        if (message.body.len() + attr_size) as i64 > attrs.maximum_message_size {
            return Err(Error::InvalidParameterValue(format!(
                "One or more parameters are invalid. Reason: Message must be shorter than {} bytes.",
                attrs.maximum_message_size
            )));
        }
        if let Some(d) = message.delay_seconds {
            if !(0..=900).contains(&d) {
                return Err(Error::invalid_parameter(
                    d,
                    "DelaySeconds",
                    "DelaySeconds must be >= 0 and <= 900.",
                ));
            }
        }
        if let Some(g) = &message.message_group_id {
            check_fifo_id(g, "MessageGroupId")?;
        }
        if let Some(d) = &message.message_deduplication_id {
            check_fifo_id(d, "MessageDeduplicationId")?;
        }
        let delay = if self.record.fifo {
            if let Some(d) = message.delay_seconds.filter(|d| *d != 0) {
                return Err(Error::invalid_parameter(
                    d,
                    "DelaySeconds",
                    "The request include parameter that is not valid for this queue type.",
                ));
            }
            if message.message_group_id.is_none() {
                return Err(Error::missing_parameter("MessageGroupId"));
            }
            attrs.delay_seconds
        } else {
            if let Some(d) = &message.message_deduplication_id {
                return Err(Error::invalid_parameter(
                    d,
                    "MessageDeduplicationId",
                    "The request include parameter that is not valid for this queue type.",
                ));
            }
            message.delay_seconds.unwrap_or(attrs.delay_seconds)
        };
        let md5_of_body = md5_hex(message.body.as_bytes());
        let md5_of_attrs = md5_of_attributes(&message.message_attributes);
        let md5_of_system = message.aws_trace_header.as_ref().map(|h| {
            let mut sys = MessageAttributes::new();
            sys.insert(
                "AWSTraceHeader".to_string(),
                super::model::MessageAttributeValue::string(h.clone()),
            );
            md5_of_attributes(&sys).unwrap_or_default()
        });
        let mut dedup_key = None;
        let mut dedup_id = None;
        if self.record.fifo {
            let id = match &message.message_deduplication_id {
                Some(id) => id.clone(),
                None if attrs.content_based_deduplication => {
                    hex::encode(Sha256::digest(message.body.as_bytes()))
                }
                None => {
                    return Err(Error::InvalidParameterValue(
                        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly".to_string(),
                    ))
                }
            };
            let key = if attrs.deduplication_scope == "messageGroup" {
                format!(
                    "{}\u{0}{id}",
                    message.message_group_id.as_deref().unwrap_or_default()
                )
            } else {
                id.clone()
            };
            if let Some(prev) = self.dedup.get(&key).filter(|e| e.expires > now) {
                return Ok(SentMessage {
                    message_id: prev.message_id.clone(),
                    md5_of_message_body: md5_of_body,
                    md5_of_message_attributes: md5_of_attrs.clone(),
                    md5_of_message_system_attributes: md5_of_system,
                    sequence_number: prev.sequence_number.clone(),
                });
            }
            dedup_key = Some(key);
            dedup_id = Some(id);
        }
        let message_id = ids.uuid();
        let sequence_number = self.record.fifo.then(|| {
            self.next_sequence_number += 1;
            (SEQUENCE_BASE + self.next_sequence_number).to_string()
        });
        if let Some(key) = dedup_key {
            let expires = now + Duration::seconds(DEDUP_INTERVAL_SECONDS);
            self.dedup.insert(
                key.clone(),
                DedupEntry {
                    expires,
                    message_id: message_id.clone(),
                    sequence_number: sequence_number.clone(),
                },
            );
            self.dedup_order.push_back((expires, key));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let state = if delay > 0 {
            MessageState::Delayed {
                until: now + Duration::seconds(delay),
            }
        } else {
            MessageState::Ready
        };
        let stored = StoredMessage {
            seq,
            message_id: message_id.clone(),
            body: message.body,
            md5_of_body: md5_of_body.clone(),
            attributes: message.message_attributes,
            aws_trace_header: message.aws_trace_header,
            sender_id: sender_id.to_string(),
            sent: now,
            receive_count: 0,
            first_receive: None,
            group_id: message.message_group_id,
            dedup_id,
            sequence_number: sequence_number.clone(),
            dead_letter_source_arn: None,
            state,
        };
        self.insert(stored);
        self.persist(storage, seq);
        self.notify.notify_waiters();
        Ok(SentMessage {
            message_id,
            md5_of_message_body: md5_of_body,
            md5_of_message_attributes: md5_of_attrs.clone(),
            md5_of_message_system_attributes: md5_of_system,
            sequence_number,
        })
    }

    fn insert(&mut self, m: StoredMessage) {
        let seq = m.seq;
        match &m.state {
            MessageState::Ready => {
                self.ready.insert(seq);
            }
            MessageState::Delayed { until } => {
                self.hidden.insert((*until, seq));
                self.n_delayed += 1;
            }
            MessageState::InFlight { until } => {
                self.hidden.insert((*until, seq));
                self.n_in_flight += 1;
                if let Some(g) = &m.group_id {
                    *self.in_flight_groups.entry(g.clone()).or_default() += 1;
                }
            }
        }
        self.messages.insert(seq, m);
    }

    /// Adds a message redriven from `source_arn` (keeps its id, body, attributes, sent time and
    /// receive count; visible at once).
    pub fn insert_dead_letter(
        &mut self,
        mut m: StoredMessage,
        source_arn: &str,
        storage: &Storage,
    ) {
        m.seq = self.next_seq;
        self.next_seq += 1;
        m.state = MessageState::Ready;
        m.dead_letter_source_arn = Some(source_arn.to_string());
        if self.record.fifo {
            self.next_sequence_number += 1;
            m.sequence_number = Some((SEQUENCE_BASE + self.next_sequence_number).to_string());
        }
        let seq = m.seq;
        self.insert(m);
        self.persist(storage, seq);
        self.notify.notify_waiters();
    }

    /// ReceiveMessage: up to `spec.max` visible messages in arrival order (FIFO: skipping
    /// groups that already have messages in flight), each made invisible for the visibility
    /// timeout. A message already received `maxReceiveCount` times is moved out instead.
    pub fn receive(
        &mut self,
        now: DateTime<Utc>,
        spec: &ReceiveSpec<'_>,
        ids: &IdGen,
        storage: &Storage,
    ) -> Received {
        self.tick(now, storage);
        let mut out = Received {
            messages: Vec::new(),
            dead_letters: Vec::new(),
        };
        let blocked: BTreeSet<String> = if self.record.fifo {
            self.in_flight_groups.keys().cloned().collect()
        } else {
            BTreeSet::new()
        };
        let mut taken = Vec::new();
        let mut dead = Vec::new();
        for &seq in &self.ready {
            if taken.len() >= spec.max {
                break;
            }
            let Some(m) = self.messages.get(&seq) else {
                continue;
            };
            if let Some(g) = &m.group_id {
                if blocked.contains(g) {
                    continue;
                }
            }
            match spec.max_receive_count {
                Some(max) if m.receive_count >= max => dead.push(seq),
                _ => taken.push(seq),
            }
        }
        for seq in dead {
            if let Some(m) = self.remove(seq, storage) {
                out.dead_letters.push(m);
            }
        }
        let until = now + Duration::seconds(spec.visibility_timeout);
        for seq in taken {
            let Some(mut m) = self.unindex(seq) else {
                continue;
            };
            m.receive_count += 1;
            m.first_receive.get_or_insert(now);
            m.state = MessageState::InFlight { until };
            let handle = receipt_handle(&self.key().arn(), seq, m.receive_count, ids);
            out.messages
                .push(render(&m, handle, spec, self.record.fifo));
            self.insert(m);
            self.persist(storage, seq);
        }
        out
    }

    /// Finds the message a receipt handle names: `Ok(None)` when it is already gone.
    fn by_receipt(&self, handle: &str) -> Result<Option<(u64, u32)>, Error> {
        let (arn, seq, count) =
            parse_receipt_handle(handle).ok_or_else(|| Error::receipt_handle_invalid(handle))?;
        if arn != self.key().arn() {
            return Err(Error::receipt_handle_invalid(handle));
        }
        Ok(self.messages.contains_key(&seq).then_some((seq, count)))
    }

    /// DeleteMessage. A handle of a message already deleted succeeds (AWS); on a FIFO queue a
    /// handle whose visibility timeout ran out has expired.
    pub fn delete(
        &mut self,
        now: DateTime<Utc>,
        handle: &str,
        storage: &Storage,
    ) -> Result<(), Error> {
        self.tick(now, storage);
        let Some((seq, count)) = self.by_receipt(handle)? else {
            return Ok(());
        };
        if self.record.fifo {
            let current = self.messages.get(&seq).is_some_and(|m| {
                matches!(m.state, MessageState::InFlight { .. }) && m.receive_count == count
            });
            if !current {
                return Err(Error::invalid_parameter(
                    handle,
                    "ReceiptHandle",
                    "The receipt handle has expired.",
                ));
            }
        }
        self.remove(seq, storage);
        Ok(())
    }

    /// ChangeMessageVisibility: the message becomes visible `timeout` seconds from `now`. On a
    /// standard queue this also applies to a message whose timeout already ran out (AWS
    /// answers 200 there); on a FIFO queue the message must still be in flight.
    pub fn change_visibility(
        &mut self,
        now: DateTime<Utc>,
        handle: &str,
        timeout: i64,
        storage: &Storage,
    ) -> Result<(), Error> {
        self.tick(now, storage);
        let not_available = || {
            Error::invalid_parameter(
                handle,
                "ReceiptHandle",
                "Message does not exist or is not available for visibility timeout change.",
            )
        };
        let (seq, count) = self.by_receipt(handle)?.ok_or_else(not_available)?;
        let Some(m) = self.messages.get(&seq) else {
            return Err(not_available());
        };
        let in_flight = matches!(m.state, MessageState::InFlight { .. });
        if self.record.fifo && (!in_flight || m.receive_count != count) {
            return Err(not_available());
        }
        if matches!(m.state, MessageState::Delayed { .. }) {
            return Err(not_available());
        }
        let Some(mut m) = self.unindex(seq) else {
            return Err(not_available());
        };
        m.state = MessageState::InFlight {
            until: now + Duration::seconds(timeout),
        };
        self.insert(m);
        self.persist(storage, seq);
        if timeout == 0 {
            self.notify.notify_waiters();
        }
        Ok(())
    }

    /// PurgeQueue: deletes every message (one purge per 60 seconds).
    pub fn purge(&mut self, now: DateTime<Utc>, storage: &Storage) -> Result<(), Error> {
        if let Some(last) = self.record.last_purge {
            if now < last + Duration::seconds(60) {
                return Err(Error::PurgeQueueInProgress(format!(
                    "Only one PurgeQueue operation on {} is allowed every 60 seconds.",
                    self.record.name
                )));
            }
        }
        let seqs: Vec<u64> = self.messages.keys().copied().collect();
        for seq in seqs {
            self.remove(seq, storage);
        }
        self.record.last_purge = Some(now);
        Ok(())
    }

    /// Deletes every stored message of this queue (DeleteQueue).
    pub fn drop_messages(&mut self, storage: &Storage) {
        let seqs: Vec<u64> = self.messages.keys().copied().collect();
        for seq in seqs {
            self.remove(seq, storage);
        }
    }
}

fn release_group(groups: &mut HashMap<String, usize>, group: &str) {
    if let Some(n) = groups.get_mut(group) {
        *n -= 1;
        if *n == 0 {
            groups.remove(group);
        }
    }
}

/// A receipt handle: base64 of `<queue arn> <seq> <receive count> <nonce>`.
fn receipt_handle(arn: &str, seq: u64, receive_count: u32, ids: &IdGen) -> String {
    let raw = format!("{arn} {seq} {receive_count} {}", ids.hex(32));
    base64::engine::general_purpose::STANDARD.encode(raw)
}

/// `(queue arn, seq, receive count)` of a handle this module issued.
fn parse_receipt_handle(handle: &str) -> Option<(String, u64, u32)> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(handle.trim())
        .ok()?;
    let text = String::from_utf8(raw).ok()?;
    let mut parts = text.split(' ');
    let arn = parts.next()?.to_string();
    let seq = parts.next()?.parse().ok()?;
    let count = parts.next()?.parse().ok()?;
    parts.next()?;
    Some((arn, seq, count))
}

fn wants_all(names: &[String]) -> bool {
    names.iter().any(|n| n == "All")
}

/// True when `name` passes a MessageAttributeNames filter: `All`, `*`, `.*`, an exact name,
/// or `prefix.*` (a plain prefix match on `prefix`; AWS matches `Hel.*` to `Hello`).
fn attribute_wanted(name: &str, filters: &[String]) -> bool {
    filters.iter().any(|f| {
        f == "All"
            || f == "*"
            || f == ".*"
            || f == name
            || f.strip_suffix(".*").is_some_and(|p| name.starts_with(p))
    })
}

fn render(
    m: &StoredMessage,
    receipt_handle: String,
    spec: &ReceiveSpec<'_>,
    fifo: bool,
) -> ReceivedMessage {
    let all = wants_all(spec.attribute_names);
    let want = |name: &str| all || spec.attribute_names.iter().any(|n| n == name);
    let mut attributes = BTreeMap::new();
    if want("SenderId") {
        attributes.insert("SenderId".to_string(), m.sender_id.clone());
    }
    if want("SentTimestamp") {
        attributes.insert("SentTimestamp".to_string(), epoch_millis(m.sent));
    }
    if want("ApproximateReceiveCount") {
        attributes.insert(
            "ApproximateReceiveCount".to_string(),
            m.receive_count.to_string(),
        );
    }
    if want("ApproximateFirstReceiveTimestamp") {
        if let Some(t) = m.first_receive {
            attributes.insert(
                "ApproximateFirstReceiveTimestamp".to_string(),
                epoch_millis(t),
            );
        }
    }
    if want("MessageGroupId") {
        if let Some(g) = &m.group_id {
            attributes.insert("MessageGroupId".to_string(), g.clone());
        }
    }
    if fifo && want("MessageDeduplicationId") {
        if let Some(d) = &m.dedup_id {
            attributes.insert("MessageDeduplicationId".to_string(), d.clone());
        }
    }
    if want("SequenceNumber") {
        if let Some(s) = &m.sequence_number {
            attributes.insert("SequenceNumber".to_string(), s.clone());
        }
    }
    if want("AWSTraceHeader") {
        if let Some(h) = &m.aws_trace_header {
            attributes.insert("AWSTraceHeader".to_string(), h.clone());
        }
    }
    if want("DeadLetterQueueSourceArn") {
        if let Some(a) = &m.dead_letter_source_arn {
            attributes.insert("DeadLetterQueueSourceArn".to_string(), a.clone());
        }
    }
    let message_attributes: MessageAttributes = m
        .attributes
        .iter()
        .filter(|(name, _)| attribute_wanted(name, spec.message_attribute_names))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    ReceivedMessage {
        message_id: m.message_id.clone(),
        receipt_handle,
        md5_of_body: m.md5_of_body.clone(),
        body: m.body.clone(),
        attributes,
        md5_of_message_attributes: md5_of_attributes(&message_attributes),
        message_attributes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_filters_follow_aws() {
        let f = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for (filters, name, want) in [
            (f(&["All"]), "Hello", true),
            (f(&["*"]), "Hello", true),
            (f(&[".*"]), "Help.Me", true),
            (f(&["Hel.*"]), "Hello", true),
            (f(&["Hel.*"]), "Help.Me", true),
            (f(&["Hel.*"]), "General", false),
            (f(&["Foo", "Help"]), "Help.Me", false),
            (f(&["Hello"]), "Hello", true),
            (f(&[]), "Hello", false),
            (f(&["AWS."]), "Hello", false),
        ] {
            assert_eq!(attribute_wanted(name, &filters), want, "{filters:?} {name}");
        }
    }

    #[test]
    fn receipt_handles_round_trip_and_reject_garbage() {
        let ids = IdGen::seeded(1);
        let h = receipt_handle("arn:aws:sqs:us-east-1:000000000000:q", 7, 2, &ids);
        assert_eq!(
            parse_receipt_handle(&h),
            Some(("arn:aws:sqs:us-east-1:000000000000:q".to_string(), 7, 2))
        );
        assert_eq!(parse_receipt_handle("garbage"), None);
        assert_eq!(parse_receipt_handle(""), None);
    }
}
