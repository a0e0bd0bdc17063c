//! The answers kept under a table's `Idempotency-Key`s (moves, undos, corrections,
//! verifications): kept in the transaction that wrote what they answer, read under the table's
//! lock, and pruned once older than the retention window.

use std::time::Duration;

use sqlx::PgConnection;

use super::TableKey;
use super::{StoreError, Tx};

/// A stored answer to an idempotent request.
#[derive(Debug, Clone)]
pub struct StoredResponse {
    pub request_hash: String,
    pub status: u16,
    /// The answer's JSON text.
    pub body: String,
}

/// A key whose answer is older than the retention window is read as no answer at all (the
/// reads below), so the request under it is new; its answer then takes the expired one's place,
/// which the pruner may not have deleted yet. A key still within the window is never written
/// again: the read found its answer and the request was answered with it.
pub(super) const REPLACE_EXPIRED: &str = "on conflict on constraint idempotency_keys_pkey do update
     set request_hash = excluded.request_hash, response_status = excluded.response_status,
         response_body = excluded.response_body, created_at = excluded.created_at";

/// How many expired answers the pruner deletes per statement, so that no statement runs long.
const PRUNE_BATCH: i64 = 10_000;

/// Deletes the Idempotency-Key answers older than the retention window, a batch at a time;
/// returns how many it deleted.
///
/// # Errors
/// On database failure.
pub async fn prune_idempotent_responses(conn: &mut PgConnection, kept_for: Duration) -> Result<u64, StoreError> {
    let mut deleted = 0;
    loop {
        let batch = sqlx::query!(
            "delete from idempotency_keys where ctid = any(array(
                 select ctid from idempotency_keys where created_at <= now() - make_interval(secs => $2) limit $1))",
            PRUNE_BATCH,
            kept_for.as_secs_f64(),
        )
        .execute(&mut *conn)
        .await?
        .rows_affected();
        deleted += batch;
        if batch < u64::try_from(PRUNE_BATCH).unwrap_or(u64::MAX) {
            return Ok(deleted);
        }
    }
}

/// The answer stored under an idempotency key for this table, if any, kept for less than
/// `kept_for`.
///
/// # Errors
/// On database failure.
pub async fn idempotent_response(
    tx: &mut Tx<'_>,
    table: TableKey,
    key: &str,
    kept_for: Duration,
) -> Result<Option<StoredResponse>, StoreError> {
    let row = sqlx::query!(
        r#"select request_hash, response_status, response_body::text as "response_body!" from idempotency_keys
         where table_id = $1 and club_no = $4 and key = $2 and created_at > now() - make_interval(secs => $3)"#,
        table.id,
        key,
        kept_for.as_secs_f64(),
        table.club_no,
    )
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|row| StoredResponse {
        request_hash: row.request_hash,
        status: u16::try_from(row.response_status).unwrap_or(200),
        body: row.response_body,
    }))
}

/// Stores the answer given under an idempotency key, in the move's transaction.
///
/// # Errors
/// On database failure.
pub async fn save_idempotent_response(
    tx: &mut Tx<'_>,
    table: TableKey,
    key: &str,
    response: &StoredResponse,
) -> Result<(), StoreError> {
    // The conflict clause is [`REPLACE_EXPIRED`], written out (a checked statement is one literal).
    sqlx::query!(
        "insert into idempotency_keys (table_id, key, request_hash, response_status, response_body, club_no)
             values ($1, $2, $3, $4, $5::json, $6) on conflict on constraint idempotency_keys_pkey do update
     set request_hash = excluded.request_hash, response_status = excluded.response_status,
         response_body = excluded.response_body, created_at = excluded.created_at",
        table.id,
        key,
        &response.request_hash,
        i16::try_from(response.status).unwrap_or(200),
        &response.body as _,
        table.club_no,
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}
