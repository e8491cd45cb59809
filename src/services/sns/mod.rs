//! SNS: topics and subscriptions per account and region; Publish fans out to SQS subscribers
//! in-process. Target of scheduler deliveries, backend of `AWS::SNS::Topic` and
//! `AWS::SNS::Subscription`. Follows the Amazon SNS API Reference (2010-03-31); knows nothing
//! of HTTP.
//!
//! Topics and subscriptions are named by ARN (`arn:aws:sns:<region>:<account>:<topic>`,
//! subscription `<topic arn>:<uuid>`). Only `sqs` subscriptions are delivered to; `http`,
//! `https`, `email` and `email-json` subscriptions wait for a confirmation that never comes,
//! and `lambda`, `sms`, `firehose` and `application` ones are confirmed but not delivered. An
//! SQS subscriber receives the standard JSON notification envelope, or the bare message with
//! `RawMessageDelivery=true`; a subscription's `FilterPolicy` is applied; a delivery that fails
//! (missing queue) goes to the subscription's RedrivePolicy dead-letter queue if it has one.
//! The SQS calls happen after the SNS lock is released.

mod error;
pub mod filter;
pub mod model;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use base64::Engine;
use chrono::{DateTime, Duration, Utc};
use indexmap::IndexMap;
use sha2::{Digest, Sha256};

pub use error::Error;
pub use model::{PublishAttribute, PublishInput, Published, Subscription, Topic};

use crate::clock::Clock;
use crate::ids::{IdGen, Scope};
use crate::services::sqs::{self, MessageAttributeValue, OutgoingMessage, Sqs};
use crate::storage::Storage;
use crate::sync::lock;
use model::{
    check_arn, check_attributes, check_subscription_attribute, check_topic_attribute,
    check_topic_name, default_policy, protocol_needs_confirmation, Envelope,
    EFFECTIVE_DELIVERY_POLICY, MAX_MESSAGE_BYTES, MAX_TAGS, PAGE_SIZE,
};

/// Store table of topics, keyed by ARN.
pub const TOPICS_TABLE: &str = "sns_topics";
/// Store table of subscriptions, keyed by ARN.
pub const SUBSCRIPTIONS_TABLE: &str = "sns_subscriptions";

/// Subscribe input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscribeInput {
    /// The topic.
    pub topic_arn: String,
    /// `sqs`, `http`, `https`, `email`, `email-json`, `lambda`, `sms`, `firehose`, `application`.
    pub protocol: String,
    /// The endpoint (a queue ARN for `sqs`).
    pub endpoint: String,
    /// Subscription attributes (RawMessageDelivery, FilterPolicy, RedrivePolicy, ...).
    pub attributes: IndexMap<String, String>,
    /// `ReturnSubscriptionArn`: the ARN even for a subscription pending confirmation.
    pub return_subscription_arn: bool,
}

/// One line of ListSubscriptions / ListSubscriptionsByTopic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionSummary {
    /// The ARN, or `PendingConfirmation`.
    pub subscription_arn: String,
    /// Owner account.
    pub owner: String,
    /// Protocol.
    pub protocol: String,
    /// Endpoint.
    pub endpoint: String,
    /// Topic ARN.
    pub topic_arn: String,
}

/// What Subscribe answers while confirmation is pending (without ReturnSubscriptionArn).
pub const PENDING_CONFIRMATION: &str = "pending confirmation";

#[derive(Default)]
struct State {
    topics: BTreeMap<String, Topic>,
    subscriptions: BTreeMap<String, Subscription>,
    /// FIFO deduplication: (topic arn, dedup id) → (expiry, message id, sequence number).
    dedup: BTreeMap<(String, String), DedupEntry>,
}

/// A FIFO deduplication entry: (expiry, message id, sequence number).
type DedupEntry = (DateTime<Utc>, String, Option<String>);

/// The outcome of each PublishBatch entry, by entry id.
pub type BatchOutcome = Vec<(String, Result<Published, Error>)>;

struct Shared {
    clock: Clock,
    ids: IdGen,
    storage: Storage,
    sqs: Sqs,
    state: Mutex<State>,
}

/// Handle to the SNS core. Clones share one state.
#[derive(Clone)]
pub struct Sns {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Sns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sns").finish_non_exhaustive()
    }
}

/// One delivery decided under the lock and made after it.
struct Delivery {
    subscription_arn: String,
    endpoint: String,
    raw: bool,
    dead_letter_arn: Option<String>,
}

fn topic_parts(arn: &str) -> Option<(String, String, String)> {
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    if parts.len() != 6 || parts[0] != "arn" || parts[2] != "sns" {
        return None;
    }
    Some((
        parts[3].to_string(),
        parts[4].to_string(),
        parts[5].to_string(),
    ))
}

fn page<T: Clone>(
    items: Vec<T>,
    next_token: Option<&str>,
) -> Result<(Vec<T>, Option<String>), Error> {
    let start = match next_token.filter(|t| !t.is_empty()) {
        None => 0,
        Some(t) => t
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= items.len())
            .ok_or_else(|| Error::invalid("NextToken"))?,
    };
    let end = (start + PAGE_SIZE).min(items.len());
    let token = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), token))
}

impl Sns {
    /// An SNS with the topics and subscriptions `storage` holds (none in memory), delivering
    /// to `sqs`.
    pub fn new(clock: Clock, ids: IdGen, storage: Storage, sqs: Sqs) -> Sns {
        let state = State {
            topics: storage.load::<Topic>(TOPICS_TABLE).into_iter().collect(),
            subscriptions: storage
                .load::<Subscription>(SUBSCRIPTIONS_TABLE)
                .into_iter()
                .collect(),
            dedup: BTreeMap::new(),
        };
        Sns {
            shared: Arc::new(Shared {
                clock,
                ids,
                storage,
                sqs,
                state: Mutex::new(state),
            }),
        }
    }

    fn put_topic(&self, topic: &Topic) {
        self.shared.storage.put(TOPICS_TABLE, &topic.arn, topic);
    }

    fn put_subscription(&self, sub: &Subscription) {
        self.shared.storage.put(SUBSCRIPTIONS_TABLE, &sub.arn, sub);
    }

    /// Deletes every topic and subscription.
    pub fn reset(&self) {
        let mut state = lock(&self.shared.state);
        *state = State::default();
    }

    /// CreateTopic in `scope`. Idempotent for the same name, attributes and tags; otherwise
    /// `InvalidParameter` "Invalid parameter: Attributes Reason: Topic already exists with
    /// different attributes" (or `Tags`). `FifoTopic=true` needs a `.fifo` name. Returns the
    /// topic ARN.
    pub fn create_topic(
        &self,
        scope: &Scope,
        name: &str,
        attributes: &IndexMap<String, String>,
        tags: &[(String, String)],
    ) -> Result<String, Error> {
        let fifo = match attributes.get("FifoTopic").map(|v| v.to_ascii_lowercase()) {
            None => false,
            Some(v) if v == "true" => true,
            Some(v) if v == "false" => false,
            Some(v) => {
                return Err(Error::invalid(&format!(
                    "Attributes Reason: FifoTopic: Invalid value [{v}]. Must be true or false."
                )))
            }
        };
        check_topic_name(name, fifo)?;
        if !fifo && name.ends_with(".fifo") {
            return Err(Error::invalid("Topic Name"));
        }
        let mut settable = BTreeMap::new();
        for (k, v) in attributes {
            if k == "FifoTopic" {
                continue;
            }
            check_topic_attribute(fifo, k, v)?;
            settable.insert(k.clone(), v.clone());
        }
        let tag_map = check_tags(tags)?;
        let arn = scope.arn("sns", name);
        let mut state = lock(&self.shared.state);
        if let Some(existing) = state.topics.get(&arn) {
            let differs = settable
                .iter()
                .any(|(k, v)| existing.attributes.get(k) != Some(v))
                || (attributes.contains_key("FifoTopic") && existing.fifo != fifo);
            if differs {
                return Err(Error::invalid(
                    "Attributes Reason: Topic already exists with different attributes",
                ));
            }
            if !tag_map.is_empty() && tag_map != existing.tags {
                return Err(Error::invalid(
                    "Tags Reason: Topic already exists with different tags",
                ));
            }
            return Ok(arn);
        }
        let topic = Topic {
            arn: arn.clone(),
            account: scope.account.clone(),
            region: scope.region.clone(),
            name: name.to_string(),
            fifo,
            attributes: settable,
            tags: tag_map,
            subscriptions: Vec::new(),
            next_sequence: 0,
        };
        self.put_topic(&topic);
        state.topics.insert(arn.clone(), topic);
        Ok(arn)
    }

    /// DeleteTopic: the topic and its subscriptions. Deleting a missing topic succeeds (AWS).
    pub fn delete_topic(&self, topic_arn: &str) -> Result<(), Error> {
        check_arn(topic_arn, "TopicArn")?;
        let mut state = lock(&self.shared.state);
        if let Some(topic) = state.topics.remove(topic_arn) {
            for sub in &topic.subscriptions {
                state.subscriptions.remove(sub);
                self.shared.storage.delete(SUBSCRIPTIONS_TABLE, sub);
            }
            self.shared.storage.delete(TOPICS_TABLE, topic_arn);
        }
        Ok(())
    }

    /// The stored topic (NotFound "Topic does not exist").
    pub fn topic(&self, topic_arn: &str) -> Result<Topic, Error> {
        check_arn(topic_arn, "TopicArn")?;
        lock(&self.shared.state)
            .topics
            .get(topic_arn)
            .cloned()
            .ok_or_else(Error::topic_not_found)
    }

    /// GetTopicAttributes: what AWS shows (TopicArn, Owner, Policy, DisplayName,
    /// Subscriptions{Confirmed,Pending,Deleted}, EffectiveDeliveryPolicy, FIFO attributes,
    /// and every attribute set), sorted by name.
    pub fn get_topic_attributes(&self, topic_arn: &str) -> Result<BTreeMap<String, String>, Error> {
        check_arn(topic_arn, "TopicArn")?;
        let state = lock(&self.shared.state);
        let topic = state
            .topics
            .get(topic_arn)
            .ok_or_else(Error::topic_not_found)?;
        let (mut confirmed, mut pending) = (0, 0);
        for arn in &topic.subscriptions {
            match state.subscriptions.get(arn) {
                Some(s) if s.confirmed => confirmed += 1,
                Some(_) => pending += 1,
                None => {}
            }
        }
        let mut out = BTreeMap::new();
        out.insert("TopicArn".to_string(), topic.arn.clone());
        out.insert("Owner".to_string(), topic.account.clone());
        out.insert(
            "Policy".to_string(),
            default_policy(&topic.arn, &topic.account),
        );
        out.insert("DisplayName".to_string(), String::new());
        out.insert(
            "EffectiveDeliveryPolicy".to_string(),
            EFFECTIVE_DELIVERY_POLICY.to_string(),
        );
        out.insert("SubscriptionsConfirmed".to_string(), confirmed.to_string());
        out.insert("SubscriptionsPending".to_string(), pending.to_string());
        out.insert("SubscriptionsDeleted".to_string(), "0".to_string());
        if topic.fifo {
            out.insert("FifoTopic".to_string(), "true".to_string());
            out.insert("ContentBasedDeduplication".to_string(), "false".to_string());
        }
        for (k, v) in &topic.attributes {
            out.insert(k.clone(), v.clone());
        }
        Ok(out)
    }

    /// SetTopicAttributes (one attribute). Unknown names are `Invalid parameter: AttributeName`.
    pub fn set_topic_attributes(
        &self,
        topic_arn: &str,
        name: &str,
        value: &str,
    ) -> Result<(), Error> {
        check_arn(topic_arn, "TopicArn")?;
        let mut state = lock(&self.shared.state);
        let topic = state
            .topics
            .get_mut(topic_arn)
            .ok_or_else(Error::topic_not_found)?;
        if name == "FifoTopic" {
            return Err(Error::invalid("AttributeName"));
        }
        check_topic_attribute(topic.fifo, name, value)?;
        topic.attributes.insert(name.to_string(), value.to_string());
        self.put_topic(topic);
        Ok(())
    }

    /// Subscribe. Idempotent for the same topic, protocol and endpoint (different attributes:
    /// "Invalid parameter: Attributes Reason: Subscription already exists with different
    /// attributes"). Returns the subscription ARN, or `pending confirmation` for protocols that
    /// need confirmation unless `return_subscription_arn`.
    pub fn subscribe(&self, scope_account: &str, input: SubscribeInput) -> Result<String, Error> {
        check_arn(&input.topic_arn, "TopicArn")?;
        let needs_confirmation = protocol_needs_confirmation(&input.protocol).ok_or_else(|| {
            Error::invalid(&format!(
                "Amazon SNS does not support this protocol string: {}",
                input.protocol
            ))
        })?;
        let endpoint = input.endpoint.as_str();
        let endpoint_error = match input.protocol.as_str() {
            "sqs" if sqs::QueueKey::from_arn(endpoint).is_none() => Some("SQS endpoint ARN"),
            "http" if !endpoint.to_ascii_lowercase().starts_with("http://") => {
                Some("Endpoint must match the specified protocol")
            }
            "https" if !endpoint.to_ascii_lowercase().starts_with("https://") => {
                Some("Endpoint must match the specified protocol")
            }
            "email" | "email-json" if !endpoint.contains('@') => Some("Email address"),
            "lambda" if !endpoint.starts_with("arn:") => Some("Lambda endpoint ARN"),
            _ => None,
        };
        if let Some(what) = endpoint_error {
            return Err(Error::invalid(what));
        }
        let mut attributes = BTreeMap::new();
        for (k, v) in &input.attributes {
            check_subscription_attribute("Attributes Reason: ", k, v)?;
            attributes.insert(k.clone(), v.clone());
        }
        let now = self.shared.clock.now();
        let mut state = lock(&self.shared.state);
        let topic = state
            .topics
            .get(&input.topic_arn)
            .ok_or_else(Error::topic_not_found)?;
        if input.protocol == "sqs" && input.endpoint.ends_with(".fifo") && !topic.fifo {
            return Err(Error::invalid(
                "Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics",
            ));
        }
        let existing = topic.subscriptions.iter().find_map(|arn| {
            state
                .subscriptions
                .get(arn)
                .filter(|s| s.protocol == input.protocol && s.endpoint == input.endpoint)
        });
        if let Some(sub) = existing {
            let differs = attributes
                .iter()
                .any(|(k, v)| sub.attributes.get(k) != Some(v));
            if differs {
                return Err(Error::invalid(
                    "Attributes Reason: Subscription already exists with different attributes",
                ));
            }
            return Ok(if sub.confirmed || input.return_subscription_arn {
                sub.arn.clone()
            } else {
                PENDING_CONFIRMATION.to_string()
            });
        }
        let sub = Subscription {
            arn: format!("{}:{}", input.topic_arn, self.shared.ids.uuid()),
            topic_arn: input.topic_arn.clone(),
            owner: scope_account.to_string(),
            protocol: input.protocol,
            endpoint: input.endpoint,
            attributes,
            confirmed: !needs_confirmation,
            token: needs_confirmation.then(|| self.shared.ids.hex(64)),
            created: now,
        };
        let answer = if sub.confirmed || input.return_subscription_arn {
            sub.arn.clone()
        } else {
            PENDING_CONFIRMATION.to_string()
        };
        self.put_subscription(&sub);
        if let Some(topic) = state.topics.get_mut(&input.topic_arn) {
            topic.subscriptions.push(sub.arn.clone());
            self.put_topic(topic);
        }
        state.subscriptions.insert(sub.arn.clone(), sub);
        Ok(answer)
    }

    /// ConfirmSubscription with the token of a pending subscription ("Invalid token"
    /// otherwise). Returns the subscription ARN.
    pub fn confirm_subscription(&self, topic_arn: &str, token: &str) -> Result<String, Error> {
        check_arn(topic_arn, "TopicArn")?;
        let mut state = lock(&self.shared.state);
        let topic = state
            .topics
            .get(topic_arn)
            .ok_or_else(Error::topic_not_found)?;
        let arn = topic
            .subscriptions
            .iter()
            .find(|a| {
                state
                    .subscriptions
                    .get(*a)
                    .is_some_and(|s| s.token.as_deref() == Some(token))
            })
            .cloned()
            .ok_or_else(|| Error::InvalidParameter("Invalid token".to_string()))?;
        if let Some(sub) = state.subscriptions.get_mut(&arn) {
            sub.confirmed = true;
            self.put_subscription(sub);
        }
        Ok(arn)
    }

    /// Unsubscribe. A well-formed ARN of a missing subscription succeeds.
    pub fn unsubscribe(&self, subscription_arn: &str) -> Result<(), Error> {
        if subscription_arn.is_empty() {
            return Err(Error::invalid(
                "SubscriptionArn Reason: no value for required parameter",
            ));
        }
        let n = subscription_arn.split(':').count();
        if n < 6 {
            return Err(Error::invalid(&format!(
                "SubscriptionArn Reason: An ARN must have at least 6 elements, not {n}"
            )));
        }
        if n < 7 {
            return Err(Error::invalid("SubscriptionId"));
        }
        let mut state = lock(&self.shared.state);
        if let Some(sub) = state.subscriptions.remove(subscription_arn) {
            self.shared
                .storage
                .delete(SUBSCRIPTIONS_TABLE, subscription_arn);
            if let Some(topic) = state.topics.get_mut(&sub.topic_arn) {
                topic.subscriptions.retain(|a| a != subscription_arn);
                self.put_topic(topic);
            }
        }
        Ok(())
    }

    /// GetSubscriptionAttributes (NotFound "Subscription does not exist").
    pub fn get_subscription_attributes(
        &self,
        subscription_arn: &str,
    ) -> Result<BTreeMap<String, String>, Error> {
        check_arn(subscription_arn, "SubscriptionArn")?;
        let state = lock(&self.shared.state);
        let sub = state
            .subscriptions
            .get(subscription_arn)
            .ok_or_else(Error::subscription_not_found)?;
        let mut out = BTreeMap::new();
        out.insert("SubscriptionArn".to_string(), sub.arn.clone());
        out.insert("TopicArn".to_string(), sub.topic_arn.clone());
        out.insert("Owner".to_string(), sub.owner.clone());
        out.insert("Protocol".to_string(), sub.protocol.clone());
        out.insert("Endpoint".to_string(), sub.endpoint.clone());
        out.insert(
            "ConfirmationWasAuthenticated".to_string(),
            sub.confirmed.to_string(),
        );
        out.insert(
            "PendingConfirmation".to_string(),
            (!sub.confirmed).to_string(),
        );
        out.insert("RawMessageDelivery".to_string(), sub.raw().to_string());
        if sub.attributes.contains_key("FilterPolicy")
            && !sub.attributes.contains_key("FilterPolicyScope")
        {
            out.insert(
                "FilterPolicyScope".to_string(),
                "MessageAttributes".to_string(),
            );
        }
        if matches!(sub.protocol.as_str(), "http" | "https") {
            out.insert(
                "EffectiveDeliveryPolicy".to_string(),
                EFFECTIVE_DELIVERY_POLICY.to_string(),
            );
        }
        for (k, v) in &sub.attributes {
            if k == "RawMessageDelivery" {
                out.insert(k.clone(), v.to_ascii_lowercase());
            } else {
                out.insert(k.clone(), v.clone());
            }
        }
        Ok(out)
    }

    /// SetSubscriptionAttributes (one attribute; an empty FilterPolicy removes the filter).
    pub fn set_subscription_attributes(
        &self,
        subscription_arn: &str,
        name: &str,
        value: &str,
    ) -> Result<(), Error> {
        check_arn(subscription_arn, "SubscriptionArn")?;
        check_subscription_attribute("", name, value)?;
        let mut state = lock(&self.shared.state);
        let sub = state
            .subscriptions
            .get_mut(subscription_arn)
            .ok_or_else(Error::subscription_not_found)?;
        if value.is_empty() && matches!(name, "FilterPolicy" | "RedrivePolicy") {
            sub.attributes.remove(name);
        } else {
            sub.attributes.insert(name.to_string(), value.to_string());
        }
        self.put_subscription(sub);
        Ok(())
    }

    /// ListTopics in `scope`, 100 per page.
    pub fn list_topics(
        &self,
        scope: &Scope,
        next_token: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), Error> {
        let arns: Vec<String> = lock(&self.shared.state)
            .topics
            .values()
            .filter(|t| t.account == scope.account && t.region == scope.region)
            .map(|t| t.arn.clone())
            .collect();
        page(arns, next_token)
    }

    fn summary(sub: &Subscription) -> SubscriptionSummary {
        SubscriptionSummary {
            subscription_arn: if sub.confirmed {
                sub.arn.clone()
            } else {
                "PendingConfirmation".to_string()
            },
            owner: sub.owner.clone(),
            protocol: sub.protocol.clone(),
            endpoint: sub.endpoint.clone(),
            topic_arn: sub.topic_arn.clone(),
        }
    }

    /// ListSubscriptions in `scope`, 100 per page.
    pub fn list_subscriptions(
        &self,
        scope: &Scope,
        next_token: Option<&str>,
    ) -> Result<(Vec<SubscriptionSummary>, Option<String>), Error> {
        let prefix = format!("arn:aws:sns:{}:{}:", scope.region, scope.account);
        let subs: Vec<SubscriptionSummary> = lock(&self.shared.state)
            .subscriptions
            .values()
            .filter(|s| s.topic_arn.starts_with(&prefix))
            .map(Self::summary)
            .collect();
        page(subs, next_token)
    }

    /// ListSubscriptionsByTopic, 100 per page (NotFound for a missing topic).
    pub fn list_subscriptions_by_topic(
        &self,
        topic_arn: &str,
        next_token: Option<&str>,
    ) -> Result<(Vec<SubscriptionSummary>, Option<String>), Error> {
        check_arn(topic_arn, "TopicArn")?;
        let state = lock(&self.shared.state);
        let topic = state
            .topics
            .get(topic_arn)
            .ok_or_else(Error::topic_not_found)?;
        let subs: Vec<SubscriptionSummary> = topic
            .subscriptions
            .iter()
            .filter_map(|a| state.subscriptions.get(a))
            .map(Self::summary)
            .collect();
        page(subs, next_token)
    }

    /// TagResource on a topic (ResourceNotFound "Resource does not exist" otherwise).
    pub fn tag_resource(&self, resource_arn: &str, tags: &[(String, String)]) -> Result<(), Error> {
        let tags = check_tags(tags)?;
        let mut state = lock(&self.shared.state);
        let topic = state
            .topics
            .get_mut(resource_arn)
            .ok_or_else(|| Error::ResourceNotFound("Resource does not exist".to_string()))?;
        let mut merged = topic.tags.clone();
        merged.extend(tags);
        if merged.len() > MAX_TAGS {
            return Err(Error::TagLimitExceeded(
                "Could not complete request: tag quota of per resource exceeded".to_string(),
            ));
        }
        topic.tags = merged;
        self.put_topic(topic);
        Ok(())
    }

    /// UntagResource.
    pub fn untag_resource(&self, resource_arn: &str, keys: &[String]) -> Result<(), Error> {
        let mut state = lock(&self.shared.state);
        let topic = state
            .topics
            .get_mut(resource_arn)
            .ok_or_else(|| Error::ResourceNotFound("Resource does not exist".to_string()))?;
        for k in keys {
            topic.tags.remove(k);
        }
        self.put_topic(topic);
        Ok(())
    }

    /// ListTagsForResource, by key.
    pub fn list_tags_for_resource(
        &self,
        resource_arn: &str,
    ) -> Result<Vec<(String, String)>, Error> {
        let state = lock(&self.shared.state);
        let topic = state
            .topics
            .get(resource_arn)
            .ok_or_else(|| Error::ResourceNotFound("Resource does not exist".to_string()))?;
        Ok(topic
            .tags
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    /// Publish to a topic: validates the message as AWS does, then delivers to every confirmed
    /// SQS subscription whose filter policy it passes. A missing topic is
    /// `NotFound` "Topic does not exist" (the dispatcher's failed invocation). Deliveries that
    /// fail do not fail the Publish.
    pub fn publish(&self, topic_arn: &str, input: PublishInput) -> Result<Published, Error> {
        check_arn(topic_arn, "TopicArn")?;
        validate_publish(&input)?;
        let now = self.shared.clock.now();
        let (published, topic_fifo, deliveries, group, dedup) = {
            let mut state = lock(&self.shared.state);
            let topic = state
                .topics
                .get(topic_arn)
                .ok_or_else(Error::topic_not_found)?;
            let fifo = topic.fifo;
            let content_based = topic
                .attributes
                .get("ContentBasedDeduplication")
                .is_some_and(|v| v == "true");
            let dedup_id = if fifo {
                if input.message_group_id.is_none() {
                    return Err(Error::invalid(
                        "The MessageGroupId parameter is required for FIFO topics",
                    ));
                }
                match (&input.message_deduplication_id, content_based) {
                    (Some(d), _) => Some(d.clone()),
                    (None, true) => Some(hex::encode(Sha256::digest(input.message.as_bytes()))),
                    (None, false) => {
                        return Err(Error::invalid(
                            "The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
                        ))
                    }
                }
            } else {
                if input.message_deduplication_id.is_some() {
                    return Err(Error::invalid(
                        "MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type",
                    ));
                }
                if input.message_group_id.is_some() {
                    return Err(Error::invalid(
                        "MessageGroupId Reason: The request includes MessageGroupId parameter that is not valid for this topic type",
                    ));
                }
                None
            };
            state.dedup.retain(|_, (expires, _, _)| *expires > now);
            if let Some(d) = &dedup_id {
                if let Some((_, id, seq)) = state.dedup.get(&(topic_arn.to_string(), d.clone())) {
                    return Ok(Published {
                        message_id: id.clone(),
                        sequence_number: seq.clone(),
                    });
                }
            }
            let message_id = self.shared.ids.uuid();
            let topic = state
                .topics
                .get_mut(topic_arn)
                .ok_or_else(Error::topic_not_found)?;
            let sequence_number = fifo.then(|| {
                topic.next_sequence += 1;
                (10_000_000_000_000_000_000u128 + u128::from(topic.next_sequence)).to_string()
            });
            if fifo {
                self.put_topic(topic);
            }
            let sub_arns = topic.subscriptions.clone();
            if let Some(d) = &dedup_id {
                state.dedup.insert(
                    (topic_arn.to_string(), d.clone()),
                    (
                        now + Duration::minutes(5),
                        message_id.clone(),
                        sequence_number.clone(),
                    ),
                );
            }
            let deliveries: Vec<Delivery> = sub_arns
                .iter()
                .filter_map(|a| state.subscriptions.get(a))
                .filter(|s| s.confirmed && s.protocol == "sqs")
                .filter(|s| passes_filter(s, &input))
                .map(|s| Delivery {
                    subscription_arn: s.arn.clone(),
                    endpoint: s.endpoint.clone(),
                    raw: s.raw(),
                    dead_letter_arn: s.attributes.get("RedrivePolicy").and_then(|p| {
                        serde_json::from_str::<serde_json::Value>(p)
                            .ok()?
                            .get("deadLetterTargetArn")?
                            .as_str()
                            .map(str::to_string)
                    }),
                })
                .collect();
            (
                Published {
                    message_id,
                    sequence_number,
                },
                fifo,
                deliveries,
                input.message_group_id.clone(),
                dedup_id,
            )
        };
        let message = message_for_protocol(&input, "sqs");
        let region = topic_parts(topic_arn)
            .map(|(r, _, _)| r)
            .unwrap_or_default();
        let cert = format!(
            "https://sns.{region}.amazonaws.com/SimpleNotificationService-6209c161c6221fdf56ec1eb5c821d112.pem"
        );
        for d in deliveries {
            let outgoing = if d.raw {
                raw_message(&message, &input.message_attributes)
            } else {
                let signature = base64::engine::general_purpose::STANDARD
                    .encode(self.shared.ids.hex(64).as_bytes());
                let unsubscribe_url = format!(
                    "{}/?Action=Unsubscribe&SubscriptionArn={}",
                    self.shared.sqs.endpoint_url(),
                    d.subscription_arn
                );
                let envelope = Envelope {
                    message_id: &published.message_id,
                    sequence_number: published.sequence_number.as_deref(),
                    topic_arn,
                    subject: input.subject.as_deref(),
                    message: &message,
                    timestamp: now,
                    signature: &signature,
                    signing_cert_url: &cert,
                    unsubscribe_url: &unsubscribe_url,
                    attributes: &input.message_attributes,
                };
                OutgoingMessage::new(envelope.to_json())
            };
            let mut outgoing = outgoing;
            if topic_fifo && d.endpoint.ends_with(".fifo") {
                outgoing.message_group_id = group.clone();
                outgoing.message_deduplication_id = dedup.clone();
            }
            self.deliver(&d, outgoing);
        }
        Ok(published)
    }

    /// Sends one notification to its queue; on failure, to the subscription's dead-letter
    /// queue if it has one (else it is dropped, logged at debug).
    fn deliver(&self, d: &Delivery, message: OutgoingMessage) {
        let sqs = &self.shared.sqs;
        match sqs.send_message(&d.endpoint, message.clone()) {
            Ok(_) => {}
            Err(err) => {
                tracing::debug!(subscription = %d.subscription_arn, %err, "SNS delivery to SQS failed");
                if let Some(dlq) = &d.dead_letter_arn {
                    let mut m = message;
                    if !dlq.ends_with(".fifo") {
                        m.message_group_id = None;
                        m.message_deduplication_id = None;
                    }
                    if let Err(err) = sqs.send_message(dlq, m) {
                        tracing::debug!(subscription = %d.subscription_arn, %err, "SNS dead-letter delivery failed");
                    }
                }
            }
        }
    }

    /// PublishBatch: 1–10 entries (ids `[A-Za-z0-9_-]{1,80}`, distinct, at most 256 KiB
    /// together); each entry is published on its own.
    pub fn publish_batch(
        &self,
        topic_arn: &str,
        entries: Vec<(String, PublishInput)>,
    ) -> Result<BatchOutcome, Error> {
        check_arn(topic_arn, "TopicArn")?;
        if entries.is_empty() {
            return Err(Error::EmptyBatchRequest(
                "The batch request doesn't contain any entries.".to_string(),
            ));
        }
        if entries.len() > 10 {
            return Err(Error::TooManyEntriesInBatchRequest(
                "The batch request contains more entries than permissible.".to_string(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (id, _) in &entries {
            if id.len() > 80 {
                return Err(Error::InvalidBatchEntryId(format!(
                    "The Id of a batch entry in the batch request is too long: {id}"
                )));
            }
            if id.is_empty()
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(Error::InvalidBatchEntryId(format!(
                    "The Id of a batch entry in the batch request contains an impermissible character: {id}"
                )));
            }
            if !seen.insert(id.clone()) {
                return Err(Error::BatchEntryIdsNotDistinct(
                    "Two or more batch entries in the request have the same Id.".to_string(),
                ));
            }
        }
        let total: usize = entries.iter().map(|(_, e)| e.message.len()).sum();
        if total > MAX_MESSAGE_BYTES {
            return Err(Error::BatchRequestTooLong(
                "The length of all the messages put together is more than the limit.".to_string(),
            ));
        }
        let topic = self.topic(topic_arn)?;
        if topic.fifo {
            if entries.iter().any(|(_, e)| e.message_group_id.is_none()) {
                return Err(Error::invalid(
                    "The MessageGroupId parameter is required for FIFO topics",
                ));
            }
            let content_based = topic
                .attributes
                .get("ContentBasedDeduplication")
                .is_some_and(|v| v == "true");
            if !content_based
                && entries
                    .iter()
                    .any(|(_, e)| e.message_deduplication_id.is_none())
            {
                return Err(Error::invalid(
                    "The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
                ));
            }
        }
        Ok(entries
            .into_iter()
            .map(|(id, e)| {
                let res = self.publish(topic_arn, e);
                (id, res)
            })
            .collect())
    }
}

fn check_tags(tags: &[(String, String)]) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    for (k, v) in tags {
        if out.insert(k.clone(), v.clone()).is_some() {
            return Err(Error::invalid("Duplicated keys are not allowed."));
        }
        if k.is_empty() || k.chars().count() > 128 || v.chars().count() > 256 {
            return Err(Error::invalid("Tags"));
        }
    }
    if out.len() > MAX_TAGS {
        return Err(Error::TagLimitExceeded(
            "Could not complete request: tag quota of per resource exceeded".to_string(),
        ));
    }
    Ok(out)
}

fn validate_publish(input: &PublishInput) -> Result<(), Error> {
    if input.message.is_empty() {
        return Err(Error::invalid("Empty message"));
    }
    if let Some(s) = &input.subject {
        let printable = s.chars().all(|c| !c.is_control());
        if s.is_empty() || s.chars().count() > 100 || !printable {
            return Err(Error::invalid("Subject"));
        }
    }
    let attr_size = check_attributes(&input.message_attributes)?;
    if input.message.len() + attr_size > MAX_MESSAGE_BYTES {
        return Err(Error::invalid("Message too long"));
    }
    if input.message_structure.as_deref() == Some("json") {
        let doc: serde_json::Value = serde_json::from_str(&input.message)
            .map_err(|_| Error::invalid("Message Structure - JSON message body failed to parse"))?;
        if doc.get("default").is_none() {
            return Err(Error::invalid(
                "Message Structure - No default entry in JSON message body",
            ));
        }
    }
    for (field, value) in [
        ("MessageGroupId", &input.message_group_id),
        ("MessageDeduplicationId", &input.message_deduplication_id),
    ] {
        if let Some(v) = value {
            let ok = (1..=128).contains(&v.len())
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_punctuation());
            if !ok {
                return Err(Error::invalid(&format!(
                    "{field} Reason: {field} can only include alphanumeric and punctuation characters. 1 to 128 in length."
                )));
            }
        }
    }
    Ok(())
}

/// The text a subscriber of `protocol` gets: with `MessageStructure=json`, the protocol's entry
/// (else `default`); otherwise the message itself.
fn message_for_protocol(input: &PublishInput, protocol: &str) -> String {
    if input.message_structure.as_deref() != Some("json") {
        return input.message.clone();
    }
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&input.message) else {
        return input.message.clone();
    };
    let entry = doc.get(protocol).or_else(|| doc.get("default"));
    match entry {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => input.message.clone(),
    }
}

/// Raw delivery: the bare message, with the message attributes as SQS message attributes
/// (String.Array travels as String; at most SQS's 10).
fn raw_message(message: &str, attributes: &[(String, PublishAttribute)]) -> OutgoingMessage {
    let mut m = OutgoingMessage::new(message);
    for (name, a) in attributes.iter().take(10) {
        let data_type = if a.data_type.starts_with("String.Array") {
            "String".to_string()
        } else {
            a.data_type.clone()
        };
        m.message_attributes.insert(
            name.clone(),
            MessageAttributeValue {
                data_type,
                string_value: a.string_value.clone(),
                binary_value: a.binary_value.clone(),
            },
        );
    }
    m
}

fn passes_filter(sub: &Subscription, input: &PublishInput) -> bool {
    let Some(policy) = sub.attributes.get("FilterPolicy") else {
        return true;
    };
    let Ok(policy) = serde_json::from_str::<serde_json::Value>(policy) else {
        return true;
    };
    let scope = match sub.attributes.get("FilterPolicyScope").map(String::as_str) {
        Some("MessageBody") => filter::Scope::MessageBody,
        _ => filter::Scope::MessageAttributes,
    };
    filter::matches(&policy, scope, &input.message_attributes, &input.message)
}
