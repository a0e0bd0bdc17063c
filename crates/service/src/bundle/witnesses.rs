//! What a bundle's witnesses say, checked offline: each table's checkpoint against its bundled
//! chain, the phones' cosignatures, and the receipts (and their checkpoints) phones kept.

use super::*;

/// The leaf hashes of a table's bundled chain, in order.
fn leaves_of(t: &TablePart) -> Result<Vec<crate::witness::tree::Hash>, String> {
    t.chain
        .iter()
        .map(|link| {
            unhex::<32>(&link.hash)
                .map(|hash| crate::witness::tree::leaf_hash(&hash))
                .ok_or_else(|| format!("table {}: link {}'s hash is not 64 hex digits", t.id, link.pos))
        })
        .collect()
}

/// A table's checkpoint holds for the bundle: signed by one of `keys`, of this table, of a tree
/// as long as the chain bundled, and with the root of the tree over its links.
pub(super) fn check_checkpoint(t: &TablePart, note: &str, keys: &[VerifyingKey]) -> Result<(), String> {
    let at = |what: String| format!("table {}: {what}", t.id);
    let (checkpoint, _) =
        crate::witness::Checkpoint::open(note, keys).map_err(|e| at(format!("its checkpoint: {e}")))?;
    if !checkpoint.origin.ends_with(&format!("/tables/{}", t.id)) {
        return Err(at(format!(
            "its checkpoint is of `{}`, another table's log",
            checkpoint.origin
        )));
    }
    let leaves = leaves_of(t)?;
    if checkpoint.size != leaves.len() as u64 || checkpoint.root != crate::witness::tree::root(&leaves) {
        return Err(at(format!(
            "its checkpoint (a tree of {} entries) is not the tree of the {} links bundled: the chain was changed after the checkpoint was signed",
            checkpoint.size,
            leaves.len()
        )));
    }
    Ok(())
}

/// Who cosigned a table's last checkpoint, as the verifier counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cosigned {
    /// Phones that cosigned it, of those with a key.
    pub phones: (usize, usize),
    /// Boards that cosigned it, of the session's boards with a key.
    pub boards: (usize, usize),
}

impl std::fmt::Display for Cosigned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, m) = self.phones;
        write!(f, "{n} of {m} phones")?;
        let (n, m) = self.boards;
        if m > 0 {
            write!(f, " and {n} of {m} boards")?;
        }
        Ok(())
    }
}

/// One witness's kept cosignature, phone's or board's, as the verifier reads it.
struct Kept<'a> {
    /// Who, in a verifier's words ("phone … (Ann's phone)", "board … (Board)").
    who: String,
    id: Uuid,
    /// The name its line must be signed under.
    name: String,
    public_key: &'a str,
    /// The key it registered, if any.
    registered: Option<&'a str>,
    size: u64,
    root_hash: &'a str,
    time: u64,
    line: &'a str,
}

/// Every phone's and board's cosignature the table carries holds (the witness's registered
/// key, the signature over the checkpoint of its size and root) and is of the tree the bundled
/// chain gives at its size: a witness that cosigned another root at a size saw another history
/// of the table. Who cosigned the table's last checkpoint (`note`, checked before); None for a
/// table without witness keys or cosignatures.
pub(super) fn check_cosignatures(t: &TablePart, note: &str) -> Result<Option<Cosigned>, String> {
    use crate::witness::cosign;
    if t.cosignatures.is_empty()
        && t.phone_keys.is_empty()
        && t.board_cosignatures.is_empty()
        && t.board_keys.is_empty()
    {
        return Ok(None);
    }
    let at = |what: String| format!("table {}: {what}", t.id);
    // Its signature was checked against the trusted keys before; here only its fields are read.
    let last =
        crate::witness::Checkpoint::parse(cosign::body_of(note)).map_err(|e| at(format!("its checkpoint: {e}")))?;
    let suffix = format!("/tables/{}", t.id);
    let log_name = last
        .origin
        .strip_suffix(&suffix)
        .ok_or_else(|| at(format!("its checkpoint is of `{}`, another table's log", last.origin)))?;
    let leaves = leaves_of(t)?;
    let phones = t.cosignatures.iter().map(|c| Kept {
        who: format!("phone {} ({})", c.scorer_id, c.name),
        id: c.scorer_id,
        name: cosign::phone_name(log_name, c.scorer_id),
        public_key: &c.public_key,
        registered: t
            .phone_keys
            .iter()
            .find(|k| k.scorer_id == c.scorer_id)
            .map(|k| k.public_key.as_str()),
        size: c.size,
        root_hash: &c.root_hash,
        time: c.time,
        line: &c.line,
    });
    let boards = t.board_cosignatures.iter().map(|c| Kept {
        who: format!("board {} ({})", c.board_id, c.name),
        id: c.board_id,
        name: cosign::board_name(log_name, c.board_id),
        public_key: &c.public_key,
        registered: t
            .board_keys
            .iter()
            .find(|k| k.board_id == c.board_id)
            .map(|k| k.public_key.as_str()),
        size: c.size,
        root_hash: &c.root_hash,
        time: c.time,
        line: &c.line,
    });
    let phones_of_last = of_last(phones, &last, &leaves).map_err(at)?;
    let boards_of_last = of_last(boards, &last, &leaves).map_err(at)?;
    Ok(Some(Cosigned {
        phones: (phones_of_last, t.phone_keys.len()),
        boards: (boards_of_last, t.board_keys.len()),
    }))
}

/// Each of `kept` holds (see [`check_kept`]); how many witnesses cosigned the last checkpoint.
fn of_last<'a>(
    kept: impl Iterator<Item = Kept<'a>>,
    last: &crate::witness::Checkpoint,
    leaves: &[crate::witness::tree::Hash],
) -> Result<usize, String> {
    let mut cosigners = std::collections::BTreeSet::new();
    for k in kept {
        if check_kept(&k, last, leaves)? {
            cosigners.insert(k.id);
        }
    }
    Ok(cosigners.len())
}

/// One kept cosignature holds over the bundled chain's tree of its size; whether it is of the
/// last checkpoint (`last`).
fn check_kept(
    c: &Kept<'_>,
    last: &crate::witness::Checkpoint,
    leaves: &[crate::witness::tree::Hash],
) -> Result<bool, String> {
    use crate::witness::{cosign, tree};
    use base64::Engine as _;
    let who = &c.who;
    let registered = c
        .registered
        .ok_or_else(|| format!("{who} cosigned without a registered key"))?;
    if registered != c.public_key {
        return Err(format!("{who} cosigned with another key than the one it registered"));
    }
    let key = base64::engine::general_purpose::STANDARD
        .decode(c.public_key)
        .ok()
        .and_then(|k| <[u8; 32]>::try_from(k).ok())
        .and_then(|k| VerifyingKey::from_bytes(&k).ok())
        .ok_or_else(|| format!("{who}'s key is not an Ed25519 key"))?;
    let cosignature = cosign::Cosignature::parse(c.line).map_err(|e| format!("{who}'s cosignature: {e}"))?;
    if cosignature.name != c.name || cosignature.time != c.time {
        return Err(format!("{who}'s cosignature line does not name that witness and time"));
    }
    let body = format!("{}\n{}\n{}\n", last.origin, c.size, c.root_hash);
    cosignature
        .check(&body, &key)
        .map_err(|e| format!("{who}'s cosignature of the tree of {} entries: {e}", c.size))?;
    let size = usize::try_from(c.size).unwrap_or(usize::MAX);
    if size == 0 || size > leaves.len() {
        return Err(format!(
            "{who} cosigned a tree of {} entries, and the chain bundled has {}: entries it saw were taken out",
            c.size,
            leaves.len()
        ));
    }
    let root = base64::engine::general_purpose::STANDARD.encode(tree::root(&leaves[..size]));
    if root != c.root_hash {
        return Err(format!(
            "{who} cosigned a tree of {} entries with root {}, and the chain bundled gives root {root} at that size: the table's history was rewritten after it saw it (a fork)",
            c.size, c.root_hash
        ));
    }
    Ok(c.size == last.size)
}

/// Whether the bundle holds, at the receipt's position of its table's chain, the link the
/// receipt signed. The chains were checked already: each link follows from the entries.
pub(super) fn check_receipt(payload: &Payload, receipt: &Receipt) -> Result<(), String> {
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

/// Each phone a final checkpoint names as cosigning a table's last checkpoint (`cosigned_by`,
/// made since phones cosign) is in the bundle with that very cosignature: the same phone, key
/// and time, of the tree of `position + 1` links (whose root `check_cosignatures` holds to the
/// bundled chain). A cosignature taken out of the bundle after the session was final is found.
pub(super) fn check_cosigned_by(table: &TablePart, named: &Value, position: i64, of: &str) -> Result<(), String> {
    let Some(cosigners) = named.get("cosigned_by").and_then(Value::as_array) else {
        return Ok(());
    };
    let size = u64::try_from(position + 1).unwrap_or(0);
    for c in cosigners {
        let key = c.get("public_key").and_then(Value::as_str).unwrap_or_default();
        let time = c.get("time").and_then(Value::as_u64);
        // A phone is named by `scorer`, a board (since boards cosign) by `board`.
        let (who, found) = match c.get("board").and_then(Value::as_str) {
            Some(board) => (
                format!("board {board}"),
                table.board_cosignatures.iter().any(|k| {
                    k.board_id.to_string() == board && k.public_key == key && Some(k.time) == time && k.size == size
                }),
            ),
            None => {
                let scorer = c.get("scorer").and_then(Value::as_str).unwrap_or_default();
                (
                    format!("phone {scorer}"),
                    table.cosignatures.iter().any(|k| {
                        k.scorer_id.to_string() == scorer
                            && k.public_key == key
                            && Some(k.time) == time
                            && k.size == size
                    }),
                )
            }
        };
        if !found {
            return Err(format!(
                "table {}: {of} names {who} as cosigning its checkpoint of {size} entries, but the bundle carries no such cosignature: it was taken out",
                table.id
            ));
        }
    }
    Ok(())
}

/// A receipt's checkpoint, when it carries one: signed by a trusted key, of the receipt's own
/// table and size (`position + 1`), and the root of the bundled chain's first `size` links. A
/// chain rewritten and hashed again, whose link at the position somehow matched, still has
/// another tree; a checkpoint lifted from another receipt names another table or size.
pub(super) fn check_receipt_checkpoint(
    payload: &Payload,
    receipt: &Receipt,
    keys: &[VerifyingKey],
) -> Result<(), String> {
    let Some(note) = &receipt.checkpoint else {
        return Ok(());
    };
    let issued = format!("the receipt of {} for position {}", receipt.at, receipt.position);
    let (checkpoint, _) =
        crate::witness::Checkpoint::open(note, keys).map_err(|e| format!("{issued}: its checkpoint: {e}"))?;
    if !checkpoint.origin.ends_with(&format!("/tables/{}", receipt.table))
        || i64::try_from(checkpoint.size).ok() != Some(receipt.position + 1)
    {
        return Err(format!(
            "{issued}: its checkpoint is of `{}` at size {}, not of table {} at size {}",
            checkpoint.origin,
            checkpoint.size,
            receipt.table,
            receipt.position + 1
        ));
    }
    let table = payload
        .tables
        .iter()
        .find(|t| t.id == receipt.table)
        .ok_or_else(|| format!("table {} is not in the bundle", receipt.table))?;
    let mut leaves = leaves_of(table)?;
    leaves.truncate(usize::try_from(receipt.position + 1).unwrap_or(0));
    if leaves.len() as u64 != checkpoint.size || crate::witness::tree::root(&leaves) != checkpoint.root {
        return Err(format!(
            "table {}: the tree of its first {} links is not the one {issued} signed: the chain up to it was rewritten",
            table.id, checkpoint.size
        ));
    }
    Ok(())
}
