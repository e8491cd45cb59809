//! SQS's older protocol, awsQuery (botocore `sqs/2012-11-05` before 1.31.81, the AWS SDK for
//! Java v1): form-encoded `Action=<Operation>` requests whose lists and maps are *flattened*
//! under their model names (`Attribute.1.Name` / `.Value`, `AttributeName.1`, `Tag.1.Key`,
//! `TagKey.1`, `MessageAttribute.1.Value.DataType`, `SendMessageBatchRequestEntry.1.Id`), and
//! XML answers in `http://queue.amazonaws.com/doc/2012-11-05/` (`<ReceiveMessageResult>` with
//! one `<Message>` per message, `<Attribute><Name/><Value/></Attribute>` entries,
//! `<MessageAttribute>` entries). Errors are `<ErrorResponse>` with the query codes the JSON
//! protocol sends in `x-amzn-query-error` (`AWS.SimpleQueueService.NonExistentQueue`).
//!
//! Only the request decoding and the answer encoding live here: routing, the operation enum and
//! the core calls are the parent's, shared with the JSON protocol.

use std::collections::BTreeMap;

use base64::Engine;
use indexmap::IndexMap;

use super::shapes::*;
use crate::protocol::error::{Protocol, WireError};
use crate::protocol::query::QueryInput;
use crate::protocol::xml::XmlWriter;
use crate::services::sqs::{BatchResult, ReceivedMessage, SentMessage};

/// The awsQuery XML namespace of SQS.
pub const XMLNS: &str = "http://queue.amazonaws.com/doc/2012-11-05/";

/// How SQS errors are encoded in the query protocol.
pub const PROTOCOL: Protocol = Protocol::Query { xmlns: XMLNS };

/// An input decoded from the awsQuery form of `op`.
pub(super) trait FromQuery: Sized {
    fn from_query(form: &QueryInput, op: Operation) -> Result<Self, WireError>;
}

fn string(form: &QueryInput, key: &str) -> Option<String> {
    form.str(key).map(str::to_string)
}

/// A flattened list of strings: `key.1`, `key.2`, …
fn strings(form: &QueryInput, key: &str) -> Option<Vec<String>> {
    form.flat_list(key).map(|items| {
        items
            .iter()
            .filter_map(|i| i.str("").map(str::to_string))
            .collect()
    })
}

/// A flattened map: `key.N.<k>` / `key.N.<v>`.
fn map(form: &QueryInput, key: &str, k: &str, v: &str) -> Option<IndexMap<String, String>> {
    form.flat_list(key).map(|items| {
        items
            .iter()
            .filter_map(|i| Some((i.str(k)?.to_string(), i.str(v).unwrap_or("").to_string())))
            .collect()
    })
}

fn tags(form: &QueryInput) -> Option<BTreeMap<String, String>> {
    map(form, "Tag", "Key", "Value").map(|m| m.into_iter().collect())
}

fn attribute_values(form: &QueryInput, key: &str) -> Option<BTreeMap<String, WireAttributeValue>> {
    form.flat_list(key).map(|items| {
        items
            .iter()
            .filter_map(|i| {
                let value = i.structure("Value").unwrap_or_default();
                Some((
                    i.str("Name")?.to_string(),
                    WireAttributeValue {
                        data_type: string(&value, "DataType"),
                        string_value: string(&value, "StringValue"),
                        binary_value: string(&value, "BinaryValue"),
                    },
                ))
            })
            .collect()
    })
}

fn message(form: &QueryInput) -> Result<WireMessage, WireError> {
    Ok(WireMessage {
        id: string(form, "Id"),
        message_body: string(form, "MessageBody"),
        delay_seconds: form.int("DelaySeconds")?,
        message_attributes: attribute_values(form, "MessageAttribute"),
        message_system_attributes: attribute_values(form, "MessageSystemAttribute"),
        message_deduplication_id: string(form, "MessageDeduplicationId"),
        message_group_id: string(form, "MessageGroupId"),
    })
}

impl FromQuery for CreateQueueInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(CreateQueueInput {
            queue_name: string(form, "QueueName"),
            attributes: map(form, "Attribute", "Name", "Value"),
            tags: tags(form),
        })
    }
}

impl FromQuery for GetQueueUrlInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(GetQueueUrlInput {
            queue_name: string(form, "QueueName"),
            queue_owner_aws_account_id: string(form, "QueueOwnerAWSAccountId"),
        })
    }
}

impl FromQuery for QueueInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(QueueInput {
            queue_url: string(form, "QueueUrl"),
        })
    }
}

impl FromQuery for GetQueueAttributesInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(GetQueueAttributesInput {
            queue_url: string(form, "QueueUrl"),
            attribute_names: strings(form, "AttributeName"),
        })
    }
}

impl FromQuery for SetQueueAttributesInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(SetQueueAttributesInput {
            queue_url: string(form, "QueueUrl"),
            attributes: map(form, "Attribute", "Name", "Value"),
        })
    }
}

impl FromQuery for SendMessageInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(SendMessageInput {
            queue_url: string(form, "QueueUrl"),
            message: message(form)?,
        })
    }
}

impl FromQuery for SendMessageBatchInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        let entries = form
            .flat_list("SendMessageBatchRequestEntry")
            .map(|items| items.iter().map(message).collect::<Result<Vec<_>, _>>())
            .transpose()?;
        Ok(SendMessageBatchInput {
            queue_url: string(form, "QueueUrl"),
            entries,
        })
    }
}

impl FromQuery for WireReceiveInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(WireReceiveInput {
            queue_url: string(form, "QueueUrl"),
            attribute_names: strings(form, "AttributeName"),
            message_system_attribute_names: strings(form, "MessageSystemAttributeName"),
            message_attribute_names: strings(form, "MessageAttributeName"),
            max_number_of_messages: form.int("MaxNumberOfMessages")?,
            visibility_timeout: form.int("VisibilityTimeout")?,
            wait_time_seconds: form.int("WaitTimeSeconds")?,
        })
    }
}

impl FromQuery for DeleteMessageInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(DeleteMessageInput {
            queue_url: string(form, "QueueUrl"),
            receipt_handle: string(form, "ReceiptHandle"),
        })
    }
}

impl FromQuery for HandleBatchInput {
    /// DeleteMessageBatch and ChangeMessageVisibilityBatch, whose entries carry the
    /// operation's name.
    fn from_query(form: &QueryInput, op: Operation) -> Result<Self, WireError> {
        let prefix = match op {
            Operation::ChangeMessageVisibilityBatch => "ChangeMessageVisibilityBatchRequestEntry",
            _ => "DeleteMessageBatchRequestEntry",
        };
        let entries = form
            .flat_list(prefix)
            .map(|items| {
                items
                    .iter()
                    .map(|e| {
                        Ok(WireHandleEntry {
                            id: string(e, "Id"),
                            receipt_handle: string(e, "ReceiptHandle"),
                            visibility_timeout: e.int("VisibilityTimeout")?,
                        })
                    })
                    .collect::<Result<Vec<_>, WireError>>()
            })
            .transpose()?;
        Ok(HandleBatchInput {
            queue_url: string(form, "QueueUrl"),
            entries,
        })
    }
}

impl FromQuery for ChangeVisibilityInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(ChangeVisibilityInput {
            queue_url: string(form, "QueueUrl"),
            receipt_handle: string(form, "ReceiptHandle"),
            visibility_timeout: form.int("VisibilityTimeout")?,
        })
    }
}

impl FromQuery for ListQueuesInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(ListQueuesInput {
            queue_name_prefix: string(form, "QueueNamePrefix"),
            next_token: string(form, "NextToken"),
            max_results: form.int("MaxResults")?,
        })
    }
}

impl FromQuery for TagQueueInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(TagQueueInput {
            queue_url: string(form, "QueueUrl"),
            tags: tags(form),
        })
    }
}

impl FromQuery for UntagQueueInput {
    fn from_query(form: &QueryInput, _: Operation) -> Result<Self, WireError> {
        Ok(UntagQueueInput {
            queue_url: string(form, "QueueUrl"),
            tag_keys: strings(form, "TagKey"),
        })
    }
}

// ------------------------------------------------------------------------------------------
// Answers
// ------------------------------------------------------------------------------------------

/// `<{name}><Name>k</Name><Value>v</Value></{name}>` per entry of a flattened map.
fn flat_map<'a>(
    w: &mut XmlWriter,
    name: &str,
    (k, v): (&str, &str),
    entries: impl IntoIterator<Item = (&'a String, &'a String)>,
) {
    for (key, value) in entries {
        w.open(name).elem(k, key).elem(v, value).close(name);
    }
}

fn sent_xml(w: &mut XmlWriter, sent: &SentMessage) {
    w.elem("MessageId", &sent.message_id)
        .elem("MD5OfMessageBody", &sent.md5_of_message_body)
        .opt_elem(
            "MD5OfMessageAttributes",
            sent.md5_of_message_attributes.as_deref(),
        )
        .opt_elem(
            "MD5OfMessageSystemAttributes",
            sent.md5_of_message_system_attributes.as_deref(),
        )
        .opt_elem("SequenceNumber", sent.sequence_number.as_deref());
}

fn received_xml(w: &mut XmlWriter, m: &ReceivedMessage) {
    w.open("Message")
        .elem("MessageId", &m.message_id)
        .elem("ReceiptHandle", &m.receipt_handle)
        .elem("MD5OfBody", &m.md5_of_body)
        .elem("Body", &m.body);
    flat_map(w, "Attribute", ("Name", "Value"), &m.attributes);
    if let Some(md5) = &m.md5_of_message_attributes {
        w.elem("MD5OfMessageAttributes", md5);
        for (name, v) in &m.message_attributes {
            w.open("MessageAttribute").elem("Name", name).open("Value");
            w.opt_elem("StringValue", v.string_value.as_deref());
            if let Some(b) = &v.binary_value {
                w.elem(
                    "BinaryValue",
                    &base64::engine::general_purpose::STANDARD.encode(b),
                );
            }
            w.elem("DataType", &v.data_type)
                .close("Value")
                .close("MessageAttribute");
        }
    }
    w.close("Message");
}

/// The `Successful` entries (`<{entry}>`, written by `ok`) then the `BatchResultErrorEntry`s.
fn batch_xml<T>(
    w: &mut XmlWriter,
    entry: &str,
    results: &BatchResult<T>,
    ok: impl Fn(&mut XmlWriter, &T),
) {
    for (id, res) in results {
        if let Ok(v) = res {
            w.open(entry).elem("Id", id);
            ok(w, v);
            w.close(entry);
        }
    }
    for (id, res) in results {
        if let Err(err) = res {
            let (_, code) = codes(err);
            w.open("BatchResultErrorEntry")
                .elem("Id", id)
                .bool_elem("SenderFault", true)
                .elem("Code", code)
                .elem("Message", &err.message())
                .close("BatchResultErrorEntry");
        }
    }
}

impl Output {
    /// The awsQuery document answering `op`: `<{Op}Response><{Op}Result>…` (no Result element
    /// for the operations without an output shape), then `<ResponseMetadata>`.
    pub(super) fn xml(&self, op: Operation, request_id: &str) -> String {
        let action = op.name();
        if matches!(self, Output::Empty) {
            return XmlWriter::bare(action, XMLNS).finish(request_id);
        }
        let mut w = XmlWriter::response(action, XMLNS);
        match self {
            Output::Empty => {}
            Output::QueueUrl(url) => {
                w.elem("QueueUrl", url);
            }
            Output::Attributes(a) => flat_map(&mut w, "Attribute", ("Name", "Value"), a),
            Output::Sent(sent) => sent_xml(&mut w, sent),
            Output::SentBatch(results) => {
                batch_xml(&mut w, "SendMessageBatchResultEntry", results, sent_xml)
            }
            Output::Received(messages) => {
                for m in messages {
                    received_xml(&mut w, m);
                }
            }
            Output::Ids(results) => {
                let entry = match op {
                    Operation::ChangeMessageVisibilityBatch => {
                        "ChangeMessageVisibilityBatchResultEntry"
                    }
                    _ => "DeleteMessageBatchResultEntry",
                };
                batch_xml(&mut w, entry, results, |_, _| {});
            }
            Output::QueueUrls(urls, token) => {
                for url in urls {
                    w.elem("QueueUrl", url);
                }
                w.opt_elem("NextToken", token.as_deref());
            }
            Output::DeadLetterSourceQueues(urls) => {
                for url in urls {
                    w.elem("QueueUrl", url);
                }
            }
            Output::Tags(t) => flat_map(&mut w, "Tag", ("Key", "Value"), t),
        }
        w.finish(request_id)
    }
}

/// An error in the query protocol: the query code (`AWS.SimpleQueueService.NonExistentQueue`)
/// is the `<Code>`.
pub(super) fn error(mut err: WireError) -> WireError {
    if let Some(code) = err.query_error_code.take() {
        err.code = code;
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattened_members_decode() {
        let form = QueryInput::parse(
            b"Action=SendMessageBatch&QueueUrl=u&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=one&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=k&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=String&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue=v&SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.2.MessageBody=two&SendMessageBatchRequestEntry.2.DelaySeconds=5",
            None,
        );
        let input = SendMessageBatchInput::from_query(&form, Operation::SendMessageBatch).unwrap();
        let entries = input.entries.unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].message_body.as_deref(), Some("one"));
        let attrs = entries[0].message_attributes.as_ref().unwrap();
        assert_eq!(attrs["k"].string_value.as_deref(), Some("v"));
        assert_eq!(entries[1].delay_seconds, Some(5));
        let form = QueryInput::parse(
            b"Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=60&Tag.1.Key=team&Tag.1.Value=x&QueueName=q",
            None,
        );
        let input = CreateQueueInput::from_query(&form, Operation::CreateQueue).unwrap();
        assert_eq!(input.attributes.unwrap()["VisibilityTimeout"], "60");
        assert_eq!(input.tags.unwrap()["team"], "x");
    }
}
