//! The double-entry chip ledger, pure.
//!
//! Invariants: a `Booking` cannot be built unless its postings sum to zero, so `Balances`
//! (which changes only by applying bookings) always sums to zero across all accounts, the bank
//! included; the chips in play are what the bank has issued. A correction is the reversal of a
//! booking, never an edit.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use crate::rules::Chips;
use crate::rules::Seat;

/// Where chips can be: the bank that issues them, a player, or a pot on the table.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Account {
    /// Issues opening chips and takes back what is cashed in.
    Bank,
    Seat(Seat),
    GameFund,
    WidowsFund,
    /// Reserve Funds, numbered in creation order from 1.
    Reserve(u16),
    /// A named division of a staking board (`pope`, `matrimony`, …).
    Pool(String),
}

/// Why a booking or an account name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    #[error("a booking needs at least two postings")]
    Empty,
    #[error("the postings sum to {0}, not zero")]
    Unbalanced(Chips),
    #[error("`{0}` is not a ledger account")]
    UnknownAccount(String),
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Account::Bank => f.write_str("bank"),
            Account::Seat(seat) => write!(f, "seat:{}", seat.number()),
            Account::GameFund => f.write_str("game_fund"),
            Account::WidowsFund => f.write_str("widows_fund"),
            Account::Reserve(n) => write!(f, "reserve:{n}"),
            Account::Pool(name) => write!(f, "pool:{name}"),
        }
    }
}

impl FromStr for Account {
    type Err = LedgerError;

    fn from_str(s: &str) -> Result<Account, LedgerError> {
        let err = || LedgerError::UnknownAccount(s.to_owned());
        let account = match s.split_once(':') {
            None if s == "bank" => Account::Bank,
            None if s == "game_fund" => Account::GameFund,
            None if s == "widows_fund" => Account::WidowsFund,
            Some(("seat", n)) => Account::Seat(Seat::new(n.parse().map_err(|_| err())?)),
            Some(("reserve", n)) => Account::Reserve(n.parse().map_err(|_| err())?),
            Some(("pool", name)) if !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') => {
                Account::Pool(name.to_owned())
            }
            _ => return Err(err()),
        };
        Ok(account)
    }
}

impl Serialize for Account {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Account {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Account, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Chips in (positive) or out (negative) of one account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Posting {
    pub account: Account,
    pub amount: Chips,
}

/// A balanced set of postings with the reason for them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Booking {
    memo: String,
    postings: Vec<Posting>,
}

impl Booking {
    /// Builds a booking, merging postings to the same account and dropping zeros.
    ///
    /// # Errors
    /// `Unbalanced` when the postings do not sum to zero; `Empty` when nothing moves.
    pub fn new(memo: impl Into<String>, postings: impl IntoIterator<Item = Posting>) -> Result<Booking, LedgerError> {
        let mut merged: BTreeMap<Account, Chips> = BTreeMap::new();
        for p in postings {
            *merged.entry(p.account).or_default() += p.amount;
        }
        let sum: Chips = merged.values().copied().sum();
        if !sum.is_zero() {
            return Err(LedgerError::Unbalanced(sum));
        }
        let postings: Vec<Posting> = merged
            .into_iter()
            .filter(|(_, amount)| !amount.is_zero())
            .map(|(account, amount)| Posting { account, amount })
            .collect();
        if postings.len() < 2 {
            return Err(LedgerError::Empty);
        }
        Ok(Booking {
            memo: memo.into(),
            postings,
        })
    }

    /// `amount` chips from one account to another.
    ///
    /// # Errors
    /// `Empty` when the amount is zero or both accounts are the same.
    pub fn transfer(
        memo: impl Into<String>,
        from: Account,
        to: Account,
        amount: Chips,
    ) -> Result<Booking, LedgerError> {
        Booking::new(
            memo,
            [
                Posting {
                    account: from,
                    amount: -amount,
                },
                Posting { account: to, amount },
            ],
        )
    }

    /// The booking that undoes this one.
    pub fn reversal(&self) -> Booking {
        Booking {
            memo: format!("reversal: {}", self.memo),
            postings: self
                .postings
                .iter()
                .map(|p| Posting {
                    account: p.account.clone(),
                    amount: -p.amount,
                })
                .collect(),
        }
    }

    pub fn memo(&self) -> &str {
        &self.memo
    }

    pub fn postings(&self) -> &[Posting] {
        &self.postings
    }
}

/// Balances per account, changed only by bookings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Balances(BTreeMap<Account, Chips>);

impl Balances {
    pub fn apply(&mut self, booking: &Booking) {
        for p in &booking.postings {
            *self.0.entry(p.account.clone()).or_default() += p.amount;
        }
    }

    pub fn of(&self, account: &Account) -> Chips {
        self.0.get(account).copied().unwrap_or_default()
    }

    /// The sum over every account; zero by construction.
    pub fn total(&self) -> Chips {
        self.0.values().copied().sum()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Account, Chips)> {
        self.0.iter().map(|(a, c)| (a, *c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seat(n: u8) -> Account {
        Account::Seat(Seat::new(n))
    }

    #[test]
    fn an_unbalanced_booking_cannot_be_built() {
        let postings = [
            Posting {
                account: seat(0),
                amount: Chips::new(-5),
            },
            Posting {
                account: Account::GameFund,
                amount: Chips::new(4),
            },
        ];
        assert_eq!(
            Booking::new("buy-in", postings),
            Err(LedgerError::Unbalanced(Chips::new(-1)))
        );
    }

    #[test]
    fn a_booking_that_moves_nothing_is_refused() {
        assert_eq!(
            Booking::transfer("x", seat(0), seat(0), Chips::new(5)),
            Err(LedgerError::Empty)
        );
        assert_eq!(
            Booking::transfer("x", seat(0), seat(1), Chips::ZERO),
            Err(LedgerError::Empty)
        );
    }

    #[test]
    fn a_reversal_restores_the_balances() {
        let booking =
            Booking::transfer("stake", seat(1), Account::Pool("pope".into()), Chips::new(6)).expect("booking");
        let mut balances = Balances::default();
        balances.apply(&booking);
        assert_eq!(balances.of(&seat(1)), Chips::new(-6));
        balances.apply(&booking.reversal());
        assert_eq!(balances.of(&seat(1)), Chips::ZERO);
        assert_eq!(balances.of(&Account::Pool("pope".into())), Chips::ZERO);
    }

    #[test]
    fn account_names_round_trip_and_bad_ones_are_refused() {
        for account in [
            Account::Bank,
            seat(3),
            Account::GameFund,
            Account::WidowsFund,
            Account::Reserve(2),
            Account::Pool("matrimony".into()),
        ] {
            assert_eq!(account.to_string().parse::<Account>(), Ok(account));
        }
        for bad in ["", "seat:", "seat:x", "pool:", "pool:Pope", "reserve:-1", "fund"] {
            assert!(bad.parse::<Account>().is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn balances_always_sum_to_zero(transfers in proptest::collection::vec((0u8..4, 0u8..4, 1i64..1000), 0..50)) {
            let mut balances = Balances::default();
            for (from, to, amount) in transfers {
                if let Ok(booking) = Booking::transfer("t", seat(from), seat(to), Chips::new(amount)) {
                    let sum: Chips = booking.postings().iter().map(|p| p.amount).sum();
                    prop_assert_eq!(sum, Chips::ZERO);
                    balances.apply(&booking);
                }
                prop_assert_eq!(balances.total(), Chips::ZERO);
            }
        }
    }
}
