//! One module per game.

pub mod dividend;
pub mod nomination_whist;
pub mod tricky_dick;
pub mod tridge;
