use super::note::{self, Checkpoint};
use super::tree::{self, Hash, ProofError};
use super::*;

fn h(hex: &str) -> Hash {
    ::hex::decode(hex).expect("hex").try_into().expect("32 bytes")
}

// RFC 6962's test data as Certificate Transparency publishes it (transparency-dev/merkle,
// testonly/constants.go and proof/verify_test.go; the C++ log's merkle_tree_test.cc before
// them): eight leaf inputs, the roots of the trees of their first 1 to 8, and known proofs.
const LEAF_INPUTS: [&str; 8] = [
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
];

const ROOTS: [&str; 8] = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

const EMPTY_ROOT: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// (leaf index, tree size, proof).
const INCLUSION: [(u64, u64, &[&str]); 4] = [
    (
        0,
        8,
        &[
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        &[
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        3,
        &["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"],
    ),
    (
        1,
        5,
        &[
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
];

/// (old size, new size, proof).
const CONSISTENCY: [(u64, u64, &[&str]); 5] = [
    (1, 1, &[]),
    (
        1,
        8,
        &[
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        &[
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        &[
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (
        6,
        7,
        &[
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
];

fn ct_leaves() -> Vec<Hash> {
    LEAF_INPUTS
        .iter()
        .map(|l| tree::leaf_hash(&::hex::decode(l).expect("hex")))
        .collect()
}

fn proof(hexes: &[&str]) -> Vec<Hash> {
    hexes.iter().map(|x| h(x)).collect()
}

#[test]
fn the_roots_are_certificate_transparencys_for_every_size() {
    let leaves = ct_leaves();
    assert_eq!(tree::root(&[]), h(EMPTY_ROOT));
    for (n, root) in ROOTS.iter().enumerate() {
        assert_eq!(tree::root(&leaves[..=n]), h(root), "tree of {}", n + 1);
    }
}

#[test]
fn inclusion_proofs_are_the_published_ones_and_verify() {
    let leaves = ct_leaves();
    for (index, size, expected) in INCLUSION {
        let made = tree::inclusion_proof(index as usize, &leaves[..size as usize]).expect("inside");
        assert_eq!(made, proof(expected), "leaf {index} of {size}");
        let root = h(ROOTS[size as usize - 1]);
        assert_eq!(
            tree::verify_inclusion(index, size, &leaves[index as usize], &made, &root),
            Ok(())
        );
    }
}

#[test]
fn consistency_proofs_are_the_published_ones_and_verify() {
    let leaves = ct_leaves();
    for (old, new, expected) in CONSISTENCY {
        let made = tree::consistency_proof(old as usize, &leaves[..new as usize]).expect("inside");
        assert_eq!(made, proof(expected), "{old} to {new}");
        let (r1, r2) = (h(ROOTS[old as usize - 1]), h(ROOTS[new as usize - 1]));
        assert_eq!(tree::verify_consistency(old, new, &r1, &r2, &made), Ok(()));
    }
}

/// The probes Certificate Transparency's verifier is tested with: every one must be refused.
#[test]
fn a_corrupted_inclusion_proof_is_refused_every_way() {
    let leaves = ct_leaves();
    let some = h("abacaba000000000000000000000000000000000000000000060061e00123456");
    for (index, size, good) in INCLUSION {
        let good = proof(good);
        let root = h(ROOTS[size as usize - 1]);
        let leaf = leaves[index as usize];
        let mut probes: Vec<(u64, u64, Hash, Hash, Vec<Hash>, String)> = vec![
            (
                index.wrapping_sub(1),
                size,
                leaf,
                root,
                good.clone(),
                "index - 1".into(),
            ),
            (index + 1, size, leaf, root, good.clone(), "index + 1".into()),
            (index ^ 2, size, leaf, root, good.clone(), "index ^ 2".into()),
            (index, size * 2, leaf, root, good.clone(), "size * 2".into()),
            (index, size / 2, leaf, root, good.clone(), "size / 2".into()),
            (
                index,
                size,
                tree::leaf_hash(b"WrongLeaf"),
                root,
                good.clone(),
                "wrong leaf".into(),
            ),
            (index, size, leaf, h(EMPTY_ROOT), good.clone(), "empty root".into()),
            (index, size, leaf, some, good.clone(), "random root".into()),
            (
                index,
                size,
                leaf,
                root,
                [good.clone(), vec![root]].concat(),
                "trailing root".into(),
            ),
            (
                index,
                size,
                leaf,
                root,
                [vec![root], good.clone()].concat(),
                "preceding root".into(),
            ),
            (
                index,
                size,
                leaf,
                root,
                good[..good.len() - 1].to_vec(),
                "removed hash".into(),
            ),
        ];
        if good.len() > 1 {
            probes.push((
                index,
                size,
                leaf,
                root,
                [&good[..1], &[some], &good[1..]].concat(),
                "inserted hash".into(),
            ));
        }
        for i in 0..good.len() {
            let mut flipped = good.clone();
            flipped[i][0] ^= 8;
            probes.push((index, size, leaf, root, flipped, format!("proof[{i}] bit 3")));
        }
        for (i, s, l, r, p, what) in probes {
            assert!(
                tree::verify_inclusion(i, s, &l, &p, &r).is_err(),
                "leaf {index} of {size}: {what} was accepted"
            );
        }
    }
}

#[test]
fn a_corrupted_consistency_proof_is_refused_every_way() {
    for (old, new, good) in CONSISTENCY.into_iter().filter(|(_, _, p)| !p.is_empty()) {
        let good = proof(good);
        let (r1, r2) = (h(ROOTS[old as usize - 1]), h(ROOTS[new as usize - 1]));
        let wrong = tree::leaf_hash(b"WrongRoot");
        let mut probes: Vec<(u64, u64, Hash, Hash, Vec<Hash>, String)> = vec![
            (old - 1, new, r1, r2, good.clone(), "old - 1".into()),
            (old + 1, new, r1, r2, good.clone(), "old + 1".into()),
            (old ^ 2, new, r1, r2, good.clone(), "old ^ 2".into()),
            (old, new * 2, r1, r2, good.clone(), "new * 2".into()),
            (old, new / 2, r1, r2, good.clone(), "new / 2".into()),
            (old, new, wrong, r2, good.clone(), "wrong old root".into()),
            (old, new, r1, wrong, good.clone(), "wrong new root".into()),
            (old, new, r2, r1, good.clone(), "swapped roots".into()),
            (old, new, r1, r2, Vec::new(), "empty proof".into()),
            (
                old,
                new,
                r1,
                r2,
                [good.clone(), vec![r1]].concat(),
                "trailing old root".into(),
            ),
            (
                old,
                new,
                r1,
                r2,
                [good.clone(), vec![r2]].concat(),
                "trailing new root".into(),
            ),
            (
                old,
                new,
                r1,
                r2,
                [vec![r1], good.clone()].concat(),
                "preceding old root".into(),
            ),
            (
                old,
                new,
                r1,
                r2,
                [vec![r2], good.clone()].concat(),
                "preceding new root".into(),
            ),
            (
                old,
                new,
                r1,
                r2,
                [vec![good[0]], good.clone()].concat(),
                "preceding proof[0]".into(),
            ),
            (old, new, r1, r2, good[..good.len() - 1].to_vec(), "truncated".into()),
        ];
        for i in 0..good.len() {
            let mut flipped = good.clone();
            flipped[i][0] ^= 16;
            probes.push((old, new, r1, r2, flipped, format!("proof[{i}] bit 4")));
        }
        for (o, n, a, b, p, what) in probes {
            assert!(
                tree::verify_consistency(o, n, &a, &b, &p).is_err(),
                "{old} to {new}: {what} was accepted"
            );
        }
    }
}

#[test]
fn the_empty_and_equal_trees_follow_rfc_9162s_edge_cases() {
    let (a, b) = (h(ROOTS[0]), h(ROOTS[1]));
    assert_eq!(tree::verify_consistency(0, 0, &a, &a, &[]), Ok(()));
    assert_eq!(tree::verify_consistency(0, 1, &a, &b, &[]), Ok(()));
    assert_eq!(tree::verify_consistency(1, 1, &b, &b, &[]), Ok(()));
    assert!(tree::verify_consistency(1, 1, &a, &b, &[]).is_err());
    assert!(tree::verify_consistency(1, 1, &a, &a, &[a]).is_err());
    assert_eq!(
        tree::verify_consistency(2, 1, &a, &b, &[]),
        Err(ProofError::Shrunk { old: 2, new: 1 })
    );
    assert!(tree::verify_consistency(1, 2, &a, &b, &[]).is_err());
    assert!(tree::verify_inclusion(0, 0, &a, &[], &a).is_err());
    assert_eq!(tree::verify_inclusion(0, 1, &a, &[], &a), Ok(()));
    assert!(tree::inclusion_proof(3, &ct_leaves()[..3]).is_none());
    assert!(tree::consistency_proof(4, &ct_leaves()[..3]).is_none());
}

#[test]
fn every_proof_of_every_small_tree_verifies_and_no_other_place_does() {
    let leaves: Vec<Hash> = (0u32..33).map(|i| tree::leaf_hash(&i.to_be_bytes())).collect();
    for n in 1..=leaves.len() {
        let root = tree::root(&leaves[..n]);
        for m in 0..n {
            let p = tree::inclusion_proof(m, &leaves[..n]).expect("inside");
            assert_eq!(
                tree::verify_inclusion(m as u64, n as u64, &leaves[m], &p, &root),
                Ok(())
            );
            let other = (m + 1) % n;
            if other != m {
                assert!(tree::verify_inclusion(other as u64, n as u64, &leaves[m], &p, &root).is_err());
                assert!(tree::verify_inclusion(m as u64, n as u64, &leaves[other], &p, &root).is_err());
            }
        }
        for old in 1..=n {
            let p = tree::consistency_proof(old, &leaves[..n]).expect("inside");
            let old_root = tree::root(&leaves[..old]);
            assert_eq!(
                tree::verify_consistency(old as u64, n as u64, &old_root, &root, &p),
                Ok(())
            );
            if old < n {
                // A history rewritten under the old size is not the start of the new tree.
                let mut forged = leaves[..n].to_vec();
                forged[old - 1] = tree::leaf_hash(b"rewritten");
                assert!(tree::verify_consistency(old as u64, n as u64, &old_root, &tree::root(&forged), &p).is_err());
            }
        }
    }
}

// golang.org/x/mod/sumdb/note's example: its signer and verifier keys and the note it signs
// (reproduced by the C2SP signed-note implementations in other languages).
const PETER_SEED: &str = "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const PETER_VERIFIER: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const PETER_TEXT: &str =
    "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_NOTE: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

fn peter() -> SigningKey {
    let typed = STANDARD.decode(PETER_SEED).expect("base64");
    assert_eq!(typed[0], 1, "an Ed25519 key");
    SigningKey::from_bytes(&typed[1..].try_into().expect("32 bytes"))
}

#[test]
fn notes_are_signed_as_the_go_reference_signs_them() {
    let key = peter();
    assert_eq!(note::verifier_key("PeterNeumann", &key.verifying_key()), PETER_VERIFIER);
    assert_eq!(
        note::key_id("PeterNeumann", &key.verifying_key()),
        [0xc7, 0x4f, 0x20, 0xa3]
    );
    assert_eq!(note::sign(PETER_TEXT, "PeterNeumann", &key), PETER_NOTE);
    assert_eq!(
        note::open(PETER_NOTE, &[key.verifying_key()]),
        Ok((PETER_TEXT, key.verifying_key()))
    );
    let changed = PETER_NOTE.replace("cryptography", "cryptographY");
    assert!(note::open(&changed, &[key.verifying_key()]).is_err());
    let other = SigningKey::from_bytes(&[9; 32]).verifying_key();
    assert!(note::open(PETER_NOTE, &[other])
        .expect_err("another key")
        .contains("not signed by"));
}

#[test]
fn a_checkpoint_reads_back_and_refuses_what_is_not_one() {
    let key = SigningKey::from_bytes(&[7; 32]);
    let checkpoint = Checkpoint {
        origin: "tablekeeper/tables/x".into(),
        size: 12,
        root: h(ROOTS[3]),
    };
    let signed = checkpoint.sign("tablekeeper", &key);
    assert!(signed.starts_with(
        "tablekeeper/tables/x\n12\n037kGJdt2VdTwcc4Yrk5j6Kiz5tP8P3+izDNlSCWFLc=\n\n\u{2014} tablekeeper "
    ));
    assert_eq!(
        Checkpoint::open(&signed, &[key.verifying_key()]),
        Ok((checkpoint.clone(), key.verifying_key()))
    );
    for body in ["o\n012\nAAAA\n", "o\n-1\nAAAA\n", "o\n1\nAAAA\n", "o\n1\n"] {
        let note = note::sign(body, "tablekeeper", &key);
        assert!(Checkpoint::open(&note, &[key.verifying_key()]).is_err(), "{body:?}");
    }
    assert!(Checkpoint::open("no signature\n", &[key.verifying_key()]).is_err());
}

/// The spec's example checkpoint (`get_table_checkpoint`), written by another implementation
/// (Python's `cryptography`) with a seed of 32 bytes of 7: the same bytes here.
#[test]
fn a_checkpoint_is_signed_as_another_implementation_signs_it() {
    let checkpoint = Checkpoint {
        origin: "tablekeeper/tables/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70".into(),
        size: 9,
        root: sha256(b"example"),
    };
    assert_eq!(
        checkpoint.sign("tablekeeper", &SigningKey::from_bytes(&[7; 32])),
        "tablekeeper/tables/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70\n9\nUNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw=\n\n\u{2014} tablekeeper OrlJ5/RcUm6krsK7k0uL51xUoCX26ZgRpPhs8ED6cHbfIZy6gP3l2gACXd8Yy6M6nHlxPGjtmrBjOUGkWgSwwoaN1Q0=\n"
    );
}

#[test]
fn the_log_name_is_the_public_address_without_its_scheme() {
    assert_eq!(
        note::log_name(Some("https://cards.example.org/club")),
        "cards.example.org/club"
    );
    assert_eq!(note::log_name(None), "tablekeeper");
    assert_eq!(note::log_name(Some("https://a+b.example")), "tablekeeper");
}

// A table's chain as `chain::link_after` makes it, without a database: what the verifier sees.

fn table() -> Uuid {
    Uuid::from_u128(0x43)
}

fn links(n: usize) -> Vec<LinkRow> {
    let mut prev = vec![0u8; 32];
    (0..n)
        .map(|i| {
            let content_hash = sha256(format!("entry {i}").as_bytes()).to_vec();
            let hash = sha256(&[prev.as_slice(), &content_hash].concat()).to_vec();
            let link = LinkRow {
                pos: i as i64,
                entry: if i == 0 { "table" } else { "move" }.into(),
                reference: i as i64,
                version: 3,
                content_hash,
                prev_hash: prev.clone(),
                hash: hash.clone(),
            };
            prev = hash;
            link
        })
        .collect()
}

fn key() -> SigningKey {
    SigningKey::from_bytes(&[7; 32])
}

fn witness(key: &SigningKey) -> Witness<'_> {
    Witness {
        name: "tablekeeper",
        key,
    }
}

#[test]
fn a_proof_and_its_checkpoint_verify_offline() {
    let key = key();
    let tree = Tree::new(table(), links(9)).expect("tree");
    for seq in 1..9 {
        for size in (seq as u64 + 1)..=9 {
            let proof = tree.inclusion(witness(&key), seq, Some(size)).expect("proof");
            let said = verify_inclusion(&proof, &proof.checkpoint.note, &[key.verifying_key()]).expect("holds");
            assert!(
                said.starts_with(&format!("yes: log entry {seq} of table {}", table())),
                "{said}"
            );
        }
    }
    let proof = tree.consistency(witness(&key), 3, Some(9)).expect("proof");
    assert!(verify_consistency(&proof, &[key.verifying_key()]).is_ok());
}

/// Every way a proof answer or a checkpoint can lie, each refused.
#[test]
fn the_verifier_refuses_every_lie() {
    let key = key();
    let keys = [key.verifying_key()];
    let tree = Tree::new(table(), links(9)).expect("tree");
    let good = tree.inclusion(witness(&key), 3, None).expect("proof");
    let note = good.checkpoint.note.clone();
    let refused = |proof: &InclusionProof, note: &str, what: &str| {
        let said = verify_inclusion(proof, note, &keys);
        assert!(said.is_err(), "{what} was accepted: {said:?}");
    };
    // A proof for another entry: the next entry's link with this entry's hashes and place.
    let other = tree.inclusion(witness(&key), 4, None).expect("proof");
    let mut swapped = good.clone();
    swapped.seq = 4;
    swapped.link = other.link.clone();
    swapped.leaf_data = other.leaf_data.clone();
    refused(&swapped, &note, "another entry's link");
    let mut moved = good.clone();
    moved.leaf_index = 4;
    refused(&moved, &note, "another place");
    let mut renamed = good.clone();
    renamed.seq = 4;
    refused(&renamed, &note, "another seq");
    // A truncated proof, and one with a hash too many.
    let mut truncated = good.clone();
    truncated.hashes.pop();
    refused(&truncated, &note, "a truncated proof");
    let mut extra = good.clone();
    extra.hashes.push(good.checkpoint.root_hash.clone());
    refused(&extra, &note, "a hash too many");
    // A forged root, signed by the audit key (a checkpoint of a tree where entry 3 is not).
    let mut forged_links = links(9);
    forged_links[3].hash = sha256(b"another move").to_vec();
    let forged = Tree::new(table(), forged_links)
        .expect("tree")
        .checkpoint(witness(&key), None)
        .expect("checkpoint");
    refused(&good, &forged.note, "a forged root");
    // A checkpoint signed by another key.
    let stranger = SigningKey::from_bytes(&[8; 32]);
    let theirs = tree.checkpoint(witness(&stranger), None).expect("checkpoint");
    refused(&good, &theirs.note, "another key's checkpoint");
    // A checkpoint of another table (another origin), signed by the audit key.
    let elsewhere = Tree::new(Uuid::from_u128(0x44), links(9)).expect("tree");
    let their_note = elsewhere.checkpoint(witness(&key), None).expect("checkpoint").note;
    refused(&good, &their_note, "another origin");
    let renamed_log = Witness {
        name: "cards.example.org",
        key: &key,
    };
    refused(
        &good,
        &tree.checkpoint(renamed_log, None).expect("checkpoint").note,
        "another log's origin",
    );
    // A checkpoint of another size.
    refused(
        &good,
        &tree.checkpoint(witness(&key), Some(8)).expect("checkpoint").note,
        "a size mismatch",
    );
    let mut resized = good.clone();
    resized.tree_size = 8;
    refused(&resized, &note, "a proof of another size");
    // A checkpoint changed after it was signed.
    let changed = note.replacen("\n9\n", "\n10\n", 1);
    refused(&good, &changed, "a changed checkpoint");
    // A leaf that is not its link's hash.
    let mut unlinked = good.clone();
    unlinked.link.content_hash = chain::hex(&sha256(b"another content"));
    refused(&unlinked, &note, "a link whose content is not the leaf's");
    // And without a key given, the key the proof names must be the one that signed.
    let mut claimed = good.clone();
    claimed.checkpoint.public_key = chain::hex(stranger.verifying_key().as_bytes());
    assert!(verify_inclusion(&claimed, &note, &[]).is_err());
    assert!(verify_inclusion(&good, &note, &[]).is_ok());
}

#[test]
fn bad_sizes_and_entries_are_named() {
    let key = key();
    let tree = Tree::new(table(), links(5)).expect("tree");
    let code = |e: ServiceError| match e {
        ServiceError::OutsideTree { code, .. } => code,
        ServiceError::EntryNotLinked(_) => "entry_not_linked",
        other => panic!("{other}"),
    };
    assert_eq!(
        code(tree.checkpoint(witness(&key), Some(6)).expect_err("beyond")),
        "size_beyond_tree"
    );
    assert_eq!(
        code(tree.inclusion(witness(&key), 3, Some(3)).expect_err("later")),
        "entry_beyond_size"
    );
    assert_eq!(
        code(tree.inclusion(witness(&key), 9, None).expect_err("none")),
        "entry_not_linked"
    );
    assert_eq!(
        code(tree.inclusion(witness(&key), 0, None).expect_err("the set-up")),
        "entry_not_linked"
    );
    assert_eq!(
        code(tree.consistency(witness(&key), 0, None).expect_err("zero")),
        "size_zero"
    );
    assert_eq!(
        code(tree.consistency(witness(&key), 4, Some(3)).expect_err("reversed")),
        "sizes_reversed"
    );
    assert_eq!(
        code(tree.consistency(witness(&key), 1, Some(6)).expect_err("beyond")),
        "size_beyond_tree"
    );
    let mut gap = links(5);
    gap.remove(2);
    assert!(matches!(Tree::new(table(), gap), Err(ServiceError::Damaged { .. })));
    let empty = Tree::new(table(), Vec::new()).expect("an unchained table");
    let checkpoint = empty.checkpoint(witness(&key), None).expect("the empty tree");
    assert_eq!(
        (checkpoint.size, checkpoint.root_hash.as_str()),
        (0, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
    );
}

// Cosignatures (C2SP tlog-cosignature, `cosignature/v1`).

fn phone_key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

const BODY: &str =
    "tablekeeper/tables/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70\n9\nUNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw=\n";

#[test]
fn the_specs_example_cosignature_line_reads_as_key_id_time_and_signature() {
    // The example of c2sp.org/tlog-cosignature: its time line says 1679315147.
    let line = "\u{2014} witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==";
    let c = cosign::Cosignature::parse(line).expect("reads");
    assert_eq!(c.name, "witness.example.com/w1");
    assert_eq!(c.key_id, [0x8d, 0x66, 0xcf, 0x3f]);
    assert_eq!(c.time, 1_679_315_147);
    assert_eq!(c.line(), line, "written back as it was read");
}

#[test]
fn a_cosignature_signs_the_header_the_time_and_the_checkpoint_body() {
    let key = phone_key(7);
    let c = cosign::Cosignature::sign(BODY, "tablekeeper/phones/p", &key, 1_767_225_600);
    let message = format!("cosignature/v1\ntime 1767225600\n{BODY}");
    assert_eq!(cosign::message(BODY, 1_767_225_600), message);
    use ed25519_dalek::Verifier as _;
    key.verifying_key()
        .verify(message.as_bytes(), &ed25519_dalek::Signature::from_bytes(&c.signature))
        .expect("the signature is over that message");
    // The key id is SHA-256(name ‖ 0x0A ‖ 0x04 ‖ key)[:4], not the log's 0x01.
    let mut id = b"tablekeeper/phones/p\n\x04".to_vec();
    id.extend_from_slice(key.verifying_key().as_bytes());
    assert_eq!(c.key_id, sha256(&id)[..4]);
    assert_ne!(c.key_id, note::key_id("tablekeeper/phones/p", &key.verifying_key()));
    let bytes = STANDARD
        .decode(c.line().rsplit_once(' ').expect("two fields").1)
        .expect("base64");
    assert_eq!(bytes.len(), 76);
    assert_eq!(bytes[4..12], 1_767_225_600u64.to_be_bytes());
    c.check(BODY, &key.verifying_key()).expect("holds");
}

#[test]
fn a_cosignature_does_not_hold_for_another_checkpoint_time_key_or_name() {
    let key = phone_key(7);
    let c = cosign::Cosignature::sign(BODY, "tablekeeper/phones/p", &key, 100);
    let other_root = BODY.replace("UNhY", "VNhY");
    assert!(c.check(&other_root, &key.verifying_key()).is_err(), "another root");
    assert!(
        c.check(&BODY.replace("\n9\n", "\n10\n"), &key.verifying_key()).is_err(),
        "another size"
    );
    let later = cosign::Cosignature { time: 101, ..c.clone() };
    assert!(later.check(BODY, &key.verifying_key()).is_err(), "another time");
    assert!(
        c.check(BODY, &phone_key(8).verifying_key()).is_err(),
        "another phone's key"
    );
    let renamed = cosign::Cosignature {
        name: "tablekeeper/phones/q".into(),
        ..c.clone()
    };
    assert!(
        renamed.check(BODY, &key.verifying_key()).is_err(),
        "another name: its key id differs"
    );
}

#[test]
fn a_line_not_in_the_cosignature_shape_is_refused() {
    let c = cosign::Cosignature::sign(BODY, "n", &phone_key(1), 5);
    let line = c.line();
    let (head, encoded) = line.rsplit_once(' ').expect("two fields");
    let short = STANDARD.encode(&STANDARD.decode(encoded).expect("b64")[..72]);
    for bad in [
        format!("- n {encoded}"),
        format!("{head} {short}"),
        format!("{head} not*base64"),
        "\u{2014} n".to_owned(),
        format!("\u{2014}  {encoded}"),
    ] {
        assert!(cosign::Cosignature::parse(&bad).is_err(), "{bad}");
    }
    let mut beyond = STANDARD.decode(encoded).expect("b64");
    beyond[4] = 0x80;
    assert!(cosign::Cosignature::parse(&format!("{head} {}", STANDARD.encode(beyond))).is_err());
}

/// The vectors the phone page's unit tests check its consistency verifier and cosignature lines
/// against (crates/web/tests/vectors/witness.json), made here by the service's own tree and
/// cosignature code: every pair of sizes of trees of up to 12 leaves, and one cosignature.
fn phone_vectors() -> serde_json::Value {
    let leaves: Vec<Hash> = (0u8..12).map(|i| tree::leaf_hash(&[i])).collect();
    let mut consistency = Vec::new();
    for to in 1..=leaves.len() {
        for from in 1..=to {
            let proof = tree::consistency_proof(from, &leaves[..to]).unwrap_or_default();
            consistency.push(serde_json::json!({
                "from": from,
                "to": to,
                "from_root": STANDARD.encode(tree::root(&leaves[..from])),
                "to_root": STANDARD.encode(tree::root(&leaves[..to])),
                "proof": proof.iter().map(|h| STANDARD.encode(h)).collect::<Vec<_>>(),
            }));
        }
    }
    let key = phone_key(7);
    let name = "tablekeeper/phones/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70";
    let c = cosign::Cosignature::sign(BODY, name, &key, 1_767_225_600);
    serde_json::json!({
        "consistency": consistency,
        "cosignature": {
            "body": BODY,
            "name": name,
            "public_key": STANDARD.encode(key.verifying_key().as_bytes()),
            "key_id": STANDARD.encode(c.key_id),
            "time": c.time,
            "signature": STANDARD.encode(c.signature),
            "line": c.line(),
        },
    })
}

#[test]
fn the_phone_pages_vectors_are_what_the_tree_code_makes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests/vectors/witness.json");
    let made = serde_json::to_string_pretty(&phone_vectors()).expect("json") + "\n";
    if std::env::var_os("TK_WRITE_VECTORS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
        std::fs::write(&path, &made).expect("written");
    }
    let kept = std::fs::read_to_string(&path).expect("the vectors file (TK_WRITE_VECTORS=1 makes it)");
    assert_eq!(
        kept, made,
        "the page's vectors are stale: run this test with TK_WRITE_VECTORS=1"
    );
}
