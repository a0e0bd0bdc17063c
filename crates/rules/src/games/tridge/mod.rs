//! Tridge, Tresillo/Ombre with English cards (`shared/rules/tridge.txt`, resolved by `NOTES.md`).
//!
//! Three active players; with a fourth participant the dealer sits out but pays and collects.
//! A deal runs: auction (Play, Play More, … pass; an earlier seat holds an equal bid) → the
//! Player's declaration of the contract → exchange (Player, defence settled between Centre and
//! Rear, 1st Defender up to 8, 2nd Defender the rest) → nine tricks → settlement. When everyone
//! passes: No Tricks, the Fixed Trick reverse auction, or a pass-out with the fund topped up.
//!
//! Chips: every movement is a `ChipsMoved` event of `rules::Transfer`s between `rules::Account`s
//! (seats, the Game Fund, the Widow's Fund, Reserve Funds and the bank), so `settlements` is a
//! pure function of the events. Invariants: the chips on the table (seats, funds, reserves) always equal the
//! opening chips issued; the Game Fund never exceeds four times its opening value (the excess
//! goes to a Reserve); a refused move changes nothing.
//!
//! This file holds the types a client sees and `impl Game`; the rules live by concept in
//! `deal` (stages and turns), `auction` (and the all-pass paths), `contract`, `exchange`,
//! `play`, `funds` (the pots and the `Booker`), `settlement` and `score_sheet`.
//!
//! # Walk-through
//!
//! A session for three, its chips booked as the service books them. The engine never sees the
//! hands, so [`sim::random_deal`] deals them from a seed and plays a random legal deal (an
//! auction, a contract, exchanges, nine tricks or a stop, or one of the all-pass paths); played
//! on a copy, it gives the moves a table would record, one by one. A session has no set end:
//! it finishes when the players settle the Widow's Fund.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::collections::BTreeMap;
//!
//! use tablekeeper_rules::games::tridge::{sim, Event, LegalMove, Move, Options, WidowsChoice};
//! use tablekeeper_rules::{Account, Chips, Game, RuleViolation, Seat, Settlement, Tridge};
//!
//! let mut game = Tridge::new(3, Options::default())?;
//! let deal = sim::random_deal(&mut game.clone(), 2026)?;
//!
//! // What the ledger would hold: the opening chips and funds, then every move's settlements.
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
//! // The auction: the seat to speak may bid or pass (or the whole deal may be entered at once).
//! let view = game.view();
//! let first = view.to_act.expect("a seat to speak");
//! assert!(view.legal_moves.iter().any(|m| matches!(m, LegalMove::Bid { seat, .. } if *seat == first)));
//! assert!(view.legal_moves.contains(&LegalMove::Pass { seat: first }));
//!
//! // Another seat speaking out of turn is refused, and changes nothing.
//! let before = game.clone();
//! let other = first.left(1, 3);
//! assert_eq!(
//!     game.apply(&Move::Pass { seat: other }),
//!     Err(RuleViolation::NotYourTurn { expected: first, got: other })
//! );
//! assert_eq!(game, before);
//!
//! // The deal as the simulator played it: its first move is the first seat's call.
//! assert_eq!(Tridge::move_seat(&deal[0]), Some(first));
//! let events = game.apply(&deal[0])?;
//! assert!(matches!(events[0], Event::Bid { seat, .. } | Event::Passed { seat } if seat == first));
//! book(Tridge::settlements(&events));
//! for mv in &deal[1..] {
//!     book(Tridge::settlements(&game.apply(mv)?));
//! }
//! assert_eq!(game.score_sheet().deals.len(), 1);
//!
//! // Two more deals at random (the simulator returns the moves; applying them to the game
//! // gives their events), then the session ends with the Widow's Fund shared out.
//! for seed in [7, 8] {
//!     let mut copy = game.clone();
//!     for mv in sim::random_deal(&mut copy, seed)? {
//!         book(Tridge::settlements(&game.apply(&mv)?));
//!     }
//! }
//! let end = game.apply(&Move::SettleWidowsFund { choice: WidowsChoice::Split })?;
//! book(Tridge::settlements(&end));
//! assert!(game.is_finished());
//!
//! // The seats' booked chips are what the game says each holds, and the chips on the table
//! // (seats and funds) are what the bank issued: 500 each.
//! let sheet = game.score_sheet();
//! for seat in Seat::all(3) {
//!     assert_eq!(ledger[&Account::Seat(seat)], sheet.chips[seat.index()]);
//!     assert_eq!(ledger[&Account::Seat(seat)].get(), game.running_totals()[seat.index()]);
//! }
//! assert_eq!(ledger[&Account::Bank], Chips::new(-1500));
//! # Ok(())
//! # }
//! ```

mod auction;
mod contract;
mod deal;
mod declaring;
mod exchange;
mod funds;
mod legal;
mod play;
pub mod ranking;
mod score_sheet;
mod settlement;
pub mod sim;

use crate::DealLines;
use crate::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::{Card, Suit};
use crate::chips::{Account, Chips, Settlement, Transfer};
use crate::error::{RuleViolation, SetupError};
use crate::game::named_alike;
use crate::seat::{BySeat, Seat};
use crate::trick::{trick_events, Play, Revoke, TrickCards};
use crate::{Game, GameId, OptionDoc, OptionKind};

use auction::fixed_from_key;
pub use contract::{Bid, Contract};
use deal::{Deal, Stage};
use funds::{from_each, to_each, Pots};
pub use funds::{Funds, Reserve};
pub use legal::{FixedBidChoice, LegalMove};
use ranking::FollowSuit;
pub use score_sheet::{DealLine, Outcome, Recording, ScoreSheet};
pub use settlement::{classify, half_fund};

/// Tricks in a deal.
const TRICKS: u8 = 9;
/// Cards left in the stock after the deal.
const STOCK: u8 = 13;

/// Table options for Tridge. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = TridgeOptions)]
pub struct Options {
    /// Chips each participant receives from the bank at the start (the text's convention: 400–600).
    pub opening_chips: i64,
    /// Each participant's stake into the Widow's Fund when it is (re-)seeded.
    pub widows_stake: i64,
    /// Each participant's stake into the Game Fund when it is (re-)seeded or topped up.
    pub fund_stake: i64,
    /// The Game Fund may grow to this many times its opening value; the excess forms Reserves.
    pub fund_cap_multiple: i64,
    /// The first dealer, as a seat.
    pub first_dealer: u8,
    /// Whether the Fixed Trick reverse auction may follow an all-pass.
    pub fixed_trick: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            opening_chips: 500,
            widows_stake: 25,
            fund_stake: 5,
            fund_cap_multiple: 4,
            first_dealer: 0,
            fixed_trick: true,
        }
    }
}

const OPTION_DOCS: &[OptionDoc] = &[
    OptionDoc {
        name: "opening_chips",
        label: "Opening chips",
        description: "Chips each participant starts with, from the bank (400 to 600 by the book).",
        kind: OptionKind::Number {
            min: 1,
            max: 1_000_000_000,
        },
    },
    OptionDoc {
        name: "widows_stake",
        label: "Widow's Fund stake",
        description: "Each participant's stake into the Widow's Fund when it is seeded.",
        kind: OptionKind::Number { min: 0, max: 1_000_000 },
    },
    OptionDoc {
        name: "fund_stake",
        label: "Game Fund stake",
        description: "Each participant's stake into the Game Fund when it is seeded or topped up.",
        kind: OptionKind::Number { min: 1, max: 1_000_000 },
    },
    OptionDoc {
        name: "fund_cap_multiple",
        label: "Game Fund cap",
        description: "How many times its opening value the Game Fund may grow to; the excess forms Reserve Funds.",
        kind: OptionKind::Number { min: 1, max: 100 },
    },
    OptionDoc {
        name: "first_dealer",
        label: "First dealer",
        description: "The player who deals first.",
        kind: OptionKind::Seat,
    },
    OptionDoc {
        name: "fixed_trick",
        label: "Fixed Trick",
        description: "The Fixed Trick reverse auction may follow when everyone passes.",
        kind: OptionKind::Toggle,
    },
];

/// What the players decide to do with the Widow's Fund at the end of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeWidowsChoice)]
pub enum WidowsChoice {
    /// Split evenly among the participants; the remainder stays in the fund.
    Split,
    /// Left in the fund (for a later session or a final pot).
    Leave,
}

/// A move at a Tridge table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = TridgeMove)]
pub enum Move {
    /// A call in the auction (or, after everyone passed, `no_tricks` by any active seat).
    Bid { seat: Seat, bid: Bid },
    /// A pass in the auction or the Fixed Trick auction.
    Pass { seat: Seat },
    /// The Player names the contract.
    Declare { seat: Seat, contract: Contract },
    /// Cards taken from the stock (as many discarded): the Player first, then 1st and 2nd Defender.
    Exchange { seat: Seat, cards: u8 },
    /// The defence settled between Centre and Rear: who is 1st Defender.
    Defence { first_defender: Seat },
    /// The dealer's count before play: discards plus stock must be 13, or the deal is void.
    CountStock { discards: u8, stock: u8 },
    /// A bid in the Fixed Trick reverse auction: fewer tricks beat more; equal by suit ♦ > ♥ > ♠ > ♣.
    FixedBid {
        seat: Seat,
        tricks: u8,
        /// Required: the bidder must name trumps (and hold one).
        #[serde(default)]
        trumps: Option<Suit>,
    },
    /// Everyone passed and nobody plays: the deal is passed out.
    PassOut,
    /// With four participants, after everyone passed: the dealer comes in as a fourth player.
    InCome { seat: Seat },
    /// The In-comer declines to play after taking the nine cards (No Play).
    GiveUp { seat: Seat },
    /// A card played to the current trick, in turn.
    Play { seat: Seat, card: Card },
    /// The Player stops after taking the first five tricks (a win); the top trumps still held
    /// are shown for honours.
    Stop {
        seat: Seat,
        #[serde(default)]
        top_trumps: Vec<Card>,
    },
    /// A whole deal at once, scored by the same code as card-by-card play.
    Result {
        player: Seat,
        contract: Contract,
        /// The Player's honours count; or give `top_trumps`.
        #[serde(default)]
        honours: Option<u8>,
        /// The Player's top trumps after the exchange, from which honours are counted.
        #[serde(default)]
        top_trumps: Option<Vec<Card>>,
        /// Tricks per seat (0 for a seat sitting out); 9 in all, or 5:0:0 when stopped.
        tricks: Vec<u8>,
        #[serde(default)]
        stopped_after_five: bool,
        /// The Player took the first five and played on for all nine.
        #[serde(default)]
        all_tricks_after_fifth: bool,
        /// The Player is the dealer of four who came in after everyone passed (pays a quarter
        /// of the Game Fund; all four take tricks).
        #[serde(default)]
        in_comer: bool,
    },
    /// The end of the session: what becomes of the Widow's Fund. No moves follow.
    SettleWidowsFund { choice: WidowsChoice },
}

trick_events! {
    /// What a move caused.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
    #[serde(tag = "event", rename_all = "snake_case")]
    #[schema(as = TridgeEvent)]
    pub enum Event {
        Bid {
            seat: Seat,
            bid: Bid,
        },
        Passed {
            seat: Seat,
        },
        AuctionWon {
            seat: Seat,
            bid: Bid,
        },
        AllPassed,
        FixedBid {
            seat: Seat,
            tricks: u8,
            trumps: Suit,
        },
        Declared {
            seat: Seat,
            contract: Contract,
            trumps: Suit,
        },
        Exchanged {
            seat: Seat,
            cards: u8,
            stock_left: u8,
        },
        DefenceSettled {
            first_defender: Seat,
            second_defender: Seat,
        },
        StockCounted {
            discards: u8,
            stock: u8,
        },
        /// The deal is void (the count was wrong): nothing is paid, the next dealer deals.
        DealVoid {
            deal: u16,
        },
    }
    /// A player who showed void in a suit (trumps count as one) later played it.
    RevokeDetected(Revoke<FollowSuit>),
    {
        /// The No Tricks or Fixed Trick Player played out the deal without a trump, which the
        /// contract requires holding (found after the fact; chips are settled as played).
        TrumpNotHeld {
            seat: Seat,
        },
        /// The Player took the first five tricks and may stop (a win) or lead on for all nine.
        MayStop {
            seat: Seat,
        },
        Stopped {
            seat: Seat,
        },
        /// The Player led to the sixth trick after taking the first five: All Tricks undertaken.
        AllTricksUndertaken {
            seat: Seat,
        },
        DealScored {
            deal: u16,
            player: Seat,
            contract: Contract,
            tricks: Vec<u8>,
            honours: u8,
            outcome: Outcome,
            /// All Tricks undertaken after the fifth trick: whether all nine were made.
            all_tricks_made: Option<bool>,
        },
        PassedOut {
            deal: u16,
        },
        /// The dealer of four came in after everyone passed, paying a quarter of the Game Fund.
        CameIn {
            seat: Seat,
            paid: Chips,
        },
        /// The In-comer gave up after seeing the nine cards (No Play).
        GaveUp {
            seat: Seat,
        },
        /// Chips moved, for `reason`, in `deal` (1-based).
        ChipsMoved {
            deal: u16,
            reason: String,
            transfers: Vec<Transfer>,
        },
        DealStarted {
            deal: u16,
            dealer: Seat,
            sitting_out: Option<Seat>,
        },
        WidowsFundSettled {
            choice: WidowsChoice,
            /// Chips to each participant (0 when left).
            share: Chips,
            /// What stays in the fund.
            remainder: Chips,
        },
        GameFinished,
    }
}

/// Where a deal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgePhase)]
pub enum Phase {
    Auction,
    AllPassed,
    FixedAuction,
    Declaring,
    PlayerExchange,
    Defence,
    FirstDefenderExchange,
    SecondDefenderExchange,
    /// One card each, the In-comer first.
    InComerExchange,
    Playing,
    Finished,
}

/// The trick being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = TridgeCurrentTrick)]
pub struct CurrentTrick {
    pub number: u8,
    pub leader: Seat,
    pub plays: Vec<Play<Card>>,
}

/// The standing bid in the auction and its bidder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = TridgeStandingBid)]
pub struct StandingBid {
    pub seat: Seat,
    pub bid: Bid,
}

/// The standing bid in the Fixed Trick auction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = TridgeStandingFixedBid)]
pub struct StandingFixedBid {
    pub seat: Seat,
    pub tricks: u8,
    pub trumps: Suit,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = TridgeView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub dealer: Seat,
    /// The dealer when four take part.
    pub sitting_out: Option<Seat>,
    /// Dealer's left: bids first and leads the first trick.
    pub lead: Seat,
    /// Who plays this deal, in order from the dealer's left (four with an In-comer).
    pub active: Vec<Seat>,
    /// Null when any active seat may act, or the game is over.
    pub to_act: Option<Seat>,
    /// The moves accepted next, with their concrete choices.
    pub legal_moves: Vec<LegalMove>,
    pub standing_bid: Option<StandingBid>,
    pub standing_fixed_bid: Option<StandingFixedBid>,
    pub player: Option<Seat>,
    pub contract: Option<Contract>,
    pub trumps: Option<Suit>,
    pub first_defender: Option<Seat>,
    pub stock_left: u8,
    pub tricks_won: Vec<u8>,
    pub current_trick: Option<CurrentTrick>,
    pub may_stop: bool,
    pub all_tricks_undertaken: bool,
    pub revokes: Vec<Revoke<FollowSuit>>,
    pub funds: Funds,
    pub chips: Vec<Chips>,
}

/// A game of Tridge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tridge {
    players: usize,
    options: Options,
    pots: Pots,
    chips: BySeat<Chips>,
    deal: Deal,
    /// Lines of finished deals not yet taken out: history beside the state, never serialized.
    #[serde(skip)]
    sheet: DealLines<DealLine>,
    finished: bool,
}

impl Game for Tridge {
    const ID: GameId = GameId::Tridge;
    const NAME: &'static str = "Tridge (Tresillo/Ombre)";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=4;

    named_alike!(DealLine);

    fn new(players: usize, options: Options) -> Result<Tridge, SetupError> {
        SetupError::check_players(players, &Self::SEATS)?;
        let bad = |option, reason: &str| {
            Err(SetupError::InvalidOption {
                option,
                reason: reason.to_owned(),
            })
        };
        if !(1..=1_000_000_000).contains(&options.opening_chips) {
            return bad("opening_chips", "give 1 to 1000000000 chips");
        }
        if !(0..=1_000_000).contains(&options.widows_stake) {
            return bad("widows_stake", "give 0 to 1000000 chips");
        }
        if !(1..=1_000_000).contains(&options.fund_stake) {
            return bad("fund_stake", "give 1 to 1000000 chips");
        }
        if !(1..=100).contains(&options.fund_cap_multiple) {
            return bad("fund_cap_multiple", "give a multiple of 1 to 100");
        }
        let Ok(first_dealer) = Seat::new(options.first_dealer).check(players) else {
            return bad("first_dealer", "there is no such seat at this table");
        };
        let opening = Chips::new(options.opening_chips);
        let stakes = Chips::new(options.widows_stake + options.fund_stake);
        let n = players as i64;
        Ok(Tridge {
            players,
            pots: Pots {
                game: Chips::new(options.fund_stake * n),
                widows: Chips::new(options.widows_stake * n),
                reserves: Vec::new(),
                next_reserve: 1,
                raised: false,
                reserve_open: false,
            },
            chips: BySeat::filled(players, opening - stakes),
            options,
            deal: Deal::new(1, first_dealer, players),
            sheet: DealLines::default(),
            finished: false,
        })
    }

    fn options(&self) -> Options {
        self.options.clone()
    }

    fn move_kind(mv: &Move) -> &'static str {
        match mv {
            Move::Bid { .. } => "bid",
            Move::Pass { .. } => "pass",
            Move::Declare { .. } => "declare",
            Move::Exchange { .. } => "exchange",
            Move::Defence { .. } => "defence",
            Move::CountStock { .. } => "count_stock",
            Move::FixedBid { .. } => "fixed_bid",
            Move::PassOut => "pass_out",
            Move::InCome { .. } => "in_come",
            Move::GiveUp { .. } => "give_up",
            Move::Play { .. } => "play",
            Move::Stop { .. } => "stop",
            Move::Result { .. } => "result",
            Move::SettleWidowsFund { .. } => "settle_widows_fund",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Bid { seat, .. }
            | Move::Pass { seat }
            | Move::Declare { seat, .. }
            | Move::Exchange { seat, .. }
            | Move::FixedBid { seat, .. }
            | Move::Play { seat, .. }
            | Move::Stop { seat, .. }
            | Move::InCome { seat }
            | Move::GiveUp { seat } => Some(*seat),
            Move::Result { player, .. } => Some(*player),
            Move::Defence { .. } | Move::CountStock { .. } | Move::PassOut | Move::SettleWidowsFund { .. } => None,
        }
    }

    fn replay(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            // Before the count was asked once, the dealer's count could be recorded again and
            // again (one trial stored 192): each was taken as a count, with its StockCounted
            // event, and changed nothing more unless it voided the deal. Stored logs replay so.
            Move::CountStock { .. } if self.deal.stock_counted => {
                self.deal.stock_counted = false;
                let replayed = self.apply(mv);
                if replayed.is_err() {
                    self.deal.stock_counted = true;
                }
                replayed
            }
            _ => self.apply(mv),
        }
    }

    fn play_move(&mut self, mv: &Move) -> Result<Events<Event>, RuleViolation> {
        match mv {
            Move::Bid { seat, bid } => self.bid(*seat, *bid),
            Move::Pass { seat } => self.pass(*seat),
            Move::Declare { seat, contract } => self.declare(*seat, *contract),
            Move::Exchange { seat, cards } => self.exchange(*seat, *cards),
            Move::Defence { first_defender } => self.defence(*first_defender),
            Move::CountStock { discards, stock } => self.count_stock(*discards, *stock),
            Move::FixedBid { seat, tricks, trumps } => self.fixed_bid(*seat, *tricks, *trumps),
            Move::PassOut => self.pass_out(),
            Move::InCome { seat } => self.in_come(*seat),
            Move::GiveUp { seat } => self.give_up(*seat),
            Move::Play { seat, card } => self.play(*seat, *card),
            Move::Stop { seat, top_trumps } => self.stop(*seat, top_trumps),
            Move::Result {
                player,
                contract,
                honours,
                top_trumps,
                tricks,
                stopped_after_five,
                all_tricks_after_fifth,
                in_comer,
            } => self.result(
                *player,
                *contract,
                *honours,
                top_trumps.as_deref(),
                tricks,
                *stopped_after_five,
                *all_tricks_after_fifth,
                *in_comer,
            ),
            Move::SettleWidowsFund { choice } => self.settle_widows_fund(*choice),
        }
    }

    fn deal_number(&self) -> Option<u16> {
        (!self.finished).then_some(self.deal.number)
    }

    fn at_deal_boundary(&self) -> bool {
        self.finished || self.deal.is_fresh()
    }

    fn is_finished(&self) -> bool {
        self.finished
    }

    fn running_totals(&self) -> Vec<i64> {
        self.chips.values().iter().map(|c| c.get()).collect()
    }

    fn trick_plan(&self) -> Option<crate::trick::TrickPlan> {
        self.plan()
    }

    fn view(&self) -> View {
        let d = &self.deal;
        let standing_fixed_bid = match &d.stage {
            Stage::FixedAuction(a) => a.standing().map(|(seat, k)| {
                let (tricks, trumps) = fixed_from_key(k);
                StandingFixedBid { seat, tricks, trumps }
            }),
            _ => None,
        };
        View {
            phase: self.phase(),
            deal: d.number,
            dealer: d.dealer,
            sitting_out: self.sitting_out(),
            lead: d.lead(),
            active: d.active.clone(),
            to_act: self.to_act(),
            legal_moves: self.legal_moves(),
            standing_bid: match &d.stage {
                Stage::Auction(a) => a.standing().map(|(seat, bid)| StandingBid { seat, bid }),
                _ => None,
            },
            standing_fixed_bid,
            player: d.player,
            contract: d.contract,
            trumps: d.contract.map(Contract::trumps),
            first_defender: d.first_defender,
            stock_left: d.stock_left,
            tricks_won: d.tricks.values().to_vec(),
            current_trick: (d.stage == Stage::Playing).then(|| CurrentTrick {
                number: d.tricks_done + 1,
                leader: d.trick.leader(),
                plays: d.trick.plays().to_vec(),
            }),
            may_stop: d.may_stop,
            all_tricks_undertaken: d.all_tricks_undertaken,
            revokes: d.revokes.clone(),
            funds: self.funds(),
            chips: self.chips.values().to_vec(),
        }
    }

    fn deal_lines(&self) -> &DealLines<DealLine> {
        &self.sheet
    }

    fn deal_lines_mut(&mut self) -> &mut DealLines<DealLine> {
        &mut self.sheet
    }

    fn score_sheet_of(&self, lines: &[DealLine]) -> ScoreSheet {
        ScoreSheet {
            deals: lines.to_vec(),
            chips: self.chips.values().to_vec(),
            funds: self.funds(),
            finished: self.finished,
        }
    }

    fn opening_settlements(&self) -> Vec<Settlement> {
        let seats = || Seat::all(self.players);
        let mut out = vec![Settlement::of_transfers(
            None,
            "opening chips from the bank",
            &to_each(Account::Bank, seats(), Chips::new(self.options.opening_chips)),
        )];
        if self.options.widows_stake > 0 {
            out.push(Settlement::of_transfers(
                Some(1),
                "the Widow's Fund seeded",
                &from_each(seats(), Account::WidowsFund, Chips::new(self.options.widows_stake)),
            ));
        }
        out.push(Settlement::of_transfers(
            Some(1),
            "the Game Fund seeded",
            &from_each(seats(), Account::GameFund, Chips::new(self.options.fund_stake)),
        ));
        out
    }

    fn settlements(events: &[Event]) -> Vec<Settlement> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::ChipsMoved {
                    deal,
                    reason,
                    transfers,
                } => Some(Settlement::of_transfers(
                    Some(*deal),
                    format!("deal {deal}: {reason}"),
                    transfers,
                )),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
