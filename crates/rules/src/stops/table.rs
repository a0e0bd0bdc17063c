//! The table every stops game keeps: its seats and options, the chips each account holds, the
//! opening movements, the deals played so far and the current deal. `Table<R>` is the engine
//! of each stops game (`PopeJoan` is `Table<PopeJoanRules>`, and so on); a game's `Rules`
//! supply only what is its own: its options' checks, how a deal starts, its moves, its view and
//! score sheet.
//!
//! What the table does the same for every game: set-up (the shared checks, the opening chips,
//! the first deal), the order of deals (each player deals once a round, from the first dealer
//! leftwards), the end of a deal (its line on the sheet, `DealEnded`, the next deal or
//! `GameFinished`), the refusal of a move out of phase, and the chips booked as events.
//!
//! Stored shape: a table is written `{"players", "options", <the game's fixed fields>,
//! "deals_in_game", "holdings", "opening", <the game's carried fields>, "deal"}`, the order its
//! games' states have always had (Pope Joan's `board_total` after the options, Spin's
//! `last_winner` after the opening movements); the score-sheet lines are never written.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::cards::Card;
use crate::chips::{Chips, Settlement};
use crate::error::{RuleViolation, SetupError};
use crate::seat::Seat;
use crate::{DealLines, Events, Game, GameId, OptionDoc};

use super::board::{movements, opening_chips, settlements, ChipEvent, ChipMovement, Holdings};
use super::runs::Runs;
use super::setup::check_table;
use super::setup::MAX_OPENING_CHIPS;
use super::Pool;
use crate::chips::{Account, Transfer};

/// The options every stops table has, whatever else its game adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableOptions {
    pub opening_chips: u32,
    pub first_dealer: u8,
    pub rounds: u8,
}

/// Declares a stops game's event enum: the game's own variants, then the three every stops
/// game ends with, in this order (stored logs and the spec hold them so): `Chips { movement }`
/// (its movement's fields inline), `DealEnded { deal, winner, net }`, `GameFinished { winners,
/// chips }`; and implements `ChipEvent` and `TableEvent` for it. The attributes written before
/// `Chips` and `DealEnded` (and `net`) are the game's docs for them. The module names `Seat`,
/// `Chips` and `ChipMovement`.
macro_rules! table_event {
    (
        $(#[$attr:meta])*
        $vis:vis enum $event:ident {
            $($own:tt)*
        }
        $(#[$chips:meta])* Chips,
        $(#[$ended:meta])* DealEnded { $(#[$net:meta])* net },
    ) => {
        $(#[$attr])*
        $vis enum $event {
            $($own)*
            $(#[$chips])*
            Chips {
                #[serde(flatten)]
                movement: ChipMovement,
            },
            $(#[$ended])*
            DealEnded {
                deal: u16,
                winner: Seat,
                $(#[$net])*
                net: Vec<Chips>,
            },
            GameFinished {
                winners: Vec<Seat>,
                chips: Vec<Chips>,
            },
        }

        $crate::stops::impl_chip_event!($event);

        impl $crate::stops::TableEvent for $event {
            fn deal_ended(deal: u16, winner: Seat, net: Vec<Chips>) -> $event {
                $event::DealEnded { deal, winner, net }
            }

            fn game_finished(winners: Vec<Seat>, chips: Vec<Chips>) -> $event {
                $event::GameFinished { winners, chips }
            }
        }
    };
}
pub(crate) use table_event;

/// A game's options, which include the options every stops table has.
pub trait HasTableOptions {
    fn table_options(&self) -> TableOptions;
    /// Chips on the board's pools before the first deal is staked (`opening_pools`).
    fn opening_pools(&self) -> &OpeningPools;
}

/// What each pool holds when a table opens, beyond the first deal's stakes: chips a club carries
/// onto the board, such as a tournament round's leftover carried to the next round's table.
pub type OpeningPools = std::collections::BTreeMap<Pool, u32>;

/// Implements `HasTableOptions` for a game's options struct with `opening_chips`,
/// `first_dealer`, `rounds` and `opening_pools` fields.
macro_rules! impl_table_options {
    ($options:ident) => {
        impl $crate::stops::HasTableOptions for $options {
            fn table_options(&self) -> $crate::stops::TableOptions {
                $crate::stops::TableOptions {
                    opening_chips: self.opening_chips,
                    first_dealer: self.first_dealer,
                    rounds: self.rounds,
                }
            }

            fn opening_pools(&self) -> &$crate::stops::OpeningPools {
                &self.opening_pools
            }
        }
    };
}
pub(crate) use impl_table_options;

/// Nothing beyond the table's own fields: a game's `Fixed` or `Carried` when it has none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nothing {}

/// What the table reads of a game's deal: every stops deal has a number, a dealer, its runs and
/// the chips each seat held when it began.
pub trait TableDeal {
    /// 1-based.
    fn number(&self) -> u16;
    fn dealer(&self) -> Seat;
    fn runs(&self) -> &Runs;
    /// Chips each seat held when the deal began.
    fn start_chips(&self) -> &[Chips];
    /// True until the deal's first move: the table is between deals.
    fn is_fresh(&self) -> bool;
}

/// Implements `TableDeal` for a game's deal struct with `number`, `dealer`, `runs` and
/// `start_chips` fields; `$fresh` says whether a deal has had no move yet.
macro_rules! impl_table_deal {
    ($deal:ident, $fresh:expr) => {
        impl $crate::stops::TableDeal for $deal {
            fn number(&self) -> u16 {
                self.number
            }

            fn dealer(&self) -> $crate::Seat {
                self.dealer
            }

            fn runs(&self) -> &$crate::stops::Runs {
                &self.runs
            }

            fn start_chips(&self) -> &[$crate::Chips] {
                &self.start_chips
            }

            fn is_fresh(&self) -> bool {
                let fresh: fn(&$deal) -> bool = $fresh;
                fresh(self)
            }
        }
    };
}
pub(crate) use impl_table_deal;

/// An event of a stops game: beside the chip movements, every game ends a deal and the game
/// the same way.
pub trait TableEvent: ChipEvent {
    /// `deal` won by `winner`, with each seat's chips gained (or lost) over it.
    fn deal_ended(deal: u16, winner: Seat, net: Vec<Chips>) -> Self;
    /// The game over: the winners and each seat's chips.
    fn game_finished(winners: Vec<Seat>, chips: Vec<Chips>) -> Self;
}

/// What a stops game adds to the table: its own types, checks, deals and moves. Implemented
/// by a marker type per game (`PopeJoanRules`, …), never instantiated.
pub trait Rules: Sized + Clone + Debug + PartialEq + Send + Sync + 'static {
    const ID: GameId;
    const NAME: &'static str;

    type Options: HasTableOptions + Clone + Debug + PartialEq + Default + Serialize + DeserializeOwned + Send + Sync;
    /// What the game fixes at set-up beyond its options; written right after the options.
    type Fixed: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// What one deal hands on to the next; written right after the opening movements.
    type Carried: Clone + Debug + PartialEq + Default + Serialize + DeserializeOwned + Send + Sync;
    type Deal: TableDeal + Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    type Move: Clone + Debug + Serialize + DeserializeOwned;
    type Event: TableEvent + Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    type View: Serialize;
    type ScoreSheet: Serialize;
    type DealLine: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;

    fn option_docs() -> &'static [OptionDoc];

    /// The pools of a table with `options`, in the order its board lists them.
    fn pools(options: &Self::Options) -> &'static [Pool];

    /// Checks the game's own options (the table's are checked already) and gives back the
    /// options as the table keeps them, with what it fixes.
    ///
    /// # Errors
    /// `InvalidOption` naming the option.
    fn set_up(players: usize, options: Self::Options) -> Result<(Self::Options, Self::Fixed), SetupError>;

    /// Starts deal `number` dealt by `dealer`: its `DealStarted` event and stakes; the table
    /// holds no deal meanwhile.
    fn deal(table: &mut Table<Self>, number: u16, dealer: Seat, events: &mut Events<Self::Event>) -> Self::Deal;

    fn move_kind(mv: &Self::Move) -> &'static str;

    fn move_seat(mv: &Self::Move) -> Option<Seat>;

    /// The game's rules for one move (`Game::play_move`).
    ///
    /// # Errors
    /// The rule the move breaks.
    fn play_move(table: &mut Table<Self>, mv: &Self::Move) -> Result<Events<Self::Event>, RuleViolation>;

    /// The kinds of move accepted next, in the order the view lists them.
    fn legal_kinds(table: &Table<Self>) -> Vec<&'static str>;

    fn view(table: &Table<Self>) -> Self::View;

    fn score_sheet(table: &Table<Self>, lines: &[Self::DealLine]) -> Self::ScoreSheet;
}

/// A stops table playing the game of `R`. See the module docs for what it keeps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Table<R: Rules> {
    pub(crate) players: usize,
    pub(crate) options: R::Options,
    #[serde(flatten)]
    pub(crate) fixed: R::Fixed,
    pub(crate) deals_in_game: u16,
    pub(crate) holdings: Holdings,
    /// The table's opening movements (opening chips, the first deal's stakes).
    pub(crate) opening: Vec<ChipMovement>,
    #[serde(flatten)]
    pub(crate) carried: R::Carried,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    pub(crate) sheet: DealLines<R::DealLine>,
    pub(crate) deal: Option<R::Deal>,
}

impl<R: Rules> Table<R> {
    pub fn players(&self) -> usize {
        self.players
    }

    pub fn holdings(&self) -> &Holdings {
        &self.holdings
    }

    /// Cards dealt to each seat in the current deal.
    pub fn hands(&self) -> Vec<u8> {
        self.deal
            .as_ref()
            .map(|d| Seat::all(self.players).map(|s| d.runs().dealt(s)).collect())
            .unwrap_or_default()
    }

    /// Cards each seat still holds in the current deal.
    pub fn cards_left(&self) -> Vec<u8> {
        self.deal.as_ref().map(|d| d.runs().hands_left()).unwrap_or_default()
    }

    /// The cards played in the current deal.
    pub(crate) fn cards_played(&self) -> Vec<Card> {
        self.deal
            .as_ref()
            .map(|d| d.runs().played().iter().collect())
            .unwrap_or_default()
    }

    /// The deal a view shows: the current one, or the last once the game is over.
    pub(crate) fn deal_shown(&self) -> u16 {
        self.deal.as_ref().map_or(self.deals_in_game, TableDeal::number)
    }

    pub(crate) fn dealer(&self) -> Option<Seat> {
        self.deal.as_ref().map(TableDeal::dealer)
    }

    /// The seats holding the most chips; empty until the game ends.
    pub(crate) fn winners(&self) -> Vec<Seat> {
        self.holdings.winners(self.deal.is_none())
    }

    /// The refusal of a move of `kind` out of phase.
    pub(crate) fn not_expected(&self, kind: &'static str) -> RuleViolation {
        super::not_expected(self.deal.is_none(), kind, || R::legal_kinds(self))
    }

    /// Refuses a move of `kind` unless it is accepted now.
    ///
    /// # Errors
    /// `not_expected(kind)`.
    pub(crate) fn expect(&self, kind: &'static str) -> Result<(), RuleViolation> {
        if R::legal_kinds(self).contains(&kind) {
            Ok(())
        } else {
            Err(self.not_expected(kind))
        }
    }

    pub(crate) fn deal_ref(&self) -> Result<&R::Deal, RuleViolation> {
        self.deal.as_ref().ok_or(RuleViolation::GameFinished)
    }

    pub(crate) fn deal_mut(&mut self) -> Result<&mut R::Deal, RuleViolation> {
        self.deal.as_mut().ok_or(RuleViolation::GameFinished)
    }

    /// Starts deal `index` (0-based), dealt by the seat `index` places left of the first
    /// dealer; once every deal is played, ends the game instead.
    pub(crate) fn start_deal(&mut self, index: u16, events: &mut Events<R::Event>) {
        if index >= self.deals_in_game {
            self.deal = None;
            events.push(R::Event::game_finished(self.winners(), self.holdings.seats()));
            return;
        }
        let first_dealer = self.options.table_options().first_dealer;
        let dealer = Seat::new(first_dealer).left(usize::from(index), self.players);
        let deal = R::deal(self, index + 1, dealer, events);
        self.deal = Some(deal);
    }

    /// Ends the current deal, won by `winner`: its line on the score sheet (`line` makes it from
    /// the deal, each seat's chips gained over it and the chips held after it), `DealEnded`, then
    /// the next deal.
    ///
    /// # Errors
    /// `GameFinished` when there is no deal.
    pub(crate) fn finish_deal(
        &mut self,
        events: &mut Events<R::Event>,
        winner: Seat,
        line: impl FnOnce(&R::Deal, Vec<Chips>, Vec<Chips>) -> R::DealLine,
    ) -> Result<(), RuleViolation> {
        let deal = self.deal.take().ok_or(RuleViolation::GameFinished)?;
        let chips = self.holdings.seats();
        let net = self.holdings.net_since(deal.start_chips());
        self.sheet.push(line(&deal, net.clone(), chips));
        events.push(R::Event::deal_ended(deal.number(), winner, net));
        self.start_deal(deal.number(), events);
        Ok(())
    }

    /// Checks a whole deal's cards left: one entry per seat, none for the seat that went out
    /// and at least one (at most the cards dealt) for every other.
    ///
    /// # Errors
    /// `InvalidResult` naming the first seat that cannot have its count.
    pub(crate) fn check_cards_left(&self, out: Seat, cards_left: &[u8]) -> Result<(), RuleViolation> {
        let deal = self.deal_ref()?;
        for (seat, &left) in Seat::all(self.players).zip(cards_left) {
            let dealt = deal.runs().dealt(seat);
            if (seat == out) != (left == 0) || left > dealt {
                return Err(RuleViolation::InvalidResult(format!(
                    "{seat} cannot have {left} cards left: it was dealt {dealt}, and only {out} went out"
                )));
            }
        }
        Ok(())
    }
}

/// The bank's issue of the chips `options` puts on the pools before the first deal, once
/// checked: only the board's own pools, each at most a seat's most opening chips.
fn opening_pools<R: Rules>(options: &R::Options) -> Result<Option<ChipMovement>, SetupError> {
    let pools = R::pools(options);
    let mut payments = Vec::new();
    for (&pool, &chips) in options.opening_pools() {
        if !pools.contains(&pool) {
            let board: Vec<&str> = pools.iter().map(|p| p.name()).collect();
            return Err(SetupError::InvalidOption {
                option: "opening_pools",
                reason: format!("`{}` is not on this board ({})", pool.name(), board.join(", ")),
            });
        }
        if chips > MAX_OPENING_CHIPS {
            return Err(SetupError::InvalidOption {
                option: "opening_pools",
                reason: format!("at most {MAX_OPENING_CHIPS} chips a pool"),
            });
        }
        payments.push(Transfer::new(
            Account::Bank,
            Account::Pool(pool),
            Chips::new(i64::from(chips)),
        ));
    }
    Ok(ChipMovement::new(None, "chips carried onto the board", payments))
}

impl<R: Rules> Game for Table<R> {
    const ID: GameId = R::ID;
    const NAME: &'static str = R::NAME;
    const SEATS: std::ops::RangeInclusive<usize> = 3..=8;

    type Options = R::Options;
    type Move = R::Move;
    type Event = R::Event;
    type View = R::View;
    type ScoreSheet = R::ScoreSheet;
    type DealLine = R::DealLine;

    fn option_docs() -> &'static [OptionDoc] {
        R::option_docs()
    }

    fn new(players: usize, options: R::Options) -> Result<Table<R>, SetupError> {
        let shared = options.table_options();
        check_table(
            players,
            Self::SEATS,
            shared.first_dealer,
            shared.rounds,
            shared.opening_chips,
        )?;
        let (options, fixed) = R::set_up(players, options)?;
        let carried = opening_pools::<R>(&options)?;
        let mut table = Table {
            players,
            options,
            fixed,
            deals_in_game: u16::from(shared.rounds) * players as u16,
            holdings: Holdings::new(players),
            opening: Vec::new(),
            carried: R::Carried::default(),
            sheet: DealLines::default(),
            deal: None,
        };
        let mut events = Events::new();
        table
            .holdings
            .book(&mut events, opening_chips(players, shared.opening_chips));
        table.holdings.book(&mut events, carried);
        table.start_deal(0, &mut events);
        table.opening = movements(&events);
        Ok(table)
    }

    fn options(&self) -> R::Options {
        self.options.clone()
    }

    fn move_kind(mv: &R::Move) -> &'static str {
        R::move_kind(mv)
    }

    fn move_seat(mv: &R::Move) -> Option<Seat> {
        R::move_seat(mv)
    }

    fn play_move(&mut self, mv: &R::Move) -> Result<Events<R::Event>, RuleViolation> {
        R::play_move(self, mv)
    }

    fn deal_number(&self) -> Option<u16> {
        self.deal.as_ref().map(TableDeal::number)
    }

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(TableDeal::is_fresh)
    }

    fn is_finished(&self) -> bool {
        self.deal.is_none()
    }

    fn running_totals(&self) -> Vec<i64> {
        self.holdings.seats().into_iter().map(Chips::get).collect()
    }

    fn view(&self) -> R::View {
        R::view(self)
    }

    fn deal_lines(&self) -> &DealLines<R::DealLine> {
        &self.sheet
    }

    fn deal_lines_mut(&mut self) -> &mut DealLines<R::DealLine> {
        &mut self.sheet
    }

    fn score_sheet_of(&self, lines: &[R::DealLine]) -> R::ScoreSheet {
        R::score_sheet(self, lines)
    }

    fn opening_settlements(&self) -> Vec<Settlement> {
        self.opening.iter().map(ChipMovement::settlement).collect()
    }

    fn settlements(events: &[R::Event]) -> Vec<Settlement> {
        settlements(events)
    }
}
