//! The fixtures every CloudFormation test shares: one helper set for stacks over the AWS SDK
//! for Rust (create, update, delete, describe, status, events, outputs, physical ids, faults,
//! waiting for a held operation), the errors the SDK returns as (code, message), and raw
//! awsQuery forms for wire-level checks ([`Form`]). Templates are files under
//! `tests/templates/` (and the examples under `templates/`), read with `include_str!`.

#![allow(dead_code)]

use std::collections::HashMap;

use aws_sdk_cloudformation::error::ProvideErrorMetadata;
use aws_sdk_cloudformation::types::{Capability, Parameter, Stack, StackStatus};
use aws_sdk_cloudformation::Client;
use cumulo::clock::Clock;
use cumulo::config::UnsupportedResources;
use cumulo::Config;
use serde_json::Value;

use crate::support::{t0, Emulator};

/// An event as the tests compare them: (logical id, status, physical id, reason).
pub type Event = (String, String, String, String);

/// An emulator that stores registry types without a provider as placeholders
/// (`CUMULO_CFN_UNSUPPORTED=placeholder`), so a test exercises the engine alone.
pub async fn placeholder_emulator() -> Emulator {
    Emulator::start_with(
        Config {
            cfn_unsupported: UnsupportedResources::Placeholder,
            ..Config::default()
        },
        Clock::manual_at(t0()),
    )
    .await
}

/// (code, message) of a failed call.
pub fn err<E: ProvideErrorMetadata, R: std::fmt::Debug>(
    e: aws_sdk_cloudformation::error::SdkError<E, R>,
) -> (String, String) {
    (
        e.code().unwrap_or_default().to_string(),
        e.message().unwrap_or_default().to_string(),
    )
}

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

/// DescribeStacks of one stack.
pub async fn describe(cfn: &Client, name: &str) -> Stack {
    cfn.describe_stacks()
        .stack_name(name)
        .send()
        .await
        .expect("describe stack")
        .stacks()[0]
        .clone()
}

/// The stack's status.
pub async fn status(cfn: &Client, name: &str) -> StackStatus {
    describe(cfn, name)
        .await
        .stack_status()
        .cloned()
        .expect("status")
}

/// The stack's id.
pub async fn stack_id(cfn: &Client, name: &str) -> String {
    describe(cfn, name)
        .await
        .stack_id()
        .expect("stack id")
        .to_string()
}

/// Every event of a stack, oldest first.
pub async fn events(cfn: &Client, name: &str) -> Vec<Event> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = cfn
            .describe_stack_events()
            .stack_name(name)
            .set_next_token(token.clone())
            .send()
            .await
            .expect("events");
        for e in page.stack_events() {
            out.push((
                e.logical_resource_id().unwrap_or_default().to_string(),
                e.resource_status()
                    .map(|s| s.as_str().to_string())
                    .unwrap_or_default(),
                e.physical_resource_id().unwrap_or_default().to_string(),
                e.resource_status_reason().unwrap_or_default().to_string(),
            ));
        }
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    out.reverse();
    out
}

/// The statuses of one logical id's events, oldest first.
pub fn statuses(events: &[Event], logical_id: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.0 == logical_id)
        .map(|e| e.1.clone())
        .collect()
}

/// CreateStack of `body` with `values` and `capabilities`; the status once the call answers.
async fn create_stack_with(
    cfn: &Client,
    name: &str,
    body: &str,
    values: &[(&str, &str)],
    capabilities: &[Capability],
) -> StackStatus {
    cfn.create_stack()
        .stack_name(name)
        .template_body(body)
        .set_parameters(params(values))
        .set_capabilities(Some(capabilities.to_vec()))
        .send()
        .await
        .expect("create stack");
    status(cfn, name).await
}

/// UpdateStack to `body` with `values` and `capabilities`; the status once the call answers.
async fn update_stack_with(
    cfn: &Client,
    name: &str,
    body: &str,
    values: &[(&str, &str)],
    capabilities: &[Capability],
) -> StackStatus {
    cfn.update_stack()
        .stack_name(name)
        .template_body(body)
        .set_parameters(params(values))
        .set_capabilities(Some(capabilities.to_vec()))
        .send()
        .await
        .expect("update stack");
    status(cfn, name).await
}

/// The IAM capabilities, for templates with IAM resources.
const IAM: [Capability; 2] = [Capability::CapabilityIam, Capability::CapabilityNamedIam];

/// CreateStack of `body` with `values`; the status once the call answers.
pub async fn create(cfn: &Client, name: &str, body: &str, values: &[(&str, &str)]) -> StackStatus {
    create_stack_with(cfn, name, body, values, &[]).await
}

/// CreateStack acknowledging the IAM capabilities; the status once the call answers.
pub async fn create_iam(
    cfn: &Client,
    name: &str,
    body: &str,
    values: &[(&str, &str)],
) -> StackStatus {
    create_stack_with(cfn, name, body, values, &IAM).await
}

/// CreateStack of `body` without parameters; the StackId it answers.
pub async fn create_stack(cfn: &Client, name: &str, body: &str) -> String {
    cfn.create_stack()
        .stack_name(name)
        .template_body(body)
        .send()
        .await
        .expect("create stack")
        .stack_id()
        .unwrap_or_default()
        .to_string()
}

/// UpdateStack to `body` with `values`; the status once the call answers.
pub async fn update(cfn: &Client, name: &str, body: &str, values: &[(&str, &str)]) -> StackStatus {
    update_stack_with(cfn, name, body, values, &[]).await
}

/// UpdateStack acknowledging the IAM capabilities; the status once the call answers.
pub async fn update_iam(
    cfn: &Client,
    name: &str,
    body: &str,
    values: &[(&str, &str)],
) -> StackStatus {
    update_stack_with(cfn, name, body, values, &IAM).await
}

/// DeleteStack; true when the stack is gone.
pub async fn remove(cfn: &Client, name: &str) -> bool {
    cfn.delete_stack()
        .stack_name(name)
        .send()
        .await
        .expect("delete stack");
    cfn.describe_stacks().stack_name(name).send().await.is_err()
}

/// The stack's outputs, key → value.
pub async fn outputs(cfn: &Client, name: &str) -> HashMap<String, String> {
    describe(cfn, name)
        .await
        .outputs()
        .iter()
        .map(|o| {
            (
                o.output_key().unwrap_or_default().to_string(),
                o.output_value().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Logical id → physical id of every resource (DescribeStackResources).
pub async fn physical_ids(cfn: &Client, name: &str) -> HashMap<String, String> {
    cfn.describe_stack_resources()
        .stack_name(name)
        .send()
        .await
        .expect("describe stack resources")
        .stack_resources()
        .iter()
        .map(|r| {
            (
                r.logical_resource_id().unwrap_or_default().to_string(),
                r.physical_resource_id().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The logical ids of the stack's resources in `status` (ListStackResources), e.g. those
/// ContinueUpdateRollback may skip (`UPDATE_FAILED`) or DeleteStack may retain
/// (`DELETE_FAILED`); empty when the stack is not found.
pub async fn resources_in(cfn: &Client, name: &str, status: &str) -> Vec<String> {
    let Ok(out) = cfn.list_stack_resources().stack_name(name).send().await else {
        return Vec::new();
    };
    out.stack_resource_summaries()
        .iter()
        .filter(|r| r.resource_status().map(|s| s.as_str()) == Some(status))
        .filter_map(|r| r.logical_resource_id().map(str::to_string))
        .collect()
}

/// (logical id, reason) of the first CREATE_FAILED or UPDATE_FAILED event of a resource.
pub async fn first_failure(cfn: &Client, name: &str) -> (String, String) {
    events(cfn, name)
        .await
        .into_iter()
        .find(|e| e.0 != name && (e.1 == "CREATE_FAILED" || e.1 == "UPDATE_FAILED"))
        .map(|e| (e.0, e.3))
        .expect("a failed resource")
}

/// Posts a fault rule (`/_cumulo/faults`, docs/extensions.md); returns its id.
pub async fn fault(emu: &Emulator, rule: Value) -> String {
    let (code, body) = emu.control("POST", "/_cumulo/faults", Some(rule)).await;
    assert_eq!(code, 201, "{body}");
    body["id"].as_str().expect("fault id").to_string()
}

/// Whether the fault rule `id` was used up.
pub async fn fired(emu: &Emulator, id: &str) -> bool {
    let (_, body) = emu.control("GET", "/_cumulo/faults", None).await;
    body["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["id"] == id && r["remaining"] == 0)
}

/// Waits until the stack's operation (held by a fault's `hold_seconds` or not) is over.
pub async fn wait(emu: &Emulator, name: &str) {
    emu.app
        .cloudformation
        .operation_finished(&cumulo::ids::Scope::default_scope(), name)
        .await;
}

/// The helper set over one emulator and its SDK client.
pub struct Stacks<'a> {
    emu: &'a Emulator,
    /// The CloudFormation client.
    pub cfn: Client,
}

impl<'a> Stacks<'a> {
    /// Helpers for `emu`.
    pub async fn new(emu: &'a Emulator) -> Stacks<'a> {
        Stacks {
            emu,
            cfn: emu.cloudformation().await,
        }
    }

    /// CreateStack; the status once the call answers.
    pub async fn create(&self, name: &str, body: &str, values: &[(&str, &str)]) -> StackStatus {
        create(&self.cfn, name, body, values).await
    }

    /// UpdateStack; the status once the call answers.
    pub async fn update(&self, name: &str, body: &str, values: &[(&str, &str)]) -> StackStatus {
        update(&self.cfn, name, body, values).await
    }

    /// DeleteStack (by name); answers once the stack is gone or failed.
    pub async fn delete(&self, name: &str) {
        self.cfn
            .delete_stack()
            .stack_name(name)
            .send()
            .await
            .expect("delete stack");
    }

    /// The stack's status.
    pub async fn status(&self, name: &str) -> StackStatus {
        status(&self.cfn, name).await
    }

    /// The stack's events, oldest first.
    pub async fn events(&self, name: &str) -> Vec<Event> {
        events(&self.cfn, name).await
    }

    /// Posts a fault rule; returns its id.
    pub async fn fault(&self, rule: Value) -> String {
        fault(self.emu, rule).await
    }

    /// Waits until the stack's operation is over.
    pub async fn wait(&self, name: &str) {
        wait(self.emu, name).await
    }
}

/// Raw awsQuery calls (`Action=<op>&Version=2010-05-15&...`), for checks on the wire itself.
pub struct Form<'a> {
    emu: &'a Emulator,
}

impl<'a> Form<'a> {
    /// Forms to `emu`.
    pub fn new(emu: &'a Emulator) -> Form<'a> {
        Form { emu }
    }

    /// The HTTP status and body of `op` with `args`.
    pub async fn call(&self, op: &str, args: &[(&str, &str)]) -> (u16, String) {
        let mut form = form_urlencoded::Serializer::new(String::new());
        form.append_pair("Action", op);
        form.append_pair("Version", "2010-05-15");
        for (k, v) in args {
            form.append_pair(k, v);
        }
        let (status, _, body) = self
            .emu
            .raw(
                "POST",
                "/",
                &[
                    ("content-type", "application/x-www-form-urlencoded"),
                    // The credential scope the SDKs sign with (the signature is not checked).
                    (
                        "authorization",
                        "AWS4-HMAC-SHA256 Credential=test/20300101/us-east-1/cloudformation/aws4_request, SignedHeaders=host, Signature=0",
                    ),
                ],
                &form.finish(),
            )
            .await;
        (status, body)
    }

    /// The body of `op`, which must answer 200.
    pub async fn ok(&self, op: &str, args: &[(&str, &str)]) -> String {
        let (status, body) = self.call(op, args).await;
        assert_eq!(status, 200, "{op}: {body}");
        body
    }
}

/// The events of the stack's last operation (from its last stack event with `status`), as
/// (logical id, status, physical id, reason), oldest first.
pub fn since(all: &[Event], stack: &str, status: &str) -> Vec<Event> {
    let start = all
        .iter()
        .rposition(|e| e.0 == stack && e.1 == status)
        .unwrap_or_else(|| panic!("no {status} event of {stack}: {all:#?}"));
    all[start..].to_vec()
}

/// (logical id, status, physical id) of events, for comparing sequences.
pub fn brief(events: &[Event]) -> Vec<(&str, &str, &str)> {
    events
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str()))
        .collect()
}
