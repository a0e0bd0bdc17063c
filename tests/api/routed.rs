//! Per-table reads routed by the club's number (issue #27, deploy/README.md "Statements on
//! Citus"): each read of a table's rows names the number of its table's club as well as the
//! table's id, so that on Citus it is planned onto the one shard holding them. Given the table's
//! id and another club's number, each finds nothing; given its own, it finds the table's rows. A
//! read that lost its `club_no` filter would find the rows either way, and fail here.

use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

use tablekeeper::ledger::{Account, Booking, Chips};
use tablekeeper::rules::Seat;
use tablekeeper::store::{self, StoreError, TableKey};

use crate::helpers::{spawn_app, TestApp};
use crate::scorers::scorer;

/// A deal's result, as a scorer enters it (deal n has n tricks).
fn result(nominations: [u8; 4], tricks: [u8; 4]) -> Value {
    json!({"kind": "result", "nominations": nominations, "tricks": tricks})
}

const KEEP_ANSWERS: std::time::Duration = std::time::Duration::from_secs(3600);

/// A table with rows in every per-table relation: moves (one voided, one superseded), snapshots,
/// score-sheet lines, a correction, a verification, two scorers (joined with codes), an answer
/// kept under an Idempotency-Key, bookings and chain links. Its key, Ann's phone's scorer id and
/// the number of another club (which has a table of its own).
async fn a_table_with_every_kind_of_row(app: &TestApp) -> (TableKey, uuid::Uuid, i32) {
    let organiser = app.organiser("ann@club.example").await;
    let table = app.table(&organiser, &["Ann", "Bob", "Cat", "Dan"], json!({})).await;
    let (ann, ann_id) = scorer(app, &organiser, &table, "Ann's phone").await;
    let (bob, _) = scorer(app, &organiser, &table, "Bob's phone").await;
    app.send(
        Method::POST,
        &format!("/api/v1/tables/{table}/moves"),
        Some(&ann),
        Some(json!({"move": result([0, 1, 0, 0], [0, 1, 0, 0])}).to_string()),
        &[("Idempotency-Key", "deal-one")],
    )
    .await
    .assert_status(201);
    app.submit(&table, &ann, result([1, 0, 0, 0], [1, 1, 0, 0]))
        .await
        .assert_status(201);
    app.submit(&table, &ann, result([0, 0, 1, 0], [1, 1, 1, 0]))
        .await
        .assert_status(201);
    app.post(&format!("/api/v1/tables/{table}/undo"), &organiser, json!({}))
        .await
        .assert_status(200);
    let version = app.state(&table).await["version"].as_i64().expect("version");
    app.request(
        Method::PUT,
        &format!("/api/v1/tables/{table}/deals/1"),
        Some(&organiser),
        Some(json!({"moves": [result([0, 0, 0, 1], [0, 0, 0, 1])], "expected_version": version, "reason": "misread"})),
    )
    .await
    .assert_status(200);
    app.post(
        &format!("/api/v1/tables/{table}/deals/1/verification"),
        &bob,
        json!({"agree": true}),
    )
    .await
    .assert_status(201);

    let other_organiser = app.organiser("zed@elsewhere.example").await;
    let other = app
        .table(&other_organiser, &["Zed", "Yan", "Xi", "Wu"], json!({}))
        .await;

    let mut conn = app.pool.acquire().await.expect("connection");
    let key = store::tables::fetch(&mut conn, table.parse().expect("uuid"))
        .await
        .expect("table")
        .key();
    let other_club = store::tables::fetch(&mut conn, other.parse().expect("uuid"))
        .await
        .expect("other table")
        .club_no;
    assert_ne!(other_club, key.club_no);
    // A booking of the table's own, whatever the game books.
    let stake =
        Booking::transfer("stake", Account::Seat(Seat::new(0)), Account::GameFund, Chips::new(5)).expect("booking");
    // In a transaction: a booking's postings are checked against it at the commit.
    let mut tx = app.pool.begin().await.expect("tx");
    store::ledger::book(&mut tx, key, 1, Some(1), &stake, None)
        .await
        .expect("book");
    tx.commit().await.expect("commit");
    (key, ann_id.parse().expect("scorer id"), other_club)
}

#[sqlx::test(migrations = "./migrations")]
async fn each_per_table_read_finds_the_tables_rows_by_its_own_club_number_and_none_by_another(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (right, _, other_club) = a_table_with_every_kind_of_row(&app).await;
    let wrong = TableKey {
        id: right.id,
        club_no: other_club,
    };
    let mut conn = app.pool.acquire().await.expect("connection");
    let c = &mut *conn;

    // The table's row, once its key is known.
    assert_eq!(store::tables::fetch_by_key(c, right).await.expect("row").id, right.id);
    assert!(matches!(
        store::tables::fetch_by_key(c, wrong).await,
        Err(StoreError::NotFound("table"))
    ));

    // The log and its folds.
    assert!(store::tables::log(c, right, 0, 100).await.expect("log").len() >= 6);
    assert!(store::tables::log(c, wrong, 0, 100).await.expect("log").is_empty());
    assert!(!store::tables::effective_moves(c, right, 0)
        .await
        .expect("moves")
        .is_empty());
    assert!(store::tables::effective_moves(c, wrong, 0)
        .await
        .expect("moves")
        .is_empty());
    assert!(!store::tables::effective_seqs(c, right).await.expect("seqs").is_empty());
    assert!(store::tables::effective_seqs(c, wrong).await.expect("seqs").is_empty());
    assert!(store::tables::latest_effective_seq(c, right)
        .await
        .expect("seq")
        .is_some());
    assert!(store::tables::latest_effective_seq(c, wrong)
        .await
        .expect("seq")
        .is_none());
    assert_eq!(store::tables::move_row(c, right, 1).await.expect("entry 1").seq, 1);
    assert!(store::tables::move_row(c, wrong, 1).await.is_err());
    assert!(store::tables::latest_snapshot(c, right)
        .await
        .expect("snapshot")
        .is_some());
    assert!(store::tables::latest_snapshot(c, wrong)
        .await
        .expect("snapshot")
        .is_none());
    assert!(!store::deal_lines::in_force(c, right).await.expect("lines").is_empty());
    assert!(store::deal_lines::in_force(c, wrong).await.expect("lines").is_empty());

    // The chain.
    let end = store::chain::end(c, right).await.expect("end");
    // (The booking above was written outside the chain, so no booking is linked.)
    assert!(end.last.is_some() && end.last_move > 0);
    assert!(end.last_scorer > 0 && end.last_verification > 0);
    assert_eq!(
        store::chain::end(c, wrong).await.expect("end"),
        store::chain::ChainEnd::default()
    );
    assert!(store::chain::links(c, right).await.expect("links").len() > 5);
    assert!(store::chain::links(c, wrong).await.expect("links").is_empty());
    assert!(!store::chain::entry_links(c, right, 1, 100)
        .await
        .expect("links")
        .is_empty());
    assert!(store::chain::entry_links(c, wrong, 1, 100)
        .await
        .expect("links")
        .is_empty());
    assert!(store::chain::log_as_text(c, right).await.expect("log").len() >= 6);
    assert!(store::chain::log_as_text(c, wrong).await.expect("log").is_empty());
    assert!(store::chain::log_after(c, right, 0).await.expect("log").len() >= 6);
    assert!(store::chain::log_after(c, wrong, 0).await.expect("log").is_empty());
    assert_eq!(
        store::chain::scorers_after(c, right, 0).await.expect("scorers").len(),
        2
    );
    assert!(store::chain::scorers_after(c, wrong, 0)
        .await
        .expect("scorers")
        .is_empty());
    assert_eq!(
        store::chain::verifications_after(c, right, 0)
            .await
            .expect("verifications")
            .len(),
        1
    );
    assert!(store::chain::verifications_after(c, wrong, 0)
        .await
        .expect("verifications")
        .is_empty());

    // Corrections and verifications.
    let corrections = store::deals::corrections(c, right, None).await.expect("corrections");
    assert_eq!(corrections.len(), 1);
    assert!(store::deals::corrections(c, wrong, None)
        .await
        .expect("corrections")
        .is_empty());
    assert_eq!(
        store::deals::corrections(c, right, Some(1))
            .await
            .expect("deal 1")
            .len(),
        1
    );
    assert!(store::deals::corrections(c, wrong, Some(1))
        .await
        .expect("deal 1")
        .is_empty());
    let seq = corrections[0].seq;
    assert_eq!(
        store::deals::correction(c, right, seq).await.expect("correction").seq,
        seq
    );
    assert!(matches!(
        store::deals::correction(c, wrong, seq).await,
        Err(StoreError::NotFound("correction"))
    ));
    assert_eq!(
        store::deals::verifications(c, right, None)
            .await
            .expect("verifications")
            .len(),
        1
    );
    assert!(store::deals::verifications(c, wrong, None)
        .await
        .expect("verifications")
        .is_empty());
    assert_eq!(
        store::deals::verifications(c, right, Some(1))
            .await
            .expect("deal 1")
            .len(),
        1
    );
    assert!(store::deals::verifications(c, wrong, Some(1))
        .await
        .expect("deal 1")
        .is_empty());

    // The ledger.
    let bookings = store::ledger::bookings(c, right, None).await.expect("bookings");
    assert!(!bookings.is_empty());
    assert!(store::ledger::bookings(c, wrong, None)
        .await
        .expect("bookings")
        .is_empty());
    assert!(!store::ledger::bookings(c, right, Some(1))
        .await
        .expect("deal 1")
        .is_empty());
    assert!(store::ledger::bookings(c, wrong, Some(1))
        .await
        .expect("deal 1")
        .is_empty());
    assert!(!store::ledger::bookings_after(c, right, 0)
        .await
        .expect("bookings")
        .is_empty());
    assert!(store::ledger::bookings_after(c, wrong, 0)
        .await
        .expect("bookings")
        .is_empty());
    assert_eq!(
        store::ledger::balances(c, right)
            .await
            .expect("balances")
            .of(&Account::GameFund),
        Chips::new(5)
    );
    assert_eq!(
        store::ledger::balances(c, wrong)
            .await
            .expect("balances")
            .iter()
            .count(),
        0
    );
    let last = bookings.iter().map(|b| b.id).max().expect("a booking");
    assert_eq!(store::deals::last_booking(c, right).await.expect("last"), last);
    assert_eq!(store::deals::last_booking(c, wrong).await.expect("last"), 0);

    // Scorers, join codes and kept answers.
    assert_eq!(store::scorers::count(c, right).await.expect("count"), 2);
    assert_eq!(store::scorers::count(c, wrong).await.expect("count"), 0);
    assert_eq!(store::scorers::list(c, right).await.expect("scorers").len(), 2);
    assert!(store::scorers::list(c, wrong).await.expect("scorers").is_empty());
    let joins = |codes: Vec<store::join_codes::JoinCodeRow>| codes.iter().map(|c| c.joins).sum::<i64>();
    assert_eq!(joins(store::join_codes::list(c, right).await.expect("codes")), 2);
    assert_eq!(joins(store::join_codes::list(c, wrong).await.expect("codes")), 0);
    let mut tx = app.pool.begin().await.expect("tx");
    assert!(
        store::tables::idempotent_response(&mut tx, right, "deal-one", KEEP_ANSWERS)
            .await
            .expect("answer")
            .is_some()
    );
    assert!(
        store::tables::idempotent_response(&mut tx, wrong, "deal-one", KEEP_ANSWERS)
            .await
            .expect("answer")
            .is_none()
    );
    tx.rollback().await.expect("rollback");
}

#[sqlx::test(migrations = "./migrations")]
async fn each_per_table_write_by_key_changes_nothing_under_another_club_number(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (right, ann, other_club) = a_table_with_every_kind_of_row(&app).await;
    let wrong = TableKey {
        id: right.id,
        club_no: other_club,
    };
    let mut tx = app.pool.begin().await.expect("tx");
    let version = |row: store::tables::TableRow| (row.version, row.finished);
    let before = version(store::tables::fetch(&mut tx, right.id).await.expect("table"));

    // Another club's number: no row of the table is found, so nothing changes.
    store::tables::bump_version(&mut tx, wrong, true).await.expect("bump");
    store::deals::set_version(&mut tx, wrong, 99, true).await.expect("set");
    assert_eq!(
        version(store::tables::fetch(&mut tx, right.id).await.expect("table")),
        before
    );
    assert!(matches!(
        store::scorers::revoke(&mut tx, wrong, ann).await,
        Err(StoreError::NotFound("scorer"))
    ));
    assert!(store::scorers::is_active(&mut tx, right.id, ann).await.expect("active"));
    let void = store::tables::log(&mut tx, right, 0, 100)
        .await
        .expect("log")
        .into_iter()
        .find(|e| e.entry == "void")
        .expect("a void");
    let voided = void.voids_seq.expect("what it voids");
    assert_eq!(
        store::ledger::reverse_move(&mut tx, wrong, voided, void.seq)
            .await
            .expect("reverse"),
        0
    );

    // Its own: each finds the table's row.
    store::tables::bump_version(&mut tx, right, before.1)
        .await
        .expect("bump");
    assert_eq!(
        version(store::tables::fetch(&mut tx, right.id).await.expect("table")),
        (before.0 + 1, before.1)
    );
    store::deals::set_version(&mut tx, right, 99, before.1)
        .await
        .expect("set");
    assert_eq!(
        version(store::tables::fetch(&mut tx, right.id).await.expect("table")),
        (99, before.1)
    );
    let revoked = store::scorers::revoke(&mut tx, right, ann).await.expect("revoke");
    assert!(revoked.revoked_at.is_some());
    assert!(!store::scorers::is_active(&mut tx, right.id, ann).await.expect("active"));
    // A code is found by the table's id (`join_codes` is on every node); who joined with it,
    // by the key.
    let code = store::join_codes::list(&mut tx, right).await.expect("codes")[0]
        .code
        .clone();
    assert_eq!(
        store::join_codes::withdraw(&mut tx, wrong, &code)
            .await
            .expect("withdraw")
            .joins,
        0
    );
    assert_eq!(
        store::join_codes::withdraw(&mut tx, right, &code)
            .await
            .expect("withdraw")
            .joins,
        1
    );
    // Nothing here is meant to stay: the table's rows are as they were.
    tx.rollback().await.expect("rollback");
}
