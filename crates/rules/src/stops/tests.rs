use super::*;
use crate::cards::Card;
use crate::chips::{Account, Chips, Transfer};
use crate::error::{RuleViolation, SetupError};
use crate::seat::{BySeat, Seat};

fn card(s: &str) -> Card {
    s.parse().expect("card")
}

fn seat(n: u8) -> Account {
    Account::Seat(Seat::new(n))
}

fn transfer(from: Account, to: Account, amount: i64) -> Transfer {
    Transfer::new(from, to, Chips::new(amount))
}

fn runs(players: usize, dealt: u8, removed: &[&str], spare: bool) -> Runs {
    Runs::new(
        removed.iter().map(|c| card(c)).collect(),
        spare,
        BySeat::filled(players, dealt),
        Seat::new(1),
    )
}

#[test]
fn runs_go_up_ace_low_and_stop_after_the_king() {
    assert_eq!(next_up(card("AS")), Some(card("2S")));
    assert_eq!(next_up(card("10S")), Some(card("JS")));
    assert_eq!(next_up(card("KS")), None);
    assert_eq!(next_down(card("2S")), Some(card("AS")));
    assert_eq!(next_down(card("AS")), None);
}

#[test]
fn kings_removed_cards_set_aside_cards_and_played_cards_make_certain_stops() {
    let mut r = runs(5, 8, &["8D"], true);
    r.set_aside(card("7H"));
    assert!(r.is_certain_stop(card("KS")));
    assert!(r.is_certain_stop(card("7D")));
    assert!(r.is_certain_stop(card("6H")));
    assert!(!r.is_certain_stop(card("9S")));
    r.play(Seat::new(1), card("10S"), false).expect("lead");
    assert!(r.is_certain_stop(card("9S")));
}

#[test]
fn a_live_run_takes_only_its_next_card_from_any_seat() {
    let mut r = runs(4, 10, &["8D"], true);
    r.play(Seat::new(1), card("5C"), false).expect("lead");
    assert_eq!(
        r.check_play(Seat::new(3), card("7C")),
        Err(RuleViolation::NotInSequence {
            card: card("7C"),
            expected: card("6C")
        })
    );
    let played = r.play(Seat::new(3), card("6C"), false).expect("follow");
    assert!(!played.stop);
    assert_eq!(
        r.state(),
        RunState::Live {
            last: card("6C"),
            by: Seat::new(3)
        }
    );
}

#[test]
fn after_a_stop_only_its_player_leads() {
    let mut r = runs(4, 10, &["8D"], true);
    let played = r.play(Seat::new(1), card("7D"), false).expect("lead");
    assert!(played.stop);
    assert_eq!(
        r.check_play(Seat::new(2), card("2S")),
        Err(RuleViolation::NotYourTurn {
            expected: Seat::new(1),
            got: Seat::new(2)
        })
    );
    r.play(Seat::new(1), card("QS"), false).expect("a new lead");
}

#[test]
fn a_declared_stop_marks_the_next_card_dead_and_playing_it_later_is_a_missed_play() {
    let mut r = runs(4, 10, &["8D"], true);
    r.play(Seat::new(1), card("2C"), false).expect("lead");
    r.play(Seat::new(2), card("3C"), false).expect("follow");
    assert_eq!(r.declare_stop(), Ok(Some((card("3C"), Seat::new(2)))));
    assert_eq!(r.leader(), Some(Seat::new(2)));
    // 4♣ is now taken to be in the spare hand; a 4♣ played later proves the miss.
    r.play(Seat::new(2), card("9S"), false).expect("lead");
    r.play(Seat::new(0), card("10S"), false).expect("follow");
    r.declare_stop().expect("declared");
    let played = r.play(Seat::new(0), card("4C"), false).expect("lead");
    assert_eq!(
        played.missed,
        Some(MissedPlay {
            seat: Seat::new(0),
            card: card("4C"),
            stopped_after: card("3C")
        })
    );
    assert_eq!(r.missed_plays().len(), 1);
}

#[test]
fn a_card_played_in_lieu_of_a_stop_carries_the_run_on() {
    let mut r = runs(4, 10, &["8D"], true);
    r.play(Seat::new(1), card("8S"), false).expect("lead");
    r.play(Seat::new(2), card("9S"), false).expect("follow");
    assert_eq!(r.missing_after_stop(), None);
    r.declare_stop().expect("stop");
    assert_eq!(r.missing_after_stop(), Some(card("10S")));
    let played = r
        .play_in_lieu(Seat::new(3), card("9D"))
        .expect("valid")
        .expect("after a stop");
    assert!(!played.stop);
    assert_eq!(
        r.state(),
        RunState::Live {
            last: card("10S"),
            by: Seat::new(3)
        }
    );
    r.play(Seat::new(3), card("JS"), false).expect("the knave follows on");
    assert!(!r.played().contains(card("10S")));
}

#[test]
fn without_a_spare_hand_a_stop_cannot_be_declared() {
    let mut r = runs(4, 12, &["8D", "2H"], false);
    r.play(Seat::new(1), card("4S"), false).expect("lead");
    let before = r.clone();
    assert_eq!(r.declare_stop(), Err(RuleViolation::RunContinues { next: card("5S") }));
    assert_eq!(r, before);
}

#[test]
fn a_seat_cannot_play_more_cards_than_it_was_dealt() {
    let mut r = runs(3, 1, &[], true);
    r.play(Seat::new(1), card("KS"), false).expect("lead");
    assert_eq!(
        r.check_play(Seat::new(1), card("KH")),
        Err(RuleViolation::MoreCardsThanDealt {
            seat: Seat::new(1),
            dealt: 1
        })
    );
}

#[test]
fn cards_dealt_round_from_the_dealers_left_give_the_first_seats_the_odd_cards() {
    let hands = even_hands(48, 5, Seat::new(3));
    assert_eq!(hands.values(), [10, 10, 9, 9, 10]);
    assert_eq!(hands.values().iter().map(|&n| usize::from(n)).sum::<usize>(), 48);
    assert_eq!(even_hands(50, 5, Seat::new(0)).values(), [10; 5]);
}

#[test]
fn going_out_collects_a_chip_a_card_with_an_exemption_and_a_double() {
    let payments = per_card_payments(Seat::new(0), &[0, 3, 2, 4], Some(Seat::new(2)), Some(Seat::new(3)));
    assert_eq!(
        payments,
        [transfer(seat(1), seat(0), 3), transfer(seat(3), seat(0), 8),]
    );
}

#[test]
fn holdings_always_sum_to_what_the_bank_issued() {
    let mut h = Holdings::new(2);
    let opening = ChipMovement::new(
        None,
        "opening",
        vec![
            transfer(Account::Bank, seat(0), 10),
            transfer(Account::Bank, seat(1), 10),
        ],
    )
    .expect("moves chips");
    h.apply(&opening);
    let stake = ChipMovement::new(Some(1), "stake", vec![transfer(seat(0), Account::Pool(Pool::Pope), 6)])
        .expect("moves chips");
    h.apply(&stake);
    assert_eq!(h.on_table(), h.issued());
    assert_eq!(h.issued(), Chips::new(20));
    assert_eq!(h.pool(Pool::Pope), Chips::new(6));
    let settlement = stake.settlement();
    assert_eq!(settlement.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
    assert_eq!(h.iter().map(|(_, c)| c).sum::<Chips>(), Chips::ZERO);
    assert!(ChipMovement::new(Some(1), "nothing", vec![transfer(Account::Bank, Account::Bank, 3)]).is_none());
}

#[test]
fn a_seat_beyond_the_table_is_refused_and_winners_wait_for_the_end() {
    assert_eq!(Seat::new(2).check(3), Ok(Seat::new(2)));
    assert_eq!(
        Seat::new(3).check(3).map_err(RuleViolation::from),
        Err(RuleViolation::NoSuchSeat {
            seat: Seat::new(3),
            players: 3
        })
    );
    assert_eq!(not_expected(true, "play", Vec::new), RuleViolation::GameFinished);
    let mut h = Holdings::new(2);
    h.apply(&opening_chips(2, 5).expect("moves chips"));
    assert!(h.winners(false).is_empty());
    assert_eq!(h.winners(true), [Seat::new(0), Seat::new(1)]);
    assert_eq!(
        h.board([Pool::Game]),
        [PoolBalance {
            pool: Pool::Game,
            chips: Chips::ZERO
        }]
    );
}

#[test]
fn the_opening_chips_are_written_exactly_as_stored_logs_hold_them() {
    let opening = opening_chips(2, 5).expect("moves chips");
    assert_eq!(
        serde_json::to_string(&opening).expect("json"),
        r#"{"deal":null,"memo":"opening chips","payments":[{"from":"bank","to":{"seat":0},"amount":5},{"from":"bank","to":{"seat":1},"amount":5}]}"#
    );
}

#[test]
fn a_stops_table_needs_three_to_eight_players_a_seated_dealer_and_bounded_rounds_and_chips() {
    assert_eq!(check_table(3, 3..=8, 2, 1, 100), Ok(()));
    assert_eq!(
        check_table(2, 3..=8, 0, 1, 100),
        Err(SetupError::PlayerCount { got: 2, min: 3, max: 8 })
    );
    for (first_dealer, rounds, chips, option) in [
        (3, 1, 100, "first_dealer"),
        (0, 0, 100, "rounds"),
        (0, 51, 100, "rounds"),
        (0, 1, 1_000_001, "opening_chips"),
    ] {
        assert!(
            matches!(
                check_table(3, 3..=8, first_dealer, rounds, chips),
                Err(SetupError::InvalidOption { option: o, .. }) if o == option
            ),
            "{option}"
        );
    }
}

#[test]
fn holdings_are_kept_by_ledger_names_and_read_back_whole() {
    let mut h = Holdings::new(2);
    h.apply(&opening_chips(2, 5).expect("moves chips"));
    h.apply(
        &ChipMovement::new(Some(1), "stake", vec![transfer(seat(1), Account::Pool(Pool::Pope), 2)])
            .expect("moves chips"),
    );
    let json = serde_json::to_string(&h).expect("json");
    assert_eq!(json, r#"{"bank":-10,"pool:pope":2,"seat:0":5,"seat:1":3}"#);
    assert_eq!(serde_json::from_str::<Holdings>(&json).expect("reads back"), h);
    assert!(serde_json::from_str::<Holdings>(r#"{"purse":1}"#).is_err());
}
