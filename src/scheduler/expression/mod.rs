//! Schedule expressions: `at(...)`, `rate(...)` and AWS's six-field `cron(...)`, parsed and
//! evaluated in one place (EventBridge Scheduler user guide, "Schedule types"; spec 003).
//!
//! Pure and synchronous: no clock, no I/O. [`ScheduleExpression::parse`] accepts exactly what
//! AWS accepts and rejects the rest with `Invalid Schedule Expression <expr>.`;
//! [`ScheduleExpression::next_after`] gives the first occurrence strictly after an instant,
//! read in the schedule's IANA zone with AWS's daylight-saving rules; [`fires`] and
//! [`preview`] list the next occurrences (`GET /_cumulo/scheduler/preview`).
//!
//! - `at.rs`: the one-time form and how a local time that is skipped or repeated resolves.
//! - `rate.rs`: metered intervals from an anchor.
//! - `cron.rs`: the cron grammar, per-field bitsets, and the local next-minute search.
//! - `zone.rs`: local wall-clock time → instant with the daylight-saving rules.
//! - `count.rs`: how many occurrences fall in a span, without listing them.
//!
//! Every search is bounded: cron never looks past 31 December 2199 (the last year a cron can
//! name), and works month by month with calendar arithmetic, never minute by minute.

mod at;
mod count;
mod cron;
mod rate;
mod zone;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bounds;

use std::str::FromStr;

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDateTime, SecondsFormat, Timelike, Utc,
};
use chrono_tz::Tz;

pub use count::{count_through, last_through};
pub use cron::{CronExpression, FIRST_YEAR, LAST_YEAR};

/// A parsed schedule expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleExpression {
    /// `at(yyyy-mm-ddThh:mm:ss)`: one local wall-clock time in the schedule's zone.
    At(NaiveDateTime),
    /// `rate(value unit)`: every `seconds` seconds of metered time from the anchor.
    Rate {
        /// The interval in seconds (value × 60, 3600 or 86400).
        seconds: u64,
    },
    /// `cron(minutes hours day-of-month month day-of-week year)`, read in the schedule's zone.
    Cron(Box<CronExpression>),
}

/// The expression was rejected. Displays as AWS's message: `Invalid Schedule Expression <expr>.`
/// with the expression verbatim (surrounding spaces included), as recorded against AWS.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid Schedule Expression {0}.")]
pub struct InvalidExpression(pub String);

/// The zone name was rejected (not an IANA zone). AWS's exact text for this case is not
/// recorded; Cumulo answers `Invalid ScheduleExpressionTimezone <name>.` as a
/// ValidationException.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid ScheduleExpressionTimezone {0}.")]
pub struct InvalidTimezone(pub String);

/// Why a preview was refused: the expression, then the zone, are checked in that order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PreviewError {
    /// `Invalid Schedule Expression <expr>.`
    #[error(transparent)]
    Expression(#[from] InvalidExpression),
    /// `Invalid ScheduleExpressionTimezone <name>.`
    #[error(transparent)]
    Timezone(#[from] InvalidTimezone),
}

/// Bounds and anchor of a schedule's occurrences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// StartDate: no occurrence before it (recurring expressions only).
    pub start: Option<DateTime<Utc>>,
    /// EndDate: no occurrence at or after it (recurring expressions only).
    pub end: Option<DateTime<Utc>>,
    /// Where `rate` occurrence 0 falls: StartDate if set, else the schedule's creation.
    pub anchor: DateTime<Utc>,
}

impl Window {
    /// No StartDate or EndDate; `rate` anchored at `anchor`.
    pub fn anchored_at(anchor: DateTime<Utc>) -> Window {
        Window {
            start: None,
            end: None,
            anchor,
        }
    }
}

impl ScheduleExpression {
    /// Parses `text` exactly as AWS does: no surrounding or doubled whitespace, no `Z` or
    /// offset in `at`, integer rates in minutes, hours or days, and the cron grammar
    /// described in `cron.rs`. Errors: [`InvalidExpression`] carrying `text` verbatim.
    pub fn parse(text: &str) -> Result<ScheduleExpression, InvalidExpression> {
        let parsed = if let Some(body) = inner(text, "at(") {
            at::parse(body).map(ScheduleExpression::At)
        } else if let Some(body) = inner(text, "rate(") {
            rate::parse(body).map(|seconds| ScheduleExpression::Rate { seconds })
        } else if let Some(body) = inner(text, "cron(") {
            CronExpression::parse(body).map(|c| ScheduleExpression::Cron(Box::new(c)))
        } else {
            None
        };
        parsed.ok_or_else(|| InvalidExpression(text.to_string()))
    }

    /// True for `at(...)` (fires once; StartDate/EndDate do not apply).
    pub fn is_one_time(&self) -> bool {
        matches!(self, ScheduleExpression::At(_))
    }

    /// The first occurrence strictly after `after` (UTC), with `tz` the schedule's zone,
    /// inside `window` (ignored for `at`): occurrences are ≥ StartDate and < EndDate. `None`
    /// when there is none (an `at` in the past, a cron that can never fire or whose years
    /// have passed, or past EndDate). Bounded work: never loops unboundedly.
    ///
    /// - `at`: the local time in `tz`; repeated → first instant, skipped → moved past the gap.
    /// - `rate`: `window.anchor` + k × interval, k ≥ 0 (metered, unaffected by DST).
    /// - `cron`: local wall-clock minutes in `tz`; a time skipped by a spring-forward change
    ///   does not fire that day, a time repeated by a fall-back change fires once, at its
    ///   first instant (so an hourly cron does not fire in the repeated hour).
    pub fn next_after(
        &self,
        after: DateTime<Utc>,
        tz: Tz,
        window: &Window,
    ) -> Option<DateTime<Utc>> {
        let found = match self {
            ScheduleExpression::At(local) => {
                let t = at::instant(*local, tz);
                return (t > after).then_some(t);
            }
            ScheduleExpression::Rate { seconds } => {
                rate::next_after(*seconds, window.anchor, lower_bound(after, window))?
            }
            ScheduleExpression::Cron(cron) => {
                cron_next_after(cron, lower_bound(after, window), tz)?
            }
        };
        window.end.is_none_or(|end| found < end).then_some(found)
    }
}

impl FromStr for ScheduleExpression {
    type Err = InvalidExpression;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ScheduleExpression::parse(text)
    }
}

/// The text between `prefix` and a final `)`.
fn inner<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.strip_prefix(prefix)?.strip_suffix(')')
}

/// Occurrences must be strictly after this instant: `after`, or just before StartDate.
fn lower_bound(after: DateTime<Utc>, window: &Window) -> DateTime<Utc> {
    match window.start {
        Some(start) if start > after => start
            .checked_sub_signed(Duration::nanoseconds(1))
            .unwrap_or(after),
        _ => after,
    }
}

/// The first cron occurrence strictly after `after`, read in `tz`.
fn cron_next_after(cron: &CronExpression, after: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
    // Every fire is in 1970–2199 local time, within a day of the same UTC years: outside
    // that span the search starts from (or ends at) its edge, which also keeps the local
    // reading of `after` inside chrono's range.
    let earliest_search = DateTime::from_timestamp(-86_400, 0)?;
    if after.year() > LAST_YEAR + 1 {
        return None;
    }
    let local = after.max(earliest_search).with_timezone(&tz).naive_local();
    let mut from = local.with_nanosecond(0)?.with_second(0)?;
    // Each turn moves `from` forward; a candidate is refused only when it is skipped by a
    // spring-forward gap or its first instant is not after `after` (a repeated hour), so the
    // loop ends within a few turns past those, and `next_local` stops after 2199.
    loop {
        let candidate = cron.next_local(from)?;
        if let Some(t) = zone::earliest(tz, candidate) {
            if t > after {
                return Some(t);
            }
        }
        from = candidate + Duration::minutes(1);
    }
}

/// Parses an IANA zone name (`America/New_York`, `UTC`), case-sensitively.
pub fn parse_timezone(name: &str) -> Result<Tz, InvalidTimezone> {
    name.parse::<Tz>()
        .map_err(|_| InvalidTimezone(name.to_string()))
}

/// One occurrence: the instant, and the same instant in the schedule's zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fire {
    /// The instant (UTC).
    pub utc: DateTime<Utc>,
    /// The same instant with the zone's offset at that instant.
    pub local: DateTime<FixedOffset>,
}

impl Fire {
    /// `t` seen in `tz`.
    pub fn new(t: DateTime<Utc>, tz: Tz) -> Fire {
        Fire {
            utc: t,
            local: t.with_timezone(&tz).fixed_offset(),
        }
    }

    /// `local` as RFC 3339 with the zone's offset (`2026-03-09T02:30:00-04:00`; UTC is
    /// written `+00:00`), a fraction only when there is one.
    pub fn local_rfc3339(&self) -> String {
        if self
            .utc
            .naive_utc()
            .checked_add_offset(*self.local.offset())
            .is_none()
        {
            // Beyond chrono's calendar: only the UTC reading can be written.
            return crate::time::rfc3339(self.utc);
        }
        self.local.to_rfc3339_opts(SecondsFormat::AutoSi, false)
    }
}

/// The next `count` occurrences of `expression` strictly after `after`, in `tz`, inside
/// `window`: what a stored schedule's preview answers (the caller answers nothing for a
/// DISABLED schedule). An `at` gives at most one.
pub fn fires(
    expression: &ScheduleExpression,
    tz: Tz,
    window: &Window,
    after: DateTime<Utc>,
    count: usize,
) -> Vec<Fire> {
    let mut out = Vec::with_capacity(count.min(128));
    let mut cursor = after;
    while out.len() < count {
        let Some(t) = expression.next_after(cursor, tz, window) else {
            break;
        };
        out.push(Fire::new(t, tz));
        if expression.is_one_time() {
            break;
        }
        cursor = t;
    }
    out
}

/// The next `count` occurrences of the expression text strictly after `after`, in
/// `timezone` (default `UTC`), with no StartDate or EndDate: `GET /_cumulo/scheduler/preview`
/// (spec `extensions.md`). A `rate` is anchored at `after`, as if the schedule were created
/// then, so its first fire is one interval after `after`.
/// Errors: [`PreviewError`] with the message CreateSchedule gives (expression checked first).
pub fn preview(
    expression: &str,
    timezone: Option<&str>,
    after: DateTime<Utc>,
    count: usize,
) -> Result<Vec<Fire>, PreviewError> {
    let expression = ScheduleExpression::parse(expression)?;
    let tz = parse_timezone(timezone.unwrap_or("UTC"))?;
    Ok(fires(
        &expression,
        tz,
        &Window::anchored_at(after),
        after,
        count,
    ))
}
