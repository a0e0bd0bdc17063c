//! Random deals.

use proptest::prelude::*;

use super::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_deals_keep_every_booking_balanced_and_the_chip_total_constant(seed in any::<u64>(), four in any::<bool>(), deals in 1usize..8) {
        let players = if four { 4 } else { 3 };
        let mut g = game(players);
        let mut log = Vec::new();
        for i in 0..deals {
            log.extend(sim::random_deal(&mut g, seed.wrapping_add(i as u64)).expect("a legal deal"));
            prop_assert_eq!(g.chips_on_table(), chips(500 * players as i64));
            let f = g.view().funds;
            prop_assert!(f.game_fund <= f.cap);
        }
        // Replaying the log gives the identical state.
        let mut replay = game(players);
        let mut booked = BySeat::filled(players, Chips::ZERO);
        for mv in &log {
            let events = replay.apply(mv).expect("replays");
            for s in Tridge::settlements(&events) {
                prop_assert_eq!(s.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
                for (a, c) in s.postings {
                    if let Account::Seat(x) = a { booked[x] += c; }
                }
            }
        }
        prop_assert_eq!(&replay, &g);
        // The ledger's seat balances agree with the game's chips.
        let opening = 500 - 30;
        for (s, c) in booked.iter() {
            prop_assert_eq!(Chips::new(opening) + *c, g.view().chips[s.index()]);
        }
    }
}
