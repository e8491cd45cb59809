//! `at(yyyy-mm-ddThh:mm:ss)`: one wall-clock time in the schedule's zone (EventBridge
//! Scheduler user guide, "One-time schedules"). Parsing is exact: four-digit year, two digits
//! for every other part, no `Z`, no offset, no fraction; a date in the past is accepted.
//! The year is 1970–2199, the range AWS documents for the cron year field (spec 003, "Cron
//! expressions"): AWS documents no range of its own for `at()`, and one range for both keeps
//! every expression Cumulo accepts inside what its searches cover.
//! Knows nothing of windows: StartDate and EndDate do not apply to one-time schedules.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use chrono_tz::Tz;

use super::{zone, FIRST_YEAR, LAST_YEAR};

/// Parses the text between `at(` and `)`. `None` when AWS would reject it, or when the year
/// is outside [`FIRST_YEAR`]–[`LAST_YEAR`].
pub fn parse(body: &str) -> Option<NaiveDateTime> {
    let b = body.as_bytes();
    if b.len() != 19 {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &b[range];
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = i32::try_from(digits(0..4)?).ok()?;
    if !(FIRST_YEAR..=LAST_YEAR).contains(&year) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(year, digits(5..7)?, digits(8..10)?)?;
    date.and_hms_opt(digits(11..13)?, digits(14..16)?, digits(17..19)?)
}

/// The instant `local` names in `tz`. A time that occurs twice (clocks falling back) is its
/// first instant; a time that does not exist (clocks springing forward) is moved forward by
/// the length of the gap, as `java.time` resolves it (`02:30` on a New York spring-forward
/// day is `03:30` EDT), so a one-time schedule always fires once.
pub fn instant(local: NaiveDateTime, tz: Tz) -> DateTime<Utc> {
    zone::lenient(tz, local)
}
