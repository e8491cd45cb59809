//! CloudFormation over a durable store: what one emulator wrote (stacks, resources in their
//! order, events, change sets, exports), a new emulator over the same store answers, and
//! it can go on updating and deleting those stacks (the services reload their state too).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_sdk_cloudformation::types::{ChangeSetType, Parameter, StackStatus};
use cumulo::clock::Clock;
use cumulo::storage::{Backend, Storage, Table};
use cumulo::{App, Config, Parts};
use tokio::sync::oneshot;

use crate::support::t0;

/// Rows by (table, key), shared by the emulators of one test.
#[derive(Default)]
struct MapBackend {
    rows: Mutex<BTreeMap<(Table, String), String>>,
}

impl Backend for MapBackend {
    fn put(&self, table: Table, key: &str, json: String) {
        self.rows
            .lock()
            .unwrap()
            .insert((table, key.to_string()), json);
    }
    fn delete(&self, table: Table, key: &str) {
        self.rows.lock().unwrap().remove(&(table, key.to_string()));
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
            .filter(|((t, _), _)| *t == table)
            .map(|((_, k), v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// One emulator over `backend`; dropping the sender stops it.
struct Running {
    client: aws_sdk_cloudformation::Client,
    sqs: aws_sdk_sqs::Client,
    _stop: oneshot::Sender<()>,
}

async fn start(backend: Arc<MapBackend>) -> Running {
    let app = App::new(
        Config {
            seed: Some(7),
            ..Config::default()
        },
        Parts {
            clock: Some(Clock::manual_at(t0())),
            storage: Some(Storage::with_backend(backend)),
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = cumulo::serve(app, listener, async move {
            let _ = rx.await;
        })
        .await;
    });
    let creds = aws_credential_types::Credentials::new("test", "test", None, None, "durability");
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(creds)
        .endpoint_url(&endpoint)
        .retry_config(aws_config::retry::RetryConfig::disabled())
        .load()
        .await;
    Running {
        client: aws_sdk_cloudformation::Client::new(&config),
        sqs: aws_sdk_sqs::Client::new(&config),
        _stop: tx,
    }
}

const TEMPLATE: &str = include_str!("../templates/cloudformation_durability/template.yaml");

fn expression(value: &str) -> Parameter {
    Parameter::builder()
        .parameter_key("Expression")
        .parameter_value(value)
        .build()
}

#[tokio::test]
async fn stacks_survive_a_restart_and_can_still_be_updated_and_deleted() {
    let backend = Arc::new(MapBackend::default());
    let (events_before, queue_url, pending) = {
        let first = start(backend.clone()).await;
        let cfn = &first.client;
        cfn.create_stack()
            .stack_name("kept")
            .template_body(TEMPLATE)
            .send()
            .await
            .unwrap();
        let pending = cfn
            .create_change_set()
            .stack_name("kept")
            .change_set_name("later")
            .change_set_type(ChangeSetType::Update)
            .template_body(TEMPLATE)
            .parameters(expression("rate(2 hours)"))
            .send()
            .await
            .unwrap()
            .id()
            .unwrap()
            .to_string();
        let events = cfn
            .describe_stack_events()
            .stack_name("kept")
            .send()
            .await
            .unwrap()
            .stack_events()
            .len();
        let queue_url = cfn
            .describe_stack_resource()
            .stack_name("kept")
            .logical_resource_id("Queue")
            .send()
            .await
            .unwrap()
            .stack_resource_detail()
            .unwrap()
            .physical_resource_id()
            .unwrap()
            .to_string();
        (events, queue_url, pending)
    };

    let second = start(backend.clone()).await;
    let cfn = &second.client;
    let stack = cfn
        .describe_stacks()
        .stack_name("kept")
        .send()
        .await
        .unwrap()
        .stacks()[0]
        .clone();
    assert_eq!(stack.stack_status(), Some(&StackStatus::CreateComplete));
    assert_eq!(stack.outputs().len(), 1);
    let events = cfn
        .describe_stack_events()
        .stack_name("kept")
        .send()
        .await
        .unwrap();
    assert_eq!(events.stack_events().len(), events_before);
    assert_eq!(
        events.stack_events()[0].resource_status().unwrap().as_str(),
        "CREATE_COMPLETE"
    );
    let order: Vec<String> = cfn
        .list_stack_resources()
        .stack_name("kept")
        .send()
        .await
        .unwrap()
        .stack_resource_summaries()
        .iter()
        .map(|r| r.logical_resource_id().unwrap().to_string())
        .collect();
    assert_eq!(order, vec!["Queue", "Schedule"]);
    let exports = cfn.list_exports().send().await.unwrap();
    assert_eq!(exports.exports()[0].name(), Some("kept-QueueArn"));

    // The change set made before the restart still executes.
    cfn.execute_change_set()
        .change_set_name(&pending)
        .send()
        .await
        .unwrap();
    let stack = cfn
        .describe_stacks()
        .stack_name("kept")
        .send()
        .await
        .unwrap();
    assert_eq!(
        stack.stacks()[0].stack_status(),
        Some(&StackStatus::UpdateComplete)
    );
    cfn.delete_stack().stack_name("kept").send().await.unwrap();
    assert!(second
        .sqs
        .get_queue_attributes()
        .queue_url(&queue_url)
        .send()
        .await
        .is_err());
    drop(second);

    // And the deletion itself is remembered.
    let third = start(backend).await;
    let e = third
        .client
        .describe_stacks()
        .stack_name("kept")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        aws_sdk_cloudformation::error::ProvideErrorMetadata::message(&e),
        Some("Stack with id kept does not exist")
    );
    let listed = third
        .client
        .list_stacks()
        .stack_status_filter(StackStatus::DeleteComplete)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.stack_summaries().len(), 1);
}
