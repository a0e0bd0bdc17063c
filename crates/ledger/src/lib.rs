//! The double-entry chip ledger, pure.
//!
//! Invariants: a `Booking` cannot be built unless its postings sum to zero, so `Balances`
//! (which changes only by applying bookings) always sums to zero across all accounts, the bank
//! included; the chips in play are what the bank has issued. A correction is the reversal of a
//! booking, never an edit.

pub mod settle;

use std::collections::BTreeMap;

use serde::Serialize;

pub use tablekeeper_rules::{Account, Chips, Settlement};

/// Why a booking is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    #[error("a booking needs at least two postings")]
    Empty,
    #[error("the postings sum to {0}, not zero")]
    Unbalanced(Chips),
}

/// Chips in (positive) or out (negative) of one account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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

    /// The booking of a game's settlement.
    ///
    /// # Errors
    /// As `new`: a settlement that does not balance is an engine bug, refused here.
    pub fn from_settlement(settlement: &Settlement) -> Result<Booking, LedgerError> {
        let postings = settlement.postings.iter().map(|(account, amount)| Posting {
            account: *account,
            amount: *amount,
        });
        Booking::new(settlement.memo.clone(), postings)
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
                    account: p.account,
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
            *self.0.entry(p.account).or_default() += p.amount;
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
    use tablekeeper_rules::Seat;

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
    fn a_settlement_paying_one_account_several_times_is_booked_one_posting_per_account() {
        // Tridge's opening: the bank issues each player's chips in one settlement.
        let issue = Settlement {
            deal: None,
            memo: "opening chips".into(),
            postings: (0..3)
                .flat_map(|n| [(Account::Bank, Chips::new(-500)), (seat(n), Chips::new(500))])
                .collect(),
        };
        let booking = Booking::from_settlement(&issue).expect("balanced");
        assert_eq!(booking.postings().len(), 4);
        assert_eq!(
            (booking.postings()[0].account, booking.postings()[0].amount),
            (Account::Bank, Chips::new(-1500))
        );
    }

    #[test]
    fn a_reversal_restores_the_balances() {
        let booking = Booking::transfer(
            "stake",
            seat(1),
            Account::Pool(tablekeeper_rules::Pool::Pope),
            Chips::new(6),
        )
        .expect("booking");
        let mut balances = Balances::default();
        balances.apply(&booking);
        assert_eq!(balances.of(&seat(1)), Chips::new(-6));
        balances.apply(&booking.reversal());
        assert_eq!(balances.of(&seat(1)), Chips::ZERO);
        assert_eq!(balances.of(&Account::Pool(tablekeeper_rules::Pool::Pope)), Chips::ZERO);
    }

    #[test]
    fn account_names_round_trip_and_bad_ones_are_refused() {
        for account in [
            Account::Bank,
            seat(3),
            Account::GameFund,
            Account::WidowsFund,
            Account::Reserve(2),
            Account::Pool(tablekeeper_rules::Pool::Matrimony),
        ] {
            assert_eq!(Account::parse(&account.to_string()), Ok(account));
        }
        for bad in [
            "",
            "seat:",
            "seat:x",
            "pool:",
            "pool:popes",
            "pool:Matrimony",
            "reserve:-1",
            "fund",
        ] {
            assert!(Account::parse(bad).is_err(), "{bad}");
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
