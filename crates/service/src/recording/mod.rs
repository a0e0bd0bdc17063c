//! Recording at a table: a move, or an undo of the latest move.
//!
//! Invariants:
//! - A move is tried first without a transaction: one statement reads the table (with the answer
//!   kept under the idempotency key and, unless this replica keeps the table's state at the row's
//!   version, what the state folds from); the caller's right to record, a retry's first answer,
//!   `If-Match` and the version the client saw are checked against that row; the move is applied
//!   to the state of exactly that version; and one statement writes the move with everything it
//!   causes (bookings, chain links, score-sheet lines, snapshot, announcement, the answer) only if
//!   the table's version is still the one read, so a lost race writes nothing.
//! - When that cannot be done (another entry landed in between; the state of the version read is
//!   not at hand, because another request took the kept state; an older table still needs its
//!   chain or score-sheet lines written), it is done again in one transaction under the table's
//!   row lock, in the same order. An undo is always done that way.
//! - A stale version is always `version_conflict`, never a rule's refusal: the rules judge a move
//!   only against the state of the version that was checked, never a state read later (which may
//!   hold another request's move).
//! - Plain moves (no chips, no deal finished, no webhook) of many tables may share their read and
//!   their write with other tables' moves (`store::move_batch`), each checked as if alone.
//! - A refusal anywhere writes nothing.
//! - An undo appends a void and reverses the voided move's bookings; the log and the ledger
//!   keep both, nothing is deleted. It is a plan (`store::writer::UndoWrite`) written by the
//!   writer that writes moves, in the transaction that holds the table's lock.
//! - An answer is kept exactly as the caller rendered it, so a retry gets it again to the byte
//!   whatever has happened at the table since.

use serde::Deserialize;
use serde_json::Value;
use tablekeeper_store::PgPool;
use uuid::Uuid;

use tablekeeper_store::writer::{self, Db, Written};

use super::fold::{self, current_and_replayed, snapshot_due};
use super::hot::{Hot, HotStates};
use super::idempotency::fingerprint;
pub use super::idempotency::{Answer, Kept, Outcome};
use super::receipts::{self, AuditKeys, Receipt};
use super::tables::TableState;
use super::{game_of, to_json, Principal, ServiceError};
use tablekeeper_ledger::Booking;
use tablekeeper_rules::with_game;
use tablekeeper_rules::{Game, GameId, Seat};
pub use tablekeeper_store::move_batch::MoveBatcher;
use tablekeeper_store::move_path::{Locked, MoveWrite, NewMove};
use tablekeeper_store::tables::{MoveRow, StoredResponse, TableRow};
use tablekeeper_store::users::TokenStamp;
use tablekeeper_store::{self as store, StoreError, Tx};

mod undo;
mod webhooks;
use undo::undo;
use webhooks::webhook_events;

/// What is to be recorded.
#[derive(Debug, Clone)]
pub enum Recording {
    /// A move, in the shape of the table's game's moves (checked once the table is known), and
    /// the deal the client means it for, when it names one.
    Move(Value, Option<u16>),
    /// A void of the latest move that is not voided yet.
    Undo,
}

impl Recording {
    /// Part of a request's fingerprint, so that one key cannot serve a move and an undo. These
    /// names are in stored fingerprints: never change them.
    fn fingerprint_name(&self) -> &'static str {
        match self {
            Recording::Move(..) => "moves",
            Recording::Undo => "undo",
        }
    }
}

/// A request to record at a table.
#[derive(Debug, Clone)]
pub struct Request {
    pub table: Uuid,
    pub by: Principal,
    pub what: Recording,
    /// The table version the client saw; a stale one is refused.
    pub expected_version: Option<i64>,
    /// The versions the client's precondition accepts (`If-Match`); None when any will do.
    pub if_match: Option<Vec<i64>>,
    /// The client's key for retrying safely, checked already.
    pub idempotency_key: Option<String>,
    /// How long an answer kept under a key answers a retry (`IDEMPOTENCY_RETENTION_SECS`): a
    /// request under a key whose answer is older is a new request.
    pub answers_kept_for: std::time::Duration,
    /// The request as sent, for the fingerprint kept with the key.
    pub sent: Value,
    /// Announce a move and queue its webhooks in statements of their own, in its transaction
    /// (`ANNOUNCE_APART`, what Citus needs), rather than in its one write.
    pub announce_apart: bool,
    /// An account's token whose standing (signed out or not) is still to be read, as its
    /// generation and id: a move reads it with the table rather than in a statement of its own.
    pub token_unread: Option<TokenStamp>,
    /// The time now (the application's clock): a move to a table of a session final by then is
    /// refused.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// What was recorded, with the table as it is now.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per request, made once and moved into its answer"
)]
pub enum Recorded {
    Move {
        entry: MoveRow,
        table: TableState,
        /// The audit key's receipt for the chain as the move leaves it.
        receipt: Receipt,
    },
    /// The void appended, and the move it voided (now `voided_by` the void).
    Undo {
        void: MoveRow,
        undone: MoveRow,
        table: TableState,
        receipt: Receipt,
    },
}

/// Records a move or an undo; `render` turns what was recorded into the answer to keep, with
/// the receipt `keys` sign for the chain as it leaves it, and `noted` hears which game the
/// table plays as soon as that is known. A move's announcement carries the entry and what the
/// write knew of the chain (`store::live::Heard`), so that every replica's streams send it on
/// without reading it back.
///
/// A move is first tried optimistically, in two statements outside any transaction: read the
/// table (and the answer under the key, and what the state folds from when it is not kept in
/// memory), apply, then write everything in one statement that does nothing unless the table's
/// version is still the one read. Only when another entry landed in between, the state of the
/// version read is not at hand (another request on this replica took the kept state), or the
/// table needs more than one write (an older table whose chain or score-sheet lines are still to
/// be made), does it take the table's lock and do it all again in a transaction.
///
/// # Errors
/// `Store(NotFound)`, `Forbidden`, `ScorerRevoked`, `IdempotencyKeyReused`, `PreconditionFailed`,
/// `VersionConflict`, `InvalidMove`, `Rule` (the engine refused the move), `NothingToUndo`; in every
/// case nothing is written.
#[tracing::instrument(name = "recording::record", skip_all, fields(table = %request.table))]
pub async fn record<K: Kept>(
    pool: &PgPool,
    hot: Option<&HotStates>,
    batcher: Option<&MoveBatcher>,
    keys: &AuditKeys,
    request: Request,
    render: impl Fn(Recorded) -> Result<K, serde_json::Error>,
    noted: impl FnOnce(GameId),
) -> Result<Outcome<K>, ServiceError> {
    // Who records is checked in the read the move makes anyway: a scorer's revocation, or an
    // account's role in the club and its token's standing.
    let scorer = match request.by {
        Principal::Scorer { scorer, .. } => scorer,
        Principal::Account(_) => None,
    };
    let member = |token| match request.by {
        Principal::Account(account) => Some(store::move_path::Member {
            user: account.user(),
            token,
        }),
        Principal::Scorer { .. } => None,
    };
    let signer = keys.signer(pool).await?;
    let mut noted = Some(noted);
    let mut note = |game| {
        if let Some(noted) = noted.take() {
            noted(game);
        }
    };
    let key = request
        .idempotency_key
        .as_deref()
        .map(|k| (k, request.answers_kept_for));
    // The token is read once: by the first read of the request.
    let mut token = request.token_unread;
    if matches!(request.what, Recording::Move(..)) {
        let mut db = Db::Pooled(pool, None);
        let (kept, club) = hot.and_then(|h| h.kept(request.table)).unzip();
        let asked = store::move_path::MoveRead {
            table: (request.table, club),
            key,
            fold: true,
            kept,
            lock: false,
            scorer,
            member: member(token),
        };
        let read = read_for_move(&mut db, batcher, asked).await?;
        let game = game_of(&read.row)?;
        note(game);
        may_record(&mut db, request.by, &read).await?;
        if let Some(session) = read.row.session_id {
            crate::finality::refuse_at(session, read.session_final_at, request.now)?;
        }
        token = None;
        // A closing session's moves are written under its lock (`finality::hold_closing`), which
        // only the locked path takes: few moves are made in a correction window.
        if read.session_final_at.is_none() {
            let tried = with_game!(game, G => record_optimistically::<G, K>(&mut db, read, hot, batcher, signer, &request, &render)
                .await
                .map_err(|e| e.at_table(request.table))?);
            if let Some(outcome) = tried {
                return Ok(outcome);
            }
        }
        // The connection goes back before the transaction takes one: a request never holds two,
        // so a busy pool cannot fill with requests each waiting for a second.
    }
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let is_move = matches!(request.what, Recording::Move(..));
    let (kept, club) = hot.and_then(|h| h.kept(request.table)).unzip();
    let asked = store::move_path::MoveRead {
        table: (request.table, club),
        key,
        fold: is_move,
        kept: kept.filter(|_| is_move),
        lock: true,
        scorer,
        member: member(token),
    };
    let mut locked = read_for_move(&mut Db::Held(&mut tx), None, asked).await?;
    if locked.seen_version != Some(locked.row.version) {
        // The lock waited for a move that committed meanwhile: what this statement read besides
        // the row predates that move, so read it again.
        locked.fold = None;
        locked.chain_end = None;
        locked.answer = match key {
            Some((key, kept_for)) => {
                store::tables::idempotent_response(&mut tx, locked.row.key(), key, kept_for).await?
            }
            None => None,
        };
    }
    if let Some(session) = locked.row.session_id {
        // Read again under the table's lock, whatever the lock waited for: a close (or its final
        // checkpoint, which takes every table of the session) committed while this statement
        // waited is not in what it read.
        locked.session_final_at = store::closes::final_at(&mut tx, session).await?;
    }
    // For the caller's metrics: the game is known only once the table is read.
    let game = game_of(&locked.row)?;
    note(game);
    may_record(&mut Db::Held(&mut tx), request.by, &locked).await?;
    if let Some(session) = locked.row.session_id {
        crate::finality::refuse_at(session, locked.session_final_at, request.now)?;
        if locked.session_final_at.is_some() {
            crate::finality::hold_closing(&mut tx, session).await?;
        }
    }
    let table = request.table;
    with_game!(game, G => record_as::<G, K>(tx, locked, hot, signer, request, render).await)
        .map_err(|e| e.at_table(table))
}

/// `store::move_path::read_for_move` (with the reads of other moves when there is a batcher and
/// no lock is asked for), but for a table that is not there, a signed-out token is refused as
/// such first, as it would be before anything else were read.
async fn read_for_move(
    db: &mut Db<'_>,
    batcher: Option<&MoveBatcher>,
    asked: store::move_path::MoveRead<'_>,
) -> Result<Locked, ServiceError> {
    // Only an account's read has a token to check.
    let token = asked.member.and_then(|m| m.token.map(|t| (m.user, t)));
    // Held while this move reads alone, so that reads coming meanwhile are gathered.
    let mut _alone = None;
    let batched = match (batcher, asked.unlocked()) {
        (Some(batcher), Some(unlocked)) => match batcher.read_alone() {
            Some(alone) => {
                _alone = Some(alone);
                None
            }
            None => batcher.read(unlocked).await,
        },
        _ => None,
    };
    let read = match batched {
        Some(read) => read,
        None => store::move_path::read_for_move(db.get().await?, asked).await,
    };
    match read {
        Err(StoreError::NotFound(what)) => {
            if let Some((user, stamp)) = token {
                super::access::token_stands(db.get().await?, user, stamp).await?;
            }
            Err(StoreError::NotFound(what).into())
        }
        read => Ok(read?),
    }
}

/// Whether the caller may record at the table as read: an account whose token stands and whose
/// role in the table's club records, or one of its scorers not revoked.
async fn may_record(db: &mut Db<'_>, by: Principal, read: &Locked) -> Result<(), ServiceError> {
    use super::access::{role_allows, token_stood, Capability};
    let allowed = match (by, read.member) {
        (Principal::Account(account), Some(member)) => {
            if let Some(stands) = member.token_stands {
                token_stood(stands)?;
            }
            role_allows(account, member.role, read.row.club_id, Capability::Record, "table").map(|_| ())
        }
        _ => {
            super::access::require_table(db.get().await?, by, &read.row, Capability::Record).await?;
            return if read.scorer_active {
                Ok(())
            } else {
                Err(ServiceError::ScorerRevoked)
            };
        }
    };
    match (allowed, by) {
        (Err(ServiceError::Forbidden(refusal)), Principal::Account(account)) => {
            if super::access::seated(db.get().await?, account, &read.row).await? {
                Ok(())
            } else {
                Err(ServiceError::Forbidden(refusal))
            }
        }
        (allowed, _) => allowed,
    }
}

/// A move recorded on what was read without the lock: None, with nothing written, when it must
/// be done again under the lock.
async fn record_optimistically<G: Game, K: Kept>(
    db: &mut Db<'_>,
    read: Locked,
    hot: Option<&HotStates>,
    batcher: Option<&MoveBatcher>,
    signer: receipts::ReceiptSigner<'_>,
    request: &Request,
    render: &impl Fn(Recorded) -> Result<K, serde_json::Error>,
) -> Result<Option<Outcome<K>>, ServiceError> {
    // An older table first gets its chain or its score-sheet lines, which take writes of their
    // own: under the lock.
    if read.chain_end.is_none() || !read.row.deal_lines_kept {
        return Ok(None);
    }
    let step = if request.announce_apart {
        // The announcement and the outbox rows follow the write in statements of their own: one
        // transaction keeps them with it (a lost race rolls back having written nothing).
        let mut tx = store::begin(db.get().await?).await?;
        let step = write_move::<G, K>(&mut Db::Held(&mut tx), &read, hot, None, signer, request, render).await?;
        if matches!(step, Step::Wrote { .. }) {
            tx.commit().await.map_err(StoreError::from)?;
        }
        step
    } else {
        write_move::<G, K>(db, &read, hot, batcher, signer, request, render).await?
    };
    match step {
        Step::Answered(outcome) => Ok(Some(outcome)),
        Step::Wrote { answer, keep } => {
            // Outside a transaction the write has committed already.
            if let Some(hot) = hot {
                hot.put(read.row.id, keep);
            }
            Ok(Some(Outcome::Fresh(answer)))
        }
        Step::Lost => Ok(None),
    }
}

/// How far a move's write got.
enum Step<G, K> {
    /// Answered without writing: a retry's first answer.
    Answered(Outcome<K>),
    /// Written; the state to keep once it has committed.
    Wrote { answer: K, keep: Hot<G> },
    /// Nothing written: the table's version moved on since it was read.
    Lost,
}

/// `record` once the table is locked and its game known.
async fn record_as<G: Game, K: Kept>(
    mut tx: Tx<'_>,
    mut locked: Locked,
    hot: Option<&HotStates>,
    signer: receipts::ReceiptSigner<'_>,
    request: Request,
    render: impl Fn(Recorded) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    match request.what {
        Recording::Move(..) => {
            super::history::back_fill::<G>(&mut tx, &locked.row).await?;
            if locked.chain_end.is_none() {
                // An older table is linked from where its chain ends first, so that the move's
                // links follow in its write and its answer carries their receipt.
                super::chain::extend(&mut tx, &locked.row).await?;
            }
            // Read under the lock: a verification or a scorer's join extends the chain without
            // moving the version, so the end read with the row may be behind.
            let end = store::chain::end(&mut tx, locked.row.key()).await?;
            locked.chain_end = end.last.map(|l| (l.pos, l.hash));
            let row = &locked.row;
            match write_move::<G, K>(&mut Db::Held(&mut tx), &locked, hot, None, signer, &request, &render).await? {
                Step::Answered(outcome) => Ok(outcome),
                Step::Wrote { answer, keep } => {
                    tx.commit().await.map_err(StoreError::from)?;
                    // Only now: a state goes back only once what produced it has committed.
                    if let Some(hot) = hot {
                        hot.put(row.id, keep);
                    }
                    Ok(Outcome::Fresh(answer))
                }
                Step::Lost => Err(ServiceError::Corrupt(format!(
                    "table {} changed while locked for a move",
                    row.id
                ))),
            }
        }
        Recording::Undo => {
            let row = &locked.row;
            let fingerprint = fingerprint(request.what.fingerprint_name(), &request.sent);
            if let Some(outcome) = answered(&locked, &request, &fingerprint)? {
                return Ok(outcome);
            }
            let by = request.by.recorded_by();
            let recorded = undo::<G>(&mut tx, row, &by, signer).await?;
            let answer = render(recorded).map_err(ServiceError::Encode)?;
            if let Some(key) = request.idempotency_key.as_deref() {
                let stored = StoredResponse {
                    request_hash: fingerprint,
                    status: answer.answer().status,
                    body: answer.answer().body.clone(),
                };
                store::tables::save_idempotent_response(&mut tx, row.key(), key, &stored).await?;
            }
            tx.commit().await.map_err(StoreError::from)?;
            Ok(Outcome::Fresh(answer))
        }
    }
}

/// The checks every request makes against the table as read: a retry gets its first answer,
/// and a stale `If-Match` or `expected_version` is refused.
fn answered<K>(locked: &Locked, request: &Request, fingerprint: &str) -> Result<Option<Outcome<K>>, ServiceError> {
    let row = &locked.row;
    if let Some(stored) = &locked.answer {
        if stored.request_hash != fingerprint {
            return Err(ServiceError::IdempotencyKeyReused);
        }
        return Ok(Some(Outcome::Replayed(Answer {
            status: stored.status,
            body: stored.body.clone(),
        })));
    }
    if let Some(accepted) = &request.if_match {
        if !accepted.contains(&row.version) {
            return Err(ServiceError::PreconditionFailed { actual: row.version });
        }
    }
    check_version(row, request.expected_version)?;
    Ok(None)
}

/// Applies the move to the table as read and writes it with everything it causes, in one
/// statement that writes only if the version is still the one read.
async fn write_move<G: Game, K: Kept>(
    conn: &mut Db<'_>,
    locked: &Locked,
    hot: Option<&HotStates>,
    batcher: Option<&MoveBatcher>,
    signer: receipts::ReceiptSigner<'_>,
    request: &Request,
    render: &impl Fn(Recorded) -> Result<K, serde_json::Error>,
) -> Result<Step<G, K>, ServiceError> {
    let Recording::Move(mv, deal) = &request.what else {
        return Err(ServiceError::Corrupt("an undo taken for a move".to_owned()));
    };
    let row = &locked.row;
    let fingerprint = fingerprint(request.what.fingerprint_name(), &request.sent);
    if let Some(outcome) = answered(locked, request, &fingerprint)? {
        return Ok(Step::Answered(outcome));
    }
    let by = request.by.recorded_by();
    let key = request.idempotency_key.as_deref();
    let Some(moved) = apply_move::<G>(conn, locked, hot, mv, *deal).await? else {
        return Ok(Step::Lost);
    };
    let seq = row.version + 1;
    let Some(events) = webhook_events(conn, locked, &moved, seq).await? else {
        return Ok(Step::Lost);
    };
    let entry = MoveRow {
        seq,
        entry: "move".to_owned(),
        kind: moved.kind.to_owned(),
        seat: moved.seat,
        body: moved.body.clone(),
        events: moved.events.clone(),
        voids_seq: None,
        voided_by: None,
        part_of: None,
        superseded_by: None,
        recorded_by: by.clone(),
        recorded_at: locked.now,
    };
    let booking_ids = if moved.bookings.is_empty() {
        Vec::new()
    } else {
        store::move_path::draw_booking_ids(conn.get().await?, moved.bookings.len()).await?
    };
    // The links of this move follow the chain's end in its write (an older table is linked up
    // to its end before: see `record_as`), so the answer carries the receipt for them.
    let Some((pos, hash)) = &locked.chain_end else {
        return Err(ServiceError::Corrupt(format!(
            "table {} is not chained up to its move",
            row.id
        )));
    };
    let links = super::chain::links_for_move(row, &entry, &moved.bookings, &booking_ids, (*pos, hash));
    // The tree grows by the same links: kept with them, its root in the receipt's checkpoint.
    let mut tree = crate::witness::caught_up(
        conn.get().await?,
        row.key(),
        (locked.tree.0, &locked.tree.1),
        *pos,
        false,
    )
    .await?;
    if let Some(tree) = &mut tree {
        for link in &links {
            tree.push_data(&link.hash);
        }
    }
    let root = tree.as_ref().map(|t| t.root());
    let (receipt, link, end) = match (links.first(), links.last()) {
        (Some(first), Some(last)) => (
            signer.sign(row.id, row.session_id, last.pos, &last.hash, locked.now, root.as_ref())?,
            store::live::AnnouncedLink {
                pos: first.pos,
                hash: first.hash.clone(),
            },
            store::live::AnnouncedLink {
                pos: last.pos,
                hash: last.hash.clone(),
            },
        ),
        _ => {
            return Err(ServiceError::Corrupt(format!(
                "a move of table {} made no link",
                row.id
            )))
        }
    };
    // The row as the write leaves it: the answer is built from what is known already.
    let after = TableRow {
        version: seq,
        finished: moved.game.is_finished(),
        updated_at: locked.now,
        chain_head: links.last().map(|l| l.hash.clone()),
        ..row.clone()
    };
    let chain = store::live::ChainNews {
        link,
        end,
        root: root.map(store::live::AnnouncedRoot),
    };
    let announcement = store::live::Announcement {
        table: row.id,
        session: row.session_id,
        seq,
    }
    .payload_with(&entry, Some(&chain));
    let recorded = Recorded::Move {
        entry,
        table: TableState::new(after, &moved.game)?,
        receipt,
    };
    let answer = render(recorded).map_err(ServiceError::Encode)?;
    let stored = StoredResponse {
        request_hash: fingerprint,
        status: answer.answer().status,
        body: answer.answer().body.clone(),
    };
    let frontier_bytes = tree.as_ref().map(|t| t.bytes()).unwrap_or_default();
    let write = MoveWrite {
        new: NewMove {
            seq,
            kind: moved.kind,
            seat: moved.seat,
            body: &moved.body,
            events: &moved.events_text,
            recorded_by: &by,
        },
        finished: moved.game.is_finished(),
        bookings: moved.bookings.iter().map(|(b, deal)| (b.memo(), *deal)).collect(),
        postings: moved
            .bookings
            .iter()
            .zip(1i64..)
            .flat_map(|((b, _), place)| {
                b.postings()
                    .iter()
                    .map(move |p| (place, p.account.to_string(), p.amount.get()))
            })
            .collect(),
        lines: &moved.lines,
        snapshot: moved.snapshot.then_some(&moved.game),
        announce: (store::live::CHANNEL, &announcement),
        answer: key.map(|key| (key, &stored)),
        booking_ids: &booking_ids,
        links: &links,
        tree: tree
            .as_ref()
            .map(|t| (i64::try_from(t.size()).unwrap_or(i64::MAX), frontier_bytes.as_slice())),
        now: locked.now,
        events: &events,
        club: row.club_id,
        apart: request.announce_apart,
    };
    if writer::write(conn, batcher, row.key(), write).await? == Written::Lost {
        return Ok(Step::Lost);
    }
    let since_snapshot = if moved.snapshot { 0 } else { moved.replayed + 1 };
    Ok(Step::Wrote {
        answer,
        keep: Hot {
            version: seq,
            club_no: row.club_no,
            game: moved.game,
            since_snapshot,
        },
    })
}

/// The version the client saw (`If-Match`, `expected_version`), against the table's.
fn check_version(table: &TableRow, expected: Option<i64>) -> Result<(), ServiceError> {
    match expected {
        Some(expected) if expected != table.version => Err(ServiceError::VersionConflict {
            expected,
            actual: table.version,
        }),
        _ => Ok(()),
    }
}

/// A move applied, with what it causes, not written yet.
struct Moved<G: Game> {
    game: G,
    /// Moves replayed onto the latest snapshot to reach the state before this one.
    replayed: usize,
    kind: &'static str,
    seat: Option<i16>,
    body: Value,
    events: Value,
    /// The events as the log keeps them (see `store::move_path::NewMove::events`).
    events_text: String,
    bookings: Vec<(Booking, Option<i32>)>,
    /// The score-sheet lines this move finished.
    lines: Vec<Value>,
    /// The number of the deal the move was recorded in (None once the game was over).
    deal: Option<u16>,
    /// Whether a snapshot of the state it leaves is due.
    snapshot: bool,
}

/// The table's state at exactly the version read (`locked.row.version`), and how many moves
/// were replayed onto the latest snapshot to reach it; None when that cannot be had without the
/// table's lock.
///
/// This is what makes a stale version a conflict and never a rule's refusal: the version the
/// client sent was checked against the row read, and the rules see the move only against the
/// state of that very version. A state kept in memory is taken only at that version; rows read in
/// the same statement as the row are of it; under the lock nothing can move the table on, so a
/// fold read now is of it too. Without the lock a fold read now may already hold a later entry
/// (another request took the kept state and recorded meanwhile): the rules would judge the move
/// against the winner's table. So the optimistic path gives up instead, and the locked path finds
/// the later version and answers `version_conflict`.
async fn state_at_version_read<G: Game>(
    conn: &mut Db<'_>,
    locked: &Locked,
    hot: Option<&HotStates>,
) -> Result<Option<(G, usize)>, ServiceError> {
    let table = &locked.row;
    // A kept state is taken out: if this move is refused or fails it is simply gone, and the
    // next move folds from the database.
    if let Some(kept) = hot.and_then(|h| h.take::<G>(table.id, table.version)) {
        return Ok(Some((kept.game, kept.since_snapshot)));
    }
    if let Some(folded) = locked
        .fold
        .as_ref()
        .map(|rows| fold::from_rows(table, rows))
        .transpose()?
        .flatten()
    {
        return Ok(Some(folded));
    }
    if locked.locked {
        Ok(Some(current_and_replayed(conn.get().await?, table).await?))
    } else {
        Ok(None)
    }
}

/// Applies the move to the table's state at the version read (see [`state_at_version_read`]);
/// None, with nothing applied, when that state is not to be had without the lock.
async fn apply_move<G: Game>(
    conn: &mut Db<'_>,
    locked: &Locked,
    hot: Option<&HotStates>,
    mv: &Value,
    deal: Option<u16>,
) -> Result<Option<Moved<G>>, ServiceError> {
    let mv = G::Move::deserialize(mv).map_err(ServiceError::InvalidMove)?;
    let Some((mut game, replayed)) = state_at_version_read::<G>(conn, locked, hot).await? else {
        return Ok(None);
    };
    // The deal guard: a second phone posting the same result again, or a result meant for a
    // deal already entered, is refused rather than booked as the next deal.
    if let Some(named) = deal {
        if game.deal_number() != Some(named) {
            return Err(ServiceError::DealMismatch {
                named,
                recording: game.deal_number(),
            });
        }
    }
    let deal_number = game.deal_number();
    let events = game.apply(&mv)?;
    // Lines are history, kept as rows: the state that is cached and snapshotted holds none.
    let lines = game
        .take_deal_lines()
        .iter()
        .map(to_json)
        .collect::<Result<Vec<_>, _>>()?;
    let bookings = G::settlements(&events)
        .iter()
        .map(|s| Ok((Booking::from_settlement(s)?, s.deal.map(i32::from))))
        .collect::<Result<Vec<_>, ServiceError>>()?;
    Ok(Some(Moved {
        kind: G::move_kind(&mv),
        seat: G::move_seat(&mv).map(|s: Seat| i16::from(s.number())),
        body: to_json(&mv)?,
        events: to_json(&events)?,
        events_text: serde_json::to_string(&events).map_err(ServiceError::Encode)?,
        bookings,
        lines,
        snapshot: snapshot_due(replayed),
        deal: deal_number,
        replayed,
        game,
    }))
}
