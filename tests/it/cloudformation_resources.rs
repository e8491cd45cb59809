//! CloudFormation stacks of real resources (SQS queues, IAM roles, Scheduler schedules and
//! groups) through the AWS SDK for Rust: what the providers make, how updates change it (in
//! place, replacement, group move), and every rollback path driven by `/_cumulo/faults`
//! (aws-contract.md §3.2–§3.3, §5; seed 000's schedule rollback design; extensions.md).

use aws_sdk_cloudformation::types::{Capability, OnFailure, StackStatus, Tag};
use aws_sdk_cloudformation::Client;
use serde_json::json;

use crate::fixtures::{self, describe, err, events, fault, param, status, statuses};
use crate::support::Emulator;

const SCHEDULED_QUEUE: &str = include_str!("../../templates/scheduled-queue.yaml");

/// One queue and one schedule, named from parameters (the acceptance suite's shape).
const SCHEDULE: &str = include_str!("../templates/cloudformation_resources/schedule.yaml");

/// CreateStack of [`SCHEDULE`] with `params`.
async fn create(cfn: &Client, name: &str, params: &[(&str, &str)]) -> StackStatus {
    fixtures::create(cfn, name, SCHEDULE, params).await
}

/// UpdateStack to [`SCHEDULE`] with `params`.
async fn update(cfn: &Client, name: &str, params: &[(&str, &str)]) -> StackStatus {
    fixtures::update(cfn, name, SCHEDULE, params).await
}

async fn expression(emu: &Emulator, group: Option<&str>, name: &str) -> Option<(String, String)> {
    let scheduler = emu.scheduler().await;
    let got = scheduler
        .get_schedule()
        .name(name)
        .set_group_name(group.map(str::to_string))
        .send()
        .await
        .ok()?;
    Some((
        got.schedule_expression().unwrap_or_default().to_string(),
        got.state()
            .map(|s| s.as_str().to_string())
            .unwrap_or_default(),
    ))
}

#[tokio::test]
async fn the_example_template_makes_every_resource_and_delete_removes_them() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let e = err(cfn
        .create_stack()
        .stack_name("demo")
        .template_body(SCHEDULED_QUEUE)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Requires capabilities : [CAPABILITY_IAM]");
    cfn.create_stack()
        .stack_name("demo")
        .template_body(SCHEDULED_QUEUE)
        .capabilities(Capability::CapabilityIam)
        .tags(Tag::builder().key("team").value("ops").build())
        .send()
        .await
        .unwrap();
    let stack = describe(&cfn, "demo").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::CreateComplete));
    let outputs: std::collections::HashMap<&str, &str> = stack
        .outputs()
        .iter()
        .map(|o| (o.output_key().unwrap(), o.output_value().unwrap()))
        .collect();

    let sqs = emu.sqs().await;
    let resources = cfn
        .describe_stack_resources()
        .stack_name("demo")
        .send()
        .await
        .unwrap();
    let physical = |id: &str| {
        resources
            .stack_resources()
            .iter()
            .find(|r| r.logical_resource_id() == Some(id))
            .and_then(|r| r.physical_resource_id())
            .unwrap()
            .to_string()
    };
    let queue_url = physical("Queue");
    assert_eq!(outputs["QueueUrl"], queue_url);
    let queue_name = queue_url.rsplit('/').next().unwrap();
    assert!(queue_name.starts_with("demo-Queue-"), "{queue_name}");
    let attrs = sqs
        .get_queue_attributes()
        .queue_url(&queue_url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::All)
        .send()
        .await
        .unwrap();
    let attrs = attrs.attributes().unwrap();
    assert_eq!(
        attrs[&aws_sdk_sqs::types::QueueAttributeName::MessageRetentionPeriod],
        "86400"
    );
    let queue_arn = attrs[&aws_sdk_sqs::types::QueueAttributeName::QueueArn].clone();
    let tags = sqs
        .list_queue_tags()
        .queue_url(&queue_url)
        .send()
        .await
        .unwrap();
    assert_eq!(
        tags.tags().unwrap().get("team").map(String::as_str),
        Some("ops")
    );

    let role_name = physical("Role");
    let role = emu.app.iam.get_role("000000000000", &role_name).unwrap();
    assert!(role.policies.contains_key("send-to-queue"));
    assert_eq!(role.tags.get("team").map(String::as_str), Some("ops"));

    let schedule_name = physical("EveryMinute");
    let scheduler = emu.scheduler().await;
    let got = scheduler
        .get_schedule()
        .name(&schedule_name)
        .group_name("demo-jobs")
        .send()
        .await
        .unwrap();
    assert_eq!(got.schedule_expression(), Some("rate(1 minute)"));
    assert_eq!(got.description(), Some("Ticks for dev"));
    let target = got.target().unwrap();
    assert_eq!(target.arn(), queue_arn);
    assert_eq!(target.role_arn(), role.arn);
    assert_eq!(
        target.input(),
        Some(r#"{"environment":"dev","stack":"demo"}"#)
    );
    assert_eq!(outputs["ScheduleArn"], got.arn().unwrap());
    let group_tags = scheduler
        .list_tags_for_resource()
        .resource_arn("arn:aws:scheduler:us-east-1:000000000000:schedule-group/demo-jobs")
        .send()
        .await
        .unwrap();
    assert!(group_tags
        .tags()
        .iter()
        .any(|t| t.key() == "team" && t.value() == "ops"));

    cfn.delete_stack().stack_name("demo").send().await.unwrap();
    assert!(sqs
        .get_queue_url()
        .queue_name(queue_name)
        .send()
        .await
        .is_err());
    assert!(emu.app.iam.get_role("000000000000", &role_name).is_err());
    assert!(scheduler
        .get_schedule_group()
        .name("demo-jobs")
        .send()
        .await
        .is_err());
    assert!(scheduler
        .get_schedule()
        .name(&schedule_name)
        .group_name("demo-jobs")
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn invalid_schedules_fail_with_the_apis_message_and_roll_back() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let st = create(&cfn, "bad", &[("Expression", "cron(0 1 * * * *)")]).await;
    assert_eq!(st, StackStatus::RollbackComplete);
    let events = events(&cfn, "bad").await;
    let failed = events
        .iter()
        .find(|e| e.0 == "Schedule" && e.1 == "CREATE_FAILED")
        .unwrap();
    assert!(
        failed.3.starts_with("Resource handler returned message: \"Invalid Schedule Expression cron(0 1 * * * *).\" (RequestToken: "),
        "{}",
        failed.3
    );
    assert!(
        failed.3.ends_with(", HandlerErrorCode: InvalidRequest)"),
        "{}",
        failed.3
    );
    let rolling = events
        .iter()
        .find(|e| e.0 == "bad" && e.1 == "ROLLBACK_IN_PROGRESS")
        .unwrap();
    assert_eq!(
        rolling.3,
        "The following resource(s) failed to create: [Schedule]. Rollback requested by user."
    );
    assert_eq!(
        statuses(&events, "Queue").last().unwrap(),
        "DELETE_COMPLETE"
    );
    let sqs = emu.sqs().await;
    let queues = sqs.list_queues().send().await.unwrap();
    assert!(queues.queue_urls().is_empty(), "{:?}", queues.queue_urls());
}

#[tokio::test]
async fn a_schedule_that_exists_outside_the_stack_is_never_clobbered() {
    let emu = Emulator::start().await;
    let scheduler = emu.scheduler().await;
    scheduler
        .create_schedule()
        .name("mine-one")
        .schedule_expression("rate(5 minutes)")
        .flexible_time_window(
            aws_sdk_scheduler::types::FlexibleTimeWindow::builder()
                .mode(aws_sdk_scheduler::types::FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
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
    let cfn = emu.cloudformation().await;
    assert_eq!(
        create(&cfn, "mine", &[]).await,
        StackStatus::RollbackComplete
    );
    let events = events(&cfn, "mine").await;
    let failed = events.iter().find(|e| e.1 == "CREATE_FAILED").unwrap();
    assert!(
        failed.3.contains("Schedule mine-one already exists."),
        "{}",
        failed.3
    );
    assert!(
        failed.3.contains("HandlerErrorCode: AlreadyExists"),
        "{}",
        failed.3
    );
    assert_eq!(
        expression(&emu, None, "mine-one").await,
        Some(("rate(5 minutes)".into(), "ENABLED".into()))
    );
}

#[tokio::test]
async fn schedule_updates_in_place_replace_on_name_and_move_between_groups() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    assert_eq!(create(&cfn, "s", &[]).await, StackStatus::CreateComplete);
    let scheduler = emu.scheduler().await;
    let before = scheduler.get_schedule().name("s-one").send().await.unwrap();

    // In place: same ARN and CreationDate.
    assert_eq!(
        update(&cfn, "s", &[("Expression", "rate(2 hours)")]).await,
        StackStatus::UpdateComplete
    );
    let after = scheduler.get_schedule().name("s-one").send().await.unwrap();
    assert_eq!(after.schedule_expression(), Some("rate(2 hours)"));
    assert_eq!(
        (after.arn(), after.creation_date()),
        (before.arn(), before.creation_date())
    );

    // Replacement: the old schedule goes at cleanup.
    assert_eq!(
        update(
            &cfn,
            "s",
            &[("Expression", "rate(2 hours)"), ("NameSuffix", "two")]
        )
        .await,
        StackStatus::UpdateComplete
    );
    assert_eq!(expression(&emu, None, "s-one").await, None);
    assert_eq!(
        expression(&emu, None, "s-two").await,
        Some(("rate(2 hours)".into(), "ENABLED".into()))
    );
    let stack = describe(&cfn, "s").await;
    assert_eq!(stack.outputs()[0].output_value(), Some("s-two"));

    // Move: same Ref, the Arn follows the group, nothing left behind.
    assert_eq!(
        update(
            &cfn,
            "s",
            &[
                ("Expression", "rate(2 hours)"),
                ("NameSuffix", "two"),
                ("Group", "s-a")
            ]
        )
        .await,
        StackStatus::UpdateComplete
    );
    assert_eq!(expression(&emu, None, "s-two").await, None);
    assert_eq!(
        expression(&emu, Some("s-a"), "s-two").await,
        Some(("rate(2 hours)".into(), "ENABLED".into()))
    );
    let stack = describe(&cfn, "s").await;
    assert_eq!(stack.outputs()[0].output_value(), Some("s-two"));
    assert_eq!(
        stack.outputs()[1].output_value(),
        Some("arn:aws:scheduler:us-east-1:000000000000:schedule/s-a/s-two")
    );
    let all = events(&cfn, "s").await;
    let start = all
        .iter()
        .rposition(|e| e.0 == "s" && e.1 == "UPDATE_IN_PROGRESS")
        .unwrap();
    let moved: Vec<(&str, &str)> = all[start..]
        .iter()
        .filter(|e| e.0 == "Schedule")
        .map(|e| (e.1.as_str(), e.2.as_str()))
        .collect();
    assert_eq!(
        moved,
        vec![
            ("UPDATE_IN_PROGRESS", "s-two"),
            ("UPDATE_COMPLETE", "s-two"),
            ("DELETE_IN_PROGRESS", "s-two"),
            ("DELETE_COMPLETE", "s-two"),
        ]
    );
}

#[tokio::test]
async fn a_failed_update_restores_what_was_changed_before_it() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "rb", &[]).await;
    fault(
        &emu,
        json!({"stack_name": "rb", "logical_id": "Later", "operation": "update", "message": "injected"}),
    )
    .await;
    let st = update(
        &cfn,
        "rb",
        &[("Expression", "rate(3 hours)"), ("Group", "rb-b")],
    )
    .await;
    assert_eq!(st, StackStatus::UpdateRollbackComplete);
    // The moved schedule is back in its group, enabled, with its expression; no copy remains.
    assert_eq!(
        expression(&emu, None, "rb-one").await,
        Some(("rate(1 hour)".into(), "ENABLED".into()))
    );
    assert_eq!(expression(&emu, Some("rb-b"), "rb-one").await, None);
    assert_eq!(
        expression(&emu, None, "rb-later").await,
        Some(("rate(1 hour)".into(), "ENABLED".into()))
    );
    let all = events(&cfn, "rb").await;
    let failed = all
        .iter()
        .find(|e| e.0 == "Later" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert_eq!(failed.3, "injected");
    let stack_seq = statuses(&all, "rb");
    assert_eq!(
        stack_seq[2..],
        [
            "UPDATE_IN_PROGRESS",
            "UPDATE_ROLLBACK_IN_PROGRESS",
            "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
            "UPDATE_ROLLBACK_COMPLETE"
        ]
    );
    let rolling = all
        .iter()
        .find(|e| e.0 == "rb" && e.1 == "UPDATE_ROLLBACK_IN_PROGRESS")
        .unwrap();
    assert_eq!(
        rolling.3,
        "The following resource(s) failed to update: [Later]. "
    );
    let stack = describe(&cfn, "rb").await;
    assert_eq!(
        stack.outputs()[1].output_value(),
        Some("arn:aws:scheduler:us-east-1:000000000000:schedule/default/rb-one")
    );
    let params: Vec<&str> = stack
        .parameters()
        .iter()
        .map(|p| p.parameter_value().unwrap())
        .collect();
    assert_eq!(params, vec!["rate(1 hour)", "one", "default"]);
    // A new update works from the restored stack.
    assert_eq!(
        update(&cfn, "rb", &[("Expression", "rate(4 hours)")]).await,
        StackStatus::UpdateComplete
    );
}

#[tokio::test]
async fn a_failed_restore_ends_update_rollback_failed_until_continue_update_rollback() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "urf", &[]).await;
    fault(&emu, json!({"stack_name": "urf", "logical_id": "Later", "operation": "update", "message": "later fails"})).await;
    fault(&emu, json!({"stack_name": "urf", "logical_id": "Schedule", "operation": "restore", "message": "restore fails"})).await;
    let st = update(&cfn, "urf", &[("Expression", "rate(5 hours)")]).await;
    assert_eq!(st, StackStatus::UpdateRollbackFailed);
    let stack = describe(&cfn, "urf").await;
    assert_eq!(
        stack.stack_status_reason(),
        Some("The following resource(s) failed to update: [Schedule]. ")
    );
    let id = stack.stack_id().unwrap().to_string();
    let e = err(cfn
        .update_stack()
        .stack_name("urf")
        .template_body(SCHEDULE)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        format!("Stack:{id} is in UPDATE_ROLLBACK_FAILED state and can not be updated.")
    );
    let e = err(cfn
        .continue_update_rollback()
        .stack_name("urf")
        .resources_to_skip("Queue")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Resource [Queue] is not in a failed state and cannot be skipped"
    );
    // The restore fault is used up: retrying restores the original expression.
    cfn.continue_update_rollback()
        .stack_name("urf")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "urf").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(
        expression(&emu, None, "urf-one").await,
        Some(("rate(1 hour)".into(), "ENABLED".into()))
    );
    let e = err(cfn
        .continue_update_rollback()
        .stack_name("urf")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "ContinueUpdateRollback cannot be called from current stack status"
    );
}

#[tokio::test]
async fn continue_update_rollback_can_skip_the_resource_that_failed_to_restore() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "skip", &[]).await;
    fault(
        &emu,
        json!({"stack_name": "skip", "logical_id": "Later", "operation": "update", "message": "x"}),
    )
    .await;
    fault(&emu, json!({"stack_name": "skip", "logical_id": "Schedule", "operation": "restore", "message": "y"})).await;
    update(&cfn, "skip", &[("Expression", "rate(5 hours)")]).await;
    cfn.continue_update_rollback()
        .stack_name("skip")
        .resources_to_skip("Schedule")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "skip").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(
        expression(&emu, None, "skip-one").await.unwrap().0,
        "rate(5 hours)"
    );
    assert_eq!(
        expression(&emu, None, "skip-later").await.unwrap().0,
        "rate(1 hour)"
    );
    assert_eq!(
        update(&cfn, "skip", &[("Expression", "rate(3 hours)")]).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(
        expression(&emu, None, "skip-one").await.unwrap().0,
        "rate(3 hours)"
    );
}

#[tokio::test]
async fn create_failures_follow_on_failure() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    for (name, on_failure, expected) in [
        ("nothing", OnFailure::DoNothing, StackStatus::CreateFailed),
        ("deleted", OnFailure::Delete, StackStatus::DeleteComplete),
    ] {
        fault(&emu, json!({"stack_name": name, "logical_id": "Later", "operation": "create", "message": "boom"})).await;
        let id = cfn
            .create_stack()
            .stack_name(name)
            .template_body(SCHEDULE)
            .on_failure(on_failure)
            .send()
            .await
            .unwrap()
            .stack_id()
            .unwrap()
            .to_string();
        assert_eq!(
            describe(&cfn, &id).await.stack_status(),
            Some(&expected),
            "{name}"
        );
    }
    let stack = describe(&cfn, "nothing").await;
    assert_eq!(
        stack.stack_status_reason(),
        Some("The following resource(s) failed to create: [Later]. ")
    );
    assert!(
        expression(&emu, None, "nothing-one").await.is_some(),
        "kept with DO_NOTHING"
    );
    assert!(
        expression(&emu, None, "deleted-one").await.is_none(),
        "deleted with DELETE"
    );
    // RollbackStack rolls a CREATE_FAILED stack back.
    cfn.rollback_stack()
        .stack_name("nothing")
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "nothing").await, StackStatus::RollbackComplete);
    assert!(expression(&emu, None, "nothing-one").await.is_none());
}

#[tokio::test]
async fn disable_rollback_leaves_update_failed_and_rollback_stack_recovers() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "dr", &[]).await;
    fault(
        &emu,
        json!({"stack_name": "dr", "logical_id": "Later", "operation": "update", "message": "z"}),
    )
    .await;
    cfn.update_stack()
        .stack_name("dr")
        .template_body(SCHEDULE)
        .parameters(param("Expression", "rate(9 hours)"))
        .disable_rollback(true)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "dr").await, StackStatus::UpdateFailed);
    assert_eq!(
        expression(&emu, None, "dr-one").await.unwrap().0,
        "rate(9 hours)"
    );
    let e = err(cfn
        .continue_update_rollback()
        .stack_name("dr")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "ContinueUpdateRollback cannot be called from current stack status"
    );
    cfn.rollback_stack().stack_name("dr").send().await.unwrap();
    assert_eq!(
        status(&cfn, "dr").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(
        expression(&emu, None, "dr-one").await.unwrap().0,
        "rate(1 hour)"
    );
}

#[tokio::test]
async fn a_held_update_is_observable_and_cancel_update_stack_rolls_it_back() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "held", &[]).await;
    let e = err(cfn
        .cancel_update_stack()
        .stack_name("held")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "CancelUpdateStack cannot be called from current stack status"
    );
    fault(&emu, json!({"stack_name": "held", "logical_id": "Later", "operation": "update", "hold_seconds": 30})).await;
    // The call answers once the update is held, not after 30 s.
    update(&cfn, "held", &[("Expression", "rate(6 hours)")]).await;
    assert_eq!(status(&cfn, "held").await, StackStatus::UpdateInProgress);
    let e = err(cfn
        .update_stack()
        .stack_name("held")
        .template_body(SCHEDULE)
        .send()
        .await
        .unwrap_err());
    assert!(
        e.1.ends_with("is in UPDATE_IN_PROGRESS state and can not be updated."),
        "{}",
        e.1
    );
    let e = err(cfn
        .delete_stack()
        .stack_name("held")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError");
    cfn.cancel_update_stack()
        .stack_name("held")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "held").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(
        expression(&emu, None, "held-one").await.unwrap().0,
        "rate(1 hour)"
    );
    let all = events(&cfn, "held").await;
    let cancelled = all
        .iter()
        .find(|e| e.0 == "Later" && e.1 == "UPDATE_FAILED")
        .unwrap();
    assert_eq!(cancelled.3, "Resource update cancelled");
    let rolling = all
        .iter()
        .find(|e| e.0 == "held" && e.1 == "UPDATE_ROLLBACK_IN_PROGRESS")
        .unwrap();
    assert_eq!(rolling.3, "Stack update cancelled");
}

#[tokio::test]
async fn a_failed_delete_stops_in_delete_failed_and_retain_resources_finishes_it() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "df", &[]).await;
    fault(&emu, json!({"stack_name": "df", "logical_id": "Queue", "operation": "delete", "message": "stuck"})).await;
    cfn.delete_stack().stack_name("df").send().await.unwrap();
    let stack = describe(&cfn, "df").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::DeleteFailed));
    assert_eq!(
        stack.stack_status_reason(),
        Some("The following resource(s) failed to delete: [Queue]. ")
    );
    cfn.delete_stack()
        .stack_name("df")
        .retain_resources("Queue")
        .send()
        .await
        .unwrap();
    let all = events(&cfn, stack.stack_id().unwrap()).await;
    assert_eq!(statuses(&all, "Queue").last().unwrap(), "DELETE_SKIPPED");
    assert_eq!(statuses(&all, "df").last().unwrap(), "DELETE_COMPLETE");
    let sqs = emu.sqs().await;
    assert_eq!(
        sqs.list_queues().send().await.unwrap().queue_urls().len(),
        1
    );
}

#[tokio::test]
async fn deleting_a_stack_left_in_update_rollback_failed_removes_both_copies_of_a_replaced_schedule(
) {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "both", &[]).await;
    fault(
        &emu,
        json!({"stack_name": "both", "logical_id": "Later", "operation": "update", "message": "a"}),
    )
    .await;
    fault(&emu, json!({"stack_name": "both", "logical_id": "Later", "operation": "restore", "message": "b"})).await;
    let st = update(
        &cfn,
        "both",
        &[("Expression", "rate(7 hours)"), ("NameSuffix", "two")],
    )
    .await;
    assert_eq!(st, StackStatus::UpdateRollbackFailed);
    // The replacement was undone in the stack's records but its new schedule is still there.
    assert!(expression(&emu, None, "both-one").await.is_some());
    assert!(expression(&emu, None, "both-two").await.is_some());
    let id = describe(&cfn, "both").await.stack_id().unwrap().to_string();
    cfn.delete_stack().stack_name("both").send().await.unwrap();
    assert_eq!(
        describe(&cfn, &id).await.stack_status(),
        Some(&StackStatus::DeleteComplete)
    );
    for name in ["both-one", "both-two", "both-later"] {
        assert_eq!(expression(&emu, None, name).await, None, "{name}");
    }
}

const SUPPORTING: &str = include_str!("../templates/cloudformation_resources/supporting.yaml");

#[tokio::test]
async fn topics_subscriptions_policies_and_parameters_serve_a_schedule() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    cfn.create_stack()
        .stack_name("sup")
        .template_body(SUPPORTING)
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap();
    let stack = describe(&cfn, "sup").await;
    assert_eq!(
        stack.stack_status(),
        Some(&StackStatus::CreateComplete),
        "{:?}",
        events(&cfn, "sup").await
    );
    let out: std::collections::HashMap<&str, &str> = stack
        .outputs()
        .iter()
        .map(|o| (o.output_key().unwrap(), o.output_value().unwrap()))
        .collect();
    assert!(out["TopicName"].starts_with("sup-Topic-"));
    assert!(
        out["Setting"].starts_with("CFN-Setting-"),
        "{}",
        out["Setting"]
    );
    assert_eq!(out["SettingValue"], "hello");
    let scope = cumulo::ids::Scope::default_scope();
    assert_eq!(
        emu.app
            .ssm
            .get_parameter(&scope, out["Setting"])
            .unwrap()
            .value(),
        "hello"
    );
    let resources = cfn
        .describe_stack_resources()
        .stack_name("sup")
        .send()
        .await
        .unwrap();
    let physical = |id: &str| {
        resources
            .stack_resources()
            .iter()
            .find(|r| r.logical_resource_id() == Some(id))
            .and_then(|r| r.physical_resource_id())
            .unwrap()
            .to_string()
    };
    let role = emu
        .app
        .iam
        .get_role("000000000000", &physical("Role"))
        .unwrap();
    assert!(role.policies.contains_key("publish"));
    let sqs = emu.sqs().await;
    let policy = sqs
        .get_queue_attributes()
        .queue_url(physical("Queue"))
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::Policy)
        .send()
        .await
        .unwrap();
    assert!(
        policy.attributes().unwrap()[&aws_sdk_sqs::types::QueueAttributeName::Policy]
            .contains("sns.amazonaws.com")
    );

    // The schedule publishes to the topic, which fans out to both queues.
    emu.set_clock(crate::support::t0() + chrono::Duration::seconds(60))
        .await;
    let wrapped = sqs
        .receive_message()
        .queue_url(physical("Queue"))
        .send()
        .await
        .unwrap();
    let body: serde_json::Value =
        serde_json::from_str(wrapped.messages()[0].body().unwrap()).unwrap();
    assert_eq!(body["Message"], r#"{"tick":1}"#);
    let raw = sqs
        .receive_message()
        .queue_url(physical("Raw"))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.messages()[0].body(), Some(r#"{"tick":1}"#));

    cfn.delete_stack().stack_name("sup").send().await.unwrap();
    assert_eq!(
        status(&cfn, stack.stack_id().unwrap()).await,
        StackStatus::DeleteComplete
    );
    assert!(emu.app.ssm.get_parameter(&scope, out["Setting"]).is_none());
    assert!(emu.app.sns.topic(&physical("Topic")).is_err());
    assert!(emu
        .app
        .iam
        .get_role("000000000000", &physical("Role"))
        .is_err());
}

#[tokio::test]
async fn the_example_template_really_fires_into_its_queue() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    cfn.create_stack()
        .stack_name("ticks")
        .template_body(SCHEDULED_QUEUE)
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap();
    let url = cfn
        .describe_stack_resource()
        .stack_name("ticks")
        .logical_resource_id("Queue")
        .send()
        .await
        .unwrap()
        .stack_resource_detail()
        .unwrap()
        .physical_resource_id()
        .unwrap()
        .to_string();
    emu.set_clock(crate::support::t0() + chrono::Duration::seconds(120))
        .await;
    let sqs = emu.sqs().await;
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    // rate(1 minute) starts when the schedule is made (seed 003): t0, t0+60 s, t0+120 s.
    let bodies: Vec<&str> = got.messages().iter().filter_map(|m| m.body()).collect();
    assert_eq!(bodies, vec![r#"{"environment":"dev","stack":"ticks"}"#; 3]);
}

#[tokio::test]
async fn real_public_templates_deploy_and_delete() {
    let Some(corpus_dir) = crate::support::corpus_dir() else {
        return;
    };
    let corpus = |file: &str| {
        let path = corpus_dir.join(file);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let emu = Emulator::start().await;
    // CDK templates check the bootstrap version through an SSM-typed parameter.
    emu.app
        .ssm
        .put_parameter(
            &cumulo::ids::Scope::default_scope(),
            cumulo::services::ssm::PutParameterInput {
                name: "/cdk-bootstrap/hnb659fds/version".into(),
                value: "21".into(),
                parameter_type: Some("String".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let cfn = emu.cloudformation().await;
    for (name, file) in [
        (
            "localstack",
            "20__localstack__localstack__tests-aws-services-cloudformation-resource_providers-scheduler-templates-schedule.yml",
        ),
        (
            "cdk",
            "34__aws__aws-cdk__packages-@aws-cdk-testing-framework-integ-test-aws-scheduler-targets-test-integ.sns-publish.js.snapshot-AwsSchedulerTargetsSnsPublish.template.json",
        ),
    ] {
        let id = cfn
            .create_stack()
            .stack_name(name)
            .template_body(corpus(file))
            .capabilities(Capability::CapabilityIam)
            .send()
            .await
            .unwrap()
            .stack_id()
            .unwrap()
            .to_string();
        assert_eq!(
            status(&cfn, name).await,
            StackStatus::CreateComplete,
            "{file}: {:?}",
            events(&cfn, name).await
        );
        cfn.delete_stack().stack_name(name).send().await.unwrap();
        assert_eq!(describe(&cfn, &id).await.stack_status(), Some(&StackStatus::DeleteComplete));
    }
    let scheduler = emu.scheduler().await;
    assert!(scheduler
        .list_schedules()
        .send()
        .await
        .unwrap()
        .schedules()
        .is_empty());
}

#[tokio::test]
async fn a_retried_update_after_update_failed_applies_what_failed() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "retry", &[]).await;
    fault(&emu, json!({"stack_name": "retry", "logical_id": "Schedule", "operation": "update", "message": "not now"})).await;
    cfn.update_stack()
        .stack_name("retry")
        .template_body(SCHEDULE)
        .parameters(param("Expression", "rate(9 hours)"))
        .disable_rollback(true)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "retry").await, StackStatus::UpdateFailed);
    assert_eq!(
        expression(&emu, None, "retry-one").await.unwrap().0,
        "rate(1 hour)"
    );
    // The same update again is a change (the failed step changed nothing) and now succeeds.
    assert_eq!(
        update(&cfn, "retry", &[("Expression", "rate(9 hours)")]).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(
        expression(&emu, None, "retry-one").await.unwrap().0,
        "rate(9 hours)"
    );
}
