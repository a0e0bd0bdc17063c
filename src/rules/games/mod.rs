//! One module per game.

pub mod newmarket;
pub mod nomination_whist;
pub mod pope_joan;
pub mod spin;
