//! Receipts: the audit key's signature on a table's chain head, handed to whoever extended the
//! chain, so that the chain is anchored outside the database it is stored in.
//!
//! A superuser of the database can rewrite a table's entries and hash the chain again, and
//! could re-sign a bundle with a key kept beside them; a receipt kept on a phone cannot be
//! re-issued without the signing key. Anyone holding a receipt later than a change finds it:
//! the bundle must hold, at the receipt's position, the very link the receipt signed (as
//! Certificate Transparency's signed tree heads do for a log).
//!
//! Invariants:
//! - A receipt names the table, its session then, the chain position and the head hash (the
//!   hash of the link at that position), the time, and the id of the key that signed it.
//! - The signature is Ed25519 over [`DOMAIN`] followed by the RFC 8785 canonical JSON of the
//!   receipt without its `signature` member; the verifier recomputes the form from the receipt
//!   as it was kept, member by member, so it does not depend on how a client re-wrote it.
//! - A key id is the first 16 hex digits of the SHA-256 of the 32-byte public key: bundles and
//!   receipts name their key by it, so a rotation keeps old ones verifiable with the old key.
//! - The signing key never comes from the database outside local use (`config`); locally, one
//!   made once and kept in the database stands in, and the server says so at start-up.

use chrono::{DateTime, SecondsFormat, Utc};
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tablekeeper_store::{PgConnection, PgPool};
use tokio::sync::OnceCell;
use uuid::Uuid;

use super::chain::{self, sha256};
use super::ServiceError;
use tablekeeper_store as store;

/// What a receipt's signature is prefixed with: no other signature of the audit key (a bundle
/// signs its canonical JSON, which starts with `{`) can be taken for a receipt's.
pub const DOMAIN: &str = "tablekeeper-receipt/1\n";

/// A signed statement that a table's chain had `head` at `position`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    /// The table whose chain it anchors.
    pub table: Uuid,
    /// The session the table was in, null for a table outside sessions.
    pub session: Option<Uuid>,
    /// The chain position of the link signed (links count from 0, the table's set-up).
    #[schema(example = 12)]
    pub position: i64,
    /// The hash (hex SHA-256) of the link at `position`: the table's chain head then.
    #[schema(example = "5d2c0f6a1b9e4e2f8a7c3d5b1e0f9a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a")]
    pub head: String,
    /// When it was issued (RFC 3339, UTC, microseconds).
    #[schema(example = "2026-11-26T20:15:03.123456Z")]
    pub at: String,
    /// The signing key's id: the first 16 hex digits of SHA-256 of its public key.
    #[schema(example = "3f9a0c1d2e4b5a69")]
    pub key_id: String,
    /// The table's tree at this point as a signed checkpoint (C2SP signed note: origin, size
    /// `position + 1`, root hash, the audit key's signature under the log's name), the same
    /// note `GET /tables/{id}/checkpoints/{size}` and the proofs give. Receipts issued before
    /// trees were kept, and receipts of older entries re-sent by a stream, have none; the
    /// receipt's own signature covers it when it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// Ed25519 (hex, 64 bytes) over `tablekeeper-receipt/1\n` followed by the RFC 8785
    /// canonical JSON of the receipt without `signature`.
    pub signature: String,
}

/// The id of a public key: the first 16 hex digits of its SHA-256.
pub fn key_id(key: &VerifyingKey) -> String {
    let mut id = chain::hex(&sha256(key.as_bytes()));
    id.truncate(16);
    id
}

/// The bytes a receipt's signature covers: [`DOMAIN`] and the canonical JSON of `receipt`, an
/// object without its `signature`.
///
/// # Errors
/// When `receipt` does not encode (it always does: plain strings and integers).
fn signed_form(receipt: &Value) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = DOMAIN.as_bytes().to_vec();
    super::canonical::canonicalize(&serde_json::to_string(receipt)?, &mut out)?;
    Ok(out)
}

/// The key that signs receipts and checkpoints, and the log name checkpoints are signed under.
#[derive(Debug, Clone, Copy)]
pub struct ReceiptSigner<'a> {
    pub key: &'a SigningKey,
    pub name: &'a str,
}

impl ReceiptSigner<'_> {
    /// A receipt for `head` at `position` of the table's chain, carrying the checkpoint of the
    /// table's tree of `position + 1` leaves when its `root` is known ([`sign`]).
    ///
    /// # Errors
    /// As [`sign`].
    pub fn sign(
        &self,
        table: Uuid,
        session: Option<Uuid>,
        position: i64,
        head: &[u8],
        at: DateTime<Utc>,
        root: Option<&super::witness::tree::Hash>,
    ) -> Result<Receipt, ServiceError> {
        sign(
            self.key,
            table,
            session,
            position,
            head,
            at,
            root.map(|root| (self.name, root)),
        )
    }
}

/// The audit keys: the one that signs now, and earlier ones whose bundles and receipts still
/// verify.
#[derive(Debug)]
pub struct AuditKeys {
    /// The log's name: checkpoints are signed under it (`witness::note::log_name`).
    name: String,
    configured: Option<SigningKey>,
    /// Locally, with no key configured: the one kept in the database, read once.
    kept: OnceCell<SigningKey>,
    previous: Vec<VerifyingKey>,
}

impl AuditKeys {
    /// The keys from the configuration: the signing seed, if any (none: the database keeps one,
    /// for local use), and the public keys of earlier signing keys.
    pub fn new(seed: Option<[u8; 32]>, previous: &[VerifyingKey], name: String) -> AuditKeys {
        AuditKeys {
            name,
            configured: seed.map(|s| SigningKey::from_bytes(&s)),
            kept: OnceCell::new(),
            previous: previous.to_vec(),
        }
    }

    /// The key that signs now, with the name checkpoints are signed under.
    ///
    /// # Errors
    /// As [`AuditKeys::signing`].
    pub async fn signer(&self, pool: &PgPool) -> Result<ReceiptSigner<'_>, ServiceError> {
        Ok(ReceiptSigner {
            key: self.signing(pool).await?,
            name: &self.name,
        })
    }

    /// Whether the signing key comes from the configuration rather than the database.
    pub fn configured(&self) -> bool {
        self.configured.is_some()
    }

    /// The key that signs now.
    ///
    /// # Errors
    /// On database failure, when the key is the database's.
    pub async fn signing(&self, pool: &PgPool) -> Result<&SigningKey, ServiceError> {
        if let Some(key) = &self.configured {
            return Ok(key);
        }
        self.kept.get_or_try_init(|| super::keys::signing_key(pool, None)).await
    }

    /// The public keys that verify this server's bundles and receipts: the current one first,
    /// then earlier ones, as `(key id, public key, current)`.
    ///
    /// # Errors
    /// As [`AuditKeys::signing`].
    pub async fn public_keys(&self, pool: &PgPool) -> Result<Vec<(String, VerifyingKey, bool)>, ServiceError> {
        let current = self.signing(pool).await?.verifying_key();
        let mut keys = vec![(key_id(&current), current, true)];
        for key in &self.previous {
            if *key != current {
                keys.push((key_id(key), *key, false));
            }
        }
        Ok(keys)
    }

    /// A receipt for the table's chain as it ends now (its last link), signed; in the
    /// transaction that extended it, after the extension.
    ///
    /// # Errors
    /// On database failure; `Corrupt` for a table with no chain.
    pub async fn receipt_for(
        &self,
        pool: &PgPool,
        conn: &mut PgConnection,
        table: store::TableKey,
        session: Option<Uuid>,
        at: DateTime<Utc>,
    ) -> Result<Receipt, ServiceError> {
        let end = store::chain::end(&mut *conn, table).await?;
        let last = end
            .last
            .ok_or_else(|| ServiceError::Corrupt(format!("table {} has no chain to give a receipt for", table.id)))?;
        let root = super::witness::frontier_at(conn, table, last.pos, true)
            .await?
            .map(|tree| tree.root());
        let signer = self.signer(pool).await?;
        signer.sign(table.id, session, last.pos, &last.hash, at, root.as_ref())
    }
}

/// A receipt signed by `key`; with `tree` (the log's name and the root of the table's tree of
/// `position + 1` leaves), carrying that tree's checkpoint signed by the same key.
///
/// # Errors
/// `Encode` never in practice (plain strings and integers).
pub fn sign(
    key: &SigningKey,
    table: Uuid,
    session: Option<Uuid>,
    position: i64,
    head: &[u8],
    at: DateTime<Utc>,
    tree: Option<(&str, &super::witness::tree::Hash)>,
) -> Result<Receipt, ServiceError> {
    let checkpoint = tree.map(|(name, root)| {
        super::witness::Checkpoint {
            origin: super::witness::origin(name, table),
            size: u64::try_from(position + 1).unwrap_or(0),
            root: *root,
        }
        .sign(name, key)
    });
    let mut receipt = Receipt {
        table,
        session,
        position,
        head: chain::hex(head),
        at: at.to_rfc3339_opts(SecondsFormat::Micros, true),
        key_id: key_id(&key.verifying_key()),
        checkpoint,
        signature: String::new(),
    };
    let mut unsigned = serde_json::to_value(&receipt).map_err(ServiceError::Encode)?;
    if let Value::Object(map) = &mut unsigned {
        map.remove("signature");
    }
    let form = signed_form(&unsigned).map_err(ServiceError::Encode)?;
    receipt.signature = chain::hex(&key.sign(&form).to_bytes());
    Ok(receipt)
}

/// Reads receipts from a file's JSON: one receipt, an array of them, or the page's download
/// (`{"table_id": …, "receipts": […]}`, from a phone's Deals tab or the board); an answer that
/// carried one may be given whole (a receipt is found as an object's `receipt` member too).
/// Each is kept as written, for its signature is over what it says.
///
/// # Errors
/// A sentence naming what does not read.
pub fn read(document: &Value) -> Result<Vec<(Receipt, Value)>, String> {
    let items: Vec<&Value> = match document {
        Value::Array(items) => items.iter().collect(),
        Value::Object(map) if !map.contains_key("signature") && map.get("receipts").is_some_and(Value::is_array) => map
            .get("receipts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect(),
        one => vec![one],
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let item = match item.get("receipt") {
                Some(inner) if item.get("signature").is_none() => inner,
                _ => item,
            };
            let receipt: Receipt =
                serde_json::from_value(item.clone()).map_err(|e| format!("receipt {} does not read: {e}", i + 1))?;
            Ok((receipt, item.clone()))
        })
        .collect()
}

/// Checks a receipt's signature with the key its `key_id` names among `keys`.
///
/// # Errors
/// A sentence: no such key among those given, or a signature that does not match.
pub fn check_signature(receipt: &Receipt, kept: &Value, keys: &[VerifyingKey]) -> Result<(), String> {
    let key = keys.iter().find(|k| key_id(k) == receipt.key_id).ok_or_else(|| {
        format!(
            "the receipt for table {} at position {} is signed with key {}, which is not among the keys given",
            receipt.table, receipt.position, receipt.key_id
        )
    })?;
    let bad = || {
        format!(
            "the receipt for table {} at position {} has a signature that does not match it: it was changed, or not issued by this server",
            receipt.table, receipt.position
        )
    };
    let signature = super::keys::unhex::<64>(&receipt.signature).ok_or_else(bad)?;
    let mut unsigned = kept.clone();
    if let Value::Object(map) = &mut unsigned {
        map.remove("signature");
    }
    let form = signed_form(&unsigned).map_err(|_| bad())?;
    key.verify(&form, &ed25519_dalek::Signature::from_bytes(&signature))
        .map_err(|_| bad())
}

pub use tablekeeper_config::public_key;

/// A receipt made by the server for the table's chain as it ends now, in `conn`'s transaction.
///
/// # Errors
/// As [`AuditKeys::receipt_for`].
pub async fn for_table(
    keys: &AuditKeys,
    pool: &PgPool,
    conn: &mut PgConnection,
    table: &tablekeeper_store::tables::TableRow,
    at: DateTime<Utc>,
) -> Result<Receipt, ServiceError> {
    keys.receipt_for(pool, conn, table.key(), table.session_id, at).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SigningKey {
        SigningKey::from_bytes(&[7; 32])
    }

    #[test]
    fn a_receipt_verifies_with_its_key_and_fails_when_any_member_changes() {
        let receipt = sign(&key(), Uuid::nil(), None, 4, &[1; 32], Utc::now(), None).expect("signed");
        let kept = serde_json::to_value(&receipt).expect("json");
        let keys = [key().verifying_key()];
        assert_eq!(check_signature(&receipt, &kept, &keys), Ok(()));
        for (member, value) in [
            ("position", serde_json::json!(5)),
            ("head", serde_json::json!(chain::hex(&[2; 32]))),
            ("session", serde_json::json!(Uuid::max())),
            ("at", serde_json::json!("2020-01-01T00:00:00.000000Z")),
        ] {
            let mut changed = kept.clone();
            changed[member] = value;
            let read: Receipt = serde_json::from_value(changed.clone()).expect("reads");
            assert!(check_signature(&read, &changed, &keys).is_err(), "{member} changed");
        }
        let other = SigningKey::from_bytes(&[8; 32]).verifying_key();
        assert!(check_signature(&receipt, &kept, &[other])
            .expect_err("another key")
            .contains("not among the keys given"));
    }

    #[test]
    fn the_signed_form_is_the_domain_and_the_sorted_compact_receipt() {
        let receipt = sign(&key(), Uuid::nil(), None, 0, &[0; 32], Utc::now(), None).expect("signed");
        let mut unsigned = serde_json::to_value(&receipt).expect("json");
        if let Value::Object(map) = &mut unsigned {
            map.remove("signature");
        }
        let form = String::from_utf8(signed_form(&unsigned).expect("form")).expect("utf-8");
        let expected = format!(
            "tablekeeper-receipt/1\n{{\"at\":\"{}\",\"head\":\"{}\",\"key_id\":\"{}\",\"position\":0,\"session\":null,\"table\":\"{}\"}}",
            receipt.at,
            "0".repeat(64),
            receipt.key_id,
            Uuid::nil()
        );
        assert_eq!(form, expected);
    }

    #[test]
    fn receipts_read_alone_in_arrays_and_inside_answers() {
        let receipt = sign(&key(), Uuid::nil(), None, 1, &[3; 32], Utc::now(), None).expect("signed");
        let one = serde_json::to_value(&receipt).expect("json");
        assert_eq!(read(&one).expect("one").len(), 1);
        let many = serde_json::json!([one.clone(), {"receipt": one.clone(), "kind": "move"}]);
        assert_eq!(read(&many).expect("many").len(), 2);
        assert!(read(&serde_json::json!([{"table": 1}])).is_err());
        let downloaded = serde_json::json!({"table_id": Uuid::nil(), "receipts": [one.clone(), one]});
        assert_eq!(read(&downloaded).expect("a page's download").len(), 2);
    }
}
