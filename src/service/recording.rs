//! Recording at a table: a move, or an undo of the latest move.
//!
//! Invariants:
//! - One transaction per request, in this order: lock the table's row (moves on one table are
//!   serial), check the caller may record there, answer a retried request with the answer it
//!   got first, check the version the client saw, fold the state, apply, append to the log,
//!   book the chips, keep a snapshot when one is due, bump the version, keep the answer under
//!   the idempotency key, commit. A refusal anywhere writes nothing.
//! - An undo appends a void and reverses the voided move's bookings; the log and the ledger
//!   keep both, nothing is deleted.
//! - An answer is kept exactly as the caller rendered it, so a retry gets it again to the byte
//!   whatever has happened at the table since.

use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use uuid::Uuid;

use super::fold::{self, current_and_replayed, snapshot_if_due};
use super::tables::TableState;
use super::{book_settlements, game_of, to_json, Principal, ServiceError};
use crate::rules::games::with_game;
use crate::rules::{Game, GameId, Seat};
use crate::store::tables::{MoveRow, NewMove, StoredResponse, TableRow};
use crate::store::{self, StoreError, Tx};

/// What is to be recorded.
#[derive(Debug, Clone)]
pub enum Recording {
    /// A move, in the shape of the table's game's moves (checked once the table is known), and
    /// the deal the client means it for, when it names one.
    Move(Value, Option<u16>),
    /// A void of the latest move that is not voided yet.
    Undo,
}

impl Recording {
    /// Part of a request's fingerprint, so that one key cannot serve a move and an undo. These
    /// names are in stored fingerprints: never change them.
    fn fingerprint_name(&self) -> &'static str {
        match self {
            Recording::Move(..) => "moves",
            Recording::Undo => "undo",
        }
    }
}

/// A request to record at a table.
#[derive(Debug, Clone)]
pub struct Request {
    pub table: Uuid,
    pub by: Principal,
    pub what: Recording,
    /// The table version the client saw; a stale one is refused.
    pub expected_version: Option<i64>,
    /// The versions the client's precondition accepts (`If-Match`); None when any will do.
    pub if_match: Option<Vec<i64>>,
    /// The client's key for retrying safely, checked already.
    pub idempotency_key: Option<String>,
    /// The request as sent, for the fingerprint kept with the key.
    pub sent: Value,
}

/// What was recorded, with the table as it is now.
#[derive(Debug, Clone)]
#[expect(clippy::large_enum_variant, reason = "one value per request, rendered at once")]
pub enum Recorded {
    Move {
        entry: MoveRow,
        table: TableState,
    },
    /// The void appended, and the move it voided (now `voided_by` the void).
    Undo {
        void: MoveRow,
        undone: MoveRow,
        table: TableState,
    },
}

/// An answer as the caller renders it; kept under the idempotency key, opaque here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// The answer to a recording request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Recorded now.
    Fresh(Answer),
    /// A retry: the answer the first request with this key got; nothing was recorded.
    Replayed(Answer),
}

/// Records a move or an undo; `render` turns what was recorded into the answer to keep, and
/// `noted` hears which game the table plays as soon as that is known.
///
/// # Errors
/// `Store(NotFound)`, `Forbidden`, `IdempotencyKeyReused`, `PreconditionFailed`, `VersionConflict`, `InvalidMove`,
/// `Rule` (the engine refused the move), `NothingToUndo`; in every case nothing is written.
pub async fn record(
    pool: &PgPool,
    request: Request,
    render: impl FnOnce(Recorded) -> Result<Answer, serde_json::Error>,
    noted: impl FnOnce(GameId),
) -> Result<Outcome, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::tables::lock(&mut tx, request.table).await?;
    // For the caller's metrics: the game is known only once the table is read.
    noted(game_of(&row)?);
    request.by.may_record(&row)?;
    let fingerprint = fingerprint(request.what.fingerprint_name(), &request.sent);
    if let Some(key) = &request.idempotency_key {
        if let Some(stored) = store::tables::idempotent_response(&mut tx, row.id, key).await? {
            if stored.request_hash != fingerprint {
                return Err(ServiceError::IdempotencyKeyReused);
            }
            return Ok(Outcome::Replayed(Answer {
                status: stored.status,
                body: stored.body,
            }));
        }
    }
    if let Some(accepted) = &request.if_match {
        if !accepted.contains(&row.version) {
            return Err(ServiceError::PreconditionFailed { actual: row.version });
        }
    }
    check_version(&row, request.expected_version)?;
    let by = request.by.recorded_by();
    let recorded = with_game!(game_of(&row)?, G => match request.what {
        Recording::Move(mv, deal) => record_move::<G>(&mut tx, &row, mv, deal, &by).await?,
        Recording::Undo => undo::<G>(&mut tx, &row, &by).await?,
    });
    let answer = render(recorded).map_err(ServiceError::Encode)?;
    if let Some(key) = &request.idempotency_key {
        let stored = StoredResponse {
            request_hash: fingerprint,
            status: answer.status,
            body: answer.body.clone(),
        };
        store::tables::save_idempotent_response(&mut tx, row.id, key, &stored).await?;
    }
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(answer))
}

/// A fingerprint of what was asked: what is recorded and the body's canonical JSON (key order
/// and white space do not matter).
fn fingerprint(name: &str, sent: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([0]);
    hasher.update(sent.to_string().as_bytes());
    format!("{:x}", hasher.finalize())
}

fn check_version(table: &TableRow, expected: Option<i64>) -> Result<(), ServiceError> {
    match expected {
        Some(expected) if expected != table.version => Err(ServiceError::VersionConflict {
            expected,
            actual: table.version,
        }),
        _ => Ok(()),
    }
}

async fn record_move<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    mv: Value,
    deal: Option<u16>,
    by: &str,
) -> Result<Recorded, ServiceError> {
    let mv: G::Move = serde_json::from_value(mv).map_err(ServiceError::InvalidMove)?;
    let (mut game, replayed): (G, usize) = current_and_replayed(tx, table).await?;
    // The deal guard: a second phone posting the same result again, or a result meant for a
    // deal already entered, is refused rather than booked as the next deal.
    if let Some(named) = deal {
        if game.deal_number() != Some(named) {
            return Err(ServiceError::DealMismatch {
                named,
                recording: game.deal_number(),
            });
        }
    }
    let events = game.apply(&mv)?;
    let lines = game.take_deal_lines();
    super::history::back_fill::<G>(tx, table).await?;
    let seq = table.version + 1;
    let new = NewMove {
        seq,
        kind: G::move_kind(&mv),
        seat: G::move_seat(&mv).map(|s: Seat| i16::from(s.number())),
        body: &to_json(&mv)?,
        events: &to_json(&events)?,
        recorded_by: by,
    };
    store::tables::append_move(tx, table.id, new).await?;
    super::history::keep::<G>(tx, table, seq, &lines).await?;
    book_settlements(tx, table.id, seq, &G::settlements(&events)).await?;
    snapshot_if_due(tx, table, seq, &game, replayed).await?;
    store::tables::bump_version(tx, table.id, game.is_finished()).await?;
    super::live::announce(tx, table, seq).await?;
    Ok(Recorded::Move {
        entry: store::tables::move_row(tx, table.id, seq).await?,
        table: TableState::new(store::tables::fetch(tx, table.id).await?, &game)?,
    })
}

async fn undo<G: Game>(tx: &mut Tx<'_>, table: &TableRow, by: &str) -> Result<Recorded, ServiceError> {
    let target = store::tables::latest_effective_seq(tx, table.id)
        .await?
        .ok_or(ServiceError::NothingToUndo)?;
    super::history::back_fill::<G>(tx, table).await?;
    let seq = table.version + 1;
    let voided = store::tables::move_row(tx, table.id, target).await?;
    store::tables::append_void(tx, table.id, seq, &voided, by).await?;
    super::corrections::reverse_entry(tx, table.id, &voided, seq).await?;
    // The snapshot the voided move left is passed over now, so this folds from an earlier one.
    let game: G = fold::current(tx, table).await?;
    store::tables::bump_version(tx, table.id, game.is_finished()).await?;
    super::live::announce(tx, table, seq).await?;
    Ok(Recorded::Undo {
        void: store::tables::move_row(tx, table.id, seq).await?,
        undone: store::tables::move_row(tx, table.id, target).await?,
        table: TableState::new(store::tables::fetch(tx, table.id).await?, &game)?,
    })
}
