//! Passwords: argon2id hashes, made and checked off the async workers (each takes tens of
//! milliseconds of CPU by design).

use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use super::ServiceError;

/// Hashes a password with argon2id.
///
/// # Errors
/// `Hashing` when the hasher fails or its thread is lost (a fault, never the caller's).
pub async fn hash(password: String) -> Result<String, ServiceError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
    })
    .await
    .map_err(|e| ServiceError::Hashing(e.to_string()))?
    .map_err(|e| ServiceError::Hashing(e.to_string()))
}

/// Whether `password` is the one `hash` was made of.
pub async fn verify(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash)
            .map(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
            .unwrap_or(false)
    })
    .await
    .unwrap_or(false)
}

/// A hash no one's password matches, checked against when an email is unknown, so that a login
/// takes as long whether or not the address has an account.
pub async fn dummy() -> String {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY
        .get_or_init(|| async { hash("not anyone's password".into()).await.unwrap_or_default() })
        .await
        .clone()
}

/// Whether a new password is acceptable: 8 to 256 characters.
///
/// # Errors
/// `WeakPassword` otherwise.
pub fn acceptable(password: &str) -> Result<(), ServiceError> {
    if (8..=256).contains(&password.chars().count()) {
        Ok(())
    } else {
        Err(ServiceError::WeakPassword)
    }
}
