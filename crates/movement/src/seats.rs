//! The order of seats at one table, chosen so that neighbours and partners change from round to
//! round: at an even table of up to eight, the partnerships (opposite seats) are the pairing that
//! repeats least (last round's partners cost most), then arranged round the table so that
//! neighbours repeat least; otherwise seats are filled one by one with whoever sat beside the
//! last-placed entrant least. Deterministic: ties keep the order the members were given in.

use super::entrant::Entrant;
use super::history::Record;

/// The members of one table in seat order, seat 1 first.
pub(crate) fn order(members: &[Entrant], record: &Record) -> Vec<Entrant> {
    let k = members.len();
    if k <= 3 {
        return members.to_vec();
    }
    if k % 2 == 0 && k <= 8 {
        return partnered(members, record);
    }
    greedy(members, record)
}

fn greedy(members: &[Entrant], record: &Record) -> Vec<Entrant> {
    let k = members.len();
    let mut left: Vec<Entrant> = members.to_vec();
    let mut seats = vec![left.remove(0)];
    while !left.is_empty() {
        let i = seats.len();
        let cost = |e: Entrant| {
            let mut c = record.neighbour_cost(seats[i - 1], e);
            if k % 2 == 0 && i >= k / 2 {
                c += record.partner_cost(seats[i - k / 2], e);
            }
            if i + 1 == k {
                c += record.neighbour_cost(seats[0], e);
            }
            c
        };
        let best = (0..left.len()).min_by_key(|j| cost(left[*j])).unwrap_or(0);
        seats.push(left.remove(best));
    }
    seats
}

/// Every way to split `members` into pairs.
fn matchings(members: &[Entrant]) -> Vec<Vec<(Entrant, Entrant)>> {
    let Some((first, rest)) = members.split_first() else {
        return vec![Vec::new()];
    };
    let mut all = Vec::new();
    for j in 0..rest.len() {
        let mut others = rest.to_vec();
        let partner = others.remove(j);
        for mut m in matchings(&others) {
            m.insert(0, (*first, partner));
            all.push(m);
        }
    }
    all
}

/// Every order of `0..n` with 0 first.
fn orders(n: usize) -> Vec<Vec<usize>> {
    fn extend(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for i in 1..n {
            if !prefix.contains(&i) {
                prefix.push(i);
                extend(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(&mut vec![0], n, &mut out);
    out
}

fn partnered(members: &[Entrant], record: &Record) -> Vec<Entrant> {
    let k = members.len();
    let h = k / 2;
    let pairs = matchings(members)
        .into_iter()
        .min_by_key(|m| m.iter().map(|(a, b)| record.partner_cost(*a, *b)).sum::<u64>())
        .unwrap_or_default();
    let mut best: Option<(u64, Vec<Entrant>)> = None;
    for order in orders(h) {
        // Orientation bits for pairs 1..h (pair 0 keeps its own).
        for flips in 0..(1u32 << (h - 1)) {
            let mut seats = vec![members[0]; k];
            for (i, p) in order.iter().enumerate() {
                let (a, b) = pairs[*p];
                let flip = *p > 0 && flips & (1 << (*p - 1)) != 0;
                let (a, b) = if flip { (b, a) } else { (a, b) };
                seats[i] = a;
                seats[i + h] = b;
            }
            let cost: u64 = (0..k)
                .map(|s| record.neighbour_cost(seats[s], seats[(s + 1) % k]))
                .sum();
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, seats));
            }
        }
    }
    best.map(|(_, seats)| seats).unwrap_or_else(|| members.to_vec())
}
