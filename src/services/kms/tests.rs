//! Table tests of the KMS store: key creation and its checks, the key-id forms, aliases,
//! rotation and scheduled deletion.

use chrono::TimeZone;

use super::*;

fn kms() -> Kms {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    Kms::new(clock, IdGen::seeded(7), Storage::memory())
}

fn scope() -> Scope {
    Scope::default_scope()
}

#[test]
fn keys_have_uuid_ids_arns_and_the_default_policy() {
    let kms = kms();
    let key = kms.create_key(&scope(), CreateKeyInput::default()).unwrap();
    assert!(uuid::Uuid::parse_str(&key.key_id).is_ok(), "{}", key.key_id);
    assert_eq!(
        key.arn,
        format!("arn:aws:kms:us-east-1:000000000000:key/{}", key.key_id)
    );
    assert_eq!(key.key_usage, "ENCRYPT_DECRYPT");
    assert_eq!(key.key_spec, "SYMMETRIC_DEFAULT");
    assert_eq!(key.key_state, KeyState::Enabled);
    assert!(key.policy.contains("arn:aws:iam::000000000000:root"));
    // Every form of KeyId names it.
    for form in [key.key_id.clone(), key.arn.clone()] {
        assert_eq!(kms.describe_key(&scope(), &form).unwrap(), key);
    }
    let multi = kms
        .create_key(
            &scope(),
            CreateKeyInput {
                multi_region: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(multi.key_id.starts_with("mrk-"), "{}", multi.key_id);
}

#[test]
fn creation_checks_usage_spec_policy_and_description() {
    let kms = kms();
    let cases = [
        (
            CreateKeyInput {
                key_usage: Some("WRAP".into()),
                ..Default::default()
            },
            "ValidationException",
        ),
        (
            CreateKeyInput {
                key_spec: Some("AES_256".into()),
                ..Default::default()
            },
            "ValidationException",
        ),
        (
            CreateKeyInput {
                key_usage: Some("SIGN_VERIFY".into()),
                ..Default::default()
            },
            "ValidationException",
        ),
        (
            CreateKeyInput {
                policy: Some("[1]".into()),
                ..Default::default()
            },
            "MalformedPolicyDocumentException",
        ),
        (
            CreateKeyInput {
                description: Some("d".repeat(8193)),
                ..Default::default()
            },
            "ValidationException",
        ),
        (
            CreateKeyInput {
                tags: (0..51).map(|i| (format!("k{i}"), String::new())).collect(),
                ..Default::default()
            },
            "TagException",
        ),
    ];
    for (input, code) in cases {
        assert_eq!(
            kms.create_key(&scope(), input.clone()).unwrap_err().code(),
            code,
            "{input:?}"
        );
    }
    let ok = CreateKeyInput {
        key_usage: Some("SIGN_VERIFY".into()),
        key_spec: Some("ECC_NIST_P256".into()),
        ..Default::default()
    };
    assert!(kms.create_key(&scope(), ok).is_ok());
}

#[test]
fn missing_keys_are_named_as_aws_names_them() {
    let kms = kms();
    let id = "11111111-2222-3333-4444-555555555555";
    assert_eq!(
        kms.describe_key(&scope(), id).unwrap_err(),
        Error::NotFound(format!(
            "Key 'arn:aws:kms:us-east-1:000000000000:key/{id}' does not exist"
        ))
    );
    assert_eq!(
        kms.describe_key(&scope(), "nonsense").unwrap_err(),
        Error::NotFound("Invalid keyId 'nonsense'".into())
    );
    assert_eq!(
        kms.describe_key(&scope(), "alias/none").unwrap_err(),
        Error::NotFound("Alias arn:aws:kms:us-east-1:000000000000:alias/none is not found.".into())
    );
}

#[test]
fn aliases_point_at_keys_and_are_unique() {
    let kms = kms();
    let a = kms.create_key(&scope(), CreateKeyInput::default()).unwrap();
    let b = kms.create_key(&scope(), CreateKeyInput::default()).unwrap();
    let alias = kms.create_alias(&scope(), "alias/app", &a.key_id).unwrap();
    assert_eq!(
        alias.alias_arn,
        "arn:aws:kms:us-east-1:000000000000:alias/app"
    );
    assert_eq!(
        kms.describe_key(&scope(), "alias/app").unwrap().key_id,
        a.key_id
    );
    assert_eq!(
        kms.create_alias(&scope(), "alias/app", &b.key_id)
            .unwrap_err(),
        Error::AlreadyExists(
            "An alias with the name arn:aws:kms:us-east-1:000000000000:alias/app already exists"
                .into()
        )
    );
    kms.update_alias(&scope(), "alias/app", &b.arn).unwrap();
    assert_eq!(
        kms.get_alias(&scope(), "alias/app").unwrap().target_key_id,
        b.key_id
    );
    for (bad, code) in [
        ("app", "ValidationException"),
        ("alias/", "ValidationException"),
        ("alias/with space", "ValidationException"),
        ("alias/aws/s3", "NotAuthorizedException"),
    ] {
        assert_eq!(
            kms.create_alias(&scope(), bad, &a.key_id)
                .unwrap_err()
                .code(),
            code,
            "{bad}"
        );
    }
    assert_eq!(kms.list_aliases(&scope()).len(), 1);
    kms.delete_alias(&scope(), "alias/app").unwrap();
    assert_eq!(
        kms.delete_alias(&scope(), "alias/app").unwrap_err().code(),
        "NotFoundException"
    );
}

#[test]
fn rotation_state_and_scheduled_deletion() {
    let kms = kms();
    let key = kms.create_key(&scope(), CreateKeyInput::default()).unwrap();
    kms.set_key_rotation(&scope(), &key.key_id, true, None)
        .unwrap();
    let got = kms.describe_key(&scope(), &key.key_id).unwrap();
    assert!(got.key_rotation_enabled);
    assert_eq!(got.rotation_period_in_days, Some(365));
    assert_eq!(
        kms.set_key_rotation(&scope(), &key.key_id, true, Some(30))
            .unwrap_err()
            .code(),
        "ValidationException"
    );
    kms.set_enabled(&scope(), &key.key_id, false).unwrap();
    assert_eq!(
        kms.describe_key(&scope(), &key.key_id).unwrap().key_state,
        KeyState::Disabled
    );
    assert_eq!(
        kms.schedule_key_deletion(&scope(), &key.key_id, Some(5))
            .unwrap_err()
            .code(),
        "ValidationException"
    );
    let at = kms
        .schedule_key_deletion(&scope(), &key.key_id, Some(7))
        .unwrap();
    assert_eq!(at, Utc.with_ymd_and_hms(2030, 1, 8, 0, 0, 0).unwrap());
    let got = kms.describe_key(&scope(), &key.key_id).unwrap();
    assert_eq!(got.key_state, KeyState::PendingDeletion);
    assert_eq!(got.deletion_date, Some(at));
    assert_eq!(
        kms.schedule_key_deletion(&scope(), &key.key_id, None)
            .unwrap_err(),
        Error::KmsInvalidState(format!("{} is pending deletion.", key.arn))
    );
    assert_eq!(
        kms.create_alias(&scope(), "alias/late", &key.key_id)
            .unwrap_err()
            .code(),
        "KMSInvalidStateException"
    );
    let hmac = kms
        .create_key(
            &scope(),
            CreateKeyInput {
                key_usage: Some("GENERATE_VERIFY_MAC".into()),
                key_spec: Some("HMAC_256".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        kms.set_key_rotation(&scope(), &hmac.key_id, true, None)
            .unwrap_err()
            .code(),
        "UnsupportedOperationException"
    );
}

#[test]
fn a_new_store_over_the_same_storage_reloads_keys_and_aliases() {
    let storage = crate::services::test_backend::storage();
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let first = Kms::new(clock.clone(), IdGen::seeded(1), storage.clone());
    let key = first
        .create_key(&scope(), CreateKeyInput::default())
        .unwrap();
    first
        .create_alias(&scope(), "alias/kept", &key.key_id)
        .unwrap();
    first
        .create_alias(&scope(), "alias/dropped", &key.key_id)
        .unwrap();
    first.delete_alias(&scope(), "alias/dropped").unwrap();
    first
        .update_key_description(&scope(), &key.key_id, "reloaded")
        .unwrap();
    let second = Kms::new(clock, IdGen::seeded(2), storage);
    assert_eq!(
        second
            .describe_key(&scope(), "alias/kept")
            .unwrap()
            .description,
        "reloaded"
    );
    assert_eq!(second.list_aliases(&scope()).len(), 1);
}

#[test]
fn every_coral_violation_of_create_key_is_reported() {
    let err = kms()
        .create_key(
            &scope(),
            CreateKeyInput {
                description: Some("d".repeat(8193)),
                key_usage: Some("SHRED".into()),
                key_spec: Some("AES".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
    let Error::Validation(message) = err else {
        panic!("{err:?}")
    };
    assert!(
        message.starts_with("3 validation errors detected: Value 'ddd"),
        "{message}"
    );
    assert!(message.contains("at 'description' failed to satisfy constraint: Member must have length less than or equal to 8192; Value 'SHRED' at 'keyUsage' failed to satisfy constraint: Member must satisfy enum value set: ["), "{message}");
    assert!(message.contains("]; Value 'AES' at 'keySpec' failed to satisfy constraint: Member must satisfy enum value set: ["), "{message}");
}
