//! A random player of legal Dividend deals, for tests and benchmarks.
//!
//! The engine does not see the hands, so the simulator deals them itself with the seeded
//! shuffle (`rules::deck`) and plays the table card by card, each seat playing a random card
//! that follows suit when it can. Every move goes through `Game::apply`. The same deal can then
//! be entered the two other ways: [`trick_moves`] gives the winner of each trick, [`result_move`]
//! the cards each seat won.
//!
//! Invariants: the same game state and seed give the same moves; a move the simulator makes is
//! legal, so the engine refusing one is a bug (`SimError::Refused`); a simulated deal never
//! revokes.

use crate::cards::Card;
use crate::deck::{self, SplitMix64};
use crate::games::sim::{apply, check_deal_start};
use crate::seat::{BySeat, Seat};
use crate::Events;
use crate::Game;

use super::{Dividend, Event, Move, Phase, PLAYERS, TRICKS};

/// One deal as the simulator played it, card by card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealRecord {
    /// The hands as dealt, by seat.
    pub hands: BySeat<Vec<Card>>,
    /// The `play` moves made, in order.
    pub moves: Vec<Move>,
    /// The events of each move: `events[i]` came from `moves[i]`.
    pub events: Vec<Events<Event>>,
}

impl DealRecord {
    /// The winner of each trick, in order.
    pub fn winners(&self) -> Vec<Seat> {
        self.events
            .iter()
            .flatten()
            .filter_map(|e| match e {
                Event::TrickWon { winner, .. } => Some(*winner),
                _ => None,
            })
            .collect()
    }

    /// The cards each seat won, from the deal's score.
    pub fn cards_won(&self) -> Option<Vec<u8>> {
        self.events.iter().flatten().find_map(|e| match e {
            Event::DealScored { cards_won, .. } => Some(cards_won.clone()),
            _ => None,
        })
    }
}

/// Why the simulator stopped.
pub type SimError = crate::games::sim::SimError<Move>;

/// Deals the current deal with `seed` and plays it to the end card by card.
///
/// # Errors
/// `GameFinished` or `MidDeal` when the game is not at the start of a deal; `Refused` when the
/// engine turns down a legal move (an engine or simulator bug). The game keeps the moves
/// applied before an error.
pub fn random_deal(game: &mut Dividend, seed: u64) -> Result<DealRecord, SimError> {
    check_deal_start(game)?;
    let mut rng = SplitMix64::new(seed);
    let (hands, _) = deck::deal(rng.next_u64(), PLAYERS, usize::from(TRICKS))
        .ok_or(SimError::Inconsistent("13 cards each need 52 cards"))?;
    let mut record = DealRecord {
        hands: hands.clone(),
        moves: Vec::new(),
        events: Vec::new(),
    };
    let mut hands = hands;
    loop {
        let view = game.view();
        if view.phase == Phase::Finished {
            return Err(SimError::Inconsistent("the game ended before the deal was scored"));
        }
        let seat = view.to_act.ok_or(SimError::Inconsistent("nobody is to play"))?;
        let led = view
            .current_trick
            .as_ref()
            .and_then(|t| t.plays.first())
            .map(|p| p.card.suit);
        let hand = &mut hands[seat];
        let following: Vec<usize> = (0..hand.len()).filter(|&i| Some(hand[i].suit) == led).collect();
        let i = if following.is_empty() {
            if hand.is_empty() {
                return Err(SimError::Inconsistent("the seat to play has no cards left"));
            }
            rng.index(hand.len())
        } else {
            following[rng.index(following.len())]
        };
        let mv = Move::Play {
            seat,
            card: hand.swap_remove(i),
        };
        let events = apply(game, &mv)?;
        let scored = events.iter().any(|e| matches!(e, Event::DealScored { .. }));
        record.moves.push(mv);
        record.events.push(events);
        if scored {
            return Ok(record);
        }
    }
}

/// Plays every remaining deal card by card, each with a seed drawn from `seed`.
///
/// # Errors
/// As [`random_deal`].
pub fn random_game(game: &mut Dividend, seed: u64) -> Result<Vec<DealRecord>, SimError> {
    let mut seeds = SplitMix64::new(seed);
    let mut deals = Vec::new();
    while !game.is_finished() {
        deals.push(random_deal(game, seeds.next_u64())?);
    }
    Ok(deals)
}

/// The deal entered trick by trick: one `trick` move per trick, numbered when `numbered`.
pub fn trick_moves(record: &DealRecord, numbered: bool) -> Vec<Move> {
    record
        .winners()
        .into_iter()
        .zip(1..)
        .map(|(winner, n)| Move::Trick {
            winner,
            number: numbered.then_some(n),
        })
        .collect()
}

/// The deal entered as a result: the cards each seat won.
pub fn result_move(record: &DealRecord) -> Option<Move> {
    record.cards_won().map(|cards_won| Move::Result { cards_won })
}

/// The moves of `deals` card by card, in order, for replaying.
pub fn moves(deals: &[DealRecord]) -> Vec<Move> {
    deals.iter().flat_map(|d| d.moves.iter().cloned()).collect()
}
