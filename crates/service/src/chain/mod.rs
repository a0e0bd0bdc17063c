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
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tablekeeper_store::PgConnection;
use uuid::Uuid;

mod json;
pub mod record;

pub use json::{canonical, canonicalized, AsJson, CanonicalText, Json};

use super::ServiceError;
use tablekeeper_ledger::Booking;
use tablekeeper_store as store;
use tablekeeper_store::chain::{ChainedScorer, LinkRow, LoggedEntry};
use tablekeeper_store::deals::{CorrectionRow, VerificationRow};
use tablekeeper_store::ledger::StoredBooking;
use tablekeeper_store::tables::{MoveRow, TableRow};

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
/// 3. Covers everything else that changes who owes what: the set-up names the session's member
///    at each seat (`members`; the names are left out then, so that a member can be anonymised
///    without breaking the chain; a table without members keeps its names), and two new kinds
///    of entry are linked as they happen: a scorer who joined (`scorer`: its id and name) and a
///    verification or dispute of a deal (`verification`: the row as given).
///
/// Bookings read the same in every version, the set-up the same in 1 and 2.
pub const CONTENT_VERSION: i16 = 3;

/// What a link covers: a view of stored rows, whose canonical content is written straight from
/// them (see [`Entry::write_content`]).
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// `table`, `move`, `booking`, `scorer` or `verification`.
    pub kind: &'static str,
    /// The move's seq, the booking's id, the scorer's number, the verification's id, 0 for the
    /// set-up.
    pub reference: i64,
    content: Content<'a>,
    order: (i64, u8, i64),
}

#[derive(Debug, Clone, Copy)]
enum Content<'a> {
    Table(&'a TableRow),
    Log {
        table: Uuid,
        entry: LogView<'a>,
        correction: Option<&'a CorrectionRow>,
    },
    Booking {
        table: Uuid,
        booking: &'a StoredBooking,
    },
    Scorer {
        table: Uuid,
        scorer: &'a ChainedScorer,
    },
    Verification {
        table: Uuid,
        verification: &'a VerificationRow,
    },
}

/// A log entry's stored fields, however its move and events are held.
#[derive(Debug, Clone, Copy)]
struct LogView<'a> {
    seq: i64,
    entry: &'a str,
    kind: &'a str,
    seat: Option<i16>,
    body: Json<'a>,
    events: Json<'a>,
    voids_seq: Option<i64>,
    part_of: Option<i64>,
    position: Option<&'a str>,
    recorded_by: &'a str,
    recorded_at: DateTime<Utc>,
}

// The set-up's, a correction's and a booking's content as structs whose fields are declared in
// key order, so that serde_json's compact output of one is `canonical` of the same content as a
// `Value` (a nested `Value` writes its maps' keys sorted too). The tests hold each to the
// `Value` form, and the map's order to sorted.

#[derive(Serialize)]
struct TableContent<'a> {
    created_at: String,
    game: &'a str,
    options: &'a Value,
    owner: Uuid,
    players: &'a [String],
    session: Option<Uuid>,
    table: Uuid,
}

/// The set-up from version 3: the seats' members when the table has them, its names otherwise.
#[derive(Serialize)]
struct TableContent3<'a> {
    created_at: String,
    game: &'a str,
    members: Option<&'a [Uuid]>,
    options: &'a Value,
    owner: Uuid,
    players: Option<&'a [String]>,
    session: Option<Uuid>,
    table: Uuid,
}

#[derive(Serialize)]
struct ScorerContent<'a> {
    created_at: String,
    name: &'a str,
    number: i64,
    scorer: Uuid,
    table: Uuid,
}

#[derive(Serialize)]
struct VerificationContent<'a> {
    agree: bool,
    correction_seq: i64,
    deal: i32,
    differs: &'a [String],
    id: i64,
    moves: &'a Option<Value>,
    table: Uuid,
    verified_at: String,
    verified_by: &'a str,
}

#[derive(Serialize)]
struct CorrectionContent<'a> {
    deal: i32,
    events: &'a Value,
    first_booking: Option<i64>,
    last_booking: Option<i64>,
    reason: &'a str,
    supersedes: &'a [i64],
}

#[derive(Serialize)]
struct BookingContent<'a> {
    created_at: String,
    deal: Option<i32>,
    id: i64,
    memo: &'a str,
    move_seq: i64,
    postings: Vec<(String, i64)>,
    reverses: Option<i64>,
    table: Uuid,
}

/// An object written member by member, in the order of its keys.
struct Members<'o> {
    out: &'o mut Vec<u8>,
    last: Option<&'static str>,
}

impl<'o> Members<'o> {
    fn open(out: &'o mut Vec<u8>) -> Members<'o> {
        out.push(b'{');
        Members { out, last: None }
    }

    fn key(&mut self, key: &'static str) -> serde_json::Result<()> {
        debug_assert!(self.last < Some(key), "`{key}` is out of order");
        if self.last.is_some() {
            self.out.push(b',');
        }
        self.last = Some(key);
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.push(b':');
        Ok(())
    }

    fn value<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> serde_json::Result<()> {
        self.key(key)?;
        serde_json::to_writer(&mut *self.out, value)
    }

    fn json(&mut self, key: &'static str, value: Json<'_>) -> serde_json::Result<()> {
        self.key(key)?;
        value.write_canonical(self.out)
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

impl<'a> Entry<'a> {
    /// The table's set-up: what it was opened as.
    pub fn table(row: &'a TableRow) -> Entry<'a> {
        Entry {
            kind: "table",
            reference: 0,
            content: Content::Table(row),
            order: (-1, 0, 0),
        }
    }

    /// A log entry (a move, a void or a correction), as stored; who recorded it and when
    /// included, and (from version 2) its place in play order and, for a correction entry,
    /// `correction`: its row.
    pub fn log<J: AsJson>(table: &TableRow, m: &'a LoggedEntry<J>, correction: Option<&'a CorrectionRow>) -> Entry<'a> {
        Entry {
            kind: "move",
            reference: m.seq,
            content: Content::Log {
                table: table.id,
                entry: LogView {
                    seq: m.seq,
                    entry: &m.entry,
                    kind: &m.kind,
                    seat: m.seat,
                    body: m.body.as_json(),
                    events: m.events.as_json(),
                    voids_seq: m.voids_seq,
                    part_of: m.part_of,
                    position: m.position.as_deref(),
                    recorded_by: &m.recorded_by,
                    recorded_at: m.recorded_at,
                },
                correction,
            },
            order: (m.seq, 0, m.seq),
        }
    }

    /// A booking with its postings, as stored.
    pub fn booking(table: &TableRow, b: &'a StoredBooking) -> Entry<'a> {
        Entry {
            kind: "booking",
            reference: b.id,
            content: Content::Booking {
                table: table.id,
                booking: b,
            },
            order: (b.move_seq, 1, b.id),
        }
    }

    /// A scorer who joined, with the name it gave (from content version 3).
    pub fn scorer(table: &TableRow, s: &'a ChainedScorer) -> Entry<'a> {
        Entry {
            kind: "scorer",
            reference: s.number,
            content: Content::Scorer {
                table: table.id,
                scorer: s,
            },
            order: (i64::MAX, 2, s.number),
        }
    }

    /// A verification or dispute of a deal, as given (from content version 3).
    pub fn verification(table: &TableRow, v: &'a VerificationRow) -> Entry<'a> {
        Entry {
            kind: "verification",
            reference: v.id,
            content: Content::Verification {
                table: table.id,
                verification: v,
            },
            order: (i64::MAX, 3, v.id),
        }
    }

    /// Appends the canonical content as version `version` of the canonical form has it (the
    /// set-up and bookings read the same in every version); false, with nothing written, for a
    /// version this engine does not know.
    pub fn write_content(&self, version: i16, out: &mut Vec<u8>) -> bool {
        if !(1..=CONTENT_VERSION).contains(&version) {
            return false;
        }
        let written = match self.content {
            Content::Table(row) if version >= 3 => serde_json::to_writer(
                &mut *out,
                &TableContent3 {
                    created_at: timestamp(&row.created_at),
                    game: &row.game,
                    members: row.members.as_deref(),
                    options: &row.options,
                    owner: row.owner_id,
                    players: row.members.is_none().then_some(row.players.as_slice()),
                    session: row.session_id,
                    table: row.id,
                },
            ),
            Content::Scorer { table, scorer } => serde_json::to_writer(
                &mut *out,
                &ScorerContent {
                    created_at: timestamp(&scorer.created_at),
                    name: &scorer.name,
                    number: scorer.number,
                    scorer: scorer.id,
                    table,
                },
            ),
            Content::Verification { table, verification: v } => serde_json::to_writer(
                &mut *out,
                &VerificationContent {
                    agree: v.agree,
                    correction_seq: v.correction_seq,
                    deal: v.deal,
                    differs: &v.differs,
                    id: v.id,
                    moves: &v.moves,
                    table,
                    verified_at: timestamp(&v.verified_at),
                    verified_by: &v.verified_by,
                },
            ),
            Content::Table(row) => serde_json::to_writer(
                &mut *out,
                &TableContent {
                    created_at: timestamp(&row.created_at),
                    game: &row.game,
                    options: &row.options,
                    owner: row.owner_id,
                    players: &row.players,
                    session: row.session_id,
                    table: row.id,
                },
            ),
            Content::Log {
                table,
                entry,
                correction,
            } => write_log(table, &entry, correction, version, out),
            Content::Booking { table, booking: b } => {
                let mut postings: Vec<(String, i64)> = b
                    .postings
                    .iter()
                    .map(|p| (p.account.to_string(), p.amount.get()))
                    .collect();
                postings.sort();
                serde_json::to_writer(
                    &mut *out,
                    &BookingContent {
                        created_at: timestamp(&b.created_at),
                        deal: b.deal,
                        id: b.id,
                        memo: &b.memo,
                        move_seq: b.move_seq,
                        postings,
                        reverses: b.reverses,
                        table,
                    },
                )
            }
        };
        // Plain data into memory, and text the database wrote as JSON, cannot fail to encode;
        // were it ever to, the bytes written so far hash to no stored link, so the audit names
        // the entry changed rather than anything passing unnoticed.
        debug_assert!(written.is_ok(), "canonical content did not encode: {written:?}");
        true
    }

    /// How findings name the entry.
    pub fn describe(kind: &str, reference: i64) -> String {
        match kind {
            "table" => "the table's set-up".to_owned(),
            "move" => format!("log entry {reference}"),
            "scorer" => format!("scorer {reference} (who joined)"),
            "verification" => format!("verification {reference}"),
            _ => format!("booking {reference}"),
        }
    }
}

/// A log entry's content at `version` (1 or 2), keys in order.
fn write_log(
    table: Uuid,
    m: &LogView<'_>,
    correction: Option<&CorrectionRow>,
    version: i16,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let since_2 = version >= 2;
    let mut members = Members::open(out);
    members.json("body", m.body)?;
    if since_2 {
        members.value(
            "correction",
            &correction.map(|c| CorrectionContent {
                deal: c.deal,
                events: &c.events,
                first_booking: c.first_booking,
                last_booking: c.last_booking,
                reason: &c.reason,
                supersedes: &c.supersedes,
            }),
        )?;
    }
    members.value("entry", m.entry)?;
    members.json("events", m.events)?;
    members.value("kind", m.kind)?;
    if since_2 {
        members.value("part_of", &m.part_of)?;
        members.value("position", &m.position)?;
    }
    members.value("recorded_at", &timestamp(&m.recorded_at))?;
    members.value("recorded_by", m.recorded_by)?;
    members.value("seat", &m.seat)?;
    members.value("seq", &m.seq)?;
    members.value("table", &table)?;
    members.value("voids_seq", &m.voids_seq)?;
    members.close();
    Ok(())
}

fn timestamp(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// SHA-256 of bytes.
pub fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// Lower-case hex of bytes (each move's receipt writes three).
pub fn hex(bytes: &[u8]) -> String {
    ::hex::encode(bytes)
}

/// What a table's chain covers besides its set-up, log and ledger (from content version 3):
/// the scorers who joined and the verifications given since.
#[derive(Debug, Clone, Copy, Default)]
pub struct Roster<'a> {
    pub scorers: &'a [ChainedScorer],
    pub verifications: &'a [VerificationRow],
}

/// The entries of a table in chain order; `corrections` holds the rows of the correction
/// entries among `log` (others are not looked at).
pub fn entries<'a, J: AsJson>(
    table: &'a TableRow,
    log: &'a [LoggedEntry<J>],
    corrections: &'a [CorrectionRow],
    bookings: &'a [StoredBooking],
    roster: Roster<'a>,
) -> Vec<Entry<'a>> {
    let mut all: Vec<Entry<'a>> =
        Vec::with_capacity(1 + log.len() + bookings.len() + roster.scorers.len() + roster.verifications.len());
    all.push(Entry::table(table));
    all.extend(log.iter().map(|m| {
        let correction = (m.entry == "correction")
            .then(|| corrections.iter().find(|c| c.seq == m.seq))
            .flatten();
        Entry::log(table, m, correction)
    }));
    all.extend(bookings.iter().map(|b| Entry::booking(table, b)));
    all.extend(roster.scorers.iter().map(|s| Entry::scorer(table, s)));
    all.extend(roster.verifications.iter().map(|v| Entry::verification(table, v)));
    all.sort_by_key(|e| e.order);
    all
}

/// `entries` (as [`entries`] sorts them) in the order the table's links hold them, each with
/// the content version of its link, the unlinked ones after, in their own order and at
/// [`CONTENT_VERSION`]. The chain grows in the order entries were written, which a sort on the
/// entries alone cannot always tell: a correction books, in its own transaction, for moves
/// recorded long before it. A changed order is still caught: the links' hashes follow each
/// other, and every entry's content names its seq or id.
pub fn in_link_order<'a>(entries: Vec<Entry<'a>>, links: &[LinkRow]) -> Vec<(Entry<'a>, i16)> {
    let at: std::collections::HashMap<(&str, i64), (i64, i16)> = links
        .iter()
        .map(|l| ((l.entry.as_str(), l.reference), (l.pos, l.version)))
        .collect();
    let mut placed: Vec<(i64, Entry<'a>, i16)> = entries
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
pub fn link(after: Option<&LinkRow>, entries: &[(Entry<'_>, i16)]) -> Vec<LinkRow> {
    match after {
        Some(last) => link_after(last.pos, &last.hash, entries),
        None => link_after(-1, &[0; 32], entries),
    }
}

/// The links for `entries`, following the link at `pos` whose hash is `hash`.
pub fn link_after(pos: i64, hash: &[u8], entries: &[(Entry<'_>, i16)]) -> Vec<LinkRow> {
    let mut prev: Vec<u8> = hash.to_vec();
    let mut out = Vec::with_capacity(entries.len());
    let mut content = Vec::new();
    for (pos, (entry, version)) in (pos + 1..).zip(entries) {
        content.clear();
        // A version this engine does not know is named by `first_break`; the hash is moot.
        if !entry.write_content(*version, &mut content) {
            entry.write_content(CONTENT_VERSION, &mut content);
        }
        let content_hash = sha256(&content);
        let hash: Hash = Sha256::new()
            .chain_update(&prev)
            .chain_update(content_hash)
            .finalize()
            .into();
        out.push(LinkRow {
            pos,
            entry: entry.kind.to_owned(),
            reference: entry.reference,
            version: *version,
            content_hash: content_hash.to_vec(),
            prev_hash: prev,
            hash: hash.to_vec(),
        });
        prev = hash.to_vec();
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
    let stored: Vec<StoredBooking> = bookings
        .iter()
        .zip(ids)
        .map(|((booking, deal), &id)| StoredBooking {
            id,
            move_seq: entry.seq,
            deal: *deal,
            memo: booking.memo().to_owned(),
            reverses: None,
            created_at: entry.recorded_at,
            postings: booking.postings().to_vec(),
        })
        .collect();
    let mut new = Vec::with_capacity(1 + stored.len());
    new.push((Entry::log(table, &logged, None), CONTENT_VERSION));
    new.extend(stored.iter().map(|b| (Entry::booking(table, b), CONTENT_VERSION)));
    link_after(end.0, end.1, &new)
}

/// Links the table's entries not linked yet (from its set-up when it has no chain), and moves
/// its head to the last; in the transaction that wrote them, with the table's row locked or new.
///
/// # Errors
/// On database failure.
pub async fn extend(conn: &mut PgConnection, table: &TableRow) -> Result<(), ServiceError> {
    let links = unlinked(&mut *conn, table).await?;
    store::chain::append(conn, table.key(), &links).await?;
    Ok(())
}

/// The links [`extend`] writes: of the table's entries not linked yet, following its chain's
/// last link (or from its set-up when it has no chain). Reads only.
///
/// # Errors
/// On database failure.
pub async fn unlinked(conn: &mut PgConnection, table: &TableRow) -> Result<Vec<LinkRow>, ServiceError> {
    let end = store::chain::end(&mut *conn, table.key()).await?;
    let log = store::chain::log_after(&mut *conn, table.key(), end.last_move).await?;
    // Only a correction's own transaction links a correction entry: the rows are read then.
    let corrections = if log.iter().any(|m| m.entry == "correction") {
        store::deals::corrections(&mut *conn, table.key(), None).await?
    } else {
        Vec::new()
    };
    let bookings = store::ledger::bookings_after(&mut *conn, table.key(), end.last_booking).await?;
    let scorers = store::chain::scorers_after(&mut *conn, table.key(), end.last_scorer).await?;
    let verifications = store::chain::verifications_after(&mut *conn, table.key(), end.last_verification).await?;
    let roster = Roster {
        scorers: &scorers,
        verifications: &verifications,
    };
    let mut new = entries(table, &log, &corrections, &bookings, roster);
    if end.last.is_some() {
        new.retain(|e| e.kind != "table");
    }
    let new: Vec<(Entry<'_>, i16)> = new.into_iter().map(|e| (e, CONTENT_VERSION)).collect();
    Ok(link(end.last.as_ref(), &new))
}

#[cfg(test)]
mod tests;
