//! Personal API tokens: a signed-in account makes long-lived bearer tokens for its integrations,
//! each limited to one club and some scopes, lists them and revokes them; a request bearing one
//! is checked here and acts under its [`Grant`].
//!
//! Invariants:
//! - The secret is shown once, in the answer that made it; what is kept is its SHA-256 (32
//!   random bytes need no slow hash), found by the public prefix and compared in constant time.
//!   An answer replayed under an `Idempotency-Key` is kept without it, so it says no secret.
//! - A token is made only for a club its account is a member of, with scopes its role there
//!   allows; at use its role is checked again ([`access::require`]), so it shrinks with a demotion.
//! - Only a password's token makes, lists or revokes tokens.

use chrono::{DateTime, Utc};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::access::{self, Account, Capability, Grant, Scope, Scopes};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::{ensure_user, ServiceError};
use tablekeeper_store::api_tokens as rows;
pub use tablekeeper_store::api_tokens::ApiToken;
use tablekeeper_store::StoreError;

/// What every token starts with, so that it is told from a JWT (and found by secret scanners).
pub const TOKEN_PREFIX: &str = "tk_";
/// Hex characters after `tk_` that are the token's public id.
const PUBLIC_CHARS: usize = 12;
/// Random bytes in a token.
const SECRET_BYTES: usize = 32;

/// What a new token is to be.
pub struct NewToken<'a> {
    pub name: &'a str,
    pub club: Uuid,
    pub scopes: &'a [Scope],
    pub expires_at: Option<DateTime<Utc>>,
}

fn hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// The scopes a stored token names (unknown names, which the table's check keeps out, are dropped).
pub fn scopes_of(row: &ApiToken) -> Vec<Scope> {
    row.scopes.iter().filter_map(|s| Scope::parse(s)).collect()
}

/// Makes a token for `user` in `new.club`, once per `key`: `render` makes the answer of the token
/// and its secret, which is sent once and never kept (the answer kept under the key goes without
/// it; a replay has none).
///
/// # Errors
/// `TokenScope` when the caller is itself a token; `UnknownUser`; `Store(NotFound("club"))` for a
/// club the account is not a member of; `ScopeBeyondRole` for a scope its role there does not
/// allow; `IdempotencyKeyReused`; on database failure.
pub async fn create<K: Kept>(
    pool: &PgPool,
    account: Account,
    new: NewToken<'_>,
    key: Option<&CreationKey>,
    render: impl FnOnce(ApiToken, String) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    let user = account.user();
    account.password_only("make tokens")?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, user).await?;
    if let Some(first) = idempotency::first_answer(&mut tx, user, key).await? {
        return Ok(first);
    }
    let role = access::require(&mut tx, account, new.club, Capability::Read, "club").await?;
    for scope in new.scopes {
        if !scope.capabilities().iter().all(|c| access::allows(role, *c)) {
            return Err(ServiceError::ScopeBeyondRole(format!(
                "your role in this club ({}) does not allow the `{}` scope",
                format!("{role:?}").to_lowercase(),
                scope.name()
            )));
        }
    }
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let hex = ::hex::encode(bytes);
    let secret = format!("{TOKEN_PREFIX}{hex}");
    let names: Vec<String> = new.scopes.iter().map(|s| s.name().to_owned()).collect();
    let row = rows::insert(
        &mut tx,
        &rows::NewToken {
            user,
            club: new.club,
            name: new.name,
            prefix: &hex[..PUBLIC_CHARS],
            secret_hash: &hash(&secret),
            scopes: &names,
            expires_at: new.expires_at,
        },
    )
    .await?;
    let made = render(row, secret).map_err(ServiceError::Encode)?;
    idempotency::keep_and_commit(tx, user, key, made).await
}

/// The account's tokens, newest first, revoked and expired ones included.
///
/// # Errors
/// `TokenScope` when the caller is itself a token; on database failure.
pub async fn list(pool: &PgPool, account: Account, limit: i64, offset: i64) -> Result<Vec<ApiToken>, ServiceError> {
    let user = account.user();
    account.password_only("list tokens")?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(rows::list(&mut conn, user, limit, offset).await?)
}

/// Revokes one of the account's tokens: it is refused from now on.
///
/// # Errors
/// `TokenScope` when the caller is itself a token; `Store(NotFound("API token"))` for a token
/// that is not the account's; on database failure.
pub async fn revoke(pool: &PgPool, account: Account, id: Uuid) -> Result<(), ServiceError> {
    let user = account.user();
    account.password_only("revoke tokens")?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(rows::revoke(&mut conn, user, id).await?)
}

/// Whether a bearer token has a personal API token's shape (rather than a JWT's).
pub fn is_api_token(bearer: &str) -> bool {
    bearer.starts_with(TOKEN_PREFIX)
}

/// The account a personal API token acts for and what it may do, when the token stands; its
/// use is noted (at most once a minute).
///
/// # Errors
/// `ApiTokenUnknown` for a token this service did not make; `ApiTokenRevoked`; `ApiTokenExpired`;
/// on database failure.
pub async fn authenticate(pool: &PgPool, bearer: &str, now: DateTime<Utc>) -> Result<(Uuid, Grant), ServiceError> {
    let hex = bearer.strip_prefix(TOKEN_PREFIX).unwrap_or("");
    if hex.len() != SECRET_BYTES * 2 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ServiceError::ApiTokenUnknown);
    }
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = rows::by_prefix(&mut conn, &hex[..PUBLIC_CHARS])
        .await?
        .ok_or(ServiceError::ApiTokenUnknown)?;
    if !bool::from(hash(bearer).ct_eq(&row.secret_hash)) {
        return Err(ServiceError::ApiTokenUnknown);
    }
    if row.revoked_at.is_some() {
        return Err(ServiceError::ApiTokenRevoked);
    }
    if row.expires_at.is_some_and(|at| at <= now) {
        return Err(ServiceError::ApiTokenExpired);
    }
    rows::touch(&mut conn, row.id).await?;
    let grant = Grant {
        token: row.id,
        club: row.club_id,
        scopes: Scopes::of(scopes_of(&row)),
    };
    Ok((row.user_id, grant))
}
