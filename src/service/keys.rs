//! The audit key that signs bundles and receipts: the configured seed, or (for local use only)
//! one made once and kept in the database; and the hex both are written in.

use ed25519_dalek::SigningKey;
use sqlx::PgPool;

use super::ServiceError;
use crate::store::{self, StoreError};

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

/// Bytes from lower-case hex of exactly `N` bytes.
pub fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}
