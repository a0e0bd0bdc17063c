//! A deal recorded card by card: each card in turn, revokes detected as they are proven, the
//! trick's winner leading the next; the deal is scored after its last trick.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::trick::{Trick, TrickPlan};
use crate::Events;

use super::{Event, NominationWhist, Phase, Recording, Trumps};

impl NominationWhist {
    /// The deal's tricks as data (`TrickPlan`), once its trumps are known: the turned-up
    /// suit trumps every lead (none at no trumps), each card follows its own suit, ace high.
    pub(super) fn plan(&self) -> Option<TrickPlan> {
        let deal = self.deal.as_ref()?;
        let trumps = deal.trumps?.suit();
        Some(TrickPlan::new(
            deal.index + 1,
            Seat::all(self.players).collect(),
            deal.hand_size,
            |_| trumps,
            Card::deck(),
            |c| c.suit,
            |c| c.rank as u8,
        ))
    }

    pub(super) fn play(&mut self, seat: Seat, card: Card) -> Result<Events<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        let players = self.players;
        let Some(deal) = self.deal.as_mut() else {
            return Err(RuleViolation::GameFinished);
        };
        let expected = deal.trick.next_seat(players);
        if seat != expected {
            return Err(RuleViolation::NotYourTurn { expected, got: seat });
        }
        if deal.turn_up == Some(card) {
            return Err(RuleViolation::CardTurnedUp(card));
        }
        if deal.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }

        // Checked: from here on the move is legal and the state changes.
        let trick_no = deal.tricks_done + 1;
        // Inline room for the card and the trick's end; a revoke on a trick's last card, or the
        // deal's end, spills over.
        let mut events = Events::new();
        events.push(Event::CardPlayed {
            seat,
            card,
            trick: trick_no,
        });
        if let Some(revoke) = deal.voids.lay(&mut deal.trick, seat, card, trick_no) {
            deal.revokes.push(revoke);
            events.push(Event::RevokeDetected { revoke });
        }
        deal.played.insert(card);
        if !deal.trick.is_complete(players) {
            return Ok(events);
        }

        // A complete trick has a lead, so it has a winner; matched rather than `ok_or`, which
        // would build (and drop) the refusal on every trick.
        let Some((_, winning)) = deal.trick.winner_with_trumps(deal.trumps.and_then(Trumps::suit)) else {
            return Err(RuleViolation::GameFinished);
        };
        let winner = winning.seat;
        deal.tricks_won[winner] += 1;
        deal.tricks_done = trick_no;
        events.push(Event::TrickWon {
            trick: trick_no,
            winner,
            cards: deal.trick.cards(),
        });
        deal.trick = Trick::new(winner);
        if deal.tricks_done == deal.hand_size {
            events.extend(self.finish_deal(Recording::CardByCard));
        }
        Ok(events)
    }
}
