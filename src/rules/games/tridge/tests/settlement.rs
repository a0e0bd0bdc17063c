//! Worked settlements: contract × win / draw / loss (F 15, W 75; Player seat 1), and the funds after them.

use super::*;

struct Case {
    contract: Contract,
    honours: u8,
    tricks: [u8; 3],
    /// Seat 0, seat 1 (the Player), seat 2.
    seats: [i64; 3],
    fund: i64,
    widows: i64,
    outcome: Outcome,
}

fn cases() -> Vec<Case> {
    let turned = card("5H");
    let loss = |s: u8| Outcome::DoubleLoss { defeating: seat(s) };
    vec![
        // Play: F and honours (1 each) / pay F into F, H into W / and F to the defeater.
        Case {
            contract: hearts(),
            honours: 2,
            tricks: [1, 5, 3],
            seats: [-2, 19, -2],
            fund: -15,
            widows: 0,
            outcome: Outcome::Win,
        },
        Case {
            contract: hearts(),
            honours: 1,
            tricks: [1, 4, 4],
            seats: [0, -16, 0],
            fund: 15,
            widows: 1,
            outcome: Outcome::Draw,
        },
        Case {
            contract: hearts(),
            honours: 1,
            tricks: [4, 3, 2],
            seats: [15, -31, 0],
            fund: 15,
            widows: 1,
            outcome: loss(0),
        },
        // Play diamonds: honours doubled.
        Case {
            contract: Contract::PlayDiamonds,
            honours: 3,
            tricks: [2, 5, 2],
            seats: [-6, 27, -6],
            fund: -15,
            widows: 0,
            outcome: Outcome::Win,
        },
        Case {
            contract: Contract::PlayDiamonds,
            honours: 3,
            tricks: [3, 3, 3],
            seats: [0, -21, 0],
            fund: 15,
            widows: 6,
            outcome: Outcome::Draw,
        },
        Case {
            contract: Contract::PlayDiamonds,
            honours: 3,
            tricks: [0, 4, 5],
            seats: [0, -36, 15],
            fund: 15,
            widows: 6,
            outcome: loss(2),
        },
        // Flip: plus 5 each.
        Case {
            contract: Contract::Flip { turned },
            honours: 0,
            tricks: [0, 6, 3],
            seats: [-5, 25, -5],
            fund: -15,
            widows: 0,
            outcome: Outcome::Win,
        },
        Case {
            contract: Contract::Flip { turned },
            honours: 0,
            tricks: [1, 4, 4],
            seats: [5, -25, 5],
            fund: 15,
            widows: 0,
            outcome: Outcome::Draw,
        },
        Case {
            contract: Contract::Flip { turned },
            honours: 0,
            tricks: [5, 4, 0],
            seats: [20, -40, 5],
            fund: 15,
            widows: 0,
            outcome: loss(0),
        },
        // No Change: plus 10 each.
        Case {
            contract: Contract::NoChange { trumps: Suit::Spades },
            honours: 3,
            tricks: [2, 4, 3],
            seats: [-13, 41, -13],
            fund: -15,
            widows: 0,
            outcome: Outcome::Win,
        },
        Case {
            contract: Contract::NoChange { trumps: Suit::Spades },
            honours: 3,
            tricks: [3, 3, 3],
            seats: [10, -38, 10],
            fund: 15,
            widows: 3,
            outcome: Outcome::Draw,
        },
        Case {
            contract: Contract::NoChange { trumps: Suit::Spades },
            honours: 3,
            tricks: [2, 3, 4],
            seats: [10, -53, 25],
            fund: 15,
            widows: 3,
            outcome: loss(2),
        },
        // No Change diamonds: F + W + 20 each + doubled honours.
        Case {
            contract: Contract::NoChangeDiamonds,
            honours: 4,
            tricks: [0, 9, 0],
            seats: [-28, 146, -28],
            fund: -15,
            widows: -75,
            outcome: Outcome::Win,
        },
        Case {
            contract: Contract::NoChangeDiamonds,
            honours: 4,
            tricks: [4, 4, 1],
            seats: [20, -138, 20],
            fund: 15,
            widows: 83,
            outcome: Outcome::Draw,
        },
        Case {
            contract: Contract::NoChangeDiamonds,
            honours: 4,
            tricks: [4, 3, 2],
            seats: [35, -153, 20],
            fund: 15,
            widows: 83,
            outcome: loss(0),
        },
        // No Tricks: only win or lose; no defender payment.
        Case {
            contract: Contract::NoTricks { trumps: Suit::Clubs },
            honours: 0,
            tricks: [5, 0, 4],
            seats: [-40, 170, -40],
            fund: -15,
            widows: -75,
            outcome: Outcome::Win,
        },
        Case {
            contract: Contract::NoTricks { trumps: Suit::Clubs },
            honours: 0,
            tricks: [4, 1, 4],
            seats: [40, -170, 40],
            fund: 15,
            widows: 75,
            outcome: Outcome::Lost,
        },
        // All Tricks.
        Case {
            contract: Contract::AllTricks { trumps: Suit::Hearts },
            honours: 2,
            tricks: [0, 9, 0],
            seats: [-42, 174, -42],
            fund: -15,
            widows: -75,
            outcome: Outcome::Win,
        },
        Case {
            contract: Contract::AllTricks { trumps: Suit::Hearts },
            honours: 2,
            tricks: [1, 8, 0],
            seats: [40, -172, 40],
            fund: 15,
            widows: 77,
            outcome: Outcome::Lost,
        },
        // Fixed Trick: exact (extras 20/10/5), off by one (half F), off by two or more (5/4/3 each).
        Case {
            contract: Contract::FixedTrick {
                tricks: 1,
                trumps: Suit::Spades,
            },
            honours: 1,
            tricks: [4, 1, 4],
            seats: [-21, 57, -21],
            fund: -15,
            widows: 0,
            outcome: Outcome::Exact,
        },
        Case {
            contract: Contract::FixedTrick {
                tricks: 3,
                trumps: Suit::Spades,
            },
            honours: 0,
            tricks: [3, 3, 3],
            seats: [-5, 25, -5],
            fund: -15,
            widows: 0,
            outcome: Outcome::Exact,
        },
        Case {
            contract: Contract::FixedTrick {
                tricks: 2,
                trumps: Suit::Hearts,
            },
            honours: 0,
            tricks: [4, 0, 5],
            seats: [4, -23, 4],
            fund: 15,
            widows: 0,
            outcome: Outcome::OffByMore,
        },
    ]
}

#[test]
fn each_contract_settles_as_the_notes_table_says_in_win_draw_and_loss() {
    for case in cases() {
        let mut g = game(3);
        let events = apply(&mut g, result(1, case.contract, case.honours, case.tricks));
        let (seats, f, w) = deltas(&events, 1, 3);
        let label = format!("{:?} {:?}", case.contract, case.tricks);
        assert_eq!(seats, case.seats.to_vec(), "{label}");
        assert_eq!((f, w), (case.fund, case.widows), "{label}");
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::DealScored { outcome, .. } if *outcome == case.outcome)),
            "{label}"
        );
        assert_eq!(g.view().deal, 2);
    }
}

#[test]
fn the_dealer_of_four_sits_out_but_pays_and_collects() {
    let mut g = game(4);
    // Dealer seat 0 sits out; Player seat 1 wins Flip: 5 from each of seats 0, 2 and 3.
    let mv = Move::Result {
        player: seat(1),
        contract: Contract::Flip { turned: card("KH") },
        honours: Some(0),
        top_trumps: None,
        tricks: vec![0, 5, 2, 2],
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: false,
    };
    let events = apply(&mut g, mv);
    let (seats, f, _) = deltas(&events, 1, 4);
    assert_eq!(seats, vec![-5, 35, -5, -5]);
    assert_eq!(f, -20);
    // Deal 2: seat 1 deals and sits out.
    assert_eq!(g.view().sitting_out, Some(seat(1)));
    assert_eq!(g.view().lead, seat(2));
}

#[test]
fn a_win_reseeds_the_game_fund_and_a_widows_win_reseeds_the_widows_fund() {
    let mut g = game(3);
    let events = apply(&mut g, result(1, Contract::NoChangeDiamonds, 0, [0, 9, 0]));
    let (seats, f, w) = deltas(&events, 2, 3);
    assert_eq!(seats, vec![-30, -30, -30]);
    assert_eq!((f, w), (15, 75));
    assert_eq!(g.view().funds.game_fund, chips(15));
    assert_eq!(g.view().funds.widows_fund, chips(75));
    // A Play win leaves the Widow's Fund alone.
    let events = apply(&mut g, result(2, hearts(), 0, [2, 2, 5]));
    let (seats, _, w) = deltas(&events, 3, 3);
    assert_eq!((seats, w), (vec![-5, -5, -5], 0));
}

#[test]
fn after_a_draw_nobody_contributes_until_the_raised_fund_is_won() {
    let mut g = game(3);
    apply(&mut g, result(1, hearts(), 0, [3, 3, 3]));
    assert_eq!(g.view().funds.game_fund, chips(30));
    // An all-pass adds nothing to a raised fund.
    let events = apply(&mut g, Move::PassOut);
    assert!(!events.iter().any(|e| matches!(e, Event::ChipsMoved { .. })));
    assert_eq!(g.view().funds.game_fund, chips(30));
}

#[test]
fn losses_over_the_cap_fill_a_reserve_played_for_after_the_fund_is_won() {
    let mut g = game(3);
    // 15 → draw → 30 → draw → 60 (cap) → draw: 60 more, all into Reserve 1.
    apply(&mut g, result(1, hearts(), 0, [3, 3, 3]));
    apply(&mut g, result(2, hearts(), 0, [3, 3, 3]));
    assert_eq!(g.view().funds.game_fund, chips(60));
    apply(&mut g, result(0, hearts(), 0, [3, 3, 3]));
    assert_eq!(g.view().funds.game_fund, chips(60));
    assert_eq!(
        g.view().funds.reserves,
        vec![Reserve {
            number: 1,
            chips: chips(60)
        }]
    );
    // Another loss during the same fund: Reserve 1 is full (a Reserve never exceeds the cap
    // either), so its 60 start Reserve 2.
    apply(&mut g, result(1, hearts(), 0, [4, 3, 2]));
    assert_eq!(
        g.view().funds.reserves,
        vec![
            Reserve {
                number: 1,
                chips: chips(60)
            },
            Reserve {
                number: 2,
                chips: chips(60)
            }
        ]
    );
    // The fund is won: Reserve 1 becomes the Game Fund, nobody stakes; Reserve 2 waits.
    let events = apply(&mut g, result(2, hearts(), 0, [2, 2, 5]));
    let (seats, f, _) = deltas(&events, 6, 3);
    assert_eq!(seats, vec![0, 0, 0]);
    assert_eq!(f, 60);
    assert_eq!(g.view().funds.game_fund, chips(60));
    assert_eq!(
        g.view().funds.reserves,
        vec![Reserve {
            number: 2,
            chips: chips(60)
        }]
    );
    // An all-pass adds nothing while Reserve 2 waits.
    let events = apply(&mut g, Move::PassOut);
    assert!(!events.iter().any(|e| matches!(e, Event::ChipsMoved { .. })));
    // Won again: Reserve 2 comes into play.
    apply(&mut g, result(1, hearts(), 0, [2, 5, 2]));
    assert_eq!(g.view().funds.game_fund, chips(60));
    assert!(g.view().funds.reserves.is_empty());
    // Won once more with no Reserve left: everyone stakes 5 again.
    let events = apply(&mut g, result(2, hearts(), 0, [2, 2, 5]));
    let (seats, f, _) = deltas(&events, 9, 3);
    assert_eq!((seats, f), (vec![-5, -5, -5], 15));
}

#[test]
fn all_tricks_undertaken_after_the_fifth_and_failed_still_collects_the_fund() {
    let mut g = game(3);
    let mv = Move::Result {
        player: seat(1),
        contract: hearts(),
        honours: Some(1),
        top_trumps: None,
        tricks: vec![1, 8, 0],
        stopped_after_five: false,
        all_tricks_after_fifth: true,
        in_comer: false,
    };
    let events = apply(&mut g, mv);
    let (seats, f, w) = deltas(&events, 1, 3);
    // +15 fund +1 honour each; -75 into W; -40 to each.
    assert_eq!(seats, vec![39, 15 + 2 - 75 - 80, 39]);
    assert_eq!((f, w), (-15, 75));
    let mut g = game(3);
    let mv = Move::Result {
        player: seat(1),
        contract: hearts(),
        honours: Some(1),
        top_trumps: None,
        tricks: vec![0, 9, 0],
        stopped_after_five: false,
        all_tricks_after_fifth: true,
        in_comer: false,
    };
    let events = apply(&mut g, mv);
    let (seats, f, w) = deltas(&events, 1, 3);
    assert_eq!(seats, vec![-41, 15 + 2 + 75 + 80, -41]);
    assert_eq!((f, w), (-15, -75));
}

#[test]
fn all_tricks_failed_after_a_no_change_diamonds_win_pays_back_the_widows_fund_it_took() {
    let mut g = game(3);
    let mv = Move::Result {
        player: seat(1),
        contract: Contract::NoChangeDiamonds,
        honours: Some(0),
        top_trumps: None,
        tricks: vec![1, 8, 0],
        stopped_after_five: false,
        all_tricks_after_fifth: true,
        in_comer: false,
    };
    let events = apply(&mut g, mv);
    let (seats, f, w) = deltas(&events, 1, 3);
    // +15 F, +75 W, +20 each; then W (75) matched and 40 to each.
    assert_eq!(seats, vec![-20 + 40, 15 + 75 + 40 - 75 - 80, -20 + 40]);
    assert_eq!((f, w), (-15, 0));
    // Not won, so not re-seeded: the Widow's Fund holds its 75 into deal 2.
    assert_eq!(g.score_sheet().funds.widows_fund, chips(75));
}

#[test]
fn result_only_honours_can_be_given_as_the_top_trumps_held() {
    let mut g = game(3);
    let mv = Move::Result {
        player: seat(1),
        contract: Contract::PlayDiamonds,
        honours: None,
        top_trumps: Some(vec![card("AS"), card("7D"), card("AD")]),
        tricks: vec![2, 5, 2],
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: false,
    };
    let events = apply(&mut g, mv);
    // A♠ and the manille count; A♣ is missing so the red ace does not.
    assert!(events.iter().any(|e| matches!(e, Event::DealScored { honours: 2, .. })));
}
