//! Table tests of the Lambda store: configuration checks with the API's messages, the role
//! check, function names and ARNs, updates, and resource-policy statements.

use chrono::TimeZone;

use super::*;
use crate::services::iam::CreateRoleInput;

const TRUST: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;

fn lambda() -> (Lambda, Iam) {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let ids = IdGen::seeded(3);
    let iam = Iam::new(clock.clone(), ids.clone(), Storage::memory());
    iam.create_role(
        "000000000000",
        CreateRoleInput {
            role_name: "exec".into(),
            assume_role_policy_document: TRUST.into(),
            ..Default::default()
        },
    )
    .unwrap();
    iam.create_role(
        "000000000000",
        CreateRoleInput {
            role_name: "ec2".into(),
            assume_role_policy_document:
                r#"{"Statement":[{"Principal":{"Service":"ec2.amazonaws.com"}}]}"#.into(),
            ..Default::default()
        },
    )
    .unwrap();
    (Lambda::new(clock, ids, Storage::memory(), iam.clone()), iam)
}

fn scope() -> Scope {
    Scope::default_scope()
}

fn input(name: &str) -> CreateFunctionInput {
    CreateFunctionInput {
        function_name: name.into(),
        runtime: Some("python3.12".into()),
        role: "arn:aws:iam::000000000000:role/exec".into(),
        handler: Some("index.handler".into()),
        code: CodeSource::ZipFile("def handler(e, c):\n    return e\n".into()),
        description: None,
        timeout: None,
        memory_size: None,
        package_type: None,
        environment: BTreeMap::new(),
        architectures: Vec::new(),
        dead_letter_target_arn: None,
        tracing_mode: None,
        layers: Vec::new(),
        kms_key_arn: None,
        ephemeral_storage: None,
        tags: BTreeMap::new(),
    }
}

#[test]
fn a_function_gets_its_arn_defaults_and_code_hash() {
    let (lambda, _) = lambda();
    let f = lambda.create_function(&scope(), input("fn")).unwrap();
    assert_eq!(
        f.function_arn,
        "arn:aws:lambda:us-east-1:000000000000:function:fn"
    );
    assert_eq!((f.timeout, f.memory_size), (3, 128));
    assert_eq!(f.package_type, "Zip");
    assert_eq!(f.architectures, ["x86_64"]);
    assert_eq!(f.ephemeral_storage, 512);
    assert_eq!(f.code_size, 32);
    assert_eq!(f.code_sha256.len(), 44);
    assert_eq!(
        lambda.create_function(&scope(), input("fn")).unwrap_err(),
        Error::ResourceConflict("Function already exist: fn".into())
    );
    for name in [
        "fn",
        "arn:aws:lambda:us-east-1:000000000000:function:fn",
        "arn:aws:lambda:us-east-1:000000000000:function:fn:$LATEST",
        "000000000000:function:fn",
    ] {
        assert_eq!(
            lambda.get_function(&scope(), name).unwrap().function_name,
            "fn"
        );
    }
    assert_eq!(
        lambda.get_function(&scope(), "nope").unwrap_err(),
        Error::ResourceNotFound(
            "Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope".into()
        )
    );
}

#[test]
fn configuration_is_checked_with_the_apis_messages() {
    let (lambda, _) = lambda();
    let v = |value: &str, member: &str, constraint: &str| {
        format!("1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: {constraint}")
    };
    let cases: Vec<(CreateFunctionInput, String)> = vec![
        (
            CreateFunctionInput { timeout: Some(901), ..input("a") },
            v("901", "timeout", "Member must have value less than or equal to 900"),
        ),
        (
            CreateFunctionInput { timeout: Some(0), ..input("a") },
            v("0", "timeout", "Member must have value greater than or equal to 1"),
        ),
        (
            CreateFunctionInput { memory_size: Some(64), ..input("a") },
            v("64", "memorySize", "Member must have value greater than or equal to 128"),
        ),
        (
            CreateFunctionInput { memory_size: Some(40_000), ..input("a") },
            v("40000", "memorySize", "Member must have value less than or equal to 32768"),
        ),
        (
            CreateFunctionInput { handler: Some("a b".into()), ..input("a") },
            v("a b", "handler", "Member must satisfy regular expression pattern: [^\\s]+"),
        ),
        (
            CreateFunctionInput { description: Some("d".repeat(257)), ..input("a") },
            v(&"d".repeat(257), "description", "Member must have length less than or equal to 256"),
        ),
        (
            input(&"n".repeat(65)),
            v(&"n".repeat(65), "functionName", "Member must have length less than or equal to 64"),
        ),
        (
            CreateFunctionInput { role: "exec".into(), ..input("a") },
            v("exec", "role", &format!("Member must satisfy regular expression pattern: {ROLE_PATTERN}")),
        ),
        (
            CreateFunctionInput { runtime: None, ..input("a") },
            "Runtime and Handler are mandatory parameters for functions created with deployment packages.".into(),
        ),
        (
            CreateFunctionInput { role: "arn:aws:iam::000000000000:role/ec2".into(), ..input("a") },
            "The role defined for the function cannot be assumed by Lambda.".into(),
        ),
        (
            CreateFunctionInput { role: "arn:aws:iam::000000000000:role/missing".into(), ..input("a") },
            "The role defined for the function cannot be assumed by Lambda.".into(),
        ),
        (
            CreateFunctionInput { package_type: Some("Image".into()), ..input("a") },
            "Please provide ImageUri when creating a function with packageType Image.".into(),
        ),
        (
            CreateFunctionInput { code: CodeSource::ImageUri("x".into()), ..input("a") },
            "Please don't provide ImageUri when creating a function with packageType Zip.".into(),
        ),
        (
            CreateFunctionInput { ephemeral_storage: Some(100), ..input("a") },
            v("100", "ephemeralStorage.size", "Member must have value greater than or equal to 512"),
        ),
        (
            CreateFunctionInput { tracing_mode: Some("On".into()), ..input("a") },
            v("On", "tracingConfig.mode", "Member must satisfy enum value set: [Active, PassThrough]"),
        ),
    ];
    for (bad, message) in cases {
        let err = lambda.create_function(&scope(), bad.clone()).unwrap_err();
        assert_eq!(err.to_string(), message, "{bad:?}");
    }
    let runtime = lambda
        .create_function(
            &scope(),
            CreateFunctionInput {
                runtime: Some("python9".into()),
                ..input("a")
            },
        )
        .unwrap_err();
    assert_eq!(runtime.code(), "ValidationException");
    assert!(runtime.to_string().contains(
        "at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: [nodejs, "
    ));
    // A role of another account is not looked up.
    let foreign = CreateFunctionInput {
        role: "arn:aws:iam::123456789012:role/anything".into(),
        ..input("foreign")
    };
    assert!(lambda.create_function(&scope(), foreign).is_ok());
    assert!(lambda.list_functions(&scope()).len() == 1);
}

#[test]
fn updates_replace_the_configuration_and_keep_tags() {
    let (lambda, _) = lambda();
    let tags: BTreeMap<String, String> = [("team".to_string(), "ops".to_string())].into();
    let first = lambda
        .create_function(
            &scope(),
            CreateFunctionInput {
                tags: tags.clone(),
                timeout: Some(30),
                ..input("fn")
            },
        )
        .unwrap();
    let updated = lambda
        .update_function(
            &scope(),
            "fn",
            CreateFunctionInput {
                memory_size: Some(256),
                code: CodeSource::S3 {
                    bucket: "b".into(),
                    key: "k.zip".into(),
                    object_version: None,
                },
                ..input("ignored")
            },
        )
        .unwrap();
    assert_eq!(updated.function_name, "fn");
    assert_eq!((updated.timeout, updated.memory_size), (3, 256));
    assert_ne!(updated.code_sha256, first.code_sha256);
    assert_ne!(updated.revision_id, first.revision_id);
    assert_eq!(updated.tags, tags);
    assert!(lambda
        .update_function(
            &scope(),
            "fn",
            CreateFunctionInput {
                timeout: Some(1000),
                ..input("fn")
            }
        )
        .is_err());
    lambda
        .untag_resource(&scope(), "fn", &["team".to_string()])
        .unwrap();
    assert!(lambda.get_function(&scope(), "fn").unwrap().tags.is_empty());
    let many: BTreeMap<String, String> =
        (0..51).map(|i| (format!("k{i}"), String::new())).collect();
    assert_eq!(
        lambda
            .tag_resource(&scope(), "fn", &many)
            .unwrap_err()
            .code(),
        "InvalidParameterValueException"
    );
    lambda.delete_function(&scope(), "fn").unwrap();
    assert_eq!(
        lambda.delete_function(&scope(), "fn").unwrap_err().code(),
        "ResourceNotFoundException"
    );
}

#[test]
fn permissions_build_the_resource_policy() {
    let (lambda, _) = lambda();
    lambda.create_function(&scope(), input("fn")).unwrap();
    assert_eq!(
        lambda.get_policy(&scope(), "fn").unwrap_err(),
        Error::ResourceNotFound("The resource you requested does not exist.".into())
    );
    let add = AddPermissionInput {
        statement_id: "s1".into(),
        action: "lambda:InvokeFunction".into(),
        principal: "scheduler.amazonaws.com".into(),
        source_arn: Some("arn:aws:scheduler:us-east-1:000000000000:schedule/default/x".into()),
        source_account: Some("000000000000".into()),
        ..Default::default()
    };
    let statement: Value =
        serde_json::from_str(&lambda.add_permission(&scope(), "fn", add.clone()).unwrap()).unwrap();
    assert_eq!(statement["Principal"]["Service"], "scheduler.amazonaws.com");
    assert_eq!(
        statement["Resource"],
        "arn:aws:lambda:us-east-1:000000000000:function:fn"
    );
    assert_eq!(
        statement["Condition"]["ArnLike"]["AWS:SourceArn"],
        "arn:aws:scheduler:us-east-1:000000000000:schedule/default/x"
    );
    assert_eq!(
        lambda
            .add_permission(&scope(), "fn", add)
            .unwrap_err()
            .code(),
        "ResourceConflictException"
    );
    let account = AddPermissionInput {
        statement_id: "s2".into(),
        action: "lambda:*".into(),
        principal: "123456789012".into(),
        ..Default::default()
    };
    lambda.add_permission(&scope(), "fn", account).unwrap();
    let policy: Value = serde_json::from_str(&lambda.get_policy(&scope(), "fn").unwrap()).unwrap();
    assert_eq!(
        policy["Statement"][1]["Principal"]["AWS"],
        "arn:aws:iam::123456789012:root"
    );
    for (bad, member) in [
        (
            AddPermissionInput {
                statement_id: "a b".into(),
                action: "lambda:InvokeFunction".into(),
                principal: "p".into(),
                ..Default::default()
            },
            "statementId",
        ),
        (
            AddPermissionInput {
                statement_id: "x".into(),
                action: "invoke".into(),
                principal: "p".into(),
                ..Default::default()
            },
            "action",
        ),
        (
            AddPermissionInput {
                statement_id: "x".into(),
                action: "*".into(),
                principal: "".into(),
                ..Default::default()
            },
            "principal",
        ),
        (
            AddPermissionInput {
                statement_id: "x".into(),
                action: "*".into(),
                principal: "p".into(),
                source_account: Some("12".into()),
                ..Default::default()
            },
            "sourceAccount",
        ),
    ] {
        let err = lambda.add_permission(&scope(), "fn", bad).unwrap_err();
        assert!(err.to_string().contains(&format!("at '{member}'")), "{err}");
    }
    lambda.remove_permission(&scope(), "fn", "s1").unwrap();
    assert_eq!(
        lambda.remove_permission(&scope(), "fn", "s1").unwrap_err(),
        Error::ResourceNotFound("Statement s1 is not found in resource policy.".into())
    );
    assert_eq!(
        lambda
            .add_permission(
                &scope(),
                "nope",
                AddPermissionInput {
                    statement_id: "x".into(),
                    action: "*".into(),
                    principal: "p".into(),
                    ..Default::default()
                }
            )
            .unwrap_err()
            .code(),
        "ResourceNotFoundException"
    );
}

#[test]
fn a_new_store_over_the_same_storage_reloads_functions_and_policies() {
    let (_, iam) = lambda();
    let storage = crate::services::test_backend::storage();
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let first = Lambda::new(
        clock.clone(),
        IdGen::seeded(1),
        storage.clone(),
        iam.clone(),
    );
    first.create_function(&scope(), input("kept")).unwrap();
    first.create_function(&scope(), input("dropped")).unwrap();
    first.delete_function(&scope(), "dropped").unwrap();
    first
        .add_permission(
            &scope(),
            "kept",
            AddPermissionInput {
                statement_id: "s".into(),
                action: "*".into(),
                principal: "sns.amazonaws.com".into(),
                ..Default::default()
            },
        )
        .unwrap();
    let second = Lambda::new(clock, IdGen::seeded(2), storage, iam);
    let names: Vec<String> = second
        .list_functions(&scope())
        .into_iter()
        .map(|f| f.function_name)
        .collect();
    assert_eq!(names, ["kept"]);
    assert!(second
        .get_policy(&scope(), "kept")
        .unwrap()
        .contains("\"Sid\":\"s\""));
}
