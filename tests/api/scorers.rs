//! Scorer identities: each join is a scorer of its own, named; the log says who recorded
//! what; the organiser revokes a scorer and its token is refused from then on.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{spawn_app, TestApp};

/// A phone joins the table under `name`; the join's answer.
pub async fn join(app: &TestApp, organiser: &str, table: &str, name: Option<&str>) -> Value {
    let code = app
        .post(&format!("/api/v1/tables/{table}/join-codes"), organiser, json!({}))
        .await
        .assert_status(201)["code"]
        .clone();
    let body = match name {
        Some(name) => json!({"code": code, "name": name}),
        None => json!({"code": code}),
    };
    app.request(reqwest::Method::POST, "/api/v1/auth/join", None, Some(body))
        .await
        .assert_status(200)
        .clone()
}

/// A joined phone's token.
pub async fn scorer(app: &TestApp, organiser: &str, table: &str, name: &str) -> (String, String) {
    let joined = join(app, organiser, table, Some(name)).await;
    (
        joined["token"].as_str().expect("token").to_owned(),
        joined["scorer_id"].as_str().expect("scorer id").to_owned(),
    )
}

#[sqlx::test(migrations = "./migrations")]
async fn each_join_is_a_named_scorer_and_the_log_says_which_recorded_what(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;

    let ann = join(&app, &organiser, &table, Some("Ann's phone")).await;
    let bob = join(&app, &organiser, &table, Some("  Bob's phone ")).await;
    let unnamed = join(&app, &organiser, &table, None).await;
    assert_eq!(ann["role"], "scorer");
    assert_eq!(ann["scorer_name"], "Ann's phone");
    assert_eq!(bob["scorer_name"], "Bob's phone");
    assert_eq!(unnamed["scorer_name"], "Scorer 3");
    assert_ne!(ann["scorer_id"], bob["scorer_id"]);

    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, ann["token"].as_str().expect("token"), result)
        .await
        .assert_status(201);
    let log = app.log(&table).await;
    assert_eq!(
        log[0]["recorded_by"],
        format!("scorer:{}", ann["scorer_id"].as_str().expect("id"))
    );

    let scorers = app
        .get(&format!("/api/v1/tables/{table}/scorers"))
        .await
        .assert_status(200)
        .clone();
    let names: Vec<&str> = scorers
        .as_array()
        .expect("scorers")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["Ann's phone", "Bob's phone", "Scorer 3"]);
    assert_eq!(scorers[0]["recorded_by"], log[0]["recorded_by"]);
    assert!(scorers[0]["revoked_at"].is_null());

    let deal = app
        .get(&format!("/api/v1/tables/{table}/deals/1"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(deal["moves"][0]["recorded_by_name"], "Ann's phone");
}

#[sqlx::test(migrations = "./migrations")]
async fn who_recorded_a_move_is_kept_as_an_id_and_reads_back_as_the_text_the_chain_covers(pool: PgPool) {
    // Arrange: a move by the organiser, then one by a scorer.
    let app = spawn_app(pool.clone()).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (phone, phone_id) = scorer(&app, &organiser, &table, "Ann's phone").await;
    let first = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    let second = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 1]});
    app.submit(&table, &organiser, first).await.assert_status(201);
    app.submit(&table, &phone, second).await.assert_status(201);

    // Act
    let log = app.log(&table).await;
    let stored: Vec<(Option<String>, Option<uuid::Uuid>, Option<uuid::Uuid>)> = sqlx::query_as(
        "select recorded_by, recorded_by_organiser, recorded_by_scorer from moves where table_id = $1 order by seq",
    )
    .bind(table.parse::<uuid::Uuid>().expect("uuid"))
    .fetch_all(&pool)
    .await
    .expect("moves");

    // Assert: no text kept (issue #27), the ids instead; the log names them as before, and the
    // chain, which hashed that text, audits whole.
    let by_organiser = log[0]["recorded_by"].as_str().expect("recorded_by").to_owned();
    let organiser_id: uuid::Uuid = by_organiser
        .strip_prefix("organiser:")
        .expect("an organiser")
        .parse()
        .expect("uuid");
    assert_eq!(log[1]["recorded_by"], format!("scorer:{phone_id}"));
    assert_eq!(
        stored,
        [
            (None, Some(organiser_id), None),
            (None, None, Some(phone_id.parse().expect("uuid")))
        ]
    );
    let audit = crate::helpers::assert_audit_consistent(&app, &table).await;
    assert_eq!(audit["chain_intact"], true);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_revoked_scorer_is_refused_and_changes_nothing_while_the_others_still_record(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (ann, ann_id) = scorer(&app, &organiser, &table, "Ann's phone").await;
    let (bob, _) = scorer(&app, &organiser, &table, "Bob's phone").await;

    // Only the table's organiser revokes.
    let path = format!("/api/v1/tables/{table}/scorers/{ann_id}");
    app.request(reqwest::Method::DELETE, &path, Some(&bob), None)
        .await
        .assert_problem(403, "forbidden");
    let other = app.organiser("eve@club.example").await;
    app.request(reqwest::Method::DELETE, &path, Some(&other), None)
        .await
        .assert_problem(404, "table_not_found");
    let unknown = format!("/api/v1/tables/{table}/scorers/{}", uuid::Uuid::new_v4());
    app.request(reqwest::Method::DELETE, &unknown, Some(&organiser), None)
        .await
        .assert_problem(404, "scorer_not_found");

    let revoked = app
        .request(reqwest::Method::DELETE, &path, Some(&organiser), None)
        .await
        .assert_status(200)
        .clone();
    assert!(revoked["revoked_at"].is_string());

    let before = app.snapshot(&table).await;
    let result = json!({"kind": "result", "nominations": [0, 1, 0, 0], "tricks": [0, 1, 0, 0]});
    app.submit(&table, &ann, result.clone())
        .await
        .assert_problem(401, "scorer_revoked");
    assert_eq!(app.snapshot(&table).await, before);
    app.submit(&table, &bob, result).await.assert_status(201);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_scorer_name_that_is_blank_or_too_long_is_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    for name in ["   ", &"x".repeat(61)] {
        let code = app
            .post(&format!("/api/v1/tables/{table}/join-codes"), &organiser, json!({}))
            .await
            .assert_status(201)["code"]
            .clone();
        app.request(
            reqwest::Method::POST,
            "/api/v1/auth/join",
            None,
            Some(json!({"code": code, "name": name})),
        )
        .await
        .assert_problem(422, "invalid_name");
    }
    let scorers = app.get(&format!("/api/v1/tables/{table}/scorers")).await;
    assert_eq!(scorers.assert_status(200), &json!([]));
}
