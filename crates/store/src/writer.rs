//! The one writer of a move.
//!
//! A use case makes a move's plan ([`MoveWrite`]: the entry, its bookings and their postings,
//! its chain links, the score-sheet lines it finished, the snapshot when one is due, the
//! announcement, the answer kept under its key, the webhook rows) and hands it here; [`write()`]
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
//!
//! An undo ([`UndoWrite`]: the void, the bookings that undo what the voided entry booked), a
//! correction ([`CorrectionWrite`]: its moves, its entry, its bookings, the score sheet and the
//! state as corrected, the webhook rows) and a director's ruling ([`RulingWrite`]: its entry, its
//! booking, the webhook rows) are plans too, written by [`write_held`] in the
//! transaction of the caller, which holds the table's lock. Their links cover the entries as the
//! database stores them (a corrected move's place in play order is computed there), and an
//! undo's state is the log folded once the void is in it: what only the use case makes (chain
//! hashes, the rules), it makes when the writer asks ([`Seal`]), between the entries and the
//! rest.

use std::future::Future;

use serde_json::Value;
use sqlx::PgPool;

use super::chain::LinkRow;
use super::deals::{CorrectedMove, NewCorrection, Placement};
use super::ledger::NewBooking;
use super::live::Announcement;
use super::move_batch::{Batched, MoveBatcher, PlainLink, PlainMove};
use super::move_path::{write_move, MoveWrite};
use super::rulings::NewRulingEntry;
use super::tables::MoveRow;
use super::webhooks::Event;
use super::{PgConnection, PooledConnection, StoreError, TableKey, Tx};

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
        tree: plan.tree.map(|(size, frontier)| (size, frontier.to_vec())),
    })
}

/// What an undo writes: the void of the latest effective entry, and the bookings that undo what
/// that entry booked, in order (a move's: each reversed; a correction's: what it booked
/// reversed, what it reversed booked again).
pub struct UndoWrite<'a> {
    /// The void's seq: the table's next version.
    pub seq: i64,
    /// The entry voided; the void repeats its kind, seat and body.
    pub voided: &'a MoveRow,
    pub recorded_by: &'a str,
    pub bookings: Vec<NewBooking>,
    pub announce: Announcement,
}

/// What a correction of a finished deal writes: its moves (part of it), its entry and the moves
/// it supersedes, the bookings that make the ledger in force what the corrected history books,
/// the events of later moves that changed, the score sheet and the state as corrected, and the
/// webhook rows.
pub struct CorrectionWrite<'a> {
    /// The seq of its first move; its entry follows its last.
    pub first: i64,
    /// Where its moves go among the effective moves.
    pub place: Placement,
    pub moves: Vec<CorrectedMove>,
    pub entry: NewCorrection<'a>,
    /// The bookings to write, in order (ids ascending): the correction keeps the range.
    pub bookings: Vec<NewBooking>,
    /// The events of later moves that the corrected history changed, by seq.
    pub changed: Value,
    /// The score-sheet lines as corrected, kept under the correction's seq.
    pub lines: Vec<Value>,
    /// The state after it (its snapshot); whether the game is over then, its [`Seal`] says.
    pub snapshot: Value,
    pub announce: Announcement,
    /// The webhook events it causes, for the table's club's endpoints, due at `now`.
    pub events: Vec<Event>,
    pub club: uuid::Uuid,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// What a director's ruling (or a phone's answer to one) writes: its entry, the booking that
/// brings the deal's chips to what the ruling says (none in a points game, or when nothing
/// moves), and the webhook rows. It replays nothing and changes no state: the table's
/// `finished` stays as its [`Seal`] says.
pub struct RulingWrite<'a> {
    pub entry: NewRulingEntry<'a>,
    pub bookings: Vec<NewBooking>,
    pub announce: Announcement,
    pub events: Vec<Event>,
    pub club: uuid::Uuid,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// A plan written in the caller's transaction, with the table's row locked.
pub enum Held<'a> {
    Undo(UndoWrite<'a>),
    Correction(CorrectionWrite<'a>),
    Ruling(RulingWrite<'a>),
}

/// What the use case makes of a plan once its entries are written: the links that chain them,
/// whether the game is over after them, and what else it keeps of that (`kept`, e.g. the state).
pub struct Sealed<T> {
    pub links: Vec<LinkRow>,
    pub finished: bool,
    pub kept: T,
}

/// The use case's part of a held plan, asked for by [`write_held`] once the entries are in the
/// log and before the links, the version and the announcement are written.
pub trait Seal {
    type Kept;
    type Error: From<StoreError>;

    /// Reads the entries as written and makes the links and the state after them.
    fn seal(self, conn: &mut PgConnection) -> impl Future<Output = Result<Sealed<Self::Kept>, Self::Error>> + Send;
}

/// Writes an undo's or a correction's plan at `table` in the caller's transaction (which holds
/// the table's lock): the entries, their bookings, the links `seal` makes, the version and the
/// announcement, and for a correction its score sheet, its state and its webhook rows. Gives
/// what `seal` kept.
///
/// # Errors
/// On database failure, or what `seal` fails with; the caller's transaction then writes nothing.
pub async fn write_held<S: Seal>(
    tx: &mut Tx<'_>,
    table: TableKey,
    plan: Held<'_>,
    seal: S,
) -> Result<S::Kept, S::Error> {
    match plan {
        Held::Undo(undo) => {
            super::tables::append_void(tx, table, undo.seq, undo.voided, undo.recorded_by).await?;
            for b in &undo.bookings {
                super::ledger::book(&mut *tx, table, b.move_seq, b.deal, &b.booking, b.reverses).await?;
            }
            let sealed = seal.seal(&mut *tx).await?;
            super::chain::append(&mut *tx, table, &sealed.links).await?;
            super::tables::bump_version(tx, table, sealed.finished).await?;
            super::live::announce(tx, table, undo.announce).await?;
            Ok(sealed.kept)
        }
        Held::Correction(c) => {
            let seq = c.entry.seq;
            super::deals::append_corrected_moves(tx, table, c.first, seq, &c.place, &c.moves, c.entry.recorded_by)
                .await?;
            super::deals::append_correction(tx, table, &c.entry).await?;
            let ids = super::ledger::book_many(&mut *tx, table, &c.bookings).await?;
            let booked = ids.first().copied().zip(ids.last().copied());
            super::deals::keep_correction(tx, table, seq, c.entry.deal, c.entry.reason, booked, &c.changed).await?;
            super::deal_lines::append(tx, table, seq, &c.lines).await?;
            super::tables::save_snapshot(tx, table, seq, &c.snapshot).await?;
            // The correction's entries and bookings join the table's hash chain like any move's.
            let sealed = seal.seal(&mut *tx).await?;
            super::chain::append(&mut *tx, table, &sealed.links).await?;
            super::deals::set_version(tx, table, seq, sealed.finished).await?;
            super::live::announce(tx, table, c.announce).await?;
            super::webhooks::enqueue(&mut *tx, c.club, &c.events, c.now).await?;
            Ok(sealed.kept)
        }
        Held::Ruling(r) => {
            let seq = r.entry.seq;
            super::rulings::append(tx, table, &r.entry).await?;
            super::ledger::book_many(&mut *tx, table, &r.bookings).await?;
            // The entry and its booking join the table's hash chain like any entry's.
            let sealed = seal.seal(&mut *tx).await?;
            super::chain::append(&mut *tx, table, &sealed.links).await?;
            super::deals::set_version(tx, table, seq, sealed.finished).await?;
            super::live::announce(tx, table, r.announce).await?;
            super::webhooks::enqueue(&mut *tx, r.club, &r.events, r.now).await?;
            Ok(sealed.kept)
        }
    }
}
