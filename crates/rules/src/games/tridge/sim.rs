//! A random player of legal Tridge deals, for tests and benchmarks.
//!
//! The engine does not see the hands, so the simulator deals them itself with the seeded
//! shuffle of the 40-card pack and plays the table: it bids and passes at random, declares a
//! contract its bid allows, exchanges from the stock, plays a random card that follows suit
//! (trumps as one suit) when it can, and sometimes stops after five. Every move goes through
//! `Game::apply`, and the moves are returned so that they can be replayed.
//!
//! Invariants: the same game state and seed give the same moves; a move the simulator makes is
//! legal, so the engine refusing one is a bug (`SimError::Refused`); a simulated deal never
//! revokes.

use crate::cards::{Card, Suit};
use crate::deck::{self, SplitMix64};
use crate::error::RuleViolation;
use crate::seat::BySeat;
use crate::Game;

use super::{ranking, Bid, Contract, Move, Phase, Stage, Tridge};

/// Why the simulator stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("the game has ended")]
    GameFinished,
    #[error("the engine refused the legal move {mv:?}: {violation}")]
    Refused { mv: Move, violation: RuleViolation },
    #[error("the view contradicts the game: {0}")]
    Inconsistent(&'static str),
}

/// Deals the current deal with `seed` and plays it to its end with random legal moves: an
/// auction, a declaration, exchanges, play that follows suit, stops, all-pass paths (No Tricks,
/// Fixed Trick, In-comer, pass-out), and now and then a result-only entry. Returns the moves.
///
/// # Errors
/// `GameFinished` when the game is over; `Refused` when the engine turns down a legal move
/// (an engine or simulator bug). The game keeps the moves applied before an error.
pub fn random_deal(g: &mut Tridge, seed: u64) -> Result<Vec<Move>, SimError> {
    if g.is_finished() {
        return Err(SimError::GameFinished);
    }
    let mut rng = SplitMix64::new(seed);
    let mut pack: Vec<Card> = ranking::pack().collect();
    deck::shuffle(&mut pack, seed);
    let active = g.active_seats();
    let mut hands: BySeat<Vec<Card>> = BySeat::filled(g.players(), Vec::new());
    for (i, s) in active.iter().enumerate() {
        hands[*s] = pack[i * 9..i * 9 + 9].to_vec();
    }
    let mut stock: Vec<Card> = pack[27..].to_vec();
    let mut moves = Vec::new();
    let deal = g.view().deal;
    let step = |g: &mut Tridge, mv: Move, moves: &mut Vec<Move>| match g.apply(&mv) {
        Ok(_) => {
            moves.push(mv);
            Ok(())
        }
        Err(violation) => Err(SimError::Refused { mv, violation }),
    };
    if rng.below(8) == 0 {
        let contract = [
            Contract::Play { trumps: Suit::Hearts },
            Contract::PlayDiamonds,
            Contract::NoTricks { trumps: Suit::Clubs },
        ][rng.index(3)];
        let mut tricks = [0u8; 3];
        for _ in 0..9 {
            tricks[rng.index(3)] += 1;
        }
        let mut full = vec![0u8; g.players()];
        for (i, s) in active.iter().enumerate() {
            full[s.index()] = tricks[i];
        }
        let mv = Move::Result {
            player: active[rng.index(3)],
            contract,
            honours: Some(rng.below(4) as u8),
            top_trumps: None,
            tricks: full,
            stopped_after_five: false,
            all_tricks_after_fifth: false,
            in_comer: false,
        };
        step(g, mv, &mut moves)?;
        return Ok(moves);
    }
    while g.view().deal == deal && !g.is_finished() {
        let v = g.view();
        let mv = match v.phase {
            Phase::Auction => {
                let s = v.to_act.ok_or(SimError::Inconsistent("speaker"))?;
                let min = v.standing_bid.map_or(0, |b| b.bid as usize + 1);
                let options = [
                    Bid::Play,
                    Bid::PlayMore,
                    Bid::Flip,
                    Bid::NoChange,
                    Bid::NoChangeDiamonds,
                ];
                if min < options.len() && rng.below(3) == 0 {
                    Move::Bid {
                        seat: s,
                        bid: options[min + rng.index(options.len() - min)],
                    }
                } else {
                    Move::Pass { seat: s }
                }
            }
            Phase::AllPassed if g.players() == 4 && rng.below(3) == 0 => {
                // The dealer comes in with 9 of the stock; 4 are left for one-card exchanges.
                let dealer = v.dealer;
                hands[dealer] = stock.drain(..9).collect();
                Move::InCome { seat: dealer }
            }
            Phase::Declaring if g.deal.in_comer && rng.below(4) == 0 => Move::GiveUp { seat: v.dealer },
            Phase::Declaring if g.deal.in_comer => Move::Declare {
                seat: v.dealer,
                contract: [
                    Contract::Play { trumps: Suit::Hearts },
                    Contract::PlayDiamonds,
                    Contract::NoTricks { trumps: Suit::Spades },
                ][rng.index(3)],
            },
            Phase::InComerExchange => {
                let s = v.to_act.ok_or(SimError::Inconsistent("exchanger"))?;
                let n = rng.below(2).min(u64::from(v.stock_left)) as usize;
                if n == 1 {
                    let i = rng.index(hands[s].len());
                    hands[s].remove(i);
                    hands[s].push(stock.remove(0));
                }
                Move::Exchange {
                    seat: s,
                    cards: n as u8,
                }
            }
            Phase::AllPassed => match rng.below(3) {
                0 => Move::PassOut,
                1 => Move::Bid {
                    seat: active[rng.index(3)],
                    bid: Bid::NoTricks,
                },
                _ => Move::Pass { seat: active[0] },
            },
            Phase::FixedAuction => {
                let s = v.to_act.ok_or(SimError::Inconsistent("speaker"))?;
                let trumps = hands[s].first().map(|c| c.suit);
                match (rng.below(2), v.standing_fixed_bid) {
                    (0, None) => Move::FixedBid {
                        seat: s,
                        tricks: 3,
                        trumps,
                    },
                    (0, Some(b)) if b.tricks > 1 => Move::FixedBid {
                        seat: s,
                        tricks: b.tricks - 1,
                        trumps,
                    },
                    _ => Move::Pass { seat: s },
                }
            }
            Phase::Declaring => {
                let s = v.to_act.ok_or(SimError::Inconsistent("player"))?;
                let bid = match &g.deal.stage {
                    Stage::Declaring { bid } => *bid,
                    _ => Bid::Play,
                };
                let contract = match bid {
                    Bid::Play => Contract::Play { trumps: Suit::Hearts },
                    Bid::PlayMore => Contract::PlayDiamonds,
                    Bid::Flip => Contract::Flip { turned: stock[0] },
                    Bid::NoChange => Contract::NoChange { trumps: Suit::Clubs },
                    Bid::NoChangeDiamonds => Contract::NoChangeDiamonds,
                    Bid::NoTricks => Contract::NoTricks { trumps: Suit::Spades },
                    Bid::AllTricks => Contract::AllTricks { trumps: Suit::Hearts },
                };
                Move::Declare { seat: s, contract }
            }
            Phase::PlayerExchange | Phase::FirstDefenderExchange | Phase::SecondDefenderExchange => {
                let s = v.to_act.ok_or(SimError::Inconsistent("exchanger"))?;
                let max = if v.phase == Phase::FirstDefenderExchange {
                    8.min(v.stock_left)
                } else {
                    9.min(v.stock_left)
                };
                let n = rng.below(u64::from(max) + 1) as usize;
                // Discard n random cards, take n from the stock.
                for _ in 0..n {
                    let i = rng.index(hands[s].len());
                    hands[s].remove(i);
                    hands[s].push(stock.remove(0));
                }
                Move::Exchange {
                    seat: s,
                    cards: n as u8,
                }
            }
            Phase::Defence => {
                let d = g.deal.centre_and_rear().ok_or(SimError::Inconsistent("defenders"))?;
                Move::Defence {
                    first_defender: if rng.below(2) == 0 { d.0 } else { d.1 },
                }
            }
            Phase::Playing if v.may_stop && rng.below(2) == 0 => {
                let s = v.to_act.ok_or(SimError::Inconsistent("player"))?;
                let trumps = v.trumps.ok_or(SimError::Inconsistent("trumps"))?;
                let tops = hands[s]
                    .iter()
                    .copied()
                    .filter(|c| ranking::honour_cards(trumps).contains(c))
                    .collect();
                Move::Stop {
                    seat: s,
                    top_trumps: tops,
                }
            }
            Phase::Playing => {
                let s = v.to_act.ok_or(SimError::Inconsistent("to play"))?;
                let trumps = v.trumps.ok_or(SimError::Inconsistent("trumps"))?;
                let led = v
                    .current_trick
                    .as_ref()
                    .and_then(|t| t.plays.first())
                    .map(|p| ranking::follow_suit(p.card, trumps));
                let legal: Vec<Card> = hands[s]
                    .iter()
                    .copied()
                    .filter(|c| led.is_none_or(|l| ranking::follow_suit(*c, trumps) == l))
                    .collect();
                let choice = if legal.is_empty() { hands[s].clone() } else { legal };
                let c = choice[rng.index(choice.len())];
                hands[s].retain(|x| *x != c);
                Move::Play { seat: s, card: c }
            }
            Phase::Finished => return Err(SimError::GameFinished),
        };
        step(g, mv, &mut moves)?;
    }
    Ok(moves)
}
