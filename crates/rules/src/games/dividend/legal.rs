//! The concrete moves open next (`rules::legal`): the cards not yet played, the seats that may
//! win the trick being recorded, a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::Card;
use crate::legal::{accepted, LegalKind};
use crate::seat::Seat;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::dividend::{sim, Options};
    use crate::games::testing::assert_legal_moves_along;
    use crate::Game;

    /// The moves the view lists, and the rest of each kind's candidates (refused).
    fn expand(g: &Dividend) -> (Vec<Move>, Vec<Move>) {
        let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
        for m in g.view().legal_moves {
            match m {
                LegalMove::Play { seat, trick: _, cards } => {
                    for card in Card::deck() {
                        let mv = Move::Play { seat, card };
                        if cards.contains(&card) {
                            listed.push(mv)
                        } else {
                            unlisted.push(mv)
                        }
                    }
                    unlisted.push(Move::Play {
                        seat: seat.left(1, PLAYERS),
                        card: cards[0],
                    });
                }
                LegalMove::Trick { number, winners } => {
                    for winner in Seat::all(PLAYERS) {
                        let mv = Move::Trick {
                            winner,
                            number: Some(number),
                        };
                        if winners.contains(&winner) {
                            listed.push(mv)
                        } else {
                            unlisted.push(mv)
                        }
                    }
                    unlisted.push(Move::Trick {
                        winner: winners[0],
                        number: Some(number + 1),
                    });
                }
                LegalMove::Result { cards_total } => unlisted.push(Move::Result {
                    cards_won: vec![cards_total + 1, 0, 0, 0],
                }),
            }
        }
        (listed, unlisted)
    }

    #[test]
    fn every_listed_move_is_accepted_and_the_others_refused_through_whole_games() {
        for seed in [1, 2] {
            let start = Dividend::new(PLAYERS, Options::default()).expect("set up");
            let mut g = start.clone();
            let deals = sim::random_game(&mut g, seed).expect("a random game");
            let tried = assert_legal_moves_along(start.clone(), &sim::moves(&deals), &["play"], expand);
            assert!(tried > 0);
            // The same deals trick by trick: every winner the sim names is listed.
            let by_trick: Vec<Move> = deals.iter().flat_map(|d| sim::trick_moves(d, true)).collect();
            assert_legal_moves_along(start, &by_trick, &["trick"], expand);
        }
    }
}
