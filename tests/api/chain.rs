//! The hash chain over a table's set-up, log and ledger: what it links, and that a log entry that
//! no longer reads is a finding naming the table. Each kind of tampering in the database (its
//! triggers disabled, as someone with the database's keys could) and what finds it is one table,
//! in `tampering.rs`.

use serde_json::{json, Value};
use sqlx::PgPool;

use crate::evidence::tamper;
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
    let (links, moves, bookings): (i64, i64, i64) = sqlx::query_as(concat!(
        "select (select count(*) from ",
        links_of_table!(),
        "),
                (select count(*) from moves where table_id = $1),
                (select count(*) from ledger_bookings where table_id = $1)"
    ))
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("counts");
    assert_eq!(links, 1 + moves + bookings, "the set-up, every entry and every booking");
    assert_eq!(moves, 7);
}

#[sqlx::test(migrations = "./migrations")]
async fn new_links_hash_the_current_content_version(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;

    let versions: Vec<i16> = sqlx::query_scalar(concat!(
        "select distinct content_version from ",
        links_of_table!(),
        " order by 1"
    ))
    .bind(table.parse::<uuid::Uuid>().expect("uuid"))
    .fetch_all(&pool)
    .await
    .expect("versions");

    assert_eq!(versions, [tablekeeper::service::chain::CONTENT_VERSION]);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_new_link_stores_no_prev_hash_and_reads_with_the_hash_of_the_link_before_it(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;
    let id: uuid::Uuid = table.parse().expect("uuid");

    // Stored: the set-up's 32 zero bytes, then nothing (issue #27: the hash before is not kept twice).
    let stored: Vec<(i64, Vec<u8>)> = sqlx::query_as(concat!(
        "select pos, prev_hash from ",
        links_of_table!(),
        " order by pos"
    ))
    .bind(id)
    .fetch_all(&pool)
    .await
    .expect("links");
    assert!(stored.len() > 2);
    assert_eq!(stored[0], (0, vec![0; 32]));
    assert!(stored[1..].iter().all(|(_, prev)| prev.is_empty()), "{stored:?}");

    // Read: each link's prev_hash is the hash of the one before it, and the chain audits whole.
    let mut conn = pool.acquire().await.expect("connection");
    let key = tablekeeper::store::tables::fetch(&mut conn, id)
        .await
        .expect("table")
        .key();
    let links = tablekeeper::store::chain::links(&mut conn, key).await.expect("links");
    for pair in links.windows(2) {
        assert_eq!(pair[1].prev_hash, pair[0].hash, "link {}", pair[1].pos);
    }
    let end = tablekeeper::store::chain::end(&mut conn, key).await.expect("end");
    assert_eq!(end.last.as_ref(), links.last());
    let audit = assert_audit_consistent(&app, &table).await;
    assert_eq!(audit["chain_intact"], true);
}

#[sqlx::test(migrations = "./migrations")]
async fn a_moves_own_link_is_kept_in_its_row_once_and_the_chain_reads_whole_in_order(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let table = a_played_table(&app).await;
    let id: uuid::Uuid = table.parse().expect("uuid");

    // Stored (issue #27): every move played keeps its link in its own row, and so does every
    // booking it wrote; the set-up, the void (linked after it is written) and the void's
    // reversals keep theirs in `chain_links`, which holds no link of an entry linked in its row.
    let (moves, in_rows, in_both): (i64, i64, i64) = sqlx::query_as(
        "select (select count(*) from moves where table_id = $1 and entry = 'move'),
                (select count(*) from moves where table_id = $1 and entry = 'move' and link_pos is not null),
                (select count(*) from moves m join chain_links l
                     on l.table_id = m.table_id and l.entry = 'move' and l.ref = m.seq
                 where m.table_id = $1 and m.link_pos is not null)",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .expect("counts");
    assert_eq!((moves, in_rows, in_both), (6, 6, 0));
    let void_linked: i64 = sqlx::query_scalar(
        "select count(*) from chain_links l join moves m on m.table_id = l.table_id and m.seq = l.ref
         where l.table_id = $1 and l.entry = 'move' and m.entry = 'void'",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .expect("void");
    assert_eq!(void_linked, 1);
    let (moves_bookings, bookings_in_rows, reversals_linked, bookings_in_both): (i64, i64, i64, i64) = sqlx::query_as(
        "select (select count(*) from ledger_bookings b join moves m on m.table_id = b.table_id and m.seq = b.move_seq
                 where b.table_id = $1 and m.entry = 'move'),
                (select count(*) from ledger_bookings where table_id = $1 and link_pos is not null),
                (select count(*) from chain_links l join ledger_bookings b on b.table_id = l.table_id and b.id = l.ref
                 where l.table_id = $1 and l.entry = 'booking' and b.reverses is not null),
                (select count(*) from ledger_bookings b join chain_links l
                     on l.table_id = b.table_id and l.entry = 'booking' and l.ref = b.id
                 where b.table_id = $1 and b.link_pos is not null)",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .expect("bookings");
    assert!(moves_bookings > 0, "the layout books its stakes");
    assert_eq!((bookings_in_rows, bookings_in_both), (moves_bookings, 0));
    assert!(reversals_linked > 0, "the undo reverses a booking");

    // Read: positions 0, 1, 2, ... without a gap or a repeat across both places, each link
    // following the one before, the end the last of them, and the audit whole.
    let mut conn = pool.acquire().await.expect("connection");
    let key = tablekeeper::store::tables::fetch(&mut conn, id)
        .await
        .expect("table")
        .key();
    let links = tablekeeper::store::chain::links(&mut conn, key).await.expect("links");
    let positions: Vec<i64> = links.iter().map(|l| l.pos).collect();
    assert_eq!(
        positions,
        (0..i64::try_from(links.len()).expect("few")).collect::<Vec<_>>()
    );
    let entries: Vec<(String, i64)> = links.iter().map(|l| (l.entry.clone(), l.reference)).collect();
    let mut distinct = entries.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), entries.len(), "each entry linked once: {entries:?}");
    for pair in links.windows(2) {
        assert_eq!(pair[1].prev_hash, pair[0].hash, "link {}", pair[1].pos);
    }
    let end = tablekeeper::store::chain::end(&mut conn, key).await.expect("end");
    assert_eq!(end.last.as_ref(), links.last());
    assert_eq!(end.last_move, 7);
    let audit = assert_audit_consistent(&app, &table).await;
    assert_eq!(audit["chain_intact"], true);
    assert_eq!(app.state(&table).await["chain_head"], audit["chain_head"]);
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
