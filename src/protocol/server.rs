//! The connection loop: accepts TCP connections and serves each with hyper's HTTP/1.1 server,
//! under the limits a shared or long-running emulator needs (`docs/reliability.md`,
//! "Connections"):
//!
//! - **Header-read timeout** ([`ConnectionLimits::header_read_timeout`]): a request's headers
//!   must arrive whole within it. hyper counts it from the moment a connection waits for a
//!   request: its opening, or the end of the previous response on a kept-alive connection, so
//!   it is also the **idle keep-alive timeout**. On expiry hyper closes the connection.
//! - **Body-read timeout** ([`ConnectionLimits::body_read_timeout`]): once the headers are in,
//!   no more than this may pass without a byte of the body (a body shorter than its
//!   Content-Length ends here). The handler then answers `RequestTimeout` and the connection
//!   closes.
//! - **Connection cap** ([`ConnectionLimits::max_connections`]): beyond it a connection is
//!   answered `503 ServiceUnavailable` in its protocol's error shape (SDKs retry a 503 with
//!   backoff) and closed; at most [`SHED_SLOTS`] such answers are written at once, and a
//!   connection beyond those is closed at once, with a log line at most once per second.
//!
//! Waits here are transport waits: they run on wall time whatever the emulator's clock mode
//! (`Clock::sleep_wall`; hyper's own timer for the header wait). This module must not decode
//! any AWS protocol: requests go to the router whole.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use bytes::Bytes;
use http::{Request, Response};
use http_body::Frame;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::app::App;
use crate::clock::Clock;
pub use crate::config::ConnectionLimits;
use crate::ids::IdGen;

/// How many over-cap connections may be answered 503 at the same time; one more is closed
/// without an answer.
pub const SHED_SLOTS: usize = 64;

/// How long an over-cap connection may take to send its request before it is closed
/// unanswered (its body is read, up to [`SHED_BODY_BYTES`], so the answer is not lost to a
/// reset).
pub const SHED_TIMEOUT: Duration = Duration::from_secs(5);

/// The most of an over-cap request's body read before the 503 is written.
pub const SHED_BODY_BYTES: usize = 64 * 1024;

/// File descriptors kept free of connections for everything else (the data directory's
/// SQLite files and lock, Lambda runtimes, logs) and for the over-cap answers.
pub const RESERVED_FILES: u64 = 64 + SHED_SLOTS as u64;

/// Raises the soft open-file limit (RLIMIT_NOFILE) to the hard one, logging both, and returns
/// `limits` with `max_connections` lowered (with a warning) when the soft limit cannot hold
/// that many sockets beside [`RESERVED_FILES`]. Outside Unix, `limits` unchanged.
pub fn fit_to_open_files(limits: ConnectionLimits) -> ConnectionLimits {
    #[cfg(unix)]
    {
        let (soft_before, hard) = rlimit::Resource::NOFILE.get().unwrap_or((0, 0));
        let soft = rlimit::increase_nofile_limit(hard).unwrap_or(soft_before);
        tracing::info!(
            soft_before,
            soft,
            hard,
            "open-file limit (RLIMIT_NOFILE): soft raised to the hard limit"
        );
        let room = usize::try_from(soft.saturating_sub(RESERVED_FILES)).unwrap_or(usize::MAX);
        if soft > 0 && limits.max_connections > room {
            tracing::warn!(
                configured = limits.max_connections,
                serving = room.max(1),
                soft,
                "CUMULO_MAX_CONNECTIONS lowered to fit the open-file limit"
            );
            return ConnectionLimits {
                max_connections: room.max(1),
                ..limits
            };
        }
    }
    limits
}

/// Serves `router` on `listener` with `limits` until `shutdown` resolves, then stops
/// accepting, lets idle connections close and waits for requests in flight.
pub async fn serve(
    app: &App,
    router: axum::Router,
    listener: TcpListener,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let serving = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let shedding = Arc::new(Semaphore::new(SHED_SLOTS));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let last_refusal_log = Mutex::new(None);
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Out of file descriptors or a connection reset before accept: wait a
                    // little instead of spinning, as every accept loop must.
                    tracing::warn!(error = %err, "accept failed");
                    app.clock.sleep_wall(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        if let Ok(permit) = serving.clone().try_acquire_owned() {
            let connection = http1(limits.header_read_timeout, true).serve_connection(
                TokioIo::new(stream),
                Routed {
                    clock: app.clock.clone(),
                    router: router.clone(),
                    body_read_timeout: limits.body_read_timeout,
                },
            );
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                let _ = connection.await;
                drop(permit);
            });
        } else if let Ok(permit) = shedding.clone().try_acquire_owned() {
            let (clock, ids) = (app.clock.clone(), app.ids.clone());
            tokio::spawn(async move {
                shed(stream, limits.max_connections, &clock, ids).await;
                drop(permit);
            });
        } else {
            log_refusal(app, &last_refusal_log, limits.max_connections);
            drop(stream);
        }
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// hyper's HTTP/1.1 server with the header-read (and idle) timeout on hyper's Tokio timer.
fn http1(header_read_timeout: Duration, keep_alive: bool) -> hyper::server::conn::http1::Builder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .keep_alive(keep_alive);
    builder
}

/// The router behind hyper, each request body under the body-read timeout.
#[derive(Clone)]
struct Routed {
    clock: Clock,
    router: axum::Router,
    body_read_timeout: Duration,
}

impl hyper::service::Service<Request<Incoming>> for Routed {
    type Response = Response<Body>;
    type Error = std::convert::Infallible;
    type Future = tower::util::Oneshot<axum::Router, Request<Body>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let (clock, timeout) = (self.clock.clone(), self.body_read_timeout);
        let request = request.map(|body| Body::new(TimedBody::new(body, clock, timeout)));
        self.router.clone().oneshot(request)
    }
}

/// An over-cap connection: its request is read (headers within [`SHED_TIMEOUT`], body up to
/// [`SHED_BODY_BYTES`]), answered 503 in its protocol's error shape, and the connection closed.
async fn shed(stream: TcpStream, max_connections: usize, clock: &Clock, ids: IdGen) {
    let answering = clock.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let clock = answering.clone();
        let ids = ids.clone();
        async move {
            let (parts, body) = request.into_parts();
            let limited = http_body_util::Limited::new(body, SHED_BODY_BYTES);
            tokio::select! {
                _ = http_body_util::BodyExt::collect(limited) => {}
                _ = clock.sleep_wall(SHED_TIMEOUT) => {}
            }
            Ok::<_, std::convert::Infallible>(super::over_capacity(
                &parts,
                max_connections,
                &ids.uuid(),
            ))
        }
    });
    let connection = http1(SHED_TIMEOUT, false).serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = connection => {}
        _ = clock.sleep_wall(SHED_TIMEOUT * 2) => {}
    }
}

/// Logs a connection closed unanswered, at most once per wall-clock second.
fn log_refusal(app: &App, last: &Mutex<Option<Instant>>, max_connections: usize) {
    let now = app.clock.monotonic();
    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
    if last.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1)) {
        *last = Some(now);
        tracing::warn!(
            max_connections,
            shed_slots = SHED_SLOTS,
            "connection closed unanswered: Cumulo is serving its maximum of connections and answering as many over-capacity ones"
        );
    }
}

/// The body read under the body-read timeout fails with this.
#[derive(Debug, thiserror::Error)]
#[error("no byte of the request body arrived for {0:?}")]
pub struct BodyReadTimeout(pub Duration);

type Wait = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A request body that fails with [`BodyReadTimeout`] when no frame arrives for `timeout`.
struct TimedBody {
    inner: Incoming,
    clock: Clock,
    timeout: Duration,
    wait: Option<Wait>,
}

impl TimedBody {
    fn new(inner: Incoming, clock: Clock, timeout: Duration) -> TimedBody {
        TimedBody {
            inner,
            clock,
            timeout,
            wait: None,
        }
    }
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.wait = None;
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                let timeout = this.timeout;
                let wait = this.wait.get_or_insert_with(|| {
                    let clock = this.clock.clone();
                    Box::pin(async move { clock.sleep_wall(timeout).await })
                });
                match wait.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyReadTimeout(timeout))))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
