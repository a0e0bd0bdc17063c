//! Spin (`shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops game of 50 cards (8♦
//! and 2♥ out), all dealt, no trumps, with Game, Matrimony (K♦ Q♦) and Intrigue (Q♦ J♦) pools,
//! Spin (A♦) collecting from every player and kings collecting one from each.
//!
//! Invariants: the chips on the table (seats plus the pools) always equal the opening chips;
//! every chip movement is an `Event::Chips` that `settlements` books; Matrimony and Intrigue
//! are won at most once a deal (by showing both cards after playing a stop) and otherwise carry
//! over; Game is won every deal, and its winner pays no Game stake the next deal.
//!
//! By concept: `options` (the table's options), `stakes` (each deal's stakes, and chips collected
//! from every player), `play` (card by card: runs, Spin, showing a pair, Spin's holder),
//! `result` (a whole deal at once), `settlement` (going out and the end of a deal), `view` (the
//! phone's view and the score sheet).

use crate::rules::DealLines;
use crate::rules::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::cards::{Card, CardSet, Rank, Suit};
use crate::rules::chips::{Chips, Settlement};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::Seat;
use crate::rules::stops::{self, opening_chips, ChipMovement, Holdings, Pool, Runs};
use crate::rules::{Game, GameId, OptionDoc};

mod legal;
mod options;
mod play;
mod result;
mod settlement;
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
    Chips {
        #[serde(flatten)]
        movement: ChipMovement,
    },
    DealEnded {
        deal: u16,
        winner: Seat,
        net: Vec<Chips>,
    },
    GameFinished {
        winners: Vec<Seat>,
        chips: Vec<Chips>,
    },
}

stops::impl_chip_event!(Event);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Deal {
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

/// A game of Spin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spin {
    players: usize,
    options: Options,
    deals_in_game: u16,
    holdings: Holdings,
    opening: Vec<ChipMovement>,
    /// The last deal's winner: exempt from the next Game stake.
    last_winner: Option<Seat>,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<DealScore>,
    deal: Option<Deal>,
}

impl Spin {
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
            .map(|d| Seat::all(self.players).map(|s| d.runs.dealt(s)).collect())
            .unwrap_or_default()
    }

    fn not_expected(&self, kind: &'static str) -> RuleViolation {
        stops::not_expected(self.deal.is_none(), kind, || self.legal_kinds())
    }

    fn deal_ref(&self) -> Result<&Deal, RuleViolation> {
        self.deal.as_ref().ok_or(RuleViolation::GameFinished)
    }

    fn deal_mut(&mut self) -> Result<&mut Deal, RuleViolation> {
        self.deal.as_mut().ok_or(RuleViolation::GameFinished)
    }
}

impl Game for Spin {
    const ID: GameId = GameId::Spin;
    const NAME: &'static str = "Spin";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=8;

    type Options = Options;
    type Move = Move;
    type Event = Event;
    type View = View;
    type ScoreSheet = ScoreSheet;
    type DealLine = DealScore;

    fn option_docs() -> &'static [OptionDoc] {
        OPTION_DOCS
    }

    fn new(players: usize, options: Options) -> Result<Spin, SetupError> {
        stops::check_table(
            players,
            Self::SEATS,
            options.first_dealer,
            options.rounds,
            options.opening_chips,
        )?;
        let mut game = Spin {
            players,
            deals_in_game: u16::from(options.rounds) * players as u16,
            options,
            holdings: Holdings::new(players),
            opening: Vec::new(),
            last_winner: None,
            sheet: DealLines::default(),
            deal: None,
        };
        let mut events = Events::new();
        let opening = opening_chips(players, game.options.opening_chips);
        game.holdings.book(&mut events, opening);
        game.start_deal(0, &mut events);
        game.opening = stops::movements(&events);
        Ok(game)
    }

    fn options(&self) -> Options {
        self.options.clone()
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

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::Play { seat, card, spin } => self.play(*seat, *card, *spin),
            Move::Show { seat, combination } => self.show(*seat, *combination),
            Move::SpinHolder { seat } => self.spin_holder(*seat),
            Move::Result {
                out,
                cards_left,
                specials,
                matrimony,
                intrigue,
                spin_holder,
            } => self.result(*out, cards_left, specials, [*matrimony, *intrigue], *spin_holder),
        }
    }

    fn deal_number(&self) -> Option<u16> {
        self.deal.as_ref().map(|d| d.number)
    }

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(|d| d.runs.is_fresh())
    }

    fn is_finished(&self) -> bool {
        self.deal.is_none()
    }

    fn running_totals(&self) -> Vec<i64> {
        self.holdings.seats().into_iter().map(Chips::get).collect()
    }

    fn view(&self) -> View {
        let deal = self.deal.as_ref();
        View {
            phase: self.phase(),
            deal: deal.map_or(self.deals_in_game, |d| d.number),
            deals_in_game: self.deals_in_game,
            dealer: deal.map(|d| d.dealer),
            to_act: deal.filter(|d| d.out.is_none()).and_then(|d| d.runs.leader()),
            next_card: deal.and_then(|d| d.runs.next_card()),
            legal_moves: self.legal_moves(),
            cards_left: deal.map(|d| d.runs.hands_left()).unwrap_or_default(),
            played: deal.map(|d| d.runs.played().iter().collect()).unwrap_or_default(),
            pools: self.pools(),
            chips: self.holdings.seats(),
            winners: self.winners(),
        }
    }

    fn deal_lines(&self) -> &DealLines<DealScore> {
        &self.sheet
    }

    fn deal_lines_mut(&mut self) -> &mut DealLines<DealScore> {
        &mut self.sheet
    }

    fn score_sheet_of(&self, lines: &[DealScore]) -> ScoreSheet {
        ScoreSheet {
            deals: lines.to_vec(),
            chips: self.holdings.seats(),
            pools: self.pools(),
            deals_in_game: self.deals_in_game,
            finished: self.deal.is_none(),
            winners: self.winners(),
        }
    }

    fn opening_settlements(&self) -> Vec<Settlement> {
        self.opening.iter().map(ChipMovement::settlement).collect()
    }

    fn settlements(events: &[Event]) -> Vec<Settlement> {
        stops::settlements(events)
    }
}

#[cfg(test)]
mod tests;
