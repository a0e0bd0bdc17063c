//! Spin (`shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops game of 50 cards (8♦ and 2♥
//! out), all dealt, no trumps, with Game, Matrimony (K♦ Q♦) and Intrigue (Q♦ J♦) pools, Spin (A♦)
//! collecting from every player and kings collecting one from each.
//!
//! Invariants: the chips on the table (seats plus the pools) always equal the opening chips; every
//! chip movement is an `Event::Chips` that `settlements` books; Matrimony and Intrigue are won at
//! most once a deal (by showing both cards after playing a stop) and otherwise carry over; Game is
//! won every deal, and its winner pays no Game stake the next deal.
//!
//! A game of Spin is the stops table (`stops::Table`) with `SpinRules`: this module holds the
//! moves, events and deal, and what Spin adds to the table (`stops::Rules`), including the last
//! winner each deal hands on. By concept: `options` (the table's options), `stakes` (each deal's
//! stakes, and chips collected from every player), `play` (card by card: runs, Spin, showing a
//! pair, Spin's holder), `result` (a whole deal at once), `settlement` (going out and the end of a
//! deal), `view` (the phone's view and the score sheet).

use crate::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, CardSet, Rank, Suit};
use crate::chips::Chips;
use crate::error::{RuleViolation, SetupError};
use crate::game::named_alike;
use crate::seat::Seat;
use crate::stops::{self, ChipMovement, Nothing, Pool, Rules, Runs, Table};
use crate::{Game, GameId};

mod legal;
mod options;
mod play;
mod result;
mod settlement;
pub mod sim;
mod stakes;
mod view;

pub use legal::LegalMove;
pub use options::Options;
pub use view::{DealScore, Phase, ScoreSheet, View};

use options::OPTION_DOCS;

/// Spin: the ace of diamonds.
pub const SPIN: Card = Card::new(Rank::Ace, Suit::Diamonds);

const POOLS: [Pool; 3] = [Pool::Game, Pool::Matrimony, Pool::Intrigue];

fn removed() -> CardSet {
    [
        Card::new(Rank::Eight, Suit::Diamonds),
        Card::new(Rank::Two, Suit::Hearts),
    ]
    .into_iter()
    .collect()
}

/// A pair shown for its pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Combination {
    /// King and queen of diamonds.
    Matrimony,
    /// Queen and knave of diamonds.
    Intrigue,
}

impl Combination {
    fn pool(self) -> Pool {
        match self {
            Combination::Matrimony => Pool::Matrimony,
            Combination::Intrigue => Pool::Intrigue,
        }
    }

    fn cards(self) -> [Card; 2] {
        match self {
            Combination::Matrimony => [
                Card::new(Rank::King, Suit::Diamonds),
                Card::new(Rank::Queen, Suit::Diamonds),
            ],
            Combination::Intrigue => [
                Card::new(Rank::Queen, Suit::Diamonds),
                Card::new(Rank::Jack, Suit::Diamonds),
            ],
        }
    }
}

/// A move at a Spin table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = SpinMove)]
pub enum Move {
    /// A card played: a lead by the seat to lead, or the next card up from any seat. With
    /// `spin`, the seat plays Spin (A♦) with it, which makes a stop.
    Play {
        seat: Seat,
        card: Card,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        spin: bool,
    },
    /// The seat that has just played a stop shows Matrimony or Intrigue and takes its pool.
    Show { seat: Seat, combination: Combination },
    /// After a player goes out with Spin unplayed: the seat still holding it.
    SpinHolder { seat: Seat },
    /// A whole deal at once.
    Result {
        out: Seat,
        cards_left: Vec<u8>,
        /// The kings and Spin each seat played, by seat.
        specials: Vec<Vec<Card>>,
        /// The seat that showed Matrimony, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        matrimony: Option<Seat>,
        /// The seat that showed Intrigue, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        intrigue: Option<Seat>,
        /// When Spin was not played: the seat still holding it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spin_holder: Option<Seat>,
    },
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = SpinRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

stops::table_event! {
    /// What a move caused.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
    #[serde(tag = "event", rename_all = "snake_case")]
    #[schema(as = SpinEvent)]
    pub enum Event {
        DealStarted {
            deal: u16,
            dealer: Seat,
            hands: Vec<u8>,
            /// The last deal's winner, who pays no Game stake.
            exempt: Option<Seat>,
        },
        CardPlayed {
            seat: Seat,
            card: Card,
            cards_left: u8,
        },
        SpinPlayed {
            seat: Seat,
        },
        Stopped {
            card: Card,
            leader: Seat,
        },
        Shown {
            seat: Seat,
            combination: Combination,
        },
        WentOut {
            seat: Seat,
            cards_left: Vec<u8>,
            /// The seat caught holding Spin, who pays double.
            spin_holder: Option<Seat>,
        },
    }
    Chips,
    DealEnded { net },
}

/// The deal being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    number: u16,
    dealer: Seat,
    runs: Runs,
    /// Pools won by showing this deal.
    shown: Vec<Combination>,
    /// Cards shown, with the seat holding them: nobody else can play them.
    held: Vec<(Card, Seat)>,
    /// The seat that went out, while Spin's holder is awaited.
    out: Option<Seat>,
    start_chips: Vec<Chips>,
}

// A deal is fresh until its first card.
stops::impl_table_deal!(Deal, |d| d.runs.is_fresh());

/// What one deal of Spin hands on to the next.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// The last deal's winner: exempt from the next Game stake.
    last_winner: Option<Seat>,
}

/// A game of Spin: the stops table with Spin's rules.
pub type Spin = Table<SpinRules>;

/// Spin's own part of the stops table (`stops::Rules`): the stakes on Game, Matrimony and
/// Intrigue, Spin and the kings collecting, showing a pair, Spin's holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpinRules {}

impl Rules for SpinRules {
    const ID: GameId = GameId::Spin;
    const NAME: &'static str = "Spin";

    type Fixed = Nothing;
    type Carried = Carried;
    type Deal = Deal;
    named_alike!(DealScore);

    fn set_up(_players: usize, options: Options) -> Result<(Options, Nothing), SetupError> {
        Ok((options, Nothing {}))
    }

    fn deal(table: &mut Spin, number: u16, dealer: Seat, events: &mut Events<Event>) -> Deal {
        table.new_deal(number, dealer, events)
    }

    fn move_kind(mv: &Move) -> &'static str {
        match mv {
            Move::Play { .. } => "play",
            Move::Show { .. } => "show",
            Move::SpinHolder { .. } => "spin_holder",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Play { seat, .. } | Move::Show { seat, .. } => Some(*seat),
            _ => None,
        }
    }

    fn play_move(table: &mut Spin, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::Play { seat, card, spin } => table.play(*seat, *card, *spin),
            Move::Show { seat, combination } => table.show(*seat, *combination),
            Move::SpinHolder { seat } => table.spin_holder(*seat),
            Move::Result {
                out,
                cards_left,
                specials,
                matrimony,
                intrigue,
                spin_holder,
            } => table.result(*out, cards_left, specials, [*matrimony, *intrigue], *spin_holder),
        }
    }

    fn legal_kinds(table: &Spin) -> Vec<&'static str> {
        table.legal_kinds()
    }

    fn view(table: &Spin) -> View {
        let deal = table.deal.as_ref();
        View {
            phase: table.phase(),
            deal: table.deal_shown(),
            deals_in_game: table.deals_in_game,
            dealer: table.dealer(),
            to_act: deal.filter(|d| d.out.is_none()).and_then(|d| d.runs.leader()),
            next_card: deal.and_then(|d| d.runs.next_card()),
            legal_moves: table.legal_moves(),
            cards_left: table.cards_left(),
            played: table.cards_played(),
            pools: table.pools(),
            chips: table.holdings.seats(),
            winners: table.winners(),
        }
    }

    fn score_sheet(table: &Spin, lines: &[DealScore]) -> ScoreSheet {
        ScoreSheet {
            deals: lines.to_vec(),
            chips: table.holdings.seats(),
            pools: table.pools(),
            deals_in_game: table.deals_in_game,
            finished: table.is_finished(),
            winners: table.winners(),
        }
    }
}

#[cfg(test)]
mod tests;
