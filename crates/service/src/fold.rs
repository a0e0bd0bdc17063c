//! A table's state as the fold of its move log through the engine.
//!
//! Invariants: the state of a table is its set-up (from the row's players and options) with its
//! effective moves (those not voided) applied in order. Snapshots are a cache of that fold, kept
//! every [`SNAPSHOT_EVERY`] moves, so reading or extending a table replays a bounded stretch of
//! log however long its history; a snapshot that no longer reads (written by a build whose state
//! had another shape) is passed over and the fold starts from the set-up.

use tablekeeper_store::PgConnection;

use super::chain::{AsJson, Json};
use super::ServiceError;
use tablekeeper_rules::{Game, RuleViolation};
use tablekeeper_store as store;
use tablekeeper_store::chain::LoggedEntry;
use tablekeeper_store::move_path::FoldRows;
use tablekeeper_store::tables::{MoveRow, TableRow};

/// A snapshot is kept after this many moves since the last one: a fold replays at most one fewer.
///
/// 64, not 16 (issue #27): a Nomination Whist state is about 1.6 KB of JSON, below PostgreSQL's
/// 2 KB compression threshold, so one every 16 moves cost 150 bytes a log entry; every 64 costs
/// a quarter of that. A move on a hot table folds nothing (`hot`), and a cold one replays at most
/// 63 small moves through the engine, read in the same statement as the table's row.
pub const SNAPSHOT_EVERY: usize = 64;

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
    let (seq, mut game) = latest_usable_snapshot(&mut *conn, table).await?;
    let moves = store::tables::effective_moves(conn, table.key(), seq).await?;
    apply_all(&mut game, &moves)?;
    Ok((game, moves.len()))
}

/// The table's current state as [`current`] reads it, the moves after the snapshot taken from
/// `in_play_order` (its effective moves, in play order, read in the same database snapshot)
/// instead of read again.
///
/// # Errors
/// `Corrupt` when the moves no longer replay.
pub(super) async fn current_over<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
    in_play_order: &[&LoggedEntry<impl AsJson>],
) -> Result<G, ServiceError> {
    let (seq, mut game) = latest_usable_snapshot::<G>(conn, table).await?;
    for m in in_play_order.iter().filter(|m| m.seq > seq) {
        game.replay(&move_of::<G>(m.body.as_json())?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(m.seq, &v)))?;
        game.take_deal_lines();
    }
    Ok(game)
}

/// The latest snapshot that reads, as `(seq, state)`; the set-up at 0 when there is none.
async fn latest_usable_snapshot<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<(i64, G), ServiceError> {
    let snapshot = store::tables::latest_snapshot(conn, table.key()).await?;
    match snapshot.and_then(|(seq, state)| Some((seq, serde_json::from_str(&state).ok()?))) {
        Some(found) => Ok(found),
        None => Ok((0, initial(table)?)),
    }
}

/// The state folded from rows read with the table's lock (`store::tables::lock_for_move`), and
/// how many moves were replayed onto the snapshot; None when the snapshot no longer reads, so
/// the caller folds with [`current_and_replayed`], which passes over it.
///
/// # Errors
/// `Corrupt` when the stored moves no longer replay.
pub(super) fn from_rows<G: Game>(table: &TableRow, rows: &FoldRows) -> Result<Option<(G, usize)>, ServiceError> {
    let mut game = match &rows.snapshot {
        Some((_, state)) => match serde_json::from_str::<G>(state) {
            Ok(game) => game,
            Err(_) => return Ok(None),
        },
        None => initial(table)?,
    };
    let moves: Vec<(i64, G::Move)> = serde_json::from_str(&rows.moves).map_err(corrupt)?;
    for (seq, mv) in &moves {
        game.replay(mv)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(*seq, &v)))?;
        game.take_deal_lines();
    }
    Ok(Some((game, moves.len())))
}

/// Replays the table's whole log from its set-up, ignoring snapshots.
///
/// # Errors
/// `Corrupt` when the log does not replay.
pub async fn replay<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<G, ServiceError> {
    let mut game: G = initial(table)?;
    apply_all(&mut game, &store::tables::effective_moves(conn, table.key(), 0).await?)?;
    Ok(game)
}

/// Whether a move made `replayed` moves after the latest snapshot keeps one.
///
/// By count alone, not at deal boundaries too: a table entered result by result ends a deal with
/// every move, and a snapshot per move made each move write its whole state, which grows with
/// what the rules keep (a Tridge table's Reserve Funds). Every move then cost more the longer the
/// table had run; one snapshot in `SNAPSHOT_EVERY` moves bounds both the fold and the writes.
pub(super) fn snapshot_due(replayed: usize) -> bool {
    replayed + 1 >= SNAPSHOT_EVERY
}

fn apply_all<G: Game>(game: &mut G, moves: &[MoveRow]) -> Result<(), ServiceError> {
    for row in moves {
        game.replay(&stored_move::<G>(row)?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(row.seq, &v)))?;
        // Lines are history, stored as rows when their move was recorded: the fold holds none.
        game.take_deal_lines();
    }
    Ok(())
}

/// The move a log entry holds.
pub(super) fn stored_move<G: Game>(row: &MoveRow) -> Result<G::Move, ServiceError> {
    move_of::<G>(row.body.as_json())
}

/// The move a log entry's body holds.
pub(super) fn move_of<G: Game>(body: Json<'_>) -> Result<G::Move, ServiceError> {
    body.decode().map_err(corrupt)
}

/// What is wrong with a log entry the engine now refuses.
pub(super) fn no_longer_replays(seq: i64, violation: &RuleViolation) -> String {
    format!("move {seq} no longer replays: {violation}")
}

fn corrupt(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Corrupt(e.to_string())
}
