//! Resolution: conditions, rules, outputs evaluated at execution, capabilities, and the
//! dependency graph (creation order and cycles).

use serde_json::{json, Value};

use super::*;

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
