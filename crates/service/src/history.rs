//! A table's history: the score-sheet lines of its finished deals, kept as rows beside the log
//! rather than in the engine state (issue #10).
//!
//! Invariants:
//! - The lines a move finished are taken out of the state (`Game::take_deal_lines`) and stored
//!   in that move's transaction, so the state that is cloned, snapshotted and loaded per move is
//!   bounded by the current deal.
//! - The lines in force are those whose move is not voided: an undo takes a deal off the sheet
//!   through its void, as it passes over a snapshot; no row is deleted.
//! - A table stored before lines were rows (`deal_lines_kept` false) has its lines rebuilt by
//!   replaying its effective moves from the set-up: in memory for a read, and stored once, in the
//!   transaction of the next move or undo recorded there.

use tablekeeper_store::PgConnection;

use super::fold::{self, stored_move};
use super::{to_json, ServiceError};
use tablekeeper_rules::Game;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::{self as store, Tx};

/// The lines in force, oldest first: the deals of the score sheet.
///
/// # Errors
/// `Corrupt` when a stored line no longer reads or the log no longer replays.
pub async fn in_force<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<Vec<G::DealLine>, ServiceError> {
    if !table.deal_lines_kept {
        return Ok(replayed::<G>(conn, table)
            .await?
            .into_iter()
            .flat_map(|(_, lines)| lines)
            .collect());
    }
    store::deal_lines::in_force(conn, table.key())
        .await?
        .iter()
        .map(|line| read_line::<G>(line))
        .collect()
}

/// A stored line, from its JSON text: decoded straight into the line, and only when that fails
/// through a JSON value, whose error is the one a line has always been reported with.
fn read_line<G: Game>(text: &str) -> Result<G::DealLine, ServiceError> {
    let corrupt = |e: serde_json::Error| ServiceError::Corrupt(e.to_string());
    serde_json::from_str(text).or_else(|_| {
        let value: serde_json::Value = serde_json::from_str(text).map_err(corrupt)?;
        serde_json::from_value(value).map_err(corrupt)
    })
}

/// Rebuilds and stores the lines of a table stored before lines were rows; nothing to do for
/// any other table. Called before the move or undo that follows is written.
///
/// # Errors
/// `Corrupt` when the log no longer replays; on database failure.
pub(super) async fn back_fill<G: Game>(tx: &mut Tx<'_>, table: &TableRow) -> Result<(), ServiceError> {
    if table.deal_lines_kept {
        return Ok(());
    }
    let mut rows = Vec::new();
    for (seq, lines) in replayed::<G>(tx, table).await? {
        rows.push((seq, lines.iter().map(to_json).collect::<Result<Vec<_>, _>>()?));
    }
    store::deal_lines::append_all(tx, table.key(), &rows).await?;
    Ok(())
}

/// The lines each effective move finishes, replaying the log from the set-up: `(seq, lines)`
/// for the moves that finished a deal.
async fn replayed<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
) -> Result<Vec<(i64, Vec<G::DealLine>)>, ServiceError> {
    let mut game: G = fold::initial(table)?;
    let mut out = Vec::new();
    for row in store::tables::effective_moves(conn, table.key(), 0).await? {
        game.replay(&stored_move::<G>(&row)?)
            .map_err(|v| ServiceError::Corrupt(fold::no_longer_replays(row.seq, &v)))?;
        let lines = game.take_deal_lines();
        if !lines.is_empty() {
            out.push((row.seq, lines));
        }
    }
    Ok(out)
}
