//! Table tests of `validate`: each case mutates a valid CreateSchedule input and states the
//! exact ValidationException message (or that it is accepted).

use chrono::{Duration, TimeZone, Utc};

use super::*;

const ROLE: &str = "arn:aws:iam::000000000000:role/sched";
const QUEUE: &str = "arn:aws:sqs:us-east-1:000000000000:q";
const LAMBDA: &str = "arn:aws:lambda:us-east-1:000000000000:function:f";
const STATES: &str = "arn:aws:states:us-east-1:000000000000:stateMachine:m";
const BUS: &str = "arn:aws:events:us-east-1:000000000000:event-bus/default";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap()
}

fn valid() -> ScheduleInput {
    ScheduleInput {
        name: "s1".into(),
        schedule_expression: Some("rate(5 minutes)".into()),
        flexible_time_window: Some(FlexibleTimeWindowInput {
            mode: Some("OFF".into()),
            maximum_window_in_minutes: None,
        }),
        target: Some(TargetInput {
            arn: Some(QUEUE.into()),
            role_arn: Some(ROLE.into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn target(i: &mut ScheduleInput) -> &mut TargetInput {
    i.target.as_mut().unwrap()
}

fn window(mode: &str, minutes: Option<i64>) -> Option<FlexibleTimeWindowInput> {
    Some(FlexibleTimeWindowInput {
        mode: Some(mode.into()),
        maximum_window_in_minutes: minutes,
    })
}

/// The Coral message for one violation.
fn one(value: Option<&str>, path: &str, constraint: &str) -> String {
    let value = value.map_or("null".to_string(), |v| format!("'{v}'"));
    format!("1 validation error detected: Value {value} at '{path}' failed to satisfy constraint: {constraint}")
}

fn null(path: &str) -> String {
    one(None, path, "Member must not be null")
}

fn max_len(value: &str, path: &str, n: usize) -> String {
    one(
        Some(value),
        path,
        &format!("Member must have length less than or equal to {n}"),
    )
}

fn min_len(value: &str, path: &str, n: usize) -> String {
    one(
        Some(value),
        path,
        &format!("Member must have length greater than or equal to {n}"),
    )
}

fn le(value: i64, path: &str, n: i64) -> String {
    one(
        Some(&value.to_string()),
        path,
        &format!("Member must have value less than or equal to {n}"),
    )
}

fn ge(value: i64, path: &str, n: i64) -> String {
    one(
        Some(&value.to_string()),
        path,
        &format!("Member must have value greater than or equal to {n}"),
    )
}

/// AWS prints model patterns without their `^…$` anchors.
fn pattern(value: &str, path: &str, p: &str) -> String {
    let p = p.strip_prefix('^').unwrap_or(p);
    let p = p.strip_suffix('$').unwrap_or(p);
    one(
        Some(value),
        path,
        &format!("Member must satisfy regular expression pattern: {p}"),
    )
}

fn enum_(value: &str, path: &str, set: &str) -> String {
    one(
        Some(value),
        path,
        &format!("Member must satisfy enum value set: {set}"),
    )
}

type Case = (
    &'static str,
    Box<dyn Fn(&mut ScheduleInput)>,
    Option<String>,
);

fn case(
    what: &'static str,
    f: impl Fn(&mut ScheduleInput) + 'static,
    expect: Option<String>,
) -> Case {
    (what, Box::new(f), expect)
}

fn check(cases: Vec<Case>) {
    let mut failures = Vec::new();
    for (what, mutate, expect) in cases {
        let mut input = valid();
        mutate(&mut input);
        let got = schedule(&input, now()).err().map(|e| match e {
            Error::Validation(m) => m,
            other => format!("(not a ValidationException) {other:?}"),
        });
        if got != expect {
            failures.push(format!("{what}:\n   got    {got:?}\n   expect {expect:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn top_level_members() {
    let long = |n: usize| "a".repeat(n);
    check(vec![
        case("valid", |_| {}, None),
        case(
            "empty name",
            |i| i.name = String::new(),
            Some(
                "2 validation errors detected: Value '' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+; Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 1".to_string()
            ),
        ),
        case("name of 64", move |i| i.name = long(64), None),
        case(
            "name of 65",
            move |i| i.name = long(65),
            Some(max_len(&long(65), "name", 64)),
        ),
        case(
            "name with a space",
            |i| i.name = "a b".into(),
            Some(pattern("a b", "name", NAME_PATTERN)),
        ),
        case("name with . - _", |i| i.name = "a.b-c_d".into(), None),
        case(
            "group name with a slash",
            |i| i.group_name = Some("g/1".into()),
            Some(pattern("g/1", "groupName", NAME_PATTERN)),
        ),
        case(
            "missing expression",
            |i| i.schedule_expression = None,
            Some(null("scheduleExpression")),
        ),
        case(
            "expression of 257",
            move |i| i.schedule_expression = Some(long(257)),
            Some(max_len(&long(257), "scheduleExpression", 256)),
        ),
        case(
            "invalid expression (recorded message)",
            |i| i.schedule_expression = Some("rate(10)".into()),
            Some("Invalid Schedule Expression rate(10).".into()),
        ),
        case(
            "expression echoed with its whitespace",
            |i| i.schedule_expression = Some(" rate(10 minutes)".into()),
            Some("Invalid Schedule Expression  rate(10 minutes).".into()),
        ),
        case(
            "past at() is accepted",
            |i| i.schedule_expression = Some("at(2022-12-31T23:59:59)".into()),
            None,
        ),
        case(
            "rate(2 minute) is accepted",
            |i| i.schedule_expression = Some("rate(2 minute)".into()),
            None,
        ),
        case(
            "unknown zone",
            |i| i.schedule_expression_timezone = Some("Mars/Olympus_Mons".into()),
            Some("Invalid ScheduleExpressionTimezone Mars/Olympus_Mons.".into()),
        ),
        case(
            "zone of 51",
            move |i| i.schedule_expression_timezone = Some(long(51)),
            Some(max_len(&long(51), "scheduleExpressionTimezone", 50)),
        ),
        case(
            "empty zone",
            |i| i.schedule_expression_timezone = Some(String::new()),
            Some(min_len("", "scheduleExpressionTimezone", 1)),
        ),
        case(
            "IANA zone",
            |i| i.schedule_expression_timezone = Some("America/New_York".into()),
            None,
        ),
        case("empty description", |i| i.description = Some(String::new()), None),
        case(
            "description of 513",
            move |i| i.description = Some(long(513)),
            Some(max_len(&long(513), "description", 512)),
        ),
        case(
            "state PAUSED",
            |i| i.state = Some("PAUSED".into()),
            Some(enum_("PAUSED", "state", "[ENABLED, DISABLED]")),
        ),
        case(
            "state is case-sensitive",
            |i| i.state = Some("enabled".into()),
            Some(enum_("enabled", "state", "[ENABLED, DISABLED]")),
        ),
        case(
            "action KEEP",
            |i| i.action_after_completion = Some("KEEP".into()),
            Some(enum_("KEEP", "actionAfterCompletion", "[NONE, DELETE]")),
        ),
        case(
            "kms key not an ARN",
            |i| i.kms_key_arn = Some("key".into()),
            Some(pattern("key", "kmsKeyArn", KMS_KEY_ARN_PATTERN)),
        ),
        case(
            "kms key alias",
            |i| i.kms_key_arn = Some("arn:aws:kms:us-east-1:000000000000:alias/k".into()),
            None,
        ),
        case(
            "client token with a space",
            |i| i.client_token = Some("a b".into()),
            Some(pattern("a b", "clientToken", CLIENT_TOKEN_PATTERN)),
        ),
        case(
            "client token of 65",
            move |i| i.client_token = Some(long(65)),
            Some(max_len(&long(65), "clientToken", 64)),
        ),
    ]);
}

#[test]
fn flexible_time_window() {
    let p = "flexibleTimeWindow.maximumWindowInMinutes";
    check(vec![
        case(
            "missing window",
            |i| i.flexible_time_window = None,
            Some(null("flexibleTimeWindow")),
        ),
        case(
            "missing mode",
            |i| i.flexible_time_window = Some(FlexibleTimeWindowInput::default()),
            Some(null("flexibleTimeWindow.mode")),
        ),
        case(
            "mode FLEX",
            |i| i.flexible_time_window = window("FLEX", None),
            Some(enum_("FLEX", "flexibleTimeWindow.mode", "[OFF, FLEXIBLE]")),
        ),
        case(
            "FLEXIBLE without a window",
            |i| i.flexible_time_window = window("FLEXIBLE", None),
            Some(FLEXIBLE_NEEDS_WINDOW.into()),
        ),
        case(
            "FLEXIBLE 1",
            |i| i.flexible_time_window = window("FLEXIBLE", Some(1)),
            None,
        ),
        case(
            "FLEXIBLE 1440",
            |i| i.flexible_time_window = window("FLEXIBLE", Some(1440)),
            None,
        ),
        case(
            "FLEXIBLE 1441",
            |i| i.flexible_time_window = window("FLEXIBLE", Some(1441)),
            Some(le(1441, p, 1440)),
        ),
        case(
            "FLEXIBLE 0",
            |i| i.flexible_time_window = window("FLEXIBLE", Some(0)),
            Some(ge(0, p, 1)),
        ),
        case(
            "OFF with a window",
            |i| i.flexible_time_window = window("OFF", Some(10)),
            Some(OFF_HAS_NO_WINDOW.into()),
        ),
    ]);
}

#[test]
fn target_members() {
    check(vec![
        case("missing target", |i| i.target = None, Some(null("target"))),
        case(
            "missing arn and role",
            |i| i.target = Some(TargetInput::default()),
            Some("2 validation errors detected: Value null at 'target.arn' failed to satisfy constraint: Member must not be null; Value null at 'target.roleArn' failed to satisfy constraint: Member must not be null".into()),
        ),
        case(
            "empty target arn",
            |i| target(i).arn = Some(String::new()),
            Some(min_len("", "target.arn", 1)),
        ),
        case(
            "role is a user",
            |i| target(i).role_arn = Some("arn:aws:iam::000000000000:user/alice".into()),
            Some(pattern(
                "arn:aws:iam::000000000000:user/alice",
                "target.roleArn",
                ROLE_ARN_PATTERN,
            )),
        ),
        case(
            "role not an ARN",
            |i| target(i).role_arn = Some("not-an-arn".into()),
            Some(pattern("not-an-arn", "target.roleArn", ROLE_ARN_PATTERN)),
        ),
        case(
            "role in a path, other partition",
            |i| target(i).role_arn = Some("arn:aws-cn:iam::123456789012:role/a/b+c=d,e.f@g-h".into()),
            None,
        ),
        case(
            "empty input",
            |i| target(i).input = Some(String::new()),
            Some(min_len("", "target.input", 1)),
        ),
        case(
            "retry attempts 186",
            |i| target(i).retry_policy = Some(RetryPolicyInput { maximum_retry_attempts: Some(186), ..Default::default() }),
            Some(le(186, "target.retryPolicy.maximumRetryAttempts", 185)),
        ),
        case(
            "retry attempts -1",
            |i| target(i).retry_policy = Some(RetryPolicyInput { maximum_retry_attempts: Some(-1), ..Default::default() }),
            Some(ge(-1, "target.retryPolicy.maximumRetryAttempts", 0)),
        ),
        case(
            "event age 86401",
            |i| target(i).retry_policy = Some(RetryPolicyInput { maximum_event_age_in_seconds: Some(86_401), ..Default::default() }),
            Some(le(86_401, "target.retryPolicy.maximumEventAgeInSeconds", 86_400)),
        ),
        case(
            "event age 59",
            |i| target(i).retry_policy = Some(RetryPolicyInput { maximum_event_age_in_seconds: Some(59), ..Default::default() }),
            Some(ge(59, "target.retryPolicy.maximumEventAgeInSeconds", 60)),
        ),
        case(
            "retry bounds",
            |i| target(i).retry_policy = Some(RetryPolicyInput { maximum_event_age_in_seconds: Some(60), maximum_retry_attempts: Some(0) }),
            None,
        ),
        case(
            "dead letter is a topic",
            |i| target(i).dead_letter_config = Some(DeadLetterConfig { arn: Some("arn:aws:sns:us-east-1:000000000000:t".into()) }),
            Some(pattern(
                "arn:aws:sns:us-east-1:000000000000:t",
                "target.deadLetterConfig.arn",
                DEAD_LETTER_ARN_PATTERN,
            )),
        ),
        case(
            "dead letter is a queue",
            |i| target(i).dead_letter_config = Some(DeadLetterConfig { arn: Some(QUEUE.into()) }),
            None,
        ),
        case(
            "empty message group id",
            |i| target(i).sqs_parameters = Some(SqsParameters { message_group_id: Some(String::new()) }),
            Some(min_len("", "target.sqsParameters.messageGroupId", 1)),
        ),
        case(
            "kinesis without a partition key",
            |i| target(i).kinesis_parameters = Some(KinesisParametersInput::default()),
            Some(null("target.kinesisParameters.partitionKey")),
        ),
        case(
            "kinesis partition key of 257",
            |i| target(i).kinesis_parameters = Some(KinesisParametersInput { partition_key: Some("k".repeat(257)) }),
            Some(max_len(&"k".repeat(257), "target.kinesisParameters.partitionKey", 256)),
        ),
    ]);
}

#[test]
fn input_rules_by_target_kind() {
    let with = |arn: &'static str, input: &'static str| {
        move |i: &mut ScheduleInput| {
            let t = target(i);
            t.arn = Some(arn.into());
            t.input = Some(input.into());
            if arn == BUS {
                t.event_bridge_parameters = Some(EventBridgeParametersInput {
                    detail_type: Some("d".into()),
                    source: Some("my.app".into()),
                });
            }
        }
    };
    let mut cases = Vec::new();
    for (arn, kind) in [
        (LAMBDA, "Lambda"),
        (STATES, "Step Functions"),
        (BUS, "EventBridge"),
    ] {
        cases.push(case("JSON object", with(arn, r#"{"ok": true}"#), None));
        cases.push(case("JSON scalar", with(arn, "42"), None));
        cases.push(case("JSON with whitespace", with(arn, " [1, 2] \n"), None));
        for bad in ["not json", "   ", "{} garbage", "{\"a\": 1", "{} {}"] {
            cases.push(case(
                "not one JSON value",
                with(arn, bad),
                Some(input_not_json(kind)),
            ));
        }
    }
    for arn in [
        QUEUE,
        "arn:aws:sns:us-east-1:000000000000:t",
        "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
        "arn:aws:ecs:us-east-1:000000000000:cluster/c",
    ] {
        cases.push(case(
            "any text",
            with(arn, "plain text, not JSON: {] <>"),
            None,
        ));
    }
    check(cases);
}

#[test]
fn event_bridge_and_fifo_rules() {
    let eb = |detail: Option<&'static str>, source: Option<&'static str>| {
        move |i: &mut ScheduleInput| {
            let t = target(i);
            t.arn = Some(BUS.into());
            t.event_bridge_parameters = Some(EventBridgeParametersInput {
                detail_type: detail.map(Into::into),
                source: source.map(Into::into),
            });
        }
    };
    let src = "target.eventBridgeParameters.source";
    check(vec![
        case(
            "PutEvents target without parameters",
            |i| target(i).arn = Some(BUS.into()),
            Some(EVENT_BRIDGE_NEEDS_PARAMETERS.into()),
        ),
        case("parameters", eb(Some("d"), Some("my.app")), None),
        case(
            "JSON path source",
            eb(Some("d"), Some("$.detail.source[0]")),
            None,
        ),
        case(
            "aws. source",
            eb(Some("d"), Some("aws.events")),
            Some(pattern("aws.events", src, SOURCE_PATTERN)),
        ),
        case(
            "source starting with a space",
            eb(Some("d"), Some(" x")),
            Some(pattern(" x", src, SOURCE_PATTERN)),
        ),
        case(
            "missing detail type",
            eb(None, Some("my.app")),
            Some(null("target.eventBridgeParameters.detailType")),
        ),
        case(
            "empty detail type",
            eb(Some(""), Some("my.app")),
            Some(min_len("", "target.eventBridgeParameters.detailType", 1)),
        ),
        case(
            "FIFO queue without a message group",
            |i| target(i).arn = Some("arn:aws:sqs:us-east-1:000000000000:q.fifo".into()),
            Some(FIFO_NEEDS_MESSAGE_GROUP.into()),
        ),
        case(
            "FIFO queue with a message group",
            |i| {
                let t = target(i);
                t.arn = Some("arn:aws:sqs:us-east-1:000000000000:q.fifo".into());
                t.sqs_parameters = Some(SqsParameters {
                    message_group_id: Some("g".into()),
                });
            },
            None,
        ),
    ]);
}

#[test]
fn sagemaker_and_ecs_parameters() {
    let sm = |params: Vec<SageMakerPipelineParameter>| {
        move |i: &mut ScheduleInput| {
            target(i).sage_maker_pipeline_parameters = Some(SageMakerPipelineParameters {
                pipeline_parameter_list: Some(params.clone()),
            })
        }
    };
    let param = |n: Option<&str>, v: Option<&str>| SageMakerPipelineParameter {
        name: n.map(Into::into),
        value: v.map(Into::into),
    };
    let ecs = |f: fn(&mut EcsParameters)| {
        move |i: &mut ScheduleInput| {
            let mut e = EcsParameters {
                task_definition_arn: Some(
                    "arn:aws:ecs:us-east-1:000000000000:task-definition/t:1".into(),
                ),
                ..Default::default()
            };
            f(&mut e);
            target(i).ecs_parameters = Some(e);
        }
    };
    let list = "target.sageMakerPipelineParameters.pipelineParameterList";
    let e = "target.ecsParameters";
    check(vec![
        case(
            "pipeline parameter",
            sm(vec![param(Some("p-1_x"), Some("v"))]),
            None,
        ),
        case(
            "pipeline parameter name with a space",
            sm(vec![
                param(Some("ok"), Some("v")),
                param(Some("a b"), Some("v")),
            ]),
            Some(pattern(
                "a b",
                &format!("{list}.2.member.name"),
                SAGEMAKER_NAME_PATTERN,
            )),
        ),
        case(
            "pipeline parameter without a value",
            sm(vec![param(Some("p"), None)]),
            Some(null(&format!("{list}.1.member.value"))),
        ),
        case(
            "201 pipeline parameters",
            sm(vec![param(Some("p"), Some("v")); 201]),
            Some(one(
                Some(&format!(
                    "[{}]",
                    vec!["{Name: p, Value: v}"; 201].join(", ")
                )),
                list,
                "Member must have length less than or equal to 200",
            )),
        ),
        case("ECS task", ecs(|_| {}), None),
        case(
            "ECS without a task definition",
            ecs(|e| e.task_definition_arn = None),
            Some(null(&format!("{e}.taskDefinitionArn"))),
        ),
        case(
            "ECS task count 11",
            ecs(|e| e.task_count = Some(11)),
            Some(le(11, &format!("{e}.taskCount"), 10)),
        ),
        case(
            "ECS launch type LAMBDA",
            ecs(|e| e.launch_type = Some("LAMBDA".into())),
            Some(enum_(
                "LAMBDA",
                &format!("{e}.launchType"),
                "[EC2, FARGATE, EXTERNAL]",
            )),
        ),
        case(
            "ECS propagate tags SERVICE",
            ecs(|e| e.propagate_tags = Some("SERVICE".into())),
            Some(enum_(
                "SERVICE",
                &format!("{e}.propagateTags"),
                "[TASK_DEFINITION]",
            )),
        ),
        case(
            "ECS capacity provider weight 1001",
            ecs(|e| {
                e.capacity_provider_strategy = Some(vec![CapacityProviderStrategyItem {
                    capacity_provider: Some("FARGATE".into()),
                    base: None,
                    weight: Some(1001),
                }])
            }),
            Some(le(
                1001,
                &format!("{e}.capacityProviderStrategy.1.member.weight"),
                1000,
            )),
        ),
        case(
            "ECS capacity provider without a name",
            ecs(|e| {
                e.capacity_provider_strategy = Some(vec![CapacityProviderStrategyItem::default()])
            }),
            Some(null(&format!(
                "{e}.capacityProviderStrategy.1.member.capacityProvider"
            ))),
        ),
        case(
            "ECS awsvpc without subnets",
            ecs(|e| {
                e.network_configuration = Some(NetworkConfiguration {
                    awsvpc_configuration: Some(AwsVpcConfiguration::default()),
                })
            }),
            Some(null(&format!(
                "{e}.networkConfiguration.awsvpcConfiguration.subnets"
            ))),
        ),
        case(
            "ECS awsvpc with no subnet",
            ecs(|e| {
                e.network_configuration = Some(NetworkConfiguration {
                    awsvpc_configuration: Some(AwsVpcConfiguration {
                        subnets: Some(vec![]),
                        ..Default::default()
                    }),
                })
            }),
            Some(one(
                Some("[]"),
                &format!("{e}.networkConfiguration.awsvpcConfiguration.subnets"),
                "Member must have length greater than or equal to 1",
            )),
        ),
        case(
            "ECS six security groups",
            ecs(|e| {
                e.network_configuration = Some(NetworkConfiguration {
                    awsvpc_configuration: Some(AwsVpcConfiguration {
                        subnets: Some(vec!["s".into()]),
                        security_groups: Some(vec!["g".into(); 6]),
                        assign_public_ip: Some("ENABLED".into()),
                    }),
                })
            }),
            Some(one(
                Some("[g, g, g, g, g, g]"),
                &format!("{e}.networkConfiguration.awsvpcConfiguration.securityGroups"),
                "Member must have length less than or equal to 5",
            )),
        ),
        case(
            "ECS placement constraint type",
            ecs(|e| {
                e.placement_constraints = Some(vec![PlacementConstraint {
                    r#type: Some("anywhere".into()),
                    expression: None,
                }])
            }),
            Some(enum_(
                "anywhere",
                &format!("{e}.placementConstraints.1.member.type"),
                "[distinctInstance, memberOf]",
            )),
        ),
        case(
            "ECS placement strategy type",
            ecs(|e| {
                e.placement_strategy = Some(vec![PlacementStrategy {
                    r#type: Some("pack".into()),
                    field: Some("memory".into()),
                }])
            }),
            Some(enum_(
                "pack",
                &format!("{e}.placementStrategy.1.member.type"),
                "[random, spread, binpack]",
            )),
        ),
        case(
            "ECS tag value of 257",
            ecs(|e| e.tags = Some(vec![vec![("k".into(), "v".repeat(257))]])),
            Some(max_len(
                &"v".repeat(257),
                &format!("{e}.tags.1.member.value"),
                256,
            )),
        ),
    ]);
}

#[test]
fn start_and_end_dates() {
    let n = now();
    check(vec![
        case(
            "start 10 minutes ago",
            move |i| i.start_date = Some(n - Duration::minutes(10)),
            Some(START_DATE_TOO_EARLY.into()),
        ),
        case(
            "start 5 minutes ago",
            move |i| i.start_date = Some(n - Duration::minutes(5)),
            None,
        ),
        case(
            "start in the future",
            move |i| i.start_date = Some(n + Duration::days(1)),
            None,
        ),
        case(
            "end before start",
            move |i| {
                i.start_date = Some(n + Duration::days(2));
                i.end_date = Some(n + Duration::days(1));
            },
            Some(END_DATE_NOT_AFTER_START.into()),
        ),
        case(
            "end equal to start",
            move |i| {
                i.start_date = Some(n + Duration::days(1));
                i.end_date = Some(n + Duration::days(1));
            },
            Some(END_DATE_NOT_AFTER_START.into()),
        ),
        case(
            "end in the past without a start is accepted",
            move |i| i.end_date = Some(n - Duration::days(1)),
            None,
        ),
        case(
            "dates are ignored for at()",
            move |i| {
                i.schedule_expression = Some("at(2030-06-01T00:00:00)".into());
                i.start_date = Some(n - Duration::days(365));
                i.end_date = Some(n - Duration::days(400));
            },
            None,
        ),
    ]);
}

#[test]
fn order_of_checks() {
    check(vec![
        case(
            "all model violations at once, in member order",
            |i| {
                i.state = Some("ON".into());
                i.action_after_completion = Some("KEEP".into());
                target(i).retry_policy = Some(RetryPolicyInput {
                    maximum_event_age_in_seconds: None,
                    maximum_retry_attempts: Some(186),
                });
            },
            Some("3 validation errors detected: Value 'KEEP' at 'actionAfterCompletion' failed to satisfy constraint: Member must satisfy enum value set: [NONE, DELETE]; Value 'ON' at 'state' failed to satisfy constraint: Member must satisfy enum value set: [ENABLED, DISABLED]; Value '186' at 'target.retryPolicy.maximumRetryAttempts' failed to satisfy constraint: Member must have value less than or equal to 185".into()),
        ),
        case(
            "model constraints before the expression",
            |i| {
                i.schedule_expression = Some("rate(10)".into());
                target(i).role_arn = Some("r".into());
            },
            Some(pattern("r", "target.roleArn", ROLE_ARN_PATTERN)),
        ),
        case(
            "the expression before the zone and the window",
            |i| {
                i.schedule_expression = Some("rate(10)".into());
                i.schedule_expression_timezone = Some("Nowhere".into());
                i.flexible_time_window = window("FLEXIBLE", None);
            },
            Some("Invalid Schedule Expression rate(10).".into()),
        ),
        case(
            "the expression before the target Input",
            |i| {
                i.schedule_expression = Some("rate(10)".into());
                let t = target(i);
                t.arn = Some(LAMBDA.into());
                t.input = Some("not json".into());
            },
            Some("Invalid Schedule Expression rate(10).".into()),
        ),
    ]);
}

#[test]
fn defaults_are_filled_in() {
    let s = schedule(&valid(), now()).unwrap();
    assert_eq!(s.group_name, "default");
    assert_eq!(s.state, ScheduleState::Enabled);
    assert_eq!(s.action_after_completion, ActionAfterCompletion::None);
    assert_eq!(s.schedule_expression_timezone(), "UTC");
    assert_eq!(s.target.retry_policy, RetryPolicy::default());
    assert_eq!(s.flexible_time_window.maximum_window_in_minutes, None);
    assert_eq!(
        (s.description.clone(), s.start_date, s.kms_key_arn.clone()),
        (None, None, None)
    );

    let mut input = valid();
    target(&mut input).retry_policy = Some(RetryPolicyInput {
        maximum_event_age_in_seconds: None,
        maximum_retry_attempts: Some(3),
    });
    input.schedule_expression_timezone = Some("Australia/Lord_Howe".into());
    let s = schedule(&input, now()).unwrap();
    assert_eq!(
        s.target.retry_policy,
        RetryPolicy {
            maximum_event_age_in_seconds: 86_400,
            maximum_retry_attempts: 3
        }
    );
    assert_eq!(s.schedule_expression_timezone(), "Australia/Lord_Howe");
}

#[test]
fn group_tags() {
    let run = |tags: Vec<TagInput>| -> Result<Vec<Tag>, Error> {
        let mut v = Violations::default();
        let out = super::tags(&mut v, "tags", &tags);
        v.finish()?;
        reserved_keys(out.iter().map(|t| t.key.as_str()))?;
        Ok(out)
    };
    assert_eq!(
        run(vec![
            TagInput::new("a", "1"),
            TagInput::new("b", "2"),
            TagInput::new("a", "3")
        ]),
        Ok(vec![
            Tag {
                key: "a".into(),
                value: "3".into()
            },
            Tag {
                key: "b".into(),
                value: "2".into()
            },
        ])
    );
    assert_eq!(
        run(vec![TagInput::new("", "v")]),
        Err(Error::Validation(min_len("", "tags.1.member.key", 1)))
    );
    assert_eq!(
        run(vec![TagInput::new("k", ""), TagInput { key: None, value: Some("v".into()) }]),
        Err(Error::Validation(
            "2 validation errors detected: Value '' at 'tags.1.member.value' failed to satisfy constraint: Member must have length greater than or equal to 1; Value null at 'tags.2.member.key' failed to satisfy constraint: Member must not be null".into()
        ))
    );
    assert_eq!(
        run(vec![TagInput::new("k".repeat(129), "v")]),
        Err(Error::Validation(max_len(
            &"k".repeat(129),
            "tags.1.member.key",
            128
        )))
    );
    let many: Vec<TagInput> = (0..201)
        .map(|n| TagInput::new(format!("k{n}"), "v"))
        .collect();
    let err = run(many).unwrap_err();
    assert!(
        err.message().starts_with("1 validation error detected: Value '[Tag(key=k0, value=v), ")
            && err.message().ends_with("' at 'tags' failed to satisfy constraint: Member must have length less than or equal to 200"),
        "{err:?}"
    );
    for reserved in ["aws:team", "AWS:team", "Aws:x"] {
        assert_eq!(
            run(vec![TagInput::new(reserved, "v")]),
            Err(Error::Validation(reserved_tag_key(reserved)))
        );
    }
    assert!(run(vec![TagInput::new("awsome", "v")]).is_ok());
}

#[test]
fn tag_resource_arns() {
    let run = |arn: &str| {
        let mut v = Violations::default();
        let out = resource_arn(&mut v, arn);
        v.finish().map_err(Error::from).map(|()| out)
    };
    assert_eq!(
        run("arn:aws:scheduler:us-east-1:000000000000:schedule-group/g1"),
        Ok(Some((
            "us-east-1".into(),
            "000000000000".into(),
            "g1".into()
        )))
    );
    let schedule = "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s";
    assert_eq!(
        run(schedule),
        Err(Error::Validation(pattern(
            schedule,
            "resourceArn",
            TAG_RESOURCE_ARN_PATTERN
        )))
    );
    assert!(run("arn:aws:sqs:us-east-1:000000000000:q").is_err());
}

#[test]
fn sources_follow_the_model_pattern() {
    for (source, ok) in [
        ("my.app", true),
        ("/path", true),
        ("-x", true),
        ("aws", true),
        ("awsx.events", true),
        ("aws.events", false),
        ("", false),
        (" x", false),
        ("a\nb", false),
        ("$", true),
        ("$.detail", true),
        ("$.a[0].b[*]", true),
        ("$.a[x]", false),
        ("$x", false),
    ] {
        assert_eq!(source_ok(source), ok, "{source:?}");
    }
}

#[test]
fn target_kinds() {
    for (arn, kind) in [
        (
            "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
            TargetKind::Universal,
        ),
        (LAMBDA, TargetKind::Lambda),
        (STATES, TargetKind::StepFunctions),
        (BUS, TargetKind::EventBridge),
        (
            "arn:aws:events:us-east-1:000000000000:rule/r",
            TargetKind::Other,
        ),
        (QUEUE, TargetKind::Sqs { fifo: false }),
        (
            "arn:aws:sqs:us-east-1:000000000000:q.fifo",
            TargetKind::Sqs { fifo: true },
        ),
        ("arn:aws:sns:us-east-1:000000000000:t", TargetKind::Sns),
        (
            "arn:aws:kinesis:us-east-1:000000000000:stream/s",
            TargetKind::Other,
        ),
        ("not-an-arn", TargetKind::Other),
    ] {
        assert_eq!(TargetKind::of(arn), kind, "{arn}");
    }
}
