//! The hash chain of a table: its set-up, every move-log entry and every ledger booking linked
//! by SHA-256, so that an entry changed, removed, added or moved after the fact is found.
//!
//! Invariants:
//! - The chain's order: the set-up first, then the bookings caused by entry 0 (the opening),
//!   then for every log entry (moves and voids) in seq order the entry and the bookings it
//!   caused in id order. An entry's canonical content is the compact JSON of its stored fields
//!   with object keys sorted ([`canonical`]); timestamps as RFC 3339 in microseconds (what
//!   PostgreSQL keeps).
//! - The canonical content is versioned and every link keeps the version it hashed
//!   ([`CONTENT_VERSION`]); a link is recomputed with its own version's content, so chains
//!   stored before a version stay intact, and new links cover what the new version adds.
//! - A link's `hash` is SHA-256(`prev_hash` ‖ `content_hash`); the set-up's `prev_hash` is 32
//!   zero bytes. The table's head is the last link's hash.
//! - Links are written in the transaction of the entries they cover ([`extend`]), after them;
//!   a table stored before the chain existed is linked from its set-up by its next entry.
//! - Everything but [`extend`] is pure, so the offline verifier recomputes chains without a
//!   database.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use sqlx::PgConnection;

use super::ServiceError;
use crate::ledger::Booking;
use crate::store;
use crate::store::chain::{LinkRow, LoggedEntry};
use crate::store::deals::CorrectionRow;
use crate::store::ledger::StoredBooking;
use crate::store::tables::{MoveRow, TableRow};

/// A SHA-256 digest.
pub type Hash = [u8; 32];

/// The version of the canonical content that new links hash.
///
/// 1. A log entry's stored fields: kind, seat, body, events, the entry it voids, who recorded
///    it and when.
/// 2. Adds what decides play order once a deal is corrected: the entry's `position` and
///    `part_of`, and for a correction entry its own row (`correction`: the deal, the reason, the
///    moves it supersedes, the later moves' events it re-derived, the bookings it made), so that
///    a corrected entry moved, re-parented or un-superseded breaks the chain at that entry.
///
/// The set-up and bookings read the same in both. (The move path's one statement relies on
/// `chain_links.content_version`'s default being this number.)
pub const CONTENT_VERSION: i16 = 2;

/// What a link covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `table`, `move` or `booking`.
    pub kind: &'static str,
    /// The move's seq, the booking's id, 0 for the set-up.
    pub reference: i64,
    /// The canonical content at [`CONTENT_VERSION`].
    pub content: Value,
    /// Version 1's content, where it differs.
    legacy: Option<Value>,
    order: (i64, u8, i64),
}
impl Entry {
    /// The table's set-up: what it was opened as.
    pub fn table(row: &TableRow) -> Entry {
        Entry {
            kind: "table",
            reference: 0,
            content: json!({
                "table": row.id,
                "owner": row.owner_id,
                "session": row.session_id,
                "game": row.game,
                "players": row.players,
                "options": row.options,
                "created_at": timestamp(&row.created_at),
            }),
            legacy: None,
            order: (-1, 0, 0),
        }
    }

    /// A log entry (a move, a void or a correction), as stored; who recorded it and when
    /// included, and (from version 2) its place in play order and, for a correction entry,
    /// `correction`: its row.
    pub fn log(table: &TableRow, m: &LoggedEntry, correction: Option<&CorrectionRow>) -> Entry {
        let mut content = json!({
            "table": table.id,
            "seq": m.seq,
            "entry": m.entry,
            "kind": m.kind,
            "seat": m.seat,
            "body": m.body,
            "events": m.events,
            "voids_seq": m.voids_seq,
            "recorded_by": m.recorded_by,
            "recorded_at": timestamp(&m.recorded_at),
        });
        let legacy = content.clone();
        if let Value::Object(fields) = &mut content {
            fields.insert("position".into(), json!(m.position));
            fields.insert("part_of".into(), json!(m.part_of));
            fields.insert(
                "correction".into(),
                correction.map_or(Value::Null, |c| {
                    json!({
                        "deal": c.deal,
                        "reason": c.reason,
                        "supersedes": c.supersedes,
                        "events": c.events,
                        "first_booking": c.first_booking,
                        "last_booking": c.last_booking,
                    })
                }),
            );
        }
        Entry {
            kind: "move",
            reference: m.seq,
            content,
            legacy: Some(legacy),
            order: (m.seq, 0, m.seq),
        }
    }

    /// A booking with its postings, as stored.
    pub fn booking(table: &TableRow, b: &StoredBooking) -> Entry {
        let mut postings: Vec<(String, i64)> = b
            .postings
            .iter()
            .map(|p| (p.account.to_string(), p.amount.get()))
            .collect();
        postings.sort();
        Entry {
            kind: "booking",
            reference: b.id,
            content: json!({
                "table": table.id,
                "id": b.id,
                "move_seq": b.move_seq,
                "deal": b.deal,
                "memo": b.memo,
                "reverses": b.reverses,
                "created_at": timestamp(&b.created_at),
                "postings": postings,
            }),
            legacy: None,
            order: (b.move_seq, 1, b.id),
        }
    }

    /// The content as version `version` of the canonical form has it; None for a version this
    /// engine does not know.
    pub fn content(&self, version: i16) -> Option<&Value> {
        match version {
            1 => Some(self.legacy.as_ref().unwrap_or(&self.content)),
            CONTENT_VERSION => Some(&self.content),
            _ => None,
        }
    }

    /// How findings name the entry.
    pub fn describe(kind: &str, reference: i64) -> String {
        match kind {
            "table" => "the table's set-up".to_owned(),
            "move" => format!("log entry {reference}"),
            _ => format!("booking {reference}"),
        }
    }
}

fn timestamp(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The compact JSON of a value with every object's keys sorted: the same bytes for the same
/// content however it was stored or sent.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// SHA-256 of bytes.
pub fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The entries of a table in chain order; `corrections` holds the rows of the correction
/// entries among `log` (others are not looked at).
pub fn entries(
    table: &TableRow,
    log: &[LoggedEntry],
    corrections: &[CorrectionRow],
    bookings: &[StoredBooking],
) -> Vec<Entry> {
    let mut all: Vec<Entry> = Vec::with_capacity(1 + log.len() + bookings.len());
    all.push(Entry::table(table));
    all.extend(log.iter().map(|m| {
        let correction = (m.entry == "correction")
            .then(|| corrections.iter().find(|c| c.seq == m.seq))
            .flatten();
        Entry::log(table, m, correction)
    }));
    all.extend(bookings.iter().map(|b| Entry::booking(table, b)));
    all.sort_by_key(|e| e.order);
    all
}

/// `entries` (as [`entries`] sorts them) in the order the table's links hold them, each with
/// the content version of its link, the unlinked ones after, in their own order and at
/// [`CONTENT_VERSION`]. The chain grows in the order entries were written, which a sort on the
/// entries alone cannot always tell: a correction books, in its own transaction, for moves
/// recorded long before it. A changed order is still caught: the links' hashes follow each
/// other, and every entry's content names its seq or id.
pub fn in_link_order(entries: Vec<Entry>, links: &[LinkRow]) -> Vec<(Entry, i16)> {
    let at: std::collections::HashMap<(&str, i64), (i64, i16)> = links
        .iter()
        .map(|l| ((l.entry.as_str(), l.reference), (l.pos, l.version)))
        .collect();
    let mut placed: Vec<(i64, Entry, i16)> = entries
        .into_iter()
        .map(|e| {
            let (pos, version) = at
                .get(&(e.kind, e.reference))
                .copied()
                .unwrap_or((i64::MAX, CONTENT_VERSION));
            (pos, e, version)
        })
        .collect();
    placed.sort_by_key(|(pos, _, _)| *pos);
    placed.into_iter().map(|(_, e, version)| (e, version)).collect()
}

/// The links for `entries` (each with the content version to hash), following `after` (or
/// starting the chain when there is none).
pub fn link(after: Option<&LinkRow>, entries: &[(Entry, i16)]) -> Vec<LinkRow> {
    match after {
        Some(last) => link_after(last.pos, &last.hash, entries),
        None => link_after(-1, &[0; 32], entries),
    }
}

/// The links for `entries`, following the link at `pos` whose hash is `hash`.
pub fn link_after(pos: i64, hash: &[u8], entries: &[(Entry, i16)]) -> Vec<LinkRow> {
    let mut prev: Vec<u8> = hash.to_vec();
    let mut out = Vec::with_capacity(entries.len());
    for (pos, (entry, version)) in (pos + 1..).zip(entries) {
        // A version this engine does not know is named by `first_break`; the hash is moot.
        let content = entry.content(*version).unwrap_or(&entry.content);
        let content_hash = sha256(canonical(content).as_bytes());
        let mut joined = prev.clone();
        joined.extend_from_slice(&content_hash);
        let hash = sha256(&joined).to_vec();
        out.push(LinkRow {
            pos,
            entry: entry.kind.to_owned(),
            reference: entry.reference,
            version: *version,
            content_hash: content_hash.to_vec(),
            prev_hash: prev,
            hash: hash.clone(),
        });
        prev = hash;
    }
    out
}

/// The first discrepancy between the chain recomputed from the entries and the links stored
/// (or, with no links, the head alone), as a sentence; `None` when they agree.
pub fn first_break(recomputed: &[LinkRow], stored: Option<&[LinkRow]>, head: Option<&[u8]>) -> Option<String> {
    if let Some(stored) = stored {
        for i in 0..recomputed.len().max(stored.len()) {
            match (recomputed.get(i), stored.get(i)) {
                (_, Some(then)) if !(1..=CONTENT_VERSION).contains(&then.version) => {
                    return Some(format!(
                        "the chain breaks at link {i}: {} was linked with content version {}, which this engine does not know",
                        Entry::describe(&then.entry, then.reference),
                        then.version
                    ));
                }
                (Some(now), Some(then)) if now != then => {
                    let name = Entry::describe(&now.entry, now.reference);
                    return Some(
                        if (now.entry.as_str(), now.reference) != (then.entry.as_str(), then.reference) {
                            format!(
                            "the chain breaks at link {i}: it was made for {} but {name} is there now (entries removed, added or reordered)",
                            Entry::describe(&then.entry, then.reference)
                        )
                        } else if now.content_hash != then.content_hash {
                            format!("the chain breaks at link {i}: {name} was changed after it was recorded")
                        } else {
                            format!("the chain breaks at link {i} ({name}): the stored link does not follow the link before it")
                        },
                    );
                }
                (Some(now), None) => {
                    return Some(format!(
                        "the chain breaks at link {i}: {} is not in the chain",
                        Entry::describe(&now.entry, now.reference)
                    ))
                }
                (None, Some(then)) => {
                    return Some(format!(
                        "the chain breaks at link {i}: {} was linked but is missing",
                        Entry::describe(&then.entry, then.reference)
                    ))
                }
                _ => {}
            }
        }
    }
    let last = recomputed.last().map(|l| l.hash.as_slice());
    if last != head {
        let end = recomputed
            .last()
            .map_or_else(|| "nothing".to_owned(), |l| Entry::describe(&l.entry, l.reference));
        return Some(format!(
            "the table's head hash is not the hash of the chain's last entry ({end}): entries after it are missing, or it was altered"
        ));
    }
    None
}

/// The links of a move about to be written and of its bookings (`ids` drawn for them, in
/// order), following the chain's last link `end` = `(pos, hash)`: what [`extend`] would link
/// after the write, computed before it so that the write carries them.
pub fn links_for_move(
    table: &TableRow,
    entry: &MoveRow,
    bookings: &[(Booking, Option<i32>)],
    ids: &[i64],
    end: (i64, &[u8]),
) -> Vec<LinkRow> {
    // A move the move path writes keeps its seq's place and is no correction's.
    let logged = LoggedEntry {
        seq: entry.seq,
        entry: entry.entry.clone(),
        kind: entry.kind.clone(),
        seat: entry.seat,
        body: entry.body.clone(),
        events: entry.events.clone(),
        voids_seq: entry.voids_seq,
        part_of: entry.part_of,
        position: None,
        recorded_by: entry.recorded_by.clone(),
        recorded_at: entry.recorded_at,
    };
    let mut new = Vec::with_capacity(1 + bookings.len());
    new.push((Entry::log(table, &logged, None), CONTENT_VERSION));
    new.extend(bookings.iter().zip(ids).map(|((booking, deal), &id)| {
        let entry = Entry::booking(
            table,
            &StoredBooking {
                id,
                move_seq: entry.seq,
                deal: *deal,
                memo: booking.memo().to_owned(),
                reverses: None,
                created_at: entry.recorded_at,
                postings: booking.postings().to_vec(),
            },
        );
        (entry, CONTENT_VERSION)
    }));
    link_after(end.0, end.1, &new)
}

/// Links the table's entries not linked yet (from its set-up when it has no chain), and moves
/// its head to the last; in the transaction that wrote them, with the table's row locked or new.
///
/// # Errors
/// On database failure.
pub async fn extend(conn: &mut PgConnection, table: &TableRow) -> Result<(), ServiceError> {
    let end = store::chain::end(&mut *conn, table.id).await?;
    let log = store::chain::log_after(&mut *conn, table.id, end.last_move).await?;
    // Only a correction's own transaction links a correction entry: the rows are read then.
    let corrections = if log.iter().any(|m| m.entry == "correction") {
        store::deals::corrections(&mut *conn, table.id, None).await?
    } else {
        Vec::new()
    };
    let bookings = store::ledger::bookings_after(&mut *conn, table.id, end.last_booking).await?;
    let mut new = entries(table, &log, &corrections, &bookings);
    if end.last.is_some() {
        new.retain(|e| e.kind != "table");
    }
    let new: Vec<(Entry, i16)> = new.into_iter().map(|e| (e, CONTENT_VERSION)).collect();
    let links = link(end.last.as_ref(), &new);
    store::chain::append(conn, table.id, &links).await?;
    Ok(())
}
