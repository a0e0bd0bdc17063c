//! Tridge's 40-card pack and its four card orders (`NOTES.md`, Tridge).
//!
//! A♠ is always the 1st trump and A♣ always the 3rd; neither ever counts as a spade or a club.
//! The 2nd trump (the manille) is the 7 of a red trump suit or the 2 of a black one; a red
//! trump suit's own ace is the 4th trump. Outside trumps, red suits run K Q J A 2 … 7 and black
//! suits K Q J 7 … 2.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, Rank, Suit};

pub const ACE_OF_SPADES: Card = Card::new(Rank::Ace, Suit::Spades);
pub const ACE_OF_CLUBS: Card = Card::new(Rank::Ace, Suit::Clubs);

const RANKS: [Rank; 10] = [
    Rank::Ace,
    Rank::King,
    Rank::Queen,
    Rank::Jack,
    Rank::Seven,
    Rank::Six,
    Rank::Five,
    Rank::Four,
    Rank::Three,
    Rank::Two,
];

/// The 40 cards of the pack (no 10s, 9s or 8s).
pub fn pack() -> impl Iterator<Item = Card> {
    Suit::ALL
        .into_iter()
        .flat_map(|suit| RANKS.into_iter().map(move |rank| Card::new(rank, suit)))
}

/// True for the cards of the pack.
pub fn in_pack(card: Card) -> bool {
    !matches!(card.rank, Rank::Eight | Rank::Nine | Rank::Ten)
}

/// Red suits are the long ones (12 trumps), black the short ones (11).
pub fn is_red(suit: Suit) -> bool {
    matches!(suit, Suit::Diamonds | Suit::Hearts)
}

/// The "suit" a card belongs to for following: all trumps are one suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeFollowSuit)]
pub enum FollowSuit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
    Trumps,
}

impl From<FollowSuit> for usize {
    fn from(f: FollowSuit) -> usize {
        match f {
            FollowSuit::Clubs => 0,
            FollowSuit::Diamonds => 1,
            FollowSuit::Hearts => 2,
            FollowSuit::Spades => 3,
            FollowSuit::Trumps => 4,
        }
    }
}

impl FollowSuit {
    fn of_suit(suit: Suit) -> FollowSuit {
        match suit {
            Suit::Clubs => FollowSuit::Clubs,
            Suit::Diamonds => FollowSuit::Diamonds,
            Suit::Hearts => FollowSuit::Hearts,
            Suit::Spades => FollowSuit::Spades,
        }
    }
}

/// The 2nd trump: the 7 of a red trump suit, the 2 of a black one.
pub fn manille(trumps: Suit) -> Card {
    if is_red(trumps) {
        Card::new(Rank::Seven, trumps)
    } else {
        Card::new(Rank::Two, trumps)
    }
}

/// True when `card` is a trump with `trumps` named.
pub fn is_trump(card: Card, trumps: Suit) -> bool {
    card == ACE_OF_SPADES || card == ACE_OF_CLUBS || card.suit == trumps
}

/// The suit a card follows as.
pub fn follow_suit(card: Card, trumps: Suit) -> FollowSuit {
    if is_trump(card, trumps) {
        FollowSuit::Trumps
    } else {
        FollowSuit::of_suit(card.suit)
    }
}

/// The trumps, highest first.
pub fn trump_order(trumps: Suit) -> Vec<Card> {
    let c = |rank| Card::new(rank, trumps);
    let mut order = vec![ACE_OF_SPADES, manille(trumps), ACE_OF_CLUBS];
    if is_red(trumps) {
        order.extend([Rank::Ace, Rank::King, Rank::Queen, Rank::Jack].map(c));
        order.extend([Rank::Two, Rank::Three, Rank::Four, Rank::Five, Rank::Six].map(c));
    } else {
        order.extend([Rank::King, Rank::Queen, Rank::Jack].map(c));
        order.extend([Rank::Seven, Rank::Six, Rank::Five, Rank::Four, Rank::Three].map(c));
    }
    order
}

/// A suit that is not trumps, highest first (the black aces belong to the trumps).
pub fn plain_order(suit: Suit) -> Vec<Card> {
    let c = |rank| Card::new(rank, suit);
    if is_red(suit) {
        [
            Rank::King,
            Rank::Queen,
            Rank::Jack,
            Rank::Ace,
            Rank::Two,
            Rank::Three,
            Rank::Four,
            Rank::Five,
            Rank::Six,
            Rank::Seven,
        ]
        .map(c)
        .to_vec()
    } else {
        [
            Rank::King,
            Rank::Queen,
            Rank::Jack,
            Rank::Seven,
            Rank::Six,
            Rank::Five,
            Rank::Four,
            Rank::Three,
            Rank::Two,
        ]
        .map(c)
        .to_vec()
    }
}

/// A card's strength within the suit it follows as: higher beats lower.
pub fn strength(card: Card, trumps: Suit) -> usize {
    let order = if is_trump(card, trumps) {
        trump_order(trumps)
    } else {
        plain_order(card.suit)
    };
    order.iter().position(|c| *c == card).map_or(0, |i| order.len() - i)
}

/// The index of the winning card among `cards` (the first led), with `trumps` named:
/// the highest trump, else the highest card of the suit led.
pub fn trick_winner(cards: &[Card], trumps: Suit) -> Option<usize> {
    let led = follow_suit(*cards.first()?, trumps);
    let key = |c: Card| (is_trump(c, trumps), follow_suit(c, trumps) == led, strength(c, trumps));
    let mut best = 0;
    for (i, c) in cards.iter().enumerate().skip(1) {
        if key(*c) > key(cards[best]) {
            best = i;
        }
    }
    Some(best)
}

/// The cards honours are paid for, in order: A♠, the manille, A♣, and a red suit's ace.
pub fn honour_cards(trumps: Suit) -> Vec<Card> {
    let mut cards = vec![ACE_OF_SPADES, manille(trumps), ACE_OF_CLUBS];
    if is_red(trumps) {
        cards.push(Card::new(Rank::Ace, trumps));
    }
    cards
}

/// The most honours the trumps can give: 4 red, 3 black.
pub fn max_honours(trumps: Suit) -> u8 {
    if is_red(trumps) {
        4
    } else {
        3
    }
}

/// Consecutive top trumps held from A♠ (0 without A♠).
pub fn honours(held: impl Fn(Card) -> bool, trumps: Suit) -> u8 {
    honour_cards(trumps).into_iter().take_while(|c| held(*c)).count() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(list: &str) -> Vec<Card> {
        list.split_whitespace().map(|c| c.parse().expect("card")).collect()
    }

    #[test]
    fn the_pack_has_forty_cards_without_tens_nines_or_eights() {
        let pack: Vec<Card> = pack().collect();
        assert_eq!(pack.len(), 40);
        assert!(pack.iter().all(|c| in_pack(*c)));
        assert!(!in_pack("10H".parse().expect("card")));
        assert!(!in_pack("9S".parse().expect("card")));
    }

    #[test]
    fn diamonds_as_trumps_run_a_spades_seven_a_clubs_ace_k_q_j_2_to_6() {
        assert_eq!(
            trump_order(Suit::Diamonds),
            cards("AS 7D AC AD KD QD JD 2D 3D 4D 5D 6D")
        );
    }

    #[test]
    fn hearts_as_trumps_run_a_spades_seven_a_clubs_ace_k_q_j_2_to_6() {
        assert_eq!(trump_order(Suit::Hearts), cards("AS 7H AC AH KH QH JH 2H 3H 4H 5H 6H"));
    }

    #[test]
    fn spades_as_trumps_run_a_spades_two_a_clubs_k_q_j_7_down_to_3() {
        assert_eq!(trump_order(Suit::Spades), cards("AS 2S AC KS QS JS 7S 6S 5S 4S 3S"));
    }

    #[test]
    fn clubs_as_trumps_run_a_spades_two_a_clubs_k_q_j_7_down_to_3() {
        assert_eq!(trump_order(Suit::Clubs), cards("AS 2C AC KC QC JC 7C 6C 5C 4C 3C"));
    }

    #[test]
    fn plain_suits_run_k_q_j_then_red_ace_up_or_black_seven_down() {
        assert_eq!(plain_order(Suit::Hearts), cards("KH QH JH AH 2H 3H 4H 5H 6H 7H"));
        assert_eq!(plain_order(Suit::Diamonds), cards("KD QD JD AD 2D 3D 4D 5D 6D 7D"));
        assert_eq!(plain_order(Suit::Spades), cards("KS QS JS 7S 6S 5S 4S 3S 2S"));
        assert_eq!(plain_order(Suit::Clubs), cards("KC QC JC 7C 6C 5C 4C 3C 2C"));
    }

    #[test]
    fn every_card_of_the_pack_is_in_exactly_one_order_for_each_trump_suit() {
        for trumps in Suit::ALL {
            let mut all = trump_order(trumps);
            for suit in Suit::ALL.into_iter().filter(|s| *s != trumps) {
                all.extend(plain_order(suit));
            }
            all.sort();
            let mut pack: Vec<Card> = pack().collect();
            pack.sort();
            assert_eq!(all, pack, "{trumps}");
        }
    }

    #[test]
    fn the_black_aces_are_trumps_whatever_the_suit_and_never_spades_or_clubs() {
        for trumps in Suit::ALL {
            assert_eq!(follow_suit(ACE_OF_SPADES, trumps), FollowSuit::Trumps);
            assert_eq!(follow_suit(ACE_OF_CLUBS, trumps), FollowSuit::Trumps);
        }
        assert_eq!(
            follow_suit("KS".parse().expect("card"), Suit::Hearts),
            FollowSuit::Spades
        );
    }

    #[test]
    fn the_highest_trump_wins_else_the_highest_of_the_suit_led() {
        // Hearts trumps: a low trump beats the king led; A♣ beats the 7♥? No: the 7♥ is 2nd trump.
        assert_eq!(trick_winner(&cards("KS 6H QS"), Suit::Hearts), Some(1));
        assert_eq!(trick_winner(&cards("AC 7H AH"), Suit::Hearts), Some(1));
        // Diamonds led, not trumps: the 2♦ beats the 7♦, the K beats all.
        assert_eq!(trick_winner(&cards("7D 2D 5C"), Suit::Spades), Some(1));
        assert_eq!(trick_winner(&cards("7D KD 2D"), Suit::Spades), Some(1));
        // Spades not trumps (clubs are): the A♣ led is a trump and wins over spades.
        assert_eq!(trick_winner(&cards("AC KS QS"), Suit::Hearts), Some(0));
        // Clubs led, clubs not trumps: the 7♣ beats the 2♣.
        assert_eq!(trick_winner(&cards("2C 7C 3C"), Suit::Hearts), Some(1));
    }

    #[test]
    fn honours_count_consecutive_top_trumps_from_the_ace_of_spades() {
        let hand = cards("AS 7D AC AD KD");
        let held = |c: Card| hand.contains(&c);
        assert_eq!(honours(held, Suit::Diamonds), 4);
        assert_eq!(honours(held, Suit::Hearts), 1);
        let without = cards("7D AC AD");
        assert_eq!(honours(|c| without.contains(&c), Suit::Diamonds), 0);
        let black = cards("AS 2S AC KS");
        assert_eq!(honours(|c| black.contains(&c), Suit::Spades), 3);
        assert_eq!(max_honours(Suit::Spades), 3);
        assert_eq!(max_honours(Suit::Hearts), 4);
    }
}
