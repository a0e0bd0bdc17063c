//! Spin (`shared/rules/pope-joan.txt`, resolved by `NOTES.md`): a stops game of 50 cards (8♦
//! and 2♥ out), all dealt, no trumps, with Game, Matrimony (K♦ Q♦) and Intrigue (Q♦ J♦) pools,
//! Spin (A♦) collecting from every player and kings collecting one from each.
//!
//! Invariants: the chips on the table (seats plus the pools) always equal the opening chips;
//! every chip movement is an `Event::Chips` that `settlements` books; Matrimony and Intrigue
//! are won at most once a deal (by showing both cards after playing a stop) and otherwise carry
//! over; Game is won every deal, and its winner pays no Game stake the next deal.

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

/// Spin: the ace of diamonds.
pub const SPIN: Card = Card::new(Rank::Ace, Suit::Diamonds);

const POOLS: [Pool; 3] = [Pool::Game, Pool::Matrimony, Pool::Intrigue];

fn removed() -> CardSet {
    [
        Card::new(Rank::Eight, Suit::Diamonds),
        Card::new(Rank::Two, Suit::Hearts),
    ]
    .into_iter()
    .collect()
}

/// A pair shown for its pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Combination {
    /// King and queen of diamonds.
    Matrimony,
    /// Queen and knave of diamonds.
    Intrigue,
}

impl Combination {
    fn pool(self) -> Pool {
        match self {
            Combination::Matrimony => Pool::Matrimony,
            Combination::Intrigue => Pool::Intrigue,
        }
    }

    fn cards(self) -> [Card; 2] {
        match self {
            Combination::Matrimony => [
                Card::new(Rank::King, Suit::Diamonds),
                Card::new(Rank::Queen, Suit::Diamonds),
            ],
            Combination::Intrigue => [
                Card::new(Rank::Queen, Suit::Diamonds),
                Card::new(Rank::Jack, Suit::Diamonds),
            ],
        }
    }
}

/// Table options for Spin. Every field may be left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = SpinOptions)]
pub struct Options {
    /// Chips each player receives from the bank when the table opens.
    pub opening_chips: u32,
    pub first_dealer: u8,
    /// Rounds of deals: each round every player deals once.
    pub rounds: u8,
    /// What Spin collects from each other player.
    pub spin_stake: u8,
    /// What each king played collects from each other player.
    pub king_payment: u8,
    /// The dealer also stakes on Game (the text calls it a disproportionate tax).
    pub dealer_pays_game: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            opening_chips: 100,
            first_dealer: 0,
            rounds: 1,
            spin_stake: 3,
            king_payment: 1,
            dealer_pays_game: false,
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
        name: "spin_stake",
        description: "what Spin (A♦) collects from each other player (default 3)",
    },
    OptionDoc {
        name: "king_payment",
        description: "what each king played collects from each other player (default 1)",
    },
    OptionDoc {
        name: "dealer_pays_game",
        description: "the dealer stakes on Game too",
    },
];

/// A move at a Spin table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = SpinMove)]
pub enum Move {
    /// A card played: a lead by the seat to lead, or the next card up from any seat. With
    /// `spin`, the seat plays Spin (A♦) with it, which makes a stop.
    Play {
        seat: Seat,
        card: Card,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        spin: bool,
    },
    /// The seat that has just played a stop shows Matrimony or Intrigue and takes its pool.
    Show { seat: Seat, combination: Combination },
    /// After a player goes out with Spin unplayed: the seat still holding it.
    SpinHolder { seat: Seat },
    /// A whole deal at once.
    Result {
        out: Seat,
        cards_left: Vec<u8>,
        /// The kings and Spin each seat played, by seat.
        specials: Vec<Vec<Card>>,
        /// The seat that showed Matrimony, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        matrimony: Option<Seat>,
        /// The seat that showed Intrigue, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        intrigue: Option<Seat>,
        /// When Spin was not played: the seat still holding it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spin_holder: Option<Seat>,
    },
}

/// How a deal was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = SpinRecording)]
pub enum Recording {
    CardByCard,
    ResultOnly,
}

/// What a move caused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
#[schema(as = SpinEvent)]
pub enum Event {
    DealStarted {
        deal: u16,
        dealer: Seat,
        hands: Vec<u8>,
        /// The last deal's winner, who pays no Game stake.
        exempt: Option<Seat>,
    },
    CardPlayed {
        seat: Seat,
        card: Card,
        cards_left: u8,
    },
    SpinPlayed {
        seat: Seat,
    },
    Stopped {
        card: Card,
        leader: Seat,
    },
    Shown {
        seat: Seat,
        combination: Combination,
    },
    WentOut {
        seat: Seat,
        cards_left: Vec<u8>,
        /// The seat caught holding Spin, who pays double.
        spin_holder: Option<Seat>,
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
#[schema(as = SpinDealScore)]
pub struct DealScore {
    pub deal: u16,
    pub dealer: Seat,
    pub winner: Seat,
    pub cards_left: Vec<u8>,
    pub spin_holder: Option<Seat>,
    pub net: Vec<Chips>,
    pub chips: Vec<Chips>,
    pub recording: Recording,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SpinScoreSheet)]
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
#[schema(as = SpinPhase)]
pub enum Phase {
    Playing,
    SpinHolder,
    Finished,
}

/// The table as a scorer's phone needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = SpinView)]
pub struct View {
    pub phase: Phase,
    pub deal: u16,
    pub deals_in_game: u16,
    pub dealer: Option<Seat>,
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
    runs: Runs,
    /// Pools won by showing this deal.
    shown: Vec<Combination>,
    /// Cards shown, with the seat holding them: nobody else can play them.
    held: Vec<(Card, Seat)>,
    /// The seat that went out, while Spin's holder is awaited.
    out: Option<Seat>,
    start_chips: Vec<Chips>,
}

/// A game of Spin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spin {
    players: usize,
    options: Options,
    deals_in_game: u16,
    holdings: Holdings,
    opening: Vec<ChipMovement>,
    /// The last deal's winner: exempt from the next Game stake.
    last_winner: Option<Seat>,
    sheet: Vec<DealScore>,
    deal: Option<Deal>,
}

impl Spin {
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
            Some(d) if d.out.is_some() => Phase::SpinHolder,
            Some(_) => Phase::Playing,
        }
    }

    fn legal_moves(&self) -> Vec<&'static str> {
        match (self.phase(), &self.deal) {
            (Phase::Playing, Some(d)) if d.runs.is_fresh() => vec!["play", "result"],
            (Phase::Playing, Some(d)) if d.runs.leader().is_some() => vec!["play", "show"],
            (Phase::Playing, _) => vec!["play"],
            (Phase::SpinHolder, _) => vec!["spin_holder"],
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

    fn pools(&self) -> Vec<PoolBalance> {
        self.holdings.board(POOLS)
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
        let number = index + 1;
        let dealer = Seat::new(self.options.first_dealer).left(usize::from(index), self.players);
        let hands = even_hands(50, self.players, dealer);
        let exempt = self.last_winner;
        events.push(Event::DealStarted {
            deal: number,
            dealer,
            hands: hands.values().to_vec(),
            exempt,
        });
        let start_chips = self.holdings.seats();
        let mut payments: Vec<Transfer> = Seat::all(self.players)
            .filter(|&s| (s != dealer || self.options.dealer_pays_game) && Some(s) != exempt)
            .map(|s| Transfer::new(Account::Seat(s), Account::Pool(Pool::Game), Chips::new(1)))
            .collect();
        payments.push(Transfer::new(Account::Seat(dealer), Account::Pool(Pool::Matrimony), Chips::new(2)));
        payments.push(Transfer::new(Account::Seat(dealer), Account::Pool(Pool::Intrigue), Chips::new(1)));
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: stakes on Game, Matrimony and Intrigue"),
            payments,
        );
        self.holdings.book(events, movement);
        self.deal = Some(Deal {
            number,
            dealer,
            runs: Runs::new(removed(), false, hands, dealer.left(1, self.players)),
            shown: Vec::new(),
            held: Vec::new(),
            out: None,
            start_chips,
        });
    }

    /// `each` from every other seat to `seat`.
    fn collect(&mut self, events: &mut Vec<Event>, seat: Seat, each: u8, why: &str) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        let payments = Seat::all(self.players)
            .filter(|&s| s != seat)
            .map(|s| Transfer::new(Account::Seat(s), Account::Seat(seat), Chips::new(i64::from(each))))
            .collect();
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {why}: {each} from each player to {seat}"),
            payments,
        );
        self.holdings.book(events, movement);
        Ok(())
    }

    fn win_pool(&mut self, events: &mut Vec<Event>, combination: Combination, seat: Seat) -> Result<(), RuleViolation> {
        let deal = self.deal_mut()?;
        deal.shown.push(combination);
        for card in combination.cards() {
            if !deal.held.iter().any(|(c, _)| *c == card) {
                deal.held.push((card, seat));
            }
        }
        let number = deal.number;
        let pool = combination.pool();
        let amount = self.holdings.pool(pool).get();
        events.push(Event::Shown { seat, combination });
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {} shown by {seat}", pool.title()),
            vec![Transfer::new(Account::Pool(pool), Account::Seat(seat), Chips::new(amount))],
        );
        self.holdings.book(events, movement);
        Ok(())
    }

    fn play(&mut self, seat: Seat, card: Card, spin: bool) -> Result<Vec<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        if spin && card == SPIN {
            return Err(RuleViolation::InvalidResult(
                "`spin: true` plays Spin beside another card; play the A♦ alone without it".into(),
            ));
        }
        if let Some(&(_, holder)) = self
            .deal_ref()?
            .held
            .iter()
            .find(|(c, h)| *h != seat && (*c == card || (spin && *c == SPIN)))
        {
            return Err(RuleViolation::CardHeldByAnother { card, holder, seat });
        }
        let king_payment = self.options.king_payment;
        let spin_stake = self.options.spin_stake;
        let deal = self.deal_mut()?;
        // Spin led after a stop makes a stop too; played with a card it makes that card one.
        let played = deal.runs.play(seat, card, card == SPIN)?;
        let mut events = vec![Event::CardPlayed {
            seat,
            card,
            cards_left: played.cards_left,
        }];
        let mut cards_left = played.cards_left;
        if spin {
            cards_left = deal.runs.play_aside(seat, SPIN)?;
            deal.runs.force_stop();
            events.push(Event::SpinPlayed { seat });
        }
        let stop = played.stop || spin;
        if stop && cards_left > 0 {
            events.push(Event::Stopped { card, leader: seat });
        }
        if card == SPIN {
            events.push(Event::SpinPlayed { seat });
        }
        if card.rank == Rank::King {
            self.collect(&mut events, seat, king_payment, &format!("{card} played"))?;
        }
        if spin || card == SPIN {
            self.collect(&mut events, seat, spin_stake, "Spin played")?;
        }
        if cards_left == 0 {
            let deal = self.deal_ref()?;
            if deal.runs.is_accounted_for(SPIN) {
                let left = deal.runs.hands_left();
                self.go_out(&mut events, seat, left, None, Recording::CardByCard)?;
            } else {
                self.deal_mut()?.out = Some(seat);
            }
        }
        Ok(events)
    }

    fn show(&mut self, seat: Seat, combination: Combination) -> Result<Vec<Event>, RuleViolation> {
        seat.check(self.players)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("show"));
        }
        let deal = self.deal_ref()?;
        // Only the player of a stop shows, before leading again.
        if deal.runs.is_fresh() {
            return Err(self.not_expected("show"));
        }
        match deal.runs.leader() {
            Some(leader) if leader == seat => {}
            Some(leader) => {
                return Err(RuleViolation::NotYourTurn {
                    expected: leader,
                    got: seat,
                })
            }
            None => return Err(self.not_expected("show")),
        }
        if deal.shown.contains(&combination) {
            return Err(RuleViolation::InvalidResult(format!(
                "{} has already been shown this deal",
                combination.pool().title()
            )));
        }
        for card in combination.cards() {
            deal.runs.check_card(card)?;
            if let Some(&(_, holder)) = deal.held.iter().find(|(c, h)| *c == card && *h != seat) {
                return Err(RuleViolation::CardHeldByAnother { card, holder, seat });
            }
        }
        let mut events = Vec::new();
        self.win_pool(&mut events, combination, seat)?;
        Ok(events)
    }

    fn spin_holder(&mut self, holder: Seat) -> Result<Vec<Event>, RuleViolation> {
        holder.check(self.players)?;
        if self.phase() != Phase::SpinHolder {
            return Err(self.not_expected("spin_holder"));
        }
        let deal = self.deal_ref()?;
        let out = deal.out.ok_or(RuleViolation::GameFinished)?;
        if holder == out {
            return Err(RuleViolation::InvalidResult(format!(
                "{holder} went out and holds no cards, so cannot hold Spin"
            )));
        }
        let left = deal.runs.hands_left();
        let mut events = Vec::new();
        self.deal_mut()?.out = None;
        self.go_out(&mut events, out, left, Some(holder), Recording::CardByCard)?;
        Ok(events)
    }

    fn go_out(
        &mut self,
        events: &mut Vec<Event>,
        winner: Seat,
        cards_left: Vec<u8>,
        spin_holder: Option<Seat>,
        recording: Recording,
    ) -> Result<(), RuleViolation> {
        let number = self.deal_ref()?.number;
        events.push(Event::WentOut {
            seat: winner,
            cards_left: cards_left.clone(),
            spin_holder,
        });
        let game = self.holdings.pool(Pool::Game).get();
        let mut payments = vec![Transfer::new(Account::Pool(Pool::Game), Account::Seat(winner), Chips::new(game))];
        payments.extend(per_card_payments(winner, &cards_left, None, spin_holder));
        let movement = ChipMovement::new(
            Some(number),
            format!("deal {number}: {winner} went out: Game and one a card left from each player"),
            payments,
        );
        self.holdings.book(events, movement);
        let deal = self.deal.take().ok_or(RuleViolation::GameFinished)?;
        let chips = self.holdings.seats();
        let net = self.holdings.net_since(&deal.start_chips);
        self.sheet.push(DealScore {
            deal: number,
            dealer: deal.dealer,
            winner,
            cards_left,
            spin_holder,
            net: net.clone(),
            chips,
            recording,
        });
        events.push(Event::DealEnded {
            deal: number,
            winner,
            net,
        });
        self.last_winner = Some(winner);
        self.start_deal(number, events);
        Ok(())
    }

    fn result(
        &mut self,
        out: Seat,
        cards_left: &[u8],
        specials: &[Vec<Card>],
        shown: [Option<Seat>; 2],
        spin_holder: Option<Seat>,
    ) -> Result<Vec<Event>, RuleViolation> {
        let fresh = self.phase() == Phase::Playing && self.deal.as_ref().is_some_and(|d| d.runs.is_fresh());
        if !fresh {
            return Err(self.not_expected("result"));
        }
        let players = self.players;
        for s in [Some(out), shown[0], shown[1], spin_holder].into_iter().flatten() {
            s.check(self.players)?;
        }
        for got in [cards_left.len(), specials.len()] {
            if got != players {
                return Err(RuleViolation::WrongNumberOfEntries { got, expected: players });
            }
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
        let mut seen = CardSet::default();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                deal.runs.check_card(card)?;
                if seen.contains(card) {
                    return Err(RuleViolation::CardAlreadyPlayed(card));
                }
                seen.insert(card);
                if card != SPIN && card.rank != Rank::King {
                    return Err(RuleViolation::InvalidResult(format!(
                        "{card} is neither a king nor Spin"
                    )));
                }
            }
            let dealt = deal.runs.dealt(seat);
            if cards.len() > usize::from(dealt - cards_left[seat.index()]) {
                return Err(RuleViolation::MoreCardsThanDealt { seat, dealt });
            }
        }
        match (seen.contains(SPIN), spin_holder) {
            (true, Some(h)) => {
                return Err(RuleViolation::InvalidResult(format!(
                    "Spin was played, so {h} cannot hold it"
                )));
            }
            (false, None) => {
                return Err(RuleViolation::InvalidResult(
                    "every card is dealt: name the spin_holder when Spin was not played".into(),
                ));
            }
            (false, Some(h)) if h == out => {
                return Err(RuleViolation::InvalidResult(format!(
                    "{h} went out, so cannot hold Spin"
                )));
            }
            _ => {}
        }

        let mut events = Vec::new();
        for (seat, cards) in Seat::all(players).zip(specials) {
            for &card in cards {
                if card == SPIN {
                    self.collect(&mut events, seat, self.options.spin_stake, "Spin played")?;
                } else {
                    self.collect(&mut events, seat, self.options.king_payment, &format!("{card} played"))?;
                }
            }
        }
        for (combination, seat) in [Combination::Matrimony, Combination::Intrigue].into_iter().zip(shown) {
            if let Some(seat) = seat {
                self.win_pool(&mut events, combination, seat)?;
            }
        }
        self.go_out(
            &mut events,
            out,
            cards_left.to_vec(),
            spin_holder,
            Recording::ResultOnly,
        )?;
        Ok(events)
    }

    fn winners(&self) -> Vec<Seat> {
        self.holdings.winners(self.deal.is_none())
    }
}

impl Game for Spin {
    const ID: GameId = GameId::Spin;
    const NAME: &'static str = "Spin";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=8;

    type Options = Options;
    type Move = Move;
    type Event = Event;
    type View = View;
    type ScoreSheet = ScoreSheet;

    fn option_docs() -> &'static [OptionDoc] {
        OPTION_DOCS
    }

    fn new(players: usize, options: Options) -> Result<Spin, SetupError> {
        stops::check_table(
            players,
            Self::SEATS,
            options.first_dealer,
            options.rounds,
            options.opening_chips,
        )?;
        let mut game = Spin {
            players,
            deals_in_game: u16::from(options.rounds) * players as u16,
            options,
            holdings: Holdings::new(players),
            opening: Vec::new(),
            last_winner: None,
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
            Move::Play { .. } => "play",
            Move::Show { .. } => "show",
            Move::SpinHolder { .. } => "spin_holder",
            Move::Result { .. } => "result",
        }
    }

    fn move_seat(mv: &Move) -> Option<Seat> {
        match mv {
            Move::Play { seat, .. } | Move::Show { seat, .. } => Some(*seat),
            _ => None,
        }
    }

    fn play_move(&mut self, mv: &Move) -> Result<Vec<Event>, RuleViolation> {
        match mv {
            Move::Play { seat, card, spin } => self.play(*seat, *card, *spin),
            Move::Show { seat, combination } => self.show(*seat, *combination),
            Move::SpinHolder { seat } => self.spin_holder(*seat),
            Move::Result {
                out,
                cards_left,
                specials,
                matrimony,
                intrigue,
                spin_holder,
            } => self.result(*out, cards_left, specials, [*matrimony, *intrigue], *spin_holder),
        }
    }

    fn at_deal_boundary(&self) -> bool {
        self.deal.as_ref().is_none_or(|d| d.runs.is_fresh())
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
            to_act: deal.filter(|d| d.out.is_none()).and_then(|d| d.runs.leader()),
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
