//! The concrete moves open next (`rules::legal`): the next card of the live run for every seat
//! that may hold it (or any card still in a hand for the seat to lead), which of them may go
//! with Spin, the shows, Spin's holder, a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::{Card, Rank, Suit};
use crate::legal::{accepted, LegalKind};
use crate::seat::Seat;
use crate::stops;

use super::{Combination, Move, Spin, SPIN};

/// A move open next, with its concrete choices; `kind` names the move it stands for. A move
/// open to several seats is listed once per seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = SpinLegalMove)]
pub enum LegalMove {
    /// The cards `seat` may play: any card still in a hand when it leads, else the next card
    /// up; `with_spin` are those it may play with Spin (A♦), which makes a stop.
    Play {
        seat: Seat,
        cards: Vec<Card>,
        with_spin: Vec<Card>,
    },
    /// The combinations `seat`, which has just played a stop, may show.
    Show { seat: Seat, combinations: Vec<Combination> },
    /// The seats that may still hold Spin.
    SpinHolder { seats: Vec<Seat> },
    /// The whole deal at once: per seat at most `hand_sizes[seat]` cards left (0 for the seat
    /// that went out); the specials each seat played are among `specials`.
    Result { hand_sizes: Vec<u8>, specials: Vec<Card> },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::Play { .. } => "play",
            LegalMove::Show { .. } => "show",
            LegalMove::SpinHolder { .. } => "spin_holder",
            LegalMove::Result { .. } => "result",
        }
    }
}

impl Spin {
    /// The moves open next, in the order of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        let Some(deal) = &self.deal else { return Vec::new() };
        let seats = || Seat::all(self.players);
        let mut out = Vec::new();
        for kind in self.legal_kinds() {
            match kind {
                "play" => {
                    let plays = stops::legal_plays(self, &deal.runs, |seat, card| Move::Play {
                        seat,
                        card,
                        spin: false,
                    });
                    out.extend(plays.into_iter().map(|(seat, cards)| LegalMove::Play {
                        seat,
                        with_spin: accepted(self, cards.iter().copied(), |&card| Move::Play {
                            seat,
                            card,
                            spin: true,
                        }),
                        cards,
                    }));
                }
                "show" => out.extend(seats().filter_map(|seat| {
                    let combinations =
                        accepted(self, [Combination::Matrimony, Combination::Intrigue], |&combination| {
                            Move::Show { seat, combination }
                        });
                    (!combinations.is_empty()).then_some(LegalMove::Show { seat, combinations })
                })),
                "spin_holder" => out.push(LegalMove::SpinHolder {
                    seats: accepted(self, seats(), |&seat| Move::SpinHolder { seat }),
                }),
                "result" => out.push(LegalMove::Result {
                    hand_sizes: seats().map(|s| deal.runs.dealt(s)).collect(),
                    specials: Suit::ALL
                        .map(|suit| Card::new(Rank::King, suit))
                        .into_iter()
                        .chain([SPIN])
                        .collect(),
                }),
                _ => {}
            }
        }
        out
    }
}
