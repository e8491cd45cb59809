//! Table tests of the SNS core: topics, subscriptions, validation texts, fan-out to SQS with
//! the envelope, raw delivery, filter policies, FIFO.

use chrono::TimeZone;

use super::*;
use crate::ids::Endpoint;
use crate::services::sqs::ReceiveMessageInput;

const ACCOUNT: &str = "000000000000";

fn setup() -> (Sns, Sqs) {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap());
    let ids = IdGen::seeded(5);
    let sqs = Sqs::new(
        clock.clone(),
        ids.clone(),
        Storage::memory(),
        Endpoint::default(),
    );
    let sns = Sns::new(clock, ids, Storage::memory(), sqs.clone());
    (sns, sqs)
}

fn scope() -> Scope {
    Scope::default_scope()
}

fn no_attrs() -> IndexMap<String, String> {
    IndexMap::new()
}

fn queue(sqs: &Sqs, name: &str) -> String {
    let attrs: IndexMap<String, String> = if name.ends_with(".fifo") {
        [("FifoQueue".to_string(), "true".to_string())]
            .into_iter()
            .collect()
    } else {
        IndexMap::new()
    };
    sqs.create_queue(&scope(), name, &attrs, &BTreeMap::new())
        .unwrap()
        .arn
}

async fn bodies(sqs: &Sqs, arn: &str) -> Vec<crate::services::sqs::ReceivedMessage> {
    sqs.receive_message(
        arn,
        ReceiveMessageInput {
            max_number_of_messages: Some(10),
            wait_time_seconds: Some(0),
            message_attribute_names: vec!["All".into()],
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

fn subscribe(sns: &Sns, topic: &str, queue: &str, attrs: &[(&str, &str)]) -> String {
    sns.subscribe(
        ACCOUNT,
        SubscribeInput {
            topic_arn: topic.to_string(),
            protocol: "sqs".into(),
            endpoint: queue.to_string(),
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            return_subscription_arn: false,
        },
    )
    .unwrap()
}

#[tokio::test]
async fn publish_delivers_the_envelope_to_sqs_subscribers() {
    let (sns, sqs) = setup();
    let topic = sns.create_topic(&scope(), "t", &no_attrs(), &[]).unwrap();
    assert_eq!(topic, "arn:aws:sns:us-east-1:000000000000:t");
    let q = queue(&sqs, "q");
    let sub = subscribe(&sns, &topic, &q, &[]);
    assert!(sub.starts_with(&format!("{topic}:")));
    let mut input = PublishInput::new("hello \"world\"");
    input.subject = Some("greetings".into());
    input.message_attributes = vec![("k".into(), PublishAttribute::string("v"))];
    let published = sns.publish(&topic, input).unwrap();
    let got = bodies(&sqs, &q).await;
    assert_eq!(got.len(), 1);
    let env: serde_json::Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(env["Type"], "Notification");
    assert_eq!(env["MessageId"], published.message_id.as_str());
    assert_eq!(env["TopicArn"], topic.as_str());
    assert_eq!(env["Subject"], "greetings");
    assert_eq!(env["Message"], "hello \"world\"");
    assert_eq!(env["Timestamp"], "2030-01-01T12:00:00.000Z");
    assert_eq!(env["SignatureVersion"], "1");
    assert!(env["Signature"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(
        env["UnsubscribeURL"],
        format!("http://localhost:4566/?Action=Unsubscribe&SubscriptionArn={sub}")
    );
    assert_eq!(
        env["MessageAttributes"]["k"],
        serde_json::json!({"Type": "String", "Value": "v"})
    );
    assert!(got[0]
        .body
        .starts_with("{\n  \"Type\" : \"Notification\",\n  \"MessageId\" : "));
    assert!(got[0].message_attributes.is_empty());
}

#[tokio::test]
async fn raw_delivery_filters_and_message_structure() {
    let (sns, sqs) = setup();
    let topic = sns.create_topic(&scope(), "raw", &no_attrs(), &[]).unwrap();
    let raw_q = queue(&sqs, "raw-q");
    let filtered_q = queue(&sqs, "filtered-q");
    subscribe(&sns, &topic, &raw_q, &[("RawMessageDelivery", "true")]);
    subscribe(
        &sns,
        &topic,
        &filtered_q,
        &[("FilterPolicy", r#"{"kind":["wanted"]}"#)],
    );
    let mut unwanted = PublishInput::new("one");
    unwanted.message_attributes = vec![("kind".into(), PublishAttribute::string("other"))];
    sns.publish(&topic, unwanted).unwrap();
    let mut wanted = PublishInput::new(r#"{"default":"fallback","sqs":"for sqs"}"#);
    wanted.message_structure = Some("json".into());
    wanted.message_attributes = vec![("kind".into(), PublishAttribute::string("wanted"))];
    sns.publish(&topic, wanted).unwrap();
    let raw = bodies(&sqs, &raw_q).await;
    assert_eq!(raw.len(), 2);
    assert_eq!(raw[0].body, "one");
    assert_eq!(
        raw[0].message_attributes["kind"].string_value.as_deref(),
        Some("other")
    );
    assert_eq!(raw[1].body, "for sqs");
    let filtered = bodies(&sqs, &filtered_q).await;
    assert_eq!(filtered.len(), 1);
    let env: serde_json::Value = serde_json::from_str(&filtered[0].body).unwrap();
    assert_eq!(env["Message"], "for sqs");
}

#[tokio::test]
async fn failed_deliveries_go_to_the_subscription_dead_letter_queue() {
    let (sns, sqs) = setup();
    let topic = sns.create_topic(&scope(), "dl", &no_attrs(), &[]).unwrap();
    let dlq = queue(&sqs, "sub-dlq");
    let policy = format!(r#"{{"deadLetterTargetArn":"{dlq}"}}"#);
    subscribe(
        &sns,
        &topic,
        "arn:aws:sqs:us-east-1:000000000000:gone",
        &[("RedrivePolicy", &policy), ("RawMessageDelivery", "true")],
    );
    sns.publish(&topic, PublishInput::new("lost")).unwrap();
    let got = bodies(&sqs, &dlq).await;
    assert_eq!(got[0].body, "lost");
}

#[tokio::test]
async fn fifo_topics_need_groups_and_deduplicate() {
    let (sns, sqs) = setup();
    let attrs: IndexMap<String, String> = [("FifoTopic".to_string(), "true".to_string())]
        .into_iter()
        .collect();
    let topic = sns.create_topic(&scope(), "f.fifo", &attrs, &[]).unwrap();
    let q = queue(&sqs, "f.fifo");
    subscribe(&sns, &topic, &q, &[]);
    assert_eq!(
        sns.publish(&topic, PublishInput::new("x")),
        Err(Error::InvalidParameter(
            "Invalid parameter: The MessageGroupId parameter is required for FIFO topics".into()
        ))
    );
    let mut m = PublishInput::new("x");
    m.message_group_id = Some("g".into());
    assert!(matches!(
        sns.publish(&topic, m.clone()),
        Err(Error::InvalidParameter(_))
    ));
    m.message_deduplication_id = Some("d".into());
    let first = sns.publish(&topic, m.clone()).unwrap();
    assert!(first.sequence_number.is_some());
    let again = sns.publish(&topic, m).unwrap();
    assert_eq!(again, first);
    assert_eq!(bodies(&sqs, &q).await.len(), 1);
    let std_topic = sns.create_topic(&scope(), "s", &no_attrs(), &[]).unwrap();
    let err = sns
        .subscribe(
            ACCOUNT,
            SubscribeInput {
                topic_arn: std_topic,
                protocol: "sqs".into(),
                endpoint: q,
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(err
        .message()
        .contains("FIFO SQS Queues can not be subscribed to standard SNS topics"));
}

#[test]
fn topic_and_subscription_errors_use_aws_texts() {
    let (sns, _) = setup();
    for (name, fifo) in [
        ("", false),
        ("bad name", false),
        ("x.fifo", false),
        ("nofifo", true),
    ] {
        let attrs: IndexMap<String, String> = if fifo {
            [("FifoTopic".to_string(), "true".to_string())]
                .into_iter()
                .collect()
        } else {
            IndexMap::new()
        };
        assert_eq!(
            sns.create_topic(&scope(), name, &attrs, &[]),
            Err(Error::InvalidParameter(
                "Invalid parameter: Topic Name".into()
            )),
            "{name}"
        );
    }
    assert!(sns
        .create_topic(&scope(), &"a".repeat(256), &no_attrs(), &[])
        .is_ok());
    let topic = sns.create_topic(&scope(), "t", &no_attrs(), &[]).unwrap();
    let display: IndexMap<String, String> = [("DisplayName".to_string(), "x".to_string())]
        .into_iter()
        .collect();
    assert_eq!(
        sns.create_topic(&scope(), "t", &display, &[]),
        Err(Error::InvalidParameter(
            "Invalid parameter: Attributes Reason: Topic already exists with different attributes"
                .into()
        ))
    );
    assert_eq!(
        sns.create_topic(
            &scope(),
            "t",
            &no_attrs(),
            &[("k".into(), "1".into()), ("k".into(), "2".into())]
        ),
        Err(Error::InvalidParameter(
            "Invalid parameter: Duplicated keys are not allowed.".into()
        ))
    );
    assert_eq!(
        sns.get_topic_attributes("arn:aws:sns:us-east-1:000000000000:nope"),
        Err(Error::NotFound("Topic does not exist".into()))
    );
    assert_eq!(
        sns.get_topic_attributes("nope"),
        Err(Error::InvalidParameter(
            "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"
                .into()
        ))
    );
    assert_eq!(
        sns.publish(&topic, PublishInput::new("")),
        Err(Error::InvalidParameter(
            "Invalid parameter: Empty message".into()
        ))
    );
    assert_eq!(
        sns.publish(&topic, PublishInput::new("x".repeat(262_145))),
        Err(Error::InvalidParameter(
            "Invalid parameter: Message too long".into()
        ))
    );
    let mut empty_subject = PublishInput::new("x");
    empty_subject.subject = Some(String::new());
    assert_eq!(
        sns.publish(&topic, empty_subject),
        Err(Error::InvalidParameter("Invalid parameter: Subject".into()))
    );
    let mut bad_structure = PublishInput::new(r#"{"sqs":"x"}"#);
    bad_structure.message_structure = Some("json".into());
    assert_eq!(
        sns.publish(&topic, bad_structure),
        Err(Error::InvalidParameter(
            "Invalid parameter: Message Structure - No default entry in JSON message body".into()
        ))
    );
    let mut bad_attr = PublishInput::new("x");
    bad_attr.message_attributes = vec![("attr1".into(), PublishAttribute::string(""))];
    assert_eq!(
        sns.publish(&topic, bad_attr),
        Err(Error::ParameterValueInvalid(
            "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type 'String'.".into()
        ))
    );
    let mut bad_dedup = PublishInput::new("x");
    bad_dedup.message_deduplication_id = Some("d".into());
    assert!(sns.publish(&topic, bad_dedup).is_err());
    assert_eq!(
        sns.publish(
            "arn:aws:sns:us-east-1:000000000000:gone",
            PublishInput::new("x")
        ),
        Err(Error::NotFound("Topic does not exist".into()))
    );
    let sub = |protocol: &str, endpoint: &str, attrs: &[(&str, &str)]| {
        sns.subscribe(
            ACCOUNT,
            SubscribeInput {
                topic_arn: topic.clone(),
                protocol: protocol.into(),
                endpoint: endpoint.into(),
                attributes: attrs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                return_subscription_arn: false,
            },
        )
    };
    assert_eq!(
        sub("test-protocol", "x", &[]),
        Err(Error::InvalidParameter(
            "Invalid parameter: Amazon SNS does not support this protocol string: test-protocol"
                .into()
        ))
    );
    assert_eq!(
        sub("sqs", "http://localhost:4566/000000000000/q", &[]),
        Err(Error::InvalidParameter(
            "Invalid parameter: SQS endpoint ARN".into()
        ))
    );
    assert_eq!(
        sub("sqs", "arn:aws:sqs:us-east-1:000000000000:q", &[("RawMessageDelivery", "wrongvalue")]),
        Err(Error::InvalidParameter(
            "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [wrongvalue]. Must be true or false.".into()
        ))
    );
    let first = sub(
        "sqs",
        "arn:aws:sqs:us-east-1:000000000000:q",
        &[("RawMessageDelivery", "true")],
    )
    .unwrap();
    assert_eq!(
        sub("sqs", "arn:aws:sqs:us-east-1:000000000000:q", &[]).unwrap(),
        first
    );
    assert_eq!(
        sub("sqs", "arn:aws:sqs:us-east-1:000000000000:q", &[("RawMessageDelivery", "false")]),
        Err(Error::InvalidParameter(
            "Invalid parameter: Attributes Reason: Subscription already exists with different attributes".into()
        ))
    );
    assert_eq!(
        sub("https", "https://example.com/hook", &[]).unwrap(),
        "pending confirmation"
    );
    assert_eq!(
        sns.set_subscription_attributes(&first, "Bogus", "x"),
        Err(Error::InvalidParameter(
            "Invalid parameter: AttributeName".into()
        ))
    );
    assert_eq!(
        sns.get_subscription_attributes(&format!("{topic}:00000000-0000-0000-0000-000000000000")),
        Err(Error::NotFound("Subscription does not exist".into()))
    );
    assert_eq!(
        sns.unsubscribe("arn:aws:sns:us-east-1:000000000000"),
        Err(Error::InvalidParameter(
            "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 5".into()
        ))
    );
    let attrs = sns.get_topic_attributes(&topic).unwrap();
    assert_eq!(attrs["SubscriptionsConfirmed"], "1");
    assert_eq!(attrs["SubscriptionsPending"], "1");
    sns.delete_topic(&topic).unwrap();
    assert!(sns.get_subscription_attributes(&first).is_err());
    sns.delete_topic(&topic).unwrap();
}

#[test]
fn topics_and_subscriptions_survive_a_restart_over_a_durable_store() {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap());
    let storage = crate::services::test_backend::storage();
    let sqs = Sqs::new(
        clock.clone(),
        IdGen::seeded(1),
        storage.clone(),
        Endpoint::default(),
    );
    let before = Sns::new(
        clock.clone(),
        IdGen::seeded(1),
        storage.clone(),
        sqs.clone(),
    );
    let topic = before
        .create_topic(&scope(), "kept", &no_attrs(), &[("k".into(), "v".into())])
        .unwrap();
    let sub = subscribe(&before, &topic, "arn:aws:sqs:us-east-1:000000000000:q", &[]);
    let after = Sns::new(clock, IdGen::seeded(2), storage, sqs);
    assert_eq!(
        after.get_subscription_attributes(&sub).unwrap()["TopicArn"],
        topic
    );
    assert_eq!(
        after.list_tags_for_resource(&topic).unwrap(),
        vec![("k".to_string(), "v".to_string())]
    );
    after.delete_topic(&topic).unwrap();
    assert!(after.get_subscription_attributes(&sub).is_err());
}
