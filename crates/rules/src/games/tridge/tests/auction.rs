//! The auction and the all-pass paths.

use super::*;

#[test]
fn an_earlier_seat_holds_an_equal_bid_and_wins_the_auction() {
    let mut g = game(3);
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(
        &mut g,
        Move::Bid {
            seat: seat(2),
            bid: Bid::PlayMore,
        },
    );
    apply(&mut g, Move::Pass { seat: seat(0) });
    apply(
        &mut g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::PlayMore,
        },
    );
    let events = apply(&mut g, Move::Pass { seat: seat(2) });
    assert!(events.contains(&Event::AuctionWon {
        seat: seat(1),
        bid: Bid::PlayMore
    }));
    assert_eq!(g.view().phase, Phase::Declaring);
    assert_eq!(g.view().to_act, Some(seat(1)));
}

#[test]
fn no_tricks_after_everyone_passed_skips_the_players_exchange() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    apply(
        &mut g,
        Move::Bid {
            seat: seat(2),
            bid: Bid::NoTricks,
        },
    );
    apply(
        &mut g,
        Move::Declare {
            seat: seat(2),
            contract: Contract::NoTricks { trumps: Suit::Clubs },
        },
    );
    assert_eq!(g.view().phase, Phase::Defence);
    // Centre is seat 0 (the Player's left), Rear seat 1.
    assert_eq!(g.view().to_act, Some(seat(0)));
}

#[test]
fn the_fixed_trick_auction_takes_the_fewest_tricks_then_the_higher_suit() {
    let mut g = game(3);
    for s in [1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    apply(
        &mut g,
        Move::FixedBid {
            seat: seat(1),
            tricks: 2,
            trumps: Some(Suit::Hearts),
        },
    );
    let err = refused(
        &mut g,
        Move::FixedBid {
            seat: seat(2),
            tricks: 2,
            trumps: Some(Suit::Spades),
        },
    );
    assert_eq!(err.code(), "bid_too_low");
    apply(
        &mut g,
        Move::FixedBid {
            seat: seat(2),
            tricks: 2,
            trumps: Some(Suit::Diamonds),
        },
    );
    apply(&mut g, Move::Pass { seat: seat(0) });
    let events = apply(&mut g, Move::Pass { seat: seat(1) });
    let fixed = Contract::FixedTrick {
        tricks: 2,
        trumps: Suit::Diamonds,
    };
    assert!(events.contains(&Event::Declared {
        seat: seat(2),
        contract: fixed,
        trumps: Suit::Diamonds
    }));
    assert_eq!(g.view().phase, Phase::Playing, "no exchange for anyone");
    assert_eq!(g.view().stock_left, 13);
}

#[test]
fn everyone_passing_the_fixed_trick_auction_passes_the_deal_out() {
    let mut g = game(3);
    for s in [1, 2, 0, 1, 2, 0] {
        apply(&mut g, Move::Pass { seat: seat(s) });
    }
    assert_eq!(g.view().deal, 2);
    assert_eq!(g.view().funds.game_fund, chips(30));
}

#[test]
fn a_wrong_stock_count_voids_the_deal_and_moves_no_chips() {
    let mut g = game(3);
    declare_hearts_for_seat_1(&mut g);
    apply(
        &mut g,
        Move::Exchange {
            seat: seat(1),
            cards: 5,
        },
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
            cards: 8,
        },
    );
    let before = g.view().chips;
    let events = apply(&mut g, Move::CountStock { discards: 12, stock: 0 });
    assert!(events.contains(&Event::DealVoid { deal: 1 }));
    assert_eq!(g.view().chips, before);
    assert_eq!(g.view().deal, 2);
    assert!(g.score_sheet().deals[0].void);
}

#[test]
fn pass_out_is_offered_once_everyone_has_passed_not_before() {
    let mut g = game(3);
    let offered = |g: &Tridge| crate::legal::kinds(&g.view().legal_moves).contains(&"pass_out");
    assert!(!offered(&g), "nobody has passed yet");
    apply(&mut g, Move::Pass { seat: seat(1) });
    assert!(!offered(&g));
    apply(&mut g, Move::Pass { seat: seat(2) });
    apply(&mut g, Move::Pass { seat: seat(0) });
    assert!(offered(&g), "everyone passed");
    apply(&mut g, Move::PassOut);
    assert_eq!(g.view().deal, 2);
}
