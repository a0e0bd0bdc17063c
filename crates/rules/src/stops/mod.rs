//! Sequence-and-stop machinery shared by the stops games (Pope Joan, Spin, Newmarket), and the
//! chips they move between players and the divisions of a staking board.
//!
//! Play runs up a suit, ace low (A 2 … 10 J Q K): a lead, then the next card up from whichever
//! seat holds it, until nobody can continue (a stop); the player of the stop leads next. The
//! server usually does not see the hands, so it knows only the *certain* stops: a king, a card
//! whose next card up is out of the pack, set aside (turned up, laid out as a pool card) or
//! already played, or was declared dead by an earlier declared stop. Any other stop is declared
//! (`Runs::declare_stop`), which is only possible when some cards lie in a spare hand; the card
//! that would have continued is then taken to be there, and playing it later proves that a
//! player missed a play (reported as a `MissedPlay`, as revokes are in the trick games).
//!
//! Invariants: a card is played at most once per deal, never one out of the pack or set aside;
//! no seat plays more cards than it was dealt; while a run is live its next card up exists and
//! is still unaccounted for (otherwise the run would have stopped).
//!
//! The machinery is split by concept: `runs` (the sequences and their stops), `board` (chips
//! between the bank, the seats and the pools), `setup` (what every stops table checks and deals),
//! `table` (the table type every stops game is: set-up, the order of deals, the end of a deal,
//! the `Game` implementation; a game adds its own `Rules`).

mod board;
mod runs;
mod setup;
pub(crate) mod sim;
mod table;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

pub use crate::chips::Pool;
pub(crate) use board::impl_chip_event;
pub use board::{
    movements, opening_chips, per_card_payments, pour, settlements, ChipEvent, ChipMovement, Holdings, PoolBalance,
};
pub use runs::{next_down, next_up, MissedPlay, Played, RunState, Runs, ACE_LOW};
pub use setup::{
    check_table, even_hands, FIRST_DEALER_DOC, MAX_OPENING_CHIPS, MAX_ROUNDS, OPENING_CHIPS_DOC, ROUNDS_DOC,
};
pub(crate) use table::{impl_table_deal, impl_table_options, table_event};
pub use table::{HasTableOptions, Nothing, OpeningPools, Rules, Table, TableDeal, TableEvent, TableOptions};

use crate::cards::Card;
use crate::error::RuleViolation;
use crate::seat::Seat;
use crate::Game;

/// The refusal of a move of `kind` out of phase: `GameFinished` once the game is over,
/// otherwise `MoveNotExpected` naming the `legal` moves.
pub fn not_expected(finished: bool, kind: &'static str, legal: impl FnOnce() -> Vec<&'static str>) -> RuleViolation {
    if finished {
        RuleViolation::GameFinished
    } else {
        RuleViolation::MoveNotExpected {
            kind,
            expected: legal(),
        }
    }
}

/// Per seat that may play now, the cards `game` accepts from it (`rules::legal`): the seat to
/// lead any card still in a hand, or every seat with cards left the next card of the live run.
pub fn legal_plays<G: Game>(game: &G, runs: &Runs, mv: impl Fn(Seat, Card) -> G::Move) -> Vec<(Seat, Vec<Card>)> {
    let (seats, cards) = runs.playable();
    crate::legal::cards_by_seat(game, seats, &cards, mv)
}
