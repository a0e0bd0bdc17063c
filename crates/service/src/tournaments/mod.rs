//! Tournaments (events, issue #41): an evening of rounds seated by the movement engine
//! (`tablekeeper_movement`), each round's tables opened in the session as ordinary tables.
//!
//! Invariants:
//! - A tournament's set-up is a valid movement [`Setup`] for its game's seat range (narrowed when
//!   asked), checked before anything is written; its entrants are members of the session's club.
//! - At most one round is open; round `n` is seated from the entrants present in it and the
//!   closed rounds' results, its tables opened, seated and announced in one transaction.
//! - A round's results are each table's score per seat (the game's points, or its net chips),
//!   taken when the round closes; a table short of `deals_per_round` is scored as `unfinished`
//!   says and named as such. Standings are the engine's, over the closed rounds. A ruling or a
//!   correction after the close of a deal a round counted amends that table's result (`amend`).
//! - Every change links the session's record (tournaments included) into the session's chain in
//!   its own transaction (`chain::record::link_session`); writers lock the session's row, then
//!   the tournament's.
//! - A refusal writes nothing.

mod amend;
mod create;
mod entrants;
mod guide;
mod leftover;
mod loaded;
mod rounds;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tablekeeper_rules::GameId;
pub use tablekeeper_store::tournaments::LeftoverRow;
use tablekeeper_store::tournaments::{EntrantRow, TournamentRow};
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError};
use uuid::Uuid;

use tablekeeper_movement::Setup;
pub use tablekeeper_movement::{
    ByeScore, Entrant, Event, Format, MovementError, Moves, PlayedRound, Points, Round, ScoreRules, Scoring, SeatRange,
    Standing,
};

use super::access::{self, Account, Capability, Reader};
use super::{ensure_user, ServiceError};
pub(crate) use amend::counting;
pub use create::{create, leftover, set_leftover};
pub use entrants::{enter, withdraw};
pub use guide::{guide, planned_round, Guide, Place, PlannedRound, PlannedTable};
pub use leftover::{carried_pools, leftover_transfers, Leftover};
use loaded::{load, Loaded};
pub use rounds::{close_round, start_round, StartedRound};

/// How a table that has not finished its `deals_per_round` when its round closes is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    /// The deals it finished count, as played.
    AsPlayed,
    /// Every seat scores the table's average so far (the same for all: nobody wins there).
    Average,
    /// The table's deals are struck out: every seat scores 0.
    Void,
}

impl Unfinished {
    pub fn as_str(self) -> &'static str {
        match self {
            Unfinished::AsPlayed => "as_played",
            Unfinished::Average => "average",
            Unfinished::Void => "void",
        }
    }

    pub fn parse(s: &str) -> Option<Unfinished> {
        match s {
            "as_played" => Some(Unfinished::AsPlayed),
            "average" => Some(Unfinished::Average),
            "void" => Some(Unfinished::Void),
            _ => None,
        }
    }
}

/// A format as asked for: partnerships by club member id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatSpec {
    Progressive(Moves),
    Rotation,
    Swiss { partnerships: Option<Vec<[Uuid; 2]>> },
    Fixed,
}

/// A tournament to create (its name already checked).
#[derive(Debug, Clone)]
pub struct NewTournament {
    pub name: String,
    pub game: GameId,
    /// The game's options as sent; None takes every default.
    pub options: Option<Value>,
    pub format: FormatSpec,
    /// A narrower seat range than the game's, when asked for.
    pub seats: Option<(u8, u8)>,
    pub rounds: u32,
    pub deals_per_round: Option<u32>,
    pub minutes_per_round: Option<u32>,
    /// Club member ids, in seeding order.
    pub entrants: Vec<Uuid>,
    /// Pairs never at one table.
    pub apart: Vec<[Uuid; 2]>,
    /// Entrants who keep one table (numbered from 1) all night.
    pub stay: Vec<(Uuid, u32)>,
    pub scoring: ScoreRules,
    pub unfinished: Unfinished,
    /// None: the club's (`clubs::leftover`), as it is when the tournament is made.
    pub leftover: Option<Leftover>,
}

/// An entrant as shown: the club member, their number in the movement, and their rounds.
pub type EntrantLine = EntrantRow;

/// A seat of a round's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatLine {
    /// From 1; seat 1 deals first.
    pub seat: u32,
    pub member_id: Uuid,
    pub name: String,
}

/// A table's result once its round is closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOutcome {
    /// A score per seat, in seat order, as the standings count it.
    pub scores: Vec<i64>,
    pub deals_played: u32,
    /// The `unfinished` rule applied, when the table had not finished its deals.
    pub ruled: Option<Unfinished>,
    /// Rulings and corrections after the close that moved it, in order; `scores` is the last's.
    pub amendments: Vec<Amendment>,
}

/// A closed round's table result moved by a ruling or a correction made after the close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amendment {
    /// The scores per seat before and after.
    pub before: Vec<i64>,
    pub after: Vec<i64>,
    /// The entry of the table's log (the ruling or the correction) that moved it.
    pub table_seq: u64,
}

/// A round's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLine {
    pub number: u32,
    pub table_id: Uuid,
    pub seats: Vec<SeatLine>,
    pub outcome: Option<TableOutcome>,
    /// What the round's close moved out of the table's pools (its `leftover` rule): transfers
    /// in booking order.
    pub leftover: Vec<LeftoverRow>,
}

/// A round as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundLine {
    pub number: u32,
    pub started_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
    pub tables: Vec<TableLine>,
    /// Who sat this round out (club member ids and names).
    pub byes: Vec<(Uuid, String)>,
}

/// A line of the standings, with the club member it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingLine {
    pub standing: Standing,
    pub member_id: Uuid,
    pub name: String,
}

/// A tournament with its entrants, rounds and standings (over its closed rounds).
#[derive(Debug, Clone)]
pub struct Tournament {
    pub row: TournamentRow,
    pub setup: Setup,
    pub entrants: Vec<EntrantLine>,
    pub rounds: Vec<RoundLine>,
    pub standings: Vec<StandingLine>,
}

impl Tournament {
    /// The club member an entrant number is.
    pub fn member_of(&self, entrant: Entrant) -> Option<Uuid> {
        member_of(&self.entrants, entrant).map(|e| e.club_member_id)
    }

    /// Whether its last round is closed.
    pub fn finished(&self) -> bool {
        self.row.finished_at.is_some()
    }
}

fn member_of(entrants: &[EntrantRow], entrant: Entrant) -> Option<&EntrantRow> {
    entrants.iter().find(|e| i64::from(e.entrant) == i64::from(entrant.0))
}

fn number(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

fn stored(n: u32) -> Result<i32, ServiceError> {
    i32::try_from(n).map_err(|_| ServiceError::Corrupt(format!("{n} does not fit a stored number")))
}

fn entrant_of(n: i32) -> Entrant {
    Entrant(number(n))
}

/// Reads a tournament `who` may read (a member of its club, a share link of its session).
async fn readable(conn: &mut PgConnection, who: Reader, id: Uuid) -> Result<TournamentRow, ServiceError> {
    let row = store::tournaments::fetch(&mut *conn, id).await?;
    let session = store::sessions::fetch(&mut *conn, row.session_id).await?;
    match access::read_session(&mut *conn, who, &session).await {
        Err(ServiceError::Store(StoreError::NotFound(_))) => Err(StoreError::NotFound("tournament").into()),
        other => other.map(|()| row),
    }
}

/// The tournament with its rounds and standings.
///
/// # Errors
/// `Store(NotFound("tournament"))` when there is none or `who` may not read it.
pub async fn get(pool: &PgPool, who: Reader, id: Uuid) -> Result<Tournament, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = readable(&mut tx, who, id).await?;
    let loaded = load(&mut tx, row).await?;
    tx.commit().await.map_err(StoreError::from)?;
    loaded.view()
}

/// The session's tournaments, oldest first (the caller's right to read the session is checked
/// before).
///
/// # Errors
/// On database failure.
pub async fn of_session(pool: &PgPool, session: Uuid) -> Result<Vec<Tournament>, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let mut all = Vec::new();
    for row in store::tournaments::of_session(&mut tx, session).await? {
        all.push(load(&mut tx, row).await?);
    }
    tx.commit().await.map_err(StoreError::from)?;
    all.into_iter().map(Loaded::view).collect()
}

/// Opens a write on the tournament: the caller's right to organise checked, then the session's
/// row and the tournament's locked (refused when the session is final at `now`).
async fn write(tx: &mut PgConnection, account: Account, id: Uuid, now: DateTime<Utc>) -> Result<Loaded, ServiceError> {
    let row = organised(&mut *tx, account, id).await?;
    locked(tx, &row, now).await
}

/// The tournament, when `account` may organise it (nothing locked yet).
async fn organised(tx: &mut PgConnection, account: Account, id: Uuid) -> Result<TournamentRow, ServiceError> {
    ensure_user(&mut *tx, account.user()).await?;
    let row = store::tournaments::fetch(&mut *tx, id).await?;
    access::require(&mut *tx, account, row.club_id, Capability::Organise, "tournament").await?;
    Ok(row)
}

/// Locks the session's row, then the tournament's, and reads the tournament under them; refused
/// when the session is final at `now` (a close holds the session's row too, so none lands
/// between the check and the write).
async fn locked(tx: &mut PgConnection, row: &TournamentRow, now: DateTime<Utc>) -> Result<Loaded, ServiceError> {
    crate::finality::lock_writable(&mut *tx, row.session_id, now).await?;
    let row = store::tournaments::lock(&mut *tx, row.id).await?;
    load(tx, row).await
}

/// The next round to be started (the last started + 1).
fn next_round(loaded: &Loaded) -> u32 {
    u32::try_from(loaded.rounds.len() + 1).unwrap_or(u32::MAX)
}

/// Tells whoever follows the session (a board) that the tournament changed, once the caller's
/// write commits.
async fn tell_boards(conn: &mut PgConnection, made: &Tournament) -> Result<(), ServiceError> {
    let last = made.rounds.last();
    let notice = store::live::TournamentNotice {
        session: made.row.session_id,
        tournament: made.row.id,
        round: last.map_or(0, |r| r.number),
        closed: last.is_some_and(|r| r.closed_at.is_some()),
    };
    Ok(store::live::notice(conn, notice).await?)
}
