//! Pope Joan (`shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops game with a
//! staking board whose divisions are ledger pools.
//!
//! Invariants: the chips on the table (seats plus board) always equal the opening chips the
//! bank issued, and every chip movement is an event (`Event::Chips`) that `settlements` turns
//! into a ledger booking; a deal's cards are played at most once each, never the 8♦ or the
//! turn-up, and no seat plays more than it was dealt (`stops::Runs`); a division's balance is
//! won at most once a deal and otherwise carries over; Game is won every deal.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::cards::{Card, CardSet, Rank, Suit};
use crate::rules::chips::{Account, Chips, Settlement, Transfer};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::{BySeat, Seat};
use crate::rules::stops::{
    self, opening_chips, per_card_payments, pour, ChipEvent, ChipMovement, Holdings, MissedPlay,
    Played, Pool, PoolBalance, RunState, Runs,
};
use crate::rules::{Game, GameId, OptionDoc};

/// The nine of diamonds.
pub const POPE: Card = Card::new(Rank::Nine, Suit::Diamonds);
/// The card taken out of the pack.
pub const EIGHT_OF_DIAMONDS: Card = Card::new(Rank::Eight, Suit::Diamonds);

/// Who dresses the board at the start of each deal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Dressing {
    /// Every player, the dealer paying double.
    #[default]
    AllPlayers,
    /// The dealer alone pays the whole board.
    DealerAlone,
}

/// Table options for Pope Joan. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = PopeJoanOptions)]
pub struct Options {
    /// Chips each player receives from the bank when the table opens.
    pub opening_chips: u32,
    /// The first dealer, as a seat.
    pub first_dealer: u8,
    /// Rounds of deals: each round every player deals once.
    pub rounds: u8,
    pub dressing: Dressing,
    /// The least the board is dressed with each deal (left out: 15, or 12 on a five-division
    /// board). Fixed stakes: Pope 6, Matrimony 2, Intrigue 2, Ace, King, Queen, Knave 1; Game
    /// takes the rest.
    pub board_total: Option<u8>,
    /// Pope, Matrimony, Intrigue, Ace and Game only.
    pub five_divisions: bool,
    /// The most a Pope turn-up collects from each player (left out: one a card dealt).
    pub pope_turn_up_cap: Option<u8>,
    /// A Pope turn-up also wins Game and ends the deal.
    pub pope_turn_up_wins_game: bool,
    /// Matrimony or Intrigue played by two players is split between them (the odd chip stays).
    pub split_matrimony_and_intrigue: bool,
    /// "The most popular variation": the winner takes Game only; the others pay their cards
    /// onto the board (emptiest division first), and the dealer alone dresses it with 1 chip.
    pub losers_pay_board: bool,
    /// The 9♦ may be played after a stop in place of the card the run needed, from any seat;
    /// the run goes on from there (`pope_in_lieu` move).
    pub pope_in_lieu_of_stop: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            opening_chips: 100,
            first_dealer: 0,
            rounds: 1,
            dressing: Dressing::AllPlayers,
            board_total: None,
            five_divisions: false,
            pope_turn_up_cap: None,
            pope_turn_up_wins_game: false,
            split_matrimony_and_intrigue: false,
            losers_pay_board: false,
            pope_in_lieu_of_stop: false,
        }
    }
}

const OPTION_DOCS: &[OptionDoc] = &[
    OptionDoc {
        name: "opening_chips",
        description: "chips each player gets from the bank at the start (default 100)",
    },
    OptionDoc {
        name: "first_dealer",
        description: "seat of the first dealer",
    },
    OptionDoc {
        name: "rounds",
        description: "rounds of deals, each player dealing once a round (default 1)",
    },
    OptionDoc {
        name: "dressing",
        description: "all_players (the dealer paying double; default) or dealer_alone",
    },
    OptionDoc {
        name: "board_total",
        description: "least chips dressing the board each deal (default 15; 12 with five divisions)",
    },
    OptionDoc {
        name: "five_divisions",
        description: "board of Pope, Matrimony, Intrigue, Ace and Game only",
    },
    OptionDoc {
        name: "pope_turn_up_cap",
        description: "most a Pope turn-up collects from each player (default: one a card dealt)",
    },
    OptionDoc {
        name: "pope_turn_up_wins_game",
        description: "a Pope turn-up also wins Game and ends the deal",
    },
    OptionDoc {
        name: "split_matrimony_and_intrigue",
        description: "Matrimony or Intrigue played by two players is split between them",
    },
    OptionDoc {
        name: "losers_pay_board",
        description: "the winner takes Game only; the others pay their cards onto the board",
    },
    OptionDoc {
        name: "pope_in_lieu_of_stop",
        description: "the 9♦ may be played after a stop in place of the card the run needed",
    },
];

const EIGHT_DIVISIONS: &[Pool] = &[
    Pool::Pope,
    Pool::Matrimony,
    Pool::Intrigue,
    Pool::Ace,
    Pool::King,
    Pool::Queen,
    Pool::Knave,
    Pool::Game,
];
const FIVE_DIVISIONS: &[Pool] = &[Pool::Pope, Pool::Matrimony, Pool::Intrigue, Pool::Ace, Pool::Game];

/// The fixed stake of a division; Game takes the rest.
fn fixed_stake(pool: Pool) -> i64 {
    match pool {
        Pool::Pope => 6,
        Pool::Matrimony | Pool::Intrigue => 2,
        Pool::Ace | Pool::King | Pool::Queen | Pool::Knave => 1,
        _ => 0,
    }
}

/// The division a trump honour wins.
fn honour_division(rank: Rank) -> Option<Pool> {
    match rank {
        Rank::Ace => Some(Pool::Ace),
        Rank::King => Some(Pool::King),
        Rank::Queen => Some(Pool::Queen),
        Rank::Jack => Some(Pool::Knave),
        _ => None,
    }
}

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

impl ChipEvent for Event {
    fn chips(movement: ChipMovement) -> Event {
        Event::Chips { movement }
    }

    fn movement(&self) -> Option<&ChipMovement> {
        match self {
            Event::Chips { movement } => Some(movement),
            _ => None,
        }
    }
}

/// One deal on the score sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = PopeJoanDealScore)]
pub struct DealScore {
    pub deal: u16,
    pub dealer: Seat,
    pub turn_up: Card,
    pub winner: Seat,
    pub cards_left: Vec<u8>,
    pub net: Vec<Chips>,
    /// Chips held after the deal.
    pub chips: Vec<Chips>,
    pub missed_plays: Vec<MissedPlay>,
    pub recording: Recording,
}

/// Each deal's result, chips and the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = PopeJoanScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub chips: Vec<Chips>,
    pub board: Vec<PoolBalance>,
    pub deals_in_game: u16,
    pub finished: bool,
    /// The seats holding the most chips; empty until the game ends.
    pub winners: Vec<Seat>,
}

/// Where a deal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = PopeJoanPhase)]
pub enum Phase {
    TurnUp,
    Playing,
    PopeHolder,
    Finished,
}

/// The run being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LiveRun {
    pub last: Card,
    pub by: Seat,
    /// The card that continues it.
    pub next: Card,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = PopeJoanView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
    pub hand_size: Option<u8>,
    pub spare_hand: Option<u8>,
    pub turn_up: Option<Card>,
    pub trumps: Option<Suit>,
    /// The seat to lead; null while a run is live (any seat may continue it) or between deals.
    pub to_act: Option<Seat>,
    pub run: Option<LiveRun>,
    pub legal_moves: Vec<&'static str>,
    pub cards_left: Vec<u8>,
    pub played: Vec<Card>,
    pub missed_plays: Vec<MissedPlay>,
    pub board: Vec<PoolBalance>,
    pub chips: Vec<Chips>,
    pub winners: Vec<Seat>,
}

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
    sheet: Vec<DealScore>,
    deal: Option<Deal>,
}

impl PopeJoan {
    pub fn players(&self) -> usize {
        self.players
    }

    /// The divisions of this table's board.
    pub fn divisions(&self) -> &'static [Pool] {
        if self.options.five_divisions {
            FIVE_DIVISIONS
        } else {
            EIGHT_DIVISIONS
        }
    }

    pub fn holdings(&self) -> &Holdings {
        &self.holdings
    }

    /// Cards each seat still holds in the current deal.
    pub fn cards_left(&self) -> Vec<u8> {
        self.deal.as_ref().map(|d| d.runs.hands_left()).unwrap_or_default()
    }

    fn has_division(&self, pool: Pool) -> bool {
        self.divisions().contains(&pool)
    }

    fn phase(&self) -> Phase {
        match &self.deal {
            None => Phase::Finished,
            Some(d) if d.turn_up.is_none() => Phase::TurnUp,
            Some(d) if d.out.is_some() => Phase::PopeHolder,
            Some(_) => Phase::Playing,
        }
    }

    fn legal_moves(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::TurnUp, _) => vec!["turn_up"],
            (Phase::Playing, Some(d)) if d.runs.is_fresh() => vec!["play", "result"],
            (Phase::Playing, Some(d)) if d.runs.leader().is_none() => vec!["play", "stop"],
            (Phase::Playing, Some(d))
                if self.options.pope_in_lieu_of_stop
                    && d.runs.missing_after_stop().is_some()
                    && !d.runs.is_accounted_for(POPE) =>
            {
                vec!["play", "pope_in_lieu"]
            }
            (Phase::Playing, _) => vec!["play"],
            (Phase::PopeHolder, _) => vec!["pope_holder"],
            (Phase::Finished, _) => vec![],
        }
    }

    fn not_expected(&self, kind: &'static str) -> RuleViolation {
        stops::not_expected(self.deal.is_none(), kind, || self.legal_moves())
    }

    fn deal_ref(&self) -> Result<&Deal, RuleViolation> {
        self.deal.as_ref().ok_or(RuleViolation::GameFinished)
    }

    fn deal_mut(&mut self) -> Result<&mut Deal, RuleViolation> {
        self.deal.as_mut().ok_or(RuleViolation::GameFinished)
    }

    /// The dressing of deal `number` dealt by `dealer`.
    fn dressing(&self, number: u16, dealer: Seat) -> Option<ChipMovement> {
        let memo = format!("deal {number}: the board is dressed");
        if self.options.losers_pay_board {
            let payments = self.spread(Account::Seat(dealer), 1, &mut Vec::new());
            return ChipMovement::new(Some(number), memo, payments);
        }
        let total = i64::from(self.board_total);
        let payers: Vec<(Account, i64)> = match self.options.dressing {
            Dressing::DealerAlone => vec![(Account::Seat(dealer), total)],
            Dressing::AllPlayers => {
                let units = self.players as i64 + 1;
                let unit = (total + units - 1) / units;
                Seat::all(self.players)
                    .map(|s| (Account::Seat(s), if s == dealer { 2 * unit } else { unit }))
                    .collect()
            }
        };
        let paid: i64 = payers.iter().map(|(_, a)| a).sum();
        let fixed: i64 = self.divisions().iter().map(|&p| fixed_stake(p)).sum();
        let receivers: Vec<(Account, i64)> = self
            .divisions()
            .iter()
            .map(|&p| {
                (
                    Account::Pool(p),
                    if p == Pool::Game { paid - fixed } else { fixed_stake(p) },
                )
            })
            .collect();
        ChipMovement::new(Some(number), memo, pour(&payers, &receivers))
    }

    /// Payments of `amount` chips from `payer` onto the board, a chip at a time on the
    /// division holding least (ties in board order). `placed` keeps what earlier payments of
    /// the same movement put down.
    fn spread(&self, payer: Account, amount: i64, placed: &mut Vec<(Pool, i64)>) -> Vec<Transfer> {
        let mut mine: Vec<(Pool, i64)> = Vec::new();
        for _ in 0..amount.max(0) {
            let balance = |p: Pool, placed: &[(Pool, i64)], mine: &[(Pool, i64)]| {
                self.holdings.pool(p).get()
                    + placed
                        .iter()
                        .chain(mine)
                        .filter(|(q, _)| *q == p)
                        .map(|(_, a)| a)
                        .sum::<i64>()
            };
            let Some(&target) = self.divisions().iter().min_by_key(|&&p| balance(p, placed, &mine)) else {
                break;
            };
            match mine.iter_mut().find(|(p, _)| *p == target) {
                Some((_, a)) => *a += 1,
                None => mine.push((target, 1)),
            }
        }
        placed.extend(mine.iter().copied());
        mine.into_iter()
            .map(|(pool, a)| Transfer::new(payer, Account::Pool(pool), Chips::new(a)))
            .collect()
    }

    /// Starts deal `index` (0-based): dresses the board. None when the game is over.
    fn start_deal(&mut self, index: u16, events: &mut Vec<Event>) {
        if index >= self.deals_in_game {
            self.deal = None;
            let winners = self.winners();
            events.push(Event::GameFinished {
                winners,
                chips: self.holdings.seats(),
            });
            return;
        }
        let number = index + 1;
        let dealer = Seat::new(self.options.first_dealer).left(usize::from(index), self.players);
        let (hand_size, spare) = deal_sizes(self.players);
        events.push(Event::DealStarted {
            deal: number,
            dealer,
            hand_size,
            spare_hand: spare,
        });
        let start_chips = self.holdings.seats();
        let dressing = self.dressing(number, dealer);
        self.holdings.book(events, dressing);
        let removed: CardSet = [EIGHT_OF_DIAMONDS].into_iter().collect();
        self.deal = Some(Deal {
            number,
            dealer,
            hand_size,
            turn_up: None,
            runs: Runs::new(
                removed,
                true,
                BySeat::filled(self.players, hand_size),
                dealer.left(1, self.players),
            ),
            specials: Vec::new(),
            won: Vec::new(),
            out: None,
            start_chips,
        });
    }

    /// Takes a division's whole balance for `seat`, once a deal.
    fn win_division(
        &mut self,
        events: &mut Vec<Event>,
        pool: Pool,
        seat: Seat,
        why: &str,
    ) -> Result<(), RuleViolation> {
        if !self.has_division(pool) {
            return Ok(());
        }
        let deal = self.deal_mut()?;
        if deal.won.contains(&pool) {
            return Ok(());
        }
        deal.won.push(pool);
        let number = deal.number;
        let amount = self.holdings.pool(pool).get();
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {} won by {seat} ({why})", pool.title()),
            vec![Transfer::new(Account::Pool(pool), Account::Seat(seat), Chips::new(amount))],
        );
        self.holdings.book(events, movement);
        Ok(())
    }

    fn turn_up(&mut self, card: Card) -> Result<Vec<Event>, RuleViolation> {
        if self.phase() != Phase::TurnUp {
            return Err(self.not_expected("turn_up"));
        }
        let deal = self.deal_ref()?;
        deal.runs.check_card(card)?;
        let (dealer, number, hand_size) = (deal.dealer, deal.number, deal.hand_size);

        let deal = self.deal_mut()?;
        deal.turn_up = Some(card);
        deal.runs.set_aside(card);
        let mut events = vec![Event::TurnedUp {
            card,
            trumps: card.suit,
        }];
        if card == POPE {
            self.win_division(&mut events, Pool::Pope, dealer, "the Pope turned up")?;
            let each = i64::from(
                self.options
                    .pope_turn_up_cap
                    .map_or(hand_size, |cap| cap.min(hand_size)),
            );
            let payments = Seat::all(self.players)
                .filter(|&s| s != dealer)
                .map(|s| Transfer::new(Account::Seat(s), Account::Seat(dealer), Chips::new(each)))
                .collect();
            let movement = ChipMovement::new(
                Some(number),
                format!("deal {number}: the Pope turned up: {each} from each player to the dealer ({dealer})"),
                payments,
            );
            self.holdings.book(&mut events, movement);
            if self.options.pope_turn_up_wins_game {
                self.win_division(&mut events, Pool::Game, dealer, "the Pope turned up")?;
                let cards_left = vec![hand_size; self.players];
                self.finish_deal(&mut events, dealer, cards_left, Recording::TurnUp)?;
            }
        } else if let Some(pool) = honour_division(card.rank) {
            self.win_division(&mut events, pool, dealer, "turned up")?;
        }
        Ok(events)
    }

    /// Books what playing a special card wins: its division, Matrimony or Intrigue, the Pope's
    /// per-card payments (`cards_left` of every hand after the play).
    fn play_special(
        &mut self,
        events: &mut Vec<Event>,
        seat: Seat,
        card: Card,
        cards_left: &[u8],
    ) -> Result<(), RuleViolation> {
        let deal = self.deal_ref()?;
        let number = deal.number;
        let trumps = deal.trumps();
        if card == POPE {
            self.deal_mut()?.specials.push((seat, card));
            self.win_division(events, Pool::Pope, seat, "9D played")?;
            let payments = Seat::all(self.players)
                .filter(|&s| s != seat)
                .map(|s| Transfer::new(Account::Seat(s), Account::Seat(seat), Chips::new(i64::from(cards_left[s.index()]))))
                .collect();
            let movement = ChipMovement::new(
                Some(number),
                format!("deal {number}: the Pope played by {seat}: one a card left from each player"),
                payments,
            );
            self.holdings.book(events, movement);
            return Ok(());
        }
        if Some(card.suit) != trumps {
            return Ok(());
        }
        let Some(pool) = honour_division(card.rank) else {
            return Ok(());
        };
        self.deal_mut()?.specials.push((seat, card));
        self.win_division(events, pool, seat, &format!("{card} played"))?;
        for (combo, high, low) in [
            (Pool::Matrimony, Rank::King, Rank::Queen),
            (Pool::Intrigue, Rank::Queen, Rank::Jack),
        ] {
            if card.rank != high && card.rank != low {
                continue;
            }
            let deal = self.deal_ref()?;
            let by = |rank: Rank| {
                deal.specials
                    .iter()
                    .find(|(_, c)| c.rank == rank && c.suit == card.suit)
                    .map(|(s, _)| *s)
            };
            let (Some(a), Some(b)) = (by(high), by(low)) else {
                continue;
            };
            if a == b {
                self.win_division(events, combo, a, "both cards played")?;
            } else if self.options.split_matrimony_and_intrigue && !deal.won.contains(&combo) {
                self.deal_mut()?.won.push(combo);
                let half = self.holdings.pool(combo).get() / 2;
                let movement = ChipMovement::new(
                    Some(number),
                    format!("deal {number}: {} split between {a} and {b}", combo.title()),
                    vec![
                        Transfer::new(Account::Pool(combo), Account::Seat(a), Chips::new(half)),
                        Transfer::new(Account::Pool(combo), Account::Seat(b), Chips::new(half)),
                    ],
                );
                self.holdings.book(events, movement);
            }
        }
        Ok(())
    }

    fn play(&mut self, seat: Seat, card: Card) -> Result<Vec<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        let played = self.deal_mut()?.runs.play(seat, card, false)?;
        self.played(seat, card, card, played)
    }

    /// The 9♦ played in place of the card a stopped run needed (option `pope_in_lieu_of_stop`).
    fn pope_in_lieu(&mut self, seat: Seat) -> Result<Vec<Event>, RuleViolation> {
        seat.check(self.players)?;
        let missing = self.deal.as_ref().and_then(|d| d.runs.missing_after_stop());
        let (true, Phase::Playing, Some(missing)) = (self.options.pope_in_lieu_of_stop, self.phase(), missing) else {
            return Err(self.not_expected("pope_in_lieu"));
        };
        let played = self
            .deal_mut()?
            .runs
            .play_in_lieu(seat, POPE)?
            .ok_or(RuleViolation::GameFinished)?;
        self.played(seat, POPE, missing, played)
    }

    /// What follows a card played: a missed play, a stop at `stop_card`, a special's winnings,
    /// going out.
    fn played(&mut self, seat: Seat, card: Card, stop_card: Card, played: Played) -> Result<Vec<Event>, RuleViolation> {
        let mut events = vec![Event::CardPlayed {
            seat,
            card,
            cards_left: played.cards_left,
        }];
        if let Some(missed) = played.missed {
            events.push(Event::MissedPlayDetected { missed });
        }
        if played.stop && played.cards_left > 0 {
            events.push(Event::Stopped {
                card: stop_card,
                leader: seat,
                declared: false,
            });
        }
        let cards_left = self.deal_ref()?.runs.hands_left();
        self.play_special(&mut events, seat, card, &cards_left)?;
        if played.cards_left == 0 {
            let deal = self.deal_ref()?;
            let pope_unaccounted = !deal.runs.is_accounted_for(POPE);
            if pope_unaccounted {
                self.deal_mut()?.out = Some(seat);
            } else {
                self.go_out(&mut events, seat, None, cards_left, Recording::CardByCard)?;
            }
        }
        Ok(events)
    }

    fn stop(&mut self) -> Result<Vec<Event>, RuleViolation> {
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("stop"));
        }
        let mut runs = self.deal_ref()?.runs.clone();
        let Some((card, leader)) = runs.declare_stop()? else {
            return Err(self.not_expected("stop"));
        };
        self.deal_mut()?.runs = runs;
        Ok(vec![Event::Stopped {
            card,
            leader,
            declared: true,
        }])
    }

    fn pope_holder(&mut self, holder: Option<Seat>) -> Result<Vec<Event>, RuleViolation> {
        if self.phase() != Phase::PopeHolder {
            return Err(self.not_expected("pope_holder"));
        }
        let deal = self.deal_ref()?;
        let out = deal.out.ok_or(RuleViolation::GameFinished)?;
        if let Some(h) = holder {
            h.check(self.players)?;
            if h == out {
                return Err(RuleViolation::InvalidResult(format!(
                    "{h} went out and holds no cards, so cannot hold the 9D"
                )));
            }
        }
        let cards_left = deal.runs.hands_left();
        let mut events = Vec::new();
        self.deal_mut()?.out = None;
        self.go_out(&mut events, out, holder, cards_left, Recording::CardByCard)?;
        Ok(events)
    }

    /// Books going out: Game, and the per-card payments (to the winner, or onto the board).
    fn go_out(
        &mut self,
        events: &mut Vec<Event>,
        winner: Seat,
        exempt: Option<Seat>,
        cards_left: Vec<u8>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        events.push(Event::WentOut {
            seat: winner,
            cards_left: cards_left.clone(),
            exempt,
        });
        self.win_division(events, Pool::Game, winner, "first out")?;
        let losers = Seat::all(self.players).filter(|&s| s != winner && Some(s) != exempt);
        let movement = if self.options.losers_pay_board {
            let mut placed = Vec::new();
            let payments = losers
                .flat_map(|s| self.spread(Account::Seat(s), i64::from(cards_left[s.index()]), &mut placed))
                .collect();
            ChipMovement::new(
                Some(number),
                format!("deal {number}: one a card left onto the board"),
                payments,
            )
        } else {
            let payments = per_card_payments(winner, &cards_left, exempt, None);
            ChipMovement::new(
                Some(number),
                format!("deal {number}: {winner} went out: one a card left from each player"),
                payments,
            )
        };
        self.holdings.book(events, movement);
        self.finish_deal(events, winner, cards_left, recording)
    }

    fn finish_deal(
        &mut self,
        events: &mut Vec<Event>,
        winner: Seat,
        cards_left: Vec<u8>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let deal = self.deal.take().ok_or(RuleViolation::GameFinished)?;
        let chips = self.holdings.seats();
        let net = self.holdings.net_since(&deal.start_chips);
        self.sheet.push(DealScore {
            deal: deal.number,
            dealer: deal.dealer,
            turn_up: deal.turn_up.unwrap_or(POPE),
            winner,
            cards_left,
            net: net.clone(),
            chips,
            missed_plays: deal.runs.missed_plays().to_vec(),
            recording,
        });
        events.push(Event::DealEnded {
            deal: deal.number,
            winner,
            net,
        });
        self.start_deal(deal.number, events);
        Ok(())
    }

    fn result(
        &mut self,
        out: Seat,
        cards_left: &[u8],
        specials: &[Vec<Card>],
        pope_cards_left: Option<&[u8]>,
        pope_holder: Option<Seat>,
    ) -> Result<Vec<Event>, RuleViolation> {
        let fresh = self.phase() == Phase::Playing && self.deal.as_ref().is_some_and(|d| d.runs.is_fresh());
        if !fresh {
            return Err(self.not_expected("result"));
        }
        let players = self.players;
        out.check(self.players)?;
        if let Some(h) = pope_holder {
            h.check(self.players)?;
        }
        for got in [cards_left.len(), specials.len()] {
            if got != players {
                return Err(RuleViolation::WrongNumberOfEntries { got, expected: players });
            }
        }
        let deal = self.deal_ref()?;
        let hand = deal.hand_size;
        let trumps = deal.trumps();
        for (seat, &left) in Seat::all(players).zip(cards_left) {
            if seat == out && left != 0 {
                return Err(RuleViolation::InvalidResult(format!(
                    "{out} went out, so has no cards left"
                )));
            }
            if seat != out && !(1..=hand).contains(&left) {
                return Err(RuleViolation::InvalidResult(format!(
                    "{seat} has {left} cards left: only the seat that went out has none, and a hand has {hand}"
                )));
            }
        }
        let mut seen = CardSet::default();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                deal.runs.check_card(card)?;
                if seen.contains(card) {
                    return Err(RuleViolation::CardAlreadyPlayed(card));
                }
                seen.insert(card);
                let special = card == POPE || (Some(card.suit) == trumps && honour_division(card.rank).is_some());
                if !special {
                    return Err(RuleViolation::InvalidResult(format!(
                        "{card} is not a special card (the 9D or the ace, king, queen or knave of trumps)"
                    )));
                }
            }
            let played = usize::from(hand - cards_left[seat.index()]);
            if cards.len() > played {
                return Err(RuleViolation::MoreCardsThanDealt { seat, dealt: hand });
            }
        }
        let pope_played = seen.contains(POPE);
        let pope_cards = match (pope_played, pope_cards_left) {
            (true, Some(counts)) => {
                if counts.len() != players {
                    return Err(RuleViolation::WrongNumberOfEntries {
                        got: counts.len(),
                        expected: players,
                    });
                }
                if let Some((seat, _)) = Seat::all(players)
                    .zip(counts)
                    .find(|(s, &c)| c > hand || c < cards_left[s.index()])
                {
                    return Err(RuleViolation::InvalidResult(format!(
                        "{seat}'s cards when the 9D was played must lie between the cards left at the end and the hand size"
                    )));
                }
                counts.to_vec()
            }
            (true, None) => {
                return Err(RuleViolation::InvalidResult(
                    "the 9D was played: give pope_cards_left".into(),
                ))
            }
            (false, Some(_)) => {
                return Err(RuleViolation::InvalidResult(
                    "pope_cards_left is only given when the 9D was played".into(),
                ))
            }
            (false, None) => Vec::new(),
        };
        if let Some(h) = pope_holder {
            if pope_played || deal.runs.is_set_aside(POPE) || h == out {
                return Err(RuleViolation::InvalidResult(format!("{h} cannot hold an unplayed 9D")));
            }
        }

        // Checked: from here on the state changes.
        let mut events = Vec::new();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                self.play_special(&mut events, seat, card, &pope_cards)?;
            }
        }
        self.go_out(
            &mut events,
            out,
            pope_holder,
            cards_left.to_vec(),
            Recording::ResultOnly,
        )?;
        Ok(events)
    }

    fn winners(&self) -> Vec<Seat> {
        self.holdings.winners(self.deal.is_none())
    }

    fn board(&self) -> Vec<PoolBalance> {
        self.holdings.board(self.divisions().iter().copied())
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
            sheet: Vec::new(),
            deal: None,
        };
        let mut events = Vec::new();
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

    fn play_move(&mut self, mv: &Move) -> Result<Vec<Event>, RuleViolation> {
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

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(Deal::is_fresh)
    }

    fn is_finished(&self) -> bool {
        self.deal.is_none()
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

    fn score_sheet(&self) -> ScoreSheet {
        ScoreSheet {
            deals: self.sheet.clone(),
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
