//! The chip board of the stops games: chip movements between the bank, the seats and the pools,
//! the holdings they add up to, and the usual ways of paying (pouring stakes onto a board, a chip
//! a card left).
//!
//! Every movement is a list of `rules::Transfer`s between `rules::Account`s (pools are
//! `Account::Pool`), booked through `Settlement::of_transfers`.
//!
//! Invariant: seats plus pools always equal what the bank has issued.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::chips::{Account, Chips, Pool, Settlement, Transfer, UnknownAccount};
use crate::seat::Seat;
use crate::Events;

/// A balanced chip movement: its reason, the deal it belongs to and its transfers.
///
/// Written `{"deal": …, "memo": …, "payments": [{"from": …, "to": …, "amount": …}]}`, as stored
/// logs hold it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChipMovement {
    /// 1-based; null for the opening chips.
    pub deal: Option<u16>,
    pub memo: String,
    pub payments: Vec<Transfer>,
}

impl ChipMovement {
    /// A movement of the transfers that move something; None when none does.
    pub fn new(deal: Option<u16>, memo: impl Into<String>, payments: Vec<Transfer>) -> Option<ChipMovement> {
        let payments: Vec<Transfer> = payments
            .into_iter()
            .filter(|t| t.amount > Chips::ZERO && t.from != t.to)
            .collect();
        (!payments.is_empty()).then(|| ChipMovement {
            deal,
            memo: memo.into(),
            payments,
        })
    }

    /// The ledger settlement of this movement.
    pub fn settlement(&self) -> Settlement {
        Settlement::of_transfers(self.deal, self.memo.clone(), &self.payments)
    }
}

/// The chips each account at the table holds (the bank's negative: what it has issued), kept in
/// step with the movements booked.
///
/// Invariant: the accounts sum to zero, so seats plus pools always equal what the bank has
/// issued. Kept by the accounts' ledger names (`{"bank": -400, "seat:0": 100, …}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "BTreeMap<String, Chips>", try_from = "BTreeMap<String, Chips>")]
pub struct Holdings(BTreeMap<Account, Chips>);

impl Holdings {
    /// Every seat of a table of `players`, holding nothing yet.
    pub fn new(players: usize) -> Holdings {
        Holdings(Seat::all(players).map(|s| (Account::Seat(s), Chips::ZERO)).collect())
    }

    pub fn apply(&mut self, movement: &ChipMovement) {
        for t in &movement.payments {
            *self.0.entry(t.from).or_default() += -t.amount;
            *self.0.entry(t.to).or_default() += t.amount;
        }
    }

    /// What `account` holds.
    pub fn of(&self, account: Account) -> Chips {
        self.0.get(&account).copied().unwrap_or_default()
    }

    /// Every account that has held chips, with what it holds now.
    pub fn iter(&self) -> impl Iterator<Item = (Account, Chips)> + '_ {
        self.0.iter().map(|(&a, &c)| (a, c))
    }

    pub fn seat(&self, seat: Seat) -> Chips {
        self.of(Account::Seat(seat))
    }

    pub fn pool(&self, pool: Pool) -> Chips {
        self.of(Account::Pool(pool))
    }

    fn seat_balances(&self) -> impl Iterator<Item = (Seat, Chips)> + '_ {
        self.iter().filter_map(|(a, c)| match a {
            Account::Seat(seat) => Some((seat, c)),
            _ => None,
        })
    }

    /// Each seat's chips, by seat.
    pub fn seats(&self) -> Vec<Chips> {
        self.seat_balances().map(|(_, c)| c).collect()
    }

    /// What the bank has issued: always the sum of the seats and the pools.
    pub fn issued(&self) -> Chips {
        -self.of(Account::Bank)
    }

    /// The seats holding the most chips.
    pub fn leaders(&self) -> Vec<Seat> {
        let best = self.seat_balances().map(|(_, c)| c).max().unwrap_or_default();
        self.seat_balances()
            .filter(|&(_, c)| c == best)
            .map(|(s, _)| s)
            .collect()
    }

    /// Applies `movement`, when there is one, and records it as an event.
    pub fn book<E: ChipEvent>(&mut self, events: &mut Events<E>, movement: Option<ChipMovement>) {
        if let Some(movement) = movement {
            self.apply(&movement);
            events.push(E::chips(movement));
        }
    }

    /// Books `pool`'s whole balance to `seat` in deal `deal`, when it holds any, and records
    /// it as an event.
    pub fn book_pool_won<E: ChipEvent>(
        &mut self,
        events: &mut Events<E>,
        deal: u16,
        memo: String,
        pool: Pool,
        seat: Seat,
    ) {
        let won = Transfer::new(Account::Pool(pool), Account::Seat(seat), self.pool(pool));
        self.book(events, ChipMovement::new(Some(deal), memo, vec![won]));
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
        self.seat_balances()
            .zip(start)
            .map(|((_, now), &then)| now - then)
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

    /// The sum over seats and pools: every account but the bank.
    pub fn on_table(&self) -> Chips {
        self.iter().filter(|(a, _)| *a != Account::Bank).map(|(_, c)| c).sum()
    }
}

impl From<Holdings> for BTreeMap<String, Chips> {
    fn from(holdings: Holdings) -> BTreeMap<String, Chips> {
        holdings.0.into_iter().map(|(a, c)| (a.to_string(), c)).collect()
    }
}

impl TryFrom<BTreeMap<String, Chips>> for Holdings {
    type Error = UnknownAccount;

    fn try_from(names: BTreeMap<String, Chips>) -> Result<Holdings, UnknownAccount> {
        names
            .into_iter()
            .map(|(name, c)| Ok((Account::parse(&name)?, c)))
            .collect::<Result<_, _>>()
            .map(Holdings)
    }
}

/// Pays `payers` (each account and its amount) into `receivers` (each and its amount) pair by
/// pair, in order. The two sides must have equal totals; whatever one side has beyond the
/// other is left out.
pub fn pour(payers: &[(Account, i64)], receivers: &[(Account, i64)]) -> Vec<Transfer> {
    let mut payments = Vec::new();
    let mut givers = payers.iter().copied().filter(|(_, a)| *a > 0);
    let mut takers = receivers.iter().copied().filter(|(_, a)| *a > 0);
    let (mut giver, mut taker) = (givers.next(), takers.next());
    while let (Some((from, left)), Some((to, want))) = (giver, taker) {
        let amount = left.min(want);
        payments.push(Transfer::new(from, to, Chips::new(amount)));
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
            .map(|s| Transfer::new(Account::Bank, Account::Seat(s), Chips::new(i64::from(chips))))
            .collect(),
    )
}

/// One chip a card left from each seat (other than the winner and `exempt`) to the winner;
/// `double` pays two a card.
pub fn per_card_payments(winner: Seat, cards_left: &[u8], exempt: Option<Seat>, double: Option<Seat>) -> Vec<Transfer> {
    Seat::all(cards_left.len())
        .filter(|&s| s != winner && Some(s) != exempt)
        .map(|s| {
            let per = if Some(s) == double { 2 } else { 1 };
            Transfer::new(
                Account::Seat(s),
                Account::Seat(winner),
                Chips::new(per * i64::from(cards_left[s.index()])),
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

/// Implements `ChipEvent` for a game's event enum whose `Chips { movement }` variant records a
/// chip movement.
macro_rules! impl_chip_event {
    ($event:ident) => {
        impl $crate::stops::ChipEvent for $event {
            fn chips(movement: $crate::stops::ChipMovement) -> $event {
                $event::Chips { movement }
            }

            fn movement(&self) -> Option<&$crate::stops::ChipMovement> {
                match self {
                    $event::Chips { movement } => Some(movement),
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use impl_chip_event;

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

/// One line of a board, for views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PoolBalance {
    pub pool: Pool,
    pub chips: Chips,
}
