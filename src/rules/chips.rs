//! Chips: the unit of every stake and payout. Integer, never fractional; a game that halves
//! a fund says how it rounds.

use serde::{Deserialize, Serialize};

use super::seat::Seat;

/// A number of chips; negative for what is owed or paid out.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = i64, example = 25)]
pub struct Chips(i64);

impl Chips {
    pub const ZERO: Chips = Chips(0);

    pub const fn new(n: i64) -> Chips {
        Chips(n)
    }

    pub const fn get(self) -> i64 {
        self.0
    }

    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    pub fn checked_add(self, other: Chips) -> Option<Chips> {
        self.0.checked_add(other.0).map(Chips)
    }
}

impl std::ops::Add for Chips {
    type Output = Chips;
    fn add(self, other: Chips) -> Chips {
        Chips(self.0 + other.0)
    }
}

impl std::ops::AddAssign for Chips {
    fn add_assign(&mut self, other: Chips) {
        self.0 += other.0;
    }
}

impl std::ops::Sub for Chips {
    type Output = Chips;
    fn sub(self, other: Chips) -> Chips {
        Chips(self.0 - other.0)
    }
}

impl std::ops::Neg for Chips {
    type Output = Chips;
    fn neg(self) -> Chips {
        Chips(-self.0)
    }
}

impl std::iter::Sum for Chips {
    fn sum<I: Iterator<Item = Chips>>(iter: I) -> Chips {
        iter.fold(Chips::ZERO, |a, b| a + b)
    }
}

impl std::fmt::Display for Chips {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

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
    /// A named division of a staking board (`pope`, `matrimony`, …): lowercase letters and `_`.
    Pool(&'static str),
}

/// Text that names no account.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a ledger account")]
pub struct UnknownAccount(pub String);

impl std::fmt::Display for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

impl Account {
    /// Parses an account name; pool names must be among `pools` (the names games use), so that
    /// a parsed account is always one a game could have booked.
    ///
    /// # Errors
    /// `UnknownAccount` for anything else.
    pub fn parse(s: &str, pools: &[&'static str]) -> Result<Account, UnknownAccount> {
        let err = || UnknownAccount(s.to_owned());
        let account = match s.split_once(':') {
            None if s == "bank" => Account::Bank,
            None if s == "game_fund" => Account::GameFund,
            None if s == "widows_fund" => Account::WidowsFund,
            Some(("seat", n)) => Account::Seat(Seat::new(n.parse().map_err(|_| err())?)),
            Some(("reserve", n)) => Account::Reserve(n.parse().map_err(|_| err())?),
            Some(("pool", name)) => Account::Pool(pools.iter().copied().find(|p| *p == name).ok_or_else(err)?),
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

/// A chip movement a move causes, in the game's words: postings that sum to zero (the ledger
/// refuses any that do not), the reason, and the deal it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Settlement {
    /// 1-based deal number, when the movement belongs to a deal.
    pub deal: Option<u16>,
    pub memo: String,
    pub postings: Vec<(Account, Chips)>,
}

impl Settlement {
    /// `amount` from one account to another.
    pub fn transfer(
        deal: Option<u16>,
        memo: impl Into<String>,
        from: Account,
        to: Account,
        amount: Chips,
    ) -> Settlement {
        Settlement {
            deal,
            memo: memo.into(),
            postings: vec![(from, -amount), (to, amount)],
        }
    }
}
