//! The signed audit bundle of a session, and its offline verification.
//!
//! Invariants:
//! - A bundle is one JSON document holding everything needed to check a session without the
//!   server: the session, and for every table its set-up, whole log (voids and corrections
//!   included, each entry with its place in play order), its corrections' rows (the moves each
//!   supersedes, the later moves' events each re-derived, the bookings each made), ledger,
//!   score sheet and chain, with the engine's version; signed with Ed25519 over the canonical
//!   encoding (RFC 8785, the JSON Canonicalization Scheme: `chain::canonical`) of the document
//!   without its `signature`.
//! - The file is written in that canonical form, and the verifier refuses any other, so a
//!   change of one byte anywhere (white space included) fails verification.
//! - Verification needs no database and no network: it checks the form, the signature, that
//!   each log's derived fields follow from its entries, each table's chain, then replays each
//!   table with the same pure code as the server's audit ([`audit::play_order`],
//!   [`audit::replay_log`], [`audit::reversal_problem`]) and compares events, every booking
//!   and the score sheet. The first discrepancy is the answer.
//! - Bundles of [`FORMAT_1`] (written before corrections were carried) still verify: they read
//!   as format 2 without corrections or positions, their links at content version 1; bundles
//!   of [`FORMAT_2`] read as format 3 without chained scorers and verifications, and bundles of
//!   [`FORMAT_3`] as format 4 without the session's chain (unchecked then).
//! - From format 4 the session's chain is checked too (`chain::record`): its links follow each
//!   other and the last holds the session as bundled (chip value, club, date, the roster's club
//!   members), and every table is the session's. In every format a table's `finished` must be
//!   what its log replays to.
//! - Receipts the phones kept ([`verify_with`]) are checked after the chains: each must be
//!   signed by a trusted key and name a link the bundle holds, hash for hash, at its position.

use chrono::{DateTime, Utc};
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

pub use super::keys::{signing_key, unhex};

use super::audit::{self, Replayed};
use super::chain;
use super::receipts::{self, Receipt};
use super::{to_json, ServiceError};
use crate::ledger::{Account, Chips, Posting};
use crate::rules::with_game;
use crate::rules::{Game, GameId};
use crate::store;
use crate::store::chain::{ChainedScorer, LinkRow, LoggedEntry};
use crate::store::deals::{CorrectionRow, VerificationRow};
use crate::store::ledger::StoredBooking;
use crate::store::tables::{MoveRow, TableRow};

/// Names the bundle's shape; a verifier refuses shapes it does not know.
pub const FORMAT: &str = "tablekeeper-audit-bundle/4";

/// The shape written before bundles carried the session's chain (its chip value, club, date and
/// roster's club members); still verified (it reads as format 4 without them, unchecked).
pub const FORMAT_3: &str = "tablekeeper-audit-bundle/3";

/// The shape written before bundles carried the chained scorers and verifications; still
/// verified (it reads as format 3 without them).
pub const FORMAT_2: &str = "tablekeeper-audit-bundle/2";

/// The shape written before bundles carried corrections and play order; still verified.
pub const FORMAT_1: &str = "tablekeeper-audit-bundle/1";

/// The engine that wrote a bundle.
pub fn engine() -> String {
    format!("tablekeeper {}", env!("CARGO_PKG_VERSION"))
}

/// The session as bundled.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionPart {
    pub id: Uuid,
    pub name: String,
    pub owner_id: Uuid,
    pub created_at: DateTime<Utc>,
    pub chip_value: Option<i64>,
    pub currency: Option<String>,
    pub members: Vec<MemberPart>,
    /// The club the session belongs to (none before format 4).
    #[serde(default)]
    pub club_id: Option<Uuid>,
    /// The session's chain: its record as linked at each change (none before format 4).
    #[serde(default)]
    pub chain: Vec<RecordLinkPart>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberPart {
    pub id: Uuid,
    pub name: String,
    /// The club member this roster entry is (none before format 4).
    #[serde(default)]
    pub club_member_id: Option<Uuid>,
}

/// A link of a session's chain, hashes in hex, its record as linked.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordLinkPart {
    pub pos: i64,
    pub content_version: i16,
    pub content: String,
    pub content_hash: String,
    pub prev_hash: String,
    pub hash: String,
}

/// A booking as bundled: its postings as `[account, chips]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookingPart {
    pub id: i64,
    pub move_seq: i64,
    pub deal: Option<i32>,
    pub memo: String,
    pub reverses: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub postings: Vec<(String, i64)>,
}

/// A table as bundled.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablePart {
    pub id: Uuid,
    pub owner_id: Uuid,
    pub session_id: Option<Uuid>,
    pub game: String,
    pub players: Vec<String>,
    pub options: Value,
    pub members: Option<Vec<Uuid>>,
    pub version: i64,
    pub finished: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The head stored with the table (hex); null for a table not chained yet.
    pub chain_head: Option<String>,
    /// The chain's links as stored, so that a break is named by its entry.
    pub chain: Vec<LinkPart>,
    pub log: Vec<LogPart>,
    /// The rows of the log's correction entries, oldest first (none in format 1).
    #[serde(default)]
    pub corrections: Vec<CorrectionPart>,
    pub ledger: Vec<BookingPart>,
    /// The score sheet as the server shows it.
    pub scores: Value,
    /// The scorers the chain covers (who joined since chains covered them), in order (none
    /// before format 3).
    #[serde(default)]
    pub scorers: Vec<ScorerPart>,
    /// The verifications and disputes the chain covers, in order (none before format 3).
    #[serde(default)]
    pub verifications: Vec<VerificationPart>,
}

/// A scorer as bundled: the number its link names it by, its id, name and when it joined.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScorerPart {
    pub number: i64,
    pub id: Uuid,
    pub name: String,
    pub joined_at: DateTime<Utc>,
}

/// A verification or dispute of a deal as bundled.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationPart {
    pub id: i64,
    pub deal: i32,
    /// The deal's correction in force when it was given (0: as first recorded).
    pub correction_seq: i64,
    pub agree: bool,
    /// A dispute's own recording of the deal.
    pub moves: Option<Value>,
    /// The fields a dispute changes (JSON pointers into the deal's lines).
    pub differs: Vec<String>,
    pub verified_by: String,
    pub verified_at: DateTime<Utc>,
}

/// An entry of a table's log as bundled: as `GET /tables/{id}/moves` lists it (`body` being the
/// move), with its place in play order.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogPart {
    pub seq: i64,
    /// `move`, `void` or `correction`.
    pub entry: String,
    pub kind: String,
    pub seat: Option<i16>,
    pub body: Value,
    pub events: Value,
    pub voids_seq: Option<i64>,
    /// Derived: the void naming this entry (the verifier checks it against the log).
    pub voided_by: Option<i64>,
    /// For a move a correction brought: the correction's seq.
    pub part_of: Option<i64>,
    /// Derived: the latest correction superseding this move (checked against `corrections`).
    pub superseded_by: Option<i64>,
    /// Where a correction's move stands in play order (an exact decimal between its
    /// neighbours' places, a move's place being its seq); null for a move in its seq's place.
    pub position: Option<String>,
    pub recorded_by: String,
    pub recorded_at: DateTime<Utc>,
}

/// A correction's row as bundled; who recorded it and when are its log entry's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrectionPart {
    /// Its log entry.
    pub seq: i64,
    pub deal: i32,
    pub reason: String,
    /// The moves it took out of play.
    pub supersedes: Vec<i64>,
    /// The later moves' events as its replay re-derived them, by seq, where they changed.
    pub events: Value,
    /// The ids of the bookings it made (reversals and new bookings), none when null.
    pub first_booking: Option<i64>,
    pub last_booking: Option<i64>,
}

/// A link of a table's hash chain, hashes in hex.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkPart {
    pub pos: i64,
    pub entry: String,
    #[serde(rename = "ref")]
    pub reference: i64,
    /// The version of the canonical content hashed (`chain::CONTENT_VERSION`; 1 in format 1).
    #[serde(default = "content_version_1")]
    pub content_version: i16,
    pub content_hash: String,
    pub prev_hash: String,
    pub hash: String,
}

fn content_version_1() -> i16 {
    1
}

/// Everything the signature covers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Payload {
    pub format: String,
    pub engine: String,
    pub created_at: DateTime<Utc>,
    pub session: SessionPart,
    pub tables: Vec<TablePart>,
}

/// The signature: Ed25519 over the canonical encoding of the payload.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    pub algorithm: String,
    /// Hex, 32 bytes.
    pub public_key: String,
    /// Hex, 64 bytes.
    pub value: String,
}

/// The bundle of a session, signed, as the bytes of its file.
///
/// # Errors
/// `Store(NotFound)` for an unknown session; `Corrupt` when a table no longer replays.
pub async fn build(pool: &PgPool, session: Uuid, key: &SigningKey) -> Result<Vec<u8>, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = store::sessions::fetch(&mut tx, session).await?;
    let members = store::sessions::members(&mut tx, session).await?;
    let record_links = store::records::links(&mut tx, session).await?;
    let mut tables = Vec::new();
    for t in store::tables::list(&mut tx, None, Some(session), 1000, 0).await? {
        let log = store::tables::log(&mut tx, t.key(), 0, i64::MAX).await?;
        let places = store::chain::log_after(&mut tx, t.key(), 0).await?;
        let corrections = store::deals::corrections(&mut tx, t.key(), None).await?;
        let ledger = store::ledger::bookings(&mut tx, t.key(), None).await?;
        let links = store::chain::links(&mut tx, t.key()).await?;
        let scorers = store::chain::scorers_after(&mut tx, t.key(), 0).await?;
        let verifications = store::chain::verifications_after(&mut tx, t.key(), 0).await?;
        let scores: Result<Value, ServiceError> = async {
            with_game!(super::game_of(&t)?, G => {
                let game: G = super::fold::current(&mut tx, &t).await?;
                let lines = super::history::in_force::<G>(&mut tx, &t).await?;
                to_json(&game.score_sheet_of(&lines))
            })
        }
        .await;
        let scores = scores.map_err(|e| e.at_table(t.id))?;
        tables.push(TablePart {
            id: t.id,
            owner_id: t.owner_id,
            session_id: t.session_id,
            game: t.game.clone(),
            players: t.players.clone(),
            options: t.options.clone(),
            members: t.members.clone(),
            version: t.version,
            finished: t.finished,
            created_at: t.created_at,
            updated_at: t.updated_at,
            chain_head: t.chain_head.as_deref().map(chain::hex),
            chain: links
                .into_iter()
                .map(|l| LinkPart {
                    pos: l.pos,
                    entry: l.entry,
                    reference: l.reference,
                    content_version: l.version,
                    content_hash: chain::hex(&l.content_hash),
                    prev_hash: chain::hex(&l.prev_hash),
                    hash: chain::hex(&l.hash),
                })
                .collect(),
            log: log_parts(log, &places)?,
            corrections: corrections
                .into_iter()
                .map(|c| CorrectionPart {
                    seq: c.seq,
                    deal: c.deal,
                    reason: c.reason,
                    supersedes: c.supersedes,
                    events: c.events,
                    first_booking: c.first_booking,
                    last_booking: c.last_booking,
                })
                .collect(),
            ledger: ledger
                .into_iter()
                .map(|b| BookingPart {
                    id: b.id,
                    move_seq: b.move_seq,
                    deal: b.deal,
                    memo: b.memo,
                    reverses: b.reverses,
                    created_at: b.created_at,
                    postings: b
                        .postings
                        .iter()
                        .map(|p| (p.account.to_string(), p.amount.get()))
                        .collect(),
                })
                .collect(),
            scores,
            scorers: scorers
                .into_iter()
                .map(|s| ScorerPart {
                    number: s.number,
                    id: s.id,
                    name: s.name,
                    joined_at: s.created_at,
                })
                .collect(),
            verifications: verifications
                .into_iter()
                .map(|v| VerificationPart {
                    id: v.id,
                    deal: v.deal,
                    correction_seq: v.correction_seq,
                    agree: v.agree,
                    moves: v.moves,
                    differs: v.differs,
                    verified_by: v.verified_by,
                    verified_at: v.verified_at,
                })
                .collect(),
        });
    }
    let payload = Payload {
        format: FORMAT.into(),
        engine: engine(),
        created_at: Utc::now(),
        session: SessionPart {
            id: row.id,
            name: row.name,
            owner_id: row.owner_id,
            created_at: row.created_at,
            chip_value: row.chip_value,
            currency: row.currency,
            members: members
                .into_iter()
                .map(|m| MemberPart {
                    id: m.id,
                    name: m.name,
                    club_member_id: Some(m.club_member_id),
                })
                .collect(),
            club_id: Some(row.club_id),
            chain: record_links
                .into_iter()
                .map(|l| RecordLinkPart {
                    pos: l.pos,
                    content_version: l.version,
                    content: l.content,
                    content_hash: chain::hex(&l.content_hash),
                    prev_hash: chain::hex(&l.prev_hash),
                    hash: chain::hex(&l.hash),
                })
                .collect(),
        },
        tables,
    };
    let mut document = to_json(&payload)?;
    let signed = chain::canonical(&document);
    let signature = Signature {
        algorithm: "ed25519".into(),
        public_key: chain::hex(key.verifying_key().as_bytes()),
        value: chain::hex(&key.sign(signed.as_bytes()).to_bytes()),
    };
    if let Value::Object(map) = &mut document {
        map.insert("signature".into(), to_json(&signature)?);
    }
    Ok(chain::canonical(&document).into_bytes())
}

/// The log as bundled: each entry with its place in play order (`places`, the same entries as
/// the chain reads them, in the same read).
fn log_parts(log: Vec<MoveRow>, places: &[LoggedEntry]) -> Result<Vec<LogPart>, ServiceError> {
    if log.len() != places.len() || log.iter().zip(places).any(|(m, p)| m.seq != p.seq) {
        return Err(ServiceError::Corrupt(
            "the log read twice in one snapshot differs".into(),
        ));
    }
    Ok(log
        .into_iter()
        .zip(places)
        .map(|(m, p)| LogPart {
            seq: m.seq,
            entry: m.entry,
            kind: m.kind,
            seat: m.seat,
            body: m.body,
            events: m.events,
            voids_seq: m.voids_seq,
            voided_by: m.voided_by,
            part_of: m.part_of,
            superseded_by: m.superseded_by,
            position: p.position.clone(),
            recorded_by: m.recorded_by,
            recorded_at: m.recorded_at,
        })
        .collect())
}

/// Verifies a bundle's bytes, optionally against a public key (hex) the verifier trusts; the
/// one-line summary, or the first discrepancy.
///
/// # Errors
/// A sentence naming the first discrepancy.
pub fn verify(bytes: &[u8], trusted_key: Option<&str>) -> Result<String, String> {
    let trusted = match trusted_key {
        Some(hex) => vec![unhex::<32>(hex.trim())
            .and_then(|k| VerifyingKey::from_bytes(&k).ok())
            .ok_or("the public key is not 64 lower-case hex digits of an Ed25519 key")?],
        None => Vec::new(),
    };
    verify_with(bytes, &trusted, &[])
}

/// Verifies a bundle's bytes against the public keys the verifier trusts (any of them may have
/// signed it, so a bundle from before a key rotation verifies; none: the bundle's own key is
/// taken at its word), and the receipts phones kept (as [`receipts::read`] reads them, each
/// signed by one of the keys, or by the bundle's own when none are given): the bundle must
/// hold, at each receipt's position of its table's chain, the very link the receipt signed.
/// Receipts of other sessions are counted and passed over.
///
/// # Errors
/// A sentence naming the first discrepancy.
pub fn verify_with(bytes: &[u8], trusted: &[VerifyingKey], kept: &[(Receipt, Value)]) -> Result<String, String> {
    let document: Value = serde_json::from_slice(bytes).map_err(|e| format!("the bundle is not JSON: {e}"))?;
    if chain::canonical(&document).as_bytes() != bytes {
        return Err("the bundle is not in its canonical form: it was changed after it was written".into());
    }
    let Value::Object(mut map) = document else {
        return Err("the bundle is not a JSON object".into());
    };
    let signature: Signature = map
        .remove("signature")
        .ok_or("the bundle is not signed")
        .and_then(|s| serde_json::from_value(s).map_err(|_| "the signature does not read"))?;
    if signature.algorithm != "ed25519" {
        return Err(format!(
            "the signature's algorithm is `{}`, not ed25519",
            signature.algorithm
        ));
    }
    let key = unhex::<32>(&signature.public_key)
        .and_then(|k| VerifyingKey::from_bytes(&k).ok())
        .ok_or("the bundle's public key is not an Ed25519 key")?;
    if !trusted.is_empty() && !trusted.contains(&key) {
        return Err(format!(
            "the bundle is signed with another key than the ones given: key {} ({}), which is not among them",
            receipts::key_id(&key),
            signature.public_key
        ));
    }
    let value = unhex::<64>(&signature.value).ok_or("the signature is not 128 lower-case hex digits")?;
    let payload = Value::Object(map);
    key.verify(
        chain::canonical(&payload).as_bytes(),
        &ed25519_dalek::Signature::from_bytes(&value),
    )
    .map_err(|_| "the signature does not match the bundle's content".to_owned())?;
    let payload: Payload =
        serde_json::from_value(payload).map_err(|e| format!("the bundle's content does not read: {e}"))?;
    if ![FORMAT, FORMAT_3, FORMAT_2, FORMAT_1].contains(&payload.format.as_str()) {
        return Err(format!(
            "the bundle's format is `{}`, not {FORMAT} (nor {FORMAT_3}, {FORMAT_2} or {FORMAT_1})",
            payload.format
        ));
    }
    if payload.format == FORMAT {
        check_session(&payload)?;
    }
    let mut moves = 0;
    let mut bookings = 0;
    for table in &payload.tables {
        check_table(table)?;
        moves += table.log.len();
        bookings += table.ledger.len();
    }
    let receipt_keys = if trusted.is_empty() {
        vec![key]
    } else {
        trusted.to_vec()
    };
    let mut matched = 0;
    let mut elsewhere = 0;
    for (receipt, as_kept) in kept {
        receipts::check_signature(receipt, as_kept, &receipt_keys)?;
        if receipt.session != Some(payload.session.id) {
            elsewhere += 1;
            continue;
        }
        check_receipt(&payload, receipt)?;
        matched += 1;
    }
    let receipts = if kept.is_empty() {
        String::new()
    } else {
        format!("; {matched} receipts found in the chains ({elsewhere} of other sessions passed over)")
    };
    Ok(format!(
        "ok: session {} ({}), {} tables, {moves} log entries and {bookings} bookings replayed and chained; signed by {} (key {}) with {}{receipts}",
        payload.session.id,
        payload.session.name,
        payload.tables.len(),
        signature.public_key,
        receipts::key_id(&key),
        payload.engine,
    ))
}

/// The session's chain (format 4): its links follow each other and the last holds the session as
/// bundled (chip value, club, date, roster's club members); every table is the session's.
fn check_session(payload: &Payload) -> Result<(), String> {
    let s = &payload.session;
    let what = format!("session {}", s.id);
    let mut links = Vec::with_capacity(s.chain.len());
    for l in &s.chain {
        let bad = || format!("{what}: link {} of its chain does not read", l.pos);
        links.push(store::records::RecordLink {
            pos: l.pos,
            version: l.content_version,
            content: l.content.clone(),
            content_hash: unhex::<32>(&l.content_hash).ok_or_else(bad)?.to_vec(),
            prev_hash: unhex::<32>(&l.prev_hash).ok_or_else(bad)?.to_vec(),
            hash: unhex::<32>(&l.hash).ok_or_else(bad)?.to_vec(),
        });
    }
    if let Some(t) = payload.tables.iter().find(|t| t.session_id != Some(s.id)) {
        return Err(format!("table {} is not a table of {what}", t.id));
    }
    // A session an earlier release wrote during a rolling upgrade is linked at its next change;
    // until then there is nothing to check it against, as the audit has it.
    if links.is_empty() {
        return Ok(());
    }
    let mut members = Vec::with_capacity(s.members.len());
    for m in &s.members {
        let club_member = m
            .club_member_id
            .ok_or_else(|| format!("{what}: roster entry {} names no club member", m.id))?;
        members.push(store::records::RosterEntry { club_member, id: m.id });
    }
    // In id order, as the record holds them.
    members.sort_by_key(|m| m.id);
    let record = store::records::SessionRecord {
        chip_value: s.chip_value,
        club: s.club_id.ok_or_else(|| format!("{what} names no club"))?,
        created_at: s.created_at,
        currency: s.currency.clone(),
        members,
        session: s.id,
    };
    match chain::record::check(&what, &links, &record) {
        Some(found) => Err(found),
        None => Ok(()),
    }
}

/// Whether the bundle holds, at the receipt's position of its table's chain, the link the
/// receipt signed. The chains were checked already: each link follows from the entries.
fn check_receipt(payload: &Payload, receipt: &Receipt) -> Result<(), String> {
    let issued = format!("the receipt of {} for position {}", receipt.at, receipt.position);
    let table = payload.tables.iter().find(|t| t.id == receipt.table).ok_or_else(|| {
        format!(
            "table {} is not in the bundle, but {issued} of its chain says it was in this session: it was taken out of the session or removed",
            receipt.table
        )
    })?;
    match table.chain.iter().find(|l| l.pos == receipt.position) {
        None => Err(format!(
            "table {}: the chain ends at position {} but {issued} shows it went further: entries after it were removed and its head set back",
            table.id,
            table.chain.last().map_or(-1, |l| l.pos)
        )),
        Some(link) if link.hash != receipt.head => Err(format!(
            "table {}: the link at position {} is not the one {issued} signed: the chain up to it was rewritten and hashed again",
            table.id, receipt.position
        )),
        Some(_) => Ok(()),
    }
}

fn check_table(t: &TablePart) -> Result<(), String> {
    let at = |what: String| format!("table {}: {what}", t.id);
    let row = TableRow {
        id: t.id,
        owner_id: t.owner_id,
        // A bundle's evidence does not name the club: it is the tenant, not the record.
        club_id: Uuid::nil(),
        club_no: 0,
        session_id: t.session_id,
        game: t.game.clone(),
        players: t.players.clone(),
        options: t.options.clone(),
        version: t.version,
        finished: t.finished,
        deal_lines_kept: true,
        chain_head: None,
        members: t.members.clone(),
        created_at: t.created_at,
        updated_at: t.updated_at,
    };
    let mut stored = Vec::with_capacity(t.ledger.len());
    for b in &t.ledger {
        let mut postings = Vec::with_capacity(b.postings.len());
        for (account, amount) in &b.postings {
            let account = Account::parse(account).map_err(|e| at(format!("booking {}: {e}", b.id)))?;
            postings.push(Posting {
                account,
                amount: Chips::new(*amount),
            });
        }
        if postings.iter().map(|p| i128::from(p.amount.get())).sum::<i128>() != 0 {
            return Err(at(format!("booking {} does not sum to zero", b.id)));
        }
        stored.push(StoredBooking {
            id: b.id,
            move_seq: b.move_seq,
            deal: b.deal,
            memo: b.memo.clone(),
            reverses: b.reverses,
            created_at: b.created_at,
            postings,
        });
    }
    if t.log.len() as i64 != t.version || t.log.iter().enumerate().any(|(i, m)| m.seq != i as i64 + 1) {
        return Err(at(format!("the log is not entries 1 to {} in order", t.version)));
    }
    let logged: Vec<LoggedEntry> = t
        .log
        .iter()
        .map(|m| LoggedEntry {
            seq: m.seq,
            entry: m.entry.clone(),
            kind: m.kind.clone(),
            seat: m.seat,
            body: m.body.clone(),
            events: m.events.clone(),
            voids_seq: m.voids_seq,
            part_of: m.part_of,
            position: m.position.clone(),
            recorded_by: m.recorded_by.clone(),
            recorded_at: m.recorded_at,
        })
        .collect();
    let corrections = corrections_of(t).map_err(at)?;
    // The chain first: it names the entry that was changed.
    let mut stored_links = Vec::with_capacity(t.chain.len());
    for l in &t.chain {
        let bad = || at(format!("link {} does not read", l.pos));
        stored_links.push(LinkRow {
            pos: l.pos,
            entry: l.entry.clone(),
            reference: l.reference,
            version: l.content_version,
            content_hash: unhex::<32>(&l.content_hash).ok_or_else(bad)?.to_vec(),
            prev_hash: unhex::<32>(&l.prev_hash).ok_or_else(bad)?.to_vec(),
            hash: unhex::<32>(&l.hash).ok_or_else(bad)?.to_vec(),
        });
    }
    let scorers: Vec<ChainedScorer> = t
        .scorers
        .iter()
        .map(|s| ChainedScorer {
            number: s.number,
            id: s.id,
            name: s.name.clone(),
            created_at: s.joined_at,
        })
        .collect();
    let verifications: Vec<VerificationRow> = t
        .verifications
        .iter()
        .map(|v| VerificationRow {
            id: v.id,
            deal: v.deal,
            correction_seq: v.correction_seq,
            agree: v.agree,
            moves: v.moves.clone(),
            differs: v.differs.clone(),
            verified_by: v.verified_by.clone(),
            verified_at: v.verified_at,
        })
        .collect();
    let roster = chain::Roster {
        scorers: &scorers,
        verifications: &verifications,
    };
    let links = chain::link(
        None,
        &chain::in_link_order(
            chain::entries(&row, &logged, &corrections, &stored, roster),
            &stored_links,
        ),
    );
    let head = match &t.chain_head {
        Some(head) => Some(unhex::<32>(head).ok_or_else(|| at("the chain head is not 64 hex digits".into()))?),
        None if stored_links.is_empty() => None,
        None => return Err(at("the table has chain links but no head".into())),
    };
    if let Some(head) = head {
        if let Some(found) = chain::first_break(&links, Some(&stored_links), Some(&head)) {
            return Err(at(found));
        }
    }
    derived_fields_follow(t, &corrections).map_err(at)?;
    let order = audit::play_order(&logged, &corrections).map_err(at)?;
    let effective: Vec<&LoggedEntry> = order
        .iter()
        .filter_map(|seq| logged.get(usize::try_from(seq - 1).ok()?))
        .collect();
    if let Some(found) = audit::reversal_problem(&stored, &logged) {
        return Err(at(found));
    }
    let game = GameId::parse(&t.game).ok_or_else(|| at(format!("this engine has no game `{}`", t.game)))?;
    with_game!(game, G => replay_and_compare::<G>(&row, t, &effective, &corrections, &stored).map_err(at))
}

/// The table's corrections as the audit reads them, each the row of a correction entry of the
/// log and every such entry with its row; who recorded it, when, and the void that undid it
/// taken from the log.
fn corrections_of(t: &TablePart) -> Result<Vec<CorrectionRow>, String> {
    let mut rows: Vec<CorrectionRow> = Vec::with_capacity(t.corrections.len());
    for c in &t.corrections {
        let entry = usize::try_from(c.seq - 1)
            .ok()
            .and_then(|i| t.log.get(i))
            .filter(|m| m.entry == "correction")
            .ok_or_else(|| format!("correction {} is not a correction entry of the log", c.seq))?;
        if rows.iter().any(|r| r.seq == c.seq) {
            return Err(format!("correction {} is given twice", c.seq));
        }
        rows.push(CorrectionRow {
            seq: c.seq,
            deal: c.deal,
            reason: c.reason.clone(),
            first_booking: c.first_booking,
            last_booking: c.last_booking,
            events: c.events.clone(),
            recorded_by: entry.recorded_by.clone(),
            recorded_at: entry.recorded_at,
            voided_by: t.log.iter().find(|v| v.voids_seq == Some(c.seq)).map(|v| v.seq),
            supersedes: c.supersedes.clone(),
        });
    }
    if let Some(m) = t
        .log
        .iter()
        .find(|m| m.entry == "correction" && !rows.iter().any(|r| r.seq == m.seq))
    {
        return Err(format!(
            "log entry {} is a correction the bundle gives no row for (the bundle's format is older than corrections, or it was cut)",
            m.seq
        ));
    }
    rows.sort_by_key(|r| r.seq);
    Ok(rows)
}

/// The log's derived fields (`voided_by`, `superseded_by`, `part_of`) say what its entries and
/// corrections say, so that a reader of the bundle is not misled by them.
fn derived_fields_follow(t: &TablePart, corrections: &[CorrectionRow]) -> Result<(), String> {
    for m in &t.log {
        let voided_by = t.log.iter().find(|v| v.voids_seq == Some(m.seq)).map(|v| v.seq);
        let superseded_by = corrections
            .iter()
            .filter(|c| c.supersedes.contains(&m.seq))
            .map(|c| c.seq)
            .max();
        let part_of_a_correction = m.part_of.is_none_or(|c| corrections.iter().any(|r| r.seq == c));
        if m.voided_by != voided_by {
            return Err(format!("log entry {}: `voided_by` does not follow from the log", m.seq));
        }
        if m.superseded_by != superseded_by {
            return Err(format!(
                "log entry {}: `superseded_by` does not follow from the corrections",
                m.seq
            ));
        }
        if !part_of_a_correction {
            return Err(format!("log entry {}: `part_of` names no correction", m.seq));
        }
    }
    Ok(())
}

fn replay_and_compare<G: Game>(
    row: &TableRow,
    t: &TablePart,
    effective: &[&LoggedEntry],
    corrections: &[CorrectionRow],
    stored: &[StoredBooking],
) -> Result<(), String> {
    let Replayed {
        game,
        replayed,
        expected,
        lines,
        problems,
        ..
    } = audit::replay_log::<G>(row, effective, corrections).map_err(|e| e.to_string())?;
    if let Some(first) = problems.into_iter().next() {
        return Err(first);
    }
    debug_assert_eq!(replayed, effective.len());
    let in_force = audit::in_force(stored);
    if let Some(i) = (0..in_force.len().max(expected.len())).find(|&i| in_force.get(i) != expected.get(i)) {
        let named = in_force.get(i).or(expected.get(i)).map_or(0, |k| k.0);
        return Err(format!(
            "the ledger differs from the replay's bookings at those of log entry {named} ({} in force, {} replayed)",
            in_force.len(),
            expected.len()
        ));
    }
    if t.finished != game.is_finished() {
        return Err(audit::finished_problem(t.finished));
    }
    let sheet = serde_json::to_value(game.score_sheet_of(&lines)).map_err(|e| e.to_string())?;
    if sheet != t.scores {
        return Err("the score sheet differs from the replay's".into());
    }
    Ok(())
}
