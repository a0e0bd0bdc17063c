//! Settling up: who pays whom so that every net balance comes back to zero, in as few transfers
//! as can be.
//!
//! Invariants: the transfers, applied to the balances, leave every party at zero; amounts are
//! positive integers; a party whose balance is zero takes no part. Fewest transfers: a group of
//! parties whose balances sum to zero settles among itself in one transfer fewer than its size,
//! so the fewest transfers is the number of parties owed or owing less the largest number of
//! disjoint zero-sum groups they split into. That is found exactly (over subsets) for up to
//! [`EXACT_UP_TO`] parties; beyond, the largest debtor pays the largest creditor in turn (at
//! most one transfer fewer than the parties).

/// The most parties settled exactly; 2^n subsets are tried.
pub const EXACT_UP_TO: usize = 12;

/// One payment: `from` pays `to` `amount` (positive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer<K> {
    pub from: K,
    pub to: K,
    pub amount: i64,
}

/// The transfers that settle `balances` (positive: owed to the party; negative: owing).
///
/// # Errors
/// `Unbalanced` with the sum when the balances do not sum to zero.
pub fn settle_up<K: Clone>(balances: &[(K, i64)]) -> Result<Vec<Transfer<K>>, Unbalanced> {
    let total: i128 = balances.iter().map(|(_, b)| i128::from(*b)).sum();
    if total != 0 {
        return Err(Unbalanced(total));
    }
    let parties: Vec<(K, i64)> = balances.iter().filter(|(_, b)| *b != 0).cloned().collect();
    if parties.len() > EXACT_UP_TO {
        return Ok(greedy(parties));
    }
    let mut transfers = Vec::new();
    for group in zero_sum_groups(&parties) {
        transfers.extend(greedy(group.into_iter().map(|i| parties[i].clone()).collect()));
    }
    Ok(transfers)
}

/// Balances that do not sum to zero cannot be settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("balances sum to {0}, not zero")]
pub struct Unbalanced(pub i128);

/// The parties split into the most disjoint groups each summing to zero (indices).
fn zero_sum_groups<K>(parties: &[(K, i64)]) -> Vec<Vec<usize>> {
    let n = parties.len();
    let full: usize = (1 << n) - 1;
    let mut sums: Vec<i128> = vec![0; full + 1];
    for mask in 1..=full {
        let low = mask.trailing_zeros() as usize;
        sums[mask] = sums[mask & (mask - 1)] + i128::from(parties[low].1);
    }
    let sum = |mask: usize| sums[mask];
    // best[mask]: the most zero-sum groups `mask` splits into, when it sums to zero.
    let mut best: Vec<i32> = vec![-1; full + 1];
    let mut first: Vec<usize> = vec![0; full + 1];
    best[0] = 0;
    for mask in 1..=full {
        if sum(mask) != 0 {
            continue;
        }
        // A group holding the lowest party of `mask`, and the best split of the rest.
        let low = mask & mask.wrapping_neg();
        let mut sub = mask;
        while sub > 0 {
            if sub & low != 0 && sum(sub) == 0 && best[mask ^ sub] >= 0 && best[mask ^ sub] + 1 > best[mask] {
                best[mask] = best[mask ^ sub] + 1;
                first[mask] = sub;
            }
            sub = (sub - 1) & mask;
        }
    }
    let mut groups = Vec::new();
    let mut mask = full;
    while mask > 0 {
        let group = first[mask];
        groups.push((0..n).filter(|i| group & (1 << i) != 0).collect());
        mask ^= group;
    }
    groups
}

/// The largest debtor pays the largest creditor until all are square.
fn greedy<K: Clone>(mut parties: Vec<(K, i64)>) -> Vec<Transfer<K>> {
    let mut transfers = Vec::new();
    loop {
        let debtor = (0..parties.len())
            .filter(|&i| parties[i].1 < 0)
            .min_by_key(|&i| parties[i].1);
        let creditor = (0..parties.len())
            .filter(|&i| parties[i].1 > 0)
            .max_by_key(|&i| parties[i].1);
        let (Some(d), Some(c)) = (debtor, creditor) else {
            return transfers;
        };
        let amount = parties[c].1.min(-parties[d].1);
        parties[d].1 += amount;
        parties[c].1 -= amount;
        transfers.push(Transfer {
            from: parties[d].0.clone(),
            to: parties[c].0.clone(),
            amount,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(balances: &[(&str, i64)], fewest: usize) {
        let transfers = settle_up(balances).expect("balanced");
        assert_eq!(transfers.len(), fewest, "{transfers:?}");
        for (party, balance) in balances {
            let paid: i64 = transfers.iter().filter(|t| t.from == *party).map(|t| t.amount).sum();
            let got: i64 = transfers.iter().filter(|t| t.to == *party).map(|t| t.amount).sum();
            assert_eq!(balance + paid - got, 0, "{party} is square");
        }
        assert!(transfers.iter().all(|t| t.amount > 0));
    }

    #[test]
    fn pairs_that_cancel_settle_in_one_transfer_each() {
        // Greedy would pay 10 → 9 first and need three transfers.
        check(&[("a", -10), ("b", 9), ("c", -9), ("d", 10)], 2);
    }

    #[test]
    fn one_winner_is_paid_by_every_loser() {
        check(&[("a", 30), ("b", -10), ("c", -15), ("d", -5), ("e", 0)], 3);
    }

    #[test]
    fn square_parties_need_nothing() {
        check(&[("a", 0), ("b", 0)], 0);
        check(&[], 0);
    }

    #[test]
    fn balances_that_do_not_sum_to_zero_are_refused() {
        assert_eq!(settle_up(&[("a", 5), ("b", -4)]), Err(Unbalanced(1)));
    }

    #[test]
    fn many_parties_settle_by_the_greedy_rule_in_fewer_transfers_than_parties() {
        let mut balances: Vec<(String, i64)> = (0..20).map(|i| (format!("p{i}"), i - 10)).collect();
        balances.push(("last".into(), 10));
        let transfers = settle_up(&balances).expect("balanced");
        assert!(transfers.len() < balances.len());
    }
}
