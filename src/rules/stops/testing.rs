//! Support for the stops games' property tests.

use super::Holdings;
use crate::ledger::{Balances, Booking};
use crate::rules::Game;

/// Replays `moves` on `game` as the store books them: the opening chips, then each move's
/// settlements (each naming its deal). Returns the replayed game and the ledger's balances.
pub(crate) fn replay_booked<G: Game>(mut game: G, moves: &[G::Move]) -> (G, Balances) {
    let mut ledger = Balances::default();
    for s in game.opening_settlements() {
        ledger.apply(&Booking::from_settlement(&s).expect("balanced"));
    }
    for mv in moves {
        let events = game.apply(mv).unwrap_or_else(|e| panic!("{mv:?} was refused: {e}"));
        for s in G::settlements(&events) {
            assert!(s.deal.is_some(), "{mv:?} booked {s:?} without its deal");
            ledger.apply(&Booking::from_settlement(&s).expect("balanced"));
        }
    }
    (game, ledger)
}

/// Asserts the ledger holds what `holdings` say for every account (the bank, seats and pools),
/// and sums to zero.
pub(crate) fn assert_ledger_matches(ledger: &Balances, holdings: &Holdings) {
    for (account, chips) in holdings.iter() {
        assert_eq!(ledger.of(&account), chips, "{account}");
    }
    assert_eq!(ledger.total(), crate::rules::Chips::ZERO);
}
