//! The exchange with the stock: the Player first (for the contracts that allow it), the defence
//! settled between Centre and Rear, the 1st Defender up to 8 cards, the 2nd Defender the rest;
//! then the dealer's count of discards and stock, which voids the deal when it is not 13.

use crate::Events;
use smallvec::smallvec;

use crate::error::RuleViolation;
use crate::seat::Seat;

use super::deal::ExchangeStep;
use super::score_sheet::Unplayed;
use super::{Event, Stage, Tridge, STOCK, TRICKS};

impl Tridge {
    pub(super) fn exchange(&mut self, seat: Seat, cards: u8) -> Result<Events<Event>, RuleViolation> {
        if let Stage::InComerExchange(k) = self.deal.stage {
            self.check_turn(seat)?;
            let max = self.deal.stock_left.min(1);
            if cards > max {
                return Err(RuleViolation::ExchangeCount { seat, cards, max });
            }
            let d = &mut self.deal;
            d.stock_left -= cards;
            d.stage = if k + 1 < 4 {
                Stage::InComerExchange(k + 1)
            } else {
                Stage::Playing
            };
            return Ok(smallvec![Event::Exchanged {
                seat,
                cards,
                stock_left: d.stock_left,
            }]);
        }
        let Stage::Exchange(step) = self.deal.stage else {
            return Err(self.not_expected("exchange"));
        };
        if step == ExchangeStep::Defence {
            return Err(self.not_expected("exchange"));
        }
        self.check_turn(seat)?;
        let left = self.deal.stock_left;
        let max = match step {
            ExchangeStep::First => left.min(8),
            _ => left.min(TRICKS),
        };
        if cards > max {
            return Err(RuleViolation::ExchangeCount { seat, cards, max });
        }
        let d = &mut self.deal;
        d.stock_left -= cards;
        d.stage = match step {
            ExchangeStep::Player => Stage::Exchange(ExchangeStep::Defence),
            ExchangeStep::First if d.stock_left > 0 => Stage::Exchange(ExchangeStep::Second),
            _ => Stage::Playing,
        };
        Ok(smallvec![Event::Exchanged {
            seat,
            cards,
            stock_left: d.stock_left,
        }])
    }

    pub(super) fn defence(&mut self, first: Seat) -> Result<Events<Event>, RuleViolation> {
        if self.deal.stage != Stage::Exchange(ExchangeStep::Defence) {
            return Err(self.not_expected("defence"));
        }
        self.check_active(first)?;
        let (centre, rear) = self.deal.centre_and_rear().ok_or(RuleViolation::GameFinished)?;
        if first != centre && first != rear {
            return Err(RuleViolation::NotADefender { seat: first });
        }
        let second = if first == centre { rear } else { centre };
        let d = &mut self.deal;
        d.first_defender = Some(first);
        d.stage = if d.stock_left > 0 {
            Stage::Exchange(ExchangeStep::First)
        } else {
            Stage::Playing
        };
        Ok(smallvec![Event::DefenceSettled {
            first_defender: first,
            second_defender: second,
        }])
    }

    pub(super) fn count_stock(&mut self, discards: u8, stock: u8) -> Result<Events<Event>, RuleViolation> {
        let d = &self.deal;
        if d.stage != Stage::Playing || d.tricks_done > 0 || !d.trick.is_empty() {
            return Err(self.not_expected("count_stock"));
        }
        if d.stock_counted {
            return Err(RuleViolation::StockAlreadyCounted);
        }
        let mut events = smallvec![Event::StockCounted { discards, stock }];
        if u16::from(discards) + u16::from(stock) != u16::from(STOCK) {
            let number = d.number;
            events.push(Event::DealVoid { deal: number });
            self.sheet.push(self.unplayed_line(Unplayed::Void));
            events.extend(self.next_deal()?);
        } else {
            self.deal.stock_counted = true;
        }
        Ok(events)
    }
}
