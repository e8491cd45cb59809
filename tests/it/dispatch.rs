//! The dispatcher, driven by the manual clock over HTTP: occurrences fire at their due
//! instants in order, targets receive exactly what AWS would send, failed attempts are retried
//! with the deterministic backoff and dead-lettered (`../shared/spec/000_*.txt`, spec README
//! "Decisions", `../shared/spec/extensions.md`).

use aws_sdk_scheduler::types::{
    ActionAfterCompletion, DeadLetterConfig, FlexibleTimeWindow, FlexibleTimeWindowMode,
    RetryPolicy, ScheduleState, SqsParameters, Target,
};
use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::support::{t0, Emulator};

const ROLE: &str = "arn:aws:iam::000000000000:role/cumulo-tests";

struct Fixture {
    emu: Emulator,
    scheduler: aws_sdk_scheduler::Client,
    sqs: aws_sdk_sqs::Client,
}

impl Fixture {
    async fn new() -> Fixture {
        let emu = Emulator::start().await;
        let scheduler = emu.scheduler().await;
        let sqs = emu.sqs().await;
        Fixture {
            emu,
            scheduler,
            sqs,
        }
    }

    /// Creates a queue; returns (url, arn).
    async fn queue(&self, name: &str, fifo: bool) -> (String, String) {
        let mut req = self.sqs.create_queue().queue_name(name);
        if fifo {
            req = req.attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true");
        }
        let url = req.send().await.unwrap().queue_url.unwrap();
        let arn = self
            .sqs
            .get_queue_attributes()
            .queue_url(&url)
            .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
            .send()
            .await
            .unwrap()
            .attributes
            .unwrap()[&aws_sdk_sqs::types::QueueAttributeName::QueueArn]
            .clone();
        (url, arn)
    }

    /// Receives and deletes everything in a queue; returns the messages.
    async fn drain(&self, url: &str) -> Vec<aws_sdk_sqs::types::Message> {
        let mut all = Vec::new();
        loop {
            let got = self
                .sqs
                .receive_message()
                .queue_url(url)
                .max_number_of_messages(10)
                .message_attribute_names("All")
                .send()
                .await
                .unwrap()
                .messages
                .unwrap_or_default();
            if got.is_empty() {
                return all;
            }
            for m in &got {
                self.sqs
                    .delete_message()
                    .queue_url(url)
                    .receipt_handle(m.receipt_handle().unwrap())
                    .send()
                    .await
                    .unwrap();
            }
            all.extend(got);
        }
    }

    async fn bodies(&self, url: &str) -> Vec<String> {
        self.drain(url)
            .await
            .into_iter()
            .map(|m| m.body.unwrap_or_default())
            .collect()
    }

    fn target(arn: &str, input: Option<&str>) -> aws_sdk_scheduler::types::builders::TargetBuilder {
        let mut t = Target::builder().arn(arn).role_arn(ROLE);
        if let Some(i) = input {
            t = t.input(i);
        }
        t
    }

    async fn create(&self, name: &str, expression: &str, target: Target) -> String {
        self.scheduler
            .create_schedule()
            .name(name)
            .schedule_expression(expression)
            .flexible_time_window(
                FlexibleTimeWindow::builder()
                    .mode(FlexibleTimeWindowMode::Off)
                    .build()
                    .unwrap(),
            )
            .target(target)
            .send()
            .await
            .unwrap()
            .schedule_arn
    }

    async fn invocations(&self, arn: &str) -> Vec<Value> {
        let (status, body) = self
            .emu
            .control(
                "GET",
                &format!(
                    "/_cumulo/scheduler/invocations?schedule_arn={}",
                    urlencode(arn)
                ),
                None,
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body["invocations"].as_array().unwrap().clone()
    }
}

fn urlencode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

fn at(t: DateTime<Utc>) -> String {
    t.format("at(%Y-%m-%dT%H:%M:%S)").to_string()
}

fn z(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[tokio::test]
async fn rate_fires_at_creation_then_every_interval_from_that_anchor() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("rate", false).await;
    let schedule = f
        .create(
            "rate",
            "rate(5 minutes)",
            Fixture::target(&arn, Some("<aws.scheduler.scheduled-time>"))
                .build()
                .unwrap(),
        )
        .await;
    let reply = f.emu.set_clock(t0() + Duration::seconds(30)).await;
    assert_eq!(reply["fired"][0]["schedule_arn"], schedule.as_str());
    assert_eq!(f.bodies(&url).await, [z(t0())]);
    f.emu.set_clock(t0() + Duration::seconds(1230)).await;
    let want: Vec<String> = [5, 10, 15, 20]
        .iter()
        .map(|m| z(t0() + Duration::minutes(*m)))
        .collect();
    assert_eq!(f.bodies(&url).await, want);
    let invs = f.invocations(&schedule).await;
    assert_eq!(invs.len(), 5);
    for inv in &invs {
        assert_eq!(
            inv["invoked_at"], inv["scheduled_time"],
            "each attempt sees the clock at its due time"
        );
        assert_eq!(inv["outcome"], "delivered");
        assert_eq!(
            inv["occurrence_key"],
            format!("{schedule}#{}", inv["scheduled_time"].as_str().unwrap())
        );
        assert_eq!(inv["possible_duplicate"], false);
        assert_eq!(inv["request"]["QueueUrl"], url.as_str());
    }
}

#[tokio::test]
async fn the_default_event_is_sent_without_input_and_keeps_its_id_per_occurrence() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("dflt", false).await;
    let due = t0() + Duration::minutes(1);
    let schedule = f
        .create(
            "dflt",
            &at(due),
            Fixture::target(&arn, None).build().unwrap(),
        )
        .await;
    f.emu.set_clock(due + Duration::seconds(1)).await;
    let body = f.bodies(&url).await.remove(0);
    let event: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(event["detail-type"], "Scheduled Event");
    assert_eq!(event["source"], "aws.scheduler");
    assert_eq!(event["detail"], "{}");
    assert_eq!(event["resources"], json!([schedule]));
    assert_eq!(event["time"], z(due));
    assert_eq!(event["account"], "000000000000");
    assert_eq!(event["region"], "us-east-1");
    assert_eq!(event["id"].as_str().unwrap().len(), 36);
}

#[tokio::test]
async fn failed_attempts_back_off_60_then_120_seconds_and_dead_letter_with_nine_attributes() {
    let f = Fixture::new().await;
    let (dlq_url, dlq_arn) = f.queue("dlq", false).await;
    let missing = "arn:aws:sqs:us-east-1:000000000000:missing";
    let due = t0() + Duration::minutes(1);
    let target = Fixture::target(missing, Some("payload"))
        .retry_policy(
            RetryPolicy::builder()
                .maximum_retry_attempts(2)
                .maximum_event_age_in_seconds(86400)
                .build(),
        )
        .dead_letter_config(DeadLetterConfig::builder().arn(&dlq_arn).build())
        .build()
        .unwrap();
    let schedule = f.create("retry", &at(due), target).await;
    f.emu.set_clock(due + Duration::seconds(59)).await;
    assert_eq!(f.invocations(&schedule).await.len(), 1);
    f.emu.set_clock(due + Duration::seconds(179)).await;
    assert_eq!(f.invocations(&schedule).await.len(), 2);
    assert!(f.drain(&dlq_url).await.is_empty());
    let answer = f.emu.set_clock(due + Duration::hours(1)).await;
    // The clock's answer and the history agree on the last attempt's outcome.
    assert_eq!(answer["fired"][0]["attempt"], 3);
    assert_eq!(answer["fired"][0]["outcome"], "dead_lettered");
    let invs = f.invocations(&schedule).await;
    let invoked: Vec<&str> = invs
        .iter()
        .map(|i| i["invoked_at"].as_str().unwrap())
        .collect();
    assert_eq!(
        invoked,
        [
            z(due),
            z(due + Duration::seconds(60)),
            z(due + Duration::seconds(180))
        ]
    );
    assert_eq!(
        invs[0]["error_code"],
        "AWS.SimpleQueueService.NonExistentQueue"
    );
    assert_eq!(invs[2]["outcome"], "dead_lettered");
    let dead = f.drain(&dlq_url).await;
    assert_eq!(dead.len(), 1);
    let attrs: std::collections::BTreeMap<String, String> = dead[0]
        .message_attributes()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.string_value().unwrap().to_string()))
        .collect();
    assert_eq!(attrs.len(), 9, "{attrs:?}");
    assert_eq!(attrs["RETRY_ATTEMPTS"], "2");
    assert_eq!(attrs["EXHAUSTED_RETRY_CONDITION"], "MaximumRetryAttempts");
    assert_eq!(attrs["IS_PAYLOAD_TRUNCATED"], "false");
    assert_eq!(
        attrs["EXECUTION_ID"],
        invs[2]["execution_id"].as_str().unwrap()
    );
    assert_eq!(attrs["SCHEDULED_TIME"], z(due));
    assert_eq!(attrs["SCHEDULE_ARN"], schedule);
    assert_eq!(attrs["TARGET_ARN"], missing);
    let body: Value = serde_json::from_str(dead[0].body().unwrap()).unwrap();
    assert_eq!(body, invs[2]["request"]);
    assert_eq!(body["MessageBody"], "payload");
}

#[tokio::test]
async fn maximum_event_age_ends_retries_before_the_attempt_limit() {
    let f = Fixture::new().await;
    let (dlq_url, dlq_arn) = f.queue("agedlq", false).await;
    let due = t0() + Duration::minutes(1);
    let target = Fixture::target("arn:aws:sqs:us-east-1:000000000000:gone", Some("x"))
        .retry_policy(
            RetryPolicy::builder()
                .maximum_retry_attempts(185)
                .maximum_event_age_in_seconds(200)
                .build(),
        )
        .dead_letter_config(DeadLetterConfig::builder().arn(&dlq_arn).build())
        .build()
        .unwrap();
    let schedule = f.create("aged", &at(due), target).await;
    f.emu.set_clock(due + Duration::hours(2)).await;
    // Attempts at +0, +60, +180; the next would be at +420 > 200 s of age.
    assert_eq!(f.invocations(&schedule).await.len(), 3);
    let dead = f.drain(&dlq_url).await;
    let attrs = dead[0].message_attributes().unwrap();
    assert_eq!(
        attrs["EXHAUSTED_RETRY_CONDITION"].string_value(),
        Some("MaximumEventAgeInSeconds")
    );
    assert_eq!(attrs["RETRY_ATTEMPTS"].string_value(), Some("2"));
}

#[tokio::test]
async fn an_injected_delivery_fault_fails_one_attempt_and_the_retry_delivers() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("flt", false).await;
    let (status, _) = f
        .emu
        .control(
            "POST",
            "/_cumulo/faults",
            Some(json!({ "target_arn": arn, "message": "injected boom" })),
        )
        .await;
    assert_eq!(status, 201);
    let due = t0() + Duration::minutes(1);
    let schedule = f
        .create(
            "flt",
            &at(due),
            Fixture::target(&arn, Some("<aws.scheduler.attempt-number>"))
                .build()
                .unwrap(),
        )
        .await;
    let reply = f.emu.set_clock(due + Duration::seconds(30)).await;
    assert_eq!(reply["fired"][0]["outcome"], "failed");
    assert_eq!(reply["fired"][0]["error_code"], "InjectedFault");
    f.emu.set_clock(due + Duration::seconds(90)).await;
    assert_eq!(f.bodies(&url).await, ["2"]);
    let invs = f.invocations(&schedule).await;
    assert_eq!(invs[0]["error_message"], "injected boom");
    assert_eq!(invs[1]["outcome"], "delivered");
}

#[tokio::test]
async fn disabling_a_schedule_drops_its_pending_retries() {
    let f = Fixture::new().await;
    let due = t0() + Duration::minutes(1);
    let target = Fixture::target("arn:aws:sqs:us-east-1:000000000000:nowhere", Some("x"))
        .build()
        .unwrap();
    let schedule = f.create("drop", &at(due), target.clone()).await;
    f.emu.set_clock(due + Duration::seconds(1)).await;
    assert_eq!(f.invocations(&schedule).await.len(), 1);
    f.scheduler
        .update_schedule()
        .name("drop")
        .schedule_expression(at(due))
        .state(ScheduleState::Disabled)
        .flexible_time_window(
            FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
        .target(target)
        .send()
        .await
        .unwrap();
    f.emu.set_clock(due + Duration::hours(1)).await;
    assert_eq!(f.invocations(&schedule).await.len(), 1);
}

#[tokio::test]
async fn at_with_delete_after_completion_is_gone_after_firing() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("once", false).await;
    let due = t0() + Duration::minutes(10);
    f.scheduler
        .create_schedule()
        .name("once")
        .schedule_expression(at(due))
        .action_after_completion(ActionAfterCompletion::Delete)
        .flexible_time_window(
            FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
        .target(Fixture::target(&arn, Some("fired")).build().unwrap())
        .send()
        .await
        .unwrap();
    f.emu.set_clock(due + Duration::days(2)).await;
    assert_eq!(f.bodies(&url).await, ["fired"]);
    let err = f
        .scheduler
        .get_schedule()
        .name("once")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_resource_not_found_exception());
}

#[tokio::test]
async fn a_flexible_window_fires_at_the_documented_hash_offset() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("flex", false).await;
    let due = t0() + Duration::minutes(1);
    let schedule = f
        .scheduler
        .create_schedule()
        .name("flex")
        .schedule_expression(at(due))
        .flexible_time_window(
            FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Flexible)
                .maximum_window_in_minutes(15)
                .build()
                .unwrap(),
        )
        .target(Fixture::target(&arn, Some("flex")).build().unwrap())
        .send()
        .await
        .unwrap()
        .schedule_arn;
    let offset = cumulo::scheduler::flexible_offset(&schedule, due, 15);
    assert!(offset < Duration::minutes(15));
    f.emu
        .set_clock(due + offset - Duration::milliseconds(1))
        .await;
    assert!(f.bodies(&url).await.is_empty());
    f.emu.set_clock(due + offset).await;
    assert_eq!(f.bodies(&url).await, ["flex"]);
    let invs = f.invocations(&schedule).await;
    assert_eq!(invs[0]["scheduled_time"], z(due));
    assert_eq!(invs[0]["invoked_at"], cumulo::time::rfc3339(due + offset));
}

#[tokio::test]
async fn fifo_targets_need_a_group_and_content_based_deduplication() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("jobs.fifo", true).await;
    f.sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::ContentBasedDeduplication,
            "true",
        )
        .send()
        .await
        .unwrap();
    let (_, plain_arn) = f.queue("nodedup.fifo", true).await;
    let due = t0() + Duration::minutes(1);
    let grouped = Fixture::target(&arn, Some("in order"))
        .sqs_parameters(SqsParameters::builder().message_group_id("g1").build())
        .build()
        .unwrap();
    f.create("fifo", &at(due), grouped).await;
    let no_dedup = Fixture::target(&plain_arn, Some("refused"))
        .sqs_parameters(SqsParameters::builder().message_group_id("g1").build())
        .retry_policy(RetryPolicy::builder().maximum_retry_attempts(0).build())
        .build()
        .unwrap();
    let refused = f.create("nodedup", &at(due), no_dedup).await;
    f.emu.set_clock(due + Duration::seconds(1)).await;
    let msgs = f.drain(&url).await;
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].body(), Some("in order"));
    let invs = f.invocations(&refused).await;
    assert_eq!(invs[0]["outcome"], "failed");
    assert_eq!(invs[0]["error_code"], "InvalidParameterValue");
}

#[tokio::test]
async fn universal_targets_deliver_sqs_send_message_and_fail_other_actions() {
    let f = Fixture::new().await;
    let (url, _) = f.queue("uni", false).await;
    let due = t0() + Duration::minutes(1);
    let input = json!({ "QueueUrl": url, "MessageBody": "via aws-sdk" }).to_string();
    f.create(
        "uni",
        &at(due),
        Fixture::target("arn:aws:scheduler:::aws-sdk:sqs:sendMessage", Some(&input))
            .build()
            .unwrap(),
    )
    .await;
    let other = f
        .create(
            "lambda-uni",
            &at(due),
            Fixture::target("arn:aws:scheduler:::aws-sdk:lambda:invoke", Some("{}"))
                .retry_policy(RetryPolicy::builder().maximum_retry_attempts(0).build())
                .build()
                .unwrap(),
        )
        .await;
    let bad = f
        .create(
            "notjson",
            &at(due),
            Fixture::target(
                "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
                Some("not json"),
            )
            .retry_policy(RetryPolicy::builder().maximum_retry_attempts(0).build())
            .build()
            .unwrap(),
        )
        .await;
    f.emu.set_clock(due + Duration::seconds(1)).await;
    assert_eq!(f.bodies(&url).await, ["via aws-sdk"]);
    assert_eq!(f.invocations(&other).await[0]["outcome"], "failed");
    let bad = f.invocations(&bad).await;
    assert_eq!(bad[0]["outcome"], "failed");
    assert_eq!(
        bad[0]["request"], "not json",
        "non-JSON input is recorded as a JSON string"
    );
}

#[tokio::test]
async fn recorded_targets_carry_their_materialised_requests() {
    let f = Fixture::new().await;
    let due = t0() + Duration::minutes(1);
    let lambda = f
        .create(
            "fn",
            &at(due),
            Fixture::target(
                "arn:aws:lambda:us-east-1:000000000000:function:f",
                Some("{\"a\":1}"),
            )
            .build()
            .unwrap(),
        )
        .await;
    let states = f
        .create(
            "sm",
            &at(due),
            Fixture::target(
                "arn:aws:states:us-east-1:000000000000:stateMachine:m",
                Some("{}"),
            )
            .build()
            .unwrap(),
        )
        .await;
    f.emu.set_clock(due).await;
    let l = f.invocations(&lambda).await;
    assert_eq!(
        l[0]["request"],
        json!({ "FunctionName": "arn:aws:lambda:us-east-1:000000000000:function:f", "InvocationType": "Event", "Payload": "{\"a\":1}" })
    );
    let s = f.invocations(&states).await;
    assert_eq!(
        s[0]["request"]["stateMachineArn"],
        "arn:aws:states:us-east-1:000000000000:stateMachine:m"
    );
    assert_eq!(s[0]["outcome"], "delivered");
}

#[tokio::test]
async fn switching_back_to_wall_time_never_fires_an_occurrence_twice() {
    let f = Fixture::new().await;
    let (url, arn) = f.queue("twice", false).await;
    f.create(
        "twice",
        "rate(1 minute)",
        Fixture::target(&arn, Some("<aws.scheduler.scheduled-time>"))
            .build()
            .unwrap(),
    )
    .await;
    // t0 is in 2030: far ahead of wall time. Fire five occurrences, then go back to wall time.
    f.emu.set_clock(t0() + Duration::seconds(270)).await;
    assert_eq!(f.bodies(&url).await.len(), 5);
    let (status, _) = f
        .emu
        .control("POST", "/_cumulo/clock", Some(json!({ "mode": "system" })))
        .await;
    assert_eq!(status, 200);
    let (status, _) = f
        .emu
        .control("POST", "/_cumulo/clock", Some(json!({ "mode": "manual" })))
        .await;
    assert_eq!(status, 200);
    assert!(
        f.bodies(&url).await.is_empty(),
        "wall time is years before the last fire: nothing is due"
    );
}

#[tokio::test]
async fn stored_preview_honours_the_window_and_the_state() {
    let f = Fixture::new().await;
    let start = t0() + Duration::minutes(30);
    f.scheduler
        .create_schedule()
        .name("pv")
        .schedule_expression("rate(10 minutes)")
        .start_date(aws_sdk_scheduler::primitives::DateTime::from_secs(
            start.timestamp(),
        ))
        .end_date(aws_sdk_scheduler::primitives::DateTime::from_secs(
            (t0() + Duration::minutes(55)).timestamp(),
        ))
        .flexible_time_window(
            FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
        .target(
            Fixture::target("arn:aws:sqs:us-east-1:000000000000:q", None)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let (status, body) = f
        .emu
        .control(
            "GET",
            "/_cumulo/scheduler/schedules/default/pv/preview?count=10",
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let utc: Vec<&str> = body["fires"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["utc"].as_str().unwrap())
        .collect();
    assert_eq!(
        utc,
        [
            z(start),
            z(start + Duration::minutes(10)),
            z(start + Duration::minutes(20))
        ]
    );
    let (status, body) = f
        .emu
        .control(
            "GET",
            "/_cumulo/scheduler/schedules/default/nope/preview",
            None,
        )
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"], "ResourceNotFoundException");
}
