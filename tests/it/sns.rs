//! SNS over the wire (awsQuery) with the AWS SDK for Rust: topics, subscriptions, Publish fanning
//! out to SQS with the notification envelope or raw, filter policies, FIFO, and the errors AWS
//! returns.

use aws_sdk_sns::error::ProvideErrorMetadata;
use aws_sdk_sns::types::{MessageAttributeValue, PublishBatchRequestEntry, Tag};
use aws_sdk_sqs::types::QueueAttributeName;

use crate::support::Emulator;

async fn clients(emu: &Emulator) -> (aws_sdk_sns::Client, aws_sdk_sqs::Client) {
    let config = emu.sdk_config().await;
    (
        aws_sdk_sns::Client::new(&config),
        aws_sdk_sqs::Client::new(&config),
    )
}

async fn queue(sqs: &aws_sdk_sqs::Client, name: &str) -> (String, String) {
    let mut req = sqs.create_queue().queue_name(name);
    if name.ends_with(".fifo") {
        req = req.attributes(QueueAttributeName::FifoQueue, "true");
    }
    let url = req.send().await.unwrap().queue_url.unwrap();
    let arn = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap()[&QueueAttributeName::QueueArn]
        .clone();
    (url, arn)
}

async fn drain(sqs: &aws_sdk_sqs::Client, url: &str) -> Vec<aws_sdk_sqs::types::Message> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .message_attribute_names("All")
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default()
}

fn code_of<E: ProvideErrorMetadata>(err: &E) -> (String, String) {
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn publish_fans_out_to_an_sqs_subscriber_with_the_envelope() {
    let emu = Emulator::start().await;
    let (sns, sqs) = clients(&emu).await;
    let topic = sns
        .create_topic()
        .name("orders")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    assert_eq!(topic, "arn:aws:sns:us-east-1:000000000000:orders");
    let (url, arn) = queue(&sqs, "orders-q").await;
    let sub = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&arn)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    assert!(sub.starts_with(&format!("{topic}:")), "{sub}");
    let published = sns
        .publish()
        .topic_arn(&topic)
        .message("an order")
        .subject("New order")
        .message_attributes(
            "kind",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("book")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let got = drain(&sqs, &url).await;
    assert_eq!(got.len(), 1);
    let env: serde_json::Value = serde_json::from_str(got[0].body.as_deref().unwrap()).unwrap();
    assert_eq!(env["Type"], "Notification");
    assert_eq!(env["MessageId"], published.message_id.unwrap().as_str());
    assert_eq!(env["TopicArn"], topic.as_str());
    assert_eq!(env["Subject"], "New order");
    assert_eq!(env["Message"], "an order");
    assert_eq!(env["Timestamp"], "2030-01-01T12:00:00.000Z");
    assert_eq!(env["SignatureVersion"], "1");
    assert!(env["SigningCertURL"]
        .as_str()
        .unwrap()
        .starts_with("https://sns.us-east-1.amazonaws.com/"));
    assert_eq!(
        env["UnsubscribeURL"],
        format!("{}/?Action=Unsubscribe&SubscriptionArn={sub}", emu.endpoint)
    );
    assert_eq!(env["MessageAttributes"]["kind"]["Type"], "String");
    assert_eq!(env["MessageAttributes"]["kind"]["Value"], "book");

    let attrs = sns
        .get_subscription_attributes()
        .subscription_arn(&sub)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(attrs["Protocol"], "sqs");
    assert_eq!(attrs["Endpoint"], arn);
    assert_eq!(attrs["PendingConfirmation"], "false");
    assert_eq!(attrs["RawMessageDelivery"], "false");

    sns.set_subscription_attributes()
        .subscription_arn(&sub)
        .attribute_name("RawMessageDelivery")
        .attribute_value("true")
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("raw body")
        .send()
        .await
        .unwrap();
    let got = drain(&sqs, &url).await;
    assert_eq!(got[0].body.as_deref(), Some("raw body"));

    sns.unsubscribe()
        .subscription_arn(&sub)
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("nobody")
        .send()
        .await
        .unwrap();
    assert!(drain(&sqs, &url).await.is_empty());
}

#[tokio::test]
async fn topics_list_attributes_tags_and_deletion() {
    let emu = Emulator::start().await;
    let (sns, sqs) = clients(&emu).await;
    let topic = sns
        .create_topic()
        .name("meta")
        .attributes("DisplayName", "Meta")
        .tags(Tag::builder().key("team").value("a").build().unwrap())
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let again = sns
        .create_topic()
        .name("meta")
        .attributes("DisplayName", "Meta")
        .send()
        .await
        .unwrap();
    assert_eq!(again.topic_arn.as_deref(), Some(topic.as_str()));
    let attrs = sns
        .get_topic_attributes()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(attrs["DisplayName"], "Meta");
    assert_eq!(attrs["Owner"], "000000000000");
    assert_eq!(attrs["SubscriptionsConfirmed"], "0");
    let policy: serde_json::Value = serde_json::from_str(&attrs["Policy"]).unwrap();
    assert_eq!(policy["Statement"][0]["Resource"], topic.as_str());
    sns.set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("DisplayName")
        .attribute_value("Renamed")
        .send()
        .await
        .unwrap();
    let listed = sns.list_topics().send().await.unwrap().topics.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].topic_arn.as_deref(), Some(topic.as_str()));
    sns.tag_resource()
        .resource_arn(&topic)
        .tags(Tag::builder().key("env").value("dev").build().unwrap())
        .send()
        .await
        .unwrap();
    sns.untag_resource()
        .resource_arn(&topic)
        .tag_keys("team")
        .send()
        .await
        .unwrap();
    let tags = sns
        .list_tags_for_resource()
        .resource_arn(&topic)
        .send()
        .await
        .unwrap()
        .tags
        .unwrap();
    assert_eq!(tags.len(), 1);
    assert_eq!(tags[0].key, "env");

    let (_, arn) = queue(&sqs, "meta-q").await;
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&arn)
        .send()
        .await
        .unwrap();
    let pending = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("https")
        .endpoint("https://example.com/hook")
        .send()
        .await
        .unwrap();
    assert_eq!(
        pending.subscription_arn.as_deref(),
        Some("pending confirmation")
    );
    let subs = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap()
        .subscriptions
        .unwrap();
    assert_eq!(subs.len(), 2);
    assert_eq!(
        subs[1].subscription_arn.as_deref(),
        Some("PendingConfirmation")
    );
    assert_eq!(
        sns.list_subscriptions()
            .send()
            .await
            .unwrap()
            .subscriptions
            .unwrap()
            .len(),
        2
    );

    sns.delete_topic().topic_arn(&topic).send().await.unwrap();
    assert!(sns
        .list_subscriptions()
        .send()
        .await
        .unwrap()
        .subscriptions
        .unwrap_or_default()
        .is_empty());
    let err = sns
        .get_topic_attributes()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap_err();
    assert!(
        err.as_service_error().unwrap().is_not_found_exception(),
        "{err:?}"
    );
    assert_eq!(err.raw_response().unwrap().status().as_u16(), 404);
    assert_eq!(code_of(&err).1, "Topic does not exist");
}

#[tokio::test]
async fn errors_are_aws_shaped() {
    let emu = Emulator::start().await;
    let (sns, _) = clients(&emu).await;
    let topic = sns
        .create_topic()
        .name("e")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let err = sns
        .create_topic()
        .name("bad name")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err),
        (
            "InvalidParameter".into(),
            "Invalid parameter: Topic Name".into()
        )
    );
    assert!(err.into_service_error().is_invalid_parameter_exception());
    let err = sns
        .publish()
        .topic_arn(&topic)
        .message("")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).1, "Invalid parameter: Empty message");
    let err = sns
        .publish()
        .topic_arn("arn:aws:sns:us-east-1:000000000000:missing")
        .message("x")
        .send()
        .await
        .unwrap_err();
    assert!(err.as_service_error().unwrap().is_not_found_exception());
    let err = sns
        .publish()
        .topic_arn("arn:aws:sns:eu-west-1:000000000000:e")
        .message("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).1, "Invalid parameter: TopicArn");
    let err = sns
        .publish()
        .phone_number("+15551234567")
        .message("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).0, "InvalidParameter");
    let err = sns
        .publish()
        .topic_arn(&topic)
        .message("x")
        .message_attributes(
            "a",
            MessageAttributeValue::builder()
                .data_type("Weird")
                .string_value("v")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).0, "ParameterValueInvalid");
    assert!(err
        .into_service_error()
        .is_invalid_parameter_value_exception());
    let err = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("carrier-pigeon")
        .endpoint("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err).1,
        "Invalid parameter: Amazon SNS does not support this protocol string: carrier-pigeon"
    );
    let err = sns
        .get_subscription_attributes()
        .subscription_arn(format!("{topic}:0d9e1b8a-0000-0000-0000-000000000000"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).1, "Subscription does not exist");
    let err = sns
        .get_topic_attributes()
        .topic_arn("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err).1,
        "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"
    );
    let err = sns
        .list_tags_for_resource()
        .resource_arn("arn:aws:sns:us-east-1:000000000000:missing")
        .send()
        .await
        .unwrap_err();
    assert!(err
        .as_service_error()
        .unwrap()
        .is_resource_not_found_exception());
    let (status, _, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("authorization", "AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=x"),
            ],
            "Action=CreatePlatformApplication&Version=2010-03-31",
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("<Code>InvalidAction</Code>"), "{body}");
}

#[tokio::test]
async fn filter_policies_and_publish_batch() {
    let emu = Emulator::start().await;
    let (sns, sqs) = clients(&emu).await;
    let topic = sns
        .create_topic()
        .name("f")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let (url, arn) = queue(&sqs, "f-q").await;
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&arn)
        .attributes("FilterPolicy", r#"{"level":["error"]}"#)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    let entry = |id: &str, level: &str| {
        PublishBatchRequestEntry::builder()
            .id(id)
            .message(format!("{id} {level}"))
            .message_attributes(
                "level",
                MessageAttributeValue::builder()
                    .data_type("String")
                    .string_value(level)
                    .build()
                    .unwrap(),
            )
            .build()
            .unwrap()
    };
    let res = sns
        .publish_batch()
        .topic_arn(&topic)
        .publish_batch_request_entries(entry("one", "info"))
        .publish_batch_request_entries(entry("two", "error"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.successful.unwrap().len(), 2);
    let got = drain(&sqs, &url).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body.as_deref(), Some("two error"));
    assert_eq!(
        got[0].message_attributes.as_ref().unwrap()["level"]
            .string_value
            .as_deref(),
        Some("error")
    );
    let err = sns
        .publish_batch()
        .topic_arn(&topic)
        .publish_batch_request_entries(entry("same", "x"))
        .publish_batch_request_entries(entry("same", "y"))
        .send()
        .await
        .unwrap_err();
    assert!(err
        .into_service_error()
        .is_batch_entry_ids_not_distinct_exception());
}

#[tokio::test]
async fn fifo_topic_delivers_to_a_fifo_queue_in_order() {
    let emu = Emulator::start().await;
    let (sns, sqs) = clients(&emu).await;
    let topic = sns
        .create_topic()
        .name("events.fifo")
        .attributes("FifoTopic", "true")
        .attributes("ContentBasedDeduplication", "true")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let (url, arn) = queue(&sqs, "events.fifo").await;
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&arn)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap();
    for body in ["a", "b", "a"] {
        let res = sns
            .publish()
            .topic_arn(&topic)
            .message(body)
            .message_group_id("g")
            .send()
            .await
            .unwrap();
        assert!(res.sequence_number.is_some());
    }
    let got: Vec<_> = drain(&sqs, &url)
        .await
        .into_iter()
        .map(|m| m.body.unwrap())
        .collect();
    assert_eq!(got, ["a", "b"], "the repeated body was deduplicated");
    let err = sns
        .publish()
        .topic_arn(&topic)
        .message("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err).1,
        "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"
    );
}
