//! What the scorer's phone sees: the phase, the legal moves, the pools, and the score sheet.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::Card;
use crate::chips::Chips;
use crate::seat::Seat;
use crate::stops::PoolBalance;

use super::{LegalMove, Recording, Spin, POOLS};

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SpinDealScore)]
pub struct DealScore {
    pub deal: u16,
    pub dealer: Seat,
    pub winner: Seat,
    pub cards_left: Vec<u8>,
    pub spin_holder: Option<Seat>,
    pub net: Vec<Chips>,
    pub chips: Vec<Chips>,
    pub recording: Recording,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SpinScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub chips: Vec<Chips>,
    pub pools: Vec<PoolBalance>,
    pub deals_in_game: u16,
    pub finished: bool,
    pub winners: Vec<Seat>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = SpinPhase)]
pub enum Phase {
    Playing,
    SpinHolder,
    Finished,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = SpinView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
    /// The seat to lead; null while a run is live (the holder of `next_card` plays it).
    pub to_act: Option<Seat>,
    pub next_card: Option<Card>,
    /// The moves accepted next, with their concrete choices.
    pub legal_moves: Vec<LegalMove>,
    pub cards_left: Vec<u8>,
    pub played: Vec<Card>,
    pub pools: Vec<PoolBalance>,
    pub chips: Vec<Chips>,
    pub winners: Vec<Seat>,
}

impl Spin {
    pub(super) fn phase(&self) -> Phase {
        match &self.deal {
            None => Phase::Finished,
            Some(d) if d.out.is_some() => Phase::SpinHolder,
            Some(_) => Phase::Playing,
        }
    }

    pub(super) fn legal_kinds(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::Playing, Some(d)) if d.runs.is_fresh() => vec!["play", "result"],
            (Phase::Playing, Some(d)) if d.runs.leader().is_some() => vec!["play", "show"],
            (Phase::Playing, _) => vec!["play"],
            (Phase::SpinHolder, _) => vec!["spin_holder"],
            (Phase::Finished, _) => vec![],
        }
    }

    pub(super) fn pools(&self) -> Vec<PoolBalance> {
        self.holdings.board(POOLS)
    }
}
