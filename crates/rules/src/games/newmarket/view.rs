//! What the scorer's phone sees: the phase, the legal moves, the pools, and the score sheet.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::Card;
use crate::chips::Chips;
use crate::seat::Seat;
use crate::stops::PoolBalance;

use super::{pool_of, LegalMove, Newmarket, Phase, Recording, POOL_RANKS};

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NewmarketDealScore)]
pub struct DealScore {
    pub deal: u16,
    pub dealer: Seat,
    pub pool_cards: Vec<Card>,
    pub winner: Seat,
    pub cards_left: Vec<u8>,
    pub net: Vec<Chips>,
    pub chips: Vec<Chips>,
    pub recording: Recording,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NewmarketScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub chips: Vec<Chips>,
    pub pools: Vec<PoolBalance>,
    pub deals_in_game: u16,
    pub finished: bool,
    pub winners: Vec<Seat>,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = NewmarketView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
    pub pool_cards: Vec<Card>,
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

impl Newmarket {
    pub(super) fn phase(&self) -> Phase {
        match &self.deal {
            None => Phase::Finished,
            Some(d) if d.pool_cards.is_empty() => Phase::Layout,
            Some(_) => Phase::Playing,
        }
    }

    pub(super) fn legal_kinds(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::Layout, _) => vec!["layout"],
            (Phase::Playing, Some(d)) if d.runs.is_fresh() => vec!["play", "result"],
            (Phase::Playing, _) => vec!["play"],
            (Phase::Finished, _) => vec![],
        }
    }

    pub(super) fn pools(&self) -> Vec<PoolBalance> {
        self.holdings.board(POOL_RANKS.iter().filter_map(|&r| pool_of(r)))
    }
}
