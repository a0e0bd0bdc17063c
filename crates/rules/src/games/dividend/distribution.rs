//! How a trick's cards are distributed by the winner's position, and which distributions of a
//! whole deal's 52 cards can happen at all.

use std::collections::HashSet;

use crate::seat::Seat;

use super::{CARDS, PLAYERS, TRICKS};

/// How a trick's four cards are shared out, per seat, when `winner` wins a trick led by
/// `leader`. By the winner's position p (leader = 1): p=1 → every player 1; p=2 → winner 2,
/// leader 1, third player 1; p=3 → winner 3, leader 1; p=4 → winner 4.
pub fn shares(leader: Seat, winner: Seat) -> [u8; PLAYERS] {
    let mut out = [0u8; PLAYERS];
    let at = |position: usize| leader.left(position, PLAYERS).index();
    match winner.distance_from(leader, PLAYERS) {
        0 => out = [1; PLAYERS],
        1 => {
            out[at(1)] = 2;
            out[at(0)] = 1;
            out[at(2)] = 1;
        }
        2 => {
            out[at(2)] = 3;
            out[at(0)] = 1;
        }
        _ => out[at(3)] = 4,
    }
    out
}

/// True when some 13 tricks, the first led by `leader`, share the cards out as `cards_won`.
///
/// Each trick's winner leads the next, so not every split of 52 can happen: every trick gives
/// each pair of opposite seats 0, 2 or 4 cards, so their counts always add up to an even number
/// (17, 11, 14, 10 is impossible), and the first leader wins at most 31 cards, the dealer at
/// most 34. A depth-first search over the winners of the tricks left, remembering the (tricks
/// left, leader, cards still to share) states that failed.
pub fn reachable(leader: Seat, cards_won: [u8; PLAYERS]) -> bool {
    type State = (u8, Seat, [u8; PLAYERS]);
    pub(super) fn search(tricks: u8, leader: Seat, left: [u8; PLAYERS], failed: &mut HashSet<State>) -> bool {
        if tricks == 0 {
            return left == [0; PLAYERS];
        }
        if failed.contains(&(tricks, leader, left)) {
            return false;
        }
        for winner in Seat::all(PLAYERS) {
            if less(left, shares(leader, winner)).is_some_and(|rest| search(tricks - 1, winner, rest, failed)) {
                return true;
            }
        }
        failed.insert((tricks, leader, left));
        false
    }
    pub(super) fn less(left: [u8; PLAYERS], share: [u8; PLAYERS]) -> Option<[u8; PLAYERS]> {
        let mut rest = left;
        for (r, s) in rest.iter_mut().zip(share) {
            *r = r.checked_sub(s)?;
        }
        Some(rest)
    }
    let total: u32 = cards_won.iter().map(|&c| u32::from(c)).sum();
    total == CARDS && search(TRICKS, leader, cards_won, &mut HashSet::new())
}
