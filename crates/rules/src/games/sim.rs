//! What the games' random players (`<game>::sim`) share: why a simulation stopped, the check
//! that it starts at the beginning of a deal, and applying a move it made.
//!
//! A simulator only makes legal moves, so the engine refusing one is a bug, reported as
//! `SimError::Refused` with the move and the rule the engine named.

use crate::Events;
use crate::{Game, RuleViolation};

/// Why a simulator stopped. `M` is the game's move type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError<M: std::fmt::Debug> {
    #[error("the game has ended")]
    GameFinished,
    #[error("a deal is under way: the simulator deals the cards, so it starts at the beginning of a deal")]
    MidDeal,
    /// The move is boxed: some games' moves (a whole deal's result) are large, and a refusal is
    /// a bug, never the path a simulation takes.
    #[error("the engine refused the legal move {mv:?}: {violation}")]
    Refused { mv: Box<M>, violation: RuleViolation },
    #[error("the view contradicts the game: {0}")]
    Inconsistent(&'static str),
}

/// Checks that `game` is at the start of a deal, where a simulator can deal the cards.
///
/// # Errors
/// `GameFinished` once the game is over; `MidDeal` when a deal is under way.
pub fn check_deal_start<G: Game>(game: &G) -> Result<(), SimError<G::Move>> {
    if game.is_finished() {
        Err(SimError::GameFinished)
    } else if !game.at_deal_boundary() {
        Err(SimError::MidDeal)
    } else {
        Ok(())
    }
}

/// Applies a move the simulator made, through the rules (`Game::play_move`) on the simulator's
/// own state rather than `Game::apply`: a simulator makes legal moves only, so the copy `apply`
/// takes to undo a refusal is not paid per move. A refusal is a bug, and the game it leaves
/// (maybe half-changed) is then only good for reporting it.
///
/// # Errors
/// `GameFinished` once the game is over; `Refused` when the engine turns the move down.
pub fn apply<G: Game>(game: &mut G, mv: &G::Move) -> Result<Events<G::Event>, SimError<G::Move>> {
    if game.is_finished() {
        return Err(SimError::GameFinished);
    }
    game.play_move(mv).map_err(|violation| SimError::Refused {
        mv: Box::new(mv.clone()),
        violation,
    })
}
