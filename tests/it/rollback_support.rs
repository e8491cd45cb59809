//! Shared pieces of the `rollback_*` scenario tests (issue 6): a template whose schedule sets
//! every property CloudFormation can give it, stack helpers that start an operation and read
//! its outcome, fault rules, and a full copy of what GetSchedule answers so a test can compare a
//! schedule before and after an update or a rollback field by field.

#![allow(dead_code)]

use aws_sdk_cloudformation::types::{Parameter, StackStatus};
use aws_sdk_cloudformation::Client;
use aws_sdk_scheduler::primitives::DateTime;
use aws_sdk_scheduler::types::{ActionAfterCompletion, FlexibleTimeWindow, ScheduleState, Target};
use serde_json::Value;

use crate::cloudformation::{describe, status};
use crate::support::Emulator;

/// A queue, a dead-letter queue, two schedule groups and one schedule (`Nightly`) whose every
/// property comes from a parameter, plus a second schedule (`Later`) created after it, so a
/// fault on `Later` fails an update after `Nightly` changed.
pub const FULL: &str = r#"
Parameters:
  Name: {Type: String, Default: nightly}
  Group: {Type: String, Default: default}
  Expression: {Type: String, Default: rate(1 hour)}
  Timezone: {Type: String, Default: UTC}
  State: {Type: String, Default: ENABLED}
  Description: {Type: String, Default: first}
  StartDate: {Type: String, Default: '2030-01-02T00:00:00Z'}
  EndDate: {Type: String, Default: '2031-01-01T00:00:00Z'}
  Window: {Type: Number, Default: 5}
  Kms: {Type: String, Default: 'arn:aws:kms:us-east-1:000000000000:key/one'}
  Input: {Type: String, Default: '{"v":1}'}
  Retries: {Type: Number, Default: 3}
  LaterExpression: {Type: String, Default: rate(2 hours)}
Resources:
  Queue:
    Type: AWS::SQS::Queue
  DeadLetters:
    Type: AWS::SQS::Queue
  Blue:
    Type: AWS::Scheduler::ScheduleGroup
    Properties: {Name: !Sub '${AWS::StackName}-blue'}
  Green:
    Type: AWS::Scheduler::ScheduleGroup
    Properties: {Name: !Sub '${AWS::StackName}-green'}
  Nightly:
    Type: AWS::Scheduler::Schedule
    DependsOn: [Blue, Green]
    Properties:
      Name: !Sub '${AWS::StackName}-${Name}'
      GroupName: !Ref Group
      Description: !Ref Description
      ScheduleExpression: !Ref Expression
      ScheduleExpressionTimezone: !Ref Timezone
      State: !Ref State
      StartDate: !Ref StartDate
      EndDate: !Ref EndDate
      KmsKeyArn: !Ref Kms
      FlexibleTimeWindow: {Mode: FLEXIBLE, MaximumWindowInMinutes: !Ref Window}
      Target:
        Arn: !GetAtt Queue.Arn
        RoleArn: !Sub 'arn:aws:iam::${AWS::AccountId}:role/scheduler'
        Input: !Ref Input
        RetryPolicy: {MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: !Ref Retries}
        DeadLetterConfig: {Arn: !GetAtt DeadLetters.Arn}
  Later:
    Type: AWS::Scheduler::Schedule
    DependsOn: Nightly
    Properties:
      Name: !Sub '${AWS::StackName}-later'
      ScheduleExpression: !Ref LaterExpression
      FlexibleTimeWindow: {Mode: 'OFF'}
      Target:
        Arn: !GetAtt Queue.Arn
        RoleArn: !Sub 'arn:aws:iam::${AWS::AccountId}:role/scheduler'
Outputs:
  Ref: {Value: !Ref Nightly}
  Arn: {Value: !GetAtt Nightly.Arn}
"#;

/// A CloudFormation parameter.
pub fn param(key: &str, value: &str) -> Parameter {
    Parameter::builder()
        .parameter_key(key)
        .parameter_value(value)
        .build()
}

/// The parameters `(key, value)` as the SDK takes them.
pub fn params(values: &[(&str, &str)]) -> Option<Vec<Parameter>> {
    Some(values.iter().map(|(k, v)| param(k, v)).collect())
}

/// Posts a fault rule; returns its id.
pub async fn fault(emu: &Emulator, rule: Value) -> String {
    let (code, body) = emu.control("POST", "/_cumulo/faults", Some(rule)).await;
    assert_eq!(code, 201, "{body}");
    body["id"].as_str().expect("fault id").to_string()
}

/// CreateStack of `body`; the status once the call answers.
pub async fn create(cfn: &Client, name: &str, body: &str, values: &[(&str, &str)]) -> StackStatus {
    cfn.create_stack()
        .stack_name(name)
        .template_body(body)
        .set_parameters(params(values))
        .send()
        .await
        .expect("create stack");
    status(cfn, name).await
}

/// UpdateStack to `body`; the status once the call answers.
pub async fn update(cfn: &Client, name: &str, body: &str, values: &[(&str, &str)]) -> StackStatus {
    cfn.update_stack()
        .stack_name(name)
        .template_body(body)
        .set_parameters(params(values))
        .send()
        .await
        .expect("update stack");
    status(cfn, name).await
}

/// The stack's id.
pub async fn stack_id(cfn: &Client, name: &str) -> String {
    describe(cfn, name)
        .await
        .stack_id()
        .expect("stack id")
        .to_string()
}

/// Everything GetSchedule answers, except LastModificationDate (an update that puts a schedule
/// back moves it, as UpdateSchedule does on AWS).
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleView {
    pub arn: String,
    pub name: String,
    pub group_name: String,
    pub state: Option<ScheduleState>,
    pub schedule_expression: Option<String>,
    pub schedule_expression_timezone: Option<String>,
    pub description: Option<String>,
    pub start_date: Option<DateTime>,
    pub end_date: Option<DateTime>,
    pub kms_key_arn: Option<String>,
    pub flexible_time_window: Option<FlexibleTimeWindow>,
    pub action_after_completion: Option<ActionAfterCompletion>,
    pub creation_date: Option<DateTime>,
    pub target: Option<Target>,
}

/// GetSchedule of `group`/`name` (None: not found).
pub async fn get(emu: &Emulator, group: &str, name: &str) -> Option<ScheduleView> {
    let out = emu
        .scheduler()
        .await
        .get_schedule()
        .group_name(group)
        .name(name)
        .send()
        .await;
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            let code = aws_sdk_scheduler::error::ProvideErrorMetadata::code(&e)
                .unwrap_or_default()
                .to_string();
            assert_eq!(code, "ResourceNotFoundException", "{e:?}");
            return None;
        }
    };
    Some(ScheduleView {
        arn: out.arn().unwrap_or_default().to_string(),
        name: out.name().unwrap_or_default().to_string(),
        group_name: out.group_name().unwrap_or_default().to_string(),
        state: out.state().cloned(),
        schedule_expression: out.schedule_expression().map(str::to_string),
        schedule_expression_timezone: out.schedule_expression_timezone().map(str::to_string),
        description: out.description().map(str::to_string),
        start_date: out.start_date().cloned(),
        end_date: out.end_date().cloned(),
        kms_key_arn: out.kms_key_arn().map(str::to_string),
        flexible_time_window: out.flexible_time_window().cloned(),
        action_after_completion: out.action_after_completion().cloned(),
        creation_date: out.creation_date().cloned(),
        target: out.target().cloned(),
    })
}

/// The state of `group`/`name` (None: not found).
pub async fn state(emu: &Emulator, group: &str, name: &str) -> Option<String> {
    get(emu, group, name)
        .await
        .map(|s| s.state.map(|s| s.as_str().to_string()).unwrap_or_default())
}

/// Every schedule of every group, as full views, ordered by (group, name).
pub async fn all_schedules(emu: &Emulator) -> Vec<ScheduleView> {
    let scheduler = emu.scheduler().await;
    let mut keys = Vec::new();
    let mut token = None;
    loop {
        let page = scheduler
            .list_schedules()
            .set_next_token(token)
            .send()
            .await
            .expect("list schedules");
        for s in page.schedules() {
            keys.push((
                s.group_name().unwrap_or_default().to_string(),
                s.name().unwrap_or_default().to_string(),
            ));
        }
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    keys.sort();
    let mut out = Vec::new();
    for (group, name) in keys {
        out.extend(get(emu, &group, &name).await);
    }
    out
}

/// The events of the stack's last operation (from its last stack event with `status`), as
/// (logical id, status, physical id, reason), oldest first.
pub fn since(
    all: &[(String, String, String, String)],
    stack: &str,
    status: &str,
) -> Vec<(String, String, String, String)> {
    let start = all
        .iter()
        .rposition(|e| e.0 == stack && e.1 == status)
        .unwrap_or_else(|| panic!("no {status} event of {stack}: {all:#?}"));
    all[start..].to_vec()
}

/// (logical id, status, physical id) of events, for comparing sequences.
pub fn brief(events: &[(String, String, String, String)]) -> Vec<(&str, &str, &str)> {
    events
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str()))
        .collect()
}
