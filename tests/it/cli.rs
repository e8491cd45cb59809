//! The aws CLI end to end (aws-contract.md §1): `aws cloudformation deploy` of
//! `templates/scheduled-queue.yaml`, the unchanged redeploy ("No changes to deploy", exit 255,
//! or 0 with `--no-fail-on-empty-changeset`), synchronous template errors, and `delete-stack`
//! removing the schedule, group, role and queue. The CLI runs as a child process, so the
//! emulator is served from a multi-threaded runtime and the CLI is waited for off it.

use crate::support::{run_aws_cli, Emulator};

/// Runs the aws CLI without blocking the emulator's runtime.
async fn aws(emu: &Emulator, args: &[&str]) -> (i32, String, String) {
    let endpoint = emu.endpoint.clone();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        run_aws_cli(&endpoint, &refs)
    })
    .await
    .expect("the aws CLI ran")
}

fn template(name: &str) -> String {
    format!("{}/templates/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_redeploy_and_delete_with_the_aws_cli() {
    let emu = Emulator::start().await;
    let file = template("scheduled-queue.yaml");
    let deploy = [
        "cloudformation",
        "deploy",
        "--stack-name",
        "cli-demo",
        "--template-file",
        file.as_str(),
        "--capabilities",
        "CAPABILITY_IAM",
    ];
    let (rc, out, err) = aws(&emu, &deploy).await;
    assert_eq!(rc, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("Successfully created/updated stack - cli-demo"),
        "{out}"
    );

    let cfn = emu.cloudformation().await;
    let stack = crate::fixtures::describe(&cfn, "cli-demo").await;
    assert_eq!(stack.stack_status().unwrap().as_str(), "CREATE_COMPLETE");
    assert!(stack.change_set_id().is_some());
    let resources = cfn
        .describe_stack_resources()
        .stack_name("cli-demo")
        .send()
        .await
        .unwrap();
    let physical = |id: &str| {
        resources
            .stack_resources()
            .iter()
            .find(|r| r.logical_resource_id() == Some(id))
            .and_then(|r| r.physical_resource_id())
            .unwrap()
            .to_string()
    };
    let (queue_url, role, schedule) =
        (physical("Queue"), physical("Role"), physical("EveryMinute"));
    let scheduler = emu.scheduler().await;
    assert!(scheduler
        .get_schedule()
        .name(&schedule)
        .group_name("cli-demo-jobs")
        .send()
        .await
        .is_ok());

    // The schedule fires into the queue at creation and again a minute later (manual clock).
    let receive = [
        "sqs",
        "receive-message",
        "--queue-url",
        queue_url.as_str(),
        "--max-number-of-messages",
        "10",
    ];
    let want = r#"{"environment":"dev","stack":"cli-demo"}"#;
    for (i, at) in [30, 90].into_iter().enumerate() {
        emu.set_clock(crate::support::t0() + chrono::Duration::seconds(at))
            .await;
        let (rc, out, err) = aws(&emu, &receive).await;
        assert_eq!(
            rc, 0,
            "stdout:
{out}
stderr:
{err}"
        );
        let got: serde_json::Value = serde_json::from_str(&out).expect("receive-message JSON");
        let messages = got["Messages"].as_array().expect("Messages");
        assert_eq!(messages.len(), 1, "occurrence {i}: {out}");
        assert_eq!(messages[0]["Body"], want);
        let handle = messages[0]["ReceiptHandle"].as_str().unwrap();
        let (rc, _, err) = aws(
            &emu,
            &[
                "sqs",
                "delete-message",
                "--queue-url",
                queue_url.as_str(),
                "--receipt-handle",
                handle,
            ],
        )
        .await;
        assert_eq!(rc, 0, "{err}");
    }

    // Unchanged: the change set is empty; exit 255 by default, 0 with the flag.
    let (rc, out, err) = aws(&emu, &deploy).await;
    assert_eq!(rc, 255, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        err.contains("No changes to deploy. Stack cli-demo is up to date"),
        "{err}"
    );
    let mut lenient = deploy.to_vec();
    lenient.push("--no-fail-on-empty-changeset");
    let (rc, out, err) = aws(&emu, &lenient).await;
    assert_eq!(rc, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("No changes to deploy. Stack cli-demo is up to date"),
        "{out}"
    );

    // A parameter override is an update.
    let mut prod = deploy.to_vec();
    prod.extend(["--parameter-overrides", "Environment=prod"]);
    let (rc, out, err) = aws(&emu, &prod).await;
    assert_eq!(rc, 0, "stdout:\n{out}\nstderr:\n{err}");
    let got = scheduler
        .get_schedule()
        .name(&schedule)
        .group_name("cli-demo-jobs")
        .send()
        .await
        .unwrap();
    assert_eq!(got.description(), Some("Ticks for prod"));
    assert_eq!(
        crate::fixtures::status(&cfn, "cli-demo").await.as_str(),
        "UPDATE_COMPLETE"
    );

    let (rc, out, err) = aws(
        &emu,
        &["cloudformation", "delete-stack", "--stack-name", "cli-demo"],
    )
    .await;
    assert_eq!(rc, 0, "stdout:\n{out}\nstderr:\n{err}");
    let sqs = emu.sqs().await;
    assert!(sqs
        .get_queue_attributes()
        .queue_url(&queue_url)
        .send()
        .await
        .is_err());
    assert!(emu.app.iam.get_role("000000000000", &role).is_err());
    assert!(scheduler
        .get_schedule_group()
        .name("cli-demo-jobs")
        .send()
        .await
        .is_err());
    assert!(scheduler
        .get_schedule()
        .name(&schedule)
        .group_name("cli-demo-jobs")
        .send()
        .await
        .is_err());
    let (rc, _, err) = aws(
        &emu,
        &[
            "cloudformation",
            "describe-stacks",
            "--stack-name",
            "cli-demo",
        ],
    )
    .await;
    assert_eq!(rc, 255);
    assert!(
        err.contains("Stack with id cli-demo does not exist"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn template_errors_and_missing_capabilities_fail_deploy_at_once() {
    let emu = Emulator::start().await;
    let dir = std::env::temp_dir().join(format!("cumulo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "not-an-object.yaml",
            include_str!("../templates/cli/template_errors_and_missing_capabilities_fail_deploy_at_once.yaml"),
            "An error occurred (ValidationError) when calling the CreateChangeSet operation: Template format error: Any Resources member must be an object.",
        ),
        (
            "unknown.yaml",
            include_str!("../templates/cli/template_errors_and_missing_capabilities_fail_deploy_at_once_2.yaml"),
            "Template format error: Unrecognized resource types: [AWS::Nope::Thing]",
        ),
    ];
    for (file, body, expected) in cases {
        let path = dir.join(file);
        std::fs::write(&path, body).unwrap();
        let (rc, out, err) = aws(
            &emu,
            &[
                "cloudformation",
                "deploy",
                "--stack-name",
                "cli-bad",
                "--template-file",
                path.to_str().unwrap(),
            ],
        )
        .await;
        assert_eq!(rc, 255, "{file}: stdout:\n{out}\nstderr:\n{err}");
        assert!(err.contains(expected), "{file}: {err}");
    }
    let file = template("scheduled-queue.yaml");
    let (rc, _, err) = aws(
        &emu,
        &[
            "cloudformation",
            "deploy",
            "--stack-name",
            "cli-nocap",
            "--template-file",
            file.as_str(),
        ],
    )
    .await;
    assert_eq!(rc, 255);
    assert!(
        err.contains("An error occurred (InsufficientCapabilitiesException) when calling the CreateChangeSet operation: Requires capabilities : [CAPABILITY_IAM]"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_through_an_s3_bucket_with_aws_endpoint_url() {
    let emu = Emulator::start().await;
    emu.app
        .s3
        .create_bucket(&cumulo::ids::Scope::default_scope(), "deploys", None)
        .unwrap();
    // `deploy` builds its S3 client without --endpoint-url: AWS_ENDPOINT_URL sends it here
    // (aws-contract.md §1.5).
    let endpoint = emu.endpoint.clone();
    let file = template("scheduled-queue.yaml");
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(crate::support::aws_cli().as_path())
            .args([
                "cloudformation",
                "deploy",
                "--stack-name",
                "via-s3",
                "--template-file",
                &file,
                "--capabilities",
                "CAPABILITY_IAM",
                "--s3-bucket",
                "deploys",
                "--s3-prefix",
                "pfx",
                "--endpoint-url",
                &endpoint,
                "--region",
                "us-east-1",
            ])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", std::env::var_os("HOME").unwrap_or_default())
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_ENDPOINT_URL", &endpoint)
            .env("AWS_CONFIG_FILE", "/dev/null")
            .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
            .env("AWS_MAX_ATTEMPTS", "1")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("PYTHONWARNINGS", "ignore")
            .output()
            .expect("run the aws CLI")
    })
    .await
    .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let cfn = emu.cloudformation().await;
    assert_eq!(
        crate::fixtures::status(&cfn, "via-s3").await.as_str(),
        "CREATE_COMPLETE"
    );
    let uploaded = emu
        .app
        .s3
        .list_objects("deploys", &Default::default())
        .unwrap();
    assert_eq!(uploaded.contents.len(), 1);
    assert!(uploaded.contents[0].key.starts_with("pfx/"));
}
