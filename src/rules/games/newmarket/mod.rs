//! Newmarket (the third variation of `shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a
//! stops game of 48 cards (the sevens out), all dealt, with four pool cards whose stakes are
//! won by playing the card just below them.
//!
//! Invariants: the chips on the table (seats plus the four pools) always equal the opening chips;
//! every chip movement is an `Event::Chips` that `settlements` books; the pools are accounts by
//! rank (`pool_ace` …), so an unwon pool carries over to the next deal's card of that rank;
//! every card is dealt, so there is no declared stop: a run stops only at a king, a six (the
//! seven is out), a card just below a pool card, or a card whose next is played.
//!
//! By concept: `options` (the table's options), `layout` (the pool cards and their stakes),
//! `play` (card by card), `result` (a whole deal at once), `settlement` (a pool won, going out
//! and the end of a deal), `view` (the phone's view and the score sheet).

use crate::rules::DealLines;
use crate::rules::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::cards::{Card, CardSet, Rank, Suit};
use crate::rules::chips::{Chips, Settlement};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::Seat;
use crate::rules::stops::{self, even_hands, opening_chips, ChipMovement, Holdings, Runs};
use crate::rules::{Game, GameId, OptionDoc};

mod layout;
mod legal;
mod options;
mod play;
mod result;
mod settlement;
mod view;

pub use layout::winning_card;
pub use legal::LegalMove;
pub use options::Options;
pub use view::{DealScore, Phase, ScoreSheet, View};

use layout::{pool_of, POOL_RANKS};
use options::OPTION_DOCS;

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
        /// The seats that played each pool's winning card, in the order the pool cards were
        /// laid out (null: not played).
        pool_winners: Vec<Option<Seat>>,
    },
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = NewmarketRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

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
    pool_cards: Vec<Card>,
    runs: Runs,
    start_chips: Vec<Chips>,
}

/// A game of Newmarket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Newmarket {
    players: usize,
    options: Options,
    deals_in_game: u16,
    holdings: Holdings,
    opening: Vec<ChipMovement>,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<DealScore>,
    deal: Option<Deal>,
}

impl Newmarket {
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

    fn start_deal(&mut self, index: u16, events: &mut Events<Event>) {
        if index >= self.deals_in_game {
            self.deal = None;
            events.push(Event::GameFinished {
                winners: self.winners(),
                chips: self.holdings.seats(),
            });
            return;
        }
        let dealer = Seat::new(self.options.first_dealer).left(usize::from(index), self.players);
        let hands = even_hands(48, self.players, dealer);
        events.push(Event::DealStarted {
            deal: index + 1,
            dealer,
            hands: hands.values().to_vec(),
        });
        self.deal = Some(Deal {
            number: index + 1,
            dealer,
            pool_cards: Vec::new(),
            runs: Runs::new(sevens(), false, hands, dealer.left(1, self.players)),
            start_chips: self.holdings.seats(),
        });
    }
}

impl Game for Newmarket {
    const ID: GameId = GameId::Newmarket;
    const NAME: &'static str = "Newmarket";
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

    fn new(players: usize, options: Options) -> Result<Newmarket, SetupError> {
        stops::check_table(
            players,
            Self::SEATS,
            options.first_dealer,
            options.rounds,
            options.opening_chips,
        )?;
        if players == 3 && options.dealer_extra == 0 {
            return Err(SetupError::InvalidOption {
                option: "dealer_extra",
                reason: "three players' stakes cannot cover four pools without the dealer's extra".into(),
            });
        }
        let mut game = Newmarket {
            players,
            deals_in_game: u16::from(options.rounds) * players as u16,
            options,
            holdings: Holdings::new(players),
            opening: Vec::new(),
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

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::Layout {
                pool_cards,
                stakes,
                dealer_extra_on,
            } => self.layout(pool_cards, stakes, *dealer_extra_on),
            Move::Play { seat, card } => self.play(*seat, *card),
            Move::Result {
                out,
                cards_left,
                pool_winners,
            } => self.result(*out, cards_left, pool_winners),
        }
    }

    fn deal_number(&self) -> Option<u16> {
        self.deal.as_ref().map(|d| d.number)
    }

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(|d| d.pool_cards.is_empty())
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
            pool_cards: deal.map(|d| d.pool_cards.clone()).unwrap_or_default(),
            to_act: deal.filter(|d| !d.pool_cards.is_empty()).and_then(|d| d.runs.leader()),
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
