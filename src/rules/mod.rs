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
mod game;
pub mod games;
pub mod legal;
pub mod seat;
pub mod squares;
pub mod stops;
pub mod trick;

pub use cards::{Card, CardSet, Rank, Suit, UnknownCard};
pub use chips::{Account, Chips, Pool, Settlement, Transfer, UnknownAccount};
pub use error::{RuleViolation, SetupError};
pub use game::{Choice, DealLines, Events, Game, OptionDoc, OptionKind, RuleChoice};
pub use games::*;
pub use seat::{BySeat, Seat};
pub use trick::{Play, Revoke, Trick, TrickCards, Voids};
