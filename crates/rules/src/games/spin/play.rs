//! A deal card by card: plays up the runs (Spin with another card makes it a stop), showing
//! Matrimony or Intrigue after a stop, and Spin's holder once a player has gone out with it
//! unplayed.

use crate::cards::{Card, Rank};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Events;
use smallvec::smallvec;

use super::{Combination, Event, Phase, Recording, Spin, SPIN};

impl Spin {
    pub(super) fn play(&mut self, seat: Seat, card: Card, spin: bool) -> Result<Events<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        if spin && card == SPIN {
            return Err(RuleViolation::InvalidResult(
                "`spin: true` plays Spin beside another card; play the A♦ alone without it".into(),
            ));
        }
        if let Some(&(_, holder)) = self
            .deal_ref()?
            .held
            .iter()
            .find(|(c, h)| *h != seat && (*c == card || (spin && *c == SPIN)))
        {
            return Err(RuleViolation::CardHeldByAnother { card, holder, seat });
        }
        let king_payment = self.options.king_payment;
        let spin_stake = self.options.spin_stake;
        let deal = self.deal_mut()?;
        // Spin led after a stop makes a stop too; played with a card it makes that card one.
        let played = deal.runs.play(seat, card, card == SPIN)?;
        let mut events = smallvec![Event::CardPlayed {
            seat,
            card,
            cards_left: played.cards_left,
        }];
        let mut cards_left = played.cards_left;
        if spin {
            cards_left = deal.runs.play_aside(seat, SPIN)?;
            deal.runs.force_stop();
            events.push(Event::SpinPlayed { seat });
        }
        let stop = played.stop || spin;
        if stop && cards_left > 0 {
            events.push(Event::Stopped { card, leader: seat });
        }
        if card == SPIN {
            events.push(Event::SpinPlayed { seat });
        }
        if card.rank == Rank::King {
            self.collect(&mut events, seat, king_payment, &format!("{card} played"))?;
        }
        if spin || card == SPIN {
            self.collect(&mut events, seat, spin_stake, "Spin played")?;
        }
        if cards_left == 0 {
            let deal = self.deal_ref()?;
            if deal.runs.is_accounted_for(SPIN) {
                let left = deal.runs.hands_left();
                self.go_out(&mut events, seat, left, None, Recording::CardByCard)?;
            } else {
                self.deal_mut()?.out = Some(seat);
            }
        }
        Ok(events)
    }

    pub(super) fn show(&mut self, seat: Seat, combination: Combination) -> Result<Events<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("show"));
        }
        let deal = self.deal_ref()?;
        // Only the player of a stop shows, before leading again.
        if deal.runs.is_fresh() {
            return Err(self.not_expected("show"));
        }
        match deal.runs.leader() {
            Some(leader) if leader == seat => {}
            Some(leader) => {
                return Err(RuleViolation::NotYourTurn {
                    expected: leader,
                    got: seat,
                })
            }
            None => return Err(self.not_expected("show")),
        }
        if deal.shown.contains(&combination) {
            return Err(RuleViolation::InvalidResult(format!(
                "{} has already been shown this deal",
                combination.pool().title()
            )));
        }
        for card in combination.cards() {
            deal.runs.check_card(card)?;
            if let Some(&(_, holder)) = deal.held.iter().find(|(c, h)| *c == card && *h != seat) {
                return Err(RuleViolation::CardHeldByAnother { card, holder, seat });
            }
        }
        let mut events = Events::new();
        self.win_pool(&mut events, combination, seat)?;
        Ok(events)
    }

    pub(super) fn spin_holder(&mut self, holder: Seat) -> Result<Events<Event>, RuleViolation> {
        holder.check(self.players)?;
        if self.phase() != Phase::SpinHolder {
            return Err(self.not_expected("spin_holder"));
        }
        let deal = self.deal_ref()?;
        let out = deal.out.ok_or(RuleViolation::GameFinished)?;
        if holder == out {
            return Err(RuleViolation::InvalidResult(format!(
                "{holder} went out and holds no cards, so cannot hold Spin"
            )));
        }
        let left = deal.runs.hands_left();
        let mut events = Events::new();
        self.deal_mut()?.out = None;
        self.go_out(&mut events, out, left, Some(holder), Recording::CardByCard)?;
        Ok(events)
    }
}
