//! An auction round the table, shared by games that bid in turn.
//!
//! Seats speak in a fixed order, round and round; a seat that passes is out for good. A bid must
//! beat the standing bid, except that a seat earlier in the speaking order than the standing
//! bidder may hold it with an equal bid (Ombre's "earlier seat holds"). The auction ends when
//! every seat has passed (no contract) or when all but the standing bidder have passed.
//!
//! Invariants: `order` holds each seat once; `passed` only grows; `standing` is always a seat
//! that has not passed.

use serde::{Deserialize, Serialize};

use super::seat::Seat;

/// Why an auction refused a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuctionRefusal<B> {
    /// It is another seat's turn.
    NotYourTurn { expected: Seat },
    /// The bid does not beat (or, for an earlier seat, equal) the standing one.
    TooLow { standing: B },
    /// The auction is over.
    Closed,
}

/// How an auction ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuctionEnd<B> {
    /// Everyone passed.
    AllPassed,
    /// The seat and its winning bid.
    Won(Seat, B),
}

/// An auction in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Auction<B> {
    order: Vec<Seat>,
    passed: Vec<bool>,
    /// Index into `order` of the seat to speak next.
    next: usize,
    standing: Option<(usize, B)>,
    /// Calls made so far (bids and passes).
    calls: usize,
}

impl<B: Copy + Ord> Auction<B> {
    /// A new auction in which `order` speaks in turn, the first seat first.
    pub fn new(order: Vec<Seat>) -> Auction<B> {
        let passed = vec![false; order.len()];
        Auction {
            order,
            passed,
            next: 0,
            standing: None,
            calls: 0,
        }
    }

    /// The seat due to speak, or None once the auction is over.
    pub fn to_speak(&self) -> Option<Seat> {
        (self.end().is_none()).then(|| self.order[self.next])
    }

    /// The standing bid and its bidder.
    pub fn standing(&self) -> Option<(Seat, B)> {
        self.standing.map(|(i, b)| (self.order[i], b))
    }

    /// True before anyone has spoken.
    pub fn is_fresh(&self) -> bool {
        self.calls == 0
    }

    /// Seats that have passed.
    pub fn passed(&self) -> Vec<Seat> {
        self.order
            .iter()
            .zip(&self.passed)
            .filter(|(_, &p)| p)
            .map(|(s, _)| *s)
            .collect()
    }

    /// How the auction ended, once it has.
    pub fn end(&self) -> Option<AuctionEnd<B>> {
        let in_play = self.passed.iter().filter(|p| !**p).count();
        match self.standing {
            _ if in_play == 0 => Some(AuctionEnd::AllPassed),
            Some((i, b)) if in_play == 1 => Some(AuctionEnd::Won(self.order[i], b)),
            _ => None,
        }
    }

    fn check_turn(&self, seat: Seat) -> Result<usize, AuctionRefusal<B>> {
        let expected = self.to_speak().ok_or(AuctionRefusal::Closed)?;
        if expected == seat {
            Ok(self.next)
        } else {
            Err(AuctionRefusal::NotYourTurn { expected })
        }
    }

    /// Checks that `seat` may bid `bid` now, without changing anything.
    ///
    /// # Errors
    /// Out of turn, too low, or the auction is over.
    pub fn check_bid(&self, seat: Seat, bid: B) -> Result<(), AuctionRefusal<B>> {
        let i = self.check_turn(seat)?;
        match self.standing {
            Some((holder, standing)) if bid < standing || (bid == standing && i >= holder) => {
                Err(AuctionRefusal::TooLow { standing })
            }
            _ => Ok(()),
        }
    }

    /// Records a bid.
    ///
    /// # Errors
    /// As `check_bid`; nothing changes then.
    pub fn bid(&mut self, seat: Seat, bid: B) -> Result<(), AuctionRefusal<B>> {
        self.check_bid(seat, bid)?;
        self.standing = Some((self.next, bid));
        self.calls += 1;
        self.advance();
        Ok(())
    }

    /// Records a pass: the seat is out of the auction.
    ///
    /// # Errors
    /// Out of turn or the auction is over; nothing changes then.
    pub fn pass(&mut self, seat: Seat) -> Result<(), AuctionRefusal<B>> {
        let i = self.check_turn(seat)?;
        self.passed[i] = true;
        self.calls += 1;
        self.advance();
        Ok(())
    }

    fn advance(&mut self) {
        if self.end().is_some() {
            return;
        }
        let n = self.order.len();
        for step in 1..=n {
            let i = (self.next + step) % n;
            if !self.passed[i] {
                self.next = i;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seats() -> Vec<Seat> {
        vec![Seat::new(1), Seat::new(2), Seat::new(0)]
    }

    #[test]
    fn three_passes_end_the_auction_with_no_contract() {
        let mut a: Auction<u8> = Auction::new(seats());
        for s in seats() {
            a.pass(s).expect("pass");
        }
        assert_eq!(a.end(), Some(AuctionEnd::AllPassed));
        assert_eq!(a.to_speak(), None);
    }

    #[test]
    fn a_later_seat_must_overbid_but_an_earlier_seat_may_hold() {
        let mut a: Auction<u8> = Auction::new(seats());
        a.bid(Seat::new(1), 1).expect("play");
        assert_eq!(
            a.check_bid(Seat::new(2), 1),
            Err(AuctionRefusal::TooLow { standing: 1 })
        );
        a.bid(Seat::new(2), 2).expect("play more");
        a.pass(Seat::new(0)).expect("pass");
        // Seat 1 speaks before seat 2, so it may hold 2.
        a.bid(Seat::new(1), 2).expect("hold");
        assert_eq!(
            a.check_bid(Seat::new(2), 2),
            Err(AuctionRefusal::TooLow { standing: 2 })
        );
        a.pass(Seat::new(2)).expect("pass");
        assert_eq!(a.end(), Some(AuctionEnd::Won(Seat::new(1), 2)));
    }

    #[test]
    fn out_of_turn_calls_are_refused_and_change_nothing() {
        let mut a: Auction<u8> = Auction::new(seats());
        let before = a.clone();
        assert_eq!(
            a.bid(Seat::new(0), 1),
            Err(AuctionRefusal::NotYourTurn { expected: Seat::new(1) })
        );
        assert_eq!(a, before);
    }
}
