//! Local wall-clock time ↔ instant in an IANA zone, with AWS's daylight-saving rules
//! (spec 003, "Daylight saving time"): a local time that occurs twice maps to its first
//! instant; one that does not exist is skipped (cron) or moved past the gap (`at`).
//! Pure functions over chrono-tz; no clock.

use chrono::{DateTime, Duration, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

/// The first instant at which the wall clock in `tz` reads `local`; `None` when it never
/// does (skipped by clocks springing forward).
pub fn earliest(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(t) => Some(t.with_timezone(&Utc)),
        LocalResult::Ambiguous(a, b) => Some(a.min(b).with_timezone(&Utc)),
        LocalResult::None => None,
    }
}

/// Like [`earliest`], but a nonexistent time is read with the offset in force just before
/// the gap, which lands it after the gap by the gap's length (`java.time`'s resolution).
pub fn lenient(tz: Tz, local: NaiveDateTime) -> DateTime<Utc> {
    if let Some(t) = earliest(tz, local) {
        return t;
    }
    // The transition lies within ±14 h of `local` read as UTC, so the offset 26 h before
    // that is the one in force before the gap (tz transitions are far more than a day apart).
    let probe = local - Duration::hours(26);
    let before = tz.offset_from_utc_datetime(&probe).fix().local_minus_utc();
    (local - Duration::seconds(i64::from(before))).and_utc()
}
