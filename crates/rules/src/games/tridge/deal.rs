//! Where a deal stands: its stage, who is active and whose turn it is, and the start of the next
//! deal. The state a move needs is bounded by the current deal.

use crate::Events;
use serde::{Deserialize, Serialize};
use smallvec::smallvec;

use crate::bidding::Auction;
use crate::cards::{Card, CardSet};
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};
use crate::trick::{Revoke, Trick, Voids};

use super::ranking::FollowSuit;
use super::{Bid, Contract, Event, Phase, Tridge, STOCK};

/// Who exchanges next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum ExchangeStep {
    Player,
    Defence,
    First,
    Second,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Stage {
    Auction(Auction<Bid>),
    AllPassed,
    /// Bids are keys: higher is better (fewer tricks, then ♦ > ♥ > ♠ > ♣).
    FixedAuction(Auction<u8>),
    Declaring {
        bid: Bid,
    },
    Exchange(ExchangeStep),
    /// The In-comer's one-card exchanges: the index into the order (In-comer first, clockwise).
    InComerExchange(u8),
    Playing,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Deal {
    pub(super) number: u16,
    pub(super) dealer: Seat,
    /// The three who play, in order from the dealer's left.
    pub(super) active: Vec<Seat>,
    pub(super) stage: Stage,
    pub(super) player: Option<Seat>,
    pub(super) contract: Option<Contract>,
    pub(super) first_defender: Option<Seat>,
    pub(super) stock_left: u8,
    pub(super) tricks: BySeat<u8>,
    pub(super) tricks_done: u8,
    pub(super) trick: Trick<Card>,
    pub(super) played: CardSet,
    pub(super) voids: Voids,
    pub(super) revokes: Vec<Revoke<FollowSuit>>,
    /// The cards the Player played, for honours.
    pub(super) player_cards: Vec<Card>,
    pub(super) may_stop: bool,
    pub(super) all_tricks_undertaken: bool,
    /// The dealer of four came in after everyone passed and plays as a fourth.
    #[serde(default)]
    pub(super) in_comer: bool,
    /// The dealer's count of discards and stock was recorded: it is asked once a deal.
    /// (Absent from states stored before the count was asked once: not counted yet.)
    #[serde(default)]
    pub(super) stock_counted: bool,
}

impl Deal {
    /// Deal `number` (from 1) at a table of `players` whose first dealer was `first_dealer`.
    pub(super) fn new(number: u16, first_dealer: Seat, players: usize) -> Deal {
        let dealer = first_dealer.left(usize::from(number - 1), players);
        // With three, the dealer plays last; with four, the dealer sits out.
        let active: Vec<Seat> = (1..=3).map(|i| dealer.left(i, players)).collect();
        Deal {
            number,
            dealer,
            stage: Stage::Auction(Auction::new(active.clone())),
            trick: Trick::new(active[0]),
            active,
            player: None,
            contract: None,
            first_defender: None,
            stock_left: STOCK,
            tricks: BySeat::filled(players, 0),
            tricks_done: 0,
            played: CardSet::default(),
            voids: Voids::new(players),
            revokes: Vec::new(),
            player_cards: Vec::new(),
            may_stop: false,
            all_tricks_undertaken: false,
            in_comer: false,
            stock_counted: false,
        }
    }

    pub(super) fn lead(&self) -> Seat {
        self.active[0]
    }

    pub(super) fn is_fresh(&self) -> bool {
        matches!(&self.stage, Stage::Auction(a) if a.is_fresh())
    }

    fn defenders(&self) -> Vec<Seat> {
        self.active
            .iter()
            .copied()
            .filter(|s| Some(*s) != self.player)
            .collect()
    }

    /// Centre (the Player's left among the active seats), then Rear.
    pub(super) fn centre_and_rear(&self) -> Option<(Seat, Seat)> {
        let player = self.player?;
        let i = self.active.iter().position(|s| *s == player)?;
        Some((self.active[(i + 1) % 3], self.active[(i + 2) % 3]))
    }

    fn second_defender(&self) -> Option<Seat> {
        let first = self.first_defender?;
        self.defenders().into_iter().find(|s| *s != first)
    }

    fn next_to_play(&self) -> Seat {
        let i = self.active.iter().position(|s| *s == self.trick.leader()).unwrap_or(0);
        self.active[(i + self.trick.plays().len()) % self.active.len()]
    }
}

impl Tridge {
    pub(super) fn sitting_out(&self) -> Option<Seat> {
        (self.players == 4 && !self.deal.in_comer).then_some(self.deal.dealer)
    }

    pub(super) fn phase(&self) -> Phase {
        if self.finished {
            return Phase::Finished;
        }
        match &self.deal.stage {
            Stage::Auction(_) => Phase::Auction,
            Stage::AllPassed => Phase::AllPassed,
            Stage::FixedAuction(_) => Phase::FixedAuction,
            Stage::Declaring { .. } => Phase::Declaring,
            Stage::Exchange(ExchangeStep::Player) => Phase::PlayerExchange,
            Stage::Exchange(ExchangeStep::Defence) => Phase::Defence,
            Stage::Exchange(ExchangeStep::First) => Phase::FirstDefenderExchange,
            Stage::Exchange(ExchangeStep::Second) => Phase::SecondDefenderExchange,
            Stage::InComerExchange(_) => Phase::InComerExchange,
            Stage::Playing => Phase::Playing,
        }
    }

    pub(super) fn legal_kinds(&self) -> Vec<&'static str> {
        let d = &self.deal;
        match self.phase() {
            Phase::Finished => vec![],
            // Pass out is offered once everyone has passed (the rules' "all pass"), where No
            // Tricks, the Fixed Trick and the In-comer are offered beside it; a fresh auction's
            // `pass_out` is still accepted (logs recorded it so), only no longer offered.
            Phase::Auction if d.is_fresh() => vec!["bid", "pass", "result", "settle_widows_fund"],
            Phase::Auction => vec!["bid", "pass"],
            Phase::AllPassed => {
                let mut moves = vec!["bid"];
                if self.options.fixed_trick {
                    moves.extend(["fixed_bid", "pass"]);
                }
                if self.players == 4 {
                    moves.push("in_come");
                }
                moves.push("pass_out");
                moves
            }
            Phase::FixedAuction => vec!["fixed_bid", "pass"],
            Phase::Declaring if d.in_comer => vec!["declare", "give_up"],
            Phase::Declaring => vec!["declare"],
            Phase::PlayerExchange
            | Phase::FirstDefenderExchange
            | Phase::SecondDefenderExchange
            | Phase::InComerExchange => vec!["exchange"],
            Phase::Defence => vec!["defence"],
            Phase::Playing if d.may_stop => vec!["play", "stop"],
            Phase::Playing if d.tricks_done == 0 && d.trick.is_empty() && !d.stock_counted => {
                vec!["play", "count_stock"]
            }
            Phase::Playing => vec!["play"],
        }
    }

    pub(super) fn not_expected(&self, kind: &'static str) -> RuleViolation {
        if self.finished {
            RuleViolation::GameFinished
        } else {
            RuleViolation::MoveNotExpected {
                kind,
                expected: self.legal_kinds(),
            }
        }
    }

    pub(super) fn to_act(&self) -> Option<Seat> {
        let d = &self.deal;
        match &d.stage {
            _ if self.finished => None,
            Stage::Auction(a) => a.to_speak(),
            Stage::FixedAuction(a) => a.to_speak(),
            Stage::AllPassed => None,
            Stage::Declaring { .. } | Stage::Exchange(ExchangeStep::Player) => d.player,
            Stage::Exchange(ExchangeStep::Defence) => d.centre_and_rear().map(|(c, _)| c),
            Stage::Exchange(ExchangeStep::First) => d.first_defender,
            Stage::Exchange(ExchangeStep::Second) => d.second_defender(),
            Stage::InComerExchange(k) => Some(d.dealer.left(usize::from(*k), self.players)),
            Stage::Playing => Some(d.next_to_play()),
        }
    }

    /// Refuses a seat outside the table or sitting out this deal.
    pub(super) fn check_active(&self, seat: Seat) -> Result<(), RuleViolation> {
        seat.check(self.players)?;
        if self.sitting_out() == Some(seat) {
            return Err(RuleViolation::SeatSittingOut { seat });
        }
        Ok(())
    }

    pub(super) fn check_turn(&self, seat: Seat) -> Result<(), RuleViolation> {
        self.check_active(seat)?;
        match self.to_act() {
            Some(expected) if expected != seat => Err(RuleViolation::NotYourTurn { expected, got: seat }),
            _ => Ok(()),
        }
    }

    pub(super) fn next_deal(&mut self) -> Result<Events<Event>, RuleViolation> {
        self.deal = Deal::new(self.next_number()?, Seat::new(self.options.first_dealer), self.players);
        Ok(smallvec![Event::DealStarted {
            deal: self.deal.number,
            dealer: self.deal.dealer,
            sitting_out: self.sitting_out(),
        }])
    }

    /// The next deal's number.
    ///
    /// # Errors
    /// `DealLimit` after deal 65535 (deals are numbered in the ledger as `u16`).
    pub(super) fn next_number(&self) -> Result<u16, RuleViolation> {
        self.deal
            .number
            .checked_add(1)
            .ok_or(RuleViolation::DealLimit { max: u16::MAX })
    }

    pub fn players(&self) -> usize {
        self.players
    }

    /// The three who play the current deal, from the dealer's left.
    pub fn active_seats(&self) -> Vec<Seat> {
        self.deal.active.clone()
    }
}
