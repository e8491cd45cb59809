//! The resource providers beyond queues, roles and schedules, through the AWS SDK for Rust:
//! SNS topics, subscriptions and topic policies, SQS queue policies, IAM policies and managed
//! policies, Lambda functions and permissions, Step Functions state machines, SSM parameters,
//! KMS keys and aliases, wait conditions. For each: the physical ids of DescribeStackResources,
//! Ref and GetAtt values in Outputs, an in-place update, a replacement where a createOnly
//! property changes, deletion (the resource gone from its service), and the validation
//! failures (CREATE_FAILED with the handler's reason, the stack ROLLBACK_COMPLETE).

use std::collections::HashMap;

use aws_sdk_cloudformation::types::StackStatus;
use aws_sdk_sqs::types::QueueAttributeName;
use cumulo::ids::Scope;

use crate::fixtures::{
    create_iam as deploy, describe, err, events, first_failure as failure, outputs,
    physical_ids as physical, remove, update_iam as redeploy,
};
use crate::support::Emulator;

fn scope() -> Scope {
    Scope::default_scope()
}

const SNS: &str = include_str!("../templates/cfn_providers/sns.yaml");

async fn publish(sns: &aws_sdk_sns::Client, topic: &str, body: &str, kind: Option<&str>) {
    let mut req = sns.publish().topic_arn(topic).message(body);
    if let Some(k) = kind {
        req = req.message_attributes(
            "kind",
            aws_sdk_sns::types::MessageAttributeValue::builder()
                .data_type("String")
                .string_value(k)
                .build()
                .unwrap(),
        );
    }
    req.send().await.unwrap();
}

async fn bodies(sqs: &aws_sdk_sqs::Client, url: &str) -> Vec<String> {
    let got = sqs
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let mut out = Vec::new();
    for m in got.messages() {
        out.push(m.body().unwrap_or_default().to_string());
        sqs.delete_message()
            .queue_url(url)
            .receipt_handle(m.receipt_handle().unwrap())
            .send()
            .await
            .unwrap();
    }
    out
}

async fn topic_attribute(sns: &aws_sdk_sns::Client, arn: &str, key: &str) -> Option<String> {
    sns.get_topic_attributes()
        .topic_arn(arn)
        .send()
        .await
        .ok()?
        .attributes()?
        .get(key)
        .cloned()
}

#[tokio::test]
async fn sns_topic_subscription_and_policies_deliver_update_replace_and_delete() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let config = emu.sdk_config().await;
    let sns = aws_sdk_sns::Client::new(&config);
    let sqs = aws_sdk_sqs::Client::new(&config);
    let status = deploy(&cfn, "topics", SNS, &[("TopicName", "t-one")]).await;
    assert_eq!(status, StackStatus::CreateComplete);
    let out = outputs(&cfn, "topics").await;
    let ids = physical(&cfn, "topics").await;
    let topic = "arn:aws:sns:us-east-1:000000000000:t-one";
    assert_eq!(out["TopicRef"], topic);
    assert_eq!(out["TopicArn"], topic);
    assert_eq!(out["TopicName"], "t-one");
    assert_eq!(ids["Topic"], topic);
    assert!(out["SubscriptionRef"].starts_with(&format!("{topic}:")));
    assert_eq!(out["SubscriptionArn"], out["SubscriptionRef"]);
    assert_eq!(ids["Subscription"], out["SubscriptionRef"]);
    assert!(
        out["QueuePolicyRef"].starts_with("topics-QueuePolicy-"),
        "{}",
        out["QueuePolicyRef"]
    );
    assert_eq!(ids["QueuePolicy"], out["QueuePolicyRef"]);
    assert!(ids["TopicPolicy"].starts_with("topics-TopicPolicy-"));

    assert_eq!(
        topic_attribute(&sns, topic, "DisplayName").await.as_deref(),
        Some("first")
    );
    let policy = topic_attribute(&sns, topic, "Policy").await.unwrap();
    assert!(policy.contains("scheduler.amazonaws.com"), "{policy}");
    let tags: HashMap<String, String> = sns
        .list_tags_for_resource()
        .resource_arn(topic)
        .send()
        .await
        .unwrap()
        .tags()
        .iter()
        .map(|t| (t.key().to_string(), t.value().to_string()))
        .collect();
    assert_eq!(tags["team"], "ops");
    assert_eq!(tags["aws:cloudformation:stack-name"], "topics");
    assert_eq!(tags["aws:cloudformation:logical-id"], "Topic");
    let queue_policy = sqs
        .get_queue_attributes()
        .queue_url(&out["QueueUrl"])
        .attribute_names(QueueAttributeName::Policy)
        .send()
        .await
        .unwrap()
        .attributes()
        .unwrap()[&QueueAttributeName::Policy]
        .clone();
    assert!(queue_policy.contains("sns.amazonaws.com"), "{queue_policy}");

    // Raw delivery, and the filter policy keeps the untagged message out.
    publish(&sns, topic, "hello", Some("tick")).await;
    publish(&sns, topic, "filtered", None).await;
    assert_eq!(bodies(&sqs, &out["QueueUrl"]).await, ["hello"]);

    // In place: DisplayName and RawMessageDelivery change, the topic policy goes away.
    let status = redeploy(
        &cfn,
        "topics",
        SNS,
        &[
            ("TopicName", "t-one"),
            ("Display", "second"),
            ("Raw", "false"),
            ("WithPolicy", "no"),
        ],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    let after = physical(&cfn, "topics").await;
    assert_eq!(after["Topic"], ids["Topic"]);
    assert_eq!(after["Subscription"], ids["Subscription"]);
    assert!(!after.contains_key("TopicPolicy"));
    assert_eq!(
        topic_attribute(&sns, topic, "DisplayName").await.as_deref(),
        Some("second")
    );
    let policy = topic_attribute(&sns, topic, "Policy").await.unwrap();
    assert!(policy.contains("__default_policy_ID"), "{policy}");
    publish(&sns, topic, "wrapped", Some("tick")).await;
    let got = bodies(&sqs, &out["QueueUrl"]).await;
    assert_eq!(got.len(), 1);
    let envelope: serde_json::Value = serde_json::from_str(&got[0]).unwrap();
    assert_eq!(envelope["Message"], "wrapped");
    assert_eq!(envelope["TopicArn"], topic);

    // Replacement: a new TopicName is a new topic, and its subscription follows.
    let status = redeploy(&cfn, "topics", SNS, &[("TopicName", "t-two")]).await;
    assert_eq!(status, StackStatus::UpdateComplete);
    let replaced = outputs(&cfn, "topics").await;
    let two = "arn:aws:sns:us-east-1:000000000000:t-two";
    assert_eq!(replaced["TopicRef"], two);
    assert!(replaced["SubscriptionRef"].starts_with(&format!("{two}:")));
    assert_eq!(
        topic_attribute(&sns, topic, "TopicArn").await,
        None,
        "the old topic is gone"
    );
    assert!(topic_attribute(&sns, two, "Policy")
        .await
        .unwrap()
        .contains("scheduler.amazonaws.com"));
    let queue_policy = sqs
        .get_queue_attributes()
        .queue_url(&out["QueueUrl"])
        .attribute_names(QueueAttributeName::Policy)
        .send()
        .await
        .unwrap()
        .attributes()
        .unwrap()[&QueueAttributeName::Policy]
        .clone();
    assert!(
        queue_policy.contains(two),
        "the queue policy is updated in place: {queue_policy}"
    );
    assert_eq!(
        physical(&cfn, "topics").await["QueuePolicy"],
        ids["QueuePolicy"]
    );
    publish(&sns, two, "again", Some("tick")).await;
    assert_eq!(bodies(&sqs, &out["QueueUrl"]).await, ["again"]);

    assert!(remove(&cfn, "topics").await);
    assert_eq!(topic_attribute(&sns, two, "TopicArn").await, None);
    assert!(sns
        .list_subscriptions()
        .send()
        .await
        .unwrap()
        .subscriptions()
        .is_empty());
    assert!(sqs
        .get_queue_attributes()
        .queue_url(&out["QueueUrl"])
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn topic_inline_subscriptions_fifo_names_and_an_existing_topic() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let sns = aws_sdk_sns::Client::new(&emu.sdk_config().await);
    let body = include_str!("../templates/cfn_providers/topic_inline_subscriptions_fifo_names_and_an_existing_topic.yaml");
    assert_eq!(
        deploy(&cfn, "fifo", body, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "fifo").await;
    assert!(
        out["Name"].starts_with("fifo-Fifo-") && out["Name"].ends_with(".fifo"),
        "{}",
        out["Name"]
    );
    assert_eq!(
        topic_attribute(&sns, &out["Arn"], "ContentBasedDeduplication")
            .await
            .as_deref(),
        Some("true")
    );
    let endpoints = |subs: &[aws_sdk_sns::types::Subscription]| -> Vec<String> {
        subs.iter()
            .map(|s| s.endpoint().unwrap_or_default().to_string())
            .collect()
    };
    let subs = sns
        .list_subscriptions_by_topic()
        .topic_arn(&out["Arn"])
        .send()
        .await
        .unwrap();
    assert_eq!(endpoints(subs.subscriptions()), [out["A"].clone()]);
    assert_eq!(
        redeploy(&cfn, "fifo", body, &[("Endpoint", "b")]).await,
        StackStatus::UpdateComplete
    );
    let subs = sns
        .list_subscriptions_by_topic()
        .topic_arn(&out["Arn"])
        .send()
        .await
        .unwrap();
    assert_eq!(endpoints(subs.subscriptions()), [out["B"].clone()]);

    // A topic that exists outside the stack is not adopted.
    sns.create_topic().name("taken").send().await.unwrap();
    let clash = include_str!("../templates/cfn_providers/topic_inline_subscriptions_fifo_names_and_an_existing_topic_2.yaml");
    assert_eq!(
        deploy(&cfn, "clash", clash, &[]).await,
        StackStatus::RollbackComplete
    );
    let (logical, reason) = failure(&cfn, "clash").await;
    assert_eq!(logical, "T");
    assert!(reason.contains("\"Resource of type 'AWS::SNS::Topic' with identifier 'arn:aws:sns:us-east-1:000000000000:taken' already exists.\""), "{reason}");
    assert!(
        reason.ends_with("HandlerErrorCode: AlreadyExists)"),
        "{reason}"
    );
    assert!(
        topic_attribute(&sns, "arn:aws:sns:us-east-1:000000000000:taken", "TopicArn")
            .await
            .is_some()
    );
    assert!(remove(&cfn, "fifo").await);
    assert_eq!(topic_attribute(&sns, &out["Arn"], "TopicArn").await, None);
}

const IAM: &str = include_str!("../templates/cfn_providers/iam.yaml");

#[tokio::test]
async fn iam_policies_attach_move_version_replace_and_detach() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let iam = &emu.app.iam;
    let account = "000000000000";
    let e = err(cfn
        .create_stack()
        .stack_name("perms")
        .template_body(include_str!(
            "../templates/cfn_providers/iam_policies_attach_move_version_replace_and_detach.yaml"
        ))
        .send()
        .await
        .unwrap_err());
    assert_eq!(e.1, "Requires capabilities : [CAPABILITY_IAM]");

    assert_eq!(
        deploy(&cfn, "perms", IAM, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "perms").await;
    let ids = physical(&cfn, "perms").await;
    assert_eq!(out["InlineRef"], ids["Inline"]);
    assert_eq!(out["InlineRef"].len(), 23, "{}", out["InlineRef"]);
    assert!(
        out["InlineRef"].starts_with("perms-Inli-"),
        "{}",
        out["InlineRef"]
    );
    let arn = format!("arn:aws:iam::{account}:policy/managed-one");
    assert_eq!(out["ManagedRef"], arn);
    assert_eq!(out["ManagedArn"], arn);
    assert_eq!(ids["Managed"], arn);
    assert!(out["ManagedId"].starts_with("ANPA"));
    assert_eq!(out["Version"], "v1");
    let role = iam.get_role(account, &out["Role"]).unwrap();
    assert!(role.policies["inline-one"].contains("sqs:SendMessage"));
    assert_eq!(role.managed_policy_arns, std::slice::from_ref(&arn));
    assert_eq!(iam.attachment_count(&arn), 1);

    // In place: a new PolicyName moves the inline policy; a new document is version v2.
    let status = redeploy(
        &cfn,
        "perms",
        IAM,
        &[("PolicyName", "inline-two"), ("Action", "sns:Publish")],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    let role = iam.get_role(account, &out["Role"]).unwrap();
    assert!(!role.policies.contains_key("inline-one"));
    assert!(role.policies["inline-two"].contains("sns:Publish"));
    assert_eq!(physical(&cfn, "perms").await["Inline"], ids["Inline"]);
    let policy = iam.get_policy(&arn).unwrap();
    assert!(policy.policy_document.contains("sns:Publish"));
    assert_eq!(outputs(&cfn, "perms").await["Version"], "v2");

    // Replacement: ManagedPolicyName is createOnly.
    let status = redeploy(
        &cfn,
        "perms",
        IAM,
        &[
            ("PolicyName", "inline-two"),
            ("Action", "sns:Publish"),
            ("ManagedName", "managed-two"),
        ],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    let two = format!("arn:aws:iam::{account}:policy/managed-two");
    assert_eq!(outputs(&cfn, "perms").await["ManagedRef"], two);
    assert!(
        iam.get_policy(&arn).is_err(),
        "the old managed policy is deleted"
    );
    assert_eq!(
        iam.get_role(account, &out["Role"])
            .unwrap()
            .managed_policy_arns,
        std::slice::from_ref(&two)
    );

    assert!(remove(&cfn, "perms").await);
    assert!(iam.get_policy(&two).is_err());
    assert!(iam.get_role(account, &out["Role"]).is_err());
}

const LAMBDA: &str = include_str!("../templates/cfn_providers/lambda.yaml");

#[tokio::test]
async fn lambda_function_and_permission_update_in_place_and_by_replacement() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let lambda = &emu.app.lambda;
    assert_eq!(
        deploy(&cfn, "fns", LAMBDA, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "fns").await;
    let ids = physical(&cfn, "fns").await;
    let name = out["FunctionRef"].clone();
    assert!(
        name.starts_with("fns-Function-") && name.len() <= 64,
        "{name}"
    );
    assert_eq!(ids["Function"], name);
    assert_eq!(
        out["FunctionArn"],
        format!("arn:aws:lambda:us-east-1:000000000000:function:{name}")
    );
    assert_eq!(out["SnapStart"], "None");
    assert!(
        out["PermissionRef"].starts_with("fns-Permission-"),
        "{}",
        out["PermissionRef"]
    );
    assert_eq!(ids["Permission"], out["PermissionRef"]);
    let f = lambda.get_function(&scope(), &name).unwrap();
    assert_eq!((f.timeout, f.memory_size), (30, 256));
    assert_eq!(f.environment["STAGE"], "test");
    assert_eq!(f.runtime.as_deref(), Some("python3.12"));
    assert_eq!(f.tags["team"], "ops");
    assert_eq!(f.tags["aws:cloudformation:logical-id"], "Function");
    assert_eq!(f.policy.len(), 1);
    assert_eq!(f.policy[0].sid, out["PermissionRef"]);
    assert_eq!(f.policy[0].principal, "scheduler.amazonaws.com");

    // In place: the timeout.
    assert_eq!(
        redeploy(&cfn, "fns", LAMBDA, &[("Timeout", "60")]).await,
        StackStatus::UpdateComplete
    );
    assert_eq!(outputs(&cfn, "fns").await["FunctionRef"], name);
    assert_eq!(lambda.get_function(&scope(), &name).unwrap().timeout, 60);

    // Every permission property is createOnly: a new principal is a new statement.
    let status = redeploy(
        &cfn,
        "fns",
        LAMBDA,
        &[("Timeout", "60"), ("Principal", "events.amazonaws.com")],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    let sid = outputs(&cfn, "fns").await["PermissionRef"].clone();
    assert_ne!(sid, out["PermissionRef"]);
    let policy = lambda.get_function(&scope(), &name).unwrap().policy;
    assert_eq!(policy.len(), 1);
    assert_eq!(
        (policy[0].sid.as_str(), policy[0].principal.as_str()),
        (sid.as_str(), "events.amazonaws.com")
    );

    // FunctionName is createOnly.
    let status = redeploy(
        &cfn,
        "fns",
        LAMBDA,
        &[("Timeout", "60"), ("Name", "named-fn")],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    assert_eq!(outputs(&cfn, "fns").await["FunctionRef"], "named-fn");
    assert!(
        lambda.get_function(&scope(), &name).is_err(),
        "the old function is deleted"
    );
    assert_eq!(
        lambda
            .get_function(&scope(), "named-fn")
            .unwrap()
            .policy
            .len(),
        1
    );

    assert!(remove(&cfn, "fns").await);
    assert!(lambda.list_functions(&scope()).is_empty());
}

const STATES: &str = include_str!("../templates/cfn_providers/states.yaml");

#[tokio::test]
async fn state_machine_substitutes_revises_in_place_and_replaces_on_rename() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let states = &emu.app.states;
    assert_eq!(
        deploy(&cfn, "flows", STATES, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "flows").await;
    assert!(
        out["Name"].starts_with("Flow-") && out["Name"].len() == "Flow-".len() + 12,
        "{}",
        out["Name"]
    );
    let arn = format!(
        "arn:aws:states:us-east-1:000000000000:stateMachine:{}",
        out["Name"]
    );
    assert_eq!(out["Ref"], arn);
    assert_eq!(out["Arn"], arn);
    assert_eq!(physical(&cfn, "flows").await["Flow"], arn);
    let m = states.describe_state_machine(&arn).unwrap();
    assert!(m.definition.contains("\"Seconds\":5"), "{}", m.definition);
    assert_eq!(m.revision_id, out["Revision"]);
    assert_eq!(m.tags["aws:cloudformation:stack-name"], "flows");

    assert_eq!(
        redeploy(&cfn, "flows", STATES, &[("Wait", "10")]).await,
        StackStatus::UpdateComplete
    );
    let after = outputs(&cfn, "flows").await;
    assert_eq!(after["Arn"], arn);
    assert_ne!(after["Revision"], out["Revision"]);
    assert!(states
        .describe_state_machine(&arn)
        .unwrap()
        .definition
        .contains("\"Seconds\":10"));

    assert_eq!(
        redeploy(
            &cfn,
            "flows",
            STATES,
            &[("Wait", "10"), ("Name", "flow-two")]
        )
        .await,
        StackStatus::UpdateComplete
    );
    assert_eq!(outputs(&cfn, "flows").await["Name"], "flow-two");
    assert!(states.describe_state_machine(&arn).is_err());

    assert!(remove(&cfn, "flows").await);
    assert!(states.list_state_machines(&scope()).is_empty());
}

const PARAMETER: &str = include_str!("../templates/cfn_providers/parameter.yaml");

#[tokio::test]
async fn ssm_parameters_version_on_update_and_replace_on_rename() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let ssm = aws_sdk_ssm::Client::new(&emu.sdk_config().await);
    assert_eq!(
        deploy(&cfn, "params", PARAMETER, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "params").await;
    assert_eq!(out["Ref"], "/app/expression");
    assert_eq!(out["Type"], "String");
    assert_eq!(out["Value"], "rate(1 hour)");
    assert!(
        out["Generated"].starts_with("CFN-Generated-"),
        "{}",
        out["Generated"]
    );
    assert_eq!(physical(&cfn, "params").await["Named"], "/app/expression");
    let got = ssm
        .get_parameter()
        .name("/app/expression")
        .send()
        .await
        .unwrap();
    assert_eq!(got.parameter().unwrap().value(), Some("rate(1 hour)"));
    let tags = ssm
        .list_tags_for_resource()
        .resource_type(aws_sdk_ssm::types::ResourceTypeForTagging::Parameter)
        .resource_id("/app/expression")
        .send()
        .await
        .unwrap();
    let keys: Vec<&str> = tags.tag_list().iter().map(|t| t.key()).collect();
    assert!(
        keys.contains(&"team") && keys.contains(&"aws:cloudformation:logical-id"),
        "{keys:?}"
    );

    assert_eq!(
        redeploy(&cfn, "params", PARAMETER, &[("Value", "rate(2 hours)")]).await,
        StackStatus::UpdateComplete
    );
    let got = ssm
        .get_parameter()
        .name("/app/expression")
        .send()
        .await
        .unwrap();
    let p = got.parameter().unwrap();
    assert_eq!((p.value(), p.version()), (Some("rate(2 hours)"), 2));
    assert_eq!(outputs(&cfn, "params").await["Value"], "rate(2 hours)");

    assert_eq!(
        redeploy(
            &cfn,
            "params",
            PARAMETER,
            &[("Value", "rate(2 hours)"), ("Name", "/app/other")]
        )
        .await,
        StackStatus::UpdateComplete
    );
    assert!(ssm
        .get_parameter()
        .name("/app/expression")
        .send()
        .await
        .is_err());
    assert!(ssm.get_parameter().name("/app/other").send().await.is_ok());

    // A parameter that exists outside the stack is not adopted.
    let clash = include_str!(
        "../templates/cfn_providers/ssm_parameters_version_on_update_and_replace_on_rename.yaml"
    );
    assert_eq!(
        deploy(&cfn, "clash", clash, &[]).await,
        StackStatus::RollbackComplete
    );
    assert!(failure(&cfn, "clash")
        .await
        .1
        .contains("with identifier '/app/other' already exists."));

    assert!(remove(&cfn, "params").await);
    assert!(ssm.get_parameter().name("/app/other").send().await.is_err());
    assert!(ssm
        .get_parameter()
        .name(&out["Generated"])
        .send()
        .await
        .is_err());
}

const KMS: &str = include_str!("../templates/cfn_providers/kms.yaml");

#[tokio::test]
async fn kms_keys_and_aliases_update_and_schedule_deletion() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let kms = &emu.app.kms;
    assert_eq!(
        deploy(&cfn, "keys", KMS, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "keys").await;
    let id = out["Ref"].clone();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    assert_eq!(out["KeyId"], id);
    assert_eq!(
        out["Arn"],
        format!("arn:aws:kms:us-east-1:000000000000:key/{id}")
    );
    assert_eq!(out["Alias"], "alias/app");
    assert_eq!(physical(&cfn, "keys").await["Alias"], "alias/app");
    let key = kms.describe_key(&scope(), &id).unwrap();
    assert_eq!(key.description, "first");
    assert!(key.key_rotation_enabled);
    assert_eq!(key.tags["team"], "ops");
    assert_eq!(kms.describe_key(&scope(), "alias/app").unwrap().key_id, id);

    let status = redeploy(
        &cfn,
        "keys",
        KMS,
        &[("Description", "second"), ("Target", "two")],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    assert_eq!(
        outputs(&cfn, "keys").await["Ref"],
        id,
        "a new description is in place"
    );
    assert_eq!(
        kms.describe_key(&scope(), &id).unwrap().description,
        "second"
    );
    assert_eq!(
        kms.describe_key(&scope(), "alias/app").unwrap().key_id,
        out["Two"]
    );

    // AliasName is createOnly: a new alias, the old one deleted.
    let status = redeploy(
        &cfn,
        "keys",
        KMS,
        &[
            ("Description", "second"),
            ("Target", "two"),
            ("AliasName", "alias/renamed"),
        ],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateComplete);
    assert_eq!(outputs(&cfn, "keys").await["Alias"], "alias/renamed");
    assert!(kms.get_alias(&scope(), "alias/app").is_err());
    assert_eq!(
        kms.describe_key(&scope(), "alias/renamed").unwrap().key_id,
        out["Two"]
    );

    // KeySpec cannot change: the update fails and rolls back.
    let spec = KMS.replace(
        "      EnableKeyRotation: true\n",
        "      KeySpec: RSA_2048\n",
    );
    let status = redeploy(
        &cfn,
        "keys",
        &spec,
        &[
            ("Description", "second"),
            ("Target", "two"),
            ("AliasName", "alias/renamed"),
        ],
    )
    .await;
    assert_eq!(status, StackStatus::UpdateRollbackComplete);
    let (logical, reason) = failure(&cfn, "keys").await;
    assert_eq!(logical, "KeyOne");
    assert!(reason.contains("KeySpec cannot be updated"), "{reason}");

    assert!(remove(&cfn, "keys").await);
    let key = kms.describe_key(&scope(), &id).unwrap();
    assert_eq!(key.key_state.as_str(), "PendingDeletion");
    assert_eq!(
        key.deletion_date.unwrap() - key.creation_date,
        chrono::Duration::days(7)
    );
    assert!(kms.list_aliases(&scope()).is_empty());
}

#[tokio::test]
async fn wait_condition_handles_and_conditions_complete_at_once() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let body = include_str!(
        "../templates/cfn_providers/wait_condition_handles_and_conditions_complete_at_once.yaml"
    );
    assert_eq!(
        deploy(&cfn, "waits", body, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "waits").await;
    let stack_id = describe(&cfn, "waits")
        .await
        .stack_id()
        .unwrap()
        .to_string();
    assert!(out["Url"].starts_with(&format!(
        "https://cloudformation-waitcondition-us-east-1.s3.amazonaws.com/{}/Handle?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20300101T120000Z&",
        stack_id.replace(':', "%3A")
    )), "{}", out["Url"]);
    assert_eq!(out["Data"], "{}");
    assert_eq!(out["Id"], format!("{stack_id}/Wait"));
    assert_eq!(physical(&cfn, "waits").await["Handle"], out["Url"]);

    let bad = include_str!(
        "../templates/cfn_providers/wait_condition_handles_and_conditions_complete_at_once_2.yaml"
    );
    assert_eq!(
        deploy(&cfn, "bad-wait", bad, &[]).await,
        StackStatus::RollbackComplete
    );
    assert!(failure(&cfn, "bad-wait")
        .await
        .1
        .contains("Timeout must be a whole number of seconds from 1 to 43200, not 50000"));
    assert!(remove(&cfn, "waits").await);
}

/// Each case: a template whose one resource fails, the message its reason quotes, and the
/// handler error code.
const FAILURES: &[(&str, &str, &str)] = &[
    (
        include_str!("../templates/cfn_providers/failure_01.yaml"),
        "Invalid parameter: Topic Name",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_02.yaml"),
        "Properties validation failed for resource R with message: #: extraneous key [Bogus] is not permitted",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_03.yaml"),
        "Invalid parameter: Amazon SNS does not support this protocol string: carrier-pigeon",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_04.yaml"),
        "Properties validation failed for resource R with message: #: required key [TopicArn] not found",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_05.yaml"),
        "Topic does not exist",
        "NotFound",
    ),
    (
        include_str!("../templates/cfn_providers/failure_06.yaml"),
        "The specified queue does not exist.",
        "NotFound",
    ),
    (
        include_str!("../templates/cfn_providers/failure_07.yaml"),
        "At least one of [Groups,Roles,Users] must be non-empty.",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_08.yaml"),
        "The role with name nobody cannot be found.",
        "NotFound",
    ),
    (
        include_str!("../templates/cfn_providers/failure_09.yaml"),
        "Properties validation failed for resource R with message: #/PolicyDocument: expected type: JSONObject, found: JSONArray",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_10.yaml"),
        "1 validation error detected: Value '901' at 'timeout' failed to satisfy constraint: Member must have value less than or equal to 900",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_lambda_two_violations.yaml"),
        "2 validation errors detected: Value '901' at 'timeout' failed to satisfy constraint: Member must have value less than or equal to 900; Value '64' at 'memorySize' failed to satisfy constraint: Member must have value greater than or equal to 128",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_11.yaml"),
        "Properties validation failed for resource R with message: #/Role: failed validation constraint for keyword [pattern]",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_12.yaml"),
        "1 validation error detected: Value '64' at 'memorySize' failed to satisfy constraint: Member must have value greater than or equal to 128",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_13.yaml"),
        "The role defined for the function cannot be assumed by Lambda.",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_14.yaml"),
        "Properties validation failed for resource R with message: #/Timeout: failed validation constraint for keyword [minimum]",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_15.yaml"),
        "Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope",
        "NotFound",
    ),
    (
        include_str!("../templates/cfn_providers/failure_16.yaml"),
        "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: [States] at /'",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_17.yaml"),
        "Invalid Arn: 'Invalid ARN prefix: sfn'",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_18.yaml"),
        "Properties validation failed for resource R with message: #/Type: failed validation constraint for keyword [enum]",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_19.yaml"),
        "Parameter value, cannot be validated against allowedPattern: ^[0-9]+$",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_20.yaml"),
        "Properties validation failed for resource R with message: #/PendingWindowInDays: failed validation constraint for keyword [minimum]",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_21.yaml"),
        "Properties validation failed for resource R with message: #/AliasName: failed validation constraint for keyword [pattern]",
        "InvalidRequest",
    ),
    (
        include_str!("../templates/cfn_providers/failure_22.yaml"),
        "Invalid keyId 'nonsense'",
        "NotFound",
    ),
];

#[tokio::test]
async fn invalid_properties_fail_the_resource_with_the_apis_message_and_roll_back() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    // The role the Lambda cases name, able to be assumed by Lambda.
    emu.app
        .iam
        .create_role(
            "000000000000",
            cumulo::services::iam::CreateRoleInput {
                role_name: "r".into(),
                assume_role_policy_document:
                    r#"{"Statement":[{"Principal":{"Service":"lambda.amazonaws.com"}}]}"#.into(),
                ..Default::default()
            },
        )
        .unwrap();
    for (i, (body, message, code)) in FAILURES.iter().enumerate() {
        let name = format!("bad-{i}");
        let status = deploy(&cfn, &name, body, &[]).await;
        assert_eq!(status, StackStatus::RollbackComplete, "{body}");
        let (logical, reason) = failure(&cfn, &name).await;
        assert_eq!(logical, "R", "{body}");
        assert!(
            reason.starts_with(&format!(
                "Resource handler returned message: \"{message}\" (RequestToken: "
            )),
            "{body}\n{reason}"
        );
        assert!(
            reason.ends_with(&format!(", HandlerErrorCode: {code})")),
            "{body}\n{reason}"
        );
    }
    // Nothing was left behind by the failed creations.
    assert!(emu.app.lambda.list_functions(&scope()).is_empty());
    assert!(emu.app.states.list_state_machines(&scope()).is_empty());
    assert!(emu.app.kms.list_aliases(&scope()).is_empty());
}

#[tokio::test]
async fn deleting_resources_already_gone_succeeds() {
    let emu = Emulator::start().await;
    let cfn = emu.cloudformation().await;
    let body =
        include_str!("../templates/cfn_providers/deleting_resources_already_gone_succeeds.yaml");
    assert_eq!(
        deploy(&cfn, "gone", body, &[]).await,
        StackStatus::CreateComplete
    );
    let out = outputs(&cfn, "gone").await;
    let app = &emu.app;
    let account = "000000000000";
    // Everything goes behind the stack's back.
    app.sns.delete_topic(&out["Topic"]).unwrap();
    app.lambda
        .delete_function(&scope(), &out["Function"])
        .unwrap();
    app.states.delete_state_machine(&out["Flow"]).unwrap();
    app.ssm.delete_parameter(&scope(), &out["Param"]).unwrap();
    app.kms.delete_alias(&scope(), "alias/gone").unwrap();
    app.kms
        .schedule_key_deletion(&scope(), &out["Key"], None)
        .unwrap();
    app.iam
        .delete_role_policy(account, &out["Role"], "p")
        .unwrap();
    app.iam
        .detach_role_policy(account, &out["Role"], &out["Managed"])
        .unwrap();
    app.iam.delete_policy(&out["Managed"]).unwrap();
    let queue_arn = app.sqs.resolve_url(&scope(), &out["Queue"]).unwrap();
    app.sqs.delete_queue(&queue_arn).unwrap();

    let id = describe(&cfn, "gone").await.stack_id().unwrap().to_string();
    cfn.delete_stack().stack_name("gone").send().await.unwrap();
    let events = events(&cfn, &id).await;
    assert_eq!(events.last().map(|e| e.1.as_str()), Some("DELETE_COMPLETE"));
    assert!(events.iter().all(|e| e.1 != "DELETE_FAILED"), "{events:#?}");
    assert!(cfn
        .describe_stacks()
        .stack_name("gone")
        .send()
        .await
        .is_err());
    assert!(app.iam.list_roles(account, None).is_empty());
}
