//! Pope Joan (`shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops game with a
//! staking board whose divisions are ledger pools.
//!
//! Invariants: the chips on the table (seats plus board) always equal the opening chips the
//! bank issued, and every chip movement is an event (`Event::Chips`) that `settlements` turns
//! into a ledger booking; a deal's cards are played at most once each, never the 8♦ or the
//! turn-up, and no seat plays more than it was dealt (`stops::Runs`); a division's balance is
//! won at most once a deal and otherwise carries over; Game is won every deal.
//!
//! By concept: `options` (the table's options), `board` (the divisions, dressing them each deal,
//! winning one), `turn_up`, `play` (card by card: runs, stops, the 9♦'s holder), `specials`
//! (what the 9♦ and the honours of trumps win), `result` (a whole deal at once), `settlement`
//! (going out and the end of a deal), `view` (the phone's view and the score sheet).

use crate::rules::DealLines;
use crate::rules::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::cards::{Card, Rank, Suit};
use crate::rules::chips::{Chips, Settlement};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::Seat;
use crate::rules::stops::{self, opening_chips, ChipMovement, Holdings, MissedPlay, Pool, RunState, Runs};
use crate::rules::{Game, GameId, OptionDoc};

mod board;
mod legal;
mod options;
mod play;
mod result;
mod settlement;
mod specials;
mod turn_up;
mod view;

pub use legal::LegalMove;
pub use options::{Dressing, Options};
pub use view::{DealScore, LiveRun, Phase, ScoreSheet, View};

use options::OPTION_DOCS;

/// The nine of diamonds.
pub const POPE: Card = Card::new(Rank::Nine, Suit::Diamonds);

/// The card taken out of the pack.
pub const EIGHT_OF_DIAMONDS: Card = Card::new(Rank::Eight, Suit::Diamonds);

/// Cards per hand and in the spare hand: ⌊50/(n+1)⌋ each, the spare hand the rest.
pub fn deal_sizes(players: usize) -> (u8, u8) {
    let hand = 50 / (players + 1);
    (hand as u8, (50 - hand * players) as u8)
}

/// A move at a Pope Joan table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = PopeJoanMove)]
pub enum Move {
    /// The card turned up for trumps, first in each deal.
    TurnUp { card: Card },
    /// A card played: a lead, or the next card up of the live run from any seat.
    Play { seat: Seat, card: Card },
    /// Nobody can continue the live run (a stop the engine cannot see).
    Stop,
    /// The 9♦ played after a stop in place of the card the run needed, from any seat (option
    /// `pope_in_lieu_of_stop`); the run goes on from that card.
    PopeInLieu { seat: Seat },
    /// After a player goes out with the 9♦ unplayed: who holds it (null: the spare hand).
    PopeHolder { seat: Option<Seat> },
    /// A whole deal at once, after the turn-up.
    Result {
        /// The seat that went out first.
        out: Seat,
        /// Cards left in each hand, by seat (0 for the seat that went out).
        cards_left: Vec<u8>,
        /// The specials (9♦, A K Q J of trumps) each seat played, by seat.
        specials: Vec<Vec<Card>>,
        /// When the 9♦ was played: cards left in each hand at that moment, by seat.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pope_cards_left: Option<Vec<u8>>,
        /// When the 9♦ was not played: the seat still holding it (exempt from paying).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pope_holder: Option<Seat>,
    },
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = PopeJoanRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
    /// Ended by a Pope turn-up that wins the game.
    TurnUp,
}

/// What a move caused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
#[schema(as = PopeJoanEvent)]
pub enum Event {
    DealStarted {
        deal: u16,
        dealer: Seat,
        hand_size: u8,
        spare_hand: u8,
    },
    TurnedUp {
        card: Card,
        trumps: Suit,
    },
    CardPlayed {
        seat: Seat,
        card: Card,
        cards_left: u8,
    },
    /// The run stopped at `card`; `leader` leads next.
    Stopped {
        card: Card,
        leader: Seat,
        /// Declared by the table rather than known to the engine.
        declared: bool,
    },
    MissedPlayDetected {
        #[serde(flatten)]
        missed: MissedPlay,
    },
    WentOut {
        seat: Seat,
        cards_left: Vec<u8>,
        /// The holder of the unplayed 9♦, who pays nothing.
        exempt: Option<Seat>,
    },
    /// Chips moved: each is one ledger booking.
    Chips {
        #[serde(flatten)]
        movement: ChipMovement,
    },
    DealEnded {
        deal: u16,
        winner: Seat,
        /// Each seat's chips gained (or lost) over the deal.
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
    /// 1-based.
    number: u16,
    dealer: Seat,
    hand_size: u8,
    turn_up: Option<Card>,
    runs: Runs,
    /// Specials played this deal, in order.
    specials: Vec<(Seat, Card)>,
    /// Divisions won this deal.
    won: Vec<Pool>,
    /// The seat that went out, while the 9♦'s holder is awaited.
    out: Option<Seat>,
    /// Chips held when the deal began.
    start_chips: Vec<Chips>,
}

impl Deal {
    fn trumps(&self) -> Option<Suit> {
        self.turn_up.map(|c| c.suit)
    }

    fn is_fresh(&self) -> bool {
        self.turn_up.is_none()
    }
}

/// A game of Pope Joan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PopeJoan {
    players: usize,
    options: Options,
    board_total: u8,
    deals_in_game: u16,
    holdings: Holdings,
    /// The table's opening movements (opening chips, the first dressing).
    opening: Vec<ChipMovement>,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<DealScore>,
    deal: Option<Deal>,
}

impl PopeJoan {
    pub fn players(&self) -> usize {
        self.players
    }

    pub fn holdings(&self) -> &Holdings {
        &self.holdings
    }

    /// Cards each seat still holds in the current deal.
    pub fn cards_left(&self) -> Vec<u8> {
        self.deal.as_ref().map(|d| d.runs.hands_left()).unwrap_or_default()
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

impl Game for PopeJoan {
    const ID: GameId = GameId::PopeJoan;
    const NAME: &'static str = "Pope Joan";
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

    fn new(players: usize, options: Options) -> Result<PopeJoan, SetupError> {
        stops::check_table(
            players,
            Self::SEATS,
            options.first_dealer,
            options.rounds,
            options.opening_chips,
        )?;
        let least = if options.five_divisions { 12 } else { 15 };
        let board_total = options.board_total.unwrap_or(least);
        if board_total < least {
            return Err(SetupError::InvalidOption {
                option: "board_total",
                reason: format!("the board needs at least {least} chips to cover its divisions"),
            });
        }
        if options.pope_turn_up_cap == Some(0) {
            return Err(SetupError::InvalidOption {
                option: "pope_turn_up_cap",
                reason: "a cap is at least 1".into(),
            });
        }
        let mut game = PopeJoan {
            players,
            board_total,
            deals_in_game: u16::from(options.rounds) * players as u16,
            // Kept with the board total filled in, so that `new(players, options())` is this game.
            options: Options {
                board_total: Some(board_total),
                ..options
            },
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
            Move::TurnUp { .. } => "turn_up",
            Move::Play { .. } => "play",
            Move::Stop => "stop",
            Move::PopeInLieu { .. } => "pope_in_lieu",
            Move::PopeHolder { .. } => "pope_holder",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Play { seat, .. } | Move::PopeInLieu { seat } => Some(*seat),
            _ => None,
        }
    }

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::TurnUp { card } => self.turn_up(*card),
            Move::Play { seat, card } => self.play(*seat, *card),
            Move::Stop => self.stop(),
            Move::PopeInLieu { seat } => self.pope_in_lieu(*seat),
            Move::PopeHolder { seat } => self.pope_holder(*seat),
            Move::Result {
                out,
                cards_left,
                specials,
                pope_cards_left,
                pope_holder,
            } => self.result(*out, cards_left, specials, pope_cards_left.as_deref(), *pope_holder),
        }
    }

    fn deal_number(&self) -> Option<u16> {
        self.deal.as_ref().map(|d| d.number)
    }

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(Deal::is_fresh)
    }

    fn is_finished(&self) -> bool {
        self.deal.is_none()
    }

    fn running_totals(&self) -> Vec<i64> {
        self.holdings.seats().into_iter().map(Chips::get).collect()
    }

    fn view(&self) -> View {
        let phase = self.phase();
        let deal = self.deal.as_ref();
        let run = deal.and_then(|d| match d.runs.state() {
            RunState::Live { last, by } => d.runs.next_card().map(|next| LiveRun { last, by, next }),
            RunState::Lead { .. } => None,
        });
        View {
            phase,
            deal: deal.map_or(self.deals_in_game, |d| d.number),
            deals_in_game: self.deals_in_game,
            dealer: deal.map(|d| d.dealer),
            hand_size: deal.map(|d| d.hand_size),
            spare_hand: deal.map(|_| deal_sizes(self.players).1),
            turn_up: deal.and_then(|d| d.turn_up),
            trumps: deal.and_then(Deal::trumps),
            to_act: deal.filter(|_| phase == Phase::Playing).and_then(|d| d.runs.leader()),
            run,
            legal_moves: self.legal_moves(),
            cards_left: self.cards_left(),
            played: deal.map(|d| d.runs.played().iter().collect()).unwrap_or_default(),
            missed_plays: deal.map(|d| d.runs.missed_plays().to_vec()).unwrap_or_default(),
            board: self.board(),
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
            board: self.board(),
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
