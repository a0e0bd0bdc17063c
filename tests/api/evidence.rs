//! What the tests of the evidence share: changing the database as its superuser could (triggers
//! off), hashing a table's chain again to hide it, the session's signed bundle, the server's
//! audit key and the receipts kept from answers.

use serde_json::Value;
use sqlx::PgPool;
use tablekeeper::service::receipts::{self, Receipt};

use crate::helpers::TestApp;

/// A session's table and the receipts every answer about it gave, oldest first.
pub struct Evening {
    pub token: String,
    pub session: String,
    pub table: String,
    pub receipts: Vec<Value>,
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
        "delete from chain_links where table_id = $1; update game_tables set chain_head = null where id = $1",
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
        .client
        .get(format!("{}/api/v1/sessions/{session}/audit-bundle", app.base))
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
