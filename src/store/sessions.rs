//! Club sessions: a sitting that groups tables.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ClubSession {
    pub id: Uuid,
    pub owner_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

/// # Errors
/// On database failure.
pub async fn insert(conn: &mut PgConnection, owner: Uuid, name: &str) -> Result<ClubSession, StoreError> {
    Ok(sqlx::query_as::<_, ClubSession>(
        "insert into club_sessions (id, owner_id, name) values ($1, $2, $3) returning *",
    )
    .bind(Uuid::new_v4())
    .bind(owner)
    .bind(name)
    .fetch_one(conn)
    .await?)
}

/// # Errors
/// `NotFound` when there is no such session.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<ClubSession, StoreError> {
    sqlx::query_as::<_, ClubSession>("select * from club_sessions where id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("session"))
}

/// The owner's sessions, newest first.
///
/// # Errors
/// On database failure.
pub async fn list(
    conn: &mut PgConnection,
    owner: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ClubSession>, StoreError> {
    Ok(sqlx::query_as::<_, ClubSession>(
        "select * from club_sessions where owner_id = $1 order by created_at desc, id limit $2 offset $3",
    )
    .bind(owner)
    .bind(limit)
    .bind(offset)
    .fetch_all(conn)
    .await?)
}
