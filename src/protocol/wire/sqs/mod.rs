//! SQS on the wire in both protocols AWS serves it in: awsJson 1.0 (`X-Amz-Target:
//! AmazonSQS.<Operation>`, botocore `sqs/2012-11-05` since 1.31.81 and the current SDKs) and the
//! older awsQuery (`Action=<Operation>` forms, XML answers: older botocore, the Java SDK v1;
//! decoded and encoded in `query.rs`). One `Operation` enum, one input per operation (decoded
//! from either protocol), one core call, and one `Output` encoded in the request's protocol.
//!
//! JSON errors carry the modeled shape in `__type` (`com.amazonaws.sqs#QueueDoesNotExist`) and
//! the awsQuery-compatible code in `x-amzn-query-error` (`AWS.SimpleQueueService.NonExistentQueue;
//! Sender`), which botocore reports as the error code, as real AWS does; query errors carry that
//! code in `<ErrorResponse>`.

use std::collections::BTreeMap;

use axum::response::Response;
use base64::Engine;

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

mod query;
mod shapes;

use crate::app::App;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::json::{decode, operation as target_operation};
use crate::protocol::query::QueryInput;
use crate::protocol::{ok_response, AwsRequest};
use crate::services::sqs::{
    self, BatchEntry, BatchResult, MessageAttributeValue, MessageAttributes, OutgoingMessage,
    ReceiveMessageInput, ReceivedMessage, SentMessage,
};
use query::FromQuery;
use shapes::*;

/// How SQS errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Json {
    type_prefix: "com.amazonaws.sqs#",
    content_type: "application/x-amz-json-1.0",
};

/// How SQS errors are encoded to a client speaking the query protocol.
pub const QUERY_PROTOCOL: Protocol = query::PROTOCOL;

const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

impl From<sqs::Error> for WireError {
    fn from(err: sqs::Error) -> WireError {
        let (shape, query) = codes(&err);
        WireError::bad_request(shape, err.message()).with_query_error(query)
    }
}

/// The protocol a request speaks: awsJson 1.0 (`X-Amz-Target`), or awsQuery (a form whose
/// `Action` names the operation; `query.rs`).
enum Wire {
    Json,
    Query(QueryInput),
}

/// Routes `X-Amz-Target: AmazonSQS.<Operation>`, or a form's `Action=<Operation>`, to an
/// operation.
fn route(req: &AwsRequest) -> Result<(Wire, Operation), WireError> {
    let name = target_operation(req, "AmazonSQS");
    let (wire, name) = if name.is_empty() {
        let form = req.form();
        match form.action().map(str::to_string) {
            Some(action) => (Wire::Query(form), action),
            None => {
                return Err(WireError::bad_request(
                    "UnknownOperationException",
                    "The request names no operation: send X-Amz-Target: AmazonSQS.<Operation> (awsJson) or Action=<Operation> (awsQuery)",
                ))
            }
        }
    } else {
        (Wire::Json, name)
    };
    match Operation::from_name(&name) {
        Some(op) => Ok((wire, op)),
        None => {
            let err = WireError::bad_request(
                "UnknownOperationException",
                format!("SQS has no operation {name}"),
            );
            Err(match wire {
                Wire::Json => err,
                Wire::Query(_) => {
                    WireError::bad_request("InvalidAction", format!("SQS has no action {name}"))
                }
            })
        }
    }
}

fn unsupported(op: Operation) -> WireError {
    WireError::not_implemented("SQS", op.name(), "UnsupportedOperation")
        .with_query_error("AWS.SimpleQueueService.UnsupportedOperation")
}

/// Handles one SQS request, in the protocol it speaks.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    let rid = &req.request_id;
    let (wire, op) = match route(&req) {
        Ok(routed) => routed,
        Err(err) if is_form(&req) => return query::error(err).into_response(query::PROTOCOL, rid),
        Err(err) => return err.into_response(PROTOCOL, rid),
    };
    let answer = execute(app, &req, &wire, op).await;
    match (wire, answer) {
        (Wire::Json, Ok(out)) => ok_response(CONTENT_TYPE, out.json().to_string(), rid),
        (Wire::Json, Err(err)) => err.into_response(PROTOCOL, rid),
        (Wire::Query(_), Ok(out)) => ok_response("text/xml", out.xml(op, rid), rid),
        (Wire::Query(_), Err(err)) => query::error(err).into_response(query::PROTOCOL, rid),
    }
}

fn is_form(req: &AwsRequest) -> bool {
    req.headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"))
}

/// `op`'s input, decoded from the protocol the request speaks.
fn input<T: DeserializeOwned + FromQuery>(
    req: &AwsRequest,
    wire: &Wire,
    op: Operation,
) -> Result<T, WireError> {
    match wire {
        Wire::Json => decode(req),
        Wire::Query(form) => T::from_query(form, op),
    }
}

fn required<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str, WireError> {
    value
        .as_deref()
        .ok_or_else(|| sqs::Error::missing_parameter(name).into())
}

/// The queue a request names: its `QueueUrl`, or (as older SDKs address queues) the queue URL
/// it was sent to, `/<account>/<name>`.
fn queue_arn(app: &App, req: &AwsRequest, url: &Option<String>) -> Result<String, WireError> {
    let path = req.uri.path();
    let from_path = (path.len() > 1).then(|| format!("{}{path}", app.sqs.endpoint_url()));
    let url = match url {
        Some(url) => url.as_str(),
        None => required(&from_path, "QueueUrl")?,
    };
    Ok(app.sqs.resolve_url(&req.scope, url)?)
}

fn attribute_values(
    wire: Option<BTreeMap<String, WireAttributeValue>>,
) -> Result<MessageAttributes, WireError> {
    let mut out = MessageAttributes::new();
    for (name, v) in wire.unwrap_or_default() {
        let binary_value = match v.binary_value {
            None => None,
            Some(b) => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(b.as_bytes())
                    .map_err(|_| {
                        WireError::from(sqs::Error::InvalidParameterValue(format!(
                            "The message attribute '{name}' has an invalid binary value."
                        )))
                    })?,
            ),
        };
        out.insert(
            name,
            MessageAttributeValue {
                data_type: v.data_type.unwrap_or_default(),
                string_value: v.string_value,
                binary_value,
            },
        );
    }
    Ok(out)
}

fn attributes_json(attributes: &MessageAttributes) -> Value {
    let mut map = Map::new();
    for (name, v) in attributes {
        let mut one = Map::new();
        one.insert("DataType".into(), json!(v.data_type));
        if let Some(s) = &v.string_value {
            one.insert("StringValue".into(), json!(s));
        }
        if let Some(b) = &v.binary_value {
            one.insert(
                "BinaryValue".into(),
                json!(base64::engine::general_purpose::STANDARD.encode(b)),
            );
        }
        map.insert(name.clone(), Value::Object(one));
    }
    Value::Object(map)
}

impl WireMessage {
    fn into_outgoing(self) -> Result<OutgoingMessage, WireError> {
        let system = attribute_values(self.message_system_attributes)?;
        Ok(OutgoingMessage {
            body: self.message_body.unwrap_or_default(),
            message_attributes: attribute_values(self.message_attributes)?,
            delay_seconds: self.delay_seconds,
            message_group_id: self.message_group_id,
            message_deduplication_id: self.message_deduplication_id,
            aws_trace_header: system
                .get("AWSTraceHeader")
                .and_then(|v| v.string_value.clone()),
        })
    }
}

fn sent_json(sent: &SentMessage, id: Option<&str>) -> Value {
    let mut out = Map::new();
    if let Some(id) = id {
        out.insert("Id".into(), json!(id));
    }
    out.insert("MessageId".into(), json!(sent.message_id));
    out.insert("MD5OfMessageBody".into(), json!(sent.md5_of_message_body));
    if let Some(m) = &sent.md5_of_message_attributes {
        out.insert("MD5OfMessageAttributes".into(), json!(m));
    }
    if let Some(m) = &sent.md5_of_message_system_attributes {
        out.insert("MD5OfMessageSystemAttributes".into(), json!(m));
    }
    if let Some(s) = &sent.sequence_number {
        out.insert("SequenceNumber".into(), json!(s));
    }
    Value::Object(out)
}

fn received_json(m: &ReceivedMessage) -> Value {
    let mut out = Map::new();
    out.insert("MessageId".into(), json!(m.message_id));
    out.insert("ReceiptHandle".into(), json!(m.receipt_handle));
    out.insert("MD5OfBody".into(), json!(m.md5_of_body));
    out.insert("Body".into(), json!(m.body));
    if !m.attributes.is_empty() {
        out.insert("Attributes".into(), json!(m.attributes));
    }
    if let Some(md5) = &m.md5_of_message_attributes {
        out.insert("MD5OfMessageAttributes".into(), json!(md5));
        out.insert(
            "MessageAttributes".into(),
            attributes_json(&m.message_attributes),
        );
    }
    Value::Object(out)
}

fn batch_json<T>(results: &BatchResult<T>, ok: impl Fn(&str, &T) -> Value) -> Value {
    let mut successful = Vec::new();
    let mut failed = Vec::new();
    for (id, res) in results {
        match res {
            Ok(v) => successful.push(ok(id, v)),
            Err(err) => {
                let (_, query) = codes(err);
                failed.push(json!({
                    "Id": id,
                    "SenderFault": true,
                    "Code": query,
                    "Message": err.message(),
                }));
            }
        }
    }
    json!({ "Successful": successful, "Failed": failed })
}

fn entry_id(id: Option<String>) -> Result<String, WireError> {
    id.ok_or_else(|| sqs::Error::missing_parameter("Id").into())
}

impl Output {
    /// The awsJson body (absent members omitted, as AWS omits them).
    fn json(&self) -> Value {
        match self {
            Output::Empty => json!({}),
            Output::QueueUrl(url) => json!({ "QueueUrl": url }),
            Output::Attributes(a) if a.is_empty() => json!({}),
            Output::Attributes(a) => json!({ "Attributes": a }),
            Output::Sent(sent) => sent_json(sent, None),
            Output::SentBatch(results) => batch_json(results, |id, sent| sent_json(sent, Some(id))),
            Output::Received(m) if m.is_empty() => json!({}),
            Output::Received(m) => {
                json!({ "Messages": m.iter().map(received_json).collect::<Vec<_>>() })
            }
            Output::Ids(results) => batch_json(results, |id, _| json!({ "Id": id })),
            Output::QueueUrls(urls, token) => {
                let mut out = Map::new();
                if !urls.is_empty() {
                    out.insert("QueueUrls".into(), json!(urls));
                }
                if let Some(t) = token {
                    out.insert("NextToken".into(), json!(t));
                }
                Value::Object(out)
            }
            Output::DeadLetterSourceQueues(urls) => json!({ "queueUrls": urls }),
            Output::Tags(t) if t.is_empty() => json!({}),
            Output::Tags(t) => json!({ "Tags": t }),
        }
    }
}

fn entries<T, U>(
    entries: Option<Vec<T>>,
    f: impl Fn(T) -> Result<BatchEntry<U>, WireError>,
) -> Result<Vec<BatchEntry<U>>, WireError> {
    entries.unwrap_or_default().into_iter().map(f).collect()
}

/// Decodes `op`'s input, makes its one core call, and answers its output.
async fn execute(
    app: &App,
    req: &AwsRequest,
    wire: &Wire,
    op: Operation,
) -> Result<Output, WireError> {
    let out = match op {
        Operation::AddPermission
        | Operation::RemovePermission
        | Operation::StartMessageMoveTask
        | Operation::CancelMessageMoveTask
        | Operation::ListMessageMoveTasks => return Err(unsupported(op)),
        Operation::SendMessage
        | Operation::SendMessageBatch
        | Operation::ReceiveMessage
        | Operation::DeleteMessage
        | Operation::DeleteMessageBatch
        | Operation::ChangeMessageVisibility
        | Operation::ChangeMessageVisibilityBatch => message_operation(app, req, wire, op).await?,
        _ => queue_operation(app, req, wire, op)?,
    };
    if !op.is_read() {
        app.storage.sync().await;
    }
    Ok(out)
}

/// The operations on messages.
async fn message_operation(
    app: &App,
    req: &AwsRequest,
    wire: &Wire,
    op: Operation,
) -> Result<Output, WireError> {
    let sqs = &app.sqs;
    let out = match op {
        Operation::SendMessage => {
            let input: SendMessageInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            if input.message.message_body.is_none() {
                return Err(sqs::Error::missing_parameter("MessageBody").into());
            }
            Output::Sent(sqs.send_message(&arn, input.message.into_outgoing()?)?)
        }
        Operation::SendMessageBatch => {
            let input: SendMessageBatchInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            let batch = entries(input.entries, |mut e| {
                Ok(BatchEntry {
                    id: entry_id(e.id.take())?,
                    value: e.into_outgoing()?,
                })
            })?;
            Output::SentBatch(sqs.send_message_batch(&arn, batch)?)
        }
        Operation::ReceiveMessage => {
            let input: WireReceiveInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            let mut attribute_names = input.attribute_names.unwrap_or_default();
            attribute_names.extend(input.message_system_attribute_names.unwrap_or_default());
            let core = ReceiveMessageInput {
                max_number_of_messages: input.max_number_of_messages,
                visibility_timeout: input.visibility_timeout,
                wait_time_seconds: input.wait_time_seconds,
                attribute_names,
                message_attribute_names: input.message_attribute_names.unwrap_or_default(),
            };
            Output::Received(sqs.receive_message(&arn, core).await?)
        }
        Operation::DeleteMessage => {
            let input: DeleteMessageInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            sqs.delete_message(&arn, required(&input.receipt_handle, "ReceiptHandle")?)?;
            Output::Empty
        }
        Operation::DeleteMessageBatch => {
            let input: HandleBatchInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            let batch = entries(input.entries, |e| {
                Ok(BatchEntry {
                    id: entry_id(e.id)?,
                    value: e.receipt_handle.unwrap_or_default(),
                })
            })?;
            Output::Ids(sqs.delete_message_batch(&arn, batch)?)
        }
        Operation::ChangeMessageVisibility => {
            let input: ChangeVisibilityInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            let handle = required(&input.receipt_handle, "ReceiptHandle")?;
            let timeout = input.visibility_timeout.ok_or_else(|| {
                WireError::from(sqs::Error::missing_parameter("VisibilityTimeout"))
            })?;
            sqs.change_message_visibility(&arn, handle, timeout)?;
            Output::Empty
        }
        Operation::ChangeMessageVisibilityBatch => {
            let input: HandleBatchInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            let batch = entries(input.entries, |e| {
                Ok(BatchEntry {
                    id: entry_id(e.id)?,
                    value: (
                        e.receipt_handle.unwrap_or_default(),
                        e.visibility_timeout.unwrap_or_default(),
                    ),
                })
            })?;
            Output::Ids(sqs.change_message_visibility_batch(&arn, batch)?)
        }
        _ => return Err(unsupported(op)),
    };
    Ok(out)
}

/// The operations on queues, their attributes and tags.
fn queue_operation(
    app: &App,
    req: &AwsRequest,
    wire: &Wire,
    op: Operation,
) -> Result<Output, WireError> {
    let sqs = &app.sqs;
    let out = match op {
        Operation::CreateQueue => {
            let input: CreateQueueInput = input(req, wire, op)?;
            let name = required(&input.queue_name, "QueueName")?;
            let q = sqs.create_queue(
                &req.scope,
                name,
                &input.attributes.unwrap_or_default(),
                &input.tags.unwrap_or_default(),
            )?;
            Output::QueueUrl(q.url)
        }
        Operation::GetQueueUrl => {
            let input: GetQueueUrlInput = input(req, wire, op)?;
            let name = required(&input.queue_name, "QueueName")?;
            let mut scope = req.scope.clone();
            if let Some(owner) = input.queue_owner_aws_account_id {
                scope.account = owner;
            }
            Output::QueueUrl(sqs.get_queue_url(&scope, name)?.url)
        }
        Operation::DeleteQueue => {
            let input: QueueInput = input(req, wire, op)?;
            sqs.delete_queue(&queue_arn(app, req, &input.queue_url)?)?;
            Output::Empty
        }
        Operation::GetQueueAttributes => {
            let input: GetQueueAttributesInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            let names = input.attribute_names.unwrap_or_default();
            Output::Attributes(sqs.get_queue_attributes(&arn, &names)?)
        }
        Operation::SetQueueAttributes => {
            let input: SetQueueAttributesInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            sqs.set_queue_attributes(&arn, &input.attributes.unwrap_or_default())?;
            Output::Empty
        }
        Operation::PurgeQueue => {
            let input: QueueInput = input(req, wire, op)?;
            sqs.purge_queue(&queue_arn(app, req, &input.queue_url)?)?;
            Output::Empty
        }
        Operation::ListQueues => {
            let input: ListQueuesInput = input(req, wire, op)?;
            let (urls, token) = sqs.list_queues(
                &req.scope,
                input.queue_name_prefix.as_deref(),
                input.max_results,
                input.next_token.as_deref(),
            )?;
            Output::QueueUrls(urls, token)
        }
        Operation::ListDeadLetterSourceQueues => {
            let input: QueueInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            Output::DeadLetterSourceQueues(sqs.list_dead_letter_source_queues(&arn)?)
        }
        Operation::TagQueue => {
            let input: TagQueueInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            sqs.tag_queue(&arn, &input.tags.unwrap_or_default())?;
            Output::Empty
        }
        Operation::UntagQueue => {
            let input: UntagQueueInput = input(req, wire, op)?;
            let arn = queue_arn(app, req, &input.queue_url)?;
            sqs.untag_queue(&arn, &input.tag_keys.unwrap_or_default())?;
            Output::Empty
        }
        Operation::ListQueueTags => {
            let input: QueueInput = input(req, wire, op)?;
            Output::Tags(sqs.list_queue_tags(&queue_arn(app, req, &input.queue_url)?)?)
        }
        _ => return Err(unsupported(op)),
    };
    Ok(out)
}
