//! Pope Joan (`shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops game with a staking
//! board whose divisions are ledger pools.
//!
//! Invariants: the chips on the table (seats plus board) always equal the opening chips the bank
//! issued, and every chip movement is an event (`Event::Chips`) that `settlements` turns into a
//! ledger booking; a deal's cards are played at most once each, never the 8♦ or the turn-up, and no
//! seat plays more than it was dealt (`stops::Runs`); a division's balance is won at most once a
//! deal and otherwise carries over; Game is won every deal.
//!
//! A game of Pope Joan is the stops table (`stops::Table`) with `PopeJoanRules`: this module holds
//! the moves, events and deal, and what Pope Joan adds to the table (`stops::Rules`). By concept:
//! `options` (the table's options), `board` (the divisions, dressing them each deal, winning one),
//! `turn_up`, `play` (card by card: runs, stops, the 9♦'s holder), `specials` (what the 9♦ and the
//! honours of trumps win), `result` (a whole deal at once), `settlement` (going out and the end of
//! a deal), `view` (the phone's view and the score sheet).
//!
//! # Walk-through
//!
//! One round for four (each player deals once), its chips booked as the service books them.
//! The engine never sees the hands, so [`sim::random_deal`] deals them from a seed and plays a
//! random legal deal (declaring a stop when only the spare hand could continue); played on a
//! copy, it gives the moves a table would record, one by one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::collections::BTreeMap;
//!
//! use tablekeeper_rules::games::pope_joan::{sim, Event, LegalMove, Move, Options, Phase};
//! use tablekeeper_rules::{Account, Chips, Game, PopeJoan, RuleViolation, Settlement};
//!
//! let mut game = PopeJoan::new(4, Options { rounds: 1, ..Options::default() })?;
//! let deal = sim::random_deal(&mut game.clone(), 2026)?;
//!
//! // What the ledger would hold: the opening chips, then every move's settlements (the
//! // board's dressing, the divisions won, the payments for cards left).
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
//! // A deal starts with the card turned up for trumps.
//! assert_eq!(game.view().phase, Phase::TurnUp);
//! let Move::TurnUp { card: turned } = deal[0] else { panic!("a turn-up: {:?}", deal[0]) };
//! let events = game.apply(&deal[0])?;
//! assert!(events.contains(&Event::TurnedUp { card: turned, trumps: turned.suit }));
//! book(PopeJoan::settlements(&events));
//!
//! // The dealer's left leads any card still in a hand (or the deal is entered as a result).
//! let view = game.view();
//! let leader = view.to_act.expect("a seat to lead");
//! assert_eq!(Some(leader), view.dealer.map(|dealer| dealer.left(1, 4)));
//! let [LegalMove::Play { seat, cards }, LegalMove::Result { .. }] = view.legal_moves.as_slice() else {
//!     panic!("a lead: {:?}", view.legal_moves)
//! };
//! assert_eq!(*seat, leader);
//! assert!(!cards.contains(&turned));
//!
//! // The turned-up card is in nobody's hand: refused, and nothing changes.
//! let before = game.clone();
//! assert_eq!(
//!     game.apply(&Move::Play { seat: leader, card: turned }),
//!     Err(RuleViolation::CardTurnedUp(turned))
//! );
//! assert_eq!(game, before);
//!
//! // The deal as the simulator played it: its lead is one of the cards offered.
//! assert!(matches!(deal[1], Move::Play { seat, card } if seat == leader && cards.contains(&card)));
//! for mv in &deal[1..] {
//!     book(PopeJoan::settlements(&game.apply(mv)?));
//! }
//! assert_eq!(game.score_sheet().deals.len(), 1);
//!
//! // The other three deals at random (the simulator returns the moves; applying them to the
//! // game gives their events).
//! for seed in [7, 8, 9] {
//!     for mv in sim::random_deal(&mut game.clone(), seed)? {
//!         book(PopeJoan::settlements(&game.apply(&mv)?));
//!     }
//! }
//! assert!(game.is_finished());
//!
//! // The ledger holds what the game says every seat and division holds, and the chips on the
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

use crate::cards::{Card, Rank, Suit};
use crate::chips::Chips;
use crate::error::{RuleViolation, SetupError};
use crate::game::named_alike;
use crate::seat::Seat;
use crate::stops::{self, ChipMovement, MissedPlay, Nothing, Pool, Rules, RunState, Runs, Table};
use crate::{Game, GameId};

mod board;
mod legal;
mod options;
mod play;
mod result;
mod settlement;
pub mod sim;
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

stops::table_event! {
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
    }
    /// Chips moved: each is one ledger booking.
    Chips,
    DealEnded {
        /// Each seat's chips gained (or lost) over the deal.
        net
    },
}

/// The deal being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
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
}

// A deal is fresh until its turn-up.
stops::impl_table_deal!(Deal, |d| d.turn_up.is_none());

/// What a Pope Joan table fixes at set-up beyond its options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fixed {
    /// The chips the board is dressed with each deal.
    board_total: u8,
}

/// A game of Pope Joan: the stops table with Pope Joan's rules.
pub type PopeJoan = Table<PopeJoanRules>;

/// Pope Joan's own part of the stops table (`stops::Rules`): the board and its dressing, the
/// turn-up, declared stops, the specials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PopeJoanRules {}

impl Rules for PopeJoanRules {
    const ID: GameId = GameId::PopeJoan;
    const NAME: &'static str = "Pope Joan";

    type Fixed = Fixed;
    type Carried = Nothing;
    type Deal = Deal;
    named_alike!(DealScore);

    fn pools(options: &Options) -> &'static [Pool] {
        if options.five_divisions {
            board::FIVE_DIVISIONS
        } else {
            board::EIGHT_DIVISIONS
        }
    }

    fn set_up(_players: usize, options: Options) -> Result<(Options, Fixed), SetupError> {
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
        // Kept with the board total filled in, so that `new(players, options())` is this game.
        let options = Options {
            board_total: Some(board_total),
            ..options
        };
        Ok((options, Fixed { board_total }))
    }

    fn deal(table: &mut PopeJoan, number: u16, dealer: Seat, events: &mut Events<Event>) -> Deal {
        table.new_deal(number, dealer, events)
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

    fn play_move(table: &mut PopeJoan, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::TurnUp { card } => table.turn_up(*card),
            Move::Play { seat, card } => table.play(*seat, *card),
            Move::Stop => table.stop(),
            Move::PopeInLieu { seat } => table.pope_in_lieu(*seat),
            Move::PopeHolder { seat } => table.pope_holder(*seat),
            Move::Result {
                out,
                cards_left,
                specials,
                pope_cards_left,
                pope_holder,
            } => table.result(*out, cards_left, specials, pope_cards_left.as_deref(), *pope_holder),
        }
    }

    fn legal_kinds(table: &PopeJoan) -> Vec<&'static str> {
        table.legal_kinds()
    }

    fn view(table: &PopeJoan) -> View {
        let phase = table.phase();
        let deal = table.deal.as_ref();
        let run = deal.and_then(|d| match d.runs.state() {
            RunState::Live { last, by } => d.runs.next_card().map(|next| LiveRun { last, by, next }),
            RunState::Lead { .. } => None,
        });
        View {
            phase,
            deal: table.deal_shown(),
            deals_in_game: table.deals_in_game,
            dealer: table.dealer(),
            hand_size: deal.map(|d| d.hand_size),
            spare_hand: deal.map(|_| deal_sizes(table.players).1),
            turn_up: deal.and_then(|d| d.turn_up),
            trumps: deal.and_then(Deal::trumps),
            to_act: deal.filter(|_| phase == Phase::Playing).and_then(|d| d.runs.leader()),
            run,
            legal_moves: table.legal_moves(),
            cards_left: table.cards_left(),
            played: table.cards_played(),
            missed_plays: deal.map(|d| d.runs.missed_plays().to_vec()).unwrap_or_default(),
            board: table.board(),
            chips: table.holdings.seats(),
            winners: table.winners(),
        }
    }

    fn score_sheet(table: &PopeJoan, lines: &[DealScore]) -> ScoreSheet {
        ScoreSheet {
            deals: lines.to_vec(),
            chips: table.holdings.seats(),
            board: table.board(),
            deals_in_game: table.deals_in_game,
            finished: table.is_finished(),
            winners: table.winners(),
        }
    }
}

#[cfg(test)]
mod tests;
