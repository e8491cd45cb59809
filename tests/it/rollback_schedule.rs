//! `AWS::Scheduler::Schedule` and `AWS::Scheduler::ScheduleGroup` through stack updates
//! (issue 6): every property CloudFormation can change in place, the dispatcher dropping the
//! pending retry of a configuration an update replaced, Name replacement with its physical ids
//! and UpdateReplacePolicy, the GroupName move (never two enabled copies), Kinesis and SageMaker
//! target parameters, ownership of same-named schedules made outside the stack, and the
//! `aws:cloudformation:*` system tags of groups (aws-contract.md §3.3, §5.1, §5.2; seed 000).

use aws_sdk_cloudformation::types::{StackStatus, Tag};
use aws_sdk_scheduler::error::ProvideErrorMetadata;
use aws_sdk_scheduler::primitives::DateTime;
use aws_sdk_scheduler::types::{FlexibleTimeWindow, FlexibleTimeWindowMode, ScheduleState};
use chrono::Duration;
use serde_json::json;

use crate::fixtures::{brief, create, describe, events, fault, since, status, update};
use crate::rollback_support::{get, state, ScheduleView, FULL};
use crate::support::{t0, Emulator};

fn date(text: &str) -> Option<DateTime> {
    Some(DateTime::from_secs(
        cumulo::time::parse_rfc3339(text).unwrap().timestamp(),
    ))
}

#[tokio::test]
async fn every_schedule_property_updates_in_place_keeping_arn_and_creation_date() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    assert_eq!(
        create(&cfn, "inplace", FULL, &[]).await,
        StackStatus::CreateComplete
    );
    let mut expected = get(&emu, "default", "inplace-nightly").await.unwrap();
    assert_eq!(expected.description.as_deref(), Some("first"));
    emu.set_clock(t0() + Duration::minutes(1)).await;

    type Edit = fn(&mut ScheduleView);
    let changes: Vec<(&str, &str, Edit)> = vec![
        ("Expression", "rate(3 hours)", |v| {
            v.schedule_expression = Some("rate(3 hours)".into())
        }),
        ("State", "DISABLED", |v| {
            v.state = Some(ScheduleState::Disabled)
        }),
        ("StartDate", "2030-01-03T00:00:00Z", |v| {
            v.start_date = date("2030-01-03T00:00:00Z")
        }),
        ("EndDate", "2031-06-01T00:00:00Z", |v| {
            v.end_date = date("2031-06-01T00:00:00Z")
        }),
        ("Timezone", "Europe/Paris", |v| {
            v.schedule_expression_timezone = Some("Europe/Paris".into())
        }),
        ("Window", "15", |v| {
            v.flexible_time_window = Some(
                FlexibleTimeWindow::builder()
                    .mode(FlexibleTimeWindowMode::Flexible)
                    .maximum_window_in_minutes(15)
                    .build()
                    .unwrap(),
            )
        }),
        ("Kms", "arn:aws:kms:us-east-1:000000000000:key/two", |v| {
            v.kms_key_arn = Some("arn:aws:kms:us-east-1:000000000000:key/two".into())
        }),
        ("Description", "second", |v| {
            v.description = Some("second".into())
        }),
        ("Input", r#"{"v":2}"#, |v| {
            let t = v.target.take().unwrap();
            v.target = Some(
                aws_sdk_scheduler::types::Target::builder()
                    .arn(t.arn())
                    .role_arn(t.role_arn())
                    .input(r#"{"v":2}"#)
                    .set_retry_policy(t.retry_policy().cloned())
                    .set_dead_letter_config(t.dead_letter_config().cloned())
                    .build()
                    .unwrap(),
            );
        }),
        ("Retries", "7", |v| {
            let t = v.target.take().unwrap();
            v.target = Some(
                aws_sdk_scheduler::types::Target::builder()
                    .arn(t.arn())
                    .role_arn(t.role_arn())
                    .set_input(t.input().map(str::to_string))
                    .retry_policy(
                        aws_sdk_scheduler::types::RetryPolicy::builder()
                            .maximum_event_age_in_seconds(3600)
                            .maximum_retry_attempts(7)
                            .build(),
                    )
                    .set_dead_letter_config(t.dead_letter_config().cloned())
                    .build()
                    .unwrap(),
            );
        }),
    ];
    let mut given: Vec<(&str, &str)> = Vec::new();
    for (key, value, edit) in changes {
        given.push((key, value));
        assert_eq!(
            update(&cfn, "inplace", FULL, &given).await,
            StackStatus::UpdateComplete,
            "{key}"
        );
        edit(&mut expected);
        let got = get(&emu, "default", "inplace-nightly").await.unwrap();
        assert_eq!(got, expected, "after changing {key}");
        let all = events(&cfn, "inplace").await;
        let last = since(&all, "inplace", "UPDATE_IN_PROGRESS");
        let stack = last[0].2.as_str();
        assert_eq!(
            brief(&last),
            vec![
                ("inplace", "UPDATE_IN_PROGRESS", stack),
                ("Nightly", "UPDATE_IN_PROGRESS", "inplace-nightly"),
                ("Nightly", "UPDATE_COMPLETE", "inplace-nightly"),
                ("inplace", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", stack),
                ("inplace", "UPDATE_COMPLETE", stack),
            ],
            "{key}"
        );
    }
}

/// Two schedules on one queue; only `Changed` takes its Input from a parameter.
const RETRIES: &str = include_str!("../templates/rollback_schedule/retries.yaml");

#[tokio::test]
async fn an_in_place_update_drops_the_pending_retry_of_the_old_configuration() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    assert_eq!(
        create(&cfn, "retry", RETRIES, &[]).await,
        StackStatus::CreateComplete
    );
    let queue_arn = describe(&cfn, "retry").await.outputs()[0]
        .output_value()
        .unwrap()
        .to_string();
    fault(
        &emu,
        json!({"target_arn": queue_arn, "message": "target down", "count": 2}),
    )
    .await;
    // Both schedules fire at once and fail; each has a retry due 60 s later.
    let fired = emu.set_clock(t0() + Duration::seconds(1)).await;
    let mut outcomes: Vec<(&str, &str)> = fired["fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["schedule_arn"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap(),
                f["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    outcomes.sort();
    assert_eq!(
        outcomes,
        vec![("changed", "failed"), ("unchanged", "failed")]
    );

    assert_eq!(
        update(&cfn, "retry", RETRIES, &[("Input", "new")]).await,
        StackStatus::UpdateComplete
    );
    // Only the schedule the update left alone retries; the other's next attempt is its next
    // occurrence, with the new Input.
    let fired = emu.set_clock(t0() + Duration::minutes(9)).await;
    let retried: Vec<(String, i64, String)> = fired["fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["schedule_arn"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                f["attempt"].as_i64().unwrap(),
                f["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        retried,
        vec![("unchanged".to_string(), 2, "delivered".to_string())]
    );
    let fired = emu.set_clock(t0() + Duration::minutes(10)).await;
    let mut next: Vec<(String, i64)> = fired["fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["schedule_arn"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                f["attempt"].as_i64().unwrap(),
            )
        })
        .collect();
    next.sort();
    assert_eq!(
        next,
        vec![("changed".to_string(), 1), ("unchanged".to_string(), 1)]
    );
    let (code, body) = emu
        .control(
            "GET",
            "/_cumulo/scheduler/invocations?schedule_arn=arn:aws:scheduler:us-east-1:000000000000:schedule/default/changed",
            None,
        )
        .await;
    assert_eq!(code, 200);
    let requests: Vec<(i64, String, String)> = body["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["attempt"].as_i64().unwrap(),
                i["outcome"].as_str().unwrap().to_string(),
                i["request"]["MessageBody"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        requests,
        vec![
            (1, "failed".to_string(), "old".to_string()),
            (1, "delivered".to_string(), "new".to_string())
        ]
    );
}

#[tokio::test]
async fn a_name_change_creates_the_new_schedule_during_the_update_and_deletes_the_old_at_cleanup() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "rename", FULL, &[]).await;
    let old = get(&emu, "default", "rename-nightly").await.unwrap();
    // Held on a later step: the new schedule exists beside the old one, both enabled.
    fault(
        &emu,
        json!({"stack_name": "rename", "logical_id": "Later", "operation": "update", "hold_seconds": 30}),
    )
    .await;
    let changed = [("Name", "renamed"), ("LaterExpression", "rate(3 hours)")];
    assert_eq!(
        update(&cfn, "rename", FULL, &changed).await,
        StackStatus::UpdateInProgress
    );
    assert_eq!(
        state(&emu, "default", "rename-nightly").await.as_deref(),
        Some("ENABLED")
    );
    assert_eq!(
        state(&emu, "default", "rename-renamed").await.as_deref(),
        Some("ENABLED")
    );
    cfn.cancel_update_stack()
        .stack_name("rename")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "rename").await,
        StackStatus::UpdateRollbackComplete
    );
    // The rollback deleted what the update created and left the old one untouched.
    assert_eq!(get(&emu, "default", "rename-renamed").await, None);
    assert_eq!(
        get(&emu, "default", "rename-nightly").await,
        Some(old.clone())
    );
    let all = events(&cfn, "rename").await;
    let rollback = since(
        &all,
        "rename",
        "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
    );
    let stack = rollback[0].2.as_str();
    assert_eq!(
        brief(&rollback),
        vec![
            (
                "rename",
                "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
                stack
            ),
            ("Nightly", "DELETE_IN_PROGRESS", "rename-renamed"),
            ("Nightly", "DELETE_COMPLETE", "rename-renamed"),
            ("rename", "UPDATE_ROLLBACK_COMPLETE", stack),
        ]
    );

    // Without the hold the update commits and the cleanup deletes the old schedule.
    assert_eq!(
        update(&cfn, "rename", FULL, &changed).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(get(&emu, "default", "rename-nightly").await, None);
    let new = get(&emu, "default", "rename-renamed").await.unwrap();
    assert_eq!(
        new.arn,
        "arn:aws:scheduler:us-east-1:000000000000:schedule/default/rename-renamed"
    );
    assert_eq!(
        (new.schedule_expression, new.target, new.description),
        (old.schedule_expression, old.target, old.description)
    );
    let stack = describe(&cfn, "rename").await;
    assert_eq!(stack.outputs()[0].output_value(), Some("rename-renamed"));
    let all = events(&cfn, "rename").await;
    let last = since(&all, "rename", "UPDATE_IN_PROGRESS");
    let nightly: Vec<_> = last
        .iter()
        .filter(|e| e.0 == "Nightly" || e.0 == "rename")
        .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str(), e.3.as_str()))
        .collect();
    let sid = nightly[0].2;
    assert_eq!(
        nightly,
        vec![
            ("rename", "UPDATE_IN_PROGRESS", sid, "User Initiated"),
            (
                "Nightly",
                "UPDATE_IN_PROGRESS",
                "rename-nightly",
                "Requested update requires the creation of a new physical resource; hence creating one."
            ),
            ("Nightly", "UPDATE_IN_PROGRESS", "rename-renamed", "Resource creation Initiated"),
            ("Nightly", "UPDATE_COMPLETE", "rename-renamed", ""),
            ("rename", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", sid, ""),
            ("Nightly", "DELETE_IN_PROGRESS", "rename-nightly", ""),
            ("Nightly", "DELETE_COMPLETE", "rename-nightly", ""),
            ("rename", "UPDATE_COMPLETE", sid, ""),
        ]
    );
}

#[tokio::test]
async fn update_replace_policy_retain_keeps_the_replaced_schedule_but_not_a_moved_one() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let body = FULL.replace(
        "    DependsOn: [Blue, Green]\n",
        "    DependsOn: [Blue, Green]\n    UpdateReplacePolicy: Retain\n",
    );
    create(&cfn, "keep", &body, &[]).await;
    let old = get(&emu, "default", "keep-nightly").await.unwrap();
    assert_eq!(
        update(&cfn, "keep", &body, &[("Name", "renamed")]).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(get(&emu, "default", "keep-nightly").await, Some(old));
    let all = events(&cfn, "keep").await;
    let cleanup = since(&all, "keep", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS");
    assert_eq!(
        brief(&cleanup)[1],
        ("Nightly", "DELETE_SKIPPED", "keep-nightly")
    );
    // A move is not a replacement: the old address is deleted whatever the policy.
    let blue = "keep-blue";
    assert_eq!(
        update(&cfn, "keep", &body, &[("Name", "renamed"), ("Group", blue)]).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(get(&emu, "default", "keep-renamed").await, None);
    assert!(get(&emu, blue, "keep-renamed").await.is_some());
    // The retained schedule left the stack: deleting the stack leaves it alone.
    cfn.delete_stack().stack_name("keep").send().await.unwrap();
    assert!(get(&emu, "default", "keep-nightly").await.is_some());
    assert_eq!(get(&emu, blue, "keep-renamed").await, None);
}

#[tokio::test]
async fn a_group_move_disables_the_old_schedule_before_creating_the_destination() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "mv", FULL, &[]).await;
    emu.set_clock(t0() + Duration::minutes(1)).await;
    let original = get(&emu, "default", "mv-nightly").await.unwrap();
    // A rule that only holds stops the move half-way: the old schedule is already disabled
    // and the destination not created yet.
    fault(
        &emu,
        json!({"stack_name": "mv", "logical_id": "Nightly", "operation": "update", "hold_seconds": 30}),
    )
    .await;
    assert_eq!(
        update(&cfn, "mv", FULL, &[("Group", "mv-blue")]).await,
        StackStatus::UpdateInProgress
    );
    assert_eq!(
        state(&emu, "default", "mv-nightly").await.as_deref(),
        Some("DISABLED")
    );
    assert_eq!(get(&emu, "mv-blue", "mv-nightly").await, None);
    cfn.cancel_update_stack()
        .stack_name("mv")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "mv").await,
        StackStatus::UpdateRollbackComplete
    );
    let mut back = get(&emu, "default", "mv-nightly").await.unwrap();
    assert_eq!(back, original);
    assert_eq!(get(&emu, "mv-blue", "mv-nightly").await, None);

    // Held after the move (on Later): the source is disabled, the destination enabled.
    fault(
        &emu,
        json!({"stack_name": "mv", "logical_id": "Later", "operation": "update", "hold_seconds": 30}),
    )
    .await;
    let moved = [("Group", "mv-blue"), ("LaterExpression", "rate(5 hours)")];
    assert_eq!(
        update(&cfn, "mv", FULL, &moved).await,
        StackStatus::UpdateInProgress
    );
    assert_eq!(
        state(&emu, "default", "mv-nightly").await.as_deref(),
        Some("DISABLED")
    );
    assert_eq!(
        state(&emu, "mv-blue", "mv-nightly").await.as_deref(),
        Some("ENABLED")
    );
    cfn.cancel_update_stack()
        .stack_name("mv")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "mv").await,
        StackStatus::UpdateRollbackComplete
    );
    back = get(&emu, "default", "mv-nightly").await.unwrap();
    assert_eq!(back, original);
    assert_eq!(get(&emu, "mv-blue", "mv-nightly").await, None);

    // The move itself: same Ref, the Arn names the new group, nothing left behind.
    assert_eq!(
        update(&cfn, "mv", FULL, &moved).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(get(&emu, "default", "mv-nightly").await, None);
    let dest = get(&emu, "mv-blue", "mv-nightly").await.unwrap();
    let mut expected = original.clone();
    expected.arn = "arn:aws:scheduler:us-east-1:000000000000:schedule/mv-blue/mv-nightly".into();
    expected.group_name = "mv-blue".into();
    expected.creation_date = dest.creation_date;
    assert_eq!(dest, expected);
    let stack = describe(&cfn, "mv").await;
    assert_eq!(stack.outputs()[0].output_value(), Some("mv-nightly"));
    assert_eq!(
        stack.outputs()[1].output_value(),
        Some(expected.arn.as_str())
    );
    let all = events(&cfn, "mv").await;
    let last = since(&all, "mv", "UPDATE_IN_PROGRESS");
    let nightly: Vec<(&str, &str)> = last
        .iter()
        .filter(|e| e.0 == "Nightly")
        .map(|e| (e.1.as_str(), e.2.as_str()))
        .collect();
    assert_eq!(
        nightly,
        vec![
            ("UPDATE_IN_PROGRESS", "mv-nightly"),
            ("UPDATE_COMPLETE", "mv-nightly"),
            ("DELETE_IN_PROGRESS", "mv-nightly"),
            ("DELETE_COMPLETE", "mv-nightly"),
        ]
    );
    let cleanup = last
        .iter()
        .position(|e| e.1 == "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS")
        .unwrap();
    let delete = last
        .iter()
        .position(|e| e.0 == "Nightly" && e.1 == "DELETE_IN_PROGRESS")
        .unwrap();
    assert!(cleanup < delete, "the source goes at cleanup: {last:#?}");
}

#[tokio::test]
async fn a_move_needs_its_destination_group_and_a_missing_one_rolls_back() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "nogroup", FULL, &[]).await;
    emu.set_clock(t0() + Duration::minutes(1)).await;
    let original = get(&emu, "default", "nogroup-nightly").await.unwrap();
    assert_eq!(
        update(&cfn, "nogroup", FULL, &[("Group", "nowhere")]).await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "nogroup").await;
    let failed = all
        .iter()
        .find(|e| e.0 == "Nightly" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert!(
        failed.3.starts_with(
            "Resource handler returned message: \"Schedule group nowhere does not exist.\""
        ),
        "{}",
        failed.3
    );
    assert!(
        failed.3.ends_with("HandlerErrorCode: NotFound)"),
        "{}",
        failed.3
    );
    assert_eq!(failed.2, "nogroup-nightly");
    assert_eq!(
        get(&emu, "default", "nogroup-nightly").await,
        Some(original)
    );
}

/// v2 of a stack whose schedule moves into a group the same update declares.
const INTO_NEW_GROUP: &str = include_str!("../templates/rollback_schedule/into_new_group.yaml");

#[tokio::test]
async fn a_move_into_a_group_the_same_update_declares_creates_the_group_first() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let v1 = INTO_NEW_GROUP
        .replace("  Purple:\n    Type: AWS::Scheduler::ScheduleGroup\n", "")
        .replace("      GroupName: !Ref Purple\n", "");
    create(&cfn, "purple", &v1, &[]).await;
    assert_eq!(
        update(&cfn, "purple", INTO_NEW_GROUP, &[]).await,
        StackStatus::UpdateComplete
    );
    let group = cfn
        .describe_stack_resource()
        .stack_name("purple")
        .logical_resource_id("Purple")
        .send()
        .await
        .unwrap()
        .stack_resource_detail()
        .unwrap()
        .physical_resource_id()
        .unwrap()
        .to_string();
    assert!(group.starts_with("purple-Purple-"), "{group}");
    assert_eq!(
        state(&emu, &group, "tick").await.as_deref(),
        Some("ENABLED")
    );
    assert_eq!(get(&emu, "default", "tick").await, None);
    let all = events(&cfn, "purple").await;
    let last = since(&all, "purple", "UPDATE_IN_PROGRESS");
    let order: Vec<(&str, &str)> = last
        .iter()
        .filter(|e| e.0 != "purple")
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    assert_eq!(
        order,
        vec![
            ("Purple", "CREATE_IN_PROGRESS"),
            ("Purple", "CREATE_IN_PROGRESS"),
            ("Purple", "CREATE_COMPLETE"),
            ("Tick", "UPDATE_IN_PROGRESS"),
            ("Tick", "UPDATE_COMPLETE"),
            ("Tick", "DELETE_IN_PROGRESS"),
            ("Tick", "DELETE_COMPLETE"),
        ]
    );
}

/// A schedule whose Kinesis or SageMaker target parameters come from parameters.
const TARGET_PARAMETERS: &str =
    include_str!("../templates/rollback_schedule/target_parameters.yaml");

#[tokio::test]
async fn kinesis_and_sagemaker_parameters_are_kept_validated_and_updated_in_place() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    assert_eq!(
        create(&cfn, "targets", TARGET_PARAMETERS, &[]).await,
        StackStatus::CreateComplete
    );
    let kinesis = |v: &ScheduleView| {
        v.target
            .as_ref()
            .and_then(|t| t.kinesis_parameters())
            .map(|k| k.partition_key().to_string())
    };
    let pipeline = |v: &ScheduleView| {
        v.target
            .as_ref()
            .and_then(|t| t.sage_maker_pipeline_parameters())
            .map(|p| {
                p.pipeline_parameter_list()
                    .iter()
                    .map(|x| (x.name().to_string(), x.value().to_string()))
                    .collect::<Vec<_>>()
            })
    };
    let stream = get(&emu, "default", "to-kinesis").await.unwrap();
    assert_eq!(kinesis(&stream).as_deref(), Some("first"));
    let train = get(&emu, "default", "to-sagemaker").await.unwrap();
    assert_eq!(
        pipeline(&train),
        Some(vec![("Stage".to_string(), "one".to_string())])
    );

    let changed = [("PartitionKey", "second"), ("PipelineValue", "two")];
    assert_eq!(
        update(&cfn, "targets", TARGET_PARAMETERS, &changed).await,
        StackStatus::UpdateComplete
    );
    let stream2 = get(&emu, "default", "to-kinesis").await.unwrap();
    assert_eq!(kinesis(&stream2).as_deref(), Some("second"));
    assert_eq!(stream2.creation_date, stream.creation_date);
    let train2 = get(&emu, "default", "to-sagemaker").await.unwrap();
    assert_eq!(
        pipeline(&train2),
        Some(vec![("Stage".to_string(), "two".to_string())])
    );

    // Invalid values fail the resource with the message the API gives for the same input.
    let api = emu
        .scheduler()
        .await
        .create_schedule()
        .name("direct")
        .schedule_expression("rate(1 hour)")
        .flexible_time_window(
            FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
        .target(
            aws_sdk_scheduler::types::Target::builder()
                .arn("arn:aws:kinesis:us-east-1:000000000000:stream/clicks")
                .role_arn("arn:aws:iam::000000000000:role/r")
                .kinesis_parameters(
                    aws_sdk_scheduler::types::KinesisParameters::builder()
                        .partition_key("k".repeat(257))
                        .build()
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    let api_message = api.message().unwrap().to_string();
    let too_long = "k".repeat(257);
    assert_eq!(
        update(
            &cfn,
            "targets",
            TARGET_PARAMETERS,
            &[
                ("PartitionKey", too_long.as_str()),
                ("PipelineValue", "two")
            ]
        )
        .await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "targets").await;
    let failed = all
        .iter()
        .find(|e| e.0 == "Stream" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert!(
        failed.3.starts_with(&format!(
            "Resource handler returned message: \"{api_message}\""
        )),
        "{} vs {api_message}",
        failed.3
    );
    assert_eq!(
        get(&emu, "default", "to-kinesis").await,
        Some(stream2.clone())
    );
    assert_eq!(
        update(
            &cfn,
            "targets",
            TARGET_PARAMETERS,
            &[
                ("PartitionKey", "second"),
                ("PipelineValue", "two"),
                ("PipelineName", "bad name")
            ]
        )
        .await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "targets").await;
    let failed = all
        .iter()
        .rfind(|e| e.0 == "Pipeline" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert!(
        failed
            .3
            .contains("target.sageMakerPipelineParameters.pipelineParameterList"),
        "{}",
        failed.3
    );
    assert_eq!(get(&emu, "default", "to-sagemaker").await, Some(train2));
}

fn off() -> FlexibleTimeWindow {
    FlexibleTimeWindow::builder()
        .mode(FlexibleTimeWindowMode::Off)
        .build()
        .unwrap()
}

async fn outside(emu: &Emulator, group: Option<&str>, name: &str) -> ScheduleView {
    emu.scheduler()
        .await
        .create_schedule()
        .name(name)
        .set_group_name(group.map(str::to_string))
        .schedule_expression("rate(5 minutes)")
        .flexible_time_window(off())
        .target(
            aws_sdk_scheduler::types::Target::builder()
                .arn("arn:aws:sqs:us-east-1:000000000000:elsewhere")
                .role_arn("arn:aws:iam::000000000000:role/r")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    get(emu, group.unwrap_or("default"), name).await.unwrap()
}

#[tokio::test]
async fn a_replacement_or_move_onto_a_schedule_made_outside_the_stack_fails_and_leaves_it_alone() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "own", FULL, &[]).await;
    let original = get(&emu, "default", "own-nightly").await.unwrap();
    let taken = outside(&emu, None, "own-taken").await;

    // A rename onto a taken name.
    assert_eq!(
        update(&cfn, "own", FULL, &[("Name", "taken")]).await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "own").await;
    let failed = all
        .iter()
        .rfind(|e| e.0 == "Nightly" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert!(
        failed.3.starts_with(
            "Resource handler returned message: \"Schedule own-taken already exists.\""
        ),
        "{}",
        failed.3
    );
    assert!(
        failed.3.ends_with("HandlerErrorCode: AlreadyExists)"),
        "{}",
        failed.3
    );
    let rollback = since(&all, "own", "UPDATE_ROLLBACK_IN_PROGRESS");
    assert!(
        rollback.iter().all(|e| e.2 != "own-taken"),
        "no event touches the outside schedule: {rollback:#?}"
    );
    assert_eq!(get(&emu, "default", "own-taken").await, Some(taken.clone()));
    assert_eq!(
        get(&emu, "default", "own-nightly").await,
        Some(original.clone())
    );

    // A move into a group that holds a same-named schedule made outside.
    let theirs = outside(&emu, Some("own-green"), "own-nightly").await;
    assert_eq!(
        update(&cfn, "own", FULL, &[("Group", "own-green")]).await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "own").await;
    let failed = all
        .iter()
        .rfind(|e| e.0 == "Nightly" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert!(
        failed.3.contains("Schedule own-nightly already exists."),
        "{}",
        failed.3
    );
    assert_eq!(get(&emu, "own-green", "own-nightly").await, Some(theirs));
    let mut back = get(&emu, "default", "own-nightly").await.unwrap();
    back.state = original.state.clone();
    assert_eq!(back, original);
    assert_eq!(
        state(&emu, "default", "own-nightly").await.as_deref(),
        Some("ENABLED")
    );
    cfn.delete_stack().stack_name("own").send().await.unwrap();
    assert_eq!(get(&emu, "default", "own-taken").await, Some(taken));
    assert!(
        get(&emu, "own-green", "own-nightly").await.is_none(),
        "the group went with the stack"
    );
}

#[tokio::test]
async fn a_schedule_replaced_behind_the_stacks_back_is_not_clobbered() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "swap", FULL, &[]).await;
    let scheduler = emu.scheduler().await;
    scheduler
        .delete_schedule()
        .name("swap-later")
        .send()
        .await
        .unwrap();
    emu.set_clock(t0() + Duration::minutes(1)).await;
    let theirs = outside(&emu, None, "swap-later").await;
    // The update of Later finds a schedule the stack did not create: it fails as AWS fails a
    // resource deleted behind its back, and so does putting it back, as on AWS: the stack
    // stops in UPDATE_ROLLBACK_FAILED and the other schedule is left alone.
    assert_eq!(
        update(&cfn, "swap", FULL, &[("LaterExpression", "rate(9 hours)")]).await,
        StackStatus::UpdateRollbackFailed
    );
    let all = events(&cfn, "swap").await;
    let failed: Vec<&str> = all
        .iter()
        .filter(|e| e.0 == "Later" && e.1 == "UPDATE_FAILED")
        .map(|e| e.3.as_str())
        .collect();
    assert_eq!(failed.len(), 2, "the update and the restore: {all:#?}");
    for reason in failed {
        assert!(
            reason.starts_with("Resource handler returned message: \"Resource of type 'AWS::Scheduler::Schedule' with identifier 'swap-later' was not found.\""),
            "{reason}"
        );
        assert!(reason.ends_with("HandlerErrorCode: NotFound)"), "{reason}");
    }
    assert_eq!(
        get(&emu, "default", "swap-later").await,
        Some(theirs.clone())
    );
    // ContinueUpdateRollback skipping it completes the rollback.
    cfn.continue_update_rollback()
        .stack_name("swap")
        .resources_to_skip("Later")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "swap").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(
        get(&emu, "default", "swap-later").await,
        Some(theirs.clone())
    );
    // Deleting the stack does not delete it either.
    cfn.delete_stack().stack_name("swap").send().await.unwrap();
    assert_eq!(get(&emu, "default", "swap-later").await, Some(theirs));
    assert_eq!(get(&emu, "default", "swap-nightly").await, None);
}

const GROUP: &str = include_str!("../templates/rollback_schedule/group.yaml");

#[tokio::test]
async fn stack_made_groups_carry_the_cloudformation_system_tags_api_callers_cannot_set() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    cfn.create_stack()
        .stack_name("tags")
        .template_body(GROUP)
        .tags(Tag::builder().key("env").value("test").build())
        .send()
        .await
        .unwrap();
    let id = describe(&cfn, "tags").await.stack_id().unwrap().to_string();
    let scheduler = emu.scheduler().await;
    let arn = "arn:aws:scheduler:us-east-1:000000000000:schedule-group/tagged";
    let tags =
        |out: aws_sdk_scheduler::operation::list_tags_for_resource::ListTagsForResourceOutput| {
            let mut t: Vec<(String, String)> = out
                .tags()
                .iter()
                .map(|t| (t.key().to_string(), t.value().to_string()))
                .collect();
            t.sort();
            t
        };
    let expected = |team: &str| {
        let mut t = vec![
            (
                "aws:cloudformation:logical-id".to_string(),
                "Group".to_string(),
            ),
            ("aws:cloudformation:stack-id".to_string(), id.clone()),
            (
                "aws:cloudformation:stack-name".to_string(),
                "tags".to_string(),
            ),
            ("env".to_string(), "test".to_string()),
            ("team".to_string(), team.to_string()),
        ];
        t.sort();
        t
    };
    let got = scheduler
        .list_tags_for_resource()
        .resource_arn(arn)
        .send()
        .await
        .unwrap();
    assert_eq!(tags(got), expected("a"));

    // An in-place tag update keeps them.
    assert_eq!(
        update(&cfn, "tags", GROUP, &[("Team", "b")]).await,
        StackStatus::UpdateComplete
    );
    let got = scheduler
        .list_tags_for_resource()
        .resource_arn(arn)
        .send()
        .await
        .unwrap();
    assert_eq!(tags(got), expected("b"));

    // API callers still may not set, change or remove aws: keys.
    let e = scheduler
        .tag_resource()
        .resource_arn(arn)
        .tags(
            aws_sdk_scheduler::types::Tag::builder()
                .key("aws:cloudformation:stack-name")
                .value("other")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("ValidationException"), "{e:?}");
    let e = scheduler
        .untag_resource()
        .resource_arn(arn)
        .tag_keys("aws:cloudformation:stack-name")
        .send()
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("ValidationException"), "{e:?}");
    let e = scheduler
        .create_schedule_group()
        .name("mine")
        .tags(
            aws_sdk_scheduler::types::Tag::builder()
                .key("aws:cloudformation:stack-name")
                .value("x")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("ValidationException"), "{e:?}");
}
