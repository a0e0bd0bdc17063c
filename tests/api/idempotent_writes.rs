//! `Idempotency-Key` on the writes besides moves that a table's people make: join codes (kept per
//! organiser, as other creations), corrections and verifications (kept with the table's moves,
//! since a scorer is no account). A retry gets the first answer, marked, and writes nothing; the
//! key with another body is refused and changes nothing.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, Answer, TestApp};
use crate::scorers::scorer;

async fn count(app: &TestApp, sql: &str, table: &str) -> i64 {
    sqlx::query_scalar(sql)
        .bind(table.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(&app.pool)
        .await
        .expect("a count")
}

fn replayed(answer: &Answer) -> Option<&str> {
    answer
        .headers
        .get("idempotent-replayed")
        .map(|v| v.to_str().expect("ascii"))
}

fn location(answer: &Answer) -> &str {
    answer.headers["location"].to_str().expect("ascii")
}

async fn keyed(app: &TestApp, method: Method, path: &str, token: &str, key: &str, body: Value) -> Answer {
    app.send(
        method,
        path,
        Some(token),
        Some(body.to_string()),
        &[("Idempotency-Key", key)],
    )
    .await
}

fn result(nominations: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": [0, 1, 0, 0]})
}

/// A four-player table whose first deal a scorer (Ann's phone) recorded and finished; the
/// organiser's token, the table, Ann's and Bob's phones' tokens.
async fn finished_deal(app: &TestApp) -> (String, String, String, String) {
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (ann, _) = scorer(app, &organiser, &table, "Ann's phone").await;
    let (bob, _) = scorer(app, &organiser, &table, "Bob's phone").await;
    app.submit(&table, &ann, result([0, 1, 0, 0])).await.assert_status(201);
    (organiser, table, ann, bob)
}

/// What a table's writes leave behind: its version, log, corrections, verifications,
/// postings, chain links, keys and webhook outbox.
async fn footprint(app: &TestApp, table: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for sql in [
        "select version from game_tables where id = $1",
        "select count(*) from moves where table_id = $1",
        "select count(*) from corrections where table_id = $1",
        "select count(*) from verifications where table_id = $1",
        "select count(*) from ledger_postings where table_id = $1",
        concat!("select count(*) from ", links_of_table!()),
        "select count(*) from idempotency_keys where table_id = $1",
        "select count(*) from join_codes where table_id = $1",
    ] {
        out.push(count(app, sql, table).await);
    }
    out
}

#[sqlx::test(migrations = "./migrations")]
async fn a_join_code_retried_with_its_key_is_handed_out_once_and_answered_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat"], json!({})).await;
    let path = format!("/api/v1/tables/{table}/join-codes");

    let first = keyed(&app, Method::POST, &path, &organiser, "code-1", json!({})).await;
    let retry = keyed(&app, Method::POST, &path, &organiser, "code-1", json!({})).await;

    first.assert_status(201);
    retry.assert_status(201);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, byte for byte");
    let code = first.body["code"].as_str().expect("code");
    assert_eq!(location(&first), format!("{path}/{code}"));
    assert_eq!(location(&retry), location(&first));
    assert_eq!(
        count(&app, "select count(*) from join_codes where table_id = $1", &table).await,
        1
    );
    // Without a key, each request hands out a code of its own.
    app.post(&path, &organiser, json!({})).await.assert_status(201);
    assert_eq!(
        count(&app, "select count(*) from join_codes where table_id = $1", &table).await,
        2
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_join_codes_key_sent_for_another_table_is_refused_and_hands_out_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let one = app.table(&organiser, &["Ann", "Bob", "Cat"], json!({})).await;
    let two = app.table(&organiser, &["Ann", "Bob", "Dan"], json!({})).await;
    keyed(
        &app,
        Method::POST,
        &format!("/api/v1/tables/{one}/join-codes"),
        &organiser,
        "k",
        json!({}),
    )
    .await
    .assert_status(201);
    let before = footprint(&app, &two).await;

    keyed(
        &app,
        Method::POST,
        &format!("/api/v1/tables/{two}/join-codes"),
        &organiser,
        "k",
        json!({}),
    )
    .await
    .assert_problem(422, "idempotency_key_reused");

    assert_eq!(footprint(&app, &two).await, before);
    assert_eq!(
        count(&app, "select count(*) from join_codes where table_id = $1", &one).await,
        1
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_correction_retried_with_its_key_corrects_once_and_is_answered_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (organiser, table, _, _) = finished_deal(&app).await;
    let version = app.state(&table).await["version"].as_i64().expect("version");
    let path = format!("/api/v1/tables/{table}/deals/1");
    let body = json!({"moves": [result([0, 1, 0, 1])], "expected_version": version, "reason": "Dan said one"});

    let first = keyed(&app, Method::PUT, &path, &organiser, "fix-1", body.clone()).await;
    let after_first = footprint(&app, &table).await;
    // The retry's `expected_version` is behind by its own correction: answered, not refused.
    let retry = keyed(&app, Method::PUT, &path, &organiser, "fix-1", body).await;

    first.assert_status(200);
    retry.assert_status(200);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, its receipt included");
    assert_eq!(first.body["corrections"].as_array().expect("corrections").len(), 1);
    assert_eq!(footprint(&app, &table).await, after_first, "the retry wrote nothing");
    assert_eq!(
        count(&app, "select count(*) from corrections where table_id = $1", &table).await,
        1
    );
    let deal = app.get(&path).await;
    assert_eq!(
        deal.assert_status(200)["corrections"]
            .as_array()
            .expect("corrections")
            .len(),
        1
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_corrections_key_sent_again_with_another_body_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (organiser, table, ann, _) = finished_deal(&app).await;
    let version = app.state(&table).await["version"].as_i64().expect("version");
    let path = format!("/api/v1/tables/{table}/deals/1");
    let body = json!({"moves": [result([0, 1, 0, 1])], "expected_version": version, "reason": "Dan said one"});
    keyed(&app, Method::PUT, &path, &organiser, "fix-1", body)
        .await
        .assert_status(200);
    let before = footprint(&app, &table).await;
    let deal = app.get(&path).await.body;

    let version = app.state(&table).await["version"].as_i64().expect("version");
    let other = json!({"moves": [result([1, 1, 0, 1])], "expected_version": version, "reason": "no, Ann said one"});
    keyed(&app, Method::PUT, &path, &organiser, "fix-1", other.clone())
        .await
        .assert_problem(422, "idempotency_key_reused");
    // A table's moves, corrections and verifications share one set of keys.
    let mv = json!({"move": result([0, 1, 0, 0])});
    let move_key = keyed(
        &app,
        Method::POST,
        &format!("/api/v1/tables/{table}/moves"),
        &ann,
        "fix-1",
        mv,
    )
    .await;
    move_key.assert_problem(422, "idempotency_key_reused");

    assert_eq!(footprint(&app, &table).await, before);
    assert_eq!(app.get(&path).await.body, deal);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_verification_retried_with_its_key_verifies_once_and_is_answered_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, table, _, bob) = finished_deal(&app).await;
    let path = format!("/api/v1/tables/{table}/deals/1/verification");

    let first = keyed(&app, Method::POST, &path, &bob, "check-1", json!({"agree": true})).await;
    let after_first = footprint(&app, &table).await;
    let retry = keyed(&app, Method::POST, &path, &bob, "check-1", json!({"agree": true})).await;

    first.assert_status(201);
    retry.assert_status(201);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, its receipt included");
    assert_eq!(location(&first), format!("/api/v1/tables/{table}/deals/1"));
    assert_eq!(location(&retry), location(&first));
    assert_eq!(first.body["status"], "verified");
    assert_eq!(footprint(&app, &table).await, after_first, "the retry wrote nothing");
    assert_eq!(
        count(&app, "select count(*) from verifications where table_id = $1", &table).await,
        1
    );
}

#[sqlx::test(migrations = "./migrations")]
async fn a_verifications_key_sent_again_with_another_body_is_refused_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, table, _, bob) = finished_deal(&app).await;
    let path = format!("/api/v1/tables/{table}/deals/1/verification");
    keyed(&app, Method::POST, &path, &bob, "check-1", json!({"agree": true}))
        .await
        .assert_status(201);
    let before = footprint(&app, &table).await;
    let deal = app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body;

    let dispute = json!({"agree": false, "moves": [result([0, 1, 0, 1])]});
    keyed(&app, Method::POST, &path, &bob, "check-1", dispute)
        .await
        .assert_problem(422, "idempotency_key_reused");

    assert_eq!(footprint(&app, &table).await, before);
    let now = app.get(&format!("/api/v1/tables/{table}/deals/1")).await.body;
    assert_eq!(now, deal);
    assert_eq!(now["status"], "verified");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_answers_with_the_address_of_its_entry_in_the_log(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let path = format!("/api/v1/tables/{table}/moves");

    let mv = json!({"move": result([0, 1, 0, 0])});
    let answer = keyed(&app, Method::POST, &path, &organiser, "deal-1", mv.clone()).await;
    let retry = keyed(&app, Method::POST, &path, &organiser, "deal-1", mv).await;

    let seq = answer.assert_status(201)["move"]["seq"].as_i64().expect("seq");
    assert_eq!(location(&answer), format!("{path}?after={}&limit=1", seq - 1));
    assert_eq!(location(&retry), location(&answer), "a replay names the same entry");
    let entry = app.get(location(&answer)).await;
    let items = entry.assert_status(200)["items"].as_array().expect("items").clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["seq"], seq);
    assert_eq!(items[0]["kind"], answer.body["move"]["kind"]);
}
