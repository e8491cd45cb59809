//! Entry points for the fuzz targets in `fuzz/` (`cargo fuzz`, see `docs/reliability.md`):
//! each takes the fuzzer's bytes, drives one part of Cumulo the way a request would, and
//! panics only on a broken property (a 500, an evaluation that escapes its bounds, two
//! occurrence counts that disagree). Hidden from the docs and from nobody else: nothing in the
//! emulator calls it. It must not hold logic of its own beyond decoding the fuzzer's input.

use std::sync::OnceLock;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::app::{App, Parts};
use crate::clock::Clock;
use crate::cloudformation::template::{
    Environment, Evaluator, ParameterInput, ParameterType, Pseudo, ResourceValues, Template,
};
use crate::config::Config;
use crate::scheduler::expression::{self, ScheduleExpression, Window};
use crate::services::sns::filter;
use crate::services::sns::model::PublishAttribute;

/// The lines of `data` (UTF-8 only; `None` otherwise), at most `n` of them, the last one
/// holding the rest.
fn lines(data: &[u8], n: usize) -> Option<Vec<&str>> {
    let text = std::str::from_utf8(data).ok()?;
    Some(text.splitn(n, '\n').collect())
}

struct NoSsm;

impl Environment for NoSsm {
    fn ssm_parameter(&self, name: &str) -> Option<String> {
        (name.len() < 64).then(|| format!("ssm-{name}"))
    }
}

struct Created;

impl ResourceValues for Created {
    fn ref_value(&self, logical_id: &str) -> Option<Value> {
        Some(Value::String(format!("phys-{logical_id}")))
    }
    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<Value> {
        Some(Value::String(format!("{logical_id}.{attribute}")))
    }
    fn import_value(&self, export_name: &str) -> Option<String> {
        Some(format!("imported-{export_name}"))
    }
}

/// A value of `t` that binds (used for parameters without a default).
fn sample_value(t: &ParameterType) -> &'static str {
    match t {
        ParameterType::Number => "1",
        ParameterType::ListNumber => "1,2",
        ParameterType::CommaDelimitedList | ParameterType::ListAws(_) => "a,b",
        _ => "x",
    }
}

/// The template target: `data` is a template body (JSON or YAML). Parses it, binds every
/// parameter (its default, else a sample value of its type), resolves it, then evaluates
/// every resource's properties and every output as a stack operation would.
pub fn template(data: &[u8]) {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(template) = Template::parse(body) else {
        return;
    };
    let given: Vec<ParameterInput> = template
        .parameters()
        .values()
        .filter(|p| p.default.is_none())
        .map(|p| ParameterInput {
            key: p.key.clone(),
            value: Some(sample_value(&p.parameter_type).to_string()),
            use_previous_value: false,
        })
        .collect();
    let Ok(params) = template.bind_parameters(&given, None, &NoSsm) else {
        return;
    };
    let pseudo = Pseudo {
        account_id: "123456789012".into(),
        region: "us-east-1".into(),
        stack_name: "fuzz".into(),
        stack_id: "arn:aws:cloudformation:us-east-1:123456789012:stack/fuzz/1".into(),
        notification_arns: vec![],
    };
    let Ok(resolved) = template.resolve(&params, &pseudo) else {
        return;
    };
    let _ = template.required_capabilities(&resolved);
    let evaluator = Evaluator::new(&template, &params, &pseudo, &resolved, &Created);
    for logical_id in &resolved.order {
        let _ = evaluator.resource_properties(logical_id);
    }
    for key in resolved.outputs.keys() {
        let _ = evaluator.output(key);
    }
}

/// The schedule-expression target: `data` is `expression\nzone\nafter\nstart\nend\ncount`
/// (instants as epoch seconds; missing lines take defaults). Parses the expression (and the
/// preview), lists occurrences in the window, and checks them: strictly increasing, inside the
/// window, and [`expression::count_through`] agreeing with the walk.
pub fn schedule_expression(data: &[u8]) {
    let Some(parts) = lines(data, 6) else {
        return;
    };
    let field = |i: usize| parts.get(i).copied().unwrap_or("");
    let instant = |i: usize| -> Option<DateTime<Utc>> {
        field(i)
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|s| DateTime::from_timestamp(s, 0))
    };
    let zone = if field(1).is_empty() {
        None
    } else {
        Some(field(1))
    };
    let after = instant(2).unwrap_or(DateTime::UNIX_EPOCH);
    let count = field(5).trim().parse::<usize>().unwrap_or(5).min(200);
    let _ = expression::preview(field(0), zone, after, count);
    let Ok(parsed) = ScheduleExpression::parse(field(0)) else {
        return;
    };
    let Ok(tz) = expression::parse_timezone(zone.unwrap_or("UTC")) else {
        return;
    };
    let window = Window {
        start: instant(3),
        end: instant(4),
        anchor: instant(3).unwrap_or(after),
    };
    let fires = expression::fires(&parsed, tz, &window, after, count);
    for pair in fires.windows(2) {
        assert!(
            pair[0].utc < pair[1].utc,
            "occurrences out of order: {pair:?}"
        );
    }
    for fire in &fires {
        assert!(fire.utc > after, "occurrence {fire:?} not after {after}");
        if !parsed.is_one_time() {
            assert!(window.start.is_none_or(|s| fire.utc >= s));
            assert!(window.end.is_none_or(|e| fire.utc < e));
        }
        let _ = fire.local_rfc3339();
    }
    if let (Some(first), Some(last)) = (fires.first(), fires.last()) {
        let counted = expression::count_through(&parsed, tz, &window, first.utc, last.utc);
        assert_eq!(
            counted,
            fires.len() as u64,
            "count_through disagrees with the walk for {:?} in {tz}",
            field(0)
        );
    }
}

/// The SNS filter-policy target: `data` is `policy\nattributes\nbody`, where `attributes` is a
/// JSON object of name → `{"DataType":..., "StringValue":...}`. Evaluates the policy in both
/// scopes.
pub fn sns_filter_policy(data: &[u8]) {
    let Some(parts) = lines(data, 3) else {
        return;
    };
    let Ok(policy) = serde_json::from_str::<Value>(parts[0]) else {
        return;
    };
    let mut attributes = Vec::new();
    if let Some(Value::Object(map)) = parts.get(1).and_then(|a| serde_json::from_str(a).ok()) {
        for (name, a) in map {
            let text = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_string);
            attributes.push((
                name,
                PublishAttribute {
                    data_type: text("DataType").unwrap_or_else(|| "String".into()),
                    string_value: text("StringValue"),
                    binary_value: None,
                },
            ));
        }
    }
    let body = parts.get(2).copied().unwrap_or("");
    let _ = filter::matches(&policy, filter::Scope::MessageAttributes, &attributes, body);
    let _ = filter::matches(&policy, filter::Scope::MessageBody, &attributes, body);
}

struct WireHarness {
    runtime: tokio::runtime::Runtime,
    app: App,
    requests: std::sync::atomic::AtomicU64,
}

fn harness() -> &'static WireHarness {
    static HARNESS: OnceLock<WireHarness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime");
        let start = DateTime::from_timestamp(1_900_000_000, 0).unwrap_or(DateTime::UNIX_EPOCH);
        let app = App::new(
            Config {
                seed: Some(7),
                ..Config::default()
            },
            Parts {
                clock: Some(Clock::manual_at(start)),
                storage: None,
            },
        );
        runtime.block_on(async { app.start() });
        WireHarness {
            runtime,
            app,
            requests: std::sync::atomic::AtomicU64::new(0),
        }
    })
}

/// Decodes the wire target's input: `METHOD TARGET`, header lines `name: value`, an empty
/// line, then the body (`\r\n` or `\n` line ends). `None` for what HTTP could not carry.
pub fn decode_request(data: &[u8]) -> Option<http::Request<axum::body::Body>> {
    let split = data
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| (i, i + 2))
        .or_else(|| {
            data.windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map(|i| (i, i + 4))
        })
        .unwrap_or((data.len(), data.len()));
    let head = std::str::from_utf8(&data[..split.0]).ok()?;
    let body = data[split.1..].to_vec();
    let mut head_lines = head.lines();
    let (method, target) = head_lines.next()?.split_once(' ')?;
    let mut builder = http::Request::builder()
        .method(http::Method::from_bytes(method.as_bytes()).ok()?)
        .uri(target);
    for line in head_lines {
        let (name, value) = line.split_once(':')?;
        builder = builder.header(name.trim(), value.trim());
    }
    builder.body(axum::body::Body::from(body)).ok()
}

/// The wire target: `data` is one HTTP request ([`decode_request`]) served by the whole router
/// (every protocol's decoder, every `/_cumulo/` endpoint) of one in-memory emulator with a
/// manual clock, reset every 1,000 requests. A request may take at most 2 s of wall time (an
/// SQS long poll or a fault's hold is cut short, not a finding); a 500 is a finding.
pub fn wire(data: &[u8]) {
    use tower::ServiceExt;
    let Some(request) = decode_request(data) else {
        return;
    };
    let h = harness();
    let n = h
        .requests
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    h.runtime.block_on(async {
        if n % 1000 == 999 {
            h.app.reset().await;
        }
        let served = async {
            let response = crate::protocol::router(h.app.clone())
                .oneshot(request)
                .await
                .expect("the router is infallible");
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX).await;
            assert_ne!(
                status,
                http::StatusCode::INTERNAL_SERVER_ERROR,
                "a 500: {:?}",
                body.map(|b| String::from_utf8_lossy(&b).into_owned())
            );
        };
        tokio::select! {
            _ = served => {}
            _ = h.app.clock.sleep_wall(Duration::from_secs(2)) => {}
        }
    });
}
