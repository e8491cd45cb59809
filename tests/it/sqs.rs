//! SQS over the wire with the AWS SDK for Rust (awsJson 1.0): every operation, its errors as
//! AWS encodes them, FIFO order and deduplication, visibility under the manual clock, long
//! polling, redrive to a dead-letter queue.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{
    ChangeMessageVisibilityBatchRequestEntry, DeleteMessageBatchRequestEntry,
    MessageAttributeValue, MessageSystemAttributeName, QueueAttributeName,
    SendMessageBatchRequestEntry,
};
use aws_sdk_sqs::Client;

use crate::support::{t0, Emulator};

async fn queue(sqs: &Client, name: &str, attrs: &[(QueueAttributeName, &str)]) -> String {
    let mut req = sqs.create_queue().queue_name(name);
    for (k, v) in attrs {
        req = req.attributes(k.clone(), *v);
    }
    req.send().await.expect("create queue").queue_url.unwrap()
}

async fn arn_of(sqs: &Client, url: &str) -> String {
    sqs.get_queue_attributes()
        .queue_url(url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap()[&QueueAttributeName::QueueArn]
        .clone()
}

async fn receive(sqs: &Client, url: &str) -> Vec<aws_sdk_sqs::types::Message> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .wait_time_seconds(0)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .message_attribute_names("All")
        .send()
        .await
        .expect("receive")
        .messages
        .unwrap_or_default()
}

/// `(code, message)` of a failed SDK call.
fn code_of<E: ProvideErrorMetadata>(err: &E) -> (String, String) {
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn create_get_url_attributes_and_delete() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(
        &sqs,
        "basic",
        &[(QueueAttributeName::VisibilityTimeout, "45")],
    )
    .await;
    assert_eq!(url, format!("{}/000000000000/basic", emu.endpoint));
    let got = sqs
        .get_queue_url()
        .queue_name("basic")
        .send()
        .await
        .unwrap();
    assert_eq!(got.queue_url.as_deref(), Some(url.as_str()));
    let attrs = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(
        attrs[&QueueAttributeName::QueueArn],
        "arn:aws:sqs:us-east-1:000000000000:basic"
    );
    assert_eq!(attrs[&QueueAttributeName::VisibilityTimeout], "45");
    assert_eq!(attrs[&QueueAttributeName::MaximumMessageSize], "1048576");
    assert_eq!(attrs[&QueueAttributeName::MessageRetentionPeriod], "345600");
    assert_eq!(attrs[&QueueAttributeName::ApproximateNumberOfMessages], "0");
    assert_eq!(
        attrs[&QueueAttributeName::CreatedTimestamp],
        t0().timestamp().to_string()
    );
    sqs.set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::DelaySeconds, "5")
        .send()
        .await
        .unwrap();
    let attrs = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::DelaySeconds)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(attrs.len(), 1);
    assert_eq!(attrs[&QueueAttributeName::DelaySeconds], "5");
    sqs.delete_queue().queue_url(&url).send().await.unwrap();
    let err = sqs
        .get_queue_url()
        .queue_name("basic")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_queue_does_not_exist(), "{err:?}");
}

#[tokio::test]
async fn missing_queue_is_queue_does_not_exist_with_the_query_error_header() {
    let emu = Emulator::start().await;
    let (status, headers, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("content-type", "application/x-amz-json-1.0"),
                ("x-amz-target", "AmazonSQS.GetQueueUrl"),
                ("authorization", "AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=x"),
            ],
            r#"{"QueueName":"nope"}"#,
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        headers["x-amzn-query-error"],
        "AWS.SimpleQueueService.NonExistentQueue;Sender"
    );
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["__type"], "com.amazonaws.sqs#QueueDoesNotExist");
    assert_eq!(body["message"], "The specified queue does not exist.");

    let sqs = emu.sqs().await;
    let url = format!("{}/000000000000/nope", emu.endpoint);
    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap_err();
    assert!(err.as_service_error().unwrap().is_queue_does_not_exist());
    let err = sqs.delete_queue().queue_url(&url).send().await.unwrap_err();
    assert!(err.as_service_error().unwrap().is_queue_does_not_exist());
}

#[tokio::test]
async fn bad_requests_are_aws_shaped_400s() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(&sqs, "errs", &[]).await;

    let err = sqs
        .create_queue()
        .queue_name("errs")
        .attributes(QueueAttributeName::DelaySeconds, "10")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_queue_name_exists(), "{err:?}");
    assert_eq!(
        err.meta().message(),
        Some("A queue already exists with the same name and a different value for attribute DelaySeconds")
    );

    let err = sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::VisibilityTimeout, "43201")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_attribute_value(), "{err:?}");
    assert_eq!(
        err.meta().message(),
        Some("Invalid value for the parameter VisibilityTimeout.")
    );

    let err = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::from("Bogus"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_attribute_name(), "{err:?}");
    assert_eq!(err.meta().message(), Some("Unknown Attribute Bogus."));

    let err = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(11)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err).1,
        "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."
    );
    let err = sqs
        .receive_message()
        .queue_url(&url)
        .wait_time_seconds(21)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err).1,
        "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."
    );

    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err).1,
        "The request must contain the parameter MessageBody."
    );

    let err = sqs
        .delete_message()
        .queue_url(&url)
        .receipt_handle("not-a-handle")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_receipt_handle_is_invalid(), "{err:?}");

    let err = sqs
        .send_message()
        .queue_url("http://localhost:4566/")
        .message_body("x")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_address(), "{err:?}");

    let (status, headers, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("content-type", "application/x-amz-json-1.0"),
                ("x-amz-target", "AmazonSQS.SendMessage"),
            ],
            &format!(r#"{{"QueueUrl":"{url}","MessageBody":"x","MessageAttributes":{{"A":{{"DataType":"String","StringValue":""}}}}}}"#),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        headers["x-amzn-query-error"],
        "InvalidParameterValue;Sender"
    );
    assert!(
        body.contains("com.amazonaws.sqs#InvalidParameterValueException"),
        "{body}"
    );

    for (target, payload) in [
        ("AmazonSQS.NoSuchThing", "{}".to_string()),
        (
            "AmazonSQS.AddPermission",
            format!(r#"{{"QueueUrl":"{url}"}}"#),
        ),
        ("AmazonSQS.SendMessage", "{not json".to_string()),
        (
            "AmazonSQS.SendMessage",
            r#"{"MessageBody":"x"}"#.to_string(),
        ),
    ] {
        let (status, _, body) = emu
            .raw(
                "POST",
                "/",
                &[
                    ("content-type", "application/x-amz-json-1.0"),
                    ("x-amz-target", target),
                ],
                &payload,
            )
            .await;
        assert_eq!(status, 400, "{target}: {body}");
        assert!(body.contains("__type"), "{body}");
    }
}

#[tokio::test]
async fn send_receive_delete_with_attributes_and_md5s() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(&sqs, "rt", &[]).await;
    let body = "{\"hello\": 1,  \"unicode\": \"\u{e9}\u{2713}\"}";
    let sent = sqs
        .send_message()
        .queue_url(&url)
        .message_body(body)
        .message_attributes(
            "Hello",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("There")
                .build()
                .unwrap(),
        )
        .message_attributes(
            "Help.Me",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("Me")
                .build()
                .unwrap(),
        )
        .message_attributes(
            "General",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("Kenobi")
                .build()
                .unwrap(),
        )
        .message_attributes(
            "Blob",
            MessageAttributeValue::builder()
                .data_type("Binary")
                .binary_value(aws_sdk_sqs::primitives::Blob::new(vec![0u8, 1, 2, 255]))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert!(sent.md5_of_message_attributes.is_some());
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .message_attribute_names("Hel.*")
        .message_system_attribute_names(MessageSystemAttributeName::SentTimestamp)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let m = &got[0];
    assert_eq!(m.body.as_deref(), Some(body));
    assert_eq!(m.message_id, sent.message_id);
    let names: Vec<_> = m
        .message_attributes
        .as_ref()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(
        m.md5_of_message_attributes.as_deref(),
        Some("83fee93c1bcd8b9a5a923ffacdc636c7"),
        "the digest of the returned attributes, as AWS recorded it"
    );
    let system = m.attributes.as_ref().unwrap();
    assert_eq!(
        system[&MessageSystemAttributeName::SentTimestamp],
        t0().timestamp_millis().to_string()
    );
    let all = receive(&sqs, &url).await;
    let blob = &all[0].message_attributes.as_ref().unwrap()["Blob"];
    assert_eq!(
        blob.binary_value.as_ref().unwrap().as_ref(),
        &[0u8, 1, 2, 255]
    );
    assert_eq!(
        all[0].attributes.as_ref().unwrap()[&MessageSystemAttributeName::ApproximateReceiveCount],
        "2"
    );
    sqs.delete_message()
        .queue_url(&url)
        .receipt_handle(all[0].receipt_handle.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert!(receive(&sqs, &url).await.is_empty());
}

#[tokio::test]
async fn batches_report_successes_and_failures_per_entry() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(
        &sqs,
        "batch",
        &[(QueueAttributeName::MaximumMessageSize, "1024")],
    )
    .await;
    let entry = |id: &str, body: &str| {
        SendMessageBatchRequestEntry::builder()
            .id(id)
            .message_body(body)
            .build()
            .unwrap()
    };
    let res = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("a", "one"))
        .entries(entry("b", &"x".repeat(2000)))
        .entries(entry("c", "three"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.successful.len(), 2);
    assert_eq!(res.failed.len(), 1);
    assert_eq!(res.failed[0].id, "b");
    assert_eq!(res.failed[0].code, "InvalidParameterValue");
    assert!(res.failed[0].sender_fault);
    assert_eq!(
        res.failed[0].message.as_deref(),
        Some("One or more parameters cannot be validated. Reason: Message must be shorter than 1024 bytes.")
    );
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("same", "1"))
        .entries(entry("same", "2"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_batch_entry_ids_not_distinct(), "{err:?}");
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .set_entries(Some((0..11).map(|i| entry(&i.to_string(), "x")).collect()))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_too_many_entries_in_batch_request(), "{err:?}");
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("bad:id", "x"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_batch_entry_id(), "{err:?}");

    let msgs = receive(&sqs, &url).await;
    assert_eq!(msgs.len(), 2);
    let vis = sqs
        .change_message_visibility_batch()
        .queue_url(&url)
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("v1")
                .receipt_handle(msgs[0].receipt_handle.clone().unwrap())
                .visibility_timeout(0)
                .build()
                .unwrap(),
        )
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("v2")
                .receipt_handle("garbage")
                .visibility_timeout(0)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(vis.successful.len(), 1);
    assert_eq!(vis.failed[0].code, "ReceiptHandleIsInvalid");
    let again = receive(&sqs, &url).await;
    assert_eq!(again.len(), 1, "only the message made visible comes back");
    let del = sqs
        .delete_message_batch()
        .queue_url(&url)
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("d1")
                .receipt_handle(again[0].receipt_handle.clone().unwrap())
                .build()
                .unwrap(),
        )
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("d2")
                .receipt_handle(msgs[1].receipt_handle.clone().unwrap())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(del.successful.len(), 2);
    let err = sqs
        .delete_message_batch()
        .queue_url(&url)
        .set_entries(Some(vec![]))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_empty_batch_request(), "{err:?}");
}

#[tokio::test]
async fn visibility_timeout_and_delay_follow_the_manual_clock() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(
        &sqs,
        "vis",
        &[(QueueAttributeName::VisibilityTimeout, "30")],
    )
    .await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("m")
        .send()
        .await
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("later")
        .delay_seconds(60)
        .send()
        .await
        .unwrap();
    assert_eq!(receive(&sqs, &url).await.len(), 1);
    assert!(receive(&sqs, &url).await.is_empty());
    emu.set_clock(t0() + chrono::Duration::seconds(30)).await;
    let back = receive(&sqs, &url).await;
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].body.as_deref(), Some("m"));
    sqs.change_message_visibility()
        .queue_url(&url)
        .receipt_handle(back[0].receipt_handle.clone().unwrap())
        .visibility_timeout(100)
        .send()
        .await
        .unwrap();
    emu.set_clock(t0() + chrono::Duration::seconds(60)).await;
    let due = receive(&sqs, &url).await;
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].body.as_deref(), Some("later"));
    let err = sqs
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(due[0].receipt_handle.clone().unwrap())
        .visibility_timeout(43_201)
        .send()
        .await
        .unwrap_err();
    assert!(code_of(&err).1.contains("VisibilityTimeout"), "{err:?}");
}

#[tokio::test]
async fn long_poll_returns_as_soon_as_a_message_is_sent() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(&sqs, "poll", &[]).await;
    let poll = tokio::spawn({
        let sqs = sqs.clone();
        let url = url.clone();
        async move {
            sqs.receive_message()
                .queue_url(url)
                .wait_time_seconds(20)
                .send()
                .await
        }
    });
    // Give the poll time to start waiting; the send below must wake it well before 20 s.
    tokio::task::yield_now().await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("ping")
        .send()
        .await
        .unwrap();
    let got = tokio::time::timeout(Duration::from_secs(15), poll)
        .await
        .expect("the long poll ended on the send, not on its 20 s wait")
        .unwrap()
        .unwrap();
    assert_eq!(got.messages.unwrap()[0].body.as_deref(), Some("ping"));
}

#[tokio::test]
async fn fifo_keeps_group_order_deduplicates_and_numbers_messages() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let url = queue(
        &sqs,
        "order.fifo",
        &[(QueueAttributeName::FifoQueue, "true")],
    )
    .await;
    let mut sequence = Vec::new();
    for i in 0..3 {
        let sent = sqs
            .send_message()
            .queue_url(&url)
            .message_body(format!("m{i}"))
            .message_group_id("g1")
            .message_deduplication_id(format!("d{i}"))
            .send()
            .await
            .unwrap();
        sequence.push(sent.sequence_number.unwrap());
    }
    assert!(sequence.windows(2).all(|w| w[0] < w[1]), "{sequence:?}");
    let dup = sqs
        .send_message()
        .queue_url(&url)
        .message_body("m0 again")
        .message_group_id("g1")
        .message_deduplication_id("d0")
        .send()
        .await
        .unwrap();
    assert_eq!(dup.sequence_number.as_deref(), Some(sequence[0].as_str()));
    let got = receive(&sqs, &url).await;
    let bodies: Vec<_> = got.iter().map(|m| m.body.clone().unwrap()).collect();
    assert_eq!(bodies, ["m0", "m1", "m2"]);
    let attrs = got[0].attributes.as_ref().unwrap();
    assert_eq!(attrs[&MessageSystemAttributeName::MessageGroupId], "g1");
    assert_eq!(
        attrs[&MessageSystemAttributeName::MessageDeduplicationId],
        "d0"
    );
    assert_eq!(
        attrs[&MessageSystemAttributeName::SequenceNumber],
        sequence[0]
    );
    assert!(
        receive(&sqs, &url).await.is_empty(),
        "the group is in flight"
    );

    let err = sqs
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err),
        (
            "MissingParameter".to_string(),
            "The request must contain the parameter MessageGroupId.".to_string()
        )
    );
    let err = sqs
        .create_queue()
        .queue_name("nofifo")
        .attributes(QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).0, "InvalidParameterValue");
}

#[tokio::test]
async fn redrive_moves_messages_to_the_dead_letter_queue() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    let dlq = queue(&sqs, "dlq", &[]).await;
    let dlq_arn = arn_of(&sqs, &dlq).await;
    let policy = format!(r#"{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":"1"}}"#);
    let src = queue(
        &sqs,
        "src",
        &[
            (QueueAttributeName::RedrivePolicy, &policy),
            (QueueAttributeName::VisibilityTimeout, "0"),
        ],
    )
    .await;
    sqs.send_message()
        .queue_url(&src)
        .message_body("poison")
        .send()
        .await
        .unwrap();
    assert_eq!(receive(&sqs, &src).await.len(), 1);
    assert!(receive(&sqs, &src).await.is_empty());
    let dead = receive(&sqs, &dlq).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].body.as_deref(), Some("poison"));
    let sources = sqs
        .list_dead_letter_source_queues()
        .queue_url(&dlq)
        .send()
        .await
        .unwrap();
    assert_eq!(sources.queue_urls, vec![src.clone()]);
    let err = sqs
        .set_queue_attributes()
        .queue_url(&src)
        .attributes(
            QueueAttributeName::RedrivePolicy,
            r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nope","maxReceiveCount":1}"#,
        )
        .send()
        .await
        .unwrap_err();
    assert!(
        code_of(&err)
            .1
            .ends_with("Dead letter target does not exist."),
        "{err:?}"
    );
}

#[tokio::test]
async fn list_purge_and_tags() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    for name in ["list-a", "list-b", "list-c", "other"] {
        queue(&sqs, name, &[]).await;
    }
    let all = sqs
        .list_queues()
        .queue_name_prefix("list-")
        .send()
        .await
        .unwrap();
    assert_eq!(all.queue_urls.unwrap().len(), 3);
    assert!(all.next_token.is_none());
    let page = sqs
        .list_queues()
        .queue_name_prefix("list-")
        .max_results(2)
        .send()
        .await
        .unwrap();
    assert_eq!(page.queue_urls.as_ref().unwrap().len(), 2);
    let rest = sqs
        .list_queues()
        .queue_name_prefix("list-")
        .max_results(2)
        .next_token(page.next_token.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        rest.queue_urls.unwrap(),
        vec![format!("{}/000000000000/list-c", emu.endpoint)]
    );
    let none = sqs
        .list_queues()
        .queue_name_prefix("zzz")
        .send()
        .await
        .unwrap();
    assert!(none.queue_urls.is_none());

    let url = queue(&sqs, "tagged", &[]).await;
    sqs.tag_queue()
        .queue_url(&url)
        .tags("team", "a")
        .tags("env", "dev")
        .send()
        .await
        .unwrap();
    sqs.untag_queue()
        .queue_url(&url)
        .tag_keys("env")
        .send()
        .await
        .unwrap();
    let tags = sqs
        .list_queue_tags()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .tags
        .unwrap();
    assert_eq!(tags, HashMap::from([("team".to_string(), "a".to_string())]));

    sqs.send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    sqs.purge_queue().queue_url(&url).send().await.unwrap();
    assert!(receive(&sqs, &url).await.is_empty());
    let err = sqs
        .purge_queue()
        .queue_url(&url)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_purge_queue_in_progress(), "{err:?}");
}

#[tokio::test]
async fn queue_urls_from_aws_style_hosts_and_other_accounts_resolve() {
    let emu = Emulator::start().await;
    let sqs = emu.sqs().await;
    queue(&sqs, "anyhost", &[]).await;
    sqs.send_message()
        .queue_url("https://sqs.us-east-1.amazonaws.com/000000000000/anyhost")
        .message_body("x")
        .send()
        .await
        .unwrap();
    let other = aws_sdk_sqs::Client::new(&emu.sdk_config_for("123456789012").await);
    let url = other
        .create_queue()
        .queue_name("anyhost")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    assert!(url.ends_with("/123456789012/anyhost"), "{url}");
    assert_eq!(receive(&other, &url).await.len(), 0, "a different queue");
    assert_eq!(
        receive(&sqs, &format!("{}/000000000000/anyhost", emu.endpoint))
            .await
            .len(),
        1
    );
}
