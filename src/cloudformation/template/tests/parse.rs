//! Parsing: JSON and YAML (CloudFormation's YAML 1.1 scalars, short-form tags, refusals with
//! line and column), the template's structure and quotas with AWS's messages, the accessors,
//! and the public template corpus.

use serde_json::{json, Value};

use super::*;

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
        "Template format error: Number of resources, 501, is greater than maximum allowed, 500"
    );
    let q = "Resources:\n  Q: {Type: AWS::SQS::Queue}\n";
    let params = format!(
        "Parameters:\n{}{q}",
        many(201, &|i| format!("  P{i}: {{Type: String}}\n"))
    );
    assert_eq!(
        Template::parse(&params).expect_err("201").to_string(),
        "Template format error: Parameters count 201 is greater than max allowed 200"
    );
    let outputs = format!(
        "{q}Outputs:\n{}",
        many(201, &|i| format!("  O{i}: {{Value: x}}\n"))
    );
    assert_eq!(
        Template::parse(&outputs).expect_err("201").to_string(),
        "Template format error: Outputs count 201 is greater than max allowed 200"
    );
    let mappings = format!(
        "Mappings:\n{}{q}",
        many(201, &|i| format!("  M{i}: {{k: {{a: b}}}}\n"))
    );
    assert_eq!(
        Template::parse(&mappings).expect_err("201").to_string(),
        "Template format error: Mappings count 201 is greater than max allowed 200"
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

#[test]
fn outline_checks_what_needs_no_evaluation() {
    // A template whose evaluation is refused still outlines: its transform is known first.
    let body = "Transform: AWS::LanguageExtensions\nResources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Select [9, [a]]\n";
    let outline = Template::outline(body).expect("outlines");
    assert_eq!(outline.transforms, ["AWS::LanguageExtensions"]);
    assert!(outline.requires_auto_expand());
    assert!(!Template::outline("Resources: {}\n")
        .expect("outlines")
        .requires_auto_expand());
    for (body, want) in [
        ("Foo: 1\nResources: {}\n", "Template format error: Invalid template property or properties [Foo]"),
        ("Transform: AWS::Serverless-2016-10-31\nResources: {}\n", "Template format error: Transform AWS::Serverless-2016-10-31 is not supported: Cumulo expands only AWS::LanguageExtensions and runs no macros"),
        ("{\"Resources\": ", "Template format error: JSON not well-formed. (line 1, column 14)"),
        ("- a\n", "Template format error: unsupported structure."),
    ] {
        let outlined = Template::outline(body).expect_err(body).to_string();
        assert_eq!(outlined, want, "{body}");
        assert_eq!(Template::parse(body).expect_err(body).to_string(), outlined, "{body}");
    }
}
