//! Table tests of the SQS core: MD5 digests against values recorded from AWS, attribute
//! validation, FIFO ordering and deduplication, visibility and redrive under a manual clock.

use chrono::{TimeZone, Utc};
use indexmap::IndexMap;

use super::model::{md5_hex, md5_of_attributes, MessageAttributeValue, MessageAttributes};
use super::*;

fn sqs_at_t0() -> (Sqs, Clock) {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap());
    let sqs = Sqs::new(
        clock.clone(),
        IdGen::seeded(3),
        Storage::memory(),
        Endpoint::default(),
    );
    (sqs, clock)
}

fn attrs(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn scope() -> Scope {
    Scope::default_scope()
}

fn receive_all() -> ReceiveMessageInput {
    ReceiveMessageInput {
        max_number_of_messages: Some(10),
        wait_time_seconds: Some(0),
        attribute_names: vec!["All".into()],
        message_attribute_names: vec!["All".into()],
        ..Default::default()
    }
}

#[test]
fn md5_of_message_attributes_matches_aws_recordings() {
    // LocalStack's test_receive_message_message_attribute_names_filters, recorded against AWS.
    let mut a = MessageAttributes::new();
    a.insert("Help.Me".into(), MessageAttributeValue::string("Me"));
    a.insert("Hello".into(), MessageAttributeValue::string("There"));
    a.insert("General".into(), MessageAttributeValue::string("Kenobi"));
    assert_eq!(
        md5_of_attributes(&a).as_deref(),
        Some("4c360f3fdafd970e05fae2f149d997f5")
    );
    a.remove("Help.Me");
    assert_eq!(
        md5_of_attributes(&a).as_deref(),
        Some("fca026605781cb4126a1e9044df24232")
    );
    a.remove("General");
    assert_eq!(
        md5_of_attributes(&a).as_deref(),
        Some("a311262e065454b75da111d535b8dacd")
    );
    let mut b = MessageAttributes::new();
    b.insert("Foo".into(), MessageAttributeValue::string("Bar"));
    assert_eq!(
        md5_of_attributes(&b).as_deref(),
        Some("ae7155c6026991b6d54b11589678bf9c")
    );
    assert_eq!(md5_of_attributes(&MessageAttributes::new()), None);
    assert_eq!(md5_hex(b"msg"), "6e2baaf3b97dbeef01c0043275f9a0e7");
}

#[test]
fn queue_attribute_ranges_are_enforced() {
    let (sqs, _) = sqs_at_t0();
    for (name, value, ok) in [
        ("VisibilityTimeout", "43200", true),
        ("VisibilityTimeout", "43201", false),
        ("VisibilityTimeout", "-1", false),
        ("VisibilityTimeout", "abc", false),
        ("DelaySeconds", "900", true),
        ("DelaySeconds", "901", false),
        ("MaximumMessageSize", "1023", false),
        ("MaximumMessageSize", "1048576", true),
        ("MaximumMessageSize", "1048577", false),
        ("MessageRetentionPeriod", "59", false),
        ("MessageRetentionPeriod", "1209600", true),
        ("ReceiveMessageWaitTimeSeconds", "21", false),
        ("ReceiveMessageWaitTimeSeconds", "20", true),
        ("KmsDataKeyReusePeriodSeconds", "59", false),
        ("SqsManagedSseEnabled", "maybe", false),
        ("Policy", "not json", false),
        ("Policy", "{}", true),
    ] {
        let res = sqs.create_queue(
            &scope(),
            "q-range",
            &attrs(&[(name, value)]),
            &Default::default(),
        );
        match (ok, res) {
            (true, Ok(q)) => sqs.delete_queue(&q.arn).unwrap(),
            (false, Err(Error::InvalidAttributeValue(m))) => {
                assert_eq!(m, format!("Invalid value for the parameter {name}."))
            }
            (ok, res) => panic!("{name}={value}: expected ok={ok}, got {res:?}"),
        }
    }
}

#[test]
fn create_queue_is_idempotent_only_for_equal_attributes() {
    let (sqs, _) = sqs_at_t0();
    let a = attrs(&[("VisibilityTimeout", "60")]);
    let q1 = sqs
        .create_queue(&scope(), "same", &a, &Default::default())
        .unwrap();
    let q2 = sqs
        .create_queue(&scope(), "same", &a, &Default::default())
        .unwrap();
    assert_eq!(q1, q2);
    sqs.create_queue(&scope(), "same", &attrs(&[]), &Default::default())
        .unwrap();
    sqs.create_queue(
        &scope(),
        "same",
        &attrs(&[("DelaySeconds", "0")]),
        &Default::default(),
    )
    .unwrap();
    let err = sqs
        .create_queue(
            &scope(),
            "same",
            &attrs(&[("DelaySeconds", "5")]),
            &Default::default(),
        )
        .unwrap_err();
    assert_eq!(
        err,
        Error::QueueNameExists(
            "A queue already exists with the same name and a different value for attribute DelaySeconds".into()
        )
    );
}

#[test]
fn queue_names_and_types_are_checked() {
    let (sqs, _) = sqs_at_t0();
    let none = BTreeMap::new();
    let fifo = attrs(&[("FifoQueue", "true")]);
    assert!(matches!(
        sqs.create_queue(&scope(), "bad name", &attrs(&[]), &none),
        Err(Error::InvalidParameterValue(_))
    ));
    assert!(matches!(
        sqs.create_queue(&scope(), &"x".repeat(81), &attrs(&[]), &none),
        Err(Error::InvalidParameterValue(_))
    ));
    assert!(sqs
        .create_queue(&scope(), &"x".repeat(80), &attrs(&[]), &none)
        .is_ok());
    assert!(matches!(
        sqs.create_queue(&scope(), "plain.fifo", &attrs(&[]), &none),
        Err(Error::InvalidParameterValue(_))
    ));
    assert!(matches!(
        sqs.create_queue(&scope(), "nosuffix", &fifo, &none),
        Err(Error::InvalidParameterValue(_))
    ));
    assert_eq!(
        sqs.create_queue(&scope(), "std", &attrs(&[("FifoQueue", "false")]), &none),
        Err(Error::unknown_attribute("FifoQueue"))
    );
    assert_eq!(
        sqs.create_queue(
            &scope(),
            "std",
            &attrs(&[("ContentBasedDeduplication", "true")]),
            &none
        ),
        Err(Error::unknown_attribute("ContentBasedDeduplication"))
    );
    assert_eq!(
        sqs.create_queue(
            &scope(),
            "std",
            &attrs(&[("DeduplicationScope", "queue")]),
            &none
        ),
        Err(Error::InvalidAttributeName(
            "You can specify the DeduplicationScope only when FifoQueue is set to true.".into()
        ))
    );
    assert_eq!(
        sqs.create_queue(&scope(), "std", &attrs(&[("QueueArn", "x")]), &none),
        Err(Error::unknown_attribute("QueueArn"))
    );
    let q = sqs
        .create_queue(&scope(), "ok.fifo", &attrs(&[("FifoQueue", "True")]), &none)
        .unwrap();
    assert_eq!(q.arn, "arn:aws:sqs:us-east-1:000000000000:ok.fifo");
    assert_eq!(q.url, "http://localhost:4566/000000000000/ok.fifo");
}

#[test]
fn queue_urls_resolve_by_path() {
    let (sqs, _) = sqs_at_t0();
    let s = Scope::new("111111111111", "eu-west-1");
    for (url, want) in [
        (
            "http://localhost:4566/000000000000/q",
            Ok("arn:aws:sqs:eu-west-1:000000000000:q"),
        ),
        (
            "https://sqs.eu-west-1.amazonaws.com/123456789012/q.fifo",
            Ok("arn:aws:sqs:eu-west-1:123456789012:q.fifo"),
        ),
        (
            "http://localhost:4566/queue/ap-south-1/000000000000/q",
            Ok("arn:aws:sqs:ap-south-1:000000000000:q"),
        ),
        (
            "http://localhost:4566/000000000000/q/",
            Ok("arn:aws:sqs:eu-west-1:000000000000:q"),
        ),
        ("http://localhost:4566/", Err(())),
        ("q", Err(())),
        ("http://localhost:4566/notanaccount/q", Err(())),
    ] {
        let got = sqs.resolve_url(&s, url);
        match want {
            Ok(arn) => assert_eq!(got.as_deref(), Ok(arn), "{url}"),
            Err(()) => assert!(
                matches!(got, Err(Error::InvalidAddress(_))),
                "{url}: {got:?}"
            ),
        }
    }
}

#[tokio::test]
async fn visibility_timeout_runs_on_the_manual_clock() {
    let (sqs, clock) = sqs_at_t0();
    let q = sqs
        .create_queue(
            &scope(),
            "vis",
            &attrs(&[("VisibilityTimeout", "30")]),
            &BTreeMap::new(),
        )
        .unwrap();
    sqs.send_message(&q.arn, OutgoingMessage::new("hello"))
        .unwrap();
    let first = sqs.receive_message(&q.arn, receive_all()).await.unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].attributes["ApproximateReceiveCount"], "1");
    assert!(sqs
        .receive_message(&q.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
    let counts = sqs
        .get_queue_attributes(&q.arn, &["ApproximateNumberOfMessagesNotVisible".into()])
        .unwrap();
    assert_eq!(counts["ApproximateNumberOfMessagesNotVisible"], "1");
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(29))
        .unwrap();
    assert!(sqs
        .receive_message(&q.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(1))
        .unwrap();
    let again = sqs.receive_message(&q.arn, receive_all()).await.unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attributes["ApproximateReceiveCount"], "2");
    assert_ne!(again[0].receipt_handle, first[0].receipt_handle);
    // A standard queue deletes with an older handle too.
    sqs.delete_message(&q.arn, &first[0].receipt_handle)
        .unwrap();
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(60))
        .unwrap();
    assert!(sqs
        .receive_message(&q.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn delays_and_retention_follow_domain_time() {
    let (sqs, clock) = sqs_at_t0();
    let q = sqs
        .create_queue(
            &scope(),
            "delay",
            &attrs(&[("MessageRetentionPeriod", "60")]),
            &BTreeMap::new(),
        )
        .unwrap();
    let mut m = OutgoingMessage::new("later");
    m.delay_seconds = Some(10);
    sqs.send_message(&q.arn, m).unwrap();
    let counts = sqs.get_queue_attributes(&q.arn, &["All".into()]).unwrap();
    assert_eq!(counts["ApproximateNumberOfMessagesDelayed"], "1");
    assert!(sqs
        .receive_message(&q.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(10))
        .unwrap();
    let counts = sqs.get_queue_attributes(&q.arn, &["All".into()]).unwrap();
    assert_eq!(counts["ApproximateNumberOfMessages"], "1");
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(50))
        .unwrap();
    let counts = sqs.get_queue_attributes(&q.arn, &["All".into()]).unwrap();
    assert_eq!(counts["ApproximateNumberOfMessages"], "0");
}

#[tokio::test]
async fn fifo_blocks_a_group_while_it_has_messages_in_flight() {
    let (sqs, _) = sqs_at_t0();
    let q = sqs
        .create_queue(
            &scope(),
            "order.fifo",
            &attrs(&[("FifoQueue", "true"), ("ContentBasedDeduplication", "true")]),
            &BTreeMap::new(),
        )
        .unwrap();
    let send = |body: &str, group: &str| {
        let mut m = OutgoingMessage::new(body);
        m.message_group_id = Some(group.into());
        sqs.send_message(&q.arn, m).unwrap()
    };
    let a1 = send("a1", "a");
    send("b1", "b");
    send("a2", "a");
    let dup = send("a1", "a");
    assert_eq!(dup.message_id, a1.message_id, "deduplicated by body");
    let one = ReceiveMessageInput {
        max_number_of_messages: Some(1),
        ..receive_all()
    };
    let r1 = sqs.receive_message(&q.arn, one.clone()).await.unwrap();
    assert_eq!(r1[0].body, "a1");
    // Group a is blocked while a1 is in flight: b1 comes next, then nothing.
    let r2 = sqs.receive_message(&q.arn, receive_all()).await.unwrap();
    assert_eq!(
        r2.iter().map(|m| m.body.as_str()).collect::<Vec<_>>(),
        ["b1"]
    );
    assert!(sqs
        .receive_message(&q.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
    sqs.delete_message(&q.arn, &r1[0].receipt_handle).unwrap();
    let r3 = sqs.receive_message(&q.arn, receive_all()).await.unwrap();
    assert_eq!(r3[0].body, "a2");
    assert!(r3[0].attributes.contains_key("SequenceNumber"));
    assert_eq!(r3[0].attributes["MessageGroupId"], "a");
}

#[test]
fn fifo_send_errors_use_aws_texts() {
    let (sqs, _) = sqs_at_t0();
    let q = sqs
        .create_queue(
            &scope(),
            "e.fifo",
            &attrs(&[("FifoQueue", "true")]),
            &BTreeMap::new(),
        )
        .unwrap();
    assert_eq!(
        sqs.send_message(&q.arn, OutgoingMessage::new("x")),
        Err(Error::MissingParameter(
            "The request must contain the parameter MessageGroupId.".into()
        ))
    );
    let mut m = OutgoingMessage::new("x");
    m.message_group_id = Some("g".into());
    assert_eq!(
        sqs.send_message(&q.arn, m.clone()),
        Err(Error::InvalidParameterValue(
            "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly".into()
        ))
    );
    m.delay_seconds = Some(2);
    m.message_deduplication_id = Some("d".into());
    assert_eq!(
        sqs.send_message(&q.arn, m),
        Err(Error::InvalidParameterValue(
            "Value 2 for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.".into()
        ))
    );
}

#[tokio::test]
async fn redrive_moves_a_message_past_max_receive_count() {
    let (sqs, _) = sqs_at_t0();
    let dlq = sqs
        .create_queue(&scope(), "dlq", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    let policy = format!(
        r#"{{"deadLetterTargetArn":"{}","maxReceiveCount":"2"}}"#,
        dlq.arn
    );
    let src = sqs
        .create_queue(
            &scope(),
            "src",
            &attrs(&[("RedrivePolicy", &policy), ("VisibilityTimeout", "0")]),
            &BTreeMap::new(),
        )
        .unwrap();
    let shown = sqs
        .get_queue_attributes(&src.arn, &["RedrivePolicy".into()])
        .unwrap();
    assert_eq!(
        shown["RedrivePolicy"],
        format!(
            r#"{{"deadLetterTargetArn":"{}","maxReceiveCount":2}}"#,
            dlq.arn
        )
    );
    let sent = sqs
        .send_message(&src.arn, OutgoingMessage::new("poison"))
        .unwrap();
    for _ in 0..2 {
        assert_eq!(
            sqs.receive_message(&src.arn, receive_all())
                .await
                .unwrap()
                .len(),
            1
        );
    }
    assert!(sqs
        .receive_message(&src.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
    let dead = sqs.receive_message(&dlq.arn, receive_all()).await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].message_id, sent.message_id);
    assert_eq!(dead[0].attributes["ApproximateReceiveCount"], "3");
    assert_eq!(dead[0].attributes["DeadLetterQueueSourceArn"], src.arn);
    assert_eq!(
        sqs.list_dead_letter_source_queues(&dlq.arn).unwrap(),
        vec![src.url.clone()]
    );
}

#[test]
fn redrive_policy_errors() {
    let (sqs, _) = sqs_at_t0();
    let fifo_dlq = sqs
        .create_queue(
            &scope(),
            "d.fifo",
            &attrs(&[("FifoQueue", "true")]),
            &BTreeMap::new(),
        )
        .unwrap();
    for (policy, reason) in [
        (r#"{"maxReceiveCount":1}"#.to_string(), "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
        (r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nope"}"#.to_string(), "Redrive policy does not contain mandatory attribute: maxReceiveCount."),
        (r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nope","maxReceiveCount":1001}"#.to_string(), "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."),
        (r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nope","maxReceiveCount":3}"#.to_string(), "Dead letter target does not exist."),
        (format!(r#"{{"deadLetterTargetArn":"{}","maxReceiveCount":3}}"#, fifo_dlq.arn), "Dead-letter queue must be same type of queue as the source."),
    ] {
        let err = sqs
            .create_queue(&scope(), "src", &attrs(&[("RedrivePolicy", &policy)]), &BTreeMap::new())
            .unwrap_err();
        match err {
            Error::InvalidParameterValue(m) => assert!(m.ends_with(reason), "{m}"),
            other => panic!("{policy}: {other:?}"),
        }
    }
}

#[test]
fn receipt_handle_errors() {
    let (sqs, _) = sqs_at_t0();
    let q = sqs
        .create_queue(&scope(), "rh", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    assert_eq!(
        sqs.delete_message(&q.arn, "garbage"),
        Err(Error::ReceiptHandleIsInvalid(
            "The input receipt handle \"garbage\" is not a valid receipt handle.".into()
        ))
    );
    assert!(matches!(
        sqs.change_message_visibility(&q.arn, "garbage", 10),
        Err(Error::ReceiptHandleIsInvalid(_))
    ));
    assert!(matches!(
        sqs.change_message_visibility(&q.arn, "garbage", 43201),
        Err(Error::InvalidParameterValue(_))
    ));
}

#[test]
fn message_validation() {
    let (sqs, _) = sqs_at_t0();
    let q = sqs
        .create_queue(
            &scope(),
            "mv",
            &attrs(&[("MaximumMessageSize", "1024")]),
            &BTreeMap::new(),
        )
        .unwrap();
    assert_eq!(
        sqs.send_message(&q.arn, OutgoingMessage::new("")),
        Err(Error::MissingParameter(
            "The request must contain the parameter MessageBody.".into()
        ))
    );
    assert_eq!(
        sqs.send_message(&q.arn, OutgoingMessage::new("x".repeat(1025))),
        Err(Error::InvalidParameterValue(
            "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes."
                .into()
        ))
    );
    assert!(matches!(
        sqs.send_message(&q.arn, OutgoingMessage::new("bad \u{0} char")),
        Err(Error::InvalidMessageContents(_))
    ));
    assert_eq!(
        sqs.send_message(&q.arn, OutgoingMessage::new("x").with_string_attribute("ErrorDetails", "")),
        Err(Error::InvalidParameterValue(
            "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'.".into()
        ))
    );
    let mut dedup = OutgoingMessage::new("x");
    dedup.message_deduplication_id = Some("d".into());
    assert!(matches!(
        sqs.send_message(&q.arn, dedup),
        Err(Error::InvalidParameterValue(_))
    ));
    let mut group = OutgoingMessage::new("x");
    group.message_group_id = Some("group 123".into());
    assert_eq!(
        sqs.send_message(&q.arn, group),
        Err(Error::InvalidParameterValue(
            "Value group 123 for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.".into()
        ))
    );
    let mut delay = OutgoingMessage::new("x");
    delay.delay_seconds = Some(901);
    assert!(matches!(
        sqs.send_message(&q.arn, delay),
        Err(Error::InvalidParameterValue(_))
    ));
    assert_eq!(
        sqs.send_message(
            "arn:aws:sqs:us-east-1:000000000000:missing",
            OutgoingMessage::new("x")
        ),
        Err(Error::QueueDoesNotExist)
    );
    assert_eq!(
        sqs.send_message("not an arn", OutgoingMessage::new("x")),
        Err(Error::QueueDoesNotExist)
    );
}

#[test]
fn batches_are_validated() {
    let (sqs, _) = sqs_at_t0();
    let q = sqs
        .create_queue(&scope(), "b", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    let entry = |id: &str| BatchEntry {
        id: id.to_string(),
        value: OutgoingMessage::new("x"),
    };
    assert!(matches!(
        sqs.send_message_batch(&q.arn, vec![]),
        Err(Error::EmptyBatchRequest(_))
    ));
    assert_eq!(
        sqs.send_message_batch(&q.arn, (0..11).map(|i| entry(&i.to_string())).collect()),
        Err(Error::TooManyEntriesInBatchRequest(
            "Maximum number of entries per request are 10. You have sent 11.".into()
        ))
    );
    assert!(matches!(
        sqs.send_message_batch(&q.arn, vec![entry("a"), entry("a")]),
        Err(Error::BatchEntryIdsNotDistinct(_))
    ));
    assert!(matches!(
        sqs.send_message_batch(&q.arn, vec![entry("invalid:id")]),
        Err(Error::InvalidBatchEntryId(_))
    ));
    let mut bad = entry("bad");
    bad.value.body = String::new();
    let res = sqs
        .send_message_batch(&q.arn, vec![entry("ok"), bad])
        .unwrap();
    assert!(res[0].1.is_ok());
    assert!(matches!(res[1].1, Err(Error::MissingParameter(_))));
}

#[test]
fn list_queues_pages_in_name_order() {
    let (sqs, _) = sqs_at_t0();
    for i in 0..5 {
        sqs.create_queue(
            &scope(),
            &format!("page-{i}"),
            &attrs(&[]),
            &BTreeMap::new(),
        )
        .unwrap();
    }
    sqs.create_queue(&scope(), "other", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    sqs.create_queue(
        &Scope::new("000000000000", "eu-west-1"),
        "page-x",
        &attrs(&[]),
        &BTreeMap::new(),
    )
    .unwrap();
    let (all, token) = sqs
        .list_queues(&scope(), Some("page-"), None, None)
        .unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(token, None);
    let (first, token) = sqs
        .list_queues(&scope(), Some("page-"), Some(2), None)
        .unwrap();
    assert!(first[0].ends_with("/page-0") && first[1].ends_with("/page-1"));
    let (rest, token) = sqs
        .list_queues(&scope(), Some("page-"), Some(3), token.as_deref())
        .unwrap();
    assert_eq!(rest.len(), 3);
    assert!(rest[2].ends_with("/page-4"));
    assert_eq!(token, None);
    assert!(sqs.list_queues(&scope(), None, Some(0), None).is_err());
    assert!(sqs.list_queues(&scope(), None, None, Some("!!")).is_err());
}

#[test]
fn purge_is_limited_to_once_a_minute() {
    let (sqs, clock) = sqs_at_t0();
    let q = sqs
        .create_queue(&scope(), "p", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    sqs.send_message(&q.arn, OutgoingMessage::new("x")).unwrap();
    sqs.purge_queue(&q.arn).unwrap();
    assert_eq!(
        sqs.purge_queue(&q.arn),
        Err(Error::PurgeQueueInProgress(
            "Only one PurgeQueue operation on p is allowed every 60 seconds.".into()
        ))
    );
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(60))
        .unwrap();
    sqs.purge_queue(&q.arn).unwrap();
}

#[tokio::test]
async fn long_poll_wakes_on_send() {
    let (sqs, _) = sqs_at_t0();
    let q = sqs
        .create_queue(&scope(), "lp", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    let poller = tokio::spawn({
        let sqs = sqs.clone();
        let arn = q.arn.clone();
        async move {
            sqs.receive_message(
                &arn,
                ReceiveMessageInput {
                    wait_time_seconds: Some(20),
                    ..Default::default()
                },
            )
            .await
        }
    });
    tokio::task::yield_now().await;
    sqs.send_message(&q.arn, OutgoingMessage::new("wake"))
        .unwrap();
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), poller)
        .await
        .expect("the long poll returned before its 20 s wait")
        .unwrap()
        .unwrap();
    assert_eq!(got[0].body, "wake");
}

#[tokio::test]
async fn queues_and_messages_survive_a_restart_over_a_durable_store() {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap());
    let storage = crate::services::test_backend::storage();
    let before = Sqs::new(
        clock.clone(),
        IdGen::seeded(1),
        storage.clone(),
        Endpoint::default(),
    );
    let fifo = before
        .create_queue(
            &scope(),
            "keep.fifo",
            &attrs(&[("FifoQueue", "true")]),
            &BTreeMap::new(),
        )
        .unwrap();
    let plain = before
        .create_queue(&scope(), "keep", &attrs(&[]), &BTreeMap::new())
        .unwrap();
    let mut m = OutgoingMessage::new("first");
    m.message_group_id = Some("g".into());
    m.message_deduplication_id = Some("d1".into());
    let first = before.send_message(&fifo.arn, m.clone()).unwrap();
    before
        .send_message(&plain.arn, OutgoingMessage::new("in flight"))
        .unwrap();
    let taken = before
        .receive_message(&plain.arn, receive_all())
        .await
        .unwrap();
    before
        .send_message(&plain.arn, OutgoingMessage::new("gone"))
        .unwrap();
    let gone = before
        .receive_message(&plain.arn, receive_all())
        .await
        .unwrap();
    before
        .delete_message(&plain.arn, &gone[0].receipt_handle)
        .unwrap();

    let after = Sqs::new(
        clock.clone(),
        IdGen::seeded(2),
        storage,
        Endpoint::default(),
    );
    assert_eq!(after.queue_by_arn(&fifo.arn).unwrap(), fifo);
    m.message_deduplication_id = Some("d2".into());
    let second = after.send_message(&fifo.arn, m).unwrap();
    assert!(second.sequence_number > first.sequence_number);
    let got = after
        .receive_message(&fifo.arn, receive_all())
        .await
        .unwrap();
    let numbers: Vec<_> = got
        .iter()
        .map(|m| m.attributes["SequenceNumber"].clone())
        .collect();
    assert_eq!(
        numbers,
        [
            first.sequence_number.clone().unwrap(),
            second.sequence_number.clone().unwrap()
        ],
        "the group keeps its order across the restart"
    );
    assert!(after
        .receive_message(&plain.arn, receive_all())
        .await
        .unwrap()
        .is_empty());
    after
        .delete_message(&plain.arn, &taken[0].receipt_handle)
        .unwrap();
    let counts = after
        .get_queue_attributes(&plain.arn, &["All".into()])
        .unwrap();
    assert_eq!(counts["ApproximateNumberOfMessagesNotVisible"], "0");
    assert_eq!(counts["ApproximateNumberOfMessages"], "0");
}
