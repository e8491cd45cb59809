//! Synchronous CloudFormation request and template validation over the wire: ValidateTemplate
//! runs CreateStack's template checks (dependency cycles, contract §6.3, §6.4), awsQuery list
//! members are never dropped (`Parameters.member.N`), `Capabilities` values are checked against
//! the CloudFormation enum, and duplicate keys in templates.

use crate::cloudformation::{emulator, err};

const REPO: &str = "AWS::ECR::Repository";

#[tokio::test]
async fn validate_template_refuses_the_cycles_create_stack_refuses() {
    let emu = emulator().await;
    let cfn = emu.cloudformation().await;
    let cases = [
        (
            "self ref",
            format!("Resources:\n  A:\n    Type: {REPO}\n    Properties:\n      RepositoryName: !Ref A\n"),
            "Circular dependency between resources: [A]",
        ),
        (
            "getatt cycle",
            format!("Resources:\n  A:\n    Type: {REPO}\n    Properties:\n      RepositoryName: !GetAtt B.Arn\n  B:\n    Type: {REPO}\n    Properties:\n      RepositoryName: !GetAtt A.Arn\n"),
            "Circular dependency between resources: [A, B]",
        ),
        (
            "depends on cycle",
            format!("Resources:\n  A:\n    Type: {REPO}\n    DependsOn: B\n  B:\n    Type: {REPO}\n    DependsOn: [A]\n"),
            "Circular dependency between resources: [A, B]",
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
