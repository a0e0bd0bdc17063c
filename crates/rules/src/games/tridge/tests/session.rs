//! The end of the session: the Widow's Fund split or left.

use super::*;

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
