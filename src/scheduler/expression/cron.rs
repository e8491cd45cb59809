//! AWS's six-field `cron(minutes hours day-of-month month day-of-week year)`: the grammar
//! (EventBridge Scheduler user guide, "Cron-based schedules"; EventBridge "Cron expressions
//! reference") parsed once into per-field bitsets, and the search for the next matching local
//! wall-clock minute.
//!
//! Knows nothing of time zones, instants or windows: [`CronExpression::next_local`] works on
//! naive local date-times; `super` turns those into instants with the daylight-saving rules.
//!
//! Grammar decisions where the AWS documentation is silent (each follows Quartz, which AWS's
//! cron dialect derives from: `?`, `L`, `W`, `#`, 1 = Sunday, the year field, and the console's
//! `31W` preview all behave as in Quartz):
//! - Names (`JAN`–`DEC`, `SUN`–`SAT`) and the letters `L`, `W` are case-insensitive.
//! - Exactly one of day-of-month and day-of-week is `?` (both `?` and neither `?` are rejected).
//! - `L`, `L-n` (n 0–30, n days before the last), `LW` and `nW` in day-of-month, and `L`
//!   (Saturday), `nL` and `n#k` (k 1–5) in day-of-week, stand alone in their field.
//! - A range whose start is after its end wraps around (`FRI-MON`, `22-2`), steps included;
//!   a reversed year range is rejected. Both ends of a range are names or both are numbers.
//! - `/` is accepted in every field but day-of-week (the documented wildcard table); a step
//!   is 1 to the field's largest value (years: any positive step).
//! - Fields are separated by exactly one space; nothing precedes or follows them.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};

/// First year a cron expression can name.
pub const FIRST_YEAR: i32 = 1970;
/// Last year a cron expression can name; searches never go past it.
pub const LAST_YEAR: i32 = 2199;

const MONTH_NAMES: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAY_NAMES: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// Weekday numbers as AWS writes them: 1 = Sunday … 7 = Saturday.
const SUNDAY: u32 = 1;
const SATURDAY: u32 = 7;

/// A parsed cron expression: one bitset per plain field, and the day rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CronExpression {
    /// Bit m set: minute m (0–59) matches.
    minutes: u64,
    /// Bit h set: hour h (0–23) matches.
    hours: u32,
    /// Bit m set: month m (1–12) matches.
    months: u16,
    /// Bit (y − 1970) set: year y matches.
    years: [u64; 4],
    /// Which days of a month match.
    days: DayRule,
}

/// The day-of-month / day-of-week rule (exactly one of the two fields is `?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DayRule {
    /// Day-of-month list: bit d set for day d (1–31).
    MonthDays(u32),
    /// `L` (offset 0) or `L-n`: the last day of the month, minus `offset` days.
    LastDay { offset: u32 },
    /// `LW`: the last weekday (Monday–Friday) of the month.
    LastWeekday,
    /// `nW`: the weekday nearest day n, never leaving the month.
    NearestWeekday(u32),
    /// Day-of-week list: bit w set for weekday w (1 = Sunday … 7 = Saturday).
    WeekDays(u8),
    /// `nL`: the last weekday w of the month.
    LastOfWeekday(u32),
    /// `w#k`: the k-th weekday w of the month.
    NthWeekday { weekday: u32, nth: u32 },
}

/// How one plain field is written.
struct Field {
    min: u32,
    max: u32,
    names: &'static [&'static str],
    /// A range `a-b` with a > b wraps around the field.
    wraps: bool,
    /// `/` allowed.
    steps: bool,
    max_step: u32,
}

const MINUTES: Field = Field {
    min: 0,
    max: 59,
    names: &[],
    wraps: true,
    steps: true,
    max_step: 59,
};
const HOURS: Field = Field {
    min: 0,
    max: 23,
    names: &[],
    wraps: true,
    steps: true,
    max_step: 23,
};
const DAYS_OF_MONTH: Field = Field {
    min: 1,
    max: 31,
    names: &[],
    wraps: true,
    steps: true,
    max_step: 31,
};
const MONTHS: Field = Field {
    min: 1,
    max: 12,
    names: &MONTH_NAMES,
    wraps: true,
    steps: true,
    max_step: 12,
};
const DAYS_OF_WEEK: Field = Field {
    min: 1,
    max: 7,
    names: &DAY_NAMES,
    wraps: true,
    steps: false,
    max_step: 7,
};
const YEARS: Field = Field {
    min: FIRST_YEAR as u32,
    max: LAST_YEAR as u32,
    names: &[],
    wraps: false,
    steps: true,
    max_step: u32::MAX,
};

/// Up to 256 values, stored as `value - field.min`.
#[derive(Clone, Copy, Default)]
struct Set([u64; 4]);

impl Set {
    fn insert(&mut self, index: u32) {
        self.0[(index / 64) as usize] |= 1 << (index % 64);
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
}

impl CronExpression {
    /// Parses the text between `cron(` and `)`. `None` when AWS would reject it.
    pub fn parse(body: &str) -> Option<CronExpression> {
        let body = body.to_ascii_uppercase();
        let fields: Vec<&str> = body.split(' ').collect();
        let [minutes, hours, dom, month, dow, year] = fields.as_slice() else {
            return None;
        };
        let minutes = parse_field(minutes, &MINUTES)?.0[0];
        let hours = parse_field(hours, &HOURS)?.0[0] as u32;
        let months = (parse_field(month, &MONTHS)?.0[0] << 1) as u16;
        let years = parse_field(year, &YEARS)?.0;
        let days = match (*dom, *dow) {
            ("?", "?") => return None,
            ("?", dow) => parse_day_of_week(dow)?,
            (dom, "?") => parse_day_of_month(dom)?,
            _ => return None,
        };
        Some(CronExpression {
            minutes,
            hours,
            months,
            years,
            days,
        })
    }

    /// The first local wall-clock minute at or after `from` (seconds ignored) that the
    /// expression names, or `None` when there is none up to the end of [`LAST_YEAR`].
    /// Works month by month with bit arithmetic: at most 230 × 12 month evaluations.
    pub fn next_local(&self, from: NaiveDateTime) -> Option<NaiveDateTime> {
        let (mut year, mut month, mut day, mut hour, mut minute) = (
            from.year(),
            from.month(),
            from.day(),
            from.hour(),
            from.minute(),
        );
        if year > LAST_YEAR {
            return None;
        }
        if year < FIRST_YEAR {
            (year, month, day, hour, minute) = (FIRST_YEAR, 1, 1, 0, 0);
        }
        loop {
            let found = self.next_year(year)?;
            if found != year {
                (year, month, day, hour, minute) = (found, 1, 1, 0, 0);
            }
            let mut months = self.months & (u16::MAX << month);
            while months != 0 {
                let m = months.trailing_zeros();
                months &= months - 1;
                if m != month {
                    (month, day, hour, minute) = (m, 1, 0, 0);
                }
                let mut days = self.day_mask(year, m) & (u32::MAX << day);
                while days != 0 {
                    let d = days.trailing_zeros();
                    days &= days - 1;
                    if d != day {
                        (day, hour, minute) = (d, 0, 0);
                    }
                    let mut hours = self.hours & (u32::MAX << hour);
                    while hours != 0 {
                        let h = hours.trailing_zeros();
                        hours &= hours - 1;
                        if h != hour {
                            (hour, minute) = (h, 0);
                        }
                        let minutes = self.minutes & (u64::MAX << minute);
                        if minutes != 0 {
                            return NaiveDate::from_ymd_opt(year, m, d)?.and_hms_opt(
                                h,
                                minutes.trailing_zeros(),
                                0,
                            );
                        }
                    }
                }
            }
            if year >= LAST_YEAR {
                return None;
            }
            (year, month, day, hour, minute) = (year + 1, 1, 1, 0, 0);
        }
    }

    /// True when the whole local day `date` matches the year, month and day fields.
    pub fn matches_day(&self, date: NaiveDate) -> bool {
        let (year, month) = (date.year(), date.month());
        let Ok(index) = u32::try_from(year - FIRST_YEAR) else {
            return false;
        };
        year <= LAST_YEAR
            && self.years[(index / 64) as usize] & (1 << (index % 64)) != 0
            && self.months & (1 << month) != 0
            && self.day_mask(year, month) & (1 << date.day()) != 0
    }

    /// How many minutes of a matching local day the expression names (hours × minutes).
    pub fn minutes_per_day(&self) -> u64 {
        u64::from(self.hours.count_ones()) * u64::from(self.minutes.count_ones())
    }

    /// The first year ≥ `year` in the year field.
    fn next_year(&self, year: i32) -> Option<i32> {
        let start = u32::try_from(year - FIRST_YEAR).ok()?;
        for word in (start / 64) as usize..self.years.len() {
            let mut bits = self.years[word];
            if word == (start / 64) as usize {
                bits &= u64::MAX << (start % 64);
            }
            if bits != 0 {
                let found = FIRST_YEAR + (word as i32) * 64 + bits.trailing_zeros() as i32;
                return (found <= LAST_YEAR).then_some(found);
            }
        }
        None
    }

    /// Bit d set: day d of `month` in `year` matches the day rule.
    fn day_mask(&self, year: i32, month: u32) -> u32 {
        let len = days_in_month(year, month);
        let first = weekday_of_first(year, month);
        // Weekday (1 = Sunday) of day d.
        let weekday = |d: u32| (first - 1 + d - 1) % 7 + 1;
        // First day of the month falling on weekday w.
        let first_on = |w: u32| 1 + (w + 7 - first) % 7;
        match self.days {
            DayRule::MonthDays(bits) => bits & month_mask(len),
            DayRule::LastDay { offset } => {
                if len > offset {
                    1 << (len - offset)
                } else {
                    0
                }
            }
            DayRule::LastWeekday => {
                let day = match weekday(len) {
                    SATURDAY => len - 1,
                    SUNDAY => len - 2,
                    _ => len,
                };
                1 << day
            }
            DayRule::NearestWeekday(n) => {
                if n > len {
                    return 0;
                }
                let day = match weekday(n) {
                    SATURDAY if n == 1 => 3,
                    SATURDAY => n - 1,
                    SUNDAY if n == len => n - 2,
                    SUNDAY => n + 1,
                    _ => n,
                };
                1 << day
            }
            DayRule::WeekDays(bits) => {
                let mut mask = 0u32;
                for w in SUNDAY..=SATURDAY {
                    if bits & (1 << w) != 0 {
                        let mut d = first_on(w);
                        while d <= len {
                            mask |= 1 << d;
                            d += 7;
                        }
                    }
                }
                mask
            }
            DayRule::LastOfWeekday(w) => 1 << (len - (weekday(len) + 7 - w) % 7),
            DayRule::NthWeekday { weekday: w, nth } => {
                let d = first_on(w) + 7 * (nth - 1);
                if d <= len {
                    1 << d
                } else {
                    0
                }
            }
        }
    }
}

/// Bits 1..=len.
fn month_mask(len: u32) -> u32 {
    (u32::MAX >> (31 - len)) & !1
}

/// Days in `month` of `year` (proleptic Gregorian).
pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Weekday (1 = Sunday … 7 = Saturday) of the first day of `month` in `year`.
fn weekday_of_first(year: i32, month: u32) -> u32 {
    NaiveDate::from_ymd_opt(year, month, 1)
        .map(|d| d.weekday().num_days_from_sunday() + 1)
        .unwrap_or(SUNDAY)
}

/// A plain number: 1 to 9 ASCII digits.
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// One value of `field`: a number in range, or one of its names. The flag tells a name.
fn value(text: &str, field: &Field) -> Option<(u32, bool)> {
    if let Some(n) = number(text) {
        return (field.min..=field.max).contains(&n).then_some((n, false));
    }
    let index = field.names.iter().position(|name| *name == text)?;
    Some((field.min + index as u32, true))
}

/// A comma-separated list of `*`, `v`, `a-b`, each optionally `/step`.
fn parse_field(text: &str, field: &Field) -> Option<Set> {
    let mut set = Set::default();
    for item in text.split(',') {
        let (base, step) = match item.split_once('/') {
            Some((base, step)) => {
                if !field.steps {
                    return None;
                }
                let step = number(step)?;
                if step == 0 || step > field.max_step {
                    return None;
                }
                (base, Some(step))
            }
            None => (item, None),
        };
        let (start, end) = if base == "*" {
            (field.min, field.max)
        } else if let Some((a, b)) = base.split_once('-') {
            let (a, a_name) = value(a, field)?;
            let (b, b_name) = value(b, field)?;
            if a_name != b_name || (a > b && !field.wraps) {
                return None;
            }
            (a, b)
        } else {
            let (v, _) = value(base, field)?;
            (v, if step.is_some() { field.max } else { v })
        };
        insert_range(&mut set, field, start, end, step.unwrap_or(1));
    }
    (!set.is_empty()).then_some(set)
}

/// Inserts start, start + step, … up to end, wrapping past the field's maximum when
/// start > end (Quartz's overflow ranges).
fn insert_range(set: &mut Set, field: &Field, start: u32, end: u32, step: u32) {
    let span = field.max - field.min + 1;
    let stop = if start > end { end + span } else { end };
    let mut v = start;
    while v <= stop {
        let actual = if v > field.max { v - span } else { v };
        set.insert(actual - field.min);
        v = match v.checked_add(step) {
            Some(next) => next,
            None => break,
        };
    }
}

fn parse_day_of_month(text: &str) -> Option<DayRule> {
    match text {
        "L" => Some(DayRule::LastDay { offset: 0 }),
        "LW" => Some(DayRule::LastWeekday),
        _ => {
            if let Some(offset) = text.strip_prefix("L-") {
                let offset = number(offset)?;
                return (0..=30)
                    .contains(&offset)
                    .then_some(DayRule::LastDay { offset });
            }
            if let Some(day) = text.strip_suffix('W') {
                let day = number(day)?;
                return (1..=31)
                    .contains(&day)
                    .then_some(DayRule::NearestWeekday(day));
            }
            let set = parse_field(text, &DAYS_OF_MONTH)?;
            Some(DayRule::MonthDays((set.0[0] << 1) as u32))
        }
    }
}

fn parse_day_of_week(text: &str) -> Option<DayRule> {
    if text == "L" {
        return Some(DayRule::WeekDays(1 << SATURDAY));
    }
    if let Some(day) = text.strip_suffix('L') {
        let (weekday, _) = value(day, &DAYS_OF_WEEK)?;
        return Some(DayRule::LastOfWeekday(weekday));
    }
    if let Some((day, nth)) = text.split_once('#') {
        let (weekday, _) = value(day, &DAYS_OF_WEEK)?;
        let nth = number(nth)?;
        return (1..=5)
            .contains(&nth)
            .then_some(DayRule::NthWeekday { weekday, nth });
    }
    let set = parse_field(text, &DAYS_OF_WEEK)?;
    Some(DayRule::WeekDays((set.0[0] << 1) as u8))
}
