//! Who changed what, when (issue #42): every change made to a session's results after they
//! were recorded, oldest first, with who made it, why, and what it changed.
//!
//! Invariants:
//! - Reads only, and only what was stored when the change was made: a correction's moves and
//!   the moves it replaced, the score sheet it kept and the sheet before it, the bookings it
//!   made; a ruling's diff as its entry holds it; what an undo voided and the bookings that
//!   reversed it; a close's and a reopening's times. Nothing is replayed, so a change reads
//!   the same however the table went on.
//! - The order is the store's (`store::changes::of_session`): time, then table, then seq; a
//!   page is a slice of it. Who may read it is decided before (`access::readable_session`), as
//!   for the session's other reads.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use tablekeeper_store::changes::ChangeRow;
use tablekeeper_store::ledger::StoredBooking;
use tablekeeper_store::tables::TableKey;
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError};
use uuid::Uuid;

use super::ServiceError;

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Correction,
    Ruling,
    RulingAnswer,
    Undo,
    Close,
    Reopen,
}

impl Kind {
    fn of(stored: &str) -> Result<Kind, ServiceError> {
        Ok(match stored {
            "correction" => Kind::Correction,
            "ruling" => Kind::Ruling,
            "ruling_answer" => Kind::RulingAnswer,
            "undo" => Kind::Undo,
            "close" => Kind::Close,
            "reopen" => Kind::Reopen,
            other => return Err(ServiceError::Corrupt(format!("a change of unknown kind {other:?}"))),
        })
    }
}

/// One change.
#[derive(Debug, Clone)]
pub struct Change {
    pub at: DateTime<Utc>,
    pub kind: Kind,
    /// The table whose log holds it; none for a close or a reopening (the session's).
    pub table: Option<Uuid>,
    /// The deal it is about, when what is stored names one.
    pub deal: Option<i32>,
    /// Its log entry; for a close or a reopening, the close's number.
    pub seq: i64,
    /// As the log names a recorder: `organiser:<user id>`, `scorer:<id>`.
    pub by: String,
    pub reason: Option<String>,
    /// What it did, in words.
    pub summary: String,
    /// What it changed (see [`of_session`]).
    pub diff: Value,
}

/// A page of a session's changes.
#[derive(Debug, Clone)]
pub struct Changes {
    pub changes: Vec<Change>,
    /// Whether more follow the page.
    pub more: bool,
    /// The names of the scorers of the session's tables that made a change, by `scorer:<id>`.
    pub names: HashMap<String, String>,
}

/// The changes of the session `session`, `offset` on, at most `limit` of them. The diff is
/// - for a correction: `moves_before` (the moves it replaced, each `{seq, kind, seat, move}`),
///   `moves_after` (its moves), `lines_before` and `lines_after` (the deal's score-sheet
///   line(s) as the sheet stood before it and as it kept it) and `bookings` (what it booked:
///   each reversal names the booking it `reverses`);
/// - for a ruling: the diff kept with it (each seat's score and chips before and after, the
///   accounts, later deals and standings that moved);
/// - for an answer to a ruling: the `ruling`, the `answer` and its `comment`;
/// - for an undo: `undone` (the entry it voided: `seq`, `entry`, `kind`, `move`) and
///   `bookings` (the reversals it booked);
/// - for a close or a reopening: the close's number and times.
///
/// # Errors
/// On database failure; `Corrupt` for a change whose stored rows do not read.
pub async fn of_session(pool: &PgPool, session: Uuid, limit: i64, offset: i64) -> Result<Changes, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let mut rows = store::changes::of_session(&mut conn, session, limit.saturating_add(1), offset).await?;
    let more = usize::try_from(limit).is_ok_and(|limit| rows.len() > limit);
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let mut tables = Tables::default();
    let mut changes = Vec::with_capacity(rows.len());
    for row in rows {
        changes.push(change(&mut conn, &mut tables, row).await?);
    }
    Ok(Changes {
        changes,
        more,
        names: tables.names,
    })
}

/// What is read once per table of a page: its bookings, and its scorers' names.
#[derive(Default)]
struct Tables {
    bookings: HashMap<Uuid, Vec<StoredBooking>>,
    named: Vec<Uuid>,
    names: HashMap<String, String>,
}

impl Tables {
    async fn bookings(&mut self, conn: &mut PgConnection, table: TableKey) -> Result<&[StoredBooking], ServiceError> {
        Ok(match self.bookings.entry(table.id) {
            Entry::Occupied(read) => read.into_mut(),
            Entry::Vacant(unread) => unread.insert(store::ledger::bookings(conn, table, None).await?),
        })
    }

    async fn name(&mut self, conn: &mut PgConnection, table: TableKey) -> Result<(), ServiceError> {
        if !self.named.contains(&table.id) {
            for scorer in store::scorers::list(conn, table).await? {
                self.names.insert(format!("scorer:{}", scorer.id), scorer.name);
            }
            self.named.push(table.id);
        }
        Ok(())
    }
}

async fn change(conn: &mut PgConnection, tables: &mut Tables, row: ChangeRow) -> Result<Change, ServiceError> {
    let kind = Kind::of(&row.kind)?;
    let key = match (row.table_id, row.club_no) {
        (Some(id), Some(club_no)) => Some(TableKey { id, club_no }),
        _ => None,
    };
    if let Some(key) = key {
        tables.name(conn, key).await?;
    }
    let deal_words = row.deal.map(|d| format!(" of deal {d}")).unwrap_or_default();
    let (summary, diff) = match (kind, key) {
        (Kind::Correction, Some(key)) => {
            let deal = row.deal.unwrap_or(0);
            let lines = store::changes::lines_around(conn, key, row.seq).await?;
            let of_deal = |line: &Value| line.get("deal").and_then(Value::as_i64) == Some(i64::from(deal));
            let lines_before: Vec<&Value> = lines
                .iter()
                .filter(|(seq, line)| *seq < row.seq && of_deal(line))
                .map(|(_, line)| line)
                .collect();
            let lines_after: Vec<&Value> = lines
                .iter()
                .filter(|(seq, line)| *seq == row.seq && of_deal(line))
                .map(|(_, line)| line)
                .collect();
            let made = match (row.first_booking, row.last_booking) {
                (Some(first), Some(last)) => booking_views(
                    tables
                        .bookings(conn, key)
                        .await?
                        .iter()
                        .filter(|b| (first..=last).contains(&b.id)),
                ),
                _ => Vec::new(),
            };
            (
                format!("corrected deal {deal}"),
                json!({
                    "moves_before": row.replaced.unwrap_or_else(|| json!([])),
                    "moves_after": row.body.get("moves").cloned().unwrap_or_else(|| json!([])),
                    "lines_before": lines_before,
                    "lines_after": lines_after,
                    "bookings": made,
                }),
            )
        }
        (Kind::Ruling, Some(_)) => {
            let ruling = row.entry_kind.as_deref().unwrap_or("ruling");
            (
                format!("{ruling} ruling{deal_words}"),
                row.body.get("diff").cloned().unwrap_or(Value::Null),
            )
        }
        (Kind::RulingAnswer, Some(_)) => {
            let ruling = row.body.get("ruling").cloned().unwrap_or(Value::Null);
            let answer = row.body.get("answer").and_then(Value::as_str).unwrap_or_default();
            let words = if answer == "agree" { "agreed with" } else { "appealed" };
            (
                format!("{words} ruling {ruling}{deal_words}"),
                json!({
                    "ruling": ruling,
                    "answer": answer,
                    "comment": row.body.get("comment").cloned().unwrap_or(Value::Null),
                }),
            )
        }
        (Kind::Undo, Some(key)) => {
            let entry = row.undone_entry.clone().unwrap_or_default();
            let voided = row.voids_seq.unwrap_or(0);
            let what = match (entry.as_str(), row.entry_kind.as_deref()) {
                ("move", Some(kind)) => format!("move {voided} ({kind})"),
                (entry, _) => format!("{entry} {voided}"),
            };
            let reversals = booking_views(
                tables
                    .bookings(conn, key)
                    .await?
                    .iter()
                    .filter(|b| b.move_seq == row.seq),
            );
            (
                format!("undid {what}{deal_words}"),
                json!({
                    "undone": {"seq": voided, "entry": entry, "kind": row.entry_kind, "move": row.body},
                    "bookings": reversals,
                }),
            )
        }
        (Kind::Close, _) => (
            format!("closed (close {})", row.seq),
            json!({"close": row.seq, "closed_at": row.closed_at, "final_at": row.final_at}),
        ),
        (Kind::Reopen, _) => (
            format!("reopened close {}", row.seq),
            json!({"close": row.seq, "closed_at": row.closed_at, "final_at": row.final_at, "reopened_at": row.at}),
        ),
        (_, None) => {
            return Err(ServiceError::Corrupt(format!(
                "a {} of the log read without its table",
                row.kind
            )))
        }
    };
    Ok(Change {
        at: row.at,
        kind,
        table: row.table_id,
        deal: row.deal,
        seq: row.seq,
        by: row.by,
        reason: row.reason,
        summary,
        diff,
    })
}

/// Bookings as the table's ledger shows them.
fn booking_views<'a>(bookings: impl Iterator<Item = &'a StoredBooking>) -> Vec<Value> {
    bookings
        .map(|b| {
            json!({
                "id": b.id,
                "move_seq": b.move_seq,
                "deal": b.deal,
                "memo": b.memo,
                "reverses": b.reverses,
                "postings": b.postings.iter()
                    .map(|p| json!({"account": p.account.to_string(), "amount": p.amount.get()}))
                    .collect::<Vec<_>>(),
            })
        })
        .collect()
}
