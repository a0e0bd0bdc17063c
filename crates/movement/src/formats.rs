//! The four movements. Each takes who sits this round (byes already taken out, stays already
//! at their tables) and the table sizes, and answers the tables, each in priority order; the
//! event then orders the seats.

use super::assign::{self, Tables, NEVER};
use super::entrant::{Entrant, Map, Set};
use super::history::Record;
use super::round::PlayedRound;
use super::setup::Moves;

/// Steps the Swiss search may take per attempt before it settles for fewer constraints.
const SEARCH_BUDGET: usize = 2_000;

/// What every movement is given.
pub(crate) struct Context<'a> {
    /// Roster position of each entrant (seeding order).
    pub roster: &'a Map<Entrant, usize>,
    /// Position in the standings so far (0 is the leader; ties in roster order).
    pub rank: &'a Map<Entrant, usize>,
    /// Counts from the earlier rounds.
    pub record: &'a Record<'a>,
    /// The earlier rounds.
    pub history: &'a [PlayedRound],
    /// Sizes of tables 1, 2, … in units (entrants, or partnerships in a Swiss with them).
    pub sizes: &'a [usize],
    /// The tables with only the pinned (stays) at them.
    pub pins: &'a [Vec<Entrant>],
    /// The units to seat (not pinned, no bye), in roster order.
    pub sitting: &'a [Entrant],
    /// Pairs of units that must not share a table.
    pub apart: &'a [(Entrant, Entrant)],
}

/// The units of one round by number (pinned first, then those sitting), with their pairs'
/// meetings and apart flags in dense tables: the searches look pairs up millions of times.
struct Dense {
    ids: Vec<Entrant>,
    met: Vec<u32>,
    apart: Vec<bool>,
    pinned: Vec<bool>,
    pins: Tables,
}

impl Dense {
    fn new(cx: &Context<'_>) -> Self {
        let mut ids: Vec<Entrant> = cx.pins.iter().flatten().copied().collect();
        let pinned_count = ids.len();
        ids.extend(cx.sitting.iter().copied());
        let n = ids.len();
        let position: Map<Entrant, usize> = ids.iter().enumerate().map(|(i, e)| (*e, i)).collect();
        let at: Vec<usize> = ids.iter().map(|e| cx.record.position(*e)).collect();
        let met = (0..n * n).map(|i| cx.record.met_at(at[i / n], at[i % n])).collect();
        let mut apart = vec![false; n * n];
        for (a, b) in cx.apart {
            if let (Some(i), Some(j)) = (position.get(a), position.get(b)) {
                apart[i * n + j] = true;
                apart[j * n + i] = true;
            }
        }
        let pins = cx
            .pins
            .iter()
            .map(|t| t.iter().filter_map(|e| position.get(e).copied()).collect())
            .collect();
        Dense {
            pinned: (0..n).map(|i| i < pinned_count).collect(),
            ids,
            met,
            apart,
            pins,
        }
    }

    fn met(&self, a: usize, b: usize) -> u32 {
        self.met[a * self.ids.len() + b]
    }

    fn apart(&self, a: usize, b: usize) -> bool {
        self.apart[a * self.ids.len() + b]
    }

    /// A pair's cost: eightfold for each earlier meeting, "never" if apart.
    fn cost(&self, a: usize, b: usize) -> u64 {
        if self.apart(a, b) {
            NEVER
        } else {
            8u64.pow(self.met(a, b).min(12))
        }
    }

    /// The units (not pinned) by number, sorted by `key`.
    fn order<K: Ord>(&self, key: impl Fn(Entrant) -> K) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.ids.len()).filter(|i| !self.pinned[*i]).collect();
        order.sort_by_cached_key(|i| key(self.ids[*i]));
        order
    }

    /// `tables` if they keep every apart pair apart, else the first seating (in the order of
    /// `tables`, so as close to it as can be) that does, if the search finds one.
    fn apart_kept(&self, tables: Tables, sizes: &[usize]) -> Tables {
        let apart = |a, b| self.apart(a, b);
        if assign::clash(&tables, &apart).is_none() {
            return tables;
        }
        let order: Vec<usize> = tables.iter().flatten().copied().filter(|i| !self.pinned[*i]).collect();
        assign::search(&order, &self.pins, sizes, &apart, SEARCH_BUDGET * 10).unwrap_or(tables)
    }

    fn entrants(&self, tables: Tables) -> Vec<Vec<Entrant>> {
        tables
            .into_iter()
            .map(|t| t.into_iter().map(|i| self.ids[i]).collect())
            .collect()
    }
}

impl Context<'_> {
    fn roster_of(&self, e: Entrant) -> usize {
        self.roster.get(&e).copied().unwrap_or(usize::MAX)
    }

    fn rank_of(&self, e: Entrant) -> usize {
        self.rank.get(&e).copied().unwrap_or(usize::MAX)
    }

    /// Fills the tables from one ladder: the units sorted by `key` (then roster order), cut into
    /// the tables' free places in table order. Overflow from a table goes to the next; a
    /// shortfall is made up from the next. Apart pairs are then separated by swaps with the
    /// nearest table.
    fn ladder<K: Ord>(&self, key: impl Fn(Entrant) -> K) -> Vec<Vec<Entrant>> {
        let dense = Dense::new(self);
        let order = dense.order(|e| (key(e), self.roster_of(e)));
        let mut tables = dense.pins.clone();
        let mut next = order.into_iter();
        for (j, table) in tables.iter_mut().enumerate() {
            while table.len() < self.sizes[j] {
                let Some(e) = next.next() else { break };
                table.push(e);
            }
        }
        assign::repair(&mut tables, &dense.pinned, &|a, b| dense.apart(a, b));
        dense.entrants(dense.apart_kept(tables, self.sizes))
    }
}

/// Where each entrant wants to go after a progressive round: (table, class, place at the table).
/// Class 0 moves up (or is table 1's winner staying), 1 stays, 2 moves down, 3 comes back from a
/// bye or absence to its last table, 4 is new (to the bottom).
pub(crate) fn progressive(cx: &Context<'_>, moves: Moves) -> Vec<Vec<Entrant>> {
    let mut want: Map<Entrant, (u32, u8, usize)> = Map::default();
    if let Some(last) = cx.history.last() {
        let last_table = u32::try_from(last.round.tables.len()).unwrap_or(u32::MAX);
        for table in &last.round.tables {
            let Some(result) = last.results.iter().find(|r| r.table == table.number) else {
                continue;
            };
            let mut by_place: Vec<usize> = (0..table.seats.len()).collect();
            by_place.sort_by_cached_key(|s| {
                (
                    std::cmp::Reverse(result.scores.get(*s).copied().unwrap_or(i64::MIN)),
                    cx.rank_of(table.seats[*s]),
                    *s,
                )
            });
            let up = match moves {
                Moves::Winner => 1,
                Moves::TopTwo => 2,
                Moves::WinnersUpLosersDown => table.seats.len() / 2,
            };
            let k = table.number;
            for (place, s) in by_place.into_iter().enumerate() {
                let e = table.seats[s];
                // With winners up and losers down, the middle player of an odd table stays.
                let down = moves == Moves::WinnersUpLosersDown && place >= table.seats.len() - up;
                let w = if place < up {
                    (k.saturating_sub(1).max(1), 0, place)
                } else if down && k < last_table {
                    (k + 1, 2, place)
                } else {
                    (k, 1, place)
                };
                want.insert(e, w);
            }
        }
    }
    cx.ladder(|e| {
        want.get(&e).copied().unwrap_or_else(|| match cx.record.last_seat(e) {
            Some((table, seat)) => (table, 3, seat),
            None => (u32::MAX, 4, 0),
        })
    })
}

/// Fixed tables: each entrant back at the table and seat it last had; newcomers at the bottom.
pub(crate) fn fixed(cx: &Context<'_>) -> Vec<Vec<Entrant>> {
    cx.ladder(|e| cx.record.last_seat(e).unwrap_or((u32::MAX, 0)))
}

/// A rotation's byes: `count` of `candidates` (sorted by byes so far, fewest first, then roster
/// order from the last), taking those with fewer byes than the last one taken in any case and
/// choosing among those with as many one at a time: whoever has met the others still seated most
/// (the cost of a pair growing eightfold with each meeting), so that those seated meet least.
pub(crate) fn rotation_byes(
    record: &Record<'_>,
    candidates: &[Entrant],
    units: &[Entrant],
    count: usize,
) -> Set<Entrant> {
    let Some(last) = count.checked_sub(1).and_then(|i| candidates.get(i)) else {
        return Set::default();
    };
    let level = record.byes(*last);
    let mut byes: Set<Entrant> = candidates.iter().copied().filter(|c| record.byes(*c) < level).collect();
    let mut open: Vec<Entrant> = candidates
        .iter()
        .copied()
        .filter(|c| record.byes(*c) == level)
        .collect();
    let at = |e: Entrant| record.position(e);
    while byes.len() < count && !open.is_empty() {
        let cost = |c: Entrant| -> u64 {
            units
                .iter()
                .filter(|o| **o != c && !byes.contains(*o))
                .map(|o| 8u64.pow(record.met_at(at(c), at(*o)).min(12)))
                .sum()
        };
        // The first of the costliest, in the candidates' order.
        let mut best = 0;
        for i in 1..open.len() {
            if cost(open[i]) > cost(open[best]) {
                best = i;
            }
        }
        byes.insert(open.remove(best));
    }
    byes
}

/// All meet all: each unit (in roster order) to the table where it has met the fewest, the cost
/// of a pair growing eightfold with each earlier meeting, then swaps while they lower the cost.
pub(crate) fn rotation(cx: &Context<'_>) -> Vec<Vec<Entrant>> {
    let dense = Dense::new(cx);
    let order = dense.order(|e| cx.roster_of(e));
    dense.entrants(dense.apart_kept(least_met(cx, &dense, &order), cx.sizes))
}

/// A greedy seating of `order`, then swaps while they lower the cost.
fn least_met(cx: &Context<'_>, dense: &Dense, order: &[usize]) -> Tables {
    let cost = |a, b| dense.cost(a, b);
    let mut tables = dense.pins.clone();
    assign::greedy(order, &mut tables, cx.sizes, &cost);
    assign::improve(&mut tables, &dense.pinned, &cost);
    tables
}

/// Swiss: units in standings order, each at the highest table where it has met nobody; if that
/// seats nobody, the fewest repeats that can be found (a pair may meet once more, then twice…),
/// and as a last resort the rotation's search.
pub(crate) fn swiss(cx: &Context<'_>) -> Vec<Vec<Entrant>> {
    let dense = Dense::new(cx);
    let order = dense.order(|e| (cx.rank_of(e), cx.roster_of(e)));
    let most = u32::try_from(cx.history.len()).unwrap_or(u32::MAX);
    for allowed in 0..=most {
        let forbidden = |a, b| dense.apart(a, b) || dense.met(a, b) > allowed;
        if let Some(tables) = assign::search(&order, &dense.pins, cx.sizes, &forbidden, SEARCH_BUDGET) {
            return dense.entrants(tables);
        }
        // The ordered search gives up within its budget in a large field even where a seating
        // without a repeat exists: swaps from the standings' ladder find one, keeping near ranks
        // together, before a repeat is allowed.
        if allowed == 0 {
            if let Some(tables) = swapped_apart(&dense, &order, cx.sizes, &forbidden) {
                return dense.entrants(tables);
            }
        }
    }
    dense.entrants(dense.apart_kept(least_met(cx, &dense, &order), cx.sizes))
}

/// How many swaps a unit the min-conflicts search may make before a repeat is allowed.
const CONFLICT_STEPS: usize = 100;

/// A seating without a forbidden pair found by swaps from the standings' ladder (`order` cut
/// into the tables' free places): min-conflicts until no forbidden pair is left, then swaps
/// that bring near ranks together without seating one (fixed seeds: the same standings seat the
/// same tables).
fn swapped_apart(
    dense: &Dense,
    order: &[usize],
    sizes: &[usize],
    forbidden: &dyn Fn(usize, usize) -> bool,
) -> Option<Tables> {
    let mut tables = dense.pins.clone();
    let mut next = order.iter().copied();
    for (j, table) in tables.iter_mut().enumerate() {
        while table.len() < sizes[j] {
            let Some(e) = next.next() else { break };
            table.push(e);
        }
    }
    if !assign::min_conflicts(
        &mut tables,
        &dense.pinned,
        forbidden,
        0x9e37_79b9_7f4a_7c15,
        CONFLICT_STEPS * order.len(),
    ) {
        return None;
    }
    let mut place = vec![0usize; dense.ids.len()];
    for (i, e) in order.iter().enumerate() {
        place[*e] = i;
    }
    let cost = |a: usize, b: usize| {
        if forbidden(a, b) {
            NEVER
        } else {
            u64::try_from(place[a].abs_diff(place[b])).unwrap_or(u64::MAX >> 16)
        }
    };
    assign::improve(&mut tables, &dense.pinned, &cost);
    assign::clash(&tables, forbidden).is_none().then_some(tables)
}
