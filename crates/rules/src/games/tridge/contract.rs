//! The bids of the auction and the contract the Player declares: its trumps, what it pays, and
//! whether it may be declared after the auction that was won (`declaring.rs` declares it).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, Suit};
use crate::error::RuleViolation;

use super::ranking;

/// A call in the auction, ascending. An earlier seat holds an equal bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeBid)]
pub enum Bid {
    /// Play with hearts, spades or clubs.
    Play,
    /// Play with diamonds (or any higher contract).
    PlayMore,
    Flip,
    NoChange,
    NoChangeDiamonds,
    /// Only once everyone has passed.
    NoTricks,
    AllTricks,
}

/// The contract the Player declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "contract", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = TridgeContract)]
pub enum Contract {
    /// Hearts, spades or clubs as trumps.
    Play {
        trumps: Suit,
    },
    PlayDiamonds,
    /// Trumps are the suit of the stock's top card, turned up (a black ace by its printed suit).
    Flip {
        turned: Card,
    },
    /// Hearts, spades or clubs; only the defenders exchange.
    NoChange {
        trumps: Suit,
    },
    NoChangeDiamonds,
    /// Take no trick; only after everyone has passed; the defenders exchange.
    NoTricks {
        trumps: Suit,
    },
    /// Take all nine tricks.
    AllTricks {
        trumps: Suit,
    },
    /// The all-pass reverse auction's contract: exactly this many tricks, no exchange.
    FixedTrick {
        tricks: u8,
        trumps: Suit,
    },
}

impl Contract {
    pub fn trumps(self) -> Suit {
        match self {
            Contract::Play { trumps }
            | Contract::NoChange { trumps }
            | Contract::NoTricks { trumps }
            | Contract::AllTricks { trumps }
            | Contract::FixedTrick { trumps, .. } => trumps,
            Contract::PlayDiamonds | Contract::NoChangeDiamonds => Suit::Diamonds,
            Contract::Flip { turned } => turned.suit,
        }
    }

    /// The auction call this contract fulfils (None for Fixed Trick).
    pub(super) fn level(self) -> Option<Bid> {
        match self {
            Contract::Play { .. } => Some(Bid::Play),
            Contract::PlayDiamonds => Some(Bid::PlayMore),
            Contract::Flip { .. } => Some(Bid::Flip),
            Contract::NoChange { .. } => Some(Bid::NoChange),
            Contract::NoChangeDiamonds => Some(Bid::NoChangeDiamonds),
            Contract::NoTricks { .. } => Some(Bid::NoTricks),
            Contract::AllTricks { .. } => Some(Bid::AllTricks),
            Contract::FixedTrick { .. } => None,
        }
    }

    pub(super) fn player_exchanges(self) -> bool {
        matches!(
            self,
            Contract::Play { .. } | Contract::PlayDiamonds | Contract::Flip { .. } | Contract::AllTricks { .. }
        )
    }

    /// Chips per payer on top of the fund: collected on a win, paid on a draw or loss.
    pub(super) fn extra(self) -> i64 {
        match self {
            Contract::Play { .. } | Contract::PlayDiamonds | Contract::FixedTrick { .. } => 0,
            Contract::Flip { .. } => 5,
            Contract::NoChange { .. } => 10,
            Contract::NoChangeDiamonds => 20,
            Contract::NoTricks { .. } | Contract::AllTricks { .. } => 40,
        }
    }

    /// Whether the Widow's Fund is won (or matched) with this contract.
    pub(super) fn with_widows(self) -> bool {
        matches!(
            self,
            Contract::NoChangeDiamonds | Contract::NoTricks { .. } | Contract::AllTricks { .. }
        )
    }

    /// Contracts after which the Player may stop on taking the first five tricks.
    pub(super) fn may_stop_after_five(self) -> bool {
        matches!(
            self,
            Contract::Play { .. }
                | Contract::PlayDiamonds
                | Contract::Flip { .. }
                | Contract::NoChange { .. }
                | Contract::NoChangeDiamonds
        )
    }

    pub(super) fn check(self) -> Result<(), RuleViolation> {
        let bad = |reason: &str| {
            Err(RuleViolation::InvalidContract {
                reason: reason.to_owned(),
            })
        };
        match self {
            Contract::Play { trumps: Suit::Diamonds } => bad("Play with diamonds is `play_diamonds`"),
            Contract::NoChange { trumps: Suit::Diamonds } => bad("No Change with diamonds is `no_change_diamonds`"),
            Contract::Flip { turned } if !ranking::in_pack(turned) => bad("the turned card is not in the 40-card pack"),
            Contract::FixedTrick { tricks, .. } if !(1..=3).contains(&tricks) => {
                bad("a Fixed Trick contract is for 1, 2 or 3 tricks")
            }
            _ => Ok(()),
        }
    }
}

pub(super) fn contract_name(contract: Contract) -> String {
    match contract {
        Contract::Play { trumps } => format!("Play in {trumps}"),
        Contract::PlayDiamonds => "Play in diamonds".into(),
        Contract::Flip { turned } => format!("Flip ({turned} turned)"),
        Contract::NoChange { trumps } => format!("No Change in {trumps}"),
        Contract::NoChangeDiamonds => "No Change in diamonds".into(),
        Contract::NoTricks { trumps } => format!("No Tricks in {trumps}"),
        Contract::AllTricks { trumps } => format!("All Tricks in {trumps}"),
        Contract::FixedTrick { tricks, trumps } => format!("Fixed Trick ({tricks} in {trumps})"),
    }
}
