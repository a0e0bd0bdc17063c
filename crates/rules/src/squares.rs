//! The 64-card Squares deck (Triple Topper) used by Tricky Dick: every combination of a number
//! 1–4, a colour (red, yellow, green, blue) and a shape (square, triangle, heart, circle). The
//! full deck's black colour, blob shape, "?" number and jokers are left out.
//!
//! The notation is what a person types on a phone: the number, the colour's letter and the
//! shape's letter, `3BS` for the three of blue squares, `1RC` for the one of red circles.
//! Letters may be lower case; every one of the 64 cards has exactly one notation and nothing
//! else parses. Answers always use upper case.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A card's number, 1 to 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Number {
    One = 1,
    Two,
    Three,
    Four,
}

impl Number {
    pub const ALL: [Number; 4] = [Number::One, Number::Two, Number::Three, Number::Four];

    /// 1 to 4.
    pub const fn value(self) -> u8 {
        self as u8
    }

    fn from_char(c: char) -> Option<Number> {
        match c {
            '1' => Some(Number::One),
            '2' => Some(Number::Two),
            '3' => Some(Number::Three),
            '4' => Some(Number::Four),
            _ => None,
        }
    }
}

/// A card's colour. The derived order is the rule's colour rank: red (1) lowest, blue (4) highest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = SquaresColour)]
pub enum Colour {
    Red,
    Yellow,
    Green,
    Blue,
}

impl Colour {
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Yellow, Colour::Green, Colour::Blue];

    /// Position in `ALL`.
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn letter(self) -> char {
        match self {
            Colour::Red => 'R',
            Colour::Yellow => 'Y',
            Colour::Green => 'G',
            Colour::Blue => 'B',
        }
    }

    fn from_char(c: char) -> Option<Colour> {
        match c.to_ascii_uppercase() {
            'R' => Some(Colour::Red),
            'Y' => Some(Colour::Yellow),
            'G' => Some(Colour::Green),
            'B' => Some(Colour::Blue),
            _ => None,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::Red => "red",
            Colour::Yellow => "yellow",
            Colour::Green => "green",
            Colour::Blue => "blue",
        })
    }
}

/// A card's shape, in the order the rules list them: square highest, circle lowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = SquaresShape)]
pub enum Shape {
    Square,
    Triangle,
    Heart,
    Circle,
}

impl Shape {
    pub const ALL: [Shape; 4] = [Shape::Square, Shape::Triangle, Shape::Heart, Shape::Circle];

    /// Position in `ALL`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The tie-break rank: square 4, triangle 3, heart 2, circle 1.
    pub const fn rank(self) -> u8 {
        4 - self as u8
    }

    pub const fn letter(self) -> char {
        match self {
            Shape::Square => 'S',
            Shape::Triangle => 'T',
            Shape::Heart => 'H',
            Shape::Circle => 'C',
        }
    }

    fn from_char(c: char) -> Option<Shape> {
        match c.to_ascii_uppercase() {
            'S' => Some(Shape::Square),
            'T' => Some(Shape::Triangle),
            'H' => Some(Shape::Heart),
            'C' => Some(Shape::Circle),
            _ => None,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Shape::Square => "square",
            Shape::Triangle => "triangle",
            Shape::Heart => "heart",
            Shape::Circle => "circle",
        })
    }
}

/// One card of the Squares deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SquaresCard {
    pub number: Number,
    pub colour: Colour,
    pub shape: Shape,
}

impl SquaresCard {
    pub const fn new(number: Number, colour: Colour, shape: Shape) -> SquaresCard {
        SquaresCard { number, colour, shape }
    }

    /// A dense index 0..64: number-major, then colour, then shape.
    pub const fn index(self) -> usize {
        (self.number.value() as usize - 1) * 16 + self.colour.index() * 4 + self.shape.index()
    }

    /// The inverse of `index`.
    pub fn from_index(i: usize) -> Option<SquaresCard> {
        let number = *Number::ALL.get(i / 16)?;
        let colour = Colour::ALL[(i / 4) % 4];
        let shape = Shape::ALL[i % 4];
        Some(SquaresCard::new(number, colour, shape))
    }

    /// All 64 cards, in index order.
    pub fn deck() -> impl Iterator<Item = SquaresCard> {
        (0..64).filter_map(SquaresCard::from_index)
    }

    /// True when the two cards have the same number, the same colour or the same shape.
    pub fn shares_an_attribute_with(self, other: SquaresCard) -> bool {
        self.number == other.number || self.colour == other.colour || self.shape == other.shape
    }
}

/// Why a text is not a Squares card; the message says which part is wrong and what a card
/// looks like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown card `{text}`: {reason}; a card is a number (1-4), a colour (R red, Y yellow, G green, B blue) \
     and a shape (S square, T triangle, H heart, C circle), e.g. `3BS`"
)]
pub struct UnknownSquaresCard {
    pub text: String,
    pub reason: String,
}

impl FromStr for SquaresCard {
    type Err = UnknownSquaresCard;

    fn from_str(s: &str) -> Result<SquaresCard, UnknownSquaresCard> {
        let err = |reason: String| UnknownSquaresCard {
            text: s.to_owned(),
            reason,
        };
        let chars: Vec<char> = s.chars().collect();
        let [n, c, sh] = chars[..] else {
            return Err(err(format!("it has {} characters, not 3", chars.len())));
        };
        let number = Number::from_char(n).ok_or_else(|| err(format!("there is no number `{n}`")))?;
        let colour = Colour::from_char(c).ok_or_else(|| err(format!("there is no colour `{c}`")))?;
        let shape = Shape::from_char(sh).ok_or_else(|| err(format!("there is no shape `{sh}`")))?;
        Ok(SquaresCard::new(number, colour, shape))
    }
}

impl fmt::Display for SquaresCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.number.value(),
            self.colour.letter(),
            self.shape.letter()
        )
    }
}

impl Serialize for SquaresCard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SquaresCard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SquaresCard, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for SquaresCard {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "A card of the 64-card Squares deck (Tricky Dick): its number (1-4), its colour \
                 (R red, Y yellow, G green, B blue) and its shape (S square, T triangle, H heart, \
                 C circle), e.g. `3BS` for the three of blue squares. Letters are case-insensitive; \
                 answers use upper case.",
            ))
            .pattern(Some("^[1-4][RYGBrygb][STHCsthc]$"))
            .examples([serde_json::json!("3BS")])
            .into()
    }
}

impl utoipa::ToSchema for SquaresCard {}

/// A set of Squares cards, as a bit set (the deck has exactly 64 cards).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SquaresSet(u64);

impl SquaresSet {
    pub const fn contains(self, card: SquaresCard) -> bool {
        self.0 & (1 << card.index()) != 0
    }

    pub fn insert(&mut self, card: SquaresCard) {
        self.0 |= 1 << card.index();
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = SquaresCard> {
        (0..64)
            .filter(move |i| self.0 & (1 << i) != 0)
            .filter_map(SquaresCard::from_index)
    }
}

impl FromIterator<SquaresCard> for SquaresSet {
    fn from_iter<I: IntoIterator<Item = SquaresCard>>(iter: I) -> SquaresSet {
        let mut set = SquaresSet::default();
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
    fn the_deck_has_64_different_cards_each_surviving_its_notation() {
        let deck: Vec<SquaresCard> = SquaresCard::deck().collect();
        assert_eq!(deck.len(), 64);
        assert_eq!(deck.iter().copied().collect::<SquaresSet>().len(), 64);
        for card in deck {
            assert_eq!(card.to_string().parse::<SquaresCard>(), Ok(card));
            assert_eq!(card.to_string().to_lowercase().parse::<SquaresCard>(), Ok(card));
            assert_eq!(SquaresCard::from_index(card.index()), Some(card));
        }
        assert_eq!(SquaresCard::from_index(64), None);
    }

    #[test]
    fn every_three_character_text_outside_the_deck_is_refused() {
        // All printable ASCII triples: exactly 64 × 4 parse (either case for each of the two letters).
        let mut parsed = 0;
        for a in b' '..=b'~' {
            for b in b' '..=b'~' {
                for c in b' '..=b'~' {
                    let text: String = [a, b, c].iter().map(|&x| char::from(x)).collect();
                    if let Ok(card) = text.parse::<SquaresCard>() {
                        assert!(text.eq_ignore_ascii_case(&card.to_string()), "{text}");
                        parsed += 1;
                    }
                }
            }
        }
        assert_eq!(parsed, 64 * 4);
    }

    #[test]
    fn the_notation_reads_number_colour_shape() {
        let card: SquaresCard = "3bs".parse().expect("card");
        assert_eq!(card, SquaresCard::new(Number::Three, Colour::Blue, Shape::Square));
        assert_eq!(card.to_string(), "3BS");
        assert_eq!(
            "1rC".parse(),
            Ok(SquaresCard::new(Number::One, Colour::Red, Shape::Circle))
        );
    }

    #[test]
    fn an_attribute_value_that_does_not_exist_is_named_in_the_refusal() {
        for (bad, reason) in [
            ("5BS", "there is no number `5`"),
            ("0RC", "there is no number `0`"),
            ("3KS", "there is no colour `K`"),
            ("3BX", "there is no shape `X`"),
            ("3BQ", "there is no shape `Q`"),
            ("", "it has 0 characters, not 3"),
            ("3B", "it has 2 characters, not 3"),
            ("3BSS", "it has 4 characters, not 3"),
            ("10BS", "it has 4 characters, not 3"),
        ] {
            let err = bad.parse::<SquaresCard>().expect_err(bad);
            assert_eq!(err.reason, reason, "{bad}");
            assert!(err.to_string().starts_with("unknown card"), "{err}");
        }
    }

    #[test]
    fn shapes_rank_square_triangle_heart_circle_and_colours_red_to_blue() {
        let ranks: Vec<u8> = Shape::ALL.iter().map(|s| s.rank()).collect();
        assert_eq!(ranks, [4, 3, 2, 1]);
        assert!(Colour::Blue > Colour::Green && Colour::Green > Colour::Yellow && Colour::Yellow > Colour::Red);
    }

    #[test]
    fn cards_share_an_attribute_when_number_colour_or_shape_matches() {
        let card = |s: &str| s.parse::<SquaresCard>().expect("card");
        assert!(card("3BS").shares_an_attribute_with(card("3RC")));
        assert!(card("3BS").shares_an_attribute_with(card("1BC")));
        assert!(card("3BS").shares_an_attribute_with(card("1RS")));
        assert!(!card("3BS").shares_an_attribute_with(card("1RC")));
    }
}
