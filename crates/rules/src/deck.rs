//! Seeded shuffling and dealing, for reproducible deals (simulations, benchmarks, tests, and a
//! server that deals for the table).
//!
//! Invariants: the same seed and the same input give the same order on every platform and in
//! every build (only wrapping `u64` arithmetic, no floats, no `usize`-width dependence in the
//! generator); a shuffle is a permutation of its input; nothing here reads a clock or the OS.
//! Any game's card list can be shuffled with [`shuffle`]: the 52-card pack, Tridge's 40 cards,
//! the 64-card Squares deck.
//!
//! Not for gambling-grade secrecy: SplitMix64 is predictable from one output. A seed chosen
//! by the server and disclosed after the deal is the intended use.

use super::cards::Card;
use super::seat::BySeat;

/// The SplitMix64 generator (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014; the reference C is Vigna's `splitmix64.c`).
///
/// The state advances by the odd "golden gamma" 0x9E3779B97F4A7C15 and each output is the
/// state through a 64-bit finaliser, so every seed, 0 included, gives a full-period
/// (2^64) stream. Small, fast and statistically sound for shuffling cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    /// A generator whose stream is fixed by `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(Self::GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..bound`; 0 when `bound` is 0.
    ///
    /// Lemire's multiply-and-shift with rejection ("Fast random integer generation in an
    /// interval", 2019), so there is no modulo bias.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        if (m as u64) < bound {
            // Values of the low word below this threshold would over-represent some results.
            let threshold = bound.wrapping_neg() % bound;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform index into a slice of `len` items; 0 when `len` is 0.
    pub fn index(&mut self, len: usize) -> usize {
        // `len` fits in u64 and the result is below it, so both conversions are lossless.
        self.below(len as u64) as usize
    }
}

/// Shuffles `items` in place with the generator's stream (Fisher–Yates, Durstenfeld's form).
pub fn shuffle_with<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        let j = rng.index(i + 1);
        items.swap(i, j);
    }
}

/// Shuffles `items` in place; the order depends only on `seed` and the input order.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    shuffle_with(items, &mut SplitMix64::new(seed));
}

/// The 52-card pack in the order `seed` shuffles it (from `Card::deck()`'s order).
pub fn shuffled(seed: u64) -> Vec<Card> {
    let mut pack: Vec<Card> = Card::deck().collect();
    shuffle(&mut pack, seed);
    pack
}

/// Deals `hand_size` cards to each of `players` seats from the top of `pack`, one card at a
/// time round the table starting with seat 0, and returns the hands and the rest of the pack
/// (its next card first). `None` when the pack is too small.
pub fn deal_from<T>(pack: Vec<T>, players: usize, hand_size: usize) -> Option<(BySeat<Vec<T>>, Vec<T>)> {
    let needed = players.checked_mul(hand_size)?;
    if needed > pack.len() {
        return None;
    }
    let mut hands: Vec<Vec<T>> = (0..players).map(|_| Vec::with_capacity(hand_size)).collect();
    let mut cards = pack.into_iter();
    for (i, card) in cards.by_ref().take(needed).enumerate() {
        hands[i % players].push(card);
    }
    Some((BySeat::from_vec(hands), cards.collect()))
}

/// Shuffles the 52-card pack with `seed` and deals `hand_size` cards to each seat (see
/// [`deal_from`]). `None` when `players × hand_size` exceeds 52.
pub fn deal(seed: u64, players: usize, hand_size: usize) -> Option<(BySeat<Vec<Card>>, Vec<Card>)> {
    deal_from(shuffled(seed), players, hand_size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::CardSet;
    use crate::seat::Seat;

    #[test]
    fn the_generator_matches_the_reference_splitmix64_outputs() {
        // Published outputs of Vigna's splitmix64.c.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 16_294_208_416_658_607_535);
        assert_eq!(rng.next_u64(), 7_960_286_522_194_355_700);
        assert_eq!(rng.next_u64(), 487_617_019_471_545_679);
        assert_eq!(SplitMix64::new(42).next_u64(), 13_679_457_532_755_275_413);
    }

    #[test]
    fn numbers_below_a_bound_stay_below_it() {
        let mut rng = SplitMix64::new(7);
        for bound in [1, 2, 3, 52, 1000, u64::MAX] {
            for _ in 0..200 {
                assert!(rng.below(bound) < bound);
            }
        }
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.index(0), 0);
    }

    #[test]
    fn a_shuffled_pack_holds_all_52_cards_once() {
        for seed in [0, 1, u64::MAX, 0xDEA1] {
            let pack = shuffled(seed);
            assert_eq!(pack.len(), 52);
            assert_eq!(pack.iter().copied().collect::<CardSet>().len(), 52);
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_order_and_another_seed_another() {
        assert_eq!(shuffled(2024), shuffled(2024));
        assert_ne!(shuffled(2024), shuffled(2025));
        assert_ne!(shuffled(0), Card::deck().collect::<Vec<_>>());
    }

    #[test]
    fn any_list_can_be_shuffled_such_as_a_40_card_pack() {
        // Tridge's pack: no 8s, 9s or 10s.
        let tridge: Vec<Card> = Card::deck().filter(|c| !(8..=10).contains(&c.rank.value())).collect();
        let mut pack = tridge.clone();
        shuffle(&mut pack, 99);
        assert_ne!(pack, tridge);
        let mut sorted = pack.clone();
        sorted.sort();
        let mut expected = tridge;
        expected.sort();
        assert_eq!(sorted, expected);

        let mut empty: [u8; 0] = [];
        shuffle(&mut empty, 1);
        let mut one = [7];
        shuffle(&mut one, 1);
        assert_eq!(one, [7]);
    }

    #[test]
    fn every_arrangement_of_three_items_is_about_equally_likely() {
        let mut counts = std::collections::HashMap::new();
        let mut rng = SplitMix64::new(5);
        let rounds = 6000;
        for _ in 0..rounds {
            let mut items = [0u8, 1, 2];
            shuffle_with(&mut items, &mut rng);
            *counts.entry(items).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 6);
        // Expected 1000 each; a fair shuffle stays well inside ±150 (about 4.7 sigma).
        for (arrangement, n) in counts {
            assert!(
                (850..=1150).contains(&n),
                "{arrangement:?} came up {n} times in {rounds}"
            );
        }
    }

    #[test]
    fn a_deal_gives_each_seat_its_hand_and_keeps_the_rest_in_order() {
        let pack = shuffled(3);
        let (hands, rest) = deal(3, 4, 5).expect("20 of 52 cards");
        assert_eq!(hands.len(), 4);
        assert!(hands.values().iter().all(|h| h.len() == 5));
        // One card at a time round the table.
        assert_eq!(hands[Seat::new(0)][..2], [pack[0], pack[4]]);
        assert_eq!(hands[Seat::new(3)][0], pack[3]);
        assert_eq!(rest, pack[20..]);
        let all: CardSet = hands.values().iter().flatten().chain(&rest).copied().collect();
        assert_eq!(all.len(), 52);
    }

    #[test]
    fn a_deal_larger_than_the_pack_is_refused() {
        assert!(deal(1, 4, 13).is_some_and(|(_, rest)| rest.is_empty()));
        assert!(deal(1, 4, 14).is_none());
        assert!(deal_from(vec![1, 2, 3], 2, 2).is_none());
        assert!(deal(1, usize::MAX, 2).is_none());
    }
}
