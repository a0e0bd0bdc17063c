//! Newmarket (the third variation of `shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops
//! game of 48 cards (the sevens out), all dealt, with four pool cards whose stakes are won by
//! playing the card just below them.
//!
//! Invariants: the chips on the table (seats plus the four pools) always equal the opening chips;
//! every chip movement is an `Event::Chips` that `settlements` books; the pools are accounts by
//! rank (`pool_ace` …), so an unwon pool carries over to the next deal's card of that rank; every
//! card is dealt, so there is no declared stop: a run stops only at a king, a six (the seven is
//! out), a card just below a pool card, or a card whose next is played.
//!
//! A game of Newmarket is the stops table (`stops::Table`) with `NewmarketRules`: this module holds
//! the moves, events and deal, and what Newmarket adds to the table (`stops::Rules`). By concept:
//! `options` (the table's options), `layout` (the pool cards and their stakes), `play` (card by
//! card), `result` (a whole deal at once), `settlement` (a pool won, going out and the end of a
//! deal), `view` (the phone's view and the score sheet).
//!
//! # Walk-through
//!
//! One round for four (each player deals once), its chips booked as the service books them.
//! The engine never sees the hands, so [`sim::random_deal`] deals them from a seed, lays out
//! the pools and plays a random legal deal; played on a copy, it gives the moves a table would
//! record, one by one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::collections::BTreeMap;
//!
//! use tablekeeper_rules::games::newmarket::{sim, Event, LegalMove, Move, Options, Phase};
//! use tablekeeper_rules::{Account, Card, Chips, Game, Newmarket, RuleViolation, Settlement};
//!
//! let mut game = Newmarket::new(4, Options { rounds: 1, ..Options::default() })?;
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
//! // A deal starts with its layout: four pool cards and each seat's stake on one.
//! assert_eq!(game.view().phase, Phase::Layout);
//! assert!(matches!(game.view().legal_moves[0], LegalMove::Layout { seats: 4, .. }));
//! let Move::Layout { pool_cards, .. } = &deal[0] else { panic!("a layout: {:?}", deal[0]) };
//! let events = game.apply(&deal[0])?;
//! assert!(events.contains(&Event::LaidOut { pool_cards: pool_cards.clone() }));
//! book(Newmarket::settlements(&events));
//!
//! // Then the dealer's left leads any card in its hand.
//! let view = game.view();
//! let leader = view.to_act.expect("a seat to lead");
//! assert_eq!(Some(leader), view.dealer.map(|dealer| dealer.left(1, 4)));
//! let Some(LegalMove::Play { cards, .. }) =
//!     view.legal_moves.iter().find(|m| matches!(m, LegalMove::Play { seat, .. } if *seat == leader))
//! else {
//!     panic!("a lead: {:?}", view.legal_moves)
//! };
//!
//! // The sevens are out of the pack: refused, and nothing changes.
//! let seven: Card = "7C".parse()?;
//! assert!(!cards.contains(&seven));
//! let before = game.clone();
//! assert_eq!(
//!     game.apply(&Move::Play { seat: leader, card: seven }),
//!     Err(RuleViolation::CardNotInPack(seven))
//! );
//! assert_eq!(game, before);
//!
//! // The deal as the simulator played it: its lead is one of the cards offered.
//! assert!(matches!(deal[1], Move::Play { seat, card } if seat == leader && cards.contains(&card)));
//! for mv in &deal[1..] {
//!     book(Newmarket::settlements(&game.apply(mv)?));
//! }
//! assert_eq!(game.score_sheet().deals.len(), 1);
//!
//! // The other three deals at random (the simulator returns the moves; applying them to the
//! // game gives their events).
//! for seed in [7, 8, 9] {
//!     for mv in sim::random_deal(&mut game.clone(), seed)? {
//!         book(Newmarket::settlements(&game.apply(&mv)?));
//!     }
//! }
//! assert!(game.is_finished());
//!
//! // The ledger holds what the game says every seat and pool card's pool holds, and the chips on the
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
use crate::stops::{self, even_hands, ChipMovement, Nothing, Rules, Runs, Table};
use crate::Pool;
use crate::{Game, GameId};

mod layout;
mod legal;
mod options;
mod play;
mod result;
mod settlement;
pub mod sim;
mod view;

pub use layout::winning_card;
pub use legal::LegalMove;
pub use options::Options;
pub use view::{DealScore, ScoreSheet, View};

use layout::{pool_of, POOL_RANKS};
use options::OPTION_DOCS;

/// Where the game stands: the pools being laid out, a deal being played, or the game over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = NewmarketPhase)]
pub enum Phase {
    Layout,
    Playing,
    Finished,
}

fn sevens() -> CardSet {
    Suit::ALL.iter().map(|&s| Card::new(Rank::Seven, s)).collect()
}

/// A move at a Newmarket table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = NewmarketMove)]
pub enum Move {
    /// The deal's pool cards (an ace, king, queen and knave of four different suits) and each
    /// seat's stake of one on a pool card, by seat; all four must end up covered.
    Layout {
        pool_cards: Vec<Card>,
        stakes: Vec<Card>,
        /// Where the dealer's extra goes (left out: the pool holding least).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dealer_extra_on: Option<Card>,
    },
    /// A card played: a lead by the seat to lead, or the next card up from any seat.
    Play { seat: Seat, card: Card },
    /// A whole deal at once, after the layout.
    Result {
        out: Seat,
        cards_left: Vec<u8>,
        /// The pools won: each pool card whose winning card was played, with the seat that
        /// played it; a pool card not listed was not won.
        #[schema(value_type = Vec<PoolWinner>)]
        pool_winners: PoolWinners,
    },
}

/// A pool won in a result: the pool card as laid out, and the seat that played its winning card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NewmarketPoolWinner)]
pub struct PoolWinner {
    pub pool_card: Card,
    pub seat: Seat,
}

/// A result's `pool_winners`, in the form it was entered. The log is evidence: an entry is
/// hashed into the chain and exported as stored, and replayed by deserializing it, so the
/// form used before issue #26 (one seat or null per pool card, in layout order) is still read
/// and written back unchanged, while the spec documents only the list of [`PoolWinner`]s (a
/// null inside an array is what some generated clients cannot read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PoolWinners {
    Named(Vec<PoolWinner>),
    PerPool(Vec<Option<Seat>>),
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = NewmarketRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

stops::table_event! {
    /// What a move caused.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
    #[serde(tag = "event", rename_all = "snake_case")]
    #[schema(as = NewmarketEvent)]
    pub enum Event {
        DealStarted {
            deal: u16,
            dealer: Seat,
            hands: Vec<u8>,
        },
        LaidOut {
            pool_cards: Vec<Card>,
        },
        CardPlayed {
            seat: Seat,
            card: Card,
            cards_left: u8,
        },
        Stopped {
            card: Card,
            leader: Seat,
        },
        WentOut {
            seat: Seat,
            cards_left: Vec<u8>,
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
    pool_cards: Vec<Card>,
    runs: Runs,
    start_chips: Vec<Chips>,
}

// A deal is fresh until its layout.
stops::impl_table_deal!(Deal, |d| d.pool_cards.is_empty());

/// A game of Newmarket: the stops table with Newmarket's rules.
pub type Newmarket = Table<NewmarketRules>;

/// Newmarket's own part of the stops table (`stops::Rules`): the dealer's extra, the layout,
/// the pools won by the card below a pool card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewmarketRules {}

impl Rules for NewmarketRules {
    const ID: GameId = GameId::Newmarket;
    const NAME: &'static str = "Newmarket";

    type Fixed = Nothing;
    type Carried = Nothing;
    type Deal = Deal;
    named_alike!(DealScore);

    fn pools(_options: &Options) -> &'static [Pool] {
        &layout::POOLS
    }

    fn set_up(players: usize, options: Options) -> Result<(Options, Nothing), SetupError> {
        if players == 3 && options.dealer_extra == 0 {
            return Err(SetupError::InvalidOption {
                option: "dealer_extra",
                reason: "three players' stakes cannot cover four pools without the dealer's extra".into(),
            });
        }
        Ok((options, Nothing {}))
    }

    fn deal(table: &mut Newmarket, number: u16, dealer: Seat, events: &mut Events<Event>) -> Deal {
        let hands = even_hands(48, table.players, dealer);
        events.push(Event::DealStarted {
            deal: number,
            dealer,
            hands: hands.values().to_vec(),
        });
        Deal {
            number,
            dealer,
            pool_cards: Vec::new(),
            runs: Runs::new(sevens(), false, hands, dealer.left(1, table.players)),
            start_chips: table.holdings.seats(),
        }
    }

    fn move_kind(mv: &Move) -> &'static str {
        match mv {
            Move::Layout { .. } => "layout",
            Move::Play { .. } => "play",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Play { seat, .. } => Some(*seat),
            _ => None,
        }
    }

    fn play_move(table: &mut Newmarket, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::Layout {
                pool_cards,
                stakes,
                dealer_extra_on,
            } => table.layout(pool_cards, stakes, *dealer_extra_on),
            Move::Play { seat, card } => table.play(*seat, *card),
            Move::Result {
                out,
                cards_left,
                pool_winners,
            } => table.result(*out, cards_left, pool_winners),
        }
    }

    fn legal_kinds(table: &Newmarket) -> Vec<&'static str> {
        table.legal_kinds()
    }

    fn view(table: &Newmarket) -> View {
        let deal = table.deal.as_ref();
        View {
            phase: table.phase(),
            deal: table.deal_shown(),
            deals_in_game: table.deals_in_game,
            dealer: table.dealer(),
            pool_cards: deal.map(|d| d.pool_cards.clone()).unwrap_or_default(),
            to_act: deal.filter(|d| !d.pool_cards.is_empty()).and_then(|d| d.runs.leader()),
            next_card: deal.and_then(|d| d.runs.next_card()),
            legal_moves: table.legal_moves(),
            cards_left: table.cards_left(),
            played: table.cards_played(),
            pools: table.pools(),
            chips: table.holdings.seats(),
            winners: table.winners(),
        }
    }

    fn score_sheet(table: &Newmarket, lines: &[DealScore]) -> ScoreSheet {
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
