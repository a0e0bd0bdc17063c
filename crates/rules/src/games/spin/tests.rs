//! Spin: NOTES' rules as examples, refusals, and properties over random legal deals.

use proptest::prelude::*;

use super::*;
use crate::deck::SplitMix64;
use crate::games::testing::apply;
use crate::stops::testing::{assert_chips_constant, assert_random_game_replays};

fn card(text: &str) -> Card {
    text.parse().expect("card")
}

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

fn game(players: usize) -> Spin {
    Spin::new(players, Options::default()).expect("a valid set-up")
}

fn play(s: u8, c: &str) -> Move {
    Move::Play {
        seat: seat(s),
        card: card(c),
        spin: false,
    }
}

fn play_spin(s: u8, c: &str) -> Move {
    Move::Play {
        seat: seat(s),
        card: card(c),
        spin: true,
    }
}

fn show(s: u8, combination: Combination) -> Move {
    Move::Show {
        seat: seat(s),
        combination,
    }
}

fn result(out: u8, cards_left: Vec<u8>, spin_holder: Option<u8>) -> Move {
    let players = cards_left.len();
    Move::Result {
        out: seat(out),
        cards_left,
        specials: vec![vec![]; players],
        matrimony: None,
        intrigue: None,
        spin_holder: spin_holder.map(seat),
    }
}

#[track_caller]
fn assert_refused(game: &Spin, mv: Move, expected: RuleViolation) {
    let mut after = game.clone();
    assert_eq!(after.apply(&mv), Err(expected), "{mv:?}");
    assert_eq!(&after, game, "a refused {mv:?} changed the state");
}

#[track_caller]
fn assert_invalid(game: &Spin, mv: Move) {
    let mut after = game.clone();
    assert!(
        matches!(after.apply(&mv), Err(RuleViolation::InvalidResult(_))),
        "{mv:?}"
    );
    assert_eq!(&after, game);
}

fn seat_chips(game: &Spin) -> Vec<i64> {
    game.holdings().seats().iter().map(|c| c.get()).collect()
}

fn pools(game: &Spin) -> Vec<i64> {
    game.score_sheet().pools.iter().map(|p| p.chips.get()).collect()
}

#[track_caller]
#[test]
fn fifty_cards_are_all_dealt_with_no_spare_hand() {
    assert_eq!(game(4).hands(), [12, 13, 13, 12]);
    assert_eq!(game(5).hands(), [10; 5]);
    assert_eq!(game(3).hands(), [16, 17, 17]);
}

#[test]
fn the_others_stake_on_game_and_the_dealer_on_matrimony_and_intrigue() {
    let g = game(4);
    // Game 3 (seats 1 to 3), Matrimony 2 and Intrigue 1 (the dealer).
    assert_eq!(pools(&g), [3, 2, 1]);
    assert_eq!(seat_chips(&g), [97, 99, 99, 99]);
    assert_chips_constant(&g);
    let g = Spin::new(
        4,
        Options {
            dealer_pays_game: true,
            ..Options::default()
        },
    )
    .expect("set-up");
    assert_eq!(pools(&g), [4, 2, 1]);
}

#[test]
fn each_king_played_collects_one_from_every_other_player() {
    let mut g = game(4);
    apply(&mut g, play(1, "QS"));
    let events = apply(&mut g, play(2, "KS"));
    assert!(events.contains(&Event::Stopped {
        card: card("KS"),
        leader: seat(2)
    }));
    assert_eq!(seat_chips(&g), [96, 98, 102, 98]);
    assert_chips_constant(&g);
}

#[test]
fn spin_played_with_a_card_in_sequence_makes_a_stop_and_collects_three_from_each() {
    // The text: clubs in play up to the six; the holder of the seven and Spin says
    // "seven and Spin".
    let mut g = game(4);
    apply(&mut g, play(1, "5C"));
    apply(&mut g, play(3, "6C"));
    let events = apply(&mut g, play_spin(2, "7C"));
    assert!(events.contains(&Event::SpinPlayed { seat: seat(2) }));
    assert!(events.contains(&Event::Stopped {
        card: card("7C"),
        leader: seat(2)
    }));
    assert_eq!(g.view().to_act, Some(seat(2)));
    assert_eq!(g.view().cards_left, [12, 12, 11, 11]);
    assert_eq!(seat_chips(&g), [94, 96, 108, 96]);
    // The eight of clubs now has to wait for a lead.
    assert_refused(
        &g,
        play(1, "8C"),
        RuleViolation::NotYourTurn {
            expected: seat(2),
            got: seat(1),
        },
    );
}

#[test]
fn spin_led_after_a_stop_is_a_stop_and_collects() {
    let mut g = game(4);
    apply(&mut g, play(1, "AD"));
    assert_eq!(g.view().to_act, Some(seat(1)));
    assert_eq!(seat_chips(&g), [94, 108, 96, 96]);
    assert_refused(&g, play_spin(1, "2D"), RuleViolation::CardAlreadyPlayed(SPIN));
}

#[test]
fn spin_cannot_be_played_beside_itself() {
    let g = game(4);
    assert_invalid(&g, play_spin(1, "AD"));
}

#[test]
fn the_removed_cards_make_the_regular_stops() {
    let mut g = game(4);
    apply(&mut g, play(1, "6D"));
    let events = apply(&mut g, play(2, "7D"));
    assert!(events.contains(&Event::Stopped {
        card: card("7D"),
        leader: seat(2)
    }));
    let events = apply(&mut g, play(2, "AH"));
    assert!(events.contains(&Event::Stopped {
        card: card("AH"),
        leader: seat(2)
    }));
    assert_refused(&g, play(2, "2H"), RuleViolation::CardNotInPack(card("2H")));
    assert_refused(&g, play(2, "8D"), RuleViolation::CardNotInPack(card("8D")));
}

#[test]
fn matrimony_and_intrigue_are_won_by_showing_after_a_stop() {
    let mut g = game(4);
    assert_refused(
        &g,
        show(1, Combination::Matrimony),
        RuleViolation::MoveNotExpected {
            kind: "show",
            expected: vec!["play", "result"],
        },
    );
    apply(&mut g, play(1, "KS"));
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["play", "show"]);
    assert_refused(
        &g,
        show(2, Combination::Matrimony),
        RuleViolation::NotYourTurn {
            expected: seat(1),
            got: seat(2),
        },
    );
    apply(&mut g, show(1, Combination::Matrimony));
    apply(&mut g, show(1, Combination::Intrigue));
    // King 3, Matrimony 2, Intrigue 1.
    assert_eq!(seat_chips(&g), [96, 105, 98, 98]);
    assert_eq!(pools(&g), [3, 0, 0]);
    assert_invalid(&g, show(1, Combination::Matrimony));
}

#[test]
fn a_shown_card_cannot_be_played_or_shown_by_another_seat() {
    let mut g = game(4);
    apply(&mut g, play(1, "KS"));
    apply(&mut g, show(1, Combination::Matrimony));
    apply(&mut g, play(1, "10D"));
    apply(&mut g, play(2, "JD"));
    assert_refused(
        &g,
        play(3, "QD"),
        RuleViolation::CardHeldByAnother {
            card: card("QD"),
            holder: seat(1),
            seat: seat(3),
        },
    );
    apply(&mut g, play(1, "QD"));
    apply(&mut g, play(1, "KD"));
    // Seat 2 played the knave, not seat 1: the king's stop is seat 1's, and the queen it showed
    // is played, so Intrigue can no longer be shown.
    assert_refused(
        &g,
        show(1, Combination::Intrigue),
        RuleViolation::CardAlreadyPlayed(card("QD")),
    );
}

#[test]
fn the_queen_shown_for_matrimony_cannot_be_shown_by_another_seat_for_intrigue() {
    let mut g = game(4);
    apply(&mut g, play(1, "KS"));
    apply(&mut g, show(1, Combination::Matrimony));
    apply(&mut g, play(1, "QC"));
    apply(&mut g, play(2, "KC"));
    assert_refused(
        &g,
        show(2, Combination::Intrigue),
        RuleViolation::CardHeldByAnother {
            card: card("QD"),
            holder: seat(1),
            seat: seat(2),
        },
    );
}

#[test]
fn a_pair_with_a_card_already_played_cannot_be_shown() {
    let mut g = game(4);
    apply(&mut g, play(1, "10D"));
    apply(&mut g, play(2, "JD"));
    apply(&mut g, play(2, "QD"));
    apply(&mut g, play(3, "KD"));
    assert_refused(
        &g,
        show(3, Combination::Matrimony),
        RuleViolation::CardAlreadyPlayed(card("KD")),
    );
}

#[test]
fn the_first_out_takes_game_and_a_chip_a_card_and_a_player_caught_with_spin_pays_double() {
    let mut g = game(4);
    let events = apply(&mut g, result(2, vec![3, 1, 0, 4], Some(3)));
    assert!(events.contains(&Event::WentOut {
        seat: seat(2),
        cards_left: vec![3, 1, 0, 4],
        spin_holder: Some(seat(3)),
    }));
    // Seat 2: Game 3, then 3 + 1 + 2 × 4.
    let sheet = g.score_sheet();
    assert_eq!(
        sheet.deals[0].net.iter().map(|c| c.get()).collect::<Vec<_>>(),
        [-6, -2, 14, -9]
    );
    assert_chips_constant(&g);
}

#[test]
fn the_winner_pays_no_game_stake_the_next_deal() {
    let mut g = game(4);
    let events = apply(&mut g, result(2, vec![3, 1, 0, 4], Some(3)));
    assert!(events.contains(&Event::DealStarted {
        deal: 2,
        dealer: seat(1),
        hands: vec![12, 12, 13, 13],
        exempt: Some(seat(2)),
    }));
    // Deal 2 is dealt by seat 1: Game from seats 0 and 3 only (seat 2 won, seat 1 deals);
    // Matrimony and Intrigue were not shown and carry over under the dealer's new stakes.
    assert_eq!(pools(&g), [2, 4, 2]);
    assert_chips_constant(&g);
}

#[test]
fn going_out_card_by_card_with_spin_unplayed_asks_who_holds_it() {
    let mut g = game(8);
    // Eight players: 50 = 8 × 6 + 2; seat 1 holds seven cards.
    assert_eq!(g.hands()[1], 7);
    for c in ["KS", "KH", "KC", "KD", "7D", "AH"] {
        apply(&mut g, play(1, c));
    }
    apply(&mut g, play(1, "QS"));
    assert_eq!(g.view().phase, Phase::SpinHolder);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["spin_holder"]);
    assert_invalid(&g, Move::SpinHolder { seat: seat(1) });
    assert_refused(
        &g,
        Move::SpinHolder { seat: seat(9) },
        RuleViolation::NoSuchSeat {
            seat: seat(9),
            players: 8,
        },
    );
    let events = apply(&mut g, Move::SpinHolder { seat: seat(4) });
    assert!(events.iter().any(|e| matches!(e, Event::DealEnded { deal: 1, .. })));
    let deal = &g.score_sheet().deals[0];
    assert_eq!(deal.spin_holder, Some(seat(4)));
    // Seat 4 was dealt 6 and pays double.
    assert_eq!(deal.net[4].get(), -1 - 4 - 12);
}

#[test]
fn bad_cards_and_results_are_refused() {
    let mut g = game(4);
    assert_refused(
        &g,
        play(2, "5S"),
        RuleViolation::NotYourTurn {
            expected: seat(1),
            got: seat(2),
        },
    );
    assert_refused(
        &g,
        play(4, "5S"),
        RuleViolation::NoSuchSeat {
            seat: seat(4),
            players: 4,
        },
    );
    apply(&mut g, play(1, "5S"));
    assert_refused(
        &g,
        play(2, "7S"),
        RuleViolation::NotInSequence {
            card: card("7S"),
            expected: card("6S"),
        },
    );
    assert_refused(&g, play(2, "5S"), RuleViolation::CardAlreadyPlayed(card("5S")));

    let g = game(4);
    assert_invalid(&g, result(1, vec![3, 0, 2, 2], None));
    assert_invalid(&g, result(1, vec![3, 0, 2, 2], Some(1)));
    assert_invalid(&g, result(1, vec![3, 0, 0, 2], Some(2)));
    let mut with_specials = result(1, vec![12, 0, 2, 2], Some(2));
    if let Move::Result { specials, .. } = &mut with_specials {
        specials[0] = vec![card("KS")];
    }
    assert_refused(
        &g,
        with_specials,
        RuleViolation::MoreCardsThanDealt {
            seat: seat(0),
            dealt: 12,
        },
    );
    let mut not_special = result(1, vec![3, 0, 2, 2], Some(2));
    if let Move::Result { specials, .. } = &mut not_special {
        specials[0] = vec![card("QS")];
    }
    assert_invalid(&g, not_special);
}

#[test]
fn a_result_books_kings_spin_and_shows_like_play_does() {
    let mut g = game(4);
    let mv = Move::Result {
        out: seat(1),
        cards_left: vec![2, 0, 3, 1],
        specials: vec![vec![card("KS")], vec![card("AD"), card("KH")], vec![], vec![]],
        matrimony: Some(seat(3)),
        intrigue: None,
        spin_holder: None,
    };
    apply(&mut g, mv);
    // Seat 1: -1 Game stake, Spin 9, King 3, Game 3, 2 + 3 + 1 a card; seat 0 (dealer): -3
    // stakes, King 3, Spin -3, King -1, cards -2.
    let net: Vec<i64> = g.score_sheet().deals[0].net.iter().map(|c| c.get()).collect();
    assert_eq!(
        net,
        [
            -3 + 3 - 3 - 1 - 2,
            -1 + 9 + 3 - 1 + 3 + 6,
            -1 - 3 - 1 - 1 - 3,
            -1 - 3 - 1 - 1 + 2 - 1
        ]
    );
    assert_chips_constant(&g);
}

// ---------------------------------------------------------------------------------------------
// Properties

/// Deals and plays the current deal from `rng` card by card (`sim`). Returns the moves.
fn random_deal(game: &mut Spin, rng: &mut SplitMix64) -> Vec<Move> {
    super::sim::play_deal(game, rng).unwrap_or_else(|e| panic!("the simulator's deal was refused: {e}"))
}

#[test]
fn the_simulator_plays_whole_games_that_replay_identically() {
    for players in [3, 5, 8] {
        crate::games::testing::assert_simulator_plays_whole_games(
            Spin::new(players, Options::default()).expect("a valid set-up"),
            super::sim::random_deal,
            super::sim::random_game,
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_legal_deals_conserve_cards_and_chips_and_replay_identically(players in 3usize..=8, seed in any::<u64>()) {
        assert_random_game_replays(players, seed, random_deal, |g: &Spin, moves| {
            let sheet = g.score_sheet();
            let last = sheet.deals.last().expect("scored");
            let plays: usize = moves
                .iter()
                .map(|m| match m {
                    Move::Play { spin: true, .. } => 2,
                    Move::Play { .. } => 1,
                    _ => 0,
                })
                .sum();
            let left: usize = last.cards_left.iter().map(|&n| usize::from(n)).sum();
            assert_eq!(plays + left, 50);
        });
    }

    #[test]
    fn a_random_play_is_either_accepted_or_changes_nothing(
        players in 3usize..=8,
        seed in any::<u64>(),
        prefix in 0usize..40,
        s in 0u8..10,
        c in 0usize..52,
        spin in any::<bool>(),
    ) {
        let mut g = game(players);
        let moves = random_deal(&mut g.clone(), &mut SplitMix64::new(seed));
        for m in moves.into_iter().take(prefix) {
            apply(&mut g, m);
        }
        let before = g.clone();
        let mv = Move::Play { seat: Seat::new(s), card: Card::from_index(c).expect("index below 52"), spin };
        match g.apply(&mv) {
            Ok(_) => assert_chips_constant(&g),
            Err(_) => prop_assert_eq!(&g, &before),
        }
    }
}

/// Stored logs are replayed and their events compared with the engine's JSON: a deal's result
/// and the chips it moves (seat to seat, pool to seat, the next stakes onto the pools) must be
/// written exactly as they always were.
#[test]
fn a_results_move_and_chip_movements_are_written_exactly_as_stored_logs_hold_them() {
    let mut g = game(4);
    let mv = Move::Result {
        out: seat(1),
        cards_left: vec![2, 0, 3, 1],
        specials: vec![vec![card("KS")], vec![card("AD")], vec![], vec![]],
        matrimony: Some(seat(3)),
        intrigue: None,
        spin_holder: None,
    };
    let move_json = serde_json::to_string(&mv).expect("json");
    let events = apply(&mut g, mv);
    let events_json = serde_json::to_string(&events).expect("json");
    assert_eq!(move_json, PINNED_MOVE);
    assert_eq!(events_json, PINNED_EVENTS);
}

const PINNED_MOVE: &str =
    r#"{"kind":"result","out":1,"cards_left":[2,0,3,1],"specials":[["KS"],["AD"],[],[]],"matrimony":3}"#;
const PINNED_EVENTS: &str = r#"[{"event":"chips","deal":1,"memo":"deal 1: KS played: 1 from each player to seat 0","payments":[{"from":{"seat":1},"to":{"seat":0},"amount":1},{"from":{"seat":2},"to":{"seat":0},"amount":1},{"from":{"seat":3},"to":{"seat":0},"amount":1}]},{"event":"chips","deal":1,"memo":"deal 1: Spin played: 3 from each player to seat 1","payments":[{"from":{"seat":0},"to":{"seat":1},"amount":3},{"from":{"seat":2},"to":{"seat":1},"amount":3},{"from":{"seat":3},"to":{"seat":1},"amount":3}]},{"event":"shown","seat":3,"combination":"matrimony"},{"event":"chips","deal":1,"memo":"deal 1: Matrimony shown by seat 3","payments":[{"from":{"pool":"matrimony"},"to":{"seat":3},"amount":2}]},{"event":"went_out","seat":1,"cards_left":[2,0,3,1],"spin_holder":null},{"event":"chips","deal":1,"memo":"deal 1: seat 1 went out: Game and one a card left from each player","payments":[{"from":{"pool":"game"},"to":{"seat":1},"amount":3},{"from":{"seat":0},"to":{"seat":1},"amount":2},{"from":{"seat":2},"to":{"seat":1},"amount":3},{"from":{"seat":3},"to":{"seat":1},"amount":1}]},{"event":"deal_ended","deal":1,"winner":1,"net":[-5,16,-8,-4]},{"event":"deal_started","deal":2,"dealer":1,"hands":[12,12,13,13],"exempt":1},{"event":"chips","deal":2,"memo":"deal 2: stakes on Game, Matrimony and Intrigue","payments":[{"from":{"seat":0},"to":{"pool":"game"},"amount":1},{"from":{"seat":2},"to":{"pool":"game"},"amount":1},{"from":{"seat":3},"to":{"pool":"game"},"amount":1},{"from":{"seat":1},"to":{"pool":"matrimony"},"amount":2},{"from":{"seat":1},"to":{"pool":"intrigue"},"amount":1}]}]"#;

// ---------------------------------------------------------------------------------------------
// Legal moves

/// The moves the view lists, and the rest of each kind's candidates (refused).
fn expand_legal(g: &Spin) -> (Vec<Move>, Vec<Move>) {
    let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
    let players = g.players();
    let mut playing = Vec::new();
    for m in g.view().legal_moves {
        match m {
            LegalMove::Play { seat, cards, with_spin } => {
                playing.push(seat);
                for card in Card::deck() {
                    for spin in [false, true] {
                        let open = if spin { &with_spin } else { &cards };
                        let mv = Move::Play { seat, card, spin };
                        if open.contains(&card) {
                            listed.push(mv)
                        } else {
                            unlisted.push(mv)
                        }
                    }
                }
            }
            LegalMove::Show { seat, combinations } => {
                listed.extend(
                    combinations
                        .into_iter()
                        .map(|combination| Move::Show { seat, combination }),
                );
            }
            LegalMove::SpinHolder { seats } => {
                for s in Seat::all(players) {
                    let mv = Move::SpinHolder { seat: s };
                    if seats.contains(&s) {
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
                unlisted.push(result(0, cards_left, None));
            }
        }
    }
    if !playing.is_empty() {
        for s in Seat::all(players).filter(|s| !playing.contains(s)) {
            unlisted.extend(Card::deck().map(|card| Move::Play {
                seat: s,
                card,
                spin: false,
            }));
        }
    }
    (listed, unlisted)
}

#[test]
fn every_listed_move_is_accepted_and_the_others_refused_through_random_deals() {
    for (players, seed) in [(3, 21), (5, 22)] {
        let mut g = game(players);
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
                &["play", "show", "spin_holder"],
                expand_legal,
            );
        }
    }
}
