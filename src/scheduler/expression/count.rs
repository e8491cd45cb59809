//! Counting occurrences in a span without listing them ([`count_through`]): what a compact
//! `dropped` record after a long outage needs. Pure and bounded like the rest of the module;
//! it must agree exactly with walking [`ScheduleExpression::next_after`] (tested against that
//! walk, and fuzzed).

use chrono::{DateTime, Datelike, Duration, Offset, Utc};
use chrono_tz::Tz;

use super::{zone, CronExpression, ScheduleExpression, Window, LAST_YEAR};

/// How many occurrences of `expression` in `tz` inside `window` fall in `[first, last]`
/// (both ends included): the count behind a compact `dropped` record after a long outage.
/// Exact and bounded: `at` is one lookup, `rate` is arithmetic on its metered interval, and
/// `cron` walks occurrence by occurrence only on days it cannot count whole (the edges of the
/// span or of the window, days with a daylight-saving change); every other local day adds
/// hours × minutes when its date matches. At most one step per local day up to 2199.
pub fn count_through(
    expression: &ScheduleExpression,
    tz: Tz,
    window: &Window,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
) -> u64 {
    let Some(before_first) = first.checked_sub_signed(Duration::nanoseconds(1)) else {
        return 0;
    };
    if last < first {
        return 0;
    }
    let Some(t0) = expression
        .next_after(before_first, tz, window)
        .filter(|t| *t <= last)
    else {
        return 0;
    };
    match expression {
        ScheduleExpression::At(_) => 1,
        ScheduleExpression::Rate { seconds } => {
            // `t0` is an occurrence; the others follow every `seconds` up to `last` and EndDate.
            let hi = match window.end {
                Some(end) if end <= last => end - Duration::nanoseconds(1),
                _ => last,
            };
            u64::try_from((hi - t0).num_seconds()).unwrap_or(0) / seconds + 1
        }
        ScheduleExpression::Cron(cron) => {
            count_cron(expression, cron, tz, window, (t0, first, last))
        }
    }
}

/// [`count_through`] for a cron whose first occurrence in `[first, last]` is `t0`.
fn count_cron(
    expression: &ScheduleExpression,
    cron: &CronExpression,
    tz: Tz,
    window: &Window,
    (t0, first, last): (DateTime<Utc>, DateTime<Utc>, DateTime<Utc>),
) -> u64 {
    let midnight = |d: chrono::NaiveDate| zone::lenient(tz, d.and_time(chrono::NaiveTime::MIN));
    let offset = |t: DateTime<Utc>| t.with_timezone(&tz).offset().fix();
    // A local day is counted whole when every occurrence of it is in the span and the window
    // and its clock does not change (24 hours, one offset; a change at midnight shortens or
    // lengthens the day): then it holds hours × minutes occurrences if it matches.
    let whole = |d: chrono::NaiveDate| -> bool {
        let Some(next) = d.succ_opt() else {
            return false;
        };
        let (start, end) = (midnight(d), midnight(next));
        d.year() <= LAST_YEAR
            && first <= start
            && end <= last
            && window.start.is_none_or(|s| s <= start)
            && window.end.is_none_or(|e| end <= e)
            && end - start == Duration::days(1)
            && offset(start) == offset(end - Duration::seconds(1))
    };
    let mut count = 0u64;
    // The earliest occurrence not counted yet.
    let mut t = t0;
    loop {
        let mut day = t.with_timezone(&tz).date_naive();
        let mut whole_days = false;
        while whole(day) {
            if cron.matches_day(day) {
                count += cron.minutes_per_day();
            }
            whole_days = true;
            match day.succ_opt() {
                Some(next) => day = next,
                None => return count,
            }
        }
        let cursor = if whole_days {
            midnight(day) - Duration::nanoseconds(1)
        } else {
            count += 1;
            t
        };
        match expression.next_after(cursor, tz, window) {
            Some(n) if n <= last => t = n,
            _ => return count,
        }
    }
}

/// The latest occurrence of `expression` in `tz` inside `window` strictly after `after` and at
/// or before `bound`, or `None`. A bisection over whole seconds on [`ScheduleExpression::next_after`]
/// (whose answer only grows with its argument): about 40 lookups whatever the span, where a
/// walk from `after` could take millions.
pub fn last_through(
    expression: &ScheduleExpression,
    tz: Tz,
    window: &Window,
    after: DateTime<Utc>,
    bound: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let within = |x: DateTime<Utc>| expression.next_after(x, tz, window).filter(|t| *t <= bound);
    within(after)?;
    // There is an occurrence in (max(lo, after), bound]; from `hi` on there is none, or only
    // within its last second (the walk at the end takes those).
    let (mut lo, mut hi) = (after.timestamp(), bound.timestamp());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let at = DateTime::from_timestamp(mid, 0)?.max(after);
        if within(at).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // Occurrences are at least a minute apart, so the one after `lo` is the last.
    let from = DateTime::from_timestamp(lo, 0)?.max(after);
    let mut last = within(from)?;
    while let Some(t) = within(last) {
        last = t;
    }
    Some(last)
}
