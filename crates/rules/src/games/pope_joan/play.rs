//! A deal card by card: plays up the runs, declared stops, the 9♦ in lieu of a stop, and the
//! 9♦'s holder once a player has gone out with it unplayed.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::Played;
use crate::Events;
use smallvec::smallvec;

use super::{Event, Phase, PopeJoan, Recording, POPE};

impl PopeJoan {
    pub(super) fn play(&mut self, seat: Seat, card: Card) -> Result<Events<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        let played = self.deal_mut()?.runs.play(seat, card, false)?;
        self.played(seat, card, card, played)
    }

    /// The 9♦ played in place of the card a stopped run needed (option `pope_in_lieu_of_stop`).
    pub(super) fn pope_in_lieu(&mut self, seat: Seat) -> Result<Events<Event>, RuleViolation> {
        seat.check(self.players)?;
        let missing = self.deal.as_ref().and_then(|d| d.runs.missing_after_stop());
        let (true, Phase::Playing, Some(missing)) = (self.options.pope_in_lieu_of_stop, self.phase(), missing) else {
            return Err(self.not_expected("pope_in_lieu"));
        };
        let played = self
            .deal_mut()?
            .runs
            .play_in_lieu(seat, POPE)?
            .ok_or(RuleViolation::GameFinished)?;
        self.played(seat, POPE, missing, played)
    }

    /// What follows a card played: a missed play, a stop at `stop_card`, a special's winnings,
    /// going out.
    pub(super) fn played(
        &mut self,
        seat: Seat,
        card: Card,
        stop_card: Card,
        played: Played,
    ) -> Result<Events<Event>, RuleViolation> {
        let mut events = smallvec![Event::CardPlayed {
            seat,
            card,
            cards_left: played.cards_left,
        }];
        if let Some(missed) = played.missed {
            events.push(Event::MissedPlayDetected { missed });
        }
        if played.stop && played.cards_left > 0 {
            events.push(Event::Stopped {
                card: stop_card,
                leader: seat,
                declared: false,
            });
        }
        let cards_left = self.deal_ref()?.runs.hands_left();
        self.play_special(&mut events, seat, card, &cards_left)?;
        if played.cards_left == 0 {
            let deal = self.deal_ref()?;
            let pope_unaccounted = !deal.runs.is_accounted_for(POPE);
            if pope_unaccounted {
                self.deal_mut()?.out = Some(seat);
            } else {
                self.go_out(&mut events, seat, None, cards_left, Recording::CardByCard)?;
            }
        }
        Ok(events)
    }

    pub(super) fn stop(&mut self) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("stop"));
        }
        let mut runs = self.deal_ref()?.runs.clone();
        let Some((card, leader)) = runs.declare_stop()? else {
            return Err(self.not_expected("stop"));
        };
        self.deal_mut()?.runs = runs;
        Ok(smallvec![Event::Stopped {
            card,
            leader,
            declared: true,
        }])
    }

    pub(super) fn pope_holder(&mut self, holder: Option<Seat>) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::PopeHolder {
            return Err(self.not_expected("pope_holder"));
        }
        let deal = self.deal_ref()?;
        let out = deal.out.ok_or(RuleViolation::GameFinished)?;
        if let Some(h) = holder {
            h.check(self.players)?;
            if h == out {
                return Err(RuleViolation::InvalidResult(format!(
                    "{h} went out and holds no cards, so cannot hold the 9D"
                )));
            }
        }
        let cards_left = deal.runs.hands_left();
        let mut events = Events::new();
        self.deal_mut()?.out = None;
        self.go_out(&mut events, out, holder, cards_left, Recording::CardByCard)?;
        Ok(events)
    }
}
