//! `/_cumulo/` endpoints (`../shared/spec/extensions.md`): health, clock, faults.

use serde_json::json;

use crate::support::{t0, Emulator};

#[tokio::test]
async fn health_reports_running_services_and_the_localstack_alias_answers() {
    let emu = Emulator::start().await;
    let (status, body) = emu.control("GET", "/_cumulo/health", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "running");
    for service in ["scheduler", "cloudformation", "sqs"] {
        assert_eq!(body["services"][service], "running", "{body}");
    }
    let (status, body) = emu.control("GET", "/_localstack/health", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["edition"], "community");
}

#[tokio::test]
async fn manual_clock_sets_advances_and_refuses_to_go_back() {
    let emu = Emulator::start().await;
    let (_, body) = emu.control("GET", "/_cumulo/clock", None).await;
    assert_eq!(
        body,
        json!({ "now": "2030-01-01T12:00:00Z", "mode": "manual" })
    );
    let body = emu.set_clock(t0() + chrono::Duration::hours(1)).await;
    assert_eq!(body["now"], "2030-01-01T13:00:00Z");
    assert!(body["fired"].is_array());
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/clock",
            Some(json!({ "advance_seconds": 0.5 })),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["now"], "2030-01-01T13:00:00.5Z");
    for bad in [
        json!({ "set": "2030-01-01T12:00:00Z" }),
        json!({ "advance_seconds": -1 }),
        json!({ "mode": "sideways" }),
        json!({}),
    ] {
        let (status, body) = emu
            .control("POST", "/_cumulo/clock", Some(bad.clone()))
            .await;
        assert_eq!(status, 400, "{bad} -> {body}");
        assert_eq!(body["error"], "ValidationException");
    }
    let (_, body) = emu.control("GET", "/_cumulo/clock", None).await;
    assert_eq!(body["now"], "2030-01-01T13:00:00.5Z");
}

#[tokio::test]
async fn system_mode_refuses_manual_moves() {
    let emu = Emulator::start().await;
    let (status, _) = emu
        .control("POST", "/_cumulo/clock", Some(json!({ "mode": "system" })))
        .await;
    assert_eq!(status, 200);
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/clock",
            Some(json!({ "advance_seconds": 5 })),
        )
        .await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn fault_rules_are_created_listed_and_deleted() {
    let emu = Emulator::start().await;
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/faults",
            Some(
                json!({ "stack_name": "s", "operation": "update", "count": 2, "message": "boom" }),
            ),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    let (_, body) = emu.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(body["faults"][0]["id"], id.as_str());
    assert_eq!(body["faults"][0]["remaining"], 2);
    let (status, body) = emu
        .control("DELETE", &format!("/_cumulo/faults/{id}"), None)
        .await;
    assert_eq!((status, body), (200, json!({})));
    let (status, body) = emu.control("DELETE", "/_cumulo/faults/nope", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"], "ResourceNotFoundException");
    for bad in [
        json!({ "operation": "explode", "message": "x" }),
        json!({ "stack": "typo", "message": "x" }),
        json!({ "message": "x", "hold_seconds": 61 }),
    ] {
        let (status, body) = emu
            .control("POST", "/_cumulo/faults", Some(bad.clone()))
            .await;
        assert_eq!(status, 400, "{bad} -> {body}");
        assert_eq!(body["error"], "ValidationException");
    }
}

#[tokio::test]
async fn reset_answers_an_empty_object() {
    let emu = Emulator::start().await;
    emu.control("POST", "/_cumulo/faults", Some(json!({ "message": "x" })))
        .await;
    let (status, body) = emu.control("POST", "/_cumulo/reset", Some(json!({}))).await;
    assert_eq!((status, body), (200, json!({})));
    let (_, body) = emu.control("GET", "/_cumulo/faults", None).await;
    assert_eq!(body["faults"], json!([]));
}

#[tokio::test]
async fn clock_moves_past_year_9999_are_refused_and_leave_the_clock_alone() {
    let emu = Emulator::start().await;
    for bad in [
        json!({ "advance_seconds": 1e30 }),
        json!({ "advance_seconds": 1e12 }),
        json!({ "advance_seconds": 260_000_000_000.0_f64 }),
    ] {
        let (status, body) = emu
            .control("POST", "/_cumulo/clock", Some(bad.clone()))
            .await;
        assert_eq!(status, 400, "{bad} -> {body}");
        assert_eq!(body["error"], "ValidationException");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("past 9999-12-31T23:59:59Z"),
            "{body}"
        );
    }
    let (_, body) = emu.control("GET", "/_cumulo/clock", None).await;
    assert_eq!(body["now"], "2030-01-01T12:00:00Z");
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/clock",
            Some(json!({ "set": "9999-12-31T23:59:59Z" })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["now"], "9999-12-31T23:59:59Z");
    assert_eq!(body["complete"], true);
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/clock",
            Some(json!({ "advance_seconds": 1 })),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (_, body) = emu.control("GET", "/_cumulo/clock", None).await;
    assert_eq!(body["now"], "9999-12-31T23:59:59Z");
}

#[tokio::test]
async fn a_clock_move_over_more_than_ten_thousand_attempts_stops_and_says_so() {
    use aws_sdk_scheduler::types::{FlexibleTimeWindow, FlexibleTimeWindowMode, Target};
    let emu = Emulator::start().await;
    emu.sqs()
        .await
        .create_queue()
        .queue_name("busy")
        .send()
        .await
        .unwrap();
    emu.scheduler()
        .await
        .create_schedule()
        .name("every-minute")
        .schedule_expression("rate(1 minute)")
        .flexible_time_window(
            FlexibleTimeWindow::builder()
                .mode(FlexibleTimeWindowMode::Off)
                .build()
                .unwrap(),
        )
        .target(
            Target::builder()
                .arn("arn:aws:sqs:us-east-1:000000000000:busy")
                .role_arn("arn:aws:iam::000000000000:role/r")
                .input("tick")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // Ten days of a one-minute rate: 14,401 occurrences are due, more than one move runs.
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/clock",
            Some(json!({ "advance_seconds": 10 * 86_400 })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["complete"], false);
    let fired = body["fired"].as_array().unwrap();
    assert_eq!(fired.len(), cumulo::scheduler::MAX_ATTEMPTS_PER_MOVE);
    let last = fired.last().unwrap()["scheduled_time"].clone();
    assert_eq!(body["now"], last, "the clock stops at the last attempt run");
    assert_eq!(last, "2030-01-08T10:39:00Z");
    // The next move goes on from there without repeating an occurrence.
    let (status, body) = emu
        .control(
            "POST",
            "/_cumulo/clock",
            Some(json!({ "set": "2030-01-11T12:00:00Z" })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["complete"], true);
    let rest = body["fired"].as_array().unwrap();
    assert_eq!(
        rest.len(),
        14_401 - cumulo::scheduler::MAX_ATTEMPTS_PER_MOVE
    );
    assert_eq!(rest[0]["scheduled_time"], "2030-01-08T10:40:00Z");
    assert_eq!(body["now"], "2030-01-11T12:00:00Z");
}

#[tokio::test]
async fn control_errors_are_json_whatever_the_request() {
    let emu = Emulator::start().await;
    // A body without a JSON content type is read as JSON (`curl -d '{...}'`).
    let (status, _, body) = emu
        .raw(
            "POST",
            "/_cumulo/clock",
            &[("content-type", "application/x-www-form-urlencoded")],
            r#"{"advance_seconds":60}"#,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let cases: [(&str, &str, &str, u16, &str); 5] = [
        (
            "POST",
            "/_cumulo/clock",
            "{not json",
            400,
            "ValidationException",
        ),
        ("POST", "/_cumulo/faults", "[1,", 400, "ValidationException"),
        (
            "PUT",
            "/_cumulo/clock",
            "{}",
            405,
            "MethodNotAllowedException",
        ),
        ("GET", "/_cumulo/nope", "", 404, "ResourceNotFoundException"),
        ("DELETE", "/_cumulo", "", 404, "ResourceNotFoundException"),
    ];
    for (method, path, request, code, error) in cases {
        let (status, headers, body) = emu.raw(method, path, &[], request).await;
        assert_eq!(status, code, "{method} {path}: {body}");
        assert_eq!(
            headers["content-type"], "application/json",
            "{method} {path}"
        );
        let body: serde_json::Value = serde_json::from_str(&body).expect("json error");
        assert_eq!(body["error"], error, "{method} {path}: {body}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    for path in ["/_cumulo/clock", "/_cumulo/faults"] {
        let (status, body) = emu
            .control("POST", path, Some(json!([null, null, 60])))
            .await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("must be a JSON object"),
            "{path}: {body}"
        );
    }
    let (_, body) = emu.control("GET", "/_cumulo/clock", None).await;
    assert_eq!(
        body["now"], "2030-01-01T12:01:00Z",
        "only the first move moved it"
    );
    let (status, body) = emu
        .control("GET", "/_cumulo/scheduler/invocations?limit=0", None)
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["message"], "limit must be a positive integer, got '0'");
}

#[tokio::test]
async fn previews_stop_at_the_latest_instant_the_clock_can_show() {
    let emu = Emulator::start().await;
    let (status, body) = emu
        .control(
            "GET",
            "/_cumulo/scheduler/preview?expression=rate(1%20minute)&after=9999-12-31T23:57:30Z&count=5",
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let utc: Vec<&str> = body["fires"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["utc"].as_str().unwrap())
        .collect();
    assert_eq!(utc, ["9999-12-31T23:58:30Z", "9999-12-31T23:59:30Z"]);
}
