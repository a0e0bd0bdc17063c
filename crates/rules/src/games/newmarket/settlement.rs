//! Going out: a pool's stake won, the per-card payments, then the deal's line on the
//! score sheet and the next deal.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{per_card_payments, ChipMovement, Pool};
use crate::Events;

use super::{DealScore, Event, Newmarket, Recording};

impl Newmarket {
    pub(super) fn win_pool(
        &mut self,
        events: &mut Events<Event>,
        pool: Pool,
        seat: Seat,
        card: Card,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        let memo = format!("deal {number}: {} won by {seat} with {card}", pool.title());
        self.holdings.book_pool_won(events, number, memo, pool, seat);
        Ok(())
    }

    pub(super) fn go_out(
        &mut self,
        events: &mut Events<Event>,
        winner: Seat,
        cards_left: Vec<u8>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        events.push(Event::WentOut {
            seat: winner,
            cards_left: cards_left.clone(),
        });
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {winner} went out: one a card left from each player"),
            per_card_payments(winner, &cards_left, None, None),
        );
        self.holdings.book(events, movement);
        self.finish_deal(events, winner, |deal, net, chips| DealScore {
            deal: number,
            dealer: deal.dealer,
            pool_cards: deal.pool_cards.clone(),
            winner,
            cards_left,
            net,
            chips,
            recording,
        })
    }
}
