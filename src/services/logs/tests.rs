//! Table tests of the log group store: names, retention values, duplicates, tags, deletion.

use chrono::TimeZone;

use super::*;

fn logs() -> Logs {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    Logs::new(clock, Storage::memory())
}

fn input(name: &str) -> CreateLogGroupInput {
    CreateLogGroupInput {
        log_group_name: name.into(),
        ..Default::default()
    }
}

#[test]
fn names_are_checked_with_the_apis_words() {
    for ok in ["/aws/lambda/fn", "a.b-c_d#e", &"x".repeat(512)] {
        assert_eq!(check_log_group_name(ok), Ok(()), "{ok}");
    }
    assert_eq!(
        check_log_group_name("").unwrap_err().to_string(),
        "2 validation errors detected: Value '' at 'logGroupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_/#A-Za-z0-9]+; Value '' at 'logGroupName' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
    let cases = [
        (
            "has space",
            "Member must satisfy regular expression pattern: [\\.\\-_/#A-Za-z0-9]+",
        ),
        (
            &"x".repeat(513),
            "Member must have length less than or equal to 512",
        ),
    ];
    for (name, constraint) in cases {
        let err = check_log_group_name(name).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("1 validation error detected: Value '{name}' at 'logGroupName' failed to satisfy constraint: {constraint}")
        );
        assert_eq!(err.code(), "ValidationException");
    }
}

#[test]
fn retention_takes_only_the_listed_values() {
    for days in RETENTION_DAYS {
        assert_eq!(check_retention(*days), Ok(()));
    }
    for bad in [0, 2, 4, 366, 3654, -1] {
        let err = check_retention(bad).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "1 validation error detected: Value '{bad}' at 'retentionInDays' failed to satisfy constraint: Member must satisfy enum value set: [1, 3, 5, 7, 14,"
            )),
            "{err}"
        );
    }
}

#[test]
fn create_describe_retention_and_delete() {
    let logs = logs();
    let scope = Scope::default_scope();
    let made = logs.create_log_group(&scope, input("/app/one")).unwrap();
    assert_eq!(
        made.arn(),
        "arn:aws:logs:us-east-1:000000000000:log-group:/app/one:*"
    );
    assert_eq!(made.log_group_class, "STANDARD");
    assert_eq!(
        logs.create_log_group(&scope, input("/app/one")),
        Err(Error::ResourceAlreadyExists(
            "The specified log group already exists".into()
        ))
    );
    logs.put_retention_policy(&scope, "/app/one", 14).unwrap();
    assert_eq!(
        logs.describe_log_group(&scope, "/app/one")
            .unwrap()
            .retention_in_days,
        Some(14)
    );
    assert!(logs.put_retention_policy(&scope, "/app/one", 2).is_err());
    logs.delete_retention_policy(&scope, "/app/one").unwrap();
    assert_eq!(
        logs.describe_log_group(&scope, "/app/one")
            .unwrap()
            .retention_in_days,
        None
    );
    // Another region is another namespace.
    let other = Scope::new("000000000000", "eu-west-1");
    assert!(logs.describe_log_group(&other, "/app/one").is_err());
    assert_eq!(logs.describe_log_groups(&scope, Some("/app")).len(), 1);
    logs.delete_log_group(&scope, "/app/one").unwrap();
    assert_eq!(
        logs.delete_log_group(&scope, "/app/one"),
        Err(Error::log_group_not_found())
    );
    assert_eq!(
        Error::log_group_not_found().to_string(),
        "The specified log group does not exist."
    );
}

#[test]
fn classes_keys_and_tags_are_validated() {
    let logs = logs();
    let scope = Scope::default_scope();
    let bad_class = CreateLogGroupInput {
        log_group_class: Some("COLD".into()),
        ..input("a")
    };
    assert_eq!(
        logs.create_log_group(&scope, bad_class).unwrap_err().code(),
        "ValidationException"
    );
    let bad_key = CreateLogGroupInput {
        kms_key_id: Some("my-key".into()),
        ..input("a")
    };
    assert_eq!(
        logs.create_log_group(&scope, bad_key).unwrap_err(),
        Error::InvalidParameter("Specified KMS key ARN is not valid: my-key".into())
    );
    let tags: BTreeMap<String, String> = (0..51).map(|i| (format!("k{i}"), "v".into())).collect();
    let many = CreateLogGroupInput { tags, ..input("a") };
    assert_eq!(
        logs.create_log_group(&scope, many).unwrap_err().code(),
        "ValidationException"
    );
    logs.create_log_group(&scope, input("a")).unwrap();
    let one: BTreeMap<String, String> = [("team".to_string(), "ops".to_string())].into();
    logs.tag_log_group(&scope, "a", &one).unwrap();
    logs.set_kms_key(
        &scope,
        "a",
        Some("arn:aws:kms:us-east-1:000000000000:key/k"),
    )
    .unwrap();
    let got = logs.describe_log_group(&scope, "a").unwrap();
    assert_eq!(got.tags, one);
    assert!(got.kms_key_id.is_some());
    logs.untag_log_group(&scope, "a", &["team".to_string()])
        .unwrap();
    logs.set_kms_key(&scope, "a", None).unwrap();
    let got = logs.describe_log_group(&scope, "a").unwrap();
    assert!(got.tags.is_empty() && got.kms_key_id.is_none());
    assert!(logs
        .set_data_protection_policy(&scope, "a", Some("not json"))
        .is_err());
    logs.set_data_protection_policy(&scope, "a", Some("{}"))
        .unwrap();
}

#[test]
fn a_new_store_over_the_same_storage_reloads_log_groups() {
    let storage = crate::services::test_backend::storage();
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let scope = Scope::default_scope();
    let first = Logs::new(clock.clone(), storage.clone());
    first.create_log_group(&scope, input("/kept")).unwrap();
    first.create_log_group(&scope, input("/dropped")).unwrap();
    first.put_retention_policy(&scope, "/kept", 30).unwrap();
    first.delete_log_group(&scope, "/dropped").unwrap();
    let second = Logs::new(clock, storage);
    let names: Vec<String> = second
        .describe_log_groups(&scope, None)
        .into_iter()
        .map(|g| g.log_group_name)
        .collect();
    assert_eq!(names, ["/kept"]);
    assert_eq!(
        second
            .describe_log_group(&scope, "/kept")
            .unwrap()
            .retention_in_days,
        Some(30)
    );
}

#[test]
fn every_coral_violation_of_create_log_group_is_reported() {
    let err = logs()
        .create_log_group(
            &Scope::new("000000000000", "us-east-1"),
            CreateLogGroupInput {
                log_group_class: Some("COLD".into()),
                ..input("has space")
            },
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "2 validation errors detected: Value 'has space' at 'logGroupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_/#A-Za-z0-9]+; Value 'COLD' at 'logGroupClass' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, INFREQUENT_ACCESS, DELIVERY]"
    );
}
