//! The concrete moves open next (`rules::legal`): the Squares cards not yet laid this hand, a
//! result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::legal::{accepted, LegalKind};
use crate::seat::Seat;
use crate::squares::SquaresCard;

use super::{Move, TrickyDick, MAX_PENALTIES, MAX_TRICK_CHIPS, MAX_TRICK_CHIPS_TOTAL, PLAYERS};

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
    /// The whole hand at once: per seat its trick chips, `trick_chips_min` to `trick_chips_max`,
    /// the four adding up to `trick_chips_total_min` to `trick_chips_total_max`; and its
    /// penalties, 0 to `penalties_max`.
    Result {
        #[schema(example = -16)]
        trick_chips_min: i32,
        #[schema(example = 16)]
        trick_chips_max: i32,
        #[schema(example = -48)]
        trick_chips_total_min: i64,
        #[schema(example = 48)]
        trick_chips_total_max: i64,
        #[schema(example = 15)]
        penalties_max: u8,
    },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::FirstTrick { .. } => "first_trick",
            LegalMove::Play { .. } => "play",
            LegalMove::Result { .. } => "result",
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
                "result" => Some(LegalMove::Result {
                    trick_chips_min: -MAX_TRICK_CHIPS,
                    trick_chips_max: MAX_TRICK_CHIPS,
                    trick_chips_total_min: -MAX_TRICK_CHIPS_TOTAL,
                    trick_chips_total_max: MAX_TRICK_CHIPS_TOTAL,
                    penalties_max: MAX_PENALTIES,
                }),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testing::assert_legal_moves_along;
    use crate::games::tricky_dick::{sim, Options};
    use crate::Game;

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
                LegalMove::Result {
                    trick_chips_min,
                    trick_chips_max,
                    trick_chips_total_min,
                    trick_chips_total_max,
                    penalties_max,
                } => {
                    // The corners of the bounds are accepted; one step past any of them is not.
                    let (top, bottom) = (trick_chips_total_max / 3, trick_chips_total_min / 3);
                    let top = i32::try_from(top).expect("small");
                    let bottom = i32::try_from(bottom).expect("small");
                    for (trick_chips, penalties) in [
                        (vec![trick_chips_max, top, top, 0], vec![penalties_max; 4]),
                        (vec![trick_chips_min, bottom, bottom, 0], vec![0; 4]),
                        (
                            vec![trick_chips_max, trick_chips_min, 0, 0],
                            vec![0, penalties_max, 0, 1],
                        ),
                    ] {
                        listed.push(Move::Result { trick_chips, penalties });
                    }
                    for (trick_chips, penalties) in [
                        (vec![trick_chips_max + 1, 0, 0, 0], vec![0; 4]),
                        (vec![0, trick_chips_min - 1, 0, 0], vec![0; 4]),
                        (vec![trick_chips_max, top, top, 1], vec![0; 4]),
                        (vec![trick_chips_min, bottom, bottom, -1], vec![0; 4]),
                        (vec![0; 4], vec![0, 0, penalties_max + 1, 0]),
                        (vec![0; 3], vec![0; 4]),
                        (vec![0; 4], vec![0; 5]),
                    ] {
                        unlisted.push(Move::Result { trick_chips, penalties });
                    }
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
        assert!(assert_legal_moves_along(start.clone(), &moves, &[], expand) > 0);

        // Hand 1 entered as a result, hand 2 card by card.
        let result = Move::Result {
            trick_chips: vec![4, -2, 0, 1],
            penalties: vec![3, 0, 2, 0],
        };
        let mut g = start.clone();
        g.apply(&result).expect("a result in range");
        let mut moves = vec![result];
        moves.extend(sim::moves(&sim::random_game(&mut g, 8).expect("a random hand")));
        assert!(assert_legal_moves_along(start, &moves, &[], expand) > 0);
    }
}
