//! A random player of legal Tricky Dick hands, for tests and benchmarks.
//!
//! The engine does not see the hands, so the simulator shuffles the 64-card Squares deck with
//! the seeded shuffle (`rules::deck`), deals 16 cards to each seat, enters trick 1 as the four
//! sixteenth cards and then plays a random card from the hand of the seat to act. Every move
//! goes through `Game::apply`, and the moves are returned so that they can be replayed.
//!
//! Invariants: the same game state and seed give the same moves; every move the simulator
//! makes is legal, so the engine refusing one is a bug (`SimError::Refused`).

use crate::deck::{self, SplitMix64};
use crate::games::sim::{apply, check_deal_start};
use crate::seat::{BySeat, Seat};
use crate::squares::SquaresCard;
use crate::Events;
use crate::Game;

use super::{Event, Move, Phase, TrickyDick, PLAYERS};

/// One hand as the simulator played it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandRecord {
    /// The hands as dealt, by seat; the last card of each is its face-up sixteenth card.
    pub hands: BySeat<Vec<SquaresCard>>,
    /// The moves made, in order.
    pub moves: Vec<Move>,
    /// The events of each move: `events[i]` came from `moves[i]`.
    pub events: Vec<Events<Event>>,
}

/// Why the simulator stopped.
pub type SimError = crate::games::sim::SimError<Move>;

/// Deals the current hand with `seed` and plays it to the end.
///
/// # Errors
/// `GameFinished` or `MidDeal` when the game is not at the start of a hand; `Refused` when the
/// engine turns down a legal move. The game keeps the moves applied before an error.
pub fn random_hand(game: &mut TrickyDick, seed: u64) -> Result<HandRecord, SimError> {
    check_deal_start(game)?;
    let mut rng = SplitMix64::new(seed);
    let mut pack: Vec<SquaresCard> = SquaresCard::deck().collect();
    deck::shuffle_with(&mut pack, &mut rng);
    let (dealt, _) = deck::deal_from(pack, PLAYERS, 16).ok_or(SimError::Inconsistent("64 cards make four hands"))?;
    let mut record = HandRecord {
        hands: dealt.clone(),
        moves: Vec::new(),
        events: Vec::new(),
    };
    let mut hands = dealt;
    let mut cards = Vec::with_capacity(PLAYERS);
    for seat in Seat::all(PLAYERS) {
        cards.push(hands[seat].pop().ok_or(SimError::Inconsistent("an empty hand"))?);
    }
    step(game, &mut record, Move::FirstTrick { cards })?;
    loop {
        let view = game.view();
        if view.phase != Phase::Playing {
            return Err(SimError::Inconsistent("the hand stopped before its last trick"));
        }
        let seat = view.to_act.ok_or(SimError::Inconsistent("nobody is to play"))?;
        let hand = &mut hands[seat];
        if hand.is_empty() {
            return Err(SimError::Inconsistent("the seat to play has no cards left"));
        }
        let card = hand.swap_remove(rng.index(hand.len()));
        let trick = view
            .current_trick
            .as_ref()
            .map(|t| t.number)
            .filter(|_| rng.below(2) == 0);
        let events = step(game, &mut record, Move::Play { seat, card, trick })?;
        if events.iter().any(|e| matches!(e, Event::HandScored { .. })) {
            return Ok(record);
        }
    }
}

/// Plays every remaining hand, each with a seed drawn from `seed`.
///
/// # Errors
/// As [`random_hand`].
pub fn random_game(game: &mut TrickyDick, seed: u64) -> Result<Vec<HandRecord>, SimError> {
    let mut seeds = SplitMix64::new(seed);
    let mut hands = Vec::new();
    while !game.is_finished() {
        hands.push(random_hand(game, seeds.next_u64())?);
    }
    Ok(hands)
}

/// The moves of `hands`, in order, for replaying.
pub fn moves(hands: &[HandRecord]) -> Vec<Move> {
    hands.iter().flat_map(|h| h.moves.iter().cloned()).collect()
}

fn step(game: &mut TrickyDick, record: &mut HandRecord, mv: Move) -> Result<Events<Event>, SimError> {
    let events = apply(game, &mv)?;
    record.moves.push(mv);
    record.events.push(events.clone());
    Ok(events)
}
