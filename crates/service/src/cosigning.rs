//! Phones cosign their table's checkpoints (issue #43): a phone that joined a table registers
//! an Ed25519 key on first use, and sends a C2SP `cosignature/v1` of each checkpoint it has
//! seen grow consistently from the last one it cosigned; the cosignatures are kept and shown
//! with the checkpoint, in bundles and in the session's final checkpoint.
//!
//! Invariants:
//! - Only a phone cosigns, only at its own table, only with the key it registered (one per
//!   phone, for good).
//! - A cosignature is kept only if the checkpoint it signs is one the service signs for that
//!   table (its origin, and the size and root hash of the table's tree of that size) and its
//!   signature verifies under the phone's key; a refused one writes nothing.
//! - Cosignatures are append-only; a checkpoint's cosignatures are those that verify over it
//!   as the table's tree is now, and those of the same size over another root are shown apart
//!   (they say the table's history was rewritten after those phones saw it).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use tablekeeper_store::cosignatures::{BoardCosignatureRow, BoardKeyRow, CosignatureRow, PhoneKeyRow};
use tablekeeper_store::tables::TableRow;
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError};
use uuid::Uuid;

use super::access::Reader;
use super::witness::cosign::{self, Cosignature};
use super::witness::{self, SignedCheckpoint, Witness};
use super::{Principal, ServiceError};

/// A phone's key, as registered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PhoneKey {
    /// The phone (scorer) the key is of.
    pub scorer_id: Uuid,
    /// The name the phone joined with.
    #[schema(example = "Ann's phone")]
    pub name: String,
    /// The name its cosignatures are signed under: `<log name>/phones/<scorer id>`.
    pub cosigner: String,
    /// The cosignatures' key id, hex (SHA-256(cosigner ‖ 0x0A ‖ 0x04 ‖ key), its first 4 bytes).
    #[schema(example = "3c1f0e9b")]
    pub key_id: String,
    /// The Ed25519 public key, base64 (32 bytes).
    pub public_key: String,
    /// The key as other signed-note tools take it (`<name>+<key id>+<base64(0x04 ‖ key)>`).
    pub verifier_key: String,
    pub registered_at: DateTime<Utc>,
}

/// One phone's cosignature of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CosignaturePart {
    /// The phone (scorer) that cosigned.
    pub scorer_id: Uuid,
    /// The name the phone joined with.
    #[schema(example = "Ann's phone")]
    pub name: String,
    /// The phone's Ed25519 public key, base64.
    pub public_key: String,
    /// The size of the tree cosigned.
    #[schema(example = 9)]
    pub size: u64,
    /// The root hash cosigned, base64.
    pub root_hash: String,
    /// When the phone cosigned, POSIX seconds (as signed).
    #[schema(example = 1_767_225_600)]
    pub time: u64,
    /// The cosignature as a signed-note signature line:
    /// `— <cosigner name> <base64(key id ‖ time ‖ signature)>`.
    pub line: String,
}

/// A checkpoint of a table with the phones' cosignatures of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CosignedCheckpoint {
    /// The checkpoint the service signs for the table's tree of that size.
    pub checkpoint: SignedCheckpoint,
    /// The cosignatures that verify over it, oldest first.
    pub cosignatures: Vec<CosignaturePart>,
    /// How many of the table's phones have registered a key (could cosign).
    #[schema(example = 4)]
    pub phones: u64,
    /// The checkpoint's note with every cosignature's line after the service's own: the
    /// cosigned checkpoint as transparency-log tools read it.
    pub note: String,
    /// Cosignatures kept for the same size over another root hash: phones that saw another
    /// history of the table at that size. Empty for a table whose history was never rewritten.
    pub contradicted_by: Vec<CosignaturePart>,
    /// The session's boards' cosignatures that verify over it, oldest first.
    pub board_cosignatures: Vec<BoardCosignaturePart>,
    /// How many boards of the table's session have registered a key (could cosign).
    #[schema(example = 1)]
    pub boards: u64,
    /// Boards' cosignatures of the same size over another root hash, as `contradicted_by`.
    pub contradicted_by_boards: Vec<BoardCosignaturePart>,
}

/// A board's key, as registered for its session: the big screen that cosigns every table of
/// the session it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardKey {
    /// The board, as its cosignatures name it.
    pub board_id: Uuid,
    /// The session whose tables it cosigns.
    pub session_id: Uuid,
    /// What the board called itself.
    #[schema(example = "Board")]
    pub name: String,
    /// The name its cosignatures are signed under: `<log name>/boards/<board id>`.
    pub cosigner: String,
    /// The cosignatures' key id, hex (as a phone's).
    #[schema(example = "9a0b7c21")]
    pub key_id: String,
    /// The Ed25519 public key, base64 (32 bytes).
    pub public_key: String,
    /// The key as other signed-note tools take it (`<name>+<key id>+<base64(0x04 ‖ key)>`).
    pub verifier_key: String,
    pub registered_at: DateTime<Utc>,
}

/// One board's cosignature of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardCosignaturePart {
    /// The board that cosigned.
    pub board_id: Uuid,
    /// What the board called itself.
    #[schema(example = "Board")]
    pub name: String,
    /// The board's Ed25519 public key, base64.
    pub public_key: String,
    /// The size of the tree cosigned.
    #[schema(example = 9)]
    pub size: u64,
    /// The root hash cosigned, base64.
    pub root_hash: String,
    /// When the board cosigned, POSIX seconds (as signed).
    #[schema(example = 1_767_225_600)]
    pub time: u64,
    /// The cosignature as a signed-note signature line.
    pub line: String,
}

/// What a phone sends to cosign a checkpoint.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CosignatureSubmission {
    /// The checkpoint cosigned: its note as the service sent it (its body is what was signed).
    pub checkpoint: String,
    /// The cosignature line: `— <cosigner name> <base64(key id ‖ time (8 bytes, big-endian) ‖
    /// Ed25519 signature of "cosignature/v1\ntime <time>\n" and the checkpoint's body)>`.
    pub cosignature: String,
}

/// The phone `who` is, at table `table`.
///
/// # Errors
/// `NotAPhone` for an account or a phone token from before phones had identities;
/// `PhoneOfAnotherTable` for a phone that joined another table.
fn phone_at(who: Principal, table: Uuid) -> Result<Uuid, ServiceError> {
    match who {
        Principal::Scorer { table: joined, .. } if joined != table => Err(ServiceError::PhoneOfAnotherTable),
        Principal::Scorer {
            scorer: Some(scorer), ..
        } => Ok(scorer),
        _ => Err(ServiceError::NotAPhone),
    }
}

/// 32 bytes of base64 that are an Ed25519 public key.
fn ed25519_key(base64: &str) -> Option<[u8; 32]> {
    STANDARD
        .decode(base64.trim())
        .ok()
        .and_then(|b| b.try_into().ok())
        .filter(|k| VerifyingKey::from_bytes(k).is_ok())
}

fn verifying_key(bytes: &[u8]) -> Result<VerifyingKey, ServiceError> {
    <[u8; 32]>::try_from(bytes)
        .ok()
        .and_then(|k| VerifyingKey::from_bytes(&k).ok())
        .ok_or_else(|| ServiceError::Corrupt("a phone's stored key is not an Ed25519 key".into()))
}

fn phone_key(log_name: &str, row: &PhoneKeyRow) -> Result<PhoneKey, ServiceError> {
    let key = verifying_key(&row.public_key)?;
    let cosigner = cosign::phone_name(log_name, row.scorer_id);
    Ok(PhoneKey {
        scorer_id: row.scorer_id,
        name: row.name.clone(),
        key_id: hex::encode(cosign::key_id(&cosigner, &key)),
        verifier_key: cosign::verifier_key(&cosigner, &key),
        cosigner,
        public_key: STANDARD.encode(&row.public_key),
        registered_at: row.registered_at,
    })
}

/// A kept cosignature's signed-note line, signed as `name` with `public_key`.
///
/// # Errors
/// `Corrupt` for a key or signature that does not read.
fn line_of(name: String, public_key: &[u8], signed_time: i64, signature: &[u8]) -> Result<String, ServiceError> {
    let key = verifying_key(public_key)?;
    let signature: [u8; 64] = signature
        .try_into()
        .map_err(|_| ServiceError::Corrupt("a kept cosignature is not 64 bytes".into()))?;
    Ok(Cosignature {
        key_id: cosign::key_id(&name, &key),
        name,
        time: signed_time as u64,
        signature,
    }
    .line())
}

/// A kept cosignature as shown, with its line under `log_name`.
///
/// # Errors
/// `Corrupt` for a row that does not read.
pub fn part(log_name: &str, row: &CosignatureRow) -> Result<CosignaturePart, ServiceError> {
    Ok(CosignaturePart {
        scorer_id: row.scorer_id,
        name: row.name.clone(),
        public_key: STANDARD.encode(&row.public_key),
        size: row.size as u64,
        root_hash: STANDARD.encode(&row.root_hash),
        time: row.signed_time as u64,
        line: line_of(
            cosign::phone_name(log_name, row.scorer_id),
            &row.public_key,
            row.signed_time,
            &row.signature,
        )?,
    })
}

/// A board's kept cosignature as shown, with its line under `log_name`.
///
/// # Errors
/// `Corrupt` for a row that does not read.
pub fn board_part(log_name: &str, row: &BoardCosignatureRow) -> Result<BoardCosignaturePart, ServiceError> {
    Ok(BoardCosignaturePart {
        board_id: row.board_id,
        name: row.name.clone(),
        public_key: STANDARD.encode(&row.public_key),
        size: row.size as u64,
        root_hash: STANDARD.encode(&row.root_hash),
        time: row.signed_time as u64,
        line: line_of(
            cosign::board_name(log_name, row.board_id),
            &row.public_key,
            row.signed_time,
            &row.signature,
        )?,
    })
}

fn board_key(log_name: &str, session: Uuid, row: &BoardKeyRow) -> Result<BoardKey, ServiceError> {
    let key = verifying_key(&row.public_key)?;
    let cosigner = cosign::board_name(log_name, row.board_id);
    Ok(BoardKey {
        board_id: row.board_id,
        session_id: session,
        name: row.name.clone(),
        key_id: hex::encode(cosign::key_id(&cosigner, &key)),
        verifier_key: cosign::verifier_key(&cosigner, &key),
        cosigner,
        public_key: STANDARD.encode(&row.public_key),
        registered_at: row.registered_at,
    })
}

/// Registers the calling phone's Ed25519 public key (32 bytes, base64) for its table; a phone
/// that registered this very key before gets it again. The key in force.
///
/// # Errors
/// `NotAPhone`, `PhoneOfAnotherTable` (see [`phone_at`]); `InvalidPhoneKey` for a key that is
/// not 32 bytes of base64 of an Ed25519 key; `PhoneKeyTaken` for a phone that registered
/// another key; `Store(NotFound)` for no such table.
pub async fn register_key(
    pool: &PgPool,
    who: Principal,
    table: Uuid,
    public_key: &str,
    log_name: &str,
) -> Result<(PhoneKey, bool), ServiceError> {
    let scorer = phone_at(who, table)?;
    let bytes = ed25519_key(public_key).ok_or(ServiceError::InvalidPhoneKey)?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::tables::fetch(&mut conn, table).await?;
    let key = row.key();
    let before = store::cosignatures::key(&mut conn, key, scorer).await?;
    if let Some(before) = &before {
        if before.public_key != bytes {
            return Err(ServiceError::PhoneKeyTaken);
        }
    }
    let kept = store::cosignatures::register(&mut conn, key, scorer, &bytes).await?;
    if kept.public_key != bytes {
        return Err(ServiceError::PhoneKeyTaken);
    }
    Ok((phone_key(log_name, &kept)?, before.is_none()))
}

/// How far ahead of the service's clock a phone's cosignature may be dated: phones' clocks
/// drift, and a few minutes ahead is one set by hand, not a claim about the future.
pub const FUTURE_DRIFT_SECONDS: u64 = 300;

/// Keeps the calling phone's cosignature of one of its table's checkpoints, once it holds: the
/// checkpoint is the service's for the table (origin, size and root hash of its tree of that
/// size) and the cosignature verifies under the phone's key. The checkpoint with its
/// cosignatures now.
///
/// # Errors
/// `NotAPhone`, `PhoneOfAnotherTable`; `Store(NotFound)` for no such table; `PhoneKeyMissing`
/// for a phone without a key; `CheckpointNotFound` for a size the table's tree does not have;
/// `CosignatureRefused` (`cosignature_malformed`, `checkpoint_not_signed`,
/// `cosignature_invalid`, `cosignature_from_the_future`) for a cosignature that does not hold.
/// Nothing is written unless it holds.
pub async fn submit(
    pool: &PgPool,
    witness: Witness<'_>,
    who: Principal,
    table: Uuid,
    submission: &CosignatureSubmission,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<CosignedCheckpoint, ServiceError> {
    let scorer = phone_at(who, table)?;
    let tree = witness::read(pool, table).await?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::tables::fetch(&mut conn, table).await?;
    let key = row.key();
    let phone = store::cosignatures::key(&mut conn, key, scorer)
        .await?
        .ok_or(ServiceError::PhoneKeyMissing)?;
    let cosignature = Cosignature::parse(&submission.cosignature).map_err(|e| refused("cosignature_malformed", e))?;
    let expected_name = cosign::phone_name(witness.name, scorer);
    if cosignature.name != expected_name {
        return Err(refused(
            "cosignature_invalid",
            format!(
                "the cosignature is signed as `{}`, not as this phone (`{expected_name}`)",
                cosignature.name
            ),
        ));
    }
    let (ours, root) = holds(&tree, witness, table, submission, &cosignature, &phone.public_key, now)?;
    store::cosignatures::insert(
        &mut conn,
        key,
        scorer,
        ours.size as i64,
        &root,
        cosignature.time as i64,
        &cosignature.signature,
    )
    .await?;
    cosigned_in(&mut conn, &row, witness, ours).await
}

/// How many boards a session may register: a club puts up one per room; the cap keeps a share
/// link's holders from filling the session with keys.
pub const MOST_BOARDS: i64 = 16;

/// Registers a board's Ed25519 public key (32 bytes, base64) for the session, under `name`
/// (what the players read as who cosigned; "Board" when none): a board is known by its key, so
/// the same key again is the same board, answered as registered. The board's key in force, and
/// whether it is new.
///
/// # Errors
/// `Store(NotFound("session"))` for no such session or one `who` may not read (a phone reads
/// its table, not the evening around it); `InvalidBoardKey`; `InvalidBoardName` for a name
/// empty after trimming or over 60 characters; `TooManyBoards` beyond [`MOST_BOARDS`].
pub async fn register_board(
    pool: &PgPool,
    who: Reader,
    session: Uuid,
    public_key: &str,
    name: Option<&str>,
    log_name: &str,
) -> Result<(BoardKey, bool), ServiceError> {
    let mut tx = pool.begin().await.map_err(StoreError::from)?;
    let row = store::sessions::fetch(&mut tx, session).await?;
    crate::access::read_session(&mut tx, who, &row).await?;
    let bytes = ed25519_key(public_key).ok_or(ServiceError::InvalidBoardKey)?;
    let name = name.map(str::trim).unwrap_or("Board");
    if name.is_empty() || name.chars().count() > 60 || name.chars().any(char::is_control) {
        return Err(ServiceError::InvalidBoardName);
    }
    let (kept, new) = store::cosignatures::register_board(&mut tx, session, Uuid::new_v4(), name, &bytes, MOST_BOARDS)
        .await?
        .ok_or(ServiceError::TooManyBoards(MOST_BOARDS))?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok((board_key(log_name, session, &kept)?, new))
}

/// Keeps a board's cosignature of one of its session's tables' checkpoints, once it holds: the
/// board is the one the cosignature names (`<log name>/boards/<board id>`), registered for the
/// table's session, and the checkpoint and signature hold as a phone's must. The checkpoint
/// with its cosignatures now.
///
/// # Errors
/// `Store(NotFound("table"))` for no such table or one `who` may not read;
/// `CosignatureRefused` as [`submit`]'s, and `cosignature_invalid` for a cosignature not signed
/// as a board of the table's session. Nothing is written unless it holds.
pub async fn submit_board(
    pool: &PgPool,
    witness: Witness<'_>,
    who: Reader,
    table: Uuid,
    submission: &CosignatureSubmission,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<CosignedCheckpoint, ServiceError> {
    let row = crate::access::readable_table(pool, who, table).await?;
    let cosignature = Cosignature::parse(&submission.cosignature).map_err(|e| refused("cosignature_malformed", e))?;
    let tree = witness::read(pool, table).await?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let not_a_board = || {
        refused(
            "cosignature_invalid",
            format!(
                "the cosignature is signed as `{}`, not as a board of this table's session (`{}/boards/<board id>`)",
                cosignature.name, witness.name
            ),
        )
    };
    let (Some(session), Some(board)) = (row.session_id, cosign::board_of(witness.name, &cosignature.name)) else {
        return Err(not_a_board());
    };
    let Some(registered) = store::cosignatures::board_key(&mut conn, session, board).await? else {
        return Err(not_a_board());
    };
    let (ours, root) = holds(
        &tree,
        witness,
        table,
        submission,
        &cosignature,
        &registered.public_key,
        now,
    )?;
    store::cosignatures::insert_board(
        &mut conn,
        row.key(),
        session,
        board,
        ours.size as i64,
        &root,
        cosignature.time as i64,
        &cosignature.signature,
    )
    .await?;
    cosigned_in(&mut conn, &row, witness, ours).await
}

fn refused(code: &'static str, detail: String) -> ServiceError {
    ServiceError::CosignatureRefused { code, detail }
}

/// The service's checkpoint the submission cosigns, and its root hash, when the cosignature
/// holds over it under `public` (the signer's registered key): not dated ahead of the service's
/// clock, of this table's log, of a tree the table has with that root, signature verifying.
fn holds(
    tree: &witness::Tree,
    witness: Witness<'_>,
    table: Uuid,
    submission: &CosignatureSubmission,
    cosignature: &Cosignature,
    public: &[u8],
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(SignedCheckpoint, Vec<u8>), ServiceError> {
    let public = verifying_key(public)?;
    // A cosignature says when the phone saw the checkpoint: one dated ahead of the service's
    // clock (beyond a phone's usual drift) would later read as seen at a time not yet come.
    let latest = u64::try_from(now.timestamp()).unwrap_or(0) + FUTURE_DRIFT_SECONDS;
    if cosignature.time > latest {
        return Err(refused(
            "cosignature_from_the_future",
            format!(
                "the cosignature is dated {} (POSIX seconds), more than {FUTURE_DRIFT_SECONDS} s after the service's clock ({}): set the phone's clock and sign again",
                cosignature.time,
                now.timestamp()
            ),
        ));
    }
    let body = cosign::body_of(&submission.checkpoint);
    let (origin, size, root) = checkpoint_fields(body).map_err(|e| refused("cosignature_malformed", e))?;
    if origin != witness::origin(witness.name, table) {
        return Err(refused(
            "checkpoint_not_signed",
            format!("the checkpoint is of `{origin}`, not of this table's log"),
        ));
    }
    let ours = checkpoint_at(tree, witness, size)?;
    if ours.root_hash != root {
        return Err(refused(
            "checkpoint_not_signed",
            format!(
                "the service never signed that checkpoint: the table's tree of {size} entries has another root hash"
            ),
        ));
    }
    cosignature
        .check(cosign::body_of(&ours.note), &public)
        .map_err(|e| refused("cosignature_invalid", e))?;
    let root_bytes = STANDARD
        .decode(&ours.root_hash)
        .map_err(|_| ServiceError::Corrupt("a checkpoint's root hash does not read".into()))?;
    Ok((ours, root_bytes))
}

/// The table's checkpoint of `size` and the cosignatures on it (the access is the caller's).
///
/// # Errors
/// `Store(NotFound)` for no such table; `CheckpointNotFound` for a size the table's tree does
/// not have; `Damaged` for a chain with a gap.
pub async fn cosigned(
    pool: &PgPool,
    witness: Witness<'_>,
    table: Uuid,
    size: u64,
) -> Result<CosignedCheckpoint, ServiceError> {
    let tree = witness::read(pool, table).await?;
    let checkpoint = checkpoint_at(&tree, witness, size)?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let row = store::tables::fetch(&mut conn, table).await?;
    cosigned_in(&mut conn, &row, witness, checkpoint).await
}

fn checkpoint_at(tree: &witness::Tree, witness: Witness<'_>, size: u64) -> Result<SignedCheckpoint, ServiceError> {
    if size == 0 || size > tree.size() {
        return Err(ServiceError::CheckpointNotFound {
            size,
            have: tree.size(),
        });
    }
    tree.checkpoint(witness, Some(size))
}

/// The checkpoint's cosignatures, read in `conn`: those that verify over it, and those of its
/// size over another root.
async fn cosigned_in(
    conn: &mut PgConnection,
    table: &TableRow,
    witness: Witness<'_>,
    checkpoint: SignedCheckpoint,
) -> Result<CosignedCheckpoint, ServiceError> {
    let key = table.key();
    let size = Some(checkpoint.size as i64);
    let phones = store::cosignatures::keys(&mut *conn, key).await?.len() as u64;
    let boards = match table.session_id {
        Some(session) => store::cosignatures::board_keys(&mut *conn, session).await?.len() as u64,
        None => 0,
    };
    let rows = store::cosignatures::of_table(&mut *conn, key, size).await?;
    let board_rows = store::cosignatures::boards_of_table(conn, key, size).await?;
    let body = cosign::body_of(&checkpoint.note).to_owned();
    // Whether a kept cosignature (its root, its line) verifies over this very checkpoint.
    let over_it = |root_hash: &str, line: &str, public_key: &[u8]| {
        root_hash == checkpoint.root_hash
            && Cosignature::parse(line)
                .and_then(|c| c.check(&body, &verifying_key(public_key).map_err(|e| e.to_string())?))
                .is_ok()
    };
    let (mut cosignatures, mut contradicted_by) = (Vec::new(), Vec::new());
    for row in &rows {
        let part = part(witness.name, row)?;
        if over_it(&part.root_hash, &part.line, &row.public_key) {
            cosignatures.push(part);
        } else {
            contradicted_by.push(part);
        }
    }
    let (mut board_cosignatures, mut contradicted_by_boards) = (Vec::new(), Vec::new());
    for row in &board_rows {
        let part = board_part(witness.name, row)?;
        if over_it(&part.root_hash, &part.line, &row.public_key) {
            board_cosignatures.push(part);
        } else {
            contradicted_by_boards.push(part);
        }
    }
    let mut note = checkpoint.note.clone();
    for line in cosignatures
        .iter()
        .map(|c| &c.line)
        .chain(board_cosignatures.iter().map(|c| &c.line))
    {
        note.push_str(line);
        note.push('\n');
    }
    Ok(CosignedCheckpoint {
        checkpoint,
        cosignatures,
        phones,
        note,
        contradicted_by,
        board_cosignatures,
        boards,
        contradicted_by_boards,
    })
}

/// A checkpoint body's origin, size and root hash (base64, as written), without trusting any
/// signature: it is compared with the service's own checkpoint of that size.
fn checkpoint_fields(body: &str) -> Result<(String, u64, String), String> {
    let mut lines = body.lines();
    let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next()) else {
        return Err("the checkpoint is not three lines: origin, size and root hash".into());
    };
    let size = (size.bytes().all(|b| b.is_ascii_digit()) && (size == "0" || !size.starts_with('0')))
        .then(|| size.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| format!("the checkpoint's size `{size}` is not a number"))?;
    Ok((origin.to_owned(), size, root.to_owned()))
}

/// What a bundle carries of a table's witnesses: the phones' and the boards' cosignatures of
/// its checkpoints (all sizes), its phones' keys and its session's boards' keys.
#[derive(Debug, Default)]
pub struct Witnesses {
    pub cosignatures: Vec<CosignaturePart>,
    pub phone_keys: Vec<PhoneKey>,
    pub board_cosignatures: Vec<BoardCosignaturePart>,
    pub board_keys: Vec<BoardKey>,
}

/// The table's witnesses as a bundle carries them, read in `conn`.
///
/// # Errors
/// `Corrupt` for a row that does not read; on database failure.
pub async fn of_table(conn: &mut PgConnection, table: &TableRow, log_name: &str) -> Result<Witnesses, ServiceError> {
    let key = table.key();
    let rows = store::cosignatures::of_table(&mut *conn, key, None).await?;
    let cosignatures = rows.iter().map(|r| part(log_name, r)).collect::<Result<Vec<_>, _>>()?;
    let keys = store::cosignatures::keys(&mut *conn, key).await?;
    let phone_keys = keys
        .iter()
        .map(|k| phone_key(log_name, k))
        .collect::<Result<Vec<_>, _>>()?;
    let rows = store::cosignatures::boards_of_table(&mut *conn, key, None).await?;
    let board_cosignatures = rows
        .iter()
        .map(|r| board_part(log_name, r))
        .collect::<Result<Vec<_>, _>>()?;
    let board_keys = match table.session_id {
        Some(session) => store::cosignatures::board_keys(conn, session)
            .await?
            .iter()
            .map(|k| board_key(log_name, session, k))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(Witnesses {
        cosignatures,
        phone_keys,
        board_cosignatures,
        board_keys,
    })
}
