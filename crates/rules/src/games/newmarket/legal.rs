//! The concrete moves open next (`rules::legal`): the layout's choices, the next card of the
//! live run for every seat that may hold it (or any card still in a hand for the seat to lead),
//! a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::{Card, Suit};
use crate::legal::LegalKind;
use crate::seat::Seat;
use crate::stops;

use super::{Move, Newmarket, POOL_RANKS};

/// A move open next, with its concrete choices; `kind` names the move it stands for. A move
/// open to several seats is listed once per seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = NewmarketLegalMove)]
pub enum LegalMove {
    /// The deal's pool cards, one of each rank of `pool_cards` (an ace, king, queen and knave)
    /// in four different suits, and one stake per seat on a pool card.
    Layout { pool_cards: Vec<Card>, seats: u8 },
    /// The cards `seat` may play: any card still in a hand when it leads, else the next card
    /// of the live run.
    Play { seat: Seat, cards: Vec<Card> },
    /// The whole deal at once: per seat at most `hand_sizes[seat]` cards left (0 for the seat
    /// that went out), and who played each of `pool_cards`' winning cards.
    Result { hand_sizes: Vec<u8>, pool_cards: Vec<Card> },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::Layout { .. } => "layout",
            LegalMove::Play { .. } => "play",
            LegalMove::Result { .. } => "result",
        }
    }
}

impl Newmarket {
    /// The moves open next, in the order of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        let Some(deal) = &self.deal else { return Vec::new() };
        let seats = || Seat::all(self.players);
        let mut out = Vec::new();
        for kind in self.legal_kinds() {
            match kind {
                "layout" => out.push(LegalMove::Layout {
                    pool_cards: POOL_RANKS
                        .iter()
                        .flat_map(|&rank| Suit::ALL.map(|suit| Card::new(rank, suit)))
                        .collect(),
                    seats: u8::try_from(self.players).unwrap_or(u8::MAX),
                }),
                "play" => out.extend(
                    stops::legal_plays(self, &deal.runs, |seat, card| Move::Play { seat, card })
                        .into_iter()
                        .map(|(seat, cards)| LegalMove::Play { seat, cards }),
                ),
                "result" => out.push(LegalMove::Result {
                    hand_sizes: seats().map(|s| deal.runs.dealt(s)).collect(),
                    pool_cards: deal.pool_cards.clone(),
                }),
                _ => {}
            }
        }
        out
    }
}
