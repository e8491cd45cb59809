//! The stack lifecycle property (issue 11): random sequences of stack operations — create
//! (with OnFailure), update (in place and by replacement, with DisableRollback), a fault on
//! any step (`create`, `update`, `delete`, `restore`), an update held by a fault and cancelled,
//! ContinueUpdateRollback (with and without ResourcesToSkip), RollbackStack, delete (with
//! RetainResources or FORCE_DELETE_STACK from DELETE_FAILED), and a `kill -9` restart, also in
//! the middle of a held operation — run against the real binary on a data directory. After
//! every step:
//! - the store refused no status change (the binary logs each refusal; none may appear);
//! - every stack's event log is one AWS can show: increasing timestamps and unique ids; stack
//!   statuses along the edges of the stack machine from CREATE_IN_PROGRESS; resource events
//!   only in the stack phases that have them (CREATE_* while creating, UPDATE_* and CREATE_*
//!   while updating, UPDATE_* while rolling an update back, DELETE_* in cleanups and deletes);
//!   each resource's statuses along the edges of the resource machine (a repeated
//!   CREATE_IN_PROGRESS / UPDATE_IN_PROGRESS is an event, not an edge; a deletion ends a
//!   resource, which may be created again; the cleanup of a replaced copy is its own short
//!   DELETE sequence on the old physical id);
//! - each resource's status as ListStackResources shows it is the status its events end in;
//! - the stack is never left `*_IN_PROGRESS` once the call answered.
//!
//! Bounded (12 cases of at most four steps, about 5 s; `PROPTEST_CASES=<n>` runs more, 300
//! take about two minutes), with a fixed sequence that takes every kind of step at least once.
//! `LIFE_LOG=1` prints each case's steps and outcomes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use aws_sdk_cloudformation::error::ProvideErrorMetadata;
use aws_sdk_cloudformation::types::{DeletionMode, OnFailure, StackStatus};
use aws_sdk_cloudformation::Client;
use cumulo::cloudformation::{ResourceStatus, StackStatus as Machine};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::json;

use crate::fixtures::resources_in;
use crate::process::{DataDir, Proc};

const STACK: &str = "life";
const SLOTS: usize = 3;
const CLOCK: &str = "2030-01-01T00:00:00Z";

/// One queue of the model: `Q<slot>` named after `name` (a new name replaces the queue) with
/// VisibilityTimeout `30 + timeout` (changed in place).
#[derive(Clone, Debug, PartialEq)]
struct Slot {
    name: u8,
    timeout: u8,
}

type Model = Vec<Option<Slot>>;

/// A step a fault fails (or holds).
#[derive(Clone, Debug)]
struct Fault {
    slot: usize,
    operation: &'static str,
}

#[derive(Clone, Debug)]
enum Step {
    Create {
        model: Model,
        fault: Option<Fault>,
        on_failure: OnFailure,
    },
    Update {
        model: Model,
        faults: Vec<Fault>,
        disable_rollback: bool,
    },
    /// An update held by a fault's hold on `slot`, then cancelled (or the process killed).
    HeldUpdate {
        model: Model,
        slot: usize,
        cancel: bool,
    },
    /// A delete held by a fault's hold on `slot`, then the process killed.
    HeldDelete {
        slot: usize,
    },
    ContinueRollback {
        skip: bool,
    },
    RollbackStack,
    Delete {
        fault: Option<usize>,
        retain: bool,
        force: bool,
    },
    Restart,
}

fn slot() -> impl Strategy<Value = Slot> {
    (0u8..2, 0u8..3).prop_map(|(name, timeout)| Slot { name, timeout })
}

fn model() -> impl Strategy<Value = Model> {
    proptest::collection::vec(proptest::option::weighted(0.8, slot()), SLOTS)
}

fn fault(operations: Vec<&'static str>) -> impl Strategy<Value = Fault> {
    (0..SLOTS, prop::sample::select(operations))
        .prop_map(|(slot, operation)| Fault { slot, operation })
}

fn step() -> impl Strategy<Value = Step> {
    let on_failure = prop::sample::select(vec![
        OnFailure::Rollback,
        OnFailure::DoNothing,
        OnFailure::Delete,
    ]);
    prop_oneof![
        1 => (
            model(),
            proptest::option::weighted(0.5, fault(vec!["create"])),
            on_failure
        )
            .prop_map(|(model, fault, on_failure)| Step::Create {
                model,
                fault,
                on_failure
            }),
        4 => (
            model(),
            proptest::collection::vec(fault(vec!["create", "update", "delete", "restore"]), 0..3),
            proptest::bool::weighted(0.25)
        )
            .prop_map(|(model, faults, disable_rollback)| Step::Update {
                model,
                faults,
                disable_rollback
            }),
        2 => (model(), 0..SLOTS, any::<bool>()).prop_map(|(model, slot, cancel)| Step::HeldUpdate {
            model,
            slot,
            cancel
        }),
        1 => (0..SLOTS).prop_map(|slot| Step::HeldDelete { slot }),
        2 => any::<bool>().prop_map(|skip| Step::ContinueRollback { skip }),
        1 => Just(Step::RollbackStack),
        2 => (
            proptest::option::weighted(0.4, 0..SLOTS),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(fault, retain, force)| Step::Delete {
                fault,
                retain,
                force
            }),
        1 => Just(Step::Restart),
    ]
}

/// The template of `model`: a wait-condition handle and one queue per slot.
fn template(model: &Model) -> String {
    let mut t =
        String::from("Resources:\n  Handle:\n    Type: AWS::CloudFormation::WaitConditionHandle\n");
    for (i, s) in model.iter().enumerate() {
        let Some(s) = s else { continue };
        let _ = write!(
            t,
            "  Q{i}:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Sub '${{AWS::StackName}}-q{i}-{}'\n      VisibilityTimeout: {}\n",
            s.name,
            30 + u32::from(s.timeout)
        );
    }
    t
}

/// An event as the checks read it.
#[derive(Clone, Debug)]
struct Event {
    id: String,
    logical: String,
    physical: String,
    resource_type: String,
    status: String,
    at: (i64, u32),
}

/// A failed property check.
macro_rules! check {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(format!($($arg)*));
        }
    };
}

/// The resource statuses a stack phase may show.
fn allowed_in(phase: &str, status: &str) -> bool {
    match phase {
        "CREATE_IN_PROGRESS" => status.starts_with("CREATE_"),
        "UPDATE_IN_PROGRESS" => status.starts_with("CREATE_") || status.starts_with("UPDATE_"),
        "UPDATE_ROLLBACK_IN_PROGRESS" => status.starts_with("UPDATE_"),
        "ROLLBACK_IN_PROGRESS"
        | "DELETE_IN_PROGRESS"
        | "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS"
        | "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS" => status.starts_with("DELETE_"),
        _ => false,
    }
}

/// One resource's events so far: its last status and physical id.
#[derive(Default)]
struct Chain {
    status: Option<String>,
    physical: String,
}

/// Whether `events` (oldest first) is a log AWS can show, and `resources` ((logical id,
/// status) as ListStackResources shows them) the statuses it ends in.
fn valid_log(events: &[Event], resources: &[(String, String)]) -> Result<(), String> {
    let stack = &events.first().ok_or("no events")?.logical;
    let mut ids = BTreeSet::new();
    let mut phase: Option<String> = None;
    let mut chains: BTreeMap<String, Chain> = BTreeMap::new();
    let mut displaced: BTreeMap<(String, String), String> = BTreeMap::new();
    for (n, e) in events.iter().enumerate() {
        check!(ids.insert(e.id.clone()), "event id {} repeated", e.id);
        if n > 0 {
            check!(
                events[n - 1].at < e.at,
                "event {n} not after the one before: {e:?}"
            );
        }
        if e.resource_type == "AWS::CloudFormation::Stack" && &e.logical == stack {
            let to = Machine::parse(&e.status).ok_or(format!("stack status {}", e.status))?;
            match phase.as_deref().and_then(Machine::parse) {
                None => check!(to.is_initial(), "the first stack event is {}", e.status),
                Some(from) => check!(from.transition(to).is_ok(), "stack {} -> {}", from, to),
            }
            phase = Some(e.status.clone());
            // A displaced copy's DELETE sequence lives within one phase.
            displaced.clear();
            continue;
        }
        let now = phase.as_deref().unwrap_or("");
        check!(
            allowed_in(now, &e.status),
            "{} {} while the stack is {now}",
            e.logical,
            e.status
        );
        let chain = chains.entry(e.logical.clone()).or_default();
        let other_copy = e.status.starts_with("DELETE_")
            && !chain.physical.is_empty()
            && !e.physical.is_empty()
            && e.physical != chain.physical
            && now != "CREATE_IN_PROGRESS";
        if other_copy {
            // The old copy of a replaced resource (or a rollback's new one): its own sequence.
            let key = (e.logical.clone(), e.physical.clone());
            let before = displaced.get(&key).map(String::as_str);
            let ok = matches!(
                (before, e.status.as_str()),
                (None, "DELETE_IN_PROGRESS" | "DELETE_SKIPPED")
                    | (
                        Some("DELETE_IN_PROGRESS"),
                        "DELETE_COMPLETE" | "DELETE_FAILED"
                    )
            );
            check!(ok, "{key:?}: {before:?} -> {}", e.status);
            displaced.insert(key, e.status.clone());
            continue;
        }
        let to = ResourceStatus::parse(&e.status).ok_or(format!("status {}", e.status))?;
        match chain.status.as_deref() {
            None | Some("DELETE_COMPLETE" | "DELETE_SKIPPED" | "DELETE_FAILED")
                if to == ResourceStatus::CreateInProgress => {}
            Some(same)
                if same == e.status
                    && matches!(
                        to,
                        ResourceStatus::CreateInProgress | ResourceStatus::UpdateInProgress
                    ) => {}
            Some(from) => {
                let from = ResourceStatus::parse(from).ok_or("status")?;
                check!(
                    from.transition(to).is_ok(),
                    "{}: {} -> {}",
                    e.logical,
                    from,
                    to
                );
            }
            None => return Err(format!("{} starts with {}", e.logical, e.status)),
        }
        chain.status = Some(e.status.clone());
        if !e.physical.is_empty() {
            chain.physical = e.physical.clone();
        }
    }
    if let Some(now) = &phase {
        check!(
            !now.ends_with("_IN_PROGRESS") || now == "REVIEW_IN_PROGRESS",
            "the stack was left {now}"
        );
    }
    for (logical, status) in resources {
        let ended = chains.get(logical).and_then(|c| c.status.as_deref());
        check!(
            ended == Some(status.as_str()),
            "{logical} is {status} but its events end in {ended:?}"
        );
    }
    Ok(())
}

struct Case {
    dir: DataDir,
    proc: Option<Proc>,
    cfn: Client,
    model: Option<Model>,
    /// Every stack id the case made.
    stacks: Vec<String>,
    log: String,
}

impl Case {
    async fn start(n: usize) -> Case {
        let dir = DataDir::new(&format!("life-{n}"));
        let proc = Proc::start(&dir.0, CLOCK);
        let cfn = proc.cloudformation().await;
        Case {
            dir,
            proc: Some(proc),
            cfn,
            model: None,
            stacks: Vec::new(),
            log: String::new(),
        }
    }

    fn proc(&self) -> &Proc {
        self.proc.as_ref().expect("running")
    }

    async fn restart(&mut self) {
        if let Some(p) = self.proc.take() {
            p.kill9();
        }
        let proc = Proc::start(&self.dir.0, CLOCK);
        self.cfn = proc.cloudformation().await;
        self.proc = Some(proc);
    }

    async fn fault(&self, slot: usize, operation: &str, hold: bool) {
        let mut rule =
            json!({"stack_name": STACK, "logical_id": format!("Q{slot}"), "operation": operation});
        if hold {
            rule["hold_seconds"] = json!(30);
        } else {
            rule["message"] = json!(format!("injected {operation}"));
        }
        let (code, body) = self
            .proc()
            .control("POST", "/_cumulo/faults", Some(rule))
            .await;
        assert_eq!(code, 201, "{body}");
    }

    async fn status(&self) -> Option<StackStatus> {
        let out = self
            .cfn
            .describe_stacks()
            .stack_name(STACK)
            .send()
            .await
            .ok()?;
        out.stacks().first()?.stack_status().cloned()
    }

    /// Records the outcome of a call: an error must be a client error AWS gives.
    fn outcome<T, E: ProvideErrorMetadata + std::fmt::Debug>(
        &mut self,
        what: &str,
        result: Result<T, E>,
    ) -> Result<(), String> {
        match result {
            Ok(_) => {
                let _ = writeln!(self.log, "  {what}: ok");
            }
            Err(e) => {
                let code = e.code().unwrap_or_default().to_string();
                let _ = writeln!(
                    self.log,
                    "  {what}: {code} {}",
                    e.message().unwrap_or_default()
                );
                check!(
                    matches!(code.as_str(), "ValidationError" | "AlreadyExistsException"),
                    "{what} failed with {e:?}"
                );
            }
        }
        Ok(())
    }

    async fn run(&mut self, step: &Step) -> Result<(), String> {
        let _ = writeln!(self.log, "{step:?}");
        self.proc().control("DELETE", "/_cumulo/faults", None).await;
        match step {
            Step::Create {
                model,
                fault,
                on_failure,
            } => {
                if let Some(f) = fault {
                    self.fault(f.slot, f.operation, false).await;
                }
                let r = self
                    .cfn
                    .create_stack()
                    .stack_name(STACK)
                    .template_body(template(model))
                    .on_failure(on_failure.clone())
                    .send()
                    .await;
                if r.is_ok() {
                    self.model = Some(model.clone());
                }
                self.outcome("CreateStack", r)?;
            }
            Step::Update {
                model,
                faults,
                disable_rollback,
            } => {
                for f in faults {
                    self.fault(f.slot, f.operation, false).await;
                }
                self.update(model, *disable_rollback).await?;
            }
            Step::HeldUpdate {
                model,
                slot,
                cancel,
            } => {
                self.fault(*slot, "update", true).await;
                self.update(model, false).await?;
                if *cancel {
                    let r = self
                        .cfn
                        .cancel_update_stack()
                        .stack_name(STACK)
                        .send()
                        .await;
                    self.outcome("CancelUpdateStack", r)?;
                } else {
                    self.restart().await;
                }
            }
            Step::HeldDelete { slot } => {
                self.fault(*slot, "delete", true).await;
                let r = self.cfn.delete_stack().stack_name(STACK).send().await;
                self.outcome("DeleteStack", r)?;
                self.restart().await;
            }
            Step::ContinueRollback { skip } => self.continue_rollback(*skip).await?,
            Step::RollbackStack => {
                let r = self.cfn.rollback_stack().stack_name(STACK).send().await;
                self.outcome("RollbackStack", r)?;
            }
            Step::Delete {
                fault,
                retain,
                force,
            } => self.delete(*fault, *retain, *force).await?,
            Step::Restart => self.restart().await,
        }
        self.note_stack().await;
        let now = self.status().await;
        let _ = writeln!(self.log, "  -> {now:?}");
        self.check().await
    }

    async fn update(&mut self, model: &Model, disable_rollback: bool) -> Result<(), String> {
        let r = self
            .cfn
            .update_stack()
            .stack_name(STACK)
            .template_body(template(model))
            .disable_rollback(disable_rollback)
            .send()
            .await;
        self.outcome("UpdateStack", r)
    }

    async fn continue_rollback(&mut self, skip: bool) -> Result<(), String> {
        let failed = resources_in(&self.cfn, STACK, "UPDATE_FAILED").await;
        let r = self
            .cfn
            .continue_update_rollback()
            .stack_name(STACK)
            .set_resources_to_skip(Some(if skip { failed } else { Vec::new() }))
            .send()
            .await;
        self.outcome("ContinueUpdateRollback", r)
    }

    async fn delete(
        &mut self,
        fault: Option<usize>,
        retain: bool,
        force: bool,
    ) -> Result<(), String> {
        if let Some(slot) = fault {
            self.fault(slot, "delete", false).await;
        }
        let mut call = self.cfn.delete_stack().stack_name(STACK);
        if self.status().await == Some(StackStatus::DeleteFailed) {
            if force {
                call = call.deletion_mode(DeletionMode::ForceDeleteStack);
            } else if retain {
                let failed = resources_in(&self.cfn, STACK, "DELETE_FAILED").await;
                call = call.set_retain_resources(Some(failed));
            }
        }
        let r = call.send().await;
        self.outcome("DeleteStack", r)
    }

    /// Remembers the id of the stack now named `STACK`.
    async fn note_stack(&mut self) {
        let Ok(out) = self.cfn.describe_stacks().stack_name(STACK).send().await else {
            return;
        };
        if let Some(id) = out.stacks().first().and_then(|s| s.stack_id()) {
            if !self.stacks.iter().any(|s| s == id) {
                self.stacks.push(id.to_string());
            }
        }
    }

    /// The checks of the module doc, for every stack the case made.
    async fn check(&self) -> Result<(), String> {
        let log = self.proc().log();
        check!(
            !log.contains("refused status change"),
            "the store refused a status change:\n{log}"
        );
        for id in &self.stacks {
            let events = self.events(id).await?;
            let resources: Vec<(String, String)> = self
                .cfn
                .list_stack_resources()
                .stack_name(id)
                .send()
                .await
                .map_err(|e| format!("{e:?}"))?
                .stack_resource_summaries()
                .iter()
                .map(|r| {
                    (
                        r.logical_resource_id().unwrap_or_default().to_string(),
                        r.resource_status()
                            .map(|s| s.as_str().to_string())
                            .unwrap_or_default(),
                    )
                })
                .collect();
            valid_log(&events, &resources).map_err(|e| {
                let shown: Vec<String> = events
                    .iter()
                    .map(|e| format!("{} {} {}", e.logical, e.status, e.physical))
                    .collect();
                format!("{e}\nevents:\n{}", shown.join("\n"))
            })?;
        }
        Ok(())
    }

    async fn events(&self, id: &str) -> Result<Vec<Event>, String> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .cfn
                .describe_stack_events()
                .stack_name(id)
                .set_next_token(token)
                .send()
                .await
                .map_err(|e| format!("{e:?}"))?;
            for e in page.stack_events() {
                let at = e.timestamp().ok_or("no timestamp")?;
                out.push(Event {
                    id: e.event_id().unwrap_or_default().to_string(),
                    logical: e.logical_resource_id().unwrap_or_default().to_string(),
                    physical: e.physical_resource_id().unwrap_or_default().to_string(),
                    resource_type: e.resource_type().unwrap_or_default().to_string(),
                    status: e
                        .resource_status()
                        .map(|s| s.as_str().to_string())
                        .unwrap_or_default(),
                    at: (at.secs(), at.subsec_nanos()),
                });
            }
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        out.reverse();
        Ok(out)
    }
}

async fn run(n: usize, steps: &[Step]) -> Result<(), String> {
    let mut case = Case::start(n).await;
    for step in steps {
        if let Err(e) = case.run(step).await {
            return Err(format!("{}\n{e}", case.log));
        }
    }
    if std::env::var_os("LIFE_LOG").is_some() {
        eprintln!("{}", case.log);
    }
    Ok(())
}

#[test]
fn random_operation_sequences_take_only_legal_edges_and_show_aws_event_logs() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut runner = TestRunner::new(Config {
        // PROPTEST_CASES=<n> explores further (e.g. after changing the engine).
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(12),
        failure_persistence: None,
        max_shrink_iters: 100,
        ..Config::default()
    });
    let first = (
        model(),
        proptest::option::weighted(0.3, fault(vec!["create"])),
    );
    let strategy = (first, proptest::collection::vec(step(), 1..=4));
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let result = runner.run(&strategy, |((start, fault), steps)| {
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut all = vec![Step::Create {
            model: start,
            fault,
            on_failure: OnFailure::Rollback,
        }];
        all.extend(steps);
        rt.block_on(run(n, &all)).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Every kind of step at least once, whatever the random draw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sequence_of_every_kind_of_step_keeps_the_lifecycle_legal() {
    let q = |name, timeout| Some(Slot { name, timeout });
    let steps = [
        Step::Create {
            model: vec![q(0, 0), q(0, 0), None],
            fault: None,
            on_failure: OnFailure::Rollback,
        },
        Step::HeldUpdate {
            model: vec![q(0, 1), q(0, 0), None],
            slot: 0,
            cancel: true,
        },
        Step::Update {
            model: vec![q(1, 1), q(0, 2), q(0, 0)],
            faults: vec![
                Fault {
                    slot: 2,
                    operation: "create",
                },
                Fault {
                    slot: 1,
                    operation: "restore",
                },
            ],
            disable_rollback: false,
        },
        Step::ContinueRollback { skip: true },
        Step::Update {
            model: vec![q(0, 2), None, None],
            faults: vec![Fault {
                slot: 0,
                operation: "update",
            }],
            disable_rollback: true,
        },
        Step::RollbackStack,
        Step::HeldUpdate {
            model: vec![q(0, 1), q(1, 0), None],
            slot: 0,
            cancel: false,
        },
        Step::Delete {
            fault: Some(1),
            retain: false,
            force: false,
        },
        Step::Restart,
        Step::Delete {
            fault: None,
            retain: false,
            force: true,
        },
        Step::Create {
            model: vec![None, q(1, 1), None],
            fault: Some(Fault {
                slot: 1,
                operation: "create",
            }),
            on_failure: OnFailure::DoNothing,
        },
        Step::RollbackStack,
        Step::HeldDelete { slot: 1 },
        Step::Delete {
            fault: None,
            retain: true,
            force: false,
        },
    ];
    if let Err(e) = run(1000, &steps).await {
        panic!("{e}");
    }
}

#[test]
fn the_log_check_refuses_what_aws_never_shows() {
    let ev = |n: u32, logical: &str, status: &str, physical: &str| Event {
        id: format!("e{n}"),
        logical: logical.into(),
        physical: physical.into(),
        resource_type: if logical == "s" {
            "AWS::CloudFormation::Stack".into()
        } else {
            "AWS::SQS::Queue".into()
        },
        status: status.into(),
        at: (0, n),
    };
    let good = vec![
        ev(1, "s", "CREATE_IN_PROGRESS", "id"),
        ev(2, "Q", "CREATE_IN_PROGRESS", ""),
        ev(3, "Q", "CREATE_IN_PROGRESS", "q1"),
        ev(4, "Q", "CREATE_COMPLETE", "q1"),
        ev(5, "s", "CREATE_COMPLETE", "id"),
        ev(6, "s", "UPDATE_IN_PROGRESS", "id"),
        ev(7, "Q", "UPDATE_IN_PROGRESS", "q1"),
        ev(8, "Q", "UPDATE_IN_PROGRESS", "q2"),
        ev(9, "Q", "UPDATE_COMPLETE", "q2"),
        ev(10, "s", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "id"),
        ev(11, "Q", "DELETE_IN_PROGRESS", "q1"),
        ev(12, "Q", "DELETE_COMPLETE", "q1"),
        ev(13, "s", "UPDATE_COMPLETE", "id"),
    ];
    let resources = vec![("Q".to_string(), "UPDATE_COMPLETE".to_string())];
    assert_eq!(valid_log(&good, &resources), Ok(()));
    let mut bad = good.clone();
    bad[3].status = "UPDATE_COMPLETE".into();
    assert!(
        valid_log(&bad, &resources).is_err(),
        "CREATE_IN_PROGRESS -> UPDATE_COMPLETE"
    );
    let mut bad = good.clone();
    bad[10].physical = "q2".into();
    assert!(
        valid_log(&bad, &resources).is_err(),
        "the live copy deleted at cleanup"
    );
    let mut bad = good.clone();
    bad[4].at = (0, 3);
    assert!(valid_log(&bad, &resources).is_err(), "equal timestamps");
    let mut bad = good.clone();
    bad.truncate(12);
    assert!(valid_log(&bad, &resources).is_err(), "left in progress");
    assert!(
        valid_log(&good, &[("Q".to_string(), "CREATE_COMPLETE".to_string())]).is_err(),
        "records and events disagree"
    );
}
