//! Chips: the unit of every stake and payout. Integer, never fractional; a game that halves
//! a fund says how it rounds.

use serde::{Deserialize, Serialize};

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
