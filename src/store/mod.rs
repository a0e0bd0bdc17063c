//! PostgreSQL persistence: all SQL lives here, one module per aggregate. Functions take a
//! connection or a transaction; the caller (the application layer) decides the transaction's
//! extent (one per move).
//!
//! Invariants: no game logic (nothing here applies a move or knows a game's types); a row that
//! no longer reads is `Corrupt`, never a panic; named constraints become typed errors.

pub mod join_codes;
pub mod ledger;
pub mod live;
pub mod sessions;
pub mod tables;
pub mod users;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::PgPool;

use crate::ledger::LedgerError;

pub type Tx<'a> = sqlx::Transaction<'a, sqlx::Postgres>;

/// Everything the store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("that email address is already registered")]
    EmailTaken,
    #[error("stored data could not be read back: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

impl StoreError {
    fn corrupt(e: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

/// A lazily connecting pool.
///
/// # Errors
/// When the URL cannot be parsed.
pub fn pool(database_url: &str, max_connections: u32) -> Result<PgPool, sqlx::Error> {
    let options: PgConnectOptions = database_url.parse()?;
    Ok(PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(std::time::Duration::from_secs(5))
        .connect_lazy_with(options))
}

/// Creates the database when it does not exist yet, then applies pending migrations.
///
/// # Errors
/// When the server cannot be reached or a migration fails.
pub async fn prepare(database_url: &str, pool: &PgPool) -> Result<(), sqlx::Error> {
    use sqlx::migrate::MigrateDatabase;
    if !sqlx::Postgres::database_exists(database_url).await? {
        sqlx::Postgres::create_database(database_url).await?;
    }
    migrate(pool).await
}

/// Applies pending migrations.
///
/// # Errors
/// When a migration fails.
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::Error> {
    sqlx::migrate!("./migrations").run(pool).await?;
    Ok(())
}

/// A read-only transaction that sees one consistent snapshot of the database (a table's row,
/// snapshots and moves read together agree on its version).
///
/// # Errors
/// When no connection can be had.
pub async fn begin_read_only(pool: &PgPool) -> Result<Tx<'static>, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("set transaction isolation level repeatable read, read only")
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// Whether the database answers.
///
/// # Errors
/// When it does not.
pub async fn ping(pool: &PgPool) -> Result<(), StoreError> {
    sqlx::query("select 1").execute(pool).await?;
    Ok(())
}

/// The name of the constraint a database error broke, if any.
fn constraint(e: &sqlx::Error) -> Option<&str> {
    match e {
        sqlx::Error::Database(db) => db.constraint(),
        _ => None,
    }
}
