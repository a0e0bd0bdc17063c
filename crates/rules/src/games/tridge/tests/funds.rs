//! The text's own figures for the funds, and the outcome classes.

use super::*;

#[test]
fn a_three_player_fund_grows_15_30_45_on_passes() {
    let mut g = game(3);
    let mut seen = vec![g.view().funds.game_fund];
    for _ in 0..2 {
        let lead = g.view().lead;
        for i in 0..3 {
            let s = g.active_seats()[i];
            apply(&mut g, Move::Pass { seat: s });
            let _ = lead;
        }
        assert_eq!(g.view().phase, Phase::AllPassed);
        apply(&mut g, Move::PassOut);
        seen.push(g.view().funds.game_fund);
    }
    assert_eq!(seen, vec![chips(15), chips(30), chips(45)]);
    assert_eq!(g.view().deal, 3);
    assert_eq!(g.view().dealer, seat(2));
}

#[test]
fn passes_beyond_the_cap_form_a_reserve_and_then_nobody_contributes() {
    let mut g = game(3);
    for _ in 0..3 {
        apply(&mut g, Move::PassOut);
    }
    assert_eq!(g.view().funds.game_fund, chips(60));
    let events = apply(&mut g, Move::PassOut);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ChipsMoved { reason, .. } if reason.contains("Reserve 1"))));
    let f = g.view().funds;
    assert_eq!(f.game_fund, chips(60));
    assert_eq!(
        f.reserves,
        vec![Reserve {
            number: 1,
            chips: chips(15)
        }]
    );
    let events = apply(&mut g, Move::PassOut);
    assert!(
        !events.iter().any(|e| matches!(e, Event::ChipsMoved { .. })),
        "no contributions while a Reserve waits"
    );
    assert_eq!(g.view().funds.reserves[0].chips, chips(15));
}

#[test]
fn a_draw_on_a_30_fund_makes_it_60() {
    let mut g = game(3);
    apply(&mut g, Move::PassOut);
    assert_eq!(g.view().funds.game_fund, chips(30));
    let player = g.view().lead;
    let before = g.view().chips[player.index()];
    // Deal 2: dealer seat 1, active 2, 0, 1. The Player (seat 2) draws 4:4:1.
    apply(&mut g, result(2, hearts(), 0, [4, 1, 4]));
    assert_eq!(g.view().funds.game_fund, chips(60));
    assert!(g.view().funds.raised);
    assert_eq!(g.view().chips[2], chips(470 - 5 - 30));
    let _ = before;
}

#[test]
fn diamond_honours_of_three_tops_pay_6_from_each_payer() {
    let mut g = game(3);
    let events = apply(&mut g, result(1, Contract::PlayDiamonds, 3, [2, 5, 2]));
    let honours: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::ChipsMoved { reason, .. } if reason.contains("honours")))
        .collect();
    assert_eq!(honours.len(), 1);
    let Event::ChipsMoved { transfers, .. } = honours[0] else {
        unreachable!()
    };
    assert_eq!(transfers.len(), 2);
    assert!(transfers
        .iter()
        .all(|t| t.amount == chips(6) && t.to == Account::Seat(seat(1))));
}

#[test]
fn a_fixed_two_trick_contract_made_by_one_too_many_collects_10_from_a_15_fund() {
    let mut g = game(3);
    let contract = Contract::FixedTrick {
        tricks: 2,
        trumps: Suit::Hearts,
    };
    let events = apply(&mut g, result(1, contract, 1, [3, 3, 3]));
    let (seats, f, w) = deltas(&events, 1, 3);
    assert_eq!(seats, vec![0, 10, 0]);
    assert_eq!((f, w), (-10, 0));
    assert_eq!(
        g.view().funds.game_fund,
        chips(5),
        "the rest stays in the fund, with no new stakes"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DealScored {
            outcome: Outcome::OffByOne,
            ..
        }
    )));
}

#[test]
fn half_the_fund_follows_the_texts_figures() {
    assert_eq!(half_fund(chips(15)), chips(10));
    assert_eq!(half_fund(chips(45)), chips(20));
    assert_eq!(half_fund(chips(30)), chips(15));
    assert_eq!(half_fund(chips(60)), chips(30));
    assert_eq!(half_fund(chips(25)), chips(15));
}

// ---- outcome classes ----

#[test]
fn every_outcome_class_is_recognised_from_the_trick_split() {
    let (a, b) = (seat(2), seat(0));
    let c = |p, d1, d2| classify(p, &[(a, d1), (b, d2)]);
    for (p, d1, d2) in [(5, 4, 0), (5, 3, 1), (4, 3, 2), (5, 0, 4), (6, 2, 1), (9, 0, 0)] {
        assert_eq!(c(p, d1, d2), Outcome::Win, "{p}:{d1}:{d2}");
    }
    for (p, d1, d2) in [(4, 4, 1), (4, 1, 4), (3, 3, 3), (1, 4, 4)] {
        assert_eq!(c(p, d1, d2), Outcome::Draw, "{p}:{d1}:{d2}");
    }
    assert_eq!(c(3, 4, 2), Outcome::DoubleLoss { defeating: a });
    assert_eq!(c(4, 5, 0), Outcome::DoubleLoss { defeating: a });
    assert_eq!(c(3, 2, 4), Outcome::DoubleLoss { defeating: b });
    assert_eq!(c(4, 0, 5), Outcome::DoubleLoss { defeating: b });
    assert_eq!(c(2, 3, 4), Outcome::DoubleLoss { defeating: b });
}
