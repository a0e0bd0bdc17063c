//! One module per game.

pub mod dividend;
pub mod newmarket;
pub mod nomination_whist;
pub mod pope_joan;
pub mod sim;
pub mod spin;
#[cfg(test)]
mod testing;
pub mod tricky_dick;
pub mod tridge;
