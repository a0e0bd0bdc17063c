//! What the tests of the evidence share: a finished table with every kind of entry in its chain
//! and the receipts of every answer, changing the database as its superuser could (triggers
//! off), hashing a table's chain again to hide it, the session's signed bundle, the server's
//! audit key and the receipts kept from answers.

use serde_json::{json, Value};
use sqlx::PgPool;
use tablekeeper::service::receipts::{self, Receipt};

use crate::helpers::{accept, TestApp};

/// A session's table and the receipts every answer about it gave, oldest first.
pub struct Evening {
    pub token: String,
    pub session: String,
    pub table: String,
    pub receipts: Vec<Value>,
}

fn draw(player: u8) -> Value {
    json!({"kind": "result", "player": player, "contract": {"contract": "play", "trumps": "hearts"},
           "honours": 0, "tricks": [3, 3, 3]})
}

/// A session's Tridge table played to its end, every kind of entry in its chain: log entries
/// 1–3 (three deals), 4 (deal 1 as corrected, `part_of` 5) and 5 (the correction, superseding
/// entry 1), Bob's phone joined (scorer 1) and agreeing with deal 2 (verification 1), 6 (a fourth
/// deal) and 7 (its undo, a void whose bookings reverse 6's), and 8 (the Widow's Fund settled,
/// which finishes the table); chips booked by each deal. The receipts of every answer, oldest
/// first.
pub async fn a_finished_evening(app: &TestApp, email: &str) -> Evening {
    let token = app.organiser(email).await;
    // Reads are private (issue #25): the rig reads as this evening's organiser from now on.
    *app.default_reader.lock().expect("reader lock") = Some(token.clone());
    let session = app.session(&token, "Friday").await;
    let body = json!({"game": "tridge", "players": ["Ann", "Bob", "Cat"], "session_id": session});
    let created = app
        .post("/api/v1/tables", &token, body)
        .await
        .assert_status(201)
        .clone();
    let table = created["id"].as_str().expect("id").to_owned();
    assert_eq!(
        created["members"].as_array().map(Vec::len),
        Some(3),
        "seats name members"
    );
    let mut receipts = vec![created["receipt"].clone()];
    for player in [1, 0, 1] {
        receipts.push(accept(app, &table, &token, draw(player)).await["receipt"].clone());
    }
    let cat_wins = json!({"kind": "result", "player": 2, "contract": {"contract": "play_diamonds"},
                          "honours": 2, "tricks": [2, 2, 5]});
    let corrected = app
        .request(
            reqwest::Method::PUT,
            &format!("/api/v1/tables/{table}/deals/1"),
            Some(&token),
            Some(json!({"moves": [cat_wins], "expected_version": 3, "reason": "Cat won that one"})),
        )
        .await
        .assert_status(200)
        .clone();
    receipts.push(corrected["receipt"].clone());
    let joined = crate::scorers::join(app, &token, &table, Some("Bob's phone")).await;
    receipts.push(joined["receipt"].clone());
    let phone = joined["token"].as_str().expect("token");
    let verified = app
        .post(
            &format!("/api/v1/tables/{table}/deals/2/verification"),
            phone,
            json!({"agree": true}),
        )
        .await
        .assert_status(201)
        .clone();
    receipts.push(verified["receipt"].clone());
    receipts.push(accept(app, &table, &token, draw(0)).await["receipt"].clone());
    let undone = app
        .post(&format!("/api/v1/tables/{table}/undo"), &token, json!({}))
        .await
        .assert_status(200)
        .clone();
    receipts.push(undone["receipt"].clone());
    let settled = accept(
        app,
        &table,
        &token,
        json!({"kind": "settle_widows_fund", "choice": "split"}),
    )
    .await;
    receipts.push(settled["receipt"].clone());
    assert!(receipts.iter().all(|r| r["signature"].is_string()), "{receipts:?}");
    assert_eq!(app.state(&table).await["finished"], true);
    Evening {
        token,
        session,
        table,
        receipts,
    }
}

/// Runs `sql` (statements split at `;`, with `$1` the table) as the database's superuser could:
/// with every trigger off, append-only guards included, in one transaction.
pub async fn tamper(pool: &PgPool, table: &str, sql: &str) {
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

/// Hashes the table's chain again from its entries as they are now, as someone with the source
/// and the database would after rewriting entries: the stored chain then agrees with them.
pub async fn hash_again(pool: &PgPool, table: &str) {
    tamper(
        pool,
        table,
        "delete from chain_links where table_id = $1;
         update moves set link_pos = null, link_version = null, link_content_hash = null, link_hash = null
         where table_id = $1;
         update ledger_bookings set link_pos = null, link_version = null, link_content_hash = null, link_hash = null
         where table_id = $1;
         update game_tables set chain_head = null where id = $1",
    )
    .await;
    let id: uuid::Uuid = table.parse().expect("uuid");
    let mut tx = pool.begin().await.expect("tx");
    let row = tablekeeper::store::tables::fetch(&mut tx, id).await.expect("table");
    tablekeeper::service::chain::extend(&mut tx, &row)
        .await
        .expect("chained again");
    tx.commit().await.expect("commit");
}

/// The session's signed audit bundle, as downloaded.
pub async fn bundle(app: &TestApp, session: &str) -> Vec<u8> {
    let response = app
        .as_reader(
            app.client
                .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base)),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body").to_vec()
}

/// The server's current audit key, as `GET /audit-key` gives it.
pub async fn server_key(app: &TestApp) -> ed25519_dalek::VerifyingKey {
    let key = app.get("/api/v1/audit-key").await.assert_status(200).clone();
    receipts::public_key(key["public_key"].as_str().expect("key")).expect("an Ed25519 key")
}

/// Receipts as `verify --receipts` reads them from a file of them.
pub fn kept(receipts: &[Value]) -> Vec<(Receipt, Value)> {
    receipts::read(&Value::Array(receipts.to_vec())).expect("receipts read")
}
