//! The database as the floors above see it: whether it answers, and which host is followed.

use tablekeeper_store::PgPool;

use super::ServiceError;
pub use tablekeeper_store::failover::Failover;

/// Whether the database answers a trivial statement.
///
/// # Errors
/// When it does not.
pub async fn ping(pool: &PgPool) -> Result<(), ServiceError> {
    Ok(tablekeeper_store::ping(pool).await?)
}

/// Completes once the database answers anything, on a connection of its own (never one of the
/// pool's, which may all be busy): only a frozen server keeps this waiting, and the caller
/// bounds how long it waits.
pub async fn knock(pool: &PgPool) {
    tablekeeper_store::knock(pool).await;
}
