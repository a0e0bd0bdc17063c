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
//!
//! # Walk-through
//!
//! One round for four (each player deals once), its chips booked as the service books them.
//! The engine never sees the hands, so [`sim::random_deal`] deals them from a seed and plays a
//! random legal deal (Spin played beside a card now and then, the pairs shown when held); played
//! on a copy, it gives the moves a table would record, one by one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::collections::BTreeMap;
//!
//! use tablekeeper_rules::games::spin::{sim, Event, LegalMove, Move, Options};
//! use tablekeeper_rules::{Account, Card, Chips, Game, RuleViolation, Settlement, Spin};
//!
//! let mut game = Spin::new(4, Options { rounds: 1, ..Options::default() })?;
//! let deal = sim::random_deal(&mut game.clone(), 2026)?;
//!
//! // What the ledger would hold: the opening chips, then every move's settlements.
//! let mut ledger: BTreeMap<Account, Chips> = BTreeMap::new();
//! let mut book = |settlements: Vec<Settlement>| {
//!     for settlement in settlements {
//!         assert_eq!(settlement.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
//!         for (account, chips) in settlement.postings {
//!             *ledger.entry(account).or_default() += chips;
//!         }
//!     }
//! };
//! book(game.opening_settlements());
//!
//! // Every card is dealt; the dealer's left leads any card in its hand, alone or with Spin.
//! let view = game.view();
//! let leader = view.to_act.expect("a seat to lead");
//! assert_eq!(Some(leader), view.dealer.map(|dealer| dealer.left(1, 4)));
//! let Some(LegalMove::Play { cards, .. }) =
//!     view.legal_moves.iter().find(|m| matches!(m, LegalMove::Play { seat, .. } if *seat == leader))
//! else {
//!     panic!("a lead: {:?}", view.legal_moves)
//! };
//!
//! // The 2♥ is taken out of Spin's pack: refused, and nothing changes.
//! let two_of_hearts: Card = "2H".parse()?;
//! assert!(!cards.contains(&two_of_hearts));
//! let before = game.clone();
//! assert_eq!(
//!     game.apply(&Move::Play { seat: leader, card: two_of_hearts, spin: false }),
//!     Err(RuleViolation::CardNotInPack(two_of_hearts))
//! );
//! assert_eq!(game, before);
//!
//! // The deal as the simulator played it: its lead is one of the cards offered.
//! let Move::Play { seat, card, .. } = deal[0] else { panic!("a lead: {:?}", deal[0]) };
//! assert!(seat == leader && cards.contains(&card));
//! let events = game.apply(&deal[0])?;
//! assert!(matches!(events[0], Event::CardPlayed { seat, card: played, .. } if seat == leader && played == card));
//! book(Spin::settlements(&events));
//! for mv in &deal[1..] {
//!     book(Spin::settlements(&game.apply(mv)?));
//! }
//! assert_eq!(game.score_sheet().deals.len(), 1);
//!
//! // The other three deals at random (the simulator returns the moves; applying them to the
//! // game gives their events).
//! for seed in [7, 8, 9] {
//!     for mv in sim::random_deal(&mut game.clone(), seed)? {
//!         book(Spin::settlements(&game.apply(&mv)?));
//!     }
//! }
//! assert!(game.is_finished());
//!
//! // The ledger holds what the game says every seat and pool holds, and the chips on the
//! // table are what the bank issued: 100 each.
//! for (account, chips) in game.holdings().iter() {
//!     assert_eq!(ledger.get(&account).copied().unwrap_or_default(), chips, "{account}");
//! }
//! assert_eq!(ledger[&Account::Bank], Chips::new(-400));
//! let sheet = game.score_sheet();
//! assert_eq!(sheet.deals.len(), 4);
//! assert_eq!(sheet.chips.iter().map(|c| c.get()).collect::<Vec<_>>(), game.running_totals());
//! assert!(!sheet.winners.is_empty());
//! # Ok(())
//! # }
//! ```

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

    fn pools(_options: &Options) -> &'static [Pool] {
        &POOLS
    }

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
