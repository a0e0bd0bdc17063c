//! A Merkle tree as RFC 6962 (and RFC 9162 §2.1) defines it, and its proofs: pure, no I/O.
//!
//! Invariants:
//! - A leaf's hash is SHA-256(0x00 ‖ data), an inner node's SHA-256(0x01 ‖ left ‖ right): a leaf
//!   can never be taken for a node, nor a node for a leaf (the second-preimage defence).
//! - The tree of n leaves splits at the largest power of two below n (RFC 9162 §2.1.1); the
//!   empty tree's root is SHA-256 of nothing.
//! - Proofs are the lists of hashes RFC 9162 §2.1.3.1 (inclusion) and §2.1.4.1 (consistency)
//!   build, and are checked by the algorithms of §2.1.3.2 and §2.1.4.2: a proof with a hash too
//!   many or too few, for another index or size, or against another root is refused, never
//!   "mostly" accepted.
//!
//! Written here rather than taken from a crate: the whole of it is these few functions, the
//! verifier is where such systems' bugs live, and so it is kept where its adversarial tests are.

use sha2::{Digest, Sha256};

/// A SHA-256 digest: a leaf's hash, a node's, a root.
pub type Hash = [u8; 32];

/// SHA-256(0x00 ‖ data): the hash of a leaf.
pub fn leaf_hash(data: &[u8]) -> Hash {
    Sha256::new().chain_update([0u8]).chain_update(data).finalize().into()
}

/// SHA-256(0x01 ‖ left ‖ right): the hash of an inner node.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    Sha256::new()
        .chain_update([1u8])
        .chain_update(left)
        .chain_update(right)
        .finalize()
        .into()
}

/// The largest power of two smaller than `n` (n > 1): where the tree of n leaves splits.
fn split(n: usize) -> usize {
    debug_assert!(n > 1);
    let mut k = 1;
    while k << 1 < n {
        k <<= 1;
    }
    k
}

/// The root of the tree whose leaves' hashes are `leaves`, in order (MTH of RFC 9162 §2.1.1).
pub fn root(leaves: &[Hash]) -> Hash {
    match leaves {
        [] => Sha256::digest([]).into(),
        [one] => *one,
        _ => {
            let k = split(leaves.len());
            node_hash(&root(&leaves[..k]), &root(&leaves[k..]))
        }
    }
}

/// The inclusion proof of leaf `index` in the tree of `leaves` (PATH of RFC 9162 §2.1.3.1),
/// the hashes from the leaf's sibling up; None for an index outside the tree.
pub fn inclusion_proof(index: usize, leaves: &[Hash]) -> Option<Vec<Hash>> {
    if index >= leaves.len() {
        return None;
    }
    let mut proof = Vec::new();
    path(index, leaves, &mut proof);
    Some(proof)
}

fn path(m: usize, leaves: &[Hash], out: &mut Vec<Hash>) {
    let n = leaves.len();
    if n <= 1 {
        return;
    }
    let k = split(n);
    if m < k {
        path(m, &leaves[..k], out);
        out.push(root(&leaves[k..]));
    } else {
        path(m - k, &leaves[k..], out);
        out.push(root(&leaves[..k]));
    }
}

/// The consistency proof of the tree of the first `old` leaves with the tree of all `leaves`
/// (PROOF of RFC 9162 §2.1.4.1); empty when `old` is 0 or every leaf; None when `old` is beyond
/// the tree.
pub fn consistency_proof(old: usize, leaves: &[Hash]) -> Option<Vec<Hash>> {
    if old > leaves.len() {
        return None;
    }
    let mut proof = Vec::new();
    if old > 0 {
        subproof(old, leaves, true, &mut proof);
    }
    Some(proof)
}

fn subproof(m: usize, leaves: &[Hash], whole: bool, out: &mut Vec<Hash>) {
    let n = leaves.len();
    if m == n {
        if !whole {
            out.push(root(leaves));
        }
        return;
    }
    let k = split(n);
    if m <= k {
        subproof(m, &leaves[..k], whole, out);
        out.push(root(&leaves[k..]));
    } else {
        subproof(m - k, &leaves[k..], false, out);
        out.push(root(&leaves[..k]));
    }
}

/// Why a proof was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("the entry's place ({index}) is not inside a tree of {size} entries")]
    OutsideTree { index: u64, size: u64 },
    #[error("the proof has the wrong number of hashes for that place and size")]
    WrongLength,
    #[error("the proof does not lead to the root: the entry, its place or the root is not the one proven")]
    RootMismatch,
    #[error("the later tree ({new}) is smaller than the earlier one ({old})")]
    Shrunk { old: u64, new: u64 },
}

/// Checks that the leaf whose hash is `leaf` is at `index` of the tree of `size` leaves whose
/// root is `root`, by `proof` (RFC 9162 §2.1.3.2).
///
/// # Errors
/// Which way the proof fails.
pub fn verify_inclusion(index: u64, size: u64, leaf: &Hash, proof: &[Hash], root: &Hash) -> Result<(), ProofError> {
    if index >= size {
        return Err(ProofError::OutsideTree { index, size });
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if s == 0 {
            return Err(ProofError::WrongLength);
        }
        if f & 1 == 1 || f == s {
            r = node_hash(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(ProofError::WrongLength);
    }
    if r != *root {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}

/// Checks that the tree of `old` leaves whose root is `old_root` is the first `old` leaves of
/// the tree of `new` leaves whose root is `new_root`, by `proof` (RFC 9162 §2.1.4.2; an empty
/// tree is the start of every tree, and a tree of its own size only of itself).
///
/// # Errors
/// Which way the proof fails.
pub fn verify_consistency(
    old: u64,
    new: u64,
    old_root: &Hash,
    new_root: &Hash,
    proof: &[Hash],
) -> Result<(), ProofError> {
    if new < old {
        return Err(ProofError::Shrunk { old, new });
    }
    if old == 0 || old == new {
        if !proof.is_empty() {
            return Err(ProofError::WrongLength);
        }
        return if old == 0 || old_root == new_root {
            Ok(())
        } else {
            Err(ProofError::RootMismatch)
        };
    }
    let Some((first, rest)) = proof.split_first() else {
        return Err(ProofError::WrongLength);
    };
    // When `old` is a power of two its root is a node of the new tree, and the proof leaves it
    // out: the walk starts from it.
    let (start, rest): (Hash, &[Hash]) = if old.is_power_of_two() {
        (*old_root, proof)
    } else {
        (*first, rest)
    };
    let (mut f, mut s) = (old - 1, new - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let (mut fr, mut sr) = (start, start);
    for c in rest {
        if s == 0 {
            return Err(ProofError::WrongLength);
        }
        if f & 1 == 1 || f == s {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(ProofError::WrongLength);
    }
    if fr != *old_root || sr != *new_root {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}
