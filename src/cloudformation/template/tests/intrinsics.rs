//! Intrinsic functions: their values and their errors, the `AWS::LanguageExtensions` functions,
//! and the short-form regressions of the bug reports.

use serde_json::{json, Value};

use super::*;

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
        "Template format error: [/Resources/R/Properties/V/Fn::Base64] intrinsic functions are nested more than 100 levels deep"
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
