//! Starting a club session.
//!
//! Invariant: only an organiser who still exists owns a session.

use sqlx::PgPool;
use uuid::Uuid;

use super::{ensure_user, ServiceError};
use crate::store::sessions::ClubSession;
use crate::store::{self, StoreError};

/// Starts a session named `name` (already checked) for `owner`.
///
/// # Errors
/// `UnknownUser`; on database failure.
pub async fn create(pool: &PgPool, owner: Uuid, name: &str) -> Result<ClubSession, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    ensure_user(&mut conn, owner).await?;
    Ok(store::sessions::insert(&mut conn, owner, name).await?)
}
