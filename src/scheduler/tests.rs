//! Tests of the `Scheduler` core through its Rust API (the one the wire layer and the
//! CloudFormation providers call): store invariants, paging under concurrent change, client
//! tokens, generations, change notifications and durability.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chrono::{Duration, TimeZone, Utc};

use super::*;
use crate::app::{App, Parts};
use crate::clock::Clock;
use crate::config::Config;
use crate::storage::{Backend, Storage, Table};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 1, 1, 12, 0, 0).unwrap()
}

fn app_with(storage: Option<Storage>) -> App {
    App::new(
        Config {
            seed: Some(1),
            ..Config::default()
        },
        Parts {
            clock: Some(Clock::manual_at(t0())),
            storage,
        },
    )
}

fn scope() -> Scope {
    Scope::new("000000000000", "us-east-1")
}

fn input(group: Option<&str>, name: &str) -> ScheduleInput {
    ScheduleInput {
        name: name.into(),
        group_name: group.map(Into::into),
        schedule_expression: Some("rate(5 minutes)".into()),
        flexible_time_window: Some(FlexibleTimeWindowInput {
            mode: Some("OFF".into()),
            maximum_window_in_minutes: None,
        }),
        target: Some(TargetInput {
            arn: Some("arn:aws:sqs:us-east-1:000000000000:q".into()),
            role_arn: Some("arn:aws:iam::000000000000:role/r".into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn group(name: &str) -> CreateScheduleGroupInput {
    CreateScheduleGroupInput {
        name: name.into(),
        ..Default::default()
    }
}

fn names(page: &ListSchedulesOutput) -> Vec<String> {
    page.schedules
        .iter()
        .map(|s| format!("{}/{}", s.group_name, s.name))
        .collect()
}

fn list(s: &Scheduler, input: ListSchedulesInput) -> ListSchedulesOutput {
    s.list_schedules(&scope(), input).unwrap()
}

#[test]
fn paging_resumes_after_the_last_key_whatever_changes_in_between() {
    let app = app_with(None);
    let s = &app.scheduler;
    s.create_schedule_group(&scope(), group("g1")).unwrap();
    for n in ["b", "d", "f", "h"] {
        s.create_schedule(&scope(), input(None, n)).unwrap();
        s.create_schedule(&scope(), input(Some("g1"), n)).unwrap();
    }
    let page1 = list(
        s,
        ListSchedulesInput {
            max_results: Some(3),
            ..Default::default()
        },
    );
    assert_eq!(names(&page1), ["default/b", "default/d", "default/f"]);
    // Between pages: insert before and after the cursor, delete the next one and a seen one.
    s.create_schedule(&scope(), input(None, "a")).unwrap();
    s.create_schedule(&scope(), input(None, "e")).unwrap();
    s.create_schedule(&scope(), input(None, "g")).unwrap();
    s.delete_schedule(&scope(), None, "h", None).unwrap();
    s.delete_schedule(&scope(), None, "b", None).unwrap();
    let page2 = list(
        s,
        ListSchedulesInput {
            max_results: Some(3),
            next_token: page1.next_token.clone(),
            ..Default::default()
        },
    );
    assert_eq!(names(&page2), ["default/g", "g1/b", "g1/d"]);
    let page3 = list(
        s,
        ListSchedulesInput {
            max_results: Some(3),
            next_token: page2.next_token.clone(),
            ..Default::default()
        },
    );
    assert_eq!(names(&page3), ["g1/f", "g1/h"]);
    assert_eq!(page3.next_token, None);
}

#[test]
fn list_filters_combine_with_paging() {
    let app = app_with(None);
    let s = &app.scheduler;
    s.create_schedule_group(&scope(), group("g1")).unwrap();
    for n in ["job-1", "job-2", "job-3", "other"] {
        let mut i = input(Some("g1"), n);
        if n == "job-2" {
            i.state = Some("DISABLED".into());
        }
        s.create_schedule(&scope(), i).unwrap();
    }
    s.create_schedule(&scope(), input(None, "job-0")).unwrap();
    let by_prefix = |token: Option<String>| {
        list(
            s,
            ListSchedulesInput {
                name_prefix: Some("job".into()),
                max_results: Some(2),
                next_token: token,
                ..Default::default()
            },
        )
    };
    let p1 = by_prefix(None);
    assert_eq!(names(&p1), ["default/job-0", "g1/job-1"]);
    let p2 = by_prefix(p1.next_token);
    assert_eq!(names(&p2), ["g1/job-2", "g1/job-3"]);
    assert_eq!(p2.next_token, None);
    let enabled = list(
        s,
        ListSchedulesInput {
            group_name: Some("g1".into()),
            state: Some("ENABLED".into()),
            ..Default::default()
        },
    );
    assert_eq!(names(&enabled), ["g1/job-1", "g1/job-3", "g1/other"]);
    // A token from an earlier group under a group filter starts at the filter's group.
    let from_default = list(
        s,
        ListSchedulesInput {
            max_results: Some(1),
            ..Default::default()
        },
    );
    let in_g1 = list(
        s,
        ListSchedulesInput {
            group_name: Some("g1".into()),
            next_token: from_default.next_token,
            ..Default::default()
        },
    );
    assert_eq!(in_g1.schedules.len(), 4);
    assert_eq!(
        s.list_schedules(
            &scope(),
            ListSchedulesInput {
                group_name: Some("nope".into()),
                ..Default::default()
            }
        )
        .unwrap_err(),
        Error::ResourceNotFound("Schedule group nope does not exist.".into())
    );
    assert_eq!(
        s.list_schedules(
            &scope(),
            ListSchedulesInput {
                next_token: Some("garbage".into()),
                ..Default::default()
            }
        )
        .unwrap_err(),
        Error::Validation("The NextToken provided is not valid.".into())
    );
    assert_eq!(
        s.list_schedules(
            &scope(),
            ListSchedulesInput {
                max_results: Some(0),
                state: Some("ON".into()),
                ..Default::default()
            }
        )
        .unwrap_err(),
        Error::Validation("2 validation errors detected: Value '0' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1; Value 'ON' at 'state' failed to satisfy constraint: Member must satisfy enum value set: [ENABLED, DISABLED]".into())
    );
}

#[test]
fn groups_list_default_first_then_by_name() {
    let app = app_with(None);
    let s = &app.scheduler;
    for g in ["zeta", "alpha", "delta", "default-like"] {
        s.create_schedule_group(&scope(), group(g)).unwrap();
    }
    let page = |prefix: Option<&str>, token: Option<String>| {
        s.list_schedule_groups(
            &scope(),
            ListScheduleGroupsInput {
                name_prefix: prefix.map(Into::into),
                max_results: Some(2),
                next_token: token,
            },
        )
        .unwrap()
    };
    let mut all = Vec::new();
    let mut token = None;
    loop {
        let p = page(None, token);
        all.extend(p.schedule_groups.iter().map(|g| g.name.clone()));
        token = p.next_token;
        if token.is_none() {
            break;
        }
    }
    assert_eq!(all, ["default", "alpha", "default-like", "delta", "zeta"]);
    let p = page(Some("de"), None);
    assert_eq!(
        p.schedule_groups
            .iter()
            .map(|g| g.name.as_str())
            .collect::<Vec<_>>(),
        ["default", "default-like"]
    );
    let p = page(Some("de"), p.next_token);
    assert_eq!(p.schedule_groups[0].name, "delta");
    assert_eq!(p.next_token, None);
    let default = &page(None, None).schedule_groups[0];
    assert_eq!(
        (default.creation_date, default.last_modification_date),
        (None, None)
    );
}

#[test]
fn client_tokens_replay_identical_requests_and_refuse_different_ones() {
    let app = app_with(None);
    let s = &app.scheduler;
    let with_token = |mut i: ScheduleInput, t: &str| {
        i.client_token = Some(t.into());
        i
    };
    let arn = s
        .create_schedule(&scope(), with_token(input(None, "s"), "tok-1"))
        .unwrap();
    assert_eq!(
        s.create_schedule(&scope(), with_token(input(None, "s"), "tok-1")),
        Ok(arn.clone())
    );
    assert_eq!(
        s.create_schedule(&scope(), with_token(input(None, "s"), "tok-2")),
        Err(Error::Conflict("Schedule s already exists.".into()))
    );
    let mut other = with_token(input(None, "s"), "tok-1");
    other.description = Some("different".into());
    assert_eq!(
        s.create_schedule(&scope(), other),
        Err(Error::Conflict(
            "The ClientToken tok-1 was already used with a different request.".into()
        ))
    );
    // The same token in another account is another token.
    let elsewhere = Scope::new("111111111111", "us-east-1");
    assert!(s
        .create_schedule(&elsewhere, with_token(input(None, "s"), "tok-1"))
        .is_ok());
    // Deletes replay too: the retry of a delete that succeeded answers {} again.
    s.delete_schedule(&scope(), None, "s", Some("del-1"))
        .unwrap();
    assert_eq!(
        s.delete_schedule(&scope(), None, "s", Some("del-1")),
        Ok(())
    );
    assert_eq!(
        s.delete_schedule(&scope(), None, "s", Some("del-2")),
        Err(Error::ResourceNotFound("Schedule s does not exist.".into()))
    );
    // Group creation replays instead of answering ConflictException.
    let g = CreateScheduleGroupInput {
        client_token: Some("g-1".into()),
        ..group("g")
    };
    let garn = s.create_schedule_group(&scope(), g.clone()).unwrap();
    assert_eq!(s.create_schedule_group(&scope(), g.clone()), Ok(garn));
    // Tokens are forgotten after 24 hours.
    app.clock
        .step_manual(t0() + Duration::hours(24) + Duration::seconds(1))
        .unwrap();
    assert_eq!(
        s.create_schedule_group(&scope(), g),
        Err(Error::Conflict("Schedule group g already exists.".into()))
    );
}

#[test]
fn a_replay_answers_even_after_time_made_the_request_invalid() {
    let app = app_with(None);
    let s = &app.scheduler;
    let mut i = input(None, "s");
    i.start_date = Some(t0());
    i.client_token = Some("t".into());
    let arn = s.create_schedule(&scope(), i.clone()).unwrap();
    app.clock.step_manual(t0() + Duration::hours(1)).unwrap();
    assert_eq!(s.create_schedule(&scope(), i.clone()), Ok(arn));
    i.client_token = Some("u".into());
    assert_eq!(
        s.update_schedule(&scope(), i),
        Err(Error::Validation(
            validate::START_DATE_TOO_EARLY.to_string()
        ))
    );
}

#[test]
fn updates_replace_everything_but_the_creation_date() {
    let app = app_with(None);
    let s = &app.scheduler;
    let mut i = input(None, "s");
    i.description = Some("only at create".into());
    i.state = Some("DISABLED".into());
    s.create_schedule(&scope(), i).unwrap();
    let before = s.get_schedule(&scope(), None, "s").unwrap();
    app.clock.step_manual(t0() + Duration::seconds(90)).unwrap();
    let mut u = input(None, "s");
    u.schedule_expression = Some("rate(2 minute)".into());
    s.update_schedule(&scope(), u).unwrap();
    let after = s.get_schedule(&scope(), None, "s").unwrap();
    assert_eq!(after.description, None);
    assert_eq!(after.state, ScheduleState::Enabled);
    assert_eq!(after.schedule_expression, "rate(2 minute)");
    assert_eq!(after.creation_date, t0());
    assert_eq!(after.last_modification_date, t0() + Duration::seconds(90));
    assert!(after.generation > before.generation);
    // The schedule read before the update is unchanged (readers hold an immutable Arc).
    assert_eq!(before.description.as_deref(), Some("only at create"));
    assert_eq!(
        s.update_schedule(&scope(), input(None, "missing")),
        Err(Error::ResourceNotFound(
            "Schedule missing does not exist.".into()
        ))
    );
    assert_eq!(
        s.update_schedule(&scope(), input(Some("nogroup"), "s")),
        Err(Error::ResourceNotFound("Schedule s does not exist.".into()))
    );
}

#[test]
fn subscribers_see_every_change_in_order_with_generations() {
    let app = app_with(None);
    let s = &app.scheduler;
    let mut rx = s.subscribe_changes();
    s.create_schedule_group(&scope(), group("g")).unwrap();
    s.create_schedule(&scope(), input(Some("g"), "a")).unwrap();
    s.create_schedule(&scope(), input(Some("g"), "b")).unwrap();
    let mut disable = input(Some("g"), "a");
    disable.state = Some("DISABLED".into());
    s.update_schedule(&scope(), disable).unwrap();
    s.delete_schedule_group(&scope(), "g", None).unwrap();
    s.reset();
    let key = |n: &str| ScheduleKey::new(scope(), "g", n);
    let mut got = Vec::new();
    while let Ok(c) = rx.try_recv() {
        got.push(c);
    }
    assert_eq!(
        got,
        [
            ScheduleChange::Upserted {
                key: key("a"),
                generation: 1
            },
            ScheduleChange::Upserted {
                key: key("b"),
                generation: 2
            },
            ScheduleChange::Upserted {
                key: key("a"),
                generation: 3
            },
            ScheduleChange::Deleted {
                key: key("a"),
                generation: 3
            },
            ScheduleChange::Deleted {
                key: key("b"),
                generation: 2
            },
            ScheduleChange::Reset,
        ]
    );
}

#[test]
fn completed_one_time_schedules_are_deleted_only_at_their_generation() {
    let app = app_with(None);
    let s = &app.scheduler;
    let mut i = input(None, "once");
    i.schedule_expression = Some("at(2030-01-02T00:00:00)".into());
    i.action_after_completion = Some("DELETE".into());
    s.create_schedule(&scope(), i.clone()).unwrap();
    let key = ScheduleKey::new(scope(), "default", "once");
    let first = s.schedule(&key).unwrap();
    assert_eq!(first.action_after_completion, ActionAfterCompletion::Delete);
    s.update_schedule(&scope(), i).unwrap();
    assert!(!s.delete_after_completion(&key, first.generation));
    let second = s.schedule(&key).unwrap();
    assert!(s.delete_after_completion(&key, second.generation));
    assert!(s.schedule(&key).is_none());
    assert_eq!(s.schedules_snapshot().len(), 0);
}

#[test]
fn groups_own_their_schedules() {
    let app = app_with(None);
    let s = &app.scheduler;
    assert_eq!(
        s.create_schedule(&scope(), input(Some("g"), "s")),
        Err(Error::ResourceNotFound(
            "Schedule group g does not exist.".into()
        ))
    );
    s.create_schedule_group(&scope(), group("g")).unwrap();
    s.create_schedule(&scope(), input(Some("g"), "s")).unwrap();
    s.create_schedule(&scope(), input(None, "s")).unwrap();
    assert_eq!(
        s.create_schedule_group(&scope(), group("g")),
        Err(Error::Conflict("Schedule group g already exists.".into()))
    );
    assert!(s.get_schedule(&scope(), Some("g"), "s").is_ok());
    assert_eq!(
        s.create_schedule_group(&scope(), group("default")),
        Err(Error::Conflict(
            "Schedule group default already exists.".into()
        ))
    );
    assert_eq!(
        s.delete_schedule_group(&scope(), "default", None),
        Err(Error::Validation(
            "The default schedule group cannot be deleted.".into()
        ))
    );
    s.delete_schedule_group(&scope(), "g", None).unwrap();
    assert_eq!(
        s.get_schedule(&scope(), Some("g"), "s"),
        Err(Error::ResourceNotFound("Schedule s does not exist.".into()))
    );
    assert_eq!(
        s.delete_schedule_group(&scope(), "g", None),
        Err(Error::ResourceNotFound(
            "Schedule group g does not exist.".into()
        ))
    );
    // Re-created, the group is empty.
    s.create_schedule_group(&scope(), group("g")).unwrap();
    assert!(list(
        s,
        ListSchedulesInput {
            group_name: Some("g".into()),
            ..Default::default()
        }
    )
    .schedules
    .is_empty());
    assert!(s.get_schedule(&scope(), None, "s").is_ok());
}

#[test]
fn the_group_quota_is_500() {
    let app = app_with(None);
    let s = &app.scheduler;
    for n in 0..store::MAX_GROUPS {
        s.create_schedule_group(&scope(), group(&format!("g{n}")))
            .unwrap();
    }
    assert_eq!(
        s.create_schedule_group(&scope(), group("one-more")),
        Err(store::group_quota_exceeded())
    );
    s.delete_schedule_group(&scope(), "g0", None).unwrap();
    assert!(s.create_schedule_group(&scope(), group("one-more")).is_ok());
}

#[test]
fn tags_are_per_group_in_the_callers_scope() {
    let app = app_with(None);
    let s = &app.scheduler;
    let arn = s
        .create_schedule_group(
            &scope(),
            CreateScheduleGroupInput {
                tags: Some(vec![TagInput::new("a", "1")]),
                ..group("g")
            },
        )
        .unwrap();
    s.tag_resource(
        &scope(),
        &arn,
        Some(vec![TagInput::new("b", "2"), TagInput::new("a", "3")]),
    )
    .unwrap();
    let tags = s.list_tags_for_resource(&scope(), &arn).unwrap();
    assert_eq!(
        tags.iter()
            .map(|t| (t.key.as_str(), t.value.as_str()))
            .collect::<Vec<_>>(),
        [("a", "3"), ("b", "2")]
    );
    s.untag_resource(&scope(), &arn, Some(vec!["a".into(), "zz".into()]))
        .unwrap();
    assert_eq!(s.list_tags_for_resource(&scope(), &arn).unwrap().len(), 1);
    let too_many: Vec<TagInput> = (0..200)
        .map(|n| TagInput::new(format!("k{n}"), "v"))
        .collect();
    assert_eq!(
        s.tag_resource(&scope(), &arn, Some(too_many)),
        Err(Error::Validation(validate::too_many_tags(&arn)))
    );
    let other_region = Scope::new("000000000000", "eu-west-1");
    assert_eq!(
        s.list_tags_for_resource(&other_region, &arn),
        Err(Error::ResourceNotFound(
            "Schedule group g does not exist.".into()
        ))
    );
    assert_eq!(
        s.tag_resource(&scope(), &arn, None),
        Err(Error::Validation("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null".into()))
    );
    assert_eq!(
        s.untag_resource(&scope(), &arn, None),
        Err(Error::Validation("1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null".into()))
    );
    assert_eq!(
        s.untag_resource(
            &scope(),
            &arn,
            Some(vec!["aws:cloudformation:stack-name".into()])
        ),
        Err(Error::Validation(validate::reserved_tag_key(
            "aws:cloudformation:stack-name"
        )))
    );
}

#[test]
fn lookups_validate_their_names() {
    let app = app_with(None);
    let s = &app.scheduler;
    assert_eq!(
        s.get_schedule(&scope(), Some("bad group"), "s"),
        Err(Error::Validation("1 validation error detected: Value 'bad group' at 'groupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+".to_string()))
    );
    assert!(matches!(
        s.get_schedule_group(&scope(), &"g".repeat(65)),
        Err(Error::Validation(_))
    ));
    assert!(matches!(
        s.delete_schedule(&scope(), None, "s", Some("bad token!")),
        Err(Error::Validation(_))
    ));
    // The default group answers in a scope that has never been written to.
    let fresh = Scope::new("222222222222", "ap-southeast-2");
    assert_eq!(
        s.get_schedule_group(&fresh, "default").unwrap().state,
        ScheduleGroupState::Active
    );
}

/// A `Backend` that keeps rows in a map, as the SQLite store will.
#[derive(Default)]
struct MapBackend {
    rows: Mutex<BTreeMap<(String, String), String>>,
}

impl Backend for MapBackend {
    fn put(&self, table: Table, key: &str, json: String) {
        self.rows
            .lock()
            .unwrap()
            .insert((table.to_string(), key.to_string()), json);
    }
    fn delete(&self, table: Table, key: &str) {
        self.rows
            .lock()
            .unwrap()
            .remove(&(table.to_string(), key.to_string()));
    }
    fn wipe(&self) {
        self.rows.lock().unwrap().clear();
    }
    fn sync(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
    fn load(&self, table: Table) -> Vec<(String, String)> {
        self.rows
            .lock()
            .unwrap()
            .iter()
            .filter(|((t, _), _)| t == table)
            .map(|((_, k), v)| (k.clone(), v.clone()))
            .collect()
    }
}

#[test]
fn state_written_to_the_store_is_read_back_on_start() {
    let backend = Arc::new(MapBackend::default());
    let storage = Storage::with_backend(backend.clone());
    let app = app_with(Some(storage.clone()));
    let s = &app.scheduler;
    s.create_schedule_group(
        &scope(),
        CreateScheduleGroupInput {
            tags: Some(vec![TagInput::new("team", "a")]),
            ..group("g")
        },
    )
    .unwrap();
    let mut i = input(Some("g"), "s");
    i.schedule_expression_timezone = Some("Europe/Paris".into());
    i.description = Some("kept".into());
    i.target.as_mut().unwrap().ecs_parameters = Some(EcsParameters {
        task_definition_arn: Some("td".into()),
        tags: Some(vec![vec![("k".into(), "v".into())]]),
        ..Default::default()
    });
    s.create_schedule(&scope(), i).unwrap();
    s.create_schedule(&scope(), input(None, "gone")).unwrap();
    s.delete_schedule(&scope(), None, "gone", None).unwrap();
    let before = s.get_schedule(&scope(), Some("g"), "s").unwrap();

    let restarted = app_with(Some(storage));
    let r = &restarted.scheduler;
    let after = r.get_schedule(&scope(), Some("g"), "s").unwrap();
    assert_eq!(after, before);
    assert_eq!(after.schedule_expression_timezone(), "Europe/Paris");
    assert!(r.get_schedule(&scope(), None, "gone").is_err());
    let garn = schedule_group_arn(&scope(), "g");
    assert_eq!(r.list_tags_for_resource(&scope(), &garn).unwrap().len(), 1);
    // Generations continue after the highest one read back.
    r.create_schedule(&scope(), input(None, "new")).unwrap();
    assert!(r.get_schedule(&scope(), None, "new").unwrap().generation > after.generation);
    // Deleting the group deletes its rows.
    r.delete_schedule_group(&scope(), "g", None).unwrap();
    assert!(backend.load(store::GROUPS_TABLE).is_empty());
    assert_eq!(backend.load(store::SCHEDULES_TABLE).len(), 1);
}

#[test]
fn stored_previews_honour_the_window_zone_and_state() {
    let app = app_with(None);
    let s = &app.scheduler;
    let mut i = input(None, "pv");
    i.schedule_expression = Some("rate(10 minutes)".into());
    i.start_date = Some(t0() + Duration::minutes(30));
    i.end_date = Some(t0() + Duration::minutes(55));
    s.create_schedule(&scope(), i.clone()).unwrap();
    let fires = s.stored_preview(&scope(), "default", "pv", 10).unwrap();
    assert_eq!(
        fires.iter().map(|f| f.utc.as_str()).collect::<Vec<_>>(),
        [
            "2030-01-01T12:30:00Z",
            "2030-01-01T12:40:00Z",
            "2030-01-01T12:50:00Z"
        ]
    );
    let mut cron = input(None, "paris");
    cron.schedule_expression = Some("cron(0 9 * * ? *)".into());
    cron.schedule_expression_timezone = Some("Europe/Paris".into());
    s.create_schedule(&scope(), cron).unwrap();
    let fires = s.stored_preview(&scope(), "default", "paris", 1).unwrap();
    assert_eq!(fires[0].utc, "2030-01-02T08:00:00Z");
    assert_eq!(fires[0].local, "2030-01-02T09:00:00+01:00");
    i.state = Some("DISABLED".into());
    s.update_schedule(&scope(), i).unwrap();
    assert!(s
        .stored_preview(&scope(), "default", "pv", 10)
        .unwrap()
        .is_empty());
    assert_eq!(
        s.stored_preview(&scope(), "default", "nope", 1)
            .unwrap_err(),
        Error::ResourceNotFound("Schedule nope does not exist.".into())
    );
}

#[test]
fn the_schedule_quota_counts_every_group_of_a_scope() {
    let app = app_with(None);
    let s = Scheduler {
        deps: app.scheduler.deps.clone(),
        store: Arc::new(store::Store::new(Storage::memory()).with_max_schedules(2)),
        dispatch: app.scheduler.dispatch.clone(),
    };
    s.create_schedule_group(&scope(), group("g")).unwrap();
    s.create_schedule(&scope(), input(None, "a")).unwrap();
    s.create_schedule(&scope(), input(Some("g"), "b")).unwrap();
    assert_eq!(
        s.create_schedule(&scope(), input(Some("g"), "c")),
        Err(store::schedule_quota_exceeded())
    );
    assert!(s
        .create_schedule(&Scope::new("000000000000", "eu-west-1"), input(None, "c"))
        .is_ok());
    s.delete_schedule_group(&scope(), "g", None).unwrap();
    assert!(s.create_schedule(&scope(), input(None, "c")).is_ok());
}

#[test]
fn a_token_past_the_filtered_group_ends_the_listing() {
    let app = app_with(None);
    let s = &app.scheduler;
    for g in ["a", "b"] {
        s.create_schedule_group(&scope(), group(g)).unwrap();
        s.create_schedule(&scope(), input(Some(g), "x")).unwrap();
        s.create_schedule(&scope(), input(Some(g), "y")).unwrap();
    }
    let mut token = None;
    for _ in 0..3 {
        token = list(
            s,
            ListSchedulesInput {
                max_results: Some(1),
                next_token: token,
                ..Default::default()
            },
        )
        .next_token;
    }
    // The token now points into group b; listing group a from it yields nothing more.
    let page = list(
        s,
        ListSchedulesInput {
            group_name: Some("a".into()),
            next_token: token,
            ..Default::default()
        },
    );
    assert!(page.schedules.is_empty() && page.next_token.is_none());
}

#[test]
fn unreadable_stored_rows_are_skipped() {
    let backend = Arc::new(MapBackend::default());
    let storage = Storage::with_backend(backend.clone());
    backend.put(store::GROUPS_TABLE, "no-slashes", "{}".into());
    backend.put(
        store::GROUPS_TABLE,
        "000000000000/us-east-1/g",
        "not json".into(),
    );
    backend.put(
        store::SCHEDULES_TABLE,
        "000000000000/us-east-1/missing-group/s",
        "{}".into(),
    );
    let app = app_with(Some(storage.clone()));
    app.scheduler
        .create_schedule(&scope(), input(None, "s"))
        .unwrap();
    let mut orphan: serde_json::Value = serde_json::from_str(
        &backend
            .load(store::SCHEDULES_TABLE)
            .into_iter()
            .find(|(k, _)| k.ends_with("/default/s"))
            .unwrap()
            .1,
    )
    .unwrap();
    orphan["group_name"] = "gone".into();
    backend.put(
        store::SCHEDULES_TABLE,
        "000000000000/us-east-1/gone/s",
        orphan.to_string(),
    );
    backend.put(store::SCHEDULES_TABLE, "short", "{}".into());
    let restarted = app_with(Some(storage));
    assert_eq!(restarted.scheduler.schedules_snapshot().len(), 1);
    assert!(restarted
        .scheduler
        .get_schedule_group(&scope(), "g")
        .is_err());
}
