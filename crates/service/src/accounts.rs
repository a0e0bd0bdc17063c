//! Registering an account, once per `Idempotency-Key`.
//!
//! Whoever registers has no account yet, so a registration's key cannot be its caller's as other
//! creations' keys are (`creation_keys` per account). It is kept under the account it made, and
//! a retry finds it through the email it sends: a key names one registration per email address,
//! and the same key sent with another address is another registration, so that two strangers'
//! keys never meet.
//!
//! Invariants:
//! - The answer is kept with the account, in the transaction that made it.
//! - The fingerprint a retry is held to leaves the password out: kept as a fast hash, it could
//!   be guessed from a copy of the database far faster than its argon2 hash. The caller checks
//!   a retry's password against the account's own hash instead, as a login does, before it
//!   answers anything but a refusal.
//! - Nothing kept is a credential: the caller keeps the answer without its bearer token, and
//!   issues a token for each answer, the first and every replay alike.

use sqlx::PgPool;

use super::idempotency::{self, Answer, CreationKey, Outcome};
use super::ServiceError;
use tablekeeper_store::users::User;
use tablekeeper_store::{self as store, StoreError};

/// The answer kept under `key` for a registration of `email`, with the account it made (whose
/// password hash the retry's password must match), when a registration with the key made it.
///
/// # Errors
/// `IdempotencyKeyReused` when that registration sent another name; on database failure.
pub async fn registered(
    pool: &PgPool,
    email: &str,
    key: &CreationKey,
) -> Result<Option<(Outcome, User)>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let Some(user) = store::users::by_email(&mut conn, email).await? else {
        return Ok(None);
    };
    let first = idempotency::first_answer(&mut conn, user.id, Some(key)).await?;
    Ok(first.map(|first| (first, user)))
}

/// Registers an account (its password already hashed) and keeps the answer `render` makes of
/// it under `key`, in one transaction.
///
/// # Errors
/// `Store(EmailTaken)` when the email is registered already (by a request racing with this one
/// under the same key, too: see [`registered`]); `Encode` when `render` fails; on database
/// failure.
pub async fn register(
    pool: &PgPool,
    email: &str,
    name: &str,
    password_hash: &str,
    key: Option<&CreationKey>,
    render: impl FnOnce(&User) -> Result<Answer, serde_json::Error>,
) -> Result<(Outcome, User), ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let user = store::users::insert(&mut tx, email, name, password_hash).await?;
    let answer = render(&user).map_err(ServiceError::Encode)?;
    let outcome = idempotency::keep_and_commit(tx, user.id, key, answer).await?;
    Ok((outcome, user))
}
