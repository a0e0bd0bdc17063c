//! A random player of legal Spin deals, for tests, benchmarks and examples.
//!
//! The engine does not see the hands, so the simulator deals them itself with the seeded
//! shuffle (`rules::deck`: the pack without the 8♦ and 2♥, every card dealt) and plays the
//! table: the seat to lead leads a random card, whoever holds the next card up plays it (now and
//! then with Spin beside it), a player who has just played a stop shows Matrimony or Intrigue
//! when it holds the pair, and Spin's holder is named when a player goes out with it unplayed.
//! Every move goes through the rules, and the moves are returned so that they can be replayed.
//!
//! Invariants: the same game state and seed give the same moves; a move the simulator makes is
//! legal, so the engine refusing one is a bug (`SimError::Refused`).

use crate::deck::SplitMix64;
use crate::games::sim::{apply, check_deal_start};
use crate::seat::Seat;
use crate::stops::sim::{deal_hands, next_play};
use crate::Game;

use super::{removed, Combination, Move, Phase, Spin, SPIN};

/// Why the simulator stopped.
pub type SimError = crate::games::sim::SimError<Move>;

/// Deals the current deal with `seed` and plays it to its end card by card. Returns the moves.
///
/// # Errors
/// `GameFinished` or `MidDeal` when the game is not at the start of a deal; `Refused` when the
/// engine turns down a legal move (an engine or simulator bug). The game keeps the moves
/// applied before an error.
pub fn random_deal(game: &mut Spin, seed: u64) -> Result<Vec<Move>, SimError> {
    play_deal(game, &mut SplitMix64::new(seed))
}

/// Plays every remaining deal card by card, each with a seed drawn from `seed`. Returns each
/// deal's moves.
///
/// # Errors
/// As [`random_deal`].
pub fn random_game(game: &mut Spin, seed: u64) -> Result<Vec<Vec<Move>>, SimError> {
    let mut seeds = SplitMix64::new(seed);
    let mut deals = Vec::new();
    while !game.is_finished() {
        deals.push(random_deal(game, seeds.next_u64())?);
    }
    Ok(deals)
}

/// [`random_deal`] drawing from `rng`.
pub(crate) fn play_deal(game: &mut Spin, rng: &mut SplitMix64) -> Result<Vec<Move>, SimError> {
    check_deal_start(game)?;
    let players = game.players();
    let mut hands = deal_hands(|c| removed().contains(c), &game.hands(), rng)
        .ok_or(SimError::Inconsistent("the hands need more cards than the pack holds"))?;
    let deal = game.view().deal;
    let mut moves = Vec::new();
    let mut shown: Vec<Combination> = Vec::new();
    while !game.is_finished() && game.view().deal == deal {
        let view = game.view();
        let mv = if view.phase == Phase::SpinHolder {
            Move::SpinHolder {
                seat: Seat::all(players)
                    .find(|s| hands[s.index()].contains(&SPIN))
                    .ok_or(SimError::Inconsistent("Spin is in nobody's hand"))?,
            }
        } else {
            let (seat, card) = next_play(view.to_act, view.next_card, &hands, rng)
                .ok_or(SimError::Inconsistent("nobody can play the next card"))?;
            let hand = &hands[seat.index()];
            let pair = [Combination::Matrimony, Combination::Intrigue]
                .into_iter()
                .find(|c| !shown.contains(c) && c.cards().iter().all(|x| hand.contains(x)));
            match (view.to_act, pair, view.played.is_empty()) {
                // The seat to lead has just played a stop (it is no deal's first lead).
                (Some(_), Some(combination), false) => {
                    shown.push(combination);
                    Move::Show { seat, combination }
                }
                _ => {
                    let spin = card != SPIN && hand.contains(&SPIN) && hand.len() >= 2 && rng.below(2) == 0;
                    Move::Play { seat, card, spin }
                }
            }
        };
        if let Move::Play { seat, card, spin } = &mv {
            hands[seat.index()].retain(|c| c != card && !(*spin && *c == SPIN));
        }
        apply(game, &mv)?;
        moves.push(mv);
    }
    Ok(moves)
}
