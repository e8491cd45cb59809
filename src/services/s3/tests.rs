//! Table tests of the S3 core: bucket names and regions, objects and ETags, listing with
//! prefixes, delimiters and pages, and the URLs CloudFormation's TemplateURL may take.

use chrono::TimeZone;

use super::*;

fn s3() -> S3 {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    S3::new(clock, Storage::memory())
}

fn scope() -> Scope {
    Scope::default_scope()
}

fn body(text: &str) -> PutObjectInput {
    PutObjectInput {
        body: Bytes::from(text.to_string()),
        ..Default::default()
    }
}

#[test]
fn bucket_names() {
    for (name, ok) in [
        ("abc", true),
        ("my-bucket.with.dots", true),
        ("ab", false),
        (&*"a".repeat(64), false),
        ("Upper", false),
        ("-start", false),
        ("end-", false),
        ("dou..ble", false),
        ("192.168.0.1", false),
        ("under_score", false),
    ] {
        assert_eq!(valid_bucket_name(name), ok, "{name}");
    }
}

#[test]
fn buckets_regions_and_ownership() {
    let s3 = s3();
    let b = s3.create_bucket(&scope(), "tpl", None).unwrap();
    assert_eq!(b.region, "us-east-1");
    assert!(
        s3.create_bucket(&scope(), "tpl", None).is_ok(),
        "us-east-1 legacy: 200"
    );
    assert_eq!(
        s3.create_bucket(&Scope::new("111111111111", "us-east-1"), "tpl", None),
        Err(Error::BucketAlreadyExists("tpl".into()))
    );
    let eu = Scope::new("000000000000", "eu-west-1");
    assert!(matches!(
        s3.create_bucket(&eu, "eu-bucket", None),
        Err(Error::IllegalLocationConstraint(_))
    ));
    assert_eq!(
        s3.create_bucket(&eu, "eu-bucket", Some("eu-west-1"))
            .unwrap()
            .region,
        "eu-west-1"
    );
    assert_eq!(
        s3.create_bucket(&eu, "eu-bucket", Some("eu-west-1")),
        Err(Error::BucketAlreadyOwnedByYou("eu-bucket".into()))
    );
    assert_eq!(
        s3.create_bucket(&scope(), "x-bucket", Some("us-east-1")),
        Err(Error::InvalidLocationConstraint)
    );
    assert_eq!(
        s3.create_bucket(&scope(), "Bad_Name", None),
        Err(Error::InvalidBucketName("Bad_Name".into()))
    );
    assert_eq!(s3.list_buckets("000000000000").len(), 2);
    s3.put_object("tpl", "k", body("x")).unwrap();
    assert_eq!(
        s3.delete_bucket("tpl"),
        Err(Error::BucketNotEmpty("tpl".into()))
    );
    s3.delete_object("tpl", "k").unwrap();
    s3.delete_object("tpl", "k").unwrap();
    s3.delete_bucket("tpl").unwrap();
    assert_eq!(
        s3.head_bucket("tpl"),
        Err(Error::NoSuchBucket("tpl".into()))
    );
    assert_eq!(
        s3.delete_bucket("tpl"),
        Err(Error::NoSuchBucket("tpl".into()))
    );
}

#[test]
fn objects_have_md5_etags_and_checked_digests() {
    let s3 = s3();
    s3.create_bucket(&scope(), "b-1", None).unwrap();
    let o = s3
        .put_object("b-1", "pfx/t.template", body("hello"))
        .unwrap();
    assert_eq!(o.etag, "\"5d41402abc4b2a76b9719d911017c592\"");
    assert_eq!(o.content_type, DEFAULT_CONTENT_TYPE);
    assert_eq!(
        s3.get_object("b-1", "pfx/t.template").unwrap(),
        Bytes::from("hello")
    );
    assert_eq!(
        s3.get_object("b-1", "nope"),
        Err(Error::NoSuchKey("nope".into()))
    );
    assert_eq!(
        s3.get_object("nob", "x"),
        Err(Error::NoSuchBucket("nob".into()))
    );
    let good_md5 = PutObjectInput {
        content_md5: Some("XUFAKrxLKna5cZ2REBfFkg==".into()),
        ..body("hello")
    };
    assert!(s3.put_object("b-1", "m", good_md5).is_ok());
    let bad_md5 = PutObjectInput {
        content_md5: Some("XUFAKrxLKna5cZ2REBfFkg==".into()),
        ..body("other")
    };
    assert_eq!(s3.put_object("b-1", "m", bad_md5), Err(Error::BadDigest));
    let junk_md5 = PutObjectInput {
        content_md5: Some("junk".into()),
        ..body("x")
    };
    assert_eq!(
        s3.put_object("b-1", "m", junk_md5),
        Err(Error::InvalidDigest)
    );
    assert_eq!(
        s3.put_object("nob", "m", body("x")),
        Err(Error::NoSuchBucket("nob".into()))
    );
}

#[test]
fn listing_pages_prefixes_and_delimiters() {
    let s3 = s3();
    s3.create_bucket(&scope(), "list", None).unwrap();
    for key in ["a/1", "a/2", "a/b/3", "c", "d/4"] {
        s3.put_object("list", key, body("x")).unwrap();
    }
    let keys = |o: &ListObjectsOutput| o.contents.iter().map(|c| c.key.clone()).collect::<Vec<_>>();
    let all = s3
        .list_objects("list", &ListObjectsInput::default())
        .unwrap();
    assert_eq!(keys(&all), ["a/1", "a/2", "a/b/3", "c", "d/4"]);
    let grouped = s3
        .list_objects(
            "list",
            &ListObjectsInput {
                delimiter: Some("/".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(keys(&grouped), ["c"]);
    assert_eq!(grouped.common_prefixes, ["a/", "d/"]);
    let under_a = s3
        .list_objects(
            "list",
            &ListObjectsInput {
                prefix: Some("a/".into()),
                delimiter: Some("/".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(keys(&under_a), ["a/1", "a/2"]);
    assert_eq!(under_a.common_prefixes, ["a/b/"]);
    let page1 = s3
        .list_objects(
            "list",
            &ListObjectsInput {
                max_keys: Some(2),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(page1.is_truncated);
    let page2 = s3
        .list_objects(
            "list",
            &ListObjectsInput {
                max_keys: Some(2),
                after: page1.last.clone(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(keys(&page2), ["a/b/3", "c"]);
    let grouped_page = s3
        .list_objects(
            "list",
            &ListObjectsInput {
                delimiter: Some("/".into()),
                max_keys: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(grouped_page.common_prefixes, ["a/"]);
    let next = s3
        .list_objects(
            "list",
            &ListObjectsInput {
                delimiter: Some("/".into()),
                max_keys: Some(1),
                after: grouped_page.last.clone(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(keys(&next), ["c"], "the a/ group is not listed twice");
    assert!(s3
        .list_objects(
            "list",
            &ListObjectsInput {
                max_keys: Some(-1),
                ..Default::default()
            }
        )
        .is_err());
}

#[test]
fn template_urls() {
    for (url, want) in [
        (
            "http://localhost:4566/mybucket/pfx/abc.template",
            Some(("mybucket", "pfx/abc.template")),
        ),
        (
            "http://127.0.0.1:4566/mybucket/a%20b.yaml?versionId=1",
            Some(("mybucket", "a b.yaml")),
        ),
        (
            "https://s3.amazonaws.com/mybucket/t.yaml",
            Some(("mybucket", "t.yaml")),
        ),
        (
            "https://s3.eu-west-1.amazonaws.com/mybucket/t.yaml",
            Some(("mybucket", "t.yaml")),
        ),
        (
            "https://mybucket.s3.amazonaws.com/dir/t.yaml",
            Some(("mybucket", "dir/t.yaml")),
        ),
        (
            "https://mybucket.s3.us-west-2.amazonaws.com/t.yaml",
            Some(("mybucket", "t.yaml")),
        ),
        (
            "https://mybucket.s3-us-west-2.amazonaws.com/t.yaml",
            Some(("mybucket", "t.yaml")),
        ),
        ("http://localhost:4566/onlybucket", None),
        ("not a url", None),
    ] {
        let got = parse_object_url(url);
        let want = want.map(|(b, k)| (b.to_string(), k.to_string()));
        assert_eq!(got, want, "{url}");
    }
}

#[test]
fn buckets_and_objects_survive_a_restart_over_a_durable_store() {
    let clock = Clock::manual_at(Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap());
    let storage = crate::services::test_backend::storage();
    let before = S3::new(clock.clone(), storage.clone());
    before.create_bucket(&scope(), "kept", None).unwrap();
    before
        .put_object("kept", "dir/a.yaml", body("template"))
        .unwrap();
    before.put_object("kept", "b", body("x")).unwrap();
    before.delete_object("kept", "b").unwrap();
    let after = S3::new(clock, storage);
    assert_eq!(
        after.get_object("kept", "dir/a.yaml").unwrap(),
        Bytes::from("template")
    );
    assert_eq!(
        after.get_object("kept", "b"),
        Err(Error::NoSuchKey("b".into()))
    );
    assert_eq!(after.head_bucket("kept").unwrap().region, "us-east-1");
}
