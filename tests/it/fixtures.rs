//! The fixtures every CloudFormation test shares: templates read from `tests/templates/`
//! ([`template`]), one helper set for stacks over the AWS SDK for Rust (create, update,
//! delete, describe, status, events, faults, waiting for a held operation), the errors the SDK
//! returns as (code, message), and raw awsQuery forms for wire-level checks ([`Form`]).

#![allow(dead_code)]

use aws_sdk_cloudformation::error::ProvideErrorMetadata;
use aws_sdk_cloudformation::types::{Parameter, Stack, StackStatus};
use aws_sdk_cloudformation::Client;
use cumulo::clock::Clock;
use cumulo::config::UnsupportedResources;
use cumulo::Config;
use serde_json::Value;

use crate::support::{t0, Emulator};

/// An event as the tests compare them: (logical id, status, physical id, reason).
pub type Event = (String, String, String, String);

/// The text of `tests/templates/<name>`.
pub fn template(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/templates")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

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

/// CreateStack of `body` with `values`; the status once the call answers.
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

/// UpdateStack to `body` with `values`; the status once the call answers.
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
