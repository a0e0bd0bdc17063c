//! Support for the stops games' property tests.

use super::Holdings;
use crate::ledger::{Balances, Booking};
use crate::rules::{Account, Game};

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

/// Asserts the ledger holds what `holdings` say for every seat and pool, and sums to zero.
pub(crate) fn assert_ledger_matches(ledger: &Balances, holdings: &Holdings) {
    for (seat, &chips) in holdings.seats.iter() {
        assert_eq!(ledger.of(&Account::Seat(seat)), chips, "{seat}");
    }
    for (pool, &chips) in &holdings.pools {
        assert_eq!(ledger.of(&Account::Pool(*pool)), chips, "{pool:?}");
    }
    assert_eq!(ledger.total(), crate::rules::Chips::ZERO);
}
