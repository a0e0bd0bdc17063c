//! Share links: read-only access to one session for whoever holds the link's token.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ShareLink {
    pub id: Uuid,
    pub session_id: Uuid,
    pub created_by: Uuid,
    pub label: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A new link to the session, standing until `expires_at`. `created_at` is whole seconds, as
/// the token's issue time says it.
///
/// # Errors
/// On database failure.
pub async fn insert(
    conn: &mut PgConnection,
    session: Uuid,
    by: Uuid,
    label: Option<&str>,
    expires_at: DateTime<Utc>,
) -> Result<ShareLink, StoreError> {
    Ok(sqlx::query_as!(
        ShareLink,
        "insert into share_links (id, session_id, created_by, label, created_at, expires_at)
         values ($1, $2, $3, $4, date_trunc('second', now()), date_trunc('second', $5::timestamptz))
         returning *",
        Uuid::new_v4(),
        session,
        by,
        label,
        expires_at,
    )
    .fetch_one(conn)
    .await?)
}

/// # Errors
/// `NotFound("share link")` when there is no such link; on database failure.
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> Result<ShareLink, StoreError> {
    sqlx::query_as!(ShareLink, "select * from share_links where id = $1", id)
        .fetch_optional(conn)
        .await?
        .ok_or(StoreError::NotFound("share link"))
}

/// The session's links, newest first, revoked and expired ones included.
///
/// # Errors
/// On database failure.
pub async fn list(
    conn: &mut PgConnection,
    session: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ShareLink>, StoreError> {
    Ok(sqlx::query_as!(
        ShareLink,
        "select * from share_links where session_id = $1 order by created_at desc, id limit $2 offset $3",
        session,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// Revokes the session's link (again: no change, the first revocation's time stays).
///
/// # Errors
/// `NotFound("share link")` when the session has no such link; on database failure.
pub async fn revoke(conn: &mut PgConnection, session: Uuid, id: Uuid) -> Result<ShareLink, StoreError> {
    sqlx::query_as!(
        ShareLink,
        "update share_links set revoked_at = coalesce(revoked_at, now())
         where session_id = $1 and id = $2 returning *",
        session,
        id,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("share link"))
}
