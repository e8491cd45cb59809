//! Tests of the expressions' year range (`at()` follows cron's 1970–2199) and of
//! [`count_through`] against walking the occurrences one by one, in UTC and in zones with
//! daylight-saving changes (30-minute shifts, changes at midnight), inside and across windows.

use chrono::{DateTime, Duration, Utc};

use super::*;

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .unwrap_or_else(|e| panic!("bad instant {s}: {e}"))
        .with_timezone(&Utc)
}

#[test]
fn at_takes_the_years_cron_can_name_and_no_others() {
    for ok in [
        "at(1970-01-01T00:00:00)",
        "at(2030-06-15T12:30:00)",
        "at(2199-12-31T23:59:59)",
    ] {
        assert!(ScheduleExpression::parse(ok).is_ok(), "{ok}");
    }
    for bad in [
        "at(1969-12-31T23:59:59)",
        "at(2200-01-01T00:00:00)",
        "at(9999-12-31T23:59:59)",
        "at(0000-01-01T00:00:00)",
    ] {
        assert_eq!(
            ScheduleExpression::parse(bad).unwrap_err().to_string(),
            format!("Invalid Schedule Expression {bad}."),
        );
    }
    assert!(ScheduleExpression::parse("cron(0 0 1 1 ? 2199)").is_ok());
    assert!(ScheduleExpression::parse("cron(0 0 1 1 ? 2200)").is_err());
}

/// Every occurrence in `[first, last]`, one `next_after` at a time.
fn walk(
    expr: &ScheduleExpression,
    tz: Tz,
    window: &Window,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
) -> u64 {
    let mut n = 0;
    let mut cursor = first - Duration::nanoseconds(1);
    while let Some(t) = expr.next_after(cursor, tz, window).filter(|t| *t <= last) {
        n += 1;
        cursor = t;
        if expr.is_one_time() {
            break;
        }
    }
    n
}

#[test]
fn count_through_agrees_with_the_walk() {
    let exprs = [
        "cron(* * * * ? *)",
        "cron(*/7 1-3 * * ? *)",
        "cron(30 2 * * ? *)",
        "cron(0,30 0 * * ? *)",
        "cron(15 1 ? * MON-FRI *)",
        "cron(0 12 L * ? *)",
        "cron(0 23 ? * 6#3 2026-2027)",
        "cron(5 0-23/2 1W * ? *)",
        "rate(1 minute)",
        "rate(7 minutes)",
        "rate(5 hours)",
        "rate(3 days)",
        "at(2026-03-08T02:30:00)",
        "at(2026-11-01T01:30:00)",
    ];
    let zones = [
        "UTC",
        "America/New_York",
        "Australia/Lord_Howe",
        "America/Santiago",
        "Asia/Kolkata",
        "Europe/London",
    ];
    let spans = [
        ("2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z"),
        ("2026-10-25T00:17:00Z", "2026-11-09T13:00:00Z"),
        ("2026-01-01T00:00:00Z", "2027-12-31T23:59:59Z"),
        ("2026-04-04T10:00:00Z", "2026-04-06T09:59:00Z"),
    ];
    let windows = [
        Window::anchored_at(utc("2025-12-31T23:58:30Z")),
        Window {
            start: Some(utc("2026-03-05T06:00:00Z")),
            end: Some(utc("2026-11-03T07:30:00Z")),
            anchor: utc("2026-03-05T06:00:00Z"),
        },
    ];
    for text in exprs {
        let expr = ScheduleExpression::parse(text).unwrap();
        for zone in zones {
            let tz = parse_timezone(zone).unwrap();
            for window in &windows {
                for (a, b) in spans {
                    let (first, last) = (utc(a), utc(b));
                    // Minute-frequency walks over years cost too much for a unit test; the
                    // century test below covers those spans.
                    if last - first > Duration::days(40)
                        && (text.contains("minute") || text.starts_with("cron(*"))
                    {
                        continue;
                    }
                    // A span starting on an occurrence, as the dispatcher's records do.
                    let on = expr
                        .next_after(first, tz, window)
                        .filter(|t| *t <= last)
                        .unwrap_or(first);
                    for from in [first, on] {
                        assert_eq!(
                            count_through(&expr, tz, window, from, last),
                            walk(&expr, tz, window, from, last),
                            "{text} in {zone}, {window:?}, {from}..={last}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn count_through_covers_a_century_without_walking_it() {
    let tz = parse_timezone("America/New_York").unwrap();
    let window = Window::anchored_at(utc("2000-01-01T00:00:00Z"));
    let every_minute = ScheduleExpression::parse("cron(* * * * ? *)").unwrap();
    let (first, last) = (utc("2000-01-01T05:00:00Z"), utc("2099-12-31T23:59:59Z"));
    // 36,525 local days of 1,440 minutes, less the 100 springs' skipped hours (60 minutes
    // each) and the minutes of 31 December 2099 after 18:59 local (the span ends at 19:00).
    let n = count_through(&every_minute, tz, &window, first, last);
    let expected = 36_525 * 1_440 - 100 * 60 - 5 * 60;
    assert_eq!(n, expected);
    let rate = ScheduleExpression::parse("rate(1 minute)").unwrap();
    assert_eq!(
        count_through(&rate, tz, &window, first, last),
        (last - first).num_minutes() as u64 + 1
    );
    // Past 2199 no cron fires: the count stops there.
    let far = count_through(
        &every_minute,
        parse_timezone("UTC").unwrap(),
        &window,
        utc("2199-12-31T23:00:00Z"),
        utc("9999-12-31T23:59:59Z"),
    );
    assert_eq!(far, 60);
}

#[test]
fn last_through_finds_the_latest_occurrence_of_a_span() {
    let cases = [
        (
            "cron(* 3,4 * * ? *)",
            "UTC",
            "2026-01-01T00:00:00Z",
            "2026-01-02T10:00:00Z",
            Some("2026-01-02T04:59:00Z"),
        ),
        (
            "cron(0 12 1 1 ? *)",
            "UTC",
            "2026-01-01T00:00:00Z",
            "2190-06-01T00:00:00Z",
            Some("2190-01-01T12:00:00Z"),
        ),
        (
            "cron(30 2 * * ? *)",
            "America/New_York",
            "2026-03-01T00:00:00Z",
            "2026-03-09T06:00:00Z",
            Some("2026-03-07T07:30:00Z"),
        ),
        (
            "rate(7 minutes)",
            "UTC",
            "2026-01-01T00:00:00Z",
            "2026-01-01T01:00:00Z",
            Some("2026-01-01T00:56:00Z"),
        ),
        (
            "rate(7 minutes)",
            "UTC",
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:06:59Z",
            None,
        ),
        (
            "at(2026-05-01T00:00:00)",
            "UTC",
            "2026-01-01T00:00:00Z",
            "2030-01-01T00:00:00Z",
            Some("2026-05-01T00:00:00Z"),
        ),
        (
            "at(2026-05-01T00:00:00)",
            "UTC",
            "2026-05-01T00:00:00Z",
            "2030-01-01T00:00:00Z",
            None,
        ),
    ];
    for (text, zone, after, bound, expected) in cases {
        let expr = ScheduleExpression::parse(text).unwrap();
        let window = Window::anchored_at(utc("2026-01-01T00:00:00Z"));
        let tz = parse_timezone(zone).unwrap();
        let got = last_through(&expr, tz, &window, utc(after), utc(bound));
        assert_eq!(
            got,
            expected.map(utc),
            "{text} in {zone}, ({after}, {bound}]"
        );
    }
}
