//! Tridge, Tresillo/Ombre with English cards (`shared/rules/tridge.txt`, resolved by `NOTES.md`).
//!
//! Three active players; with a fourth participant the dealer sits out but pays and collects.
//! A deal runs: auction (Play, Play More, … pass; an earlier seat holds an equal bid) → the
//! Player's declaration of the contract → exchange (Player, defence settled between Centre and
//! Rear, 1st Defender up to 8, 2nd Defender the rest) → nine tricks → settlement. When everyone
//! passes: No Tricks, the Fixed Trick reverse auction, or a pass-out with the fund topped up.
//!
//! Chips: every movement is a `ChipsMoved` event (balanced transfers between seats, the Game
//! Fund, the Widow's Fund, Reserve Funds and the bank), so `settlements` is a pure function of
//! the events. Invariants: the chips on the table (seats, funds, reserves) always equal the
//! opening chips issued; the Game Fund never exceeds four times its opening value (the excess
//! goes to a Reserve); a refused move changes nothing.

pub mod ranking;
pub mod sim;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::bidding::{Auction, AuctionEnd, AuctionRefusal};
use crate::rules::cards::{Card, CardSet, Suit};
use crate::rules::chips::{Account, Chips, Settlement};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::{BySeat, Seat};
use crate::rules::trick::{Play, Revoke, Trick, Voids};
use crate::rules::{Game, GameId, OptionDoc};

use ranking::FollowSuit;

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
        description: "chips each participant starts with, from the bank (default 500)",
    },
    OptionDoc {
        name: "widows_stake",
        description: "each participant's stake into the Widow's Fund (default 25)",
    },
    OptionDoc {
        name: "fund_stake",
        description: "each participant's stake into the Game Fund (default 5)",
    },
    OptionDoc {
        name: "fund_cap_multiple",
        description:
            "the Game Fund's cap as a multiple of its opening value; the excess forms Reserve Funds (default 4)",
    },
    OptionDoc {
        name: "first_dealer",
        description: "seat of the first dealer",
    },
    OptionDoc {
        name: "fixed_trick",
        description: "whether the Fixed Trick reverse auction may follow an all-pass (default true)",
    },
];

/// A call in the auction, ascending. An earlier seat holds an equal bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeBid)]
pub enum Bid {
    /// Play with hearts, spades or clubs.
    Play,
    /// Play with diamonds (or any higher contract).
    PlayMore,
    Flip,
    NoChange,
    NoChangeDiamonds,
    /// Only once everyone has passed.
    NoTricks,
    AllTricks,
}

/// The contract the Player declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "contract", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = TridgeContract)]
pub enum Contract {
    /// Hearts, spades or clubs as trumps.
    Play {
        trumps: Suit,
    },
    PlayDiamonds,
    /// Trumps are the suit of the stock's top card, turned up (a black ace by its printed suit).
    Flip {
        turned: Card,
    },
    /// Hearts, spades or clubs; only the defenders exchange.
    NoChange {
        trumps: Suit,
    },
    NoChangeDiamonds,
    /// Take no trick; only after everyone has passed; the defenders exchange.
    NoTricks {
        trumps: Suit,
    },
    /// Take all nine tricks.
    AllTricks {
        trumps: Suit,
    },
    /// The all-pass reverse auction's contract: exactly this many tricks, no exchange.
    FixedTrick {
        tricks: u8,
        trumps: Suit,
    },
}

impl Contract {
    pub fn trumps(self) -> Suit {
        match self {
            Contract::Play { trumps }
            | Contract::NoChange { trumps }
            | Contract::NoTricks { trumps }
            | Contract::AllTricks { trumps }
            | Contract::FixedTrick { trumps, .. } => trumps,
            Contract::PlayDiamonds | Contract::NoChangeDiamonds => Suit::Diamonds,
            Contract::Flip { turned } => turned.suit,
        }
    }

    /// The auction call this contract fulfils (None for Fixed Trick).
    fn level(self) -> Option<Bid> {
        match self {
            Contract::Play { .. } => Some(Bid::Play),
            Contract::PlayDiamonds => Some(Bid::PlayMore),
            Contract::Flip { .. } => Some(Bid::Flip),
            Contract::NoChange { .. } => Some(Bid::NoChange),
            Contract::NoChangeDiamonds => Some(Bid::NoChangeDiamonds),
            Contract::NoTricks { .. } => Some(Bid::NoTricks),
            Contract::AllTricks { .. } => Some(Bid::AllTricks),
            Contract::FixedTrick { .. } => None,
        }
    }

    fn player_exchanges(self) -> bool {
        matches!(
            self,
            Contract::Play { .. } | Contract::PlayDiamonds | Contract::Flip { .. } | Contract::AllTricks { .. }
        )
    }

    /// Chips per payer on top of the fund: collected on a win, paid on a draw or loss.
    fn extra(self) -> i64 {
        match self {
            Contract::Play { .. } | Contract::PlayDiamonds | Contract::FixedTrick { .. } => 0,
            Contract::Flip { .. } => 5,
            Contract::NoChange { .. } => 10,
            Contract::NoChangeDiamonds => 20,
            Contract::NoTricks { .. } | Contract::AllTricks { .. } => 40,
        }
    }

    /// Whether the Widow's Fund is won (or matched) with this contract.
    fn with_widows(self) -> bool {
        matches!(
            self,
            Contract::NoChangeDiamonds | Contract::NoTricks { .. } | Contract::AllTricks { .. }
        )
    }

    /// Contracts after which the Player may stop on taking the first five tricks.
    fn may_stop_after_five(self) -> bool {
        matches!(
            self,
            Contract::Play { .. }
                | Contract::PlayDiamonds
                | Contract::Flip { .. }
                | Contract::NoChange { .. }
                | Contract::NoChangeDiamonds
        )
    }

    fn check(self) -> Result<(), RuleViolation> {
        let bad = |reason: &str| {
            Err(RuleViolation::InvalidContract {
                reason: reason.to_owned(),
            })
        };
        match self {
            Contract::Play { trumps: Suit::Diamonds } => bad("Play with diamonds is `play_diamonds`"),
            Contract::NoChange { trumps: Suit::Diamonds } => bad("No Change with diamonds is `no_change_diamonds`"),
            Contract::Flip { turned } if !ranking::in_pack(turned) => bad("the turned card is not in the 40-card pack"),
            Contract::FixedTrick { tricks, .. } if !(1..=3).contains(&tricks) => {
                bad("a Fixed Trick contract is for 1, 2 or 3 tricks")
            }
            _ => Ok(()),
        }
    }
}

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

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

/// How a deal ended for the Player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[schema(as = TridgeOutcome)]
pub enum Outcome {
    /// More tricks than each defender (or the contract made).
    Win,
    /// 4:4:1, 3:3:3 or 1:4:4.
    Draw,
    /// A defender took more tricks than each other player.
    DoubleLoss { defeating: Seat },
    /// No Tricks or All Tricks failed.
    Lost,
    /// Fixed Trick made exactly.
    Exact,
    /// Fixed Trick missed by one trick either way.
    OffByOne,
    /// Fixed Trick missed by two or more.
    OffByMore,
}

/// An account chips move between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TridgeParty)]
pub enum Party {
    Bank,
    Seat(Seat),
    GameFund,
    WidowsFund,
    /// A Reserve Fund by its number (creation order, from 1).
    Reserve(u16),
}

impl Party {
    fn account(self) -> Account {
        match self {
            Party::Bank => Account::Bank,
            Party::Seat(s) => Account::Seat(s),
            Party::GameFund => Account::GameFund,
            Party::WidowsFund => Account::WidowsFund,
            Party::Reserve(n) => Account::Reserve(n),
        }
    }
}

/// Chips from one account to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeTransfer)]
pub struct Transfer {
    pub from: Party,
    pub to: Party,
    pub amount: Chips,
}

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
    CardPlayed {
        seat: Seat,
        card: Card,
        trick: u8,
    },
    TrickWon {
        trick: u8,
        winner: Seat,
        cards: Vec<Play<Card>>,
    },
    /// A player who showed void in a suit (trumps count as one) later played it.
    RevokeDetected {
        #[serde(flatten)]
        revoke: Revoke<FollowSuit>,
    },
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

/// A Reserve Fund waiting to be played for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeReserve)]
pub struct Reserve {
    pub number: u16,
    pub chips: Chips,
}

/// The pots on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeFunds)]
pub struct Funds {
    pub game_fund: Chips,
    pub widows_fund: Chips,
    /// Waiting, in creation order (the first is played for next).
    pub reserves: Vec<Reserve>,
    pub opening_fund: Chips,
    pub cap: Chips,
    /// True after a draw or loss raised the Game Fund; cleared when it is won.
    pub raised: bool,
}

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeDealLine)]
pub struct DealLine {
    pub deal: u16,
    pub dealer: Seat,
    /// Null for a pass-out or a void deal.
    pub player: Option<Seat>,
    pub contract: Option<Contract>,
    pub tricks: Vec<u8>,
    pub honours: u8,
    pub outcome: Option<Outcome>,
    pub passed_out: bool,
    pub void: bool,
    pub revokes: Vec<Revoke<FollowSuit>>,
    pub recording: Option<Recording>,
    /// Each seat's chips after the deal.
    pub chips: Vec<Chips>,
}

/// Why a deal ended without play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unplayed {
    /// Everyone passed (or the In-comer gave up).
    PassedOut,
    /// The stock count was wrong.
    Void,
}

/// The deals and each seat's chips.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = TridgeScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealLine>,
    pub chips: Vec<Chips>,
    pub funds: Funds,
    pub finished: bool,
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
    pub legal_moves: Vec<&'static str>,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum ExchangeStep {
    Player,
    Defence,
    First,
    Second,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Stage {
    Auction(Auction<Bid>),
    AllPassed,
    /// Bids are keys: higher is better (fewer tricks, then ♦ > ♥ > ♠ > ♣).
    FixedAuction(Auction<u8>),
    Declaring {
        bid: Bid,
    },
    Exchange(ExchangeStep),
    /// The In-comer's one-card exchanges: the index into the order (In-comer first, clockwise).
    InComerExchange(u8),
    Playing,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Deal {
    number: u16,
    dealer: Seat,
    /// The three who play, in order from the dealer's left.
    active: Vec<Seat>,
    stage: Stage,
    player: Option<Seat>,
    contract: Option<Contract>,
    first_defender: Option<Seat>,
    stock_left: u8,
    tricks: BySeat<u8>,
    tricks_done: u8,
    trick: Trick<Card>,
    played: CardSet,
    voids: Voids,
    revokes: Vec<Revoke<FollowSuit>>,
    /// The cards the Player played, for honours.
    player_cards: Vec<Card>,
    may_stop: bool,
    all_tricks_undertaken: bool,
    /// The dealer of four came in after everyone passed and plays as a fourth.
    #[serde(default)]
    in_comer: bool,
}

impl Deal {
    fn lead(&self) -> Seat {
        self.active[0]
    }

    fn is_fresh(&self) -> bool {
        matches!(&self.stage, Stage::Auction(a) if a.is_fresh())
    }

    fn defenders(&self) -> Vec<Seat> {
        self.active
            .iter()
            .copied()
            .filter(|s| Some(*s) != self.player)
            .collect()
    }

    /// Centre (the Player's left among the active seats), then Rear.
    fn centre_and_rear(&self) -> Option<(Seat, Seat)> {
        let player = self.player?;
        let i = self.active.iter().position(|s| *s == player)?;
        Some((self.active[(i + 1) % 3], self.active[(i + 2) % 3]))
    }

    fn second_defender(&self) -> Option<Seat> {
        let first = self.first_defender?;
        self.defenders().into_iter().find(|s| *s != first)
    }

    fn next_to_play(&self) -> Seat {
        let i = self.active.iter().position(|s| *s == self.trick.leader()).unwrap_or(0);
        self.active[(i + self.trick.plays().len()) % self.active.len()]
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Pots {
    game: Chips,
    widows: Chips,
    reserves: Vec<Reserve>,
    next_reserve: u16,
    raised: bool,
    /// A Reserve was opened while the current Game Fund was in play: overflow joins it.
    reserve_open: bool,
}

/// A game of Tridge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tridge {
    players: usize,
    options: Options,
    pots: Pots,
    chips: BySeat<Chips>,
    deal: Deal,
    sheet: Vec<DealLine>,
    finished: bool,
}

/// Collects the transfers of one move and keeps the pots and seats in step with them.
struct Booker<'a> {
    deal: u16,
    pots: &'a mut Pots,
    chips: &'a mut BySeat<Chips>,
    cap: Chips,
    events: Vec<Event>,
}

impl Booker<'_> {
    /// Adds `amount` to one party's chips; the bank issues and takes back without a balance.
    ///
    /// # Errors
    /// `ChipsOutOfRange` when the balance would leave `i64` (a Widow's Fund doubled again and
    /// again by failed contracts can get there); the caller's trial copy is then dropped.
    fn credit(&mut self, party: Party, amount: Chips) -> Result<(), RuleViolation> {
        let balance = match party {
            Party::Bank => return Ok(()),
            Party::Seat(s) => &mut self.chips[s],
            Party::GameFund => &mut self.pots.game,
            Party::WidowsFund => &mut self.pots.widows,
            Party::Reserve(n) => match self.pots.reserves.iter_mut().find(|r| r.number == n) {
                Some(r) => &mut r.chips,
                None => return Err(RuleViolation::ChipsOutOfRange),
            },
        };
        *balance = balance.checked_add(amount).ok_or(RuleViolation::ChipsOutOfRange)?;
        Ok(())
    }

    fn book(&mut self, reason: impl Into<String>, transfers: Vec<Transfer>) -> Result<(), RuleViolation> {
        let transfers: Vec<Transfer> = transfers
            .into_iter()
            .filter(|t| t.amount > Chips::ZERO && t.from != t.to)
            .collect();
        if transfers.is_empty() {
            return Ok(());
        }
        for t in &transfers {
            self.credit(t.from, -t.amount)?;
            self.credit(t.to, t.amount)?;
        }
        self.events.push(Event::ChipsMoved {
            deal: self.deal,
            reason: reason.into(),
            transfers,
        });
        Ok(())
    }

    fn one(&mut self, reason: impl Into<String>, from: Party, to: Party, amount: Chips) -> Result<(), RuleViolation> {
        self.book(reason, vec![Transfer { from, to, amount }])
    }

    /// The Reserve that overflow fills next: the one opened during this fund's life while it
    /// has room (a Reserve never exceeds the cap either), else a new one.
    fn reserve(&mut self) -> Result<(u16, Chips), RuleViolation> {
        if self.pots.reserve_open {
            if let Some(last) = self.pots.reserves.last() {
                if last.chips < self.cap {
                    return Ok((last.number, self.cap - last.chips));
                }
            }
        }
        let number = self.pots.next_reserve;
        self.pots.next_reserve = number.checked_add(1).ok_or(RuleViolation::ChipsOutOfRange)?;
        self.pots.reserves.push(Reserve {
            number,
            chips: Chips::ZERO,
        });
        self.pots.reserve_open = true;
        Ok((number, self.cap))
    }

    /// Payments into the Game Fund up to its cap; the excess fills Reserves in turn.
    fn pay_game_fund(&mut self, reason: &str, payments: &[(Seat, Chips)]) -> Result<(), RuleViolation> {
        let mut room = Chips::new((self.cap - self.pots.game).get().max(0));
        let mut to_fund = Vec::new();
        let mut excess = Vec::new();
        for &(seat, amount) in payments {
            let fund_part = amount.min(room);
            room = room - fund_part;
            to_fund.push(Transfer {
                from: Party::Seat(seat),
                to: Party::GameFund,
                amount: fund_part,
            });
            excess.push((seat, amount - fund_part));
        }
        self.book(reason, to_fund)?;
        while excess.iter().any(|(_, a)| *a > Chips::ZERO) {
            let (n, mut room) = self.reserve()?;
            let mut transfers = Vec::new();
            for (seat, amount) in excess.iter_mut() {
                let part = (*amount).min(room);
                room = room - part;
                *amount = *amount - part;
                transfers.push(Transfer {
                    from: Party::Seat(*seat),
                    to: Party::Reserve(n),
                    amount: part,
                });
            }
            self.book(format!("{reason}, over the cap: into Reserve {n}"), transfers)?;
        }
        Ok(())
    }

    fn collect_from_each(
        &mut self,
        reason: &str,
        payers: &[Seat],
        to: Seat,
        amount: Chips,
    ) -> Result<(), RuleViolation> {
        let transfers = payers
            .iter()
            .map(|p| Transfer {
                from: Party::Seat(*p),
                to: Party::Seat(to),
                amount,
            })
            .collect();
        self.book(reason, transfers)
    }

    fn pay_each(&mut self, reason: &str, from: Seat, payees: &[Seat], amount: Chips) -> Result<(), RuleViolation> {
        let transfers = payees
            .iter()
            .map(|p| Transfer {
                from: Party::Seat(from),
                to: Party::Seat(*p),
                amount,
            })
            .collect();
        self.book(reason, transfers)
    }

    fn game_fund_won(&mut self, reason: &str, player: Seat, amount: Chips) -> Result<(), RuleViolation> {
        self.one(reason, Party::GameFund, Party::Seat(player), amount)
    }
}

/// Classifies a normal contract's trick split: Player's tricks against each defender's.
///
/// A win when the Player has more than each defender; a double loss when one defender has more
/// than every other player (that defender defeats the Player); otherwise a draw (4:4:1, 3:3:3,
/// 1:4:4, and with an In-comer any tie for the most).
pub fn classify(player: u8, defenders: &[(Seat, u8)]) -> Outcome {
    let most = defenders.iter().map(|(_, t)| *t).max().unwrap_or(0);
    let leaders: Vec<Seat> = defenders.iter().filter(|(_, t)| *t == most).map(|(s, _)| *s).collect();
    if player > most {
        Outcome::Win
    } else if most > player && leaders.len() == 1 {
        Outcome::DoubleLoss { defeating: leaders[0] }
    } else {
        Outcome::Draw
    }
}

/// Half the Game Fund for a Fixed Trick missed by one: exact for an even fund; the text's
/// figures for 15 (10) and 45 (20); otherwise half rounded to the nearest 5, halves up.
pub fn half_fund(fund: Chips) -> Chips {
    let f = fund.get();
    let half = match f {
        _ if f % 2 == 0 => f / 2,
        15 => 10,
        45 => 20,
        _ => (f + 5) / 10 * 5,
    };
    Chips::new(half)
}

/// A Fixed Trick bid as an auction key: higher is better.
fn fixed_key(tricks: u8, trumps: Suit) -> u8 {
    let suit = match trumps {
        Suit::Clubs => 0,
        Suit::Spades => 1,
        Suit::Hearts => 2,
        Suit::Diamonds => 3,
    };
    (3 - tricks) * 4 + suit
}

fn fixed_from_key(key: u8) -> (u8, Suit) {
    let suit = match key % 4 {
        0 => Suit::Clubs,
        1 => Suit::Spades,
        2 => Suit::Hearts,
        _ => Suit::Diamonds,
    };
    (3 - key / 4, suit)
}

/// What the settlement of a deal needs, however it was recorded.
struct Summary {
    player: Seat,
    contract: Contract,
    tricks: BySeat<u8>,
    honours: u8,
    stopped: bool,
    all_tricks_after_fifth: bool,
    recording: Recording,
}

impl Tridge {
    fn f0(&self) -> Chips {
        Chips::new(self.options.fund_stake * self.players as i64)
    }

    fn cap(&self) -> Chips {
        Chips::new(self.f0().get() * self.options.fund_cap_multiple)
    }

    fn new_deal(&self, number: u16) -> Deal {
        let players = self.players;
        let dealer = Seat::new(self.options.first_dealer).left(usize::from(number - 1), players);
        // With three, the dealer plays last; with four, the dealer sits out.
        let active: Vec<Seat> = (1..=3).map(|i| dealer.left(i, players)).collect();
        Deal {
            number,
            dealer,
            stage: Stage::Auction(Auction::new(active.clone())),
            trick: Trick::new(active[0]),
            active,
            player: None,
            contract: None,
            first_defender: None,
            stock_left: STOCK,
            tricks: BySeat::filled(players, 0),
            tricks_done: 0,
            played: CardSet::default(),
            voids: Voids::new(players),
            revokes: Vec::new(),
            player_cards: Vec::new(),
            may_stop: false,
            all_tricks_undertaken: false,
            in_comer: false,
        }
    }

    fn sitting_out(&self) -> Option<Seat> {
        (self.players == 4 && !self.deal.in_comer).then_some(self.deal.dealer)
    }

    fn phase(&self) -> Phase {
        if self.finished {
            return Phase::Finished;
        }
        match &self.deal.stage {
            Stage::Auction(_) => Phase::Auction,
            Stage::AllPassed => Phase::AllPassed,
            Stage::FixedAuction(_) => Phase::FixedAuction,
            Stage::Declaring { .. } => Phase::Declaring,
            Stage::Exchange(ExchangeStep::Player) => Phase::PlayerExchange,
            Stage::Exchange(ExchangeStep::Defence) => Phase::Defence,
            Stage::Exchange(ExchangeStep::First) => Phase::FirstDefenderExchange,
            Stage::Exchange(ExchangeStep::Second) => Phase::SecondDefenderExchange,
            Stage::InComerExchange(_) => Phase::InComerExchange,
            Stage::Playing => Phase::Playing,
        }
    }

    fn legal_moves(&self) -> Vec<&'static str> {
        let d = &self.deal;
        match self.phase() {
            Phase::Finished => vec![],
            Phase::Auction if d.is_fresh() => vec!["bid", "pass", "pass_out", "result", "settle_widows_fund"],
            Phase::Auction => vec!["bid", "pass"],
            Phase::AllPassed => {
                let mut moves = vec!["bid"];
                if self.options.fixed_trick {
                    moves.extend(["fixed_bid", "pass"]);
                }
                if self.players == 4 {
                    moves.push("in_come");
                }
                moves.push("pass_out");
                moves
            }
            Phase::FixedAuction => vec!["fixed_bid", "pass"],
            Phase::Declaring if d.in_comer => vec!["declare", "give_up"],
            Phase::Declaring => vec!["declare"],
            Phase::PlayerExchange
            | Phase::FirstDefenderExchange
            | Phase::SecondDefenderExchange
            | Phase::InComerExchange => vec!["exchange"],
            Phase::Defence => vec!["defence"],
            Phase::Playing if d.may_stop => vec!["play", "stop"],
            Phase::Playing if d.tricks_done == 0 && d.trick.is_empty() => vec!["play", "count_stock"],
            Phase::Playing => vec!["play"],
        }
    }

    fn not_expected(&self, kind: &'static str) -> RuleViolation {
        if self.finished {
            RuleViolation::GameFinished
        } else {
            RuleViolation::MoveNotExpected {
                kind,
                expected: self.legal_moves(),
            }
        }
    }

    fn to_act(&self) -> Option<Seat> {
        let d = &self.deal;
        match &d.stage {
            _ if self.finished => None,
            Stage::Auction(a) => a.to_speak(),
            Stage::FixedAuction(a) => a.to_speak(),
            Stage::AllPassed => None,
            Stage::Declaring { .. } | Stage::Exchange(ExchangeStep::Player) => d.player,
            Stage::Exchange(ExchangeStep::Defence) => d.centre_and_rear().map(|(c, _)| c),
            Stage::Exchange(ExchangeStep::First) => d.first_defender,
            Stage::Exchange(ExchangeStep::Second) => d.second_defender(),
            Stage::InComerExchange(k) => Some(d.dealer.left(usize::from(*k), self.players)),
            Stage::Playing => Some(d.next_to_play()),
        }
    }

    /// Refuses a seat outside the table or sitting out this deal.
    fn check_active(&self, seat: Seat) -> Result<(), RuleViolation> {
        if seat.index() >= self.players {
            return Err(RuleViolation::NoSuchSeat {
                seat,
                players: self.players,
            });
        }
        if self.sitting_out() == Some(seat) {
            return Err(RuleViolation::SeatSittingOut { seat });
        }
        Ok(())
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleViolation> {
        self.check_active(seat)?;
        match self.to_act() {
            Some(expected) if expected != seat => Err(RuleViolation::NotYourTurn { expected, got: seat }),
            _ => Ok(()),
        }
    }

    fn auction_error<B: std::fmt::Debug>(seat: Seat, refusal: AuctionRefusal<B>, bid: String) -> RuleViolation {
        match refusal {
            AuctionRefusal::NotYourTurn { expected } => RuleViolation::NotYourTurn { expected, got: seat },
            AuctionRefusal::TooLow { standing } => RuleViolation::BidTooLow {
                bid,
                standing: format!("{standing:?}"),
            },
            AuctionRefusal::Closed => RuleViolation::MoveNotExpected {
                kind: "bid",
                expected: Vec::new(),
            },
        }
    }

    fn bid(&mut self, seat: Seat, bid: Bid) -> Result<Vec<Event>, RuleViolation> {
        self.check_active(seat)?;
        match &mut self.deal.stage {
            Stage::Auction(auction) => {
                if bid == Bid::NoTricks {
                    return Err(RuleViolation::NoTricksBeforeAllPassed);
                }
                auction
                    .bid(seat, bid)
                    .map_err(|r| Self::auction_error(seat, r, format!("{bid:?}")))?;
                let mut events = vec![Event::Bid { seat, bid }];
                events.extend(self.after_auction());
                Ok(events)
            }
            Stage::AllPassed if bid == Bid::NoTricks => {
                self.deal.player = Some(seat);
                self.deal.stage = Stage::Declaring { bid };
                Ok(vec![Event::Bid { seat, bid }, Event::AuctionWon { seat, bid }])
            }
            Stage::AllPassed => Err(RuleViolation::InvalidContract {
                reason: "after everyone has passed only No Tricks may be bid (or the Fixed Trick auction)".into(),
            }),
            _ => Err(self.not_expected("bid")),
        }
    }

    fn pass(&mut self, seat: Seat) -> Result<Vec<Event>, RuleViolation> {
        self.check_active(seat)?;
        if self.deal.stage == Stage::AllPassed && self.options.fixed_trick {
            self.deal.stage = Stage::FixedAuction(Auction::new(self.deal.active.clone()));
        }
        match &mut self.deal.stage {
            Stage::Auction(auction) => {
                auction
                    .pass(seat)
                    .map_err(|r| Self::auction_error(seat, r, "pass".into()))?;
                let mut events = vec![Event::Passed { seat }];
                events.extend(self.after_auction());
                Ok(events)
            }
            Stage::FixedAuction(auction) => {
                auction
                    .pass(seat)
                    .map_err(|r| Self::auction_error(seat, r, "pass".into()))?;
                let mut events = vec![Event::Passed { seat }];
                match auction.end() {
                    Some(AuctionEnd::AllPassed) => events.extend(self.pass_out_deal()?),
                    Some(AuctionEnd::Won(s, key)) => {
                        let (tricks, trumps) = fixed_from_key(key);
                        events.extend(self.start_fixed(s, tricks, trumps));
                    }
                    None => {}
                }
                Ok(events)
            }
            _ => Err(self.not_expected("pass")),
        }
    }

    fn after_auction(&mut self) -> Vec<Event> {
        let Stage::Auction(auction) = &self.deal.stage else {
            return Vec::new();
        };
        match auction.end() {
            None => Vec::new(),
            Some(AuctionEnd::AllPassed) => {
                self.deal.stage = Stage::AllPassed;
                vec![Event::AllPassed]
            }
            Some(AuctionEnd::Won(seat, bid)) => {
                self.deal.player = Some(seat);
                self.deal.stage = Stage::Declaring { bid };
                vec![Event::AuctionWon { seat, bid }]
            }
        }
    }

    fn fixed_bid(&mut self, seat: Seat, tricks: u8, trumps: Option<Suit>) -> Result<Vec<Event>, RuleViolation> {
        self.check_active(seat)?;
        let in_fixed = matches!(self.deal.stage, Stage::FixedAuction(_));
        if !(in_fixed || self.deal.stage == Stage::AllPassed && self.options.fixed_trick) {
            return Err(self.not_expected("fixed_bid"));
        }
        let trumps = trumps.ok_or(RuleViolation::TrumpsRequired)?;
        Contract::FixedTrick { tricks, trumps }.check()?;
        let mut auction = match &self.deal.stage {
            Stage::FixedAuction(a) => a.clone(),
            _ => Auction::new(self.deal.active.clone()),
        };
        let key = fixed_key(tricks, trumps);
        auction.bid(seat, key).map_err(|r| match r {
            AuctionRefusal::TooLow { standing } => {
                let (t, s) = fixed_from_key(standing);
                RuleViolation::BidTooLow {
                    bid: format!("{tricks} {trumps}"),
                    standing: format!("{t} {s}"),
                }
            }
            other => Self::auction_error(seat, other, String::new()),
        })?;
        let mut events = vec![Event::FixedBid { seat, tricks, trumps }];
        if let Some(AuctionEnd::Won(s, key)) = auction.end() {
            let (tricks, trumps) = fixed_from_key(key);
            events.extend(self.start_fixed(s, tricks, trumps));
        } else {
            self.deal.stage = Stage::FixedAuction(auction);
        }
        Ok(events)
    }

    fn start_fixed(&mut self, seat: Seat, tricks: u8, trumps: Suit) -> Vec<Event> {
        let contract = Contract::FixedTrick { tricks, trumps };
        self.deal.player = Some(seat);
        self.deal.contract = Some(contract);
        self.deal.stage = Stage::Playing;
        vec![Event::Declared { seat, contract, trumps }]
    }

    /// The In-comer's contracts: Play (any suit), All Tricks, No Tricks.
    fn check_in_comer_contract(contract: Contract) -> Result<(), RuleViolation> {
        match contract {
            Contract::Play { .. } | Contract::PlayDiamonds | Contract::NoTricks { .. } | Contract::AllTricks { .. } => {
                Ok(())
            }
            _ => Err(RuleViolation::InvalidContract {
                reason: "the In-comer may play Play, All Tricks or No Tricks only".into(),
            }),
        }
    }

    /// The dealer of four comes in after everyone passed: pays a quarter of the Game Fund
    /// (rounded up; over the cap it goes to a Reserve) and takes 9 of the 13 stock cards.
    fn come_in(&mut self, seat: Seat) -> Result<Vec<Event>, RuleViolation> {
        let quarter = Chips::new((self.pots.game.get() + 3) / 4);
        let d = &mut self.deal;
        d.in_comer = true;
        d.player = Some(seat);
        d.active.push(seat);
        d.tricks = BySeat::filled(self.players, 0);
        d.voids = Voids::new(self.players);
        d.stock_left = STOCK - TRICKS;
        d.stage = Stage::Declaring { bid: Bid::Play };
        let mut b = self.booker();
        b.pay_game_fund(
            &format!("{seat} comes in: a quarter of the Game Fund"),
            &[(seat, quarter)],
        )?;
        let mut events = vec![Event::CameIn { seat, paid: quarter }];
        events.extend(b.events);
        Ok(events)
    }

    fn in_come(&mut self, seat: Seat) -> Result<Vec<Event>, RuleViolation> {
        if !(self.deal.stage == Stage::AllPassed && self.players == 4) {
            return Err(self.not_expected("in_come"));
        }
        if seat.index() >= self.players {
            return Err(RuleViolation::NoSuchSeat {
                seat,
                players: self.players,
            });
        }
        if seat != self.deal.dealer {
            return Err(RuleViolation::NotYourTurn {
                expected: self.deal.dealer,
                got: seat,
            });
        }
        self.come_in(seat)
    }

    /// The In-comer gives up (No Play): the quarter stays in the fund, the next dealer deals.
    fn give_up(&mut self, seat: Seat) -> Result<Vec<Event>, RuleViolation> {
        if !(self.deal.in_comer && matches!(self.deal.stage, Stage::Declaring { .. })) {
            return Err(self.not_expected("give_up"));
        }
        self.check_turn(seat)?;
        let number = self.deal.number;
        self.sheet.push(self.unplayed_line(Unplayed::PassedOut));
        let mut events = vec![Event::GaveUp { seat }, Event::PassedOut { deal: number }];
        events.extend(self.next_deal()?);
        Ok(events)
    }

    fn declare(&mut self, seat: Seat, contract: Contract) -> Result<Vec<Event>, RuleViolation> {
        let Stage::Declaring { bid } = self.deal.stage else {
            return Err(self.not_expected("declare"));
        };
        self.check_turn(seat)?;
        contract.check()?;
        if self.deal.in_comer {
            Self::check_in_comer_contract(contract)?;
            self.deal.contract = Some(contract);
            self.deal.stage = Stage::InComerExchange(0);
            return Ok(vec![Event::Declared {
                seat,
                contract,
                trumps: contract.trumps(),
            }]);
        }
        let Some(level) = contract.level() else {
            return Err(RuleViolation::InvalidContract {
                reason: "Fixed Trick is bid with `fixed_bid` after everyone has passed".into(),
            });
        };
        if level == Bid::NoTricks && bid != Bid::NoTricks {
            return Err(RuleViolation::NoTricksBeforeAllPassed);
        }
        if bid == Bid::NoTricks && level != Bid::NoTricks {
            return Err(RuleViolation::InvalidContract {
                reason: "the No Tricks bidder must declare No Tricks".into(),
            });
        }
        if level < bid {
            return Err(RuleViolation::ContractBelowBid {
                contract: format!("{level:?}"),
                bid: format!("{bid:?}"),
            });
        }
        let trumps = contract.trumps();
        self.deal.contract = Some(contract);
        self.deal.stage = Stage::Exchange(if contract.player_exchanges() {
            ExchangeStep::Player
        } else {
            ExchangeStep::Defence
        });
        Ok(vec![Event::Declared { seat, contract, trumps }])
    }

    fn exchange(&mut self, seat: Seat, cards: u8) -> Result<Vec<Event>, RuleViolation> {
        if let Stage::InComerExchange(k) = self.deal.stage {
            self.check_turn(seat)?;
            let max = self.deal.stock_left.min(1);
            if cards > max {
                return Err(RuleViolation::ExchangeCount { seat, cards, max });
            }
            let d = &mut self.deal;
            d.stock_left -= cards;
            d.stage = if k + 1 < 4 {
                Stage::InComerExchange(k + 1)
            } else {
                Stage::Playing
            };
            return Ok(vec![Event::Exchanged {
                seat,
                cards,
                stock_left: d.stock_left,
            }]);
        }
        let Stage::Exchange(step) = self.deal.stage else {
            return Err(self.not_expected("exchange"));
        };
        if step == ExchangeStep::Defence {
            return Err(self.not_expected("exchange"));
        }
        self.check_turn(seat)?;
        let left = self.deal.stock_left;
        let max = match step {
            ExchangeStep::First => left.min(8),
            _ => left.min(TRICKS),
        };
        if cards > max {
            return Err(RuleViolation::ExchangeCount { seat, cards, max });
        }
        let d = &mut self.deal;
        d.stock_left -= cards;
        d.stage = match step {
            ExchangeStep::Player => Stage::Exchange(ExchangeStep::Defence),
            ExchangeStep::First if d.stock_left > 0 => Stage::Exchange(ExchangeStep::Second),
            _ => Stage::Playing,
        };
        Ok(vec![Event::Exchanged {
            seat,
            cards,
            stock_left: d.stock_left,
        }])
    }

    fn defence(&mut self, first: Seat) -> Result<Vec<Event>, RuleViolation> {
        if self.deal.stage != Stage::Exchange(ExchangeStep::Defence) {
            return Err(self.not_expected("defence"));
        }
        self.check_active(first)?;
        let (centre, rear) = self.deal.centre_and_rear().ok_or(RuleViolation::GameFinished)?;
        if first != centre && first != rear {
            return Err(RuleViolation::NotADefender { seat: first });
        }
        let second = if first == centre { rear } else { centre };
        let d = &mut self.deal;
        d.first_defender = Some(first);
        d.stage = if d.stock_left > 0 {
            Stage::Exchange(ExchangeStep::First)
        } else {
            Stage::Playing
        };
        Ok(vec![Event::DefenceSettled {
            first_defender: first,
            second_defender: second,
        }])
    }

    fn count_stock(&mut self, discards: u8, stock: u8) -> Result<Vec<Event>, RuleViolation> {
        let d = &self.deal;
        if d.stage != Stage::Playing || d.tricks_done > 0 || !d.trick.is_empty() {
            return Err(self.not_expected("count_stock"));
        }
        let mut events = vec![Event::StockCounted { discards, stock }];
        if u16::from(discards) + u16::from(stock) != u16::from(STOCK) {
            let number = d.number;
            events.push(Event::DealVoid { deal: number });
            self.sheet.push(self.unplayed_line(Unplayed::Void));
            events.extend(self.next_deal()?);
        }
        Ok(events)
    }

    fn play(&mut self, seat: Seat, card: Card) -> Result<Vec<Event>, RuleViolation> {
        if self.deal.stage != Stage::Playing {
            return Err(self.not_expected("play"));
        }
        self.check_turn(seat)?;
        if !ranking::in_pack(card) {
            return Err(RuleViolation::CardNotInPack(card));
        }
        if self.deal.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }
        let contract = self.deal.contract.ok_or(RuleViolation::GameFinished)?;
        let trumps = contract.trumps();
        let d = &mut self.deal;
        let trick_no = d.tricks_done + 1;
        let mut events = Vec::new();
        if d.may_stop {
            d.may_stop = false;
            d.all_tricks_undertaken = true;
            events.push(Event::AllTricksUndertaken { seat });
        }
        events.push(Event::CardPlayed {
            seat,
            card,
            trick: trick_no,
        });
        let follow = ranking::follow_suit(card, trumps);
        if let Some(revoke) = d.voids.revoke_proven(seat, follow, trick_no) {
            d.revokes.push(revoke);
            events.push(Event::RevokeDetected { revoke });
        }
        let led = d.trick.led().map(|c| ranking::follow_suit(c, trumps));
        d.voids.record(seat, follow, led, trick_no);
        d.played.insert(card);
        if Some(seat) == d.player {
            d.player_cards.push(card);
        }
        d.trick.push(seat, card);
        if !d.trick.is_complete(d.active.len()) {
            return Ok(events);
        }
        let cards: Vec<Card> = d.trick.plays().iter().map(|p| p.card).collect();
        let i = ranking::trick_winner(&cards, trumps).unwrap_or(0);
        let winner = d.trick.plays()[i].seat;
        d.tricks[winner] += 1;
        d.tricks_done = trick_no;
        events.push(Event::TrickWon {
            trick: trick_no,
            winner,
            cards: d.trick.plays().to_vec(),
        });
        d.trick = Trick::new(winner);
        let player = d.player.unwrap_or(winner);
        if trick_no == 5 && d.tricks[player] == 5 && contract.may_stop_after_five() {
            d.may_stop = true;
            events.push(Event::MayStop { seat: player });
            return Ok(events);
        }
        if trick_no == TRICKS {
            let held = |c: Card| self.deal.player_cards.contains(&c);
            let honours = ranking::honours(held, trumps);
            let summary = Summary {
                player,
                contract,
                tricks: self.deal.tricks.clone(),
                honours,
                stopped: false,
                all_tricks_after_fifth: self.deal.all_tricks_undertaken,
                recording: Recording::CardByCard,
            };
            // No Tricks and Fixed Trick need a trump in the Player's hand, which (no exchange)
            // is exactly the nine cards played: report a bidder who held none.
            let needs_trump = matches!(contract, Contract::NoTricks { .. } | Contract::FixedTrick { .. });
            if needs_trump
                && !self.deal.in_comer
                && !self.deal.player_cards.iter().any(|c| ranking::is_trump(*c, trumps))
            {
                events.push(Event::TrumpNotHeld { seat: player });
            }
            events.extend(self.settle(summary)?);
        }
        Ok(events)
    }

    fn stop(&mut self, seat: Seat, top_trumps: &[Card]) -> Result<Vec<Event>, RuleViolation> {
        if !(self.deal.stage == Stage::Playing && self.deal.may_stop) {
            return Err(self.not_expected("stop"));
        }
        self.check_turn(seat)?;
        let contract = self.deal.contract.ok_or(RuleViolation::GameFinished)?;
        let trumps = contract.trumps();
        for card in top_trumps {
            if !ranking::is_trump(*card, trumps) || !ranking::in_pack(*card) {
                return Err(RuleViolation::HonoursImpossible {
                    reason: format!("{card} is not a trump with {trumps} as trumps"),
                });
            }
            if self.deal.played.contains(*card) {
                return Err(RuleViolation::CardAlreadyPlayed(*card));
            }
        }
        let held = |c: Card| self.deal.player_cards.contains(&c) || top_trumps.contains(&c);
        let honours = ranking::honours(held, trumps);
        let summary = Summary {
            player: seat,
            contract,
            tricks: self.deal.tricks.clone(),
            honours,
            stopped: true,
            all_tricks_after_fifth: false,
            recording: Recording::CardByCard,
        };
        let mut events = vec![Event::Stopped { seat }];
        events.extend(self.settle(summary)?);
        Ok(events)
    }

    #[expect(clippy::too_many_arguments, reason = "the fields of one result-only move")]
    fn result(
        &mut self,
        player: Seat,
        contract: Contract,
        honours: Option<u8>,
        top_trumps: Option<&[Card]>,
        tricks: &[u8],
        stopped: bool,
        all_tricks_after_fifth: bool,
        in_comer: bool,
    ) -> Result<Vec<Event>, RuleViolation> {
        if !(matches!(self.deal.stage, Stage::Auction(_)) && self.deal.is_fresh()) {
            return Err(self.not_expected("result"));
        }
        contract.check()?;
        let mut events = Vec::new();
        if in_comer {
            if self.players != 4 || player != self.deal.dealer {
                return Err(RuleViolation::InvalidContract {
                    reason: "only the dealer of four can come in".into(),
                });
            }
            Self::check_in_comer_contract(contract)?;
            events.extend(self.come_in(player)?);
        }
        self.check_active(player)?;
        if tricks.len() != self.players {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: tricks.len(),
                expected: self.players,
            });
        }
        if let Some(out) = self.sitting_out() {
            if tricks[out.index()] != 0 {
                return Err(RuleViolation::SeatSittingOut { seat: out });
            }
        }
        let total: u32 = tricks.iter().map(|&t| u32::from(t)).sum();
        let expected = if stopped { 5 } else { u32::from(TRICKS) };
        if total != expected {
            return Err(RuleViolation::TricksDoNotAddUp { total, expected });
        }
        if stopped && (tricks[player.index()] != 5 || !contract.may_stop_after_five()) {
            return Err(RuleViolation::InvalidContract {
                reason: "stopping after five needs a normal contract and the Player's first five tricks".into(),
            });
        }
        if all_tricks_after_fifth && (stopped || !contract.may_stop_after_five() || tricks[player.index()] < 5) {
            return Err(RuleViolation::InvalidContract {
                reason: "All Tricks after the fifth needs a normal contract and the Player's first five tricks".into(),
            });
        }
        let trumps = contract.trumps();
        let max = ranking::max_honours(trumps);
        let honours = match (honours, top_trumps) {
            (Some(_), Some(_)) => {
                return Err(RuleViolation::HonoursImpossible {
                    reason: "give the honours count or the top trumps held, not both".into(),
                })
            }
            (Some(h), None) if h > max => {
                return Err(RuleViolation::HonoursImpossible {
                    reason: format!("{trumps} as trumps give at most {max} honours, not {h}"),
                })
            }
            (Some(h), None) => h,
            (None, Some(cards)) => {
                if let Some(card) = cards
                    .iter()
                    .find(|c| !ranking::is_trump(**c, trumps) || !ranking::in_pack(**c))
                {
                    return Err(RuleViolation::HonoursImpossible {
                        reason: format!("{card} is not a trump with {trumps} as trumps"),
                    });
                }
                ranking::honours(|c| cards.contains(&c), trumps)
            }
            (None, None) => 0,
        };
        self.deal.player = Some(player);
        self.deal.contract = Some(contract);
        let summary = Summary {
            player,
            contract,
            tricks: BySeat::from_vec(tricks.to_vec()),
            honours,
            stopped,
            all_tricks_after_fifth,
            recording: Recording::ResultOnly,
        };
        events.extend(self.settle(summary)?);
        Ok(events)
    }

    fn booker(&mut self) -> Booker<'_> {
        let cap = self.cap();
        Booker {
            deal: self.deal.number,
            pots: &mut self.pots,
            chips: &mut self.chips,
            cap,
            events: Vec::new(),
        }
    }

    /// Scores a finished deal, books its chips, and starts the next deal.
    fn settle(&mut self, s: Summary) -> Result<Vec<Event>, RuleViolation> {
        let players = self.players;
        let p = s.player;
        let payers: Vec<Seat> = Seat::all(players).filter(|x| *x != p).collect();
        let contract = s.contract;
        let trumps = contract.trumps();
        let m = if trumps == Suit::Diamonds { 2 } else { 1 };
        let hm = Chips::new(i64::from(s.honours) * m);
        let h_reason = format!("honours: {} × {m}", s.honours);
        let pt = s.tricks[p];
        let defenders: Vec<(Seat, u8)> = self
            .deal
            .active
            .iter()
            .filter(|x| **x != p)
            .map(|x| (*x, s.tricks[*x]))
            .collect();
        let outcome = match contract {
            Contract::NoTricks { .. } if pt == 0 => Outcome::Win,
            Contract::AllTricks { .. } if pt == TRICKS => Outcome::Win,
            Contract::NoTricks { .. } | Contract::AllTricks { .. } => Outcome::Lost,
            Contract::FixedTrick { tricks, .. } => match pt.abs_diff(tricks) {
                0 => Outcome::Exact,
                1 => Outcome::OffByOne,
                _ => Outcome::OffByMore,
            },
            _ if s.stopped || s.all_tricks_after_fifth => Outcome::Win,
            _ => classify(pt, &defenders),
        };
        let all_tricks_made = s.all_tricks_after_fifth.then_some(pt == TRICKS);
        let name = contract_name(contract);
        let mut b = self.booker();
        let f = b.pots.game;
        let w = b.pots.widows;
        let extra = Chips::new(contract.extra());
        match outcome {
            Outcome::Win | Outcome::Exact => {
                b.game_fund_won(&format!("{name} won by {p}: the Game Fund"), p, f)?;
                b.pots.raised = false;
                if contract.with_widows() {
                    b.one(
                        format!("{name} won by {p}: the Widow's Fund"),
                        Party::WidowsFund,
                        Party::Seat(p),
                        w,
                    )?;
                }
                let extra = match contract {
                    Contract::FixedTrick { tricks, .. } => Chips::new(match tricks {
                        1 => 20,
                        2 => 10,
                        _ => 5,
                    }),
                    _ => extra,
                };
                b.collect_from_each(&format!("{name} won by {p}: {extra} from each"), &payers, p, extra)?;
                b.collect_from_each(&format!("{name} won by {p}: {h_reason} from each"), &payers, p, hm)?;
                if let Some(made) = all_tricks_made {
                    if made {
                        // Whatever the Widow's Fund still holds (nothing if the contract won it).
                        let left = b.pots.widows;
                        b.one(
                            format!("All Tricks made by {p}: the Widow's Fund"),
                            Party::WidowsFund,
                            Party::Seat(p),
                            left,
                        )?;
                        b.collect_from_each(
                            &format!("All Tricks made by {p}: 40 from each"),
                            &payers,
                            p,
                            Chips::new(40),
                        )?;
                    } else {
                        b.one(
                            format!("All Tricks failed by {p}: the Widow's Fund matched"),
                            Party::Seat(p),
                            Party::WidowsFund,
                            w,
                        )?;
                        b.pay_each(
                            &format!("All Tricks failed by {p}: 40 to each"),
                            p,
                            &payers,
                            Chips::new(40),
                        )?;
                    }
                }
            }
            Outcome::Draw | Outcome::DoubleLoss { .. } | Outcome::Lost => {
                let what = match outcome {
                    Outcome::Draw => "drawn",
                    Outcome::DoubleLoss { .. } => "lost (double loss)",
                    _ => "lost",
                };
                b.pay_game_fund(&format!("{name} {what} by {p}: the Game Fund matched"), &[(p, f)])?;
                b.pots.raised = true;
                if let Outcome::DoubleLoss { defeating } = outcome {
                    b.one(
                        format!("{name} lost by {p}: the Game Fund's value to the defeating Defender"),
                        Party::Seat(p),
                        Party::Seat(defeating),
                        f,
                    )?;
                }
                if contract.with_widows() {
                    b.one(
                        format!("{name} {what} by {p}: the Widow's Fund matched"),
                        Party::Seat(p),
                        Party::WidowsFund,
                        w,
                    )?;
                }
                b.pay_each(&format!("{name} {what} by {p}: {extra} to each"), p, &payers, extra)?;
                b.one(
                    format!("{name} {what} by {p}: {h_reason} into the Widow's Fund"),
                    Party::Seat(p),
                    Party::WidowsFund,
                    hm,
                )?;
            }
            Outcome::OffByOne => {
                let half = half_fund(f).min(f);
                b.game_fund_won(&format!("{name} missed by one by {p}: half the Game Fund"), p, half)?;
            }
            Outcome::OffByMore => {
                let penalty = match contract {
                    Contract::FixedTrick { tricks: 1, .. } => 5,
                    Contract::FixedTrick { tricks: 2, .. } => 4,
                    _ => 3,
                };
                b.pay_game_fund(
                    &format!("{name} missed by two or more by {p}: the Game Fund matched"),
                    &[(p, f)],
                )?;
                b.pots.raised = true;
                b.pay_each(
                    &format!("{name} missed by two or more by {p}: {penalty} to each"),
                    p,
                    &payers,
                    Chips::new(penalty),
                )?;
            }
        }
        let game_won = matches!(outcome, Outcome::Win | Outcome::Exact);
        // All Tricks undertaken decides the Widow's Fund: won if made; matched (not won) if failed,
        // even when the contract had won it before the sixth trick.
        let widows_won = all_tricks_made.unwrap_or(contract.with_widows() && game_won);
        let chip_events = b.events;
        let number = self.deal.number;
        let mut events = vec![Event::DealScored {
            deal: number,
            player: p,
            contract,
            tricks: s.tricks.values().to_vec(),
            honours: s.honours,
            outcome,
            all_tricks_made,
        }];
        events.extend(chip_events);
        events.extend(self.restake(game_won, widows_won)?);
        self.sheet.push(DealLine {
            deal: number,
            dealer: self.deal.dealer,
            player: Some(p),
            contract: Some(contract),
            tricks: s.tricks.values().to_vec(),
            honours: s.honours,
            outcome: Some(outcome),
            passed_out: false,
            void: false,
            revokes: self.deal.revokes.clone(),
            recording: Some(s.recording),
            chips: self.chips.values().to_vec(),
        });
        events.extend(self.next_deal()?);
        Ok(events)
    }

    /// Stakes for the next deal after a won fund: the Widow's Fund re-seeded after it was won;
    /// the Game Fund taken from the oldest Reserve, or re-seeded when none waits.
    fn restake(&mut self, game_won: bool, widows_won: bool) -> Result<Vec<Event>, RuleViolation> {
        let players = self.players;
        let next = self.next_number()?;
        let (w_stake, f_stake) = (
            Chips::new(self.options.widows_stake),
            Chips::new(self.options.fund_stake),
        );
        let mut b = self.booker();
        b.deal = next;
        if widows_won {
            let transfers = Seat::all(players)
                .map(|s| Transfer {
                    from: Party::Seat(s),
                    to: Party::WidowsFund,
                    amount: w_stake,
                })
                .collect();
            b.book("the Widow's Fund re-seeded", transfers)?;
        }
        if game_won {
            b.pots.raised = false;
            b.pots.reserve_open = false;
            if let Some(reserve) = b.pots.reserves.first().copied() {
                b.one(
                    format!("Reserve {} brought into play as the Game Fund", reserve.number),
                    Party::Reserve(reserve.number),
                    Party::GameFund,
                    reserve.chips,
                )?;
                b.pots.reserves.remove(0);
            } else {
                let payments: Vec<(Seat, Chips)> = Seat::all(players).map(|s| (s, f_stake)).collect();
                b.pay_game_fund("the Game Fund re-seeded", &payments)?;
            }
        }
        Ok(b.events)
    }

    fn pass_out(&mut self) -> Result<Vec<Event>, RuleViolation> {
        let ok = match &self.deal.stage {
            Stage::Auction(_) => self.deal.is_fresh(),
            Stage::AllPassed => true,
            _ => false,
        };
        if !ok {
            return Err(self.not_expected("pass_out"));
        }
        self.pass_out_deal()
    }

    /// Everyone passed and nobody plays: everyone adds to the fund, unless a raised fund or a
    /// Reserve waits.
    fn pass_out_deal(&mut self) -> Result<Vec<Event>, RuleViolation> {
        let number = self.deal.number;
        let mut events = vec![Event::PassedOut { deal: number }];
        let players = self.players;
        let stake = Chips::new(self.options.fund_stake);
        if !self.pots.raised && self.pots.reserves.is_empty() {
            let next = self.next_number()?;
            let mut b = self.booker();
            b.deal = next;
            let payments: Vec<(Seat, Chips)> = Seat::all(players).map(|s| (s, stake)).collect();
            b.pay_game_fund(
                &format!("all passed in deal {number}: the Game Fund topped up"),
                &payments,
            )?;
            events.extend(b.events);
        }
        self.sheet.push(self.unplayed_line(Unplayed::PassedOut));
        events.extend(self.next_deal()?);
        Ok(events)
    }

    /// The score sheet's line for the current deal when nobody played it.
    fn unplayed_line(&self, why: Unplayed) -> DealLine {
        DealLine {
            deal: self.deal.number,
            dealer: self.deal.dealer,
            player: None,
            contract: None,
            tricks: vec![0; self.players],
            honours: 0,
            outcome: None,
            passed_out: why == Unplayed::PassedOut,
            void: why == Unplayed::Void,
            revokes: Vec::new(),
            recording: None,
            chips: self.chips.values().to_vec(),
        }
    }

    fn next_deal(&mut self) -> Result<Vec<Event>, RuleViolation> {
        self.deal = self.new_deal(self.next_number()?);
        Ok(vec![Event::DealStarted {
            deal: self.deal.number,
            dealer: self.deal.dealer,
            sitting_out: self.sitting_out(),
        }])
    }

    /// The next deal's number.
    ///
    /// # Errors
    /// `DealLimit` after deal 65535 (deals are numbered in the ledger as `u16`).
    fn next_number(&self) -> Result<u16, RuleViolation> {
        self.deal
            .number
            .checked_add(1)
            .ok_or(RuleViolation::DealLimit { max: u16::MAX })
    }

    fn settle_widows_fund(&mut self, choice: WidowsChoice) -> Result<Vec<Event>, RuleViolation> {
        if !self.deal.is_fresh() {
            return Err(self.not_expected("settle_widows_fund"));
        }
        let players = self.players;
        let w = self.pots.widows;
        let (share, remainder) = match choice {
            WidowsChoice::Split => (
                Chips::new(w.get() / players as i64),
                Chips::new(w.get() % players as i64),
            ),
            WidowsChoice::Leave => (Chips::ZERO, w),
        };
        let mut b = self.booker();
        b.deal = b.deal.saturating_sub(1).max(1);
        let transfers = Seat::all(players)
            .map(|s| Transfer {
                from: Party::WidowsFund,
                to: Party::Seat(s),
                amount: share,
            })
            .collect();
        b.book(
            format!("end of session: the Widow's Fund split, {share} each, {remainder} left in it"),
            transfers,
        )?;
        let mut events = b.events;
        events.push(Event::WidowsFundSettled {
            choice,
            share,
            remainder,
        });
        events.push(Event::GameFinished);
        self.finished = true;
        Ok(events)
    }

    fn funds(&self) -> Funds {
        Funds {
            game_fund: self.pots.game,
            widows_fund: self.pots.widows,
            reserves: self.pots.reserves.clone(),
            opening_fund: self.f0(),
            cap: self.cap(),
            raised: self.pots.raised,
        }
    }

    /// Every seat's chips plus every pot: always the opening chips issued.
    pub fn chips_on_table(&self) -> Chips {
        self.chips.values().iter().copied().sum::<Chips>()
            + self.pots.game
            + self.pots.widows
            + self.pots.reserves.iter().map(|r| r.chips).sum::<Chips>()
    }

    pub fn players(&self) -> usize {
        self.players
    }

    /// The three who play the current deal, from the dealer's left.
    pub fn active_seats(&self) -> Vec<Seat> {
        self.deal.active.clone()
    }
}

fn contract_name(contract: Contract) -> String {
    match contract {
        Contract::Play { trumps } => format!("Play in {trumps}"),
        Contract::PlayDiamonds => "Play in diamonds".into(),
        Contract::Flip { turned } => format!("Flip ({turned} turned)"),
        Contract::NoChange { trumps } => format!("No Change in {trumps}"),
        Contract::NoChangeDiamonds => "No Change in diamonds".into(),
        Contract::NoTricks { trumps } => format!("No Tricks in {trumps}"),
        Contract::AllTricks { trumps } => format!("All Tricks in {trumps}"),
        Contract::FixedTrick { tricks, trumps } => format!("Fixed Trick ({tricks} in {trumps})"),
    }
}

impl Game for Tridge {
    const ID: GameId = GameId::Tridge;
    const NAME: &'static str = "Tridge (Tresillo/Ombre)";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=4;

    type Options = Options;
    type Move = Move;
    type Event = Event;
    type View = View;
    type ScoreSheet = ScoreSheet;

    fn option_docs() -> &'static [OptionDoc] {
        OPTION_DOCS
    }

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
        if usize::from(options.first_dealer) >= players {
            return bad("first_dealer", "there is no such seat at this table");
        }
        let opening = Chips::new(options.opening_chips);
        let stakes = Chips::new(options.widows_stake + options.fund_stake);
        let n = players as i64;
        let mut game = Tridge {
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
            deal: Deal {
                number: 1,
                dealer: Seat::new(0),
                active: Vec::new(),
                stage: Stage::AllPassed,
                player: None,
                contract: None,
                first_defender: None,
                stock_left: STOCK,
                tricks: BySeat::filled(players, 0),
                tricks_done: 0,
                trick: Trick::new(Seat::new(0)),
                played: CardSet::default(),
                voids: Voids::new(players),
                revokes: Vec::new(),
                player_cards: Vec::new(),
                may_stop: false,
                all_tricks_undertaken: false,
                in_comer: false,
            },
            sheet: Vec::new(),
            finished: false,
        };
        game.deal = game.new_deal(1);
        Ok(game)
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

    fn play_move(&mut self, mv: &Move) -> Result<Vec<Event>, RuleViolation> {
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

    fn at_deal_boundary(&self) -> bool {
        self.finished || self.deal.is_fresh()
    }

    fn is_finished(&self) -> bool {
        self.finished
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

    fn score_sheet(&self) -> ScoreSheet {
        ScoreSheet {
            deals: self.sheet.clone(),
            chips: self.chips.values().to_vec(),
            funds: self.funds(),
            finished: self.finished,
        }
    }

    fn opening_settlements(&self) -> Vec<Settlement> {
        let players = self.players;
        let opening = Chips::new(self.options.opening_chips);
        let mut issue = vec![(Account::Bank, Chips::new(-opening.get() * players as i64))];
        issue.extend(Seat::all(players).map(|s| (Account::Seat(s), opening)));
        let stake = |amount: i64, fund: Account| {
            let mut postings: Vec<(Account, Chips)> = Seat::all(players)
                .map(|s| (Account::Seat(s), Chips::new(-amount)))
                .collect();
            postings.push((fund, Chips::new(amount * players as i64)));
            postings
        };
        let mut out = vec![Settlement {
            deal: None,
            memo: "opening chips from the bank".into(),
            postings: issue,
        }];
        if self.options.widows_stake > 0 {
            out.push(Settlement {
                deal: Some(1),
                memo: "the Widow's Fund seeded".into(),
                postings: stake(self.options.widows_stake, Account::WidowsFund),
            });
        }
        out.push(Settlement {
            deal: Some(1),
            memo: "the Game Fund seeded".into(),
            postings: stake(self.options.fund_stake, Account::GameFund),
        });
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
                } => Some(Settlement {
                    deal: Some(*deal),
                    memo: format!("deal {deal}: {reason}"),
                    postings: transfers
                        .iter()
                        .flat_map(|t| [(t.from.account(), -t.amount), (t.to.account(), t.amount)])
                        .collect(),
                }),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
