//! The movement engine of tablekeeper's events: who sits where each round, who has a bye, and
//! the standings. Pure and deterministic: no I/O, clocks or randomness; the same set-up, the
//! same entrants present and the same earlier rounds always give the same round.
//!
//! An [`Event`] is made from a [`Setup`] (format, the game's [`SeatRange`], rounds, roster,
//! [`Constraints`], [`ScoreRules`]) and checks everything up front. Each round,
//! [`Event::seat_round`] takes who is present and the earlier rounds (their seatings and
//! results, [`PlayedRound`]) and answers a [`Round`]; [`Event::standings`] ranks the roster;
//! [`Event::schedule`] works out every round ahead for the formats that never look at results.
//! Refusals are [`MovementError`]s with a stable [`code`](MovementError::code). The guide,
//! `docs/movements.md`, states the formats, the guarantees and the bounds.
//!
//! ```
//! use tablekeeper_movement::{
//!     Entrant, Event, Format, Moves, PlayedRound, Points, ScoreRules, SeatRange, Setup, TableResult,
//! };
//!
//! let entrants: Vec<Entrant> = (1..=8).map(Entrant).collect();
//! let event = Event::new(Setup {
//!     format: Format::Progressive { moves: Moves::Winner },
//!     seats: SeatRange::new(4, 4)?,
//!     rounds: 3,
//!     entrants: entrants.clone(),
//!     constraints: Default::default(),
//!     scoring: ScoreRules::default(),
//! })?;
//! // Round 1 seats the roster in order: two tables of four.
//! let round = event.seat_round(1, &entrants, &[])?;
//! assert_eq!(round.tables.len(), 2);
//! assert!(round.byes.is_empty());
//! // The results come back in seat order; here seat 1 wins each table.
//! let results = round
//!     .tables
//!     .iter()
//!     .map(|t| TableResult { table: t.number, scores: vec![10, 3, 2, 1] })
//!     .collect();
//! let history = vec![PlayedRound { round: round.clone(), results }];
//! // Table 2's winner moves up to table 1; table 1's winner stays.
//! let winner_of_2 = round.tables[1].seats[0];
//! let next = event.seat_round(2, &entrants, &history)?;
//! assert_eq!(next.seat_of(winner_of_2).map(|(table, _)| table), Some(1));
//! // Standings: the two winners share first place on 10 points.
//! let standings = event.standings(&history)?;
//! assert_eq!((standings[0].place, standings[1].place), (1, 1));
//! assert_eq!(standings[0].total, Points::whole(10));
//! # Ok::<(), tablekeeper_movement::MovementError>(())
//! ```

mod assign;
mod entrant;
mod error;
mod event;
mod formats;
mod history;
mod layout;
mod points;
pub mod scoring;
mod seats;
mod setup;

pub use entrant::Entrant;
pub use error::MovementError;
pub use event::Event;
pub use points::Points;
pub use round::{PlayedRound, Round, TableResult, TableSeating};
pub use scoring::{ByeScore, ScoreRules, Scoring, Standing};
pub use setup::{Constraints, Format, Moves, Partnership, SeatRange, Setup, Stay, MAX_SEATS};

mod round;

/// The guide's example (docs/movements.md), run as a doc test so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/movements.md")]
pub struct GuideDoctests;

#[cfg(test)]
mod tests;
