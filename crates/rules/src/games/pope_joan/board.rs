//! The staking board: its divisions and their fixed stakes, dressing it at the start of each
//! deal, and winning a division (its whole balance, at most once a deal; otherwise it carries
//! over).

use crate::cards::CardSet;
use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};
use crate::stops::{pour, ChipMovement, Pool, Runs};
use crate::Events;

use super::{deal_sizes, Deal, Dressing, Event, PopeJoan, EIGHT_OF_DIAMONDS};

pub(super) const EIGHT_DIVISIONS: &[Pool] = &[
    Pool::Pope,
    Pool::Matrimony,
    Pool::Intrigue,
    Pool::Ace,
    Pool::King,
    Pool::Queen,
    Pool::Knave,
    Pool::Game,
];

pub(super) const FIVE_DIVISIONS: &[Pool] = &[Pool::Pope, Pool::Matrimony, Pool::Intrigue, Pool::Ace, Pool::Game];

/// The fixed stake of a division; Game takes the rest.
pub(super) fn fixed_stake(pool: Pool) -> i64 {
    match pool {
        Pool::Pope => 6,
        Pool::Matrimony | Pool::Intrigue => 2,
        Pool::Ace | Pool::King | Pool::Queen | Pool::Knave => 1,
        _ => 0,
    }
}

impl PopeJoan {
    /// The divisions of this table's board.
    pub fn divisions(&self) -> &'static [Pool] {
        if self.options.five_divisions {
            FIVE_DIVISIONS
        } else {
            EIGHT_DIVISIONS
        }
    }

    pub(super) fn has_division(&self, pool: Pool) -> bool {
        self.divisions().contains(&pool)
    }

    /// Deals deal `number` dealt by `dealer` and dresses the board.
    pub(super) fn new_deal(&mut self, number: u16, dealer: Seat, events: &mut Events<Event>) -> Deal {
        let (hand_size, spare) = deal_sizes(self.players);
        events.push(Event::DealStarted {
            deal: number,
            dealer,
            hand_size,
            spare_hand: spare,
        });
        let start_chips = self.holdings.seats();
        let dressing = self.dressing(number, dealer);
        self.holdings.book(events, dressing);
        let removed: CardSet = [EIGHT_OF_DIAMONDS].into_iter().collect();
        Deal {
            number,
            dealer,
            hand_size,
            turn_up: None,
            runs: Runs::new(
                removed,
                true,
                BySeat::filled(self.players, hand_size),
                dealer.left(1, self.players),
            ),
            specials: Vec::new(),
            won: Vec::new(),
            out: None,
            start_chips,
        }
    }

    /// The dressing of deal `number` dealt by `dealer`.
    pub(super) fn dressing(&self, number: u16, dealer: Seat) -> Option<ChipMovement> {
        let memo = format!("deal {number}: the board is dressed");
        if self.options.losers_pay_board {
            let payments = self.spread(Account::Seat(dealer), 1, &mut Vec::new());
            return ChipMovement::new(Some(number), memo, payments);
        }
        let total = i64::from(self.fixed.board_total);
        let payers: Vec<(Account, i64)> = match self.options.dressing {
            Dressing::DealerAlone => vec![(Account::Seat(dealer), total)],
            Dressing::AllPlayers => {
                let units = self.players as i64 + 1;
                let unit = (total + units - 1) / units;
                Seat::all(self.players)
                    .map(|s| (Account::Seat(s), if s == dealer { 2 * unit } else { unit }))
                    .collect()
            }
        };
        let paid: i64 = payers.iter().map(|(_, a)| a).sum();
        let fixed: i64 = self.divisions().iter().map(|&p| fixed_stake(p)).sum();
        let receivers: Vec<(Account, i64)> = self
            .divisions()
            .iter()
            .map(|&p| {
                (
                    Account::Pool(p),
                    if p == Pool::Game { paid - fixed } else { fixed_stake(p) },
                )
            })
            .collect();
        ChipMovement::new(Some(number), memo, pour(&payers, &receivers))
    }

    /// Payments of `amount` chips from `payer` onto the board, a chip at a time on the
    /// division holding least (ties in board order). `placed` keeps what earlier payments of
    /// the same movement put down.
    pub(super) fn spread(&self, payer: Account, amount: i64, placed: &mut Vec<(Pool, i64)>) -> Vec<Transfer> {
        let mut mine: Vec<(Pool, i64)> = Vec::new();
        for _ in 0..amount.max(0) {
            let balance = |p: Pool, placed: &[(Pool, i64)], mine: &[(Pool, i64)]| {
                self.holdings.pool(p).get()
                    + placed
                        .iter()
                        .chain(mine)
                        .filter(|(q, _)| *q == p)
                        .map(|(_, a)| a)
                        .sum::<i64>()
            };
            let Some(&target) = self.divisions().iter().min_by_key(|&&p| balance(p, placed, &mine)) else {
                break;
            };
            match mine.iter_mut().find(|(p, _)| *p == target) {
                Some((_, a)) => *a += 1,
                None => mine.push((target, 1)),
            }
        }
        placed.extend(mine.iter().copied());
        mine.into_iter()
            .map(|(pool, a)| Transfer::new(payer, Account::Pool(pool), Chips::new(a)))
            .collect()
    }

    /// Takes a division's whole balance for `seat`, once a deal.
    pub(super) fn win_division(
        &mut self,
        events: &mut Events<Event>,
        pool: Pool,
        seat: Seat,
        why: &str,
    ) -> Result<(), RuleViolation> {
        if !self.has_division(pool) {
            return Ok(());
        }
        let deal = self.deal_mut()?;
        if deal.won.contains(&pool) {
            return Ok(());
        }
        deal.won.push(pool);
        let number = deal.number;
        let memo = format!("deal {number}: {} won by {seat} ({why})", pool.title());
        self.holdings.book_pool_won(events, number, memo, pool, seat);
        Ok(())
    }
}
