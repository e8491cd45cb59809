//! SSM Parameter Store over the wire (awsJson 1.1) with the AWS SDK for Rust: put, overwrite,
//! get (by name, ARN and version), batches, paths, describe, history, tags and AWS's errors.

use aws_sdk_ssm::error::ProvideErrorMetadata;
use aws_sdk_ssm::types::{ParameterStringFilter, ParameterType, ResourceTypeForTagging, Tag};

use crate::support::Emulator;

fn code_of<E: ProvideErrorMetadata>(err: &E) -> (String, String) {
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn put_get_overwrite_and_versions() {
    let emu = Emulator::start().await;
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    let put = ssm
        .put_parameter()
        .name("/app/db/url")
        .value("postgres://one")
        .r#type(ParameterType::String)
        .send()
        .await
        .unwrap();
    assert_eq!(put.version, 1);
    assert_eq!(put.tier.unwrap().as_str(), "Standard");
    let err = ssm
        .put_parameter()
        .name("/app/db/url")
        .value("postgres://two")
        .r#type(ParameterType::String)
        .send()
        .await
        .unwrap_err();
    assert!(err
        .as_service_error()
        .unwrap()
        .is_parameter_already_exists());
    assert_eq!(
        code_of(&err).1,
        "The parameter already exists. To overwrite this value, set the overwrite option in the request to true."
    );
    let put = ssm
        .put_parameter()
        .name("/app/db/url")
        .value("postgres://two")
        .overwrite(true)
        .send()
        .await
        .unwrap();
    assert_eq!(put.version, 2);
    let p = ssm
        .get_parameter()
        .name("/app/db/url")
        .send()
        .await
        .unwrap()
        .parameter
        .unwrap();
    assert_eq!(p.value.as_deref(), Some("postgres://two"));
    assert_eq!(p.version, 2);
    assert_eq!(
        p.arn.as_deref(),
        Some("arn:aws:ssm:us-east-1:000000000000:parameter/app/db/url")
    );
    assert_eq!(p.data_type.as_deref(), Some("text"));
    assert_eq!(
        p.last_modified_date.unwrap().secs(),
        crate::support::t0().timestamp()
    );
    let by_arn = ssm
        .get_parameter()
        .name("arn:aws:ssm:us-east-1:000000000000:parameter/app/db/url")
        .send()
        .await
        .unwrap()
        .parameter
        .unwrap();
    assert_eq!(by_arn.name.as_deref(), Some("/app/db/url"));
    let v1 = ssm
        .get_parameter()
        .name("/app/db/url:1")
        .send()
        .await
        .unwrap()
        .parameter
        .unwrap();
    assert_eq!(v1.value.as_deref(), Some("postgres://one"));
    assert_eq!(v1.selector.as_deref(), Some(":1"));
    let history = ssm
        .get_parameter_history()
        .name("/app/db/url")
        .send()
        .await
        .unwrap()
        .parameters
        .unwrap();
    assert_eq!(history.len(), 2);

    let err = ssm.get_parameter().name("/nope").send().await.unwrap_err();
    assert!(err.as_service_error().unwrap().is_parameter_not_found());
    let err = ssm
        .get_parameter()
        .name("/app/db/url:7")
        .send()
        .await
        .unwrap_err();
    assert!(err
        .as_service_error()
        .unwrap()
        .is_parameter_version_not_found());
    ssm.delete_parameter()
        .name("/app/db/url")
        .send()
        .await
        .unwrap();
    let err = ssm
        .delete_parameter()
        .name("/app/db/url")
        .send()
        .await
        .unwrap_err();
    assert!(err.as_service_error().unwrap().is_parameter_not_found());
}

#[tokio::test]
async fn secure_strings_batches_paths_and_describe() {
    let emu = Emulator::start().await;
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    for (name, value, kind) in [
        ("/svc/a", "1", ParameterType::String),
        ("/svc/b", "x,y", ParameterType::StringList),
        ("/svc/nested/c", "secret", ParameterType::SecureString),
        ("plain", "p", ParameterType::String),
    ] {
        ssm.put_parameter()
            .name(name)
            .value(value)
            .r#type(kind)
            .send()
            .await
            .unwrap();
    }
    let hidden = ssm
        .get_parameter()
        .name("/svc/nested/c")
        .send()
        .await
        .unwrap()
        .parameter
        .unwrap();
    assert_ne!(hidden.value.as_deref(), Some("secret"));
    let shown = ssm
        .get_parameter()
        .name("/svc/nested/c")
        .with_decryption(true)
        .send()
        .await
        .unwrap()
        .parameter
        .unwrap();
    assert_eq!(shown.value.as_deref(), Some("secret"));
    assert_eq!(
        ssm.get_parameter()
            .name("plain")
            .send()
            .await
            .unwrap()
            .parameter
            .unwrap()
            .arn
            .as_deref(),
        Some("arn:aws:ssm:us-east-1:000000000000:parameter/plain")
    );

    let many = ssm
        .get_parameters()
        .names("/svc/a")
        .names("/missing")
        .send()
        .await
        .unwrap();
    assert_eq!(many.parameters.unwrap().len(), 1);
    assert_eq!(
        many.invalid_parameters.unwrap(),
        vec!["/missing".to_string()]
    );

    let one_level = ssm
        .get_parameters_by_path()
        .path("/svc")
        .send()
        .await
        .unwrap()
        .parameters
        .unwrap();
    assert_eq!(one_level.len(), 2);
    let recursive = ssm
        .get_parameters_by_path()
        .path("/svc")
        .recursive(true)
        .with_decryption(true)
        .send()
        .await
        .unwrap()
        .parameters
        .unwrap();
    assert_eq!(recursive.len(), 3);
    assert!(recursive
        .iter()
        .any(|p| p.value.as_deref() == Some("secret")));
    let err = ssm
        .get_parameters_by_path()
        .path("/svc")
        .max_results(11)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).0, "ValidationException");

    let described = ssm
        .describe_parameters()
        .parameter_filters(
            ParameterStringFilter::builder()
                .key("Type")
                .values("SecureString")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .parameters
        .unwrap();
    assert_eq!(described.len(), 1);
    assert_eq!(described[0].key_id.as_deref(), Some("alias/aws/ssm"));
    let err = ssm
        .describe_parameters()
        .parameter_filters(
            ParameterStringFilter::builder()
                .key("Bogus")
                .values("x")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    assert!(err.as_service_error().unwrap().is_invalid_filter_key());

    let deleted = ssm
        .delete_parameters()
        .names("/svc/a")
        .names("/gone")
        .send()
        .await
        .unwrap();
    assert_eq!(
        deleted.deleted_parameters.unwrap(),
        vec!["/svc/a".to_string()]
    );
    assert_eq!(
        deleted.invalid_parameters.unwrap(),
        vec!["/gone".to_string()]
    );
}

#[tokio::test]
async fn validation_errors_and_tags() {
    let emu = Emulator::start().await;
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    let err = ssm
        .put_parameter()
        .name("/no/type")
        .value("v")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_of(&err),
        (
            "ValidationException".into(),
            "A parameter type is required when you create a parameter.".into()
        )
    );
    let err = ssm
        .put_parameter()
        .name("/aws/reserved")
        .value("v")
        .r#type(ParameterType::String)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_of(&err).0, "ValidationException");
    let err = ssm
        .put_parameter()
        .name("/pattern")
        .value("abc")
        .allowed_pattern("^[0-9]+$")
        .r#type(ParameterType::String)
        .send()
        .await
        .unwrap_err();
    assert!(err
        .as_service_error()
        .unwrap()
        .is_parameter_pattern_mismatch_exception());
    let err = ssm
        .put_parameter()
        .name("/tagged")
        .value("v")
        .r#type(ParameterType::String)
        .overwrite(true)
        .tags(Tag::builder().key("k").value("v").build().unwrap())
        .send()
        .await
        .unwrap_err();
    assert!(code_of(&err)
        .1
        .starts_with("Invalid request: tags and overwrite can't be used together."));

    ssm.put_parameter()
        .name("/tagged")
        .value("v")
        .r#type(ParameterType::String)
        .tags(Tag::builder().key("team").value("a").build().unwrap())
        .send()
        .await
        .unwrap();
    ssm.add_tags_to_resource()
        .resource_type(ResourceTypeForTagging::Parameter)
        .resource_id("/tagged")
        .tags(Tag::builder().key("env").value("dev").build().unwrap())
        .send()
        .await
        .unwrap();
    ssm.remove_tags_from_resource()
        .resource_type(ResourceTypeForTagging::Parameter)
        .resource_id("/tagged")
        .tag_keys("team")
        .send()
        .await
        .unwrap();
    let tags = ssm
        .list_tags_for_resource()
        .resource_type(ResourceTypeForTagging::Parameter)
        .resource_id("/tagged")
        .send()
        .await
        .unwrap()
        .tag_list
        .unwrap();
    assert_eq!(tags.len(), 1);
    assert_eq!(tags[0].key, "env");

    let (status, _, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("content-type", "application/x-amz-json-1.1"),
                ("x-amz-target", "AmazonSSM.SendCommand"),
            ],
            "{}",
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("SendCommand"), "{body}");
    let (status, _, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("content-type", "application/x-amz-json-1.1"),
                ("x-amz-target", "AmazonSSM.GetParameter"),
            ],
            r#"{"Name":"/missing"}"#,
        )
        .await;
    assert_eq!(status, 400);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["__type"], "ParameterNotFound");
    assert_eq!(
        body["message"], "",
        "AWS sends ParameterNotFound without a message"
    );
}
