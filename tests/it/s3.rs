//! S3 (path style, restXml) with the AWS SDK for Rust, plus the exact traffic
//! `aws cloudformation deploy --s3-bucket` sends (aws-contract.md §1.5,
//! `fixtures/wire/wire_s3.log`): buckets, objects, listing, ranges, copies, errors.

use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    BucketLocationConstraint, CreateBucketConfiguration, Delete, ObjectIdentifier,
};

use crate::support::Emulator;

async fn client(emu: &Emulator) -> aws_sdk_s3::Client {
    let config = aws_sdk_s3::config::Builder::from(&emu.sdk_config().await)
        .force_path_style(true)
        .build();
    aws_sdk_s3::Client::from_conf(config)
}

#[tokio::test]
async fn buckets_create_head_list_delete() {
    let emu = Emulator::start().await;
    let s3 = client(&emu).await;
    s3.create_bucket().bucket("templates").send().await.unwrap();
    s3.create_bucket().bucket("templates").send().await.unwrap();
    let head = s3.head_bucket().bucket("templates").send().await.unwrap();
    assert_eq!(head.bucket_region.as_deref(), Some("us-east-1"));
    let listed = s3.list_buckets().send().await.unwrap().buckets.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name.as_deref(), Some("templates"));
    let location = s3
        .get_bucket_location()
        .bucket("templates")
        .send()
        .await
        .unwrap();
    let constraint = location.location_constraint.map(|c| c.as_str().to_string());
    assert_eq!(
        constraint.unwrap_or_default(),
        "",
        "us-east-1 has an empty constraint"
    );

    let err = s3.head_bucket().bucket("missing").send().await.unwrap_err();
    assert_eq!(err.raw_response().unwrap().status().as_u16(), 404);
    assert!(err.into_service_error().is_not_found());
    let err = s3
        .create_bucket()
        .bucket("Bad_Name")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidBucketName"));
    let err = s3
        .create_bucket()
        .bucket("east-constraint")
        .create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::from("us-east-1"))
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidLocationConstraint"));

    let eu = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&emu.sdk_config().await)
            .force_path_style(true)
            .region(aws_sdk_s3::config::Region::new("eu-west-1"))
            .build(),
    );
    eu.create_bucket()
        .bucket("eu-bucket")
        .create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::EuWest1)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let err = eu
        .create_bucket()
        .bucket("eu-bucket")
        .create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::EuWest1)
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_bucket_already_owned_by_you());

    s3.put_object()
        .bucket("templates")
        .key("t.yaml")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap();
    let err = s3
        .delete_bucket()
        .bucket("templates")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("BucketNotEmpty"));
    assert_eq!(err.raw_response().unwrap().status().as_u16(), 409);
    s3.delete_object()
        .bucket("templates")
        .key("t.yaml")
        .send()
        .await
        .unwrap();
    s3.delete_bucket().bucket("templates").send().await.unwrap();
    let err = s3
        .delete_bucket()
        .bucket("templates")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchBucket"));
}

#[tokio::test]
async fn objects_put_get_head_range_copy_and_delete() {
    let emu = Emulator::start().await;
    let s3 = client(&emu).await;
    s3.create_bucket().bucket("objs").send().await.unwrap();
    let put = s3
        .put_object()
        .bucket("objs")
        .key("dir/hello world.txt")
        .content_type("text/plain")
        .metadata("owner", "tests")
        .body(ByteStream::from_static(b"hello world"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        put.e_tag.as_deref(),
        Some("\"5eb63bbbe01eeed093cb22bb8f5acdc3\"")
    );
    let got = s3
        .get_object()
        .bucket("objs")
        .key("dir/hello world.txt")
        .send()
        .await
        .unwrap();
    assert_eq!(got.content_type.as_deref(), Some("text/plain"));
    assert_eq!(got.metadata.as_ref().unwrap()["owner"], "tests");
    assert_eq!(got.content_length, Some(11));
    let bytes = got.body.collect().await.unwrap().into_bytes();
    assert_eq!(&bytes[..], b"hello world");
    let head = s3
        .head_object()
        .bucket("objs")
        .key("dir/hello world.txt")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length, Some(11));
    assert_eq!(head.e_tag, put.e_tag);
    let ranged = s3
        .get_object()
        .bucket("objs")
        .key("dir/hello world.txt")
        .range("bytes=6-")
        .send()
        .await
        .unwrap();
    assert_eq!(ranged.content_range.as_deref(), Some("bytes 6-10/11"));
    assert_eq!(
        &ranged.body.collect().await.unwrap().into_bytes()[..],
        b"world"
    );
    s3.copy_object()
        .bucket("objs")
        .key("copy.txt")
        .copy_source("objs/dir/hello%20world.txt")
        .send()
        .await
        .unwrap();
    assert_eq!(
        &emu.app.s3.get_object("objs", "copy.txt").unwrap()[..],
        b"hello world"
    );

    let err = s3
        .get_object()
        .bucket("objs")
        .key("nope")
        .send()
        .await
        .unwrap_err();
    assert!(err.into_service_error().is_no_such_key());
    let err = s3
        .head_object()
        .bucket("objs")
        .key("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.raw_response().unwrap().status().as_u16(), 404);
    let err = s3
        .get_object()
        .bucket("nobucket")
        .key("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchBucket"));

    s3.delete_object()
        .bucket("objs")
        .key("copy.txt")
        .send()
        .await
        .unwrap();
    s3.delete_object()
        .bucket("objs")
        .key("copy.txt")
        .send()
        .await
        .unwrap();
    let deleted = s3
        .delete_objects()
        .bucket("objs")
        .delete(
            Delete::builder()
                .objects(
                    ObjectIdentifier::builder()
                        .key("dir/hello world.txt")
                        .build()
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.deleted.unwrap().len(), 1);
    s3.delete_bucket().bucket("objs").send().await.unwrap();
}

#[tokio::test]
async fn list_objects_v2_pages_and_groups() {
    let emu = Emulator::start().await;
    let s3 = client(&emu).await;
    s3.create_bucket().bucket("listing").send().await.unwrap();
    for key in ["a/1", "a/2", "a/b/3", "c", "d e"] {
        s3.put_object()
            .bucket("listing")
            .key(key)
            .body(ByteStream::from_static(b"."))
            .send()
            .await
            .unwrap();
    }
    let page = s3
        .list_objects_v2()
        .bucket("listing")
        .max_keys(2)
        .send()
        .await
        .unwrap();
    assert_eq!(page.key_count, Some(2));
    assert_eq!(page.is_truncated, Some(true));
    let rest = s3
        .list_objects_v2()
        .bucket("listing")
        .continuation_token(page.next_continuation_token.unwrap())
        .send()
        .await
        .unwrap();
    let keys: Vec<_> = rest
        .contents()
        .iter()
        .filter_map(|o| o.key.clone())
        .collect();
    assert_eq!(keys, ["a/b/3", "c", "d e"]);
    let grouped = s3
        .list_objects_v2()
        .bucket("listing")
        .delimiter("/")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<_> = grouped
        .common_prefixes()
        .iter()
        .filter_map(|p| p.prefix.clone())
        .collect();
    assert_eq!(prefixes, ["a/"]);
    assert_eq!(grouped.contents().len(), 2);
    let v1 = s3
        .list_objects()
        .bucket("listing")
        .prefix("a/")
        .send()
        .await
        .unwrap();
    assert_eq!(v1.contents().len(), 3);
    let err = s3
        .list_objects_v2()
        .bucket("nobucket")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchBucket"));
}

#[tokio::test]
async fn cloudformation_deploy_s3_bucket_traffic() {
    // HEAD (404: upload), then PUT with SSE and a CRC32 checksum header, then the template is
    // readable by TemplateURL (aws-contract.md §1.5, fixtures/wire/wire_s3.log).
    let emu = Emulator::start().await;
    emu.app
        .s3
        .create_bucket(&cumulo::ids::Scope::default_scope(), "mybucket", None)
        .unwrap();
    let path = "/mybucket/pfx/4bf338fbdb8f9bd304f128ecb21c1f6a.template";
    let auth = "AWS4-HMAC-SHA256 Credential=test/20261129/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=x";
    let (status, _, body) = emu
        .raw(
            "HEAD",
            path,
            &[
                ("authorization", auth),
                (
                    "x-amz-content-sha256",
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                ),
            ],
            "",
        )
        .await;
    assert_eq!((status, body.as_str()), (404, ""));
    let template = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n";
    let (status, headers, _) = emu
        .raw(
            "PUT",
            path,
            &[
                ("authorization", auth),
                ("x-amz-server-side-encryption", "AES256"),
                ("x-amz-sdk-checksum-algorithm", "CRC32"),
                ("x-amz-checksum-crc32", "xD9Okw=="),
            ],
            template,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["etag"],
        format!("\"{:x}\"", md5_of(template.as_bytes()))
    );
    assert_eq!(headers["x-amz-checksum-crc32"], "xD9Okw==");
    assert_eq!(headers["x-amz-server-side-encryption"], "AES256");
    let (status, _, _) = emu.raw("HEAD", path, &[("authorization", auth)], "").await;
    assert_eq!(status, 200);
    let url = format!("{}{path}", emu.endpoint);
    let (bucket, key) = cumulo::services::s3::parse_object_url(&url).unwrap();
    assert_eq!(
        &emu.app.s3.get_object(&bucket, &key).unwrap()[..],
        template.as_bytes()
    );
    let (status, _, body) = emu
        .raw(
            "GET",
            "/mybucket/missing.template",
            &[("authorization", auth)],
            "",
        )
        .await;
    assert_eq!(status, 404);
    assert!(body.contains("<Code>NoSuchKey</Code>"), "{body}");
    let (status, _, body) = emu
        .raw("GET", "/mybucket?policy", &[("authorization", auth)], "")
        .await;
    assert_eq!(status, 400);
    assert!(body.contains("<Code>NotImplemented</Code>"), "{body}");
}

fn md5_of(bytes: &[u8]) -> u128 {
    use md5::{Digest, Md5};
    u128::from_be_bytes(Md5::digest(bytes).into())
}

/// An object over the 16 MiB limit of the other services, uploaded with a form Content-Type,
/// is S3's (the signature names S3): it is stored, not refused with a CloudFormation 413.
#[tokio::test]
async fn a_large_upload_with_a_form_content_type_is_routed_by_its_signature() {
    let emu = Emulator::start().await;
    let s3 = client(&emu).await;
    s3.create_bucket().bucket("forms").send().await.unwrap();
    let body = vec![b'a'; 17 * 1024 * 1024];
    s3.put_object()
        .bucket("forms")
        .key("big")
        .content_type("application/x-www-form-urlencoded")
        .body(body.into())
        .send()
        .await
        .unwrap();
    let head = s3
        .head_object()
        .bucket("forms")
        .key("big")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(17 * 1024 * 1024));
    assert_eq!(
        head.content_type(),
        Some("application/x-www-form-urlencoded")
    );
}

/// DeleteObjects with an entity-expansion body (a DTD defining nested entities) is
/// `MalformedXML`, and deletes nothing.
#[tokio::test]
async fn delete_objects_refuses_a_dtd() {
    let emu = Emulator::start().await;
    let s3 = client(&emu).await;
    s3.create_bucket().bucket("lol").send().await.unwrap();
    s3.put_object()
        .bucket("lol")
        .key("keep")
        .body(b"x".to_vec().into())
        .send()
        .await
        .unwrap();
    let body = r#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "keep"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><Delete><Object><Key>&a;</Key></Object><Object><Key>&b;</Key></Object></Delete>"#;
    let (status, _, answer) = emu
        .raw(
            "POST",
            "/lol?delete",
            &[("content-type", "application/xml")],
            body,
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("<Code>MalformedXML</Code>"), "{answer}");
    assert!(s3
        .head_object()
        .bucket("lol")
        .key("keep")
        .send()
        .await
        .is_ok());
}
