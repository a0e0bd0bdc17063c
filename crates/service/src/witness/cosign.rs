//! Cosignatures of a table's checkpoints by the phones at the table, in the C2SP
//! `tlog-cosignature` shape (`cosignature/v1`, Ed25519): pure, no I/O.
//!
//! Invariants:
//! - The message a phone signs is `cosignature/v1\ntime <POSIX seconds>\n` followed by the
//!   checkpoint's note body (origin, size, root hash, each line ending in a newline), nothing
//!   of its signature lines.
//! - A cosignature line is a signed-note signature line: an em dash, a space, the cosigner's
//!   name, a space, and the base64 of the key id (4 bytes), the time (8 bytes, big-endian) and
//!   the Ed25519 signature (64 bytes).
//! - A cosigner's key id is the first four bytes of SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)
//!   (0x04: an Ed25519 cosignature), so a cosignature is never taken for the log's own signature
//!   (0x01) by the same key.
//! - A phone's cosigner name is `<log name>/phones/<scorer id>`: one name per phone, whose key
//!   the service keeps for the table.
//! - A cosignature holds for a checkpoint body only if its name's key id matches the key and its
//!   signature verifies over that body and its time; nothing else is taken at its word.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::tree::Hash;

/// The signature type byte of a `cosignature/v1` Ed25519 key id.
const COSIGNATURE_V1: u8 = 0x04;

/// The latest time a cosignature may carry (the format's u64, kept within 2^63 - 1).
const LATEST: u64 = i64::MAX as u64;

/// One cosignature line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cosignature {
    /// The cosigner's name (a phone's: [`phone_name`]).
    pub name: String,
    pub key_id: [u8; 4],
    /// When the phone cosigned, POSIX seconds.
    pub time: u64,
    pub signature: [u8; 64],
}

/// The cosigner name of the table's phone `scorer` under the log's name.
pub fn phone_name(log_name: &str, scorer: Uuid) -> String {
    format!("{log_name}/phones/{scorer}")
}

/// The cosigner name of the session's board `board` under the log's name.
pub fn board_name(log_name: &str, board: Uuid) -> String {
    format!("{log_name}/boards/{board}")
}

/// The board a cosigner name under the log's name is of, if it is a board's.
pub fn board_of(log_name: &str, name: &str) -> Option<Uuid> {
    name.strip_prefix(log_name)?.strip_prefix("/boards/")?.parse().ok()
}

/// A cosigner's key id under `name` (signature type 0x04).
pub fn key_id(name: &str, key: &VerifyingKey) -> [u8; 4] {
    let digest: Hash = Sha256::new()
        .chain_update(name.as_bytes())
        .chain_update([b'\n', COSIGNATURE_V1])
        .chain_update(key.as_bytes())
        .finalize()
        .into();
    [digest[0], digest[1], digest[2], digest[3]]
}

/// The cosigner's key as other signed-note tools take it (`<name>+<key id, hex>+<base64(0x04 ‖ key)>`).
pub fn verifier_key(name: &str, key: &VerifyingKey) -> String {
    let mut typed = vec![COSIGNATURE_V1];
    typed.extend_from_slice(key.as_bytes());
    format!("{name}+{}+{}", hex::encode(key_id(name, key)), STANDARD.encode(typed))
}

/// What a cosigner signs: the header line, the time line and the checkpoint's body.
pub fn message(body: &str, time: u64) -> String {
    format!("cosignature/v1\ntime {time}\n{body}")
}

/// The body of a checkpoint's note (the text up to the blank line before its signatures), or
/// the text itself when it has no signatures.
pub fn body_of(note: &str) -> &str {
    match note.find("\n\n") {
        Some(split) => &note[..=split],
        None => note,
    }
}

impl Cosignature {
    /// `name`'s cosignature of the checkpoint `body` at `time`, by `key`.
    pub fn sign(body: &str, name: &str, key: &SigningKey, time: u64) -> Cosignature {
        Cosignature {
            name: name.to_owned(),
            key_id: key_id(name, &key.verifying_key()),
            time,
            signature: key.sign(message(body, time).as_bytes()).to_bytes(),
        }
    }

    /// Reads one signature line (`— <name> <base64>`), whose bytes are a key id, a time and an
    /// Ed25519 signature.
    ///
    /// # Errors
    /// A sentence naming what is not in the shape.
    pub fn parse(line: &str) -> Result<Cosignature, String> {
        let line = line.trim_end_matches('\n');
        let (name, encoded) = line
            .strip_prefix("\u{2014} ")
            .and_then(|rest| rest.rsplit_once(' '))
            .filter(|(name, _)| !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '+'))
            .ok_or("a cosignature is one line: `— <cosigner name> <base64 of key id, time and signature>`")?;
        let bytes = STANDARD
            .decode(encoded)
            .map_err(|_| "the cosignature's signature is not base64".to_owned())?;
        let bytes: [u8; 76] = bytes.try_into().map_err(|b: Vec<u8>| {
            format!(
                "the cosignature's signature is {} bytes, not 76 (a key id of 4, a time of 8, an Ed25519 signature of 64)",
                b.len()
            )
        })?;
        let (key_id, rest) = bytes.split_at(4);
        let (time, signature) = rest.split_at(8);
        let time = u64::from_be_bytes(time.try_into().map_err(|_| "the cosignature's time does not read")?);
        if time > LATEST {
            return Err("the cosignature's time is beyond 2^63 - 1".into());
        }
        Ok(Cosignature {
            name: name.to_owned(),
            key_id: key_id
                .try_into()
                .map_err(|_| "the cosignature's key id does not read")?,
            time,
            signature: signature
                .try_into()
                .map_err(|_| "the cosignature's signature does not read")?,
        })
    }

    /// The signature line.
    pub fn line(&self) -> String {
        let mut bytes = self.key_id.to_vec();
        bytes.extend_from_slice(&self.time.to_be_bytes());
        bytes.extend_from_slice(&self.signature);
        format!("\u{2014} {} {}", self.name, STANDARD.encode(bytes))
    }

    /// Whether this is `key`'s cosignature of the checkpoint `body`: its key id is `key`'s
    /// under its name, and its signature verifies over the body at its time.
    ///
    /// # Errors
    /// A sentence saying which of the two fails.
    pub fn check(&self, body: &str, key: &VerifyingKey) -> Result<(), String> {
        if key_id(&self.name, key) != self.key_id {
            return Err(format!(
                "the cosignature's key id is not that of the phone's key under the name `{}`",
                self.name
            ));
        }
        let signature = Signature::from_bytes(&self.signature);
        key.verify(message(body, self.time).as_bytes(), &signature)
            .map_err(|_| {
                "the cosignature's signature does not verify over that checkpoint under the phone's key".to_owned()
            })
    }
}
