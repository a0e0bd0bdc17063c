//! The application layer: one module per use case, between the HTTP API and the store.
//!
//! A use case opens its own transaction, asks the store for rows, runs the engine over them and
//! writes what the engine decided, then commits; its callers never hold a transaction.
//!
//! Invariants:
//! - Nothing here knows HTTP: no actix types, no status codes, no headers. Callers pass plain
//!   values in and render what comes back; every failure is a [`ServiceError`].
//! - The move log is the source of truth: a state is the fold of the log ([`fold`]), and
//!   everything a move causes (its log entry, bookings, snapshot, version bump, idempotent
//!   answer) commits in the move's one transaction ([`recording`]).
//! - A game id becomes an engine type only through `rules::games::with_game!`, so no use case
//!   lists games.

pub mod access;
pub mod accounts;
pub mod api_tokens;
pub mod audit;
mod booking_key;
pub mod bundle;
mod canonical;
pub mod chain;
pub mod changes;
pub mod clock;
pub mod closing;
pub mod clubs;
pub mod corrections;
pub mod cosigning;
pub mod database;
mod error;
pub mod finality;
pub mod flags;
pub mod fold;
pub mod history;
pub mod hot;
pub mod idempotency;
pub mod keys;
pub mod ledger;
pub mod live;
pub mod passwords;
pub mod reads;
pub mod receipts;
pub mod recording;
pub mod roster;
pub mod ruled;
pub mod rulings;
pub mod seasons;
pub mod sessions;
pub mod share_links;
pub mod tables;
pub mod tournaments;
pub mod verification;
pub mod webhooks;
pub mod witness;

pub use tablekeeper_store::{PgConnection, PgPool, StoreError};

pub use error::ServiceError;

use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use tablekeeper_ledger::Booking;
use tablekeeper_rules::{GameId, Settlement};
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::{self as store, Tx};

/// The authenticated caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal {
    /// An account, by password or through a personal API token (whose grant it carries).
    Account(access::Account),
    /// A phone that joined the table; `scorer` is None for a token minted before scorers had
    /// identities of their own.
    Scorer { table: Uuid, scorer: Option<Uuid> },
}

impl Principal {
    /// The account acting (with its token's grant, if any); a scorer's token is refused.
    ///
    /// # Errors
    /// `Forbidden` for scorers.
    pub fn organiser(self) -> Result<access::Account, ServiceError> {
        match self {
            Principal::Account(account) => Ok(account),
            Principal::Scorer { .. } => Err(ServiceError::Forbidden(
                "a scorer token can only record moves on its table",
            )),
        }
    }

    /// How the move log names who recorded an entry.
    pub fn recorded_by(self) -> String {
        match self {
            // "organiser" is what the log has always called an account: stored entries keep it.
            Principal::Account(account) => format!("organiser:{}", account.user()),
            Principal::Scorer { scorer: Some(id), .. } => format!("scorer:{id}"),
            Principal::Scorer { table, scorer: None } => format!("scorer:{table}"),
        }
    }
}

/// The game a stored table plays.
///
/// # Errors
/// `UnknownGame` when the row names a game this build does not have (a fault, not the client's).
pub fn game_of(row: &TableRow) -> Result<GameId, ServiceError> {
    GameId::parse(&row.game).ok_or_else(|| ServiceError::UnknownGame {
        table: row.id,
        game: row.game.clone(),
    })
}

/// Refuses a valid token whose user no longer exists (a token outlives a deleted account).
///
/// # Errors
/// `UnknownUser`.
pub async fn ensure_user(conn: &mut PgConnection, user: Uuid) -> Result<(), ServiceError> {
    if store::users::exists(conn, user).await? {
        Ok(())
    } else {
        Err(ServiceError::UnknownUser)
    }
}

/// Opens a read-only transaction that sees one consistent snapshot of the database, and reads
/// the table's row in it: whatever is read next agrees with the row's version.
async fn read_table(pool: &PgPool, id: Uuid) -> Result<(Tx<'static>, TableRow), ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = store::tables::fetch(&mut tx, id).await?;
    Ok((tx, row))
}

fn to_json<T: Serialize>(value: &T) -> Result<Value, ServiceError> {
    serde_json::to_value(value).map_err(ServiceError::Encode)
}

/// Books the chips a game's settlements move, as caused by log entry `seq` (0: the opening),
/// in the caller's transaction: chips move in the transaction of the move that moved them.
async fn book_settlements(
    tx: &mut Tx<'_>,
    table: store::tables::TableKey,
    seq: i64,
    settlements: &[Settlement],
) -> Result<(), ServiceError> {
    for settlement in settlements {
        let booking = Booking::from_settlement(settlement)?;
        store::ledger::book(tx, table, seq, settlement.deal.map(i32::from), &booking, None).await?;
    }
    Ok(())
}
