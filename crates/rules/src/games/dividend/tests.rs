//! Dividend: the rules as examples, then properties over random legal games.

use proptest::prelude::*;

use super::*;
use crate::deck::SplitMix64;
use crate::games::testing::{apply, assert_refused, not_expected};

// ---------------------------------------------------------------------------------------------
// Helpers

fn card(text: &str) -> Card {
    text.parse().expect("card")
}

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

fn seats(ns: &[u8]) -> Vec<Seat> {
    ns.iter().copied().map(Seat::new).collect()
}

fn game() -> Dividend {
    game_with(Options::default())
}

fn game_with(options: Options) -> Dividend {
    Dividend::new(4, options).expect("a valid set-up")
}

fn partnerships() -> Options {
    Options {
        partnerships: true,
        ..Options::default()
    }
}

fn deals(n: u16) -> GameLength {
    GameLength::Deals { deals: n }
}

fn points(target: u16) -> GameLength {
    GameLength::Points { target }
}

fn play(seat: u8, card_text: &str) -> Move {
    Move::Play {
        seat: Seat::new(seat),
        card: card(card_text),
    }
}

fn trick(winner: u8) -> Move {
    Move::Trick {
        winner: Seat::new(winner),
        number: None,
    }
}

fn numbered_trick(winner: u8, number: u8) -> Move {
    Move::Trick {
        winner: Seat::new(winner),
        number: Some(number),
    }
}

fn result(cards_won: &[u8]) -> Move {
    Move::Result {
        cards_won: cards_won.to_vec(),
    }
}

/// Plays `cards` in turn, starting with the seat to play; returns the events of the last card.
#[track_caller]
fn play_in_turn(game: &mut Dividend, cards: &[&str]) -> Vec<Event> {
    let mut events = Vec::new();
    for text in cards {
        let seat = game.view().to_act.expect("a seat to play");
        events = apply(game, Move::Play { seat, card: card(text) });
    }
    events
}

/// The (winner, position, shares) of the trick won in `events`.
fn trick_won(events: &[Event]) -> Option<(Seat, u8, Vec<u8>)> {
    events.iter().find_map(|e| match e {
        Event::TrickWon {
            winner,
            position,
            shares,
            ..
        } => Some((*winner, *position, shares.clone())),
        _ => None,
    })
}

fn deal_points(events: &[Event]) -> Option<Vec<i32>> {
    events.iter().find_map(|e| match e {
        Event::DealScored { points, .. } => Some(points.clone()),
        _ => None,
    })
}

/// Thirteen tricks all won by the leader of each: everyone gets 13.
fn thirteen_tricks_to_the_leader(game: &mut Dividend) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..TRICKS {
        let leader = game.view().current_trick.expect("a trick").leader;
        events = apply(
            game,
            Move::Trick {
                winner: leader,
                number: None,
            },
        );
    }
    events
}

// ---------------------------------------------------------------------------------------------
// The cyclic trumps

#[test]
fn each_suit_led_is_trumped_by_the_next_in_the_cycle() {
    assert_eq!(trump_for(Suit::Hearts), Suit::Spades);
    assert_eq!(trump_for(Suit::Clubs), Suit::Hearts);
    assert_eq!(trump_for(Suit::Diamonds), Suit::Clubs);
    assert_eq!(trump_for(Suit::Spades), Suit::Diamonds);
}

/// Plays one trick of a fresh game (dealer seat 0, so seat 1 leads) and returns its winner.
fn first_trick_winner(cards: [&str; 4]) -> Seat {
    let mut game = game();
    let events = play_in_turn(&mut game, &cards);
    trick_won(&events).expect("the trick is complete").0
}

#[test]
fn a_heart_lead_is_trumped_by_a_spade() {
    // Seat 1 leads A♥; seat 2's 2♠ trumps; seat 0's A♦ is a discard.
    assert_eq!(first_trick_winner(["AH", "2S", "KH", "AD"]), seat(2));
}

#[test]
fn a_club_lead_is_trumped_by_a_heart_and_a_spade_is_a_discard() {
    assert_eq!(first_trick_winner(["AC", "KC", "2H", "AS"]), seat(3));
}

#[test]
fn a_diamond_lead_is_trumped_by_a_club_which_a_heart_cannot_overtrump() {
    // The rule text's example: a club played to a diamond trick cannot be trumped by a heart.
    assert_eq!(first_trick_winner(["AD", "2C", "AH", "KD"]), seat(2));
}

#[test]
fn a_spade_lead_is_trumped_by_a_diamond() {
    assert_eq!(first_trick_winner(["AS", "KS", "QS", "2D"]), seat(0));
}

#[test]
fn a_heart_on_a_diamond_lead_is_a_discard_and_cannot_win() {
    // A♥ and A♠ are neither diamonds nor clubs: the 3♦ wins.
    assert_eq!(first_trick_winner(["2D", "AH", "3D", "AS"]), seat(3));
}

#[test]
fn the_highest_trump_wins_when_several_are_played() {
    assert_eq!(first_trick_winner(["AH", "2S", "KS", "3S"]), seat(3));
}

#[test]
fn without_a_trump_the_highest_card_of_the_suit_led_wins() {
    assert_eq!(first_trick_winner(["10C", "JC", "AD", "9C"]), seat(2));
}

#[test]
fn the_view_names_the_trump_of_the_trick_once_a_card_is_led() {
    let mut game = game();
    assert_eq!(game.view().current_trick.expect("trick").trumps, None);
    apply(&mut game, play(1, "5D"));
    assert_eq!(game.view().current_trick.expect("trick").trumps, Some(Suit::Clubs));
}

// ---------------------------------------------------------------------------------------------
// Sharing a trick's cards by the winner's position

#[test]
fn the_shares_by_position_follow_the_rules() {
    let leader = seat(1);
    // 1st: keeps one and gives one to every other player.
    assert_eq!(shares(leader, seat(1)), [1, 1, 1, 1]);
    // 2nd (seat 2): keeps two, one each to the right (the leader) and left (the third player).
    assert_eq!(shares(leader, seat(2)), [0, 1, 2, 1]);
    // 3rd (seat 3): keeps three, gives one to the player opposite (the leader).
    assert_eq!(shares(leader, seat(3)), [0, 1, 0, 3]);
    // 4th (seat 0): keeps all four.
    assert_eq!(shares(leader, seat(0)), [4, 0, 0, 0]);
    for l in 0..4 {
        for w in 0..4 {
            assert_eq!(shares(seat(l), seat(w)).iter().sum::<u8>(), 4);
        }
    }
}

#[test]
fn a_trick_won_by_the_leader_gives_every_player_one_card() {
    let mut game = game();
    let events = play_in_turn(&mut game, &["AH", "2H", "3H", "4H"]);
    assert_eq!(trick_won(&events), Some((seat(1), 1, vec![1, 1, 1, 1])));
    assert_eq!(game.view().cards_won, [1, 1, 1, 1]);
}

#[test]
fn a_trick_won_second_gives_the_winner_two_and_the_leader_and_third_player_one_each() {
    let mut game = game();
    let events = play_in_turn(&mut game, &["2H", "KH", "3H", "4H"]);
    assert_eq!(trick_won(&events), Some((seat(2), 2, vec![0, 1, 2, 1])));
}

#[test]
fn a_trick_won_third_gives_the_winner_three_and_the_leader_one() {
    let mut game = game();
    let events = play_in_turn(&mut game, &["2H", "3H", "AH", "4H"]);
    assert_eq!(trick_won(&events), Some((seat(3), 3, vec![0, 1, 0, 3])));
}

#[test]
fn a_trick_won_fourth_gives_the_winner_all_four_cards() {
    let mut game = game();
    let events = play_in_turn(&mut game, &["2H", "3H", "4H", "AH"]);
    assert_eq!(trick_won(&events), Some((seat(0), 4, vec![4, 0, 0, 0])));
}

#[test]
fn the_winner_of_a_trick_leads_the_next() {
    let mut game = game();
    play_in_turn(&mut game, &["2H", "3H", "AH", "4H"]);
    let view = game.view();
    assert_eq!(view.to_act, Some(seat(3)));
    assert_eq!(view.current_trick.expect("trick").leader, seat(3));
    assert_refused(
        &game,
        play(0, "5H"),
        RuleViolation::NotYourTurn {
            expected: seat(3),
            got: seat(0),
        },
    );
}

#[test]
fn a_trick_entered_by_its_winner_shares_the_cards_by_the_winners_position() {
    let mut game = game();
    // Seat 1 leads trick 1.
    let cases = [
        (2, seat(2), 2, vec![0, 1, 2, 1]),
        (2, seat(2), 1, vec![1, 1, 1, 1]),
        (0, seat(0), 3, vec![3, 0, 1, 0]),
        (3, seat(3), 4, vec![0, 0, 0, 4]),
    ];
    let mut expected_won = [0u8; 4];
    for (winner, next_leader, position, share) in cases {
        let events = apply(&mut game, trick(winner));
        assert_eq!(trick_won(&events), Some((seat(winner), position, share.clone())));
        for (won, s) in expected_won.iter_mut().zip(&share) {
            *won += s;
        }
        let view = game.view();
        assert_eq!(view.current_trick.expect("trick").leader, next_leader);
        assert_eq!(view.cards_won, expected_won);
    }
    assert_eq!(game.view().tricks_played, 4);
}

// ---------------------------------------------------------------------------------------------
// A deal card by card

#[test]
fn a_deal_played_card_by_card_is_scored_by_the_cards_won() {
    let mut game = game();
    // Every trick: the leader leads a heart, then a club and a diamond (discards), and the
    // fourth player trumps with a spade and keeps all four cards, then leads. So the tricks go
    // to seats 0, 3, 2, 1, 0, ...: seat 0 wins tricks 1, 5, 9 and 13.
    let ranks = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"];
    let mut last = Vec::new();
    let mut winners = Vec::new();
    for rank in ranks {
        let cards = ["H", "C", "D", "S"].map(|suit| format!("{rank}{suit}"));
        last = play_in_turn(&mut game, &cards.each_ref().map(String::as_str));
        winners.push(trick_won(&last).expect("trick").0);
    }
    assert_eq!(winners[..5], seats(&[0, 3, 2, 1, 0]));
    let sheet = game.score_sheet();
    assert_eq!(sheet.deals.len(), 1);
    let deal = &sheet.deals[0];
    assert_eq!(deal.recording, Recording::CardByCard);
    assert_eq!(deal.cards_won, [16, 12, 12, 12]);
    assert_eq!(deal.points, [16, 12, 12, 12]);
    assert_eq!(deal_points(&last), Some(vec![16, 12, 12, 12]));
    assert_eq!(game.view().deal, 2);
    assert_eq!(game.view().dealer, Some(seat(1)));
}

#[test]
fn a_card_already_played_is_refused_and_changes_nothing() {
    let mut game = game();
    apply(&mut game, play(1, "QS"));
    assert_refused(&game, play(2, "QS"), RuleViolation::CardAlreadyPlayed(card("QS")));
    play_in_turn(&mut game, &["KS", "2S", "3S"]);
    // Still refused in a later trick of the same deal.
    let leader = game.view().to_act.expect("leader");
    assert_refused(
        &game,
        Move::Play {
            seat: leader,
            card: card("QS"),
        },
        RuleViolation::CardAlreadyPlayed(card("QS")),
    );
}

#[test]
fn a_seat_not_at_the_table_cannot_play() {
    let game = game();
    assert_refused(
        &game,
        play(4, "2C"),
        RuleViolation::NoSuchSeat {
            seat: seat(4),
            players: 4,
        },
    );
}

#[test]
fn a_revoke_is_detected_after_the_fact_and_penalised_when_the_table_says_so() {
    let mut game = game_with(Options {
        revoke_penalty: 5,
        ..Options::default()
    });
    // Seat 3 discards a club on a heart lead, then plays a heart.
    play_in_turn(&mut game, &["AH", "2H", "2C", "3H"]);
    let events = play_in_turn(&mut game, &["KH", "4H", "5H"]);
    let revoke = events
        .iter()
        .find_map(|e| match e {
            Event::RevokeDetected { revoke } => Some(*revoke),
            _ => None,
        })
        .expect("a revoke");
    assert_eq!(
        (
            revoke.seat,
            revoke.suit,
            revoke.revoked_in_trick,
            revoke.proven_in_trick
        ),
        (seat(3), Suit::Hearts, 1, 2)
    );
    assert_eq!(game.view().revokes, vec![revoke]);
}

#[test]
fn the_revoke_penalty_comes_off_the_revoker_or_in_partnerships_the_side() {
    let revoke = Revoke {
        seat: seat(3),
        suit: Suit::Hearts,
        revoked_in_trick: 1,
        proven_in_trick: 2,
    };
    let won = BySeat::from_vec(vec![13, 13, 13, 13]);
    let solo = game_with(Options {
        revoke_penalty: 5,
        ..Options::default()
    });
    assert_eq!(solo.deal_points(&won, &[revoke]), [13, 13, 13, 8]);
    let pairs = game_with(Options {
        revoke_penalty: 5,
        ..partnerships()
    });
    assert_eq!(pairs.deal_points(&won, &[revoke]), [13, 8, 13, 8]);
}

// ---------------------------------------------------------------------------------------------
// Recording modes and how they mix

#[test]
fn a_fresh_deal_accepts_any_of_the_three_ways_of_recording() {
    let view = game().view();
    assert_eq!(crate::legal::kinds(&view.legal_moves), ["play", "trick", "result"]);
    assert_eq!(view.recording, None);
    assert_eq!(view.to_act, Some(seat(1)));
}

#[test]
fn the_first_move_of_a_deal_fixes_how_the_rest_of_it_is_recorded() {
    let mut by_card = game();
    apply(&mut by_card, play(1, "2C"));
    assert_eq!(by_card.view().recording, Some(Recording::CardByCard));
    assert_eq!(crate::legal::kinds(&by_card.view().legal_moves), ["play"]);
    assert_refused(&by_card, trick(1), not_expected("trick", &["play"]));
    assert_refused(&by_card, result(&[13, 13, 13, 13]), not_expected("result", &["play"]));

    let mut by_trick = game();
    apply(&mut by_trick, trick(2));
    assert_eq!(by_trick.view().recording, Some(Recording::TrickByTrick));
    assert_eq!(crate::legal::kinds(&by_trick.view().legal_moves), ["trick"]);
    assert_refused(&by_trick, play(2, "2C"), not_expected("play", &["trick"]));
    assert_refused(&by_trick, result(&[13, 13, 13, 13]), not_expected("result", &["trick"]));
}

#[test]
fn the_next_deal_may_be_recorded_another_way() {
    let mut game = game();
    apply(&mut game, result(&[13, 13, 13, 13]));
    assert!(game.at_deal_boundary());
    assert_eq!(
        crate::legal::kinds(&game.view().legal_moves),
        ["play", "trick", "result"]
    );
    thirteen_tricks_to_the_leader(&mut game);
    let recordings: Vec<Recording> = game.score_sheet().deals.iter().map(|d| d.recording).collect();
    assert_eq!(recordings, [Recording::ResultOnly, Recording::TrickByTrick]);
}

#[test]
fn a_deal_is_at_a_boundary_only_before_its_first_move() {
    let mut game = game();
    assert!(game.at_deal_boundary());
    apply(&mut game, trick(1));
    assert!(!game.at_deal_boundary());
}

#[test]
fn a_result_is_scored_as_the_cards_won() {
    let mut game = game();
    let events = apply(&mut game, result(&[20, 12, 10, 10]));
    assert_eq!(deal_points(&events), Some(vec![20, 12, 10, 10]));
    assert_eq!(game.view().totals, [20, 12, 10, 10]);
    assert_eq!(game.score_sheet().deals[0].recording, Recording::ResultOnly);
}

#[test]
fn a_result_that_does_not_total_52_is_refused_and_changes_nothing() {
    let game = game();
    assert_refused(
        &game,
        result(&[13, 13, 13, 12]),
        RuleViolation::CardsDoNotAddUp {
            total: 51,
            expected: 52,
        },
    );
    assert_refused(
        &game,
        result(&[200, 13, 13, 13]),
        RuleViolation::CardsDoNotAddUp {
            total: 239,
            expected: 52,
        },
    );
    assert_refused(
        &game,
        result(&[26, 26, 0]),
        RuleViolation::WrongNumberOfEntries { got: 3, expected: 4 },
    );
}

#[test]
fn a_result_no_thirteen_tricks_can_give_is_refused_and_changes_nothing() {
    let game = game();
    // Seat 1 leads the first trick; seat 0 deals.
    for impossible in [
        [52, 0, 0, 0],
        [0, 52, 0, 0],
        [35, 17, 0, 0],
        [14, 13, 13, 12],
        [34, 6, 6, 6],
    ] {
        assert_refused(
            &game,
            result(&impossible),
            RuleViolation::ImpossibleResult {
                cards_won: impossible.to_vec(),
                leader: seat(1),
            },
        );
    }
    apply(&mut game.clone(), result(&[34, 12, 6, 0]));
    apply(&mut game.clone(), result(&[1, 31, 13, 7]));
}

/// Every split of 52 that gives `seat` exactly `n` cards.
fn splits_giving(seat: usize, n: u8) -> Vec<[u8; 4]> {
    let rest = 52 - n;
    let mut out = Vec::new();
    for a in 0..=rest {
        for b in 0..=rest - a {
            let mut others = [a, b, rest - a - b].into_iter();
            let mut split = [0; 4];
            for (i, count) in split.iter_mut().enumerate() {
                *count = if i == seat {
                    n
                } else {
                    others.next().expect("three others")
                };
            }
            out.push(split);
        }
    }
    out
}

#[test]
fn the_first_leader_can_win_at_most_31_cards_and_the_dealer_34() {
    // The leader gets at most 1 from a trick he leads and 4 only from fourth place, after which
    // he leads again; the dealer plays fourth to trick 1, so can take 4 in every odd trick.
    let leader = seat(1);
    assert!(splits_giving(0, 34).into_iter().any(|s| reachable(leader, s)));
    assert!(!splits_giving(0, 35).into_iter().any(|s| reachable(leader, s)));
    assert!(splits_giving(1, 31).into_iter().any(|s| reachable(leader, s)));
    assert!(!splits_giving(1, 32).into_iter().any(|s| reachable(leader, s)));
    assert!(reachable(leader, [13, 13, 13, 13]));
    assert!(!reachable(leader, [13, 13, 13, 12]), "not 52 cards");
}

#[test]
fn opposite_seats_always_win_an_even_number_of_cards_between_them() {
    // Every trick gives each pair of opposite seats 0, 2 or 4 cards.
    for leader in Seat::all(4) {
        assert!(!reachable(leader, [14, 13, 13, 12]));
        assert!(!reachable(leader, [17, 11, 14, 10]));
        assert!(reachable(leader, [17, 11, 13, 11]));
    }
}

#[test]
fn a_trick_winner_not_at_the_table_is_refused_and_changes_nothing() {
    let mut game = game();
    assert_refused(
        &game,
        trick(4),
        RuleViolation::NoSuchSeat {
            seat: seat(4),
            players: 4,
        },
    );
    apply(&mut game, trick(0));
    assert_refused(
        &game,
        trick(7),
        RuleViolation::NoSuchSeat {
            seat: seat(7),
            players: 4,
        },
    );
}

#[test]
fn a_fourteenth_trick_is_refused_and_changes_nothing() {
    let mut game = game();
    for n in 1..=TRICKS {
        let leader = game.view().current_trick.expect("trick").leader;
        apply(
            &mut game,
            Move::Trick {
                winner: leader,
                number: Some(n),
            },
        );
    }
    assert_eq!(game.view().deal, 2);
    assert_refused(
        &game,
        numbered_trick(1, 14),
        RuleViolation::NoSuchTrick { number: 14, tricks: 13 },
    );
    assert_refused(
        &game,
        numbered_trick(1, 0),
        RuleViolation::NoSuchTrick { number: 0, tricks: 13 },
    );
}

#[test]
fn a_trick_numbered_out_of_order_is_refused_as_a_conflict() {
    let mut game = game();
    apply(&mut game, numbered_trick(1, 1));
    let twice = RuleViolation::TrickOutOfOrder { expected: 2, got: 1 };
    assert!(twice.is_conflict());
    assert_refused(&game, numbered_trick(1, 1), twice);
    assert_refused(
        &game,
        numbered_trick(1, 3),
        RuleViolation::TrickOutOfOrder { expected: 2, got: 3 },
    );
    apply(&mut game, numbered_trick(1, 2));
}

// ---------------------------------------------------------------------------------------------
// Dealer, partnerships, length of game, ties

#[test]
fn the_deal_passes_left_and_the_dealers_left_leads() {
    let mut game = game_with(Options {
        first_dealer: 2,
        ..Options::default()
    });
    let view = game.view();
    assert_eq!((view.dealer, view.to_act), (Some(seat(2)), Some(seat(3))));
    let events = apply(&mut game, result(&[13, 13, 13, 13]));
    assert!(events.contains(&Event::DealStarted {
        deal: 2,
        dealer: seat(3),
        leader: seat(0),
        tie_break: false,
    }));
    apply(&mut game, result(&[13, 13, 13, 13]));
    assert_eq!(game.view().dealer, Some(seat(0)));
    assert_eq!(game.view().to_act, Some(seat(1)));
}

#[test]
fn in_partnerships_each_partner_scores_the_higher_count_17_and_11_give_17() {
    let mut game = game_with(partnerships());
    // Seat 0 won 17 and partner seat 2 won 11: both score 17, not 28.
    let events = apply(&mut game, result(&[17, 12, 11, 12]));
    assert_eq!(deal_points(&events), Some(vec![17, 12, 17, 12]));
    assert_eq!(game.score_sheet().deals[0].cards_won, [17, 12, 11, 12]);
}

#[test]
fn solo_a_game_is_four_deals_and_the_highest_total_wins() {
    let mut game = game();
    for _ in 0..3 {
        apply(&mut game, result(&[16, 12, 12, 12]));
        assert!(!game.is_finished());
    }
    let events = apply(&mut game, result(&[16, 12, 12, 12]));
    assert!(game.is_finished());
    assert!(events.contains(&Event::GameFinished {
        winners: seats(&[0]),
        totals: vec![64, 48, 48, 48],
    }));
    let sheet = game.score_sheet();
    assert!(sheet.finished);
    assert_eq!(sheet.winners, seats(&[0]));
    assert_eq!(game.view().phase, Phase::Finished);
    assert_eq!(game.view().deal, 4);
}

#[test]
fn a_move_after_the_game_ended_is_refused_and_changes_nothing() {
    let mut game = game_with(Options {
        game_length: deals(1),
        ..Options::default()
    });
    apply(&mut game, result(&[20, 12, 10, 10]));
    assert!(game.is_finished());
    assert_eq!(crate::legal::kinds(&game.view().legal_moves), Vec::<&str>::new());
    for mv in [
        trick(1),
        play(1, "2C"),
        result(&[13, 13, 13, 13]),
        numbered_trick(1, 14),
    ] {
        assert_refused(&game, mv, RuleViolation::GameFinished);
    }
}

#[test]
fn the_points_game_ends_after_the_deal_in_which_someone_reaches_the_target() {
    let mut game = game_with(Options {
        game_length: points(52),
        ..Options::default()
    });
    apply(&mut game, result(&[20, 12, 10, 10]));
    apply(&mut game, result(&[20, 12, 10, 10]));
    assert!(!game.is_finished());
    // Checked after the deal, not mid-deal: the game goes on to the end of deal 3.
    let events = apply(&mut game, result(&[11, 21, 11, 9]));
    assert!(!game.is_finished(), "51 is not 52");
    assert!(deal_points(&events).is_some());
    let events = apply(&mut game, result(&[1, 25, 13, 13]));
    assert!(game.is_finished());
    assert!(events.contains(&Event::GameFinished {
        winners: seats(&[1]),
        totals: vec![52, 70, 44, 42],
    }));
}

#[test]
fn a_tie_for_first_adds_deals_until_it_is_broken_and_the_state_says_so() {
    let mut game = game_with(Options {
        game_length: deals(1),
        ..Options::default()
    });
    let events = apply(&mut game, result(&[16, 16, 10, 10]));
    assert!(events.contains(&Event::TieForFirst {
        seats: seats(&[0, 1]),
        totals: vec![16, 16, 10, 10],
    }));
    assert!(events.contains(&Event::DealStarted {
        deal: 2,
        dealer: seat(1),
        leader: seat(2),
        tie_break: true,
    }));
    let view = game.view();
    assert!(view.tie_break);
    assert_eq!(view.tied_for_first, seats(&[0, 1]));
    assert!(game.score_sheet().tie_break);
    assert!(!game.is_finished());

    // Still tied after the extra deal: another one.
    apply(&mut game, result(&[13, 13, 13, 13]));
    assert!(game.view().tie_break);
    assert_eq!(game.view().deal, 3);

    let events = apply(&mut game, result(&[12, 14, 12, 14]));
    assert!(game.is_finished());
    assert!(events.contains(&Event::GameFinished {
        winners: seats(&[1]),
        totals: vec![41, 43, 35, 37],
    }));
    let sheet = game.score_sheet();
    assert_eq!(
        sheet.deals.iter().map(|d| d.tie_break).collect::<Vec<_>>(),
        [false, true, true]
    );
    assert!(!sheet.tie_break);
}

#[test]
fn in_a_points_game_a_tie_at_the_target_is_played_off() {
    let mut game = game_with(Options {
        game_length: points(20),
        first_dealer: 1,
        ..Options::default()
    });
    let events = apply(&mut game, result(&[20, 20, 6, 6]));
    assert!(events.iter().any(|e| matches!(e, Event::TieForFirst { .. })));
    assert!(game.view().tie_break);
    apply(&mut game, result(&[10, 12, 14, 16]));
    assert_eq!(game.score_sheet().winners, seats(&[1]));
}

#[test]
fn partners_level_with_each_other_are_not_a_tie_but_two_level_sides_are() {
    let mut game = game_with(Options {
        game_length: deals(1),
        ..partnerships()
    });
    apply(&mut game, result(&[20, 12, 8, 12]));
    assert!(game.is_finished());
    assert_eq!(game.score_sheet().winners, seats(&[0, 2]));

    let mut game = game_with(Options {
        game_length: deals(1),
        ..partnerships()
    });
    let events = apply(&mut game, result(&[15, 15, 11, 11]));
    assert!(events.contains(&Event::TieForFirst {
        seats: seats(&[0, 1, 2, 3]),
        totals: vec![15, 15, 15, 15],
    }));
    apply(&mut game, result(&[10, 17, 14, 11]));
    assert_eq!(game.score_sheet().winners, seats(&[1, 3]));
    assert_eq!(game.view().totals, [29, 32, 29, 32]);
}

#[test]
fn the_set_up_needs_four_players_and_sane_options() {
    for players in [3, 5] {
        assert_eq!(
            Dividend::new(players, Options::default()),
            Err(SetupError::PlayerCount {
                got: players,
                min: 4,
                max: 4
            })
        );
    }
    let bad = [
        Options {
            first_dealer: 4,
            ..Options::default()
        },
        Options {
            game_length: deals(0),
            ..Options::default()
        },
        Options {
            game_length: points(0),
            ..Options::default()
        },
    ];
    for options in bad {
        assert!(matches!(
            Dividend::new(4, options),
            Err(SetupError::InvalidOption { .. })
        ));
    }
}

#[test]
fn options_default_to_solo_four_deals_and_read_from_json() {
    let parsed: Options = serde_json::from_value(serde_json::json!({})).expect("options");
    assert_eq!(parsed, Options::default());
    assert_eq!(parsed.game_length, deals(4));
    let parsed: Options = serde_json::from_value(serde_json::json!({
        "partnerships": true, "game_length": {"rule": "points"}
    }))
    .expect("options");
    assert!(parsed.partnerships);
    assert_eq!(parsed.game_length, points(52));
    assert!(serde_json::from_value::<Options>(serde_json::json!({"players": 4})).is_err());
}

#[test]
fn moves_read_from_the_documented_json() {
    let parse = |v: serde_json::Value| serde_json::from_value::<Move>(v).expect("move");
    assert_eq!(
        parse(serde_json::json!({"kind": "play", "seat": 1, "card": "QH"})),
        play(1, "QH")
    );
    assert_eq!(parse(serde_json::json!({"kind": "trick", "winner": 2})), trick(2));
    assert_eq!(
        parse(serde_json::json!({"kind": "trick", "winner": 2, "number": 5})),
        numbered_trick(2, 5)
    );
    assert_eq!(
        parse(serde_json::json!({"kind": "result", "cards_won": [17, 11, 13, 11]})),
        result(&[17, 11, 13, 11])
    );
}

// ---------------------------------------------------------------------------------------------
// Properties

/// Options of a random table.
fn table() -> impl Strategy<Value = Options> {
    let length = prop_oneof![
        (1u16..=4).prop_map(|deals| GameLength::Deals { deals }),
        (20u16..=60).prop_map(|target| GameLength::Points { target }),
    ];
    (any::<bool>(), length, 0u8..4, 0u8..=3).prop_map(|(partnerships, game_length, first_dealer, revoke_penalty)| {
        Options {
            partnerships,
            game_length,
            first_dealer,
            revoke_penalty,
        }
    })
}

/// The seat that should win a trick, restated independently of the engine as the oracle.
fn expected_trick_winner(plays: &[Play<Card>]) -> Option<Seat> {
    let led = plays.first()?.card.suit;
    let trump = match led {
        Suit::Hearts => Suit::Spades,
        Suit::Clubs => Suit::Hearts,
        Suit::Diamonds => Suit::Clubs,
        Suit::Spades => Suit::Diamonds,
    };
    let best_of = |suit: Suit| plays.iter().filter(|p| p.card.suit == suit).max_by_key(|p| p.card.rank);
    best_of(trump).or_else(|| best_of(led)).map(|p| p.seat)
}

/// Plays a whole game card by card, returning the game and its deals.
fn random_game(options: &Options, seed: u64) -> (Dividend, Vec<sim::DealRecord>) {
    let mut game = game_with(options.clone());
    let deals = sim::random_game(&mut game, seed).unwrap_or_else(|e| panic!("{e}"));
    (game, deals)
}

/// The score sheet's deals with how they were recorded left out: what every recording of the
/// same deals must agree on.
fn scores(game: &Dividend) -> Vec<DealScore> {
    game.score_sheet()
        .deals
        .into_iter()
        .map(|d| DealScore {
            recording: Recording::CardByCard,
            ..d
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_deal_distributes_all_52_cards(options in table(), seed in any::<u64>()) {
        let (game, deals) = random_game(&options, seed);
        let sheet = game.score_sheet();
        prop_assert_eq!(deals.len(), sheet.deals.len());
        for (record, deal) in deals.iter().zip(&sheet.deals) {
            prop_assert_eq!(deal.cards_won.iter().map(|&c| u32::from(c)).sum::<u32>(), 52);
            let mut played = CardSet::default();
            for mv in &record.moves {
                if let Move::Play { seat, card } = mv {
                    prop_assert!(!played.contains(*card), "{} played twice", card);
                    prop_assert!(record.hands[*seat].contains(card));
                    played.insert(*card);
                }
            }
            prop_assert_eq!(played.len(), 52);
            prop_assert!(deal.revokes.is_empty(), "the simulator follows suit");
        }
        prop_assert!(game.is_finished());
    }

    #[test]
    fn every_trick_is_won_by_the_rules_and_shared_by_position(options in table(), seed in any::<u64>()) {
        let (_, deals) = random_game(&options, seed);
        for record in &deals {
            let mut won = [0u8; 4];
            let mut numbers = Vec::new();
            for event in record.events.iter().flatten() {
                if let Event::TrickWon { trick, leader, winner, position, shares: got, cards } = event {
                    prop_assert_eq!(cards.len(), 4);
                    prop_assert_eq!(cards[0].seat, *leader);
                    prop_assert_eq!(Some(*winner), expected_trick_winner(cards));
                    prop_assert_eq!(usize::from(*position), winner.distance_from(*leader, 4) + 1);
                    prop_assert_eq!(got.iter().sum::<u8>(), 4);
                    prop_assert_eq!(got[winner.index()], *position);
                    for (w, s) in won.iter_mut().zip(got) {
                        *w += s;
                    }
                    numbers.push(*trick);
                }
            }
            prop_assert_eq!(numbers, (1..=TRICKS).collect::<Vec<_>>());
            prop_assert_eq!(Some(won.to_vec()), record.cards_won());
        }
    }

    #[test]
    fn the_same_deals_recorded_card_by_card_trick_by_trick_or_as_results_score_the_same(
        options in table(), seed in any::<u64>(), numbered in any::<bool>(), mix_seed in any::<u64>(),
    ) {
        let (by_card, deals) = random_game(&options, seed);
        let mut by_trick = game_with(options.clone());
        let mut by_result = game_with(options.clone());
        let mut mixed = game_with(options.clone());
        let mut pick = SplitMix64::new(mix_seed);
        for record in &deals {
            let tricks = sim::trick_moves(record, numbered);
            prop_assert_eq!(tricks.len(), 13);
            let result = sim::result_move(record).ok_or_else(|| TestCaseError::fail("no score"))?;
            for mv in &tricks {
                by_trick.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
            by_result.apply(&result).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let moves = match pick.below(3) {
                0 => record.moves.clone(),
                1 => tricks,
                _ => vec![result],
            };
            for mv in &moves {
                mixed.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
        }
        prop_assert_eq!(scores(&by_trick), scores(&by_card));
        prop_assert_eq!(scores(&by_result), scores(&by_card));
        prop_assert_eq!(scores(&mixed), scores(&by_card));
        prop_assert_eq!(by_result.score_sheet().winners, by_card.score_sheet().winners);
        prop_assert_eq!(by_trick.view(), by_card.view());
        prop_assert!(by_result.is_finished() && by_trick.is_finished());
    }

    #[test]
    fn points_follow_partnerships_and_totals_are_the_sum_of_the_sheet(
        options in table(), seed in any::<u64>(),
    ) {
        let (game, _) = random_game(&options, seed);
        let sheet = game.score_sheet();
        let mut totals = vec![0i32; 4];
        for deal in &sheet.deals {
            for (s, total) in totals.iter_mut().enumerate() {
                let own = i32::from(deal.cards_won[s]);
                let expected = if options.partnerships { own.max(i32::from(deal.cards_won[(s + 2) % 4])) } else { own };
                prop_assert_eq!(deal.points[s], expected);
                *total += deal.points[s];
            }
            prop_assert_eq!(&deal.totals, &totals);
        }
        prop_assert_eq!(&sheet.totals, &totals);
        // The game ended on its length with a single winner (one seat, or one side).
        let best = totals.iter().copied().max().unwrap_or(0);
        let at_best: Vec<Seat> = Seat::all(4).filter(|s| totals[s.index()] == best).collect();
        prop_assert_eq!(&sheet.winners, &at_best);
        if options.partnerships {
            prop_assert!(at_best.len() == 2 && at_best[0].index() % 2 == at_best[1].index() % 2);
        } else {
            prop_assert_eq!(at_best.len(), 1);
        }
        match options.game_length {
            GameLength::Deals { deals } => prop_assert!(sheet.deals.len() >= usize::from(deals)),
            GameLength::Points { target } => prop_assert!(best >= i32::from(target)),
        }
    }

    #[test]
    fn replaying_the_recorded_moves_gives_the_same_state_and_events(options in table(), seed in any::<u64>()) {
        let (game, deals) = random_game(&options, seed);
        let mut replay = game_with(options.clone());
        for record in &deals {
            for (mv, events) in record.moves.iter().zip(&record.events) {
                prop_assert_eq!(&replay.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?, events);
            }
        }
        prop_assert_eq!(&replay, &game);
    }

    #[test]
    fn a_random_move_is_either_accepted_or_changes_nothing(
        options in table(),
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
        moves in prop::collection::vec(arbitrary_move(), 1..32),
    ) {
        let (_, deals) = random_game(&options, seed);
        let legal = sim::moves(&deals);
        let mut game = game_with(options.clone());
        for mv in &legal[..cut.index(legal.len() + 1)] {
            game.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        for mv in &moves {
            let before = game.clone();
            match game.apply(mv) {
                Ok(_) => {
                    let view = game.view();
                    let in_deal: u32 = view.cards_won.iter().map(|&c| u32::from(c)).sum();
                    prop_assert_eq!(in_deal, 4 * u32::from(view.tricks_played));
                }
                Err(violation) => {
                    prop_assert_eq!(&game, &before, "{:?} was refused ({}) but changed the state", mv, violation);
                }
            }
        }
    }
}

/// A random move, mostly well-formed so that some are accepted.
fn arbitrary_move() -> impl Strategy<Value = Move> {
    let a_card = (0usize..52).prop_map(|i| Card::from_index(i).expect("an index below 52"));
    prop_oneof![
        4 => (0u8..6, a_card).prop_map(|(seat, card)| Move::Play { seat: Seat::new(seat), card }),
        3 => (0u8..6, prop::option::of(0u8..16)).prop_map(|(winner, number)| Move::Trick { winner: Seat::new(winner), number }),
        1 => prop::collection::vec(0u8..30, 3..=5).prop_map(|cards_won| Move::Result { cards_won }),
    ]
}

// ---------------------------------------------------------------------------------------------
// Stored logs

/// Stored logs are replayed and their events compared with the engine's JSON, so the JSON of
/// moves and events must never change. Literals taken from the engine as it was.
#[test]
fn the_json_of_moves_and_events_is_what_stored_logs_hold() {
    let mut game = game();
    let moves = [play(1, "5H"), play(2, "KH"), play(3, "2S"), play(0, "AH")];
    let mut events = Vec::new();
    for mv in &moves {
        events = apply(&mut game, mv.clone());
    }
    assert_eq!(
        serde_json::to_string(&moves).expect("json"),
        r#"[{"kind":"play","seat":1,"card":"5H"},{"kind":"play","seat":2,"card":"KH"},{"kind":"play","seat":3,"card":"2S"},{"kind":"play","seat":0,"card":"AH"}]"#
    );
    assert_eq!(
        serde_json::to_string(&events).expect("json"),
        r#"[{"event":"card_played","seat":0,"card":"AH","trick":1},{"event":"trick_won","trick":1,"leader":1,"winner":3,"position":3,"shares":[0,1,0,3],"cards":[{"seat":1,"card":"5H"},{"seat":2,"card":"KH"},{"seat":3,"card":"2S"},{"seat":0,"card":"AH"}]}]"#
    );
    let mut game = self::game();
    let mv = Move::Result {
        cards_won: vec![13, 13, 13, 13],
    };
    let events = apply(&mut game, mv.clone());
    assert_eq!(
        serde_json::to_string(&mv).expect("json"),
        r#"{"kind":"result","cards_won":[13,13,13,13]}"#
    );
    assert_eq!(
        serde_json::to_string(&events).expect("json"),
        r#"[{"event":"deal_scored","deal":1,"cards_won":[13,13,13,13],"points":[13,13,13,13],"totals":[13,13,13,13]},{"event":"deal_started","deal":2,"dealer":1,"leader":2,"tie_break":false}]"#
    );
}
