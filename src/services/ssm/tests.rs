//! Table tests of the parameter store: names, versions, types, paths, filters and errors.

use chrono::TimeZone;

use super::*;

fn ssm() -> (Ssm, Clock) {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    (Ssm::new(clock.clone(), Storage::memory()), clock)
}

fn scope() -> Scope {
    Scope::default_scope()
}

fn put(name: &str, value: &str, kind: &str) -> PutParameterInput {
    PutParameterInput {
        name: name.into(),
        value: value.into(),
        parameter_type: Some(kind.into()),
        ..Default::default()
    }
}

#[test]
fn versions_overwrite_and_already_exists() {
    let (ssm, clock) = ssm();
    assert_eq!(
        ssm.put_parameter(&scope(), put("/app/db", "one", "String")),
        Ok((1, "Standard".into()))
    );
    assert_eq!(
        ssm.put_parameter(&scope(), put("/app/db", "two", "String")),
        Err(Error::ParameterAlreadyExists)
    );
    assert_eq!(
        Error::ParameterAlreadyExists.message(),
        "The parameter already exists. To overwrite this value, set the overwrite option in the request to true."
    );
    clock
        .step_manual(clock.now() + chrono::Duration::seconds(5))
        .unwrap();
    let over = PutParameterInput {
        overwrite: true,
        parameter_type: None,
        ..put("/app/db", "two", "String")
    };
    assert_eq!(
        ssm.put_parameter(&scope(), over),
        Ok((2, "Standard".into()))
    );
    let p = ssm.get_parameter(&scope(), "/app/db").unwrap();
    assert_eq!(p.value(), "two");
    assert_eq!(p.version(), 2);
    assert_eq!(p.arn, "arn:aws:ssm:us-east-1:000000000000:parameter/app/db");
    let v1 = ssm.read_parameter(&scope(), "/app/db:1", false).unwrap();
    assert_eq!(
        (v1.value.as_str(), v1.version, v1.selector.as_deref()),
        ("one", 1, Some(":1"))
    );
    assert!(matches!(
        ssm.read_parameter(&scope(), "/app/db:9", false),
        Err(Error::ParameterVersionNotFound(_))
    ));
    let by_arn = ssm
        .read_parameter(
            &scope(),
            "arn:aws:ssm:us-east-1:000000000000:parameter/app/db",
            false,
        )
        .unwrap();
    assert_eq!(by_arn.value, "two");
    assert_eq!(
        ssm.get_parameter_history(&scope(), "/app/db")
            .unwrap()
            .len(),
        2
    );
    assert!(ssm
        .get_parameter(&Scope::new("000000000000", "eu-west-1"), "/app/db")
        .is_none());
}

#[test]
fn names_without_a_slash_and_arns() {
    let (ssm, _) = ssm();
    ssm.put_parameter(&scope(), put("plain", "v", "String"))
        .unwrap();
    assert_eq!(
        ssm.get_parameter(&scope(), "plain").unwrap().arn,
        "arn:aws:ssm:us-east-1:000000000000:parameter/plain"
    );
    assert_eq!(
        ssm.read_parameter(
            &scope(),
            "arn:aws:ssm:us-east-1:000000000000:parameter/plain",
            false
        )
        .unwrap()
        .value,
        "v"
    );
}

#[test]
fn put_parameter_validation() {
    let (ssm, _) = ssm();
    for (input, code) in [
        (put("awsThing", "v", "String"), "ValidationException"),
        (put("/ssm/x", "v", "String"), "ValidationException"),
        (put("bad name", "v", "String"), "ValidationException"),
        (put("a/b", "v", "String"), "ValidationException"),
        (put("/x", "", "String"), "ValidationException"),
        (put("/x", "v", "Number"), "ValidationException"),
        (
            put("/x", &"v".repeat(4097), "String"),
            "ValidationException",
        ),
        (
            PutParameterInput {
                parameter_type: None,
                ..put("/x", "v", "String")
            },
            "ValidationException",
        ),
        (
            PutParameterInput {
                allowed_pattern: Some("^[0-9]+$".into()),
                ..put("/x", "abc", "String")
            },
            "ParameterPatternMismatchException",
        ),
        (
            put(
                &format!(
                    "/{}",
                    (0..16).map(|i| i.to_string()).collect::<Vec<_>>().join("/")
                ),
                "v",
                "String",
            ),
            "HierarchyLevelLimitExceededException",
        ),
        (
            PutParameterInput {
                overwrite: true,
                tags: [("k".to_string(), "v".to_string())].into_iter().collect(),
                ..put("/x", "v", "String")
            },
            "ValidationException",
        ),
    ] {
        let name = input.name.clone();
        let err = ssm.put_parameter(&scope(), input).unwrap_err();
        assert_eq!(err.code(), code, "{name}: {err:?}");
    }
    assert!(ssm
        .put_parameter(
            &scope(),
            PutParameterInput {
                tier: Some("Advanced".into()),
                ..put("/big", &"v".repeat(8000), "String")
            }
        )
        .is_ok());
}

#[test]
fn secure_strings_need_decryption() {
    let (ssm, _) = ssm();
    ssm.put_parameter(&scope(), put("/secret", "hunter2", "SecureString"))
        .unwrap();
    let hidden = ssm.read_parameter(&scope(), "/secret", false).unwrap();
    assert_ne!(hidden.value, "hunter2");
    assert_eq!(
        ssm.read_parameter(&scope(), "/secret", true).unwrap().value,
        "hunter2"
    );
    let meta = ssm
        .describe_parameters(&scope(), &[], None, None)
        .unwrap()
        .0;
    assert_eq!(meta[0].version.key_id.as_deref(), Some("alias/aws/ssm"));
}

#[test]
fn paths_batches_and_filters() {
    let (ssm, _) = ssm();
    for name in ["/a/1", "/a/2", "/a/b/3", "/c/4"] {
        ssm.put_parameter(&scope(), put(name, "v", "String"))
            .unwrap();
    }
    ssm.put_parameter(&scope(), put("/a/list", "x,y", "StringList"))
        .unwrap();
    let names = |v: Vec<ParameterValue>| v.into_iter().map(|p| p.name).collect::<Vec<_>>();
    let (one_level, _) = ssm
        .get_parameters_by_path(&scope(), "/a", false, false, None, None)
        .unwrap();
    assert_eq!(names(one_level), ["/a/1", "/a/2", "/a/list"]);
    let (all, _) = ssm
        .get_parameters_by_path(&scope(), "/a/", true, false, None, None)
        .unwrap();
    assert_eq!(all.len(), 4);
    let (first, token) = ssm
        .get_parameters_by_path(&scope(), "/", true, false, Some(2), None)
        .unwrap();
    assert_eq!(first.len(), 2);
    let (rest, token) = ssm
        .get_parameters_by_path(&scope(), "/", true, false, Some(10), token.as_deref())
        .unwrap();
    assert_eq!(rest.len(), 3);
    assert!(token.is_none());
    assert!(ssm
        .get_parameters_by_path(&scope(), "/", true, false, Some(11), None)
        .is_err());
    assert!(ssm
        .get_parameters_by_path(&scope(), "/", true, false, None, Some("zz"))
        .is_err());
    assert!(ssm
        .get_parameters_by_path(&scope(), "a", true, false, None, None)
        .is_err());

    let (found, invalid) = ssm
        .get_parameters(
            &scope(),
            &["/a/1".into(), "/nope".into(), "/a/1".into()],
            false,
        )
        .unwrap();
    assert_eq!(names(found), ["/a/1"]);
    assert_eq!(invalid, ["/nope"]);

    let filter = |key: &str, option: Option<&str>, values: &[&str]| ParameterFilter {
        key: key.into(),
        option: option.map(str::to_string),
        values: values.iter().map(|s| s.to_string()).collect(),
    };
    let described = |fs: &[ParameterFilter]| {
        ssm.describe_parameters(&scope(), fs, Some(50), None)
            .unwrap()
            .0
            .into_iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        described(&[filter("Type", None, &["StringList"])]),
        ["/a/list"]
    );
    assert_eq!(
        described(&[filter("Name", Some("BeginsWith"), &["/a/b"])]),
        ["/a/b/3"]
    );
    assert_eq!(
        described(&[filter("Path", Some("Recursive"), &["/a"])]).len(),
        4
    );
    assert!(matches!(
        ssm.describe_parameters(&scope(), &[filter("Bogus", None, &["x"])], None, None),
        Err(Error::InvalidFilterKey(_))
    ));

    let (deleted, invalid) = ssm
        .delete_parameters(&scope(), &["/a/1".into(), "/zzz".into()])
        .unwrap();
    assert_eq!(
        (deleted, invalid),
        (vec!["/a/1".to_string()], vec!["/zzz".to_string()])
    );
    assert_eq!(
        ssm.delete_parameter(&scope(), "/a/1"),
        Err(Error::ParameterNotFound("/a/1".into()))
    );
    assert_eq!(Error::ParameterNotFound("/a/1".into()).message(), "");
    ssm.reset();
    assert!(ssm.get_parameter(&scope(), "/a/2").is_none());
}

#[test]
fn parameters_survive_a_restart_over_a_durable_store() {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let storage = crate::services::test_backend::storage();
    let before = Ssm::new(clock.clone(), storage.clone());
    before
        .put_parameter(&scope(), put("/deep/path/p", "v1", "String"))
        .unwrap();
    before
        .put_parameter(
            &scope(),
            PutParameterInput {
                overwrite: true,
                ..put("/deep/path/p", "v2", "String")
            },
        )
        .unwrap();
    before
        .put_parameter(&scope(), put("/gone", "x", "String"))
        .unwrap();
    before.delete_parameter(&scope(), "/gone").unwrap();
    let after = Ssm::new(clock, storage);
    let p = after.get_parameter(&scope(), "/deep/path/p").unwrap();
    assert_eq!((p.value(), p.version()), ("v2", 2));
    assert!(after.get_parameter(&scope(), "/gone").is_none());
}
