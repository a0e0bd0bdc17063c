//! A deal recorded card by card: the trump of each trick follows from the suit led, the engine
//! finds the trick's winner and revokes are detected as they are proven.

use crate::cards::{Card, Suit};
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::trick::{Play, Trick, TrickPlan};
use crate::Events;
use smallvec::smallvec;

use super::{Dividend, Event, Recording, PLAYERS, TRICKS};

/// The suit that trumps a trick led in `led`: spades beat hearts beat clubs beat diamonds
/// beat spades. Any other suit played to the trick is a discard.
pub const fn trump_for(led: Suit) -> Suit {
    match led {
        Suit::Hearts => Suit::Spades,
        Suit::Clubs => Suit::Hearts,
        Suit::Diamonds => Suit::Clubs,
        Suit::Spades => Suit::Diamonds,
    }
}

/// The winning play of a complete trick and its position (0 = the lead): the highest card of
/// the lead's trump if any was played, else the highest card of the suit led.
pub fn trick_winner(trick: &Trick<Card>) -> Option<(usize, Play<Card>)> {
    trick.winner_with_trumps(Some(trump_for(trick.led()?.suit)))
}

impl Dividend {
    /// The deal's tricks as data (`TrickPlan`) while its cards may be entered one by one: the
    /// suit led names its trumps (`trump_for`), each card follows its own suit, ace high.
    pub(super) fn plan(&self) -> Option<TrickPlan> {
        let deal = self.deal.as_ref()?;
        if !matches!(deal.recording, None | Some(Recording::CardByCard)) {
            return None;
        }
        Some(TrickPlan::new(
            deal.number,
            Seat::all(PLAYERS).collect(),
            TRICKS,
            |led| Some(trump_for(led)),
            Card::deck(),
            |c| c.suit,
            |c| c.rank as u8,
        ))
    }

    pub(super) fn play(&mut self, seat: Seat, card: Card) -> Result<Events<Event>, RuleViolation> {
        seat.check(PLAYERS)?;
        let deal = self.deal_for("play", Recording::CardByCard)?;
        let expected = deal.trick.next_seat(PLAYERS);
        if seat != expected {
            return Err(RuleViolation::NotYourTurn { expected, got: seat });
        }
        if deal.played.contains(card) {
            return Err(RuleViolation::CardAlreadyPlayed(card));
        }

        // Checked: from here on the move is legal and the state changes.
        let deal = self.deal.as_mut().ok_or(RuleViolation::GameFinished)?;
        deal.recording = Some(Recording::CardByCard);
        let trick_no = deal.tricks_done + 1;
        let mut events = smallvec![Event::CardPlayed {
            seat,
            card,
            trick: trick_no,
        }];
        if let Some(revoke) = deal.voids.lay(&mut deal.trick, seat, card, trick_no) {
            deal.revokes.push(revoke);
            events.push(Event::RevokeDetected { revoke });
        }
        deal.played.insert(card);
        if !deal.trick.is_complete(PLAYERS) {
            return Ok(events);
        }
        let (_, winning) = trick_winner(&deal.trick).ok_or(RuleViolation::GameFinished)?;
        events.extend(self.award_trick(winning.seat));
        Ok(events)
    }
}
