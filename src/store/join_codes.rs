//! Join codes: short codes a phone types to get a scorer token for one table.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

/// Stores a code; false when the code is taken already (the caller draws another).
///
/// # Errors
/// On database failure.
pub async fn insert(
    conn: &mut PgConnection,
    code: &str,
    table: Uuid,
    created_by: Uuid,
    expires_at: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "insert into join_codes (code, table_id, created_by, expires_at) values ($1, $2, $3, $4)
         on conflict (code) do nothing",
    )
    .bind(code)
    .bind(table)
    .bind(created_by)
    .bind(expires_at)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

/// The table a code that has not expired opens.
///
/// # Errors
/// On database failure.
pub async fn table_for(conn: &mut PgConnection, code: &str, now: DateTime<Utc>) -> Result<Option<Uuid>, StoreError> {
    Ok(
        sqlx::query_scalar::<_, Uuid>("select table_id from join_codes where code = $1 and expires_at > $2")
            .bind(code)
            .bind(now)
            .fetch_optional(conn)
            .await?,
    )
}
