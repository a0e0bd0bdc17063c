//! The turn-up: trumps, and what the dealer wins by it (a trump honour's division, or the
//! Pope's division and payments).

use crate::cards::Card;
use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{ChipMovement, Pool};
use crate::Events;
use smallvec::smallvec;

use super::specials::honour_division;
use super::{Event, Phase, PopeJoan, Recording, POPE};

impl PopeJoan {
    pub(super) fn turn_up(&mut self, card: Card) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::TurnUp {
            return Err(self.not_expected("turn_up"));
        }
        let deal = self.deal_ref()?;
        deal.runs.check_card(card)?;
        let (dealer, number, hand_size) = (deal.dealer, deal.number, deal.hand_size);

        let deal = self.deal_mut()?;
        deal.turn_up = Some(card);
        deal.runs.set_aside(card);
        let mut events = smallvec![Event::TurnedUp {
            card,
            trumps: card.suit,
        }];
        if card == POPE {
            self.win_division(&mut events, Pool::Pope, dealer, "the Pope turned up")?;
            let each = i64::from(
                self.options
                    .pope_turn_up_cap
                    .map_or(hand_size, |cap| cap.min(hand_size)),
            );
            let payments = Seat::all(self.players)
                .filter(|&s| s != dealer)
                .map(|s| Transfer::new(Account::Seat(s), Account::Seat(dealer), Chips::new(each)))
                .collect();
            let movement = ChipMovement::new(
                Some(number),
                format!("deal {number}: the Pope turned up: {each} from each player to the dealer ({dealer})"),
                payments,
            );
            self.holdings.book(&mut events, movement);
            if self.options.pope_turn_up_wins_game {
                self.win_division(&mut events, Pool::Game, dealer, "the Pope turned up")?;
                let cards_left = vec![hand_size; self.players];
                self.end_deal(&mut events, dealer, cards_left, Recording::TurnUp)?;
            }
        } else if let Some(pool) = honour_division(card.rank) {
            self.win_division(&mut events, pool, dealer, "turned up")?;
        }
        Ok(events)
    }
}
