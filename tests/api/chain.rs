//! The hash chain over a table's set-up, log and ledger: every kind of tampering in the
//! database (its triggers disabled, as someone with the database's keys could) is found by the
//! audit, which names the first entry that breaks the chain.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_audit_consistent, spawn_app, TestApp};

fn play(seat: u8, card: &str) -> Value {
    json!({"kind": "play", "seat": seat, "card": card})
}

/// A Newmarket table with chips booked by its opening, its layout and won pools, and an undo:
/// log entries 1–5 (the layout, four cards) and 6 (a void of 5), then 7 (5's card again).
async fn a_played_table(app: &TestApp) -> String {
    let token = app.organiser("ann@club.example").await;
    let table = app
        .game_table(&token, "newmarket", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &table, &token, layout).await;
    for (seat, card) in [(1, "QS"), (2, "KS"), (2, "JC"), (3, "QC")] {
        accept(app, &table, &token, play(seat, card)).await;
    }
    app.post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200);
    accept(app, &table, &token, play(3, "QC")).await;
    table
}

async fn audit(app: &TestApp, table: &str) -> Value {
    app.get(&format!("/api/v1/tables/{table}/audit"))
        .await
        .assert_status(200)
        .clone()
}

/// Runs `sql` (with `$1` the table) with every trigger off: append-only guards included.
async fn tamper(pool: &PgPool, table: &str, sql: &str) {
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut tx = pool.begin().await.expect("tx");
    sqlx::query("set local session_replication_role = replica")
        .execute(&mut *tx)
        .await
        .expect("triggers off");
    for statement in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let query = sqlx::query(statement);
        let query = if statement.contains("$1") {
            query.bind(id)
        } else {
            query
        };
        query.execute(&mut *tx).await.expect(statement);
    }
    tx.commit().await.expect("commit");
}

/// The audit finds the chain broken, naming `finding` first, and the table inconsistent.
fn assert_caught(audit: &Value, finding: &str) {
    assert_eq!(audit["consistent"], false, "{audit}");
    assert_eq!(audit["chain_intact"], false, "{audit}");
    let problems: Vec<&str> = audit["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let chain = problems
        .iter()
        .find(|p| p.starts_with("the chain breaks") || p.starts_with("the table's head"))
        .expect("a chain finding");
    assert!(chain.contains(finding), "expected `{finding}` in `{chain}`");
}

#[sqlx::test(migrations = "./migrations")]
async fn every_entry_and_booking_is_linked_and_the_head_follows_each_move_and_undo(pool: PgPool) {
    let app = spawn_app(pool).await;
    let table = a_played_table(&app).await;

    let audit = assert_audit_consistent(&app, &table).await;
    assert_eq!(audit["chained"], true);
    assert_eq!(audit["chain_intact"], true);
    let state = app.state(&table).await;
    assert_eq!(state["chain_head"], audit["chain_head"]);
    assert_eq!(audit["chain_head"].as_str().map(str::len), Some(64));

    let id: uuid::Uuid = table.parse().expect("uuid");
    let (links, moves, bookings): (i64, i64, i64) = sqlx::query_as(
        "select (select count(*) from chain_links where table_id = $1),
                (select count(*) from moves where table_id = $1),
                (select count(*) from ledger_bookings where table_id = $1)",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("counts");
    assert_eq!(links, 1 + moves + bookings, "the set-up, every entry and every booking");
    assert_eq!(moves, 7);
}

#[sqlx::test(migrations = "./migrations")]
async fn an_edited_posting_is_caught(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;
    let booking: i64 = sqlx::query_scalar("select min(id) from ledger_bookings where table_id = $1::uuid")
        .bind(table.parse::<uuid::Uuid>().expect("uuid"))
        .fetch_one(&pool)
        .await
        .expect("booking");

    // Still balanced: one chip moved from the bank to seat 0 in the opening booking.
    tamper(
        &pool,
        &table,
        &format!(
            "update ledger_postings set amount = amount + 1 where table_id = $1 and booking_id = {booking} and account = 'seat:0';
             update ledger_postings set amount = amount - 1 where table_id = $1 and booking_id = {booking} and account = 'bank'"
        ),
    )
    .await;

    assert_caught(&audit(&app, &table).await, &format!("booking {booking} was changed"));
}

#[sqlx::test(migrations = "./migrations")]
async fn an_edited_move_is_caught(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;

    tamper(
        &pool,
        &table,
        "update moves set body = jsonb_set(body, '{card}', '\"9S\"') where table_id = $1 and seq = 2",
    )
    .await;

    assert_caught(&audit(&app, &table).await, "log entry 2 was changed");
}

#[sqlx::test(migrations = "./migrations")]
async fn a_rewritten_recorded_by_or_recorded_at_is_caught_where_the_replay_sees_nothing(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;
    let other = a_played_table_of(&app, "bob@club.example").await;

    tamper(&pool, &table, "update moves set recorded_by = 'organiser:00000000-0000-0000-0000-000000000000' where table_id = $1 and seq = 3").await;
    tamper(
        &pool,
        &other,
        "update moves set recorded_at = recorded_at - interval '1 hour' where table_id = $1 and seq = 4",
    )
    .await;

    for (table, entry) in [(&table, 3), (&other, 4)] {
        let audit = audit(&app, table).await;
        // The replay alone finds nothing wrong: only the chain does.
        assert_eq!(audit["events_match"], true, "{audit}");
        assert_eq!(audit["ledger_matches"], true, "{audit}");
        assert_eq!(audit["state_matches"], true, "{audit}");
        assert_caught(&audit, &format!("log entry {entry} was changed"));
    }
}

async fn a_played_table_of(app: &TestApp, email: &str) -> String {
    let token = app.organiser(email).await;
    let table = app
        .game_table(&token, "newmarket", &["Ann", "Bob", "Cat", "Dan"], json!({}))
        .await;
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(app, &table, &token, layout).await;
    for (seat, card) in [(1, "QS"), (2, "KS"), (2, "JC")] {
        accept(app, &table, &token, play(seat, card)).await;
    }
    table
}

#[sqlx::test(migrations = "./migrations")]
async fn entries_reordered_are_caught(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;

    tamper(
        &pool,
        &table,
        "update moves set seq = 1000 where table_id = $1 and seq = 2;
         update moves set seq = 2 where table_id = $1 and seq = 3;
         update moves set seq = 3 where table_id = $1 and seq = 1000",
    )
    .await;

    assert_caught(&audit(&app, &table).await, "log entry 2 was changed");
}

/// The last entry, its bookings, lines and snapshot removed and the version set back: the log
/// and ledger left replay consistently, so only the chain can tell.
const DELETE_LAST: &str = "delete from deal_lines where table_id = $1 and seq = 7;
    delete from ledger_postings p using ledger_bookings b
        where b.table_id = $1 and p.table_id = b.table_id and p.booking_id = b.id and b.move_seq = 7;
    delete from ledger_bookings where table_id = $1 and move_seq = 7;
    delete from snapshots where table_id = $1 and seq = 7;
    delete from moves where table_id = $1 and seq = 7;
    update game_tables set version = version - 1 where id = $1";

#[sqlx::test(migrations = "./migrations")]
async fn the_last_move_deleted_with_its_bookings_and_snapshot_and_the_version_set_back_is_caught(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;
    let bookings_of_7: i64 =
        sqlx::query_scalar("select count(*) from ledger_bookings where table_id = $1::uuid and move_seq = 7")
            .bind(table.parse::<uuid::Uuid>().expect("uuid"))
            .fetch_one(&pool)
            .await
            .expect("count");
    assert!(bookings_of_7 > 0, "the last move booked chips");

    tamper(&pool, &table, DELETE_LAST).await;

    let audit = audit(&app, &table).await;
    assert_eq!(audit["events_match"], true, "{audit}");
    assert_eq!(audit["ledger_matches"], true, "{audit}");
    assert_eq!(audit["state_matches"], true, "{audit}");
    assert_caught(&audit, "log entry 7 was linked but is missing");
}

#[sqlx::test(migrations = "./migrations")]
async fn the_last_move_deleted_with_its_links_too_is_caught_by_the_head(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;

    tamper(&pool, &table, DELETE_LAST).await;
    tamper(
        &pool,
        &table,
        "delete from chain_links where table_id = $1 and pos >= (select pos from chain_links where table_id = $1 and entry = 'move' and ref = 7)",
    )
    .await;

    assert_caught(
        &audit(&app, &table).await,
        "the table's head hash is not the hash of the chain's last entry (booking",
    );
}
