use proptest::prelude::*;

use super::*;
use crate::ledger::Booking;

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

fn card(s: &str) -> Card {
    s.parse().expect("card")
}

fn chips(n: i64) -> Chips {
    Chips::new(n)
}

fn game(players: usize) -> Tridge {
    Tridge::new(players, Options::default()).expect("game")
}

#[track_caller]
fn apply(g: &mut Tridge, mv: Move) -> Vec<Event> {
    match g.apply(&mv) {
        Ok(events) => {
            assert_balanced(&events);
            assert_eq!(g.chips_on_table(), chips(500 * g.players() as i64), "chips conserved");
            events
        }
        Err(e) => panic!("{mv:?} refused: {e}"),
    }
}

/// A refused move: returns the violation and asserts nothing changed.
#[track_caller]
fn refused(g: &mut Tridge, mv: Move) -> RuleViolation {
    let before = g.clone();
    let err = g.apply(&mv).expect_err("refused");
    assert_eq!(*g, before, "state unchanged after {mv:?}");
    err
}

fn assert_balanced(events: &[Event]) {
    for s in Tridge::settlements(events) {
        let sum: Chips = s.postings.iter().map(|(_, c)| *c).sum();
        assert_eq!(sum, Chips::ZERO, "{}", s.memo);
        assert!(s.deal.is_some());
        assert!(!s.memo.is_empty());
    }
}

/// Net movement per seat and per fund of the bookings of `deal` among `events`.
fn deltas(events: &[Event], deal: u16, players: usize) -> (Vec<i64>, i64, i64) {
    let mut seats = vec![0; players];
    let (mut f, mut w) = (0, 0);
    for e in events {
        if let Event::ChipsMoved { deal: d, transfers, .. } = e {
            if *d != deal {
                continue;
            }
            for t in transfers {
                for (party, sign) in [(t.from, -1), (t.to, 1)] {
                    let amount = sign * t.amount.get();
                    match party {
                        Account::Seat(s) => seats[s.index()] += amount,
                        Account::GameFund => f += amount,
                        Account::WidowsFund => w += amount,
                        Account::Reserve(_) | Account::Bank | Account::Pool(_) => {}
                    }
                }
            }
        }
    }
    (seats, f, w)
}

fn result(player: u8, contract: Contract, honours: u8, tricks: [u8; 3]) -> Move {
    Move::Result {
        player: seat(player),
        contract,
        honours: Some(honours),
        top_trumps: None,
        tricks: tricks.to_vec(),
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: false,
    }
}

fn hearts() -> Contract {
    Contract::Play { trumps: Suit::Hearts }
}

#[test]
fn a_new_table_seeds_both_funds_and_books_them_from_opening_chips() {
    let g = game(3);
    let v = g.view();
    assert_eq!(v.funds.game_fund, chips(15));
    assert_eq!(v.funds.widows_fund, chips(75));
    assert_eq!(v.funds.cap, chips(60));
    assert_eq!(v.chips, vec![chips(470); 3]);
    let opening = g.opening_settlements();
    assert_eq!(opening.len(), 3);
    for s in &opening {
        assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
    }
    // The ledger books one posting per account: the bank issues 3 × 500 in one posting.
    let issue = Booking::from_settlement(&opening[0]).expect("balanced");
    let first = &issue.postings()[0];
    assert_eq!((first.account, first.amount), (Account::Bank, chips(-1500)));
    let four = game(4);
    assert_eq!(four.view().funds.game_fund, chips(20));
    assert_eq!(four.view().sitting_out, Some(seat(0)));
}

#[test]
fn options_out_of_range_are_refused() {
    for options in [
        Options {
            opening_chips: 0,
            ..Options::default()
        },
        Options {
            fund_stake: 0,
            ..Options::default()
        },
        Options {
            fund_cap_multiple: 0,
            ..Options::default()
        },
        Options {
            first_dealer: 3,
            ..Options::default()
        },
    ] {
        assert!(matches!(Tridge::new(3, options), Err(SetupError::InvalidOption { .. })));
    }
    assert!(matches!(
        Tridge::new(5, Options::default()),
        Err(SetupError::PlayerCount { .. })
    ));
}

#[test]
fn the_lead_is_the_dealers_left_and_bids_first() {
    let g = game(3);
    let v = g.view();
    assert_eq!((v.dealer, v.lead, v.to_act), (seat(0), seat(1), Some(seat(1))));
}

// ---- the text's own figures ----

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

// ---- worked settlements: contract × win / draw / loss (F 15, W 75; Player seat 1) ----

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

// ---- refusals change nothing ----

#[test]
fn a_bid_lower_than_the_standing_one_is_refused_and_changes_nothing() {
    let mut g = game(3);
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::PlayMore,
        },
    );
    let err = refused(
        &mut g,
        Move::Bid {
            seat: seat(2),
            bid: Bid::Play,
        },
    );
    assert_eq!(err.code(), "bid_too_low");
    let err = refused(
        &mut g,
        Move::Bid {
            seat: seat(2),
            bid: Bid::PlayMore,
        },
    );
    assert_eq!(err.code(), "bid_too_low", "a later seat may not equal");
}

#[test]
fn no_tricks_before_everyone_passed_is_refused_and_changes_nothing() {
    let mut g = game(3);
    let err = refused(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::NoTricks,
        },
    );
    assert_eq!(err.code(), "no_tricks_before_all_passed");
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(&mut g, Move::Pass { seat: seat(2) });
    apply(&mut g, Move::Pass { seat: seat(0) });
    let err = refused(
        &mut g,
        Move::Declare {
            seat: seat(1),
            contract: Contract::NoTricks { trumps: Suit::Hearts },
        },
    );
    assert_eq!(err.code(), "no_tricks_before_all_passed");
}

#[test]
fn a_fixed_trick_bidder_with_no_trump_declared_is_refused_and_changes_nothing() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    let err = refused(
        &mut g,
        Move::FixedBid {
            seat: seat(1),
            tricks: 2,
            trumps: None,
        },
    );
    assert_eq!(err.code(), "trumps_required");
}

#[test]
fn an_exchange_that_breaks_the_counts_is_refused_and_changes_nothing() {
    let mut g = game(3);
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(&mut g, Move::Pass { seat: seat(2) });
    apply(&mut g, Move::Pass { seat: seat(0) });
    apply(
        &mut g,
        Move::Declare {
            seat: seat(1),
            contract: hearts(),
        },
    );
    let err = refused(
        &mut g,
        Move::Exchange {
            seat: seat(1),
            cards: 10,
        },
    );
    assert_eq!(err.code(), "exchange_count");
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(1),
            cards: 2,
        },
    );
    apply(
        &mut g,
        Move::Defence {
            first_defender: seat(0),
        },
    );
    let err = refused(
        &mut g,
        Move::Exchange {
            seat: seat(0),
            cards: 9,
        },
    );
    assert_eq!(err.code(), "exchange_count", "the 1st Defender takes at most 8");
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(0),
            cards: 8,
        },
    );
    let err = refused(
        &mut g,
        Move::Exchange {
            seat: seat(2),
            cards: 4,
        },
    );
    assert_eq!(err.code(), "exchange_count", "only 3 are left");
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(2),
            cards: 3,
        },
    );
    assert_eq!(g.view().phase, Phase::Playing);
}

#[test]
fn a_trick_split_that_does_not_total_9_is_refused_and_changes_nothing() {
    let mut g = game(3);
    let err = refused(&mut g, result(1, hearts(), 0, [3, 3, 2]));
    assert_eq!(err.code(), "tricks_do_not_add_up");
}

#[test]
fn honours_that_the_stated_trumps_cannot_give_are_refused_and_change_nothing() {
    let mut g = game(3);
    let err = refused(
        &mut g,
        result(1, Contract::NoChange { trumps: Suit::Spades }, 4, [2, 5, 2]),
    );
    assert_eq!(err.code(), "honours_impossible");
    let mv = Move::Result {
        player: seat(1),
        contract: hearts(),
        honours: None,
        top_trumps: Some(vec![card("AS"), card("7D")]),
        tricks: vec![2, 5, 2],
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: false,
    };
    assert_eq!(refused(&mut g, mv).code(), "honours_impossible");
}

#[test]
fn a_move_for_a_seat_that_is_sitting_out_is_refused_and_changes_nothing() {
    let mut g = game(4);
    let err = refused(
        &mut g,
        Move::Bid {
            seat: seat(0),
            bid: Bid::Play,
        },
    );
    assert_eq!(err.code(), "seat_sitting_out");
    let mv = Move::Result {
        player: seat(0),
        contract: hearts(),
        honours: None,
        top_trumps: None,
        tricks: vec![5, 2, 2, 0],
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: false,
    };
    assert_eq!(refused(&mut g, mv).code(), "seat_sitting_out");
}

#[test]
fn a_widows_fund_doubled_past_what_chips_can_hold_is_refused_and_changes_nothing() {
    // Every failed No Tricks pays W into W: W doubles, and the Player's seat goes as far below.
    let mut g = game(3);
    let lost = result(1, Contract::NoTricks { trumps: Suit::Clubs }, 0, [4, 1, 4]);
    let mut losses = 0;
    while g.apply(&lost).is_ok() {
        losses += 1;
        assert!(losses < 80, "the Widow's Fund never stopped doubling");
    }
    assert!(losses > 50, "refused after only {losses} losses");
    assert_eq!(refused(&mut g, lost), RuleViolation::ChipsOutOfRange);
    assert_eq!(g.chips_on_table(), chips(1500));
}

#[test]
fn the_deal_after_the_last_numbered_deal_is_refused_and_changes_nothing() {
    let mut g = game(3);
    g.deal.number = u16::MAX;
    assert_eq!(
        refused(&mut g, Move::PassOut),
        RuleViolation::DealLimit { max: u16::MAX }
    );
    assert_eq!(
        refused(&mut g, result(1, hearts(), 0, [2, 5, 2])),
        RuleViolation::DealLimit { max: u16::MAX }
    );
}

#[test]
fn other_refusals_change_nothing() {
    let mut g = game(3);
    assert_eq!(
        refused(
            &mut g,
            Move::Bid {
                seat: seat(2),
                bid: Bid::Play
            }
        )
        .code(),
        "not_your_turn"
    );
    assert_eq!(
        refused(
            &mut g,
            Move::Play {
                seat: seat(1),
                card: card("AS")
            }
        )
        .code(),
        "move_not_expected"
    );
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::PlayMore,
        },
    );
    apply(&mut g, Move::Pass { seat: seat(2) });
    apply(&mut g, Move::Pass { seat: seat(0) });
    assert_eq!(
        refused(
            &mut g,
            Move::Declare {
                seat: seat(1),
                contract: hearts()
            }
        )
        .code(),
        "contract_below_bid"
    );
    assert_eq!(
        refused(
            &mut g,
            Move::Declare {
                seat: seat(1),
                contract: Contract::Play { trumps: Suit::Diamonds }
            }
        )
        .code(),
        "invalid_contract"
    );
    apply(
        &mut g,
        Move::Declare {
            seat: seat(1),
            contract: Contract::PlayDiamonds,
        },
    );
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(1),
            cards: 4,
        },
    );
    assert_eq!(
        refused(
            &mut g,
            Move::Defence {
                first_defender: seat(1)
            }
        )
        .code(),
        "not_a_defender"
    );
    apply(
        &mut g,
        Move::Defence {
            first_defender: seat(2),
        },
    );
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(2),
            cards: 5,
        },
    );
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(0),
            cards: 4,
        },
    );
    assert_eq!(
        refused(
            &mut g,
            Move::Play {
                seat: seat(1),
                card: card("10H")
            }
        )
        .code(),
        "card_not_in_pack"
    );
    apply(
        &mut g,
        Move::Play {
            seat: seat(1),
            card: card("AS"),
        },
    );
    assert_eq!(
        refused(
            &mut g,
            Move::Play {
                seat: seat(2),
                card: card("AS")
            }
        )
        .code(),
        "card_already_played"
    );
}

// ---- the auction and the all-pass paths ----

#[test]
fn an_earlier_seat_holds_an_equal_bid_and_wins_the_auction() {
    let mut g = game(3);
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(
        &mut g,
        Move::Bid {
            seat: seat(2),
            bid: Bid::PlayMore,
        },
    );
    apply(&mut g, Move::Pass { seat: seat(0) });
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::PlayMore,
        },
    );
    let events = apply(&mut g, Move::Pass { seat: seat(2) });
    assert!(events.contains(&Event::AuctionWon {
        seat: seat(1),
        bid: Bid::PlayMore
    }));
    assert_eq!(g.view().phase, Phase::Declaring);
    assert_eq!(g.view().to_act, Some(seat(1)));
}

#[test]
fn no_tricks_after_everyone_passed_skips_the_players_exchange() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    apply(
        &mut g,
        Move::Bid {
            seat: seat(2),
            bid: Bid::NoTricks,
        },
    );
    apply(
        &mut g,
        Move::Declare {
            seat: seat(2),
            contract: Contract::NoTricks { trumps: Suit::Clubs },
        },
    );
    assert_eq!(g.view().phase, Phase::Defence);
    // Centre is seat 0 (the Player's left), Rear seat 1.
    assert_eq!(g.view().to_act, Some(seat(0)));
}

#[test]
fn the_fixed_trick_auction_takes_the_fewest_tricks_then_the_higher_suit() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    apply(
        &mut g,
        Move::FixedBid {
            seat: seat(1),
            tricks: 2,
            trumps: Some(Suit::Hearts),
        },
    );
    let err = refused(
        &mut g,
        Move::FixedBid {
            seat: seat(2),
            tricks: 2,
            trumps: Some(Suit::Spades),
        },
    );
    assert_eq!(err.code(), "bid_too_low");
    apply(
        &mut g,
        Move::FixedBid {
            seat: seat(2),
            tricks: 2,
            trumps: Some(Suit::Diamonds),
        },
    );
    apply(&mut g, Move::Pass { seat: seat(0) });
    let events = apply(&mut g, Move::Pass { seat: seat(1) });
    let fixed = Contract::FixedTrick {
        tricks: 2,
        trumps: Suit::Diamonds,
    };
    assert!(events.contains(&Event::Declared {
        seat: seat(2),
        contract: fixed,
        trumps: Suit::Diamonds
    }));
    assert_eq!(g.view().phase, Phase::Playing, "no exchange for anyone");
    assert_eq!(g.view().stock_left, 13);
}

#[test]
fn everyone_passing_the_fixed_trick_auction_passes_the_deal_out() {
    let mut g = game(3);
    for s in [1, 2, 0, 1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    assert_eq!(g.view().deal, 2);
    assert_eq!(g.view().funds.game_fund, chips(30));
}

#[test]
fn a_wrong_stock_count_voids_the_deal_and_moves_no_chips() {
    let mut g = game(3);
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(&mut g, Move::Pass { seat: seat(2) });
    apply(&mut g, Move::Pass { seat: seat(0) });
    apply(
        &mut g,
        Move::Declare {
            seat: seat(1),
            contract: hearts(),
        },
    );
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(1),
            cards: 5,
        },
    );
    apply(
        &mut g,
        Move::Defence {
            first_defender: seat(2),
        },
    );
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(2),
            cards: 8,
        },
    );
    let before = g.view().chips;
    let events = apply(&mut g, Move::CountStock { discards: 12, stock: 0 });
    assert!(events.contains(&Event::DealVoid { deal: 1 }));
    assert_eq!(g.view().chips, before);
    assert_eq!(g.view().deal, 2);
    assert!(g.score_sheet().deals[0].void);
}

// ---- the In-comer (four participants) ----

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
    assert!(g.view().legal_moves.contains(&"in_come"));
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
    let events = play_tricks4(&mut g, &[["KS", "QS", "2S", "AS"]]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TrickWon { winner, .. } if *winner == seat(0))));
    assert_eq!(g.view().to_act, Some(seat(0)));
}

fn play_tricks4(g: &mut Tridge, tricks: &[[&str; 4]]) -> Vec<Event> {
    let mut events = Vec::new();
    for cards in tricks {
        for c in cards {
            let s = g.view().to_act.expect("to act");
            events.extend(apply(g, Move::Play { seat: s, card: card(c) }));
        }
    }
    events
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

// ---- card by card ----

fn play_tricks(g: &mut Tridge, tricks: &[[&str; 3]]) -> Vec<Event> {
    let mut events = Vec::new();
    for cards in tricks {
        for c in cards {
            let s = g.view().to_act.expect("to act");
            events.extend(apply(g, Move::Play { seat: s, card: card(c) }));
        }
    }
    events
}

fn declare_hearts_for_seat_1(g: &mut Tridge) {
    apply(
        g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(g, Move::Pass { seat: seat(2) });
    apply(g, Move::Pass { seat: seat(0) });
    apply(
        g,
        Move::Declare {
            seat: seat(1),
            contract: hearts(),
        },
    );
    apply(
        g,
        Move::Exchange {
            seat: seat(1),
            cards: 3,
        },
    );
    apply(
        g,
        Move::Defence {
            first_defender: seat(2),
        },
    );
    apply(
        g,
        Move::Exchange {
            seat: seat(2),
            cards: 6,
        },
    );
    apply(
        g,
        Move::Exchange {
            seat: seat(0),
            cards: 4,
        },
    );
    apply(g, Move::CountStock { discards: 13, stock: 0 });
}

#[test]
fn the_player_may_stop_after_taking_the_first_five_tricks_and_wins() {
    let mut g = game(3);
    declare_hearts_for_seat_1(&mut g);
    // Seat 1 leads each trick (winner leads): A♠, 7♥, A♣, A♥, K♥.
    play_tricks(
        &mut g,
        &[
            ["AS", "2H", "KS"],
            ["7H", "3H", "QS"],
            ["AC", "4H", "JS"],
            ["AH", "5H", "7S"],
            ["KH", "6H", "6S"],
        ],
    );
    let v = g.view();
    assert!(v.may_stop);
    assert_eq!(v.legal_moves, vec!["play", "stop"]);
    let events = apply(
        &mut g,
        Move::Stop {
            seat: seat(1),
            top_trumps: vec![],
        },
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DealScored {
            outcome: Outcome::Win,
            honours: 4,
            ..
        }
    )));
    let (seats, f, _) = deltas(&events, 1, 3);
    assert_eq!(seats, vec![-4, 23, -4]);
    assert_eq!(f, -15);
}

#[test]
fn leading_to_the_sixth_after_five_undertakes_all_tricks() {
    let mut g = game(3);
    declare_hearts_for_seat_1(&mut g);
    play_tricks(
        &mut g,
        &[
            ["AS", "2H", "KS"],
            ["7H", "3H", "QS"],
            ["AC", "4H", "JS"],
            ["AH", "5H", "7S"],
            ["KH", "6H", "6S"],
        ],
    );
    let events = play_tricks(&mut g, &[["QH", "5S", "4S"]]);
    assert!(events.contains(&Event::AllTricksUndertaken { seat: seat(1) }));
    assert!(g.view().all_tricks_undertaken);
    // Seat 2 takes the last three with K♦, Q♦ and Q♣.
    let events = play_tricks(&mut g, &[["2D", "KD", "4D"], ["QD", "JD", "3D"], ["QC", "JC", "5D"]]);
    let scored = events.iter().find_map(|e| match e {
        Event::DealScored {
            outcome,
            all_tricks_made,
            tricks,
            ..
        } => Some((*outcome, *all_tricks_made, tricks.clone())),
        _ => None,
    });
    assert_eq!(scored, Some((Outcome::Win, Some(false), vec![0, 6, 3])));
    let (seats, f, w) = deltas(&events, 1, 3);
    // F 15 + honours 4 each; then W 75 into W and 40 to each.
    assert_eq!(seats, vec![-4 + 40, 15 + 8 - 75 - 80, -4 + 40]);
    assert_eq!((f, w), (-15, 75));
}

#[test]
fn trick_winners_follow_the_trump_order_and_revokes_are_detected_after_the_fact() {
    let mut g = game(3);
    declare_hearts_for_seat_1(&mut g);
    // Trick 1: seat 1 leads K♠, seat 2 trumps with 2♥ (showing void in spades), seat 0 plays Q♠.
    let events = play_tricks(&mut g, &[["KS", "2H", "QS"]]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TrickWon { winner, .. } if *winner == seat(2))));
    // Trick 2: seat 2 leads 3♥; seat 0 plays A♣ (a trump); seat 1 the 7♥ (manille) wins.
    let events = play_tricks(&mut g, &[["3H", "AC", "7H"]]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TrickWon { winner, .. } if *winner == seat(1))));
    // Trick 3: seat 1 leads J♠; seat 2, void in spades since trick 1, plays 7♠: a revoke.
    let events = play_tricks(&mut g, &[["JS", "7S", "6S"]]);
    let revoke = events.iter().find_map(|e| match e {
        Event::RevokeDetected { revoke } => Some(*revoke),
        _ => None,
    });
    assert_eq!(
        revoke,
        Some(Revoke {
            seat: seat(2),
            suit: FollowSuit::Spades,
            revoked_in_trick: 1,
            proven_in_trick: 3
        })
    );
    assert_eq!(g.view().revokes.len(), 1);
}

#[test]
fn a_full_deal_card_by_card_counts_honours_from_the_players_cards() {
    let mut g = game(3);
    declare_hearts_for_seat_1(&mut g);
    // Player seat 1 holds A♠ 7♥ but not A♣: honours 2. Tricks 4:3:2 (a win by splitting).
    let events = play_tricks(
        &mut g,
        &[
            ["AS", "2H", "KS"], // seat 1 leads, A♠ wins
            ["7H", "3H", "QS"], // the manille wins
            ["KD", "QD", "JD"], // diamonds are not trumps: K♦ wins
            ["2D", "AC", "3D"], // seat 2 trumps with A♣
            ["KC", "QC", "JC"], // seat 2 leads K♣ and wins
            ["7C", "6C", "5C"], // 7♣ beats 6♣ and 5♣
            ["4C", "4D", "KH"], // seat 1 trumps the club lead
            ["QH", "5D", "6D"], // seat 1
            ["7D", "3C", "5S"], // seat 1
        ],
    );
    let scored = events.iter().find_map(|e| match e {
        Event::DealScored {
            tricks,
            honours,
            outcome,
            ..
        } => Some((tricks.clone(), *honours, *outcome)),
        _ => None,
    });
    assert_eq!(scored, Some((vec![0, 6, 3], 2, Outcome::Win)));
    // Seat 2 trumped the diamond lead in trick 4 and played 5♦ in trick 8.
    assert_eq!(
        g.score_sheet().deals[0].revokes,
        vec![Revoke {
            seat: seat(2),
            suit: FollowSuit::Diamonds,
            revoked_in_trick: 4,
            proven_in_trick: 8
        }]
    );
    assert_eq!(g.view().deal, 2);
}

#[test]
fn a_fixed_trick_player_found_without_a_trump_is_reported() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    apply(
        &mut g,
        Move::FixedBid {
            seat: seat(1),
            tricks: 3,
            trumps: Some(Suit::Spades),
        },
    );
    apply(&mut g, Move::Pass { seat: seat(2) });
    apply(&mut g, Move::Pass { seat: seat(0) });
    // Seat 1 never plays a spade nor a black ace.
    let events = play_tricks(
        &mut g,
        &[
            ["KH", "2H", "3H"],
            ["QH", "4H", "5H"],
            ["JH", "6H", "7H"],
            ["KD", "2D", "3D"],
            ["QD", "4D", "5D"],
            ["JD", "6D", "7D"],
            ["KC", "2C", "3C"],
            ["QC", "4C", "5C"],
            ["JC", "6C", "7C"],
        ],
    );
    assert!(events.contains(&Event::TrumpNotHeld { seat: seat(1) }));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DealScored {
            outcome: Outcome::OffByMore,
            ..
        }
    )));
}

#[test]
fn the_widows_fund_split_at_the_end_states_its_remainder_and_ends_the_game() {
    let mut g = game(3);
    apply(&mut g, result(1, Contract::NoChangeDiamonds, 1, [3, 3, 3]));
    // W = 75 + 75 + 2 = 152.
    assert_eq!(g.view().funds.widows_fund, chips(152));
    let events = apply(
        &mut g,
        Move::SettleWidowsFund {
            choice: WidowsChoice::Split,
        },
    );
    assert!(events.contains(&Event::WidowsFundSettled {
        choice: WidowsChoice::Split,
        share: chips(50),
        remainder: chips(2)
    }));
    assert_eq!(g.view().funds.widows_fund, chips(2));
    assert!(g.is_finished());
    assert_eq!(g.apply(&Move::PassOut), Err(RuleViolation::GameFinished));
}

#[test]
fn the_widows_fund_may_be_left_and_moves_nothing() {
    let mut g = game(3);
    let events = apply(
        &mut g,
        Move::SettleWidowsFund {
            choice: WidowsChoice::Leave,
        },
    );
    assert!(!events.iter().any(|e| matches!(e, Event::ChipsMoved { .. })));
    assert!(g.is_finished());
}

#[test]
fn settling_the_widows_fund_mid_deal_is_refused() {
    let mut g = game(3);
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    let err = refused(
        &mut g,
        Move::SettleWidowsFund {
            choice: WidowsChoice::Split,
        },
    );
    assert_eq!(err.code(), "move_not_expected");
}

#[test]
fn moves_and_events_serialise_in_the_documented_shapes() {
    let mv: Move = serde_json::from_value(serde_json::json!({
        "kind": "declare", "seat": 1, "contract": {"contract": "play", "trumps": "hearts"}
    }))
    .expect("move");
    assert_eq!(
        mv,
        Move::Declare {
            seat: seat(1),
            contract: hearts()
        }
    );
    let mv: Move = serde_json::from_value(serde_json::json!({
        "kind": "result", "player": 1, "contract": {"contract": "play_diamonds"}, "honours": 2, "tricks": [2, 5, 2]
    }))
    .expect("move");
    assert!(matches!(mv, Move::Result { honours: Some(2), .. }));
    let t = serde_json::to_value(Transfer {
        from: Account::Seat(seat(1)),
        to: Account::Reserve(2),
        amount: chips(5),
    })
    .expect("json");
    assert_eq!(
        t,
        serde_json::json!({"from": {"seat": 1}, "to": {"reserve": 2}, "amount": 5})
    );
}

#[test]
fn a_chips_moved_event_keeps_its_wire_format() {
    let event = Event::ChipsMoved {
        deal: 7,
        reason: "pin".into(),
        transfers: vec![
            Transfer::new(Account::Seat(seat(1)), Account::GameFund, chips(15)),
            Transfer::new(Account::Seat(seat(2)), Account::Reserve(2), chips(5)),
            Transfer::new(Account::WidowsFund, Account::Seat(seat(0)), chips(75)),
            Transfer::new(Account::Bank, Account::Seat(seat(3)), chips(500)),
        ],
    };
    // Serialised by the engine before Tridge booked on `rules::Account` (with its own `Party`
    // and `Transfer`): the audit compares stored events to the replay's byte for byte.
    let wire = r#"{"event":"chips_moved","deal":7,"reason":"pin","transfers":[{"from":{"seat":1},"to":"game_fund","amount":15},{"from":{"seat":2},"to":{"reserve":2},"amount":5},{"from":"widows_fund","to":{"seat":0},"amount":75},{"from":"bank","to":{"seat":3},"amount":500}]}"#;
    assert_eq!(serde_json::to_string(&event).expect("json"), wire);
    assert_eq!(serde_json::from_str::<Event>(wire).expect("event"), event);
}

// ---- random deals ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_deals_keep_every_booking_balanced_and_the_chip_total_constant(seed in any::<u64>(), four in any::<bool>(), deals in 1usize..8) {
        let players = if four { 4 } else { 3 };
        let mut g = game(players);
        let mut log = Vec::new();
        for i in 0..deals {
            log.extend(sim::random_deal(&mut g, seed.wrapping_add(i as u64)).expect("a legal deal"));
            prop_assert_eq!(g.chips_on_table(), chips(500 * players as i64));
            let f = g.view().funds;
            prop_assert!(f.game_fund <= f.cap);
        }
        // Replaying the log gives the identical state.
        let mut replay = game(players);
        let mut booked = BySeat::filled(players, Chips::ZERO);
        for mv in &log {
            let events = replay.apply(mv).expect("replays");
            for s in Tridge::settlements(&events) {
                prop_assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
                for (a, c) in s.postings {
                    if let Account::Seat(x) = a { booked[x] += c; }
                }
            }
        }
        prop_assert_eq!(&replay, &g);
        // The ledger's seat balances agree with the game's chips.
        let opening = 500 - 30;
        for (s, c) in booked.iter() {
            prop_assert_eq!(Chips::new(opening) + *c, g.view().chips[s.index()]);
        }
    }
}
