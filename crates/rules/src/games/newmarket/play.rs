//! A deal card by card: plays up the runs; the card just below a pool card wins its stake and
//! is a stop.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Events;
use smallvec::smallvec;

use super::{Event, Newmarket, Phase, Recording};

impl Newmarket {
    pub(super) fn play(&mut self, seat: Seat, card: Card) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        let pool = Self::pool_won_by(deal, card);
        let played = deal.runs.play(seat, card, pool.is_some())?;
        let mut events = smallvec![Event::CardPlayed {
            seat,
            card,
            cards_left: played.cards_left,
        }];
        if played.stop && played.cards_left > 0 {
            events.push(Event::Stopped { card, leader: seat });
        }
        let cards_left = deal.runs.hands_left();
        if let Some(pool) = pool {
            self.win_pool(&mut events, pool, seat, card)?;
        }
        if played.cards_left == 0 {
            self.go_out(&mut events, seat, cards_left, Recording::CardByCard)?;
        }
        Ok(events)
    }
}
