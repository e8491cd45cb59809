//! `GET /_cumulo/scheduler/preview` over HTTP (`../shared/spec/extensions.md`): next fires of
//! an expression in a zone, each in UTC and with the zone's offset, and the 400s that carry
//! CreateSchedule's ValidationException message.

use serde_json::{json, Value};

use crate::support::Emulator;

fn query(params: &[(&str, &str)]) -> String {
    let encoded: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    format!("/_cumulo/scheduler/preview?{encoded}")
}

async fn preview(emu: &Emulator, params: &[(&str, &str)]) -> (u16, Value) {
    emu.control("GET", &query(params), None).await
}

#[tokio::test]
async fn preview_lists_fires_in_utc_and_local_time() {
    let emu = Emulator::start().await;
    let (status, body) = preview(
        &emu,
        &[
            ("expression", "cron(0 2 * * ? *)"),
            ("timezone", "America/New_York"),
            ("after", "2025-03-09T06:30:00Z"),
            ("count", "2"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "fires": [
            { "utc": "2025-03-10T06:00:00Z", "local": "2025-03-10T02:00:00-04:00" },
            { "utc": "2025-03-11T06:00:00Z", "local": "2025-03-11T02:00:00-04:00" },
        ]})
    );
}

#[tokio::test]
async fn preview_defaults_to_utc_five_fires_from_now() {
    // The support clock starts at 2030-01-01T12:00:00Z.
    let emu = Emulator::start().await;
    let (status, body) = preview(&emu, &[("expression", "rate(1 hour)")]).await;
    assert_eq!(status, 200, "{body}");
    let fires = body["fires"].as_array().expect("fires array");
    assert_eq!(fires.len(), 5);
    assert_eq!(
        fires[0],
        json!({ "utc": "2030-01-01T13:00:00Z", "local": "2030-01-01T13:00:00+00:00" })
    );
    assert_eq!(fires[4]["utc"], "2030-01-01T17:00:00Z");
}

#[tokio::test]
async fn preview_of_a_cron_that_never_fires_is_empty() {
    let emu = Emulator::start().await;
    for expression in [
        "cron(0 0 30 2 ? *)",
        "cron(0 0 1 1 ? 2002-2025)",
        "at(2022-12-31T23:59:59)",
    ] {
        let (status, body) = preview(&emu, &[("expression", expression), ("count", "100")]).await;
        assert_eq!(status, 200, "{expression}: {body}");
        assert_eq!(body, json!({ "fires": [] }), "{expression}");
    }
}

#[tokio::test]
async fn preview_rejects_an_invalid_expression_with_create_schedule_message() {
    let emu = Emulator::start().await;
    for expression in [
        "rate(10 seconds)",
        " rate(10 minutes)",
        "cron(0 1 * * * *)",
        "cron(0 12 ? * 3#1,6#3 *)",
        "at(2021-12-31T23:59:59Z)",
    ] {
        let (status, body) = preview(
            &emu,
            &[
                ("expression", expression),
                ("timezone", "Mars/Olympus_Mons"),
            ],
        )
        .await;
        assert_eq!(status, 400, "{expression}: {body}");
        assert_eq!(
            body,
            json!({
                "error": "ValidationException",
                "message": format!("Invalid Schedule Expression {expression}."),
            })
        );
    }
}

#[tokio::test]
async fn preview_rejects_an_unknown_zone() {
    let emu = Emulator::start().await;
    for zone in ["Mars/Olympus_Mons", "", "america/new_york"] {
        let (status, body) =
            preview(&emu, &[("expression", "rate(1 hour)"), ("timezone", zone)]).await;
        assert_eq!(status, 400, "{zone:?}: {body}");
        assert_eq!(
            body,
            json!({
                "error": "ValidationException",
                "message": format!("Invalid ScheduleExpressionTimezone {zone}."),
            })
        );
    }
}
