//! The layout: four pool cards (an ace, king, queen and knave of four suits), each seat's stake
//! of one and the dealer's extra, and the card that wins each pool.

use crate::cards::{Card, CardSet, Rank};
use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::stops::{ChipMovement, Pool};
use crate::Events;
use smallvec::smallvec;

use super::{Deal, Event, Newmarket, Phase};

/// The pool ranks, in the order pools are listed.
pub(super) const POOL_RANKS: [Rank; 4] = [Rank::Ace, Rank::King, Rank::Queen, Rank::Jack];

/// The pools, in the order of `POOL_RANKS`.
pub(super) const POOLS: [Pool; 4] = [Pool::PoolAce, Pool::PoolKing, Pool::PoolQueen, Pool::PoolKnave];

pub(super) fn pool_of(rank: Rank) -> Option<Pool> {
    match rank {
        Rank::Ace => Some(Pool::PoolAce),
        Rank::King => Some(Pool::PoolKing),
        Rank::Queen => Some(Pool::PoolQueen),
        Rank::Jack => Some(Pool::PoolKnave),
        _ => None,
    }
}

/// The card that wins a pool card's stake: the one just below it, the ace counting high.
pub fn winning_card(pool_card: Card) -> Option<Card> {
    let rank = match pool_card.rank {
        Rank::Ace => Rank::King,
        Rank::King => Rank::Queen,
        Rank::Queen => Rank::Jack,
        Rank::Jack => Rank::Ten,
        _ => return None,
    };
    Some(Card::new(rank, pool_card.suit))
}

impl Newmarket {
    pub(super) fn layout(
        &mut self,
        pool_cards: &[Card],
        stakes: &[Card],
        extra_on: Option<Card>,
    ) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::Layout {
            return Err(self.not_expected("layout"));
        }
        let deal = self.deal_ref()?;
        let (number, dealer) = (deal.number, deal.dealer);
        let bad = RuleViolation::InvalidLayout;
        let ranks_ok = pool_cards.len() == 4
            && POOL_RANKS
                .iter()
                .all(|r| pool_cards.iter().filter(|c| c.rank == *r).count() == 1);
        let suits: CardSet = pool_cards.iter().map(|c| Card::new(Rank::Two, c.suit)).collect();
        if !ranks_ok || suits.len() != 4 {
            return Err(bad(
                "the pool cards are an ace, a king, a queen and a knave, of four different suits".into(),
            ));
        }
        if stakes.len() != self.players {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: stakes.len(),
                expected: self.players,
            });
        }
        let pool_for = |card: Card| {
            if pool_cards.contains(&card) {
                pool_of(card.rank).ok_or(RuleViolation::NotAPoolCard(card))
            } else {
                Err(RuleViolation::NotAPoolCard(card))
            }
        };
        let mut payments = Vec::new();
        for (seat, &card) in Seat::all(self.players).zip(stakes) {
            payments.push(Transfer::new(
                Account::Seat(seat),
                Account::Pool(pool_for(card)?),
                Chips::new(1),
            ));
        }
        let extra = i64::from(self.options.dealer_extra);
        let covered = |pool: Pool, payments: &[Transfer]| {
            self.holdings.pool(pool).get()
                + payments
                    .iter()
                    .filter(|p| p.to == Account::Pool(pool))
                    .map(|p| p.amount.get())
                    .sum::<i64>()
        };
        let extra_pool = match extra_on {
            Some(card) => pool_for(card)?,
            None => POOL_RANKS
                .iter()
                .filter_map(|&r| pool_of(r))
                .min_by_key(|&p| covered(p, &payments))
                .ok_or_else(|| bad("no pool".into()))?,
        };
        payments.push(Transfer::new(
            Account::Seat(dealer),
            Account::Pool(extra_pool),
            Chips::new(extra),
        ));
        if let Some(empty) = POOL_RANKS
            .iter()
            .filter_map(|&r| pool_of(r))
            .find(|&p| covered(p, &payments) == 0)
        {
            return Err(bad(format!(
                "{} is not covered: all four pools need a stake",
                empty.title()
            )));
        }

        let mut events = smallvec![Event::LaidOut {
            pool_cards: pool_cards.to_vec(),
        }];
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: stakes on the pool cards"),
            payments,
        );
        self.holdings.book(&mut events, movement);
        if let Some(deal) = self.deal.as_mut() {
            deal.pool_cards = pool_cards.to_vec();
        }
        Ok(events)
    }

    /// The pool a card wins when played in this deal.
    pub(super) fn pool_won_by(deal: &Deal, card: Card) -> Option<Pool> {
        deal.pool_cards
            .iter()
            .find(|&&p| winning_card(p) == Some(card))
            .and_then(|p| pool_of(p.rank))
    }
}
