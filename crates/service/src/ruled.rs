//! What a table's director's rulings say, read from its log (issue #42): a deal's rulings and
//! the answers to them, the points they adjust, whether an undo would reach into a ruled deal,
//! and what a printed result marks. Reads only; the rulings are made in `service::rulings`.
//! Kept apart from it so that the reads a correction, the standings and an undo need do not
//! need the use case that is itself a correction.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde_json::Value;
use tablekeeper_rules::Game;
use tablekeeper_store::rulings::RulingEntry;
use tablekeeper_store::tables::{TableKey, TableRow};
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError};
use uuid::Uuid;

use super::fold::{self, no_longer_replays, stored_move};
use super::ServiceError;

/// A phone's answer as recorded.
#[derive(Debug, Clone)]
pub struct AnswerRecord {
    pub seq: i64,
    pub agree: bool,
    pub comment: Option<String>,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

/// A ruling as recorded, with the answers given to it.
#[derive(Debug, Clone)]
pub struct RulingRecord {
    /// Its log entry: the ruling's id.
    pub seq: i64,
    pub deal: u16,
    pub kind: String,
    pub reason: String,
    /// The ruling as entered and what it adjusted: `seats`, `percent`, `results`,
    /// `assigned_moves`, `correction`, `scores`, `booking`, `diff`.
    pub body: Value,
    pub diff: Value,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
    pub answers: Vec<AnswerRecord>,
}

/// The rulings of deal `deal` among a table's ruling entries, with their answers.
pub(super) fn records_of(entries: &[RulingEntry], deal: u16) -> Vec<RulingRecord> {
    let of_deal = |e: &RulingEntry| e.body.get("deal").and_then(Value::as_u64) == Some(u64::from(deal));
    let mut out: Vec<RulingRecord> = entries
        .iter()
        .filter(|e| e.kind != "response" && of_deal(e))
        .map(|e| RulingRecord {
            seq: e.seq,
            deal,
            kind: e.kind.clone(),
            reason: e
                .body
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            body: e.body.clone(),
            diff: e.body.get("diff").cloned().unwrap_or(Value::Null),
            recorded_by: e.recorded_by.clone(),
            recorded_at: e.recorded_at,
            answers: Vec::new(),
        })
        .collect();
    for e in entries.iter().filter(|e| e.kind == "response") {
        let ruling = e.body.get("ruling").and_then(Value::as_i64);
        if let Some(r) = out.iter_mut().find(|r| Some(r.seq) == ruling) {
            r.answers.push(AnswerRecord {
                seq: e.seq,
                agree: e.body.get("answer").and_then(Value::as_str) == Some("agree"),
                comment: e.body.get("comment").and_then(Value::as_str).map(str::to_owned),
                recorded_by: e.recorded_by.clone(),
                recorded_at: e.recorded_at,
            });
        }
    }
    out
}

/// Whether deal `deal` has a ruling.
pub(super) async fn is_ruled(conn: &mut PgConnection, table: TableKey, deal: u16) -> Result<bool, ServiceError> {
    let entries = store::rulings::entries(conn, table).await?;
    Ok(!records_of(&entries, deal).is_empty())
}

/// Each seat's points adjustments by the table's rulings: what a points game's standings add to
/// the score sheet's totals (a chip game's are its ledger's, which holds them already).
///
/// # Errors
/// On database failure.
pub(super) async fn score_adjustments(
    conn: &mut PgConnection,
    table: TableKey,
    seats: usize,
) -> Result<Vec<i64>, ServiceError> {
    let entries = store::rulings::entries(conn, table).await?;
    Ok(adjusted(&entries, seats, None))
}

/// Refuses an undo of entry `target` when it belongs to a ruled deal: the ruling was made on
/// the deal as finished, and an undo would take it back into play under the ruling. Reads
/// nothing more for a table without rulings.
///
/// # Errors
/// `UndoRuled`; `Corrupt` when the log does not replay.
pub(super) async fn refuse_undo_into_ruled<G: Game>(
    conn: &mut PgConnection,
    table: &TableRow,
    target: i64,
) -> Result<(), ServiceError> {
    let entries = store::rulings::entries(&mut *conn, table.key()).await?;
    let ruled: HashSet<u64> = entries
        .iter()
        .filter(|e| e.kind != "response")
        .filter_map(|e| e.body.get("deal")?.as_u64())
        .collect();
    if ruled.is_empty() {
        return Ok(());
    }
    let row = store::tables::move_row(&mut *conn, table.key(), target).await?;
    let deal = if row.entry == "correction" {
        row.body.get("deal").and_then(Value::as_u64)
    } else {
        // The deal a move is of, as `corrections::played` numbers it.
        let moves = store::tables::effective_moves(&mut *conn, table.key(), 0).await?;
        let mut game: G = fold::initial(table)?;
        let mut last = None;
        let mut found = None;
        for m in &moves {
            let of = game.deal_number().or(last);
            if m.seq == target {
                found = of.map(u64::from);
                break;
            }
            game.replay(&stored_move::<G>(m)?)
                .map_err(|v| ServiceError::Corrupt(no_longer_replays(m.seq, &v)))?;
            game.take_deal_lines();
            last = of;
        }
        found
    };
    match deal.filter(|d| ruled.contains(d)).and_then(|d| u16::try_from(d).ok()) {
        Some(d) => Err(ServiceError::UndoRuled(d)),
        None => Ok(()),
    }
}

/// Each seat's score adjustments by the table's rulings so far.
pub(crate) fn adjusted(entries: &[RulingEntry], seats: usize, deal: Option<u16>) -> Vec<i64> {
    let mut sum = vec![0; seats];
    for e in entries.iter().filter(|e| e.kind != "response") {
        if deal.is_some_and(|d| e.body.get("deal").and_then(Value::as_u64) != Some(u64::from(d))) {
            continue;
        }
        if let Some(scores) = e.body.get("scores").and_then(Value::as_array) {
            for (s, v) in sum.iter_mut().zip(scores) {
                *s += v.as_i64().unwrap_or(0);
            }
        }
    }
    sum
}

/// A ruling as a results sheet marks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    pub deal: u16,
    pub kind: String,
    pub reason: String,
}

/// The rulings of each of `tables` that has any, oldest first: what a printed result marks.
///
/// # Errors
/// `Store(NotFound)` for a table that does not exist.
pub async fn of_tables(pool: &PgPool, tables: &[Uuid]) -> Result<HashMap<Uuid, Vec<Marked>>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let mut out = HashMap::new();
    for id in tables {
        let row = store::tables::fetch(&mut conn, *id).await?;
        let marked: Vec<Marked> = store::rulings::entries(&mut conn, row.key())
            .await?
            .into_iter()
            .filter(|e| e.kind != "response")
            .map(|e| Marked {
                deal: e
                    .body
                    .get("deal")
                    .and_then(Value::as_u64)
                    .and_then(|d| u16::try_from(d).ok())
                    .unwrap_or(0),
                reason: e
                    .body
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                kind: e.kind,
            })
            .collect();
        if !marked.is_empty() {
            out.insert(*id, marked);
        }
    }
    Ok(out)
}
