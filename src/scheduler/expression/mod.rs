//! Schedule expressions: `at(...)`, `rate(...)` and AWS's six-field `cron(...)`, parsed and
//! evaluated in one place (EventBridge Scheduler user guide, "Schedule types"; spec 003).
//!
//! Pure and synchronous: no clock, no I/O. [`ScheduleExpression::parse`] accepts exactly what
//! AWS accepts and rejects the rest with `Invalid Schedule Expression <expr>.`;
//! [`ScheduleExpression::next_after`] gives the first occurrence strictly after an instant,
//! read in the schedule's IANA zone with AWS's daylight-saving rules.
//!
//! INTERFACE PLACEHOLDER: the signatures below are the contract other modules code against;
//! the bodies are a stand-in until the expression module is written.

use chrono::{DateTime, NaiveDateTime, Utc};
use chrono_tz::Tz;

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
    /// `cron(...)`: the original text (the placeholder keeps only the text).
    Cron(String),
}

/// The expression was rejected. Displays as AWS's message: `Invalid Schedule Expression <expr>.`
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid Schedule Expression {0}.")]
pub struct InvalidExpression(pub String);

/// The zone name was rejected (not an IANA zone).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid ScheduleExpressionTimezone {0}.")]
pub struct InvalidTimezone(pub String);

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

impl ScheduleExpression {
    /// Parses `text` exactly as AWS does (no surrounding whitespace, no `Z` in `at`).
    pub fn parse(text: &str) -> Result<ScheduleExpression, InvalidExpression> {
        let bad = || InvalidExpression(text.to_string());
        if let Some(inner) = text.strip_prefix("at(").and_then(|r| r.strip_suffix(')')) {
            return NaiveDateTime::parse_from_str(inner, "%Y-%m-%dT%H:%M:%S")
                .map(ScheduleExpression::At)
                .map_err(|_| bad());
        }
        if let Some(inner) = text.strip_prefix("rate(").and_then(|r| r.strip_suffix(')')) {
            let (value, unit) = inner.split_once(' ').ok_or_else(bad)?;
            let value: u64 = value.parse().map_err(|_| bad())?;
            let unit = match unit {
                "minute" | "minutes" => 60,
                "hour" | "hours" => 3600,
                "day" | "days" => 86400,
                _ => return Err(bad()),
            };
            if value == 0 {
                return Err(bad());
            }
            return Ok(ScheduleExpression::Rate {
                seconds: value * unit,
            });
        }
        if let Some(inner) = text.strip_prefix("cron(").and_then(|r| r.strip_suffix(')')) {
            if inner.split(' ').count() == 6 {
                return Ok(ScheduleExpression::Cron(text.to_string()));
            }
        }
        Err(bad())
    }

    /// True for `at(...)` (fires once; StartDate/EndDate do not apply).
    pub fn is_one_time(&self) -> bool {
        matches!(self, ScheduleExpression::At(_))
    }

    /// The first occurrence strictly after `after`, with `tz` the schedule's zone, inside
    /// `window` (ignored for `at`). `None` when there is none (an `at` in the past, a cron
    /// that can never fire, or past EndDate). Bounded work: never loops unboundedly.
    pub fn next_after(
        &self,
        after: DateTime<Utc>,
        tz: Tz,
        window: &Window,
    ) -> Option<DateTime<Utc>> {
        let _ = (after, tz, window);
        None
    }
}

/// Parses an IANA zone name (`America/New_York`, `UTC`).
pub fn parse_timezone(name: &str) -> Result<Tz, InvalidTimezone> {
    name.parse::<Tz>()
        .map_err(|_| InvalidTimezone(name.to_string()))
}
