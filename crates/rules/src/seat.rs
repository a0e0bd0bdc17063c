//! Seats round a table and per-seat data.
//!
//! Seat 0 is the first player named when the table was created; play passes to the left,
//! which is the next seat number, wrapping round.
//!
//! A seat that is not at the table is a `NoSuchSeat`, which `rules::error` turns into the
//! rule violation of the same name: this module needs nothing from `error`, so the two do not
//! import each other.

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// A seat number beyond the table: `Seat::check`'s refusal, which `?` turns into
/// `RuleViolation::NoSuchSeat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSuchSeat {
    pub seat: Seat,
    pub players: usize,
}

/// A seat at the table, 0-based in the order the players were named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(transparent)]
#[schema(value_type = u8, example = 1)]
pub struct Seat(u8);

impl Seat {
    pub const fn new(index: u8) -> Seat {
        Seat(index)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn number(self) -> u8 {
        self.0
    }

    /// The seat `steps` places to the left, at a table of `players`.
    pub const fn left(self, steps: usize, players: usize) -> Seat {
        Seat(((self.0 as usize + steps) % players) as u8)
    }

    /// How many places to the left of `from` this seat is.
    pub const fn distance_from(self, from: Seat, players: usize) -> usize {
        (self.0 as usize + players - from.0 as usize) % players
    }

    /// This seat, when it is at a table of `players`.
    ///
    /// # Errors
    /// `NoSuchSeat` when the seat number is `players` or more.
    pub fn check(self, players: usize) -> Result<Seat, NoSuchSeat> {
        if self.index() < players {
            Ok(self)
        } else {
            Err(NoSuchSeat { seat: self, players })
        }
    }

    /// All seats of a table of `players`.
    pub fn all(players: usize) -> impl Iterator<Item = Seat> {
        (0..players).map(|i| Seat(i as u8))
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// The most seats any game has; per-seat data up to this many is held inline.
pub const MAX_SEATS: usize = 8;

/// One value per seat, indexed by `Seat`. Held inline (no allocation) for up to `MAX_SEATS`
/// seats, because every move copies the state it is applied to (`Game::apply`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BySeat<T>(SmallVec<[T; MAX_SEATS]>);

impl<T: Clone> BySeat<T> {
    pub fn filled(players: usize, value: T) -> BySeat<T> {
        BySeat(SmallVec::from_elem(value, players))
    }
}

impl<T> BySeat<T> {
    pub fn from_vec(values: Vec<T>) -> BySeat<T> {
        BySeat(values.into_iter().collect())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        self.0.iter().enumerate().map(|(i, v)| (Seat(i as u8), v))
    }

    pub fn values(&self) -> &[T] {
        &self.0
    }

    pub fn into_vec(self) -> Vec<T> {
        self.0.into_vec()
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;

    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_wraps_round_the_table() {
        assert_eq!(Seat::new(3).left(1, 4), Seat::new(0));
        assert_eq!(Seat::new(1).left(6, 4), Seat::new(3));
        assert_eq!(Seat::new(0).distance_from(Seat::new(3), 4), 1);
        assert_eq!(Seat::new(2).distance_from(Seat::new(2), 4), 0);
    }

    #[test]
    fn a_seat_is_checked_against_the_number_of_players() {
        assert_eq!(Seat::new(3).check(4), Ok(Seat::new(3)));
        assert_eq!(
            Seat::new(4).check(4),
            Err(NoSuchSeat {
                seat: Seat::new(4),
                players: 4
            })
        );
        assert!(Seat::new(255).check(7).is_err());
    }
}
