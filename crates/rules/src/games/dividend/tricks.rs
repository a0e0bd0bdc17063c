//! A trick's end, however it was recorded: the winner's position shares the four cards out, the
//! winner leads the next trick, and the deal is scored after the thirteenth. Recording a deal
//! trick by trick enters only the winners.

use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::trick::Trick;
use crate::Events;
use smallvec::smallvec;

use super::{shares, Dividend, Event, Recording, PLAYERS, TRICKS};

impl Dividend {
    pub(super) fn trick(&mut self, winner: Seat, number: Option<u8>) -> Result<Events<Event>, RuleViolation> {
        winner.check(PLAYERS)?;
        if let Some(n) = number.filter(|n| !(1..=TRICKS).contains(n)) {
            return Err(RuleViolation::NoSuchTrick {
                number: n,
                tricks: TRICKS,
            });
        }
        let deal = self.deal_for("trick", Recording::TrickByTrick)?;
        let expected = deal.tricks_done + 1;
        if let Some(got) = number.filter(|&n| n != expected) {
            return Err(RuleViolation::TrickOutOfOrder { expected, got });
        }
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        deal.recording = Some(Recording::TrickByTrick);
        Ok(self.award_trick(winner))
    }

    /// Shares the current trick's cards out by `winner`'s position, makes the winner the next
    /// leader, and scores the deal after the 13th trick. Card-by-card and trick-by-trick
    /// recording both end every trick here.
    pub(super) fn award_trick(&mut self, winner: Seat) -> Events<Event> {
        let Some(deal) = self.deal.as_mut() else {
            return Events::new();
        };
        let leader = deal.trick.leader();
        let shares = shares(leader, winner);
        for (seat, share) in Seat::all(PLAYERS).zip(shares) {
            deal.cards_won[seat] += share;
        }
        deal.tricks_done += 1;
        let mut events = smallvec![Event::TrickWon {
            trick: deal.tricks_done,
            leader,
            winner,
            position: winner.distance_from(leader, PLAYERS) as u8 + 1,
            shares: shares.to_vec(),
            cards: deal.trick.cards(),
        }];
        deal.trick = Trick::new(winner);
        if deal.tricks_done == TRICKS {
            let cards_won = deal.cards_won.clone();
            let recording = deal.recording.unwrap_or(Recording::TrickByTrick);
            events.extend(self.finish_deal(recording, cards_won));
        }
        events
    }
}
