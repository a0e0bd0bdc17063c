//! Tridge's tests, by concept; the helpers they share and the set-up.

mod auction;
mod funds;
mod in_comer;
mod play;
mod random;
mod refusals;
mod session;
mod settlement;
mod wire;

use super::*;

fn seat(n: u8) -> Seat {
    Seat::new(n)
}

fn card(s: &str) -> Card {
    s.parse().expect("card")
}

fn chips(n: i64) -> Chips {
    Chips::new(n)
}

fn game(players: usize) -> Tridge {
    Tridge::new(players, Options::default()).expect("game")
}

#[track_caller]
fn apply(g: &mut Tridge, mv: Move) -> Vec<Event> {
    match g.apply(&mv) {
        Ok(events) => {
            assert_balanced(&events);
            assert_eq!(g.chips_on_table(), chips(500 * g.players() as i64), "chips conserved");
            events.into_vec()
        }
        Err(e) => panic!("{mv:?} refused: {e}"),
    }
}

/// A refused move: returns the violation and asserts nothing changed.
#[track_caller]
fn refused(g: &mut Tridge, mv: Move) -> RuleViolation {
    let before = g.clone();
    let err = g.apply(&mv).expect_err("refused");
    assert_eq!(*g, before, "state unchanged after {mv:?}");
    err
}

fn assert_balanced(events: &[Event]) {
    for s in Tridge::settlements(events) {
        let sum: Chips = s.postings.iter().map(|(_, c)| *c).sum();
        assert_eq!(sum, Chips::ZERO, "{}", s.memo);
        assert!(s.deal.is_some());
        assert!(!s.memo.is_empty());
    }
}

/// Net movement per seat and per fund of the bookings of `deal` among `events`.
fn deltas(events: &[Event], deal: u16, players: usize) -> (Vec<i64>, i64, i64) {
    let mut seats = vec![0; players];
    let (mut f, mut w) = (0, 0);
    for e in events {
        if let Event::ChipsMoved { deal: d, transfers, .. } = e {
            if *d != deal {
                continue;
            }
            for t in transfers {
                for (party, sign) in [(t.from, -1), (t.to, 1)] {
                    let amount = sign * t.amount.get();
                    match party {
                        Account::Seat(s) => seats[s.index()] += amount,
                        Account::GameFund => f += amount,
                        Account::WidowsFund => w += amount,
                        Account::Reserve(_) | Account::Bank | Account::Pool(_) => {}
                    }
                }
            }
        }
    }
    (seats, f, w)
}

fn result<const N: usize>(player: u8, contract: Contract, honours: u8, tricks: [u8; N]) -> Move {
    Move::Result {
        player: seat(player),
        contract,
        honours: Some(honours),
        top_trumps: None,
        tricks: tricks.to_vec(),
        stopped_after_five: false,
        all_tricks_after_fifth: false,
        in_comer: false,
    }
}

/// `mv`, a result, with the Player undertaking all tricks after the fifth.
fn after_fifth(mut mv: Move) -> Move {
    if let Move::Result {
        all_tricks_after_fifth, ..
    } = &mut mv
    {
        *all_tricks_after_fifth = true;
    }
    mv
}

/// Seat 1 wins the auction with Play (the others pass) and declares hearts.
fn declare_hearts_for_seat_1(g: &mut Tridge) {
    apply(
        g,
        Move::Bid {
            seat: seat(1),
            bid: Bid::Play,
        },
    );
    apply(g, Move::Pass { seat: seat(2) });
    apply(g, Move::Pass { seat: seat(0) });
    apply(
        g,
        Move::Declare {
            seat: seat(1),
            contract: hearts(),
        },
    );
}

fn hearts() -> Contract {
    Contract::Play { trumps: Suit::Hearts }
}

#[test]
fn a_new_table_seeds_both_funds_and_books_them_from_opening_chips() {
    let g = game(3);
    let v = g.view();
    assert_eq!(v.funds.game_fund, chips(15));
    assert_eq!(v.funds.widows_fund, chips(75));
    assert_eq!(v.funds.cap, chips(60));
    assert_eq!(v.chips, vec![chips(470); 3]);
    let opening = g.opening_settlements();
    assert_eq!(opening.len(), 3);
    for s in &opening {
        assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
    }
    // The bank issues 3 × 500 (the ledger books it as one posting: a booking merges an
    // account's postings).
    let issued: Chips = opening[0]
        .postings
        .iter()
        .filter(|(account, _)| *account == Account::Bank)
        .map(|(_, c)| *c)
        .sum();
    assert_eq!(issued, chips(-1500));
    let four = game(4);
    assert_eq!(four.view().funds.game_fund, chips(20));
    assert_eq!(four.view().sitting_out, Some(seat(0)));
}

#[test]
fn options_out_of_range_are_refused() {
    for options in [
        Options {
            opening_chips: 0,
            ..Options::default()
        },
        Options {
            fund_stake: 0,
            ..Options::default()
        },
        Options {
            fund_cap_multiple: 0,
            ..Options::default()
        },
        Options {
            first_dealer: 3,
            ..Options::default()
        },
    ] {
        assert!(matches!(Tridge::new(3, options), Err(SetupError::InvalidOption { .. })));
    }
    assert!(matches!(
        Tridge::new(5, Options::default()),
        Err(SetupError::PlayerCount { .. })
    ));
}

#[test]
fn the_lead_is_the_dealers_left_and_bids_first() {
    let g = game(3);
    let v = g.view();
    assert_eq!((v.dealer, v.lead, v.to_act), (seat(0), seat(1), Some(seat(1))));
}

/// Plays each trick's cards in turn (three a trick, or four with an In-comer).
fn play_tricks<const N: usize>(g: &mut Tridge, tricks: &[[&str; N]]) -> Vec<Event> {
    let mut events = Vec::new();
    for cards in tricks {
        for c in cards {
            let s = g.view().to_act.expect("to act");
            events.extend(apply(g, Move::Play { seat: s, card: card(c) }));
        }
    }
    events
}
