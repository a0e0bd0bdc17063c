//! The pots on the table (Game Fund, Widow's Fund, Reserves) and the `Booker` that moves chips
//! between them and the seats.
//!
//! Invariants: every chip movement is a `ChipsMoved` event booked through the `Booker`, which
//! keeps the pots and seats in step with it (checked arithmetic); the Game Fund never exceeds
//! its cap, the excess filling Reserves in turn.

use crate::Events;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::chips::{Account, Chips, Transfer};
use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};

use super::{Event, Tridge};

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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Pots {
    pub(super) game: Chips,
    pub(super) widows: Chips,
    pub(super) reserves: Vec<Reserve>,
    pub(super) next_reserve: u16,
    pub(super) raised: bool,
    /// A Reserve was opened while the current Game Fund was in play: overflow joins it.
    pub(super) reserve_open: bool,
}

/// Collects the transfers of one move and keeps the pots and seats in step with them.
pub(super) struct Booker<'a> {
    pub(super) deal: u16,
    pub(super) pots: &'a mut Pots,
    pub(super) chips: &'a mut BySeat<Chips>,
    pub(super) cap: Chips,
    pub(super) events: Events<Event>,
}

impl Booker<'_> {
    /// Adds `amount` to one account's chips; the bank issues and takes back without a balance.
    ///
    /// # Errors
    /// `ChipsOutOfRange` when the balance would leave `i64` (a Widow's Fund doubled again and
    /// again by failed contracts can get there); the caller's trial copy is then dropped.
    fn credit(&mut self, account: Account, amount: Chips) -> Result<(), RuleViolation> {
        let balance = match account {
            Account::Bank => return Ok(()),
            Account::Seat(s) => &mut self.chips[s],
            Account::GameFund => &mut self.pots.game,
            Account::WidowsFund => &mut self.pots.widows,
            Account::Reserve(n) => match self.pots.reserves.iter_mut().find(|r| r.number == n) {
                Some(r) => &mut r.chips,
                None => return Err(RuleViolation::ChipsOutOfRange),
            },
            // Tridge has no staking board: nothing here books to a pool.
            Account::Pool(_) => return Err(RuleViolation::ChipsOutOfRange),
        };
        *balance = balance.checked_add(amount).ok_or(RuleViolation::ChipsOutOfRange)?;
        Ok(())
    }

    /// Books the transfers that move something as one `ChipsMoved` event.
    pub(super) fn book(&mut self, reason: impl Into<String>, transfers: Vec<Transfer>) -> Result<(), RuleViolation> {
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

    pub(super) fn one(
        &mut self,
        reason: impl Into<String>,
        from: Account,
        to: Account,
        amount: Chips,
    ) -> Result<(), RuleViolation> {
        self.book(reason, vec![Transfer::new(from, to, amount)])
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
    pub(super) fn pay_game_fund(&mut self, reason: &str, payments: &[(Seat, Chips)]) -> Result<(), RuleViolation> {
        let mut room = Chips::new((self.cap - self.pots.game).get().max(0));
        let mut to_fund = Vec::new();
        let mut excess = Vec::new();
        for &(seat, amount) in payments {
            let fund_part = amount.min(room);
            room = room - fund_part;
            to_fund.push(Transfer::new(Account::Seat(seat), Account::GameFund, fund_part));
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
                transfers.push(Transfer::new(Account::Seat(*seat), Account::Reserve(n), part));
            }
            self.book(format!("{reason}, over the cap: into Reserve {n}"), transfers)?;
        }
        Ok(())
    }

    pub(super) fn collect_from_each(
        &mut self,
        reason: &str,
        payers: &[Seat],
        to: Seat,
        amount: Chips,
    ) -> Result<(), RuleViolation> {
        self.book(reason, from_each(payers.iter().copied(), Account::Seat(to), amount))
    }

    pub(super) fn pay_each(
        &mut self,
        reason: &str,
        from: Seat,
        payees: &[Seat],
        amount: Chips,
    ) -> Result<(), RuleViolation> {
        self.book(reason, to_each(Account::Seat(from), payees.iter().copied(), amount))
    }

    pub(super) fn game_fund_won(&mut self, reason: &str, player: Seat, amount: Chips) -> Result<(), RuleViolation> {
        self.one(reason, Account::GameFund, Account::Seat(player), amount)
    }
}

/// `amount` from each of `payers` to one account.
pub(super) fn from_each(payers: impl IntoIterator<Item = Seat>, to: Account, amount: Chips) -> Vec<Transfer> {
    payers
        .into_iter()
        .map(|p| Transfer::new(Account::Seat(p), to, amount))
        .collect()
}

/// `amount` from one account to each of `payees`.
pub(super) fn to_each(from: Account, payees: impl IntoIterator<Item = Seat>, amount: Chips) -> Vec<Transfer> {
    payees
        .into_iter()
        .map(|p| Transfer::new(from, Account::Seat(p), amount))
        .collect()
}

impl Tridge {
    fn f0(&self) -> Chips {
        Chips::new(self.options.fund_stake * self.players as i64)
    }

    fn cap(&self) -> Chips {
        Chips::new(self.f0().get() * self.options.fund_cap_multiple)
    }

    pub(super) fn booker(&mut self) -> Booker<'_> {
        let cap = self.cap();
        Booker {
            deal: self.deal.number,
            pots: &mut self.pots,
            chips: &mut self.chips,
            cap,
            events: Events::new(),
        }
    }

    pub(super) fn funds(&self) -> Funds {
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
}
