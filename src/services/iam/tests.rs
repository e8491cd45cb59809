//! Table tests of the IAM store: names, paths, ARNs and ids, duplicates, deletion rules.

use chrono::TimeZone;

use super::*;

const TRUST: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"scheduler.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;
const ACCOUNT: &str = "000000000000";

fn iam() -> Iam {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    Iam::new(clock, IdGen::seeded(9), Storage::memory())
}

fn role(name: &str) -> CreateRoleInput {
    CreateRoleInput {
        role_name: name.to_string(),
        assume_role_policy_document: TRUST.to_string(),
        ..Default::default()
    }
}

#[test]
fn roles_get_aws_arns_ids_and_defaults() {
    let iam = iam();
    let r = iam.create_role(ACCOUNT, role("SchedulerRole")).unwrap();
    assert_eq!(r.arn, "arn:aws:iam::000000000000:role/SchedulerRole");
    assert_eq!(r.path, "/");
    assert_eq!(r.max_session_duration, 3600);
    assert!(r.role_id.starts_with("AROA"));
    assert_eq!(r.role_id.len(), 21);
    assert!(r.role_id[4..]
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()));
    let pathed = iam
        .create_role(
            ACCOUNT,
            CreateRoleInput {
                path: Some("/service/".into()),
                ..role("Pathed")
            },
        )
        .unwrap();
    assert_eq!(pathed.arn, "arn:aws:iam::000000000000:role/service/Pathed");
    assert_eq!(iam.get_role(ACCOUNT, "pathed").unwrap().role_name, "Pathed");
    assert_eq!(iam.list_roles(ACCOUNT, Some("/service/")).len(), 1);
    assert_eq!(iam.list_roles(ACCOUNT, None).len(), 2);
    assert!(iam.list_roles("111111111111", None).is_empty());
}

#[test]
fn create_role_errors() {
    let iam = iam();
    iam.create_role(ACCOUNT, role("Dup")).unwrap();
    let cases: Vec<(CreateRoleInput, Error)> = vec![
        (
            role("dup"),
            Error::EntityAlreadyExists("Role with name dup already exists.".into()),
        ),
        (
            role("bad name"),
            validation(
                "bad name",
                "roleName",
                "Member must satisfy regular expression pattern: [\\w+=,.@-]+",
            ),
        ),
        (
            role(&"r".repeat(65)),
            validation(
                &"r".repeat(65),
                "roleName",
                "Member must have length less than or equal to 64",
            ),
        ),
        (
            CreateRoleInput {
                max_session_duration: Some(43_201),
                ..role("Long")
            },
            validation(
                "43201",
                "maxSessionDuration",
                "Member must have value less than or equal to 43200",
            ),
        ),
        (
            CreateRoleInput {
                max_session_duration: Some(3599),
                ..role("Short")
            },
            validation(
                "3599",
                "maxSessionDuration",
                "Member must have value greater than or equal to 3600",
            ),
        ),
        (
            CreateRoleInput {
                path: Some("nopath".into()),
                ..role("Path")
            },
            Error::InvalidInput("The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.".into()),
        ),
        (
            CreateRoleInput {
                assume_role_policy_document: "{not json".into(),
                ..role("Doc")
            },
            Error::MalformedPolicyDocument("This policy contains invalid Json".into()),
        ),
    ];
    for (input, want) in cases {
        let name = input.role_name.clone();
        assert_eq!(iam.create_role(ACCOUNT, input), Err(want), "{name}");
    }
}

#[test]
fn inline_and_managed_policies_block_role_deletion() {
    let iam = iam();
    iam.create_role(ACCOUNT, role("R")).unwrap();
    let policy = iam
        .create_policy(
            ACCOUNT,
            CreatePolicyInput {
                policy_name: "P".into(),
                policy_document: r#"{"Version":"2012-10-17","Statement":[]}"#.into(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(policy.arn, "arn:aws:iam::000000000000:policy/P");
    assert!(policy.policy_id.starts_with("ANPA"));
    assert!(matches!(
        iam.create_policy(
            ACCOUNT,
            CreatePolicyInput {
                policy_name: "p".into(),
                policy_document: "{}".into(),
                ..Default::default()
            }
        ),
        Err(Error::EntityAlreadyExists(_))
    ));
    iam.put_role_policy(ACCOUNT, "R", "inline", r#"{"Statement":[]}"#)
        .unwrap();
    iam.attach_role_policy(ACCOUNT, "R", &policy.arn).unwrap();
    iam.attach_role_policy(ACCOUNT, "R", "arn:aws:iam::aws:policy/AdministratorAccess")
        .unwrap();
    assert_eq!(
        iam.attach_role_policy(ACCOUNT, "R", "arn:aws:iam::000000000000:policy/Nope"),
        Err(Error::NoSuchEntity(
            "Policy arn:aws:iam::000000000000:policy/Nope does not exist or is not attachable."
                .into()
        ))
    );
    assert_eq!(iam.attachment_count(&policy.arn), 1);
    assert_eq!(
        iam.delete_policy(&policy.arn),
        Err(Error::DeleteConflict(
            "Cannot delete a policy attached to entities.".into()
        ))
    );
    assert_eq!(
        iam.delete_role(ACCOUNT, "R"),
        Err(Error::DeleteConflict(
            "Cannot delete entity, must delete policies first.".into()
        ))
    );
    assert_eq!(
        iam.list_role_policies(ACCOUNT, "R").unwrap(),
        vec!["inline"]
    );
    iam.delete_role_policy(ACCOUNT, "R", "inline").unwrap();
    assert_eq!(
        iam.get_role_policy(ACCOUNT, "R", "inline"),
        Err(Error::NoSuchEntity(
            "The role policy with name inline cannot be found.".into()
        ))
    );
    assert_eq!(
        iam.delete_role(ACCOUNT, "R"),
        Err(Error::DeleteConflict(
            "Cannot delete entity, must detach all policies first.".into()
        ))
    );
    iam.detach_role_policy(ACCOUNT, "R", &policy.arn).unwrap();
    iam.detach_role_policy(ACCOUNT, "R", "arn:aws:iam::aws:policy/AdministratorAccess")
        .unwrap();
    assert!(matches!(
        iam.detach_role_policy(ACCOUNT, "R", &policy.arn),
        Err(Error::NoSuchEntity(_))
    ));
    iam.delete_role(ACCOUNT, "R").unwrap();
    assert_eq!(
        iam.delete_role(ACCOUNT, "R"),
        Err(Error::NoSuchEntity(
            "The role with name R cannot be found.".into()
        ))
    );
    iam.delete_policy(&policy.arn).unwrap();
    assert!(iam.get_policy(&policy.arn).is_err());
}

#[test]
fn updates_and_tags() {
    let iam = iam();
    iam.create_role(ACCOUNT, role("U")).unwrap();
    iam.update_role(ACCOUNT, "U", Some("desc".into()), Some(7200))
        .unwrap();
    assert!(iam.update_role(ACCOUNT, "U", None, Some(100)).is_err());
    iam.update_assume_role_policy(ACCOUNT, "U", "{}").unwrap();
    assert!(iam.update_assume_role_policy(ACCOUNT, "U", "[]").is_err());
    let mut tags = BTreeMap::new();
    tags.insert("a".to_string(), "1".to_string());
    tags.insert("b".to_string(), "2".to_string());
    iam.tag_role(ACCOUNT, "U", &tags).unwrap();
    iam.untag_role(ACCOUNT, "U", &["a".to_string()]).unwrap();
    let r = iam.get_role(ACCOUNT, "U").unwrap();
    assert_eq!(r.description.as_deref(), Some("desc"));
    assert_eq!(r.max_session_duration, 7200);
    assert_eq!(r.assume_role_policy_document, "{}");
    assert_eq!(r.tags.len(), 1);
    let too_many: BTreeMap<String, String> =
        (0..51).map(|i| (format!("k{i}"), String::new())).collect();
    assert!(matches!(
        iam.tag_role(ACCOUNT, "U", &too_many),
        Err(Error::LimitExceeded(_))
    ));
    let p = iam
        .create_policy(
            ACCOUNT,
            CreatePolicyInput {
                policy_name: "V".into(),
                path: Some("/x/".into()),
                policy_document: "{}".into(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(p.arn, "arn:aws:iam::000000000000:policy/x/V");
    iam.update_policy_document(&p.arn, r#"{"Version":"2012-10-17"}"#)
        .unwrap();
    assert_eq!(iam.get_policy(&p.arn).unwrap().default_version_id, "v2");
    assert_eq!(iam.list_policies(ACCOUNT).len(), 1);
    iam.reset();
    assert!(iam.list_roles(ACCOUNT, None).is_empty());
}

#[test]
fn roles_and_policies_survive_a_restart_over_a_durable_store() {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let storage = crate::services::test_backend::storage();
    let before = Iam::new(clock.clone(), IdGen::seeded(1), storage.clone());
    let role = before.create_role(ACCOUNT, role("Kept")).unwrap();
    before
        .put_role_policy(ACCOUNT, "Kept", "inline", "{}")
        .unwrap();
    let policy = before
        .create_policy(
            ACCOUNT,
            CreatePolicyInput {
                policy_name: "KeptPolicy".into(),
                policy_document: "{}".into(),
                ..Default::default()
            },
        )
        .unwrap();
    let after = Iam::new(clock, IdGen::seeded(2), storage);
    assert_eq!(
        after.get_role(ACCOUNT, "kept").unwrap(),
        Role {
            policies: [("inline".to_string(), "{}".to_string())]
                .into_iter()
                .collect(),
            ..role
        }
    );
    assert_eq!(after.get_policy(&policy.arn).unwrap(), policy);
}

fn validation(value: &str, member: &str, constraint: &str) -> Error {
    Error::from(crate::coral::single(Some(value), member, constraint))
}

#[test]
fn every_coral_violation_of_create_role_is_reported_pattern_before_length() {
    let name = "bad name ".repeat(8);
    let err = iam()
        .create_role(
            ACCOUNT,
            CreateRoleInput {
                max_session_duration: Some(60),
                ..role(&name)
            },
        )
        .unwrap_err();
    assert_eq!(
        err,
        Error::Validation(format!(
            "3 validation errors detected: Value '{name}' at 'roleName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+; Value '{name}' at 'roleName' failed to satisfy constraint: Member must have length less than or equal to 64; Value '60' at 'maxSessionDuration' failed to satisfy constraint: Member must have value greater than or equal to 3600"
        ))
    );
}
