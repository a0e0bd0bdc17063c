//! Reading the chip ledger of a table or of a session.
//!
//! Invariants: read-only, in one consistent snapshot of the database, so the bookings and the
//! balances a reader gets agree; balances are over every booking (reversals included), so over
//! all accounts they sum to zero. A session's players are its roster members, matched to seats
//! as the standings match them (`roster::Identity`), and their chips are given net of what
//! the bank issued to each seat (its buy-in, [`issued`]), as the standings give them: stakes a
//! seat put on the board or into a fund stay its own until someone wins them, so a table's nets
//! (seats and pools alike) sum to zero.

use tablekeeper_store::{PgConnection, PgPool};
use uuid::Uuid;

use super::roster::Identity;
use super::{read_table, ServiceError};
use tablekeeper_ledger::{Account, Balances, Booking, Chips};
use tablekeeper_store as store;
use tablekeeper_store::ledger::StoredBooking;
use tablekeeper_store::sessions::ClubSession;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::tournaments::LeftoverRow;

/// A table's bookings and balances.
#[derive(Debug, Clone)]
pub struct TableLedger {
    pub table: TableRow,
    /// In order; those of one deal when asked.
    pub bookings: Vec<StoredBooking>,
    /// Over all the table's bookings, whatever the deal asked for.
    pub balances: Balances,
}

/// One of a session's tables: each account's balance, and what the bank issued to it.
#[derive(Debug, Clone)]
pub struct SessionTable {
    pub table: TableRow,
    pub balances: Balances,
    /// What the bank issued when the table opened ([`issued`]): each seat's buy-in, and the
    /// bank's side of it.
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

/// One seat a player held: its balance and what the bank issued to it.
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

    /// What the bank issued to the seats.
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

/// The chips the bank issued to each account when the table opened: its buy-in to each seat
/// (and the bank's side, negative). A player's net is measured from this, not from what the seat
/// held once the opening had also staked the board or seeded a fund: those stakes are still the
/// players' chips, in the pools until won, and leaving them out would lose them from every net.
///
/// The opening's bookings that draw on the bank; in force ones only, should a correction ever
/// reverse one.
///
/// # Errors
/// `Ledger` when a stored booking does not balance.
pub fn issued(bookings: &[StoredBooking]) -> Result<Balances, ServiceError> {
    let reversed: std::collections::HashSet<i64> = bookings.iter().filter_map(|b| b.reverses).collect();
    let mut issued = Balances::default();
    for b in bookings {
        let opening = b.move_seq == 0 && b.reverses.is_none() && !reversed.contains(&b.id);
        if opening && b.postings.iter().any(|p| p.account == Account::Bank) {
            issued.apply(&Booking::new(b.memo.clone(), b.postings.clone())?);
        }
    }
    Ok(issued)
}

/// The table's ledger, its bookings optionally of one deal.
///
/// # Errors
/// `Store(NotFound)` when there is no such table.
pub async fn table_ledger(pool: &PgPool, id: Uuid, deal: Option<i32>) -> Result<TableLedger, ServiceError> {
    let (mut tx, table) = read_table(pool, id).await?;
    table_ledger_in(&mut tx, table, deal).await
}

/// The table's ledger as `conn` sees it (a caller's transaction).
///
/// # Errors
/// `Ledger` when a stored booking does not balance; on database failure.
pub async fn table_ledger_in(
    conn: &mut PgConnection,
    table: TableRow,
    deal: Option<i32>,
) -> Result<TableLedger, ServiceError> {
    let all = store::ledger::bookings(&mut *conn, table.key(), None).await?;
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
    let leftovers = store::tournaments::session_leftovers(&mut tx, session.id).await?;
    let mut tables = Vec::new();
    let mut players: Vec<PlayerLedger> = Vec::new();
    for table in store::tables::list(&mut tx, None, Some(session.id), 1000, 0).await? {
        let bookings = store::ledger::bookings(&mut tx, table.key(), None).await?;
        let mut balances = Balances::default();
        for b in &bookings {
            balances.apply(&Booking::new(b.memo.clone(), b.postings.clone())?);
        }
        // What a tournament's round, closing, moved out of the table's pools (its `leftover`
        // rule) is kept beside the table's ledger, not in it (no move booked it), and counts
        // here as the settle-up counts it.
        for (_, moved) in leftovers.iter().filter(|(_, l)| l.table_id == table.id) {
            balances.apply(&leftover_booking(moved)?);
        }
        // As the standings count it.
        let opening = issued(&bookings)?;
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

/// What the table's options put on its pools when it opened (`opening_pools`: a tournament's
/// `leftover: carry`), issued by the bank.
pub fn carried_in(table: &TableRow) -> i64 {
    carried_in_options(&table.options)
}

/// What a table's options carried onto its pools (`opening_pools`), in chips.
pub fn carried_in_options(options: &serde_json::Value) -> i64 {
    options
        .get("opening_pools")
        .and_then(serde_json::Value::as_object)
        .map_or(0, |pools| pools.values().filter_map(serde_json::Value::as_i64).sum())
}

/// A leftover transfer as a booking: out of the pool, into the seat or the bank.
///
/// # Errors
/// `Corrupt` when a stored account does not read.
pub fn leftover_booking(moved: &LeftoverRow) -> Result<Booking, ServiceError> {
    let account = |text: &str| Account::parse(text).map_err(|e| ServiceError::Corrupt(e.to_string()));
    Ok(Booking::transfer(
        format!("leftover of round {}", moved.round),
        account(&moved.from_account)?,
        account(&moved.to_account)?,
        Chips::new(moved.amount),
    )?)
}
