//! Join codes: short codes a phone types to get a scorer token for one table. A code opens its
//! table until it expires or its organiser withdraws it (directly, or by revoking a scorer who
//! joined with it).

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::{StoreError, TableKey};

/// A join code as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct JoinCodeRow {
    pub code: String,
    pub table_id: Uuid,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub withdrawn_at: Option<DateTime<Utc>>,
    /// How many scorers joined with it.
    pub joins: i64,
}

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
    let inserted = sqlx::query!(
        "insert into join_codes (code, table_id, created_by, expires_at) values ($1, $2, $3, $4)
         on conflict (code) do nothing",
        code,
        table,
        created_by,
        expires_at,
    )
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

/// The table a code opens: one that has neither expired nor been withdrawn.
///
/// # Errors
/// On database failure.
pub async fn table_for(conn: &mut PgConnection, code: &str, now: DateTime<Utc>) -> Result<Option<Uuid>, StoreError> {
    Ok(sqlx::query_scalar!(
        "select table_id from join_codes where code = $1 and expires_at > $2 and withdrawn_at is null",
        code,
        now,
    )
    .fetch_optional(conn)
    .await?)
}

/// The table's codes, newest first, expired and withdrawn ones included.
///
/// # Errors
/// On database failure.
pub async fn list(conn: &mut PgConnection, table: TableKey) -> Result<Vec<JoinCodeRow>, StoreError> {
    Ok(sqlx::query_as!(
        JoinCodeRow,
        r#"select c.code, c.table_id, c.expires_at, c.created_at, c.withdrawn_at,
                (select count(*) from scorers s where s.table_id = c.table_id and s.club_no = $2 and s.join_code = c.code)
                    as "joins!"
         from join_codes c where c.table_id = $1 order by c.created_at desc, c.code"#,
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// Withdraws one of the table's codes (a second withdrawal keeps the first time); the row as
/// it is now.
///
/// # Errors
/// `NotFound("join code")` when the table has no such code.
pub async fn withdraw(conn: &mut PgConnection, table: TableKey, code: &str) -> Result<JoinCodeRow, StoreError> {
    sqlx::query_as!(
        JoinCodeRow,
        r#"update join_codes c set withdrawn_at = coalesce(withdrawn_at, now())
         where c.table_id = $1 and c.code = $2
         returning c.code, c.table_id, c.expires_at, c.created_at, c.withdrawn_at,
                   (select count(*) from scorers s where s.table_id = c.table_id and s.club_no = $3 and s.join_code = c.code)
                       as "joins!""#,
        table.id,
        code,
        table.club_no,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("join code"))
}
