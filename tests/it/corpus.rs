//! Real public templates as input: the plain-CloudFormation ones of `../shared/corpus/`
//! (numbers 20, 21, 24, 27 and 34; `SOURCES.tsv` names their repositories) are deployed with
//! the parameter values each needs, must reach CREATE_COMPLETE with every logical id in
//! DescribeStackResources, and must delete cleanly (DELETE_COMPLETE, their resources gone from
//! the services). Template 34 (a CDK synth) checks the bootstrap version through an
//! `AWS::SSM::Parameter::Value<String>` parameter and a rule, so the SSM parameter
//! `/cdk-bootstrap/hnb659fds/version` is put first. The templates are read, never copied; when
//! the corpus folder is absent the test says so and passes without them.
//!
//! Our own examples in `templates/` (written for Cumulo) are deployed and deleted the same way.

use std::path::{Path, PathBuf};

use aws_sdk_cloudformation::types::{Capability, Parameter, StackStatus};
use aws_sdk_cloudformation::Client;
use cumulo::ids::Scope;

use crate::fixtures::outputs;
use crate::support::{corpus_dir, Emulator};

/// The corpus file whose name starts with `<number>__`, if the corpus is here.
fn corpus_file(number: &str) -> Option<PathBuf> {
    std::fs::read_dir(corpus_dir()?)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{number}__")))
        })
}

/// The logical ids of a template's Resources (YAML or JSON; CloudFormation's `!` tags are
/// read as tagged values).
fn logical_ids(body: &str) -> Vec<String> {
    let doc: serde_yaml::Value = serde_yaml::from_str(body).expect("the template parses");
    let mut ids: Vec<String> = doc
        .get("Resources")
        .and_then(serde_yaml::Value::as_mapping)
        .expect("a Resources mapping")
        .keys()
        .filter_map(|k| k.as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

/// Deploys `body` as `name` with `values`, checks every resource, deletes it; returns the
/// stack id.
async fn deploy_and_delete(
    cfn: &Client,
    name: &str,
    body: &str,
    values: &[(&str, &str)],
) -> String {
    let params: Vec<Parameter> = values
        .iter()
        .map(|(k, v)| {
            Parameter::builder()
                .parameter_key(*k)
                .parameter_value(*v)
                .build()
        })
        .collect();
    let id = cfn
        .create_stack()
        .stack_name(name)
        .template_body(body)
        .set_parameters(Some(params))
        .capabilities(Capability::CapabilityIam)
        .capabilities(Capability::CapabilityNamedIam)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{name}: CreateStack: {e:?}"))
        .stack_id()
        .unwrap()
        .to_string();
    let stack = crate::fixtures::describe(cfn, name).await;
    if stack.stack_status() != Some(&StackStatus::CreateComplete) {
        let events = crate::fixtures::events(cfn, name).await;
        panic!("{name}: {:?}\n{events:#?}", stack.stack_status());
    }
    let resources = cfn
        .describe_stack_resources()
        .stack_name(name)
        .send()
        .await
        .unwrap();
    let mut listed: Vec<String> = resources
        .stack_resources()
        .iter()
        .map(|r| {
            assert_eq!(
                r.resource_status().map(|s| s.as_str()),
                Some("CREATE_COMPLETE"),
                "{name}: {r:?}"
            );
            assert!(
                r.physical_resource_id().is_some_and(|p| !p.is_empty()),
                "{name}: {r:?}"
            );
            r.logical_resource_id().unwrap().to_string()
        })
        .collect();
    listed.sort();
    assert_eq!(listed, logical_ids(body), "{name}");

    cfn.delete_stack().stack_name(name).send().await.unwrap();
    let gone = cfn
        .describe_stacks()
        .stack_name(&id)
        .send()
        .await
        .unwrap()
        .stacks()[0]
        .clone();
    assert_eq!(
        gone.stack_status(),
        Some(&StackStatus::DeleteComplete),
        "{name}"
    );
    id
}

/// Nothing a stack made is left in the services.
async fn nothing_left(emu: &Emulator) {
    let scope = Scope::default_scope();
    let sqs = emu.sqs().await;
    let queues = sqs.list_queues().send().await.unwrap();
    assert!(queues.queue_urls().is_empty(), "{queues:?}");
    let scheduler = emu.scheduler().await;
    let schedules = scheduler.list_schedules().send().await.unwrap();
    assert!(schedules.schedules().is_empty(), "{schedules:?}");
    let groups = scheduler.list_schedule_groups().send().await.unwrap();
    let names: Vec<&str> = groups
        .schedule_groups()
        .iter()
        .filter_map(|g| g.name())
        .collect();
    assert_eq!(names, ["default"]);
    assert!(emu.app.iam.list_roles(&scope.account, None).is_empty());
    assert!(emu.app.iam.list_policies(&scope.account).is_empty());
    let sns = aws_sdk_sns::Client::new(&emu.sdk_config().await);
    assert!(sns.list_topics().send().await.unwrap().topics().is_empty());
    assert!(sns
        .list_subscriptions()
        .send()
        .await
        .unwrap()
        .subscriptions()
        .is_empty());
    assert!(emu.app.lambda.list_functions(&scope).is_empty());
}

#[tokio::test]
async fn the_plain_cloudformation_corpus_templates_deploy_and_delete() {
    if corpus_dir().is_none() {
        return;
    }
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let lambda = |name: &str| format!("arn:aws:lambda:us-east-1:000000000000:function:{name}");
    let (a, b, c, d, e) = (
        lambda("fetch-champion-mastery"),
        lambda("fetch-match-ids"),
        lambda("fetch-match-data"),
        lambda("fetch-player-stats"),
        lambda("process-match-data"),
    );
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("20", vec![]),
        (
            "21",
            vec![(
                "InstanceIds",
                "\"i-0123456789abcdef0\", \"i-0fedcba9876543210\"",
            )],
        ),
        (
            "24",
            vec![("Application", "tournament"), ("Environment", "dev")],
        ),
        (
            "27",
            vec![
                ("FetchChampionMasteryLambdaArn", a.as_str()),
                ("FetchMatchIDsLambdaArn", b.as_str()),
                ("FetchMatchDataLambdaArn", c.as_str()),
                ("FetchPlayerStatsLambdaArn", d.as_str()),
                ("ProcessMatchDataLambdaArn", e.as_str()),
                ("RestartDBInstanceId", "i-0123456789abcdef0"),
            ],
        ),
        ("34", vec![]),
    ];
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    ssm.put_parameter()
        .name("/cdk-bootstrap/hnb659fds/version")
        .value("21")
        .r#type(aws_sdk_ssm::types::ParameterType::String)
        .send()
        .await
        .unwrap();
    for (number, values) in cases {
        let path = corpus_file(number).unwrap_or_else(|| panic!("corpus template {number}"));
        let body = std::fs::read_to_string(&path).unwrap();
        deploy_and_delete(&cfn, &format!("corpus-{number}"), &body, &values).await;
        nothing_left(&emu).await;
    }
}

#[tokio::test]
async fn corpus_34_fails_its_rule_without_a_recent_bootstrap() {
    let Some(path) = corpus_file("34") else {
        return;
    };
    let body = std::fs::read_to_string(path).unwrap();
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let err = cfn
        .create_stack()
        .stack_name("cdk")
        .template_body(&body)
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        crate::fixtures::err(err).1,
        "Unable to fetch parameters [/cdk-bootstrap/hnb659fds/version] from parameter store for this account."
    );
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    ssm.put_parameter()
        .name("/cdk-bootstrap/hnb659fds/version")
        .value("5")
        .r#type(aws_sdk_ssm::types::ParameterType::String)
        .send()
        .await
        .unwrap();
    let err = cfn
        .create_stack()
        .stack_name("cdk")
        .template_body(&body)
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        crate::fixtures::err(err).1,
        "CDK bootstrap stack version 6 required. Please run 'cdk bootstrap' with a recent version of the CDK CLI."
    );
}

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("templates")
            .join(name),
    )
    .unwrap()
}

/// CreateStack with CAPABILITY_IAM, which must end CREATE_COMPLETE (else the events show why).
async fn create(cfn: &Client, name: &str, body: &str) {
    let st = crate::fixtures::create_iam(cfn, name, body, &[]).await;
    if st != StackStatus::CreateComplete {
        let events = crate::fixtures::events(cfn, name).await;
        panic!("{name}: {st:?}\n{events:#?}");
    }
}

async fn delete(cfn: &Client, name: &str) {
    assert!(crate::fixtures::remove(cfn, name).await, "{name}");
}

async fn invocations(emu: &Emulator, schedule_arn: &str) -> Vec<serde_json::Value> {
    let (status, body) = emu
        .control(
            "GET",
            &format!("/_cumulo/scheduler/invocations?schedule_arn={schedule_arn}"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["invocations"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn schedule_to_sns_example_fans_each_tick_out_to_the_queue() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let body = example("schedule-to-sns.yaml");
    create(&cfn, "fan-out", &body).await;
    let out = outputs(&cfn, "fan-out").await;
    emu.set_clock(crate::support::t0() + chrono::Duration::seconds(30))
        .await;
    let sqs = emu.sqs().await;
    let got = sqs
        .receive_message()
        .queue_url(&out["InboxUrl"])
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let bodies: Vec<&str> = got.messages().iter().filter_map(|m| m.body()).collect();
    assert_eq!(
        bodies,
        ["tick"],
        "the schedule published through the topic, raw"
    );
    delete(&cfn, "fan-out").await;
    nothing_left(&emu).await;
}

#[tokio::test]
async fn schedule_to_lambda_example_invokes_the_function_it_made() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let body = example("schedule-to-lambda.yaml");
    cfn.create_stack()
        .stack_name("nightly")
        .template_body(&body)
        .parameters(
            Parameter::builder()
                .parameter_key("Expression")
                .parameter_value("rate(5 minutes)")
                .build(),
        )
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap();
    let stack = crate::fixtures::describe(&cfn, "nightly").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::CreateComplete));
    let out = outputs(&cfn, "nightly").await;
    let function = emu
        .app
        .lambda
        .get_function(&Scope::default_scope(), &out["FunctionName"])
        .unwrap();
    assert_eq!(function.function_arn, out["FunctionArn"]);
    assert_eq!(function.environment["STACK"], "nightly");
    assert_eq!(function.policy[0].principal, "scheduler.amazonaws.com");
    emu.set_clock(crate::support::t0() + chrono::Duration::minutes(20))
        .await;
    let invs = invocations(&emu, &out["ScheduleArn"]).await;
    assert!(!invs.is_empty());
    for inv in &invs {
        assert_eq!(inv["outcome"], "delivered", "{inv}");
        assert_eq!(inv["request"]["FunctionName"], out["FunctionArn"].as_str());
    }
    delete(&cfn, "nightly").await;
    nothing_left(&emu).await;
}

#[tokio::test]
async fn ssm_driven_example_reads_the_expression_another_stack_wrote() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let writer = |value: &str| {
        format!(
            "Resources:\n  Expression:\n    Type: AWS::SSM::Parameter\n    Properties: {{Name: /cumulo/examples/expression, Type: String, Value: '{value}'}}\n"
        )
    };
    create(&cfn, "settings", &writer("rate(15 minutes)")).await;
    let body = example("ssm-driven-schedule.yaml");
    create(&cfn, "cadence", &body).await;
    let out = outputs(&cfn, "cadence").await;
    assert_eq!(out["Expression"], "rate(15 minutes)");
    assert_eq!(
        out["WorkQueueUrlParameter"],
        "/cumulo/cadence/work-queue-url"
    );
    assert!(
        out["PublishedUrl"].contains("/000000000000/cadence-Work-"),
        "{}",
        out["PublishedUrl"]
    );
    let stack = crate::fixtures::describe(&cfn, "cadence").await;
    let p = &stack.parameters()[0];
    assert_eq!(p.parameter_value(), Some("/cumulo/examples/expression"));
    assert_eq!(p.resolved_value(), Some("rate(15 minutes)"));
    let scheduler = emu.scheduler().await;
    let expression = |s: aws_sdk_scheduler::operation::get_schedule::GetScheduleOutput| {
        s.schedule_expression().unwrap_or_default().to_string()
    };
    let got = scheduler
        .get_schedule()
        .name(&out["ScheduleName"])
        .send()
        .await
        .unwrap();
    assert_eq!(expression(got), "rate(15 minutes)");

    // The writer changes the value; the reader's next update reads it again.
    cfn.update_stack()
        .stack_name("settings")
        .template_body(writer("rate(30 minutes)"))
        .send()
        .await
        .unwrap();
    cfn.update_stack()
        .stack_name("cadence")
        .use_previous_template(true)
        .parameters(
            Parameter::builder()
                .parameter_key("ExpressionParameter")
                .use_previous_value(true)
                .build(),
        )
        .capabilities(Capability::CapabilityIam)
        .send()
        .await
        .unwrap();
    let stack = crate::fixtures::describe(&cfn, "cadence").await;
    assert_eq!(stack.stack_status(), Some(&StackStatus::UpdateComplete));
    let got = scheduler
        .get_schedule()
        .name(&out["ScheduleName"])
        .send()
        .await
        .unwrap();
    assert_eq!(expression(got), "rate(30 minutes)");

    delete(&cfn, "cadence").await;
    delete(&cfn, "settings").await;
    nothing_left(&emu).await;
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    assert!(ssm
        .get_parameter()
        .name("/cumulo/examples/expression")
        .send()
        .await
        .is_err());
}
