//! The table as its own witness: a Merkle tree over a table's chain links, checkpoints of it in
//! the C2SP signed-note format, and proofs that one entry is in it (inclusion) or that it only
//! grew between two sizes (consistency), checked offline by `tablekeeper verify --inclusion`.
//!
//! Invariants:
//! - The tree's leaves are the table's chain links in chain order (leaf i is the link at
//!   position i, the set-up's first); a leaf's data is the link's 32-byte hash, which covers
//!   the link before it and the entry's canonical content, so a proof of one leaf is a proof of
//!   that entry as recorded. Its hash is RFC 6962's leaf hash of those 32 bytes.
//! - Proofs and checkpoints asked for are computed on read from the links stored: every table
//!   that has a chain has a tree, whenever it was written; one not chained yet has the empty
//!   tree. Beside it each table keeps its tree's frontier as it grows ([`frontier`], in its row),
//!   so that a write's receipt carries the checkpoint of the tree it leaves for a few hashes; the
//!   kept frontier is only a cache ([`caught_up`] folds in the links it lacks, and builds it
//!   again when it does not fit the chain), and its roots are the ones computed on read.
//! - A checkpoint's origin is `<log name>/tables/<table id>`, and it is signed by the audit key
//!   (the receipts' key) under the log name ([`note::log_name`]).
//! - Sizes asked for are checked before anything is hashed, and nothing here writes.

pub mod cosign;
pub mod frontier;
pub mod note;
pub mod tree;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use tablekeeper_store::chain::LinkRow;
use tablekeeper_store::{self as store, PgPool};
use uuid::Uuid;

use super::chain::{self, sha256};
use super::ServiceError;
pub use note::Checkpoint;
use tree::Hash;

/// The table's tree as it is when its chain ends at position `end` (`end + 1` leaves): the tree
/// as kept (`store::chain::tree`) with the links after it folded in, read only when it is behind.
/// With `keep`, a tree that was behind is kept as caught up (the caller holds the table's row in
/// a write). None when the links after the kept tree do not follow on from it (a gap, which
/// the audit names): no checkpoint is better than a wrong one.
///
/// # Errors
/// On database failure.
pub async fn frontier_at(
    conn: &mut store::PgConnection,
    table: store::TableKey,
    end: i64,
    keep: bool,
) -> Result<Option<frontier::Frontier>, ServiceError> {
    let (size, bytes) = store::chain::tree(&mut *conn, table).await?;
    caught_up(conn, table, (size, &bytes), end, keep).await
}

/// [`frontier_at`] from a tree already read with the table's row (`kept`: size and bytes).
///
/// # Errors
/// On database failure.
pub async fn caught_up(
    conn: &mut store::PgConnection,
    table: store::TableKey,
    kept: (i64, &[u8]),
    end: i64,
    keep: bool,
) -> Result<Option<frontier::Frontier>, ServiceError> {
    let want = u64::try_from(end + 1).unwrap_or(0);
    // A kept tree larger than the chain, or one whose bytes do not fit, is built again.
    let mut tree = frontier::Frontier::read(kept.0, kept.1)
        .filter(|t| t.size() <= want)
        .unwrap_or_default();
    if tree.size() == want {
        return Ok(Some(tree));
    }
    let from = i64::try_from(tree.size()).unwrap_or(i64::MAX);
    for (pos, hash) in store::chain::link_hashes_from(&mut *conn, table, from).await? {
        if u64::try_from(pos).ok() != Some(tree.size()) || tree.size() >= want {
            break;
        }
        tree.push_data(&hash);
    }
    if tree.size() != want {
        tracing::warn!(table = %table.id, want, have = tree.size(), "the table's links do not make a tree up to its chain's end: no checkpoint");
        return Ok(None);
    }
    if keep {
        store::chain::keep_tree(conn, table, end + 1, &tree.bytes()).await?;
    }
    Ok(Some(tree))
}

/// Who signs checkpoints: the audit key, under the log's name.
#[derive(Debug, Clone, Copy)]
pub struct Witness<'a> {
    /// The key name and the origins' prefix ([`note::log_name`]).
    pub name: &'a str,
    pub key: &'a SigningKey,
}

/// A signed checkpoint with its fields beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SignedCheckpoint {
    /// Which log: `<host or "tablekeeper">/tables/<table id>`.
    #[schema(example = "tablekeeper/tables/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70")]
    pub origin: String,
    /// How many entries (chain links) the tree has.
    #[schema(example = 9)]
    pub size: u64,
    /// The tree's root hash, base64.
    #[schema(example = "UNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw=")]
    pub root_hash: String,
    /// The checkpoint as a C2SP signed note: origin, size and root hash, a line each, a blank
    /// line, and the signature line (`— <key name> <base64 of key id and signature>`).
    pub note: String,
    /// The name the audit key signs under.
    #[schema(example = "tablekeeper")]
    pub key_name: String,
    /// The audit key (hex Ed25519 public key), as `GET /audit-key` lists it.
    pub public_key: String,
    /// The same key as other signed-note tools take it (`<name>+<key id>+<base64 key>`).
    pub verifier_key: String,
}

/// The chain link a leaf is, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProvenLink {
    /// `move` (a log entry: a move, a void, a correction), `table`, `booking`, `scorer` or
    /// `verification`.
    #[schema(example = "move")]
    pub entry: String,
    /// The log entry's seq (the booking's id, the scorer's number, …).
    #[schema(example = 3)]
    pub reference: i64,
    /// The version of the canonical content the link hashed.
    #[schema(example = 3)]
    pub content_version: i16,
    /// SHA-256 of the entry's canonical content, hex.
    pub content_hash: String,
    /// The hash of the link before, hex.
    pub prev_hash: String,
    /// SHA-256(prev_hash ‖ content_hash), hex: the leaf's data.
    pub hash: String,
}

/// The proof that one log entry is in the table's tree of one size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InclusionProof {
    pub table_id: Uuid,
    /// The log entry proven.
    #[schema(example = 3)]
    pub seq: i64,
    /// Its place among the tree's leaves (its chain position).
    #[schema(example = 4)]
    pub leaf_index: u64,
    /// The size of the tree it is proven in.
    #[schema(example = 9)]
    pub tree_size: u64,
    /// The leaf's data, base64: the link's 32-byte hash (the leaf hash is SHA-256(0x00 ‖ it)).
    pub leaf_data: String,
    /// The link the leaf is.
    pub link: ProvenLink,
    /// The proof's hashes, base64, from the leaf's sibling up (RFC 9162 §2.1.3).
    pub hashes: Vec<String>,
    /// The signed checkpoint of the tree at `tree_size`.
    pub checkpoint: SignedCheckpoint,
    /// What the entry was: its canonical content (JSON text) as the link hashed it, whose
    /// SHA-256 is `link.content_hash`. With it, the proof alone says which move it proves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// The proof that the table's tree at one size is the start of its tree at a later one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ConsistencyProof {
    pub table_id: Uuid,
    #[schema(example = 4)]
    pub from: u64,
    #[schema(example = 9)]
    pub to: u64,
    /// The proof's hashes, base64 (RFC 9162 §2.1.4).
    pub hashes: Vec<String>,
    /// The signed checkpoint at `from`.
    pub from_checkpoint: SignedCheckpoint,
    /// The signed checkpoint at `to`.
    pub to_checkpoint: SignedCheckpoint,
}

/// A table's tree: its links and their leaves' hashes, in order.
#[derive(Debug, Clone)]
pub struct Tree {
    table: Uuid,
    links: Vec<LinkRow>,
    leaves: Vec<Hash>,
}

/// The leaf hashes of `links` (each link's hash as the leaf's data).
pub fn leaves(links: &[LinkRow]) -> Vec<Hash> {
    links.iter().map(|l| tree::leaf_hash(&l.hash)).collect()
}

/// The origin of table `table`'s log under `name`.
pub fn origin(name: &str, table: Uuid) -> String {
    format!("{name}/tables/{table}")
}

/// The signed checkpoint of the tree of `leaves`.
fn checkpoint_of(witness: Witness<'_>, table: Uuid, leaves: &[Hash]) -> SignedCheckpoint {
    let checkpoint = Checkpoint {
        origin: origin(witness.name, table),
        size: leaves.len() as u64,
        root: tree::root(leaves),
    };
    let public = witness.key.verifying_key();
    SignedCheckpoint {
        note: checkpoint.sign(witness.name, witness.key),
        origin: checkpoint.origin,
        size: checkpoint.size,
        root_hash: STANDARD.encode(checkpoint.root),
        key_name: witness.name.to_owned(),
        public_key: chain::hex(public.as_bytes()),
        verifier_key: note::verifier_key(witness.name, &public),
    }
}

impl Tree {
    /// The tree of table `table` whose chain is `links`, as stored, in order.
    ///
    /// # Errors
    /// `Damaged` for links that are not numbered from 0 without gaps (leaf i is the link at
    /// position i).
    pub fn new(table: Uuid, links: Vec<LinkRow>) -> Result<Tree, ServiceError> {
        if let Some((i, link)) = links.iter().enumerate().find(|(i, l)| l.pos != *i as i64) {
            return Err(ServiceError::Damaged {
                table,
                detail: format!("its chain has link {} where link {i} should be", link.pos),
            });
        }
        let leaves = leaves(&links);
        Ok(Tree { table, links, leaves })
    }

    /// How many leaves (links) the tree has.
    pub fn size(&self) -> u64 {
        self.leaves.len() as u64
    }

    fn size_of(&self, size: Option<u64>) -> Result<usize, ServiceError> {
        let have = self.leaves.len();
        match size {
            None => Ok(have),
            Some(n) if n > have as u64 => Err(ServiceError::OutsideTree {
                code: "size_beyond_tree",
                detail: format!("the table's tree has {have} entries, not {n}"),
            }),
            Some(n) => Ok(n as usize),
        }
    }

    /// The checkpoint at `size` (the whole tree when None), signed.
    ///
    /// # Errors
    /// `OutsideTree` (`size_beyond_tree`) for a size beyond the tree.
    pub fn checkpoint(&self, witness: Witness<'_>, size: Option<u64>) -> Result<SignedCheckpoint, ServiceError> {
        let size = self.size_of(size)?;
        Ok(checkpoint_of(witness, self.table, &self.leaves[..size]))
    }

    /// The proof that log entry `seq` is in the tree at `size` (the whole tree when None).
    ///
    /// # Errors
    /// `OutsideTree` (`size_beyond_tree`) for a size beyond the tree, (`entry_beyond_size`) for
    /// an entry linked after `size`; `EntryNotLinked` for an entry the chain does not hold (no
    /// such seq, or a table stored before the chain).
    pub fn inclusion(&self, witness: Witness<'_>, seq: i64, size: Option<u64>) -> Result<InclusionProof, ServiceError> {
        let size = self.size_of(size)?;
        let index = self
            .links
            .iter()
            .position(|l| l.entry == "move" && l.reference == seq)
            .ok_or(ServiceError::EntryNotLinked(seq))?;
        if index >= size {
            return Err(ServiceError::OutsideTree {
                code: "entry_beyond_size",
                detail: format!("log entry {seq} is leaf {index}, which a tree of {size} entries does not hold yet"),
            });
        }
        let leaves = &self.leaves[..size];
        let hashes = tree::inclusion_proof(index, leaves).unwrap_or_default();
        let link = &self.links[index];
        Ok(InclusionProof {
            table_id: self.table,
            seq,
            leaf_index: index as u64,
            tree_size: size as u64,
            leaf_data: STANDARD.encode(&link.hash),
            link: ProvenLink {
                entry: link.entry.clone(),
                reference: link.reference,
                content_version: link.version,
                content_hash: chain::hex(&link.content_hash),
                prev_hash: chain::hex(&link.prev_hash),
                hash: chain::hex(&link.hash),
            },
            hashes: hashes.iter().map(|h| STANDARD.encode(h)).collect(),
            checkpoint: checkpoint_of(witness, self.table, leaves),
            content: None,
        })
    }

    /// The proof that the tree at `from` is the start of the tree at `to` (the whole tree when
    /// None).
    ///
    /// # Errors
    /// `OutsideTree`: (`size_zero`) for `from` 0, (`size_beyond_tree`) for `to` beyond the tree,
    /// (`sizes_reversed`) for `from` beyond `to`.
    pub fn consistency(
        &self,
        witness: Witness<'_>,
        from: u64,
        to: Option<u64>,
    ) -> Result<ConsistencyProof, ServiceError> {
        if from == 0 {
            return Err(ServiceError::OutsideTree {
                code: "size_zero",
                detail: "`from` is at least 1: the empty tree is the start of every tree, and needs no proof".into(),
            });
        }
        let to = self.size_of(to)?;
        if from > to as u64 {
            return Err(ServiceError::OutsideTree {
                code: "sizes_reversed",
                detail: format!("`from` ({from}) is beyond `to` ({to}): a tree only grows"),
            });
        }
        let from = from as usize;
        let leaves = &self.leaves[..to];
        let hashes = tree::consistency_proof(from, leaves).unwrap_or_default();
        Ok(ConsistencyProof {
            table_id: self.table,
            from: from as u64,
            to: to as u64,
            hashes: hashes.iter().map(|h| STANDARD.encode(h)).collect(),
            from_checkpoint: checkpoint_of(witness, self.table, &leaves[..from]),
            to_checkpoint: checkpoint_of(witness, self.table, leaves),
        })
    }
}

/// The table's tree, made from its links as stored, read in one snapshot.
///
/// # Errors
/// `Store(NotFound)` for no such table; `Damaged` for a chain with a gap; on database failure.
pub async fn read(pool: &PgPool, id: Uuid) -> Result<Tree, ServiceError> {
    let (mut tx, table) = super::read_table(pool, id).await?;
    let links = store::chain::links(&mut tx, table.key()).await?;
    Tree::new(table.id, links)
}

/// Log entry `seq`'s canonical content as content version `version` has it: the bytes whose
/// SHA-256 its chain link holds. None for an entry the log does not hold or a version this
/// engine does not know.
///
/// # Errors
/// `Store(NotFound)` for no such table; on database failure.
pub async fn entry_content(pool: &PgPool, id: Uuid, seq: i64, version: i16) -> Result<Option<String>, ServiceError> {
    let (mut tx, table) = super::read_table(pool, id).await?;
    let Some(logged) = store::chain::log_after(&mut tx, table.key(), seq - 1)
        .await?
        .into_iter()
        .next()
        .filter(|m| m.seq == seq)
    else {
        return Ok(None);
    };
    let corrections = store::deals::corrections(&mut tx, table.key(), None).await?;
    let correction = corrections.iter().find(|c| c.seq == seq);
    let mut out = Vec::new();
    if !chain::Entry::log(&table, &logged, correction).write_content(version, &mut out) {
        return Ok(None);
    }
    Ok(String::from_utf8(out).ok())
}

fn hashes(encoded: &[String]) -> Result<Vec<Hash>, String> {
    encoded
        .iter()
        .enumerate()
        .map(|(i, h)| {
            STANDARD
                .decode(h)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| format!("the proof's hash {} is not 32 bytes of base64", i + 1))
        })
        .collect()
}

fn unhex32(text: &str, what: &str) -> Result<Hash, String> {
    super::keys::unhex::<32>(text).ok_or_else(|| format!("the link's {what} is not 64 hex digits"))
}

/// The signed note in a checkpoint file: the note itself, or a JSON answer that carries one
/// (a [`SignedCheckpoint`], or a proof's `checkpoint`).
///
/// # Errors
/// A sentence when a JSON file holds no note.
pub fn note_in(file: &str) -> Result<String, String> {
    if !file.trim_start().starts_with('{') {
        return Ok(file.to_owned());
    }
    let value: serde_json::Value =
        serde_json::from_str(file).map_err(|e| format!("the checkpoint file is not a note nor JSON: {e}"))?;
    value
        .get("note")
        .or_else(|| value.get("checkpoint").and_then(|c| c.get("note")))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "the checkpoint file's JSON has no `note`".to_owned())
}

/// Checks an inclusion proof (as `GET /tables/{id}/moves/{seq}/proof` answered it) against a
/// checkpoint the verifier kept, offline: the checkpoint is signed by one of `keys` (none: by
/// the key the proof names, taken at its word), is of the proof's table and size, and the
/// proof leads from the entry's link to its root. One sentence either way.
///
/// # Errors
/// A sentence naming why the proof does not hold.
pub fn verify_inclusion(proof: &InclusionProof, note: &str, keys: &[VerifyingKey]) -> Result<String, String> {
    let named;
    let keys = if keys.is_empty() {
        named = [public_key(&proof.checkpoint.public_key)?];
        &named[..]
    } else {
        keys
    };
    let (checkpoint, key) = Checkpoint::open(note, keys)?;
    check_origin(&checkpoint, proof.table_id, &proof.checkpoint.origin)?;
    if checkpoint.size != proof.tree_size {
        return Err(format!(
            "the checkpoint is of a tree of {} entries, the proof of one of {}",
            checkpoint.size, proof.tree_size
        ));
    }
    if proof.link.entry != "move" || proof.link.reference != proof.seq {
        return Err(format!(
            "the proof's link is {} {}, not log entry {}",
            proof.link.entry, proof.link.reference, proof.seq
        ));
    }
    let data: Hash = STANDARD
        .decode(&proof.leaf_data)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or("the proof's leaf data is not 32 bytes of base64")?;
    let linked = sha256(
        &[
            unhex32(&proof.link.prev_hash, "prev_hash")?,
            unhex32(&proof.link.content_hash, "content_hash")?,
        ]
        .concat(),
    );
    if linked != data || unhex32(&proof.link.hash, "hash")? != data {
        return Err("the proof's leaf data is not the hash of the link it names".into());
    }
    // The entry's content, when the proof carries it, is what the link hashed.
    let shown = match &proof.content {
        Some(content) => {
            if sha256(content.as_bytes()) != unhex32(&proof.link.content_hash, "content_hash")? {
                return Err(
                    "the proof's content is not what the link hashed: the entry shown is not the entry proven".into(),
                );
            }
            format!(" ({})", what_entry(content))
        }
        None => String::new(),
    };
    tree::verify_inclusion(
        proof.leaf_index,
        checkpoint.size,
        &tree::leaf_hash(&data),
        &hashes(&proof.hashes)?,
        &checkpoint.root,
    )
    .map_err(|e| format!("the proof does not hold: {e}"))?;
    Ok(format!(
        "yes: log entry {}{shown} of table {} is leaf {} of the table's tree of {} entries, whose checkpoint is signed by the audit key {}",
        proof.seq,
        proof.table_id,
        proof.leaf_index,
        checkpoint.size,
        chain::hex(key.as_bytes()),
    ))
}

/// An entry's content in a few words: its kind and what it holds (`play {"card":"9D","seat":2}`).
fn what_entry(content: &str) -> String {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(content) else {
        return "its content as hashed".into();
    };
    let find = |key: &str| value.get(key).or_else(|| value.get("entry").and_then(|e| e.get(key)));
    let kind = find("kind").and_then(serde_json::Value::as_str).unwrap_or("entry");
    match find("body").or_else(|| find("move")) {
        Some(body) => format!("{kind} {body}"),
        None => kind.to_owned(),
    }
}

/// Checks a consistency proof (as `GET /tables/{id}/consistency` answered it): both checkpoints
/// signed by one of `keys`, of the proof's table and sizes, and the proof joins their roots.
///
/// # Errors
/// A sentence naming why the proof does not hold.
pub fn verify_consistency(proof: &ConsistencyProof, keys: &[VerifyingKey]) -> Result<String, String> {
    let (old, _) = Checkpoint::open(&proof.from_checkpoint.note, keys)?;
    let (new, _) = Checkpoint::open(&proof.to_checkpoint.note, keys)?;
    check_origin(&old, proof.table_id, &new.origin)?;
    if (old.size, new.size) != (proof.from, proof.to) {
        return Err(format!(
            "the checkpoints are of trees of {} and {} entries, the proof of {} and {}",
            old.size, new.size, proof.from, proof.to
        ));
    }
    tree::verify_consistency(old.size, new.size, &old.root, &new.root, &hashes(&proof.hashes)?)
        .map_err(|e| format!("the proof does not hold: {e}"))?;
    Ok(format!(
        "yes: table {}'s tree of {} entries is the start of its tree of {}",
        proof.table_id, old.size, new.size
    ))
}

/// Checks a consistency proof against a checkpoint the verifier kept (a phone's, a
/// treasurer's), offline: both of the proof's checkpoints are signed by one of `keys` (none: by
/// the key the proof names, taken at its word) and joined by the proof, and the kept one, when
/// given, is the proof's `from` tree: the log the service shows now grew from the one that
/// checkpoint signed, nothing in it rewritten. One sentence either way.
///
/// # Errors
/// A sentence naming why the proof does not hold.
pub fn verify_grown(proof: &ConsistencyProof, kept: Option<&str>, keys: &[VerifyingKey]) -> Result<String, String> {
    let named;
    let keys = if keys.is_empty() {
        named = [public_key(&proof.to_checkpoint.public_key)?];
        &named[..]
    } else {
        keys
    };
    let said = verify_consistency(proof, keys)?;
    let Some(note) = kept else {
        return Ok(said);
    };
    let (checkpoint, _) = Checkpoint::open(note, keys)?;
    let (from, _) = Checkpoint::open(&proof.from_checkpoint.note, keys)?;
    check_origin(&checkpoint, proof.table_id, &from.origin)?;
    if checkpoint.size != from.size || checkpoint.root != from.root {
        return Err(format!(
            "the checkpoint kept (a tree of {} entries) is not the tree the proof starts from ({} entries, another root): the log shown now did not grow from the one it signed",
            checkpoint.size, from.size
        ));
    }
    Ok(format!("{said}, which the checkpoint kept signed"))
}

/// Compares checkpoints kept by different phones (or people), offline: each signed by one of
/// `keys` (none: read as they are, their signatures taken at their word). Two of one table's
/// log and of one size with different root hashes are a fork: the service showed two histories
/// of the table, which no honest log can sign. One sentence either way.
///
/// # Errors
/// A sentence naming the fork (the origin, the size, both roots and which checkpoints), or a
/// checkpoint that does not read or is not signed by one of `keys`.
pub fn compare_checkpoints(notes: &[String], keys: &[VerifyingKey]) -> Result<String, String> {
    let mut read = Vec::with_capacity(notes.len());
    for (i, note) in notes.iter().enumerate() {
        let checkpoint = if keys.is_empty() {
            Checkpoint::parse(cosign::body_of(note))
        } else {
            Checkpoint::open(note, keys).map(|(c, _)| c)
        }
        .map_err(|e| format!("checkpoint {}: {e}", i + 1))?;
        read.push(checkpoint);
    }
    for (i, a) in read.iter().enumerate() {
        for (j, b) in read.iter().enumerate().skip(i + 1) {
            if a.origin == b.origin && a.size == b.size && a.root != b.root {
                return Err(format!(
                    "fork: `{}` has two different trees of {} entries, root {} (checkpoint {}) and root {} (checkpoint {}), both signed{}: the service showed two histories of one table",
                    a.origin,
                    a.size,
                    STANDARD.encode(a.root),
                    i + 1,
                    STANDARD.encode(b.root),
                    j + 1,
                    if keys.is_empty() { " (signatures taken at their word)" } else { " by the audit key" },
                ));
            }
        }
    }
    Ok(format!(
        "yes: the {} checkpoints show no fork (none of one table and one size with two roots; checkpoints of different sizes are joined by a consistency proof)",
        read.len()
    ))
}

fn check_origin(checkpoint: &Checkpoint, table: Uuid, expected: &str) -> Result<(), String> {
    if checkpoint.origin != expected || !checkpoint.origin.ends_with(&format!("/tables/{table}")) {
        return Err(format!(
            "the checkpoint is of `{}`, not of table {table}'s log (`{expected}`)",
            checkpoint.origin
        ));
    }
    Ok(())
}

fn public_key(hex: &str) -> Result<VerifyingKey, String> {
    super::keys::unhex::<32>(hex)
        .and_then(|k| VerifyingKey::from_bytes(&k).ok())
        .ok_or_else(|| "the proof's public key is not 64 hex digits of an Ed25519 key".to_owned())
}

#[cfg(test)]
mod tests;
