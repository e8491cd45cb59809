//! `rate(value unit)`: metered time (EventBridge Scheduler user guide, "Rate-based
//! schedules"). Occurrence k falls at anchor + k × interval (k ≥ 0), so `rate(1 days)` stays
//! exactly 86,400 s apart across daylight-saving changes. Knows nothing of zones.

use chrono::{DateTime, Utc};

/// Largest accepted value: AWS reads it as a 32-bit signed integer (an assumption: the
/// limit is not documented or recorded).
pub const MAX_VALUE: u64 = i32::MAX as u64;

/// Parses the text between `rate(` and `)`: a positive integer, one space, and one of
/// `minute`, `minutes`, `hour`, `hours`, `day`, `days` (singular and plural both accepted
/// with any value: `rate(2 minute)` was recorded as accepted). Answers the interval in
/// seconds, or `None` when AWS would reject it.
pub fn parse(body: &str) -> Option<u64> {
    let (value, unit) = body.split_once(' ')?;
    if value.is_empty() || value.len() > 10 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: u64 = value.parse().ok()?;
    if value == 0 || value > MAX_VALUE {
        return None;
    }
    let unit = match unit {
        "minute" | "minutes" => 60,
        "hour" | "hours" => 3_600,
        "day" | "days" => 86_400,
        _ => return None,
    };
    Some(value * unit)
}

/// The first occurrence anchor + k × `seconds` (k ≥ 0) strictly after `after`. `None` only
/// when it lies beyond what `DateTime<Utc>` can hold.
pub fn next_after(
    seconds: u64,
    anchor: DateTime<Utc>,
    after: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let interval = i128::from(seconds) * 1_000_000_000;
    let anchor_ns = nanos(anchor);
    let diff = nanos(after) - anchor_ns;
    let k = if diff < 0 { 0 } else { diff / interval + 1 };
    let at = anchor_ns + k * interval;
    let secs = i64::try_from(at.div_euclid(1_000_000_000)).ok()?;
    let sub = u32::try_from(at.rem_euclid(1_000_000_000)).ok()?;
    DateTime::from_timestamp(secs, sub)
}

fn nanos(t: DateTime<Utc>) -> i128 {
    i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos())
}
