//! The concrete moves open next (`rules::legal`): the turn-up cards, the nominations the hook
//! rule leaves, the cards not yet played, a result form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::Card;
use crate::legal::{accepted, LegalKind};
use crate::seat::Seat;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::nomination_whist::{sim, Options, TrumpRule};
    use crate::games::testing::assert_legal_moves_along;
    use crate::Game;

    /// The moves the view lists, and the rest of each kind's candidates (refused).
    fn expand(g: &NominationWhist) -> (Vec<Move>, Vec<Move>) {
        let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
        for m in g.view().legal_moves {
            match m {
                LegalMove::TurnUp { cards } => {
                    for card in Card::deck() {
                        let mv = Move::TurnUp { card };
                        if cards.contains(&card) {
                            listed.push(mv)
                        } else {
                            unlisted.push(mv)
                        }
                    }
                }
                LegalMove::Nominate { seat, tricks } => {
                    for n in 0..=14 {
                        let mv = Move::Nominate { seat, tricks: n };
                        if tricks.contains(&n) {
                            listed.push(mv)
                        } else {
                            unlisted.push(mv)
                        }
                    }
                    unlisted.push(Move::Nominate {
                        seat: seat.left(1, g.players),
                        tricks: tricks[0],
                    });
                }
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
                        seat: seat.left(1, g.players),
                        card: cards[0],
                    });
                }
                LegalMove::Result {
                    hand_size,
                    turn_up_required,
                } => {
                    // Tricks one over the hand size never add up.
                    let mut tricks = vec![0; g.players];
                    tricks[0] = hand_size + 1;
                    unlisted.push(Move::Result {
                        nominations: vec![0; g.players],
                        tricks,
                        turn_up: turn_up_required.then(|| Card::deck().next()).flatten(),
                    });
                }
            }
        }
        (listed, unlisted)
    }

    #[test]
    fn every_listed_move_is_accepted_and_the_others_refused_through_whole_games() {
        for (players, trumps, seed) in [
            (4, TrumpRule::TurnedUp, 1),
            (3, TrumpRule::default(), 2),
            (5, TrumpRule::TurnedUp, 3),
        ] {
            let options = Options {
                hand_sizes: Some(vec![1, 3, 5, 3]),
                trumps,
                hook_from_hand_size: 1,
                ..Options::default()
            };
            let start = NominationWhist::new(players, options).expect("set up");
            let mut g = start.clone();
            let moves = sim::moves(&sim::random_game(&mut g, seed).expect("a random game"));
            let tried = assert_legal_moves_along(start, &moves, &["turn_up", "nominate", "play"], expand);
            assert!(tried > moves.len(), "every step listed something");
        }
    }

    #[test]
    fn the_hook_rule_takes_the_dealers_forbidden_nomination_out_of_the_list() {
        let options = Options {
            hand_sizes: Some(vec![3]),
            hook_from_hand_size: 1,
            ..Options::default()
        };
        let mut g = NominationWhist::new(3, options).expect("set up");
        for (seat, tricks) in [(1, 1), (2, 1)] {
            crate::games::testing::apply(
                &mut g,
                Move::Nominate {
                    seat: Seat::new(seat),
                    tricks,
                },
            );
        }
        let legal = g.view().legal_moves;
        let [LegalMove::Nominate { seat, tricks }] = legal.as_slice() else {
            panic!("the dealer nominates next: {legal:?}")
        };
        assert_eq!(*seat, Seat::new(0));
        assert_eq!(tricks, &[0, 2, 3], "1 would make the nominations add up to 3");
    }
}
