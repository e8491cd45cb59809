//! The store's own checks: restart recovery, pagination, the lifecycle's refusals and event
//! timestamps.

use chrono::{DateTime, TimeDelta, Utc};

use super::*;
use crate::cloudformation::status::{ExecutionStatus, ResourceStatus, StackStatus};

fn stack_id(name: &str) -> StackId {
    StackId::from(format!(
        "arn:aws:cloudformation:eu-west-1:123456789012:stack/{name}/1"
    ))
}

fn t(ms: i64) -> DateTime<Utc> {
    DateTime::UNIX_EPOCH + TimeDelta::milliseconds(ms)
}

#[test]
fn an_operation_cut_short_by_a_restart_loads_failed() {
    let storage = crate::services::test_backend::storage();
    for (name, status) in [
        ("a", StackStatus::UpdateInProgress),
        ("b", StackStatus::CreateComplete),
        ("c", StackStatus::DeleteComplete),
    ] {
        let mut r = StackRecord::new(stack_id(name), name, DateTime::UNIX_EPOCH);
        r.status = status;
        storage.put(STACKS, r.stack_id.as_str(), &r);
    }
    let sink = Sink::new(storage, IdGen::default());
    let mut state = State::load(sink, DateTime::UNIX_EPOCH);
    let region = state.region(&Scope::new("123456789012", "eu-west-1"));
    let a = region.find("a").unwrap();
    assert_eq!(a.status(), StackStatus::UpdateFailed);
    assert!(a.record.status_reason().is_some());
    assert_eq!(a.events().len(), 1, "the interruption is an event");
    assert_eq!(
        region.find("b").unwrap().status(),
        StackStatus::CreateComplete
    );
    assert!(
        region.find("c").is_none(),
        "deleted stacks are found by id only"
    );
    assert!(region
        .find("arn:aws:cloudformation:eu-west-1:123456789012:stack/c/1")
        .is_some());
    assert_eq!(state.refused_transitions(), 0);
}

#[test]
fn pages_carry_a_token_until_the_end() {
    let items: Vec<u32> = (0..250).collect();
    let first = paginate(&items, page_offset(None).unwrap(), 100);
    assert_eq!(first.items.len(), 100);
    let second = paginate(
        &items,
        page_offset(first.next_token.as_deref()).unwrap(),
        100,
    );
    assert_eq!(second.items[0], 100);
    let third = paginate(
        &items,
        page_offset(second.next_token.as_deref()).unwrap(),
        100,
    );
    assert_eq!(third.items.len(), 50);
    assert_eq!(third.next_token, None);
    assert!(page_offset(Some("garbage")).is_err());
    assert!(paginate(&items, 999, 100).items.is_empty());
}

/// A region with one CREATE_IN_PROGRESS stack `s` opened at `t(0)`.
fn opened() -> State {
    let mut state = State::new(Sink::default());
    let region = state.region(&Scope::new("123456789012", "eu-west-1"));
    let record = StackRecord::new(stack_id("s"), "s", t(0));
    region
        .open_stack(
            record,
            None,
            StackStatus::CreateInProgress,
            Some("User Initiated".into()),
            t(0),
        )
        .unwrap();
    state
}

fn stack(state: &mut State) -> &mut StackEntry {
    state
        .region(&Scope::new("123456789012", "eu-west-1"))
        .stack_mut(stack_id("s").as_str())
        .unwrap()
}

#[test]
fn illegal_moves_are_refused_and_change_nothing() {
    let mut state = opened();
    let entry = stack(&mut state);
    let err = entry
        .set_status(StackStatus::UpdateComplete, None, t(0))
        .unwrap_err();
    assert_eq!(err.from, "CREATE_IN_PROGRESS");
    assert_eq!(entry.status(), StackStatus::CreateInProgress);
    assert_eq!(entry.events().len(), 1);
    entry
        .begin_create_resource(
            ResourceRecord::new("Q".into(), "AWS::SQS::Queue", t(0)),
            t(0),
        )
        .unwrap();
    let refused = entry.set_resource_status(
        "Q",
        ResourceEvent::new(ResourceStatus::UpdateComplete),
        t(0),
        |r| r.exists = true,
    );
    assert!(refused.is_err());
    assert!(
        !entry.resource("Q").unwrap().exists,
        "the edit is not applied"
    );
    assert!(entry
        .set_resource_status(
            "Missing",
            ResourceEvent::new(ResourceStatus::CreateComplete),
            t(0),
            |_| {}
        )
        .is_err());
    assert_eq!(state.refused_transitions(), 3);
    let mut state = State::new(Sink::default());
    let region = state.region(&Scope::new("123456789012", "eu-west-1"));
    let refused = region.open_stack(
        StackRecord::new(stack_id("x"), "x", t(0)),
        None,
        StackStatus::UpdateInProgress,
        None,
        t(0),
    );
    assert!(refused.is_err(), "a stack starts in CREATE or REVIEW only");
    assert!(region.find("x").is_none());
}

#[test]
fn events_of_a_stack_get_distinct_increasing_times_never_before_the_clock() {
    let mut state = opened();
    let entry = stack(&mut state);
    entry
        .begin_create_resource(
            ResourceRecord::new("Q".into(), "AWS::SQS::Queue", t(0)),
            t(0),
        )
        .unwrap();
    entry
        .set_resource_status(
            "Q",
            ResourceEvent::new(ResourceStatus::CreateComplete),
            t(0),
            |_| {},
        )
        .unwrap();
    entry
        .set_status(StackStatus::CreateComplete, None, t(0))
        .unwrap();
    let times: Vec<_> = entry.events().iter().map(|e| e.timestamp).collect();
    assert_eq!(times, vec![t(0), t(1), t(2), t(3)]);
    assert_eq!(entry.resource("Q").unwrap().last_updated(), t(2));
    // A clock ahead of the log wins.
    entry
        .set_status(StackStatus::DeleteInProgress, None, t(500))
        .unwrap();
    assert_eq!(entry.last_event_time(), Some(t(500)));
}

#[test]
fn change_sets_go_through_their_machines() {
    let mut state = opened();
    let region = state.region(&Scope::new("123456789012", "eu-west-1"));
    let id = stack_id("s");
    let record = |n: &str| {
        ChangeSetRecord::new(
            format!("arn:cs/{n}"),
            n,
            (&id, "s"),
            crate::cloudformation::model::ChangeSetType::Update,
            t(0),
        )
    };
    region
        .add_change_set(record("a"), None, None, ChangeSetOutcome::Computed)
        .unwrap();
    region
        .add_change_set(
            record("b"),
            None,
            None,
            ChangeSetOutcome::Failed("no changes".into()),
        )
        .unwrap();
    let a = &region.change_sets["arn:cs/a"].record;
    assert_eq!(
        (a.status(), a.execution_status()),
        (
            crate::cloudformation::status::ChangeSetStatus::CreateComplete,
            ExecutionStatus::Available
        )
    );
    let b = &region.change_sets["arn:cs/b"].record;
    assert_eq!(b.execution_status(), ExecutionStatus::Unavailable);
    assert_eq!(b.status_reason(), Some("no changes"));
    assert!(region
        .set_execution_status("arn:cs/b", ExecutionStatus::ExecuteInProgress)
        .is_err());
    region
        .set_execution_status("arn:cs/a", ExecutionStatus::ExecuteInProgress)
        .unwrap();
    assert!(
        region
            .set_execution_status("arn:cs/a", ExecutionStatus::Available)
            .is_err(),
        "an execution does not go back to AVAILABLE"
    );
}
