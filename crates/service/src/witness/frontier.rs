//! A table's tree kept as it grows: the roots of its perfect subtrees (the "frontier" or compact
//! range), so that a write that appends links gets the new root with a few hashes instead of
//! reading every link. Pure, no I/O.
//!
//! Invariants:
//! - For a tree of `size` leaves the frontier holds one hash per set bit of `size`, from the
//!   highest bit down: the root of the leftmost perfect subtree of 2^k leaves first. Its root is
//!   those hashes folded from the right (`node(h0, node(h1, …))`), which is RFC 9162's root of the
//!   same leaves ([`super::tree::root`]): the tree splits at the largest power of two below its
//!   size, which is exactly the first subtree.
//! - Stored as the hashes' bytes one after the other; bytes that do not fit `size` read as no
//!   frontier, and the tree is built again from the links (never a wrong root).

use super::tree::{self, Hash};

/// The tree of `size` leaves as the roots of its perfect subtrees.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frontier {
    size: u64,
    /// One per set bit of `size`, highest first.
    hashes: Vec<Hash>,
}

impl Frontier {
    /// The frontier stored as `size` and `bytes`, if they fit each other.
    pub fn read(size: i64, bytes: &[u8]) -> Option<Frontier> {
        let size = u64::try_from(size).ok()?;
        if bytes.len() != 32 * size.count_ones() as usize {
            return None;
        }
        let hashes = bytes
            .chunks_exact(32)
            .map(|c| <Hash>::try_from(c).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(Frontier { size, hashes })
    }

    /// The tree of `leaves` (their leaf hashes), in order.
    pub fn of(leaves: &[Hash]) -> Frontier {
        let mut frontier = Frontier::default();
        for leaf in leaves {
            frontier.push(*leaf);
        }
        frontier
    }

    /// How many leaves the tree has.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The bytes [`Frontier::read`] reads back.
    pub fn bytes(&self) -> Vec<u8> {
        self.hashes.concat()
    }

    /// Adds a leaf (its leaf hash): the perfect subtrees of equal size at the right end merge,
    /// as a binary counter carries.
    pub fn push(&mut self, leaf: Hash) {
        let mut node = leaf;
        let mut carries = self.size.trailing_ones();
        while carries > 0 {
            let Some(left) = self.hashes.pop() else { break };
            node = tree::node_hash(&left, &node);
            carries -= 1;
        }
        self.hashes.push(node);
        self.size += 1;
    }

    /// Adds the leaf whose data is `data` (a chain link's hash).
    pub fn push_data(&mut self, data: &[u8]) {
        self.push(tree::leaf_hash(data));
    }

    /// The tree's root (SHA-256 of nothing for the empty tree).
    pub fn root(&self) -> Hash {
        match self.hashes.split_last() {
            None => tree::root(&[]),
            Some((last, rest)) => rest
                .iter()
                .rev()
                .fold(*last, |right, left| tree::node_hash(left, &right)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: usize) -> Vec<Hash> {
        (0..n).map(|i| tree::leaf_hash(&(i as u64).to_be_bytes())).collect()
    }

    #[test]
    fn the_root_as_it_grows_is_the_trees_root_at_every_size() {
        let all = leaves(300);
        let mut frontier = Frontier::default();
        assert_eq!(frontier.root(), tree::root(&[]));
        for (i, leaf) in all.iter().enumerate() {
            frontier.push(*leaf);
            assert_eq!(frontier.size(), i as u64 + 1);
            assert_eq!(frontier.root(), tree::root(&all[..=i]), "size {}", i + 1);
            assert_eq!(frontier.bytes().len(), 32 * (i + 1).count_ones() as usize);
        }
    }

    #[test]
    fn a_stored_frontier_reads_back_and_one_that_does_not_fit_its_size_does_not() {
        let frontier = Frontier::of(&leaves(13));
        let bytes = frontier.bytes();
        assert_eq!(Frontier::read(13, &bytes), Some(frontier.clone()));
        // 13 has three set bits: two hashes, or the bytes of another size, do not fit.
        assert_eq!(Frontier::read(12, &bytes), None);
        assert_eq!(Frontier::read(13, &bytes[..64]), None);
        assert_eq!(Frontier::read(13, &bytes[..95]), None);
        assert_eq!(Frontier::read(-1, &[]), None);
        assert_eq!(Frontier::read(0, &[]), Some(Frontier::default()));
        // Read back, it keeps growing as the tree does.
        let mut read = Frontier::read(13, &bytes).expect("fits");
        let more = leaves(20);
        read.push(more[13]);
        assert_eq!(read.root(), tree::root(&more[..14]));
    }
}
