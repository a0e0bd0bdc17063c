//! One module per game.

pub mod nomination_whist;
pub mod pope_joan;
