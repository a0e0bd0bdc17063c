//! Reads on a standby (`DATABASE_READ_URL`): lag-tolerant reads go to the standby's pool, a
//! token's reads just after its own write go to the primary, and a client that has seen a newer
//! version than the standby's is answered from the primary.
//!
//! The first tests need no standby: the "standby" is a second, empty database, so a read it
//! serves finds nothing (404) and a read the primary serves finds the table. The last ones run
//! against a real streaming standby when `TEST_STANDBY_URL` names one (`scripts/standby start`;
//! `scripts/test` does so), with `DATABASE_URL` on its primary; without it they check nothing
//! more and say so.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{database_url, spawn_app_with, TestApp};

const WHIST: &[&str] = &["Ann", "Bob", "Eve"];

fn options() -> Value {
    json!({"hand_sizes": [1, 2, 1]})
}

/// The first deal's result, as one move.
fn first_deal() -> Value {
    json!({"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]})
}

/// The second deal's result.
fn second_deal() -> Value {
    json!({"kind": "result", "nominations": [0, 0, 0], "tricks": [1, 1, 0]})
}

/// A second token of the organiser `email` (its password as `TestApp::organiser` sets it): the
/// same reader, another credential, which has written nothing.
async fn second_token(app: &TestApp, email: &str) -> String {
    let answer = app
        .client
        .post(format!("{}/api/v1/auth/login", app.base))
        .json(&json!({"email": email, "password": "correct horse battery"}))
        .send()
        .await
        .expect("login");
    assert_eq!(answer.status().as_u16(), 200);
    let body: Value = answer.json().await.expect("json");
    body["token"].as_str().expect("token").to_owned()
}

/// An empty, migrated database beside the test's, standing in for a standby that has not
/// received anything yet; dropped by the caller with `drop_decoy`.
async fn decoy(pool: &PgPool) -> (String, String) {
    // Test databases' names are near PostgreSQL's 63-byte limit: a suffix would be cut off.
    let name = format!("tk_decoy_{}", uuid::Uuid::new_v4().simple());
    sqlx::query(&format!("drop database if exists \"{name}\" with (force)"))
        .execute(pool)
        .await
        .expect("drop the decoy");
    sqlx::query(&format!("create database \"{name}\""))
        .execute(pool)
        .await
        .expect("create the decoy");
    let url = database_url(pool);
    let (head, query) = url.split_once('?').map_or((url.as_str(), None), |(h, q)| (h, Some(q)));
    let base = head.rsplit_once('/').expect("a path").0;
    let decoy_url = match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    };
    let decoy = sqlx::PgPool::connect(&decoy_url).await.expect("the decoy");
    sqlx::migrate!().run(&decoy).await.expect("migrate the decoy");
    decoy.close().await;
    (name, decoy_url)
}

async fn drop_decoy(pool: &PgPool, name: &str) {
    sqlx::query(&format!("drop database if exists \"{name}\" with (force)"))
        .execute(pool)
        .await
        .expect("drop the decoy");
}

#[sqlx::test]
async fn a_tokens_reads_after_its_write_go_to_the_primary_and_other_reads_to_the_standby(pool: PgPool) {
    let (name, decoy_url) = decoy(&pool).await;
    let app = spawn_app_with(pool.clone(), |s| {
        s.database_read_url = Some(decoy_url);
        s.read_after_write = Duration::from_secs(60);
    })
    .await;
    let writer = app.organiser("ann@club.example").await;
    let table = app.table(&writer, WHIST, options()).await;
    app.submit(&table, &writer, first_deal()).await.assert_status(201);
    let reader = second_token(&app, "ann@club.example").await;

    // The writer sees its write: its reads are the primary's.
    let seen = app.get_as(&format!("/api/v1/tables/{table}"), &writer).await;
    assert_eq!(seen.assert_status(200)["version"], 1);
    // Another token's read is the standby's, which (here) has nothing yet.
    app.get_as(&format!("/api/v1/tables/{table}"), &reader)
        .await
        .assert_problem(404, "table_not_found");
    app.get_as(&format!("/api/v1/tables/{table}/audit"), &reader)
        .await
        .assert_problem(404, "table_not_found");
    // Moves are never the standby's: the reader's own move lands on the primary.
    app.submit(&table, &reader, second_deal()).await.assert_status(201);
    let seen = app.get_as(&format!("/api/v1/tables/{table}"), &reader).await;
    assert_eq!(
        seen.assert_status(200)["version"],
        2,
        "read-your-writes for the second token"
    );
    drop_decoy(&pool, &name).await;
}

#[sqlx::test]
async fn a_writers_reads_return_to_the_standby_when_the_window_has_passed(pool: PgPool) {
    let (name, decoy_url) = decoy(&pool).await;
    let app = spawn_app_with(pool.clone(), |s| {
        s.database_read_url = Some(decoy_url);
        s.read_after_write = Duration::from_secs(1);
    })
    .await;
    let writer = app.organiser("ann@club.example").await;
    let table = app.table(&writer, WHIST, options()).await;
    app.get_as(&format!("/api/v1/tables/{table}"), &writer)
        .await
        .assert_status(200);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    app.get_as(&format!("/api/v1/tables/{table}"), &writer)
        .await
        .assert_problem(404, "table_not_found");
    drop_decoy(&pool, &name).await;
}

#[sqlx::test]
async fn without_a_read_url_every_read_is_the_primarys(pool: PgPool) {
    let app = spawn_app_with(pool.clone(), |s| {
        s.database_read_url = None;
        s.read_after_write = Duration::from_secs(1);
    })
    .await;
    let writer = app.organiser("ann@club.example").await;
    let table = app.table(&writer, WHIST, options()).await;
    let reader = second_token(&app, "ann@club.example").await;
    let seen = app.get_as(&format!("/api/v1/tables/{table}"), &reader).await;
    assert_eq!(seen.assert_status(200)["version"], 0);
}

// Against a real streaming standby.

/// One test at a time pauses the standby's replay: they must not overlap.
static STANDBY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The standby's URL for the test's database, when `TEST_STANDBY_URL` names a standby.
fn standby_url(pool: &PgPool) -> Option<String> {
    let base = std::env::var("TEST_STANDBY_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())?;
    let name = pool
        .connect_options()
        .get_database()
        .expect("a database name")
        .to_owned();
    let (head, query) = base
        .split_once('?')
        .map_or((base.as_str(), None), |(h, q)| (h, Some(q)));
    let root = head.rsplit_once('/').map_or(head, |(root, _)| root);
    Some(match query {
        Some(q) => format!("{root}/{name}?{q}"),
        None => format!("{root}/{name}"),
    })
}

/// Waits until the standby has `table` at `version`.
async fn until_replayed(standby: &str, table: &str, version: i64) -> PgPool {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(pool) = PgPool::connect(standby).await {
            let id: uuid::Uuid = table.parse().expect("uuid");
            let seen: Option<i64> = sqlx::query_scalar("select version from game_tables where id = $1")
                .bind(id)
                .fetch_optional(&pool)
                .await
                .ok()
                .flatten();
            if seen == Some(version) {
                return pool;
            }
            pool.close().await;
        }
        assert!(
            Instant::now() < deadline,
            "the standby did not replay version {version} of {table}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[sqlx::test]
async fn a_real_standby_serves_reads_while_the_writer_and_a_client_ahead_of_it_read_the_primary(pool: PgPool) {
    let Some(standby) = standby_url(&pool) else {
        eprintln!("TEST_STANDBY_URL is not set: the real-standby test checked nothing (scripts/standby start)");
        return;
    };
    let _one_at_a_time = STANDBY.lock().await;
    let app = spawn_app_with(pool.clone(), |s| {
        s.database_read_url = Some(standby.clone());
        s.read_after_write = Duration::from_secs(60);
    })
    .await;
    let writer = app.organiser("ann@club.example").await;
    let table = app.table(&writer, WHIST, options()).await;
    app.submit(&table, &writer, first_deal()).await.assert_status(201);
    let reader = second_token(&app, "ann@club.example").await;
    let direct = until_replayed(&standby, &table, 1).await;
    sqlx::query("select pg_wal_replay_resume()")
        .execute(&direct)
        .await
        .expect("resume");

    // The standby stops replaying; the writer records a second deal on the primary.
    sqlx::query("select pg_wal_replay_pause()")
        .execute(&direct)
        .await
        .expect("pause");
    app.submit(&table, &writer, second_deal()).await.assert_status(201);

    // Another token reads the standby: version 1, which only the paused standby still has.
    let stale = app.get_as(&format!("/api/v1/tables/{table}"), &reader).await;
    assert_eq!(stale.assert_status(200)["version"], 1, "served by the standby");
    let readers: i64 = sqlx::query_scalar(
        "select count(*) from pg_stat_activity where application_name = $1 and datname = current_database()",
    )
    .bind(tablekeeper::store::READ_APPLICATION_NAME)
    .fetch_one(&direct)
    .await
    .expect("pg_stat_activity");
    assert!(readers >= 1, "the app's read pool is connected to the standby");
    let audit = app.get_as(&format!("/api/v1/tables/{table}/audit"), &reader).await;
    assert_eq!(audit.assert_status(200)["consistent"], true, "an audit on the standby");

    // The writer reads its own write (the primary's).
    let own = app.get_as(&format!("/api/v1/tables/{table}"), &writer).await;
    assert_eq!(own.assert_status(200)["version"], 2, "read-your-writes");

    // A client that has seen version 2 is not sent back to 1: the primary answers.
    let ahead = app
        .client
        .get(format!("{}/api/v1/tables/{table}", app.base))
        .bearer_auth(&reader)
        .header("If-None-Match", "\"2\"")
        .send()
        .await
        .expect("get");
    assert_eq!(
        ahead.status().as_u16(),
        304,
        "the primary has version 2 too: not modified"
    );

    // Replay resumes: the standby catches up and serves the new version.
    sqlx::query("select pg_wal_replay_resume()")
        .execute(&direct)
        .await
        .expect("resume");
    until_replayed(&standby, &table, 2).await.close().await;
    let fresh = app.get_as(&format!("/api/v1/tables/{table}"), &reader).await;
    assert_eq!(fresh.assert_status(200)["version"], 2);
    direct.close().await;
}

#[sqlx::test]
async fn a_session_bundle_from_the_standby_verifies_like_the_primarys(pool: PgPool) {
    let Some(standby) = standby_url(&pool) else {
        eprintln!("TEST_STANDBY_URL is not set: the real-standby test checked nothing (scripts/standby start)");
        return;
    };
    let _one_at_a_time = STANDBY.lock().await;
    let app = spawn_app_with(pool.clone(), |s| {
        s.database_read_url = Some(standby.clone());
        s.read_after_write = Duration::from_secs(60);
    })
    .await;
    let writer = app.organiser("ann@club.example").await;
    let session = app.session(&writer, "Friday").await;
    let body = json!({"game": "nomination-whist", "players": WHIST, "session_id": session, "options": options()});
    let table = app.post("/api/v1/tables", &writer, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.submit(&table, &writer, first_deal()).await.assert_status(201);
    let direct = until_replayed(&standby, &table, 1).await;
    sqlx::query("select pg_wal_replay_resume()")
        .execute(&direct)
        .await
        .expect("resume");
    let reader = second_token(&app, "ann@club.example").await;

    let from_standby = app
        .get_as(&format!("/api/v1/sessions/{session}/audit-bundle"), &reader)
        .await;
    from_standby.assert_status(200);
    let from_primary = app
        .get_as(&format!("/api/v1/sessions/{session}/audit-bundle"), &writer)
        .await;
    from_primary.assert_status(200);
    let summary = tablekeeper::service::bundle::verify(from_standby.text.as_bytes(), None).expect("verifies");
    assert!(!summary.is_empty());
    assert_eq!(
        from_standby.body["tables"], from_primary.body["tables"],
        "the standby's bundle holds what the primary's does"
    );
    direct.close().await;
}
