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
}

/// # Errors
/// `EmailTaken` when the (lower-cased) email is registered already.
pub async fn insert(conn: &mut PgConnection, email: &str, name: &str, password_hash: &str) -> Result<User, StoreError> {
    sqlx::query_as::<_, User>("insert into users (id, email, name, password_hash) values ($1, $2, $3, $4) returning *")
        .bind(Uuid::new_v4())
        .bind(email.to_lowercase())
        .bind(name)
        .bind(password_hash)
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
    Ok(sqlx::query_as::<_, User>("select * from users where email = $1")
        .bind(email.to_lowercase())
        .fetch_optional(conn)
        .await?)
}

/// # Errors
/// On database failure.
pub async fn exists(conn: &mut PgConnection, id: Uuid) -> Result<bool, StoreError> {
    Ok(
        sqlx::query_scalar::<_, bool>("select exists (select 1 from users where id = $1)")
            .bind(id)
            .fetch_one(conn)
            .await?,
    )
}
