//! What a schedule's target receives, and delivering it (EventBridge Scheduler user guide,
//! "Templated targets", "Universal targets", "Context attributes"; `../shared/spec/000_*.txt`
//! "Schedule Invocation").
//!
//! [`materialise`] turns one attempt of one occurrence into the request the target service's
//! API would receive (the same JSON a dead-letter message carries as its body);
//! [`Targets::deliver`] sends it. SQS and SNS really deliver, in-process; Lambda, Step
//! Functions, EventBridge PutEvents, ECS RunTask, Kinesis and SageMaker pipelines are recorded
//! as delivered with their request; universal targets deliver `sqs:sendMessage` and
//! `sns:publish` and fail for any other action.

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::model::Schedule;
use crate::ids::Endpoint;
use crate::ids::Scope;
use crate::services::sns::{PublishInput, Sns};
use crate::services::sqs::{self, OutgoingMessage, QueueKey, Sqs};
use crate::storage::StoredOp;

/// Why an attempt failed: the code and message shown in the invocation record and in the
/// dead-letter message's `ERROR_CODE` / `ERROR_MESSAGE` attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvocationError {
    /// Error code (the target service's, where it has one).
    pub code: String,
    /// Error message.
    pub message: String,
}

impl InvocationError {
    fn new(code: &str, message: impl Into<String>) -> InvocationError {
        InvocationError {
            code: code.to_string(),
            message: message.into(),
        }
    }
}

/// What the attempt sends, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    /// The materialised request (the target API's request fields).
    pub request: Value,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Sqs {
        queue_arn: String,
        body: String,
        message_group_id: Option<String>,
    },
    Sns {
        topic_arn: String,
        message: String,
        message_group_id: Option<String>,
    },
    Recorded,
}

/// One attempt's context: which occurrence, which try.
#[derive(Clone, Copy, Debug)]
pub struct AttemptContext<'a> {
    /// Where the schedule lives.
    pub scope: &'a Scope,
    /// The schedule's ARN.
    pub schedule_arn: &'a str,
    /// The occurrence's scheduled instant.
    pub scheduled_time: DateTime<Utc>,
    /// This attempt's 16-hex execution id.
    pub execution_id: &'a str,
    /// 1-based attempt number.
    pub attempt: u32,
}

/// `2026-04-21T09:17:54Z`: the form of `<aws.scheduler.scheduled-time>` (UTC, to the second).
pub fn scheduled_time_text(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The id of the default event of one occurrence: a UUID derived from the schedule ARN and
/// the scheduled time, so retries and the dead-letter body carry the same event.
pub fn event_id(schedule_arn: &str, scheduled_time: DateTime<Utc>) -> String {
    let digest = Sha256::digest(
        format!("{schedule_arn}#{}", crate::time::rfc3339(scheduled_time)).as_bytes(),
    );
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// The payload: `Input` with the four context attributes replaced, or, without `Input`, the
/// default "Scheduled Event" (detail the string `"{}"`).
pub fn payload(schedule: &Schedule, ctx: &AttemptContext<'_>) -> String {
    match &schedule.target.input {
        Some(input) => input
            .replace("<aws.scheduler.schedule-arn>", ctx.schedule_arn)
            .replace(
                "<aws.scheduler.scheduled-time>",
                &scheduled_time_text(ctx.scheduled_time),
            )
            .replace("<aws.scheduler.execution-id>", ctx.execution_id)
            .replace("<aws.scheduler.attempt-number>", &ctx.attempt.to_string()),
        None => json!({
            "version": "0",
            "id": event_id(ctx.schedule_arn, ctx.scheduled_time),
            "detail-type": "Scheduled Event",
            "source": "aws.scheduler",
            "account": ctx.scope.account,
            "time": scheduled_time_text(ctx.scheduled_time),
            "region": ctx.scope.region,
            "resources": [ctx.schedule_arn],
            "detail": "{}",
        })
        .to_string(),
    }
}

/// `arn:<partition>:<service>:<region>:<account>:<resource>` split into its parts.
fn arn_parts(arn: &str) -> Option<(&str, &str, &str, &str)> {
    let mut parts = arn.splitn(6, ':');
    let (_arn, _partition, service, region, account, resource) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    Some((service, region, account, resource))
}

fn queue_url(endpoint: &Endpoint, key: &QueueKey) -> String {
    format!("{}/{}/{}", endpoint.url(), key.account, key.name)
}

/// Builds the request one attempt sends. Errors are invocation failures (a universal target
/// whose Input is not the JSON its action needs, an action Cumulo does not deliver).
pub fn materialise(
    schedule: &Schedule,
    ctx: &AttemptContext<'_>,
    endpoint: &Endpoint,
    sqs: &Sqs,
) -> Result<Delivery, InvocationError> {
    let target = &schedule.target;
    let payload = payload(schedule, ctx);
    let arn = target.arn.as_str();
    if let Some(action) = arn.strip_prefix("arn:aws:scheduler:::aws-sdk:") {
        return universal(action, &payload, ctx, sqs);
    }
    let Some((service, _region, _account, resource)) = arn_parts(arn) else {
        return Err(InvocationError::new(
            "ValidationException",
            format!("Target ARN {arn} is not a valid ARN."),
        ));
    };
    let group = target
        .sqs_parameters
        .as_ref()
        .and_then(|p| p.message_group_id.clone());
    let recorded = |request: Value| {
        Ok(Delivery {
            request,
            kind: Kind::Recorded,
        })
    };
    match service {
        "sqs" => {
            let key = QueueKey::from_arn(arn).ok_or_else(|| {
                InvocationError::new(
                    "ValidationException",
                    format!("Target ARN {arn} is not a queue ARN."),
                )
            })?;
            let mut request = Map::new();
            request.insert("MessageBody".into(), json!(payload));
            request.insert("QueueUrl".into(), json!(queue_url(endpoint, &key)));
            if let Some(g) = &group {
                request.insert("MessageGroupId".into(), json!(g));
            }
            Ok(Delivery {
                request: Value::Object(request),
                kind: Kind::Sqs {
                    queue_arn: arn.to_string(),
                    body: payload,
                    message_group_id: group,
                },
            })
        }
        "sns" => Ok(Delivery {
            request: json!({ "TopicArn": arn, "Message": payload }),
            kind: Kind::Sns {
                topic_arn: arn.to_string(),
                message: payload,
                message_group_id: group,
            },
        }),
        "lambda" => {
            recorded(json!({ "FunctionName": arn, "InvocationType": "Event", "Payload": payload }))
        }
        "states" => recorded(json!({ "stateMachineArn": arn, "input": payload })),
        "events" => {
            let bus = resource.strip_prefix("event-bus/").unwrap_or(resource);
            let (detail_type, source) = target
                .event_bridge_parameters
                .as_ref()
                .map(|p| (p.detail_type.clone(), p.source.clone()))
                .unwrap_or_else(|| ("Scheduled Event".into(), "aws.scheduler".into()));
            recorded(json!({ "Entries": [{
                "EventBusName": bus,
                "Source": source,
                "DetailType": detail_type,
                "Detail": payload,
                "Resources": [ctx.schedule_arn],
            }]}))
        }
        "ecs" => {
            let mut request = Map::new();
            request.insert("cluster".into(), json!(arn));
            if let Some(ecs) = &target.ecs_parameters {
                let ecs = serde_json::to_value(ecs.as_ref()).unwrap_or(Value::Null);
                if let Value::Object(fields) = ecs {
                    for (k, v) in fields {
                        if v.is_null() {
                            continue;
                        }
                        let name = match k.as_str() {
                            "task_definition_arn" => "taskDefinition".to_string(),
                            "task_count" => "count".to_string(),
                            other => lower_camel(other),
                        };
                        request.insert(name, v);
                    }
                }
            }
            request.entry("count").or_insert(json!(1));
            request.insert("startedBy".into(), json!("cumulo-scheduler"));
            recorded(Value::Object(request))
        }
        "kinesis" => recorded(json!({
            "StreamARN": arn,
            "Data": payload,
            "PartitionKey": target.kinesis_parameters.as_ref().map(|p| p.partition_key.clone()).unwrap_or_default(),
        })),
        "sagemaker" => recorded(json!({
            "PipelineArn": arn,
            "PipelineParameters": target.sage_maker_pipeline_parameters.as_ref()
                .map(|p| serde_json::to_value(p.as_ref()).unwrap_or(Value::Null)),
        })),
        other => Err(InvocationError::new(
            "ValidationException",
            format!("Cumulo cannot invoke targets of service '{other}' ({arn})."),
        )),
    }
}

/// `task_definition_arn` → `taskDefinitionArn`.
fn lower_camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn universal(
    action: &str,
    payload: &str,
    ctx: &AttemptContext<'_>,
    sqs: &Sqs,
) -> Result<Delivery, InvocationError> {
    let parsed: Result<Value, _> = serde_json::from_str(payload);
    let (service, operation) = action.split_once(':').unwrap_or((action, ""));
    let request = match &parsed {
        Ok(v) => v.clone(),
        Err(_) => Value::String(payload.to_string()),
    };
    let invalid = |why: &str| {
        InvocationError::new(
            "ValidationException",
            format!("The Input of the universal target {service}:{operation} {why}."),
        )
    };
    let field = |name: &str| {
        request
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match (service, operation) {
        ("sqs", "sendMessage") => {
            if parsed.is_err() {
                return Err(invalid("is not valid JSON"));
            }
            let url = field("QueueUrl").ok_or_else(|| invalid("has no QueueUrl"))?;
            let body = field("MessageBody").ok_or_else(|| invalid("has no MessageBody"))?;
            let queue_arn = sqs.resolve_url(ctx.scope, &url).map_err(sqs_error)?;
            Ok(Delivery {
                kind: Kind::Sqs { queue_arn, body, message_group_id: field("MessageGroupId") },
                request,
            })
        }
        ("sns", "publish") => {
            if parsed.is_err() {
                return Err(invalid("is not valid JSON"));
            }
            let topic_arn = field("TopicArn").ok_or_else(|| invalid("has no TopicArn"))?;
            let message = field("Message").ok_or_else(|| invalid("has no Message"))?;
            Ok(Delivery {
                kind: Kind::Sns { topic_arn, message, message_group_id: field("MessageGroupId") },
                request,
            })
        }
        _ => Err(InvocationError::new(
            "ValidationException",
            format!("Cumulo does not deliver the universal target action {service}:{operation}; only sqs:sendMessage and sns:publish."),
        )),
    }
}

/// Publishes `message` to an SNS topic (its subscribers, SQS queues among them, receive it).
fn publish(
    sns: &Sns,
    topic_arn: &str,
    message: &str,
    group: Option<&str>,
) -> Result<(), InvocationError> {
    let mut input = PublishInput::new(message);
    input.message_group_id = group.map(str::to_string);
    sns.publish(topic_arn, input)
        .map(|_| ())
        .map_err(|e| InvocationError::new(e.code(), e.to_string()))
}

fn sqs_error(err: sqs::Error) -> InvocationError {
    let code = match err {
        sqs::Error::QueueDoesNotExist => "AWS.SimpleQueueService.NonExistentQueue",
        sqs::Error::MissingParameter(_) => "MissingParameter",
        sqs::Error::InvalidParameterValue(_) => "InvalidParameterValue",
        sqs::Error::InvalidMessageContents(_) => "InvalidMessageContents",
        _ => "InvalidParameterValue",
    };
    InvocationError::new(code, err.to_string())
}

/// The services a delivery reaches.
#[derive(Clone, Debug)]
pub struct Targets {
    /// SQS.
    pub sqs: Sqs,
    /// SNS.
    pub sns: Sns,
    /// Where queue URLs point.
    pub endpoint: Endpoint,
}

impl Targets {
    /// Sends `delivery`; `Ok` means the target accepted it. `rider` (the dispatcher's
    /// bookkeeping for a delivered attempt) is committed in the same store transaction as the
    /// delivered SQS message; for other targets, and when nothing was delivered, it is handed
    /// back for the caller to write (after the effect, so a crash in between can duplicate a
    /// delivery: see [`delivery_is_atomic`]).
    pub fn deliver(
        &self,
        delivery: &Delivery,
        rider: Vec<StoredOp>,
    ) -> (Result<(), InvocationError>, Option<Vec<StoredOp>>) {
        match &delivery.kind {
            Kind::Recorded => (Ok(()), Some(rider)),
            Kind::Sqs {
                queue_arn,
                body,
                message_group_id,
            } => {
                let message = OutgoingMessage {
                    body: body.clone(),
                    message_group_id: message_group_id.clone(),
                    ..OutgoingMessage::default()
                };
                let (sent, unused) = self.sqs.send_message_riding(queue_arn, message, rider);
                (sent.map(|_| ()).map_err(sqs_error), unused)
            }
            Kind::Sns {
                topic_arn,
                message,
                message_group_id,
            } => (
                publish(&self.sns, topic_arn, message, message_group_id.as_deref()),
                Some(rider),
            ),
        }
    }

    /// Sends the dead-letter message of an exhausted occurrence to a standard SQS queue, with
    /// `rider` committed together with it. FIFO queues and non-SQS ARNs are logged and
    /// skipped (`Ok(false)`); the rider comes back unless it was written.
    pub fn dead_letter(
        &self,
        dlq_arn: &str,
        body: String,
        attributes: Vec<(&'static str, String)>,
        rider: Vec<StoredOp>,
    ) -> (Result<bool, InvocationError>, Option<Vec<StoredOp>>) {
        if QueueKey::from_arn(dlq_arn).is_none() {
            tracing::warn!(
                dlq_arn,
                "the dead-letter target is not an SQS queue; skipped"
            );
            return (Ok(false), Some(rider));
        }
        if self.sqs.is_fifo(dlq_arn).unwrap_or(false) {
            tracing::warn!(dlq_arn, "the dead-letter queue is a FIFO queue; skipped");
            return (Ok(false), Some(rider));
        }
        let mut message = OutgoingMessage::new(body);
        for (name, value) in attributes {
            message = message.with_string_attribute(name, value);
        }
        let (sent, unused) = self.sqs.send_message_riding(dlq_arn, message, rider);
        (sent.map(|_| true).map_err(sqs_error), unused)
    }
}

/// True when a delivery to `target_arn` and the dispatcher's record of it are committed in
/// one store transaction (SQS queues, universal `sqs:sendMessage`, and the targets Cumulo only
/// records), so a restart can always tell whether it happened. SNS publishes fan out to
/// subscribers first: a crash right after one can repeat it (`possible_duplicate`).
pub fn delivery_is_atomic(target_arn: &str) -> bool {
    !(target_arn.starts_with("arn:aws:sns:")
        || target_arn == "arn:aws:scheduler:::aws-sdk:sns:publish")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn event_ids_are_stable_per_occurrence() {
        let t = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
        let a = event_id(
            "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s",
            t,
        );
        assert_eq!(
            a,
            event_id(
                "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s",
                t
            )
        );
        assert_ne!(
            a,
            event_id(
                "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s",
                t + chrono::Duration::minutes(1)
            )
        );
        assert_eq!(a.len(), 36);
    }

    #[test]
    fn snake_to_lower_camel() {
        assert_eq!(lower_camel("task_definition_arn"), "taskDefinitionArn");
        assert_eq!(lower_camel("launch_type"), "launchType");
    }
}
