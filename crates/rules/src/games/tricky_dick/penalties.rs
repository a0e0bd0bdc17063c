//! The penalty: a card that shares no number, colour or shape with the same player's card in
//! the previous trick costs that player 1. Trick 1 has no previous trick, so costs nothing.

use crate::seat::{BySeat, Seat};
use crate::squares::SquaresCard;
use crate::trick::Play;

use super::{Hand, PLAYERS};

impl Hand {
    /// True when `card` laid by `seat` now shares nothing with that seat's previous lay.
    pub(super) fn penalised(&self, seat: Seat, card: SquaresCard) -> bool {
        self.previous
            .as_ref()
            .is_some_and(|previous| !card.shares_an_attribute_with(previous[seat]))
    }

    /// The seats whose card among `plays` is penalised, in the order they played.
    pub(super) fn penalised_seats(&self, plays: &[Play<SquaresCard>]) -> Vec<Seat> {
        plays
            .iter()
            .filter(|p| self.penalised(p.seat, p.card))
            .map(|p| p.seat)
            .collect()
    }

    /// Keeps each seat's card of a complete trick, for the penalties of the next.
    pub(super) fn remember_lays(&mut self, plays: &[Play<SquaresCard>]) {
        let Some(first) = plays.first() else {
            return;
        };
        let mut lays = BySeat::filled(PLAYERS, first.card);
        for play in plays {
            lays[play.seat] = play.card;
        }
        self.previous = Some(lays);
    }
}
