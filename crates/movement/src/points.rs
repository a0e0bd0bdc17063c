//! Exact points: a reduced fraction with a positive denominator, so that shared places
//! (`(4 + 2) / 2`, `(2 + 1 + 0) / 3`) and bye averages add up without rounding. No floats.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// An exact number of points, `numer / denom`, always reduced, `denom > 0`. Serialised as
/// `{"numer": 7, "denom": 2}` (whole numbers have `denom` 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawPoints", into = "RawPoints")]
pub struct Points {
    numer: i64,
    denom: i64,
}

#[derive(Serialize, Deserialize)]
struct RawPoints {
    numer: i64,
    denom: i64,
}

impl TryFrom<RawPoints> for Points {
    type Error = &'static str;
    fn try_from(raw: RawPoints) -> Result<Self, Self::Error> {
        if raw.denom <= 0 {
            return Err("denom must be positive");
        }
        Ok(Self::ratio(i128::from(raw.numer), i128::from(raw.denom)))
    }
}

impl From<Points> for RawPoints {
    fn from(p: Points) -> Self {
        Self {
            numer: p.numer,
            denom: p.denom,
        }
    }
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Clamps a reduced value back into `i64` (unreachable with card-club numbers; never panics).
fn clamp(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

impl Points {
    /// No points.
    pub const ZERO: Points = Points { numer: 0, denom: 1 };

    /// Whole points.
    pub const fn whole(n: i64) -> Self {
        Self { numer: n, denom: 1 }
    }

    fn ratio(numer: i128, denom: i128) -> Self {
        let (numer, denom) = if denom < 0 { (-numer, -denom) } else { (numer, denom) };
        let g = gcd(numer, denom).max(1);
        Self {
            numer: clamp(numer / g),
            denom: clamp(denom / g).max(1),
        }
    }

    /// The numerator of the reduced fraction.
    pub const fn numer(self) -> i64 {
        self.numer
    }

    /// The denominator of the reduced fraction (at least 1).
    pub const fn denom(self) -> i64 {
        self.denom
    }

    /// This divided by a whole number (`by` of 0 gives zero).
    pub fn divided_by(self, by: i64) -> Self {
        if by == 0 {
            return Self::ZERO;
        }
        Self::ratio(i128::from(self.numer), i128::from(self.denom) * i128::from(by))
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, rhs: Points) -> Points {
        let (a, b) = (i128::from(self.numer), i128::from(self.denom));
        let (c, d) = (i128::from(rhs.numer), i128::from(rhs.denom));
        Points::ratio(a * d + c * b, b * d)
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, rhs: Points) {
        *self = *self + rhs;
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |a, b| a + b)
    }
}

impl Ord for Points {
    fn cmp(&self, other: &Self) -> Ordering {
        (i128::from(self.numer) * i128::from(other.denom)).cmp(&(i128::from(other.numer) * i128::from(self.denom)))
    }
}

impl PartialOrd for Points {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.denom == 1 {
            write!(f, "{}", self.numer)
        } else {
            write!(f, "{}/{}", self.numer, self.denom)
        }
    }
}
