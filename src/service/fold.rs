//! A table's state as the fold of its move log through the engine.
//!
//! Invariants: the state of a table is its set-up (from the row's players and options) with its
//! effective moves (those not voided) applied in order. Snapshots are a cache of that fold, kept
//! at deal boundaries and every [`SNAPSHOT_EVERY`] moves, so reading or extending a table replays
//! a bounded stretch of log however long its history; a snapshot that no longer reads (written
//! by a build whose state had another shape) is passed over and the fold starts from the set-up.

use sqlx::PgConnection;

use super::{to_json, ServiceError};
use crate::rules::{Game, RuleViolation};
use crate::store::tables::{MoveRow, TableRow};
use crate::store::{self, Tx};

/// A snapshot is also kept after this many moves replayed since the last one, so that a move
/// within a long deal does not replay the whole deal either.
pub const SNAPSHOT_EVERY: usize = 16;

/// The game a table was created as: from its row's players and options, not from any snapshot.
///
/// # Errors
/// `Corrupt` when the stored options no longer set up a game.
pub fn initial<G: Game>(table: &TableRow) -> Result<G, ServiceError> {
    let options: G::Options = serde_json::from_value(table.options.clone()).map_err(corrupt)?;
    G::new(table.players.len(), options).map_err(corrupt)
}

/// The table's current state: the latest usable snapshot and the effective moves after it.
///
/// # Errors
/// `Corrupt` when the stored log no longer replays.
pub async fn current<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<G, ServiceError> {
    Ok(current_and_replayed(conn, table).await?.0)
}

/// The current state and how many moves were replayed on top of the snapshot to reach it.
pub(super) async fn current_and_replayed<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
) -> Result<(G, usize), ServiceError> {
    let snapshot = store::tables::latest_snapshot(&mut *conn, table.id).await?;
    let (seq, mut game) = match snapshot.and_then(|(seq, state)| Some((seq, serde_json::from_value(state).ok()?))) {
        Some(found) => found,
        None => (0, initial(table)?),
    };
    let moves = store::tables::effective_moves(conn, table.id, seq).await?;
    apply_all(&mut game, &moves)?;
    Ok((game, moves.len()))
}

/// Replays the table's whole log from its set-up, ignoring snapshots.
///
/// # Errors
/// `Corrupt` when the log does not replay.
pub async fn replay<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<G, ServiceError> {
    let mut game: G = initial(table)?;
    apply_all(&mut game, &store::tables::effective_moves(conn, table.id, 0).await?)?;
    Ok(game)
}

/// Keeps a snapshot of `game` as left by entry `seq` when one is due: at a deal boundary, or
/// when `replayed` moves had to be folded onto the last one to reach the state before it.
pub(super) async fn snapshot_if_due<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    seq: i64,
    game: &G,
    replayed: usize,
) -> Result<(), ServiceError> {
    if game.at_deal_boundary() || replayed + 1 >= SNAPSHOT_EVERY {
        store::tables::save_snapshot(tx, table.id, seq, &to_json(game)?).await?;
    }
    Ok(())
}

fn apply_all<G: Game>(game: &mut G, moves: &[MoveRow]) -> Result<(), ServiceError> {
    for row in moves {
        game.apply(&stored_move::<G>(row)?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(row.seq, &v)))?;
        // Lines are history, stored as rows when their move was recorded: the fold holds none.
        game.take_deal_lines();
    }
    Ok(())
}

/// The move a log entry holds.
pub(super) fn stored_move<G: Game>(row: &MoveRow) -> Result<G::Move, ServiceError> {
    serde_json::from_value(row.body.clone()).map_err(corrupt)
}

/// What is wrong with a log entry the engine now refuses.
pub(super) fn no_longer_replays(seq: i64, violation: &RuleViolation) -> String {
    format!("move {seq} no longer replays: {violation}")
}

fn corrupt(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Corrupt(e.to_string())
}
