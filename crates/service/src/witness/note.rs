//! Checkpoints in the C2SP signed-note format (C2SP `tlog-checkpoint` and `signed-note`), so that
//! any transparency-log tool reads a table's tree head: pure, no I/O.
//!
//! Invariants:
//! - A checkpoint's body is three lines, each ending in a newline: the origin (which log: one
//!   table's), the tree size in decimal, the root hash in standard base64.
//! - A note is the body, a blank line, and a signature line per signer: an em dash, a space, the
//!   key's name, a space, and the base64 of the key id (4 bytes) followed by the Ed25519
//!   signature of the body, bytes as they are.
//! - A key id is the first four bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key) (0x01: Ed25519),
//!   so the same key under another name has another id.
//! - Opening a note checks a signature by a key the caller trusts before it reads the body: a
//!   note no trusted key signed says nothing.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

use super::tree::Hash;

/// The signature algorithm's byte in a key id and a verifier key: Ed25519.
const ED25519: u8 = 0x01;

/// What a table's tree was at one size: the origin names the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// `<host or "tablekeeper">/tables/<table id>`.
    pub origin: String,
    /// How many leaves (chain links) the tree has.
    pub size: u64,
    /// The tree's root hash.
    pub root: Hash,
}

impl Checkpoint {
    /// The note's text: origin, size and root, a line each.
    pub fn body(&self) -> String {
        format!("{}\n{}\n{}\n", self.origin, self.size, STANDARD.encode(self.root))
    }

    /// The signed note: the body, a blank line, and `name`'s signature by `key`.
    pub fn sign(&self, name: &str, key: &SigningKey) -> String {
        sign(&self.body(), name, key)
    }

    /// Reads a signed note ([`open`]) whose text is a checkpoint: the checkpoint and the key
    /// that signed it.
    ///
    /// # Errors
    /// As [`open`], or a text that is no checkpoint.
    pub fn open(note: &str, keys: &[VerifyingKey]) -> Result<(Checkpoint, VerifyingKey), String> {
        let (body, key) = open(note, keys)?;
        Ok((Checkpoint::parse(body)?, key))
    }

    /// The body's three lines (extension lines after them are allowed by the format and
    /// ignored, as they are signed with the rest), read without checking any signature.
    ///
    /// # Errors
    /// A sentence naming what is not a checkpoint.
    pub fn parse(body: &str) -> Result<Checkpoint, String> {
        let mut lines = body.lines();
        let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next()) else {
            return Err("the checkpoint's text is not three lines: origin, size and root hash".into());
        };
        if origin.is_empty() {
            return Err("the checkpoint has no origin".into());
        }
        let size = (size.bytes().all(|b| b.is_ascii_digit()) && (size == "0" || !size.starts_with('0')))
            .then(|| size.parse::<u64>().ok())
            .flatten()
            .ok_or_else(|| format!("the checkpoint's size `{size}` is not a number"))?;
        let root: Hash = STANDARD
            .decode(root)
            .ok()
            .and_then(|r| r.try_into().ok())
            .ok_or("the checkpoint's root hash is not 32 bytes of base64")?;
        Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
        })
    }
}

/// The signed note of `text` (ending in a newline): the text, a blank line, and `name`'s
/// signature by `key`.
pub fn sign(text: &str, name: &str, key: &SigningKey) -> String {
    let signature = key.sign(text.as_bytes());
    let mut signed = key_id(name, &key.verifying_key()).to_vec();
    signed.extend_from_slice(&signature.to_bytes());
    format!("{text}\n\u{2014} {name} {}\n", STANDARD.encode(signed))
}

/// Reads a signed note: at least one signature line must be by one of `keys` (under whatever
/// name it gives, the id matching that name and key), and none by them may fail. The text and
/// the key that signed it.
///
/// # Errors
/// A sentence: the note's form, no signature by a trusted key, or a signature that does not
/// match.
pub fn open<'n>(note: &'n str, keys: &[VerifyingKey]) -> Result<(&'n str, VerifyingKey), String> {
    let split = note
        .rfind("\n\n")
        .ok_or("the checkpoint is not a signed note: no blank line before its signatures")?;
    let (body, signatures) = (&note[..=split], &note[split + 2..]);
    if signatures.is_empty() || !signatures.ends_with('\n') {
        return Err("the checkpoint has no signature lines (each ends with a newline)".into());
    }
    let mut signed_by = None;
    let mut tampered = false;
    for line in signatures.lines() {
        let (name, encoded) = line
            .strip_prefix("\u{2014} ")
            .and_then(|rest| rest.rsplit_once(' '))
            .ok_or_else(|| format!("the checkpoint's signature line `{line}` is not `— <name> <signature>`"))?;
        let bytes = STANDARD
            .decode(encoded)
            .map_err(|_| format!("the checkpoint's signature by `{name}` is not base64"))?;
        let Some((id, signature)) = bytes.split_first_chunk::<4>() else {
            return Err(format!("the checkpoint's signature by `{name}` is too short"));
        };
        for key in keys.iter().filter(|k| key_id(name, k) == *id) {
            let ok = Signature::from_slice(signature).is_ok_and(|s| key.verify(body.as_bytes(), &s).is_ok());
            if ok {
                signed_by = signed_by.or(Some(*key));
            } else {
                tampered = true;
            }
        }
    }
    if tampered {
        return Err("the checkpoint's signature does not match its text: it was changed after it was signed".into());
    }
    let key = signed_by.ok_or("the checkpoint is not signed by the audit key given (another key signed it)")?;
    Ok((body, key))
}

/// The signed-note key id of `key` under `name`.
pub fn key_id(name: &str, key: &VerifyingKey) -> [u8; 4] {
    let digest: Hash = Sha256::new()
        .chain_update(name.as_bytes())
        .chain_update([b'\n', ED25519])
        .chain_update(key.as_bytes())
        .finalize()
        .into();
    [digest[0], digest[1], digest[2], digest[3]]
}

/// The verifier key other signed-note tools take (`<name>+<key id, hex>+<base64(0x01 ‖ key)>`).
pub fn verifier_key(name: &str, key: &VerifyingKey) -> String {
    let mut typed = vec![ED25519];
    typed.extend_from_slice(key.as_bytes());
    format!("{name}+{}+{}", hex::encode(key_id(name, key)), STANDARD.encode(typed))
}

/// A key name (and an origin's host part) from the service's public address: the address
/// without its scheme, or `tablekeeper` when there is none or it would not make a name (a
/// name has no spaces and no `+`).
pub fn log_name(public_url: Option<&str>) -> String {
    public_url
        .map(|u| u.split_once("://").map_or(u, |(_, rest)| rest).trim_end_matches('/'))
        .filter(|n| !n.is_empty() && !n.contains(|c: char| c.is_whitespace() || c == '+'))
        .unwrap_or("tablekeeper")
        .to_owned()
}
