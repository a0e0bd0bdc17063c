//! Runs: play up a suit, ace low, from a lead to a stop; certain stops, declared stops and the
//! missed plays they later reveal.
//!
//! Invariants: a card is played at most once per deal, never one out of the pack or set aside;
//! no seat plays more cards than it was dealt; while a run is live its next card up exists and
//! is still unaccounted for (otherwise the run would have stopped).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, CardSet, Rank};
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};

/// Ranks from low to high in the stops games: the ace is lowest, then `Rank::ALL`'s two to king.
pub const ACE_LOW: [Rank; 13] = {
    let mut ranks = [Rank::Ace; 13];
    let mut i = 0;
    while i < 12 {
        ranks[i + 1] = Rank::ALL[i];
        i += 1;
    }
    ranks
};

fn ace_low_position(rank: Rank) -> usize {
    if rank == Rank::Ace {
        0
    } else {
        usize::from(rank.value()) - 1
    }
}

/// The card that continues a run after `card`: the next rank up, ace low; none after a king.
pub fn next_up(card: Card) -> Option<Card> {
    ACE_LOW
        .get(ace_low_position(card.rank) + 1)
        .map(|&rank| Card::new(rank, card.suit))
}

/// The card a run reaches `card` from: the next rank down, ace low; none below an ace.
pub fn next_down(card: Card) -> Option<Card> {
    let pos = ace_low_position(card.rank).checked_sub(1)?;
    Some(Card::new(ACE_LOW[pos], card.suit))
}

/// Where play stands: a seat to lead, or a live run that any seat holding the next card
/// up may continue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunState {
    Lead { seat: Seat },
    Live { last: Card, by: Seat },
}

/// A run declared stopped whose next card was later played: whoever held it missed a play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MissedPlay {
    /// The seat that held the card (it played it later).
    pub seat: Seat,
    pub card: Card,
    /// The card after which the run was declared stopped.
    pub stopped_after: Card,
}

/// What playing a card did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The card is a certain stop (or made one): its player leads next.
    pub stop: bool,
    pub missed: Option<MissedPlay>,
    /// Cards the seat still holds.
    pub cards_left: u8,
}

/// One deal's runs: what is out of play, what has been played and by whom, whose lead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runs {
    /// Taken out of the pack before the deal (Pope Joan's 8♦, Newmarket's sevens).
    removed: CardSet,
    /// In the pack but in nobody's hand: the turn-up, the pool cards.
    set_aside: CardSet,
    played: CardSet,
    /// Cards taken to be in the spare hand because a run was declared stopped before them.
    dead: CardSet,
    /// Whether undealt cards lie in a spare hand (so that a stop may be declared).
    spare_hand: bool,
    dealt: BySeat<u8>,
    played_by: BySeat<u8>,
    state: RunState,
    /// The card the last run stopped at, while a lead is due after it.
    stopped_at: Option<Card>,
    missed: Vec<MissedPlay>,
}

impl Runs {
    /// A deal in which `leader` leads first and each seat was dealt `dealt[seat]` cards.
    pub fn new(removed: CardSet, spare_hand: bool, dealt: BySeat<u8>, leader: Seat) -> Runs {
        let players = dealt.len();
        Runs {
            removed,
            set_aside: CardSet::default(),
            played: CardSet::default(),
            dead: CardSet::default(),
            spare_hand,
            dealt,
            played_by: BySeat::filled(players, 0),
            state: RunState::Lead { seat: leader },
            stopped_at: None,
            missed: Vec::new(),
        }
    }

    /// Sets a card aside (turned up, laid out): it can be neither played nor continued to.
    pub fn set_aside(&mut self, card: Card) {
        self.set_aside.insert(card);
    }

    pub fn state(&self) -> RunState {
        self.state
    }

    pub fn played(&self) -> CardSet {
        self.played
    }

    pub fn is_set_aside(&self, card: Card) -> bool {
        self.set_aside.contains(card)
    }

    pub fn missed_plays(&self) -> &[MissedPlay] {
        &self.missed
    }

    pub fn dealt(&self, seat: Seat) -> u8 {
        self.dealt[seat]
    }

    pub fn cards_left(&self, seat: Seat) -> u8 {
        self.dealt[seat].saturating_sub(self.played_by[seat])
    }

    /// Cards left in every hand, by seat.
    pub fn hands_left(&self) -> Vec<u8> {
        Seat::all(self.dealt.len()).map(|s| self.cards_left(s)).collect()
    }

    /// True before the first card of the deal.
    pub fn is_fresh(&self) -> bool {
        self.played.is_empty()
    }

    /// Whether a card is out of everyone's hands for good: removed, set aside, played, or
    /// taken to be in the spare hand.
    pub fn is_accounted_for(&self, card: Card) -> bool {
        self.removed.contains(card)
            || self.set_aside.contains(card)
            || self.played.contains(card)
            || self.dead.contains(card)
    }

    /// A certain stop: nobody can hold the next card up.
    pub fn is_certain_stop(&self, card: Card) -> bool {
        next_up(card).is_none_or(|next| self.is_accounted_for(next))
    }

    /// The card that continues the live run, if a run is live.
    pub fn next_card(&self) -> Option<Card> {
        match self.state {
            RunState::Live { last, .. } => next_up(last),
            RunState::Lead { .. } => None,
        }
    }

    /// The seat to lead, when a lead is due.
    pub fn leader(&self) -> Option<Seat> {
        match self.state {
            RunState::Lead { seat } => Some(seat),
            RunState::Live { .. } => None,
        }
    }

    /// The seats that may play now and the cards they may play, before a game's own checks: the
    /// seat to lead any card that could still be in a hand; while a run is live, every seat
    /// with cards left the next card up.
    pub fn playable(&self) -> (Vec<Seat>, Vec<Card>) {
        let seats = Seat::all(self.dealt.len()).filter(|&s| self.cards_left(s) > 0);
        match self.state {
            RunState::Lead { seat } => (
                seats.filter(|&s| s == seat).collect(),
                Card::deck().filter(|&c| self.check_card(c).is_ok()).collect(),
            ),
            RunState::Live { last, .. } => (seats.collect(), next_up(last).into_iter().collect()),
        }
    }

    /// Checks that `seat` may play `card` now.
    ///
    /// # Errors
    /// `NoSuchSeat`, `CardNotInPack`, `CardTurnedUp`, `CardAlreadyPlayed`, `MoreCardsThanDealt`,
    /// `NotYourTurn` (a lead by another seat than the stop's player), `NotInSequence`.
    pub fn check_play(&self, seat: Seat, card: Card) -> Result<(), RuleViolation> {
        seat.check(self.dealt.len())?;
        self.check_card(card)?;
        if self.cards_left(seat) == 0 {
            return Err(RuleViolation::MoreCardsThanDealt {
                seat,
                dealt: self.dealt[seat],
            });
        }
        match self.state {
            RunState::Lead { seat: leader } if leader != seat => Err(RuleViolation::NotYourTurn {
                expected: leader,
                got: seat,
            }),
            RunState::Lead { .. } => Ok(()),
            RunState::Live { last, .. } => match next_up(last) {
                Some(expected) if expected == card => Ok(()),
                Some(expected) => Err(RuleViolation::NotInSequence { card, expected }),
                None => Err(RuleViolation::NotInSequence { card, expected: last }),
            },
        }
    }

    /// Checks that `card` is one that could still be in a hand.
    ///
    /// # Errors
    /// `CardNotInPack`, `CardTurnedUp`, `CardAlreadyPlayed`.
    pub fn check_card(&self, card: Card) -> Result<(), RuleViolation> {
        if self.removed.contains(card) {
            return Err(RuleViolation::CardNotInPack(card));
        }
        if self.set_aside.contains(card) {
            return Err(RuleViolation::CardTurnedUp(card));
        }
        if self.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }
        Ok(())
    }

    /// Plays a card; `makes_stop` forces a stop (Spin's A♦). The run stops when the card is a
    /// certain stop, and the seat then leads.
    ///
    /// # Errors
    /// As `check_play`; nothing changes then.
    pub fn play(&mut self, seat: Seat, card: Card, makes_stop: bool) -> Result<Played, RuleViolation> {
        self.check_play(seat, card)?;
        let missed = if self.dead.contains(card) {
            next_down(card).map(|stopped_after| MissedPlay {
                seat,
                card,
                stopped_after,
            })
        } else {
            None
        };
        if let Some(m) = missed {
            self.missed.push(m);
        }
        self.played.insert(card);
        self.played_by[seat] += 1;
        let stop = makes_stop || self.is_certain_stop(card);
        self.state = if stop {
            RunState::Lead { seat }
        } else {
            RunState::Live { last: card, by: seat }
        };
        self.stopped_at = stop.then_some(card);
        Ok(Played {
            stop,
            missed,
            cards_left: self.cards_left(seat),
        })
    }

    /// Plays a card beside the run without changing it (Spin's A♦ played with another card).
    ///
    /// # Errors
    /// `NoSuchSeat`, the card checks of `check_card`, `MoreCardsThanDealt`.
    pub fn play_aside(&mut self, seat: Seat, card: Card) -> Result<u8, RuleViolation> {
        seat.check(self.dealt.len())?;
        self.check_card(card)?;
        if self.cards_left(seat) == 0 {
            return Err(RuleViolation::MoreCardsThanDealt {
                seat,
                dealt: self.dealt[seat],
            });
        }
        self.played.insert(card);
        self.played_by[seat] += 1;
        Ok(self.cards_left(seat))
    }

    /// The card a stopped run would have needed next, while a lead is due after the stop.
    pub fn missing_after_stop(&self) -> Option<Card> {
        match self.state {
            RunState::Lead { .. } => self.stopped_at.and_then(next_up),
            RunState::Live { .. } => None,
        }
    }

    /// Plays `card` in place of the card a stopped run needed next (Pope Joan's 9♦ "in lieu of
    /// a stop"), from any seat: the run goes on from that card, and stops again at once when
    /// its next card is accounted for.
    ///
    /// # Errors
    /// `NoSuchSeat`, the card checks of `check_card`, `MoreCardsThanDealt`; `None` inside when
    /// no stopped run is waiting for a lead.
    pub fn play_in_lieu(&mut self, seat: Seat, card: Card) -> Result<Option<Played>, RuleViolation> {
        let Some(missing) = self.missing_after_stop() else {
            return Ok(None);
        };
        seat.check(self.dealt.len())?;
        self.check_card(card)?;
        if self.cards_left(seat) == 0 {
            return Err(RuleViolation::MoreCardsThanDealt {
                seat,
                dealt: self.dealt[seat],
            });
        }
        self.played.insert(card);
        self.played_by[seat] += 1;
        let stop = self.is_certain_stop(missing);
        self.state = if stop {
            RunState::Lead { seat }
        } else {
            RunState::Live {
                last: missing,
                by: seat,
            }
        };
        self.stopped_at = stop.then_some(missing);
        Ok(Some(Played {
            stop,
            missed: None,
            cards_left: self.cards_left(seat),
        }))
    }

    /// Ends the live run with a stop the engine cannot see (the next card up is taken to be in
    /// the spare hand). Returns the card stopped after and the seat that leads next.
    ///
    /// # Errors
    /// `RunContinues` when there is no spare hand (every card is in some player's hand);
    /// `None` inside when no run is live.
    pub fn declare_stop(&mut self) -> Result<Option<(Card, Seat)>, RuleViolation> {
        let RunState::Live { last, by } = self.state else {
            return Ok(None);
        };
        let Some(next) = next_up(last) else {
            return Ok(None);
        };
        if !self.spare_hand {
            return Err(RuleViolation::RunContinues { next });
        }
        self.dead.insert(next);
        self.state = RunState::Lead { seat: by };
        self.stopped_at = Some(last);
        Ok(Some((last, by)))
    }

    /// Forces the run to a stop at its current card, with its player to lead (after a stop
    /// made by a played card that the engine learns of separately).
    pub fn force_stop(&mut self) {
        if let RunState::Live { last, by } = self.state {
            self.state = RunState::Lead { seat: by };
            self.stopped_at = Some(last);
        }
    }
}
