//! Answers to requests that created something (a session, a table), kept under the caller's
//! `Idempotency-Key`: rows in, rows out.

use sqlx::PgConnection;
use uuid::Uuid;

use super::tables::StoredResponse;
use super::StoreError;

/// The answer kept for `owner`'s `operation` under `key`, if any.
///
/// # Errors
/// On database failure.
pub async fn kept(
    conn: &mut PgConnection,
    owner: Uuid,
    operation: &str,
    key: &str,
) -> Result<Option<StoredResponse>, StoreError> {
    let row = sqlx::query!(
        r#"select request_hash, response_status, response_body::text as "response_body!" from creation_keys
         where user_id = $1 and operation = $2 and key = $3"#,
        owner,
        operation,
        key,
    )
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|row| StoredResponse {
        request_hash: row.request_hash,
        status: u16::try_from(row.response_status).unwrap_or(200),
        body: row.response_body,
    }))
}

/// Keeps the answer under `key`, in the transaction that created what it describes; false when a
/// request with the same key kept one first (this statement waits for that request's transaction,
/// so two racing requests cannot both keep theirs).
///
/// # Errors
/// On database failure.
pub async fn keep(
    conn: &mut PgConnection,
    owner: Uuid,
    operation: &str,
    key: &str,
    response: &StoredResponse,
) -> Result<bool, StoreError> {
    let kept = sqlx::query!(
        "insert into creation_keys (user_id, operation, key, request_hash, response_status, response_body)
         values ($1, $2, $3, $4, $5, $6::json)
         on conflict on constraint creation_keys_pkey do nothing",
        owner,
        operation,
        key,
        &response.request_hash,
        i16::try_from(response.status).unwrap_or(200),
        &response.body as _,
    )
    .execute(conn)
    .await?;
    Ok(kept.rows_affected() == 1)
}
