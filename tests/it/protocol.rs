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
