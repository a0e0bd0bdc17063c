//! The four movements. Each takes who sits this round (byes already taken out, stays already
//! at their tables) and the table sizes, and answers the tables, each in priority order; the
//! event then orders the seats.

use super::assign::{self, Tables, NEVER};
use super::entrant::Entrant;
use super::history::Record;
use super::round::PlayedRound;
use super::setup::Moves;
use std::collections::{HashMap, HashSet};

/// Steps the Swiss search may take per attempt before it settles for fewer constraints.
const SEARCH_BUDGET: usize = 20_000;

/// What every movement is given.
pub(crate) struct Context<'a> {
    /// Roster position of each entrant (seeding order).
    pub roster: &'a HashMap<Entrant, usize>,
    /// Position in the standings so far (0 is the leader; ties in roster order).
    pub rank: &'a HashMap<Entrant, usize>,
    /// Counts from the earlier rounds.
    pub record: &'a Record,
    /// The earlier rounds.
    pub history: &'a [PlayedRound],
    /// Sizes of tables 1, 2, … in units (entrants, or partnerships in a Swiss with them).
    pub sizes: &'a [usize],
    /// The tables with only the pinned (stays) at them.
    pub pins: &'a Tables,
    /// Who is pinned.
    pub pinned: &'a HashSet<Entrant>,
    /// The units to seat (not pinned, no bye), in roster order.
    pub sitting: &'a [Entrant],
    /// Whether two units must not share a table.
    pub apart: &'a dyn Fn(Entrant, Entrant) -> bool,
    /// Rounds two units have shared a table.
    pub met: &'a dyn Fn(Entrant, Entrant) -> u32,
}

impl Context<'_> {
    fn roster_of(&self, e: Entrant) -> usize {
        self.roster.get(&e).copied().unwrap_or(usize::MAX)
    }

    fn rank_of(&self, e: Entrant) -> usize {
        self.rank.get(&e).copied().unwrap_or(usize::MAX)
    }

    /// Fills the tables from one ladder: `sitting` sorted by `key`, cut into the tables' free
    /// places in table order. Overflow from a table goes to the next; a shortfall is made up
    /// from the next.
    fn ladder<K: Ord>(&self, key: impl Fn(Entrant) -> K) -> Tables {
        let mut order = self.sitting.to_vec();
        order.sort_by_key(|e| (key(*e), self.roster_of(*e)));
        let mut tables = self.pins.clone();
        let mut next = order.into_iter();
        for (j, table) in tables.iter_mut().enumerate() {
            while table.len() < self.sizes[j] {
                let Some(e) = next.next() else { break };
                table.push(e);
            }
        }
        tables
    }

    fn cost(&self, a: Entrant, b: Entrant) -> u64 {
        if (self.apart)(a, b) {
            NEVER
        } else {
            8u64.pow((self.met)(a, b).min(12))
        }
    }
}

/// Where each entrant wants to go after a progressive round: (table, class, place at the table).
/// Class 0 moves up (or is table 1's winner staying), 1 stays, 2 moves down, 3 comes back from a
/// bye or absence to its last table, 4 is new (to the bottom).
pub(crate) fn progressive(cx: &Context<'_>, moves: Moves) -> Tables {
    let mut want: HashMap<Entrant, (u32, u8, usize)> = HashMap::new();
    if let Some(last) = cx.history.last() {
        let last_table = u32::try_from(last.round.tables.len()).unwrap_or(u32::MAX);
        for table in &last.round.tables {
            let Some(result) = last.results.iter().find(|r| r.table == table.number) else {
                continue;
            };
            let mut by_place: Vec<usize> = (0..table.seats.len()).collect();
            by_place.sort_by_key(|s| {
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
                let w = if place < up {
                    (k.saturating_sub(1).max(1), 0, place)
                } else if moves == Moves::WinnersUpLosersDown && k < last_table {
                    (k + 1, 2, place)
                } else {
                    (k, 1, place)
                };
                want.insert(e, w);
            }
        }
    }
    let tables = cx.ladder(|e| {
        want.get(&e)
            .copied()
            .unwrap_or_else(|| match cx.record.last_seat.get(&e) {
                Some((table, seat)) => (*table, 3, *seat),
                None => (u32::MAX, 4, 0),
            })
    });
    separate(cx, tables)
}

/// Fixed tables: each entrant back at the table and seat it last had; newcomers at the bottom.
pub(crate) fn fixed(cx: &Context<'_>) -> Tables {
    let tables = cx.ladder(|e| cx.record.last_seat.get(&e).copied().unwrap_or((u32::MAX, 0)));
    separate(cx, tables)
}

fn separate(cx: &Context<'_>, mut tables: Tables) -> Tables {
    assign::repair(&mut tables, cx.pinned, cx.apart);
    tables
}

/// All meet all: each unit (in roster order) to the table where it has met the fewest, the cost
/// of a pair growing eightfold with each earlier meeting, then swaps while they lower the cost.
pub(crate) fn rotation(cx: &Context<'_>) -> Tables {
    let cost = |a, b| cx.cost(a, b);
    let mut tables = cx.pins.clone();
    assign::greedy(cx.sitting, &mut tables, cx.sizes, &cost);
    assign::improve(&mut tables, cx.pinned, &cost);
    tables
}

/// Swiss: units in standings order, each at the highest table where it has met nobody; if that
/// seats nobody, the fewest repeats that can be found (a pair may meet once more, then twice…),
/// and as a last resort the rotation's search.
pub(crate) fn swiss(cx: &Context<'_>) -> Tables {
    let mut order = cx.sitting.to_vec();
    order.sort_by_key(|e| (cx.rank_of(*e), cx.roster_of(*e)));
    let most = cx.history.len();
    for allowed in 0..=most {
        let allowed = u32::try_from(allowed).unwrap_or(u32::MAX);
        let forbidden = |a, b| (cx.apart)(a, b) || (cx.met)(a, b) > allowed;
        if let Some(tables) = assign::search(&order, cx.pins, cx.sizes, &forbidden, SEARCH_BUDGET) {
            return tables;
        }
    }
    let cost = |a, b| cx.cost(a, b);
    let mut tables = cx.pins.clone();
    assign::greedy(&order, &mut tables, cx.sizes, &cost);
    assign::improve(&mut tables, cx.pinned, &cost);
    tables
}
