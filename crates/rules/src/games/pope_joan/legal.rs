//! The concrete moves open next (`rules::legal`): the turn-up cards, the next card of the live
//! run for every seat that may hold it (or any card still in a hand for the seat to lead), the
//! seats that may play the Pope in lieu or hold it, a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::{Card, Rank};
use crate::legal::{accepted, accepts, LegalKind};
use crate::seat::Seat;
use crate::stops;

use super::{Move, PopeJoan, POPE};

/// A move open next, with its concrete choices; `kind` names the move it stands for. A move
/// open to several seats is listed once per seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = PopeJoanLegalMove)]
pub enum LegalMove {
    /// The card turned up for trumps.
    TurnUp { cards: Vec<Card> },
    /// The cards `seat` may play: any card still in a hand when it leads, else the next card
    /// of the live run.
    Play { seat: Seat, cards: Vec<Card> },
    /// Nobody can continue the live run.
    Stop,
    /// The seats that may play the Pope (9♦) in place of the card the run needed.
    PopeInLieu { seats: Vec<Seat> },
    /// Who may hold the Pope: the `seats`, and the spare hand when `spare_hand` (a move's
    /// `seat` left null).
    PopeHolder { seats: Vec<Seat>, spare_hand: bool },
    /// The whole deal at once: per seat at most `hand_sizes[seat]` cards left (0 for the seat
    /// that went out); the specials each seat played are among `specials`.
    Result { hand_sizes: Vec<u8>, specials: Vec<Card> },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::TurnUp { .. } => "turn_up",
            LegalMove::Play { .. } => "play",
            LegalMove::Stop => "stop",
            LegalMove::PopeInLieu { .. } => "pope_in_lieu",
            LegalMove::PopeHolder { .. } => "pope_holder",
            LegalMove::Result { .. } => "result",
        }
    }
}

impl PopeJoan {
    /// The moves open next, in the order of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        let Some(deal) = &self.deal else { return Vec::new() };
        let seats = || Seat::all(self.players);
        let mut out = Vec::new();
        for kind in self.legal_kinds() {
            match kind {
                "turn_up" => out.push(LegalMove::TurnUp {
                    cards: accepted(self, Card::deck(), |&card| Move::TurnUp { card }),
                }),
                "play" => out.extend(
                    stops::legal_plays(self, &deal.runs, |seat, card| Move::Play { seat, card })
                        .into_iter()
                        .map(|(seat, cards)| LegalMove::Play { seat, cards }),
                ),
                "stop" => out.push(LegalMove::Stop),
                "pope_in_lieu" => out.push(LegalMove::PopeInLieu {
                    seats: accepted(self, seats(), |&seat| Move::PopeInLieu { seat }),
                }),
                "pope_holder" => out.push(LegalMove::PopeHolder {
                    seats: accepted(self, seats(), |&seat| Move::PopeHolder { seat: Some(seat) }),
                    spare_hand: accepts(self, &Move::PopeHolder { seat: None }),
                }),
                "result" => {
                    let mut specials = vec![POPE];
                    if let Some(trumps) = deal.trumps() {
                        specials.extend(
                            [Rank::Ace, Rank::King, Rank::Queen, Rank::Jack]
                                .map(|rank| Card::new(rank, trumps))
                                .into_iter()
                                .filter(|&c| c != POPE),
                        );
                    }
                    out.push(LegalMove::Result {
                        hand_sizes: seats().map(|s| deal.runs.dealt(s)).collect(),
                        specials,
                    });
                }
                _ => {}
            }
        }
        out
    }
}
