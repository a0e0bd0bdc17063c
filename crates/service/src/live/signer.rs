//! A followed table's signer: signs its entries' receipts and sends them on, with what was
//! folded from their announcement or what it reads back.

use std::sync::Arc;

use tablekeeper_store::tables::{MoveRow, TableRow};
use tablekeeper_store::PgPool;
use tokio::sync::{broadcast, mpsc};

use super::folded::{self, Moved, States};
use super::{entry_receipts, LiveRow, Sent, TableSignal};
use crate::receipts::{self, AuditKeys};

/// An entry for the signer, with what its announcement left when it was folded here.
pub(super) struct Unsigned {
    pub(super) row: MoveRow,
    pub(super) moved: Option<Arc<Moved>>,
}

/// Signs one followed table's entries and sends them on to its followers, in the order they
/// were fanned out; one per followed table, so one table's signing waits on no other's, and the
/// listening task waits on none. It ends when its feed goes (nobody follows the table here).
pub(super) struct Signer {
    pub(super) pool: PgPool,
    pub(super) keys: Arc<AuditKeys>,
    pub(super) table: TableRow,
    pub(super) sender: broadcast::Sender<TableSignal>,
    /// The hub's bound on the fan-out's database reads (`Hub::live_reads`).
    pub(super) reads: Arc<tokio::sync::Semaphore>,
    /// The hub's followed tables' states: a read here keeps the one it folded.
    pub(super) folded: Arc<States>,
    pub(super) sent: Arc<Sent>,
}

impl Signer {
    pub(super) async fn run(self, mut unsigned: mpsc::UnboundedReceiver<Unsigned>) {
        while let Some(first) = unsigned.recv().await {
            let mut rows = vec![first];
            while let Ok(row) = unsigned.try_recv() {
                rows.push(row);
            }
            if let Some(rows) = self.sign_folded(rows).await {
                self.sign_and_send(rows, &mut unsigned).await;
            }
        }
    }

    /// Sends on `rows` with what their announcements left, when every one was folded here;
    /// else gives them back to be read.
    async fn sign_folded(&self, rows: Vec<Unsigned>) -> Option<Vec<MoveRow>> {
        let to_read = |rows: Vec<Unsigned>| Some(rows.into_iter().map(|u| u.row).collect());
        if rows.iter().any(|u| u.moved.is_none()) {
            return to_read(rows);
        }
        let key = match self.keys.signing(&self.pool).await {
            Ok(key) => key,
            Err(e) => {
                tracing::warn!(error = %e, table = %self.table.id, "signing streamed entries' receipts failed");
                return to_read(rows);
            }
        };
        self.sent
            .from_announcement
            .fetch_add(rows.len() as u64, std::sync::atomic::Ordering::Relaxed);
        for (row, moved) in rows.into_iter().filter_map(|u| Some((u.row, u.moved?))) {
            let receipt = receipts::sign(
                key,
                self.table.id,
                self.table.session_id,
                moved.chain.link.pos,
                &moved.chain.link.hash,
                row.recorded_at,
                None,
            )
            .inspect_err(
                |e| tracing::warn!(error = %e, table = %self.table.id, "signing a streamed entry's receipt failed"),
            )
            .ok();
            // No receiver left is not an error: the feed goes at the next tidy-up.
            let _ = self.sender.send(TableSignal::Entry(Arc::new(LiveRow {
                row,
                receipt,
                table: Some(Arc::clone(&moved.table)),
                rendered: std::sync::OnceLock::new(),
            })));
        }
        None
    }

    /// Signs `rows` (and whatever comes meanwhile) from the database, and sends them on.
    async fn sign_and_send(&self, mut rows: Vec<MoveRow>, unsigned: &mut mpsc::UnboundedReceiver<Unsigned>) {
        // Waiting its turn to read, while the writers have the connections: the entries that
        // come meanwhile are signed with these.
        let Ok(_permit) = self.reads.acquire().await else {
            return;
        };
        while let Ok(u) = unsigned.try_recv() {
            rows.push(u.row);
        }
        self.sent
            .read_back
            .fetch_add(rows.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let page: Vec<&MoveRow> = rows.iter().collect();
        let receipts = match entry_receipts(&self.pool, &self.keys, &self.table, &page).await {
            Ok(receipts) => receipts,
            Err(e) => {
                // The entries still go out: a receipt is evidence kept by the client, and
                // the next one covers these entries too.
                tracing::warn!(error = %e, table = %self.table.id, "signing streamed entries' receipts failed");
                vec![None; rows.len()]
            }
        };
        // The table as the last of them left it, read once here for every follower: a phone
        // or board redraws from the stream instead of each reading the table. The fold is kept,
        // so that the next move announced is folded onto it rather than read.
        let mut latest = match super::state_folded(&self.pool, self.table.id).await {
            Ok((state, kept)) => {
                folded::keep(&self.folded, kept);
                Some(state)
            }
            Err(e) => {
                tracing::warn!(error = %e, table = %self.table.id, "reading a streamed table failed");
                None
            }
        };
        for (row, receipt) in rows.into_iter().zip(receipts) {
            let table = latest.take_if(|t| t.row.version == row.seq).map(Arc::new);
            // No receiver left is not an error: the feed goes at the next tidy-up.
            let _ = self.sender.send(TableSignal::Entry(Arc::new(LiveRow {
                row,
                receipt,
                table,
                rendered: std::sync::OnceLock::new(),
            })));
        }
    }
}
