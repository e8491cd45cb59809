//! EventBridge Scheduler API through the official AWS SDK for Rust (and raw HTTP where the wire
//! itself is the point): every operation, every error the API defines, paging under concurrent
//! change, client tokens, the percent-encoded tag ARN, and account and region isolation.

use std::fmt::Debug;

use aws_sdk_scheduler::config::http::HttpResponse;
use aws_sdk_scheduler::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_scheduler::primitives::DateTime;
use aws_sdk_scheduler::types::{
    ActionAfterCompletion, AssignPublicIp, AwsVpcConfiguration, CapacityProviderStrategyItem,
    DeadLetterConfig, EcsParameters, EventBridgeParameters, FlexibleTimeWindow,
    FlexibleTimeWindowMode, KinesisParameters, LaunchType, NetworkConfiguration,
    PlacementConstraint, PlacementConstraintType, RetryPolicy, SageMakerPipelineParameter,
    SageMakerPipelineParameters, ScheduleGroupState, ScheduleState, SqsParameters, Tag, Target,
};
use aws_sdk_scheduler::Client;
use serde_json::Value;

use crate::support::{t0, Emulator};

const ROLE: &str = "arn:aws:iam::000000000000:role/sched";
const QUEUE: &str = "arn:aws:sqs:us-east-1:000000000000:q";
const LAMBDA: &str = "arn:aws:lambda:us-east-1:000000000000:function:f";

/// (HTTP status, error code, message) of a failed call.
fn failure<T: Debug, E: ProvideErrorMetadata + Debug>(
    result: Result<T, SdkError<E, HttpResponse>>,
) -> (u16, String, String) {
    let err = result.expect_err("expected an error response");
    let status = err.raw_response().map_or(0, |r| r.status().as_u16());
    (
        status,
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn off() -> FlexibleTimeWindow {
    FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Off)
        .build()
        .unwrap()
}

fn flexible(minutes: Option<i32>) -> FlexibleTimeWindow {
    FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Flexible)
        .set_maximum_window_in_minutes(minutes)
        .build()
        .unwrap()
}

fn target(arn: &str) -> Target {
    Target::builder().arn(arn).role_arn(ROLE).build().unwrap()
}

fn tag(k: &str, v: &str) -> Tag {
    Tag::builder().key(k).value(v).build().unwrap()
}

/// A minimal CreateSchedule: `cron(0 3 * * ? *)`, window OFF, an SQS target.
fn create(
    client: &Client,
    name: &str,
) -> aws_sdk_scheduler::operation::create_schedule::builders::CreateScheduleFluentBuilder {
    client
        .create_schedule()
        .name(name)
        .schedule_expression("cron(0 3 * * ? *)")
        .flexible_time_window(off())
        .target(target(QUEUE))
}

fn update(
    client: &Client,
    name: &str,
) -> aws_sdk_scheduler::operation::update_schedule::builders::UpdateScheduleFluentBuilder {
    client
        .update_schedule()
        .name(name)
        .schedule_expression("rate(1 hour)")
        .flexible_time_window(off())
        .target(target(QUEUE))
}

async fn all_schedule_names(client: &Client, group: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = client
            .list_schedules()
            .set_group_name(group.map(Into::into))
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        out.extend(
            page.schedules()
                .iter()
                .map(|s| format!("{}/{}", s.group_name().unwrap(), s.name().unwrap())),
        );
        token = page.next_token().map(Into::into);
        if token.is_none() {
            return out;
        }
    }
}

#[tokio::test]
async fn get_schedule_fills_aws_defaults_and_omits_what_was_never_set() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let arn = create(&client, "nightly")
        .send()
        .await
        .unwrap()
        .schedule_arn
        .clone();
    assert_eq!(
        arn,
        "arn:aws:scheduler:us-east-1:000000000000:schedule/default/nightly"
    );
    let got = client.get_schedule().name("nightly").send().await.unwrap();
    assert_eq!(got.arn(), Some(arn.as_str()));
    assert_eq!(got.group_name(), Some("default"));
    assert_eq!(
        got.action_after_completion(),
        Some(&ActionAfterCompletion::None)
    );
    assert_eq!(got.schedule_expression_timezone(), Some("UTC"));
    assert_eq!(got.state(), Some(&ScheduleState::Enabled));
    let t = got.target().unwrap();
    assert_eq!(
        t.retry_policy(),
        Some(
            &RetryPolicy::builder()
                .maximum_event_age_in_seconds(86_400)
                .maximum_retry_attempts(185)
                .build()
        )
    );
    assert_eq!((t.input(), t.dead_letter_config()), (None, None));
    assert_eq!(
        (
            got.description(),
            got.start_date(),
            got.end_date(),
            got.kms_key_arn()
        ),
        (None, None, None, None)
    );
    let created = DateTime::from_secs(t0().timestamp());
    assert_eq!(got.creation_date(), Some(&created));
    assert_eq!(got.last_modification_date(), Some(&created));

    // On the wire: epoch-second numbers, no null members.
    let (status, _, body) = emu.raw("GET", "/schedules/nightly", &[], "").await;
    assert_eq!(status, 200);
    let json: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["CreationDate"], serde_json::json!(1_893_499_200.0));
    assert_eq!(json["Target"]["RoleArn"], ROLE);
    assert!(json.get("Description").is_none(), "{json}");
}

#[tokio::test]
async fn every_member_given_is_returned() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let ecs = EcsParameters::builder()
        .task_definition_arn("arn:aws:ecs:us-east-1:000000000000:task-definition/t:1")
        .task_count(2)
        .launch_type(LaunchType::Fargate)
        .network_configuration(
            NetworkConfiguration::builder()
                .awsvpc_configuration(
                    AwsVpcConfiguration::builder()
                        .subnets("subnet-1")
                        .security_groups("sg-1")
                        .assign_public_ip(AssignPublicIp::Enabled)
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .capacity_provider_strategy(
            CapacityProviderStrategyItem::builder()
                .capacity_provider("FARGATE_SPOT")
                .weight(2)
                .base(1)
                .build()
                .unwrap(),
        )
        .placement_constraints(
            PlacementConstraint::builder()
                .r#type(PlacementConstraintType::MemberOf)
                .expression("attribute:ecs.os-type == linux")
                .build(),
        )
        .enable_ecs_managed_tags(true)
        .tags([("team".to_string(), "a".to_string())].into())
        .build()
        .unwrap();
    let start = DateTime::from_secs(t0().timestamp() + 3600);
    let end = DateTime::from_secs(t0().timestamp() + 86_400);
    create(&client, "ecs")
        .schedule_expression("rate(5 minutes)")
        .schedule_expression_timezone("Europe/Paris")
        .description("every five minutes")
        .start_date(start)
        .end_date(end)
        .state(ScheduleState::Disabled)
        .action_after_completion(ActionAfterCompletion::Delete)
        .kms_key_arn("arn:aws:kms:us-east-1:000000000000:key/k1")
        .flexible_time_window(flexible(Some(15)))
        .target(
            Target::builder()
                .arn("arn:aws:ecs:us-east-1:000000000000:cluster/c")
                .role_arn(ROLE)
                .input("{\"containerOverrides\": []}")
                .ecs_parameters(ecs.clone())
                .retry_policy(
                    RetryPolicy::builder()
                        .maximum_event_age_in_seconds(600)
                        .maximum_retry_attempts(3)
                        .build(),
                )
                .dead_letter_config(DeadLetterConfig::builder().arn(QUEUE).build())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let got = client.get_schedule().name("ecs").send().await.unwrap();
    assert_eq!(got.schedule_expression_timezone(), Some("Europe/Paris"));
    assert_eq!(got.description(), Some("every five minutes"));
    assert_eq!(
        (got.start_date(), got.end_date()),
        (Some(&start), Some(&end))
    );
    assert_eq!(got.state(), Some(&ScheduleState::Disabled));
    assert_eq!(
        got.action_after_completion(),
        Some(&ActionAfterCompletion::Delete)
    );
    assert_eq!(got.flexible_time_window(), Some(&flexible(Some(15))));
    let t = got.target().unwrap();
    assert_eq!(t.ecs_parameters(), Some(&ecs));
    assert_eq!(t.input(), Some("{\"containerOverrides\": []}"));
    assert_eq!(t.dead_letter_config().and_then(|d| d.arn()), Some(QUEUE));
    assert_eq!(
        t.retry_policy().and_then(|r| r.maximum_retry_attempts()),
        Some(3)
    );

    // Kinesis, SageMaker, SQS and EventBridge parameters are stored and returned too.
    let kinesis = KinesisParameters::builder()
        .partition_key("pk")
        .build()
        .unwrap();
    let sagemaker = SageMakerPipelineParameters::builder()
        .pipeline_parameter_list(
            SageMakerPipelineParameter::builder()
                .name("p-1")
                .value("v")
                .build()
                .unwrap(),
        )
        .build();
    create(&client, "kinesis")
        .target(
            Target::builder()
                .arn("arn:aws:kinesis:us-east-1:000000000000:stream/s")
                .role_arn(ROLE)
                .kinesis_parameters(kinesis.clone())
                .sage_maker_pipeline_parameters(sagemaker.clone())
                .sqs_parameters(SqsParameters::builder().message_group_id("g").build())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let t = client
        .get_schedule()
        .name("kinesis")
        .send()
        .await
        .unwrap()
        .target
        .unwrap();
    assert_eq!(t.kinesis_parameters(), Some(&kinesis));
    assert_eq!(t.sage_maker_pipeline_parameters(), Some(&sagemaker));
    assert_eq!(
        t.sqs_parameters().and_then(|p| p.message_group_id()),
        Some("g")
    );
    let eb = EventBridgeParameters::builder()
        .detail_type("tick")
        .source("my.app")
        .build()
        .unwrap();
    create(&client, "bus")
        .target(
            Target::builder()
                .arn("arn:aws:events:us-east-1:000000000000:event-bus/default")
                .role_arn(ROLE)
                .input("{\"a\": 1}")
                .event_bridge_parameters(eb.clone())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let got = client.get_schedule().name("bus").send().await.unwrap();
    assert_eq!(got.target().unwrap().event_bridge_parameters(), Some(&eb));
}

#[tokio::test]
async fn update_is_a_full_replace_that_keeps_the_creation_date() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    create(&client, "s")
        .description("set at create")
        .state(ScheduleState::Disabled)
        .schedule_expression_timezone("Europe/Paris")
        .send()
        .await
        .unwrap();
    emu.set_clock(t0() + chrono::Duration::minutes(10)).await;
    let arn = update(&client, "s")
        .schedule_expression("rate(2 minute)")
        .send()
        .await
        .unwrap()
        .schedule_arn;
    assert!(arn.ends_with(":schedule/default/s"), "{arn}");
    let got = client.get_schedule().name("s").send().await.unwrap();
    assert_eq!(got.description(), None);
    assert_eq!(got.state(), Some(&ScheduleState::Enabled));
    assert_eq!(got.schedule_expression_timezone(), Some("UTC"));
    assert_eq!(got.schedule_expression(), Some("rate(2 minute)"));
    assert_eq!(
        got.creation_date(),
        Some(&DateTime::from_secs(t0().timestamp()))
    );
    assert_eq!(
        got.last_modification_date(),
        Some(&DateTime::from_secs(t0().timestamp() + 600))
    );
}

#[tokio::test]
async fn missing_resources_are_404_with_aws_messages() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let not_found = |what: &str| {
        (
            404,
            "ResourceNotFoundException".to_string(),
            format!("{what} does not exist."),
        )
    };
    assert_eq!(
        failure(client.get_schedule().name("nope").send().await),
        not_found("Schedule nope")
    );
    assert_eq!(
        failure(update(&client, "nope").send().await),
        not_found("Schedule nope")
    );
    assert_eq!(
        failure(client.delete_schedule().name("nope").send().await),
        not_found("Schedule nope")
    );
    assert_eq!(
        failure(client.get_schedule_group().name("g").send().await),
        not_found("Schedule group g")
    );
    assert_eq!(
        failure(client.delete_schedule_group().name("g").send().await),
        not_found("Schedule group g")
    );
    assert_eq!(
        failure(create(&client, "s").group_name("g").send().await),
        not_found("Schedule group g")
    );
    assert_eq!(
        failure(client.list_schedules().group_name("g").send().await),
        not_found("Schedule group g")
    );
    let arn = "arn:aws:scheduler:us-east-1:000000000000:schedule-group/g";
    assert_eq!(
        failure(
            client
                .list_tags_for_resource()
                .resource_arn(arn)
                .send()
                .await
        ),
        not_found("Schedule group g")
    );
    assert_eq!(
        failure(
            client
                .tag_resource()
                .resource_arn(arn)
                .tags(tag("k", "v"))
                .send()
                .await
        ),
        not_found("Schedule group g")
    );
    assert_eq!(
        failure(
            client
                .untag_resource()
                .resource_arn(arn)
                .tag_keys("k")
                .send()
                .await
        ),
        not_found("Schedule group g")
    );
}

#[tokio::test]
async fn schedules_live_per_group_and_lookups_without_a_group_use_default() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    client
        .create_schedule_group()
        .name("jobs")
        .send()
        .await
        .unwrap();
    let arn = create(&client, "s")
        .group_name("jobs")
        .schedule_expression("rate(2 hours)")
        .send()
        .await
        .unwrap()
        .schedule_arn;
    assert_eq!(
        arn,
        "arn:aws:scheduler:us-east-1:000000000000:schedule/jobs/s"
    );
    let missing = (
        404,
        "ResourceNotFoundException".to_string(),
        "Schedule s does not exist.".to_string(),
    );
    assert_eq!(
        failure(client.get_schedule().name("s").send().await),
        missing
    );
    assert_eq!(failure(update(&client, "s").send().await), missing);
    assert_eq!(
        failure(client.delete_schedule().name("s").send().await),
        missing
    );
    create(&client, "s").send().await.unwrap();
    let in_jobs = client
        .get_schedule()
        .name("s")
        .group_name("jobs")
        .send()
        .await
        .unwrap();
    assert_eq!(in_jobs.schedule_expression(), Some("rate(2 hours)"));
    assert_eq!(in_jobs.arn(), Some(arn.as_str()));
    client
        .delete_schedule()
        .name("s")
        .group_name("jobs")
        .send()
        .await
        .unwrap();
    assert_eq!(all_schedule_names(&client, None).await, ["default/s"]);
}

#[tokio::test]
async fn duplicates_are_409_conflicts_and_change_nothing() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    client
        .create_schedule_group()
        .name("g")
        .tags(tag("k", "v"))
        .send()
        .await
        .unwrap();
    create(&client, "s").group_name("g").send().await.unwrap();
    assert_eq!(
        failure(
            create(&client, "s")
                .group_name("g")
                .description("second")
                .send()
                .await
        ),
        (
            409,
            "ConflictException".into(),
            "Schedule s already exists.".into()
        )
    );
    assert_eq!(
        failure(client.create_schedule_group().name("g").send().await),
        (
            409,
            "ConflictException".into(),
            "Schedule group g already exists.".into()
        )
    );
    let got = client
        .get_schedule()
        .name("s")
        .group_name("g")
        .send()
        .await
        .unwrap();
    assert_eq!(got.description(), None);
    let arn = "arn:aws:scheduler:us-east-1:000000000000:schedule-group/g";
    let tags = client
        .list_tags_for_resource()
        .resource_arn(arn)
        .send()
        .await
        .unwrap();
    assert_eq!(tags.tags(), [tag("k", "v")]);
}

#[tokio::test]
async fn the_default_group_exists_everywhere_and_cannot_be_deleted() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let got = client
        .get_schedule_group()
        .name("default")
        .send()
        .await
        .unwrap();
    assert_eq!(got.state(), Some(&ScheduleGroupState::Active));
    assert_eq!(
        got.arn(),
        Some("arn:aws:scheduler:us-east-1:000000000000:schedule-group/default")
    );
    assert_eq!(
        failure(client.delete_schedule_group().name("default").send().await),
        (
            400,
            "ValidationException".into(),
            "The default schedule group cannot be deleted.".into()
        )
    );
    client
        .create_schedule_group()
        .name("alpha")
        .send()
        .await
        .unwrap();
    let groups = client.list_schedule_groups().send().await.unwrap();
    let listed: Vec<_> = groups
        .schedule_groups()
        .iter()
        .map(|g| (g.name().unwrap(), g.creation_date().is_some()))
        .collect();
    assert_eq!(listed, [("default", false), ("alpha", true)]);
    // On the wire the default group has only Arn, Name and State.
    let (_, _, body) = emu.raw("GET", "/schedule-groups", &[], "").await;
    let json: Value = serde_json::from_str(&body).unwrap();
    let default = json["ScheduleGroups"][0].as_object().unwrap();
    let mut keys: Vec<_> = default.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["Arn", "Name", "State"]);
}

#[tokio::test]
async fn deleting_a_group_deletes_its_schedules() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    client
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap();
    for n in ["a", "b"] {
        create(&client, n).group_name("g").send().await.unwrap();
    }
    create(&client, "a").send().await.unwrap();
    client
        .delete_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap();
    assert_eq!(all_schedule_names(&client, None).await, ["default/a"]);
    assert_eq!(
        failure(client.get_schedule().name("a").group_name("g").send().await).0,
        404
    );
    client
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap();
    assert!(all_schedule_names(&client, Some("g")).await.is_empty());
}

#[tokio::test]
async fn validation_errors_are_400_with_aws_messages() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let bad = |message: &str| (400, "ValidationException".to_string(), message.to_string());
    let coral = |value: &str, path: &str, constraint: &str| {
        bad(&format!("1 validation error detected: Value {value} at '{path}' failed to satisfy constraint: {constraint}"))
    };
    assert_eq!(
        failure(
            create(&client, "s")
                .schedule_expression("rate(10)")
                .send()
                .await
        ),
        bad("Invalid Schedule Expression rate(10).")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .schedule_expression_timezone("Mars/Olympus_Mons")
                .send()
                .await
        ),
        bad("Invalid ScheduleExpressionTimezone Mars/Olympus_Mons.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .target(
                    Target::builder()
                        .arn(QUEUE)
                        .role_arn("arn:aws:iam::000000000000:user/alice")
                        .build()
                        .unwrap()
                )
                .send()
                .await
        ),
        coral(
            "'arn:aws:iam::000000000000:user/alice'",
            "target.roleArn",
            r"Member must satisfy regular expression pattern: arn:aws(-[a-z]+)?:iam::\d{12}:role\/[\w+=,.@\/-]+"
        )
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .target(
                    Target::builder()
                        .arn(QUEUE)
                        .role_arn(ROLE)
                        .retry_policy(RetryPolicy::builder().maximum_retry_attempts(186).build())
                        .build()
                        .unwrap()
                )
                .send()
                .await
        ),
        coral(
            "'186'",
            "target.retryPolicy.maximumRetryAttempts",
            "Member must have value less than or equal to 185"
        )
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .flexible_time_window(flexible(Some(1441)))
                .send()
                .await
        ),
        coral(
            "'1441'",
            "flexibleTimeWindow.maximumWindowInMinutes",
            "Member must have value less than or equal to 1440"
        )
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .flexible_time_window(flexible(None))
                .send()
                .await
        ),
        bad("MaximumWindowInMinutes must be provided when FlexibleTimeWindow Mode is FLEXIBLE.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .flexible_time_window(
                    FlexibleTimeWindow::builder()
                        .mode(FlexibleTimeWindowMode::Off)
                        .maximum_window_in_minutes(5)
                        .build()
                        .unwrap()
                )
                .send()
                .await
        ),
        bad("MaximumWindowInMinutes must not be provided when FlexibleTimeWindow Mode is OFF.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .flexible_time_window(
                    FlexibleTimeWindow::builder()
                        .mode(FlexibleTimeWindowMode::from("FLEX"))
                        .build()
                        .unwrap()
                )
                .send()
                .await
        ),
        coral(
            "'FLEX'",
            "flexibleTimeWindow.mode",
            "Member must satisfy enum value set: [OFF, FLEXIBLE]"
        )
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .target(
                    Target::builder()
                        .arn(LAMBDA)
                        .role_arn(ROLE)
                        .input("{} garbage")
                        .build()
                        .unwrap()
                )
                .send()
                .await
        ),
        bad("Target Input must be valid JSON for a Lambda target.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .target(target(
                    "arn:aws:events:us-east-1:000000000000:event-bus/default"
                ))
                .send()
                .await
        ),
        bad("EventBridgeParameters must be provided for an EventBridge PutEvents target.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .target(target("arn:aws:sqs:us-east-1:000000000000:q.fifo"))
                .send()
                .await
        ),
        bad("SqsParameters.MessageGroupId must be provided for a FIFO queue target.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .start_date(DateTime::from_secs(t0().timestamp() - 600))
                .send()
                .await
        ),
        bad("The StartDate you specify cannot be earlier than 5 minutes ago.")
    );
    assert_eq!(
        failure(
            create(&client, "s")
                .start_date(DateTime::from_secs(t0().timestamp() + 7200))
                .end_date(DateTime::from_secs(t0().timestamp() + 3600))
                .send()
                .await
        ),
        bad("The EndDate you specify must be later than the StartDate.")
    );
    assert_eq!(
        failure(create(&client, &"n".repeat(65)).send().await),
        coral(
            &format!("'{}'", "n".repeat(65)),
            "name",
            "Member must have length less than or equal to 64"
        )
    );
    assert_eq!(
        failure(client.list_schedules().max_results(101).send().await),
        coral(
            "'101'",
            "maxResults",
            "Member must have value less than or equal to 100"
        )
    );
    assert_eq!(
        failure(
            client
                .list_schedule_groups()
                .next_token("not-ours")
                .send()
                .await
        ),
        bad("The NextToken provided is not valid.")
    );
    // Nothing was created by any of these.
    assert!(all_schedule_names(&client, None).await.is_empty());
    // The same rules hold on update, and a refused update changes nothing.
    create(&client, "s").send().await.unwrap();
    assert_eq!(
        failure(
            update(&client, "s")
                .schedule_expression("rate(10)")
                .send()
                .await
        ),
        bad("Invalid Schedule Expression rate(10).")
    );
    let got = client.get_schedule().name("s").send().await.unwrap();
    assert_eq!(got.schedule_expression(), Some("cron(0 3 * * ? *)"));
}

#[tokio::test]
async fn list_schedules_pages_stably_under_concurrent_inserts_and_deletes() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    for i in 0..10 {
        create(&client, &format!("s{i:02}")).send().await.unwrap();
    }
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = client
            .list_schedules()
            .max_results(3)
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        pages += 1;
        assert!(page.schedules().len() <= 3);
        seen.extend(
            page.schedules()
                .iter()
                .map(|s| s.name().unwrap().to_string()),
        );
        token = page.next_token().map(Into::into);
        if token.is_none() {
            break;
        }
        // Meanwhile: one insert before the cursor, one after, and one delete ahead.
        let inserted = pages;
        create(&client, &format!("s00-{inserted}"))
            .send()
            .await
            .unwrap();
        create(&client, &format!("s99-{inserted}"))
            .send()
            .await
            .unwrap();
        let ahead = format!("s{:02}", 3 * pages + 1);
        let _ = client.delete_schedule().name(&ahead).send().await;
    }
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(seen, sorted, "in order, each at most once");
    for original in ["s00", "s01", "s02", "s03"] {
        assert!(seen.contains(&original.to_string()), "{original}: {seen:?}");
    }
    assert!(seen.iter().any(|n| n.starts_with("s99-")), "{seen:?}");
    assert!(!seen.iter().any(|n| n.starts_with("s00-")), "{seen:?}");

    // The SDK paginator walks the same pages.
    let all: Vec<_> = client
        .list_schedules()
        .max_results(4)
        .into_paginator()
        .items()
        .send()
        .collect::<Result<Vec<_>, _>>()
        .await
        .unwrap();
    assert_eq!(all.len(), all_schedule_names(&client, None).await.len());
}

#[tokio::test]
async fn list_filters_by_prefix_state_and_group() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    client
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap();
    create(&client, "job-a")
        .group_name("g")
        .send()
        .await
        .unwrap();
    create(&client, "job-b")
        .group_name("g")
        .state(ScheduleState::Disabled)
        .send()
        .await
        .unwrap();
    create(&client, "other")
        .group_name("g")
        .send()
        .await
        .unwrap();
    create(&client, "job-c").send().await.unwrap();
    let names = |page: aws_sdk_scheduler::operation::list_schedules::ListSchedulesOutput| {
        page.schedules()
            .iter()
            .map(|s| s.name().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let by_prefix = client
        .list_schedules()
        .name_prefix("job")
        .send()
        .await
        .unwrap();
    assert_eq!(names(by_prefix), ["job-c", "job-a", "job-b"]);
    let disabled = client
        .list_schedules()
        .state(ScheduleState::Disabled)
        .send()
        .await
        .unwrap();
    assert_eq!(names(disabled), ["job-b"]);
    let in_g = client
        .list_schedules()
        .group_name("g")
        .state(ScheduleState::Enabled)
        .send()
        .await
        .unwrap();
    let summary = &in_g.schedules()[0];
    assert_eq!(summary.target().map(|t| t.arn()), Some(QUEUE));
    assert_eq!(names(in_g), ["job-a", "other"]);
}

#[tokio::test]
async fn client_token_replays_the_first_result() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let first = create(&client, "s")
        .client_token("tok-1")
        .send()
        .await
        .unwrap();
    let again = create(&client, "s")
        .client_token("tok-1")
        .send()
        .await
        .unwrap();
    assert_eq!(again.schedule_arn, first.schedule_arn);
    assert_eq!(all_schedule_names(&client, None).await, ["default/s"]);
    assert_eq!(
        failure(
            create(&client, "s")
                .client_token("tok-1")
                .description("another request")
                .send()
                .await
        ),
        (
            409,
            "ConflictException".into(),
            "The ClientToken tok-1 was already used with a different request.".into()
        )
    );
    // Without an explicit token the SDK sends a fresh one: a plain duplicate is a conflict.
    assert_eq!(failure(create(&client, "s").send().await).0, 409);
    // A retried delete answers as the first did.
    client
        .delete_schedule()
        .name("s")
        .client_token("del-1")
        .send()
        .await
        .unwrap();
    client
        .delete_schedule()
        .name("s")
        .client_token("del-1")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn group_tags_use_the_fully_percent_encoded_arn() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let arn = client
        .create_schedule_group()
        .name("g.1")
        .tags(tag("TagKey", "TagValue"))
        .send()
        .await
        .unwrap()
        .schedule_group_arn;
    assert_eq!(
        arn,
        "arn:aws:scheduler:us-east-1:000000000000:schedule-group/g.1"
    );
    client
        .tag_resource()
        .resource_arn(&arn)
        .tags(tag("team", "platform"))
        .tags(tag("TagKey", "changed"))
        .send()
        .await
        .unwrap();
    let tags = client
        .list_tags_for_resource()
        .resource_arn(&arn)
        .send()
        .await
        .unwrap();
    assert_eq!(
        tags.tags(),
        [tag("TagKey", "changed"), tag("team", "platform")]
    );
    client
        .untag_resource()
        .resource_arn(&arn)
        .tag_keys("TagKey")
        .tag_keys("team")
        .send()
        .await
        .unwrap();
    let (status, _, body) = emu
        .raw(
            "GET",
            "/tags/arn%3Aaws%3Ascheduler%3Aus-east-1%3A000000000000%3Aschedule-group%2Fg.1",
            &[],
            "",
        )
        .await;
    assert_eq!((status, body.as_str()), (200, r#"{"Tags":[]}"#));
    // GetScheduleGroup does not return tags.
    let (_, _, body) = emu.raw("GET", "/schedule-groups/g.1", &[], "").await;
    let json: Value = serde_json::from_str(&body).unwrap();
    assert!(json.get("Tags").is_none(), "{json}");
    // Schedules cannot be tagged: their ARN fails the model's pattern.
    let schedule_arn = create(&client, "s").send().await.unwrap().schedule_arn;
    let (status, code, message) = failure(
        client
            .tag_resource()
            .resource_arn(&schedule_arn)
            .tags(tag("k", "v"))
            .send()
            .await,
    );
    assert_eq!((status, code.as_str()), (400, "ValidationException"));
    assert!(
        message.starts_with(&format!(
            "1 validation error detected: Value '{schedule_arn}' at 'resourceArn'"
        )),
        "{message}"
    );
    assert_eq!(
        failure(
            client
                .tag_resource()
                .resource_arn(&arn)
                .tags(tag("aws:team", "x"))
                .send()
                .await
        ),
        (
            400,
            "ValidationException".into(),
            "Tag key 'aws:team' is not valid: keys starting with 'aws:' are reserved for AWS use."
                .into()
        )
    );
}

#[tokio::test]
async fn a_twelve_digit_access_key_selects_an_isolated_account() {
    let emu = Emulator::start().await;
    let default_account = emu.scheduler().await;
    let other = Client::new(&emu.sdk_config_for("123456789012").await);
    create(&default_account, "s").send().await.unwrap();
    assert_eq!(failure(other.get_schedule().name("s").send().await).0, 404);
    let arn = create(&other, "s").send().await.unwrap().schedule_arn;
    assert_eq!(
        arn,
        "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s"
    );
    other
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap();
    assert_eq!(
        failure(default_account.get_schedule_group().name("g").send().await).0,
        404
    );
    // Another account's group ARN is not found from here.
    let foreign = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g";
    assert_eq!(
        failure(
            default_account
                .list_tags_for_resource()
                .resource_arn(foreign)
                .send()
                .await
        )
        .0,
        404
    );
    assert_eq!(all_schedule_names(&other, None).await, ["default/s"]);
}

#[tokio::test]
async fn regions_are_isolated() {
    let emu = Emulator::start().await;
    let us = emu.scheduler().await;
    let conf = aws_sdk_scheduler::config::Builder::from(&emu.sdk_config().await)
        .region(aws_sdk_scheduler::config::Region::new("eu-west-1"))
        .build();
    let eu = Client::from_conf(conf);
    create(&us, "s").send().await.unwrap();
    assert!(all_schedule_names(&eu, None).await.is_empty());
    let arn = create(&eu, "s")
        .schedule_expression("rate(1 day)")
        .send()
        .await
        .unwrap()
        .schedule_arn;
    assert_eq!(
        arn,
        "arn:aws:scheduler:eu-west-1:000000000000:schedule/default/s"
    );
    assert_eq!(
        us.get_schedule()
            .name("s")
            .send()
            .await
            .unwrap()
            .schedule_expression(),
        Some("cron(0 3 * * ? *)")
    );
    assert!(eu.get_schedule_group().name("default").send().await.is_ok());
}

#[tokio::test]
async fn errors_carry_the_error_type_header_and_a_message_body() {
    let emu = Emulator::start().await;
    let (status, headers, body) = emu.raw("GET", "/schedules/missing", &[], "").await;
    assert_eq!(status, 404);
    assert_eq!(
        headers.get("x-amzn-errortype").map(|v| v.to_str().unwrap()),
        Some("ResourceNotFoundException")
    );
    assert_eq!(body, r#"{"Message":"Schedule missing does not exist."}"#);
    assert!(headers.contains_key("x-amzn-requestid"));

    let (status, headers, _) = emu
        .raw(
            "POST",
            "/schedules/s",
            &[("content-type", "application/json")],
            "{not json",
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        headers.get("x-amzn-errortype").map(|v| v.to_str().unwrap()),
        Some("SerializationException")
    );
    let (status, _, body) = emu.raw("PUT", "/schedule-groups/g", &[], "").await;
    assert_eq!(status, 400, "{body}");
    // A missing required member, which the SDKs would not send, is reported as AWS does.
    let (status, _, body) = emu
        .raw(
            "POST",
            "/schedules/s",
            &[("content-type", "application/json")],
            r#"{"ScheduleExpression":"rate(1 hour)","Target":{"Arn":"a","RoleArn":"arn:aws:iam::000000000000:role/r"}}"#,
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        r#"{"Message":"1 validation error detected: Value null at 'flexibleTimeWindow' failed to satisfy constraint: Member must not be null"}"#
    );
}

/// Regression: the acceptance cases `test_invalid_expression_is_rejected_with_aws_message` and
/// `test_update_with_invalid_expression_is_rejected` failed while the expression module was a
/// placeholder (any six-field cron passed). These are the expressions AWS refused when recorded
/// (`scheduler::tests_create_schedule_with_invalid_schedule_expression[...]`), and those it took.
#[tokio::test]
async fn recorded_expressions_are_refused_or_accepted_as_aws_did() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    let refused = [
        "cron(0 1 * * * *)",
        "cron(7 20 * * NOT *)",
        "cron(INVALID)",
        "cron(0 dummy ? * MON-FRI *)",
        "cron(71 8 1 * ? *)",
        "cron()",
        "rate(10 seconds)",
        "rate(10 years)",
        "rate()",
        "rate(10)",
        "rate(10 minutess)",
        "rate(foo minutes)",
        "rate(-10 minutes)",
        "rate( 10 minutes )",
        " rate(10 minutes)",
        "at(2021-12-31T23:59:59Z)",
        "at(2021-12-31)",
    ];
    for expression in refused {
        assert_eq!(
            failure(
                create(&client, "bad")
                    .schedule_expression(expression)
                    .flexible_time_window(flexible(Some(4)))
                    .target(target(LAMBDA))
                    .send()
                    .await
            ),
            (
                400,
                "ValidationException".to_string(),
                format!("Invalid Schedule Expression {expression}.")
            ),
            "{expression:?}"
        );
    }
    create(&client, "s").send().await.unwrap();
    assert_eq!(
        failure(
            update(&client, "s")
                .schedule_expression("cron(0 1 * * * *)")
                .send()
                .await
        )
        .2,
        "Invalid Schedule Expression cron(0 1 * * * *)."
    );
    for (i, expression) in [
        "at(2022-12-31T23:59:59)",
        "rate(1 minute)",
        "rate(2 minute)",
        "cron(0-15/1 8-8 ? * 2,3,4,5,6,7 *)",
        "cron(30-30 13-13 ? * 2,4,6 *)",
        "cron(1-31/30 1-1 ? * 1,7 *)",
        "cron(0 18 ? * MON-FRI *)",
        "cron(*/15 * * * ? *)",
        "cron(0-59/10 0-23/2 ? * * *)",
        "cron(0 0 * * ? *)",
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("ok-{i}");
        create(&client, &name)
            .schedule_expression(expression)
            .target(target(LAMBDA))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{expression}: {e:?}"));
        let got = client.get_schedule().name(&name).send().await.unwrap();
        assert_eq!(got.schedule_expression(), Some(expression));
    }
}

#[tokio::test]
async fn a_stored_schedule_previews_its_next_fires() {
    let emu = Emulator::start().await;
    let client = emu.scheduler().await;
    create(&client, "daily")
        .schedule_expression("cron(30 6 * * ? *)")
        .schedule_expression_timezone("America/New_York")
        .send()
        .await
        .unwrap();
    let (status, body) = emu
        .control(
            "GET",
            "/_cumulo/scheduler/schedules/default/daily/preview?count=2",
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["fires"],
        serde_json::json!([
            {"utc": "2030-01-02T11:30:00Z", "local": "2030-01-02T06:30:00-05:00"},
            {"utc": "2030-01-03T11:30:00Z", "local": "2030-01-03T06:30:00-05:00"},
        ])
    );
    let (status, body) = emu
        .control(
            "GET",
            "/_cumulo/scheduler/schedules/default/nope/preview",
            None,
        )
        .await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["message"], "Schedule nope does not exist.");
}
