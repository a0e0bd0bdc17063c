//! A hand recorded as its result: each seat's trick chips and penalties, checked against what
//! sixteen tricks of the 64-card Squares deck can give, and booked by the same code as a trick.
//!
//! The bounds are necessary, not sufficient (no cheaper exact test is known): a seat's trick
//! chips are −16 to 16, the four seats' add up to −48 to 48 (see `MAX_TRICK_CHIPS_TOTAL`), and a
//! seat has at most 15 penalties (none in trick 1, which has no previous lay).

use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};
use crate::Events;
use smallvec::smallvec;

use super::{Event, Phase, TrickyDick, MAX_PENALTIES, MAX_TRICK_CHIPS, MAX_TRICK_CHIPS_TOTAL, PLAYERS, TRICKS};

impl TrickyDick {
    pub(super) fn result(&mut self, trick_chips: &[i32], penalties: &[u8]) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::FirstTrick {
            return Err(self.not_expected("result"));
        }
        for got in [trick_chips.len(), penalties.len()] {
            if got != PLAYERS {
                return Err(RuleViolation::WrongNumberOfEntries { got, expected: PLAYERS });
            }
        }
        for (seat, &chips) in Seat::all(PLAYERS).zip(trick_chips) {
            if !(-MAX_TRICK_CHIPS..=MAX_TRICK_CHIPS).contains(&chips) {
                return Err(RuleViolation::TrickChipsOutOfRange {
                    seat,
                    chips,
                    max: MAX_TRICK_CHIPS,
                });
            }
        }
        let total: i64 = trick_chips.iter().map(|&c| i64::from(c)).sum();
        if total.abs() > MAX_TRICK_CHIPS_TOTAL {
            return Err(RuleViolation::TrickChipsDoNotAddUp {
                total,
                max: MAX_TRICK_CHIPS_TOTAL,
            });
        }
        for (seat, &count) in Seat::all(PLAYERS).zip(penalties) {
            if count > MAX_PENALTIES {
                return Err(RuleViolation::PenaltiesOutOfRange {
                    seat,
                    penalties: count,
                    max: MAX_PENALTIES,
                });
            }
        }

        // Checked: from here on the move is legal and the state changes.
        let hand = self.hand.as_mut().ok_or(RuleViolation::GameFinished)?;
        hand.tricks_done = TRICKS;
        let number = hand.number();
        self.book(
            &BySeat::from_vec(trick_chips.to_vec()),
            &BySeat::from_vec(penalties.to_vec()),
        );
        let mut events = smallvec![Event::ResultEntered {
            hand: number,
            trick_chips: trick_chips.to_vec(),
            penalties: penalties.to_vec(),
        }];
        events.extend(self.finish_hand());
        Ok(events)
    }
}
