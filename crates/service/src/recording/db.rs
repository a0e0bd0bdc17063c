//! Where a move's statements go, and the moves the batcher can write.

use tablekeeper_store::{PgConnection, PgPool, PooledConnection};

use tablekeeper_store::move_batch::{PlainLink, PlainMove};
use tablekeeper_store::move_path::MoveWrite;
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::StoreError;

/// Where a move's statements go: the locked path's transaction, or, on the optimistic path, a
/// connection of the pool taken only when a statement needs one and given back before the move
/// waits for a batch, whose statement takes its own: a request never holds two.
pub(super) enum Db<'c> {
    Held(&'c mut PgConnection),
    Pooled(&'c PgPool, Option<PooledConnection>),
}

impl Db<'_> {
    pub(super) async fn get(&mut self) -> Result<&mut PgConnection, StoreError> {
        match self {
            Db::Held(conn) => Ok(&mut **conn),
            Db::Pooled(pool, slot) => {
                let conn = match slot.take() {
                    Some(conn) => conn,
                    None => pool.acquire().await?,
                };
                Ok(&mut **slot.insert(conn))
            }
        }
    }

    pub(super) fn release(&mut self) {
        if let Db::Pooled(_, slot) = self {
            *slot = None;
        }
    }
}

/// The move as the batcher writes it, when it is one the batcher can write: it books nothing,
/// finishes no deal, tells no webhook and makes only its own link; its announcement is part of
/// the write (not `apart`).
pub(super) fn plain_move<S: serde::Serialize>(row: &TableRow, write: &MoveWrite<'_, S>) -> Option<PlainMove> {
    let [link] = write.links else {
        return None;
    };
    let plain = write.bookings.is_empty()
        && write.lines.is_empty()
        && write.events.is_empty()
        && !write.apart
        && link.entry == "move"
        && link.reference == write.new.seq
        && link.pos > 0;
    if !plain {
        return None;
    }
    Some(PlainMove {
        table: row.key(),
        seq: write.new.seq,
        kind: write.new.kind.to_owned(),
        seat: write.new.seat,
        body: write.new.body.to_string(),
        events: write.new.events.to_owned(),
        recorded_by: write.new.recorded_by.to_owned(),
        finished: write.finished,
        now: write.now,
        link: PlainLink {
            pos: link.pos,
            version: link.version,
            content_hash: link.content_hash.clone(),
            prev_hash: link.prev_hash.clone(),
            hash: link.hash.clone(),
        },
        snapshot: match write.snapshot {
            Some(state) => Some(serde_json::to_string(state).ok()?),
            None => None,
        },
        answer: write.answer.map(|(key, answer)| (key.to_owned(), answer.clone())),
        announce: write.announce.1.to_owned(),
    })
}
