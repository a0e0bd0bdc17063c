//! The concrete moves open next (`rules::legal`): the calls and Fixed Trick bids open to each
//! seat, the contracts the Player may declare, the exchanges, the cards not yet played, a result
//! form's bounds.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cards::{Card, Suit};
use crate::legal::{accepted, accepts, LegalKind};
use crate::seat::Seat;

use super::{Bid, Contract, Move, Tridge, WidowsChoice, STOCK};

/// Tricks in a Tridge deal.
const TRICKS: u8 = 9;

/// Every call of the auction, in rank order.
const BIDS: [Bid; 7] = [
    Bid::Play,
    Bid::PlayMore,
    Bid::Flip,
    Bid::NoChange,
    Bid::NoChangeDiamonds,
    Bid::AllTricks,
    Bid::NoTricks,
];

/// A Fixed Trick bid open to a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = TridgeFixedBidChoice)]
pub struct FixedBidChoice {
    pub tricks: u8,
    pub trumps: Suit,
}

/// A move open next, with its concrete choices; `kind` names the move it stands for. A move
/// open to several seats is listed once per seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = TridgeLegalMove)]
pub enum LegalMove {
    /// The calls `seat` may make now.
    Bid { seat: Seat, bids: Vec<Bid> },
    /// `seat` may pass.
    Pass { seat: Seat },
    /// Everyone passed: the deal may be passed out.
    PassOut,
    /// The whole deal at once: a Player among `seats`, tricks per seat adding up to
    /// `tricks_total` (5 to the Player and none to the others when stopped after five);
    /// `in_comer` when the dealer of four may be the Player.
    Result {
        seats: Vec<Seat>,
        tricks_total: u8,
        in_comer: bool,
    },
    /// The end of the session: what may become of the Widow's Fund.
    SettleWidowsFund { choices: Vec<WidowsChoice> },
    /// The Fixed Trick bids `seat` may make now.
    FixedBid { seat: Seat, bids: Vec<FixedBidChoice> },
    /// `seat`, the dealer of four, may come in.
    InCome { seat: Seat },
    /// The contracts `seat` (the Player) may declare; a Flip contract turns one of
    /// `flip_cards` (listed apart, not in `contracts`).
    Declare {
        seat: Seat,
        contracts: Vec<Contract>,
        flip_cards: Vec<Card>,
    },
    /// `seat` (the In-comer) may give up.
    GiveUp { seat: Seat },
    /// How many cards `seat` may take from the stock.
    Exchange { seat: Seat, cards: Vec<u8> },
    /// The seats Centre and Rear may name 1st Defender.
    Defence { first_defenders: Vec<Seat> },
    /// The cards `seat` may play to trick `trick` (1-based): those not yet played this deal.
    Play { seat: Seat, trick: u8, cards: Vec<Card> },
    /// `seat` (the Player) may stop after the first five tricks.
    Stop { seat: Seat },
    /// The dealer's count before play: discards plus stock, `total` when nothing is amiss.
    CountStock { total: u8 },
}

impl LegalKind for LegalMove {
    fn kind(&self) -> &'static str {
        match self {
            LegalMove::Bid { .. } => "bid",
            LegalMove::Pass { .. } => "pass",
            LegalMove::PassOut => "pass_out",
            LegalMove::Result { .. } => "result",
            LegalMove::SettleWidowsFund { .. } => "settle_widows_fund",
            LegalMove::FixedBid { .. } => "fixed_bid",
            LegalMove::InCome { .. } => "in_come",
            LegalMove::Declare { .. } => "declare",
            LegalMove::GiveUp { .. } => "give_up",
            LegalMove::Exchange { .. } => "exchange",
            LegalMove::Defence { .. } => "defence",
            LegalMove::Play { .. } => "play",
            LegalMove::Stop { .. } => "stop",
            LegalMove::CountStock { .. } => "count_stock",
        }
    }
}

/// Every contract but Flip (whose turned card is listed apart).
fn contracts() -> Vec<Contract> {
    let mut out = Vec::new();
    for trumps in Suit::ALL {
        out.push(Contract::Play { trumps });
    }
    out.push(Contract::PlayDiamonds);
    for trumps in Suit::ALL {
        out.push(Contract::NoChange { trumps });
    }
    out.push(Contract::NoChangeDiamonds);
    for trumps in Suit::ALL {
        out.push(Contract::NoTricks { trumps });
    }
    for trumps in Suit::ALL {
        out.push(Contract::AllTricks { trumps });
    }
    for tricks in 0..=TRICKS {
        for trumps in Suit::ALL {
            out.push(Contract::FixedTrick { tricks, trumps });
        }
    }
    out
}

impl Tridge {
    /// The moves open next, in the order of `legal_kinds`.
    pub(super) fn legal_moves(&self) -> Vec<LegalMove> {
        if self.finished {
            return Vec::new();
        }
        let d = &self.deal;
        // The seat to act when there is one, else any seat: the trial below sorts them out.
        let seats: Vec<Seat> = match self.to_act() {
            Some(seat) => vec![seat],
            None => Seat::all(self.players).collect(),
        };
        let unseen: Vec<Card> = Card::deck().filter(|c| !d.played.contains(*c)).collect();
        let mut out = Vec::new();
        for kind in self.legal_kinds() {
            match kind {
                "bid" => out.extend(seats.iter().filter_map(|&seat| {
                    let bids = accepted(self, BIDS, |&bid| Move::Bid { seat, bid });
                    (!bids.is_empty()).then_some(LegalMove::Bid { seat, bids })
                })),
                "pass" => out.extend(
                    accepted(self, seats.iter().copied(), |&seat| Move::Pass { seat })
                        .into_iter()
                        .map(|seat| LegalMove::Pass { seat }),
                ),
                "pass_out" => out.push(LegalMove::PassOut),
                "result" => out.push(LegalMove::Result {
                    seats: d.active.clone(),
                    tricks_total: TRICKS,
                    in_comer: self.players == 4,
                }),
                "settle_widows_fund" => out.push(LegalMove::SettleWidowsFund {
                    choices: accepted(self, [WidowsChoice::Split, WidowsChoice::Leave], |&choice| {
                        Move::SettleWidowsFund { choice }
                    }),
                }),
                "fixed_bid" => out.extend(seats.iter().filter_map(|&seat| {
                    let choices =
                        (0..=TRICKS).flat_map(|tricks| Suit::ALL.map(|trumps| FixedBidChoice { tricks, trumps }));
                    let bids = accepted(self, choices, |c| Move::FixedBid {
                        seat,
                        tricks: c.tricks,
                        trumps: Some(c.trumps),
                    });
                    (!bids.is_empty()).then_some(LegalMove::FixedBid { seat, bids })
                })),
                "in_come" => out.extend(
                    accepted(self, seats.iter().copied(), |&seat| Move::InCome { seat })
                        .into_iter()
                        .map(|seat| LegalMove::InCome { seat }),
                ),
                "declare" => out.extend(seats.iter().filter_map(|&seat| {
                    let contracts = accepted(self, contracts(), |&contract| Move::Declare { seat, contract });
                    let flip_cards = accepted(self, unseen.iter().copied(), |&turned| Move::Declare {
                        seat,
                        contract: Contract::Flip { turned },
                    });
                    (!contracts.is_empty() || !flip_cards.is_empty()).then_some(LegalMove::Declare {
                        seat,
                        contracts,
                        flip_cards,
                    })
                })),
                "give_up" => out.extend(
                    accepted(self, seats.iter().copied(), |&seat| Move::GiveUp { seat })
                        .into_iter()
                        .map(|seat| LegalMove::GiveUp { seat }),
                ),
                "exchange" => out.extend(seats.iter().filter_map(|&seat| {
                    let cards = accepted(self, 0..=TRICKS, |&cards| Move::Exchange { seat, cards });
                    (!cards.is_empty()).then_some(LegalMove::Exchange { seat, cards })
                })),
                "defence" => out.push(LegalMove::Defence {
                    first_defenders: accepted(self, Seat::all(self.players), |&first_defender| Move::Defence {
                        first_defender,
                    }),
                }),
                "play" => {
                    if let Some(seat) = self.to_act() {
                        out.push(LegalMove::Play {
                            seat,
                            trick: d.tricks_done + 1,
                            cards: accepted(self, unseen.iter().copied(), |&card| Move::Play { seat, card }),
                        });
                    }
                }
                "stop" => out.extend(
                    d.player
                        .into_iter()
                        .filter(|&seat| {
                            accepts(
                                self,
                                &Move::Stop {
                                    seat,
                                    top_trumps: Vec::new(),
                                },
                            )
                        })
                        .map(|seat| LegalMove::Stop { seat }),
                ),
                "count_stock" => out.push(LegalMove::CountStock { total: STOCK }),
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testing::assert_legal_moves_along;
    use crate::games::tridge::{sim, Options};
    use crate::Game;

    /// Every value of `all` as a move: listed when `open` holds it, else refused.
    fn split<T: PartialEq>(
        all: impl IntoIterator<Item = T>,
        open: &[T],
        mv: impl Fn(T) -> Move,
        out: &mut (Vec<Move>, Vec<Move>),
    ) {
        for v in all {
            if open.contains(&v) {
                out.0.push(mv(v))
            } else {
                out.1.push(mv(v))
            }
        }
    }

    /// The moves the view lists, and the rest of each kind's candidates (refused).
    fn expand(g: &Tridge) -> (Vec<Move>, Vec<Move>) {
        let mut out = (Vec::new(), Vec::new());
        let seats = || Seat::all(g.players);
        for m in g.view().legal_moves {
            match m {
                LegalMove::Bid { seat, bids } => split(BIDS, &bids, |bid| Move::Bid { seat, bid }, &mut out),
                LegalMove::Pass { seat } => out.0.push(Move::Pass { seat }),
                LegalMove::PassOut => out.0.push(Move::PassOut),
                LegalMove::Result { .. } | LegalMove::CountStock { .. } => {}
                LegalMove::SettleWidowsFund { choices } => split(
                    [WidowsChoice::Split, WidowsChoice::Leave],
                    &choices,
                    |choice| Move::SettleWidowsFund { choice },
                    &mut out,
                ),
                LegalMove::FixedBid { seat, bids } => {
                    let all = (0..=TRICKS).flat_map(|tricks| Suit::ALL.map(|trumps| FixedBidChoice { tricks, trumps }));
                    split(
                        all,
                        &bids,
                        |c| Move::FixedBid {
                            seat,
                            tricks: c.tricks,
                            trumps: Some(c.trumps),
                        },
                        &mut out,
                    )
                }
                LegalMove::InCome { seat } => out.0.push(Move::InCome { seat }),
                LegalMove::Declare {
                    seat,
                    contracts: open,
                    flip_cards,
                } => {
                    split(
                        contracts(),
                        &open,
                        |contract| Move::Declare { seat, contract },
                        &mut out,
                    );
                    split(
                        Card::deck(),
                        &flip_cards,
                        |turned| Move::Declare {
                            seat,
                            contract: Contract::Flip { turned },
                        },
                        &mut out,
                    );
                }
                LegalMove::GiveUp { seat } => out.0.push(Move::GiveUp { seat }),
                LegalMove::Exchange { seat, cards } => {
                    split(0..=TRICKS, &cards, |n| Move::Exchange { seat, cards: n }, &mut out)
                }
                LegalMove::Defence { first_defenders } => split(
                    seats(),
                    &first_defenders,
                    |first_defender| Move::Defence { first_defender },
                    &mut out,
                ),
                LegalMove::Play { seat, trick: _, cards } => {
                    split(Card::deck(), &cards, |card| Move::Play { seat, card }, &mut out);
                    out.1.push(Move::Play {
                        seat: seat.left(1, g.players),
                        card: cards[0],
                    });
                }
                LegalMove::Stop { seat } => out.0.push(Move::Stop {
                    seat,
                    top_trumps: Vec::new(),
                }),
            }
        }
        out
    }

    #[test]
    fn every_listed_move_is_accepted_and_the_others_refused_through_many_deals() {
        let exact = [
            "bid",
            "pass",
            "pass_out",
            "declare",
            "exchange",
            "defence",
            "play",
            "fixed_bid",
            "in_come",
            "give_up",
        ];
        for players in [3, 4] {
            let mut g = Tridge::new(players, Options::default()).expect("set up");
            for seed in 0..12 {
                let start = g.clone();
                let moves = sim::random_deal(&mut g, 100 + seed).expect("a random deal");
                assert_legal_moves_along(start, &moves, &exact, expand);
                if g.is_finished() {
                    break;
                }
            }
        }
    }
}
