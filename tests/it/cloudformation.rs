//! CloudFormation over the wire with the AWS SDK for Rust: every operation of the deploy path,
//! their errors with AWS's codes and messages (aws-contract.md §2.4), the stack and change-set
//! state machines (§3.2–§3.4), events, exports and imports. Resources here are types Cumulo
//! stores as placeholders (`CUMULO_CFN_UNSUPPORTED=placeholder`: `AWS::ECR::Repository`)
//! so these tests exercise the engine alone; the
//! providers over the real services are tested in `cloudformation_resources.rs`.

use aws_sdk_cloudformation::types::{
    Capability, ChangeSetStatus, ChangeSetType, ExecutionStatus, Parameter, StackStatus, Tag,
};

use crate::fixtures::{
    create_stack as create, describe, err, events, param, placeholder_emulator as emulator, status,
    statuses,
};

/// Two log groups, one depending on the other, a parameter, outputs and an export.
pub const LOGS: &str = include_str!("../templates/logs.yaml");

#[tokio::test]
async fn create_stack_is_terminal_when_the_call_returns() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let id = create(&cfn, "logs", LOGS).await;
    assert!(id.starts_with("arn:aws:cloudformation:us-east-1:000000000000:stack/logs/"));
    let stack = describe(&cfn, "logs").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::CreateComplete));
    assert_eq!(stack.stack_id(), Some(id.as_str()));
    assert_eq!(stack.description(), Some("two log groups"));
    assert_eq!(stack.disable_rollback(), Some(false));
    assert_eq!(
        stack.change_set_id(),
        None,
        "CreateStack leaves no ChangeSetId"
    );
    assert_eq!(stack.last_updated_time(), None);
    let params: Vec<(&str, &str)> = stack
        .parameters()
        .iter()
        .map(|p| (p.parameter_key().unwrap(), p.parameter_value().unwrap()))
        .collect();
    assert_eq!(params, vec![("Days", "7"), ("Suffix", "one")]);
    let outputs: Vec<(&str, &str, Option<&str>)> = stack
        .outputs()
        .iter()
        .map(|o| {
            (
                o.output_key().unwrap(),
                o.output_value().unwrap(),
                o.export_name(),
            )
        })
        .collect();
    assert_eq!(outputs[0], ("FirstName", "logs-one", Some("logs-First")));
    assert_eq!(outputs[1].0, "SecondName");
    assert!(outputs[1].1.starts_with("logs-Second-"), "{outputs:?}");

    let events = events(&cfn, "logs").await;
    assert_eq!(
        statuses(&events, "logs"),
        vec!["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    );
    assert_eq!(
        statuses(&events, "First"),
        vec![
            "CREATE_IN_PROGRESS",
            "CREATE_IN_PROGRESS",
            "CREATE_COMPLETE"
        ]
    );
    let first: Vec<_> = events.iter().filter(|e| e.0 == "First").collect();
    assert_eq!((first[0].2.as_str(), first[0].3.as_str()), ("", ""));
    assert_eq!(
        (first[1].2.as_str(), first[1].3.as_str()),
        ("logs-one", "Resource creation Initiated")
    );
    // Dependencies first: First completes before Second starts.
    let first_done = events
        .iter()
        .position(|e| e.0 == "First" && e.1 == "CREATE_COMPLETE");
    let second_start = events.iter().position(|e| e.0 == "Second");
    assert!(first_done < second_start, "{events:?}");
    let newest = events.last().unwrap();
    assert_eq!(
        (newest.0.as_str(), newest.1.as_str(), newest.2.as_str()),
        ("logs", "CREATE_COMPLETE", id.as_str())
    );

    let resources = cfn
        .describe_stack_resources()
        .stack_name("logs")
        .send()
        .await
        .unwrap();
    let ids: Vec<&str> = resources
        .stack_resources()
        .iter()
        .map(|r| r.logical_resource_id().unwrap())
        .collect();
    assert_eq!(ids, vec!["First", "Second"]);
    let detail = cfn
        .describe_stack_resource()
        .stack_name("logs")
        .logical_resource_id("First")
        .send()
        .await
        .unwrap()
        .stack_resource_detail()
        .cloned()
        .unwrap();
    assert_eq!(detail.physical_resource_id(), Some("logs-one"));
    assert_eq!(detail.metadata(), Some("{}"));
    let listed = cfn
        .list_stack_resources()
        .stack_name("logs")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.stack_resource_summaries().len(), 2);
}

#[tokio::test]
async fn missing_stacks_get_awss_messages() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let e = err(cfn
        .describe_stacks()
        .stack_name("nope")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ValidationError".into(),
            "Stack with id nope does not exist".into()
        )
    );
    let e = err(cfn
        .describe_stack_events()
        .stack_name("nope")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Stack [nope] does not exist");
    let e = err(cfn
        .describe_change_set()
        .stack_name("nope")
        .change_set_name("cs")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Stack [nope] does not exist");
    let e = err(cfn
        .delete_change_set()
        .change_set_name("cs")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "StackName must be specified if ChangeSetName is not specified as an ARN."
    );
    let e = err(cfn
        .get_template()
        .stack_name("nope")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Stack with id nope does not exist");
    let e = err(cfn.get_template().send().await.unwrap_err());
    assert_eq!(
        e.1,
        "StackName is required if ChangeSetName is not specified."
    );
    let e = err(cfn
        .describe_stack_resource()
        .stack_name("nope")
        .logical_resource_id("X")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Stack with id nope does not exist");
    // Deleting a stack that does not exist succeeds.
    cfn.delete_stack().stack_name("nope").send().await.unwrap();
    create(&cfn, "have", LOGS).await;
    let e = err(cfn
        .describe_stack_resource()
        .stack_name("have")
        .logical_resource_id("NonExistentResource")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Resource NonExistentResource does not exist for stack have"
    );
    let e = err(cfn
        .describe_change_set()
        .stack_name("have")
        .change_set_name("missing")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ChangeSetNotFound".into(),
            "ChangeSet [missing] does not exist".into()
        )
    );
}

#[tokio::test]
async fn create_stack_refuses_a_taken_name_and_bad_names() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "taken", LOGS).await;
    let e = err(cfn
        .create_stack()
        .stack_name("taken")
        .template_body(LOGS)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "AlreadyExistsException".into(),
            "Stack [taken] already exists".into()
        )
    );
    let e = err(cfn
        .create_stack()
        .stack_name("*@bad_$")
        .template_body(LOGS)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "1 validation error detected: Value '*@bad_$' at 'stackName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*|arn:[-a-zA-Z0-9:/._+]*"
    );
    let e = err(cfn
        .create_stack()
        .stack_name("no-template")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Either Template URL or Template Body must be specified."
    );
}

#[tokio::test]
async fn template_errors_are_synchronous_validation_errors() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let cases = [
        ("{\"Resources\": ", "Template format error: JSON not well-formed."),
        (
            include_str!("../templates/cloudformation/template_errors_are_synchronous_validation_errors.yaml"),
            "Template format error: Unrecognized resource types: [AWS::Foo::Bar]",
        ),
        (
            include_str!("../templates/cloudformation/template_errors_are_synchronous_validation_errors_2.yaml"),
            "Template format error: Unresolved resource dependencies [Nowhere] in the Resources block of the template",
        ),
        (
            include_str!("../templates/cloudformation/template_errors_are_synchronous_validation_errors_3.yaml"),
            "Circular dependency between resources: [",
        ),
    ];
    for (i, (body, expected)) in cases.iter().enumerate() {
        let name = format!("bad{i}");
        let e = err(cfn
            .create_change_set()
            .stack_name(&name)
            .change_set_name("cs")
            .change_set_type(ChangeSetType::Create)
            .template_body(*body)
            .send()
            .await
            .unwrap_err());
        assert_eq!(e.0, "ValidationError", "{body}");
        assert!(e.1.starts_with(expected), "{body}: {}", e.1);
        // No stack was made.
        assert!(cfn
            .describe_stacks()
            .stack_name(&name)
            .send()
            .await
            .is_err());
    }
    let too_big = format!("Description: {}\nResources: {{}}", "x".repeat(52_000));
    let e = err(cfn
        .validate_template()
        .template_body(too_big)
        .send()
        .await
        .unwrap_err());
    assert!(
        e.1.ends_with("Member must have length less than or equal to 51200"),
        "{}",
        e.1
    );
}

#[tokio::test]
async fn parameter_errors_use_awss_words() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let e = err(cfn
        .create_stack()
        .stack_name("p")
        .template_body(LOGS)
        .parameters(param("Suffix", "four"))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Parameter 'Suffix' must be one of AllowedValues");
    let e = err(cfn
        .create_stack()
        .stack_name("p")
        .template_body(LOGS)
        .parameters(param("Other", "x"))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Parameters: [Other] do not exist in the template");
}

#[tokio::test]
async fn change_set_flow_creates_the_stack_on_execution() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let cs = cfn
        .create_change_set()
        .stack_name("flow")
        .change_set_name("first")
        .change_set_type(ChangeSetType::Create)
        .template_body(LOGS)
        .description("the first")
        .send()
        .await
        .unwrap();
    let cs_id = cs.id().unwrap().to_string();
    assert!(cs_id.starts_with("arn:aws:cloudformation:us-east-1:000000000000:changeSet/first/"));
    let stack = describe(&cfn, "flow").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::ReviewInProgress));
    assert_eq!(stack.stack_status_reason(), Some("User Initiated"));
    assert_eq!(stack.stack_id(), cs.stack_id());
    let e = err(cfn
        .get_template_summary()
        .stack_name("flow")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "GetTemplateSummary cannot be called on REVIEW_IN_PROGRESS stacks."
    );

    let desc = cfn
        .describe_change_set()
        .stack_name("flow")
        .change_set_name("first")
        .send()
        .await
        .unwrap();
    assert_eq!(desc.status(), Some(&ChangeSetStatus::CreateComplete));
    assert_eq!(desc.execution_status(), Some(&ExecutionStatus::Available));
    assert_eq!(desc.description(), Some("the first"));
    let adds: Vec<(&str, &str)> = desc
        .changes()
        .iter()
        .map(|c| {
            let rc = c.resource_change().unwrap();
            (
                rc.logical_resource_id().unwrap(),
                rc.action().unwrap().as_str(),
            )
        })
        .collect();
    assert_eq!(adds, vec![("First", "Add"), ("Second", "Add")]);
    assert!(desc.changes()[0]
        .resource_change()
        .unwrap()
        .physical_resource_id()
        .is_none());
    let listed = cfn
        .list_change_sets()
        .stack_name("flow")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.summaries().len(), 1);

    cfn.execute_change_set()
        .change_set_name(&cs_id)
        .stack_name("flow")
        .disable_rollback(false)
        .send()
        .await
        .unwrap();
    let stack = describe(&cfn, "flow").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::CreateComplete));
    assert_eq!(stack.change_set_id(), Some(cs_id.as_str()));
    assert!(stack.last_updated_time().is_some());
    let desc = cfn
        .describe_change_set()
        .change_set_name(&cs_id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        desc.execution_status(),
        Some(&ExecutionStatus::ExecuteComplete)
    );
    // Executed change sets are not listed.
    let listed = cfn
        .list_change_sets()
        .stack_name("flow")
        .send()
        .await
        .unwrap();
    assert!(listed.summaries().is_empty());
    let events = events(&cfn, "flow").await;
    assert_eq!(
        statuses(&events, "flow"),
        vec![
            "REVIEW_IN_PROGRESS",
            "CREATE_IN_PROGRESS",
            "CREATE_COMPLETE"
        ]
    );
    // A second CREATE change set for the stack is refused.
    let e = err(cfn
        .create_change_set()
        .stack_name("flow")
        .change_set_name("again")
        .change_set_type(ChangeSetType::Create)
        .template_body(LOGS)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Stack [flow] already exists and cannot be created again with the changeSet [again]."
    );
}

#[tokio::test]
async fn empty_change_set_fails_with_the_reason_the_cli_matches() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "same", LOGS).await;
    let cs = cfn
        .create_change_set()
        .stack_name("same")
        .change_set_name("nothing")
        .template_body(LOGS)
        .parameters(
            Parameter::builder()
                .parameter_key("Days")
                .use_previous_value(true)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let desc = cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(desc.status(), Some(&ChangeSetStatus::Failed));
    assert_eq!(desc.execution_status(), Some(&ExecutionStatus::Unavailable));
    assert!(desc.changes().is_empty());
    assert_eq!(
        desc.status_reason(),
        Some("The submitted information didn't contain changes. Submit different information to create a change set.")
    );
    let e = err(cfn
        .execute_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "InvalidChangeSetStatus");
    assert_eq!(
        e.1,
        format!(
            "ChangeSet [{}] cannot be executed in its current status of [FAILED]",
            cs.id().unwrap()
        )
    );
    let e = err(cfn
        .update_stack()
        .stack_name("same")
        .template_body(LOGS)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ValidationError".into(),
            "No updates are to be performed.".into()
        )
    );
    cfn.delete_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    let e = err(cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ChangeSetNotFound");
}

#[tokio::test]
async fn updates_in_place_and_by_replacement_show_in_change_sets_and_events() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "upd", LOGS).await;
    // Days changes RetentionInDays (in place); Suffix changes RepositoryName (createOnly).
    let cs = cfn
        .create_change_set()
        .stack_name("upd")
        .change_set_name("both")
        .template_body(LOGS)
        .parameters(param("Days", "30"))
        .parameters(param("Suffix", "two"))
        .send()
        .await
        .unwrap();
    let desc = cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    let first = desc.changes()[0].resource_change().unwrap();
    assert_eq!(first.logical_resource_id(), Some("First"));
    assert_eq!(first.action().unwrap().as_str(), "Modify");
    assert_eq!(first.replacement().unwrap().as_str(), "True");
    assert_eq!(first.policy_action().unwrap().as_str(), "ReplaceAndDelete");
    assert_eq!(first.physical_resource_id(), Some("upd-one"));
    let name_detail = first
        .details()
        .iter()
        .find(|d| d.target().and_then(|t| t.name()) == Some("RepositoryName"))
        .unwrap();
    assert_eq!(
        name_detail
            .target()
            .unwrap()
            .requires_recreation()
            .unwrap()
            .as_str(),
        "Always"
    );
    assert_eq!(
        name_detail.change_source().unwrap().as_str(),
        "ParameterReference"
    );
    assert_eq!(name_detail.causing_entity(), Some("Suffix"));
    // Second's tag refers to First, which is replaced: a ResourceReference change.
    let second = desc.changes()[1].resource_change().unwrap();
    assert_eq!(second.logical_resource_id(), Some("Second"));
    assert_eq!(second.replacement().unwrap().as_str(), "False");
    assert!(second
        .details()
        .iter()
        .any(
            |d| d.change_source().map(|s| s.as_str()) == Some("ResourceReference")
                && d.causing_entity() == Some("First")
        ));

    cfn.execute_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "upd").await, StackStatus::UpdateComplete);
    let events = events(&cfn, "upd").await;
    let start = events
        .iter()
        .rposition(|e| e.0 == "upd" && e.1 == "UPDATE_IN_PROGRESS")
        .unwrap();
    let update: Vec<_> = events[start..]
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str()))
        .collect();
    let second_physical = update.iter().find(|e| e.0 == "Second").unwrap().2;
    assert_eq!(
        update,
        vec![
            ("upd", "UPDATE_IN_PROGRESS", update[0].2),
            ("First", "UPDATE_IN_PROGRESS", "upd-one"),
            ("First", "UPDATE_IN_PROGRESS", "upd-two"),
            ("First", "UPDATE_COMPLETE", "upd-two"),
            ("Second", "UPDATE_IN_PROGRESS", second_physical),
            ("Second", "UPDATE_COMPLETE", second_physical),
            ("upd", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", update[0].2),
            ("First", "DELETE_IN_PROGRESS", "upd-one"),
            ("First", "DELETE_COMPLETE", "upd-one"),
            ("upd", "UPDATE_COMPLETE", update[0].2),
        ]
    );
    let replacing = events[start..].iter().find(|e| e.0 == "First").unwrap();
    assert_eq!(
        replacing.3,
        "Requested update requires the creation of a new physical resource; hence creating one."
    );
    let stack = describe(&cfn, "upd").await;
    assert_eq!(stack.outputs()[0].output_value(), Some("upd-two"));
    let exports = cfn.list_exports().send().await.unwrap();
    assert_eq!(exports.exports()[0].value(), Some("upd-two"));
}

#[tokio::test]
async fn resource_removal_happens_during_cleanup_and_retain_skips_it() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let v1 = include_str!("../templates/cloudformation/resource_removal_happens_during_cleanup_and_retain_skips_it.yaml");
    let v2 = include_str!("../templates/cloudformation/resource_removal_happens_during_cleanup_and_retain_skips_it_2.yaml");
    create(&cfn, "rm", v1).await;
    let cs = cfn
        .create_change_set()
        .stack_name("rm")
        .change_set_name("shrink")
        .template_body(v2)
        .send()
        .await
        .unwrap();
    let desc = cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    let removes: Vec<(&str, &str, &str)> = desc
        .changes()
        .iter()
        .map(|c| {
            let rc = c.resource_change().unwrap();
            (
                rc.logical_resource_id().unwrap(),
                rc.action().unwrap().as_str(),
                rc.policy_action().unwrap().as_str(),
            )
        })
        .collect();
    assert_eq!(
        removes,
        vec![("Kept", "Remove", "Retain"), ("Gone", "Remove", "Delete")]
    );
    cfn.execute_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    let events = events(&cfn, "rm").await;
    let cleanup = events
        .iter()
        .position(|e| e.0 == "rm" && e.1 == "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS")
        .unwrap();
    assert_eq!(
        statuses(&events[cleanup..], "Gone"),
        vec!["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    );
    assert_eq!(statuses(&events[cleanup..], "Kept"), vec!["DELETE_SKIPPED"]);
    let left = cfn
        .list_stack_resources()
        .stack_name("rm")
        .send()
        .await
        .unwrap();
    let ids: Vec<&str> = left
        .stack_resource_summaries()
        .iter()
        .map(|r| r.logical_resource_id().unwrap())
        .collect();
    assert_eq!(ids, vec!["Keep"]);
}

#[tokio::test]
async fn deleted_stacks_are_gone_by_name_and_kept_by_id() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let id = create(&cfn, "del", LOGS).await;
    cfn.delete_stack().stack_name("del").send().await.unwrap();
    let e = err(cfn
        .describe_stacks()
        .stack_name("del")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Stack with id del does not exist");
    let gone = describe(&cfn, &id).await;
    assert_eq!(gone.stack_status(), Some(&StackStatus::DeleteComplete));
    assert!(gone.deletion_time().is_some());
    let events = events(&cfn, &id).await;
    assert_eq!(
        statuses(&events, "Second")[3..],
        ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]
    );
    // Reverse dependency order: Second goes before First.
    let second_gone = events
        .iter()
        .position(|e| e.0 == "Second" && e.1 == "DELETE_COMPLETE");
    let first_gone = events
        .iter()
        .position(|e| e.0 == "First" && e.1 == "DELETE_COMPLETE");
    assert!(second_gone < first_gone);
    // Exports leave with the stack; the name can be used again with a new id.
    assert!(cfn
        .list_exports()
        .send()
        .await
        .unwrap()
        .exports()
        .is_empty());
    let again = create(&cfn, "del", LOGS).await;
    assert_ne!(again, id);
    let e = err(cfn
        .update_stack()
        .stack_name(&id)
        .template_body(LOGS)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        format!("Stack:{id} is in DELETE_COMPLETE state and can not be updated.")
    );
    let listed = cfn
        .list_stacks()
        .stack_status_filter(StackStatus::DeleteComplete)
        .send()
        .await
        .unwrap();
    let ids: Vec<&str> = listed
        .stack_summaries()
        .iter()
        .map(|s| s.stack_id().unwrap())
        .collect();
    assert_eq!(ids, vec![id.as_str()]);
}

#[tokio::test]
async fn review_in_progress_stacks_accept_more_create_change_sets_and_delete_at_once() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    for cs in ["one", "two"] {
        cfn.create_change_set()
            .stack_name("review")
            .change_set_name(cs)
            .change_set_type(ChangeSetType::Create)
            .template_body(LOGS)
            .send()
            .await
            .unwrap();
    }
    let listed = cfn
        .list_change_sets()
        .stack_name("review")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.summaries().len(), 2);
    let id = describe(&cfn, "review")
        .await
        .stack_id()
        .unwrap()
        .to_string();
    cfn.delete_stack()
        .stack_name("review")
        .send()
        .await
        .unwrap();
    assert_eq!(
        describe(&cfn, &id).await.stack_status(),
        Some(&StackStatus::DeleteComplete)
    );
    assert!(cfn
        .describe_stacks()
        .stack_name("review")
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn create_stack_over_a_review_stack_makes_its_change_sets_obsolete() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let cs = cfn
        .create_change_set()
        .stack_name("takeover")
        .change_set_name("pending")
        .change_set_type(ChangeSetType::Create)
        .template_body(LOGS)
        .send()
        .await
        .unwrap();
    let id = create(&cfn, "takeover", LOGS).await;
    assert_eq!(Some(id.as_str()), cs.stack_id());
    let desc = cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(desc.execution_status(), Some(&ExecutionStatus::Obsolete));
    let e = err(cfn
        .execute_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        format!(
            "ChangeSet [{}] cannot be executed in its current execution status of [OBSOLETE]",
            cs.id().unwrap()
        )
    );
}

#[tokio::test]
async fn exports_imports_and_the_refused_delete() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "exporter", LOGS).await;
    let importer =
        include_str!("../templates/cloudformation/exports_imports_and_the_refused_delete.yaml");
    create(&cfn, "importer", importer).await;
    let stack = describe(&cfn, "importer").await;
    assert_eq!(stack.outputs()[0].output_value(), Some("exporter-one"));
    let imports = cfn
        .list_imports()
        .export_name("exporter-First")
        .send()
        .await
        .unwrap();
    assert_eq!(imports.imports(), ["importer"]);
    let e = err(cfn
        .list_imports()
        .export_name("nothing")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Export 'nothing' is not imported by any stack.");

    // Deleting the exporter is no API error: the stack returns to its status with the reason.
    cfn.delete_stack()
        .stack_name("exporter")
        .send()
        .await
        .unwrap();
    let stack = describe(&cfn, "exporter").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::CreateComplete));
    assert_eq!(
        stack.stack_status_reason(),
        Some("Export exporter-First cannot be deleted as it is in use by importer")
    );
    let exporter_events = events(&cfn, "exporter").await;
    assert_eq!(
        statuses(&exporter_events, "exporter")[2..],
        ["DELETE_IN_PROGRESS", "CREATE_COMPLETE"]
    );
    // A second stack exporting the same name fails and rolls back.
    let clash =
        include_str!("../templates/cloudformation/exports_imports_and_the_refused_delete_2.yaml");
    create(&cfn, "clash", clash).await;
    assert_eq!(status(&cfn, "clash").await, StackStatus::RollbackComplete);
    let clash_events = events(&cfn, "clash").await;
    let rolling = clash_events
        .iter()
        .find(|e| e.0 == "clash" && e.1 == "ROLLBACK_IN_PROGRESS")
        .unwrap();
    assert_eq!(
        rolling.3,
        "Export with name exporter-First is already exported by stack exporter. Rollback requested by user."
    );
    // Once the importer is gone, the exporter can go.
    cfn.delete_stack()
        .stack_name("importer")
        .send()
        .await
        .unwrap();
    cfn.delete_stack()
        .stack_name("exporter")
        .send()
        .await
        .unwrap();
    assert!(cfn
        .describe_stacks()
        .stack_name("exporter")
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn missing_import_fails_at_execution_not_at_change_set_creation() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let body = include_str!("../templates/cloudformation/missing_import_fails_at_execution_not_at_change_set_creation.yaml");
    let cs = cfn
        .create_change_set()
        .stack_name("imp")
        .change_set_name("cs")
        .change_set_type(ChangeSetType::Create)
        .template_body(body)
        .send()
        .await
        .unwrap();
    let desc = cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(desc.status(), Some(&ChangeSetStatus::CreateComplete));
    cfn.execute_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "imp").await, StackStatus::RollbackComplete);
    let events = events(&cfn, "imp").await;
    let failed = events
        .iter()
        .find(|e| e.0 == "Uses" && e.1 == "CREATE_FAILED")
        .unwrap();
    assert_eq!(failed.3, "No export named nobody-exports-this found.");
    let desc = cfn
        .describe_change_set()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        desc.execution_status(),
        Some(&ExecutionStatus::ExecuteFailed)
    );
    // ROLLBACK_COMPLETE: only DeleteStack.
    let id = describe(&cfn, "imp").await.stack_id().unwrap().to_string();
    let e = err(cfn
        .update_stack()
        .stack_name("imp")
        .template_body(body)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        format!("Stack:{id} is in ROLLBACK_COMPLETE state and can not be updated.")
    );
    let e = err(cfn
        .create_change_set()
        .stack_name("imp")
        .change_set_name("retry")
        .template_body(body)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        format!("Stack:{id} is in ROLLBACK_COMPLETE state and can not be updated.")
    );
    cfn.delete_stack().stack_name("imp").send().await.unwrap();
    assert_eq!(
        describe(&cfn, &id).await.stack_status(),
        Some(&StackStatus::DeleteComplete)
    );
}

#[tokio::test]
async fn iam_resources_need_capabilities() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let body = include_str!("../templates/cloudformation/iam_resources_need_capabilities_2.yaml");
    let e = err(cfn
        .create_stack()
        .stack_name("iam")
        .template_body(body)
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "InsufficientCapabilitiesException".into(),
            "Requires capabilities : [CAPABILITY_IAM]".into()
        )
    );
    let named = include_str!("../templates/cloudformation/iam_resources_need_capabilities.yaml");
    let e = err(cfn
        .create_change_set()
        .stack_name("iam")
        .change_set_name("cs")
        .change_set_type(ChangeSetType::Create)
        .template_body(named)
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Requires capabilities : [CAPABILITY_NAMED_IAM]");
    let validated = cfn
        .validate_template()
        .template_body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(validated.capabilities(), [Capability::CapabilityIam]);
    assert_eq!(
        validated.capabilities_reason(),
        Some("The following resource(s) require capabilities: [AWS::IAM::Role]")
    );
}

#[tokio::test]
async fn get_template_and_summary() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "tpl", LOGS).await;
    let got = cfn.get_template().stack_name("tpl").send().await.unwrap();
    assert_eq!(got.template_body(), Some(LOGS));
    assert_eq!(got.stages_available().len(), 2);
    let processed = cfn
        .get_template()
        .stack_name("tpl")
        .template_stage(aws_sdk_cloudformation::types::TemplateStage::Processed)
        .send()
        .await
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(processed.template_body().unwrap()).unwrap();
    assert_eq!(json["Resources"]["First"]["Type"], "AWS::ECR::Repository");
    let summary = cfn
        .get_template_summary()
        .stack_name("tpl")
        .send()
        .await
        .unwrap();
    let keys: Vec<&str> = summary
        .parameters()
        .iter()
        .map(|p| p.parameter_key().unwrap())
        .collect();
    assert_eq!(keys, vec!["Days", "Suffix"]);
    assert_eq!(summary.resource_types(), ["AWS::ECR::Repository"]);
    let suffix = &summary.parameters()[1];
    assert_eq!(suffix.default_value(), Some("one"));
    assert_eq!(
        suffix.parameter_constraints().unwrap().allowed_values(),
        ["one", "two", "three"]
    );
    let by_body = cfn
        .get_template_summary()
        .template_body(LOGS)
        .send()
        .await
        .unwrap();
    assert_eq!(by_body.description(), Some("two log groups"));
}

#[tokio::test]
async fn termination_protection_and_stack_policy() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "guarded", LOGS).await;
    cfn.update_termination_protection()
        .stack_name("guarded")
        .enable_termination_protection(true)
        .send()
        .await
        .unwrap();
    assert_eq!(
        describe(&cfn, "guarded")
            .await
            .enable_termination_protection(),
        Some(true)
    );
    let e = err(cfn
        .delete_stack()
        .stack_name("guarded")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Stack [guarded] cannot be deleted while TerminationProtection is enabled"
    );
    let policy =
        r#"{"Statement":[{"Effect":"Allow","Action":"Update:*","Principal":"*","Resource":"*"}]}"#;
    cfn.set_stack_policy()
        .stack_name("guarded")
        .stack_policy_body(policy)
        .send()
        .await
        .unwrap();
    let got = cfn
        .get_stack_policy()
        .stack_name("guarded")
        .send()
        .await
        .unwrap();
    assert_eq!(got.stack_policy_body(), Some(policy));
    let e = err(cfn
        .set_stack_policy()
        .stack_name("guarded")
        .stack_policy_body("not json")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError");
}

#[tokio::test]
async fn lists_paginate() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let mut resources = String::from(include_str!(
        "../templates/cloudformation/lists_paginate.yaml"
    ));
    for i in 0..120 {
        resources.push_str(&format!(
            "  H{i}:\n    Type: AWS::CloudFormation::WaitConditionHandle\n"
        ));
    }
    create(&cfn, "many", &resources).await;
    let first = cfn
        .list_stack_resources()
        .stack_name("many")
        .send()
        .await
        .unwrap();
    assert_eq!(first.stack_resource_summaries().len(), 100);
    let token = first.next_token().unwrap();
    let second = cfn
        .list_stack_resources()
        .stack_name("many")
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(second.stack_resource_summaries().len(), 20);
    assert!(second.next_token().is_none());
    let all_events = events(&cfn, "many").await;
    assert_eq!(all_events.len(), 2 + 3 * 120);
    assert_eq!(all_events[0].1, "CREATE_IN_PROGRESS");
    let e = err(cfn
        .list_stack_resources()
        .stack_name("many")
        .next_token("bogus")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError");
}

#[tokio::test]
async fn stack_tags_are_kept_and_an_empty_list_removes_them() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    cfn.create_stack()
        .stack_name("tagged")
        .template_body(LOGS)
        .tags(Tag::builder().key("team").value("a").build())
        .send()
        .await
        .unwrap();
    let stack = describe(&cfn, "tagged").await;
    assert_eq!(stack.tags()[0].key(), Some("team"));
    cfn.update_stack()
        .stack_name("tagged")
        .template_body(LOGS)
        .parameters(param("Days", "3"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        describe(&cfn, "tagged").await.tags().len(),
        1,
        "absent Tags keep them"
    );
    cfn.update_stack()
        .stack_name("tagged")
        .template_body(LOGS)
        .parameters(param("Days", "3"))
        .set_tags(Some(vec![]))
        .send()
        .await
        .unwrap();
    assert!(describe(&cfn, "tagged").await.tags().is_empty());
}

#[tokio::test]
async fn unknown_operations_are_a_400_naming_them() {
    let emu = emulator().await;
    let (status, _, body) = emu
        .raw(
            "POST",
            "/",
            &[("content-type", "application/x-www-form-urlencoded")],
            "Action=CreateStackSet&Version=2010-05-15&StackSetName=x",
        )
        .await;
    assert_eq!(status, 400);
    assert!(body.contains("<Code>InvalidAction</Code>"), "{body}");
    assert!(body.contains("CreateStackSet"), "{body}");
}

#[tokio::test]
async fn xml_answers_keep_empty_lists_and_result_elements() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(
        &cfn,
        "xml",
        include_str!(
            "../templates/cloudformation/xml_answers_keep_empty_lists_and_result_elements.yaml"
        ),
    )
    .await;
    let form = "Action=DescribeStacks&Version=2010-05-15&StackName=xml";
    let (status, headers, body) = emu
        .raw(
            "POST",
            "/",
            &[("content-type", "application/x-www-form-urlencoded")],
            form,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/xml");
    for fragment in [
        "<DescribeStacksResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\"><DescribeStacksResult><Stacks><member>",
        "<RollbackConfiguration/>",
        "<NotificationARNs></NotificationARNs>",
        "<Tags></Tags>",
        "<DisableRollback>false</DisableRollback>",
        "<EnableTerminationProtection>false</EnableTerminationProtection>",
        "<DriftInformation><StackDriftStatus>NOT_CHECKED</StackDriftStatus></DriftInformation>",
        "<CreationTime>2030-01-01T12:00:00.000Z</CreationTime>",
    ] {
        assert!(body.contains(fragment), "{fragment} not in {body}");
    }
    assert!(
        !body.contains("<Parameters>"),
        "no Parameters for a template without any"
    );
    assert!(!body.contains("<Outputs>"));
    let (_, _, body) = emu
        .raw(
            "POST",
            "/",
            &[("content-type", "application/x-www-form-urlencoded")],
            "Action=DeleteChangeSet&Version=2010-05-15&ChangeSetName=arn:aws:cloudformation:us-east-1:000000000000:changeSet/x/1",
        )
        .await;
    assert!(body.contains("<Code>ChangeSetNotFound</Code>"), "{body}");
}

#[tokio::test]
async fn template_urls_are_read_from_cumulos_s3() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let s3 = &emu.app.s3;
    s3.create_bucket(&cumulo::ids::Scope::default_scope(), "templates", None)
        .unwrap();
    s3.put_object(
        "templates",
        "pfx/logs.template",
        cumulo::services::s3::PutObjectInput {
            body: LOGS.as_bytes().to_vec().into(),
            ..Default::default()
        },
    )
    .unwrap();
    for (stack, url) in [
        (
            "path",
            format!("{}/templates/pfx/logs.template", emu.endpoint),
        ),
        (
            "vhost",
            "https://templates.s3.amazonaws.com/pfx/logs.template".to_string(),
        ),
        (
            "regional",
            "https://s3.us-east-1.amazonaws.com/templates/pfx/logs.template".to_string(),
        ),
    ] {
        cfn.create_stack()
            .stack_name(stack)
            .template_url(url)
            .send()
            .await
            .unwrap();
        assert_eq!(
            status(&cfn, stack).await,
            StackStatus::CreateComplete,
            "{stack}"
        );
    }
    let got = cfn.get_template().stack_name("path").send().await.unwrap();
    assert_eq!(got.template_body(), Some(LOGS));
    let e = err(cfn
        .validate_template()
        .template_url("ftp://example.com/x")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "TemplateURL must be a supported URL.");
    let e = err(cfn
        .validate_template()
        .template_url(format!("{}/templates/missing.yaml", emu.endpoint))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "S3 error: The specified key does not exist.");
    let e = err(cfn
        .validate_template()
        .template_url(format!("{}/templates/x", emu.endpoint))
        .template_body(LOGS)
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.0, "ValidationError");
}

#[tokio::test]
async fn ssm_parameter_types_resolve_from_cumulos_ssm() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    emu.app
        .ssm
        .put_parameter(
            &cumulo::ids::Scope::default_scope(),
            cumulo::services::ssm::PutParameterInput {
                name: "/config/group".into(),
                value: "from-ssm".into(),
                parameter_type: Some("String".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let body = include_str!(
        "../templates/cloudformation/ssm_parameter_types_resolve_from_cumulos_ssm.yaml"
    );
    create(&cfn, "ssm", body).await;
    let stack = describe(&cfn, "ssm").await;
    let p = &stack.parameters()[0];
    assert_eq!(
        (p.parameter_value(), p.resolved_value()),
        (Some("/config/group"), Some("from-ssm"))
    );
    let physical = cfn
        .describe_stack_resource()
        .stack_name("ssm")
        .logical_resource_id("G")
        .send()
        .await
        .unwrap();
    assert_eq!(
        physical
            .stack_resource_detail()
            .unwrap()
            .physical_resource_id(),
        Some("from-ssm")
    );
    let e = err(cfn
        .create_stack()
        .stack_name("ssm-missing")
        .template_body(body)
        .parameters(param("Name", "/not/there"))
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Unable to fetch parameters [/not/there] from parameter store for this account."
    );
}

#[tokio::test]
async fn transforms_need_capability_auto_expand() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let body =
        include_str!("../templates/cloudformation/transforms_need_capability_auto_expand.yaml");
    let e = err(cfn
        .create_stack()
        .stack_name("auto")
        .template_body(body)
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
    cfn.create_stack()
        .stack_name("auto")
        .template_body(body)
        .capabilities(Capability::CapabilityAutoExpand)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "auto").await, StackStatus::CreateComplete);
    let summary = cfn
        .get_template_summary()
        .stack_name("auto")
        .send()
        .await
        .unwrap();
    assert_eq!(summary.declared_transforms(), ["AWS::LanguageExtensions"]);
}

#[tokio::test]
async fn changing_a_resources_type_is_refused() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(
        &cfn,
        "retype",
        include_str!("../templates/cloudformation/changing_a_resources_type_is_refused.yaml"),
    )
    .await;
    let e = err(cfn
        .update_stack()
        .stack_name("retype")
        .template_body(include_str!(
            "../templates/cloudformation/changing_a_resources_type_is_refused_2.yaml"
        ))
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e.1,
        "Update of resource type is not permitted. The new template modifies resource type of the following resources: [H]"
    );
    assert_eq!(status(&cfn, "retype").await, StackStatus::CreateComplete);
}

#[tokio::test]
async fn an_update_that_changes_an_imported_export_rolls_back() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "exp", LOGS).await;
    let importer = include_str!(
        "../templates/cloudformation/an_update_that_changes_an_imported_export_rolls_back.yaml"
    );
    create(&cfn, "imp", importer).await;
    // Suffix renames First, whose name is the exported value.
    cfn.update_stack()
        .stack_name("exp")
        .template_body(LOGS)
        .parameters(param("Suffix", "two"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        status(&cfn, "exp").await,
        StackStatus::UpdateRollbackComplete
    );
    let all = events(&cfn, "exp").await;
    let rolling = all
        .iter()
        .find(|e| e.0 == "exp" && e.1 == "UPDATE_ROLLBACK_IN_PROGRESS")
        .unwrap();
    assert_eq!(
        rolling.3,
        "Export exp-First cannot be updated as it is in use by imp. "
    );
    let exports = cfn.list_exports().send().await.unwrap();
    assert_eq!(exports.exports()[0].value(), Some("exp-one"));
    // The replacement made by the update is gone again; the original remains.
    let first = cfn
        .describe_stack_resource()
        .stack_name("exp")
        .logical_resource_id("First")
        .send()
        .await
        .unwrap();
    assert_eq!(
        first
            .stack_resource_detail()
            .unwrap()
            .physical_resource_id(),
        Some("exp-one")
    );
}

#[tokio::test]
async fn get_template_of_a_change_set() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let cs = cfn
        .create_change_set()
        .stack_name("tplcs")
        .change_set_name("mine")
        .change_set_type(ChangeSetType::Create)
        .template_body(LOGS)
        .send()
        .await
        .unwrap();
    let by_name = cfn
        .get_template()
        .stack_name("tplcs")
        .change_set_name("mine")
        .send()
        .await
        .unwrap();
    assert_eq!(by_name.template_body(), Some(LOGS));
    let by_arn = cfn
        .get_template()
        .change_set_name(cs.id().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(by_arn.template_body(), Some(LOGS));
    let e = err(cfn
        .get_template()
        .stack_name("tplcs")
        .change_set_name("other")
        .send()
        .await
        .unwrap_err());
    assert_eq!(
        e,
        (
            "ChangeSetNotFound".into(),
            "ChangeSet [other] does not exist".into()
        )
    );
}
