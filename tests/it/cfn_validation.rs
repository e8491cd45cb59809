//! Synchronous CloudFormation request and template validation over the wire: ValidateTemplate
//! runs CreateStack's template checks (dependency cycles, contract §6.3, §6.4), awsQuery list
//! members are never dropped (`Parameters.member.N`), `Capabilities` values are checked against
//! the CloudFormation enum, and duplicate keys in templates.

use aws_sdk_cloudformation::types::Capability;

use crate::fixtures::{err, placeholder_emulator as emulator};

#[tokio::test]
async fn validate_template_refuses_the_cycles_create_stack_refuses() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let cases = [
        (
            "self ref",
            include_str!("../templates/cfn_validation/self_ref.yaml").to_string(),
            "Circular dependency between resources: [A]",
        ),
        (
            "getatt cycle",
            include_str!("../templates/cfn_validation/getatt_cycle.yaml").to_string(),
            "Circular dependency between resources: [A, B]",
        ),
        (
            "depends on cycle",
            include_str!("../templates/cfn_validation/depends_on_cycle.yaml").to_string(),
            "Circular dependency between resources: [A, B]",
        ),
        (
            "condition cycle",
            include_str!("../templates/cfn_validation/condition_cycle.yaml").to_string(),
            "Template format error: Circular dependency between conditions: [C1, C2]",
        ),
    ];
    for (name, body, want) in cases {
        let validate = err(cfn
            .validate_template()
            .template_body(&body)
            .send()
            .await
            .unwrap_err());
        assert_eq!(validate, ("ValidationError".into(), want.into()), "{name}");
        let create = err(cfn
            .create_stack()
            .stack_name("cycle")
            .template_body(&body)
            .send()
            .await
            .unwrap_err());
        assert_eq!(create, validate, "{name}: CreateStack answers the same");
    }
}

/// POSTs an awsQuery CloudFormation request; answers (HTTP status, body).
async fn query(emu: &crate::support::Emulator, body: &str) -> (u16, String) {
    let (status, _, text) = emu
        .raw(
            "POST",
            "/",
            &[("content-type", "application/x-www-form-urlencoded")],
            &format!("Version=2010-05-15&{body}"),
        )
        .await;
    (status, text)
}

#[tokio::test]
async fn a_parameter_member_with_a_huge_index_is_not_dropped() {
    let emu = emulator().await;
    let template =
        "Resources%3A%0A%20%20R%3A%0A%20%20%20%20Type%3A%20AWS%3A%3AECR%3A%3ARepository%0A";
    for index in ["99999999999", "184467440737095516160", "1"] {
        let (status, body) = query(
            &emu,
            &format!(
                "Action=CreateStack&StackName=huge&TemplateBody={template}&Parameters.member.{index}.ParameterKey=a&Parameters.member.{index}.ParameterValue=b"
            ),
        )
        .await;
        assert_eq!(status, 400, "{index}: {body}");
        assert!(
            body.contains("<Code>ValidationError</Code>"),
            "{index}: {body}"
        );
        assert!(
            body.contains(
                "<Message>Parameter values specified for a template which does not require them.</Message>"
            ),
            "{index}: {body}"
        );
    }
    let cfn = emu.cloudformation().await;
    let e = err(cfn
        .describe_stacks()
        .stack_name("huge")
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Stack with id huge does not exist");
}

#[tokio::test]
async fn unknown_capabilities_are_a_coral_enum_error_on_every_operation_taking_them() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let body = include_str!("../templates/cfn_validation/one_repository.yaml").to_string();
    let want = |list: &str| {
        (
            "ValidationError".to_string(),
            format!("1 validation error detected: Value '[{list}]' at 'capabilities' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [CAPABILITY_AUTO_EXPAND, CAPABILITY_NAMED_IAM, CAPABILITY_IAM]]"),
        )
    };
    let e = err(cfn
        .create_stack()
        .stack_name("caps")
        .template_body(&body)
        .capabilities(Capability::CapabilityIam)
        .capabilities(Capability::from("X"))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, want("CAPABILITY_IAM, X"), "CreateStack");
    cfn.create_stack()
        .stack_name("caps")
        .template_body(&body)
        .capabilities(Capability::CapabilityIam)
        .capabilities(Capability::CapabilityNamedIam)
        .capabilities(Capability::CapabilityAutoExpand)
        .send()
        .await
        .expect("every enum value is accepted");
    let e = err(cfn
        .update_stack()
        .stack_name("caps")
        .template_body(&body)
        .capabilities(Capability::from("capability_iam"))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, want("capability_iam"), "UpdateStack");
    let e = err(cfn
        .create_change_set()
        .stack_name("caps")
        .change_set_name("cs")
        .template_body(&body)
        .capabilities(Capability::from(""))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e, want(""), "CreateChangeSet");
    // The member index does not matter (a sparse list).
    let (status, text) = query(
        &emu,
        "Action=CreateStack&StackName=sparse&TemplateBody=x&Capabilities.member.5=X",
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains("Value &apos;[X]&apos; at &apos;capabilities&apos;"),
        "{text}"
    );
}

#[tokio::test]
async fn an_update_change_set_without_notification_arns_keeps_the_stacks() {
    use aws_sdk_cloudformation::types::{ChangeSetType, StackStatus};
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let topic = "arn:aws:sns:us-east-1:000000000000:stack-events";
    let template = |repo: &str| {
        include_str!("../templates/cfn_validation/notified_repository.yaml").replace("{repo}", repo)
    };
    cfn.create_stack()
        .stack_name("notified")
        .template_body(template("one"))
        .notification_arns(topic)
        .send()
        .await
        .unwrap();
    cfn.create_change_set()
        .stack_name("notified")
        .change_set_name("rename")
        .change_set_type(ChangeSetType::Update)
        .template_body(template("two"))
        .send()
        .await
        .unwrap();
    cfn.execute_change_set()
        .stack_name("notified")
        .change_set_name("rename")
        .send()
        .await
        .unwrap();
    let stacks = cfn
        .describe_stacks()
        .stack_name("notified")
        .send()
        .await
        .unwrap();
    let stack = &stacks.stacks()[0];
    assert_eq!(stack.stack_status(), Some(&StackStatus::UpdateComplete));
    assert_eq!(stack.notification_arns(), [topic]);
    assert_eq!(stack.outputs()[0].output_value(), Some(topic));
}
