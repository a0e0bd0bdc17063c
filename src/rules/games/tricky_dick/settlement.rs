//! Chips: every seat holds one balance against the bank, moved trick by trick. A trick's value
//! goes between the bank and each scorer (from the bank when positive, to it when negative),
//! and each penalised seat pays the bank 1.

use crate::rules::chips::{Account, Chips, Settlement, Transfer};
use crate::rules::seat::Seat;

use super::{Event, TrickResult};

/// The chips the events move, per completed trick: one settlement for its value (bank ↔ each
/// scorer) and one for its penalties (each penalised seat → bank), each only when chips move.
pub(super) fn settlements(events: &[Event]) -> Vec<Settlement> {
    events
        .iter()
        .flat_map(|event| match event {
            Event::TrickWon { hand, result } => trick_settlements(*hand, result),
            _ => Vec::new(),
        })
        .collect()
}

fn trick_settlements(hand: u16, result: &TrickResult) -> Vec<Settlement> {
    let deal = Some(hand);
    let mut out = Vec::new();
    if result.value != 0 && !result.scorers.is_empty() {
        let memo = format!(
            "hand {hand}, trick {}: trick value {:+} ({} circles − {} squares) to {}",
            result.trick,
            result.value,
            result.circles,
            result.squares,
            seat_list(&result.scorers)
        );
        let transfers: Vec<Transfer> = result.scorers.iter().map(|&s| with_bank(s, result.value)).collect();
        out.push(Settlement::of_transfers(deal, memo, &transfers));
    }
    if !result.penalised.is_empty() {
        let memo = format!(
            "hand {hand}, trick {}: penalty −1 each for a card sharing nothing with the previous lay: {}",
            result.trick,
            seat_list(&result.penalised)
        );
        let transfers: Vec<Transfer> = result.penalised.iter().map(|&s| with_bank(s, -1)).collect();
        out.push(Settlement::of_transfers(deal, memo, &transfers));
    }
    out
}

/// `points` to `seat` from the bank, or to the bank from `seat` when negative.
fn with_bank(seat: Seat, points: i32) -> Transfer {
    let amount = Chips::new(i64::from(points.unsigned_abs()));
    if points < 0 {
        Transfer::new(Account::Seat(seat), Account::Bank, amount)
    } else {
        Transfer::new(Account::Bank, Account::Seat(seat), amount)
    }
}

fn seat_list(seats: &[Seat]) -> String {
    seats.iter().map(Seat::to_string).collect::<Vec<_>>().join(", ")
}
