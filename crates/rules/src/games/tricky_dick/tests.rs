//! Tricky Dick: the rules as examples, then properties over random legal games.

use proptest::prelude::*;

use super::score_sheet::average;
use super::*;
use crate::chips::{Account, Chips};
use crate::games::testing::{apply, assert_refused};
use crate::squares::{Colour, Shape};

// ---------------------------------------------------------------------------------------------
// Helpers

fn card(text: &str) -> SquaresCard {
    text.parse().expect("card")
}

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

/// Each seat's card, seat 0 first, as `View::previous_lays` lists them.
fn lays(cards: [&str; 4]) -> Vec<Play<SquaresCard>> {
    (0..)
        .zip(cards)
        .map(|(s, c)| Play {
            seat: seat(s),
            card: card(c),
        })
        .collect()
}

fn seats(ns: &[u8]) -> Vec<Seat> {
    ns.iter().copied().map(Seat::new).collect()
}

fn game() -> TrickyDick {
    game_with(Options::default())
}

fn game_with(options: Options) -> TrickyDick {
    TrickyDick::new(4, options).expect("a valid set-up")
}

fn mode(mode: Mode, hands: u16) -> Options {
    Options {
        mode,
        hands,
        ..Options::default()
    }
}

fn first_trick(cards: &[&str]) -> Move {
    Move::FirstTrick {
        cards: cards.iter().map(|c| card(c)).collect(),
    }
}

fn play(seat: u8, card_text: &str) -> Move {
    Move::Play {
        seat: Seat::new(seat),
        card: card(card_text),
        trick: None,
    }
}

/// Plays `cards` in turn, starting with the seat to act; returns the events of the last card.
#[track_caller]
fn play_in_turn(game: &mut TrickyDick, cards: &[&str]) -> Vec<Event> {
    let mut events = Vec::new();
    for text in cards {
        let seat = game.view().to_act.expect("a seat to play");
        events = apply(
            game,
            Move::Play {
                seat,
                card: card(text),
                trick: None,
            },
        );
    }
    events
}

fn trick_won(events: &[Event]) -> TrickResult {
    events
        .iter()
        .find_map(|e| match e {
            Event::TrickWon { result, .. } => Some(result.clone()),
            _ => None,
        })
        .expect("a trick was won")
}

/// The winner of a face-up trick laid in seat order.
fn winner_of(cards: &[&str]) -> Seat {
    let mut game = game();
    trick_won(&apply(&mut game, first_trick(cards))).winner
}

/// The seat that should win: restated from NOTES, independently of the engine, by narrowing
/// the candidates one rule at a time.
fn expected_winner(plays: &[Play<SquaresCard>]) -> Option<Seat> {
    let top = plays.iter().map(|p| p.card.number).max()?;
    let tied: Vec<&Play<SquaresCard>> = plays.iter().filter(|p| p.card.number == top).collect();
    let occurrences = |c: Colour| plays.iter().filter(|p| p.card.colour == c).count();
    let most = tied.iter().map(|p| occurrences(p.card.colour)).max()?;
    let tied: Vec<_> = tied
        .into_iter()
        .filter(|p| occurrences(p.card.colour) == most)
        .collect();
    let colour_rank = |c: Colour| match c {
        Colour::Red => 1,
        Colour::Yellow => 2,
        Colour::Green => 3,
        Colour::Blue => 4,
    };
    let best = tied.iter().map(|p| colour_rank(p.card.colour)).max()?;
    let tied: Vec<_> = tied
        .into_iter()
        .filter(|p| colour_rank(p.card.colour) == best)
        .collect();
    let shape_rank = |s: Shape| match s {
        Shape::Square => 4,
        Shape::Triangle => 3,
        Shape::Heart => 2,
        Shape::Circle => 1,
    };
    tied.into_iter()
        .max_by_key(|p| shape_rank(p.card.shape))
        .map(|p| p.seat)
}

// ---------------------------------------------------------------------------------------------
// Set-up

#[test]
fn a_table_seats_exactly_four_players() {
    for players in [3, 5] {
        assert_eq!(
            TrickyDick::new(players, Options::default()),
            Err(SetupError::PlayerCount {
                got: players,
                min: 4,
                max: 4
            })
        );
    }
    assert!(TrickyDick::new(4, Options::default()).is_ok());
}

#[test]
fn the_defaults_are_individual_play_over_four_hands_dealt_first_by_seat_zero() {
    let view = game().view();
    assert_eq!(view.mode, Mode::Individual);
    assert_eq!((view.hand, view.hands_in_game, view.dealer), (1, 4, Some(seat(0))));
    assert_eq!(view.phase, Phase::FirstTrick);
    assert_eq!(crate::legal::kinds(&view.legal_moves), ["first_trick", "result"]);
    assert_eq!(view.to_act, None);
    assert_eq!(view.team_totals, None);
    assert_eq!(view.cooperative, None);
}

#[test]
fn hands_and_first_dealer_must_be_in_range() {
    for (options, option) in [
        (
            Options {
                hands: 0,
                ..Options::default()
            },
            "hands",
        ),
        (
            Options {
                hands: 201,
                ..Options::default()
            },
            "hands",
        ),
        (
            Options {
                first_dealer: 4,
                ..Options::default()
            },
            "first_dealer",
        ),
    ] {
        match TrickyDick::new(4, options) {
            Err(SetupError::InvalidOption { option: got, .. }) => assert_eq!(got, option),
            other => panic!("expected {option} to be refused, got {other:?}"),
        }
    }
}

#[test]
fn options_are_read_with_defaults_and_unknown_fields_refused() {
    let options: Options = serde_json::from_str(r#"{"mode": "partnerships"}"#).expect("options");
    assert_eq!(options, mode(Mode::Partnerships, 4));
    let options: Options =
        serde_json::from_str(r#"{"mode": "cooperative", "hands": 2, "first_dealer": 3}"#).expect("options");
    assert_eq!(
        (options.mode, options.hands, options.first_dealer),
        (Mode::Cooperative, 2, 3)
    );
    assert!(serde_json::from_str::<Options>(r#"{"mode": "teams"}"#).is_err());
    assert!(serde_json::from_str::<Options>(r#"{"penalty": 2}"#).is_err());
}

// ---------------------------------------------------------------------------------------------
// Who wins a trick

#[test]
fn the_highest_number_wins() {
    assert_eq!(winner_of(&["1BS", "4RC", "2GH", "3YT"]), seat(1));
    assert_eq!(winner_of(&["3BS", "2RC", "1GH", "2YT"]), seat(0));
}

#[test]
fn among_cards_tied_on_number_the_plurality_colour_of_the_trick_wins() {
    // Fours in red and blue; red occurs twice in the trick, blue once: red wins although blue
    // ranks higher and the blue card is a square.
    assert_eq!(winner_of(&["4RC", "4BS", "1RT", "2GH"]), seat(0));
    // Three threes: yellow occurs twice (the one of yellow circles counts too).
    assert_eq!(winner_of(&["3RS", "3YC", "3GS", "1YC"]), seat(1));
}

#[test]
fn the_plurality_counts_only_colours_of_cards_tied_on_number() {
    // Green occurs twice, but no green card has the top number: red and blue fours are 1-1 and
    // the colour rank decides.
    assert_eq!(winner_of(&["4RS", "4BC", "1GS", "2GT"]), seat(1));
}

#[test]
fn a_two_two_colour_tie_goes_to_the_higher_colour() {
    // Two reds and two blues; the fours are red and blue: blue beats red.
    assert_eq!(winner_of(&["4RS", "4BC", "1RT", "2BH"]), seat(1));
    // Two greens and two yellows, all twos: green beats yellow, then square beats heart.
    assert_eq!(winner_of(&["2YS", "2GH", "2YT", "2GS"]), seat(3));
}

#[test]
fn a_colour_tie_of_one_card_each_goes_to_blue_then_green_then_yellow_then_red() {
    assert_eq!(winner_of(&["4RS", "4YS", "4GS", "4BC"]), seat(3));
    assert_eq!(winner_of(&["4RS", "4YS", "4GC", "1BC"]), seat(2));
    assert_eq!(winner_of(&["3RS", "3YC", "1GC", "2BC"]), seat(1));
}

#[test]
fn cards_of_the_same_colour_and_number_are_settled_by_shape() {
    // Square > triangle > heart > circle.
    assert_eq!(winner_of(&["2BC", "2BT", "1RS", "1GS"]), seat(1));
    assert_eq!(winner_of(&["3GH", "3GC", "3GS", "3GT"]), seat(2));
    assert_eq!(winner_of(&["1YC", "1YH", "1RS", "1GS"]), seat(1));
}

#[test]
fn the_winner_function_agrees_with_the_trick_order_of_play() {
    let mut trick = Trick::new(seat(2));
    for (s, c) in [(2, "4RC"), (3, "4BS"), (0, "1RT"), (1, "2GH")] {
        trick.push(seat(s), card(c));
    }
    let (position, play) = trick_winner(&trick).expect("a winner");
    assert_eq!((position, play.seat, play.card), (0, seat(2), card("4RC")));
}

// ---------------------------------------------------------------------------------------------
// Trick 1, play and turn order

#[test]
fn the_first_trick_is_the_four_face_up_cards_entered_at_once() {
    let mut game = game();
    let events = apply(&mut game, first_trick(&["1BS", "4RC", "2GH", "3YT"]));
    let result = trick_won(&events);
    assert_eq!(result.trick, 1);
    assert_eq!(result.winner, seat(1));
    assert_eq!(result.penalised, Vec::<Seat>::new(), "trick 1 has no previous lay");
    // Listed from the dealer's (seat 0's) left.
    let order: Vec<Seat> = result.cards.iter().map(|p| p.seat).collect();
    assert_eq!(order, seats(&[1, 2, 3, 0]));
    let view = game.view();
    assert_eq!(view.phase, Phase::Playing);
    assert_eq!(crate::legal::kinds(&view.legal_moves), ["play"]);
    assert_eq!(view.to_act, Some(seat(1)), "the winner leads trick 2");
    let current = view.current_trick.expect("trick 2");
    assert_eq!((current.number, current.leader), (2, seat(1)));
    assert_eq!(view.previous_lays, lays(["1BS", "4RC", "2GH", "3YT"]));
    assert_eq!(view.last_trick, Some(result));
}

#[test]
fn any_card_may_be_played_and_the_winner_leads_the_next_trick() {
    let mut game = game();
    apply(&mut game, first_trick(&["1BS", "4RC", "2GH", "3YT"]));
    // Seat 1 leads; any card is legal, whatever was led.
    let events = play_in_turn(&mut game, &["1RH", "2RT", "3GS", "2YH"]);
    let result = trick_won(&events);
    assert_eq!((result.trick, result.winner), (2, seat(3)));
    assert_eq!(game.view().to_act, Some(seat(3)));
    assert_eq!(game.view().current_trick.map(|t| t.leader), Some(seat(3)));
}

#[test]
fn the_view_shows_the_trick_in_progress() {
    let mut game = game();
    apply(&mut game, first_trick(&["1BS", "4RC", "2GH", "3YT"]));
    apply(&mut game, play(1, "4BS"));
    let current = game.view().current_trick.expect("trick 2");
    assert_eq!(
        current.plays,
        [Play {
            seat: seat(1),
            card: card("4BS")
        }]
    );
    assert_eq!(game.view().to_act, Some(seat(2)));
}

// ---------------------------------------------------------------------------------------------
// Trick value and penalties

#[test]
fn the_trick_value_is_circles_minus_squares_to_the_winner_and_everyone_of_its_colour() {
    let mut game = game();
    // 4BC wins; three circles and one square make +2, for seat 0 and for seat 1 (also blue).
    let result = trick_won(&apply(&mut game, first_trick(&["4BC", "1BC", "2RS", "3GC"])));
    assert_eq!(result.winner, seat(0));
    assert_eq!((result.circles, result.squares, result.value), (3, 1, 2));
    assert_eq!(result.scorers, seats(&[0, 1]));
    assert_eq!(game.view().totals, [2, 2, 0, 0]);
    assert_eq!(game.view().hand_points, [2, 2, 0, 0]);
}

#[test]
fn a_trick_with_more_squares_than_circles_costs_its_scorers() {
    let mut game = game();
    // 3GS wins (highest number); green also from seat 3: both lose 2 (three squares, one circle).
    let result = trick_won(&apply(&mut game, first_trick(&["1RS", "3GS", "2YC", "1GS"])));
    assert_eq!((result.winner, result.value), (seat(1), -2));
    assert_eq!(result.scorers, seats(&[1, 3]));
    assert_eq!(game.view().totals, [0, -2, 0, -2]);
    assert_eq!(
        game.view().chips,
        [
            ChipStack::of(0),
            ChipStack { white: 0, coloured: 2 },
            ChipStack::of(0),
            ChipStack { white: 0, coloured: 2 }
        ]
    );
}

#[test]
fn a_trick_without_circles_or_squares_is_worth_nothing_and_books_nothing() {
    let mut game = game();
    let events = apply(&mut game, first_trick(&["1RT", "3GH", "2YT", "1GH"]));
    assert_eq!(trick_won(&events).value, 0);
    assert_eq!(TrickyDick::settlements(&events), Vec::new());
    // Equal numbers of circles and squares cancel out too.
    let mut game = self::game();
    let events = apply(&mut game, first_trick(&["1RC", "3GS", "2YT", "1GH"]));
    assert_eq!(trick_won(&events).value, 0);
    assert_eq!(game.view().totals, [0, 0, 0, 0]);
}

/// Trick 1: 4BC (seat 0), 1BH (seat 1), 2RS (seat 2), 3GT (seat 3); seat 0 wins and leads.
fn after_first_trick() -> TrickyDick {
    let mut game = game();
    apply(&mut game, first_trick(&["4BC", "1BH", "2RS", "3GT"]));
    game
}

#[test]
fn the_view_names_each_previous_lay_by_seat_and_lists_none_before_trick_one_without_nulls() {
    let before = serde_json::to_value(game().view()).expect("a view serializes");
    assert_eq!(before["previous_lays"], serde_json::json!([]));

    let after = serde_json::to_value(after_first_trick().view()).expect("a view serializes");
    assert_eq!(
        after["previous_lays"],
        serde_json::json!([
            {"seat": 0, "card": "4BC"},
            {"seat": 1, "card": "1BH"},
            {"seat": 2, "card": "2RS"},
            {"seat": 3, "card": "3GT"}
        ])
    );
}

#[test]
fn a_card_sharing_nothing_with_the_players_previous_lay_costs_one() {
    let mut game = after_first_trick();
    // Seat 0 had 4BC: 1RS shares no number, colour or shape.
    let events = apply(&mut game, play(0, "1RS"));
    assert_eq!(
        events,
        [Event::CardPlayed {
            seat: seat(0),
            card: card("1RS"),
            trick: 2,
            penalised: true
        }]
    );
    assert_eq!(game.view().current_trick.expect("trick").penalised, seats(&[0]));
    // Seat 1 had 1BH: 3YT shares nothing either.
    apply(&mut game, play(1, "3YT"));
    // Seat 2 had 2RS: 2YH shares the number. Seat 3 had 3GT: 4RT shares the shape.
    apply(&mut game, play(2, "2YH"));
    let result = trick_won(&apply(&mut game, play(3, "4RT")));
    assert_eq!(result.penalised, seats(&[0, 1]));
    // 4RT wins, no circles, one square: −1 to seat 3 and to seats 0 (1RS is red) — on top of
    // seat 0's penalty.
    assert_eq!((result.winner, result.value), (seat(3), -1));
    assert_eq!(result.scorers, seats(&[0, 3]));
    // Trick 1 (one circle, one square) was worth nothing.
    assert_eq!(game.view().hand_points, [-2, -1, 0, -1]);
}

#[test]
fn sharing_any_one_attribute_avoids_the_penalty() {
    let mut game = after_first_trick();
    // Seat 0 (had 4BC) matches the number, seat 1 (1BH) the colour, seat 2 (2RS) the shape,
    // seat 3 (3GT) all but the number.
    for (s, c) in [(0, "4RS"), (1, "2BT"), (2, "1GS"), (3, "1GT")] {
        let events = apply(&mut game, play(s, c));
        assert!(
            matches!(events[0], Event::CardPlayed { penalised: false, .. }),
            "{c} was penalised"
        );
    }
    assert_eq!(game.view().last_trick.expect("trick 2").penalised, Vec::<Seat>::new());
}

#[test]
fn the_penalty_compares_with_the_previous_trick_only() {
    let mut game = after_first_trick();
    play_in_turn(&mut game, &["4RS", "2BT", "1GS", "1GT"]);
    // 4RS won trick 2. Seat 0 now compares with 4RS, not with 4BC from trick 1: 3BC shares
    // colour and shape with 4BC but nothing with 4RS.
    let events = apply(&mut game, play(0, "3BC"));
    assert!(matches!(events[0], Event::CardPlayed { penalised: true, .. }));
    assert_eq!(game.view().previous_lays, lays(["4RS", "2BT", "1GS", "1GT"]));
}

/// Each account's net amount in a list of postings, the way the ledger books it (it merges
/// postings to one account and drops zeros), so that settlements are compared as booked.
fn per_account(postings: &[(Account, Chips)]) -> std::collections::BTreeMap<Account, Chips> {
    let mut sums = std::collections::BTreeMap::new();
    for &(account, amount) in postings {
        *sums.entry(account).or_insert(Chips::ZERO) += amount;
    }
    sums.retain(|_, amount| !amount.is_zero());
    sums
}

#[test]
fn each_trick_books_its_value_and_its_penalties_as_separate_balanced_settlements() {
    let mut game = after_first_trick();
    play_in_turn(&mut game, &["1RS", "3YT", "2YH"]);
    let events = apply(&mut game, play(3, "4RT"));
    let settlements = TrickyDick::settlements(&events);
    assert_eq!(settlements.len(), 2);
    let value = &settlements[0];
    assert_eq!(value.deal, Some(1));
    assert_eq!(
        value.memo,
        "hand 1, trick 2: trick value -1 (0 circles − 1 squares) to seat 0, seat 3"
    );
    assert_eq!(
        per_account(&value.postings),
        per_account(&[
            (Account::Seat(seat(0)), Chips::new(-1)),
            (Account::Seat(seat(3)), Chips::new(-1)),
            (Account::Bank, Chips::new(2)),
        ])
    );
    let penalty = &settlements[1];
    assert!(penalty.memo.starts_with("hand 1, trick 2: penalty"), "{}", penalty.memo);
    assert_eq!(
        per_account(&penalty.postings),
        per_account(&[
            (Account::Seat(seat(0)), Chips::new(-1)),
            (Account::Seat(seat(1)), Chips::new(-1)),
            (Account::Bank, Chips::new(2)),
        ])
    );
    for s in &settlements {
        assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
    }
    // A card that does not complete a trick books nothing.
    assert_eq!(TrickyDick::settlements(&apply(&mut game, play(3, "1YC"))), Vec::new());
}

#[test]
fn a_positive_trick_value_is_paid_by_the_bank() {
    let mut game = game();
    let events = apply(&mut game, first_trick(&["4BC", "1BC", "2RS", "3GC"]));
    let settlements = TrickyDick::settlements(&events);
    assert_eq!(settlements.len(), 1);
    assert_eq!(
        per_account(&settlements[0].postings),
        per_account(&[
            (Account::Seat(seat(0)), Chips::new(2)),
            (Account::Seat(seat(1)), Chips::new(2)),
            (Account::Bank, Chips::new(-4)),
        ])
    );
}

#[test]
fn chips_are_white_when_positive_and_coloured_when_negative_never_both() {
    assert_eq!(ChipStack::of(3), ChipStack { white: 3, coloured: 0 });
    assert_eq!(ChipStack::of(-4), ChipStack { white: 0, coloured: 4 });
    assert_eq!(ChipStack::of(0), ChipStack { white: 0, coloured: 0 });
}

// ---------------------------------------------------------------------------------------------
// Refusals: each leaves the state exactly as it was

#[test]
fn a_first_trick_that_is_not_four_cards_is_refused() {
    let game = game();
    assert_refused(
        &game,
        first_trick(&["1BS", "4RC", "2GH"]),
        RuleViolation::WrongNumberOfEntries { got: 3, expected: 4 },
    );
    assert_refused(
        &game,
        first_trick(&["1BS", "4RC", "2GH", "3YT", "3YS"]),
        RuleViolation::WrongNumberOfEntries { got: 5, expected: 4 },
    );
    assert_refused(
        &game,
        Move::FirstTrick { cards: Vec::new() },
        RuleViolation::WrongNumberOfEntries { got: 0, expected: 4 },
    );
}

#[test]
fn the_same_card_twice_in_the_first_trick_is_refused() {
    assert_refused(
        &game(),
        first_trick(&["1BS", "4RC", "1bs", "3YT"]),
        RuleViolation::SquaresCardAlreadyPlayed(card("1BS")),
    );
}

#[test]
fn a_card_already_played_in_the_hand_is_refused() {
    let mut game = after_first_trick();
    // From trick 1.
    assert_refused(
        &game,
        play(0, "3GT"),
        RuleViolation::SquaresCardAlreadyPlayed(card("3GT")),
    );
    // From the trick in progress.
    apply(&mut game, play(0, "1RS"));
    assert_refused(
        &game,
        play(1, "1RS"),
        RuleViolation::SquaresCardAlreadyPlayed(card("1RS")),
    );
}

#[test]
fn a_fifth_card_for_a_complete_trick_is_refused() {
    let mut game = after_first_trick();
    play_in_turn(&mut game, &["1RS", "3YT", "2YH", "4RT"]);
    // Trick 2 has its four cards; a phone still on trick 2 tries to add one.
    let fifth = Move::Play {
        seat: seat(3),
        card: card("2BC"),
        trick: Some(2),
    };
    assert_refused(&game, fifth, RuleViolation::TrickComplete { trick: 2, current: 3 });
    let ahead = Move::Play {
        seat: seat(3),
        card: card("2BC"),
        trick: Some(4),
    };
    assert_refused(&game, ahead, RuleViolation::TrickNotStarted { trick: 4, current: 3 });
    // Naming the current trick is accepted.
    let right = Move::Play {
        seat: seat(3),
        card: card("2BC"),
        trick: Some(3),
    };
    apply(&mut game, right);
}

#[test]
fn playing_out_of_turn_or_from_no_seat_is_refused() {
    let game = after_first_trick();
    assert_refused(
        &game,
        play(1, "1RS"),
        RuleViolation::NotYourTurn {
            expected: seat(0),
            got: seat(1),
        },
    );
    assert_refused(
        &game,
        play(4, "1RS"),
        RuleViolation::NoSuchSeat {
            seat: seat(4),
            players: 4,
        },
    );
}

#[test]
fn moves_of_the_wrong_kind_are_refused() {
    assert_refused(
        &game(),
        play(1, "1RS"),
        RuleViolation::MoveNotExpected {
            kind: "play",
            expected: vec!["first_trick", "result"],
        },
    );
    assert_refused(
        &after_first_trick(),
        first_trick(&["1RS", "1RT", "1RH", "1RC"]),
        RuleViolation::MoveNotExpected {
            kind: "first_trick",
            expected: vec!["play"],
        },
    );
}

#[test]
fn an_attribute_value_that_does_not_exist_cannot_be_entered() {
    for bad in ["5BS", "3KS", "3BX", "0RC", "3B"] {
        let json = format!(r#"{{"kind": "play", "seat": 0, "card": "{bad}"}}"#);
        let err = serde_json::from_str::<Move>(&json).expect_err(bad);
        assert!(err.to_string().starts_with("unknown card"), "{err}");
    }
    let json = r#"{"kind": "first_trick", "cards": ["1BS", "4RC", "2GP", "3YT"]}"#;
    let err = serde_json::from_str::<Move>(json).expect_err("no shape P");
    assert!(err.to_string().contains("there is no shape `P`"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Hands, modes and the end

/// Plays the current hand to the end with the simulator.
fn finish_hand(game: &mut TrickyDick, seed: u64) -> sim::HandRecord {
    sim::random_hand(game, seed).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_hand_is_sixteen_tricks_and_the_deal_passes_to_the_left() {
    let mut game = game_with(Options {
        first_dealer: 3,
        ..Options::default()
    });
    assert_eq!(game.view().dealer, Some(seat(3)));
    let record = finish_hand(&mut game, 11);
    assert_eq!(record.moves.len(), 1 + 15 * 4);
    let tricks: Vec<u8> = record
        .events
        .iter()
        .flatten()
        .filter_map(|e| match e {
            Event::TrickWon { result, .. } => Some(result.trick),
            _ => None,
        })
        .collect();
    assert_eq!(tricks, (1..=16).collect::<Vec<_>>());
    let last = record.events.last().expect("events");
    assert!(matches!(last[last.len() - 2], Event::HandScored { hand: 1, .. }));
    assert_eq!(
        last[last.len() - 1],
        Event::HandStarted {
            hand: 2,
            dealer: seat(0)
        }
    );
    assert!(game.at_deal_boundary());
    let view = game.view();
    assert_eq!(
        (view.hand, view.phase, view.hand_points),
        (2, Phase::FirstTrick, vec![0; 4])
    );
    assert_eq!(view.last_trick, None);
    assert_eq!(view.previous_lays, [], "a new hand starts without a previous lay");
}

#[test]
fn the_game_ends_after_the_hands_and_refuses_any_further_move() {
    let mut game = game_with(mode(Mode::Individual, 2));
    finish_hand(&mut game, 1);
    let record = finish_hand(&mut game, 2);
    assert!(game.is_finished());
    assert!(game.at_deal_boundary());
    let last = record.events.last().expect("events").last().cloned();
    let sheet = game.score_sheet();
    assert_eq!(sheet.hands.len(), 2);
    assert!(sheet.finished);
    let best = sheet.totals.iter().max().copied();
    let winners: Vec<Seat> = Seat::all(4).filter(|s| Some(sheet.totals[s.index()]) == best).collect();
    assert_eq!(sheet.winners, winners);
    assert_eq!(
        last,
        Some(Event::GameFinished {
            winners,
            totals: sheet.totals.clone()
        })
    );
    let view = game.view();
    assert_eq!(
        (view.phase, view.to_act, view.legal_moves.len()),
        (Phase::Finished, None, 0)
    );
    assert_refused(&game, play(0, "1RS"), RuleViolation::GameFinished);
    assert_refused(
        &game,
        first_trick(&["1RS", "1RT", "1RH", "1RC"]),
        RuleViolation::GameFinished,
    );
}

#[test]
fn after_a_hand_ends_only_the_next_first_trick_is_accepted() {
    let mut game = game_with(mode(Mode::Individual, 2));
    finish_hand(&mut game, 5);
    assert_refused(
        &game,
        play(1, "1RS"),
        RuleViolation::MoveNotExpected {
            kind: "play",
            expected: vec!["first_trick", "result"],
        },
    );
}

#[test]
fn partnerships_add_partners_opposite_and_the_better_team_wins() {
    let mut game = game_with(mode(Mode::Partnerships, 1));
    apply(&mut game, first_trick(&["4BC", "1BC", "2RS", "3GC"]));
    // Seats 0 and 1 scored 2 each: one for each team.
    assert_eq!(game.view().team_totals, Some(vec![2, 2]));
    let mut game = game_with(mode(Mode::Partnerships, 1));
    finish_hand(&mut game, 3);
    let sheet = game.score_sheet();
    let t = &sheet.totals;
    let teams = vec![t[0] + t[2], t[1] + t[3]];
    assert_eq!(sheet.team_totals, Some(teams.clone()));
    let expected: Vec<Seat> = if teams[0] > teams[1] {
        seats(&[0, 2])
    } else if teams[1] > teams[0] {
        seats(&[1, 3])
    } else {
        seats(&[0, 1, 2, 3])
    };
    assert_eq!(sheet.winners, expected);
}

#[test]
fn a_tie_between_partnerships_is_shared() {
    let mut game = game_with(mode(Mode::Partnerships, 1));
    apply(&mut game, first_trick(&["4BC", "1BC", "2RS", "3GC"]));
    // End the game here (a test-only shortcut): the teams are level and share the win.
    game.hand = None;
    assert_eq!(game.view().team_totals, Some(vec![2, 2]));
    assert_eq!(game.view().winners, seats(&[0, 1, 2, 3]));
}

#[test]
fn the_cooperative_score_is_the_total_of_all_four_divided_by_the_hands_played() {
    let mut game = game_with(mode(Mode::Cooperative, 3));
    assert_eq!(
        game.view().cooperative,
        Some(CooperativeScore {
            total: 0,
            hands_played: 0,
            average: None
        })
    );
    finish_hand(&mut game, 7);
    finish_hand(&mut game, 8);
    let sheet = game.score_sheet();
    let total: i32 = sheet.totals.iter().sum();
    let score = sheet.cooperative.expect("cooperative");
    assert_eq!((score.total, score.hands_played), (total, 2));
    assert_eq!(score.average, average(total, 2));
    finish_hand(&mut game, 9);
    let sheet = game.score_sheet();
    assert_eq!(sheet.winners, Vec::<Seat>::new(), "one team, no opponent");
    let score = sheet.cooperative.expect("cooperative");
    assert_eq!((score.total, score.hands_played), (sheet.totals.iter().sum(), 3));
}

#[test]
fn the_cooperative_average_has_two_decimals_rounded_half_away_from_zero() {
    assert_eq!(average(7, 3).as_deref(), Some("2.33"));
    assert_eq!(average(8, 3).as_deref(), Some("2.67"));
    assert_eq!(average(-1, 2).as_deref(), Some("-0.50"));
    assert_eq!(average(5, 2).as_deref(), Some("2.50"));
    assert_eq!(average(1, 8).as_deref(), Some("0.13"));
    assert_eq!(average(-1, 8).as_deref(), Some("-0.13"));
    assert_eq!(average(-12, 4).as_deref(), Some("-3.00"));
    assert_eq!(average(-1, 400).as_deref(), Some("0.00"));
    assert_eq!(average(0, 1).as_deref(), Some("0.00"));
    assert_eq!(average(3, 0), None);
}

#[test]
fn the_state_and_its_events_survive_a_round_trip_through_json() {
    let mut game = after_first_trick();
    let events = play_in_turn(&mut game, &["1RS", "3YT", "2YH", "4RT"]);
    let json = serde_json::to_string(&game).expect("json");
    assert_eq!(serde_json::from_str::<TrickyDick>(&json).expect("state"), game);
    let json = serde_json::to_string(&events).expect("json");
    assert_eq!(serde_json::from_str::<Vec<Event>>(&json).expect("events"), events);
    let mv = Move::Play {
        seat: seat(0),
        card: card("2BC"),
        trick: Some(3),
    };
    let json = serde_json::to_value(&mv).expect("json");
    assert_eq!(
        json,
        serde_json::json!({"kind": "play", "seat": 0, "card": "2BC", "trick": 3})
    );
}

// ---------------------------------------------------------------------------------------------
// A hand entered as its result

fn result(trick_chips: [i32; 4], penalties: [u8; 4]) -> Move {
    Move::Result {
        trick_chips: trick_chips.to_vec(),
        penalties: penalties.to_vec(),
    }
}

/// The result that stands for a hand played card by card: each seat's trick chips (its points
/// with its penalties given back) and penalties, read from the hand's score-sheet line.
fn result_of(line: &HandScore) -> Move {
    Move::Result {
        trick_chips: line
            .points
            .iter()
            .zip(&line.penalties)
            .map(|(&p, &n)| p + i32::from(n))
            .collect(),
        penalties: line.penalties.clone(),
    }
}

#[test]
fn a_hand_entered_as_a_result_scores_trick_chips_less_penalties_and_deals_the_next() {
    let mut game = game_with(mode(Mode::Partnerships, 2));
    let events = apply(&mut game, result([5, -3, 5, 0], [2, 0, 1, 4]));
    assert_eq!(
        events,
        [
            Event::ResultEntered {
                hand: 1,
                trick_chips: vec![5, -3, 5, 0],
                penalties: vec![2, 0, 1, 4],
            },
            Event::HandScored {
                hand: 1,
                points: vec![3, -3, 4, -4],
                totals: vec![3, -3, 4, -4],
            },
            Event::HandStarted {
                hand: 2,
                dealer: seat(1)
            },
        ]
    );
    let sheet = game.score_sheet();
    assert_eq!(
        sheet.hands,
        [HandScore {
            hand: 1,
            dealer: seat(0),
            points: vec![3, -3, 4, -4],
            penalties: vec![2, 0, 1, 4],
            totals: vec![3, -3, 4, -4],
        }]
    );
    assert_eq!(sheet.team_totals, Some(vec![7, -7]));
    assert_eq!(game.running_totals(), [3, -3, 4, -4]);
    let view = game.view();
    assert_eq!(
        (view.hand, view.phase, view.hand_points),
        (2, Phase::FirstTrick, vec![0; 4])
    );
    assert_eq!(view.chips[1], ChipStack { white: 0, coloured: 3 });
    assert!(game.at_deal_boundary());
    assert_eq!(game.deal_number(), Some(2));
}

#[test]
fn the_last_hand_entered_as_a_result_ends_the_game_with_its_winners() {
    let mut game = game_with(mode(Mode::Individual, 1));
    let events = apply(&mut game, result([16, 16, 16, 0], [0, 15, 0, 0]));
    assert_eq!(
        events.last(),
        Some(&Event::GameFinished {
            winners: seats(&[0, 2]),
            totals: vec![16, 1, 16, 0]
        })
    );
    assert!(game.is_finished());
    assert_eq!(game.score_sheet().winners, seats(&[0, 2]));
    assert_refused(&game, result([0; 4], [0; 4]), RuleViolation::GameFinished);
}

#[test]
fn a_result_books_its_trick_chips_and_its_penalties_as_two_balanced_settlements() {
    let mut game = game();
    let events = apply(&mut game, result([5, -3, 0, 2], [2, 0, 1, 0]));
    let settlements = TrickyDick::settlements(&events);
    assert_eq!(settlements.len(), 2);
    assert_eq!(
        settlements[0].memo,
        "hand 1, entered as a result: trick chips (circles − squares of the tricks scored) seat 0 +5, seat 1 -3, seat 3 +2"
    );
    assert_eq!(
        per_account(&settlements[0].postings),
        per_account(&[
            (Account::Seat(seat(0)), Chips::new(5)),
            (Account::Seat(seat(1)), Chips::new(-3)),
            (Account::Seat(seat(3)), Chips::new(2)),
            (Account::Bank, Chips::new(-4)),
        ])
    );
    assert_eq!(
        settlements[1].memo,
        "hand 1, entered as a result: penalties, −1 each for a card sharing nothing with the previous lay, seat 0 -2, seat 2 -1"
    );
    assert_eq!(
        per_account(&settlements[1].postings),
        per_account(&[
            (Account::Seat(seat(0)), Chips::new(-2)),
            (Account::Seat(seat(2)), Chips::new(-1)),
            (Account::Bank, Chips::new(3)),
        ])
    );
    for s in &settlements {
        assert_eq!(s.deal, Some(1));
        assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
        assert!(s.postings.iter().all(|(_, c)| !c.is_zero()));
    }
    // A hand worth nothing to anybody books nothing.
    assert_eq!(
        TrickyDick::settlements(&apply(&mut game, result([0; 4], [0; 4]))),
        Vec::new()
    );
}

#[test]
fn a_result_is_refused_once_trick_one_is_entered() {
    assert_refused(
        &after_first_trick(),
        result([0; 4], [0; 4]),
        RuleViolation::MoveNotExpected {
            kind: "result",
            expected: vec!["play"],
        },
    );
}

#[test]
fn a_result_that_no_hand_can_give_is_refused_with_its_reason() {
    let game = game();
    let cases = [
        (
            Move::Result {
                trick_chips: vec![0; 3],
                penalties: vec![0; 4],
            },
            RuleViolation::WrongNumberOfEntries { got: 3, expected: 4 },
        ),
        (
            Move::Result {
                trick_chips: vec![0; 4],
                penalties: vec![0; 5],
            },
            RuleViolation::WrongNumberOfEntries { got: 5, expected: 4 },
        ),
        (
            result([0, 17, 0, 0], [0; 4]),
            RuleViolation::TrickChipsOutOfRange {
                seat: seat(1),
                chips: 17,
                max: 16,
            },
        ),
        (
            result([0, 0, 0, -17], [0; 4]),
            RuleViolation::TrickChipsOutOfRange {
                seat: seat(3),
                chips: -17,
                max: 16,
            },
        ),
        (
            result([i32::MIN, 0, 0, 0], [0; 4]),
            RuleViolation::TrickChipsOutOfRange {
                seat: seat(0),
                chips: i32::MIN,
                max: 16,
            },
        ),
        // Each seat in range, but no hand gives all four that much.
        (
            result([16, 16, 16, 1], [0; 4]),
            RuleViolation::TrickChipsDoNotAddUp { total: 49, max: 48 },
        ),
        (
            result([-16, -16, -16, -16], [0; 4]),
            RuleViolation::TrickChipsDoNotAddUp { total: -64, max: 48 },
        ),
        (
            result([0; 4], [0, 0, 16, 0]),
            RuleViolation::PenaltiesOutOfRange {
                seat: seat(2),
                penalties: 16,
                max: 15,
            },
        ),
    ];
    for (mv, violation) in cases {
        assert_refused(&game, mv, violation);
    }
    let message = RuleViolation::TrickChipsOutOfRange {
        seat: seat(1),
        chips: 17,
        max: 16,
    }
    .to_string();
    assert_eq!(
        message,
        "seat 1's trick chips of 17 are out of range: a hand's tricks hold 16 circles and 16 squares, so a player's trick chips are −16 to 16"
    );
    // A negative count is not a number of penalties at all.
    let json = r#"{"kind": "result", "trick_chips": [0, 0, 0, 0], "penalties": [0, -1, 0, 0]}"#;
    assert!(serde_json::from_str::<Move>(json).is_err());
}

/// A hand whose four tricks of `shared` (one colour each) every seat scores, and whose four
/// tricks of `alone` seat 3 wins with a 4 while the others lay other colours, so it scores them
/// alone; the other eight tricks (triangles and hearts) are worth nothing. Cards in seat order.
fn lopsided_hand(shared: char, alone: char) -> Vec<[String; 4]> {
    let colours = ['R', 'Y', 'G', 'B'];
    let mut tricks: Vec<[String; 4]> = colours
        .iter()
        .map(|c| [4, 3, 2, 1].map(|n| format!("{n}{c}{shared}")))
        .collect();
    for k in 0..4 {
        let colour = |i: usize| colours[(k + i) % 4];
        tricks.push([
            format!("3{}{alone}", colour(1)),
            format!("2{}{alone}", colour(2)),
            format!("1{}{alone}", colour(3)),
            format!("4{}{alone}", colour(0)),
        ]);
    }
    for n in 1..=4 {
        for shape in ['T', 'H'] {
            tricks.push(colours.map(|c| format!("{n}{c}{shape}")));
        }
    }
    tricks
}

/// Plays a hand given as each trick's cards in seat order, each trick laid in turn from its
/// leader; returns each seat's trick chips (points with the penalties given back).
fn trick_chips_of(tricks: &[[String; 4]]) -> Vec<i32> {
    let mut game = game_with(mode(Mode::Individual, 1));
    let first = tricks[0].each_ref().map(String::as_str);
    apply(&mut game, first_trick(&first));
    for trick in &tricks[1..] {
        for _ in 0..4 {
            let seat = game.view().to_act.expect("a seat to lay");
            apply(&mut game, play(seat.number(), &trick[seat.index()]));
        }
    }
    assert!(game.is_finished());
    let line = &game.score_sheet().hands[0];
    line.points
        .iter()
        .zip(&line.penalties)
        .map(|(&p, &n)| p + i32::from(n))
        .collect()
}

/// The bounds refuse nothing a hand can give: their extremes are played here, each seat at ±16
/// and the four adding up to ±48.
#[test]
fn the_extreme_results_the_bounds_allow_are_hands_that_can_be_played() {
    assert_eq!(trick_chips_of(&lopsided_hand('C', 'S')), [16, 16, 16, 0]);
    assert_eq!(trick_chips_of(&lopsided_hand('S', 'C')), [-16, -16, -16, 0]);
    for chips in [[16, 16, 16, 0], [-16, -16, -16, 0]] {
        apply(&mut game(), result(chips, [15; 4]));
    }
}

// ---------------------------------------------------------------------------------------------
// Properties over random legal games

fn options() -> impl Strategy<Value = Options> {
    (
        prop::sample::select(vec![Mode::Individual, Mode::Partnerships, Mode::Cooperative]),
        1u16..=3,
        0u8..4,
    )
        .prop_map(|(mode, hands, first_dealer)| Options {
            mode,
            hands,
            first_dealer,
        })
}

fn random_game(options: &Options, seed: u64) -> (TrickyDick, Vec<sim::HandRecord>) {
    let mut game = game_with(options.clone());
    let hands = sim::random_game(&mut game, seed).unwrap_or_else(|e| panic!("{e}"));
    (game, hands)
}

/// A random move, mostly well-formed so that some are accepted; with the flag set its seat is
/// replaced by the seat to act.
fn arbitrary_move() -> impl Strategy<Value = (Move, bool)> {
    let a_card = (0usize..64).prop_map(|i| SquaresCard::from_index(i).expect("an index below 64"));
    let mv = prop_oneof![
        4 => (0u8..6, a_card.clone(), prop::option::weighted(0.3, 0u8..18))
            .prop_map(|(seat, card, trick)| Move::Play { seat: Seat::new(seat), card, trick }),
        1 => prop::collection::vec(a_card, 3..=5).prop_map(|cards| Move::FirstTrick { cards }),
        1 => (prop::collection::vec(-20i32..=20, 3..=5), prop::collection::vec(0u8..=17, 3..=5))
            .prop_map(|(trick_chips, penalties)| Move::Result { trick_chips, penalties }),
    ];
    (mv, prop::bool::weighted(0.6))
}

fn aimed(game: &TrickyDick, mv: &Move) -> Move {
    match (mv, game.view().to_act) {
        (Move::Play { card, trick, .. }, Some(seat)) => Move::Play {
            seat,
            card: *card,
            trick: *trick,
        },
        _ => mv.clone(),
    }
}

/// The seat balances that a list of events' settlements books, with the bank's.
fn booked(events: &[Event], balances: &mut [i64; 5]) -> Result<(), TestCaseError> {
    for settlement in TrickyDick::settlements(events) {
        prop_assert_eq!(settlement.postings.iter().map(|(_, c)| c.get()).sum::<i64>(), 0);
        prop_assert!(settlement.postings.iter().all(|(_, c)| !c.is_zero()));
        for (account, amount) in &settlement.postings {
            match account {
                Account::Seat(s) => balances[s.index()] += amount.get(),
                Account::Bank => balances[4] += amount.get(),
                other => prop_assert!(false, "unexpected account {}", other),
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_hand_deals_and_plays_all_64_cards_once_each(options in options(), seed in any::<u64>()) {
        let (game, hands) = random_game(&options, seed);
        prop_assert!(game.is_finished());
        prop_assert_eq!(hands.len(), usize::from(options.hands));
        for record in &hands {
            let dealt: SquaresSet = record.hands.values().iter().flatten().copied().collect();
            prop_assert_eq!(dealt.len(), 64);
            let mut played = SquaresSet::default();
            let mut count = 0;
            for mv in &record.moves {
                match mv {
                    Move::FirstTrick { cards } => {
                        for (s, c) in Seat::all(4).zip(cards) {
                            prop_assert_eq!(record.hands[s].last(), Some(c), "trick 1 is the sixteenth card");
                            prop_assert!(!played.contains(*c));
                            played.insert(*c);
                            count += 1;
                        }
                    }
                    Move::Play { seat, card, .. } => {
                        prop_assert!(record.hands[*seat].contains(card), "{} not in {}'s hand", card, seat);
                        prop_assert!(!played.contains(*card), "{} played twice", card);
                        played.insert(*card);
                        count += 1;
                    }
                    Move::Result { .. } => prop_assert!(false, "the simulator plays card by card"),
                }
            }
            prop_assert_eq!(count, 64);
            prop_assert_eq!(played.len(), 64);
        }
    }

    #[test]
    fn tricks_are_won_scored_and_penalised_by_the_rules(options in options(), seed in any::<u64>()) {
        let (game, hands) = random_game(&options, seed);
        let sheet = game.score_sheet();
        for (record, hand) in hands.iter().zip(&sheet.hands) {
            let mut points = [0i32; 4];
            let mut penalties = [0u8; 4];
            let mut previous: Option<Vec<SquaresCard>> = None;
            for event in record.events.iter().flatten() {
                let Event::TrickWon { result, .. } = event else { continue };
                prop_assert_eq!(result.cards.len(), 4);
                prop_assert_eq!(Some(result.winner), expected_winner(&result.cards));
                let winning = result.cards.iter().find(|p| p.seat == result.winner).map(|p| p.card);
                let circles = result.cards.iter().filter(|p| p.card.shape == Shape::Circle).count() as i32;
                let squares = result.cards.iter().filter(|p| p.card.shape == Shape::Square).count() as i32;
                prop_assert_eq!(result.value, circles - squares);
                let scorers: Vec<Seat> = Seat::all(4)
                    .filter(|s| result.cards.iter().any(|p| p.seat == *s && Some(p.card.colour) == winning.map(|w| w.colour)))
                    .collect();
                prop_assert_eq!(&result.scorers, &scorers);
                let mut lays = vec![card("1RS"); 4];
                for p in &result.cards {
                    lays[p.seat.index()] = p.card;
                }
                let penalised: Vec<Seat> = match &previous {
                    None => Vec::new(),
                    Some(prev) => Seat::all(4)
                        .filter(|s| {
                            let (a, b) = (lays[s.index()], prev[s.index()]);
                            a.number != b.number && a.colour != b.colour && a.shape != b.shape
                        })
                        .collect(),
                };
                prop_assert_eq!(&result.penalised, &penalised);
                for s in &scorers {
                    points[s.index()] += result.value;
                }
                for s in &penalised {
                    points[s.index()] -= 1;
                    penalties[s.index()] += 1;
                }
                previous = Some(lays);
            }
            prop_assert_eq!(&hand.points, &points.to_vec());
            prop_assert_eq!(&hand.penalties, &penalties.to_vec());
        }
        let mut totals = vec![0; 4];
        for hand in &sheet.hands {
            for (t, p) in totals.iter_mut().zip(&hand.points) {
                *t += p;
            }
            prop_assert_eq!(&hand.totals, &totals);
        }
        prop_assert_eq!(&sheet.totals, &totals);
        prop_assert_eq!(&game.view().totals, &totals);
    }

    #[test]
    fn the_chips_booked_always_balance_and_match_every_players_total(options in options(), seed in any::<u64>()) {
        let mut game = game_with(options.clone());
        let mut balances = [0i64; 5];
        let (_, hands) = random_game(&options, seed);
        for mv in sim::moves(&hands) {
            let events = game.apply(&mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
            booked(&events, &mut balances)?;
            prop_assert_eq!(balances.iter().sum::<i64>(), 0);
            let view = game.view();
            let seats: Vec<i64> = view.totals.iter().map(|&t| i64::from(t)).collect();
            prop_assert_eq!(&balances[..4], &seats[..]);
            for (chips, total) in view.chips.iter().zip(&view.totals) {
                prop_assert!(chips.white == 0 || chips.coloured == 0);
                prop_assert_eq!(i64::from(chips.white) - i64::from(chips.coloured), i64::from(*total));
            }
        }
    }

    #[test]
    fn a_hand_entered_as_its_result_scores_and_books_as_the_hand_played_card_by_card(
        options in options(),
        seed in any::<u64>(),
        by_result in prop::collection::vec(any::<bool>(), 3),
    ) {
        let (mut mixed, mut by_cards) = (game_with(options.clone()), game_with(options.clone()));
        let (mut mixed_balances, mut card_balances) = ([0i64; 5], [0i64; 5]);
        for (hand_seed, &as_result) in (0..).map(|i| seed.wrapping_add(i)).zip(&by_result) {
            if by_cards.is_finished() {
                break;
            }
            let record = sim::random_hand(&mut by_cards, hand_seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
            for events in &record.events {
                booked(events, &mut card_balances)?;
            }
            if as_result {
                let line = by_cards.score_sheet().hands.last().cloned().ok_or_else(|| TestCaseError::fail("no line"))?;
                let events = mixed.apply(&result_of(&line)).map_err(|e| TestCaseError::fail(e.to_string()))?;
                booked(&events, &mut mixed_balances)?;
            } else {
                for mv in &record.moves {
                    let events = mixed.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    booked(&events, &mut mixed_balances)?;
                }
            }
            prop_assert_eq!(&mixed, &by_cards);
            prop_assert_eq!(mixed.view(), by_cards.view());
            prop_assert_eq!(mixed.score_sheet(), by_cards.score_sheet());
            prop_assert_eq!(mixed.running_totals(), by_cards.running_totals());
            prop_assert_eq!(mixed_balances, card_balances);
        }
        prop_assert!(mixed.is_finished());
    }

    #[test]
    fn every_result_within_the_bounds_is_accepted(
        chips in prop::array::uniform4(-16i32..=16),
        penalties in prop::array::uniform4(0u8..=15),
    ) {
        let mut game = game();
        let total: i32 = chips.iter().sum();
        let outcome = game.apply(&result(chips, penalties));
        if total.abs() <= 48 {
            let events = outcome.map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut balances = [0i64; 5];
            booked(&events, &mut balances)?;
            let expected: Vec<i64> = chips.iter().zip(&penalties).map(|(&c, &p)| i64::from(c) - i64::from(p)).collect();
            prop_assert_eq!(&balances[..4], &expected[..]);
        } else {
            prop_assert_eq!(outcome, Err(RuleViolation::TrickChipsDoNotAddUp { total: i64::from(total), max: 48 }));
        }
    }

    #[test]
    fn replaying_the_recorded_moves_gives_the_same_state_and_events(options in options(), seed in any::<u64>()) {
        let (game, hands) = random_game(&options, seed);
        let mut replay = game_with(options.clone());
        for record in &hands {
            for (mv, events) in record.moves.iter().zip(&record.events) {
                prop_assert_eq!(&replay.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?, events);
            }
        }
        prop_assert_eq!(&replay, &game);
        prop_assert_eq!(replay.view(), game.view());
    }

    #[test]
    fn a_random_move_is_either_accepted_or_changes_nothing(
        options in options(),
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
        moves in prop::collection::vec(arbitrary_move(), 1..32),
    ) {
        let (_, hands) = random_game(&options, seed);
        let legal = sim::moves(&hands);
        let mut game = game_with(options.clone());
        for mv in &legal[..cut.index(legal.len() + 1)] {
            game.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        for (mv, aim) in &moves {
            let mv = if *aim { aimed(&game, mv) } else { mv.clone() };
            let before = game.clone();
            match game.apply(&mv) {
                Ok(events) => {
                    let mut balances = [0i64; 5];
                    booked(&events, &mut balances)?;
                }
                Err(violation) => {
                    prop_assert_eq!(&game, &before, "{:?} was refused ({}) but changed the state", mv, violation);
                    prop_assert!(!violation.code().is_empty());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Stored logs and the ledger

/// Stored logs are replayed and their events compared with the engine's JSON, and the audit
/// compares stored bookings with the engine's settlements by memo, deal and per-account sums:
/// none of these may change. Literals taken from the engine as it was.
#[test]
fn the_json_of_moves_and_events_and_the_bookings_are_what_stored_logs_and_the_ledger_hold() {
    let mut game = after_first_trick();
    play_in_turn(&mut game, &["1RS", "3YT", "2YH"]);
    let mv = Move::Play {
        seat: seat(3),
        card: card("4RT"),
        trick: Some(2),
    };
    let events = apply(&mut game, mv.clone());
    assert_eq!(
        serde_json::to_string(&mv).expect("json"),
        r#"{"kind":"play","seat":3,"card":"4RT","trick":2}"#
    );
    assert_eq!(
        serde_json::to_string(&events).expect("json"),
        r#"[{"event":"card_played","seat":3,"card":"4RT","trick":2,"penalised":false},{"event":"trick_won","hand":1,"trick":2,"winner":3,"cards":[{"seat":0,"card":"1RS"},{"seat":1,"card":"3YT"},{"seat":2,"card":"2YH"},{"seat":3,"card":"4RT"}],"circles":0,"squares":1,"value":-1,"scorers":[0,3],"penalised":[0,1]}]"#
    );
    let bookings: Vec<_> = TrickyDick::settlements(&events)
        .iter()
        .map(|s| (s.deal, s.memo.clone(), per_account(&s.postings)))
        .collect();
    assert_eq!(
        bookings,
        [
            (
                Some(1),
                "hand 1, trick 2: trick value -1 (0 circles − 1 squares) to seat 0, seat 3".to_owned(),
                per_account(&[
                    (Account::Bank, Chips::new(2)),
                    (Account::Seat(seat(0)), Chips::new(-1)),
                    (Account::Seat(seat(3)), Chips::new(-1)),
                ]),
            ),
            (
                Some(1),
                "hand 1, trick 2: penalty −1 each for a card sharing nothing with the previous lay: seat 0, seat 1"
                    .to_owned(),
                per_account(&[
                    (Account::Bank, Chips::new(2)),
                    (Account::Seat(seat(0)), Chips::new(-1)),
                    (Account::Seat(seat(1)), Chips::new(-1)),
                ]),
            ),
        ]
    );
}
