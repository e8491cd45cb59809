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
            "bad_circular.yaml" => assert_eq!(
                parsed.expect_err(&name).to_string(),
                "Circular dependency between resources: [Ping, Pong]"
            ),
            _ => {
                parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
        n += 1;
    }
    assert!(n >= 15, "read {n} templates");
}

// ---------------------------------------------------------------------------------------------
// YAML: scalars (CloudFormation's YAML 1.1 reading) and short-form tags.

fn yaml_value(text: &str) -> Value {
    let doc = yaml::load(&format!("V: {text}\n")).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    doc["V"].clone()
}

#[test]
fn yaml_scalars_follow_cloudformation_yaml_1_1() {
    let cases: &[(&str, Value)] = &[
        ("012345678901", json!("012345678901")),
        ("012345670123", json!("012345670123")),
        ("yes", json!(true)),
        ("Yes", json!(true)),
        ("NO", json!(false)),
        ("on", json!(true)),
        ("OFF", json!(false)),
        ("True", json!(true)),
        ("false", json!(false)),
        ("y", json!("y")),
        ("n", json!("n")),
        ("1.10", json!("1.10")),
        ("1.5", json!(1.5)),
        ("1.0", json!(1.0)),
        ("42", json!(42)),
        ("-7", json!(-7)),
        ("0", json!(0)),
        ("+5", json!("+5")),
        ("0x1F", json!("0x1F")),
        ("017", json!("017")),
        ("1_000", json!("1_000")),
        ("1e3", json!("1e3")),
        ("1.0e+3", json!("1.0e+3")),
        (".inf", json!(".inf")),
        ("18446744073709551616", json!("18446744073709551616")),
        ("2012-10-17", json!("2012-10-17")),
        ("12:30", json!("12:30")),
        ("~", Value::Null),
        ("null", Value::Null),
        ("", Value::Null),
        ("'42'", json!("42")),
        ("\"true\"", json!("true")),
        ("'OFF'", json!("OFF")),
        ("rate(1 hour)", json!("rate(1 hour)")),
        ("cron(0 3 * * ? *)", json!("cron(0 3 * * ? *)")),
        ("!!str 123", json!("123")),
        ("!!int 42", json!(42)),
        ("!!bool yes", json!(true)),
        ("|\n  line one\n  line two\n", json!("line one\nline two\n")),
        (">-\n  folded\n  text\n", json!("folded text")),
    ];
    for (text, want) in cases {
        assert_eq!(&yaml_value(text), want, "{text}");
    }
}

#[test]
fn yaml_short_form_tags_become_long_form() {
    let cases: &[(&str, Value)] = &[
        ("!Ref Queue", json!({"Ref": "Queue"})),
        ("!Ref 'AWS::Region'", json!({"Ref": "AWS::Region"})),
        ("!Condition IsProd", json!({"Condition": "IsProd"})),
        ("!GetAtt Queue.Arn", json!({"Fn::GetAtt": ["Queue", "Arn"]})),
        (
            "!GetAtt \"Queue.Arn\"",
            json!({"Fn::GetAtt": ["Queue", "Arn"]}),
        ),
        (
            "!GetAtt [Queue, Arn]",
            json!({"Fn::GetAtt": ["Queue", "Arn"]}),
        ),
        (
            "!GetAtt Child.Outputs.Url",
            json!({"Fn::GetAtt": ["Child", "Outputs.Url"]}),
        ),
        (
            "!Sub 'x-${AWS::Region}'",
            json!({"Fn::Sub": "x-${AWS::Region}"}),
        ),
        (
            "!Sub ['${A}', {A: !Ref B}]",
            json!({"Fn::Sub": ["${A}", {"A": {"Ref": "B"}}]}),
        ),
        (
            "!Join ['', [a, !Ref B]]",
            json!({"Fn::Join": ["", ["a", {"Ref": "B"}]]}),
        ),
        (
            "!Select [0, !GetAZs '']",
            json!({"Fn::Select": [0, {"Fn::GetAZs": ""}]}),
        ),
        ("!GetAZs", json!({"Fn::GetAZs": ""})),
        ("!Split [',', 'a,b']", json!({"Fn::Split": [",", "a,b"]})),
        (
            "!If [C, a, !Ref 'AWS::NoValue']",
            json!({"Fn::If": ["C", "a", {"Ref": "AWS::NoValue"}]}),
        ),
        ("!Equals [a, b]", json!({"Fn::Equals": ["a", "b"]})),
        (
            "!And [!Condition A, !Condition B]",
            json!({"Fn::And": [{"Condition": "A"}, {"Condition": "B"}]}),
        ),
        (
            "!Or [!Condition A, !Condition B]",
            json!({"Fn::Or": [{"Condition": "A"}, {"Condition": "B"}]}),
        ),
        (
            "!Not [!Condition A]",
            json!({"Fn::Not": [{"Condition": "A"}]}),
        ),
        (
            "!FindInMap [M, !Ref 'AWS::Region', Ami]",
            json!({"Fn::FindInMap": ["M", {"Ref": "AWS::Region"}, "Ami"]}),
        ),
        ("!Base64 hello", json!({"Fn::Base64": "hello"})),
        (
            "!Base64 {Fn::Sub: x}",
            json!({"Fn::Base64": {"Fn::Sub": "x"}}),
        ),
        (
            "!Cidr [10.0.0.0/16, 2, 8]",
            json!({"Fn::Cidr": ["10.0.0.0/16", 2, 8]}),
        ),
        ("!ImportValue shared", json!({"Fn::ImportValue": "shared"})),
        (
            "!ImportValue {'Fn::Sub': '${S}-Arn'}",
            json!({"Fn::ImportValue": {"Fn::Sub": "${S}-Arn"}}),
        ),
        ("!Length [a, b]", json!({"Fn::Length": ["a", "b"]})),
        (
            "!ToJsonString {a: b}",
            json!({"Fn::ToJsonString": {"a": "b"}}),
        ),
        (
            "!Transform {Name: M}",
            json!({"Fn::Transform": {"Name": "M"}}),
        ),
        ("!Ref 123", json!({"Ref": "123"})),
        ("!Contains [[a], a]", json!({"Fn::Contains": [["a"], "a"]})),
    ];
    for (text, want) in cases {
        assert_eq!(&yaml_value(text), want, "{text}");
    }
}

#[test]
fn yaml_keeps_key_order_and_last_duplicate() {
    let doc = yaml::load("z: 1\na: 2\nm: 3\na: 4\n").expect("yaml");
    let keys: Vec<&String> = doc.as_object().expect("map").keys().collect();
    assert_eq!(keys, ["z", "a", "m"]);
    assert_eq!(doc["a"], json!(4));
}

#[test]
fn yaml_refusals_carry_line_and_column() {
    let cases: &[(&str, &str)] = &[
        (
            "Resources:\n  A:\n    Type: !Foo AWS::SQS::Queue\n",
            "Template format error: YAML not well-formed. (line 3, column 16)",
        ),
        (
            "Resources:\n  A:\n    Type: AWS::SQS::Queue\n   bad: [\n",
            "Template format error: YAML not well-formed. (line 4, column 7)",
        ),
        (
            "Resources:\n  A: &x\n    Type: AWS::SQS::Queue\n  B: *x\n",
            "Template format error: YAML aliases are not allowed in CloudFormation templates (line 4, column 6)",
        ),
        (
            "Resources:\n  ? [a]\n  : b\n",
            "Template format error: YAML not well-formed. (line 2, column 5)",
        ),
        (
            "Resources: {A: {Type: AWS::SQS::Queue}}\n---\nResources: {}\n",
            "Template format error: YAML not well-formed. (line 2, column 1)",
        ),
        (
            "Resources:\n  A:\n    Type: !!binary aGVsbG8=\n",
            "Template format error: YAML not well-formed. (line 3, column 20)",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(
            Template::parse(body).expect_err(body).to_string(),
            *want,
            "{body}"
        );
    }
    let deep = format!("V: {}1{}\n", "[".repeat(200), "]".repeat(200));
    assert!(matches!(
        yaml::load(&deep),
        Err(yaml::YamlError::NotWellFormed { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Template structure: every parse-time message.

#[test]
fn structure_errors_carry_aws_messages() {
    let q = "  Q: {Type: AWS::SQS::Queue}\n";
    let cases: Vec<(String, &str)> = vec![
        ("hello world".into(), "Template format error: unsupported structure."),
        ("[1, 2]".into(), "Template format error: unsupported structure."),
        ("   ".into(), "Template format error: unsupported structure."),
        ("{\"Resources\": }".into(), "Template format error: JSON not well-formed. (line 1, column 15)"),
        (format!("Resources:\n{q}Foo: 1\nBar: 2\n"), "Template format error: Invalid template property or properties [Foo, Bar]"),
        (format!("AWSTemplateFormatVersion: '2010-09-10'\nResources:\n{q}"), "Template format error: unsupported value for AWSTemplateFormatVersion."),
        (format!("AWSTemplateFormatVersion: 2010-09-09\nResources:\n{q}"), ""),
        (format!("Description: [a]\nResources:\n{q}"), "Template format error: Every Description member must be a string."),
        ("Description: x\n".into(), "Template format error: At least one Resources member must be defined."),
        ("Resources: {}\n".into(), "Template format error: At least one Resources member must be defined."),
        ("Resources: []\n".into(), "Template format error: The Resources section must be an object."),
        ("Resources:\n  A: x\n".into(), "Template format error: Any Resources member must be an object."),
        ("Resources:\n  A: {Properties: {}}\n".into(), "Template format error: [/Resources/A] Every Resources object must contain a Type member."),
        ("Resources:\n  my-queue: {Type: AWS::SQS::Queue}\n".into(), "Template format error: Resource name my-queue is non alphanumeric."),
        ("Resources:\n  AWS::NoValue: {Type: AWS::SQS::Queue}\n".into(), "Template format error: Resource name AWS::NoValue is non alphanumeric."),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, Propertes: {}}\n".into(), "Invalid template resource property 'Propertes'"),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, Properties: [a]}\n".into(), "Template format error: [/Resources/A/Properties] Every Properties member must be an object."),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, DependsOn: {a: b}}\n".into(), "Template format error: DependsOn must be a string or list of strings."),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, Condition: [a]}\n".into(), "Template format error: Every Condition member must be a string."),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, DeletionPolicy: Keep}\n".into(), "Template format error: [/Resources/A/DeletionPolicy] DeletionPolicy must be one of the supported values"),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, UpdateReplacePolicy: RetainExceptOnCreate}\n".into(), "Template format error: [/Resources/A/UpdateReplacePolicy] UpdateReplacePolicy must be one of the supported values"),
        ("Resources:\n  A: {Type: AWS::SQS::Queue, Properties: {QueueName: ~}}\n".into(), "[/Resources/A/Properties/QueueName] 'null' values are not allowed in templates"),
        (format!("Resources:\n{q}Outputs:\n  O: {{Value: }}\n"), "[/Outputs/O/Value] 'null' values are not allowed in templates"),
        (format!("Resources:\n{q}Outputs:\n  O: {{Description: x}}\n"), "Template format error: Every Outputs member must contain a Value object"),
        (format!("Resources:\n{q}Outputs:\n  O: {{Value: x, Exports: {{Name: n}}}}\n"), "Template format error: Invalid template output property 'Exports'"),
        (format!("Resources:\n{q}Outputs:\n  O: {{Value: x, Export: {{Nam: n}}}}\n"), "Template format error: [/Outputs/O/Export] Every Export member must contain a Name"),
        (format!("Resources:\n{q}Outputs:\n  O-1: {{Value: x}}\n"), "Template format error: Output name O-1 is non alphanumeric."),
        (format!("Resources:\n{q}Outputs:\n  O: {{Value: x, Condition: [a]}}\n"), "Template format error: Every Condition member must be a string."),
        (format!("Parameters:\n  P: {{Default: x}}\nResources:\n{q}"), "Template format error: Every Parameters object must contain a Type member."),
        (format!("Parameters:\n  P: {{Type: Strin}}\nResources:\n{q}"), "Template format error: Unrecognized parameter type: Strin"),
        (format!("Parameters:\n  P: {{Type: String, Defualt: x}}\nResources:\n{q}"), "Template format error: Invalid template parameter property 'Defualt'"),
        (format!("Parameters:\n  P: {{Type: String, AllowedValues: x}}\nResources:\n{q}"), "Template format error: Every AllowedValues member must be a list."),
        (format!("Parameters:\n  P: x\nResources:\n{q}"), "Template format error: Any Parameters member must be an object."),
        (format!("Parameters:\n  AWS::NoValue: {{Type: String}}\nResources:\n{q}"), "Template format error: Parameter name AWS::NoValue is non alphanumeric."),
        (format!("Parameters:\n  P: {{Type: Number, MinValue: low}}\nResources:\n{q}"), "Template format error: Every MinValue member must be a number."),
        (format!("Mappings:\n  M: x\nResources:\n{q}"), "Template format error: Every Mappings member M must be a map"),
        (format!("Mappings:\n  M: {{k: x}}\nResources:\n{q}"), "Template format error: Every Mappings member k must be a map"),
        (format!("Mappings:\n  M: {{k: {{a: {{b: c}}}}}}\nResources:\n{q}"), "Template format error: Every Mappings attribute must be a String or a List."),
        (format!("Conditions:\n  C: x\nResources:\n{q}"), "Template format error: Every Conditions member must be an object: C"),
        (format!("Transform: AWS::Serverless-2016-10-31\nResources:\n{q}"), "Template format error: Transform AWS::Serverless-2016-10-31 is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros"),
        (format!("Transform: [AWS::LanguageExtensions, {{Name: AWS::Include, Parameters: {{Location: s3://b/k}}}}]\nResources:\n{q}"), "Template format error: Transform AWS::Include is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros"),
        ("Resources:\n  A:\n    Type: AWS::SQS::Queue\n    Properties:\n      Fn::Transform: {Name: MyMacro}\n".into(), "Template format error: Transform MyMacro is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros"),
        (format!("Rules:\n  R: {{Assertions: x}}\nResources:\n{q}"), "Template format error: Every Rules member must contain an Assertions list: R"),
        (format!("Rules:\n  R: {{Assertions: [{{AssertDescription: x}}]}}\nResources:\n{q}"), "Template format error: Every Assertions member must contain an Assert object: R"),
        (format!("Rules:\n  R: {{Assertion: []}}\nResources:\n{q}"), "Template format error: Invalid rule property 'Assertion' in rule R"),
    ];
    for (body, want) in &cases {
        match Template::parse(body) {
            Ok(_) => assert_eq!(*want, "", "no error for {body}"),
            Err(e) => assert_eq!(e.to_string(), *want, "{body}"),
        }
    }
}

#[test]
fn template_quotas_are_enforced() {
    let many = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<String>();
    let resources = format!(
        "Resources:\n{}",
        many(501, &|i| format!("  Q{i}: {{Type: AWS::SQS::Queue}}\n"))
    );
    assert_eq!(
        Template::parse(&resources).expect_err("501").to_string(),
        "Template format error: Resource count 501 is greater than the maximum of 500"
    );
    let q = "Resources:\n  Q: {Type: AWS::SQS::Queue}\n";
    let params = format!(
        "Parameters:\n{}{q}",
        many(201, &|i| format!("  P{i}: {{Type: String}}\n"))
    );
    assert_eq!(
        Template::parse(&params).expect_err("201").to_string(),
        "Template format error: Parameter count 201 is greater than the maximum of 200"
    );
    let outputs = format!(
        "{q}Outputs:\n{}",
        many(201, &|i| format!("  O{i}: {{Value: x}}\n"))
    );
    assert_eq!(
        Template::parse(&outputs).expect_err("201").to_string(),
        "Template format error: Output count 201 is greater than the maximum of 200"
    );
    let mappings = format!(
        "Mappings:\n{}{q}",
        many(201, &|i| format!("  M{i}: {{k: {{a: b}}}}\n"))
    );
    assert_eq!(
        Template::parse(&mappings).expect_err("201").to_string(),
        "Template format error: Mapping count 201 is greater than the maximum of 200"
    );
    let ok = format!(
        "Resources:\n{}",
        many(500, &|i| format!("  Q{i}: {{Type: AWS::SQS::Queue}}\n"))
    );
    assert_eq!(Template::parse(&ok).expect("500").resources().len(), 500);
}

#[test]
fn accessors_describe_the_template() {
    let body = "Description: d\nMetadata: {k: v}\nTransform: AWS::LanguageExtensions\nParameters:\n  P: {Type: String, Default: x}\nResources:\n  A: {Type: AWS::SQS::Queue}\n  B: {Type: AWS::SQS::Queue, DependsOn: A, DeletionPolicy: Retain, UpdateReplacePolicy: Snapshot, Metadata: {m: 1}}\n  C: {Type: AWS::SNS::Topic}\n";
    let t = Template::parse(body).expect("parses");
    assert_eq!(t.body(), body);
    assert!(!t.is_json());
    assert_eq!(t.description(), Some("d"));
    assert_eq!(t.metadata(), Some(&json!({"k": "v"})));
    assert_eq!(t.transforms(), [LANGUAGE_EXTENSIONS]);
    assert_eq!(t.parameters()["P"].default.as_deref(), Some("x"));
    assert_eq!(t.resource_types(), ["AWS::SQS::Queue", "AWS::SNS::Topic"]);
    let b = &t.resources()["B"];
    assert_eq!(b.depends_on, ["A"]);
    assert_eq!(b.deletion_policy.as_deref(), Some("Retain"));
    assert_eq!(b.update_replace_policy.as_deref(), Some("Snapshot"));
    assert_eq!(b.metadata, Some(json!({"m": 1})));
    assert_eq!(t.resources()["A"].properties, json!({}));
    assert!(
        t.processed().get("Transform").is_none(),
        "the processed template has no Transform"
    );
    let json_body = r#"{"Resources": {"A": {"Type": "AWS::SQS::Queue"}}}"#;
    let t = Template::parse(json_body).expect("json");
    assert!(t.is_json());
    assert_eq!(
        t.processed(),
        serde_json::from_str::<Value>(json_body).expect("json")
    );
    // A body that opens with `{` is read as JSON only.
    let err = Template::parse("{Resources: {A: {Type: AWS::SQS::Queue}}}").expect_err("not json");
    assert_eq!(
        err.to_string(),
        "Template format error: JSON not well-formed. (line 1, column 2)"
    );
}

// ---------------------------------------------------------------------------------------------
// Parameters: every type and constraint, with AWS's messages.

/// Binds one parameter declared as `decl` (YAML flow map) with `value` (None: not given).
fn bind_one(decl: &str, value: Option<&str>, ssm: &Ssm) -> Result<BoundParameters, TemplateError> {
    let body = format!("Parameters:\n  P: {decl}\nResources:\n  Q: {{Type: AWS::SQS::Queue}}\n");
    let t = Template::parse(&body).unwrap_or_else(|e| panic!("{decl}: {e}"));
    let given: Vec<ParameterInput> = value
        .map(|v| {
            vec![ParameterInput {
                key: "P".into(),
                value: Some(v.into()),
                use_previous_value: false,
            }]
        })
        .unwrap_or_default();
    t.bind_parameters(&given, None, ssm)
}

#[test]
fn parameter_types_and_constraints() {
    let ssm = Ssm(vec![
        ("/app/ami", "ami-123"),
        ("/app/zones", "a, b"),
        ("/app/n", "x"),
        ("/app/count", "4"),
    ]);
    // (declaration, given value, Ok(Ref value) | Err(message))
    let cases: &[(&str, Option<&str>, Result<Value, &str>)] = &[
        ("{Type: String}", Some("x"), Ok(json!("x"))),
        ("{Type: String}", Some(""), Ok(json!(""))),
        ("{Type: String, Default: d}", None, Ok(json!("d"))),
        ("{Type: String, Default: 5}", None, Ok(json!("5"))),
        ("{Type: String, Default: yes}", None, Ok(json!("true"))),
        (
            "{Type: String}",
            None,
            Err("Parameters: [P] must have values"),
        ),
        (
            "{Type: String, AllowedValues: [a, b]}",
            Some("b"),
            Ok(json!("b")),
        ),
        (
            "{Type: String, AllowedValues: [a, b]}",
            Some("c"),
            Err("Parameter 'P' must be one of AllowedValues"),
        ),
        (
            "{Type: String, AllowedValues: [a, b], ConstraintDescription: pick a or b}",
            Some("c"),
            Err("Parameter P failed to satisfy constraint: pick a or b"),
        ),
        (
            "{Type: String, AllowedPattern: '[a-z]+'}",
            Some("abc"),
            Ok(json!("abc")),
        ),
        (
            "{Type: String, AllowedPattern: '[a-z]+'}",
            Some("abc1"),
            Err("Parameter 'P' must match pattern [a-z]+"),
        ),
        (
            "{Type: String, AllowedPattern: '[a-z]+', ConstraintDescription: lower case}",
            Some("A"),
            Err("Parameter P failed to satisfy constraint: lower case"),
        ),
        (
            "{Type: String, AllowedPattern: '(?=a)a'}",
            Some("zzz"),
            Ok(json!("zzz")),
        ),
        (
            "{Type: String, MinLength: 2}",
            Some("a"),
            Err("Parameter 'P' must contain at least 2 characters"),
        ),
        (
            "{Type: String, MaxLength: 3}",
            Some("abcd"),
            Err("Parameter 'P' must contain at most 3 characters"),
        ),
        (
            "{Type: String, MinLength: 2, MaxLength: 3}",
            Some("abc"),
            Ok(json!("abc")),
        ),
        ("{Type: Number}", Some("42"), Ok(json!("42"))),
        ("{Type: Number}", Some("-1.5e3"), Ok(json!("-1.5e3"))),
        (
            "{Type: Number}",
            Some("forty"),
            Err("Parameter 'P' must be a number."),
        ),
        (
            "{Type: Number}",
            Some("NaN"),
            Err("Parameter 'P' must be a number."),
        ),
        (
            "{Type: Number, ConstraintDescription: c}",
            Some("x"),
            Err("Parameter 'P' must be a number."),
        ),
        (
            "{Type: Number, MinValue: 1}",
            Some("0"),
            Err("Parameter 'P' must be a number not less than 1"),
        ),
        (
            "{Type: Number, MaxValue: 10}",
            Some("10.5"),
            Err("Parameter 'P' must be a number not greater than 10"),
        ),
        (
            "{Type: Number, MinValue: 1, MaxValue: 10, ConstraintDescription: one to ten}",
            Some("11"),
            Err("Parameter P failed to satisfy constraint: one to ten"),
        ),
        (
            "{Type: Number, AllowedValues: [1, 2]}",
            Some("2"),
            Ok(json!("2")),
        ),
        (
            "{Type: 'List<Number>'}",
            Some("1, 2,3"),
            Ok(json!(["1", "2", "3"])),
        ),
        (
            "{Type: 'List<Number>'}",
            Some("1,x"),
            Err("Parameter 'P' must be a number."),
        ),
        (
            "{Type: 'List<Number>', MaxValue: 5}",
            Some("1,6"),
            Err("Parameter 'P' must be a number not greater than 5"),
        ),
        (
            "{Type: CommaDelimitedList}",
            Some("a, b ,c"),
            Ok(json!(["a", "b", "c"])),
        ),
        (
            "{Type: CommaDelimitedList, Default: 'x,y'}",
            None,
            Ok(json!(["x", "y"])),
        ),
        (
            "{Type: CommaDelimitedList, Default: [x, y]}",
            None,
            Ok(json!(["x", "y"])),
        ),
        (
            "{Type: CommaDelimitedList, AllowedValues: [a, b]}",
            Some("a,b"),
            Ok(json!(["a", "b"])),
        ),
        (
            "{Type: CommaDelimitedList, AllowedValues: [a, b]}",
            Some("a,c"),
            Err("Parameter 'P' must be one of AllowedValues"),
        ),
        (
            "{Type: CommaDelimitedList, AllowedPattern: '[a-z]'}",
            Some("a,bb"),
            Err("Parameter 'P' must match pattern [a-z]"),
        ),
        (
            "{Type: 'AWS::EC2::VPC::Id'}",
            Some("vpc-1"),
            Ok(json!("vpc-1")),
        ),
        (
            "{Type: 'AWS::EC2::KeyPair::KeyName'}",
            Some("k"),
            Ok(json!("k")),
        ),
        (
            "{Type: 'List<AWS::EC2::Subnet::Id>'}",
            Some("subnet-1,subnet-2"),
            Ok(json!(["subnet-1", "subnet-2"])),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Name'}",
            Some("/app/ami"),
            Ok(json!("/app/ami")),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<String>'}",
            Some("/app/ami"),
            Ok(json!("ami-123")),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>', Default: /app/ami}",
            None,
            Ok(json!("ami-123")),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<List<String>>'}",
            Some("/app/zones"),
            Ok(json!(["a", "b"])),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<CommaDelimitedList>'}",
            Some("/app/zones"),
            Ok(json!(["a", "b"])),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<Number>'}",
            Some("/app/count"),
            Ok(json!("4")),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<Number>'}",
            Some("/app/n"),
            Err("Parameter 'P' must be a number."),
        ),
        (
            "{Type: 'AWS::SSM::Parameter::Value<String>'}",
            Some("/app/missing"),
            Err("Unable to fetch parameters [/app/missing] from parameter store for this account."),
        ),
    ];
    for (decl, value, want) in cases {
        let got = bind_one(decl, *value, &ssm).map(|b| b.ref_value("P").expect("bound"));
        match (got, want) {
            (Ok(v), Ok(w)) => assert_eq!(&v, w, "{decl} {value:?}"),
            (Err(e), Err(w)) => assert_eq!(e.to_string(), *w, "{decl} {value:?}"),
            (got, want) => panic!("{decl} {value:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn parameter_type_names_are_classified() {
    for name in [
        "String",
        "Number",
        "List<Number>",
        "CommaDelimitedList",
        "AWS::EC2::AvailabilityZone::Name",
        "List<AWS::EC2::SecurityGroup::Id>",
        "AWS::SSM::Parameter::Name",
        "AWS::SSM::Parameter::Value<String>",
        "AWS::SSM::Parameter::Value<List<AWS::EC2::VPC::Id>>",
    ] {
        assert!(ParameterType::parse(name).is_some(), "{name}");
    }
    for name in [
        "string",
        "List<AWS::EC2::KeyPair::KeyName>",
        "AWS::SSM::Parameter::Value<AWS::SSM::Parameter::Value<String>>",
        "List<List<Number>>",
        "",
    ] {
        assert!(ParameterType::parse(name).is_none(), "{name}");
    }
}

#[test]
fn binding_checks_keys_previous_values_and_masks_no_echo() {
    let body = "Parameters:\n  A: {Type: String}\n  B: {Type: String, NoEcho: true}\n  C: {Type: 'AWS::SSM::Parameter::Value<String>', Default: /p}\nResources:\n  Q: {Type: AWS::SQS::Queue}\n";
    let t = Template::parse(body).expect("parses");
    let ssm = Ssm(vec![("/p", "v1")]);
    let bound = t
        .bind_parameters(&inputs(&[("A", "a"), ("B", "secret")]), None, &ssm)
        .expect("binds");
    let shown: Vec<(String, String, Option<String>)> = bound
        .shown()
        .into_iter()
        .map(|p| (p.key, p.value, p.resolved_value))
        .collect();
    assert_eq!(
        shown,
        [
            ("A".to_string(), "a".to_string(), None),
            ("B".to_string(), "****".to_string(), None),
            ("C".to_string(), "/p".to_string(), Some("v1".to_string())),
        ]
    );
    assert_eq!(
        bound.get("B").expect("B").value,
        "secret",
        "stored in clear"
    );
    let round_trip: BoundParameters =
        serde_json::from_str(&serde_json::to_string(&bound).expect("ser")).expect("de");
    assert_eq!(round_trip, bound);

    // UsePreviousValue takes the stored value; SSM values are fetched again.
    let ssm2 = Ssm(vec![("/p", "v2")]);
    let previous = |k: &str| ParameterInput {
        key: k.into(),
        value: None,
        use_previous_value: true,
    };
    let again = t
        .bind_parameters(&[previous("A"), previous("B")], Some(&bound), &ssm2)
        .expect("binds");
    assert_eq!(again.ref_value("A"), Some(json!("a")));
    assert_eq!(again.ref_value("B"), Some(json!("secret")));
    assert_eq!(again.ref_value("C"), Some(json!("v2")));

    let cases: Vec<(Vec<ParameterInput>, Option<&BoundParameters>, &str)> = vec![
        (inputs(&[("A", "a"), ("X", "1"), ("Y", "2"), ("X", "3")]), None, "Parameters: [X, Y] do not exist in the template"),
        (inputs(&[]), None, "Parameters: [A, B] must have values"),
        (vec![previous("A")], None, "Invalid input for parameter key A. Cannot specify usePreviousValue as true for a parameter key not in the previous template"),
        (vec![ParameterInput { key: "A".into(), value: None, use_previous_value: false }], None, "Parameters: [A, B] must have values"),
    ];
    for (given, prev, want) in cases {
        assert_eq!(
            t.bind_parameters(&given, prev, &ssm)
                .expect_err(want)
                .to_string(),
            want
        );
    }
    let none = Template::parse("Resources:\n  Q: {Type: AWS::SQS::Queue}\n").expect("parses");
    assert_eq!(
        none.bind_parameters(&inputs(&[("A", "a")]), None, &ssm)
            .expect_err("none")
            .to_string(),
        "Parameter values specified for a template which does not require them."
    );
    assert!(none
        .bind_parameters(&[], None, &ssm)
        .expect("empty")
        .is_empty());
}

// ---------------------------------------------------------------------------------------------
// Intrinsic functions: values and errors.

fn harness(expr: &str, language_extensions: bool) -> String {
    format!(
        "{}Parameters:
  Env: {{Type: String, Default: prod}}
  List: {{Type: CommaDelimitedList, Default: 'a, b,c'}}
  Num: {{Type: Number, Default: 3}}
  Idx: {{Type: String, Default: '1'}}
Mappings:
  M:
    us-east-1: {{Ami: ami-1, Zones: [a, b], Count: 2}}
    eu-west-1: {{Ami: ami-2}}
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  IsDev: !Not [!Condition IsProd]
Resources:
  Q: {{Type: AWS::SQS::Queue}}
  Off: {{Type: AWS::SQS::Queue, Condition: IsDev}}
  R:
    Type: AWS::SQS::Queue
    Properties:
      V: {expr}
",
        if language_extensions {
            "Transform: AWS::LanguageExtensions\n"
        } else {
            ""
        }
    )
}

/// Resolves the harness around `expr` and evaluates R's property V (`None`: removed).
fn eval_in(expr: &str, language_extensions: bool) -> Result<Option<Value>, String> {
    let body = harness(expr, language_extensions);
    let (t, params, resolved) = resolve_with(&body, &[]).map_err(|e| e.to_string())?;
    let pseudo = pseudo();
    let created = Created {
        exports: vec![("shared-queue", "arn:queue")],
    };
    let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &created);
    let props = ev.resource_properties("R").map_err(|e| e.to_string())?;
    Ok(props.get("V").cloned())
}

#[test]
fn intrinsic_functions_evaluate() {
    let cases: &[(&str, Option<Value>)] = &[
        ("plain", Some(json!("plain"))),
        ("5", Some(json!(5))),
        ("true", Some(json!(true))),
        ("!Ref Env", Some(json!("prod"))),
        ("!Ref Num", Some(json!("3"))),
        ("!Ref List", Some(json!(["a", "b", "c"]))),
        ("!Ref Q", Some(json!("Q-phys"))),
        ("!Ref AWS::AccountId", Some(json!("000000000000"))),
        ("!Ref AWS::Region", Some(json!("us-east-1"))),
        ("!Ref AWS::StackName", Some(json!("s"))),
        (
            "!Ref AWS::StackId",
            Some(json!(
                "arn:aws:cloudformation:us-east-1:000000000000:stack/s/1"
            )),
        ),
        ("!Ref AWS::Partition", Some(json!("aws"))),
        ("!Ref AWS::URLSuffix", Some(json!("amazonaws.com"))),
        (
            "!Ref AWS::NotificationARNs",
            Some(json!(["arn:aws:sns:us-east-1:000000000000:t"])),
        ),
        ("!Ref AWS::NoValue", None),
        ("[a, !Ref 'AWS::NoValue', b]", Some(json!(["a", "b"]))),
        ("{k: !Ref 'AWS::NoValue', j: 1}", Some(json!({"j": 1}))),
        ("!GetAtt Q.Arn", Some(json!("Q.Arn"))),
        ("!GetAtt [Q, QueueName]", Some(json!("Q.QueueName"))),
        ("{'Fn::GetAtt': 'Q.Arn'}", Some(json!("Q.Arn"))),
        (
            "!GetAtt Q.RedrivePolicy.deadLetterTargetArn",
            Some(json!("Q.RedrivePolicy.deadLetterTargetArn")),
        ),
        (
            "!Sub 'x-${Env}-${AWS::Region}-${Q}-${Q.Arn}'",
            Some(json!("x-prod-us-east-1-Q-phys-Q.Arn")),
        ),
        (
            "!Sub '${!Literal}-${ Env }'",
            Some(json!("${Literal}-prod")),
        ),
        (
            "!Sub ['${Env}-${X}', {Env: shadow, X: !Ref Num}]",
            Some(json!("shadow-3")),
        ),
        (
            "!Sub 'open ${ never closed'",
            Some(json!("open ${ never closed")),
        ),
        ("!Sub 'no variables'", Some(json!("no variables"))),
        ("!Join ['-', [a, !Ref Env, 1]]", Some(json!("a-prod-1"))),
        ("!Join ['', []]", Some(json!(""))),
        ("!Join [',', !Ref List]", Some(json!("a,b,c"))),
        (
            "!Join [',', !GetAZs '']",
            Some(json!(
                "us-east-1a,us-east-1b,us-east-1c,us-east-1d,us-east-1e,us-east-1f"
            )),
        ),
        (
            "!Join ['', [a, !If [IsDev, b, !Ref 'AWS::NoValue']]]",
            Some(json!("a")),
        ),
        ("!Select [1, [a, b, c]]", Some(json!("b"))),
        ("!Select ['2', !Ref List]", Some(json!("c"))),
        ("!Select [!Ref Idx, !Split [',', 'x,y']]", Some(json!("y"))),
        ("!Select [0, !GetAZs eu-west-1]", Some(json!("eu-west-1a"))),
        ("!Split [',', 'a,,b']", Some(json!(["a", "", "b"]))),
        ("!Split ['|', !Join ['|', [x, y]]]", Some(json!(["x", "y"]))),
        (
            "!If [IsProd, yes-branch, no-branch]",
            Some(json!("yes-branch")),
        ),
        ("!If [IsDev, !Ref Off, fallback]", Some(json!("fallback"))),
        ("!If [IsDev, x, !Ref 'AWS::NoValue']", None),
        (
            "!FindInMap [M, !Ref 'AWS::Region', Ami]",
            Some(json!("ami-1")),
        ),
        ("!FindInMap [M, us-east-1, Zones]", Some(json!(["a", "b"]))),
        ("!FindInMap [M, eu-west-1, Ami]", Some(json!("ami-2"))),
        ("!Base64 hello", Some(json!("aGVsbG8="))),
        ("!Base64 {'Fn::Sub': '${Env}'}", Some(json!("cHJvZA=="))),
        (
            "!GetAZs us-west-2",
            Some(json!([
                "us-west-2a",
                "us-west-2b",
                "us-west-2c",
                "us-west-2d"
            ])),
        ),
        (
            "!Cidr [10.0.0.0/16, 2, 8]",
            Some(json!(["10.0.0.0/24", "10.0.1.0/24"])),
        ),
        (
            "!Select [1, !Cidr ['192.168.0.0/24', 6, 5]]",
            Some(json!("192.168.0.32/27")),
        ),
        ("!ImportValue shared-queue", Some(json!("arn:queue"))),
        (
            "{IAM: {Condition: {StringEquals: {k: v}}}}",
            Some(json!({"IAM": {"Condition": {"StringEquals": {"k": "v"}}}})),
        ),
    ];
    for (expr, want) in cases {
        assert_eq!(
            eval_in(expr, false).unwrap_or_else(|e| panic!("{expr}: {e}")),
            *want,
            "{expr}"
        );
    }
}

#[test]
fn intrinsic_errors_carry_aws_messages() {
    let unresolved = |x: &str| {
        format!("Template format error: Unresolved resource dependencies [{x}] in the Resources block of the template")
    };
    let cases: Vec<(&str, String)> = vec![
        ("!Ref DoesNotExist", unresolved("DoesNotExist")),
        ("!Ref Off", unresolved("Off")),
        ("[!Ref X1, !Sub '${X2}', !Ref X1]", unresolved("X1, X2")),
        ("{Ref: [a]}", "Template error: every Ref object requires a single string parameter.".into()),
        ("!GetAtt Nope.Arn", "Template error: instance of Fn::GetAtt references undefined resource Nope".into()),
        ("!GetAtt Off.Arn", unresolved("Off")),
        ("!GetAtt Q.Nope", "Template error: resource Q does not support attribute type Nope in Fn::GetAtt".into()),
        ("!Sub '${Q.Nope}'", "Template error: resource Q does not support attribute type Nope in Fn::GetAtt".into()),
        ("{'Fn::GetAtt': [Q]}", "Template error: every Fn::GetAtt object requires two non-empty parameters, the resource name and the resource attribute".into()),
        ("{'Fn::GetAtt': Q}", "Template error: every Fn::GetAtt object requires two non-empty parameters, the resource name and the resource attribute".into()),
        ("!GetAtt [Q, '']", "Template error: every Fn::GetAtt object requires two non-empty parameters, the resource name and the resource attribute".into()),
        ("!Sub '${Nope}'", unresolved("Nope")),
        ("!Sub '${Nope.Arn}'", unresolved("Nope.Arn")),
        ("!Sub '${List}'", "Template error: variable List in Fn::Sub expression does not resolve to a string".into()),
        ("!Sub ['${V}', {V: [a]}]", "Template error: variable V in Fn::Sub expression does not resolve to a string".into()),
        ("!Sub '${a-b}'", "Template error: variable names in Fn::Sub syntax must contain only alphanumeric characters, underscores, periods, and colons".into()),
        ("!Sub [x]", "Template error: One or more Fn::Sub intrinsic functions don't specify expected arguments. Specify a string as first argument, and an optional second argument to specify a mapping of values to replace in the string".into()),
        ("!Sub [x, y]", "Template error: One or more Fn::Sub intrinsic functions don't specify expected arguments. Specify a string as first argument, and an optional second argument to specify a mapping of values to replace in the string".into()),
        ("!Join [',']", "Template error: every Fn::Join object requires two parameters, (1) a string delimiter and (2) a list of strings to be joined or a function that returns a list of strings (such as Fn::GetAZs) to be joined.".into()),
        ("!Join [',', x]", "Template error: every Fn::Join object requires two parameters, (1) a string delimiter and (2) a list of strings to be joined or a function that returns a list of strings (such as Fn::GetAZs) to be joined.".into()),
        ("!Join [',', [[a]]]", "Template error: every Fn::Join object requires two parameters, (1) a string delimiter and (2) a list of strings to be joined or a function that returns a list of strings (such as Fn::GetAZs) to be joined.".into()),
        ("!Select [5, [a]]", "Template error: Fn::Select cannot select nonexistent value at index 5".into()),
        ("!Select [-1, [a]]", "Template error: Fn::Select cannot select nonexistent value at index -1".into()),
        ("!Select [0]", "Template error: Fn::Select requires a list argument with two elements: an integer index and a list".into()),
        ("!Select [0, x]", "Template error: Fn::Select requires a list argument with two elements: an integer index and a list".into()),
        ("!Split [',']", "Template error: every Fn::Split object requires two parameters, (1) a string delimiter and (2) a string to be split or a function that returns a string to be split.".into()),
        ("!Split [',', [a]]", "Template error: every Fn::Split object requires two parameters, (1) a string delimiter and (2) a string to be split or a function that returns a string to be split.".into()),
        ("!If [Nope, a, b]", "Template error: unresolved condition dependency Nope in Fn::If".into()),
        ("!If [IsProd, a]", "Template error: every Fn::If object requires three parameters, (1) a condition name, (2) a value to use when it is true and (3) a value to use when it is false.".into()),
        ("!FindInMap [M, us-east-1, Nope]", "Template error: Unable to get mapping for M::us-east-1::Nope".into()),
        ("!FindInMap [Nope, a, b]", "Template error: Unable to get mapping for Nope::a::b".into()),
        ("!FindInMap [M, a]", "Template error: every Fn::FindInMap object requires three parameters, the map name, map key and the attribute for return value".into()),
        ("!FindInMap [M, a, b, {DefaultValue: c}]", "Template error: every Fn::FindInMap object requires three parameters, the map name, map key and the attribute for return value".into()),
        ("!Base64 [a]", "Template error: every Fn::Base64 object requires a string parameter.".into()),
        ("!GetAZs [a]", "Template error: every Fn::GetAZs object requires a string parameter (a region name or an empty string).".into()),
        ("!Cidr [x]", "Template error: every Fn::Cidr object requires three parameters, (1) an IP address block in CIDR notation, (2) the number of subnets to generate and (3) the number of subnet bits.".into()),
        ("!Cidr [10.0.0.0/33, 1, 1]", "Template error: Fn::Cidr requires an IP address block in CIDR notation, got 10.0.0.0/33".into()),
        ("!ImportValue {'Fn::GetAtt': [Q, Arn]}", "Template error: the attribute in Fn::ImportValue must not depend on any resources, imported values, or Fn::GetAZs".into()),
        ("!ImportValue {'Fn::Select': [0, !GetAZs '']}", "Template error: the attribute in Fn::ImportValue must not depend on any resources, imported values, or Fn::GetAZs".into()),
        ("!ImportValue [a]", "Template error: every Fn::ImportValue object requires a string parameter: the name of an exported output value.".into()),
        ("!ImportValue missing-export", "No export named missing-export found.".into()),
        ("{'Fn::Foo': x}", "Template format error: Encountered unsupported function: Fn::Foo Supported functions are: [Fn::Base64, Fn::GetAtt, Fn::GetAZs, Fn::ImportValue, Fn::Join, Fn::Split, Fn::FindInMap, Fn::Select, Ref, Fn::Equals, Fn::If, Fn::Not, Condition, Fn::And, Fn::Or, Fn::Contains, Fn::EachMemberEquals, Fn::EachMemberIn, Fn::ValueOf, Fn::ValueOfAll, Fn::RefAll, Fn::Sub, Fn::Cidr]".into()),
        ("!Length [a]", "Template format error: Encountered unsupported function: Fn::Length Supported functions are: [Fn::Base64, Fn::GetAtt, Fn::GetAZs, Fn::ImportValue, Fn::Join, Fn::Split, Fn::FindInMap, Fn::Select, Ref, Fn::Equals, Fn::If, Fn::Not, Condition, Fn::And, Fn::Or, Fn::Contains, Fn::EachMemberEquals, Fn::EachMemberIn, Fn::ValueOf, Fn::ValueOfAll, Fn::RefAll, Fn::Sub, Fn::Cidr]".into()),
        ("!Equals [a, b]", "Template error: Fn::Equals can only be used in the Conditions and Rules sections".into()),
    ];
    for (expr, want) in &cases {
        assert_eq!(eval_in(expr, false).expect_err(expr), *want, "{expr}");
    }
    let deep = format!("{}x{}", "{'Fn::Base64': ".repeat(110), "}".repeat(110));
    assert_eq!(
        eval_in(&deep, false).expect_err("deep"),
        "Template format error: the template's intrinsic functions are nested too deeply or expand too far"
    );
}

#[test]
fn language_extensions_functions() {
    let cases: &[(&str, Option<Value>)] = &[
        ("!Length [a, b, c]", Some(json!(3))),
        ("!Length {Ref: List}", Some(json!(3))),
        (
            "!ToJsonString {a: !Ref Env, b: [1, 2]}",
            Some(json!("{\"a\":\"prod\",\"b\":[1,2]}")),
        ),
        ("!ToJsonString [!Ref Env]", Some(json!("[\"prod\"]"))),
        (
            "!FindInMap [M, nowhere, Ami, {DefaultValue: dflt}]",
            Some(json!("dflt")),
        ),
        (
            "!FindInMap [M, us-east-1, Ami, {DefaultValue: dflt}]",
            Some(json!("ami-1")),
        ),
        (
            "!FindInMap [M, nowhere, Ami, {DefaultValue: !Ref Env}]",
            Some(json!("prod")),
        ),
    ];
    for (expr, want) in cases {
        assert_eq!(
            eval_in(expr, true).unwrap_or_else(|e| panic!("{expr}: {e}")),
            *want,
            "{expr}"
        );
    }
    let errors: &[(&str, &str)] = &[
        ("!Length x", "Template error: every Fn::Length object requires a list or a function that returns a list."),
        ("!ToJsonString x", "Template error: every Fn::ToJsonString object requires a map or a list."),
        ("!FindInMap [M, a, b, {Default: c}]", "Template error: every Fn::FindInMap object requires three parameters, the map name, map key and the attribute for return value"),
        ("{'Fn::Foo': x}", "Template format error: Encountered unsupported function: Fn::Foo Supported functions are: [Fn::Base64, Fn::GetAtt, Fn::GetAZs, Fn::ImportValue, Fn::Join, Fn::Split, Fn::FindInMap, Fn::Select, Ref, Fn::Equals, Fn::If, Fn::Not, Condition, Fn::And, Fn::Or, Fn::Contains, Fn::EachMemberEquals, Fn::EachMemberIn, Fn::ValueOf, Fn::ValueOfAll, Fn::RefAll, Fn::Sub, Fn::Cidr, Fn::Length, Fn::ToJsonString, Fn::ForEach]"),
    ];
    for (expr, want) in errors {
        assert_eq!(eval_in(expr, true).expect_err(expr), *want, "{expr}");
    }
}

// ---------------------------------------------------------------------------------------------
// Conditions, rules, outputs, capabilities.

#[test]
fn conditions_select_resources_and_outputs() {
    let body = "Parameters:
  Env: {Type: String, Default: dev}
  Zone: {Type: String, Default: ''}
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  IsDev: !Not [!Condition IsProd]
  HasZone: !Not [!Equals [!Ref Zone, '']]
  Both: !And [!Condition IsDev, !Condition HasZone]
  Either: !Or [!Condition IsProd, !Condition HasZone, !Equals [!Ref 'AWS::Region', us-east-1]]
  NumEq: !Equals [1, '1']
Resources:
  Always: {Type: AWS::SQS::Queue}
  ProdOnly: {Type: AWS::SQS::Queue, Condition: IsProd}
  DevOnly:
    Type: AWS::SQS::Queue
    Condition: IsDev
    Properties:
      QueueName: !If [IsProd, !Ref ProdOnly, dev]
Outputs:
  P: {Value: !Ref ProdOnly, Condition: IsProd}
  D: {Value: !Ref DevOnly, Condition: IsDev}
";
    let (_, _, dev) = resolve_with(body, &[]).expect("dev");
    assert_eq!(
        dev.conditions,
        [
            ("IsProd", false),
            ("IsDev", true),
            ("HasZone", false),
            ("Both", false),
            ("Either", true),
            ("NumEq", true)
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect::<IndexMap<_, _>>()
    );
    assert_eq!(
        dev.resources.keys().collect::<Vec<_>>(),
        ["Always", "DevOnly"]
    );
    assert_eq!(dev.outputs.keys().collect::<Vec<_>>(), ["D"]);
    let (_, _, prod) = resolve_with(body, &[("Env", "prod"), ("Zone", "a")]).expect("prod");
    assert_eq!(
        prod.resources.keys().collect::<Vec<_>>(),
        ["Always", "ProdOnly"]
    );
    assert_eq!(prod.outputs.keys().collect::<Vec<_>>(), ["P"]);
    assert!(prod.conditions["HasZone"] && !prod.conditions["Both"]);
}

#[test]
fn condition_errors_carry_aws_messages() {
    let q = "Resources:\n  Q: {Type: AWS::SQS::Queue}\n";
    let cases: Vec<(String, &str)> = vec![
        (format!("Conditions:\n  C: !Equals [a]\n{q}"), "Template error: every Fn::Equals object requires a list of 2 string parameters."),
        (format!("Conditions:\n  C: !Equals [a, b, c]\n{q}"), "Template error: every Fn::Equals object requires a list of 2 string parameters."),
        (format!("Conditions:\n  C: !And [!Equals [a, a]]\n{q}"), "Template error: every Fn::And object requires a list of at least 2 and at most 10 boolean parameters."),
        (format!("Conditions:\n  C: !Or [{}]\n{q}", ["!Equals [a, a]"; 11].join(", ")), "Template error: every Fn::Or object requires a list of at least 2 and at most 10 boolean parameters."),
        (format!("Conditions:\n  C: !Not [!Equals [a, a], !Equals [a, a]]\n{q}"), "Template error: every Fn::Not object requires a list of 1 boolean parameter."),
        (format!("Conditions:\n  C: !Equals [!Ref Q, a]\n{q}"), "Template format error: Unresolved dependencies [Q]. Cannot reference resources in the Conditions block of the template"),
        (format!("Conditions:\n  C: !Equals [!Ref Nope, a]\n{q}"), "Template format error: Unresolved dependencies [Nope]. Cannot reference resources in the Conditions block of the template"),
        (format!("Conditions:\n  C: !Not [!Condition Missing]\n{q}"), "Template error: unresolved condition dependency Missing in Condition"),
        (format!("Conditions:\n  A: !Not [!Condition B]\n  B: !Not [!Condition A]\n{q}"), "Template format error: Circular dependency between conditions: [A, B]"),
        (format!("Conditions:\n  C: {{Ref: X}}\nParameters:\n  X: {{Type: String, Default: a}}\n{q}"), "Template format error: Conditions can only be boolean operations on parameters and other conditions"),
        ("Resources:\n  Q: {Type: AWS::SQS::Queue, Condition: Missing}\n".into(), "Template error: unresolved condition dependency Missing in Resources"),
        (format!("{q}Outputs:\n  O: {{Value: x, Condition: Missing}}\n"), "Template error: unresolved condition dependency Missing in Outputs"),
        (format!("Conditions:\n  C: !Equals [a, b]\n{q}  R: {{Type: AWS::SQS::Queue, Condition: C}}\nOutputs:\n  O: {{Value: !GetAtt R.Arn}}\n"), "Unresolved resource dependencies [R] in the Outputs block of the template"),
        (format!("Conditions:\n  C: !Equals [a, b]\n{q}  R: {{Type: AWS::SQS::Queue, Condition: C}}\n  S: {{Type: AWS::SQS::Queue, DependsOn: [Q, R]}}\n"), "Template format error: Unresolved resource dependencies [R] in the Resources block of the template"),
    ];
    for (body, want) in &cases {
        assert_eq!(error_of(body, &[]), *want, "{body}");
    }
}

#[test]
fn rules_assert_parameter_values() {
    let body = "Parameters:
  Env: {Type: String, Default: dev}
  Size: {Type: String, Default: small}
  Zones: {Type: CommaDelimitedList, Default: 'a,b'}
Rules:
  ProdIsLarge:
    RuleCondition: !Equals [!Ref Env, prod]
    Assertions:
      - Assert: !Equals [!Ref Size, large]
        AssertDescription: Production stacks must be large
  KnownZones:
    Assertions:
      - Assert: !EachMemberIn [!Ref Zones, [a, b, c]]
        AssertDescription: Zones must be a, b or c
      - Assert: !Contains [[small, large], !Ref Size]
      - Assert: !EachMemberEquals [!Ref Zones, !Select [0, !Ref Zones]]
        AssertDescription: One zone only
      - Assert: !Or [!Not [!Equals [!Ref Env, test]], !Equals [!Ref 'AWS::Region', us-east-1]]
        AssertDescription: test lives in us-east-1
Resources:
  Q: {Type: AWS::SQS::Queue}
";
    type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);
    let cases: &[Case] = &[
        (&[("Zones", "a")], None),
        (&[("Env", "prod"), ("Size", "large"), ("Zones", "a")], None),
        (
            &[("Env", "prod"), ("Zones", "a")],
            Some("Production stacks must be large"),
        ),
        (&[("Zones", "a,d")], Some("Zones must be a, b or c")),
        (
            &[("Size", "medium"), ("Zones", "a")],
            Some("Template error: Assertion failed for rule KnownZones."),
        ),
        (&[("Zones", "a,b")], Some("One zone only")),
    ];
    for (given, want) in cases {
        match (resolve_with(body, given), want) {
            (Ok(_), None) => {}
            (Err(e), Some(w)) => assert_eq!(e.to_string(), *w, "{given:?}"),
            (got, want) => panic!("{given:?}: got {:?}, want {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn outputs_evaluate_at_execution() {
    let body = "Parameters:
  Env: {Type: String, Default: dev}
Resources:
  Q: {Type: AWS::SQS::Queue}
  P: {Type: AWS::SSM::Parameter, Properties: {Type: String, Value: v}}
Outputs:
  Url: {Value: !Ref Q, Description: !Sub 'queue for ${Env}', Export: {Name: !Sub '${AWS::StackName}-Url'}}
  Zones: {Value: !GetAZs ''}
  Imported: {Value: !ImportValue shared-queue}
  Missing: {Value: !ImportValue nope}
  InvalidOutput: {Value: !GetAtt P.Invalid}
  Map: {Value: {a: b}}
";
    let (t, params, resolved) = resolve_with(body, &[])
        .expect("resolves: GetAtt attributes of outputs are checked at execution");
    let pseudo = pseudo();
    let created = Created {
        exports: vec![("shared-queue", "arn:queue")],
    };
    let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &created);
    let url = ev.output("Url").expect("url");
    assert_eq!(
        url,
        EvaluatedOutput {
            key: "Url".into(),
            value: "Q-phys".into(),
            description: Some("queue for dev".into()),
            export_name: Some("s-Url".into()),
        }
    );
    assert_eq!(
        ev.output("Zones").expect("zones").value,
        "us-east-1a,us-east-1b,us-east-1c,us-east-1d,us-east-1e,us-east-1f"
    );
    assert_eq!(ev.output("Imported").expect("imported").value, "arn:queue");
    assert_eq!(ev.output("Map").expect("map").value, "{\"a\":\"b\"}");
    assert_eq!(
        ev.output("Missing").expect_err("missing").to_string(),
        "No export named nope found."
    );
    // AWS (recorded, LS engine/test_attributes::test_invalid_getatt_fails).
    assert_eq!(
        ev.output("InvalidOutput").expect_err("invalid").to_string(),
        "[Error] /Outputs/InvalidOutput/Value/Fn::GetAtt: Resource type AWS::SSM::Parameter does not support attribute {Invalid}."
    );
    assert_eq!(
        ev.output("Nope").expect_err("unknown").to_string(),
        "Output Nope is not part of the stack"
    );
    assert_eq!(
        ev.resource_properties("Nope")
            .expect_err("unknown")
            .to_string(),
        "Resource Nope is not part of the stack"
    );
    assert_eq!(
        ev.evaluate(&json!({"Ref": "AWS::NoValue"}))
            .expect("novalue"),
        Value::Null
    );
    assert_eq!(
        ev.evaluate(&json!({"Fn::Join": ["-", [{"Ref": "Env"}, "x"]]}))
            .expect("join"),
        json!("dev-x")
    );
}

#[test]
fn capabilities_follow_iam_resources_names_and_transforms() {
    let cases: &[(&str, &[&str], Option<&str>)] = &[
        ("Resources:\n  Q: {Type: AWS::SQS::Queue}\n", &[], None),
        ("Resources:\n  R: {Type: AWS::IAM::Role, Properties: {AssumeRolePolicyDocument: {}}}\n", &["CAPABILITY_IAM"], Some("The following resource(s) require capabilities: [AWS::IAM::Role]")),
        ("Resources:\n  R: {Type: AWS::IAM::Role, Properties: {RoleName: r, AssumeRolePolicyDocument: {}}}\n  U: {Type: AWS::IAM::User}\n", &["CAPABILITY_NAMED_IAM"], Some("The following resource(s) require capabilities: [AWS::IAM::Role, AWS::IAM::User]")),
        ("Conditions:\n  Never: !Equals [a, b]\nResources:\n  R: {Type: AWS::IAM::Role, Properties: {RoleName: !If [Never, r, !Ref 'AWS::NoValue']}}\n", &["CAPABILITY_IAM"], Some("The following resource(s) require capabilities: [AWS::IAM::Role]")),
        ("Parameters:\n  N: {Type: String, Default: n}\nResources:\n  P: {Type: AWS::IAM::ManagedPolicy, Properties: {ManagedPolicyName: !Ref N, PolicyDocument: {}}}\n", &["CAPABILITY_NAMED_IAM"], Some("The following resource(s) require capabilities: [AWS::IAM::ManagedPolicy]")),
        ("Conditions:\n  Never: !Equals [a, b]\nResources:\n  R: {Type: AWS::IAM::Role, Condition: Never}\n  Q: {Type: AWS::SQS::Queue}\n", &[], None),
        ("Transform: AWS::LanguageExtensions\nResources:\n  Q: {Type: AWS::SQS::Queue}\n", &["CAPABILITY_AUTO_EXPAND"], Some("The following resource(s) require capabilities: [AWS::LanguageExtensions]")),
        ("Transform: AWS::LanguageExtensions\nResources:\n  G: {Type: AWS::IAM::Group}\n", &["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"], Some("The following resource(s) require capabilities: [AWS::IAM::Group]")),
    ];
    for (body, caps, reason) in cases {
        let (t, _, resolved) = resolve_with(body, &[]).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(t.required_capabilities(&resolved), *caps, "{body}");
        assert_eq!(
            t.capabilities_reason(&resolved).as_deref(),
            *reason,
            "{body}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The dependency graph.

#[test]
fn creation_order_is_topological_with_template_order_ties() {
    let body = "Conditions:
  Never: !Equals [a, b]
Resources:
  A: {Type: AWS::SQS::Queue}
  B:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub '${C}-${D.Arn}-${AWS::Region}'
      Tags: [{Key: k, Value: !If [Never, !Ref E, !GetAtt C.Arn]}]
  C: {Type: AWS::SQS::Queue, DependsOn: A}
  D: {Type: AWS::SQS::Queue, Metadata: {m: !Ref A}}
  E: {Type: AWS::SQS::Queue, DependsOn: [B, B, C]}
  F: {Type: AWS::SQS::Queue}
";
    let (_, _, r) = resolve_with(body, &[]).expect("resolves");
    assert_eq!(r.order, ["A", "C", "D", "B", "E", "F"]);
    let (_, _, p) = resolve_with("Parameters:\n  N: {Type: String, Default: n}\n  M: {Type: String, Default: m}\nResources:\n  A: {Type: AWS::SQS::Queue, Properties: {QueueName: !Sub '${M}-${N}-${AWS::Region}', Tags: [{Key: k, Value: !Ref M}]}}\n  B: {Type: AWS::SQS::Queue}\n", &[]).expect("resolves");
    assert_eq!(p.parameter_references["A"], ["M", "N"]);
    assert!(p.parameter_references["B"].is_empty());
    let deps: Vec<(&str, Vec<&str>)> = r
        .dependencies
        .iter()
        .map(|(k, v)| (k.as_str(), v.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        deps,
        [
            ("A", vec![]),
            ("B", vec!["C", "D"]),
            ("C", vec!["A"]),
            ("D", vec!["A"]),
            ("E", vec!["B", "C"]),
            ("F", vec![]),
        ]
    );
}

#[test]
fn cycles_name_the_resources_involved() {
    let cases: &[(&str, &str)] = &[
        (
            "Resources:\n  A: {Type: AWS::SQS::Queue, DependsOn: A}\n",
            "Circular dependency between resources: [A]",
        ),
        (
            "Resources:\n  X: {Type: AWS::SQS::Queue}\n  A: {Type: AWS::SQS::Queue, Properties: {QueueName: !GetAtt B.QueueName}}\n  B: {Type: AWS::SQS::Queue, Properties: {QueueName: !Sub '${A}'}}\n",
            "Circular dependency between resources: [A, B]",
        ),
        (
            "Resources:\n  C: {Type: AWS::SQS::Queue, DependsOn: A}\n  A: {Type: AWS::SQS::Queue, DependsOn: B}\n  B: {Type: AWS::SQS::Queue, DependsOn: A}\n  D: {Type: AWS::SQS::Queue}\n",
            "Circular dependency between resources: [C, A, B]",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(error_of(body, &[]), *want, "{body}");
    }
    // The acceptance template: two schedules referencing each other.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/acceptance/templates/bad_circular.yaml");
    if let Ok(body) = std::fs::read_to_string(path) {
        assert_eq!(
            error_of(&body, &[]),
            "Circular dependency between resources: [Ping, Pong]"
        );
    }
}

#[test]
fn a_large_template_resolves_in_linear_work() {
    // 500 resources in a chain, each referencing the previous: exercises the graph at the quota.
    let mut body = String::from("Resources:\n  Q0: {Type: AWS::SQS::Queue}\n");
    for i in 1..500 {
        body.push_str(&format!(
            "  Q{i}: {{Type: AWS::SQS::Queue, Properties: {{QueueName: !GetAtt Q{}.QueueName}}}}\n",
            i - 1
        ));
    }
    let (_, _, r) = resolve_with(&body, &[]).expect("resolves");
    assert_eq!(r.order.len(), 500);
    assert_eq!(r.order.first().map(String::as_str), Some("Q0"));
    assert_eq!(r.order.last().map(String::as_str), Some("Q499"));
}

// ---------------------------------------------------------------------------------------------
// AWS::LanguageExtensions: Fn::ForEach and intrinsic policies.

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
    assert_eq!(error_of(&explosion, &[]), "Template format error: the template's intrinsic functions are nested too deeply or expand too far");
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

// ---------------------------------------------------------------------------------------------
// The corpus: real public templates (read from ../shared when present).

#[test]
fn corpus_templates_parse_or_are_refused_as_aws_would() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return; // ../shared is absent: nothing to read.
    };
    let sam = "Template format error: Transform AWS::Serverless-2016-10-31 is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros";
    let mut seen = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !(name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")) {
            continue;
        }
        let body = std::fs::read_to_string(entry.path()).expect("readable");
        let id = &name[..2];
        let parsed = Template::parse(&body);
        match id {
            "01" | "02" | "05" | "15" => assert_eq!(parsed.expect_err(&name).to_string(), sam, "{name}"),
            "17" => assert_eq!(
                parsed.expect_err(&name).to_string(),
                "Template format error: Unrecognized resource types: [AWS::Serverless::StateMachine]"
            ),
            _ => {
                let t = parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
                // Every parameter gets a value; the template then resolves.
                let given: Vec<(&str, &str)> = t
                    .parameters()
                    .iter()
                    .filter(|(_, d)| d.default.is_none())
                    .map(|(k, d)| (k.as_str(), d.allowed_values.as_ref().and_then(|a| a.first()).map_or("x", String::as_str)))
                    .collect();
                // The CDK template reads its bootstrap version from SSM and asserts it in a rule.
                let ssm = Ssm(vec![("/cdk-bootstrap/hnb659fds/version", "21")]);
                let params = t.bind_parameters(&inputs(&given), None, &ssm).unwrap_or_else(|e| panic!("{name}: {e}"));
                let r = t.resolve(&params, &pseudo()).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(r.order.len(), r.resources.len(), "{name}");
                if id == "34" {
                    let old = Ssm(vec![("/cdk-bootstrap/hnb659fds/version", "3")]);
                    let params = t.bind_parameters(&[], None, &old).expect("binds");
                    assert_eq!(
                        t.resolve(&params, &pseudo()).expect_err("old bootstrap").to_string(),
                        "CDK bootstrap stack version 6 required. Please run 'cdk bootstrap' with a recent version of the CDK CLI."
                    );
                }
            }
        }
        seen += 1;
    }
    assert!(seen >= 12, "read {seen} corpus templates");
}

// ---------------------------------------------------------------------------------------------
// Regressions named after the bug reports (shared/reference/bug-reports.md).

#[test]
fn b20_short_form_getatt_splits_at_the_first_dot_and_sub_escapes() {
    let body = "Resources:
  Queue: {Type: AWS::SQS::Queue}
  Child: {Type: AWS::CloudFormation::Stack, Properties: {TemplateURL: 'https://example.com/t.yaml'}}
Outputs:
  A: {Value: !GetAtt Queue.Arn}
  B: {Value: !GetAtt \"Queue.Arn\"}
  C: {Value: !GetAtt [Queue, Arn]}
  D: {Value: !GetAtt Child.Outputs.Url}
  E: {Value: {\"Fn::GetAtt\": \"Queue.Arn\"}}
  F: {Value: !Sub \"arn:aws:iam::${AWS::AccountId}:user/${!aws:username}\"}
";
    let t = Template::parse(body).expect("parses");
    let long = |k: &str| t.outputs()[k].value.clone();
    for k in ["A", "B", "C"] {
        assert_eq!(long(k), json!({"Fn::GetAtt": ["Queue", "Arn"]}), "{k}");
    }
    assert_eq!(long("D"), json!({"Fn::GetAtt": ["Child", "Outputs.Url"]}));
    let (_, outputs) = run(body, &[]);
    for k in ["A", "B", "C", "E"] {
        assert_eq!(outputs[k], "Queue.Arn", "{k}");
    }
    assert_eq!(outputs["D"], "Child.Outputs.Url");
    assert_eq!(
        outputs["F"],
        "arn:aws:iam::000000000000:user/${aws:username}"
    );
}

#[test]
fn b16_schedule_getatt_name_is_a_template_error_in_resources_and_fails_in_outputs() {
    let head = "Resources:
  Q: {Type: AWS::SQS::Queue}
  Grp: {Type: AWS::Scheduler::ScheduleGroup, Properties: {Name: jobs}}
  Sched:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: nightly
      GroupName: !Ref Grp
      ScheduleExpression: cron(0 3 * * ? *)
      FlexibleTimeWindow: {Mode: 'OFF'}
      Target: {Arn: !GetAtt Q.Arn, RoleArn: 'arn:aws:iam::000000000000:role/sched'}
";
    let good = format!("{head}Outputs:\n  N: {{Value: !Ref Sched}}\n  A: {{Value: !GetAtt Sched.Arn}}\n  G: {{Value: !GetAtt Grp.Arn}}\n  S: {{Value: !GetAtt Grp.State}}\n");
    let (_, _, r) = resolve_with(&good, &[]).expect("resolves");
    assert_eq!(r.order, ["Q", "Grp", "Sched"]);
    let bad = format!("{head}  F:\n    Type: AWS::SQS::Queue\n    Properties: {{QueueName: !GetAtt Sched.Name}}\n");
    assert_eq!(
        error_of(&bad, &[]),
        "Template error: resource Sched does not support attribute type Name in Fn::GetAtt"
    );
    let in_output = format!("{head}Outputs:\n  Bad: {{Value: !GetAtt Sched.Name}}\n");
    let (t, params, r) = resolve_with(&in_output, &[]).expect("resolves");
    let pseudo = pseudo();
    let created = Created { exports: vec![] };
    let ev = Evaluator::new(&t, &params, &pseudo, &r, &created);
    assert_eq!(
        ev.output("Bad").expect_err("bad").to_string(),
        "[Error] /Outputs/Bad/Value/Fn::GetAtt: Resource type AWS::Scheduler::Schedule does not support attribute {Name}."
    );
}

#[test]
fn rules_cannot_reference_resources_or_conditions() {
    let body = "Parameters:\n  P: {Type: String, Default: a}\nConditions:\n  C: !Equals [a, a]\nRules:\n  R:\n    Assertions:\n      - Assert: !Equals [!Ref Q, a]\nResources:\n  Q: {Type: AWS::SQS::Queue}\n";
    assert_eq!(error_of(body, &[]), "Template format error: Unresolved dependencies [Q]. Cannot reference resources in the Rules block of the template");
    let body = "Conditions:\n  C: !Equals [a, a]\nRules:\n  R:\n    RuleCondition: !Condition C\n    Assertions:\n      - Assert: !Equals [a, a]\nResources:\n  Q: {Type: AWS::SQS::Queue}\n";
    assert_eq!(
        error_of(body, &[]),
        "Template error: unresolved condition dependency C in Condition"
    );
}

#[test]
fn the_acceptance_json_template_is_json() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/acceptance/templates/schedule_simple.json");
    let Ok(body) = std::fs::read_to_string(path) else {
        return; // ../shared is absent.
    };
    let (t, _, r) = resolve_with(&body, &[]).expect("resolves");
    assert!(t.is_json());
    assert_eq!(r.order, ["Queue", "Unnamed"]);
    let (props, outputs) = run(&body, &[]);
    assert_eq!(
        props["Unnamed"]["Target"]["Input"],
        json!("{\"stack\":\"s\",\"region\":\"us-east-1\"}")
    );
    assert_eq!(
        props["Unnamed"]["FlexibleTimeWindow"],
        json!({"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15})
    );
    assert_eq!(outputs["ScheduleName"], "Unnamed-phys");
}

#[test]
fn pseudo_parameters_follow_the_region() {
    let cases: &[(&str, &str, &str)] = &[
        ("us-east-1", "aws", "amazonaws.com"),
        ("eu-central-1", "aws", "amazonaws.com"),
        ("cn-north-1", "aws-cn", "amazonaws.com.cn"),
        ("cn-northwest-1", "aws-cn", "amazonaws.com.cn"),
        ("us-gov-west-1", "aws-us-gov", "amazonaws.com"),
    ];
    for (region, partition, suffix) in cases {
        let p = Pseudo {
            region: region.to_string(),
            ..pseudo()
        };
        assert_eq!(
            p.value("AWS::Partition"),
            Some(json!(partition)),
            "{region}"
        );
        assert_eq!(p.value("AWS::URLSuffix"), Some(json!(suffix)), "{region}");
        assert_eq!(p.value("AWS::Region"), Some(json!(region)));
    }
    let p = pseudo();
    assert_eq!(p.value("AWS::NoValue"), None);
    assert_eq!(p.value("AWS::Nope"), None);
    for name in PSEUDO_PARAMETERS {
        assert!(is_pseudo(name));
        assert!(*name == "AWS::NoValue" || p.value(name).is_some(), "{name}");
    }
}

#[test]
fn parse_refuses_cycles_that_hold_for_every_parameter_value() {
    // ValidateTemplate (parse) runs the dependency-graph check (contract §6.3, §6.4).
    let cases: &[(&str, &str)] = &[
        (
            "Resources:\n  A: {Type: AWS::SQS::Queue, Properties: {QueueName: !Ref A}}\n",
            "Circular dependency between resources: [A]",
        ),
        (
            "Resources:\n  A: {Type: AWS::SQS::Queue, Properties: {QueueName: !GetAtt B.QueueName}}\n  B: {Type: AWS::SQS::Queue, Properties: {QueueName: !GetAtt A.QueueName}}\n",
            "Circular dependency between resources: [A, B]",
        ),
        (
            "Resources:\n  A: {Type: AWS::SQS::Queue, DependsOn: B}\n  B: {Type: AWS::SQS::Queue, DependsOn: [A]}\n",
            "Circular dependency between resources: [A, B]",
        ),
        (
            // A conditioned resource in the cycle still fails every resolution.
            "Parameters:\n  P: {Type: String, Default: x}\nConditions:\n  C: !Equals [!Ref P, x]\nResources:\n  A: {Type: AWS::SQS::Queue, Condition: C, DependsOn: B}\n  B: {Type: AWS::SQS::Queue, Properties: {QueueName: !Ref A}}\n",
            "Circular dependency between resources: [A, B]",
        ),
    ];
    for (body, want) in cases {
        match Template::parse(body) {
            Ok(_) => panic!("parse accepted {body}"),
            Err(e) => assert_eq!(e.to_string(), *want, "{body}"),
        }
    }
    // A cycle only through opposite Fn::If branches depends on parameter values: parse keeps
    // it, and no resolution meets it.
    let body = "Parameters:\n  P: {Type: String, Default: x}\nConditions:\n  C: !Equals [!Ref P, x]\nResources:\n  A: {Type: AWS::SQS::Queue, Properties: {QueueName: !If [C, !Ref B, plain]}}\n  B: {Type: AWS::SQS::Queue, Properties: {QueueName: !If [C, plain, !Ref A]}}\n";
    Template::parse(body).expect("parses");
    run(body, &[]);
    run(body, &[("P", "y")]);
}

#[test]
fn duplicate_keys_are_accepted_and_the_last_one_wins_like_aws() {
    // AWS accepts duplicated keys, logical ids included, in YAML and JSON alike and keeps the
    // last one (reported: aws-cloudformation/cfn-language-discussion#96, aws/aws-cli#2404,
    // go-to-k/cdk-real-drift#1133 checked against ValidateTemplate).
    let yaml = "Resources:\n  A:\n    Type: AWS::SQS::Queue\n    Properties: {QueueName: first}\n  A:\n    Type: AWS::SNS::Topic\n    Properties: {TopicName: second, TopicName: last}\n";
    let json = r#"{"Resources": {"A": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "first"}}, "A": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": "second", "TopicName": "last"}}}}"#;
    for body in [yaml, json] {
        let t = Template::parse(body).expect("parses");
        assert_eq!(t.resources().len(), 1, "{body}");
        assert_eq!(t.resources()["A"].type_name, "AWS::SNS::Topic", "{body}");
        let (props, _) = run(body, &[]);
        assert_eq!(
            props["A"],
            serde_json::json!({"TopicName": "last"}),
            "{body}"
        );
    }
}
