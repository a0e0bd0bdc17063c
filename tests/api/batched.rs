//! Plain moves of many tables written in one statement (`store::move_batch`): moves that arrive
//! together share one commit, each stands as if written alone, and two of one table never share
//! a statement; a move that finds nothing under way writes itself.

use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::rules::games::nomination_whist::{sim, NominationWhist, Options};
use tablekeeper::rules::Game;

use crate::helpers::{assert_audit_consistent, spawn_app, spawn_app_with, TestApp};

/// The first moves of a simulated game, the same at every table.
fn opening_moves(n: usize) -> Vec<Value> {
    let mut engine = NominationWhist::new(4, Options::default()).expect("game");
    let deals = sim::random_game(&mut engine, 5).expect("simulated game");
    sim::moves(&deals)
        .into_iter()
        .take(n)
        .map(|mv| serde_json::to_value(mv).expect("json"))
        .collect()
}

async fn post_move(app: &TestApp, table: &str, token: &str, mv: &Value, version: i64) -> (u16, Value) {
    let answer = app
        .post(
            &format!("/api/v1/tables/{table}/moves"),
            token,
            json!({"move": mv, "expected_version": version}),
        )
        .await;
    (answer.status.as_u16(), answer.body)
}

/// Waits (a bounded while) until `n` statements wait for a row lock, or `n` moves wait for the
/// batcher's next statement. The bound is generous: on a loaded two-core CI machine a request
/// can take seconds to reach the database, and a short bound failed a run that was otherwise
/// right.
async fn until(what: &str, mut reached: impl AsyncFnMut() -> bool) {
    for _ in 0..2400 {
        if reached().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("never reached: {what}");
}

async fn statements_waiting_for_a_lock(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    )
    .fetch_one(pool)
    .await
    .expect("pg_stat_activity")
}

/// Of the statements waiting for a row lock, how many write many moves (the batcher's) and how
/// many write one (a move's own).
async fn batched_and_alone_waiting(pool: &PgPool) -> (i64, i64) {
    sqlx::query_as(
        "select count(*) filter (where query like '%unnest%'), count(*) filter (where query not like '%unnest%')
         from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    )
    .fetch_one(pool)
    .await
    .expect("pg_stat_activity")
}

#[sqlx::test(migrations = "./migrations")]
async fn plain_moves_of_many_tables_arriving_together_share_one_commit_and_each_stands(pool: PgPool) {
    // Arrange: eleven tables; the test holds three of their rows, so that the first move,
    // finding nothing under way, writes itself and waits on one, the batcher's two statements
    // under way wait on the others, and the remaining moves gather behind.
    // The server has a pool of its own, with room for a move writing itself, the batcher's two
    // statements and the reads behind them; the test's holds the rows and looks on.
    let server_pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(10)
        .connect_with((*pool.connect_options()).clone())
        .await
        .expect("the server's pool");
    let app = spawn_app(server_pool).await;
    let batcher = app.batcher.clone().expect("BATCH_MOVES is on by default");
    let token = app.organiser("ann@club.example").await;
    let mut tables = Vec::new();
    for _ in 0..11 {
        tables.push(app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await);
    }
    let moves = opening_moves(1);
    let held: Vec<uuid::Uuid> = tables[..3].iter().map(|t| t.parse().expect("uuid")).collect();
    let mut holder = pool.begin().await.expect("transaction");
    sqlx::query("select 1 from game_tables where id = any($1) for update")
        .bind(&held)
        .execute(&mut *holder)
        .await
        .expect("lock");

    // Act: a move at each held table (the first written by itself, each of the others the
    // only one of its statement; all wait), then a move at each of the other eight, and a
    // second phone's same move at the fourth table for the same version: all wait for the next
    // statement until the rows are let go.
    let db = &pool;
    let waits = |n: i64| async move {
        until("statements wait on the held rows", async || {
            statements_waiting_for_a_lock(db).await == n
        })
        .await;
    };
    let seen_waiting = std::cell::RefCell::new(Vec::new());
    let gathered = async {
        let first = post_move(&app, &tables[0], &token, &moves[0], 0);
        let second = async {
            waits(1).await;
            let seen = batched_and_alone_waiting(db).await;
            seen_waiting.borrow_mut().push(seen);
            post_move(&app, &tables[1], &token, &moves[0], 0).await
        };
        let third = async {
            waits(2).await;
            post_move(&app, &tables[2], &token, &moves[0], 0).await
        };
        let blocked = async { <[_; 3]>::from(tokio::join!(first, second, third)) };
        let gathered = async {
            waits(3).await;
            let seen = batched_and_alone_waiting(db).await;
            seen_waiting.borrow_mut().push(seen);
            let others = join_all(
                tables[3..]
                    .iter()
                    .map(|t| post_move(&app, t, &token, &moves[0], 0))
                    .chain(std::iter::once(post_move(&app, &tables[3], &token, &moves[0], 0))),
            );
            let release = async {
                until("nine moves wait for the next statement", async || {
                    batcher.waiting() == 9
                })
                .await;
                holder.rollback().await.expect("let the rows go");
            };
            tokio::join!(others, release).0
        };
        tokio::join!(blocked, gathered)
    };
    let (blocked, others) = gathered.await;

    // Assert: the first move, with nothing under way, was its own statement; the next two the
    // batcher's.
    assert_eq!(*seen_waiting.borrow(), [(0, 1), (2, 1)]);
    // Every first move is recorded at version 1; of the two phones at the fourth table one is,
    // and the other lost its race and is told so, not refused by a rule.
    for (status, body) in blocked.iter().chain(&others[1..8]) {
        assert_eq!(*status, 201, "{body}");
        assert_eq!(body["table"]["version"], 1, "{body}");
    }
    let mut third = [&others[0], &others[8]];
    third.sort_by_key(|(status, _)| *status);
    let [(won, recorded), (lost, refused)] = third;
    assert_eq!((*won, *lost), (201, 409), "{recorded} {refused}");
    assert_eq!(recorded["table"]["version"], 1, "{recorded}");
    assert_eq!(refused["code"], "version_conflict", "{refused}");
    // The gathered first moves of the seven tables with one phone each were written by one
    // statement: one transaction. The fourth table's two phones' moves cannot share a statement;
    // the statements they went into may run at once, and whichever commits first holds that
    // table's entry: the gathered statement's commit or one of its own.
    let commits = |tables: &[String]| {
        let ids: Vec<uuid::Uuid> = tables.iter().map(|t| t.parse().expect("uuid")).collect();
        let pool = &pool;
        async move {
            sqlx::query_scalar::<_, i64>("select count(distinct xmin::text) from moves where table_id = any($1)")
                .bind(ids)
                .fetch_one(pool)
                .await
                .expect("commits")
        }
    };
    assert_eq!(
        commits(&tables[4..]).await,
        1,
        "the seven moves gathered are one commit"
    );
    assert!(
        commits(&tables[3..]).await <= 2,
        "the fourth table's entry is in one commit of two"
    );
    for table in &tables {
        let log = app.log(table).await;
        assert_eq!(log.as_array().map(Vec::len), Some(1), "{log}");
        assert_eq!(log[0]["move"], moves[0], "{log}");
        assert_audit_consistent(&app, table).await;
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn with_batching_off_a_move_is_written_alone_and_answers_the_same(pool: PgPool) {
    // Arrange: the same opening at a table of each kind of replica.
    let batched = spawn_app(pool.clone()).await;
    let alone = spawn_app_with(pool, |settings| settings.batch_moves = false).await;
    assert!(alone.batcher.is_none());
    let token = batched.organiser("ann@club.example").await;
    *alone.default_reader.lock().expect("reader") = Some(token.clone());
    let moves = opening_moves(12);

    // Act
    let mut logs = Vec::new();
    for app in [&batched, &alone] {
        let table = app.table(&token, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
        for (version, mv) in moves.iter().enumerate() {
            let (status, body) = post_move(app, &table, &token, mv, version as i64).await;
            assert_eq!(status, 201, "{body}");
        }
        assert_audit_consistent(app, &table).await;
        logs.push((app.log(&table).await, app.state(&table).await));
    }

    // Assert: the same log (but for who and when) and the same state either way.
    let strip = |log: &Value| -> Vec<Value> {
        log.as_array()
            .expect("log")
            .iter()
            .map(|e| json!([e["seq"], e["move"], e["events"]]))
            .collect()
    };
    assert_eq!(strip(&logs[0].0), strip(&logs[1].0));
    assert_eq!(logs[0].1["state"], logs[1].1["state"]);
    assert_eq!(logs[0].0.as_array().map(Vec::len), Some(moves.len()));
}
