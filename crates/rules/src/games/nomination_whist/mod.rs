//! Nomination Whist (`shared/rules/nomination-whist.txt`, resolved by `NOTES.md`).
//!
//! Invariants: a deal's cards are all distinct (the turned-up card included); nominations are
//! made in order from the dealer's left, the dealer last; tricks won always add up to the tricks
//! completed; `sheet` holds exactly the deals completed, in order, and `totals` is their sum.
//!
//! # Walk-through
//!
//! A short game for four: hands of 3, 2 and 1 card, the hook rule in every hand. The engine
//! never sees the hands, so [`sim::random_deal`] deals them from a seed and plays a random legal
//! deal; played on a copy, it gives the moves a table would record, one by one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use tablekeeper_rules::games::nomination_whist::{sim, Event, LegalMove, Move, Options, Phase};
//! use tablekeeper_rules::{Game, NominationWhist, RuleViolation, Seat};
//!
//! let options = Options {
//!     hand_sizes: Some(vec![3, 2, 1]),
//!     hook_from_hand_size: 1,
//!     ..Options::default()
//! };
//! let mut game = NominationWhist::new(4, options)?;
//! // Seed 2029 deals hands whose first three nominations leave the dealer a forbidden number.
//! let deal = sim::random_deal(&mut game.clone(), 2029)?;
//!
//! // Nominations go round from the dealer's (seat 0's) left; the dealer nominates last, and
//! // the hook rule forbids the one number that makes the nominations add up to the hand size.
//! for mv in &deal.moves[..3] {
//!     game.apply(mv)?;
//! }
//! let view = game.view();
//! let forbidden = view.forbidden_nomination.expect("the hook rule applies");
//! let [LegalMove::Nominate { seat, tricks }] = view.legal_moves.as_slice() else {
//!     panic!("the dealer nominates: {:?}", view.legal_moves);
//! };
//! assert_eq!(*seat, Seat::new(0));
//! assert!(!tricks.contains(&forbidden));
//!
//! // An illegal move is refused with a typed reason, and changes nothing.
//! let before = game.clone();
//! let hooked = Move::Nominate { seat: Seat::new(0), tricks: forbidden };
//! assert_eq!(
//!     game.apply(&hooked),
//!     Err(RuleViolation::HookRule { seat: Seat::new(0), forbidden })
//! );
//! assert_eq!(game, before);
//!
//! // The dealer's real nomination starts the play; seat 1 leads any card.
//! game.apply(&deal.moves[3])?;
//! assert_eq!(game.view().phase, Phase::Playing);
//! let lead = &deal.moves[4];
//! let Move::Play { seat, card } = *lead else { panic!("a lead: {lead:?}") };
//! assert_eq!(seat, Seat::new(1));
//! let events = game.apply(lead)?;
//! assert_eq!(events.as_slice(), [Event::CardPlayed { seat, card, trick: 1 }]);
//! assert_eq!(game.view().to_act, Some(Seat::new(2)));
//! // The same card again is refused, whoever offers it.
//! assert_eq!(
//!     game.apply(&Move::Play { seat: Seat::new(2), card }),
//!     Err(RuleViolation::CardAlreadyPlayed(card))
//! );
//!
//! // The rest of the deal as recorded, then the rest of the game at random.
//! for mv in &deal.moves[5..] {
//!     game.apply(mv)?;
//! }
//! sim::random_game(&mut game, 7)?;
//! assert!(game.is_finished());
//!
//! // The score sheet: a line per deal, the totals and the winners.
//! let sheet = game.score_sheet();
//! assert_eq!(sheet.deals.len(), 3);
//! for seat in 0..4 {
//!     let points: i32 = sheet.deals.iter().map(|d| d.points[seat]).sum();
//!     assert_eq!(sheet.totals[seat], points);
//! }
//! let best = sheet.totals.iter().max().copied();
//! assert!(sheet.winners.iter().all(|w| Some(sheet.totals[w.index()]) == best));
//! assert_eq!(game.apply(lead), Err(RuleViolation::GameFinished));
//! # Ok(())
//! # }
//! ```

use crate::DealLines;
use crate::Events;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, CardSet, Suit};
use crate::error::{RuleViolation, SetupError};
use crate::game::named_alike;
use crate::seat::{BySeat, Seat};
use crate::trick::{trick_events, Play, Revoke, Trick, TrickCards, Voids};
use crate::{stops, Choice, Game, GameId, OptionDoc, OptionKind, RuleChoice};

pub use legal::LegalMove;
pub use score_sheet::{DealScore, ScoreSheet, Scoring};

/// The trumps of a deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Trumps {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
    NoTrumps,
}

impl Trumps {
    pub fn suit(self) -> Option<Suit> {
        match self {
            Trumps::Clubs => Some(Suit::Clubs),
            Trumps::Diamonds => Some(Suit::Diamonds),
            Trumps::Hearts => Some(Suit::Hearts),
            Trumps::Spades => Some(Suit::Spades),
            Trumps::NoTrumps => None,
        }
    }

    fn of(suit: Suit) -> Trumps {
        match suit {
            Suit::Clubs => Trumps::Clubs,
            Suit::Diamonds => Trumps::Diamonds,
            Suit::Hearts => Trumps::Hearts,
            Suit::Spades => Trumps::Spades,
        }
    }
}

/// How each deal's trumps are chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrumpRule {
    /// A fixed rotation by deal, repeating.
    Rotation {
        #[serde(default = "default_rotation")]
        #[schema(example = json!(["spades", "hearts", "clubs", "diamonds", "no_trumps"]))]
        order: Vec<Trumps>,
    },
    /// The next card of the pack is turned up (recorded with a `turn_up` move); no trumps when
    /// every card was dealt.
    TurnedUp,
    /// Never any trumps.
    NoTrumps,
}

fn default_rotation() -> Vec<Trumps> {
    vec![
        Trumps::Spades,
        Trumps::Hearts,
        Trumps::Clubs,
        Trumps::Diamonds,
        Trumps::NoTrumps,
    ]
}

impl Default for TrumpRule {
    fn default() -> TrumpRule {
        TrumpRule::Rotation {
            order: default_rotation(),
        }
    }
}

/// Table options for Nomination Whist. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = NominationWhistOptions, example = json!({"hand_sizes": [1, 2, 3, 4, 5, 6, 7], "trumps": {"rule": "turned_up"}, "hook_from_hand_size": 1}))]
pub struct Options {
    /// Cards per hand, deal by deal. Left out: 1 up to the largest hand (13, or ⌊52/players⌋
    /// when smaller) and back down to 1.
    #[schema(example = json!([1, 2, 3, 2, 1]))]
    pub hand_sizes: Option<Vec<u8>>,
    pub trumps: TrumpRule,
    /// The hook rule (the dealer may not make the nominations add up to the hand size) applies
    /// to hands of this size and up: 1 applies it always, a size above the largest hand never.
    pub hook_from_hand_size: u8,
    pub scoring: Scoring,
    /// The first dealer (the highest cut), as a seat.
    pub first_dealer: u8,
    /// Points taken off a player's deal score for each revoke proven against them.
    pub revoke_penalty: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hand_sizes: None,
            trumps: TrumpRule::default(),
            hook_from_hand_size: 4,
            scoring: Scoring::default(),
            first_dealer: 0,
            revoke_penalty: 0,
        }
    }
}

const TRUMP_ENTRIES: &[Choice] = &[
    Choice {
        value: "spades",
        label: "♠ Spades",
    },
    Choice {
        value: "hearts",
        label: "♥ Hearts",
    },
    Choice {
        value: "clubs",
        label: "♣ Clubs",
    },
    Choice {
        value: "diamonds",
        label: "♦ Diamonds",
    },
    Choice {
        value: "no_trumps",
        label: "No trumps",
    },
];

const OPTION_DOCS: &[OptionDoc] = &[
    OptionDoc {
        name: "hand_sizes",
        label: "Hand sizes",
        description:
            "Cards dealt to each player, deal by deal; left empty, 1 up to 13 (or 52 ÷ players) and back to 1.",
        kind: OptionKind::Numbers {
            min: 1,
            max: 17,
            max_items: 200,
        },
    },
    OptionDoc {
        name: "trumps",
        label: "Trumps",
        description: "How each deal's trumps are chosen.",
        kind: OptionKind::Rule(&[
            RuleChoice {
                value: "rotation",
                label: "In turn, deal by deal",
                field: Some(("order", "Order", &OptionKind::SuitOrder(TRUMP_ENTRIES))),
            },
            RuleChoice {
                value: "turned_up",
                label: "The next card turned up",
                field: None,
            },
            RuleChoice {
                value: "no_trumps",
                label: "Never any trumps",
                field: None,
            },
        ]),
    },
    OptionDoc {
        name: "hook_from_hand_size",
        label: "Hook from hands of",
        description: "The dealer may not make the nominations add up to the hand size in hands of this size and up.",
        kind: OptionKind::Number { min: 0, max: 255 },
    },
    OptionDoc {
        name: "scoring",
        label: "Scoring",
        description: "How a player's nomination and tricks become points.",
        kind: OptionKind::Choice(&[
            Choice {
                value: "tricks_plus_ten_for_exact",
                label: "1 a trick, 10 more for making it exactly",
            },
            Choice {
                value: "exact_only",
                label: "10 plus the nomination when exact, else nothing",
            },
            Choice {
                value: "minus_nomination_for_miss",
                label: "10 plus the nomination when exact, else minus the nomination",
            },
        ]),
    },
    OptionDoc {
        name: "first_dealer",
        label: "First dealer",
        description: "The player who deals first (the highest cut).",
        kind: OptionKind::Seat,
    },
    OptionDoc {
        name: "revoke_penalty",
        label: "Revoke penalty",
        description: "Points taken off a player's deal score for each revoke proven against them.",
        kind: OptionKind::Number { min: 0, max: 255 },
    },
];

/// A move at a Nomination Whist table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = NominationWhistMove, example = json!({"kind": "play", "seat": 1, "card": "QS"}))]
pub enum Move {
    /// The card the dealer turns up for trumps (trump rule `turned_up` only).
    TurnUp { card: Card },
    /// A player's nomination, in turn from the dealer's left.
    Nominate { seat: Seat, tricks: u8 },
    /// A card played to the current trick, in turn.
    Play { seat: Seat, card: Card },
    /// A whole deal at once: each seat's nomination and tricks won, in seat order.
    Result {
        nominations: Vec<u8>,
        tricks: Vec<u8>,
        /// The turned-up card, when the trump rule turns one up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_up: Option<Card>,
    },
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

trick_events! {
    /// What a move caused.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
    #[serde(tag = "event", rename_all = "snake_case")]
    #[schema(as = NominationWhistEvent)]
    pub enum Event {
        TrumpsTurnedUp {
            card: Card,
            trumps: Trumps,
        },
        Nominated {
            seat: Seat,
            tricks: u8,
        },
    }
    /// A player who showed void in a suit later played it.
    RevokeDetected(Revoke<Suit>),
    {
        DealScored {
            deal: u16,
            points: Vec<i32>,
            totals: Vec<i32>,
        },
        DealStarted {
            deal: u16,
            dealer: Seat,
            hand_size: u8,
            /// Null until the turned-up card is recorded.
            trumps: Option<Trumps>,
        },
        GameFinished {
            winners: Vec<Seat>,
            totals: Vec<i32>,
        },
    }
}

/// Where a deal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    TurnUp,
    Nominating,
    Playing,
    Finished,
}

/// The trick being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CurrentTrick {
    /// 1-based within the deal.
    pub number: u8,
    pub leader: Seat,
    pub plays: Vec<Play<Card>>,
}

/// A seat's nomination: the tricks it undertook to win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NominationWhistNomination)]
pub struct Nomination {
    pub seat: Seat,
    pub tricks: u8,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = NominationWhistView)]
pub struct View {
    pub phase: Phase,
    /// 1-based; the last deal once finished.
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
    pub hand_size: Option<u8>,
    /// Null while a turn-up is awaited, and once the game is over.
    pub trumps: Option<Trumps>,
    pub turn_up: Option<Card>,
    /// The nominations made so far in this deal, in seat order; a seat that has not nominated
    /// yet is not listed (no nulls in an array: some generated clients cannot read them).
    pub nominations: Vec<Nomination>,
    pub tricks_won: Vec<u8>,
    pub current_trick: Option<CurrentTrick>,
    /// The seat to act next; null when any seat may (a turn-up or a result) or the game is over.
    pub to_act: Option<Seat>,
    /// The moves accepted next, with their concrete choices.
    pub legal_moves: Vec<LegalMove>,
    /// The nomination the hook rule forbids the dealer, when the dealer is to nominate.
    pub forbidden_nomination: Option<u8>,
    pub revokes: Vec<Revoke<Suit>>,
    pub totals: Vec<i32>,
    pub winners: Vec<Seat>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Deal {
    /// 0-based index into the schedule.
    index: u16,
    dealer: Seat,
    hand_size: u8,
    /// None while a turn-up is awaited.
    trumps: Option<Trumps>,
    turn_up: Option<Card>,
    nominations: BySeat<Option<u8>>,
    tricks_won: BySeat<u8>,
    tricks_done: u8,
    trick: Trick<Card>,
    played: CardSet,
    voids: Voids,
    revokes: Vec<Revoke<Suit>>,
}

impl Deal {
    fn nominated(&self) -> usize {
        self.nominations.values().iter().flatten().count()
    }

    fn nomination_total(&self) -> u32 {
        self.nominations.values().iter().flatten().map(|&n| u32::from(n)).sum()
    }

    fn is_fresh(&self) -> bool {
        self.turn_up.is_none() && self.nominated() == 0 && self.played.is_empty()
    }
}

/// A game of Nomination Whist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NominationWhist {
    players: usize,
    // Shared, not copied, by the copy each move is applied to: they never change in a game.
    options: Arc<Options>,
    schedule: Arc<[u8]>,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<DealScore>,
    totals: BySeat<i32>,
    /// None once the schedule is done.
    deal: Option<Deal>,
}

/// The default schedule: 1 up to the largest hand and back to 1.
fn default_schedule(players: usize) -> Vec<u8> {
    let top = (52 / players).min(13) as u8;
    (1..=top).chain((1..top).rev()).collect()
}

impl NominationWhist {
    pub fn players(&self) -> usize {
        self.players
    }

    fn start_deal(&self, index: u16) -> Option<Deal> {
        let hand_size = *self.schedule.get(usize::from(index))?;
        let dealer = Seat::new(self.options.first_dealer).left(usize::from(index), self.players);
        let trumps = match &self.options.trumps {
            TrumpRule::Rotation { order } => Some(order[usize::from(index) % order.len()]),
            TrumpRule::NoTrumps => Some(Trumps::NoTrumps),
            TrumpRule::TurnedUp if usize::from(hand_size) * self.players >= 52 => Some(Trumps::NoTrumps),
            TrumpRule::TurnedUp => None,
        };
        Some(Deal {
            index,
            dealer,
            hand_size,
            trumps,
            turn_up: None,
            nominations: BySeat::filled(self.players, None),
            tricks_won: BySeat::filled(self.players, 0),
            tricks_done: 0,
            trick: Trick::new(dealer.left(1, self.players)),
            played: CardSet::default(),
            voids: Voids::new(self.players),
            revokes: Vec::new(),
        })
    }

    fn phase(&self) -> Phase {
        match &self.deal {
            None => Phase::Finished,
            Some(d) if d.trumps.is_none() => Phase::TurnUp,
            Some(d) if d.nominated() < self.players => Phase::Nominating,
            Some(_) => Phase::Playing,
        }
    }

    fn legal_kinds(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::TurnUp, _) => vec!["turn_up", "result"],
            // A recorded turn-up commits the deal to card-by-card entry (`result` checks `is_fresh`).
            (Phase::Nominating, Some(d)) if d.is_fresh() => vec!["nominate", "result"],
            (Phase::Nominating, _) => vec!["nominate"],
            (Phase::Playing, _) => vec!["play"],
            (Phase::Finished, _) => vec![],
        }
    }

    fn not_expected(&self, kind: &'static str) -> RuleViolation {
        stops::not_expected(self.deal.is_none(), kind, || self.legal_kinds())
    }
}

impl Game for NominationWhist {
    const ID: GameId = GameId::NominationWhist;
    const NAME: &'static str = "Nomination Whist";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=7;

    named_alike!(DealScore);

    fn new(players: usize, options: Options) -> Result<NominationWhist, SetupError> {
        SetupError::check_players(players, &Self::SEATS)?;
        let largest = (52 / players) as u8;
        let schedule = options.hand_sizes.clone().unwrap_or_else(|| default_schedule(players));
        if schedule.is_empty() || schedule.len() > 200 {
            return Err(SetupError::InvalidOption {
                option: "hand_sizes",
                reason: "give between 1 and 200 hand sizes".into(),
            });
        }
        if let Some(bad) = schedule.iter().find(|&&h| h == 0 || h > largest) {
            return Err(SetupError::InvalidOption {
                option: "hand_sizes",
                reason: format!("a hand of {bad} is impossible: {players} players hold 1 to {largest} cards"),
            });
        }
        if let TrumpRule::Rotation { order } = &options.trumps {
            if order.is_empty() {
                return Err(SetupError::InvalidOption {
                    option: "trumps",
                    reason: "a rotation needs at least one entry".into(),
                });
            }
        }
        SetupError::check_first_dealer(options.first_dealer, players)?;
        let mut game = NominationWhist {
            players,
            // Kept with the schedule filled in, so that `new(players, options())` is this game.
            options: Arc::new(Options {
                hand_sizes: Some(schedule.clone()),
                ..options
            }),
            schedule: schedule.into(),
            sheet: DealLines::default(),
            totals: BySeat::filled(players, 0),
            deal: None,
        };
        game.deal = game.start_deal(0);
        Ok(game)
    }

    fn options(&self) -> Options {
        Options {
            hand_sizes: Some(self.schedule.to_vec()),
            ..Options::clone(&self.options)
        }
    }

    fn move_kind(mv: &Move) -> &'static str {
        match mv {
            Move::TurnUp { .. } => "turn_up",
            Move::Nominate { .. } => "nominate",
            Move::Play { .. } => "play",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Nominate { seat, .. } | Move::Play { seat, .. } => Some(*seat),
            Move::TurnUp { .. } | Move::Result { .. } => None,
        }
    }

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::TurnUp { card } => self.turn_up(*card),
            Move::Nominate { seat, tricks } => self.nominate(*seat, *tricks),
            Move::Play { seat, card } => self.play(*seat, *card),
            Move::Result {
                nominations,
                tricks,
                turn_up,
            } => self.result(nominations, tricks, *turn_up),
        }
    }

    fn deal_number(&self) -> Option<u16> {
        self.deal.as_ref().map(|d| d.index + 1)
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
        let phase = self.phase();
        let players = self.players;
        let deals_in_game = self.schedule.len() as u16;
        let Some(deal) = &self.deal else {
            return View {
                phase,
                deal: deals_in_game,
                deals_in_game,
                dealer: None,
                hand_size: None,
                trumps: None,
                turn_up: None,
                nominations: Vec::new(),
                tricks_won: vec![0; players],
                current_trick: None,
                to_act: None,
                legal_moves: Vec::new(),
                forbidden_nomination: None,
                revokes: Vec::new(),
                totals: self.totals.values().to_vec(),
                winners: self.winners(),
            };
        };
        let to_act = match phase {
            Phase::Nominating => Some(Self::next_nominator(deal, players)),
            Phase::Playing => Some(deal.trick.next_seat(players)),
            Phase::TurnUp | Phase::Finished => None,
        };
        View {
            phase,
            deal: deal.index + 1,
            deals_in_game,
            dealer: Some(deal.dealer),
            hand_size: Some(deal.hand_size),
            trumps: deal.trumps,
            turn_up: deal.turn_up,
            nominations: deal
                .nominations
                .iter()
                .filter_map(|(seat, n)| n.map(|tricks| Nomination { seat, tricks }))
                .collect(),
            tricks_won: deal.tricks_won.values().to_vec(),
            current_trick: (phase == Phase::Playing).then(|| CurrentTrick {
                number: deal.tricks_done + 1,
                leader: deal.trick.leader(),
                plays: deal.trick.plays().to_vec(),
            }),
            to_act,
            legal_moves: self.legal_moves(),
            forbidden_nomination: if phase == Phase::Nominating {
                self.forbidden_nomination(deal)
            } else {
                None
            },
            revokes: deal.revokes.clone(),
            totals: self.totals.values().to_vec(),
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
            deals_in_game: self.schedule.len() as u16,
            finished: self.deal.is_none(),
            winners: self.winners(),
        }
    }
}

mod legal;
mod nomination;
mod play;
mod result;
mod score_sheet;
pub mod sim;

#[cfg(test)]
mod tests;
