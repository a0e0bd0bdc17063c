//! The French-suited 52-card pack shared by the trick and stops games.
//!
//! A `Card` is a plain value; which cards a game uses and how they rank is the game's business
//! (Tridge drops the 8s, 9s and 10s and reorders the rest, Pope Joan plays aces low). The
//! notation is what a person types on a phone: rank then suit, `QS`, `10H` (or `TH`), `A♠`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A suit, in bridge order (clubs lowest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// Position in `ALL`, used for bit sets.
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    pub const fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    fn from_char(c: char) -> Option<Suit> {
        match c {
            'C' | 'c' | '♣' | '♧' => Some(Suit::Clubs),
            'D' | 'd' | '♦' | '♢' => Some(Suit::Diamonds),
            'H' | 'h' | '♥' | '♡' => Some(Suit::Hearts),
            'S' | 's' | '♠' | '♤' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Suit::Clubs => "clubs",
            Suit::Diamonds => "diamonds",
            Suit::Hearts => "hearts",
            Suit::Spades => "spades",
        };
        f.write_str(name)
    }
}

/// A rank with the ace high; games with another order map ranks themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    Two = 2,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// 2 for the two up to 14 for the ace.
    pub const fn value(self) -> u8 {
        self as u8
    }

    fn from_text(s: &str) -> Option<Rank> {
        let rank = match s.to_ascii_uppercase().as_str() {
            "2" => Rank::Two,
            "3" => Rank::Three,
            "4" => Rank::Four,
            "5" => Rank::Five,
            "6" => Rank::Six,
            "7" => Rank::Seven,
            "8" => Rank::Eight,
            "9" => Rank::Nine,
            "10" | "T" => Rank::Ten,
            "J" => Rank::Jack,
            "Q" => Rank::Queen,
            "K" => Rank::King,
            "A" => Rank::Ace,
            _ => return None,
        };
        Some(rank)
    }

    const fn text(self) -> &'static str {
        match self {
            Rank::Two => "2",
            Rank::Three => "3",
            Rank::Four => "4",
            Rank::Five => "5",
            Rank::Six => "6",
            Rank::Seven => "7",
            Rank::Eight => "8",
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Ace => "A",
        }
    }
}

/// One card of the 52-card pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

impl Card {
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// A dense index 0..52, suit-major.
    pub const fn index(self) -> usize {
        self.suit.index() * 13 + (self.rank.value() as usize - 2)
    }

    /// The inverse of `index`.
    pub fn from_index(i: usize) -> Option<Card> {
        let suit = *Suit::ALL.get(i / 13)?;
        let rank = *Rank::ALL.get(i % 13)?;
        Some(Card::new(rank, suit))
    }

    /// All 52 cards, suit-major. Of known length, so that collecting it allocates once.
    pub fn deck() -> impl ExactSizeIterator<Item = Card> + Clone {
        // i / 13 < 4 and i % 13 < 13 for every i below 52.
        (0..52).map(|i| Card::new(Rank::ALL[i % 13], Suit::ALL[i / 13]))
    }
}

/// Why a text is not a card; the message names what a card looks like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown card `{0}`: a card is a rank (2-10, J, Q, K, A) followed by a suit (C, D, H, S), e.g. `QS` or `10H`")]
pub struct UnknownCard(pub String);

impl FromStr for Card {
    type Err = UnknownCard;

    fn from_str(s: &str) -> Result<Card, UnknownCard> {
        let err = || UnknownCard(s.to_owned());
        let last = s.chars().last().ok_or_else(err)?;
        let suit = Suit::from_char(last).ok_or_else(err)?;
        let rank_text = &s[..s.len() - last.len_utf8()];
        let rank = Rank::from_text(rank_text).ok_or_else(err)?;
        Ok(Card::new(rank, suit))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.text(), self.suit.letter())
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for Card {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "A card of the 52-card pack: rank (2-10, J, Q, K, A; T for ten) then suit \
                 (C, D, H, S or ♣ ♦ ♥ ♠), case-insensitive. Answers use the form `10H`.",
            ))
            .pattern(Some("^(10|[2-9TtJjQqKkAa])[CcDdHhSs♣♦♥♠♧♢♡♤]$"))
            .examples([serde_json::json!("QS")])
            .into()
    }
}

impl utoipa::ToSchema for Card {}

/// A set of cards of the 52-card pack, as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardSet(u64);

impl CardSet {
    pub const fn contains(self, card: Card) -> bool {
        self.0 & (1 << card.index()) != 0
    }

    pub fn insert(&mut self, card: Card) {
        self.0 |= 1 << card.index();
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1 << card.index());
    }

    /// The cards of `suit` in this set.
    pub const fn of_suit(self, suit: Suit) -> CardSet {
        CardSet(self.0 & (0x1FFF << (suit.index() * 13)))
    }

    /// The `n`-th card of the set (from 0) in the pack's order (`Card::index`); None when the set
    /// holds `n` cards or fewer.
    pub fn nth(self, n: u32) -> Option<Card> {
        let mut bits = self.0;
        for _ in 0..n {
            // Clears the lowest card.
            bits &= bits.wrapping_sub(1);
        }
        (bits != 0)
            .then(|| Card::from_index(bits.trailing_zeros() as usize))
            .flatten()
    }

    pub fn iter(self) -> impl Iterator<Item = Card> {
        (0..52)
            .filter(move |i| self.0 & (1 << i) != 0)
            .filter_map(Card::from_index)
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::default();
        for card in iter {
            set.insert(card);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_survives_a_round_trip_through_its_notation() {
        for card in Card::deck() {
            assert_eq!(card.to_string().parse::<Card>(), Ok(card));
            assert_eq!(Card::from_index(card.index()), Some(card));
        }
        assert_eq!(Card::deck().count(), 52);
    }

    #[test]
    fn notation_accepts_tens_symbols_and_lower_case() {
        let ten_hearts = Card::new(Rank::Ten, Suit::Hearts);
        assert_eq!("10H".parse(), Ok(ten_hearts));
        assert_eq!("th".parse(), Ok(ten_hearts));
        assert_eq!("10♥".parse(), Ok(ten_hearts));
        assert_eq!("A♠".parse(), Ok(Card::new(Rank::Ace, Suit::Spades)));
    }

    #[test]
    fn text_that_is_not_a_card_is_refused() {
        for bad in ["", "1X", "1S", "11H", "QX", "Q", "S", "QSS", "0C", "JokerS"] {
            assert_eq!(bad.parse::<Card>(), Err(UnknownCard(bad.to_owned())), "{bad}");
        }
    }

    #[test]
    fn a_card_set_counts_and_lists_its_cards() {
        let set: CardSet = ["2C", "AS", "10D"].iter().filter_map(|s| s.parse().ok()).collect();
        assert_eq!(set.len(), 3);
        assert!(set.contains("AS".parse().expect("card")));
        assert!(!set.contains("KS".parse().expect("card")));
        assert_eq!(
            set.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            ["2C", "10D", "AS"]
        );
    }

    #[test]
    fn a_card_set_gives_its_cards_of_a_suit_and_its_nth_card_in_pack_order() {
        let card = |s: &str| s.parse::<Card>().expect("card");
        let mut set: CardSet = ["2C", "AS", "10D", "3S", "KH"].iter().map(|s| card(s)).collect();
        assert_eq!(
            set.of_suit(Suit::Spades).iter().collect::<Vec<_>>(),
            [card("3S"), card("AS")]
        );
        assert!(set.of_suit(Suit::Hearts).contains(card("KH")));
        assert_eq!(set.of_suit(Suit::Hearts).len(), 1);
        let in_order: Vec<Card> = (0..5).filter_map(|n| set.nth(n)).collect();
        assert_eq!(in_order, set.iter().collect::<Vec<_>>());
        assert_eq!(set.nth(5), None);
        set.remove(card("AS"));
        set.remove(card("AS"));
        assert_eq!(set.len(), 4);
        assert!(!set.contains(card("AS")));
        assert_eq!(CardSet::default().nth(0), None);
    }
}
