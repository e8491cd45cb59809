//! Next-fire benchmark: `ScheduleExpression::next_after` for typical crons, in UTC and in a
//! zone with daylight saving, with the `croner` crate computing the same next fire beside it.
//! Also parsing, a rate, and a cron that never fires. Run with `cargo bench --bench expression`;
//! medians are in `target/criterion/<group>/<name>/new/estimates.json`.

use std::hint::black_box;
use std::str::FromStr;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use criterion::{criterion_group, criterion_main, Criterion};
use cumulo::scheduler::expression::{ScheduleExpression, Window};

/// (label, AWS expression, the same schedule as a POSIX pattern for croner)
const CRONS: [(&str, &str, &str); 6] = [
    ("daily_noon", "cron(0 12 * * ? *)", "0 12 * * *"),
    ("every_15_min", "cron(*/15 * * * ? *)", "*/15 * * * *"),
    (
        "weekday_hours",
        "cron(0 9-17 ? * MON-FRI *)",
        "0 9-17 * * 1-5",
    ),
    ("monthly_first", "cron(0 8 1 * ? *)", "0 8 1 * *"),
    ("last_friday", "cron(15 10 ? * 6L *)", "15 10 * * 5L"),
    ("second_tuesday", "cron(30 6 ? * 3#2 *)", "30 6 * * 2#2"),
];

fn after() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 4, 13, 7, 30)
        .single()
        .expect("valid instant")
}

fn next_fire(c: &mut Criterion) {
    let after = after();
    let window = Window::anchored_at(after);
    for (zone_label, tz) in [("utc", Tz::UTC), ("new_york", Tz::America__New_York)] {
        let mut group = c.benchmark_group(format!("next_fire_{zone_label}"));
        for (label, aws, posix) in CRONS {
            let ours = ScheduleExpression::parse(aws).expect("valid expression");
            group.bench_function(format!("cumulo/{label}"), |b| {
                b.iter(|| black_box(&ours).next_after(black_box(after), tz, &window))
            });
            let theirs = croner::Cron::from_str(posix).expect("valid pattern");
            let local = after.with_timezone(&tz);
            group.bench_function(format!("croner/{label}"), |b| {
                b.iter(|| black_box(&theirs).find_next_occurrence(black_box(&local), false))
            });
        }
        group.finish();
    }
}

fn other(c: &mut Criterion) {
    let after = after();
    let window = Window::anchored_at(after);
    let mut group = c.benchmark_group("expression");
    group.bench_function("parse_cron", |b| {
        b.iter(|| ScheduleExpression::parse(black_box("cron(0-15/1 8-8 ? * 2,3,4,5,6,7 *)")))
    });
    let rate = ScheduleExpression::parse("rate(5 minutes)").expect("valid expression");
    group.bench_function("next_fire_rate", |b| {
        b.iter(|| black_box(&rate).next_after(black_box(after), Tz::UTC, &window))
    });
    let never = ScheduleExpression::parse("cron(0 0 30 2 ? *)").expect("valid expression");
    group.bench_function("never_fires", |b| {
        b.iter(|| black_box(&never).next_after(black_box(after), Tz::UTC, &window))
    });
    group.finish();
}

criterion_group!(benches, next_fire, other);
criterion_main!(benches);
