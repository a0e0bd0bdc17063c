//! Reading the earlier rounds: checking that they are seatings of this event with matching
//! results, and counting what the movements need (who met whom, who partnered and neighboured
//! whom, byes, where each entrant last sat).

use super::entrant::{Entrant, Map, Set};
use super::error::MovementError;
use super::round::PlayedRound;

/// An unordered pair, smaller id first.
pub(crate) fn pair(a: Entrant, b: Entrant) -> (Entrant, Entrant) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Checks that `history` is rounds 1, 2, … of entrants of `roster`, each entrant at most once a
/// round, tables numbered 1.. in order, one result per table with one score per seat.
pub(crate) fn check(roster: &Set<Entrant>, history: &[PlayedRound]) -> Result<(), MovementError> {
    for (i, played) in history.iter().enumerate() {
        let round = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let mismatch = |reason| MovementError::HistoryMismatch { round, reason };
        if played.round.number != round {
            return Err(mismatch("rounds must be numbered 1, 2, … in order"));
        }
        let mut seen = Set::default();
        for e in played.round.entrants() {
            if !roster.contains(&e) {
                return Err(MovementError::UnknownEntrant(e));
            }
            if !seen.insert(e) {
                return Err(mismatch("an entrant appears twice"));
            }
        }
        for (t, table) in played.round.tables.iter().enumerate() {
            if usize::try_from(table.number).ok() != Some(t + 1) {
                return Err(mismatch("tables must be numbered 1, 2, … in order"));
            }
            if table.seats.is_empty() {
                return Err(mismatch("a table has nobody at it"));
            }
        }
        let results = |reason| MovementError::ResultsMismatch { round, reason };
        if played.results.len() != played.round.tables.len() {
            return Err(results("there must be one result per table"));
        }
        for table in &played.round.tables {
            let Some(result) = played.results.iter().find(|r| r.table == table.number) else {
                return Err(results("a table has no result"));
            };
            if result.scores.len() != table.seats.len() {
                return Err(results("a result must have one score per seat"));
            }
        }
    }
    Ok(())
}

/// What the movements count from a checked history, in dense tables by roster position (the
/// searches look pairs up many times).
#[derive(Debug)]
pub(crate) struct Record<'a> {
    roster: &'a Map<Entrant, usize>,
    n: usize,
    /// Rounds each pair shared a table.
    met: Vec<u32>,
    /// Rounds each pair sat opposite at an even table.
    partners: Vec<u32>,
    /// Rounds each pair sat side by side.
    neighbours: Vec<u32>,
    /// Pairs opposite each other in the last round.
    last_partners: Vec<bool>,
    /// Pairs side by side in the last round.
    last_neighbours: Vec<bool>,
    /// Byes each entrant has had.
    byes: Vec<u32>,
    /// Where each entrant last sat: table number and seat index.
    last_seat: Vec<Option<(u32, usize)>>,
}

impl<'a> Record<'a> {
    /// Counts a history whose entrants are all in `roster` (entrant to position).
    pub(crate) fn new(roster: &'a Map<Entrant, usize>, history: &[PlayedRound]) -> Self {
        let n = roster.len();
        let mut record = Record {
            roster,
            n,
            met: vec![0; n * n],
            partners: vec![0; n * n],
            neighbours: vec![0; n * n],
            last_partners: vec![false; n * n],
            last_neighbours: vec![false; n * n],
            byes: vec![0; n],
            last_seat: vec![None; n],
        };
        let at = |e: &Entrant| roster.get(e).copied().unwrap_or(0);
        for (i, played) in history.iter().enumerate() {
            let last = i + 1 == history.len();
            for e in &played.round.byes {
                record.byes[at(e)] += 1;
            }
            for table in &played.round.tables {
                let seats: Vec<usize> = table.seats.iter().map(at).collect();
                let k = seats.len();
                for (s, a) in seats.iter().enumerate() {
                    record.last_seat[*a] = Some((table.number, s));
                    for b in &seats[s + 1..] {
                        record.met[a * n + b] += 1;
                        record.met[b * n + a] += 1;
                    }
                }
                let mut mark = |a: usize, b: usize, partners: bool| {
                    let (count, recent) = if partners {
                        (&mut record.partners, &mut record.last_partners)
                    } else {
                        (&mut record.neighbours, &mut record.last_neighbours)
                    };
                    for (x, y) in [(a, b), (b, a)] {
                        count[x * n + y] += 1;
                        if last {
                            recent[x * n + y] = true;
                        }
                    }
                };
                if k >= 2 {
                    for s in 0..k {
                        if k == 2 && s == 1 {
                            break;
                        }
                        mark(seats[s], seats[(s + 1) % k], false);
                    }
                }
                if k % 2 == 0 {
                    for s in 0..k / 2 {
                        mark(seats[s], seats[s + k / 2], true);
                    }
                }
            }
        }
        record
    }

    /// An entrant's roster position.
    pub(crate) fn position(&self, e: Entrant) -> usize {
        self.roster.get(&e).copied().unwrap_or(0)
    }

    /// Rounds the entrants at roster positions `a` and `b` shared a table.
    pub(crate) fn met_at(&self, a: usize, b: usize) -> u32 {
        self.met[a * self.n + b]
    }

    /// How much it costs to seat the entrants at roster positions `a` and `b` opposite each other
    /// again: last round's partners most.
    pub(crate) fn partner_cost(&self, a: usize, b: usize) -> u64 {
        let i = a * self.n + b;
        let recent = if self.last_partners[i] { 1000 } else { 0 };
        recent + 10 * u64::from(self.partners[i])
    }

    /// How much it costs to seat the entrants at roster positions `a` and `b` side by side
    /// again: last round's neighbours most.
    pub(crate) fn neighbour_cost(&self, a: usize, b: usize) -> u64 {
        let i = a * self.n + b;
        let recent = if self.last_neighbours[i] { 100 } else { 0 };
        recent + u64::from(self.neighbours[i])
    }

    /// Byes `e` has had.
    pub(crate) fn byes(&self, e: Entrant) -> u32 {
        self.byes[self.position(e)]
    }

    /// Where `e` last sat (table number, seat index), if ever.
    pub(crate) fn last_seat(&self, e: Entrant) -> Option<(u32, usize)> {
        self.last_seat[self.position(e)]
    }
}
