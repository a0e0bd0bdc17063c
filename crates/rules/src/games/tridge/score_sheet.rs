//! The score sheet: one line per deal, played or not, with each seat's chips after it. History
//! about the table, not part of the state a move needs.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::chips::Chips;
use crate::seat::Seat;
use crate::trick::Revoke;

use super::ranking::FollowSuit;
use super::{Contract, Funds, Tridge};

/// How a deal ended for the Player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[schema(as = TridgeOutcome)]
pub enum Outcome {
    /// More tricks than each defender (or the contract made).
    Win,
    /// 4:4:1, 3:3:3 or 1:4:4.
    Draw,
    /// A defender took more tricks than each other player.
    DoubleLoss { defeating: Seat },
    /// No Tricks or All Tricks failed.
    Lost,
    /// Fixed Trick made exactly.
    Exact,
    /// Fixed Trick missed by one trick either way.
    OffByOne,
    /// Fixed Trick missed by two or more.
    OffByMore,
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeDealLine)]
pub struct DealLine {
    pub deal: u16,
    pub dealer: Seat,
    /// Null for a pass-out or a void deal.
    pub player: Option<Seat>,
    pub contract: Option<Contract>,
    pub tricks: Vec<u8>,
    pub honours: u8,
    pub outcome: Option<Outcome>,
    pub passed_out: bool,
    pub void: bool,
    pub revokes: Vec<Revoke<FollowSuit>>,
    pub recording: Option<Recording>,
    /// Each seat's chips after the deal.
    pub chips: Vec<Chips>,
}

/// Why a deal ended without play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unplayed {
    /// Everyone passed (or the In-comer gave up).
    PassedOut,
    /// The stock count was wrong.
    Void,
}

/// The deals and each seat's chips.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealLine>,
    pub chips: Vec<Chips>,
    pub funds: Funds,
    pub finished: bool,
}

impl Tridge {
    /// The score sheet's line for the current deal when nobody played it.
    pub(super) fn unplayed_line(&self, why: Unplayed) -> DealLine {
        DealLine {
            deal: self.deal.number,
            dealer: self.deal.dealer,
            player: None,
            contract: None,
            tricks: vec![0; self.players],
            honours: 0,
            outcome: None,
            passed_out: why == Unplayed::PassedOut,
            void: why == Unplayed::Void,
            revokes: Vec::new(),
            recording: None,
            chips: self.chips.values().to_vec(),
        }
    }
}
