//! The In-comer (four participants).

use super::*;

fn all_pass_of_four(g: &mut Tridge) {
    for s in [1, 2, 3] {
        apply(g, Move::Pass { seat: seat(s) });
    }
}

fn in_comer_result(contract: Contract, honours: u8, tricks: [u8; 4]) -> Move {
    Move::Result {
        player: seat(0),
        contract,
        honours: Some(honours),
        top_trumps: None,
        tricks: tricks.to_vec(),
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: true,
    }
}

#[test]
fn the_in_comer_pays_a_quarter_of_the_fund_and_plays_four_card_tricks() {
    let mut g = game(4);
    all_pass_of_four(&mut g);
    assert!(crate::legal::kinds(&g.view().legal_moves).contains(&"in_come"));
    assert_eq!(refused(&mut g, Move::InCome { seat: seat(1) }).code(), "not_your_turn");
    let events = apply(&mut g, Move::InCome { seat: seat(0) });
    let (seats, f, _) = deltas(&events, 1, 4);
    assert_eq!((seats, f), (vec![-5, 0, 0, 0], 5), "a quarter of 20");
    assert_eq!(g.view().sitting_out, None);
    assert_eq!(g.view().active, vec![seat(1), seat(2), seat(3), seat(0)]);
    assert_eq!(
        refused(
            &mut g,
            Move::Declare {
                seat: seat(0),
                contract: Contract::NoChange { trumps: Suit::Hearts }
            }
        )
        .code(),
        "invalid_contract"
    );
    apply(
        &mut g,
        Move::Declare {
            seat: seat(0),
            contract: hearts(),
        },
    );
    // One card each, the In-comer first, clockwise.
    assert_eq!(g.view().to_act, Some(seat(0)));
    assert_eq!(
        refused(
            &mut g,
            Move::Exchange {
                seat: seat(0),
                cards: 2
            }
        )
        .code(),
        "exchange_count"
    );
    for s in [0, 1, 2, 3] {
        apply(
            &mut g,
            Move::Exchange {
                seat: seat(s),
                cards: 1,
            },
        );
    }
    assert_eq!(g.view().phase, Phase::Playing);
    assert_eq!(g.view().to_act, Some(seat(1)), "the dealer's left leads");
    let events = play_tricks(&mut g, &[["KS", "QS", "2S", "AS"]]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TrickWon { winner, .. } if *winner == seat(0))));
    assert_eq!(g.view().to_act, Some(seat(0)));
}

#[test]
fn the_in_comer_wins_with_most_tricks_draws_on_equal_most_and_loses_to_a_defender_with_more() {
    // Win: the fund (20 + the quarter 5) and honours from each of three.
    let mut g = game(4);
    let events = apply(&mut g, in_comer_result(hearts(), 1, [4, 2, 2, 1]));
    let (seats, f, _) = deltas(&events, 1, 4);
    assert_eq!(seats, vec![-5 + 25 + 3, -1, -1, -1]);
    assert_eq!(f, 5 - 25);
    // Draw: equal most.
    let mut g = game(4);
    let events = apply(&mut g, in_comer_result(hearts(), 0, [3, 3, 2, 1]));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DealScored {
            outcome: Outcome::Draw,
            ..
        }
    )));
    assert_eq!(g.view().funds.game_fund, chips(50));
    // Double loss: seat 2 has more than everyone.
    let mut g = game(4);
    let events = apply(&mut g, in_comer_result(hearts(), 0, [2, 1, 4, 2]));
    let (seats, _, _) = deltas(&events, 1, 4);
    assert_eq!(seats, vec![-5 - 25 - 25, 0, 25, 0]);
}

#[test]
fn the_in_comer_may_give_up_and_the_quarter_stays_in_the_fund() {
    let mut g = game(4);
    all_pass_of_four(&mut g);
    apply(&mut g, Move::InCome { seat: seat(0) });
    let events = apply(&mut g, Move::GiveUp { seat: seat(0) });
    assert!(events.contains(&Event::GaveUp { seat: seat(0) }));
    assert_eq!(g.view().funds.game_fund, chips(25));
    assert_eq!(g.view().deal, 2);
    assert_eq!(g.view().sitting_out, Some(seat(1)));
    // Deal 2 passed out: 25 + 20 = 45. Deal 3's In-comer pays ⌈45 / 4⌉ = 12, rounded up.
    for s in [2, 3, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    apply(&mut g, Move::PassOut);
    assert_eq!(g.view().funds.game_fund, chips(45));
    for s in [3, 0, 1] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    let events = apply(&mut g, Move::InCome { seat: seat(2) });
    assert!(events.contains(&Event::CameIn {
        seat: seat(2),
        paid: chips(12)
    }));
    assert_eq!(g.view().funds.game_fund, chips(57));
}

#[test]
fn an_in_comers_quarter_over_the_cap_goes_to_a_reserve() {
    let mut g = game(4);
    for _ in 0..3 {
        apply(&mut g, Move::PassOut);
    }
    assert_eq!(g.view().funds.game_fund, chips(80));
    // Deal 4: dealer seat 3.
    for s in [0, 1, 2] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    let events = apply(&mut g, Move::InCome { seat: seat(3) });
    let (_, f, _) = deltas(&events, 4, 4);
    assert_eq!(f, 0);
    assert_eq!(
        g.view().funds.reserves,
        vec![Reserve {
            number: 1,
            chips: chips(20)
        }]
    );
}

#[test]
fn nobody_comes_in_at_a_table_of_three() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    assert_eq!(
        refused(&mut g, Move::InCome { seat: seat(0) }).code(),
        "move_not_expected"
    );
}
