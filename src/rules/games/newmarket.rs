//! Newmarket (the third variation of `shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a
//! stops game of 48 cards (the sevens out), all dealt, with four pool cards whose stakes are
//! won by playing the card just below them.
//!
//! Invariants: the chips on the table (seats plus the four pools) always equal the opening chips;
//! every chip movement is an `Event::Chips` that `settlements` books; the pools are accounts by
//! rank (`pool_ace` …), so an unwon pool carries over to the next deal's card of that rank;
//! every card is dealt, so there is no declared stop: a run stops only at a king, a six (the
//! seven is out), a card just below a pool card, or a card whose next is played.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::cards::{Card, CardSet, Rank, Suit};
use crate::rules::chips::{Account, Chips, Settlement, Transfer};
use crate::rules::error::{RuleViolation, SetupError};
use crate::rules::seat::Seat;
use crate::rules::stops::{
    self, even_hands, opening_chips, per_card_payments, ChipEvent, ChipMovement, Holdings, Pool,
    PoolBalance, Runs,
};
use crate::rules::{Game, GameId, OptionDoc};

/// The pool ranks, in the order pools are listed.
const POOL_RANKS: [Rank; 4] = [Rank::Ace, Rank::King, Rank::Queen, Rank::Jack];

fn pool_of(rank: Rank) -> Option<Pool> {
    match rank {
        Rank::Ace => Some(Pool::PoolAce),
        Rank::King => Some(Pool::PoolKing),
        Rank::Queen => Some(Pool::PoolQueen),
        Rank::Jack => Some(Pool::PoolKnave),
        _ => None,
    }
}

/// The card that wins a pool card's stake: the one just below it, the ace counting high.
pub fn winning_card(pool_card: Card) -> Option<Card> {
    let rank = match pool_card.rank {
        Rank::Ace => Rank::King,
        Rank::King => Rank::Queen,
        Rank::Queen => Rank::Jack,
        Rank::Jack => Rank::Ten,
        _ => return None,
    };
    Some(Card::new(rank, pool_card.suit))
}

fn sevens() -> CardSet {
    Suit::ALL.iter().map(|&s| Card::new(Rank::Seven, s)).collect()
}

/// Table options for Newmarket. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = NewmarketOptions)]
pub struct Options {
    /// Chips each player receives from the bank when the table opens.
    pub opening_chips: u32,
    pub first_dealer: u8,
    /// Rounds of deals: each round every player deals once.
    pub rounds: u8,
    /// What the dealer adds to the pools each deal.
    pub dealer_extra: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            opening_chips: 100,
            first_dealer: 0,
            rounds: 1,
            dealer_extra: 1,
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
        name: "dealer_extra",
        description: "chips the dealer adds to the pools each deal (default 1)",
    },
];

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
#[schema(as = NewmarketDealScore)]
pub struct DealScore {
    pub deal: u16,
    pub dealer: Seat,
    pub pool_cards: Vec<Card>,
    pub winner: Seat,
    pub cards_left: Vec<u8>,
    pub net: Vec<Chips>,
    pub chips: Vec<Chips>,
    pub recording: Recording,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NewmarketScoreSheet)]
pub struct ScoreSheet {
    pub deals: Vec<DealScore>,
    pub chips: Vec<Chips>,
    pub pools: Vec<PoolBalance>,
    pub deals_in_game: u16,
    pub finished: bool,
    pub winners: Vec<Seat>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = NewmarketPhase)]
pub enum Phase {
    Layout,
    Playing,
    Finished,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = NewmarketView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
    pub pool_cards: Vec<Card>,
    /// The seat to lead; null while a run is live (the holder of `next_card` plays it).
    pub to_act: Option<Seat>,
    pub next_card: Option<Card>,
    pub legal_moves: Vec<&'static str>,
    pub cards_left: Vec<u8>,
    pub played: Vec<Card>,
    pub pools: Vec<PoolBalance>,
    pub chips: Vec<Chips>,
    pub winners: Vec<Seat>,
}

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
    sheet: Vec<DealScore>,
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

    fn phase(&self) -> Phase {
        match &self.deal {
            None => Phase::Finished,
            Some(d) if d.pool_cards.is_empty() => Phase::Layout,
            Some(_) => Phase::Playing,
        }
    }

    fn legal_moves(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::Layout, _) => vec!["layout"],
            (Phase::Playing, Some(d)) if d.runs.is_fresh() => vec!["play", "result"],
            (Phase::Playing, _) => vec!["play"],
            (Phase::Finished, _) => vec![],
        }
    }

    fn not_expected(&self, kind: &'static str) -> RuleViolation {
        stops::not_expected(self.deal.is_none(), kind, || self.legal_moves())
    }

    fn deal_ref(&self) -> Result<&Deal, RuleViolation> {
        self.deal.as_ref().ok_or(RuleViolation::GameFinished)
    }

    fn pools(&self) -> Vec<PoolBalance> {
        self.holdings.board(POOL_RANKS.iter().filter_map(|&r| pool_of(r)))
    }

    fn start_deal(&mut self, index: u16, events: &mut Vec<Event>) {
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

    fn layout(
        &mut self,
        pool_cards: &[Card],
        stakes: &[Card],
        extra_on: Option<Card>,
    ) -> Result<Vec<Event>, RuleViolation> {
        if self.phase() != Phase::Layout {
            return Err(self.not_expected("layout"));
        }
        let deal = self.deal_ref()?;
        let (number, dealer) = (deal.number, deal.dealer);
        let bad = RuleViolation::InvalidLayout;
        let ranks_ok = pool_cards.len() == 4
            && POOL_RANKS
                .iter()
                .all(|r| pool_cards.iter().filter(|c| c.rank == *r).count() == 1);
        let suits: CardSet = pool_cards.iter().map(|c| Card::new(Rank::Two, c.suit)).collect();
        if !ranks_ok || suits.len() != 4 {
            return Err(bad(
                "the pool cards are an ace, a king, a queen and a knave, of four different suits".into(),
            ));
        }
        if stakes.len() != self.players {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: stakes.len(),
                expected: self.players,
            });
        }
        let pool_for = |card: Card| {
            if pool_cards.contains(&card) {
                pool_of(card.rank).ok_or(RuleViolation::NotAPoolCard(card))
            } else {
                Err(RuleViolation::NotAPoolCard(card))
            }
        };
        let mut payments = Vec::new();
        for (seat, &card) in Seat::all(self.players).zip(stakes) {
            payments.push(Transfer::new(Account::Seat(seat), Account::Pool(pool_for(card)?), Chips::new(1)));
        }
        let extra = i64::from(self.options.dealer_extra);
        let covered = |pool: Pool, payments: &[Transfer]| {
            self.holdings.pool(pool).get()
                + payments
                    .iter()
                    .filter(|p| p.to == Account::Pool(pool))
                    .map(|p| p.amount.get())
                    .sum::<i64>()
        };
        let extra_pool = match extra_on {
            Some(card) => pool_for(card)?,
            None => POOL_RANKS
                .iter()
                .filter_map(|&r| pool_of(r))
                .min_by_key(|&p| covered(p, &payments))
                .ok_or_else(|| bad("no pool".into()))?,
        };
        payments.push(Transfer::new(Account::Seat(dealer), Account::Pool(extra_pool), Chips::new(extra)));
        if let Some(empty) = POOL_RANKS
            .iter()
            .filter_map(|&r| pool_of(r))
            .find(|&p| covered(p, &payments) == 0)
        {
            return Err(bad(format!(
                "{} is not covered: all four pools need a stake",
                empty.title()
            )));
        }

        let mut events = vec![Event::LaidOut {
            pool_cards: pool_cards.to_vec(),
        }];
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: stakes on the pool cards"),
            payments,
        );
        self.holdings.book(&mut events, movement);
        if let Some(deal) = self.deal.as_mut() {
            deal.pool_cards = pool_cards.to_vec();
        }
        Ok(events)
    }

    /// The pool a card wins when played in this deal.
    fn pool_won_by(deal: &Deal, card: Card) -> Option<Pool> {
        deal.pool_cards
            .iter()
            .find(|&&p| winning_card(p) == Some(card))
            .and_then(|p| pool_of(p.rank))
    }

    fn win_pool(&mut self, events: &mut Vec<Event>, pool: Pool, seat: Seat, card: Card) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        let amount = self.holdings.pool(pool).get();
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {} won by {seat} with {card}", pool.title()),
            vec![Transfer::new(Account::Pool(pool), Account::Seat(seat), Chips::new(amount))],
        );
        self.holdings.book(events, movement);
        Ok(())
    }

    fn play(&mut self, seat: Seat, card: Card) -> Result<Vec<Event>, RuleViolation> {
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        let pool = Self::pool_won_by(deal, card);
        let played = deal.runs.play(seat, card, pool.is_some())?;
        let mut events = vec![Event::CardPlayed {
            seat,
            card,
            cards_left: played.cards_left,
        }];
        if played.stop && played.cards_left > 0 {
            events.push(Event::Stopped { card, leader: seat });
        }
        let cards_left = deal.runs.hands_left();
        if let Some(pool) = pool {
            self.win_pool(&mut events, pool, seat, card)?;
        }
        if played.cards_left == 0 {
            self.go_out(&mut events, seat, cards_left, Recording::CardByCard)?;
        }
        Ok(events)
    }

    fn result(
        &mut self,
        out: Seat,
        cards_left: &[u8],
        pool_winners: &[Option<Seat>],
    ) -> Result<Vec<Event>, RuleViolation> {
        let fresh = self.phase() == Phase::Playing && self.deal.as_ref().is_some_and(|d| d.runs.is_fresh());
        if !fresh {
            return Err(self.not_expected("result"));
        }
        let players = self.players;
        for s in std::iter::once(out).chain(pool_winners.iter().flatten().copied()) {
            s.check(players)?;
        }
        if cards_left.len() != players {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: cards_left.len(),
                expected: players,
            });
        }
        if pool_winners.len() != 4 {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: pool_winners.len(),
                expected: 4,
            });
        }
        let deal = self.deal_ref()?;
        for (seat, &left) in Seat::all(players).zip(cards_left) {
            let dealt = deal.runs.dealt(seat);
            if (seat == out) != (left == 0) || left > dealt {
                return Err(RuleViolation::InvalidResult(format!(
                    "{seat} cannot have {left} cards left: it was dealt {dealt}, and only {out} went out"
                )));
            }
        }
        for s in Seat::all(players) {
            let won = pool_winners.iter().filter(|w| **w == Some(s)).count();
            let dealt = deal.runs.dealt(s);
            if won > usize::from(dealt - cards_left[s.index()]) {
                return Err(RuleViolation::MoreCardsThanDealt { seat: s, dealt });
            }
        }

        let mut events = Vec::new();
        let wins: Vec<(Card, Seat)> = deal
            .pool_cards
            .iter()
            .zip(pool_winners)
            .filter_map(|(&p, w)| Some((p, (*w)?)))
            .collect();
        for (pool_card, seat) in wins {
            if let (Some(pool), Some(card)) = (pool_of(pool_card.rank), winning_card(pool_card)) {
                self.win_pool(&mut events, pool, seat, card)?;
            }
        }
        self.go_out(&mut events, out, cards_left.to_vec(), Recording::ResultOnly)?;
        Ok(events)
    }

    fn go_out(
        &mut self,
        events: &mut Vec<Event>,
        winner: Seat,
        cards_left: Vec<u8>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let deal = self.deal.take().ok_or(RuleViolation::GameFinished)?;
        let number = deal.number;
        events.push(Event::WentOut {
            seat: winner,
            cards_left: cards_left.clone(),
        });
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {winner} went out: one a card left from each player"),
            per_card_payments(winner, &cards_left, None, None),
        );
        self.holdings.book(events, movement);
        let chips = self.holdings.seats();
        let net = self.holdings.net_since(&deal.start_chips);
        self.sheet.push(DealScore {
            deal: number,
            dealer: deal.dealer,
            pool_cards: deal.pool_cards.clone(),
            winner,
            cards_left,
            net: net.clone(),
            chips,
            recording,
        });
        events.push(Event::DealEnded {
            deal: number,
            winner,
            net,
        });
        self.start_deal(number, events);
        Ok(())
    }

    fn winners(&self) -> Vec<Seat> {
        self.holdings.winners(self.deal.is_none())
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

    fn play_move(&mut self, mv: &Move) -> Result<Vec<Event>, RuleViolation> {
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

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(|d| d.pool_cards.is_empty())
    }

    fn is_finished(&self) -> bool {
        self.deal.is_none()
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

    fn score_sheet(&self) -> ScoreSheet {
        ScoreSheet {
            deals: self.sheet.clone(),
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
