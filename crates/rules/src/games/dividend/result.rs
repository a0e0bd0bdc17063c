//! A deal recorded as its result: the cards each seat won, which must add up to 52 and be a
//! split that thirteen tricks from the deal's first leader can make.

use crate::error::RuleViolation;
use crate::seat::BySeat;
use crate::Events;

use super::{reachable, Dividend, Event, Recording, CARDS, PLAYERS, TRICKS};

impl Dividend {
    pub(super) fn result(&mut self, cards_won: &[u8]) -> Result<Events<Event>, RuleViolation> {
        self.deal_for("result", Recording::ResultOnly)?;
        let Ok(split) = <[u8; PLAYERS]>::try_from(cards_won) else {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: cards_won.len(),
                expected: PLAYERS,
            });
        };
        let total: u32 = cards_won.iter().map(|&c| u32::from(c)).sum();
        if total != CARDS {
            return Err(RuleViolation::CardsDoNotAddUp { total, expected: CARDS });
        }
        let leader = self.deal.as_ref().ok_or(RuleViolation::GameFinished)?.trick.leader();
        if !reachable(leader, split) {
            return Err(RuleViolation::ImpossibleResult {
                cards_won: cards_won.to_vec(),
                leader,
            });
        }
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        deal.recording = Some(Recording::ResultOnly);
        deal.tricks_done = TRICKS;
        Ok(self.finish_deal(Recording::ResultOnly, BySeat::from_vec(cards_won.to_vec())))
    }
}
