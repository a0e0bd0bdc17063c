//! Tricky Dick (`shared/rules/tricky-dick.txt`, resolved by `NOTES.md`), played with the
//! 64-card Squares deck (`rules::squares`).
//!
//! Four players, 16 cards each. Trick 1 is each player's sixteenth card, dealt face up and
//! entered as one move; then 15 tricks, each led by the previous trick's winner, any card legal.
//! The highest number wins; among cards tied on number, the one whose colour occurs most often in
//! the trick; then colour rank blue > green > yellow > red; then shape square > triangle > heart >
//! circle. A trick's value (circles − squares) goes to the winner and to everyone who laid the
//! winner's colour; a lay that shares no attribute with the same player's lay to the previous
//! trick costs 1. Each player's chips are one signed balance against the bank (white chips
//! positive, coloured chips negative), booked trick by trick.
//!
//! Invariants: a hand's cards are all distinct; `totals` always equals the sum of everything
//! booked so far (the chips each seat holds against the bank), so it is the sum of the completed
//! hands on `sheet` plus the current hand's `points`; a hand has 16 tricks. A hand entered as a
//! result (each seat's trick chips and penalties) is booked by the same code as a trick.
//!
//! # Walk-through
//!
//! A game of two hands, its chips booked as the service books them. The engine never sees the
//! hands, so [`sim::random_hand`] deals them from a seed and plays a random legal hand; played
//! on a copy, it gives the moves a table would record, one by one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::collections::BTreeMap;
//!
//! use tablekeeper_rules::games::tricky_dick::{sim, Event, LegalMove, Move, Options};
//! use tablekeeper_rules::{Account, Chips, Game, RuleViolation, Seat, TrickyDick};
//!
//! let mut game = TrickyDick::new(4, Options { hands: 2, ..Options::default() })?;
//! let hand = sim::random_hand(&mut game.clone(), 2026)?;
//!
//! // What the ledger would hold: every move's settlements, each balanced, booked.
//! let mut ledger: BTreeMap<Account, Chips> = BTreeMap::new();
//! let mut book = |events: &[Event]| {
//!     for settlement in TrickyDick::settlements(events) {
//!         assert_eq!(settlement.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
//!         for (account, chips) in settlement.postings {
//!             *ledger.entry(account).or_default() += chips;
//!         }
//!     }
//! };
//!
//! // Trick 1 is the four face-up sixteenth cards, entered at once (or the hand as a result).
//! assert!(matches!(
//!     game.view().legal_moves.as_slice(),
//!     [LegalMove::FirstTrick { .. }, LegalMove::Result { .. }]
//! ));
//! let events = game.apply(&hand.moves[0])?;
//! let Some(Event::TrickWon { result, .. }) = events.iter().find(|e| matches!(e, Event::TrickWon { .. })) else {
//!     panic!("trick 1 is complete: {events:?}")
//! };
//! let leader = result.winner;
//! book(&events);
//!
//! // Its winner leads trick 2 with any card not yet laid this hand.
//! let legal = game.view().legal_moves;
//! let [LegalMove::Play { seat, trick: 2, cards }] = legal.as_slice() else {
//!     panic!("a lead to trick 2: {legal:?}")
//! };
//! assert_eq!(*seat, leader);
//! let Move::Play { card, .. } = hand.moves[1] else { panic!("a lead") };
//! assert!(cards.contains(&card));
//! let events = game.apply(&hand.moves[1])?;
//! assert!(matches!(events.as_slice(), [Event::CardPlayed { trick: 2, .. }]));
//! book(&events);
//!
//! // Illegal moves are refused with a typed reason, and change nothing.
//! let before = game.clone();
//! let next = game.view().to_act.expect("a seat to play");
//! assert_eq!(
//!     game.apply(&Move::Play { seat: next, card, trick: None }),
//!     Err(RuleViolation::SquaresCardAlreadyPlayed(card))
//! );
//! // A card meant for trick 3 (a phone that thinks trick 2 is over) is refused too.
//! let other = cards.iter().copied().find(|&c| c != card).expect("another card");
//! assert_eq!(
//!     game.apply(&Move::Play { seat: next, card: other, trick: Some(3) }),
//!     Err(RuleViolation::TrickNotStarted { trick: 3, current: 2 })
//! );
//! assert_eq!(game, before);
//!
//! // The rest of the hand as recorded, then the second hand at random.
//! for mv in &hand.moves[2..] {
//!     book(&game.apply(mv)?);
//! }
//! for played in sim::random_game(&mut game, 7)? {
//!     played.events.iter().for_each(|events| book(events));
//! }
//! assert!(game.is_finished());
//!
//! // Each seat's chips against the bank: the booked balances, the running totals and the
//! // score sheet agree.
//! let sheet = game.score_sheet();
//! assert_eq!(sheet.hands.len(), 2);
//! for seat in Seat::all(4) {
//!     let booked = ledger.get(&Account::Seat(seat)).copied().unwrap_or_default();
//!     assert_eq!(booked.get(), game.running_totals()[seat.index()]);
//!     assert_eq!(booked.get(), i64::from(sheet.totals[seat.index()]));
//! }
//! assert!(!sheet.winners.is_empty());
//! # Ok(())
//! # }
//! ```

use crate::DealLines;
use crate::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::chips::Settlement;
use crate::error::{RuleViolation, SetupError};
use crate::game::named_alike;
use crate::seat::{BySeat, Seat};
use crate::squares::{SquaresCard, SquaresSet};
use crate::trick::{Play, Trick};
use crate::{stops, Choice, Game, GameId, OptionDoc, OptionKind};

pub use legal::LegalMove;
pub use play::trick_winner;
pub use score_sheet::{CooperativeScore, HandScore, ScoreSheet};

/// Seats at a Tricky Dick table.
pub const PLAYERS: usize = 4;
/// Tricks in a hand: trick 1 face up, then 15 played.
pub const TRICKS: u8 = 16;
/// The most hands a table may be set up for.
pub const MAX_HANDS: u16 = 200;
/// A seat's trick chips in one hand lie in `-MAX_TRICK_CHIPS..=MAX_TRICK_CHIPS`: the deck holds
/// 16 circles and 16 squares, and a seat scores each trick at most once.
pub const MAX_TRICK_CHIPS: i32 = 16;
/// The four seats' trick chips of one hand add up to `-MAX_TRICK_CHIPS_TOTAL..=MAX_TRICK_CHIPS_TOTAL`:
/// a hand's trick values add up to 0 (16 circles, 16 squares), at most 16 on either side, and a
/// trick's value reaches one to four seats; so the positive tricks give the seats at most 4 × 16
/// and the negative ones take at least 16 (and the other way round).
pub const MAX_TRICK_CHIPS_TOTAL: i64 = 48;
/// Penalties of a seat in one hand: one per trick after the first at most.
pub const MAX_PENALTIES: u8 = TRICKS - 1;

/// Who plays with whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TrickyDickMode)]
pub enum Mode {
    /// Everyone for themselves: the highest total wins.
    #[default]
    Individual,
    /// 2-on-2, partners opposite (seats 0 and 2 against 1 and 3): a team's score is the sum of
    /// its two players'.
    Partnerships,
    /// All four as one team: the score is the four totals added up, divided by the hands played.
    Cooperative,
}

/// Table options for Tricky Dick. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = TrickyDickOptions)]
pub struct Options {
    pub mode: Mode,
    /// Hands to play (the deal passes to the left after each); 4 lets everyone deal once.
    #[schema(example = 4, minimum = 1, maximum = 200)]
    pub hands: u16,
    /// The first dealer, as a seat.
    pub first_dealer: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mode: Mode::Individual,
            hands: 4,
            first_dealer: 0,
        }
    }
}

const OPTION_DOCS: &[OptionDoc] = &[
    OptionDoc {
        name: "mode",
        label: "Playing as",
        description: "Who scores together.",
        kind: OptionKind::Choice(&[
            Choice {
                value: "individual",
                label: "Everyone for themselves",
            },
            Choice {
                value: "partnerships",
                label: "Partners opposite, a team scoring the sum",
            },
            Choice {
                value: "cooperative",
                label: "All four as one team",
            },
        ]),
    },
    OptionDoc {
        name: "hands",
        label: "Hands",
        description: "Hands to play; the deal passes to the left after each, so 4 lets everyone deal once.",
        kind: OptionKind::Number {
            min: 1,
            max: MAX_HANDS as i64,
        },
    },
    OptionDoc {
        name: "first_dealer",
        label: "First dealer",
        description: "The player who deals first.",
        kind: OptionKind::Seat,
    },
];

/// A move at a Tricky Dick table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = TrickyDickMove)]
pub enum Move {
    /// Trick 1: each seat's sixteenth card, dealt face up. Exactly four cards, in seat order
    /// (`cards[0]` is seat 0's).
    FirstTrick {
        #[schema(example = json!(["3BS", "1RC", "4GH", "2YT"]))]
        cards: Vec<SquaresCard>,
    },
    /// A card laid to the current trick (tricks 2 to 16), in turn from the leader. Any card is
    /// legal.
    Play {
        seat: Seat,
        card: SquaresCard,
        /// The trick the card is meant for (1-based). Optional; when given it must be the
        /// current trick, so that a phone that missed the end of a trick cannot lay a fifth card
        /// to it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = 2)]
        trick: Option<u8>,
    },
    /// The whole hand at once, instead of trick 1 and the plays: per seat, in seat order, the
    /// trick chips it scored (circles − squares of each trick it scored, summed: −16 to 16, the
    /// four adding up to −48 to 48) and how many of its lays were penalised (0 to 15). Booked
    /// as a hand played card by card would be: each seat's chips less one per penalty.
    Result {
        #[schema(example = json!([3, -2, 3, 0]))]
        trick_chips: Vec<i32>,
        #[schema(example = json!([1, 0, 2, 4]))]
        penalties: Vec<u8>,
    },
}

/// A completed trick: who won, what it was worth and to whom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TrickyDickTrick)]
pub struct TrickResult {
    /// 1-based within the hand.
    pub trick: u8,
    pub winner: Seat,
    /// The cards, from the leader (trick 1: from the dealer's left).
    pub cards: Vec<Play<SquaresCard>>,
    pub circles: u8,
    pub squares: u8,
    /// Circles − squares: what each scorer gets.
    pub value: i32,
    /// The winner and everyone else who laid the winner's colour, in seat order.
    pub scorers: Vec<Seat>,
    /// Seats whose card shares no number, colour or shape with their card in the previous
    /// trick: 1 off each.
    pub penalised: Vec<Seat>,
}

/// What a move caused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
#[schema(as = TrickyDickEvent)]
pub enum Event {
    /// A card laid to the current trick; `penalised` when it shares nothing with the seat's
    /// card in the previous trick.
    CardPlayed {
        seat: Seat,
        card: SquaresCard,
        trick: u8,
        penalised: bool,
    },
    /// A trick is complete. Its value and penalties are booked to the seats' chips.
    TrickWon {
        /// 1-based hand number.
        hand: u16,
        #[serde(flatten)]
        result: TrickResult,
    },
    /// A hand entered as its result: per seat its trick chips and penalties, booked to the
    /// seats' chips.
    ResultEntered {
        hand: u16,
        trick_chips: Vec<i32>,
        penalties: Vec<u8>,
    },
    HandScored {
        hand: u16,
        points: Vec<i32>,
        totals: Vec<i32>,
    },
    HandStarted {
        hand: u16,
        dealer: Seat,
    },
    GameFinished {
        winners: Vec<Seat>,
        totals: Vec<i32>,
    },
}

/// A player's chips the way the table holds them: white chips when the balance is positive,
/// coloured chips when it is negative, never both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TrickyDickChips)]
pub struct ChipStack {
    pub white: u32,
    pub coloured: u32,
}

impl ChipStack {
    pub fn of(balance: i32) -> ChipStack {
        ChipStack {
            white: balance.max(0).unsigned_abs(),
            coloured: balance.min(0).unsigned_abs(),
        }
    }
}

/// Where a hand stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TrickyDickPhase)]
pub enum Phase {
    /// Waiting for trick 1, the four face-up sixteenth cards, or the hand's result.
    FirstTrick,
    Playing,
    Finished,
}

/// The trick being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TrickyDickCurrentTrick)]
pub struct CurrentTrick {
    /// 2 to 16.
    pub number: u8,
    pub leader: Seat,
    pub plays: Vec<Play<SquaresCard>>,
    /// Seats whose card so far shares nothing with their previous lay.
    pub penalised: Vec<Seat>,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = TrickyDickView)]
pub struct View {
    pub phase: Phase,
    pub mode: Mode,
    /// 1-based; the last hand once finished.
    pub hand: u16,
    pub hands_in_game: u16,
    pub dealer: Option<Seat>,
    pub current_trick: Option<CurrentTrick>,
    /// The trick completed last in this hand.
    pub last_trick: Option<TrickResult>,
    /// Each seat's card in the last completed trick of this hand, in seat order: a card
    /// sharing no number, colour or shape with it costs 1. Empty before trick 1 is complete.
    pub previous_lays: Vec<Play<SquaresCard>>,
    /// The seat to play next; null while trick 1 is awaited (it is entered whole) and at the end.
    pub to_act: Option<Seat>,
    /// The moves accepted next, with their concrete choices.
    pub legal_moves: Vec<LegalMove>,
    /// Per seat, this hand so far.
    pub hand_points: Vec<i32>,
    /// Per seat, everything so far including the hand in progress: each player's chip balance
    /// against the bank.
    pub totals: Vec<i32>,
    /// Per seat, `totals` as the table holds it: white (+) or coloured (−) chips.
    pub chips: Vec<ChipStack>,
    /// Partnerships only: [seats 0 + 2, seats 1 + 3], including the hand in progress.
    pub team_totals: Option<Vec<i32>>,
    /// Cooperative only: over the completed hands.
    pub cooperative: Option<CooperativeScore>,
    pub winners: Vec<Seat>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Hand {
    /// 0-based.
    index: u16,
    dealer: Seat,
    tricks_done: u8,
    /// The trick in progress (tricks 2 to 16).
    trick: Trick<SquaresCard>,
    played: SquaresSet,
    /// Each seat's card in the last completed trick.
    previous: Option<BySeat<SquaresCard>>,
    points: BySeat<i32>,
    penalties: BySeat<u8>,
    last_trick: Option<TrickResult>,
}

impl Hand {
    fn new(index: u16, dealer: Seat) -> Hand {
        Hand {
            index,
            dealer,
            tricks_done: 0,
            trick: Trick::new(dealer.left(1, PLAYERS)),
            played: SquaresSet::default(),
            previous: None,
            points: BySeat::filled(PLAYERS, 0),
            penalties: BySeat::filled(PLAYERS, 0),
            last_trick: None,
        }
    }

    fn number(&self) -> u16 {
        self.index + 1
    }
}

/// A game of Tricky Dick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrickyDick {
    options: Options,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<HandScore>,
    /// Totals over the completed hands, and how many hands are completed: what the sheet's
    /// totals and the cooperative score read.
    completed_totals: Vec<i32>,
    hands_completed: u16,
    /// Everything booked so far, the hand in progress included.
    totals: BySeat<i32>,
    /// None once every hand is played.
    hand: Option<Hand>,
}

impl TrickyDick {
    fn start_hand(&self, index: u16) -> Option<Hand> {
        (index < self.options.hands).then(|| {
            Hand::new(
                index,
                Seat::new(self.options.first_dealer).left(usize::from(index), PLAYERS),
            )
        })
    }

    fn phase(&self) -> Phase {
        match &self.hand {
            None => Phase::Finished,
            Some(h) if h.tricks_done == 0 => Phase::FirstTrick,
            Some(_) => Phase::Playing,
        }
    }

    fn legal_kinds(&self) -> Vec<&'static str> {
        match self.phase() {
            Phase::FirstTrick => vec!["first_trick", "result"],
            Phase::Playing => vec!["play"],
            Phase::Finished => Vec::new(),
        }
    }

    fn not_expected(&self, kind: &'static str) -> RuleViolation {
        stops::not_expected(self.hand.is_none(), kind, || self.legal_kinds())
    }

    /// Books chips to the hand in progress and to the totals: to each seat its trick chips less
    /// one per penalty. The one place a trick played and a hand entered as a result both score.
    fn book(&mut self, chips: &BySeat<i32>, penalties: &BySeat<u8>) {
        let Some(hand) = self.hand.as_mut() else { return };
        for seat in Seat::all(PLAYERS) {
            let points = chips[seat] - i32::from(penalties[seat]);
            hand.points[seat] += points;
            hand.penalties[seat] += penalties[seat];
            self.totals[seat] += points;
        }
    }
}

impl Game for TrickyDick {
    const ID: GameId = GameId::TrickyDick;
    const NAME: &'static str = "Tricky Dick";
    const SEATS: std::ops::RangeInclusive<usize> = PLAYERS..=PLAYERS;

    named_alike!(HandScore);

    fn new(players: usize, options: Options) -> Result<TrickyDick, SetupError> {
        SetupError::check_players(players, &Self::SEATS)?;
        if !(1..=MAX_HANDS).contains(&options.hands) {
            return Err(SetupError::InvalidOption {
                option: "hands",
                reason: format!("play 1 to {MAX_HANDS} hands, not {}", options.hands),
            });
        }
        SetupError::check_first_dealer(options.first_dealer, PLAYERS)?;
        let mut game = TrickyDick {
            options,
            sheet: DealLines::default(),
            completed_totals: vec![0; PLAYERS],
            hands_completed: 0,
            totals: BySeat::filled(PLAYERS, 0),
            hand: None,
        };
        game.hand = game.start_hand(0);
        Ok(game)
    }

    fn options(&self) -> Options {
        self.options.clone()
    }

    fn move_kind(mv: &Move) -> &'static str {
        match mv {
            Move::FirstTrick { .. } => "first_trick",
            Move::Play { .. } => "play",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Play { seat, .. } => Some(*seat),
            Move::FirstTrick { .. } | Move::Result { .. } => None,
        }
    }

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::FirstTrick { cards } => self.first_trick(cards),
            Move::Play { seat, card, trick } => self.play(*seat, *card, *trick),
            Move::Result { trick_chips, penalties } => self.result(trick_chips, penalties),
        }
    }

    fn deal_number(&self) -> Option<u16> {
        self.hand.as_ref().map(Hand::number)
    }

    fn at_deal_boundary(&self) -> bool {
        self.hand.as_ref().is_none_or(|h| h.tricks_done == 0)
    }

    fn is_finished(&self) -> bool {
        self.hand.is_none()
    }

    fn running_totals(&self) -> Vec<i64> {
        self.totals.values().iter().map(|&t| i64::from(t)).collect()
    }

    fn view(&self) -> View {
        let totals = self.totals.values().to_vec();
        let phase = self.phase();
        let hand = self.hand.as_ref();
        let current_trick = hand.filter(|_| phase == Phase::Playing).map(|h| CurrentTrick {
            number: h.tricks_done + 1,
            leader: h.trick.leader(),
            plays: h.trick.plays().to_vec(),
            penalised: h.penalised_seats(h.trick.plays()),
        });
        View {
            phase,
            mode: self.options.mode,
            hand: hand.map_or(self.options.hands, Hand::number),
            hands_in_game: self.options.hands,
            dealer: hand.map(|h| h.dealer),
            to_act: hand
                .filter(|_| phase == Phase::Playing)
                .map(|h| h.trick.next_seat(PLAYERS)),
            current_trick,
            last_trick: hand.and_then(|h| h.last_trick.clone()),
            previous_lays: hand
                .and_then(|h| h.previous.as_ref())
                .map(|previous| previous.iter().map(|(seat, &card)| Play { seat, card }).collect())
                .unwrap_or_default(),
            legal_moves: self.legal_moves(),
            hand_points: hand.map_or_else(|| vec![0; PLAYERS], |h| h.points.values().to_vec()),
            chips: totals.iter().copied().map(ChipStack::of).collect(),
            team_totals: self.team_totals(&totals),
            cooperative: self.cooperative(),
            totals,
            winners: self.winners(),
        }
    }

    fn deal_lines(&self) -> &DealLines<HandScore> {
        &self.sheet
    }

    fn deal_lines_mut(&mut self) -> &mut DealLines<HandScore> {
        &mut self.sheet
    }

    fn score_sheet_of(&self, lines: &[HandScore]) -> ScoreSheet {
        let totals = self.sheet_totals();
        ScoreSheet {
            mode: self.options.mode,
            hands: lines.to_vec(),
            team_totals: self.team_totals(&totals),
            cooperative: self.cooperative(),
            totals,
            hands_in_game: self.options.hands,
            finished: self.hand.is_none(),
            winners: self.winners(),
        }
    }

    /// Per completed trick: one settlement for its value (bank ↔ each scorer) and one for its
    /// penalties (each penalised seat → bank), each only when chips move; a hand entered as a
    /// result likewise, its trick chips and its penalties.
    fn settlements(events: &[Event]) -> Vec<Settlement> {
        settlement::settlements(events)
    }
}

mod legal;
mod penalties;
mod play;
mod result;
mod score_sheet;
mod settlement;
pub mod sim;

#[cfg(test)]
mod tests;
