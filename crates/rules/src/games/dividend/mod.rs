//! Dividend, David Parlett's position-dividend trick game (`shared/rules/dividend.txt`,
//! resolved by `NOTES.md`).
//!
//! Four players, 13 cards each. The trump of a trick depends on the suit led (♥ led → ♠,
//! ♣ → ♥, ♦ → ♣, ♠ → ♦); the winner shares the trick's cards by the position they played from.
//! A deal is recorded card by card, trick by trick (the winners only) or as a result (cards won
//! per seat); its recording mode is fixed by its first move, and all three are scored by the
//! same code (`Dividend::award_trick`, `Dividend::finish_deal`).
//!
//! Invariants: the cards won in a deal always add up to 4 × the tricks completed (52 once the
//! deal is scored); a card is played at most once per deal; `sheet` holds exactly the deals
//! completed, in order, and `totals` is the sum of their points; in partnerships both partners
//! always have the same points and totals.
//!
//! # Walk-through
//!
//! A game of two deals. The engine never sees the hands, so [`sim::random_deal`] deals them
//! from a seed and plays a random legal deal card by card; played on a copy, it gives the moves
//! a table would record, one by one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use tablekeeper_rules::games::dividend::{sim, Event, GameLength, LegalMove, Move, Options};
//! use tablekeeper_rules::{Dividend, Game, RuleViolation, Seat};
//!
//! let options = Options {
//!     game_length: GameLength::Deals { deals: 2 },
//!     ..Options::default()
//! };
//! let start = Dividend::new(4, options)?;
//! let mut game = start.clone();
//! let deal = sim::random_deal(&mut game.clone(), 2026)?;
//!
//! // A deal may be recorded card by card, trick by trick or as a result; its first move
//! // chooses. The dealer (seat 0)'s left leads any of the 52 cards.
//! let legal = game.view().legal_moves;
//! assert!(matches!(
//!     legal.as_slice(),
//!     [LegalMove::Play { seat, trick: 1, cards }, LegalMove::Trick { .. }, LegalMove::Result { cards_total: 52 }]
//!         if *seat == Seat::new(1) && cards.len() == 52
//! ));
//! let Move::Play { seat, card } = deal.moves[0] else { panic!("a lead") };
//! let events = game.apply(&deal.moves[0])?;
//! assert_eq!(events.as_slice(), [Event::CardPlayed { seat, card, trick: 1 }]);
//!
//! // Card by card it is now: naming a trick's winner is refused, and changes nothing.
//! let before = game.clone();
//! assert_eq!(
//!     game.apply(&Move::Trick { winner: Seat::new(2), number: None }),
//!     Err(RuleViolation::MoveNotExpected { kind: "trick", expected: vec!["play"] })
//! );
//! assert_eq!(game, before);
//!
//! // The rest of the deal: each trick's cards are shared by position, and the deal is scored.
//! let mut last = Vec::new();
//! for mv in &deal.moves[1..] {
//!     last = game.apply(mv)?.into_vec();
//! }
//! let Some(Event::DealScored { deal: 1, cards_won, points, .. }) =
//!     last.iter().find(|e| matches!(e, Event::DealScored { .. }))
//! else {
//!     panic!("the deal is scored: {last:?}")
//! };
//! assert_eq!(cards_won.iter().map(|&n| u32::from(n)).sum::<u32>(), 52);
//! assert_eq!(points, &cards_won.iter().map(|&n| i32::from(n)).collect::<Vec<_>>());
//!
//! // The same deal entered as a result scores the same.
//! let mut as_result = start.clone();
//! as_result.apply(&sim::result_move(&deal).expect("a scored deal"))?;
//! assert_eq!(as_result.running_totals(), game.running_totals());
//!
//! // The second deal at random, and the score sheet at the end.
//! sim::random_game(&mut game, 7)?;
//! assert!(game.is_finished());
//! let sheet = game.score_sheet();
//! assert!(sheet.deals.len() >= 2); // more when a tie for first had to be broken
//! assert_eq!(sheet.totals, sheet.deals.last().expect("deals").totals);
//! assert!(!sheet.winners.is_empty());
//! # Ok(())
//! # }
//! ```

use crate::DealLines;
use crate::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, CardSet, Suit};
use crate::error::{RuleViolation, SetupError};
use crate::game::named_alike;
use crate::seat::{BySeat, Seat};
use crate::trick::{Play, Revoke, Trick, TrickCards, Voids};
use crate::{Game, GameId, OptionDoc, OptionKind, RuleChoice};
use smallvec::SmallVec;

pub use distribution::{reachable, shares};
pub use legal::LegalMove;
pub use play::{trick_winner, trump_for};
pub use score_sheet::{DealScore, ScoreSheet};

/// Players at a Dividend table: always four.
pub const PLAYERS: usize = 4;
/// Tricks in a deal.
pub const TRICKS: u8 = 13;
/// Cards in a deal, all of which are won by someone.
pub const CARDS: u32 = 52;

/// When a game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = DividendGameLength)]
pub enum GameLength {
    /// After this many deals (4 in the rules).
    Deals {
        #[serde(default = "default_deals")]
        #[schema(example = 4)]
        deals: u16,
    },
    /// After the first deal at whose end someone has this many points (52 in the rules).
    Points {
        #[serde(default = "default_target")]
        #[schema(example = 52)]
        target: u16,
    },
}

fn default_deals() -> u16 {
    4
}

fn default_target() -> u16 {
    52
}

impl Default for GameLength {
    fn default() -> GameLength {
        GameLength::Deals { deals: default_deals() }
    }
}

/// Table options for Dividend. Every field may be left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = DividendOptions)]
pub struct Options {
    /// Two partnerships, partners opposite (seats 0 and 2 against 1 and 3); each partner scores
    /// the higher of the two partners' counts.
    pub partnerships: bool,
    /// `{"rule": "deals", "deals": 4}` or `{"rule": "points", "target": 52}`. A tie for first
    /// at the end adds deals until it is broken.
    pub game_length: GameLength,
    /// The first dealer, as a seat; the deal passes to the left and the dealer's left leads.
    pub first_dealer: u8,
    /// Points taken off a deal score for each revoke proven against the player (in
    /// partnerships, against either partner) when a deal is recorded card by card.
    pub revoke_penalty: u8,
}

const OPTION_DOCS: &[OptionDoc] = &[
    OptionDoc {
        name: "partnerships",
        label: "Partnerships",
        description: "Partners sit opposite, each scoring the higher of the two partners' counts.",
        kind: OptionKind::Toggle,
    },
    OptionDoc {
        name: "game_length",
        label: "Game ends",
        description: "When the game ends; a tie for first adds deals until it is broken.",
        kind: OptionKind::Rule(&[
            RuleChoice {
                value: "deals",
                label: "After a number of deals",
                field: Some(("deals", "Deals", &OptionKind::Number { min: 1, max: 100 })),
            },
            RuleChoice {
                value: "points",
                label: "When someone reaches a target",
                field: Some(("target", "Points", &OptionKind::Number { min: 1, max: 1000 })),
            },
        ]),
    },
    OptionDoc {
        name: "first_dealer",
        label: "First dealer",
        description: "The player who deals first; the dealer's left leads.",
        kind: OptionKind::Seat,
    },
    OptionDoc {
        name: "revoke_penalty",
        label: "Revoke penalty",
        description: "Points taken off for each revoke proven when a deal is recorded card by card.",
        kind: OptionKind::Number { min: 0, max: 255 },
    },
];

/// A move at a Dividend table. A deal is recorded in one way, chosen by its first move:
/// `play` card by card, `trick` with the winner of each trick, or `result` all at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = DividendMove)]
pub enum Move {
    /// A card played to the current trick, in turn from the leader. The engine finds the
    /// trick's winner, shares its cards out and names the next leader.
    #[schema(examples(json!({"kind": "play", "seat": 1, "card": "QH"})))]
    Play { seat: Seat, card: Card },
    /// The winner of the current trick; the leader is known, so the winner's position and the
    /// sharing of the cards follow.
    #[schema(examples(json!({"kind": "trick", "winner": 2}), json!({"kind": "trick", "winner": 2, "number": 5})))]
    Trick {
        winner: Seat,
        /// The trick's number in the deal (1–13), as the phone shows it: when given it must be
        /// the trick being recorded, which guards against a double tap.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(minimum = 1, maximum = 13)]
        number: Option<u8>,
    },
    /// The whole deal at once: the cards each seat won, in seat order, adding up to 52 and
    /// possible from the deal's first leader.
    #[schema(examples(json!({"kind": "result", "cards_won": [17, 11, 13, 11]})))]
    Result {
        #[schema(min_items = 4, max_items = 4)]
        cards_won: Vec<u8>,
    },
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = DividendRecording)]
pub enum Recording {
    CardByCard,
    TrickByTrick,
    ResultOnly,
}

/// What a move caused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
#[schema(as = DividendEvent)]
pub enum Event {
    CardPlayed {
        seat: Seat,
        card: Card,
        trick: u8,
    },
    /// A player who showed void in a suit later played it.
    RevokeDetected {
        #[serde(flatten)]
        revoke: Revoke<Suit>,
    },
    /// A trick's winner and how its cards were shared.
    TrickWon {
        trick: u8,
        leader: Seat,
        winner: Seat,
        /// The winner's position in the trick, 1 (led) to 4.
        position: u8,
        /// Cards of the trick each seat receives, in seat order.
        shares: Vec<u8>,
        /// The cards, when the deal is recorded card by card.
        #[serde(default, skip_serializing_if = "SmallVec::is_empty")]
        #[schema(value_type = Vec<Play<Card>>)]
        cards: TrickCards<Card>,
    },
    DealScored {
        deal: u16,
        cards_won: Vec<u8>,
        points: Vec<i32>,
        totals: Vec<i32>,
    },
    /// The game's end was reached with a tie for first: deals are added until it is broken.
    TieForFirst {
        seats: Vec<Seat>,
        totals: Vec<i32>,
    },
    DealStarted {
        deal: u16,
        dealer: Seat,
        leader: Seat,
        /// True for a deal added to break a tie for first.
        tie_break: bool,
    },
    GameFinished {
        winners: Vec<Seat>,
        totals: Vec<i32>,
    },
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = DividendPhase)]
pub enum Phase {
    Playing,
    Finished,
}

/// The trick being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = DividendCurrentTrick)]
pub struct CurrentTrick {
    /// 1-based within the deal.
    pub number: u8,
    pub leader: Seat,
    /// The suit that trumps this trick, once a card has been led.
    pub trumps: Option<Suit>,
    /// The cards played so far (card-by-card recording only).
    pub plays: Vec<Play<Card>>,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = DividendView)]
pub struct View {
    pub phase: Phase,
    /// 1-based; the last deal once finished.
    pub deal: u16,
    pub dealer: Option<Seat>,
    pub partnerships: bool,
    pub game_length: GameLength,
    /// How this deal is being recorded; null until its first move fixes it.
    pub recording: Option<Recording>,
    /// Tricks completed in this deal.
    pub tricks_played: u8,
    /// Cards won so far in this deal, per seat.
    pub cards_won: Vec<u8>,
    pub current_trick: Option<CurrentTrick>,
    /// The seat to play the next card (the leader at the start of a trick); null once the game
    /// is over.
    pub to_act: Option<Seat>,
    /// The moves accepted next, with their concrete choices.
    pub legal_moves: Vec<LegalMove>,
    pub revokes: Vec<Revoke<Suit>>,
    pub totals: Vec<i32>,
    /// True while deals are being added to break a tie for first.
    pub tie_break: bool,
    /// The seats tied for first while a tie is being broken.
    pub tied_for_first: Vec<Seat>,
    pub winners: Vec<Seat>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Deal {
    /// 1-based.
    number: u16,
    dealer: Seat,
    tie_break: bool,
    /// None until the deal's first move.
    recording: Option<Recording>,
    tricks_done: u8,
    /// The trick under way; its leader is the seat to lead it.
    trick: Trick<Card>,
    cards_won: BySeat<u8>,
    played: CardSet,
    voids: Voids,
    revokes: Vec<Revoke<Suit>>,
}

impl Deal {
    fn is_fresh(&self) -> bool {
        self.recording.is_none()
    }
}

/// A game of Dividend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dividend {
    options: Options,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<DealScore>,
    /// How many deals are scored: what the game length counts, and the last deal's number.
    deals_scored: u16,
    totals: BySeat<i32>,
    /// None once the game is over.
    deal: Option<Deal>,
}

impl Dividend {
    pub fn players(&self) -> usize {
        PLAYERS
    }

    fn start_deal(&self, number: u16, tie_break: bool) -> Deal {
        let dealer = Seat::new(self.options.first_dealer).left(usize::from(number.saturating_sub(1)), PLAYERS);
        Deal {
            number,
            dealer,
            tie_break,
            recording: None,
            tricks_done: 0,
            trick: Trick::new(dealer.left(1, PLAYERS)),
            cards_won: BySeat::filled(PLAYERS, 0),
            played: CardSet::default(),
            voids: Voids::new(PLAYERS),
            revokes: Vec::new(),
        }
    }

    fn legal_kinds(&self) -> Vec<&'static str> {
        match self.deal.as_ref().map(|d| d.recording) {
            None => Vec::new(),
            Some(None) => vec!["play", "trick", "result"],
            Some(Some(Recording::CardByCard)) => vec!["play"],
            Some(Some(Recording::TrickByTrick)) => vec!["trick"],
            // A result finishes its deal at once; the next deal is fresh.
            Some(Some(Recording::ResultOnly)) => Vec::new(),
        }
    }

    /// The deal under way, when `kind` may be recorded in it now.
    fn deal_for(&self, kind: &'static str, recording: Recording) -> Result<&Deal, RuleViolation> {
        let deal = self.deal.as_ref().ok_or(RuleViolation::GameFinished)?;
        if deal.recording.is_some_and(|r| r != recording) || (recording == Recording::ResultOnly && !deal.is_fresh()) {
            return Err(RuleViolation::MoveNotExpected {
                kind,
                expected: self.legal_kinds(),
            });
        }
        Ok(deal)
    }
}

impl Game for Dividend {
    const ID: GameId = GameId::Dividend;
    const NAME: &'static str = "Dividend";
    const SEATS: std::ops::RangeInclusive<usize> = PLAYERS..=PLAYERS;

    named_alike!(DealScore);

    fn new(players: usize, options: Options) -> Result<Dividend, SetupError> {
        SetupError::check_players(players, &Self::SEATS)?;
        match options.game_length {
            GameLength::Deals { deals } if !(1..=100).contains(&deals) => {
                return Err(SetupError::InvalidOption {
                    option: "game_length",
                    reason: format!("a game of {deals} deals is out of range: give 1 to 100"),
                })
            }
            GameLength::Points { target } if !(1..=1000).contains(&target) => {
                return Err(SetupError::InvalidOption {
                    option: "game_length",
                    reason: format!("a target of {target} points is out of range: give 1 to 1000"),
                })
            }
            _ => {}
        }
        SetupError::check_first_dealer(options.first_dealer, players)?;
        let mut game = Dividend {
            options,
            sheet: DealLines::default(),
            deals_scored: 0,
            totals: BySeat::filled(players, 0),
            deal: None,
        };
        game.deal = Some(game.start_deal(1, false));
        Ok(game)
    }

    fn options(&self) -> Options {
        self.options.clone()
    }

    fn move_kind(mv: &Move) -> &'static str {
        match mv {
            Move::Play { .. } => "play",
            Move::Trick { .. } => "trick",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Play { seat, .. } => Some(*seat),
            Move::Trick { .. } | Move::Result { .. } => None,
        }
    }

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::Play { seat, card } => self.play(*seat, *card),
            Move::Trick { winner, number } => self.trick(*winner, *number),
            Move::Result { cards_won } => self.result(cards_won),
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
        self.totals.values().iter().map(|&t| i64::from(t)).collect()
    }

    fn trick_plan(&self) -> Option<crate::trick::TrickPlan> {
        self.plan()
    }

    fn view(&self) -> View {
        let totals = self.totals.values().to_vec();
        let tie_break = self.tie_break();
        let Some(deal) = &self.deal else {
            return View {
                phase: Phase::Finished,
                deal: self.deals_scored,
                dealer: None,
                partnerships: self.options.partnerships,
                game_length: self.options.game_length,
                recording: None,
                tricks_played: 0,
                cards_won: vec![0; PLAYERS],
                current_trick: None,
                to_act: None,
                legal_moves: Vec::new(),
                revokes: Vec::new(),
                totals,
                tie_break,
                tied_for_first: Vec::new(),
                winners: self.winners(),
            };
        };
        View {
            phase: Phase::Playing,
            deal: deal.number,
            dealer: Some(deal.dealer),
            partnerships: self.options.partnerships,
            game_length: self.options.game_length,
            recording: deal.recording,
            tricks_played: deal.tricks_done,
            cards_won: deal.cards_won.values().to_vec(),
            current_trick: Some(CurrentTrick {
                number: deal.tricks_done + 1,
                leader: deal.trick.leader(),
                trumps: deal.trick.led().map(|c| trump_for(c.suit)),
                plays: deal.trick.plays().to_vec(),
            }),
            to_act: Some(deal.trick.next_seat(PLAYERS)),
            legal_moves: self.legal_moves(),
            revokes: deal.revokes.clone(),
            totals,
            tie_break,
            tied_for_first: if tie_break { self.leaders() } else { Vec::new() },
            winners: Vec::new(),
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
            totals: self.totals.values().to_vec(),
            partnerships: self.options.partnerships,
            game_length: self.options.game_length,
            tie_break: self.tie_break(),
            finished: self.deal.is_none(),
            winners: self.winners(),
        }
    }
}

mod distribution;
mod legal;
mod play;
mod result;
mod score_sheet;
pub mod sim;
mod tricks;

#[cfg(test)]
mod tests;
