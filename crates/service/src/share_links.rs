//! Share links: an organiser of the session's club hands out read-only access to the session
//! (the big screen, players without accounts), and takes it back.

use chrono::{DateTime, Utc};
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::access::{self, Account, Capability};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::ServiceError;
pub use tablekeeper_store::share_links::ShareLink;
use tablekeeper_store::{self as store, StoreError};

/// Makes a link to the session standing until `expires_at`.
///
/// # Errors
/// `NotFound("session")` for a stranger to the session's club, `Forbidden` for a member who
/// does not organise; on database failure.
pub async fn create<K: Kept>(
    pool: &PgPool,
    account: Account,
    session: Uuid,
    label: Option<&str>,
    expires_at: DateTime<Utc>,
    key: Option<&CreationKey>,
    render: impl FnOnce(ShareLink) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    let row = store::sessions::fetch(&mut tx, session).await?;
    access::require(&mut tx, account, row.club_id, Capability::Organise, "session").await?;
    let link = store::share_links::insert(&mut tx, session, user, label, expires_at).await?;
    let answer = render(link).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, answer).await
}

/// The session's links, newest first.
///
/// # Errors
/// As [`create`].
pub async fn list(
    pool: &PgPool,
    account: Account,
    session: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ShareLink>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::sessions::fetch(&mut conn, session).await?;
    access::require(&mut conn, account, row.club_id, Capability::Organise, "session").await?;
    Ok(store::share_links::list(&mut conn, session, limit, offset).await?)
}

/// Revokes one of the session's links: its token is refused from now on.
///
/// # Errors
/// As [`create`]; `NotFound("share link")` when the session has no such link.
pub async fn revoke(pool: &PgPool, account: Account, session: Uuid, link: Uuid) -> Result<(), ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::sessions::fetch(&mut conn, session).await?;
    access::require(&mut conn, account, row.club_id, Capability::Organise, "session").await?;
    store::share_links::revoke(&mut conn, session, link).await?;
    Ok(())
}

/// Whether the link still lets its holder read: `Ok(link)` while it stands.
///
/// # Errors
/// `ShareLinkRevoked`, `ShareLinkExpired`; `NotFound("share link")` for an unknown one.
pub async fn standing(pool: &PgPool, link: Uuid) -> Result<ShareLink, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::share_links::fetch(&mut conn, link).await?;
    if row.revoked_at.is_some() {
        return Err(ServiceError::ShareLinkRevoked);
    }
    if row.expires_at <= Utc::now() {
        return Err(ServiceError::ShareLinkExpired);
    }
    Ok(row)
}
