//! Errors as callers see them: a kind to branch on and the template path they concern, with
//! the message rendered from both.

use super::*;

fn parse_error(body: &str) -> TemplateError {
    Template::parse(body).expect_err(body)
}

fn resolve_error(body: &str) -> TemplateError {
    match resolve_with(body, &[]) {
        Ok(_) => panic!("no error for {body}"),
        Err(e) => e,
    }
}

#[test]
fn errors_carry_a_kind_and_the_path_they_concern() {
    let q = "Resources:\n  Q: {Type: AWS::SQS::Queue}\n";
    let cases: Vec<(TemplateError, ErrorKind, &str)> = vec![
        (
            parse_error("Resources:\n  Q: {Type: AWS::SQS::Queue, Properties: {Tags: [{Key: k, Value: !Join [',']}]}}\n"),
            ErrorKind::Shape(Function::Join),
            "Resources/Q/Properties/Tags/0/Value/Fn::Join",
        ),
        (
            parse_error("Resources:\n  Q: {Type: AWS::SQS::Queue, Properties: {QueueName: !Sub ['${A}', {A: !Ref Nope}]}}\n"),
            ErrorKind::Unresolved {
                names: vec!["Nope".into()],
                block: Block::Resources,
            },
            "Resources",
        ),
        (
            parse_error("Resources:\n  Q:\n    Properties: {}\n"),
            ErrorKind::ResourceWithoutType,
            "Resources/Q",
        ),
        (
            parse_error(&format!("{q}Outputs:\n  O: {{Value: x, Export: {{}}}}\n")),
            ErrorKind::ExportWithoutName,
            "Outputs/O/Export",
        ),
        (
            parse_error("Resources:\n  Q: {Type: AWS::SQS::Queue, Properties: {QueueName: ~}}\n"),
            ErrorKind::NullValue,
            "Resources/Q/Properties/QueueName",
        ),
        (
            parse_error("Resources:\n  Q: {Type: AWS::SQS::Queue, DeletionPolicy: Keep}\n"),
            ErrorKind::UnsupportedPolicy("DeletionPolicy".into()),
            "Resources/Q/DeletionPolicy",
        ),
        (
            parse_error(&format!("Parameters:\n  P: {{Type: Strin}}\n{q}")),
            ErrorKind::UnrecognizedParameterType("Strin".into()),
            "Parameters/P",
        ),
        (
            parse_error(&format!("Conditions:\n  C: !Equals [!Ref Q, a]\n{q}")),
            ErrorKind::Unresolved {
                names: vec!["Q".into()],
                block: Block::Conditions,
            },
            "Conditions/C",
        ),
        (
            resolve_error("Mappings:\n  M: {a: {b: c}}\nResources:\n  Q: {Type: AWS::SQS::Queue, Properties: {QueueName: !FindInMap [M, a, x]}}\n"),
            ErrorKind::MappingMissing {
                map: "M".into(),
                top: "a".into(),
                second: "x".into(),
            },
            "Resources/Q/Properties/QueueName/Fn::FindInMap",
        ),
        (
            resolve_error(&format!("{q}Outputs:\n  O: {{Value: !Select [5, [a]]}}\n")),
            ErrorKind::SelectIndex("5".into()),
            "Outputs/O/Value/Fn::Select",
        ),
        (
            parse_error("Resources:\n  A: {Type: AWS::SQS::Queue, DependsOn: B}\n  B: {Type: AWS::SQS::Queue, DependsOn: A}\n"),
            ErrorKind::CircularResources(vec!["A".into(), "B".into()]),
            "",
        ),
    ];
    for (err, kind, path) in cases {
        assert_eq!(err.kind(), &kind, "{err}");
        assert_eq!(err.path().to_string(), path, "{err}");
    }
}

/// The renderers are split by subject; a kind none of them takes would print its Debug form.
fn assert_rendered(kinds: Vec<ErrorKind>) {
    for kind in kinds {
        let debug = format!("{kind:?}");
        let name = debug.split(['(', ' ', '{']).next().unwrap_or_default();
        let text = TemplateError::new(kind).to_string();
        assert!(
            !text.starts_with(name),
            "{name} renders as its Debug form: {text}"
        );
        assert!(!text.is_empty(), "{name}");
    }
}

#[test]
fn every_declaration_kind_renders_a_message() {
    assert_rendered(vec![
        ErrorKind::JsonNotWellFormed { line: 1, column: 2 },
        ErrorKind::YamlNotWellFormed { line: 1, column: 2 },
        ErrorKind::YamlAlias { line: 1, column: 2 },
        ErrorKind::UnsupportedStructure,
        ErrorKind::NullValue,
        ErrorKind::InvalidSections(vec!["X".into()]),
        ErrorKind::UnsupportedFormatVersion,
        ErrorKind::DescriptionNotString,
        ErrorKind::DescriptionTooLong { max: 1024 },
        ErrorKind::SectionNotObject("Outputs".into()),
        ErrorKind::TransformWithoutName,
        ErrorKind::TransformShape,
        ErrorKind::UnsupportedTransform("T".into()),
        ErrorKind::Quota {
            quota: Quota::Mappings,
            count: 201,
            max: 200,
        },
        ErrorKind::NonAlphanumeric {
            what: Named::Output,
            name: "a-b".into(),
        },
        ErrorKind::ParameterNotObject,
        ErrorKind::InvalidParameterProperty("K".into()),
        ErrorKind::ParameterWithoutType,
        ErrorKind::UnrecognizedParameterType("T".into()),
        ErrorKind::MemberNotString("Default".into()),
        ErrorKind::MemberNotNumber("MinValue".into()),
        ErrorKind::MemberNotCount("MinLength".into()),
        ErrorKind::AllowedValuesNotList,
        ErrorKind::AllowedValueNotString,
        ErrorKind::MappingNotMap("M".into()),
        ErrorKind::MappingAttributeShape,
        ErrorKind::ConditionNotObject("C".into()),
        ErrorKind::RuleNotObject("R".into()),
        ErrorKind::InvalidRuleProperty {
            key: "K".into(),
            rule: "R".into(),
        },
        ErrorKind::RuleWithoutAssertions("R".into()),
        ErrorKind::AssertionWithoutAssert("R".into()),
        ErrorKind::AssertDescriptionNotString("R".into()),
        ErrorKind::NoResources,
        ErrorKind::ResourceNotObject,
        ErrorKind::ResourceWithoutType,
        ErrorKind::InvalidResourceProperty("K".into()),
        ErrorKind::PropertiesNotObject,
        ErrorKind::DependsOnShape,
        ErrorKind::ConditionNotString,
        ErrorKind::UnsupportedPolicy("DeletionPolicy".into()),
        ErrorKind::OutputWithoutValue,
        ErrorKind::InvalidOutputProperty("K".into()),
        ErrorKind::ExportWithoutName,
        ErrorKind::UnrecognizedResourceTypes(vec!["A::B::C".into()]),
    ]);
}

#[test]
fn every_evaluation_kind_renders_a_message() {
    assert_rendered(vec![
        ErrorKind::ParametersNotExpected,
        ErrorKind::ParametersNotInTemplate(vec!["P".into()]),
        ErrorKind::NoPreviousValue("P".into()),
        ErrorKind::ParametersMissing(vec!["P".into()]),
        ErrorKind::ParameterNotNumber("P".into()),
        ErrorKind::ParameterConstraint {
            key: "P".into(),
            constraint: Constraint::MinLength(3),
            description: None,
        },
        ErrorKind::ParameterValueTooLarge {
            key: "P".into(),
            max: 4096,
        },
        ErrorKind::SsmParametersUnfetched(vec!["/a".into()]),
        ErrorKind::Unresolved {
            names: vec!["X".into()],
            block: Block::Rules,
        },
        ErrorKind::CircularResources(vec!["A".into()]),
        ErrorKind::CircularConditions(vec!["C".into()]),
        ErrorKind::UnresolvedCondition {
            name: "C".into(),
            function: "Fn::If".into(),
        },
        ErrorKind::ConditionsBoolean,
        ErrorKind::ConditionFunctionOutside("Fn::Equals".into()),
        ErrorKind::AssertionFailed {
            rule: "R".into(),
            description: None,
        },
        ErrorKind::UnsupportedFunction {
            name: "Fn::X".into(),
            language_extensions: true,
        },
        ErrorKind::Shape(Function::ToJsonString),
        ErrorKind::GetAttUndefined("A".into()),
        ErrorKind::GetAttAttribute {
            resource: "A".into(),
            attribute: "B".into(),
        },
        ErrorKind::OutputGetAttAttribute {
            output: "O".into(),
            type_name: "T".into(),
            attribute: "B".into(),
        },
        ErrorKind::ImportValueDependsOnResource,
        ErrorKind::ExportMissing("E".into()),
        ErrorKind::SelectIndex("9".into()),
        ErrorKind::MappingMissing {
            map: "M".into(),
            top: "a".into(),
            second: "b".into(),
        },
        ErrorKind::SubVariableName,
        ErrorKind::SubNotString("V".into()),
        ErrorKind::Cidr(CidrProblem::Count),
        ErrorKind::ForEachShape("Fn::ForEach::L".into()),
        ErrorKind::ForEachDuplicateKey {
            name: "Fn::ForEach::L".into(),
            key: "K".into(),
        },
        ErrorKind::ForEachCollection,
        ErrorKind::TransformationDataLimit,
        ErrorKind::ValueTooLarge {
            function: Function::Sub,
            max: 10,
        },
        ErrorKind::Budget(Budget::Depth),
        ErrorKind::Budget(Budget::Steps),
        ErrorKind::Budget(Budget::Bytes),
        ErrorKind::Budget(Budget::OperationBytes),
        ErrorKind::NotAvailable,
        ErrorKind::ResourceNotInStack("Q".into()),
        ErrorKind::OutputNotInStack("O".into()),
    ]);
}
