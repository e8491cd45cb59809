//! Table tests of the expression grammar and of evaluation: fires in UTC, in zones across
//! daylight-saving transitions (both hemispheres, a 30-minute shift, a zone without DST),
//! rate spacing, at() resolution and StartDate/EndDate windows.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

use super::*;

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .unwrap_or_else(|e| panic!("bad instant {s}: {e}"))
        .with_timezone(&Utc)
}

fn tz(name: &str) -> Tz {
    parse_timezone(name).unwrap_or_else(|e| panic!("{e}"))
}

/// The next `expected.len()` fires (or up to `count` when given) of `expr` in `zone` after
/// `after`, as RFC 3339 UTC strings.
fn fires_utc(expr: &str, zone: &str, after: &str, count: usize) -> Vec<String> {
    preview(expr, Some(zone), utc(after), count)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .iter()
        .map(|f| crate::time::rfc3339(f.utc))
        .collect()
}

fn check(expr: &str, zone: &str, after: &str, count: usize, expected: &[&str]) {
    assert_eq!(
        fires_utc(expr, zone, after, count),
        expected,
        "{expr} in {zone} after {after}"
    );
}

// ------------------------------------------------------------------------------- grammar

#[test]
fn accepts_what_aws_accepts() {
    let valid = [
        // Recorded against AWS (aws-recorded/README.md, scheduler_snapshots.json).
        "at(2022-12-31T23:59:59)",
        "rate(1 minute)",
        "rate(2 minute)",
        "rate(10 minutes)",
        "rate(1 hour)",
        "rate(5 hours)",
        "rate(1 day)",
        "rate(7 days)",
        "cron(0-15/1 8-8 ? * 2,3,4,5,6,7 *)",
        "cron(30-30 13-13 ? * 2,4,6 *)",
        "cron(1-31/30 1-1 ? * 1,7 *)",
        "cron(0 18 ? * MON-FRI *)",
        "cron(*/15 * * * ? *)",
        "cron(0-59/10 0-23/2 ? * * *)",
        "cron(0 0 * * ? *)",
        "cron(0 10 * * ? *)",
        "cron(15 12 * * ? *)",
        "cron(0 8 1 * ? *)",
        "cron(0/15 * * * ? *)",
        "cron(0/10 * ? * MON-FRI *)",
        "cron(0/5 8-17 ? * MON-FRI *)",
        "cron(0 2 ? * SAT *)",
        "cron(5,35 14 * * ? *)",
        "cron(15 10 ? * 6L 2002-2005)",
        "cron(0 2 ? * SAT#3 *)",
        "cron(* * ? * SAT#3 *)",
        "cron(0/5 5 ? JAN 1-5 2022)",
        // Documented forms (user guide, EventBridge cron reference) and bug log B06-B14.
        "cron(0 12 L * ? *)",
        "cron(0 12 LW * ? *)",
        "cron(5 10 31W * ? 2027)",
        "cron(0 12 1W * ? *)",
        "cron(0 0 ? * 7#4 *)",
        "cron(0 2 ? * 5L *)",
        "cron(0 2 ? * L *)",
        "cron(15 12 ? * SUN *)",
        "cron(0 0 1 1 ? 2027-2028)",
        "cron(0 12 * JAN,FEB,MAR ? *)",
        "cron(0 0 1 JAN-DEC/3 ? *)",
        "cron(0 0 1/5 * ? *)",
        "cron(0 0 1-15 * ? 1970)",
        "cron(0 0 1 * ? 2199)",
        "cron(0 0 1 * ? 2020/5)",
        "cron(0 0 1 * ? */10)",
        // Decisions (cron.rs): case-insensitive names and letters, L-n, wrapping ranges.
        "cron(0 18 ? * mon-fri *)",
        "cron(0 18 ? jan Mon *)",
        "cron(0 12 l * ? *)",
        "cron(0 12 lw * ? *)",
        "cron(0 12 15w * ? *)",
        "cron(0 2 ? * fril *)",
        "cron(0 2 ? * fri#2 *)",
        "cron(30 9 L-0 * ? *)",
        "cron(30 9 L-1 * ? *)",
        "cron(30 9 L-30 * ? *)",
        "cron(0 0 ? * FRI-MON *)",
        "cron(0 22-2 * * ? *)",
        "cron(0 22-2/2 * * ? *)",
        "cron(0 0 25-5 * ? *)",
        "cron(0 0 1 NOV-FEB ? *)",
        "cron(00 08 01 01 ? 2030)",
        "cron(*,5 * * * ? *)",
        "cron(59 23 31 12 ? *)",
    ];
    for text in valid {
        assert!(
            ScheduleExpression::parse(text).is_ok(),
            "{text} should be accepted"
        );
    }
}

#[test]
fn rejects_what_aws_rejects_with_its_message() {
    let invalid = [
        // Recorded against AWS: the 17 rejects.
        "cron(0 1 * * * *)",
        "cron(7 20 * * NOT *)",
        "cron(INVALID)",
        "cron(0 dummy ? * MON-FRI *)",
        "cron(71 8 1 * ? *)",
        "cron()",
        "rate(10 seconds)",
        "rate(10 years)",
        "rate()",
        "rate(10)",
        "rate(10 minutess)",
        "rate(foo minutes)",
        "rate(-10 minutes)",
        "rate( 10 minutes )",
        " rate(10 minutes)",
        "at(2021-12-31T23:59:59Z)",
        "at(2021-12-31)",
        // Bug log B09-B11 and the documented limits.
        "cron(34 12 * * SAT *)",
        "cron(0 12 ? * 3#1,6#3 *)",
        "cron(15 12 ? * -1 *)",
        "cron(15 12 ? * 0 *)",
        "cron(15 12 ? * 8 *)",
        "cron(0 0 ? * ? *)",
        "cron(0 0 1 * MON *)",
        "cron(60 0 * * ? *)",
        "cron(0 24 * * ? *)",
        "cron(0 0 0 * ? *)",
        "cron(0 0 32 * ? *)",
        "cron(0 0 1 0 ? *)",
        "cron(0 0 1 13 ? *)",
        "cron(0 0 1 * ? 1969)",
        "cron(0 0 1 * ? 2200)",
        "cron(0 0 1 * ? 2028-2027)",
        "cron(0 0 1 * ? * *)",
        "cron(0 0 1 * ?)",
        "cron(0 0 1 * ? 2030 )",
        "cron( 0 0 1 * ? 2030)",
        "cron(0  0 1 * ? 2030)",
        "cron(0\t0 1 * ? 2030)",
        "cron(0 0 1 * ? 2030",
        "CRON(0 0 1 * ? 2030)",
        // Wildcards outside their fields.
        "cron(? 0 1 * ? *)",
        "cron(0 L 1 * ? *)",
        "cron(0 0 1 ? ? *)",
        "cron(0 0 1 * ? ?)",
        "cron(0 0 1 * ? L)",
        "cron(0 0 1 L ? *)",
        "cron(L 0 1 * ? *)",
        "cron(0 0 1W ? ? *)",
        "cron(0 0 ? * 2W *)",
        "cron(0 0 1#2 * ? *)",
        "cron(0 0 ? * */2 *)",
        "cron(0 0 ? * 1/2 *)",
        "cron(0 0 ? * MON-FRI/2 *)",
        // Malformed lists, ranges and steps.
        "cron(1,,2 0 * * ? *)",
        "cron(1, 0 * * ? *)",
        "cron(,1 0 * * ? *)",
        "cron(1- 0 * * ? *)",
        "cron(-1 0 * * ? *)",
        "cron(1-2-3 0 * * ? *)",
        "cron(*/0 0 * * ? *)",
        "cron(*/60 0 * * ? *)",
        "cron(0 */24 * * ? *)",
        "cron(0 0 */32 * ? *)",
        "cron(0 0 1 */13 ? *)",
        "cron(*/ 0 * * ? *)",
        "cron(/5 0 * * ? *)",
        "cron(1/2/3 0 * * ? *)",
        "cron(*-5 0 * * ? *)",
        "cron(+5 0 * * ? *)",
        "cron(5.0 0 * * ? *)",
        "cron(0 0 1 JANUARY ? *)",
        "cron(0 0 1 JA ? *)",
        "cron(0 0 ? * SUNDAY *)",
        "cron(0 0 1 1-MAR ? *)",
        "cron(0 0 ? * MON-5 *)",
        "cron(0 0 1 * MON ?)",
        "cron(9999999999 0 * * ? *)",
        // Day-of-month specials stand alone and stay in range.
        "cron(0 0 L,1 * ? *)",
        "cron(0 0 1,L * ? *)",
        "cron(0 0 L-31 * ? *)",
        "cron(0 0 L-1W * ? *)",
        "cron(0 0 0W * ? *)",
        "cron(0 0 32W * ? *)",
        "cron(0 0 1W,15 * ? *)",
        "cron(0 0 1-5W * ? *)",
        "cron(0 0 WL * ? *)",
        "cron(0 0 L-x * ? *)",
        // Day-of-week specials stand alone and stay in range.
        "cron(0 0 ? * 1,L *)",
        "cron(0 0 ? * 6L,2 *)",
        "cron(0 0 ? * 8L *)",
        "cron(0 0 ? * 0L *)",
        "cron(0 0 ? * LL *)",
        "cron(0 0 ? * 2#0 *)",
        "cron(0 0 ? * 2#6 *)",
        "cron(0 0 ? * 8#1 *)",
        "cron(0 0 ? * 2#1#2 *)",
        "cron(0 0 ? * #1 *)",
        "cron(0 0 ? * 2# *)",
        // rate: value and unit exactly.
        "rate(0 minutes)",
        "rate(1 Minutes)",
        "rate(1 MINUTE)",
        "rate(1  minutes)",
        "rate(1 minutes )",
        "rate(+1 minutes)",
        "rate(1.5 hours)",
        "rate(1 weeks)",
        "rate(2147483648 minutes)",
        "rate(99999999999999999999 days)",
        "rate(1 minutes",
        "rate 1 minutes)",
        "rate(1 minutes) ",
        // at: the exact shape, a real date and time.
        "at(2021-12-31T23:59:59.000)",
        "at(2021-12-31T23:59:59+00:00)",
        "at(2021-12-31 23:59:59)",
        "at(2021-12-31t23:59:59)",
        "at(2021-12-31T23:59)",
        "at(2021-2-3T01:02:03)",
        "at(21-12-31T23:59:59)",
        "at(+2021-12-31T23:59:59)",
        "at(2021-13-01T00:00:00)",
        "at(2021-02-29T00:00:00)",
        "at(2021-04-31T00:00:00)",
        "at(2021-12-31T24:00:00)",
        "at(2021-12-31T23:60:00)",
        "at(2021-12-31T23:59:60)",
        "at( 2021-12-31T23:59:59)",
        "at(2021-12-31T23:59:59) ",
        "at(2021-12-31T23:59:5a)",
        "at(2021-12-31T23:59:59",
        // Neither form.
        "",
        " ",
        "daily",
        "every(5 minutes)",
        "rate",
        "cron",
        "at()",
    ];
    for text in invalid {
        let err = ScheduleExpression::parse(text).expect_err(text);
        assert_eq!(
            err.to_string(),
            format!("Invalid Schedule Expression {text}."),
            "{text:?}"
        );
    }
}

#[test]
fn parses_rate_and_at_payloads() {
    let cases = [
        ("rate(1 minute)", 60),
        ("rate(2 minute)", 120),
        ("rate(15 minutes)", 900),
        ("rate(1 hours)", 3_600),
        ("rate(36 hour)", 129_600),
        ("rate(1 days)", 86_400),
        ("rate(2147483647 days)", 2_147_483_647 * 86_400),
    ];
    for (text, seconds) in cases {
        assert_eq!(
            ScheduleExpression::parse(text),
            Ok(ScheduleExpression::Rate { seconds }),
            "{text}"
        );
    }
    let at = NaiveDate::from_ymd_opt(2024, 2, 29)
        .and_then(|d| d.and_hms_opt(13, 5, 9))
        .expect("valid");
    assert_eq!(
        ScheduleExpression::parse("at(2024-02-29T13:05:09)"),
        Ok(ScheduleExpression::At(at))
    );
    assert!(ScheduleExpression::parse("at(2024-02-29T13:05:09)").is_ok_and(|e| e.is_one_time()));
    assert!(ScheduleExpression::parse("rate(1 day)").is_ok_and(|e| !e.is_one_time()));
    assert_eq!(
        "cron(0 0 * * ? *)"
            .parse::<ScheduleExpression>()
            .map(|e| e.is_one_time()),
        Ok(false)
    );
}

#[test]
fn names_and_letters_are_case_insensitive() {
    for (upper, other) in [
        ("cron(0 18 ? * MON-FRI *)", "cron(0 18 ? * mon-Fri *)"),
        ("cron(0 12 * JAN,DEC ? *)", "cron(0 12 * jan,dEc ? *)"),
        ("cron(0 12 LW * ? *)", "cron(0 12 lW * ? *)"),
        ("cron(0 12 15W * ? *)", "cron(0 12 15w * ? *)"),
        ("cron(0 2 ? * FRIL *)", "cron(0 2 ? * fril *)"),
        ("cron(0 2 ? * SAT#3 *)", "cron(0 2 ? * sat#3 *)"),
    ] {
        assert_eq!(
            ScheduleExpression::parse(upper),
            ScheduleExpression::parse(other),
            "{upper} vs {other}"
        );
    }
}

#[test]
fn timezones_are_iana_names() {
    for name in [
        "UTC",
        "America/New_York",
        "Australia/Lord_Howe",
        "Asia/Kolkata",
        "Etc/GMT+5",
        "US/Eastern",
    ] {
        assert!(parse_timezone(name).is_ok(), "{name}");
    }
    for name in [
        "",
        "Mars/Olympus_Mons",
        "america/new_york",
        "UTC ",
        "+05:00",
        "EST+5",
    ] {
        assert_eq!(
            parse_timezone(name),
            Err(InvalidTimezone(name.to_string())),
            "{name:?}"
        );
        assert_eq!(
            InvalidTimezone(name.to_string()).to_string(),
            format!("Invalid ScheduleExpressionTimezone {name}.")
        );
    }
}

#[test]
fn preview_checks_the_expression_before_the_zone() {
    let after = utc("2026-01-01T00:00:00Z");
    assert_eq!(
        preview("rate(10 seconds)", Some("Mars/Olympus_Mons"), after, 3).map_err(|e| e.to_string()),
        Err("Invalid Schedule Expression rate(10 seconds).".to_string())
    );
    assert_eq!(
        preview("rate(1 hour)", Some("Mars/Olympus_Mons"), after, 3).map_err(|e| e.to_string()),
        Err("Invalid ScheduleExpressionTimezone Mars/Olympus_Mons.".to_string())
    );
    assert_eq!(
        preview("rate(1 hour)", None, after, 2).map(|f| f.len()),
        Ok(2)
    );
}

// ------------------------------------------------------------------------------- cron in UTC

#[test]
fn cron_fires_in_utc() {
    let cases: &[(&str, &str, usize, &[&str])] = &[
        // B06: L handles leap years.
        (
            "cron(0 12 L * ? *)",
            "2028-02-01T00:00:00Z",
            3,
            &[
                "2028-02-29T12:00:00Z",
                "2028-03-31T12:00:00Z",
                "2028-04-30T12:00:00Z",
            ],
        ),
        (
            "cron(0 12 L 2 ? *)",
            "2099-01-01T00:00:00Z",
            3,
            &[
                "2099-02-28T12:00:00Z",
                "2100-02-28T12:00:00Z",
                "2101-02-28T12:00:00Z",
            ],
        ),
        (
            "cron(0 0 29 2 ? *)",
            "2096-03-01T00:00:00Z",
            2,
            &["2104-02-29T00:00:00Z", "2108-02-29T00:00:00Z"],
        ),
        // L-n (Quartz): the n-th day before the last.
        (
            "cron(30 9 L-1 * ? *)",
            "2028-02-01T00:00:00Z",
            3,
            &[
                "2028-02-28T09:30:00Z",
                "2028-03-30T09:30:00Z",
                "2028-04-29T09:30:00Z",
            ],
        ),
        (
            "cron(0 0 L-30 * ? *)",
            "2026-01-01T00:00:00Z",
            3,
            &[
                "2026-03-01T00:00:00Z",
                "2026-05-01T00:00:00Z",
                "2026-07-01T00:00:00Z",
            ],
        ),
        // B08: nW never leaves the month; months without day n have no fire.
        (
            "cron(5 10 31W * ? 2027)",
            "2027-01-01T00:00:00Z",
            10,
            &[
                "2027-01-29T10:05:00Z",
                "2027-03-31T10:05:00Z",
                "2027-05-31T10:05:00Z",
                "2027-07-30T10:05:00Z",
                "2027-08-31T10:05:00Z",
                "2027-10-29T10:05:00Z",
                "2027-12-31T10:05:00Z",
            ],
        ),
        (
            "cron(0 12 1W * ? *)",
            "2026-08-01T00:00:00Z",
            2,
            &["2026-08-03T12:00:00Z", "2026-09-01T12:00:00Z"],
        ),
        // 2026-11-15 is a Sunday → Monday 16; 2026-02-15 a Sunday → 16; 2026-08-15 a Saturday → 14.
        (
            "cron(0 8 15W * ? *)",
            "2026-02-01T00:00:00Z",
            1,
            &["2026-02-16T08:00:00Z"],
        ),
        (
            "cron(0 8 15W 8 ? *)",
            "2026-01-01T00:00:00Z",
            1,
            &["2026-08-14T08:00:00Z"],
        ),
        // 2026-05-31 is a Sunday: LW → Friday 29; 2026-01-31 a Saturday → Friday 30.
        (
            "cron(0 17 LW * ? 2026)",
            "2026-01-01T00:00:00Z",
            2,
            &["2026-01-30T17:00:00Z", "2026-02-27T17:00:00Z"],
        ),
        (
            "cron(0 17 LW 5 ? 2026)",
            "2026-01-01T00:00:00Z",
            1,
            &["2026-05-29T17:00:00Z"],
        ),
        // B09: # is the n-th weekday only; months without a 5th are skipped.
        (
            "cron(0 0 ? * 7#4 *)",
            "2024-08-02T00:00:00Z",
            5,
            &[
                "2024-08-24T00:00:00Z",
                "2024-09-28T00:00:00Z",
                "2024-10-26T00:00:00Z",
                "2024-11-23T00:00:00Z",
                "2024-12-28T00:00:00Z",
            ],
        ),
        (
            "cron(0 9 ? * 2#5 *)",
            "2024-10-22T09:00:00Z",
            3,
            &[
                "2024-12-30T09:00:00Z",
                "2025-03-31T09:00:00Z",
                "2025-06-30T09:00:00Z",
            ],
        ),
        (
            "cron(0 2 ? * SAT#3 *)",
            "2026-01-01T00:00:00Z",
            2,
            &["2026-01-17T02:00:00Z", "2026-02-21T02:00:00Z"],
        ),
        // B07: nL is the last such weekday; the year range ends the series.
        (
            "cron(15 10 ? * 6L 2002-2025)",
            "2025-10-01T00:00:00Z",
            5,
            &[
                "2025-10-31T10:15:00Z",
                "2025-11-28T10:15:00Z",
                "2025-12-26T10:15:00Z",
            ],
        ),
        (
            "cron(0 2 ? * 5L *)",
            "2026-01-01T00:00:00Z",
            3,
            &[
                "2026-01-29T02:00:00Z",
                "2026-02-26T02:00:00Z",
                "2026-03-26T02:00:00Z",
            ],
        ),
        (
            "cron(0 2 ? * THUL *)",
            "2026-01-01T00:00:00Z",
            1,
            &["2026-01-29T02:00:00Z"],
        ),
        // L alone in day-of-week is Saturday.
        (
            "cron(0 0 ? * L *)",
            "2026-01-01T00:00:00Z",
            2,
            &["2026-01-03T00:00:00Z", "2026-01-10T00:00:00Z"],
        ),
        // B10: 1 = Sunday.
        (
            "cron(15 12 ? * 1 *)",
            "2026-01-01T00:00:00Z",
            3,
            &[
                "2026-01-04T12:15:00Z",
                "2026-01-11T12:15:00Z",
                "2026-01-18T12:15:00Z",
            ],
        ),
        (
            "cron(15 12 ? * SUN *)",
            "2026-01-01T00:00:00Z",
            1,
            &["2026-01-04T12:15:00Z"],
        ),
        // B14: steps, ranges, names and years are not wildcards.
        (
            "cron(*/5 * * * ? *)",
            "2026-01-05T10:02:00Z",
            3,
            &[
                "2026-01-05T10:05:00Z",
                "2026-01-05T10:10:00Z",
                "2026-01-05T10:15:00Z",
            ],
        ),
        (
            "cron(0 9-17 ? * MON-FRI *)",
            "2026-01-02T16:30:00Z",
            3,
            &[
                "2026-01-02T17:00:00Z",
                "2026-01-05T09:00:00Z",
                "2026-01-05T10:00:00Z",
            ],
        ),
        (
            "cron(0 0 1 1 ? 2027-2028)",
            "2026-06-01T00:00:00Z",
            5,
            &["2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"],
        ),
        // B12: recorded valid crons evaluate as written.
        (
            "cron(1-31/30 1-1 ? * 1,7 *)",
            "2026-01-01T00:00:00Z",
            3,
            &[
                "2026-01-03T01:01:00Z",
                "2026-01-03T01:31:00Z",
                "2026-01-04T01:01:00Z",
            ],
        ),
        (
            "cron(0-15/1 8-8 ? * 2,3,4,5,6,7 *)",
            "2026-01-01T00:00:00Z",
            3,
            &[
                "2026-01-01T08:00:00Z",
                "2026-01-01T08:01:00Z",
                "2026-01-01T08:02:00Z",
            ],
        ),
        (
            "cron(30-30 13-13 ? * 2,4,6 *)",
            "2026-01-01T00:00:00Z",
            3,
            &[
                "2026-01-02T13:30:00Z",
                "2026-01-05T13:30:00Z",
                "2026-01-07T13:30:00Z",
            ],
        ),
        (
            "cron(0/5 5 ? JAN 1-5 2022)",
            "2021-06-01T00:00:00Z",
            2,
            &["2022-01-02T05:00:00Z", "2022-01-02T05:05:00Z"],
        ),
        // Wrapping ranges (Quartz): FRI-MON is Fri, Sat, Sun, Mon; 22-2/2 is 22, 0, 2.
        (
            "cron(0 0 ? * FRI-MON *)",
            "2026-01-01T00:00:00Z",
            4,
            &[
                "2026-01-02T00:00:00Z",
                "2026-01-03T00:00:00Z",
                "2026-01-04T00:00:00Z",
                "2026-01-05T00:00:00Z",
            ],
        ),
        (
            "cron(0 22-2/2 * * ? *)",
            "2026-01-01T12:00:00Z",
            3,
            &[
                "2026-01-01T22:00:00Z",
                "2026-01-02T00:00:00Z",
                "2026-01-02T02:00:00Z",
            ],
        ),
        (
            "cron(0 0 30-2 * ? *)",
            "2026-02-01T12:00:00Z",
            3,
            &[
                "2026-02-02T00:00:00Z",
                "2026-03-01T00:00:00Z",
                "2026-03-02T00:00:00Z",
            ],
        ),
        (
            "cron(0 0 1 NOV-FEB ? *)",
            "2026-03-01T00:00:00Z",
            4,
            &[
                "2026-11-01T00:00:00Z",
                "2026-12-01T00:00:00Z",
                "2027-01-01T00:00:00Z",
                "2027-02-01T00:00:00Z",
            ],
        ),
        // Steps from a start value, and year steps.
        (
            "cron(0 0 1/10 * ? *)",
            "2026-01-01T00:00:00Z",
            4,
            &[
                "2026-01-11T00:00:00Z",
                "2026-01-21T00:00:00Z",
                "2026-01-31T00:00:00Z",
                "2026-02-01T00:00:00Z",
            ],
        ),
        (
            "cron(0 0 1 1 ? 2030/50)",
            "2026-01-01T00:00:00Z",
            5,
            &[
                "2030-01-01T00:00:00Z",
                "2080-01-01T00:00:00Z",
                "2130-01-01T00:00:00Z",
                "2180-01-01T00:00:00Z",
            ],
        ),
        // The first and last minutes a cron can name.
        (
            "cron(59 23 31 12 ? 2199)",
            "2199-12-31T23:58:00Z",
            2,
            &["2199-12-31T23:59:00Z"],
        ),
        (
            "cron(0 0 1 1 ? 1970)",
            "1960-01-01T00:00:00Z",
            2,
            &["1970-01-01T00:00:00Z"],
        ),
        // Strictly after: a fire at `after` itself is not returned; seconds are respected.
        (
            "cron(0 10 * * ? *)",
            "2026-01-01T10:00:00Z",
            1,
            &["2026-01-02T10:00:00Z"],
        ),
        (
            "cron(0 10 * * ? *)",
            "2026-01-01T09:59:59.999Z",
            1,
            &["2026-01-01T10:00:00Z"],
        ),
        (
            "cron(* * * * ? *)",
            "2026-01-01T10:00:30Z",
            2,
            &["2026-01-01T10:01:00Z", "2026-01-01T10:02:00Z"],
        ),
        // Rollover across hour, day, month and year boundaries.
        (
            "cron(0 0 1 1 ? *)",
            "2026-12-31T23:59:59Z",
            1,
            &["2027-01-01T00:00:00Z"],
        ),
        (
            "cron(30 * * * ? *)",
            "2026-12-31T23:45:00Z",
            1,
            &["2027-01-01T00:30:00Z"],
        ),
    ];
    for (expr, after, count, expected) in cases {
        check(expr, "UTC", after, *count, expected);
    }
}

#[test]
fn crons_that_never_fire_answer_none() {
    let after = "2026-01-01T00:00:00Z";
    for expr in [
        "cron(0 0 30 2 ? *)",
        "cron(0 0 31 4,6,9,11 ? *)",
        "cron(0 0 31W 2 ? *)",
        "cron(0 0 ? * 2#5 2025)",
        "cron(0 0 1 1 ? 2002-2025)",
        "cron(0 0 1 1 ? 1970)",
        "cron(0 0 L-30 2 ? *)",
        "cron(0 0 30 FEB ? 2026-2199)",
    ] {
        check(expr, "UTC", after, 5, &[]);
        check(expr, "Australia/Lord_Howe", after, 5, &[]);
    }
    // 2199 is not a leap year; its 28 February is the last day a cron can reach.
    check("cron(0 0 29 2 ? 2199)", "UTC", after, 1, &[]);
    check(
        "cron(0 0 28 2 ? 2199)",
        "UTC",
        after,
        1,
        &["2199-02-28T00:00:00Z"],
    );
    // Past the last year a cron can name there is nothing.
    check("cron(* * * * ? *)", "UTC", "2200-01-01T00:00:00Z", 1, &[]);
    check("cron(* * * * ? *)", "UTC", "2199-12-31T23:59:00Z", 1, &[]);
}

// ------------------------------------------------------------------------------- daylight saving

/// (expression, zone, after, count, expected UTC fires)
type Case<'a> = (&'a str, &'a str, &'a str, usize, &'a [&'a str]);

#[test]
fn cron_skips_local_times_that_spring_forward_removes() {
    let cases: &[Case] = &[
        // B03: New York 2025-03-09 and 2026-03-08, 02:00-02:59 do not exist.
        (
            "cron(0 2 * * ? *)",
            "America/New_York",
            "2025-03-09T06:30:00Z",
            2,
            &["2025-03-10T06:00:00Z", "2025-03-11T06:00:00Z"],
        ),
        (
            "cron(30 2 * * ? *)",
            "America/New_York",
            "2026-03-06T17:00:00Z",
            2,
            &["2026-03-07T07:30:00Z", "2026-03-09T06:30:00Z"],
        ),
        // An hourly cron has no 02:00 that day, and 03:00 EDT follows 01:00 EST.
        (
            "cron(0 * * * ? *)",
            "America/New_York",
            "2026-03-08T05:30:00Z",
            3,
            &[
                "2026-03-08T06:00:00Z",
                "2026-03-08T07:00:00Z",
                "2026-03-08T08:00:00Z",
            ],
        ),
        // seed 003's Los Angeles example.
        (
            "cron(30 2 * * ? *)",
            "America/Los_Angeles",
            "2026-03-07T20:00:00Z",
            2,
            &["2026-03-09T09:30:00Z", "2026-03-10T09:30:00Z"],
        ),
        // London: 2026-03-29 01:00-01:59 do not exist.
        (
            "cron(30 1 * * ? *)",
            "Europe/London",
            "2026-03-28T12:00:00Z",
            2,
            &["2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z"],
        ),
        // Southern hemisphere: Sydney 2026-10-04 02:00-02:59 do not exist.
        (
            "cron(30 2 * * ? *)",
            "Australia/Sydney",
            "2026-10-03T02:00:00Z",
            2,
            &["2026-10-04T15:30:00Z", "2026-10-05T15:30:00Z"],
        ),
        // Lord Howe moves 30 minutes: on 2026-10-04 only 02:00-02:29 are skipped.
        (
            "cron(15 2 * * ? *)",
            "Australia/Lord_Howe",
            "2026-10-03T00:00:00Z",
            2,
            &["2026-10-04T15:15:00Z", "2026-10-05T15:15:00Z"],
        ),
        (
            "cron(45 2 * * ? *)",
            "Australia/Lord_Howe",
            "2026-10-03T00:00:00Z",
            2,
            &["2026-10-03T15:45:00Z", "2026-10-04T15:45:00Z"],
        ),
        (
            "cron(0/15 2 * * ? *)",
            "Australia/Lord_Howe",
            "2026-10-03T15:00:00Z",
            3,
            &[
                "2026-10-03T15:30:00Z",
                "2026-10-03T15:45:00Z",
                "2026-10-04T15:00:00Z",
            ],
        ),
    ];
    for (expr, zone, after, count, expected) in cases {
        check(expr, zone, after, *count, expected);
    }
}

#[test]
fn cron_runs_a_repeated_local_time_once_at_its_first_instant() {
    let cases: &[Case] = &[
        // B04 (a), (b), (c): New York falls back on 2026-11-01, 01:00-01:59 twice.
        (
            "cron(0/30 1 * * ? *)",
            "America/New_York",
            "2026-11-01T03:00:00Z",
            4,
            &[
                "2026-11-01T05:00:00Z",
                "2026-11-01T05:30:00Z",
                "2026-11-02T06:00:00Z",
                "2026-11-02T06:30:00Z",
            ],
        ),
        (
            "cron(0 * * * ? *)",
            "America/New_York",
            "2026-11-01T04:30:00Z",
            3,
            &[
                "2026-11-01T05:00:00Z",
                "2026-11-01T07:00:00Z",
                "2026-11-01T08:00:00Z",
            ],
        ),
        (
            "cron(30 1 * * ? *)",
            "America/New_York",
            "2026-10-31T16:00:00Z",
            2,
            &["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
        ),
        // B04: evaluated from inside the second pass (01:10 EST), 01:30 does not run again.
        (
            "cron(30 1 * * ? *)",
            "America/New_York",
            "2026-11-01T06:10:00Z",
            1,
            &["2026-11-02T06:30:00Z"],
        ),
        (
            "cron(* * * * ? *)",
            "America/New_York",
            "2026-11-01T06:58:00Z",
            2,
            &["2026-11-01T07:00:00Z", "2026-11-01T07:01:00Z"],
        ),
        (
            "cron(30 1 * * ? *)",
            "America/Los_Angeles",
            "2026-10-31T19:00:00Z",
            2,
            &["2026-11-01T08:30:00Z", "2026-11-02T09:30:00Z"],
        ),
        // London: 2026-10-25 01:00-01:59 twice.
        (
            "cron(30 1 * * ? *)",
            "Europe/London",
            "2026-10-24T12:00:00Z",
            2,
            &["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
        ),
        (
            "cron(0 * * * ? *)",
            "Europe/London",
            "2026-10-24T23:30:00Z",
            3,
            &[
                "2026-10-25T00:00:00Z",
                "2026-10-25T02:00:00Z",
                "2026-10-25T03:00:00Z",
            ],
        ),
        // Sydney falls back on 2026-04-05, 02:00-02:59 twice.
        (
            "cron(30 2 * * ? *)",
            "Australia/Sydney",
            "2026-04-04T00:00:00Z",
            2,
            &["2026-04-04T15:30:00Z", "2026-04-05T16:30:00Z"],
        ),
        // Lord Howe: 2026-04-05 01:30-01:59 twice (a 30-minute fold).
        (
            "cron(45 1 * * ? *)",
            "Australia/Lord_Howe",
            "2026-04-04T00:00:00Z",
            2,
            &["2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"],
        ),
        (
            "cron(*/15 1 * * ? *)",
            "Australia/Lord_Howe",
            "2026-04-04T14:00:00Z",
            4,
            &[
                "2026-04-04T14:15:00Z",
                "2026-04-04T14:30:00Z",
                "2026-04-04T14:45:00Z",
                "2026-04-05T14:30:00Z",
            ],
        ),
    ];
    for (expr, zone, after, count, expected) in cases {
        check(expr, zone, after, *count, expected);
    }
}

#[test]
fn zones_without_dst_are_never_adjusted() {
    let cases: &[Case] = &[
        // Phoenix keeps -07:00 while the rest of the US springs forward and falls back.
        (
            "cron(30 2 * * ? *)",
            "America/Phoenix",
            "2026-03-08T00:00:00Z",
            2,
            &["2026-03-08T09:30:00Z", "2026-03-09T09:30:00Z"],
        ),
        (
            "cron(30 1 * * ? *)",
            "America/Phoenix",
            "2026-11-01T00:00:00Z",
            2,
            &["2026-11-01T08:30:00Z", "2026-11-02T08:30:00Z"],
        ),
        (
            "cron(30 2 * * ? *)",
            "Asia/Tokyo",
            "2026-03-08T00:00:00Z",
            2,
            &["2026-03-08T17:30:00Z", "2026-03-09T17:30:00Z"],
        ),
        (
            "cron(0 9 * * ? *)",
            "Asia/Kolkata",
            "2026-10-25T00:00:00Z",
            2,
            &["2026-10-25T03:30:00Z", "2026-10-26T03:30:00Z"],
        ),
        (
            "cron(0 * * * ? *)",
            "UTC",
            "2026-11-01T04:30:00Z",
            3,
            &[
                "2026-11-01T05:00:00Z",
                "2026-11-01T06:00:00Z",
                "2026-11-01T07:00:00Z",
            ],
        ),
    ];
    for (expr, zone, after, count, expected) in cases {
        check(expr, zone, after, *count, expected);
    }
}

#[test]
fn timezone_is_applied_summer_and_winter() {
    // B02: 04:00 in Los Angeles is 11:00Z in June and 12:00Z in December.
    check(
        "cron(0 4 * * ? *)",
        "America/Los_Angeles",
        "2026-06-01T07:00:00Z",
        2,
        &["2026-06-01T11:00:00Z", "2026-06-02T11:00:00Z"],
    );
    check(
        "cron(0 4 * * ? *)",
        "America/Los_Angeles",
        "2026-12-01T08:00:00Z",
        1,
        &["2026-12-01T12:00:00Z"],
    );
}

#[test]
fn preview_local_times_carry_the_zone_offset() {
    let fires = preview(
        "cron(0 2 * * ? *)",
        Some("America/New_York"),
        utc("2025-03-09T06:30:00Z"),
        2,
    )
    .expect("valid");
    let local: Vec<String> = fires.iter().map(Fire::local_rfc3339).collect();
    assert_eq!(
        local,
        ["2025-03-10T02:00:00-04:00", "2025-03-11T02:00:00-04:00"]
    );
    let fires = preview("cron(0 12 * * ? *)", None, utc("2026-01-01T00:00:00Z"), 1).expect("valid");
    assert_eq!(fires[0].local_rfc3339(), "2026-01-01T12:00:00+00:00");
    let fires = preview(
        "cron(15 2 * * ? *)",
        Some("Australia/Lord_Howe"),
        utc("2026-10-03T00:00:00Z"),
        1,
    )
    .expect("valid");
    assert_eq!(fires[0].local_rfc3339(), "2026-10-05T02:15:00+11:00");
}

// ------------------------------------------------------------------------------- at()

#[test]
fn at_is_read_in_the_schedule_zone() {
    let cases: &[Case] = &[
        // seed 003's example: 13:00 in Los Angeles in November is 21:00Z.
        (
            "at(2022-11-20T13:00:00)",
            "America/Los_Angeles",
            "2022-11-01T00:00:00Z",
            5,
            &["2022-11-20T21:00:00Z"],
        ),
        (
            "at(2030-01-01T09:00:00)",
            "UTC",
            "2029-12-31T00:00:00Z",
            5,
            &["2030-01-01T09:00:00Z"],
        ),
        // B13: a past at() is valid and simply has no occurrence after it.
        (
            "at(2022-12-31T23:59:59)",
            "UTC",
            "2023-01-01T00:00:00Z",
            5,
            &[],
        ),
        (
            "at(2022-12-31T23:59:59)",
            "UTC",
            "2022-12-31T23:59:59Z",
            5,
            &[],
        ),
        (
            "at(2022-12-31T23:59:59)",
            "UTC",
            "2022-12-31T23:59:58Z",
            5,
            &["2022-12-31T23:59:59Z"],
        ),
        // A repeated local time is its first instant (01:30 EDT).
        (
            "at(2026-11-01T01:30:00)",
            "America/New_York",
            "2026-01-01T00:00:00Z",
            5,
            &["2026-11-01T05:30:00Z"],
        ),
        // A skipped local time moves forward by the gap: 02:30 → 03:30 EDT; 02:15 → 02:45 on Lord Howe.
        (
            "at(2026-03-08T02:30:00)",
            "America/New_York",
            "2026-01-01T00:00:00Z",
            5,
            &["2026-03-08T07:30:00Z"],
        ),
        (
            "at(2026-10-04T02:15:00)",
            "Australia/Lord_Howe",
            "2026-01-01T00:00:00Z",
            5,
            &["2026-10-03T15:45:00Z"],
        ),
        (
            "at(2026-03-29T01:00:00)",
            "Europe/London",
            "2026-01-01T00:00:00Z",
            5,
            &["2026-03-29T01:00:00Z"],
        ),
    ];
    for (expr, zone, after, count, expected) in cases {
        check(expr, zone, after, *count, expected);
    }
    let fires = preview(
        "at(2026-03-08T02:30:00)",
        Some("America/New_York"),
        utc("2026-01-01T00:00:00Z"),
        1,
    )
    .expect("valid");
    assert_eq!(fires[0].local_rfc3339(), "2026-03-08T03:30:00-04:00");
}

#[test]
fn at_ignores_start_and_end_dates() {
    let at = ScheduleExpression::parse("at(2030-06-01T12:00:00)").expect("valid");
    let window = Window {
        start: Some(utc("2031-01-01T00:00:00Z")),
        end: Some(utc("2029-01-01T00:00:00Z")),
        anchor: utc("2029-01-01T00:00:00Z"),
    };
    assert_eq!(
        at.next_after(utc("2029-01-01T00:00:00Z"), Tz::UTC, &window),
        Some(utc("2030-06-01T12:00:00Z"))
    );
    assert_eq!(
        fires(&at, Tz::UTC, &window, utc("2029-01-01T00:00:00Z"), 10).len(),
        1
    );
}

// ------------------------------------------------------------------------------- rate()

#[test]
fn rate_preview_is_anchored_at_after_and_evenly_spaced() {
    check(
        "rate(15 minutes)",
        "UTC",
        "2026-05-05T10:00:00Z",
        4,
        &[
            "2026-05-05T10:15:00Z",
            "2026-05-05T10:30:00Z",
            "2026-05-05T10:45:00Z",
            "2026-05-05T11:00:00Z",
        ],
    );
    check(
        "rate(1 hour)",
        "Asia/Kolkata",
        "2026-05-05T10:00:30Z",
        2,
        &["2026-05-05T11:00:30Z", "2026-05-05T12:00:30Z"],
    );
}

#[test]
fn rate_days_stay_24_hours_apart_across_dst() {
    // B05: StartDate 2026-03-07T14:00Z (09:00 EST) → 14:00Z every day (10:00 EDT after the change).
    let rate = ScheduleExpression::parse("rate(1 day)").expect("valid");
    let start = utc("2026-03-07T14:00:00Z");
    let window = Window {
        start: Some(start),
        end: None,
        anchor: start,
    };
    let got: Vec<String> = fires(
        &rate,
        tz("America/New_York"),
        &window,
        utc("2026-03-01T00:00:00Z"),
        3,
    )
    .iter()
    .map(|f| f.local_rfc3339())
    .collect();
    assert_eq!(
        got,
        [
            "2026-03-07T09:00:00-05:00",
            "2026-03-08T10:00:00-04:00",
            "2026-03-09T10:00:00-04:00"
        ]
    );
}

#[test]
fn rate_occurrences_count_from_the_anchor() {
    let rate = ScheduleExpression::parse("rate(10 minutes)").expect("valid");
    let anchor = utc("2026-01-01T00:00:00.250Z");
    let window = Window::anchored_at(anchor);
    let cases = [
        // Before the anchor: occurrence 0 is the anchor itself.
        ("2025-12-31T00:00:00Z", "2026-01-01T00:00:00.250Z"),
        // At an occurrence: strictly after it.
        ("2026-01-01T00:00:00.250Z", "2026-01-01T00:10:00.250Z"),
        ("2026-01-01T00:10:00.249Z", "2026-01-01T00:10:00.250Z"),
        ("2026-01-01T05:55:00Z", "2026-01-01T06:00:00.250Z"),
    ];
    for (after, expected) in cases {
        assert_eq!(
            rate.next_after(utc(after), Tz::UTC, &window),
            Some(utc(expected)),
            "after {after}"
        );
    }
    // Beyond what an instant can hold: no occurrence rather than a panic.
    let huge = ScheduleExpression::parse("rate(2147483647 days)").expect("valid");
    assert_eq!(huge.next_after(anchor, Tz::UTC, &window), None);
}

// ------------------------------------------------------------------------------- windows

#[test]
fn start_and_end_dates_bound_recurring_schedules() {
    let t0 = utc("2030-01-01T12:00:00Z");
    let start = utc("2030-01-01T12:30:00Z");
    let end = utc("2030-01-01T12:55:00Z");
    let window = Window {
        start: Some(start),
        end: Some(end),
        anchor: start,
    };
    let list = |expr: &str, after: DateTime<Utc>| -> Vec<String> {
        let e = ScheduleExpression::parse(expr).expect("valid");
        fires(&e, Tz::UTC, &window, after, 10)
            .iter()
            .map(|f| crate::time::rfc3339(f.utc))
            .collect()
    };
    // The extensions acceptance case: rate from StartDate (its first occurrence) until EndDate.
    assert_eq!(
        list("rate(10 minutes)", t0),
        [
            "2030-01-01T12:30:00Z",
            "2030-01-01T12:40:00Z",
            "2030-01-01T12:50:00Z"
        ]
    );
    // StartDate itself is an occurrence of the cron too (≥ StartDate); EndDate is not (< EndDate).
    assert_eq!(
        list("cron(*/5 * * * ? *)", t0),
        [
            "2030-01-01T12:30:00Z",
            "2030-01-01T12:35:00Z",
            "2030-01-01T12:40:00Z",
            "2030-01-01T12:45:00Z",
            "2030-01-01T12:50:00Z"
        ]
    );
    assert_eq!(
        list("cron(*/5 * * * ? *)", utc("2030-01-01T12:42:00Z")),
        ["2030-01-01T12:45:00Z", "2030-01-01T12:50:00Z"]
    );
    assert_eq!(list("cron(0 * * * ? *)", t0), Vec::<String>::new());
    assert_eq!(list("rate(1 minute)", end), Vec::<String>::new());
    assert_eq!(
        fires(
            &ScheduleExpression::parse("rate(1 minute)").expect("valid"),
            Tz::UTC,
            &window,
            t0,
            0
        ),
        []
    );
    // A cron before the anchor date is still bounded by StartDate, not by the anchor.
    let from_utc = Utc
        .with_ymd_and_hms(2030, 1, 1, 12, 29, 59)
        .single()
        .expect("valid");
    assert_eq!(
        list("cron(* * * * ? *)", from_utc)[0],
        "2030-01-01T12:30:00Z"
    );
}

#[test]
fn extreme_instants_answer_without_panicking() {
    let extremes = [DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC];
    for text in [
        "cron(* * * * ? *)",
        "cron(0 0 L * ? *)",
        "rate(1 minute)",
        "rate(2147483647 days)",
        "at(1970-01-01T00:00:00)",
        "at(2199-12-31T23:59:59)",
    ] {
        let expr = ScheduleExpression::parse(text).expect("valid");
        for zone in ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"] {
            for after in extremes {
                for anchor in extremes {
                    let window = Window {
                        start: Some(anchor),
                        end: Some(anchor),
                        anchor,
                    };
                    let _ = expr.next_after(after, tz(zone), &window);
                    let _ = expr.next_after(after, tz(zone), &Window::anchored_at(anchor));
                }
            }
        }
    }
    let cron = ScheduleExpression::parse("cron(* * * * ? *)").expect("valid");
    let window = Window::anchored_at(DateTime::<Utc>::MIN_UTC);
    assert_eq!(
        cron.next_after(DateTime::<Utc>::MIN_UTC, Tz::UTC, &window),
        Some(utc("1970-01-01T00:00:00Z"))
    );
    assert_eq!(
        cron.next_after(DateTime::<Utc>::MAX_UTC, Tz::UTC, &window),
        None
    );
}

#[test]
fn fires_beyond_the_calendar_are_written_in_utc() {
    let fire = Fire::new(DateTime::<Utc>::MAX_UTC, tz("Pacific/Kiritimati"));
    assert_eq!(
        fire.local_rfc3339(),
        crate::time::rfc3339(DateTime::<Utc>::MAX_UTC)
    );
    let fire = Fire::new(utc("2026-01-01T00:00:00Z"), tz("Pacific/Kiritimati"));
    assert_eq!(fire.local_rfc3339(), "2026-01-01T14:00:00+14:00");
}

#[test]
fn a_skipped_calendar_day_has_no_cron_fire_and_moves_an_at() {
    // Samoa skipped 30 December 2011 (UTC-10 → UTC+14 at the end of the 29th).
    check(
        "cron(0 12 * * ? *)",
        "Pacific/Apia",
        "2011-12-29T00:00:00Z",
        2,
        &["2011-12-29T22:00:00Z", "2011-12-30T22:00:00Z"],
    );
    check(
        "cron(0 12 30 12 ? 2011)",
        "Pacific/Apia",
        "2011-01-01T00:00:00Z",
        1,
        &[],
    );
    let fires = preview(
        "at(2011-12-30T12:00:00)",
        Some("Pacific/Apia"),
        utc("2011-01-01T00:00:00Z"),
        1,
    )
    .expect("valid");
    assert_eq!(crate::time::rfc3339(fires[0].utc), "2011-12-30T22:00:00Z");
    assert_eq!(fires[0].local_rfc3339(), "2011-12-31T12:00:00+14:00");
}
