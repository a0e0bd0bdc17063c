//! What the scorer's phone sees: the phase, the legal moves, the board, and the score sheet.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, Suit};
use crate::chips::Chips;
use crate::seat::Seat;
use crate::stops::{MissedPlay, PoolBalance};

use super::{LegalMove, PopeJoan, Recording, POPE};

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = PopeJoanDealScore)]
pub struct DealScore {
    pub deal: u16,
    pub dealer: Seat,
    pub turn_up: Card,
    pub winner: Seat,
    pub cards_left: Vec<u8>,
    pub net: Vec<Chips>,
    /// Chips held after the deal.
    pub chips: Vec<Chips>,
    pub missed_plays: Vec<MissedPlay>,
    pub recording: Recording,
}

/// Each deal's result, chips and the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = PopeJoanScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub chips: Vec<Chips>,
    pub board: Vec<PoolBalance>,
    pub deals_in_game: u16,
    pub finished: bool,
    /// The seats holding the most chips; empty until the game ends.
    pub winners: Vec<Seat>,
}

/// Where a deal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = PopeJoanPhase)]
pub enum Phase {
    TurnUp,
    Playing,
    PopeHolder,
    Finished,
}

/// The run being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LiveRun {
    pub last: Card,
    pub by: Seat,
    /// The card that continues it.
    pub next: Card,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = PopeJoanView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
    pub hand_size: Option<u8>,
    pub spare_hand: Option<u8>,
    pub turn_up: Option<Card>,
    pub trumps: Option<Suit>,
    /// The seat to lead; null while a run is live (any seat may continue it) or between deals.
    pub to_act: Option<Seat>,
    pub run: Option<LiveRun>,
    /// The moves accepted next, with their concrete choices.
    pub legal_moves: Vec<LegalMove>,
    pub cards_left: Vec<u8>,
    pub played: Vec<Card>,
    pub missed_plays: Vec<MissedPlay>,
    pub board: Vec<PoolBalance>,
    pub chips: Vec<Chips>,
    pub winners: Vec<Seat>,
}

impl PopeJoan {
    pub(super) fn phase(&self) -> Phase {
        match &self.deal {
            None => Phase::Finished,
            Some(d) if d.turn_up.is_none() => Phase::TurnUp,
            Some(d) if d.out.is_some() => Phase::PopeHolder,
            Some(_) => Phase::Playing,
        }
    }

    pub(super) fn legal_kinds(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::TurnUp, _) => vec!["turn_up"],
            (Phase::Playing, Some(d)) if d.runs.is_fresh() => vec!["play", "result"],
            (Phase::Playing, Some(d)) if d.runs.leader().is_none() => vec!["play", "stop"],
            (Phase::Playing, Some(d))
                if self.options.pope_in_lieu_of_stop
                    && d.runs.missing_after_stop().is_some()
                    && !d.runs.is_accounted_for(POPE) =>
            {
                vec!["play", "pope_in_lieu"]
            }
            (Phase::Playing, _) => vec!["play"],
            (Phase::PopeHolder, _) => vec!["pope_holder"],
            (Phase::Finished, _) => vec![],
        }
    }

    pub(super) fn board(&self) -> Vec<PoolBalance> {
        self.holdings.board(self.divisions().iter().copied())
    }
}
