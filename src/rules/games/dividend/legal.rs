//! The concrete moves open next (`rules::legal`): the cards not yet played, the seats that may
//! win the trick being recorded, a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::cards::Card;
use crate::rules::legal::{accepted, LegalKind};
use crate::rules::seat::Seat;

use super::{Dividend, Move, PLAYERS};

/// Cards in a Dividend deal: a result's cards won add up to this.
const CARDS: u8 = 52;

/// A move open next, with its concrete choices; `kind` names the move it stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = DividendLegalMove)]
pub enum LegalMove {
    /// The cards `seat` may play to trick `trick` (1-based): those not yet played this deal.
    Play { seat: Seat, trick: u8, cards: Vec<Card> },
    /// The seats that may be named winner of trick `number` (1-based).
    Trick { number: u8, winners: Vec<Seat> },
    /// The whole deal at once: the cards each of the four seats won, adding up to `cards_total`.
    Result { cards_total: u8 },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::Play { .. } => "play",
            LegalMove::Trick { .. } => "trick",
            LegalMove::Result { .. } => "result",
        }
    }
}

impl Dividend {
    /// The moves open next, one per kind of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        let Some(deal) = &self.deal else { return Vec::new() };
        let trick = deal.tricks_done + 1;
        self.legal_kinds()
            .into_iter()
            .filter_map(|kind| match kind {
                "play" => {
                    let seat = deal.trick.next_seat(PLAYERS);
                    let unseen = Card::deck().filter(|c| !deal.played.contains(*c));
                    Some(LegalMove::Play {
                        seat,
                        trick,
                        cards: accepted(self, unseen, |&card| Move::Play { seat, card }),
                    })
                }
                "trick" => Some(LegalMove::Trick {
                    number: trick,
                    winners: accepted(self, Seat::all(PLAYERS), |&winner| Move::Trick {
                        winner,
                        number: Some(trick),
                    }),
                }),
                "result" => Some(LegalMove::Result { cards_total: CARDS }),
                _ => None,
            })
            .collect()
    }
}
