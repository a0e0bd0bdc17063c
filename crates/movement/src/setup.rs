//! What an event is set up with: the format, the game's seat range, the number of rounds, the
//! roster, the constraints and the scoring. Plain data, serialisable as the service stores it;
//! [`Event::new`](crate::Event::new) validates it.

use super::entrant::Entrant;
use super::error::MovementError;
use super::scoring::ScoreRules;
use serde::{Deserialize, Serialize};

/// The most seats a table may have (tables larger than this are not card tables, and shared
/// places stay exact with small denominators).
pub const MAX_SEATS: u8 = 16;

/// How many may sit at one table of the game: `min..=max` seats, e.g. Nomination Whist 3..=7,
/// Tridge 3..=4, Pope Joan 3..=8, a partnership game 4..=4. A club narrows it to the sizes it
/// wants (4..=5 for Nomination Whist tables of four or five). Serialised as `{"min": 3, "max": 7}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRange {
    /// The fewest seats a table may have.
    pub min: u8,
    /// The most seats a table may have.
    pub max: u8,
}

impl SeatRange {
    /// A checked seat range.
    ///
    /// # Errors
    /// [`MovementError::InvalidSeatRange`] unless `1 <= min <= max <=` [`MAX_SEATS`].
    pub fn new(min: u8, max: u8) -> Result<Self, MovementError> {
        let range = Self { min, max };
        range.check()?;
        Ok(range)
    }

    pub(crate) fn check(self) -> Result<(), MovementError> {
        if self.min == 0 || self.min > self.max || self.max > MAX_SEATS {
            return Err(MovementError::InvalidSeatRange {
                min: self.min,
                max: self.max,
                limit: MAX_SEATS,
            });
        }
        Ok(())
    }

    /// Whether a table of `seats` fits the range.
    pub fn contains(self, seats: usize) -> bool {
        (usize::from(self.min)..=usize::from(self.max)).contains(&seats)
    }
}

/// Who moves after a round of a [`Format::Progressive`] drive. Serialised snake_case
/// (`"winner"`, `"top_two"`, `"winners_up_losers_down"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Moves {
    /// The table's winner moves up one table; the others stay (the table's last-placed
    /// stayer is pushed down one table to make room, cascading to the last table).
    Winner,
    /// The table's top two (the winning pair of a partnership game) move up one table.
    TopTwo,
    /// The top half of each table moves up one table, the bottom half down one table (the middle
    /// player of an odd table stays); table 1's winners and the last table's losers stay.
    WinnersUpLosersDown,
}

/// A fixed partnership of a [`Format::Swiss`] event: the two sit opposite each other.
pub type Partnership = [Entrant; 2];

/// How entrants move between rounds. Serialised with a `kind` tag:
/// `{"kind": "progressive", "move": "winner"}`, `{"kind": "rotation"}`,
/// `{"kind": "swiss", "partnerships": [[1, 2], [3, 4]]}` (or `null`), `{"kind": "fixed"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    /// A whist drive: winners move up a table after each round, seats rotate so that
    /// neighbours and partners change.
    Progressive {
        /// Who moves.
        #[serde(rename = "move")]
        moves: Moves,
    },
    /// All meet all as evenly as possible, on a schedule that depends only on who is present
    /// (never on results), so it is fixed at the start.
    Rotation,
    /// Tables by standings each round, avoiding repeated meetings while that is possible.
    Swiss {
        /// Fixed partnerships (every entrant in exactly one), or `None` for individuals.
        #[serde(default)]
        partnerships: Option<Vec<Partnership>>,
    },
    /// The same tables all night.
    Fixed,
}

/// An entrant who keeps one table all night (a player who cannot move, say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stay {
    /// Who stays.
    pub entrant: Entrant,
    /// The table they keep, numbered from 1.
    pub table: u32,
}

/// Constraints on seating. Serialised as `{"apart": [[1, 2]], "stay": [{"entrant": 5, "table": 1}]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraints {
    /// Pairs never seated at one table (a couple, say).
    #[serde(default)]
    pub apart: Vec<[Entrant; 2]>,
    /// Entrants who keep one table all night; they never have a bye.
    #[serde(default)]
    pub stay: Vec<Stay>,
}

/// Everything an event is set up with, as the service stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// How entrants move.
    pub format: Format,
    /// The game's seats per table (or the club's narrower choice).
    pub seats: SeatRange,
    /// How many rounds the event has.
    pub rounds: u32,
    /// Everyone who may play in the event, in seeding order (round 1 of a Swiss and a
    /// progressive drive seat them in this order). A late arrival is added here (the event
    /// is made again) and is present from the next round; a withdrawal stays here and is no
    /// longer present.
    pub entrants: Vec<Entrant>,
    /// Apart pairs and stays.
    #[serde(default)]
    pub constraints: Constraints,
    /// How rounds are scored and standings ranked.
    pub scoring: ScoreRules,
}
