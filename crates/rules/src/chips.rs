//! Chips: the unit of every stake and payout. Integer, never fractional; a game that halves
//! a fund says how it rounds.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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

/// A division of a staking board, or a pool card's stake: each is a ledger account
/// `pool:<name>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pool {
    Pope,
    Matrimony,
    Intrigue,
    Ace,
    King,
    Queen,
    Knave,
    Game,
    /// Newmarket's pool cards, by rank.
    PoolAce,
    PoolKing,
    PoolQueen,
    PoolKnave,
}

impl Pool {
    /// The pool's ledger name.
    pub const fn name(self) -> &'static str {
        match self {
            Pool::Pope => "pope",
            Pool::Matrimony => "matrimony",
            Pool::Intrigue => "intrigue",
            Pool::Ace => "ace",
            Pool::King => "king",
            Pool::Queen => "queen",
            Pool::Knave => "knave",
            Pool::Game => "game",
            Pool::PoolAce => "pool_ace",
            Pool::PoolKing => "pool_king",
            Pool::PoolQueen => "pool_queen",
            Pool::PoolKnave => "pool_knave",
        }
    }

    /// The board account's words, for memos.
    pub const fn title(self) -> &'static str {
        match self {
            Pool::Pope => "Pope",
            Pool::Matrimony => "Matrimony",
            Pool::Intrigue => "Intrigue",
            Pool::Ace => "Ace",
            Pool::King => "King",
            Pool::Queen => "Queen",
            Pool::Knave => "Knave",
            Pool::Game => "Game",
            Pool::PoolAce => "the ace's pool",
            Pool::PoolKing => "the king's pool",
            Pool::PoolQueen => "the queen's pool",
            Pool::PoolKnave => "the knave's pool",
        }
    }
}

impl Pool {
    pub const ALL: [Pool; 12] = [
        Pool::Pope,
        Pool::Matrimony,
        Pool::Intrigue,
        Pool::Ace,
        Pool::King,
        Pool::Queen,
        Pool::Knave,
        Pool::Game,
        Pool::PoolAce,
        Pool::PoolKing,
        Pool::PoolQueen,
        Pool::PoolKnave,
    ];

    /// The pool of a ledger name.
    pub fn parse(name: &str) -> Option<Pool> {
        Pool::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Where chips can be: the bank that issues them, a player, or a pot on the table. Every chip
/// movement of every game is between two of these.
///
/// In events it is written `"bank"`, `{"seat": 1}`, `"game_fund"`, `{"reserve": 2}`,
/// `{"pool": "pope"}`; in the ledger by its `Display` name (`seat:1`, `pool:pope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Account {
    /// Issues opening chips and takes back what is cashed in.
    Bank,
    Seat(Seat),
    GameFund,
    WidowsFund,
    /// A Reserve Fund, numbered in creation order from 1.
    Reserve(u16),
    /// A division of a staking board or a pool card's stake.
    Pool(Pool),
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
            Account::Pool(pool) => write!(f, "pool:{}", pool.name()),
        }
    }
}

impl Account {
    /// Parses a ledger account name, the inverse of `Display`.
    ///
    /// # Errors
    /// `UnknownAccount` for anything else.
    pub fn parse(s: &str) -> Result<Account, UnknownAccount> {
        let err = || UnknownAccount(s.to_owned());
        let account = match s.split_once(':') {
            None if s == "bank" => Account::Bank,
            None if s == "game_fund" => Account::GameFund,
            None if s == "widows_fund" => Account::WidowsFund,
            Some(("seat", n)) => Account::Seat(Seat::new(n.parse().map_err(|_| err())?)),
            Some(("reserve", n)) => Account::Reserve(n.parse().map_err(|_| err())?),
            Some(("pool", name)) => Account::Pool(Pool::parse(name).ok_or_else(err)?),
            _ => return Err(err()),
        };
        Ok(account)
    }
}

/// Chips from one account to another: the one shape of a chip movement in every game's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Transfer {
    pub from: Account,
    pub to: Account,
    pub amount: Chips,
}

impl Transfer {
    pub fn new(from: Account, to: Account, amount: Chips) -> Transfer {
        Transfer { from, to, amount }
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

    /// The settlement of a list of transfers.
    pub fn of_transfers(deal: Option<u16>, memo: impl Into<String>, transfers: &[Transfer]) -> Settlement {
        Settlement {
            deal,
            memo: memo.into(),
            postings: transfers
                .iter()
                .flat_map(|t| [(t.from, -t.amount), (t.to, t.amount)])
                .collect(),
        }
    }
}
