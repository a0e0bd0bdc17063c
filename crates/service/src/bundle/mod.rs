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
//!   members, and its tournaments when it has any: set-up, entrants, seatings, byes, results),
//!   every table is the session's, and every table a tournament's round opened is in the bundle. In every format a table's `finished` must be
//!   what its log replays to.
//! - Receipts the phones kept ([`verify_with`]) are checked after the chains: each must be
//!   signed by a trusted key and name a link the bundle holds, hash for hash, at its position.
//! - Final checkpoints (issue #42: the bundle's own and those an auditor kept,
//!   [`verify_checked`]) are checked last: each signed by a trusted key, of a close the session's
//!   chain holds with that checkpoint's hash, its session record head and every table's head
//!   held by the bundle at their positions; and, for a close not reopened, no table with entries
//!   after its head and no table it does not name: nothing was written after the session was
//!   final.

use chrono::{DateTime, Utc};
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tablekeeper_store::PgPool;
use uuid::Uuid;

pub use super::keys::{signing_key, unhex};

use super::audit::{self, Replayed};
use super::chain;
use super::receipts::{self, Receipt};
use super::{to_json, ServiceError};
use tablekeeper_ledger::{Account, Chips, Posting};
use tablekeeper_rules::with_game;
use tablekeeper_rules::{Game, GameId};
use tablekeeper_store as store;
use tablekeeper_store::chain::{ChainedScorer, LinkRow, LoggedEntry};
use tablekeeper_store::deals::{CorrectionRow, VerificationRow};
use tablekeeper_store::ledger::StoredBooking;
use tablekeeper_store::tables::{MoveRow, TableRow};

mod verify;
mod witnesses;

pub use verify::{verify, verify_checked, verify_with};

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
    /// The session's tournaments as its record holds them (left out when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tournaments: Vec<store::records::TournamentRecord>,
    /// The session's closes as its record holds them (left out when it was never closed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closes: Vec<store::records::CloseRecord>,
    /// The final checkpoints kept, each the signed document `GET /sessions/{id}/final` gives,
    /// oldest first (left out when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finals: Vec<Value>,
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
    /// The table's Merkle tree over its chain as the bundle holds it, as a C2SP signed note
    /// signed by the audit key (as `GET /tables/{id}/checkpoint` answers it): a checkpoint a
    /// phone or a treasurer kept can be compared with it, and a consistency proof joins the two.
    /// Left out for a table without a chain, and in bundles made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// The phones' cosignatures of the table's checkpoints (every size cosigned), as kept; the
    /// verifier checks each and counts who cosigned the last. None in bundles made before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cosignatures: Vec<super::cosigning::CosignaturePart>,
    /// The keys the table's phones registered: who could cosign.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phone_keys: Vec<super::cosigning::PhoneKey>,
    /// The session's boards' cosignatures of the table's checkpoints, as kept (none in bundles
    /// made before boards cosigned).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub board_cosignatures: Vec<super::cosigning::BoardCosignaturePart>,
    /// The keys the session's boards registered: which boards could cosign.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub board_keys: Vec<super::cosigning::BoardKey>,
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

/// The bundle of a session, signed, as the bytes of its file; each table's checkpoint signed
/// under `name` (`witness::note::log_name`).
///
/// # Errors
/// `Store(NotFound)` for an unknown session; `Corrupt` when a table no longer replays.
pub async fn build(pool: &PgPool, session: Uuid, key: &SigningKey, name: &str) -> Result<Vec<u8>, ServiceError> {
    let mut tx = store::begin_read_only(pool).await?;
    let row = store::sessions::fetch(&mut tx, session).await?;
    let members = store::sessions::members(&mut tx, session).await?;
    let record_links = store::records::links(&mut tx, session).await?;
    let mut tournaments = Vec::new();
    for t in store::tournaments::of_session(&mut tx, session).await? {
        tournaments.push(store::records::tournament_record(&mut tx, &t).await?);
    }
    let closes = store::closes::closes(&mut tx, session).await?;
    let kept_finals = store::closes::finals(&mut tx, session).await?;
    let mut finals = Vec::with_capacity(kept_finals.len());
    for f in &kept_finals {
        finals.push(
            serde_json::from_str::<Value>(&f.checkpoint)
                .map_err(|e| ServiceError::Corrupt(format!("a final checkpoint does not read: {e}")))?,
        );
    }
    let closes = store::records::CloseRecord::of(&closes, &kept_finals);
    let mut tables = Vec::new();
    for t in store::tables::list(&mut tx, None, Some(session), 1000, 0).await? {
        let log = store::tables::log(&mut tx, t.key(), 0, i64::MAX).await?;
        let places = store::chain::log_after(&mut tx, t.key(), 0).await?;
        let corrections = store::deals::corrections(&mut tx, t.key(), None).await?;
        let ledger = store::ledger::bookings(&mut tx, t.key(), None).await?;
        let links = store::chain::links(&mut tx, t.key()).await?;
        let scorers = store::chain::scorers_after(&mut tx, t.key(), 0).await?;
        let verifications = store::chain::verifications_after(&mut tx, t.key(), 0).await?;
        let witnesses = super::cosigning::of_table(&mut tx, &t, name).await?;
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
            // A chain with a gap has no tree; the verifier names the gap.
            checkpoint: (!links.is_empty())
                .then(|| super::witness::Tree::new(t.id, links.clone()).ok())
                .flatten()
                .map(|tree| tree.checkpoint(super::witness::Witness { name, key }, None))
                .transpose()?
                .map(|c| c.note),
            cosignatures: witnesses.cosignatures,
            phone_keys: witnesses.phone_keys,
            board_cosignatures: witnesses.board_cosignatures,
            board_keys: witnesses.board_keys,
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
            tournaments,
            closes,
            finals,
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
