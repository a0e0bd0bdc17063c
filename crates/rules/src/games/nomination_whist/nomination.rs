//! Nominations: made in turn from the dealer's left, the dealer last, each 0 to the hand size;
//! the hook rule forbids the dealer the one number that makes them add up to the hand size; and
//! the turned-up card that sets the trumps first, under the turned-up rule.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Events;
use smallvec::smallvec;

use super::{Deal, Event, NominationWhist, Phase, Trumps};

impl NominationWhist {
    pub(super) fn hook_applies(&self, hand_size: u8) -> bool {
        hand_size >= self.options.hook_from_hand_size
    }

    /// The seat due to nominate next.
    pub(super) fn next_nominator(deal: &Deal, players: usize) -> Seat {
        deal.dealer.left(1 + deal.nominated(), players)
    }

    pub(super) fn forbidden_nomination(&self, deal: &Deal) -> Option<u8> {
        let last_to_nominate = deal.nominated() + 1 == self.players;
        if !last_to_nominate || !self.hook_applies(deal.hand_size) {
            return None;
        }
        u8::try_from(u32::from(deal.hand_size).checked_sub(deal.nomination_total())?).ok()
    }

    pub(super) fn turn_up(&mut self, card: Card) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::TurnUp {
            return Err(self.not_expected("turn_up"));
        }
        let Some(deal) = self.deal.as_mut() else {
            return Err(RuleViolation::GameFinished);
        };
        let trumps = Trumps::of(card.suit);
        deal.trumps = Some(trumps);
        deal.turn_up = Some(card);
        Ok(smallvec![Event::TrumpsTurnedUp { card, trumps }])
    }

    pub(super) fn nominate(&mut self, seat: Seat, tricks: u8) -> Result<Events<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Nominating {
            return Err(self.not_expected("nominate"));
        }
        let Some(deal) = self.deal.as_ref() else {
            return Err(RuleViolation::GameFinished);
        };
        let expected = Self::next_nominator(deal, self.players);
        if seat != expected {
            return Err(RuleViolation::NotYourTurn { expected, got: seat });
        }
        if tricks > deal.hand_size {
            return Err(RuleViolation::NominationOutOfRange {
                tricks,
                hand_size: deal.hand_size,
            });
        }
        if self.forbidden_nomination(deal) == Some(tricks) {
            return Err(RuleViolation::HookRule {
                seat,
                forbidden: tricks,
            });
        }
        let Some(deal) = self.deal.as_mut() else {
            return Err(RuleViolation::GameFinished);
        };
        deal.nominations[seat] = Some(tricks);
        Ok(smallvec![Event::Nominated { seat, tricks }])
    }
}
