//! A random player of legal Nomination Whist deals, for tests and benchmarks.
//!
//! The engine does not see the hands, so the simulator deals them itself with the seeded
//! shuffle (`rules::deck`) and plays the table: it turns up the next card of the pack when
//! the trump rule needs one, nominates at random within the rules (never the number the hook
//! rule forbids the dealer), and plays a random card that follows suit when it can. Every
//! move goes through `Game::apply`, and the moves are returned so that they can be replayed.
//!
//! Invariants: the same game state and seed give the same moves; a move the simulator makes
//! is legal, so the engine refusing one is a bug (reported as `SimError::Refused`); a
//! simulated deal never revokes.

use crate::cards::{Card, CardSet, Suit};
use crate::deck::{self, SplitMix64};
use crate::games::sim::{apply, check_deal_start};
use crate::seat::{BySeat, Seat};
use crate::Events;
use crate::Game;

use super::{Event, Move, NominationWhist, Phase};

/// One deal as the simulator played it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealRecord {
    /// The hands as dealt, by seat.
    pub hands: BySeat<Vec<Card>>,
    /// The rest of the pack after the hands were dealt, its next card first.
    pub pack: Vec<Card>,
    /// The card turned up for trumps, when the trump rule needed one.
    pub turn_up: Option<Card>,
    /// The moves made, in order.
    pub moves: Vec<Move>,
    /// The events of each move: `events[i]` came from `moves[i]`.
    pub events: Vec<Events<Event>>,
}

/// Why the simulator stopped.
pub type SimError = crate::games::sim::SimError<Move>;

/// Deals the current deal with `seed` and plays it to the end card by card.
///
/// # Errors
/// `GameFinished` or `MidDeal` when the game is not at the start of a deal; `Refused` when the
/// engine turns down a legal move (an engine or simulator bug). The game keeps the moves
/// applied before an error.
pub fn random_deal(game: &mut NominationWhist, seed: u64) -> Result<DealRecord, SimError> {
    let (mut rng, mut record) = start_deal(game, seed)?;
    // The cards still held, as sets: following suit is then a mask, and nothing is allocated.
    let mut held: BySeat<CardSet> = BySeat::from_vec(
        record
            .hands
            .values()
            .iter()
            .map(|hand| hand.iter().copied().collect())
            .collect(),
    );
    loop {
        let mv = match turn(game) {
            Turn::Finished => return Err(SimError::Inconsistent("the game ended before the deal was scored")),
            Turn::TurnUp => {
                let card = *record
                    .pack
                    .first()
                    .ok_or(SimError::Inconsistent("a turn-up is awaited but the pack is empty"))?;
                record.turn_up = Some(card);
                Move::TurnUp { card }
            }
            Turn::Nominate {
                seat,
                hand_size,
                forbidden,
            } => Move::Nominate {
                seat,
                tricks: random_nomination(&mut rng, hand_size, forbidden),
            },
            Turn::Play { seat, led } => {
                let hand = &mut held[seat];
                let following = led.map_or(CardSet::default(), |suit| hand.of_suit(suit));
                // A card of the suit led when the seat has one, else any card it holds.
                let choices = if following.is_empty() { *hand } else { following };
                let card = choices
                    .nth(rng.below(u64::from(choices.len())) as u32)
                    .ok_or(SimError::Inconsistent("the seat to play has no cards left"))?;
                hand.remove(card);
                Move::Play { seat, card }
            }
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

/// Deals the current deal with `seed` and enters only its result: random nominations within
/// the rules and each trick to a random seat. The turn-up, when the trump rule needs one, is
/// the next card of the pack.
///
/// # Errors
/// As [`random_deal`].
pub fn random_result(game: &mut NominationWhist, seed: u64) -> Result<DealRecord, SimError> {
    let (mut rng, mut record) = start_deal(game, seed)?;
    let view = game.view();
    let players = game.players();
    let hand_size = view.hand_size.ok_or(SimError::Inconsistent("no hand size"))?;
    let dealer = view.dealer.ok_or(SimError::Inconsistent("no dealer"))?;
    let turn_up = if view.phase == Phase::TurnUp {
        record.pack.first().copied()
    } else {
        None
    };
    let hook_from = game.options().hook_from_hand_size;

    let mut nominations = vec![0; players];
    let mut total = 0u32;
    for seat in (1..=players).map(|step| dealer.left(step, players)) {
        let forbidden = (seat == dealer && hand_size >= hook_from)
            .then(|| u8::try_from(u32::from(hand_size).checked_sub(total)?).ok())
            .flatten();
        let tricks = random_nomination(&mut rng, hand_size, forbidden);
        nominations[seat.index()] = tricks;
        total += u32::from(tricks);
    }
    let mut tricks = vec![0; players];
    for _ in 0..hand_size {
        tricks[rng.index(players)] += 1;
    }

    let mv = Move::Result {
        nominations,
        tricks,
        turn_up,
    };
    let events = apply(game, &mv)?;
    record.turn_up = turn_up;
    record.moves.push(mv);
    record.events.push(events);
    Ok(record)
}

/// Plays every remaining deal card by card, each with a seed drawn from `seed`.
///
/// # Errors
/// As [`random_deal`].
pub fn random_game(game: &mut NominationWhist, seed: u64) -> Result<Vec<DealRecord>, SimError> {
    let mut seeds = SplitMix64::new(seed);
    let mut deals = Vec::new();
    while !game.is_finished() {
        deals.push(random_deal(game, seeds.next_u64())?);
    }
    Ok(deals)
}

/// The moves of `deals`, in order, for replaying.
pub fn moves(deals: &[DealRecord]) -> Vec<Move> {
    deals.iter().flat_map(|d| d.moves.iter().cloned()).collect()
}

/// Checks that a deal can start and deals it: the generator for the choices to come, and a
/// record holding the hands and the rest of the pack, with no moves yet.
fn start_deal(game: &NominationWhist, seed: u64) -> Result<(SplitMix64, DealRecord), SimError> {
    check_deal_start(game)?;
    let hand_size = game
        .deal
        .as_ref()
        .map(|d| d.hand_size)
        .ok_or(SimError::Inconsistent("no hand size"))?;
    let mut rng = SplitMix64::new(seed);
    let (hands, pack) = deck::deal(rng.next_u64(), game.players(), usize::from(hand_size))
        .ok_or(SimError::Inconsistent("the hands need more than 52 cards"))?;
    Ok((
        rng,
        DealRecord {
            hands,
            pack,
            turn_up: None,
            // Every card, a nomination per seat and maybe a turn-up: no growing while playing.
            moves: Vec::with_capacity(usize::from(hand_size) * game.players() + game.players() + 1),
            events: Vec::with_capacity(usize::from(hand_size) * game.players() + game.players() + 1),
        },
    ))
}

/// Who acts next and with what choice, read straight off the state: what the view tells a
/// phone, without building the view (its lists and totals) on every simulated move.
#[expect(clippy::enum_variant_names, reason = "`TurnUp` is the move's name in the rules")]
enum Turn {
    Finished,
    TurnUp,
    Nominate {
        seat: Seat,
        hand_size: u8,
        forbidden: Option<u8>,
    },
    Play {
        seat: Seat,
        led: Option<Suit>,
    },
}

fn turn(game: &NominationWhist) -> Turn {
    let Some(deal) = &game.deal else {
        return Turn::Finished;
    };
    match game.phase() {
        Phase::Finished => Turn::Finished,
        Phase::TurnUp => Turn::TurnUp,
        Phase::Nominating => Turn::Nominate {
            seat: NominationWhist::next_nominator(deal, game.players),
            hand_size: deal.hand_size,
            forbidden: game.forbidden_nomination(deal),
        },
        Phase::Playing => Turn::Play {
            seat: deal.trick.next_seat(game.players),
            led: deal.trick.plays().first().map(|p| p.card.suit),
        },
    }
}

/// A uniform nomination in `0..=hand_size` other than `forbidden`.
fn random_nomination(rng: &mut SplitMix64, hand_size: u8, forbidden: Option<u8>) -> u8 {
    let choices = u64::from(hand_size) + 1 - u64::from(forbidden.is_some_and(|f| f <= hand_size));
    // Below hand_size + 1, so it fits in u8.
    let pick = rng.below(choices) as u8;
    match forbidden {
        Some(f) if pick >= f => pick + 1,
        _ => pick,
    }
}
