//! Coral validation messages over the wire, one test per service that sends them: every
//! violation is listed (`N validation errors detected: …; …`), a pattern is printed without its
//! `^…$` anchors and before a length (EventBridge Scheduler's recorded answer for a name with
//! `/` over 64 characters), each service in its own protocol and error shape.

use aws_sdk_cloudformation::error::ProvideErrorMetadata;

use crate::support::{boto3, Emulator};

fn name_violations(value: &str, path: &str, max: usize, pattern: &str) -> String {
    format!(
        "Value '{value}' at '{path}' failed to satisfy constraint: Member must satisfy regular expression pattern: {pattern}; Value '{value}' at '{path}' failed to satisfy constraint: Member must have length less than or equal to {max}"
    )
}

#[tokio::test]
async fn scheduler_lists_every_violation_pattern_before_length() {
    let emu = Emulator::start().await;
    let scheduler = emu.scheduler().await;
    let name = "schedule_root-Cms/Entry/".repeat(3);
    let err = scheduler
        .get_schedule()
        .name(&name)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(
        err.message().unwrap(),
        format!(
            "2 validation errors detected: {}",
            name_violations(&name, "name", 64, "[0-9a-zA-Z-_.]+")
        )
    );
}

#[tokio::test]
async fn cloudformation_lists_every_violation() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let name = format!("bad_{}", "x".repeat(130));
    let err = cfn
        .create_stack()
        .stack_name(&name)
        .template_body("Resources: {}")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationError"));
    assert_eq!(
        err.message().unwrap(),
        format!(
            "2 validation errors detected: {}",
            name_violations(
                &name,
                "stackName",
                128,
                "[a-zA-Z][-a-zA-Z0-9]*|arn:[-a-zA-Z0-9:/._+]*"
            )
        )
    );
}

#[tokio::test]
async fn ssm_lists_every_violation_in_member_order() {
    let emu = Emulator::start().await;
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    let name = format!("/{}", "n".repeat(2048));
    let err = ssm
        .put_parameter()
        .name(&name)
        .value("")
        .r#type(aws_sdk_ssm::types::ParameterType::from("Text"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(
        err.message().unwrap(),
        format!(
            "3 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 2048; Value '' at 'value' failed to satisfy constraint: Member must have length greater than or equal to 1; Value 'Text' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]"
        )
    );
}

#[tokio::test]
async fn ssm_lists_every_missing_member() {
    let emu = Emulator::start().await;
    let (status, _, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("x-amz-target", "AmazonSSM.PutParameter"),
                ("content-type", "application/x-amz-json-1.1"),
            ],
            "{}",
        )
        .await;
    assert_eq!(status, 400);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["message"],
        "2 validation errors detected: Value null at 'name' failed to satisfy constraint: Member must not be null; Value null at 'value' failed to satisfy constraint: Member must not be null"
    );
}

/// boto3 (its client-side checks off, as a client of another SDK would send it) reads the
/// awsQuery error.
#[tokio::test]
async fn sns_lists_every_missing_member() {
    let emu = Emulator::start().await;
    let out = boto3(
        &emu,
        r#"
import boto3, botocore.config
sns = boto3.client("sns", config=botocore.config.Config(parameter_validation=False))
try:
    sns.subscribe(Endpoint="x")
except sns.exceptions.ClientError as e:
    print(e.response["Error"]["Code"])
    print(e.response["Error"]["Message"])
"#,
    )
    .await;
    assert_eq!(
        out,
        "ValidationError\n2 validation errors detected: Value null at 'topicArn' failed to satisfy constraint: Member must not be null; Value null at 'protocol' failed to satisfy constraint: Member must not be null\n"
    );
}
