//! SNS on the wire: awsQuery (form-encoded `Action=<Op>`, XML answers in
//! `http://sns.amazonaws.com/doc/2010-03-31/`, botocore `sns/2010-03-31`). Each handler decodes
//! the form, calls one `crate::services::sns` operation, and encodes the `<OpResult>`.

use axum::response::Response;
use base64::Engine;
use indexmap::IndexMap;

use crate::app::App;
use crate::coral::{self, Violations};
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::query::{lower_camel, QueryInput};
use crate::protocol::xml::XmlWriter;
use crate::protocol::{ok_response, AwsRequest};
use crate::services::sns::{
    self, PublishAttribute, PublishInput, SubscribeInput, SubscriptionSummary,
};

const XMLNS: &str = "http://sns.amazonaws.com/doc/2010-03-31/";

/// How SNS errors are encoded.
pub const PROTOCOL: Protocol = Protocol::Query { xmlns: XMLNS };

impl From<sns::Error> for WireError {
    fn from(err: sns::Error) -> WireError {
        let status = match err {
            sns::Error::NotFound(_) | sns::Error::ResourceNotFound(_) => {
                axum::http::StatusCode::NOT_FOUND
            }
            _ => axum::http::StatusCode::BAD_REQUEST,
        };
        WireError::new(err.code(), err.message(), status)
    }
}

super::operations! {
    /// The SNS actions Cumulo serves.
    CreateTopic,
    DeleteTopic,
    ListTopics,
    GetTopicAttributes,
    SetTopicAttributes,
    Subscribe,
    ConfirmSubscription,
    Unsubscribe,
    ListSubscriptions,
    ListSubscriptionsByTopic,
    GetSubscriptionAttributes,
    SetSubscriptionAttributes,
    Publish,
    PublishBatch,
    TagResource,
    UntagResource,
    ListTagsForResource,
}

/// Routes the form's `Action` to an operation.
fn route(form: &QueryInput) -> Result<Operation, WireError> {
    match form.action().unwrap_or_default() {
        "" => Err(WireError::bad_request(
            "MissingAction",
            "The request must contain the parameter Action.",
        )),
        name => Operation::from_name(name)
            .ok_or_else(|| WireError::not_implemented("SNS", name, "InvalidAction")),
    }
}

/// Handles one SNS request.
pub async fn handle(app: &App, req: AwsRequest) -> Response {
    let form = req.form();
    let answer = match route(&form) {
        Ok(op) => dispatch(app, &req, &form, op).await,
        Err(err) => Err(err),
    };
    match answer {
        Ok(body) => ok_response("text/xml", body, &req.request_id),
        Err(err) => err.into_response(PROTOCOL, &req.request_id),
    }
}

/// The required members `names` of an action, in its model's member order: their values, or
/// one Coral message listing every missing one (`2 validation errors detected: Value null at
/// 'topicArn' …; Value null at 'protocol' …`).
fn required<'a, const N: usize>(
    form: &'a QueryInput,
    names: [&str; N],
) -> Result<[&'a str; N], WireError> {
    let mut v = Violations::default();
    let values = names.map(|name| v.required(&lower_camel(name), form.str(name)));
    v.finish().map_err(|e| WireError::validation_error(e.0))?;
    Ok(values.map(Option::unwrap_or_default))
}

fn attributes(form: &QueryInput) -> IndexMap<String, String> {
    form.map("Attributes", "key", "value").unwrap_or_default()
}

fn tags(form: &QueryInput) -> Vec<(String, String)> {
    form.struct_list("Tags")
        .unwrap_or_default()
        .into_iter()
        .map(|t| {
            (
                t.str("Key").unwrap_or_default().to_string(),
                t.str("Value").unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn message_attributes(form: &QueryInput) -> Result<Vec<(String, PublishAttribute)>, WireError> {
    let Some(map) = form.structure("MessageAttributes") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in map.flat_list("entry").unwrap_or_default() {
        let name = entry.str("Name").unwrap_or_default().to_string();
        let Some(data_type) = entry.str("Value.DataType") else {
            let path = format!("messageAttributes.{name}.member.dataType");
            return Err(WireError::validation_error(
                coral::single(None, &path, "Member must not be null").0,
            ));
        };
        let binary_value = match entry.str("Value.BinaryValue") {
            None => None,
            Some(b) => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(b)
                    .map_err(|_| {
                        WireError::from(sns::Error::ParameterValueInvalid(format!(
                            "The message attribute '{name}' has an invalid binary value."
                        )))
                    })?,
            ),
        };
        out.push((
            name,
            PublishAttribute {
                data_type: data_type.to_string(),
                string_value: entry.str("Value.StringValue").map(str::to_string),
                binary_value,
            },
        ));
    }
    Ok(out)
}

fn publish_input(form: &QueryInput) -> Result<PublishInput, WireError> {
    Ok(PublishInput {
        message: required(form, ["Message"])?[0].to_string(),
        subject: form.str("Subject").map(str::to_string),
        message_structure: form.str("MessageStructure").map(str::to_string),
        message_attributes: message_attributes(form)?,
        message_group_id: form.str("MessageGroupId").map(str::to_string),
        message_deduplication_id: form.str("MessageDeduplicationId").map(str::to_string),
    })
}

/// A topic ARN must name the request's region (AWS: "Invalid parameter: TopicArn").
fn same_region(req: &AwsRequest, topic_arn: &str) -> Result<(), WireError> {
    let parts: Vec<&str> = topic_arn.split(':').collect();
    if parts.len() >= 6 && parts[3] != req.scope.region {
        return Err(sns::Error::invalid("TopicArn").into());
    }
    Ok(())
}

fn map_xml(w: &mut XmlWriter, name: &str, map: &std::collections::BTreeMap<String, String>) {
    w.open(name);
    for (k, v) in map {
        w.open("entry")
            .elem("key", k)
            .elem("value", v)
            .close("entry");
    }
    w.close(name);
}

fn subscriptions_xml(w: &mut XmlWriter, subs: &[SubscriptionSummary]) {
    w.open("Subscriptions");
    for s in subs {
        w.open("member")
            .elem("SubscriptionArn", &s.subscription_arn)
            .elem("Owner", &s.owner)
            .elem("Protocol", &s.protocol)
            .elem("Endpoint", &s.endpoint)
            .elem("TopicArn", &s.topic_arn)
            .close("member");
    }
    w.close("Subscriptions");
}

impl Operation {
    /// Whether the operation reads only (its answer needs no storage commit).
    fn is_read(self) -> bool {
        matches!(
            self,
            Operation::ListTopics
                | Operation::GetTopicAttributes
                | Operation::ListSubscriptions
                | Operation::ListSubscriptionsByTopic
                | Operation::GetSubscriptionAttributes
                | Operation::ListTagsForResource
        )
    }
}

async fn dispatch(
    app: &App,
    req: &AwsRequest,
    form: &QueryInput,
    op: Operation,
) -> Result<String, WireError> {
    let body = match op {
        Operation::Subscribe
        | Operation::ConfirmSubscription
        | Operation::Unsubscribe
        | Operation::ListSubscriptions
        | Operation::ListSubscriptionsByTopic
        | Operation::GetSubscriptionAttributes
        | Operation::SetSubscriptionAttributes => subscription_operation(app, req, form, op)?,
        Operation::Publish | Operation::PublishBatch => publish_operation(app, req, form, op)?,
        _ => topic_operation(app, req, form, op)?,
    };
    if !op.is_read() {
        app.storage.sync().await;
    }
    Ok(body)
}

/// The operations on topics and tags.
fn topic_operation(
    app: &App,
    req: &AwsRequest,
    form: &QueryInput,
    op: Operation,
) -> Result<String, WireError> {
    let sns = &app.sns;
    let rid = &req.request_id;
    let action = op.name();
    let body = match op {
        Operation::CreateTopic => {
            let name = required(form, ["Name"])?[0];
            let arn = sns.create_topic(&req.scope, name, &attributes(form), &tags(form))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("TopicArn", &arn);
            w.finish(rid)
        }
        Operation::DeleteTopic => {
            sns.delete_topic(required(form, ["TopicArn"])?[0])?;
            XmlWriter::bare(action, XMLNS).finish(rid)
        }
        Operation::ListTopics => {
            let (arns, token) = sns.list_topics(&req.scope, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("Topics");
            for a in &arns {
                w.open("member").elem("TopicArn", a).close("member");
            }
            w.close("Topics");
            w.opt_elem("NextToken", token.as_deref());
            w.finish(rid)
        }
        Operation::GetTopicAttributes => {
            let attrs = sns.get_topic_attributes(required(form, ["TopicArn"])?[0])?;
            let mut w = XmlWriter::response(action, XMLNS);
            map_xml(&mut w, "Attributes", &attrs);
            w.finish(rid)
        }
        Operation::SetTopicAttributes => {
            let [topic_arn, name] = required(form, ["TopicArn", "AttributeName"])?;
            sns.set_topic_attributes(
                topic_arn,
                name,
                form.str("AttributeValue").unwrap_or_default(),
            )?;
            XmlWriter::bare(action, XMLNS).finish(rid)
        }
        Operation::TagResource => {
            let [arn] = required(form, ["ResourceArn"])?;
            sns.tag_resource(arn, &tags(form))?;
            XmlWriter::response(action, XMLNS).finish(rid)
        }
        Operation::UntagResource => {
            let keys = form.list("TagKeys").unwrap_or_default();
            sns.untag_resource(required(form, ["ResourceArn"])?[0], &keys)?;
            XmlWriter::response(action, XMLNS).finish(rid)
        }
        Operation::ListTagsForResource => {
            let tags = sns.list_tags_for_resource(required(form, ["ResourceArn"])?[0])?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("Tags");
            for (k, v) in &tags {
                w.open("member")
                    .elem("Key", k)
                    .elem("Value", v)
                    .close("member");
            }
            w.close("Tags");
            w.finish(rid)
        }
        _ => return Err(WireError::not_implemented("SNS", action, "InvalidAction")),
    };
    Ok(body)
}

/// The operations on subscriptions.
fn subscription_operation(
    app: &App,
    req: &AwsRequest,
    form: &QueryInput,
    op: Operation,
) -> Result<String, WireError> {
    let sns = &app.sns;
    let rid = &req.request_id;
    let action = op.name();
    let body = match op {
        Operation::Subscribe => {
            let [topic_arn, protocol] = required(form, ["TopicArn", "Protocol"])?;
            let input = SubscribeInput {
                topic_arn: topic_arn.to_string(),
                protocol: protocol.to_string(),
                endpoint: form.str("Endpoint").unwrap_or_default().to_string(),
                attributes: attributes(form),
                return_subscription_arn: form.bool("ReturnSubscriptionArn")?.unwrap_or(false),
            };
            let arn = sns.subscribe(&req.scope.account, input)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("SubscriptionArn", &arn);
            w.finish(rid)
        }
        Operation::ConfirmSubscription => {
            let [topic_arn, token] = required(form, ["TopicArn", "Token"])?;
            let arn = sns.confirm_subscription(topic_arn, token)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("SubscriptionArn", &arn);
            w.finish(rid)
        }
        Operation::Unsubscribe => {
            sns.unsubscribe(required(form, ["SubscriptionArn"])?[0])?;
            XmlWriter::bare(action, XMLNS).finish(rid)
        }
        Operation::ListSubscriptions => {
            let (subs, token) = sns.list_subscriptions(&req.scope, form.str("NextToken"))?;
            let mut w = XmlWriter::response(action, XMLNS);
            subscriptions_xml(&mut w, &subs);
            w.opt_elem("NextToken", token.as_deref());
            w.finish(rid)
        }
        Operation::ListSubscriptionsByTopic => {
            let (subs, token) = sns.list_subscriptions_by_topic(
                required(form, ["TopicArn"])?[0],
                form.str("NextToken"),
            )?;
            let mut w = XmlWriter::response(action, XMLNS);
            subscriptions_xml(&mut w, &subs);
            w.opt_elem("NextToken", token.as_deref());
            w.finish(rid)
        }
        Operation::GetSubscriptionAttributes => {
            let attrs = sns.get_subscription_attributes(required(form, ["SubscriptionArn"])?[0])?;
            let mut w = XmlWriter::response(action, XMLNS);
            map_xml(&mut w, "Attributes", &attrs);
            w.finish(rid)
        }
        Operation::SetSubscriptionAttributes => {
            let [arn, name] = required(form, ["SubscriptionArn", "AttributeName"])?;
            sns.set_subscription_attributes(
                arn,
                name,
                form.str("AttributeValue").unwrap_or_default(),
            )?;
            XmlWriter::bare(action, XMLNS).finish(rid)
        }
        _ => return Err(WireError::not_implemented("SNS", action, "InvalidAction")),
    };
    Ok(body)
}

/// Publish and PublishBatch.
fn publish_operation(
    app: &App,
    req: &AwsRequest,
    form: &QueryInput,
    op: Operation,
) -> Result<String, WireError> {
    let sns = &app.sns;
    let rid = &req.request_id;
    let action = op.name();
    let body = match op {
        Operation::Publish => {
            if form.non_empty("PhoneNumber").is_some() {
                return Err(sns::Error::invalid(
                    "PhoneNumber Reason: Cumulo does not deliver SMS; publish to a topic",
                )
                .into());
            }
            let topic_arn = match (form.non_empty("TopicArn"), form.non_empty("TargetArn")) {
                (Some(t), _) => t,
                (None, Some(target)) if !target.contains("endpoint/") => target,
                (None, Some(_)) => {
                    return Err(sns::Error::invalid(
                        "TargetArn Reason: No endpoint found for the target arn specified",
                    )
                    .into())
                }
                (None, None) => {
                    return Err(sns::Error::invalid(
                        "TopicArn or TargetArn Reason: no value for required parameter",
                    )
                    .into())
                }
            };
            same_region(req, topic_arn)?;
            let published = sns.publish(topic_arn, publish_input(form)?)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.elem("MessageId", &published.message_id);
            w.opt_elem("SequenceNumber", published.sequence_number.as_deref());
            w.finish(rid)
        }
        Operation::PublishBatch => {
            let topic_arn = required(form, ["TopicArn"])?[0];
            same_region(req, topic_arn)?;
            let entries = form
                .struct_list("PublishBatchRequestEntries")
                .unwrap_or_default()
                .iter()
                .map(|e| {
                    Ok((
                        e.str("Id").unwrap_or_default().to_string(),
                        publish_input(e)?,
                    ))
                })
                .collect::<Result<Vec<_>, WireError>>()?;
            let results = sns.publish_batch(topic_arn, entries)?;
            let mut w = XmlWriter::response(action, XMLNS);
            w.open("Successful");
            for (id, res) in &results {
                if let Ok(p) = res {
                    w.open("member")
                        .elem("Id", id)
                        .elem("MessageId", &p.message_id)
                        .opt_elem("SequenceNumber", p.sequence_number.as_deref())
                        .close("member");
                }
            }
            w.close("Successful");
            w.open("Failed");
            for (id, res) in &results {
                if let Err(e) = res {
                    w.open("member")
                        .elem("Id", id)
                        .elem("Code", e.code())
                        .elem("Message", &e.message())
                        .bool_elem("SenderFault", true)
                        .close("member");
                }
            }
            w.close("Failed");
            w.finish(rid)
        }
        _ => return Err(WireError::not_implemented("SNS", action, "InvalidAction")),
    };
    Ok(body)
}
