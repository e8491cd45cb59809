//! Instant formats used on the wire. Pure functions; no clock (read time from
//! `crate::clock::Clock`).
//!
//! - [`rfc3339`]: Cumulo's own endpoints (`../shared/spec/extensions.md`): UTC with `Z`, a whole
//!   second without a fraction, any other instant with its fraction (trailing zeros trimmed).
//! - [`iso_millis`]: CloudFormation/SNS XML timestamps, millisecond precision with `Z`, as AWS
//!   writes them (`../shared/reference/aws-contract.md` §2.2).
//! - [`epoch_seconds`]: REST-JSON timestamps (Scheduler), a JSON number of seconds since the
//!   Unix epoch (aws-contract.md §0 item 13).

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};

/// `2026-03-08T06:59:00Z`, or `2026-03-08T06:59:00.5Z` when the instant has a fraction.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    let nanos = t.timestamp_subsec_nanos();
    if nanos == 0 {
        return t.to_rfc3339_opts(SecondsFormat::Secs, true);
    }
    let base = t.format("%Y-%m-%dT%H:%M:%S").to_string();
    let frac = format!("{nanos:09}");
    format!("{base}.{}Z", frac.trim_end_matches('0'))
}

/// `2024-05-31T12:00:00.123Z` (always three fractional digits).
pub fn iso_millis(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Seconds since the Unix epoch as a JSON-friendly float (whole seconds stay integral).
pub fn epoch_seconds(t: DateTime<Utc>) -> f64 {
    t.timestamp() as f64 + f64::from(t.timestamp_subsec_nanos()) / 1e9
}

/// The instant `secs` seconds after the Unix epoch (fractions kept to the nanosecond);
/// `None` when out of chrono's range or not finite.
pub fn from_epoch_seconds(secs: f64) -> Option<DateTime<Utc>> {
    if !secs.is_finite() {
        return None;
    }
    let whole = secs.floor();
    let nanos = ((secs - whole) * 1e9).round() as u32;
    let (whole, nanos) = if nanos >= 1_000_000_000 {
        (whole + 1.0, 0)
    } else {
        (whole, nanos)
    };
    if whole < i64::MIN as f64 || whole > i64::MAX as f64 {
        return None;
    }
    Utc.timestamp_opt(whole as i64, nanos).single()
}

/// Parses an RFC 3339 / ISO 8601 instant with `Z` or an offset (fraction optional).
pub fn parse_rfc3339(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The latest instant Cumulo's clock can show and its previews reach, `9999-12-31T23:59:59Z`:
/// RFC 3339 has four-digit years.
pub const LATEST_INSTANT: &str = "9999-12-31T23:59:59Z";

/// [`LATEST_INSTANT`] as an instant (UTC).
pub fn latest_instant() -> DateTime<Utc> {
    parse_rfc3339(LATEST_INSTANT).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_writes_a_fraction_only_when_there_is_one() {
        let t = Utc.with_ymd_and_hms(2026, 3, 8, 6, 59, 0).unwrap();
        assert_eq!(rfc3339(t), "2026-03-08T06:59:00Z");
        let half = t + chrono::Duration::milliseconds(500);
        assert_eq!(rfc3339(half), "2026-03-08T06:59:00.5Z");
        assert_eq!(iso_millis(half), "2026-03-08T06:59:00.500Z");
    }

    #[test]
    fn epoch_seconds_round_trip() {
        let t = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
        assert_eq!(epoch_seconds(t), 1893456000.0);
        assert_eq!(from_epoch_seconds(1893456000.0), Some(t));
        assert_eq!(
            from_epoch_seconds(1893456000.25),
            Some(t + chrono::Duration::milliseconds(250))
        );
        assert_eq!(from_epoch_seconds(f64::NAN), None);
        assert_eq!(parse_rfc3339("2030-01-01T01:00:00+01:00"), Some(t));
    }
}
