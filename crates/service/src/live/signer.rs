//! A followed table's signer: signs its entries' receipts and sends them on, with what this
//! replica's writer left for them or what it reads back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tablekeeper_store::tables::{MoveRow, TableRow};
use tablekeeper_store::PgPool;
use tokio::sync::{broadcast, mpsc};

use super::{entry_receipts, LiveRow, Sent, TableSignal, Written};
use crate::receipts::{self, AuditKeys};

/// Whether an announced entry is the one a write of this replica made: the same move, recorded
/// by the same caller at the same microsecond (a write that lost its race to another, for the
/// same seq, made another entry).
fn same_entry(written: &MoveRow, announced: &MoveRow) -> bool {
    written.seq == announced.seq
        && written.recorded_at == announced.recorded_at
        && written.recorded_by == announced.recorded_by
        && written.entry == announced.entry
        && written.kind == announced.kind
        && written.seat == announced.seat
        && written.body == announced.body
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
    /// The table's entries recorded on this replica, by sequence ([`Hub::written`]).
    pub(super) written: Arc<Mutex<HashMap<i64, Written>>>,
    pub(super) sent: Arc<Sent>,
}

impl Signer {
    pub(super) async fn run(self, mut unsigned: mpsc::UnboundedReceiver<MoveRow>) {
        while let Some(first) = unsigned.recv().await {
            let mut rows = vec![first];
            while let Ok(row) = unsigned.try_recv() {
                rows.push(row);
            }
            // Recorded here: signed and sent with what the writer knew, no read.
            if let Some(rows) = self.sign_written(rows).await {
                self.sign_and_send(rows, &mut unsigned).await;
            }
        }
    }

    /// Sends on `rows` with what this replica's writes left for them, when every one has it;
    /// else gives them back to be read.
    async fn sign_written(&self, rows: Vec<MoveRow>) -> Option<Vec<MoveRow>> {
        let written: Vec<Written> = {
            let mut kept = self.written.lock().unwrap_or_else(PoisonError::into_inner);
            let last = rows.last().map_or(0, |r| r.seq);
            // The entry written here, not one another write put at its seq first.
            let found = rows
                .iter()
                .filter_map(|row| kept.remove(&row.seq).filter(|w| same_entry(&w.entry, row)))
                .collect::<Vec<_>>();
            kept.retain(|seq, _| *seq > last);
            found
        };
        if written.len() != rows.len() {
            return Some(rows);
        }
        let key = match self.keys.signing(&self.pool).await {
            Ok(key) => key,
            Err(e) => {
                tracing::warn!(error = %e, table = %self.table.id, "signing streamed entries' receipts failed");
                return Some(rows);
            }
        };
        self.sent
            .from_writer
            .fetch_add(rows.len() as u64, std::sync::atomic::Ordering::Relaxed);
        for (row, written) in rows.into_iter().zip(written) {
            let receipt = receipts::sign(
                key,
                self.table.id,
                self.table.session_id,
                written.position,
                &written.hash,
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
                table: Some(written.table),
                rendered: std::sync::OnceLock::new(),
            })));
        }
        None
    }

    /// Signs `rows` (and whatever comes meanwhile) from the database, and sends them on.
    async fn sign_and_send(&self, mut rows: Vec<MoveRow>, unsigned: &mut mpsc::UnboundedReceiver<MoveRow>) {
        // Waiting its turn to read, while the writers have the connections: the entries that
        // come meanwhile are signed with these.
        let Ok(_permit) = self.reads.acquire().await else {
            return;
        };
        while let Ok(row) = unsigned.try_recv() {
            rows.push(row);
        }
        if let Some(last) = rows.last() {
            // What the writer left for these is not needed now.
            self.written
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|seq, _| *seq > last.seq);
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
        // or board redraws from the stream instead of each reading the table.
        let mut latest = match crate::tables::state(&self.pool, self.table.id).await {
            Ok(state) => Some(state),
            Err(e) => {
                tracing::warn!(error = %e, table = %self.table.id, "reading a streamed table failed");
                None
            }
        };
        for (row, receipt) in rows.into_iter().zip(receipts) {
            let table = latest.take_if(|t| t.row.version == row.seq);
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
