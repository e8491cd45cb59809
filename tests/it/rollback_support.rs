//! Shared pieces of the `rollback_*` scenario tests (issue 6): a template whose schedule sets
//! every property CloudFormation can give it (`tests/templates/full_schedule.yaml`), and a full
//! copy of what GetSchedule answers so a test can compare a schedule before and after an update
//! or a rollback field by field. The stack helpers are `fixtures`'.

#![allow(dead_code)]

use aws_sdk_scheduler::primitives::DateTime;
use aws_sdk_scheduler::types::{ActionAfterCompletion, FlexibleTimeWindow, ScheduleState, Target};

use crate::support::Emulator;

/// A queue, a dead-letter queue, two schedule groups and one schedule (`Nightly`) whose every
/// property comes from a parameter, plus a second schedule (`Later`) created after it, so a
/// fault on `Later` fails an update after `Nightly` changed.
pub const FULL: &str = include_str!("../templates/full_schedule.yaml");

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
