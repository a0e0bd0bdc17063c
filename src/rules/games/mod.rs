//! One module per game.

pub mod nomination_whist;
