//! Chips: every seat holds one balance against the bank, moved trick by trick. A trick's value
//! goes between the bank and each scorer (from the bank when positive, to it when negative),
//! and each penalised seat pays the bank 1. A hand entered as a result moves the same chips in
//! two bookings for the whole hand: each seat's trick chips, then its penalties.

use crate::chips::{Account, Chips, Settlement, Transfer};
use crate::seat::Seat;

use super::{Event, TrickResult};

/// The chips the events move: per completed trick, one settlement for its value (bank ↔ each
/// scorer) and one for its penalties (each penalised seat → bank); per hand entered as a result,
/// one for its trick chips and one for its penalties; each only when chips move.
pub(super) fn settlements(events: &[Event]) -> Vec<Settlement> {
    events
        .iter()
        .flat_map(|event| match event {
            Event::TrickWon { hand, result } => trick_settlements(*hand, result),
            Event::ResultEntered {
                hand,
                trick_chips,
                penalties,
            } => result_settlements(*hand, trick_chips, penalties),
            _ => Vec::new(),
        })
        .collect()
}

fn trick_settlements(hand: u16, result: &TrickResult) -> Vec<Settlement> {
    let value = result.scorers.iter().map(|&s| (s, result.value));
    let value_memo = || {
        format!(
            "hand {hand}, trick {}: trick value {:+} ({} circles − {} squares) to {}",
            result.trick,
            result.value,
            result.circles,
            result.squares,
            seat_list(&result.scorers)
        )
    };
    let penalties = result.penalised.iter().map(|&s| (s, -1));
    let penalty_memo = || {
        format!(
            "hand {hand}, trick {}: penalty −1 each for a card sharing nothing with the previous lay: {}",
            result.trick,
            seat_list(&result.penalised)
        )
    };
    [
        with_bank(hand, value, value_memo),
        with_bank(hand, penalties, penalty_memo),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn result_settlements(hand: u16, trick_chips: &[i32], penalties: &[u8]) -> Vec<Settlement> {
    let chips = || Seat::all(trick_chips.len()).zip(trick_chips.iter().copied());
    let chips_memo = || {
        format!(
            "hand {hand}, entered as a result: trick chips (circles − squares of the tricks scored) {}",
            amounts(chips())
        )
    };
    let paid = || Seat::all(penalties.len()).zip(penalties.iter().map(|&p| -i32::from(p)));
    let penalty_memo = || {
        format!(
            "hand {hand}, entered as a result: penalties, −1 each for a card sharing nothing with the previous lay, {}",
            amounts(paid())
        )
    };
    [
        with_bank(hand, chips(), chips_memo),
        with_bank(hand, paid(), penalty_memo),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// One settlement moving `points` between the bank and each seat (from the bank when positive,
/// to it when negative), or none when no chips move. Trick and result bookings both go through
/// here.
fn with_bank(
    hand: u16,
    points: impl IntoIterator<Item = (Seat, i32)>,
    memo: impl FnOnce() -> String,
) -> Option<Settlement> {
    let transfers: Vec<Transfer> = points
        .into_iter()
        .filter(|&(_, p)| p != 0)
        .map(|(seat, p)| {
            let amount = Chips::new(i64::from(p.unsigned_abs()));
            if p < 0 {
                Transfer::new(Account::Seat(seat), Account::Bank, amount)
            } else {
                Transfer::new(Account::Bank, Account::Seat(seat), amount)
            }
        })
        .collect();
    (!transfers.is_empty()).then(|| Settlement::of_transfers(Some(hand), memo(), &transfers))
}

/// "seat 0 +3, seat 2 −1": the seats whose chips move.
fn amounts(points: impl Iterator<Item = (Seat, i32)>) -> String {
    points
        .filter(|&(_, p)| p != 0)
        .map(|(seat, p)| format!("{seat} {p:+}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn seat_list(seats: &[Seat]) -> String {
    seats.iter().map(Seat::to_string).collect::<Vec<_>>().join(", ")
}
