//! Director rulings on finished deals (issue #42), and the answers the table's phones give to
//! them.
//!
//! A ruling is not a scorer's correction: the director decides a deal's result for a reason
//! (a revoke, a misboard, a claim), and the ruling says what it moved. Its kinds:
//! - `assigned`: the director's result, entered as the deal's moves. It is made as a correction
//!   (the same replay: later deals that move with it move, bookings that no longer hold are
//!   reversed), with the ruling's entry after it; it also takes back what earlier rulings of
//!   the deal adjusted, so the deal stands as assigned.
//! - `average`: for the seats named (all when none), a percentage (40, 50, 60 … as the club
//!   defines it; 50 unless given) of the deal's best score as played, in a points game; 0 net
//!   chips in a chip game, the chips that frees or costs shared by the other seats (remainder
//!   to the lowest seats first), and every account of the deal (pools and funds too) back to
//!   where it was when every seat is given average.
//! - `split`: a result for each seat named: points in a points game; in a chip game every seat's
//!   net chips, summing to 0, the deal's pools and funds back to where they were.
//! - `void`: the deal does not count: no points, and every account back to where it was.
//!
//! `average`, `split` and `void` change neither the cards nor the log's moves: the deal as
//! played stays on the score sheet (and in the replay the audit and `tablekeeper verify` make)
//! and later deals are untouched. What they change is kept with the ruling: per seat, the points
//! the deal's result moves by (`scores`), and in a chip game one booking (`booking`), caused by
//! the ruling's entry, that brings the deal's accounts to what the ruling says. It is an
//! adjustment rather than reversals of the deal's bookings because the deal's own bookings are
//! what the replay books: a correction of an earlier deal makes the ledger in force what the
//! replay books again, and would book a reversed deal anew. The ledger stays append-only and
//! every booking sums to zero. A seat's score is the running total as played plus every
//! ruling's `scores`; its chips are its ledger balance.
//!
//! Invariants:
//! - A ruling and a phone's answer are entries of the table's log (`entry = 'ruling'`), made
//!   under the table's lock by the one writer (`store::writer::Held::Ruling`): they are in the
//!   table's hash chain and its bundle like any entry, and the audit expects the ruling's
//!   booking (`audit::ruled`).
//! - Only an organiser (who runs the session's tables) rules; a finished deal only; never in a
//!   final session. A ruling stands whatever the phones answer: an answer (`agree` or `appeal`,
//!   with a comment) is recorded with who and when, and shown with the ruling.
//! - A scorer's correction of a ruled deal is refused (`DealRuled`): the adjustments were worked
//!   out on the deal as it stood; the director rules again instead (an `assigned` ruling). An
//!   undo that would take a ruled deal back into play is refused too (`UndoRuled`).
//! - An adjustment is what it was when the ruling was made: a correction of an *earlier* deal
//!   that changes what a ruled later deal books (a Game Fund grown differently) leaves it as it
//!   was; a second ruling of that deal, worked out on the deal as it then stands, puts it right.
//! - The diff (each seat's score and chips before and after, every account, later deal and
//!   session standing that moved) is worked out in the ruling's transaction and kept in the
//!   entry's body (`diff`): a log entry's events are its game's, and the body is chained as
//!   they are.
//! - What other use cases read of rulings (a deal's, the points they adjust for the standings
//!   and a tournament's round, the undo's guard) is `service::ruled`. A ruling of a deal that a
//!   tournament round closed before it counted amends that round's result
//!   (`tournaments::amend`).

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tablekeeper_ledger::{Booking, Posting};
use tablekeeper_rules::{with_game, Account, Chips, Game, Seat};
use tablekeeper_store::ledger::NewBooking;
use tablekeeper_store::live::Announcement;
use tablekeeper_store::rulings::NewRulingEntry;
use tablekeeper_store::tables::{TableKey, TableRow};
use tablekeeper_store::writer::{self, Held, RulingWrite};
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError, Tx};
use uuid::Uuid;

use super::corrections::{self, played, Correction, Linked};
use super::fold::{self, no_longer_replays, stored_move};
use super::idempotency::{self, CreationKey, Kept, Outcome};
use super::receipts::{AuditKeys, Receipt};
use super::ruled::{adjusted, records_of};
pub use super::ruled::{AnswerRecord, Marked, RulingRecord};
use super::{game_of, to_json, Principal, ServiceError};

/// What the director rules.
#[derive(Debug, Clone)]
pub enum Kind {
    /// The deal's result as the director sets it: its moves.
    Assigned {
        moves: Vec<Value>,
    },
    /// An average for `seats` (0-based; empty: every seat), `percent` of the deal's best.
    Average {
        seats: Vec<u8>,
        percent: i64,
    },
    /// Each named seat's result: points, or net chips in a chip game.
    Split {
        results: Vec<(u8, i64)>,
    },
    Void,
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Assigned { .. } => "assigned",
            Kind::Average { .. } => "average",
            Kind::Split { .. } => "split",
            Kind::Void => "void",
        }
    }
}

/// A ruling asked for.
#[derive(Debug, Clone)]
pub struct Ruling {
    pub table: Uuid,
    pub by: Principal,
    pub deal: u16,
    pub kind: Kind,
    pub reason: String,
    /// The application's clock: a table of a session final by then is refused.
    pub now: DateTime<Utc>,
}

/// A phone's answer to a ruling.
#[derive(Debug, Clone)]
pub struct Answer {
    pub table: Uuid,
    pub by: Principal,
    pub deal: u16,
    pub ruling: i64,
    /// `agree` (true) or `appeal`.
    pub agree: bool,
    pub comment: Option<String>,
    pub now: DateTime<Utc>,
}

/// A seat's score and chips before and after a ruling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatDiff {
    pub seat: u8,
    pub player: String,
    pub score_before: i64,
    pub score_after: i64,
    pub chips_before: i64,
    pub chips_after: i64,
}

/// A ledger account (a seat, a fund, a pool, the bank) whose balance a ruling moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountDiff {
    pub account: String,
    pub before: i64,
    pub after: i64,
}

/// A later deal whose score-sheet line a ruling moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaterDeal {
    pub deal: u16,
    pub before: Value,
    pub after: Value,
}

/// A player of the session whose standing a ruling moved: net chips over every table, and
/// points over the tables of this table's game (none in a chip game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingDiff {
    pub player: String,
    pub chips_before: i64,
    pub chips_after: i64,
    pub points_before: Option<i64>,
    pub points_after: Option<i64>,
}

/// What a ruling moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diff {
    pub seats: Vec<SeatDiff>,
    pub accounts: Vec<AccountDiff>,
    pub later_deals: Vec<LaterDeal>,
    /// The session's standings that moved (none for a table outside a session).
    pub standings: Vec<StandingDiff>,
}

/// A table's rulings of one deal, with the names of its scorers.
#[derive(Debug, Clone)]
pub struct Rulings {
    pub table: TableRow,
    pub rulings: Vec<RulingRecord>,
    /// Scorers' names by `scorer:<id>`.
    pub names: HashMap<String, String>,
    /// In the answer to a ruling or an answer: the receipt of the chain as it leaves it.
    pub receipt: Option<Receipt>,
}

async fn names(conn: &mut PgConnection, table: TableKey) -> Result<HashMap<String, String>, ServiceError> {
    let mut names = HashMap::new();
    for scorer in store::scorers::list(&mut *conn, table).await? {
        names.insert(format!("scorer:{}", scorer.id), scorer.name);
    }
    Ok(names)
}

/// The rulings of deal `deal` of a table the caller may read (the API checks that).
///
/// # Errors
/// `Store(NotFound)`.
pub async fn list(pool: &PgPool, table: Uuid, deal: u16) -> Result<Rulings, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::tables::fetch(&mut conn, table).await?;
    let entries = store::rulings::entries(&mut conn, row.key()).await?;
    Ok(Rulings {
        rulings: records_of(&entries, deal),
        names: names(&mut conn, row.key()).await?,
        table: row,
        receipt: None,
    })
}

/// Rules on a finished deal: writes the ruling (and for `assigned` its correction first); the
/// answer is what `render` makes of the deal's rulings (the new one last) with the receipt of
/// the chain as it leaves it, kept under `key` when given. A retry with the key gets that first
/// answer and rules nothing.
///
/// # Errors
/// `Store(NotFound)`, `Forbidden` (not an organiser: a phone never rules), `SessionFinal`,
/// `IdempotencyKeyReused`, `Encode` when `render` fails,
/// `DealNotFound`, `DealNotFinished`, `InvalidRuling`, and for `assigned` what a correction
/// fails with (`InvalidMove`, `Rule`, `NotTheDeal`, `CorrectionConflicts`); in every case
/// nothing is written.
pub async fn rule<K: Kept>(
    pool: &PgPool,
    keys: &AuditKeys,
    ruling: Ruling,
    key: Option<&CreationKey>,
    render: impl FnOnce(Rulings) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    // Read before the transaction, as a correction does: it may want a connection of its own.
    keys.signing(pool).await?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::tables::lock(&mut tx, ruling.table).await?;
    super::access::require_table(&mut tx, ruling.by, &row, super::access::Capability::Organise).await?;
    if let Some(session) = row.session_id {
        super::finality::refuse_if_final(&mut tx, session, ruling.now).await?;
    }
    if let Some(first) = idempotency::first_answer_at_table(&mut tx, row.key(), key).await? {
        return Ok(first);
    }
    // A round closed before the ruling counted the deal: its result follows the ruling.
    let counting = super::tournaments::counting(&mut tx, &row, ruling.deal).await?;
    let now = Utc::now();
    let done: Result<(), ServiceError> =
        async { with_game!(game_of(&row)?, G => rule_as::<G>(&mut tx, &row, &ruling, now).await) }.await;
    done.map_err(|e| e.at_table(row.id))?;
    if let Some(counting) = counting {
        counting.amend(&mut tx, row.id).await?;
    }
    let out = answer(&mut tx, pool, keys, row.id, ruling.deal, now).await?;
    let made = render(out).map_err(ServiceError::Encode)?;
    let made = idempotency::keep_at_table(&mut tx, row.key(), key, made).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(made))
}

/// Records a phone's (or a member's) answer to a ruling; the ruling stands either way. The
/// answer is what `render` makes of the deal's rulings, kept under `key` as [`rule`]'s is.
///
/// # Errors
/// `Store(NotFound)` (another table's phone among them), `Forbidden`, `SessionFinal`,
/// `IdempotencyKeyReused`, `RulingNotFound`, `Encode`; nothing is written then.
pub async fn answer_ruling<K: Kept>(
    pool: &PgPool,
    keys: &AuditKeys,
    a: Answer,
    key: Option<&CreationKey>,
    render: impl FnOnce(Rulings) -> Result<K, serde_json::Error>,
) -> Result<Outcome<K>, ServiceError> {
    keys.signing(pool).await?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::tables::lock(&mut tx, a.table).await?;
    super::access::require_table(&mut tx, a.by, &row, super::access::Capability::Verify).await?;
    if let Some(session) = row.session_id {
        super::finality::refuse_if_final(&mut tx, session, a.now).await?;
    }
    if let Some(first) = idempotency::first_answer_at_table(&mut tx, row.key(), key).await? {
        return Ok(first);
    }
    let entries = store::rulings::entries(&mut tx, row.key()).await?;
    if !records_of(&entries, a.deal).iter().any(|r| r.seq == a.ruling) {
        return Err(ServiceError::RulingNotFound(a.ruling));
    }
    let now = Utc::now();
    let body = json!({
        "deal": a.deal,
        "ruling": a.ruling,
        "answer": if a.agree { "agree" } else { "appeal" },
        "comment": a.comment,
    });
    let by = a.by.recorded_by();
    let seq = row.version + 1;
    let events = json!([]);
    let plan = RulingWrite {
        entry: NewRulingEntry {
            seq,
            kind: "response",
            body: &body,
            events: &events,
            recorded_by: &by,
        },
        bookings: Vec::new(),
        announce: Announcement {
            table: row.id,
            session: row.session_id,
            seq,
        },
        events: Vec::new(),
        club: row.club_id,
        now,
    };
    let seal = Linked {
        table: &row,
        finished: row.finished,
    };
    writer::write_held(&mut tx, row.key(), Held::Ruling(plan), seal).await?;
    let out = answer(&mut tx, pool, keys, row.id, a.deal, now).await?;
    let made = render(out).map_err(ServiceError::Encode)?;
    let made = idempotency::keep_at_table(&mut tx, row.key(), key, made).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Outcome::Fresh(made))
}

async fn answer(
    tx: &mut Tx<'_>,
    pool: &PgPool,
    keys: &AuditKeys,
    table: Uuid,
    deal: u16,
    now: DateTime<Utc>,
) -> Result<Rulings, ServiceError> {
    let row = store::tables::fetch(&mut *tx, table).await?;
    let entries = store::rulings::entries(&mut *tx, row.key()).await?;
    let receipt = keys.receipt_for(pool, &mut *tx, row.key(), row.session_id, now).await?;
    Ok(Rulings {
        rulings: records_of(&entries, deal),
        names: names(&mut *tx, row.key()).await?,
        table: row,
        receipt: Some(receipt),
    })
}

/// A table as the diff compares it: each seat's score, every account's balance, the score
/// sheet's lines.
struct Standing {
    scores: Vec<i64>,
    balances: BTreeMap<String, i64>,
    lines: Vec<Value>,
}

async fn standing<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<Standing, ServiceError> {
    let moves = store::tables::effective_moves(&mut *conn, table.key(), 0).await?;
    let mut game: G = fold::initial(table)?;
    let mut lines = Vec::new();
    for row in &moves {
        game.replay(&stored_move::<G>(row)?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(row.seq, &v)))?;
        for line in game.take_deal_lines() {
            lines.push(to_json(&line)?);
        }
    }
    let entries = store::rulings::entries(&mut *conn, table.key()).await?;
    let totals = game.running_totals();
    let adjust = adjusted(&entries, totals.len(), None);
    let scores = totals.iter().zip(&adjust).map(|(t, a)| t + a).collect();
    let mut balances = BTreeMap::new();
    for b in store::ledger::bookings(&mut *conn, table.key(), None).await? {
        for p in &b.postings {
            *balances.entry(p.account.to_string()).or_insert(0) += p.amount.get();
        }
    }
    Ok(Standing {
        scores,
        balances,
        lines,
    })
}

fn seat_account(seat: usize) -> String {
    Account::Seat(Seat::new(u8::try_from(seat).unwrap_or(u8::MAX))).to_string()
}

/// `x` percent of `best`, rounded half up.
fn percent_of(best: i64, percent: i64) -> i64 {
    let x = best * percent;
    x.div_euclid(100) + i64::from(x.rem_euclid(100) >= 50)
}

fn invalid(detail: impl Into<String>) -> ServiceError {
    ServiceError::InvalidRuling(detail.into())
}

/// Works out the ruling's plan (for `assigned`, after writing its correction) and has the
/// writer write it.
async fn rule_as<G: Game>(
    tx: &mut Tx<'_>,
    table: &TableRow,
    r: &Ruling,
    at: DateTime<Utc>,
) -> Result<(), ServiceError> {
    super::history::back_fill::<G>(tx, table).await?;
    let deal = r.deal;
    if !played::<G>(tx, table, deal).await?.finished {
        return Err(ServiceError::DealNotFinished(deal));
    }
    let seats = table.players.len();
    let check_seat = |s: u8| -> Result<usize, ServiceError> {
        let i = usize::from(s);
        if i < seats {
            Ok(i)
        } else {
            Err(invalid(format!(
                "seat {s} is not at this table: seats are 0 to {}",
                seats - 1
            )))
        }
    };
    // Checked before anything is written, the correction of `assigned` included.
    match &r.kind {
        Kind::Average { seats: named, percent } => {
            if !(0..=100).contains(percent) {
                return Err(invalid("an average's percent is 0 to 100"));
            }
            let mut seen = HashSet::new();
            for s in named {
                check_seat(*s)?;
                if !seen.insert(*s) {
                    return Err(invalid(format!("seat {s} is named twice")));
                }
            }
        }
        Kind::Split { results } => {
            if results.is_empty() {
                return Err(invalid("a split gives at least one seat its result"));
            }
            let mut seen = HashSet::new();
            for (s, _) in results {
                check_seat(*s)?;
                if !seen.insert(*s) {
                    return Err(invalid(format!("seat {s} is given two results")));
                }
            }
        }
        Kind::Assigned { moves } if moves.is_empty() => {
            return Err(invalid("an assigned result is the deal's moves: give at least one"));
        }
        Kind::Assigned { .. } | Kind::Void => {}
    }

    let mut before = standing::<G>(tx, table).await?;
    let standings = match table.session_id {
        Some(session) => Some(super::sessions::standings_in(&mut *tx, session).await?),
        None => None,
    };
    // `assigned` is a correction of the deal with the director's moves: written first, in this
    // transaction; the ruling's entry follows it.
    let mut correction = None;
    let table = if let Kind::Assigned { moves } = &r.kind {
        let c = Correction {
            table: table.id,
            by: r.by,
            deal,
            moves: moves.clone(),
            expected_version: table.version,
            reason: format!("ruling: {}", r.reason),
            now: r.now,
        };
        corrections::correct_as::<G>(tx, table, &c, at).await?;
        let row = store::tables::fetch_by_key(tx, table.key()).await?;
        correction = Some(row.version);
        row
    } else {
        table.clone()
    };
    let played = played::<G>(tx, &table, deal).await?;
    let entries = store::rulings::entries(&mut *tx, table.key()).await?;
    let stored = store::ledger::bookings(&mut *tx, table.key(), None).await?;
    let ruling_seqs: HashSet<i64> = entries.iter().map(|e| e.seq).collect();
    // A chip game books; a points game never does.
    let chip_game = !stored.is_empty();

    // The deal as played, per seat (points), and what earlier rulings of it adjusted.
    let mut game = played.start.clone();
    let start_totals = game.running_totals();
    for row in &played.moves[played.range.clone()] {
        game.replay(&stored_move::<G>(row)?)
            .map_err(|v| ServiceError::Corrupt(no_longer_replays(row.seq, &v)))?;
    }
    let as_played: Vec<i64> = game
        .running_totals()
        .iter()
        .zip(&start_totals)
        .map(|(after, before)| after - before)
        .collect();
    let earlier = adjusted(&entries, seats, Some(deal));
    let now_points: Vec<i64> = as_played.iter().zip(&earlier).map(|(p, e)| p + e).collect();
    // The deal's net per account as it stands (its rulings' bookings included).
    let mut net: BTreeMap<String, i64> = BTreeMap::new();
    let mut ruled_net: BTreeMap<String, i64> = BTreeMap::new();
    for b in stored.iter().filter(|b| b.deal == Some(i32::from(deal))) {
        for p in &b.postings {
            *net.entry(p.account.to_string()).or_insert(0) += p.amount.get();
            if ruling_seqs.contains(&b.move_seq) {
                *ruled_net.entry(p.account.to_string()).or_insert(0) += p.amount.get();
            }
        }
    }
    for s in 0..seats {
        net.entry(seat_account(s)).or_insert(0);
    }

    // What the ruling makes of the deal: each seat's points, each account's net chips.
    let mut target_points = now_points.clone();
    let mut target_net = net.clone();
    match &r.kind {
        Kind::Assigned { .. } => {
            // The deal as the director's moves play it, with no earlier ruling's adjustment.
            target_points.clone_from(&as_played);
            for (account, v) in &ruled_net {
                if let Some(t) = target_net.get_mut(account) {
                    *t -= v;
                }
            }
        }
        Kind::Void => {
            target_points.iter_mut().for_each(|p| *p = 0);
            target_net.values_mut().for_each(|v| *v = 0);
        }
        Kind::Average { seats: named, percent } => {
            let named: Vec<usize> = if named.is_empty() {
                (0..seats).collect()
            } else {
                named.iter().map(|s| usize::from(*s)).collect()
            };
            let best = as_played.iter().copied().max().unwrap_or(0);
            for &s in &named {
                target_points[s] = percent_of(best, *percent);
            }
            if named.len() == seats {
                target_net.values_mut().for_each(|v| *v = 0);
            } else {
                // The averaged seats' chips are shared by the others, so that the deal still
                // sums to zero: equal shares, the remainder to the lowest seats first.
                let freed: i64 = named
                    .iter()
                    .map(|&s| net.get(&seat_account(s)).copied().unwrap_or(0))
                    .sum();
                for &s in &named {
                    target_net.insert(seat_account(s), 0);
                }
                let others: Vec<usize> = (0..seats).filter(|s| !named.contains(s)).collect();
                let n = i64::try_from(others.len()).unwrap_or(1);
                let (share, rest) = (freed.div_euclid(n), freed.rem_euclid(n));
                for (i, &s) in others.iter().enumerate() {
                    let extra = i64::from(i64::try_from(i).unwrap_or(i64::MAX) < rest);
                    *target_net.entry(seat_account(s)).or_insert(0) += share + extra;
                }
            }
        }
        Kind::Split { results } => {
            for (s, v) in results {
                target_points[usize::from(*s)] = *v;
            }
            if chip_game {
                if results.len() != seats {
                    return Err(invalid(format!(
                        "a split in a chip game gives every seat its net chips: {seats} results"
                    )));
                }
                let sum: i64 = results.iter().map(|(_, v)| v).sum();
                if sum != 0 {
                    return Err(invalid(format!(
                        "a split's net chips sum to {sum}: what one seat wins another pays, so they sum to 0"
                    )));
                }
                target_net.values_mut().for_each(|v| *v = 0);
                for (s, v) in results {
                    target_net.insert(seat_account(usize::from(*s)), *v);
                }
            }
        }
    }

    // The ruling's adjustments: points per seat, and the booking that brings each account to
    // its target (a chip game's seats' scores follow their chips).
    let mut postings = Vec::new();
    for (account, target) in &target_net {
        let delta = target - net.get(account).copied().unwrap_or(0);
        if delta != 0 {
            let parsed = Account::parse(account).map_err(|e| ServiceError::Corrupt(e.to_string()))?;
            postings.push((account.clone(), parsed, delta));
        }
    }
    let scores: Vec<i64> = if chip_game {
        (0..seats)
            .map(|s| {
                let a = seat_account(s);
                target_net.get(&a).copied().unwrap_or(0) - net.get(&a).copied().unwrap_or(0)
            })
            .collect()
    } else {
        target_points.iter().zip(&now_points).map(|(t, n)| t - n).collect()
    };
    let seq = table.version + 1;
    let memo = format!("ruling: {} of deal {deal}", r.kind.name());
    let booking = (!postings.is_empty()).then(|| {
        json!({
            "memo": memo,
            "postings": postings.iter().map(|(a, _, d)| json!([a, d])).collect::<Vec<_>>(),
        })
    });
    let mut bookings = Vec::new();
    if !postings.is_empty() {
        let booked = Booking::new(
            memo.clone(),
            postings.iter().map(|(_, account, d)| Posting {
                account: *account,
                amount: Chips::new(*d),
            }),
        )?;
        bookings.push(NewBooking {
            move_seq: seq,
            deal: Some(i32::from(deal)),
            booking: booked,
            reverses: None,
        });
    }
    let mut body = json!({
        "deal": deal,
        "kind": r.kind.name(),
        "reason": r.reason,
        "scores": scores,
        "booking": booking,
    });
    match &r.kind {
        Kind::Assigned { moves } => {
            // Not `moves`: the log's entry would then read as a correction's.
            body["assigned_moves"] = Value::Array(moves.clone());
            body["correction"] = json!(correction);
        }
        Kind::Average { seats: named, percent } => {
            body["seats"] = json!(named);
            body["percent"] = json!(percent);
        }
        Kind::Split { results } => {
            body["results"] = results.iter().map(|(s, v)| json!({"seat": s, "result": v})).collect();
        }
        Kind::Void => {}
    }

    // The diff: the table before the ruling (its correction included) and after it.
    let now = if correction.is_some() {
        standing::<G>(tx, &table).await?
    } else {
        Standing {
            scores: before.scores.clone(),
            balances: before.balances.clone(),
            lines: before.lines.clone(),
        }
    };
    let after_lines = now.lines;
    let mut after_scores = now.scores;
    let mut after_balances = now.balances;
    for (s, d) in after_scores.iter_mut().zip(&scores) {
        *s += d;
    }
    for (account, _, d) in &postings {
        *after_balances.entry(account.clone()).or_insert(0) += d;
    }
    let seat_diffs: Vec<SeatDiff> = (0..seats)
        .map(|s| SeatDiff {
            seat: u8::try_from(s).unwrap_or(u8::MAX),
            player: table.players.get(s).cloned().unwrap_or_default(),
            score_before: before.scores.get(s).copied().unwrap_or(0),
            score_after: after_scores.get(s).copied().unwrap_or(0),
            chips_before: before.balances.get(&seat_account(s)).copied().unwrap_or(0),
            chips_after: after_balances.get(&seat_account(s)).copied().unwrap_or(0),
        })
        .collect();
    // A player's standing moves by what their seats at this table moved.
    let mut standing_diffs = Vec::new();
    for player in standings.iter().flat_map(|s| &s.players) {
        let mut chips = 0;
        let mut points = 0;
        for seat in player.seats.iter().filter(|p| p.table == table.id) {
            if let Some(d) = seat_diffs.iter().find(|d| d.seat == seat.seat) {
                chips += d.chips_after - d.chips_before;
                points += d.score_after - d.score_before;
            }
        }
        let had = player.points.iter().find(|(g, _)| *g == table.game).map(|(_, p)| *p);
        let points_after = if chip_game { had } else { had.map(|p| p + points) };
        if chips != 0 || points_after != had {
            standing_diffs.push(StandingDiff {
                player: player.name.clone(),
                chips_before: player.chips,
                chips_after: player.chips + chips,
                points_before: had,
                points_after,
            });
        }
    }
    let diff = Diff {
        seats: seat_diffs,
        standings: standing_diffs,
        accounts: {
            let names: std::collections::BTreeSet<&String> =
                before.balances.keys().chain(after_balances.keys()).collect();
            names
                .into_iter()
                .filter_map(|a| {
                    let (b, n) = (
                        before.balances.get(a).copied().unwrap_or(0),
                        after_balances.get(a).copied().unwrap_or(0),
                    );
                    (b != n).then(|| AccountDiff {
                        account: a.clone(),
                        before: b,
                        after: n,
                    })
                })
                .collect()
        },
        later_deals: {
            let mut later = Vec::new();
            let old = std::mem::take(&mut before.lines);
            for (i, after) in after_lines.iter().enumerate() {
                let n = u16::try_from(i + 1).unwrap_or(u16::MAX);
                let was = old.get(i).cloned().unwrap_or(Value::Null);
                if n > deal && &was != after {
                    later.push(LaterDeal {
                        deal: n,
                        before: was,
                        after: after.clone(),
                    });
                }
            }
            later
        },
    };
    // Kept in the entry's body, which the chain covers: a log entry's events are a game's.
    body["diff"] = to_json(&diff)?;
    let events = json!([]);
    let by = r.by.recorded_by();
    let plan = RulingWrite {
        entry: NewRulingEntry {
            seq,
            kind: r.kind.name(),
            body: &body,
            events: &events,
            recorded_by: &by,
        },
        bookings,
        announce: Announcement {
            table: table.id,
            session: table.session_id,
            seq,
        },
        events: vec![super::webhooks::deal_event(
            super::webhooks::DEAL_RULED,
            &table,
            deal,
            at,
        )],
        club: table.club_id,
        now: at,
    };
    let seal = Linked {
        table: &table,
        finished: table.finished,
    };
    writer::write_held(tx, table.key(), Held::Ruling(plan), seal).await
}
