//! Load driver for the Scheduler benchmarks (`docs/benchmarks.md`, `benches/scripts/scheduler.sh`):
//! creates N schedules with the official AWS SDK for Rust at a given concurrency and reports
//! CreateSchedule throughput, then pages through all of them with ListSchedules (MaxResults 100)
//! and reports how long that took.
//!
//!     cargo run --release --example scheduler_load -- --endpoint http://127.0.0.1:4566 \
//!         --schedules 100000 --concurrency 64 [--prefix bench-] [--list-only]
//!
//! Schedules are named `<prefix><n, 6 digits>` in the default group, `cron(0 12 1 1 ? *)`,
//! targeting one of 100 SQS queue ARNs (the queues need not exist: nothing fires in a run).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use aws_sdk_scheduler::types::{FlexibleTimeWindow, FlexibleTimeWindowMode, Target};

struct Args {
    endpoint: String,
    schedules: usize,
    concurrency: usize,
    list_only: bool,
    prefix: String,
}

fn args() -> Args {
    let mut a = Args {
        endpoint: "http://127.0.0.1:4566".into(),
        schedules: 100_000,
        concurrency: 64,
        list_only: false,
        prefix: "bench-".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--endpoint" => a.endpoint = it.next().expect("--endpoint URL"),
            "--schedules" => {
                a.schedules = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--schedules N")
            }
            "--concurrency" => {
                a.concurrency = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--concurrency N")
            }
            "--list-only" => a.list_only = true,
            "--prefix" => a.prefix = it.next().expect("--prefix TEXT"),
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

#[allow(clippy::disallowed_methods)]
fn now() -> std::time::Instant {
    std::time::Instant::now()
}

#[tokio::main]
async fn main() {
    let args = args();
    let creds = aws_credential_types::Credentials::new("test", "test", None, None, "bench");
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(creds)
        .endpoint_url(&args.endpoint)
        .retry_config(aws_config::retry::RetryConfig::disabled())
        .load()
        .await;
    let client = aws_sdk_scheduler::Client::new(&config);

    if !args.list_only {
        let next = Arc::new(AtomicUsize::new(0));
        let started = now();
        let mut workers = Vec::new();
        for _ in 0..args.concurrency {
            let client = client.clone();
            let next = next.clone();
            let total = args.schedules;
            let prefix = args.prefix.clone();
            workers.push(tokio::spawn(async move {
                let window = FlexibleTimeWindow::builder()
                    .mode(FlexibleTimeWindowMode::Off)
                    .build()
                    .expect("window");
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        return;
                    }
                    let target = Target::builder()
                        .arn(format!(
                            "arn:aws:sqs:us-east-1:000000000000:bench-{}",
                            n % 100
                        ))
                        .role_arn("arn:aws:iam::000000000000:role/bench")
                        .input(format!("{{\"n\":{n}}}"))
                        .build()
                        .expect("target");
                    client
                        .create_schedule()
                        .name(format!("{prefix}{n:06}"))
                        // Noon on 1 January: queued by the dispatcher, never due during a run.
                        .schedule_expression("cron(0 12 1 1 ? *)")
                        .flexible_time_window(window.clone())
                        .target(target)
                        .send()
                        .await
                        .expect("CreateSchedule");
                }
            }));
        }
        for w in workers {
            w.await.expect("worker");
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "created {} schedules in {:.2} s: {:.0} CreateSchedule/s at concurrency {}",
            args.schedules,
            secs,
            args.schedules as f64 / secs,
            args.concurrency
        );
    }

    let started = now();
    let mut pages = client
        .list_schedules()
        .max_results(100)
        .into_paginator()
        .send();
    let mut seen = 0usize;
    let mut n_pages = 0usize;
    while let Some(page) = pages.next().await {
        let page = page.expect("ListSchedules");
        seen += page.schedules().len();
        n_pages += 1;
    }
    println!(
        "listed {seen} schedules in {n_pages} pages (MaxResults 100) in {:.3} s",
        started.elapsed().as_secs_f64()
    );
}
