//! A deal recorded as its result: each seat's nomination and tricks won, checked against the hand
//! size and the hook rule, and scored like a deal played card by card.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::BySeat;
use crate::Events;

use super::{Deal, Event, NominationWhist, Recording, Trumps};

impl NominationWhist {
    pub(super) fn result(
        &mut self,
        nominations: &[u8],
        tricks: &[u8],
        turn_up: Option<Card>,
    ) -> Result<Events<Event>, RuleViolation> {
        let fresh = self.deal.as_ref().is_some_and(Deal::is_fresh);
        if !fresh {
            return Err(self.not_expected("result"));
        }
        let Some(deal) = self.deal.as_ref() else {
            return Err(RuleViolation::GameFinished);
        };
        let players = self.players;
        for got in [nominations.len(), tricks.len()] {
            if got != players {
                return Err(RuleViolation::WrongNumberOfEntries { got, expected: players });
            }
        }
        if let Some(&n) = nominations.iter().find(|&&n| n > deal.hand_size) {
            return Err(RuleViolation::NominationOutOfRange {
                tricks: n,
                hand_size: deal.hand_size,
            });
        }
        let nominated: u32 = nominations.iter().map(|&n| u32::from(n)).sum();
        if self.hook_applies(deal.hand_size) && nominated == u32::from(deal.hand_size) {
            return Err(RuleViolation::HookRule {
                seat: deal.dealer,
                forbidden: nominations[deal.dealer.index()],
            });
        }
        let total: u32 = tricks.iter().map(|&t| u32::from(t)).sum();
        if total != u32::from(deal.hand_size) {
            return Err(RuleViolation::TricksDoNotAddUp {
                total,
                expected: u32::from(deal.hand_size),
            });
        }
        if turn_up.is_some() && deal.trumps.is_some() {
            return Err(RuleViolation::MoveNotExpected {
                kind: "result with turn_up",
                expected: self.legal_kinds(),
            });
        }

        let Some(deal) = self.deal.as_mut() else {
            return Err(RuleViolation::GameFinished);
        };
        if let Some(card) = turn_up {
            deal.turn_up = Some(card);
            deal.trumps = Some(Trumps::of(card.suit));
        }
        deal.nominations = BySeat::from_vec(nominations.iter().map(|&n| Some(n)).collect());
        deal.tricks_won = BySeat::from_vec(tricks.to_vec());
        deal.tricks_done = deal.hand_size;
        Ok(self.finish_deal(Recording::ResultOnly))
    }
}
