//! Organiser accounts.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::{constraint, StoreError};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub password_hash: String,
    pub created_at: DateTime<Utc>,
    /// Bumped by signing out everywhere and by a new password: tokens of an earlier generation
    /// are refused.
    pub token_generation: i32,
}

/// # Errors
/// `EmailTaken` when the (lower-cased) email is registered already.
pub async fn insert(conn: &mut PgConnection, email: &str, name: &str, password_hash: &str) -> Result<User, StoreError> {
    sqlx::query_as!(
        User,
        "insert into users (id, email, name, password_hash) values ($1, $2, $3, $4) returning *",
        Uuid::new_v4(),
        email.to_lowercase(),
        name,
        password_hash,
    )
    .fetch_one(conn)
    .await
    .map_err(|e| match constraint(&e) {
        Some("users_email_key") => StoreError::EmailTaken,
        _ => e.into(),
    })
}

/// # Errors
/// On database failure.
pub async fn by_email(conn: &mut PgConnection, email: &str) -> Result<Option<User>, StoreError> {
    Ok(
        sqlx::query_as!(User, "select * from users where email = $1", email.to_lowercase())
            .fetch_optional(conn)
            .await?,
    )
}

/// # Errors
/// On database failure.
pub async fn exists(conn: &mut PgConnection, id: Uuid) -> Result<bool, StoreError> {
    Ok(
        sqlx::query_scalar!(r#"select exists (select 1 from users where id = $1) as "exists!""#, id)
            .fetch_one(conn)
            .await?,
    )
}

/// # Errors
/// On database failure.
pub async fn by_id(conn: &mut PgConnection, id: Uuid) -> Result<Option<User>, StoreError> {
    Ok(sqlx::query_as!(User, "select * from users where id = $1", id)
        .fetch_optional(conn)
        .await?)
}

/// The users an operator means by `who`: the one with that email, else those of that name
/// (case aside), so that a caller can refuse an ambiguous name.
///
/// # Errors
/// On database failure.
pub async fn by_email_or_name(conn: &mut PgConnection, who: &str) -> Result<Vec<User>, StoreError> {
    if let Some(user) = by_email(conn, who).await? {
        return Ok(vec![user]);
    }
    Ok(sqlx::query_as!(
        User,
        "select * from users where lower(name) = lower($1) order by created_at, id",
        who,
    )
    .fetch_all(conn)
    .await?)
}

/// What tells whether an account's token still stands: the user's token generation it was
/// minted under (everywhere-sign-outs bump it) and its own id (`jti`, by which it is signed out
/// alone; absent from tokens minted before tokens had ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenStamp {
    pub generation: i32,
    pub jti: Option<Uuid>,
}

/// Whether a token of this user still stands: it has not been signed out, one by one or
/// everywhere since. None when there is no such user.
///
/// # Errors
/// On database failure.
pub async fn token_stands(conn: &mut PgConnection, user: Uuid, token: TokenStamp) -> Result<Option<bool>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"select u.token_generation = $2
                and not exists (select 1 from revoked_tokens r where r.jti = $3) as "stands!"
         from users u where u.id = $1"#,
        user,
        token.generation,
        token.jti,
    )
    .fetch_optional(conn)
    .await?)
}

/// Signs one token out until it would have expired; forgets tokens that have expired anyway.
///
/// # Errors
/// On database failure.
pub async fn revoke_token(
    conn: &mut PgConnection,
    user: Uuid,
    jti: Uuid,
    expires_at: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!("delete from revoked_tokens where expires_at < now()")
        .execute(&mut *conn)
        .await?;
    sqlx::query!(
        "insert into revoked_tokens (jti, user_id, expires_at) values ($1, $2, $3) on conflict (jti) do nothing",
        jti,
        user,
        expires_at,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Signs out every token of the user, and sets a new password hash when given one, in one
/// statement; the user's new generation.
///
/// # Errors
/// `NotFound("user")` when there is no such user.
pub async fn new_generation(
    conn: &mut PgConnection,
    user: Uuid,
    password_hash: Option<&str>,
) -> Result<i32, StoreError> {
    sqlx::query_scalar!(
        "update users set token_generation = token_generation + 1,
                          password_hash = coalesce($2, password_hash)
         where id = $1 returning token_generation",
        user,
        password_hash,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound("user"))
}
