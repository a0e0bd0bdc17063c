//! Conditional requests on a table, its score sheet and its ledger.

use reqwest::Method;
use serde_json::json;
use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "./migrations")]
async fn a_reader_holding_the_current_etag_gets_304_and_a_stale_one_gets_the_body(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("etag@example.com").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    for path in [
        format!("/api/v1/tables/{table}"),
        format!("/api/v1/tables/{table}/scores"),
        format!("/api/v1/tables/{table}/ledger"),
    ] {
        let first = app.get(&path).await;
        first.assert_status(200);
        let tag = first
            .headers
            .get("etag")
            .expect("an ETag")
            .to_str()
            .expect("text")
            .to_owned();
        assert_eq!(tag, "\"0\"", "{path}");

        let fresh = app
            .send(Method::GET, &path, Some(&token), None, &[("If-None-Match", &tag)])
            .await;
        assert_eq!(fresh.status.as_u16(), 304, "{path}");
        assert_eq!(fresh.body, serde_json::Value::Null, "a 304 has no body");
        let weak = app
            .send(
                Method::GET,
                &path,
                Some(&token),
                None,
                &[("If-None-Match", "\"7\", W/\"0\"")],
            )
            .await;
        assert_eq!(weak.status.as_u16(), 304, "{path}: a list with a weak match");
    }
    app.submit(&table, &token, json!({"kind": "nominate", "seat": 1, "tricks": 0}))
        .await
        .assert_status(201);
    for path in [
        format!("/api/v1/tables/{table}"),
        format!("/api/v1/tables/{table}/scores"),
        format!("/api/v1/tables/{table}/ledger"),
    ] {
        let stale = app
            .send(Method::GET, &path, Some(&token), None, &[("If-None-Match", "\"0\"")])
            .await;
        stale.assert_status(200);
        assert_eq!(
            stale.headers.get("etag").and_then(|v| v.to_str().ok()),
            Some("\"1\""),
            "{path}"
        );
        assert_eq!(stale.body["version"], 1, "{path}");
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_or_undo_with_a_stale_if_match_is_refused_with_412_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ifmatch@example.com").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let moves = format!("/api/v1/tables/{table}/moves");
    let nominate = |seat: u8| json!({"move": {"kind": "nominate", "seat": seat, "tricks": 0}}).to_string();

    let current = app
        .send(
            Method::POST,
            &moves,
            Some(&token),
            Some(nominate(1)),
            &[("If-Match", "\"0\"")],
        )
        .await;
    current.assert_status(201);
    let any = app
        .send(
            Method::POST,
            &moves,
            Some(&token),
            Some(nominate(2)),
            &[("If-Match", "*")],
        )
        .await;
    any.assert_status(201);

    let before = app.snapshot(&table).await;
    for stale in ["\"1\"", "\"0\", \"1\"", "\"banana\""] {
        app.send(
            Method::POST,
            &moves,
            Some(&token),
            Some(nominate(3)),
            &[("If-Match", stale)],
        )
        .await
        .assert_problem(412, "precondition_failed");
        app.send(
            Method::POST,
            &format!("/api/v1/tables/{table}/undo"),
            Some(&token),
            None,
            &[("If-Match", stale)],
        )
        .await
        .assert_problem(412, "precondition_failed");
    }
    assert_eq!(
        app.snapshot(&table).await,
        before,
        "a refused precondition changed nothing"
    );

    let undo = app
        .send(
            Method::POST,
            &format!("/api/v1/tables/{table}/undo"),
            Some(&token),
            None,
            &[("If-Match", "\"2\"")],
        )
        .await;
    undo.assert_status(200);
    assert_eq!(undo.body["table"]["version"], 3);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_naming_another_deal_is_refused_with_deal_mismatch_and_a_result_posted_twice_books_once(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("guard@example.com").await;
    let table = app
        .table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({"hand_sizes": [1, 1, 1]}))
        .await;
    let moves = format!("/api/v1/tables/{table}/moves");
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 1], "tricks": [0, 1, 0, 0]});

    let before = app.snapshot(&table).await;
    app.post(&moves, &token, json!({"move": result, "deal": 2}))
        .await
        .assert_problem(409, "deal_mismatch");
    assert_eq!(
        app.snapshot(&table).await,
        before,
        "a refused deal guard changed nothing"
    );

    app.post(&moves, &token, json!({"move": result, "deal": 1}))
        .await
        .assert_status(201);
    // A second phone posts the same deal's result again: refused, not booked as deal 2.
    let before = app.snapshot(&table).await;
    let twice = app.post(&moves, &token, json!({"move": result, "deal": 1})).await;
    twice.assert_problem(409, "deal_mismatch");
    assert!(
        twice.body["detail"].as_str().is_some_and(|d| d.contains("deal 2")),
        "{}",
        twice.body
    );
    assert_eq!(app.snapshot(&table).await, before);

    app.post(&moves, &token, json!({"move": result, "deal": 2}))
        .await
        .assert_status(201);
    let scores = app.scores(&table).await;
    assert_eq!(scores["sheet"]["deals"].as_array().map(Vec::len), Some(2), "{scores}");
    // The first move of a deal may name it too; a move without it is not guarded.
    app.post(
        &moves,
        &token,
        json!({"move": {"kind": "nominate", "seat": 3, "tricks": 0}, "deal": 3}),
    )
    .await
    .assert_status(201);
    app.post(
        &moves,
        &token,
        json!({"move": {"kind": "nominate", "seat": 0, "tricks": 0}}),
    )
    .await
    .assert_status(201);
}
