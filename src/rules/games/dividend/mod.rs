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

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::cards::{Card, CardSet, Suit};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::{BySeat, Seat};
use crate::rules::trick::{Play, Revoke, Trick, Voids};
use crate::rules::{Game, GameId, OptionDoc};

/// Players at a Dividend table: always four.
pub const PLAYERS: usize = 4;
/// Tricks in a deal.
pub const TRICKS: u8 = 13;
/// Cards in a deal, all of which are won by someone.
pub const CARDS: u32 = 52;

/// The suit that trumps a trick led in `led`: spades beat hearts beat clubs beat diamonds
/// beat spades. Any other suit played to the trick is a discard.
pub const fn trump_for(led: Suit) -> Suit {
    match led {
        Suit::Hearts => Suit::Spades,
        Suit::Clubs => Suit::Hearts,
        Suit::Diamonds => Suit::Clubs,
        Suit::Spades => Suit::Diamonds,
    }
}

/// The winning play of a complete trick and its position (0 = the lead): the highest card of
/// the lead's trump if any was played, else the highest card of the suit led.
pub fn trick_winner(trick: &Trick<Card>) -> Option<(usize, Play<Card>)> {
    trick.winner_with_trumps(Some(trump_for(trick.led()?.suit)))
}

/// How a trick's four cards are shared out, per seat, when `winner` wins a trick led by
/// `leader`. By the winner's position p (leader = 1): p=1 → every player 1; p=2 → winner 2,
/// leader 1, third player 1; p=3 → winner 3, leader 1; p=4 → winner 4.
pub fn shares(leader: Seat, winner: Seat) -> [u8; PLAYERS] {
    let mut out = [0u8; PLAYERS];
    let at = |position: usize| leader.left(position, PLAYERS).index();
    match winner.distance_from(leader, PLAYERS) {
        0 => out = [1; PLAYERS],
        1 => {
            out[at(1)] = 2;
            out[at(0)] = 1;
            out[at(2)] = 1;
        }
        2 => {
            out[at(2)] = 3;
            out[at(0)] = 1;
        }
        _ => out[at(3)] = 4,
    }
    out
}

/// True when some 13 tricks, the first led by `leader`, share the cards out as `cards_won`.
///
/// Each trick's winner leads the next, so not every split of 52 can happen: every trick gives
/// each pair of opposite seats 0, 2 or 4 cards, so their counts always add up to an even number
/// (17, 11, 14, 10 is impossible), and the first leader wins at most 31 cards, the dealer at
/// most 34. A depth-first search over the winners of the tricks left, remembering the (tricks
/// left, leader, cards still to share) states that failed.
pub fn reachable(leader: Seat, cards_won: [u8; PLAYERS]) -> bool {
    type State = (u8, Seat, [u8; PLAYERS]);
    fn search(tricks: u8, leader: Seat, left: [u8; PLAYERS], failed: &mut HashSet<State>) -> bool {
        if tricks == 0 {
            return left == [0; PLAYERS];
        }
        if failed.contains(&(tricks, leader, left)) {
            return false;
        }
        for winner in Seat::all(PLAYERS) {
            if less(left, shares(leader, winner)).is_some_and(|rest| search(tricks - 1, winner, rest, failed)) {
                return true;
            }
        }
        failed.insert((tricks, leader, left));
        false
    }
    fn less(left: [u8; PLAYERS], share: [u8; PLAYERS]) -> Option<[u8; PLAYERS]> {
        let mut rest = left;
        for (r, s) in rest.iter_mut().zip(share) {
            *r = r.checked_sub(s)?;
        }
        Some(rest)
    }
    let total: u32 = cards_won.iter().map(|&c| u32::from(c)).sum();
    total == CARDS && search(TRICKS, leader, cards_won, &mut HashSet::new())
}

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
        description: "false: everyone for themselves; true: seats 0 & 2 against 1 & 3, each partner scoring the higher count",
    },
    OptionDoc {
        name: "game_length",
        description: "{\"rule\": \"deals\", \"deals\": 4} (default) or {\"rule\": \"points\", \"target\": 52}; a tie for first adds deals",
    },
    OptionDoc { name: "first_dealer", description: "seat of the first dealer; the dealer's left leads" },
    OptionDoc { name: "revoke_penalty", description: "points deducted per proven revoke (card-by-card deals)" },
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
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        cards: Vec<Play<Card>>,
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

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = DividendDealScore)]
pub struct DealScore {
    /// 1-based.
    pub deal: u16,
    pub dealer: Seat,
    /// Cards each seat won; they add up to 52.
    pub cards_won: Vec<u8>,
    /// Points per seat: the cards won (in partnerships the higher of the partners' counts),
    /// less any revoke penalty.
    pub points: Vec<i32>,
    /// Running totals after this deal.
    pub totals: Vec<i32>,
    pub revokes: Vec<Revoke<Suit>>,
    pub recording: Recording,
    /// True for a deal added to break a tie for first.
    pub tie_break: bool,
}

/// Scores per deal, totals, and the winners once the game is over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = DividendScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub totals: Vec<i32>,
    pub partnerships: bool,
    pub game_length: GameLength,
    /// True while deals are being added to break a tie for first.
    pub tie_break: bool,
    pub finished: bool,
    /// The winning seat (both partners in partnerships); empty until the game ends.
    pub winners: Vec<Seat>,
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
    /// The move kinds accepted next.
    pub legal_moves: Vec<&'static str>,
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
    sheet: Vec<DealScore>,
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

    fn legal_moves(&self) -> Vec<&'static str> {
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
                expected: self.legal_moves(),
            });
        }
        Ok(deal)
    }

    fn play(&mut self, seat: Seat, card: Card) -> Result<Vec<Event>, RuleViolation> {
        seat.check(PLAYERS)?;
        let deal = self.deal_for("play", Recording::CardByCard)?;
        let expected = deal.trick.next_seat(PLAYERS);
        if seat != expected {
            return Err(RuleViolation::NotYourTurn { expected, got: seat });
        }
        if deal.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }

        // Checked: from here on the move is legal and the state changes.
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        deal.recording = Some(Recording::CardByCard);
        let trick_no = deal.tricks_done + 1;
        let mut events = vec![Event::CardPlayed {
            seat,
            card,
            trick: trick_no,
        }];
        if let Some(revoke) = deal.voids.lay(&mut deal.trick, seat, card, trick_no) {
            deal.revokes.push(revoke);
            events.push(Event::RevokeDetected { revoke });
        }
        deal.played.insert(card);
        if !deal.trick.is_complete(PLAYERS) {
            return Ok(events);
        }
        let (_, winning) = trick_winner(&deal.trick).ok_or(RuleViolation::GameFinished)?;
        events.extend(self.award_trick(winning.seat));
        Ok(events)
    }

    fn trick(&mut self, winner: Seat, number: Option<u8>) -> Result<Vec<Event>, RuleViolation> {
        winner.check(PLAYERS)?;
        if let Some(n) = number.filter(|n| !(1..=TRICKS).contains(n)) {
            return Err(RuleViolation::NoSuchTrick {
                number: n,
                tricks: TRICKS,
            });
        }
        let deal = self.deal_for("trick", Recording::TrickByTrick)?;
        let expected = deal.tricks_done + 1;
        if let Some(got) = number.filter(|&n| n != expected) {
            return Err(RuleViolation::TrickOutOfOrder { expected, got });
        }
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        deal.recording = Some(Recording::TrickByTrick);
        Ok(self.award_trick(winner))
    }

    /// Shares the current trick's cards out by `winner`'s position, makes the winner the next
    /// leader, and scores the deal after the 13th trick. Card-by-card and trick-by-trick
    /// recording both end every trick here.
    fn award_trick(&mut self, winner: Seat) -> Vec<Event> {
        let Some(deal) = self.deal.as_mut() else {
            return Vec::new();
        };
        let leader = deal.trick.leader();
        let shares = shares(leader, winner);
        for (seat, share) in Seat::all(PLAYERS).zip(shares) {
            deal.cards_won[seat] += share;
        }
        deal.tricks_done += 1;
        let mut events = vec![Event::TrickWon {
            trick: deal.tricks_done,
            leader,
            winner,
            position: winner.distance_from(leader, PLAYERS) as u8 + 1,
            shares: shares.to_vec(),
            cards: deal.trick.plays().to_vec(),
        }];
        deal.trick = Trick::new(winner);
        if deal.tricks_done == TRICKS {
            let cards_won = deal.cards_won.clone();
            let recording = deal.recording.unwrap_or(Recording::TrickByTrick);
            events.extend(self.finish_deal(recording, cards_won));
        }
        events
    }

    fn result(&mut self, cards_won: &[u8]) -> Result<Vec<Event>, RuleViolation> {
        self.deal_for("result", Recording::ResultOnly)?;
        let Ok(split) = <[u8; PLAYERS]>::try_from(cards_won) else {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: cards_won.len(),
                expected: PLAYERS,
            });
        };
        let total: u32 = cards_won.iter().map(|&c| u32::from(c)).sum();
        if total != CARDS {
            return Err(RuleViolation::CardsDoNotAddUp { total, expected: CARDS });
        }
        let leader = self.deal.as_ref().ok_or(RuleViolation::GameFinished)?.trick.leader();
        if !reachable(leader, split) {
            return Err(RuleViolation::ImpossibleResult {
                cards_won: cards_won.to_vec(),
                leader,
            });
        }
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        deal.recording = Some(Recording::ResultOnly);
        deal.tricks_done = TRICKS;
        Ok(self.finish_deal(Recording::ResultOnly, BySeat::from_vec(cards_won.to_vec())))
    }

    /// The points of a deal per seat: the cards won (in partnerships, the higher count of the
    /// two partners), less the revoke penalty (in partnerships, for either partner's revokes).
    fn deal_points(&self, cards_won: &BySeat<u8>, revokes: &[Revoke<Suit>]) -> Vec<i32> {
        let penalty = i32::from(self.options.revoke_penalty);
        Seat::all(PLAYERS)
            .map(|seat| {
                let mut side = vec![seat];
                if self.options.partnerships {
                    side.push(seat.left(2, PLAYERS));
                }
                let cards = side.iter().map(|&s| i32::from(cards_won[s])).max().unwrap_or(0);
                let revokes = revokes.iter().filter(|r| side.contains(&r.seat)).count() as i32;
                cards - penalty * revokes
            })
            .collect()
    }

    /// Scores the current deal from the cards each seat won, however it was recorded, and moves
    /// on: to the next deal, to a tie-break deal, or to the end of the game.
    fn finish_deal(&mut self, recording: Recording, cards_won: BySeat<u8>) -> Vec<Event> {
        let Some(deal) = self.deal.take() else {
            return Vec::new();
        };
        let points = self.deal_points(&cards_won, &deal.revokes);
        for (seat, p) in Seat::all(PLAYERS).zip(&points) {
            self.totals[seat] += p;
        }
        let totals = self.totals.values().to_vec();
        self.sheet.push(DealScore {
            deal: deal.number,
            dealer: deal.dealer,
            cards_won: cards_won.values().to_vec(),
            points: points.clone(),
            totals: totals.clone(),
            revokes: deal.revokes.clone(),
            recording,
            tie_break: deal.tie_break,
        });
        let mut events = vec![Event::DealScored {
            deal: deal.number,
            cards_won: cards_won.into_vec(),
            points,
            totals: totals.clone(),
        }];
        let leaders = self.leaders();
        if !self.end_reached() {
            self.deal = Some(self.start_deal(deal.number.saturating_add(1), false));
        } else if self.is_tie(&leaders) {
            events.push(Event::TieForFirst {
                seats: leaders,
                totals: totals.clone(),
            });
            self.deal = Some(self.start_deal(deal.number.saturating_add(1), true));
        } else {
            events.push(Event::GameFinished {
                winners: leaders,
                totals,
            });
            return events;
        }
        if let Some(next) = &self.deal {
            events.push(Event::DealStarted {
                deal: next.number,
                dealer: next.dealer,
                leader: next.trick.leader(),
                tie_break: next.tie_break,
            });
        }
        events
    }

    /// True when the chosen length of game has been played (a tie may still extend it).
    fn end_reached(&self) -> bool {
        match self.options.game_length {
            GameLength::Deals { deals } => self.sheet.len() >= usize::from(deals),
            GameLength::Points { target } => self.totals.values().iter().any(|&t| t >= i32::from(target)),
        }
    }

    /// Every seat on the highest total.
    fn leaders(&self) -> Vec<Seat> {
        let best = self.totals.values().iter().copied().max().unwrap_or(0);
        self.totals.iter().filter(|(_, &t)| t == best).map(|(s, _)| s).collect()
    }

    /// True when `leaders` are more than one player, or in partnerships more than one side.
    fn is_tie(&self, leaders: &[Seat]) -> bool {
        if self.options.partnerships {
            leaders.iter().any(|s| s.index() % 2 != leaders[0].index() % 2)
        } else {
            leaders.len() > 1
        }
    }

    fn winners(&self) -> Vec<Seat> {
        if self.deal.is_some() {
            Vec::new()
        } else {
            self.leaders()
        }
    }

    fn tie_break(&self) -> bool {
        self.deal.as_ref().is_some_and(|d| d.tie_break)
    }
}

impl Game for Dividend {
    const ID: GameId = GameId::Dividend;
    const NAME: &'static str = "Dividend";
    const SEATS: std::ops::RangeInclusive<usize> = PLAYERS..=PLAYERS;

    type Options = Options;
    type Move = Move;
    type Event = Event;
    type View = View;
    type ScoreSheet = ScoreSheet;

    fn option_docs() -> &'static [OptionDoc] {
        OPTION_DOCS
    }

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
        if usize::from(options.first_dealer) >= players {
            return Err(SetupError::InvalidOption {
                option: "first_dealer",
                reason: format!("there is no seat {} at a table of {players}", options.first_dealer),
            });
        }
        let mut game = Dividend {
            options,
            sheet: Vec::new(),
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

    fn play_move(&mut self, mv: &Move) -> Result<Vec<Event>, RuleViolation> {
        match mv {
            Move::Play { seat, card } => self.play(*seat, *card),
            Move::Trick { winner, number } => self.trick(*winner, *number),
            Move::Result { cards_won } => self.result(cards_won),
        }
    }

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(Deal::is_fresh)
    }

    fn is_finished(&self) -> bool {
        self.deal.is_none()
    }

    fn view(&self) -> View {
        let totals = self.totals.values().to_vec();
        let tie_break = self.tie_break();
        let Some(deal) = &self.deal else {
            return View {
                phase: Phase::Finished,
                deal: self.sheet.last().map_or(0, |d| d.deal),
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

    fn score_sheet(&self) -> ScoreSheet {
        ScoreSheet {
            deals: self.sheet.clone(),
            totals: self.totals.values().to_vec(),
            partnerships: self.options.partnerships,
            game_length: self.options.game_length,
            tie_break: self.tie_break(),
            finished: self.deal.is_none(),
            winners: self.winners(),
        }
    }
}

pub mod sim;

#[cfg(test)]
mod tests;
