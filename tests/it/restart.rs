//! Durable state (issue 7): the real `cumulo` binary on a data directory, stopped gracefully or
//! killed with SIGKILL at chosen points, then started again on the same directory. Nothing it
//! acknowledged is lost, no occurrence is delivered twice, and the dispatcher resumes as the
//! README's "Durable state" section describes.

use aws_sdk_scheduler::types::{FlexibleTimeWindow, FlexibleTimeWindowMode, RetryPolicy, Target};
use serde_json::{json, Value};

use std::process::Command;

use crate::process::{spawn, DataDir, Proc};
use crate::support::sdk_config_at;

const ROLE: &str = "arn:aws:iam::000000000000:role/cumulo-tests";

fn off() -> FlexibleTimeWindow {
    FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Off)
        .build()
        .unwrap()
}

async fn queue(sqs: &aws_sdk_sqs::Client, name: &str) -> (String, String) {
    let url = sqs
        .create_queue()
        .queue_name(name)
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    (url, format!("arn:aws:sqs:us-east-1:000000000000:{name}"))
}

async fn bodies(sqs: &aws_sdk_sqs::Client, name: &str) -> Vec<String> {
    let url = sqs
        .get_queue_url()
        .queue_name(name)
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let mut out = Vec::new();
    loop {
        let got = sqs
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap();
        let msgs = got.messages.unwrap_or_default();
        if msgs.is_empty() {
            return out;
        }
        for m in msgs {
            sqs.delete_message()
                .queue_url(&url)
                .receipt_handle(m.receipt_handle().unwrap())
                .send()
                .await
                .unwrap();
            out.push(m.body.unwrap_or_default());
        }
    }
}

#[tokio::test]
async fn acknowledged_state_survives_kill_9() {
    let dir = DataDir::new("ack");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    scheduler
        .create_schedule_group()
        .name("kept")
        .send()
        .await
        .unwrap();
    let (url, arn) = queue(&sqs, "kept-q").await;
    sqs.send_message()
        .queue_url(&url)
        .message_body("hello")
        .send()
        .await
        .unwrap();
    scheduler
        .create_schedule()
        .name("nightly")
        .group_name("kept")
        .schedule_expression("cron(0 3 * * ? *)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&arn)
                .role_arn(ROLE)
                .input("x")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    p.kill9();

    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    let got = scheduler
        .get_schedule()
        .name("nightly")
        .group_name("kept")
        .send()
        .await
        .unwrap();
    assert_eq!(got.schedule_expression(), Some("cron(0 3 * * ? *)"));
    assert_eq!(got.target().unwrap().input(), Some("x"));
    assert_eq!(
        scheduler
            .get_schedule_group()
            .name("kept")
            .send()
            .await
            .unwrap()
            .name(),
        Some("kept")
    );
    assert_eq!(bodies(&sqs, "kept-q").await, ["hello"]);
}

#[tokio::test]
async fn a_second_process_on_the_same_directory_is_refused() {
    let dir = DataDir::new("lock");
    let _first = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let err = spawn(&dir.0, "2030-01-01T00:00:00Z")
        .err()
        .expect("the second process must not start");
    assert!(
        err.contains("another Cumulo process is already using the data directory"),
        "{err}"
    );
}

#[tokio::test]
async fn graceful_stop_and_reset_both_reach_the_store() {
    let dir = DataDir::new("graceful");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let sqs = p.sqs().await;
    queue(&sqs, "before-reset").await;
    p.terminate();
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let sqs = p.sqs().await;
    sqs.get_queue_url()
        .queue_name("before-reset")
        .send()
        .await
        .expect("the queue survived a graceful stop");
    let (status, _) = p.control("POST", "/_cumulo/reset", Some(json!({}))).await;
    assert_eq!(status, 200);
    p.kill9();
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let sqs = p.sqs().await;
    let err = sqs
        .get_queue_url()
        .queue_name("before-reset")
        .send()
        .await
        .unwrap_err();
    assert!(
        err.into_service_error().is_queue_does_not_exist(),
        "reset wiped the store"
    );
    let scheduler = p.scheduler().await;
    assert_eq!(
        scheduler
            .get_schedule_group()
            .name("default")
            .send()
            .await
            .unwrap()
            .name(),
        Some("default")
    );
}

#[tokio::test]
async fn missed_occurrences_deliver_the_latest_and_record_the_rest_as_dropped() {
    let dir = DataDir::new("missed");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    let (_, arn) = queue(&sqs, "minutely").await;
    let schedule = scheduler
        .create_schedule()
        .name("minutely")
        .schedule_expression("rate(1 minute)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&arn)
                .role_arn(ROLE)
                .input("<aws.scheduler.scheduled-time>")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .schedule_arn;
    p.set_clock("2030-01-01T00:00:30Z").await;
    assert_eq!(bodies(&sqs, "minutely").await, ["2030-01-01T00:00:00Z"]);
    p.kill9();

    // Down from 00:00:30 to 00:10:30: occurrences 00:01 … 00:10 were missed.
    let p = Proc::start(&dir.0, "2030-01-01T00:10:30Z");
    let sqs = p.sqs().await;
    p.set_clock("2030-01-01T00:10:31Z").await;
    assert_eq!(
        bodies(&sqs, "minutely").await,
        ["2030-01-01T00:10:00Z"],
        "only the most recent missed occurrence"
    );
    let invs: Vec<Value> = p
        .invocations()
        .await
        .into_iter()
        .filter(|i| i["schedule_arn"] == schedule.as_str())
        .collect();
    let dropped: Vec<&str> = invs
        .iter()
        .filter(|i| i["outcome"] == "dropped")
        .map(|i| i["scheduled_time"].as_str().unwrap())
        .collect();
    let want: Vec<String> = (1..=9)
        .map(|m| format!("2030-01-01T00:{m:02}:00Z"))
        .collect();
    assert_eq!(dropped, want);
    assert!(
        invs.iter()
            .any(|i| i["scheduled_time"] == "2030-01-01T00:00:00Z" && i["outcome"] == "delivered"),
        "the history survived"
    );
    // And the series goes on from there.
    p.set_clock("2030-01-01T00:12:30Z").await;
    assert_eq!(
        bodies(&sqs, "minutely").await,
        ["2030-01-01T00:11:00Z", "2030-01-01T00:12:00Z"]
    );
}

#[tokio::test]
async fn missed_occurrences_older_than_the_event_age_are_all_dropped() {
    let dir = DataDir::new("old");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:10Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    let (_, arn) = queue(&sqs, "hourly").await;
    scheduler
        .create_schedule()
        .name("hourly")
        .schedule_expression("cron(0 * * * ? *)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&arn)
                .role_arn(ROLE)
                .input("tick")
                .retry_policy(
                    RetryPolicy::builder()
                        .maximum_event_age_in_seconds(60)
                        .maximum_retry_attempts(0)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    p.kill9();
    let p = Proc::start(&dir.0, "2030-01-01T03:30:00Z");
    let sqs = p.sqs().await;
    p.set_clock("2030-01-01T03:30:01Z").await;
    assert!(
        bodies(&sqs, "hourly").await.is_empty(),
        "03:00 is 30 minutes old, older than 60 s"
    );
    let dropped = p
        .invocations()
        .await
        .iter()
        .filter(|i| i["outcome"] == "dropped")
        .count();
    assert_eq!(dropped, 3, "01:00, 02:00 and 03:00");
}

#[tokio::test]
async fn a_long_outage_accounts_for_every_missed_occurrence() {
    let dir = DataDir::new("outage");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:30Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    let (_, arn) = queue(&sqs, "minutely").await;
    let schedule = scheduler
        .create_schedule()
        .name("minutely")
        .schedule_expression("cron(* * * * ? *)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&arn)
                .role_arn(ROLE)
                .input("<aws.scheduler.scheduled-time>")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .schedule_arn;
    p.set_clock("2030-01-01T00:01:30Z").await;
    assert_eq!(bodies(&sqs, "minutely").await, ["2030-01-01T00:01:00Z"]);
    p.kill9();

    // Down for ten days: 00:02 on 1 January … 00:01 on 11 January, 14,400 occurrences.
    let p = Proc::start(&dir.0, "2030-01-11T00:01:30Z");
    let sqs = p.sqs().await;
    p.set_clock("2030-01-11T00:01:31Z").await;
    assert_eq!(
        bodies(&sqs, "minutely").await,
        ["2030-01-11T00:01:00Z"],
        "the most recent one is delivered"
    );
    let dropped: Vec<Value> = p
        .invocations()
        .await
        .into_iter()
        .filter(|i| i["schedule_arn"] == schedule.as_str() && i["outcome"] == "dropped")
        .collect();
    assert_eq!(
        dropped.len(),
        101,
        "100 records of one, then one compact record"
    );
    for (k, record) in dropped[..100].iter().enumerate() {
        let at = format!("2030-01-01T{:02}:{:02}:00Z", (k + 2) / 60, (k + 2) % 60);
        assert_eq!(record["scheduled_time"], at.as_str());
        assert!(record.get("occurrence_count").is_none(), "{record}");
    }
    let compact = &dropped[100];
    assert_eq!(compact["scheduled_time"], "2030-01-01T01:42:00Z");
    assert_eq!(compact["last_scheduled_time"], "2030-01-11T00:00:00Z");
    assert_eq!(compact["error_code"], "MissedWhileStopped");
    let counted = compact["occurrence_count"].as_u64().expect("a count");
    assert_eq!(counted, 14_400 - 100 - 1);
    assert_eq!(
        compact["error_message"],
        "Cumulo was not running at these 14299 occurrences (2030-01-01T01:42:00Z to 2030-01-11T00:00:00Z); only the most recent missed occurrence is delivered, and only if younger than MaximumEventAgeInSeconds."
    );
    // The compact record survives a restart like any other.
    p.kill9();
    let p = Proc::start(&dir.0, "2030-01-11T00:01:40Z");
    let again = p.invocations_once_recovered(202).await;
    assert_eq!(
        again
            .iter()
            .filter(|i| i.get("occurrence_count").is_some())
            .count(),
        1
    );
}

#[tokio::test]
async fn a_kill_right_after_recovery_records_nothing_twice() {
    let dir = DataDir::new("recovered-twice");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:30Z");
    let sqs = p.sqs().await;
    let (_, arn) = queue(&sqs, "q").await;
    p.scheduler()
        .await
        .create_schedule()
        .name("minutely")
        .schedule_expression("rate(1 minute)")
        .flexible_time_window(off())
        .target(Target::builder().arn(&arn).role_arn(ROLE).build().unwrap())
        .send()
        .await
        .unwrap();
    p.kill9();
    // Down for 5 hours; the restart records 299 drops and queues the latest; killed before the
    // clock moves (so before that latest is delivered), then started again.
    let p = Proc::start(&dir.0, "2030-01-01T05:00:30Z");
    let first = p.invocations_once_recovered(101).await.len();
    assert_eq!(first, 101, "100 records of one and one compact record");
    p.kill9();
    let p = Proc::start(&dir.0, "2030-01-01T05:00:40Z");
    let invocations = p.invocations_once_recovered(101).await;
    assert_eq!(invocations.len(), first, "the same drops, recorded once");
    p.set_clock("2030-01-01T05:00:41Z").await;
    assert_eq!(
        bodies(&p.sqs().await, "q").await.len(),
        1,
        "the latest, delivered once"
    );
}

#[tokio::test]
async fn an_at_schedule_that_fired_never_fires_again() {
    let dir = DataDir::new("at");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    let (_, arn) = queue(&sqs, "once").await;
    scheduler
        .create_schedule()
        .name("once")
        .schedule_expression("at(2030-01-01T00:01:00)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&arn)
                .role_arn(ROLE)
                .input("fired")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    p.set_clock("2030-01-01T00:02:00Z").await;
    assert_eq!(bodies(&sqs, "once").await, ["fired"]);
    p.kill9();
    let p = Proc::start(&dir.0, "2030-01-01T00:05:00Z");
    let sqs = p.sqs().await;
    p.set_clock("2030-01-02T00:00:00Z").await;
    assert!(bodies(&sqs, "once").await.is_empty());
}

#[tokio::test]
async fn pending_retries_resume_at_their_due_times() {
    let dir = DataDir::new("retry");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let arn = "arn:aws:sqs:us-east-1:000000000000:late";
    let schedule = scheduler
        .create_schedule()
        .name("retrying")
        .schedule_expression("at(2030-01-01T00:01:00)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(arn)
                .role_arn(ROLE)
                .input("<aws.scheduler.attempt-number>")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .schedule_arn;
    p.set_clock("2030-01-01T00:01:30Z").await;
    assert_eq!(
        p.invocations().await.len(),
        1,
        "attempt 1 failed: the queue does not exist yet"
    );
    p.kill9();

    let p = Proc::start(&dir.0, "2030-01-01T00:01:45Z");
    let sqs = p.sqs().await;
    queue(&sqs, "late").await;
    p.set_clock("2030-01-01T00:01:59Z").await;
    assert!(
        bodies(&sqs, "late").await.is_empty(),
        "the retry is due at 00:02:00, 60 s after attempt 1"
    );
    p.set_clock("2030-01-01T00:02:10Z").await;
    assert_eq!(bodies(&sqs, "late").await, ["2"]);
    let invs: Vec<(u64, String, bool)> = p
        .invocations()
        .await
        .iter()
        .filter(|i| i["schedule_arn"] == schedule.as_str())
        .map(|i| {
            (
                i["attempt"].as_u64().unwrap(),
                i["outcome"].as_str().unwrap().to_string(),
                i["possible_duplicate"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        invs,
        [(1, "failed".into(), false), (2, "delivered".into(), false)]
    );
}

/// Starts a clock move that blocks in a held delivery, waits until the hold has begun (the
/// rule is used up), and kills the process mid-delivery.
async fn kill_during_held_delivery(p: Proc, target_arn: &str, to: &str) {
    let (status, _) = p
        .control(
            "POST",
            "/_cumulo/faults",
            Some(json!({ "target_arn": target_arn, "hold_seconds": 30 })),
        )
        .await;
    assert_eq!(status, 201);
    let endpoint = p.endpoint.clone();
    let to = to.to_string();
    let mover = tokio::spawn(async move {
        let _ = reqwest::Client::new()
            .post(format!("{endpoint}/_cumulo/clock"))
            .json(&json!({ "set": to }))
            .send()
            .await;
    });
    for _ in 0..500 {
        let (_, body) = p.control("GET", "/_cumulo/faults", None).await;
        if body["faults"][0]["remaining"] == 0 {
            break;
        }
        tokio::task::yield_now().await;
    }
    let (_, body) = p.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(
        body["faults"][0]["remaining"], 0,
        "the delivery never started its hold"
    );
    // The in-flight mark was queued before the hold began; any acknowledged write waits for
    // everything queued before it (group commit), so after this call the mark is on disk.
    p.sqs()
        .await
        .create_queue()
        .queue_name("sync-point")
        .send()
        .await
        .unwrap();
    p.kill9();
    let _ = mover.await;
}

#[tokio::test]
async fn an_sqs_delivery_killed_in_flight_is_delivered_once_after_restart() {
    let dir = DataDir::new("inflight");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let sqs = p.sqs().await;
    let (_, arn) = queue(&sqs, "inflight").await;
    scheduler
        .create_schedule()
        .name("inflight")
        .schedule_expression("at(2030-01-01T00:01:00)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&arn)
                .role_arn(ROLE)
                .input("once")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    kill_during_held_delivery(p, &arn, "2030-01-01T00:01:30Z").await;

    let p = Proc::start(&dir.0, "2030-01-01T00:01:40Z");
    let sqs = p.sqs().await;
    p.set_clock("2030-01-01T00:01:41Z").await;
    assert_eq!(bodies(&sqs, "inflight").await, ["once"]);
    let invs = p.invocations().await;
    assert_eq!(invs.len(), 1, "{invs:?}");
    assert_eq!(invs[0]["outcome"], "delivered");
    assert_eq!(
        invs[0]["possible_duplicate"], false,
        "an SQS delivery commits with its record: no doubt"
    );
    assert_eq!(
        invs[0]["occurrence_key"],
        format!(
            "{}#2030-01-01T00:01:00Z",
            invs[0]["schedule_arn"].as_str().unwrap()
        )
    );
}

#[tokio::test]
async fn an_sns_delivery_killed_in_flight_is_flagged_as_a_possible_duplicate() {
    let dir = DataDir::new("sns");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let scheduler = p.scheduler().await;
    let sns = aws_sdk_sns::Client::new(&sdk_config_at(&p.endpoint, "test").await);
    let topic = sns
        .create_topic()
        .name("alerts")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    scheduler
        .create_schedule()
        .name("alerts")
        .schedule_expression("at(2030-01-01T00:01:00)")
        .flexible_time_window(off())
        .target(
            Target::builder()
                .arn(&topic)
                .role_arn(ROLE)
                .input("page")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    kill_during_held_delivery(p, &topic, "2030-01-01T00:01:30Z").await;

    let p = Proc::start(&dir.0, "2030-01-01T00:01:40Z");
    p.set_clock("2030-01-01T00:01:41Z").await;
    let invs = p.invocations().await;
    assert_eq!(invs.len(), 1, "{invs:?}");
    assert_eq!(invs[0]["outcome"], "delivered");
    assert_eq!(invs[0]["attempt"], 1);
    assert_eq!(
        invs[0]["possible_duplicate"], true,
        "an SNS fan-out is not atomic with its record"
    );
}

#[tokio::test]
async fn a_deploy_killed_mid_way_loads_as_create_failed_and_deletes_cleanly() {
    let dir = DataDir::new("middeploy");
    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let (status, _) = p
        .control(
            "POST",
            "/_cumulo/faults",
            Some(json!({
                "stack_name": "mid",
                "logical_id": "Second",
                "operation": "create",
                "hold_seconds": 30
            })),
        )
        .await;
    assert_eq!(status, 201);
    let template = r#"
Resources:
  First:
    Type: AWS::SQS::Queue
    Properties: { QueueName: mid-first }
  Second:
    Type: AWS::SQS::Queue
    DependsOn: First
    Properties: { QueueName: mid-second }
"#;
    let cfn = aws_sdk_cloudformation::Client::new(&sdk_config_at(&p.endpoint, "test").await);
    // CreateStack answers once the operation is held on Second's creation.
    cfn.create_stack()
        .stack_name("mid")
        .template_body(template)
        .send()
        .await
        .unwrap();
    let stack = cfn
        .describe_stacks()
        .stack_name("mid")
        .send()
        .await
        .unwrap();
    assert_eq!(
        stack.stacks()[0].stack_status().unwrap().as_str(),
        "CREATE_IN_PROGRESS"
    );
    // An acknowledged write after the stack's progress was queued: the progress is on disk.
    p.sqs()
        .await
        .create_queue()
        .queue_name("sync-point")
        .send()
        .await
        .unwrap();
    p.kill9();

    let p = Proc::start(&dir.0, "2030-01-01T00:00:00Z");
    let cfn = aws_sdk_cloudformation::Client::new(&sdk_config_at(&p.endpoint, "test").await);
    let stack = cfn
        .describe_stacks()
        .stack_name("mid")
        .send()
        .await
        .unwrap();
    let stack = &stack.stacks()[0];
    assert_eq!(stack.stack_status().unwrap().as_str(), "CREATE_FAILED");
    assert_eq!(
        stack.stack_status_reason(),
        Some("The operation was interrupted by a restart of Cumulo.")
    );
    // The held resource is not left CREATE_IN_PROGRESS: it failed with the stack's reason.
    let resources = cfn
        .describe_stack_resources()
        .stack_name("mid")
        .send()
        .await
        .unwrap();
    let statuses: Vec<(&str, &str, Option<&str>)> = resources
        .stack_resources()
        .iter()
        .map(|r| {
            (
                r.logical_resource_id().unwrap(),
                r.resource_status().unwrap().as_str(),
                r.resource_status_reason(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("First", "CREATE_COMPLETE", None),
            (
                "Second",
                "CREATE_FAILED",
                Some("The operation was interrupted by a restart of Cumulo.")
            ),
        ]
    );
    // Newest first: Second's failure, then the stack's.
    let events = cfn
        .describe_stack_events()
        .stack_name("mid")
        .send()
        .await
        .unwrap();
    let newest: Vec<(&str, &str, Option<&str>)> = events.stack_events()[..2]
        .iter()
        .map(|e| {
            (
                e.logical_resource_id().unwrap(),
                e.resource_status().unwrap().as_str(),
                e.resource_status_reason(),
            )
        })
        .collect();
    assert_eq!(
        newest,
        [
            (
                "mid",
                "CREATE_FAILED",
                Some("The operation was interrupted by a restart of Cumulo.")
            ),
            (
                "Second",
                "CREATE_FAILED",
                Some("The operation was interrupted by a restart of Cumulo.")
            ),
        ]
    );
    let sqs = p.sqs().await;
    sqs.get_queue_url()
        .queue_name("mid-first")
        .send()
        .await
        .expect("the queue created before the kill is still there");
    let err = sqs
        .get_queue_url()
        .queue_name("mid-second")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());

    cfn.delete_stack().stack_name("mid").send().await.unwrap();
    let stacks = cfn
        .describe_stacks()
        .stack_name(stack.stack_id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        stacks.stacks()[0].stack_status().unwrap().as_str(),
        "DELETE_COMPLETE"
    );
    let err = sqs
        .get_queue_url()
        .queue_name("mid-first")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_queue_does_not_exist());
}

#[test]
fn a_bad_log_filter_or_a_start_for_a_system_clock_is_refused_at_start() {
    let run = |envs: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cumulo"))
            .env_clear()
            .env("CUMULO_PORT", "0")
            .envs(envs.iter().copied())
            .output()
            .expect("run cumulo");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run(&[("CUMULO_LOG", "[[[bogus")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "it never listened: {stdout}");
    assert!(
        stderr.contains("'[[[bogus' is not a log filter"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(&[
        ("CUMULO_CLOCK", "manual"),
        ("CUMULO_CLOCK_START", "9999-12-31T23:59:59.5Z"),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "it never listened: {stdout}");
    assert!(stderr.contains("is past 9999-12-31T23:59:59Z"), "{stderr}");
    let (code, stdout, stderr) = run(&[("CUMULO_CLOCK_START", "2030-01-01T00:00:00Z")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "it never listened: {stdout}");
    assert!(stderr.contains("needs --clock manual"), "{stderr}");
}
