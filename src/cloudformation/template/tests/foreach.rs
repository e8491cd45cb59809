//! `AWS::LanguageExtensions`: `Fn::ForEach` expansion and its errors, and DeletionPolicy /
//! UpdateReplacePolicy given as intrinsics.

use serde_json::json;

use super::*;

const FOR_EACH: &str = "Transform: AWS::LanguageExtensions
Parameters:
  Names: {Type: CommaDelimitedList, Default: 'a,b'}
Conditions:
  Fn::ForEach::Conds:
    - N
    - !Ref Names
    - 'Is${N}': !Equals [!Ref 'AWS::Region', us-east-1]
Resources:
  Fn::ForEach::Queues:
    - N
    - !Ref Names
    - 'Queue${N}':
        Type: AWS::SQS::Queue
        Condition: 'Is${N}'
        Properties:
          QueueName: !Sub '${AWS::StackName}-${N}'
          Tags: [{Key: name, Value: !Ref N}]
  Fn::ForEach::Topics:
    - T
    - [x-1, y.2]
    - 'Topic&{T}':
        Type: AWS::SNS::Topic
        Properties:
          TopicName: !Ref T
          Fn::ForEach::Inner:
            - I
            - [A, B]
            - 'Display${I}': '${T}-${I}'
Outputs:
  Fn::ForEach::Outs:
    - N
    - !Ref Names
    - 'Out${N}':
        Value: !GetAtt 'Queue${N}.Arn'
";

#[test]
fn for_each_expands_resources_conditions_outputs_and_properties() {
    let (t, params, r) = resolve_with(FOR_EACH, &[]).expect("resolves");
    assert_eq!(
        r.resources.keys().collect::<Vec<_>>(),
        ["Queuea", "Queueb", "Topicx1", "Topicy2"]
    );
    assert_eq!(r.conditions.keys().collect::<Vec<_>>(), ["Isa", "Isb"]);
    assert_eq!(r.outputs.keys().collect::<Vec<_>>(), ["Outa", "Outb"]);
    assert_eq!(r.resources["Queueb"].condition.as_deref(), Some("Isb"));
    assert_eq!(r.dependencies["Topicx1"], Vec::<String>::new());
    assert!(r.processed.get("Transform").is_none());
    assert!(r.processed["Resources"].get("Queuea").is_some());
    let pseudo = pseudo();
    let created = Created { exports: vec![] };
    let ev = Evaluator::new(&t, &params, &pseudo, &r, &created);
    assert_eq!(
        ev.resource_properties("Queueb").expect("props"),
        json!({"QueueName": "s-b", "Tags": [{"Key": "name", "Value": "b"}]})
    );
    assert_eq!(
        ev.resource_properties("Topicy2").expect("props"),
        json!({"TopicName": "y.2", "DisplayA": "y.2-A", "DisplayB": "y.2-B"})
    );
    assert_eq!(ev.output("Outa").expect("out").value, "Queuea.Arn");
    // The static processed template cannot expand a parameter's collection.
    assert!(t.processed().get("Transform").is_some());
    let (_, _, r) = resolve_with(FOR_EACH, &[("Names", "c")]).expect("resolves");
    assert_eq!(
        r.resources.keys().collect::<Vec<_>>(),
        ["Queuec", "Topicx1", "Topicy2"]
    );
    // A literal collection is expanded at parse time.
    let literal = "Transform: AWS::LanguageExtensions\nResources:\n  Fn::ForEach::Q:\n    - N\n    - [a, b]\n    - 'Q${N}': {Type: AWS::SQS::Queue}\n";
    let t = Template::parse(literal).expect("parses");
    assert_eq!(
        t.processed()["Resources"],
        json!({"Qa": {"Type": "AWS::SQS::Queue"}, "Qb": {"Type": "AWS::SQS::Queue"}})
    );
}

#[test]
fn for_each_errors() {
    let head = "Transform: AWS::LanguageExtensions\nResources:\n  Q: {Type: AWS::SQS::Queue}\n";
    let cases: Vec<(String, &str)> = vec![
        (format!("{head}  Fn::ForEach::L: [N, [a]]\n"), "Template format error: Fn::ForEach::L requires a list of three elements: an identifier, a collection and a map of output keys to fragments"),
        (format!("{head}  Fn::ForEach::L: [N, x, {{'Q${{N}}': {{Type: AWS::SQS::Queue}}}}]\n"), "Template format error: Fn::ForEach::L requires a list of three elements: an identifier, a collection and a map of output keys to fragments"),
        (format!("{head}  Fn::ForEach::L: [N, [a, a], {{'Q${{N}}': {{Type: AWS::SQS::Queue}}}}]\n"), "Template format error: Fn::ForEach::L produces the key Qa, which is already defined"),
        (format!("{head}  Fn::ForEach::L: [N, [Q], {{'${{N}}': {{Type: AWS::SQS::Queue}}}}]\n"), "Template format error: Fn::ForEach::L produces the key Q, which is already defined"),
        (format!("{head}  Fn::ForEach::L: [N, [a-b], {{'Q${{N}}': {{Type: AWS::SQS::Queue}}}}]\n"), "Template format error: Resource name Qa-b is non alphanumeric."),
        (format!("{head}  Fn::ForEach::L: [N, [a], {{'Q${{N}}': {{Type: AWS::SQS::Queue, Properties: {{QueueName: !Ref Nope}}}}}}]\n"), "Template format error: Unresolved resource dependencies [Nope] in the Resources block of the template"),
    ];
    for (body, want) in &cases {
        assert_eq!(error_of(body, &[]), *want, "{body}");
    }
    let hundred = (0..100)
        .map(|i| format!("v{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let explosion = format!(
        "Transform: AWS::LanguageExtensions\nResources:\n  Fn::ForEach::A:\n    - X\n    - [{hundred}]\n    - 'Q${{X}}':\n        Type: AWS::SQS::Queue\n        Properties:\n          Fn::ForEach::B:\n            - Y\n            - [{hundred}]\n            - 'P${{Y}}':\n                Fn::ForEach::C: [Z, [{hundred}], {{'R${{Z}}': x}}]\n"
    );
    assert_eq!(
        error_of(&explosion, &[]),
        "Transformation data limit exceeded"
    );
}

#[test]
fn policies_may_be_intrinsics_under_language_extensions() {
    let body = "Transform: AWS::LanguageExtensions\nParameters:\n  Policy: {Type: String, Default: Retain}\nConditions:\n  Keep: !Equals [a, a]\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n    DeletionPolicy: !Ref Policy\n    UpdateReplacePolicy: !If [Keep, Retain, Delete]\n";
    let (_, _, r) = resolve_with(body, &[]).expect("resolves");
    assert_eq!(r.resources["Q"].deletion_policy.as_deref(), Some("Retain"));
    assert_eq!(
        r.resources["Q"].update_replace_policy.as_deref(),
        Some("Retain")
    );
    assert_eq!(
        error_of(body, &[("Policy", "Keep")]),
        "Template format error: [/Resources/Q/DeletionPolicy] DeletionPolicy must be one of the supported values"
    );
    let plain = "Resources:\n  Q: {Type: AWS::SQS::Queue, DeletionPolicy: !Ref P}\nParameters:\n  P: {Type: String, Default: Retain}\n";
    assert_eq!(
        Template::parse(plain).expect_err("plain").to_string(),
        "Template format error: [/Resources/Q/DeletionPolicy] DeletionPolicy must be one of the supported values"
    );
}
