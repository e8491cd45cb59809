//! `CUMULO_AUTH=sigv4` (issue 17): the AWS SDK for Rust signs real requests for every protocol
//! (awsQuery: CloudFormation and SNS; awsJson: SQS and SSM; restJson: Scheduler; restXml: S3,
//! presigned URLs included) with the right secret, a wrong one and an unknown key; each answer
//! is the service's own code in its own shape; the account is the key file's; `/_cumulo/`
//! stays open; and skew is measured against a system clock (a manual clock skips it).

use std::time::{Duration, SystemTime};

use aws_config::SdkConfig;
use aws_sdk_sqs::config::http::HttpResponse;
use aws_sdk_sqs::error::{ProvideErrorMetadata, SdkError};
use aws_smithy_async::time::StaticTimeSource;
use cumulo::clock::{Clock, ClockMode};
use cumulo::config::Auth;
use cumulo::Config;

use crate::support::{t0, Emulator};

const KEY: &str = "AKIACUMULOTESTKEY01";
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const ACCOUNT: &str = "123456789012";

fn auth() -> Auth {
    cumulo::protocol::auth::keys::parse(&format!("{KEY} {SECRET} {ACCOUNT}\n")).unwrap()
}

async fn emulator(clock: Clock) -> Emulator {
    Emulator::start_with(
        Config {
            auth: auth(),
            ..Config::default()
        },
        clock,
    )
    .await
}

async fn signed(em: &Emulator, key: &str, secret: &str, at: Option<SystemTime>) -> SdkConfig {
    let creds = aws_credential_types::Credentials::new(key, secret, None, None, "auth-tests");
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(creds)
        .endpoint_url(&em.endpoint)
        .retry_config(aws_config::retry::RetryConfig::disabled());
    if let Some(at) = at {
        loader = loader.time_source(StaticTimeSource::new(at));
    }
    loader.load().await
}

/// The error code and message of a failed SDK call, and the HTTP status.
fn code_of<E: ProvideErrorMetadata>(err: SdkError<E, HttpResponse>) -> (String, String, u16) {
    let status = err.raw_response().map(|r| r.status().as_u16()).unwrap_or(0);
    (
        err.code().unwrap_or("").to_string(),
        err.message().unwrap_or("").to_string(),
        status,
    )
}

const MISMATCH: &str =
    "The request signature we calculated does not match the signature you provided.";

#[tokio::test]
async fn every_protocol_verifies_right_secrets_and_refuses_wrong_ones() {
    let em = emulator(Clock::manual_at(t0())).await;
    let good = signed(&em, KEY, SECRET, None).await;
    let wrong = signed(&em, KEY, "not-the-secret", None).await;
    let unknown = signed(&em, "AKIAUNKNOWNKEY000001", SECRET, None).await;

    // awsQuery: CloudFormation and SNS.
    let cfn = aws_sdk_cloudformation::Client::new(&good);
    cfn.list_stacks().send().await.expect("a signed ListStacks");
    let (code, message, status) = code_of(
        aws_sdk_cloudformation::Client::new(&wrong)
            .list_stacks()
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!((code.as_str(), status), ("SignatureDoesNotMatch", 403));
    assert!(message.starts_with(MISMATCH), "{message}");
    assert!(message.contains("The Canonical String for this request should have been"));
    let (code, message, status) = code_of(
        aws_sdk_cloudformation::Client::new(&unknown)
            .list_stacks()
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (code.as_str(), message.as_str(), status),
        (
            "InvalidClientTokenId",
            "The security token included in the request is invalid.",
            403
        )
    );
    let topic = aws_sdk_sns::Client::new(&good)
        .create_topic()
        .name("t")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    assert_eq!(
        topic,
        format!("arn:aws:sns:us-east-1:{ACCOUNT}:t"),
        "the key's account"
    );
    let (code, _, _) = code_of(
        aws_sdk_sns::Client::new(&wrong)
            .list_topics()
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(code, "SignatureDoesNotMatch");

    // awsJson: SQS (query-compatible: the query code reaches the SDK) and SSM.
    let url = aws_sdk_sqs::Client::new(&good)
        .create_queue()
        .queue_name("q")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    assert!(url.contains(&format!("/{ACCOUNT}/q")), "{url}");
    let (code, message, status) = code_of(
        aws_sdk_sqs::Client::new(&wrong)
            .list_queues()
            .send()
            .await
            .unwrap_err(),
    );
    assert!(
        code == "SignatureDoesNotMatch" || code == "InvalidSignatureException",
        "{code}"
    );
    assert!(message.starts_with(MISMATCH), "{message}");
    assert_eq!(status, 403);
    let (code, _, status) = code_of(
        aws_sdk_sqs::Client::new(&unknown)
            .list_queues()
            .send()
            .await
            .unwrap_err(),
    );
    assert!(
        code == "InvalidClientTokenId" || code == "UnrecognizedClientException",
        "{code}"
    );
    assert_eq!(status, 403);
    aws_sdk_ssm::Client::new(&good)
        .put_parameter()
        .name("/p")
        .value("v")
        .r#type(aws_sdk_ssm::types::ParameterType::String)
        .send()
        .await
        .expect("a signed PutParameter");
    let (code, _, status) = code_of(
        aws_sdk_ssm::Client::new(&wrong)
            .get_parameter()
            .name("/p")
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!((code.as_str(), status), ("InvalidSignatureException", 400));
    let (code, _, status) = code_of(
        aws_sdk_ssm::Client::new(&unknown)
            .get_parameter()
            .name("/p")
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (code.as_str(), status),
        ("UnrecognizedClientException", 400)
    );

    // restJson: Scheduler (a path with an ARN, encoded twice in the canonical request).
    let scheduler = aws_sdk_scheduler::Client::new(&good);
    let group = scheduler
        .create_schedule_group()
        .name("g")
        .send()
        .await
        .unwrap()
        .schedule_group_arn;
    scheduler
        .list_tags_for_resource()
        .resource_arn(&group)
        .send()
        .await
        .expect("a signed request whose path holds an ARN");
    let (code, _, status) = code_of(
        aws_sdk_scheduler::Client::new(&wrong)
            .list_schedules()
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!((code.as_str(), status), ("InvalidSignatureException", 403));
    let (code, message, status) = code_of(
        aws_sdk_scheduler::Client::new(&unknown)
            .list_schedules()
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (code.as_str(), message.as_str(), status),
        (
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
            403
        )
    );
}

#[tokio::test]
async fn s3_verifies_payload_hashes_and_presigned_urls() {
    let em = emulator(Clock::manual_at(t0())).await;
    let s3 = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&signed(&em, KEY, SECRET, None).await)
            .force_path_style(true)
            .build(),
    );
    s3.create_bucket().bucket("bkt").send().await.unwrap();
    s3.put_object()
        .bucket("bkt")
        .key("dir/a file.txt")
        .body(aws_sdk_s3::primitives::ByteStream::from_static(b"hello"))
        .send()
        .await
        .expect("a signed PutObject");
    let got = s3
        .get_object()
        .bucket("bkt")
        .key("dir/a file.txt")
        .send()
        .await
        .unwrap();
    assert_eq!(
        got.body.collect().await.unwrap().into_bytes().as_ref(),
        b"hello"
    );

    let wrong = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&signed(&em, KEY, "nope", None).await)
            .force_path_style(true)
            .build(),
    );
    let err = wrong
        .get_object()
        .bucket("bkt")
        .key("dir/a file.txt")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("SignatureDoesNotMatch"));
    let unknown = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&signed(&em, "AKIAUNKNOWNKEY000001", SECRET, None).await)
            .force_path_style(true)
            .build(),
    );
    let err = unknown.list_buckets().send().await.unwrap_err();
    assert_eq!(err.code(), Some("InvalidAccessKeyId"));

    // Presigned GET: works as signed, refused once tampered with.
    let presigned = s3
        .get_object()
        .bucket("bkt")
        .key("dir/a file.txt")
        .presigned(
            aws_sdk_s3::presigning::PresigningConfig::expires_in(Duration::from_secs(300)).unwrap(),
        )
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let ok = http.get(presigned.uri()).send().await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text().await.unwrap(), "hello");
    let tampered = presigned
        .uri()
        .replace("X-Amz-Expires=300", "X-Amz-Expires=301");
    let refused = http.get(&tampered).send().await.unwrap();
    assert_eq!(refused.status(), 403);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("<Code>SignatureDoesNotMatch</Code>"));

    // A body that is not the one whose hash was signed.
    let (status, _, body) = em
        .raw(
            "PUT",
            "/bkt/x",
            &[
                ("x-amz-content-sha256", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"),
                ("x-amz-date", "20300101T120000Z"),
                ("authorization", &format!("AWS4-HMAC-SHA256 Credential={KEY}/20300101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=00")),
            ],
            "not hello",
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("<Code>XAmzContentSHA256Mismatch</Code>"),
        "{body}"
    );
}

#[tokio::test]
async fn unsigned_requests_are_refused_but_cumulo_endpoints_stay_open() {
    let em = emulator(Clock::manual_at(t0())).await;
    let (status, _, body) = em
        .raw(
            "POST",
            "/",
            &[("content-type", "application/x-www-form-urlencoded")],
            "Action=ListStacks&Version=2010-05-15",
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains("<Code>MissingAuthenticationToken</Code>"),
        "{body}"
    );
    let (status, _, body) = em
        .raw(
            "POST",
            "/",
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("authorization", &format!("AWS4-HMAC-SHA256 Credential={KEY}/20300101/us-east-1/cloudformation/aws4_request, SignedHeaders=host")),
                ("x-amz-date", "20300101T120000Z"),
            ],
            "Action=ListStacks",
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("<Code>IncompleteSignature</Code>")
            && body.contains("Authorization header requires &apos;Signature&apos; parameter."),
        "{body}"
    );
    let (status, _) = em.control("GET", "/_cumulo/health", None).await;
    assert_eq!(status, 200);
    let (status, _) = em
        .control(
            "POST",
            "/_cumulo/clock",
            Some(serde_json::json!({"advance_seconds": 1})),
        )
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn skew_is_measured_against_a_system_clock() {
    let em = emulator(Clock::new(ClockMode::System)).await;
    // Signed in 2020: far outside any skew of the emulator's (wall) clock.
    let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_577_836_800);
    let old = signed(&em, KEY, SECRET, Some(past)).await;
    let (code, message, status) = code_of(
        aws_sdk_cloudformation::Client::new(&old)
            .list_stacks()
            .send()
            .await
            .unwrap_err(),
    );
    assert_eq!((code.as_str(), status), ("SignatureDoesNotMatch", 403));
    assert!(
        message.starts_with("Signature expired: 20200101T000000Z is now earlier than ")
            && message.ends_with(" - 5 min.)"),
        "{message}"
    );
    let s3 = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&old)
            .force_path_style(true)
            .build(),
    );
    let err = s3.list_buckets().send().await.unwrap_err();
    assert_eq!(err.code(), Some("RequestTimeTooSkewed"));
    // A manual clock (frozen in 2030 here) does not measure skew: the same request passes.
    let manual = emulator(Clock::manual_at(t0())).await;
    let old = signed(&manual, KEY, SECRET, Some(past)).await;
    aws_sdk_cloudformation::Client::new(&old)
        .list_stacks()
        .send()
        .await
        .expect("no skew check under a manual clock");
}

/// S3's signed streaming upload (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`): the seed signature and
/// every chunk signature are made by the AWS SDK's own signer (`aws-sigv4`); each chunk is
/// checked against the chain, so a changed byte is refused.
#[tokio::test]
async fn s3_signed_chunked_uploads_are_checked_chunk_by_chunk() {
    use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
    use aws_sigv4::sign::v4;

    let em = emulator(Clock::manual_at(t0())).await;
    let sdk = signed(&em, KEY, SECRET, None).await;
    let s3 = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&sdk)
            .force_path_style(true)
            .build(),
    );
    s3.create_bucket().bucket("bkt").send().await.unwrap();

    let identity: aws_smithy_runtime_api::client::identity::Identity =
        aws_credential_types::Credentials::new(KEY, SECRET, None, None, "chunks").into();
    let params = || {
        v4::SigningParams::builder()
            .identity(&identity)
            .region("us-east-1")
            .name("s3")
            .time(SystemTime::UNIX_EPOCH + Duration::from_secs(1_893_499_200))
            .settings(SigningSettings::default())
            .build()
            .unwrap()
    };
    let chunks: [&[u8]; 3] = [b"hello ", b"world", b""];
    let frame_len = |n: usize| format!("{n:x};chunk-signature=").len() + 64 + 2 + n + 2;
    let content_length: usize = chunks.iter().map(|c| frame_len(c.len())).sum();
    let host = em.endpoint.trim_start_matches("http://").to_string();
    let url = format!("{}/bkt/chunked", em.endpoint);
    let length = content_length.to_string();
    let headers = [
        ("host", host.as_str()),
        ("x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"),
        ("content-encoding", "aws-chunked"),
        ("x-amz-decoded-content-length", "11"),
        ("content-length", length.as_str()),
    ];
    let request = SignableRequest::new(
        "PUT",
        url.as_str(),
        headers.iter().copied(),
        SignableBody::Precomputed("STREAMING-AWS4-HMAC-SHA256-PAYLOAD".into()),
    )
    .unwrap();
    let (instructions, seed) = sign(request, &params().into()).unwrap().into_parts();
    let mut body = Vec::new();
    let mut running = seed;
    for chunk in chunks {
        let signature = v4::sign_chunk(&bytes::Bytes::copy_from_slice(chunk), &running, &params())
            .unwrap()
            .into_parts()
            .1;
        body.extend_from_slice(
            format!("{:x};chunk-signature={signature}\r\n", chunk.len()).as_bytes(),
        );
        body.extend_from_slice(chunk);
        body.extend_from_slice(b"\r\n");
        running = signature;
    }
    assert_eq!(body.len(), content_length);
    let (signed_headers, _) = instructions.into_parts();
    let send = |body: Vec<u8>| {
        let mut req = reqwest::Client::new().put(&url).body(body);
        for (name, value) in headers
            .iter()
            .filter(|(n, _)| *n != "host" && *n != "content-length")
        {
            req = req.header(*name, *value);
        }
        for header in &signed_headers {
            req = req.header(header.name(), header.value());
        }
        req.send()
    };
    let ok = send(body.clone()).await.unwrap();
    assert_eq!(ok.status(), 200, "{}", ok.text().await.unwrap());
    let got = s3
        .get_object()
        .bucket("bkt")
        .key("chunked")
        .send()
        .await
        .unwrap();
    assert_eq!(
        got.body.collect().await.unwrap().into_bytes().as_ref(),
        b"hello world"
    );

    let mut tampered = body;
    let at = tampered.windows(5).position(|w| w == b"world").unwrap();
    tampered[at] = b'W';
    let refused = send(tampered).await.unwrap();
    assert_eq!(refused.status(), 403);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("<Code>SignatureDoesNotMatch</Code>"));
}
