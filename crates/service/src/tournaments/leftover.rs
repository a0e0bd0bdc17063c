//! What a round's close does with the chips a stops game's pools still hold.

use std::collections::BTreeMap;

use tablekeeper_ledger::Account as LedgerAccount;
use tablekeeper_rules::Seat;

/// Where the chips left in a stops game's pools go when a round closes (Pope Joan, Spin and
/// Newmarket stake pools that a deal may leave unwon).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftover {
    /// They stay in the table's pools, and the settle-up counts them as the pools' (as before
    /// the rule existed: tournaments stored before it keep this).
    Keep,
    /// Among the table's players: an equal share each, the odd chips one each to seat 1, 2, …
    /// (seat 1 deals first) until none are left.
    Share,
    /// To the bank: the club keeps them.
    Bank,
    /// To the next round's table of the same number (the last table when the next round has
    /// fewer): out of the pools to the bank at the close, and issued by the bank onto the same
    /// pools when the next round opens that table (its `opening_pools`). After the last round
    /// there is no next table: the bank keeps them, as with `bank`.
    Carry,
}

impl Leftover {
    pub fn as_str(self) -> &'static str {
        match self {
            Leftover::Keep => "keep",
            Leftover::Share => "share",
            Leftover::Bank => "bank",
            Leftover::Carry => "carry",
        }
    }

    pub fn parse(s: &str) -> Option<Leftover> {
        match s {
            "keep" => Some(Leftover::Keep),
            "share" => Some(Leftover::Share),
            "bank" => Some(Leftover::Bank),
            "carry" => Some(Leftover::Carry),
            _ => None,
        }
    }
}

/// What round `round`'s close carried (`Carry`), as the next round's tables open with it: for
/// each table number of a round of `tables` tables (numbered from 1), the chips to put on each
/// pool (`opening_pools`). A closed table numbered beyond `tables` carries to the last table.
///
/// # Errors
/// `Corrupt` for a carry out of an account that is not a pool.
pub fn carried_pools(
    leftovers: &[tablekeeper_store::tournaments::LeftoverRow],
    round: i32,
    tables: u32,
) -> Result<BTreeMap<u32, BTreeMap<String, u64>>, crate::ServiceError> {
    let mut carried: BTreeMap<u32, BTreeMap<String, u64>> = BTreeMap::new();
    for moved in leftovers.iter().filter(|l| l.round == round) {
        let Ok(LedgerAccount::Pool(pool)) = LedgerAccount::parse(&moved.from_account) else {
            return Err(crate::ServiceError::Corrupt(format!(
                "a carry out of `{}`, not a pool",
                moved.from_account
            )));
        };
        let number = u32::try_from(moved.table_number).unwrap_or(u32::MAX).min(tables.max(1));
        let chips = u64::try_from(moved.amount).unwrap_or(0);
        *carried
            .entry(number)
            .or_default()
            .entry(pool.name().to_owned())
            .or_default() += chips;
    }
    Ok(carried)
}

/// The transfers that move a table's leftover chips, in booking order: each `(pool, to, chips)`,
/// out of one pool (those holding chips, in account order) into a seat or the bank. Together they
/// empty the pools and, with `share`, give seat `i` of `seats` `total / seats` chips and one more
/// for each `i < total % seats`. Nothing for `keep`, or when the pools hold nothing.
pub fn leftover_transfers(
    rule: Leftover,
    pools: &[(LedgerAccount, i64)],
    seats: usize,
) -> Vec<(LedgerAccount, LedgerAccount, i64)> {
    let pools: Vec<(LedgerAccount, i64)> = pools.iter().copied().filter(|(_, c)| *c > 0).collect();
    let total: i64 = pools.iter().map(|(_, c)| c).sum();
    let wanted: Vec<(LedgerAccount, i64)> = match rule {
        Leftover::Keep => return Vec::new(),
        // A carry is held by the bank between the close and the next round's opening.
        Leftover::Bank | Leftover::Carry => vec![(LedgerAccount::Bank, total)],
        Leftover::Share => {
            let Ok(n) = i64::try_from(seats) else { return Vec::new() };
            if n == 0 {
                return Vec::new();
            }
            (0..seats)
                .map(|i| {
                    let odd = i64::try_from(i).map_or(0, |i| i64::from(i < total.rem_euclid(n)));
                    let seat = LedgerAccount::Seat(Seat::new(u8::try_from(i).unwrap_or(u8::MAX)));
                    (seat, total.div_euclid(n) + odd)
                })
                .collect()
        }
    };
    // Walk the pools and the recipients together, each transfer the most both have left.
    let mut out = Vec::new();
    let (mut p, mut w) = (0, 0);
    let mut from_left = pools.first().map_or(0, |x| x.1);
    let mut to_left = wanted.first().map_or(0, |x| x.1);
    while p < pools.len() && w < wanted.len() {
        let chips = from_left.min(to_left);
        if chips > 0 {
            out.push((pools[p].0, wanted[w].0, chips));
        }
        from_left -= chips;
        to_left -= chips;
        if from_left == 0 {
            p += 1;
            from_left = pools.get(p).map_or(0, |x| x.1);
        }
        if to_left == 0 {
            w += 1;
            to_left = wanted.get(w).map_or(0, |x| x.1);
        }
    }
    out
}
