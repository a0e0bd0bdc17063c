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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::games::testing::assert_legal_moves_along;
    use crate::rules::games::tricky_dick::{sim, Options};
    use crate::rules::Game;

    /// The moves the view lists, and the rest of each kind's candidates (refused).
    fn expand(g: &TrickyDick) -> (Vec<Move>, Vec<Move>) {
        let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
        for m in g.view().legal_moves {
            match m {
                LegalMove::FirstTrick { cards } => {
                    assert_eq!(cards.len(), 64, "a hand starts with the whole deck");
                    listed.push(Move::FirstTrick {
                        cards: cards[..4].to_vec(),
                    });
                    unlisted.push(Move::FirstTrick {
                        cards: vec![cards[0]; 4],
                    });
                }
                LegalMove::Play { seat, trick, cards } => {
                    for card in SquaresCard::deck() {
                        let mv = Move::Play {
                            seat,
                            card,
                            trick: Some(trick),
                        };
                        if cards.contains(&card) {
                            listed.push(mv)
                        } else {
                            unlisted.push(mv)
                        }
                    }
                    unlisted.push(Move::Play {
                        seat: seat.left(1, PLAYERS),
                        card: cards[0],
                        trick: Some(trick),
                    });
                    unlisted.push(Move::Play {
                        seat,
                        card: cards[0],
                        trick: Some(trick + 1),
                    });
                }
            }
        }
        (listed, unlisted)
    }

    #[test]
    fn every_listed_move_is_accepted_and_the_others_refused_through_whole_games() {
        let start = TrickyDick::new(
            PLAYERS,
            Options {
                hands: 2,
                ..Options::default()
            },
        )
        .expect("set up");
        let mut g = start.clone();
        let moves = sim::moves(&sim::random_game(&mut g, 7).expect("a random game"));
        assert!(assert_legal_moves_along(start, &moves, &[], expand) > 0);
    }
}
