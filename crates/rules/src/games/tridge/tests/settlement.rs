//! Worked settlements: contract × win / draw / loss (F 15, W 75; Player seat 1), and the funds after them.

use super::*;

/// One worked settlement: the contract, the Player's honours and each seat's tricks (seat 1 is
/// the Player), then what each seat, the Game Fund and the Widow's Fund gain, and the outcome.
struct Case {
    contract: Contract,
    honours: u8,
    tricks: [u8; 3],
    seats: [i64; 3],
    fund: i64,
    widows: i64,
    outcome: Outcome,
}

fn case(
    contract: Contract,
    honours: u8,
    tricks: [u8; 3],
    seats: [i64; 3],
    fund: i64,
    widows: i64,
    outcome: Outcome,
) -> Case {
    Case {
        contract,
        honours,
        tricks,
        seats,
        fund,
        widows,
        outcome,
    }
}

fn cases() -> Vec<Case> {
    let turned = card("5H");
    let loss = |s: u8| Outcome::DoubleLoss { defeating: seat(s) };
    let (win, draw, exact, lost) = (Outcome::Win, Outcome::Draw, Outcome::Exact, Outcome::Lost);
    #[rustfmt::skip]
    let cases = vec![
        //   contract                                                  H  tricks      seats             F    W  outcome
        // Play: F and honours (1 each) / pay F into F, H into W / and F to the defeater.
        case(hearts(),                                                2, [1, 5, 3], [-2, 19, -2],      -15,   0, win),
        case(hearts(),                                                1, [1, 4, 4], [0, -16, 0],        15,   1, draw),
        case(hearts(),                                                1, [4, 3, 2], [15, -31, 0],       15,   1, loss(0)),
        // Play diamonds: honours doubled.
        case(Contract::PlayDiamonds,                                  3, [2, 5, 2], [-6, 27, -6],      -15,   0, win),
        case(Contract::PlayDiamonds,                                  3, [3, 3, 3], [0, -21, 0],        15,   6, draw),
        case(Contract::PlayDiamonds,                                  3, [0, 4, 5], [0, -36, 15],       15,   6, loss(2)),
        // Flip: plus 5 each.
        case(Contract::Flip { turned },                               0, [0, 6, 3], [-5, 25, -5],      -15,   0, win),
        case(Contract::Flip { turned },                               0, [1, 4, 4], [5, -25, 5],        15,   0, draw),
        case(Contract::Flip { turned },                               0, [5, 4, 0], [20, -40, 5],       15,   0, loss(0)),
        // No Change: plus 10 each.
        case(Contract::NoChange { trumps: Suit::Spades },             3, [2, 4, 3], [-13, 41, -13],    -15,   0, win),
        case(Contract::NoChange { trumps: Suit::Spades },             3, [3, 3, 3], [10, -38, 10],      15,   3, draw),
        case(Contract::NoChange { trumps: Suit::Spades },             3, [2, 3, 4], [10, -53, 25],      15,   3, loss(2)),
        // No Change diamonds: F + W + 20 each + doubled honours.
        case(Contract::NoChangeDiamonds,                              4, [0, 9, 0], [-28, 146, -28],   -15, -75, win),
        case(Contract::NoChangeDiamonds,                              4, [4, 4, 1], [20, -138, 20],     15,  83, draw),
        case(Contract::NoChangeDiamonds,                              4, [4, 3, 2], [35, -153, 20],     15,  83, loss(0)),
        // No Tricks: only win or lose; no defender payment.
        case(Contract::NoTricks { trumps: Suit::Clubs },              0, [5, 0, 4], [-40, 170, -40],   -15, -75, win),
        case(Contract::NoTricks { trumps: Suit::Clubs },              0, [4, 1, 4], [40, -170, 40],     15,  75, lost),
        // All Tricks.
        case(Contract::AllTricks { trumps: Suit::Hearts },            2, [0, 9, 0], [-42, 174, -42],   -15, -75, win),
        case(Contract::AllTricks { trumps: Suit::Hearts },            2, [1, 8, 0], [40, -172, 40],     15,  77, lost),
        // Fixed Trick: exact (extras 20/10/5), off by one (half F), off by two or more (5/4/3 each).
        case(Contract::FixedTrick { tricks: 1, trumps: Suit::Spades }, 1, [4, 1, 4], [-21, 57, -21],    -15,   0, exact),
        case(Contract::FixedTrick { tricks: 3, trumps: Suit::Spades }, 0, [3, 3, 3], [-5, 25, -5],      -15,   0, exact),
        case(Contract::FixedTrick { tricks: 2, trumps: Suit::Hearts }, 0, [4, 0, 5], [4, -23, 4],        15,   0, Outcome::OffByMore),
    ];
    cases
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
    let events = apply(
        &mut g,
        result(1, Contract::Flip { turned: card("KH") }, 0, [0, 5, 2, 2]),
    );
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
    // Tricks, then each seat's, the Game Fund's and the Widow's Fund's gain.
    let cases = [
        // Failed: +15 fund +1 honour each; -75 into W; -40 to each.
        ([1, 8, 0], [39, 15 + 2 - 75 - 80, 39], -15, 75),
        // Made: +75 from W and 40 from each.
        ([0, 9, 0], [-41, 15 + 2 + 75 + 80, -41], -15, -75),
    ];
    for (tricks, seats, fund, widows) in cases {
        let mut g = game(3);
        let events = apply(&mut g, after_fifth(result(1, hearts(), 1, tricks)));
        assert_eq!(deltas(&events, 1, 3), (seats.to_vec(), fund, widows), "{tricks:?}");
    }
}

#[test]
fn all_tricks_failed_after_a_no_change_diamonds_win_pays_back_the_widows_fund_it_took() {
    let mut g = game(3);
    let events = apply(&mut g, after_fifth(result(1, Contract::NoChangeDiamonds, 0, [1, 8, 0])));
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
    let mut mv = result(1, Contract::PlayDiamonds, 0, [2, 5, 2]);
    if let Move::Result {
        honours, top_trumps, ..
    } = &mut mv
    {
        (*honours, *top_trumps) = (None, Some(vec![card("AS"), card("7D"), card("AD")]));
    }
    let events = apply(&mut g, mv);
    // A♠ and the manille count; A♣ is missing so the red ace does not.
    assert!(events.iter().any(|e| matches!(e, Event::DealScored { honours: 2, .. })));
}
