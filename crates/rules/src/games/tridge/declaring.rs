//! The Player's declaration once the auction is won: a contract that honours the winning bid
//! (or the In-comer's), and the exchange it leads to.

use crate::Events;
use smallvec::smallvec;

use crate::error::RuleViolation;
use crate::seat::Seat;

use super::deal::ExchangeStep;
use super::{Bid, Contract, Event, Stage, Tridge};

impl Tridge {
    /// The In-comer's contracts: Play (any suit), All Tricks, No Tricks.
    pub(super) fn check_in_comer_contract(contract: Contract) -> Result<(), RuleViolation> {
        match contract {
            Contract::Play { .. } | Contract::PlayDiamonds | Contract::NoTricks { .. } | Contract::AllTricks { .. } => {
                Ok(())
            }
            _ => Err(RuleViolation::InvalidContract {
                reason: "the In-comer may play Play, All Tricks or No Tricks only".into(),
            }),
        }
    }

    pub(super) fn declare(&mut self, seat: Seat, contract: Contract) -> Result<Events<Event>, RuleViolation> {
        let Stage::Declaring { bid } = self.deal.stage else {
            return Err(self.not_expected("declare"));
        };
        self.check_turn(seat)?;
        contract.check()?;
        if self.deal.in_comer {
            Self::check_in_comer_contract(contract)?;
            self.deal.contract = Some(contract);
            self.deal.stage = Stage::InComerExchange(0);
            return Ok(smallvec![Event::Declared {
                seat,
                contract,
                trumps: contract.trumps(),
            }]);
        }
        let Some(level) = contract.level() else {
            return Err(RuleViolation::InvalidContract {
                reason: "Fixed Trick is bid with `fixed_bid` after everyone has passed".into(),
            });
        };
        if level == Bid::NoTricks && bid != Bid::NoTricks {
            return Err(RuleViolation::NoTricksBeforeAllPassed);
        }
        if bid == Bid::NoTricks && level != Bid::NoTricks {
            return Err(RuleViolation::InvalidContract {
                reason: "the No Tricks bidder must declare No Tricks".into(),
            });
        }
        if level < bid {
            return Err(RuleViolation::ContractBelowBid {
                contract: format!("{level:?}"),
                bid: format!("{bid:?}"),
            });
        }
        let trumps = contract.trumps();
        self.deal.contract = Some(contract);
        self.deal.stage = Stage::Exchange(if contract.player_exchanges() {
            ExchangeStep::Player
        } else {
            ExchangeStep::Defence
        });
        Ok(smallvec![Event::Declared { seat, contract, trumps }])
    }
}
