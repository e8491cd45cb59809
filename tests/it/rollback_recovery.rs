//! Update rollback (issue 6; aws-contract.md §3.2–§3.3; extensions.md "Faults"): any failure
//! puts every changed schedule back exactly as GetSchedule showed it, deletes what the update
//! created during UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS, and a failed restore stops in
//! UPDATE_ROLLBACK_FAILED until ContinueUpdateRollback (with or without ResourcesToSkip).
//! Also: cleanup failures, CancelUpdateStack, RollbackStack, DeleteStack from every failed
//! state, DeletionPolicy / UpdateReplacePolicy Retain on every path that deletes or replaces,
//! and which step each fault `operation` names.

use aws_sdk_cloudformation::types::{ChangeSetType, OnFailure, StackStatus};
use aws_sdk_cloudformation::Client;
use chrono::Duration;
use cumulo::ids::Scope;
use serde_json::json;

use crate::fixtures::{
    brief, create, describe, err, events, fault, params, since, stack_id, status, update,
};
use crate::rollback_support::{all_schedules, get, state, ScheduleView, FULL};
use crate::support::{t0, Emulator};

/// Every property of `Nightly` changed in place, and `Later`'s expression.
const EVERYTHING: [(&str, &str); 11] = [
    ("Expression", "rate(3 hours)"),
    ("Timezone", "Europe/Paris"),
    ("State", "DISABLED"),
    ("Description", "second"),
    ("StartDate", "2030-01-03T00:00:00Z"),
    ("EndDate", "2031-06-01T00:00:00Z"),
    ("Window", "15"),
    ("Kms", "arn:aws:kms:us-east-1:000000000000:key/two"),
    ("Input", r#"{"v":2}"#),
    ("Retries", "7"),
    ("LaterExpression", "rate(9 hours)"),
];

/// A stack of [`FULL`] named `name`, with the clock moved on so that a restore shows in
/// LastModificationDate; returns every schedule as GetSchedule shows it.
async fn stack(emu: &Emulator, cfn: &Client, name: &str, body: &str) -> Vec<ScheduleView> {
    assert_eq!(
        create(cfn, name, body, &[]).await,
        StackStatus::CreateComplete
    );
    emu.set_clock(t0() + Duration::minutes(1)).await;
    all_schedules(emu).await
}

/// The stack statuses of the events from the last UPDATE_IN_PROGRESS on.
fn stack_statuses(all: &[(String, String, String, String)], name: &str) -> Vec<String> {
    since(all, name, "UPDATE_IN_PROGRESS")
        .iter()
        .filter(|e| e.0 == name)
        .map(|e| e.1.clone())
        .collect()
}

#[tokio::test]
async fn an_injected_failure_puts_every_changed_schedule_back_exactly() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "exact", FULL).await;
    fault(
        &emu,
        json!({"stack_name": "exact", "logical_id": "Later", "operation": "update", "message": "injected"}),
    )
    .await;
    assert_eq!(
        update(&cfn, "exact", FULL, &EVERYTHING).await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "exact").await;
    let last = since(&all, "exact", "UPDATE_IN_PROGRESS");
    let sid = last[0].2.as_str();
    let seq: Vec<(&str, &str, &str, &str)> = last
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str(), e.3.as_str()))
        .collect();
    assert_eq!(
        seq,
        vec![
            ("exact", "UPDATE_IN_PROGRESS", sid, "User Initiated"),
            ("Nightly", "UPDATE_IN_PROGRESS", "exact-nightly", ""),
            ("Nightly", "UPDATE_COMPLETE", "exact-nightly", ""),
            ("Later", "UPDATE_IN_PROGRESS", "exact-later", ""),
            ("Later", "UPDATE_FAILED", "exact-later", "injected"),
            (
                "exact",
                "UPDATE_ROLLBACK_IN_PROGRESS",
                sid,
                "The following resource(s) failed to update: [Later]. "
            ),
            ("Later", "UPDATE_IN_PROGRESS", "exact-later", ""),
            ("Later", "UPDATE_COMPLETE", "exact-later", ""),
            ("Nightly", "UPDATE_IN_PROGRESS", "exact-nightly", ""),
            ("Nightly", "UPDATE_COMPLETE", "exact-nightly", ""),
            (
                "exact",
                "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
                sid,
                ""
            ),
            ("exact", "UPDATE_ROLLBACK_COMPLETE", sid, ""),
        ]
    );
    // The stack itself is back: parameters and outputs of the old template.
    let stack = describe(&cfn, "exact").await;
    let expression = stack
        .parameters()
        .iter()
        .find(|p| p.parameter_key() == Some("Expression"))
        .unwrap();
    assert_eq!(expression.parameter_value(), Some("rate(1 hour)"));
    assert_eq!(stack.outputs()[0].output_value(), Some("exact-nightly"));
}

#[tokio::test]
async fn a_scheduler_validation_error_rolls_back_the_same_way() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "invalid", FULL).await;
    let mut changed = EVERYTHING.to_vec();
    changed.retain(|(k, _)| *k != "LaterExpression");
    changed.push(("LaterExpression", "cron(0 1 * * * *)"));
    assert_eq!(
        update(&cfn, "invalid", FULL, &changed).await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "invalid").await;
    let failed = all.iter().find(|e| e.1 == "UPDATE_FAILED").unwrap();
    assert_eq!(failed.0, "Later");
    assert!(
        failed.3.starts_with(
            "Resource handler returned message: \"Invalid Schedule Expression cron(0 1 * * * *).\" (RequestToken: "
        ),
        "{}",
        failed.3
    );
    assert!(
        failed.3.ends_with(", HandlerErrorCode: InvalidRequest)"),
        "{}",
        failed.3
    );
}

/// [`FULL`] with a schedule `Extra` the update adds (created before `Later`).
fn with_extra() -> String {
    FULL.replace(
        "  Later:\n    Type: AWS::Scheduler::Schedule\n    DependsOn: Nightly\n",
        "  Extra:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      Name: !Sub '${AWS::StackName}-extra'\n      ScheduleExpression: rate(1 day)\n      FlexibleTimeWindow: {Mode: 'OFF'}\n      Target: {Arn: !GetAtt Queue.Arn, RoleArn: 'arn:aws:iam::000000000000:role/r'}\n  Later:\n    Type: AWS::Scheduler::Schedule\n    DependsOn: [Nightly, Extra]\n",
    )
}

#[tokio::test]
async fn a_rollback_deletes_replacements_and_added_resources_at_cleanup() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "made", FULL).await;
    fault(
        &emu,
        json!({"stack_name": "made", "logical_id": "Later", "operation": "update", "message": "late"}),
    )
    .await;
    let changed = [("Name", "renamed"), ("LaterExpression", "rate(9 hours)")];
    assert_eq!(
        update(&cfn, "made", &with_extra(), &changed).await,
        StackStatus::UpdateRollbackComplete
    );
    // The original schedule was never touched, so even LastModificationDate is the same.
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "made").await;
    let cleanup = since(&all, "made", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS");
    let sid = cleanup[0].2.as_str();
    assert_eq!(
        brief(&cleanup),
        vec![
            ("made", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", sid),
            ("Extra", "DELETE_IN_PROGRESS", "made-extra"),
            ("Extra", "DELETE_COMPLETE", "made-extra"),
            ("Nightly", "DELETE_IN_PROGRESS", "made-renamed"),
            ("Nightly", "DELETE_COMPLETE", "made-renamed"),
            ("made", "UPDATE_ROLLBACK_COMPLETE", sid),
        ]
    );
    let resources = cfn
        .list_stack_resources()
        .stack_name("made")
        .send()
        .await
        .unwrap();
    let ids: Vec<(&str, &str)> = resources
        .stack_resource_summaries()
        .iter()
        .map(|r| {
            (
                r.logical_resource_id().unwrap(),
                r.physical_resource_id().unwrap(),
            )
        })
        .filter(|r| r.0 == "Nightly" || r.0 == "Extra")
        .collect();
    assert_eq!(ids, vec![("Nightly", "made-nightly")]);
}

#[tokio::test]
async fn a_rollback_of_a_group_move_disables_the_destination_before_restoring_the_original() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "back", FULL).await;
    fault(
        &emu,
        json!({"stack_name": "back", "logical_id": "Later", "operation": "update", "message": "late"}),
    )
    .await;
    // The restore of the moved schedule is held half-way: destination disabled, original not
    // yet enabled again.
    fault(
        &emu,
        json!({"stack_name": "back", "logical_id": "Nightly", "operation": "restore", "hold_seconds": 2}),
    )
    .await;
    let changed = [
        ("Group", "back-green"),
        ("LaterExpression", "rate(9 hours)"),
    ];
    assert_eq!(
        update(&cfn, "back", FULL, &changed).await,
        StackStatus::UpdateRollbackInProgress
    );
    assert_eq!(
        state(&emu, "back-green", "back-nightly").await.as_deref(),
        Some("DISABLED")
    );
    assert_eq!(
        state(&emu, "default", "back-nightly").await.as_deref(),
        Some("DISABLED")
    );
    emu.app
        .cloudformation
        .operation_finished(&Scope::default_scope(), "back")
        .await;
    assert_eq!(
        status(&cfn, "back").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "back").await;
    let rollback = since(&all, "back", "UPDATE_ROLLBACK_IN_PROGRESS");
    let nightly: Vec<(&str, &str)> = rollback
        .iter()
        .filter(|e| e.0 == "Nightly")
        .map(|e| (e.1.as_str(), e.2.as_str()))
        .collect();
    assert_eq!(
        nightly,
        vec![
            ("UPDATE_IN_PROGRESS", "back-nightly"),
            ("UPDATE_COMPLETE", "back-nightly"),
            ("DELETE_IN_PROGRESS", "back-nightly"),
            ("DELETE_COMPLETE", "back-nightly"),
        ]
    );
}

/// A stack whose update failed on `Later` and whose restore of `Nightly` failed too.
async fn rollback_failed(emu: &Emulator, cfn: &Client, name: &str) -> Vec<ScheduleView> {
    let before = stack(emu, cfn, name, FULL).await;
    fault(
        emu,
        json!({"stack_name": name, "logical_id": "Later", "operation": "update", "message": "late"}),
    )
    .await;
    fault(
        emu,
        json!({"stack_name": name, "logical_id": "Nightly", "operation": "restore", "message": "cannot put it back"}),
    )
    .await;
    assert_eq!(
        update(cfn, name, FULL, &EVERYTHING).await,
        StackStatus::UpdateRollbackFailed
    );
    before
}

#[tokio::test]
async fn update_rollback_failed_refuses_updates_until_continue_update_rollback_restores_the_snapshot(
) {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = rollback_failed(&emu, &cfn, "urf").await;
    let stack = describe(&cfn, "urf").await;
    assert_eq!(
        stack.stack_status_reason(),
        Some("The following resource(s) failed to update: [Nightly]. ")
    );
    let all = events(&cfn, "urf").await;
    let restore = since(&all, "urf", "UPDATE_ROLLBACK_IN_PROGRESS");
    let sid = restore[0].2.as_str();
    assert_eq!(
        brief(&restore),
        vec![
            ("urf", "UPDATE_ROLLBACK_IN_PROGRESS", sid),
            ("Later", "UPDATE_IN_PROGRESS", "urf-later"),
            ("Later", "UPDATE_COMPLETE", "urf-later"),
            ("Nightly", "UPDATE_IN_PROGRESS", "urf-nightly"),
            ("Nightly", "UPDATE_FAILED", "urf-nightly"),
            ("urf", "UPDATE_ROLLBACK_FAILED", sid),
        ]
    );
    assert_eq!(restore[4].3, "cannot put it back");
    // Nightly is still as the update left it; Later is back.
    let nightly = get(&emu, "default", "urf-nightly").await.unwrap();
    assert_eq!(
        nightly.schedule_expression.as_deref(),
        Some("rate(3 hours)")
    );
    assert_eq!(
        get(&emu, "default", "urf-later").await.as_ref(),
        before.iter().find(|s| s.name == "urf-later")
    );

    // Updates are refused synchronously, by UpdateStack and by an UPDATE change set.
    let id = stack.stack_id().unwrap().to_string();
    let refused = format!("Stack:{id} is in UPDATE_ROLLBACK_FAILED state and can not be updated.");
    let e = err(cfn
        .update_stack()
        .stack_name("urf")
        .template_body(FULL)
        .set_parameters(params(&[("Expression", "rate(4 hours)")]))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, ("ValidationError".to_string(), refused.clone()));
    let e = err(cfn
        .create_change_set()
        .stack_name("urf")
        .change_set_name("again")
        .change_set_type(ChangeSetType::Update)
        .template_body(FULL)
        .set_parameters(params(&[("Expression", "rate(4 hours)")]))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, ("ValidationError".to_string(), refused));

    // ContinueUpdateRollback restores Nightly from the kept snapshot.
    cfn.continue_update_rollback()
        .stack_name("urf")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "urf").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "urf").await;
    let resumed = since(&all, "urf", "UPDATE_ROLLBACK_IN_PROGRESS");
    assert_eq!(
        brief(&resumed),
        vec![
            ("urf", "UPDATE_ROLLBACK_IN_PROGRESS", sid),
            ("Nightly", "UPDATE_IN_PROGRESS", "urf-nightly"),
            ("Nightly", "UPDATE_COMPLETE", "urf-nightly"),
            ("urf", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", sid),
            ("urf", "UPDATE_ROLLBACK_COMPLETE", sid),
        ]
    );
    // And the stack takes updates again.
    assert_eq!(
        update(&cfn, "urf", FULL, &[("Expression", "rate(4 hours)")]).await,
        StackStatus::UpdateComplete
    );
}

#[tokio::test]
async fn continue_update_rollback_can_fail_again_and_skipping_leaves_the_resource_as_it_is() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = rollback_failed(&emu, &cfn, "skip").await;
    let after_update = get(&emu, "default", "skip-nightly").await.unwrap();
    fault(
        &emu,
        json!({"stack_name": "skip", "logical_id": "Nightly", "operation": "restore", "message": "still stuck"}),
    )
    .await;
    cfn.continue_update_rollback()
        .stack_name("skip")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "skip").await,
        StackStatus::UpdateRollbackFailed
    );
    let all = events(&cfn, "skip").await;
    assert_eq!(all.last().unwrap().1, "UPDATE_ROLLBACK_FAILED");
    assert_eq!(all[all.len() - 2].3, "still stuck");

    cfn.continue_update_rollback()
        .stack_name("skip")
        .resources_to_skip("Nightly")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "skip").await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "skip").await;
    let resumed = since(&all, "skip", "UPDATE_ROLLBACK_IN_PROGRESS");
    let sid = resumed[0].2.as_str();
    assert_eq!(
        brief(&resumed),
        vec![
            ("skip", "UPDATE_ROLLBACK_IN_PROGRESS", sid),
            ("Nightly", "UPDATE_COMPLETE", "skip-nightly"),
            ("skip", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", sid),
            ("skip", "UPDATE_ROLLBACK_COMPLETE", sid),
        ]
    );
    // The skipped schedule keeps what the failed update gave it; the rest is restored.
    let now = all_schedules(&emu).await;
    let expected: Vec<ScheduleView> = before
        .iter()
        .map(|s| {
            if s.name == "skip-nightly" {
                after_update.clone()
            } else {
                s.clone()
            }
        })
        .collect();
    assert_eq!(now, expected);
}

#[tokio::test]
async fn cleanup_failures_after_a_committed_update_leave_update_complete_with_delete_failed() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    stack(&emu, &cfn, "dirty", FULL).await;
    fault(
        &emu,
        json!({"stack_name": "dirty", "operation": "delete", "message": "cannot delete", "count": 2}),
    )
    .await;
    // Nightly is renamed (its old schedule goes at cleanup); Later leaves the template.
    let without_later = FULL.replace(
        FULL.split("  Later:\n")
            .nth(1)
            .unwrap()
            .split("Outputs:")
            .next()
            .unwrap(),
        "",
    );
    let without_later = without_later.replace("  Later:\n", "");
    assert_eq!(
        update(&cfn, "dirty", &without_later, &[("Name", "renamed")]).await,
        StackStatus::UpdateComplete
    );
    let all = events(&cfn, "dirty").await;
    let cleanup = since(&all, "dirty", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS");
    let sid = cleanup[0].2.as_str();
    let seq: Vec<(&str, &str, &str, &str)> = cleanup
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str(), e.3.as_str()))
        .collect();
    assert_eq!(
        seq,
        vec![
            ("dirty", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", sid, ""),
            ("Nightly", "DELETE_IN_PROGRESS", "dirty-nightly", ""),
            ("Nightly", "DELETE_FAILED", "dirty-nightly", "cannot delete"),
            ("Later", "DELETE_IN_PROGRESS", "dirty-later", ""),
            ("Later", "DELETE_FAILED", "dirty-later", "cannot delete"),
            ("dirty", "UPDATE_COMPLETE", sid, ""),
        ]
    );
    // What could not be deleted is left in place and out of the stack.
    assert!(get(&emu, "default", "dirty-nightly").await.is_some());
    assert!(get(&emu, "default", "dirty-later").await.is_some());
    let resources = cfn
        .list_stack_resources()
        .stack_name("dirty")
        .send()
        .await
        .unwrap();
    let ids: Vec<(&str, &str)> = resources
        .stack_resource_summaries()
        .iter()
        .map(|r| {
            (
                r.logical_resource_id().unwrap(),
                r.physical_resource_id().unwrap(),
            )
        })
        .filter(|r| r.0 == "Nightly" || r.0 == "Later")
        .collect();
    assert_eq!(ids, vec![("Nightly", "dirty-renamed")]);
}

#[tokio::test]
async fn a_cleanup_failure_during_an_update_rollback_still_completes_it() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "leak", FULL).await;
    fault(
        &emu,
        json!({"stack_name": "leak", "logical_id": "Later", "operation": "update", "message": "late"}),
    )
    .await;
    fault(
        &emu,
        json!({"stack_name": "leak", "logical_id": "Nightly", "operation": "delete", "message": "cannot delete"}),
    )
    .await;
    let changed = [("Name", "renamed"), ("LaterExpression", "rate(9 hours)")];
    assert_eq!(
        update(&cfn, "leak", FULL, &changed).await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "leak").await;
    let cleanup = since(&all, "leak", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS");
    let sid = cleanup[0].2.as_str();
    assert_eq!(
        brief(&cleanup),
        vec![
            ("leak", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", sid),
            ("Nightly", "DELETE_IN_PROGRESS", "leak-renamed"),
            ("Nightly", "DELETE_FAILED", "leak-renamed"),
            ("leak", "UPDATE_ROLLBACK_COMPLETE", sid),
        ]
    );
    // The stack is back; the schedule it could not delete is left over.
    let now = all_schedules(&emu).await;
    let leftover: Vec<&str> = now
        .iter()
        .filter(|s| !before.contains(s))
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(leftover, vec!["leak-renamed"]);
    assert!(before.iter().all(|s| now.contains(s)));
}

#[tokio::test]
async fn cancel_update_stack_rolls_back_what_changed_and_what_was_being_created() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "cancel", FULL).await;
    // Held while creating the added schedule, after Nightly changed.
    fault(
        &emu,
        json!({"stack_name": "cancel", "logical_id": "Extra", "operation": "create", "hold_seconds": 30}),
    )
    .await;
    assert_eq!(
        update(&cfn, "cancel", &with_extra(), &EVERYTHING).await,
        StackStatus::UpdateInProgress
    );
    assert_eq!(
        get(&emu, "default", "cancel-nightly")
            .await
            .unwrap()
            .schedule_expression
            .as_deref(),
        Some("rate(3 hours)")
    );
    cfn.cancel_update_stack()
        .stack_name("cancel")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "cancel").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "cancel").await;
    assert_eq!(
        stack_statuses(&all, "cancel"),
        vec![
            "UPDATE_IN_PROGRESS",
            "UPDATE_ROLLBACK_IN_PROGRESS",
            "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
            "UPDATE_ROLLBACK_COMPLETE"
        ]
    );
    let last = since(&all, "cancel", "UPDATE_IN_PROGRESS");
    let extra: Vec<(&str, &str, &str)> = last
        .iter()
        .filter(|e| e.0 == "Extra")
        .map(|e| (e.1.as_str(), e.2.as_str(), e.3.as_str()))
        .collect();
    assert_eq!(
        extra,
        vec![
            ("CREATE_IN_PROGRESS", "", ""),
            ("CREATE_FAILED", "", "Resource creation cancelled"),
            ("DELETE_IN_PROGRESS", "", ""),
            ("DELETE_COMPLETE", "", ""),
        ]
    );
    let rolling = last
        .iter()
        .find(|e| e.1 == "UPDATE_ROLLBACK_IN_PROGRESS")
        .unwrap();
    assert_eq!(rolling.3, "Stack update cancelled");
}

#[tokio::test]
async fn rollback_stack_rolls_back_an_update_made_with_rollback_disabled() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "manual", FULL).await;
    fault(
        &emu,
        json!({"stack_name": "manual", "logical_id": "Later", "operation": "update", "message": "late"}),
    )
    .await;
    let mut changed = EVERYTHING.to_vec();
    changed.push(("Name", "renamed"));
    cfn.update_stack()
        .stack_name("manual")
        .template_body(with_extra())
        .set_parameters(params(&changed))
        .disable_rollback(true)
        .send()
        .await
        .unwrap();
    let stack = describe(&cfn, "manual").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::UpdateFailed));
    assert_eq!(
        stack.stack_status_reason(),
        Some("The following resource(s) failed to update: [Later]. ")
    );
    // Everything the update made is there: the renamed copy beside the old, and Extra.
    assert!(get(&emu, "default", "manual-renamed").await.is_some());
    assert!(get(&emu, "default", "manual-extra").await.is_some());
    assert!(get(&emu, "default", "manual-nightly").await.is_some());
    // RollbackStack is refused where there is nothing to roll back.
    let e = err(cfn
        .rollback_stack()
        .stack_name("nothing-here")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError");
    cfn.rollback_stack()
        .stack_name("manual")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "manual").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(all_schedules(&emu).await, before);
    let all = events(&cfn, "manual").await;
    assert_eq!(
        stack_statuses(&all, "manual"),
        vec![
            "UPDATE_IN_PROGRESS",
            "UPDATE_FAILED",
            "UPDATE_ROLLBACK_IN_PROGRESS",
            "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS",
            "UPDATE_ROLLBACK_COMPLETE"
        ]
    );
    let e = err(cfn
        .rollback_stack()
        .stack_name("manual")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError");
}

/// `<group>/<name>` of every schedule whose name starts with `prefix`.
async fn left(emu: &Emulator, prefix: &str) -> Vec<String> {
    all_schedules(emu)
        .await
        .into_iter()
        .filter(|s| s.name.starts_with(prefix))
        .map(|s| format!("{}/{}", s.group_name, s.name))
        .collect()
}

async fn delete_and_check(emu: &Emulator, cfn: &Client, name: &str) {
    let id = stack_id(cfn, name).await;
    cfn.delete_stack().stack_name(name).send().await.unwrap();
    assert_eq!(
        describe(cfn, &id).await.stack_status(),
        Some(&StackStatus::DeleteComplete),
        "{name}"
    );
    assert_eq!(
        left(emu, &format!("{name}-")).await,
        Vec::<String>::new(),
        "{name}"
    );
}

#[tokio::test]
async fn delete_stack_recovers_from_every_failed_state() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;

    // CREATE_FAILED (rollback disabled).
    fault(
        &emu,
        json!({"stack_name": "cf", "logical_id": "Later", "operation": "create", "message": "x"}),
    )
    .await;
    cfn.create_stack()
        .stack_name("cf")
        .template_body(FULL)
        .on_failure(OnFailure::DoNothing)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "cf").await, StackStatus::CreateFailed);
    assert_eq!(left(&emu, "cf-").await, vec!["default/cf-nightly"]);
    delete_and_check(&emu, &cfn, "cf").await;

    // ROLLBACK_FAILED: the create rollback cannot delete Nightly.
    fault(
        &emu,
        json!({"stack_name": "rf", "logical_id": "Later", "operation": "create", "message": "x"}),
    )
    .await;
    fault(
        &emu,
        json!({"stack_name": "rf", "logical_id": "Nightly", "operation": "delete", "message": "y"}),
    )
    .await;
    assert_eq!(
        create(&cfn, "rf", FULL, &[]).await,
        StackStatus::RollbackFailed
    );
    assert_eq!(left(&emu, "rf-").await, vec!["default/rf-nightly"]);
    delete_and_check(&emu, &cfn, "rf").await;

    // DELETE_FAILED.
    create(&cfn, "df", FULL, &[]).await;
    fault(
        &emu,
        json!({"stack_name": "df", "logical_id": "Nightly", "operation": "delete", "message": "y"}),
    )
    .await;
    cfn.delete_stack().stack_name("df").send().await.unwrap();
    assert_eq!(status(&cfn, "df").await, StackStatus::DeleteFailed);
    delete_and_check(&emu, &cfn, "df").await;

    // UPDATE_FAILED after a replacement: both copies go.
    create(&cfn, "uf", FULL, &[]).await;
    fault(
        &emu,
        json!({"stack_name": "uf", "logical_id": "Later", "operation": "update", "message": "x"}),
    )
    .await;
    cfn.update_stack()
        .stack_name("uf")
        .template_body(FULL)
        .set_parameters(params(&[
            ("Name", "renamed"),
            ("LaterExpression", "rate(9 hours)"),
        ]))
        .disable_rollback(true)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "uf").await, StackStatus::UpdateFailed);
    assert_eq!(
        left(&emu, "uf-").await,
        vec![
            "default/uf-later",
            "default/uf-nightly",
            "default/uf-renamed"
        ]
    );
    delete_and_check(&emu, &cfn, "uf").await;

    // UPDATE_ROLLBACK_FAILED after a move: both copies go.
    create(&cfn, "urf", FULL, &[]).await;
    fault(
        &emu,
        json!({"stack_name": "urf", "logical_id": "Later", "operation": "update", "message": "x"}),
    )
    .await;
    fault(&emu, json!({"stack_name": "urf", "logical_id": "Nightly", "operation": "restore", "message": "y"})).await;
    assert_eq!(
        update(
            &cfn,
            "urf",
            FULL,
            &[("Group", "urf-blue"), ("LaterExpression", "rate(9 hours)")]
        )
        .await,
        StackStatus::UpdateRollbackFailed
    );
    assert_eq!(
        left(&emu, "urf-").await,
        vec![
            "default/urf-later",
            "default/urf-nightly",
            "urf-blue/urf-nightly"
        ]
    );
    delete_and_check(&emu, &cfn, "urf").await;
}

/// [`FULL`] with `Nightly` retained on deletion and on replacement.
fn retained(policy: &str) -> String {
    FULL.replace(
        "    DependsOn: [Blue, Green]\n",
        &format!("    DependsOn: [Blue, Green]\n    DeletionPolicy: {policy}\n    UpdateReplacePolicy: Retain\n"),
    )
}

#[tokio::test]
async fn retain_policies_keep_the_schedule_on_every_path_that_deletes_or_replaces_it() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let skipped = |all: &[(String, String, String, String)], physical: &str| {
        all.iter()
            .any(|e| e.0 == "Nightly" && e.1 == "DELETE_SKIPPED" && e.2 == physical)
    };

    // DeleteStack.
    create(&cfn, "r1", &retained("Retain"), &[]).await;
    let id = stack_id(&cfn, "r1").await;
    cfn.delete_stack().stack_name("r1").send().await.unwrap();
    assert!(skipped(&events(&cfn, &id).await, "r1-nightly"));
    assert_eq!(left(&emu, "r1-").await, vec!["default/r1-nightly"]);

    // Removal from the template by an update.
    create(&cfn, "r2", &retained("Retain"), &[]).await;
    let without = FULL
        .replace(
            FULL.split("  Nightly:\n")
                .nth(1)
                .unwrap()
                .split("  Later:\n")
                .next()
                .unwrap(),
            "",
        )
        .replace("  Nightly:\n", "")
        .replace("    DependsOn: Nightly\n", "")
        .replace(
            "  Ref: {Value: !Ref Nightly}\n  Arn: {Value: !GetAtt Nightly.Arn}\n",
            "  Ref: {Value: !Ref Later}\n",
        );
    assert_eq!(
        update(&cfn, "r2", &without, &[]).await,
        StackStatus::UpdateComplete
    );
    assert!(skipped(&events(&cfn, "r2").await, "r2-nightly"));
    assert!(get(&emu, "default", "r2-nightly").await.is_some());

    // A failed create's rollback.
    fault(
        &emu,
        json!({"stack_name": "r3", "logical_id": "Later", "operation": "create", "message": "x"}),
    )
    .await;
    assert_eq!(
        create(&cfn, "r3", &retained("Retain"), &[]).await,
        StackStatus::RollbackComplete
    );
    assert!(skipped(&events(&cfn, "r3").await, "r3-nightly"));
    assert!(get(&emu, "default", "r3-nightly").await.is_some());
    // RetainExceptOnCreate does not keep what the failed create made.
    fault(
        &emu,
        json!({"stack_name": "r4", "logical_id": "Later", "operation": "create", "message": "x"}),
    )
    .await;
    assert_eq!(
        create(&cfn, "r4", &retained("RetainExceptOnCreate"), &[]).await,
        StackStatus::RollbackComplete
    );
    assert!(get(&emu, "default", "r4-nightly").await.is_none());

    // The old schedule of a replacement, at cleanup and when deleting a stack left in
    // UPDATE_FAILED.
    create(&cfn, "r5", &retained("Delete"), &[]).await;
    assert_eq!(
        update(&cfn, "r5", &retained("Delete"), &[("Name", "renamed")]).await,
        StackStatus::UpdateComplete
    );
    assert!(skipped(&events(&cfn, "r5").await, "r5-nightly"));
    create(&cfn, "r6", &retained("Delete"), &[]).await;
    fault(
        &emu,
        json!({"stack_name": "r6", "logical_id": "Later", "operation": "update", "message": "x"}),
    )
    .await;
    cfn.update_stack()
        .stack_name("r6")
        .template_body(retained("Delete"))
        .set_parameters(params(&[
            ("Name", "renamed"),
            ("LaterExpression", "rate(9 hours)"),
        ]))
        .disable_rollback(true)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "r6").await, StackStatus::UpdateFailed);
    let id = stack_id(&cfn, "r6").await;
    cfn.delete_stack().stack_name("r6").send().await.unwrap();
    assert!(skipped(&events(&cfn, &id).await, "r6-nightly"));
    assert_eq!(left(&emu, "r6-").await, vec!["default/r6-nightly"]);

    // A resource the failed update added, at the rollback's cleanup.
    create(&cfn, "r7", FULL, &[]).await;
    fault(
        &emu,
        json!({"stack_name": "r7", "logical_id": "Later", "operation": "update", "message": "x"}),
    )
    .await;
    let extra_retained = with_extra().replace(
        "  Extra:\n    Type: AWS::Scheduler::Schedule\n",
        "  Extra:\n    Type: AWS::Scheduler::Schedule\n    DeletionPolicy: Retain\n",
    );
    assert_eq!(
        update(
            &cfn,
            "r7",
            &extra_retained,
            &[("LaterExpression", "rate(9 hours)")]
        )
        .await,
        StackStatus::UpdateRollbackComplete
    );
    assert!(events(&cfn, "r7")
        .await
        .iter()
        .any(|e| e.0 == "Extra" && e.1 == "DELETE_SKIPPED" && e.2 == "r7-extra"));
    assert!(get(&emu, "default", "r7-extra").await.is_some());
}

#[tokio::test]
async fn each_fault_operation_names_the_step_extensions_md_maps_it_to() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let before = stack(&emu, &cfn, "map", FULL).await;
    let remaining = |rules: &serde_json::Value, id: &str| {
        rules["faults"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()["remaining"]
            .as_i64()
            .unwrap()
    };
    // A replacement's new schedule is a `create`, not an `update`.
    let update_rule = fault(&emu, json!({"stack_name": "map", "logical_id": "Nightly", "operation": "update", "message": "u"})).await;
    let create_rule = fault(&emu, json!({"stack_name": "map", "logical_id": "Nightly", "operation": "create", "message": "new one refused"})).await;
    assert_eq!(
        update(&cfn, "map", FULL, &[("Name", "renamed")]).await,
        StackStatus::UpdateRollbackComplete
    );
    let (_, rules) = emu.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(remaining(&rules, &create_rule), 0);
    assert_eq!(remaining(&rules, &update_rule), 1);
    let all = events(&cfn, "map").await;
    let failed = all.iter().rfind(|e| e.1 == "UPDATE_FAILED").unwrap();
    assert_eq!(
        (failed.0.as_str(), failed.3.as_str()),
        ("Nightly", "new one refused")
    );
    assert_eq!(all_schedules(&emu).await, before);
    emu.control("DELETE", "/_cumulo/faults", None).await;

    // A group move is one `update`, used once however many provider calls it makes; its
    // destination is not a `create`.
    let twice = fault(&emu, json!({"stack_name": "map", "logical_id": "Nightly", "operation": "update", "message": "u", "count": 2})).await;
    let create_rule = fault(&emu, json!({"stack_name": "map", "logical_id": "Nightly", "operation": "create", "message": "c"})).await;
    assert_eq!(
        update(&cfn, "map", FULL, &[("Group", "map-blue")]).await,
        StackStatus::UpdateRollbackComplete
    );
    let (_, rules) = emu.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(remaining(&rules, &twice), 1);
    assert_eq!(remaining(&rules, &create_rule), 1);
    assert_eq!(all_schedules(&emu).await, before);
    emu.control("DELETE", "/_cumulo/faults", None).await;

    // Cleanup is a `delete` (the source of a move); putting back is a `restore`.
    let delete_rule = fault(&emu, json!({"stack_name": "map", "logical_id": "Nightly", "operation": "delete", "message": "d"})).await;
    let restore_rule = fault(&emu, json!({"stack_name": "map", "logical_id": "Nightly", "operation": "restore", "message": "r"})).await;
    assert_eq!(
        update(&cfn, "map", FULL, &[("Group", "map-blue")]).await,
        StackStatus::UpdateComplete
    );
    let (_, rules) = emu.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(remaining(&rules, &delete_rule), 0);
    assert_eq!(remaining(&rules, &restore_rule), 1);
    fault(
        &emu,
        json!({"stack_name": "map", "logical_id": "Later", "operation": "update", "message": "l"}),
    )
    .await;
    let changed = [
        ("Group", "map-blue"),
        ("Expression", "rate(5 hours)"),
        ("LaterExpression", "rate(9 hours)"),
    ];
    assert_eq!(
        update(&cfn, "map", FULL, &changed).await,
        StackStatus::UpdateRollbackFailed
    );
    let (_, rules) = emu.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(remaining(&rules, &restore_rule), 0);
}

#[tokio::test]
async fn a_start_date_gone_by_fails_the_update_and_its_restore_as_update_schedule_does() {
    // UpdateSchedule is a full replace, so an update sends the template's StartDate again;
    // once it is more than 5 minutes in the past the Scheduler refuses it, for the update and
    // for the restore alike. ContinueUpdateRollback skipping the schedule recovers.
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "late", FULL, &[]).await;
    emu.set_clock(t0() + Duration::days(3)).await;
    let before = get(&emu, "default", "late-nightly").await.unwrap();
    assert_eq!(
        update(&cfn, "late", FULL, &[("Expression", "rate(3 hours)")]).await,
        StackStatus::UpdateRollbackFailed
    );
    let all = events(&cfn, "late").await;
    let failed: Vec<&str> = all
        .iter()
        .filter(|e| e.0 == "Nightly" && e.1 == "UPDATE_FAILED")
        .map(|e| e.3.as_str())
        .collect();
    assert_eq!(failed.len(), 2, "{all:#?}");
    for reason in failed {
        assert!(
            reason.starts_with("Resource handler returned message: \"The StartDate you specify cannot be earlier than 5 minutes ago.\""),
            "{reason}"
        );
    }
    assert_eq!(
        get(&emu, "default", "late-nightly").await,
        Some(before.clone())
    );
    cfn.continue_update_rollback()
        .stack_name("late")
        .resources_to_skip("Nightly")
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "late").await,
        StackStatus::UpdateRollbackComplete
    );
    assert_eq!(get(&emu, "default", "late-nightly").await, Some(before));
    // A new StartDate lets the stack move on.
    assert_eq!(
        update(
            &cfn,
            "late",
            FULL,
            &[
                ("Expression", "rate(3 hours)"),
                ("StartDate", "2030-01-05T00:00:00Z")
            ]
        )
        .await,
        StackStatus::UpdateComplete
    );
}
