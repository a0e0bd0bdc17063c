//! Reading the earlier rounds: checking that they are seatings of this event with matching
//! results, and counting what the movements need (who met whom, who partnered and neighboured
//! whom, byes, where each entrant last sat).

use super::entrant::Entrant;
use super::error::MovementError;
use super::round::PlayedRound;
use std::collections::{HashMap, HashSet};

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
pub(crate) fn check(roster: &HashSet<Entrant>, history: &[PlayedRound]) -> Result<(), MovementError> {
    for (i, played) in history.iter().enumerate() {
        let round = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let mismatch = |reason| MovementError::HistoryMismatch { round, reason };
        if played.round.number != round {
            return Err(mismatch("rounds must be numbered 1, 2, … in order"));
        }
        let mut seen = HashSet::new();
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

/// What the movements count from a checked history.
#[derive(Debug, Default)]
pub(crate) struct Record {
    /// Rounds each pair shared a table.
    pub met: HashMap<(Entrant, Entrant), u32>,
    /// Rounds each pair sat opposite at an even table.
    pub partners: HashMap<(Entrant, Entrant), u32>,
    /// Rounds each pair sat side by side.
    pub neighbours: HashMap<(Entrant, Entrant), u32>,
    /// Pairs opposite each other in the last round.
    pub last_partners: HashSet<(Entrant, Entrant)>,
    /// Pairs side by side in the last round.
    pub last_neighbours: HashSet<(Entrant, Entrant)>,
    /// Byes each entrant has had.
    pub byes: HashMap<Entrant, u32>,
    /// Where each entrant last sat: table number and seat index.
    pub last_seat: HashMap<Entrant, (u32, usize)>,
}

impl Record {
    pub(crate) fn new(history: &[PlayedRound]) -> Self {
        let mut record = Record::default();
        for (i, played) in history.iter().enumerate() {
            let last = i + 1 == history.len();
            for e in &played.round.byes {
                *record.byes.entry(*e).or_default() += 1;
            }
            for table in &played.round.tables {
                let seats = &table.seats;
                let k = seats.len();
                for (s, a) in seats.iter().enumerate() {
                    record.last_seat.insert(*a, (table.number, s));
                    for b in &seats[s + 1..] {
                        *record.met.entry(pair(*a, *b)).or_default() += 1;
                    }
                }
                if k >= 2 {
                    for s in 0..k {
                        let next = (s + 1) % k;
                        if k == 2 && s == 1 {
                            break;
                        }
                        let p = pair(seats[s], seats[next]);
                        *record.neighbours.entry(p).or_default() += 1;
                        if last {
                            record.last_neighbours.insert(p);
                        }
                    }
                }
                if k % 2 == 0 {
                    for s in 0..k / 2 {
                        let p = pair(seats[s], seats[s + k / 2]);
                        *record.partners.entry(p).or_default() += 1;
                        if last {
                            record.last_partners.insert(p);
                        }
                    }
                }
            }
        }
        record
    }

    /// Rounds `a` and `b` shared a table.
    pub(crate) fn met(&self, a: Entrant, b: Entrant) -> u32 {
        self.met.get(&pair(a, b)).copied().unwrap_or(0)
    }

    /// How much it costs to seat `a` opposite `b` again: last round's partners most.
    pub(crate) fn partner_cost(&self, a: Entrant, b: Entrant) -> u64 {
        let p = pair(a, b);
        let recent = if self.last_partners.contains(&p) { 1000 } else { 0 };
        recent + 10 * u64::from(self.partners.get(&p).copied().unwrap_or(0))
    }

    /// How much it costs to seat `a` beside `b` again: last round's neighbours most.
    pub(crate) fn neighbour_cost(&self, a: Entrant, b: Entrant) -> u64 {
        let p = pair(a, b);
        let recent = if self.last_neighbours.contains(&p) { 100 } else { 0 };
        recent + u64::from(self.neighbours.get(&p).copied().unwrap_or(0))
    }

    /// Byes `e` has had.
    pub(crate) fn byes(&self, e: Entrant) -> u32 {
        self.byes.get(&e).copied().unwrap_or(0)
    }
}
