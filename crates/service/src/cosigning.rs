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
use tablekeeper_store::cosignatures::{CosignatureRow, PhoneKeyRow};
use tablekeeper_store::{self as store, PgConnection, PgPool, StoreError, TableKey};
use uuid::Uuid;

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

/// A kept cosignature as shown, with its line under `log_name`.
///
/// # Errors
/// `Corrupt` for a row that does not read.
pub fn part(log_name: &str, row: &CosignatureRow) -> Result<CosignaturePart, ServiceError> {
    let key = verifying_key(&row.public_key)?;
    let name = cosign::phone_name(log_name, row.scorer_id);
    let signature: [u8; 64] = row
        .signature
        .as_slice()
        .try_into()
        .map_err(|_| ServiceError::Corrupt("a kept cosignature is not 64 bytes".into()))?;
    let line = Cosignature {
        key_id: cosign::key_id(&name, &key),
        name,
        time: row.signed_time as u64,
        signature,
    }
    .line();
    Ok(CosignaturePart {
        scorer_id: row.scorer_id,
        name: row.name.clone(),
        public_key: STANDARD.encode(&row.public_key),
        size: row.size as u64,
        root_hash: STANDARD.encode(&row.root_hash),
        time: row.signed_time as u64,
        line,
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
    let bytes: [u8; 32] = STANDARD
        .decode(public_key.trim())
        .ok()
        .and_then(|b| b.try_into().ok())
        .filter(|k| VerifyingKey::from_bytes(k).is_ok())
        .ok_or(ServiceError::InvalidPhoneKey)?;
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
    let refused = |code: &'static str, detail: String| ServiceError::CosignatureRefused { code, detail };
    let tree = witness::read(pool, table).await?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    let key = store::tables::fetch(&mut conn, table).await?.key();
    let phone = store::cosignatures::key(&mut conn, key, scorer)
        .await?
        .ok_or(ServiceError::PhoneKeyMissing)?;
    let public = verifying_key(&phone.public_key)?;
    let cosignature = Cosignature::parse(&submission.cosignature).map_err(|e| refused("cosignature_malformed", e))?;
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
    let ours = checkpoint_at(&tree, witness, size)?;
    if ours.root_hash != root {
        return Err(refused(
            "checkpoint_not_signed",
            format!(
                "the service never signed that checkpoint: the table's tree of {size} entries has another root hash"
            ),
        ));
    }
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
    cosignature
        .check(cosign::body_of(&ours.note), &public)
        .map_err(|e| refused("cosignature_invalid", e))?;
    let root_bytes = STANDARD
        .decode(&ours.root_hash)
        .map_err(|_| ServiceError::Corrupt("a checkpoint's root hash does not read".into()))?;
    store::cosignatures::insert(
        &mut conn,
        key,
        scorer,
        size as i64,
        &root_bytes,
        cosignature.time as i64,
        &cosignature.signature,
    )
    .await?;
    cosigned_in(&mut conn, key, witness, ours).await
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
    let key = store::tables::fetch(&mut conn, table).await?.key();
    cosigned_in(&mut conn, key, witness, checkpoint).await
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
    key: TableKey,
    witness: Witness<'_>,
    checkpoint: SignedCheckpoint,
) -> Result<CosignedCheckpoint, ServiceError> {
    let phones = store::cosignatures::keys(&mut *conn, key).await?.len() as u64;
    let rows = store::cosignatures::of_table(conn, key, Some(checkpoint.size as i64)).await?;
    let body = cosign::body_of(&checkpoint.note).to_owned();
    let mut cosignatures = Vec::new();
    let mut contradicted_by = Vec::new();
    for row in &rows {
        let part = part(witness.name, row)?;
        let holds = part.root_hash == checkpoint.root_hash
            && Cosignature::parse(&part.line)
                .and_then(|c| c.check(&body, &verifying_key(&row.public_key).map_err(|e| e.to_string())?))
                .is_ok();
        if holds {
            cosignatures.push(part);
        } else {
            contradicted_by.push(part);
        }
    }
    let mut note = checkpoint.note.clone();
    for c in &cosignatures {
        note.push_str(&c.line);
        note.push('\n');
    }
    Ok(CosignedCheckpoint {
        checkpoint,
        cosignatures,
        phones,
        note,
        contradicted_by,
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

/// The cosignatures of the table's checkpoints (all sizes) and its phones' keys, as a bundle
/// carries them, read in `conn`.
///
/// # Errors
/// `Corrupt` for a row that does not read; on database failure.
pub async fn of_table(
    conn: &mut PgConnection,
    key: TableKey,
    log_name: &str,
) -> Result<(Vec<CosignaturePart>, Vec<PhoneKey>), ServiceError> {
    let rows = store::cosignatures::of_table(&mut *conn, key, None).await?;
    let parts = rows.iter().map(|r| part(log_name, r)).collect::<Result<Vec<_>, _>>()?;
    let keys = store::cosignatures::keys(conn, key).await?;
    let keys = keys
        .iter()
        .map(|k| phone_key(log_name, k))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((parts, keys))
}
