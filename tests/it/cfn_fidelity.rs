//! CloudFormation answers where Cumulo used to differ from AWS (issue 11, "Fidelity fixes";
//! issue 17 item 1 for the order of the checks), each over the wire with the AWS SDK for Rust:
//! DeleteChangeSet of a missing name, UsePreviousValue with a value, RetainResources and
//! FORCE_DELETE_STACK outside DELETE_FAILED, removing an export in use, distinct increasing
//! event timestamps, and the capability check that runs before any evaluation.

use aws_sdk_cloudformation::types::{
    Capability, ChangeSetType, DeletionMode, Parameter, StackStatus,
};
use chrono::Duration;
use serde_json::json;

use crate::fixtures::{err, events, fault, status, statuses, Stacks};
use crate::support::{t0, Emulator};

const TWO_QUEUES: &str = include_str!("../templates/two_queues.yaml");
const PARAMETER_QUEUE: &str = include_str!("../templates/parameter_queue.yaml");
const IMPORTER: &str = include_str!("../templates/importer.yaml");
const TWO_QUEUES_NO_EXPORT: &str = include_str!("../templates/two_queues_no_export.yaml");
const LANGUAGE_EXTENSIONS_BROKEN: &str =
    include_str!("../templates/language_extensions_broken.yaml");
const LANGUAGE_EXTENSIONS: &str = include_str!("../templates/language_extensions.yaml");

#[tokio::test]
async fn deleting_a_change_set_name_the_stack_lacks_answers_200() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    s.create("cdk", TWO_QUEUES, &[]).await;
    // The CDK deletes `cdk-deploy-change-set` before every deploy and does not catch errors.
    s.cfn
        .delete_change_set()
        .stack_name("cdk")
        .change_set_name("cdk-deploy-change-set")
        .send()
        .await
        .expect("a missing change-set name on an existing stack is not an error");
    // A missing stack still is, and so is a missing change-set ARN.
    let e = err(s
        .cfn
        .delete_change_set()
        .stack_name("nope")
        .change_set_name("cdk-deploy-change-set")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ValidationError".into(),
            "Stack [nope] does not exist".into()
        )
    );
    let arn = "arn:aws:cloudformation:us-east-1:000000000000:changeSet/gone/1";
    let e = err(s
        .cfn
        .delete_change_set()
        .change_set_name(arn)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ChangeSetNotFound".into(),
            format!("ChangeSet [{arn}] does not exist")
        )
    );
}

#[tokio::test]
async fn use_previous_value_with_a_value_is_refused() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    let body = PARAMETER_QUEUE;
    s.create("prev", body, &[("Env", "dev")]).await;
    let both = Parameter::builder()
        .parameter_key("Env")
        .parameter_value("prod")
        .use_previous_value(true)
        .build();
    let expected = (
        "ValidationError".to_string(),
        "Invalid input for parameter key Env. Cannot specify usePreviousValue as true and non empty value for a parameter".to_string(),
    );
    let e = err(s
        .cfn
        .update_stack()
        .stack_name("prev")
        .use_previous_template(true)
        .parameters(both.clone())
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, expected);
    let e = err(s
        .cfn
        .create_change_set()
        .stack_name("prev")
        .change_set_name("cs")
        .use_previous_template(true)
        .parameters(both)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, expected);
    assert_eq!(s.status("prev").await, StackStatus::CreateComplete);
    // UsePreviousValue alone still works.
    let previous = Parameter::builder()
        .parameter_key("Env")
        .use_previous_value(true)
        .build();
    let e = err(s
        .cfn
        .update_stack()
        .stack_name("prev")
        .use_previous_template(true)
        .parameters(previous)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "No updates are to be performed.");
}

/// A stack `name` of two queues whose deletion failed on `First` (DELETE_FAILED).
async fn delete_failed(s: &Stacks<'_>, emu: &Emulator, name: &str) -> String {
    s.create(name, TWO_QUEUES, &[]).await;
    fault(
        emu,
        json!({"stack_name": name, "logical_id": "First", "operation": "delete", "message": "stuck"}),
    )
    .await;
    s.delete(name).await;
    assert_eq!(s.status(name).await, StackStatus::DeleteFailed);
    crate::fixtures::stack_id(&s.cfn, name).await
}

#[tokio::test]
async fn retain_resources_is_only_for_delete_failed_stacks_and_their_resources() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    s.create("live", TWO_QUEUES, &[]).await;
    let live_id = crate::fixtures::stack_id(&s.cfn, "live").await;
    let e = err(s
        .cfn
        .delete_stack()
        .stack_name("live")
        .retain_resources("First")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ValidationError".into(),
            format!("Invalid operation on stack [{live_id}]. When you delete a stack, specify which resources to retain only when the stack is in the DELETE_FAILED state.")
        )
    );
    assert_eq!(s.status("live").await, StackStatus::CreateComplete);
    let failed_id = delete_failed(&s, &emu, "failed").await;
    let e = err(s
        .cfn
        .delete_stack()
        .stack_name("failed")
        .retain_resources("Nope")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ValidationError".into(),
            "The specified resources to retain must be resources of the stack: [Nope] are not."
                .into()
        )
    );
    // Second was deleted by the failed delete.
    let e = err(s
        .cfn
        .delete_stack()
        .stack_name("failed")
        .retain_resources("Second")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "The specified resources to retain must be in a valid state. Do not specify resources that are in the DELETE_COMPLETE state."
    );
    assert_eq!(s.status(&failed_id).await, StackStatus::DeleteFailed);
}

#[tokio::test]
async fn force_delete_stack_leaves_what_failed_and_deletes_the_stack() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    s.create("live", TWO_QUEUES, &[]).await;
    let live_id = crate::fixtures::stack_id(&s.cfn, "live").await;
    let e = err(s
        .cfn
        .delete_stack()
        .stack_name("live")
        .deletion_mode(DeletionMode::ForceDeleteStack)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ValidationError".into(),
            format!("Invalid operation on stack [{live_id}]. You can activate DeletionMode FORCE_DELETE_STACK in a delete stack operation only when the stack is in the DELETE_FAILED state.")
        )
    );
    let id = delete_failed(&s, &emu, "stuck").await;
    // The fault would fail the delete again: FORCE_DELETE_STACK does not try.
    let again = fault(
        &emu,
        json!({"stack_name": "stuck", "logical_id": "First", "operation": "delete", "message": "still stuck"}),
    )
    .await;
    s.cfn
        .delete_stack()
        .stack_name("stuck")
        .deletion_mode(DeletionMode::ForceDeleteStack)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&s.cfn, &id).await, StackStatus::DeleteComplete);
    let all = events(&s.cfn, &id).await;
    let forced = crate::fixtures::since(&all, "stuck", "DELETE_IN_PROGRESS");
    assert_eq!(
        statuses(&forced, "First"),
        ["DELETE_SKIPPED"],
        "left without another try: {forced:#?}"
    );
    assert!(!crate::fixtures::fired(&emu, &again).await);
    // The queue the stack could not delete is left, as RetainResources leaves it.
    let sqs = emu.sqs().await;
    let left = sqs
        .list_queues()
        .queue_name_prefix("stuck-")
        .send()
        .await
        .unwrap();
    assert_eq!(left.queue_urls().len(), 1, "{left:?}");
    assert!(left.queue_urls()[0].contains("stuck-First-"), "{left:?}");
    // STANDARD is the default, and other values are refused with the Coral text.
    let form = crate::fixtures::Form::new(&emu);
    let (code, body) = form
        .call(
            "DeleteStack",
            &[("StackName", "live"), ("DeletionMode", "SOFT")],
        )
        .await;
    assert_eq!(code, 400);
    assert!(
        body.contains("1 validation error detected: Value &apos;SOFT&apos; at &apos;deletionMode&apos; failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, FORCE_DELETE_STACK]"),
        "{body}"
    );
}

#[tokio::test]
async fn removing_an_export_in_use_says_it_cannot_be_deleted() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    s.create("exporter", TWO_QUEUES, &[]).await;
    s.create("importer", IMPORTER, &[]).await;
    let st = s.update("exporter", TWO_QUEUES_NO_EXPORT, &[]).await;
    assert_eq!(st, StackStatus::UpdateRollbackComplete);
    let all = s.events("exporter").await;
    let rolling = all
        .iter()
        .find(|e| e.0 == "exporter" && e.1 == "UPDATE_ROLLBACK_IN_PROGRESS")
        .expect("rollback event");
    assert_eq!(
        rolling.3,
        "Export exporter-First cannot be deleted as it is in use by importer. "
    );
}

#[tokio::test]
async fn events_of_an_operation_have_distinct_increasing_timestamps() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    s.create("ts", TWO_QUEUES, &[]).await;
    let stamps = |page: &aws_sdk_cloudformation::operation::describe_stack_events::DescribeStackEventsOutput| {
        let mut out: Vec<chrono::DateTime<chrono::Utc>> = page
            .stack_events()
            .iter()
            .map(|e| {
                let t = e.timestamp().expect("timestamp");
                chrono::DateTime::from_timestamp(t.secs(), t.subsec_nanos()).expect("instant")
            })
            .collect();
        out.reverse();
        out
    };
    let page = s
        .cfn
        .describe_stack_events()
        .stack_name("ts")
        .send()
        .await
        .unwrap();
    let created = stamps(&page);
    // Stack CREATE_IN_PROGRESS, two resources × three events, stack CREATE_COMPLETE, with a
    // manual clock frozen at t0: one millisecond apart, starting at the clock.
    assert_eq!(created.len(), 8);
    for (i, t) in created.iter().enumerate() {
        assert_eq!(*t, t0() + Duration::milliseconds(i as i64), "{created:?}");
    }
    // Newest first on the wire, in a strict order a client can sort by.
    let listed = page.stack_events();
    assert_eq!(
        listed[0].resource_status().map(|s| s.as_str()),
        Some("CREATE_COMPLETE")
    );
    // A later operation never stamps before the clock: once the clock is ahead of the log,
    // the next event is at the clock.
    emu.set_clock(t0() + Duration::seconds(10)).await;
    let id = crate::fixtures::stack_id(&s.cfn, "ts").await;
    s.delete("ts").await;
    let page = s
        .cfn
        .describe_stack_events()
        .stack_name(&id)
        .send()
        .await
        .unwrap();
    let deleted = stamps(&page);
    assert_eq!(deleted[8], t0() + Duration::seconds(10), "{deleted:?}");
    assert!(deleted.windows(2).all(|w| w[0] < w[1]), "{deleted:?}");
}

#[tokio::test]
async fn a_missing_auto_expand_is_refused_before_anything_is_evaluated() {
    let emu = Emulator::start().await;
    let s = Stacks::new(&emu).await;
    let broken = LANGUAGE_EXTENSIONS_BROKEN;
    let e = err(s
        .cfn
        .create_stack()
        .stack_name("auto")
        .template_body(broken)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "InsufficientCapabilitiesException".into(),
            "Requires capabilities : [CAPABILITY_AUTO_EXPAND]".into()
        )
    );
    // With the capability the template is evaluated, and its error is a ValidationError.
    let e = err(s
        .cfn
        .create_stack()
        .stack_name("auto")
        .template_body(broken)
        .capabilities(Capability::CapabilityAutoExpand)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError", "{e:?}");
    // CreateChangeSet needs no CAPABILITY_AUTO_EXPAND (API reference, Capabilities).
    s.cfn
        .create_change_set()
        .stack_name("expanded")
        .change_set_name("cs")
        .change_set_type(ChangeSetType::Create)
        .template_body(LANGUAGE_EXTENSIONS)
        .send()
        .await
        .expect("a change set with a transform needs no capability");
    s.cfn
        .execute_change_set()
        .stack_name("expanded")
        .change_set_name("cs")
        .send()
        .await
        .unwrap();
    assert_eq!(s.status("expanded").await, StackStatus::CreateComplete);
    // UpdateStack checks it like CreateStack.
    let e = err(s
        .cfn
        .update_stack()
        .stack_name("expanded")
        .template_body(broken)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "InsufficientCapabilitiesException");
}
