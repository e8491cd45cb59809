//! Table tests of the state machine store: definitions, names, role ARNs, idempotent
//! creation, revisions on update, deletion.

use chrono::TimeZone;

use super::*;

const PASS: &str = r#"{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}"#;
const ROLE: &str = "arn:aws:iam::000000000000:role/sfn";

fn states() -> States {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    States::new(clock, IdGen::seeded(5), Storage::memory())
}

fn input(name: &str) -> CreateStateMachineInput {
    CreateStateMachineInput {
        name: name.into(),
        definition: PASS.into(),
        role_arn: ROLE.into(),
        ..Default::default()
    }
}

#[test]
fn definitions_are_checked_with_the_services_words() {
    assert_eq!(check_definition(PASS), Ok(()));
    let cases = [
        (
            r#"{"States":{}}"#,
            "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: [StartAt] at /'",
        ),
        (
            r#"{}"#,
            "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: [StartAt, States] at /'",
        ),
        (
            r#"{"StartAt":"A","States":{}}"#,
            "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Value cannot be empty at /States'",
        ),
        (
            r#"{"StartAt":"B","States":{"A":{"Type":"Pass","End":true}}}"#,
            "Invalid State Machine Definition: 'MISSING_TRANSITION_TARGET: Missing 'Next' target: B at /StartAt'",
        ),
        (
            r#"{"StartAt":"A","States":{"A":{"Type":"Sleep"}}}"#,
            "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The field 'Type' should have one of these values: [Task, Wait, Pass, Succeed, Fail, Choice, Parallel, Map] at /States/A/Type'",
        ),
        (
            r#"{"StartAt":"A","States":{"A":{}}}"#,
            "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: [Type] at /States/A'",
        ),
        (
            r#"[1]"#,
            "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Expected value of type: Object at /'",
        ),
    ];
    for (definition, message) in cases {
        assert_eq!(
            check_definition(definition).unwrap_err().to_string(),
            message,
            "{definition}"
        );
    }
    let err = check_definition("{not json").unwrap_err();
    assert_eq!(err.code(), "InvalidDefinition");
    assert!(err
        .to_string()
        .starts_with("Invalid State Machine Definition: 'INVALID_JSON_DESCRIPTION: "));
}

#[test]
fn names_roles_and_types_are_checked() {
    let s = states();
    let scope = Scope::default_scope();
    assert_eq!(
        s.create_state_machine(&scope, input("has space"))
            .unwrap_err(),
        Error::InvalidName("Invalid Name: 'has space'".into())
    );
    assert_eq!(
        s.create_state_machine(&scope, input(&"n".repeat(81)))
            .unwrap_err()
            .code(),
        "ValidationException"
    );
    let bad_role = CreateStateMachineInput {
        role_arn: "sfn".into(),
        ..input("a")
    };
    assert_eq!(
        s.create_state_machine(&scope, bad_role).unwrap_err(),
        Error::InvalidArn("Invalid Arn: 'Invalid ARN prefix: sfn'".into())
    );
    let not_role = CreateStateMachineInput {
        role_arn: "arn:aws:sqs:us-east-1:000000000000:q".into(),
        ..input("a")
    };
    assert_eq!(
        s.create_state_machine(&scope, not_role).unwrap_err(),
        Error::InvalidArn("Invalid Arn: 'Resource type not valid in this context: q'".into())
    );
    let bad_type = CreateStateMachineInput {
        r#type: Some("FAST".into()),
        ..input("a")
    };
    assert_eq!(
        s.create_state_machine(&scope, bad_type).unwrap_err().code(),
        "ValidationException"
    );
    let tags = CreateStateMachineInput {
        tags: (0..51).map(|i| (format!("k{i}"), String::new())).collect(),
        ..input("a")
    };
    assert_eq!(
        s.create_state_machine(&scope, tags).unwrap_err().code(),
        "TooManyTags"
    );
}

#[test]
fn create_is_idempotent_update_revises_delete_is_quiet() {
    let s = states();
    let scope = Scope::default_scope();
    let m = s.create_state_machine(&scope, input("flow")).unwrap();
    assert_eq!(
        m.arn,
        "arn:aws:states:us-east-1:000000000000:stateMachine:flow"
    );
    assert_eq!(m.r#type, "STANDARD");
    assert_eq!(s.create_state_machine(&scope, input("flow")).unwrap(), m);
    let other = CreateStateMachineInput {
        role_arn: "arn:aws:iam::000000000000:role/other".into(),
        ..input("flow")
    };
    assert_eq!(
        s.create_state_machine(&scope, other).unwrap_err(),
        Error::StateMachineAlreadyExists(format!("State Machine Already Exists: '{}'", m.arn))
    );
    let same = s
        .update_state_machine(&m.arn, UpdateStateMachineInput::default())
        .unwrap();
    assert_eq!(same.revision_id, m.revision_id);
    let changed = s
        .update_state_machine(
            &m.arn,
            UpdateStateMachineInput {
                definition: Some(r#"{"StartAt":"B","States":{"B":{"Type":"Succeed"}}}"#.into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_ne!(changed.revision_id, m.revision_id);
    assert!(s
        .update_state_machine(
            &m.arn,
            UpdateStateMachineInput {
                definition: Some("{}".into()),
                ..Default::default()
            }
        )
        .is_err());
    let tags: BTreeMap<String, String> = [("a".to_string(), "b".to_string())].into();
    s.tag_resource(&m.arn, &tags).unwrap();
    assert_eq!(s.describe_state_machine(&m.arn).unwrap().tags, tags);
    s.untag_resource(&m.arn, &["a".to_string()]).unwrap();
    assert_eq!(s.list_state_machines(&scope).len(), 1);
    s.delete_state_machine(&m.arn).unwrap();
    s.delete_state_machine(&m.arn).unwrap();
    assert_eq!(
        s.describe_state_machine(&m.arn).unwrap_err(),
        Error::StateMachineDoesNotExist(format!("State Machine Does Not Exist: '{}'", m.arn))
    );
    assert_eq!(
        s.describe_state_machine("flow").unwrap_err().code(),
        "InvalidArn"
    );
}

#[test]
fn a_new_store_over_the_same_storage_reloads_state_machines() {
    let storage = crate::services::test_backend::storage();
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let scope = Scope::default_scope();
    let first = States::new(clock.clone(), IdGen::seeded(1), storage.clone());
    let kept = first.create_state_machine(&scope, input("kept")).unwrap();
    let dropped = first
        .create_state_machine(&scope, input("dropped"))
        .unwrap();
    first.delete_state_machine(&dropped.arn).unwrap();
    let second = States::new(clock, IdGen::seeded(2), storage);
    assert_eq!(second.list_state_machines(&scope), [kept]);
}

#[test]
fn every_coral_violation_of_create_state_machine_is_reported() {
    let err = states()
        .create_state_machine(
            &Scope::new("000000000000", "us-east-1"),
            CreateStateMachineInput {
                r#type: Some("BATCH".into()),
                ..input(&"m".repeat(81))
            },
        )
        .unwrap_err();
    assert_eq!(
        err,
        Error::Validation(format!(
            "2 validation errors detected: Value '{}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 80; Value 'BATCH' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, EXPRESS]",
            "m".repeat(81)
        ))
    );
}
