//! Property tests of cron evaluation: random valid expressions (every wildcard form, names in
//! any case, wrapping ranges) in random zones (both hemispheres, Lord Howe's 30-minute shift,
//! odd offsets, zones without DST), compared with a brute-force oracle that walks local
//! wall-clock minutes; plain UTC expressions compared with the `croner` crate. Case counts are
//! bounded so `cargo test` stays fast.

use std::str::FromStr;

use chrono::{
    DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, Offset, TimeZone, Timelike, Utc,
};
use chrono_tz::Tz;
use proptest::prelude::*;

use super::{fires, ScheduleExpression, Window};

const ZONES: [&str; 12] = [
    "UTC",
    "America/New_York",
    "America/Los_Angeles",
    "Europe/London",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "America/Sao_Paulo",
    "Pacific/Chatham",
    "America/St_Johns",
    "Asia/Kathmandu",
    "Asia/Tokyo",
    "Pacific/Apia",
];

const MONTH_NAMES: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAY_NAMES: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// One list item of a plain field.
#[derive(Clone, Debug)]
enum Base {
    Star,
    Value(u32),
    Range(u32, u32),
}

#[derive(Clone, Debug)]
struct Item {
    base: Base,
    step: Option<u32>,
}

/// A plain field's bounds, as the model sees them.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: u32,
    max: u32,
}

impl Item {
    /// Membership computed directly from the item's meaning (not from the parser's bitsets).
    fn contains(&self, v: u32, b: Bounds) -> bool {
        let span = b.max - b.min + 1;
        let (start, end) = match self.base {
            Base::Star => (b.min, b.max),
            Base::Value(a) => (a, if self.step.is_some() { b.max } else { a }),
            Base::Range(a, e) => (a, e),
        };
        // Distance from start along the (possibly wrapping) range.
        let dist = (v + span - start) % span;
        let len = (end + span - start) % span;
        dist <= len && dist.is_multiple_of(self.step.unwrap_or(1))
    }

    fn render(&self, names: Option<&[&str]>, min: u32, name_case: u8) -> String {
        let show = |v: u32| match names {
            Some(names) => cased(names[(v - min) as usize], name_case),
            None => v.to_string(),
        };
        let base = match self.base {
            Base::Star => "*".to_string(),
            Base::Value(a) => show(a),
            Base::Range(a, e) => format!("{}-{}", show(a), show(e)),
        };
        match self.step {
            Some(s) => format!("{base}/{s}"),
            None => base,
        }
    }
}

fn cased(name: &str, how: u8) -> String {
    match how % 3 {
        0 => name.to_string(),
        1 => name.to_ascii_lowercase(),
        _ => {
            let lower = name.to_ascii_lowercase();
            format!("{}{}", &name[..1], &lower[1..])
        }
    }
}

/// The day rule of the model.
#[derive(Clone, Debug)]
enum Days {
    MonthList(Vec<Item>),
    Last(u32),
    LastWeekday,
    Nearest(u32),
    WeekList(Vec<Item>),
    LastOf(u32),
    Nth(u32, u32),
}

#[derive(Clone, Debug)]
struct Model {
    minutes: Vec<Item>,
    hours: Vec<Item>,
    months: Vec<Item>,
    years: Vec<Item>,
    days: Days,
    /// Render names (month, weekday) instead of numbers, and in which case.
    names: bool,
    name_case: u8,
}

const MINUTE: Bounds = Bounds { min: 0, max: 59 };
const HOUR: Bounds = Bounds { min: 0, max: 23 };
const DOM: Bounds = Bounds { min: 1, max: 31 };
const MONTH: Bounds = Bounds { min: 1, max: 12 };
const DOW: Bounds = Bounds { min: 1, max: 7 };
const YEAR: Bounds = Bounds {
    min: 1970,
    max: 2199,
};

fn weekday(d: NaiveDate) -> u32 {
    d.weekday().num_days_from_sunday() + 1
}

fn is_workday(d: NaiveDate) -> bool {
    (2..=6).contains(&weekday(d))
}

fn month_len(d: NaiveDate) -> u32 {
    super::cron::days_in_month(d.year(), d.month())
}

impl Model {
    fn render(&self) -> String {
        let list = |items: &[Item], names: Option<&[&str]>, min: u32| {
            items
                .iter()
                .map(|i| i.render(names, min, self.name_case))
                .collect::<Vec<_>>()
                .join(",")
        };
        let month_names = self.names.then_some(&MONTH_NAMES[..]);
        let day_names = self.names.then_some(&DAY_NAMES[..]);
        let day_value = |w: u32| match day_names {
            Some(n) => cased(n[(w - 1) as usize], self.name_case),
            None => w.to_string(),
        };
        let (dom, dow) = match &self.days {
            Days::MonthList(items) => (list(items, None, 1), "?".to_string()),
            Days::Last(0) => ("L".to_string(), "?".to_string()),
            Days::Last(n) => (format!("L-{n}"), "?".to_string()),
            Days::LastWeekday => ("LW".to_string(), "?".to_string()),
            Days::Nearest(n) => (format!("{n}W"), "?".to_string()),
            Days::WeekList(items) => ("?".to_string(), list(items, day_names, 1)),
            Days::LastOf(w) => ("?".to_string(), format!("{}L", day_value(*w))),
            Days::Nth(w, k) => ("?".to_string(), format!("{}#{k}", day_value(*w))),
        };
        format!(
            "cron({} {} {dom} {} {dow} {})",
            list(&self.minutes, None, 0),
            list(&self.hours, None, 0),
            list(&self.months, month_names, 1),
            list(&self.years, None, 1970),
        )
    }

    fn day_matches(&self, d: NaiveDate) -> bool {
        let any = |items: &[Item], v: u32, b: Bounds| items.iter().any(|i| i.contains(v, b));
        if !any(&self.months, d.month(), MONTH) || !any(&self.years, d.year() as u32, YEAR) {
            return false;
        }
        let len = month_len(d);
        let day = d.day();
        match &self.days {
            Days::MonthList(items) => any(items, day, DOM),
            Days::Last(n) => len > *n && day == len - n,
            Days::LastWeekday => {
                is_workday(d)
                    && (day + 1..=len)
                        .all(|later| !is_workday(d.with_day(later).expect("day in month")))
            }
            Days::Nearest(n) => {
                // The workday of the month closest to day n (no ties are possible).
                *n <= len
                    && is_workday(d)
                    && (1..=len)
                        .filter(|x| is_workday(d.with_day(*x).expect("day in month")))
                        .min_by_key(|x| x.abs_diff(*n))
                        == Some(day)
            }
            Days::WeekList(items) => any(items, weekday(d), DOW),
            Days::LastOf(w) => weekday(d) == *w && day + 7 > len,
            Days::Nth(w, k) => weekday(d) == *w && (day - 1) / 7 + 1 == *k,
        }
    }

    fn time_matches(&self, t: NaiveDateTime) -> bool {
        self.hours.iter().any(|i| i.contains(t.hour(), HOUR))
            && self.minutes.iter().any(|i| i.contains(t.minute(), MINUTE))
    }
}

/// Brute force: every local wall-clock minute from a day before `after`'s local date to
/// `horizon`; a matching local time fires at its first instant, if it exists at all.
fn oracle(
    model: &Model,
    tz: Tz,
    after: DateTime<Utc>,
    horizon: DateTime<Utc>,
    limit: usize,
) -> Vec<DateTime<Utc>> {
    let mut out = Vec::new();
    let mut day = after.with_timezone(&tz).date_naive() - Duration::days(1);
    let last = horizon.with_timezone(&tz).date_naive() + Duration::days(1);
    while day <= last && out.len() < limit {
        if model.day_matches(day) {
            for minute in 0..24 * 60 {
                let local = day
                    .and_hms_opt(minute / 60, minute % 60, 0)
                    .expect("valid time");
                if !model.time_matches(local) {
                    continue;
                }
                if let Some(t) = tz.from_local_datetime(&local).earliest() {
                    let t = t.with_timezone(&Utc);
                    if t > after && t <= horizon && out.len() < limit {
                        out.push(t);
                    }
                }
            }
        }
        day += Duration::days(1);
    }
    out.sort();
    out.dedup();
    out
}

fn item(b: Bounds, steps: bool, wraps: bool) -> impl Strategy<Value = Item> {
    let base = prop_oneof![
        2 => Just(Base::Star),
        4 => (b.min..=b.max).prop_map(Base::Value),
        3 => (b.min..=b.max, b.min..=b.max).prop_map(move |(x, y)| {
            if wraps { Base::Range(x, y) } else { Base::Range(x.min(y), x.max(y)) }
        }),
    ];
    let span = b.max - b.min + 1;
    let step = if steps {
        prop_oneof![3 => Just(None), 2 => (1..=span.min(b.max)).prop_map(Some)].boxed()
    } else {
        Just(None).boxed()
    };
    (base, step).prop_map(|(base, step)| Item { base, step })
}

fn items(b: Bounds, steps: bool, wraps: bool, max: usize) -> impl Strategy<Value = Vec<Item>> {
    prop::collection::vec(item(b, steps, wraps), 1..=max)
}

fn star() -> Vec<Item> {
    vec![Item {
        base: Base::Star,
        step: None,
    }]
}

fn model() -> impl Strategy<Value = Model> {
    let days = prop_oneof![
        4 => items(DOM, true, true, 3).prop_map(Days::MonthList),
        1 => (0u32..=30).prop_map(Days::Last),
        1 => Just(Days::LastWeekday),
        1 => (1u32..=31).prop_map(Days::Nearest),
        4 => items(DOW, false, true, 3).prop_map(Days::WeekList),
        1 => (1u32..=7).prop_map(Days::LastOf),
        1 => (1u32..=7, 1u32..=5).prop_map(|(w, k)| Days::Nth(w, k)),
    ];
    let months = prop_oneof![3 => Just(star()), 2 => items(MONTH, true, true, 3)];
    let years = prop_oneof![
        6 => Just(star()),
        1 => (2000u32..2110, 0u32..4).prop_map(|(y, n)| vec![Item { base: Base::Range(y, y + n), step: None }]),
        1 => (1990u32..2100, 1u32..4).prop_map(|(y, s)| vec![Item { base: Base::Value(y), step: Some(s) }]),
    ];
    (
        items(MINUTE, true, true, 3),
        items(HOUR, true, true, 3),
        months,
        years,
        days,
        any::<bool>(),
        any::<u8>(),
    )
        .prop_map(
            |(minutes, hours, months, years, days, names, name_case)| Model {
                minutes,
                hours,
                months,
                years,
                days,
                names,
                name_case,
            },
        )
}

/// A start instant: anywhere in 2000–2100, or just before a daylight-saving change of `tz`.
fn start(tz: Tz, seconds: i64, near_transition: bool) -> DateTime<Utc> {
    let base = Utc
        .with_ymd_and_hms(2000, 1, 1, 0, 0, 0)
        .single()
        .expect("valid")
        + Duration::seconds(seconds);
    if !near_transition {
        return base;
    }
    // The first day (within 400) whose noon offset differs from the day before's.
    let offset_at = |t: DateTime<Utc>| tz.offset_from_utc_datetime(&t.naive_utc()).fix();
    let mut lo = base;
    for _ in 0..400 {
        let mut hi = lo + Duration::days(1);
        if offset_at(hi) != offset_at(lo) {
            // Narrow to the minute of the change, then start up to three hours before it.
            while hi - lo > Duration::minutes(1) {
                let mid = lo + (hi - lo) / 2;
                if offset_at(mid) == offset_at(lo) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return hi - Duration::seconds(seconds % 10_800);
        }
        lo = hi;
    }
    base
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn cron_matches_the_brute_force_oracle(
        model in model(),
        zone in 0..ZONES.len(),
        seconds in 0i64..(100 * 365 * 86_400),
        near_transition in any::<bool>(),
    ) {
        let text = model.render();
        let expr = ScheduleExpression::parse(&text);
        prop_assert!(expr.is_ok(), "{} rejected", text);
        let expr = expr.expect("checked");
        let tz: Tz = ZONES[zone].parse().expect("zone");
        let after = start(tz, seconds, near_transition);
        let horizon = after + Duration::days(800);
        let limit = 40;
        let expected = oracle(&model, tz, after, horizon, limit);
        let got: Vec<DateTime<Utc>> = fires(&expr, tz, &Window::anchored_at(after), after, limit)
            .into_iter()
            .map(|f| f.utc)
            .filter(|t| *t <= horizon)
            .collect();
        prop_assert_eq!(got, expected, "{} in {} after {}", text, ZONES[zone], after);
    }
}

/// A plain expression both dialects read the same way: no wrapping ranges, no specials.
#[derive(Clone, Debug)]
struct Plain {
    minutes: Vec<Item>,
    hours: Vec<Item>,
    /// Day-of-month items, or day-of-week items (AWS numbering) when `by_weekday`.
    days: Vec<Item>,
    by_weekday: bool,
    months: Vec<Item>,
}

impl Plain {
    fn render(&self, aws: bool) -> String {
        let list = |items: &[Item], shift: u32| {
            items
                .iter()
                .map(|i| {
                    let base = match i.base {
                        Base::Star => "*".to_string(),
                        Base::Value(a) => (a - shift).to_string(),
                        Base::Range(a, b) => format!("{}-{}", a - shift, b - shift),
                    };
                    match i.step {
                        Some(s) => format!("{base}/{s}"),
                        None => base,
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let (m, h, mo) = (
            list(&self.minutes, 0),
            list(&self.hours, 0),
            list(&self.months, 0),
        );
        if aws {
            let (dom, dow) = if self.by_weekday {
                ("?".to_string(), list(&self.days, 0))
            } else {
                (list(&self.days, 0), "?".to_string())
            };
            format!("cron({m} {h} {dom} {mo} {dow} *)")
        } else if self.by_weekday {
            // croner (POSIX): 0 = Sunday.
            format!("{m} {h} * {mo} {}", list(&self.days, 1))
        } else {
            format!("{m} {h} {} {mo} *", list(&self.days, 0))
        }
    }
}

fn plain_item(b: Bounds) -> impl Strategy<Value = Item> {
    let base = prop_oneof![
        1 => Just(Base::Star),
        2 => (b.min..=b.max).prop_map(Base::Value),
        2 => (b.min..=b.max, b.min..=b.max).prop_map(|(x, y)| Base::Range(x.min(y), x.max(y))),
    ];
    let span = b.max - b.min + 1;
    (base, prop::option::of(1..=span.min(b.max))).prop_map(|(base, step)| {
        // A step only on `*` and on ranges, the forms both dialects share.
        let step = match base {
            Base::Value(_) => None,
            _ => step,
        };
        Item { base, step }
    })
}

fn plain() -> impl Strategy<Value = Plain> {
    (
        prop::collection::vec(plain_item(MINUTE), 1..=3),
        prop::collection::vec(plain_item(HOUR), 1..=3),
        any::<bool>(),
        prop::collection::vec(plain_item(DOM), 1..=3),
        prop::collection::vec(
            prop_oneof![
                Just(Base::Star),
                (1u32..=7).prop_map(Base::Value),
                (1u32..=7, 1u32..=7).prop_map(|(x, y)| Base::Range(x.min(y), x.max(y)))
            ]
            .prop_map(|base| Item { base, step: None }),
            1..=3,
        ),
        prop_oneof![
            Just(star()),
            prop::collection::vec(plain_item(MONTH), 1..=2)
        ],
    )
        .prop_map(|(minutes, hours, by_weekday, dom, dow, months)| Plain {
            minutes: no_star_in_lists(minutes, MINUTE),
            hours: no_star_in_lists(hours, HOUR),
            days: if by_weekday {
                no_star_in_lists(dow, DOW)
            } else {
                no_star_in_lists(dom, DOM)
            },
            by_weekday,
            months: no_star_in_lists(months, MONTH),
        })
}

/// croner refuses `*` inside a list: write it as the full range there.
fn no_star_in_lists(items: Vec<Item>, b: Bounds) -> Vec<Item> {
    if items.len() < 2 {
        return items;
    }
    items
        .into_iter()
        .map(|i| match i.base {
            Base::Star => Item {
                base: Base::Range(b.min, b.max),
                step: i.step,
            },
            _ => i,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn plain_utc_crons_agree_with_croner(
        plain in plain(),
        seconds in 0i64..(60 * 365 * 86_400),
    ) {
        let aws = plain.render(true);
        let posix = plain.render(false);
        let ours = ScheduleExpression::parse(&aws);
        prop_assert!(ours.is_ok(), "{} rejected", aws);
        let ours = ours.expect("checked");
        let theirs = croner::Cron::from_str(&posix);
        prop_assert!(theirs.is_ok(), "croner rejected {}: {:?}", posix, theirs.err());
        let theirs = theirs.expect("checked");
        let after = Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).single().expect("valid")
            + Duration::seconds(seconds);
        let got: Vec<DateTime<Utc>> = fires(&ours, Tz::UTC, &Window::anchored_at(after), after, 20)
            .into_iter()
            .map(|f| f.utc)
            .collect();
        let want: Vec<DateTime<Utc>> = theirs
            .iter_after(after)
            .take(20)
            .take_while(|t| t.year() <= 2199)
            .collect();
        prop_assert_eq!(got, want, "{} vs croner {} after {}", aws, posix, after);
    }
}
