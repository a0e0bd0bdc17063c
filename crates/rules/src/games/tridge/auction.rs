//! The auction (Play, Play More, … pass; an earlier seat holds an equal bid) and what follows
//! when everyone passes: No Tricks, the Fixed Trick reverse auction, the In-comer of four, or a
//! pass-out with the Game Fund topped up.

use crate::Events;
use smallvec::smallvec;

use crate::bidding::{Auction, AuctionEnd, AuctionRefusal};
use crate::cards::Suit;
use crate::chips::Chips;
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};
use crate::trick::Voids;

use super::score_sheet::Unplayed;
use super::{Bid, Contract, Event, Stage, Tridge, STOCK, TRICKS};

/// A Fixed Trick bid as an auction key: higher is better.
pub(super) fn fixed_key(tricks: u8, trumps: Suit) -> u8 {
    let suit = match trumps {
        Suit::Clubs => 0,
        Suit::Spades => 1,
        Suit::Hearts => 2,
        Suit::Diamonds => 3,
    };
    (3 - tricks) * 4 + suit
}

pub(super) fn fixed_from_key(key: u8) -> (u8, Suit) {
    let suit = match key % 4 {
        0 => Suit::Clubs,
        1 => Suit::Spades,
        2 => Suit::Hearts,
        _ => Suit::Diamonds,
    };
    (3 - key / 4, suit)
}

impl Tridge {
    fn auction_error<B: std::fmt::Debug>(seat: Seat, refusal: AuctionRefusal<B>, bid: String) -> RuleViolation {
        match refusal {
            AuctionRefusal::NotYourTurn { expected } => RuleViolation::NotYourTurn { expected, got: seat },
            AuctionRefusal::TooLow { standing } => RuleViolation::BidTooLow {
                bid,
                standing: format!("{standing:?}"),
            },
            AuctionRefusal::Closed => RuleViolation::MoveNotExpected {
                kind: "bid",
                expected: Vec::new(),
            },
        }
    }

    pub(super) fn bid(&mut self, seat: Seat, bid: Bid) -> Result<Events<Event>, RuleViolation> {
        self.check_active(seat)?;
        match &mut self.deal.stage {
            Stage::Auction(auction) => {
                if bid == Bid::NoTricks {
                    return Err(RuleViolation::NoTricksBeforeAllPassed);
                }
                auction
                    .bid(seat, bid)
                    .map_err(|r| Self::auction_error(seat, r, format!("{bid:?}")))?;
                let mut events = smallvec![Event::Bid { seat, bid }];
                events.extend(self.after_auction());
                Ok(events)
            }
            Stage::AllPassed if bid == Bid::NoTricks => {
                self.deal.player = Some(seat);
                self.deal.stage = Stage::Declaring { bid };
                Ok(smallvec![Event::Bid { seat, bid }, Event::AuctionWon { seat, bid }])
            }
            Stage::AllPassed => Err(RuleViolation::InvalidContract {
                reason: "after everyone has passed only No Tricks may be bid (or the Fixed Trick auction)".into(),
            }),
            _ => Err(self.not_expected("bid")),
        }
    }

    pub(super) fn pass(&mut self, seat: Seat) -> Result<Events<Event>, RuleViolation> {
        self.check_active(seat)?;
        if self.deal.stage == Stage::AllPassed && self.options.fixed_trick {
            self.deal.stage = Stage::FixedAuction(Auction::new(self.deal.active.clone()));
        }
        match &mut self.deal.stage {
            Stage::Auction(auction) => {
                auction
                    .pass(seat)
                    .map_err(|r| Self::auction_error(seat, r, "pass".into()))?;
                let mut events = smallvec![Event::Passed { seat }];
                events.extend(self.after_auction());
                Ok(events)
            }
            Stage::FixedAuction(auction) => {
                auction
                    .pass(seat)
                    .map_err(|r| Self::auction_error(seat, r, "pass".into()))?;
                let mut events = smallvec![Event::Passed { seat }];
                match auction.end() {
                    Some(AuctionEnd::AllPassed) => events.extend(self.pass_out_deal()?),
                    Some(AuctionEnd::Won(s, key)) => {
                        let (tricks, trumps) = fixed_from_key(key);
                        events.extend(self.start_fixed(s, tricks, trumps));
                    }
                    None => {}
                }
                Ok(events)
            }
            _ => Err(self.not_expected("pass")),
        }
    }

    fn after_auction(&mut self) -> Events<Event> {
        let Stage::Auction(auction) = &self.deal.stage else {
            return Events::new();
        };
        match auction.end() {
            None => Events::new(),
            Some(AuctionEnd::AllPassed) => {
                self.deal.stage = Stage::AllPassed;
                smallvec![Event::AllPassed]
            }
            Some(AuctionEnd::Won(seat, bid)) => {
                self.deal.player = Some(seat);
                self.deal.stage = Stage::Declaring { bid };
                smallvec![Event::AuctionWon { seat, bid }]
            }
        }
    }

    pub(super) fn fixed_bid(
        &mut self,
        seat: Seat,
        tricks: u8,
        trumps: Option<Suit>,
    ) -> Result<Events<Event>, RuleViolation> {
        self.check_active(seat)?;
        let in_fixed = matches!(self.deal.stage, Stage::FixedAuction(_));
        if !(in_fixed || self.deal.stage == Stage::AllPassed && self.options.fixed_trick) {
            return Err(self.not_expected("fixed_bid"));
        }
        let trumps = trumps.ok_or(RuleViolation::TrumpsRequired)?;
        Contract::FixedTrick { tricks, trumps }.check()?;
        let mut auction = match &self.deal.stage {
            Stage::FixedAuction(a) => a.clone(),
            _ => Auction::new(self.deal.active.clone()),
        };
        let key = fixed_key(tricks, trumps);
        auction.bid(seat, key).map_err(|r| match r {
            AuctionRefusal::TooLow { standing } => {
                let (t, s) = fixed_from_key(standing);
                RuleViolation::BidTooLow {
                    bid: format!("{tricks} {trumps}"),
                    standing: format!("{t} {s}"),
                }
            }
            other => Self::auction_error(seat, other, String::new()),
        })?;
        let mut events = smallvec![Event::FixedBid { seat, tricks, trumps }];
        if let Some(AuctionEnd::Won(s, key)) = auction.end() {
            let (tricks, trumps) = fixed_from_key(key);
            events.extend(self.start_fixed(s, tricks, trumps));
        } else {
            self.deal.stage = Stage::FixedAuction(auction);
        }
        Ok(events)
    }

    fn start_fixed(&mut self, seat: Seat, tricks: u8, trumps: Suit) -> Events<Event> {
        let contract = Contract::FixedTrick { tricks, trumps };
        self.deal.player = Some(seat);
        self.deal.contract = Some(contract);
        self.deal.stage = Stage::Playing;
        smallvec![Event::Declared { seat, contract, trumps }]
    }

    /// The dealer of four comes in after everyone passed: pays a quarter of the Game Fund
    /// (rounded up; over the cap it goes to a Reserve) and takes 9 of the 13 stock cards.
    pub(super) fn come_in(&mut self, seat: Seat) -> Result<Events<Event>, RuleViolation> {
        let quarter = Chips::new((self.pots.game.get() + 3) / 4);
        let d = &mut self.deal;
        d.in_comer = true;
        d.player = Some(seat);
        d.active.push(seat);
        d.tricks = BySeat::filled(self.players, 0);
        d.voids = Voids::new(self.players);
        d.stock_left = STOCK - TRICKS;
        d.stage = Stage::Declaring { bid: Bid::Play };
        let mut b = self.booker();
        b.pay_game_fund(
            &format!("{seat} comes in: a quarter of the Game Fund"),
            &[(seat, quarter)],
        )?;
        let mut events = smallvec![Event::CameIn { seat, paid: quarter }];
        events.extend(b.events);
        Ok(events)
    }

    pub(super) fn in_come(&mut self, seat: Seat) -> Result<Events<Event>, RuleViolation> {
        if !(self.deal.stage == Stage::AllPassed && self.players == 4) {
            return Err(self.not_expected("in_come"));
        }
        seat.check(self.players)?;
        if seat != self.deal.dealer {
            return Err(RuleViolation::NotYourTurn {
                expected: self.deal.dealer,
                got: seat,
            });
        }
        self.come_in(seat)
    }

    /// The In-comer gives up (No Play): the quarter stays in the fund, the next dealer deals.
    pub(super) fn give_up(&mut self, seat: Seat) -> Result<Events<Event>, RuleViolation> {
        if !(self.deal.in_comer && matches!(self.deal.stage, Stage::Declaring { .. })) {
            return Err(self.not_expected("give_up"));
        }
        self.check_turn(seat)?;
        let number = self.deal.number;
        self.sheet.push(self.unplayed_line(Unplayed::PassedOut));
        let mut events = smallvec![Event::GaveUp { seat }, Event::PassedOut { deal: number }];
        events.extend(self.next_deal()?);
        Ok(events)
    }

    pub(super) fn pass_out(&mut self) -> Result<Events<Event>, RuleViolation> {
        let ok = match &self.deal.stage {
            Stage::Auction(_) => self.deal.is_fresh(),
            Stage::AllPassed => true,
            _ => false,
        };
        if !ok {
            return Err(self.not_expected("pass_out"));
        }
        self.pass_out_deal()
    }

    /// Everyone passed and nobody plays: everyone adds to the fund, unless a raised fund or a
    /// Reserve waits.
    fn pass_out_deal(&mut self) -> Result<Events<Event>, RuleViolation> {
        let number = self.deal.number;
        let mut events = smallvec![Event::PassedOut { deal: number }];
        let players = self.players;
        let stake = Chips::new(self.options.fund_stake);
        if !self.pots.raised && self.pots.reserves.is_empty() {
            let next = self.next_number()?;
            let mut b = self.booker();
            b.deal = next;
            let payments: Vec<(Seat, Chips)> = Seat::all(players).map(|s| (s, stake)).collect();
            b.pay_game_fund(
                &format!("all passed in deal {number}: the Game Fund topped up"),
                &payments,
            )?;
            events.extend(b.events);
        }
        self.sheet.push(self.unplayed_line(Unplayed::PassedOut));
        events.extend(self.next_deal()?);
        Ok(events)
    }
}
