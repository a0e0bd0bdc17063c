//! Followed tables' states, kept per replica and folded forward by each announced move, so that
//! a watched move costs every replica a fold of one move in memory rather than a read of the
//! table and a fold of its log from the latest snapshot (issue #46).
//!
//! Invariants:
//! - A kept state is the fold of its table's log at exactly the row's version: it is built by a
//!   read of one database snapshot, and moved forward only by the announced entry whose seq is
//!   the next, when that entry is a move (a void, a correction or a ruling changes what earlier
//!   entries count for: the state is dropped and read again).
//! - An announcement is fanned out in the order the listener hears it, and a table's entries are
//!   announced in seq order by the commits that wrote them; a state that is behind or ahead of an
//!   announced entry folds nothing, and a stream reads that entry as before.
//! - A table's row changes with no entry only when a member is anonymised, which renames a seat:
//!   that transaction tells every replica (`store::live::Renamed`), and each forgets the state.
//!   A replica whose listener reconnected (and so may have missed it) forgets every state.

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use tablekeeper_rules::{with_game, Game};
use tablekeeper_store::live::{ChainNews, Heard};
use tablekeeper_store::tables::{MoveRow, TableRow};
use tablekeeper_store::PgPool;
use uuid::Uuid;

use super::TableChange;
use crate::receipts::AuditKeys;
use crate::tables::TableState;
use crate::{fold, game_of, ServiceError};

/// A followed table's engine state as its last entry heard here left it.
pub(super) struct Folded {
    /// The table as that entry left it.
    row: TableRow,
    game: Box<dyn Any + Send + Sync>,
}

impl Folded {
    pub(super) fn new(row: TableRow, game: Box<dyn Any + Send + Sync>) -> Folded {
        Folded { row, game }
    }
}

/// What an announced move leaves, folded here: what a table's streams and a session's boards
/// send for it.
pub(super) struct Moved {
    pub(super) table: Arc<TableState>,
    pub(super) totals: Vec<i64>,
    pub(super) chain: ChainNews,
}

impl Moved {
    /// The session line for the table as this move left it, its receipt for the chain's end
    /// signed now (as a line read from the database is).
    ///
    /// # Errors
    /// When the audit key cannot be had.
    pub(super) async fn change(&self, pool: &PgPool, keys: &AuditKeys) -> Result<TableChange, ServiceError> {
        let row = &self.table.row;
        let signer = keys.signer(pool).await?;
        let receipt = signer.sign(
            row.id,
            row.session_id,
            self.chain.end.pos,
            &self.chain.end.hash,
            chrono::Utc::now(),
            self.chain.root.as_ref().map(|root| &root.0),
        )?;
        Ok(TableChange {
            table_id: row.id,
            game: self.table.game,
            version: row.version,
            finished: row.finished,
            totals: self.totals.clone(),
            receipt: Some(receipt),
            table: Some(Arc::clone(&self.table)),
        })
    }
}

pub(super) type States = Mutex<HashMap<Uuid, Folded>>;

fn states(states: &States) -> std::sync::MutexGuard<'_, HashMap<Uuid, Folded>> {
    // Each operation leaves the map consistent before it can panic: still usable.
    states.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Keeps a state read from the database, unless one of the same or a later version is kept.
pub(super) fn keep(kept: &States, state: Folded) {
    let mut kept = states(kept);
    match kept.get(&state.row.id) {
        Some(old) if old.row.version >= state.row.version => {}
        _ => {
            kept.insert(state.row.id, state);
        }
    }
}

/// The version of the state kept for `table`, if any.
pub(super) fn kept_version(kept: &States, table: Uuid) -> Option<i64> {
    states(kept).get(&table).map(|state| state.row.version)
}

/// Forgets a table's state: its row changed with no entry.
pub(super) fn forget(kept: &States, table: Uuid) {
    states(kept).remove(&table);
}

/// Forgets every state: what changed them may have been missed.
pub(super) fn forget_all(kept: &States) {
    states(kept).clear();
}

/// Forgets the states of tables no longer followed here.
pub(super) fn forget_all_but(kept: &States, followed: &HashSet<Uuid>) {
    states(kept).retain(|table, _| followed.contains(table));
}

/// The table as the announced entry leaves it, folded onto the state kept at the version before
/// it; None (and the stream reads it) when no such state is kept, the entry is not a move
/// announced with its chain, or the fold fails.
pub(super) fn fold_heard(kept: &States, table: Uuid, heard: &Heard) -> Option<Arc<Moved>> {
    let mut kept = states(kept);
    let state = kept.get_mut(&table)?;
    if state.row.version >= heard.entry.seq {
        // Kept from a read that saw this entry already: the next one folds onto it.
        return None;
    }
    let folds =
        state.row.version + 1 == heard.entry.seq && heard.entry.entry == "move" && heard.entry.part_of.is_none();
    let moved = match (&heard.chain, folds) {
        (Some(chain), true) => fold_next(state, &heard.entry, chain)
            .inspect_err(|e| tracing::warn!(error = %e, %table, "folding an announced move failed"))
            .ok(),
        _ => None,
    };
    if moved.is_none() {
        kept.remove(&table);
    }
    moved.map(Arc::new)
}

fn fold_next(state: &mut Folded, entry: &MoveRow, chain: &ChainNews) -> Result<Moved, ServiceError> {
    with_game!(game_of(&state.row)?, G => {
        let game = state
            .game
            .downcast_mut::<G>()
            .ok_or_else(|| ServiceError::Corrupt(format!("table {}: a kept state of another game", state.row.id)))?;
        game.replay(&fold::stored_move::<G>(entry)?)
            .map_err(|v| ServiceError::Corrupt(fold::no_longer_replays(entry.seq, &v)))?;
        // Lines are history, stored as rows by the move's write: the fold holds none.
        game.take_deal_lines();
        // The row as the move's write left it (`recording::write_move` builds the same).
        state.row = TableRow {
            version: entry.seq,
            finished: game.is_finished(),
            updated_at: entry.recorded_at,
            chain_head: Some(chain.end.hash.clone()),
            ..state.row.clone()
        };
        Ok(Moved {
            table: Arc::new(TableState::new(state.row.clone(), &*game)?),
            totals: game.running_totals(),
            chain: chain.clone(),
        })
    })
}
