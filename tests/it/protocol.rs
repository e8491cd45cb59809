//! The HTTP edge: routing and errors for requests no service claims.

use crate::support::Emulator;

#[tokio::test]
async fn unknown_service_is_a_400_naming_it_never_a_500() {
    let emu = Emulator::start().await;
    let (status, headers, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("authorization", "AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/kinesis/aws4_request, SignedHeaders=host, Signature=x"),
                ("content-type", "application/x-amz-json-1.1"),
                ("x-amz-target", "Kinesis_20131202.ListStreams"),
            ],
            "{}",
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("kinesis"), "{body}");
    assert!(headers.contains_key("x-amzn-requestid"));
}

/// `Authorization` of a SigV4 request to `service` (the signature is not checked).
fn signed(service: &str) -> String {
    format!("AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/{service}/aws4_request, SignedHeaders=host, Signature=x")
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_in_the_services_own_error_shape() {
    let emu = Emulator::start().await;
    let big = "a".repeat(cumulo::protocol::MAX_BODY_BYTES + 1);
    let (status, headers, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("authorization", &signed("sqs")),
                ("content-type", "application/x-amz-json-1.0"),
                ("x-amz-target", "AmazonSQS.SendMessage"),
            ],
            &big,
        )
        .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(headers["content-type"], "application/x-amz-json-1.0");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["__type"], "com.amazonaws.sqs#RequestEntityTooLarge");

    let (status, headers, body) = emu
        .raw(
            "POST",
            "/",
            &[
                ("authorization", &signed("cloudformation")),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
            &big,
        )
        .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(headers["content-type"], "text/xml");
    assert!(
        body.contains("<Code>RequestEntityTooLarge</Code>"),
        "{body}"
    );
}

#[tokio::test]
async fn s3_takes_objects_over_the_general_limit_and_refuses_a_declared_size_over_its_own() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let emu = Emulator::start().await;
    let auth = signed("s3");
    let (status, _, body) = emu
        .raw("PUT", "/big-objects", &[("authorization", &auth)], "")
        .await;
    assert_eq!(status, 200, "{body}");
    let object = "b".repeat(cumulo::protocol::MAX_BODY_BYTES + 1);
    let (status, _, body) = emu
        .raw(
            "PUT",
            "/big-objects/k",
            &[("authorization", &auth)],
            &object,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, headers, _) = emu
        .raw("HEAD", "/big-objects/k", &[("authorization", &auth)], "")
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-length"], object.len().to_string().as_str());

    // A PUT declaring more than MAX_S3_BODY_BYTES is refused before any of it is read.
    let addr = emu.endpoint.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let request = format!(
        "PUT /big-objects/huge HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {auth}\r\nContent-Length: {}\r\n\r\n",
        cumulo::protocol::MAX_S3_BODY_BYTES as u64 + 1
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = stream.read(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("<Code>EntityTooLarge</Code>"), "{answer}");
    assert!(
        answer.contains("Your proposed upload exceeds the maximum allowed size"),
        "{answer}"
    );
}

/// Writes `head` then `body` on a fresh connection; answers the response's first bytes.
async fn raw_tcp(emu: &Emulator, head: &str, body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = emu.endpoint.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    // The server may answer and close before taking all of a body it refuses.
    let _ = stream.write_all(body).await;
    let mut answer = vec![0u8; 4096];
    let n = stream.read(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

#[tokio::test]
async fn an_unsigned_form_over_the_limit_is_not_taken_for_an_s3_upload() {
    let emu = Emulator::start().await;
    let big = format!(
        "Action=ListStacks&Version=2010-05-15&Pad={}",
        "a".repeat(cumulo::protocol::MAX_BODY_BYTES)
    );
    let (status, _, body) = emu
        .raw(
            "POST",
            "/",
            &[("content-type", "application/x-www-form-urlencoded")],
            &big,
        )
        .await;
    assert_eq!(status, 413, "{body}");
    assert!(
        body.contains("<Code>RequestEntityTooLarge</Code>"),
        "an awsQuery error: {body}"
    );
}

#[tokio::test]
async fn a_chunked_body_is_held_to_the_limit_and_a_broken_one_is_an_incomplete_body() {
    let emu = Emulator::start().await;
    let head = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: AmazonSQS.ListQueues\r\nTransfer-Encoding: chunked\r\n\r\n",
        signed("sqs")
    );
    // No Content-Length: the limit is met while reading.
    let chunk = vec![b'a'; 1024 * 1024];
    let mut body = Vec::new();
    for _ in 0..17 {
        body.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        body.extend_from_slice(&chunk);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"0\r\n\r\n");
    let answer = raw_tcp(&emu, &head, &body).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.contains("com.amazonaws.sqs#RequestEntityTooLarge"),
        "{answer}"
    );
    // A chunk size that is not hexadecimal: the body cannot be read to its end.
    let answer = raw_tcp(&emu, &head, b"zz\r\n{}\r\n0\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("com.amazonaws.sqs#IncompleteBody"),
        "{answer}"
    );
}
