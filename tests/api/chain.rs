//! The hash chain over a table's set-up, log and ledger: every kind of tampering in the
//! database (its triggers disabled, as someone with the database's keys could) is found by the
//! audit, which names the first entry that breaks the chain.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{accept, assert_audit_consistent, assert_audits_alike, spawn_app, TestApp};

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
    assert_audits_alike(&app.pool, table).await;
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
        "update moves set body = jsonb_set(body::jsonb, '{card}', '\"9S\"')::json where table_id = $1 and seq = 2",
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

fn draw(player: u8) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

/// A Tridge table of three draws whose deal 1 was corrected: log entries 1–3 (the draws), 4
/// (deal 1 as corrected, `part_of` 5, placed before entry 2) and 5 (the correction, which
/// supersedes entry 1).
async fn a_corrected_table(app: &TestApp, email: &str) -> String {
    let token = app.organiser(email).await;
    let table = app
        .game_table(&token, "tridge", &["Ann", "Bob", "Cat"], json!({}))
        .await;
    for player in [1, 0, 1] {
        accept(app, &table, &token, draw(player)).await;
    }
    let cat_wins = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
                          "honours": 2, "tricks": [2, 2, 5]});
    app.request(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{table}/deals/1"),
        Some(&token),
        Some(json!({"moves": [cat_wins], "expected_version": 3, "reason": "Cat won that one"})),
    )
    .await
    .assert_status(200);
    table
}

#[sqlx::test(migrations = "./migrations")]
async fn a_corrected_entry_moved_re_parented_or_un_superseded_is_caught_at_that_entry(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let moved = a_corrected_table(&app, "ann@club.example").await;
    let re_parented = a_corrected_table(&app, "bob@club.example").await;
    let un_superseded = a_corrected_table(&app, "cat@club.example").await;
    let log = app.log(&moved).await;
    assert_eq!(log[3]["part_of"], 5, "{log}");
    assert_eq!(log[0]["superseded_by"], 5, "{log}");
    for table in [&moved, &re_parented, &un_superseded] {
        let audit = assert_audit_consistent(&app, table).await;
        assert_eq!(audit["chain_intact"], true, "{audit}");
    }

    // Deal 1 as corrected moved after deal 2 in play order.
    tamper(
        &pool,
        &moved,
        "update moves set position = 2.5 where table_id = $1 and seq = 4",
    )
    .await;
    // The corrected move made a move of its own: play order and replay are unchanged.
    tamper(
        &pool,
        &re_parented,
        "update moves set part_of = null where table_id = $1 and seq = 4",
    )
    .await;
    // The supersession lifted: the deal's first recording is in play again.
    tamper(
        &pool,
        &un_superseded,
        "delete from superseded_moves where table_id = $1 and seq = 1",
    )
    .await;

    assert_caught(&audit(&app, &moved).await, "log entry 4 was changed");
    let audit_of_re_parented = audit(&app, &re_parented).await;
    assert_eq!(audit_of_re_parented["events_match"], true, "{audit_of_re_parented}");
    assert_eq!(audit_of_re_parented["ledger_matches"], true, "{audit_of_re_parented}");
    assert_eq!(audit_of_re_parented["state_matches"], true, "{audit_of_re_parented}");
    assert_caught(&audit_of_re_parented, "log entry 4 was changed");
    assert_caught(&audit(&app, &un_superseded).await, "log entry 5 was changed");
}

#[sqlx::test(migrations = "./migrations")]
async fn new_links_hash_the_current_content_version(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_corrected_table(&app, "ann@club.example").await;

    let versions: Vec<i16> =
        sqlx::query_scalar("select distinct content_version from chain_links where table_id = $1::uuid order by 1")
            .bind(table.parse::<uuid::Uuid>().expect("uuid"))
            .fetch_all(&pool)
            .await
            .expect("versions");

    assert_eq!(versions, [tablekeeper::service::chain::CONTENT_VERSION]);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_move_that_no_longer_reads_is_a_problem_naming_the_table_never_a_failure(pool: PgPool) {
    // Arrange: a session's Newmarket table whose second entry is rewritten, behind the
    // triggers' back, into a move no game has.
    let app = spawn_app(pool.clone()).await;
    let token = app.organiser("ann@club.example").await;
    let session = app.session(&token, "Friday").await;
    let body = json!({"game": "newmarket", "players": ["Ann", "Bob", "Cat", "Dan"], "session_id": session});
    let table = app.post("/api/v1/tables", &token, body).await.assert_status(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let layout = json!({"kind": "layout", "pool_cards": ["JD", "QH", "KC", "AS"], "stakes": ["AS", "KC", "QH", "JD"]});
    accept(&app, &table, &token, layout).await;
    for (seat, card) in [(1, "QS"), (2, "KS")] {
        accept(&app, &table, &token, play(seat, card)).await;
    }
    tamper(
        &pool,
        &table,
        "update moves set body = '{\"kind\": \"shuffle\", \"seat\": 1}'::json where table_id = $1 and seq = 2",
    )
    .await;
    // The log now holds a move the spec has no schema for, and the server reads it back as kept.
    app.stop_checking_spec();
    // The replica forgets the state it kept, so a move has to read the log too.
    app.hot.as_deref().expect("an app in this process").clear();
    let log = app.log(&table).await;

    // Act and assert: every read or write that folds the log names the table.
    let damaged = |answer: crate::helpers::Answer, what: &str| {
        answer.assert_problem(409, "table_damaged");
        let detail = answer.body["detail"].as_str().expect("detail");
        assert!(detail.contains(&table), "{what}: the table is named: {detail}");
    };
    damaged(app.get(&format!("/api/v1/tables/{table}")).await, "state");
    damaged(app.get(&format!("/api/v1/tables/{table}/scores")).await, "scores");
    damaged(app.get(&format!("/api/v1/tables/{table}/deals/1")).await, "deal");
    damaged(
        app.get(&format!("/api/v1/sessions/{session}/audit-bundle")).await,
        "bundle",
    );
    damaged(
        app.get(&format!("/api/v1/sessions/{session}/standings")).await,
        "standings",
    );
    damaged(app.submit(&table, &token, play(2, "JC")).await, "move");
    assert_eq!(app.log(&table).await, log, "the refused move wrote nothing");

    // The audit reports it, as findings.
    let audit = app
        .get(&format!("/api/v1/tables/{table}/audit"))
        .await
        .assert_status(200)
        .clone();
    assert_eq!(audit["consistent"], false, "{audit}");
    let problems = audit["problems"].to_string();
    assert!(problems.contains("move 2"), "{audit}");
}
