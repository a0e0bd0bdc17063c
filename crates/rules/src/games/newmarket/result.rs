//! A whole deal entered at once: checked completely, then settled as card-by-card play would.

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Events;

use super::{pool_of, winning_card, Event, Newmarket, PoolWinner, PoolWinners, Recording};

impl Newmarket {
    pub(super) fn result(
        &mut self,
        out: Seat,
        cards_left: &[u8],
        pool_winners: &PoolWinners,
    ) -> Result<Events<Event>, RuleViolation> {
        self.expect("result")?;
        let pool_winners = &self.per_pool(pool_winners)?;
        let players = self.players;
        for s in std::iter::once(out).chain(pool_winners.iter().flatten().copied()) {
            s.check(players)?;
        }
        if cards_left.len() != players {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: cards_left.len(),
                expected: players,
            });
        }
        if pool_winners.len() != 4 {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: pool_winners.len(),
                expected: 4,
            });
        }
        self.check_cards_left(out, cards_left)?;
        let deal = self.deal_ref()?;
        for s in Seat::all(players) {
            let won = pool_winners.iter().filter(|w| **w == Some(s)).count();
            let dealt = deal.runs.dealt(s);
            if won > usize::from(dealt - cards_left[s.index()]) {
                return Err(RuleViolation::MoreCardsThanDealt { seat: s, dealt });
            }
        }

        let mut events = Events::new();
        let wins: Vec<(Card, Seat)> = deal
            .pool_cards
            .iter()
            .zip(pool_winners)
            .filter_map(|(&p, w)| Some((p, (*w)?)))
            .collect();
        for (pool_card, seat) in wins {
            if let (Some(pool), Some(card)) = (pool_of(pool_card.rank), winning_card(pool_card)) {
                self.win_pool(&mut events, pool, seat, card)?;
            }
        }
        self.go_out(&mut events, out, cards_left.to_vec(), Recording::ResultOnly)?;
        Ok(events)
    }

    /// The winner of each pool card in layout order (None: not won), from either form.
    fn per_pool(&self, pool_winners: &PoolWinners) -> Result<Vec<Option<Seat>>, RuleViolation> {
        let named = match pool_winners {
            PoolWinners::PerPool(per_pool) => return Ok(per_pool.clone()),
            PoolWinners::Named(named) => named,
        };
        let pool_cards = &self.deal_ref()?.pool_cards;
        let mut per_pool = vec![None; pool_cards.len()];
        for &PoolWinner { pool_card, seat } in named {
            let at = pool_cards
                .iter()
                .position(|&c| c == pool_card)
                .ok_or(RuleViolation::NotAPoolCard(pool_card))?;
            if per_pool[at].replace(seat).is_some() {
                return Err(RuleViolation::InvalidResult(format!(
                    "the pool card {pool_card} is given a winner twice"
                )));
            }
        }
        Ok(per_pool)
    }
}
