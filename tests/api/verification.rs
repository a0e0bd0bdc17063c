//! Verification of finished deals by a second phone: agreement, disputes with the fields that
//! differ, the session's counts, and every verification that is refused.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, TestApp};
use crate::scorers::scorer;

fn result(nominations: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": [0, 1, 0, 0]})
}

async fn verify(app: &TestApp, table: &str, token: &str, deal: u16, body: Value) -> crate::helpers::Answer {
    app.post(
        &format!("/api/v1/tables/{table}/deals/{deal}/verification"),
        token,
        body,
    )
    .await
}

async fn session_counts(app: &TestApp, session: &str) -> Value {
    app.get(&format!("/api/v1/sessions/{session}")).await.assert_status(200)["verification"][0].clone()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_second_phone_verifies_or_disputes_and_the_session_counts_them(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let session = app
        .post("/api/v1/sessions", &organiser, json!({"name": "Whist night"}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session});
    let table = app.post("/api/v1/tables", &organiser, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let (ann, _) = scorer(&app, &organiser, &table, "Ann's phone").await;
    let (bob, _) = scorer(&app, &organiser, &table, "Bob's phone").await;
    app.submit(&table, &ann, result([0, 1, 0, 0])).await.assert_status(201);
    assert_eq!(
        session_counts(&app, &session).await,
        json!({"table_id": table, "deals": 1, "unverified": 1, "disputed": 0})
    );

    // The phone that recorded the deal cannot verify it.
    let before = app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body;
    verify(&app, &table, &ann, 1, json!({"agree": true}))
        .await
        .assert_problem(403, "own_deal");
    assert_eq!(app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body, before);

    let verified = verify(&app, &table, &bob, 1, json!({"agree": true}))
        .await
        .assert_status(201)
        .clone();
    assert_eq!(verified["status"], "verified");
    assert_eq!(verified["verifications"][0]["verified_by_name"], "Bob's phone");
    assert_eq!(
        session_counts(&app, &session).await,
        json!({"table_id": table, "deals": 1, "unverified": 0, "disputed": 0})
    );

    // The organiser disputes with their own result: the fields that differ are listed.
    let disputed = verify(
        &app,
        &table,
        &organiser,
        1,
        json!({"agree": false, "moves": [result([0, 1, 0, 1])]}),
    )
    .await
    .assert_status(201)
    .clone();
    assert_eq!(disputed["status"], "disputed");
    let differs: Vec<&str> = disputed["differs"]
        .as_array()
        .expect("differs")
        .iter()
        .map(|d| d.as_str().expect("pointer"))
        .collect();
    assert!(differs.iter().any(|d| d.contains("nominations")), "{differs:?}");
    assert!(differs.iter().all(|d| !d.contains("tricks")), "{differs:?}");
    assert_eq!(
        session_counts(&app, &session).await,
        json!({"table_id": table, "deals": 1, "unverified": 0, "disputed": 1})
    );
    let scores = app.scores(&table).await["sheet"].clone();

    // A correction makes the deal unverified again; undoing it brings the dispute back.
    let version = app.state(&table).await["version"].as_i64().expect("version");
    let corrected = app
        .request(
            reqwest::Method::PUT,
            &format!("/api/v1/tables/{table}/deals/1"),
            Some(&organiser),
            Some(json!({"moves": [result([0, 1, 0, 1])], "expected_version": version, "reason": "Dan said one"})),
        )
        .await
        .assert_status(200)
        .clone();
    assert_eq!(corrected["status"], "unverified");
    assert_ne!(app.scores(&table).await["sheet"], scores);
    app.post(&format!("/api/v1/tables/{table}/undo"), &bob, json!({}))
        .await
        .assert_status(200);
    assert_eq!(app.scores(&table).await["sheet"], scores);
    let deal = app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body;
    assert_eq!(deal["status"], "disputed");
}

#[sqlx::test(migrations = "./migrations")]
async fn every_bad_verification_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (ann, _) = scorer(&app, &organiser, &table, "Ann's phone").await;
    let (bob, _) = scorer(&app, &organiser, &table, "Bob's phone").await;
    let other = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (stranger, _) = scorer(&app, &organiser, &other, "Eve's phone").await;
    app.submit(&table, &ann, result([0, 1, 0, 0])).await.assert_status(201);
    // Deal 2 under way: its first nomination.
    let seat = app.state(&table).await["state"]["to_act"].clone();
    let nomination = json!({"kind": "nominate", "seat": seat, "tricks": 0});
    app.submit(&table, &ann, nomination).await.assert_status(201);
    let before = app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body;
    let snapshot = app.snapshot(&table).await;

    let cases: Vec<(&str, u16, Value, u16, &str)> = vec![
        (&bob, 2, json!({"agree": true}), 409, "deal_not_finished"),
        (&bob, 3, json!({"agree": true}), 404, "deal_not_found"),
        (&bob, 9, json!({"agree": true}), 404, "deal_not_found"),
        (&stranger, 1, json!({"agree": true}), 404, "table_not_found"),
        (
            &bob,
            1,
            json!({"agree": true, "moves": [result([0, 1, 0, 0])]}),
            422,
            "invalid_verification",
        ),
        (&bob, 1, json!({"agree": false}), 422, "invalid_verification"),
        (
            &bob,
            1,
            json!({"agree": false, "moves": [result([0, 1, 0, 0])]}),
            422,
            "dispute_matches_record",
        ),
        (
            &bob,
            1,
            json!({"agree": false, "moves": [{"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [1, 1, 0, 0]}]}),
            422,
            "tricks_do_not_add_up",
        ),
    ];
    for (token, deal, body, status, code) in cases {
        verify(&app, &table, token, deal, body.clone())
            .await
            .assert_problem(status, code);
        assert_eq!(
            app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body,
            before,
            "{body}"
        );
    }
    assert_eq!(app.snapshot(&table).await, snapshot);
}
