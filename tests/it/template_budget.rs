//! Bounded template evaluation over the wire (issue 17.1): the issue's attack templates
//! (`tests/templates/budget/`, about 1 KB each, 5 GB, 742 MB and 2 GB unbounded) are refused
//! with a ValidationError while `/_cumulo/health` keeps answering, and a value amplified from
//! what a resource only returns at execution fails that resource with the same text.

use aws_sdk_cloudformation::error::ProvideErrorMetadata;
use aws_sdk_cloudformation::types::{Capability, ResourceStatus, StackStatus};
use aws_sdk_cloudformation::Client;

use crate::support::Emulator;

fn attack(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/templates/budget")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// CreateStack's error (code, message), with a health check sent at the same time.
async fn create_beside_health(
    emu: &Emulator,
    cfn: &Client,
    name: &str,
    body: &str,
    capabilities: &[Capability],
) -> (String, String) {
    let create = cfn
        .create_stack()
        .stack_name(name)
        .template_body(body)
        .set_capabilities(Some(capabilities.to_vec()))
        .send();
    let (created, (health, _)) = tokio::join!(create, emu.control("GET", "/_cumulo/health", None));
    assert_eq!(
        health, 200,
        "{name}: /_cumulo/health answers during the evaluation"
    );
    let err = created.expect_err(name);
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn the_issues_attack_templates_are_refused_while_health_answers() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let path = "Resources/Payload/Properties/Value";
    let cases = [
        ("base64-nested.json", "Fn::Base64", vec![]),
        ("sub-doubling.json", "Fn::Sub", vec![]),
        (
            "tojsonstring-nested.json",
            "Fn::ToJsonString",
            vec![Capability::CapabilityAutoExpand],
        ),
    ];
    for (file, function, capabilities) in cases {
        let body = attack(file);
        let got = create_beside_health(&emu, &cfn, "attack", &body, &capabilities).await;
        assert_eq!(
            got,
            (
                "ValidationError".to_string(),
                format!("Template error: [/{path}/{function}] {function} produces a value larger than the maximum of 1000000 bytes")
            ),
            "{file}"
        );
    }
    // Without CAPABILITY_AUTO_EXPAND the transform's template is refused too, whichever check
    // answers first.
    let (code, _) = create_beside_health(
        &emu,
        &cfn,
        "attack",
        &attack("tojsonstring-nested.json"),
        &[],
    )
    .await;
    assert!(
        ["ValidationError", "InsufficientCapabilitiesException"].contains(&code.as_str()),
        "{code}"
    );
    // Nothing was created, and the emulator still serves.
    let listed = cfn.list_stacks().send().await.expect("list stacks");
    assert!(listed.stack_summaries().is_empty());
    let (health, _) = emu.control("GET", "/_cumulo/health", None).await;
    assert_eq!(health, 200);
}

#[tokio::test]
async fn a_value_amplified_from_a_resource_fails_that_resource() {
    // Fn::Base64 nested 40 deep over a queue's name: unknown until the queue exists, so
    // CreateStack accepts it and the parameter fails when it is evaluated.
    let mut value = r#"{"Fn::GetAtt": ["Queue", "QueueName"]}"#.to_string();
    for _ in 0..40 {
        value = format!(r#"{{"Fn::Base64": {value}}}"#);
    }
    let body = format!(
        r#"{{"Resources": {{"Queue": {{"Type": "AWS::SQS::Queue"}},
            "Param": {{"Type": "AWS::SSM::Parameter", "Properties": {{"Type": "String", "Value": {value}}}}}}}}}"#
    );
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    cfn.create_stack()
        .stack_name("amplified")
        .template_body(&body)
        .send()
        .await
        .expect("accepted: the value is not known statically");
    let stack = cfn
        .describe_stacks()
        .stack_name("amplified")
        .send()
        .await
        .expect("describe");
    assert_eq!(
        stack.stacks()[0].stack_status(),
        Some(&StackStatus::RollbackComplete)
    );
    let events = cfn
        .describe_stack_events()
        .stack_name("amplified")
        .send()
        .await
        .expect("events");
    let failed = events
        .stack_events()
        .iter()
        .find(|e| {
            e.logical_resource_id() == Some("Param")
                && e.resource_status() == Some(&ResourceStatus::CreateFailed)
        })
        .expect("Param failed");
    assert_eq!(
        failed.resource_status_reason(),
        Some("Template error: [/Resources/Param/Properties/Value/Fn::Base64] Fn::Base64 produces a value larger than the maximum of 1000000 bytes")
    );
    let (health, _) = emu.control("GET", "/_cumulo/health", None).await;
    assert_eq!(health, 200);
}
