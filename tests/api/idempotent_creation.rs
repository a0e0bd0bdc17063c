//! `Idempotency-Key` on every creating `POST` (sessions, tables, clubs, invitations, members,
//! seasons, share links, tokens): a retry gets the first answer and
//! creates nothing; another body under the key is refused; keys are each organiser's own.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, Answer, TestApp};

async fn create(app: &TestApp, path: &str, token: &str, key: &str, body: Value) -> Answer {
    keyed(app, path, Some(token), key, body).await
}

/// Sends `body` to `path` under `key`, with `token` if any.
pub(crate) async fn keyed(app: &TestApp, path: &str, token: Option<&str>, key: &str, body: Value) -> Answer {
    app.send(
        Method::POST,
        path,
        token,
        Some(body.to_string()),
        &[("Idempotency-Key", key)],
    )
    .await
}

pub(crate) async fn count(app: &TestApp, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.expect("a count")
}

/// The answer's `Idempotent-Replayed` header.
pub(crate) fn replayed(answer: &Answer) -> Option<&str> {
    answer
        .headers
        .get("idempotent-replayed")
        .map(|v| v.to_str().expect("ascii"))
}

#[sqlx::test(migrations = "./migrations")]
async fn a_session_retried_with_its_key_is_started_once_and_answered_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let body = json!({"name": "Thursday club night", "chip_value": {"minor_units": 5, "currency": "GBP"}});

    let first = create(&app, "/api/v1/sessions", &token, "night-1", body.clone()).await;
    let retry = create(&app, "/api/v1/sessions", &token, "night-1", body).await;

    first.assert_status(201);
    retry.assert_status(201);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, byte for byte");
    assert_eq!(retry.headers["location"], first.headers["location"]);
    assert_eq!(
        first.headers["location"].to_str().expect("ascii"),
        format!("/api/v1/sessions/{}", first.body["id"].as_str().expect("id"))
    );
    assert_eq!(count(&app, "select count(*) from club_sessions").await, 1);
    let listed = app.request(Method::GET, "/api/v1/sessions", Some(&token), None).await;
    assert_eq!(listed.assert_status(200)["items"].as_array().expect("items").len(), 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_table_retried_with_its_key_is_opened_once_and_answered_alike(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Thursday").await;
    let body = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"], "session_id": session});

    let first = create(&app, "/api/v1/tables", &token, "table-1", body.clone()).await;
    let retry = create(&app, "/api/v1/tables", &token, "table-1", body).await;

    first.assert_status(201);
    retry.assert_status(201);
    assert_eq!(replayed(&first), None);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.text, first.text, "the first answer, its receipt included");
    assert_eq!(retry.headers["location"], first.headers["location"]);
    assert_eq!(count(&app, "select count(*) from game_tables").await, 1);
    let roster = app.get(&format!("/api/v1/sessions/{session}")).await;
    assert_eq!(roster.assert_status(200)["tables"].as_array().expect("tables").len(), 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_key_sent_again_with_another_body_is_refused_and_creates_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    create(&app, "/api/v1/sessions", &token, "k", json!({"name": "Thursday"}))
        .await
        .assert_status(201);
    let table = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"]});
    create(&app, "/api/v1/tables", &token, "t", table)
        .await
        .assert_status(201);
    let before = (
        count(&app, "select count(*) from club_sessions").await,
        count(&app, "select count(*) from game_tables").await,
        count(&app, "select count(*) from ledger_postings").await,
    );

    create(&app, "/api/v1/sessions", &token, "k", json!({"name": "Friday"}))
        .await
        .assert_problem(422, "idempotency_key_reused");
    let other = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Dan"]});
    create(&app, "/api/v1/tables", &token, "t", other)
        .await
        .assert_problem(422, "idempotency_key_reused");

    let after = (
        count(&app, "select count(*) from club_sessions").await,
        count(&app, "select count(*) from game_tables").await,
        count(&app, "select count(*) from ledger_postings").await,
    );
    assert_eq!(after, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_key_is_the_organisers_own_and_each_operations_own(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ann = app.organiser("ann@club.example").await;
    let bob = app.organiser("bob@club.example").await;
    let body = json!({"name": "Thursday"});

    let anns = create(&app, "/api/v1/sessions", &ann, "same", body.clone()).await;
    let bobs = create(&app, "/api/v1/sessions", &bob, "same", body).await;
    let table = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"]});
    let anns_table = create(&app, "/api/v1/tables", &ann, "same", table).await;

    anns.assert_status(201);
    bobs.assert_status(201);
    anns_table.assert_status(201);
    assert_eq!(replayed(&bobs), None);
    assert_eq!(replayed(&anns_table), None);
    assert_ne!(anns.body["id"], bobs.body["id"]);
    assert_ne!(anns.body["owner_id"], bobs.body["owner_id"]);
    assert_eq!(count(&app, "select count(*) from club_sessions").await, 2);
}

#[sqlx::test(migrations = "./migrations")]
async fn two_requests_racing_with_one_key_open_one_table(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let body = json!({"game": "tridge", "players": ["Ann", "Bob", "Cat"]});

    let (one, two) = tokio::join!(
        create(&app, "/api/v1/tables", &token, "race", body.clone()),
        create(&app, "/api/v1/tables", &token, "race", body),
    );

    one.assert_status(201);
    two.assert_status(201);
    assert_eq!(one.body["id"], two.body["id"]);
    let marked = [replayed(&one), replayed(&two)].iter().filter(|r| r.is_some()).count();
    assert_eq!(marked, 1, "one answer is fresh, the other the first one replayed");
    assert_eq!(count(&app, "select count(*) from game_tables").await, 1);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_key_that_is_empty_or_too_long_is_refused_and_creates_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let long = "k".repeat(201);
    for key in ["", long.as_str()] {
        create(&app, "/api/v1/sessions", &token, key, json!({"name": "Thursday"}))
            .await
            .assert_problem(400, "invalid_idempotency_key");
        let table = json!({"game": "nomination-whist", "players": ["Ann", "Bob", "Cat"]});
        create(&app, "/api/v1/tables", &token, key, table)
            .await
            .assert_problem(400, "invalid_idempotency_key");
    }
    assert_eq!(count(&app, "select count(*) from club_sessions").await, 0);
    assert_eq!(count(&app, "select count(*) from game_tables").await, 0);
}

/// Sends `body` to `path` twice under one key, then another body under it: one thing is made,
/// the retry gets the first answer marked as replayed, and the other body is refused.
async fn creates_once(app: &TestApp, token: &str, path: &str, body: Value, other: Value, table: &str) -> Answer {
    let before = count(app, &format!("select count(*) from {table}")).await;
    let key = format!("key-for-{path}");
    let first = create(app, path, token, &key, body.clone()).await;
    let retry = create(app, path, token, &key, body).await;
    first.assert_status(201);
    retry.assert_status(201);
    assert_eq!(replayed(&first), None, "{path}");
    assert_eq!(replayed(&retry), Some("true"), "{path}");
    if first.body.get("secret").is_some() {
        // A token's secret is in the first answer alone: nothing keeps it.
        let mut without = first.body.clone();
        without["secret"] = Value::Null;
        assert_eq!(retry.body, without, "{path}: the first answer, less the secret");
    } else {
        assert_eq!(retry.text, first.text, "{path}: the first answer, byte for byte");
    }
    assert_eq!(
        retry.headers.get("location"),
        first.headers.get("location"),
        "{path}: the same Location"
    );
    assert_eq!(
        count(app, &format!("select count(*) from {table}")).await,
        before + 1,
        "{path}"
    );
    create(app, path, token, &key, other)
        .await
        .assert_problem(422, "idempotency_key_reused");
    assert_eq!(
        count(app, &format!("select count(*) from {table}")).await,
        before + 1,
        "{path}"
    );
    first
}

#[sqlx::test(migrations = "./migrations")]
async fn every_creating_post_of_a_club_is_made_once_per_key(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;

    let club = creates_once(
        &app,
        &token,
        "/api/v1/clubs",
        json!({"name": "Thursday whist"}),
        json!({"name": "Friday whist"}),
        "clubs",
    )
    .await;
    let club = club.body["id"].as_str().expect("id").to_owned();
    creates_once(
        &app,
        &token,
        &format!("/api/v1/clubs/{club}/invitations"),
        json!({"role": "scorer"}),
        json!({"role": "viewer"}),
        "club_invitations",
    )
    .await;
    creates_once(
        &app,
        &token,
        &format!("/api/v1/clubs/{club}/members"),
        json!({"name": "Dot"}),
        json!({"name": "Eve"}),
        "club_members",
    )
    .await;
    creates_once(
        &app,
        &token,
        &format!("/api/v1/clubs/{club}/seasons"),
        json!({"name": "Winter", "starts": "2026-10-01", "ends": "2027-03-31", "games": ["nomination-whist"], "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        json!({"name": "Spring", "starts": "2027-04-01", "ends": "2027-06-30", "games": ["nomination-whist"], "scoring": {"kind": "league_points", "points": [3, 2, 1, 0]}}),
        "seasons",
    )
    .await;
    let session = app
        .post("/api/v1/sessions", &token, json!({"name": "Thursday", "club_id": club}))
        .await
        .assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    creates_once(
        &app,
        &token,
        &format!("/api/v1/sessions/{session}/share-links"),
        json!({"label": "Big screen"}),
        json!({"label": "Players"}),
        "share_links",
    )
    .await;
    let made = creates_once(
        &app,
        &token,
        "/api/v1/tokens",
        json!({"name": "Website", "club_id": club, "scopes": ["read"]}),
        json!({"name": "Website", "club_id": club, "scopes": ["record"]}),
        "api_tokens",
    )
    .await;
    assert!(made.body["secret"].is_string());

    // The same key and body sent to another club's path is another request: refused.
    let other = app.post("/api/v1/clubs", &token, json!({"name": "Other"})).await;
    let other = other.assert_status(201)["id"].as_str().expect("id").to_owned();
    let before = count(&app, "select count(*) from club_members").await;
    create(
        &app,
        &format!("/api/v1/clubs/{other}/members"),
        &token,
        &format!("key-for-/api/v1/clubs/{club}/members"),
        json!({"name": "Dot"}),
    )
    .await
    .assert_problem(422, "idempotency_key_reused");
    assert_eq!(count(&app, "select count(*) from club_members").await, before);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_new_tokens_secret_is_in_its_first_answer_and_not_in_a_replay(pool: PgPool) {
    let app = spawn_app(pool).await;
    let token = app.organiser("ann@club.example").await;
    let club = app.post("/api/v1/clubs", &token, json!({"name": "Thursday"})).await;
    let club = club.assert_status(201)["id"].as_str().expect("id").to_owned();
    let body = json!({"name": "Website", "club_id": club, "scopes": ["read"]});

    let first = create(&app, "/api/v1/tokens", &token, "website", body.clone()).await;
    let retry = create(&app, "/api/v1/tokens", &token, "website", body).await;

    let secret = first.assert_status(201)["secret"].as_str().expect("secret").to_owned();
    assert_eq!(retry.assert_status(201)["secret"], Value::Null);
    assert_eq!(replayed(&retry), Some("true"));
    assert_eq!(retry.body["id"], first.body["id"]);
    let kept: String = sqlx::query_scalar("select response_body::text from creation_keys")
        .fetch_one(&app.pool)
        .await
        .expect("kept");
    assert!(!kept.contains(&secret), "the kept answer has no secret: {kept}");
    app.get_as(&format!("/api/v1/clubs/{club}"), &secret)
        .await
        .assert_status(200);
}
