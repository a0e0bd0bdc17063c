//! An event: a checked [`Setup`] that seats rounds and ranks standings.

use super::entrant::{Entrant, Map, Set};
use super::error::MovementError;
use super::formats::{self, Context};
use super::history::{self, pair, Record};
use super::layout::layout;
use super::round::{PlayedRound, Round, TableResult, TableSeating};
use super::scoring::{self, Standing};
use super::seats;
use super::setup::{Format, Setup};
use serde::{Deserialize, Serialize};

/// A checked event. Holds no state between rounds: each round is worked out from the set-up,
/// who is present and the earlier rounds, so the same inputs always give the same round.
/// Serialised as its [`Setup`] (and checked again when read back).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Setup", into = "Setup")]
pub struct Event {
    setup: Setup,
    roster: Map<Entrant, usize>,
    /// For a Swiss with partnerships: each entrant's partnership, first member first.
    partnership: Map<Entrant, [Entrant; 2]>,
    apart: Set<(Entrant, Entrant)>,
}

impl TryFrom<Setup> for Event {
    type Error = MovementError;
    fn try_from(setup: Setup) -> Result<Self, Self::Error> {
        Event::new(setup)
    }
}

impl From<Event> for Setup {
    fn from(event: Event) -> Self {
        event.setup
    }
}

impl Event {
    /// Checks a set-up: the seat range, the rounds, the roster (no duplicates), the
    /// constraints (known entrants, satisfiable apart and stay sets), the partnerships of a
    /// Swiss, and that round 1 can be seated with the whole roster present.
    ///
    /// # Errors
    /// The first problem found, e.g. [`MovementError::TooFewEntrants`] for a rotation of 2
    /// entrants at a game of 3 or more, [`MovementError::ApartUnsatisfiable`] for partners who
    /// must be apart, [`MovementError::StayUnsatisfiable`] for a stay at a table the event does
    /// not have.
    pub fn new(setup: Setup) -> Result<Self, MovementError> {
        setup.seats.check()?;
        if setup.rounds == 0 {
            return Err(MovementError::NoRounds);
        }
        let mut roster = Map::default();
        for (i, e) in setup.entrants.iter().enumerate() {
            if roster.insert(*e, i).is_some() {
                return Err(MovementError::DuplicateEntrant(*e));
            }
        }
        let known = |e: Entrant| {
            if roster.contains_key(&e) {
                Ok(())
            } else {
                Err(MovementError::UnknownEntrant(e))
            }
        };
        let mut partnership = Map::default();
        if let Format::Swiss {
            partnerships: Some(partnerships),
        } = &setup.format
        {
            for p in partnerships {
                for e in p {
                    known(*e)?;
                    if partnership.insert(*e, *p).is_some() {
                        return Err(MovementError::DuplicateEntrant(*e));
                    }
                }
            }
            if let Some(e) = setup.entrants.iter().find(|e| !partnership.contains_key(e)) {
                return Err(MovementError::NotInAPartnership(*e));
            }
            let (min, max) = Self::unit_range_of(&setup, true);
            if min > max {
                return Err(MovementError::PartnershipsNotSeatable {
                    min: setup.seats.min,
                    max: setup.seats.max,
                });
            }
        }
        let mut apart = Set::default();
        for [a, b] in &setup.constraints.apart {
            known(*a)?;
            known(*b)?;
            let refuse = |reason| MovementError::ApartUnsatisfiable {
                first: *a,
                second: *b,
                reason,
            };
            if a == b {
                return Err(refuse("an entrant cannot be kept apart from itself"));
            }
            if partnership.get(a).is_some_and(|p| p.contains(b)) {
                return Err(refuse("they are partners"));
            }
            let stay_of = |e| setup.constraints.stay.iter().find(|s| s.entrant == e).map(|s| s.table);
            if stay_of(*a).is_some() && stay_of(*a) == stay_of(*b) {
                return Err(refuse("both stay at one table"));
            }
            apart.insert(pair(*a, *b));
        }
        let mut stays = Map::default();
        for stay in &setup.constraints.stay {
            known(stay.entrant)?;
            let refuse = |reason| MovementError::StayUnsatisfiable {
                entrant: stay.entrant,
                table: stay.table,
                reason,
            };
            if stay.table == 0 {
                return Err(refuse("tables are numbered from 1"));
            }
            if stays.insert(stay.entrant, stay.table).is_some() {
                return Err(refuse("an entrant can stay at one table only"));
            }
        }
        for stay in &setup.constraints.stay {
            let partner = partnership
                .get(&stay.entrant)
                .and_then(|p| p.iter().find(|e| **e != stay.entrant));
            if partner.and_then(|p| stays.get(p)).is_some_and(|t| *t != stay.table) {
                return Err(MovementError::StayUnsatisfiable {
                    entrant: stay.entrant,
                    table: stay.table,
                    reason: "partners cannot stay at different tables",
                });
            }
        }
        let event = Event {
            setup,
            roster,
            partnership,
            apart,
        };
        event.seat_round(1, &event.setup.entrants, &[])?;
        Ok(event)
    }

    /// The set-up this event was made from.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Table sizes in units (entrants, or partnerships of a Swiss with them).
    fn unit_range_of(setup: &Setup, partnerships: bool) -> (usize, usize) {
        let (min, max) = (usize::from(setup.seats.min), usize::from(setup.seats.max));
        if partnerships {
            (min.div_ceil(2).max(2), max / 2)
        } else {
            (min, max)
        }
    }

    /// The unit an entrant plays in: its partnership's first member, or itself.
    fn unit(&self, e: Entrant) -> Entrant {
        self.partnership.get(&e).map_or(e, |p| p[0])
    }

    fn members(&self, unit: Entrant) -> Vec<Entrant> {
        self.partnership.get(&unit).map_or_else(|| vec![unit], |p| p.to_vec())
    }

    /// Seats round `number` with the entrants `present` (a subset of the roster: late arrivals
    /// are in it from their first round, withdrawals no longer), given the earlier rounds.
    /// Every present entrant is seated once or has a bye; tables are inside the seat range;
    /// apart pairs are at different tables; stays are at their tables.
    ///
    /// # Errors
    /// [`MovementError::RoundOutOfOrder`] unless `number` is `history.len() + 1`,
    /// [`MovementError::NoSuchRound`] past the last round, [`MovementError::HistoryMismatch`] or
    /// [`MovementError::ResultsMismatch`] for a history that is not this event's,
    /// [`MovementError::UnknownEntrant`] / [`MovementError::DuplicateEntrant`] for `present`,
    /// [`MovementError::PartnerAbsent`], [`MovementError::TooFewEntrants`],
    /// [`MovementError::StayUnsatisfiable`] when a stay's table does not exist this round, and
    /// [`MovementError::ApartNotSeatable`] when no seating keeps the apart pairs apart.
    pub fn seat_round(
        &self,
        number: u32,
        present: &[Entrant],
        history: &[PlayedRound],
    ) -> Result<Round, MovementError> {
        if number > self.setup.rounds {
            return Err(MovementError::NoSuchRound {
                requested: number,
                rounds: self.setup.rounds,
            });
        }
        let expected = u32::try_from(history.len() + 1).unwrap_or(u32::MAX);
        if number != expected {
            return Err(MovementError::RoundOutOfOrder {
                requested: number,
                expected,
            });
        }
        let roster: Set<Entrant> = self.roster.keys().copied().collect();
        history::check(&roster, history)?;
        let mut seen = Set::default();
        for e in present {
            if !roster.contains(e) {
                return Err(MovementError::UnknownEntrant(*e));
            }
            if !seen.insert(*e) {
                return Err(MovementError::DuplicateEntrant(*e));
            }
        }
        let mut units = Vec::new();
        for e in present {
            for m in self.members(self.unit(*e)) {
                if !seen.contains(&m) {
                    return Err(MovementError::PartnerAbsent {
                        entrant: *e,
                        partner: m,
                    });
                }
            }
            if self.unit(*e) == *e {
                units.push(*e);
            }
        }
        units.sort_by_cached_key(|u| self.roster.get(u).copied());
        let (min, max) = Self::unit_range_of(&self.setup, !self.partnership.is_empty());
        let Some(plan) = layout(units.len(), min, max) else {
            return Err(MovementError::TooFewEntrants {
                entrants: present.len(),
                min: self.setup.seats.min,
            });
        };

        // Stays, by unit, at their tables.
        let mut pins: Vec<Vec<Entrant>> = vec![Vec::new(); plan.sizes.len()];
        let mut pinned = Set::default();
        for stay in &self.setup.constraints.stay {
            let unit = self.unit(stay.entrant);
            if !seen.contains(&stay.entrant) || pinned.contains(&unit) {
                continue;
            }
            let refuse = |reason| MovementError::StayUnsatisfiable {
                entrant: stay.entrant,
                table: stay.table,
                reason,
            };
            let t = usize::try_from(stay.table).unwrap_or(usize::MAX).wrapping_sub(1);
            let Some(table) = pins.get_mut(t) else {
                return Err(refuse("the round has fewer tables"));
            };
            if table.len() >= plan.sizes[t] {
                return Err(refuse("more stay at the table than it seats"));
            }
            table.push(unit);
            pinned.insert(unit);
        }

        let record = Record::new(&self.roster, history);
        // Only a Swiss and a progressive drive look at results.
        let by_results = matches!(self.setup.format, Format::Swiss { .. } | Format::Progressive { .. });
        let mut rank = Map::default();
        if by_results {
            let standings = scoring::standings(&self.setup.entrants, history, &self.setup.scoring);
            for (i, s) in standings.iter().enumerate() {
                rank.entry(self.unit(s.entrant)).or_insert(i);
            }
        }

        // Byes: the fewest byes so far first, then (Swiss, progressive) the lowest ranked or
        // (fixed) the last in the roster; a rotation chooses among those with the fewest byes so
        // that the rest meet least.
        let mut candidates: Vec<Entrant> = units.iter().copied().filter(|u| !pinned.contains(u)).collect();
        candidates.sort_by_cached_key(|u| {
            let order = if by_results { rank.get(u).copied() } else { None };
            (
                record.byes(*u),
                std::cmp::Reverse(order),
                std::cmp::Reverse(self.roster.get(u).copied()),
            )
        });
        if candidates.len() < plan.byes {
            let stay = self.setup.constraints.stay.first();
            return Err(MovementError::StayUnsatisfiable {
                entrant: stay.map_or(Entrant(0), |s| s.entrant),
                table: stay.map_or(0, |s| s.table),
                reason: "too many stay for someone else to sit out",
            });
        }
        let byes: Set<Entrant> = if matches!(self.setup.format, Format::Rotation) {
            formats::rotation_byes(&record, &candidates, &units, plan.byes)
        } else {
            candidates[..plan.byes].iter().copied().collect()
        };
        let mut sitting: Vec<Entrant> = candidates.into_iter().filter(|u| !byes.contains(u)).collect();
        sitting.sort_by_cached_key(|u| self.roster.get(u).copied());

        let apart: Vec<(Entrant, Entrant)> = self.apart.iter().map(|(a, b)| (self.unit(*a), self.unit(*b))).collect();
        let cx = Context {
            roster: &self.roster,
            rank: &rank,
            record: &record,
            history,
            sizes: &plan.sizes,
            pins: &pins,
            sitting: &sitting,
            apart: &apart,
        };
        let tables = match &self.setup.format {
            Format::Progressive { moves } => formats::progressive(&cx, *moves),
            Format::Rotation => formats::rotation(&cx),
            Format::Swiss { .. } => formats::swiss(&cx),
            Format::Fixed => formats::fixed(&cx),
        };
        let clash = tables
            .iter()
            .any(|t| apart.iter().any(|(a, b)| t.contains(a) && t.contains(b)));
        if clash {
            return Err(MovementError::ApartNotSeatable { round: number });
        }
        let tables = tables
            .into_iter()
            .enumerate()
            .map(|(t, table)| TableSeating {
                number: u32::try_from(t + 1).unwrap_or(u32::MAX),
                seats: self.seat_order(&table, &record),
            })
            .collect();
        let mut byes: Vec<Entrant> = units
            .iter()
            .filter(|u| byes.contains(u))
            .flat_map(|u| self.members(*u))
            .collect();
        byes.sort_by_cached_key(|e| self.roster.get(e).copied());
        Ok(Round { number, tables, byes })
    }

    /// Seat order at one table of units: partners opposite in a Swiss with partnerships, the
    /// same order in a fixed event, otherwise chosen so neighbours and partners change.
    fn seat_order(&self, table: &[Entrant], record: &Record<'_>) -> Vec<Entrant> {
        if !self.partnership.is_empty() {
            let firsts = table.iter().map(|u| self.members(*u)[0]);
            let seconds = table.iter().filter_map(|u| self.members(*u).get(1).copied());
            return firsts.chain(seconds).collect();
        }
        match self.setup.format {
            Format::Fixed => table.to_vec(),
            _ => seats::order(table, record),
        }
    }

    /// Every round of a format that never looks at results (rotation, fixed), worked out ahead
    /// with the entrants `present` throughout: what `seat_round` answers round by round while
    /// they stay the same, whatever the results. For the board's "next round" and the guide cards.
    ///
    /// # Errors
    /// [`MovementError::DependsOnResults`] for a Swiss or a progressive drive; otherwise as
    /// [`Event::seat_round`] for round 1.
    pub fn schedule(&self, present: &[Entrant]) -> Result<Vec<Round>, MovementError> {
        if matches!(self.setup.format, Format::Swiss { .. } | Format::Progressive { .. }) {
            return Err(MovementError::DependsOnResults);
        }
        let mut history: Vec<PlayedRound> = Vec::new();
        for number in 1..=self.setup.rounds {
            let round = self.seat_round(number, present, &history)?;
            // Results are never read by these formats: zeros stand in for them.
            let results = round
                .tables
                .iter()
                .map(|t| TableResult {
                    table: t.number,
                    scores: vec![0; t.seats.len()],
                })
                .collect();
            history.push(PlayedRound { round, results });
        }
        Ok(history.into_iter().map(|p| p.round).collect())
    }

    /// The standings after the rounds of `history`, best first, for everyone in the roster
    /// (see the [`scoring`](crate::scoring) module for the points and the tie-breaks).
    ///
    /// # Errors
    /// [`MovementError::HistoryMismatch`], [`MovementError::ResultsMismatch`] or
    /// [`MovementError::UnknownEntrant`] for a history that is not this event's.
    pub fn standings(&self, history: &[PlayedRound]) -> Result<Vec<Standing>, MovementError> {
        let roster: Set<Entrant> = self.roster.keys().copied().collect();
        history::check(&roster, history)?;
        Ok(scoring::standings(&self.setup.entrants, history, &self.setup.scoring))
    }
}
