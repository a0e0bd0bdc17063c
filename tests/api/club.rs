//! What a club's evening needs beyond the moves: each finished deal's standing for the score
//! sheet (`GET /tables/{id}/deals`), the server's public address for join QR codes
//! (`GET /info`, from `PUBLIC_URL`), and `tablekeeper qr`, which prints the address phones open.

use std::process::{Command, Stdio};

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, spawn_app_with};
use crate::scorers::scorer;

fn result(tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": tricks})
}

#[sqlx::test(migrations = "./migrations")]
async fn the_deals_list_gives_each_finished_deals_status_as_it_stands(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app
        .table(
            &organiser,
            &["Ann", "Bob", "Cat", "Dan"],
            json!({"hand_sizes": [1, 1, 1, 1]}),
        )
        .await;
    let deals = format!("/api/v1/tables/{table}/deals");
    assert_eq!(
        app.get(&deals).await.assert_status(200),
        &json!([]),
        "no finished deal yet"
    );
    let (ann, _) = scorer(&app, &organiser, &table, "Ann's phone").await;
    let (bob, _) = scorer(&app, &organiser, &table, "Bob's phone").await;
    for tricks in [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]] {
        app.submit(&table, &ann, result(tricks)).await.assert_status(201);
    }
    let verify = |deal: u16, body: Value| {
        let app = &app;
        let bob = bob.clone();
        let table = table.clone();
        async move {
            app.post(&format!("/api/v1/tables/{table}/deals/{deal}/verification"), &bob, body)
                .await
                .assert_status(201);
        }
    };
    verify(1, json!({"agree": true})).await;
    verify(2, json!({"agree": false, "moves": [result([0, 1, 0, 0])]})).await;
    assert_eq!(
        app.get(&deals).await.assert_status(200),
        &json!([
            {"deal": 1, "status": "verified"},
            {"deal": 2, "status": "disputed"},
            {"deal": 3, "status": "unverified"},
        ])
    );
    // A correction of deal 1 leaves it unverified until someone verifies it again.
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/1"),
        Some(&organiser),
        Some(json!({"moves": [result([0, 0, 0, 1])], "expected_version": 3, "reason": "Dan took it"})),
    )
    .await
    .assert_status(200);
    assert_eq!(
        app.get(&deals).await.assert_status(200)[0],
        json!({"deal": 1, "status": "unverified"})
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn the_deals_list_of_an_unknown_table_is_not_found(pool: PgPool) {
    let app = spawn_app(pool).await;
    // Reads need a token (issue #25): the rig reads with its first organiser's.
    app.organiser("reader@example.org").await;
    app.get(&format!("/api/v1/tables/{}/deals", uuid::Uuid::new_v4()))
        .await
        .assert_problem(404, "table_not_found");
    app.get("/api/v1/tables/not-a-table/deals")
        .await
        .assert_problem(404, "not_found");
}

#[sqlx::test(migrations = "./migrations")]
async fn the_server_tells_the_page_its_public_address_when_it_has_one(pool: PgPool) {
    let app = spawn_app_with(pool.clone(), |s| s.public_url = Some("http://192.168.1.20:8080".into())).await;
    assert_eq!(
        app.get("/api/v1/info").await.assert_status(200),
        &json!({"public_url": "http://192.168.1.20:8080"})
    );
    let local = spawn_app(pool).await;
    assert_eq!(
        local.get("/api/v1/info").await.assert_status(200),
        &json!({"public_url": null})
    );
}

#[test]
fn tablekeeper_qr_prints_the_address_as_a_qr_code_and_refuses_without_one() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tablekeeper"))
            .args(args)
            .env_clear()
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };
    let out = run(&["qr", "http://192.168.1.20:8080/"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    // A version-2 code with its quiet zone: 33 modules wide, two modules a line.
    assert!(lines.len() >= 15, "{text}");
    assert!(
        lines.iter().all(|l| l.chars().count() == lines[0].chars().count()),
        "a square: {text}"
    );
    assert!(text.contains('█') || text.contains('▀') || text.contains('▄'), "{text}");
    let bad = run(&["qr"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("usage: tablekeeper qr TEXT"));
}
