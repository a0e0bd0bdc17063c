//! What the stops games' random players (`pope_joan::sim`, `spin::sim`, `newmarket::sim`) share:
//! dealing the hands themselves (the engine never sees them) and choosing the next card as a
//! table would, from those hands.

use crate::cards::Card;
use crate::deck::{shuffle_with, SplitMix64};
use crate::seat::Seat;

/// The hands of a deal from a pack of the deck less the cards `out`, shuffled by `rng`: `sizes`
/// cards to each seat in turn. None when the pack is too small for the hands.
pub(crate) fn deal_hands(out: impl Fn(Card) -> bool, sizes: &[u8], rng: &mut SplitMix64) -> Option<Vec<Vec<Card>>> {
    let mut pack: Vec<Card> = Card::deck().filter(|&c| !out(c)).collect();
    shuffle_with(&mut pack, rng);
    let mut rest = pack.as_slice();
    sizes
        .iter()
        .map(|&n| {
            let (hand, more) = rest.split_at_checked(usize::from(n))?;
            rest = more;
            Some(hand.to_vec())
        })
        .collect()
}

/// The card a table plays next when every card is dealt: a random one from the hand of the seat
/// to lead (`to_act`), or else `next_card` (the next card up of the live run) from the seat
/// holding it. None when nobody can act, or the seat to lead has no cards.
pub(crate) fn next_play(
    to_act: Option<Seat>,
    next_card: Option<Card>,
    hands: &[Vec<Card>],
    rng: &mut SplitMix64,
) -> Option<(Seat, Card)> {
    match (to_act, next_card) {
        (Some(leader), _) => {
            let hand = hands.get(leader.index())?;
            (!hand.is_empty()).then(|| (leader, hand[rng.index(hand.len())]))
        }
        (None, Some(next)) => {
            let holder = Seat::all(hands.len()).find(|s| hands[s.index()].contains(&next))?;
            Some((holder, next))
        }
        (None, None) => None,
    }
}
