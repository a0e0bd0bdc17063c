//! A booking as the audit and a correction compare them: keyed by its cause, deal, memo and
//! merged postings, so that two bookings that move the same chips for the same reason compare
//! equal however their postings were split or ordered.

use std::collections::BTreeMap;

/// A booking as compared: its cause, deal, memo and postings, one per account, none of zero
/// (as a booking stores them).
pub type Key = (i64, Option<i32>, String, Vec<(String, i64)>);

pub(super) fn key(seq: i64, deal: Option<i32>, memo: &str, postings: impl Iterator<Item = (String, i64)>) -> Key {
    let mut merged: BTreeMap<String, i64> = BTreeMap::new();
    for (account, amount) in postings {
        *merged.entry(account).or_default() += amount;
    }
    let postings = merged.into_iter().filter(|(_, amount)| *amount != 0).collect();
    (seq, deal, memo.to_owned(), postings)
}
