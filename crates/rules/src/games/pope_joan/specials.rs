//! The special cards: the 9♦ (Pope) and the ace, king, queen and knave of trumps, with
//! Matrimony (K Q) and Intrigue (Q J) of trumps.

use crate::cards::{Card, Rank};
use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{ChipMovement, Pool};
use crate::Events;

use super::{Event, PopeJoan, POPE};

/// The division a trump honour wins.
pub(super) fn honour_division(rank: Rank) -> Option<Pool> {
    match rank {
        Rank::Ace => Some(Pool::Ace),
        Rank::King => Some(Pool::King),
        Rank::Queen => Some(Pool::Queen),
        Rank::Jack => Some(Pool::Knave),
        _ => None,
    }
}

impl PopeJoan {
    /// Books what playing a special card wins: its division, Matrimony or Intrigue, the Pope's
    /// per-card payments (`cards_left` of every hand after the play).
    pub(super) fn play_special(
        &mut self,
        events: &mut Events<Event>,
        seat: Seat,
        card: Card,
        cards_left: &[u8],
    ) -> Result<(), RuleViolation> {
        let deal = self.deal_ref()?;
        let number = deal.number;
        let trumps = deal.trumps();
        if card == POPE {
            self.deal_mut()?.specials.push((seat, card));
            self.win_division(events, Pool::Pope, seat, "9D played")?;
            let payments = Seat::all(self.players)
                .filter(|&s| s != seat)
                .map(|s| {
                    Transfer::new(
                        Account::Seat(s),
                        Account::Seat(seat),
                        Chips::new(i64::from(cards_left[s.index()])),
                    )
                })
                .collect();
            let movement = ChipMovement::new(
                Some(number),
                format!("deal {number}: the Pope played by {seat}: one a card left from each player"),
                payments,
            );
            self.holdings.book(events, movement);
            return Ok(());
        }
        if Some(card.suit) != trumps {
            return Ok(());
        }
        let Some(pool) = honour_division(card.rank) else {
            return Ok(());
        };
        self.deal_mut()?.specials.push((seat, card));
        self.win_division(events, pool, seat, &format!("{card} played"))?;
        for (combo, high, low) in [
            (Pool::Matrimony, Rank::King, Rank::Queen),
            (Pool::Intrigue, Rank::Queen, Rank::Jack),
        ] {
            if card.rank != high && card.rank != low {
                continue;
            }
            let deal = self.deal_ref()?;
            let by = |rank: Rank| {
                deal.specials
                    .iter()
                    .find(|(_, c)| c.rank == rank && c.suit == card.suit)
                    .map(|(s, _)| *s)
            };
            let (Some(a), Some(b)) = (by(high), by(low)) else {
                continue;
            };
            if a == b {
                self.win_division(events, combo, a, "both cards played")?;
            } else if self.options.split_matrimony_and_intrigue && !deal.won.contains(&combo) {
                self.deal_mut()?.won.push(combo);
                let half = self.holdings.pool(combo).get() / 2;
                let movement = ChipMovement::new(
                    Some(number),
                    format!("deal {number}: {} split between {a} and {b}", combo.title()),
                    vec![
                        Transfer::new(Account::Pool(combo), Account::Seat(a), Chips::new(half)),
                        Transfer::new(Account::Pool(combo), Account::Seat(b), Chips::new(half)),
                    ],
                );
                self.holdings.book(events, movement);
            }
        }
        Ok(())
    }
}
