//! Table tests of the template language: parsing (JSON, YAML tags and scalars), parameters,
//! intrinsics, conditions, rules, `Fn::ForEach`, the dependency graph, and every message.

use indexmap::IndexMap;
use serde_json::{json, Value};

use super::*;

/// No SSM parameters but those given.
struct Ssm(Vec<(&'static str, &'static str)>);

impl Environment for Ssm {
    fn ssm_parameter(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

fn pseudo() -> Pseudo {
    Pseudo {
        account_id: "000000000000".into(),
        region: "us-east-1".into(),
        stack_name: "s".into(),
        stack_id: "arn:aws:cloudformation:us-east-1:000000000000:stack/s/1".into(),
        notification_arns: vec!["arn:aws:sns:us-east-1:000000000000:t".into()],
    }
}

/// Created resources: Ref is `<id>-phys`, GetAtt is `<id>.<attr>`; exports from a list.
struct Created {
    exports: Vec<(&'static str, &'static str)>,
}

impl ResourceValues for Created {
    fn ref_value(&self, logical_id: &str) -> Option<Value> {
        Some(Value::String(format!("{logical_id}-phys")))
    }
    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<Value> {
        Some(Value::String(format!("{logical_id}.{attribute}")))
    }
    fn import_value(&self, export_name: &str) -> Option<String> {
        self.exports
            .iter()
            .find(|(k, _)| *k == export_name)
            .map(|(_, v)| v.to_string())
    }
}

fn inputs(given: &[(&str, &str)]) -> Vec<ParameterInput> {
    given
        .iter()
        .map(|(k, v)| ParameterInput {
            key: k.to_string(),
            value: Some(v.to_string()),
            use_previous_value: false,
        })
        .collect()
}

/// Parses, binds and resolves `body` with `given` parameters.
fn resolve_with(
    body: &str,
    given: &[(&str, &str)],
) -> Result<(Template, BoundParameters, Resolved), TemplateError> {
    let t = Template::parse(body)?;
    let params = t.bind_parameters(&inputs(given), None, &Ssm(vec![]))?;
    let resolved = t.resolve(&params, &pseudo())?;
    Ok((t, params, resolved))
}

fn error_of(body: &str, given: &[(&str, &str)]) -> String {
    match resolve_with(body, given) {
        Ok(_) => panic!("no error for {body}"),
        Err(e) => e.to_string(),
    }
}

/// Evaluates every resource's properties and every output of `body`.
fn run(body: &str, given: &[(&str, &str)]) -> (IndexMap<String, Value>, IndexMap<String, String>) {
    let (t, params, resolved) = resolve_with(body, given).expect("resolves");
    let pseudo = pseudo();
    let created = Created {
        exports: vec![("shared-queue", "arn:queue")],
    };
    let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &created);
    let props = resolved
        .order
        .iter()
        .map(|id| (id.clone(), ev.resource_properties(id).expect("properties")))
        .collect();
    let outputs = resolved
        .outputs
        .keys()
        .map(|k| (k.clone(), ev.output(k).expect("output").value))
        .collect();
    (props, outputs)
}

#[test]
fn acceptance_style_template_resolves_and_evaluates() {
    let body = r#"
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  Env:
    Type: String
    Default: dev
    AllowedValues: [dev, prod]
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Sched:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: !Sub '${AWS::StackName}-nightly'
      Description: !Sub 'for ${Env} in ${AWS::Region}'
      ScheduleExpression: rate(1 hour)
      FlexibleTimeWindow: {Mode: 'OFF'}
      Target:
        Arn: !GetAtt Queue.Arn
        RoleArn: !Sub 'arn:${AWS::Partition}:iam::${AWS::AccountId}:role/r'
Outputs:
  Name: {Value: !Ref Sched}
  Arn: {Value: !GetAtt [Sched, Arn]}
  Escape: {Value: !Sub 'arn:aws:iam::${AWS::AccountId}:user/${!aws:username}'}
"#;
    let (props, outputs) = run(body, &[("Env", "prod")]);
    assert_eq!(props.keys().collect::<Vec<_>>(), ["Queue", "Sched"]);
    assert_eq!(
        props["Sched"],
        json!({
            "Name": "s-nightly",
            "Description": "for prod in us-east-1",
            "ScheduleExpression": "rate(1 hour)",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {"Arn": "Queue.Arn", "RoleArn": "arn:aws:iam::000000000000:role/r"}
        })
    );
    assert_eq!(outputs["Name"], "Sched-phys");
    assert_eq!(outputs["Arn"], "Sched.Arn");
    assert_eq!(
        outputs["Escape"],
        "arn:aws:iam::000000000000:user/${aws:username}"
    );
}

#[test]
fn template_errors_carry_aws_messages() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "unresolved ref",
            "Resources:\n  A:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Ref DoesNotExist\n",
            "Template format error: Unresolved resource dependencies [DoesNotExist] in the Resources block of the template",
        ),
        (
            "cycle",
            "Resources:\n  A:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Ref B\n  B:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !GetAtt A.QueueName\n",
            "Circular dependency between resources: [A, B]",
        ),
        (
            "getatt attribute",
            "Resources:\n  S:\n    Type: AWS::Scheduler::ScheduleGroup\n  F:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !GetAtt S.Name\n",
            "Template error: resource S does not support attribute type Name in Fn::GetAtt",
        ),
        (
            "unknown type",
            "Resources:\n  A: {Type: AWS::Foo::Bar}\n  B: {Type: AWS::SQS::Queue}\n  C: {Type: AWS::Baz::Qux}\n",
            "Template format error: Unrecognized resource types: [AWS::Foo::Bar, AWS::Baz::Qux]",
        ),
        (
            "json not well formed",
            "{\"Resources\": {\"A\": {\"Type\": \"AWS::SQS::Queue\"}},",
            "Template format error: JSON not well-formed. (line 1, column 49)",
        ),
    ];
    for (name, body, want) in cases {
        assert_eq!(error_of(body, &[]), *want, "{name}");
    }
}

#[test]
fn acceptance_templates_parse() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/acceptance/templates");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return; // ../shared is absent: nothing to read.
    };
    let mut n = 0;
    for entry in entries.flatten() {
        let body = std::fs::read_to_string(entry.path()).expect("readable");
        let name = entry.file_name().to_string_lossy().to_string();
        let parsed = Template::parse(&body);
        match name.as_str() {
            "bad_getatt_attribute.yaml" => assert_eq!(
                parsed.expect_err(&name).to_string(),
                "Template error: resource Sched does not support attribute type Name in Fn::GetAtt"
            ),
            "bad_unresolved_ref.yaml" => assert_eq!(
                parsed.expect_err(&name).to_string(),
                "Template format error: Unresolved resource dependencies [DoesNotExist] in the Resources block of the template"
            ),
            _ => {
                parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
        n += 1;
    }
    assert!(n >= 15, "read {n} templates");
}
