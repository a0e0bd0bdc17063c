//! What every stops table shares at its set-up and at each deal: the table's options, the seats,
//! the hands dealt.

use std::ops::RangeInclusive;

use crate::error::SetupError;
use crate::seat::{BySeat, Seat};
use crate::{OptionDoc, OptionKind};

/// Cards dealt to each seat when `cards` are dealt out one at a time from the dealer's left:
/// the first `cards % players` seats from the left get one more.
pub fn even_hands(cards: usize, players: usize, dealer: Seat) -> BySeat<u8> {
    let mut hands = BySeat::filled(players, (cards / players) as u8);
    for step in 1..=cards % players {
        hands[dealer.left(step, players)] += 1;
    }
    hands
}

/// The most deals a stops game plays: rounds (each player deals once a round).
pub const MAX_ROUNDS: u8 = 50;
/// The most opening chips a seat receives.
pub const MAX_OPENING_CHIPS: u32 = 1_000_000;

/// Checks the setup every stops game shares: 3 to 8 players, the first dealer at the table,
/// 1 to 50 rounds and at most a million opening chips each.
///
/// # Errors
/// `PlayerCount` or `InvalidOption` naming the option.
pub fn check_table(
    players: usize,
    seats: RangeInclusive<usize>,
    first_dealer: u8,
    rounds: u8,
    opening_chips: u32,
) -> Result<(), SetupError> {
    SetupError::check_players(players, &seats)?;
    if usize::from(first_dealer) >= players {
        return Err(SetupError::InvalidOption {
            option: "first_dealer",
            reason: format!("there is no seat {first_dealer} at a table of {players}"),
        });
    }
    if rounds == 0 || rounds > MAX_ROUNDS {
        return Err(SetupError::InvalidOption {
            option: "rounds",
            reason: format!("play 1 to {MAX_ROUNDS} rounds"),
        });
    }
    if opening_chips > MAX_OPENING_CHIPS {
        return Err(SetupError::InvalidOption {
            option: "opening_chips",
            reason: format!("at most {MAX_OPENING_CHIPS} chips each"),
        });
    }
    Ok(())
}

/// The catalogue's words for the options every stops table has (`check_table` checks them).
pub const OPENING_CHIPS_DOC: OptionDoc = OptionDoc {
    name: "opening_chips",
    label: "Opening chips",
    description: "Chips each player gets from the bank at the start.",
    kind: OptionKind::Number {
        min: 0,
        max: MAX_OPENING_CHIPS as i64,
    },
};
pub const FIRST_DEALER_DOC: OptionDoc = OptionDoc {
    name: "first_dealer",
    label: "First dealer",
    description: "The player who deals first; the deal passes to the left.",
    kind: OptionKind::Seat,
};
pub const ROUNDS_DOC: OptionDoc = OptionDoc {
    name: "rounds",
    label: "Rounds",
    description: "Rounds of deals, each player dealing once a round.",
    kind: OptionKind::Number {
        min: 1,
        max: MAX_ROUNDS as i64,
    },
};
