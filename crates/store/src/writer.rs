//! The one writer of a move.
//!
//! A use case makes a move's plan ([`MoveWrite`]: the entry, its bookings and their postings,
//! its chain links, the score-sheet lines it finished, the snapshot when one is due, the
//! announcement, the answer kept under its key, the webhook rows) and hands it here; [`write`]
//! writes it whichever way the moment allows, with the same effect:
//! - gathered with other tables' plain moves into one statement ([`MoveBatcher`]) when the plan
//!   is plain (it books nothing, finishes no deal, tells no webhook, makes only its own link, is
//!   not `apart`) and this replica gathers;
//! - else alone, in one statement ([`write_move`]);
//! - `apart` (Citus): that statement without its announcement and outbox rows, which follow in
//!   statements of their own on the same connection, in the caller's transaction.
//!
//! Each way writes everything or nothing, and nothing unless the table's version is still the one
//! the plan follows: a plan that lost a race at its table is [`Written::Lost`].

use sqlx::PgPool;

use super::move_batch::{Batched, MoveBatcher, PlainLink, PlainMove};
use super::move_path::{write_move, MoveWrite};
use super::{PgConnection, PooledConnection, StoreError, TableKey};

/// Where a move's statements go: a transaction the caller holds (the locked path), or, on the
/// optimistic path, a connection of the pool taken only when a statement needs one and given back
/// before the move waits for a gathered statement, which takes its own: a request never holds
/// two.
pub enum Db<'c> {
    Held(&'c mut PgConnection),
    Pooled(&'c PgPool, Option<PooledConnection>),
}

impl Db<'_> {
    /// The connection, taken from the pool when none is held yet.
    ///
    /// # Errors
    /// When the pool gives none.
    pub async fn get(&mut self) -> Result<&mut PgConnection, StoreError> {
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

    /// Gives a pooled connection back (a held one stays the caller's).
    pub fn release(&mut self) {
        if let Db::Pooled(_, slot) = self {
            *slot = None;
        }
    }
}

/// What became of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// All of it is written (committed already, unless the caller holds a transaction).
    Written,
    /// Nothing is written: the table's version moved on since the plan was made.
    Lost,
}

/// Writes the move's plan at `table` (see the module's documentation for the ways it may go).
///
/// # Errors
/// On database failure; nothing is written then.
pub async fn write<S: serde::Serialize + Sync>(
    db: &mut Db<'_>,
    batcher: Option<&MoveBatcher>,
    table: TableKey,
    plan: MoveWrite<'_, S>,
) -> Result<Written, StoreError> {
    // Held while this move writes alone, so that moves coming meanwhile are gathered.
    let alone = batcher.and_then(MoveBatcher::write_alone);
    let plain = batcher
        .filter(|_| alone.is_none())
        .and_then(|batcher| Some((batcher, plain_move(table, &plan)?)));
    let batched = match plain {
        Some((batcher, plain)) => {
            // The gathered statement takes a connection of its own.
            db.release();
            batcher.write(plain).await
        }
        None => Batched::Alone,
    };
    let written = match batched {
        Batched::Written => Written::Written,
        Batched::Lost => Written::Lost,
        Batched::Alone => {
            let (apart, club, now, events, announcement) =
                (plan.apart, plan.club, plan.now, plan.events, plan.announce.1);
            let conn = db.get().await?;
            match write_move(&mut *conn, table, plan).await? {
                None => Written::Lost,
                Some(followed) => {
                    if apart {
                        super::webhooks::enqueue(&mut *conn, club, events, now).await?;
                        if followed {
                            super::live::notify(conn, announcement).await?;
                        }
                    }
                    Written::Written
                }
            }
        }
    };
    drop(alone);
    Ok(written)
}

/// The plan as the gathered statement writes it, when it is one that statement can write: it
/// books nothing, finishes no deal, tells no webhook and makes only its own link; its
/// announcement is part of the write (not `apart`).
fn plain_move<S: serde::Serialize>(table: TableKey, plan: &MoveWrite<'_, S>) -> Option<PlainMove> {
    let [link] = plan.links else {
        return None;
    };
    let plain = plan.bookings.is_empty()
        && plan.lines.is_empty()
        && plan.events.is_empty()
        && !plan.apart
        && link.entry == "move"
        && link.reference == plan.new.seq
        && link.pos > 0;
    if !plain {
        return None;
    }
    Some(PlainMove {
        table,
        seq: plan.new.seq,
        kind: plan.new.kind.to_owned(),
        seat: plan.new.seat,
        body: plan.new.body.to_string(),
        events: plan.new.events.to_owned(),
        recorded_by: plan.new.recorded_by.to_owned(),
        finished: plan.finished,
        now: plan.now,
        link: PlainLink {
            pos: link.pos,
            version: link.version,
            content_hash: link.content_hash.clone(),
            prev_hash: link.prev_hash.clone(),
            hash: link.hash.clone(),
        },
        snapshot: match plan.snapshot {
            Some(state) => Some(serde_json::to_string(state).ok()?),
            None => None,
        },
        answer: plan.answer.map(|(key, answer)| (key.to_owned(), answer.clone())),
        announce: plan.announce.1.to_owned(),
    })
}
