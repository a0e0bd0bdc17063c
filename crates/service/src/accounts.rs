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

use chrono::{DateTime, Utc};
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::{passwords, ServiceError};
pub use tablekeeper_store::users::User;
use tablekeeper_store::{self as store, StoreError};

/// The answer kept under `key` for a registration of `email`, with the account it made (whose
/// password hash the retry's password must match), when a registration with the key made it.
///
/// # Errors
/// `IdempotencyKeyReused` when that registration sent another name; on database failure.
pub async fn registered<K>(
    pool: &PgPool,
    email: &str,
    key: &CreationKey,
) -> Result<Option<(Outcome<K>, User)>, ServiceError> {
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
pub async fn register<K: Kept>(
    pool: &PgPool,
    email: &str,
    name: &str,
    password_hash: &str,
    key: Option<&CreationKey>,
    render: impl FnOnce(&User) -> Result<K, serde_json::Error>,
) -> Result<(Outcome<K>, User), ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let user = store::users::insert(&mut tx, email, name, password_hash).await?;
    let answer = render(&user).map_err(ServiceError::Encode)?;
    let outcome = idempotency::keep_and_commit(tx, user.id, key, answer).await?;
    Ok((outcome, user))
}

/// The account whose email and password these are.
///
/// # Errors
/// `InvalidCredentials` when the email has no account or the password is not its own (the two
/// take as long, and are not told apart); on database failure.
pub async fn log_in(pool: &PgPool, email: &str, password: String) -> Result<User, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let user = store::users::by_email(&mut conn, email).await?;
    drop(conn);
    let hash = match &user {
        Some(u) => u.password_hash.clone(),
        None => passwords::dummy().await,
    };
    let valid = passwords::verify(password, hash).await;
    match user {
        Some(user) if valid => Ok(user),
        _ => Err(ServiceError::InvalidCredentials),
    }
}

/// Signs one token of `user` out (`jti`, until it would have expired anyway), or, for a token
/// issued before tokens had ids, every token of theirs.
///
/// # Errors
/// On database failure.
pub async fn sign_out(
    pool: &PgPool,
    user: Uuid,
    jti: Option<Uuid>,
    expires_at: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    match jti {
        Some(jti) => store::users::revoke_token(&mut conn, user, jti, expires_at).await?,
        None => {
            store::users::new_generation(&mut conn, user, None).await?;
        }
    }
    Ok(())
}

/// Signs out every token of `user`.
///
/// # Errors
/// On database failure.
pub async fn sign_out_everywhere(pool: &PgPool, user: Uuid) -> Result<(), ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    store::users::new_generation(&mut conn, user, None).await?;
    Ok(())
}

/// Changes `user`'s password, given the one in force, and signs out every token issued before;
/// the account as it now is (with its new token generation).
///
/// # Errors
/// `UnknownUser`; `WrongPassword` when `old` is not the password in force; `WeakPassword`; on
/// database failure. Nothing is changed on any of them.
pub async fn change_password(pool: &PgPool, user: Uuid, old: String, new: String) -> Result<User, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let user = store::users::by_id(&mut conn, user)
        .await?
        .ok_or(ServiceError::UnknownUser)?;
    drop(conn);
    if !passwords::verify(old, user.password_hash.clone()).await {
        return Err(ServiceError::WrongPassword);
    }
    passwords::acceptable(&new)?;
    let hash = passwords::hash(new).await?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let token_generation = store::users::new_generation(&mut conn, user.id, Some(&hash)).await?;
    Ok(User {
        token_generation,
        ..user
    })
}

/// The accounts an operator means by `who`: the one with that email, or else those of that name.
///
/// # Errors
/// On database failure.
pub async fn find(pool: &PgPool, who: &str) -> Result<Vec<User>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(store::users::by_email_or_name(&mut conn, who).await?)
}

/// Sets `user`'s password, as an operator on the server does, and signs out every token of
/// theirs.
///
/// # Errors
/// `WeakPassword`; on database failure.
pub async fn set_password(pool: &PgPool, user: Uuid, password: String) -> Result<(), ServiceError> {
    passwords::acceptable(&password)?;
    let hash = passwords::hash(password).await?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    store::users::new_generation(&mut conn, user, Some(&hash)).await?;
    Ok(())
}
