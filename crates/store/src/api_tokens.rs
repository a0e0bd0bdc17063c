//! Personal API tokens: rows in, rows out. The secret itself is never stored, only its hash.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::StoreError;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ApiToken {
    pub id: Uuid,
    pub user_id: Uuid,
    pub club_id: Uuid,
    pub name: String,
    pub prefix: String,
    pub secret_hash: Vec<u8>,
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// What a new token's row holds.
pub struct NewToken<'a> {
    pub user: Uuid,
    pub club: Uuid,
    pub name: &'a str,
    pub prefix: &'a str,
    pub secret_hash: &'a [u8],
    pub scopes: &'a [String],
    pub expires_at: Option<DateTime<Utc>>,
}

/// # Errors
/// On database failure (a prefix taken already, which 48 random bits make unheard of, included).
pub async fn insert(conn: &mut PgConnection, new: &NewToken<'_>) -> Result<ApiToken, StoreError> {
    Ok(sqlx::query_as!(
        ApiToken,
        "insert into api_tokens (id, user_id, club_id, name, prefix, secret_hash, scopes, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         returning *",
        Uuid::new_v4(),
        new.user,
        new.club,
        new.name,
        new.prefix,
        new.secret_hash,
        new.scopes,
        new.expires_at,
    )
    .fetch_one(conn)
    .await?)
}

/// The token with this public prefix, if any.
///
/// # Errors
/// On database failure.
pub async fn by_prefix(conn: &mut PgConnection, prefix: &str) -> Result<Option<ApiToken>, StoreError> {
    Ok(
        sqlx::query_as!(ApiToken, "select * from api_tokens where prefix = $1", prefix)
            .fetch_optional(conn)
            .await?,
    )
}

/// The user's tokens, newest first.
///
/// # Errors
/// On database failure.
pub async fn list(conn: &mut PgConnection, user: Uuid, limit: i64, offset: i64) -> Result<Vec<ApiToken>, StoreError> {
    Ok(sqlx::query_as!(
        ApiToken,
        "select * from api_tokens where user_id = $1 order by created_at desc, id limit $2 offset $3",
        user,
        limit,
        offset,
    )
    .fetch_all(conn)
    .await?)
}

/// Revokes the user's token (again is fine: the first revocation's time stays).
///
/// # Errors
/// `NotFound("API token")` when the user has no such token; on database failure.
pub async fn revoke(conn: &mut PgConnection, user: Uuid, id: Uuid) -> Result<(), StoreError> {
    let done = sqlx::query!(
        "update api_tokens set revoked_at = coalesce(revoked_at, now()) where id = $1 and user_id = $2",
        id,
        user,
    )
    .execute(conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound("API token"));
    }
    Ok(())
}

/// Notes that the token was used now; at most once a minute, so that a busy integration does
/// not write a row per request.
///
/// # Errors
/// On database failure.
pub async fn touch(conn: &mut PgConnection, id: Uuid) -> Result<(), StoreError> {
    sqlx::query!(
        "update api_tokens set last_used_at = now()
         where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')",
        id,
    )
    .execute(conn)
    .await?;
    Ok(())
}
