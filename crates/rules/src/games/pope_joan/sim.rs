//! A random player of legal Pope Joan deals, for tests, benchmarks and examples.
//!
//! The engine does not see the hands, so the simulator deals them itself with the seeded
//! shuffle (`rules::deck`: the pack without the 8♦, a hand per seat and the spare hand, the
//! last card turned up) and plays the table: the seat to lead leads a random card, whoever holds
//! the next card up plays it, a stop is declared when only the spare hand could continue, the
//! 9♦ goes in lieu of a stop now and then when the options allow it, and the 9♦'s holder is
//! named when a player goes out with it unplayed. Every move goes through the rules, and the
//! moves are returned so that they can be replayed.
//!
//! Invariants: the same game state and seed give the same moves; a move the simulator makes is
//! legal, so the engine refusing one is a bug (`SimError::Refused`); a simulated deal never
//! misses a play.

use crate::cards::Card;
use crate::deck::{shuffle_with, SplitMix64};
use crate::games::sim::{apply, check_deal_start};
use crate::legal::kinds;
use crate::seat::Seat;
use crate::Game;

use super::{deal_sizes, Move, Phase, PopeJoan, EIGHT_OF_DIAMONDS, POPE};

/// Why the simulator stopped.
pub type SimError = crate::games::sim::SimError<Move>;

/// Deals the current deal with `seed` and plays it to its end card by card. Returns the moves.
///
/// # Errors
/// `GameFinished` or `MidDeal` when the game is not at the start of a deal; `Refused` when the
/// engine turns down a legal move (an engine or simulator bug). The game keeps the moves
/// applied before an error.
pub fn random_deal(game: &mut PopeJoan, seed: u64) -> Result<Vec<Move>, SimError> {
    play_deal(game, &mut SplitMix64::new(seed))
}

/// Plays every remaining deal card by card, each with a seed drawn from `seed`. Returns each
/// deal's moves.
///
/// # Errors
/// As [`random_deal`].
pub fn random_game(game: &mut PopeJoan, seed: u64) -> Result<Vec<Vec<Move>>, SimError> {
    let mut seeds = SplitMix64::new(seed);
    let mut deals = Vec::new();
    while !game.is_finished() {
        deals.push(random_deal(game, seeds.next_u64())?);
    }
    Ok(deals)
}

/// [`random_deal`] drawing from `rng`.
pub(crate) fn play_deal(game: &mut PopeJoan, rng: &mut SplitMix64) -> Result<Vec<Move>, SimError> {
    check_deal_start(game)?;
    let players = game.players();
    let (hand, spare) = deal_sizes(players);
    let mut pack: Vec<Card> = Card::deck().filter(|&c| c != EIGHT_OF_DIAMONDS).collect();
    shuffle_with(&mut pack, rng);
    let mut hands: Vec<Vec<Card>> = pack
        .chunks(usize::from(hand))
        .take(players)
        .map(<[Card]>::to_vec)
        .collect();
    let turned = *pack
        .get(usize::from(hand) * players + usize::from(spare))
        .ok_or(SimError::Inconsistent("no card is left to turn up"))?;
    let deal = game.view().deal;
    let mut moves = vec![Move::TurnUp { card: turned }];
    apply(game, &moves[0])?;
    while !game.is_finished() && game.view().deal == deal {
        let view = game.view();
        let pope_holder = Seat::all(players).find(|s| hands[s.index()].contains(&POPE));
        let mv = match (view.phase, pope_holder) {
            (Phase::PopeHolder, _) => Move::PopeHolder { seat: pope_holder },
            (_, Some(seat)) if kinds(&view.legal_moves).contains(&"pope_in_lieu") && rng.below(2) == 0 => {
                hands[seat.index()].retain(|&c| c != POPE);
                Move::PopeInLieu { seat }
            }
            _ => match (view.to_act, view.run) {
                (Some(leader), _) => {
                    let hand = &hands[leader.index()];
                    if hand.is_empty() {
                        return Err(SimError::Inconsistent("the seat to lead has no cards left"));
                    }
                    Move::Play {
                        seat: leader,
                        card: hand[rng.index(hand.len())],
                    }
                }
                (None, Some(run)) => match Seat::all(players).find(|s| hands[s.index()].contains(&run.next)) {
                    Some(seat) => Move::Play { seat, card: run.next },
                    // Only the spare hand can continue: the table declares the stop.
                    None => Move::Stop,
                },
                (None, None) => return Err(SimError::Inconsistent("nobody is to act")),
            },
        };
        if let Move::Play { seat, card } = &mv {
            hands[seat.index()].retain(|c| c != card);
        }
        apply(game, &mv)?;
        moves.push(mv);
    }
    Ok(moves)
}
