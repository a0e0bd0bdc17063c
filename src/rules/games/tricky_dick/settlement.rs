//! Chips: every seat holds one balance against the bank, moved trick by trick. A trick's value
//! goes between the bank and each scorer (from the bank when positive, to it when negative),
//! and each penalised seat pays the bank 1.

use crate::rules::chips::{Account, Chips, Settlement};
use crate::rules::seat::Seat;

use super::Event;

/// The chips the events move, per completed trick: one settlement for its value (bank ↔ each
/// scorer) and one for its penalties (each penalised seat → bank), each only when chips move.
pub(super) fn settlements(events: &[Event]) -> Vec<Settlement> {
    let mut out = Vec::new();
    for event in events {
        let Event::TrickWon { hand, result } = event else {
            continue;
        };
        let deal = Some(*hand);
        if result.value != 0 && !result.scorers.is_empty() {
            let each = Chips::new(i64::from(result.value));
            let seats = seat_list(&result.scorers);
            let memo = format!(
                "hand {hand}, trick {}: trick value {:+} ({} circles − {} squares) to {seats}",
                result.trick, result.value, result.circles, result.squares
            );
            let mut postings: Vec<(Account, Chips)> =
                result.scorers.iter().map(|&s| (Account::Seat(s), each)).collect();
            postings.push((Account::Bank, -postings.iter().map(|(_, c)| *c).sum::<Chips>()));
            out.push(Settlement { deal, memo, postings });
        }
        if !result.penalised.is_empty() {
            let seats = seat_list(&result.penalised);
            let memo = format!(
                "hand {hand}, trick {}: penalty −1 each for a card sharing nothing with the previous lay: {seats}",
                result.trick
            );
            let mut postings: Vec<(Account, Chips)> = result
                .penalised
                .iter()
                .map(|&s| (Account::Seat(s), Chips::new(-1)))
                .collect();
            postings.push((Account::Bank, Chips::new(result.penalised.len() as i64)));
            out.push(Settlement { deal, memo, postings });
        }
    }
    out
}

fn seat_list(seats: &[Seat]) -> String {
    seats.iter().map(Seat::to_string).collect::<Vec<_>>().join(", ")
}
