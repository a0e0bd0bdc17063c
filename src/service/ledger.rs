//! Reading the chip ledger of a table or of a session.
//!
//! Invariants: read-only, in one consistent snapshot of the database, so the bookings and the
//! balances a reader gets agree; balances are over every booking (reversals included), so over
//! all accounts they sum to zero.

use sqlx::PgPool;
use uuid::Uuid;

use super::{read_table, ServiceError};
use crate::ledger::{Balances, Booking};
use crate::store;
use crate::store::ledger::StoredBooking;
use crate::store::sessions::ClubSession;
use crate::store::tables::TableRow;

/// A table's bookings and balances.
#[derive(Debug, Clone)]
pub struct TableLedger {
    pub table: TableRow,
    /// In order; those of one deal when asked.
    pub bookings: Vec<StoredBooking>,
    /// Over all the table's bookings, whatever the deal asked for.
    pub balances: Balances,
}

/// The balances of each of a session's tables.
#[derive(Debug, Clone)]
pub struct SessionLedger {
    pub session: ClubSession,
    /// Oldest first.
    pub tables: Vec<(TableRow, Balances)>,
}

/// The table's ledger, its bookings optionally of one deal.
///
/// # Errors
/// `Store(NotFound)` when there is no such table.
pub async fn table_ledger(pool: &PgPool, id: Uuid, deal: Option<i32>) -> Result<TableLedger, ServiceError> {
    let (mut tx, table) = read_table(pool, id).await?;
    let all = store::ledger::bookings(&mut tx, table.id, None).await?;
    let mut balances = Balances::default();
    for b in &all {
        balances.apply(&Booking::new(b.memo.clone(), b.postings.clone())?);
    }
    let bookings = all.into_iter().filter(|b| deal.is_none() || b.deal == deal).collect();
    Ok(TableLedger {
        table,
        bookings,
        balances,
    })
}

/// The session's tables with their balances.
///
/// # Errors
/// `Store(NotFound)` when there is no such session.
pub async fn session_ledger(pool: &PgPool, id: Uuid) -> Result<SessionLedger, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let session = store::sessions::fetch(&mut tx, id).await?;
    let mut tables = Vec::new();
    for row in store::tables::list(&mut tx, None, Some(session.id), 1000, 0).await? {
        let balances = store::ledger::balances(&mut tx, row.id).await?;
        tables.push((row, balances));
    }
    Ok(SessionLedger { session, tables })
}
