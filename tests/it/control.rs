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
