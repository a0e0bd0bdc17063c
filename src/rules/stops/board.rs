//! The chip board of the stops games: chip movements between the bank, the seats and the pools,
//! the holdings they add up to, and the usual ways of paying (pouring stakes onto a board, a chip
//! a card left).
//!
//! Invariant: seats plus pools always equal what the bank has issued.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rules::chips::{Account, Chips, Pool, Settlement};
use crate::rules::seat::{BySeat, Seat};

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
    pub(super) seats: BySeat<Chips>,
    pub(super) pools: BTreeMap<Pool, Chips>,
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

/// One line of a board, for views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PoolBalance {
    pub pool: Pool,
    pub chips: Chips,
}
