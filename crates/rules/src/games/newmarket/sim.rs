//! A random player of legal Newmarket deals, for tests, benchmarks and examples.
//!
//! The engine does not see the hands, so the simulator deals them itself with the seeded
//! shuffle (`rules::deck`: the pack without the sevens, every card dealt), lays out an ace,
//! king, queen and knave of four random suits with the seats' stakes spread over them, and plays
//! the table: the seat to lead leads a random card, and whoever holds the next card up plays
//! it. Every move goes through the rules, and the moves are returned so that they can be
//! replayed.
//!
//! Invariants: the same game state and seed give the same moves; a move the simulator makes is
//! legal, so the engine refusing one is a bug (`SimError::Refused`).

use crate::cards::{Card, Rank, Suit};
use crate::deck::{shuffle_with, SplitMix64};
use crate::games::sim::{apply, check_deal_start};
use crate::stops::sim::{deal_hands, next_play};
use crate::Game;

use super::{Move, Newmarket, POOL_RANKS};

/// Why the simulator stopped.
pub type SimError = crate::games::sim::SimError<Move>;

/// Deals the current deal with `seed`, lays out its pools and plays it to its end card by card.
/// Returns the moves.
///
/// # Errors
/// `GameFinished` or `MidDeal` when the game is not at the start of a deal; `Refused` when the
/// engine turns down a legal move (an engine or simulator bug). The game keeps the moves
/// applied before an error.
pub fn random_deal(game: &mut Newmarket, seed: u64) -> Result<Vec<Move>, SimError> {
    play_deal(game, &mut SplitMix64::new(seed))
}

/// Plays every remaining deal card by card, each with a seed drawn from `seed`. Returns each
/// deal's moves.
///
/// # Errors
/// As [`random_deal`].
pub fn random_game(game: &mut Newmarket, seed: u64) -> Result<Vec<Vec<Move>>, SimError> {
    let mut seeds = SplitMix64::new(seed);
    let mut deals = Vec::new();
    while !game.is_finished() {
        deals.push(random_deal(game, seeds.next_u64())?);
    }
    Ok(deals)
}

/// [`random_deal`] drawing from `rng`.
pub(crate) fn play_deal(game: &mut Newmarket, rng: &mut SplitMix64) -> Result<Vec<Move>, SimError> {
    check_deal_start(game)?;
    let players = game.players();
    let mut hands = deal_hands(|c| c.rank == Rank::Seven, &game.hands(), rng)
        .ok_or(SimError::Inconsistent("the hands need more cards than the pack holds"))?;
    let mut suits = Suit::ALL;
    shuffle_with(&mut suits, rng);
    let pool_cards: Vec<Card> = POOL_RANKS.iter().zip(suits).map(|(&r, s)| Card::new(r, s)).collect();
    // Round the pool cards in turn; with three players the dealer's extra (left out: on the pool
    // holding least) covers the fourth.
    let stakes: Vec<Card> = (0..players).map(|i| pool_cards[i % 4]).collect();
    let layout = Move::Layout {
        pool_cards,
        stakes,
        dealer_extra_on: None,
    };
    apply(game, &layout)?;
    let mut moves = vec![layout];
    let deal = game.view().deal;
    while !game.is_finished() && game.view().deal == deal {
        let view = game.view();
        let (seat, card) = next_play(view.to_act, view.next_card, &hands, rng)
            .ok_or(SimError::Inconsistent("nobody can play the next card"))?;
        hands[seat.index()].retain(|&c| c != card);
        let mv = Move::Play { seat, card };
        apply(game, &mv)?;
        moves.push(mv);
    }
    Ok(moves)
}
