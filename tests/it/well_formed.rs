//! Every answer parses with the official SDKs (issue 17.3): control characters a request
//! carries are never echoed into XML that XML 1.0 forbids (boto3 raised `ResponseParserError`
//! instead of the service's error), S3 listings of such keys stay readable, and `/_cumulo/`
//! errors are always the documented JSON.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{boto3, Emulator};

/// boto3 gets the client error each service answers, not a parser error.
#[tokio::test]
async fn boto3_reads_errors_that_echo_control_characters() {
    let emu = Emulator::start().await;
    let out = boto3(
        &emu,
        r#"
import boto3, botocore.exceptions as be
def show(call):
    try:
        call()
        print("ok")
    except be.ClientError as e:
        print(e.response["Error"]["Code"], "|", e.response["Error"]["Message"].encode("unicode_escape").decode())
cfn = boto3.client("cloudformation")
show(lambda: cfn.describe_stacks(StackName="a\x01b"))
show(lambda: cfn.create_stack(StackName="a\x01b", TemplateBody="Resources: {}"))
sns = boto3.client("sns")
show(lambda: sns.get_topic_attributes(TopicArn="arn:aws:sns:us-east-1:000000000000:a\x01b"))
show(lambda: sns.create_topic(Name="a\x02b"))
s3 = boto3.client("s3")
s3.create_bucket(Bucket="ctl-errors")
show(lambda: s3.get_object(Bucket="ctl-errors", Key="k\x01"))
show(lambda: s3.copy_object(Bucket="ctl-errors", Key="c", CopySource={"Bucket": "ctl-errors", "Key": "src\x01"}))
"#,
    )
    .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(
        lines[0],
        "ValidationError | Stack with id a\\ufffdb does not exist"
    );
    assert!(
        lines[1].starts_with(
            "ValidationError | 1 validation error detected: Value 'a\\ufffdb' at 'stackName'"
        ),
        "{out}"
    );
    assert!(lines[2].starts_with("NotFound | "), "{out}");
    assert!(lines[3].starts_with("InvalidParameter | "), "{out}");
    assert!(lines[4].starts_with("NoSuchKey | "), "{out}");
    assert!(lines[5].starts_with("NoSuchKey | "), "{out}");
}

/// A key with a control character lists URL-encoded (saying so), whatever the SDK asked:
/// boto3 (which asks for `encoding-type=url` itself) gets the key back as stored, the Rust SDK
/// (which does not) gets a listing it can parse, marked `EncodingType=url`.
#[tokio::test]
async fn keys_with_control_characters_list_with_every_sdk() {
    let emu = Emulator::start().await;
    let out = boto3(
        &emu,
        r#"
import boto3
s3 = boto3.client("s3")
s3.create_bucket(Bucket="ctl")
s3.put_object(Bucket="ctl", Key="a\x01b", Body=b"x")
s3.put_object(Bucket="ctl", Key="plain", Body=b"y")
print([o["Key"] for o in s3.list_objects_v2(Bucket="ctl")["Contents"]])
print([o["Key"] for o in s3.list_objects(Bucket="ctl")["Contents"]])
print(s3.get_object(Bucket="ctl", Key="a\x01b")["Body"].read())
"#,
    )
    .await;
    assert_eq!(
        out, "['a\\x01b', 'plain']\n['a\\x01b', 'plain']\nb'x'\n",
        "{out}"
    );
    let s3 = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&emu.sdk_config().await)
            .force_path_style(true)
            .build(),
    );
    let listed = s3.list_objects_v2().bucket("ctl").send().await.unwrap();
    assert_eq!(
        listed.encoding_type(),
        Some(&aws_sdk_s3::types::EncodingType::Url)
    );
    let keys: Vec<&str> = listed.contents().iter().filter_map(|o| o.key()).collect();
    assert_eq!(keys, ["a%01b", "plain"]);
}

async fn control_json(emu: &Emulator, method: &str, path: &str) -> (u16, serde_json::Value) {
    let (status, headers, body) = emu.raw(method, path, &[], "").await;
    assert_eq!(
        headers.get("content-type").map(|v| v.to_str().unwrap()),
        Some("application/json"),
        "{path}: {body}"
    );
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
    (status, json)
}

#[tokio::test]
async fn control_errors_are_always_json() {
    let emu = Emulator::start().await;
    for (method, path) in [
        (
            "GET",
            "/_cumulo/scheduler/preview?expression=rate(1%20minute)&count=1&count=2",
        ),
        ("GET", "/_cumulo/scheduler/invocations?limit=1&limit=2"),
        ("DELETE", "/_cumulo/faults/%FF%FE"),
        ("GET", "/_cumulo/scheduler/schedules/%FF/x/preview"),
    ] {
        let (status, body) = control_json(&emu, method, path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["error"], "ValidationException", "{path}: {body}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
}

/// A control request declaring a body over 1 MiB is answered at once, without waiting for a
/// byte of it (the client here never sends one).
#[tokio::test]
async fn control_bodies_over_the_limit_are_refused_at_once() {
    let emu = Emulator::start().await;
    let addr = emu.endpoint.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /_cumulo/faults HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        2 * 1024 * 1024
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    // A guard against a hang, not a speed assertion: the answer needs no body byte at all.
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            answer.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&answer);
            if n == 0 || text.contains("}") {
                break;
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no answer while the body was withheld");
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(
        text.contains(r#""error":"RequestEntityTooLarge""#),
        "{text}"
    );
}
