//! Parameters: every type and constraint with AWS's messages, binding (keys, previous values,
//! NoEcho masking), and pseudo parameters.

use serde_json::{json, Value};

use super::*;

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

/// Binds each `(declaration, given value)` and compares the Ref value or the message.
fn check_parameter_cases(cases: &[(&str, Option<&str>, Result<Value, &str>)]) {
    let ssm = Ssm(vec![
        ("/app/ami", "ami-123"),
        ("/app/zones", "a, b"),
        ("/app/n", "x"),
        ("/app/count", "4"),
    ]);
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
fn string_and_number_parameters_and_their_constraints() {
    // (declaration, given value, Ok(Ref value) | Err(message))
    check_parameter_cases(&[
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
    ]);
}

#[test]
fn list_and_ssm_parameters_and_their_constraints() {
    check_parameter_cases(&[
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
    ]);
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
