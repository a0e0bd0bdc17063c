//! The tricks of a hand: trick 1 entered whole from the four face-up sixteenth cards, then
//! tricks 2 to 16 card by card from the previous winner's lead; each complete trick is scored
//! (its value to the winner and everyone who laid the winner's colour) and booked to the seats.

use crate::error::RuleViolation;
use crate::seat::{BySeat, Seat};
use crate::squares::{Shape, SquaresCard, SquaresSet};
use crate::trick::{Play, Trick};
use crate::Events;
use smallvec::smallvec;

use super::{Event, Phase, TrickResult, TrickyDick, PLAYERS, TRICKS};

/// The winning play of a complete trick and its position: the highest number; among cards
/// tied on number, the colour that occurs most often in the whole trick; then colour rank
/// (blue > green > yellow > red); then shape (square > triangle > heart > circle). The 64 cards
/// are all different, so the key never ties.
pub fn trick_winner(trick: &Trick<SquaresCard>) -> Option<(usize, Play<SquaresCard>)> {
    let mut colour_count = [0u8; 4];
    for play in trick.plays() {
        colour_count[play.card.colour.index()] += 1;
    }
    trick.winner_by(|c| (c.number, colour_count[c.colour.index()], c.colour, c.shape.rank()))
}

impl TrickyDick {
    pub(super) fn first_trick(&mut self, cards: &[SquaresCard]) -> Result<Events<Event>, RuleViolation> {
        if self.phase() != Phase::FirstTrick {
            return Err(self.not_expected("first_trick"));
        }
        if cards.len() != PLAYERS {
            return Err(RuleViolation::WrongNumberOfEntries {
                got: cards.len(),
                expected: PLAYERS,
            });
        }
        let mut seen = SquaresSet::default();
        for &card in cards {
            if seen.contains(card) {
                return Err(RuleViolation::SquaresCardAlreadyPlayed(card));
            }
            seen.insert(card);
        }

        // Checked: from here on the move is legal and the state changes.
        let hand = self.hand.as_mut().ok_or(RuleViolation::GameFinished)?;
        let mut trick = Trick::new(hand.dealer.left(1, PLAYERS));
        for _ in 0..PLAYERS {
            let seat = trick.next_seat(PLAYERS);
            trick.push(seat, cards[seat.index()]);
        }
        hand.played = seen;
        Ok(self.complete_trick(trick, Events::new()))
    }

    pub(super) fn play(
        &mut self,
        seat: Seat,
        card: SquaresCard,
        trick: Option<u8>,
    ) -> Result<Events<Event>, RuleViolation> {
        seat.check(PLAYERS)?;
        if self.phase() != Phase::Playing {
            return Err(self.not_expected("play"));
        }
        let hand = self.hand.as_mut().ok_or(RuleViolation::GameFinished)?;
        let current = hand.tricks_done + 1;
        match trick {
            Some(t) if t < current => return Err(RuleViolation::TrickComplete { trick: t, current }),
            Some(t) if t > current => return Err(RuleViolation::TrickNotStarted { trick: t, current }),
            _ => {}
        }
        let expected = hand.trick.next_seat(PLAYERS);
        if seat != expected {
            return Err(RuleViolation::NotYourTurn { expected, got: seat });
        }
        if hand.played.contains(card) {
            return Err(RuleViolation::SquaresCardAlreadyPlayed(card));
        }

        // Checked: from here on the move is legal and the state changes.
        let penalised = hand.penalised(seat, card);
        hand.played.insert(card);
        hand.trick.push(seat, card);
        let events = smallvec![Event::CardPlayed {
            seat,
            card,
            trick: current,
            penalised,
        }];
        if !hand.trick.is_complete(PLAYERS) {
            return Ok(events);
        }
        let trick = hand.trick.clone();
        Ok(self.complete_trick(trick, events))
    }

    /// Scores a complete trick of the current hand, books it to the seats and moves on: the
    /// winner leads the next trick, or the hand ends after the sixteenth.
    pub(super) fn complete_trick(&mut self, trick: Trick<SquaresCard>, mut events: Events<Event>) -> Events<Event> {
        let Some(hand) = self.hand.as_mut() else {
            return events;
        };
        let Some((_, winning)) = trick_winner(&trick) else {
            return events;
        };
        let plays = trick.plays().to_vec();
        let circles = plays.iter().filter(|p| p.card.shape == Shape::Circle).count() as u8;
        let squares = plays.iter().filter(|p| p.card.shape == Shape::Square).count() as u8;
        let value = i32::from(circles) - i32::from(squares);
        let mut scorers: Vec<Seat> = plays
            .iter()
            .filter(|p| p.seat == winning.seat || p.card.colour == winning.card.colour)
            .map(|p| p.seat)
            .collect();
        scorers.sort();
        let mut penalised = hand.penalised_seats(&plays);
        penalised.sort();

        let mut chips = BySeat::filled(PLAYERS, 0);
        for &seat in &scorers {
            chips[seat] = value;
        }
        let mut penalties = BySeat::filled(PLAYERS, 0);
        for &seat in &penalised {
            penalties[seat] = 1;
        }
        hand.remember_lays(&plays);
        hand.tricks_done += 1;
        hand.trick = Trick::new(winning.seat);
        let result = TrickResult {
            trick: hand.tricks_done,
            winner: winning.seat,
            cards: plays,
            circles,
            squares,
            value,
            scorers,
            penalised,
        };
        hand.last_trick = Some(result.clone());
        let (number, done) = (hand.number(), hand.tricks_done);
        self.book(&chips, &penalties);
        events.push(Event::TrickWon { hand: number, result });
        if done == TRICKS {
            events.extend(self.finish_hand());
        }
        events
    }
}
