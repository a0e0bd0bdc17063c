//! Pope Joan: the rule text's examples and NOTES' resolutions, then properties over random
//! legal deals.

use proptest::prelude::*;

use super::*;
use crate::deck::SplitMix64;
use crate::games::testing::apply;
use crate::stops::testing::{assert_ledger_matches, replay_booked};
use crate::stops::OpeningPools;
use crate::{Account, Transfer};

// ---------------------------------------------------------------------------------------------
// Helpers

fn card(text: &str) -> Card {
    text.parse().expect("card")
}

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

fn chips(ns: &[i64]) -> Vec<Chips> {
    ns.iter().copied().map(Chips::new).collect()
}

fn game(players: usize) -> PopeJoan {
    game_with(players, Options::default())
}

fn game_with(players: usize, options: Options) -> PopeJoan {
    PopeJoan::new(players, options).expect("a valid set-up")
}

fn turn_up(c: &str) -> Move {
    Move::TurnUp { card: card(c) }
}

fn play(s: u8, c: &str) -> Move {
    Move::Play {
        seat: seat(s),
        card: card(c),
    }
}

#[track_caller]
fn apply_all(game: &mut PopeJoan, moves: Vec<Move>) -> Vec<Event> {
    moves.into_iter().flat_map(|mv| apply(game, mv)).collect()
}

/// Offers `mv` to a copy of `game` and checks it is refused with `expected`, the copy unchanged.
#[track_caller]
fn assert_refused(game: &PopeJoan, mv: Move, expected: RuleViolation) {
    let mut after = game.clone();
    assert_eq!(after.apply(&mv), Err(expected), "{mv:?}");
    assert_eq!(&after, game, "a refused {mv:?} changed the state");
}

fn pool(game: &PopeJoan, pool: Pool) -> i64 {
    game.holdings().pool(pool).get()
}

fn seat_chips(game: &PopeJoan) -> Vec<i64> {
    game.holdings().seats().iter().map(|c| c.get()).collect()
}

fn board(game: &PopeJoan) -> Vec<(Pool, i64)> {
    game.board().iter().map(|b| (b.pool, b.chips.get())).collect()
}

fn movements(events: &[Event]) -> Vec<&ChipMovement> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chips { movement } => Some(movement),
            _ => None,
        })
        .collect()
}

#[track_caller]
fn assert_chips_constant(game: &PopeJoan) {
    let h = game.holdings();
    assert_eq!(h.on_table(), h.issued());
    assert_eq!(
        h.issued(),
        Chips::new(i64::from(game.options.opening_chips) * game.players() as i64)
    );
}

/// The rule text's example hand (five players, seat 0 deals, 7♥ turned up), up to the moment
/// seat 1 plays its last card.
fn example_moves() -> Vec<Move> {
    vec![
        turn_up("7H"),
        // Seat 1 leads the knave of spades; the queen comes; the king is a stop.
        play(1, "JS"),
        play(3, "QS"),
        play(1, "KS"),
        // The diamonds, cleared up to the 7♦, a stop as the 8♦ is out.
        play(1, "5D"),
        play(2, "6D"),
        play(1, "7D"),
        // The ace of clubs, the two and three from other hands, and nobody has the four.
        play(1, "AC"),
        play(2, "2C"),
        play(3, "3C"),
        Move::Stop,
        // The player of the three plays queen and king of hearts (Matrimony), then the spades
        // from the seven to his ten, a known stop.
        play(3, "QH"),
        play(3, "KH"),
        play(3, "7S"),
        play(4, "8S"),
        play(2, "9S"),
        play(3, "10S"),
        // Later the game leads up to the queen of clubs: a stop, the king being in the spare hand.
        play(3, "5C"),
        play(4, "6C"),
        play(2, "7C"),
        play(4, "8C"),
        play(2, "9C"),
        play(4, "10C"),
        play(2, "JC"),
        play(1, "QC"),
        Move::Stop,
        // The knave of hearts is a stop now; then the four clears the hand.
        play(1, "JH"),
        play(1, "4H"),
    ]
}

// ---------------------------------------------------------------------------------------------
// Deal sizes and dressing

#[test]
fn five_players_get_eight_cards_each_and_a_spare_hand_of_ten() {
    assert_eq!(deal_sizes(5), (8, 10));
    let view = game(5).view();
    assert_eq!(view.hand_size, Some(8));
    assert_eq!(view.spare_hand, Some(10));
}

#[test]
fn deal_sizes_follow_the_notes_for_three_to_eight_players() {
    let sizes: Vec<(u8, u8)> = (3..=8).map(deal_sizes).collect();
    assert_eq!(sizes, [(12, 14), (10, 10), (8, 10), (7, 8), (6, 8), (5, 10)]);
    for n in 3..=8 {
        let (hand, spare) = deal_sizes(n);
        // Every card but the 8♦ and the turn-up is in a hand or the spare hand.
        assert_eq!(usize::from(hand) * n + usize::from(spare) + 1, 51);
    }
}

#[test]
fn a_table_seats_three_to_eight_players() {
    for n in [2, 9] {
        assert_eq!(
            PopeJoan::new(n, Options::default()),
            Err(SetupError::PlayerCount { got: n, min: 3, max: 8 })
        );
    }
    assert!(PopeJoan::new(8, Options::default()).is_ok());
}

#[test]
fn each_player_starts_with_the_opening_chips_and_all_dress_the_board_the_dealer_paying_double() {
    let g = game(5);
    // 15 split in six parts (the dealer's double) rounds up to 3 a part: 18 in all.
    assert_eq!(seat_chips(&g), [94, 97, 97, 97, 97]);
    assert_eq!(
        board(&g),
        [
            (Pool::Pope, 6),
            (Pool::Matrimony, 2),
            (Pool::Intrigue, 2),
            (Pool::Ace, 1),
            (Pool::King, 1),
            (Pool::Queen, 1),
            (Pool::Knave, 1),
            (Pool::Game, 4),
        ]
    );
    assert_chips_constant(&g);
    let opening = g.opening_settlements();
    assert_eq!(opening.len(), 2);
    assert_eq!(opening[0].deal, None);
    assert_eq!(opening[1].deal, Some(1));
    assert!(opening[1].memo.contains("dressed"));
    for s in &opening {
        assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
    }
}

#[test]
fn with_four_players_fifteen_splits_exactly() {
    let g = game(4);
    assert_eq!(seat_chips(&g), [94, 97, 97, 97]);
    assert_eq!(pool(&g, Pool::Game), 1);
}

#[test]
fn the_dealer_alone_may_dress_the_board() {
    let g = game_with(
        5,
        Options {
            dressing: Dressing::DealerAlone,
            ..Options::default()
        },
    );
    assert_eq!(seat_chips(&g), [85, 100, 100, 100, 100]);
    assert_eq!(pool(&g, Pool::Game), 1);
    assert_eq!(pool(&g, Pool::Pope), 6);
}

#[test]
fn a_five_division_board_keeps_pope_matrimony_intrigue_ace_and_game_with_twelve_counters() {
    let g = game_with(
        5,
        Options {
            five_divisions: true,
            ..Options::default()
        },
    );
    // 12 in six parts: 2 a part.
    assert_eq!(seat_chips(&g), [96, 98, 98, 98, 98]);
    assert_eq!(
        board(&g),
        [
            (Pool::Pope, 6),
            (Pool::Matrimony, 2),
            (Pool::Intrigue, 2),
            (Pool::Ace, 1),
            (Pool::Game, 1),
        ]
    );
}

#[test]
fn options_out_of_range_are_refused() {
    let bad = |options: Options, option: &str| {
        assert!(
            matches!(PopeJoan::new(4, options), Err(SetupError::InvalidOption { option: o, .. }) if o == option),
            "{option}"
        );
    };
    bad(
        Options {
            first_dealer: 4,
            ..Options::default()
        },
        "first_dealer",
    );
    bad(
        Options {
            rounds: 0,
            ..Options::default()
        },
        "rounds",
    );
    bad(
        Options {
            board_total: Some(14),
            ..Options::default()
        },
        "board_total",
    );
    bad(
        Options {
            board_total: Some(11),
            five_divisions: true,
            ..Options::default()
        },
        "board_total",
    );
    bad(
        Options {
            pope_turn_up_cap: Some(0),
            ..Options::default()
        },
        "pope_turn_up_cap",
    );
}

// ---------------------------------------------------------------------------------------------
// The turn-up

#[test]
fn a_pope_turn_up_gives_the_dealer_pope_and_one_a_card_dealt_from_each_player() {
    let mut g = game(4);
    let events = apply(&mut g, turn_up("9D"));
    // Dealer seat 0: 94 + Pope 6 + 3 × 10.
    assert_eq!(seat_chips(&g), [130, 87, 87, 87]);
    assert_eq!(pool(&g, Pool::Pope), 0);
    let moved = movements(&events);
    assert_eq!(moved.len(), 2);
    assert!(moved.iter().all(|m| m.deal == Some(1)));
    assert_eq!(g.view().trumps, Some(Suit::Diamonds));
    assert_eq!(g.view().phase, Phase::Playing);
    assert_chips_constant(&g);
}

#[test]
fn a_pope_turn_up_payment_may_be_capped() {
    let mut g = game_with(
        4,
        Options {
            pope_turn_up_cap: Some(4),
            ..Options::default()
        },
    );
    apply(&mut g, turn_up("9D"));
    assert_eq!(seat_chips(&g), [112, 93, 93, 93]);
}

#[test]
fn a_pope_turn_up_may_also_win_the_game_and_end_the_deal() {
    let mut g = game_with(
        4,
        Options {
            pope_turn_up_wins_game: true,
            ..Options::default()
        },
    );
    let events = apply(&mut g, turn_up("9D"));
    assert!(events.contains(&Event::DealEnded {
        deal: 1,
        winner: seat(0),
        net: chips(&[31, -13, -13, -13]),
    }));
    // Deal 2 is dealt by seat 1, who dresses double; Game was taken (1) and redressed (1).
    let view = g.view();
    assert_eq!((view.deal, view.dealer, view.phase), (2, Some(seat(1)), Phase::TurnUp));
    assert_eq!(seat_chips(&g), [128, 81, 84, 84]);
    assert_eq!(pool(&g, Pool::Game), 1);
    assert_eq!(g.score_sheet().deals[0].recording, Recording::TurnUp);
}

#[test]
fn a_trump_honour_turned_up_gives_the_dealer_that_division() {
    let mut g = game(4);
    apply(&mut g, turn_up("QS"));
    assert_eq!(seat_chips(&g), [95, 97, 97, 97]);
    assert_eq!(pool(&g, Pool::Queen), 0);
    // The turned-up queen is in nobody's hand, so the knave below it is a certain stop.
    apply(&mut g, play(1, "JS"));
    assert_eq!(g.view().to_act, Some(seat(1)));
}

#[test]
fn a_low_turn_up_wins_nothing() {
    let mut g = game(4);
    let events = apply(&mut g, turn_up("5C"));
    assert!(movements(&events).is_empty());
    assert_eq!(seat_chips(&g), [94, 97, 97, 97]);
}

// ---------------------------------------------------------------------------------------------
// The example hand

#[test]
fn the_example_hands_known_stops_are_found_by_the_engine() {
    let mut g = game(5);
    let moves = example_moves();
    let mut stops = Vec::new();
    for mv in moves {
        for e in apply(&mut g, mv) {
            if let Event::Stopped { card, declared, leader } = e {
                stops.push((card.to_string(), declared, leader));
            }
        }
    }
    assert_eq!(
        stops,
        [
            ("KS".to_owned(), false, seat(1)),
            ("7D".to_owned(), false, seat(1)),
            ("3C".to_owned(), true, seat(3)),
            ("KH".to_owned(), false, seat(3)),
            // Knave, queen and king of spades played: the ten is a stop.
            ("10S".to_owned(), false, seat(3)),
            ("QC".to_owned(), true, seat(1)),
            // Queen and king of hearts played: the knave of hearts is a stop.
            ("JH".to_owned(), false, seat(1)),
        ]
    );
}

#[test]
fn the_card_below_the_turn_up_is_a_certain_stop() {
    let mut g = game(5);
    apply_all(&mut g, vec![turn_up("7H"), play(1, "5H")]);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["play", "stop"]);
    let events = apply(&mut g, play(2, "6H"));
    assert!(events.contains(&Event::Stopped {
        card: card("6H"),
        leader: seat(2),
        declared: false
    }));
    assert_eq!(g.view().to_act, Some(seat(2)));
}

#[test]
fn the_pope_holder_choices_list_seats_and_say_apart_whether_the_spare_hand_may_hold_it() {
    let mut g = game(5);
    apply_all(&mut g, example_moves());
    let legal = serde_json::to_value(&g.view().legal_moves).expect("legal moves serialize");
    assert_eq!(
        legal,
        serde_json::json!([{"kind": "pope_holder", "seats": [0, 2, 3, 4], "spare_hand": true}]),
        "no nulls: the spare hand is a flag of its own"
    );
}

#[test]
fn the_example_hand_settles_matrimony_the_honours_and_going_out_with_the_pope_holder_exempt() {
    let mut g = game(5);
    let events = apply_all(&mut g, example_moves());
    // Seat 3: Queen and King of trumps, then Matrimony (both by the same player).
    let memos: Vec<&str> = movements(&events).iter().map(|m| m.memo.as_str()).collect();
    assert!(memos.iter().any(|m| m.contains("Matrimony won by seat 3")), "{memos:?}");
    assert!(
        !memos.iter().any(|m| m.contains("Intrigue")),
        "queen and knave by two players: {memos:?}"
    );
    // The 9♦ was never played: who holds it?
    assert_eq!(g.view().phase, Phase::PopeHolder);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["pope_holder"]);
    let events = apply(&mut g, Move::PopeHolder { seat: Some(seat(2)) });
    assert!(events.contains(&Event::WentOut {
        seat: seat(1),
        cards_left: vec![8, 0, 2, 1, 4],
        exempt: Some(seat(2)),
    }));
    // Seat 1: Knave 1, Game 4 and 8 + 1 + 4 a card; seat 2 holds the Pope and pays nothing.
    // Each net includes the dressing (the dealer 6, the others 3).
    let sheet = g.score_sheet();
    assert_eq!(sheet.deals[0].net, chips(&[-14, 15, -3, 0, -7]));
    assert_eq!(sheet.deals[0].chips, chips(&[86, 115, 97, 100, 93]));
    // Pope, Intrigue and Ace were not won and carry over; deal 2 dresses on top.
    assert_eq!(
        board(&g),
        [
            (Pool::Pope, 12),
            (Pool::Matrimony, 2),
            (Pool::Intrigue, 4),
            (Pool::Ace, 2),
            (Pool::King, 1),
            (Pool::Queen, 1),
            (Pool::Knave, 1),
            (Pool::Game, 4),
        ]
    );
    assert_eq!(seat_chips(&g), [83, 109, 94, 97, 90]);
    assert_chips_constant(&g);
}

#[test]
fn the_same_deal_entered_as_a_result_settles_the_same() {
    let mut by_card = game(5);
    apply_all(&mut by_card, example_moves());
    apply(&mut by_card, Move::PopeHolder { seat: Some(seat(2)) });

    let mut by_result = game(5);
    apply(&mut by_result, turn_up("7H"));
    let events = apply(
        &mut by_result,
        Move::Result {
            out: seat(1),
            cards_left: vec![8, 0, 2, 1, 4],
            specials: vec![vec![], vec![card("JH")], vec![], vec![card("QH"), card("KH")], vec![]],
            pope_cards_left: None,
            pope_holder: Some(seat(2)),
        },
    );
    assert!(events.iter().any(|e| matches!(e, Event::DealStarted { deal: 2, .. })));
    assert_eq!(by_result.holdings(), by_card.holdings());
    assert_eq!(by_result.score_sheet().deals[0].recording, Recording::ResultOnly);
    assert_eq!(by_result.score_sheet().deals[0].net, by_card.score_sheet().deals[0].net);
}

// ---------------------------------------------------------------------------------------------
// Specials in play

#[test]
fn playing_the_pope_wins_its_division_and_one_a_card_left_from_each_player() {
    let mut g = game(4);
    apply_all(&mut g, vec![turn_up("3S"), play(1, "2C"), play(2, "3C"), Move::Stop]);
    let events = apply(&mut g, play(2, "9D"));
    // Seat 2 had 10 cards and played 2; the others hold 10, 9 and 10.
    let pope = movements(&events)
        .into_iter()
        .find(|m| m.memo.contains("Pope played"))
        .expect("the Pope's payment");
    assert_eq!(
        pope.payments,
        [
            Transfer::new(Account::Seat(seat(0)), Account::Seat(seat(2)), Chips::new(10)),
            Transfer::new(Account::Seat(seat(1)), Account::Seat(seat(2)), Chips::new(9)),
            Transfer::new(Account::Seat(seat(3)), Account::Seat(seat(2)), Chips::new(10)),
        ]
    );
    assert_eq!(seat_chips(&g), [84, 88, 132, 87]);
    assert_eq!(pool(&g, Pool::Pope), 0);
}

#[test]
fn honours_across_two_players_win_their_divisions_but_not_intrigue() {
    let mut g = game(4);
    apply_all(&mut g, vec![turn_up("3S"), play(1, "10S"), play(2, "JS")]);
    apply(&mut g, play(3, "QS"));
    // Knave to seat 2, Queen to seat 3; Intrigue (2) stays for the next deal.
    assert_eq!(seat_chips(&g), [94, 97, 98, 98]);
    assert_eq!(pool(&g, Pool::Intrigue), 2);
}

#[test]
fn intrigue_by_two_players_may_be_split_between_them() {
    let mut g = game_with(
        4,
        Options {
            split_matrimony_and_intrigue: true,
            ..Options::default()
        },
    );
    apply_all(&mut g, vec![turn_up("3S"), play(1, "10S"), play(2, "JS")]);
    let events = apply(&mut g, play(3, "QS"));
    assert!(movements(&events)
        .iter()
        .any(|m| m.memo.contains("Intrigue split between seat 3 and seat 2")));
    assert_eq!(seat_chips(&g), [94, 97, 99, 99]);
    assert_eq!(pool(&g, Pool::Intrigue), 0);
}

#[test]
fn intrigue_by_one_player_wins_it_whole() {
    let mut g = game(4);
    apply_all(
        &mut g,
        vec![turn_up("3S"), play(1, "10S"), play(2, "JS"), play(2, "QS")],
    );
    // Knave 1, Queen 1, Intrigue 2.
    assert_eq!(seat_chips(&g), [94, 97, 101, 97]);
}

#[test]
fn the_ace_of_trumps_wins_the_ace_and_only_the_ace_can_be_led() {
    let mut g = game(4);
    apply(&mut g, turn_up("3S"));
    apply(&mut g, play(1, "AS"));
    assert_eq!(seat_chips(&g), [94, 98, 97, 97]);
    // Nothing comes below an ace: the next card up is the two.
    assert_refused(
        &g,
        play(2, "KS"),
        RuleViolation::NotInSequence {
            card: card("KS"),
            expected: card("2S"),
        },
    );
}

#[test]
fn an_unwon_division_carries_over_and_game_is_won_every_deal() {
    let mut g = game(3);
    // Three players: 12 cards each; seat 1 goes out, nobody played a special.
    apply(&mut g, turn_up("2H"));
    let out = Move::Result {
        out: seat(1),
        cards_left: vec![5, 0, 7],
        specials: vec![vec![], vec![], vec![]],
        pope_cards_left: None,
        pope_holder: None,
    };
    apply(&mut g, out);
    // Dressing with three: 15 in four parts rounds to 4 a part (16; Game 2).
    assert_eq!(pool(&g, Pool::Pope), 12);
    assert_eq!(pool(&g, Pool::Game), 2);
    assert_eq!(seat_chips(&g)[1], 100 - 4 + 2 + 12 - 8);
}

#[test]
fn under_the_most_popular_variation_losers_pay_onto_the_board_and_the_dealer_stakes_one() {
    let mut g = game_with(
        4,
        Options {
            losers_pay_board: true,
            ..Options::default()
        },
    );
    // The dealer's single stake goes on the emptiest division, the first in board order.
    assert_eq!(pool(&g, Pool::Pope), 1);
    assert_eq!(seat_chips(&g), [99, 100, 100, 100]);
    apply(&mut g, turn_up("2H"));
    apply(
        &mut g,
        Move::Result {
            out: seat(2),
            cards_left: vec![3, 2, 0, 4],
            specials: vec![vec![], vec![], vec![], vec![]],
            pope_cards_left: None,
            pope_holder: None,
        },
    );
    // Nine chips covered the eight divisions (the Pope already had one); the winner took
    // Game only, which was empty.
    let sheet = g.score_sheet();
    assert_eq!(sheet.deals[0].net, chips(&[-4, -2, 0, -4]));
    assert!(board(&g).iter().all(|(_, n)| *n >= 1), "{:?}", board(&g));
    assert_chips_constant(&g);
}

#[test]
fn the_pope_may_be_played_in_lieu_of_a_stop_when_the_table_allows_it() {
    // The text: the nine of spades proves a stop; the holder of Pope plays it in lieu of the
    // ten and continues with his knave, first taking his winnings on Pope.
    let options = Options {
        pope_in_lieu_of_stop: true,
        ..Options::default()
    };
    let mut g = game_with(5, options);
    apply_all(&mut g, vec![turn_up("7H"), play(1, "8S"), play(2, "9S"), Move::Stop]);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["play", "pope_in_lieu"]);
    let events = apply(&mut g, Move::PopeInLieu { seat: seat(3) });
    assert!(events.contains(&Event::CardPlayed {
        seat: seat(3),
        card: POPE,
        cards_left: 7
    }));
    assert_eq!(pool(&g, Pool::Pope), 0);
    assert_eq!(
        g.view().run,
        Some(LiveRun {
            last: card("10S"),
            by: seat(3),
            next: card("JS")
        })
    );
    apply(&mut g, play(3, "JS"));
    // Once played, the Pope cannot be played again.
    apply(&mut g, Move::Stop);
    assert_refused(
        &g,
        Move::PopeInLieu { seat: seat(0) },
        RuleViolation::CardAlreadyPlayed(POPE),
    );
}

#[test]
fn the_pope_in_lieu_of_a_stop_needs_the_option_and_a_stop_short_of_a_king() {
    let mut g = game(5);
    apply_all(&mut g, vec![turn_up("7H"), play(1, "8S"), play(2, "9S"), Move::Stop]);
    assert_refused(
        &g,
        Move::PopeInLieu { seat: seat(3) },
        RuleViolation::MoveNotExpected {
            kind: "pope_in_lieu",
            expected: vec!["play"],
        },
    );
    let mut g = game_with(
        5,
        Options {
            pope_in_lieu_of_stop: true,
            ..Options::default()
        },
    );
    apply_all(&mut g, vec![turn_up("7H"), play(1, "KS")]);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["play"]);
    assert_refused(
        &g,
        Move::PopeInLieu { seat: seat(3) },
        RuleViolation::MoveNotExpected {
            kind: "pope_in_lieu",
            expected: vec!["play"],
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input changes nothing

#[test]
fn a_card_that_does_not_continue_the_run_is_refused() {
    let mut g = game(5);
    apply_all(&mut g, vec![turn_up("7H"), play(1, "5C")]);
    assert_refused(
        &g,
        play(2, "7C"),
        RuleViolation::NotInSequence {
            card: card("7C"),
            expected: card("6C"),
        },
    );
    assert_refused(
        &g,
        play(1, "2S"),
        RuleViolation::NotInSequence {
            card: card("2S"),
            expected: card("6C"),
        },
    );
}

#[test]
fn after_a_stop_only_its_player_may_lead() {
    let mut g = game(5);
    apply_all(&mut g, vec![turn_up("7H"), play(1, "QC"), play(2, "KC")]);
    assert_refused(
        &g,
        play(3, "2S"),
        RuleViolation::NotYourTurn {
            expected: seat(2),
            got: seat(3),
        },
    );
    assert_refused(
        &g,
        Move::Stop,
        RuleViolation::MoveNotExpected {
            kind: "stop",
            expected: vec!["play"],
        },
    );
}

#[test]
fn the_first_lead_is_the_eldest_hands() {
    let mut g = game(5);
    apply(&mut g, turn_up("7H"));
    assert_refused(
        &g,
        play(2, "2S"),
        RuleViolation::NotYourTurn {
            expected: seat(1),
            got: seat(2),
        },
    );
}

#[test]
fn a_card_already_played_the_eight_of_diamonds_and_the_turn_up_are_refused() {
    let mut g = game(5);
    apply_all(&mut g, vec![turn_up("7H"), play(1, "KC")]);
    assert_refused(&g, play(1, "KC"), RuleViolation::CardAlreadyPlayed(card("KC")));
    assert_refused(&g, play(1, "8D"), RuleViolation::CardNotInPack(card("8D")));
    assert_refused(&g, play(1, "7H"), RuleViolation::CardTurnedUp(card("7H")));
    let fresh = game(5);
    assert_refused(&fresh, turn_up("8D"), RuleViolation::CardNotInPack(card("8D")));
}

#[test]
fn a_seat_beyond_the_table_is_refused() {
    let mut g = game(5);
    apply(&mut g, turn_up("7H"));
    assert_refused(
        &g,
        play(5, "2S"),
        RuleViolation::NoSuchSeat {
            seat: seat(5),
            players: 5,
        },
    );
    apply_all(&mut g, example_moves().into_iter().skip(1).collect());
    assert_refused(
        &g,
        Move::PopeHolder { seat: Some(seat(9)) },
        RuleViolation::NoSuchSeat {
            seat: seat(9),
            players: 5,
        },
    );
    assert!(matches!(
        g.clone().apply(&Move::PopeHolder { seat: Some(seat(1)) }),
        Err(RuleViolation::InvalidResult(_))
    ));
}

#[test]
fn more_cards_from_a_player_than_were_dealt_are_refused() {
    // Eight players: five cards each. A seat that plays its fifth card has gone out, and the
    // deal takes no more cards.
    let mut g = game(8);
    apply_all(
        &mut g,
        vec![
            turn_up("2H"),
            play(1, "KS"),
            play(1, "KC"),
            play(1, "KD"),
            play(1, "AS"),
            play(2, "2S"),
            play(2, "3S"),
        ],
    );
    assert_eq!(g.cards_left()[1], 1);
    apply(&mut g, Move::Stop);
    apply_all(&mut g, vec![play(2, "4S"), play(1, "5S")]);
    assert_eq!(g.cards_left()[1], 0);
    assert_eq!(g.view().phase, Phase::PopeHolder);
    assert_refused(
        &g,
        play(1, "6S"),
        RuleViolation::MoveNotExpected {
            kind: "play",
            expected: vec!["pope_holder"],
        },
    );
    // In a result, specials beyond the cards a seat played are refused.
    let mut g = game(8);
    apply(&mut g, turn_up("2H"));
    let mv = Move::Result {
        out: seat(1),
        cards_left: vec![4, 0, 5, 5, 5, 5, 5, 5],
        specials: vec![
            vec![card("AH"), card("KH")],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
        ],
        pope_cards_left: None,
        pope_holder: None,
    };
    assert_refused(
        &g,
        mv,
        RuleViolation::MoreCardsThanDealt {
            seat: seat(0),
            dealt: 5,
        },
    );
}

#[test]
fn a_stop_declared_before_a_card_that_is_later_played_flags_the_missed_play() {
    let mut g = game(5);
    apply_all(
        &mut g,
        vec![turn_up("7H"), play(1, "2C"), play(2, "3C"), Move::Stop, play(2, "9S")],
    );
    apply(&mut g, Move::Stop);
    let events = apply(&mut g, play(2, "4C"));
    let missed = MissedPlay {
        seat: seat(2),
        card: card("4C"),
        stopped_after: card("3C"),
    };
    assert!(events.contains(&Event::MissedPlayDetected { missed }));
    assert_eq!(g.view().missed_plays, [missed]);
}

#[test]
fn moves_out_of_phase_are_refused() {
    let g = game(4);
    assert_refused(
        &g,
        play(1, "2C"),
        RuleViolation::MoveNotExpected {
            kind: "play",
            expected: vec!["turn_up"],
        },
    );
    assert_refused(
        &g,
        Move::PopeHolder { seat: None },
        RuleViolation::MoveNotExpected {
            kind: "pope_holder",
            expected: vec!["turn_up"],
        },
    );
    let mut g = game(4);
    apply_all(&mut g, vec![turn_up("2H"), play(1, "2C")]);
    assert_refused(
        &g,
        turn_up("3H"),
        RuleViolation::MoveNotExpected {
            kind: "turn_up",
            expected: vec!["play", "stop"],
        },
    );
    let result = Move::Result {
        out: seat(1),
        cards_left: vec![1, 0, 1, 1],
        specials: vec![vec![]; 4],
        pope_cards_left: None,
        pope_holder: None,
    };
    assert_refused(
        &g,
        result,
        RuleViolation::MoveNotExpected {
            kind: "result",
            expected: vec!["play", "stop"],
        },
    );
}

#[test]
fn inconsistent_results_are_refused() {
    let mut g = game(4);
    apply(&mut g, turn_up("2H"));
    let result = |out: u8, left: Vec<u8>, specials: Vec<Vec<&str>>| Move::Result {
        out: seat(out),
        cards_left: left,
        specials: specials
            .into_iter()
            .map(|cs| cs.into_iter().map(card).collect())
            .collect(),
        pope_cards_left: None,
        pope_holder: None,
    };
    let none = || vec![vec![]; 4];
    let invalid = |mv: Move| {
        let mut after = g.clone();
        assert!(
            matches!(after.apply(&mv), Err(RuleViolation::InvalidResult(_))),
            "{mv:?}"
        );
        assert_eq!(after, g);
    };
    invalid(result(1, vec![3, 1, 2, 2], none()));
    invalid(result(1, vec![3, 0, 0, 2], none()));
    invalid(result(1, vec![11, 0, 2, 2], none()));
    invalid(result(1, vec![3, 0, 2, 2], vec![vec!["5C"], vec![], vec![], vec![]]));
    invalid(result(1, vec![3, 0, 2, 2], vec![vec!["9D"], vec![], vec![], vec![]]));
    assert_refused(
        &g,
        result(1, vec![3, 0, 2], none()),
        RuleViolation::WrongNumberOfEntries { got: 3, expected: 4 },
    );
    assert_refused(
        &g,
        result(7, vec![3, 0, 2, 2], none()),
        RuleViolation::NoSuchSeat {
            seat: seat(7),
            players: 4,
        },
    );
    assert_refused(
        &g,
        result(1, vec![3, 0, 2, 2], vec![vec!["AH", "AH"], vec![], vec![], vec![]]),
        RuleViolation::CardAlreadyPlayed(card("AH")),
    );
    assert_refused(
        &g,
        result(1, vec![3, 0, 2, 2], vec![vec!["2H"], vec![], vec![], vec![]]),
        RuleViolation::CardTurnedUp(card("2H")),
    );
    assert_refused(
        &g,
        result(1, vec![10, 0, 2, 2], vec![vec!["AH"], vec![], vec![], vec![]]),
        RuleViolation::MoreCardsThanDealt {
            seat: seat(0),
            dealt: 10,
        },
    );
}

#[test]
fn a_result_with_the_pope_played_needs_the_hands_at_that_moment() {
    let mut g = game(4);
    apply(&mut g, turn_up("2H"));
    let mv = Move::Result {
        out: seat(1),
        cards_left: vec![3, 0, 2, 4],
        specials: vec![vec![], vec![], vec![card("9D")], vec![]],
        pope_cards_left: Some(vec![6, 5, 4, 7]),
        pope_holder: None,
    };
    apply(&mut g, mv);
    // Seat 2: Pope 6 and 6 + 5 + 7; then pays 2 to seat 1, who takes Game (1) and 3 + 2 + 4.
    // Each net includes the deal's dressing (the dealer 6, the others 3).
    assert_eq!(g.score_sheet().deals[0].net, chips(&[-15, 2, 19, -14]));
    assert_chips_constant(&g);
}

#[test]
fn no_move_is_accepted_after_the_game_has_ended() {
    let mut g = game(3);
    for _ in 0..3 {
        apply(&mut g, turn_up("2H"));
        apply(
            &mut g,
            Move::Result {
                out: seat(0),
                cards_left: vec![0, 1, 1],
                specials: vec![vec![]; 3],
                pope_cards_left: None,
                pope_holder: None,
            },
        );
    }
    assert!(g.is_finished());
    assert_eq!(g.view().phase, Phase::Finished);
    assert_eq!(g.score_sheet().winners, [seat(0)]);
    assert_refused(&g, turn_up("3H"), RuleViolation::GameFinished);
}

// ---------------------------------------------------------------------------------------------
// Properties

/// Deals the current deal from `rng` and plays it to the end card by card, as a table would
/// (`sim`). Returns the moves.
fn random_deal(game: &mut PopeJoan, rng: &mut SplitMix64) -> Vec<Move> {
    super::sim::play_deal(game, rng).unwrap_or_else(|e| panic!("the simulator's deal was refused: {e}"))
}

fn table() -> impl Strategy<Value = (usize, Options)> {
    (
        3usize..=8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(1u8..=6),
    )
        .prop_map(|(players, alone, five, split, losers, pope_game, cap)| {
            (
                players,
                Options {
                    dressing: if alone {
                        Dressing::DealerAlone
                    } else {
                        Dressing::AllPlayers
                    },
                    five_divisions: five,
                    split_matrimony_and_intrigue: split,
                    losers_pay_board: losers,
                    pope_turn_up_wins_game: pope_game,
                    pope_turn_up_cap: cap,
                    pope_in_lieu_of_stop: alone && five,
                    ..Options::default()
                },
            )
        })
}

fn arbitrary_move(players: u8) -> impl Strategy<Value = Move> {
    let any_card = (0usize..52).prop_map(|i| Card::from_index(i).expect("index below 52"));
    let any_seat = (0..players + 2).prop_map(Seat::new);
    prop_oneof![
        any_card.clone().prop_map(|card| Move::TurnUp { card }),
        (any_seat.clone(), any_card).prop_map(|(seat, card)| Move::Play { seat, card }),
        Just(Move::Stop),
        prop::option::of(any_seat).prop_map(|seat| Move::PopeHolder { seat }),
    ]
}

#[test]
fn the_simulator_plays_whole_games_that_replay_identically() {
    for players in [3, 5, 8] {
        crate::games::testing::assert_simulator_plays_whole_games(
            PopeJoan::new(players, Options::default()).expect("a valid set-up"),
            super::sim::random_deal,
            super::sim::random_game,
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_legal_deals_conserve_cards_and_chips((players, options) in table(), seed in any::<u64>()) {
        let mut g = game_with(players, options);
        let mut rng = SplitMix64::new(seed);
        while !g.is_finished() {
            let deal = g.view().deal;
            let moves = random_deal(&mut g, &mut rng);
            prop_assert!(!moves.is_empty());
            assert_chips_constant(&g);
            let sheet = g.score_sheet();
            let last = sheet.deals.last().expect("a deal was scored");
            prop_assert_eq!(last.deal, deal);
            // Cards conserved: every card played by a seat or still in its hand.
            let plays = moves
                .iter()
                .filter(|m| matches!(m, Move::Play { .. } | Move::PopeInLieu { .. }))
                .count();
            let left: usize = last.cards_left.iter().map(|&n| usize::from(n)).sum();
            if last.recording == Recording::CardByCard {
                prop_assert_eq!(plays + left, usize::from(deal_sizes(players).0) * players);
                prop_assert_eq!(last.cards_left.iter().filter(|&&n| n == 0).count(), 1);
            }
        }
        prop_assert_eq!(g.score_sheet().deals.len(), players);
    }

    #[test]
    fn settlements_book_exactly_what_the_game_holds_and_replay_is_identical((players, options) in table(), seed in any::<u64>()) {
        let mut g = game_with(players, options.clone());
        let mut rng = SplitMix64::new(seed);
        let mut moves = Vec::new();
        while !g.is_finished() {
            moves.extend(random_deal(&mut g, &mut rng));
        }
        let (replay, ledger) = replay_booked(game_with(players, options), &moves);
        prop_assert_eq!(&replay, &g);
        assert_ledger_matches(&ledger, g.holdings());
        for &p in g.divisions() {
            prop_assert_eq!(ledger.of(&crate::Account::Pool(p)), g.holdings().pool(p));
        }
    }

    #[test]
    fn a_random_move_is_either_accepted_or_changes_nothing(
        players in 3usize..=8,
        seed in any::<u64>(),
        prefix in 0usize..40,
        mv in arbitrary_move(8),
    ) {
        let mut g = game(players);
        let mut rng = SplitMix64::new(seed);
        let moves = random_deal(&mut g.clone(), &mut rng);
        for m in moves.into_iter().take(prefix) {
            apply(&mut g, m);
        }
        let before = g.clone();
        match g.apply(&mv) {
            Ok(_) => assert_chips_constant(&g),
            Err(_) => prop_assert_eq!(&g, &before),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Stored logs

/// Stored logs are replayed and their events compared with the engine's JSON: a deal's result
/// and the chips it moves (board to seat, seat to seat, the next dressing onto the board) must
/// be written exactly as they always were.
#[test]
fn a_results_move_and_chip_movements_are_written_exactly_as_stored_logs_hold_them() {
    let mut g = game(4);
    apply(&mut g, turn_up("3S"));
    let mv = Move::Result {
        out: seat(1),
        cards_left: vec![3, 0, 5, 2],
        specials: vec![vec![], vec![card("AS")], vec![], vec![]],
        pope_cards_left: None,
        pope_holder: Some(seat(2)),
    };
    let move_json = serde_json::to_string(&mv).expect("json");
    let events = apply(&mut g, mv);
    let events_json = serde_json::to_string(&events).expect("json");
    assert_eq!(move_json, PINNED_MOVE);
    assert_eq!(events_json, PINNED_EVENTS);
}

const PINNED_MOVE: &str =
    r#"{"kind":"result","out":1,"cards_left":[3,0,5,2],"specials":[[],["AS"],[],[]],"pope_holder":2}"#;
const PINNED_EVENTS: &str = r#"[{"event":"chips","deal":1,"memo":"deal 1: Ace won by seat 1 (AS played)","payments":[{"from":{"pool":"ace"},"to":{"seat":1},"amount":1}]},{"event":"went_out","seat":1,"cards_left":[3,0,5,2],"exempt":2},{"event":"chips","deal":1,"memo":"deal 1: Game won by seat 1 (first out)","payments":[{"from":{"pool":"game"},"to":{"seat":1},"amount":1}]},{"event":"chips","deal":1,"memo":"deal 1: seat 1 went out: one a card left from each player","payments":[{"from":{"seat":0},"to":{"seat":1},"amount":3},{"from":{"seat":3},"to":{"seat":1},"amount":2}]},{"event":"deal_ended","deal":1,"winner":1,"net":[-9,4,-3,-5]},{"event":"deal_started","deal":2,"dealer":1,"hand_size":10,"spare_hand":10},{"event":"chips","deal":2,"memo":"deal 2: the board is dressed","payments":[{"from":{"seat":0},"to":{"pool":"pope"},"amount":3},{"from":{"seat":1},"to":{"pool":"pope"},"amount":3},{"from":{"seat":1},"to":{"pool":"matrimony"},"amount":2},{"from":{"seat":1},"to":{"pool":"intrigue"},"amount":1},{"from":{"seat":2},"to":{"pool":"intrigue"},"amount":1},{"from":{"seat":2},"to":{"pool":"ace"},"amount":1},{"from":{"seat":2},"to":{"pool":"king"},"amount":1},{"from":{"seat":3},"to":{"pool":"queen"},"amount":1},{"from":{"seat":3},"to":{"pool":"knave"},"amount":1},{"from":{"seat":3},"to":{"pool":"game"},"amount":1}]}]"#;

// ---------------------------------------------------------------------------------------------
// Legal moves

/// The moves the view lists, and the rest of each kind's candidates (refused).
fn expand_legal(g: &PopeJoan) -> (Vec<Move>, Vec<Move>) {
    let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
    let players = g.players();
    let mut playing = Vec::new();
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
            LegalMove::Play { seat, cards } => {
                playing.push(seat);
                for card in Card::deck() {
                    let mv = Move::Play { seat, card };
                    if cards.contains(&card) {
                        listed.push(mv)
                    } else {
                        unlisted.push(mv)
                    }
                }
            }
            LegalMove::Stop => listed.push(Move::Stop),
            LegalMove::PopeInLieu { seats } => listed.extend(seats.into_iter().map(|seat| Move::PopeInLieu { seat })),
            LegalMove::PopeHolder { seats, spare_hand } => {
                for seat in Seat::all(players).map(Some).chain([None]) {
                    let mv = Move::PopeHolder { seat };
                    let listed_here = seat.map_or(spare_hand, |s| seats.contains(&s));
                    if listed_here {
                        listed.push(mv)
                    } else {
                        unlisted.push(mv)
                    }
                }
            }
            LegalMove::Result { hand_sizes, .. } => {
                let mut cards_left = hand_sizes.clone();
                cards_left[0] = 0;
                cards_left[1] = hand_sizes[1] + 1;
                unlisted.push(Move::Result {
                    out: seat(0),
                    cards_left,
                    specials: vec![Vec::new(); players],
                    pope_cards_left: None,
                    pope_holder: None,
                });
            }
        }
    }
    // A seat not listed for play may play nothing.
    if !playing.is_empty() {
        for s in Seat::all(players).filter(|s| !playing.contains(s)) {
            unlisted.extend(Card::deck().map(|card| Move::Play { seat: s, card }));
        }
    }
    (listed, unlisted)
}

#[test]
fn every_listed_move_is_accepted_and_the_others_refused_through_random_deals() {
    for (players, seed) in [(3, 11), (4, 12), (6, 13)] {
        let options = Options {
            pope_in_lieu_of_stop: true,
            ..Options::default()
        };
        let mut g = game_with(players, options);
        let mut rng = SplitMix64::new(seed);
        for _ in 0..3 {
            if g.is_finished() {
                break;
            }
            let start = g.clone();
            let moves = random_deal(&mut g, &mut rng);
            crate::games::testing::assert_legal_moves_along(
                start,
                &moves,
                &["turn_up", "play", "stop", "pope_in_lieu", "pope_holder"],
                expand_legal,
            );
        }
    }
}

#[test]
fn while_a_run_is_live_every_seat_with_cards_is_offered_only_its_next_card() {
    let mut g = game(4);
    apply_all(&mut g, example_moves().into_iter().take(2).collect());
    let view = g.view();
    let next = view.run.expect("a live run").next;
    let plays: Vec<_> = view
        .legal_moves
        .iter()
        .filter_map(|m| match m {
            LegalMove::Play { seat, cards } => Some((*seat, cards.clone())),
            _ => None,
        })
        .collect();
    assert!(plays.len() > 1, "any seat may hold the next card: {plays:?}");
    assert!(plays.iter().all(|(_, cards)| cards == &[next]));
}

// ---------------------------------------------------------------------------------------------
// Chips carried onto the board (`opening_pools`)

#[test]
fn chips_carried_onto_the_board_are_issued_by_the_bank_and_won_like_a_pools_own() {
    let carried = OpeningPools::from([(Pool::Pope, 5), (Pool::Game, 3)]);
    let mut g = game_with(
        4,
        Options {
            opening_pools: carried.clone(),
            ..Options::default()
        },
    );
    // The first deal is dressed on top of the carry: Pope 6 + 5, Game 1 + 3.
    assert_eq!(pool(&g, Pool::Pope), 11);
    assert_eq!(pool(&g, Pool::Game), 4);
    assert_eq!(seat_chips(&g), [94, 97, 97, 97], "the seats pay nothing for the carry");
    let opening = g.opening_settlements();
    assert_eq!(opening.len(), 3, "opening chips, the carry, the first dressing");
    assert_eq!(opening[1].memo, "chips carried onto the board");
    assert_eq!(opening[1].deal, None);
    assert_eq!(
        opening[1].postings,
        vec![
            (Account::Bank, Chips::new(-5)),
            (Account::Pool(Pool::Pope), Chips::new(5)),
            (Account::Bank, Chips::new(-3)),
            (Account::Pool(Pool::Game), Chips::new(3)),
        ]
    );
    // A Pope turned up takes the carry with the stake: 94 + 11 + 3 × 10.
    apply(&mut g, turn_up("9D"));
    assert_eq!(seat_chips(&g), [135, 87, 87, 87]);
    let h = g.holdings();
    assert_eq!(h.on_table(), h.issued());
    assert_eq!(h.issued(), Chips::new(400 + 8), "the opening chips and the carry");
    // The options kept say what was carried, so the table is made again the same.
    assert_eq!(g.options().opening_pools, carried);
}

#[test]
fn only_the_boards_own_pools_may_be_carried_onto_it() {
    let five = Options {
        five_divisions: true,
        opening_pools: OpeningPools::from([(Pool::King, 1)]),
        ..Options::default()
    };
    let refused = PopeJoan::new(4, five).expect_err("no King division on a five-division board");
    assert!(
        matches!(&refused, SetupError::InvalidOption { option: "opening_pools", reason } if reason.contains("king")),
        "{refused:?}"
    );
    let newmarkets = Options {
        opening_pools: OpeningPools::from([(Pool::PoolAce, 1)]),
        ..Options::default()
    };
    assert!(
        PopeJoan::new(4, newmarkets).is_err(),
        "a Newmarket pool is not a Pope Joan division"
    );
    let too_many = Options {
        opening_pools: OpeningPools::from([(Pool::Pope, crate::stops::MAX_OPENING_CHIPS + 1)]),
        ..Options::default()
    };
    assert!(PopeJoan::new(4, too_many).is_err());
    // Left out, nothing is carried and the stored options read as they always have.
    let plain = serde_json::to_value(Options::default()).expect("json");
    assert!(plain.get("opening_pools").is_none(), "{plain}");
}
