//! A round's seating and its results: what the engine answers and what the caller hands back
//! as history. Serialised shapes are stable (the service stores rounds as JSON and hashes them).

use super::entrant::Entrant;
use serde::{Deserialize, Serialize};

/// One table of a round. Serialised as `{"number": 1, "seats": [3, 7, 1, 4]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSeating {
    /// The table's number, from 1 (the top table of a progressive drive).
    pub number: u32,
    /// Who sits where, seat 1 (dealer first) first. At a table with an even number of seats,
    /// seat `i` and seat `i + n/2` face each other (partners in a partnership game).
    pub seats: Vec<Entrant>,
}

/// The seating of one round. Serialised as `{"number": 1, "tables": [...], "byes": [9]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// The round's number, from 1.
    pub number: u32,
    /// The tables, numbered 1.. in order.
    pub tables: Vec<TableSeating>,
    /// Who sits this round out (scored by the event's bye score).
    pub byes: Vec<Entrant>,
}

impl Round {
    /// Where an entrant sits this round, if seated: the table's number and the seat's, both
    /// from 1 (seat 1 deals first), as a guide card says them.
    pub fn seat_of(&self, entrant: Entrant) -> Option<(u32, usize)> {
        self.tables
            .iter()
            .find_map(|t| t.seats.iter().position(|e| *e == entrant).map(|s| (t.number, s + 1)))
    }

    /// Everyone seated or with a bye this round.
    pub fn entrants(&self) -> impl Iterator<Item = Entrant> + '_ {
        self.tables
            .iter()
            .flat_map(|t| t.seats.iter().copied())
            .chain(self.byes.iter().copied())
    }
}

/// One table's result: a score per seat, in seat order (the game's points, net chips, or
/// anything where higher is better). Serialised as `{"table": 1, "scores": [12, -3, 0, 5]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableResult {
    /// The table's number.
    pub table: u32,
    /// One score per seat, seat 1 first; higher is better.
    pub scores: Vec<i64>,
}

/// A round that has been played: its seating and each table's result. The history handed to
/// [`Event::seat_round`](crate::Event::seat_round) and [`Event::standings`](crate::Event::standings)
/// is the list of these, round 1 first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedRound {
    /// Who sat where.
    pub round: Round,
    /// One result per table.
    pub results: Vec<TableResult>,
}
