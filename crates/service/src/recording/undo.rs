//! An undo: a void of the latest effective entry and the reversal of what it booked, written as a
//! plan by the writer that writes moves, under the table's row lock.

use std::marker::PhantomData;

use tablekeeper_rules::Game;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::writer::{self, Held, Seal, Sealed, UndoWrite};
use tablekeeper_store::{self as store, PgConnection, Tx};

use super::Recorded;
use crate::fold;
use crate::receipts;
use crate::tables::TableState;
use crate::ServiceError;

/// Undoes the latest effective entry: works out the undo's plan (the void, the bookings that
/// undo what the entry booked) and has the writer write it, then reads the answer's rows.
pub(super) async fn undo<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    by: &str,
    signer: receipts::ReceiptSigner<'_>,
) -> Result<Recorded, ServiceError> {
    let target = store::tables::latest_effective_seq(tx, table.key())
        .await?
        .ok_or(ServiceError::NothingToUndo)?;
    crate::ruled::refuse_undo_into_ruled::<G>(tx, table, target).await?;
    crate::history::back_fill::<G>(tx, table).await?;
    let seq = table.version + 1;
    let voided = store::tables::move_row(tx, table.key(), target).await?;
    let plan = UndoWrite {
        seq,
        bookings: crate::corrections::undoing(tx, table.key(), &voided, seq).await?,
        voided: &voided,
        recorded_by: by,
        announce: store::live::Announcement {
            table: table.id,
            session: table.session_id,
            seq,
        },
    };
    let seal = Folded::<G> {
        table,
        game: PhantomData,
    };
    let game = writer::write_held(tx, table.key(), Held::Undo(plan), seal).await?;
    let void = store::tables::move_row(tx, table.key(), seq).await?;
    let end = store::chain::end(tx, table.key()).await?;
    let last = end
        .last
        .ok_or_else(|| ServiceError::Corrupt(format!("table {} has no chain after an undo", table.id)))?;
    let root = crate::witness::frontier_at(tx, table.key(), last.pos, true)
        .await?
        .map(|tree| tree.root());
    let receipt = signer.sign(
        table.id,
        table.session_id,
        last.pos,
        &last.hash,
        void.recorded_at,
        root.as_ref(),
    )?;
    Ok(Recorded::Undo {
        undone: store::tables::move_row(tx, table.key(), target).await?,
        table: TableState::new(store::tables::fetch_by_key(tx, table.key()).await?, &game)?,
        void,
        receipt,
    })
}

/// An undo's part of its plan once its void is written: the links that chain the void and its
/// bookings, and the state folded from the log with the void in it (the snapshot the voided
/// entry left is passed over now, so this folds from an earlier one).
struct Folded<'a, G> {
    table: &'a TableRow,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> Seal for Folded<'_, G> {
    type Kept = G;
    type Error = ServiceError;

    async fn seal(self, conn: &mut PgConnection) -> Result<Sealed<G>, ServiceError> {
        let links = crate::chain::unlinked(&mut *conn, self.table).await?;
        let game: G = fold::current(conn, self.table).await?;
        Ok(Sealed {
            links,
            finished: game.is_finished(),
            kept: game,
        })
    }
}
