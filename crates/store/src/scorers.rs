//! Scorers: one row per phone that joined a table, named, revocable.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;
use super::TableKey;

/// A scorer as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ScorerRow {
    pub id: Uuid,
    pub table_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The code it joined with (None for scorers who joined before codes were kept).
    pub join_code: Option<String>,
}

/// Makes a scorer for the table, joined with `code`.
///
/// # Errors
/// On database failure.
pub async fn insert(conn: &mut PgConnection, table: TableKey, name: &str, code: &str) -> Result<ScorerRow, StoreError> {
    Ok(sqlx::query_as!(
        ScorerRow,
        "insert into scorers (id, table_id, name, join_code, club_no) values ($1, $2, $3, $4, $5) returning id, table_id, name, created_at, revoked_at, join_code",
        Uuid::new_v4(),
        table.id,
        name,
        code,
        table.club_no,
    )
    .fetch_one(conn)
    .await?)
}

/// How many scorers the table has had.
///
/// # Errors
/// On database failure.
pub async fn count(conn: &mut PgConnection, table: TableKey) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "count!" from scorers where table_id = $1 and club_no = $2"#,
        table.id,
        table.club_no,
    )
    .fetch_one(conn)
    .await?)
}

/// The table's scorers, oldest first.
///
/// # Errors
/// On database failure.
pub async fn list(conn: &mut PgConnection, table: TableKey) -> Result<Vec<ScorerRow>, StoreError> {
    Ok(sqlx::query_as!(
        ScorerRow,
        "select id, table_id, name, created_at, revoked_at, join_code from scorers where table_id = $1 and club_no = $2 order by created_at, id",
        table.id,
        table.club_no,
    )
    .fetch_all(conn)
    .await?)
}

/// Revokes a scorer of the table (a second revoke keeps the first time) and withdraws the
/// code it joined with, in one statement: a revoked phone still holds its code, and would
/// otherwise rejoin with it at once. The scorer's row as it is now.
///
/// # Errors
/// `NotFound("scorer")` when the table has no such scorer.
pub async fn revoke(conn: &mut PgConnection, table: TableKey, id: Uuid) -> Result<ScorerRow, StoreError> {
    // `join_codes` is a reference table (on every node), found by the table id alone.
    sqlx::query_as!(
        ScorerRow,
        r#"with revoked as (
             update scorers set revoked_at = coalesce(revoked_at, now())
             where table_id = $2 and club_no = $3 and id = $1 returning *
         ), withdrawn as (
             update join_codes set withdrawn_at = coalesce(withdrawn_at, now())
             where table_id = $2 and code = (select join_code from revoked)
         )
         select id as "id!", table_id as "table_id!", name as "name!", created_at as "created_at!", revoked_at, join_code from revoked"#,
        id,
        table.id,
        table.club_no,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("scorer"))
}

/// Whether the table's scorer may still act: it exists and is not revoked.
///
/// # Errors
/// On database failure.
pub async fn is_active(conn: &mut PgConnection, table: Uuid, id: Uuid) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select revoked_at is null as "active!" from scorers where table_id = $1 and id = $2"#,
        table,
        id,
    )
    .fetch_optional(conn)
    .await?
    .unwrap_or(false))
}
