//! Refusals change nothing.

use super::*;

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
    declare_hearts_for_seat_1(&mut g);
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
