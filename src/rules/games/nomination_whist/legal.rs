//! The concrete moves open next (`rules::legal`): the turn-up cards, the nominations the hook
//! rule leaves, the cards not yet played, a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::cards::Card;
use crate::rules::legal::{accepted, LegalKind};
use crate::rules::seat::Seat;

use super::{Move, NominationWhist, Phase};

/// A move open next, with its concrete choices; `kind` names the move it stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = NominationWhistLegalMove)]
pub enum LegalMove {
    /// The card turned up for trumps: any card of the pack.
    TurnUp { cards: Vec<Card> },
    /// The nominations `seat` may make; for the dealer, the hook rule takes one out.
    Nominate { seat: Seat, tricks: Vec<u8> },
    /// The cards `seat` may play to trick `trick` (1-based): those not yet played this deal.
    Play { seat: Seat, trick: u8, cards: Vec<Card> },
    /// The whole deal at once: per seat a nomination from 0 to `hand_size` and tricks adding up
    /// to `hand_size`; the turned-up card too when `turn_up_required`.
    Result { hand_size: u8, turn_up_required: bool },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::TurnUp { .. } => "turn_up",
            LegalMove::Nominate { .. } => "nominate",
            LegalMove::Play { .. } => "play",
            LegalMove::Result { .. } => "result",
        }
    }
}

impl NominationWhist {
    /// The moves open next, one per kind of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        let Some(deal) = &self.deal else { return Vec::new() };
        let unseen: Vec<Card> = Card::deck()
            .filter(|c| !deal.played.contains(*c) && deal.turn_up != Some(*c))
            .collect();
        self.legal_kinds()
            .into_iter()
            .filter_map(|kind| match kind {
                "turn_up" => Some(LegalMove::TurnUp {
                    cards: accepted(self, unseen.iter().copied(), |&card| Move::TurnUp { card }),
                }),
                "nominate" => {
                    let seat = Self::next_nominator(deal, self.players);
                    Some(LegalMove::Nominate {
                        seat,
                        tricks: accepted(self, 0..=deal.hand_size, |&tricks| Move::Nominate { seat, tricks }),
                    })
                }
                "play" => {
                    let seat = deal.trick.next_seat(self.players);
                    Some(LegalMove::Play {
                        seat,
                        trick: deal.tricks_done + 1,
                        cards: accepted(self, Card::deck().filter(|c| !deal.played.contains(*c)), |&card| {
                            Move::Play { seat, card }
                        }),
                    })
                }
                "result" => Some(LegalMove::Result {
                    hand_size: deal.hand_size,
                    turn_up_required: self.phase() == Phase::TurnUp,
                }),
                _ => None,
            })
            .collect()
    }
}
