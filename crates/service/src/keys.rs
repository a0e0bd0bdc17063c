//! The audit key that signs bundles and receipts: the configured seed, or (for local use only)
//! one made once and kept in the database; and the hex both are written in.

use ed25519_dalek::SigningKey;
use tablekeeper_store::PgPool;

use super::ServiceError;
use tablekeeper_store::{self as store, StoreError};

/// The server's signing key: the configured seed, or one made once and kept in the database.
///
/// # Errors
/// On database failure.
pub async fn signing_key(pool: &PgPool, configured: Option<[u8; 32]>) -> Result<SigningKey, ServiceError> {
    if let Some(seed) = configured {
        return Ok(SigningKey::from_bytes(&seed));
    }
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let seed = store::sessions::local_signing_seed(&mut conn, {
        use rand::RngCore;
        let mut fresh = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut fresh);
        fresh
    })
    .await?;
    let seed: [u8; 32] = seed
        .try_into()
        .map_err(|_| ServiceError::Corrupt("the kept signing key is not 32 bytes".into()))?;
    Ok(SigningKey::from_bytes(&seed))
}

pub use tablekeeper_config::unhex;
