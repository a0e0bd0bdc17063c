//! Finished deals: reading one, correcting one (and a dry run of a correction being entered,
//! issue #23), and undoing a correction (issue #13).
//!
//! Invariants:
//! - A deal is the effective moves played while the engine recorded it (`Game::deal_number`
//!   before the move), in play order; it is finished once the engine records a later deal or the
//!   game is over. Only a finished deal is corrected; the deal being recorded is undone instead.
//! - A correction is all-or-nothing, in one transaction on the locked table: its moves must make
//!   up exactly the deal under the rules, and every later effective move must still replay on
//!   the corrected history, or nothing is written (`correction_conflicts` names the first that
//!   does not). The log keeps the replaced moves; the correction's moves (`part_of` it) and its
//!   entry are appended, the entry last, so that its snapshot (the state after it) is passed
//!   over once it is voided.
//! - The ledger is never edited: the bookings in force are compared with what the corrected
//!   replay books, each that no longer holds is reversed and each that is missing is booked,
//!   caused by the move that causes it now; the ids the correction booked are kept so that its
//!   undo reverses exactly those (re-booking what it reversed).
//! - The score sheet as corrected is kept as line rows under the correction's seq (see
//!   `store::deal_lines::in_force`).
//! - What a correction writes is one plan (`store::writer::CorrectionWrite`), worked out here
//!   from reads and written by the writer that writes moves; only the links over its entries as
//!   stored are made once they are written (`Linked`).

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};
use tablekeeper_store::{PgConnection, PgPool};
use uuid::Uuid;

use super::booking_key::{key, Key};
use super::chain::Json;
use super::fold::{self, no_longer_replays, stored_move};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::receipts::{AuditKeys, Receipt};
use super::{game_of, read_table, to_json, Principal, ServiceError};
use tablekeeper_ledger::Booking;
use tablekeeper_rules::with_game;
use tablekeeper_rules::{Events, Game, GameId, Settlement};
use tablekeeper_store::deals::{CorrectedMove, NewCorrection, Placement};
pub use tablekeeper_store::deals::{CorrectionRow, VerificationRow};
use tablekeeper_store::ledger::{NewBooking, StoredBooking};
use tablekeeper_store::live::Announcement;
use tablekeeper_store::tables::{MoveRow, TableKey, TableRow};
use tablekeeper_store::writer::{self, CorrectionWrite, Held, Seal, Sealed};
use tablekeeper_store::{self as store, StoreError, Tx};

/// Whether a finished deal was confirmed by someone other than who recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    Unverified,
    Verified,
    /// Disputed, with the fields of the score-sheet line that the dispute's result changes.
    Disputed {
        differs: Vec<String>,
    },
}

/// A deal as the score sheet numbers it, with who recorded, corrected and verified it.
#[derive(Debug, Clone)]
pub struct DealRecord {
    pub table: TableRow,
    pub game: GameId,
    pub deal: u16,
    /// Whether the deal is over (a deal being recorded is shown too).
    pub finished: bool,
    /// Its effective moves, in play order.
    pub moves: Vec<MoveRow>,
    /// The score-sheet line(s) it finished.
    pub lines: Vec<Value>,
    pub corrections: Vec<CorrectionRow>,
    pub verifications: Vec<VerificationRow>,
    /// The correction in force for the deal (0: as first recorded): the verifications about
    /// the deal as it stands are those given with it.
    pub correction_in_force: i64,
    pub verification: Verification,
    /// The director's rulings of the deal, oldest first, with the phones' answers.
    pub rulings: Vec<super::ruled::RulingRecord>,
    /// Scorers' names by `scorer:<id>`.
    pub names: HashMap<String, String>,
    /// What is improbable about the deal as it stands (`flags`); none while it is recorded.
    pub flags: Vec<super::flags::Flag>,
}

/// A correction asked for.
#[derive(Debug, Clone)]
pub struct Correction {
    pub table: Uuid,
    pub by: Principal,
    pub deal: u16,
    pub moves: Vec<Value>,
    pub expected_version: i64,
    pub reason: String,
    /// The time now (the application's clock): a table of a session final by then is refused.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// The deal `deal` of a table.
///
/// # Errors
/// `Store(NotFound)`, `DealNotFound`.
pub async fn deal(pool: &PgPool, table: Uuid, deal: u16) -> Result<DealRecord, ServiceError> {
    let (mut tx, row) = read_table(pool, table).await?;
    with_game!(game_of(&row)?, G => record_of::<G>(&mut tx, &row, deal).await).map_err(|e| e.at_table(table))
}

/// Corrects a finished deal; the answer `render` makes of the deal as it stands now and the
/// receipt `keys` sign for the chain as the correction leaves it, kept under `key` when given.
/// A retry with the key gets that first answer and corrects nothing.
///
/// # Errors
/// `Store(NotFound)`, `Forbidden`, `IdempotencyKeyReused`, `VersionConflict`, `DealNotFound`,
/// `DealNotFinished`, `InvalidMove`, `Rule` (a correction's own move breaks a rule), `NotTheDeal`,
/// `CorrectionConflicts`, `Encode` when `render` fails; in every case nothing is written.
pub async fn correct<K: Kept>(
    pool: &PgPool,
    keys: &AuditKeys,
    correction: Correction,
    key: Option<&CreationKey>,
    render: impl FnOnce(DealRecord, Receipt) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    // The signing key is read (the first time, from the database) before the transaction: read
    // inside it, it would want a second connection while this one holds locks others queue on.
    keys.signing(pool).await?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::tables::lock(&mut tx, correction.table).await?;
    super::access::require_table(&mut tx, correction.by, &row, super::access::Capability::Record).await?;
    if let Some(session) = row.session_id {
        super::finality::refuse_if_final(&mut tx, session, correction.now).await?;
    }
    // A retry's `expected_version` is behind by its own correction: its first answer comes first.
    if let Some(first) = idempotency::first_answer_at_table(&mut tx, row.key(), key).await? {
        return Ok(first);
    }
    if correction.expected_version != row.version {
        return Err(ServiceError::VersionConflict {
            expected: correction.expected_version,
            actual: row.version,
        });
    }
    // A ruling's adjustments were worked out on the deal as it stood: the director rules again.
    if super::ruled::is_ruled(&mut tx, row.key(), correction.deal).await? {
        return Err(ServiceError::DealRuled(correction.deal));
    }
    // A round closed before the correction counted the deal: its result follows it.
    let counting = super::tournaments::counting(&mut tx, &row, correction.deal).await?;
    let now = chrono::Utc::now();
    let record: Result<DealRecord, ServiceError> = async {
        Ok(with_game!(game_of(&row)?, G => {
            correct_as::<G>(&mut tx, &row, &correction, now).await?;
            let row = store::tables::fetch_by_key(&mut tx, row.key()).await?;
            record_of::<G>(&mut tx, &row, correction.deal).await?
        }))
    }
    .await;
    let record = record.map_err(|e| e.at_table(row.id))?;
    if let Some(counting) = counting {
        counting.amend(&mut tx, row.id).await?;
    }
    let receipt = keys.receipt_for(pool, &mut tx, row.key(), row.session_id, now).await?;
    let answer = render(record, receipt).map_err(ServiceError::Encode)?;
    let answer = idempotency::keep_at_table(&mut tx, row.key(), key, answer).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(answer))
}

/// What a correction's moves so far make of a finished deal, as a dry run: nothing is stored.
#[derive(Debug, Clone)]
pub struct Preview {
    pub table: TableRow,
    pub game: GameId,
    pub deal: u16,
    /// The game's view after the moves: whose turn, what is legal next.
    pub view: Value,
    /// Whether the moves finish the deal (and every later move still replays after them).
    pub complete: bool,
    /// Each move's events, in order.
    pub events: Vec<Value>,
    /// The score-sheet line(s) the moves finished.
    pub lines: Vec<Value>,
}

/// The table as correcting deal `deal` with `moves` would leave it so far, for a phone that
/// re-enters a deal card by card and must know what is legal next. Nothing is written; the
/// same people may ask as may correct.
///
/// # Errors
/// `Store(NotFound)`, `Forbidden`, `DealNotFound`, `DealNotFinished`, `InvalidMove`, `Rule`,
/// `NotTheDeal` (a move after the deal is over), `CorrectionConflicts` (the moves finish the
/// deal and a later move no longer fits).
pub async fn preview(
    pool: &PgPool,
    table: Uuid,
    by: Principal,
    deal: u16,
    moves: &[Value],
) -> Result<Preview, ServiceError> {
    let (mut tx, row) = read_table(pool, table).await?;
    super::access::require_table(&mut tx, by, &row, super::access::Capability::Record).await?;
    with_game!(game_of(&row)?, G => preview_as::<G>(&mut tx, row, deal, moves).await).map_err(|e| e.at_table(table))
}

async fn preview_as<G: Game>(
    conn: &mut PgConnection,
    table: TableRow,
    deal: u16,
    moves: &[Value],
) -> Result<Preview, ServiceError> {
    let played = played::<G>(&mut *conn, &table, deal).await?;
    if !played.finished {
        return Err(ServiceError::DealNotFinished(deal));
    }
    let mut game = played.start;
    let mut events = Vec::with_capacity(moves.len());
    let mut lines = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        let mv: G::Move = serde_json::from_value(mv.clone()).map_err(ServiceError::InvalidMove)?;
        if game.deal_number() != Some(deal) {
            return Err(ServiceError::NotTheDeal(format!(
                "deal {deal} is over after the first {i} of the moves given; leave the rest out"
            )));
        }
        events.push(to_json(&game.apply(&mv)?)?);
        lines.extend(game.take_deal_lines());
    }
    let complete = game.deal_number() != Some(deal);
    let view = to_json(&game.view())?;
    if complete {
        // What the correction itself would be refused for, said before it is sent.
        for row in &played.moves[played.range.end..] {
            game.replay(&stored_move::<G>(row)?)
                .map_err(|violation| ServiceError::CorrectionConflicts {
                    seq: row.seq,
                    violation,
                })?;
        }
    }
    Ok(Preview {
        game: G::ID,
        deal,
        view,
        complete,
        events,
        lines: lines.iter().map(to_json).collect::<Result<_, _>>()?,
        table,
    })
}

/// A table's effective moves with the place of one deal among them.
pub(super) struct Played<G: Game> {
    pub moves: Vec<MoveRow>,
    /// The deal's moves: `moves[range]`.
    pub range: std::ops::Range<usize>,
    /// The state before the deal's first move.
    pub start: G,
    /// The lines the deal finished.
    pub lines: Vec<G::DealLine>,
    pub finished: bool,
}

/// Replays the table from its set-up to find deal `deal`.
///
/// # Errors
/// `DealNotFound` when no move of it was played, the deal the table waits for included;
/// `Corrupt` when the log does not replay.
pub(super) async fn played<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
    deal: u16,
) -> Result<Played<G>, ServiceError> {
    let moves = store::tables::effective_moves(conn, table.key(), 0).await?;
    let mut game: G = fold::initial(table)?;
    let mut found: Option<(usize, G)> = None;
    let mut end = 0;
    let mut lines = Vec::new();
    let mut last = None;
    for (i, row) in moves.iter().enumerate() {
        // A move after the last deal (a session's closing move) belongs to that deal.
        let of = game.deal_number().or(last);
        if of == Some(deal) && found.is_none() {
            found = Some((i, game.clone()));
        }
        game.replay(&stored_move::<G>(row)?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(row.seq, &v)))?;
        let finished = game.take_deal_lines();
        if of == Some(deal) {
            end = i + 1;
            lines.extend(finished);
        }
        last = of;
    }
    // A deal of which no move is recorded does not exist yet, even the one the table waits for:
    // there is nothing of it to show, correct or verify.
    let Some((first, start)) = found else {
        return Err(ServiceError::DealNotFound(deal));
    };
    let finished = game.deal_number() != Some(deal);
    Ok(Played {
        moves,
        range: first..end,
        start,
        lines,
        finished,
    })
}

/// A deal's moves applied, each with its events, and the lines they finished.
pub(super) type Replayed<G> = (
    Vec<(<G as Game>::Move, Events<<G as Game>::Event>)>,
    Vec<<G as Game>::DealLine>,
);

/// Applies a recording of deal `deal` to the state at its start: the moves must stay within
/// the deal and finish it. Returns each move's events and the lines it finished.
///
/// # Errors
/// `InvalidMove`, `Rule`, `NotTheDeal`.
pub(super) fn replay_deal<G: Game>(game: &mut G, deal: u16, moves: &[Value]) -> Result<Replayed<G>, ServiceError> {
    if moves.is_empty() {
        return Err(ServiceError::NotTheDeal(format!(
            "give the moves of deal {deal}, at least one"
        )));
    }
    let mut applied = Vec::new();
    let mut lines = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        let mv: G::Move = serde_json::from_value(mv.clone()).map_err(ServiceError::InvalidMove)?;
        if game.deal_number() != Some(deal) {
            return Err(ServiceError::NotTheDeal(format!(
                "deal {deal} is over after the first {i} of the moves given; leave the rest out"
            )));
        }
        let events = game.apply(&mv)?;
        lines.extend(game.take_deal_lines());
        applied.push((mv, events));
    }
    if game.deal_number() == Some(deal) {
        return Err(ServiceError::NotTheDeal(format!(
            "the moves given do not finish deal {deal}: give the whole deal"
        )));
    }
    Ok((applied, lines))
}

/// Works out what correcting the deal as `c` asks writes (the plan), and has the writer write it.
pub(super) async fn correct_as<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    c: &Correction,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<(), ServiceError> {
    super::history::back_fill::<G>(tx, table).await?;
    let played = played::<G>(tx, table, c.deal).await?;
    if !played.finished {
        return Err(ServiceError::DealNotFinished(c.deal));
    }
    let first_new = table.version + 1;
    let k = i64::try_from(c.moves.len()).unwrap_or(i64::MAX);
    let correction_seq = table.version + k + 1;

    // The corrected history: the moves before the deal, the correction's, the moves after.
    let mut game: G = fold::initial(table)?;
    let mut expected: Vec<(i64, Settlement)> = game.opening_settlements().into_iter().map(|s| (0, s)).collect();
    let mut lines: Vec<G::DealLine> = Vec::new();
    let (before, after) = (&played.moves[..played.range.start], &played.moves[played.range.end..]);
    for row in before {
        let events = game
            .replay(&stored_move::<G>(row)?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(row.seq, &v)))?;
        expected.extend(G::settlements(&events).into_iter().map(|s| (row.seq, s)));
        lines.extend(game.take_deal_lines());
    }
    let (applied, deal_lines) = replay_deal(&mut game, c.deal, &c.moves)?;
    lines.extend(deal_lines);
    let mut corrected = Vec::with_capacity(applied.len());
    for (seq, (mv, events)) in (first_new..).zip(applied) {
        expected.extend(G::settlements(&events).into_iter().map(|s| (seq, s)));
        corrected.push(CorrectedMove {
            kind: G::move_kind(&mv).to_owned(),
            seat: G::move_seat(&mv).map(|s| i16::from(s.number())),
            body: to_json(&mv)?,
            events: to_json(&events)?,
        });
    }
    let mut changed = serde_json::Map::new();
    for row in after {
        let events = game
            .replay(&stored_move::<G>(row)?)
            .map_err(|violation| ServiceError::CorrectionConflicts {
                seq: row.seq,
                violation,
            })?;
        let now = to_json(&events)?;
        if now != row.events {
            changed.insert(row.seq.to_string(), now);
        }
        expected.extend(G::settlements(&events).into_iter().map(|s| (row.seq, s)));
        lines.extend(game.take_deal_lines());
    }

    let by = c.by.recorded_by();
    let place = Placement {
        before: before.last().map(|m| m.seq),
        after: after.first().map(|m| m.seq),
    };
    let supersedes: Vec<i64> = played.moves[played.range.clone()].iter().map(|m| m.seq).collect();
    let body = json!({"deal": c.deal, "moves": c.moves, "reason": c.reason});
    let bookings = rebook(tx, table.key(), correction_seq, expected).await?;
    let plan = CorrectionWrite {
        first: first_new,
        place,
        moves: corrected,
        entry: NewCorrection {
            seq: correction_seq,
            deal: i32::from(c.deal),
            body: &body,
            reason: &c.reason,
            recorded_by: &by,
            supersedes: &supersedes,
        },
        bookings,
        changed: Value::Object(changed),
        lines: lines.iter().map(to_json).collect::<Result<Vec<_>, _>>()?,
        snapshot: to_json(&game)?,
        announce: Announcement {
            table: table.id,
            session: table.session_id,
            seq: correction_seq,
        },
        events: vec![super::webhooks::deal_event(
            super::webhooks::DEAL_CORRECTED,
            table,
            c.deal,
            at,
        )],
        club: table.club_id,
        now: at,
    };
    let linked = Linked {
        table,
        finished: game.is_finished(),
    };
    writer::write_held(tx, table.key(), Held::Correction(plan), linked).await
}

/// A correction's part of its plan once its entries are written: the links that chain them (the
/// places of its moves in play order are the database's). The state after it is known before.
pub(super) struct Linked<'a> {
    pub(super) table: &'a TableRow,
    pub(super) finished: bool,
}

impl Seal for Linked<'_> {
    type Kept = ();
    type Error = ServiceError;

    async fn seal(self, conn: &mut PgConnection) -> Result<Sealed<()>, ServiceError> {
        Ok(Sealed {
            links: super::chain::unlinked(conn, self.table).await?,
            finished: self.finished,
            kept: (),
        })
    }
}

/// The bookings in force: neither a reversal nor reversed.
fn in_force(stored: &[StoredBooking]) -> Vec<&StoredBooking> {
    let reversed: HashSet<i64> = stored.iter().filter_map(|b| b.reverses).collect();
    stored
        .iter()
        .filter(|b| b.reverses.is_none() && !reversed.contains(&b.id))
        .collect()
}

fn stored_key(b: &StoredBooking) -> Key {
    key(
        b.move_seq,
        b.deal,
        &b.memo,
        b.postings.iter().map(|p| (p.account.to_string(), p.amount.get())),
    )
}

/// The bookings that make the ledger in force book exactly `expected` (settlements by the move
/// causing them): reversals of what no longer holds (caused by `correction`), then what is
/// missing. Reads only.
async fn rebook(
    tx: &mut Tx<'_>,
    table: TableKey,
    correction: i64,
    expected: Vec<(i64, Settlement)>,
) -> Result<Vec<NewBooking>, ServiceError> {
    let stored = store::ledger::bookings(tx, table, None).await?;
    // What a ruling booked is no move's: the replay never books it, and it stays.
    let rulings: HashSet<i64> = store::rulings::entries(tx, table)
        .await?
        .iter()
        .map(|e| e.seq)
        .collect();
    let mut unmatched: HashMap<Key, Vec<&StoredBooking>> = HashMap::new();
    for b in in_force(&stored).into_iter().filter(|b| !rulings.contains(&b.move_seq)) {
        unmatched.entry(stored_key(b)).or_default().push(b);
    }
    let mut missing = Vec::new();
    for (seq, s) in expected {
        let postings = s.postings.iter().map(|(a, c)| (a.to_string(), c.get()));
        let k = key(seq, s.deal.map(i32::from), &s.memo, postings);
        match unmatched.get_mut(&k).and_then(Vec::pop) {
            Some(_) => {}
            None => missing.push((seq, s)),
        }
    }
    let mut stale: Vec<&StoredBooking> = unmatched.into_values().flatten().collect();
    stale.sort_by_key(|b| b.id);
    let mut new = Vec::with_capacity(stale.len() + missing.len());
    for b in stale {
        new.push(NewBooking {
            move_seq: correction,
            deal: b.deal,
            booking: Booking::new(b.memo.clone(), b.postings.clone())?.reversal(),
            reverses: Some(b.id),
        });
    }
    for (seq, s) in &missing {
        new.push(NewBooking {
            move_seq: *seq,
            deal: s.deal.map(i32::from),
            booking: Booking::from_settlement(s)?,
            reverses: None,
        });
    }
    Ok(new)
}

/// The bookings that reverse what a voided entry booked, as caused by the void `void_seq`, in
/// order: a move's bookings still in force reversed, or what a correction changed (its new
/// bookings reversed, the bookings it reversed booked again). Reads only: the undo's plan
/// carries them to the writer.
///
/// # Errors
/// On database failure.
pub(super) async fn undoing(
    tx: &mut Tx<'_>,
    table: TableKey,
    voided: &MoveRow,
    void_seq: i64,
) -> Result<Vec<NewBooking>, ServiceError> {
    let stored = store::ledger::bookings(tx, table, None).await?;
    // A correction may have reversed some already (and re-booked them anew).
    let reversed: HashSet<i64> = stored.iter().filter_map(|b| b.reverses).collect();
    let reversal = |b: &StoredBooking| -> Result<NewBooking, ServiceError> {
        Ok(NewBooking {
            move_seq: void_seq,
            deal: b.deal,
            booking: Booking::new(b.memo.clone(), b.postings.clone())?.reversal(),
            reverses: Some(b.id),
        })
    };
    if voided.entry != "correction" {
        return stored
            .iter()
            .filter(|b| b.move_seq == voided.seq && b.reverses.is_none() && !reversed.contains(&b.id))
            .map(reversal)
            .collect();
    }
    let correction = store::deals::correction(tx, table, voided.seq).await?;
    let (Some(first), Some(last)) = (correction.first_booking, correction.last_booking) else {
        return Ok(Vec::new());
    };
    let by_id: HashMap<i64, &StoredBooking> = stored.iter().map(|b| (b.id, b)).collect();
    let mut new = Vec::new();
    for b in stored.iter().filter(|b| (first..=last).contains(&b.id)) {
        match b.reverses {
            Some(original) => {
                let original = by_id
                    .get(&original)
                    .ok_or_else(|| ServiceError::Corrupt(format!("booking {original} is missing")))?;
                new.push(NewBooking {
                    move_seq: original.move_seq,
                    deal: original.deal,
                    booking: Booking::new(original.memo.clone(), original.postings.clone())?,
                    reverses: None,
                });
            }
            None if !reversed.contains(&b.id) => new.push(reversal(b)?),
            None => {}
        }
    }
    Ok(new)
}

/// The events in force of move `seq` of deal `deal`, stored as `stored`: those of the latest
/// correction in force that replayed it (a correction of an earlier deal, after it in the log),
/// when that changed them.
pub(super) fn events_in_force<'a>(
    corrections: &'a [CorrectionRow],
    seq: i64,
    deal: Option<u16>,
    stored: Json<'a>,
) -> Json<'a> {
    corrections
        .iter()
        .filter(|c| c.voided_by.is_none() && c.seq > seq && deal.is_some_and(|d| i32::from(d) > c.deal))
        .max_by_key(|c| c.seq)
        .and_then(|c| c.events.get(seq.to_string()))
        .map_or(stored, Json::Value)
}

/// The correction in force for `deal` (0: none).
pub(super) fn correction_in_force(corrections: &[CorrectionRow], deal: u16) -> i64 {
    corrections
        .iter()
        .filter(|c| c.deal == i32::from(deal) && c.voided_by.is_none())
        .map(|c| c.seq)
        .max()
        .unwrap_or(0)
}

/// A deal's verification, from the verifications given about it as it stands: the latest
/// decides.
pub(super) fn verification_of(verifications: &[VerificationRow], deal: u16, correction: i64) -> Verification {
    match verifications
        .iter()
        .rev()
        .find(|v| v.deal == i32::from(deal) && v.correction_seq == correction)
    {
        None => Verification::Unverified,
        Some(v) if v.agree => Verification::Verified,
        Some(v) => Verification::Disputed {
            differs: v.differs.clone(),
        },
    }
}

pub(super) async fn record_of<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
    deal: u16,
) -> Result<DealRecord, ServiceError> {
    let played = played::<G>(&mut *conn, table, deal).await?;
    let corrections = store::deals::corrections(&mut *conn, table.key(), Some(i32::from(deal))).await?;
    let verifications = store::deals::verifications(&mut *conn, table.key(), Some(i32::from(deal))).await?;
    let correction_in_force = correction_in_force(&corrections, deal);
    let verification = verification_of(&verifications, deal, correction_in_force);
    let rulings = super::ruled::records_of(&store::rulings::entries(&mut *conn, table.key()).await?, deal);
    let mut names = HashMap::new();
    for scorer in store::scorers::list(&mut *conn, table.key()).await? {
        names.insert(format!("scorer:{}", scorer.id), scorer.name);
    }
    let Played {
        mut moves,
        range,
        lines,
        finished,
        ..
    } = played;
    let flags = if finished {
        let mut of_table = super::flags::of_table(&mut *conn, table, None).await?;
        usize::from(deal)
            .checked_sub(1)
            .and_then(|i| of_table.get_mut(i))
            .map(std::mem::take)
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok(DealRecord {
        table: table.clone(),
        game: game_of(table)?,
        deal,
        finished,
        moves: moves.drain(range).collect(),
        lines: lines.iter().map(to_json).collect::<Result<_, _>>()?,
        corrections,
        verifications,
        correction_in_force,
        verification,
        rulings,
        names,
        flags,
    })
}
