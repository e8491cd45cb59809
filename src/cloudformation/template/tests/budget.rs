//! Bounded evaluation (issue 17.1): the attack templates of the issue are refused, every
//! function that can make a large value is refused one byte over `limits::MAX_VALUE_BYTES` and
//! accepted at it, and the budgets of one evaluation and of one stack operation hold whatever
//! amplifies (mappings, parameters, `Fn::ForEach`, values known only at execution).

use serde_json::{json, Value};

use super::*;

const MAX: usize = limits::MAX_VALUE_BYTES;

/// A template with one SSM parameter whose `Value` is `value` (JSON body).
fn with_value(value: Value) -> String {
    json!({"Resources": {"P": {"Type": "AWS::SSM::Parameter",
        "Properties": {"Type": "String", "Value": value}}}})
    .to_string()
}

/// The same under `AWS::LanguageExtensions`.
fn with_value_le(value: Value) -> String {
    json!({"Transform": "AWS::LanguageExtensions",
        "Resources": {"P": {"Type": "AWS::SSM::Parameter",
        "Properties": {"Type": "String", "Value": value}}}})
    .to_string()
}

fn kind_of(body: &str) -> ErrorKind {
    match resolve_with(body, &[]) {
        Ok(_) => panic!("resolved"),
        Err(e) => e.kind().clone(),
    }
}

fn too_large(function: Function) -> ErrorKind {
    ErrorKind::ValueTooLarge { function, max: MAX }
}

/// The property's evaluated value.
fn value_of(body: &str) -> Value {
    let (props, _) = run(body, &[]);
    props["P"]["Value"].clone()
}

fn attack(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/templates/budget")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_issues_attack_templates_are_refused() {
    // Unbounded, these reach 5 GB, 742 MB and 2 GB; each is about 1 KB.
    let cases = [
        ("base64-nested.json", Function::Base64),
        ("sub-doubling.json", Function::Sub),
        ("tojsonstring-nested.json", Function::ToJsonString),
    ];
    for (name, function) in cases {
        let body = attack(name);
        assert!(body.len() < 1_200, "{name} is {} bytes", body.len());
        let err = resolve_with(&body, &[]).map(|_| ()).expect_err(name);
        assert_eq!(err.kind(), &too_large(function), "{name}");
        assert!(
            err.path()
                .to_string()
                .starts_with("Resources/Payload/Properties/Value/Fn::"),
            "{name}: {}",
            err.path()
        );
        assert!(
            err.to_string().starts_with(&format!(
                "Template error: [/Resources/Payload/Properties/Value/{}] ",
                err.path().segments()[4]
            )),
            "{err}"
        );
        assert!(
            err.to_string().ends_with(&format!(
                "{} produces a value larger than the maximum of 1000000 bytes",
                function.name()
            )),
            "{err}"
        );
    }
}

#[test]
fn base64_at_the_limit_and_over() {
    // 750,000 bytes encode to exactly 1,000,000; one more byte encodes to 1,000,004.
    let at = value_of(&with_value(json!({"Fn::Base64": "a".repeat(750_000)})));
    assert_eq!(at.as_str().map(str::len), Some(MAX));
    let over = with_value(json!({"Fn::Base64": "a".repeat(750_001)}));
    assert_eq!(kind_of(&over), too_large(Function::Base64));
}

#[test]
fn sub_at_the_limit_and_over() {
    let half = "a".repeat(MAX / 2);
    let at = with_value(json!({"Fn::Sub": ["${v}${v}", {"v": half}]}));
    assert_eq!(value_of(&at).as_str().map(str::len), Some(MAX));
    let over = with_value(json!({"Fn::Sub": ["${v}${v}!", {"v": half}]}));
    assert_eq!(kind_of(&over), too_large(Function::Sub));
    // Literal text counts too.
    let literal = with_value(json!({"Fn::Sub": "b".repeat(MAX + 1)}));
    assert_eq!(kind_of(&literal), too_large(Function::Sub));
}

#[test]
fn join_at_the_limit_and_over() {
    let half = "a".repeat(MAX / 2 - 1);
    let at = with_value(json!({"Fn::Join": ["--", [half, half]]}));
    assert_eq!(value_of(&at).as_str().map(str::len), Some(MAX));
    let over = with_value(json!({"Fn::Join": ["---", [half, half]]}));
    assert_eq!(kind_of(&over), too_large(Function::Join));
}

#[test]
fn to_json_string_at_the_limit_and_over() {
    // Under AWS::LanguageExtensions the processed template holds at most 1,000,000 bytes, so
    // the large text is made by Fn::Sub (999 copies of a 1,000-byte variable and `extra`
    // bytes); ["s"] is the text plus 4 bytes.
    let text = |extra: usize| {
        json!({"Fn::Sub": [format!("{}{}", "${v}".repeat(999), "t".repeat(extra)),
            {"v": "s".repeat(1_000)}]})
    };
    let at = with_value_le(json!({"Fn::ToJsonString": [text(996)]}));
    assert_eq!(value_of(&at).as_str().map(str::len), Some(MAX));
    let over = with_value_le(json!({"Fn::ToJsonString": [text(997)]}));
    assert_eq!(kind_of(&over), too_large(Function::ToJsonString));
}

#[test]
fn split_at_the_limit_and_over() {
    // One long piece and 999 one-byte pieces: the list's JSON is the long piece + 4,000 bytes.
    let text = |long: usize| format!("{}{}", "X".repeat(long), ",a".repeat(999));
    let at = with_value(json!({"Fn::Select": [0, {"Fn::Split": [",", text(MAX - 4_000)]}]}));
    assert_eq!(value_of(&at).as_str().map(str::len), Some(MAX - 4_000));
    let over = with_value(json!({"Fn::Select": [0, {"Fn::Split": [",", text(MAX - 3_999)]}]}));
    assert_eq!(kind_of(&over), too_large(Function::Split));
    // Many delimiters make many values: counted before the list is made.
    let commas = with_value(json!({"Fn::Select": [0, {"Fn::Split": [",", ",".repeat(400_000)]}]}));
    assert_eq!(kind_of(&commas), too_large(Function::Split));
}

#[test]
fn find_in_map_at_the_limit_and_over() {
    let body = |len: usize| {
        json!({"Mappings": {"M": {"k": {"v": "m".repeat(len)}}},
            "Resources": {"P": {"Type": "AWS::SSM::Parameter",
            "Properties": {"Type": "String", "Value": {"Fn::FindInMap": ["M", "k", "v"]}}}}})
        .to_string()
    };
    assert_eq!(value_of(&body(MAX)).as_str().map(str::len), Some(MAX));
    assert_eq!(kind_of(&body(MAX + 1)), too_large(Function::FindInMap));
}

#[test]
fn a_mapping_copied_many_times_runs_out_of_evaluation_bytes() {
    // A 300 KB attribute found 300 times: 90 MB of copies, each under the value limit.
    let items: Vec<Value> = (0..300)
        .map(|_| json!({"Fn::FindInMap": ["M", "k", "v"]}))
        .collect();
    let body = json!({"Mappings": {"M": {"k": {"v": "m".repeat(300_000)}}},
        "Resources": {"P": {"Type": "AWS::SSM::Parameter",
        "Properties": {"Type": "StringList", "Value": items}}}})
    .to_string();
    assert_eq!(kind_of(&body), ErrorKind::Budget(Budget::Bytes));
}

#[test]
fn many_large_values_run_out_of_evaluation_bytes() {
    // 40 values of 1,000,000 bytes made by Fn::Sub from 5 KB each: each is allowed, together
    // they are over the evaluation's 32 MiB.
    let large = json!({"Fn::Sub": ["${v}".repeat(1_000), {"v": "a".repeat(1_000)}]});
    let body = with_value(Value::Array(vec![large.clone(); 40]));
    assert!(body.len() < 250_000);
    assert_eq!(kind_of(&body), ErrorKind::Budget(Budget::Bytes));
    let fewer = with_value(Value::Array(vec![large; 10]));
    assert!(resolve_with(&fewer, &[]).is_ok());
}

#[test]
fn parameter_values_are_at_most_4096_bytes() {
    let body = "Parameters:\n  P: {Type: String}\nResources:\n  Q: {Type: AWS::SQS::Queue, Properties: {QueueName: !Ref P}}\n";
    let at = "v".repeat(4_096);
    assert!(resolve_with(body, &[("P", &at)]).is_ok());
    let over = "v".repeat(4_097);
    let err = resolve_with(body, &[("P", &over)])
        .map(|_| ())
        .expect_err("4097");
    assert_eq!(
        err.kind(),
        &ErrorKind::ParameterValueTooLarge {
            key: "P".into(),
            max: 4_096
        }
    );
    assert_eq!(
        err.to_string(),
        "Parameter 'P' must not be longer than 4096 bytes"
    );
    // Defaults too.
    let default = format!("Parameters:\n  P: {{Type: String, Default: {over}}}\nResources:\n  Q: {{Type: AWS::SQS::Queue}}\n");
    assert_eq!(
        resolve_with(&default, &[])
            .map(|_| ())
            .expect_err("default")
            .kind(),
        &ErrorKind::ParameterValueTooLarge {
            key: "P".into(),
            max: 4_096
        }
    );
}

#[test]
fn a_parameter_joined_many_times_is_bounded() {
    // 300 references to a 4,096-byte parameter: 1.2 MB, over the value limit.
    let refs: Vec<Value> = (0..300).map(|_| json!({"Ref": "P"})).collect();
    let body = json!({"Parameters": {"P": {"Type": "String"}},
        "Resources": {"Q": {"Type": "AWS::SSM::Parameter",
        "Properties": {"Type": "String", "Value": {"Fn::Join": ["", refs]}}}}})
    .to_string();
    let value = "p".repeat(4_096);
    let err = resolve_with(&body, &[("P", &value)])
        .map(|_| ())
        .expect_err("join");
    assert_eq!(err.kind(), &too_large(Function::Join));
}

#[test]
fn the_description_is_at_most_1024_bytes() {
    let q = "Resources:\n  Q: {Type: AWS::SQS::Queue}\n";
    assert!(Template::parse(&format!("Description: {}\n{q}", "d".repeat(1_024))).is_ok());
    let err =
        Template::parse(&format!("Description: {}\n{q}", "d".repeat(1_025))).expect_err("1025");
    assert_eq!(
        err.to_string(),
        "Template format error: 'Description' length is greater than 1024."
    );
}

#[test]
fn for_each_copies_are_bounded_by_the_processed_template_size() {
    // Each copy is about 100 KB: 9 fit in 1,000,000 bytes, 11 do not.
    let body = |n: usize| {
        let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
        json!({"Transform": "AWS::LanguageExtensions",
            "Resources": {"Fn::ForEach::L": ["N", names, {"P${N}": {"Type": "AWS::SSM::Parameter",
                "Properties": {"Type": "String", "Value": "v".repeat(100_000)}}}]}})
        .to_string()
    };
    assert!(resolve_with(&body(9), &[]).is_ok());
    let err = Template::parse(&body(11)).expect_err("11 copies");
    assert_eq!(err.kind(), &ErrorKind::TransformationDataLimit);
    assert_eq!(err.to_string(), "Transformation data limit exceeded");
    assert_eq!(err.path().to_string(), "Resources/Fn::ForEach::L");
    // Substitutions are counted before they are made: a 1 KB item in 1,000 places per copy.
    let item = "i".repeat(1_000);
    let wide = json!({"Transform": "AWS::LanguageExtensions",
        "Parameters": {"Items": {"Type": "CommaDelimitedList"}},
        "Resources": {"Fn::ForEach::L": ["N", {"Ref": "Items"}, {"P&{N}": {"Type": "AWS::SSM::Parameter",
            "Properties": {"Type": "String", "Value": "${N}".repeat(1_000)}}}]}})
    .to_string();
    let items = format!("{item},{item}");
    let err = resolve_with(&wide, &[("Items", &items)])
        .map(|_| ())
        .expect_err("wide");
    assert_eq!(err.kind(), &ErrorKind::TransformationDataLimit);
}

#[test]
fn values_known_only_at_execution_are_bounded_too() {
    // The static evaluation cannot size Fn::Base64 of a resource's value; execution refuses it.
    let mut value = json!({"Ref": "Q"});
    for _ in 0..60 {
        value = json!({"Fn::Base64": value});
    }
    let body = json!({"Resources": {"Q": {"Type": "AWS::SQS::Queue"},
        "P": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": value}}}})
    .to_string();
    let (t, params, resolved) = resolve_with(&body, &[]).expect("resolves statically");
    let created = Created { exports: vec![] };
    let pseudo = pseudo();
    let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &created);
    assert!(ev.resource_properties("Q").is_ok());
    let err = ev.resource_properties("P").expect_err("too large");
    assert_eq!(err.kind(), &too_large(Function::Base64));
    assert!(
        err.path()
            .to_string()
            .starts_with("Resources/P/Properties/Value/Fn::Base64/"),
        "{}",
        err.path()
    );
}

/// Every resource's Ref is a 100,000-byte text.
struct Large;

impl ResourceValues for Large {
    fn ref_value(&self, _: &str) -> Option<Value> {
        Some(Value::String("r".repeat(100_000)))
    }
    fn attribute(&self, _: &str, _: &str) -> Option<Value> {
        None
    }
    fn import_value(&self, _: &str) -> Option<String> {
        None
    }
}

#[test]
fn one_stack_operation_keeps_a_bounded_amount() {
    // 80 resources each keep 1,000,000 bytes made from a resource's value: the operation stops
    // past 64 MiB, the first ones are evaluated.
    let mut resources = serde_json::Map::new();
    resources.insert("Src".into(), json!({"Type": "AWS::SQS::Queue"}));
    let refs: Vec<Value> = (0..10).map(|_| json!({"Ref": "Src"})).collect();
    for i in 0..80 {
        resources.insert(
            format!("P{i}"),
            json!({"Type": "AWS::SSM::Parameter",
                "Properties": {"Type": "String", "Value": {"Fn::Join": ["", refs]}}}),
        );
    }
    let body = json!({"Resources": resources}).to_string();
    let (t, params, resolved) = resolve_with(&body, &[]).expect("resolves");
    let pseudo = pseudo();
    let mut evaluated = 0;
    let err = loop {
        let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &Large);
        match ev.resource_properties(&format!("P{evaluated}")) {
            Ok(_) => evaluated += 1,
            Err(e) => break e,
        }
        assert!(evaluated < 80, "the operation budget never ran out");
    };
    assert_eq!(err.kind(), &ErrorKind::Budget(Budget::OperationBytes));
    assert!(evaluated >= 60, "only {evaluated} evaluated");
    // A new resolution (the next operation) starts afresh.
    let again = t.resolve(&params, &pseudo).expect("resolves");
    let ev = Evaluator::new(&t, &params, &pseudo, &again, &Large);
    assert!(ev.resource_properties("P0").is_ok());
}

#[test]
fn select_over_a_large_list_copies_nothing_more() {
    let items: Vec<Value> = (0..2_000).map(|i| json!(format!("item-{i}"))).collect();
    let body = with_value(json!({"Fn::Select": [1_999, items]}));
    assert_eq!(value_of(&body), json!("item-1999"));
}

#[test]
fn the_largest_template_aws_accepts_fits_the_budgets() {
    // Just under 1,000,000 bytes (the S3 template quota), as dense as JSON gets: 500 resources
    // whose properties are lists of one-digit numbers, all of it evaluated statically.
    let digits = Value::Array(vec![json!(1); 950]);
    let mut resources = serde_json::Map::new();
    for i in 0..500 {
        resources.insert(
            format!("P{i}"),
            json!({"Type": "AWS::SSM::Parameter",
                "Properties": {"Type": "StringList", "Value": digits}}),
        );
    }
    let body = json!({"Resources": resources}).to_string();
    assert!(
        (990_000..limits::MAX_TEMPLATE_BYTES).contains(&body.len()),
        "{}",
        body.len()
    );
    let (t, params, resolved) = resolve_with(&body, &[]).expect("resolves");
    let pseudo = pseudo();
    let created = Created { exports: vec![] };
    for id in &resolved.order {
        let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &created);
        ev.resource_properties(id).expect("evaluates");
    }
}
