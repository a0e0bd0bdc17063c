//! The order of seats at one table, chosen so that neighbours and partners change from round to
//! round: at an even table of up to eight, the partnerships (opposite seats) are the pairing that
//! repeats least (last round's partners cost most), then arranged round the table so that
//! neighbours repeat least; otherwise seats are filled one by one with whoever sat beside the
//! last-placed entrant least. Deterministic: ties keep the order the members were given in.

use super::entrant::Entrant;
use super::history::Record;
use std::sync::OnceLock;

/// The members of one table in seat order, seat 1 first.
pub(crate) fn order(members: &[Entrant], record: &Record<'_>) -> Vec<Entrant> {
    let k = members.len();
    if k <= 3 {
        return members.to_vec();
    }
    // The members by index, with their pairs' costs looked up once.
    let at: Vec<usize> = members.iter().map(|e| record.position(*e)).collect();
    let costs = Costs {
        k,
        partner: (0..k * k).map(|i| record.partner_cost(at[i / k], at[i % k])).collect(),
        neighbour: (0..k * k)
            .map(|i| record.neighbour_cost(at[i / k], at[i % k]))
            .collect(),
    };
    let seats = if k % 2 == 0 && k <= 8 {
        partnered(&costs)
    } else {
        greedy(&costs)
    };
    seats.into_iter().map(|i| members[i]).collect()
}

struct Costs {
    k: usize,
    partner: Vec<u64>,
    neighbour: Vec<u64>,
}

impl Costs {
    fn partner(&self, a: usize, b: usize) -> u64 {
        self.partner[a * self.k + b]
    }

    fn neighbour(&self, a: usize, b: usize) -> u64 {
        self.neighbour[a * self.k + b]
    }
}

fn greedy(costs: &Costs) -> Vec<usize> {
    let k = costs.k;
    let mut left: Vec<usize> = (1..k).collect();
    let mut seats = vec![0];
    while !left.is_empty() {
        let i = seats.len();
        let cost = |e: usize| {
            let mut c = costs.neighbour(seats[i - 1], e);
            if k % 2 == 0 && i >= k / 2 {
                c += costs.partner(seats[i - k / 2], e);
            }
            if i + 1 == k {
                c += costs.neighbour(seats[0], e);
            }
            c
        };
        let best = (0..left.len()).min_by_key(|j| cost(left[*j])).unwrap_or(0);
        seats.push(left.remove(best));
    }
    seats
}

/// Pairings of a table's seats, and orders of its pairs.
type Patterns = (Vec<Vec<(usize, usize)>>, Vec<Vec<usize>>);

/// The pairings of `0..k` and the orders of its `k / 2` pairs (pair 0 first), for the even `k`
/// up to 8, worked out once.
fn patterns(k: usize) -> &'static Patterns {
    static PATTERNS: OnceLock<Vec<Patterns>> = OnceLock::new();
    let all = PATTERNS.get_or_init(|| {
        (0..=8)
            .map(|k: usize| {
                let members: Vec<usize> = (0..k).collect();
                (matchings(&members), orders(k / 2))
            })
            .collect()
    });
    &all[k.min(8)]
}

/// Every way to split `members` into pairs.
fn matchings(members: &[usize]) -> Vec<Vec<(usize, usize)>> {
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

fn partnered(costs: &Costs) -> Vec<usize> {
    let k = costs.k;
    let h = k / 2;
    let members: Vec<usize> = (0..k).collect();
    let pairs = patterns(k)
        .0
        .iter()
        .min_by_key(|m| m.iter().map(|(a, b)| costs.partner(*a, *b)).sum::<u64>())
        .cloned()
        .unwrap_or_default();
    let mut best: Option<(u64, Vec<usize>)> = None;
    for order in &patterns(k).1 {
        // Orientation bits for pairs 1..h (pair 0 keeps its own).
        for flips in 0..(1u32 << (h - 1)) {
            let mut seats = vec![0; k];
            for (i, p) in order.iter().enumerate() {
                let (a, b) = pairs[*p];
                let flip = *p > 0 && flips & (1 << (*p - 1)) != 0;
                let (a, b) = if flip { (b, a) } else { (a, b) };
                seats[i] = a;
                seats[i + h] = b;
            }
            let cost: u64 = (0..k).map(|s| costs.neighbour(seats[s], seats[(s + 1) % k])).sum();
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                best = Some((cost, seats));
            }
        }
    }
    best.map(|(_, seats)| seats).unwrap_or(members)
}
