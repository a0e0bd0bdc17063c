//! Sequence-and-stop machinery shared by the stops games (Pope Joan, Spin, Newmarket), and the
//! chips they move between players and the divisions of a staking board.
//!
//! Play runs up a suit, ace low (A 2 … 10 J Q K): a lead, then the next card up from whichever
//! seat holds it, until nobody can continue (a stop); the player of the stop leads next. The
//! server usually does not see the hands, so it knows only the *certain* stops: a king, a card
//! whose next card up is out of the pack, set aside (turned up, laid out as a pool card) or
//! already played, or was declared dead by an earlier declared stop. Any other stop is declared
//! (`Runs::declare_stop`), which is only possible when some cards lie in a spare hand; the card
//! that would have continued is then taken to be there, and playing it later proves that a
//! player missed a play (reported as a `MissedPlay`, as revokes are in the trick games).
//!
//! Invariants: a card is played at most once per deal, never one out of the pack or set aside;
//! no seat plays more cards than it was dealt; while a run is live its next card up exists and
//! is still unaccounted for (otherwise the run would have stopped).

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::cards::{Card, CardSet, Rank};
pub use super::chips::Pool;
use super::chips::{Account, Chips, Settlement};
use super::error::{RuleViolation, SetupError};
use super::seat::{BySeat, Seat};

/// Ranks from low to high in the stops games: the ace is lowest.
pub const ACE_LOW: [Rank; 13] = [
    Rank::Ace,
    Rank::Two,
    Rank::Three,
    Rank::Four,
    Rank::Five,
    Rank::Six,
    Rank::Seven,
    Rank::Eight,
    Rank::Nine,
    Rank::Ten,
    Rank::Jack,
    Rank::Queen,
    Rank::King,
];

fn ace_low_position(rank: Rank) -> usize {
    if rank == Rank::Ace {
        0
    } else {
        usize::from(rank.value()) - 1
    }
}

/// The card that continues a run after `card`: the next rank up, ace low; none after a king.
pub fn next_up(card: Card) -> Option<Card> {
    ACE_LOW
        .get(ace_low_position(card.rank) + 1)
        .map(|&rank| Card::new(rank, card.suit))
}

/// The card a run reaches `card` from: the next rank down, ace low; none below an ace.
pub fn next_down(card: Card) -> Option<Card> {
    let pos = ace_low_position(card.rank).checked_sub(1)?;
    Some(Card::new(ACE_LOW[pos], card.suit))
}

/// Where play stands: a seat to lead, or a live run that any seat holding the next card
/// up may continue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunState {
    Lead { seat: Seat },
    Live { last: Card, by: Seat },
}

/// A run declared stopped whose next card was later played: whoever held it missed a play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MissedPlay {
    /// The seat that held the card (it played it later).
    pub seat: Seat,
    pub card: Card,
    /// The card after which the run was declared stopped.
    pub stopped_after: Card,
}

/// What playing a card did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The card is a certain stop (or made one): its player leads next.
    pub stop: bool,
    pub missed: Option<MissedPlay>,
    /// Cards the seat still holds.
    pub cards_left: u8,
}

/// One deal's runs: what is out of play, what has been played and by whom, whose lead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runs {
    /// Taken out of the pack before the deal (Pope Joan's 8♦, Newmarket's sevens).
    removed: CardSet,
    /// In the pack but in nobody's hand: the turn-up, the pool cards.
    set_aside: CardSet,
    played: CardSet,
    /// Cards taken to be in the spare hand because a run was declared stopped before them.
    dead: CardSet,
    /// Whether undealt cards lie in a spare hand (so that a stop may be declared).
    spare_hand: bool,
    dealt: BySeat<u8>,
    played_by: BySeat<u8>,
    state: RunState,
    /// The card the last run stopped at, while a lead is due after it.
    stopped_at: Option<Card>,
    missed: Vec<MissedPlay>,
}

impl Runs {
    /// A deal in which `leader` leads first and each seat was dealt `dealt[seat]` cards.
    pub fn new(removed: CardSet, spare_hand: bool, dealt: BySeat<u8>, leader: Seat) -> Runs {
        let players = dealt.len();
        Runs {
            removed,
            set_aside: CardSet::default(),
            played: CardSet::default(),
            dead: CardSet::default(),
            spare_hand,
            dealt,
            played_by: BySeat::filled(players, 0),
            state: RunState::Lead { seat: leader },
            stopped_at: None,
            missed: Vec::new(),
        }
    }

    /// Sets a card aside (turned up, laid out): it can be neither played nor continued to.
    pub fn set_aside(&mut self, card: Card) {
        self.set_aside.insert(card);
    }

    pub fn state(&self) -> RunState {
        self.state
    }

    pub fn played(&self) -> CardSet {
        self.played
    }

    pub fn is_set_aside(&self, card: Card) -> bool {
        self.set_aside.contains(card)
    }

    pub fn missed_plays(&self) -> &[MissedPlay] {
        &self.missed
    }

    pub fn dealt(&self, seat: Seat) -> u8 {
        self.dealt[seat]
    }

    pub fn cards_left(&self, seat: Seat) -> u8 {
        self.dealt[seat].saturating_sub(self.played_by[seat])
    }

    /// Cards left in every hand, by seat.
    pub fn hands_left(&self) -> Vec<u8> {
        Seat::all(self.dealt.len()).map(|s| self.cards_left(s)).collect()
    }

    /// True before the first card of the deal.
    pub fn is_fresh(&self) -> bool {
        self.played.is_empty()
    }

    /// Whether a card is out of everyone's hands for good: removed, set aside, played, or
    /// taken to be in the spare hand.
    pub fn is_accounted_for(&self, card: Card) -> bool {
        self.removed.contains(card)
            || self.set_aside.contains(card)
            || self.played.contains(card)
            || self.dead.contains(card)
    }

    /// A certain stop: nobody can hold the next card up.
    pub fn is_certain_stop(&self, card: Card) -> bool {
        next_up(card).is_none_or(|next| self.is_accounted_for(next))
    }

    /// The card that continues the live run, if a run is live.
    pub fn next_card(&self) -> Option<Card> {
        match self.state {
            RunState::Live { last, .. } => next_up(last),
            RunState::Lead { .. } => None,
        }
    }

    /// The seat to lead, when a lead is due.
    pub fn leader(&self) -> Option<Seat> {
        match self.state {
            RunState::Lead { seat } => Some(seat),
            RunState::Live { .. } => None,
        }
    }

    /// Checks that `seat` may play `card` now.
    ///
    /// # Errors
    /// `NoSuchSeat`, `CardNotInPack`, `CardTurnedUp`, `CardAlreadyPlayed`, `MoreCardsThanDealt`,
    /// `NotYourTurn` (a lead by another seat than the stop's player), `NotInSequence`.
    pub fn check_play(&self, seat: Seat, card: Card) -> Result<(), RuleViolation> {
        check_seat(seat, self.dealt.len())?;
        self.check_card(card)?;
        if self.cards_left(seat) == 0 {
            return Err(RuleViolation::MoreCardsThanDealt {
                seat,
                dealt: self.dealt[seat],
            });
        }
        match self.state {
            RunState::Lead { seat: leader } if leader != seat => Err(RuleViolation::NotYourTurn {
                expected: leader,
                got: seat,
            }),
            RunState::Lead { .. } => Ok(()),
            RunState::Live { last, .. } => match next_up(last) {
                Some(expected) if expected == card => Ok(()),
                Some(expected) => Err(RuleViolation::NotInSequence { card, expected }),
                None => Err(RuleViolation::NotInSequence { card, expected: last }),
            },
        }
    }

    /// Checks that `card` is one that could still be in a hand.
    ///
    /// # Errors
    /// `CardNotInPack`, `CardTurnedUp`, `CardAlreadyPlayed`.
    pub fn check_card(&self, card: Card) -> Result<(), RuleViolation> {
        if self.removed.contains(card) {
            return Err(RuleViolation::CardNotInPack(card));
        }
        if self.set_aside.contains(card) {
            return Err(RuleViolation::CardTurnedUp(card));
        }
        if self.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }
        Ok(())
    }

    /// Plays a card; `makes_stop` forces a stop (Spin's A♦). The run stops when the card is a
    /// certain stop, and the seat then leads.
    ///
    /// # Errors
    /// As `check_play`; nothing changes then.
    pub fn play(&mut self, seat: Seat, card: Card, makes_stop: bool) -> Result<Played, RuleViolation> {
        self.check_play(seat, card)?;
        let missed = if self.dead.contains(card) {
            next_down(card).map(|stopped_after| MissedPlay {
                seat,
                card,
                stopped_after,
            })
        } else {
            None
        };
        if let Some(m) = missed {
            self.missed.push(m);
        }
        self.played.insert(card);
        self.played_by[seat] += 1;
        let stop = makes_stop || self.is_certain_stop(card);
        self.state = if stop {
            RunState::Lead { seat }
        } else {
            RunState::Live { last: card, by: seat }
        };
        self.stopped_at = stop.then_some(card);
        Ok(Played {
            stop,
            missed,
            cards_left: self.cards_left(seat),
        })
    }

    /// Plays a card beside the run without changing it (Spin's A♦ played with another card).
    ///
    /// # Errors
    /// `NoSuchSeat`, the card checks of `check_card`, `MoreCardsThanDealt`.
    pub fn play_aside(&mut self, seat: Seat, card: Card) -> Result<u8, RuleViolation> {
        check_seat(seat, self.dealt.len())?;
        self.check_card(card)?;
        if self.cards_left(seat) == 0 {
            return Err(RuleViolation::MoreCardsThanDealt {
                seat,
                dealt: self.dealt[seat],
            });
        }
        self.played.insert(card);
        self.played_by[seat] += 1;
        Ok(self.cards_left(seat))
    }

    /// The card a stopped run would have needed next, while a lead is due after the stop.
    pub fn missing_after_stop(&self) -> Option<Card> {
        match self.state {
            RunState::Lead { .. } => self.stopped_at.and_then(next_up),
            RunState::Live { .. } => None,
        }
    }

    /// Plays `card` in place of the card a stopped run needed next (Pope Joan's 9♦ "in lieu of
    /// a stop"), from any seat: the run goes on from that card, and stops again at once when
    /// its next card is accounted for.
    ///
    /// # Errors
    /// `NoSuchSeat`, the card checks of `check_card`, `MoreCardsThanDealt`; `None` inside when
    /// no stopped run is waiting for a lead.
    pub fn play_in_lieu(&mut self, seat: Seat, card: Card) -> Result<Option<Played>, RuleViolation> {
        let Some(missing) = self.missing_after_stop() else {
            return Ok(None);
        };
        check_seat(seat, self.dealt.len())?;
        self.check_card(card)?;
        if self.cards_left(seat) == 0 {
            return Err(RuleViolation::MoreCardsThanDealt {
                seat,
                dealt: self.dealt[seat],
            });
        }
        self.played.insert(card);
        self.played_by[seat] += 1;
        let stop = self.is_certain_stop(missing);
        self.state = if stop {
            RunState::Lead { seat }
        } else {
            RunState::Live {
                last: missing,
                by: seat,
            }
        };
        self.stopped_at = stop.then_some(missing);
        Ok(Some(Played {
            stop,
            missed: None,
            cards_left: self.cards_left(seat),
        }))
    }

    /// Ends the live run with a stop the engine cannot see (the next card up is taken to be in
    /// the spare hand). Returns the card stopped after and the seat that leads next.
    ///
    /// # Errors
    /// `RunContinues` when there is no spare hand (every card is in some player's hand);
    /// `None` inside when no run is live.
    pub fn declare_stop(&mut self) -> Result<Option<(Card, Seat)>, RuleViolation> {
        let RunState::Live { last, by } = self.state else {
            return Ok(None);
        };
        let Some(next) = next_up(last) else {
            return Ok(None);
        };
        if !self.spare_hand {
            return Err(RuleViolation::RunContinues { next });
        }
        self.dead.insert(next);
        self.state = RunState::Lead { seat: by };
        self.stopped_at = Some(last);
        Ok(Some((last, by)))
    }

    /// Forces the run to a stop at its current card, with its player to lead (after a stop
    /// made by a played card that the engine learns of separately).
    pub fn force_stop(&mut self) {
        if let RunState::Live { last, by } = self.state {
            self.state = RunState::Lead { seat: by };
            self.stopped_at = Some(last);
        }
    }
}

/// Who pays or is paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    /// Issues the opening chips.
    Bank,
    Seat(Seat),
    Pool(Pool),
}

impl Party {
    pub fn account(self) -> Account {
        match self {
            Party::Bank => Account::Bank,
            Party::Seat(seat) => Account::Seat(seat),
            Party::Pool(pool) => Account::Pool(pool),
        }
    }
}

/// Chips from one party to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Payment {
    pub from: Party,
    pub to: Party,
    pub amount: Chips,
}

impl Payment {
    pub fn new(from: Party, to: Party, amount: i64) -> Payment {
        Payment {
            from,
            to,
            amount: Chips::new(amount),
        }
    }
}

/// A balanced chip movement: its reason, the deal it belongs to and its payments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChipMovement {
    /// 1-based; null for the opening chips.
    pub deal: Option<u16>,
    pub memo: String,
    pub payments: Vec<Payment>,
}

impl ChipMovement {
    /// A movement of the payments that move something; None when none does.
    pub fn new(deal: Option<u16>, memo: impl Into<String>, payments: Vec<Payment>) -> Option<ChipMovement> {
        let payments: Vec<Payment> = payments
            .into_iter()
            .filter(|p| p.amount.get() > 0 && p.from != p.to)
            .collect();
        (!payments.is_empty()).then(|| ChipMovement {
            deal,
            memo: memo.into(),
            payments,
        })
    }

    /// The ledger settlement of this movement.
    pub fn settlement(&self) -> Settlement {
        Settlement {
            deal: self.deal,
            memo: self.memo.clone(),
            postings: self
                .payments
                .iter()
                .flat_map(|p| [(p.from.account(), -p.amount), (p.to.account(), p.amount)])
                .collect(),
        }
    }
}

/// The chips each seat and each pool holds, kept in step with the movements booked.
///
/// Invariant: seats plus pools always equal what the bank has issued.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holdings {
    seats: BySeat<Chips>,
    pools: BTreeMap<Pool, Chips>,
    issued: Chips,
}

impl Holdings {
    pub fn new(players: usize) -> Holdings {
        Holdings {
            seats: BySeat::filled(players, Chips::ZERO),
            pools: BTreeMap::new(),
            issued: Chips::ZERO,
        }
    }

    pub fn apply(&mut self, movement: &ChipMovement) {
        for p in &movement.payments {
            self.add(p.from, -p.amount);
            self.add(p.to, p.amount);
        }
    }

    fn add(&mut self, party: Party, amount: Chips) {
        match party {
            Party::Bank => self.issued += -amount,
            Party::Seat(seat) => self.seats[seat] += amount,
            Party::Pool(pool) => *self.pools.entry(pool).or_default() += amount,
        }
    }

    pub fn seat(&self, seat: Seat) -> Chips {
        self.seats[seat]
    }

    pub fn pool(&self, pool: Pool) -> Chips {
        self.pools.get(&pool).copied().unwrap_or_default()
    }

    pub fn seats(&self) -> Vec<Chips> {
        self.seats.values().to_vec()
    }

    /// What the bank has issued: always the sum of the seats and the pools.
    pub fn issued(&self) -> Chips {
        self.issued
    }

    /// The seats holding the most chips.
    pub fn leaders(&self) -> Vec<Seat> {
        let best = self.seats.values().iter().copied().max().unwrap_or_default();
        self.seats.iter().filter(|(_, &c)| c == best).map(|(s, _)| s).collect()
    }

    /// Applies `movement`, when there is one, and records it as an event.
    pub fn book<E: ChipEvent>(&mut self, events: &mut Vec<E>, movement: Option<ChipMovement>) {
        if let Some(movement) = movement {
            self.apply(&movement);
            events.push(E::chips(movement));
        }
    }

    /// The chips on each of `pools`, in their order, for views.
    pub fn board(&self, pools: impl IntoIterator<Item = Pool>) -> Vec<PoolBalance> {
        pools
            .into_iter()
            .map(|pool| PoolBalance {
                pool,
                chips: self.pool(pool),
            })
            .collect()
    }

    /// Each seat's chips gained (or lost) since it held `start`.
    pub fn net_since(&self, start: &[Chips]) -> Vec<Chips> {
        self.seats
            .values()
            .iter()
            .zip(start)
            .map(|(&now, &then)| now - then)
            .collect()
    }

    /// The winners: the seats holding the most chips once the game is `finished`, none before.
    pub fn winners(&self, finished: bool) -> Vec<Seat> {
        if finished {
            self.leaders()
        } else {
            Vec::new()
        }
    }

    /// The sum over seats and pools.
    pub fn on_table(&self) -> Chips {
        self.seats.values().iter().copied().sum::<Chips>() + self.pools.values().copied().sum()
    }
}

/// Pays `payers` (each party and its amount) into `receivers` (each and its amount) pair by
/// pair, in order. The two sides must have equal totals; whatever one side has beyond the
/// other is left out.
pub fn pour(payers: &[(Party, i64)], receivers: &[(Party, i64)]) -> Vec<Payment> {
    let mut payments = Vec::new();
    let mut givers = payers.iter().copied().filter(|(_, a)| *a > 0);
    let mut takers = receivers.iter().copied().filter(|(_, a)| *a > 0);
    let (mut giver, mut taker) = (givers.next(), takers.next());
    while let (Some((from, left)), Some((to, want))) = (giver, taker) {
        let amount = left.min(want);
        payments.push(Payment::new(from, to, amount));
        giver = if left > amount {
            Some((from, left - amount))
        } else {
            givers.next()
        };
        taker = if want > amount {
            Some((to, want - amount))
        } else {
            takers.next()
        };
    }
    payments
}

/// The bank's issue of `chips` to each of `players` seats when a table opens.
pub fn opening_chips(players: usize, chips: u32) -> Option<ChipMovement> {
    ChipMovement::new(
        None,
        "opening chips",
        Seat::all(players)
            .map(|s| Payment::new(Party::Bank, Party::Seat(s), i64::from(chips)))
            .collect(),
    )
}

/// Cards dealt to each seat when `cards` are dealt out one at a time from the dealer's left:
/// the first `cards % players` seats from the left get one more.
pub fn even_hands(cards: usize, players: usize, dealer: Seat) -> BySeat<u8> {
    let mut hands = BySeat::filled(players, (cards / players) as u8);
    for step in 1..=cards % players {
        hands[dealer.left(step, players)] += 1;
    }
    hands
}

/// One chip a card left from each seat (other than the winner and `exempt`) to the winner;
/// `double` pays two a card.
pub fn per_card_payments(winner: Seat, cards_left: &[u8], exempt: Option<Seat>, double: Option<Seat>) -> Vec<Payment> {
    Seat::all(cards_left.len())
        .filter(|&s| s != winner && Some(s) != exempt)
        .map(|s| {
            let per = if Some(s) == double { 2 } else { 1 };
            Payment::new(
                Party::Seat(s),
                Party::Seat(winner),
                per * i64::from(cards_left[s.index()]),
            )
        })
        .collect()
}

/// An event of a stops game, some of which record a chip movement.
pub trait ChipEvent: Sized {
    /// The event recording `movement`.
    fn chips(movement: ChipMovement) -> Self;
    /// The movement this event records, if it records one.
    fn movement(&self) -> Option<&ChipMovement>;
}

/// The ledger settlements of the chip movements among one move's `events`.
pub fn settlements<E: ChipEvent>(events: &[E]) -> Vec<Settlement> {
    events
        .iter()
        .filter_map(ChipEvent::movement)
        .map(ChipMovement::settlement)
        .collect()
}

/// The chip movements among `events`: a new game keeps those of its opening.
pub fn movements<E: ChipEvent>(events: &[E]) -> Vec<ChipMovement> {
    events.iter().filter_map(ChipEvent::movement).cloned().collect()
}

/// The most deals a stops game plays: rounds (each player deals once a round).
pub const MAX_ROUNDS: u8 = 50;
/// The most opening chips a seat receives.
pub const MAX_OPENING_CHIPS: u32 = 1_000_000;

/// Checks the setup every stops game shares: 3 to 8 players, the first dealer at the table,
/// 1 to 50 rounds and at most a million opening chips each.
///
/// # Errors
/// `PlayerCount` or `InvalidOption` naming the option.
pub fn check_table(
    players: usize,
    seats: RangeInclusive<usize>,
    first_dealer: u8,
    rounds: u8,
    opening_chips: u32,
) -> Result<(), SetupError> {
    SetupError::check_players(players, &seats)?;
    if usize::from(first_dealer) >= players {
        return Err(SetupError::InvalidOption {
            option: "first_dealer",
            reason: format!("there is no seat {first_dealer} at a table of {players}"),
        });
    }
    if rounds == 0 || rounds > MAX_ROUNDS {
        return Err(SetupError::InvalidOption {
            option: "rounds",
            reason: format!("play 1 to {MAX_ROUNDS} rounds"),
        });
    }
    if opening_chips > MAX_OPENING_CHIPS {
        return Err(SetupError::InvalidOption {
            option: "opening_chips",
            reason: format!("at most {MAX_OPENING_CHIPS} chips each"),
        });
    }
    Ok(())
}

/// Refuses a seat beyond a table of `players`.
///
/// # Errors
/// `NoSuchSeat` when `seat` is not at the table.
pub fn check_seat(seat: Seat, players: usize) -> Result<(), RuleViolation> {
    if seat.index() < players {
        Ok(())
    } else {
        Err(RuleViolation::NoSuchSeat { seat, players })
    }
}

/// The refusal of a move of `kind` out of phase: `GameFinished` once the game is over,
/// otherwise `MoveNotExpected` naming the `legal` moves.
pub fn not_expected(finished: bool, kind: &'static str, legal: impl FnOnce() -> Vec<&'static str>) -> RuleViolation {
    if finished {
        RuleViolation::GameFinished
    } else {
        RuleViolation::MoveNotExpected {
            kind,
            expected: legal(),
        }
    }
}

/// One line of a board, for views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PoolBalance {
    pub pool: Pool,
    pub chips: Chips,
}

/// Support for the stops games' property tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::Holdings;
    use crate::ledger::{Balances, Booking};
    use crate::rules::{Account, Game};

    /// Replays `moves` on `game` as the store books them: the opening chips, then each move's
    /// settlements (each naming its deal). Returns the replayed game and the ledger's balances.
    pub(crate) fn replay_booked<G: Game>(mut game: G, moves: &[G::Move]) -> (G, Balances) {
        let mut ledger = Balances::default();
        for s in game.opening_settlements() {
            ledger.apply(&Booking::from_settlement(&s).expect("balanced"));
        }
        for mv in moves {
            let events = game.apply(mv).unwrap_or_else(|e| panic!("{mv:?} was refused: {e}"));
            for s in G::settlements(&events) {
                assert!(s.deal.is_some(), "{mv:?} booked {s:?} without its deal");
                ledger.apply(&Booking::from_settlement(&s).expect("balanced"));
            }
        }
        (game, ledger)
    }

    /// Asserts the ledger holds what `holdings` say for every seat and pool, and sums to zero.
    pub(crate) fn assert_ledger_matches(ledger: &Balances, holdings: &Holdings) {
        for (seat, &chips) in holdings.seats.iter() {
            assert_eq!(ledger.of(&Account::Seat(seat)), chips, "{seat}");
        }
        for (pool, &chips) in &holdings.pools {
            assert_eq!(ledger.of(&Account::Pool(*pool)), chips, "{pool:?}");
        }
        assert_eq!(ledger.total(), crate::rules::Chips::ZERO);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(s: &str) -> Card {
        s.parse().expect("card")
    }

    fn runs(players: usize, dealt: u8, removed: &[&str], spare: bool) -> Runs {
        Runs::new(
            removed.iter().map(|c| card(c)).collect(),
            spare,
            BySeat::filled(players, dealt),
            Seat::new(1),
        )
    }

    #[test]
    fn runs_go_up_ace_low_and_stop_after_the_king() {
        assert_eq!(next_up(card("AS")), Some(card("2S")));
        assert_eq!(next_up(card("10S")), Some(card("JS")));
        assert_eq!(next_up(card("KS")), None);
        assert_eq!(next_down(card("2S")), Some(card("AS")));
        assert_eq!(next_down(card("AS")), None);
    }

    #[test]
    fn kings_removed_cards_set_aside_cards_and_played_cards_make_certain_stops() {
        let mut r = runs(5, 8, &["8D"], true);
        r.set_aside(card("7H"));
        assert!(r.is_certain_stop(card("KS")));
        assert!(r.is_certain_stop(card("7D")));
        assert!(r.is_certain_stop(card("6H")));
        assert!(!r.is_certain_stop(card("9S")));
        r.play(Seat::new(1), card("10S"), false).expect("lead");
        assert!(r.is_certain_stop(card("9S")));
    }

    #[test]
    fn a_live_run_takes_only_its_next_card_from_any_seat() {
        let mut r = runs(4, 10, &["8D"], true);
        r.play(Seat::new(1), card("5C"), false).expect("lead");
        assert_eq!(
            r.check_play(Seat::new(3), card("7C")),
            Err(RuleViolation::NotInSequence {
                card: card("7C"),
                expected: card("6C")
            })
        );
        let played = r.play(Seat::new(3), card("6C"), false).expect("follow");
        assert!(!played.stop);
        assert_eq!(
            r.state(),
            RunState::Live {
                last: card("6C"),
                by: Seat::new(3)
            }
        );
    }

    #[test]
    fn after_a_stop_only_its_player_leads() {
        let mut r = runs(4, 10, &["8D"], true);
        let played = r.play(Seat::new(1), card("7D"), false).expect("lead");
        assert!(played.stop);
        assert_eq!(
            r.check_play(Seat::new(2), card("2S")),
            Err(RuleViolation::NotYourTurn {
                expected: Seat::new(1),
                got: Seat::new(2)
            })
        );
        r.play(Seat::new(1), card("QS"), false).expect("a new lead");
    }

    #[test]
    fn a_declared_stop_marks_the_next_card_dead_and_playing_it_later_is_a_missed_play() {
        let mut r = runs(4, 10, &["8D"], true);
        r.play(Seat::new(1), card("2C"), false).expect("lead");
        r.play(Seat::new(2), card("3C"), false).expect("follow");
        assert_eq!(r.declare_stop(), Ok(Some((card("3C"), Seat::new(2)))));
        assert_eq!(r.leader(), Some(Seat::new(2)));
        // 4♣ is now taken to be in the spare hand; a 4♣ played later proves the miss.
        r.play(Seat::new(2), card("9S"), false).expect("lead");
        r.play(Seat::new(0), card("10S"), false).expect("follow");
        r.declare_stop().expect("declared");
        let played = r.play(Seat::new(0), card("4C"), false).expect("lead");
        assert_eq!(
            played.missed,
            Some(MissedPlay {
                seat: Seat::new(0),
                card: card("4C"),
                stopped_after: card("3C")
            })
        );
        assert_eq!(r.missed_plays().len(), 1);
    }

    #[test]
    fn a_card_played_in_lieu_of_a_stop_carries_the_run_on() {
        let mut r = runs(4, 10, &["8D"], true);
        r.play(Seat::new(1), card("8S"), false).expect("lead");
        r.play(Seat::new(2), card("9S"), false).expect("follow");
        assert_eq!(r.missing_after_stop(), None);
        r.declare_stop().expect("stop");
        assert_eq!(r.missing_after_stop(), Some(card("10S")));
        let played = r
            .play_in_lieu(Seat::new(3), card("9D"))
            .expect("valid")
            .expect("after a stop");
        assert!(!played.stop);
        assert_eq!(
            r.state(),
            RunState::Live {
                last: card("10S"),
                by: Seat::new(3)
            }
        );
        r.play(Seat::new(3), card("JS"), false).expect("the knave follows on");
        assert!(!r.played().contains(card("10S")));
    }

    #[test]
    fn without_a_spare_hand_a_stop_cannot_be_declared() {
        let mut r = runs(4, 12, &["8D", "2H"], false);
        r.play(Seat::new(1), card("4S"), false).expect("lead");
        let before = r.clone();
        assert_eq!(r.declare_stop(), Err(RuleViolation::RunContinues { next: card("5S") }));
        assert_eq!(r, before);
    }

    #[test]
    fn a_seat_cannot_play_more_cards_than_it_was_dealt() {
        let mut r = runs(3, 1, &[], true);
        r.play(Seat::new(1), card("KS"), false).expect("lead");
        assert_eq!(
            r.check_play(Seat::new(1), card("KH")),
            Err(RuleViolation::MoreCardsThanDealt {
                seat: Seat::new(1),
                dealt: 1
            })
        );
    }

    #[test]
    fn cards_dealt_round_from_the_dealers_left_give_the_first_seats_the_odd_cards() {
        let hands = even_hands(48, 5, Seat::new(3));
        assert_eq!(hands.values(), [10, 10, 9, 9, 10]);
        assert_eq!(hands.values().iter().map(|&n| usize::from(n)).sum::<usize>(), 48);
        assert_eq!(even_hands(50, 5, Seat::new(0)).values(), [10; 5]);
    }

    #[test]
    fn going_out_collects_a_chip_a_card_with_an_exemption_and_a_double() {
        let payments = per_card_payments(Seat::new(0), &[0, 3, 2, 4], Some(Seat::new(2)), Some(Seat::new(3)));
        assert_eq!(
            payments,
            [
                Payment::new(Party::Seat(Seat::new(1)), Party::Seat(Seat::new(0)), 3),
                Payment::new(Party::Seat(Seat::new(3)), Party::Seat(Seat::new(0)), 8),
            ]
        );
    }

    #[test]
    fn holdings_always_sum_to_what_the_bank_issued() {
        let mut h = Holdings::new(2);
        let opening = ChipMovement::new(
            None,
            "opening",
            vec![
                Payment::new(Party::Bank, Party::Seat(Seat::new(0)), 10),
                Payment::new(Party::Bank, Party::Seat(Seat::new(1)), 10),
            ],
        )
        .expect("moves chips");
        h.apply(&opening);
        let stake = ChipMovement::new(
            Some(1),
            "stake",
            vec![Payment::new(Party::Seat(Seat::new(0)), Party::Pool(Pool::Pope), 6)],
        )
        .expect("moves chips");
        h.apply(&stake);
        assert_eq!(h.on_table(), h.issued());
        assert_eq!(h.issued(), Chips::new(20));
        assert_eq!(h.pool(Pool::Pope), Chips::new(6));
        let settlement = stake.settlement();
        assert_eq!(settlement.postings.iter().map(|(_, c)| *c).sum::<Chips>(), Chips::ZERO);
        assert!(ChipMovement::new(Some(1), "nothing", vec![Payment::new(Party::Bank, Party::Bank, 3)]).is_none());
    }

    #[test]
    fn a_seat_beyond_the_table_is_refused_and_winners_wait_for_the_end() {
        assert_eq!(check_seat(Seat::new(2), 3), Ok(()));
        assert_eq!(
            check_seat(Seat::new(3), 3),
            Err(RuleViolation::NoSuchSeat {
                seat: Seat::new(3),
                players: 3
            })
        );
        assert_eq!(not_expected(true, "play", Vec::new), RuleViolation::GameFinished);
        let mut h = Holdings::new(2);
        h.apply(&opening_chips(2, 5).expect("moves chips"));
        assert!(h.winners(false).is_empty());
        assert_eq!(h.winners(true), [Seat::new(0), Seat::new(1)]);
        assert_eq!(
            h.board([Pool::Game]),
            [PoolBalance {
                pool: Pool::Game,
                chips: Chips::ZERO
            }]
        );
    }

    #[test]
    fn the_opening_chips_are_written_exactly_as_stored_logs_hold_them() {
        let opening = opening_chips(2, 5).expect("moves chips");
        assert_eq!(
            serde_json::to_string(&opening).expect("json"),
            r#"{"deal":null,"memo":"opening chips","payments":[{"from":"bank","to":{"seat":0},"amount":5},{"from":"bank","to":{"seat":1},"amount":5}]}"#
        );
    }

    #[test]
    fn a_stops_table_needs_three_to_eight_players_a_seated_dealer_and_bounded_rounds_and_chips() {
        assert_eq!(check_table(3, 3..=8, 2, 1, 100), Ok(()));
        assert_eq!(
            check_table(2, 3..=8, 0, 1, 100),
            Err(SetupError::PlayerCount { got: 2, min: 3, max: 8 })
        );
        for (first_dealer, rounds, chips, option) in [
            (3, 1, 100, "first_dealer"),
            (0, 0, 100, "rounds"),
            (0, 51, 100, "rounds"),
            (0, 1, 1_000_001, "opening_chips"),
        ] {
            assert!(
                matches!(
                    check_table(3, 3..=8, first_dealer, rounds, chips),
                    Err(SetupError::InvalidOption { option: o, .. }) if o == option
                ),
                "{option}"
            );
        }
    }
}
