//! Nomination Whist: the rules as examples, then properties over random legal games.

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

fn game(players: usize) -> NominationWhist {
    game_with(players, Options::default())
}

fn game_with(players: usize, options: Options) -> NominationWhist {
    NominationWhist::new(players, options).expect("a valid set-up")
}

fn trump_rule(trumps: TrumpRule) -> Options {
    Options {
        trumps,
        ..Options::default()
    }
}

fn hand_sizes(sizes: &[u8]) -> Options {
    Options {
        hand_sizes: Some(sizes.to_vec()),
        ..Options::default()
    }
}

fn nominate(seat: u8, tricks: u8) -> Move {
    Move::Nominate {
        seat: Seat::new(seat),
        tricks,
    }
}

fn play(seat: u8, card_text: &str) -> Move {
    Move::Play {
        seat: Seat::new(seat),
        card: card(card_text),
    }
}

fn result(nominations: &[u8], tricks: &[u8]) -> Move {
    Move::Result {
        nominations: nominations.to_vec(),
        tricks: tricks.to_vec(),
        turn_up: None,
    }
}

/// Nominates for every seat in turn from the dealer's left: `tricks[i]` for the i-th to speak.
#[track_caller]
fn nominate_in_turn(game: &mut NominationWhist, tricks: &[u8]) {
    for &t in tricks {
        let seat = game.view().to_act.expect("a seat to nominate");
        apply(game, Move::Nominate { seat, tricks: t });
    }
}

/// Plays `cards` in turn, starting with the seat to play; returns the events of the last card.
#[track_caller]
fn play_in_turn(game: &mut NominationWhist, cards: &[&str]) -> Vec<Event> {
    let mut events = Vec::new();
    for text in cards {
        let seat = game.view().to_act.expect("a seat to play");
        events = apply(game, Move::Play { seat, card: card(text) });
    }
    events
}

/// Enters a result for the current deal that nobody nominated exactly, all tricks to the
/// dealer's left; legal under any hook rule since the nominations total 0.
#[track_caller]
fn skip_deal(game: &mut NominationWhist) -> Vec<Event> {
    let view = game.view();
    let players = game.players();
    let leader = view.dealer.expect("a deal").left(1, players);
    let mut tricks = vec![0; players];
    tricks[leader.index()] = view.hand_size.expect("a deal");
    apply(
        game,
        Move::Result {
            nominations: vec![0; players],
            tricks,
            turn_up: None,
        },
    )
}

fn trick_winners(events: &[Event]) -> Vec<Seat> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TrickWon { winner, .. } => Some(*winner),
            _ => None,
        })
        .collect()
}

fn revokes_in(events: &[Event]) -> Vec<Revoke<Suit>> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::RevokeDetected { revoke } => Some(*revoke),
            _ => None,
        })
        .collect()
}

fn deal_points(events: &[Event]) -> Option<Vec<i32>> {
    events.iter().find_map(|e| match e {
        Event::DealScored { points, .. } => Some(points.clone()),
        _ => None,
    })
}

/// The seat that should win a trick: the highest trump played, else the highest card of the suit
/// led. Restated here, independently of the engine, as the oracle for the properties.
fn expected_trick_winner(plays: &[Play<Card>], trumps: Option<Trumps>) -> Option<Seat> {
    let led = plays.first()?.card.suit;
    let trump = trumps.and_then(Trumps::suit);
    let highest_of = |suit: Option<Suit>| {
        plays
            .iter()
            .filter(|p| Some(p.card.suit) == suit)
            .max_by_key(|p| p.card.rank)
    };
    highest_of(trump).or_else(|| highest_of(Some(led))).map(|p| p.seat)
}

/// The scoring rules, restated from `NOTES.md` as the oracle for the properties.
fn expected_points(scoring: Scoring, nominated: u8, won: u8) -> i32 {
    let (n, w) = (i32::from(nominated), i32::from(won));
    match (scoring, nominated == won) {
        (Scoring::TricksPlusTenForExact, true) => w + 10,
        (Scoring::TricksPlusTenForExact, false) => w,
        (Scoring::ExactOnly | Scoring::MinusNominationForMiss, true) => 10 + n,
        (Scoring::ExactOnly, false) => 0,
        (Scoring::MinusNominationForMiss, false) => -n,
    }
}

// ---------------------------------------------------------------------------------------------
// Schedule, dealer and trumps

#[test]
fn the_schedule_climbs_a_card_a_deal_to_the_most_each_can_hold_and_back_down() {
    // Players, the peak hand, the deals in the game: four play 25 deals from one card up to
    // thirteen and back, five peak at ten, seven at seven.
    for (players, peak, deals) in [(4, 13, 25), (5, 10, 19), (7, 7, 13)] {
        let game = game(players);
        let expected: Vec<u8> = (1..=peak).chain((1..peak).rev()).collect();
        assert_eq!(game.options().hand_sizes, Some(expected), "{players} players");
        assert_eq!(game.score_sheet().deals_in_game, deals, "{players} players");
    }
    let view = game(4).view();
    assert_eq!((view.deal, view.deals_in_game, view.hand_size), (1, 25, Some(1)));
}

#[test]
fn three_players_still_peak_at_thirteen_cards() {
    let sizes = game(3).options().hand_sizes.expect("a schedule");
    assert_eq!(sizes.iter().max(), Some(&13));
    assert_eq!(sizes.len(), 25);
}

#[test]
fn the_first_dealers_left_nominates_first_and_leads_the_first_trick() {
    let mut game = game_with(
        4,
        Options {
            first_dealer: 2,
            ..hand_sizes(&[2])
        },
    );
    let view = game.view();
    assert_eq!((view.dealer, view.to_act), (Some(seat(2)), Some(seat(3))));
    assert_eq!(view.phase, Phase::Nominating);

    nominate_in_turn(&mut game, &[0, 0, 0, 0]);

    let view = game.view();
    assert_eq!(view.phase, Phase::Playing);
    assert_eq!(view.to_act, Some(seat(3)));
    let trick = view.current_trick.expect("a trick under way");
    assert_eq!((trick.number, trick.leader, trick.plays.len()), (1, seat(3), 0));
}

#[test]
fn the_dealers_left_wraps_round_to_seat_zero() {
    let game = game_with(
        4,
        Options {
            first_dealer: 3,
            ..Options::default()
        },
    );
    assert_eq!(game.view().to_act, Some(seat(0)));
}

#[test]
fn the_deal_passes_to_the_left_after_each_deal() {
    let mut game = game_with(
        4,
        Options {
            first_dealer: 2,
            ..hand_sizes(&[1, 1, 1, 1, 1])
        },
    );
    let mut dealers = Vec::new();
    for deal in 1..=5 {
        let view = game.view();
        let dealer = view.dealer.expect("a deal");
        assert_eq!(view.deal, deal);
        assert_eq!(view.to_act, Some(dealer.left(1, 4)), "deal {deal}");
        dealers.push(dealer);
        let events = skip_deal(&mut game);
        if deal < 5 {
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::DealStarted { deal: d, dealer: next, .. }
                    if *d == deal + 1 && *next == dealer.left(1, 4))),
                "{events:?}"
            );
        }
    }
    assert_eq!(dealers, seats(&[2, 3, 0, 1, 2]));
    let sheet_dealers: Vec<Seat> = game.score_sheet().deals.iter().map(|d| d.dealer).collect();
    assert_eq!(sheet_dealers, dealers);
}

#[test]
fn trumps_rotate_spades_hearts_clubs_diamonds_no_trumps_by_default() {
    let mut game = game(4);
    let mut trumps = Vec::new();
    for _ in 0..6 {
        trumps.push(game.view().trumps);
        skip_deal(&mut game);
    }
    use Trumps::*;
    assert_eq!(trumps, [Spades, Hearts, Clubs, Diamonds, NoTrumps, Spades].map(Some));
    let on_sheet: Vec<_> = game.score_sheet().deals.iter().map(|d| d.trumps).collect();
    assert_eq!(on_sheet, trumps);
}

#[test]
fn a_rotation_option_sets_another_order() {
    let order = vec![Trumps::Hearts, Trumps::NoTrumps];
    let mut game = game_with(4, trump_rule(TrumpRule::Rotation { order }));
    let mut trumps = Vec::new();
    for _ in 0..3 {
        trumps.push(game.view().trumps);
        skip_deal(&mut game);
    }
    assert_eq!(trumps, [Trumps::Hearts, Trumps::NoTrumps, Trumps::Hearts].map(Some));
}

#[test]
fn the_no_trumps_rule_never_has_trumps() {
    let mut game = game_with(4, trump_rule(TrumpRule::NoTrumps));
    for _ in 0..5 {
        assert_eq!(game.view().trumps, Some(Trumps::NoTrumps));
        skip_deal(&mut game);
    }
}

#[test]
fn the_turned_up_rule_waits_for_a_turn_up_and_takes_trumps_from_its_suit() {
    let mut game = game_with(4, trump_rule(TrumpRule::TurnedUp));
    let view = game.view();
    assert_eq!((view.phase, view.trumps, view.to_act), (Phase::TurnUp, None, None));
    assert_eq!(crate::legal::kinds(&view.legal_moves), ["turn_up", "result"]);
    assert_refused(&game, nominate(1, 0), not_expected("nominate", &["turn_up", "result"]));
    assert_refused(&game, play(1, "2C"), not_expected("play", &["turn_up", "result"]));

    let events = apply(&mut game, Move::TurnUp { card: card("7D") });

    assert_eq!(
        events,
        [Event::TrumpsTurnedUp {
            card: card("7D"),
            trumps: Trumps::Diamonds
        }]
    );
    let view = game.view();
    assert_eq!(
        (view.phase, view.trumps, view.turn_up),
        (Phase::Nominating, Some(Trumps::Diamonds), Some(card("7D")))
    );
    assert_eq!(view.to_act, Some(seat(1)));
    assert_eq!(crate::legal::kinds(&view.legal_moves), ["nominate"]);
    assert_refused(
        &game,
        Move::TurnUp { card: card("8D") },
        not_expected("turn_up", &["nominate"]),
    );
}

#[test]
fn the_turned_up_rule_has_no_trumps_when_every_card_is_dealt() {
    let game = game_with(
        4,
        Options {
            trumps: TrumpRule::TurnedUp,
            ..hand_sizes(&[13])
        },
    );
    let view = game.view();
    assert_eq!((view.phase, view.trumps), (Phase::Nominating, Some(Trumps::NoTrumps)));
    assert_refused(
        &game,
        Move::TurnUp { card: card("AS") },
        not_expected("turn_up", &["nominate", "result"]),
    );

    // 3 × 17 = 51 cards leaves one to turn up.
    let game = game_with(
        3,
        Options {
            trumps: TrumpRule::TurnedUp,
            ..hand_sizes(&[17])
        },
    );
    assert_eq!(game.view().phase, Phase::TurnUp);
}

#[test]
fn the_thirteen_card_deal_of_the_default_schedule_has_no_turn_up() {
    let mut game = game_with(4, trump_rule(TrumpRule::TurnedUp));
    for _ in 0..12 {
        assert_eq!(game.view().phase, Phase::TurnUp);
        skip_deal(&mut game);
    }
    let view = game.view();
    assert_eq!((view.hand_size, view.trumps), (Some(13), Some(Trumps::NoTrumps)));
    skip_deal(&mut game);
    assert_eq!(game.view().phase, Phase::TurnUp);
}

// ---------------------------------------------------------------------------------------------
// Nominations and the hook rule

#[test]
fn nominations_go_round_from_the_dealers_left_and_out_of_turn_is_refused() {
    let mut game = game_with(4, hand_sizes(&[2]));
    assert_refused(
        &game,
        nominate(2, 0),
        RuleViolation::NotYourTurn {
            expected: seat(1),
            got: seat(2),
        },
    );
    assert_refused(
        &game,
        nominate(0, 0),
        RuleViolation::NotYourTurn {
            expected: seat(1),
            got: seat(0),
        },
    );

    let mut order = Vec::new();
    for tricks in [1, 0, 2, 1] {
        let seat = game.view().to_act.expect("a seat to nominate");
        order.push(seat);
        let events = apply(&mut game, Move::Nominate { seat, tricks });
        assert_eq!(events, [Event::Nominated { seat, tricks }]);
    }

    assert_eq!(order, seats(&[1, 2, 3, 0]));
    let made = |s: u8, tricks: u8| Nomination { seat: seat(s), tricks };
    assert_eq!(
        game.view().nominations,
        [made(0, 1), made(1, 1), made(2, 0), made(3, 2)]
    );
    assert_refused(&game, nominate(1, 0), not_expected("nominate", &["play"]));
}

#[test]
fn the_view_lists_only_the_seats_that_have_nominated_in_seat_order_without_nulls() {
    let mut game = game_with(4, hand_sizes(&[2]));
    assert_eq!(game.view().nominations, [], "nobody has nominated yet");

    // Dealer 0: seats 1 and 2 nominate; 3 and 0 have not yet.
    apply(&mut game, nominate(1, 2));
    apply(&mut game, nominate(2, 0));

    let view = serde_json::to_value(game.view()).expect("a view serializes");
    assert_eq!(
        view["nominations"],
        serde_json::json!([{"seat": 1, "tricks": 2}, {"seat": 2, "tricks": 0}])
    );
}

#[test]
fn a_nomination_above_the_hand_size_is_refused() {
    let game = game_with(4, hand_sizes(&[3]));
    assert_refused(
        &game,
        nominate(1, 4),
        RuleViolation::NominationOutOfRange {
            tricks: 4,
            hand_size: 3,
        },
    );
    assert_refused(
        &game,
        nominate(1, u8::MAX),
        RuleViolation::NominationOutOfRange {
            tricks: 255,
            hand_size: 3,
        },
    );
    game.clone()
        .apply(&nominate(1, 3))
        .expect("the whole hand may be nominated");
}

#[test]
fn the_hook_rule_forbids_only_the_dealer_the_number_that_makes_the_total_the_hand_size() {
    let mut game = game_with(4, hand_sizes(&[4]));
    for tricks in [1, 1, 1] {
        assert_eq!(game.view().forbidden_nomination, None);
        nominate_in_turn(&mut game, &[tricks]);
    }
    let view = game.view();
    assert_eq!((view.to_act, view.forbidden_nomination), (Some(seat(0)), Some(1)));

    assert_refused(
        &game,
        nominate(0, 1),
        RuleViolation::HookRule {
            seat: seat(0),
            forbidden: 1,
        },
    );
    for allowed in [0, 2, 3, 4] {
        game.clone().apply(&nominate(0, allowed)).expect("any other number");
    }
}

#[test]
fn the_others_may_reach_the_hand_size_and_then_the_dealer_may_not_say_nought() {
    let mut game = game_with(4, hand_sizes(&[4]));
    nominate_in_turn(&mut game, &[2, 2, 0]);
    assert_eq!(game.view().forbidden_nomination, Some(0));
    assert_refused(
        &game,
        nominate(0, 0),
        RuleViolation::HookRule {
            seat: seat(0),
            forbidden: 0,
        },
    );
    apply(&mut game, nominate(0, 1));
}

#[test]
fn the_hook_rule_forbids_nothing_once_the_others_have_overbid() {
    let mut game = game_with(4, hand_sizes(&[4]));
    nominate_in_turn(&mut game, &[3, 2, 0]);
    assert_eq!(game.view().forbidden_nomination, None);
    apply(&mut game, nominate(0, 4));
}

#[test]
fn the_hook_rule_does_not_apply_below_four_cards_by_default() {
    let mut game = game_with(4, hand_sizes(&[3]));
    nominate_in_turn(&mut game, &[1, 1, 0]);
    assert_eq!(game.view().forbidden_nomination, None);
    apply(&mut game, nominate(0, 1));
    assert_eq!(game.view().phase, Phase::Playing);
}

#[test]
fn a_hook_threshold_of_one_applies_the_rule_to_every_hand() {
    let mut game = game_with(
        4,
        Options {
            hook_from_hand_size: 1,
            ..Options::default()
        },
    );
    nominate_in_turn(&mut game, &[0, 0, 0]);
    assert_eq!(game.view().forbidden_nomination, Some(1));
    assert_refused(
        &game,
        nominate(0, 1),
        RuleViolation::HookRule {
            seat: seat(0),
            forbidden: 1,
        },
    );
    apply(&mut game, nominate(0, 0));
}

// ---------------------------------------------------------------------------------------------
// Tricks

/// Four players, two cards each, spades trumps (the first deal of the default rotation),
/// dealer seat 0, nominations made: seat 1 leads.
fn two_card_deal_in_play() -> NominationWhist {
    let mut game = game_with(4, hand_sizes(&[2]));
    nominate_in_turn(&mut game, &[1, 0, 0, 1]);
    game
}

#[test]
fn the_highest_trump_wins_a_trick() {
    let mut game = two_card_deal_in_play();
    assert_eq!(game.view().trumps, Some(Trumps::Spades));

    let events = play_in_turn(&mut game, &["KH", "AH", "2S", "3S"]);

    let cards = [(1, "KH"), (2, "AH"), (3, "2S"), (0, "3S")].map(|(s, c)| Play {
        seat: seat(s),
        card: card(c),
    });
    assert_eq!(
        events,
        [
            Event::CardPlayed {
                seat: seat(0),
                card: card("3S"),
                trick: 1
            },
            Event::TrickWon {
                trick: 1,
                winner: seat(0),
                cards: cards.iter().copied().collect()
            },
        ]
    );
    assert_eq!(game.view().tricks_won, [1, 0, 0, 0]);
}

#[test]
fn a_trick_goes_to_the_highest_card_of_the_suit_led_however_high_the_discards() {
    // The options, the trick's four cards from seat 1 (the dealer's left), and who wins it.
    let cases = [
        // Without trumps: the highest card of the suit led.
        (trump_rule(TrumpRule::NoTrumps), ["5H", "KH", "AS", "2H"], 2),
        // Off-suit discards never win, however high.
        (trump_rule(TrumpRule::NoTrumps), ["2C", "AS", "AH", "AD"], 1),
        // With trumps too: a discard of a third suit loses to the suit led.
        (hand_sizes(&[1]), ["2C", "AH", "3C", "AD"], 3),
    ];
    for (options, cards, winner) in cases {
        let mut game = game_with(4, options);
        nominate_in_turn(&mut game, &[0, 0, 0, 0]);
        let events = play_in_turn(&mut game, &cards);
        assert_eq!(trick_winners(&events), [seat(winner)], "{cards:?}");
    }
}

#[test]
fn trumps_led_are_won_by_the_highest_trump() {
    let mut game = two_card_deal_in_play();
    let events = play_in_turn(&mut game, &["10S", "AH", "QS", "JS"]);
    assert_eq!(trick_winners(&events), [seat(3)]);
}

#[test]
fn the_winner_of_a_trick_leads_the_next() {
    let mut game = two_card_deal_in_play();
    play_in_turn(&mut game, &["KH", "AH", "2S", "3S"]);

    let view = game.view();
    assert_eq!(view.to_act, Some(seat(0)));
    let trick = view.current_trick.expect("the second trick");
    assert_eq!((trick.number, trick.leader), (2, seat(0)));
    assert_refused(
        &game,
        play(1, "4D"),
        RuleViolation::NotYourTurn {
            expected: seat(0),
            got: seat(1),
        },
    );
}

#[test]
fn playing_out_of_turn_is_refused_and_changes_nothing() {
    let not_turn = |expected: u8, got: u8| RuleViolation::NotYourTurn {
        expected: seat(expected),
        got: seat(got),
    };
    let mut game = two_card_deal_in_play();
    assert_refused(&game, play(2, "4D"), not_turn(1, 2));
    apply(&mut game, play(1, "4D"));
    assert_refused(&game, play(1, "5D"), not_turn(2, 1));
    assert_refused(&game, play(0, "5D"), not_turn(2, 0));
}

#[test]
fn a_card_already_played_in_the_deal_is_refused() {
    let mut game = two_card_deal_in_play();
    apply(&mut game, play(1, "4D"));
    assert_refused(&game, play(2, "4D"), RuleViolation::CardAlreadyPlayed(card("4D")));
    play_in_turn(&mut game, &["KH", "2S", "3S"]);
    // Trick 2, led by seat 0: a card from trick 1 is still out of play.
    assert_refused(&game, play(0, "KH"), RuleViolation::CardAlreadyPlayed(card("KH")));
}

#[test]
fn a_new_deal_starts_with_every_card_back_in_play() {
    let mut game = game_with(4, hand_sizes(&[1, 1]));
    nominate_in_turn(&mut game, &[0, 0, 0, 0]);
    play_in_turn(&mut game, &["4D", "5D", "6D", "7D"]);
    nominate_in_turn(&mut game, &[0, 0, 0, 0]);
    assert_eq!(game.view().to_act, Some(seat(2)));
    apply(&mut game, play(2, "4D"));
}

#[test]
fn the_turned_up_card_cannot_be_played() {
    let mut game = game_with(4, trump_rule(TrumpRule::TurnedUp));
    apply(&mut game, Move::TurnUp { card: card("7D") });
    nominate_in_turn(&mut game, &[0, 0, 0, 0]);
    assert_refused(&game, play(1, "7D"), RuleViolation::CardTurnedUp(card("7D")));
    apply(&mut game, play(1, "8D"));
}

#[test]
fn a_seat_not_at_the_table_is_refused() {
    let game = game(4);
    let refused = |n| RuleViolation::NoSuchSeat {
        seat: seat(n),
        players: 4,
    };
    assert_refused(&game, nominate(4, 0), refused(4));
    assert_refused(&game, nominate(255, 0), refused(255));
    let game = two_card_deal_in_play();
    assert_refused(&game, play(4, "2C"), refused(4));
    assert_refused(&game, play(9, "2C"), refused(9));
}

#[test]
fn moves_of_the_wrong_kind_are_refused() {
    let game = game(4);
    assert_refused(&game, play(1, "2C"), not_expected("play", &["nominate", "result"]));
    assert_refused(
        &game,
        Move::TurnUp { card: card("2C") },
        not_expected("turn_up", &["nominate", "result"]),
    );
    let game = two_card_deal_in_play();
    assert_refused(&game, nominate(1, 0), not_expected("nominate", &["play"]));
    assert_refused(&game, result(&[0; 4], &[2, 0, 0, 0]), not_expected("result", &["play"]));
}

// ---------------------------------------------------------------------------------------------
// Revokes

/// Three cards each, no trumps, dealer seat 0. Seat 2 shows void in hearts in trick 1, plays a
/// heart in trick 2 (the revoke is proven) and again in trick 3 (not reported again).
fn deal_with_a_revoke(revoke_penalty: u8) -> (NominationWhist, Vec<Vec<Event>>) {
    let options = Options {
        trumps: TrumpRule::NoTrumps,
        revoke_penalty,
        ..hand_sizes(&[3, 1])
    };
    let mut game = game_with(4, options);
    nominate_in_turn(&mut game, &[0, 1, 1, 1]);
    let tricks = [
        ["2H", "3S", "4H", "5H"],
        ["6H", "7H", "8H", "9H"],
        ["10H", "JH", "QH", "KH"],
    ];
    let mut events = Vec::new();
    for trick in tricks {
        let mut trick_events = Vec::new();
        for text in trick {
            let seat = game.view().to_act.expect("a seat to play");
            trick_events.extend(apply(&mut game, Move::Play { seat, card: card(text) }));
        }
        events.push(trick_events);
    }
    (game, events)
}

#[test]
fn playing_a_suit_shown_void_earlier_is_a_revoke_reported_once() {
    let (game, events) = deal_with_a_revoke(0);
    let revoke = Revoke {
        seat: seat(2),
        suit: Suit::Hearts,
        revoked_in_trick: 1,
        proven_in_trick: 2,
    };

    assert!(revokes_in(&events[0]).is_empty());
    assert_eq!(revokes_in(&events[1]), [revoke]);
    assert!(revokes_in(&events[2]).is_empty());
    // The revoke event follows the card that proved it.
    let at = events[1]
        .iter()
        .position(|e| matches!(e, Event::RevokeDetected { .. }))
        .expect("a revoke");
    assert_eq!(
        events[1][at - 1],
        Event::CardPlayed {
            seat: seat(2),
            card: card("8H"),
            trick: 2
        }
    );

    let sheet = game.score_sheet();
    assert_eq!(sheet.deals[0].revokes, [revoke]);
    assert_eq!(sheet.deals[0].tricks, [1, 0, 1, 1]);
    // No penalty by default: everyone was exact.
    assert_eq!(sheet.deals[0].points, [11, 10, 11, 11]);
}

#[test]
fn a_revoke_shows_in_the_view_while_the_deal_is_played() {
    let options = Options {
        trumps: TrumpRule::NoTrumps,
        ..hand_sizes(&[3])
    };
    let mut game = game_with(4, options);
    nominate_in_turn(&mut game, &[0, 0, 0, 0]);
    play_in_turn(&mut game, &["2H", "3S", "4H", "5H", "6H", "7H", "8H"]);
    assert_eq!(
        game.view().revokes,
        [Revoke {
            seat: seat(2),
            suit: Suit::Hearts,
            revoked_in_trick: 1,
            proven_in_trick: 2
        }]
    );
}

#[test]
fn the_revoke_penalty_is_taken_off_the_revoking_seat() {
    let (game, events) = deal_with_a_revoke(5);
    assert_eq!(deal_points(&events[2]), Some(vec![11, 10, 6, 11]));
    assert_eq!(game.score_sheet().totals, [11, 10, 6, 11]);
}

// ---------------------------------------------------------------------------------------------
// Scoring

#[test]
fn each_scoring_rule_scores_exact_and_missed_nominations() {
    // (nominated, won) → points under tricks_plus_ten_for_exact, exact_only, minus_nomination_for_miss.
    let table = [
        ((0, 0), [10, 10, 10]),
        ((2, 2), [12, 12, 12]),
        ((2, 1), [1, 0, -2]),
        ((1, 3), [3, 0, -1]),
        ((0, 2), [2, 0, 0]),
    ];
    let rules = [
        Scoring::TricksPlusTenForExact,
        Scoring::ExactOnly,
        Scoring::MinusNominationForMiss,
    ];
    for ((nominated, won), expected) in table {
        for (rule, points) in rules.into_iter().zip(expected) {
            assert_eq!(rule.points(nominated, won), points, "{rule:?} {nominated}/{won}");
            assert_eq!(expected_points(rule, nominated, won), points);
        }
    }
}

#[test]
fn each_scoring_rule_applies_to_a_whole_deal() {
    let cases = [
        (Scoring::TricksPlusTenForExact, [11, 0, 2, 10]),
        (Scoring::ExactOnly, [11, 0, 0, 10]),
        (Scoring::MinusNominationForMiss, [11, -2, -1, 10]),
    ];
    for (scoring, expected) in cases {
        let mut game = game_with(
            4,
            Options {
                scoring,
                ..hand_sizes(&[3])
            },
        );
        let events = apply(&mut game, result(&[1, 2, 1, 0], &[1, 0, 2, 0]));
        assert_eq!(deal_points(&events), Some(expected.to_vec()), "{scoring:?}");
        assert_eq!(game.score_sheet().totals, expected, "{scoring:?}");
    }
}

#[test]
fn a_deal_played_card_by_card_is_scored_when_its_last_trick_is_won() {
    let mut game = game_with(4, hand_sizes(&[1, 1]));
    nominate_in_turn(&mut game, &[1, 0, 0, 1]);
    let events = play_in_turn(&mut game, &["2C", "3C", "4C", "AC"]);
    assert_eq!(
        events[2..],
        [
            Event::DealScored {
                deal: 1,
                points: vec![11, 0, 10, 10],
                totals: vec![11, 0, 10, 10]
            },
            Event::DealStarted {
                deal: 2,
                dealer: seat(1),
                hand_size: 1,
                trumps: Some(Trumps::Hearts)
            },
        ]
    );
    let sheet = game.score_sheet();
    let deal = &sheet.deals[0];
    assert_eq!(
        (deal.deal, deal.dealer, deal.hand_size, deal.recording),
        (1, seat(0), 1, Recording::CardByCard)
    );
    assert_eq!(
        (&deal.nominations[..], &deal.tricks[..]),
        (&[1, 1, 0, 0][..], &[1, 0, 0, 0][..])
    );
    assert!(game.at_deal_boundary());
}

// ---------------------------------------------------------------------------------------------
// Results entered without the cards

#[test]
fn a_result_scores_a_whole_deal_at_once() {
    let mut game = game(4);
    assert!(game.at_deal_boundary());

    let events = apply(&mut game, result(&[0, 1, 0, 0], &[0, 1, 0, 0]));

    assert_eq!(
        events,
        [
            Event::DealScored {
                deal: 1,
                points: vec![10, 11, 10, 10],
                totals: vec![10, 11, 10, 10]
            },
            Event::DealStarted {
                deal: 2,
                dealer: seat(1),
                hand_size: 2,
                trumps: Some(Trumps::Hearts)
            },
        ]
    );
    let deal = &game.score_sheet().deals[0];
    assert_eq!(
        (deal.recording, deal.trumps),
        (Recording::ResultOnly, Some(Trumps::Spades))
    );
    assert!(deal.revokes.is_empty());
}

#[test]
fn result_tricks_must_add_up_to_the_hand_size() {
    let game = game_with(4, hand_sizes(&[3]));
    assert_refused(
        &game,
        result(&[0; 4], &[1, 1, 0, 0]),
        RuleViolation::TricksDoNotAddUp { total: 2, expected: 3 },
    );
    assert_refused(
        &game,
        result(&[0; 4], &[3, 1, 0, 0]),
        RuleViolation::TricksDoNotAddUp { total: 4, expected: 3 },
    );
}

#[test]
fn a_result_needs_one_entry_per_seat() {
    let game = game(4);
    let wrong = |got| RuleViolation::WrongNumberOfEntries { got, expected: 4 };
    assert_refused(&game, result(&[0, 0, 0], &[1, 0, 0, 0]), wrong(3));
    assert_refused(&game, result(&[0; 4], &[1, 0, 0, 0, 0]), wrong(5));
    assert_refused(&game, result(&[], &[]), wrong(0));
}

#[test]
fn a_result_obeys_the_hook_rule_and_the_nomination_range() {
    let game = game_with(4, hand_sizes(&[4]));
    assert_refused(
        &game,
        result(&[1, 2, 1, 0], &[1, 1, 1, 1]),
        RuleViolation::HookRule {
            seat: seat(0),
            forbidden: 1,
        },
    );
    assert_refused(
        &game,
        result(&[5, 0, 0, 0], &[1, 1, 1, 1]),
        RuleViolation::NominationOutOfRange {
            tricks: 5,
            hand_size: 4,
        },
    );

    // Below the threshold the nominations may add up to the hand size.
    let mut game = game_with(4, hand_sizes(&[3]));
    apply(&mut game, result(&[1, 1, 1, 0], &[1, 1, 1, 0]));
}

#[test]
fn a_result_is_accepted_only_at_the_start_of_a_deal() {
    let mut game = game_with(4, hand_sizes(&[2]));
    nominate_in_turn(&mut game, &[0]);
    assert_eq!(crate::legal::kinds(&game.view().legal_moves), ["nominate"]);
    assert_refused(
        &game,
        result(&[0; 4], &[2, 0, 0, 0]),
        not_expected("result", &["nominate"]),
    );

    let game = two_card_deal_in_play();
    assert_refused(&game, result(&[0; 4], &[2, 0, 0, 0]), not_expected("result", &["play"]));
}

#[test]
fn a_result_is_not_offered_once_a_card_is_turned_up() {
    let mut game = game_with(4, trump_rule(TrumpRule::TurnedUp));
    apply(&mut game, Move::TurnUp { card: card("7D") });
    assert!(!game.at_deal_boundary());
    assert_eq!(crate::legal::kinds(&game.view().legal_moves), ["nominate"]);
    assert_refused(
        &game,
        result(&[0; 4], &[1, 0, 0, 0]),
        not_expected("result", &["nominate"]),
    );
}

#[test]
fn a_result_under_the_turned_up_rule_may_name_the_turn_up() {
    let options = Options {
        trumps: TrumpRule::TurnedUp,
        ..hand_sizes(&[1, 1])
    };
    let mut turned = game_with(4, options);
    let with_turn_up = Move::Result {
        nominations: vec![0; 4],
        tricks: vec![1, 0, 0, 0],
        turn_up: Some(card("QC")),
    };
    apply(&mut turned, with_turn_up);
    apply(&mut turned, result(&[0; 4], &[1, 0, 0, 0]));
    let trumps: Vec<_> = turned.score_sheet().deals.iter().map(|d| d.trumps).collect();
    assert_eq!(trumps, [Some(Trumps::Clubs), None]);

    // Where trumps are known, naming a turn-up is a mistake.
    let game = game(4);
    let with_turn_up = Move::Result {
        nominations: vec![0; 4],
        tricks: vec![1, 0, 0, 0],
        turn_up: Some(card("QC")),
    };
    assert_refused(
        &game,
        with_turn_up,
        not_expected("result with turn_up", &["nominate", "result"]),
    );
}

// ---------------------------------------------------------------------------------------------
// The end of the game

#[test]
fn the_game_ends_after_the_schedule_with_the_highest_total_winning() {
    let mut game = game_with(3, hand_sizes(&[1, 2]));
    apply(&mut game, result(&[1, 0, 0], &[1, 0, 0])); // 11, 10, 10
    let events = apply(&mut game, result(&[2, 1, 0], &[0, 1, 1])); // 0, 11, 1

    assert_eq!(
        events.last(),
        Some(&Event::GameFinished {
            winners: vec![seat(1)],
            totals: vec![11, 21, 11]
        })
    );
    assert!(game.is_finished());
    assert!(game.at_deal_boundary());
    let sheet = game.score_sheet();
    assert_eq!((sheet.finished, sheet.deals.len(), sheet.deals_in_game), (true, 2, 2));
    assert_eq!(sheet.winners, [seat(1)]);
    let view = game.view();
    assert_eq!((view.phase, view.to_act, view.deal), (Phase::Finished, None, 2));
    assert_eq!(crate::legal::kinds(&view.legal_moves), Vec::<&str>::new());
    assert_eq!(view.winners, [seat(1)]);
}

#[test]
fn players_tied_on_the_highest_total_share_the_win() {
    let mut game = game_with(3, hand_sizes(&[1, 2]));
    assert!(game.score_sheet().winners.is_empty());
    apply(&mut game, result(&[1, 0, 0], &[1, 0, 0])); // 11, 10, 10
    let events = apply(&mut game, result(&[0, 1, 0], &[0, 1, 1])); // 10, 11, 1

    assert_eq!(
        events.last(),
        Some(&Event::GameFinished {
            winners: seats(&[0, 1]),
            totals: vec![21, 21, 11]
        })
    );
    assert_eq!(game.score_sheet().winners, seats(&[0, 1]));
}

#[test]
fn no_move_is_accepted_after_the_game_has_ended() {
    let mut game = game_with(3, hand_sizes(&[1]));
    apply(&mut game, result(&[0; 3], &[1, 0, 0]));
    assert!(game.is_finished());
    for mv in [
        nominate(1, 0),
        nominate(7, 0),
        play(1, "2C"),
        Move::TurnUp { card: card("2C") },
        result(&[0; 3], &[1, 0, 0]),
    ] {
        assert_refused(&game, mv, RuleViolation::GameFinished);
    }
    assert!(RuleViolation::GameFinished.is_conflict());
}

// ---------------------------------------------------------------------------------------------
// Set-up

#[test]
fn a_table_seats_three_to_seven_players() {
    for players in [0, 1, 2, 8, 52] {
        assert_eq!(
            NominationWhist::new(players, Options::default()),
            Err(SetupError::PlayerCount {
                got: players,
                min: 3,
                max: 7
            })
        );
    }
    for players in 3..=7 {
        assert_eq!(game(players).players(), players);
    }
    assert_eq!(
        NominationWhist::new(2, Options::default()).map_err(|e| e.code()),
        Err("invalid_player_count")
    );
}

#[track_caller]
fn assert_invalid_option(players: usize, options: Options, option: &str) {
    match NominationWhist::new(players, options) {
        Err(SetupError::InvalidOption { option: got, .. }) => assert_eq!(got, option),
        other => panic!("expected an invalid `{option}`, got {other:?}"),
    }
}

#[test]
fn hand_sizes_must_fit_the_pack_and_the_table() {
    assert_invalid_option(4, hand_sizes(&[1, 14]), "hand_sizes");
    assert_invalid_option(5, hand_sizes(&[11]), "hand_sizes");
    assert_invalid_option(3, hand_sizes(&[18]), "hand_sizes");
    assert_invalid_option(4, hand_sizes(&[0]), "hand_sizes");
    assert_invalid_option(4, hand_sizes(&[]), "hand_sizes");
    assert_invalid_option(4, hand_sizes(&[1; 201]), "hand_sizes");
    game_with(5, hand_sizes(&[10]));
    game_with(3, hand_sizes(&[17]));
    game_with(4, hand_sizes(&[1; 200]));
}

#[test]
fn an_empty_trump_rotation_is_refused() {
    assert_invalid_option(4, trump_rule(TrumpRule::Rotation { order: Vec::new() }), "trumps");
}

#[test]
fn the_first_dealer_must_sit_at_the_table() {
    assert_invalid_option(
        4,
        Options {
            first_dealer: 4,
            ..Options::default()
        },
        "first_dealer",
    );
    assert_invalid_option(
        7,
        Options {
            first_dealer: 200,
            ..Options::default()
        },
        "first_dealer",
    );
    assert_eq!(
        game_with(
            4,
            Options {
                first_dealer: 3,
                ..Options::default()
            }
        )
        .view()
        .dealer,
        Some(seat(3))
    );
}

// ---------------------------------------------------------------------------------------------
// A whole game, card by card

#[test]
fn a_whole_four_player_game_played_card_by_card_keeps_its_score_sheet() {
    let mut game = game(4);
    let deals = sim::random_game(&mut game, 2024).expect("a legal game");

    assert!(game.is_finished());
    assert_eq!(deals.len(), 25);
    let sheet = game.score_sheet();
    assert_eq!(sheet.deals.len(), 25);
    let schedule = game.options().hand_sizes.expect("a schedule");
    let mut totals = [0; 4];
    for (deal, hand_size) in sheet.deals.iter().zip(schedule) {
        assert_eq!(deal.hand_size, hand_size);
        assert_eq!(deal.recording, Recording::CardByCard);
        assert!(deal.revokes.is_empty(), "the simulator follows suit");
        for (total, points) in totals.iter_mut().zip(&deal.points) {
            *total += points;
        }
        assert_eq!(deal.totals, totals);
    }
    assert_eq!(sheet.totals, totals);
    let best = totals.iter().max().copied();
    let winners: Vec<Seat> = Seat::all(4).filter(|s| Some(totals[s.index()]) == best).collect();
    assert_eq!(sheet.winners, winners);
    // 169 cards each, plus a nomination per seat per deal.
    assert_eq!(sim::moves(&deals).len(), 169 * 4 + 25 * 4);
}

#[test]
fn the_simulator_is_reproducible_and_starts_only_at_a_deal() {
    let run = |seed| {
        let mut game = game(5);
        let deals = sim::random_game(&mut game, seed).expect("a legal game");
        (game, sim::moves(&deals))
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7).1, run(8).1);

    let mut game = game_with(4, hand_sizes(&[2]));
    nominate_in_turn(&mut game, &[0]);
    assert_eq!(sim::random_deal(&mut game, 1), Err(sim::SimError::MidDeal));
    let mut game = game_with(4, hand_sizes(&[1]));
    skip_deal(&mut game);
    assert_eq!(sim::random_deal(&mut game, 1), Err(sim::SimError::GameFinished));
}

#[test]
fn the_simulator_turns_up_the_next_card_of_the_pack() {
    let mut game = game_with(
        4,
        Options {
            trumps: TrumpRule::TurnedUp,
            ..hand_sizes(&[5, 13])
        },
    );
    let deals = sim::random_game(&mut game, 11).expect("a legal game");

    let first = &deals[0];
    assert_eq!(first.pack.len(), 52 - 20);
    assert_eq!(first.turn_up, first.pack.first().copied());
    assert_eq!(first.moves[0], Move::TurnUp { card: first.pack[0] });
    let dealt: CardSet = first
        .hands
        .values()
        .iter()
        .flatten()
        .chain(&first.pack)
        .copied()
        .collect();
    assert_eq!(dealt.len(), 52);
    // 4 × 13 leaves nothing to turn up.
    assert_eq!((deals[1].turn_up, deals[1].pack.len()), (None, 0));
    assert_eq!(game.score_sheet().deals[1].trumps, Some(Trumps::NoTrumps));
}

// ---------------------------------------------------------------------------------------------
// Properties over random legal games

/// A table: players, and options chosen at random (a short random schedule or the default).
fn table() -> impl Strategy<Value = (usize, Options)> {
    (3usize..=7).prop_flat_map(|players| {
        let largest = (52 / players).min(17) as u8;
        let trumps = prop_oneof![
            Just(TrumpRule::default()),
            Just(TrumpRule::TurnedUp),
            Just(TrumpRule::NoTrumps),
            prop::collection::vec(
                prop::sample::select(vec![
                    Trumps::Clubs,
                    Trumps::Diamonds,
                    Trumps::Hearts,
                    Trumps::Spades,
                    Trumps::NoTrumps
                ]),
                1..4
            )
            .prop_map(|order| TrumpRule::Rotation { order }),
        ];
        let scoring = prop::sample::select(vec![
            Scoring::TricksPlusTenForExact,
            Scoring::ExactOnly,
            Scoring::MinusNominationForMiss,
        ]);
        let hand_sizes = prop::option::weighted(0.75, prop::collection::vec(1..=largest, 1..8));
        (
            Just(players),
            hand_sizes,
            trumps,
            scoring,
            1u8..=6,
            0..players as u8,
            0u8..=3,
        )
            .prop_map(
                |(players, hand_sizes, trumps, scoring, hook_from_hand_size, first_dealer, revoke_penalty)| {
                    (
                        players,
                        Options {
                            hand_sizes,
                            trumps,
                            hook_from_hand_size,
                            scoring,
                            first_dealer,
                            revoke_penalty,
                        },
                    )
                },
            )
    })
}

/// Plays a whole game, each deal card by card or, where `results` allows, sometimes as a result.
fn random_game(players: usize, options: &Options, seed: u64, results: bool) -> (NominationWhist, Vec<sim::DealRecord>) {
    let mut game = game_with(players, options.clone());
    let mut rng = SplitMix64::new(seed);
    let mut deals = Vec::new();
    while !game.is_finished() {
        let deal_seed = rng.next_u64();
        let record = if results && rng.below(3) == 0 {
            sim::random_result(&mut game, deal_seed)
        } else {
            sim::random_deal(&mut game, deal_seed)
        };
        deals.push(record.unwrap_or_else(|e| panic!("{e}")));
    }
    (game, deals)
}

/// A random move for a table of `players`, mostly well-formed so that some are accepted: seats
/// mostly at the table, results mostly with one entry per seat. With the flag set, the move's seat
/// is replaced by the seat to act when it is offered (see `aimed`).
fn arbitrary_move(players: usize) -> impl Strategy<Value = (Move, bool)> {
    let a_card = (0usize..52).prop_map(|i| Card::from_index(i).expect("an index below 52"));
    let a_seat = 0..players as u8 + 2;
    let entries = || prop::collection::vec(0u8..6, players - 1..=players + 1);
    let mv = prop_oneof![
        2 => (a_seat.clone(), 0u8..8).prop_map(|(seat, tricks)| nominate(seat, tricks)),
        4 => (a_seat, a_card.clone()).prop_map(|(seat, card)| Move::Play { seat: Seat::new(seat), card }),
        1 => a_card.clone().prop_map(|card| Move::TurnUp { card }),
        1 => (entries(), entries(), prop::option::weighted(0.2, a_card))
            .prop_map(|(nominations, tricks, turn_up)| Move::Result { nominations, tricks, turn_up }),
    ];
    (mv, prop::bool::weighted(0.6))
}

/// `mv` with its seat replaced by the seat to act, when there is one.
fn aimed(game: &NominationWhist, mv: &Move) -> Move {
    match (mv, game.view().to_act) {
        (Move::Nominate { tricks, .. }, Some(seat)) => Move::Nominate { seat, tricks: *tricks },
        (Move::Play { card, .. }, Some(seat)) => Move::Play { seat, card: *card },
        _ => mv.clone(),
    }
}

/// Checks what must hold of a score sheet at any time.
fn assert_books_balance(game: &NominationWhist) -> Result<(), TestCaseError> {
    let sheet = game.score_sheet();
    let mut totals = vec![0; game.players()];
    for deal in &sheet.deals {
        for (total, points) in totals.iter_mut().zip(&deal.points) {
            *total += points;
        }
        prop_assert_eq!(&deal.totals, &totals);
    }
    prop_assert_eq!(&sheet.totals, &totals);
    prop_assert_eq!(&game.view().totals, &totals);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_legal_games_play_every_card_at_most_once_and_all_of_each_hand(
        (players, options) in table(), seed in any::<u64>(),
    ) {
        let (game, deals) = random_game(players, &options, seed, false);
        let sheet = game.score_sheet();
        prop_assert_eq!(deals.len(), sheet.deals.len());
        for (record, deal) in deals.iter().zip(&sheet.deals) {
            let mut played = CardSet::default();
            let mut count = 0;
            for mv in &record.moves {
                if let Move::Play { seat, card } = mv {
                    prop_assert!(!played.contains(*card), "{} played twice", card);
                    prop_assert!(record.hands[*seat].contains(card), "{} not in {}'s hand", card, seat);
                    prop_assert_ne!(Some(*card), record.turn_up);
                    played.insert(*card);
                    count += 1;
                }
            }
            prop_assert_eq!(count, usize::from(deal.hand_size) * players);
            prop_assert_eq!(played.len() as usize, count);
            prop_assert_eq!(deal.revokes.len(), 0, "the simulator follows suit");
        }
        prop_assert!(game.is_finished());
    }

    #[test]
    fn every_trick_has_one_winner_by_the_rules_and_the_tricks_add_up_to_the_hand_size(
        (players, options) in table(), seed in any::<u64>(),
    ) {
        let (game, deals) = random_game(players, &options, seed, false);
        let sheet = game.score_sheet();
        for (record, deal) in deals.iter().zip(&sheet.deals) {
            let mut won = vec![0u8; players];
            let mut numbers = Vec::new();
            for (mv, events) in record.moves.iter().zip(&record.events) {
                let tricks_won: Vec<_> = events.iter().filter(|e| matches!(e, Event::TrickWon { .. })).collect();
                prop_assert!(tricks_won.len() <= 1);
                if let Some(Event::TrickWon { trick, winner, cards }) = tricks_won.first() {
                    prop_assert!(matches!(mv, Move::Play { .. }), "a trick is won by a play");
                    prop_assert_eq!(cards.len(), players);
                    prop_assert_eq!(Some(*winner), expected_trick_winner(cards, deal.trumps));
                    won[winner.index()] += 1;
                    numbers.push(*trick);
                }
            }
            prop_assert_eq!(numbers, (1..=deal.hand_size).collect::<Vec<_>>());
            prop_assert_eq!(&won, &deal.tricks);
            prop_assert_eq!(deal.tricks.iter().map(|&t| u32::from(t)).sum::<u32>(), u32::from(deal.hand_size));
        }
    }

    #[test]
    fn points_follow_the_scoring_rule_and_totals_are_the_sum_of_the_sheet(
        (players, options) in table(), seed in any::<u64>(),
    ) {
        let (game, _) = random_game(players, &options, seed, true);
        let sheet = game.score_sheet();
        for deal in &sheet.deals {
            let nominated: u32 = deal.nominations.iter().map(|&n| u32::from(n)).sum();
            if deal.hand_size >= options.hook_from_hand_size {
                prop_assert_ne!(nominated, u32::from(deal.hand_size), "the hook rule was broken");
            }
            for s in Seat::all(players) {
                let i = s.index();
                let revokes = deal.revokes.iter().filter(|r| r.seat == s).count() as i32;
                let expected = expected_points(options.scoring, deal.nominations[i], deal.tricks[i])
                    - i32::from(options.revoke_penalty) * revokes;
                prop_assert_eq!(deal.points[i], expected);
            }
        }
        assert_books_balance(&game)?;
        let best = sheet.totals.iter().max().copied();
        let winners: Vec<Seat> = Seat::all(players).filter(|s| Some(sheet.totals[s.index()]) == best).collect();
        prop_assert_eq!(sheet.winners, winners);
    }

    #[test]
    fn replaying_the_recorded_moves_gives_the_same_state_and_events(
        (players, options) in table(), seed in any::<u64>(),
    ) {
        let (game, deals) = random_game(players, &options, seed, true);
        let mut replay = game_with(players, options.clone());
        for record in &deals {
            for (mv, events) in record.moves.iter().zip(&record.events) {
                prop_assert_eq!(&replay.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?, events);
            }
        }
        prop_assert_eq!(&replay, &game);
        prop_assert_eq!(replay.view(), game.view());
    }

    #[test]
    fn a_random_move_is_either_accepted_or_changes_nothing(
        (players, options, moves) in table().prop_flat_map(|(players, options)| {
            (Just(players), Just(options), prop::collection::vec(arbitrary_move(players), 1..32))
        }),
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
    ) {
        // Replay a random part of a random legal game, then offer random moves.
        let (_, deals) = random_game(players, &options, seed, true);
        let legal = sim::moves(&deals);
        let mut game = game_with(players, options.clone());
        for mv in &legal[..cut.index(legal.len() + 1)] {
            game.apply(mv).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        for (mv, aim) in &moves {
            let mv = if *aim { aimed(&game, mv) } else { mv.clone() };
            let before = game.clone();
            match game.apply(&mv) {
                Ok(_) => assert_books_balance(&game)?,
                Err(violation) => {
                    prop_assert_eq!(&game, &before, "{:?} was refused ({}) but changed the state", mv, violation);
                    prop_assert!(!violation.code().is_empty());
                }
            }
        }
    }
}

#[test]
fn a_game_set_up_again_from_its_own_options_is_the_same_game() {
    for options in [
        Options::default(),
        Options {
            hand_sizes: Some(vec![3, 1]),
            first_dealer: 2,
            ..Options::default()
        },
    ] {
        let game = NominationWhist::new(5, options).expect("game");
        assert_eq!(NominationWhist::new(5, game.options()), Ok(game));
    }
}

// ---------------------------------------------------------------------------------------------
// Stored logs

/// Stored logs are replayed and their events compared with the engine's JSON, so the JSON of
/// moves and events must never change. Literals taken from the engine as it was.
#[test]
fn the_json_of_moves_and_events_is_what_stored_logs_hold() {
    let mut game = game_with(
        3,
        Options {
            trumps: TrumpRule::TurnedUp,
            ..hand_sizes(&[1, 1])
        },
    );
    let moves = [
        Move::TurnUp { card: card("QS") },
        nominate(1, 1),
        nominate(2, 0),
        nominate(0, 0),
        play(1, "KH"),
        play(2, "2S"),
        play(0, "AH"),
    ];
    let mut events = Vec::new();
    for mv in &moves {
        events = apply(&mut game, mv.clone());
    }
    assert_eq!(
        serde_json::to_string(&moves).expect("json"),
        r#"[{"kind":"turn_up","card":"QS"},{"kind":"nominate","seat":1,"tricks":1},{"kind":"nominate","seat":2,"tricks":0},{"kind":"nominate","seat":0,"tricks":0},{"kind":"play","seat":1,"card":"KH"},{"kind":"play","seat":2,"card":"2S"},{"kind":"play","seat":0,"card":"AH"}]"#
    );
    assert_eq!(
        serde_json::to_string(&events).expect("json"),
        r#"[{"event":"card_played","seat":0,"card":"AH","trick":1},{"event":"trick_won","trick":1,"winner":2,"cards":[{"seat":1,"card":"KH"},{"seat":2,"card":"2S"},{"seat":0,"card":"AH"}]},{"event":"deal_scored","deal":1,"points":[10,0,1],"totals":[10,0,1]},{"event":"deal_started","deal":2,"dealer":1,"hand_size":1,"trumps":null}]"#
    );
}
