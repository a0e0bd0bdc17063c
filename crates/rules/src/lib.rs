//! The rules engine of tablekeeper: cards, seats, trick machinery and one module per game
//! (Nomination Whist, Dividend, Tricky Dick, Tridge, Pope Joan, Spin, Newmarket).
//!
//! Pure and deterministic: no I/O, no clocks, no randomness, no async. A game is a state
//! machine; [`Game::apply`] checks a move completely before it changes anything, so a refused
//! move leaves the state exactly as it was, and says why with a [`RuleViolation`] whose `code`
//! is stable.
//!
//! ```
//! use tablekeeper_rules::games::nomination_whist::{Move, Options};
//! use tablekeeper_rules::{Game, NominationWhist, Seat};
//!
//! // Four players; deal 1 is one card each, dealt by seat 0.
//! let mut game = NominationWhist::new(4, Options::default()).expect("a game for four");
//! // Nominations go round from the dealer's left: seat 2 is out of turn.
//! let before = game.clone();
//! let refused = game.apply(&Move::Nominate { seat: Seat::new(2), tricks: 0 }).unwrap_err();
//! assert_eq!(refused.code(), "not_your_turn");
//! assert_eq!(game, before, "a refused move changes nothing");
//! // Seat 1 nominates; the events say what happened.
//! let events = game.apply(&Move::Nominate { seat: Seat::new(1), tricks: 1 }).expect("legal");
//! assert!(!events.is_empty());
//! // What a phone may offer next is worked out by the rules themselves.
//! assert!(!game.view().legal_moves.is_empty());
//! ```
//!
//! Whole games can be simulated from a seed (each game's `sim` module), which is how the
//! property tests and benchmarks drive the engine:
//!
//! ```
//! use tablekeeper_rules::games::nomination_whist::{sim, Options};
//! use tablekeeper_rules::{Game, NominationWhist};
//!
//! let mut game = NominationWhist::new(4, Options::default()).expect("a game for four");
//! let deals = sim::random_game(&mut game, 7).expect("a whole game");
//! assert!(game.is_finished());
//! assert_eq!(deals.len(), 25); // 1 up to 13 cards and back down to 1
//! ```

//! # Walk-throughs
//!
//! Each game's module documentation walks through a whole game as a runnable example: set-up
//! with options, a simulated deal recorded move by move, the legal moves, a refused move, the
//! score and the chips at the end:
//! [Nomination Whist](games::nomination_whist), [Dividend](games::dividend),
//! [Tricky Dick](games::tricky_dick), [Tridge](games::tridge), [Pope Joan](games::pope_joan),
//! [Spin](games::spin), [Newmarket](games::newmarket). The crate's README (with its own
//! example, also a doc test) shows how to depend on it.

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
pub use trick::{CardStrength, Play, Revoke, Trick, TrickCards, TrickPlan, TrumpsFor, Voids};

/// The crate README's example, run as a doc test so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
