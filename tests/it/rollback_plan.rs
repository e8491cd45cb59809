//! Update planning (issue 6): an UPDATE change set diffs the stack's resources against the new
//! template into Add / Modify (Replacement True / False / Conditional from each type's
//! createOnly properties) / Remove; executing it follows that plan in dependency order, and
//! UpdateStack takes the same path (aws-contract.md §3.2–§3.4, §5).

use aws_sdk_cloudformation::types::{ChangeSetType, StackStatus};
use aws_sdk_cloudformation::Client;

use crate::fixtures::{create, events, param, since, status, update};
use crate::rollback_support::all_schedules;
use crate::support::Emulator;

/// v1 of the planned stack: `D` is removed by v2 and `E` added. `A` changes in place, `B` is
/// renamed (replacement), `C` is named after the queue, which v2 renames: whether `C` is
/// replaced is only known once the queue is.
fn planned(version: u8) -> String {
    let (d, e) = if version == 1 {
        (
            "  D:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      Name: !Sub '${AWS::StackName}-d'\n      ScheduleExpression: rate(1 day)\n      FlexibleTimeWindow: {Mode: 'OFF'}\n      Target: {Arn: !GetAtt Queue.Arn, RoleArn: 'arn:aws:iam::000000000000:role/r'}\n",
            "",
        )
    } else {
        (
            "",
            "  E:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      Name: !Sub '${AWS::StackName}-e'\n      ScheduleExpression: rate(2 days)\n      FlexibleTimeWindow: {Mode: 'OFF'}\n      Target: {Arn: !GetAtt Queue.Arn, RoleArn: 'arn:aws:iam::000000000000:role/r'}\n",
        )
    };
    format!(
        r#"
Parameters:
  QueueName: {{Type: String, Default: q1}}
  Expression: {{Type: String, Default: rate(1 hour)}}
  SuffixB: {{Type: String, Default: b}}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {{QueueName: !Sub '${{AWS::StackName}}-${{QueueName}}'}}
  A:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: !Sub '${{AWS::StackName}}-a'
      ScheduleExpression: !Ref Expression
      FlexibleTimeWindow: {{Mode: 'OFF'}}
      Target: {{Arn: !GetAtt Queue.Arn, RoleArn: 'arn:aws:iam::000000000000:role/r'}}
  B:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: !Sub '${{AWS::StackName}}-${{SuffixB}}'
      ScheduleExpression: rate(1 hour)
      FlexibleTimeWindow: {{Mode: 'OFF'}}
      Target: {{Arn: 'arn:aws:sqs:us-east-1:000000000000:elsewhere', RoleArn: 'arn:aws:iam::000000000000:role/r'}}
  C:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: !GetAtt Queue.QueueName
      ScheduleExpression: rate(1 hour)
      FlexibleTimeWindow: {{Mode: 'OFF'}}
      Target: {{Arn: 'arn:aws:sqs:us-east-1:000000000000:elsewhere', RoleArn: 'arn:aws:iam::000000000000:role/r'}}
{d}{e}"#
    )
}

const V2_PARAMS: [(&str, &str); 3] = [
    ("QueueName", "q2"),
    ("Expression", "rate(3 hours)"),
    ("SuffixB", "b2"),
];

/// One line per change: (logical id, action, replacement, policy action).
type Row = (String, String, String, String);

async fn plan(
    cfn: &Client,
    stack: &str,
) -> (String, Vec<Row>, Vec<(String, String, String, String)>) {
    let cs = cfn
        .create_change_set()
        .stack_name(stack)
        .change_set_name("v2")
        .change_set_type(ChangeSetType::Update)
        .template_body(planned(2))
        .set_parameters(Some(V2_PARAMS.iter().map(|(k, v)| param(k, v)).collect()))
        .send()
        .await
        .unwrap();
    let id = cs.id().unwrap().to_string();
    let desc = cfn
        .describe_change_set()
        .change_set_name(&id)
        .send()
        .await
        .unwrap();
    let mut rows = Vec::new();
    let mut details = Vec::new();
    for c in desc.changes() {
        let rc = c.resource_change().unwrap();
        let logical = rc.logical_resource_id().unwrap().to_string();
        rows.push((
            logical.clone(),
            rc.action().unwrap().as_str().to_string(),
            rc.replacement()
                .map(|r| r.as_str().to_string())
                .unwrap_or_default(),
            rc.policy_action()
                .map(|p| p.as_str().to_string())
                .unwrap_or_default(),
        ));
        for d in rc.details() {
            let t = d.target().unwrap();
            details.push((
                logical.clone(),
                t.name().unwrap_or_default().to_string(),
                t.requires_recreation()
                    .map(|r| r.as_str().to_string())
                    .unwrap_or_default(),
                format!(
                    "{}/{}/{}",
                    d.change_source().map(|s| s.as_str()).unwrap_or_default(),
                    d.evaluation().map(|s| s.as_str()).unwrap_or_default(),
                    d.causing_entity().unwrap_or_default()
                ),
            ));
        }
    }
    (id, rows, details)
}

fn row(logical: &str, action: &str, replacement: &str, policy: &str) -> Row {
    (
        logical.to_string(),
        action.to_string(),
        replacement.to_string(),
        policy.to_string(),
    )
}

/// The events of the last update with the stack's name and id written as `STACK` / `ID`.
async fn normalized_update_events(cfn: &Client, stack: &str) -> Vec<(String, String, String)> {
    let all = events(cfn, stack).await;
    let last = since(&all, stack, "UPDATE_IN_PROGRESS");
    let id = last[0].2.clone();
    last.iter()
        .map(|e| {
            (
                e.0.replace(stack, "STACK"),
                e.1.clone(),
                e.2.replace(&id, "ID").replace(stack, "STACK"),
            )
        })
        .collect()
}

#[tokio::test]
async fn an_update_change_set_plans_add_modify_remove_and_execution_follows_it() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    assert_eq!(
        create(&cfn, "cs", &planned(1), &[]).await,
        StackStatus::CreateComplete
    );
    let (id, rows, details) = plan(&cfn, "cs").await;
    assert_eq!(
        rows,
        vec![
            row("Queue", "Modify", "True", "ReplaceAndDelete"),
            row("A", "Modify", "False", ""),
            row("B", "Modify", "True", "ReplaceAndDelete"),
            row("C", "Modify", "Conditional", "ReplaceAndDelete"),
            row("E", "Add", "", ""),
            row("D", "Remove", "", "Delete"),
        ]
    );
    let detail = |logical: &str, name: &str| -> Vec<(String, String)> {
        details
            .iter()
            .filter(|d| d.0 == logical && d.1 == name)
            .map(|d| (d.2.clone(), d.3.clone()))
            .collect()
    };
    assert_eq!(
        detail("Queue", "QueueName"),
        vec![
            (
                "Always".into(),
                "ParameterReference/Static/QueueName".into()
            ),
            ("Always".into(), "DirectModification/Dynamic/".into())
        ]
    );
    assert_eq!(
        detail("A", "ScheduleExpression"),
        vec![
            (
                "Never".into(),
                "ParameterReference/Static/Expression".into()
            ),
            ("Never".into(), "DirectModification/Dynamic/".into())
        ]
    );
    assert_eq!(
        detail("A", "Target"),
        vec![
            ("Never".into(), "DirectModification/Dynamic/".into()),
            ("Never".into(), "ResourceAttribute/Static/Queue.Arn".into())
        ]
    );
    assert_eq!(
        detail("B", "Name"),
        vec![
            ("Always".into(), "ParameterReference/Static/SuffixB".into()),
            ("Always".into(), "DirectModification/Dynamic/".into())
        ]
    );
    assert_eq!(
        detail("C", "Name"),
        vec![
            ("Always".into(), "DirectModification/Dynamic/".into()),
            (
                "Always".into(),
                "ResourceAttribute/Static/Queue.QueueName".into()
            )
        ]
    );

    cfn.execute_change_set()
        .change_set_name(&id)
        .send()
        .await
        .unwrap();
    assert_eq!(status(&cfn, "cs").await, StackStatus::UpdateComplete);
    let got = normalized_update_events(&cfn, "cs").await;
    let e = |l: &str, s: &str, p: &str| (l.to_string(), s.to_string(), p.to_string());
    let new_url = got
        .iter()
        .find(|x| x.0 == "Queue" && x.1 == "UPDATE_COMPLETE")
        .unwrap()
        .2
        .clone();
    assert!(new_url.ends_with("/STACK-q2"), "{new_url}");
    let old_url = got.iter().find(|x| x.0 == "Queue").unwrap().2.clone();
    assert!(old_url.ends_with("/STACK-q1"), "{old_url}");
    assert_eq!(
        got,
        vec![
            e("STACK", "UPDATE_IN_PROGRESS", "ID"),
            e("Queue", "UPDATE_IN_PROGRESS", &old_url),
            e("Queue", "UPDATE_IN_PROGRESS", &new_url),
            e("Queue", "UPDATE_COMPLETE", &new_url),
            e("A", "UPDATE_IN_PROGRESS", "STACK-a"),
            e("A", "UPDATE_COMPLETE", "STACK-a"),
            e("B", "UPDATE_IN_PROGRESS", "STACK-b"),
            e("B", "UPDATE_IN_PROGRESS", "STACK-b2"),
            e("B", "UPDATE_COMPLETE", "STACK-b2"),
            e("C", "UPDATE_IN_PROGRESS", "STACK-q1"),
            e("C", "UPDATE_IN_PROGRESS", "STACK-q2"),
            e("C", "UPDATE_COMPLETE", "STACK-q2"),
            e("E", "CREATE_IN_PROGRESS", ""),
            e("E", "CREATE_IN_PROGRESS", "STACK-e"),
            e("E", "CREATE_COMPLETE", "STACK-e"),
            e("STACK", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "ID"),
            e("C", "DELETE_IN_PROGRESS", "STACK-q1"),
            e("C", "DELETE_COMPLETE", "STACK-q1"),
            e("B", "DELETE_IN_PROGRESS", "STACK-b"),
            e("B", "DELETE_COMPLETE", "STACK-b"),
            e("Queue", "DELETE_IN_PROGRESS", &old_url),
            e("Queue", "DELETE_COMPLETE", &old_url),
            e("D", "DELETE_IN_PROGRESS", "STACK-d"),
            e("D", "DELETE_COMPLETE", "STACK-d"),
            e("STACK", "UPDATE_COMPLETE", "ID"),
        ]
    );
    let names: Vec<(String, String, String)> = all_schedules(&emu)
        .await
        .into_iter()
        .map(|s| {
            (
                s.name,
                s.schedule_expression.unwrap_or_default(),
                s.target.map(|t| t.arn().to_string()).unwrap_or_default(),
            )
        })
        .collect();
    let queue_arn = "arn:aws:sqs:us-east-1:000000000000:cs-q2".to_string();
    let elsewhere = "arn:aws:sqs:us-east-1:000000000000:elsewhere".to_string();
    assert_eq!(
        names,
        vec![
            ("cs-a".into(), "rate(3 hours)".into(), queue_arn.clone()),
            ("cs-b2".into(), "rate(1 hour)".into(), elsewhere.clone()),
            ("cs-e".into(), "rate(2 days)".into(), queue_arn),
            ("cs-q2".into(), "rate(1 hour)".into(), elsewhere),
        ]
    );
}

#[tokio::test]
async fn update_stack_takes_the_same_path_as_the_change_set() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    create(&cfn, "viacs", &planned(1), &[]).await;
    create(&cfn, "viaup", &planned(1), &[]).await;
    let (id, _, _) = plan(&cfn, "viacs").await;
    cfn.execute_change_set()
        .change_set_name(&id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        update(&cfn, "viaup", &planned(2), &V2_PARAMS).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(
        normalized_update_events(&cfn, "viacs").await,
        normalized_update_events(&cfn, "viaup").await
    );
    let shape = |prefix: &str, all: &[crate::rollback_support::ScheduleView]| {
        all.iter()
            .filter(|s| s.name.starts_with(prefix))
            .map(|s| {
                (
                    s.name.replacen(prefix, "", 1),
                    s.schedule_expression.clone(),
                    s.target.as_ref().map(|t| t.arn().replace(prefix, "")),
                )
            })
            .collect::<Vec<_>>()
    };
    let all = all_schedules(&emu).await;
    assert_eq!(shape("viacs", &all), shape("viaup", &all));
    assert_eq!(shape("viacs", &all).len(), 4);
}
