//! Card by card.

use super::*;

/// Seat 1 declares hearts (`declare_hearts_for_seat_1`), then the exchanges and the defence.
fn hearts_in_play_for_seat_1(g: &mut Tridge) {
    declare_hearts_for_seat_1(g);
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
    hearts_in_play_for_seat_1(&mut g);
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
    assert_eq!(crate::legal::kinds(&v.legal_moves), vec!["play", "stop"]);
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
    hearts_in_play_for_seat_1(&mut g);
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
    hearts_in_play_for_seat_1(&mut g);
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
    hearts_in_play_for_seat_1(&mut g);
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
fn the_dealers_count_is_asked_once_and_a_second_count_is_refused_and_changes_nothing() {
    let mut g = game(3);
    // The helper ends with the dealer's count (13 + 0, good).
    hearts_in_play_for_seat_1(&mut g);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), vec!["play"]);
    assert_eq!(
        refused(&mut g, Move::CountStock { discards: 13, stock: 0 }),
        RuleViolation::StockAlreadyCounted
    );
    assert_eq!(
        refused(&mut g, Move::CountStock { discards: 12, stock: 0 }),
        RuleViolation::StockAlreadyCounted,
        "a recount cannot void the deal either"
    );
}

#[test]
fn a_stored_repeat_of_the_dealers_count_replays_as_it_was_recorded_and_changes_nothing() {
    // Logs stored before the count was asked once hold it again and again.
    let mut g = game(3);
    hearts_in_play_for_seat_1(&mut g);
    let counted = g.clone();
    for _ in 0..3 {
        let events = g
            .replay(&Move::CountStock { discards: 13, stock: 0 })
            .expect("a stored repeat replays");
        assert_eq!(events.as_slice(), [Event::StockCounted { discards: 13, stock: 0 }]);
        assert_eq!(g, counted, "the repeat changes nothing");
    }
    // Recording it afresh is still refused, and play goes on from where it was.
    assert_eq!(
        refused(&mut g, Move::CountStock { discards: 13, stock: 0 }),
        RuleViolation::StockAlreadyCounted
    );
    g.replay(&Move::Play {
        seat: seat(1),
        card: card("AS"),
    })
    .expect("seat 1's lead replays after the repeats");
    // A move no engine accepted is refused on replay too, and changes nothing.
    let mut h = game(3);
    let fresh = h.clone();
    assert!(h.replay(&Move::CountStock { discards: 13, stock: 0 }).is_err());
    assert_eq!(h, fresh);
}
