//! Planning tables: a stack's current resources against a new template, and the changes
//! DescribeChangeSet shows (aws-contract.md §3.4; the AWS-recorded change sets of
//! `cloudformation_snapshots.json`).

use std::collections::HashMap;

use serde_json::json;

use super::*;
use crate::cloudformation::id::PhysicalId;
use crate::cloudformation::template::{
    BoundParameters, Environment, Evaluator, ParameterInput, Pseudo, Template,
};

struct NoSsm;

impl Environment for NoSsm {
    fn ssm_parameter(&self, _name: &str) -> Option<String> {
        None
    }
}

const V1: &str = r#"
Parameters:
  Suffix: {Type: String, Default: one}
  Expression: {Type: String, Default: rate(1 hour)}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub 'q-${Suffix}'}
  Schedule:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: s
      ScheduleExpression: !Ref Expression
      FlexibleTimeWindow: {Mode: 'OFF'}
      Target: {Arn: !GetAtt Queue.Arn, RoleArn: arn:aws:iam::000000000000:role/r}
  Gone:
    Type: AWS::SQS::Queue
    DeletionPolicy: Retain
"#;

fn pseudo() -> Pseudo {
    Pseudo {
        account_id: "000000000000".into(),
        region: "us-east-1".into(),
        stack_name: "st".into(),
        stack_id: "arn:aws:cloudformation:us-east-1:000000000000:stack/st/1".into(),
        notification_arns: Vec::new(),
    }
}

fn bind(template: &Template, given: &[(&str, &str)]) -> BoundParameters {
    let given: Vec<ParameterInput> = given
        .iter()
        .map(|(k, v)| ParameterInput {
            key: k.to_string(),
            value: Some(v.to_string()),
            use_previous_value: false,
        })
        .collect();
    template.bind_parameters(&given, None, &NoSsm).unwrap()
}

/// The stack as V1 with default parameters made it.
fn current() -> IndexMap<LogicalId, ResourceRecord> {
    let record = |id: &str, kind: &str, physical: &str, props: Value, attrs: Value| {
        let mut r = ResourceRecord::new(id.into(), kind, chrono::DateTime::UNIX_EPOCH);
        r.physical_id = Some(physical.into());
        r.properties = props;
        r.ref_value = Some(Value::String(physical.into()));
        r.attributes = serde_json::from_value(attrs).unwrap();
        r.deletion_policy = (id == "Gone").then(|| "Retain".to_string());
        r.exists = true;
        (LogicalId::from(id), r)
    };
    let arn = "arn:aws:sqs:us-east-1:000000000000:q-one";
    IndexMap::from([
        record(
            "Queue",
            "AWS::SQS::Queue",
            "http://h/000000000000/q-one",
            json!({"QueueName": "q-one"}),
            json!({"Arn": arn}),
        ),
        record(
            "Schedule",
            "AWS::Scheduler::Schedule",
            "s",
            json!({"Name": "s", "ScheduleExpression": "rate(1 hour)", "FlexibleTimeWindow": {"Mode": "OFF"},
                   "Target": {"Arn": arn, "RoleArn": "arn:aws:iam::000000000000:role/r"}}),
            json!({"Arn": "arn:aws:scheduler:us-east-1:000000000000:schedule/default/s"}),
        ),
        record(
            "Gone",
            "AWS::SQS::Queue",
            "http://h/000000000000/gone",
            json!({}),
            json!({}),
        ),
    ])
}

/// Plans `body` with `given` parameters against [`current`], V1's template as the old one.
fn plan(body: &str, given: &[(&str, &str)], changed: &[&str]) -> Plan {
    let old = Template::parse(V1).unwrap();
    let template = Template::parse(body).unwrap();
    let params = bind(&template, given);
    let resolved = template.resolve(&params, &pseudo()).unwrap();
    let current = current();
    let changed: HashSet<String> = changed.iter().map(|s| s.to_string()).collect();
    let kind = |t: &str, o: &Value, n: &Value, c: bool| {
        if t == "AWS::Scheduler::Schedule" {
            crate::cloudformation::providers::schedule_update_kind(o, n, c)
        } else if c {
            UpdateKind::Replace
        } else {
            UpdateKind::InPlace
        }
    };
    let inputs = UpdateInputs {
        current: &current,
        old_declarations: Some(old.resources()),
        resolved: &resolved,
        changed_parameters: &changed,
        update_kind: &kind,
    };
    let pseudo = pseudo();
    let evaluate = |id: &str, values: &dyn ResourceValues| {
        Evaluator::new(&template, &params, &pseudo, &resolved, values)
            .resource_properties(id)
            .map_err(|e| e.to_string())
    };
    plan_update(
        &inputs,
        PlanValues::new(&current, HashMap::new()),
        &evaluate,
    )
}

fn summary(plan: &Plan) -> Vec<(String, &'static str, Option<String>, Option<String>)> {
    plan.changes
        .iter()
        .map(|c| {
            (
                c.logical_id.to_string(),
                c.action.as_str(),
                c.replacement.clone(),
                c.policy_action.clone(),
            )
        })
        .collect()
}

#[test]
fn the_same_template_plans_nothing() {
    let p = plan(V1, &[], &[]);
    // Gone stays; nothing else differs.
    assert!(p.changes.is_empty(), "{:?}", p.changes);
}

#[test]
fn a_parameter_change_is_in_place_with_a_parameter_reference() {
    let p = plan(V1, &[("Expression", "rate(2 hours)")], &["Expression"]);
    assert_eq!(
        summary(&p),
        vec![("Schedule".into(), "Modify", Some("False".into()), None)]
    );
    let details = &p.changes[0].details;
    assert_eq!(details.len(), 2, "{details:?}");
    assert_eq!(
        (
            details[0].change_source.as_str(),
            details[0].evaluation.as_str(),
            details[0].causing_entity.as_deref(),
            details[0].name.as_deref(),
            details[0].requires_recreation.as_deref()
        ),
        (
            "ParameterReference",
            "Static",
            Some("Expression"),
            Some("ScheduleExpression"),
            Some("Never")
        )
    );
    assert_eq!(
        (
            details[1].change_source.as_str(),
            details[1].evaluation.as_str()
        ),
        ("DirectModification", "Dynamic")
    );
    assert_eq!(p.modified.iter().collect::<Vec<_>>(), vec!["Schedule"]);
}

#[test]
fn a_create_only_change_replaces_and_its_dependents_follow() {
    let p = plan(V1, &[("Suffix", "two")], &["Suffix"]);
    assert_eq!(
        summary(&p),
        vec![
            (
                "Queue".into(),
                "Modify",
                Some("True".into()),
                Some("ReplaceAndDelete".into())
            ),
            ("Schedule".into(), "Modify", Some("False".into()), None),
        ]
    );
    let queue = &p.changes[0];
    assert_eq!(
        queue.physical_id.as_ref().map(PhysicalId::as_str),
        Some("http://h/000000000000/q-one")
    );
    assert_eq!(
        queue.details[0].requires_recreation.as_deref(),
        Some("Always")
    );
    let schedule = &p.changes[1];
    let sources: Vec<(&str, &str, Option<&str>)> = schedule
        .details
        .iter()
        .map(|d| {
            (
                d.change_source.as_str(),
                d.evaluation.as_str(),
                d.causing_entity.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        sources,
        vec![
            ("DirectModification", "Dynamic", None),
            ("ResourceAttribute", "Static", Some("Queue.Arn")),
        ]
    );
}

#[test]
fn a_schedule_rename_replaces_and_a_group_change_moves() {
    let renamed = V1.replace("Name: s\n", "Name: t\n");
    let p = plan(&renamed, &[], &[]);
    assert_eq!(
        summary(&p),
        vec![(
            "Schedule".into(),
            "Modify",
            Some("True".into()),
            Some("ReplaceAndDelete".into())
        )]
    );
    assert_eq!(p.changes[0].details[0].change_source, "DirectModification");
    assert_eq!(p.changes[0].details[0].evaluation, "Static");
    let moved = V1.replace("Name: s\n", "Name: s\n      GroupName: g\n");
    let p = plan(&moved, &[], &[]);
    assert_eq!(
        summary(&p),
        vec![("Schedule".into(), "Modify", Some("False".into()), None)]
    );
    assert_eq!(p.changes[0].details[0].name.as_deref(), Some("GroupName"));
    assert_eq!(
        p.changes[0].details[0].requires_recreation.as_deref(),
        Some("Never")
    );
}

#[test]
fn removed_and_added_resources() {
    let body = V1.replace(
        "  Gone:\n    Type: AWS::SQS::Queue\n    DeletionPolicy: Retain\n",
        "  Fresh:\n    Type: AWS::SQS::Queue\n",
    );
    let p = plan(&body, &[], &[]);
    assert_eq!(
        summary(&p),
        vec![
            ("Fresh".into(), "Add", None, None),
            ("Gone".into(), "Remove", None, Some("Retain".into())),
        ]
    );
    assert!(p.changes[0].physical_id.is_none());
    assert!(p.changes[0].details.is_empty() && p.changes[0].scope.is_empty());
    assert_eq!(
        p.changes[1].physical_id.as_ref().map(PhysicalId::as_str),
        Some("http://h/000000000000/gone")
    );
}

#[test]
fn policy_and_metadata_changes_are_their_own_scope() {
    let body = V1.replace(
        "    DeletionPolicy: Retain\n",
        "    DeletionPolicy: Delete\n",
    );
    let p = plan(&body, &[], &[]);
    assert_eq!(p.changes.len(), 1);
    assert_eq!(p.changes[0].scope, vec!["DeletionPolicy"]);
    assert_eq!(p.changes[0].details[0].attribute, "DeletionPolicy");
}

#[test]
fn create_plans_add_every_resource_in_order() {
    let template = Template::parse(V1).unwrap();
    let resolved = template.resolve(&bind(&template, &[]), &pseudo()).unwrap();
    let p = plan_create(&resolved);
    let ids: Vec<&str> = p.changes.iter().map(|c| c.logical_id.as_str()).collect();
    assert_eq!(ids, vec!["Queue", "Schedule", "Gone"]);
    assert!(p.changes.iter().all(|c| c.action == ChangeAction::Add));
    assert!(!p.is_empty());
    assert!(create_only_changed(
        "AWS::SQS::Queue",
        &json!({"QueueName": "a"}),
        &json!({"QueueName": "b"})
    ));
    assert!(!create_only_changed(
        "AWS::SQS::Queue",
        &json!({"VisibilityTimeout": 1}),
        &json!({"VisibilityTimeout": 2})
    ));
}

#[test]
fn references_are_found_in_every_intrinsic_form() {
    let raw = json!({
        "A": {"Ref": "Param"},
        "B": {"Fn::GetAtt": ["Queue", "Arn"]},
        "C": {"Fn::GetAtt": "Role.Arn"},
        "D": {"Fn::Sub": "x-${Env}-${Queue.QueueName}-${AWS::Region}-${!Literal}"},
        "E": {"Fn::Sub": ["${Local}-${Other}", {"Local": {"Ref": "Group"}}]},
        "F": [{"Fn::Join": ["", [{"Ref": "Nested"}]]}]
    });
    let mut refs = Vec::new();
    references(&raw, &mut refs);
    let expected = vec![
        Reference::Ref("Param".into()),
        Reference::GetAtt("Queue".into(), "Arn".into()),
        Reference::GetAtt("Role".into(), "Arn".into()),
        Reference::Ref("Env".into()),
        Reference::GetAtt("Queue".into(), "QueueName".into()),
        Reference::Ref("AWS::Region".into()),
        Reference::Ref("Other".into()),
        Reference::Ref("Group".into()),
        Reference::Ref("Nested".into()),
    ];
    assert_eq!(refs, expected);
}

#[test]
fn property_names_keep_old_order_then_new() {
    let names = property_names(&json!({"B": 1, "A": 2}), &json!({"A": 3, "C": 4}));
    assert_eq!(names, vec!["B", "A", "C"]);
}

#[test]
fn a_create_only_value_known_only_after_apply_is_a_conditional_replacement() {
    // The schedule is named after the queue, which the update replaces: its new name is
    // known only once the queue exists, so it may be replaced.
    let named = V1.replace("      Name: s\n", "      Name: !GetAtt Queue.QueueName\n");
    let p = plan(&named, &[("Suffix", "two")], &["Suffix"]);
    assert_eq!(
        summary(&p),
        vec![
            (
                "Queue".into(),
                "Modify",
                Some("True".into()),
                Some("ReplaceAndDelete".into())
            ),
            (
                "Schedule".into(),
                "Modify",
                Some("Conditional".into()),
                Some("ReplaceAndDelete".into())
            ),
        ]
    );
    let name: Vec<(&str, &str, Option<&str>)> = p.changes[1]
        .details
        .iter()
        .filter(|d| d.name.as_deref() == Some("Name"))
        .map(|d| {
            (
                d.evaluation.as_str(),
                d.requires_recreation.as_deref().unwrap_or_default(),
                d.causing_entity.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        name,
        vec![
            ("Dynamic", "Always", None),
            ("Static", "Always", Some("Queue.QueueName")),
        ]
    );
}
