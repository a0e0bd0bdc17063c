//! Idempotency-Key answers of moves are kept for a window (`IDEMPOTENCY_RETENTION_SECS`), then
//! pruned: a retry within it replays the first answer, one after it is a new request. A kept
//! answer is made older by moving its `created_at` back, so no test waits for a clock.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;
use sqlx::PgPool;

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

const NOMINATE: &str = r#"{"move": {"kind": "nominate", "seat": 1, "tricks": 0}, "expected_version": 0}"#;
const KEY: [(&str, &str); 1] = [("Idempotency-Key", "phone-1-move-1")];

/// An organiser's token and a four-player Nomination Whist table.
async fn table(app: &TestApp) -> (String, String) {
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    (token, table)
}

/// Makes every answer kept for `table` look `age` old.
async fn age_answers(app: &TestApp, table: &str, age: &str) {
    sqlx::query("update idempotency_keys set created_at = created_at - $2::interval where table_id = $1::uuid")
        .bind(table)
        .bind(age)
        .execute(&app.pool)
        .await
        .expect("answers aged");
}

async fn kept_answers(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar("select count(*) from idempotency_keys where table_id = $1::uuid")
        .bind(table)
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

#[sqlx::test(migrations = "./migrations")]
async fn a_retry_within_the_default_day_replays_the_first_answer(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, table) = table(&app).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let first = app
        .send(Method::POST, &path, Some(&token), Some(NOMINATE.into()), &KEY)
        .await;
    first.assert_status(201);
    age_answers(&app, &table, "23 hours").await;

    let retry = app
        .send(Method::POST, &path, Some(&token), Some(NOMINATE.into()), &KEY)
        .await;

    retry.assert_status(201);
    assert_eq!(retry.headers["idempotent-replayed"], "true");
    assert_eq!(retry.text, first.text);
    assert_eq!(app.log(&table).await.as_array().expect("log").len(), 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_retry_after_a_shortened_window_is_a_new_request_and_changes_nothing_when_stale(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.idempotency_retention = Duration::from_secs(3600)).await;
    let (token, table) = table(&app).await;
    let path = format!("/api/v1/tables/{table}/moves");
    let first = app
        .send(Method::POST, &path, Some(&token), Some(NOMINATE.into()), &KEY)
        .await;
    first.assert_status(201);
    age_answers(&app, &table, "59 minutes").await;
    let within = app
        .send(Method::POST, &path, Some(&token), Some(NOMINATE.into()), &KEY)
        .await;
    within.assert_status(201);
    assert_eq!(within.headers["idempotent-replayed"], "true");
    assert_eq!(within.text, first.text);

    age_answers(&app, &table, "2 minutes").await;
    let before = app.snapshot(&table).await;
    let after = app
        .send(Method::POST, &path, Some(&token), Some(NOMINATE.into()), &KEY)
        .await;

    // Not replayed: the request is checked as new, and its expected_version is stale.
    after.assert_problem(409, "version_conflict");
    assert!(after.headers.get("idempotent-replayed").is_none());
    assert_eq!(app.snapshot(&table).await, before);
    assert_eq!(kept_answers(&app, &table).await, 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_key_whose_answer_expired_records_a_new_move_and_keeps_its_answer(pool: PgPool) {
    let app = spawn_app_with(pool, |s| s.idempotency_retention = Duration::from_secs(3600)).await;
    let (token, table) = table(&app).await;
    let path = format!("/api/v1/tables/{table}/moves");
    app.send(Method::POST, &path, Some(&token), Some(NOMINATE.into()), &KEY)
        .await
        .assert_status(201);
    age_answers(&app, &table, "2 hours").await;

    // Another body under the same key: within the window it would be idempotency_key_reused.
    let next = r#"{"move": {"kind": "nominate", "seat": 2, "tricks": 0}, "expected_version": 1}"#;
    let second = app
        .send(Method::POST, &path, Some(&token), Some(next.into()), &KEY)
        .await;
    second.assert_status(201);
    assert!(second.headers.get("idempotent-replayed").is_none());
    assert_eq!(second.body["table"]["version"], 2);
    assert_eq!(app.log(&table).await.as_array().expect("log").len(), 2);

    // The new answer took the expired one's place, and answers a retry.
    let retry = app
        .send(Method::POST, &path, Some(&token), Some(next.into()), &KEY)
        .await;
    assert_eq!(retry.headers["idempotent-replayed"], "true");
    assert_eq!(retry.text, second.text);
    assert_eq!(kept_answers(&app, &table).await, 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn the_pruner_deletes_only_answers_older_than_the_window(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (token, old_table) = table(&app).await;
    let new_table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    for table in [&old_table, &new_table] {
        app.send(
            Method::POST,
            &format!("/api/v1/tables/{table}/moves"),
            Some(&token),
            Some(NOMINATE.into()),
            &KEY,
        )
        .await
        .assert_status(201);
    }
    age_answers(&app, &old_table, "3 hours").await;

    let mut conn = app.pool.acquire().await.expect("connection");
    let deleted = tablekeeper::store::tables::prune_idempotent_responses(&mut conn, Duration::from_secs(7200))
        .await
        .expect("pruned");

    assert_eq!(deleted, 1);
    assert_eq!(kept_answers(&app, &old_table).await, 0);
    assert_eq!(kept_answers(&app, &new_table).await, 1);
    // The move itself is the log's, and stays.
    assert_eq!(app.log(&old_table).await.as_array().expect("log").len(), 1);
}
