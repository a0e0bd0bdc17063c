//! The rules engine: cards, seats, trick machinery and one module per game.
//!
//! Pure and deterministic: no I/O, no clocks, no randomness, no async. A game is a state
//! machine; `Game::apply` checks a move completely before it changes anything, so a refused
//! move leaves the state exactly as it was.

pub mod bidding;
pub mod cards;
mod chips;
pub mod deck;
mod error;
pub mod games;
pub mod seat;
pub mod squares;
pub mod stops;
pub mod trick;

use std::ops::RangeInclusive;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use cards::{Card, CardSet, Rank, Suit, UnknownCard};
pub use chips::{Account, Chips, Settlement, UnknownAccount};
pub use error::{RuleViolation, SetupError};
pub use games::dividend::Dividend;
pub use games::newmarket::Newmarket;
pub use games::nomination_whist::NominationWhist;
pub use games::pope_joan::PopeJoan;
pub use games::spin::Spin;
pub use games::tricky_dick::TrickyDick;
pub use games::tridge::Tridge;
pub use seat::{BySeat, Seat};
pub use trick::{Play, Revoke, Trick, Voids};

/// The games the service can run, by their stable ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GameId {
    NominationWhist,
    Dividend,
    TrickyDick,
    Tridge,
    PopeJoan,
    Spin,
    Newmarket,
}

impl GameId {
    pub const ALL: &'static [GameId] = &[
        GameId::NominationWhist,
        GameId::Dividend,
        GameId::TrickyDick,
        GameId::Tridge,
        GameId::PopeJoan,
        GameId::Spin,
        GameId::Newmarket,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GameId::NominationWhist => "nomination-whist",
            GameId::Dividend => "dividend",
            GameId::TrickyDick => "tricky-dick",
            GameId::Tridge => "tridge",
            GameId::PopeJoan => "pope-joan",
            GameId::Spin => "spin",
            GameId::Newmarket => "newmarket",
        }
    }

    pub fn parse(id: &str) -> Option<GameId> {
        GameId::ALL.iter().copied().find(|g| g.as_str() == id)
    }
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One table option, for the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct OptionDoc {
    pub name: &'static str,
    pub description: &'static str,
}

/// A game as a state machine over moves. Implemented once per game.
pub trait Game: Clone + PartialEq + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync + 'static {
    const ID: GameId;
    const NAME: &'static str;
    const SEATS: RangeInclusive<usize>;

    /// Table options as a client sends them; every field has a default.
    type Options: Clone + Default + Serialize + DeserializeOwned;
    type Move: Clone + std::fmt::Debug + Serialize + DeserializeOwned;
    type Event: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// The state as a scorer's phone needs it.
    type View: Serialize;
    /// Scores per deal and totals.
    type ScoreSheet: Serialize;

    fn option_docs() -> &'static [OptionDoc];

    /// A new game at the start of its first deal.
    ///
    /// # Errors
    /// When the player count is outside `SEATS` or an option is out of range.
    fn new(players: usize, options: Self::Options) -> Result<Self, SetupError>;

    /// The options this game was set up with, defaults filled in: `new(players, options())`
    /// gives back this game as it was set up (the audit rebuilds games that way).
    fn options(&self) -> Self::Options;

    /// The move's kind, as named in `View`'s legal moves.
    fn move_kind(mv: &Self::Move) -> &'static str;

    /// The seat a move is for, when it is one seat's.
    fn move_seat(mv: &Self::Move) -> Option<Seat>;

    /// Checks a move and applies it, returning the events it caused.
    ///
    /// # Errors
    /// The rule the move breaks; the state is then unchanged.
    fn apply(&mut self, mv: &Self::Move) -> Result<Vec<Self::Event>, RuleViolation>;

    /// True between deals (and at the end): a good place to keep a snapshot, since no move of
    /// the current deal needs replaying from here.
    fn at_deal_boundary(&self) -> bool;

    fn is_finished(&self) -> bool;

    fn view(&self) -> Self::View;

    fn score_sheet(&self) -> Self::ScoreSheet;

    /// The pool names this game books to (`Account::Pool`), for reading the ledger back.
    const POOLS: &'static [&'static str] = &[];

    /// The chips a new table moves before any move (opening chips from the bank, first stakes).
    fn opening_settlements(&self) -> Vec<Settlement> {
        Vec::new()
    }

    /// The chips that the events of one move move. A pure function of the events, so that the
    /// ledger can be rebuilt from the log and checked against what was booked.
    fn settlements(_events: &[Self::Event]) -> Vec<Settlement> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The audit rebuilds a table's game from its stored options, so they must set it up again
    /// exactly as it was.
    fn set_up_again<G: Game>() {
        for players in G::SEATS {
            let game = G::new(players, G::Options::default()).expect("default set-up");
            assert_eq!(
                G::new(players, game.options()).expect("set up again"),
                game,
                "{} with {players}",
                G::NAME
            );
        }
    }

    #[test]
    fn every_game_set_up_again_from_its_own_options_is_the_same_game() {
        set_up_again::<NominationWhist>();
        set_up_again::<Dividend>();
        set_up_again::<TrickyDick>();
        set_up_again::<Tridge>();
        set_up_again::<PopeJoan>();
        set_up_again::<Spin>();
        set_up_again::<Newmarket>();
    }

    #[test]
    fn game_ids_round_trip() {
        for &id in GameId::ALL {
            assert_eq!(GameId::parse(id.as_str()), Some(id));
            assert_eq!(serde_json::to_value(id).expect("json"), serde_json::json!(id.as_str()));
        }
        assert_eq!(GameId::parse("snap"), None);
    }
}
