//! Chips paid during a deal: the hands and the stakes on Game, Matrimony and Intrigue at its start,
//! what kings and Spin collect from every player, and a pool won by showing its pair.

use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{even_hands, ChipMovement, Pool, Runs};
use crate::Events;

use super::{removed, Combination, Deal, Event, Spin};

impl Spin {
    /// Deals deal `number`: the hands, and the stakes on Game (from all but the dealer, unless
    /// `dealer_pays_game`, and the last deal's winner), Matrimony and Intrigue (the dealer's).
    pub(super) fn new_deal(&mut self, number: u16, dealer: Seat, events: &mut Events<Event>) -> Deal {
        let hands = even_hands(50, self.players, dealer);
        let exempt = self.carried.last_winner;
        events.push(Event::DealStarted {
            deal: number,
            dealer,
            hands: hands.values().to_vec(),
            exempt,
        });
        let start_chips = self.holdings.seats();
        let mut payments: Vec<Transfer> = Seat::all(self.players)
            .filter(|&s| (s != dealer || self.options.dealer_pays_game) && Some(s) != exempt)
            .map(|s| Transfer::new(Account::Seat(s), Account::Pool(Pool::Game), Chips::new(1)))
            .collect();
        payments.push(Transfer::new(
            Account::Seat(dealer),
            Account::Pool(Pool::Matrimony),
            Chips::new(2),
        ));
        payments.push(Transfer::new(
            Account::Seat(dealer),
            Account::Pool(Pool::Intrigue),
            Chips::new(1),
        ));
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: stakes on Game, Matrimony and Intrigue"),
            payments,
        );
        self.holdings.book(events, movement);
        Deal {
            number,
            dealer,
            runs: Runs::new(removed(), false, hands, dealer.left(1, self.players)),
            shown: Vec::new(),
            held: Vec::new(),
            out: None,
            start_chips,
        }
    }

    /// `each` from every other seat to `seat`.
    pub(super) fn collect(
        &mut self,
        events: &mut Events<Event>,
        seat: Seat,
        each: u8,
        why: &str,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        let payments = Seat::all(self.players)
            .filter(|&s| s != seat)
            .map(|s| Transfer::new(Account::Seat(s), Account::Seat(seat), Chips::new(i64::from(each))))
            .collect();
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {why}: {each} from each player to {seat}"),
            payments,
        );
        self.holdings.book(events, movement);
        Ok(())
    }

    pub(super) fn win_pool(
        &mut self,
        events: &mut Events<Event>,
        combination: Combination,
        seat: Seat,
    ) -> Result<(), RuleViolation> {
        let deal = self.deal_mut()?;
        deal.shown.push(combination);
        for card in combination.cards() {
            if !deal.held.iter().any(|(c, _)| *c == card) {
                deal.held.push((card, seat));
            }
        }
        let number = deal.number;
        let pool = combination.pool();
        events.push(Event::Shown { seat, combination });
        let memo = format!("deal {number}: {} shown by {seat}", pool.title());
        self.holdings.book_pool_won(events, number, memo, pool, seat);
        Ok(())
    }
}
