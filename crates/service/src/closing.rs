//! The end of an evening (issue #42): a session closes, its correction window runs, then it is
//! final, with a signed final checkpoint; an owner may reopen it, with a reason kept for ever.
//!
//! Invariants:
//! - A session is `open` without a close in force (none, or its latest reopened), `closing`
//!   from the close until its `final_at`, and `final` from then; the time compared is the one
//!   passed in (the application's [`crate::clock::Clock`]), never read here.
//! - Every write to a final session (its tables' moves, undos, corrections, verifications,
//!   scorers joining, new tables in it, its tournaments) is refused with
//!   [`ServiceError::SessionFinal`] before it writes anything, in the write's own transaction
//!   (`finality`: [`refuse_if_final`], [`lock_writable`]; a move reads it with its table); a
//!   tournament's writes check it under the session's lock, which a close takes too.
//! - A close, a reopening and a final checkpoint each link the session's record in the same
//!   transaction (`chain::record::link_session`, record version 3).
//! - A close's final checkpoint is made once, when first asked for after its window (in the
//!   close's transaction when the window is 0), with the session's row locked, and kept: the
//!   same document every time after, a reopening included.
//! - A checkpoint names the session's record chain head and each table's chain head, the
//!   standings and the settle-up; it is signed with the audit key over [`DOMAIN`] and its
//!   canonical JSON (RFC 8785) without `signature`, and its hash (SHA-256 of that canonical
//!   JSON) is in the session's record. One made since phones cosign (issue #43) names, for each
//!   table, the phones that cosigned its last checkpoint (`cosigned_by`); earlier ones have no
//!   such field and verify as they were signed.

use chrono::{DateTime, Duration, Utc};
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde_json::{json, Value};
pub use tablekeeper_store::closes::{CloseRow, FinalRow};
use tablekeeper_store::sessions::ClubSession;
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError};
use uuid::Uuid;

pub use super::finality::{in_force, lock_writable, refuse_if_final, status, Status};

use super::access::{self, Account, Capability};
use super::chain::{self, sha256};
use super::flags;
use super::receipts::{key_id, AuditKeys};
use super::sessions::{self, Party};
use super::{ensure_user, ServiceError};
use tablekeeper_store::clubs::ClubRole;

/// What a final checkpoint's signature is prefixed with, so that no other signature of the
/// audit key can be taken for one.
pub const DOMAIN: &str = "tablekeeper-final/1\n";

/// Names a final checkpoint's shape.
pub const FORMAT: &str = "tablekeeper-final/1";

/// The longest correction window: a week.
pub const WINDOW_MAX_SECS: i64 = 7 * 24 * 3600;

/// A session's closes and final checkpoints, and where it stands.
#[derive(Debug, Clone)]
pub struct Closes {
    pub status: Status,
    pub closes: Vec<CloseRow>,
    pub finals: Vec<FinalRow>,
}

impl Closes {
    /// The close in force.
    pub fn current(&self) -> Option<&CloseRow> {
        in_force(&self.closes)
    }
}

/// The session's closes as `conn` reads them, at `now`.
///
/// # Errors
/// On database failure.
pub async fn closes_in(conn: &mut PgConnection, session: Uuid, now: DateTime<Utc>) -> Result<Closes, ServiceError> {
    let closes = store::closes::closes(&mut *conn, session).await?;
    let finals = store::closes::finals(&mut *conn, session).await?;
    // Once made, the close's checkpoint makes the session final, whatever this clock says.
    let checkpointed = in_force(&closes).is_some_and(|c| finals.iter().any(|f| f.n == c.n));
    Ok(Closes {
        status: if checkpointed {
            Status::Final
        } else {
            status(&closes, now)
        },
        closes,
        finals,
    })
}

/// A close as asked for: the window (seconds, checked: 0 to [`WINDOW_MAX_SECS`]; None: the
/// club's), and whether to close with tables still being played, and why.
#[derive(Debug, Clone)]
pub struct Close {
    pub window: Option<i64>,
    pub force: bool,
    pub reason: Option<String>,
}

/// Closes the session (its club's organisers and owners): its correction window starts; at 0
/// it is final at once and its final checkpoint is made. Webhook `session.closed` (and
/// `session.final` at 0).
///
/// # Errors
/// `Store(NotFound("session"))` for a stranger; `Forbidden`; `ReasonRequired` for `force`
/// without a reason; `SessionClosed` when closed already; `TablesPlaying` when tables are still
/// being played and `FlagsUnverified` when a flagged deal is neither verified nor ruled on, and
/// `force` is not given. Nothing is written on error.
pub async fn close(
    pool: &PgPool,
    keys: &AuditKeys,
    account: Account,
    session: Uuid,
    close: Close,
    now: DateTime<Utc>,
) -> Result<Closes, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, account.user()).await?;
    let row = store::sessions::fetch(&mut tx, session).await?;
    access::require(&mut tx, account, row.club_id, Capability::Organise, "session").await?;
    let row = store::sessions::lock(&mut tx, session).await?;
    let reason = close.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
    if close.force && reason.is_none() {
        return Err(ServiceError::ReasonRequired(
            "a close with `force` needs a `reason`: why the tables still being played, or the flagged deals not verified, are closed",
        ));
    }
    let closes = store::closes::closes(&mut tx, session).await?;
    if in_force(&closes).is_some() {
        return Err(ServiceError::SessionClosed);
    }
    let playing: Vec<Uuid> = store::tables::list(&mut tx, None, Some(session), 1000, 0)
        .await?
        .into_iter()
        .filter(|t| !t.finished)
        .map(|t| t.id)
        .collect();
    if !playing.is_empty() && !close.force {
        return Err(ServiceError::TablesPlaying(playing));
    }
    // Read under the session's lock, as the tables are: a deal verified meanwhile is seen.
    let unverified: Vec<(Uuid, u16)> = flagged_in(&mut tx, session)
        .await?
        .into_iter()
        .filter(|f| !f.cleared())
        .map(|f| (f.table, f.deal))
        .collect();
    if !unverified.is_empty() && !close.force {
        return Err(ServiceError::FlagsUnverified(unverified));
    }
    let window = match close.window {
        Some(secs) => secs,
        None => i64::from(store::closes::window_of(&mut tx, row.club_id).await?),
    };
    let n = closes.last().map_or(1, |c| c.n + 1);
    let made = CloseRow {
        n,
        closed_at: now,
        closed_by: account.user(),
        final_at: now + Duration::seconds(window),
        forced: if playing.is_empty() && unverified.is_empty() {
            None
        } else {
            reason.map(str::to_owned)
        },
        reopened_at: None,
        reopened_by: None,
        reopen_reason: None,
    };
    store::closes::insert_close(&mut tx, session, &made).await?;
    super::chain::record::link_session(&mut tx, session).await?;
    let data = json!({
        "club_id": row.club_id,
        "session_id": session,
        "close": n,
        "closed_at": made.closed_at,
        "final_at": made.final_at,
    });
    store::webhooks::enqueue(
        &mut tx,
        row.club_id,
        &[super::webhooks::event(super::webhooks::SESSION_CLOSED, now, data)],
        now,
    )
    .await?;
    tx.commit().await.map_err(StoreError::from)?;
    if made.final_at <= now {
        // Made once the close is committed, after the writes under way to the tables: a move
        // read before the close would otherwise commit after the checkpoint read its chain.
        // The close stands whatever happens here: a checkpoint not made now is made when first
        // asked for (`GET /sessions/{id}/final`), under the same locks.
        match final_checkpoint(pool, keys, session, now).await {
            Ok((_, closes)) => return Ok(closes),
            Err(e) => tracing::warn!(%session, error = %e, "the final checkpoint of a close at once was not made"),
        }
    }
    closes_in(&mut *pool.acquire().await.map_err(StoreError::from)?, session, now).await
}

/// Reopens a closed session (its club's owners only), with `reason` (checked: not blank): the
/// reopening is recorded and chained; a final session's checkpoint is made first, if it was not
/// yet, so that it is kept.
///
/// # Errors
/// `Store(NotFound("session"))`; `Forbidden` for anyone but an owner (by password: a token's
/// is `TokenScope`); `ReasonRequired`;
/// `SessionNotClosed` for an open session. Nothing is written on error.
pub async fn reopen(
    pool: &PgPool,
    keys: &AuditKeys,
    account: Account,
    session: Uuid,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<Closes, ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    ensure_user(&mut tx, account.user()).await?;
    let row = store::sessions::fetch(&mut tx, session).await?;
    // An owner's password, as a member's new password: no API token reopens a session.
    let role = match access::password_role(&mut tx, account, row.club_id).await {
        Err(ServiceError::Store(StoreError::NotFound(_))) => return Err(StoreError::NotFound("session").into()),
        other => other?,
    };
    if role != ClubRole::Owner {
        return Err(ServiceError::Forbidden("only the club's owners reopen a session"));
    }
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(ServiceError::ReasonRequired(
            "a reopening needs a `reason`: it is shown beside the result for ever",
        ));
    }
    // A checkpoint made here waits for the tables' writes under way, as every one does.
    store::tables::hold_session_tables(&mut tx, session).await?;
    let row = store::sessions::lock(&mut tx, session).await?;
    let closes = closes_in(&mut tx, session, now).await?;
    let Some(current) = closes.current().cloned() else {
        return Err(ServiceError::SessionNotClosed);
    };
    if closes.status == Status::Final && !closes.finals.iter().any(|f| f.n == current.n) {
        let key = keys.signing(pool).await?;
        make_final(&mut tx, key, &row, &current, now).await?;
    }
    store::closes::insert_reopening(&mut tx, session, current.n, now, account.user(), reason).await?;
    super::chain::record::link_session(&mut tx, session).await?;
    let closes = closes_in(&mut tx, session, now).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(closes)
}

/// The session's final checkpoint (of its close in force), made now if this is the first time
/// it is asked for; the caller's right to read the session is checked before.
///
/// # Errors
/// `Store(NotFound("session"))`; `SessionNotFinal` before the window has run (or when open).
pub async fn final_checkpoint(
    pool: &PgPool,
    keys: &AuditKeys,
    session: Uuid,
    now: DateTime<Utc>,
) -> Result<(FinalRow, Closes), ServiceError> {
    {
        let mut conn = pool.acquire().await.map_err(StoreError::from)?;
        store::sessions::fetch(&mut conn, session).await?;
        let closes = closes_in(&mut conn, session, now).await?;
        let Some(current) = closes.current().filter(|_| closes.status == Status::Final) else {
            return Err(ServiceError::SessionNotFinal);
        };
        if let Some(kept) = closes.finals.iter().find(|f| f.n == current.n).cloned() {
            return Ok((kept, closes));
        }
    }
    let key = keys.signing(pool).await?;
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    // The tables before the session, in the order a round's close and a closing session's
    // writes take them: every write to them under way is committed (and read) before the chain
    // heads are, and none is written after them (a move's write is guarded by `final_at`, a
    // closing session's other writes wait for the session and find the checkpoint).
    store::tables::hold_session_tables(&mut tx, session).await?;
    let row = store::sessions::lock(&mut tx, session).await?;
    let closes = closes_in(&mut tx, session, now).await?;
    let Some(current) = closes.current().filter(|_| closes.status == Status::Final).cloned() else {
        return Err(ServiceError::SessionNotFinal);
    };
    let made = match closes.finals.iter().find(|f| f.n == current.n).cloned() {
        Some(kept) => kept,
        None => make_final(&mut tx, key, &row, &current, now).await?,
    };
    let closes = closes_in(&mut tx, session, now).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok((made, closes))
}

/// A flagged deal of a session, for the director.
#[derive(Debug, Clone)]
pub struct FlaggedDeal {
    pub table: Uuid,
    pub deal: u16,
    pub flags: Vec<flags::Flag>,
    /// The latest verification of the deal as it stands agrees.
    pub verified: bool,
    /// A director ruled on the deal.
    pub ruled: bool,
}

impl FlaggedDeal {
    /// Whether it no longer holds up the session's close.
    #[must_use]
    pub fn cleared(&self) -> bool {
        self.verified || self.ruled
    }
}

/// The session's flagged deals, table by table (in order of creation), deal 1 first.
///
/// # Errors
/// As [`flags::of_table`].
pub async fn flagged_in(conn: &mut PgConnection, session: Uuid) -> Result<Vec<FlaggedDeal>, ServiceError> {
    let mut read = flags::Session::read(&mut *conn, session).await?;
    let tables = read.tables.clone();
    let mut out = Vec::new();
    for table in &tables {
        let flags = flags::of_table(&mut *conn, table, Some(&mut read)).await?;
        if flags.iter().all(Vec::is_empty) {
            continue;
        }
        let statuses = super::verification::statuses(&mut *conn, table).await?;
        let rulings = store::rulings::entries(&mut *conn, table.key()).await?;
        for (deal, flags) in (1u16..).zip(flags) {
            if flags.is_empty() {
                continue;
            }
            out.push(FlaggedDeal {
                table: table.id,
                deal,
                flags,
                verified: statuses.get(usize::from(deal) - 1) == Some(&super::corrections::Verification::Verified),
                ruled: !super::ruled::records_of(&rulings, deal).is_empty(),
            });
        }
    }
    Ok(out)
}

/// The session's flagged deals, on a connection of `pool`: see [`flagged_in`].
///
/// # Errors
/// As [`flagged_in`].
pub async fn flagged(pool: &store::PgPool, session: Uuid) -> Result<Vec<FlaggedDeal>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    flagged_in(&mut conn, session).await
}

/// A final checkpoint's `standings` and `settlement`: each player's net chips and points, the
/// pools' and the bank's, and the settle-up's payments. `tablekeeper verify` works them out again
/// from a bundle with this same code and compares.
///
/// # Errors
/// As [`sessions::payments`].
pub fn standings_and_settlement(standings: &sessions::Standings) -> Result<(Value, Value), ServiceError> {
    let payments = sessions::payments(standings)?;
    let party = |p: &Party| match p {
        Party::Player(s) => json!({"member_id": s.identity.member(), "player": s.name}),
        Party::Pools => json!("pools"),
        Party::Bank => json!("bank"),
    };
    let session = &standings.session;
    Ok((
        json!({
            "players": standings.players.iter().map(|p| json!({
                "member_id": p.identity.member(),
                "player": p.name,
                "chips": p.chips,
                "points": p.points.iter().map(|(g, n)| json!({"game": g, "points": n})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "pools_chips": standings.pools,
            "banked_chips": standings.banked,
        }),
        json!({
            "chip_value": session.chip_value,
            "currency": session.currency,
            "payments": payments.iter().map(|p| json!({
                "from": party(&p.from),
                "to": party(&p.to),
                "chips": p.chips,
                "minor_units": p.money,
            })).collect::<Vec<_>>(),
        }),
    ))
}

/// Who cosigned the table's last checkpoint (its tree as its chain is now): each phone once,
/// by its first cosignature of it, as `{scorer, name, public_key, time}`, then each of the
/// session's boards once, as `{board, name, public_key, time}`. Final checkpoints made before
/// phones cosigned have no `cosigned_by`; those made since name it for every table.
async fn cosigners_of_last(tx: &mut PgConnection, table: store::TableKey) -> Result<Vec<Value>, ServiceError> {
    use base64::Engine as _;
    let encode = |key: &[u8]| base64::engine::general_purpose::STANDARD.encode(key);
    let links = store::chain::links(&mut *tx, table).await?;
    if links.is_empty() {
        return Ok(Vec::new());
    }
    let size = Some(links.len() as i64);
    let root = super::witness::tree::root(&super::witness::leaves(&links));
    let phones = store::cosignatures::of_table(&mut *tx, table, size).await?;
    let boards = store::cosignatures::boards_of_table(&mut *tx, table, size).await?;
    let mut seen = std::collections::BTreeSet::new();
    let phones = phones
        .iter()
        .filter(|r| r.root_hash == root && seen.insert(r.scorer_id))
        .map(|r| json!({"scorer": r.scorer_id, "name": r.name, "public_key": encode(&r.public_key), "time": r.signed_time}));
    let mut seen = std::collections::BTreeSet::new();
    let boards = boards
        .iter()
        .filter(|r| r.root_hash == root && seen.insert(r.board_id))
        .map(|r| json!({"board": r.board_id, "name": r.name, "public_key": encode(&r.public_key), "time": r.signed_time}));
    Ok(phones.chain(boards).collect())
}

/// Makes, signs, keeps and chains close `close`'s final checkpoint, with the session's row
/// locked; webhook `session.final`.
async fn make_final(
    tx: &mut PgConnection,
    key: &SigningKey,
    session: &ClubSession,
    close: &CloseRow,
    now: DateTime<Utc>,
) -> Result<FinalRow, ServiceError> {
    let links = store::records::links(&mut *tx, session.id).await?;
    let record = links
        .last()
        .map(|l| json!({"position": l.pos, "head": chain::hex(&l.hash)}));
    let mut tables = Vec::new();
    for t in store::tables::list(&mut *tx, None, Some(session.id), 1000, 0).await? {
        let end = store::chain::end(&mut *tx, t.key()).await?;
        let cosigned_by = cosigners_of_last(&mut *tx, t.key()).await?;
        tables.push(json!({
            "table": t.id,
            "position": end.last.as_ref().map(|l| l.pos),
            "head": end.last.as_ref().map(|l| chain::hex(&l.hash)),
            "cosigned_by": cosigned_by,
        }));
    }
    let standings = sessions::standings_in(&mut *tx, session.id).await?;
    let (standings, settlement) = standings_and_settlement(&standings)?;
    let mut document = json!({
        "format": FORMAT,
        "session": session.id,
        "club": session.club_id,
        "close": close.n,
        "closed_at": close.closed_at,
        "final_at": close.final_at,
        "made_at": now,
        "record": record,
        "tables": tables,
        "standings": standings,
        "settlement": settlement,
        "key_id": key_id(&key.verifying_key()),
        "public_key": chain::hex(key.verifying_key().as_bytes()),
    });
    let signed = chain::canonical(&document);
    let hash = sha256(signed.as_bytes());
    let signature = key.sign(format!("{DOMAIN}{signed}").as_bytes());
    if let Value::Object(map) = &mut document {
        map.insert("signature".into(), Value::String(chain::hex(&signature.to_bytes())));
    }
    let made = FinalRow {
        n: close.n,
        made_at: now,
        checkpoint: chain::canonical(&document),
        hash: hash.to_vec(),
    };
    store::closes::insert_final(&mut *tx, session.id, &made).await?;
    super::chain::record::link_session(&mut *tx, session.id).await?;
    let data = json!({
        "club_id": session.club_id,
        "session_id": session.id,
        "close": close.n,
        "final_at": close.final_at,
        "checkpoint": chain::hex(&hash),
    });
    store::webhooks::enqueue(
        &mut *tx,
        session.club_id,
        &[super::webhooks::event(super::webhooks::SESSION_FINAL, now, data)],
        now,
    )
    .await?;
    Ok(made)
}

/// A final checkpoint read back and its signature checked: by one of `keys` (its `key_id`
/// names which), or by its own public key when none are given. The document and the hash of its
/// canonical form without the signature.
///
/// # Errors
/// A sentence naming what does not hold.
pub fn check_checkpoint(document: &Value, keys: &[VerifyingKey]) -> Result<(Value, String), String> {
    let Value::Object(map) = document else {
        return Err("a final checkpoint is not a JSON object".into());
    };
    if map.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(format!("a final checkpoint's format is not {FORMAT}"));
    }
    let mut unsigned = map.clone();
    let signature = unsigned
        .remove("signature")
        .and_then(|s| s.as_str().and_then(super::keys::unhex::<64>))
        .ok_or("a final checkpoint is not signed (128 hex digits)")?;
    let named = unsigned.get("key_id").and_then(Value::as_str).unwrap_or_default();
    let own = unsigned
        .get("public_key")
        .and_then(Value::as_str)
        .and_then(super::keys::unhex::<32>)
        .and_then(|k| VerifyingKey::from_bytes(&k).ok());
    let key = if keys.is_empty() {
        own.ok_or("a final checkpoint names no public key")?
    } else {
        *keys.iter().find(|k| key_id(k) == named).ok_or_else(|| {
            format!("the final checkpoint is signed with key {named}, which is not among the keys given")
        })?
    };
    let unsigned = Value::Object(unsigned);
    let signed = chain::canonical(&unsigned);
    key.verify(
        format!("{DOMAIN}{signed}").as_bytes(),
        &ed25519_dalek::Signature::from_bytes(&signature),
    )
    .map_err(|_| {
        "the final checkpoint's signature does not match it: it was changed, or not issued by this server".to_owned()
    })?;
    Ok((unsigned, chain::hex(&sha256(signed.as_bytes()))))
}

/// The club's correction window, in seconds: what a session's close takes when it names none
/// (any member reads it).
///
/// # Errors
/// `Store(NotFound("club"))` for a stranger to the club.
pub async fn club_window(pool: &PgPool, account: Account, club: Uuid) -> Result<i64, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    access::require(&mut conn, account, club, Capability::Read, "club").await?;
    Ok(i64::from(store::closes::window_of(&mut conn, club).await?))
}

/// Sets the club's correction window (whoever runs the club: owners and those who manage its
/// members), 0 to [`WINDOW_MAX_SECS`] seconds; sessions closed already keep theirs.
///
/// # Errors
/// `InvalidWindow` out of range; `Store(NotFound("club"))`; `Forbidden`.
pub async fn set_club_window(pool: &PgPool, account: Account, club: Uuid, secs: i64) -> Result<i64, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    ensure_user(&mut conn, account.user()).await?;
    access::require(&mut conn, account, club, Capability::Manage, "club").await?;
    let stored = i32::try_from(secs)
        .ok()
        .filter(|s| (0..=WINDOW_MAX_SECS).contains(&i64::from(*s)))
        .ok_or(ServiceError::InvalidWindow)?;
    store::closes::set_window(&mut conn, club, stored).await?;
    Ok(secs)
}

/// The session's closes and final checkpoints, and where it stands at `now`.
///
/// # Errors
/// On database failure.
pub async fn closes(pool: &PgPool, session: Uuid, now: DateTime<Utc>) -> Result<Closes, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    closes_in(&mut conn, session, now).await
}

/// The session's reopened closes, oldest first: who reopened each, when and why, which every
/// result of the session shows beside it ever after.
///
/// # Errors
/// On database failure.
pub async fn reopenings(pool: &PgPool, session: Uuid) -> Result<Vec<CloseRow>, ServiceError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(store::closes::closes(&mut conn, session)
        .await?
        .into_iter()
        .filter(|c| c.reopened_at.is_some())
        .collect())
}
