//! Validation of Scheduler requests, reported as AWS reports it. Pure: the caller passes the
//! clock's `now`; nothing here reads a clock or touches the store.
//!
//! Two passes, in AWS's order:
//! 1. **Model constraints** (lengths, patterns, enums, ranges, required members) of the botocore
//!    service model `scheduler/2021-06-30`, checked member by member in model order (members
//!    alphabetically, nested structures depth first) and reported all at once in the Coral form
//!    every AWS JSON service uses (`crate::coral`): `1 validation error detected: Value '<v>' at
//!    '<path>' failed to satisfy constraint: <constraint>`, or `N validation errors detected:
//!    <one>; <two>`; patterns are printed without `^…$`, a pattern before a length. Paths
//!    are member names in lower camel case (`target.retryPolicy.maximumRetryAttempts`); list
//!    items are `<list>.<1-based index>.member`. Coral runs these checks before any service code.
//! 2. **Service rules**, first failure wins: the schedule expression (`Invalid Schedule
//!    Expression <expr>.`, recorded), the time zone, the flexible window, StartDate/EndDate, then
//!    the target (Input must be JSON for Lambda, Step Functions and EventBridge targets;
//!    EventBridgeParameters for PutEvents targets; MessageGroupId for FIFO queues).
//!
//! The texts of the service rules other than the expression and the StartDate rule are not
//! recorded from AWS; each constant below says where it comes from.

use std::sync::LazyLock;

use chrono::{DateTime, Duration, Utc};
use regex::Regex;

pub use crate::coral::Violations;

use super::error::Error;
use super::expression::{parse_timezone, ScheduleExpression};
use super::model::*;

// ------------------------------------------------------------------------------------------
// Patterns of the service model (printed verbatim in messages), and their ASCII equivalents
// (Java's `\w` and `\d` are ASCII; the Rust regex crate's are Unicode).
// ------------------------------------------------------------------------------------------

/// `Name`, `ScheduleGroupName`, `NamePrefix`, `ScheduleGroupNamePrefix`.
pub const NAME_PATTERN: &str = "^[0-9a-zA-Z-_.]+$";
/// `RoleArn`.
pub const ROLE_ARN_PATTERN: &str = r"^arn:aws(-[a-z]+)?:iam::\d{12}:role\/[\w+=,.@\/-]+$";
/// `DeadLetterConfigArnString`.
pub const DEAD_LETTER_ARN_PATTERN: &str =
    r"^arn:aws(-[a-z]+)?:sqs:[a-z0-9\-]+:\d{12}:[a-zA-Z0-9\-_]+$";
/// `KmsKeyArn`.
pub const KMS_KEY_ARN_PATTERN: &str =
    r"^arn:aws(-[a-z]+)?:kms:[a-z0-9\-]+:\d{12}:(key|alias)\/[0-9a-zA-Z-_]*$";
/// `ClientToken`.
pub const CLIENT_TOKEN_PATTERN: &str = "^[a-zA-Z0-9-_]+$";
/// `Source` of EventBridgeParameters (it uses look-arounds; matched by hand in [`source_ok`]).
pub const SOURCE_PATTERN: &str =
    r"^(?=[/\.\-_A-Za-z0-9]+)((?!aws\.).*)|(\$(\.[\w_-]+(\[(\d+|\*)\])*)*)$";
/// `SageMakerPipelineParameterName`.
pub const SAGEMAKER_NAME_PATTERN: &str = r"^[A-Za-z0-9\-_]*$";
/// `TagResourceArn`: schedule-group ARNs only.
pub const TAG_RESOURCE_ARN_PATTERN: &str =
    r"^arn:aws(-[a-z]+)?:scheduler:[a-z0-9\-]+:\d{12}:schedule-group\/[0-9a-zA-Z-_.]+$";

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid built-in pattern")
}

static NAME_RE: LazyLock<Regex> = LazyLock::new(|| re("^[0-9a-zA-Z_.-]+$"));
static ROLE_ARN_RE: LazyLock<Regex> =
    LazyLock::new(|| re("^arn:aws(-[a-z]+)?:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]+$"));
static DEAD_LETTER_ARN_RE: LazyLock<Regex> =
    LazyLock::new(|| re("^arn:aws(-[a-z]+)?:sqs:[a-z0-9-]+:[0-9]{12}:[a-zA-Z0-9_-]+$"));
static KMS_KEY_ARN_RE: LazyLock<Regex> =
    LazyLock::new(|| re("^arn:aws(-[a-z]+)?:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/[0-9a-zA-Z_-]*$"));
static CLIENT_TOKEN_RE: LazyLock<Regex> = LazyLock::new(|| re("^[a-zA-Z0-9_-]+$"));
static SOURCE_PATH_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\$(\.[A-Za-z0-9_-]+(\[([0-9]+|\*)\])*)*$"));
static SAGEMAKER_NAME_RE: LazyLock<Regex> = LazyLock::new(|| re("^[A-Za-z0-9_-]*$"));
static TAG_RESOURCE_ARN_RE: LazyLock<Regex> = LazyLock::new(|| {
    re("^arn:aws(-[a-z]+)?:scheduler:[a-z0-9-]+:[0-9]{12}:schedule-group/[0-9a-zA-Z_.-]+$")
});

/// The model's `Source` pattern with Java's whole-string `matches()` semantics: either a first
/// character of `[/.\-_A-Za-z0-9]`, no `aws.` prefix and no line terminator, or a JSON path
/// `$.a.b[0]`.
pub fn source_ok(s: &str) -> bool {
    let plain = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || "/.-_".contains(c))
        && !s.starts_with("aws.")
        && !s.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']);
    plain || SOURCE_PATH_RE.is_match(s)
}

// ------------------------------------------------------------------------------------------
// Messages of the service rules
// ------------------------------------------------------------------------------------------

/// Recorded from AWS by users of the API (moto PR #8172's report; public runbooks quoting the
/// ValidationException of CreateSchedule and UpdateSchedule), and mirrored by the AWS CDK.
pub const START_DATE_TOO_EARLY: &str =
    "The StartDate you specify cannot be earlier than 5 minutes ago.";
/// Not recorded from AWS; worded after the StartDate message.
pub const END_DATE_NOT_AFTER_START: &str =
    "The EndDate you specify must be later than the StartDate.";
/// Not recorded from AWS (the user guide: "If you do set the value to FLEXIBLE, you must then
/// specify a maximum window of time").
pub const FLEXIBLE_NEEDS_WINDOW: &str =
    "MaximumWindowInMinutes must be provided when FlexibleTimeWindow Mode is FLEXIBLE.";
/// Not recorded from AWS.
pub const OFF_HAS_NO_WINDOW: &str =
    "MaximumWindowInMinutes must not be provided when FlexibleTimeWindow Mode is OFF.";
/// Not recorded from AWS.
pub const EVENT_BRIDGE_NEEDS_PARAMETERS: &str =
    "EventBridgeParameters must be provided for an EventBridge PutEvents target.";
/// Not recorded from AWS.
pub const FIFO_NEEDS_MESSAGE_GROUP: &str =
    "SqsParameters.MessageGroupId must be provided for a FIFO queue target.";

/// Not recorded from AWS (the user guide: "You can't delete, or edit, the default group").
pub const DEFAULT_GROUP_UNDELETABLE: &str = "The default schedule group cannot be deleted.";

/// Not recorded from AWS: `Target Input must be valid JSON for a Lambda target.`
pub fn input_not_json(kind: &str) -> String {
    format!("Target Input must be valid JSON for a {kind} target.")
}

/// Not recorded from AWS. AWS reserves tag keys starting with `aws:` (any case) for its own use.
pub fn reserved_tag_key(key: &str) -> String {
    format!("Tag key '{key}' is not valid: keys starting with 'aws:' are reserved for AWS use.")
}

/// Not recorded from AWS; the limit is the model's and the Tagging guide's (200 per resource).
pub fn too_many_tags(arn: &str) -> String {
    format!("Resource {arn} cannot have more than 200 tags.")
}

// ------------------------------------------------------------------------------------------
// Coral violations
// ------------------------------------------------------------------------------------------

/// A name-like member: [`NAME_PATTERN`], then length `1..=64` (AWS's order).
pub fn name(v: &mut Violations, path: &str, value: &str) {
    v.pattern(path, value, NAME_RE.is_match(value), NAME_PATTERN);
    v.length(path, value, 1, Some(64));
}

fn opt_length(v: &mut Violations, path: &str, value: Option<&String>, min: usize, max: usize) {
    if let Some(s) = value {
        v.length(path, s, min, Some(max));
    }
}

fn opt_enum(v: &mut Violations, path: &str, value: Option<&String>, allowed: &[&str]) {
    if let Some(s) = value {
        v.one_of(path, s, allowed);
    }
}

fn opt_range(v: &mut Violations, path: &str, value: Option<i64>, min: i64, max: i64) {
    if let Some(n) = value {
        v.range(path, n, min, max);
    }
}

fn show_strings(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// `ClientToken`: 1–64, `^[a-zA-Z0-9-_]+$`.
pub fn client_token(v: &mut Violations, path: &str, token: Option<&str>) {
    if let Some(t) = token {
        v.length(path, t, 1, Some(64));
        v.pattern(path, t, CLIENT_TOKEN_RE.is_match(t), CLIENT_TOKEN_PATTERN);
    }
}

/// A group name given as an optional member (`groupName`).
pub fn group_name(v: &mut Violations, path: &str, group: Option<&str>) {
    if let Some(g) = group {
        name(v, path, g);
    }
}

/// The model constraints of CreateScheduleInput / UpdateScheduleInput.
fn schedule_constraints(v: &mut Violations, input: &ScheduleInput) {
    opt_enum(
        v,
        "actionAfterCompletion",
        input.action_after_completion.as_ref(),
        ActionAfterCompletion::VALUES,
    );
    client_token(v, "clientToken", input.client_token.as_deref());
    if let Some(d) = &input.description {
        v.length("description", d, 0, Some(512));
    }
    if let Some(w) = v.required("flexibleTimeWindow", input.flexible_time_window.as_ref()) {
        opt_range(
            v,
            "flexibleTimeWindow.maximumWindowInMinutes",
            w.maximum_window_in_minutes,
            1,
            1440,
        );
        if let Some(mode) = v.required("flexibleTimeWindow.mode", w.mode.as_ref()) {
            v.one_of(
                "flexibleTimeWindow.mode",
                mode,
                FlexibleTimeWindowMode::VALUES,
            );
        }
    }
    group_name(v, "groupName", input.group_name.as_deref());
    if let Some(k) = &input.kms_key_arn {
        v.length("kmsKeyArn", k, 1, Some(2048));
        v.pattern(
            "kmsKeyArn",
            k,
            KMS_KEY_ARN_RE.is_match(k),
            KMS_KEY_ARN_PATTERN,
        );
    }
    name(v, "name", &input.name);
    if let Some(e) = v.required("scheduleExpression", input.schedule_expression.as_ref()) {
        v.length("scheduleExpression", e, 1, Some(256));
    }
    opt_length(
        v,
        "scheduleExpressionTimezone",
        input.schedule_expression_timezone.as_ref(),
        1,
        50,
    );
    opt_enum(v, "state", input.state.as_ref(), ScheduleState::VALUES);
    if let Some(t) = v.required("target", input.target.as_ref()) {
        target_constraints(v, t);
    }
}

fn target_constraints(v: &mut Violations, t: &TargetInput) {
    if let Some(arn) = v.required("target.arn", t.arn.as_ref()) {
        v.length("target.arn", arn, 1, Some(1600));
    }
    if let Some(dlq) = &t.dead_letter_config {
        if let Some(arn) = &dlq.arn {
            let path = "target.deadLetterConfig.arn";
            v.length(path, arn, 1, Some(1600));
            v.pattern(
                path,
                arn,
                DEAD_LETTER_ARN_RE.is_match(arn),
                DEAD_LETTER_ARN_PATTERN,
            );
        }
    }
    if let Some(ecs) = &t.ecs_parameters {
        ecs_constraints(v, ecs);
    }
    if let Some(eb) = &t.event_bridge_parameters {
        let path = "target.eventBridgeParameters.detailType";
        if let Some(d) = v.required(path, eb.detail_type.as_ref()) {
            v.length(path, d, 1, Some(128));
        }
        let path = "target.eventBridgeParameters.source";
        if let Some(s) = v.required(path, eb.source.as_ref()) {
            v.length(path, s, 1, Some(256));
            v.pattern(path, s, source_ok(s), SOURCE_PATTERN);
        }
    }
    if let Some(input) = &t.input {
        v.length("target.input", input, 1, None);
    }
    if let Some(k) = &t.kinesis_parameters {
        let path = "target.kinesisParameters.partitionKey";
        if let Some(p) = v.required(path, k.partition_key.as_ref()) {
            v.length(path, p, 1, Some(256));
        }
    }
    if let Some(r) = &t.retry_policy {
        opt_range(
            v,
            "target.retryPolicy.maximumEventAgeInSeconds",
            r.maximum_event_age_in_seconds,
            60,
            86_400,
        );
        opt_range(
            v,
            "target.retryPolicy.maximumRetryAttempts",
            r.maximum_retry_attempts,
            0,
            185,
        );
    }
    if let Some(role) = v.required("target.roleArn", t.role_arn.as_ref()) {
        v.length("target.roleArn", role, 1, Some(1600));
        v.pattern(
            "target.roleArn",
            role,
            ROLE_ARN_RE.is_match(role),
            ROLE_ARN_PATTERN,
        );
    }
    if let Some(sm) = &t.sage_maker_pipeline_parameters {
        if let Some(list) = &sm.pipeline_parameter_list {
            let path = "target.sageMakerPipelineParameters.pipelineParameterList";
            let shown = format!(
                "[{}]",
                list.iter()
                    .map(|p| format!(
                        "{{Name: {}, Value: {}}}",
                        p.name.as_deref().unwrap_or("null"),
                        p.value.as_deref().unwrap_or("null")
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            v.list_length(path, &shown, list.len(), 0, 200);
            for (i, p) in list.iter().enumerate() {
                let item = format!("{path}.{}.member", i + 1);
                let name_path = format!("{item}.name");
                if let Some(n) = v.required(&name_path, p.name.as_ref()) {
                    v.length(&name_path, n, 1, Some(256));
                    v.pattern(
                        &name_path,
                        n,
                        SAGEMAKER_NAME_RE.is_match(n),
                        SAGEMAKER_NAME_PATTERN,
                    );
                }
                let value_path = format!("{item}.value");
                if let Some(val) = v.required(&value_path, p.value.as_ref()) {
                    v.length(&value_path, val, 1, Some(1024));
                }
            }
        }
    }
    if let Some(sqs) = &t.sqs_parameters {
        opt_length(
            v,
            "target.sqsParameters.messageGroupId",
            sqs.message_group_id.as_ref(),
            1,
            128,
        );
    }
}

fn ecs_constraints(v: &mut Violations, e: &EcsParameters) {
    const P: &str = "target.ecsParameters";
    if let Some(list) = &e.capacity_provider_strategy {
        let path = format!("{P}.capacityProviderStrategy");
        let shown = format!(
            "[{}]",
            list.iter()
                .map(|c| c.capacity_provider.clone().unwrap_or_else(|| "null".into()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        v.list_length(&path, &shown, list.len(), 0, 6);
        for (i, c) in list.iter().enumerate() {
            let item = format!("{path}.{}.member", i + 1);
            opt_range(v, &format!("{item}.base"), c.base, 0, 100_000);
            let cp = format!("{item}.capacityProvider");
            if let Some(name) = v.required(&cp, c.capacity_provider.as_ref()) {
                v.length(&cp, name, 1, Some(255));
            }
            opt_range(v, &format!("{item}.weight"), c.weight, 0, 1000);
        }
    }
    opt_length(v, &format!("{P}.group"), e.group.as_ref(), 1, 255);
    opt_enum(
        v,
        &format!("{P}.launchType"),
        e.launch_type.as_ref(),
        &["EC2", "FARGATE", "EXTERNAL"],
    );
    if let Some(vpc) = e
        .network_configuration
        .as_ref()
        .and_then(|n| n.awsvpc_configuration.as_ref())
    {
        let path = format!("{P}.networkConfiguration.awsvpcConfiguration");
        opt_enum(
            v,
            &format!("{path}.assignPublicIp"),
            vpc.assign_public_ip.as_ref(),
            &["ENABLED", "DISABLED"],
        );
        if let Some(groups) = &vpc.security_groups {
            string_list(v, &format!("{path}.securityGroups"), groups, 1, 5, 1000);
        }
        let subnets_path = format!("{path}.subnets");
        if let Some(subnets) = v.required(&subnets_path, vpc.subnets.as_ref()) {
            string_list(v, &subnets_path, subnets, 1, 16, 1000);
        }
    }
    if let Some(list) = &e.placement_constraints {
        let path = format!("{P}.placementConstraints");
        let shown = format!("[{} items]", list.len());
        v.list_length(&path, &shown, list.len(), 0, 10);
        for (i, c) in list.iter().enumerate() {
            let item = format!("{path}.{}.member", i + 1);
            opt_length(
                v,
                &format!("{item}.expression"),
                c.expression.as_ref(),
                0,
                2000,
            );
            opt_enum(
                v,
                &format!("{item}.type"),
                c.r#type.as_ref(),
                &["distinctInstance", "memberOf"],
            );
        }
    }
    if let Some(list) = &e.placement_strategy {
        let path = format!("{P}.placementStrategy");
        let shown = format!("[{} items]", list.len());
        v.list_length(&path, &shown, list.len(), 0, 5);
        for (i, s) in list.iter().enumerate() {
            let item = format!("{path}.{}.member", i + 1);
            opt_length(v, &format!("{item}.field"), s.field.as_ref(), 0, 255);
            opt_enum(
                v,
                &format!("{item}.type"),
                s.r#type.as_ref(),
                &["random", "spread", "binpack"],
            );
        }
    }
    opt_length(
        v,
        &format!("{P}.platformVersion"),
        e.platform_version.as_ref(),
        1,
        64,
    );
    opt_enum(
        v,
        &format!("{P}.propagateTags"),
        e.propagate_tags.as_ref(),
        &["TASK_DEFINITION"],
    );
    opt_length(
        v,
        &format!("{P}.referenceId"),
        e.reference_id.as_ref(),
        0,
        1024,
    );
    if let Some(maps) = &e.tags {
        let path = format!("{P}.tags");
        let shown = format!("[{} items]", maps.len());
        v.list_length(&path, &shown, maps.len(), 0, 50);
        for (i, map) in maps.iter().enumerate() {
            let item = format!("{path}.{}.member", i + 1);
            for (key, value) in map {
                v.length(&format!("{item}.key"), key, 1, Some(128));
                v.length(&format!("{item}.value"), value, 1, Some(256));
            }
        }
    }
    opt_range(v, &format!("{P}.taskCount"), e.task_count, 1, 10);
    let path = format!("{P}.taskDefinitionArn");
    if let Some(arn) = v.required(&path, e.task_definition_arn.as_ref()) {
        v.length(&path, arn, 1, Some(1600));
    }
}

fn string_list(
    v: &mut Violations,
    path: &str,
    items: &[String],
    min: usize,
    max: usize,
    len: usize,
) {
    v.list_length(path, &show_strings(items), items.len(), min, max);
    for (i, s) in items.iter().enumerate() {
        v.length(&format!("{path}.{}.member", i + 1), s, 1, Some(len));
    }
}

// ------------------------------------------------------------------------------------------
// Service rules
// ------------------------------------------------------------------------------------------

/// What kind of target an ARN names, as far as validation cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// `arn:aws:scheduler:::aws-sdk:<service>:<action>`: Input is checked only at invocation.
    Universal,
    /// `arn:aws:lambda:...`.
    Lambda,
    /// `arn:aws:states:...`.
    StepFunctions,
    /// `arn:aws:events:...:event-bus/<name>` (PutEvents).
    EventBridge,
    /// `arn:aws:sqs:...` (`fifo`: the queue name ends in `.fifo`).
    Sqs {
        /// A FIFO queue.
        fifo: bool,
    },
    /// `arn:aws:sns:...`.
    Sns,
    /// Anything else (ECS, Kinesis, SageMaker, ...): no Input rule.
    Other,
}

impl TargetKind {
    /// Classifies a target ARN (`arn:<partition>:<service>:<region>:<account>:<resource>`).
    pub fn of(arn: &str) -> TargetKind {
        let mut parts = arn.splitn(6, ':');
        let (Some("arn"), Some(_partition), Some(service)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return TargetKind::Other;
        };
        let (_region, _account, resource) = (parts.next(), parts.next(), parts.next());
        let resource = resource.unwrap_or("");
        match service {
            "scheduler" if resource.starts_with("aws-sdk:") => TargetKind::Universal,
            "lambda" => TargetKind::Lambda,
            "states" => TargetKind::StepFunctions,
            "events" if resource.starts_with("event-bus/") => TargetKind::EventBridge,
            "sqs" => TargetKind::Sqs {
                fifo: resource.ends_with(".fifo"),
            },
            "sns" => TargetKind::Sns,
            _ => TargetKind::Other,
        }
    }

    fn json_name(self) -> Option<&'static str> {
        match self {
            TargetKind::Lambda => Some("Lambda"),
            TargetKind::StepFunctions => Some("Step Functions"),
            TargetKind::EventBridge => Some("EventBridge"),
            _ => None,
        }
    }
}

/// True when `text` is exactly one JSON value (surrounding whitespace allowed, nothing after).
pub fn is_single_json_value(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

fn invalid(message: impl Into<String>) -> Error {
    Error::Validation(message.into())
}

/// A range-checked model integer as `u32` (saturating, should the check ever be skipped).
fn u32_of(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

/// Validates CreateSchedule / UpdateSchedule input and resolves it into a [`Schedule`] with
/// AWS's defaults, `creation_date` = `last_modification_date` = `now` and generation 0 (the
/// store sets those). `now` is the clock's time (UTC), for the StartDate rule.
///
/// Errors: `Validation` with AWS's message (see the module doc for the order).
pub fn schedule(input: &ScheduleInput, now: DateTime<Utc>) -> Result<Schedule, Error> {
    let mut v = Violations::default();
    schedule_constraints(&mut v, input);
    v.finish()?;
    let (Some(text), Some(window), Some(target)) = (
        input.schedule_expression.as_ref(),
        input.flexible_time_window.as_ref(),
        input.target.as_ref(),
    ) else {
        return Err(Error::Internal("required members passed unchecked".into()));
    };

    let expression = ScheduleExpression::parse(text).map_err(|e| invalid(e.to_string()))?;
    let timezone = match &input.schedule_expression_timezone {
        None => chrono_tz::UTC,
        Some(name) => parse_timezone(name).map_err(|e| invalid(e.to_string()))?,
    };

    let Some(mode) = window
        .mode
        .as_deref()
        .and_then(FlexibleTimeWindowMode::parse)
    else {
        return Err(Error::Internal(
            "an unchecked FlexibleTimeWindow mode".into(),
        ));
    };
    let flexible_time_window = match (mode, window.maximum_window_in_minutes) {
        (FlexibleTimeWindowMode::Flexible, None) => return Err(invalid(FLEXIBLE_NEEDS_WINDOW)),
        (FlexibleTimeWindowMode::Off, Some(_)) => return Err(invalid(OFF_HAS_NO_WINDOW)),
        (mode, minutes) => FlexibleTimeWindow {
            mode,
            maximum_window_in_minutes: minutes.map(u32_of),
        },
    };

    if !expression.is_one_time() {
        if let Some(start) = input.start_date {
            if start < now - Duration::minutes(5) {
                return Err(invalid(START_DATE_TOO_EARLY));
            }
        }
        if let (Some(start), Some(end)) = (input.start_date, input.end_date) {
            if end <= start {
                return Err(invalid(END_DATE_NOT_AFTER_START));
            }
        }
    }

    let target = resolve_target(target)?;
    Ok(Schedule {
        name: input.name.clone(),
        group_name: input
            .group_name
            .clone()
            .unwrap_or_else(|| DEFAULT_GROUP.to_string()),
        schedule_expression: text.clone(),
        expression,
        timezone,
        description: input.description.clone(),
        start_date: input.start_date,
        end_date: input.end_date,
        state: input
            .state
            .as_deref()
            .and_then(ScheduleState::parse)
            .unwrap_or_default(),
        action_after_completion: input
            .action_after_completion
            .as_deref()
            .and_then(ActionAfterCompletion::parse)
            .unwrap_or_default(),
        flexible_time_window,
        kms_key_arn: input.kms_key_arn.clone(),
        target,
        creation_date: now,
        last_modification_date: now,
        generation: 0,
    })
}

fn resolve_target(t: &TargetInput) -> Result<Target, Error> {
    let (Some(arn), Some(role_arn)) = (t.arn.as_ref(), t.role_arn.as_ref()) else {
        return Err(Error::Internal(
            "required target members passed unchecked".into(),
        ));
    };
    let kind = TargetKind::of(arn);
    if let (Some(name), Some(input)) = (kind.json_name(), t.input.as_deref()) {
        if !is_single_json_value(input) {
            return Err(invalid(input_not_json(name)));
        }
    }
    if kind == TargetKind::EventBridge && t.event_bridge_parameters.is_none() {
        return Err(invalid(EVENT_BRIDGE_NEEDS_PARAMETERS));
    }
    if kind == (TargetKind::Sqs { fifo: true })
        && t.sqs_parameters
            .as_ref()
            .and_then(|p| p.message_group_id.as_ref())
            .is_none()
    {
        return Err(invalid(FIFO_NEEDS_MESSAGE_GROUP));
    }
    let defaults = RetryPolicy::default();
    let retry_policy = match &t.retry_policy {
        None => defaults,
        Some(r) => RetryPolicy {
            maximum_event_age_in_seconds: r
                .maximum_event_age_in_seconds
                .map(u32_of)
                .unwrap_or(defaults.maximum_event_age_in_seconds),
            maximum_retry_attempts: r
                .maximum_retry_attempts
                .map(u32_of)
                .unwrap_or(defaults.maximum_retry_attempts),
        },
    };
    Ok(Target {
        arn: arn.clone(),
        role_arn: role_arn.clone(),
        input: t.input.clone(),
        retry_policy,
        dead_letter_config: t.dead_letter_config.clone().map(Box::new),
        sqs_parameters: t.sqs_parameters.clone().map(Box::new),
        event_bridge_parameters: t.event_bridge_parameters.as_ref().map(|p| {
            Box::new(EventBridgeParameters {
                detail_type: p.detail_type.clone().unwrap_or_default(),
                source: p.source.clone().unwrap_or_default(),
            })
        }),
        kinesis_parameters: t.kinesis_parameters.as_ref().map(|p| {
            Box::new(KinesisParameters {
                partition_key: p.partition_key.clone().unwrap_or_default(),
            })
        }),
        sage_maker_pipeline_parameters: t.sage_maker_pipeline_parameters.clone().map(Box::new),
        ecs_parameters: t.ecs_parameters.clone().map(Box::new),
    })
}

/// Validates group tags (`tags` of CreateScheduleGroup, `Tags` of TagResource) and resolves
/// them in order; a key given twice keeps its last value.
///
/// Errors: `Validation` (Coral constraints at `path`, then reserved `aws:` keys).
pub fn tags(v: &mut Violations, path: &str, tags: &[TagInput]) -> Vec<Tag> {
    let shown = format!(
        "[{}]",
        tags.iter()
            .map(|t| format!(
                "Tag(key={}, value={})",
                t.key.as_deref().unwrap_or("null"),
                t.value.as_deref().unwrap_or("null")
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    v.list_length(path, &shown, tags.len(), 0, 200);
    let mut out: Vec<Tag> = Vec::with_capacity(tags.len());
    for (i, t) in tags.iter().enumerate() {
        let item = format!("{path}.{}.member", i + 1);
        let key_path = format!("{item}.key");
        let value_path = format!("{item}.value");
        let key = v.required(&key_path, t.key.as_ref());
        if let Some(k) = key {
            v.length(&key_path, k, 1, Some(128));
        }
        let value = v.required(&value_path, t.value.as_ref());
        if let Some(val) = value {
            v.length(&value_path, val, 1, Some(256));
        }
        if let (Some(k), Some(val)) = (key, value) {
            merge_tag(
                &mut out,
                Tag {
                    key: k.clone(),
                    value: val.clone(),
                },
            );
        }
    }
    out
}

/// Sets `tag` in `tags`: an existing key keeps its place and takes the new value.
pub fn merge_tag(tags: &mut Vec<Tag>, tag: Tag) {
    match tags.iter_mut().find(|t| t.key == tag.key) {
        Some(existing) => existing.value = tag.value,
        None => tags.push(tag),
    }
}

/// `TagKeys` of UntagResource: 0–200 keys of 1–128 characters.
pub fn tag_keys(v: &mut Violations, path: &str, keys: &[String]) {
    v.list_length(path, &show_strings(keys), keys.len(), 0, 200);
    for (i, k) in keys.iter().enumerate() {
        v.length(&format!("{path}.{}.member", i + 1), k, 1, Some(128));
    }
}

/// The first tag key using the reserved `aws:` prefix (any case), as an error.
pub fn reserved_keys<'a>(mut keys: impl Iterator<Item = &'a str>) -> Result<(), Error> {
    match keys.find(|k| k.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:"))) {
        Some(k) => Err(invalid(reserved_tag_key(k))),
        None => Ok(()),
    }
}

/// `ResourceArn` of the tag operations: 1–1011 and a schedule-group ARN. Returns the
/// (region, account, group name) it names once valid.
pub fn resource_arn(v: &mut Violations, arn: &str) -> Option<(String, String, String)> {
    v.length("resourceArn", arn, 1, Some(1011));
    let ok = TAG_RESOURCE_ARN_RE.is_match(arn);
    v.pattern("resourceArn", arn, ok, TAG_RESOURCE_ARN_PATTERN);
    if !ok || !v.is_empty() {
        return None;
    }
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    let group = parts.get(5)?.strip_prefix("schedule-group/")?;
    Some((
        parts.get(3)?.to_string(),
        parts.get(4)?.to_string(),
        group.to_string(),
    ))
}

/// `MaxResults` (1–100), `NamePrefix` (name-like) and `NextToken` (1–2048) of the list
/// operations.
pub fn list_paging(
    v: &mut Violations,
    max_results: Option<i64>,
    name_prefix: Option<&str>,
    next_token: Option<&str>,
) {
    opt_range(v, "maxResults", max_results, 1, 100);
    if let Some(p) = name_prefix {
        name(v, "namePrefix", p);
    }
    if let Some(t) = next_token {
        v.length("nextToken", t, 1, Some(2048));
    }
}

/// `State` of ListSchedules.
pub fn list_state(v: &mut Violations, state: Option<&str>) -> Option<ScheduleState> {
    let s = state?;
    v.one_of("state", s, ScheduleState::VALUES);
    ScheduleState::parse(s)
}

#[cfg(test)]
mod tests;
