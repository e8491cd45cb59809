//! SQS: queues (standard and FIFO) and their messages, per account and region. Target of
//! scheduler deliveries and dead-letter queues, backend of `AWS::SQS::Queue`, subscriber
//! endpoint of SNS. Follows the Amazon SQS API Reference (2012-11-05); knows nothing of HTTP.
//!
//! Every queue operation names its queue by ARN (`arn:aws:sqs:<region>:<account>:<name>`):
//! the dispatcher and SNS hold ARNs, and the wire turns a QueueUrl into one with
//! [`Sqs::resolve_url`]. A missing queue is always [`Error::QueueDoesNotExist`].
//!
//! Message visibility, delays, retention and deduplication run on domain time
//! ([`crate::clock::Clock::now`]), so a manual clock freezes them. The long-poll wait of
//! [`Sqs::receive_message`] is wall time ([`crate::clock::Clock::sleep_wall`]): it is a
//! transport wait, and it ends as soon as a message arrives.

mod error;
pub mod model;
mod queue;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, Mutex};

use base64::Engine;
use indexmap::IndexMap;

pub use error::Error;
pub use model::{
    BatchEntry, BatchResult, MessageAttributeValue, MessageAttributes, OutgoingMessage, Queue,
    QueueAttributes, ReceiveMessageInput, ReceivedMessage, RedrivePolicy, SentMessage,
};

use crate::clock::Clock;
use crate::ids::Endpoint;
use crate::ids::{IdGen, Scope};
use crate::storage::Storage;
use crate::sync::lock;
use model::{parse_bool, MAX_BATCH_ENTRIES, MAX_MESSAGE_SIZE, MAX_VISIBILITY_TIMEOUT};
use queue::{QueueRecord, QueueState, ReceiveSpec, StoredMessage, MESSAGES_TABLE, QUEUES_TABLE};

/// Most tags a queue may carry.
pub const MAX_TAGS: usize = 50;

/// A queue's address: account, region and name (what an ARN or a QueueUrl names).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QueueKey {
    /// 12-digit account id.
    pub account: String,
    /// Region.
    pub region: String,
    /// Queue name.
    pub name: String,
}

impl QueueKey {
    /// A key from its parts.
    pub fn new(account: &str, region: &str, name: &str) -> QueueKey {
        QueueKey {
            account: account.to_string(),
            region: region.to_string(),
            name: name.to_string(),
        }
    }

    /// Parses `arn:<partition>:sqs:<region>:<account>:<name>`; `None` for anything else.
    pub fn from_arn(arn: &str) -> Option<QueueKey> {
        let mut parts = arn.splitn(6, ':');
        let (arn_word, _partition, service, region, account, name) = (
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
        );
        (arn_word == "arn"
            && service == "sqs"
            && !region.is_empty()
            && !account.is_empty()
            && !name.is_empty())
        .then(|| QueueKey::new(account, region, name))
    }

    /// `arn:aws:sqs:<region>:<account>:<name>`.
    pub fn arn(&self) -> String {
        format!("arn:aws:sqs:{}:{}:{}", self.region, self.account, self.name)
    }

    fn store_key(&self) -> String {
        format!("{}/{}/{}", self.account, self.region, self.name)
    }
}

#[derive(Default)]
struct State {
    queues: BTreeMap<QueueKey, QueueState>,
}

impl State {
    /// What the store holds: queue records, then their messages.
    fn load(storage: &Storage) -> State {
        let mut state = State::default();
        for (_, record) in storage.load::<QueueRecord>(QUEUES_TABLE) {
            let q = QueueState::new(record);
            state.queues.insert(q.key(), q);
        }
        for (key, message) in storage.load::<StoredMessage>(MESSAGES_TABLE) {
            let mut parts = key.splitn(4, '/');
            let (Some(account), Some(region), Some(name)) =
                (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if let Some(q) = state.queues.get_mut(&QueueKey::new(account, region, name)) {
                q.restore(message);
            }
        }
        state
    }

    fn queue_mut(&mut self, key: &QueueKey) -> Result<&mut QueueState, Error> {
        self.queues.get_mut(key).ok_or(Error::QueueDoesNotExist)
    }
}

struct Shared {
    clock: Clock,
    ids: IdGen,
    storage: Storage,
    endpoint: Endpoint,
    state: Mutex<State>,
}

/// Handle to the SQS core. Clones share one state.
#[derive(Clone)]
pub struct Sqs {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Sqs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sqs").finish_non_exhaustive()
    }
}

fn key_of(queue_arn: &str) -> Result<QueueKey, Error> {
    QueueKey::from_arn(queue_arn).ok_or(Error::QueueDoesNotExist)
}

fn check_batch<T>(entries: &[BatchEntry<T>], entry_shape: &str) -> Result<(), Error> {
    if entries.is_empty() {
        return Err(Error::EmptyBatchRequest(format!(
            "There should be at least one {entry_shape} in the request."
        )));
    }
    if entries.len() > MAX_BATCH_ENTRIES {
        return Err(Error::TooManyEntriesInBatchRequest(format!(
            "Maximum number of entries per request are {MAX_BATCH_ENTRIES}. You have sent {}.",
            entries.len()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for e in entries {
        let valid = (1..=80).contains(&e.id.len())
            && e.id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid {
            return Err(Error::InvalidBatchEntryId(
                "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.".to_string(),
            ));
        }
        if !seen.insert(e.id.as_str()) {
            return Err(Error::BatchEntryIdsNotDistinct(format!(
                "Id {} repeated.",
                e.id
            )));
        }
    }
    Ok(())
}

fn check_visibility_timeout(timeout: i64) -> Result<(), Error> {
    if (0..=MAX_VISIBILITY_TIMEOUT).contains(&timeout) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            timeout,
            "VisibilityTimeout",
            "Must be >= 0 and <= 43200, if provided.",
        ))
    }
}

fn check_queue_name(name: &str, fifo: bool) -> Result<(), Error> {
    let base = if fifo {
        match name.strip_suffix(".fifo") {
            Some(base) => base,
            None => {
                return Err(Error::InvalidParameterValue(
                    "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length".to_string(),
                ))
            }
        }
    } else {
        name
    };
    let len = base.len() + if fifo { 5 } else { 0 };
    let ok = !base.is_empty()
        && len <= 80
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else if fifo {
        Err(Error::InvalidParameterValue(
            "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length".to_string(),
        ))
    } else {
        Err(Error::InvalidParameterValue(
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
                .to_string(),
        ))
    }
}

fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), Error> {
    for (k, v) in tags {
        if k.is_empty() || k.chars().count() > 128 {
            return Err(Error::invalid_parameter(
                k,
                "Tags",
                "Tag keys must be between 1 and 128 characters in length.",
            ));
        }
        if v.chars().count() > 256 {
            return Err(Error::invalid_parameter(
                v,
                "Tags",
                "Tag values must be between 0 and 256 characters in length.",
            ));
        }
    }
    Ok(())
}

impl Sqs {
    /// An SQS with the queues and messages `storage` holds (none in memory); queue URLs are
    /// built on `endpoint`.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage, endpoint: Endpoint) -> Sqs {
        let state = State::load(&storage);
        Sqs {
            shared: Arc::new(Shared {
                clock,
                ids,
                storage,
                endpoint,
                state: Mutex::new(state),
            }),
        }
    }

    fn identity(&self, key: &QueueKey) -> Queue {
        Queue {
            name: key.name.clone(),
            url: format!(
                "{}/{}/{}",
                self.shared.endpoint.url(),
                key.account,
                key.name
            ),
            arn: key.arn(),
        }
    }

    fn persist_queue(&self, q: &QueueState) {
        self.shared
            .storage
            .put(QUEUES_TABLE, &q.key().store_key(), &q.record);
    }

    /// The base URL clients reach the emulator at (queue URLs and SNS unsubscribe URLs are
    /// built on it).
    pub fn endpoint_url(&self) -> String {
        self.shared.endpoint.url().to_string()
    }

    /// Deletes every queue and message in every account and region.
    pub fn reset(&self) {
        let mut state = lock(&self.shared.state);
        for q in state.queues.values() {
            q.notify.notify_waiters();
        }
        state.queues.clear();
    }

    /// The ARN of the queue a QueueUrl names, for a request made in `scope`. Only the path
    /// counts (host ignored): `/<account>/<name>`, or LocalStack's
    /// `/queue/<region>/<account>/<name>`. The queue need not exist. A URL without an account
    /// and a name is `InvalidAddress`.
    pub fn resolve_url(&self, scope: &Scope, url: &str) -> Result<String, Error> {
        let invalid =
            || Error::InvalidAddress(format!("The address {url} is not valid for this endpoint."));
        let path = match url.split_once("://") {
            Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
            None => url,
        };
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let n = segments.len();
        if n < 2 {
            return Err(invalid());
        }
        let (account, name) = (segments[n - 2], segments[n - 1]);
        if !account.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid());
        }
        let region = if n >= 4 && segments[n - 4] == "queue" {
            segments[n - 3]
        } else {
            scope.region.as_str()
        };
        Ok(QueueKey::new(account, region, name).arn())
    }

    /// CreateQueue in `scope`. Idempotent when every given attribute equals the existing
    /// queue's value; otherwise `QueueNameExists` ("A queue already exists with the same name
    /// and a different value for attribute <A>"). A FIFO queue needs `FifoQueue=true` and a
    /// name ending in `.fifo`. Tags are applied only on creation.
    pub fn create_queue(
        &self,
        scope: &Scope,
        name: &str,
        attributes: &IndexMap<String, String>,
        tags: &BTreeMap<String, String>,
    ) -> Result<Queue, Error> {
        let fifo = match attributes.get("FifoQueue") {
            None => false,
            Some(v) => match parse_bool(v) {
                Some(true) => true,
                _ => return Err(Error::unknown_attribute("FifoQueue")),
            },
        };
        if name.ends_with(".fifo") && !fifo {
            return Err(Error::InvalidParameterValue(
                "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
                    .to_string(),
            ));
        }
        check_queue_name(name, fifo)?;
        let mut config = QueueAttributes::default();
        let mut redrive = None;
        for (k, v) in attributes {
            if k == "FifoQueue" {
                continue;
            }
            if let Some(policy) = config.apply(fifo, k, v)? {
                redrive = Some(policy);
            }
        }
        if tags.len() > MAX_TAGS {
            return Err(Error::InvalidParameterValue(format!(
                "Too many tags added for queue {name}."
            )));
        }
        check_tags(tags)?;
        let key = QueueKey::new(&scope.account, &scope.region, name);
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        if let Some(existing) = state.queues.get(&key) {
            let current: IndexMap<&str, String> = existing
                .record
                .attributes
                .shown(existing.fifo())
                .into_iter()
                .collect();
            let wanted: IndexMap<&str, String> = config.shown(fifo).into_iter().collect();
            for k in attributes.keys() {
                let want = if k == "FifoQueue" {
                    Some("true")
                } else {
                    wanted.get(k.as_str()).map(String::as_str)
                };
                if want != current.get(k.as_str()).map(String::as_str) {
                    return Err(Error::QueueNameExists(format!(
                        "A queue already exists with the same name and a different value for attribute {k}"
                    )));
                }
            }
            return Ok(self.identity(&key));
        }
        if let Some(policy) = &redrive {
            check_dead_letter_target(&state, &key, fifo, policy)?;
        }
        let record = QueueRecord {
            account: key.account.clone(),
            region: key.region.clone(),
            name: key.name.clone(),
            fifo,
            attributes: config,
            tags: tags.clone(),
            created: now,
            last_modified: now,
            last_purge: None,
        };
        let q = QueueState::new(record);
        self.persist_queue(&q);
        state.queues.insert(key.clone(), q);
        Ok(self.identity(&key))
    }

    /// GetQueueUrl: the queue called `name` in `scope`.
    pub fn get_queue_url(&self, scope: &Scope, name: &str) -> Result<Queue, Error> {
        let key = QueueKey::new(&scope.account, &scope.region, name);
        if lock(&self.shared.state).queues.contains_key(&key) {
            Ok(self.identity(&key))
        } else {
            Err(Error::QueueDoesNotExist)
        }
    }

    /// The queue an ARN names, if it exists (`QueueDoesNotExist` otherwise, also for a
    /// malformed ARN).
    pub fn queue_by_arn(&self, queue_arn: &str) -> Result<Queue, Error> {
        let key = key_of(queue_arn)?;
        if lock(&self.shared.state).queues.contains_key(&key) {
            Ok(self.identity(&key))
        } else {
            Err(Error::QueueDoesNotExist)
        }
    }

    /// True when the queue is FIFO (`QueueDoesNotExist` when it does not exist).
    pub fn is_fifo(&self, queue_arn: &str) -> Result<bool, Error> {
        let key = key_of(queue_arn)?;
        lock(&self.shared.state)
            .queues
            .get(&key)
            .map(QueueState::fifo)
            .ok_or(Error::QueueDoesNotExist)
    }

    /// DeleteQueue: the queue and its messages are gone at once (AWS takes up to 60 s and
    /// refuses a same-name CreateQueue meanwhile; Cumulo does not).
    pub fn delete_queue(&self, queue_arn: &str) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        let mut state = lock(&self.shared.state);
        let mut q = state.queues.remove(&key).ok_or(Error::QueueDoesNotExist)?;
        q.drop_messages(&self.shared.storage);
        self.shared.storage.delete(QUEUES_TABLE, &key.store_key());
        q.notify.notify_waiters();
        Ok(())
    }

    /// GetQueueAttributes: the named attributes (`All` for every one) as AWS renders them
    /// (numbers and booleans as strings, timestamps in epoch seconds). An unknown name is
    /// `InvalidAttributeName` "Unknown Attribute <name>.". No names gives an empty map.
    pub fn get_queue_attributes(
        &self,
        queue_arn: &str,
        names: &[String],
    ) -> Result<IndexMap<String, String>, Error> {
        let key = key_of(queue_arn)?;
        for n in names {
            if n != "All" && !model::KNOWN_ATTRIBUTES.contains(&n.as_str()) {
                return Err(Error::unknown_attribute(n));
            }
        }
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        q.tick(now, &self.shared.storage);
        let (visible, in_flight, delayed) = q.counts();
        let mut all: IndexMap<String, String> = IndexMap::new();
        all.insert("QueueArn".into(), key.arn());
        all.insert("ApproximateNumberOfMessages".into(), visible.to_string());
        all.insert(
            "ApproximateNumberOfMessagesNotVisible".into(),
            in_flight.to_string(),
        );
        all.insert(
            "ApproximateNumberOfMessagesDelayed".into(),
            delayed.to_string(),
        );
        all.insert(
            "CreatedTimestamp".into(),
            q.record.created.timestamp().to_string(),
        );
        all.insert(
            "LastModifiedTimestamp".into(),
            q.record.last_modified.timestamp().to_string(),
        );
        for (k, v) in q.record.attributes.shown(q.fifo()) {
            all.insert(k.to_string(), v);
        }
        if names.iter().any(|n| n == "All") {
            all.sort_keys();
            return Ok(all);
        }
        Ok(names
            .iter()
            .filter_map(|n| all.get(n).map(|v| (n.clone(), v.clone())))
            .collect())
    }

    /// SetQueueAttributes, with AWS's ranges (`InvalidAttributeValue` "Invalid value for the
    /// parameter <A>."). `FifoQueue` cannot change type; the FIFO-only attributes are refused
    /// on standard queues. Nothing is applied when any attribute is refused.
    pub fn set_queue_attributes(
        &self,
        queue_arn: &str,
        attributes: &IndexMap<String, String>,
    ) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        let fifo = q.fifo();
        let mut config = q.record.attributes.clone();
        let mut redrive = None;
        for (k, v) in attributes {
            if k == "FifoQueue" {
                if !fifo {
                    return Err(Error::unknown_attribute(k));
                }
                if parse_bool(v) != Some(true) {
                    return Err(Error::InvalidAttributeValue(
                        "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.".to_string(),
                    ));
                }
                continue;
            }
            if let Some(policy) = config.apply(fifo, k, v)? {
                redrive = Some(policy);
            }
        }
        if let Some(policy) = &redrive {
            check_dead_letter_target(&state, &key, fifo, policy)?;
        }
        let q = state.queue_mut(&key)?;
        q.record.attributes = config;
        q.record.last_modified = now;
        self.persist_queue(q);
        Ok(())
    }

    /// SendMessage to the queue `queue_arn` names (account and region come from the ARN). The
    /// sender is the queue's account. Errors: `QueueDoesNotExist`; `MissingParameter` for an
    /// empty body or a FIFO message without MessageGroupId; `InvalidParameterValue` for size,
    /// delay, attribute and deduplication problems (AWS's texts).
    pub fn send_message(
        &self,
        queue_arn: &str,
        message: OutgoingMessage,
    ) -> Result<SentMessage, Error> {
        let key = key_of(queue_arn)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        q.send(
            now,
            message,
            &key.account,
            &self.shared.ids,
            &self.shared.storage,
        )
    }

    /// SendMessage whose stored message is committed in one transaction together with
    /// `rider` (the sender's own bookkeeping, e.g. the dispatcher's "occurrence delivered"),
    /// so after a crash either both exist or neither. Returns `rider` back when the send
    /// failed before anything was stored.
    pub fn send_message_riding(
        &self,
        queue_arn: &str,
        message: OutgoingMessage,
        rider: Vec<crate::storage::StoredOp>,
    ) -> (
        Result<SentMessage, Error>,
        Option<Vec<crate::storage::StoredOp>>,
    ) {
        let key = match key_of(queue_arn) {
            Ok(k) => k,
            Err(e) => return (Err(e), Some(rider)),
        };
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = match state.queue_mut(&key) {
            Ok(q) => q,
            Err(e) => return (Err(e), Some(rider)),
        };
        let storage = self.shared.storage.clone();
        storage.with_rider(rider, || {
            q.send(
                now,
                message,
                &key.account,
                &self.shared.ids,
                &self.shared.storage,
            )
        })
    }

    /// SendMessageBatch: 1–10 entries with distinct ids, at most 1 MiB together. Each entry
    /// succeeds or fails on its own (`Failed` entries carry the error).
    pub fn send_message_batch(
        &self,
        queue_arn: &str,
        entries: Vec<BatchEntry<OutgoingMessage>>,
    ) -> Result<BatchResult<SentMessage>, Error> {
        let key = key_of(queue_arn)?;
        check_batch(&entries, "SendMessageBatchRequestEntry")?;
        let total: usize = entries
            .iter()
            .map(|e| model::message_size(&e.value.body, &e.value.message_attributes))
            .sum();
        if total as i64 > MAX_MESSAGE_SIZE {
            return Err(Error::BatchRequestTooLong(format!(
                "Batch requests cannot be longer than {MAX_MESSAGE_SIZE} bytes. You have sent {total} bytes."
            )));
        }
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        // AWS refuses a FIFO batch as a whole (InvalidParameterValue, recorded) when an entry
        // lacks a group or a deduplication id, where SendMessage says MissingParameter.
        if q.fifo() {
            let content_based = q.record.attributes.content_based_deduplication;
            for e in &entries {
                if e.value.message_group_id.is_none() {
                    return Err(Error::InvalidParameterValue(
                        "The request must contain the parameter MessageGroupId.".to_string(),
                    ));
                }
                if e.value.message_deduplication_id.is_none() && !content_based {
                    return Err(Error::InvalidParameterValue(
                        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly".to_string(),
                    ));
                }
            }
        }
        let max = q.record.attributes.maximum_message_size;
        Ok(entries
            .into_iter()
            .map(|e| {
                let res = q
                    .send(
                        now,
                        e.value,
                        &key.account,
                        &self.shared.ids,
                        &self.shared.storage,
                    )
                    .map_err(|err| match err {
                        Error::InvalidParameterValue(m)
                            if m.starts_with("One or more parameters are invalid.") =>
                        {
                            Error::InvalidParameterValue(format!(
                                "One or more parameters cannot be validated. Reason: Message must be shorter than {max} bytes."
                            ))
                        }
                        other => other,
                    });
                (e.id, res)
            })
            .collect())
    }

    /// One receive attempt without waiting: the messages (possibly none) and the next instant
    /// a hidden message becomes visible.
    fn try_receive(
        &self,
        key: &QueueKey,
        input: &ReceiveMessageInput,
        max: usize,
    ) -> Result<(Vec<ReceivedMessage>, Option<chrono::DateTime<chrono::Utc>>), Error> {
        let now = self.shared.clock.now();
        let storage = &self.shared.storage;
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(key)?;
        let visibility_timeout = input
            .visibility_timeout
            .unwrap_or(q.record.attributes.visibility_timeout);
        let redrive = q.record.attributes.redrive();
        let dead_letter = redrive.and_then(|r| {
            let dlq = QueueKey::from_arn(&r.dead_letter_target_arn)?;
            (dlq != *key && state.queues.contains_key(&dlq)).then_some((dlq, r.max_receive_count))
        });
        let q = state.queue_mut(key)?;
        let spec = ReceiveSpec {
            max,
            visibility_timeout,
            attribute_names: &input.attribute_names,
            message_attribute_names: &input.message_attribute_names,
            max_receive_count: dead_letter.as_ref().map(|(_, n)| *n),
        };
        let received = q.receive(now, &spec, &self.shared.ids, storage);
        let wake = q.next_wake();
        if let Some((dlq, _)) = dead_letter {
            if !received.dead_letters.is_empty() {
                let source = key.arn();
                if let Ok(target) = state.queue_mut(&dlq) {
                    for m in received.dead_letters {
                        target.insert_dead_letter(m, &source, storage);
                    }
                }
            }
        }
        Ok((received.messages, wake))
    }

    /// ReceiveMessage: up to `MaxNumberOfMessages` (1–10) visible messages. With a wait
    /// (`WaitTimeSeconds` 0–20, default the queue's `ReceiveMessageWaitTimeSeconds`) it
    /// long-polls: it answers as soon as a message can be returned, or empty once the wait (wall
    /// time) is over. Messages received more than the RedrivePolicy's `maxReceiveCount` times
    /// move to the dead-letter queue instead of being returned.
    pub async fn receive_message(
        &self,
        queue_arn: &str,
        input: ReceiveMessageInput,
    ) -> Result<Vec<ReceivedMessage>, Error> {
        let key = key_of(queue_arn)?;
        let max = match input.max_number_of_messages {
            None => 1,
            Some(n @ 1..=10) => n as usize,
            Some(n) => {
                return Err(Error::invalid_parameter(
                    n,
                    "MaxNumberOfMessages",
                    "Must be between 1 and 10, if provided.",
                ))
            }
        };
        if let Some(w) = input.wait_time_seconds {
            if !(0..=20).contains(&w) {
                return Err(Error::invalid_parameter(
                    w,
                    "WaitTimeSeconds",
                    "Must be >= 0 and <= 20, if provided.",
                ));
            }
        }
        if let Some(v) = input.visibility_timeout {
            check_visibility_timeout(v)?;
        }
        let (notify, default_wait) = {
            let mut state = lock(&self.shared.state);
            let q = state.queue_mut(&key)?;
            (
                q.notify.clone(),
                q.record.attributes.receive_message_wait_time_seconds,
            )
        };
        let wait = input.wait_time_seconds.unwrap_or(default_wait);
        let clock = &self.shared.clock;
        let deadline = clock.monotonic() + std::time::Duration::from_secs(wait.max(0) as u64);
        loop {
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let (messages, wake) = self.try_receive(&key, &input, max)?;
            let remaining = deadline.saturating_duration_since(clock.monotonic());
            if !messages.is_empty() || remaining.is_zero() {
                return Ok(messages);
            }
            let hidden_due = async {
                match wake {
                    Some(t) => clock.sleep_until(t).await,
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = &mut notified => {}
                _ = clock.sleep_wall(remaining) => {}
                _ = hidden_due => {}
            }
        }
    }

    /// DeleteMessage. `ReceiptHandleIsInvalid` for a handle this queue never issued; a handle
    /// of an already deleted message succeeds; on FIFO queues an expired handle is refused.
    pub fn delete_message(&self, queue_arn: &str, receipt_handle: &str) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        state
            .queue_mut(&key)?
            .delete(now, receipt_handle, &self.shared.storage)
    }

    /// DeleteMessageBatch: entries are receipt handles.
    pub fn delete_message_batch(
        &self,
        queue_arn: &str,
        entries: Vec<BatchEntry<String>>,
    ) -> Result<BatchResult<()>, Error> {
        let key = key_of(queue_arn)?;
        check_batch(&entries, "DeleteMessageBatchRequestEntry")?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        Ok(entries
            .into_iter()
            .map(|e| {
                let res = q.delete(now, &e.value, &self.shared.storage);
                (e.id, res)
            })
            .collect())
    }

    /// ChangeMessageVisibility: the message reappears `visibility_timeout` (0–43200) seconds
    /// from now.
    pub fn change_message_visibility(
        &self,
        queue_arn: &str,
        receipt_handle: &str,
        visibility_timeout: i64,
    ) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        check_visibility_timeout(visibility_timeout)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        state.queue_mut(&key)?.change_visibility(
            now,
            receipt_handle,
            visibility_timeout,
            &self.shared.storage,
        )
    }

    /// ChangeMessageVisibilityBatch: entries are `(receipt handle, visibility timeout)`.
    pub fn change_message_visibility_batch(
        &self,
        queue_arn: &str,
        entries: Vec<BatchEntry<(String, i64)>>,
    ) -> Result<BatchResult<()>, Error> {
        let key = key_of(queue_arn)?;
        check_batch(&entries, "ChangeMessageVisibilityBatchRequestEntry")?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        Ok(entries
            .into_iter()
            .map(|e| {
                let (handle, timeout) = e.value;
                let res = check_visibility_timeout(timeout).and_then(|()| {
                    q.change_visibility(now, &handle, timeout, &self.shared.storage)
                });
                (e.id, res)
            })
            .collect())
    }

    /// PurgeQueue: deletes every message; a second purge within 60 s (domain time) is
    /// `PurgeQueueInProgress`.
    pub fn purge_queue(&self, queue_arn: &str) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        q.purge(now, &self.shared.storage)?;
        self.persist_queue(q);
        Ok(())
    }

    /// ListQueues in `scope`: URLs in name order, filtered by `prefix`. With `max_results`
    /// (1–1000) it pages, answering a `NextToken` while more remain; without it, at most 1000.
    pub fn list_queues(
        &self,
        scope: &Scope,
        prefix: Option<&str>,
        max_results: Option<i64>,
        next_token: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), Error> {
        let limit = match max_results {
            None => 1000,
            Some(n @ 1..=1000) => n as usize,
            Some(n) => {
                return Err(Error::invalid_parameter(
                    n,
                    "MaxResults",
                    "MaxResults must be an integer between 1 and 1000.",
                ))
            }
        };
        let after = match next_token.filter(|t| !t.is_empty()) {
            None => None,
            Some(t) => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(t)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .ok_or_else(|| {
                        Error::InvalidParameterValue("Invalid NextToken value.".to_string())
                    })?,
            ),
        };
        let prefix = prefix.unwrap_or("");
        let start = QueueKey::new(
            &scope.account,
            &scope.region,
            after.as_deref().unwrap_or(prefix),
        );
        let lower = if after.is_some() {
            Bound::Excluded(start)
        } else {
            Bound::Included(start)
        };
        let state = lock(&self.shared.state);
        let mut names: Vec<&QueueKey> = state
            .queues
            .range((lower, Bound::Unbounded))
            .map(|(k, _)| k)
            .take_while(|k| k.account == scope.account && k.region == scope.region)
            .filter(|k| k.name.starts_with(prefix))
            .take(limit + 1)
            .collect();
        let more = names.len() > limit;
        names.truncate(limit);
        let token = (more && max_results.is_some())
            .then(|| names.last())
            .flatten()
            .map(|k| base64::engine::general_purpose::STANDARD.encode(&k.name));
        Ok((
            names.into_iter().map(|k| self.identity(k).url).collect(),
            token,
        ))
    }

    /// ListDeadLetterSourceQueues: URLs of the queues whose RedrivePolicy targets this one.
    pub fn list_dead_letter_source_queues(&self, queue_arn: &str) -> Result<Vec<String>, Error> {
        let key = key_of(queue_arn)?;
        let state = lock(&self.shared.state);
        if !state.queues.contains_key(&key) {
            return Err(Error::QueueDoesNotExist);
        }
        let arn = key.arn();
        Ok(state
            .queues
            .iter()
            .filter(|(_, q)| {
                q.record
                    .attributes
                    .redrive()
                    .is_some_and(|r| r.dead_letter_target_arn == arn)
            })
            .map(|(k, _)| self.identity(k).url)
            .collect())
    }

    /// TagQueue: adds or replaces tags (at most 50 in all).
    pub fn tag_queue(&self, queue_arn: &str, tags: &BTreeMap<String, String>) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        check_tags(tags)?;
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        let mut merged = q.record.tags.clone();
        merged.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
        if merged.len() > MAX_TAGS {
            return Err(Error::InvalidParameterValue(format!(
                "Too many tags added for queue {}.",
                key.name
            )));
        }
        q.record.tags = merged;
        self.persist_queue(q);
        Ok(())
    }

    /// UntagQueue: removes the named tags (absent keys are ignored).
    pub fn untag_queue(&self, queue_arn: &str, keys: &[String]) -> Result<(), Error> {
        let key = key_of(queue_arn)?;
        let mut state = lock(&self.shared.state);
        let q = state.queue_mut(&key)?;
        for k in keys {
            q.record.tags.remove(k);
        }
        self.persist_queue(q);
        Ok(())
    }

    /// ListQueueTags.
    pub fn list_queue_tags(&self, queue_arn: &str) -> Result<BTreeMap<String, String>, Error> {
        let key = key_of(queue_arn)?;
        let mut state = lock(&self.shared.state);
        Ok(state.queue_mut(&key)?.record.tags.clone())
    }
}

/// A RedrivePolicy's target must exist in the same account and region and be of the same type.
fn check_dead_letter_target(
    state: &State,
    source: &QueueKey,
    fifo: bool,
    policy: &RedrivePolicy,
) -> Result<(), Error> {
    let text = policy.to_json();
    let target = QueueKey::from_arn(&policy.dead_letter_target_arn)
        .filter(|k| k.account == source.account && k.region == source.region)
        .and_then(|k| state.queues.get(&k))
        .ok_or_else(|| {
            Error::invalid_parameter(&text, "RedrivePolicy", "Dead letter target does not exist.")
        })?;
    if target.fifo() != fifo {
        return Err(Error::invalid_parameter(
            &text,
            "RedrivePolicy",
            "Dead-letter queue must be same type of queue as the source.",
        ));
    }
    Ok(())
}
