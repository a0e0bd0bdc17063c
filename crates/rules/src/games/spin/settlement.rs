//! Going out: Game and the per-card payments (double from Spin's holder), then the deal's line on the
//! score sheet and the next deal.

use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{per_card_payments, ChipMovement, Pool};
use crate::Events;

use super::{DealScore, Event, Recording, Spin};

impl Spin {
    pub(super) fn go_out(
        &mut self,
        events: &mut Events<Event>,
        winner: Seat,
        cards_left: Vec<u8>,
        spin_holder: Option<Seat>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        events.push(Event::WentOut {
            seat: winner,
            cards_left: cards_left.clone(),
            spin_holder,
        });
        let game = self.holdings.pool(Pool::Game).get();
        let mut payments = vec![Transfer::new(
            Account::Pool(Pool::Game),
            Account::Seat(winner),
            Chips::new(game),
        )];
        payments.extend(per_card_payments(winner, &cards_left, None, spin_holder));
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {winner} went out: Game and one a card left from each player"),
            payments,
        );
        self.holdings.book(events, movement);
        // The next deal, started as this one finishes, exempts its winner from the Game stake.
        self.carried.last_winner = Some(winner);
        self.finish_deal(events, winner, |deal, net, chips| DealScore {
            deal: number,
            dealer: deal.dealer,
            winner,
            cards_left,
            spin_holder,
            net,
            chips,
            recording,
        })
    }
}
