//! What a round's close does with the chips a stops game's pools still hold.

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
}

impl Leftover {
    pub fn as_str(self) -> &'static str {
        match self {
            Leftover::Keep => "keep",
            Leftover::Share => "share",
            Leftover::Bank => "bank",
        }
    }

    pub fn parse(s: &str) -> Option<Leftover> {
        match s {
            "keep" => Some(Leftover::Keep),
            "share" => Some(Leftover::Share),
            "bank" => Some(Leftover::Bank),
            _ => None,
        }
    }
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
        Leftover::Bank => vec![(LedgerAccount::Bank, total)],
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
