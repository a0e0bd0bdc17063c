//! Going out: Game and the per-card payments (to the winner, or onto the board), then the
//! deal's line on the score sheet and the next deal.

use crate::chips::Account;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{per_card_payments, ChipMovement, Pool};
use crate::Events;

use super::{DealScore, Event, PopeJoan, Recording, POPE};

impl PopeJoan {
    /// Books going out: Game, and the per-card payments (to the winner, or onto the board).
    pub(super) fn go_out(
        &mut self,
        events: &mut Events<Event>,
        winner: Seat,
        exempt: Option<Seat>,
        cards_left: Vec<u8>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        events.push(Event::WentOut {
            seat: winner,
            cards_left: cards_left.clone(),
            exempt,
        });
        self.win_division(events, Pool::Game, winner, "first out")?;
        let losers = Seat::all(self.players).filter(|&s| s != winner && Some(s) != exempt);
        let movement = if self.options.losers_pay_board {
            let mut placed = Vec::new();
            let payments = losers
                .flat_map(|s| self.spread(Account::Seat(s), i64::from(cards_left[s.index()]), &mut placed))
                .collect();
            ChipMovement::new(
                Some(number),
                format!("deal {number}: one a card left onto the board"),
                payments,
            )
        } else {
            let payments = per_card_payments(winner, &cards_left, exempt, None);
            ChipMovement::new(
                Some(number),
                format!("deal {number}: {winner} went out: one a card left from each player"),
                payments,
            )
        };
        self.holdings.book(events, movement);
        self.end_deal(events, winner, cards_left, recording)
    }

    /// Ends the deal won by `winner`, with its line on the score sheet.
    pub(super) fn end_deal(
        &mut self,
        events: &mut Events<Event>,
        winner: Seat,
        cards_left: Vec<u8>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        self.finish_deal(events, winner, |deal, net, chips| DealScore {
            deal: deal.number,
            dealer: deal.dealer,
            turn_up: deal.turn_up.unwrap_or(POPE),
            winner,
            cards_left,
            net,
            chips,
            missed_plays: deal.runs.missed_plays().to_vec(),
            recording,
        })
    }
}
