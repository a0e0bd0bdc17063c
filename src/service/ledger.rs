//! Reading the chip ledger of a table or of a session.
//!
//! Invariants: read-only, in one consistent snapshot of the database, so the bookings and the
//! balances a reader gets agree; balances are over every booking (reversals included), so over
//! all accounts they sum to zero. A session's players are its roster members, matched to seats
//! as the standings match them (`sessions::Identity`), and their chips are given net of what
//! each seat opened with, as the standings give them.

use sqlx::PgPool;
use uuid::Uuid;

use super::sessions::Identity;
use super::{read_table, ServiceError};
use crate::ledger::{Account, Balances, Booking, Chips};
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

/// One of a session's tables: each account's balance, and what the table's opening booked to it.
#[derive(Debug, Clone)]
pub struct SessionTable {
    pub table: TableRow,
    pub balances: Balances,
    /// The opening's bookings alone (the chips each seat sat down with, and their source).
    pub opening: Balances,
}

impl SessionTable {
    /// Who sits in the seat an account is, when it is a seat of the table.
    pub fn seat_of(&self, account: &Account) -> Option<(u8, &str)> {
        let Account::Seat(seat) = account else { return None };
        let name = self.table.players.get(seat.index())?;
        Some((seat.number(), name))
    }
}

/// One seat a player held: its balance and what it opened with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatLedger {
    pub table: Uuid,
    pub seat: u8,
    /// As typed at that table.
    pub name: String,
    pub balance: Chips,
    pub opening: Chips,
}

/// A player across the session's tables that book chips to seats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerLedger {
    pub identity: Identity,
    /// The roster's name (the name at the first seat for a player outside the roster).
    pub name: String,
    pub seats: Vec<SeatLedger>,
}

impl PlayerLedger {
    /// What the seats hold.
    pub fn balance(&self) -> Chips {
        self.seats.iter().map(|s| s.balance).sum()
    }

    /// What the seats opened with.
    pub fn opening(&self) -> Chips {
        self.seats.iter().map(|s| s.opening).sum()
    }
}

/// The accounts of each of a session's tables, and its players' chips.
#[derive(Debug, Clone)]
pub struct SessionLedger {
    pub session: ClubSession,
    /// Oldest first.
    pub tables: Vec<SessionTable>,
    /// In order of first seat.
    pub players: Vec<PlayerLedger>,
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

/// The session's tables with their balances, and its players.
///
/// # Errors
/// `Store(NotFound)` when there is no such session.
pub async fn session_ledger(pool: &PgPool, id: Uuid) -> Result<SessionLedger, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let session = store::sessions::fetch(&mut tx, id).await?;
    let roster = store::sessions::members(&mut tx, session.id).await?;
    let mut tables = Vec::new();
    let mut players: Vec<PlayerLedger> = Vec::new();
    for table in store::tables::list(&mut tx, None, Some(session.id), 1000, 0).await? {
        let mut balances = Balances::default();
        let mut opening = Balances::default();
        for b in store::ledger::bookings(&mut tx, table.id, None).await? {
            let booking = Booking::new(b.memo, b.postings)?;
            // As the standings count it: the bookings of entry 0, which nothing reverses.
            if b.move_seq == 0 && b.reverses.is_none() {
                opening.apply(&booking);
            }
            balances.apply(&booking);
        }
        let part = SessionTable {
            table,
            balances,
            opening,
        };
        for (account, balance) in part.balances.iter() {
            let Some((seat, name)) = part.seat_of(account) else {
                continue;
            };
            let identity = Identity::of_seat(&part.table, usize::from(seat), &roster);
            let at = match players.iter().position(|p| p.identity == identity) {
                Some(at) => at,
                None => {
                    let shown = identity.name(name, &roster).to_owned();
                    players.push(PlayerLedger {
                        identity,
                        name: shown,
                        seats: Vec::new(),
                    });
                    players.len() - 1
                }
            };
            players[at].seats.push(SeatLedger {
                table: part.table.id,
                seat,
                name: name.to_owned(),
                balance,
                opening: part.opening.of(account),
            });
        }
        tables.push(part);
    }
    Ok(SessionLedger {
        session,
        tables,
        players,
    })
}
