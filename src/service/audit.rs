//! The audit: the whole log replayed from the set-up and checked against what was stored.
//!
//! Invariants: read-only, in one consistent snapshot of the database; a discrepancy is a
//! finding (a sentence in `problems`), never an error, so an auditor always gets a report.
//! What the ledger should hold is worked out from the replay's events alone, since settlements
//! are a pure function of the events. The score-sheet lines stored with the moves are checked
//! against the lines the replay finishes, as part of the state.

use std::collections::{BTreeMap, HashSet};

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::fold::{self, stored_move};
use super::{game_of, read_table, to_json, ServiceError};
use crate::rules::games::with_game;
use crate::rules::{Game, Settlement};
use crate::store::{self, tables::TableRow};

/// What a full replay of a table's log found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    pub moves_replayed: usize,
    /// The replayed state equals the state read through snapshots.
    pub state_matches: bool,
    /// Every stored move's events equal the events the engine gives on replay.
    pub events_match: bool,
    /// The bookings in force (not reversed) equal the settlements the replay produces.
    pub ledger_matches: bool,
    /// A sentence per discrepancy.
    pub problems: Vec<String>,
}

/// Audits a table; returns its row (as of the audit) and the findings.
///
/// # Errors
/// `Store(NotFound)` when there is no such table; on database failure.
pub async fn audit(pool: &PgPool, id: Uuid) -> Result<(TableRow, Audit), ServiceError> {
    let (mut tx, row) = read_table(pool, id).await?;
    let audit = with_game!(game_of(&row)?, G => audit_as::<G>(&mut tx, &row).await?);
    Ok((row, audit))
}

/// A booking as compared: its cause, deal, memo and postings, one per account, none of zero
/// (as a booking stores them).
pub(super) type Key = (i64, Option<i32>, String, Vec<(String, i64)>);

pub(super) fn key(seq: i64, deal: Option<i32>, memo: &str, postings: impl Iterator<Item = (String, i64)>) -> Key {
    let mut merged: BTreeMap<String, i64> = BTreeMap::new();
    for (account, amount) in postings {
        *merged.entry(account).or_default() += amount;
    }
    let postings = merged.into_iter().filter(|(_, amount)| *amount != 0).collect();
    (seq, deal, memo.to_owned(), postings)
}

fn settled(seq: i64, settlements: Vec<Settlement>, into: &mut Vec<Key>) {
    for s in settlements {
        let postings = s.postings.iter().map(|(a, c)| (a.to_string(), c.get()));
        into.push(key(seq, s.deal.map(i32::from), &s.memo, postings));
    }
}

async fn audit_as<G: Game>(conn: &mut PgConnection, table: &TableRow) -> Result<Audit, ServiceError> {
    let mut problems = Vec::new();
    let mut game: G = fold::initial(table)?;
    let mut expected: Vec<Key> = Vec::new();
    settled(0, game.opening_settlements(), &mut expected);
    let moves = store::tables::effective_moves(&mut *conn, table.id, 0).await?;
    let mut events_match = true;
    let mut replayed = 0;
    let mut lines: Vec<G::DealLine> = Vec::new();
    let corrections = store::deals::corrections(&mut *conn, table.id, None).await?;
    let mut deal = None;
    for row in &moves {
        deal = game.deal_number().or(deal);
        match game.apply(&stored_move::<G>(row)?) {
            Ok(events) => {
                replayed += 1;
                if &to_json(&events)? != super::corrections::events_in_force(&corrections, row.seq, deal, &row.events) {
                    events_match = false;
                    problems.push(format!("move {}: the stored events differ from the replay's", row.seq));
                }
                settled(row.seq, G::settlements(&events), &mut expected);
                lines.extend(game.take_deal_lines());
            }
            Err(v) => {
                problems.push(fold::no_longer_replays(row.seq, &v));
                break;
            }
        }
    }
    let stored = store::ledger::bookings(&mut *conn, table.id, None).await?;
    let reversed: HashSet<i64> = stored.iter().filter_map(|b| b.reverses).collect();
    let mut in_force: Vec<Key> = stored
        .iter()
        .filter(|b| b.reverses.is_none() && !reversed.contains(&b.id))
        .map(|b| {
            key(
                b.move_seq,
                b.deal,
                &b.memo,
                b.postings.iter().map(|p| (p.account.to_string(), p.amount.get())),
            )
        })
        .collect();
    in_force.sort();
    expected.sort();
    let ledger_matches = in_force == expected;
    if !ledger_matches {
        problems.push(format!(
            "the ledger holds {} bookings in force where the replay books {}, or they differ",
            in_force.len(),
            expected.len()
        ));
    }
    let incremental: G = fold::current(conn, table).await?;
    let mut state_matches = incremental == game;
    if !state_matches {
        problems.push("the state read through snapshots differs from the full replay".into());
    }
    if super::history::in_force::<G>(conn, table).await? != lines {
        state_matches = false;
        problems.push("the score-sheet lines stored differ from the full replay's".into());
    }
    Ok(Audit {
        moves_replayed: replayed,
        state_matches,
        events_match,
        ledger_matches,
        problems,
    })
}
