//! Load driver for the dispatch benchmark (`docs/benchmarks.md`, `benches/scripts/dispatch.sh`):
//! N `rate(1 minute)` schedules spread over Q SQS queues, on the real clock, with consumers
//! draining every queue. Each message body carries its schedule ARN and scheduled time; its
//! SentTimestamp is the delivery instant, so lateness = SentTimestamp − scheduled time. At the
//! end it checks every occurrence due in the run was delivered exactly once, and prints the
//! lateness percentiles of all deliveries and of those due after the last schedule was created
//! (the steady state, without the creation load competing for the CPU).
//!
//! A `rate` schedule without StartDate fires first at its creation instant rounded up to the
//! whole second, then every minute, so the creation pace sets how many occurrences share a due
//! instant: `--create-rate 0` (default) creates as fast as the emulator answers (thousands of
//! schedules due in the same second, each minute), `--create-rate R` paces creation at R per
//! second (100,000 at 1,667/s spread their occurrences evenly over the minute).
//!
//!     cargo run --release --example dispatch_load -- --endpoint http://127.0.0.1:4566 \
//!         --schedules 100000 --queues 100 --minutes 3 [--create-rate 0] [--concurrency 64]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_scheduler::types::{FlexibleTimeWindow, FlexibleTimeWindowMode, Target};
use aws_sdk_sqs::types::{
    DeleteMessageBatchRequestEntry, MessageSystemAttributeName, QueueAttributeName,
};
use chrono::{DateTime, Utc};

struct Args {
    endpoint: String,
    schedules: usize,
    queues: usize,
    minutes: u64,
    concurrency: usize,
    create_rate: u64,
}

fn args() -> Args {
    let mut a = Args {
        endpoint: "http://127.0.0.1:4566".into(),
        schedules: 100_000,
        queues: 100,
        minutes: 3,
        concurrency: 64,
        create_rate: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--endpoint" => a.endpoint = value(),
            "--schedules" => a.schedules = value().parse().expect("--schedules N"),
            "--queues" => a.queues = value().parse().expect("--queues N"),
            "--minutes" => a.minutes = value().parse().expect("--minutes N"),
            "--concurrency" => a.concurrency = value().parse().expect("--concurrency N"),
            "--create-rate" => a.create_rate = value().parse().expect("--create-rate N"),
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

#[allow(clippy::disallowed_methods)]
fn wall() -> DateTime<Utc> {
    Utc::now()
}

#[allow(clippy::disallowed_methods)]
async fn pause(ms: u64) {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
}

/// Received deliveries: (schedule ARN, scheduled time) → how many times, and every delivery's
/// (due instant in epoch ms, lateness in ms).
#[derive(Default)]
struct Seen {
    count: HashMap<(String, String), u32>,
    lateness_ms: Vec<(i64, i64)>,
}

/// p50, p90, p99, max and count of a set of lateness values (ms).
fn percentiles(mut late: Vec<i64>) -> String {
    if late.is_empty() {
        return "no deliveries".into();
    }
    late.sort_unstable();
    let pct = |p: f64| late[((late.len() as f64 - 1.0) * p).round() as usize];
    format!(
        "p50 {} p90 {} p99 {} p99.9 {} max {} ({} deliveries)",
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(0.999),
        late[late.len() - 1],
        late.len()
    )
}

/// The first occurrence of a `rate` schedule created at `created`: that instant rounded up to
/// the whole second (Cumulo's anchor, docs/ARCHITECTURE.md "Invariants").
fn anchor(created: DateTime<Utc>) -> DateTime<Utc> {
    if created.timestamp_subsec_nanos() == 0 {
        created
    } else {
        DateTime::from_timestamp(created.timestamp() + 1, 0).expect("time")
    }
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
    let scheduler = aws_sdk_scheduler::Client::new(&config);
    let sqs = aws_sdk_sqs::Client::new(&config);

    let mut queues = Vec::new();
    for q in 0..args.queues {
        let url = sqs
            .create_queue()
            .queue_name(format!("load-{q}"))
            .send()
            .await
            .expect("CreateQueue")
            .queue_url
            .expect("url");
        let arn = sqs
            .get_queue_attributes()
            .queue_url(&url)
            .attribute_names(QueueAttributeName::QueueArn)
            .send()
            .await
            .expect("GetQueueAttributes")
            .attributes
            .expect("attributes")[&QueueAttributeName::QueueArn]
            .clone();
        queues.push((url, arn));
    }

    // Consumers start first, so nothing waits in a queue.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut consumers = Vec::new();
    for (url, _) in &queues {
        let (sqs, url, seen, stop) = (sqs.clone(), url.clone(), seen.clone(), stop.clone());
        consumers.push(tokio::spawn(async move {
            loop {
                // Past the end (and the grace period), stop even if messages keep coming: with
                // paced creation occurrences are due every second and no receive is empty.
                if stop.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                let got = sqs
                    .receive_message()
                    .queue_url(&url)
                    .max_number_of_messages(10)
                    .wait_time_seconds(1)
                    .message_system_attribute_names(MessageSystemAttributeName::SentTimestamp)
                    .send()
                    .await
                    .expect("ReceiveMessage")
                    .messages
                    .unwrap_or_default();
                if got.is_empty() {
                    if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    continue;
                }
                let mut entries = Vec::new();
                {
                    let mut seen = seen.lock().expect("seen");
                    for (i, m) in got.iter().enumerate() {
                        let body = m.body().unwrap_or_default();
                        let (arn, scheduled) = body.split_once('|').expect("body arn|time");
                        let sent: i64 = m
                            .attributes()
                            .and_then(|a| a.get(&MessageSystemAttributeName::SentTimestamp))
                            .and_then(|v| v.parse().ok())
                            .expect("SentTimestamp");
                        let due = DateTime::parse_from_rfc3339(scheduled)
                            .expect("time")
                            .timestamp_millis();
                        seen.lateness_ms.push((due, sent - due));
                        *seen
                            .count
                            .entry((arn.to_string(), scheduled.to_string()))
                            .or_default() += 1;
                        entries.push(
                            DeleteMessageBatchRequestEntry::builder()
                                .id(i.to_string())
                                .receipt_handle(m.receipt_handle().expect("handle"))
                                .build()
                                .expect("entry"),
                        );
                    }
                }
                sqs.delete_message_batch()
                    .queue_url(&url)
                    .set_entries(Some(entries))
                    .send()
                    .await
                    .expect("DeleteMessageBatch");
            }
        }));
    }

    let created_at = Arc::new(Mutex::new(Vec::with_capacity(args.schedules)));
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = wall();
    let create_rate = args.create_rate;
    let mut workers = Vec::new();
    for _ in 0..args.concurrency {
        let (scheduler, next, created_at, queues) = (
            scheduler.clone(),
            next.clone(),
            created_at.clone(),
            queues.clone(),
        );
        let total = args.schedules;
        workers.push(tokio::spawn(async move {
            let window = FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Off)
                .build()
                .expect("window");
            loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n >= total {
                    return;
                }
                if create_rate > 0 {
                    // Schedule n is created no earlier than n / rate seconds after the start.
                    let at = started
                        + chrono::Duration::microseconds(
                            (n as i64 * 1_000_000) / create_rate as i64,
                        );
                    let ahead = (at - wall()).num_milliseconds();
                    if ahead > 0 {
                        pause(ahead as u64).await;
                    }
                }
                let target = Target::builder()
                    .arn(&queues[n % queues.len()].1)
                    .role_arn("arn:aws:iam::000000000000:role/bench")
                    .input("<aws.scheduler.schedule-arn>|<aws.scheduler.scheduled-time>")
                    .build()
                    .expect("target");
                let arn = scheduler
                    .create_schedule()
                    .name(format!("load-{n:06}"))
                    .schedule_expression("rate(1 minute)")
                    .flexible_time_window(window.clone())
                    .target(target)
                    .send()
                    .await
                    .expect("CreateSchedule")
                    .schedule_arn;
                let got = scheduler
                    .get_schedule()
                    .name(format!("load-{n:06}"))
                    .send()
                    .await
                    .expect("GetSchedule");
                let created = got.creation_date().expect("CreationDate");
                let created =
                    DateTime::<Utc>::from_timestamp(created.secs(), created.subsec_nanos())
                        .expect("time");
                created_at.lock().expect("created").push((arn, created));
            }
        }));
    }
    for w in workers {
        w.await.expect("worker");
    }
    let loaded = wall();
    let load_secs = (loaded - started).num_milliseconds() as f64 / 1000.0;
    println!(
        "created {} rate(1 minute) schedules over {} queues in {load_secs:.1} s ({:.0}/s)",
        args.schedules,
        args.queues,
        args.schedules as f64 / load_secs
    );
    {
        let created = created_at.lock().expect("created");
        let mut per_second: HashMap<i64, usize> = HashMap::new();
        for (_, c) in created.iter() {
            *per_second.entry(anchor(*c).timestamp() % 60).or_default() += 1;
        }
        println!(
            "occurrences share {} distinct due seconds per minute; at most {} fall due in the same second",
            per_second.len(),
            per_second.values().max().copied().unwrap_or(0)
        );
    }

    let run_until = loaded + chrono::Duration::minutes(args.minutes as i64);
    while wall() < run_until {
        pause(500).await;
    }
    // Occurrences due up to `cutoff` must all have arrived once the queues are drained.
    let cutoff = run_until;
    pause(3000).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for c in consumers {
        c.await.expect("consumer");
    }

    let seen = seen.lock().expect("seen");
    let created = created_at.lock().expect("created");
    let (mut expected, mut missing, mut duplicates) = (0u64, 0u64, 0u64);
    // Missing occurrences by index (0 = the first, at the creation instant rounded up), and a
    // few examples with their creation instant: tells a skipped first occurrence from a lost
    // delivery.
    let mut missing_by_index: std::collections::BTreeMap<i64, u64> = Default::default();
    let mut examples = Vec::new();
    for (arn, created) in created.iter() {
        let first = anchor(*created);
        let mut k = 0i64;
        loop {
            let due = first + chrono::Duration::minutes(k);
            if due > cutoff {
                break;
            }
            expected += 1;
            let key = (arn.clone(), due.format("%Y-%m-%dT%H:%M:%SZ").to_string());
            match seen.count.get(&key) {
                None => {
                    missing += 1;
                    *missing_by_index.entry(k).or_default() += 1;
                    if examples.len() < 3 {
                        examples.push(format!(
                            "{arn} created {} due {}",
                            created.format("%H:%M:%S%.3f"),
                            due.format("%H:%M:%S")
                        ));
                    }
                }
                Some(1) => {}
                Some(_) => duplicates += 1,
            }
            k += 1;
        }
    }
    println!(
        "occurrences due by the end: {expected}; received: {}; missing: {missing}; duplicated: {duplicates}",
        seen.lateness_ms.len()
    );
    if missing > 0 {
        println!(
            "missing by occurrence index (0 = first): {missing_by_index:?}; e.g. {examples:?}"
        );
    }
    let loaded_ms = loaded.timestamp_millis();
    let all: Vec<i64> = seen.lateness_ms.iter().map(|&(_, l)| l).collect();
    let steady: Vec<i64> = seen
        .lateness_ms
        .iter()
        .filter(|&&(due, _)| due > loaded_ms)
        .map(|&(_, l)| l)
        .collect();
    println!(
        "lateness, all deliveries (SentTimestamp - scheduled time, ms): {}",
        percentiles(all)
    );
    println!(
        "lateness, occurrences due after the last CreateSchedule (ms): {}",
        percentiles(steady)
    );
}
