//! Newmarket: the rule text's example pool, NOTES' resolutions, refusals, and properties over
//! random legal deals.

use proptest::prelude::*;

use super::*;
use crate::deck::SplitMix64;
use crate::games::testing::apply;
use crate::stops::testing::{assert_chips_constant, assert_random_game_replays};

fn card(text: &str) -> Card {
    text.parse().expect("card")
}

fn cards(texts: &[&str]) -> Vec<Card> {
    texts.iter().map(|t| card(t)).collect()
}

/// A result's `pool_winners` as the spec documents them: (pool card, seat) for each pool won.
fn won(pools: &[(&str, u8)]) -> PoolWinners {
    PoolWinners::Named(
        pools
            .iter()
            .map(|&(pool_card, s)| PoolWinner {
                pool_card: card(pool_card),
                seat: seat(s),
            })
            .collect(),
    )
}

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

fn game(players: usize) -> Newmarket {
    Newmarket::new(players, Options::default()).expect("a valid set-up")
}

fn play(s: u8, c: &str) -> Move {
    Move::Play {
        seat: seat(s),
        card: card(c),
    }
}

/// The text's pool: knave of diamonds, queen of hearts, king of clubs, ace of spades.
fn text_layout(stakes: &[&str]) -> Move {
    Move::Layout {
        pool_cards: cards(&["JD", "QH", "KC", "AS"]),
        stakes: cards(stakes),
        dealer_extra_on: None,
    }
}

#[track_caller]
fn assert_refused(game: &Newmarket, mv: Move, expected: RuleViolation) {
    let mut after = game.clone();
    assert_eq!(after.apply(&mv), Err(expected), "{mv:?}");
    assert_eq!(&after, game, "a refused {mv:?} changed the state");
}

#[track_caller]
fn assert_invalid(game: &Newmarket, mv: Move) {
    let mut after = game.clone();
    assert!(
        matches!(after.apply(&mv), Err(RuleViolation::InvalidResult(_))),
        "{mv:?}"
    );
    assert_eq!(&after, game);
}

fn pools(game: &Newmarket) -> Vec<i64> {
    game.score_sheet().pools.iter().map(|p| p.chips.get()).collect()
}

fn seat_chips(game: &Newmarket) -> Vec<i64> {
    game.holdings().seats().iter().map(|c| c.get()).collect()
}

#[track_caller]
fn assert_invalid_layout(game: &Newmarket, mv: Move) {
    let mut after = game.clone();
    assert!(
        matches!(after.apply(&mv), Err(RuleViolation::InvalidLayout(_))),
        "{mv:?}"
    );
    assert_eq!(&after, game);
}

#[test]
fn forty_eight_cards_are_dealt_round_from_the_dealers_left() {
    let g = game(5);
    // 48 = 5 × 9 + 3: the three seats left of the dealer (seat 0) get ten.
    assert_eq!(g.hands(), [9, 10, 10, 10, 9]);
    assert_eq!(g.view().phase, Phase::Layout);
    assert_eq!(crate::legal::kinds(&g.view().legal_moves), ["layout"]);
}

#[test]
fn each_player_stakes_one_on_a_pool_card_and_the_dealer_adds_one() {
    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "AS", "QH", "JD"]));
    // Ace 2, King 0 + the dealer's extra (the pool holding least), Queen 1, Knave 1.
    assert_eq!(pools(&g), [2, 1, 1, 1]);
    assert_eq!(seat_chips(&g), [98, 99, 99, 99]);
    assert_eq!(g.view().to_act, Some(seat(1)));
    assert_chips_constant(&g);
}

#[test]
fn the_dealer_may_name_where_the_extra_goes() {
    let mut g = game(4);
    let mv = Move::Layout {
        pool_cards: cards(&["JD", "QH", "KC", "AS"]),
        stakes: cards(&["AS", "KC", "QH", "JD"]),
        dealer_extra_on: Some(card("QH")),
    };
    apply(&mut g, mv);
    assert_eq!(pools(&g), [1, 1, 2, 1]);
}

#[test]
fn the_cards_below_the_pool_cards_win_their_stakes_and_are_stops() {
    // The text: with knave of diamonds, queen of hearts, king of clubs and ace of spades laid
    // out, the king of spades, queen of clubs, knave of hearts and ten of diamonds win.
    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "KC", "QH", "JD"]));
    assert_eq!(pools(&g), [2, 1, 1, 1]);
    let mut won = Vec::new();
    for (lead, winner, s) in [("QS", "KS", 1), ("JC", "QC", 2), ("10H", "JH", 3), ("9D", "10D", 0)] {
        let leader = g.view().to_act.expect("a lead is due");
        apply(
            &mut g,
            Move::Play {
                seat: leader,
                card: card(lead),
            },
        );
        let events = apply(&mut g, play(s, winner));
        assert!(
            events.contains(&Event::Stopped {
                card: card(winner),
                leader: seat(s)
            }),
            "{winner} is a stop"
        );
        won.extend(events.into_iter().filter_map(|e| match e {
            Event::Chips { movement } => Some(movement.memo),
            _ => None,
        }));
    }
    assert_eq!(
        won,
        [
            "deal 1: the ace's pool won by seat 1 with KS",
            "deal 1: the king's pool won by seat 2 with QC",
            "deal 1: the queen's pool won by seat 3 with JH",
            "deal 1: the knave's pool won by seat 0 with 10D",
        ]
    );
    assert_eq!(pools(&g), [0, 0, 0, 0]);
    assert_eq!(seat_chips(&g), [98 + 1, 99 + 2, 99 + 1, 99 + 1]);
}

#[test]
fn sixes_and_kings_are_stops_because_the_sevens_are_out() {
    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "KC", "QH", "JD"]));
    apply(&mut g, play(1, "5H"));
    let events = apply(&mut g, play(2, "6H"));
    assert!(events.contains(&Event::Stopped {
        card: card("6H"),
        leader: seat(2)
    }));
    assert_refused(&g, play(2, "7C"), RuleViolation::CardNotInPack(card("7C")));
}

#[test]
fn going_out_collects_a_chip_a_card_and_unwon_pools_carry_over() {
    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "KC", "QH", "JD"]));
    let result = Move::Result {
        out: seat(2),
        cards_left: vec![3, 1, 0, 4],
        pool_winners: won(&[("QH", 0)]),
    };
    apply(&mut g, result);
    // Seat 0 won the queen's pool (the layout's second card, QH); seat 2 went out: 3 + 1 + 4.
    assert_eq!(pools(&g), [2, 1, 0, 1]);
    assert_eq!(seat_chips(&g), [98 + 1 - 3, 99 - 1, 99 + 8, 99 - 4]);
    let sheet = g.score_sheet();
    assert_eq!(sheet.deals[0].recording, Recording::ResultOnly);
    // Deal 2, dealt by seat 1: stakes go on top of what carried over.
    apply(
        &mut g,
        Move::Layout {
            pool_cards: cards(&["AH", "KD", "QC", "JS"]),
            stakes: cards(&["AH", "KD", "QC", "JS"]),
            dealer_extra_on: None,
        },
    );
    assert_eq!(pools(&g), [3, 2, 2, 2]);
    assert_chips_constant(&g);
}

#[test]
fn a_stake_on_a_card_not_laid_out_is_refused() {
    let g = game(4);
    assert_refused(
        &g,
        text_layout(&["AS", "KC", "QH", "AH"]),
        RuleViolation::NotAPoolCard(card("AH")),
    );
    let extra_elsewhere = Move::Layout {
        pool_cards: cards(&["JD", "QH", "KC", "AS"]),
        stakes: cards(&["AS", "KC", "QH", "JD"]),
        dealer_extra_on: Some(card("10S")),
    };
    assert_refused(&g, extra_elsewhere, RuleViolation::NotAPoolCard(card("10S")));
    assert_refused(
        &g,
        text_layout(&["AS", "KC", "QH"]),
        RuleViolation::WrongNumberOfEntries { got: 3, expected: 4 },
    );
}

#[test]
fn all_four_pools_must_be_covered_and_the_pool_cards_must_be_right() {
    let g = game(4);
    // Nobody on the knave, the dealer's extra on the ace.
    let mv = Move::Layout {
        pool_cards: cards(&["JD", "QH", "KC", "AS"]),
        stakes: cards(&["AS", "KC", "QH", "QH"]),
        dealer_extra_on: Some(card("AS")),
    };
    assert_invalid_layout(&g, mv);
    for bad in [
        ["JD", "QH", "KC", "AD"],
        ["JD", "QH", "KC", "KS"],
        ["JD", "QH", "KC", "10S"],
    ] {
        let mv = Move::Layout {
            pool_cards: cards(&bad),
            stakes: cards(&["KC"; 4]),
            dealer_extra_on: None,
        };
        assert_invalid_layout(&g, mv);
    }
}

#[test]
fn three_players_need_the_dealers_extra_to_cover_four_pools() {
    let mut g = game(3);
    apply(&mut g, text_layout(&["AS", "KC", "QH"]));
    assert_eq!(pools(&g), [1, 1, 1, 1]);
    assert!(matches!(
        Newmarket::new(
            3,
            Options {
                dealer_extra: 0,
                ..Options::default()
            }
        ),
        Err(SetupError::InvalidOption {
            option: "dealer_extra",
            ..
        })
    ));
}

#[test]
fn bad_cards_and_seats_are_refused_and_change_nothing() {
    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "KC", "QH", "JD"]));
    assert_refused(
        &g,
        play(2, "5H"),
        RuleViolation::NotYourTurn {
            expected: seat(1),
            got: seat(2),
        },
    );
    assert_refused(
        &g,
        play(4, "5H"),
        RuleViolation::NoSuchSeat {
            seat: seat(4),
            players: 4,
        },
    );
    apply(&mut g, play(1, "5H"));
    assert_refused(
        &g,
        play(2, "8H"),
        RuleViolation::NotInSequence {
            card: card("8H"),
            expected: card("6H"),
        },
    );
    assert_refused(&g, play(2, "5H"), RuleViolation::CardAlreadyPlayed(card("5H")));
    // Every card is dealt: the holder of the six must play it, so a stop cannot be declared
    // (there is no such move), and a result is too late.
    let result = Move::Result {
        out: seat(1),
        cards_left: vec![1, 0, 1, 1],
        pool_winners: won(&[]),
    };
    assert_refused(
        &g,
        result,
        RuleViolation::MoveNotExpected {
            kind: "result",
            expected: vec!["play"],
        },
    );
}

#[test]
fn inconsistent_results_are_refused() {
    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "KC", "QH", "JD"]));
    let result = |out: u8, left: Vec<u8>, winners: Vec<Option<u8>>| Move::Result {
        out: seat(out),
        cards_left: left,
        pool_winners: PoolWinners::PerPool(winners.into_iter().map(|w| w.map(seat)).collect()),
    };
    assert_invalid(&g, result(1, vec![3, 1, 2, 2], vec![None; 4]));
    assert_invalid(&g, result(1, vec![13, 0, 2, 2], vec![None; 4]));
    assert_refused(
        &g,
        result(1, vec![3, 0, 2, 2], vec![None; 3]),
        RuleViolation::WrongNumberOfEntries { got: 3, expected: 4 },
    );
    assert_refused(
        &g,
        result(1, vec![3, 0, 2, 2], vec![Some(6), None, None, None]),
        RuleViolation::NoSuchSeat {
            seat: seat(6),
            players: 4,
        },
    );
    // Seat 0 was dealt 12 and still holds 11: it cannot have won two pools.
    assert_refused(
        &g,
        result(1, vec![11, 0, 2, 2], vec![Some(0), Some(0), None, None]),
        RuleViolation::MoreCardsThanDealt {
            seat: seat(0),
            dealt: 12,
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Properties

/// Deals and plays the current deal from `rng` card by card, as a table would (`sim`).
fn random_deal(game: &mut Newmarket, rng: &mut SplitMix64) -> Vec<Move> {
    super::sim::play_deal(game, rng).unwrap_or_else(|e| panic!("the simulator's deal was refused: {e}"))
}

#[test]
fn the_simulator_plays_whole_games_that_replay_identically() {
    for players in [3, 5, 8] {
        crate::games::testing::assert_simulator_plays_whole_games(
            Newmarket::new(players, Options::default()).expect("a valid set-up"),
            super::sim::random_deal,
            super::sim::random_game,
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_legal_deals_conserve_cards_and_chips_and_replay_identically(players in 3usize..=8, seed in any::<u64>()) {
        assert_random_game_replays(players, seed, random_deal, |g: &Newmarket, moves| {
            let sheet = g.score_sheet();
            let last = sheet.deals.last().expect("scored");
            let plays = moves.iter().filter(|m| matches!(m, Move::Play { .. })).count();
            let left: usize = last.cards_left.iter().map(|&n| usize::from(n)).sum();
            assert_eq!(plays + left, 48);
        });
    }

    #[test]
    fn a_random_play_is_either_accepted_or_changes_nothing(
        players in 3usize..=8,
        seed in any::<u64>(),
        prefix in 0usize..40,
        s in 0u8..10,
        c in 0usize..52,
    ) {
        let mut g = game(players);
        let moves = random_deal(&mut g.clone(), &mut SplitMix64::new(seed));
        for m in moves.into_iter().take(prefix) {
            apply(&mut g, m);
        }
        let before = g.clone();
        let mv = Move::Play { seat: Seat::new(s), card: Card::from_index(c).expect("index below 52") };
        match g.apply(&mv) {
            Ok(_) => assert_chips_constant(&g),
            Err(_) => prop_assert_eq!(&g, &before),
        }
    }
}

/// Stored logs are replayed and their events compared with the engine's JSON: a layout's stakes
/// (seat to pool) and a result's winnings (pool to seat, seat to seat) must be written exactly
/// as they always were.
#[test]
fn a_layout_a_result_and_their_chip_movements_are_written_exactly_as_stored_logs_hold_them() {
    let mut g = game(4);
    let layout = text_layout(&["AS", "AS", "QH", "JD"]);
    let result = Move::Result {
        out: seat(2),
        cards_left: vec![3, 1, 0, 4],
        pool_winners: PoolWinners::PerPool(vec![None, Some(seat(0)), None, None]),
    };
    let moves_json = serde_json::to_string(&[&layout, &result]).expect("json");
    let events = [apply(&mut g, layout), apply(&mut g, result)];
    let events_json = serde_json::to_string(&events).expect("json");
    assert_eq!(moves_json, PINNED_MOVES);
    assert_eq!(events_json, PINNED_EVENTS);
}

/// A result entered with `{pool_card, seat}` settles exactly as the same result in the form
/// stored before issue #26 (one seat or null per pool card), and each is written back in the form
/// it was entered, so that stored entries keep their bytes, hashes and bundles.
#[test]
fn pool_winners_named_by_pool_card_settle_as_the_earlier_per_pool_form_and_each_keeps_its_form() {
    let named = r#"{"kind":"result","out":2,"cards_left":[3,1,0,4],"pool_winners":[{"pool_card":"QH","seat":0}]}"#;
    let per_pool = r#"{"kind":"result","out":2,"cards_left":[3,1,0,4],"pool_winners":[null,0,null,null]}"#;
    let mut settled = Vec::new();
    for text in [named, per_pool] {
        let mv: Move = serde_json::from_str(text).expect("a result");
        assert_eq!(
            serde_json::to_string(&mv).expect("json"),
            text,
            "written back as entered"
        );
        let mut g = game(4);
        apply(&mut g, text_layout(&["AS", "QH", "KC", "JD"]));
        settled.push((apply(&mut g, mv), seat_chips(&g), pools(&g)));
    }
    assert_eq!(settled[0], settled[1]);

    let mut g = game(4);
    apply(&mut g, text_layout(&["AS", "QH", "KC", "JD"]));
    let result = |pool_winners| Move::Result {
        out: seat(2),
        cards_left: vec![3, 1, 0, 4],
        pool_winners,
    };
    assert_refused(&g, result(won(&[("QS", 0)])), RuleViolation::NotAPoolCard(card("QS")));
    assert_invalid(&g, result(won(&[("QH", 0), ("QH", 1)])));
}

const PINNED_MOVES: &str = r#"[{"kind":"layout","pool_cards":["JD","QH","KC","AS"],"stakes":["AS","AS","QH","JD"]},{"kind":"result","out":2,"cards_left":[3,1,0,4],"pool_winners":[null,0,null,null]}]"#;
const PINNED_EVENTS: &str = r#"[[{"event":"laid_out","pool_cards":["JD","QH","KC","AS"]},{"event":"chips","deal":1,"memo":"deal 1: stakes on the pool cards","payments":[{"from":{"seat":0},"to":{"pool":"pool_ace"},"amount":1},{"from":{"seat":1},"to":{"pool":"pool_ace"},"amount":1},{"from":{"seat":2},"to":{"pool":"pool_queen"},"amount":1},{"from":{"seat":3},"to":{"pool":"pool_knave"},"amount":1},{"from":{"seat":0},"to":{"pool":"pool_king"},"amount":1}]}],[{"event":"chips","deal":1,"memo":"deal 1: the queen's pool won by seat 0 with JH","payments":[{"from":{"pool":"pool_queen"},"to":{"seat":0},"amount":1}]},{"event":"went_out","seat":2,"cards_left":[3,1,0,4]},{"event":"chips","deal":1,"memo":"deal 1: seat 2 went out: one a card left from each player","payments":[{"from":{"seat":0},"to":{"seat":2},"amount":3},{"from":{"seat":1},"to":{"seat":2},"amount":1},{"from":{"seat":3},"to":{"seat":2},"amount":4}]},{"event":"deal_ended","deal":1,"winner":2,"net":[-4,-2,7,-5]},{"event":"deal_started","deal":2,"dealer":1,"hands":[12,12,12,12]}]]"#;

// ---------------------------------------------------------------------------------------------
// Legal moves

/// The moves the view lists, and the rest of each kind's candidates (refused).
fn expand_legal(g: &Newmarket) -> (Vec<Move>, Vec<Move>) {
    let (mut listed, mut unlisted) = (Vec::new(), Vec::new());
    let players = g.players();
    let mut playing = Vec::new();
    for m in g.view().legal_moves {
        match m {
            LegalMove::Layout { pool_cards, seats } => {
                assert_eq!(usize::from(seats), players);
                assert_eq!(pool_cards.len(), 16, "an ace, king, queen and knave of each suit");
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
            LegalMove::Result { hand_sizes, .. } => {
                let mut cards_left = hand_sizes.clone();
                cards_left[0] = 0;
                cards_left[1] = hand_sizes[1] + 1;
                unlisted.push(Move::Result {
                    out: seat(0),
                    cards_left,
                    pool_winners: PoolWinners::Named(Vec::new()),
                });
            }
        }
    }
    if !playing.is_empty() {
        for s in Seat::all(players).filter(|s| !playing.contains(s)) {
            unlisted.extend(Card::deck().map(|card| Move::Play { seat: s, card }));
        }
    }
    (listed, unlisted)
}

#[test]
fn every_listed_move_is_accepted_and_the_others_refused_through_random_deals() {
    for (players, seed) in [(3, 31), (6, 32)] {
        let mut g = game(players);
        let mut rng = SplitMix64::new(seed);
        for _ in 0..3 {
            if g.is_finished() {
                break;
            }
            let start = g.clone();
            let moves = random_deal(&mut g, &mut rng);
            crate::games::testing::assert_legal_moves_along(start, &moves, &["play"], expand_legal);
        }
    }
}

#[test]
fn a_pool_carried_onto_the_table_is_won_by_the_card_below_its_pool_card() {
    let options = Options {
        opening_pools: crate::stops::OpeningPools::from([(Pool::PoolQueen, 4)]),
        ..Options::default()
    };
    let mut g = Newmarket::new(4, options).expect("a valid set-up");
    apply(&mut g, text_layout(&["AS", "KC", "QH", "JD"]));
    // The queen's pool: the carry and its stake.
    assert_eq!(pools(&g), [2, 1, 5, 1]);
    let result = Move::Result {
        out: seat(2),
        cards_left: vec![3, 1, 0, 4],
        pool_winners: won(&[("QH", 0)]),
    };
    apply(&mut g, result);
    assert_eq!(pools(&g), [2, 1, 0, 1]);
    assert_eq!(seat_chips(&g)[0], 98 + 5 - 3);
    let h = g.holdings();
    assert_eq!((h.on_table(), h.issued()), (Chips::new(404), Chips::new(404)));
}
