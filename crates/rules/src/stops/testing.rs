//! Support for the stops games' property tests: replaying moves as the store books them, whole
//! random games (from each game's `sim`) replayed.

use super::{Holdings, Rules, Table};
use std::collections::BTreeMap;

use crate::deck::SplitMix64;
use crate::Game;
use crate::{Account, Chips, Settlement};

/// Replays `moves` on `game` as the store books them: the opening chips, then each move's
/// settlements (each naming its deal). Returns the replayed game and the ledger's balances.
pub(crate) fn replay_booked<G: Game>(mut game: G, moves: &[G::Move]) -> (G, Balances) {
    let mut ledger = Balances::default();
    for s in game.opening_settlements() {
        ledger.apply(&s);
    }
    for mv in moves {
        let events = game.apply(mv).unwrap_or_else(|e| panic!("{mv:?} was refused: {e}"));
        for s in G::settlements(&events) {
            assert!(s.deal.is_some(), "{mv:?} booked {s:?} without its deal");
            ledger.apply(&s);
        }
    }
    (game, ledger)
}

/// What each account holds after the settlements applied, as the ledger would book them (the
/// ledger is a floor above the rules: its own tests book settlements through `Booking`).
#[derive(Debug, Default)]
pub(crate) struct Balances(BTreeMap<Account, Chips>);

impl Balances {
    /// Applies a settlement, which must balance as a booking must.
    #[track_caller]
    pub(crate) fn apply(&mut self, settlement: &Settlement) {
        assert!(
            settlement.postings.len() >= 2,
            "{settlement:?} has fewer than two postings"
        );
        let sum: Chips = settlement.postings.iter().map(|(_, c)| *c).sum();
        assert_eq!(sum, Chips::ZERO, "{settlement:?} does not balance");
        for (account, amount) in &settlement.postings {
            *self.0.entry(*account).or_default() += *amount;
        }
    }

    pub(crate) fn of(&self, account: &Account) -> Chips {
        self.0.get(account).copied().unwrap_or_default()
    }

    pub(crate) fn total(&self) -> Chips {
        self.0.values().copied().sum()
    }
}

/// Asserts the ledger holds what `holdings` say for every account (the bank, seats and pools),
/// and sums to zero.
pub(crate) fn assert_ledger_matches(ledger: &Balances, holdings: &Holdings) {
    for (account, chips) in holdings.iter() {
        assert_eq!(ledger.of(&account), chips, "{account}");
    }
    assert_eq!(ledger.total(), crate::Chips::ZERO);
}

/// Asserts the chips on the table (seats plus pools) are what the bank issued: 100 a seat.
#[track_caller]
pub(crate) fn assert_chips_constant<R: Rules>(game: &Table<R>) {
    let h = game.holdings();
    assert_eq!(h.on_table(), h.issued());
    assert_eq!(h.issued(), crate::Chips::new(100 * game.players() as i64));
}

/// Plays a whole game of `players` deal by deal with `random_deal` (seeded by `seed`), checking
/// each deal with `check_deal` and the chips after it, then replays every move as the store books
/// them: the replay is the same game, and the ledger holds what the game holds.
pub(crate) fn assert_random_game_replays<R: Rules>(
    players: usize,
    seed: u64,
    random_deal: impl Fn(&mut Table<R>, &mut SplitMix64) -> Vec<R::Move>,
    check_deal: impl Fn(&Table<R>, &[R::Move]),
) {
    let new = || Table::<R>::new(players, R::Options::default()).expect("a valid set-up");
    let mut g = new();
    let mut rng = SplitMix64::new(seed);
    let mut all = Vec::new();
    while !g.is_finished() {
        let moves = random_deal(&mut g, &mut rng);
        assert_chips_constant(&g);
        check_deal(&g, &moves);
        all.extend(moves);
    }
    let (replay, ledger) = replay_booked(new(), &all);
    assert_eq!(&replay, &g);
    assert_ledger_matches(&ledger, g.holdings());
}
