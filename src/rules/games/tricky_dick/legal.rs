//! The concrete moves open next (`rules::legal`): the Squares cards not yet laid this hand.

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::legal::{accepted, LegalKind};
use crate::rules::seat::Seat;
use crate::rules::squares::SquaresCard;

use super::{Move, TrickyDick, PLAYERS};

/// A move open next, with its concrete choices; `kind` names the move it stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = TrickyDickLegalMove)]
pub enum LegalMove {
    /// Trick 1, each seat's sixteenth card face up: four different cards of `cards`, in seat
    /// order.
    FirstTrick { cards: Vec<SquaresCard> },
    /// The cards `seat` may lay to trick `trick` (2 to 16): any card not yet laid this hand.
    Play {
        seat: Seat,
        trick: u8,
        cards: Vec<SquaresCard>,
    },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::FirstTrick { .. } => "first_trick",
            LegalMove::Play { .. } => "play",
        }
    }
}

impl TrickyDick {
    /// The moves open next, one per kind of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        let Some(hand) = &self.hand else { return Vec::new() };
        let unseen: Vec<SquaresCard> = SquaresCard::deck().filter(|c| !hand.played.contains(*c)).collect();
        self.legal_kinds()
            .into_iter()
            .filter_map(|kind| match kind {
                "first_trick" => Some(LegalMove::FirstTrick { cards: unseen.clone() }),
                "play" => {
                    let seat = hand.trick.next_seat(PLAYERS);
                    let trick = hand.tricks_done + 1;
                    Some(LegalMove::Play {
                        seat,
                        trick,
                        cards: accepted(self, unseen.iter().copied(), |&card| Move::Play {
                            seat,
                            card,
                            trick: Some(trick),
                        }),
                    })
                }
                _ => None,
            })
            .collect()
    }
}
