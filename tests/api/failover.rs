//! `DATABASE_URL` listing several hosts (libpq's multi-host URLs): the server finds the host
//! that fits `target_session_attrs` at start-up and follows it afterwards. The first test needs
//! no standby (a dead port stands first in the list); the last runs against a real streaming
//! standby when `TEST_STANDBY_URL` names one (`scripts/test-standby`), and says so otherwise.
//! The failover itself (kill -9 of a synchronous primary under load) is `scripts/failover`'s.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::app::Application;
use tablekeeper::config::{DatabaseUrl, Settings};
use tablekeeper::store::failover::Failover;

use crate::helpers::{database_url, spawn_app, TestApp, TEST_SECRET};

const WHIST: &[&str] = &["Ann", "Bob", "Eve"];

fn first_deal() -> Value {
    json!({"kind": "result", "nominations": [1, 0, 1], "tricks": [1, 0, 0]})
}

/// `url` (one host) with `hosts` (`host:port`, comma-separated) in place of its host.
fn with_hosts(url: &str, hosts: &str, query: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let (user, rest) = rest.rsplit_once('@').map_or(("", rest), |(u, r)| (u, r));
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let user = if user.is_empty() {
        String::new()
    } else {
        format!("{user}@")
    };
    format!("{scheme}://{user}{hosts}{path}?{query}")
}

/// `host:port` of a one-host URL.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    rest.split(['/', '?']).next().unwrap_or(rest).to_owned()
}

fn settings(database_url: &str) -> Settings {
    Settings::from_lookup(|name| {
        match name {
            "DATABASE_URL" => Some(database_url),
            "BIND" => Some("127.0.0.1:0"),
            "JWT_SECRET" => Some(TEST_SECRET),
            "DATABASE_MAX_CONNECTIONS" => Some("3"),
            "DATABASE_ACQUIRE_TIMEOUT_MS" => Some("1000"),
            "WORKERS" => Some("1"),
            "AUTH_ATTEMPTS_PER_MINUTE" => Some("1000"),
            _ => None,
        }
        .map(str::to_owned)
    })
    .expect("test settings")
}

/// A server started as `tablekeeper serve` starts, on `database_url`.
async fn serve(database_url: &str, pool: &PgPool) -> TestApp {
    let app = Application::build(&settings(database_url))
        .await
        .expect("the server starts");
    let base = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run());
    TestApp::at(&base, pool.clone())
}

#[sqlx::test]
async fn a_server_given_a_dead_host_first_finds_the_live_one_and_takes_moves(pool: PgPool) {
    let live = database_url(&pool);
    // Port 1: nothing listens there.
    let url = with_hosts(
        &live,
        &format!("127.0.0.1:1,{}", host_of(&live)),
        "target_session_attrs=read-write",
    );
    let app = serve(&url, &pool).await;
    let token = app.organiser("ann@club.example").await;
    let table = app.table(&token, WHIST, json!({"hand_sizes": [1, 2, 1]})).await;
    app.submit(&table, &token, first_deal()).await.assert_status(201);
    let recorded: i64 = sqlx::query_scalar("select count(*) from moves")
        .fetch_one(&pool)
        .await
        .expect("moves");
    assert_eq!(recorded, 1);
    // Finding the host at start-up is no failover.
    let metrics = app
        .client
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .expect("metrics");
    let text = metrics.text().await.expect("text");
    assert!(
        text.lines().any(|l| l == "tablekeeper_database_failovers_total 0"),
        "{text}"
    );
}

#[sqlx::test]
async fn a_server_whose_hosts_all_refuse_does_not_start(pool: PgPool) {
    let live = database_url(&pool);
    let url = with_hosts(&live, "127.0.0.1:1,127.0.0.1:2", "target_session_attrs=read-write");
    let err = Application::build(&settings(&url))
        .await
        .err()
        .expect("no host answers");
    assert!(err.to_string().contains("target_session_attrs=read-write"), "{err}");
}

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
    let head = base.split_once('?').map_or(base.as_str(), |(h, _)| h);
    let root = head.rsplit_once('/').map_or(head, |(root, _)| root);
    Some(format!("{root}/{name}"))
}

#[sqlx::test]
async fn a_pool_on_the_standby_refuses_writes_as_unavailable_then_follows_the_read_write_host(pool: PgPool) {
    let Some(standby) = standby_url(&pool) else {
        eprintln!("TEST_STANDBY_URL is not set: the real-standby failover test checked nothing (scripts/test-standby)");
        return;
    };
    // The test's database reaches the standby by replication.
    let deadline = Instant::now() + Duration::from_secs(30);
    while PgPool::connect(&standby).await.is_err() {
        assert!(Instant::now() < deadline, "the standby never had the test's database");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let primary = database_url(&pool);
    let url = with_hosts(
        &primary,
        &format!("{},{}", host_of(&standby), host_of(&primary)),
        "target_session_attrs=read-write",
    );
    let database = DatabaseUrl::parse(&url).expect("url");
    let failover =
        Failover::new(&database, 2, Duration::from_millis(500), Some(Duration::from_secs(5))).expect("failover");
    // Not yet discovered: the pool is on the standby, whose connections do not fit, so a write
    // gets no connection and is unavailable (a 503), never an answer from the wrong server.
    let refused = sqlx::query("create table nothing_here (id int)")
        .execute(failover.pool())
        .await
        .expect_err("the standby takes no writes");
    assert!(tablekeeper::store::unavailable(&refused), "{refused}");
    // Told of the read-write host, it follows it.
    assert_eq!(failover.discover().await, Some(1));
    let in_recovery: bool = sqlx::query_scalar("select pg_is_in_recovery()")
        .fetch_one(failover.pool())
        .await
        .expect("the primary answers");
    assert!(!in_recovery);
    // And a server given the standby first records moves on the primary.
    let app = serve(&url, &pool).await;
    let setup = spawn_app(pool.clone()).await;
    let token = setup.organiser("ann@club.example").await;
    let table = setup.table(&token, WHIST, json!({"hand_sizes": [1, 2, 1]})).await;
    app.submit(&table, &token, first_deal()).await.assert_status(201);
    failover.pool().close().await;
}

#[sqlx::test]
async fn the_victim_of_a_deadlock_is_told_to_retry_as_unavailable_not_failed(pool: PgPool) {
    // Two transactions each hold a lock the other then asks for: PostgreSQL rolls one back
    // (40P01). Its request wrote nothing and would go through if sent again, so it is a 503 with
    // Retry-After, as a database that cannot be reached is, never a 500.
    let mut first = pool.begin().await.expect("first");
    let mut second = pool.begin().await.expect("second");
    sqlx::query("select pg_advisory_xact_lock(41)")
        .execute(&mut *first)
        .await
        .expect("first lock");
    sqlx::query("select pg_advisory_xact_lock(42)")
        .execute(&mut *second)
        .await
        .expect("second lock");
    let crossing = tokio::spawn(async move {
        let got = sqlx::query("select pg_advisory_xact_lock(42)")
            .execute(&mut *first)
            .await;
        (got, first)
    });
    let other = sqlx::query("select pg_advisory_xact_lock(41)")
        .execute(&mut *second)
        .await;
    drop(second);
    let (got, _first) = crossing.await.expect("task");
    let refused = match (got, other) {
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => e,
        (a, b) => panic!("one of the two is the deadlock's victim: {a:?} {b:?}"),
    };
    assert!(
        matches!(&refused, sqlx::Error::Database(db) if db.code().as_deref() == Some("40P01")),
        "{refused}"
    );
    let stored = tablekeeper::store::StoreError::from(refused);
    assert!(
        matches!(stored, tablekeeper::store::StoreError::Unavailable(_)),
        "{stored}"
    );
    let answer = tablekeeper::api::error::ApiError::from(stored);
    assert_eq!(answer.problem().status, 503);
    assert_eq!(answer.problem().code, "database_unavailable");
}

#[sqlx::test]
async fn a_write_cut_by_the_statement_timeout_while_queued_for_a_row_is_a_503_and_wrote_nothing(pool: PgPool) {
    // After a failover the new leader's commits are slow for a while; a table opened in a busy
    // session queues for the session's row behind them, and the statement timeout cuts it. Its
    // transaction is rolled back, so the same request sent again goes through: a 503 with
    // Retry-After, as a deadlock's victim is, never a 500 a phone would give up on.
    let statement = Duration::from_millis(300);
    let timed =
        tablekeeper::store::pool(&database_url(&pool), 4, Duration::from_secs(2), Some(statement)).expect("pool");
    let app = crate::helpers::spawn_app_with(timed.clone(), |s| s.database_statement_timeout = statement).await;
    let organiser = app.organiser("ann@club.example").await;
    let session = app.session(&organiser, "Friday").await;
    let mut holder = pool.begin().await.expect("tx");
    sqlx::query("select 1 from club_sessions where id = $1::uuid for update")
        .bind(&session)
        .execute(&mut *holder)
        .await
        .expect("the session's row");
    let body = json!({"game": "nomination-whist", "players": WHIST, "session_id": session});
    let refused = app.post("/api/v1/tables", &organiser, body.clone()).await;
    refused.assert_problem(503, "database_unavailable");
    assert!(refused.headers.contains_key("retry-after"));
    holder.rollback().await.expect("released");
    let tables: i64 = sqlx::query_scalar("select count(*) from game_tables where session_id = $1::uuid")
        .bind(&session)
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(tables, 0, "the refused table was not opened");
    app.post("/api/v1/tables", &organiser, body).await.assert_status(201);
    timed.close().await;
}
