//! Connection limits over real sockets (issue 17, item 2): a client that sends its headers too
//! slowly, an idle kept-alive connection and a body shorter than its Content-Length are closed
//! (or answered) after their configured timeouts, and connections beyond
//! `CUMULO_MAX_CONNECTIONS` get a 503 in their protocol's shape while health answers again
//! once they go. Timeouts are configured short; every wait here is bounded by a generous
//! `tokio::time::timeout`, never a sleep.

use std::time::Duration;

use cumulo::config::ConnectionLimits;
use cumulo::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{t0, Emulator};

/// How long a test waits for something the server must do within a second.
const PATIENCE: Duration = Duration::from_secs(15);

async fn emulator(limits: ConnectionLimits) -> Emulator {
    Emulator::start_with(
        Config {
            connections: limits,
            ..Config::default()
        },
        cumulo::clock::Clock::manual_at(t0()),
    )
    .await
}

fn short(max_connections: usize) -> ConnectionLimits {
    ConnectionLimits {
        header_read_timeout: Duration::from_millis(400),
        body_read_timeout: Duration::from_millis(400),
        max_connections,
    }
}

async fn connect(emulator: &Emulator) -> TcpStream {
    let addr = emulator.endpoint.trim_start_matches("http://");
    TcpStream::connect(addr).await.expect("connect")
}

/// Everything the server sends until it closes the connection; panics if it has not closed
/// it within [`PATIENCE`].
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "the server kept the connection open; it sent {:?}",
        String::from_utf8_lossy(&out)
    );
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads one response whose body has a Content-Length, leaving the connection open.
async fn read_response(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf).await.expect("read");
            assert!(n > 0, "closed before a whole response");
            out.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&out);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if out.len() >= end + 4 + length {
                    return;
                }
            }
        }
    })
    .await
    .expect("a response in time");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn a_client_sending_its_headers_too_slowly_is_closed() {
    let emulator = emulator(short(100)).await;
    let mut stream = connect(&emulator).await;
    stream
        .write_all(b"GET /_cumulo/health HTTP/1.1\r\nHost: cumulo\r\nX-Slow: ")
        .await
        .unwrap();
    let sent = read_until_closed(&mut stream).await;
    assert!(!sent.contains("200 OK"), "{sent}");
    // The server still answers others.
    let (status, _) = emulator.control("GET", "/_cumulo/health", None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_connection_opened_and_never_used_is_closed() {
    let emulator = emulator(short(100)).await;
    let mut stream = connect(&emulator).await;
    assert_eq!(read_until_closed(&mut stream).await, "");
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    let emulator = emulator(short(100)).await;
    let mut stream = connect(&emulator).await;
    stream
        .write_all(b"GET /_cumulo/health HTTP/1.1\r\nHost: cumulo\r\n\r\n")
        .await
        .unwrap();
    let first = read_response(&mut stream).await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(!first.to_ascii_lowercase().contains("connection: close"));
    // Kept alive: a second request on it is answered too.
    stream
        .write_all(b"GET /_cumulo/health HTTP/1.1\r\nHost: cumulo\r\n\r\n")
        .await
        .unwrap();
    assert!(read_response(&mut stream).await.starts_with("HTTP/1.1 200"));
    // Then nothing more: closed after the idle timeout.
    assert_eq!(read_until_closed(&mut stream).await, "");
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_answered_request_timeout() {
    let emulator = emulator(short(100)).await;
    let mut stream = connect(&emulator).await;
    stream
        .write_all(
            b"POST / HTTP/1.1\r\nHost: cumulo\r\nContent-Type: application/x-amz-json-1.0\r\n\
              X-Amz-Target: AmazonSQS.ListQueues\r\n\
              Authorization: AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0\r\n\
              Content-Length: 100\r\n\r\n{\"Queue",
        )
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("#RequestTimeout\""), "{answer}");

    // S3 answers with its own code and text, as AWS documents them.
    let mut stream = connect(&emulator).await;
    stream
        .write_all(
            b"PUT /bucket/key HTTP/1.1\r\nHost: cumulo\r\n\
              Authorization: AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0\r\n\
              x-amz-content-sha256: UNSIGNED-PAYLOAD\r\nContent-Length: 1000\r\n\r\nabc",
        )
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("<Code>RequestTimeout</Code>"), "{answer}");

    // Cumulo's own endpoints: answered or closed, never held.
    let mut stream = connect(&emulator).await;
    stream
        .write_all(b"POST /_cumulo/clock HTTP/1.1\r\nHost: cumulo\r\nContent-Length: 50\r\n\r\n{")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn connections_beyond_the_cap_are_answered_503_until_they_go() {
    let emulator = emulator(ConnectionLimits {
        header_read_timeout: Duration::from_secs(60),
        body_read_timeout: Duration::from_secs(60),
        max_connections: 3,
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect(&emulator).await);
    }
    // The fourth: Cumulo's endpoints answer their JSON error, AWS services their own shape.
    let mut stream = connect(&emulator).await;
    stream
        .write_all(b"GET /_cumulo/health HTTP/1.1\r\nHost: cumulo\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.contains(r#""error":"ServiceUnavailable""#)
            && answer.contains("maximum of 3 connections"),
        "{answer}"
    );
    let mut stream = connect(&emulator).await;
    stream
        .write_all(
            b"POST / HTTP/1.1\r\nHost: cumulo\r\nContent-Type: application/x-amz-json-1.0\r\n\
              X-Amz-Target: AmazonSQS.ListQueues\r\n\
              Authorization: AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0\r\n\
              Content-Length: 2\r\n\r\n{}",
        )
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.contains("\"__type\":\"com.amazonaws.sqs#ServiceUnavailable\"")
            || answer.contains("\"__type\":\"ServiceUnavailable\""),
        "{answer}"
    );
    // Once the held connections go, health answers again.
    drop(held);
    let healthy = tokio::time::timeout(PATIENCE, async {
        loop {
            let mut stream = connect(&emulator).await;
            stream
                .write_all(
                    b"GET /_cumulo/health HTTP/1.1\r\nHost: cumulo\r\nConnection: close\r\n\r\n",
                )
                .await
                .unwrap();
            if read_until_closed(&mut stream)
                .await
                .starts_with("HTTP/1.1 200")
            {
                return;
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(
        healthy.is_ok(),
        "health never answered after the held connections closed"
    );
}
